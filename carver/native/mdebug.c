/* mdebug.c - see mdebug.h.  Layout facts (doc/malloc-debug.md):
 *   Header: u32 tag, void *orig_pointer, size_t size, size_t usable_size, packed
 *     (bionic libc/malloc_debug/malloc_debug.h @ android-7.0.0_r1 .. android-14.0.0_r1);
 *     pointer_offset starts at align(sizeof(Header), MINIMUM_ALIGNMENT_BYTES) (DebugData.cpp);
 *     MINIMUM_ALIGNMENT_BYTES is 16 on LP64, 8 otherwise (Config.h).
 *   7.x/8.x: BacktraceHeader {size_t num_frames; uintptr_t frames[backtrace]} follows,
 *     rounded up (BacktraceData.cpp @ android-7.0.0_r1); 9.0 took it out of the header
 *     (DebugData.cpp @ android-9.0.0_r1).
 *   The front guard (0xaa, front_guard bytes rounded up, Config.cpp) ends at P; the rear guard
 *     (0xbb) starts at P + size; with a rear guard usable_size = size (InitHeader).
 *   Bit 31 of size is the zygote flag in 7.x/8.x (Header::set_zygote @ android-7.0.0_r1).
 *   fill_on_alloc writes 0xeb over usable_size bytes at P, fill_on_free 0xef on free; free
 *     sets tag = DEBUG_FREE_TAG (debug_free); free_track keeps the block and later reports
 *     every byte that is not 0xef as "allocation[i] = 0x.. (expected 0xef)" (FreeTrackData.cpp).
 * The scan walks each heap region's aligned words once; the layout is voted from the first
 * MD_VOTERS headers unless the caller gives the options. */
#include <string.h>

#include "carver/base/ck.h"
#include "carver/base/cursor.h"
#include "carver/base/xalloc.h"
#include "carver/native/mdebug.h"

enum {
	MD_VOTERS = 512,              /* headers the layout is inferred from */
	MD_MAX_SLACK = 1 << 20,       /* header - orig_pointer of a memalign'd block, at most */
	MD_SIZE_MASK = 0x7fffffff,    /* 7.x/8.x: bit 31 of size is the zygote flag */
	MD_BT_CANDIDATES = MDEBUG_MAX_FRAMES + 1
};

struct md_layout {
	unsigned ps, al, hdr;         /* pointer size, MINIMUM_ALIGNMENT_BYTES, aligned Header */
	uint32_t bt_block;            /* backtrace block bytes in the header, 0 = none */
	uint32_t fg, rg;              /* guards */
	uint32_t frames;              /* frames the block holds */
};

struct md_hdr {
	uint32_t tag;
	uint64_t orig, size_raw, size, usable;
};

/* A heap buffer: bytes [0, len) at address va. */
struct md_buf {
	const uint8_t *p;
	size_t len;
	uint64_t va;
	const char *name;
};

static uint64_t md_align(uint64_t v, unsigned al) { return (v + al - 1) & ~(uint64_t)(al - 1); }

static void md_layout_base(struct md_layout *l, unsigned bits)
{
	memset(l, 0, sizeof(*l));
	l->ps = bits / 8;
	l->al = bits == 64 ? 16 : 8;
	l->hdr = (unsigned)md_align(4 + 3 * l->ps, l->al);
}

static uint32_t md_bt_block(const struct md_layout *l, uint32_t frames)
{
	return frames ? (uint32_t)md_align((uint64_t)l->ps * (1 + frames), l->al) : 0;
}

static uint64_t md_word(const uint8_t *p, unsigned ps) { return ps == 8 ? ld_u64le(p) : ld_u32le(p); }

/* Reads the Header at offset pos of b; false when it does not fit. */
static bool md_read_hdr(const struct md_buf *b, size_t pos, const struct md_layout *l, struct md_hdr *h)
{
	const uint8_t *p;

	if (ck_range(pos, 4 + 3 * (size_t)l->ps, b->len))
		return false;
	p = b->p + pos;
	h->tag = ld_u32le(p);
	h->orig = md_word(p + 4, l->ps);
	h->size_raw = md_word(p + 4 + l->ps, l->ps);
	h->size = h->size_raw & MD_SIZE_MASK;
	h->usable = md_word(p + 4 + 2 * l->ps, l->ps);
	return true;
}

