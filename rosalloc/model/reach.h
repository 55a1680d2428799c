/* reach.h - roots and reachability of the object model.
 *
 * A graph walk (iterative, one explicit stack, each object pushed once, so bounded by the
 * object count; cycles are normal) over the references of allocated objects: instance
 * fields of the class and its supers, object array elements, a Class's instance and static
 * reference fields, and an object's class.  Free objects are reached but not followed
 * (their references are stale).  It starts from every root source the image holds:
 *   class statics   every Class object of the model (its statics are GC roots; ART's own
 *                   HPROF reports classes as sticky roots);
 *   image roots     ImageHeader.image_roots_ of every image space (runtime/image.h @R11);
 *   threads         java.lang.Thread objects whose nativePeer is set (an attached thread;
 *                   runtime/thread.cc @R11 Thread::CreatePeer stores the Thread* there);
 *   jni             the JNI reference tables: every `indirect ref table` mapping, read as
 *                   IrtEntry {u32 serial_; GcRoot references_[3]} with the current
 *                   reference at references_[serial_] (runtime/indirect_reference_table.h
 *                   @R60..R11); tables of 51200+ entries (kGlobalsMax, java_vm_ext.cc) hold
 *                   global and weak global references, smaller ones a thread's locals;
 *   stacks          each thread's stack from the stack pointer the container records
 *                   (an ELF core's NT_PRSTATUS) to the end of its mapping, and mappings
 *                   named as stacks (`[stack]`, `[stack:TID]`, `[anon:stack_and_tls:TID]`)
 *                   that hold no such pointer, whole; scanned conservatively: every
 *                   4-aligned 32-bit word that is the address of an object is a root.
 * The walk also follows, as references of a DexCache (7.0+), the strings its native arrays
 * hold when that memory (LinearAlloc) is captured: ART's own HPROF reaches them through the
 * DexCache (runtime/hprof/hprof.cc @R11 runtimeInternalObjects); on 14+ both the hash-indexed
 * strings_ pairs and the full strings_array_ (sized by the DexFile header's string_ids_size).
 * In a whole-process capture also the roots ART keeps in native memory, decoded by
 * art/runtime/native_roots.h from libart's Runtime::instance_: art::Runtime's pre-allocated
 * errors, sentinel_ and ClassLinker::class_roots_ (vm internal), the strong intern table
 * (interned strings) and, on 14+, JavaVMExt::globals_ up to its top (jni globals) and each
 * attached thread's jni::LocalReferenceTable found from its nativePeer (jni locals); on 14+
 * the `indirect ref table` mappings are not read on their own (their live extent is in
 * the JavaVMExt).
 * Each source is reported present (with its root count) or missing: "unreachable" means
 * unreachable from the roots this image holds and no sign that a missing source holds it.
 * Where a source is missing, an object it would hold by what ART does (a DEX literal, the
 * runtime's pre-allocated errors, its sentinel, the class roots: rosalloc/model/reach_doubt.c)
 * and what only such objects reach get reachability unknown, with the reason. */
#ifndef ARTCARVE_REACH_H
#define ARTCARVE_REACH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "carver/base/err.h"
#include "rosalloc/model/model.h"

enum reach_source {
	REACH_CLASSES, REACH_IMAGE_ROOTS, REACH_THREADS, REACH_JNI_GLOBAL, REACH_JNI_LOCAL, REACH_STACKS,
	REACH_DEX_CACHES,   /* edges, not roots: the strings a DexCache keeps in native arrays */
	REACH_VM_INTERNAL,  /* art::Runtime's own roots (art/runtime/native_roots.h) */
	REACH_INTERNED,     /* the strong intern table */
	REACH_SOURCE_COUNT
};

/* Why an object no root reaches is "unknown" (reach_doubt.c); REACH_DOUBT_HELD: only such an
 * object leads to it. */
enum reach_doubt {
	REACH_DOUBT_NONE, REACH_DOUBT_DEX_LITERAL, REACH_DOUBT_RUNTIME_ERROR, REACH_DOUBT_SENTINEL,
	REACH_DOUBT_CLASS_ROOTS, REACH_DOUBT_HELD, REACH_DOUBT_COUNT
};

