/* validate.c - the comparison engine (see validate.h): loads both inputs into sorted indexes,
 * matches objects by (address, class name), counts, compares the contents of matched objects,
 * and walks the object graph from the roots for reachability.
 *
 * Populations: recall counts the truth's allocated objects (what a heap dump holds; free
 * objects of a truth.jsonl show in the state rows), precision every result object.  Contents
 * are compared on matched objects whose truth object is allocated. */
#include <stdlib.h>
#include <string.h>

#include "carver/base/xalloc.h"
#include "output/compare/vd_int.h"

struct vd_priv {
	struct vd_names names;
	struct vd_named_count *heaps;   /* storage of truth_heaps and result_heaps */
};

struct vd_ctx {
	struct vd_names *names;
	struct vd_side res, tru;
	struct vd_options opt;
	struct vd_report *r;
	uint32_t *match;        /* per truth entry: result entry + 1, 0 when none */
	uint8_t *rmatched;      /* per result entry: matched */
	uint8_t *tlabel;        /* per truth entry: root kind + 1 that reaches it (walks), 0 none */
	uint32_t n_string, n_overhead, n_overhead2, n_count;
	struct vd_view tv, rv;
	/* field disagreements per (class, field) */
	uint64_t *dkeys, *dcounts;
	size_t dcap, dn;
};

/* ---- names for the report ----------------------------------------------------------------- */

const char *vd_kind_name(enum vd_kind k)
{
	static const char *const n[] = { "instance", "object-array", "primitive-array", "class" };
	return (unsigned)k < VD_KIND_COUNT ? n[k] : "?";
}

const char *vd_syn_name(enum vd_syn s)
{
	static const char *const n[] = { "string_value_array", "class_statics_array", "runtime_internal_object_array" };
	return (unsigned)s < VD_SYN_COUNT ? n[s] : "?";
}

const char *vd_dim_name(enum vd_dim d)
{
	static const char *const n[] = { "alloc", "content", "reach" };
	return (unsigned)d < VD_DIM_COUNT ? n[d] : "?";
}

const char *vd_state_name(enum vd_dim d, unsigned value)
{
	static const char *const n[VD_DIM_COUNT][VD_STATE_VALUES] = {
		{ "allocated", "free", NULL }, { "intact", "partial", "residue" },
		{ "reachable", "unreachable", "unknown" },
	};
	return (unsigned)d < VD_DIM_COUNT && value < VD_STATE_VALUES ? n[d][value] : NULL;
}

const char *vd_root_kind_name(enum vd_root_kind k)
{
	static const char *const n[] = {
		"sticky_class", "thread_object", "vm_internal", "interned_string", "jni_global", "java_frame",
		"jni_local", "native_stack", "thread_block", "monitor_used", "jni_monitor", "finalizing",
		"reference_cleanup", "debugger", "unknown", "runtime_internal",
	};
	return (unsigned)k < VD_ROOT_KIND_COUNT ? n[k] : "?";
}

/* ---- loading -------------------------------------------------------------------------------- */

static int vd_load(struct vd_side *s, const struct vd_input *in, struct vd_names *names, struct err *e)
{
	size_t i = 0;
	int rc;

	s->in = *in;
	s->names = names;
	s->info.label = in->label;
	if (hprof_probe(in->data, in->len))
		rc = vd_hprof_load(s, e);
	else {
		while (i < in->len && (in->data[i] == ' ' || in->data[i] == '\n' || in->data[i] == '\r' ||
				       in->data[i] == '\t'))
			i++;
		if (i == in->len || in->data[i] != '{')
			return ERR_SET(e, ERR_CORRUPT, 0, "%s: neither an HPROF file nor a truth.jsonl", in->label);
		rc = vd_jsonl_load(s, e);
	}
	if (rc)
		return rc;
	for (i = 0; i < s->n; i++) {
		const struct vd_obj *o = &s->obj[i];
		int syn = vd_obj_syn(o);
		if (syn >= 0)
			s->info.synthetic[syn]++;
		if (!vd_obj_real(o))
			continue;
		s->info.objects++;
		s->info.by_kind[o->kind]++;
		s->info.duplicate_ids += i > 0 && s->obj[i - 1].id == o->id && vd_obj_real(&s->obj[i - 1]);
	}
	s->info.roots = s->nroots;
	for (i = 0; i < s->nroots; i++)
		s->info.roots_by_kind[s->roots[i].kind]++;
	return 0;
}

/* ---- address aliases ------------------------------------------------------------------------ */

/* The carved HPROF gives objects above 4 GiB ids in alias windows (output/hprof/hprof_mark.h);
 * the truth names them by their real addresses.  Truth ids in a window's real range take the
 * window's ids, so that both sides meet; examples show real addresses again (vd_real_id). */
static void vd_alias_truth(struct vd_ctx *c)
{
	const struct vd_side *r = &c->res;
	struct vd_side *t = &c->tru;
	bool moved = false;

	for (size_t a = 0; a < r->naliases; a++) {
		const struct vd_alias *w = &r->aliases[a];
		for (size_t i = 0; i < t->n; i++)
			if (t->obj[i].id >= w->addr && t->obj[i].id - w->addr < w->len) {
				t->obj[i].id = t->obj[i].id - w->addr + w->id;
				moved = true;
			}
	}
	if (moved)
		vd_side_sort(t);
}

