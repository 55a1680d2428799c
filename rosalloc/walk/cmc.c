/* cmc.c - what survives of dead objects in the mark-compact collector's from-space (14+).
 *
 * MarkCompact (runtime/gc/collector/mark_compact.cc @R14U, @R15, @R16) moves the pages of the
 * moving space into "Concurrent mark-compact from-space" (mremap) when a compaction starts,
 * compacts the live objects from there back into the moving space, and zeroes the from-space
 * only in FinishPhase (MadviseDontNeedAndZero).  A capture taken before that holds the moving
 * space as it was before the compaction, offset for offset: copies of the objects that
 * survived (the moving space holds each of them again, moved down or in place) and the dead
 * objects the compaction dropped.  After FinishPhase the from-space is zero and yields nothing.
 *
 * The captured part of the from-space is walked as a bump-pointer space (contig.c: objects
 * contiguous and 8-aligned, zero words skipped; a candidate's class word must name a Class of
 * the runtime model and its size must fit).  A candidate whose bytes equal an object of the
 * moving space, references aside, is a copy of a survivor and is not reported: every 8-aligned
 * word that points into the moving space is compared as zero, since compaction rewrites the
 * references (and class words) of what it moves.  A hash of each object finds the candidate
 * match; the bytes confirm it.  A candidate whose bytes are not all captured is no copy.  Every other candidate is emitted free:
 * residue of a dead object, which the object model checks like any free candidate.  Equal
 * dead and live objects (two equal empty arrays) are thus not reported: the bytes cannot tell
 * them apart.
 *
 * A 64-bit process maps the from-space anywhere (MapAnonymousAligned asks for the low 4 GiB
 * only with kObjPtrPoisoning, mark_compact.cc @R14U..R16), so it usually lies above 4 GiB:
 * it is walked the same way, and the object model gives its residue model addresses in an
 * alias window below 4 GiB (rosalloc/model/model.h), or records why it cannot.  The residue's
 * references are left as they are: they name the moving space as it was before the
 * compaction, whose addresses now hold other objects. */
#include "rosalloc/walk/walk.h"

#include <string.h>

#include "carver/base/anomaly.h"
#include "carver/base/ck.h"
#include "carver/base/hash.h"
#include "carver/base/htab.h"
#include "carver/base/xalloc.h"
#include "rosalloc/walk/walk_int.h"

enum { OBJ_ALIGN = 8 };

static const char from_space_suffix[] = "from-space";

/* A live object of the moving space, the one a signature was taken of: a match is confirmed
 * byte by byte (a hash alone proves no copy). */
struct live_obj {
	uint64_t va, size;
};

struct cmc {
	const struct walk_ctx *outer;   /* the caller's context: where residue goes */
	struct htab set;                /* signature -> index in live (several per signature) */
	struct live_obj *live;          /* the moving space's objects, in walk order */
	size_t live_count, live_cap;
	uint64_t mov_begin, mov_end;    /* the moving space */
	const struct image *img;
	uint64_t copies, residue;       /* from-space candidates: survivors' copies, residue */
};

/* The word at va as sig_of hashes it (a pointer into the moving space as zero); false when
 * its bytes are not captured. */
static bool sig_word(const struct cmc *c, uint64_t va, uint64_t left, uint32_t *w)
{
	uint8_t buf[4], tail[4] = { 0 };
	size_t n = left < 4 ? (size_t)left : 4;
	const uint8_t *p = wk_bytes(c->img, va, n, buf, sizeof(buf));
	if (!p)
		return false;
	memcpy(tail, p, n);
	*w = wk_u32(tail);
	if (n == 4 && !(*w & (OBJ_ALIGN - 1)) && *w >= c->mov_begin && *w < c->mov_end)
		*w = 0;
	return true;
}

/* True when the objects at a and b (size bytes each) are equal, references into the moving
 * space aside: what the signatures stand for. */
