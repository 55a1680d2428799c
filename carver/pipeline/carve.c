/* carve.c - the carving pipeline (see carve.h). */
#include "carver/pipeline/carve.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "carver/base/jobs.h"
#include "carver/base/outfile.h"
#include "carver/base/xalloc.h"
#include "output/bmd/bmd_codec.h"
#include "output/db/case_db_find.h"
#include "output/db/case_db_native.h"
#include "output/export/objects_jsonl.h"
#include "output/export/strings_tsv.h"
#include "output/find/find_features.h"
#include "output/report/report.h"
#include "carver/pipeline/carve_dir.h"
#include "rosalloc/probe/probe.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const char *const carve_phase_names[CARVE_PHASE_COUNT] = {
	"image", "runtime", "walk", "check", "reach", "input_hash", "scan", "write",
};

const char *carve_phase_name(unsigned i) { return i < CARVE_PHASE_COUNT ? carve_phase_names[i] : NULL; }

/* The wall time since `since` added to step ph's (enum carve_phase); returns now. */
static double timed(struct carve *c, unsigned ph, double since)
{
	double t = now();
	c->phase_seconds[ph] += t - since;
	return t;
}

/* A phase of the run; total: bytes of work (0 when unknown). */
static void phase(const struct carve_opts *o, const char *what, uint64_t total)
{
	progress_phase(o->progress, what, total);
}

/* Captured bytes of the spaces that hold objects (what the walkers read). */
static uint64_t heap_bytes(const struct art_runtime *rt)
{
	uint64_t n = 0;
	for (size_t i = 0; i < rt->spaces.count; i++) {
		const struct art_space *s = &rt->spaces.v[i];
		if (!spaces_holds_objects(s->kind) || s->kind == SPACE_LOS_MAP)
			continue;
		for (size_t j = 0; j < rt->img->region_count; j++) {
			const struct img_region *r = &rt->img->regions[j];
			uint64_t lo = r->start > s->begin ? r->start : s->begin;
			uint64_t hi = r->start + r->data_len < s->end ? r->start + r->data_len : s->end;
			if (r->data && hi > lo)
				n += hi - lo;
		}
	}
	return n;
}

/* RssAnon of /proc/self/status (kB), 0 when not there: the model's own memory, as opposed
 * to the image's file pages the kernel maps in and can drop at will. */
static uint64_t rss_anon_kb(void)
{
	FILE *fp = fopen("/proc/self/status", "r");
	char line[256];
	unsigned long long kb = 0;
	if (!fp)
		return 0;
	while (fgets(line, sizeof(line), fp))
		if (sscanf(line, "RssAnon: %llu kB", &kb) == 1)
			break;
	fclose(fp);
	return kb;
}

static int make_dir(const char *dir, struct err *e)
{
	struct stat st;
	if (mkdir(dir, 0777) == 0 || (errno == EEXIST && stat(dir, &st) == 0 && S_ISDIR(st.st_mode)))
		return 0;
	return ERR_SET(e, ERR_IO, ERR_NO_VA, "cannot create the output directory %s: %s", dir,
		       errno == EEXIST ? "a file of that name exists" : strerror(errno));
}

static bool wanted(const struct carve_opts *o, unsigned i);
static char *out_path(const char *dir, const char *file, struct err *e);
static bool feature_path(const struct carve_opts *o, unsigned k, char *path, size_t n);

/* Kind k's feature file in DIR (indicators/KIND.txt) into name (false: too long). */
static bool feature_file(unsigned k, char *name, size_t n)
{
	int len = snprintf(name, n, "indicators/%s.txt", find_kind_name(k));
	return len > 0 && (size_t)len < n;
}

/* The walk's allocation units: the model keeps the walk gaps (heap.hprof's WalkGap marks),
 * the report's heap map draws the units when report.html is written (c->draw_units). */
static int carve_unit(void *arg, const struct walk_unit *u, struct err *e)
{
	struct carve *c = arg;
	int rc = model_unit(&c->m, u, e);
	return rc == 0 && c->draw_units ? report_units_add(&c->units, u, e) : rc;
}

static int walk_spaces(struct carve *c, const struct carve_opts *o, struct err *e)
{
	struct walk_evidence *ev = walk_evidence_open(&c->rt, &c->sink, e);
	int rc;
	if (!ev)
		return err_rc(e);
	struct walk_ctx ctx = { .rt = &c->rt, .sink = &c->sink, .emit = model_add, .arg = &c->m, .ev = ev,
				.progress = model_progress(&c->m), .unit = carve_unit, .unit_arg = c };
	c->draw_units = o->out_dir && wanted(o, CARVE_OUT_REPORT);
	/* --threads > 1: the walkers on the second core, the checks of each candidate here */
	rc = o->threads > 1 ? walk_all_piped(&ctx, e) : walk_all(&ctx, e);
	walk_evidence_report(ev, c->evidence);
	walk_evidence_close(ev);
	return rc;
}

