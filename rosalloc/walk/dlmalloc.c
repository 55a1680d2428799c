/* dlmalloc.c - the dlmalloc walker for non-moving and zygote spaces (DlMallocSpace over
 * external/dlmalloc 2.8.6 built as ONLY_MSPACES without mmap or FOOTERS:
 * runtime/gc/allocator/dlmalloc.h, runtime/gc/space/dlmalloc_space.cc @ 5.0-14).
 *
 * create_mspace_with_base puts the malloc_state in the payload of the space's first chunk
 * {size_t prev_foot, size_t head}: u32 smallmap, u32 treemap, size_t dvsize, topsize, char
 * *least_addr, mchunkptr dv, top, ... (malloc.c 2.8.6 struct malloc_state).  Chunks follow
 * one after the other up to top: head = size | PINUSE (1: the previous chunk is in use) |
 * CINUSE (2: this one is); sizes are multiples of MALLOC_ALIGNMENT (2 * size_t) and at least
 * MIN_CHUNK_SIZE (4 * size_t); the payload (an object) starts at chunk + 2 * size_t.  A free
 * chunk has CINUSE clear, its size in the next chunk's prev_foot and the next chunk's PINUSE
 * clear; its payload keeps the freed object except the bin links dlmalloc writes over it:
 * fd, bk (small chunks, < 256 bytes) and also child[2], parent, index (tree chunks).  Chunks
 * merged into top keep their bytes too, so top's payload is walked as a free candidate.
 *
 * A zygote space is such an mspace followed by the objects the zygote compaction copied
 * bump-pointer style after its footprint (heap.cc PreZygoteFork: a BumpPointerSpace from the
 * non-moving space's End()); they are walked as contiguous objects from the end of the
 * mspace segment (top + topsize + TOP_FOOT_SIZE, page aligned). */
#include "rosalloc/walk/walk.h"

#include <stdlib.h>

#include "rosalloc/walk/walk_int.h"

enum { PINUSE = 1, CINUSE = 2, FLAG_BITS = 7, MIN_LARGE = 256, DL_MAX_SEG = 64 };

struct dl_seg {
	uint64_t base, size;
	uint64_t record;               /* where the record lies (0: inside malloc_state) */
};

struct dl_walk {
	struct space_walk w;
	uint64_t begin, end, top, topsize;
	unsigned word, align, min_chunk;   /* word: dlmalloc's SIZE_T_SIZE (4 or 8) */
	uint64_t fencepost;            /* FENCEPOST_HEAD = INUSE_BITS | SIZE_T_SIZE */
	struct dl_seg seg[DL_MAX_SEG];
	unsigned nseg;
	bool seen_top;
	const uint8_t *p;              /* the space's bytes from begin */
	size_t n;
	struct walk_unit u;
};

static uint64_t rd(const struct dl_walk *d, uint64_t va) { return wk_ptr(d->p + (va - d->begin), d->word); }

/* [va, va + len) lies in the captured bytes (no wrap-around on hostile values). */
static bool in_bytes(const struct dl_walk *d, uint64_t va, uint64_t len)
{
	return va >= d->begin && va - d->begin <= d->n && len <= d->n - (va - d->begin);
}

/* A plausible chunk at c inside a segment ending at lim: its size is aligned, at least the
 * minimum, and the chunk ends inside the segment. */
static bool chunk_ok(const struct dl_walk *d, uint64_t c, uint64_t lim, uint64_t *size)
{
	if (c >= lim || lim - c < 2 * (uint64_t)d->word || !in_bytes(d, c, 2 * (uint64_t)d->word))
		return false;
	uint64_t head = rd(d, c + d->word);
	*size = head & ~(uint64_t)FLAG_BITS;
	return *size >= d->min_chunk && *size % d->align == 0 && *size <= lim - c;
}

/* After damage at c: the next aligned address where an in-use chunk starts whose payload
 * begins with a known class and whose successor is a plausible chunk, top or a fencepost;
 * lim if none. */
