/* report_objects.c - the decoded object tables of report.html (report_objects.h). */
#include "output/report/report_objects.h"

#include <stdlib.h>
#include <string.h>

#include "carver/base/escape.h"
#include "carver/base/xalloc.h"
#include "rosalloc/model/model_stats.h"

enum { OBJ_REST_ROWS = 200 };   /* classes without a table listed with their counts */

struct obj_table {
	size_t cls;
	uint64_t total;             /* the class's objects in the section */
	uint32_t cap;               /* rows it may show */
	uint32_t *rows;             /* object indexes, in address order */
	size_t n, room;
	bool app, container;
};

struct obj_sec {
	struct report_html *h;
	const struct model *m;
	const struct report_objects_in *in;
	uint64_t *per_class;        /* objects of the section per class */
	size_t *table_of;           /* per class: its table, SIZE_MAX */
	struct obj_table *t;
	size_t nt;
	struct wbuf cell;
};

static const char *const sec_id[] = { "dropped", "live" };
static const char *const sec_word[] = { "dropped", "live" };

static bool sec_pick(const struct obj_sec *s, const struct model_obj *o)
{
	if (o->alloc != MODEL_ALLOCATED)
		return false;
	return s->in->section == REPORT_DROPPED ? o->reach == MODEL_UNREACHABLE : o->reach == MODEL_REACHABLE;
}

static const char *obj_class_name(const struct model *m, size_t cls)
{
	const struct art_runtime *rt = model_runtime(m);
	return cls < rt->class_count && rt->classes[cls].name ? rt->classes[cls].name : "?";
}

/* ---- choosing the tables ---- */

static uint32_t obj_cap(const struct obj_sec *s, bool app)
{
	if (!app)
		return REPORT_ROWS_OTHER;
	return s->in->section == REPORT_DROPPED ? REPORT_ROWS_APP : REPORT_ROWS_LIVE_APP;
}

/* Tables for the app's classes, then for the first REPORT_CLASSES_OTHER others, within
 * REPORT_ROWS_MAX rows; Strings are left to their own section. */
static int obj_choose(struct obj_sec *s, struct err *e)
{
	size_t classes = model_runtime(s->m)->class_count, others = 0;
	size_t *order = xcalloc(classes ? classes : 1, sizeof(*order));
	uint64_t budget = REPORT_ROWS_MAX;
	int rc;

	if (!order || !(s->t = xcalloc(classes ? classes : 1, sizeof(*s->t)))) {
		xfree(order);
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory for the report's tables");
	}
	if ((rc = model_stats_app_order(s->m, s->per_class, classes, order, e))) {
		xfree(order);
		return rc;
	}
	for (size_t k = 0; k < classes && budget; k++) {
		size_t cls = order[k];
		uint64_t count = s->per_class[cls];
		bool app = runtime_class_origin(model_runtime(s->m), cls) == RT_ORIGIN_APP;
		if (!count || cls == model_jls(s->m))
			continue;
		uint32_t cap = obj_cap(s, app);
		if (!app && others++ >= REPORT_CLASSES_OTHER)
			break;
		cap = cap < budget ? cap : (uint32_t)budget;
		budget -= cap < count ? cap : count;
		s->table_of[cls] = s->nt;
		s->t[s->nt++] = (struct obj_table){ .cls = cls, .total = count, .cap = cap, .app = app };
	}
	xfree(order);
	return 0;
}

/* One pass: the section's count per class; a second: the rows of each table. */
static void obj_count(struct obj_sec *s)
{
	for (size_t i = 0; i < model_count(s->m); i++) {
		const struct model_obj *o = model_obj(s->m, i);
		if (sec_pick(s, o))
			s->per_class[o->cls]++;
	}
}

static int obj_collect(struct obj_sec *s, struct err *e)
{
	for (size_t i = 0; i < model_count(s->m); i++) {
		const struct model_obj *o = model_obj(s->m, i);
		struct obj_table *t;
		if (!sec_pick(s, o) || s->table_of[o->cls] == SIZE_MAX)
			continue;
		t = &s->t[s->table_of[o->cls]];
		if (t->n >= t->cap)
			continue;
		if (XALLOC_GROW(t->rows, t->room, t->n + 1, 16))
			return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory for the report's tables");
		t->rows[t->n++] = (uint32_t)i;
	}
	return 0;
}

/* ---- cells ---- */

/* At most REPORT_CELL_CHARS characters of s[0..n), escaped, "..." when cut. */
static void obj_cell_text(struct report_html *h, const uint8_t *s, size_t n)
{
	size_t at = 0, chars = 0;
	uint32_t cp;
	while (at < n && chars < REPORT_CELL_CHARS) {
		size_t len = escape_utf8_seq(s + at, n - at, &cp);
		at += len ? len : 1;
		chars++;
	}
	report_html_text(h, s, at);
	if (at < n)
		report_html_raw(h, "&hellip;");
}

struct obj_row {
	struct obj_sec *s;
	const struct obj_table *t;
	unsigned col;
	bool header;
};

