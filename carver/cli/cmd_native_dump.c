/* cmd_native_dump.c - `artcarve native-dump FILE [--json | --folded]`: an Android native
 * heap dump (v1.0, v1.1, v1.2; carver/native/ndump.h) summed per call site and library with
 * every PC placed in the dump's MAPS section, or a malloc_debug record_allocs file
 * (carver/native/nrec.h) replayed to its live allocations, double frees and unknown frees.
 * The file is read once from a read-only mapping. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "carver/base/mapfile.h"
#include "carver/base/rep.h"
#include "carver/base/xalloc.h"
#include "carver/cli/cli.h"
#include "carver/native/ndump.h"
#include "carver/native/ndump_agg.h"
#include "carver/native/nrec.h"

struct nd_opts {
	bool json, folded;
	const char *symbols;
};

static const struct opt nd_opt_rows[] = {
	OPT_ROW_FLAG("--json", NULL, struct nd_opts, json),
	OPT_ROW_FLAG("--folded", NULL, struct nd_opts, folded),
	OPT_ROW_STRING("--symbols", struct nd_opts, symbols, "a directory"),
	OPT_ROW_END,
};
static const char *const nd_pos[] = { "FILE", NULL };
const struct opt_spec cmd_native_dump_spec = { nd_opt_rows, nd_pos, 1, 1 };

/* Text and folded output: bytes below 0x20, 0x7f and ';' (the folded frame separator) of a
 * name from the file print as '?'. */
static void nd_put_clean(FILE *fp, const char *s)
{
	for (; *s; s++)
		fputc((unsigned char)*s < 0x20 || *s == 0x7f || *s == ';' ? '?' : *s, fp);
}

/* "LIB+0xOFF (SYMBOL+0xOFF)", "0xPC" when the PC is in no named mapping. */
static void nd_put_frame(FILE *fp, const struct ndump_place *p)
{
	if (p->placed && p->lib[0]) {
		nd_put_clean(fp, p->lib);
		fprintf(fp, "+0x%" PRIx64, p->lib_offset);
	} else {
		fprintf(fp, "0x%" PRIx64, p->pc);
	}
	if (p->symbol) {
		fputs(" (", fp);
		nd_put_clean(fp, p->symbol);
		fprintf(fp, "+0x%" PRIx64 ")", p->symbol_offset);
	}
}

static void nd_folded(struct ndump_agg *a, FILE *fp)
{
	for (size_t i = 0; i < a->site_count; i++) {
		const struct ndump_site *s = a->sites[i];
		if (s->nframes == 0)
			fputs("[no backtrace]", fp);
		for (size_t k = s->nframes; k-- > 0;) {  /* flame graphs go from the root down */
			struct ndump_place p;
			ndump_agg_place(a, s->frames[k], &p);
			nd_put_frame(fp, &p);
			if (k)
				fputc(';', fp);
		}
		fprintf(fp, " %" PRIu64 "\n", ndump_site_bytes(a, s));
	}
}

static void nd_json_frame(struct rep *r, const struct ndump_place *p)
{
	rep_open(r, NULL, false);
	rep_hex(r, "pc", p->pc);
	if (p->placed) {
		rep_s(r, "lib", p->lib);
		rep_hex(r, "offset", p->lib_offset);
	} else {
		rep_null(r, "lib");
		rep_null(r, "offset");
	}
	rep_s(r, "symbol", p->symbol);
	if (p->symbol) {
		rep_hex(r, "symbol_offset", p->symbol_offset);
		rep_s(r, "symbol_from", p->symbol_from);
	} else {
		rep_null(r, "symbol_offset");
		rep_null(r, "symbol_from");
	}
	rep_s(r, "symbol_problem", p->problem);
	rep_close(r);
}

