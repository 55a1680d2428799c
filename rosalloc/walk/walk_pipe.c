/* walk_pipe.c - walk_all on a thread of its own (walk.h, walk_all_piped).  The walkers fill
 * batches with what they yield; the caller's thread replays each batch, in order, into the
 * caller's emit, unit and sink.  Nothing the walkers do depends on what emit does with a
 * candidate, so the calls are the ones walk_all makes, in its order: the model built from
 * them, its anomalies among them, is the same. */
#include "rosalloc/walk/walk.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "carver/base/xalloc.h"

/* Entries per batch, damage records per batch (a batch with no room for one more is handed
 * over early), batches in the ring: about 2 MB in all, so that neither thread waits for the
 * other while both have work. */
enum { PIPE_BATCH = 2048, PIPE_BATCH_ANOMS = 16, PIPE_SLOTS = 8 };

enum pipe_kind { PIPE_CAND, PIPE_UNIT, PIPE_ANOM };

struct pipe_anom {
	enum anomaly_code code;
	enum err_code cause;
	uint64_t va;
	const char *space;      /* the walker's space name: lives as long as the runtime model */
	char msg[ANOMALY_MSG_MAX];
};

struct pipe_entry {
	enum pipe_kind kind;
	union {
		struct walk_candidate c;
		struct walk_unit u;
		uint32_t anom;  /* index into the batch's anoms */
	} v;
};

struct pipe_batch {
	struct pipe_entry v[PIPE_BATCH];
	struct pipe_anom anoms[PIPE_BATCH_ANOMS];
	uint32_t n, na;
};

struct walk_pipe {
	const struct walk_ctx *ctx;     /* the caller's: emit, unit, sink */
	struct walk_ctx inner;          /* the walkers': into the ring */
	struct pipe_batch *ring;        /* PIPE_SLOTS batches */
	struct pipe_batch *cur;         /* the walkers' batch being filled, NULL between two */
	pthread_mutex_t mu;
	pthread_cond_t more, room;      /* a batch handed over or the walk ended; a batch replayed or stop */
	uint64_t published, replayed;   /* batches so far; ring[published % PIPE_SLOTS] is filled next */
	bool ended, stop;               /* the walkers returned (rc, err); the caller wants no more */
	int rc;
	struct err err;
};

/* ---- the walkers' thread ---- */

static void pipe_publish(struct walk_pipe *p)
{
	pthread_mutex_lock(&p->mu);
	p->published++;
	pthread_cond_signal(&p->more);
	pthread_mutex_unlock(&p->mu);
	p->cur = NULL;
}

/* The next batch to fill, once the caller has replayed it; NULL when the caller stopped. */
static struct pipe_batch *pipe_next(struct walk_pipe *p)
{
	struct pipe_batch *b = NULL;
	pthread_mutex_lock(&p->mu);
	while (p->published - p->replayed == PIPE_SLOTS && !p->stop)
		pthread_cond_wait(&p->room, &p->mu);
	if (!p->stop) {
		b = &p->ring[p->published % PIPE_SLOTS];
		b->n = b->na = 0;
	}
	pthread_mutex_unlock(&p->mu);
	return b;
}

/* Room for one more entry (with a damage record when anom), NULL when the caller stopped. */
static struct pipe_entry *pipe_entry(struct walk_pipe *p, bool anom)
{
	if (p->cur && (p->cur->n == PIPE_BATCH || (anom && p->cur->na == PIPE_BATCH_ANOMS)))
		pipe_publish(p);
	if (!p->cur && !(p->cur = pipe_next(p)))
		return NULL;
	return &p->cur->v[p->cur->n++];
}

/* What a walker gets back once the caller has stopped: it unwinds; the caller's own error is
 * the one returned. */
static int pipe_stopped(struct err *e)
{
	return ERR_SET(e, ERR_INTERNAL, ERR_NO_VA, "the walk was stopped");
}

static int pipe_emit(void *arg, const struct walk_candidate *c, struct err *e)
{
	struct pipe_entry *x = pipe_entry(arg, false);
	if (!x)
		return pipe_stopped(e);
	x->kind = PIPE_CAND;
	x->v.c = *c;
	return 0;
}

static int pipe_unit(void *arg, const struct walk_unit *u, struct err *e)
{
	struct pipe_entry *x = pipe_entry(arg, false);
	if (!x)
		return pipe_stopped(e);
	x->kind = PIPE_UNIT;
	x->v.u = *u;
	return 0;
}