/* Fields a real header can hold at address hva (whatever its tag). */
static bool md_plausible(const struct md_hdr *h, uint64_t hva)
{
	if (h->size_raw >> 32 || h->size == 0 || h->orig > hva || hva - h->orig > MD_MAX_SLACK)
		return false;
	return h->usable >= h->size && h->usable - h->size <= h->size + MD_MAX_SLACK;
}

/* Bytes equal to v from offset pos (at most max, inside b). */
static size_t md_run(const struct md_buf *b, uint64_t pos, uint8_t v, size_t max)
{
	size_t n = 0;
	while (pos < b->len && n < max && b->p[pos] == v) {
		pos++;
		n++;
	}
	return n;
}

/* Bytes equal to v among the n bytes from offset pos (inside b). */
static size_t md_count(const struct md_buf *b, uint64_t pos, uint8_t v, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n && pos + i < b->len; i++)
		k += b->p[pos + i] == v;
	return k;
}

/* Bytes equal to v that end the span [P, P + span) (the fill the app left after what it
 * wrote reaches the end of usable_size exactly; at a wrong P it does not end there). */
static size_t md_run_back(const struct md_buf *b, uint64_t P, uint64_t span, uint8_t v)
{
	size_t n = 0;
	uint64_t end = P + span;

	if (span == 0 || end > b->len || (end < b->len && b->p[end] == v))
		return 0;
	while (n < span && b->p[end - 1 - n] == v)
		n++;
	return n;
}

/* ---- inference ---- */

struct md_vote {
	size_t pos;                   /* header offset in its buffer */
	const struct md_buf *buf;
	struct md_hdr h;
};

struct md_voters {
	struct md_vote v[MD_VOTERS];
	size_t n;
	struct md_buf bufs[64];       /* the buffers the voters lie in (a cap; later ones don't vote) */
	size_t nbufs;
};

/* Score of reading the candidate with a backtrace block of B bytes: guard and fill bytes
 * explained.  *F and *R get the guard sizes it implies. */
static size_t md_score(const struct md_vote *c, const struct md_layout *l, uint32_t B, uint32_t *F, uint32_t *R)
{
	uint64_t base = (uint64_t)c->pos + l->hdr + B, P;
	size_t E;
	size_t f = md_run(c->buf, base, MDEBUG_FRONT_GUARD_VALUE, MDEBUG_MAX_GUARD);

	f -= f % l->al;
	P = base + f;
	*F = (uint32_t)f;
	*R = (uint32_t)md_run(c->buf, P + c->h.size, MDEBUG_REAR_GUARD_VALUE, MDEBUG_MAX_GUARD);
	E = md_run_back(c->buf, P, *R ? c->h.size : c->h.usable,
			c->h.tag == MDEBUG_FREE_TAG ? MDEBUG_FILL_FREE_VALUE : MDEBUG_FILL_ALLOC_VALUE);
	return f + *R + (E >= l->al || E == c->h.size ? (size_t)E : 0);
}

/* The backtrace word count stored at the start of the block, when it can be one. */
static bool md_bt_count(const struct md_vote *c, const struct md_layout *l, uint64_t *n)
{
	uint64_t at = (uint64_t)c->pos + l->hdr;
	if (at > c->buf->len || l->ps > c->buf->len - at)
		return false;
	*n = md_word(c->buf->p + at, l->ps);
	return *n <= MDEBUG_MAX_FRAMES;
}

static uint32_t md_mode(const uint32_t *v, size_t n)
{
	uint32_t best = 0;
	size_t best_n = 0;
	for (size_t i = 0; i < n; i++) {
		size_t k = 0;
		for (size_t j = 0; j < n; j++)
			k += v[j] == v[i];
		if (k > best_n || (k == best_n && v[i] < best)) {
			best = v[i];
			best_n = k;
		}
	}
	return best;
}

static bool md_has_run(const struct md_vote *c, uint64_t P, uint8_t v, size_t want)
{
	size_t run = 0;
	for (uint64_t i = 0; i < c->h.size && P + i < c->buf->len; i++) {
		run = c->buf->p[P + i] == v ? run + 1 : 0;
		if (run >= want)
			return true;
	}
	return false;
}

/* Chooses the block size B among the candidates: each voter's best-scoring B (votes only when
 * something was explained); else, with only backtrace counts, the largest minimal block. */
