/* cmd_carve.c - `artcarve carve IMAGE [--maps FILE] -o DIR [--android] [--include LIST]
 * [--json] [--art-version V]`: carves every object of the ART heap of a process image into
 * DIR/heap.hprof and prints what it found (carver/pipeline/carve.c does the work). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "carver/base/jobs.h"
#include "carver/base/rep.h"
#include "carver/base/wbuf.h"
#include "carver/base/xalloc.h"
#include "carver/pipeline/carve.h"
#include "carver/cli/cli.h"
#include "carver/cli/cli_anomalies.h"
#include "rosalloc/model/model_stats.h"

enum { TOP_CLASSES = 10, SAMPLE_STRINGS = 10, SAMPLE_CHARS = 80 };

struct carve_cli {
	bool json, android, quiet, native, force, all_classes;
	const char *maps, *out, *include, *art_version, *skip, *symbols, *native_options, *yara;
	const char *digest;   /* NULL: file */
	uint64_t threads;   /* 0: not given */
};

static const char *const carve_digests[] = { "file", "pages", NULL };

enum { CARVE_THREADS_MAX = 64, CARVE_THREADS_DEFAULT_MAX = 8 };

static const struct opt carve_opts[] = {
	OPT_ROW_FLAG("--json", NULL, struct carve_cli, json),
	OPT_ROW_FLAG("--android", NULL, struct carve_cli, android),
	OPT_ROW_FLAG("--quiet", "-q", struct carve_cli, quiet),
	OPT_ROW_FLAG("--force", NULL, struct carve_cli, force),
	OPT_ROW_STRING("--maps", struct carve_cli, maps, "a file"),
	{ "--out", "-o", OPT_STRING, offsetof(struct carve_cli, out), "a directory", 0, 0, NULL },
	OPT_ROW_STRING("--include", struct carve_cli, include, "free, partial or residue (comma-separated)"),
	OPT_ROW_STRING("--art-version", struct carve_cli, art_version, "a layout family"),
	OPT_ROW_STRING("--skip", struct carve_cli, skip, "outputs not to write (comma-separated: hprof, ...)"),
	OPT_ROW_FLAG("--native", NULL, struct carve_cli, native),
	OPT_ROW_FLAG("--all-classes", NULL, struct carve_cli, all_classes),
	OPT_ROW_STRING("--symbols", struct carve_cli, symbols, "a directory"),
	OPT_ROW_STRING("--native-options", struct carve_cli, native_options, "malloc_debug options"),
	OPT_ROW_UINT("--threads", struct carve_cli, threads, "a number of threads", 1, CARVE_THREADS_MAX),
	OPT_ROW_STRING("--yara", struct carve_cli, yara, "a file of YARA rules"),
	OPT_ROW_CHOICE("--digest", struct carve_cli, digest, "file or pages", carve_digests),
	OPT_ROW_END,
};
static const char *const carve_pos[] = { "IMAGE", NULL };
const struct opt_spec cmd_carve_spec = { carve_opts, carve_pos, 1, 1 };

static int parse_include(const char *cmd, const char *list, struct hprof_carve_opts *h)
{
	const char *p = list;
	while (*p) {
		size_t n = strcspn(p, ",");
		if (n == 4 && !strncmp(p, "free", 4)) {
			h->include_partial = h->include_residue = true;
		} else if (n == 7 && !strncmp(p, "residue", 7)) {
			h->include_residue = true;
		} else if (n == 7 && !strncmp(p, "partial", 7)) {
			h->include_partial = true;
		} else {
			return cli_usage_error(cmd, "--include takes free, partial, residue (comma-separated), not '%.*s'",
					       (int)n, p);
		}
		p += n + (p[n] == ',');
	}
	return CLI_GO_ON;
}

static const char *cname(const struct model *m, size_t i)
{
	const char *n = model_runtime(m)->classes[i].name;
	return n ? n : "?";
}

static const char *space_name(const struct art_space *s)
{
	return s->name && s->name[0] ? s->name : spaces_kind_name(s->kind);
}

