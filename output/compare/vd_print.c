/* vd_print.c - the report as text and as JSON.  Both list the same figures in the same fixed
 * order; a ratio is shown truncated (never rounded up: 100.00% only when every object
 * agrees) with its numerator and denominator. */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "carver/base/rep.h"
#include "output/compare/vd_int.h"

/* ---- text ------------------------------------------------------------------------------- */

static const char *pct(char *buf, size_t n, uint64_t num, uint64_t den)
{
	if (!den) {
		snprintf(buf, n, "n/a");
		return buf;
	}
	uint64_t bp = (uint64_t)floor((double)num * 10000.0 / (double)den);     /* basis points */
	if (num < den && bp == 10000)
		bp = 9999;
	snprintf(buf, n, "%" PRIu64 ".%02" PRIu64 "%%", bp / 100, bp % 100);
	return buf;
}

static void txt_ratio(FILE *fp, const char *label, uint64_t num, uint64_t den)
{
	char b[32];
	fprintf(fp, "  %-10s %s (%" PRIu64 "/%" PRIu64 ")\n", label, pct(b, sizeof(b), num, den), num, den);
}

static void txt_side(FILE *fp, const char *what, const struct vd_side_info *s)
{
	fprintf(fp, "%s: %s\n  format: %s", what, s->label ? s->label : "", s->format);
	if (s->id_size)
		fprintf(fp, ", id size %u", s->id_size);
	fprintf(fp, "\n  objects: %" PRIu64 " (", s->objects);
	for (int k = 0; k < VD_KIND_COUNT; k++)
		fprintf(fp, "%s%s %" PRIu64, k ? ", " : "", vd_kind_name((enum vd_kind)k), s->by_kind[k]);
	fprintf(fp, ")\n  not objects: %" PRIu64 " (", s->synthetic[0] + s->synthetic[1] + s->synthetic[2]);
	for (int k = 0; k < VD_SYN_COUNT; k++)
		fprintf(fp, "%s%s %" PRIu64, k ? ", " : "", vd_syn_name((enum vd_syn)k), s->synthetic[k]);
	fprintf(fp, ")\n  state marks: %" PRIu64 " arrays, states given:", s->mark_arrays);
	bool any = false;
	for (int d = 0; d < VD_DIM_COUNT; d++)
		if (s->states[d]) {
			fprintf(fp, " %s", vd_dim_name((enum vd_dim)d));
			any = true;
		}
	fprintf(fp, "%s\n  roots: %" PRIu64, any ? "" : " none", s->roots);
	for (int k = 0; k < VD_ROOT_KIND_COUNT; k++)
		if (s->roots_by_kind[k])
			fprintf(fp, " %s=%" PRIu64, vd_root_kind_name((enum vd_root_kind)k), s->roots_by_kind[k]);
	fprintf(fp, "\n  duplicate ids: %" PRIu64 ", dangling references: %" PRIu64 ", objects at a String's"
		" value position: %" PRIu64 "\n", s->duplicate_ids, s->dangling_refs, s->value_position_objects);
}

static void txt_examples(FILE *fp, const char *title, const struct vd_examples *x)
{
	if (!x->total)
		return;
	fprintf(fp, "%s (first %u of %" PRIu64 "):\n", title, x->n, x->total);
	for (unsigned i = 0; i < x->n; i++) {
		const struct vd_example *ex = &x->v[i];
		fprintf(fp, "  0x%" PRIx64 " %s", ex->id, ex->cls);
		if (ex->what)
			fprintf(fp, " %s", ex->what);
		if (ex->truth[0] || ex->result[0])
			fprintf(fp, ": truth %s, result %s", ex->truth, ex->result);
		fputc('\n', fp);
	}
}

/* The result objects precision judges: all but those beyond a walk gap (validate.h). */
static uint64_t judged(const struct vd_count *c)
{
	return c->result - c->beyond_walk;
}

