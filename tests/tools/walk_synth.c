/* walk_synth.c - test tool: the space walkers against a synthetic image's truth.
 *   usage: walk_synth DIR        (DIR from build/synth: core, maps, truth.jsonl)
 * Every truth object (truth.jsonl: addr, where = the generator's allocator detail, alloc)
 * must be a candidate at its address with the state the allocator's metadata gives it:
 *   run, thread-local-run, pages, chunk, los-map, los-freelist: the truth's own state
 *     (RosAlloc bitmaps / free lists, dlmalloc CINUSE, the LOS allocation-info free flag);
 *   region, tlab, large-region, bump, image: allocated;
 *   pages, free: no candidate (FreePages zeroes the pages and the page map calls them
 *     free: nothing is left to carve) or a free slot of a run that took the pages since;
 *   unevacuated-region: allocated when live; a dead one is poisoned (10+: no candidate) or,
 *     before 10, still inside the region's top: an allocated candidate (the generator
 *     writes no region-space live bitmap, the only metadata that would tell).
 * A freed object whose address a later truth object took (the slot was reused) is not
 * compared: the new object is.  And every allocated candidate must be a truth object.  Prints the
 * counts and the first mismatches; exit 0 when all hold, 1 otherwise, 2 usage. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "art/runtime/runtime.h"
#include "carver/base/anomaly.h"
#include "carver/base/xalloc.h"
#include "carver/image/image.h"
#include "rosalloc/probe/probe.h"
#include "rosalloc/walk/walk.h"

struct tobj { uint64_t addr; char where[24]; bool free; };
struct cand { uint64_t addr; uint8_t alloc, place; };

struct st {
	struct cand *c;
	size_t nc, cap;
};

static int on_cand(void *arg, const struct walk_candidate *c, struct err *e)
{
	struct st *s = arg;
	(void)e;
	if (XALLOC_GROW(s->c, s->cap, s->nc + 1, 4096))
		return -ERR_NOMEM;
	s->c[s->nc++] = (struct cand){ c->addr, (uint8_t)c->alloc, (uint8_t)c->place };
	return 0;
}

static int by_addr(const void *a, const void *b)
{
	uint64_t x = ((const struct cand *)a)->addr, y = ((const struct cand *)b)->addr;
	return x < y ? -1 : x > y;
}

static const struct cand *find(const struct st *s, uint64_t addr)
{
	struct cand key = { addr, 0, 0 };
	return bsearch(&key, s->c, s->nc, sizeof(key), by_addr);
}

/* The first "key":"value" string of a line. */
static bool field(const char *line, const char *key, char *out, size_t cap)
{
	char pat[32];
	snprintf(pat, sizeof(pat), "\"%s\":\"", key);
	const char *p = strstr(line, pat);
	if (!p)
		return false;
	p += strlen(pat);
	size_t n = strcspn(p, "\"");
	if (n >= cap)
		return false;
	memcpy(out, p, n);
	out[n] = 0;
	return true;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* kPoisonDeadObjectsInUnevacuatedRegions: true in 10-13, kIsDebugBuild from 14
 * (runtime/gc/space/region_space.cc @R10, @R11, @R12S, @R13T, @R14U) */
static bool family_poisons(const char *f)
{
	return !strcmp(f, "10") || !strcmp(f, "11") || !strcmp(f, "12") || !strcmp(f, "13");
}

int main(int argc, char **argv)
{
	char path[4096], maps[4096];
	struct img_open_opts io = { NULL };
	struct runtime_opts ro = { .probes = &probe_spaces };
	struct image img;
	struct art_runtime rt;
	struct anomaly_sink sink;
	struct st s = { 0 };
	struct err e;
	size_t truth = 0, matched = 0, bad = 0, extra = 0, tfree = 0, unev_dead = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: walk_synth DIR\n");
		return 2;
	}
	err_init(&e);
	snprintf(path, sizeof(path), "%s/core", argv[1]);
	snprintf(maps, sizeof(maps), "%s/maps", argv[1]);
	io.maps_path = maps;
	if (img_open(&img, path, &io, &e) || runtime_open(&rt, &img, &ro, &e)) {
		fprintf(stderr, "walk_synth: %s\n", e.msg);
		return 1;
	}
	anomaly_init(&sink, 0);
	struct walk_ctx ctx = { .rt = &rt, .sink = &sink, .emit = on_cand, .arg = &s };
	if (walk_all(&ctx, &e)) {
		fprintf(stderr, "walk_synth: %s\n", e.msg);
		return 1;
	}
	qsort(s.c, s.nc, sizeof(s.c[0]), by_addr);
	bool *seen = xcalloc(s.nc ? s.nc : 1, 1);
	snprintf(path, sizeof(path), "%s/truth.jsonl", argv[1]);
	FILE *fp = fopen(path, "r");
	if (!fp || !seen) {
		fprintf(stderr, "walk_synth: cannot read %s\n", path);
		return 1;
	}
	size_t lcap = 1 << 16, nalloc = 0, acap = 0, reused = 0;
	char *line = xmalloc(lcap);
	uint64_t *allocs = NULL;
	ssize_t len;
	while ((len = getline(&line, &lcap, fp)) > 0) {   /* pass 1: allocated addresses */
		char a[32], alloc[16];
		if (!field(line, "addr", a, sizeof(a)) || !field(line, "alloc", alloc, sizeof(alloc)) ||
		    strcmp(alloc, "allocated"))
			continue;
		if (XALLOC_GROW(allocs, acap, nalloc + 1, 4096))
			return 1;
		allocs[nalloc++] = strtoull(a, NULL, 16);
	}
	qsort(allocs, nalloc, sizeof(*allocs), cmp_u64);
	rewind(fp);
	while ((len = getline(&line, &lcap, fp)) > 0) {
		char a[32], where[24], alloc[16];
		if (!field(line, "addr", a, sizeof(a)) || !field(line, "where", where, sizeof(where)) ||
		    !field(line, "alloc", alloc, sizeof(alloc)))
			continue;
		uint64_t addr = strtoull(a, NULL, 16);
		bool isfree = !strcmp(alloc, "free");
		if (isfree && bsearch(&addr, allocs, nalloc, sizeof(addr), cmp_u64)) {
			reused++;
			continue;
		}
		truth++;
		tfree += isfree;
		const struct cand *c = find(&s, addr);
		int want = isfree ? WALK_FREE : WALK_ALLOCATED;     /* -1: no candidate */
		if (!strcmp(where, "unevacuated-region") && isfree) {
			unev_dead++;
			want = family_poisons(rt.layout->family) ? -1 : WALK_ALLOCATED;
		} else if (!strcmp(where, "region") || !strcmp(where, "tlab") || !strcmp(where, "large-region") ||
			   !strcmp(where, "bump") || !strcmp(where, "image") || !strcmp(where, "unevacuated-region")) {
			want = WALK_ALLOCATED;
		}
		if (c)
			seen[c - s.c] = true;
		bool ok = want < 0 ? c == NULL : c && c->alloc == want;
		if (!strcmp(where, "pages") && isfree)
			ok = !c || c->alloc == WALK_FREE;
		matched += ok;
		if (!ok && bad++ < 10)
			printf("  truth 0x%llx %s %s: %s\n", (unsigned long long)addr, where, alloc,
			       c ? walk_alloc_name((enum walk_alloc)c->alloc) : "no candidate");
	}
	for (size_t i = 0; i < s.nc; i++)
		if (!seen[i] && s.c[i].alloc == WALK_ALLOCATED && extra++ < 10)
			printf("  allocated candidate 0x%llx (%s) is no truth object\n", (unsigned long long)s.c[i].addr,
			       walk_place_name((enum walk_place)s.c[i].place));
	printf("truth %zu objects (%zu free, %zu freed and reused, %zu dead in unevacuated regions), matched %zu, mismatched %zu; "
	       "candidates %zu, allocated ones not in the truth %zu; anomalies %llu\n", truth, tfree, reused, unev_dead, matched,
	       bad, s.nc, extra, (unsigned long long)sink.total);
	for (size_t i = 0; i < sink.count && i < 10; i++)
		printf("  anomaly %s 0x%llx %s\n", anomaly_code_name(sink.v[i].code), (unsigned long long)sink.v[i].va,
		       sink.v[i].msg);
	int rc = bad || extra || sink.total || !truth;
	fclose(fp);
	xfree(line);
	xfree(allocs);
	xfree(seen);
	xfree(s.c);
	anomaly_release(&sink);
	runtime_close(&rt);
	img_close(&img);
	return rc;
}
