/* walk.c - the walkers' dispatch, walk_all and shared helpers (see walk.h). */
#include "rosalloc/walk/walk.h"

#include <stdarg.h>
#include <stdio.h>

#include "rosalloc/walk/walk_int.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the walkers read little-endian words in place (wk_u32): little-endian hosts only"
#endif

static const char *const place_names[WALK_PLACE_COUNT] = {
	[WALK_ROSALLOC_SLOT] = "rosalloc_slot",
	[WALK_ROSALLOC_LARGE] = "rosalloc_large",
	[WALK_REGION] = "region",
	[WALK_REGION_LARGE] = "region_large",
	[WALK_DLMALLOC_CHUNK] = "dlmalloc_chunk",
	[WALK_LOS] = "los",
	[WALK_IMAGE] = "image",
	[WALK_BUMP] = "bump",
	[WALK_CMC_FROM_SPACE] = "cmc_from_space",
};

static const char *const unit_names[WALK_UNIT_KIND_COUNT] = {
	[WALK_UNIT_RUN] = "run",
	[WALK_UNIT_LARGE] = "large",
	[WALK_UNIT_FREE_PAGES] = "free_pages",
	[WALK_UNIT_REGION] = "region",
	[WALK_UNIT_CHUNK_SPAN] = "chunks",
	[WALK_UNIT_LOS] = "los",
	[WALK_UNIT_CONTIGUOUS] = "contiguous",
};

const char *walk_place_name(enum walk_place p)
{
	return (unsigned)p < WALK_PLACE_COUNT ? place_names[p] : "unknown";
}

const char *walk_alloc_name(enum walk_alloc a)
{
	return a == WALK_ALLOCATED ? "allocated" : a == WALK_FREE ? "free" : "unknown";
}

const char *walk_unit_kind_name(enum walk_unit_kind k)
{
	return (unsigned)k < WALK_UNIT_KIND_COUNT ? unit_names[k] : "unknown";
}

const char *walk_region_state_name(enum walk_region_state s)
{
	static const char *const n[] = { "free", "allocated", "large", "large_tail", "unknown" };
	return (unsigned)s <= WALK_RS_UNKNOWN ? n[s] : "unknown";
}

/* ---- helpers ---- */

void wk_init(struct space_walk *w, const struct walk_ctx *ctx, const struct art_space *s)
{
	memset(w, 0, sizeof(*w));
	w->ctx = ctx;
	w->s = s;
	w->img = ctx->rt->img;
	w->ev = ctx->ev;
	w->ps = ctx->rt->pointer_size == 8 ? 8 : 4;
	w->name = s->name && s->name[0] ? s->name : spaces_kind_name(s->kind);
}

