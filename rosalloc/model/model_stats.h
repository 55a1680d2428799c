/* model_stats.h - the summary figures of a finished object model: objects per state, the
 * confidence histogram, strings, and per class the dropped objects and the classes ordered
 * by object count and by dropped count.  The carve summary, the report and the other
 * outputs read the same figures from here so that they agree.
 *
 * "Dropped" is an allocated object no root reaches (reach.h): what the app let go and no
 * GC has swept yet. */
#ifndef ARTCARVE_MODEL_STATS_H
#define ARTCARVE_MODEL_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "carver/base/err.h"
#include "rosalloc/model/model.h"

/* Confidence bins (model.h's scale): 100, 90-99, 70-89, below 70. */
enum { MODEL_STATS_CONF_100, MODEL_STATS_CONF_90, MODEL_STATS_CONF_70, MODEL_STATS_CONF_LOW, MODEL_STATS_CONF_COUNT };

struct model_stats {
	uint64_t alloc[MODEL_ALLOC_COUNT], content[MODEL_CONTENT_COUNT], reach[MODEL_REACH_COUNT];
	uint64_t dropped, strings, strings_dropped;
	uint64_t confidence[MODEL_STATS_CONF_COUNT];
	size_t class_count;              /* rt->class_count */
	uint64_t *per_class_dropped;     /* per class: dropped objects */
	size_t *order;                   /* class indexes by object count, descending (ties: index) */
	size_t *dropped_order;           /* class indexes by dropped count, descending (ties: index) */
};

/* Fills s from the finished model m (reachability run).  Returns 0 or -ERR_NOMEM; release s
 * in either case. */
int model_stats_make(struct model_stats *s, const struct model *m, struct err *e);
void model_stats_release(struct model_stats *s);
/* Reorders s->order and s->dropped_order so that the app's classes
 * (runtime_class_origin, art/runtime/runtime.h) with a count lead, by count, then the rest
 * as before.  Returns 0 or -ERR_NOMEM (the orders unchanged). */
int model_stats_app_first(struct model_stats *s, const struct model *m, struct err *e);
/* The n classes ordered as the app-first lists are: the app's classes with a count first, by
 * count (largest first), then the rest by count, ties by class index, into out[n].  Returns 0
 * or -ERR_NOMEM. */
int model_stats_app_order(const struct model *m, const uint64_t *count, size_t n, size_t *out, struct err *e);

/* True when o is allocated and unreachable. */
bool model_stats_is_dropped(const struct model_obj *o);
/* True when o is a java.lang.String. */
bool model_stats_is_string(const struct model *m, const struct model_obj *o);
/* The confidence bin of a confidence 0-100. */
unsigned model_stats_conf_bin(unsigned confidence);

#endif
