/* report_view.h - the object views of report.html: every address the page prints is a link
 * (#o=ADDR) to a view the page's script draws from data embedded in the page.
 *
 * The page carries a view for each object it lists (report_view_add), at most
 * REPORT_VIEW_MAX: its class, states, size, space, the String's text, its decoded fields
 * (output/decode, following references REPORT_VIEW_DEPTH deep), the objects that reference it (the first REPORT_VIEW_REFERRERS,
 * with the field or element; rosalloc/model/referrers.h) and the path from a root to it
 * (rosalloc/model/reach.h: the root's source, then each object and the field it is held
 * by), found by a breadth-first search backwards over the referrers of reachable objects
 * (at most REPORT_PATH_VISITS objects visited) or, when none exists, why: no root reaches
 * it (what references it is itself dropped, or nothing does), or the reason its
 * reachability is unknown.  An address the page has no view for shows what the page knows
 * (the link's own class text) and where to look (objects.jsonl, case.db).
 *
 * The data is one JSON object in <script type="application/json" id="views">, keyed by
 * address ("0x..." as objects.jsonl writes it), with '<' written as \u003c so that no text
 * from the image can end the script element. */
#ifndef ARTCARVE_REPORT_VIEW_H
#define ARTCARVE_REPORT_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "carver/base/err.h"
#include "carver/base/htab.h"
#include "carver/base/wbuf.h"
#include "output/decode/decode.h"
#include "output/report/report_html.h"
#include "rosalloc/model/model.h"
#include "rosalloc/model/reach.h"
#include "rosalloc/model/referrers.h"

enum { REPORT_VIEW_MAX = 6000, REPORT_VIEW_DEPTH = 1, REPORT_VIEW_REFERRERS = 8, REPORT_PATH_VISITS = 4096, REPORT_PATH_MAX = 32 };

struct report_view {
	const struct model *m;
	const struct reach *r;
	const struct referrers *refs;   /* NULL: no referrers or paths */
	struct dec *dec;                /* the decoded fields (output/decode) */
	struct htab at;                 /* object index -> its entry in obj */
	uint32_t *obj;                  /* objects with a view, in the order added */
	size_t count, cap;
	struct wbuf scratch;            /* JSON being built */
	struct wbuf line;               /* an object's one-line form */
	uint64_t refused;               /* objects past REPORT_VIEW_MAX */
};

void report_view_init(struct report_view *v, const struct model *m, const struct reach *r,
		      const struct referrers *refs, struct dec *dec);
void report_view_release(struct report_view *v);
/* Gives object i a view (once; past REPORT_VIEW_MAX it is counted in refused).  Returns 0 or
 * -ERR_NOMEM. */
int report_view_add(struct report_view *v, size_t i, struct err *e);
/* The address of object o as a link to its view. */
void report_view_link(struct report_html *h, const struct model *m, const struct model_obj *o);
/* Writes the views (the <script type="application/json" id="views"> element).  Returns 0
 * or -ERR_NOMEM. */
int report_view_write(struct report_view *v, struct report_html *h, struct err *e);

#endif
