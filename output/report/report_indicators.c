/* report_indicators.c - the indicators of report.html (report_indicators.h). */
#include "output/report/report_indicators.h"

#include <stdlib.h>
#include <string.h>

#include "carver/base/escape.h"
#include "carver/base/hash.h"
#include "carver/base/htab.h"
#include "carver/base/xalloc.h"

struct ind_row {
	size_t hit;                 /* the first hit of its kind and value */
	uint32_t count;
	uint8_t rank;               /* 0 secret, 1 other */
	uint8_t state_rank;         /* dropped, live, unknown, free, residue */
};

static uint8_t ind_state_rank(unsigned state)
{
	static const uint8_t rank[FIND_STATE_COUNT] = { [FIND_DROPPED] = 0, [FIND_LIVE] = 1, [FIND_UNKNOWN] = 2,
							[FIND_FREE] = 3, [FIND_RESIDUE] = 4 };
	return state < FIND_STATE_COUNT ? rank[state] : 4;
}

static bool ind_same(const struct find_result *f, const struct find_hit *a, const struct find_hit *b)
{
	return a->kind == b->kind && a->value_len == b->value_len &&
	       !memcmp(find_text(f, a->value), find_text(f, b->value), a->value_len);
}

/* One row per distinct kind and value. */
static int ind_fold(const struct find_result *f, struct ind_row **rows, size_t *n, struct err *e)
{
	struct htab at;
	size_t cap = 0;
	int rc = 0;

	htab_init(&at);
	*rows = NULL;
	*n = 0;
	for (size_t i = 0; i < f->count && rc == 0; i++) {
		const struct find_hit *x = &f->v[i];
		uint64_t key = hash_fnv1a64_more(hash_fnv1a64(&x->kind, 1), find_text(f, x->value), x->value_len);
		size_t slot = htab_find(&at, key);
		for (; slot != HTAB_END; slot = htab_find_next(&at, key, slot))
			if (ind_same(f, &f->v[(*rows)[htab_val(&at, slot)].hit], x))
				break;
		if (slot != HTAB_END) {
			(*rows)[htab_val(&at, slot)].count++;
			continue;
		}
		if (*n > HTAB_VAL_MAX || XALLOC_GROW(*rows, cap, *n + 1, 256) || htab_add(&at, key, (uint32_t)*n))
			rc = ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory for the report's indicators");
		else
			(*rows)[(*n)++] = (struct ind_row){ i, 1, x->kind == FIND_SECRET ? 0 : 1, ind_state_rank(x->state) };
	}
	htab_release(&at);
	return rc;
}

static int ind_cmp(const void *a, const void *b)
{
	const struct ind_row *x = a, *y = b;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->state_rank != y->state_rank)
		return x->state_rank < y->state_rank ? -1 : 1;
	return (x->hit > y->hit) - (x->hit < y->hit);   /* hits are in kind-free address order */
}

static int ind_row_write(struct report_html *h, struct report_view *v, const struct find_result *f,
			 const struct ind_row *r, struct wbuf *search, struct err *e)
{
	const struct find_hit *x = &f->v[r->hit];
	const struct art_runtime *rt = model_runtime(v->m);
	size_t len = x->value_len < REPORT_INDICATOR_CHARS ? x->value_len : REPORT_INDICATOR_CHARS;

	report_html_printf(h, "<tr><td>%s</td><td class=\"s\">", find_kind_name(x->kind));
	report_html_text(h, find_text(f, x->value), len);
	report_html_printf(h, "%s</td><td class=\"r\">%u</td><td>%s</td><td>", len < x->value_len ? "&hellip;" : "",
			   r->count, find_state_name(x->state));
	if (x->obj == MODEL_NONE) {   /* a residue place: no object to link, its space */
		report_html_printf(h, "free place <span class=\"a\">0x%llx</span> in ", (unsigned long long)x->addr);
		report_html_str(h, x->space < rt->spaces.count ? rt->spaces.v[x->space].name : NULL);
	} else {
		const struct model_obj *o = model_obj(v->m, x->obj);
		report_view_link(h, v->m, o);
		report_html_raw(h, " ");
		report_html_str(h, o->cls < rt->class_count ? rt->classes[o->cls].name : NULL);
	}
	report_html_raw(h, "</td><td>");
	report_html_text(h, find_text(f, x->field), x->field_len);
	report_html_raw(h, "</td></tr>\n");
	wbuf_printf(search, "[\"%s\",", find_kind_name(x->kind));
	escape_json_quoted(search, (const uint8_t *)find_text(f, x->value), len);
	wbuf_printf(search, ",\"0x%llx\"],\n", (unsigned long long)x->addr);
	return x->obj == MODEL_NONE ? 0 : report_view_add(v, x->obj, e);
}

int report_indicators_write(struct report_html *h, struct report_view *v, const struct find_result *f,
			    struct wbuf *search, struct err *e)
{
	struct ind_row *rows = NULL;
	size_t n = 0;
	int rc;

	report_html_raw(h, "<h2 id=\"indicators\">Indicators and secrets</h2>\n");
	if (!f) {
		report_html_raw(h, "<p class=\"note\">The indicator scan did not run (carve --skip indicators).</p>\n");
		return 0;
	}
	if ((rc = ind_fold(f, &rows, &n, e))) {
		xfree(rows);
		return rc;
	}
	if (n)
		qsort(rows, n, sizeof(*rows), ind_cmp);
	report_html_printf(h, "<p>%zu indicators in %zu distinct values (output/find: URLs, e-mail addresses, phone "
			      "numbers, IP addresses, JWTs, bearer tokens, card numbers, and the values of fields "
			      "named like secrets); secrets first, then dropped before live.</p>\n<table id=\"indtab\">\n"
			      "<tr><th>kind</th><th>value</th><th class=\"r\">copies</th><th>state</th><th>first held in"
			      "</th><th>field</th></tr>\n",
			   f->count, n);
	for (size_t k = 0; k < n && k < REPORT_INDICATOR_ROWS && rc == 0; k++)
		rc = ind_row_write(h, v, f, &rows[k], search, e);
	report_html_raw(h, "</table>\n");
	if (n > REPORT_INDICATOR_ROWS)
		report_html_printf(h, "<p class=\"note\">%d of %zu distinct values shown (the page's budget); case.db's "
				      "indicators table and DIR/indicators/ hold every one.</p>\n",
				   REPORT_INDICATOR_ROWS, n);
	xfree(rows);
	return rc;
}
