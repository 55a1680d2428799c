/* lz4w.c - see lz4w.h.  LZ4's API takes int sizes: every size is checked against
 * LZ4_MAX_INPUT_SIZE / INT_MAX before the call. */
#include "carver/wrap/lz4w.h"

#include <limits.h>
#include <lz4.h>
#include <lz4hc.h>

int lz4w_decompress_exact(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len,
			  uint64_t where, struct err *e)
{
	int got;

	if (src_len > (size_t)INT_MAX || dst_len > (size_t)INT_MAX)
		return ERR_SET(e, ERR_UNSUP, where,
			       "lz4 data at 0x%llx: %zu bytes into %zu exceeds the 2 GiB limit of lz4",
			       (unsigned long long)where, src_len, dst_len);
	got = LZ4_decompress_safe((const char *)src, (char *)dst, (int)src_len, (int)dst_len);
	if (got < 0)
		return ERR_SET(e, ERR_CORRUPT, where,
			       "lz4 data at 0x%llx (%zu bytes): malformed block (lz4 error %d)",
			       (unsigned long long)where, src_len, got);
	if ((size_t)got != dst_len)
		return ERR_SET(e, ERR_CORRUPT, where,
			       "lz4 data at 0x%llx (%zu bytes): decompressed to %d bytes, expected %zu",
			       (unsigned long long)where, src_len, got, dst_len);
	return 0;
}

size_t lz4w_bound(size_t n)
{
	if (n > LZ4_MAX_INPUT_SIZE)
		return 0;
	return (size_t)LZ4_compressBound((int)n);
}

int lz4w_compress(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_cap, int hc,
		  size_t *out_len, struct err *e)
{
	int cap = dst_cap > (size_t)INT_MAX ? INT_MAX : (int)dst_cap;
	int got;

	if (src_len > LZ4_MAX_INPUT_SIZE)
		return ERR_SET(e, ERR_UNSUP, ERR_NO_VA, "lz4: %zu bytes exceed the input limit", src_len);
	if (hc)
		got = LZ4_compress_HC((const char *)src, (char *)dst, (int)src_len, cap, LZ4HC_CLEVEL_DEFAULT);
	else
		got = LZ4_compress_default((const char *)src, (char *)dst, (int)src_len, cap);
	if (got <= 0 && src_len > 0)
		return ERR_SET(e, ERR_INTERNAL, ERR_NO_VA, "lz4: %zu bytes do not fit in %zu", src_len, dst_cap);
	*out_len = got > 0 ? (size_t)got : 0;
	return 0;
}