/* The first SAMPLE_CHARS characters of the String object o as UTF-8 into b ("..." after a
 * longer one); false when its bytes do not read. */
static bool string_text(const struct model *m, const struct model_obj *o, struct wbuf *b)
{
	uint32_t n = model_length(m, o), shown = n < SAMPLE_CHARS ? n : SAMPLE_CHARS;
	bool narrow = model_string_compressed(m, o);
	uint8_t chars[2 * SAMPLE_CHARS];
	struct err why;

	wbuf_reset(b);
	err_init(&why);
	if (img_read(model_image(m), model_data_addr(m, o), chars, (size_t)shown * (narrow ? 1 : 2), &why)) {
		wbuf_printf(b, "(unreadable: %s)", why.msg);
		return !b->failed;
	}
	for (uint32_t i = 0; i < shown; i++) {
		uint32_t cp = narrow ? chars[i] : (uint32_t)chars[2 * i] | (uint32_t)chars[2 * i + 1] << 8;
		wbuf_utf8(b, cp >= 0xd800 && cp < 0xe000 ? 0xfffd : cp);   /* no surrogate pairing in a sample */
	}
	if (shown < n)
		wbuf_put(b, "...", 3);
	return !b->failed;
}

/* Dropped strings worth showing: allocated, unreachable, not empty, in address order. */
static size_t next_dropped_string(const struct model *m, size_t from)
{
	for (size_t i = from; i < model_count(m); i++) {
		const struct model_obj *o = model_obj(m, i);
		if (model_stats_is_dropped(o) && o->cls == model_jls(m) && model_length(m, o) > 0)
			return i;
	}
	return MODEL_NONE;
}

static void rep_states(struct rep *r, const struct model_stats *t)
{
	rep_open(r, "states", false);
	rep_u(r, "allocated", t->alloc[MODEL_ALLOCATED]);
	rep_u(r, "free", t->alloc[MODEL_FREE]);
	rep_u(r, "intact", t->content[MODEL_INTACT]);
	rep_u(r, "partial", t->content[MODEL_PARTIAL]);
	rep_u(r, "residue", t->content[MODEL_RESIDUE]);
	rep_u(r, "reachable", t->reach[MODEL_REACHABLE]);
	rep_u(r, "unreachable", t->reach[MODEL_UNREACHABLE]);
	rep_u(r, "unknown", t->reach[MODEL_REACH_UNKNOWN]);
	rep_close(r);
}

/* A list of classes: JSON [{class, origin, objects[, dropped]}], text one row per class
 * (the app's marked). */
static void rep_classes(struct rep *r, const char *key, const struct model *m, const size_t *order,
			const uint64_t *count, const uint64_t *dropped)
{
	rep_open(r, key, true);
	for (size_t k = 0; k < TOP_CLASSES && k < model_runtime(m)->class_count; k++) {
		size_t i = order[k];
		enum rt_origin origin = runtime_class_origin(model_runtime(m), i);
		const char *app = origin == RT_ORIGIN_APP ? " [app]" : "";
		if (!count[i])
			break;
		if (!r->json) {
			if (dropped)
				rep_line(r, "%10llu  %s%s (%llu dropped)", (unsigned long long)count[i], cname(m, i), app,
					 (unsigned long long)dropped[i]);
			else
				rep_line(r, "%10llu  %s%s", (unsigned long long)count[i], cname(m, i), app);
			continue;
		}
		rep_open(r, NULL, false);
		rep_s(r, "class", cname(m, i));
		rep_s(r, "origin", runtime_origin_name(origin));
		rep_u(r, "objects", count[i]);
		if (dropped)
			rep_u(r, "dropped", dropped[i]);
		rep_close(r);
	}
	rep_close(r);
}

