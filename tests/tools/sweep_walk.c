/* sweep_walk.c - test tool: a corruption sweep of the space walkers over a process image.
 *   usage: sweep_walk IMAGE MAPS ROUNDS SEED
 * Walks the image once to learn its structures, then ROUNDS times damages one structure of
 * one kind (in turn), walks every space again and undoes the damage:
 *   pagemap   a used RosAlloc page-map byte -> a value past PageMapKind (6..255)
 *   pagebyte  a used RosAlloc page-map byte -> any value
 *   runhdr    a byte of a run header (bracket index, flags, bitmap or list words)
 *   cycle     7.0+: a free slot's next_ -> the list head (a cycle)
 *   outrun    7.0+: a free slot's next_ -> an address outside its run
 *   misalign  7.0+: a free slot's next_ -> a slot address + 4
 *   bitmap    5.x/6.0: the invalid high bits of a run's last alloc-bitmap word cleared
 *   regword   an 8-aligned word inside a used region -> a random value
 *   arraylen  the length of an array in a region -> 0x7fffffff (past its region)
 *   chunk     a dlmalloc chunk head -> a size past the end of the space
 *   chunkany  a dlmalloc chunk head -> any value
 *   losinfo   a LOS allocation-info entry -> any value
 * Kinds the image has no structure for are skipped.  Every walk runs under a 20 s alarm (a
 * hang kills the process).  For pagemap, cycle, outrun, misalign, bitmap, arraylen and chunk
 * the damage is always detectable: each such round must record an anomaly.  Prints one line
 * per kind (rounds, rounds with anomalies) and "RESULT <kinds ok> <kinds failed>". */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "art/runtime/runtime.h"
#include "carver/base/anomaly.h"
#include "carver/base/xalloc.h"
#include "carver/image/image.h"
#include "rosalloc/probe/probe.h"
#include "rosalloc/walk/walk.h"

enum kind { K_PAGEMAP, K_PAGEBYTE, K_RUNHDR, K_CYCLE, K_OUTRUN, K_MISALIGN, K_BITMAP, K_REGWORD, K_ARRAYLEN,
	    K_CHUNK, K_CHUNKANY, K_LOSINFO, K_COUNT };
static const char *const kind_names[K_COUNT] = { "pagemap", "pagebyte", "runhdr", "cycle", "outrun", "misalign",
						  "bitmap", "regword", "arraylen", "chunk", "chunkany", "losinfo" };
static const bool must_detect[K_COUNT] = { [K_PAGEMAP] = true, [K_CYCLE] = true, [K_OUTRUN] = true,
					   [K_MISALIGN] = true, [K_BITMAP] = true, [K_ARRAYLEN] = true,
					   [K_CHUNK] = true };

struct unit { uint64_t begin, end; int bracket; uint32_t slot, slots; const struct art_space *s; };
struct cand { uint64_t addr, where, size; uint8_t alloc, place; };

struct learn {
	struct unit *runs;
	size_t nruns, cruns;
	struct cand *c;
	size_t nc, cc;
	uint64_t pm_begin, pm_pages, los_info, los_pages;
};

static int learn_cand(void *arg, const struct walk_candidate *c, struct err *e)
{
	struct learn *l = arg;
	(void)e;
	if (XALLOC_GROW(l->c, l->cc, l->nc + 1, 1024))
		return -ERR_NOMEM;
	l->c[l->nc++] = (struct cand){ c->addr, c->where, c->size, (uint8_t)c->alloc, (uint8_t)c->place };
	return 0;
}

static int learn_unit(void *arg, const struct walk_unit *u, struct err *e)
{
	struct learn *l = arg;
	(void)e;
	if (u->kind != WALK_UNIT_RUN)
		return 0;
	if (XALLOC_GROW(l->runs, l->cruns, l->nruns + 1, 1024))
		return -ERR_NOMEM;
	l->runs[l->nruns++] = (struct unit){ u->begin, u->end, u->bracket, u->slot_size, u->slots, u->space };
	return 0;
}