static bool obj_skip_field(const struct dec_value *v)
{
	return v->name && !strcmp(v->name, "shadow$_monitor_");
}

static int obj_value_cell(struct obj_row *r, const struct dec_value *v, struct err *e)
{
	struct report_html *h = r->s->h;
	const struct model *m = r->s->m;
	struct wbuf *b = &r->s->cell;

	bool ref = v->kind == DEC_REF && v->obj != MODEL_NONE;
	int rc;
	wbuf_reset(b);
	/* a reference as what it holds (a sender as Person{name="Bob"}, a list as its items), and
	 * the address as a link; any other value as its text */
	if ((rc = dec_ref_text(r->s->in->dec, v, REPORT_REF_CHARS, b, e)))
		return rc;
	if (v->has_time)
		report_html_printf(h, "<td class=\"t\" title=\"%lld, read as a time (inferred)\">", (long long)v->i);
	else
		report_html_raw(h, v->kind == DEC_STRING ? "<td class=\"s\">" : "<td>");
	obj_cell_text(h, b->data, b->len);
	if (ref) {
		report_html_raw(h, " ");
		report_view_link(h, m, model_obj(m, v->obj));
	}
	report_html_raw(h, "</td>");
	/* what an app's object references gets a view too (its sender, its list) */
	return ref && r->t->app ? report_view_add(r->s->in->view, v->obj, e) : 0;
}

/* dec_value_fn: a column head or a cell per field; 1 (stop) past REPORT_COLUMNS. */
static int obj_field(void *arg, const struct dec_value *v, struct err *e)
{
	struct obj_row *r = arg;
	struct report_html *h = r->s->h;
	if (obj_skip_field(v))
		return 0;
	if (r->col++ >= REPORT_COLUMNS)
		return 1;
	if (!r->header)
		return obj_value_cell(r, v, e);
	report_html_raw(h, "<th>");
	report_html_str(h, v->name);
	report_html_raw(h, "<br><span class=\"note\">");
	report_html_str(h, v->java_type ? v->java_type : v->type);
	report_html_raw(h, "</span></th>");
	return 0;
}

static int obj_contents(struct obj_row *r, size_t i, struct err *e)
{
	struct wbuf *b = &r->s->cell;
	int rc;
	wbuf_reset(b);
	if ((rc = dec_object_text(r->s->in->dec, i, REPORT_CELL_CHARS, b, e)))
		return rc;
	report_html_raw(r->s->h, "<td class=\"s\">");
	obj_cell_text(r->s->h, b->data, b->len);
	report_html_raw(r->s->h, "</td>");
	return 0;
}

static int obj_row_write(struct obj_sec *s, const struct obj_table *t, size_t i, bool header, struct err *e)
{
	struct obj_row r = { s, t, 0, header };
	const struct model_obj *o = model_obj(s->m, i);
	int rc = 0;

	if (header)
		report_html_raw(s->h, "<tr><th>address</th>");
	else {
		report_html_raw(s->h, "<tr><td>");
		report_view_link(s->h, s->m, o);
		report_html_raw(s->h, "</td>");
	}
	if (o->kind == MODEL_INSTANCE || o->kind == MODEL_CLASS)
		rc = dec_each_field(s->in->dec, i, obj_field, &r, e);
	if (rc > 0)
		rc = 0;
	if (rc == 0 && (t->container || o->kind == MODEL_OBJ_ARRAY || o->kind == MODEL_PRIM_ARRAY))
		rc = header ? (report_html_raw(s->h, "<th>contents</th>"), 0) : obj_contents(&r, i, e);
	report_html_raw(s->h, "</tr>\n");
	return rc ? rc : report_view_add(s->in->view, i, e);
}

/* dec_entry_fn: the first entry says enough. */
static int obj_any_entry(void *arg, const struct dec_entry *en, struct err *e)
{
	(void)arg, (void)en, (void)e;
	return 1;
}

static int obj_table_write(struct obj_sec *s, struct obj_table *t, struct err *e)
{
	struct dec_entries info;
	int rc;

	if (!t->n)
		return 0;
	rc = dec_each_entry(s->in->dec, t->rows[0], obj_any_entry, NULL, &info, e);
	if (rc < 0)
		return rc;
	t->container = info.kind != NULL;
	report_html_printf(s->h, "<div class=\"ct %s\" id=\"%c%zu\"><h3>", t->app ? "app" : "fw",
			   sec_id[s->in->section][0], t->cls);
	report_html_str(s->h, obj_class_name(s->m, t->cls));
	report_html_printf(s->h, " <span class=\"note\">%llu %s%s", (unsigned long long)t->total,
			   sec_word[s->in->section], t->app ? ", app class" : "");
	if (t->total > t->n)
		report_html_printf(s->h, "; the first %zu by address shown", t->n);
	report_html_raw(s->h, "</span></h3>\n<table class=\"objs\">\n");
	rc = obj_row_write(s, t, t->rows[0], true, e);
	for (size_t k = 0; k < t->n && rc == 0 && !s->h->rc; k++)
		rc = obj_row_write(s, t, t->rows[k], false, e);
	report_html_raw(s->h, "</table></div>\n");
	return rc;
}