/* The real address an id of the carved HPROF stands for. */
static uint64_t vd_real_id(const struct vd_ctx *c, uint64_t id)
{
	for (size_t a = 0; a < c->res.naliases; a++) {
		const struct vd_alias *w = &c->res.aliases[a];
		if (id >= w->id && id - w->id < w->len)
			return id - w->id + w->addr;
	}
	return id;
}

/* ---- examples ------------------------------------------------------------------------------ */

static int vd_example(struct vd_ctx *c, struct vd_examples *x, uint64_t id, uint32_t cls, const char *what,
		      const char *truth, const char *result, struct err *e)
{
	size_t cap = x->cap;
	int rc;

	x->total++;
	if (x->n >= c->opt.examples)
		return 0;
	if ((rc = vd_grow((void **)&x->v, &cap, x->n, sizeof(*x->v), e)))
		return rc;
	x->cap = (unsigned)cap;
	struct vd_example *ex = &x->v[x->n++];
	memset(ex, 0, sizeof(*ex));
	ex->id = vd_real_id(c, id);
	ex->cls = c->names->v[cls].s;
	if (what) {
		uint32_t k;
		if ((rc = vd_names_add(c->names, what, strlen(what), &k, e)))
			return rc;
		ex->what = c->names->v[k].s;
	}
	snprintf(ex->truth, sizeof(ex->truth), "%s", truth ? truth : "");
	snprintf(ex->result, sizeof(ex->result), "%s", result ? result : "");
	return 0;
}

/* ---- matching ------------------------------------------------------------------------------- */

static int vd_match(struct vd_ctx *c, struct err *e)
{
	struct vd_side *t = &c->tru, *r = &c->res;
	size_t i = 0, j = 0;
	int rc;

	c->match = xcalloc(t->n ? t->n : 1, sizeof(*c->match));
	c->rmatched = xcalloc(r->n ? r->n : 1, 1);
	if (!c->match || !c->rmatched)
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory for %zu + %zu objects", t->n, r->n);
	while (i < t->n) {
		uint64_t id = t->obj[i].id;
		size_t i2 = i, j2;
		while (i2 < t->n && t->obj[i2].id == id)
			i2++;
		while (j < r->n && r->obj[j].id < id)
			j++;
		for (j2 = j; j2 < r->n && r->obj[j2].id == id; j2++)
			;
		for (size_t a = i; a < i2; a++) {
			bool other_class = false;
			if (!vd_obj_real(&t->obj[a]))
				continue;
			for (size_t b = j; b < j2; b++) {
				if (!vd_obj_real(&r->obj[b]) || c->rmatched[b])
					continue;
				if (r->obj[b].cls == t->obj[a].cls) {
					c->match[a] = (uint32_t)(b + 1);
					c->rmatched[b] = 1;
					break;
				}
				other_class = true;
			}
			if (!c->match[a] && other_class) {
				c->r->class_mismatch++;
				for (size_t b = j; b < j2; b++)
					if (vd_obj_real(&r->obj[b]) && !c->rmatched[b]) {
						rc = vd_example(c, &c->r->mismatched, id, t->obj[a].cls, "class",
								c->names->v[t->obj[a].cls].s, c->names->v[r->obj[b].cls].s, e);
						if (rc)
							return rc;
						break;
					}
			}
		}
		i = i2;
		j = j2;
	}
	return 0;
}

static inline bool vd_truth_counted(const struct vd_obj *o)
{
	return vd_obj_real(o) && VD_ST_GET(o->state, VD_DIM_ALLOC) == VD_ALLOCATED;
}

/* A result object the truth can judge: a runtime's HPROF holds no free objects, so the free
 * ones a carver adds (carve --include free,residue) are neither found nor invented there. */
static inline bool vd_result_counted(const struct vd_ctx *c, const struct vd_obj *o)
{
	return vd_obj_real(o) && !(c->tru.fmt == VD_FMT_HPROF && VD_ST_GET(o->state, VD_DIM_ALLOC) == VD_FREE);
}

/* ---- walk gaps ------------------------------------------------------------------------------ */

/* True when the truth holds an entry in [lo, hi): its own walk went past the gap's start. */
static bool vd_truth_walked(const struct vd_side *t, uint64_t lo, uint64_t hi)
{
	for (size_t i = vd_side_lower(t, lo); i < t->n && t->obj[i].id < hi; i++)
		if (!(t->obj[i].flags & VD_F_MARK))
			return true;
	return false;
}

/* Flags VD_F_BEYOND on the unmatched result objects in [end, space_end) of each walk gap of
 * RESULT (output/hprof/hprof_mark.h) when the truth lists nothing from the gap's start to
 * space_end: live objects that the runtime's own walk stopped short of.  Where the truth
 * does list objects there, its walk went on and an unmatched result object is invented. */
static void vd_beyond_walk(struct vd_ctx *c)
{
	struct vd_side *r = &c->res;

	for (size_t g = 0; g < r->ngaps; g++) {
		const struct vd_gap *w = &r->gaps[g];
		if (vd_truth_walked(&c->tru, w->start, w->space_end))
			continue;
		for (size_t i = vd_side_lower(r, w->end); i < r->n && r->obj[i].id < w->space_end; i++)
			if (vd_result_counted(c, &r->obj[i]) && !c->rmatched[i])
				r->obj[i].flags |= VD_F_BEYOND;
	}
}

/* ---- counts: overall, kinds, heaps, classes ---------------------------------------------------- */

