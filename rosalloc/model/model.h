/* model.h - the object model: carved objects with their class, place and states.
 *
 * The space walkers (rosalloc/walk/walk.h) hand every candidate to model_add.  A candidate
 * becomes an object only when its bytes are consistent (design: every check below must
 * pass); otherwise it is an anomaly in the caller's sink, with its address and the reason,
 * and never an object:
 *   class word  a non-zero, 8-aligned reference to a Class the runtime model knows (whose own
 *               class is java.lang.Class); a Class object must itself be one the runtime
 *               model kept (retired placeholders are counted, not objects, as ART's own
 *               HPROF skips them: runtime/hprof/hprof.cc DumpHeapObject @R11);
 *   size        the object's size (object_size_, class_size_, array or string length)
 *               is at least the object header and fits the candidate's `room`;
 *   length      array and string lengths fit `room` (checked before the multiplication);
 *   references  every reference field (instance fields of the class and its supers, object
 *               array elements, a Class's static and instance references) is null or an
 *               8-aligned address that is a plausible object start: an object of the model,
 *               a free place a walker reported (garbage may point at garbage a GC already
 *               freed: a sticky collection frees only the objects allocated since the last
 *               one, runtime/gc/collector/sticky_mark_sweep.cc @R71, so an older dead object can
 *               keep a reference to a swept slot), a dead object poisoned in an unevacuated
 *               region (runtime/gc/space/region_space.cc @R10..R13), bytes whose class word names a Class (an
 *               object no walker reported), or memory the image did not capture (unknown,
 *               not refuted).  Checked in model_finish, once every candidate is in; only
 *               allocated objects are held to it (free residue keeps stale references).
 *
 * Each object gets three states and a confidence (0-100):
 *   allocation  allocated | free: what the allocator's metadata says (a candidate whose
 *               metadata is not in the image counts as allocated once its bytes pass);
 *   content     intact (allocated) | partial (free, leading words overwritten by the
 *               allocator's own links, class word intact) | residue (free, bytes as left);
 *   reach       unknown until reach_run (reach.h) runs, then reachable | unreachable.
 * Confidence: 100 the allocator's metadata says allocated and every check passed; 95 the
 * metadata is not in the image but a live bitmap bit or the allocation stack vouches for the
 * start; 90 neither is in the image, the bytes alone pass; at most 80 when the class has no
 * field layout (its references cannot be checked); 70 free residue; 50 free partial.
 * A free candidate whose class word is zero or lies in the bytes the allocator overwrote is
 * an empty place, counted per space, neither object nor anomaly; when bytes past the
 * overwritten ones are not all zero (a dlmalloc chunk keeps the body of what was freed,
 * runtime/gc/space/dlmalloc_space-inl.h @R71) it is counted apart as untyped residue: its class
 * is gone, and the model does not guess one.
 *
 * Spaces above 4 GiB.  Heap references are 32-bit, and so is an object's model address; the
 * one space of a 64-bit process that holds object bytes above 4 GiB is the mark-compact
 * collector's from-space (rosalloc/walk/cmc.c).  Its objects get model addresses in an alias
 * window: a range below 4 GiB, as long as the space, where the image maps nothing and no
 * runtime space lies (model_alias).  A model address in a window stands for real address
 * alias - window + real base: model_va gives the real address, and every reader of an
 * object's bytes and every output that prints an address goes through it; the HPROF id of
 * such an object is its model address (output/hprof/hprof_mark.h says how a carved HPROF
 * records the windows).  A reference into a window names no object (model_find): the window
 * is the model's own invention, so a heap word pointing there points at memory no mapping
 * holds, and it is read as memory the image did not capture.  A space for which no
 * window is free is not carved (one anomaly, its candidates counted as rejected).
 *
 * Memory: one 32-byte record per object (struct model_obj, sorted by address after
 * model_finish), 4 bytes per object and per non-null reference (model_refs), the object-start
 * index, per-class tables; object bytes are never copied (they stay in the image's mapped
 * files, whose pages each pass in address order releases behind it: img_drop_behind). */
