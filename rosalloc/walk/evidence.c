/* evidence.c - live/mark bitmaps, allocation and live stacks, card table (see walk.h).
 *
 * Bitmaps (runtime/gc/accounting/space_bitmap.h @ 7.1): bit (a - heap_begin) / 8 of the
 * space's bitmap, words least-significant bit first, so on little-endian bytes: byte
 * (a - begin) / 64, bit ((a - begin) / 8) % 8.  A continuous space's bitmaps are named after
 * the space ("allocspace main rosalloc space live-bitmap 1", "region space live bitmap"),
 * not after its mapping, and live and mark swap roles at every GC (names cannot change), so
 * they are tied to spaces by size (capacity / 64, a page multiple) and content: the set bits
 * of a space's live bitmap fall on object starts (non-zero words) of that space.  The large
 * object spaces share "large live objects" / "large marked objects": 1 bit per 4 KiB page
 * from address 0 over 4 GiB (DiscontinuousSpace, runtime/gc/space/space.cc @ 7.1).
 *
 * Stacks (runtime/gc/accounting/atomic_stack.h): entries are raw Object* in 5.0/5.1 and
 * 32-bit StackReference<Object> from 6.0; the stacks are zeroed (madvise) on reset, so
 * the non-zero entries are the objects allocated since the last GC (allocation stack) or
 * those of the GC in progress (live stack).
 *
 * Card table (card_table.h): 1 byte per card, dirty = 0x70; reported, not used for states. */
#include "rosalloc/walk/walk.h"

#include <stdlib.h>

#include "carver/base/bsearch.h"
#include "carver/base/xalloc.h"
#include "rosalloc/walk/walk_int.h"

enum { CARD_DIRTY = 0x70, LOS_PAGE_SHIFT = 12, OBJ_SHIFT = 3 };

struct ev_bitmap {
	const struct art_space *map;   /* the bitmap mapping */
	const uint8_t *bits;
	size_t len;                    /* captured bytes */
	uint64_t set;                  /* set bits */
	bool taken;
};

struct walk_evidence {
	const struct art_runtime *rt;
	struct ev_bitmap *bm;
	size_t nbm;
	size_t *space_bm;              /* per space of rt->spaces: index into bm, or SIZE_MAX */
	size_t los_bm;                 /* SIZE_MAX if none */
	uint32_t *stack;               /* sorted, distinct */
	size_t nstack;
	struct walk_ev_report rep[WALK_EV_COUNT];
};

static const char *const ev_names[WALK_EV_COUNT] = {
	[WALK_EV_LIVE_BITMAP] = "live_bitmap",
	[WALK_EV_LOS_BITMAP] = "los_bitmap",
	[WALK_EV_ALLOC_STACK] = "allocation_stack",
	[WALK_EV_LIVE_STACK] = "live_stack",
	[WALK_EV_CARD_TABLE] = "card_table",
};

const char *walk_ev_source_name(enum walk_ev_source s)
{
	return (unsigned)s < WALK_EV_COUNT ? ev_names[s] : "unknown";
}

/* Set bits of the n bytes p captured at va: only the data runs are read (holes are zero). */
static uint64_t popcount_bytes(const struct image *img, uint64_t va, const uint8_t *p, size_t n)
{
	uint64_t c = 0, lo, hi, at = va;
	/* each step counts one data run and moves past it */
	while (at < va + n && img_next_data(img, at, va + n, &lo, &hi)) {
		size_t i = (size_t)(lo - va), e = (size_t)(hi - va);
		for (; i + 8 <= e; i += 8)
			c += (uint64_t)__builtin_popcountll(wk_u64(p + i));
		for (; i < e; i++)
			c += (uint64_t)__builtin_popcount(p[i]);
		at = hi;
	}
	return c;
}

static bool is_los_bitmap(const char *name)
{
	return !strncmp(name, "large ", 6);
}

/* "imagespace <file> live-bitmap <n>" (image_space.cc) for the image mapped from file. */
static bool image_bitmap_of(const char *bm, const char *file)
{
	size_t n = strlen(file);
	return n && !strncmp(bm, "imagespace ", 11) && !strncmp(bm + 11, file, n) && !strncmp(bm + 11 + n, " live-bitmap", 12);
}