static void vd_heap_rows(struct vd_ctx *c, const struct vd_side *s, bool truth, struct vd_named_count *rows)
{
	for (unsigned h = 0; h <= VD_MAX_HEAPS; h++)
		rows[h].name = c->names->v[s->heap_names[h]].s;
	for (size_t i = 0; i < s->n; i++) {
		const struct vd_obj *o = &s->obj[i];
		struct vd_count *k = &rows[o->heap].c;
		if (truth && vd_truth_counted(o)) {
			k->truth++;
			k->matched += c->match[i] != 0;
		} else if (!truth && vd_result_counted(c, o)) {
			k->result++;
			k->result_matched += c->rmatched[i];
			k->beyond_walk += (o->flags & VD_F_BEYOND) != 0;
		}
	}
}

static int vd_heaps(struct vd_ctx *c, struct err *e)
{
	struct vd_priv *p = c->r->priv;
	struct vd_named_count *tmp = xcalloc(2 * (VD_MAX_HEAPS + 1), sizeof(*tmp));
	unsigned nt = 0, nr = 0;

	if (!tmp)
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory");
	p->heaps = tmp;
	vd_heap_rows(c, &c->tru, true, tmp);
	vd_heap_rows(c, &c->res, false, tmp + VD_MAX_HEAPS + 1);
	/* keep the heaps that hold objects, in order of first appearance */
	for (unsigned h = 0; h <= VD_MAX_HEAPS; h++)
		if (tmp[h].c.truth)
			tmp[nt++] = tmp[h];
	for (unsigned h = 0; h <= VD_MAX_HEAPS; h++)
		if (tmp[VD_MAX_HEAPS + 1 + h].c.result)
			tmp[VD_MAX_HEAPS + 1 + nr++] = tmp[VD_MAX_HEAPS + 1 + h];
	c->r->truth_heaps = tmp;
	c->r->truth_heap_count = nt;
	c->r->result_heaps = tmp + VD_MAX_HEAPS + 1;
	c->r->result_heap_count = nr;
	return 0;
}

