/* bsearch.h - the one binary search over a sorted array.
 *
 * Every lookup of the shape "the last entry whose start is <= x" (a region, a mapping, a
 * symbol, an object-start index run) is bs_upper(...) - 1 when bs_upper is not 0; "the entry
 * whose key is x" is bs_lower(...) when that index is in range and its key equals x.  The key
 * is read through an accessor, key(base, i), so arrays of structs, of pointers and of plain
 * words all fit.  Both are static inline: where the accessor is a static function the compiler
 * inlines it too, and a lookup on a hot path (one per reference) is the plain loop. */
#ifndef ARTCARVE_BSEARCH_H
#define ARTCARVE_BSEARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint64_t (*bs_key_fn)(const void *base, size_t i);

/* Accessors for arrays of plain words. */
static inline uint64_t bs_key_u32(const void *base, size_t i) { return ((const uint32_t *)base)[i]; }
static inline uint64_t bs_key_u64(const void *base, size_t i) { return ((const uint64_t *)base)[i]; }

static inline size_t bs_search_(const void *base, size_t n, bs_key_fn key, uint64_t x, bool strict)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t k = key(base, mid);
		if (strict ? k < x : k <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The number of entries of base[0, n) (ascending by key) whose key is <= x: the index of the
 * first one above x, n if none. */
static inline size_t bs_upper(const void *base, size_t n, bs_key_fn key, uint64_t x)
{
	return bs_search_(base, n, key, x, false);
}

/* The number of entries whose key is < x: the index of the first one at or above x, n if none. */
static inline size_t bs_lower(const void *base, size_t n, bs_key_fn key, uint64_t x)
{
	return bs_search_(base, n, key, x, true);
}

/* The index of an entry whose key is x (the first of equal ones), SIZE_MAX if none. */
static inline size_t bs_find(const void *base, size_t n, bs_key_fn key, uint64_t x)
{
	size_t i = bs_lower(base, n, key, x);
	return i < n && key(base, i) == x ? i : SIZE_MAX;
}

#endif
