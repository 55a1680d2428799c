/* region.c - the region-space walker (8.0+ concurrent copying; runtime/gc/space/region_space.h,
 * region_space-inl.h, region_space.cc @ 8.0 ... 13).
 *
 * The region table (state, top, TLAB owner) is native memory and not in ART's mappings, so
 * the walk reads the space itself: 256 KiB regions from the mapping start; in each, objects
 * lie contiguous from the region start, each RoundUp(SizeOf, 8) bytes (bump pointer;
 * RegionSpace::WalkInternal).  Where a zero class word follows an object (the unused end of a
 * TLAB that was revoked or is still owned by a thread) the walk skips to the next word that
 * names a known class instead of ending the region.  A region whose first object is larger
 * than a region is Large; the regions its object covers are LargeTail.  Android 10-13
 * overwrite dead objects in unevacuated regions with 0xBADDB01D
 * (kPoisonDeadObjectsInUnevacuatedRegions): such words are a dead gap, skipped.  The region
 * space live bitmap ("region space live bitmap") marks the objects the last GC found live in
 * unevacuated regions; in a region with marks, an unmarked object is dead (WALK_F_DEAD).
 *
 * Every object walked is allocated per the allocator (inside [begin, top) of an allocated
 * region); the walker sizes each one (candidate.size) from its class, and its room is the
 * distance to the next object start or to the region's top. */
#include "rosalloc/walk/walk.h"

#include "art/runtime/object_size.h"
#include "rosalloc/walk/walk_int.h"

enum { REGION_SIZE = 256 * 1024, OBJ_ALIGN = 8 };
#define POISON 0xBADDB01Du

/* Families whose GC poisons dead objects in unevacuated regions (region_space.cc @ 10-13). */
static bool family_poisons(const char *f)
{
	static const char *const fams[] = { "10", "11", "12", "13" };
	for (size_t i = 0; f && i < sizeof(fams) / sizeof(fams[0]); i++)
		if (!strcmp(f, fams[i]))
			return true;
	return false;
}

struct region_walk {
	struct space_walk w;
	struct rt_sizer z;
	bool poison;
	struct walk_candidate pend;    /* the last object, emitted when the next start is known */
	bool have_pend;
	int marked;                    /* the region has live-bitmap marks: 1, 0, -1 unknown */
};

static int flush(struct region_walk *rw, uint64_t next, struct err *e)
{
	if (!rw->have_pend)
		return 0;
	rw->have_pend = false;
	rw->pend.room = next - rw->pend.addr;
	return wk_emit(&rw->w, &rw->pend, e);
}

/* Offset of the next 8-aligned word from off on whose 32-bit class word names a known class;
 * n when none.  Zero words and poison are passed over silently, other words are counted in
 * *junk (the first one's offset in *junk_at). */
static size_t next_object(struct region_walk *rw, uint64_t rbase, const uint8_t *p, size_t off, size_t n,
			  uint64_t *junk, size_t *junk_at)
{
	while (off < n) {
		/* a run of zero 8-byte words: the bulk of a gap, unless a Class the runtime model
		 * read starts in it (its class word and lock word the damaged ones) */
		size_t zero = off;
		off = wk_zero_run(rw->w.img, rbase, p, off, n);
		uint64_t cls = off > zero ? runtime_class_between(rw->z.rt, rbase + zero, rbase + off) : rbase + off;
		if (cls < rbase + off)
			return (size_t)(cls - rbase);
		if (off + OBJ_ALIGN > n)
			return n;
		uint32_t k = wk_u32(p + off);
		if (k && k != POISON && (k & 7) == 0 && runtime_sizer_class(&rw->z, k))
			return off;
		if (k == POISON && rw->poison) {
			off += OBJ_ALIGN;
			continue;
		}
		if (!(*junk)++)
			*junk_at = off;
		off += OBJ_ALIGN;
	}
	return n;
}

/* Walks region i (its bytes p, n captured); *large_regions = regions the Large object at its
 * start covers (0 when none). */
