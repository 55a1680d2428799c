/* ordered.c - see ordered.h. */
#include "carver/base/ordered.h"

#include <pthread.h>
#include <stdbool.h>

#include "carver/base/xalloc.h"

enum { ORDERED_THREADS_MAX = 64 };

struct ordered_slot {
	bool made;              /* make has returned for the chunk in the slot */
	int rc;
	struct err err;
};

struct ordered {
	const struct ordered_ops *ops;
	size_t chunks;
	size_t next;            /* the next chunk to make */
	size_t taken;           /* chunks taken */
	unsigned slots;
	struct ordered_slot *s;
	bool stop;              /* an error: no chunk is started any more */
	pthread_mutex_t mu;
	pthread_cond_t made;    /* a chunk was made */
	pthread_cond_t room;    /* a slot was taken, or stop */
};

static void *ordered_maker(void *arg)
{
	struct ordered *o = arg;
	pthread_mutex_lock(&o->mu);
	for (;;) {
		while (!o->stop && o->next < o->chunks && o->next - o->taken >= o->slots)
			pthread_cond_wait(&o->room, &o->mu);
		if (o->stop || o->next >= o->chunks)
			break;
		size_t c = o->next++;
		struct ordered_slot *s = &o->s[c % o->slots];
		pthread_mutex_unlock(&o->mu);
		struct err e;
		err_init(&e);
		int rc = o->ops->make(o->ops->arg, (unsigned)(c % o->slots), c, &e);
		pthread_mutex_lock(&o->mu);
		s->rc = rc;
		s->err = e;
		s->made = true;
		o->stop = o->stop || rc != 0;
		pthread_cond_broadcast(&o->made);
	}
	pthread_mutex_unlock(&o->mu);
	return NULL;
}

/* The caller's part: each chunk taken once made; the first error in chunk order. */
static int ordered_take_all(struct ordered *o, struct err *e)
{
	int rc = 0;
	for (size_t c = 0; rc == 0 && c < o->chunks; c++) {
		struct ordered_slot *s = &o->s[c % o->slots];
		pthread_mutex_lock(&o->mu);
		while (!s->made)
			pthread_cond_wait(&o->made, &o->mu);
		if ((rc = s->rc))
			*e = s->err;
		pthread_mutex_unlock(&o->mu);
		if (rc == 0)
			rc = o->ops->take(o->ops->arg, (unsigned)(c % o->slots), c, e);
		pthread_mutex_lock(&o->mu);
		s->made = false;
		o->taken++;
		o->stop = o->stop || rc != 0;
		pthread_cond_broadcast(&o->room);
		pthread_mutex_unlock(&o->mu);
	}
	return rc;
}

static int ordered_serial(const struct ordered_ops *ops, size_t chunks, unsigned slots, struct err *e)
{
	int rc = 0;
	for (size_t c = 0; rc == 0 && c < chunks; c++) {
		unsigned slot = (unsigned)(c % slots);
		if ((rc = ops->make(ops->arg, slot, c, e)) == 0)
			rc = ops->take(ops->arg, slot, c, e);
	}
	return rc;
}

int ordered_run(const struct ordered_ops *ops, size_t chunks, unsigned threads, unsigned slots, struct err *e)
{
	struct ordered o = { .ops = ops, .chunks = chunks, .slots = slots };
	pthread_t tid[ORDERED_THREADS_MAX];
	unsigned started = 0;
	int rc;

	if (slots == 0)
		return ERR_SET(e, ERR_INTERNAL, ERR_NO_VA, "ordered_run: no slot");
	if (threads <= 1 || chunks <= 1)
		return ordered_serial(ops, chunks, slots, e);
	if (threads > ORDERED_THREADS_MAX)
		threads = ORDERED_THREADS_MAX;
	if (!(o.s = xcalloc(slots, sizeof(*o.s))))
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory for %u slots", slots);
	pthread_mutex_init(&o.mu, NULL);
	pthread_cond_init(&o.made, NULL);
	pthread_cond_init(&o.room, NULL);
	while (started < threads && pthread_create(&tid[started], NULL, ordered_maker, &o) == 0)
		started++;
	if (started == 0) {
		rc = ordered_serial(ops, chunks, slots, e);
	} else {
		rc = ordered_take_all(&o, e);
		pthread_mutex_lock(&o.mu);
		o.stop = true;
		pthread_cond_broadcast(&o.room);
		pthread_mutex_unlock(&o.mu);
	}
	for (unsigned t = 0; t < started; t++)
		pthread_join(tid[t], NULL);
	pthread_cond_destroy(&o.room);
	pthread_cond_destroy(&o.made);
	pthread_mutex_destroy(&o.mu);
	xfree(o.s);
	return rc;
}
