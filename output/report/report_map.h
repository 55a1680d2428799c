/* report_map.h - the heap map of report.html: one inline SVG group per object space, one cell
 * per allocation unit the walk recorded (RosAlloc run, page-level allocation or free page
 * stretch; region; large-object block), or per page where the walk has no finer unit
 * (dlmalloc chunks, image and bump-pointer objects).  A cell is filled left to right in
 * proportion to the bytes of its objects by state: allocated and reachable, allocated and
 * unreachable (dropped), allocated with reachability unknown, free (partial or residue);
 * the rest of the cell is empty (captured) or not captured.  A cell with an anomaly has a
 * red outline.  Each cell's <title> gives its addresses and counts (a browser shows it on
 * hover).
 *
 * Size: the map has REPORT_MAP_TOTAL_CELLS cells to share among its spaces, each space
 * between REPORT_MAP_MIN_CELLS and REPORT_MAP_MAX_CELLS; a space with more units than its
 * share draws consecutive units together (the same number in every cell, so the map keeps
 * its proportions and is the same for the same input), which bounds the SVG to a few MB
 * (about 300 bytes a cell) whatever the heap's size. */
#ifndef ARTCARVE_REPORT_MAP_H
#define ARTCARVE_REPORT_MAP_H

#include <stddef.h>

#include "carver/base/anomaly.h"
#include "carver/base/err.h"
#include "output/report/report_html.h"
#include "output/report/report_units.h"
#include "rosalloc/model/model.h"

enum { REPORT_MAP_TOTAL_CELLS = 8192, REPORT_MAP_MAX_CELLS = 2048, REPORT_MAP_MIN_CELLS = 256 };

/* Writes the legend and the SVG.  units may be NULL (then every space is drawn by pages);
 * sinks: the kept anomalies of each (NULL entries skipped) mark their cells.  Returns 0 or
 * -ERR_NOMEM (write errors are h's). */
int report_map_write(struct report_html *h, const struct model *m, const struct report_units *units,
		     const struct anomaly_sink *const sinks[], size_t sink_count, struct err *e);

#endif
