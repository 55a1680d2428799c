/* report.c - report.html (report.h): the page around the heap map. */
#include "output/report/report.h"

#include <string.h>
#include <time.h>

#include "carver/base/escape.h"
#include "carver/base/sha256.h"
#include "carver/base/wbuf.h"
#include "carver/base/xalloc.h"
#include "output/report/report_html.h"
#include "output/report/report_indicators.h"
#include "output/report/report_map.h"
#include "output/report/report_native.h"
#include "output/report/report_objects.h"
#include "output/report/report_script.h"
#include "output/report/report_strings.h"
#include "output/report/report_view.h"
#include "rosalloc/model/model_stats.h"

/* Rows of the free objects' list (the page's budget). */
enum { PAGE_FREE_ROWS = 200 };

struct page {
	struct report_html h;
	const struct report_input *in;
	const struct model *m;
	const struct art_runtime *rt;
	struct model_stats st;
	struct dec *dec;
	struct report_view view;    /* the objects the page lists, for their views */
	struct wbuf text;           /* a decoded row */
	struct wbuf search;         /* the search box's data (JSON) */
};

static const char page_style[] =
	"body{font:14px/1.4 system-ui,sans-serif;margin:1em 2em;color:#222;background:#fff}"
	"h1{font-size:1.5em}h2{font-size:1.2em;border-bottom:1px solid #ccc;margin-top:1.5em}"
	"table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ddd;padding:2px 6px;"
	"text-align:left;vertical-align:top}td.r,th.r{text-align:right;font-variant-numeric:tabular-nums}"
	"code,.a{font-family:ui-monospace,monospace}.s{white-space:pre-wrap;word-break:break-all;"
	"font-family:ui-monospace,monospace;max-width:60em}.note{color:#666}nav a{margin-right:1em}"
	"#heapmap text{font:11px ui-monospace,monospace;fill:#222}"
	".l{fill:#2e8b57;background:#2e8b57}.d{fill:#f28e2b;background:#f28e2b}"
	".u{fill:#9467bd;background:#9467bd}.f{fill:#4e79a7;background:#4e79a7}"
	".e{fill:#e4e4e4;background:#e4e4e4}.n{fill:#b0b0b0;background:#b0b0b0}"
	"rect.a{fill:none;stroke:#d62728;stroke-width:2}span.a{border:2px solid #d62728}"
	".sw{display:inline-block;width:12px;height:12px;vertical-align:middle;margin:0 4px 0 12px}"
	"#bar{position:sticky;top:0;background:#fff;z-index:2;padding:.4em 0;border-bottom:1px solid #ccc}"
	"#q{width:28em;font-size:1em}#hits ul{margin:.3em 0;max-height:40vh;overflow:auto}"
	"#view{display:none;position:fixed;right:1em;top:3.5em;width:42%;max-height:85vh;overflow:auto;"
	"background:#fffdf2;border:1px solid #c9b870;padding:0 1em;z-index:3;box-shadow:0 2px 8px #0003}"
	".ct.fw,p.noapp,.toc .fw{display:none}body.all .ct.fw{display:block}body.all .toc .fw{display:inline}"
	"table.objs td{max-width:28em}"
	"td.t{white-space:nowrap}tr.rt td{color:#888}table.kv{margin:0}table.kv th{font-weight:normal;color:#555}"
	"#heapmap g[data-b]{cursor:pointer}html{scroll-padding-top:7em}";

static const char *page_class_name(const struct art_runtime *rt, size_t i)
{
	return i < rt->class_count && rt->classes[i].name ? rt->classes[i].name : "?";
}

/* ---- small table helpers ---- */

static void row_u(struct page *p, const char *label, const char *key, uint64_t v)
{
	report_html_printf(&p->h, "<tr><th>%s</th><td class=\"r\" data-k=\"%s\">%llu</td></tr>\n", label, key,
			   (unsigned long long)v);
}

static void row_s(struct page *p, const char *label, const char *v)
{
	report_html_printf(&p->h, "<tr><th>%s</th><td>", label);
	report_html_str(&p->h, v);
	report_html_raw(&p->h, "</td></tr>\n");
}

