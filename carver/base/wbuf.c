/* wbuf.c - see wbuf.h. */
#include "carver/base/wbuf.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "carver/base/ck.h"
#include "carver/base/xalloc.h"

void wbuf_init(struct wbuf *b) { memset(b, 0, sizeof(*b)); }

void wbuf_init_aligned(struct wbuf *b, size_t align)
{
	wbuf_init(b);
	b->align = align;
}

/* A bigger block keeping the alignment (realloc would not): the bytes are copied over. */
static uint8_t *wbuf_grow_aligned(struct wbuf *b, size_t cap)
{
	uint8_t *p = xmalloc_aligned(b->align, cap);
	if (p && b->len)
		memcpy(p, b->data, b->len);
	if (p)
		xfree(b->data);
	return p;
}

void wbuf_release(struct wbuf *b)
{
	xfree(b->data);
	wbuf_init_aligned(b, b->align);
}

int wbuf_reserve(struct wbuf *b, size_t extra)
{
	size_t need, cap;
	uint8_t *p;

	if (b->failed)
		return -1;
	if (ck_add(b->len, extra, &need)) {
		b->failed = 1;
		return -1;
	}
	if (need <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 256;
	while (cap < need) {
		if (ck_mul(cap, 2, &cap)) {
			cap = need;
			break;
		}
	}
	p = b->align ? wbuf_grow_aligned(b, cap) : xrealloc(b->data, cap);
	if (!p) {
		b->failed = 1;
		return -1;
	}
	b->data = p;
	b->cap = cap;
	return 0;
}

void wbuf_put_slow(struct wbuf *b, const void *p, size_t n)
{
	if (n == 0 || wbuf_reserve(b, n))
		return;
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

void wbuf_uNbe(struct wbuf *b, unsigned width, uint64_t v)
{
	uint8_t t[8];
	for (unsigned i = 0; i < width && i < 8; i++)
		t[i] = (uint8_t)(v >> (8 * (width - 1 - i)));
	wbuf_put(b, t, width < 8 ? width : 8);
}

void wbuf_u16be(struct wbuf *b, uint16_t v) { wbuf_uNbe(b, 2, v); }
void wbuf_u32be(struct wbuf *b, uint32_t v) { wbuf_uNbe(b, 4, v); }
void wbuf_u64be(struct wbuf *b, uint64_t v) { wbuf_uNbe(b, 8, v); }

static void wbuf_uNle(struct wbuf *b, unsigned width, uint64_t v)
{
	uint8_t t[8];
	for (unsigned i = 0; i < width; i++)
		t[i] = (uint8_t)(v >> (8 * i));
	wbuf_put(b, t, width);
}

void wbuf_u16le(struct wbuf *b, uint16_t v) { wbuf_uNle(b, 2, v); }
void wbuf_u32le(struct wbuf *b, uint32_t v) { wbuf_uNle(b, 4, v); }
void wbuf_u64le(struct wbuf *b, uint64_t v) { wbuf_uNle(b, 8, v); }

void wbuf_varint64_slow(struct wbuf *b, uint64_t v)
{
	uint8_t t[10];
	size_t n = 0;
	while (v >= 0x80) {
		t[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	t[n++] = (uint8_t)v;
	wbuf_put(b, t, n);
}

void wbuf_zeros(struct wbuf *b, size_t n)
{
	if (n == 0 || wbuf_reserve(b, n))
		return;
	memset(b->data + b->len, 0, n);
	b->len += n;
}

/* Whether n more bytes fit, growing the buffer when they do not (the call only then). */
static inline bool wbuf_room(struct wbuf *b, size_t n)
{
	return (!b->failed && b->cap - b->len >= n) || wbuf_reserve(b, n) == 0;
}

/* Decimal digits two at a time, from the right, ending at end (which the caller sized). */
static void wbuf_dec_digits(uint8_t *end, uint64_t v)
{
	static const char pairs[] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
				    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
				    "8081828384858687888990919293949596979899";
	while (v >= 100) {
		const char *p = pairs + 2 * (v % 100);
		v /= 100;
		*--end = (uint8_t)p[1];
		*--end = (uint8_t)p[0];
	}
	if (v >= 10) {
		*--end = (uint8_t)pairs[2 * v + 1];
		*--end = (uint8_t)pairs[2 * v];
	} else {
		*--end = (uint8_t)('0' + v);
	}
}

/* The digits written straight into the buffer, their count known first (no copy of a
 * variable length per number: the text writers put tens of millions). */
void wbuf_dec(struct wbuf *b, uint64_t v)
{
	size_t n = 1;
	for (uint64_t p = 10; n < 20 && v >= p; p *= 10)
		n++;
	if (!wbuf_room(b, n))
		return;
	b->len += n;
	wbuf_dec_digits(b->data + b->len, v);
}

const char hex_lower_digits[17] = "0123456789abcdef";

/* A byte's two digits at a time (a store per digit made hex_encode slow: byte[]s are a
 * heap's bulk). */
void hex_encode(char *out, const uint8_t *d, size_t n)
{
	static const char pairs[513] =   /* byte v's two digits at 2v */
		"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
		"202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
		"404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"
		"606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f"
		"808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"
		"a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
		"c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf"
		"e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";
	for (size_t i = 0; i < n; i++)
		memcpy(out + 2 * i, pairs + 2 * d[i], 2);
}

void wbuf_hex_bytes(struct wbuf *b, const uint8_t *d, size_t n)
{
	size_t len;
	if (ck_mul(n, 2, &len) || !wbuf_room(b, len))
		return;
	hex_encode((char *)b->data + b->len, d, n);
	b->len += len;
}

/* The digits written straight into the buffer, their count known first (an address per
 * value in objects.jsonl). */
void wbuf_hex(struct wbuf *b, uint64_t v)
{
	const char *hex = hex_lower_digits;
	size_t n = (size_t)(64 - __builtin_clzll(v | 1) + 3) / 4;
	if (!wbuf_room(b, n))
		return;
	uint8_t *q = b->data + b->len;
	for (size_t i = n; i-- > 0; v >>= 4)
		q[i] = (uint8_t)hex[v & 15];
	b->len += n;
}

void wbuf_utf8(struct wbuf *b, uint32_t cp)
{
	uint8_t t[4];
	size_t n;

	if (cp < 0x80) {
		t[0] = (uint8_t)cp;
		n = 1;
	} else if (cp < 0x800) {
		t[0] = (uint8_t)(0xc0 | cp >> 6);
		n = 2;
	} else if (cp < 0x10000) {
		t[0] = (uint8_t)(0xe0 | cp >> 12);
		n = 3;
	} else {
		t[0] = (uint8_t)(0xf0 | (cp >> 18 & 0x07));
		n = 4;
	}
	for (size_t i = 1; i < n; i++)
		t[i] = (uint8_t)(0x80 | (cp >> (6 * (n - 1 - i)) & 0x3f));
	wbuf_put(b, t, n);
}

void wbuf_printf(struct wbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || wbuf_reserve(b, (size_t)n + 1))
		return;
	va_start(ap, fmt);
	vsnprintf((char *)b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void wbuf_patch_u32be(struct wbuf *b, size_t off, uint32_t v)
{
	if (b->failed || ck_range(off, 4, b->len))
		return;
	b->data[off] = (uint8_t)(v >> 24);
	b->data[off + 1] = (uint8_t)(v >> 16);
	b->data[off + 2] = (uint8_t)(v >> 8);
	b->data[off + 3] = (uint8_t)v;
}

int wbuf_status(const struct wbuf *b, struct err *e)
{
	if (b->failed)
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory growing a %zu-byte buffer", b->len);
	return 0;
}
