/* damage_trunc.c - test tool: a core cut short carves what it holds (issue 23).
 *   usage: damage_trunc CORE [MAPS] [--random N] [--seed S] [--min-recall R] [--out DIR]
 * CORE is an ELF core the tool may truncate (a copy).  It is carved whole (the baseline), then
 * cut at every PT_LOAD segment boundary (segment starts and ends inside the file) and at N
 * random offsets (fixed seed), from the longest cut to the shortest (each ftruncate shortens
 * the same file), and carved in-process each time (heap.hprof and case.db into DIR).  A cut
 * passes when
 *   - carve_run returns 0 and every output it wants exists;
 *   - the image reports the bytes lost: img.cut_bytes is the file bytes the PT_LOAD headers
 *     list past the cut, and the summary's "capture" anomaly says "lack N bytes";
 *   - every baseline object whose bytes and whose Class's bytes lie in the kept part of the
 *     file is carved alike (same address, size and class); --min-recall R (default 1) accepts
 *     a share R of them (objects whose allocator metadata was cut: issue 23 left open);
 *   or, when java.lang.Class itself lies past the cut, carve refuses the input (no usable
 *   heap: the one refusal allowed).
 * Prints one line per cut and exits 1 when one fails, 2 on a usage or setup error. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "carver/base/xalloc.h"
#include "carver/pipeline/carve.h"
#include "tests/tools/damage_lib.h"

#define MAX_CUTS 512

/* True when the file holds the bytes [va, va + len) below cut. */
static bool kept_below(const struct dmg_core *k, uint64_t va, uint64_t len, uint64_t cut)
{
	for (size_t i = 0; i < k->load_count; i++) {
		const struct dmg_load *l = &k->load[i];
		if (va >= l->va && va - l->va < l->filesz && len <= l->filesz - (va - l->va))
			return l->offset + (va - l->va) + len <= cut;
	}
	return false;
}

/* File bytes the PT_LOAD headers list past cut. */
static uint64_t listed_past(const struct dmg_core *k, uint64_t cut)
{
	uint64_t n = 0;
	for (size_t i = 0; i < k->load_count; i++) {
		const struct dmg_load *l = &k->load[i];
		if (l->offset + l->filesz > cut)
			n += l->offset >= cut ? l->filesz : l->offset + l->filesz - cut;
	}
	return n;
}

static int cmp_desc(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? 1 : x > y ? -1 : 0;
}

/* The cuts: segment boundaries inside the file and random offsets, longest first, unique. */
static size_t make_cuts(const struct dmg_core *k, unsigned random, uint64_t seed, uint64_t *cuts)
{
	size_t n = 0;
	for (size_t i = 0; i < k->load_count && n + 2 < MAX_CUTS; i++) {
		const struct dmg_load *l = &k->load[i];
		if (l->offset > 0 && l->offset < k->size)
			cuts[n++] = l->offset;
		if (l->offset + l->filesz < k->size)
			cuts[n++] = l->offset + l->filesz;
	}
	for (unsigned i = 0; i < random && n < MAX_CUTS; i++)
		cuts[n++] = 4096 + dmg_rand(&seed) % (k->size - 4096);
	qsort(cuts, n, sizeof(*cuts), cmp_desc);
	size_t u = 0;
	for (size_t i = 0; i < n; i++)
		if (!u || cuts[u - 1] != cuts[i])
			cuts[u++] = cuts[i];
	return u;
}