#ifndef ARTCARVE_MODEL_H
#define ARTCARVE_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "art/runtime/runtime.h"
#include "art/runtime/statics.h"
#include "carver/base/anomaly.h"
#include "carver/base/arena.h"
#include "carver/base/err.h"
#include "carver/base/progress.h"
#include "rosalloc/walk/walk.h"

#define MODEL_NONE ((size_t)-1)
#define MODEL_REF_NONE UINT32_MAX   /* model_refs: a reference to no object of the model */

enum model_alloc { MODEL_ALLOCATED, MODEL_FREE, MODEL_ALLOC_COUNT };
enum model_content { MODEL_INTACT, MODEL_PARTIAL, MODEL_RESIDUE, MODEL_CONTENT_COUNT };
enum model_reach { MODEL_REACH_UNKNOWN, MODEL_REACHABLE, MODEL_UNREACHABLE, MODEL_REACH_COUNT };
enum model_kind { MODEL_INSTANCE, MODEL_STRING, MODEL_CLASS, MODEL_OBJ_ARRAY, MODEL_PRIM_ARRAY, MODEL_KIND_COUNT };

struct model_obj {
	uint32_t addr;          /* object start (heap references are 32-bit) */
	uint32_t size;          /* bytes the object covers (SizeOf, not rounded to 8) */
	uint32_t cls;           /* index of its class in rt->classes */
	uint32_t where;         /* walker detail: run / region / chunk address */
	uint32_t index;         /* walker detail: slot / region number */
	uint16_t space;         /* index in rt->spaces.v */
	uint8_t place;          /* enum walk_place */
	uint8_t kind;           /* enum model_kind */
	uint8_t alloc, content, reach;
	uint8_t confidence;     /* 0-100 */
	uint8_t flags;          /* MODEL_F_* */
};

/* 8-bit String; references not checked (class without field layout); failed model_finish's
 * reference check; dropped by model_finish (bad reference or overlap; never seen after it) */
enum { MODEL_F_COMPRESSED = 1, MODEL_F_UNCHECKED = 2, MODEL_F_BAD_REF = 4, MODEL_F_DROPPED = 8 };

/* What the model knows of each class (parallel to rt->classes). */
struct model_class {
	enum model_kind kind;   /* kind of its instances */
	uint8_t elem;           /* arrays: component descriptor character ('I', 'L', ...) */
	uint8_t elem_size;      /* arrays: bytes per element */
	bool fields_ok;         /* instance field offsets known for the class and its supers */
	uint32_t *refs;         /* reference field offsets of an instance (supers included) */
	uint32_t ref_count;
	uint32_t refs_end;      /* end of the last of them */
	struct rt_statics statics;
	bool statics_ok;        /* statics derived (or none) */
	uint32_t *static_refs;  /* offsets of reference statics in the Class object */
	uint32_t static_ref_count;
	uint32_t static_refs_end; /* end of the last of them */
	uint64_t objects;       /* objects of this class in the model */
};

/* An alias window (see the top of this file): [alias, alias + len) below 4 GiB stands for
 * [real, real + len) of space `space`. */
struct model_alias {
	uint64_t alias, real, len;
	uint16_t space;
	bool failed;            /* no window was free: the space's objects are not carved */
};

/* The walk gap of a bump-pointer space (walk_unit.gap_*, rosalloc/walk/contig.c): ART's own
 * HPROF walk of the space stops at begin; objects lie again from end up to space_end (the
 * end of the last object walked). */
struct model_walk_gap {
	uint64_t begin, end, space_end;
	uint16_t space;
};

/* A free place whose class word is gone (zero, or under the allocator's own links) and whose
 * bytes past the allocator's survive (model_add): residue of no known class, kept so that its
 * bytes can be searched (output/find) and attributed to the place. */