static void txt_count_row(FILE *fp, const char *name, const struct vd_count *c, bool truth, bool result)
{
	char a[32], b[32];
	fprintf(fp, "  %-24s", name);
	if (truth)
		fprintf(fp, " truth %" PRIu64 " matched %" PRIu64 " recall %s", c->truth, c->matched,
			pct(a, sizeof(a), c->matched, c->truth));
	if (result)
		fprintf(fp, "%sresult %" PRIu64 " matched %" PRIu64 " precision %s", truth ? "  " : " ", c->result,
			c->result_matched, pct(b, sizeof(b), c->result_matched, judged(c)));
	if (result && c->beyond_walk)
		fprintf(fp, " beyond walk %" PRIu64, c->beyond_walk);
	fputc('\n', fp);
}

static void txt_states(FILE *fp, const struct vd_report *r)
{
	fprintf(fp, "states (truth objects: matched, same state in result; result objects: right):\n");
	for (int d = 0; d < VD_DIM_COUNT; d++)
		for (unsigned v = 0; v < VD_STATE_VALUES && vd_state_name((enum vd_dim)d, v); v++) {
			const struct vd_state_row *s = &r->states[d][v];
			char a[32], b[32];
			if (!s->truth && !s->result)
				continue;
			fprintf(fp, "  %-7s %-11s truth %" PRIu64 " matched %" PRIu64, vd_dim_name((enum vd_dim)d),
				vd_state_name((enum vd_dim)d, v), s->truth, s->found);
			if (r->result_dims[d])
				fprintf(fp, " same %" PRIu64 " (%s)  result %" PRIu64 " right %" PRIu64 " (%s)\n", s->agree,
					pct(a, sizeof(a), s->agree, s->found), s->result, s->result_true,
					pct(b, sizeof(b), s->result_true, s->result));
			else
				fprintf(fp, "  (not in result)\n");
		}
}

static void txt_fields(FILE *fp, const struct vd_fields *f)
{
	char a[32];
	fprintf(fp, "fields of matched objects:\n");
	fprintf(fp, "  objects    %s (%" PRIu64 "/%" PRIu64 " with every field and element equal)\n",
		pct(a, sizeof(a), f->objects_equal, f->objects), f->objects_equal, f->objects);
	txt_ratio(fp, "primitive", f->prim_equal, f->prim);
	txt_ratio(fp, "reference", f->ref_equal, f->ref);
	txt_ratio(fp, "static", f->statics_equal, f->statics);
	txt_ratio(fp, "arrays", f->arrays_equal, f->arrays);
	txt_ratio(fp, "elements", f->elements_equal, f->elements);
	fprintf(fp, "  missing in result %" PRIu64 ", extra in result %" PRIu64 ", invented by the dump %" PRIu64
		", Class fields the result does not give %" PRIu64 ", undecodable objects %" PRIu64 "\n", f->missing,
		f->extra, f->invented, f->unreported, f->undecodable);
	if (f->diff_count) {
		fprintf(fp, "  fields that disagree, most often first:\n");
		for (unsigned i = 0; i < f->diff_count; i++)
			fprintf(fp, "    %s.%s %" PRIu64 "\n", f->diffs[i].cls, f->diffs[i].field, f->diffs[i].count);
	}
	txt_examples(fp, "field disagreements", &f->ex);
}

static void txt_reach(FILE *fp, const struct vd_reach *rr)
{
	fprintf(fp, "reachability (truth from %s, result from %s):\n", rr->truth_source, rr->result_source);
	fprintf(fp, "  truth reachable %" PRIu64 ", unreachable %" PRIu64 "\n", rr->truth_reachable,
		rr->truth_unreachable);
	if (!strcmp(rr->truth_source, "roots")) {
		fprintf(fp, "  truth objects reached, by the first root kind that reaches them:");
		for (int k = 0; k < VD_ROOT_KIND_COUNT; k++)
			if (rr->reached_by_root[k])
				fprintf(fp, " %s=%" PRIu64, vd_root_kind_name((enum vd_root_kind)k), rr->reached_by_root[k]);
		fputc('\n', fp);
	}
	txt_ratio(fp, "unreachable recall", rr->unreachable_agree, rr->truth_unreachable);
	fprintf(fp, "  truth-unreachable matched %" PRIu64 ", called unreachable %" PRIu64 ", called reachable %"
		PRIu64 "\n", rr->unreachable_found, rr->unreachable_agree, rr->false_reachable);
	fprintf(fp, "  result calls unreachable %" PRIu64 ", unknown %" PRIu64 "\n", rr->result_unreachable,
		rr->result_unknown);
	fprintf(fp, "  called unreachable but a truth root reaches them: %" PRIu64, rr->false_unreachable);
	for (int k = 0; k < VD_ROOT_KIND_COUNT; k++)
		if (rr->false_unreachable_by_root[k])
			fprintf(fp, " %s=%" PRIu64, vd_root_kind_name((enum vd_root_kind)k),
				rr->false_unreachable_by_root[k]);
	fputc('\n', fp);
}