static uint32_t md_vote_block(const struct md_voters *vs, const struct md_layout *l, const uint32_t *allowed,
			      size_t nallowed, uint32_t *votes)
{
	size_t nv = 0;
	uint32_t fallback = 0;

	for (size_t i = 0; i < vs->n; i++) {
		const struct md_vote *c = &vs->v[i];
		uint64_t n = 0;
		bool bt = md_bt_count(c, l, &n) && n > 0;
		size_t best = 0;
		uint32_t bestB = 0, F, R;
		for (size_t k = 0; k < nallowed; k++) {
			uint32_t B = allowed[k];
			size_t sc;
			if (B && (!bt || (uint64_t)l->ps * (1 + n) > B))
				continue;
			sc = md_score(c, l, B, &F, &R);
			if (sc > best) {
				best = sc;
				bestB = B;
			}
		}
		if (best)
			votes[nv++] = bestB;
		else if (bt && md_bt_block(l, (uint32_t)n) > fallback && nallowed > 1)
			fallback = md_bt_block(l, (uint32_t)n);
	}
	if (nv)
		return md_mode(votes, nv);
	/* no guard or fill places P: the deepest backtrace seen bounds the block (allowed[]
	 * is in ascending order) */
	for (size_t k = 0; fallback && k < nallowed; k++)
		if (allowed[k] >= fallback)
			return allowed[k];
	return 0;
}

static void md_infer(const struct md_voters *vs, struct md_layout *l, struct mdebug_options *o,
		     const struct mdebug_options *given, uint32_t *scratch)
{
	uint32_t allowed[MD_BT_CANDIDATES];
	size_t nallowed = 0;
	uint32_t B;

	allowed[nallowed++] = 0;
	if (given) {
		if (given->backtrace)
			allowed[nallowed++] = md_bt_block(l, given->backtrace);
	} else {
		for (uint32_t n = 1; n <= MDEBUG_MAX_FRAMES; n++)
			if (md_bt_block(l, n) != allowed[nallowed - 1])
				allowed[nallowed++] = md_bt_block(l, n);
	}
	B = md_vote_block(vs, l, allowed, nallowed, scratch);
	l->bt_block = B;
	l->frames = 0;
	for (uint32_t n = 1; B && n <= MDEBUG_MAX_FRAMES && !l->frames; n++)
		if (md_bt_block(l, n) == B)
			l->frames = n;
	if (given) {
		*o = *given;
		o->backtrace = B ? given->backtrace : 0;
		l->frames = o->backtrace;
		l->fg = (uint32_t)md_align(given->front_guard, l->al);
		l->rg = given->rear_guard;
		return;
	}
	memset(o, 0, sizeof(*o));
	o->backtrace = l->frames;
	for (size_t i = 0; i < vs->n; i++) {
		uint32_t R;
		md_score(&vs->v[i], l, B, &scratch[i], &R);
	}
	l->fg = vs->n ? md_mode(scratch, vs->n) : 0;
	for (size_t i = 0; i < vs->n; i++) {
		const struct md_vote *c = &vs->v[i];
		uint64_t P = (uint64_t)c->pos + l->hdr + B + l->fg;
		scratch[i] = (uint32_t)md_run(c->buf, P + c->h.size, MDEBUG_REAR_GUARD_VALUE, MDEBUG_MAX_GUARD);
	}
	l->rg = vs->n ? md_mode(scratch, vs->n) : 0;
	o->front_guard = l->fg;
	o->rear_guard = l->rg;
	for (size_t i = 0; i < vs->n; i++) {
		const struct md_vote *c = &vs->v[i];
		uint64_t P = (uint64_t)c->pos + l->hdr + B + l->fg;
		size_t want = c->h.size < 16 ? (size_t)c->h.size : 16;
		if (c->h.tag == MDEBUG_TAG && md_has_run(c, P, MDEBUG_FILL_ALLOC_VALUE, want))
			o->fill_alloc = true;
		if (c->h.tag == MDEBUG_FREE_TAG) {
			o->free_track = true; /* the freed block kept its tag: held back from the allocator */
			if (md_has_run(c, P, MDEBUG_FILL_FREE_VALUE, want))
				o->fill_free = true;
		}
	}
}

/* ---- the scan ---- */

static int md_grow(void **p, size_t *cap, size_t need, size_t size, struct err *e)
{
	if (xalloc_grow(p, cap, need, size, 64))
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "malloc_debug scan: out of memory");
	return 0;
}

