/* mapfile.h - read-only memory mapping of an input file (never written). */
#ifndef ARTCARVE_MAPFILE_H
#define ARTCARVE_MAPFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "carver/base/cursor.h"
#include "carver/base/err.h"
#include "carver/base/sha256.h"

struct mapfile {
	const uint8_t *data;    /* NULL for an empty file */
	size_t len;
	char *path;
	/* the file's SHA-256 and size on disk once someone asked (img_input_sha256) */
	uint8_t sha256[SHA256_DIGEST];
	uint64_t disk_size;
	bool hashed;
};

/* Maps path PROT_READ/MAP_PRIVATE.  Empty files map to data=NULL, len=0. */
int mapfile_open(struct mapfile *m, const char *path, struct err *e);
void mapfile_close(struct mapfile *m);
/* Releases the whole pages of [p, p + n) that lie inside the mapping from the process: they
 * stay in the page cache and are read again from the file on the next access (the mapping
 * is private and never written, so nothing is lost).  Bounds the resident set of a pass
 * over an image bigger than memory.  A range outside the mapping is ignored. */
void mapfile_drop(const struct mapfile *m, const uint8_t *p, size_t n);
static inline void mapfile_cursor(const struct mapfile *m, struct cursor *c) { cur_init(c, m->data, m->len, 0); }

#endif