static bool same_object(const struct cmc *c, uint64_t a, uint64_t b, uint64_t size)
{
	for (uint64_t off = 0; off < size; off += 4) {
		uint32_t x, y;
		if (!sig_word(c, a + off, size - off, &x) || !sig_word(c, b + off, size - off, &y) || x != y)
			return false;
	}
	return true;
}

/* FNV-1a 64 over the word's four bytes, least significant first */
static uint64_t sig_mix(uint64_t h, uint32_t w)
{
	const uint8_t b[4] = { (uint8_t)w, (uint8_t)(w >> 8), (uint8_t)(w >> 16), (uint8_t)(w >> 24) };
	return hash_fnv1a64_more(h, b, sizeof(b));
}

/* Hash of the object at va (size bytes), words pointing into the moving space as zero.
 * Returns false when its bytes are not all captured. */
static bool sig_of(const struct cmc *c, uint64_t va, uint64_t size, uint64_t *out)
{
	uint64_t h = sig_mix(HASH_FNV1A64_INIT, (uint32_t)size);
	uint64_t off = 0;
	while (off < size) {
		size_t avail;
		const uint8_t *p = wk_at(c->img, va + off, &avail);
		if (!p || avail < 4)
			return false;
		uint64_t n = size - off < avail ? size - off : avail;
		n &= ~(uint64_t)3;
		if (!n)
			return false;
		for (uint64_t i = 0; i < n; i += 4) {
			uint32_t w = wk_u32(p + i);
			if (!(w & (OBJ_ALIGN - 1)) && w >= c->mov_begin && w < c->mov_end)
				w = 0;
			h = sig_mix(h, w);
		}
		off += n;
		if (size - off < 4)
			break;
	}
	if (off < size) {       /* the last 1-3 bytes (byte arrays, compressed strings) */
		uint8_t buf[4], tail[4] = { 0 };
		const uint8_t *p = wk_bytes(c->img, va + off, (size_t)(size - off), buf, sizeof(buf));
		if (!p)
			return false;
		memcpy(tail, p, (size_t)(size - off));
		h = sig_mix(h, wk_u32(tail));
	}
	*out = h ? h : 1;
	return true;
}

/* True when the candidate at va (size bytes, signature h) equals a live object of the same
 * signature and size, references into the moving space aside. */
static bool is_copy(const struct cmc *c, uint64_t h, uint64_t va, uint64_t size)
{
	for (size_t slot = htab_find(&c->set, h); slot != HTAB_END; slot = htab_find_next(&c->set, h, slot)) {
		const struct live_obj *l = &c->live[htab_val(&c->set, slot)];
		if (l->size == size && same_object(c, va, l->va, size))
			return true;
	}
	return false;
}

/* emit() of the moving space's walk: remember each object. */
static int collect_live(void *arg, const struct walk_candidate *cand, struct err *e)
{
	struct cmc *c = arg;
	uint64_t h;
	if (!cand->size || !sig_of(c, cand->addr, cand->size, &h))
		return 0;
	if (c->live_count > HTAB_VAL_MAX || XALLOC_GROW(c->live, c->live_cap, c->live_count + 1, 1024) ||
	    htab_add(&c->set, h, (uint32_t)c->live_count))
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory for the from-space signatures");
	c->live[c->live_count++] = (struct live_obj){ cand->addr, cand->size };
	return 0;
}

/* emit() of the from-space's walk: a copy of a survivor is dropped, the rest is residue. */
static int emit_residue(void *arg, const struct walk_candidate *cand, struct err *e)
{
	struct cmc *c = arg;
	uint64_t h;
	/* a candidate whose bytes are not all captured is no known copy: the object model
	 * judges it (and records what is missing) like any other */
	if (cand->size && sig_of(c, cand->addr, cand->size, &h) && is_copy(c, h, cand->addr, cand->size)) {
		c->copies++;
		return 0;
	}
	struct walk_candidate r = *cand;
	r.alloc = WALK_FREE;
	r.place = WALK_CMC_FROM_SPACE;
	r.live_bit = r.on_alloc_stack = -1;
	c->residue++;
	return c->outer->emit(c->outer->arg, &r, e);
}

