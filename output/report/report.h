/* report.h - report.html: one self-contained page (inline CSS, one inline script, data as
 * inline JSON, an inline SVG; nothing fetched) that an investigator works in after a carve.
 *
 * Findings first: the dropped objects by class, then the live ones, each row decoded, the
 * app's own classes leading (report_objects.h); the Strings folded by text
 * (report_strings.h); indicators.  Then the heap map (report_map.h: a cell lists its
 * objects), the spaces, the summary figures (rosalloc/model/model_stats.h, the same carve
 * --json prints, each cell marked data-k="<json path>"), top classes, free objects,
 * native allocations (carve --native, report_native.h), anomalies, root sources and GC
 * evidence, and the image and run: the image's format, ART version and pointer size and
 * how each was found, artcarve's version, the command line, the time of the analysis, and
 * the input files with their sizes and SHA-256.  Every address is a link to the object's
 * view (report_view.h); a search box looks through classes, Strings and indicators
 * (report_script.h).  Every list has a budget and says when it is cut, so the page stays a
 * few MB whatever the heap.
 *
 * Every string from the image (names, string values, mapping names, messages quoting them)
 * goes through report_html_text (JSON data through escape_json and report_html_json).  Only
 * the time of the analysis (one line, data-prov="time") depends on when it ran: otherwise
 * the same input and command line give the same bytes. */
#ifndef ARTCARVE_REPORT_H
#define ARTCARVE_REPORT_H

#include "carver/base/anomaly.h"
#include "carver/base/err.h"
#include "carver/base/outfile.h"
#include "carver/image/symbolize.h"
#include "output/report/report_units.h"
#include "rosalloc/model/model.h"
#include "rosalloc/model/reach.h"
#include "rosalloc/model/referrers.h"
#include "output/find/find_scan.h"
#include "carver/native/mdebug.h"
#include "rosalloc/walk/walk.h"

enum { REPORT_LIST_MAX = 1000, REPORT_TOP_CLASSES = 50, REPORT_STRING_MAX = 4096 };

/* The run the page records (its provenance). */
struct report_run {
	const char *version;            /* artcarve's */
	int argc;                       /* the command line */
	char **argv;
	int64_t started;                /* UNIX time the run began */
};

struct report_input {
	const struct model *m;          /* finished, reachability run; its runtime and image */
	const struct reach *r;
	const struct anomaly_sink *sink;          /* the carving's anomalies (the runtime's own are read too) */
	const struct report_units *units;         /* allocation units of the walk; NULL: map by pages */
	const struct walk_ev_report *evidence;    /* WALK_EV_COUNT entries; NULL: not shown */
	const struct mdebug_result *native;       /* carve --native's scan; NULL: "not examined" */
	struct symz *symz;                        /* names the scan's frames (with native) */
	const struct referrers *refs;             /* referrers and paths of the views; NULL: none */
	const struct report_run *run;             /* NULL: no run section */
	const struct find_result *find;           /* the indicators (output/find); NULL: not scanned */
};

/* Writes the page into out.  Returns 0, -ERR_IO (an input file does not read for its
 * digest, or out does not write) or -ERR_NOMEM. */
int report_write(const struct report_input *in, struct outf *out, struct err *e);

#endif