static bool has_bitmap(enum space_kind k)
{
	return k == SPACE_ROSALLOC || k == SPACE_DLMALLOC || k == SPACE_ZYGOTE || k == SPACE_REGION ||
	       k == SPACE_BUMP_POINTER;
}

/* Set bits of b that fall on a non-zero 32-bit word of space s (object starts), bounded. */
static uint64_t bitmap_hits(const struct image *img, const struct ev_bitmap *b, const struct art_space *s)
{
	size_t avail;
	const uint8_t *d = wk_at(img, s->begin, &avail);
	uint64_t hits = 0, span = s->end - s->begin;
	if (!d)
		return 0;
	if (avail > span)
		avail = (size_t)span;
	for (size_t i = 0; i + 8 <= b->len; i += 8) {
		uint64_t w = wk_u64(b->bits + i);
		while (w) {
			unsigned bit = (unsigned)__builtin_ctzll(w);
			uint64_t off = ((uint64_t)i * 8 + bit) << OBJ_SHIFT;
			w &= w - 1;
			if (off + 4 <= avail && wk_u32(d + off))
				hits++;
		}
	}
	return hits;
}

/* Mapping bytes of a space bitmap of a space with this capacity: SpaceBitmap::Create rounds
 * capacity / 64 to a page. */
static uint64_t bitmap_bytes(uint64_t capacity)
{
	uint64_t b = (capacity + 63) / 64;
	return (b + WK_PAGE - 1) / WK_PAGE * WK_PAGE;
}

