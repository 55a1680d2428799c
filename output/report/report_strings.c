/* report_strings.c - the folded Strings of report.html (report_strings.h). */
#include "output/report/report_strings.h"

#include <stdlib.h>
#include <string.h>

#include "carver/base/escape.h"
#include "carver/base/hash.h"
#include "carver/base/htab.h"
#include "carver/base/xalloc.h"
#include "output/report/report.h"
#include "rosalloc/model/model_stats.h"

/* Fixed limits of the code: the super-class chain searched for Throwable, the referrers of a
 * copy looked at for its rank. */
enum { STR_SUPER_DEPTH = 64, STR_HOLDERS = 4 };

/* Ranks, first shown first (report_strings.h). */
enum str_rank { RANK_DROPPED_APP, RANK_DROPPED, RANK_LIVE_APP, RANK_OTHER, RANK_RUNTIME };

struct str_group {
	size_t off, len;            /* the text in the pool */
	uint32_t first;             /* object index of the copy shown */
	uint32_t count, dropped, freed;
	uint8_t rank;
};

struct str_fold {
	const struct model *m;
	const struct referrers *refs;
	uint8_t *throwable;         /* per class: 1 a Throwable, 2 not, 0 not yet known */
	struct str_group *g;
	size_t count, cap;
	struct htab at;             /* text hash -> group (every entry of a hash compared) */
	struct wbuf pool, text;
	uint64_t empty, empty_dropped, cut, unreadable;
};

static bool str_is_throwable(struct str_fold *f, size_t cls)
{
	const struct art_runtime *rt = model_runtime(f->m);
	size_t c = cls;
	if (cls >= rt->class_count)
		return false;
	if (!f->throwable[cls]) {
		f->throwable[cls] = 2;
		for (int d = 0; c < rt->class_count && d < STR_SUPER_DEPTH; d++, c = rt->classes[c].super)
			if (rt->classes[c].name && !strcmp(rt->classes[c].name, "java.lang.Throwable")) {
				f->throwable[cls] = 1;
				break;
			}
	}
	return f->throwable[cls] == 1;
}

/* The rank of copy i (report_strings.h). */
static uint8_t str_rank(struct str_fold *f, size_t i)
{
	const struct model_obj *o = model_obj(f->m, i);
	const uint32_t *from, *off;
	uint32_t n = f->refs ? referrers_of(f->refs, i, &from, &off) : 0;
	bool app = false, error = n > 0;
	for (uint32_t k = 0; k < n && k < STR_HOLDERS; k++) {
		size_t cls = model_obj(f->m, from[k])->cls;
		app |= runtime_class_origin(model_runtime(f->m), cls) == RT_ORIGIN_APP;
		error &= str_is_throwable(f, cls);
	}
	if (error || o->reach == MODEL_REACH_UNKNOWN)
		return RANK_RUNTIME;
	if (model_stats_is_dropped(o))
		return app ? RANK_DROPPED_APP : RANK_DROPPED;
	return app && o->alloc == MODEL_ALLOCATED ? RANK_LIVE_APP : RANK_OTHER;
}

/* The group of text (a new one when none holds it yet), SIZE_MAX when out of memory. */
static size_t str_group_of(struct str_fold *f, const uint8_t *s, size_t n)
{
	uint64_t key = hash_fnv1a64(s, n);
	for (size_t slot = htab_find(&f->at, key); slot != HTAB_END; slot = htab_find_next(&f->at, key, slot)) {
		struct str_group *g = &f->g[htab_val(&f->at, slot)];
		if (g->len == n && !memcmp(f->pool.data + g->off, s, n))
			return htab_val(&f->at, slot);
	}
	if (XALLOC_GROW(f->g, f->cap, f->count + 1, 1024) || htab_add(&f->at, key, (uint32_t)f->count))
		return SIZE_MAX;
	f->g[f->count] = (struct str_group){ .off = f->pool.len, .len = n, .first = UINT32_MAX, .rank = UINT8_MAX };
	wbuf_put(&f->pool, s, n);
	return f->count++;
}

static int str_add(struct str_fold *f, size_t i, struct err *e)
{
	const struct model_obj *o = model_obj(f->m, i);
	size_t k;
	uint8_t rank;

	wbuf_reset(&f->text);
	if (model_length(f->m, o) > REPORT_STRING_MAX)
		f->cut++;
	if (mirror_string(&model_runtime(f->m)->m, model_va(f->m, o), REPORT_STRING_MAX, &f->text, e)) {
		err_init(e);   /* damage, counted: strings.tsv and the object's view say why */
		f->unreadable++;
		return 0;
	}
	if (!f->text.len) {
		f->empty++;
		f->empty_dropped += model_stats_is_dropped(o);
		return 0;
	}
	if ((k = str_group_of(f, f->text.data, f->text.len)) == SIZE_MAX || f->count > HTAB_VAL_MAX)
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory folding the report's strings");
	rank = str_rank(f, i);
	f->g[k].count++;
	f->g[k].dropped += model_stats_is_dropped(o);
	f->g[k].freed += o->alloc == MODEL_FREE;
	if (rank < f->g[k].rank) {   /* objects come by address: the first copy of the best rank */
		f->g[k].rank = rank;
		f->g[k].first = (uint32_t)i;
	}
	return 0;
}

static int str_cmp(const void *a, const void *b)
{
	const struct str_group *x = a, *y = b;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->dropped != y->dropped)
		return x->dropped > y->dropped ? -1 : 1;
	return (x->first > y->first) - (x->first < y->first);
}

