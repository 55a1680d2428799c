/* validate.h - compares a carved heap (RESULT) with the ground truth of the same moment (TRUTH):
 * which objects were found, which were invented, whether their fields, array elements and
 * String texts agree, and whether the states the carver gave them (allocation, content,
 * reachability) are right.
 *
 * Inputs, each a borrowed buffer (the caller maps the files; zstd is undone before):
 * - an HPROF (JAVA PROFILE 1.0.1/1.0.2/1.0.3, 4- or 8-byte ids) whose object ids are the
 *   objects' addresses: the runtime's own dump (ART's VMDebug.dumpHprofData), artcarve's
 *   `carve` output (states marked as output/hprof/hprof_mark.h says), or any other;
 * - a truth.jsonl of the synthetic generator (tests/synth/truth.c): one object a line with
 *   its address, class, space, states, field values, array checksum and String text.
 *
 * Objects match when they have the same address and the same class name (names are compared
 * in Java form, "java.lang.String[]", whichever form the file uses).  Records of ART's HPROF
 * that are not objects are recognised and left out of every count (see vd_hprof.c):
 * a String's character array, a class's static-storage array, the runtime-internal object
 * arrays of DexCache / ClassLoader.
 *
 * Memory: sorted per-object index entries (24 bytes an object per input) and a few bytes of
 * per-object state for the comparison; records are decoded again from the buffers when
 * needed, never kept. */
#ifndef ARTCARVE_VALIDATE_H
#define ARTCARVE_VALIDATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "carver/base/err.h"

enum vd_kind { VD_INSTANCE, VD_OBJ_ARRAY, VD_PRIM_ARRAY, VD_CLASS, VD_KIND_COUNT };

/* ART's HPROF records that are not objects (runtime/hprof/hprof.cc @R11). */
enum vd_syn { VD_SYN_STRING_VALUE, VD_SYN_CLASS_STATICS, VD_SYN_RUNTIME_INTERNAL, VD_SYN_COUNT };

/* State dimensions and values (design: allocation, content, reachability). */
enum vd_dim { VD_DIM_ALLOC, VD_DIM_CONTENT, VD_DIM_REACH, VD_DIM_COUNT };
enum { VD_ALLOCATED = 0, VD_FREE = 1 };
enum { VD_INTACT = 0, VD_PARTIAL = 1, VD_RESIDUE = 2 };
enum { VD_REACHABLE = 0, VD_UNREACHABLE = 1, VD_REACH_UNKNOWN = 2 };
#define VD_STATE_VALUES 3       /* most values any dimension has */

/* Root kinds, in the order reachability is attributed (an object reached by several kinds of
 * roots is credited to the first): the roots an image always holds (class statics, thread
 * objects), then the runtime's tables, then the thread stacks.  The last one is no root
 * record: what is reached only through the runtime-internal Object[] ART's HPROF adds to
 * DexCache and ClassLoader (references the runtime keeps in native memory: dex cache arrays,
 * class tables), followed after every real root. */
enum vd_root_kind {
	VD_ROOT_STICKY_CLASS, VD_ROOT_THREAD_OBJECT, VD_ROOT_VM_INTERNAL, VD_ROOT_INTERNED_STRING,
	VD_ROOT_JNI_GLOBAL, VD_ROOT_JAVA_FRAME, VD_ROOT_JNI_LOCAL, VD_ROOT_NATIVE_STACK,
	VD_ROOT_THREAD_BLOCK, VD_ROOT_MONITOR_USED, VD_ROOT_JNI_MONITOR, VD_ROOT_FINALIZING,
	VD_ROOT_REFERENCE_CLEANUP, VD_ROOT_DEBUGGER, VD_ROOT_UNKNOWN, VD_ROOT_RUNTIME_INTERNAL,
	VD_ROOT_KIND_COUNT
};

struct vd_input {
	const uint8_t *data;    /* borrowed for the whole comparison */
	size_t len;
	const char *label;      /* file name for messages and the report (borrowed) */
	/* Set by a caller whose buffer is its own private read-only mapping of a file: the
	 * mapped pages are then given back to the kernel (MADV_DONTNEED) every VD_DROP_EVERY
	 * record decodes, so resident memory stays small on huge files; pages fault in again from
	 * the page cache when needed.  Never set it for heap memory. */
	bool drop_behind;
};

#define VD_DROP_EVERY 16384

struct vd_options {
	unsigned per_class;     /* classes listed by count (those whose counts differ come too) */
	unsigned examples;      /* examples kept per kind of disagreement */
};

/* recall = matched / truth (allocated truth objects), precision = result_matched / (result -
 * beyond_walk): result objects beyond a walk gap of RESULT (artcarve.mark.WalkGap,
 * output/hprof/hprof_mark.h) that the truth lacks, where the truth lists nothing from the
 * gap's start on, are live objects the runtime's own walk never reached: neither matched nor
 * invented. */
struct vd_count { uint64_t truth, matched, result, result_matched, beyond_walk; };

struct vd_named_count { const char *name; struct vd_count c; };

