/* native_roots.h - GC roots ART keeps in native memory: art::Runtime's own roots, the
 * intern table and the JNI global reference table.
 *
 * Found from libart's own symbol `art::Runtime::instance_` (_ZN3art7Runtime9instance_E, in
 * its .dynsym: runtime/runtime.h @R10..R14U `static Runtime* instance_`), whose .bss word
 * holds the Runtime*.  Member offsets of art::Runtime, InternTable and JavaVMExt are not
 * stable across releases (std::string / std::vector members before them), so each structure
 * is found by content inside the object that owns it and accepted only when every
 * invariant below holds; nothing is guessed:
 *   pre-allocated errors  four consecutive GcRoots in art::Runtime: three references to
 *                         java.lang.OutOfMemoryError objects then one to a
 *                         java.lang.NoClassDefFoundError (runtime.h @R10..R14U:
 *                         pre_allocated_OutOfMemoryError_when_throwing_exception_,
 *                         _when_throwing_oome_, _when_handling_stack_overflow_,
 *                         pre_allocated_NoClassDefFoundError_), one such run only;
 *   sentinel_             the GcRoot after the three ArtMethod* that follow them
 *                         (resolution_method_, imt_conflict_method_, imt_unimplemented_method_,
 *                         runtime.h @R10..R14U), a plain java.lang.Object;
 *                         all of these are kRootVMInternal (runtime.cc VisitConstantRoots @R14U);
 *   class roots           ClassLinker::class_roots_ (kRootVMInternal, class_linker.cc
 *                         VisitRoots @R14U): a GcRoot in an object a Runtime member points at,
 *                         naming an Object[] or Class[] whose elements 0 and 1 are java.lang.Class and
 *                         java.lang.Object (runtime/class_root.h @R14U order) and every element
 *                         a Class or null; one such object only;
 *   intern table          Runtime::intern_table_ -> InternTable {.., Table strong_interns_, ..,
 *                         Table weak_interns_, ..} (intern_table.h @R10..R14U), Table = a
 *                         std::vector of HashSet<GcRoot<String>> (10) or of InternalTable
 *                         {HashSet set_; bool is_boot_image_} (11+); a HashSet is {empty
 *                         functors, size_t num_elements_, num_buckets_, elements_until_expand_,
 *                         bool owns_data_, T* data_, double min_load_factor_, max_load_factor_}
 *                         (libartbase/base/hash_set.h @R10..R14U), accepted when
 *                         0 < min < max <= 1 and exactly num_elements_ of the num_buckets_
 *                         slots are non-null; the first Table in the InternTable is the strong
 *                         one (kRootInternedString: InternTable::VisitRoots visits it only,
 *                         intern_table.cc @R14U), the second the weak one (system weaks, not
 *                         roots: counted, not returned);
 *   JNI globals (14+)     JavaVMExt::globals_ / weak_globals_: IndirectReferenceTable
 *                         {MemMap table_mem_map_; IrtEntry* table_; IndirectRefKind kind_;
 *                         size_t top_index_, max_entries_, current_num_holes_}
 *                         (runtime/indirect_reference_table.h @R14U) with table_ the start
 *                         of an `indirect ref table` mapping, kind_ kGlobal (2) or
 *                         kWeakGlobal (3), top_index_ <= max_entries_ = mapping bytes / 8
 *                         (IrtEntry {u32 serial_; GcRoot reference_}); only [0, top_index_) is
 *                         read and only kGlobal tables give roots (weak globals are system
 *                         weaks: java_vm_ext.cc VisitRoots @R14U).
 * Every byte is read through the image view (mirror_*), every count bounded.  64-bit
 * processes only (the layouts above are the LP64 ones); a 32-bit one reports the parts
 * missing. */
#ifndef ARTCARVE_NATIVE_ROOTS_H
#define ARTCARVE_NATIVE_ROOTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "carver/base/anomaly.h"
#include "carver/base/err.h"
#include "art/runtime/runtime.h"

