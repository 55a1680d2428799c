/* contig.c - walks of contiguous objects: image objects sections, bump-pointer spaces, the
 * compacted part of a zygote space.
 *
 * Objects lie one after the other, each RoundUp(SizeOf, 8) bytes (ImageHeader::VisitObjects,
 * runtime/image.cc @ 10; BumpPointerSpace::Walk, runtime/gc/space/bump_pointer_space.cc
 * @ 7.1).  The image writer leaves no gaps; a bump-pointer space holds a main block and then
 * TLAB blocks, each starting with a BlockHeader {size_t size_, size_t unused_} that counts
 * itself (bump_pointer_space.h @ 5.0-13), and a thread's unused TLAB tail is zero.  Zero words
 * are skipped, a block header is stepped over, any other word that names no known class is
 * damage (recorded once per stretch) and the walk goes on at the next word that does. */
#include "rosalloc/walk/walk.h"

#include "art/format/art_image.h"
#include "art/runtime/object_size.h"
#include "rosalloc/walk/walk_int.h"

enum { OBJ_ALIGN = 8, HEAD_MAX = 512 };

/* Where the walk stands with the zero gap (wk_contig.gap): still back to back from the start,
 * inside the first zero run after that, done (gap found or none). */
enum cw_gap { CW_LINEAR, CW_ZERO, CW_DONE };

struct contig_walk {
	struct space_walk *w;
	struct rt_sizer *z;
	const struct wk_contig *k;
	struct walk_unit *u;
	struct walk_candidate pend;
	bool have_pend;
	uint64_t junk, junk_at, number;
	enum cw_gap gap;
};

/* A zero word at va: the first one after the back-to-back objects opens the gap. */
static void cw_gap_zero(struct contig_walk *c, uint64_t va)
{
	if (c->gap != CW_LINEAR)
		return;
	c->gap = c->u->allocated ? CW_ZERO : CW_DONE;
	c->u->gap_begin = c->gap == CW_ZERO ? va : 0;
}

/* An object at va: it closes an open gap. */
static void cw_gap_object(struct contig_walk *c, uint64_t va)
{
	if (c->gap != CW_ZERO)
		return;
	c->u->gap_end = va;
	c->gap = CW_DONE;
}

/* Where the zero run from va ends (its first word is zero, no Class starts there): at the
 * first non-zero word of the n bytes at p, at the first Class the runtime model read inside
 * it (its class word may be damaged to zero), or at the last whole word.  One step per run,
 * not per word; hole pages are passed unread. */
static uint64_t cw_zero_end(const struct contig_walk *c, uint64_t va, const uint8_t *p, size_t n)
{
	uint64_t z = va + wk_zero_run(c->w->img, va, p, OBJ_ALIGN, n & ~(size_t)(OBJ_ALIGN - 1));
	uint64_t cls = runtime_class_between(c->z->rt, va, z);
	return cls < z ? cls : z;
}

/* Anything else (damage, a block header) before the gap closes: no gap. */
static void cw_gap_other(struct contig_walk *c)
{
	if (c->gap == CW_DONE)
		return;
	c->u->gap_begin = 0;
	c->gap = CW_DONE;
}

static int cw_flush(struct contig_walk *c, uint64_t next, struct err *e)
{
	if (!c->have_pend)
		return 0;
	c->have_pend = false;
	c->pend.room = next - c->pend.addr;
	return wk_emit(c->w, &c->pend, e);
}

static void cw_junk_end(struct contig_walk *c)
{
	if (!c->junk)
		return;
	wk_anom(c->w, ANOM_CONTIGUOUS, ERR_CORRUPT, c->junk_at,
		"%llu non-zero 8-byte word%s from 0x%llx where no object starts (no known class)",
		(unsigned long long)c->junk, c->junk == 1 ? "" : "s", (unsigned long long)c->junk_at);
	c->junk = 0;
}

/* The next start the live bitmap marks after an object it marks at va (the object's class is
 * in no image of the input, so the bitmap alone sizes it); 0 when it does not. */
static uint64_t cw_next_live(const struct contig_walk *c, uint64_t va, uint64_t end)
{
	const struct space_walk *w = c->w;
	return w->ev && walk_evidence_live(w->ev, w->s, va) == 1
		       ? walk_evidence_next_live(w->ev, w->s, va + OBJ_ALIGN, end) : 0;
}

/* An object at va that ends where the live bitmap's next start (next) is: pending; the walk
 * goes on from next. */
static int cw_by_bitmap(struct contig_walk *c, uint64_t va, uint64_t next, struct err *e)
{
	cw_junk_end(c);
	cw_gap_object(c, va);
	int rc = cw_flush(c, va, e);
	if (rc)
		return rc;
	c->pend = (struct walk_candidate){ .addr = va, .alloc = WALK_ALLOCATED, .place = c->k->place,
					   .where = c->k->where, .index = c->k->number ? (uint32_t)c->number : 0,
					   .flags = WALK_F_SIZED_BY_BITMAP };
	c->have_pend = true;
	c->number++;
	c->u->allocated++;
	c->u->top = next;
	return 0;
}

