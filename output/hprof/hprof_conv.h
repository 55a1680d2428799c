/* hprof_conv.h - Android HPROF (1.0.3) to standard HPROF (1.0.2), as AOSP/Debian hprof-conv.
 *
 * What changes (hprof-conv, tools/hprof-conv/HprofConv.c; doc/sources.md): header "JAVA PROFILE 1.0.3" becomes 1.0.2;
 * in HEAP_DUMP / HEAP_DUMP_SEGMENT bodies HEAP_DUMP_INFO is dropped, the Android roots
 * 0x89-0x8d and 0x90 become ROOT_UNKNOWN (id kept), ROOT_JNI_MONITOR becomes ROOT_UNKNOWN
 * without its 8 trailing bytes, PRIMITIVE_ARRAY_NODATA becomes an empty PRIMITIVE_ARRAY_DUMP
 * (trace serial zeroed as hprof-conv does, and element count 0 so the record stays
 * well-formed; hprof-conv keeps the count); every heap dump record length is recomputed.
 * Everything else (other records, standard sub-records, record times, the id size and the
 * timestamp) is copied unchanged.  Two deliberate differences from hprof-conv: input that is
 * already 1.0.1/1.0.2 (or 1.0) is accepted and passes through with its header unchanged, and
 * a heap dump record whose converted body would be empty is left out instead of written with
 * length 0 (VisualVM rejects those).
 *
 * app_only (hprof-conv -z): additionally drops INSTANCE, OBJECT_ARRAY and PRIMITIVE_ARRAY
 * dumps that a HEAP_DUMP_INFO placed in a heap other than "app" (0x41); CLASS_DUMPs and roots
 * are kept.  The current heap resets at each heap dump record (art StartNewHeapDumpSegment);
 * objects before any HEAP_DUMP_INFO (the default heap, e.g. all of a JVM dump) are kept.
 *
 * Streaming: one pass; a heap dump record's length is patched once its body is out (in the
 * output buffer, or in the file through outf_patch), and with drop_behind the input pages
 * behind the cursor go back to the kernel every 128 KiB, so memory stays a few hundred KiB
 * whatever the size of the input or of one record. */
#ifndef ARTCARVE_HPROF_CONV_H
#define ARTCARVE_HPROF_CONV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "carver/base/err.h"
#include "carver/base/outfile.h"

struct hprof_conv_opts {
	bool app_only;
	bool drop_behind;       /* data is the caller's private mmap (see hprof_reader.drop_behind) */
};

struct hprof_conv_stats {
	uint64_t records_in, records_out;
	uint64_t subs_in, subs_out;
	uint64_t dropped_objects;      /* app_only */
	uint64_t dropped_segments;     /* heap dump records left out because they became empty */
};

/* Converts the HPROF in data[0, len) and writes it to out (the caller commits or aborts).
 * -ERR_TRUNC/-ERR_CORRUPT/-ERR_UNSUP with the offset for bad input, -ERR_IO/-ERR_NOMEM. */
int hprof_conv(const uint8_t *data, size_t len, const char *label, struct outf *out,
	       const struct hprof_conv_opts *opts, struct hprof_conv_stats *stats, struct err *e);

#endif