static void tie_bitmaps(struct walk_evidence *ev, struct anomaly_sink *sink)
{
	const struct art_spaces *sp = &ev->rt->spaces;
	for (size_t i = 0; i < sp->count; i++) {
		const struct art_space *s = &sp->v[i];
		size_t best = SIZE_MAX, empty = SIZE_MAX;
		uint64_t best_hits = 0, want = bitmap_bytes(s->limit - s->begin);
		if (s->kind == SPACE_IMAGE) {
			for (size_t j = 0; j < ev->nbm; j++)
				if (!ev->bm[j].taken && image_bitmap_of(ev->bm[j].map->name, s->name)) {
					ev->bm[j].taken = true;
					ev->space_bm[i] = j;
					break;
				}
			continue;
		}
		if (!has_bitmap(s->kind))
			continue;
		for (size_t j = 0; j < ev->nbm; j++) {
			struct ev_bitmap *b = &ev->bm[j];
			uint64_t size = b->map->limit - b->map->begin;
			if (b->taken || is_los_bitmap(b->map->name) || size != want || b->len != size)
				continue;
			if (!b->set) {
				if (empty == SIZE_MAX)
					empty = j;
				continue;
			}
			uint64_t hits = bitmap_hits(ev->rt->img, b, s);
			/* nearly every set bit must fall on an object start of this space */
			if (hits * 100 >= b->set * 99 && hits > best_hits) {
				best = j;
				best_hits = hits;
			}
		}
		if (best == SIZE_MAX)
			best = empty;
		if (best == SIZE_MAX)
			continue;
		ev->bm[best].taken = true;
		ev->space_bm[i] = best;
		if (ev->bm[best].set && best_hits < ev->bm[best].set)
			anomaly_add(sink, ANOM_EVIDENCE, ERR_CORRUPT, ev->bm[best].map->begin, ev->bm[best].map->name,
				    "%llu of %llu set bits fall on no object start of space at 0x%llx",
				    (unsigned long long)(ev->bm[best].set - best_hits),
				    (unsigned long long)ev->bm[best].set, (unsigned long long)s->begin);
	}
	/* LOS: the non-empty one of "large live objects" / "large marked objects", else either */
	for (size_t j = 0; j < ev->nbm; j++) {
		struct ev_bitmap *b = &ev->bm[j];
		if (!is_los_bitmap(b->map->name) || b->len != (uint64_t)1 << (32 - LOS_PAGE_SHIFT - 3))
			continue;
		if (ev->los_bm == SIZE_MAX || (b->set && !ev->bm[ev->los_bm].set))
			ev->los_bm = j;
	}
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* Appends stack entry v (not zero) or counts it bad. */
static int add_entry(struct walk_evidence *ev, uint64_t v, size_t *cap, struct walk_ev_report *rep, uint64_t *bad,
		     struct err *e)
{
	if (v > UINT32_MAX || (v & 7)) {
		(*bad)++;
		return 0;
	}
	if (ev->nstack == *cap) {
		size_t nc = *cap ? *cap * 2 : 4096;
		uint32_t *s = xreallocarray(ev->stack, nc, sizeof(*s));
		if (!s)
			return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory reading the allocation stack");
		ev->stack = s;
		*cap = nc;
	}
	ev->stack[ev->nstack++] = (uint32_t)v;
	rep->entries++;
	return 0;
}

/* Appends the non-zero entries of one stack mapping. */
static int add_stack(struct walk_evidence *ev, const struct art_space *m, unsigned width, size_t *cap,
		     struct walk_ev_report *rep, struct anomaly_sink *sink, struct err *e)
{
	size_t n;
	const uint8_t *p = wk_at(ev->rt->img, m->begin, &n);
	uint64_t bad = 0, lo, hi;
	if (!p)
		return 0;
	if (n > m->end - m->begin)
		n = (size_t)(m->end - m->begin);
	rep->present = true;
	rep->mappings++;
	/* entries in the holes of the input are zero: only the data runs are read, each step
	 * reads one run (rounded out to whole entries) and moves past it */
	size_t i = 0, stop = n - n % width;
	while (i < stop && img_next_data(ev->rt->img, m->begin + i, m->begin + stop, &lo, &hi)) {
		size_t from = (size_t)(lo - m->begin) / width * width;
		size_t to = ((size_t)(hi - m->begin) + width - 1) / width * width;
		i = to;
		for (size_t at = from; at < to; at += width) {
			uint64_t v = width == 8 ? wk_u64(p + at) : wk_u32(p + at);
			int rc = v ? add_entry(ev, v, cap, rep, &bad, e) : 0;
			if (rc)
				return rc;
		}
	}
	if (bad)
		anomaly_add(sink, ANOM_EVIDENCE, ERR_CORRUPT, m->begin, m->name,
			    "%llu entries are no 8-aligned heap address below 4 GiB", (unsigned long long)bad);
	return 0;
}

/* Stack entry width: raw pointers in 5.0/5.1, 32-bit references from 6.0 (atomic_stack.h). */
static unsigned stack_width(const struct art_runtime *rt)
{
	const char *f = rt->layout ? rt->layout->family : "";
	if (!strcmp(f, "5.0") || !strcmp(f, "5.1"))
		return rt->pointer_size == 8 ? 8 : 4;
	return 4;
}

static int read_stacks(struct walk_evidence *ev, struct anomaly_sink *sink, struct err *e)
{
	const struct art_spaces *sp = &ev->rt->spaces;
	unsigned width = stack_width(ev->rt);
	size_t cap = 0;
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < sp->count; i++) {
		const struct art_space *m = &sp->v[i];
		if (m->kind == SPACE_ALLOCATION_STACK)
			rc = add_stack(ev, m, width, &cap, &ev->rep[WALK_EV_ALLOC_STACK], sink, e);
		else if (m->kind == SPACE_LIVE_STACK)
			rc = add_stack(ev, m, width, &cap, &ev->rep[WALK_EV_LIVE_STACK], sink, e);
	}
	if (rc || !ev->nstack)
		return rc;
	qsort(ev->stack, ev->nstack, sizeof(ev->stack[0]), cmp_u32);
	size_t k = 1;
	for (size_t i = 1; i < ev->nstack; i++)
		if (ev->stack[i] != ev->stack[k - 1])
			ev->stack[k++] = ev->stack[i];
	ev->nstack = k;
	return 0;
}

