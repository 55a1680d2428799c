/* hash.h - FNV-1a 64 (Fowler/Noll/Vo: offset basis 0xcbf29ce484222325, prime 0x100000001b3),
 * the one byte hash of the tree: deterministic and dependency-free, for hash tables and
 * content checksums. */
#ifndef ARTCARVE_HASH_H
#define ARTCARVE_HASH_H

#include <stddef.h>
#include <stdint.h>

#define HASH_FNV1A64_INIT 0xcbf29ce484222325ull

/* Continues the hash h (HASH_FNV1A64_INIT to start) over n bytes at p. */
static inline uint64_t hash_fnv1a64_more(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

static inline uint64_t hash_fnv1a64(const void *p, size_t n) { return hash_fnv1a64_more(HASH_FNV1A64_INIT, p, n); }

#endif
