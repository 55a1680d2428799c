/* vd_json.c - the small JSON reader behind truth.jsonl (RFC 8259 values; also the bare tokens
 * nan, inf, -inf that C's "%.9g" prints for non-finite floats, as tests/synth/truth.c does).
 * One bounded cursor per line, nesting limited to VD_JS_DEPTH; every error names the line and
 * the file offset. */
#include <stdio.h>
#include <string.h>

#include "output/compare/vd_int.h"

int vd_js_error(struct vd_js *j, struct err *e, const char *what)
{
	return ERR_SET(e, ERR_CORRUPT, cur_where(&j->c), "%s: line %u, offset %llu: %s", j->label, j->line,
		       (unsigned long long)cur_where(&j->c), what);
}

int vd_js_peek(struct vd_js *j)
{
	while (j->c.pos < j->c.len) {
		uint8_t ch = j->c.base[j->c.pos];
		if (ch != ' ' && ch != '\t' && ch != '\r' && ch != '\n')
			return ch;
		j->c.pos++;
	}
	return -1;
}

int vd_js_expect(struct vd_js *j, char ch, struct err *e)
{
	char what[32];

	if (vd_js_peek(j) != (uint8_t)ch) {
		snprintf(what, sizeof(what), "'%c' expected", ch);
		return vd_js_error(j, e, what);
	}
	j->c.pos++;
	return 0;
}

static int js_hex4(struct vd_js *j, uint32_t *u, struct err *e)
{
	*u = 0;
	if (cur_remaining(&j->c) < 4)
		return vd_js_error(j, e, "truncated \\u escape");
	for (int i = 0; i < 4; i++) {
		uint8_t ch = j->c.base[j->c.pos + (size_t)i];
		unsigned d = ch >= '0' && ch <= '9' ? ch - '0' + 0u : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10u
			     : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10u : 16u;
		if (d > 15)
			return vd_js_error(j, e, "bad \\u escape");
		*u = *u << 4 | d;
	}
	j->c.pos += 4;
	return 0;
}

