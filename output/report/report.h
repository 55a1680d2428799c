/* report.h - report.html: one self-contained page (inline CSS, one small inline script, an
 * inline SVG; nothing fetched) that an investigator opens in a browser after a carve.
 *
 * Sections, in order: the image and its input files (sizes, SHA-256), the ART version and
 * pointer size and how each was found; the summary figures (rosalloc/model/model_stats.h,
 * the same carve --json prints, each cell marked data-k="<json path>"); spaces with sizes and
 * occupancy; the heap map (report_map.h); the dropped objects (allocated, unreachable) with
 * their strings first, then the String fields of the other dropped objects; free (partial /
 * residue) objects; top classes; anomalies by reason with addresses; root sources present
 * and missing, and the GC evidence used; with carve --native, the malloc_debug allocations of
 * the native heap (report_native.h).  Lists stop at REPORT_LIST_MAX rows and say how
 * many were left out.
 *
 * Every string from the image (names, string values, mapping names, messages quoting them)
 * goes through report_html_text.  Nothing in the page depends on the time or the machine:
 * the same input gives the same bytes. */
#ifndef ARTCARVE_REPORT_H
#define ARTCARVE_REPORT_H

#include "carver/base/anomaly.h"
#include "carver/base/err.h"
#include "carver/base/outfile.h"
#include "carver/image/symbolize.h"
#include "output/report/report_units.h"
#include "rosalloc/model/model.h"
#include "rosalloc/model/reach.h"
#include "carver/native/mdebug.h"
#include "rosalloc/walk/walk.h"

enum { REPORT_LIST_MAX = 1000, REPORT_TOP_CLASSES = 50, REPORT_STRING_MAX = 4096 };

struct report_input {
	const struct model *m;          /* finished, reachability run; m->rt and m->rt->img */
	const struct reach *r;
	const struct anomaly_sink *sink;          /* the carving's anomalies (m->rt's own are read too) */
	const struct report_units *units;         /* allocation units of the walk; NULL: map by pages */
	const struct walk_ev_report *evidence;    /* WALK_EV_COUNT entries; NULL: not shown */
	const struct mdebug_result *native;       /* carve --native's scan; NULL: no native section */
	struct symz *symz;                        /* names the scan's frames (with native) */
};

/* Writes the page into out.  Returns 0, -ERR_IO (an input file does not read for its
 * digest, or out does not write) or -ERR_NOMEM. */
int report_write(const struct report_input *in, struct outf *out, struct err *e);

#endif
