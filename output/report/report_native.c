/* report_native.c - see report_native.h.  Strings from the image (mapping names, library
 * paths, symbol names, the first bytes as text) go through report_html_str/text. */
#include "output/report/report_native.h"

#include <stdio.h>

#include "carver/native/mdebug_totals.h"
#include "output/report/report.h"

enum { NATIVE_FRAMES_SHOWN = 4, NATIVE_DAMAGE_SHOWN = 64 };

static bool native_damaged(const struct mdebug_alloc *a)
{
	return a->front_damaged || a->rear_damaged || a->uaf_bytes || a->state == MDEBUG_TAG_CORRUPT;
}

static int native_frames(struct report_html *h, const struct mdebug_result *res, const struct mdebug_alloc *a,
			 struct symz *sz, struct err *e)
{
	for (size_t i = 0; i < a->frame_count && i < NATIVE_FRAMES_SHOWN; i++) {
		struct symz_frame f;
		int rc = symz_lookup(sz, res->frames[a->frame_first + i], &f, e);
		if (rc)
			return rc;
		report_html_printf(h, "%s#%02zu 0x%llx", i ? "<br>" : "", i, (unsigned long long)f.pc);
		if (!f.placed)
			continue;
		report_html_raw(h, " ");
		report_html_str(h, f.lib);
		report_html_printf(h, "+0x%llx", (unsigned long long)f.lib_offset);
		if (f.symbol) {
			report_html_raw(h, " (");
			report_html_str(h, f.symbol);
			report_html_printf(h, "+0x%llx)", (unsigned long long)f.symbol_offset);
		}
	}
	if (a->frame_count > NATIVE_FRAMES_SHOWN)
		report_html_printf(h, "<br><span class=\"note\">%zu more frames</span>", a->frame_count - NATIVE_FRAMES_SHOWN);
	return 0;
}

static void native_damage(struct report_html *h, const struct mdebug_result *res, const struct mdebug_alloc *a)
{
	for (size_t i = 0; i < a->damage_count && i < NATIVE_DAMAGE_SHOWN; i++) {
		const struct mdebug_damage *d = &res->damage[a->damage_first + i];
		report_html_printf(h, "%s%s: allocation[%lld] = 0x%02x (expected 0x%02x)", i ? "<br>" : "",
				   mdebug_damage_name(d->kind), (long long)d->offset, d->found, d->expected);
	}
	if (a->damage_count > NATIVE_DAMAGE_SHOWN)
		report_html_printf(h, "<br><span class=\"note\">%zu more damaged bytes listed in case.db</span>",
				   a->damage_count - NATIVE_DAMAGE_SHOWN);
}

static int native_row(struct report_html *h, const struct mdebug_result *res, const struct mdebug_alloc *a,
		      struct symz *sz, struct err *e)
{
	char text[MDEBUG_FIRST_BYTES + 1];
	int rc;

	for (uint32_t i = 0; i < a->first_len; i++)
		text[i] = a->first[i] >= 0x20 && a->first[i] < 0x7f ? (char)a->first[i] : '.';
	text[a->first_len] = '\0';
	report_html_printf(h, "<tr><td class=\"a\">0x%llx</td><td>%s</td><td class=\"r\">%llu</td>"
			   "<td class=\"r\">%llu</td><td>", (unsigned long long)a->pointer, mdebug_state_name(a->state),
			   (unsigned long long)a->size, (unsigned long long)a->usable_size);
	native_damage(h, res, a);
	report_html_raw(h, "</td><td class=\"s\">");
	report_html_str(h, text);
	report_html_raw(h, "</td><td>");
	if ((rc = native_frames(h, res, a, sz, e)))
		return rc;
	report_html_raw(h, "</td></tr>\n");
	return 0;
}

/* The figures of one totals row, after its first cells: live, freed (count, requested and
 * usable bytes each), tag-corrupted. */
static void native_total_cells(struct report_html *h, const struct mdebug_total *t)
{
	const uint64_t v[7] = { t->live, t->live_bytes, t->live_usable, t->freed, t->freed_bytes, t->freed_usable,
				t->corrupt };
	for (int i = 0; i < 7; i++)
		report_html_printf(h, "<td class=\"r\">%llu</td>", (unsigned long long)v[i]);
	report_html_raw(h, "</tr>\n");
}

static void native_totals_head(struct report_html *h, const char *id, const char *first)
{
	report_html_printf(h, "<table id=\"%s\">\n<tr>%s<th class=\"r\">live</th><th class=\"r\">live bytes</th>"
			   "<th class=\"r\">live usable</th><th class=\"r\">freed</th><th class=\"r\">freed bytes</th>"
			   "<th class=\"r\">freed usable</th><th class=\"r\">tag-corrupted</th></tr>\n", id, first);
}

static void native_cut_note(struct report_html *h, size_t shown, size_t count, const char *what)
{
	if (count > shown)
		report_html_printf(h, "<p class=\"note\">%zu of %zu %s shown; case.db's native_totals holds every one."
				      "</p>\n", shown, count, what);
}

/* Per backtrace: its first allocation (whose frames case.db's native_frames lists), the
 * number of frames and the first of them named, then the figures. */
