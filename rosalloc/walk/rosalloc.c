/* rosalloc.c - the RosAlloc walker: page map -> runs -> slots (runtime/gc/allocator/rosalloc.h,
 * rosalloc.cc @ 5.0, 5.1, 6.0, 7.0 ... 14).
 *
 * The page map (the space's companion mapping "rosalloc page map") has one byte per page:
 * 0 released, 1 empty, 2 first page of a run, 3 run part, 4 first page of a page-level
 * allocation, 5 its part (enum PageMapKind, identical in every version).  A run starts with
 * its header {u8 magic (0 release / 42 debug), u8 size_bracket_idx_, u8 is_thread_local_,
 * u8 to_be_bulk_freed_, ...}; its slots follow the header, slot k at run + header + k * size.
 *
 * Which slots are free:
 *   5.0-6.0 bitmap runs: u32 first_search_vec_idx_ at 4, then three bitmaps of w words
 *     (alloc, bulk-free, thread-local-free); slot k is allocated iff its alloc bit is 1 and
 *     its bulk-free and thread-local-free bits are 0.  The alloc bits past the last slot are
 *     1 (SetAllocBitMapBitsForInvalidSlots), the other bitmaps' 0.  A free slot is all zero.
 *   7.0+ free-list runs: three SlotFreeList {u64 head, u64 tail, u32 size, pad} at 8, 32, 56
 *     (free, bulk-free, thread-local-free); a slot on any list is free; its first pointer-
 *     sized word is the next_ link and the rest is zero (Run::FreeSlot zeroes the slot, then
 *     pushes it).
 * Bracket sizes and run pages are table rows (5.0; 5.1-6.0; 7.0+); header sizes and slot
 * counts follow from RosAlloc::Initialize's sizing rules. */
#include "rosalloc/walk/walk.h"

#include <stdlib.h>

#include "carver/base/ck.h"
#include "carver/base/xalloc.h"
#include "rosalloc/walk/walk_int.h"

enum { PM_RELEASED, PM_EMPTY, PM_RUN, PM_RUN_PART, PM_LARGE, PM_LARGE_PART };
enum { RUN_MAGIC = 42 };           /* Run::kMagicNum, debug builds only */
enum { MAX_BRACKETS = 42, MAX_SLOTS = 512, MAX_RUN_PAGES = 32 };
enum { BITMAP_HEADER = 8 };        /* 5.x/6.0 fixed run header: magic, idx, tl, bulk, u32 */
enum { FREELIST_HEADER = 80 };     /* sizeof(Run) @ 7.0-14 (asserted in rosalloc.h) */
enum { LIST_FREE = 8, LIST_BULK = 32, LIST_TL = 56, LIST_SIZE = 16 }; /* SlotFreeList offsets */

/* One version row: the size brackets (RosAlloc::Initialize: bracketSizes, numOfPages). */
struct ros_row {
	const char *families;          /* layout families, space-separated */
	bool freelist;                 /* 7.0+ free-list runs, else bitmap runs */
	unsigned brackets;
	uint16_t size[MAX_BRACKETS];
	uint8_t pages[MAX_BRACKETS];
};

#define SIZES_16X32 16, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240, 256, 272, \
	288, 304, 320, 336, 352, 368, 384, 400, 416, 432, 448, 464, 480, 496, 512, 1024, 2048
static const struct ros_row ros_rows[] = {
	/* 5.0 (rosalloc.cc @ 5.0): 16-byte steps to 512, 1 KiB, 2 KiB; brackets 4-7 two pages */
	{ "5.0", false, 34, { SIZES_16X32 },
	  { 1, 1, 1, 1, 2, 2, 2, 2, 4, 4, 4, 4, 4, 4, 4, 4, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8,
	    16, 32 } },
	/* 5.1, 6.0 (commit 3f3c6c030d "Tune rosalloc buffer sizes"): brackets 4-7 one page */
	{ "5.1 6.0", false, 34, { SIZES_16X32 },
	  { 1, 1, 1, 1, 1, 1, 1, 1, 4, 4, 4, 4, 4, 4, 4, 4, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8,
	    16, 32 } },
	/* 7.0-14 (commits 31bf42c48c free lists, 7ed9c56104 8-byte brackets, fc067bfbcd one-page
	 * runs): 8-byte steps to 128, 16-byte steps to 512, 1 KiB (2 pages), 2 KiB (4 pages) */
	{ "7.0 7.1 8.0 8.1 9 10 11 12 13 14", true, 42,
	  { 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96, 104, 112, 120, 128, 144, 160, 176, 192, 208,
	    224, 240, 256, 272, 288, 304, 320, 336, 352, 368, 384, 400, 416, 432, 448, 464, 480, 496, 512,
	    1024, 2048 },
	  { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	    1, 1, 1, 1, 1, 1, 1, 1, 2, 4 } },
};

