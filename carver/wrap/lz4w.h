/* lz4w.h - the one wrapper around liblz4 (LZ4 block format, as ART stores compressed
 * image data: LZ4 and LZ4HC write the same block format, runtime/image.cc). */
#ifndef ARTCARVE_LZ4W_H
#define ARTCARVE_LZ4W_H

#include <stddef.h>
#include <stdint.h>

#include "carver/base/err.h"

/* Decompresses the LZ4 block [src, src+src_len) into exactly dst_len bytes at dst.
 * Output never exceeds dst_len; anything other than exactly dst_len bytes produced is
 * -ERR_CORRUPT naming `where` (the offset of the compressed data in the input). */
int lz4w_decompress_exact(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len,
			  uint64_t where, struct err *e);

/* Compresses src into dst (capacity dst_cap); *out_len = bytes written.  For tools and
 * tests that build compressed images; hc selects LZ4HC. */
int lz4w_compress(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_cap, int hc,
		  size_t *out_len, struct err *e);
/* Worst-case compressed size of n bytes, 0 if n is too large for LZ4. */
size_t lz4w_bound(size_t n);

#endif
