/* los.c - the large object space walkers (runtime/gc/space/large_object_space.{h,cc} @ 5.0,
 * 6.0, 7.1, 14).
 *
 * LargeObjectMapSpace (32-bit, x86-64): every allocation is its own mapping named "large
 * object space allocation"; the object starts at the mapping start; a free unmaps it (nothing
 * remains).  Each such mapping is one space of the runtime model (SPACE_LOS_ALLOCATION).
 *
 * FreeListSpace (arm64 and other 64-bit targets): one mapping, 4 KiB pages (16 KiB on some 15+
 * devices, found by los_page), objects page
 * aligned; its allocation-info map (the companion "large object free list space allocation
 * info map") holds one AllocationInfo {u32 prev_free_, u32 alloc_size_} per page.  The entry
 * of a block's first page is the meaningful one: alloc_size_ is the block's page count with
 * flag bits (free 0x80000000 and zygote 0x40000000 from 6.0; free 0x08000000 in 5.0/5.1), and
 * prev_free_ the page count of the free block just before it (0 when that one is in use).
 * The next block's entry is at index + size.  Past free_end_ the entries are zero (the free
 * tail is tracked natively).  Freed pages are madvised, so a free block reads zero. */
#include "rosalloc/walk/walk.h"

#include "rosalloc/walk/walk_int.h"

enum { INFO_SIZE = 8 };

struct los_flags {
	const char *families;   /* space-separated layout families */
	uint32_t free, zygote;
};

static const struct los_flags los_rows[] = {
	{ "5.0 5.1", 0x08000000u, 0 },
	/* 14-oat230 (image 108 as 14), 15, 16: same flags (runtime/gc/space/large_object_space.cc @R14,
	 * @R15, @R16) */
	{ "6.0 7.0 7.1 8.0 8.1 9 10 11 12 13 14-oat230 14 15 16", 0x80000000u, 0x40000000u },
};

static const struct los_flags *los_row(const char *family)
{
	size_t n = family ? strlen(family) : 0;
	for (size_t i = 0; n && i < sizeof(los_rows) / sizeof(los_rows[0]); i++)
		for (const char *p = los_rows[i].families; (p = strstr(p, family)); p += n)
			if ((p == los_rows[i].families || p[-1] == ' ') && (p[n] == ' ' || p[n] == 0))
				return &los_rows[i];
	return NULL;
}

int walk_los_map(const struct walk_ctx *ctx, const struct art_space *s, struct err *e)
{
	struct space_walk w;
	size_t avail;
	int rc;

	wk_init(&w, ctx, s);
	struct walk_unit u = { .kind = WALK_UNIT_LOS, .begin = s->begin, .end = s->limit,
			       .pages = (uint32_t)((s->limit - s->begin) / WK_PAGE), .bracket = -1 };
	if (!wk_at(w.img, s->begin, &avail)) {
		wk_anom(&w, ANOM_LOS, ERR_UNMAPPED, s->begin, "large object allocation at 0x%llx is not captured",
			(unsigned long long)s->begin);
		u.state = WALK_RS_UNKNOWN;
		u.damaged = 1;
		return wk_unit(&w, &u, e);
	}
	struct walk_candidate c = { .addr = s->begin, .room = s->limit - s->begin, .alloc = WALK_ALLOCATED,
				    .place = WALK_LOS, .where = s->begin };
	u.state = WALK_RS_ALLOCATED;
	u.allocated = 1;
	u.top = s->end;
	if ((rc = wk_emit(&w, &c, e)))
		return rc;
	return wk_unit(&w, &u, e);
}

/* Score of a page size for the free-list LOS: each of the first allocated blocks the
 * allocation-info entries give (read with that page size) that starts with an object of a known class
 * counts +1, any other -1; a chain that leaves the space ends the count. */
static int los_page_score(const struct space_walk *w, const struct art_space *s, const uint8_t *info, size_t n,
			  const struct los_flags *fl, uint64_t page_size)
{
	size_t pages = (size_t)((s->limit - s->begin) / page_size), i = 0;
	int score = 0;

	if (n / INFO_SIZE < pages)
		pages = n / INFO_SIZE;
	for (unsigned k = 0; k < 8 && i < pages; k++) {
		uint32_t v = wk_u32(info + i * INFO_SIZE + 4);
		uint32_t size = v & ~(fl->free | fl->zygote);
		size_t avail;
		const uint8_t *o;
		if (size == 0)
			break;
		if (size > pages - i)
			return score - 1;
		if (!(v & fl->free) && (o = wk_at(w->img, s->begin + (uint64_t)i * page_size, &avail)) && avail >= 4)
			score += runtime_class_at(w->ctx->rt, wk_u32(o)) ? 1 : -1;
		i += size;
	}
	return score;
}

