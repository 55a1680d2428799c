/* ndump_agg.h - totals of a native heap dump: per call site (the same backtrace, whatever
 * the size), per library, and the placement of every PC in the dump's own MAPS section
 * (library + offset) with its symbol: from the ELF files of a symbols directory through
 * the symboliser (carver/image/symbolize.h) fed with the MAPS section, else from the v1.2
 * bt_info lines.  Fed by the ndump.h
 * parser through ndump_agg_sink; memory grows with the distinct call sites and PCs, not
 * with the file. */
#ifndef ARTCARVE_NDUMP_AGG_H
#define ARTCARVE_NDUMP_AGG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "carver/base/arena.h"
#include "carver/base/err.h"
#include "carver/image/maps.h"
#include "carver/image/symbolize.h"
#include "carver/native/ndump.h"

struct ndump_site {
	uint64_t hash;
	size_t nframes;
	const uint64_t *frames;         /* arena-owned, frame 0 innermost */
	uint64_t records;               /* "z" lines with this backtrace */
	uint64_t allocs, bytes;         /* sum of num and size * num */
	uint64_t records_bytes;         /* sum of size (one allocation per record) */
	uint64_t zygote_allocs, zygote_bytes;   /* of the "z 1" records, by NUM */
	uint64_t zygote_records, zygote_records_bytes;
	uint64_t first_line;
	uint64_t sort_bytes, sort_allocs;       /* the order of a->sites (ndump_agg_finish) */
};

struct ndump_lib {
	const char *name;               /* the MAPS name, "[unknown]" for unplaced PCs */
	uint64_t self_allocs, self_bytes;       /* sites whose frame 0 is in the library */
	uint64_t allocs, bytes;                 /* sites with any frame in the library */
	uint64_t sites;
};

/* Where a PC lies. */
struct ndump_place {
	uint64_t pc;
	bool placed;                    /* inside a MAPS entry */
	const char *lib;                /* its name ("" for an anonymous mapping) */
	uint64_t lib_offset;            /* pc - start + file offset of the mapping */
	const char *symbol;             /* NULL when unknown */
	uint64_t symbol_offset;
	const char *symbol_from;        /* "elf" (the symbols directory) or "bt_info" */
	const char *problem;            /* why a PC in a named file has no ELF symbol, or NULL */
};

struct ndump_pcinfo;

struct ndump_agg {
	struct arena arena;
	struct ndump_header h;          /* fingerprint copied into the arena */
	struct ndump_site **tab;        /* open-addressed by hash, tab_cap a power of two */
	size_t site_count, tab_cap;
	struct ndump_pcinfo **pctab;    /* PC -> bt_info, open-addressed */
	size_t pc_count, pc_cap;
	struct maps maps;               /* MAPS entries; sorted by start in ndump_agg_finish */
	struct ndump_site total;        /* every record (hash, frames unused) */
	uint64_t bt_info_records, frames_max;
	struct symz *symz;              /* NULL without a symbols directory */
	uint64_t symz_maps, symz_maps_rejected; /* MAPS lines given to it / refused (overlaps) */
	int place_rc;                   /* first failure of ndump_agg_place (sticky), with: */
	struct err place_err;
	/* after ndump_agg_finish */
	bool num_trusted;               /* NUM counts (false: a v1.0 dump with the old count bug) */
	struct ndump_site **sites;      /* site_count, by bytes then allocations, descending */
	struct ndump_lib *libs;         /* lib_count, by self bytes then bytes, descending */
	size_t lib_count;
};

void ndump_agg_init(struct ndump_agg *a);
void ndump_agg_release(struct ndump_agg *a);
/* Names symbols from the ELF files under dir (a copy of the device's tree: dir + the MAPS
 * path).  Before the parse.  0 or -ERR_NOMEM. */
int ndump_agg_symbols(struct ndump_agg *a, const char *dir, struct err *e);
/* A sink for ndump_parse that feeds a. */
void ndump_agg_sink(struct ndump_agg *a, struct ndump_sink *sink);
/* Sorts, decides whether NUM is trusted (v1.0: only when the header's Total memory equals
 * the sum of size * num), places the PCs and sums the libraries.  0 or -ERR_NOMEM. */
int ndump_agg_finish(struct ndump_agg *a, struct err *e);
/* Allocations and bytes of a site (or a->total) as the dump means them: by NUM, or one per
 * record when NUM is not trusted; also those of the zygote's children ("z 1"). */
uint64_t ndump_site_allocs(const struct ndump_agg *a, const struct ndump_site *s);
uint64_t ndump_site_bytes(const struct ndump_agg *a, const struct ndump_site *s);
uint64_t ndump_site_zygote_allocs(const struct ndump_agg *a, const struct ndump_site *s);
uint64_t ndump_site_zygote_bytes(const struct ndump_agg *a, const struct ndump_site *s);
/* Places pc in the MAPS section and names it (after finish).  A failure of the symboliser
 * (out of memory) leaves the symbol out and is kept for ndump_agg_status. */
void ndump_agg_place(struct ndump_agg *a, uint64_t pc, struct ndump_place *p);
/* 0, or the first failure ndump_agg_place met (into *e). */
int ndump_agg_status(const struct ndump_agg *a, struct err *e);

#endif
