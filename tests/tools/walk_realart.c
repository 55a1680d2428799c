/* walk_realart.c - test tool: the space walkers against the runtime's own view of a real
 * capture.
 *   usage: walk_realart CORE MAPS ART_DUMP HPROF
 * ART_DUMP is the capture's art-dump.txt: RosAlloc::DumpPageMap (CMS) and/or
 * RegionSpace::DumpNonFreeRegions (CC) of the same moment; HPROF is the runtime's heap dump.
 * Compares
 *   - run by run: every "[page]=Run (start) idx=I numOfPages=N is_thread_local=T
 *     is_all_free=F" with the walker's run unit at that page (bracket, pages, thread-local,
 *     no allocated slot); every "Large (start)" with a page-level unit; the walker's runs
 *     and large units that the dump does not list;
 *   - region by region: state (Allocated / Large / LargeTail), and for regions that are no
 *     TLAB objects_allocated = the walker's objects and top = the end of the last object
 *     (ART's top may be the region end when the rest is unused); walked non-free regions the
 *     dump does not list;
 *   - object by object: every real HPROF object (not ART's synthetic records: ids off the
 *     8-byte grid, a String's character array at the string + 16/24/8) is an allocated
 *     candidate; every allocated candidate is an HPROF object or a retired Class
 *     (its class is java.lang.Class and the runtime model lists no class there: ART's HPROF
 *     leaves retired classes out); no free candidate is an HPROF object.
 * Prints one "check NAME: ok|FAIL ..." line per comparison with its figures, the first
 * mismatches, and "summary ..." lines; exit 0 when every check holds, 1 otherwise, 2 usage. */
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "art/runtime/runtime.h"
#include "carver/base/anomaly.h"
#include "carver/base/mapfile.h"
#include "carver/base/xalloc.h"
#include "carver/image/image.h"
#include "output/hprof/hprof_reader.h"
#include "rosalloc/probe/probe.h"
#include "rosalloc/walk/walk.h"

struct vec { uint64_t *v; size_t n, cap; };