/* Geometry of one bracket. */
struct ros_bracket {
	uint32_t size, pages, slots, header;
	uint32_t words;                /* bitmap runs: 32-bit words per bitmap */
};

struct ros_geom {
	const struct ros_row *row;
	struct ros_bracket b[MAX_BRACKETS];
};

static bool family_in(const char *list, const char *fam)
{
	size_t n = strlen(fam);
	for (const char *p = list; *p;) {
		const char *q = strchr(p, ' ');
		size_t len = q ? (size_t)(q - p) : strlen(p);
		if (len == n && !memcmp(p, fam, n))
			return true;
		if (!q)
			break;
		p = q + 1;
	}
	return false;
}

/* RosAlloc::Initialize.  Bitmap runs: for s slots from run/size down, the header is 8 bytes +
 * three bitmaps of RoundUp(s, 32) / 8 bytes, rounded up to the slot size; the first s whose
 * header + slots fit; then the run's remainder (run % size) joins the header.  Free-list runs:
 * header = RoundUp(80, size) + run % size. */
static void ros_bracket_geom(const struct ros_row *row, unsigned i, struct ros_bracket *b)
{
	uint32_t size = row->size[i], run = (uint32_t)row->pages[i] * WK_PAGE;
	memset(b, 0, sizeof(*b));
	b->size = size;
	b->pages = row->pages[i];
	if (row->freelist) {
		b->header = (FREELIST_HEADER + size - 1) / size * size + run % size;
		b->slots = (run - b->header) / size;
		return;
	}
	for (uint32_t s = run / size + 1; s-- > 0;) {
		uint32_t bm = (s + 31) / 32 * 4;
		uint32_t hdr = (BITMAP_HEADER + 3 * bm + size - 1) / size * size;
		if (hdr + s * size <= run) {
			b->slots = s;
			b->words = bm / 4;
			b->header = hdr + run % size;
			return;
		}
	}
}

/* The row of a layout family (NULL: no RosAlloc row for it). */
static const struct ros_row *ros_row_for(const char *family)
{
	for (size_t i = 0; i < sizeof(ros_rows) / sizeof(ros_rows[0]); i++)
		if (family && family_in(ros_rows[i].families, family))
			return &ros_rows[i];
	return NULL;
}

int walk_rosalloc_geometry(const char *family, unsigned idx, uint32_t *size, uint32_t *pages, uint32_t *slots,
			   uint32_t *header)
{
	const struct ros_row *row = ros_row_for(family);
	struct ros_bracket b;
	if (!row || idx >= row->brackets)
		return -1;
	ros_bracket_geom(row, idx, &b);
	*size = b.size;
	*pages = b.pages;
	*slots = b.slots;
	*header = b.header;
	return 0;
}

/* ---- one run ---- */

struct ros_walk {
	struct space_walk w;
	struct ros_geom g;
	uint8_t *scratch;              /* a run that spans two captured regions is copied here */
	struct rt_sizer z;             /* sizes slot objects: a run header's second source */
	struct err why_not;            /* why the last slot object did not fit (bracket_fit) */
	uint64_t runs, large, free_pages;
};

struct run {
	uint64_t va;
	uint32_t page;
	const uint8_t *p;              /* the run's bytes */
	const struct ros_bracket *b;
	unsigned idx;
	uint64_t freeb[MAX_SLOTS / 64];/* slot k free per the metadata */
	uint64_t orphan[MAX_SLOTS / 64];
};

static bool bit_get(const uint64_t *v, uint32_t k) { return (v[k >> 6] >> (k & 63)) & 1; }
static void bit_set(uint64_t *v, uint32_t k) { v[k >> 6] |= 1ull << (k & 63); }

/* Walks one SlotFreeList (7.0+): marks every slot it reaches free.  Bounded: a slot can be
 * marked once, so a cycle or a second list reaching the same slot stops the walk. */