/* ---- the outputs ---- */

typedef int (*carve_write_fn)(struct carve *c, const struct carve_opts *o, struct outf *out, struct err *e);

struct carve_output_row {
	const char *file;           /* in DIR */
	const char *name;           /* what --skip takes */
	carve_write_fn write;
};

static int write_hprof(struct carve *c, const struct carve_opts *o, struct outf *out, struct err *e)
{
	struct hprof_carve_opts ho = o->hprof;
	ho.image_sha256 = c->image_sha256;
	ho.threads = o->threads;
	return hprof_carve_write(&c->m, &c->r, &ho, out, &c->hs, e);
}

static int write_jsonl(struct carve *c, const struct carve_opts *o, struct outf *out, struct err *e)
{
	struct objects_jsonl_stats st;
	int rc = objects_jsonl_header(out, o->version, c->image_sha256, e);
	return rc ? rc : objects_jsonl_write(&c->m, &c->r, out, &st, e);
}

static int write_strings(struct carve *c, const struct carve_opts *o, struct outf *out, struct err *e)
{
	struct strings_tsv_opts so = { o->image, o->version, &c->r, c->image_sha256 };
	struct strings_tsv_stats st;
	int rc = carve_referrers(c, e);
	return rc ? rc : strings_tsv_write(&c->m, &c->refs, &so, out, &st, e);
}

static int write_report(struct carve *c, const struct carve_opts *o, struct outf *out, struct err *e)
{
	struct report_run run = { o->version, o->argc, o->argv, c->started };
	struct report_input in = { &c->m, &c->r, &c->sink, &c->units, c->evidence,
				   c->native_done ? &c->native : NULL, c->symz, &c->refs, &run,
				   c->find_done ? &c->find : NULL };
	return report_write(&in, out, e);
}

/* SQLite opens the file itself: the stream is closed and the temporary written by path */
static int write_db(struct carve *c, const struct carve_opts *o, struct outf *out, struct err *e)
{
	struct case_db_run run = { o->version, o->argc, o->argv, c->started, now() - c->t0 };
	int rc = outf_close_stream(out, e);
	if (rc == 0 && (rc = case_db_write(out->tmp, &c->m, &c->r, &c->refs, &run, &c->db, e)))
		err_prefix(e, "writing %s", out->path);
	if (rc == 0 && c->native_done && (rc = case_db_add_native(out->tmp, &c->native, c->symz, e)))
		err_prefix(e, "writing %s", out->path);
	if (rc == 0 && c->find_done && (rc = case_db_add_find(out->tmp, &c->m, &c->find, e)))
		err_prefix(e, "writing %s", out->path);
	if (rc == 0 && c->yara_done && (rc = case_db_add_yara(out->tmp, &c->m, &c->ymatch, e)))
		err_prefix(e, "writing %s", out->path);
	return rc;
}

/* The name, size and SHA-256 of kind k's feature file (closed, not yet committed) for
 * manifest.json */
static int hash_feature_file(struct carve *c, unsigned k, struct err *e)
{
	uint8_t d[SHA256_DIGEST];
	int rc = sha256_file(c->find_out[k].tmp, d, &c->find_bytes[k], e);
	if (rc == 0)
		sha256_hex(d, c->find_sha256[k]);
	feature_file(k, c->find_file[k], sizeof(c->find_file[k]));
	return rc;
}

/* DIR/indicators/: a feature file per kind into c->find_out (committed with report.txt,
 * commit_indicators), then report.txt itself */
static int write_indicators(struct carve *c, const struct carve_opts *o, struct outf *out, struct err *e)
{
	struct find_features_opts fo = { o->image, o->version };
	int rc = 0;
	for (unsigned k = 0; rc == 0 && k < FIND_KIND_COUNT; k++) {
		char path[PATH_MAX];
		if (!feature_path(o, k, path, sizeof(path)))
			return ERR_SET(e, ERR_USAGE, ERR_NO_VA, "output directory name too long: %s", o->out_dir);
		if ((rc = outf_open(&c->find_out[k], path, e)) == 0 &&
		    (rc = find_features_write(&c->m, &c->find, k, &fo, &c->find_out[k], e)) == 0 &&
		    (rc = outf_close_stream(&c->find_out[k], e)) == 0)
			rc = hash_feature_file(c, k, e);
	}
	return rc ? rc : find_features_report(&c->find, out, e);
}