/* The page size of a free-list LOS: 4 KiB, or 16 KiB on 15+ modules built for 16 KiB pages
 * (gPageSize, libartbase/base/globals.h @R15).  The allocation-info map has one 8-byte
 * AllocationInfo per page of the capacity, its size rounded up to a page (FreeListSpace,
 * runtime/gc/space/large_object_space.cc @R15), and a block's size counts pages: the size
 * whose info map has that length wins; when both or neither do, the one whose blocks start
 * with objects of known classes (ties: 4 KiB). */
static uint64_t los_page(const struct space_walk *w, const struct art_space *s, const uint8_t *info, size_t n,
			 const struct los_flags *fl)
{
	static const uint64_t sizes[2] = { 4096, 16384 };
	const struct art_spaces *sp = &w->ctx->rt->spaces;
	uint64_t cap = s->limit - s->begin, info_size = 0;
	bool fit[2];

	for (size_t i = 0; i < sp->count; i++)
		if (sp->v[i].kind == SPACE_LOS_INFO_MAP && sp->v[i].begin == s->companion)
			info_size = sp->v[i].limit - sp->v[i].begin;
	for (unsigned k = 0; k < 2; k++) {
		uint64_t page_size = sizes[k];
		uint64_t info_pages = (cap / page_size * INFO_SIZE + page_size - 1) / page_size;
		fit[k] = cap % page_size == 0 && info_size == info_pages * page_size;
	}
	if (fit[0] != fit[1])
		return fit[1] ? sizes[1] : sizes[0];
	return los_page_score(w, s, info, n, fl, sizes[1]) > los_page_score(w, s, info, n, fl, sizes[0]) ?
		       sizes[1] : sizes[0];
}

/* The pages of the object at va, the second source of its block's size (FreeListSpace::Alloc
 * takes RoundUp(num_bytes, page) pages: large_object_space.cc @R11); 0 when no object of a
 * known class starts there or it would not fit max_pages. */
static uint32_t object_pages(const struct space_walk *w, uint64_t va, uint64_t page_size, size_t max_pages,
			     struct err *why)
{
	uint64_t size;
	if (runtime_object_size(w->ctx->rt, va, &size, why) || size == 0)
		return 0;
	uint64_t pages = (size + page_size - 1) / page_size;
	return pages <= max_pages ? (uint32_t)pages : 0;
}

/* An entry at page i whose size the rest of the map refutes (0 before a non-zero tail, or
 * past the space's pages): the size of the object there when one of a known class starts
 * there (an anomaly says so), else 0 (*why says why the block has no object that sizes it). */
static uint32_t size_by_object(struct space_walk *w, const struct art_space *s, const uint8_t *info, size_t i,
			       size_t pages, uint64_t page_size, struct err *why)
{
	uint32_t v = wk_u32(info + i * INFO_SIZE + 4);
	uint64_t va = s->begin + (uint64_t)i * page_size;
	uint32_t own = object_pages(w, va, page_size, pages - i, why);
	if (own)
		wk_anom(w, ANOM_LOS, ERR_CORRUPT, s->companion + i * INFO_SIZE + 4,
			"page %zu: allocation-info alloc_size_ 0x%08x (damage); the object at 0x%llx, of a known class, "
			"needs %u pages: read as an allocated block of that size", i, v, (unsigned long long)va, own);
	return own;
}

