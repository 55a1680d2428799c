/* report_html.h - the HTML text writer behind report.html: a buffer flushed to the output
 * file in blocks, the first error kept (later writes are no-ops), and the one escaper every
 * string from the image goes through.
 *
 * Escaping: the bytes are first decoded as Java's UTF-8 decoder does (output/bmd/bmd.h
 * bmd_java_utf8: malformed sequences and encoded surrogates become U+FFFD), so the page is
 * valid UTF-8 whatever the image holds; then & < > " ' become character references (safe
 * in element text and in quoted attribute values alike) and C0 controls and DEL, which HTML
 * does not allow as text, become their visible Control Pictures (U+2400 + c, U+2421), tab
 * and newline included so that a value stays on one line. */
#ifndef ARTCARVE_REPORT_HTML_H
#define ARTCARVE_REPORT_HTML_H

#include <stddef.h>
#include <stdint.h>

#include "carver/base/err.h"
#include "carver/base/outfile.h"
#include "carver/base/wbuf.h"

struct report_html {
	struct outf *out;
	struct wbuf b;          /* text not yet written */
	struct wbuf scratch;    /* the decoded form of the string being escaped */
	struct err *e;
	int rc;                 /* sticky: 0 or the first -ERR_* */
};

void report_html_init(struct report_html *h, struct outf *out, struct err *e);
/* Writes what is buffered, releases the buffers; returns the first error (0 if none). */
int report_html_finish(struct report_html *h);

/* Trusted text: literals of this program (markup). */
void report_html_raw(struct report_html *h, const char *s);
/* Trusted formatted text: numbers and literals only, never a string from the image. */
void report_html_printf(struct report_html *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Untrusted bytes (from the image or the command line), escaped as above. */
void report_html_text(struct report_html *h, const void *s, size_t n);
/* The same for a NUL-terminated string; NULL prints "?". */
void report_html_str(struct report_html *h, const char *s);
/* JSON text (escape_json's) inside a <script> element: '<' written as \u003c, so that no
 * text from the image ends the element. */
void report_html_json(struct report_html *h, const void *s, size_t n);

/* The escaper on its own: appends the escaped form of s[0..n) to out (scratch is working
 * space).  Allocation failures are sticky in out / scratch (wbuf_status). */
void report_html_escape(struct wbuf *out, struct wbuf *scratch, const uint8_t *s, size_t n);

#endif