static int carve_outf_write(void *ctx, const void *p, size_t n, struct err *e)
{
	return outf_write(ctx, p, n, e);
}

/* heap.bmd: heap.hprof crunched from its temporary file (closed by now), or, when heap.hprof
 * is skipped, from an HPROF written to a temporary of its own in DIR and removed after.
 * --android's 1.0.3 file crunches as any other (output/bmd/bmd_crunch.c drops its
 * HEAP_DUMP_INFO and ROOT_UNREACHABLE records as Badoo does; the BMD keeps "1.0.3"). */
static int write_bmd(struct carve *c, const struct carve_opts *o, struct outf *out, struct err *e)
{
	struct bmd_crunch_opts bo = { .progress = o->progress, .progress_phase = "writing heap.bmd" };
	struct bmd_sink sink = { carve_outf_write, out };
	struct outf own;
	const char *hprof = c->out[CARVE_OUT_HPROF].tmp;
	char *path = NULL;
	int rc = 0;

	outf_init(&own);
	if (!hprof) {
		phase(o, "writing a temporary heap.hprof for heap.bmd", model_object_bytes(&c->m));
		if (!(path = out_path(o->out_dir, "heap.hprof", e)))
			return err_rc(e);
		if ((rc = outf_open(&own, path, e)) == 0 && (rc = write_hprof(c, o, &own, e)) == 0)
			rc = outf_close_stream(&own, e);
		hprof = own.tmp;
	}
	if (rc == 0)
		rc = bmd_crunch_file(hprof, &bo, &sink, NULL, e);
	outf_abort(&own);
	xfree(path);
	return rc;
}

static const struct carve_output_row carve_outputs[CARVE_OUT_COUNT] = {
	[CARVE_OUT_HPROF] = { "heap.hprof", "hprof", write_hprof },
	[CARVE_OUT_BMD] = { "heap.bmd", "bmd", write_bmd },
	[CARVE_OUT_DB] = { "case.db", "db", write_db },
	[CARVE_OUT_JSONL] = { "objects.jsonl", "jsonl", write_jsonl },
	[CARVE_OUT_STRINGS] = { "strings.tsv", "strings", write_strings },
	[CARVE_OUT_REPORT] = { "report.html", "report", write_report },
	[CARVE_OUT_INDICATORS] = { "indicators/report.txt", "indicators", write_indicators },
};

const char *carve_output_file(unsigned i)
{
	return i < CARVE_OUT_COUNT && carve_outputs[i].write ? carve_outputs[i].file : NULL;
}

const char *carve_output_name(unsigned i)
{
	return i < CARVE_OUT_COUNT && carve_outputs[i].write ? carve_outputs[i].name : NULL;
}

bool carve_output_parse_skip(const char *list, unsigned *skip, const char **bad, size_t *bad_len)
{
	for (const char *p = list; *p; ) {
		size_t n = strcspn(p, ","), i;
		for (i = 0; i < CARVE_OUT_COUNT; i++) {
			const char *name = carve_output_name((unsigned)i);
			if (name && strlen(name) == n && !strncmp(p, name, n))
				break;
		}
		if (i == CARVE_OUT_COUNT) {
			*bad = p;
			*bad_len = n;
			return false;
		}
		*skip |= 1u << i;
		p += n + (p[n] == ',');
	}
	return true;
}

const char *carve_skip_names(void)
{
	static char names[128];
	size_t len = 0;
	for (unsigned i = 0; i < CARVE_OUT_COUNT && len < sizeof(names); i++)
		if (carve_output_name(i))
			len += (size_t)snprintf(names + len, sizeof(names) - len, "%s%s", len ? ", " : "",
						carve_output_name(i));
	return names;
}

static char *out_path(const char *dir, const char *file, struct err *e)
{
	size_t n = strlen(dir) + strlen(file) + 2;
	char *p = xmalloc(n);
	if (!p)
		ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory");
	else
		snprintf(p, n, "%s/%s", dir, file);
	return p;
}

static bool wanted(const struct carve_opts *o, unsigned i)
{
	return carve_outputs[i].write && !(o->skip & 1u << i);
}

/* The input files hashed (case.db and report.html list them) and the image's SHA-256, which
 * every output records (carve_dir.h) */
static int hash_inputs(struct carve *c, struct progress *p, struct err *e)
{
	double t = now();
	int rc = img_inputs_hash(&c->img, p, e);
	if (rc == 0)
		rc = img_sha256(&c->img, c->image_sha256, e);
	timed(c, CARVE_PHASE_INPUT_HASH, t);   /* its own element: written by this thread only */
	return rc;
}