static int count_cand(void *arg, const struct walk_candidate *c, struct err *e)
{
	(void)e;
	*(uint64_t *)arg += c->room;
	return 0;
}

/* ---- the writable copy and its undo log ---- */

struct copy { uint64_t start; uint8_t *data; size_t len; };
static struct copy copies[64];
static size_t ncopies;
static struct { uint64_t va; uint8_t old[8]; unsigned n; } undo[4];
static unsigned nundo;

static uint8_t *at(uint64_t va, size_t n)
{
	for (size_t i = 0; i < ncopies; i++)
		if (va >= copies[i].start && va - copies[i].start + n <= copies[i].len)
			return copies[i].data + (va - copies[i].start);
	return NULL;
}

static void poke(uint64_t va, const void *v, unsigned n)
{
	uint8_t *p = at(va, n);
	if (!p || nundo == 4)
		return;
	undo[nundo].va = va;
	undo[nundo].n = n;
	memcpy(undo[nundo].old, p, n);
	nundo++;
	memcpy(p, v, n);
}

static void unpoke(void)
{
	while (nundo) {
		nundo--;
		memcpy(at(undo[nundo].va, undo[nundo].n), undo[nundo].old, undo[nundo].n);
	}
}

static bool copied_kind(enum space_kind k)
{
	return k == SPACE_ROSALLOC || k == SPACE_ROSALLOC_PAGE_MAP || k == SPACE_REGION || k == SPACE_DLMALLOC ||
	       k == SPACE_ZYGOTE || k == SPACE_LOS_FREELIST || k == SPACE_LOS_INFO_MAP;
}

static int mirror_image(const struct art_runtime *rt, struct image *m, struct err *e)
{
	const struct image *img = rt->img;
	img_init_empty(m, "sweep");
	for (size_t i = 0; i < img->region_count; i++) {
		const struct img_region *r = &img->regions[i];
		const uint8_t *data = r->data;
		if (!data || !r->data_len)
			continue;
		const struct art_space *s = NULL;
		for (size_t j = 0; j < rt->spaces.count && !s; j++)
			if (copied_kind(rt->spaces.v[j].kind) && r->start >= rt->spaces.v[j].begin &&
			    r->start < rt->spaces.v[j].limit)
				s = &rt->spaces.v[j];
		if (s && ncopies < 64) {
			uint8_t *p = xmalloc(r->data_len);
			if (!p)
				return -ERR_NOMEM;
			memcpy(p, data, r->data_len);
			copies[ncopies++] = (struct copy){ r->start, p, r->data_len };
			data = p;
		}
		int rc = img_add_region_mem(m, r->start, data, r->data_len, r->prot, r->name, e);
		if (rc)
			return rc;
	}
	return 0;
}

/* ---- damage ---- */

static uint64_t rnd_state;
static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

static const struct cand *pick_cand(const struct learn *l, int place, int alloc, bool array_only,
				    const struct art_runtime *rt)
{
	for (unsigned tries = 0; tries < 4096 && l->nc; tries++) {
		const struct cand *c = &l->c[rnd() % l->nc];
		if ((place >= 0 && c->place != place) || (alloc >= 0 && c->alloc != alloc))
			continue;
		if (array_only) {
			uint8_t *p = at(c->addr, 4);
			uint32_t k;
			if (!p)
				continue;
			memcpy(&k, p, 4);
			const struct rt_class *cl = runtime_class_at(rt, k);
			if (!cl || !cl->raw.component_type)
				continue;
		}
		return c;
	}
	return NULL;
}

