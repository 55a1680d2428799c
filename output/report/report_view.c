/* report_view.c - the object views of report.html (report_view.h). */
#include "output/report/report_view.h"

#include <string.h>

#include "carver/base/escape.h"
#include "carver/base/xalloc.h"
#include "rosalloc/model/model_stats.h"

/* characters of a String's text in its view; bytes of an object's decoded JSON (past them:
 * the JSON without the referenced objects, then the one-line text form) */
enum { VIEW_TEXT_MAX = 1024, VIEW_JSON_MAX = 8192, VIEW_LINE_MAX = 1000 };

void report_view_init(struct report_view *v, const struct model *m, const struct reach *r,
		      const struct referrers *refs, struct dec *dec)
{
	memset(v, 0, sizeof(*v));
	v->dec = dec;
	v->m = m;
	v->r = r;
	v->refs = refs;
	htab_init(&v->at);
	wbuf_init(&v->scratch);
	wbuf_init(&v->line);
}

void report_view_release(struct report_view *v)
{
	htab_release(&v->at);
	xfree(v->obj);
	wbuf_release(&v->scratch);
	wbuf_release(&v->line);
}

int report_view_add(struct report_view *v, size_t i, struct err *e)
{
	if (htab_get(&v->at, i, &(uint32_t){ 0 }))
		return 0;
	if (v->count >= REPORT_VIEW_MAX) {
		v->refused++;
		return 0;
	}
	if (XALLOC_GROW(v->obj, v->cap, v->count + 1, 256) || htab_put(&v->at, i, (uint32_t)v->count))
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory for the report's object views");
	v->obj[v->count++] = (uint32_t)i;
	return 0;
}

void report_view_link(struct report_html *h, const struct model *m, const struct model_obj *o)
{
	unsigned long long va = (unsigned long long)model_va(m, o);
	report_html_printf(h, "<a class=\"a\" href=\"#o=0x%llx\">0x%llx</a>", va, va);
}

static const char *view_class_name(const struct model *m, size_t cls)
{
	const struct art_runtime *rt = model_runtime(m);
	return cls < rt->class_count && rt->classes[cls].name ? rt->classes[cls].name : "?";
}

static void json_str(struct wbuf *b, const char *s)
{
	escape_json_quoted(b, (const uint8_t *)(s ? s : "?"), strlen(s ? s : "?"));
}

/* What a path step or referrer names: a Class object as the class it is ("class X": its
 * statics are roots), any other object as its class. */
static void view_what(struct wbuf *b, const struct model *m, const struct model_obj *o)
{
	const struct rt_class *c = o->kind == MODEL_CLASS ? runtime_class_at(model_runtime(m), model_va(m, o)) : NULL;
	if (c && c->name) {
		wbuf_put(b, "\"class ", 7);
		escape_json(b, (const uint8_t *)c->name, strlen(c->name));
		wbuf_put(b, "\"", 1);
	} else
		json_str(b, view_class_name(m, o->cls));
}

/* What the reference at offset off of object `from` is: a field name, "[index]" or "static
 * name", into b as a JSON string. */
static void view_field_name(struct wbuf *b, const struct model *m, size_t from, uint32_t off)
{
	struct referrers_field f;
	char tmp[48];
	if (!referrers_field_at(m, model_obj(m, from), off, &f)) {
		snprintf(tmp, sizeof(tmp), "+%u", off);
		json_str(b, tmp);
	} else if (f.is_element) {
		snprintf(tmp, sizeof(tmp), "[%u]", f.index);
		json_str(b, tmp);
	} else if (f.is_static) {
		wbuf_put(b, "\"static ", 8);
		escape_json(b, (const uint8_t *)f.field->name, strlen(f.field->name));
		wbuf_put(b, "\"", 1);
	} else
		json_str(b, f.field->name);
}

/* ["0x..", "class", "field"]: object `from` holding something by the reference at off
 * (field NULL: no field: a root or the path's end). */
static void view_step(struct wbuf *b, const struct model *m, size_t from, uint32_t off, bool field)
{
	const struct model_obj *o = model_obj(m, from);
	wbuf_printf(b, "[\"0x%llx\",", (unsigned long long)model_va(m, o));
	view_what(b, m, o);
	if (field) {
		wbuf_put(b, ",", 1);
		view_field_name(b, m, from, off);
	}
	wbuf_put(b, "]", 1);
}

static void view_referrers(struct report_view *v, size_t i)
{
	const uint32_t *from, *off;
	uint32_t n = v->refs ? referrers_of(v->refs, i, &from, &off) : 0;
	wbuf_printf(&v->scratch, ",\"rn\":%u,\"r\":[", n);
	for (uint32_t k = 0; k < n && k < REPORT_VIEW_REFERRERS; k++) {
		wbuf_put(&v->scratch, k ? "," : "", k ? 1 : 0);
		view_step(&v->scratch, v->m, from[k], off[k], true);
	}
	wbuf_put(&v->scratch, "]", 1);
}

