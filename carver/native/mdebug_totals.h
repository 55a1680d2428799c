/* mdebug_totals.h - the totals of a malloc_debug scan (mdebug.h) an investigator compares
 * with the app's own accounting (Debug.getNativeHeapAllocatedSize, dumpsys meminfo's
 * "Native Heap", a leak tracker): live and freed allocations and bytes, overall, per size
 * class and per backtrace.
 *
 * Bytes are the sizes the app asked for (the header's size); usable bytes what the
 * allocator gave (usable_size).  The size class is the header's usable_size, which
 * malloc_debug takes from the allocator itself (malloc_usable_size of the block): the
 * allocator's bucket, as jemalloc or scudo rounds the request.  A backtrace is the exact
 * sequence of frame PCs the header carries (7.x/8.x with backtrace=N); allocations without
 * one share the group of zero frames.  Tag-corrupted allocations are neither live nor freed:
 * they are counted apart. */
#ifndef ARTCARVE_MDEBUG_TOTALS_H
#define ARTCARVE_MDEBUG_TOTALS_H

#include <stddef.h>
#include <stdint.h>

#include "carver/base/err.h"
#include "carver/native/mdebug.h"

struct mdebug_total {
	uint64_t live, live_bytes, live_usable;     /* allocations, requested and usable bytes */
	uint64_t freed, freed_bytes, freed_usable;
	uint64_t corrupt;                           /* tag-corrupted allocations */
};

struct mdebug_class_total {
	uint64_t usable_size;
	struct mdebug_total t;
};

struct mdebug_bt_total {
	size_t first;                   /* index in the result's allocs[] of the first one (its frames) */
	size_t frame_count;
	struct mdebug_total t;
};

struct mdebug_totals {
	struct mdebug_total all;
	struct mdebug_class_total *classes;     /* by usable_size, ascending */
	size_t class_count;
	struct mdebug_bt_total *backtraces;     /* by live bytes, then freed bytes, descending, then first */
	size_t backtrace_count;
};

/* Sums r into t (zeroed first).  0 or -ERR_NOMEM. */
int mdebug_totals_make(const struct mdebug_result *r, struct mdebug_totals *t, struct err *e);
void mdebug_totals_release(struct mdebug_totals *t);

#endif