struct model_residue {
	uint64_t addr;          /* real address of the place */
	uint64_t room;          /* bytes the place holds from addr */
	uint32_t from;          /* offset of the first byte neither the allocator nor the class word holds */
	uint16_t space;         /* index in the runtime's spaces */
};

struct model_space_count {
	uint64_t objects[MODEL_ALLOC_COUNT][MODEL_CONTENT_COUNT];
	uint64_t empty;         /* free places without an identifiable object */
	uint64_t untyped;       /* of them, places whose bytes survive but whose class word is gone */
	uint64_t bytes;         /* object bytes */
};

/* The object-start index of one run of objects of one space (model_finish): a bit per 8
 * bytes from begin, and the objects before each 64-bit word, so model_find is a bit test and
 * a popcount, not a search over every object. */
struct model_ix_word {
	uint64_t bits;          /* a bit per 8 bytes: an object starts there */
	uint64_t rank;          /* objects of the run before this word (together: one cache line) */
};

struct model_ix {
	uint64_t begin, end;
	struct model_ix_word *w;
	size_t words, first;
};

struct model {
	const struct art_runtime *rt;
	struct anomaly_sink *sink;
	struct model_class *classes;      /* rt->class_count entries */
	size_t jlc, jls;                  /* class indexes of java.lang.Class / String, MODEL_NONE */
	struct model_obj *objs;
	size_t count, cap;
	uint64_t object_bytes;            /* sum of the objects' sizes (model_object_bytes) */
	uint32_t *free_places;            /* starts of empty free places (sorted by model_finish) */
	size_t free_count, free_cap;
	struct model_residue *residue;    /* residue places (sorted by address by model_finish) */
	size_t residue_count, residue_cap;
	uint32_t *damaged_starts;         /* allocated places whose class word names no Class (sorted) */
	size_t damaged_count, damaged_cap;
	uint64_t candidates, rejected, retired, empty, untyped, duplicates;
	struct model_space_count *per_space;   /* rt->spaces.count entries */
	/* object spaces sorted by begin, for reference checks */
	const struct art_space **ospace;
	size_t ospace_count;
	uint32_t *ref_at;                 /* per object (count + 1): its first reference in refs */
	uint32_t *refs;                   /* non-null references of allocated objects, in object order */
	size_t ref_count, ref_cap;
	struct model_ix *ix;              /* runs of objects by space, in address order */
	size_t ix_count;
	struct model_alias *alias;        /* windows by space, at most one per space */
	size_t alias_count;
	uint64_t alias_lo;                /* lowest alias window start, UINT64_MAX when none */
	struct model_walk_gap *gaps;      /* walk gaps in walk order (model_unit) */
	size_t gap_count;
	bool finished;
	struct img_drop drop;             /* the walk's pass over the image (model_add) */
	struct arena arena;
	/* optional (NULL): model_finish's reference check, reach_run's graph walk and the
	 * writers report the object bytes they have been through (the caller starts each phase
	 * with model_object_bytes as its total) */
	struct progress *progress;
	/* threads model_finish's reference check may use (0 or 1: the caller's alone); the
	 * result is the same for every number (model_finish.c) */
	unsigned threads;
};

/* ---- Reading the model.  Every file outside model*.c reads the model through these named
 * operations, never through struct model's fields; they are inline so that a loop over every
 * object costs what the field reads cost. ---- */

static inline const struct art_runtime *model_runtime(const struct model *m) { return m->rt; }
static inline const struct image *model_image(const struct model *m) { return m->rt->img; }
/* The sink the carving's anomalies go to (model_init's). */
static inline struct anomaly_sink *model_sink(const struct model *m) { return m->sink; }
/* The progress each phase over every object reports to, NULL when none (see the field). */
static inline struct progress *model_progress(const struct model *m) { return m->progress; }
static inline void model_set_progress(struct model *m, struct progress *p) { m->progress = p; }
static inline void model_set_threads(struct model *m, unsigned threads) { m->threads = threads; }
/* The threads a pass over every object may split into, for count objects: m->threads, at
 * most MODEL_PARTS_MAX, and one for a model of fewer than 1,024 objects per thread (a thread
 * would cost more than its part). */