struct vd_side_info {
	const char *label;
	char format[32];        /* "JAVA PROFILE 1.0.3", "truth.jsonl" */
	unsigned id_size;       /* 0 for truth.jsonl */
	uint64_t objects;       /* real objects (synthetic records and mark arrays left out) */
	uint64_t by_kind[VD_KIND_COUNT];
	uint64_t synthetic[VD_SYN_COUNT];
	uint64_t mark_arrays;
	uint64_t roots, roots_by_kind[VD_ROOT_KIND_COUNT];
	uint64_t duplicate_ids; /* objects sharing an id with an earlier one */
	uint64_t dangling_refs; /* references to ids the file does not hold (walks only) */
	uint64_t value_position_objects;        /* primitive arrays where ART puts a String's
						 * characters (String + 16) that the String does not
						 * name: real objects after an empty String */
	bool states[VD_DIM_COUNT];  /* which state dimensions the input gives */
};

struct vd_state_row {
	uint64_t truth;         /* truth objects in this state */
	uint64_t found;         /* ... matched by a result object */
	uint64_t agree;         /* ... whose result object has the same state (dimension marked) */
	uint64_t result;        /* result objects claiming this state (dimension marked) */
	uint64_t result_true;   /* ... matched to a truth object in this state */
};

struct vd_example {
	uint64_t id;
	const char *cls;
	const char *what;       /* field name, "length", "element 12", "text", "class" ... */
	char truth[48], result[48];
};

struct vd_examples { struct vd_example *v; unsigned n, cap; uint64_t total; };

struct vd_field_diff { const char *cls, *field; uint64_t count; };

struct vd_fields {
	uint64_t objects, objects_equal;        /* matched objects compared, all fields equal */
	uint64_t prim, prim_equal;              /* primitive instance fields */
	uint64_t ref, ref_equal;                /* reference instance fields */
	uint64_t statics, statics_equal;        /* static fields of class objects */
	uint64_t missing, extra;                /* in one input only */
	uint64_t invented;                      /* ART's invented fields (either input), not compared */
	uint64_t unreported;                    /* a Class's own fields ("$class$NAME", as ART's
						 * HPROF gives them) when the result gives none */
	uint64_t undecodable;                   /* objects whose values could not be decoded */
	uint64_t arrays, arrays_equal, elements, elements_equal;
	struct vd_field_diff *diffs;            /* most frequent disagreeing fields */
	unsigned diff_count;
	struct vd_examples ex;
};

struct vd_strings {
	uint64_t truth, matched, compared, equal;
	uint64_t no_value_result, no_value_truth;
	struct vd_examples ex;
};

struct vd_reach {
	const char *truth_source;       /* "roots" (graph walk of the HPROF's roots), "truth.jsonl" */
	const char *result_source;      /* "marks", "roots", "none" */
	uint64_t truth_reachable, truth_unreachable;
	uint64_t unreachable_found;     /* truth-unreachable objects matched */
	uint64_t unreachable_agree;     /* ... that the result calls unreachable */
	uint64_t result_unreachable;    /* result objects called unreachable */
	uint64_t false_unreachable;     /* called unreachable, truth-reachable */
	uint64_t false_unreachable_by_root[VD_ROOT_KIND_COUNT];
	uint64_t false_reachable;       /* truth-unreachable, called reachable */
	uint64_t result_unknown;        /* called unknown */
	uint64_t reached_by_root[VD_ROOT_KIND_COUNT];   /* truth objects credited to each kind */
	struct vd_examples ex;          /* objects whose reachability RESULT gets wrong */
};

struct vd_report {
	struct vd_side_info result_info, truth_info;
	struct vd_count overall, by_kind[VD_KIND_COUNT];
	uint64_t class_mismatch;        /* same address, other class */
	uint64_t result_free_unjudged;  /* result objects marked free against a runtime HPROF
					 * (which holds none): left out of the precision */
	struct vd_examples missed, invented, mismatched, beyond_walk;
	struct vd_named_count *truth_heaps, *result_heaps;
	unsigned truth_heap_count, result_heap_count;
	struct vd_named_count *classes;         /* listed classes, by truth count */
	unsigned class_count;
	uint64_t classes_total, classes_differing;
	struct vd_state_row states[VD_DIM_COUNT][VD_STATE_VALUES];
	bool result_dims[VD_DIM_COUNT];         /* RESULT gives that dimension (marks, or a walk) */
	struct vd_fields fields;
	struct vd_strings strings;
	struct vd_reach reach;
	void *priv;                     /* owned storage (names, rows) */
};

/* Compares result with truth.  *out is a new report (free with vd_report_free).  Returns 0, or
 * -ERR_TRUNC / -ERR_CORRUPT / -ERR_UNSUP for an input that is not a readable HPROF or
 * truth.jsonl (the message names the input and offset), -ERR_NOMEM. */
int vd_compare(const struct vd_input *result, const struct vd_input *truth, const struct vd_options *opt,
	       struct vd_report **out, struct err *e);
void vd_report_free(struct vd_report *r);

/* Text and JSON renderings; keys and rows come in a fixed order.  -ERR_IO on a write error. */
int vd_report_text(const struct vd_report *r, FILE *fp, struct err *e);
int vd_report_json(const struct vd_report *r, FILE *fp, struct err *e);

/* Names used in the report. */
const char *vd_kind_name(enum vd_kind k);
const char *vd_syn_name(enum vd_syn s);
const char *vd_dim_name(enum vd_dim d);
const char *vd_state_name(enum vd_dim d, unsigned value);      /* NULL past the dimension's values */
const char *vd_root_kind_name(enum vd_root_kind k);

#endif