static void pipe_anom(void *arg, enum anomaly_code code, enum err_code cause, uint64_t va, const char *space,
		      const char *msg)
{
	struct walk_pipe *p = arg;
	struct pipe_entry *x = pipe_entry(p, true);
	if (!x)
		return;   /* stopped: nothing more is recorded */
	struct pipe_anom *a = &p->cur->anoms[p->cur->na];
	x->kind = PIPE_ANOM;
	x->v.anom = p->cur->na++;
	a->code = code;
	a->cause = cause;
	a->va = va;
	a->space = space;
	snprintf(a->msg, sizeof(a->msg), "%s", msg);
}

static void *pipe_walkers(void *arg)
{
	struct walk_pipe *p = arg;
	struct err e;
	err_init(&e);
	int rc = walk_all(&p->inner, &e);
	if (p->cur)
		pipe_publish(p);
	pthread_mutex_lock(&p->mu);
	p->ended = true;
	p->rc = rc;
	p->err = e;
	pthread_cond_signal(&p->more);
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

/* ---- the caller's thread ---- */

static int pipe_replay(const struct walk_ctx *c, const struct pipe_batch *b, struct err *e)
{
	for (uint32_t i = 0; i < b->n; i++) {
		const struct pipe_entry *x = &b->v[i];
		const struct pipe_anom *a;
		int rc = 0;
		switch (x->kind) {
		case PIPE_CAND:
			rc = c->emit(c->arg, &x->v.c, e);
			break;
		case PIPE_UNIT:
			rc = c->unit(c->unit_arg, &x->v.u, e);
			break;
		case PIPE_ANOM:
			a = &b->anoms[x->v.anom];
			if (c->anom)
				c->anom(c->anom_arg, a->code, a->cause, a->va, a->space, a->msg);
			else
				anomaly_add(c->sink, a->code, a->cause, a->va, a->space, "%s", a->msg);
			break;
		}
		if (rc)
			return rc;
	}
	return 0;
}

/* Replays every batch as it comes until the walk has ended (its error then, if any) or a
 * replay fails (the walkers are told to stop). */
static int pipe_drain(struct walk_pipe *p, struct err *e)
{
	int rc = 0;
	for (;;) {
		pthread_mutex_lock(&p->mu);
		while (p->replayed == p->published && !p->ended)
			pthread_cond_wait(&p->more, &p->mu);
		if (p->replayed == p->published) {   /* ended, all replayed */
			if ((rc = p->rc))
				*e = p->err;
			pthread_mutex_unlock(&p->mu);
			return rc;
		}
		const struct pipe_batch *b = &p->ring[p->replayed % PIPE_SLOTS];
		pthread_mutex_unlock(&p->mu);
		rc = pipe_replay(p->ctx, b, e);
		pthread_mutex_lock(&p->mu);
		p->replayed++;
		p->stop = rc != 0;
		pthread_cond_signal(&p->room);
		pthread_mutex_unlock(&p->mu);
		if (rc)
			return rc;
	}
}

int walk_all_piped(const struct walk_ctx *ctx, struct err *e)
{
	struct walk_ctx serial = *ctx;
	struct walk_evidence *own = NULL;
	struct walk_pipe *p;
	pthread_t t;
	int rc;

	/* the evidence opened first, here, as walk_all opens it: its damage comes first */
	if (!ctx->ev && !(own = serial.ev = walk_evidence_open(ctx->rt, ctx->sink, e)))
		return -ERR_NOMEM;
	if (!(p = xcalloc(1, sizeof(*p))) || !(p->ring = xcalloc(PIPE_SLOTS, sizeof(*p->ring)))) {
		xfree(p);
		walk_evidence_close(own);
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory for the walk's queue");
	}
	p->ctx = &serial;
	p->inner = serial;
	p->inner.emit = pipe_emit;
	p->inner.arg = p;
	p->inner.unit = ctx->unit ? pipe_unit : NULL;
	p->inner.unit_arg = p;
	p->inner.anom = pipe_anom;
	p->inner.anom_arg = p;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->more, NULL);
	pthread_cond_init(&p->room, NULL);
	if (pthread_create(&t, NULL, pipe_walkers, p) != 0) {
		rc = walk_all(&serial, e);
	} else {
		rc = pipe_drain(p, e);
		pthread_join(t, NULL);
	}
	pthread_cond_destroy(&p->room);
	pthread_cond_destroy(&p->more);
	pthread_mutex_destroy(&p->mu);
	xfree(p->ring);
	xfree(p);
	walk_evidence_close(own);
	return rc;
}