/* A BlockHeader at p (avail bytes, the space ends at end): size counts the header, unused 0. */
static bool block_header(const struct contig_walk *c, const uint8_t *p, size_t avail, uint64_t va, uint64_t end, uint64_t *size)
{
	unsigned ps = c->w->ps;
	if (avail < 2 * (size_t)ps || wk_ptr(p + ps, ps) != 0)
		return false;
	*size = wk_ptr(p, ps);
	return *size >= 2 * ps && *size % OBJ_ALIGN == 0 && *size <= end - va;
}

int wk_contiguous(struct space_walk *w, struct rt_sizer *z, uint64_t start, uint64_t end, const struct wk_contig *k,
		  struct walk_unit *u, struct err *e)
{
	struct contig_walk c = { .w = w, .z = z, .k = k, .u = u, .gap = k->gap ? CW_LINEAR : CW_DONE };
	uint64_t va = start;
	uint8_t buf[HEAD_MAX];
	int rc;

	u->top = start;
	u->gap_begin = u->gap_end = 0;
	while (va < end) {
		size_t avail;
		const uint8_t *p = wk_at(w->img, va, &avail);
		if (!p) {
			wk_anom(w, ANOM_CONTIGUOUS, ERR_UNMAPPED, va, "0x%llx-0x%llx is not captured",
				(unsigned long long)va, (unsigned long long)end);
			break;
		}
		if (avail > end - va)
			avail = (size_t)(end - va);
		if (avail < OBJ_ALIGN)
			break;
		uint64_t word = wk_u64(p);
		uint32_t klass = (uint32_t)word;
		/* a zero header, unless a Class the runtime model read starts here (damaged) */
		if (!word && runtime_class_between(z->rt, va, va + 1) != va) {
			cw_gap_zero(&c, va);
			va = cw_zero_end(&c, va, p, avail);
			continue;
		}
		uint64_t size, bsize;
		struct err why;
		err_init(&why);
		if ((!klass || (klass & 7) || !runtime_sizer_class(z, klass)) && runtime_class_between(z->rt, va, va + 1) != va) {
			/* zero class word with a non-zero lock word, a misaligned or unknown class */
			if (k->blocks && block_header(&c, p, avail, va, end, &bsize)) {
				cw_gap_other(&c);
				va += 2 * (uint64_t)w->ps;
				continue;
			}
			/* a class of an image that is not in the input: the live bitmap marks where
			 * this object (if it starts here) ends and the next begins */
			uint64_t next = klass && !(klass & 7) ? cw_next_live(&c, va, end) : 0;
			if (next) {
				if ((rc = cw_by_bitmap(&c, va, next, e)))
					return rc;
				va = next;
				continue;
			}
			cw_gap_other(&c);
			if (!c.junk++)
				c.junk_at = va;
			va += OBJ_ALIGN;
			continue;
		}
		cw_junk_end(&c);
		const uint8_t *q = p;
		size_t qa = avail;
		if (avail < HEAD_MAX && end - va > avail) {   /* the object crosses two captures */
			qa = end - va < HEAD_MAX ? (size_t)(end - va) : HEAD_MAX;
			if (!(q = wk_bytes(w->img, va, qa, buf, sizeof(buf))))
				q = p, qa = avail;
		}
		if (runtime_sizer_size(z, va, q, qa, &size, &why)) {
			/* a component class in an image that is not in the input: the bitmap sizes it */
			uint64_t next = cw_next_live(&c, va, end);
			if (next) {
				if ((rc = cw_by_bitmap(&c, va, next, e)))
					return rc;
				va = next;
				continue;
			}
			wk_anom(w, ANOM_CONTIGUOUS, why.code, va, "%s", why.msg);
			cw_gap_other(&c);
			va += OBJ_ALIGN;
			continue;
		}
		uint64_t step = (size + OBJ_ALIGN - 1) & ~(uint64_t)(OBJ_ALIGN - 1);
		if (step > end - va) {
			wk_anom(w, ANOM_CONTIGUOUS, ERR_CORRUPT, va, "object at 0x%llx of %llu bytes runs past 0x%llx",
				(unsigned long long)va, (unsigned long long)size, (unsigned long long)end);
			cw_gap_other(&c);
			va += OBJ_ALIGN;
			continue;
		}
		/* a length word the objects inside its extent contradict: cut where they start */
		struct wk_span span = { .p = p, .va = va, .n = avail };
		uint64_t cut = wk_chain_cut(w, z, &span, 0, step, ANOM_CONTIGUOUS);
		if (cut)
			size = step = cut;
		cw_gap_object(&c, va);
		if ((rc = cw_flush(&c, va, e)))
			return rc;
		c.pend = (struct walk_candidate){ .addr = va, .alloc = WALK_ALLOCATED, .place = k->place,
						  .where = k->where, .index = k->number ? (uint32_t)c.number : 0,
						  .size = size };
		c.have_pend = true;
		c.number++;
		u->allocated++;
		va += step;
		u->top = va;
	}
	cw_junk_end(&c);
	cw_gap_other(&c);   /* a zero run that no object follows is no gap */
	return cw_flush(&c, u->top, e);
}