static void run_list(struct ros_walk *rw, struct run *r, unsigned off, const char *what)
{
	const struct ros_bracket *b = r->b;
	uint64_t head = wk_u64(r->p + off), p = head;
	uint32_t size = wk_u32(r->p + off + LIST_SIZE), steps = 0;
	uint64_t first = r->va + b->header, last = first + (uint64_t)b->slots * b->size;

	if (rw->w.ps == 4 && head >> 32) {
		wk_anom(&rw->w, ANOM_FREE_LIST, ERR_CORRUPT, r->va + off,
			"run at 0x%llx: %s list head 0x%llx has high bits in a 32-bit process",
			(unsigned long long)r->va, what, (unsigned long long)head);
		p = head & 0xffffffffu;
	}
	while (p) {
		if (p < first || p >= last) {
			wk_anom(&rw->w, ANOM_FREE_LIST, ERR_CORRUPT, r->va,
				"run at 0x%llx: %s list link 0x%llx after %u slots is outside the run's slots "
				"[0x%llx, 0x%llx)", (unsigned long long)r->va, what, (unsigned long long)p, steps,
				(unsigned long long)first, (unsigned long long)last);
			break;
		}
		if ((p - first) % b->size) {
			wk_anom(&rw->w, ANOM_FREE_LIST, ERR_CORRUPT, r->va,
				"run at 0x%llx: %s list link 0x%llx after %u slots is not at a slot start (slot size %u)",
				(unsigned long long)r->va, what, (unsigned long long)p, steps, b->size);
			break;
		}
		uint32_t k = (uint32_t)((p - first) / b->size);
		if (bit_get(r->freeb, k)) {
			wk_anom(&rw->w, ANOM_FREE_LIST, ERR_CORRUPT, r->va,
				"run at 0x%llx: %s list reaches slot %u (0x%llx) a second time after %u slots "
				"(a cycle or a slot on two lists)", (unsigned long long)r->va, what, k,
				(unsigned long long)p, steps);
			break;
		}
		bit_set(r->freeb, k);
		steps++;
		p = wk_ptr(r->p + b->header + (size_t)k * b->size, rw->w.ps);
	}
	if (steps != size)
		wk_anom(&rw->w, ANOM_FREE_LIST, ERR_CORRUPT, r->va + off + LIST_SIZE,
			"run at 0x%llx: %s list holds %u slots, its size field says %u", (unsigned long long)r->va,
			what, steps, size);
}

/* 7.0+: free, bulk-free and thread-local-free lists; then unlisted slots that read as free
 * (a next_ link into this run or 0, the rest zero, and not a class pointer) are orphans. */
static void run_freelist(struct ros_walk *rw, struct run *r)
{
	const struct ros_bracket *b = r->b;
	const struct art_runtime *rt = rw->w.ctx->rt;
	unsigned ps = rw->w.ps;
	uint64_t first = r->va + b->header, last = first + (uint64_t)b->slots * b->size;
	uint32_t orphans = 0, first_orphan = 0;

	run_list(rw, r, LIST_FREE, "free");
	run_list(rw, r, LIST_BULK, "bulk-free");
	run_list(rw, r, LIST_TL, "thread-local-free");
	if (!r->p[2] && wk_u32(r->p + LIST_TL + LIST_SIZE))
		wk_anom(&rw->w, ANOM_FREE_LIST, ERR_CORRUPT, r->va + LIST_TL,
			"run at 0x%llx: thread-local-free list of %u slots in a run that is not thread-local",
			(unsigned long long)r->va, wk_u32(r->p + LIST_TL + LIST_SIZE));
	/* an unlisted slot reads free when its next_ is 0 or links to a free (listed or orphan)
	 * slot of this run, the rest is zero and the word is no class pointer; chains of
	 * orphans resolve over repeated passes (bounded by the slot count) */
	for (bool changed = true; changed;) {
		changed = false;
		for (uint32_t k = b->slots; k-- > 0;) {
			if (bit_get(r->freeb, k) || bit_get(r->orphan, k))
				continue;
			const uint8_t *s = r->p + b->header + (size_t)k * b->size;
			uint64_t next = wk_ptr(s, ps);
			if (next) {
				if (next < first || next >= last || (next - first) % b->size)
					continue;
				uint32_t t = (uint32_t)((next - first) / b->size);
				if (!bit_get(r->freeb, t) && !bit_get(r->orphan, t))
					continue;
			}
			if (!wk_zero(s + ps, b->size - ps) || (next && runtime_class_at(rt, next)))
				continue;
			bit_set(r->orphan, k);
			changed = true;
			if (!orphans++ || k < first_orphan)
				first_orphan = k;
		}
	}
	if (orphans)
		wk_anom(&rw->w, ANOM_FREE_LIST, ERR_CORRUPT, first + (uint64_t)first_orphan * b->size,
			"run at 0x%llx: %u slot%s from slot %u read%s as free (a next_ link into the run or 0, the "
			"rest zero) but no list reaches %s", (unsigned long long)r->va, orphans, orphans == 1 ? "" : "s",
			first_orphan, orphans == 1 ? "s" : "", orphans == 1 ? "it" : "them");
}