static int class_row_cmp(const void *a, const void *b)
{
	const struct vd_named_count *x = a, *y = b;
	if (x->c.truth != y->c.truth)
		return x->c.truth > y->c.truth ? -1 : 1;
	if (x->c.result != y->c.result)
		return x->c.result > y->c.result ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int vd_classes(struct vd_ctx *c, struct err *e)
{
	struct vd_report *r = c->r;
	size_t nn = c->names->n, k = 0, rows = 0;
	struct vd_named_count *all = xcalloc(nn ? nn : 1, sizeof(*all));

	if (!all)
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory");
	for (size_t i = 0; i < c->tru.n; i++)
		if (vd_truth_counted(&c->tru.obj[i])) {
			all[c->tru.obj[i].cls].c.truth++;
			all[c->tru.obj[i].cls].c.matched += c->match[i] != 0;
		}
	for (size_t i = 0; i < c->res.n; i++) {
		const struct vd_obj *o = &c->res.obj[i];
		if (!vd_obj_real(o) || VD_ST_GET(o->state, VD_DIM_ALLOC) == VD_FREE)
			continue;
		all[o->cls].c.result++;
		all[o->cls].c.result_matched += c->rmatched[i];
		all[o->cls].c.beyond_walk += (o->flags & VD_F_BEYOND) != 0;
	}
	for (size_t i = 0; i < nn; i++) {
		all[i].name = c->names->v[i].s;
		if (all[i].c.truth || all[i].c.result) {
			all[rows++] = all[i];
		}
	}
	qsort(all, rows, sizeof(*all), class_row_cmp);
	r->classes_total = rows;
	for (size_t i = 0; i < rows; i++) {
		/* objects past a walk gap the truth did not walk are no difference of the class */
		bool differs = all[i].c.truth != all[i].c.result - all[i].c.beyond_walk;
		r->classes_differing += differs;
		if (i < c->opt.per_class || differs)
			all[k++] = all[i];
	}
	r->classes = all;
	r->class_count = (unsigned)k;
	return 0;
}

static int vd_counts(struct vd_ctx *c, struct err *e)
{
	struct vd_report *r = c->r;
	int rc;

	for (size_t i = 0; i < c->tru.n; i++) {
		const struct vd_obj *o = &c->tru.obj[i];
		if (!vd_truth_counted(o))
			continue;
		r->overall.truth++;
		r->by_kind[o->kind].truth++;
		if (c->match[i]) {
			r->overall.matched++;
			r->by_kind[o->kind].matched++;
		} else if ((rc = vd_example(c, &r->missed, o->id, o->cls, vd_kind_name(o->kind), NULL, NULL, e))) {
			return rc;
		}
	}
	for (size_t i = 0; i < c->res.n; i++) {
		const struct vd_obj *o = &c->res.obj[i];
		if (!vd_obj_real(o))
			continue;
		if (!vd_result_counted(c, o)) {
			r->result_free_unjudged++;
			continue;
		}
		r->overall.result++;
		r->by_kind[o->kind].result++;
		if (c->rmatched[i]) {
			r->overall.result_matched++;
			r->by_kind[o->kind].result_matched++;
		} else if (o->flags & VD_F_BEYOND) {
			r->overall.beyond_walk++;
			r->by_kind[o->kind].beyond_walk++;
			if ((rc = vd_example(c, &r->beyond_walk, o->id, o->cls, vd_kind_name(o->kind), NULL, NULL, e)))
				return rc;
		} else if ((rc = vd_example(c, &r->invented, o->id, o->cls, vd_kind_name(o->kind), NULL, NULL, e))) {
			return rc;
		}
	}
	if ((rc = vd_heaps(c, e)))
		return rc;
	return vd_classes(c, e);
}

/* ---- reachability ------------------------------------------------------------------------ */

struct vd_walk {
	struct vd_side *s;
	uint8_t *label;
	uint32_t *queue;
	size_t qn;
	uint8_t kind;
	uint64_t dangling;
	uint32_t *later;        /* runtime-internal arrays met, followed in the last pass */
	size_t nlater, later_cap;
	int rc;
	struct err *e;
};

#define VD_LABEL_LATER 0xff

static void vd_walk_visit(void *ctx, uint64_t id)
{
	struct vd_walk *w = ctx;
	size_t j = vd_side_find(w->s, id);

	if (j == SIZE_MAX) {
		w->dangling++;
		return;
	}
	for (; j < w->s->n && w->s->obj[j].id == id; j++) {
		if (w->label[j] || (w->s->obj[j].flags & VD_F_MARK))
			continue;
		if (vd_obj_syn(&w->s->obj[j]) == VD_SYN_RUNTIME_INTERNAL && w->kind != VD_ROOT_RUNTIME_INTERNAL) {
			int rc = vd_grow((void **)&w->later, &w->later_cap, w->nlater, sizeof(*w->later), w->e);
			if (rc) {
				w->rc = rc;
				return;
			}
			w->label[j] = VD_LABEL_LATER;
			w->later[w->nlater++] = (uint32_t)j;
			continue;
		}
		w->label[j] = (uint8_t)(w->kind + 1);
		w->queue[w->qn++] = (uint32_t)j;
	}
}

/* Labels every entry of s with the kind + 1 of the first root kind (in enum order) whose
 * roots reach it; 0 = unreachable.  label has s->n entries. */
static int vd_walk(struct vd_side *s, uint8_t *label, struct err *e)
{
	struct vd_walk w = { .s = s, .label = label, .e = e };
	int rc = 0;

	if (s->n > UINT32_MAX)
		return ERR_SET(e, ERR_UNSUP, ERR_NO_VA, "%s: too many objects to walk", s->in.label);
	w.queue = xcalloc(s->n ? s->n : 1, sizeof(*w.queue));
	if (!w.queue)
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory for the reachability walk");
	for (unsigned k = 0; k < VD_ROOT_KIND_COUNT && !rc; k++) {
		size_t head = 0;
		w.kind = (uint8_t)k;
		w.qn = 0;
		for (size_t i = 0; i < s->nroots; i++)
			if (s->roots[i].kind == k)
				vd_walk_visit(&w, s->roots[i].id);
		for (size_t i = 0; k == VD_ROOT_RUNTIME_INTERNAL && i < w.nlater; i++) {
			label[w.later[i]] = (uint8_t)(k + 1);
			w.queue[w.qn++] = w.later[i];
		}
		while (head < w.qn && !rc && !w.rc)
			rc = vd_hprof_refs(s, w.queue[head++], vd_walk_visit, &w, e);
		if (!rc)
			rc = w.rc;
	}
	s->info.dangling_refs = w.dangling;
	xfree(w.queue);
	xfree(w.later);
	return rc;
}

/* Reachability of both sides: truth from its own states (truth.jsonl) or a walk of its roots;
 * result from its marks, else a walk of its roots. */
static int vd_reach_states(struct vd_ctx *c, struct err *e)
{
	struct vd_reach *rr = &c->r->reach;
	int rc;

	if (c->tru.fmt == VD_FMT_HPROF) {
		rr->truth_source = "roots";
		c->tlabel = xcalloc(c->tru.n ? c->tru.n : 1, 1);
		if (!c->tlabel)
			return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory");
		if ((rc = vd_walk(&c->tru, c->tlabel, e)))
			return rc;
		for (size_t i = 0; i < c->tru.n; i++)
			c->tru.obj[i].state = vd_st_set(c->tru.obj[i].state, VD_DIM_REACH,
							c->tlabel[i] ? VD_REACHABLE : VD_UNREACHABLE);
		for (int d = 0; d < VD_DIM_COUNT; d++)
			c->tru.info.states[d] = true;   /* a runtime's dump: allocated, intact objects */
	} else {
		rr->truth_source = "truth.jsonl";
	}
	if (c->res.info.states[VD_DIM_REACH]) {
		rr->result_source = "marks";
	} else if (c->res.fmt == VD_FMT_HPROF && c->res.nroots) {
		uint8_t *label = xcalloc(c->res.n ? c->res.n : 1, 1);
		rr->result_source = "roots";
		if (!label)
			return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory");
		rc = vd_walk(&c->res, label, e);
		for (size_t i = 0; !rc && i < c->res.n; i++)
			c->res.obj[i].state = vd_st_set(c->res.obj[i].state, VD_DIM_REACH,
							label[i] ? VD_REACHABLE : VD_UNREACHABLE);
		xfree(label);
		if (rc)
			return rc;
	} else {
		rr->result_source = "none";
	}
	return 0;
}

static bool vd_result_has_reach(const struct vd_ctx *c)
{
	return strcmp(c->r->reach.result_source, "none") != 0;
}

static int vd_reach_figures(struct vd_ctx *c, struct err *e)
{
	struct vd_reach *rr = &c->r->reach;
	bool rknown = vd_result_has_reach(c);

	for (size_t i = 0; i < c->tru.n; i++) {
		const struct vd_obj *o = &c->tru.obj[i];
		unsigned treach;
		if (!vd_truth_counted(o))
			continue;
		treach = VD_ST_GET(o->state, VD_DIM_REACH);
		if (treach == VD_UNREACHABLE)
			rr->truth_unreachable++;
		else
			rr->truth_reachable++;
		if (c->tlabel && c->tlabel[i])
			rr->reached_by_root[c->tlabel[i] - 1]++;
		if (!c->match[i] || !rknown)
			continue;
		unsigned rreach = VD_ST_GET(c->res.obj[c->match[i] - 1].state, VD_DIM_REACH);
		const char *root = c->tlabel && c->tlabel[i] ? vd_root_kind_name(c->tlabel[i] - 1) : "a root";
		int rc = 0;
		if (treach == VD_UNREACHABLE) {
			rr->unreachable_found++;
			rr->unreachable_agree += rreach == VD_UNREACHABLE;
			if (rreach == VD_REACHABLE) {
				rr->false_reachable++;
				rc = vd_example(c, &rr->ex, o->id, o->cls, "reach", "unreachable", "reachable", e);
			}
		} else if (rreach == VD_UNREACHABLE) {
			rr->false_unreachable++;
			if (c->tlabel && c->tlabel[i])
				rr->false_unreachable_by_root[c->tlabel[i] - 1]++;
			char tb[48];
			snprintf(tb, sizeof(tb), "reached from %s", root);
			rc = vd_example(c, &rr->ex, o->id, o->cls, "reach", tb, "unreachable", e);
		}
		if (rc)
			return rc;
	}
	for (size_t i = 0; rknown && i < c->res.n; i++) {
		const struct vd_obj *o = &c->res.obj[i];
		if (!vd_obj_real(o))
			continue;
		rr->result_unreachable += VD_ST_GET(o->state, VD_DIM_REACH) == VD_UNREACHABLE;
		rr->result_unknown += VD_ST_GET(o->state, VD_DIM_REACH) == VD_REACH_UNKNOWN;
	}
	return 0;
}

/* ---- states -------------------------------------------------------------------------------- */

static void vd_states(struct vd_ctx *c)
{
	struct vd_report *r = c->r;
	bool rdim[VD_DIM_COUNT];

	for (int d = 0; d < VD_DIM_COUNT; d++)
		r->result_dims[d] = rdim[d] = d == VD_DIM_REACH ? vd_result_has_reach(c) : c->res.info.states[d];
	for (size_t i = 0; i < c->tru.n; i++) {
		const struct vd_obj *o = &c->tru.obj[i];
		if (!vd_obj_real(o))
			continue;
		for (int d = 0; d < VD_DIM_COUNT; d++) {
			struct vd_state_row *row = &r->states[d][VD_ST_GET(o->state, d)];
			row->truth++;
			if (!c->match[i])
				continue;
			row->found++;
			row->agree += rdim[d] && VD_ST_GET(c->res.obj[c->match[i] - 1].state, d) == VD_ST_GET(o->state, d);
		}
	}
	for (size_t i = 0; i < c->res.n; i++) {
		const struct vd_obj *o = &c->res.obj[i];
		if (!vd_obj_real(o))
			continue;
		for (int d = 0; d < VD_DIM_COUNT; d++) {
			if (!rdim[d])
				continue;
			r->states[d][VD_ST_GET(o->state, d)].result++;
		}
	}
	for (size_t i = 0; i < c->tru.n; i++) {
		const struct vd_obj *o = &c->tru.obj[i];
		if (!vd_obj_real(o) || !c->match[i])
			continue;
		const struct vd_obj *ro = &c->res.obj[c->match[i] - 1];
		for (int d = 0; d < VD_DIM_COUNT; d++)
			if (rdim[d] && VD_ST_GET(ro->state, d) == VD_ST_GET(o->state, d))
				r->states[d][VD_ST_GET(ro->state, d)].result_true++;
	}
}

/* ---- contents -------------------------------------------------------------------------------- */

static int vd_view(struct vd_side *s, size_t i, struct vd_view *v, struct err *e)
{
	return s->fmt == VD_FMT_HPROF ? vd_hprof_view(s, i, v, e) : vd_jsonl_view(s, i, v, e);
}

static int vd_diff_count(struct vd_ctx *c, uint32_t cls, uint32_t field, struct err *e)
{
	uint64_t key = (uint64_t)cls << 32 | field;
	size_t cap = c->dcap;
	int rc;

	for (size_t i = 0; i < c->dn; i++)     /* few distinct fields disagree; a scan is enough */
		if (c->dkeys[i] == key) {
			c->dcounts[i]++;
			return 0;
		}
	if ((rc = vd_grow((void **)&c->dkeys, &cap, c->dn, sizeof(*c->dkeys), e)))
		return rc;
	cap = c->dcap;
	if ((rc = vd_grow((void **)&c->dcounts, &cap, c->dn, sizeof(*c->dcounts), e)))
		return rc;
	c->dcap = cap;
	c->dkeys[c->dn] = key;
	c->dcounts[c->dn++] = 1;
	return 0;
}

static int fv_cmp(const void *a, const void *b)
{
	const struct vd_fv *x = a, *y = b;
	if (x->is_static != y->is_static)
		return x->is_static < y->is_static ? -1 : 1;
	if (x->name != y->name)
		return x->name < y->name ? -1 : 1;
	return x->occ < y->occ ? -1 : x->occ > y->occ;
}

static bool vd_is_nan_bits(uint8_t t, uint64_t v)
{
	if (t == HPROF_T_FLOAT)
		return (v & 0x7f800000u) == 0x7f800000u && (v & 0x7fffffu);
	return (v & 0x7ff0000000000000ull) == 0x7ff0000000000000ull && (v & 0xfffffffffffffull);
}

static bool vd_fv_equal(const struct vd_fv *t, const struct vd_fv *r)
{
	if (t->type != r->type)
		return false;
	if ((t->type == HPROF_T_FLOAT || t->type == HPROF_T_DOUBLE) && vd_is_nan_bits(t->type, t->val))
		return vd_is_nan_bits(r->type, r->val);        /* text forms keep no NaN payload */
	return t->val == r->val;
}

/* A truth field ART invented: "$classOverhead" padding statics, and references to records
 * that are no objects (String.value, runtimeInternalObjects, the statics array). */
static bool vd_invented(const struct vd_ctx *c, const struct vd_side *s, const struct vd_fv *f)
{
	size_t j;

	if (f->is_static && (f->name == c->n_overhead || f->name == c->n_overhead2))
		return true;
	if (f->type != HPROF_T_OBJECT || !f->val)
		return false;
	for (j = vd_side_find(s, f->val); j != SIZE_MAX && j < s->n && s->obj[j].id == f->val; j++)
		if (vd_obj_syn(&s->obj[j]) >= 0)
			return true;
	return false;
}

static void vd_fmt_value(char *buf, size_t n, const struct vd_fv *f)
{
	if (!f)
		snprintf(buf, n, "(missing)");
	else if (f->type == HPROF_T_OBJECT)
		snprintf(buf, n, f->val ? "0x%llx" : "null", (unsigned long long)f->val);
	else
		snprintf(buf, n, "%s 0x%llx", hprof_type_name(f->type) ? hprof_type_name(f->type) : "?",
			 (unsigned long long)f->val);
}

static int vd_field_diff(struct vd_ctx *c, const struct vd_obj *o, const struct vd_fv *tf, const struct vd_fv *rf,
			 struct err *e)
{
	char tb[48], rb[48];
	int rc;

	if ((rc = vd_diff_count(c, o->cls, tf->name, e)))
		return rc;
	vd_fmt_value(tb, sizeof(tb), tf);
	vd_fmt_value(rb, sizeof(rb), rf);
	return vd_example(c, &c->r->fields.ex, o->id, o->cls, c->names->v[tf->name].s, tb, rb, e);
}

/* A Class object's own instance field as ART's HPROF lists it among the statics
 * ("$class$" + name: runtime/hprof/hprof.cc @R11, Hprof::DumpHeapClass). */
static bool vd_class_field(const struct vd_ctx *c, const struct vd_fv *f)
{
	const struct vd_name *n = &c->names->v[f->name];
	return n->len > 7 && !memcmp(n->s, "$class$", 7);
}

/* String.count as a length.  With string compression (8.0+) the field holds length << 1 |
 * uncompressed; ART's HPROF writes the length instead (runtime/hprof/hprof.cc @R11,
 * DumpHeapInstanceObject), a dump of the raw field (the generator's truth) the field.  When
 * both inputs give the String's text, of length len, either form is taken as the length. */
static uint64_t vd_string_count(uint64_t count, size_t len)
{
	if (count == len || (count >> 1) == len)
		return len;
	return count;
}

/* Fields of an instance or class object; *equal cleared on any disagreement. */
static int vd_cmp_fields(struct vd_ctx *c, const struct vd_obj *o, bool *equal, struct err *e)
{
	struct vd_fields *f = &c->r->fields;
	struct vd_view *tv = &c->tv, *rv = &c->rv;
	size_t a = 0, b = 0;
	int rc;

	bool r_class_fields = false;

	for (size_t k = 0; k < rv->nf && !r_class_fields; k++)
		r_class_fields = rv->f[k].is_static && vd_class_field(c, &rv->f[k]);
	if (tv->nf > 1)
		qsort(tv->f, tv->nf, sizeof(*tv->f), fv_cmp);
	if (rv->nf > 1)
		qsort(rv->f, rv->nf, sizeof(*rv->f), fv_cmp);
	while (a < tv->nf || b < rv->nf) {
		int d = a == tv->nf ? 1 : b == rv->nf ? -1 : fv_cmp(&tv->f[a], &rv->f[b]);
		if (d > 0) {
			if (vd_invented(c, &c->res, &rv->f[b]))
				f->invented++;  /* the result's own invented fields, ART-style */
			else
				f->extra++;
			b++;
			continue;
		}
		const struct vd_fv *tf = &tv->f[a++], *rf = d == 0 ? &rv->f[b++] : NULL;
		if (vd_invented(c, &c->tru, tf)) {
			f->invented++;
			continue;
		}
		if (!rf && !r_class_fields && tf->is_static && vd_class_field(c, tf)) {
			f->unreported++;
			continue;
		}
		if (!rf) {
			f->missing++;
			*equal = false;
			if ((rc = vd_field_diff(c, o, tf, NULL, e)))
				return rc;
			continue;
		}
		bool same = vd_fv_equal(tf, rf);
		if (!same && o->cls == c->n_string && tf->name == c->n_count && tf->type == HPROF_T_INT &&
		    rf->type == HPROF_T_INT && !tf->is_static && tv->have_text && rv->have_text &&
		    tv->tlen == rv->tlen)
			same = vd_string_count(tf->val, tv->tlen) == vd_string_count(rf->val, rv->tlen);
		if (tf->is_static) {
			f->statics++;
			f->statics_equal += same;
		} else if (tf->type == HPROF_T_OBJECT) {
			f->ref++;
			f->ref_equal += same;
		} else {
			f->prim++;
			f->prim_equal += same;
		}
		if (!same) {
			*equal = false;
			if ((rc = vd_field_diff(c, o, tf, rf, e)))
				return rc;
		}
	}
	return 0;
}

/* Element k of an HPROF array view (big-endian, already bounded by the record). */
static uint64_t vd_elem(const struct vd_view *v, uint32_t k)
{
	unsigned w = hprof_type_size(v->elem_type, v->id_size);
	const uint8_t *p = v->data.base + (size_t)k * w;
	return w == 1 ? p[0] : w == 2 ? ld_u16be(p) : w == 4 ? ld_u32be(p) : ld_u64be(p);
}

/* FNV-1a 64 of the elements as the heap holds them (little-endian, references 4 bytes). */
static uint64_t vd_view_fnv(const struct vd_view *v)
{
	unsigned ms = vd_elem_mem_size(v->elem_type);
	uint64_t h = HASH_FNV1A64_INIT;
	uint8_t le[8];

	for (uint32_t k = 0; k < v->count; k++) {
		uint64_t x = vd_elem(v, k);
		for (unsigned b = 0; b < ms; b++)
			le[b] = (uint8_t)(x >> (8 * b));
		h = hash_fnv1a64_more(h, le, ms);
	}
	return h;
}

static int vd_cmp_array(struct vd_ctx *c, const struct vd_obj *o, bool *equal, struct err *e)
{
	struct vd_fields *f = &c->r->fields;
	const struct vd_view *tv = &c->tv, *rv = &c->rv;
	uint32_t n = tv->count < rv->count ? tv->count : rv->count, first_diff = UINT32_MAX, eq = 0;
	bool same = tv->count == rv->count && tv->elem_type == rv->elem_type;
	char tb[48], rb[48];

	f->arrays++;
	if (tv->have_data && rv->have_data) {
		for (uint32_t k = 0; k < n && tv->elem_type == rv->elem_type; k++) {
			if (vd_elem(tv, k) == vd_elem(rv, k))
				eq++;
			else if (first_diff == UINT32_MAX)
				first_diff = k;
		}
		f->elements += tv->count;
		f->elements_equal += eq;
		same = same && eq == tv->count;
	} else {
		/* one side is a truth.jsonl: its checksum, and its elements when it lists them */
		const struct vd_view *h = tv->have_data ? tv : rv, *j = tv->have_data ? rv : tv;
		bool hash_same = same && (h->have_data ? vd_view_fnv(h) : h->fnv) == j->fnv && j->have_fnv;
		if (j->have_elems && h->have_data && j->nelems == j->count) {
			for (uint32_t k = 0; k < n; k++)
				eq += vd_elem(h, k) == j->elems[k];
			f->elements += tv->count;
			f->elements_equal += eq;
		} else {
			f->elements += tv->count;
			f->elements_equal += hash_same ? tv->count : 0;
		}
		same = hash_same;
	}
	f->arrays_equal += same;
	if (same)
		return 0;
	*equal = false;
	snprintf(tb, sizeof(tb), "length %u", tv->count);
	snprintf(rb, sizeof(rb), "length %u", rv->count);
	if (tv->count == rv->count && first_diff != UINT32_MAX) {
		snprintf(tb, sizeof(tb), "0x%llx", (unsigned long long)vd_elem(tv, first_diff));
		snprintf(rb, sizeof(rb), "0x%llx", (unsigned long long)vd_elem(rv, first_diff));
	}
	char what[32];
	if (first_diff != UINT32_MAX && tv->count == rv->count)
		snprintf(what, sizeof(what), "element %u", first_diff);
	else
		snprintf(what, sizeof(what), tv->count == rv->count ? "elements" : "length");
	return vd_example(c, &f->ex, o->id, o->cls, what, tb, rb, e);
}

static void vd_fmt_text(char *buf, size_t n, const struct vd_view *v)
{
	size_t k = 0;

	for (size_t i = 0; i < v->tlen && k + 8 < n; i++) {
		uint16_t u = v->text[i];
		if (u >= 0x20 && u < 0x7f && u != '\\')
			buf[k++] = (char)u;
		else
			k += (size_t)snprintf(buf + k, n - k, "\\u%04x", u);
	}
	buf[k < n ? k : n - 1] = '\0';
}

static int vd_cmp_string(struct vd_ctx *c, const struct vd_obj *o, struct err *e)
{
	struct vd_strings *s = &c->r->strings;
	const struct vd_view *tv = &c->tv, *rv = &c->rv;
	char tb[48], rb[48];

	if (!tv->have_text) {
		s->no_value_truth++;
		return 0;
	}
	if (!rv->have_text) {
		s->no_value_result++;
		return 0;
	}
	s->compared++;
	if (tv->tlen == rv->tlen && (!tv->tlen || !memcmp(tv->text, rv->text, tv->tlen * sizeof(*tv->text)))) {
		s->equal++;
		return 0;
	}
	vd_fmt_text(tb, sizeof(tb), tv);
	vd_fmt_text(rb, sizeof(rb), rv);
	return vd_example(c, &s->ex, o->id, o->cls, "text", tb, rb, e);
}

static int vd_contents(struct vd_ctx *c, struct err *e)
{
	struct vd_fields *f = &c->r->fields;
	int rc;

	for (size_t i = 0; i < c->tru.n; i++) {
		const struct vd_obj *o = &c->tru.obj[i];
		bool equal = true;
		if (!vd_truth_counted(o))
			continue;
		if (o->cls == c->n_string)
			c->r->strings.truth++;
		if (!c->match[i])
			continue;
		if ((rc = vd_view(&c->tru, i, &c->tv, e)) || (rc = vd_view(&c->res, c->match[i] - 1, &c->rv, e)))
			return rc;
		if (o->cls == c->n_string) {
			c->r->strings.matched++;
			if ((rc = vd_cmp_string(c, o, e)))
				return rc;
		}
		if (!c->tv.decodable || !c->rv.decodable) {
			f->undecodable++;
			continue;
		}
		f->objects++;
		if (o->kind == VD_INSTANCE || o->kind == VD_CLASS)
			rc = vd_cmp_fields(c, o, &equal, e);
		else
			rc = vd_cmp_array(c, o, &equal, e);
		if (rc)
			return rc;
		f->objects_equal += equal;
	}
	return 0;
}

static int diff_row_cmp(const void *a, const void *b)
{
	const struct vd_field_diff *x = a, *y = b;
	int d;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if ((d = strcmp(x->cls, y->cls)))
		return d;
	return strcmp(x->field, y->field);
}

static int vd_diff_rows(struct vd_ctx *c, struct err *e)
{
	struct vd_fields *f = &c->r->fields;
	size_t keep = c->opt.per_class;

	if (!c->dn)
		return 0;
	f->diffs = xcalloc(c->dn, sizeof(*f->diffs));
	if (!f->diffs)
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory");
	for (size_t i = 0; i < c->dn; i++)
		f->diffs[i] = (struct vd_field_diff){ c->names->v[c->dkeys[i] >> 32].s,
						      c->names->v[c->dkeys[i] & 0xffffffffu].s, c->dcounts[i] };
	qsort(f->diffs, c->dn, sizeof(*f->diffs), diff_row_cmp);
	f->diff_count = (unsigned)(c->dn < keep ? c->dn : keep);
	return 0;
}

/* ---- the whole comparison ----------------------------------------------------------------- */

void vd_report_free(struct vd_report *r)
{
	struct vd_priv *p;

	if (!r)
		return;
	p = r->priv;
	if (p) {
		vd_names_release(&p->names);
		xfree(p->heaps);
		xfree(p);
	}
	xfree(r->classes);
	xfree(r->fields.diffs);
	xfree(r->fields.ex.v);
	xfree(r->strings.ex.v);
	xfree(r->reach.ex.v);
	xfree(r->missed.v);
	xfree(r->invented.v);
	xfree(r->beyond_walk.v);
	xfree(r->mismatched.v);
	xfree(r);
}

static int vd_run(struct vd_ctx *c, const struct vd_input *result, const struct vd_input *truth, struct err *e)
{
	int rc;

	if ((rc = vd_load(&c->res, result, c->names, e)) || (rc = vd_load(&c->tru, truth, c->names, e)) ||
	    (rc = vd_names_add(c->names, "java.lang.String", 16, &c->n_string, e)) ||
	    (rc = vd_names_add(c->names, "$classOverhead", 14, &c->n_overhead, e)) ||
	    (rc = vd_names_add(c->names, "$classOverhead2", 15, &c->n_overhead2, e)) ||
	    (rc = vd_names_add(c->names, "count", 5, &c->n_count, e)))
		return rc;
	vd_alias_truth(c);
	if ((rc = vd_match(c, e)))
		return rc;
	vd_beyond_walk(c);
	if ((rc = vd_reach_states(c, e)) || (rc = vd_counts(c, e)))
		return rc;
	vd_states(c);
	if ((rc = vd_reach_figures(c, e)) || (rc = vd_contents(c, e)) || (rc = vd_diff_rows(c, e)))
		return rc;
	c->r->result_info = c->res.info;
	c->r->truth_info = c->tru.info;
	return 0;
}

int vd_compare(const struct vd_input *result, const struct vd_input *truth, const struct vd_options *opt,
	       struct vd_report **out, struct err *e)
{
	struct vd_ctx c;
	struct vd_priv *p;
	int rc;

	*out = NULL;
	memset(&c, 0, sizeof(c));
	c.opt = *opt;
	c.r = xcalloc(1, sizeof(*c.r));
	p = xcalloc(1, sizeof(*p));
	if (!c.r || !p) {
		xfree(c.r);
		xfree(p);
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory");
	}
	vd_names_init(&p->names);
	c.r->priv = p;
	c.names = &p->names;
	vd_view_init(&c.tv);
	vd_view_init(&c.rv);
	rc = vd_run(&c, result, truth, e);
	vd_view_release(&c.tv);
	vd_view_release(&c.rv);
	vd_side_release(&c.res);
	vd_side_release(&c.tru);
	xfree(c.match);
	xfree(c.rmatched);
	xfree(c.tlabel);
	xfree(c.dkeys);
	xfree(c.dcounts);
	if (rc) {
		vd_report_free(c.r);
		return rc;
	}
	*out = c.r;
	return 0;
}