/* Output i into its temporary file: opened, written, the stream closed, its SHA-256 taken
 * for manifest.json. */
static int write_one(struct carve *c, const struct carve_opts *o, unsigned i, struct err *e)
{
	int rc;
	if (!(c->path[i] = out_path(o->out_dir, carve_outputs[i].file, e)))
		return err_rc(e);
	/* heap.hprof is about the size of the heap: past the page cache, unless heap.bmd is
	 * made from it right after (then it is read back from the cache) */
	if (i == CARVE_OUT_HPROF && !wanted(o, CARVE_OUT_BMD))
		rc = outf_open_big(&c->out[i], c->path[i], e);
	else
		rc = outf_open(&c->out[i], c->path[i], e);
	/* heap.hprof's writer patches a record's length in its buffer, never in the file: hashed
	 * as written too, with --threads > 1 on a thread of its own beside the writer (the
	 * biggest output: its SHA-256 costs about as much as writing it) */
	if (rc == 0 && i == CARVE_OUT_HPROF && o->threads > 1)
		outf_hash_thread(&c->out[i]);
	else if (rc == 0)
		outf_hash(&c->out[i]);
	if (rc == 0)
		rc = carve_outputs[i].write(c, o, &c->out[i], e);
	if (rc == 0 && (rc = outf_close_stream(&c->out[i], e)) == 0) {
		uint8_t d[SHA256_DIGEST];
		if (outf_digest(&c->out[i], d))   /* hashed as written: not read back */
			c->bytes[i] = c->out[i].written;
		else
			rc = sha256_file(c->out[i].tmp, d, &c->bytes[i], e);
		if (rc == 0)
			sha256_hex(d, c->sha256[i]);
	}
	return rc;
}

/* --threads 1: the inputs hashed, then every wanted output in table order, each pass with
 * the progress line and with nothing of the image resident at its start */
static int write_serial(struct carve *c, const struct carve_opts *o, struct err *e)
{
	char line[64];
	uint64_t objects = model_object_bytes(&c->m);
	int rc = 0;

	phase(o, "hashing the input files", img_inputs_bytes(&c->img));   /* here, where the line can say how far the read got */
	rc = hash_inputs(c, o->progress, e);
	for (unsigned i = 0; rc == 0 && i < CARVE_OUT_COUNT; i++) {
		if (!wanted(o, i))
			continue;
		snprintf(line, sizeof(line), "writing %s", carve_outputs[i].file);
		phase(o, line, objects);
		rc = write_one(c, o, i, e);
		img_drop(&c->img, 0, UINT64_MAX);
	}
	return rc;
}

/* One job of write_parallel: output `out`, or the input hashes (out == CARVE_OUT_COUNT). */
struct carve_job {
	struct carve *c;
	const struct carve_opts *o;
	unsigned out;
	bool shown;   /* this job draws the progress line (the others are muted) */
};

static int carve_job_run(void *arg, struct err *e)
{
	struct carve_job *j = arg;
	char line[96];
	int rc;

	progress_muted = !j->shown;
	if (j->shown) {
		snprintf(line, sizeof(line), "writing %s and the other outputs", carve_outputs[j->out].file);
		progress_phase(model_progress(&j->c->m), line, model_object_bytes(&j->c->m));
	}
	if (j->out < CARVE_OUT_COUNT)
		rc = write_one(j->c, j->o, j->out, e);
	else   /* the hashes, unless taken while the model was built */
		rc = j->c->hashed ? 0 : hash_inputs(j->c, NULL, e);
	progress_muted = false;
	return rc;
}

/* The writer whose progress is shown while all run: the longest as a rule (case.db, then
 * objects.jsonl); heap.bmd never (its progress goes through the options, silenced);
 * CARVE_OUT_COUNT when none is wanted. */
static unsigned shown_output(const struct carve_opts *o)
{
	static const unsigned pref[] = { CARVE_OUT_DB, CARVE_OUT_JSONL, CARVE_OUT_HPROF, CARVE_OUT_STRINGS,
					 CARVE_OUT_REPORT };
	for (size_t i = 0; i < sizeof(pref) / sizeof(pref[0]); i++)
		if (wanted(o, pref[i]))
			return pref[i];
	return CARVE_OUT_COUNT;
}

/* The hashing and the writers as jobs on `threads` threads.  They only read the model, the
 * reachability result and the image; each writes its own file and its own fields of c
 * (c->path[i], c->out[i]; heap.hprof's c->hs, or heap.bmd's when heap.hprof is skipped;
 * c->refs is built before them for strings.tsv, case.db and report.html).  Every output
 * waits for the hashes (each records the image's SHA-256), heap.bmd for heap.hprof's file too.
 * The progress line is one writer's (shown_output; the other jobs' threads are muted while
 * they run).  The first failure in the serial order is the
 * one reported. */