static int native_backtrace_rows(struct report_html *h, const struct mdebug_result *res,
				 const struct mdebug_totals *t, struct symz *sz, struct err *e)
{
	size_t shown = 0;
	native_totals_head(h, "native-backtraces", "<th>first allocation</th><th class=\"r\">frames</th>"
						     "<th>backtrace</th>");
	for (; shown < t->backtrace_count && shown < REPORT_LIST_MAX && !h->rc; shown++) {
		const struct mdebug_bt_total *b = &t->backtraces[shown];
		const struct mdebug_alloc *a = &res->allocs[b->first];
		int rc;
		report_html_printf(h, "<tr><td class=\"a\">0x%llx</td><td class=\"r\">%zu</td><td>",
				   (unsigned long long)a->pointer, b->frame_count);
		if ((rc = native_frames(h, res, a, sz, e)))
			return rc;
		report_html_raw(h, "</td>");
		native_total_cells(h, &b->t);
	}
	report_html_raw(h, "</table>\n");
	native_cut_note(h, shown, t->backtrace_count, "backtraces");
	return 0;
}

/* The totals an investigator compares with the app's own accounting (mdebug_totals.h):
 * overall, per size class (the allocator's usable size), per backtrace. */
static int native_totals_section(struct report_html *h, const struct mdebug_result *res, struct symz *sz,
				 struct err *e)
{
	struct mdebug_totals t;
	size_t shown = 0;
	int rc = mdebug_totals_make(res, &t, e);
	if (rc)
		return rc;
	report_html_raw(h, "<h3>Totals</h3>\n<p>Requested bytes are the sizes the app asked for, usable bytes what "
			   "the allocator gave; compare them with the app's own accounting (Debug.getNativeHeapAllocatedSize, "
			   "dumpsys meminfo's Native Heap).</p>\n");
	native_totals_head(h, "native-totals", "<th></th>");
	report_html_raw(h, "<tr><th>all</th>");
	native_total_cells(h, &t.all);
	report_html_raw(h, "</table>\n<h3>By size class (usable size)</h3>\n");
	native_totals_head(h, "native-size-classes", "<th class=\"r\">usable size</th>");
	for (; shown < t.class_count && shown < REPORT_LIST_MAX && !h->rc; shown++) {
		report_html_printf(h, "<tr><td class=\"r\">%llu</td>", (unsigned long long)t.classes[shown].usable_size);
		native_total_cells(h, &t.classes[shown].t);
	}
	report_html_raw(h, "</table>\n");
	native_cut_note(h, shown, t.class_count, "size classes");
	report_html_raw(h, "<h3>By backtrace (most live bytes first)</h3>\n");
	rc = native_backtrace_rows(h, res, &t, sz, e);
	mdebug_totals_release(&t);
	return rc;
}

int report_native_section(struct report_html *h, const struct mdebug_result *res, struct symz *sz, struct err *e)
{
	char opts[160];
	size_t shown = 0;
	uint64_t damaged = 0;
	int rc;

	report_html_raw(h, "<h2 id=\"native\">Native heap (malloc_debug)</h2>\n");
	if (!res) {
		report_html_raw(h, "<p class=\"note\">Not examined: the carve ran without --native.</p>\n");
		return 0;
	}
	for (size_t i = 0; i < res->count; i++)
		damaged += native_damaged(&res->allocs[i]);
	mdebug_options_text(&res->options, opts, sizeof(opts));
	report_html_raw(h, "<table>\n");
	report_html_printf(h, "<tr><th>options (%s)</th><td>", res->options_given ? "given" : "inferred");
	report_html_str(h, opts);
	report_html_printf(h, "</td></tr>\n<tr><th>word size</th><td class=\"r\">%u</td></tr>\n"
			   "<tr><th>regions scanned</th><td class=\"r\">%llu (%llu bytes, by %s)</td></tr>\n"
			   "<tr><th>allocations</th><td class=\"r\">%zu: %llu live, %llu freed, %llu tag-corrupted</td></tr>\n"
			   "<tr><th>damaged</th><td class=\"r\">%llu</td></tr>\n</table>\n",
			   res->bits, (unsigned long long)res->regions_scanned, (unsigned long long)res->bytes_scanned,
			   res->names_used ? "name" : "writable anonymous", res->count, (unsigned long long)res->live,
			   (unsigned long long)res->freed, (unsigned long long)res->corrupt, (unsigned long long)damaged);
	if (!res->count) {
		report_html_raw(h, "<p class=\"note\">No malloc_debug allocation found in the regions scanned: no "
				   "totals.</p>\n");
		return 0;
	}
	if ((rc = native_totals_section(h, res, sz, e)))
		return rc;
	report_html_raw(h, "<h3>Allocations</h3>\n<table>\n<tr><th>pointer</th><th>state</th><th class=\"r\">size</th><th class=\"r\">usable</th>"
			   "<th>damage</th><th>first bytes</th><th>backtrace</th></tr>\n");
	/* the damaged first, then the rest, each by address */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < res->count && shown < REPORT_LIST_MAX && !h->rc; i++) {
			if (native_damaged(&res->allocs[i]) != (pass == 0))
				continue;
			if ((rc = native_row(h, res, &res->allocs[i], sz, e)))
				return rc;
			shown++;
		}
	report_html_raw(h, "</table>\n");
	if (res->count > shown)
		report_html_printf(h, "<p class=\"note\">%zu of %zu allocations shown (the damaged first).</p>\n", shown,
				   res->count);
	return 0;
}
