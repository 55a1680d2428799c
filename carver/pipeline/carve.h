/* carve.h - the carving pipeline behind `artcarve carve` and `artcarve strings`: image ->
 * runtime model -> space walkers -> object model (checks, states) -> reachability -> the
 * outputs in DIR, and the figures the CLI's summary prints.  A library layer (carver/pipeline)
 * below carver/cli: it parses no arguments and prints nothing. */
#ifndef ARTCARVE_CARVE_H
#define ARTCARVE_CARVE_H

#include <stdbool.h>
#include <stdint.h>

#include "art/runtime/runtime.h"
#include "carver/base/anomaly.h"
#include "carver/base/outfile.h"
#include "carver/base/progress.h"
#include "carver/image/image.h"
#include "carver/image/symbolize.h"
#include "output/db/case_db.h"
#include "output/find/find_scan.h"
#include "output/find/find_yara.h"
#include "output/hprof/hprof_carve.h"
#include "output/report/report_units.h"
#include "rosalloc/model/model.h"
#include "rosalloc/model/reach.h"
#include "rosalloc/model/referrers.h"
#include "carver/native/mdebug.h"
#include "rosalloc/walk/walk.h"

/* The files carve writes into DIR, in the order they are written (a later writer may read an
 * earlier one's temporary file: heap.bmd is crunched from heap.hprof). */
enum carve_output {
	CARVE_OUT_HPROF, CARVE_OUT_BMD, CARVE_OUT_DB, CARVE_OUT_JSONL, CARVE_OUT_STRINGS, CARVE_OUT_REPORT,
	CARVE_OUT_INDICATORS,   /* DIR/indicators/: report.txt (its row) and a feature file per kind */
	CARVE_OUT_COUNT
};

/* The steps of a run timed in the summary (time.phases_ms): wall milliseconds of each.
 * input_hash runs beside the others with --threads > 1 (its own thread: the phases then add
 * up to more than the run). */
enum carve_phase {
	CARVE_PHASE_IMAGE,       /* the image opened: container, regions, mappings */
	CARVE_PHASE_RUNTIME,     /* the runtime model: version, spaces, classes, the model set up */
	CARVE_PHASE_WALK,        /* the space walkers, every candidate checked into the model */
	CARVE_PHASE_CHECK,       /* model_finish: references checked, indexes */
	CARVE_PHASE_REACH,       /* the graph walk from the roots */
	CARVE_PHASE_INPUT_HASH,  /* the input files' SHA-256 */
	CARVE_PHASE_SCAN,        /* --native, the indicators, --yara (before the writers) */
	CARVE_PHASE_WRITE,       /* the outputs written, hashed and committed with manifest.json */
	CARVE_PHASE_COUNT
};
/* The phase's key in the summary ("walk"), NULL past the last. */
const char *carve_phase_name(unsigned i);

struct carve_opts {
	const char *image, *maps, *art_version;
	const char *out_dir;
	struct hprof_carve_opts hprof;
	struct progress *progress;  /* NULL: silent (stderr no terminal, --quiet) */
	unsigned skip;              /* 1u << CARVE_OUT_x for every output not written */
	/* threads for the input hashing, the space walkers (walk_all_piped) and the output
	 * writers once the model is built (they only read it); 0 or 1: one after the other on
	 * the caller's thread, with progress */
	unsigned threads;
	bool native;                /* --native: scan the native heap for malloc_debug allocations */
	const char *symbols;        /* --symbols DIR for the native backtraces, may be NULL */
	const struct mdebug_options *native_options;   /* NULL: inferred */
	bool force;                 /* --force: DIR may hold an earlier run's outputs, replaced (carve_dir.h) */
	enum sha256_kind digest;    /* --digest: the input files' digest every output records */
	const char *yara;           /* --yara RULES: matches into case.db and the summary, NULL: none */
	const char *version;        /* artcarve's version, as recorded in case.db and strings.tsv */
	int argc;                   /* the command line, as recorded in case.db */
	char **argv;
};

