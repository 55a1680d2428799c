/* spaces.c - ART spaces from mapping names and from content (see spaces.h). */
#include "art/runtime/spaces.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "art/format/art_image.h"
#include "art/format/art_layout.h"
#include "carver/base/ck.h"
#include "carver/base/cursor.h"
#include "carver/base/xalloc.h"

enum {
	SP_PAGE = 4096,
	SP_REGION = 256 * 1024,         /* RegionSpace::kRegionSize, region_space.h @ 8.0-14 */
	SP_LOS_MIN = 3 * SP_PAGE,       /* Heap::kDefaultLargeObjectThreshold, heap.h */
	SP_LOW4G = 1u << 31,            /* (4 GiB >> 1): heap spaces and image lie below 4 GiB */
};
#define SP_LOW_LIMIT ((uint64_t)SP_LOW4G * 2)

static const char *const kind_names[SPACE_KIND_COUNT] = {
	[SPACE_IMAGE] = "ImageSpace",
	[SPACE_ROSALLOC] = "RosAllocSpace",
	[SPACE_DLMALLOC] = "DlMallocSpace",
	[SPACE_ZYGOTE] = "ZygoteSpace",
	[SPACE_REGION] = "RegionSpace",
	[SPACE_BUMP_POINTER] = "BumpPointerSpace",
	[SPACE_LOS_MAP] = "LargeObjectMapSpace",
	[SPACE_LOS_FREELIST] = "FreeListSpace",
	[SPACE_LOS_ALLOCATION] = "LargeObjectAllocation",
	[SPACE_ROSALLOC_PAGE_MAP] = "RosAllocPageMap",
	[SPACE_LOS_INFO_MAP] = "LargeObjectInfoMap",
	[SPACE_BITMAP] = "SpaceBitmap",
	[SPACE_ALLOCATION_STACK] = "AllocationStack",
	[SPACE_LIVE_STACK] = "LiveStack",
	[SPACE_MARK_STACK] = "MarkStack",
	[SPACE_CARD_TABLE] = "CardTable",
	[SPACE_DEX_IN_MEMORY] = "DexInMemory",
	[SPACE_LINEAR_ALLOC] = "LinearAlloc",
	[SPACE_CMC_MAP] = "MarkCompactMap",
};

const char *spaces_kind_name(enum space_kind k)
{
	return k < SPACE_KIND_COUNT ? kind_names[k] : "unknown";
}

bool spaces_holds_objects(enum space_kind k)
{
	return k <= SPACE_LOS_ALLOCATION;
}

/* ---- names ---- */

static bool has_prefix(const char *s, size_t n, const char *p)
{
	size_t pn = strlen(p);
	return n >= pn && !memcmp(s, p, pn);
}

static bool has_suffix(const char *s, size_t n, const char *p)
{
	size_t pn = strlen(p);
	return n >= pn && !memcmp(s + n - pn, p, pn);
}

static bool contains(const char *s, size_t n, const char *p)
{
	size_t pn = strlen(p);
	for (size_t i = 0; pn <= n && i <= n - pn; i++)
		if (!memcmp(s + i, p, pn))
			return true;
	return false;
}

bool spaces_dalvik_name(const char *m, const char **out, size_t *len)
{
	static const struct { const char *head, *tail; } forms[] = {
		{ "/dev/ashmem/dalvik-", " (deleted)" }, /* 5.0-9, mem_map.cc */
		{ "/dev/ashmem/dalvik-", "" },
		{ "[anon:dalvik-", "]" },               /* 10+, PR_SET_VMA_ANON_NAME */
		{ "dalvik-", "" },
	};
	size_t n = m ? strlen(m) : 0;

	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		size_t h = strlen(forms[i].head), t = strlen(forms[i].tail);
		if (n < h + t || !has_prefix(m, n, forms[i].head) || !has_suffix(m, n, forms[i].tail))
			continue;
		*out = m + h;
		*len = n - h - t;
		return true;
	}
	return false;
}