/* Free slot of a 7.0+ run with a successor on its list. */
static const struct cand *pick_linked(const struct learn *l, unsigned ps)
{
	for (unsigned tries = 0; tries < 256 && l->nc; tries++) {
		const struct cand *c = &l->c[rnd() % l->nc];
		uint8_t *p;
		uint64_t next = 0;
		if (c->place != WALK_ROSALLOC_SLOT || c->alloc != WALK_FREE || !(p = at(c->addr, ps)))
			continue;
		memcpy(&next, p, ps);
		if (next)
			return c;
	}
	return NULL;
}

static bool damage(enum kind k, const struct learn *l, const struct art_runtime *rt)
{
	unsigned ps = rt->pointer_size;
	bool freelist = rt->layout && strcmp(rt->layout->family, "5.0") && strcmp(rt->layout->family, "5.1") &&
			strcmp(rt->layout->family, "6.0");
	uint8_t b;
	switch (k) {
	case K_PAGEMAP:
	case K_PAGEBYTE: {
		if (!l->pm_pages)
			return false;
		uint64_t va = l->pm_begin + rnd() % l->pm_pages;
		b = k == K_PAGEMAP ? (uint8_t)(6 + rnd() % 250) : (uint8_t)rnd();
		poke(va, &b, 1);
		return true;
	}
	case K_RUNHDR: {
		if (!l->nruns)
			return false;
		const struct unit *u = &l->runs[rnd() % l->nruns];
		b = (uint8_t)rnd();
		poke(u->begin + rnd() % 80, &b, 1);
		return true;
	}
	case K_CYCLE:
	case K_OUTRUN:
	case K_MISALIGN: {
		const struct cand *c = freelist ? pick_linked(l, ps) : NULL;
		if (!c)
			return false;
		uint64_t v = 0;
		memcpy(&v, at(c->addr, ps), ps);
		if (k == K_CYCLE)
			v = c->addr;                 /* the slot links to itself */
		else if (k == K_OUTRUN)
			v = c->where - 4096 * (1 + rnd() % 4);
		else
			v += 4;
		poke(c->addr, &v, ps);
		return true;
	}
	case K_BITMAP: {
		if (freelist || !l->nruns)
			return false;
		for (unsigned tries = 0; tries < 64; tries++) {
			const struct unit *u = &l->runs[rnd() % l->nruns];
			uint32_t words = (u->slots + 31) / 32, zero = 0;
			if (u->slots % 32 == 0)
				continue;
			poke(u->begin + 8 + 4 * (words - 1), &zero, 4);
			return true;
		}
		return false;
	}
	case K_REGWORD:
	case K_ARRAYLEN: {
		const struct cand *c = pick_cand(l, WALK_REGION, -1, k == K_ARRAYLEN, rt);
		if (!c)
			return false;
		uint32_t v = k == K_ARRAYLEN ? 0x7fffffffu : (uint32_t)rnd();
		uint64_t off = k == K_ARRAYLEN ? rt->layout->array.length : 8 * (rnd() % (c->size / 8 + 1));
		poke(c->addr + off, &v, 4);
		return true;
	}
	case K_CHUNK:
	case K_CHUNKANY: {
		const struct cand *c = pick_cand(l, WALK_DLMALLOC_CHUNK, -1, false, rt);
		if (!c)
			return false;
		/* chunk: a size past every segment of the space (an in-use chunk of 256 MiB + n) */
		uint64_t v = k == K_CHUNK ? ((0x10000000ull + 16 * (rnd() % 64)) | 3) : rnd();
		poke(c->where + ps, &v, ps);
		return true;
	}
	case K_LOSINFO: {
		if (!l->los_pages)
			return false;
		uint64_t v = rnd();
		poke(l->los_info + 8 * (rnd() % l->los_pages), &v, 8);
		return true;
	}
	default:
		return false;
	}
}

static void on_alarm(int sig)
{
	(void)sig;
	static const char msg[] = "sweep_walk: a walk did not end within 20 s\n";
	if (write(2, msg, sizeof(msg) - 1) < 0)
		_exit(3);
	_exit(3);
}

