/* walk.h - what every space walker yields: candidate objects with where they were found and
 * what the allocator's own metadata says about them.
 *
 * A walker takes one space of the runtime model (art/runtime/spaces.h) and calls emit() once
 * per candidate, in ascending address order inside the space.  A candidate is a place where
 * an object starts or started: a RosAlloc slot, a page-level RosAlloc allocation, an object
 * inside a region, a dlmalloc chunk's payload, a large-object allocation, an image object.
 * The walker does not decide whether the bytes there form an object: the object model
 * (rosalloc/model/) checks every candidate (class word, size against `room`, array length,
 * references) and turns a failing one into an anomaly, never into an object.
 *
 * Damage in the allocator's own metadata (a page-map byte out of range, a free-list link out
 * of its run, a cycle, a chunk size past the space) is recorded in the caller's anomaly sink
 * and the walk goes on with the rest of the space; a walker returns an error only when
 * emit() or unit() fails or memory runs out.
 *
 * Besides candidates a walker reports its allocation units (RosAlloc runs, page-level
 * allocations and free page runs, regions, dlmalloc chunks, LOS blocks) through the
 * optional unit() callback: what `artcarve walk` lists and what the tests compare with
 * ART's own dumps (RosAlloc::DumpPageMap, RegionSpace::DumpNonFreeRegions). */
#ifndef ARTCARVE_WALK_H
#define ARTCARVE_WALK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "art/runtime/runtime.h"
#include "carver/base/anomaly.h"
#include "carver/base/err.h"
#include "carver/base/progress.h"

/* What the allocator's metadata says of the candidate's bytes. */
enum walk_alloc {
	WALK_ALLOCATED,   /* in use per the allocator (slot on no free list, chunk in-use bit, ...) */
	WALK_FREE,        /* free per the allocator: what survives there is residue */
	WALK_ALLOC_UNKNOWN/* the metadata that would tell is not in the image */
};

/* Kind of place the candidate was found in (how `where` and `index` read). */
enum walk_place {
	WALK_ROSALLOC_SLOT,   /* where = run address, index = slot number */
	WALK_ROSALLOC_LARGE,  /* where = first page (page map 4), index = page count */
	WALK_REGION,          /* where = region start, index = region number in the space */
	WALK_REGION_LARGE,    /* where = first region (Large), index = region count (Large + LargeTail) */
	WALK_DLMALLOC_CHUNK,  /* where = chunk header address, index = 0 */
	WALK_LOS,             /* where = allocation start, index = 0 */
	WALK_IMAGE,           /* where = image begin, index = object number in the objects section */
	WALK_BUMP,            /* where = space begin (zygote / bump-pointer space), index = 0 */
	WALK_CMC_FROM_SPACE,  /* the mark-compact from-space (cmc.c), where = its begin, index = 0 */
	WALK_PLACE_COUNT
};

/* Candidate flags. */
enum {
	WALK_F_ORPHAN = 1,    /* RosAlloc 7.0+: a free slot no list reached (its next_ link and zero
	                       * body say free; captured mid-update) */
	WALK_F_DEAD = 2,      /* region space: in a gap the GC declared dead (poison, or not marked
	                       * in the live bitmap of an unevacuated region) */
	WALK_F_THREAD_LOCAL = 4, /* in a thread-local RosAlloc run / a TLAB region */
	WALK_F_SIZED_BY_BITMAP = 8, /* contiguous walks: the class is not in the image (another
	                       * image's), the space's live bitmap gave the next object start */
};

struct walk_candidate {
	uint64_t addr;          /* where the object starts */
	uint64_t room;          /* bytes from addr that the place holds (slot size, chunk payload,
	                         * region top - addr, allocation size); the object must fit */
	enum walk_alloc alloc;
	enum walk_place place;
	const struct art_space *space;
	uint64_t where;
	uint32_t index;
	/* Leading bytes the allocator itself overwrote after the free (a free-list next pointer,
	 * dlmalloc's fd/bk links); 0 when nothing is known to be overwritten.  The model reports
	 * content "partial" when the object's class word lies in them or is damaged by them. */
	uint32_t clobbered;
	/* Extra evidence: live bitmap bit (1/0, -1 unknown); on the allocation stack (1/0, -1). */
	int8_t live_bit, on_alloc_stack;
	uint8_t flags;          /* WALK_F_* */
	/* Size the walker computed for the object when it had to (contiguous walks: regions,
	 * image and bump spaces), 0 when it did not size it (slots, chunks, LOS). */
	uint64_t size;
};