/* ---- image spaces and bump-pointer spaces ---- */

int walk_image(const struct walk_ctx *ctx, const struct art_space *s, struct err *e)
{
	struct space_walk w;
	struct rt_sizer z;
	const struct art_layout *l = ctx->rt->layout;
	struct wk_contig k = { .place = WALK_IMAGE, .where = s->begin, .number = true };
	struct walk_unit u = { .kind = WALK_UNIT_CONTIGUOUS, .begin = s->begin, .bracket = -1,
			       .state = WALK_RS_ALLOCATED };
	uint64_t d0;
	int rc;

	wk_init(&w, ctx, s);
	d0 = w.damaged;
	if (!l || !s->objects_end) {
		wk_anom(&w, ANOM_CONTIGUOUS, ERR_UNSUP, s->begin,
			"image at 0x%llx: the end of its objects section is not known", (unsigned long long)s->begin);
		return 0;
	}
	runtime_sizer_init(&z, ctx->rt);
	/* the objects section as the ImageHeader of this exact version gives it (the first
	 * object follows the header, 8-aligned: ImageHeader::VisitObjects); a header that does
	 * not read leaves the layout row's header size and the space's objects end */
	struct art_image_header h;
	struct err why;
	uint64_t first = s->begin + ((l->image->header_size + OBJ_ALIGN - 1) & ~(uint64_t)(OBJ_ALIGN - 1));
	uint64_t last = s->objects_end;
	err_init(&why);
	if (art_image_header_at(&h, w.img, s->begin, &why) == 0 && h.objects_end <= s->end - s->begin) {
		first = s->begin + h.objects_begin;
		last = s->begin + h.objects_end;
	} else {
		wk_anom(&w, ANOM_CONTIGUOUS, why.code ? why.code : ERR_CORRUPT, s->begin, "image at 0x%llx: %s",
			(unsigned long long)s->begin, why.code ? why.msg : "objects end past the mapping");
	}
	u.end = last;
	if ((rc = wk_contiguous(&w, &z, first, last, &k, &u, e)))
		return rc;
	if (u.top != last)
		wk_anom(&w, ANOM_CONTIGUOUS, ERR_CORRUPT, u.top,
			"image at 0x%llx: the object walk ends at 0x%llx, the objects section at 0x%llx",
			(unsigned long long)s->begin, (unsigned long long)u.top, (unsigned long long)last);
	u.damaged = w.damaged - d0;
	return wk_unit(&w, &u, e);
}

/* The walk gap of a bump-pointer space (walk_unit.gap_*).  BumpPointerSpace::Walk, which ART's
 * HPROF writer uses, stops the main block's walk at the first null class word
 * (runtime/gc/space/bump_pointer_space-walk-inl.h @ android14).  After a mark-compact
 * compaction the live objects lie back to back from the space's begin and what was allocated
 * after the marking pause follows from post_compact_end, a page boundary
 * (MarkCompact::PrepareForCompaction: AlignUp(space_begin + total, kPageSize),
 * runtime/gc/collector/mark_compact.cc @ android14), the bytes between them zero.  So the
 * gap is kept only when the objects after it start on a page boundary: a thread's unused
 * TLAB tail (no compaction yet) ends anywhere. */
static void bump_walk_gap(struct walk_unit *u)
{
	if (u->gap_end % WK_PAGE)
		u->gap_begin = u->gap_end = 0;
}

int walk_bump(const struct walk_ctx *ctx, const struct art_space *s, struct err *e)
{
	struct space_walk w;
	struct rt_sizer z;
	struct wk_contig k = { .place = WALK_BUMP, .where = s->begin, .blocks = true, .gap = true };
	struct walk_unit u = { .kind = WALK_UNIT_CONTIGUOUS, .begin = s->begin, .end = s->end, .bracket = -1,
			       .state = WALK_RS_ALLOCATED };
	uint64_t d0;
	int rc;

	wk_init(&w, ctx, s);
	d0 = w.damaged;
	runtime_sizer_init(&z, ctx->rt);
	if ((rc = wk_contiguous(&w, &z, s->begin, s->end, &k, &u, e)))
		return rc;
	bump_walk_gap(&u);
	u.damaged = w.damaged - d0;
	return wk_unit(&w, &u, e);
}