static void rep_dropped(struct rep *r, const struct carve *c, const struct model_stats *t, struct wbuf *b)
{
	const struct model *m = &c->m;
	rep_line(r, "DROPPED: %llu allocated objects no root reaches (%llu strings): what the app let go and "
		 "no GC has swept", (unsigned long long)t->dropped, (unsigned long long)t->strings_dropped);
	rep_open(r, "dropped", false);
	rep_u(r, "objects", t->dropped);
	rep_u(r, "strings", t->strings_dropped);
	rep_classes(r, "top_classes", m, t->dropped_order, t->per_class_dropped, NULL);
	rep_open(r, "sample_strings", true);
	size_t j = next_dropped_string(m, 0);
	for (int k = 0; k < SAMPLE_STRINGS && j != MODEL_NONE; k++, j = next_dropped_string(m, j + 1)) {
		if (!string_text(m, model_obj(m, j), b))
			break;
		if (!r->json) {
			rep_line(r, "0x%llx \"%.*s\"", (unsigned long long)model_va(m, model_obj(m, j)), (int)b->len,
				 (const char *)b->data);
			continue;
		}
		rep_open(r, NULL, false);
		rep_hex(r, "address", model_va(m, model_obj(m, j)));
		rep_sn(r, "text", (const char *)b->data, b->len);
		rep_close(r);
	}
	rep_close(r);
	rep_close(r);
}

static void rep_spaces(struct rep *r, const struct carve *c)
{
	const struct model *m = &c->m;
	rep_line(r, "spaces: objects allocated / free partial / free residue; empty free places (untyped residue); "
		 "object bytes");
	if (r->json)
		rep_open(r, "spaces", true);
	for (size_t i = 0; i < c->rt.spaces.count; i++) {
		const struct model_space_count *s = model_space_tally(m, i);
		const struct art_space *sp = &c->rt.spaces.v[i];
		uint64_t allocated = s->objects[MODEL_ALLOCATED][MODEL_INTACT];
		uint64_t free_partial = s->objects[MODEL_FREE][MODEL_PARTIAL];
		uint64_t free_residue = s->objects[MODEL_FREE][MODEL_RESIDUE];
		if (!allocated && !free_partial && !free_residue && !s->empty)
			continue;
		if (!r->json) {
			rep_line(r, "  %-20s %-30s 0x%-8llx %10llu / %llu / %llu; %llu empty (%llu); %llu bytes",
				 spaces_kind_name(sp->kind), space_name(sp), (unsigned long long)sp->begin,
				 (unsigned long long)allocated, (unsigned long long)free_partial,
				 (unsigned long long)free_residue,
				 (unsigned long long)s->empty, (unsigned long long)s->untyped,
				 (unsigned long long)s->bytes);
			continue;
		}
		rep_open(r, NULL, false);
		rep_s(r, "kind", spaces_kind_name(sp->kind));
		rep_s(r, "name", space_name(sp));
		rep_hex(r, "begin", sp->begin);
		rep_u(r, "allocated", allocated);
		rep_u(r, "free_partial", free_partial);
		rep_u(r, "free_residue", free_residue);
		rep_u(r, "empty", s->empty);
		rep_u(r, "untyped_residue", s->untyped);
		rep_u(r, "bytes", s->bytes);
		rep_close(r);
	}
	if (r->json)
		rep_close(r);
}

static void rep_roots(struct rep *r, const struct carve *c)
{
	rep_line(r, "roots (\"unreachable\" means unreachable from these):");
	if (r->json)
		rep_open(r, "roots", true);
	for (unsigned i = 0; i < REACH_SOURCE_COUNT; i++) {
		const char *name = reach_source_name(i);
		bool present = c->r.source[i].present;
		uint64_t n = c->r.source[i].roots;
		const char *detail = c->r.source[i].detail;
		if (!r->json) {
			rep_line(r, "  %-16s %-8s %8llu  (%s)", name, present ? "present" : "missing",
				 (unsigned long long)n, detail);
			continue;
		}
		rep_open(r, NULL, false);
		rep_s(r, "source", name);
		rep_bool(r, "present", present);
		rep_u(r, "roots", n);
		rep_s(r, "detail", detail);
		rep_close(r);
	}
	if (r->json)
		rep_close(r);
}

