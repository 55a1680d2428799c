/* mapfile.h - read-only memory mapping of an input file (never written). */
#ifndef ARTCARVE_MAPFILE_H
#define ARTCARVE_MAPFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "carver/base/cursor.h"
#include "carver/base/err.h"
#include "carver/base/sha256.h"

/* A run of file bytes [off, end) the file system holds as data (what is between two runs
 * is a hole: never written, reads as zero). */
struct mapfile_extent {
	uint64_t off, end;
};

/* At most this many data runs are remembered; from the last one on, the file counts as data. */
enum { MAPFILE_MAX_EXTENTS = 1 << 16 };

struct mapfile {
	const uint8_t *data;    /* NULL for an empty file */
	size_t len;
	/* the file's data runs, sorted, disjoint, inside [0, len): found once at open with
	 * lseek(SEEK_DATA / SEEK_HOLE); one run [0, len) where the file system cannot tell */
	struct mapfile_extent *ext;
	size_t ext_count;
	uint64_t data_bytes;    /* the sum of the data runs: what reading the file can touch */
	char *path;
	struct sha256_memo digest;   /* once someone asked (img_input_sha256) */
};

/* Maps path PROT_READ/MAP_PRIVATE.  Empty files map to data=NULL, len=0. */
int mapfile_open(struct mapfile *m, const char *path, struct err *e);
void mapfile_close(struct mapfile *m);
/* Finds the data runs of the open file fd of size bytes into *v / *n (xmalloc'd, freed by the
 * caller; *v NULL when *n is 0, an empty or all-hole file).  seek false, or a file system
 * without SEEK_DATA, gives one run [0, size) (everything counts as data).  Bounded: at most
 * MAPFILE_MAX_EXTENTS runs, the last one reaching the end of the file when there would be more.
 * -ERR_NOMEM. */
int mapfile_find_extents(int fd, uint64_t size, bool seek, struct mapfile_extent **v, size_t *n,
			 struct err *e);
/* Offset of the first byte at or after off, below end, that the file holds as data (end when
 * [off, end) is all hole); *run_end the end of that data run, capped at end. */
uint64_t mapfile_next_data(const struct mapfile *m, uint64_t off, uint64_t end, uint64_t *run_end);
/* Releases the whole pages of [p, p + n) that lie inside the mapping from the process: they
 * stay in the page cache and are read again from the file on the next access (the mapping
 * is private and never written, so nothing is lost).  Bounds the resident set of a pass
 * over an image bigger than memory.  A range outside the mapping is ignored. */
void mapfile_drop(const struct mapfile *m, const uint8_t *p, size_t n);
static inline void mapfile_cursor(const struct mapfile *m, struct cursor *c) { cur_init(c, m->data, m->len, 0); }

#endif