int main(int argc, char **argv)
{
	struct img_open_opts io = { NULL };
	struct runtime_opts ro = { .probes = &probe_spaces };
	struct image img, mimg;
	struct art_runtime rt;
	struct learn l = { 0 };
	struct err e;
	unsigned rounds, ok = 0, bad = 0;

	if (argc != 5) {
		fprintf(stderr, "usage: sweep_walk IMAGE MAPS ROUNDS SEED\n");
		return 2;
	}
	rounds = (unsigned)strtoul(argv[3], NULL, 10);
	rnd_state = strtoull(argv[4], NULL, 10) * 2654435761u + 1;
	err_init(&e);
	io.maps_path = argv[2];
	if (img_open(&img, argv[1], &io, &e) || runtime_open(&rt, &img, &ro, &e) || mirror_image(&rt, &mimg, &e)) {
		fprintf(stderr, "sweep_walk: %s\n", e.msg);
		return 1;
	}
	struct art_runtime rt2 = rt;
	rt2.img = &mimg;
	for (size_t i = 0; i < rt.spaces.count; i++) {
		const struct art_space *s = &rt.spaces.v[i];
		if (s->kind == SPACE_ROSALLOC && s->companion && !s->backup) {
			l.pm_begin = s->companion;
			l.pm_pages = 0;
			for (uint64_t p = 0; p < (s->end - s->begin) / 4096; p++) {
				uint8_t *q = at(s->companion + p, 1);
				if (q && *q)
					l.pm_pages = p + 1;
			}
		}
		if (s->kind == SPACE_LOS_FREELIST && s->companion) {
			l.los_info = s->companion;
			l.los_pages = (s->end - s->begin) / 4096;
		}
	}
	struct anomaly_sink sink;
	anomaly_init(&sink, 16);
	struct walk_ctx lc = { .rt = &rt2, .sink = &sink, .emit = learn_cand, .arg = &l, .unit = learn_unit,
			       .unit_arg = &l };
	if (walk_all(&lc, &e)) {
		fprintf(stderr, "sweep_walk: %s\n", e.msg);
		return 1;
	}
	printf("image: %zu candidates, %zu runs, %llu anomalies undamaged\n", l.nc, l.nruns,
	       (unsigned long long)sink.total);
	anomaly_release(&sink);
	signal(SIGALRM, on_alarm);
	unsigned done[K_COUNT] = { 0 }, detected[K_COUNT] = { 0 };
	for (unsigned r = 0; r < rounds; r++) {
		enum kind k = (enum kind)(r % K_COUNT);
		if (!damage(k, &l, &rt2))
			continue;
		uint64_t sum = 0;
		anomaly_init(&sink, 16);
		struct walk_ctx c = { .rt = &rt2, .sink = &sink, .emit = count_cand, .arg = &sum };
		alarm(20);
		int rc = walk_all(&c, &e);
		alarm(0);
		if (rc) {
			printf("round %u (%s): walk failed: %s\n", r, kind_names[k], e.msg);
			bad++;
		}
		done[k]++;
		detected[k] += sink.total > 0;
		anomaly_release(&sink);
		unpoke();
	}
	for (int k = 0; k < K_COUNT; k++) {
		bool pass = !must_detect[k] || detected[k] == done[k];
		printf("%s %-9s %u rounds, %u with anomalies recorded%s\n", pass ? "ok  " : "FAIL", kind_names[k], done[k],
		       detected[k], must_detect[k] ? " (each must be)" : "");
		if (done[k])
			pass ? ok++ : bad++;
	}
	printf("RESULT %u %u\n", ok, bad);
	for (size_t i = 0; i < ncopies; i++)
		xfree(copies[i].data);
	xfree(l.c);
	xfree(l.runs);
	runtime_close(&rt);
	img_close(&mimg);
	img_close(&img);
	return bad ? 1 : 0;
}