/* Objects of reachability unknown, per reason (reach.h enum reach_doubt). */
static void rep_unknown(struct rep *r, const struct carve *c)
{
	static const char *const keys[REACH_DOUBT_COUNT] = { "none", "dex_literal", "runtime_error", "sentinel",
							     "class_roots", "held_by_unknown" };
	uint64_t total = 0;
	for (unsigned i = 1; i < REACH_DOUBT_COUNT; i++)
		total += c->r.unknown[i];
	if (r->json) {
		rep_open(r, "unknown_reasons", false);
		for (unsigned i = 1; i < REACH_DOUBT_COUNT; i++)
			rep_u(r, keys[i], c->r.unknown[i]);
		rep_close(r);
	} else if (total) {
		rep_line(r, "unknown (%llu: no root of the image reaches them; a missing root source would):",
			 (unsigned long long)total);
		for (unsigned i = 1; i < REACH_DOUBT_COUNT; i++)
			if (c->r.unknown[i])
				rep_line(r, "  %-16s %8llu", reach_doubt_name(i), (unsigned long long)c->r.unknown[i]);
	}
}

static void rep_tail(struct rep *r, const struct carve *c)
{
	const struct anomaly_sink *s = &c->sink;
	rep_open(r, "evidence", false);
	for (int i = 0; i < WALK_EV_COUNT; i++)
		rep_s(r, walk_ev_source_name((enum walk_ev_source)i),
		      c->evidence[i].used ? "used" : c->evidence[i].present ? "present" : "absent");
	rep_close(r);
	rep_line(r, "runtime model (classes, DEX files):");
	cli_anomalies(r, "runtime_anomalies", &c->rt.anomalies);
	rep_line(r, "carving (space walkers, candidate checks, roots):");
	cli_anomalies(r, "anomalies", s);
	rep_open(r, "outputs", true);
	for (unsigned i = 0; i < CARVE_OUT_COUNT; i++) {
		if (!c->path[i])
			continue;
		if (!r->json) {
			rep_line(r, "wrote %s (%llu bytes)", c->path[i], (unsigned long long)c->bytes[i]);
			continue;
		}
		rep_open(r, NULL, false);
		rep_s(r, "file", carve_output_file(i));
		rep_s(r, "path", c->path[i]);
		rep_u(r, "bytes", c->bytes[i]);
		rep_close(r);
	}
	rep_close(r);
	rep_open(r, "output", false);
	rep_s(r, "path", c->path[CARVE_OUT_HPROF] ? c->path[CARVE_OUT_HPROF] : "");
	rep_u(r, "bytes", c->hs.bytes);
	rep_u(r, "classes", c->hs.classes);
	rep_u(r, "instances", c->hs.instances);
	rep_u(r, "object_arrays", c->hs.obj_arrays);
	rep_u(r, "primitive_arrays", c->hs.prim_arrays);
	rep_u(r, "string_arrays", c->hs.string_arrays);
	rep_u(r, "roots", c->hs.roots);
	rep_u(r, "mark_arrays", c->hs.mark_arrays);
	if (c->hs.alias_windows)   /* objects above 4 GiB: output/hprof/hprof_mark.h */
		rep_u(r, "alias_windows", c->hs.alias_windows);
	if (c->hs.walk_gaps)       /* a bump-pointer walk gap: output/hprof/hprof_mark.h */
		rep_u(r, "walk_gaps", c->hs.walk_gaps);
	if (c->hs.damaged_classes) { /* classes written without statics or fields: hprof_carve.h */
		rep_u(r, "damaged_classes", c->hs.damaged_classes);
		rep_s(r, "first_damaged_class", c->hs.damaged_why);
	}
	if (c->hs.damaged_objects) { /* instances smaller than their fields: hprof_carve.h */
		rep_u(r, "damaged_objects", c->hs.damaged_objects);
		rep_s(r, "first_damaged_object", c->hs.damaged_objects_why);
	}
	rep_u(r, "free_objects", c->hs.free_objects);
	rep_close(r);
	rep_open(r, "time", false);
	rep_u(r, "ms", (uint64_t)(c->seconds * 1e3));
	rep_u(r, "cpu_ms", (uint64_t)(c->cpu_seconds * 1e3));
	rep_u(r, "heap_bytes", c->heap_bytes);
	rep_u(r, "anon_kb", c->anon_kb);
	rep_u(r, "mb_per_cpu_second", c->cpu_seconds > 0 ? (uint64_t)((double)c->heap_bytes / 1e6 / c->cpu_seconds) : 0);
	rep_open(r, "phases_ms", false);   /* wall time of each step (carve.h enum carve_phase) */
	for (unsigned i = 0; i < CARVE_PHASE_COUNT; i++)
		rep_u(r, carve_phase_name(i), (uint64_t)(c->phase_seconds[i] * 1e3));
	rep_close(r);
	rep_close(r);
}