/* One cut: carved and compared; 0 when it passes. */
static int one_cut(struct dmg_core *k, const struct dmg_objects *base, const struct dmg_obj *jlc, const char *maps,
		   const char *out, uint64_t cut, double min_recall)
{
	struct carve_opts o = { .image = k->path, .maps = maps, .out_dir = out, .force = true,
				.skip = ~((1u << CARVE_OUT_HPROF) | (1u << CARVE_OUT_DB)) };
	struct carve c;
	struct err e;
	char why[160] = "";
	uint64_t kept = 0, expected = 0, lost = 0, first_lost = 0;
	int rc;

	if (ftruncate(k->fd, (off_t)cut)) {
		perror("ftruncate");
		return -1;
	}
	err_init(&e);
	rc = carve_run(&c, &o, &e);
	if (rc) {
		/* no java.lang.Class left: no usable heap, the one input carve may refuse */
		bool no_heap = !kept_below(k, jlc->va, jlc->size, cut) && strstr(e.msg, "no java.lang.Class");
		printf("%s cut at %" PRIu64 ": carve refused it: %.120s%s\n", no_heap ? "ok" : "FAIL", cut, e.msg,
		       no_heap ? " (java.lang.Class lies past the cut: no usable heap)" : "");
		carve_release(&c);
		return no_heap ? 0 : 1;
	}
	bool written = dmg_outputs_written(&c, &o, why, sizeof(why));
	uint64_t want_cut = listed_past(k, cut), capture = c.rt.anomalies.per_code[ANOM_CAPTURE];
	for (size_t i = 0; i < base->count; i++) {
		const struct dmg_obj *b = &base->v[i];
		const struct dmg_obj *cls = NULL;
		for (size_t j = 0; j < base->count && !cls; j++)   /* its Class among the objects */
			if (base->v[j].va == b->cls)
				cls = &base->v[j];
		if (!kept_below(k, b->va, b->size, cut) || (cls && !kept_below(k, cls->va, cls->size, cut)))
			continue;
		expected++;
		if (dmg_kept(&c.m, b))
			kept++;
		else if (lost++ == 0)
			first_lost = b->va;
	}
	/* the summary's capture anomaly names the bytes absent */
	char absent[32];
	bool said = want_cut == 0;
	snprintf(absent, sizeof(absent), "lack %" PRIu64 " bytes", want_cut);
	for (size_t i = 0; i < c.rt.anomalies.count && !said; i++)
		said = c.rt.anomalies.v[i].code == ANOM_CAPTURE && strstr(c.rt.anomalies.v[i].msg, absent);
	bool ok = written && c.img.cut_bytes == want_cut && (want_cut == 0 || capture >= 1) && said &&
		  (double)kept >= min_recall * (double)expected;
	printf("%s cut at %" PRIu64 " (%.1f%%): %" PRIu64 " of %" PRIu64 " objects in the kept part carved; cut_bytes %" PRIu64
	       " (headers list %" PRIu64 " past the cut), %" PRIu64 " capture anomalies%s%s",
	       ok ? "ok" : "FAIL", cut, 100.0 * (double)cut / (double)k->size, kept, expected, c.img.cut_bytes, want_cut,
	       capture, written ? "" : "; ", why);
	if (lost)
		printf("; first lost 0x%" PRIx64, first_lost);
	printf("\n");
	carve_release(&c);
	return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
	const char *core = NULL, *maps = NULL, *out = NULL;
	unsigned random = 20, bad = 0;
	double min_recall = 1;
	uint64_t seed = 23, cuts[MAX_CUTS];
	char tmpl[] = "/tmp/damage-trunc.XXXXXX";
	struct dmg_core k;
	struct dmg_objects base = { 0 };
	struct dmg_targets t = { 0 };
	uint32_t near_miss;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--random") && i + 1 < argc)
			random = (unsigned)strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			seed = strtoull(argv[++i], NULL, 0) | 1;
		else if (!strcmp(argv[i], "--min-recall") && i + 1 < argc)
			min_recall = strtod(argv[++i], NULL);
		else if (!strcmp(argv[i], "--out") && i + 1 < argc)
			out = argv[++i];
		else if (!core)
			core = argv[i];
		else if (!maps)
			maps = argv[i];
		else
			core = NULL, i = argc;
	}
	if (!core) {
		fprintf(stderr, "usage: damage_trunc CORE [MAPS] [--random N] [--seed S] [--min-recall R] [--out DIR]\n");
		return 2;
	}
	if (!out && !(out = mkdtemp(tmpl))) {
		perror("mkdtemp");
		return 2;
	}
	if (dmg_core_open(&k, core) || dmg_baseline(&base, &t, core, maps, out, &near_miss)) {
		fprintf(stderr, "damage_trunc: %s: no baseline carve\n", core);
		return 2;
	}
	const struct dmg_obj *jlc = NULL;   /* java.lang.Class: the class of itself */
	for (size_t i = 0; i < base.count && !jlc; i++)
		if (base.v[i].va == base.v[i].cls)
			jlc = &base.v[i];
	if (!jlc) {
		fprintf(stderr, "damage_trunc: %s: no java.lang.Class among the objects\n", core);
		return 2;
	}
	size_t n = make_cuts(&k, random, seed, cuts);
	printf("%s: %" PRIu64 " bytes, %zu PT_LOAD segments, baseline %zu objects, %zu cuts\n", core, k.size,
	       k.load_count, base.count, n);
	for (size_t i = 0; i < n; i++) {
		int rc = one_cut(&k, &base, jlc, maps, out, cuts[i], min_recall);
		if (rc < 0)
			return 2;
		bad += rc;
	}
	printf("%u of %zu cuts failed\n", bad, n);
	dmg_targets_free(&t);
	dmg_objects_free(&base);
	dmg_core_close(&k);
	return bad ? 1 : 0;
}