/* One UTF-8 sequence at the cursor: *cp, 0; invalid bytes give -ERR_CORRUPT. */
static int js_utf8(struct vd_js *j, uint32_t *cp, struct err *e)
{
	const uint8_t *p = cur_ptr(&j->c);
	size_t left = cur_remaining(&j->c), n;
	uint32_t c = p[0], min;

	if (c < 0x80) {
		n = 1;
		min = 0;
	} else if ((c & 0xe0) == 0xc0) {
		n = 2;
		c &= 0x1f;
		min = 0x80;
	} else if ((c & 0xf0) == 0xe0) {
		n = 3;
		c &= 0x0f;
		min = 0x800;
	} else if ((c & 0xf8) == 0xf0) {
		n = 4;
		c &= 0x07;
		min = 0x10000;
	} else {
		return vd_js_error(j, e, "invalid UTF-8");
	}
	if (n > left)
		return vd_js_error(j, e, "truncated UTF-8");
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return vd_js_error(j, e, "invalid UTF-8");
		c = c << 6 | (p[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff)
		return vd_js_error(j, e, "invalid UTF-8");
	j->c.pos += n;
	*cp = c;
	return 0;
}

/* Walks a string; each code unit / code point goes to the sinks that are set. */
static int js_string_walk(struct vd_js *j, struct wbuf *out, struct vd_view *v, struct err *e)
{
	int rc;

	if ((rc = vd_js_expect(j, '"', e)))
		return rc;
	for (;;) {
		uint32_t cp = 0;
		bool unit = false;      /* cp is a UTF-16 unit from an escape */
		if (j->c.pos >= j->c.len)
			return vd_js_error(j, e, "unterminated string");
		uint8_t ch = j->c.base[j->c.pos];
		if (ch == '"') {
			j->c.pos++;
			return 0;
		}
		if (ch < 0x20)
			return vd_js_error(j, e, "control character in string");
		if (ch == '\\') {
			if (cur_remaining(&j->c) < 2)
				return vd_js_error(j, e, "unterminated string");
			ch = j->c.base[j->c.pos + 1];
			j->c.pos += 2;
			switch (ch) {
			case '"': case '\\': case '/': cp = ch; break;
			case 'b': cp = '\b'; break;
			case 'f': cp = '\f'; break;
			case 'n': cp = '\n'; break;
			case 'r': cp = '\r'; break;
			case 't': cp = '\t'; break;
			case 'u':
				if ((rc = js_hex4(j, &cp, e)))
					return rc;
				unit = true;
				break;
			default:
				return vd_js_error(j, e, "bad escape");
			}
		} else if ((rc = js_utf8(j, &cp, e))) {
			return rc;
		}
		if (out)
			wbuf_utf8(out, cp);
		if (v) {
			if (!unit && cp >= 0x10000) {
				if ((rc = vd_view_add_unit(v, (uint16_t)(0xd800 + ((cp - 0x10000) >> 10)), e)) ||
				    (rc = vd_view_add_unit(v, (uint16_t)(0xdc00 + ((cp - 0x10000) & 0x3ff)), e)))
					return rc;
			} else if ((rc = vd_view_add_unit(v, (uint16_t)cp, e))) {
				return rc;
			}
		}
	}
}

int vd_js_string(struct vd_js *j, struct wbuf *out, struct err *e)
{
	int rc = js_string_walk(j, out, NULL, e);
	if (!rc && out)
		rc = wbuf_status(out, e);
	return rc;
}

int vd_js_string_utf16(struct vd_js *j, struct vd_view *v, struct err *e)
{
	return js_string_walk(j, NULL, v, e);
}

static bool js_token_char(uint8_t ch)
{
	return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '-' ||
	       ch == '+' || ch == '.';
}

int vd_js_token(struct vd_js *j, const uint8_t **tok, size_t *n, struct err *e)
{
	size_t start;

	if (vd_js_peek(j) < 0)
		return vd_js_error(j, e, "value expected");
	start = j->c.pos;
	while (j->c.pos < j->c.len && js_token_char(j->c.base[j->c.pos]))
		j->c.pos++;
	if (j->c.pos == start)
		return vd_js_error(j, e, "value expected");
	*tok = j->c.base + start;
	*n = j->c.pos - start;
	return 0;
}

int vd_js_member(struct vd_js *j, bool *first, char *key, size_t cap, size_t *klen, struct err *e)
{
	struct wbuf b;
	int ch = vd_js_peek(j), rc;

	if (ch == '}') {
		j->c.pos++;
		return 0;
	}
	if (!*first) {
		if (ch != ',')
			return vd_js_error(j, e, "',' or '}' expected");
		j->c.pos++;
	}
	*first = false;
	wbuf_init(&b);
	rc = vd_js_string(j, &b, e);
	if (!rc) {
		*klen = b.len;
		if (b.len && cap)
			memcpy(key, b.data, b.len < cap ? b.len : cap);
		if (cap)
			key[b.len < cap ? b.len : cap - 1] = '\0';
	}
	wbuf_release(&b);
	if (!rc)
		rc = vd_js_expect(j, ':', e);
	return rc ? rc : 1;
}

int vd_js_elem(struct vd_js *j, bool *first, struct err *e)
{
	int ch = vd_js_peek(j);

	if (ch == ']') {
		j->c.pos++;
		return 0;
	}
	if (!*first) {
		if (ch != ',')
			return vd_js_error(j, e, "',' or ']' expected");
		j->c.pos++;
	}
	*first = false;
	return 1;
}

int vd_js_skip(struct vd_js *j, unsigned depth, struct err *e)
{
	int ch = vd_js_peek(j), rc;
	bool first = true;
	const uint8_t *tok;
	size_t n;
	char key[8];

	if (depth >= VD_JS_DEPTH)
		return vd_js_error(j, e, "nesting too deep");
	if (ch == '"')
		return vd_js_string(j, NULL, e);
	if (ch == '{') {
		j->c.pos++;
		while ((rc = vd_js_member(j, &first, key, sizeof(key), &n, e)) == 1)
			if ((rc = vd_js_skip(j, depth + 1, e)))
				return rc;
		return rc;
	}
	if (ch == '[') {
		j->c.pos++;
		while ((rc = vd_js_elem(j, &first, e)) == 1)
			if ((rc = vd_js_skip(j, depth + 1, e)))
				return rc;
		return rc;
	}
	return vd_js_token(j, &tok, &n, e);
}
