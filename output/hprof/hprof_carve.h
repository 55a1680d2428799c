/* hprof_carve.h - a carved heap (rosalloc/model) as an HPROF heap dump.
 *
 * Standard flavour (`JAVA PROFILE 1.0.2`, what Eclipse MAT, VisualVM and jhat read), or
 * Android's 1.0.3 (HEAP_DUMP_INFO per space kind, Android root tags) for Android Studio.
 * Identifier size 4; object ids are the objects' addresses; class ids the Class objects'.
 * Order (what Eclipse MAT's Pass1Parser and VisualVM's loader need): the image's SHA-256 as a
 * STRING no record names, every STRING before its first use, LOAD_CLASS for every class of
 * the runtime model and the mark classes, ART's dummy STACK_TRACE of serial 0 (what every
 * record names as its trace: AOSP's ahat needs it defined), then heap
 * dump segments of about 1 MiB (roots, CLASS_DUMPs, objects in address order, the mark
 * arrays) and one HEAP_DUMP_END.  The objects are rendered by chunks of 32,768 (on
 * o->threads threads), each starting a segment; a mark array is written after the chunk
 * that fills it.  The same model gives the same bytes for any thread count (timestamp 0, ids
 * in a fixed order).
 *
 * What each object becomes follows ART's own writer (runtime/hprof/hprof.cc @R11), so a
 * carved heap compares field by field with the runtime's HPROF:
 *   Class objects   CLASS_DUMP: super, class loader, instance size (object_size_; 0 for
 *                   java.lang.Class, arrays and primitives; the fixed part for String), the
 *                   static fields with their values read from the Class object, and the
 *                   class's own instance fields in declaration order;
 *   instances       INSTANCE_DUMP: field values big-endian, the class's fields then its
 *                   super class's, up to java.lang.Object;
 *   strings (6.0+)  an instance whose count field holds the length (not the compression
 *                   flag), plus a field `value` naming a PRIMITIVE_ARRAY_DUMP of the
 *                   characters (byte[] when stored 8-bit, char[] otherwise) with id =
 *                   address + offset of the characters (+8 for an empty string): these
 *                   arrays are not objects of the heap;
 *   arrays          OBJECT_ARRAY_DUMP with the array class, PRIMITIVE_ARRAY_DUMP.
 *
 * States follow output/hprof/hprof_mark.h: the objects whose states differ from allocated,
 * intact, reachable are listed in mark arrays (OBJECT_ARRAY_DUMPs of the synthetic classes
 * artcarve.mark.Free[], Partial[], Residue[], Unreachable[], Unknown[], ids counting down
 * by 16 from 0xfffffff1), each array a ROOT_UNKNOWN so that Eclipse MAT keeps the marked
 * objects (it drops what no root reaches) and shows them under the mark class.
 * By default only allocated objects are written (as the runtime's own HPROF: every
 * allocated object of the spaces, reachable or not); free objects are added on request. */
#ifndef ARTCARVE_HPROF_CARVE_H
#define ARTCARVE_HPROF_CARVE_H

#include <stdbool.h>
#include <stdint.h>

#include "carver/base/err.h"
#include "carver/base/outfile.h"
#include "output/hprof/hprof_mark.h"
#include "rosalloc/model/model.h"
#include "rosalloc/model/reach.h"

struct hprof_carve_opts {
	bool android;           /* 1.0.3 with HEAP_DUMP_INFO and Android root tags */
	bool include_partial;   /* free objects whose leading words the allocator overwrote */
	bool include_residue;   /* free objects whose bytes are as the allocator left them */
	const char *image_sha256;   /* digest text (img_sha256): written first as the STRING
				     * HPROF_PROVENANCE + it; NULL none */
	/* threads that render the heap dump's objects, chunk by chunk (carver/base/ordered.h),
	 * written in address order on the caller's: the same bytes for every count; 0 or 1:
	 * all on the caller's thread */
	unsigned threads;
};

struct hprof_carve_stats {
	uint64_t classes, instances, obj_arrays, prim_arrays, strings, string_arrays, roots;
	uint64_t free_objects;  /* free objects written (--include) */
	uint64_t marked[HPROF_MARK_COUNT];   /* objects listed per mark */
	uint64_t mark_arrays;
	uint64_t alias_windows; /* AddressAlias instances (and then one class): hprof_mark.h */
	uint64_t walk_gaps;     /* WalkGap instances (and then one class): hprof_mark.h */
	uint64_t damaged_classes;  /* CLASS_DUMPs written without their static values (not
				    * captured, past the Class's size) or fields (past HPROF's counts) */
	char damaged_why[192];     /* the first one's reason */
	uint64_t damaged_objects;  /* INSTANCE_DUMPs whose fields run past the object's size (its
				    * class's object_size_ damaged): those fields written as zero */
	char damaged_objects_why[192];   /* the first one's address and reason */
	uint64_t bytes;         /* file size */
};

/* Writes the model (after model_finish and reach_run) to out.  Returns 0 or -ERR_* (I/O,
 * memory, an object whose bytes no longer read). */
int hprof_carve_write(const struct model *m, const struct reach *r, const struct hprof_carve_opts *o,
		      struct outf *out, struct hprof_carve_stats *st, struct err *e);

#endif
