/* model_alias.c - alias windows: model addresses below 4 GiB for the objects of a space
 * above it (model.h). */
#include "rosalloc/model/model_int.h"

#include "carver/base/xalloc.h"

/* Alias windows (model.h): they lie in [MODEL_ALIAS_FLOOR, MODEL_ALIAS_CEIL), start on a
 * MODEL_ALIAS_ALIGN boundary and keep MODEL_ALIAS_GUARD bytes from every mapping, space and
 * other window.  The ceiling keeps the top of the 32-bit id space to the ids a carved HPROF
 * invents for its marks (output/hprof/hprof_mark.h). */
#define MODEL_ALIAS_FLOOR 0x1000000ull
#define MODEL_ALIAS_CEIL 0xff000000ull
#define MODEL_ALIAS_ALIGN 0x100000ull
#define MODEL_ALIAS_GUARD 0x100000ull

const struct model_alias *model_alias_at(const struct model *m, uint64_t addr)
{
	if (addr < m->alias_lo)
		return NULL;
	for (size_t i = 0; i < m->alias_count; i++) {
		const struct model_alias *a = &m->alias[i];
		if (!a->failed && addr >= a->alias && addr - a->alias < a->len)
			return a;
	}
	return NULL;
}

uint64_t model_addr_va(const struct model *m, uint64_t addr)
{
	const struct model_alias *a = model_alias_at(m, addr);
	return a ? addr - a->alias + a->real : addr;
}

/* [lo, hi) meets [b, e) widened by the guard on both sides. */
static bool near(uint64_t lo, uint64_t hi, uint64_t b, uint64_t e)
{
	uint64_t gb = b > MODEL_ALIAS_GUARD ? b - MODEL_ALIAS_GUARD : 0;
	uint64_t ge = e < UINT64_MAX - MODEL_ALIAS_GUARD ? e + MODEL_ALIAS_GUARD : UINT64_MAX;
	return lo < ge && gb < hi;
}

/* The highest start of what the window [lo, hi) would come near (a mapping of the image, a
 * runtime space or another window), 0 when nothing. */
static uint64_t alias_conflict(const struct model *m, uint64_t lo, uint64_t hi)
{
	const struct image *img = m->rt->img;
	uint64_t top = 0;
	for (size_t i = 0; i < img->region_count; i++)
		if (near(lo, hi, img->regions[i].start, img->regions[i].end) && img->regions[i].start + 1 > top)
			top = img->regions[i].start + 1;
	for (size_t i = 0; i < m->rt->spaces.count; i++) {
		const struct art_space *sp = &m->rt->spaces.v[i];
		if (near(lo, hi, sp->begin, sp->end > sp->begin ? sp->end : sp->begin + 1) && sp->begin + 1 > top)
			top = sp->begin + 1;
	}
	for (size_t i = 0; i < m->alias_count; i++) {
		const struct model_alias *a = &m->alias[i];
		if (!a->failed && near(lo, hi, a->alias, a->alias + a->len) && a->alias + 1 > top)
			top = a->alias + 1;
	}
	return top;
}

/* The highest free window of len bytes (see MODEL_ALIAS_*); false when none.  Each round
 * moves below the highest thing in the way, so it ends after at most one round per mapping,
 * space and window. */
static bool alias_window(const struct model *m, uint64_t len, uint64_t *base)
{
	uint64_t top = MODEL_ALIAS_CEIL;
	while (len <= top && top - len >= MODEL_ALIAS_FLOOR) {
		uint64_t b = (top - len) & ~(MODEL_ALIAS_ALIGN - 1), hit;
		if (b < MODEL_ALIAS_FLOOR)
			return false;
		if (!(hit = alias_conflict(m, b, b + len))) {
			*base = b;
			return true;
		}
		hit--;  /* the start of what is in the way */
		if (hit <= MODEL_ALIAS_GUARD)
			return false;
		top = hit - MODEL_ALIAS_GUARD;
	}
	return false;
}

/* The window of the space sp that lies above 4 GiB: found or made on its first candidate.
 * NULL when the space cannot have one (recorded once, as an anomaly); -ERR_NOMEM in *rc. */
const struct model_alias *model_alias_of_space(struct model *m, const struct art_space *sp, int *rc,
					       struct err *e)
{
	uint16_t si = (uint16_t)(sp - m->rt->spaces.v);
	uint64_t base = 0, len = sp->end > sp->begin ? sp->end - sp->begin : 0;
	*rc = 0;
	for (size_t i = 0; i < m->alias_count; i++)
		if (m->alias[i].space == si)
			return m->alias[i].failed ? NULL : &m->alias[i];
	struct model_alias *v = xreallocarray(m->alias, m->alias_count + 1, sizeof(*v));
	if (!v) {
		*rc = model_nomem(e);
		return NULL;
	}
	m->alias = v;
	struct model_alias *a = &v[m->alias_count];
	bool ok = sp->begin >> MODEL_LOW4G_SHIFT && !(sp->begin & 7) && len && alias_window(m, len, &base);
	*a = (struct model_alias){ .alias = base, .real = sp->begin, .len = len, .space = si, .failed = !ok };
	m->alias_count++;
	if (!ok) {
		anomaly_add(m->sink, ANOM_CANDIDATE, ERR_UNSUP, sp->begin, sp->name,
			    "space at 0x%llx (%llu bytes) lies above 4 GiB and no unmapped window of its size is free "
			    "below 4 GiB: its objects are not carved (heap addresses are 32-bit)",
			    (unsigned long long)sp->begin, (unsigned long long)len);
		return NULL;
	}
	if (base < m->alias_lo)
		m->alias_lo = base;
	return a;
}