static uint64_t resync(const struct dl_walk *d, uint64_t c, uint64_t lim)
{
	const struct art_runtime *rt = d->w.ctx->rt;
	for (uint64_t q = c + d->align; q < lim; q += d->align) {
		uint64_t size, size2;
		if (q == d->top)
			return q;
		if (!chunk_ok(d, q, lim, &size) || !(rd(d, q + d->word) & CINUSE))
			continue;
		uint64_t mem = q + 2 * d->word;
		if (mem + 4 - d->begin > d->n || !runtime_class_at(rt, wk_u32(d->p + (mem - d->begin))))
			continue;
		uint64_t nx = q + size;
		if (nx == d->top || nx == lim || chunk_ok(d, nx, lim, &size2) ||
		    (in_bytes(d, nx, 2 * (uint64_t)d->word) && rd(d, nx + d->word) == d->fencepost))
			return q;
	}
	return lim;
}

/* Bytes dlmalloc writes into a free chunk's payload: the bin links. */
static uint32_t links_bytes(const struct dl_walk *d, uint64_t size)
{
	return size < MIN_LARGE ? 2 * d->word : 5 * d->word + 4; /* fd, bk | + child[2], parent, u32 index */
}

static int emit_chunk(struct dl_walk *d, uint64_t c, uint64_t size, bool inuse, struct err *e)
{
	uint64_t room = inuse ? size - d->word : size - 2 * d->word;
	struct walk_candidate k = { .addr = c + 2 * d->word, .room = room,
				    .alloc = inuse ? WALK_ALLOCATED : WALK_FREE,
				    .place = WALK_DLMALLOC_CHUNK, .where = c };
	if (!inuse) {
		uint32_t lb = links_bytes(d, size);
		k.clobbered = lb < room ? lb : (uint32_t)room;
		d->u.free++;
	} else {
		d->u.allocated++;
	}
	return wk_emit(&d->w, &k, e);
}

/* The free chunk at c: its footer and its links. */
static void check_free(struct dl_walk *d, uint64_t c, uint64_t size)
{
	uint64_t next = c + size;
	if (in_bytes(d, next, 2 * (uint64_t)d->word) &&
	    (rd(d, next) != size || (rd(d, next + d->word) & PINUSE)))
		wk_anom(&d->w, ANOM_CHUNK, ERR_CORRUPT, next,
			"free chunk at 0x%llx of %llu bytes: the next chunk's prev_foot 0x%llx / PINUSE %llu disagree",
			(unsigned long long)c, (unsigned long long)size, (unsigned long long)rd(d, next),
			(unsigned long long)(rd(d, next + d->word) & PINUSE));
	for (unsigned i = 0; i < 2; i++) {
		uint64_t link = rd(d, c + (2 + i) * (uint64_t)d->word);
		if (link < d->begin || link >= d->end) {
			wk_anom(&d->w, ANOM_CHUNK, ERR_CORRUPT, c + (2 + i) * (uint64_t)d->word,
				"free chunk at 0x%llx: %s link 0x%llx is outside the space", (unsigned long long)c,
				i ? "bk" : "fd", (unsigned long long)link);
			break;
		}
	}
}

static bool is_record(const struct dl_walk *d, uint64_t mem)
{
	for (unsigned i = 0; i < d->nseg; i++)
		if (d->seg[i].record == mem)
			return true;
	return false;
}

/* The chunks of one segment, as mspace_inspect_all visits them (malloc.c 2.8.6
 * internal_inspect_all): from the segment base to a fencepost head, to top, or to the
 * segment end.  The malloc_state chunk and segment-record chunks are bookkeeping. */
static int walk_segment(struct dl_walk *d, uint64_t base, uint64_t lim, uint64_t size0, struct err *e)
{
	uint64_t c = base, size;
	struct img_drop drop = { 0 };
	int rc;

	if (lim > d->begin + d->n)
		lim = d->begin + d->n;
	if (c == d->begin)
		c += size0;
	while (c < lim) {
		img_drop_behind(d->w.img, &drop, c);   /* chunks in address order: bounded memory */
		if (c == d->top) {
			d->seen_top = true;
			return 0;
		}
		if (lim - c >= 2 * (uint64_t)d->word && rd(d, c + d->word) == d->fencepost)
			return 0;
		if (!chunk_ok(d, c, lim, &size)) {
			uint64_t q = resync(d, c, lim);
			wk_anom(&d->w, ANOM_CHUNK, ERR_CORRUPT, c + d->word,
				"chunk at 0x%llx: head 0x%llx is no chunk size inside its segment (ends 0x%llx); walk "
				"resumes at 0x%llx", (unsigned long long)c,
				(unsigned long long)(in_bytes(d, c, 2 * (uint64_t)d->word) ? rd(d, c + d->word) : 0),
				(unsigned long long)lim, (unsigned long long)q);
			c = q;
			continue;
		}
		bool inuse = (rd(d, c + d->word) & CINUSE) != 0;
		uint64_t next = c + size;
		if (inuse && next != d->top && in_bytes(d, next, 2 * (uint64_t)d->word) &&
		    !(rd(d, next + d->word) & PINUSE))
			wk_anom(&d->w, ANOM_CHUNK, ERR_CORRUPT, next + d->word,
				"chunk at 0x%llx is in use but the next chunk's PINUSE is clear", (unsigned long long)c);
		if (!inuse)
			check_free(d, c, size);
		if (!(inuse && is_record(d, c + 2 * d->word)) && (rc = emit_chunk(d, c, size, inuse, e)))
			return rc;
		c = next;
	}
	return 0;
}

