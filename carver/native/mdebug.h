/* mdebug.h - allocations made under Android's malloc_debug, found in the native heap of a
 * memory image (doc/malloc-debug.md gives the layouts with their bionic sources).
 *
 * With a guard, backtrace (7.x/8.x), free_track (7.x/8.x) or leak_track (7.x/8.x) option set,
 * every allocation starts with a Header {u32 tag; void *orig_pointer; size_t size; size_t
 * usable_size} (packed), rounded up to MINIMUM_ALIGNMENT_BYTES (16 on 64-bit, 8 on
 * 32-bit); then, before the pointer P the app gets, the backtrace block (7.x/8.x only:
 * size_t num_frames + uintptr_t frames[backtrace], rounded up) and the front guard (0xaa,
 * rounded up); the rear guard (0xbb) follows the size bytes.  tag 0x1ee7d00d is live,
 * 0x1cc7dccd freed (kept on the free_track list or left in freed memory).
 *
 * The scan reads each native heap mapping through img_view: [anon:libc_malloc],
 * [anon:scudo:*], jemalloc and dlmalloc arenas, [heap]; when the image names no mapping
 * at all (a core without a maps listing), every writable anonymous region.  The option set
 * (the layout) is inferred from the headers found unless the caller gives it. */
#ifndef ARTCARVE_MDEBUG_H
#define ARTCARVE_MDEBUG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "carver/base/err.h"
#include "carver/image/image.h"

/* Values from bionic libc/malloc_debug (malloc_debug.h, Config.cpp @ android-7.0.0_r1 and later). */
#define MDEBUG_TAG 0x1ee7d00du
#define MDEBUG_FREE_TAG 0x1cc7dccdu
enum {
	MDEBUG_FRONT_GUARD_VALUE = 0xaa, MDEBUG_REAR_GUARD_VALUE = 0xbb,
	MDEBUG_FILL_ALLOC_VALUE = 0xeb, MDEBUG_FILL_FREE_VALUE = 0xef,
	MDEBUG_MAX_GUARD = 16384, MDEBUG_MAX_FRAMES = 256,
	MDEBUG_MAX_LISTED = 256,   /* damaged bytes recorded per allocation (all are counted) */
	MDEBUG_FIRST_BYTES = 32    /* data bytes kept per allocation for the report */
};

/* An option set, as libc.debug.malloc.options names it. */
struct mdebug_options {
	uint32_t front_guard, rear_guard;   /* bytes, 0 = off (front as rounded up) */
	uint32_t backtrace;                 /* frames reserved in the header (7.x/8.x), 0 = none */
	bool fill_alloc, fill_free, free_track;
};

/* Parses "guard=64 backtrace fill free_track" (space- or comma-separated; the option names
 * and defaults of bionic Config.cpp: guard/front_guard/rear_guard[=N] default 32,
 * backtrace[=N] default 16, fill, fill_on_alloc, fill_on_free, free_track[=N] (implies
 * fill_on_free); options that leave no trace in the heap are accepted and ignored). */
int mdebug_parse_options(const char *text, struct mdebug_options *o, struct err *e);
/* The same set written back as an options string ("none" when empty). */
void mdebug_options_text(const struct mdebug_options *o, char *buf, size_t n);

enum mdebug_state { MDEBUG_LIVE, MDEBUG_FREED, MDEBUG_TAG_CORRUPT };
enum mdebug_damage_kind { MDEBUG_FRONT, MDEBUG_REAR, MDEBUG_USE_AFTER_FREE };
const char *mdebug_state_name(enum mdebug_state s);
const char *mdebug_damage_name(enum mdebug_damage_kind k);

struct mdebug_damage {
	int64_t offset;      /* from P, as malloc_debug logs it: allocation[offset] */
	uint8_t found, expected;
	uint8_t kind;        /* enum mdebug_damage_kind */
};

struct mdebug_alloc {
	uint64_t header, pointer, orig_pointer;
	uint64_t size, usable_size;        /* size without the 7.x/8.x zygote bit */
	uint32_t tag;
	uint8_t state;                     /* enum mdebug_state */
	bool zygote;                       /* bit 31 of size (7.x/8.x) */
	bool cut;                          /* the capture ends inside the allocation */
	uint32_t front_damaged, rear_damaged, uaf_bytes;   /* counts */
	uint64_t fill_alloc_left;          /* data bytes still 0xeb */
	uint64_t fill_free_left;           /* data bytes still 0xef */
	size_t damage_first, damage_count; /* listed records in the result's damage[] */
	size_t frame_first, frame_count;   /* backtrace pcs in the result's frames[] */
	uint8_t first[MDEBUG_FIRST_BYTES];
	uint32_t first_len;
	const char *region;                /* mapping name (owned by the image) */
};

struct mdebug_result {
	unsigned bits;                     /* 32 or 64 */
	struct mdebug_options options;     /* the layout used */
	bool options_given;                /* from the caller, else inferred */
	bool names_used;                   /* regions chosen by name (else every writable anonymous one) */
	uint64_t regions_scanned, bytes_scanned;
	struct mdebug_alloc *allocs;       /* by address */
	size_t count, cap;
	struct mdebug_damage *damage;
	size_t ndamage, damage_cap;
	uint64_t *frames;
	size_t nframes, frames_cap;
	uint64_t live, freed, corrupt;     /* allocations per state */
};

struct mdebug_scan_opts {
	const struct mdebug_options *options;  /* NULL: infer */
	unsigned bits;                          /* 0: the image's pointer size, else tried both */
};

int mdebug_scan(const struct image *img, const struct mdebug_scan_opts *o, struct mdebug_result *r,
		struct err *e);
/* The scan of one buffer of heap bytes at address va (the fuzz target's entry). */
int mdebug_scan_bytes(const uint8_t *p, size_t len, uint64_t va, const struct mdebug_scan_opts *o,
		      struct mdebug_result *r, struct err *e);
void mdebug_result_free(struct mdebug_result *r);
/* True when the region is one the scan reads (names_used: by its name). */
bool mdebug_region_wanted(const struct img_region *rg, bool names_used);

#endif
