/* report_native.h - report.html's "Native heap (malloc_debug)" section (`carve --native`):
 * the scan's option set and figures; the totals an investigator compares with the app's own
 * accounting (carver/native/mdebug_totals.h: live and freed counts, requested and usable
 * bytes, overall, per size class and per backtrace with its first frames named); then the
 * damaged allocations first (every damaged byte as malloc_debug logs it), then the others,
 * each with state, sizes, first bytes and its first frames named through the symboliser.  At
 * most REPORT_LIST_MAX size classes, backtraces and allocations.  Without a scan (res NULL:
 * no --native) the section says it was not examined; a scan that found no allocation says
 * so. */
#ifndef ARTCARVE_REPORT_NATIVE_H
#define ARTCARVE_REPORT_NATIVE_H

#include "carver/image/symbolize.h"
#include "output/report/report_html.h"
#include "carver/native/mdebug.h"

int report_native_section(struct report_html *h, const struct mdebug_result *res, struct symz *sz, struct err *e);

#endif