static int by_base(const void *a, const void *b)
{
	const struct dl_seg *x = a, *y = b;
	return x->base < y->base ? -1 : x->base > y->base;
}

/* The segment list: malloc_state.seg, then each record's next (bounded, in the space). */
static void read_segments(struct dl_walk *d, uint64_t ms)
{
	/* malloc_state: 2 u32 binmaps, 8 words, 66 small-bin words, 32 tree bins, footprint,
	 * max_footprint, footprint_limit, u32 mflags (padded to a word), then msegment seg */
	uint64_t rec = ms + 8 + (8 + 66 + 32 + 3) * (uint64_t)d->word + (d->word == 8 ? 8 : 4);
	bool first = true;
	while (d->nseg < DL_MAX_SEG && rec) {
		if (!in_bytes(d, rec, 3 * (uint64_t)d->word)) {
			wk_anom(&d->w, ANOM_CHUNK, ERR_CORRUPT, rec, "segment record at 0x%llx is outside the space",
				(unsigned long long)rec);
			return;
		}
		struct dl_seg *g = &d->seg[d->nseg];
		g->base = rd(d, rec);
		g->size = rd(d, rec + d->word);
		g->record = first ? 0 : rec;
		uint64_t next = rd(d, rec + 2 * d->word);
		if (g->base < d->begin || g->base >= d->end || g->size > d->end - g->base) {
			wk_anom(&d->w, ANOM_CHUNK, ERR_CORRUPT, rec,
				"segment record at 0x%llx: [0x%llx, +0x%llx) is not inside the space", (unsigned long long)rec,
				(unsigned long long)g->base, (unsigned long long)g->size);
			return;
		}
		d->nseg++;
		first = false;
		for (unsigned i = 0; i + 1 < d->nseg; i++)
			if (d->seg[i].record == next && next) {
				wk_anom(&d->w, ANOM_CHUNK, ERR_CORRUPT, rec + 2 * d->word,
					"segment list returns to the record at 0x%llx", (unsigned long long)next);
				return;
			}
		rec = next;
	}
}