static void nd_report_site(struct rep *r, struct ndump_agg *a, const struct ndump_site *s, size_t rank)
{
	struct ndump_place p;

	if (!r->json) {
		rep_line(r, "site %zu: bytes %" PRIu64 " allocations %" PRIu64 " records %" PRIu64
			 " zygote_child_bytes %" PRIu64 " first_line %" PRIu64, rank, ndump_site_bytes(a, s),
			 ndump_site_allocs(a, s), s->records, ndump_site_zygote_bytes(a, s), s->first_line);
		for (size_t k = 0; k < s->nframes; k++) {
			ndump_agg_place(a, s->frames[k], &p);
			fprintf(r->fp, "%*s#%02zu 0x%016" PRIx64 " ", 2 * r->depth + 2, "", k, p.pc);
			nd_put_frame(r->fp, &p);
			fputc('\n', r->fp);
		}
		return;
	}
	rep_open(r, NULL, false);
	rep_u(r, "bytes", ndump_site_bytes(a, s));
	rep_u(r, "allocations", ndump_site_allocs(a, s));
	rep_u(r, "records", s->records);
	rep_u(r, "zygote_child_bytes", ndump_site_zygote_bytes(a, s));
	rep_u(r, "first_line", s->first_line);
	rep_open(r, "frames", true);
	for (size_t k = 0; k < s->nframes; k++) {
		ndump_agg_place(a, s->frames[k], &p);
		nd_json_frame(r, &p);
	}
	rep_close(r);
	rep_close(r);
}

static void nd_report_libs(struct rep *r, struct ndump_agg *a)
{
	rep_open_lines(r, "libraries", true);
	if (!r->json)
		rep_line(r, "self_bytes self_allocations bytes allocations sites name");
	for (size_t i = 0; i < a->lib_count; i++) {
		const struct ndump_lib *l = &a->libs[i];
		if (!r->json) {
			fprintf(r->fp, "%*s%" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " ", 2 * r->depth, "",
				l->self_bytes, l->self_allocs, l->bytes, l->allocs, l->sites);
			nd_put_clean(r->fp, l->name[0] ? l->name : "[anonymous]");
			fputc('\n', r->fp);
			continue;
		}
		rep_open(r, NULL, false);
		rep_s(r, "name", l->name);
		rep_u(r, "self_bytes", l->self_bytes);
		rep_u(r, "self_allocations", l->self_allocs);
		rep_u(r, "bytes", l->bytes);
		rep_u(r, "allocations", l->allocs);
		rep_u(r, "sites", l->sites);
		rep_close(r);
	}
	rep_close(r);
}

static void nd_report_header(struct rep *r, struct ndump_agg *a)
{
	rep_open(r, "header", false);
	if (a->h.has_total)
		rep_u(r, "total_memory", a->h.total_memory);
	else
		rep_null(r, "total_memory");
	if (a->h.has_records)
		rep_u(r, "allocation_records", a->h.alloc_records);
	else
		rep_null(r, "allocation_records");
	if (a->h.has_bt_size)
		rep_u(r, "backtrace_size", a->h.bt_size);
	else
		rep_null(r, "backtrace_size");
	rep_s(r, "fingerprint", a->h.fingerprint);
	rep_close(r);
}

static void nd_report_dump(struct rep *r, const char *path, struct ndump_agg *a, const struct ndump_stats *st)
{
	char version[8];

	snprintf(version, sizeof(version), "v1.%u", a->h.minor);
	if (r->json)
		rep_open_lines(r, NULL, false);
	rep_s(r, "file", path);
	rep_s(r, "format", "native heap dump");
	rep_s(r, "version", version);
	rep_bool(r, "complete", st->ended);
	rep_u(r, "lines", st->lines);
	nd_report_header(r, a);
	rep_u(r, "records", a->total.records);
	rep_u(r, "allocations", ndump_site_allocs(a, &a->total));
	rep_u(r, "bytes", ndump_site_bytes(a, &a->total));
	rep_bool(r, "num_trusted", a->num_trusted);
	rep_bool(r, "total_matches_header", a->h.has_total && a->h.total_memory == ndump_site_bytes(a, &a->total));
	rep_u(r, "zygote_child_allocations", ndump_site_zygote_allocs(a, &a->total));
	rep_u(r, "zygote_child_bytes", ndump_site_zygote_bytes(a, &a->total));
	rep_u(r, "max_frames", a->frames_max);
	rep_u(r, "bt_info_records", a->bt_info_records);
	rep_u(r, "call_sites", a->site_count);
	rep_u(r, "maps_lines", st->map_lines);
	rep_bool(r, "maps_unreadable", st->maps_unreadable);
	rep_u(r, "maps_symbolised", a->symz_maps);
	rep_u(r, "maps_overlapping", a->symz_maps_rejected);
	nd_report_libs(r, a);
	rep_open_lines(r, "call_sites_by_bytes", true);
	for (size_t i = 0; i < a->site_count; i++)
		nd_report_site(r, a, a->sites[i], i + 1);
	rep_close(r);
	if (r->json) {
		rep_close(r);
		fputc('\n', r->fp);
	}
}