struct carve_jobs {
	struct jobs_job v[CARVE_OUT_COUNT + 1];
	struct carve_job arg[CARVE_OUT_COUNT + 1];
	unsigned at[CARVE_OUT_COUNT + 1];   /* the job of each output (and of the hashes) */
	unsigned n;
};

/* Job `out` after the jobs of the outputs in the mask `after` (bit CARVE_OUT_COUNT: the hashes) */
static void add_job(struct carve_jobs *t, struct carve *c, const struct carve_opts *o, unsigned out, unsigned after)
{
	uint32_t wait = 0;
	for (unsigned i = 0; i <= CARVE_OUT_COUNT; i++)
		if (after & 1u << i)
			wait |= 1u << t->at[i];
	t->arg[t->n] = (struct carve_job){ c, o, out, out == shown_output(o) };
	t->v[t->n] = (struct jobs_job){ .run = carve_job_run, .arg = &t->arg[t->n], .after = wait };
	t->at[out] = t->n++;
}

static int write_parallel(struct carve *c, const struct carve_opts *o, unsigned threads, struct err *e)
{
	struct carve_opts quiet = *o;
	struct carve_jobs t = { .n = 0 };
	const unsigned hashes = 1u << CARVE_OUT_COUNT;
	struct jobs_job *jobs = t.v;
	unsigned n;
	int rc;

	quiet.progress = NULL;
	add_job(&t, c, &quiet, CARVE_OUT_COUNT, 0);
	for (unsigned i = 0; i < CARVE_OUT_COUNT; i++)
		if (wanted(o, i))
			add_job(&t, c, &quiet, i, hashes | (i == CARVE_OUT_BMD && wanted(o, CARVE_OUT_HPROF) ? 1u << CARVE_OUT_HPROF : 0));
	n = t.n;
	progress_phase(o->progress, "writing the outputs", 0);
	rc = jobs_run(jobs, n, threads, e);
	for (unsigned k = 0; rc == 0 && k < n; k++)
		if (jobs[k].rc) {   /* a job not run follows a failed one: never the first */
			*e = jobs[k].err;
			rc = jobs[k].rc;
		}
	img_drop(&c->img, 0, UINT64_MAX);
	return rc;
}

/* manifest.json into its temporary file: every wanted output with its size and SHA-256 */
static int write_manifest(struct carve *c, const struct carve_opts *o, struct err *e)
{
	struct carve_dir_file files[CARVE_OUT_COUNT + FIND_KIND_COUNT];
	unsigned n = 0;
	char *path = out_path(o->out_dir, CARVE_MANIFEST, e);
	int rc;

	if (!path)
		return err_rc(e);
	for (unsigned i = 0; i < CARVE_OUT_COUNT; i++)
		if (wanted(o, i)) {
			files[n] = (struct carve_dir_file){ .file = carve_outputs[i].file, .bytes = c->bytes[i] };
			memcpy(files[n++].sha256, c->sha256[i], SHA256_HEX);
		}
	for (unsigned k = 0; wanted(o, CARVE_OUT_INDICATORS) && k < FIND_KIND_COUNT; k++) {
		files[n] = (struct carve_dir_file){ .file = c->find_file[k], .bytes = c->find_bytes[k] };
		memcpy(files[n++].sha256, c->find_sha256[k], SHA256_HEX);
	}
	if ((rc = outf_open(&c->manifest, path, e)) == 0 &&
	    (rc = carve_dir_manifest(&c->manifest, &c->img, o->image, o->version, c->image_sha256, files, n, e)) == 0)
		rc = outf_close_stream(&c->manifest, e);
	xfree(path);
	return rc;
}

/* --force: the outputs of an earlier run that this run does not write go as this run's
 * are committed (never another image's case.db beside a new heap.hprof) */
static int remove_stale(const struct carve_opts *o, struct err *e)
{
	int rc = 0;
	char name[64];
	for (unsigned i = 0; rc == 0 && i < CARVE_OUT_COUNT && o->force; i++)
		if (carve_outputs[i].write && !wanted(o, i))
			rc = carve_dir_remove(o->out_dir, carve_outputs[i].file, e);
	/* the feature files beside indicators/report.txt */
	for (unsigned k = 0; rc == 0 && o->force && !wanted(o, CARVE_OUT_INDICATORS) && k < FIND_KIND_COUNT; k++)
		if (feature_file(k, name, sizeof(name)))
			rc = carve_dir_remove(o->out_dir, name, e);
	return rc;
}

