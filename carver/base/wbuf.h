/* wbuf.h - growable output buffer with the encoders the writers need
 * (big-endian for HPROF, base-128 varints for BMD, little-endian for ART). */
#ifndef ARTCARVE_WBUF_H
#define ARTCARVE_WBUF_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "carver/base/err.h"

struct wbuf {
	uint8_t *data;
	size_t len, cap;
	int failed;     /* sticky: an allocation failed; later appends are no-ops */
	size_t align;   /* 0, or data's alignment (wbuf_init_aligned) */
};

void wbuf_init(struct wbuf *b);
/* data stays aligned to align bytes (a power of two) as it grows: for O_DIRECT writes. */
void wbuf_init_aligned(struct wbuf *b, size_t align);
void wbuf_release(struct wbuf *b);
static inline void wbuf_reset(struct wbuf *b) { b->len = 0; }
int wbuf_reserve(struct wbuf *b, size_t extra);
void wbuf_put_slow(struct wbuf *b, const void *p, size_t n);
/* Inline while the buffer has room (the text writers put tens of millions of small pieces);
 * the growth, and a failed buffer, go through wbuf_put_slow. */
static inline void wbuf_put(struct wbuf *b, const void *p, size_t n)
{
	if (b->failed || b->cap - b->len < n) {
		wbuf_put_slow(b, p, n);
		return;
	}
	if (n) {
		memcpy(b->data + b->len, p, n);
		b->len += n;
	}
}
static inline void wbuf_u8(struct wbuf *b, uint8_t v)
{
	if (b->failed || b->cap == b->len) {
		wbuf_put_slow(b, &v, 1);
		return;
	}
	b->data[b->len++] = v;
}
void wbuf_u16be(struct wbuf *b, uint16_t v);
void wbuf_u32be(struct wbuf *b, uint32_t v);
void wbuf_u64be(struct wbuf *b, uint64_t v);
void wbuf_uNbe(struct wbuf *b, unsigned width, uint64_t v);
void wbuf_u16le(struct wbuf *b, uint16_t v);
void wbuf_u32le(struct wbuf *b, uint32_t v);
void wbuf_u64le(struct wbuf *b, uint64_t v);
void wbuf_varint64_slow(struct wbuf *b, uint64_t v);
/* Base-128 varint, least significant group first; inline while the buffer has room for the
 * longest (10 bytes), which is nearly always (the BMD writers put millions of them). */
static inline void wbuf_varint64(struct wbuf *b, uint64_t v)
{
	uint8_t *p;

	if (b->failed || b->cap - b->len < 10) {
		wbuf_varint64_slow(b, v);
		return;
	}
	p = b->data + b->len;
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	b->len = (size_t)(p - b->data);
}
void wbuf_zeros(struct wbuf *b, size_t n);
/* Text without printf (the writers of millions of lines): a NUL-terminated string, an
 * unsigned decimal, lower-case hex digits without prefix. */
static inline void wbuf_str(struct wbuf *b, const char *s) { wbuf_put(b, s, strlen(s)); }
/* A string literal, its length known at compile time. */
#define WBUF_LIT(b, s) wbuf_put((b), (s), sizeof(s) - 1)
void wbuf_dec(struct wbuf *b, uint64_t v);
void wbuf_hex(struct wbuf *b, uint64_t v);
/* The lower-case hex digits, '0'..'f' (the tool's one table of them). */
extern const char hex_lower_digits[17];
/* n bytes as 2n lower-case hex digits into out (no terminator), a byte's pair at a time. */
void hex_encode(char *out, const uint8_t *d, size_t n);
/* Appends n bytes as 2n lower-case hex digits. */
void wbuf_hex_bytes(struct wbuf *b, const uint8_t *d, size_t n);
/* Appends code point cp (<= 0x10ffff; surrogates are encoded as given) as UTF-8. */
void wbuf_utf8(struct wbuf *b, uint32_t cp);
void wbuf_printf(struct wbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Overwrites 4 bytes at off (for back-patched lengths); off+4 must be <= len. */
void wbuf_patch_u32be(struct wbuf *b, size_t off, uint32_t v);
/* 0, or -ERR_NOMEM (with a message) if any append failed. */
int wbuf_status(const struct wbuf *b, struct err *e);

#endif