enum { NROOTS_MAX_IRT = 8 };
enum nroots_part { NROOTS_VM_INTERNAL, NROOTS_INTERNED, NROOTS_JNI_GLOBAL, NROOTS_JNI_LOCAL, NROOTS_PART_COUNT };

struct nroots_ref {
	uint32_t obj;           /* the object */
	uint64_t at;            /* address of the GcRoot / table entry that holds it */
};

struct nroots {
	uint64_t runtime;       /* art::Runtime*, 0 when not found */
	struct nroots_ref *refs[NROOTS_PART_COUNT];
	size_t count[NROOTS_PART_COUNT], cap[NROOTS_PART_COUNT];
	bool present[NROOTS_PART_COUNT];   /* the structure decoded */
	const char *detail[NROOTS_PART_COUNT]; /* what was read, or why it is missing (static,
						* or not_found) */
	char not_found[600];    /* why art::Runtime was not found, when it was not */
	uint64_t weak_interns;  /* strings of the weak intern table (not roots) */
	uint64_t bad_interns;   /* strong intern entries that are no java.lang.String (dropped) */
	uint64_t first_bad_intern; /* the address of the first such entry */
	unsigned irt_tables;    /* IndirectReferenceTables decoded (global and weak global) */
	uint64_t irt_start[NROOTS_MAX_IRT]; /* their table_ (the mapping start), first NROOTS_MAX_IRT */
};

/* Decodes what the image holds; damage goes to sink as ANOM_ROOTS.  0 or -ERR_NOMEM. */
int nroots_find(const struct art_runtime *rt, struct nroots *out, struct anomaly_sink *sink, struct err *e);
void nroots_release(struct nroots *n);
/* nroots_find's work once the Runtime* is known (out zeroed by the caller). */
int nroots_from_runtime(const struct art_runtime *rt, uint64_t runtime, struct nroots *out,
			struct anomaly_sink *sink, struct err *e);

/* The decoders, exposed for tests.  Each returns 0 and fills / appends, 1 when the structure
 * is not there (not captured, or no candidate satisfies the invariants: *why says which),
 * -ERR_NOMEM. */
int nroots_runtime_errors(const struct art_runtime *rt, uint64_t runtime, struct nroots *out, struct err *why,
			  struct err *e);
int nroots_hash_set(const struct art_runtime *rt, uint64_t va, uint64_t *data, uint64_t *buckets,
		    uint64_t *elements, struct err *why);
int nroots_intern_table(const struct art_runtime *rt, uint64_t table, struct nroots *out, struct err *why,
			struct err *e);
/* 14+: the local references of the thread whose art::Thread* is `thread` (a
 * java.lang.Thread's nativePeer) appended to NROOTS_JNI_LOCAL: the JNIEnvExt is the object a
 * word of the Thread (its first NROOTS_OWNED_SCAN bytes) points at whose self_ (the word
 * after the JNINativeInterface*) is that Thread (jni_env_ext.h @R14U); in it,
 * jni::LocalReferenceTable {u32 top_index; u32 max_entries_; u32 free_entries_list_;
 * LrtEntry* small_table_; vector<LrtEntry*> tables_; ...} (local_reference_table.h @R14U)
 * with top_index <= max_entries_, max_entries_ = 128 << k, small_table_ set only when
 * max_entries_ is 128, else tables_ holding the tables of 128, 128, 256, ... entries.
 * Entries [0, top_index) are read as LocalReferenceTable::VisitRootsInternal does
 * (local_reference_table.cc @R14U): a serial-number entry (bit 1) at a multiple of 4 names
 * the live one of the next three (CheckJNI), a free entry (bit 0) is skipped. */
int nroots_thread_locals(const struct art_runtime *rt, uint64_t thread, struct nroots *out, struct err *why,
			 struct err *e);

#endif