static void read_cards(struct walk_evidence *ev)
{
	const struct art_spaces *sp = &ev->rt->spaces;
	struct walk_ev_report *rep = &ev->rep[WALK_EV_CARD_TABLE];
	for (size_t i = 0; i < sp->count; i++) {
		const struct art_space *m = &sp->v[i];
		size_t n;
		const uint8_t *p;
		if (m->kind != SPACE_CARD_TABLE || !(p = wk_at(ev->rt->img, m->begin, &n)))
			continue;
		if (n > m->end - m->begin)
			n = (size_t)(m->end - m->begin);
		rep->present = true;
		rep->mappings++;
		/* a dirty card is not zero: only the data runs are read, one a step */
		uint64_t lo, hi, at = m->begin;
		while (at < m->begin + n && img_next_data(ev->rt->img, at, m->begin + n, &lo, &hi)) {
			for (size_t j = (size_t)(lo - m->begin); j < (size_t)(hi - m->begin); j++)
				rep->entries += p[j] == CARD_DIRTY;
			at = hi;
		}
	}
}

static int read_bitmaps(struct walk_evidence *ev, struct err *e)
{
	const struct art_spaces *sp = &ev->rt->spaces;
	size_t n = 0;
	for (size_t i = 0; i < sp->count; i++)
		n += sp->v[i].kind == SPACE_BITMAP;
	if (n && !(ev->bm = xcalloc(n, sizeof(*ev->bm))))
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory reading bitmaps");
	for (size_t i = 0; i < sp->count; i++) {
		const struct art_space *m = &sp->v[i];
		struct ev_bitmap *b;
		size_t len;
		const uint8_t *p;
		if (m->kind != SPACE_BITMAP || !(p = wk_at(ev->rt->img, m->begin, &len)))
			continue;
		b = &ev->bm[ev->nbm++];
		b->map = m;
		b->bits = p;
		b->len = len < m->end - m->begin ? len : (size_t)(m->end - m->begin);
		b->set = popcount_bytes(ev->rt->img, m->begin, b->bits, b->len);
		struct walk_ev_report *rep = &ev->rep[is_los_bitmap(m->name) ? WALK_EV_LOS_BITMAP : WALK_EV_LIVE_BITMAP];
		rep->present = true;
		rep->mappings++;
	}
	return 0;
}

struct walk_evidence *walk_evidence_open(const struct art_runtime *rt, struct anomaly_sink *sink, struct err *e)
{
	struct walk_evidence *ev = xcalloc(1, sizeof(*ev));
	if (!ev) {
		ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory reading the GC's evidence");
		return NULL;
	}
	ev->rt = rt;
	ev->los_bm = SIZE_MAX;
	if (rt->spaces.count && !(ev->space_bm = xreallocarray(NULL, rt->spaces.count, sizeof(size_t)))) {
		ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory reading the GC's evidence");
		walk_evidence_close(ev);
		return NULL;
	}
	for (size_t i = 0; i < rt->spaces.count; i++)
		ev->space_bm[i] = SIZE_MAX;
	if (read_bitmaps(ev, e) || read_stacks(ev, sink, e)) {
		walk_evidence_close(ev);
		return NULL;
	}
	tie_bitmaps(ev, sink);
	read_cards(ev);
	for (size_t j = 0; j < ev->nbm; j++)
		ev->rep[is_los_bitmap(ev->bm[j].map->name) ? WALK_EV_LOS_BITMAP : WALK_EV_LIVE_BITMAP].entries +=
			ev->bm[j].taken || j == ev->los_bm ? ev->bm[j].set : 0;
	return ev;
}

void walk_evidence_close(struct walk_evidence *ev)
{
	if (!ev)
		return;
	xfree(ev->bm);
	xfree(ev->space_bm);
	xfree(ev->stack);
	xfree(ev);
}

