/* ndump.h - parser of "Android Native Heap Dump" files v1.0, v1.1 and v1.2: the text `am
 * dumpheap -n` writes (frameworks/base core/jni/android_os_Debug.cpp dumpNativeHeap), and
 * malloc_debug writes on its dump signal, at exit or through android_mallopt (bionic
 * libc/malloc_debug/malloc_debug.cpp write_dump, PointerData.cpp DumpLiveToFile).  Layout
 * and sources: doc/malloc-debug.md, section "Native heap dump files".
 *
 *   Android Native Heap Dump v1.2          version line
 *                                          blank lines anywhere in the header
 *   Build fingerprint: 'FINGERPRINT'       v1.2 only
 *   Total memory: N                        sum of size * num of the records
 *   Allocation records: N
 *   Backtrace size: N                      maximum frames per record
 *   z Z  sz SIZE  num NUM  bt PC PC ...    one per (size, backtrace); PCs hex, zero-padded
 *                                          to the pointer width in v1.0/v1.1
 *     bt_info {"MAP" RELPC "FUNC" OFF} ... v1.2 with backtrace_full: one per frame
 *   MAPS                                   /proc/self/maps of the process, verbatim
 *   START-END PERMS OFFSET DEV INODE NAME
 *   END
 *
 * The parser streams: each record and map line goes to a sink as soon as it is complete, so
 * memory does not grow with the file.  Malformed text is one -ERR_CORRUPT naming the file,
 * line and column; a text that stops before END is -ERR_TRUNC saying what was read (the
 * sink has seen it all by then). */
#ifndef ARTCARVE_NDUMP_H
#define ARTCARVE_NDUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "carver/base/err.h"
#include "carver/base/mapfile.h"
#include "carver/image/maps.h"

/* malloc_debug caps backtrace frames at 256 (Config.cpp, backtrace=MAX_FRAMES) */
#define NDUMP_MAX_FRAMES 256

struct ndump_header {
	unsigned minor;                 /* 0, 1, 2 of v1.N */
	const char *fingerprint;        /* v1.2 "Build fingerprint", borrowed; NULL if none */
	size_t fingerprint_len;
	bool has_total, has_records, has_bt_size;
	uint64_t total_memory, alloc_records, bt_size;
	uint64_t line;                  /* line of the version text */
};

/* One element of a v1.2 bt_info line (strings borrowed from the text). */
struct ndump_frame_info {
	const char *map, *func;
	size_t map_len, func_len;
	uint64_t rel_pc, func_off;
};

struct ndump_record {
	bool zygote_child;              /* z 1: allocated after the fork from the zygote */
	uint64_t size, num;
	size_t nframes;
	const uint64_t *frames;         /* nframes PCs, frame 0 innermost */
	size_t ninfo;                   /* bt_info elements (0: no bt_info line) */
	const struct ndump_frame_info *info;
	uint64_t line;
};

struct ndump_sink {
	void *ctx;
	int (*header)(void *ctx, const struct ndump_header *h, struct err *e);
	int (*record)(void *ctx, const struct ndump_record *r, struct err *e);
	/* a MAPS line (name borrowed until the call returns) */
	int (*map)(void *ctx, const struct maps_entry *m, struct err *e);
};

/* What a parse read: complete when END was seen; lines and bytes up to where it stopped. */
struct ndump_stats {
	uint64_t records, map_lines, lines, bytes;
	bool header_done, in_maps, ended, maps_unreadable;
};

/* Parses text[0, len) named path (for messages); drop: the read-only mapping of the text
 * (its pages are handed back as the parse moves on, see nheap_text.h), or NULL.  Returns 0 (END seen), -ERR_TRUNC (the
 * text ends early; *st says what was read), -ERR_CORRUPT, -ERR_UNSUP (another version) or
 * the first error a sink callback returns. */
int ndump_parse(const uint8_t *text, size_t len, const char *path, const struct mapfile *drop,
		const struct ndump_sink *sink, struct ndump_stats *st, struct err *e);

/* True when text starts with the version line of a native heap dump (any version). */
bool ndump_sniff(const uint8_t *text, size_t len);

#endif
