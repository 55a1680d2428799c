/* carve.h - the carving pipeline behind `artcarve carve`: image -> runtime model -> space
 * walkers -> object model (checks, states) -> reachability -> DIR/heap.hprof, and the
 * figures its summary prints. */
#ifndef ARTCARVE_CARVE_H
#define ARTCARVE_CARVE_H

#include <stdbool.h>
#include <stdint.h>

#include "art/runtime/runtime.h"
#include "carver/base/anomaly.h"
#include "carver/image/image.h"
#include "output/hprof/hprof_carve.h"
#include "rosalloc/model/model.h"
#include "rosalloc/model/reach.h"
#include "rosalloc/walk/walk.h"

struct carve_opts {
	const char *image, *maps, *art_version;
	const char *out_dir;
	struct hprof_carve_opts hprof;
	bool progress;              /* phase lines on stderr */
};

struct carve {
	struct image img;
	struct art_runtime rt;
	struct anomaly_sink sink;
	struct model m;
	struct reach r;
	struct walk_ev_report evidence[WALK_EV_COUNT];
	struct hprof_carve_stats hs;
	char *hprof_path;
	uint64_t heap_bytes;        /* captured bytes of the object spaces */
	double seconds, cpu_seconds;   /* wall clock and CPU time of the whole run */
	uint64_t anon_kb;           /* anonymous resident memory at the end (Linux RssAnon; 0 if
				     * unknown): what carve allocated, without the mapped image */
	bool img_open, rt_open, model_open;
};

/* Runs the whole pipeline; c holds the results (release it even on error).  Returns 0 or
 * -ERR_* (input rejected, I/O, memory); damaged content is in c->sink, not an error. */
int carve_run(struct carve *c, const struct carve_opts *o, struct err *e);
void carve_release(struct carve *c);

#endif
