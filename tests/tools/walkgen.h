/* walkgen.h - builders of allocator structures for walker tests and fuzz seeds, written from
 * the allocators' rules (rosalloc.h/.cc, malloc.c 2.8.6, large_object_space.cc), not from
 * the walkers: RosAlloc 7.0+ free-list runs and 5.x/6.0 bitmap runs, a dlmalloc mspace with
 * in-use and free chunks, a free-list LOS allocation-info map, objects of the fuzz class set
 * (tests/fuzz/walk_fuzz.h).  Every function writes little-endian into a caller's buffer. */
#ifndef ARTCARVE_WALKGEN_H
#define ARTCARVE_WALKGEN_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "rosalloc/walk/walk.h"
#include "tests/fuzz/walk_fuzz.h"

static inline void wg32(uint8_t *p, uint64_t v) { uint32_t x = (uint32_t)v; memcpy(p, &x, 4); }
static inline void wg64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }
static inline void wgp(uint8_t *p, uint64_t v, unsigned ps) { ps == 8 ? wg64(p, v) : wg32(p, v); }

/* An object of fuzz class k at p (array/string length n); returns its SizeOf. */
static inline uint32_t wg_object(uint8_t *p, int k, uint32_t n)
{
	wg32(p, WF_KADDR(k));
	switch (k) {
	case WF_K_BYTEARR: wg32(p + 8, n); return 12 + n;
	case WF_K_LONGARR: wg32(p + 8, n); return 16 + 8 * n;
	case WF_K_OBJARR: wg32(p + 8, n); return 12 + 4 * n;
	case WF_K_STRING: wg32(p + 8, n << 1); memset(p + 16, 'a', n); return 16 + n; /* compressed (8.0+) */
	default: return 28;
	}
}

/* A 7.0+ free-list run of bracket idx (family fam) at page p of heap (space base va): the
 * slots in used[] hold objects, the others are on free_list_ in ascending order. */
static inline void wg_fl_run(uint8_t *heap, uint8_t *pm, uint64_t base, unsigned p, unsigned idx,
			     const unsigned *used, size_t nused, unsigned ps)
{
	uint32_t size, pages, slots, header;
	walk_rosalloc_geometry("7.1", idx, &size, &pages, &slots, &header);
	uint8_t *r = heap + (size_t)p * 4096;
	uint64_t va = base + (uint64_t)p * 4096, head = 0;
	uint32_t n = 0;
	r[1] = (uint8_t)idx;
	pm[p] = 2;
	for (uint32_t k = 1; k < pages; k++)
		pm[p + k] = 3;
	for (uint32_t k = slots; k-- > 0;) {
		bool u = false;
		for (size_t j = 0; j < nused; j++)
			u |= used[j] == k;
		uint8_t *s = r + header + (size_t)k * size;
		if (u) {
			wg_object(s, WF_K_OBJ, 0);
			continue;
		}
		wgp(s, head, ps);
		head = va + header + (uint64_t)k * size;
		n++;
	}
	wg64(r + 8, head);
	wg32(r + 24, n);
}

/* A 5.x/6.0 bitmap run of bracket idx of family fam at page p: slots [0, nalloc) allocated
 * (objects written), the invalid high bits of the last alloc word set. */
static inline void wg_bm_run(uint8_t *heap, uint8_t *pm, unsigned p, const char *fam, unsigned idx, uint32_t nalloc,
			     bool thread_local)
{
	uint32_t size, pages, slots, header;
	walk_rosalloc_geometry(fam, idx, &size, &pages, &slots, &header);
	uint8_t *r = heap + (size_t)p * 4096;
	uint32_t words = (slots + 31) / 32;
	r[1] = (uint8_t)idx;
	r[2] = thread_local;
	pm[p] = 2;
	for (uint32_t k = 1; k < pages; k++)
		pm[p + k] = 3;
	for (uint32_t k = 0; k < nalloc && k < slots; k++) {
		uint8_t *w = r + 8 + 4 * (k / 32);
		uint32_t v;
		memcpy(&v, w, 4);
		wg32(w, v | 1u << (k % 32));
		wg_object(r + header + (size_t)k * size, WF_K_OBJ, 0);
	}
	if (slots % 32) {
		uint8_t *w = r + 8 + 4 * (words - 1);
		uint32_t v;
		memcpy(&v, w, 4);
		wg32(w, v | ~((1u << (slots % 32)) - 1));
	}
}