enum { MODEL_PARTS_MAX = 8 };
static inline unsigned model_parts(const struct model *m)
{
	unsigned parts = m->threads > 1 ? m->threads : 1;
	parts = parts > MODEL_PARTS_MAX ? MODEL_PARTS_MAX : parts;
	return parts > 1 && m->count < 1024u * parts ? 1 : parts;
}

/* Objects, sorted by address after model_finish: indexes 0 .. model_count - 1. */
static inline size_t model_count(const struct model *m) { return m->count; }
static inline const struct model_obj *model_obj(const struct model *m, size_t i) { return &m->objs[i]; }
/* Index of the first object ending after addr (after model_finish: objects do not overlap),
 * model_count when none. */
size_t model_first_ending_after(const struct model *m, uint64_t addr);
/* reach_run's verdict on object i. */
static inline void model_set_reach(struct model *m, size_t i, enum model_reach reach)
{
	m->objs[i].reach = (uint8_t)reach;
}

/* What the model knows of class cls (an index in the runtime's classes, e.g. o->cls). */
static inline const struct model_class *model_class(const struct model *m, size_t cls)
{
	return &m->classes[cls];
}
/* Class indexes of java.lang.Class and java.lang.String, MODEL_NONE when the runtime has none. */
static inline size_t model_jlc(const struct model *m) { return m->jlc; }
static inline size_t model_jls(const struct model *m) { return m->jls; }

/* The carving's counts of candidates and of what they became. */
struct model_totals {
	uint64_t candidates, objects, rejected, empty, untyped, retired;
};
static inline struct model_totals model_totals(const struct model *m)
{
	return (struct model_totals){ m->candidates, m->count, m->rejected, m->empty, m->untyped, m->retired };
}
/* The counts of space s (an index in the runtime's spaces). */
static inline const struct model_space_count *model_space_tally(const struct model *m, size_t s)
{
	return &m->per_space[s];
}
/* Empty free places (model_is_free_place): their count, and whether one starts in [begin, end). */
static inline size_t model_free_place_count(const struct model *m) { return m->free_count; }
bool model_free_place_within(const struct model *m, uint64_t begin, uint64_t end);

/* Residue places (struct model_residue) in address order: index 0 .. count - 1. */
static inline size_t model_residue_count(const struct model *m) { return m->residue_count; }
static inline const struct model_residue *model_residue_at(const struct model *m, size_t i)
{
	return &m->residue[i];
}

/* Alias windows (the top of this file), failed ones included: index 0 .. count - 1. */
static inline bool model_has_alias(const struct model *m) { return m->alias_lo != UINT64_MAX; }
static inline size_t model_alias_count(const struct model *m) { return m->alias_count; }
static inline const struct model_alias *model_alias(const struct model *m, size_t i) { return &m->alias[i]; }
/* Walk gaps in walk order: index 0 .. count - 1. */
static inline size_t model_gap_count(const struct model *m) { return m->gap_count; }
static inline const struct model_walk_gap *model_gap(const struct model *m, size_t i) { return &m->gaps[i]; }

/* Prepares the per-class tables (field and static layouts; classes whose layouts do not
 * read are recorded in sink).  Returns 0 or -ERR_NOMEM. */
int model_init(struct model *m, const struct art_runtime *rt, struct anomaly_sink *sink, struct err *e);
void model_release(struct model *m);
/* A walk_emit_fn: checks one candidate (arg is the struct model).  Returns 0 (an object,
 * an anomaly or an empty place), or -ERR_NOMEM. */
int model_add(void *arg, const struct walk_candidate *c, struct err *e);
/* A walk_unit_fn: keeps the unit's walk gap when it has one (arg is the struct model).
 * Returns 0 or -ERR_NOMEM. */