int walk_los_freelist(const struct walk_ctx *ctx, const struct art_space *s, struct err *e)
{
	struct space_walk w;
	const struct los_flags *fl;
	const uint8_t *info;
	size_t n, pages, i = 0;
	uint64_t page_size;
	uint32_t prev_free = 0;
	int rc = 0;

	wk_init(&w, ctx, s);
	if (!(fl = los_row(ctx->rt->layout ? ctx->rt->layout->family : NULL))) {
		wk_anom(&w, ANOM_LOS, ERR_UNSUP, s->begin, "no AllocationInfo flags for layout family %s",
			ctx->rt->layout ? ctx->rt->layout->family : "(none)");
		return 0;
	}
	if (!s->companion || !(info = wk_at(w.img, s->companion, &n))) {
		wk_anom(&w, ANOM_LOS, ERR_UNMAPPED, s->begin,
			"free-list large object space at 0x%llx: its allocation-info map is not in the image",
			(unsigned long long)s->begin);
		return 0;
	}
	page_size = los_page(&w, s, info, n, fl);
	pages = (size_t)((s->limit - s->begin) / page_size);
	if (n / INFO_SIZE < pages)
		pages = n / INFO_SIZE;
	while (rc == 0 && i < pages) {
		const uint8_t *ent = info + i * INFO_SIZE;
		uint32_t pf = wk_u32(ent), v = wk_u32(ent + 4);
		uint32_t size = v & ~(fl->free | fl->zygote);
		uint64_t va = s->begin + (uint64_t)i * page_size;
		bool isfree = (v & fl->free) != 0;
		uint64_t d0 = w.damaged;
		bool refuted = size == 0 ? pf || v || !wk_zero(info + i * INFO_SIZE, (pages - i) * INFO_SIZE)
					 : size > pages - i;
		struct err why;
		err_init(&why);
		uint32_t own = refuted ? size_by_object(&w, s, info, i, pages, page_size, &why) : 0;
		if (own) {
			size = own;
			isfree = false;
		}
		if (size == 0) {
			/* FreeListSpace::free_end_: the untracked free tail, entries all zero */
			if (pf || v || !wk_zero(info + i * INFO_SIZE, (pages - i) * INFO_SIZE))
				wk_anom(&w, ANOM_LOS, ERR_CORRUPT, s->companion + i * INFO_SIZE,
					"page %zu: allocation-info entry of size 0 before the end, not a zero tail", i);
			struct walk_unit u = { .kind = WALK_UNIT_LOS, .begin = va,
					       .end = s->begin + (uint64_t)pages * page_size,
					       .index = (uint32_t)i, .pages = (uint32_t)(pages - i), .bracket = -1,
					       .state = WALK_RS_FREE, .damaged = w.damaged - d0 };
			return wk_unit(&w, &u, e);
		}
		if (size > pages - i) {
			wk_anom(&w, ANOM_LOS, ERR_CORRUPT, s->companion + i * INFO_SIZE,
				"page %zu: block of %u pages runs past the space's %zu pages (no object there sizes "
				"it: %.100s)", i, size, pages, why.msg);
			return 0;
		}
		if (pf != prev_free)
			wk_anom(&w, ANOM_LOS, ERR_CORRUPT, s->companion + i * INFO_SIZE,
				"page %zu: prev_free_ %u, the block before has %u free pages", i, pf, prev_free);
		if (isfree && prev_free)
			wk_anom(&w, ANOM_LOS, ERR_CORRUPT, s->companion + i * INFO_SIZE,
				"page %zu: free block after a free block (free blocks coalesce)", i);
		struct walk_candidate c = { .addr = va, .room = (uint64_t)size * page_size,
					    .alloc = isfree ? WALK_FREE : WALK_ALLOCATED, .place = WALK_LOS, .where = va };
		struct walk_unit u = { .kind = WALK_UNIT_LOS, .begin = va, .end = va + (uint64_t)size * page_size,
				       .index = (uint32_t)i, .pages = size, .bracket = -1,
				       .state = isfree ? WALK_RS_FREE : WALK_RS_ALLOCATED, .allocated = !isfree,
				       .free = isfree, .top = va + (uint64_t)size * page_size };
		size_t avail;
		if (!wk_at(w.img, va, &avail)) {
			wk_anom(&w, ANOM_LOS, ERR_UNMAPPED, va, "block at 0x%llx (page %zu) is not captured",
				(unsigned long long)va, i);
			u.state = WALK_RS_UNKNOWN;
		} else {
			rc = wk_emit(&w, &c, e);
		}
		u.damaged = w.damaged - d0;
		if (rc == 0)
			rc = wk_unit(&w, &u, e);
		prev_free = isfree ? size : 0;
		i += size;
	}
	return rc;
}