/* The folder of an output whose file lies in one (indicators/), made before its writer runs. */
static int make_out_dirs(const struct carve_opts *o, struct err *e)
{
	int rc = 0;
	for (unsigned i = 0; rc == 0 && i < CARVE_OUT_COUNT; i++) {
		const char *slash = wanted(o, i) ? strchr(carve_outputs[i].file, '/') : NULL;
		char sub[32], *path;
		if (!slash || (size_t)(slash - carve_outputs[i].file) >= sizeof(sub))
			continue;
		snprintf(sub, sizeof(sub), "%.*s", (int)(slash - carve_outputs[i].file), carve_outputs[i].file);
		if (!(path = out_path(o->out_dir, sub, e)))
			return err_rc(e);
		rc = make_dir(path, e);
		xfree(path);
	}
	return rc;
}

/* DIR/indicators/KIND.txt for kind k into path (false: too long). */
static bool feature_path(const struct carve_opts *o, unsigned k, char *path, size_t n)
{
	char name[48];
	int len = feature_file(k, name, sizeof(name)) ? snprintf(path, n, "%s/%s", o->out_dir, name) : -1;
	return len > 0 && (size_t)len < n;
}

/* The folders make_out_dirs made, removed after a failed run when empty (rmdir leaves a
 * folder that holds anything). */
static void remove_out_dirs(const struct carve_opts *o)
{
	char path[PATH_MAX];
	for (unsigned i = 0; i < CARVE_OUT_COUNT; i++) {
		const char *slash = wanted(o, i) ? strchr(carve_outputs[i].file, '/') : NULL;
		int n = slash ? snprintf(path, sizeof(path), "%s/%.*s", o->out_dir, (int)(slash - carve_outputs[i].file),
					 carve_outputs[i].file) : -1;
		if (n > 0 && (size_t)n < sizeof(path))
			rmdir(path);
	}
}

/* The feature files of DIR/indicators/ (write_indicators), committed before their report.txt
 * (bits of *done: the kinds committed); on a later failure removed again (remove_indicators). */
static int commit_indicators(struct carve *c, unsigned i, unsigned *done, struct err *e)
{
	int rc = 0;
	for (unsigned k = 0; i == CARVE_OUT_INDICATORS && rc == 0 && k < FIND_KIND_COUNT; k++)
		if ((rc = outf_commit(&c->find_out[k], e)) == 0)
			*done |= 1u << k;
	return rc;
}

static void remove_indicators(const struct carve_opts *o, unsigned done)
{
	char path[PATH_MAX];
	for (unsigned k = 0; k < FIND_KIND_COUNT; k++)
		if (done & 1u << k && feature_path(o, k, path, sizeof(path)))
			unlink(path);
}

/* Every wanted output into its temporary file, then all committed together with
 * manifest.json: a failure anywhere leaves none of them in DIR (and c->path only for those
 * committed). */
static int write_outputs(struct carve *c, const struct carve_opts *o, struct err *e)
{
	unsigned committed = 0, features = 0;
	int rc = make_dir(o->out_dir, e);

	/* strings.tsv, case.db and report.html read the referrer index: built once, before the
	 * writers run (in parallel they only read it) */
	if (rc == 0 && (wanted(o, CARVE_OUT_STRINGS) || wanted(o, CARVE_OUT_DB) || wanted(o, CARVE_OUT_REPORT)))
		rc = carve_referrers(c, e);
	if (rc == 0)
		rc = make_out_dirs(o, e);
	if (rc == 0)
		rc = o->threads > 1 ? write_parallel(c, o, o->threads, e) : write_serial(c, o, e);
	if (rc == 0)   /* damage that could not be recorded (out of memory) fails the run before a commit */
		rc = anomaly_status(&c->sink, e);
	if (rc == 0 && (rc = write_manifest(c, o, e)) == 0)
		rc = remove_stale(o, e);
	for (unsigned i = 0; rc == 0 && i < CARVE_OUT_COUNT; i++) {
		if (!wanted(o, i))
			continue;
		if ((rc = commit_indicators(c, i, &features, e)) == 0 && (rc = outf_commit(&c->out[i], e)) == 0)
			committed |= 1u << i;
	}
	if (rc == 0)
		rc = outf_commit(&c->manifest, e);
	if (rc != 0)
		remove_indicators(o, features);
	for (unsigned i = 0; rc != 0 && i < CARVE_OUT_COUNT; i++) {
		if (committed & 1u << i)   /* committed before the failure */
			unlink(c->path[i]);
		else {
			xfree(c->path[i]);
			c->path[i] = NULL;
		}
		outf_abort(&c->out[i]);   /* its temporary, so that an output's folder empties */
	}
	for (unsigned k = 0; rc != 0 && k < FIND_KIND_COUNT; k++)
		outf_abort(&c->find_out[k]);
	if (rc != 0)
		remove_out_dirs(o);
	return rc;
}

