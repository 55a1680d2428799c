/* model_stats.c - the summary figures of a finished object model (model_stats.h). */
#include <stdlib.h>
#include <string.h>

#include "carver/base/xalloc.h"
#include "rosalloc/model/model_stats.h"

/* A class and the count it is ordered by, after its rank (0 unless the app's classes lead). */
struct ms_key {
	unsigned rank;
	uint64_t count;
	size_t cls;
};

static int ms_by_count(const void *a, const void *b)
{
	const struct ms_key *x = a, *y = b;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return (x->cls > y->cls) - (x->cls < y->cls);
}

bool model_stats_is_dropped(const struct model_obj *o)
{
	return o->alloc == MODEL_ALLOCATED && o->reach == MODEL_UNREACHABLE;
}

bool model_stats_is_string(const struct model *m, const struct model_obj *o)
{
	return o->kind == MODEL_STRING || (model_jls(m) != MODEL_NONE && o->cls == model_jls(m));
}

unsigned model_stats_conf_bin(unsigned confidence)
{
	return confidence >= 100 ? MODEL_STATS_CONF_100
	       : confidence >= 90 ? MODEL_STATS_CONF_90
	       : confidence >= 70 ? MODEL_STATS_CONF_70
				  : MODEL_STATS_CONF_LOW;
}

/* out[k] = the class with the k-th largest count[] (keys is scratch of class_count entries);
 * with rt, the app's classes that have a count first. */
static void ms_order(size_t *out, const uint64_t *count, struct ms_key *keys, size_t n, const struct art_runtime *rt)
{
	for (size_t i = 0; i < n; i++) {
		keys[i].rank = rt && !(count[i] && runtime_class_origin(rt, i) == RT_ORIGIN_APP);
		keys[i].count = count[i];
		keys[i].cls = i;
	}
	if (n)
		qsort(keys, n, sizeof(*keys), ms_by_count);
	for (size_t i = 0; i < n; i++)
		out[i] = keys[i].cls;
}

static void ms_count(struct model_stats *s, const struct model *m)
{
	for (size_t i = 0; i < model_count(m); i++) {
		const struct model_obj *o = model_obj(m, i);
		bool dropped = model_stats_is_dropped(o);
		s->alloc[o->alloc]++;
		s->content[o->content]++;
		s->reach[o->reach]++;
		s->confidence[model_stats_conf_bin(o->confidence)]++;
		s->dropped += dropped;
		if (dropped && o->cls < s->class_count)
			s->per_class_dropped[o->cls]++;
		if (model_stats_is_string(m, o)) {
			s->strings++;
			s->strings_dropped += dropped;
		}
	}
}

/* The object count of every class (out of memory: NULL). */
static uint64_t *ms_objects(const struct model *m, size_t n)
{
	uint64_t *objects = xcalloc(n ? n : 1, sizeof(uint64_t));
	for (size_t i = 0; objects && i < n; i++)
		objects[i] = model_class(m, i)->objects;
	return objects;
}

int model_stats_make(struct model_stats *s, const struct model *m, struct err *e)
{
	size_t n = model_runtime(m)->class_count, alloc_n = n ? n : 1;
	uint64_t *objects;
	struct ms_key *keys;

	memset(s, 0, sizeof(*s));
	s->class_count = n;
	s->per_class_dropped = xcalloc(alloc_n, sizeof(uint64_t));
	s->order = xcalloc(alloc_n, sizeof(size_t));
	s->dropped_order = xcalloc(alloc_n, sizeof(size_t));
	objects = ms_objects(m, n);
	keys = xcalloc(alloc_n, sizeof(*keys));
	if (!s->per_class_dropped || !s->order || !s->dropped_order || !objects || !keys) {
		xfree(objects);
		xfree(keys);
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory for the model's figures");
	}
	ms_count(s, m);
	ms_order(s->order, objects, keys, n, NULL);
	ms_order(s->dropped_order, s->per_class_dropped, keys, n, NULL);
	xfree(objects);
	xfree(keys);
	return 0;
}

int model_stats_app_first(struct model_stats *s, const struct model *m, struct err *e)
{
	size_t n = s->class_count;
	uint64_t *objects = ms_objects(m, n);
	struct ms_key *keys = xcalloc(n ? n : 1, sizeof(*keys));

	if (objects && keys) {
		ms_order(s->order, objects, keys, n, model_runtime(m));
		ms_order(s->dropped_order, s->per_class_dropped, keys, n, model_runtime(m));
	}
	xfree(objects);
	xfree(keys);
	return objects && keys ? 0 : ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory for the model's figures");
}

int model_stats_app_order(const struct model *m, const uint64_t *count, size_t n, size_t *out, struct err *e)
{
	struct ms_key *keys = xcalloc(n ? n : 1, sizeof(*keys));
	if (!keys)
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory ordering the classes");
	ms_order(out, count, keys, n, model_runtime(m));
	xfree(keys);
	return 0;
}

void model_stats_release(struct model_stats *s)
{
	xfree(s->per_class_dropped);
	xfree(s->order);
	xfree(s->dropped_order);
	memset(s, 0, sizeof(*s));
}