static int md_damage(struct mdebug_result *r, struct mdebug_alloc *a, enum mdebug_damage_kind k, int64_t off,
		     uint8_t found, uint8_t expected, struct err *e)
{
	int rc;
	if (a->damage_count >= MDEBUG_MAX_LISTED)
		return 0;
	if ((rc = md_grow((void **)&r->damage, &r->damage_cap, r->ndamage + 1, sizeof(*r->damage), e)))
		return rc;
	r->damage[r->ndamage++] = (struct mdebug_damage){ off, found, expected, (uint8_t)k };
	a->damage_count++;
	return 0;
}

/* Guard bytes [at, at+n) of b that are not v, offsets from P. */
static int md_guard(struct mdebug_result *r, struct mdebug_alloc *a, const struct md_buf *b, uint64_t at,
		    uint32_t n, uint8_t v, int64_t first_off, enum mdebug_damage_kind k, uint32_t *count, struct err *e)
{
	for (uint32_t i = 0; i < n; i++) {
		int rc;
		if (at + i >= b->len) {
			a->cut = true;
			break;
		}
		if (b->p[at + i] == v)
			continue;
		(*count)++;
		if ((rc = md_damage(r, a, k, first_off + i, b->p[at + i], v, e)))
			return rc;
	}
	return 0;
}

static int md_frames(struct mdebug_result *r, struct mdebug_alloc *a, const struct md_buf *b, size_t pos,
		     const struct md_layout *l, struct err *e)
{
	uint64_t at = (uint64_t)pos + l->hdr, n;
	uint64_t cap = l->bt_block / l->ps - 1;
	int rc;

	if (!l->bt_block || at + l->bt_block > b->len)
		return 0;
	n = md_word(b->p + at, l->ps);
	if (n > cap)
		return 0; /* not a frame count: nothing to trust */
	if ((rc = md_grow((void **)&r->frames, &r->frames_cap, r->nframes + (size_t)n, sizeof(*r->frames), e)))
		return rc;
	a->frame_first = r->nframes;
	for (uint64_t i = 0; i < n; i++)
		r->frames[r->nframes++] = md_word(b->p + at + l->ps * (1 + i), l->ps);
	a->frame_count = (size_t)n;
	return 0;
}

/* Fill and use-after-free evidence over the data bytes [P, P + n). */
static int md_fill(struct mdebug_result *r, struct mdebug_alloc *a, const struct md_buf *b, uint64_t P, uint64_t n,
		   struct err *e)
{
	bool uaf = a->state == MDEBUG_FREED && r->options.fill_free;

	for (uint64_t i = 0; i < n; i++) {
		uint8_t v;
		int rc;
		if (P + i >= b->len) {
			a->cut = true;
			break;
		}
		v = b->p[P + i];
		a->fill_alloc_left += v == MDEBUG_FILL_ALLOC_VALUE;
		a->fill_free_left += v == MDEBUG_FILL_FREE_VALUE;
		if (uaf && v != MDEBUG_FILL_FREE_VALUE) {
			a->uaf_bytes++;
			if ((rc = md_damage(r, a, MDEBUG_USE_AFTER_FREE, (int64_t)i, v, MDEBUG_FILL_FREE_VALUE, e)))
				return rc;
		}
	}
	return 0;
}

/* Records the allocation whose header is at pos; *end gets the offset past it. */
static int md_record(struct mdebug_result *r, const struct md_buf *b, size_t pos, const struct md_hdr *h,
		     enum mdebug_state st, const struct md_layout *l, uint64_t *end, struct err *e)
{
	struct mdebug_alloc *a;
	uint64_t P = (uint64_t)pos + l->hdr + l->bt_block + l->fg, span;
	int rc;