int walk_dlmalloc(const struct walk_ctx *ctx, const struct art_space *s, struct err *e)
{
	struct dl_walk d;
	int rc;

	memset(&d, 0, sizeof(d));
	wk_init(&d.w, ctx, s);
	d.word = d.w.ps;
	d.align = 2 * d.word;
	d.min_chunk = 4 * d.word;
	d.fencepost = PINUSE | CINUSE | d.word;
	d.begin = s->begin;
	d.end = s->end;
	d.u = (struct walk_unit){ .kind = WALK_UNIT_CHUNK_SPAN, .begin = s->begin, .bracket = -1,
				  .state = WALK_RS_ALLOCATED };
	d.p = wk_at(d.w.img, s->begin, &d.n);
	if (d.n > s->end - s->begin)
		d.n = (size_t)(s->end - s->begin);
	/* malloc_state: chunk 0's payload; topsize at +8+word, least_addr at +8+2word,
	 * top at +8+4word */
	uint64_t ms = s->begin + 2 * d.word;
	if (!d.p || d.n < 2 * d.word + 8 + 5 * (size_t)d.word) {
		wk_anom(&d.w, ANOM_CHUNK, ERR_UNMAPPED, s->begin, "mspace header at 0x%llx is not captured",
			(unsigned long long)s->begin);
		return 0;
	}
	uint64_t size0 = rd(&d, s->begin + d.word) & ~(uint64_t)FLAG_BITS;
	d.topsize = rd(&d, ms + 8 + d.word);
	d.top = rd(&d, ms + 8 + 4 * d.word);
	uint64_t least = rd(&d, ms + 8 + 2 * d.word);
	if (least != s->begin || !in_bytes(&d, d.top, 2 * d.word) || size0 > d.top - s->begin ||
	    size0 < d.min_chunk || size0 % d.align) {
		wk_anom(&d.w, ANOM_CHUNK, ERR_CORRUPT, ms,
			"mspace at 0x%llx: least_addr 0x%llx, top 0x%llx, first chunk %llu bytes do not describe it",
			(unsigned long long)s->begin, (unsigned long long)least, (unsigned long long)d.top,
			(unsigned long long)size0);
		return 0;
	}
	uint64_t d0 = d.w.damaged, seg_end = d.top;
	if (d.topsize <= s->end - d.top)
		seg_end = d.top + d.topsize;
	read_segments(&d, ms);
	if (!d.nseg) /* no readable list: the space as one segment */
		d.seg[d.nseg++] = (struct dl_seg){ .base = s->begin, .size = d.n };
	qsort(d.seg, d.nseg, sizeof(d.seg[0]), by_base);
	for (unsigned i = 0; i < d.nseg; i++) {
		if ((rc = walk_segment(&d, d.seg[i].base, d.seg[i].base + d.seg[i].size, size0, e)))
			return rc;
		if (d.seg[i].base + d.seg[i].size > seg_end)
			seg_end = d.seg[i].base + d.seg[i].size;
	}
	if (!d.seen_top)
		wk_anom(&d.w, ANOM_CHUNK, ERR_CORRUPT, d.top, "no segment's chunk walk reaches top 0x%llx",
			(unsigned long long)d.top);
	/* top: its payload keeps what was merged into it */
	uint64_t tsize = rd(&d, d.top + d.word) & ~(uint64_t)FLAG_BITS;
	if (tsize != d.topsize)
		wk_anom(&d.w, ANOM_CHUNK, ERR_CORRUPT, d.top + d.word,
			"top chunk at 0x%llx: head says %llu bytes, topsize %llu",
			(unsigned long long)d.top, (unsigned long long)tsize, (unsigned long long)d.topsize);
	if (d.topsize > 2 * d.word && d.topsize <= s->end - d.top) {
		struct walk_candidate k = { .addr = d.top + 2 * d.word, .room = d.topsize - 2 * d.word,
					    .alloc = WALK_FREE,
					    .place = WALK_DLMALLOC_CHUNK, .where = d.top };
		d.u.free++;
		if ((rc = wk_emit(&d.w, &k, e)))
			return rc;
	}
	d.u.end = seg_end;
	d.u.top = d.top;
	d.u.damaged = d.w.damaged - d0;
	if ((rc = wk_unit(&d.w, &d.u, e)))
		return rc;
	/* the zygote's compacted objects: from the end of the mspace's last segment (the
	 * DlMallocSpace's End() when the zygote compaction ran), page aligned.  Also for a
	 * space named as a plain non-moving space: 5.0 names the zygote's map "non moving
	 * space" (heap.cc @ 5.0); a non-moving space ends with its mspace and yields nothing. */
	uint64_t bump = (seg_end + WK_PAGE - 1) & ~(uint64_t)(WK_PAGE - 1);
	if (bump >= s->end || !in_bytes(&d, bump, 0) ||
	    (s->kind != SPACE_ZYGOTE && wk_zero(d.p + (bump - s->begin), d.n - (size_t)(bump - s->begin))))
		return 0;
	struct rt_sizer z;
	struct wk_contig k = { .place = WALK_BUMP, .where = bump };
	struct walk_unit u = { .kind = WALK_UNIT_CONTIGUOUS, .begin = bump, .end = s->end, .bracket = -1,
			       .state = WALK_RS_ALLOCATED };
	runtime_sizer_init(&z, ctx->rt);
	d0 = d.w.damaged;
	if ((rc = wk_contiguous(&d.w, &z, bump, s->end, &k, &u, e)))
		return rc;
	u.damaged = d.w.damaged - d0;
	return wk_unit(&d.w, &u, e);
}