/* Allocation units, reported through unit(). */
enum walk_unit_kind {
	WALK_UNIT_RUN,        /* RosAlloc run: bracket, pages, slots, allocated / free */
	WALK_UNIT_LARGE,      /* RosAlloc page-level allocation: pages */
	WALK_UNIT_FREE_PAGES, /* RosAlloc free pages (page map 0/1), a maximal stretch */
	WALK_UNIT_REGION,     /* one 256 KiB region (Large + LargeTails as one unit) */
	WALK_UNIT_CHUNK_SPAN, /* dlmalloc: the chunk walk of one space (allocated / free chunks) */
	WALK_UNIT_LOS,        /* a large-object allocation or free block */
	WALK_UNIT_CONTIGUOUS, /* image objects section / bump-pointer part */
	WALK_UNIT_KIND_COUNT
};

/* Region state as the walk infers it (RegionState names, runtime/gc/space/region_space.h). */
enum walk_region_state {
	WALK_RS_FREE,       /* all zero */
	WALK_RS_ALLOCATED,  /* objects from its start */
	WALK_RS_LARGE,          /* one object larger than a region starts here */
	WALK_RS_LARGE_TAIL, /* continuation of a large object */
	WALK_RS_UNKNOWN         /* not captured, or nothing walkable */
};

struct walk_unit {
	enum walk_unit_kind kind;
	const struct art_space *space;
	uint64_t begin, end;    /* the unit's bytes */
	uint32_t index;         /* page index (RosAlloc), region number (region space) */
	uint32_t pages;         /* RosAlloc pages / regions spanned */
	/* RosAlloc runs */
	int bracket;            /* size bracket index, -1 if none */
	uint32_t slot_size, slots;
	bool thread_local, bulk_free;
	/* regions, chunk spans, runs, contiguous walks */
	enum walk_region_state state;
	uint64_t top;           /* region: end of the last object walked (begin when empty) */
	uint64_t allocated, free;       /* candidates by state (runs: slots; chunks: chunks) */
	uint64_t dead;          /* region space: candidates flagged dead */
	uint64_t damaged;       /* anomalies recorded for this unit */
	/* bump-pointer spaces (contig.c): the zero gap a linear walk stops at, [gap_begin,
	 * gap_end), objects again from gap_end up to top; both 0 when the space has none */
	uint64_t gap_begin, gap_end;
};

typedef int (*walk_emit_fn)(void *arg, const struct walk_candidate *c, struct err *e);
typedef int (*walk_unit_fn)(void *arg, const struct walk_unit *u, struct err *e);
/* Damage a walker found, as anomaly_add takes it (msg formatted; space the walker's name). */
typedef void (*walk_anom_fn)(void *arg, enum anomaly_code code, enum err_code cause, uint64_t va,
			     const char *space, const char *msg);

struct walk_evidence;

struct walk_ctx {
	const struct art_runtime *rt;   /* image, layout, pointer size, classes, spaces */
	struct anomaly_sink *sink;      /* where damage is recorded */
	walk_emit_fn emit;
	void *arg;
	walk_unit_fn unit;              /* optional (NULL): allocation units */
	void *unit_arg;
	/* optional (NULL): bitmaps and GC stacks (walk_evidence_open); walk_all opens its own
	 * when NULL.  Not const: it counts what it was consulted for. */
	struct walk_evidence *ev;
	/* optional (NULL): walk_all starts a phase of the bytes of the spaces it walks and every
	 * candidate reports how far its space's walk got (progress_base: the spaces before it) */
	struct progress *progress;
	uint64_t progress_base;
	/* optional (NULL): where the walkers' damage goes instead of sink (walk_all_piped) */
	walk_anom_fn anom;
	void *anom_arg;
};

/* Every object space of ctx->rt in address order: RosAlloc (both twins), region, dlmalloc
 * (non-moving, zygote with its bump part), large-object spaces (each allocation of the map
 * LOS, the free-list LOS), image spaces, bump-pointer spaces, the mark-compact from-space.  Inactive twins are walked too
 * (a twin that holds nothing yields nothing). */
int walk_all(const struct walk_ctx *ctx, struct err *e);
/* walk_all with the walkers on a thread of their own: what they yield (candidates, units,
 * damage) passes through a bounded queue, in order, to ctx's emit, unit and sink on the
 * caller's thread, so that these see exactly the calls walk_all makes, in the same order,
 * and the checks of one candidate overlap the walk to the next.  An error of emit or unit
 * stops the walkers; the error returned is the one walk_all would return.  ctx->progress
 * moves on the walkers' thread.  What emit and unit read beside the walkers must be safe to
 * read while they run (the image, the runtime model).  Falls back to walk_all when no
 * thread can be started. */
int walk_all_piped(const struct walk_ctx *ctx, struct err *e);
/* One space, by its kind.  Helper mappings (bitmaps, page maps) yield nothing. */
int walk_space(const struct walk_ctx *ctx, const struct art_space *s, struct err *e);