static int walk_one(struct region_walk *rw, uint32_t i, const uint8_t *p, size_t n, size_t span_avail,
		    uint32_t *large_regions, struct err *e)
{
	const struct art_space *s = rw->w.s;
	uint64_t rbase = s->begin + (uint64_t)i * REGION_SIZE;
	struct walk_unit u = { .kind = WALK_UNIT_REGION, .begin = rbase, .end = rbase + REGION_SIZE, .index = i,
			       .pages = 1, .bracket = -1, .state = WALK_RS_FREE, .top = rbase };
	uint64_t d0 = rw->w.damaged, junk = 0;
	size_t off = 0, junk_at = 0;
	int rc;

	*large_regions = 0;
	rw->marked = rw->w.ev ? walk_evidence_marked(rw->w.ev, s, rbase, rbase + REGION_SIZE) : -1;
	while ((off = next_object(rw, rbase, p, off, n, &junk, &junk_at)) < n) {
		uint64_t size, addr = rbase + off;
		struct err why;
		err_init(&why);
		/* a Large object may run past this region: give the sizer the whole span */
		if (runtime_sizer_size(&rw->z, addr, p + off, off == 0 ? span_avail : n - off, &size, &why)) {
			wk_anom(&rw->w, ANOM_REGION, why.code, addr, "region %u: %s", i, why.msg);
			off += OBJ_ALIGN;
			continue;
		}
		uint64_t step = (size + OBJ_ALIGN - 1) & ~(uint64_t)(OBJ_ALIGN - 1);
		if ((rc = flush(rw, addr, e)))
			return rc;
		struct walk_candidate c = { .addr = addr, .alloc = WALK_ALLOCATED, .place = WALK_REGION, .where = rbase,
					    .index = i, .size = size };
		uint64_t cut = 0;
		if (off == 0 && step > n) {   /* Large, unless the objects after its start contradict it */
			struct wk_span whole = { .p = p, .va = rbase, .n = span_avail, .poison = rw->poison };
			if ((cut = wk_chain_cut(&rw->w, &rw->z, &whole, 0, step, ANOM_REGION)))
				c.size = step = cut;
		}
		if (off == 0 && step > REGION_SIZE && step > s->end - rbase) {
			wk_anom(&rw->w, ANOM_REGION, ERR_CORRUPT, addr,
				"region %u: object at 0x%llx of %llu bytes runs past the space end", i,
				(unsigned long long)addr, (unsigned long long)size);
			off += OBJ_ALIGN;
			continue;
		}
		if (off == 0 && step > REGION_SIZE) {
			uint64_t regions = (step + REGION_SIZE - 1) / REGION_SIZE;
			c.place = WALK_REGION_LARGE;
			c.index = (uint32_t)regions;
			c.room = step;
			u.state = WALK_RS_LARGE;
			u.pages = (uint32_t)regions;
			u.end = rbase + regions * REGION_SIZE;
			u.top = addr + step;
			u.allocated = 1;
			*large_regions = (uint32_t)regions;
			if ((rc = wk_emit(&rw->w, &c, e)))
				return rc;
			break;
		}
		if (off + step > n) {
			wk_anom(&rw->w, ANOM_REGION, ERR_CORRUPT, addr,
				"region %u: object at 0x%llx of %llu bytes runs past the region end", i,
				(unsigned long long)addr, (unsigned long long)size);
			off += OBJ_ALIGN;
			continue;
		}
		/* a length word the objects inside its extent contradict: cut where they start (a
		 * Large one above, once: its cut ends at the first object that contradicts it) */
		struct wk_span span = { .p = p, .va = rbase, .n = n, .poison = rw->poison };
		if (!cut && (cut = wk_chain_cut(&rw->w, &rw->z, &span, off, step, ANOM_REGION)))
			c.size = step = cut;
		if (rw->marked == 1 && walk_evidence_live(rw->w.ev, s, addr) == 0) {
			c.flags |= WALK_F_DEAD;
			u.dead++;
		}
		rw->pend = c;
		rw->have_pend = true;
		u.state = WALK_RS_ALLOCATED;
		u.allocated++;
		off += step;
		u.top = rbase + off;
	}
	if ((rc = flush(rw, u.top, e)))
		return rc;
	if (junk)
		wk_anom(&rw->w, ANOM_REGION, ERR_CORRUPT, rbase + junk_at,
			"region %u: %llu non-zero 8-byte word%s from 0x%llx where no object starts (no known class)", i,
			(unsigned long long)junk, junk == 1 ? "" : "s", (unsigned long long)(rbase + junk_at));
	u.damaged = rw->w.damaged - d0;
	return wk_unit(&rw->w, &u, e);
}

int walk_region(const struct walk_ctx *ctx, const struct art_space *s, struct err *e)
{
	struct region_walk rw;
	uint32_t nreg, tail = 0;
	int rc = 0;

	memset(&rw, 0, sizeof(rw));
	wk_init(&rw.w, ctx, s);
	runtime_sizer_init(&rw.z, ctx->rt);
	rw.poison = family_poisons(ctx->rt->layout ? ctx->rt->layout->family : NULL);
	if (s->begin % REGION_SIZE)
		wk_anom(&rw.w, ANOM_REGION, ERR_CORRUPT, s->begin,
			"region space at 0x%llx is not aligned to its 256 KiB regions", (unsigned long long)s->begin);
	nreg = (uint32_t)((s->end - s->begin) / REGION_SIZE);
	struct img_drop drop = { 0 };
	for (uint32_t i = 0; rc == 0 && i < nreg; i++) {
		uint64_t rbase = s->begin + (uint64_t)i * REGION_SIZE;
		size_t avail;
		img_drop_behind(rw.w.img, &drop, rbase);   /* regions in address order: bounded memory */
		const uint8_t *p = wk_at(rw.w.img, rbase, &avail);
		if (tail) {             /* covered by the Large object of an earlier region */
			tail--;
			continue;
		}
		if (!p) {
			struct walk_unit u = { .kind = WALK_UNIT_REGION, .begin = rbase, .end = rbase + REGION_SIZE,
					       .index = i, .pages = 1, .bracket = -1, .state = WALK_RS_UNKNOWN, .top = rbase };
			rc = wk_unit(&rw.w, &u, e);
			continue;
		}
		uint64_t span = s->end - rbase;
		size_t n = avail < REGION_SIZE ? avail : REGION_SIZE;
		uint32_t large;
		rc = walk_one(&rw, i, p, n, avail < span ? avail : (size_t)span, &large, e);
		if (large)
			tail = large - 1;
	}
	return rc;
}