/* 5.0-6.0: the three bitmaps. */
static void run_bitmaps(struct ros_walk *rw, struct run *r)
{
	const struct ros_bracket *b = r->b;
	uint32_t w = b->words, fsv = wk_u32(r->p + 4);
	const uint8_t *A = r->p + BITMAP_HEADER, *F = A + 4 * w, *T = F + 4 * w;
	uint32_t tail = b->slots % 32;
	uint32_t invalid = tail ? ~((1u << tail) - 1) : 0;

	if (invalid && ((wk_u32(A + 4 * (w - 1)) & invalid) != invalid || (wk_u32(F + 4 * (w - 1)) & invalid) ||
			(wk_u32(T + 4 * (w - 1)) & invalid)))
		wk_anom(&rw->w, ANOM_RUN_HEADER, ERR_CORRUPT, r->va + BITMAP_HEADER,
			"run at 0x%llx: bits past slot %u of the last bitmap word are not 1/0/0 "
			"(alloc 0x%08x, bulk 0x%08x, thread-local 0x%08x)", (unsigned long long)r->va, b->slots,
			wk_u32(A + 4 * (w - 1)), wk_u32(F + 4 * (w - 1)), wk_u32(T + 4 * (w - 1)));
	if (fsv >= w)
		wk_anom(&rw->w, ANOM_RUN_HEADER, ERR_CORRUPT, r->va + 4,
			"run at 0x%llx: first_search_vec_idx_ %u is not below its %u bitmap words",
			(unsigned long long)r->va, fsv, w);
	else
		for (uint32_t j = 0; j < fsv; j++)
			if (wk_u32(A + 4 * j) != 0xffffffffu) {
				wk_anom(&rw->w, ANOM_RUN_HEADER, ERR_CORRUPT, r->va + BITMAP_HEADER + 4 * j,
					"run at 0x%llx: alloc word %u is 0x%08x below first_search_vec_idx_ %u",
					(unsigned long long)r->va, j, wk_u32(A + 4 * j), fsv);
				break;
			}
	if (!r->p[2]) {
		for (uint32_t j = 0; j < w; j++)
			if (wk_u32(T + 4 * j)) {
				wk_anom(&rw->w, ANOM_RUN_HEADER, ERR_CORRUPT, r->va + (uint64_t)(T - r->p),
					"run at 0x%llx: thread-local-free bits in a run that is not thread-local",
					(unsigned long long)r->va);
				break;
			}
	}
	for (uint32_t j = 0; j < w; j++) {
		uint32_t freebits = ~wk_u32(A + 4 * j) | wk_u32(F + 4 * j) | wk_u32(T + 4 * j);
		if (j == w - 1)
			freebits &= ~invalid;
		r->freeb[j / 2] |= (uint64_t)freebits << (32 * (j % 2));
	}
}