/* c cleared and the image opened: the first step of carve_model. */
static int open_image(struct carve *c, const struct carve_opts *o, struct err *e)
{
	struct img_open_opts io = { o->maps };
	int rc;

	memset(c, 0, sizeof(*c));
	c->t0 = now();
	c->started = (int64_t)time(NULL);
	anomaly_init(&c->sink, 0);
	phase(o, "loading the image and the runtime model", 0);
	rc = img_open(&c->img, o->image, &io, e);
	timed(c, CARVE_PHASE_IMAGE, c->t0);
	if (rc)
		return rc;
	c->img_open = true;
	img_set_digest(&c->img, o->digest);
	return 0;
}

/* The rest of carve_model on the opened image. */
static int build_model(struct carve *c, const struct carve_opts *o, struct err *e)
{
	struct runtime_opts ro = { .art_version = o->art_version, .probes = &probe_spaces };
	double t = now();
	int rc;

	if ((rc = runtime_open(&c->rt, &c->img, &ro, e)))
		return rc;
	c->rt_open = true;
	if ((rc = model_init(&c->m, &c->rt, &c->sink, e)))
		return rc;
	c->model_open = true;
	model_set_progress(&c->m, o->progress);
	model_set_threads(&c->m, o->threads);
	c->heap_bytes = heap_bytes(&c->rt);
	img_drop(&c->img, 0, UINT64_MAX);   /* what the runtime model read: the passes below read in order */
	t = timed(c, CARVE_PHASE_RUNTIME, t);
	if ((rc = walk_spaces(c, o, e)))
		return rc;
	t = timed(c, CARVE_PHASE_WALK, t);
	phase(o, "checking references", model_object_bytes(&c->m));
	if ((rc = model_finish(&c->m, e)))
		return rc;
	img_drop(&c->img, 0, UINT64_MAX);   /* the graph walk reads the model, not the image */
	t = timed(c, CARVE_PHASE_CHECK, t);
	phase(o, "walking the object graph from the roots", model_object_bytes(&c->m));
	if ((rc = reach_run(&c->m, &c->r, e)))
		return rc;
	model_release_refs(&c->m);   /* the walk's edges: nothing reads them after it */
	timed(c, CARVE_PHASE_REACH, t);
	return 0;
}

int carve_model(struct carve *c, const struct carve_opts *o, struct err *e)
{
	int rc = open_image(c, o, e);
	return rc ? rc : build_model(c, o, e);
}

/* The two jobs of build_hashing: the model, and the input hashes (which read the input
 * files by descriptor, not the mapping the model reads, and write only their memos and
 * c->image_sha256, which nothing reads before the writers). */
struct carve_stage {
	struct carve *c;
	const struct carve_opts *o;
};

static int stage_model(void *arg, struct err *e)
{
	struct carve_stage *s = arg;
	return build_model(s->c, s->o, e);
}

static int stage_hashes(void *arg, struct err *e)
{
	struct carve_stage *s = arg;
	int rc = hash_inputs(s->c, NULL, e);
	s->c->hashed = rc == 0;
	return rc;
}

/* --threads > 1: the input hashes taken while the model is built, on the second core (a
 * whole-process core's SHA-256 runs over its holes too: gigabytes of zeros for a heap of a
 * few megabytes; every output waits for it).  The model's error comes first, as in the
 * serial order; the hashes' next. */
static int build_hashing(struct carve *c, const struct carve_opts *o, struct err *e)
{
	struct carve_stage s = { c, o };
	struct jobs_job v[2] = { { .run = stage_model, .arg = &s }, { .run = stage_hashes, .arg = &s } };
	int rc = jobs_run(v, 2, 2, e);
	for (unsigned k = 0; rc == 0 && k < 2; k++)
		if (v[k].rc) {
			*e = v[k].err;
			rc = v[k].rc;
		}
	return rc;
}

int carve_referrers(struct carve *c, struct err *e)
{
	int rc = 0;
	if (!c->refs_built && (rc = referrers_build(&c->refs, &c->m, e)) == 0)
		c->refs_built = true;
	return rc;
}

/* --native: the malloc_debug allocations of the native heap, and the symboliser for their
 * backtraces (the ELF files the image maps, else o->symbols + their path). */