/* The walkers (each takes a space of its kind). */
int walk_rosalloc(const struct walk_ctx *ctx, const struct art_space *s, struct err *e);
int walk_region(const struct walk_ctx *ctx, const struct art_space *s, struct err *e);
int walk_dlmalloc(const struct walk_ctx *ctx, const struct art_space *s, struct err *e);
int walk_los_map(const struct walk_ctx *ctx, const struct art_space *s, struct err *e);
int walk_los_freelist(const struct walk_ctx *ctx, const struct art_space *s, struct err *e);
int walk_image(const struct walk_ctx *ctx, const struct art_space *s, struct err *e);
int walk_bump(const struct walk_ctx *ctx, const struct art_space *s, struct err *e);
/* The collector maps of mark-compact (SPACE_CMC_MAP): only "Concurrent mark-compact
 * from-space" yields candidates, free ones, what a compaction dropped (cmc.c). */
int walk_cmc_from_space(const struct walk_ctx *ctx, const struct art_space *s, struct err *e);

/* RosAlloc bracket idx of a layout family's row ("5.0", "5.1"/"6.0", "7.0" and later): slot
 * size, run pages, slots per run, header bytes (= first slot offset).  -1 when the family
 * has no row or idx is past its brackets. */
int walk_rosalloc_geometry(const char *family, unsigned idx, uint32_t *size, uint32_t *pages, uint32_t *slots,
			   uint32_t *header);

/* ---- evidence ART keeps in its own mappings (evidence.c) ---- */

enum walk_ev_source {
	WALK_EV_LIVE_BITMAP,    /* live/mark bitmaps of the spaces (1 bit per 8 bytes) */
	WALK_EV_LOS_BITMAP,     /* "large live objects" / "large marked objects" (1 bit per page) */
	WALK_EV_ALLOC_STACK,    /* "allocation stack": objects allocated since the last GC */
	WALK_EV_LIVE_STACK,     /* "live stack": the allocation stack of the last GC */
	WALK_EV_CARD_TABLE,     /* "card table" (dirty cards: written since the last GC) */
	WALK_EV_COUNT
};

struct walk_ev_report {
	bool present;           /* the mapping is in the image (captured) */
	bool used;              /* it decided something for at least one candidate */
	uint32_t mappings;      /* mappings found */
	uint64_t entries;       /* set bits / stack entries / dirty cards */
	uint64_t consulted;     /* candidates it was consulted for */
};

/* Finds the bitmaps and stacks of rt's spaces.  Bitmaps are tied to spaces by size (capacity
 * / 64 bytes, LOS: 4 GiB / 4096 / 8; an image space's by its name, "imagespace <file>
 * live-bitmap <n>") and by content (of the two bitmaps of a space, outside a
 * GC at most one is non-zero: that one is live, whatever its name says; heap.cc,
 * mark_sweep.cc @ 7.1).  Damage (a stack entry outside every space) is recorded in sink.
 * Returns 0 or -ERR_NOMEM. */
struct walk_evidence *walk_evidence_open(const struct art_runtime *rt, struct anomaly_sink *sink, struct err *e);
void walk_evidence_close(struct walk_evidence *ev);
/* Live bit of the object start addr in space s: 1, 0, or -1 when no live bitmap of s is in
 * the image (LOS: the page's bit). */
int walk_evidence_live(struct walk_evidence *ev, const struct art_space *s, uint64_t addr);
/* Whether the live bitmap of s marks any object start in [begin, end): 1, 0, or -1 when no
 * live bitmap of s is in the image. */
int walk_evidence_marked(struct walk_evidence *ev, const struct art_space *s, uint64_t begin, uint64_t end);
/* The first object start the live bitmap of s marks in [from, limit), limit when none or
 * when s has no live bitmap in the image. */
uint64_t walk_evidence_next_live(struct walk_evidence *ev, const struct art_space *s, uint64_t from, uint64_t limit);
/* 1 when addr is on the allocation stack or the live stack, 0 when it is not, -1 when
 * neither stack is in the image. */
int walk_evidence_on_stack(struct walk_evidence *ev, uint64_t addr);
/* Whether each source is present and was used (counts of the walk so far). */
void walk_evidence_report(const struct walk_evidence *ev, struct walk_ev_report out[WALK_EV_COUNT]);
/* Stable name of a source ("live_bitmap", "allocation_stack", ...). */
const char *walk_ev_source_name(enum walk_ev_source s);

/* Stable names for output ("rosalloc_slot", "allocated", "run", "allocated"). */
const char *walk_place_name(enum walk_place p);
const char *walk_alloc_name(enum walk_alloc a);
const char *walk_unit_kind_name(enum walk_unit_kind k);
const char *walk_region_state_name(enum walk_region_state s);

#endif
