/* nheap_text.c - lines and fields of the native heap text formats (see nheap_text.h). */
#include "carver/native/nheap_text.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void nh_lines_init(struct nh_lines *r, const uint8_t *p, size_t len, const struct mapfile *drop)
{
	cur_init(&r->cur, p, len, 0);
	r->no = 0;
	r->drop = drop;
	r->dropped = r->prev = 0;
}

int nh_lines_next(struct nh_lines *r, struct nh_line *l)
{
	size_t left = cur_remaining(&r->cur), n;
	const uint8_t *p = cur_ptr(&r->cur), *nl;

	if (left == 0)
		return 0;
	if (r->drop && r->prev - r->dropped >= NH_DROP_EVERY) {
		mapfile_drop(r->drop, r->cur.base + r->dropped, r->prev - r->dropped);
		r->dropped = r->prev;
	}
	r->prev = r->cur.pos;
	nl = memchr(p, '\n', left);
	n = nl ? (size_t)(nl - p) : left;
	l->s = (const char *)p;
	l->off = cur_where(&r->cur);
	l->no = ++r->no;
	l->complete = nl != NULL;
	l->len = n;
	if (l->complete && n > 0 && p[n - 1] == '\r')
		l->len--;
	r->cur.pos += nl ? n + 1 : n;   /* n (+1) <= left: within the text */
	return 1;
}

int nh_bad(const struct nh_scan *sc, struct err *e, enum err_code code, const char *fmt, ...)
{
	char msg[300];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return err_set(e, code, sc->l->off + sc->pos, __FILE__, __LINE__, "%s:%llu:%zu: %s", sc->path,
		       (unsigned long long)sc->l->no, sc->pos + 1, msg);
}

static bool nh_is_space(char c) { return c == ' ' || c == '\t'; }

size_t nh_spaces(struct nh_scan *sc)
{
	size_t start = sc->pos;

	while (sc->pos < sc->l->len && nh_is_space(sc->l->s[sc->pos]))
		sc->pos++;
	return sc->pos - start;
}

bool nh_lit(struct nh_scan *sc, const char *lit)
{
	size_t n = strlen(lit);

	if (n > sc->l->len - sc->pos || memcmp(sc->l->s + sc->pos, lit, n) != 0)
		return false;
	sc->pos += n;
	return true;
}

int nh_word(struct nh_scan *sc, const char **w, size_t *n, const char *what, struct err *e)
{
	size_t start = sc->pos;

	while (sc->pos < sc->l->len && !nh_is_space(sc->l->s[sc->pos]))
		sc->pos++;
	if (sc->pos == start)
		return nh_bad(sc, e, ERR_CORRUPT, "expected %s", what);
	*w = sc->l->s + start;
	*n = sc->pos - start;
	return 0;
}

int nh_dec(struct nh_scan *sc, uint64_t *v, const char *what, struct err *e)
{
	size_t p = sc->pos;
	uint64_t x = 0;

	while (p < sc->l->len && sc->l->s[p] >= '0' && sc->l->s[p] <= '9') {
		unsigned d = (unsigned)(sc->l->s[p] - '0');
		if (x > (UINT64_MAX - d) / 10)
			return nh_bad(sc, e, ERR_CORRUPT, "%s does not fit 64 bits", what);
		x = x * 10 + d;
		p++;
	}
	if (p == sc->pos)
		return nh_bad(sc, e, ERR_CORRUPT, "expected %s (decimal digits)", what);
	sc->pos = p;
	*v = x;
	return 0;
}

/* digit value + 1, 0 for anything else (one lookup per byte: the frame lists are most of a
 * dump's bytes) */
static const uint8_t nh_hexval[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6, ['6'] = 7, ['7'] = 8, ['8'] = 9, ['9'] = 10,
	['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
	['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

int nh_hex(struct nh_scan *sc, uint64_t *v, bool with_0x, const char *what, struct err *e)
{
	const unsigned char *s = (const unsigned char *)sc->l->s;
	size_t p = sc->pos, len = sc->l->len, start, q;
	uint64_t x = 0;

	if (with_0x && len - p >= 2 && s[p] == '0' && (s[p + 1] == 'x' || s[p + 1] == 'X'))
		p += 2;
	start = p;
	/* leading zeros (the padded 1.0/1.1 frames) do not count against the 16 digits */
	while (p < len && s[p] == '0')
		p++;
	for (q = p; q < len && nh_hexval[s[q]]; q++) {
		if (q - p == 16)
			return nh_bad(sc, e, ERR_CORRUPT, "%s does not fit 64 bits", what);
		x = x << 4 | (uint64_t)(nh_hexval[s[q]] - 1);
	}
	if (q == start)
		return nh_bad(sc, e, ERR_CORRUPT, "expected %s (hexadecimal digits)", what);
	sc->pos = q;
	*v = x;
	return 0;
}

int nh_field_end(struct nh_scan *sc, const char *what, struct err *e)
{
	if (sc->pos < sc->l->len && !nh_is_space(sc->l->s[sc->pos]))
		return nh_bad(sc, e, ERR_CORRUPT, "unexpected character '%c' after %s",
			      sc->l->s[sc->pos] >= 0x20 && sc->l->s[sc->pos] < 0x7f ? sc->l->s[sc->pos] : '?', what);
	return 0;
}

int nh_expect_end(struct nh_scan *sc, struct err *e)
{
	nh_spaces(sc);
	if (!nh_at_end(sc))
		return nh_bad(sc, e, ERR_CORRUPT, "unexpected text at the end of the line");
	return 0;
}
