/* referrers.c - the reverse reference index of the object model (see referrers.h). */
#include "rosalloc/model/referrers.h"

#include <string.h>

#include "carver/base/xalloc.h"

enum { REF_MAX_DEPTH = 4096 };   /* longest super-class chain followed (hostile cycles) */

struct ref_pass {
	const struct model *m;
	struct referrers *r;
	uint32_t self;          /* index of the object whose references are read */
	uint32_t klass_off;     /* offset of the class word (not an edge) */
	bool fill;              /* second pass: write the edges */
	bool overflow;
};

static int ref_nomem(struct referrers *r, struct err *e)
{
	referrers_release(r);
	return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory building the referrer index");
}

/* model_ref_fn: counts (first pass) or stores (second pass) one reference. */
static int ref_edge(void *arg, uint32_t offset, uint32_t value)
{
	struct ref_pass *p = arg;
	size_t t;

	if (value == 0 || offset == p->klass_off || (t = model_find(p->m, value)) == MODEL_NONE)
		return 0;
	if (!p->fill) {
		if (p->r->first[t + 1] == UINT32_MAX || p->r->edges == UINT32_MAX) {
			p->overflow = true;
			return 1;
		}
		p->r->first[t + 1]++;
		p->r->edges++;
		return 0;
	}
	uint32_t k = p->r->first[t]++;   /* first[t] is t's insertion cursor during the fill */
	p->r->from[k] = p->self;
	p->r->off[k] = offset;
	return 0;
}

static int ref_pass(struct ref_pass *p, struct err *e)
{
	struct img_drop drop = { 0 };
	for (size_t i = 0; i < model_count(p->m); i++) {
		const struct model_obj *o = model_obj(p->m, i);
		if (o->alloc != MODEL_ALLOCATED)
			continue;
		img_drop_behind(model_image(p->m), &drop, model_va(p->m, o));   /* in address order: bounded memory */
		p->self = (uint32_t)i;
		int rc = model_each_ref(p->m, o, ref_edge, p, e);
		if (rc < 0)
			return rc;
		if (p->overflow)
			return ERR_SET(e, ERR_UNSUP, ERR_NO_VA, "more than %u references for the referrer index", UINT32_MAX);
	}
	return 0;
}

int referrers_build(struct referrers *r, const struct model *m, struct err *e)
{
	struct ref_pass p = { .m = m, .r = r, .klass_off = model_runtime(m)->layout->object.klass };
	int rc;

	memset(r, 0, sizeof(*r));
	if (model_count(m) >= UINT32_MAX)
		return ERR_SET(e, ERR_UNSUP, ERR_NO_VA, "%zu objects exceed the referrer index", model_count(m));
	r->count = model_count(m);
	if (!(r->first = xcalloc(model_count(m) + 1, sizeof(*r->first))))
		return ref_nomem(r, e);
	if ((rc = ref_pass(&p, e))) {
		referrers_release(r);
		return rc;
	}
	for (size_t i = 1; i <= model_count(m); i++)   /* counts -> starts: first[i] = edges before i */
		r->first[i] += r->first[i - 1];
	if (r->edges && (!(r->from = xreallocarray(NULL, r->edges, sizeof(*r->from))) ||
			 !(r->off = xreallocarray(NULL, r->edges, sizeof(*r->off)))))
		return ref_nomem(r, e);
	p.fill = true;
	if ((rc = ref_pass(&p, e))) {
		referrers_release(r);
		return rc;
	}
	/* each cursor first[t] now stands at t's end, the start of t + 1: shift back by one */
	memmove(r->first + 1, r->first, model_count(m) * sizeof(*r->first));
	r->first[0] = 0;
	return 0;
}

void referrers_release(struct referrers *r)
{
	xfree(r->first);
	xfree(r->from);
	xfree(r->off);
	memset(r, 0, sizeof(*r));
}

uint32_t referrers_of(const struct referrers *r, size_t i, const uint32_t **from, const uint32_t **off)
{
	if (i >= r->count) {
		*from = *off = NULL;
		return 0;
	}
	*from = r->from ? r->from + r->first[i] : NULL;
	*off = r->off ? r->off + r->first[i] : NULL;
	return r->first[i + 1] - r->first[i];
}

static bool is_ref_field(const struct rt_field *f)
{
	return f->type && (f->type[0] == 'L' || f->type[0] == '[');
}

bool referrers_field_at(const struct model *m, const struct model_obj *o, uint32_t off, struct referrers_field *f)
{
	const struct art_runtime *rt = model_runtime(m);
	unsigned depth = 0;

	memset(f, 0, sizeof(*f));
	f->declaring = RT_NONE;
	if (o->kind == MODEL_OBJ_ARRAY) {
		uint64_t data = model_data_addr(m, o) - model_va(m, o);
		if (off < data || (off - data) % 4 || off - data >= 4ull * model_length(m, o))
			return false;
		f->is_element = true;
		f->index = (uint32_t)((off - data) / 4);
		return true;
	}
	if (o->kind == MODEL_CLASS) {
		const struct rt_class *k = runtime_class_at(rt, model_va(m, o));
		const struct rt_statics *s = k ? &model_class(m, (size_t)(k - rt->classes))->statics : NULL;
		for (uint32_t i = 0; s && i < s->count; i++)
			if (s->v[i].offset == off && is_ref_field(&s->v[i])) {
				f->field = &s->v[i];
				f->declaring = (size_t)(k - rt->classes);
				f->is_static = true;
				return true;
			}
	}
	for (size_t c = o->cls; c != RT_NONE && depth < REF_MAX_DEPTH; c = rt->classes[c].super, depth++) {
		const struct rt_class *k = &rt->classes[c];
		for (uint32_t i = 0; i < k->field_count; i++)
			if (k->fields[i].offset == off && is_ref_field(&k->fields[i])) {
				f->field = &k->fields[i];
				f->declaring = c;
				return true;
			}
	}
	return false;
}