static int run_emit(struct ros_walk *rw, struct run *r, uint64_t d0, struct err *e)
{
	const struct ros_bracket *b = r->b;
	unsigned ps = rw->w.ps;
	bool freelist = rw->g.row->freelist;
	struct walk_unit u = { .kind = WALK_UNIT_RUN, .begin = r->va, .end = r->va + (uint64_t)b->pages * WK_PAGE,
			       .index = r->page, .pages = b->pages, .bracket = (int)r->idx, .slot_size = b->size,
			       .slots = b->slots, .thread_local = r->p[2] != 0, .bulk_free = r->p[3] != 0 };
	int rc;

	for (uint32_t k = 0; k < b->slots; k++) {
		uint64_t a = r->va + b->header + (uint64_t)k * b->size;
		const uint8_t *s = r->p + b->header + (size_t)k * b->size;
		bool orphan = bit_get(r->orphan, k), isfree = orphan || bit_get(r->freeb, k);
		struct walk_candidate c = { .addr = a, .room = b->size, .place = WALK_ROSALLOC_SLOT, .where = r->va,
					    .index = k, .alloc = isfree ? WALK_FREE : WALK_ALLOCATED };
		if (isfree) {
			/* 7.0+: the next_ link is the only non-zero word a free slot keeps */
			size_t keep = freelist ? ps : 0;
			c.clobbered = (uint32_t)keep;
			if (!orphan && !wk_zero(s + keep, b->size - keep))
				wk_anom(&rw->w, ANOM_SLOT, ERR_CORRUPT, a,
					"run at 0x%llx: free slot %u is not zero past its first %zu bytes",
					(unsigned long long)r->va, k, keep);
			u.free++;
		} else {
			u.allocated++;
		}
		if (orphan)
			c.flags |= WALK_F_ORPHAN;
		if (r->p[2])
			c.flags |= WALK_F_THREAD_LOCAL;
		if ((rc = wk_emit(&rw->w, &c, e)))
			return rc;
	}
	u.damaged = rw->w.damaged - d0;
	return wk_unit(&rw->w, &u, e);
}

/* True when the page map holds the run of pages pages at page i: the bytes after i are run
 * parts, but for those in one aligned 4-byte word of the page map (one damaged word: byte
 * i's own when the run was found by its header, run_by_header), which are no run or large
 * object start; *damaged = the first such page, 0 when none.  The byte after the run is no
 * run part (the page map's extent of the run is its bracket's pages). */
static bool parts_hold(const uint8_t *pm, size_t npm, size_t i, uint32_t pages, bool by_header, size_t *damaged)
{
	size_t word = by_header ? i / 4 : SIZE_MAX;
	*damaged = 0;
	if (pages > npm - i)
		return false;
	for (size_t j = i + 1; j < i + pages; j++) {
		if (pm[j] == PM_RUN_PART)
			continue;
		if (pm[j] == PM_RUN || pm[j] == PM_LARGE || (word != SIZE_MAX && j / 4 != word))
			return false;
		word = j / 4;
		if (!*damaged)
			*damaged = j;
	}
	return i + pages == npm || pm[i + pages] != PM_RUN_PART;
}

enum { RUN_PROBE = 8 };             /* slots a bracket is tried on */

/* How the first RUN_PROBE slots of the run at va (its first avail bytes at p) agree with
 * bracket idx: the number holding an object of a known class whose size selects that bracket
 * (RosAlloc::SizeToIndexAndBracketSize: larger than the bracket below, not larger than this
 * one), -1 when one holds an object that does not fit. */
static int bracket_fit(struct ros_walk *rw, uint64_t va, const uint8_t *p, size_t avail, unsigned idx)
{
	const struct ros_bracket *b = &rw->g.b[idx];
	uint32_t below = idx ? rw->g.b[idx - 1].size : 0;
	int score = 0;
	for (uint32_t k = 0; k < b->slots && k < RUN_PROBE; k++) {
		size_t off = b->header + (size_t)k * b->size;
		uint32_t klass;
		uint64_t size;
		if (b->size > avail || off > avail - b->size)
			break;
		klass = wk_u32(p + off);
		if (!klass || (klass & 7) || !runtime_sizer_class(&rw->z, klass))
			continue;   /* a free slot (zero, or a next_ link) */
		err_init(&rw->why_not);
		if (runtime_sizer_size(&rw->z, va + off, p + off, b->size, &size, &rw->why_not))
			return -1;
		if (size > b->size || size <= below) {
			ERR_SET(&rw->why_not, ERR_CORRUPT, va + off, "slot %u holds %llu bytes", k, (unsigned long long)size);
			return -1;
		}
		score++;
	}
	return score;
}

/* The header of the run at page i with its size bracket checked against its second sources,
 * the page map's extent of the run and the slot contents: h itself when its bracket fits
 * them, else a copy in fixed[] with the one bracket of that extent whose slots fit best (an
 * anomaly names both), else h (walk_run reports it). */
