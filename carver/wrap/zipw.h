/* zipw.h - read-only ZIP archives (JAR, APK): central directory walk and entry extraction.
 * The only includer of <zlib.h>.
 *
 * Format: PKWARE APPNOTE.TXT 6.3 sections 4.3.7 (local file header), 4.3.12 (central
 * directory header), 4.3.16 (end of central directory).  Works on a borrowed buffer (an mmap);
 * entries are located through the central directory only.  ZIP64 archives (EOCD fields at
 * 0xFFFF/0xFFFFFFFF or a ZIP64 locator), encrypted entries and methods other than stored (0)
 * and deflate (8) are refused with -ERR_UNSUP. */
#ifndef ARTCARVE_ZIPW_H
#define ARTCARVE_ZIPW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "carver/base/cursor.h"
#include "carver/base/err.h"

struct zipw {
	struct cursor file;     /* whole archive, borrowed */
	uint64_t cd_offset, cd_size;
	uint32_t entry_count;
	const char *label;
};

struct zipw_entry {
	const uint8_t *name;    /* borrowed, not NUL-terminated */
	size_t name_len;
	uint16_t flags, method;
	uint32_t crc32;
	uint64_t csize, usize, local_offset;
	uint64_t offset;        /* file offset of its central directory header */
};

struct zipw_iter { struct cursor cd; uint32_t left; };

/* "PK\3\4" or "PK\5\6" (empty archive) at the start.  Sets no error. */
bool zipw_probe(const uint8_t *data, size_t len);
/* Finds the end-of-central-directory record and bounds the central directory. */
int zipw_open(struct zipw *z, const uint8_t *data, size_t len, const char *label, struct err *e);
void zipw_iter_init(const struct zipw *z, struct zipw_iter *it);
/* 1 and *out filled, 0 after the last entry, <0 on a damaged directory. */
int zipw_next(struct zipw_iter *it, struct zipw_entry *out, struct err *e);
/* The central directory entry at file offset `offset` (an entry's .offset from zipw_next), read
 * again: lets a caller keep 8 bytes per entry instead of the entry.  The offset must lie in the
 * central directory and start a whole entry inside it. */
int zipw_entry_at(const struct zipw *z, uint64_t offset, struct zipw_entry *out, struct err *e);
/* The entry's uncompressed bytes in a new xmalloc'd buffer (*out, caller frees with xfree),
 * checked against its CRC-32.  Entries larger than max bytes are refused (-ERR_UNSUP). */
int zipw_extract(const struct zipw *z, const struct zipw_entry *en, size_t max, uint8_t **out, size_t *len,
		 struct err *e);

#endif
