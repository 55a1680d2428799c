/* ordered.h - a job cut into chunks that are made on up to N threads (POSIX threads) and
 * taken in order on the caller's: for an output whose parts can be made apart but must be
 * written one after the other (heap.hprof's objects, in address order).
 *
 * make(c) fills slot c % slots, which no other chunk in flight uses; take(c) runs on the
 * caller's thread for c = 0, 1, ..., each after make(c), and may use slot c % slots until
 * it returns.  What take writes is therefore the same for every thread count.
 *
 * The first error in chunk order is returned, as a run on one thread would return it: a
 * make that fails is reported when the takes have come to its chunk (those before it done),
 * a take that fails at once; no chunk is started after either. */
#ifndef ARTCARVE_ORDERED_H
#define ARTCARVE_ORDERED_H

#include <stddef.h>

#include "carver/base/err.h"

struct ordered_ops {
	int (*make)(void *arg, unsigned slot, size_t chunk, struct err *e);   /* 0 or -ERR_* */
	int (*take)(void *arg, unsigned slot, size_t chunk, struct err *e);   /* 0 or -ERR_* */
	void *arg;
};

/* Runs chunks 0 .. chunks - 1 with threads making them (threads <= 1, or no thread can be
 * started: make and take one after the other on the caller's thread) through slots >= 1
 * slots.  0 or the first error. */
int ordered_run(const struct ordered_ops *ops, size_t chunks, unsigned threads, unsigned slots, struct err *e);

#endif