static const uint8_t *run_bracket(struct ros_walk *rw, const uint8_t *pm, size_t npm, size_t i, const uint8_t *h,
				  size_t avail, uint8_t *fixed)
{
	uint64_t va = rw->w.s->begin + (uint64_t)i * WK_PAGE;
	uint32_t extent = 1;
	int best_score = 0;
	unsigned best = 0;
	size_t damaged;
	while (extent < MAX_RUN_PAGES && i + extent < npm && pm[i + extent] == PM_RUN_PART)
		extent++;
	char refuted[128] = "its bracket is out of the table or its pages are not the run's";
	int own = -1;
	if (h[1] < rw->g.row->brackets && parts_hold(pm, npm, i, rw->g.b[h[1]].pages, false, &damaged)) {
		if ((own = bracket_fit(rw, va, h, avail, h[1])) > 0)
			return h;
		snprintf(refuted, sizeof(refuted), "%.120s", own ? rw->why_not.msg : "no object of its first slots selects it");
	}
	/* An object's size selects exactly one bracket, so another bracket of the run's extent
	 * whose slots hold objects is the run's when its own bracket shows none of them (damage:
	 * a bracket index that reads 0) */
	for (unsigned idx = 0; idx < rw->g.row->brackets; idx++) {
		int score = rw->g.b[idx].pages == extent && idx != h[1] ? bracket_fit(rw, va, h, avail, idx) : -1;
		if (score > best_score) {
			best_score = score;
			best = idx;
		}
	}
	if (!best_score)
		return h;
	wk_anom(&rw->w, ANOM_RUN_HEADER, ERR_CORRUPT, va + 1,
		"run at 0x%llx (page %zu): size bracket index %u contradicts the page map's %u-page run or its "
		"slots (%.100s: damage); read as bracket %u (%u-byte slots), whose size the objects of %d slots "
		"select", (unsigned long long)va, i, h[1], extent, refuted, best, rw->g.b[best].size, best_score);
	memcpy(fixed, h, 4);
	fixed[1] = (uint8_t)best;
	return fixed;
}

/* The run starting at page i (page map 2, or a run header found by run_by_header); returns
 * the pages to skip. */
static int walk_run(struct ros_walk *rw, const uint8_t *pm, size_t npm, size_t i, bool by_header, size_t *skip,
		    struct err *e)
{
	const struct art_space *s = rw->w.s;
	uint64_t va = s->begin + (uint64_t)i * WK_PAGE;
	struct run r;
	size_t avail;
	const uint8_t *h = wk_at(rw->w.img, va, &avail);
	uint64_t d0 = rw->w.damaged;
	uint8_t fixed[4];

	*skip = 1;
	if (!h || avail < BITMAP_HEADER) {
		wk_anom(&rw->w, ANOM_PAGE_MAP, ERR_UNMAPPED, va, "run at 0x%llx (page %zu) is not captured",
			(unsigned long long)va, i);
		return 0;
	}
	if (!by_header)
		h = run_bracket(rw, pm, npm, i, h, avail, fixed);
	if (h[1] >= rw->g.row->brackets) {
		wk_anom(&rw->w, ANOM_RUN_HEADER, ERR_CORRUPT, va + 1,
			"run at 0x%llx (page %zu): size bracket index %u is not below %u", (unsigned long long)va, i,
			h[1], rw->g.row->brackets);
		return 0;
	}
	memset(&r, 0, sizeof(r));
	r.va = va;
	r.page = (uint32_t)i;
	r.idx = h[1];
	r.b = &rw->g.b[r.idx];
	size_t damaged;
	if (!parts_hold(pm, npm, i, r.b->pages, by_header, &damaged)) {
		wk_anom(&rw->w, ANOM_PAGE_MAP, ERR_CORRUPT, s->companion + i,
			"run at 0x%llx (page %zu, bracket %u) needs %u pages; the page map does not mark them "
			"its parts", (unsigned long long)va, i, r.idx, r.b->pages);
		return 0;
	}
	if (damaged && !by_header)
		wk_anom(&rw->w, ANOM_PAGE_MAP, ERR_CORRUPT, s->companion + damaged,
			"run at 0x%llx (page %zu, bracket %u): page-map value %u of page %zu is no run part "
			"(damage); read as one by the run header", (unsigned long long)va, i, r.idx, pm[damaged],
			damaged);
	if (h[0] != 0 && h[0] != RUN_MAGIC)
		wk_anom(&rw->w, ANOM_RUN_HEADER, ERR_CORRUPT, va, "run at 0x%llx: magic byte %u is neither 0 nor %u",
			(unsigned long long)va, h[0], RUN_MAGIC);
	if (h[2] > 1 || h[3] > 1)
		wk_anom(&rw->w, ANOM_RUN_HEADER, ERR_CORRUPT, va + 2,
			"run at 0x%llx: is_thread_local_ %u / to_be_bulk_freed_ %u are not 0 or 1",
			(unsigned long long)va, h[2], h[3]);
	r.p = wk_bytes(rw->w.img, va, (size_t)r.b->pages * WK_PAGE, rw->scratch, (size_t)MAX_RUN_PAGES * WK_PAGE);
	if (!r.p) {
		wk_anom(&rw->w, ANOM_PAGE_MAP, ERR_UNMAPPED, va, "run at 0x%llx: its %u pages are not all captured",
			(unsigned long long)va, r.b->pages);
		return 0;
	}
	*skip = r.b->pages;
	if (rw->g.row->freelist)
		run_freelist(rw, &r);
	else
		run_bitmaps(rw, &r);
	rw->runs++;
	return run_emit(rw, &r, d0, e);
}