static void page_more(struct page *p, uint64_t shown, uint64_t total, const char *what)
{
	if (total > shown)
		report_html_printf(&p->h, "<p class=\"note\">%llu of %llu %s shown (the first by address).</p>\n",
				   (unsigned long long)shown, (unsigned long long)total, what);
}

/* ---- sections ---- */

static void page_head(struct page *p)
{
	const struct image *img = p->rt->img;
	report_html_raw(&p->h, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>artcarve report: ");
	report_html_str(&p->h, img->path);
	report_html_raw(&p->h, "</title>\n<style>");
	report_html_raw(&p->h, page_style);
	report_html_raw(&p->h, "</style>\n<script>");
	report_html_raw(&p->h, report_script);
	report_html_raw(&p->h, "</script>\n</head>\n<body>\n<h1 id=\"top\">artcarve report: ");
	report_html_str(&p->h, img->path);
	report_html_raw(&p->h, "</h1>\n<div id=\"bar\"><input id=\"q\" type=\"search\" placeholder=\"search classes, "
			       "strings, indicators\" autocomplete=\"off\"> <label><input id=\"all\" type=\"checkbox\"> "
			       "everything (not only the app's classes)</label>\n<nav><a href=\"#dropped\">dropped</a>"
			       "<a href=\"#live\">live</a><a href=\"#strings\">strings</a><a href=\"#indicators\">indicators</a>"
			       "<a href=\"#map\">heap map</a><a href=\"#spaces\">spaces</a><a href=\"#summary\">summary</a>"
			       "<a href=\"#classes\">classes</a><a href=\"#free\">free</a><a href=\"#native\">native</a><a href=\"#anomalies\">anomalies</a>"
			       "<a href=\"#roots\">roots</a><a href=\"#image\">image and run</a></nav>\n"
			       "<div id=\"hits\"></div></div>\n<div id=\"view\"></div>\n");
}

/* One line of figures above the findings. */
static void page_lead(struct page *p)
{
	const struct model_stats *t = &p->st;
	report_html_printf(&p->h, "<p class=\"lead\">%llu objects carved: %llu dropped (%llu of them Strings), %llu "
				  "reachable, %llu of unknown reachability, %llu free.  Every address is a link to the "
				  "object; a heap-map cell lists the objects it holds.</p>\n",
			   (unsigned long long)model_count(p->m), (unsigned long long)t->dropped,
			   (unsigned long long)t->strings_dropped, (unsigned long long)t->reach[MODEL_REACHABLE],
			   (unsigned long long)t->reach[MODEL_REACH_UNKNOWN], (unsigned long long)t->alloc[MODEL_FREE]);
}

static void page_image(struct page *p)
{
	const struct art_runtime *rt = p->rt;
	const struct image *img = rt->img;

	report_html_raw(&p->h, "<h2 id=\"image\">Image and run</h2>\n<table>\n");
	row_s(p, "image", img->path);
	row_s(p, "container", img->container);
	report_html_printf(&p->h, "<tr><th>regions</th><td>%zu, %llu bytes mapped, %llu captured</td></tr>\n",
			   img->region_count, (unsigned long long)img_mapped_bytes(img),
			   (unsigned long long)img_captured_bytes(img));
	report_html_raw(&p->h, "<tr><th>ART version</th><td>layout family <b data-k=\"layout\">");
	report_html_str(&p->h, rt->layout->family);
	report_html_raw(&p->h, "</b>, found by ");
	report_html_str(&p->h, rt->layout_how);
	report_html_printf(&p->h, "</td></tr>\n<tr><th>pointer size</th><td><span data-k=\"pointer_size\">%u</span>, "
				  "found by ", rt->pointer_size);
	report_html_str(&p->h, rt->pointer_how);
	report_html_raw(&p->h, "</td></tr>\n");
	row_u(p, "classes", "classes", rt->class_count);
	report_html_raw(&p->h, "</table>\n");
}

/* The files the image was read from, each with its size and SHA-256 (read now, in blocks). */
static int page_inputs(struct page *p, struct err *e)
{
	const struct image *img = p->rt->img;
	size_t n = img_input_count(img);

	report_html_printf(&p->h, "<h3>Input files</h3>\n<table>\n<tr><th>file</th><th class=\"r\">bytes</th>"
				  "<th>SHA-256</th></tr>\n");
	for (size_t i = 0; i < n && !p->h.rc; i++) {
		const char *path = img_input_path(img, i);
		char hex[SHA256_TEXT];
		uint64_t size;
		int rc = path ? img_input_sha256(img, i, hex, &size, e) : 0;
		if (rc)
			return rc;
		if (!path)
			continue;
		report_html_raw(&p->h, "<tr><td>");
		report_html_str(&p->h, path);
		report_html_printf(&p->h, "</td><td class=\"r\">%llu</td><td class=\"a\" data-sha256=\"%zu\">%s</td></tr>\n",
				   (unsigned long long)size, i, hex);
	}
	report_html_raw(&p->h, "</table>\n");
	return 0;
}

struct page_figure {
	const char *label, *key;   /* key: the path of the figure in carve --json */
	uint64_t v;
};

/* A table of figures; a NULL label starts a new table under the heading in key. */
static void page_figures(struct page *p, const struct page_figure *f, size_t n)
{
	report_html_raw(&p->h, "<table>\n");
	for (size_t i = 0; i < n; i++) {
		if (f[i].label)
			row_u(p, f[i].label, f[i].key, f[i].v);
		else
			report_html_printf(&p->h, "</table>\n<h3>%s</h3>\n<table>\n", f[i].key);
	}
	report_html_raw(&p->h, "</table>\n");
}

static void page_summary(struct page *p)
{
	const struct model_stats *t = &p->st;
	const struct model_totals n = model_totals(p->m);
	const struct page_figure f[] = {
		{ "candidates", "candidates", n.candidates },
		{ "objects", "objects", n.objects },
		{ "rejected candidates", "rejected", n.rejected },
		{ "empty free places", "empty", n.empty },
		{ "untyped residue", "untyped_residue", n.untyped },
		{ "retired classes", "retired_classes", n.retired },
		{ NULL, "Objects per state", 0 },
		{ "allocated", "states.allocated", t->alloc[MODEL_ALLOCATED] },
		{ "free", "states.free", t->alloc[MODEL_FREE] },
		{ "intact", "states.intact", t->content[MODEL_INTACT] },
		{ "partial", "states.partial", t->content[MODEL_PARTIAL] },
		{ "residue", "states.residue", t->content[MODEL_RESIDUE] },
		{ "reachable", "states.reachable", t->reach[MODEL_REACHABLE] },
		{ "unreachable", "states.unreachable", t->reach[MODEL_UNREACHABLE] },
		{ "reachability unknown", "states.unknown", t->reach[MODEL_REACH_UNKNOWN] },
		{ "dropped (allocated, unreachable)", "dropped.objects", t->dropped },
		{ NULL, "Confidence", 0 },
		{ "100", "confidence.100", t->confidence[MODEL_STATS_CONF_100] },
		{ "90-99", "confidence.90_99", t->confidence[MODEL_STATS_CONF_90] },
		{ "70-89", "confidence.70_89", t->confidence[MODEL_STATS_CONF_70] },
		{ "below 70", "confidence.below_70", t->confidence[MODEL_STATS_CONF_LOW] },
		{ NULL, "Strings", 0 },
		{ "java.lang.String objects", "strings.total", t->strings },
		{ "of them dropped", "strings.dropped", t->strings_dropped },
	};

	report_html_raw(&p->h, "<h2 id=\"summary\">Summary</h2>\n");
	page_figures(p, f, sizeof(f) / sizeof(f[0]));
}

static void page_spaces(struct page *p)
{
	const struct art_runtime *rt = p->rt;

	report_html_raw(&p->h, "<h2 id=\"spaces\">Spaces</h2>\n<p class=\"note\">Occupancy: bytes of the objects "
			       "found over the space's readable size (begin to end).</p>\n<table>\n<tr><th>kind</th>"
			       "<th>name</th><th>begin</th><th>end</th><th>limit</th><th class=\"r\">size</th>"
			       "<th class=\"r\">allocated</th><th class=\"r\">free partial</th><th class=\"r\">free residue"
			       "</th><th class=\"r\">empty</th><th class=\"r\">object bytes</th><th class=\"r\">occupancy</th>"
			       "<th>found by</th></tr>\n");
	for (size_t i = 0; i < rt->spaces.count; i++) {
		const struct art_space *s = &rt->spaces.v[i];
		const struct model_space_count *c = model_space_tally(p->m, i);
		uint64_t size = s->end > s->begin ? s->end - s->begin : 0;
		if (!spaces_holds_objects(s->kind))
			continue;
		report_html_printf(&p->h, "<tr><td>%s</td><td>", spaces_kind_name(s->kind));
		report_html_str(&p->h, s->name && s->name[0] ? s->name : "(found by content)");
		report_html_printf(&p->h, "%s</td><td class=\"a\">0x%llx</td><td class=\"a\">0x%llx</td>"
					  "<td class=\"a\">0x%llx</td><td class=\"r\">%llu</td><td class=\"r\">%llu</td>"
					  "<td class=\"r\">%llu</td><td class=\"r\">%llu</td><td class=\"r\">%llu</td>"
					  "<td class=\"r\">%llu</td><td class=\"r\">%.1f%%</td><td>",
				   s->backup ? " (inactive twin)" : "", (unsigned long long)s->begin,
				   (unsigned long long)s->end, (unsigned long long)s->limit, (unsigned long long)size,
				   (unsigned long long)c->objects[MODEL_ALLOCATED][MODEL_INTACT],
				   (unsigned long long)c->objects[MODEL_FREE][MODEL_PARTIAL],
				   (unsigned long long)c->objects[MODEL_FREE][MODEL_RESIDUE], (unsigned long long)c->empty,
				   (unsigned long long)c->bytes, size ? 100.0 * (double)c->bytes / (double)size : 0.0);
		report_html_str(&p->h, s->how);
		report_html_raw(&p->h, "</td></tr>\n");
	}
	report_html_raw(&p->h, "</table>\n");
}

/* A list of classes by count: the first `top` rows carry data-k="<key>.<row>.class|objects". */
static void page_class_rows(struct page *p, const char *key, const size_t *order, const uint64_t *count,
			    const uint64_t *dropped, size_t rows)
{
	report_html_printf(&p->h, "<table>\n<tr><th class=\"r\">objects</th>%s<th>class</th></tr>\n",
			   dropped ? "<th class=\"r\">dropped</th>" : "");
	for (size_t k = 0; k < rows && k < p->rt->class_count; k++) {
		size_t i = order[k];
		if (!count[i])
			break;
		report_html_printf(&p->h, "<tr><td class=\"r\" data-k=\"%s.%zu.objects\">%llu</td>", key, k,
				   (unsigned long long)count[i]);
		if (dropped)
			report_html_printf(&p->h, "<td class=\"r\">%llu</td>", (unsigned long long)dropped[i]);
		report_html_printf(&p->h, "<td data-k=\"%s.%zu.class\">", key, k);
		report_html_str(&p->h, page_class_name(p->rt, i));
		report_html_raw(&p->h, "</td></tr>\n");
	}
	report_html_raw(&p->h, "</table>\n");
}

/* ---- the findings ---- */

static int page_objects(struct page *p, enum report_section sec, struct err *e)
{
	struct report_objects_in oi = { p->dec, &p->view, &p->st, sec };
	return report_objects_write(&p->h, &oi, e);
}

/* The free objects (partial, residue): one decoded line each. */
static int page_free(struct page *p, struct err *e)
{
	const struct model_totals n = model_totals(p->m);
	uint64_t total = p->st.alloc[MODEL_FREE], shown = 0;
	int rc = 0;

	report_html_printf(&p->h, "<h2 id=\"free\">Free objects</h2>\n<p>%llu objects in places the allocator "
				  "calls free: %llu partial (leading words overwritten by the allocator), %llu "
				  "residue (bytes as left); %llu empty free places and %llu untyped residue are not "
				  "objects.</p>\n<table>\n<tr><th>address</th><th>class</th><th class=\"r\">size</th>"
				  "<th>space</th><th>content</th><th class=\"r\">confidence</th><th>decoded</th></tr>\n",
			   (unsigned long long)total, (unsigned long long)p->st.content[MODEL_PARTIAL],
			   (unsigned long long)p->st.content[MODEL_RESIDUE], (unsigned long long)n.empty,
			   (unsigned long long)n.untyped);
	for (size_t i = 0; i < model_count(p->m) && shown < PAGE_FREE_ROWS && rc == 0; i++) {
		const struct model_obj *o = model_obj(p->m, i);
		const struct art_space *s = model_space(p->m, o);
		if (o->alloc != MODEL_FREE)
			continue;
		report_html_raw(&p->h, "<tr><td>");
		report_view_link(&p->h, p->m, o);
		report_html_raw(&p->h, "</td><td>");
		report_html_str(&p->h, page_class_name(p->rt, o->cls));
		report_html_printf(&p->h, "</td><td class=\"r\">%u</td><td>%s</td><td>%s</td><td class=\"r\">%u</td>"
					  "<td class=\"s\">",
				   o->size, s ? spaces_kind_name(s->kind) : "?", model_content_name(o->content), o->confidence);
		wbuf_reset(&p->text);
		if ((rc = dec_object_text(p->dec, i, REPORT_CELL_CHARS, &p->text, e)) == 0)
			rc = report_view_add(&p->view, i, e);
		report_html_text(&p->h, p->text.data, p->text.len);
		report_html_raw(&p->h, "</td></tr>\n");
		shown++;
	}
	report_html_raw(&p->h, "</table>\n");
	if (total > shown)
		report_html_printf(&p->h, "<p class=\"note\">%llu of %llu free objects shown (the first by address).</p>\n",
				   (unsigned long long)shown, (unsigned long long)total);
	return rc;
}

/* The run: artcarve's version, the command line, when it ran (UTC). */
static void page_run(struct page *p)
{
	const struct report_run *run = p->in->run;
	char when[32] = "?";
	struct tm tm;
	time_t t;

	if (!run)
		return;
	t = (time_t)run->started;
	if (gmtime_r(&t, &tm))
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	report_html_raw(&p->h, "<h3>Run</h3>\n<table>\n");
	row_s(p, "artcarve version", run->version);
	report_html_raw(&p->h, "<tr><th>command line</th><td data-prov=\"argv\"><code>");
	for (int i = 0; i < run->argc; i++) {
		report_html_raw(&p->h, i ? " " : "");
		report_html_str(&p->h, run->argv[i]);
	}
	/* the one line that differs between two runs on the same input (tests drop it) */
	report_html_printf(&p->h, "</code></td></tr>\n<tr><th>analysed</th><td data-prov=\"time\">%s</td></tr>\n", when);
	report_html_raw(&p->h, "</table>\n");
}

/* The search box's classes: [name, objects, dropped, app (0/1), class index]. */
static void page_search_classes(struct page *p)
{
	wbuf_put(&p->search, "{\"classes\":[\n", 13);
	for (size_t k = 0, n = 0; k < p->st.class_count; k++) {
		size_t c = p->st.order[k];
		const char *name = page_class_name(p->rt, c);
		if (!model_class(p->m, c)->objects)
			break;
		wbuf_put(&p->search, n ? ",\n[" : "[", n ? 3 : 1);
		n++;
		escape_json_quoted(&p->search, (const uint8_t *)name, strlen(name));
		wbuf_printf(&p->search, ",%llu,%llu,%d,%zu]", (unsigned long long)model_class(p->m, c)->objects,
			    (unsigned long long)p->st.per_class_dropped[c], runtime_class_origin(p->rt, c) == RT_ORIGIN_APP, c);
	}
	wbuf_put(&p->search, "],\n\"strings\":[\n", 15);
}

/* Ends a list of the search data (its rows end ",\n"), then appends next. */
static void page_search_next(struct page *p, const char *next)
{
	if (p->search.len >= 2 && !memcmp(p->search.data + p->search.len - 2, ",\n", 2))
		p->search.len -= 2;
	wbuf_put(&p->search, next, strlen(next));
}

/* The search data: the classes, the Strings' rows and the indicators' rows (report_strings
 * and report_indicators appended them to p->search). */
static int page_search_write(struct page *p, struct err *e)
{
	page_search_next(p, "]}");
	if (wbuf_status(&p->search, e))
		return err_rc(e);
	report_html_raw(&p->h, "<script type=\"application/json\" id=\"search\">");
	report_html_json(&p->h, p->search.data, p->search.len);
	report_html_raw(&p->h, "</script>\n");
	return 0;
}

static int page_classes(struct page *p, struct err *e)
{
	size_t n = p->rt->class_count ? p->rt->class_count : 1;
	uint64_t *count = xcalloc(n, sizeof(uint64_t));

	if (!count)
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory for the report");
	for (size_t i = 0; i < p->rt->class_count; i++)
		count[i] = model_class(p->m, i)->objects;
	report_html_printf(&p->h, "<h2 id=\"classes\">Top classes</h2>\n<p>The %d classes with the most objects "
				  "(of %zu).</p>\n", REPORT_TOP_CLASSES, p->rt->class_count);
	page_class_rows(p, "top_classes", p->st.order, count, p->st.per_class_dropped, REPORT_TOP_CLASSES);
	xfree(count);
	return 0;
}

static void page_sink(struct page *p, const char *title, const struct anomaly_sink *s)
{
	report_html_printf(&p->h, "<h3>%s: %llu</h3>\n", title, (unsigned long long)s->total);
	if (!s->total)
		return;
	report_html_raw(&p->h, "<table>\n<tr><th>reason</th><th class=\"r\">count</th></tr>\n");
	for (unsigned c = 0; c < ANOM_CODE_COUNT; c++)
		if (s->per_code[c])
			report_html_printf(&p->h, "<tr><td>%s</td><td class=\"r\">%llu</td></tr>\n",
					   anomaly_code_name((enum anomaly_code)c), (unsigned long long)s->per_code[c]);
	report_html_raw(&p->h, "</table>\n<table>\n<tr><th>reason</th><th>cause</th><th>address</th><th>space</th>"
			       "<th>message</th></tr>\n");
	for (size_t i = 0; i < s->count && i < REPORT_LIST_MAX && !p->h.rc; i++) {
		const struct anomaly *a = &s->v[i];
		report_html_printf(&p->h, "<tr><td>%s</td><td>%s</td><td class=\"a\">", anomaly_code_name(a->code),
				   err_code_name(a->cause));
		if (a->va != ERR_NO_VA)
			report_html_printf(&p->h, "0x%llx", (unsigned long long)a->va);
		report_html_raw(&p->h, "</td><td>");
		report_html_str(&p->h, a->space);
		report_html_raw(&p->h, "</td><td>");
		report_html_str(&p->h, a->msg);
		report_html_raw(&p->h, "</td></tr>\n");
	}
	report_html_raw(&p->h, "</table>\n");
	page_more(p, s->count < REPORT_LIST_MAX ? s->count : REPORT_LIST_MAX, s->total, "anomalies");
}

static void page_anomalies(struct page *p)
{
	report_html_raw(&p->h, "<h2 id=\"anomalies\">Anomalies</h2>\n<p>Damaged input met and gone past, by "
			       "reason, with the first ones in full.</p>\n");
	page_sink(p, "Runtime model (classes, DEX files)", &p->rt->anomalies);
	page_sink(p, "Carving (space walkers, candidate checks, roots)", p->in->sink);
}

static void page_roots(struct page *p)
{
	const struct reach *r = p->in->r;

	report_html_raw(&p->h, "<h2 id=\"roots\">Root sources</h2>\n<p>&quot;Unreachable&quot; means unreachable "
			       "from the sources present here.</p>\n<table>\n<tr><th>source</th><th>state</th>"
			       "<th class=\"r\">roots</th><th>detail</th></tr>\n");
	for (unsigned i = 0; i < REACH_SOURCE_COUNT; i++) {
		const struct reach_source_info *s = &r->source[i];
		report_html_printf(&p->h, "<tr><td>%s</td><td>%s</td><td class=\"r\">%llu</td><td>", reach_source_name(i),
				   s->present ? "present" : "missing", (unsigned long long)s->roots);
		report_html_str(&p->h, s->detail);
		report_html_raw(&p->h, "</td></tr>\n");
	}
	report_html_raw(&p->h, "</table>\n");
	if (!p->in->evidence)
		return;
	report_html_raw(&p->h, "<h3>GC evidence</h3>\n<table>\n<tr><th>source</th><th>state</th>"
			       "<th class=\"r\">entries</th><th class=\"r\">consulted</th></tr>\n");
	for (int i = 0; i < WALK_EV_COUNT; i++) {
		const struct walk_ev_report *v = &p->in->evidence[i];
		report_html_printf(&p->h, "<tr><td>%s</td><td>%s</td><td class=\"r\">%llu</td><td class=\"r\">%llu</td></tr>\n",
				   walk_ev_source_name((enum walk_ev_source)i),
				   v->used ? "used" : v->present ? "present" : "absent", (unsigned long long)v->entries,
				   (unsigned long long)v->consulted);
	}
	report_html_raw(&p->h, "</table>\n");
}

static int page_map(struct page *p, struct err *e)
{
	const struct anomaly_sink *sinks[2] = { &p->rt->anomalies, p->in->sink };
	report_html_raw(&p->h, "<h2 id=\"map\">Heap map</h2>\n");
	return report_map_write(&p->h, p->m, p->in->units, sinks, 2, e);
}

static void page_dropped_classes(struct page *p)
{
	report_html_raw(&p->h, "<h3>Dropped objects by class</h3>\n");
	page_class_rows(p, "dropped.top_classes", p->st.dropped_order, p->st.per_class_dropped, NULL, REPORT_TOP_CLASSES);
}

/* Findings first: dropped, live, strings, indicators. */
static int page_findings(struct page *p, struct err *e)
{
	int rc = page_objects(p, REPORT_DROPPED, e);
	if (rc == 0)
		rc = page_objects(p, REPORT_LIVE, e);
	if (rc == 0) {
		page_search_classes(p);
		rc = report_strings_write(&p->h, &p->view, p->in->refs, &p->search, e);
	}
	if (rc == 0) {
		page_search_next(p, "],\n\"indicators\":[\n");
		rc = report_indicators_write(&p->h, &p->view, p->in->find, &p->search, e);
	}
	return rc;
}

/* Then the heap and the run. */
static int page_heap(struct page *p, struct err *e)
{
	int rc = page_map(p, e);
	if (rc == 0) {
		page_spaces(p);
		page_summary(p);
		page_dropped_classes(p);
		rc = page_classes(p, e);
	}
	if (rc == 0)
		rc = page_free(p, e);
	if (rc == 0)
		rc = report_native_section(&p->h, p->in->native, p->in->symz, e);
	if (rc == 0) {
		page_anomalies(p);
		page_roots(p);
		page_image(p);
		page_run(p);
		rc = page_inputs(p, e);
	}
	return rc;
}

int report_write(const struct report_input *in, struct outf *out, struct err *e)
{
	struct page p;
	int rc, done;

	memset(&p, 0, sizeof(p));
	p.in = in;
	p.m = in->m;
	p.rt = model_runtime(in->m);
	wbuf_init(&p.text);
	wbuf_init(&p.search);
	report_html_init(&p.h, out, e);
	rc = model_stats_make(&p.st, p.m, e);
	if (rc == 0)   /* the app's classes lead, as in the carve summary */
		rc = model_stats_app_first(&p.st, p.m, e);
	if (rc == 0)
		rc = dec_open(&p.dec, p.m, e);
	report_view_init(&p.view, p.m, in->r, in->refs, p.dec);
	if (rc == 0) {
		page_head(&p);
		page_lead(&p);
		rc = page_findings(&p, e);
	}
	if (rc == 0)
		rc = page_heap(&p, e);
	if (rc == 0)
		rc = page_search_write(&p, e);
	if (rc == 0)
		rc = report_view_write(&p.view, &p.h, e);
	if (rc == 0) {
		report_html_raw(&p.h, "</body>\n</html>\n");
		if (p.text.failed)
			rc = wbuf_status(&p.text, e);
	}
	done = report_html_finish(&p.h);
	report_view_release(&p.view);
	dec_close(p.dec);
	model_stats_release(&p.st);
	wbuf_release(&p.text);
	wbuf_release(&p.search);
	return rc ? rc : done;
}