int walk_evidence_live(struct walk_evidence *ev, const struct art_space *s, uint64_t addr)
{
	const struct art_spaces *sp = &ev->rt->spaces;
	const struct ev_bitmap *b;
	struct walk_ev_report *rep;
	uint64_t bit;

	if (s->kind == SPACE_LOS_ALLOCATION || s->kind == SPACE_LOS_FREELIST || s->kind == SPACE_LOS_MAP) {
		if (ev->los_bm == SIZE_MAX)
			return -1;
		b = &ev->bm[ev->los_bm];
		bit = addr >> LOS_PAGE_SHIFT;
		rep = &ev->rep[WALK_EV_LOS_BITMAP];
	} else {
		size_t i = (size_t)(s - sp->v);
		if (s < sp->v || i >= sp->count || ev->space_bm[i] == SIZE_MAX || addr < s->begin)
			return -1;
		b = &ev->bm[ev->space_bm[i]];
		bit = (addr - s->begin) >> OBJ_SHIFT;
		rep = &ev->rep[WALK_EV_LIVE_BITMAP];
	}
	if (bit / 8 >= b->len)
		return -1;
	rep->used = true;
	rep->consulted++;
	return (b->bits[bit / 8] >> (bit % 8)) & 1;
}

int walk_evidence_marked(struct walk_evidence *ev, const struct art_space *s, uint64_t begin, uint64_t end)
{
	const struct art_spaces *sp = &ev->rt->spaces;
	size_t i = (size_t)(s - sp->v);
	if (s < sp->v || i >= sp->count || ev->space_bm[i] == SIZE_MAX || begin < s->begin || end < begin)
		return -1;
	const struct ev_bitmap *b = &ev->bm[ev->space_bm[i]];
	uint64_t lo = (begin - s->begin) >> (OBJ_SHIFT + 3), hi = (end - s->begin + 63) >> (OBJ_SHIFT + 3);
	if (hi > b->len)
		hi = b->len;
	if (lo >= hi)
		return -1;
	return img_zero(ev->rt->img, b->map->begin + lo, hi - lo) ? 0 : 1;   /* holes unread */
}

uint64_t walk_evidence_next_live(struct walk_evidence *ev, const struct art_space *s, uint64_t from, uint64_t limit)
{
	const struct art_spaces *sp = &ev->rt->spaces;
	size_t i = (size_t)(s - sp->v);
	if (s < sp->v || i >= sp->count || ev->space_bm[i] == SIZE_MAX || from < s->begin || from >= limit)
		return limit;
	const struct ev_bitmap *b = &ev->bm[ev->space_bm[i]];
	uint64_t bit = (from - s->begin) >> OBJ_SHIFT, end = (limit - s->begin + 7) >> OBJ_SHIFT;
	if (end > (uint64_t)b->len * 8)
		end = (uint64_t)b->len * 8;
	ev->rep[WALK_EV_LIVE_BITMAP].used = true;
	uint64_t bva = b->map->begin, run_end = 0;   /* the bitmap's bytes from run_end on: not looked up */
	while (bit < end) {
		if (bit / 8 >= run_end) {   /* holes of the input hold no set bit: passed over unread */
			uint64_t lo, hi;
			if (!img_next_data(ev->rt->img, bva + bit / 8, bva + (end + 7) / 8, &lo, &hi))
				return limit;
			run_end = hi - bva;
			if ((lo - bva) * 8 > bit)
				bit = (lo - bva) * 8;
			continue;
		}
		/* a byte at a time until aligned, then whole zero words are passed over */
		if (bit % 64 == 0 && bit + 64 <= end && wk_u64(b->bits + bit / 8) == 0) {
			bit += 64;
			continue;
		}
		if ((b->bits[bit / 8] >> (bit % 8)) & 1)
			return s->begin + (bit << OBJ_SHIFT);
		bit++;
	}
	return limit;
}

int walk_evidence_on_stack(struct walk_evidence *ev, uint64_t addr)
{
	struct walk_ev_report *a = &ev->rep[WALK_EV_ALLOC_STACK], *l = &ev->rep[WALK_EV_LIVE_STACK];
	if (!a->present && !l->present)
		return -1;
	a->used = a->present;
	l->used = l->present;
	a->consulted++;
	if (addr > UINT32_MAX)
		return 0;
	return bs_find(ev->stack, ev->nstack, bs_key_u32, addr) != SIZE_MAX;
}

void walk_evidence_report(const struct walk_evidence *ev, struct walk_ev_report out[WALK_EV_COUNT])
{
	for (int i = 0; i < WALK_EV_COUNT; i++)
		out[i] = ev ? ev->rep[i] : (struct walk_ev_report){ 0 };
}