/* The indicators (output/find/find_scan.h): one line per kind with its count. */
static void rep_indicators(struct rep *r, const struct carve *c)
{
	rep_line(r, "indicators (DIR/indicators/KIND.txt, case.db table indicators): %llu objects, %llu bytes scanned",
		 (unsigned long long)c->find.objects, (unsigned long long)c->find.bytes);
	rep_open(r, "indicators", false);
	for (unsigned k = 0; k < FIND_KIND_COUNT; k++)
		rep_u(r, find_kind_name(k), c->find.per_kind[k]);
	rep_close(r);
}

/* --yara: the matches in one object (listed in case.db's yara_matches) */
static void rep_yara(struct rep *r, const struct carve *c)
{
	rep_line(r, "yara (case.db table yara_matches):");
	rep_open(r, "yara", false);
	rep_u(r, "matches", c->ymatch.count);
	rep_u(r, "objects_scanned", c->ymatch.objects);
	rep_u(r, "bytes_scanned", c->ymatch.bytes);
	rep_close(r);
}

/* --native: the malloc_debug scan in one object (the lists are in case.db and report.html) */
static void rep_native(struct rep *r, const struct carve *c)
{
	const struct mdebug_result *n = &c->native;
	char opts[160];
	uint64_t damaged = 0;

	for (size_t i = 0; i < n->count; i++)
		damaged += n->allocs[i].front_damaged || n->allocs[i].rear_damaged || n->allocs[i].uaf_bytes;
	mdebug_options_text(&n->options, opts, sizeof(opts));
	rep_open(r, "native", false);
	rep_s(r, "options", opts);
	rep_s(r, "options_from", n->options_given ? "--native-options" : "inferred");
	rep_u(r, "allocations", n->count);
	rep_u(r, "live", n->live);
	rep_u(r, "freed", n->freed);
	rep_u(r, "tag_corrupted", n->corrupt);
	rep_u(r, "damaged", damaged);
	rep_close(r);
}

static void report(struct rep *r, const struct carve *c, const struct model_stats *t, struct wbuf *b)
{
	const struct model *m = &c->m;
	uint64_t *counts = xcalloc(c->rt.class_count ? c->rt.class_count : 1, sizeof(uint64_t));
	const struct model_totals n = model_totals(m);

	if (r->json)
		rep_open_lines(r, NULL, false);
	rep_s(r, "image", c->img.path);
	if (c->image_sha256[0])   /* what every output records (--digest) */
		rep_s(r, "image_sha256", c->image_sha256);
	rep_s(r, "container", c->img.container);
	rep_s(r, "layout", c->rt.layout->family);
	rep_u(r, "pointer_size", c->rt.pointer_size);
	rep_u(r, "classes", c->rt.class_count);
	rep_u(r, "candidates", n.candidates);
	rep_u(r, "objects", n.objects);
	rep_u(r, "rejected", n.rejected);
	rep_u(r, "empty", n.empty);
	rep_u(r, "untyped_residue", n.untyped);
	rep_u(r, "retired_classes", n.retired);
	rep_states(r, t);
	rep_open(r, "confidence", false);
	rep_u(r, "100", t->confidence[MODEL_STATS_CONF_100]);
	rep_u(r, "90_99", t->confidence[MODEL_STATS_CONF_90]);
	rep_u(r, "70_89", t->confidence[MODEL_STATS_CONF_70]);
	rep_u(r, "below_70", t->confidence[MODEL_STATS_CONF_LOW]);
	rep_close(r);
	rep_dropped(r, c, t, b);
	rep_spaces(r, c);
	rep_open(r, "strings", false);
	rep_u(r, "total", t->strings);
	rep_u(r, "dropped", t->strings_dropped);
	rep_close(r);
	for (size_t i = 0; counts && i < c->rt.class_count; i++)
		counts[i] = model_class(m, i)->objects;
	if (counts)
		rep_classes(r, "top_classes", m, t->order, counts, t->per_class_dropped);
	xfree(counts);
	rep_roots(r, c);
	rep_unknown(r, c);
	if (c->native_done)
		rep_native(r, c);
	if (c->find_done)
		rep_indicators(r, c);
	if (c->yara_done)
		rep_yara(r, c);
	rep_tail(r, c);
	if (r->json) {
		rep_close(r);
		fputc('\n', r->fp);
	}
}

