/* report_objects.h - the findings of report.html: objects by class, each row decoded
 * (output/decode/decode.h: one column per field, a String field as its text, a long that
 * reads as a time as its UTC time, a reference as a link to its object's view; arrays and
 * containers as their contents), in two sections:
 *   dropped  allocated objects no root reaches (what the app let go and no GC has swept);
 *   live     allocated objects a root reaches.
 * The app's own classes lead (art/runtime: a class's origin); the others follow in tables
 * the page hides until its "everything" switch is on.  Strings have their own section
 * (report_strings.h).
 *
 * Budgets, so that the page stays a few MB whatever the heap (the page says which lists are
 * cut): an app class shows at most REPORT_ROWS_APP dropped rows and REPORT_ROWS_LIVE_APP
 * live ones; another class REPORT_ROWS_OTHER rows, for the first REPORT_CLASSES_OTHER such
 * classes by count (the rest as one table of counts); at most REPORT_ROWS_MAX rows per
 * section; a cell at most REPORT_CELL_CHARS characters, a table at most REPORT_COLUMNS field
 * columns.  Rows are in address order. */
#ifndef ARTCARVE_REPORT_OBJECTS_H
#define ARTCARVE_REPORT_OBJECTS_H

#include <stdbool.h>
#include <stddef.h>

#include "carver/base/err.h"
#include "output/decode/decode.h"
#include "output/report/report_html.h"
#include "output/report/report_strings.h"
#include "output/report/report_view.h"
#include "rosalloc/model/model_stats.h"

enum {
	REPORT_ROWS_APP = 1000, REPORT_ROWS_LIVE_APP = 200, REPORT_ROWS_OTHER = 20, REPORT_CLASSES_OTHER = 40,
	REPORT_ROWS_MAX = 2000, REPORT_CELL_CHARS = 160, REPORT_COLUMNS = 12,
	REPORT_REF_CHARS = 80   /* bytes of what a reference cell shows of its object */
};

enum report_section { REPORT_DROPPED, REPORT_LIVE };

struct report_objects_in {
	struct dec *dec;
	struct report_view *view;          /* every row's object gets a view */
	const struct model_stats *st;
	enum report_section section;
};

/* Writes one section (heading, tables).  Returns 0 or -ERR_NOMEM. */
int report_objects_write(struct report_html *h, const struct report_objects_in *in, struct err *e);

#endif
