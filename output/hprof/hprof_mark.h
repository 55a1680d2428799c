/* hprof_mark.h - how a carved HPROF marks the states of its objects (artcarve's convention,
 * shared by the writer of `carve` and the reader of `validate`).
 *
 * HPROF has no place for an object's allocation, content or reachability state.  A carved
 * HPROF therefore lists the ids of the objects whose state differs from the default
 * (allocated, intact, reachable) in *mark arrays*: OBJECT_ARRAY_DUMP records whose array
 * class is one of the synthetic classes below, one class per state value:
 *
 *   artcarve.mark.Free[]         allocation: the allocator's metadata says free
 *   artcarve.mark.Partial[]      content: some words overwritten (free-list link, chunk links)
 *   artcarve.mark.Residue[]      content: residue of a freed object
 *   artcarve.mark.Unreachable[]  reachability: no root the image holds reaches it
 *   artcarve.mark.Unknown[]      reachability: not decided (e.g. roots missing from the image)
 *
 * Rules for the writer:
 * - The mark classes are written (LOAD_CLASS + CLASS_DUMP, super java.lang.Object[] or
 *   java.lang.Object, no fields) whenever the file marks states, even when no object has that
 *   state: the presence of the class says "this dimension is marked", so a reader tells
 *   "every object reachable" from "reachability not marked".
 * - Any number of mark arrays per class (split long lists at will); elements are object ids
 *   present in the same file; an object is in at most one array of each dimension.
 * - Mark arrays and mark classes take ids that are not object-aligned (object addresses are
 *   multiples of 8), e.g. counting down from the top of the id space by 16 from ...fff1, so
 *   they never collide with an object's address.
 * - Writing a ROOT_UNKNOWN for each mark array keeps the marked objects in tools that drop
 *   unreachable objects (Eclipse MAT) and shows them grouped under the mark class; readers
 *   that compute reachability must ignore roots naming a mark array (validate does).
 *
 * A reader recognises mark arrays by their class name alone (Java form "artcarve.mark.Free[]"
 * or JVM form "[Lartcarve/mark/Free;"), never by id. */
#ifndef ARTCARVE_HPROF_MARK_H
#define ARTCARVE_HPROF_MARK_H

#include <stddef.h>

enum hprof_mark {
	HPROF_MARK_FREE,
	HPROF_MARK_PARTIAL,
	HPROF_MARK_RESIDUE,
	HPROF_MARK_UNREACHABLE,
	HPROF_MARK_UNKNOWN,
	HPROF_MARK_COUNT
};

/* The state dimension a mark belongs to. */
enum hprof_mark_dim { HPROF_MARK_DIM_ALLOC, HPROF_MARK_DIM_CONTENT, HPROF_MARK_DIM_REACH };

/* Java-form array class name of a mark ("artcarve.mark.Free[]"); NULL when out of range. */
const char *hprof_mark_class(enum hprof_mark m);
/* The state value a mark stands for ("free", "partial", "residue", "unreachable",
 * "unknown"); NULL when out of range. */
const char *hprof_mark_state(enum hprof_mark m);
enum hprof_mark_dim hprof_mark_dim(enum hprof_mark m);
/* The mark whose array class is named name[0..len) (Java or JVM form, not NUL-terminated),
 * or -1 when the name is no mark class. */
int hprof_mark_of_class(const char *name, size_t len);

#endif