static int nd_run_dump(const struct nd_opts *o, const char *path, const struct mapfile *m, struct err *e)
{
	struct ndump_agg a;
	struct ndump_sink sink;
	struct ndump_stats st;
	struct rep r;
	struct err e2;
	int rc, rc2;

	ndump_agg_init(&a);
	ndump_agg_sink(&a, &sink);
	if (o->symbols && (rc = ndump_agg_symbols(&a, o->symbols, e))) {
		ndump_agg_release(&a);
		return rc;
	}
	rc = ndump_parse(m->data, m->len, path, m, &sink, &st, e);
	/* a truncated dump is reported as far as it was read, then the error */
	if (rc == 0 || rc == -ERR_TRUNC) {
		err_init(&e2);
		if ((rc2 = ndump_agg_finish(&a, &e2))) {
			*e = e2;
			rc = rc2;
		} else if (st.lines > 0 && a.h.line > 0) {
			if (o->folded) {
				nd_folded(&a, stdout);
			} else {
				rep_init(&r, stdout, o->json);
				nd_report_dump(&r, path, &a, &st);
			}
			if ((rc2 = ndump_agg_status(&a, &e2))) {
				*e = e2;
				rc = rc2;
			}
		}
	}
	ndump_agg_release(&a);
	return rc;
}

/* ---- record_allocs ---- */

static void nr_report_live(struct rep *r, const struct nrec_live *v, size_t n)
{
	rep_open_lines(r, "live", true);
	if (!r->json)
		rep_line(r, "pointer size operation thread line");
	for (size_t i = 0; i < n; i++) {
		if (!r->json) {
			rep_line(r, "0x%" PRIx64 " %" PRIu64 " %s %" PRIu64 " %" PRIu64, v[i].ptr, v[i].size,
				 nrec_op_name(v[i].op), v[i].tid, v[i].line);
			continue;
		}
		rep_open(r, NULL, false);
		rep_hex(r, "pointer", v[i].ptr);
		rep_u(r, "size", v[i].size);
		rep_s(r, "operation", nrec_op_name(v[i].op));
		rep_u(r, "thread", v[i].tid);
		rep_u(r, "line", v[i].line);
		rep_close(r);
	}
	rep_close(r);
}

static void nr_report_events(struct rep *r, const struct nrec_replay *rp)
{
	rep_open(r, "event_counts", false);
	for (unsigned k = 0; k < NREC_EVENT_KINDS; k++)
		rep_u(r, nrec_event_name((enum nrec_event_kind)k), rp->event_total[k]);
	rep_close(r);
	rep_u(r, "events_kept", rp->event_count);
	rep_open_lines(r, "events", true);
	if (!r->json)
		rep_line(r, "kind pointer operation thread line previous_line");
	for (size_t i = 0; i < rp->event_count; i++) {
		const struct nrec_event *ev = &rp->events[i];
		if (!r->json) {
			rep_line(r, "%s 0x%" PRIx64 " %s %" PRIu64 " %" PRIu64 " %" PRIu64, nrec_event_name(ev->kind), ev->ptr,
				 nrec_op_name(ev->op), ev->tid, ev->line, ev->prev_line);
			continue;
		}
		rep_open(r, NULL, false);
		rep_s(r, "kind", nrec_event_name(ev->kind));
		rep_hex(r, "pointer", ev->ptr);
		rep_s(r, "operation", nrec_op_name(ev->op));
		rep_u(r, "thread", ev->tid);
		rep_u(r, "line", ev->line);
		if (ev->prev_line)
			rep_u(r, "previous_line", ev->prev_line);
		else
			rep_null(r, "previous_line");
		rep_close(r);
	}
	rep_close(r);
}

