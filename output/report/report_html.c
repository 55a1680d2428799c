/* report_html.c - the HTML text writer and escaper (report_html.h). */
#include "output/report/report_html.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "output/bmd/bmd.h"

enum { HTML_FLUSH = 1 << 16 };

void report_html_init(struct report_html *h, struct outf *out, struct err *e)
{
	memset(h, 0, sizeof(*h));
	h->out = out;
	h->e = e;
	wbuf_init(&h->b);
	wbuf_init(&h->scratch);
}

static void html_flush(struct report_html *h)
{
	if (h->rc == 0 && (h->rc = wbuf_status(&h->b, h->e)) == 0 && h->b.len)
		h->rc = outf_write(h->out, h->b.data, h->b.len, h->e);
	wbuf_reset(&h->b);
}

int report_html_finish(struct report_html *h)
{
	html_flush(h);
	if (h->rc == 0)
		h->rc = wbuf_status(&h->scratch, h->e);
	wbuf_release(&h->b);
	wbuf_release(&h->scratch);
	return h->rc;
}

static void html_maybe_flush(struct report_html *h)
{
	if (h->b.len >= HTML_FLUSH || h->b.failed)
		html_flush(h);
}

void report_html_raw(struct report_html *h, const char *s)
{
	if (h->rc)
		return;
	wbuf_put(&h->b, s, strlen(s));
	html_maybe_flush(h);
}

void report_html_printf(struct report_html *h, const char *fmt, ...)
{
	char small[256];
	va_list ap;
	int n;

	if (h->rc)
		return;
	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n < sizeof(small)) {
		wbuf_put(&h->b, small, (size_t)n);
	} else {
		va_start(ap, fmt);
		n = vsnprintf(NULL, 0, fmt, ap);
		va_end(ap);
		if (n > 0 && wbuf_reserve(&h->b, (size_t)n + 1) == 0) {
			va_start(ap, fmt);
			vsnprintf((char *)h->b.data + h->b.len, (size_t)n + 1, fmt, ap);
			va_end(ap);
			h->b.len += (size_t)n;
		}
	}
	html_maybe_flush(h);
}

void report_html_escape(struct wbuf *out, struct wbuf *scratch, const uint8_t *s, size_t n)
{
	wbuf_reset(scratch);
	bmd_java_utf8(s, n, scratch, NULL);
	for (size_t i = 0; i < scratch->len; i++) {
		uint8_t c = scratch->data[i];
		switch (c) {
		case '&': wbuf_put(out, "&amp;", 5); break;
		case '<': wbuf_put(out, "&lt;", 4); break;
		case '>': wbuf_put(out, "&gt;", 4); break;
		case '"': wbuf_put(out, "&quot;", 6); break;
		case '\'': wbuf_put(out, "&#39;", 5); break;
		default:
			if (c < 0x20)
				wbuf_utf8(out, 0x2400u + c);
			else if (c == 0x7f)
				wbuf_utf8(out, 0x2421u);
			else
				wbuf_u8(out, c);
		}
	}
}

void report_html_text(struct report_html *h, const void *s, size_t n)
{
	if (h->rc)
		return;
	report_html_escape(&h->b, &h->scratch, s, n);
	if (h->scratch.failed)
		h->rc = wbuf_status(&h->scratch, h->e);
	html_maybe_flush(h);
}

void report_html_str(struct report_html *h, const char *s)
{
	if (!s)
		s = "?";
	report_html_text(h, s, strlen(s));
}

void report_html_json(struct report_html *h, const void *s, size_t n)
{
	const char *p = s, *end = p + n;
	if (h->rc)
		return;
	while (p < end) {
		const char *lt = memchr(p, '<', (size_t)(end - p));
		size_t run = lt ? (size_t)(lt - p) : (size_t)(end - p);
		wbuf_put(&h->b, p, run);
		if (lt)
			wbuf_put(&h->b, "\\u003c", 6);
		p += run + (lt != NULL);
	}
	html_maybe_flush(h);
}