struct carve {
	struct image img;
	struct art_runtime rt;
	struct anomaly_sink sink;
	struct model m;
	struct reach r;
	struct referrers refs;      /* built on first use (carve_referrers) */
	struct walk_ev_report evidence[WALK_EV_COUNT];
	struct hprof_carve_stats hs;
	struct report_units units;  /* the walk's allocation units, for report.html's heap map */
	bool draw_units;            /* report.html is written: units are kept for its heap map */
	struct case_db_stats db;
	struct outf out[CARVE_OUT_COUNT];   /* each output's temporary file until all are committed */
	char *path[CARVE_OUT_COUNT];        /* the committed outputs' paths (NULL: not written) */
	uint64_t bytes[CARVE_OUT_COUNT];    /* and their sizes */
	char sha256[CARVE_OUT_COUNT][SHA256_HEX];   /* and their SHA-256 (manifest.json) */
	char image_sha256[SHA256_TEXT];    /* img_sha256, recorded in every output, once hashed */
	struct outf manifest;       /* DIR/manifest.json until committed with the outputs */
	uint64_t heap_bytes;        /* captured bytes of the object spaces */
	double seconds, cpu_seconds;   /* wall clock and CPU time of the whole run */
	double phase_seconds[CARVE_PHASE_COUNT];   /* wall clock of each step (enum carve_phase) */
	int64_t started;            /* UNIX time the run began (case.db's runs row) */
	double t0;                  /* monotonic clock at the start */
	uint64_t anon_kb;           /* anonymous resident memory at the end (Linux RssAnon; 0 if
				     * unknown): what carve allocated, without the mapped image */
	struct mdebug_result native;   /* --native: the malloc_debug scan (native_done) */
	struct symz *symz;          /* and the symboliser naming its frames */
	struct find_result find;    /* the indicators (find_done: scanned before the writers) */
	struct outf find_out[FIND_KIND_COUNT];   /* their feature files, committed with report.txt */
	char find_file[FIND_KIND_COUNT][48];      /* their names in DIR (indicators/KIND.txt), */
	uint64_t find_bytes[FIND_KIND_COUNT];    /* sizes and SHA-256 for manifest.json */
	char find_sha256[FIND_KIND_COUNT][SHA256_HEX];
	bool find_done;
	struct yaraw *yara;         /* --yara: the compiled rules */
	struct find_yara_result ymatch;   /* and their matches (yara_done) */
	bool yara_done;
	bool img_open, rt_open, model_open, refs_built, native_done;
	bool hashed;                /* the inputs hashed and image_sha256 set (--threads > 1: beside the model) */
};

/* Runs the whole pipeline; c holds the results (release it even on error).  Returns 0 or
 * -ERR_* (input rejected, I/O, memory); damaged content is in c->sink, not an error. */
int carve_run(struct carve *c, const struct carve_opts *o, struct err *e);
/* The pipeline up to the object model with its states (image, runtime model, walkers,
 * checks, reachability), writing nothing (o->out_dir unused; o->skip still says which
 * outputs' data the walk collects: set every bit when none will be written), for commands
 * that read the model (`artcarve strings`).  Release c as after carve_run. */
int carve_model(struct carve *c, const struct carve_opts *o, struct err *e);
/* Builds c->refs once (rosalloc/model/referrers.h); later calls return 0 at once. */
int carve_referrers(struct carve *c, struct err *e);
void carve_release(struct carve *c);

/* The outputs this build writes: file name in DIR and the name --skip takes (NULL for an
 * output this build does not have). */
const char *carve_output_file(unsigned i);
const char *carve_output_name(unsigned i);
/* "hprof, bmd, ...": the names --skip takes, for messages. */
const char *carve_skip_names(void);
/* Parses a comma-separated --skip list into *skip; on an unknown name returns false with
 * *bad and *bad_len naming it. */
bool carve_output_parse_skip(const char *list, unsigned *skip, const char **bad, size_t *bad_len);

#endif
