/* walk_int.h - helpers shared by the walkers of this folder (not for callers). */
#ifndef ARTCARVE_WALK_INT_H
#define ARTCARVE_WALK_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "art/runtime/object_size.h"
#include "rosalloc/walk/walk.h"

enum { WK_PAGE = 4096 };

/* One walk of one space. */
struct space_walk {
	const struct walk_ctx *ctx;
	const struct art_space *s;
	const struct image *img;
	struct walk_evidence *ev;
	unsigned ps;                /* process pointer size, 4 or 8 */
	const char *name;           /* for anomaly records */
	uint64_t damaged;           /* anomalies recorded so far (units take differences) */
};

void wk_init(struct space_walk *w, const struct walk_ctx *ctx, const struct art_space *s);
/* Records an anomaly against the walked space. */
void wk_anom(struct space_walk *w, enum anomaly_code code, enum err_code cause, uint64_t va, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* Fills space, evidence fields (live bit, allocation stack) and calls emit. */
int wk_emit(struct space_walk *w, struct walk_candidate *c, struct err *e);
/* Calls unit() when set. */
int wk_unit(struct space_walk *w, struct walk_unit *u, struct err *e);

/* Captured bytes from va to the end of its image region's capture (*avail bytes); NULL when
 * va is not captured. */
const uint8_t *wk_at(const struct image *img, uint64_t va, size_t *avail);
/* n bytes at va: a pointer into the image when they lie in one region's capture, else a
 * copy in buf (n <= cap) when abutting captures hold them; NULL when not captured. */
const uint8_t *wk_bytes(const struct image *img, uint64_t va, size_t n, uint8_t *buf, size_t cap);

static inline uint32_t wk_u32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);  /* little-endian hosts only (checked in walk.c) */
	return v;
}

static inline uint64_t wk_u64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

static inline uint64_t wk_ptr(const uint8_t *p, unsigned ps) { return ps == 8 ? wk_u64(p) : wk_u32(p); }

/* A walk of contiguous objects (contig.c). */
struct wk_contig {
	enum walk_place place;
	uint64_t where;
	bool number;           /* index = object number from the start (images) */
	bool blocks;           /* bump-pointer TLAB block headers may come between objects */
	bool gap;              /* note the first zero gap after the linear walk (u->gap_*) */
};
/* Emits every object of [start, end); u->allocated counts them, u->top ends the last.  With
 * k->gap, u->gap_begin/gap_end give the first run of zero words after the objects that lie
 * back to back from start, when an object follows it (nothing else in between). */
int wk_contiguous(struct space_walk *w, struct rt_sizer *z, uint64_t start, uint64_t end, const struct wk_contig *k,
		  struct walk_unit *u, struct err *e);

/* Captured bytes of a walk: n bytes at va (p); poison: 0xBADDB01D words are dead gaps. */
struct wk_span {
	const uint8_t *p;
	uint64_t va;
	size_t n;
	bool poison;
};
/* The object at off of s claims step bytes (RoundUp(SizeOf, 8)); when its length word (array
 * length_, String count_) disagrees with the chain of objects that follows it (chain.c), records
 * an anomaly (code) and returns the bytes it really has (where the next object starts), else 0. */
uint64_t wk_chain_cut(struct space_walk *w, struct rt_sizer *z, const struct wk_span *s, size_t off, uint64_t step,
		      enum anomaly_code code);

/* True when the n bytes at p are all zero (word at a time). */
bool wk_zero(const uint8_t *p, size_t n);
/* The offset of the first non-zero 8-byte word of the n bytes at p (the image's bytes at
 * va) from off on (off <= n), else the end of the last whole word: pages the input holds as holes are
 * passed unread (img_next_data at each page boundary), so a free stretch of a sparse core
 * costs no page fault. */
size_t wk_zero_run(const struct image *img, uint64_t va, const uint8_t *p, size_t off, size_t n);

#endif