/* The classes of the section without a table: names and counts. */
static void obj_rest(struct obj_sec *s)
{
	const struct model_stats *st = s->in->st;
	size_t shown = 0, left = 0;
	for (size_t k = 0; k < st->class_count; k++) {
		size_t c = st->order[k];
		if (!s->per_class[c] || s->table_of[c] != SIZE_MAX || c == model_jls(s->m))
			continue;
		if (shown >= OBJ_REST_ROWS) {
			left++;
			continue;
		}
		if (!shown++)
			report_html_printf(s->h, "<div class=\"ct fw\"><h3>Other classes with %s objects</h3>\n<table>\n"
						 "<tr><th class=\"r\">objects</th><th>class</th></tr>\n",
					   sec_word[s->in->section]);
		report_html_printf(s->h, "<tr><td class=\"r\">%llu</td><td>", (unsigned long long)s->per_class[c]);
		report_html_str(s->h, obj_class_name(s->m, c));
		report_html_raw(s->h, "</td></tr>\n");
	}
	if (shown)
		report_html_printf(s->h, "</table>%s</div>\n", left ? "<p class=\"note\">(and more: see case.db)</p>" : "");
}

static void obj_head(struct obj_sec *s)
{
	static const char *const what[] = {
		"Allocated objects no root reaches: what the app let go and no garbage collection has swept yet "
		"(deleted messages, old tokens).",
		"Allocated objects a root reaches: what the app holds now.",
	};
	size_t app = 0;
	for (size_t k = 0; k < s->nt; k++)
		app += s->t[k].app;
	report_html_printf(s->h, "<h2 id=\"%s\">%s objects by class</h2>\n<p>%s %zu of the app's classes; each row "
				 "decoded, a reference as what it holds and a link to it.  Budget: at most %d rows of an "
				 "app class, %d of another (%d such classes), %d in all; the rest are in objects.jsonl and case.db."
				 "</p>\n",
			   sec_id[s->in->section], s->in->section == REPORT_DROPPED ? "Dropped" : "Live",
			   what[s->in->section], app,
			   s->in->section == REPORT_DROPPED ? REPORT_ROWS_APP : REPORT_ROWS_LIVE_APP, REPORT_ROWS_OTHER,
			   REPORT_CLASSES_OTHER, REPORT_ROWS_MAX);
	if (!app)
		report_html_printf(s->h, "<p class=\"noapp\">No class here is known to be the app's own: every "
					 "class is shown.</p>\n");
}

/* The section's tables in one line, each a link to its table, so that the first screen names
 * every class the section shows (the biggest table can fill it: a class of filler objects
 * ahead of the app's messages); the classes not the app's hide with their tables. */
static void obj_index(struct obj_sec *s)
{
	if (s->nt < 2)
		return;
	report_html_raw(s->h, "<p class=\"toc\">Classes below:");
	for (size_t k = 0; k < s->nt; k++) {
		const struct obj_table *t = &s->t[k];
		report_html_printf(s->h, "<span class=\"%s\">%s <a href=\"#%c%zu\">", t->app ? "app" : "fw", k ? "," : "",
				   sec_id[s->in->section][0], t->cls);
		report_html_str(s->h, obj_class_name(s->m, t->cls));
		report_html_printf(s->h, "</a> %llu</span>", (unsigned long long)t->total);
	}
	report_html_raw(s->h, "</p>\n");
}

int report_objects_write(struct report_html *h, const struct report_objects_in *in, struct err *e)
{
	struct obj_sec s = { .h = h, .m = in->view->m, .in = in };
	size_t classes = model_runtime(s.m)->class_count;
	int rc = 0;

	wbuf_init(&s.cell);
	s.per_class = xcalloc(classes ? classes : 1, sizeof(*s.per_class));
	s.table_of = xcalloc(classes ? classes : 1, sizeof(*s.table_of));
	if (!s.per_class || !s.table_of)
		rc = ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory for the report's tables");
	if (rc == 0) {
		memset(s.table_of, 0xff, classes * sizeof(*s.table_of));
		obj_count(&s);
		rc = obj_choose(&s, e);
	}
	if (rc == 0)
		rc = obj_collect(&s, e);
	if (rc == 0) {
		obj_head(&s);
		obj_index(&s);
		for (size_t k = 0; k < s.nt && rc == 0; k++)
			rc = obj_table_write(&s, &s.t[k], e);
		obj_rest(&s);
	}
	if (rc == 0)
		rc = wbuf_status(&s.cell, e);
	for (size_t k = 0; k < s.nt; k++)
		xfree(s.t[k].rows);
	xfree(s.t);
	xfree(s.per_class);
	xfree(s.table_of);
	wbuf_release(&s.cell);
	return rc;
}
