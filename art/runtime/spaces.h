/* spaces.h - which regions of a process image are ART's heap spaces and their helpers.
 *
 * Two sources, each reported per space ("how"):
 *   "name"     the mapping name ART gave it: "/dev/ashmem/dalvik-NAME (deleted)" (5.0-9) or
 *              "[anon:dalvik-NAME]" (10+); NAME per (runtime/gc/heap.cc,
 *              space/, accounting/ sources, allocator/rosalloc.cc @ 5.0 ... 14).
 *   "content"  the bytes, when names are missing (an ELF core without --maps): a boot/app
 *              image header whose image_begin is its own address; a RosAlloc page map
 *              (size = capacity / 4096 rounded up to a page, bytes 0..5 in run order) whose
 *              runs have plausible headers in a low-4-GiB region; a dlmalloc mspace whose
 *              malloc_state.least_addr is its own base; a region space (256 KiB aligned,
 *              each region starting with an object or zero); a free-list LOS whose
 *              allocation-info map walks exactly over it.
 * Names win over content; content confirms names where it can (RosAlloc pairing with its
 * page map is always by content: several spaces share the page-map name).
 *
 * The allocator probes (RosAlloc page map and run header, dlmalloc header, LOS info map)
 * live above art/, in rosalloc/probe/probe.c, with the walkers that use the same structures;
 * art/ may not call up, so the finder takes them as a struct space_probes from its
 * caller (rosalloc/probe/probe.h probe_spaces).
 *
 * Bounds follow ART's own Space::Begin/End/Limit: begin = mapping start, end = end of
 * the readable prefix (the PROT_NONE tail is unused capacity), limit = end of the
 * reservation.  The large-object map space spans its allocations (min begin, max end). */
#ifndef ARTCARVE_SPACES_H
#define ARTCARVE_SPACES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "carver/base/arena.h"
#include "carver/base/err.h"
#include "carver/image/image.h"

enum space_kind {
	/* spaces holding Java objects (names as in ART's space classes) */
	SPACE_IMAGE,            /* ImageSpace: boot*.art / app image */
	SPACE_ROSALLOC,         /* RosAllocSpace: "main space", "main space 1" */
	SPACE_DLMALLOC,         /* DlMallocSpace: "non moving space" ("alloc space" in 5.0) */
	SPACE_ZYGOTE,           /* ZygoteSpace: "zygote space" (5.0: "non moving space" + "alloc space") */
	SPACE_REGION,           /* RegionSpace: "main space (region space)" */
	SPACE_BUMP_POINTER,     /* BumpPointerSpace: a "main space" that is neither of the above */
	SPACE_LOS_MAP,          /* LargeObjectMapSpace: every "large object space allocation" */
	SPACE_LOS_FREELIST,     /* FreeListSpace: "free list large object space" / 5.x "large object space" */
	/* helper mappings */
	SPACE_LOS_ALLOCATION,   /* one allocation of the map LOS (one object) */
	SPACE_ROSALLOC_PAGE_MAP,/* "rosalloc page map" */
	SPACE_LOS_INFO_MAP,     /* "large object free list space allocation info map" */
	SPACE_BITMAP,           /* live/mark bitmaps of any space */
	SPACE_ALLOCATION_STACK, /* "allocation stack" */
	SPACE_LIVE_STACK,       /* "live stack" */
	SPACE_MARK_STACK,       /* "mark stack" and thread-local mark stacks */
	SPACE_CARD_TABLE,       /* "card table" */
	SPACE_DEX_IN_MEMORY,    /* "<entry> extracted in memory from <zip>" */
	SPACE_LINEAR_ALLOC,     /* "LinearAlloc": ArtField/ArtMethod arrays */
	SPACE_CMC_MAP,          /* the mark-compact collector's own maps (14+): from-space,
				 * moving-space shadow, compaction buffers, chunk-info vector,
				 * linear-alloc shadow and page-status maps */
	SPACE_KIND_COUNT
};

struct art_space {
	enum space_kind kind;
	uint64_t begin, end, limit;
	const char *name;       /* ART's name (after "dalvik-"), or "" when found by content */
	const char *how;        /* "name" or "content" */
	const char *detail;     /* how it was confirmed / what was derived, "" if nothing */
	bool backup;            /* an inactive twin (homogeneous-compaction "main space 1", empty) */
	uint64_t companion;     /* page map / info map of this space, or the space of a helper; 0 */
	size_t count;           /* LOS map space: allocations; bitmaps: 0 */
	uint64_t objects_end;   /* image spaces: end of the objects section (header), else 0 */
};

struct art_spaces {
	struct art_space *v;
	size_t count, cap;
	struct arena strings;
};

/* What a RosAlloc page-map byte says of its page. */
enum space_page_start { SPACE_PAGE_OTHER, SPACE_PAGE_RUN, SPACE_PAGE_LARGE };

/* Allocator content probes, implemented by rosalloc/probe/probe.c (probe_spaces; documented
 * there).  Each reads only the bytes given and returns "looks like one" or "not this". */
struct space_probes {
	bool (*page_map)(const uint8_t *p, size_t n, size_t *used_pages);
	bool (*page_map_one_word)(const uint8_t *p, size_t n, size_t *used_pages);
	enum space_page_start (*page_start)(uint8_t page_map_byte);
	bool (*run_header)(const uint8_t *p, size_t n);
	bool (*dlmalloc)(const uint8_t *p, size_t n, uint64_t base, unsigned pointer_size);
	bool (*los_info)(const uint8_t *p, size_t n, size_t space_pages);
};

/* Finds every space and helper mapping of img.  pointer_size (4 or 8; 0 = try both) is
 * used for the dlmalloc header test.  Never fails on odd content (it is skipped); returns
 * -ERR_NOMEM, or -ERR_INTERNAL when no probes are given. */
int spaces_find(struct art_spaces *s, const struct image *img, unsigned pointer_size,
		const struct space_probes *probes, struct err *e);
void spaces_release(struct art_spaces *s);

/* ART's class name for the kind ("RosAllocSpace", "RegionSpace", ...). */
const char *spaces_kind_name(enum space_kind k);
/* True for the kinds that hold Java objects (SPACE_IMAGE ... SPACE_LOS_FREELIST, and
 * SPACE_LOS_ALLOCATION). */
bool spaces_holds_objects(enum space_kind k);
/* The object-holding space containing va ([begin, end)), NULL if none. */
const struct art_space *spaces_at(const struct art_spaces *s, uint64_t va);

/* The ART name inside a mapping name: "NAME" of "/dev/ashmem/dalvik-NAME (deleted)",
 * "/dev/ashmem/dalvik-NAME", "[anon:dalvik-NAME]" or "dalvik-NAME".  Returns false (and
 * leaves *out untouched) for any other name. */
bool spaces_dalvik_name(const char *mapping, const char **out, size_t *len);
/* Kind for an ART mapping name (as returned by spaces_dalvik_name); SPACE_KIND_COUNT if
 * the name is not one of ART's heap names.  "main space" names give SPACE_ROSALLOC. */
enum space_kind spaces_kind_of_name(const char *name, size_t len);

/* Content probe (exposed for tests), reading only the bytes given. */
/* An ART image header at va: "art\n", three digits, NUL, and image_begin == va (u32 at 8
 * in 5.x-9, at 16 in 10+). */
bool spaces_probe_image_header(const uint8_t *p, size_t n, uint64_t va);

#endif