/* ---- the path from a root: a breadth-first search backwards ---- */

struct view_bfs {
	uint32_t node[REPORT_PATH_VISITS];
	uint32_t parent[REPORT_PATH_VISITS];   /* the entry this one holds (towards the target) */
	uint32_t off[REPORT_PATH_VISITS];      /* where in node the reference to parent lies */
	size_t n;
	struct htab seen;
};

/* "class statics" etc. when object i is a root; NULL otherwise. */
static const char *view_root_source(const struct report_view *v, size_t i)
{
	struct reach_holder h;
	if (reach_holder_of(v->r, v->m, i, &h) && h.kind == REACH_HOLDER_ROOT)
		return reach_source_name(h.source);
	return NULL;
}

/* Adds node `from` reached from entry `parent`; returns 1 when full, -ERR_NOMEM, 0. */
static int bfs_push(struct view_bfs *q, uint32_t from, uint32_t parent, uint32_t off)
{
	if (htab_get(&q->seen, from, &(uint32_t){ 0 }))
		return 0;
	if (q->n >= REPORT_PATH_VISITS)
		return 1;
	if (htab_put(&q->seen, from, (uint32_t)q->n))
		return -ERR_NOMEM;
	q->node[q->n] = from;
	q->parent[q->n] = parent;
	q->off[q->n++] = off;
	return 0;
}

/* The predecessors of entry k that a root may reach: reachable referrers, and the DexCache
 * whose native array holds a String.  Returns 1 (full), -ERR_NOMEM or 0. */
static int bfs_expand(const struct report_view *v, struct view_bfs *q, size_t k)
{
	const uint32_t *from, *off;
	uint32_t n = referrers_of(v->refs, q->node[k], &from, &off);
	struct reach_holder h;
	int rc = 0;
	for (uint32_t j = 0; j < n && rc == 0; j++)
		if (model_obj(v->m, from[j])->reach == MODEL_REACHABLE)
			rc = bfs_push(q, from[j], (uint32_t)k, off[j]);
	if (rc == 0 && reach_holder_of(v->r, v->m, q->node[k], &h) && h.kind == REACH_HOLDER_DEX_CACHE)
		rc = bfs_push(q, (uint32_t)h.dex_cache, (uint32_t)k, UINT32_MAX);
	return rc;
}

/* The entry of the first root found from object i, SIZE_MAX when none within the budget. */
static size_t bfs_run(const struct report_view *v, struct view_bfs *q, size_t i, int *rc)
{
	*rc = bfs_push(q, (uint32_t)i, UINT32_MAX, 0);
	for (size_t k = 0; k < q->n && *rc == 0; k++) {
		if (view_root_source(v, q->node[k]))
			return k;
		*rc = bfs_expand(v, q, k);
	}
	if (*rc == 1) {   /* the budget: the entries queued may still hold a root */
		*rc = 0;
		for (size_t k = 0; k < q->n; k++)
			if (view_root_source(v, q->node[k]))
				return k;
	}
	return SIZE_MAX;
}

/* "p": [[root addr, class, source], [addr, class, field it is held by], ...] ending at the
 * object, or "why". */
static int view_path(struct report_view *v, struct view_bfs *q, size_t i, struct err *e)
{
	struct wbuf *b = &v->scratch;
	int rc = 0;
	size_t k;

	q->n = 0;
	htab_clear(&q->seen);
	k = bfs_run(v, q, i, &rc);
	if (rc)
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory for the report's paths");
	if (k == SIZE_MAX)
		return 1;
	wbuf_put(b, ",\"p\":[[\"root\",", 14);
	json_str(b, view_root_source(v, q->node[k]));
	wbuf_put(b, "]", 1);
	for (size_t depth = 0; k != UINT32_MAX && depth < REPORT_PATH_MAX; depth++) {
		wbuf_put(b, ",", 1);
		/* node k holds its parent by the reference at off[k]: the step names that field */
		if (q->parent[k] == UINT32_MAX || q->off[k] == UINT32_MAX)
			view_step(b, v->m, q->node[k], 0, false);
		else
			view_step(b, v->m, q->node[k], q->off[k], true);
		k = q->parent[k];
	}
	wbuf_put(b, "]", 1);
	return 0;
}

