/* hprof.h - the HPROF format (JAVA PROFILE 1.0, 1.0.1, 1.0.2, 1.0.3): record and sub-record
 * tags, basic types and their names.  Reading is output/hprof/hprof_reader.h, writing
 * output/hprof/hprof_writer.h.
 *
 * Format reference (doc/sources.md): jdk-sa HeapHprofBinWriter.java format
 * comment; art runtime/hprof/hprof.cc for the Android 1.0.3 extensions).  Every number is
 * big-endian; identifiers are id_size (4 or 8) bytes wide. */
#ifndef ARTCARVE_HPROF_H
#define ARTCARVE_HPROF_H

#include <stdbool.h>
#include <stdint.h>

#define HPROF_RECORD_HEADER 9   /* u1 tag, u4 time, u4 length */

/* Top-level record tags (HeapHprofBinWriter.java). */
enum hprof_tag {
	HPROF_STRING = 0x01,
	HPROF_LOAD_CLASS = 0x02,
	HPROF_UNLOAD_CLASS = 0x03,
	HPROF_STACK_FRAME = 0x04,
	HPROF_STACK_TRACE = 0x05,
	HPROF_ALLOC_SITES = 0x06,
	HPROF_HEAP_SUMMARY = 0x07,
	HPROF_START_THREAD = 0x0a,
	HPROF_END_THREAD = 0x0b,
	HPROF_HEAP_DUMP = 0x0c,
	HPROF_CPU_SAMPLES = 0x0d,
	HPROF_CONTROL_SETTINGS = 0x0e,
	HPROF_HEAP_DUMP_SEGMENT = 0x1c,
	HPROF_HEAP_DUMP_END = 0x2c,
};

/* Heap dump sub-record tags (A.5, Android A.6). */
enum hprof_sub_tag {
	HPROF_ROOT_UNKNOWN = 0xff,
	HPROF_ROOT_JNI_GLOBAL = 0x01,
	HPROF_ROOT_JNI_LOCAL = 0x02,
	HPROF_ROOT_JAVA_FRAME = 0x03,
	HPROF_ROOT_NATIVE_STACK = 0x04,
	HPROF_ROOT_STICKY_CLASS = 0x05,
	HPROF_ROOT_THREAD_BLOCK = 0x06,
	HPROF_ROOT_MONITOR_USED = 0x07,
	HPROF_ROOT_THREAD_OBJECT = 0x08,
	HPROF_CLASS_DUMP = 0x20,
	HPROF_INSTANCE_DUMP = 0x21,
	HPROF_OBJ_ARRAY_DUMP = 0x22,
	HPROF_PRIM_ARRAY_DUMP = 0x23,
	/* Android 1.0.3 */
	HPROF_HEAP_DUMP_INFO = 0xfe,
	HPROF_ROOT_INTERNED_STRING = 0x89,
	HPROF_ROOT_FINALIZING = 0x8a,
	HPROF_ROOT_DEBUGGER = 0x8b,
	HPROF_ROOT_REFERENCE_CLEANUP = 0x8c,
	HPROF_ROOT_VM_INTERNAL = 0x8d,
	HPROF_ROOT_JNI_MONITOR = 0x8e,
	HPROF_ROOT_UNREACHABLE = 0x90,
	HPROF_PRIM_ARRAY_NODATA = 0xc3,
};

/* Basic type codes (A.3). */
enum hprof_type {
	HPROF_T_OBJECT = 2,
	HPROF_T_BOOLEAN = 4,
	HPROF_T_CHAR = 5,
	HPROF_T_FLOAT = 6,
	HPROF_T_DOUBLE = 7,
	HPROF_T_BYTE = 8,
	HPROF_T_SHORT = 9,
	HPROF_T_INT = 10,
	HPROF_T_LONG = 11,
};

/* Android heap ids in HEAP_DUMP_INFO (art HprofHeapId). */
/* ART's dummy STACK_TRACE (runtime/hprof/hprof.cc @R11 WriteStackTraces, "so the analysis
 * tools don't freak out"): serial 0, thread 0, no frames.  Every object and class names trace
 * serial 0, and AOSP's ahat rejects a file where it is referenced before defined. */
enum { HPROF_NULL_TRACE_BODY = 12 };   /* u4 serial, u4 thread serial, u4 frame count: all 0 */

/* The STRING text, followed by the image's SHA-256 in hex, with which a carved heap.hprof
 * records its image (hprof_carve.h); no record names it, and crunch keeps it in clear. */
#define HPROF_PROVENANCE "artcarve:image-sha256="

enum { HPROF_HEAP_DEFAULT = 0, HPROF_HEAP_APP = 'A', HPROF_HEAP_IMAGE = 'I', HPROF_HEAP_ZYGOTE = 'Z' };

/* Size of a value of basic type `type`: object = id_size; 0 for an unknown type code. */
unsigned hprof_type_size(unsigned type, unsigned id_size);
/* Short names: "object", "boolean", ... "long"; NULL for an unknown code. */
const char *hprof_type_name(unsigned type);
/* "STRING", "HEAP_DUMP_SEGMENT", ...; NULL if unknown. */
const char *hprof_tag_name(unsigned tag);
/* "ROOT_UNKNOWN", "CLASS_DUMP", "HEAP_DUMP_INFO", ...; NULL if unknown. */
const char *hprof_sub_name(unsigned tag);
/* True for the root sub-records (standard and Android). */
bool hprof_sub_is_root(unsigned tag);

#endif
