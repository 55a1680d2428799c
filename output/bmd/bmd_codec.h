/* bmd_codec.h - HPROF <-> BMD conversion, byte-compatible with Badoo's HprofCruncher and
 * BmdDecruncher (badoo/hprof-tools @ 5e5408e; doc/sources.md).
 *
 * Both directions are buffer -> sink: the input is borrowed (normally an mmap) and output
 * goes through a caller-supplied write function, so the commands stream to an atomic output
 * file and the fuzz targets to memory.  crunch reads the HPROF twice (as Badoo does) and keeps
 * only class layouts, the id maps and the root list; decrunch re-reads the BMD once per output
 * section instead of holding objects in memory.
 *
 * Beyond Badoo (README "crunch" / "decrunch" sections):
 *   - 8-byte identifier HPROF crunches: ids are renumbered densely from 1 exactly as for
 *     4-byte input, so the record stream is unchanged; a STRING record with id 0 and text
 *     "artcarve:id-size=8" right after the header records the original width (Badoo's
 *     decruncher writes it back as a harmless unreferenced string) and decrunch restores it.
 *   - decrunch --mat writes JAVA PROFILE 1.0.2 with heap dump segments and one HEAP_DUMP_END,
 *     strings before use, a LOAD_CLASS + CLASS_DUMP for every referenced class, and no LEGACY
 *     records (their ids were never renumbered). */
#ifndef ARTCARVE_BMD_CODEC_H
#define ARTCARVE_BMD_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "carver/base/err.h"
#include "carver/base/progress.h"
#include "carver/base/wbuf.h"
#include "output/bmd/bmd.h"

/* Where output bytes go.  write returns 0 or -code with *e set. */
struct bmd_sink {
	int (*write)(void *ctx, const void *p, size_t n, struct err *e);
	void *ctx;
};

#define BMD_MARKER_ID8 "artcarve:id-size=8"

/* ---- crunch ------------------------------------------------------------------------------------ */

struct bmd_crunch_opts {
	const char *const *keep_classes;        /* extra class names kept in clear with all fields */
	size_t keep_count;
	/* optional: called now and then with an input offset below which the current pass
	 * will not read again (lets a caller drop mapped pages); may be NULL */
	void (*consumed)(void *ctx, size_t upto);
	void *consumed_ctx;
	/* optional: a phase named progress_phase (default "crunching") of the bytes of both
	 * passes over the input (2 x len) */
	struct progress *progress;
	const char *progress_phase;
};

struct bmd_crunch_stats {
	uint64_t strings, hashed_strings, classes, instances, obj_arrays, prim_arrays, roots, legacy;
	uint64_t bytes_out;
	unsigned id_size;
};

/* HPROF (1.0.x, id size 4 or 8) -> BMD.  Returns 0 or -code with *e naming the offset. */
int bmd_crunch(const uint8_t *hprof, size_t len, const char *label, const struct bmd_crunch_opts *o,
	       const struct bmd_sink *out, struct bmd_crunch_stats *st, struct err *e);

/* bmd_crunch of the file at path, mapped read-only; the pages each pass has finished with
 * are handed back to the kernel (o->consumed is replaced), so resident memory stays small on
 * a big file.  o may be NULL.  Errors name the path. */
int bmd_crunch_file(const char *path, const struct bmd_crunch_opts *o, const struct bmd_sink *out,
		    struct bmd_crunch_stats *st, struct err *e);

/* Badoo's keepString: kept in clear when it starts with "java.lang", is one of V boolean byte
 * short char int long float double, or is listed in o (utf8 = the re-encoded string); and,
 * beyond Badoo, a carved heap's provenance (hprof.h HPROF_PROVENANCE). */
bool bmd_keep_string(const uint8_t *utf8, size_t len, const struct bmd_crunch_opts *o);

/* ---- decrunch ------------------------------------------------------------------------------------- */

struct bmd_dict;
struct bmd_jdk;

struct bmd_decrunch_opts {
	const struct bmd_dict *dict;    /* may be NULL (output/bmd/bmd_dict.h) */
	/* may be NULL: a JDK's class library (bmd_jdk_open, output/bmd/bmd_dict.h) whose class and
	 * field names are used after dict for a hashed string whose hash and original length both
	 * match (a JVM dump's own classes and fields: java/lang/System, props, ... that heap
	 * readers look up by name).  Only the classes the BMD's hashed strings may name are read,
	 * once the first pass has seen every string; that pass holds its string output back until
	 * then, so the output is the same wherever the strings lie in the BMD. */
	const struct bmd_jdk *jdk;
	bool mat;                       /* MAT-loadable 1.0.2 output instead of Badoo's */
	unsigned id_size;               /* 0: 8 if the BMD carries the id-size marker, else 4 */
	uint64_t max_output;            /* 0: no limit; else fail before writing more */
	size_t segment_cap;             /* --mat heap dump segment size; 0 = 1 MiB */
	/* optional: called now and then with an offset below which the current pass will not
	 * read the BMD again (later passes start over at 0); lets a caller drop mapped pages */
	void (*consumed)(void *ctx, size_t upto);
	void *consumed_ctx;
};

struct bmd_decrunch_stats {
	uint64_t strings, hashed_strings, recovered, classes, instances, obj_arrays, prim_arrays, roots,
		legacy, synthesized_classes, bytes_out;
	unsigned id_size;
};

int bmd_decrunch(const uint8_t *bmd, size_t len, const char *label, const struct bmd_decrunch_opts *o,
		 const struct bmd_sink *out, struct bmd_decrunch_stats *st, struct err *e);

/* Iteration order of a Java HashMap<Integer, V> whose distinct keys were inserted in the
 * given order (a re-put keeps its place): fills order[] with indices into keys.  Models
 * the table growth and bucket order of java.util.HashMap (JDK 8+). */
int bmd_java_hashmap_order(const uint32_t *keys, size_t n, size_t *order, struct err *e);

#endif