static void nr_report(struct rep *r, const char *path, const struct nrec_replay *rp, const struct nrec_stats *st,
		      const struct nrec_live *v)
{
	if (r->json)
		rep_open_lines(r, NULL, false);
	rep_s(r, "file", path);
	rep_s(r, "format", "record_allocs");
	rep_bool(r, "complete", st->complete);
	rep_u(r, "lines", st->lines);
	rep_u(r, "entries", rp->entries);
	rep_open(r, "operations", false);
	for (unsigned k = 0; k < NREC_OPS; k++)
		rep_u(r, nrec_op_name((enum nrec_op)k), rp->ops[k]);
	rep_close(r);
	rep_u(r, "timed_entries", rp->timed);
	rep_u(r, "threads", rp->tid_count);
	rep_u(r, "failed_allocations", rp->failed_allocs);
	rep_u(r, "null_frees", rp->null_frees);
	rep_u(r, "live_allocations", rp->live_count);
	rep_u(r, "live_bytes", nrec_bytes(rp->live_bytes_hi, rp->live_bytes));
	rep_u(r, "peak_live_bytes", nrec_bytes(rp->peak_live_bytes_hi, rp->peak_live_bytes));
	nr_report_events(r, rp);
	nr_report_live(r, v, rp->live_count);
	if (r->json) {
		rep_close(r);
		fputc('\n', r->fp);
	}
}

static int nr_thread_op_cmp(const void *pa, const void *pb)
{
	const struct nrec_live *x = pa, *y = pb;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return (int)x->op - (int)y->op;
}

/* Folded stacks of a record_allocs file (no backtraces there): live bytes per thread and
 * allocating call, "thread TID;OPERATION BYTES". */
static void nr_folded(struct nrec_live *v, size_t n, FILE *fp)
{
	qsort(v, n, sizeof(*v), nr_thread_op_cmp);
	for (size_t i = 0; i < n;) {
		uint64_t bytes = 0;
		size_t j = i;
		for (; j < n && v[j].tid == v[i].tid && v[j].op == v[i].op; j++)
			bytes = bytes > UINT64_MAX - v[j].size ? UINT64_MAX : bytes + v[j].size;
		fprintf(fp, "thread %" PRIu64 ";%s %" PRIu64 "\n", v[i].tid, nrec_op_name(v[i].op), bytes);
		i = j;
	}
}

static int nd_run_rec(const struct nd_opts *o, const char *path, const struct mapfile *m, struct err *e)
{
	struct nrec_replay rp;
	struct nrec_stats st;
	struct nrec_live *v = NULL;
	struct rep r;
	struct err e2;
	int rc, rc2;

	nrec_replay_init(&rp);
	rc = nrec_parse(m->data, m->len, path, m, &rp, &st, e);
	if ((rc == 0 || rc == -ERR_TRUNC) && st.lines > 0) {
		err_init(&e2);
		if ((rc2 = nrec_replay_live(&rp, &v, &e2))) {
			*e = e2;
			rc = rc2;
		} else if (o->folded) {
			nr_folded(v, rp.live_count, stdout);
		} else {
			rep_init(&r, stdout, o->json);
			nr_report(&r, path, &rp, &st, v);
		}
	}
	xfree(v);
	nrec_replay_release(&rp);
	return rc;
}

int cmd_native_dump(int argc, char **argv)
{
	struct nd_opts o = { false, false, NULL };
	struct mapfile m;
	size_t npos;
	struct err e;
	int rc;

	if ((rc = cli_parse(argc, argv, &cmd_native_dump_spec, &o, &npos)) != CLI_GO_ON)
		return rc;
	if (o.json && o.folded)
		return cli_usage_error(argv[0], "--json and --folded exclude each other");
	err_init(&e);
	if ((rc = mapfile_open(&m, argv[1], &e)))
		return cli_report(argv[0], &e);
	/* record_allocs lines start with a thread id; anything else is taken for a dump, whose
	 * parser names what is wrong with the first line */
	if (m.len > 0 && !ndump_sniff(m.data, m.len) && nrec_sniff(m.data, m.len))
		rc = nd_run_rec(&o, argv[1], &m, &e);
	else
		rc = nd_run_dump(&o, argv[1], &m, &e);
	mapfile_close(&m);
	if (rc == 0 && fflush(stdout) != 0)
		rc = ERR_SET(&e, ERR_IO, ERR_NO_VA, "cannot write to standard output");
	return rc ? cli_report(argv[0], &e) : CLI_OK;
}