enum match { M_EXACT, M_PREFIX, M_SUFFIX, M_CONTAINS };
/* ART's mapping names (runtime/gc/heap.cc, gc/space/{image,region,large_object}_space.cc @R50..R15); first matching rule wins. */
static const struct { const char *text; enum match how; enum space_kind kind; } name_rules[] = {
	{ "main space (region space)", M_EXACT, SPACE_REGION },
	{ "Region space", M_EXACT, SPACE_REGION },
	{ "main space", M_PREFIX, SPACE_ROSALLOC },
	{ "zygote space", M_EXACT, SPACE_ZYGOTE },
	{ "non moving space", M_EXACT, SPACE_DLMALLOC },
	{ "alloc space", M_EXACT, SPACE_DLMALLOC },
	{ "large object space allocation", M_EXACT, SPACE_LOS_ALLOCATION },
	{ "free list large object space", M_EXACT, SPACE_LOS_FREELIST },
	{ "large object space", M_EXACT, SPACE_LOS_FREELIST },
	{ "large object free list space allocation info map", M_EXACT, SPACE_LOS_INFO_MAP },
	{ "rosalloc page map", M_EXACT, SPACE_ROSALLOC_PAGE_MAP },
	{ "large live objects", M_EXACT, SPACE_BITMAP },
	{ "large marked objects", M_EXACT, SPACE_BITMAP },
	{ "bitmap", M_CONTAINS, SPACE_BITMAP },
	{ "allocation stack", M_EXACT, SPACE_ALLOCATION_STACK },
	{ "live stack", M_EXACT, SPACE_LIVE_STACK },
	{ "mark stack", M_SUFFIX, SPACE_MARK_STACK },
	{ "card table", M_EXACT, SPACE_CARD_TABLE },
	{ " extracted in memory from ", M_CONTAINS, SPACE_DEX_IN_MEMORY },
	{ "LinearAlloc", M_EXACT, SPACE_LINEAR_ALLOC },
	/* runtime/gc/collector/mark_compact.cc @R14U, @R15: "Concurrent mark-compact from-space",
	 * "... moving-space shadow", "... compaction buffers", "... chunk-info vector" */
	{ "Concurrent mark-compact ", M_PREFIX, SPACE_CMC_MAP },
	{ "moving-space-shadow", M_EXACT, SPACE_CMC_MAP },
	{ "linear-alloc shadow map", M_EXACT, SPACE_CMC_MAP },
	{ "linear-alloc page-status map", M_EXACT, SPACE_CMC_MAP },
	{ ".art", M_SUFFIX, SPACE_IMAGE },
};

enum space_kind spaces_kind_of_name(const char *s, size_t n)
{
	for (size_t i = 0; i < sizeof(name_rules) / sizeof(name_rules[0]); i++) {
		const char *t = name_rules[i].text;
		bool hit = false;
		switch (name_rules[i].how) {
		case M_EXACT: hit = n == strlen(t) && !memcmp(s, t, n); break;
		case M_PREFIX: hit = has_prefix(s, n, t); break;
		case M_SUFFIX: hit = has_suffix(s, n, t); break;
		case M_CONTAINS: hit = contains(s, n, t); break;
		}
		if (hit)
			return name_rules[i].kind;
	}
	return SPACE_KIND_COUNT;
}

/* Kind of a whole mapping name: ART's anonymous names, or a file-backed image. */
static enum space_kind kind_of_mapping(const char *m, const char **inner, size_t *len)
{
	size_t n = m ? strlen(m) : 0;
	if (spaces_dalvik_name(m, inner, len))
		return spaces_kind_of_name(*inner, *len);
	*inner = m ? m : "";
	*len = n;
	if (n && m[0] == '/' && has_suffix(m, n, ".art"))
		return SPACE_IMAGE;
	return SPACE_KIND_COUNT;
}

/* ---- content ---- */

/* True when the n captured bytes at p (address va) are all zero; read window by window, each
 * released once read (an inactive twin can be hundreds of MB of zeros). */