void wk_anom(struct space_walk *w, enum anomaly_code code, enum err_code cause, uint64_t va, const char *fmt, ...)
{
	char msg[ANOMALY_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	w->damaged++;
	if (w->ctx->anom)
		w->ctx->anom(w->ctx->anom_arg, code, cause, va, w->name, msg);
	else
		anomaly_add(w->ctx->sink, code, cause, va, w->name, "%s", msg);
}

int wk_emit(struct space_walk *w, struct walk_candidate *c, struct err *e)
{
	c->space = w->s;
	c->live_bit = w->ev ? (int8_t)walk_evidence_live(w->ev, w->s, c->addr) : -1;
	c->on_alloc_stack = w->ev ? (int8_t)walk_evidence_on_stack(w->ev, c->addr) : -1;
	progress_to(w->ctx->progress, w->ctx->progress_base + (c->addr - w->s->begin));
	return w->ctx->emit(w->ctx->arg, c, e);
}

int wk_unit(struct space_walk *w, struct walk_unit *u, struct err *e)
{
	u->space = w->s;
	return w->ctx->unit ? w->ctx->unit(w->ctx->unit_arg, u, e) : 0;
}

const uint8_t *wk_at(const struct image *img, uint64_t va, size_t *avail)
{
	return img_span(img, va, 1, avail);   /* at least one byte: va itself is captured */
}

const uint8_t *wk_bytes(const struct image *img, uint64_t va, size_t n, uint8_t *buf, size_t cap)
{
	size_t avail;
	const uint8_t *p = wk_at(img, va, &avail);
	if (p && avail >= n)
		return p;
	if (!p || n > cap || !img_peek(img, va, buf, n))
		return NULL;
	return buf;
}

bool wk_zero(const uint8_t *p, size_t n)
{
	size_t i = 0;
	uint64_t acc = 0;
	for (; i + 32 <= n; i += 32) {
		acc |= wk_u64(p + i) | wk_u64(p + i + 8) | wk_u64(p + i + 16) | wk_u64(p + i + 24);
		if (acc)
			return false;
	}
	for (; i < n; i++)
		acc |= p[i];
	return acc == 0;
}

size_t wk_zero_run(const struct image *img, uint64_t va, const uint8_t *p, size_t off, size_t n)
{
	size_t end = off + (n - off) / 8 * 8;   /* past the last whole word */
	uint64_t lo, hi;

	while (off < end) {
		uint64_t at = va + off;
		if (at % WK_PAGE == 0) {
			if (!img_next_data(img, at, va + end, &lo, &hi))
				return end;   /* holes to the end */
			size_t skip = (size_t)(lo - va) & ~(size_t)7;   /* whole words before the data */
			if (skip > off) {
				off = skip < end ? skip : end;
				continue;
			}
		}
		if (wk_u64(p + off))
			return off;
		off += 8;
	}
	return end;
}

/* ---- dispatch ---- */

typedef int (*walk_fn)(const struct walk_ctx *ctx, const struct art_space *s, struct err *e);

/* The walker of a space kind; NULL for the map LOS aggregate (its allocations are walked)
 * and helper mappings. */
static walk_fn walker_of(enum space_kind k)
{
	switch (k) {
	case SPACE_ROSALLOC: return walk_rosalloc;
	case SPACE_REGION: return walk_region;
	case SPACE_DLMALLOC:
	case SPACE_ZYGOTE: return walk_dlmalloc;
	case SPACE_LOS_ALLOCATION: return walk_los_map;
	case SPACE_LOS_FREELIST: return walk_los_freelist;
	case SPACE_IMAGE: return walk_image;
	case SPACE_BUMP_POINTER: return walk_bump;
	case SPACE_CMC_MAP: return walk_cmc_from_space;
	default: return NULL;
	}
}

int walk_space(const struct walk_ctx *ctx, const struct art_space *s, struct err *e)
{
	walk_fn f = walker_of(s->kind);
	return f ? f(ctx, s, e) : 0;
}

int walk_all(const struct walk_ctx *ctx, struct err *e)
{
	struct walk_ctx c = *ctx;
	struct walk_evidence *own = NULL;
	const struct art_spaces *sl = &ctx->rt->spaces;
	uint64_t total = 0;
	int rc = 0;

	if (!c.ev) {
		if (!(own = walk_evidence_open(ctx->rt, ctx->sink, e)))
			return -ERR_NOMEM;
		c.ev = own;
	}
	for (size_t i = 0; i < sl->count; i++)
		total += walker_of(sl->v[i].kind) ? sl->v[i].end - sl->v[i].begin : 0;
	progress_phase(c.progress, "walking the spaces and checking candidates", total);
	/* spaces_find sorts by begin: address order */
	for (size_t i = 0; rc == 0 && i < sl->count; i++) {
		const struct art_space *s = &sl->v[i];
		rc = walk_space(&c, s, e);
		img_drop(ctx->rt->img, 0, UINT64_MAX);   /* done with it and its bitmaps: bounded memory */
		c.progress_base += walker_of(s->kind) ? s->end - s->begin : 0;
	}
	walk_evidence_close(own);
	return rc;
}