static int vpush(struct vec *a, uint64_t x)
{
	if (XALLOC_GROW(a->v, a->cap, a->n + 1, 4096))
		return -1;
	a->v[a->n++] = x;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void vsort(struct vec *a) { qsort(a->v, a->n, sizeof(a->v[0]), cmp_u64); }

static bool vhas(const struct vec *a, uint64_t x) { return bsearch(&x, a->v, a->n, sizeof(x), cmp_u64) != NULL; }

/* ---- the walk ---- */

#define MAX_UNITS 200000

struct walked {
	struct vec alloc, freec;      /* candidate addresses */
	struct vec jlc_alloc;         /* allocated candidates whose class word is java.lang.Class */
	struct walk_unit *u;
	size_t nu;
	const struct art_runtime *rt;
	uint64_t slots_alloc, slots_free;
};

static int on_cand(void *arg, const struct walk_candidate *c, struct err *e)
{
	struct walked *w = arg;
	uint8_t b[4];
	(void)e;
	if (c->place == WALK_ROSALLOC_SLOT && c->alloc == WALK_ALLOCATED)
		w->slots_alloc++;
	else if (c->place == WALK_ROSALLOC_SLOT)
		w->slots_free++;
	if (c->alloc != WALK_ALLOCATED)
		return vpush(&w->freec, c->addr) ? -ERR_NOMEM : 0;
	if (img_read(w->rt->img, c->addr, b, 4, NULL) == 0 &&
	    (uint64_t)(b[0] | b[1] << 8 | b[2] << 16 | (uint32_t)b[3] << 24) == w->rt->java_lang_class &&
	    vpush(&w->jlc_alloc, c->addr))
		return -ERR_NOMEM;
	return vpush(&w->alloc, c->addr) ? -ERR_NOMEM : 0;
}

static int on_unit(void *arg, const struct walk_unit *u, struct err *e)
{
	struct walked *w = arg;
	(void)e;
	if (w->nu < MAX_UNITS)
		w->u[w->nu++] = *u;
	return 0;
}

/* ---- the HPROF ---- */

struct hp {
	struct vec ids, strings, prim;  /* every id; String instances; primitive arrays */
	uint64_t jls;                   /* class id of java.lang.String */
};

static int hprof_read(const char *path, struct hp *h, struct err *e)
{
	struct mapfile m;
	struct hprof_reader r;
	struct hprof_record rec;
	struct vec names = { 0 };       /* string ids named "java.lang.String" */
	int rc;

	if ((rc = mapfile_open(&m, path, e)) || (rc = hprof_reader_init(&r, m.data, m.len, path, e)))
		return rc;
	while ((rc = hprof_next(&r, &rec, e)) == 1) {
		if (rec.tag == HPROF_STRING) {
			struct hprof_string s;
			if ((rc = hprof_string_parse(&rec, r.id_size, &s, e)))
				break;
			if (s.len == 16 && !memcmp(s.text, "java.lang.String", 16) && vpush(&names, s.id))
				rc = -ERR_NOMEM;
		} else if (rec.tag == HPROF_LOAD_CLASS) {
			struct hprof_load_class lc;
			if ((rc = hprof_load_class_parse(&rec, r.id_size, &lc, e)))
				break;
			for (size_t i = 0; i < names.n; i++)
				if (names.v[i] == lc.name_id)
					h->jls = lc.class_id;
		} else if (rec.tag == HPROF_HEAP_DUMP || rec.tag == HPROF_HEAP_DUMP_SEGMENT) {
			struct hprof_sub sub;
			while ((rc = hprof_next_sub(&rec.body, r.id_size, &sub, e)) == 1) {
				uint64_t id = 0;
				if (sub.tag == HPROF_CLASS_DUMP) {
					struct hprof_class_dump cd;
					if ((rc = hprof_class_dump_parse(&sub, r.id_size, &cd, e)))
						break;
					id = cd.class_id;
				} else if (sub.tag == HPROF_INSTANCE_DUMP) {
					struct hprof_instance in;
					if ((rc = hprof_instance_parse(&sub, r.id_size, &in, e)))
						break;
					id = in.id;
					if (in.class_id == h->jls && h->jls && vpush(&h->strings, id))
						return -ERR_NOMEM;
				} else if (sub.tag == HPROF_OBJ_ARRAY_DUMP) {
					struct hprof_obj_array oa;
					if ((rc = hprof_obj_array_parse(&sub, r.id_size, &oa, e)))
						break;
					id = oa.id;
				} else if (sub.tag == HPROF_PRIM_ARRAY_DUMP || sub.tag == HPROF_PRIM_ARRAY_NODATA) {
					struct hprof_prim_array pa;
					if ((rc = hprof_prim_array_parse(&sub, r.id_size, &pa, e)))
						break;
					id = pa.id;
					if (vpush(&h->prim, id))
						return -ERR_NOMEM;
				} else {
					continue;
				}
				if (vpush(&h->ids, id))
					return -ERR_NOMEM;
			}
			if (rc < 0)
				break;
		}
	}
	xfree(names.v);
	mapfile_close(&m);
	return rc < 0 ? rc : 0;
}

/* ---- art-dump.txt ---- */

struct drun { uint64_t page, idx, pages, tl, all_free; };
struct dreg { uint64_t idx, begin, top, end, objects; char state[16]; bool tlab; };

struct dump {
	struct drun *runs;
	size_t nruns;
	struct vec large;               /* pages of "Large (start)" */
	struct dreg *regs;
	size_t nregs;
	uint64_t rosalloc_base;
	bool has_pagemap, has_regions;
};

/* A number in the stream's current base (DumpPageMap switches to hex for good after the
 * first "curr_fpr=0x" line: std::hex is sticky). */
static uint64_t num(const char *s, bool hex) { return strtoull(s, NULL, hex ? 16 : 10); }

static int dump_read(const char *path, struct dump *d)
{
	FILE *fp = fopen(path, "r");
	char line[512];
	bool in_pm = false, in_reg = false, hex = false;
	size_t rcap = 0, gcap = 0;

	if (!fp)
		return -1;
	while (fgets(line, sizeof(line), fp)) {
		if (!strncmp(line, "== ", 3)) {
			in_pm = strstr(line, "rosalloc page map") != NULL;
			in_reg = strstr(line, "== regions") != NULL;
			hex = false;
			const char *b = strstr(line, "base=0x");
			if (in_pm && b && !d->rosalloc_base) {
				d->rosalloc_base = strtoull(b + 7, NULL, 16);
				d->has_pagemap = true;
			}
			d->has_regions |= in_reg;
			continue;
		}
		if (in_pm && !strncmp(line, "curr_fpr=0x", 11)) {
			hex = true;
			continue;
		}
		if (in_pm && line[0] == '[') {
			uint64_t page = num(line + 1, hex);
			const char *eq = strchr(line, '=');
			if (!eq)
				continue;
			if (!strncmp(eq + 1, "Run (start)", 11)) {
				if (XALLOC_GROW(d->runs, rcap, d->nruns + 1, 1024))
					return -1;
				struct drun *r = &d->runs[d->nruns++];
				r->page = page;
				r->idx = num(strstr(line, "idx=") + 4, hex);
				r->pages = num(strstr(line, "numOfPages=") + 11, hex);
				r->tl = num(strstr(line, "is_thread_local=") + 16, hex);
				r->all_free = num(strstr(line, "is_all_free=") + 12, hex);
			} else if (!strncmp(eq + 1, "Large (start)", 13) && vpush(&d->large, page)) {
				return -1;
			}
		}
		if (in_reg && !strncmp(line, "Region[", 7)) {
			if (XALLOC_GROW(d->regs, gcap, d->nregs + 1, 256))
				return -1;
			struct dreg *g = &d->regs[d->nregs++];
			memset(g, 0, sizeof(*g));
			g->idx = strtoull(line + 7, NULL, 10);
			const char *p = strchr(line, '=') + 1;
			char *q;
			g->begin = strtoull(p, &q, 16);
			g->top = strtoull(q + 1, &q, 16);
			g->end = strtoull(q + 1, &q, 16);
			const char *st = strstr(line, "state=RegionState");
			if (st)
				sscanf(st + 17, "%15[A-Za-z]", g->state);
			const char *oa = strstr(line, "objects_allocated=");
			g->objects = oa ? strtoull(oa + 18, NULL, 10) : 0;
			g->tlab = strstr(line, "is_a_tlab=true") != NULL;
		}
	}
	fclose(fp);
	return 0;
}

/* ---- comparisons ---- */

static int failures;

static void check(bool ok, const char *name, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void check(bool ok, const char *name, const char *fmt, ...)
{
	va_list ap;
	printf("check %s: %s ", name, ok ? "ok" : "FAIL");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	failures += !ok;
}

static const struct walk_unit *unit_at(const struct walked *w, enum walk_unit_kind k, uint64_t begin)
{
	/* a linear scan is enough for the corpus (a few thousand units) */
	for (size_t i = 0; i < w->nu; i++)
		if (w->u[i].kind == k && w->u[i].begin == begin)
			return &w->u[i];
	return NULL;
}

static void compare_runs(const struct walked *w, const struct dump *d)
{
	size_t matched = 0, shown = 0, wruns = 0, wlarge = 0, lmatched = 0;
	for (size_t i = 0; i < d->nruns; i++) {
		const struct drun *r = &d->runs[i];
		const struct walk_unit *u = unit_at(w, WALK_UNIT_RUN, d->rosalloc_base + r->page * 4096);
		bool ok = u && (uint64_t)u->bracket == r->idx && u->pages == r->pages && u->thread_local == (r->tl != 0) &&
			  (u->allocated == 0) == (r->all_free != 0);
		matched += ok;
		if (!ok && shown++ < 10)
			printf("  run mismatch: dump page %llu idx %llu pages %llu tl %llu all_free %llu; walk %s bracket %d "
			       "pages %u tl %d allocated %llu\n", (unsigned long long)r->page, (unsigned long long)r->idx,
			       (unsigned long long)r->pages, (unsigned long long)r->tl, (unsigned long long)r->all_free,
			       u ? "run" : "no run", u ? u->bracket : -1, u ? u->pages : 0, u ? u->thread_local : 0,
			       u ? (unsigned long long)u->allocated : 0);
	}
	for (size_t i = 0; i < d->large.n; i++)
		lmatched += unit_at(w, WALK_UNIT_LARGE, d->rosalloc_base + d->large.v[i] * 4096) != NULL;
	for (size_t i = 0; i < w->nu; i++) {
		if (w->u[i].space->begin != d->rosalloc_base)
			continue;
		wruns += w->u[i].kind == WALK_UNIT_RUN;
		wlarge += w->u[i].kind == WALK_UNIT_LARGE;
	}
	check(matched == d->nruns && wruns == d->nruns, "runs", "dump %zu, walk %zu, matched %zu (bracket, pages, "
	      "thread-local, all-free)", d->nruns, wruns, matched);
	check(lmatched == d->large.n && wlarge == d->large.n, "large", "dump %zu, walk %zu, matched %zu", d->large.n,
	      wlarge, lmatched);
	printf("summary rosalloc: runs %zu/%zu, large %zu/%zu, slots allocated %llu free %llu\n", matched, d->nruns,
	       lmatched, d->large.n, (unsigned long long)w->slots_alloc, (unsigned long long)w->slots_free);
}

static void compare_regions(const struct walked *w, const struct dump *d)
{
	size_t matched = 0, shown = 0, extra = 0, counted = 0;
	uint64_t rsize = 256 * 1024, base = d->nregs ? d->regs[0].begin - d->regs[0].idx * rsize : 0;
	for (size_t i = 0; i < d->nregs; i++) {
		const struct dreg *g = &d->regs[i];
		const struct walk_unit *u = NULL;
		bool tail = !strcmp(g->state, "LargeTail");
		/* a LargeTail region belongs to the Large unit that covers it */
		for (size_t k = 0; k < w->nu && !u; k++)
			if (w->u[k].kind == WALK_UNIT_REGION && w->u[k].begin <= g->begin && g->begin < w->u[k].end &&
			    w->u[k].space->begin == base)
				u = &w->u[k];
		bool ok = u != NULL;
		if (ok && tail)
			ok = u->state == WALK_RS_LARGE && u->begin < g->begin;
		else if (ok && !strcmp(g->state, "Large"))
			ok = u->state == WALK_RS_LARGE && u->begin == g->begin;
		else if (ok)
			ok = u->state == WALK_RS_ALLOCATED;
		if (ok && !g->tlab && !tail && strcmp(g->state, "Large")) {
			counted++;
			ok = u->allocated == g->objects && (u->top == g->top || (g->top == g->end && u->top <= g->end));
		}
		matched += ok;
		if (!ok && shown++ < 10)
			printf("  region mismatch: dump %llu %s top 0x%llx objects %llu tlab %d; walk %s top 0x%llx objects %llu\n",
			       (unsigned long long)g->idx, g->state, (unsigned long long)g->top, (unsigned long long)g->objects,
			       g->tlab, u ? walk_region_state_name(u->state) : "none", u ? (unsigned long long)u->top : 0,
			       u ? (unsigned long long)u->allocated : 0);
	}
	for (size_t k = 0; k < w->nu; k++) {
		const struct walk_unit *u = &w->u[k];
		if (u->kind != WALK_UNIT_REGION || u->state == WALK_RS_FREE || u->space->begin != base)
			continue;
		bool listed = false;
		for (size_t i = 0; i < d->nregs && !listed; i++)
			listed = d->regs[i].begin == u->begin;
		extra += !listed;
	}
	check(matched == d->nregs, "regions", "dump %zu non-free regions, matched %zu (state; objects and top in %zu "
	      "regions that are no TLAB)", d->nregs, matched, counted);
	check(extra == 0, "regions-unlisted", "%zu walked non-free regions the dump does not list", extra);
	printf("summary regions: %zu/%zu matched, %zu with objects and top compared\n", matched, d->nregs, counted);
}

/* Length of the String at va (count_ >> 1 when compressible), 0 when unreadable. */
static uint32_t string_length(const struct art_runtime *rt, uint64_t va)
{
	uint8_t b[4];
	if (img_read(rt->img, va + rt->layout->string.count, b, 4, NULL))
		return 0;
	uint32_t count = b[0] | b[1] << 8 | b[2] << 16 | (uint32_t)b[3] << 24;
	return rt->layout->string.compressible ? count >> 1 : count;
}

static void compare_objects(const struct walked *w, struct hp *h)
{
	struct vec real = { 0 };
	size_t synthetic = 0, missing = 0, extra = 0, retired = 0, freehit = 0, shown = 0;
	vsort(&h->ids);
	vsort(&h->strings);
	for (size_t i = 0; i < h->ids.n; i++) {
		uint64_t id = h->ids.v[i];
		bool syn = id % 8 != 0;
		/* hprof.cc: a String's chars are dumped as an array with the id of its value (the
		 * string + 16), or of the string + 8 when it is empty: inside the String either way */
		if (!syn && vhas(&h->prim, id))
			syn = (id >= 8 && vhas(&h->strings, id - 8)) ||
			      (id >= 16 && vhas(&h->strings, id - 16) && string_length(w->rt, id - 16) > 0);
		if (syn)
			synthetic++;
		else if (vpush(&real, id))
			return;
	}
	for (size_t i = 0; i < real.n; i++)
		if (!vhas(&w->alloc, real.v[i]) && shown++ < 10)
			printf("  HPROF object 0x%llx is no allocated candidate\n", (unsigned long long)real.v[i]);
	for (size_t i = 0; i < real.n; i++)
		missing += !vhas(&w->alloc, real.v[i]);
	for (size_t i = 0; i < w->alloc.n; i++) {
		uint64_t a = w->alloc.v[i];
		if (vhas(&real, a))
			continue;
		if (vhas(&w->jlc_alloc, a) && !runtime_class_at(w->rt, a)) {
			retired++;
			continue;
		}
		if (extra++ < 10)
			printf("  allocated candidate 0x%llx is no HPROF object\n", (unsigned long long)a);
	}
	for (size_t i = 0; i < w->freec.n; i++)
		freehit += vhas(&real, w->freec.v[i]);
	check(missing == 0, "hprof-objects", "%zu real HPROF objects (%zu synthetic records left out), %zu not found "
	      "as allocated candidates", real.n, synthetic, missing);
	check(extra == 0, "allocated-candidates", "%zu allocated candidates: %zu HPROF objects, %zu retired classes, "
	      "%zu other", w->alloc.n, w->alloc.n - extra - retired, retired, extra);
	check(freehit == 0, "free-candidates", "%zu free candidates, %zu of them HPROF objects", w->freec.n, freehit);
	printf("summary objects: hprof %zu, allocated %zu, retired %zu, free %zu\n", real.n, w->alloc.n, retired,
	       w->freec.n);
	xfree(real.v);
}

int main(int argc, char **argv)
{
	struct img_open_opts io = { NULL };
	struct runtime_opts ro = { .probes = &probe_spaces };
	struct image img;
	struct art_runtime rt;
	struct anomaly_sink sink;
	struct walked w = { 0 };
	struct hp h = { 0 };
	struct dump d = { 0 };
	struct err e;

	if (argc != 5) {
		fprintf(stderr, "usage: walk_realart CORE MAPS ART_DUMP HPROF\n");
		return 2;
	}
	err_init(&e);
	io.maps_path = argv[2];
	if (img_open(&img, argv[1], &io, &e) || runtime_open(&rt, &img, &ro, &e)) {
		fprintf(stderr, "walk_realart: %s\n", e.msg);
		return 1;
	}
	anomaly_init(&sink, 0);
	w.rt = &rt;
	if (!(w.u = xcalloc(MAX_UNITS, sizeof(*w.u))))
		return 1;
	struct walk_ctx ctx = { .rt = &rt, .sink = &sink, .emit = on_cand, .arg = &w, .unit = on_unit, .unit_arg = &w };
	if (walk_all(&ctx, &e) || hprof_read(argv[4], &h, &e) || dump_read(argv[3], &d)) {
		fprintf(stderr, "walk_realart: %s\n", e.msg[0] ? e.msg : "cannot read the ART dump");
		return 1;
	}
	vsort(&w.alloc);
	vsort(&w.freec);
	vsort(&w.jlc_alloc);
	vsort(&h.prim);
	if (d.has_pagemap)
		compare_runs(&w, &d);
	if (d.has_regions)
		compare_regions(&w, &d);
	check(d.has_pagemap || d.has_regions, "art-dump", "page map %s, region table %s", d.has_pagemap ? "yes" : "no",
	      d.has_regions ? "yes" : "no");
	compare_objects(&w, &h);
	check(sink.total == 0, "anomalies", "%llu recorded", (unsigned long long)sink.total);
	for (size_t i = 0; i < sink.count && i < 10; i++)
		printf("  anomaly %s 0x%llx %s\n", anomaly_code_name(sink.v[i].code), (unsigned long long)sink.v[i].va,
		       sink.v[i].msg);
	anomaly_release(&sink);
	xfree(w.u);
	xfree(w.alloc.v);
	xfree(w.freec.v);
	xfree(w.jlc_alloc.v);
	xfree(h.ids.v);
	xfree(h.strings.v);
	xfree(h.prim.v);
	xfree(d.runs);
	xfree(d.regs);
	xfree(d.large.v);
	runtime_close(&rt);
	img_close(&img);
	return failures ? 1 : 0;
}