static bool all_zero(const struct image *img, uint64_t va, const uint8_t *p, size_t n)
{
	for (size_t at = 0; at < n; at += IMG_DROP_STEP) {
		size_t end = n - at < IMG_DROP_STEP ? n : at + IMG_DROP_STEP;
		for (size_t i = at; i < end; i++)
			if (p[i])
				return false;
		img_drop(img, va + at, va + end);
	}
	return true;
}

bool spaces_probe_image_header(const uint8_t *p, size_t n, uint64_t va)
{
	struct art_image_header h;
	struct cursor c;
	struct err why;

	err_init(&why);
	cur_init(&c, p, n, va);
	/* a header that does not parse is simply not an image header here */
	return art_image_header_parse(&h, &c, ART_IMAGE_MAPPED, &why) == 0 && h.image_begin == va;
}

/* ---- the search ---- */

struct cand {
	enum space_kind kind;        /* SPACE_KIND_COUNT = not (yet) known */
	uint64_t begin, end, limit;
	const char *name;            /* ART name (copied to the arena) or "" */
	const char *how, *detail;
	const struct img_region *r;  /* first region */
	bool backup;
	uint64_t companion;
	size_t used_pages;           /* page maps */
	bool paired;
	uint64_t objects_end;
};

struct finder {
	const struct image *img;
	unsigned ps;
	const struct space_probes *pr;
	struct cand *c;
	size_t n, cap;
	struct art_spaces *out;
	struct err *e;
};

