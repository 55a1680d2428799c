/* synth.c - command line of the synthetic image generator (build/synth).
 *
 *   build/synth --version 7.1 --bits 64 --seed 1 --size small --out DIR
 *   build/synth --list        (layout families)
 *   build/synth --selftest    (re-derives the mirror layouts with LinkFields)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "carver/base/xalloc.h"
#include "tests/synth/synth.h"

int work_build(struct model *m);
int core_write(struct model *m, const char *path, struct err *e);
int maps_write(struct model *m, const char *path, struct err *e);
int truth_jsonl(struct model *m, const char *path, struct err *e);
int truth_summary(struct model *m, const char *path, const char *size_name, struct err *e);
int truth_readme(struct model *m, const char *path, const char *cmdline, struct err *e);
int hprofw_write(struct model *m, const char *path, struct err *e);
int truth_hooks(struct model *m, const char *path, struct err *e);

/* splitmix64 */
uint64_t rng_next(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

uint32_t rng_below(struct rng *r, uint32_t n) { return n ? (uint32_t)(rng_next(r) % n) : 0; }
bool rng_chance(struct rng *r, unsigned percent) { return rng_below(r, 100) < percent; }

static const char usage[] =
	"usage: synth --version V --bits 32|64 [--seed N] [--size small|medium|tiny|N] [--inject-hooks N]\n"
	"             [--truth yes|no] [--heap cms|cc|cmc] [--page 4k|16k] [--workload messenger] --out DIR\n"
	"       synth --list | --selftest\n"
	"  V: 5.0 5.1 6.0 7.0 7.1 8.0 8.1 9 10 11 12 13 14 15; --size N = N MiB of objects\n"
	"  --heap cmc (14, 15, 16): the mark-compact moving space instead of the region space\n"
	"  --page 16k (15, 64-bit): 16 KiB pages (page-granular spaces: LOS, dlmalloc, image)\n"
	"  writes DIR/core, DIR/maps, DIR/truth.jsonl, DIR/truth.json, DIR/truth.hprof, DIR/hooks.json,\n"
	"  DIR/README; --inject-hooks N points N ArtMethods' entry points at trampolines (7.0+)\n"
	"  (--truth no: no truth.jsonl / truth.hprof, for benchmarks)\n"
	"  --workload messenger: also a messaging app (Messenger$Message in an ArrayList, half of\n"
	"  them deleted, a LinkedList outbox, a HashMap of contacts)\n";

static int parse_size(const char *s, uint64_t *out)
{
	if (strcmp(s, "tiny") == 0)
		*out = 96 * 1024;
	else if (strcmp(s, "small") == 0)
		*out = 512 * 1024;
	else if (strcmp(s, "medium") == 0)
		*out = 16ull * 1024 * 1024;
	else {
		char *end;
		errno = 0;
		unsigned long long n = strtoull(s, &end, 10);
		if (errno || *end || n == 0 || n > 16384)
			return -1;
		*out = n * 1024 * 1024;
	}
	return 0;
}

static void model_free(struct model *m)
{
	for (unsigned i = 0; i < m->nk; i++) {
		xfree(m->k[i].ifields);
		xfree(m->k[i].sfields);
	}
	for (unsigned i = 0; i < m->no; i++)
		xfree(m->o[i].snapshot);
	xfree(m->k);
	xfree(m->o);
	xfree(m->ros);
	xfree(m->region);
	xfree(m->bump);
	xfree(m->nonmoving);
	xfree(m->zygote);
	xfree(m->los);
	wbuf_release(&m->notes);
	vm_release(&m->vm);
}

/* mkdir -p */
static int make_dirs(const char *path)
{
	char buf[4096];
	size_t n = strlen(path);
	if (n == 0 || n >= sizeof(buf))
		return -1;
	memcpy(buf, path, n + 1);
	for (size_t i = 1; i <= n; i++) {
		if (buf[i] != '/' && buf[i] != 0)
			continue;
		char c = buf[i];
		buf[i] = 0;
		if (mkdir(buf, 0777) && errno != EEXIST)
			return -1;
		buf[i] = c;
	}
	return 0;
}

static int out_path(char *buf, size_t cap, const char *dir, const char *name)
{
	return (size_t)snprintf(buf, cap, "%s/%s", dir, name) >= cap ? -1 : 0;
}

int main(int argc, char **argv)
{
	const char *version = NULL, *out = NULL, *size_name = "small", *heap = NULL, *page = "4k";
	int bits = 0;
	unsigned hooks = 0;
	bool no_truth = false, messenger = false;
	unsigned long long seed = 1;
	struct model m;
	struct err e;
	char cmd[1024] = "build/synth";

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(a, "--list") == 0) {
			for (unsigned j = 0; j < fam_count(); j++)
				printf("%s %s%s%s\n", fam_at(j)->version, fam_at(j)->region ? "cc" : "cms",
				       fam_at(j)->cmc_ok ? " cmc" : "", fam_at(j)->page16_ok ? " 16k" : "");
			return 0;
		}
		if (strcmp(a, "--selftest") == 0) {
			int bad = klass_selftest(stderr);
			printf("%d mismatches\n", bad);
			return bad ? 1 : 0;
		}
		if (strcmp(a, "--help") == 0) {
			fputs(usage, stdout);
			return 0;
		}
		if (!v) {
			fputs(usage, stderr);
			return 2;
		}
		if (strcmp(a, "--version") == 0)
			version = v;
		else if (strcmp(a, "--bits") == 0)
			bits = atoi(v);
		else if (strcmp(a, "--seed") == 0)
			seed = strtoull(v, NULL, 10);
		else if (strcmp(a, "--size") == 0)
			size_name = v;
		else if (strcmp(a, "--out") == 0)
			out = v;
		else if (strcmp(a, "--inject-hooks") == 0)
			hooks = (unsigned)strtoul(v, NULL, 10);
		else if (strcmp(a, "--truth") == 0)
			no_truth = strcmp(v, "no") == 0;
		else if (strcmp(a, "--heap") == 0)
			heap = v;
		else if (strcmp(a, "--page") == 0)
			page = v;
		else if (strcmp(a, "--workload") == 0 && v && !strcmp(v, "messenger"))
			messenger = true;
		else {
			fprintf(stderr, "synth: unknown option %s\n%s", a, usage);
			return 2;
		}
		if (strcmp(a, "--out") != 0) {
			size_t l = strlen(cmd);
			snprintf(cmd + l, sizeof(cmd) - l, " %s %s", a, v);
		}
		i++;
	}
	memset(&m, 0, sizeof(m));
	m.fam = version ? fam_find(version) : NULL;
	/* --heap cmc: the mark-compact heap of 14+ modules instead of the family's default */
	m.cmc = heap && !strcmp(heap, "cmc");
	/* --page 16k: 15+ modules on arm64 devices with 16 KiB pages (gPageSize) */
	m.page = !strcmp(page, "16k") ? 16384 : 4096;
	if (!m.fam || (bits != 32 && bits != 64) || !out || parse_size(size_name, &m.heap_target) ||
	    (heap && !m.cmc && strcmp(heap, m.fam->region ? "cc" : "cms")) || (m.cmc && !m.fam->cmc_ok) ||
	    (strcmp(page, "4k") && (m.page != 16384 || !m.fam->page16_ok || bits != 64))) {
		fputs(usage, stderr);
		return 2;
	}
	{
		size_t l = strlen(cmd);
		snprintf(cmd + l, sizeof(cmd) - l, " --out DIR");
	}
	m.bits = bits;
	m.hooks = hooks;
	m.no_truth = no_truth;
	m.messenger = messenger;
	m.seed = seed;
	m.rng.s = seed * 0x2545f4914f6cdd1dull + (uint64_t)m.fam->api * 1000 + (uint64_t)bits;
	snprintf(m.isa, sizeof(m.isa), "%s", bits == 64 ? "arm64" : "arm");
	m.k = xcalloc(KLASS_MAX, sizeof(*m.k));
	wbuf_init(&m.notes);
	err_init(&e);
	if (!m.k || vm_init(&m.vm, bits)) {
		fprintf(stderr, "synth: out of memory\n");
		return 3;
	}
	if (make_dirs(out)) {
		fprintf(stderr, "synth: cannot create %s: %s\n", out, strerror(errno));
		model_free(&m);
		return 3;
	}
	if (work_build(&m)) {
		fprintf(stderr, "synth: generation failed%s (address 0x%llx)\n",
			m.vm.bad ? ": a write outside every mapping" : ": a space is full",
			(unsigned long long)m.vm.bad_va);
		model_free(&m);
		return 3;
	}
	char p[4096];
	int rc = 0;
	if (!rc && !(rc = out_path(p, sizeof(p), out, "core")))
		rc = core_write(&m, p, &e);
	if (!rc && !(rc = out_path(p, sizeof(p), out, "maps")))
		rc = maps_write(&m, p, &e);
	if (!rc && !no_truth && !(rc = out_path(p, sizeof(p), out, "truth.jsonl")))
		rc = truth_jsonl(&m, p, &e);
	if (!rc && !(rc = out_path(p, sizeof(p), out, "truth.json")))
		rc = truth_summary(&m, p, size_name, &e);
	if (!rc && !no_truth && !(rc = out_path(p, sizeof(p), out, "truth.hprof")))
		rc = hprofw_write(&m, p, &e);
	if (!rc && !(rc = out_path(p, sizeof(p), out, "hooks.json")))
		rc = truth_hooks(&m, p, &e);
	if (!rc && !(rc = out_path(p, sizeof(p), out, "README")))
		rc = truth_readme(&m, p, cmd, &e);
	if (rc) {
		fprintf(stderr, "synth: %s\n", e.msg[0] ? e.msg : "output failed");
		model_free(&m);
		return 3;
	}
	model_free(&m);
	return 0;
}
