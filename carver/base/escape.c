/* escape.c - JSON and bulk_extractor feature escaping (see escape.h). */
#include "carver/base/escape.h"

#include <stdbool.h>
#include <string.h>

static const char hex_upper[] = "0123456789ABCDEF";

static bool cont(uint8_t c) { return (c & 0xc0) == 0x80; }

size_t escape_utf8_seq(const uint8_t *s, size_t n, uint32_t *cp)
{
	if (n == 0)
		return 0;
	uint8_t c = s[0];
	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf && n >= 2 && cont(s[1])) {
		*cp = (uint32_t)(c & 0x1f) << 6 | (s[1] & 0x3f);
		return 2;
	}
	if (c >= 0xe0 && c <= 0xef && n >= 3 && cont(s[1]) && cont(s[2])) {
		uint32_t v = (uint32_t)(c & 0x0f) << 12 | (uint32_t)(s[1] & 0x3f) << 6 | (s[2] & 0x3f);
		if (v < 0x800)
			return 0;   /* overlong */
		*cp = v;
		return 3;
	}
	if (c >= 0xf0 && c <= 0xf4 && n >= 4 && cont(s[1]) && cont(s[2]) && cont(s[3])) {
		uint32_t v = (uint32_t)(c & 0x07) << 18 | (uint32_t)(s[1] & 0x3f) << 12 | (uint32_t)(s[2] & 0x3f) << 6 |
			     (s[3] & 0x3f);
		if (v < 0x10000 || v > 0x10ffff)
			return 0;
		*cp = v;
		return 4;
	}
	return 0;
}

static void put_u_escape(struct wbuf *b, uint32_t unit)
{
	const char *x = hex_lower_digits;
	char u[6] = { '\\', 'u', x[unit >> 12 & 15], x[unit >> 8 & 15], x[unit >> 4 & 15], x[unit & 15] };
	wbuf_put(b, u, sizeof(u));
}

#define BYTES(c) (0x0101010101010101ull * (c))

/* Whether a word holds a zero byte / a byte below c (<= 0x80) (the bit tricks of "Bit
 * Twiddling Hacks", exact for whether any byte does). */
static uint64_t zero_byte(uint64_t v) { return (v - BYTES(1)) & ~v & BYTES(0x80); }
static uint64_t byte_below(uint64_t v, uint8_t c) { return (v - BYTES(c)) & ~v & BYTES(0x80); }

/* Whether the 8 bytes at s are all plain (what plain_run keeps), tested at once. */
static bool plain_word(const uint8_t *s)
{
	uint64_t v;
	memcpy(&v, s, sizeof(v));
	return !(byte_below(v, 0x20) | (v & BYTES(0x80)) | zero_byte(v ^ BYTES(0x7f)) | zero_byte(v ^ BYTES('"')) |
		 zero_byte(v ^ BYTES('\\')));
}

/* Length of the run at s[0..n) of printable ASCII other than '"' and '\\': what both
 * escapings keep as it is (nearly all text), copied in one piece. */
static size_t plain_run(const uint8_t *s, size_t n)
{
	size_t k = 0;
	while (n - k >= 8 && plain_word(s + k))
		k += 8;
	while (k < n && s[k] >= 0x20 && s[k] < 0x7f && s[k] != '"' && s[k] != '\\')
		k++;
	return k;
}

/* Calls seq for each well-formed sequence of s[0..n) (its bytes and code point) and bad for
 * each byte that starts none; plain runs are copied without either. */
static void each_seq(struct wbuf *b, const uint8_t *s, size_t n,
		     void (*seq)(struct wbuf *, const uint8_t *, size_t, uint32_t), void (*bad)(struct wbuf *, uint8_t))
{
	for (size_t i = 0; i < n;) {
		uint32_t cp = 0;
		size_t k = plain_run(s + i, n - i);
		if (k) {
			wbuf_put(b, s + i, k);
			i += k;
			continue;
		}
		k = escape_utf8_seq(s + i, n - i, &cp);
		if (k == 0) {
			bad(b, s[i++]);
			continue;
		}
		seq(b, s + i, k, cp);
		i += k;
	}
}

static void json_bad(struct wbuf *b, uint8_t c)
{
	(void)c;
	put_u_escape(b, 0xfffd);
}

static void json_seq(struct wbuf *b, const uint8_t *p, size_t k, uint32_t cp)
{
	switch (cp) {
	case '"': wbuf_put(b, "\\\"", 2); return;
	case '\\': wbuf_put(b, "\\\\", 2); return;
	case '\b': wbuf_put(b, "\\b", 2); return;
	case '\f': wbuf_put(b, "\\f", 2); return;
	case '\n': wbuf_put(b, "\\n", 2); return;
	case '\r': wbuf_put(b, "\\r", 2); return;
	case '\t': wbuf_put(b, "\\t", 2); return;
	default:
		if (cp < 0x20 || cp == 0x7f || cp == 0x2028 || cp == 0x2029 || (cp >= 0xd800 && cp < 0xe000))
			put_u_escape(b, cp);
		else
			wbuf_put(b, p, k);
	}
}

void escape_json(struct wbuf *b, const uint8_t *s, size_t n)
{
	each_seq(b, s, n, json_seq, json_bad);
}

void escape_json_quoted(struct wbuf *b, const uint8_t *s, size_t n)
{
	wbuf_u8(b, '"');
	escape_json(b, s, n);
	wbuf_u8(b, '"');
}

/* A code point bulk_extractor keeps as it is (valid_utf8codepoint in unicode_escape.cpp). */
static bool be_valid(uint32_t cp)
{
	if (cp == 0xfffe || cp == 0xffff || (cp >= 0xd800 && cp <= 0xdfff))
		return false;
	if (cp < 0x10000)
		return true;
	return !((cp > 0x13fff && cp < 0x16000) || (cp > 0x16fff && cp < 0x1b000) || (cp > 0x1bfff && cp < 0x1d000) ||
		 (cp > 0x2bfff && cp < 0x2f000) || (cp >= 0x30000 && cp < 0xdffff) || cp > 0x10ffff);
}

static void put_x_escape(struct wbuf *b, uint8_t c)
{
	char x[4] = { '\\', 'x', hex_upper[c >> 4], hex_upper[c & 15] };
	wbuf_put(b, x, sizeof(x));
}

static void feature_seq(struct wbuf *b, const uint8_t *p, size_t k, uint32_t cp)
{
	if (be_valid(cp) && cp >= 0x20 && cp != '\\') {
		wbuf_put(b, p, k);
		return;
	}
	for (size_t i = 0; i < k; i++)
		put_x_escape(b, p[i]);
}

void escape_feature(struct wbuf *b, const uint8_t *s, size_t n)
{
	each_seq(b, s, n, feature_seq, put_x_escape);
}
