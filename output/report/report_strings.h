/* report_strings.h - the Strings of report.html, folded: one row per distinct text with its
 * count (dropped, live, free), the object and field that hold its first copy, and a link to
 * that copy's view.
 *
 * Every java.lang.String of the model is read once (its first REPORT_STRING_MAX characters;
 * longer ones fold by that prefix and say so).  Rows lead with what the app holds: texts
 * with a dropped copy held by an object of the app's classes (or by nothing), then other
 * dropped texts, then live texts held by the app; last, what the runtime keeps for itself:
 * texts held only by a Throwable (the runtime's pre-allocated OutOfMemoryError messages and
 * other error messages), interned literals and the VM's own roots.  Within a rank, the text
 * with more dropped copies first, then by the address of its first copy.  The empty String
 * is one line of counts, never a row.  At most REPORT_STRING_ROWS rows (the page says how
 * many distinct texts are left out); strings.tsv and case.db have every copy. */
#ifndef ARTCARVE_REPORT_STRINGS_H
#define ARTCARVE_REPORT_STRINGS_H

#include <stdbool.h>
#include <stddef.h>

#include "carver/base/err.h"
#include "output/report/report_html.h"
#include "output/report/report_view.h"
#include "rosalloc/model/model.h"
#include "rosalloc/model/referrers.h"

enum { REPORT_STRING_ROWS = 1000 };

/* The Strings section; the first copy of every row gets a view in v.  The texts shown also
 * go, as JSON, into search ("[text, count, "0x..."]," per row) for the page's search box.
 * Returns 0 or -ERR_NOMEM. */
int report_strings_write(struct report_html *h, struct report_view *v, const struct referrers *refs,
			 struct wbuf *search, struct err *e);

#endif