/* Second source of a page-map byte that does not say "run" (released, empty, no PageMapKind,
 * a run part after no run): the page itself.  A run freed by RosAlloc has a zeroed header and
 * zeroed slots (Run::ZeroHeaderAndSlotHeaders, FreeSlot; rosalloc.cc @R11), so a page that
 * starts with a sound run header (magic 0 or 42, a bracket index in the table, flags 0 or 1)
 * whose bracket's pages the page map marks as run parts (or lie in the same damaged 4-byte
 * word) and whose first slots hold objects of known classes whose sizes select its bracket
 * (bracket_fit) is a run whose page-map byte is damaged. */
static bool run_by_header(struct ros_walk *rw, const uint8_t *pm, size_t npm, size_t i)
{
	const struct art_space *s = rw->w.s;
	uint64_t va = s->begin + (uint64_t)i * WK_PAGE;
	size_t avail;
	const uint8_t *h = wk_at(rw->w.img, va, &avail);
	if (!h || avail < WK_PAGE || (h[0] != 0 && h[0] != RUN_MAGIC) || h[1] >= rw->g.row->brackets || h[2] > 1 ||
	    h[3] > 1)
		return false;
	size_t damaged;
	return parts_hold(pm, npm, i, rw->g.b[h[1]].pages, true, &damaged) && bracket_fit(rw, va, h, avail, h[1]) > 0;
}

/* A page whose page-map byte v does not say "run" but whose own header does (run_by_header):
 * an anomaly, then the run is walked. */
static int walk_hidden_run(struct ros_walk *rw, const uint8_t *pm, size_t npm, size_t i, size_t *skip,
			   struct err *e)
{
	const struct art_space *s = rw->w.s;
	wk_anom(&rw->w, ANOM_PAGE_MAP, ERR_CORRUPT, s->companion + i,
		"page %zu (0x%llx): page-map value %u, but a run header and an object of a known class lie there "
		"(damage); walked as a run", i, (unsigned long long)(s->begin + (uint64_t)i * WK_PAGE), pm[i]);
	return walk_run(rw, pm, npm, i, true, skip, e);
}

static int walk_large(struct ros_walk *rw, const uint8_t *pm, size_t npm, size_t i, size_t *skip, struct err *e)
{
	const struct art_space *s = rw->w.s;
	size_t n = 1;
	while (i + n < npm && pm[i + n] == PM_LARGE_PART)
		n++;
	*skip = n;
	uint64_t va = s->begin + (uint64_t)i * WK_PAGE;
	struct walk_candidate c = { .addr = va, .room = (uint64_t)n * WK_PAGE, .alloc = WALK_ALLOCATED,
				    .place = WALK_ROSALLOC_LARGE, .where = va, .index = (uint32_t)n };
	struct walk_unit u = { .kind = WALK_UNIT_LARGE, .begin = va, .end = va + (uint64_t)n * WK_PAGE,
			       .index = (uint32_t)i, .pages = (uint32_t)n, .bracket = -1, .allocated = 1 };
	int rc = wk_emit(&rw->w, &c, e);
	rw->large++;
	return rc ? rc : wk_unit(&rw->w, &u, e);
}