	if ((rc = md_grow((void **)&r->allocs, &r->cap, r->count + 1, sizeof(*r->allocs), e)))
		return rc;
	a = &r->allocs[r->count++];
	memset(a, 0, sizeof(*a));
	a->header = b->va + pos;
	a->pointer = b->va + P;
	a->orig_pointer = h->orig;
	a->size = h->size;
	a->usable_size = h->usable;
	a->tag = h->tag;
	a->state = (uint8_t)st;
	a->zygote = h->size_raw >> 31 & 1;
	a->region = b->name;
	a->damage_first = r->ndamage;
	a->frame_first = r->nframes;
	if (P >= b->len)
		a->cut = true;
	if ((rc = md_guard(r, a, b, P - l->fg, l->fg, MDEBUG_FRONT_GUARD_VALUE, -(int64_t)l->fg, MDEBUG_FRONT,
			   &a->front_damaged, e)) ||
	    (rc = md_guard(r, a, b, P + h->size, l->rg, MDEBUG_REAR_GUARD_VALUE, (int64_t)h->size, MDEBUG_REAR,
			   &a->rear_damaged, e)) ||
	    (rc = md_frames(r, a, b, pos, l, e)))
		return rc;
	/* free fills usable_size bytes (= size with a rear guard); alloc fill the same */
	span = l->rg ? h->size : h->usable;
	if ((rc = md_fill(r, a, b, P, span, e)))
		return rc;
	for (uint32_t i = 0; i < MDEBUG_FIRST_BYTES && i < h->size && P + i < b->len; i++)
		a->first[a->first_len++] = b->p[P + i];
	r->live += st == MDEBUG_LIVE;
	r->freed += st == MDEBUG_FREED;
	r->corrupt += st == MDEBUG_TAG_CORRUPT;
	*end = P + (span > h->size + l->rg ? span : h->size + l->rg);
	return 0;
}

/* A header whose tag was overwritten: plausible fields and at least half of each guard intact. */
static bool md_corrupt_header(const struct md_buf *b, size_t pos, const struct md_hdr *h, const struct md_layout *l)
{
	uint64_t P = (uint64_t)pos + l->hdr + l->bt_block + l->fg;

	if (!l->fg && !l->rg)
		return false;
	if (!md_plausible(h, b->va + pos) || (l->rg && h->usable != h->size))
		return false;
	if (l->fg && md_count(b, P - l->fg, MDEBUG_FRONT_GUARD_VALUE, l->fg) < l->fg / 2 + 1)
		return false;
	if (l->rg && md_count(b, P + h->size, MDEBUG_REAR_GUARD_VALUE, l->rg) < l->rg / 2 + 1)
		return false;
	return true;
}

static int md_scan_buf(struct mdebug_result *r, const struct md_buf *b, const struct md_layout *l, struct err *e)
{
	size_t pos = (size_t)(md_align(b->va, l->al) - b->va);

	while (pos < b->len && b->len - pos >= l->hdr) {
		struct md_hdr h;
		uint64_t end;
		int rc;
		enum mdebug_state st;

		if (!md_read_hdr(b, pos, l, &h))
			break;
		if ((h.tag == MDEBUG_TAG || h.tag == MDEBUG_FREE_TAG) && md_plausible(&h, b->va + pos))
			st = h.tag == MDEBUG_TAG ? MDEBUG_LIVE : MDEBUG_FREED;
		else if (md_corrupt_header(b, pos, &h, l))
			st = MDEBUG_TAG_CORRUPT;
		else {
			pos += l->al;
			continue;
		}
		if ((rc = md_record(r, b, pos, &h, st, l, &end, e)))
			return rc;
		if (end >= b->len)
			break;
		end = md_align(b->va + end, l->al) - b->va;
		pos = end > pos && end <= b->len ? (size_t)end : b->len;
	}
	return 0;
}

/* Collects up to MD_VOTERS tagged headers of b for the inference. */
static void md_collect(struct md_voters *vs, const struct md_buf *b, const struct md_layout *l)
{
	size_t pos = (size_t)(md_align(b->va, l->al) - b->va);
	const struct md_buf *kept = NULL;

	for (; vs->n < MD_VOTERS && pos < b->len && b->len - pos >= l->hdr; pos += l->al) {
		struct md_hdr h;
		if (!md_read_hdr(b, pos, l, &h) || (h.tag != MDEBUG_TAG && h.tag != MDEBUG_FREE_TAG) ||
		    !md_plausible(&h, b->va + pos))
			continue;
		if (!kept) {
			if (vs->nbufs == sizeof(vs->bufs) / sizeof(vs->bufs[0]))
				return;
			vs->bufs[vs->nbufs] = *b;
			kept = &vs->bufs[vs->nbufs++];
		}
		vs->v[vs->n++] = (struct md_vote){ pos, kept, h };
	}
}

bool mdebug_region_wanted(const struct img_region *rg, bool names_used)
{
	const char *n = rg->name;

	if (!rg->data || !(rg->prot & IMG_PROT_W))
		return false;
	if (!names_used)
		return n[0] == '\0';
	return !strcmp(n, "[anon:libc_malloc]") || !strncmp(n, "[anon:scudo:", 12) ||
	       !strncmp(n, "[anon:jemalloc", 14) || !strcmp(n, "[heap]") || !strncmp(n, "[anon:dlmalloc", 14) ||
	       !strcmp(n, "[anon:je_arena]");
}

