/* rep.c - the report writer (see rep.h). */
#include "carver/base/rep.h"

#include "carver/base/escape.h"
#include "carver/base/wbuf.h"

#include <stdarg.h>
#include <string.h>

void rep_init(struct rep *r, FILE *fp, bool json)
{
	memset(r, 0, sizeof(*r));
	r->fp = fp;
	r->json = json;
	r->lv[0].first = true;
	r->lv[0].array = true;   /* the top-level value has no key */
}

void rep_init_item(struct rep *r, FILE *fp, bool json, bool first)
{
	rep_init(r, fp, json);
	if (json) {
		r->depth = 1;
		r->lv[1].first = first;
		r->lv[1].array = true;
	}
}

/* One escaper for every JSON string the tool writes (escape.h): a name read from an image
 * (a maps line, a class) may hold any bytes, and invalid UTF-8 becomes U+FFFD, not bytes
 * that make the document invalid. */
void rep_json_string(FILE *fp, const char *s, size_t n)
{
	struct wbuf b;

	wbuf_init(&b);
	escape_json_quoted(&b, (const uint8_t *)s, n);
	if (!b.failed) {
		fwrite(b.data, 1, b.len, fp);
	} else {
		/* out of memory: the same escapes byte by byte, every non-ASCII byte as U+FFFD, so
		 * the document stays valid JSON */
		fputc('"', fp);
		for (size_t i = 0; i < n; i++) {
			unsigned char ch = (unsigned char)s[i];
			if (ch == '"' || ch == '\\')
				fprintf(fp, "\\%c", ch);
			else if (ch < 0x20 || ch == 0x7f)
				fprintf(fp, "\\u%04x", ch);
			else if (ch >= 0x80)
				fputs("\\ufffd", fp);
			else
				fputc(ch, fp);
		}
		fputc('"', fp);
	}
	wbuf_release(&b);
}

static void rep_indent(const struct rep *r, int levels)
{
	for (int i = 0; i < levels; i++)
		fputs("  ", r->fp);
}

/* JSON containers on their own lines enclosing level d (d included). */
static int rep_lines_upto(const struct rep *r, int d)
{
	int n = 0;
	for (int i = 1; i <= d; i++)
		n += r->lv[i].lines;
	return n;
}

/* Starts a member: JSON separator and key, or text indentation and "key: ". */
static void rep_key(struct rep *r, const char *key)
{
	if (r->json) {
		int d = r->depth;
		if (!r->lv[d].first)
			fputc(',', r->fp);
		if (r->lv[d].lines) {
			fputc('\n', r->fp);
			rep_indent(r, rep_lines_upto(r, d));
		} else if (!r->lv[d].first) {
			fputc(' ', r->fp);
		}
		r->lv[d].first = false;
		if (key && !r->lv[d].array) {
			rep_json_string(r->fp, key, strlen(key));
			fputs(": ", r->fp);
		}
		return;
	}
	rep_indent(r, r->depth);
	if (key)
		fprintf(r->fp, "%s: ", key);
}

static void rep_open_as(struct rep *r, const char *key, bool array, bool lines)
{
	if (r->json) {
		rep_key(r, key);
		fputc(array ? '[' : '{', r->fp);
	} else {
		rep_indent(r, r->depth);
		if (key)
			fprintf(r->fp, "%s:\n", key);
		else
			fputs("-\n", r->fp);
	}
	if (r->depth + 1 < REP_MAX_DEPTH)   /* reports nest a few levels, fixed by the code */
		r->depth++;
	r->lv[r->depth].first = true;
	r->lv[r->depth].array = array;
	r->lv[r->depth].lines = r->json && lines;
}

void rep_open(struct rep *r, const char *key, bool array) { rep_open_as(r, key, array, false); }

void rep_open_lines(struct rep *r, const char *key, bool array) { rep_open_as(r, key, array, true); }

void rep_close(struct rep *r)
{
	int d = r->depth;
	bool array = r->lv[d].array;

	if (r->json && r->lv[d].lines && !r->lv[d].first) {
		fputc('\n', r->fp);
		rep_indent(r, rep_lines_upto(r, d - 1));
	}
	if (d > 0)
		r->depth--;
	if (r->json)
		fputc(array ? ']' : '}', r->fp);
}

void rep_u(struct rep *r, const char *key, uint64_t v)
{
	rep_key(r, key);
	fprintf(r->fp, r->json ? "%llu" : "%llu\n", (unsigned long long)v);
}

void rep_i(struct rep *r, const char *key, int64_t v)
{
	rep_key(r, key);
	fprintf(r->fp, r->json ? "%lld" : "%lld\n", (long long)v);
}

void rep_hex(struct rep *r, const char *key, uint64_t v)
{
	rep_key(r, key);
	fprintf(r->fp, r->json ? "\"0x%llx\"" : "0x%llx\n", (unsigned long long)v);
}

void rep_bool(struct rep *r, const char *key, bool v)
{
	rep_key(r, key);
	fputs(v ? (r->json ? "true" : "yes\n") : (r->json ? "false" : "no\n"), r->fp);
}

void rep_sn(struct rep *r, const char *key, const char *s, size_t n)
{
	rep_key(r, key);
	if (r->json) {
		rep_json_string(r->fp, s, n);
	} else {
		fwrite(s, 1, n, r->fp);
		fputc('\n', r->fp);
	}
}

void rep_s(struct rep *r, const char *key, const char *s)
{
	if (s)
		rep_sn(r, key, s, strlen(s));
	else
		rep_null(r, key);
}

void rep_null(struct rep *r, const char *key)
{
	rep_key(r, key);
	fputs(r->json ? "null" : "-\n", r->fp);
}

void rep_line(struct rep *r, const char *fmt, ...)
{
	va_list ap;

	if (r->json)
		return;
	rep_indent(r, r->depth);
	va_start(ap, fmt);
	vfprintf(r->fp, fmt, ap);
	va_end(ap);
	fputc('\n', r->fp);
}