int vd_report_text(const struct vd_report *r, FILE *fp, struct err *e)
{
	char a[32];

	txt_side(fp, "result", &r->result_info);
	txt_side(fp, "truth", &r->truth_info);
	fprintf(fp, "objects: truth %" PRIu64 " (allocated), result %" PRIu64 ", matched %" PRIu64 ", missed %" PRIu64
		", invented %" PRIu64 ", class mismatches %" PRIu64 "\n", r->overall.truth, r->overall.result,
		r->overall.matched, r->overall.truth - r->overall.matched, judged(&r->overall) - r->overall.result_matched,
		r->class_mismatch);
	if (r->result_free_unjudged)
		fprintf(fp, "  result objects marked free, which a runtime's HPROF cannot hold (not judged): %" PRIu64 "\n",
			r->result_free_unjudged);
	if (r->overall.beyond_walk)
		fprintf(fp, "  beyond walk: %" PRIu64 " result objects past a walk gap that the truth's own walk did"
			" not reach (not judged)\n", r->overall.beyond_walk);
	txt_ratio(fp, "recall", r->overall.matched, r->overall.truth);
	txt_ratio(fp, "precision", r->overall.result_matched, judged(&r->overall));
	fprintf(fp, "by kind:\n");
	for (int k = 0; k < VD_KIND_COUNT; k++)
		txt_count_row(fp, vd_kind_name((enum vd_kind)k), &r->by_kind[k], true, true);
	fprintf(fp, "truth heaps / spaces:\n");
	for (unsigned i = 0; i < r->truth_heap_count; i++)
		txt_count_row(fp, r->truth_heaps[i].name, &r->truth_heaps[i].c, true, false);
	fprintf(fp, "result heaps:\n");
	for (unsigned i = 0; i < r->result_heap_count; i++)
		txt_count_row(fp, r->result_heaps[i].name, &r->result_heaps[i].c, false, true);
	fprintf(fp, "classes: %" PRIu64 ", with different counts: %" PRIu64 " (listed: the most frequent and every"
		" class whose counts differ)\n", r->classes_total, r->classes_differing);
	for (unsigned i = 0; i < r->class_count; i++) {
		const struct vd_named_count *c = &r->classes[i];
		fprintf(fp, "  %-40s truth %" PRIu64 " result %" PRIu64 " matched %" PRIu64 "%s\n", c->name, c->c.truth,
			c->c.result, c->c.matched, c->c.truth != c->c.result ? "  DIFFERS" : "");
	}
	txt_states(fp, r);
	txt_fields(fp, &r->fields);
	fprintf(fp, "strings: truth %" PRIu64 ", matched %" PRIu64 ", compared %" PRIu64 ", same text %" PRIu64
		" (%s of the truth's), no text in result %" PRIu64 ", no text in truth %" PRIu64 "\n", r->strings.truth,
		r->strings.matched, r->strings.compared, r->strings.equal,
		pct(a, sizeof(a), r->strings.equal, r->strings.truth), r->strings.no_value_result,
		r->strings.no_value_truth);
	txt_examples(fp, "string disagreements", &r->strings.ex);
	txt_reach(fp, &r->reach);
	txt_examples(fp, "reachability disagreements", &r->reach.ex);
	txt_examples(fp, "missed", &r->missed);
	txt_examples(fp, "invented", &r->invented);
	txt_examples(fp, "beyond walk", &r->beyond_walk);
	txt_examples(fp, "class mismatches", &r->mismatched);
	if (fflush(fp) != 0 || ferror(fp))
		return ERR_SET(e, ERR_IO, ERR_NO_VA, "cannot write the report");
	return 0;
}

/* ---- JSON ---------------------------------------------------------------------------------- */

