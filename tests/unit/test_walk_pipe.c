/* test_walk_pipe.c - walk_all_piped (rosalloc/walk/walk_pipe.c) gives the caller exactly what
 * walk_all gives, in the same order: on a RosAlloc space of 7.1 free-list runs (tests/tools/
 * walkgen.h) with damaged page-map bytes among them, large enough that the walk's queue goes
 * round its ring several times, the candidates, units and anomalies of both are compared one
 * by one; then an emit that fails at the k-th candidate (the first, one at a batch boundary,
 * one past the ring's first round, the last) and a unit that fails: both walks return the
 * same error after the same calls and the same anomalies. */
#include <stdlib.h>

#include "carver/base/xalloc.h"
#include "tests/tools/walkgen.h"
#include "tests/unit/t.h"

enum { PAGES = 600, FAMILY_71_64 = 2 | 4 };

struct rec {
	struct walk_candidate *c;
	size_t n, cap;
	struct walk_unit *u;
	size_t nu, ucap;
	size_t fail_at;         /* emit fails at this candidate (1-based), 0 never */
	bool fail_unit;         /* unit fails at the first unit after the 100th candidate */
};

static int rec_emit(void *arg, const struct walk_candidate *c, struct err *e)
{
	struct rec *r = arg;
	if (r->fail_at && r->n + 1 == r->fail_at)
		return ERR_SET(e, ERR_CORRUPT, c->addr, "emit refused candidate %zu", r->n + 1);
	if (XALLOC_GROW(r->c, r->cap, r->n + 1, 1024))
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory");
	r->c[r->n++] = *c;
	return 0;
}

static int rec_unit(void *arg, const struct walk_unit *u, struct err *e)
{
	struct rec *r = arg;
	if (r->fail_unit && r->n > 100)
		return ERR_SET(e, ERR_CORRUPT, u->begin, "unit refused after %zu candidates", r->n);
	if (XALLOC_GROW(r->u, r->ucap, r->nu + 1, 64))
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory");
	r->u[r->nu++] = *u;
	return 0;
}

static bool same_cand(const struct walk_candidate *a, const struct walk_candidate *b)
{
	return a->addr == b->addr && a->room == b->room && a->alloc == b->alloc && a->place == b->place &&
	       a->space == b->space && a->where == b->where && a->index == b->index && a->clobbered == b->clobbered &&
	       a->live_bit == b->live_bit && a->on_alloc_stack == b->on_alloc_stack && a->flags == b->flags &&
	       a->size == b->size;
}

static bool same_unit(const struct walk_unit *a, const struct walk_unit *b)
{
	return a->kind == b->kind && a->space == b->space && a->begin == b->begin && a->end == b->end &&
	       a->index == b->index && a->pages == b->pages && a->bracket == b->bracket &&
	       a->slot_size == b->slot_size && a->slots == b->slots && a->state == b->state && a->top == b->top &&
	       a->allocated == b->allocated && a->free == b->free && a->damaged == b->damaged;
}

static bool same_anomalies(const struct anomaly_sink *a, const struct anomaly_sink *b)
{
	if (a->total != b->total || a->count != b->count)
		return false;
	for (size_t i = 0; i < a->count; i++)
		if (a->v[i].code != b->v[i].code || a->v[i].cause != b->v[i].cause || a->v[i].va != b->v[i].va ||
		    strcmp(a->v[i].space, b->v[i].space) || strcmp(a->v[i].msg, b->v[i].msg))
			return false;
	return true;
}

/* The input of walk_fuzz.h: 7.1, 64-bit; PAGES pages of one-page runs of bracket 0, a few
 * slots of each in use, every 29th page-map byte a kind no page has (an anomaly). */
static uint8_t *space_input(size_t *len)
{
	size_t a = (size_t)PAGES * 4096;
	uint8_t *in = calloc(1, 5 + a + PAGES);
	if (!in)
		return NULL;
	in[0] = FAMILY_71_64;
	wg32(in + 1, a);
	uint8_t *heap = in + 5, *pm = in + 5 + a;
	for (unsigned p = 0; p < PAGES; p++) {
		const unsigned used[] = { p % 7, 9 + p % 5, 40 };
		wg_fl_run(heap, pm, WF_SPACE, p, 0, used, 3, 8);
		if (p % 29 == 28)
			pm[p] = 0x77;
	}
	*len = 5 + a + PAGES;
	return in;
}