static int carve_native(struct carve *c, const struct carve_opts *o, struct err *e)
{
	struct mdebug_scan_opts so = { o->native_options, c->img.pointer_bits };
	int rc;

	phase(o, "scanning the native heap for malloc_debug allocations", 0);
	if ((rc = mdebug_scan(&c->img, &so, &c->native, e)) || (rc = symz_new(&c->symz, o->symbols, e)) ||
	    (rc = symz_add_image(c->symz, &c->img, e)))
		return rc;
	c->native_done = true;
	img_drop(&c->img, 0, UINT64_MAX);
	return 0;
}

/* a file carve writes in DIR, or the folder one of them lies in (indicators/) */
static bool is_output_file(const char *name)
{
	size_t n = strlen(name);
	for (unsigned i = 0; i < CARVE_OUT_COUNT; i++)
		if (carve_outputs[i].write && !strncmp(name, carve_outputs[i].file, n) &&
		    (carve_outputs[i].file[n] == 0 || carve_outputs[i].file[n] == '/'))
			return true;
	return false;
}

/* The indicators (output/find/find_scan.h), before the writers: case.db and the feature
 * files read them. */
static int carve_find(struct carve *c, const struct carve_opts *o, struct err *e)
{
	int rc;
	phase(o, "scanning for indicators", 0);
	if ((rc = carve_referrers(c, e)) || (rc = find_run(&c->m, &c->refs, &c->find, e)))
		return rc;
	c->find_done = true;
	img_drop(&c->img, 0, UINT64_MAX);
	return 0;
}

/* --yara: the compiled rules over every object (output/find/find_yara.h). */
static int carve_yara(struct carve *c, const struct carve_opts *o, struct err *e)
{
	int rc;
	phase(o, "matching the YARA rules", 0);
	if ((rc = carve_referrers(c, e)) || (rc = find_yara_run(&c->m, &c->refs, c->yara, &c->ymatch, e)))
		return rc;
	c->yara_done = true;
	img_drop(&c->img, 0, UINT64_MAX);
	return 0;
}

int carve_run(struct carve *c, const struct carve_opts *o, struct err *e)
{
	double t0 = now();
	clock_t c0 = clock();
	struct yaraw *rules = NULL;
	int rc;

	/* the folder first, then the rules: a folder refused or a rules file that does not
	 * compile fails the run before the carving (c cleared for carve_release, as carve_model
	 * clears it) */
	memset(c, 0, sizeof(*c));
	if (o->out_dir && (rc = carve_dir_check(o->out_dir, o->force, is_output_file, e)))
		return rc;
	if (o->yara && (rc = yaraw_open(&rules, o->yara, e)))
		return rc;
	rc = open_image(c, o, e);
	if (rc == 0)
		rc = o->threads > 1 ? build_hashing(c, o, e) : build_model(c, o, e);
	c->yara = rules;
	if (rc)
		return rc;
	img_drop(&c->img, 0, UINT64_MAX);
	double t = now();
	if (o->native && (rc = carve_native(c, o, e)))
		return rc;
	if (o->out_dir && wanted(o, CARVE_OUT_INDICATORS) && (rc = carve_find(c, o, e)))
		return rc;
	if (c->yara && (rc = carve_yara(c, o, e)))
		return rc;
	t = timed(c, CARVE_PHASE_SCAN, t);
	double hashed = c->phase_seconds[CARVE_PHASE_INPUT_HASH];
	if ((rc = write_outputs(c, o, e)))
		return rc;
	timed(c, CARVE_PHASE_WRITE, t);
	if (o->threads <= 1)   /* --threads 1 hashed the inputs first thing in the write step: counted apart */
		c->phase_seconds[CARVE_PHASE_WRITE] -= c->phase_seconds[CARVE_PHASE_INPUT_HASH] - hashed;
	c->seconds = now() - t0;
	c->cpu_seconds = (double)(clock() - c0) / CLOCKS_PER_SEC;
	c->anon_kb = rss_anon_kb();
	return 0;
}

void carve_release(struct carve *c)
{
	referrers_release(&c->refs);
	reach_release(&c->r);
	mdebug_result_free(&c->native);
	symz_free(c->symz);
	report_units_release(&c->units);
	if (c->model_open)
		model_release(&c->m);
	if (c->rt_open)
		runtime_close(&c->rt);
	if (c->img_open)
		img_close(&c->img);
	anomaly_release(&c->sink);
	for (unsigned i = 0; i < CARVE_OUT_COUNT; i++) {
		outf_abort(&c->out[i]);
		xfree(c->path[i]);
	}
	outf_abort(&c->manifest);
	for (unsigned k = 0; k < FIND_KIND_COUNT; k++)
		outf_abort(&c->find_out[k]);
	find_release(&c->find);
	find_yara_release(&c->ymatch);
	yaraw_close(c->yara);
	memset(c, 0, sizeof(*c));
}