/* s as a JSON string (NULL as ""). */
static void json_out_str(FILE *fp, const char *s)
{
	rep_json_string(fp, s ? s : "", s ? strlen(s) : 0);
}

static void json_out_ratio(FILE *fp, uint64_t num, uint64_t den)
{
	if (!den) {
		fprintf(fp, "null");
		return;
	}
	uint64_t ppm = (uint64_t)floor((double)num * 1e6 / (double)den);
	if (num < den && ppm == 1000000)
		ppm = 999999;
	fprintf(fp, "%" PRIu64 ".%06" PRIu64, ppm / 1000000, ppm % 1000000);
}

static void json_out_count(FILE *fp, const struct vd_count *c)
{
	fprintf(fp, "{\"truth\": %" PRIu64 ", \"matched\": %" PRIu64 ", \"recall\": ", c->truth, c->matched);
	json_out_ratio(fp, c->matched, c->truth);
	fprintf(fp, ", \"result\": %" PRIu64 ", \"result_matched\": %" PRIu64 ", \"precision\": ", c->result,
		c->result_matched);
	json_out_ratio(fp, c->result_matched, judged(c));
	fputc('}', fp);
}

static void json_out_side(FILE *fp, const struct vd_side_info *s)
{
	fprintf(fp, "{\"file\": ");
	json_out_str(fp, s->label);
	fprintf(fp, ", \"format\": ");
	json_out_str(fp, s->format);
	fprintf(fp, ", \"id_size\": %u, \"objects\": %" PRIu64 ", \"by_kind\": {", s->id_size, s->objects);
	for (int k = 0; k < VD_KIND_COUNT; k++) {
		fprintf(fp, "%s", k ? ", " : "");
		json_out_str(fp, vd_kind_name((enum vd_kind)k));
		fprintf(fp, ": %" PRIu64, s->by_kind[k]);
	}
	fprintf(fp, "}, \"not_objects\": {");
	for (int k = 0; k < VD_SYN_COUNT; k++) {
		fprintf(fp, "%s", k ? ", " : "");
		json_out_str(fp, vd_syn_name((enum vd_syn)k));
		fprintf(fp, ": %" PRIu64, s->synthetic[k]);
	}
	fprintf(fp, "}, \"mark_arrays\": %" PRIu64 ", \"states\": [", s->mark_arrays);
	for (int d = 0, n = 0; d < VD_DIM_COUNT; d++)
		if (s->states[d]) {
			fprintf(fp, "%s", n++ ? ", " : "");
			json_out_str(fp, vd_dim_name((enum vd_dim)d));
		}
	fprintf(fp, "], \"roots\": %" PRIu64 ", \"roots_by_kind\": {", s->roots);
	for (int k = 0, n = 0; k < VD_ROOT_KIND_COUNT; k++)
		if (s->roots_by_kind[k]) {
			fprintf(fp, "%s", n++ ? ", " : "");
			json_out_str(fp, vd_root_kind_name((enum vd_root_kind)k));
			fprintf(fp, ": %" PRIu64, s->roots_by_kind[k]);
		}
	fprintf(fp, "}, \"duplicate_ids\": %" PRIu64 ", \"dangling_refs\": %" PRIu64
		", \"value_position_objects\": %" PRIu64 "}", s->duplicate_ids, s->dangling_refs, s->value_position_objects);
}

static void json_out_examples(FILE *fp, const struct vd_examples *x)
{
	fprintf(fp, "{\"total\": %" PRIu64 ", \"first\": [", x->total);
	for (unsigned i = 0; i < x->n; i++) {
		const struct vd_example *ex = &x->v[i];
		fprintf(fp, "%s{\"id\": \"0x%" PRIx64 "\", \"class\": ", i ? ", " : "", ex->id);
		json_out_str(fp, ex->cls);
		fprintf(fp, ", \"what\": ");
		json_out_str(fp, ex->what ? ex->what : "");
		fprintf(fp, ", \"truth\": ");
		json_out_str(fp, ex->truth);
		fprintf(fp, ", \"result\": ");
		json_out_str(fp, ex->result);
		fputc('}', fp);
	}
	fprintf(fp, "]}");
}

