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
 * or JVM form "[Lartcarve/mark/Free;"), never by id.
 *
 * Address aliases.  HPROF ids are 4 bytes and so are ART's heap references, but a 64-bit
 * process can hold object bytes above 4 GiB (the mark-compact collector's from-space); the
 * object model gives such objects model addresses in an alias window below 4 GiB where the
 * process maps nothing (rosalloc/model/model.h), and their HPROF ids are those model
 * addresses.  Each window is one INSTANCE_DUMP of the class artcarve.mark.AddressAlias
 * (Java form; JVM form artcarve/mark/AddressAlias), no super class, with three long
 * fields in this order: idBase, addressBase, length.  An id in [idBase, idBase + length)
 * stands for the real address addressBase + (id - idBase), and so do the ids of the records
 * ART invents inside such an object (a String's value array).  The class and its instances
 * are written only when the file holds objects in windows; their ids are taken like mark
 * ids, and a ROOT_UNKNOWN keeps each instance visible in MAT, where it tells an investigator
 * which real address an id stands for.  A reader that compares ids with real addresses (validate)
 * maps them through these records.  A reference field or element whose value lies in a
 * window names no object of the process (the window is unmapped memory) and is written null,
 * so that no reader links it to the object whose id it happens to be.
 *
 * Walk gaps.  ART's own HPROF lists the objects of a bump-pointer space by walking it from its
 * begin and stops at the first zero class word (BumpPointerSpace::Walk,
 * runtime/gc/space/bump_pointer_space-walk-inl.h @ android14); after a mark-compact
 * compaction the objects allocated after the marking pause lie beyond such a zero gap, from
 * the page boundary post_compact_end (runtime/gc/collector/mark_compact.cc @ android14), so
 * that HPROF does not list them, though they are live.  A carved HPROF records each such gap
 * the walk of a bump-pointer space found (rosalloc/walk/contig.c) as one INSTANCE_DUMP of the
 * class artcarve.mark.WalkGap (JVM form artcarve/mark/WalkGap), no super class, with three
 * long fields in this order: gapStart (the first zero byte after the objects that lie back to
 * back from the space's begin), gapEnd (the first object after the gap, a page boundary),
 * spaceEnd (the end of the space's last object).  The objects in [gapEnd, spaceEnd) are in
 * the file as any other.  The class and its instances are written only when a gap was found;
 * ids and roots as for AddressAlias.  validate counts result objects there that the truth
 * lacks apart from invented ones ("beyond_walk"). */
#ifndef ARTCARVE_HPROF_MARK_H
#define ARTCARVE_HPROF_MARK_H

#include <stdbool.h>
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
/* Java-form name of the address alias class ("artcarve.mark.AddressAlias"). */
const char *hprof_mark_alias_class(void);
/* True when name[0..len) names the address alias class (Java or JVM form). */
bool hprof_mark_is_alias_class(const char *name, size_t len);
/* Its three long fields, in order. */
extern const char *const hprof_mark_alias_fields[3];

/* Java-form name of the walk gap class ("artcarve.mark.WalkGap"). */
const char *hprof_mark_gap_class(void);
/* True when name[0..len) names the walk gap class (Java or JVM form). */
bool hprof_mark_is_gap_class(const char *name, size_t len);
/* Its three long fields, in order. */
extern const char *const hprof_mark_gap_fields[3];

/* The mark whose array class is named name[0..len) (Java or JVM form, not NUL-terminated),
 * or -1 when the name is no mark class. */
int hprof_mark_of_class(const char *name, size_t len);

#endif