/* ---- dlmalloc (malloc.c 2.8.6, ONLY_MSPACES, no locks) ---- */

struct wg_dl {
	uint8_t *p;                /* the space's bytes */
	uint64_t base;
	unsigned S;
	uint64_t ms, c;            /* malloc_state, next chunk */
};

static inline uint64_t wg_dl_pad(unsigned S, uint64_t req)
{
	uint64_t n = (req + S + 2 * S - 1) & ~(uint64_t)(2 * S - 1);
	return n < 4 * S ? 4 * S : n;
}

static inline uint64_t wg_dl_seg_off(unsigned S) { return 8 + (8 + 66 + 32 + 3) * (uint64_t)S + (S == 8 ? 8 : 4); }

static inline void wg_dl_init(struct wg_dl *d, uint8_t *p, uint64_t base, unsigned S)
{
	d->p = p;
	d->base = base;
	d->S = S;
	d->ms = base + 2 * S;
	uint64_t msize = wg_dl_pad(S, wg_dl_seg_off(S) + 6 * S);
	wgp(p + S, msize | 3, S);
	wgp(p + 2 * S + 8 + 2 * S, base, S);        /* least_addr */
	for (unsigned i = 0; i < 33; i++) {         /* init_bins: each bin's fd/bk is itself */
		uint64_t bin = d->ms + 8 + 8 * (uint64_t)S + (uint64_t)i * 2 * S;
		wgp(p + (bin - base) + 2 * S, bin, S);
		wgp(p + (bin - base) + 3 * S, bin, S);
	}
	d->c = base + msize;
}

/* Appends a chunk holding an object of fuzz class k (or a free chunk when k < 0). */
static inline uint64_t wg_dl_chunk(struct wg_dl *d, int k, uint32_t n, bool prev_inuse)
{
	unsigned S = d->S;
	uint8_t tmp[512];
	memset(tmp, 0, sizeof(tmp));
	uint32_t osize = k >= 0 ? wg_object(tmp, k, n) : n;
	uint64_t size = wg_dl_pad(S, osize), c = d->c;
	uint8_t *q = d->p + (c - d->base);
	wgp(q + S, size | (k >= 0 ? 2 : 0) | (prev_inuse ? 1 : 0), S);
	if (k >= 0) {
		memcpy(q + 2 * S, tmp, osize);
	} else {                                   /* a small bin's chunk: fd = bk = the bin */
		uint64_t bin = d->ms + 8 + 8 * (uint64_t)S + (size >> 3) * 2 * S;
		wgp(q + 2 * S, bin, S);
		wgp(q + 3 * S, bin, S);
		wgp(q + size, size, S);                /* next chunk's prev_foot */
	}
	d->c = c + size;
	return c;
}

/* top at the current chunk up to end (a fencepost after), the segment record. */
static inline void wg_dl_finish(struct wg_dl *d, uint64_t end, bool prev_inuse)
{
	unsigned S = d->S;
	uint64_t top_foot = wg_dl_pad(S, 4 * S) + 4 * S, tsize = end - d->c - top_foot;
	uint8_t *ms = d->p + (d->ms - d->base);
	wgp(d->p + (d->c - d->base) + S, tsize | (prev_inuse ? 1 : 0), S);
	wgp(d->p + (d->c + tsize - d->base) + S, (uint64_t)S | 3, S);     /* fencepost */
	wgp(ms + 8 + S, tsize, S);                                      /* topsize */
	wgp(ms + 8 + 4 * S, d->c, S);                                   /* top */
	wgp(ms + wg_dl_seg_off(S), d->base, S);                         /* seg.base */
	wgp(ms + wg_dl_seg_off(S) + S, end - d->base, S);               /* seg.size */
}

/* ---- free-list LOS allocation info (large_object_space.cc) ---- */

static inline void wg_los_entry(uint8_t *info, uint32_t page, uint32_t prev_free, uint32_t pages, uint32_t flags)
{
	wg32(info + 8 * (size_t)page, prev_free);
	wg32(info + 8 * (size_t)page + 4, pages | flags);
}

#endif