static void json_out_named(FILE *fp, const struct vd_named_count *rows, unsigned n)
{
	fputc('[', fp);
	for (unsigned i = 0; i < n; i++) {
		fprintf(fp, "%s{\"name\": ", i ? ", " : "");
		json_out_str(fp, rows[i].name);
		fprintf(fp, ", \"counts\": ");
		json_out_count(fp, &rows[i].c);
		fputc('}', fp);
	}
	fputc(']', fp);
}

static void json_out_pair(FILE *fp, const char *name, uint64_t num, uint64_t den, bool comma)
{
	fprintf(fp, "%s\"%s\": {\"equal\": %" PRIu64 ", \"compared\": %" PRIu64 ", \"agreement\": ", comma ? ", " : "",
		name, num, den);
	json_out_ratio(fp, num, den);
	fputc('}', fp);
}

static void json_out_fields(FILE *fp, const struct vd_fields *f)
{
	fputc('{', fp);
	json_out_pair(fp, "objects", f->objects_equal, f->objects, false);
	json_out_pair(fp, "primitive", f->prim_equal, f->prim, true);
	json_out_pair(fp, "reference", f->ref_equal, f->ref, true);
	json_out_pair(fp, "static", f->statics_equal, f->statics, true);
	json_out_pair(fp, "arrays", f->arrays_equal, f->arrays, true);
	json_out_pair(fp, "elements", f->elements_equal, f->elements, true);
	fprintf(fp, ", \"missing\": %" PRIu64 ", \"extra\": %" PRIu64 ", \"invented\": %" PRIu64
		", \"class_fields_not_in_result\": %" PRIu64 ", \"undecodable\": %" PRIu64 ", \"disagreeing\": [",
		f->missing, f->extra, f->invented, f->unreported, f->undecodable);
	for (unsigned i = 0; i < f->diff_count; i++) {
		fprintf(fp, "%s{\"class\": ", i ? ", " : "");
		json_out_str(fp, f->diffs[i].cls);
		fprintf(fp, ", \"field\": ");
		json_out_str(fp, f->diffs[i].field);
		fprintf(fp, ", \"count\": %" PRIu64 "}", f->diffs[i].count);
	}
	fprintf(fp, "], \"examples\": ");
	json_out_examples(fp, &f->ex);
	fputc('}', fp);
}

static void json_out_states(FILE *fp, const struct vd_report *r)
{
	fputc('{', fp);
	for (int d = 0; d < VD_DIM_COUNT; d++) {
		fprintf(fp, "%s", d ? ", " : "");
		json_out_str(fp, vd_dim_name((enum vd_dim)d));
		fprintf(fp, ": {");
		for (unsigned v = 0; v < VD_STATE_VALUES && vd_state_name((enum vd_dim)d, v); v++) {
			const struct vd_state_row *s = &r->states[d][v];
			fprintf(fp, "%s", v ? ", " : "");
			json_out_str(fp, vd_state_name((enum vd_dim)d, v));
			fprintf(fp, ": {\"truth\": %" PRIu64 ", \"matched\": %" PRIu64, s->truth, s->found);
			if (r->result_dims[d])
				fprintf(fp, ", \"same\": %" PRIu64 ", \"result\": %" PRIu64 ", \"result_right\": %" PRIu64 "}",
					s->agree, s->result, s->result_true);
			else
				fprintf(fp, ", \"same\": null, \"result\": null, \"result_right\": null}");
		}
		fputc('}', fp);
	}
	fputc('}', fp);
}

static void json_out_roots(FILE *fp, const uint64_t *by)
{
	fputc('{', fp);
	for (int k = 0; k < VD_ROOT_KIND_COUNT; k++) {
		fprintf(fp, "%s", k ? ", " : "");
		json_out_str(fp, vd_root_kind_name((enum vd_root_kind)k));
		fprintf(fp, ": %" PRIu64, by[k]);
	}
	fputc('}', fp);
}