/* The moving space of the from-space s: the bump-pointer space of the same size (the
 * from-space is mapped with the moving space's size, MarkCompact::MarkCompact @R14U). */
static const struct art_space *moving_space(const struct art_runtime *rt, const struct art_space *s)
{
	const struct art_space *found = NULL;
	for (size_t i = 0; i < rt->spaces.count; i++) {
		const struct art_space *m = &rt->spaces.v[i];
		if (m->kind != SPACE_BUMP_POINTER || m->end - m->begin != s->end - s->begin)
			continue;
		if (found)
			return NULL;    /* two candidates: the bytes do not say which */
		found = m;
	}
	return found;
}

/* End of the captured prefix of [begin, end) that holds a non-zero byte, begin if none. */
static uint64_t captured_end(const struct image *img, uint64_t begin, uint64_t end)
{
	uint64_t va = begin, last = begin;
	while (va < end) {
		size_t avail;
		const uint8_t *p = wk_at(img, va, &avail);
		if (!p || !avail)
			break;
		uint64_t n = end - va < avail ? end - va : avail;
		if (!img_zero(img, va, n))   /* the holes of the input are not read */
			last = va + n;
		va += n;
	}
	return last;
}

int walk_cmc_from_space(const struct walk_ctx *ctx, const struct art_space *s, struct err *e)
{
	size_t nl = strlen(s->name), sl = sizeof(from_space_suffix) - 1;
	if (nl < sl || strcmp(s->name + nl - sl, from_space_suffix))
		return 0;       /* the collector's other maps hold native data */
	const struct image *img = ctx->rt->img;
	uint64_t end = captured_end(img, s->begin, s->end);
	if (end == s->begin)
		return 0;       /* zeroed after the compaction, or not captured */
	struct space_walk w;
	wk_init(&w, ctx, s);
	const struct art_space *mov = moving_space(ctx->rt, s);
	if (!mov) {
		wk_anom(&w, ANOM_CONTIGUOUS, ERR_UNSUP, s->begin,
			"from-space at 0x%llx holds data but no one moving space of its size is known",
			(unsigned long long)s->begin);
		return 0;
	}
	struct cmc c = { .outer = ctx, .mov_begin = mov->begin, .mov_end = mov->end, .img = img };
	struct anomaly_sink quiet;      /* the moving space's own walk records its damage */
	anomaly_init(&quiet, 0);
	struct walk_ctx live = { .rt = ctx->rt, .sink = &quiet, .emit = collect_live, .arg = &c };
	struct walk_ctx from = *ctx;
	from.emit = emit_residue;
	from.arg = &c;
	struct rt_sizer z;
	struct space_walk lw;
	struct walk_unit lu = { .kind = WALK_UNIT_CONTIGUOUS, .begin = mov->begin, .end = mov->end, .bracket = -1 };
	struct wk_contig lk = { .place = WALK_BUMP, .where = mov->begin, .blocks = true };
	runtime_sizer_init(&z, ctx->rt);
	wk_init(&lw, &live, mov);
	int rc = wk_contiguous(&lw, &z, mov->begin, mov->end, &lk, &lu, e);
	anomaly_release(&quiet);
	if (rc == 0) {
		struct space_walk fw;
		uint64_t d0;
		struct walk_unit u = { .kind = WALK_UNIT_CONTIGUOUS, .begin = s->begin, .end = end, .bracket = -1,
				       .state = WALK_RS_ALLOCATED };
		struct wk_contig k = { .place = WALK_CMC_FROM_SPACE, .where = s->begin };
		wk_init(&fw, &from, s);
		d0 = fw.damaged;
		rc = wk_contiguous(&fw, &z, s->begin, end, &k, &u, e);
		if (rc == 0) {
			u.allocated = 0;
			u.free = c.residue;
			u.damaged = fw.damaged - d0;
			rc = wk_unit(&fw, &u, e);
		}
	}
	htab_release(&c.set);
	xfree(c.live);
	return rc;
}
