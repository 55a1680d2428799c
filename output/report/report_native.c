/* report_native.c - see report_native.h.  Strings from the image (mapping names, library
 * paths, symbol names, the first bytes as text) go through report_html_str/text. */
#include "output/report/report_native.h"

#include <stdio.h>

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

int report_native_section(struct report_html *h, const struct mdebug_result *res, struct symz *sz, struct err *e)
{
	char opts[160];
	size_t shown = 0;
	uint64_t damaged = 0;

	for (size_t i = 0; i < res->count; i++)
		damaged += native_damaged(&res->allocs[i]);
	mdebug_options_text(&res->options, opts, sizeof(opts));
	report_html_raw(h, "<h2 id=\"native\">Native heap (malloc_debug)</h2>\n<table>\n");
	report_html_printf(h, "<tr><th>options (%s)</th><td>", res->options_given ? "given" : "inferred");
	report_html_str(h, opts);
	report_html_printf(h, "</td></tr>\n<tr><th>word size</th><td class=\"r\">%u</td></tr>\n"
			   "<tr><th>regions scanned</th><td class=\"r\">%llu (%llu bytes, by %s)</td></tr>\n"
			   "<tr><th>allocations</th><td class=\"r\">%zu: %llu live, %llu freed, %llu tag-corrupted</td></tr>\n"
			   "<tr><th>damaged</th><td class=\"r\">%llu</td></tr>\n</table>\n",
			   res->bits, (unsigned long long)res->regions_scanned, (unsigned long long)res->bytes_scanned,
			   res->names_used ? "name" : "writable anonymous", res->count, (unsigned long long)res->live,
			   (unsigned long long)res->freed, (unsigned long long)res->corrupt, (unsigned long long)damaged);
	if (!res->count)
		return 0;
	report_html_raw(h, "<table>\n<tr><th>pointer</th><th>state</th><th class=\"r\">size</th><th class=\"r\">usable</th>"
			   "<th>damage</th><th>first bytes</th><th>backtrace</th></tr>\n");
	/* the damaged first, then the rest, each by address */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < res->count && shown < REPORT_LIST_MAX && !h->rc; i++) {
			int rc;
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