int cmd_carve(int argc, char **argv)
{
	struct carve_cli cl = { 0 };
	struct carve_opts o;
	struct mdebug_options nopts;
	struct carve c;
	struct progress prog;
	struct model_stats t;
	struct rep r;
	struct wbuf b;
	struct err e;
	size_t npos;
	int rc = cli_parse(argc, argv, &cmd_carve_spec, &cl, &npos);

	if (rc != CLI_GO_ON)
		return rc;
	memset(&o, 0, sizeof(o));
	if (cl.include && (rc = parse_include(argv[0], cl.include, &o.hprof)) != CLI_GO_ON)
		return rc;
	if (!cl.out)
		return cli_usage_error(argv[0], "missing -o DIR");
	if (cl.skip) {
		const char *bad;
		size_t n;
		if (!carve_output_parse_skip(cl.skip, &o.skip, &bad, &n))
			return cli_usage_error(argv[0], "--skip takes the names of outputs (%s), not '%.*s'",
					       carve_skip_names(), (int)n, bad);
	}
	if ((cl.symbols || cl.native_options) && !cl.native)
		return cli_usage_error(argv[0], "--symbols and --native-options go with --native");
	if (cl.native_options) {
		err_init(&e);
		if (mdebug_parse_options(cl.native_options, &nopts, &e))
			return cli_usage_error(argv[0], "--native-options: %s", e.msg);
		o.native_options = &nopts;
	}
	o.native = cl.native;
	o.yara = cl.yara;
	o.symbols = cl.symbols;
	o.version = ARTCARVE_VERSION;
	o.argc = argc;
	o.argv = argv;
	o.image = argv[1];
	o.maps = cl.maps;
	o.art_version = cl.art_version;
	o.out_dir = cl.out;
	o.force = cl.force;
	o.digest = cl.digest && !strcmp(cl.digest, "pages") ? SHA256_KIND_PAGES : SHA256_KIND_FILE;
	o.hprof.android = cl.android;
	/* default: every online CPU, up to 8 (six outputs and the hashing are the jobs) */
	o.threads = cl.threads ? (unsigned)cl.threads
			       : jobs_cpus() < CARVE_THREADS_DEFAULT_MAX ? jobs_cpus() : CARVE_THREADS_DEFAULT_MAX;
	/* progress only on a terminal, where '\r' redraws one line; never in a log or pipe */
	progress_init(&prog, !cl.quiet && cli_progress_enabled() ? stderr : NULL, "carve");
	o.progress = &prog;
	err_init(&e);
	wbuf_init(&b);
	rc = carve_run(&c, &o, &e);
	progress_end(&prog);
	if (rc == 0) {
		if ((rc = model_stats_make(&t, &c.m, &e)) == 0 && !cl.all_classes)
			rc = model_stats_app_first(&t, &c.m, &e);
		if (rc == 0) {
			rep_init(&r, stdout, cl.json);
			report(&r, &c, &t, &b);
			rc = wbuf_status(&b, &e);
		}
		model_stats_release(&t);
	}
	wbuf_release(&b);
	carve_release(&c);
	if (rc == 0 && (fflush(stdout) != 0 || ferror(stdout)))
		rc = ERR_SET(&e, ERR_IO, ERR_NO_VA, "cannot write the summary");
	return rc ? cli_report(argv[0], &e) : CLI_OK;
}