int walk_rosalloc(const struct walk_ctx *ctx, const struct art_space *s, struct err *e)
{
	struct ros_walk rw;
	const uint8_t *pm;
	size_t npm, space_pages;
	int rc = 0;

	memset(&rw, 0, sizeof(rw));
	wk_init(&rw.w, ctx, s);
	if (!s->companion) {
		if (!s->backup)
			wk_anom(&rw.w, ANOM_PAGE_MAP, ERR_UNMAPPED, s->begin,
				"RosAlloc space at 0x%llx: no page map found for it", (unsigned long long)s->begin);
		return 0;
	}
	if (!(rw.g.row = ros_row_for(ctx->rt->layout ? ctx->rt->layout->family : NULL))) {
		wk_anom(&rw.w, ANOM_RUN_HEADER, ERR_UNSUP, s->begin, "no RosAlloc bracket table for layout family %s",
			ctx->rt->layout ? ctx->rt->layout->family : "(none)");
		return 0;
	}
	for (unsigned i = 0; i < rw.g.row->brackets; i++)
		ros_bracket_geom(rw.g.row, i, &rw.g.b[i]);
	pm = wk_at(rw.w.img, s->companion, &npm);
	if (!pm) {
		wk_anom(&rw.w, ANOM_PAGE_MAP, ERR_UNMAPPED, s->companion, "page map at 0x%llx is not captured",
			(unsigned long long)s->companion);
		return 0;
	}
	/* the page map covers the capacity (limit); pages past the readable end must be free */
	space_pages = (size_t)((s->limit - s->begin) / WK_PAGE);
	if (npm > space_pages)
		npm = space_pages;
	runtime_sizer_init(&rw.z, ctx->rt);
	if (!(rw.scratch = xmalloc((size_t)MAX_RUN_PAGES * WK_PAGE)))
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory walking RosAlloc space at 0x%llx",
			       (unsigned long long)s->begin);
	struct img_drop drop = { 0 };
	for (size_t i = 0; rc == 0 && i < npm;) {
		uint8_t v = pm[i];
		size_t skip = 1;
		img_drop_behind(rw.w.img, &drop, s->begin + (uint64_t)i * WK_PAGE);   /* pages in order: bounded memory */
		bool marked_run = v == PM_RUN || v == PM_LARGE;
		if (!marked_run && run_by_header(&rw, pm, npm, i)) {
			rc = walk_hidden_run(&rw, pm, npm, i, &skip, e);
		} else if (v == PM_RELEASED || v == PM_EMPTY) {
			while (i + skip < npm && (pm[i + skip] == PM_RELEASED || pm[i + skip] == PM_EMPTY) &&
			       !run_by_header(&rw, pm, npm, i + skip))
				skip++;
			uint64_t va = s->begin + (uint64_t)i * WK_PAGE;
			struct walk_unit u = { .kind = WALK_UNIT_FREE_PAGES, .begin = va, .end = va + (uint64_t)skip * WK_PAGE,
					       .index = (uint32_t)i, .pages = (uint32_t)skip, .bracket = -1 };
			/* the zero tail past the footprint is not a unit */
			if (i + skip < npm)
				rc = wk_unit(&rw.w, &u, e);
			rw.free_pages += skip;
		} else if (v == PM_RUN) {
			rc = walk_run(&rw, pm, npm, i, false, &skip, e);
		} else if (v == PM_LARGE) {
			rc = walk_large(&rw, pm, npm, i, &skip, e);
		} else {
			while (i + skip < npm && pm[i + skip] == v && !run_by_header(&rw, pm, npm, i + skip))
				skip++;
			wk_anom(&rw.w, ANOM_PAGE_MAP, ERR_CORRUPT, s->companion + i,
				"page %zu (0x%llx): page-map value %u %s (%zu page%s)", i,
				(unsigned long long)(s->begin + (uint64_t)i * WK_PAGE), v,
				v == PM_RUN_PART ? "(run part) follows no run"
				: v == PM_LARGE_PART ? "(large-object part) follows no large object" : "is no PageMapKind",
				skip, skip == 1 ? "" : "s");
		}
		i += skip;
	}
	xfree(rw.scratch);
	return rc;
}
