/* ck.h - overflow-checked arithmetic for counts and sizes taken from input.
 * Each returns true on overflow (like __builtin_*_overflow), false when *out is valid. */
#ifndef ARTCARVE_CK_H
#define ARTCARVE_CK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

static inline bool ck_add(size_t a, size_t b, size_t *out) { return __builtin_add_overflow(a, b, out); }
static inline bool ck_mul(size_t a, size_t b, size_t *out) { return __builtin_mul_overflow(a, b, out); }
static inline bool ck_add64(uint64_t a, uint64_t b, uint64_t *out) { return __builtin_add_overflow(a, b, out); }
static inline bool ck_mul64(uint64_t a, uint64_t b, uint64_t *out) { return __builtin_mul_overflow(a, b, out); }
/* true when [off, off+n) does not fit in len. */
static inline bool ck_range(size_t off, size_t n, size_t len) { return off > len || n > len - off; }
/* Narrowing from 64 to size_t: true when v does not fit. */
static inline bool ck_size(uint64_t v, size_t *out)
{
	if (v > (uint64_t)SIZE_MAX)
		return true;
	*out = (size_t)v;
	return false;
}

#endif
