/* cursor.h - the one bounded reader for untrusted bytes.
 *
 * A cursor borrows [base, base+len) and reads from pos.  `va` is the file offset or
 * virtual address of base[0]; errors name va+pos so a report points at the byte.
 * Every read returns 0 or -ERR_TRUNC/-ERR_CORRUPT, passes its value through an out
 * parameter, and leaves pos unchanged on failure.  Bounds are checked as
 * `n > len - pos`, never `p + n > end`. */
#ifndef ARTCARVE_CURSOR_H
#define ARTCARVE_CURSOR_H

#include <stddef.h>
#include <stdint.h>

#include "carver/base/err.h"

struct cursor {
	const uint8_t *base;
	size_t len;
	size_t pos;     /* invariant: pos <= len */
	uint64_t va;    /* offset/address of base[0] */
};

void cur_init(struct cursor *c, const uint8_t *p, size_t len, uint64_t va);
static inline size_t cur_remaining(const struct cursor *c) { return c->len - c->pos; }
static inline uint64_t cur_where(const struct cursor *c) { return c->va + c->pos; }
static inline const uint8_t *cur_ptr(const struct cursor *c) { return c->base + c->pos; }

/* A cursor over [off, off+n) of c (relative to base, not pos). */
int cur_sub(const struct cursor *c, size_t off, size_t n, struct cursor *out, struct err *e);
/* Takes the next n bytes as a sub-cursor and advances past them. */
int cur_take(struct cursor *c, size_t n, struct cursor *out, struct err *e);
int cur_seek(struct cursor *c, size_t pos, struct err *e);
int cur_skip(struct cursor *c, size_t n, struct err *e);
int cur_need(const struct cursor *c, size_t n, struct err *e);
int cur_bytes(struct cursor *c, size_t n, const uint8_t **p, struct err *e);

int cur_u8(struct cursor *c, uint8_t *v, struct err *e);
int cur_u16le(struct cursor *c, uint16_t *v, struct err *e);
int cur_u32le(struct cursor *c, uint32_t *v, struct err *e);
int cur_u64le(struct cursor *c, uint64_t *v, struct err *e);
int cur_u16be(struct cursor *c, uint16_t *v, struct err *e);
int cur_u32be(struct cursor *c, uint32_t *v, struct err *e);
int cur_u64be(struct cursor *c, uint64_t *v, struct err *e);
/* Big-endian unsigned of width 1, 2, 4 or 8 (HPROF identifiers). */
int cur_uNbe(struct cursor *c, unsigned width, uint64_t *v, struct err *e);
/* Little-endian pointer of width 4 or 8 (ART references). */
int cur_uNle(struct cursor *c, unsigned width, uint64_t *v, struct err *e);

/* DEX ULEB128, at most 5 bytes, value must fit 32 bits. */
int cur_uleb128(struct cursor *c, uint32_t *v, struct err *e);
int cur_sleb128(struct cursor *c, int32_t *v, struct err *e);
/* Protobuf-style base-128 varint (BMD), at most 10 bytes. */
int cur_varint64(struct cursor *c, uint64_t *v, struct err *e);

/* Fixed-position little-endian peeks relative to base, no movement (for offset tables). */
int cur_peek_u32le(const struct cursor *c, size_t off, uint32_t *v, struct err *e);
int cur_peek_u64le(const struct cursor *c, size_t off, uint64_t *v, struct err *e);

/* Raw decoders for bytes already bounds-checked. */
static inline uint16_t ld_u16le(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static inline uint32_t ld_u32le(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t ld_u64le(const uint8_t *p) { return ld_u32le(p) | (uint64_t)ld_u32le(p + 4) << 32; }
static inline uint16_t ld_u16be(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static inline uint32_t ld_u32be(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}
static inline uint64_t ld_u64be(const uint8_t *p) { return (uint64_t)ld_u32be(p) << 32 | ld_u32be(p + 4); }

#endif