int model_unit(void *arg, const struct walk_unit *u, struct err *e);
/* Sorts the objects by address, drops duplicates and overlaps, checks every allocated
 * object's references (failures become anomalies), counts per space and class. */
int model_finish(struct model *m, struct err *e);

/* The non-null references of allocated object i (what model_each_ref gives, kept so that the
 * reference check and the graph walk do not read the image again; none for a free object),
 * as the indexes of the objects they name (model_finish resolves them), MODEL_REF_NONE for a
 * value that names no object of the model.  Returns their count. */
uint32_t model_refs(const struct model *m, size_t i, const uint32_t **refs);
/* Frees what model_refs answers from (the graph walk is its only reader: carve releases it
 * once reach_run is done); model_refs then gives none. */
void model_release_refs(struct model *m);
/* Sum of the objects' sizes: the total of a phase that goes through every object. */
uint64_t model_object_bytes(const struct model *m);
/* Real address of the model address addr (the address itself unless it lies in an alias
 * window). */
uint64_t model_addr_va(const struct model *m, uint64_t addr);
/* Real address of the object: where its bytes lie in the image and what outputs print.  Its
 * HPROF id is o->addr. */
static inline uint64_t model_va(const struct model *m, const struct model_obj *o)
{
	return o->addr < m->alias_lo ? o->addr : model_addr_va(m, o->addr);
}
/* The alias window holding model address addr, NULL if none. */
const struct model_alias *model_alias_at(const struct model *m, uint64_t addr);
/* True when model address addr lies in an alias window: the id of an object above 4 GiB, and
 * to a reference unmapped memory that names no object. */
static inline bool model_in_alias(const struct model *m, uint64_t addr)
{
	return addr >= m->alias_lo && model_alias_at(m, addr);
}
/* Index of the object starting at addr, MODEL_NONE if none, and for any address in an alias
 * window (after model_finish: O(1) through the object-start index). */
size_t model_find(const struct model *m, uint64_t addr);
/* True when addr is the start of an empty free place (m->free_places; after model_finish). */
bool model_is_free_place(const struct model *m, uint64_t addr);
/* The space an object lies in. */
const struct art_space *model_space(const struct model *m, const struct model_obj *o);
/* Real address of the object's data: array elements, string characters (0 for others). */
uint64_t model_data_addr(const struct model *m, const struct model_obj *o);
/* Array or string length (elements / characters), 0 for others. */
uint32_t model_length(const struct model *m, const struct model_obj *o);
/* True when the String is stored 8-bit (compressed). */
bool model_string_compressed(const struct model *m, const struct model_obj *o);

/* Calls fn(arg, offset, value) for every reference field of the object with its value
 * (null ones included): instance fields of the class and its supers (the class word is
 * java.lang.Object's shadow$_klass_), object array elements, a Class's static references.
 * Stops at the first non-zero return of fn and returns it; read errors are -ERR_* with e
 * filled. */
typedef int (*model_ref_fn)(void *arg, uint32_t offset, uint32_t value);
int model_each_ref(const struct model *m, const struct model_obj *o, model_ref_fn fn, void *arg, struct err *e);

/* A candidate the checks reject is an anomaly "candidate at 0x... (free, room N): ..." when
 * the allocator's metadata says its place is free: a rejected candidate, which contradicts no
 * metadata (residue, or bytes that never were an object).  True for such a record. */
#define MODEL_FREE_CANDIDATE "free,"
bool model_anomaly_free_candidate(const struct anomaly *a);

/* Stable names: "allocated"/"free", "intact"/"partial"/"residue",
 * "unknown"/"reachable"/"unreachable", "instance"/"string"/"class"/"object-array"/"primitive-array". */
const char *model_alloc_name(unsigned v);
const char *model_content_name(unsigned v);
const char *model_reach_name(unsigned v);
const char *model_kind_name(unsigned v);

#endif