/* "Class.field" of the first object holding copy i, with a link, or why nothing does. */
static void str_holder(struct report_html *h, const struct str_fold *f, size_t i)
{
	const uint32_t *from, *off;
	uint32_t n = f->refs ? referrers_of(f->refs, i, &from, &off) : 0;
	struct referrers_field rf;
	const struct model_obj *o;
	const struct art_runtime *rt = model_runtime(f->m);

	if (!n) {
		report_html_raw(h, "<span class=\"note\">nothing</span>");
		return;
	}
	o = model_obj(f->m, from[0]);
	report_html_str(h, o->cls < rt->class_count ? rt->classes[o->cls].name : NULL);
	if (referrers_field_at(f->m, o, off[0], &rf) && rf.field) {
		report_html_raw(h, ".");
		report_html_str(h, rf.field->name);
	} else if (rf.is_element)
		report_html_printf(h, "[%u]", rf.index);
	report_html_raw(h, " ");
	report_view_link(h, f->m, o);
	if (n > 1)
		report_html_printf(h, " <span class=\"note\">+%u more</span>", n - 1);
}

static int str_row(struct report_html *h, struct report_view *v, const struct str_fold *f, const struct str_group *g,
		   struct wbuf *search, struct err *e)
{
	const struct model_obj *o = model_obj(f->m, g->first);
	static const char *const rank_class[] = { "app", "", "app", "", "rt" };

	report_html_printf(h, "<tr class=\"%s\"><td class=\"s\">&quot;", rank_class[g->rank]);
	report_html_text(h, f->pool.data + g->off, g->len);
	report_html_printf(h, "&quot;</td><td class=\"r\">%u</td><td class=\"r\">%u</td><td class=\"r\">%u</td><td>",
			   g->count, g->dropped, g->freed);
	str_holder(h, f, g->first);
	report_html_raw(h, "</td><td>");
	report_view_link(h, f->m, o);
	report_html_raw(h, "</td></tr>\n");
	wbuf_put(search, "[", 1);
	escape_json_quoted(search, f->pool.data + g->off, g->len < 200 ? g->len : 200);
	wbuf_printf(search, ",%u,\"0x%llx\"],\n", g->count, (unsigned long long)model_va(f->m, o));
	return report_view_add(v, g->first, e);
}

static int str_fold_all(struct str_fold *f, struct err *e)
{
	int rc = 0;
	for (size_t i = 0; i < model_count(f->m) && rc == 0; i++)
		if (model_stats_is_string(f->m, model_obj(f->m, i)))
			rc = str_add(f, i, e);
	if (rc == 0 && (f->pool.failed || f->text.failed))
		rc = ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory folding the report's strings");
	return rc;
}

static void str_head(struct report_html *h, const struct str_fold *f)
{
	report_html_printf(h, "<h2 id=\"strings\">Strings</h2>\n<p>%zu distinct texts, one row each, with how many "
			      "copies the heap holds; what the app holds first, what the runtime keeps for itself "
			      "(error messages, interned literals) last.  %llu empty Strings (%llu dropped) are not "
			      "listed.</p>\n",
			   f->count, (unsigned long long)f->empty, (unsigned long long)f->empty_dropped);
	if (f->unreadable)
		report_html_printf(h, "<p class=\"note\">%llu Strings do not read (damaged or not captured): not "
				      "folded.</p>\n", (unsigned long long)f->unreadable);
	if (f->cut)
		report_html_printf(h, "<p class=\"note\">%llu Strings are longer than %d characters: they fold by "
				      "their first %d.</p>\n",
				   (unsigned long long)f->cut, REPORT_STRING_MAX, REPORT_STRING_MAX);
	report_html_raw(h, "<table id=\"strtab\">\n<tr><th>text</th><th class=\"r\">copies</th><th class=\"r\">dropped"
			   "</th><th class=\"r\">free</th><th>first held by</th><th>copy</th></tr>\n");
}

int report_strings_write(struct report_html *h, struct report_view *v, const struct referrers *refs,
			 struct wbuf *search, struct err *e)
{
	const struct model *m = v->m;
	struct str_fold f = { .m = m, .refs = refs };
	size_t classes = model_runtime(m)->class_count;
	int rc = 0;

	htab_init(&f.at);
	wbuf_init(&f.pool);
	wbuf_init(&f.text);
	if (!(f.throwable = xcalloc(classes ? classes : 1, 1)))
		rc = ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory folding the report's strings");
	if (rc == 0)
		rc = str_fold_all(&f, e);
	if (rc == 0) {
		if (f.count)
			qsort(f.g, f.count, sizeof(*f.g), str_cmp);
		str_head(h, &f);
		for (size_t k = 0; k < f.count && k < REPORT_STRING_ROWS && rc == 0; k++)
			rc = str_row(h, v, &f, &f.g[k], search, e);
		report_html_raw(h, "</table>\n");
		if (f.count > REPORT_STRING_ROWS)
			report_html_printf(h, "<p class=\"note\">%d of %zu distinct texts shown (the page's budget); "
					      "strings.tsv and case.db hold every copy.</p>\n",
					   REPORT_STRING_ROWS, f.count);
	}
	xfree(f.throwable);
	xfree(f.g);
	htab_release(&f.at);
	wbuf_release(&f.pool);
	wbuf_release(&f.text);
	return rc;
}
