/* zstdw.h - zstd-compressed inputs (the corpus keeps its cores and HPROFs as *.zst).  The only
 * includer of <zstd.h>.
 *
 * Format: RFC 8878 (Zstandard), section 3.1.1 (frame magic 0xFD2FB528, little-endian) and
 * 3.1.2 (skippable frames 0x184D2A50-0x184D2A5F).  Decompression streams through a fixed
 * window; the output goes to an unlinked temporary file that is then mapped read-only, so
 * memory does not grow with the decompressed size and the caller reads it like any mapped
 * input (a struct mapfile). */
#ifndef ARTCARVE_ZSTDW_H
#define ARTCARVE_ZSTDW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "carver/base/err.h"
#include "carver/base/mapfile.h"

/* True when data starts with a zstd frame or a skippable frame.  Sets no error. */
bool zstdw_probe(const uint8_t *data, size_t len);

/* Decompresses every frame of in[0..len) into an unlinked temporary file in $TMPDIR (else
 * /tmp) and maps the result read-only into *out (out->path is a copy of label).  More than
 * max_out decompressed bytes are refused with -ERR_UNSUP (a few compressed bytes can ask
 * for terabytes).  Returns 0, -ERR_CORRUPT (damaged frame), -ERR_TRUNC (input ends inside a
 * frame), -ERR_IO (temporary file), -ERR_NOMEM.  Release *out with mapfile_close. */
int zstdw_map(const uint8_t *in, size_t len, const char *label, uint64_t max_out, struct mapfile *out,
	      struct err *e);

#endif