static int nomem(struct err *e) { return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory listing spaces"); }

static const char *keep(struct finder *f, const char *s, size_t n)
{
	return arena_strndup(&f->out->strings, s, n);
}

static const char *keepf(struct finder *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static const char *keepf(struct finder *f, const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return keep(f, buf, strlen(buf));
}

static struct cand *add_cand(struct finder *f)
{
	if (XALLOC_GROW(f->c, f->cap, f->n + 1, 32))
		return NULL;
	memset(&f->c[f->n], 0, sizeof(f->c[0]));
	return &f->c[f->n++];
}

/* Kinds whose mapping may be split into several VMAs of one name (rw prefix, PROT_NONE tail). */
static bool groups(enum space_kind k)
{
	return k <= SPACE_BUMP_POINTER || k == SPACE_LOS_FREELIST;
}

static bool readable(const struct img_region *r) { return (r->prot & IMG_PROT_R) != 0; }

static const uint8_t *cand_data(const struct cand *c, size_t *n)
{
	*n = c->r->data ? c->r->data_len : 0;
	return c->r->data;
}

/* Groups regions into candidates: named runs, or single unnamed regions (an unnamed
 * non-readable region right after a readable one extends its limit). */
static int collect(struct finder *f)
{
	const struct image *img = f->img;
	for (size_t i = 0; i < img->region_count; i++) {
		const struct img_region *r = &img->regions[i];
		const char *inner;
		size_t len;
		enum space_kind k = kind_of_mapping(r->name, &inner, &len);
		bool named = len > 0;
		struct cand *prev = f->n ? &f->c[f->n - 1] : NULL;
		bool same_name = prev && prev->limit == r->start &&
				 !strcmp(prev->r->name ? prev->r->name : "", r->name ? r->name : "");
		if (prev && same_name && (named ? groups(k) : !readable(r)) &&
		    (readable(r) ? prev->end == prev->limit : true)) {
			if (readable(r))
				prev->end = r->end;
			prev->limit = r->end;
			continue;
		}
		if (!named && !readable(r))
			continue;
		struct cand *c = add_cand(f);
		if (!c)
			return nomem(f->e);
		c->kind = named ? k : SPACE_KIND_COUNT;
		c->begin = r->start;
		c->end = readable(r) ? r->end : r->start;
		c->limit = r->end;
		c->r = r;
		c->name = named ? keep(f, inner, len) : "";
		c->how = named ? "name" : "content";
		c->detail = "";
		if (!c->name)
			return nomem(f->e);
	}
	return 0;
}

static bool read_u32(const struct image *img, uint64_t va, uint32_t *v)
{
	uint8_t b[4];
	if (!img_peek(img, va, b, 4))
		return false;
	*v = ld_u32le(b);
	return true;
}

/* An object header at va: its class's class is a class whose class is itself
 * (every class's class is java.lang.Class). */
static bool object_at(const struct image *img, uint64_t va)
{
	uint32_t k, kk, kkk;
	if (!read_u32(img, va, &k) || k == 0 || (k & 7) || !read_u32(img, k, &kk) || kk == 0 ||
	    (kk & 7) || !read_u32(img, kk, &kkk))
		return false;
	return kkk == kk;
}

static bool low_heap_cand(const struct cand *c)
{
	return c->kind == SPACE_KIND_COUNT && !c->name[0] && c->r->data && c->begin < SP_LOW_LIMIT &&
	       c->end <= SP_LOW_LIMIT && c->begin % SP_PAGE == 0;
}

enum { PAIR_MIN_SOUND = 4 };

/* Score of a page map for a RosAlloc space candidate: validated used pages, -1 if it
 * cannot describe it. */
static long pair_score(const struct finder *f, const struct cand *s, const struct cand *pm)
{
	size_t n, pages = (size_t)((s->end - s->begin) / SP_PAGE);
	const uint8_t *p = cand_data(pm, &n);
	long score = 0, bad = 0;

	if (!p || pm->used_pages > pages || pm->used_pages == 0)
		return -1;
	if (s->limit > s->end) { /* capacity known: page map size = RoundUp(capacity / 4096, 4096) */
		uint64_t want = ((s->limit - s->begin) / SP_PAGE + SP_PAGE - 1) / SP_PAGE * SP_PAGE;
		if (want != (uint64_t)(pm->limit - pm->begin))
			return -1;
	}
	struct img_drop drop = { 0 };
	for (size_t i = 0; i < pm->used_pages && i < n; i++) {
		uint64_t va = s->begin + (uint64_t)i * SP_PAGE;
		img_drop_behind(f->img, &drop, va);   /* a run header per page: pages in order */
		enum space_page_start k = f->pr->page_start(p[i]);
		uint8_t h[4];
		bool ok = k == SPACE_PAGE_RUN ? img_peek(f->img, va, h, 4) && f->pr->run_header(h, sizeof(h))
			: k == SPACE_PAGE_LARGE ? object_at(f->img, va) : true;
		if (k != SPACE_PAGE_OTHER)
			*(ok ? &score : &bad) += 1;
	}
	/* one damaged word spoils at most one run header: it does not refute a page map whose
	 * other runs (at least PAIR_MIN_SOUND of them) check out; the walker reports it */
	return bad == 0 || (bad == 1 && score >= PAIR_MIN_SOUND) ? score : -1;
}

/* The page-map probe over the n bytes p of region r, leaving its leading and trailing holes
 * of the input unread: zero bytes are pages not in use, which the probe accepts and does not
 * count, and a part byte just after a leading hole is refused by either call (the byte
 * before it is zero).  Holes inside are read.  At most the region's data runs steps. */
static bool probe_page_map_data(const struct finder *f, const struct img_region *r, const uint8_t *p, size_t n,
				bool named, size_t *used)
{
	uint64_t lo, hi, first, last;

	*used = 0;
	if (!img_next_data(f->img, r->start, r->start + n, &lo, &hi))
		return true;   /* all hole: no page in use */
	first = lo - r->start;
	do
		last = hi - r->start;
	while (hi < r->start + n && img_next_data(f->img, hi, r->start + n, &lo, &hi));
	/* a mapping named as a page map is one: one damaged word of it (the walker reports
	 * its bytes) does not refute it */
	if (!f->pr->page_map(p + first, (size_t)(last - first), used) &&
	    !(named && f->pr->page_map_one_word(p + first, (size_t)(last - first), used)))
		return false;
	if (*used)
		*used += (size_t)first;
	return true;
}

static void pair_page_maps(struct finder *f)
{
	for (size_t i = 0; i < f->n; i++) {
		struct cand *pm = &f->c[i];
		size_t n;
		const uint8_t *p = cand_data(pm, &n);
		if (!p || (pm->kind != SPACE_ROSALLOC_PAGE_MAP && pm->kind != SPACE_KIND_COUNT))
			continue;
		if (pm->kind == SPACE_KIND_COUNT && (n % SP_PAGE || pm->begin % SP_PAGE))
			continue;
		if (!probe_page_map_data(f, pm->r, p, n, pm->kind == SPACE_ROSALLOC_PAGE_MAP, &pm->used_pages))
			continue;
		long best = -1;
		struct cand *bs = NULL;
		for (size_t j = 0; j < f->n; j++) {
			struct cand *s = &f->c[j];
			if (s->companion || (s->kind != SPACE_ROSALLOC && !low_heap_cand(s)))
				continue;
			long sc = pair_score(f, s, pm);
			if (sc > best) {
				best = sc;
				bs = s;
			}
		}
		if (!bs)
			continue;
		if (pm->kind == SPACE_KIND_COUNT) {
			pm->kind = SPACE_ROSALLOC_PAGE_MAP;
			pm->detail = "page-map bytes describing a space";
		}
		if (bs->kind == SPACE_KIND_COUNT) {
			bs->kind = SPACE_ROSALLOC;
			bs->limit = bs->begin + (uint64_t)(pm->limit - pm->begin) * SP_PAGE;
		}
		bs->companion = pm->begin;
		pm->companion = bs->begin;
		pm->paired = true;
		bs->detail = keepf(f, "page map at 0x%llx: %zu pages in use, %ld runs/large objects checked",
				   (unsigned long long)pm->begin, pm->used_pages, best);
	}
}

/* Named "main space" mappings left without a page map: an empty twin, a dlmalloc
 * space, or a bump-pointer space. */
static void settle_main_spaces(struct finder *f)
{
	for (size_t i = 0; i < f->n; i++) {
		struct cand *s = &f->c[i];
		size_t n;
		const uint8_t *p = cand_data(s, &n);
		if (s->kind != SPACE_ROSALLOC || s->companion)
			continue;
		if (!p || all_zero(f->img, s->begin, p, n)) {
			s->backup = true;
			s->detail = "no objects, no page map in use (inactive twin)";
		} else if (f->pr->dlmalloc(p, n, s->begin, f->ps)) {
			s->kind = SPACE_DLMALLOC;
			s->detail = "dlmalloc header";
		} else {
			s->kind = SPACE_BUMP_POINTER;
			s->detail = "no page map, no dlmalloc header";
		}
	}
}

static bool region_layout(const struct finder *f, const struct cand *c, size_t *objects)
{
	uint64_t len = c->end - c->begin;
	size_t n = 0;
	if (c->begin % SP_REGION || len % SP_REGION || len < 2 * SP_REGION)
		return false;
	for (uint64_t va = c->begin; va < c->end; va += SP_REGION)
		if (object_at(f->img, va))
			n++;
	*objects = n;
	return n >= 2;
}

/* Unnamed regions with a self-describing header: image spaces and dlmalloc spaces. */
static void classify_headers(struct finder *f)
{
	for (size_t i = 0; i < f->n; i++) {
		struct cand *c = &f->c[i];
		size_t n;
		const uint8_t *p = cand_data(c, &n);
		if (!low_heap_cand(c))
			continue;
		if (spaces_probe_image_header(p, n, c->begin)) {
			c->kind = SPACE_IMAGE;
			c->detail = "image header whose image_begin is its address";
		} else if (f->pr->dlmalloc(p, n, c->begin, f->ps)) {
			c->kind = SPACE_DLMALLOC;
			c->detail = "dlmalloc header (malloc_state.least_addr = base)";
		}
	}
}

/* Unnamed regions that start with a DEX header (a DEX extracted into anonymous memory). */
static void classify_dex(struct finder *f)
{
	for (size_t i = 0; i < f->n; i++) {
		struct cand *c = &f->c[i];
		size_t n;
		const uint8_t *p = cand_data(c, &n);
		if (c->kind != SPACE_KIND_COUNT || c->name[0] || !p || n < 8)
			continue;
		if ((!memcmp(p, "dex\n", 4) && p[7] == 0) || !memcmp(p, "cdex", 4)) {
			c->kind = SPACE_DEX_IN_MEMORY;
			c->detail = "DEX header at the start";
		}
	}
}

/* Unnamed regions laid out as a region space (after RosAlloc pairing took its spaces). */
static void classify_regions(struct finder *f)
{
	for (size_t i = 0; i < f->n; i++) {
		struct cand *c = &f->c[i];
		size_t objs;
		if (!low_heap_cand(c) || !region_layout(f, c, &objs))
			continue;
		c->kind = SPACE_REGION;
		c->detail = keepf(f, "256 KiB regions, %zu of %llu start with an object", objs,
				  (unsigned long long)((c->end - c->begin) / SP_REGION));
	}
}

static void pair_los_info(struct finder *f)
{
	for (size_t i = 0; i < f->n; i++) {
		struct cand *m = &f->c[i];
		size_t n;
		const uint8_t *p = cand_data(m, &n);
		if (!p || (m->kind != SPACE_LOS_INFO_MAP && m->kind != SPACE_KIND_COUNT))
			continue;
		for (size_t j = 0; j < f->n; j++) {
			struct cand *s = &f->c[j];
			if (s == m || s->companion || (s->kind != SPACE_LOS_FREELIST && !low_heap_cand(s)))
				continue;
			/* a map and a space both named so are a pair even when one damaged entry
			 * breaks the walk of the entries: the walker reads that block by its object */
			bool named = m->kind == SPACE_LOS_INFO_MAP && s->kind == SPACE_LOS_FREELIST;
			if (!f->pr->los_info(p, n, (size_t)((s->end - s->begin) / SP_PAGE)) && !named)
				continue;
			if (s->kind == SPACE_KIND_COUNT && !object_at(f->img, s->begin))
				continue;
			if (m->kind == SPACE_KIND_COUNT) {
				m->kind = SPACE_LOS_INFO_MAP;
				m->detail = "allocation-info entries walking a space";
			}
			if (s->kind == SPACE_KIND_COUNT) {
				s->kind = SPACE_LOS_FREELIST;
				s->detail = keepf(f, "allocation-info map at 0x%llx", (unsigned long long)m->begin);
			}
			s->companion = m->begin;
			m->companion = s->begin;
			break;
		}
	}
}

static void classify_los_allocations(struct finder *f)
{
	for (size_t i = 0; i < f->n; i++) {
		struct cand *c = &f->c[i];
		if (!low_heap_cand(c) || c->end - c->begin < SP_LOS_MIN || !object_at(f->img, c->begin))
			continue;
		c->kind = SPACE_LOS_ALLOCATION;
		c->detail = "one object at the mapping start";
	}
}

/* End of an image's objects section (the parsed header's objects_end: sections[0] from
 * offset 0, or image_size where the family has no section table, runtime/image.h). */
static void image_objects_end(const struct finder *f, struct cand *c)
{
	struct art_image_header h;
	struct err why;

	err_init(&why);
	/* a damaged version: the header's other fields choose its row (the version anomaly is the
	 * runtime model's) */
	if (art_image_header_at(&h, f->img, c->begin, &why) != 0 &&
	    art_image_header_by_fields(&h, f->img, c->begin, &why) != 0)
		return;   /* the space keeps its mapping end */
	uint64_t end = c->begin + h.objects_end;
	if (end > c->begin && end <= c->end)
		c->objects_end = end;
}

static int emit(struct finder *f, const struct cand *c)
{
	struct art_spaces *s = f->out;
	if (XALLOC_GROW(s->v, s->cap, s->count + 1, 32))
		return nomem(f->e);
	struct art_space *o = &s->v[s->count++];
	memset(o, 0, sizeof(*o));
	o->kind = c->kind;
	o->begin = c->begin;
	o->end = c->end;
	o->limit = c->limit;
	o->name = c->name;
	o->how = c->how;
	o->detail = c->detail ? c->detail : "";
	o->backup = c->backup;
	o->companion = c->companion;
	o->objects_end = c->objects_end;
	return 0;
}

/* One LargeObjectMapSpace spanning every allocation (LargeObjectMapSpace::Begin/End). */
static int emit_los_map(struct finder *f)
{
	struct cand agg = { .kind = SPACE_LOS_MAP, .name = "large object space allocation", .how = "",
			    .detail = "" };
	size_t count = 0;
	bool by_name = false;
	for (size_t i = 0; i < f->n; i++) {
		const struct cand *c = &f->c[i];
		if (c->kind != SPACE_LOS_ALLOCATION)
			continue;
		if (!count || c->begin < agg.begin)
			agg.begin = c->begin;
		if (!count || c->limit > agg.limit)
			agg.end = agg.limit = c->limit;
		by_name |= !strcmp(c->how, "name");
		count++;
	}
	if (!count)
		return 0;
	agg.how = by_name ? "name" : "content";
	if (!by_name)
		agg.name = "";
	agg.detail = keepf(f, "%zu allocation%s", count, count == 1 ? "" : "s");
	if (!agg.detail)
		return nomem(f->e);
	int rc = emit(f, &agg);
	if (rc == 0)
		f->out->v[f->out->count - 1].count = count;
	return rc;
}

static int by_begin(const void *a, const void *b)
{
	const struct art_space *x = a, *y = b;
	if (x->begin != y->begin)
		return x->begin < y->begin ? -1 : 1;
	return x->kind < y->kind ? -1 : x->kind > y->kind;
}

int spaces_find(struct art_spaces *s, const struct image *img, unsigned pointer_size,
		const struct space_probes *probes, struct err *e)
{
	struct finder f = { .img = img, .ps = pointer_size, .pr = probes, .out = s, .e = e };
	int rc;

	memset(s, 0, sizeof(*s));
	arena_init(&s->strings);
	if (!probes || !probes->page_map || !probes->page_start || !probes->run_header || !probes->dlmalloc ||
	    !probes->los_info)
		return ERR_SET(e, ERR_INTERNAL, ERR_NO_VA,
			       "spaces_find: no allocator probes (pass rosalloc/probe/probe.h probe_spaces)");
	rc = collect(&f);
	if (rc == 0) {
		classify_headers(&f);
		pair_page_maps(&f);
		settle_main_spaces(&f);
		pair_los_info(&f);
		classify_regions(&f);
		classify_dex(&f);
		classify_los_allocations(&f);
	}
	for (size_t i = 0; rc == 0 && i < f.n; i++) {
		if (f.c[i].kind == SPACE_IMAGE)
			image_objects_end(&f, &f.c[i]);
		if (f.c[i].kind != SPACE_KIND_COUNT)
			rc = emit(&f, &f.c[i]);
	}
	if (rc == 0)
		rc = emit_los_map(&f);
	img_drop(img, 0, UINT64_MAX);   /* what the probes read: the carving passes read in order */
	xfree(f.c);
	if (rc == 0 && s->count > 1) /* qsort's base must not be NULL, even for 0 elements */
		qsort(s->v, s->count, sizeof(s->v[0]), by_begin);
	if (rc == 0 && !arena_alloc(&s->strings, 1))
		rc = nomem(e);
	if (rc)
		spaces_release(s);
	return rc;
}

void spaces_release(struct art_spaces *s)
{
	xfree(s->v);
	arena_release(&s->strings);
	memset(s, 0, sizeof(*s));
}

const struct art_space *spaces_at(const struct art_spaces *s, uint64_t va)
{
	for (size_t i = 0; i < s->count; i++) {
		const struct art_space *sp = &s->v[i];
		if (spaces_holds_objects(sp->kind) && sp->kind != SPACE_LOS_MAP && va >= sp->begin &&
		    va < sp->end)
			return sp;
	}
	return NULL;
}