static void json_out_reach(FILE *fp, const struct vd_reach *rr)
{
	fprintf(fp, "{\"truth_source\": ");
	json_out_str(fp, rr->truth_source);
	fprintf(fp, ", \"result_source\": ");
	json_out_str(fp, rr->result_source);
	fprintf(fp, ", \"truth_reachable\": %" PRIu64 ", \"truth_unreachable\": %" PRIu64 ", \"reached_by_root\": ",
		rr->truth_reachable, rr->truth_unreachable);
	json_out_roots(fp, rr->reached_by_root);
	fprintf(fp, ", \"unreachable_matched\": %" PRIu64 ", \"unreachable_called_unreachable\": %" PRIu64
		", \"unreachable_recall\": ", rr->unreachable_found, rr->unreachable_agree);
	json_out_ratio(fp, rr->unreachable_agree, rr->truth_unreachable);
	fprintf(fp, ", \"unreachable_called_reachable\": %" PRIu64 ", \"result_unreachable\": %" PRIu64
		", \"result_unknown\": %" PRIu64 ", \"false_unreachable\": %" PRIu64 ", \"false_unreachable_by_root\": ",
		rr->false_reachable, rr->result_unreachable, rr->result_unknown, rr->false_unreachable);
	json_out_roots(fp, rr->false_unreachable_by_root);
	fprintf(fp, ", \"examples\": ");
	json_out_examples(fp, &rr->ex);
	fputc('}', fp);
}

int vd_report_json(const struct vd_report *r, FILE *fp, struct err *e)
{
	fprintf(fp, "{\"result\": ");
	json_out_side(fp, &r->result_info);
	fprintf(fp, ", \"truth\": ");
	json_out_side(fp, &r->truth_info);
	fprintf(fp, ", \"objects\": ");
	json_out_count(fp, &r->overall);
	fprintf(fp, ", \"missed\": %" PRIu64 ", \"invented\": %" PRIu64 ", \"class_mismatches\": %" PRIu64
		", \"result_free_not_judged\": %" PRIu64 ", \"beyond_walk\": %" PRIu64, r->overall.truth - r->overall.matched,
		judged(&r->overall) - r->overall.result_matched, r->class_mismatch, r->result_free_unjudged,
		r->overall.beyond_walk);
	fprintf(fp, ", \"by_kind\": {");
	for (int k = 0; k < VD_KIND_COUNT; k++) {
		fprintf(fp, "%s", k ? ", " : "");
		json_out_str(fp, vd_kind_name((enum vd_kind)k));
		fprintf(fp, ": ");
		json_out_count(fp, &r->by_kind[k]);
	}
	fprintf(fp, "}, \"truth_heaps\": ");
	json_out_named(fp, r->truth_heaps, r->truth_heap_count);
	fprintf(fp, ", \"result_heaps\": ");
	json_out_named(fp, r->result_heaps, r->result_heap_count);
	fprintf(fp, ", \"classes_total\": %" PRIu64 ", \"classes_differing\": %" PRIu64 ", \"classes\": ",
		r->classes_total, r->classes_differing);
	json_out_named(fp, r->classes, r->class_count);
	fprintf(fp, ", \"states\": ");
	json_out_states(fp, r);
	fprintf(fp, ", \"fields\": ");
	json_out_fields(fp, &r->fields);
	fprintf(fp, ", \"strings\": {\"truth\": %" PRIu64 ", \"matched\": %" PRIu64 ", \"compared\": %" PRIu64
		", \"equal\": %" PRIu64 ", \"share_of_truth\": ", r->strings.truth, r->strings.matched,
		r->strings.compared, r->strings.equal);
	json_out_ratio(fp, r->strings.equal, r->strings.truth);
	fprintf(fp, ", \"no_text_in_result\": %" PRIu64 ", \"no_text_in_truth\": %" PRIu64 ", \"examples\": ",
		r->strings.no_value_result, r->strings.no_value_truth);
	json_out_examples(fp, &r->strings.ex);
	fprintf(fp, "}, \"reach\": ");
	json_out_reach(fp, &r->reach);
	fprintf(fp, ", \"missed_examples\": ");
	json_out_examples(fp, &r->missed);
	fprintf(fp, ", \"invented_examples\": ");
	json_out_examples(fp, &r->invented);
	fprintf(fp, ", \"beyond_walk_examples\": ");
	json_out_examples(fp, &r->beyond_walk);
	fprintf(fp, ", \"class_mismatch_examples\": ");
	json_out_examples(fp, &r->mismatched);
	fprintf(fp, "}\n");
	if (fflush(fp) != 0 || ferror(fp))
		return ERR_SET(e, ERR_IO, ERR_NO_VA, "cannot write the report");
	return 0;
}