/* The heap buffers of the image, read through img_view. */
static int md_buffers(const struct image *img, bool names_used, struct md_buf **out, size_t *n, struct err *e)
{
	size_t cap = 0;
	*out = NULL;
	*n = 0;
	for (size_t i = 0; i < img->region_count; i++) {
		const struct img_region *rg = &img->regions[i];
		struct cursor c;
		int rc;
		if (!mdebug_region_wanted(rg, names_used) || rg->data_len == 0)
			continue;
		if ((rc = img_view(img, rg->start, rg->data_len, &c, e)))
			return rc;
		if ((rc = md_grow((void **)out, &cap, *n + 1, sizeof(**out), e)))
			return rc;
		(*out)[(*n)++] = (struct md_buf){ c.base, c.len, c.va, rg->name };
	}
	return 0;
}

static int md_run_scan(const struct md_buf *bufs, size_t nbufs, unsigned bits, const struct mdebug_scan_opts *o,
		       struct mdebug_result *r, struct err *e)
{
	struct md_voters *vs = xcalloc(1, sizeof(*vs));
	uint32_t *scratch = xcalloc(MD_VOTERS, sizeof(*scratch));
	struct md_layout l;
	int rc = 0;

	if (!vs || !scratch) {
		xfree(vs);
		xfree(scratch);
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "malloc_debug scan: out of memory");
	}
	if (!bits) {
		/* the word size with more tagged headers (64 on a tie) */
		size_t n64, n32;
		md_layout_base(&l, 64);
		for (size_t i = 0; i < nbufs; i++)
			md_collect(vs, &bufs[i], &l);
		n64 = vs->n;
		memset(vs, 0, sizeof(*vs));
		md_layout_base(&l, 32);
		for (size_t i = 0; i < nbufs; i++)
			md_collect(vs, &bufs[i], &l);
		n32 = vs->n;
		bits = n32 > n64 ? 32 : 64;
		memset(vs, 0, sizeof(*vs));
	}
	md_layout_base(&l, bits);
	for (size_t i = 0; i < nbufs; i++)
		md_collect(vs, &bufs[i], &l);
	md_infer(vs, &l, &r->options, o ? o->options : NULL, scratch);
	r->bits = bits;
	r->options_given = o && o->options;
	for (size_t i = 0; i < nbufs && !rc; i++) {
		rc = md_scan_buf(r, &bufs[i], &l, e);
		r->regions_scanned++;
		r->bytes_scanned += bufs[i].len;
	}
	xfree(scratch);
	xfree(vs);
	return rc;
}

int mdebug_scan(const struct image *img, const struct mdebug_scan_opts *o, struct mdebug_result *r, struct err *e)
{
	struct md_buf *bufs;
	size_t nbufs;
	bool names = false;
	unsigned bits = o && o->bits ? o->bits : img->pointer_bits;
	int rc;

	memset(r, 0, sizeof(*r));
	/* regions by name when some heap mapping is named (a maps listing, a maps-dir); a core
	 * alone names only its file mappings: then every unnamed writable region */
	for (size_t i = 0; i < img->region_count && !names; i++)
		names = mdebug_region_wanted(&img->regions[i], true);
	r->names_used = names;
	if ((rc = md_buffers(img, names, &bufs, &nbufs, e)))
		return rc;
	rc = md_run_scan(bufs, nbufs, bits == 32 || bits == 64 ? bits : 0, o, r, e);
	xfree(bufs);
	return rc;
}

int mdebug_scan_bytes(const uint8_t *p, size_t len, uint64_t va, const struct mdebug_scan_opts *o,
		      struct mdebug_result *r, struct err *e)
{
	struct md_buf b = { p, len, va, "" };
	memset(r, 0, sizeof(*r));
	if (ck_add64(va, len, &(uint64_t){ 0 }))
		return ERR_SET(e, ERR_CORRUPT, va, "buffer at 0x%llx wraps around", (unsigned long long)va);
	return md_run_scan(&b, 1, o && (o->bits == 32 || o->bits == 64) ? o->bits : 0, o, r, e);
}

void mdebug_result_free(struct mdebug_result *r)
{
	xfree(r->allocs);
	xfree(r->damage);
	xfree(r->frames);
	memset(r, 0, sizeof(*r));
}