/* One walk of the space, serial or piped, into r and sink; its rc, *e its error. */
static int walk_once(struct wfz *f, bool piped, struct rec *r, struct anomaly_sink *sink, struct err *e)
{
	struct walk_ctx ctx = { .rt = &f->rt, .sink = sink, .emit = rec_emit, .arg = r, .unit = rec_unit,
				.unit_arg = r };
	anomaly_init(sink, 0);
	err_init(e);
	return piped ? walk_all_piped(&ctx, e) : walk_all(&ctx, e);
}

static void rec_free(struct rec *r)
{
	xfree(r->c);
	xfree(r->u);
}

/* Both walks with r's failure set; prints and compares everything they gave. */
static void compare(struct wfz *f, const struct rec *how, const char *what)
{
	struct rec r[2] = { *how, *how };
	struct anomaly_sink sink[2];
	struct err e[2];
	int rc[2];

	for (int k = 0; k < 2; k++)
		rc[k] = walk_once(f, k == 1, &r[k], &sink[k], &e[k]);
	printf("%s: serial rc %d \"%s\", %zu candidates, %zu units, %llu anomalies; piped rc %d \"%s\", %zu, %zu, %llu\n",
	       what, rc[0], e[0].msg, r[0].n, r[0].nu, (unsigned long long)sink[0].total, rc[1], e[1].msg, r[1].n, r[1].nu,
	       (unsigned long long)sink[1].total);
	T_EQ_I(rc[1], rc[0]);
	T_EQ_S(e[1].msg, e[0].msg);
	T_EQ_U(r[1].n, r[0].n);
	T_EQ_U(r[1].nu, r[0].nu);
	size_t bad = 0;
	for (size_t i = 0; i < r[0].n && i < r[1].n; i++)
		bad += !same_cand(&r[0].c[i], &r[1].c[i]);
	for (size_t i = 0; i < r[0].nu && i < r[1].nu; i++)
		bad += !same_unit(&r[0].u[i], &r[1].u[i]);
	T_CHECK(bad == 0, "%s: %zu candidates or units differ", what, bad);
	T_CHECK(same_anomalies(&sink[0], &sink[1]), "%s: the anomalies differ", what);
	for (int k = 0; k < 2; k++) {
		rec_free(&r[k]);
		anomaly_release(&sink[k]);
	}
}

int main(void)
{
	size_t len;
	uint8_t *in = space_input(&len);
	struct wfz f;
	struct rec r = { 0 };
	struct anomaly_sink sink;
	struct err e;

	T_SECTION("walk_all_piped = walk_all: every call, in order");
	T_CHECK(in != NULL, "no memory for the input");
	if (!in)
		T_DONE();
	T_CHECK(wfz_open(&f, in, len, SPACE_ROSALLOC) != NULL, "the fuzz image");
	T_EQ_I(walk_once(&f, false, &r, &sink, &e), 0);
	size_t n = r.n;
	printf("%zu candidates (%zu batches of 2048), %zu units, %llu anomalies\n", n, n / 2048 + 1, r.nu,
	       (unsigned long long)sink.total);
	T_CHECK(n > 8 * 2048 && sink.total > 10, "the walk goes round the queue's ring and records damage");
	rec_free(&r);
	anomaly_release(&sink);
	compare(&f, &(struct rec){ 0 }, "whole walk");

	T_SECTION("an emit or unit that fails: the same error after the same calls");
	const size_t at[] = { 1, 2048, 2049, 8 * 2048 + 3, n };
	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
		char what[64];
		snprintf(what, sizeof(what), "emit fails at %zu", at[i]);
		compare(&f, &(struct rec){ .fail_at = at[i] }, what);
	}
	compare(&f, &(struct rec){ .fail_unit = true }, "unit fails");
	wfz_close(&f);
	free(in);
	T_DONE();
}