struct reach_root {
	uint32_t obj;           /* object address */
	uint32_t ref;           /* where the root was found (table entry, stack word), or 0 */
	uint32_t thread;        /* thread serial (1-based) for thread objects, else 0 */
	uint8_t source;         /* enum reach_source */
};

/* A String a DexCache's native array holds (7.0+), kept for the first holder of each. */
struct reach_dex_cache_edge {
	uint32_t str, cache;    /* object indexes of the String and the DexCache */
	uint32_t index;         /* the string index in the DEX (string_ids) */
};

struct reach_source_info {
	bool present;           /* the image holds this source (mappings captured / objects found) */
	uint64_t roots;         /* distinct roots it gave */
	uint64_t words;         /* entries or words examined */
	const char *detail;     /* what was read, or why it is missing (static text) */
};

struct reach {
	struct reach_root *roots;   /* in source order, then address; deduplicated per source */
	struct reach_root *roots_by_obj;   /* the same roots by address, then source (reach_holder_of) */
	size_t count, cap;
	struct reach_source_info source[REACH_SOURCE_COUNT];
	uint64_t reachable[MODEL_ALLOC_COUNT], unreachable[MODEL_ALLOC_COUNT];
	uint64_t edges;             /* references followed */
	uint64_t unknown[REACH_DOUBT_COUNT];   /* objects made unknown, per reason */
	uint8_t *doubt;             /* per object: enum reach_doubt; NULL when no rule applied */
	struct reach_dex_cache_edge *dex_cache_edges;   /* by String (reach_index_holders) */
	size_t dex_cache_edge_count, dex_cache_edge_cap;
	char native_missing[600];   /* why the runtime's native roots were not read (a source's
				     * detail may point here: nroots' own text does not outlive it) */
};

/* Finds the roots and sets every object's reach state.  Returns 0 or -ERR_NOMEM; damaged
 * root sources are recorded in the model's sink. */
int reach_run(struct model *m, struct reach *r, struct err *e);
void reach_release(struct reach *r);
/* "class statics", "image roots", "thread objects", "jni globals", "jni locals", "thread stacks",
 * "dex cache strings", "vm internal", "interned strings" */
const char *reach_source_name(unsigned s);
/* What holds an object when no object's field or element does: a root (its source and where
 * it was found), a DexCache's native array (the DexCache and the string index), or why its
 * reachability is unknown. */
enum reach_holder_kind { REACH_HOLDER_NONE, REACH_HOLDER_ROOT, REACH_HOLDER_DEX_CACHE, REACH_HOLDER_DOUBT };
struct reach_holder {
	enum reach_holder_kind kind;
	unsigned source;        /* ROOT: enum reach_source */
	uint32_t ref;           /* ROOT: where it was found (table entry, stack word), or 0 */
	size_t dex_cache;       /* DEX_CACHE: object index of the DexCache */
	uint32_t index;         /* DEX_CACHE: string index */
	unsigned doubt;         /* DOUBT: enum reach_doubt */
};
/* Fills h for object i of m after reach_run; false (h->kind NONE) when nothing holds it. */
bool reach_holder_of(const struct reach *r, const struct model *m, size_t i, struct reach_holder *h);
/* Indexes the roots by object and sorts the DexCache edges for reach_holder_of (reach_run
 * does it).  Returns 0 or -ERR_NOMEM. */
int reach_index_holders(struct reach *r, struct err *e);
/* "dex literal", "runtime error", "sentinel", "class roots", "held by unknown" */
const char *reach_doubt_name(unsigned d);
/* Sets r->doubt (allocated when a rule applies) and the bits of marked (a bit per object) for
 * the objects seen (the root walk's bits) leaves out that a missing source would hold.
 * Returns 0 or -ERR_NOMEM. */
int reach_doubt(const struct model *m, struct reach *r, const uint64_t *seen, uint64_t *marked, struct err *e);

#endif