/* Why no path from a root is shown. */
static void view_why(struct report_view *v, size_t i)
{
	const struct model_obj *o = model_obj(v->m, i);
	const uint32_t *from, *off;
	uint32_t n = v->refs ? referrers_of(v->refs, i, &from, &off) : 0;
	struct reach_holder h;
	const char *why;

	if (o->alloc == MODEL_FREE)
		why = "free: the allocator had released it (free objects are not followed)";
	else if (o->reach == MODEL_REACH_UNKNOWN)
		why = reach_holder_of(v->r, v->m, i, &h) && h.kind == REACH_HOLDER_DOUBT
			      ? reach_doubt_name(h.doubt)
			      : "unknown: a root source this image lacks may hold it";
	else if (o->reach == MODEL_UNREACHABLE)
		why = n ? "dropped: only objects no root reaches reference it (listed above)"
			: "dropped: no object references it and no root holds it";
	else if (!v->refs)
		why = "reachable (the page has no referrers index)";
	else
		why = "reachable, but no path was found within the search's budget";
	wbuf_put(&v->scratch, ",\"why\":", 7);
	json_str(&v->scratch, why);
}

static void view_text(struct report_view *v, const struct model_obj *o, struct wbuf *text)
{
	const struct art_runtime *rt = model_runtime(v->m);
	struct err why;
	err_init(&why);
	wbuf_reset(text);
	if (mirror_string(&rt->m, model_va(v->m, o), VIEW_TEXT_MAX, text, &why) == 0) {
		wbuf_put(&v->scratch, ",\"s\":", 5);
		escape_json_quoted(&v->scratch, text->data, text->len);
	} else {
		wbuf_put(&v->scratch, ",\"sx\":", 6);
		json_str(&v->scratch, why.msg);
	}
}

/* "d": the decoded object (dec_object_json) within VIEW_JSON_MAX bytes, following references
 * REPORT_VIEW_DEPTH deep, else not; "dt": its one-line form when even that is longer (a big
 * container). */
static int view_decoded(struct report_view *v, size_t i, struct err *e)
{
	size_t at = v->scratch.len;
	int rc = 0;
	for (unsigned depth = REPORT_VIEW_DEPTH + 1; depth-- > 0 && rc == 0;) {
		v->scratch.len = at;
		wbuf_put(&v->scratch, ",\"d\":", 5);
		rc = dec_object_json(v->dec, i, depth, &v->scratch, e);
		if (rc == 0 && v->scratch.len - at <= VIEW_JSON_MAX)
			return 0;
	}
	v->scratch.len = at;
	if (rc)
		return rc;
	wbuf_reset(&v->line);
	if ((rc = dec_object_text(v->dec, i, VIEW_LINE_MAX, &v->line, e)))
		return rc;
	wbuf_put(&v->scratch, ",\"dt\":", 6);
	escape_json_quoted(&v->scratch, v->line.data, v->line.len);
	return 0;
}

/* One view: "0x..":{...} into scratch. */
static int view_one(struct report_view *v, struct view_bfs *q, struct wbuf *text, size_t i, struct err *e)
{
	const struct model *m = v->m;
	const struct model_obj *o = model_obj(m, i);
	const struct art_space *s = model_space(m, o);
	int rc = 1;

	wbuf_printf(&v->scratch, "\"0x%llx\":{\"c\":", (unsigned long long)model_va(m, o));
	json_str(&v->scratch, view_class_name(m, o->cls));
	wbuf_printf(&v->scratch, ",\"k\":\"%s\",\"st\":\"%s %s %s\",\"sz\":%u,\"sp\":\"%s\",\"cf\":%u",
		    model_kind_name(o->kind), model_alloc_name(o->alloc), model_content_name(o->content),
		    model_reach_name(o->reach), o->size, s ? spaces_kind_name(s->kind) : "?", o->confidence);
	if (model_stats_is_string(m, o))
		view_text(v, o, text);
	if ((rc = view_decoded(v, i, e)))
		return rc;
	rc = 1;
	view_referrers(v, i);
	if (v->refs && o->reach == MODEL_REACHABLE && (rc = view_path(v, q, i, e)) < 0)
		return rc;
	if (rc)
		view_why(v, i);
	wbuf_put(&v->scratch, "}", 1);
	return 0;
}

int report_view_write(struct report_view *v, struct report_html *h, struct err *e)
{
	struct view_bfs *q = xcalloc(1, sizeof(*q));
	struct wbuf text;
	int rc = 0;

	if (!q)
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory for the report's paths");
	htab_init(&q->seen);
	wbuf_init(&text);
	report_html_raw(h, "<script type=\"application/json\" id=\"views\">{");
	for (size_t k = 0; k < v->count && rc == 0 && !h->rc; k++) {
		wbuf_reset(&v->scratch);
		wbuf_put(&v->scratch, k ? ",\n" : "\n", k ? 2 : 1);
		rc = view_one(v, q, &text, v->obj[k], e);
		if (rc == 0 && (rc = wbuf_status(&v->scratch, e)) == 0)
			report_html_json(h, v->scratch.data, v->scratch.len);
	}
	report_html_raw(h, "}</script>\n");
	if (rc == 0)
		rc = wbuf_status(&text, e);
	wbuf_release(&text);
	htab_release(&q->seen);
	xfree(q);
	return rc;
}
