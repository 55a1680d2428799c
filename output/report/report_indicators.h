/* report_indicators.h - the indicators and secrets of report.html: what output/find's scan
 * found (find_scan.h: URLs, e-mail addresses, phone numbers, IP addresses, JWTs, bearer
 * tokens, card numbers, and the values of fields whose names mark secrets), one row per
 * distinct kind and value with its count, the first object that holds it (a link to its
 * view), its class, state and the field holding it.  Secrets lead, then dropped before live,
 * unknown and free, then by kind and address.  At most REPORT_INDICATOR_ROWS rows (the page
 * says how many are left out; case.db's indicators table and DIR/indicators/ have them
 * all).  Each row also goes to the search box's data as [kind, value, "0x..."]. */
#ifndef ARTCARVE_REPORT_INDICATORS_H
#define ARTCARVE_REPORT_INDICATORS_H

#include "carver/base/err.h"
#include "carver/base/wbuf.h"
#include "output/find/find_scan.h"
#include "output/report/report_html.h"
#include "output/report/report_view.h"

enum { REPORT_INDICATOR_ROWS = 500, REPORT_INDICATOR_CHARS = 200 };

/* Writes the section (f NULL: the page says the scan was not run) and appends the search
 * rows to search (each ending ",\n").  Returns 0 or -ERR_NOMEM. */
int report_indicators_write(struct report_html *h, struct report_view *v, const struct find_result *f,
			    struct wbuf *search, struct err *e);

#endif
