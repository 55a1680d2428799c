/* model_int.h - what the parts of the object model (rosalloc/model/model*.c) share; only they
 * include it.  Candidates enter through model_add (model_add.c), which reads words and
 * references (model_refs.c) and gives objects above 4 GiB alias windows (model_alias.c);
 * model_finish (model_finish.c) sorts the table, builds the object-start index
 * (model_index.c) and checks every reference; model.c holds the life of the model and the
 * readers of the finished table. */
#ifndef ARTCARVE_MODEL_INT_H
#define ARTCARVE_MODEL_INT_H

#include "carver/base/bsearch.h"
#include "rosalloc/model/model.h"

enum { MODEL_LOW4G_SHIFT = 32 };

int model_nomem(struct err *e);

/* ---- model_alias.c ---- */

/* The window of the space sp that lies above 4 GiB: found or made on its first candidate.
 * NULL when the space cannot have one (recorded once, as an anomaly); -ERR_NOMEM in *rc. */
const struct model_alias *model_alias_of_space(struct model *m, const struct art_space *sp, int *rc,
					       struct err *e);

/* ---- model_index.c: the object-start index (model.h struct model_ix) ---- */

void model_ix_release(struct model *m);
/* One index run per stretch of objects of one space; every object's bit is set. */
int model_ix_build(struct model *m, struct err *e);
/* Counts the objects before every word (the objects must be in their final places). */
void model_ix_rank(struct model *m);

/* Bits set in x, inline: without -mpopcnt (the x86-64 baseline) __builtin_popcountll is a
 * call into libgcc, and model_ix_find runs once per reference of every object. */
static inline uint32_t model_pop64(uint64_t x)
{
	x -= (x >> 1) & 0x5555555555555555ull;
	x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
	return (uint32_t)((x * 0x0101010101010101ull) >> 56);
}

static inline uint64_t model_ix_begin(const void *v, size_t i) { return ((const struct model_ix *)v)[i].begin; }

static inline const struct model_ix *model_ix_at(const struct model *m, uint64_t addr)
{
	size_t lo = bs_upper(m->ix, m->ix_count, model_ix_begin, addr);
	if (lo == 0 || addr >= m->ix[lo - 1].end)
		return NULL;
	return &m->ix[lo - 1];
}

/* The object starting at addr through the object-start index (ranks built), MODEL_NONE if none. */
static inline size_t model_ix_find(const struct model *m, uint64_t addr)
{
	const struct model_ix *x = (addr & 7) ? NULL : model_ix_at(m, addr);
	if (!x || model_in_alias(m, addr))
		return MODEL_NONE;   /* an alias window is unmapped memory to a reference */
	const struct model_ix_word *w = &x->w[(addr - x->begin) / 512];
	uint64_t bit = (addr - x->begin) / 8, word = w->bits, below = word & ((1ull << (bit % 64)) - 1);
	if (!(word >> (bit % 64) & 1))
		return MODEL_NONE;
	return x->first + w->rank + model_pop64(below);
}

/* ---- model_refs.c: words and references ---- */

/* The 32-bit word at va when captured in one region (a plausibility probe: no error). */
bool model_peek32(const struct model *m, uint64_t va, uint32_t *v);
/* The 32-bit word at va; -ERR_UNMAPPED naming it when not captured. */
int model_rd32(const struct model *m, uint64_t va, uint32_t *v, struct err *e);
/* Bytes from the object's start to its first array element / character. */
uint32_t model_data_offset(const struct model *m, const struct model_class *mc);
/* A reference value is null or a plausible object start (see model.h); obj is
 * model_ix_find(m, ref), which the caller has already looked up. */
bool model_ref_plausible(const struct model *m, uint32_t ref, size_t obj);

/* The references of one object: its non-null ones are kept (model_refs: the reference check
 * and the graph walk then never read the image again); with check set, the scan stops at the
 * first implausible one instead. */
struct model_ref_scan {
	struct model *m;
	bool check;             /* held to the reference check (allocated, class layout known) */
	bool nomem;
	uint32_t off, value;    /* the first reference that is no plausible object start */
};
/* A model_ref_fn over a struct model_ref_scan. */
int model_scan_ref(void *arg, uint32_t off, uint32_t value);
/* Appends the non-null references of object i (allocated objects only: a free object's are
 * stale) to refs and closes its slice: ref_at[i + 1]. */
int model_gather_refs(struct model *m, size_t i, struct err *e);

#endif
