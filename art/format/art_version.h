/* art_version.h - the one matcher from a version to the row of a version table.
 *
 * Every ART file starts with a 4-byte magic and a version string of three ASCII digits
 * and a NUL ("art\n085\0", "oat\n183\0", "vdex027\0", "dex\n039\0", "cdex001\0"); the
 * decoders keep one row per version range (art_layout.c, oat.c, vdex.c, dex.c, ...).  A
 * table names, for each row, either a version list ("085,086", "035,037-040") or an
 * inclusive numeric range (two unsigned fields).  Matching tries every row: a version
 * that fits no row is unsupported, one that fits two rows is ambiguous, and a version
 * string cut short is truncated even when its digits fit one row - an error each time,
 * never a guess (Sleuth Kit's fs_open.c rejects a volume that two openers claim). */
#ifndef ARTCARVE_ART_VERSION_H
#define ARTCARVE_ART_VERSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "carver/base/cursor.h"
#include "carver/base/err.h"

#define ART_VERSION_NONE ((size_t)-1) /* a row member the table does not have */

struct art_version_table {
	const char *what;      /* "image", "OAT", "VDEX", "DEX": names the versions in messages */
	const void *rows;
	size_t count, stride;  /* row i is at (const char *)rows + i * stride */
	size_t list_at;        /* offset of the row's `const char *` version list, or NONE */
	size_t lo_at, hi_at;   /* offsets of the row's `unsigned` range bounds, or NONE */
	size_t name_at;        /* offset of the row's `const char *` label, or NONE */
};

/* Initializers of a table over an array of `type` rows whose versions are the list `member`;
 * name_at is offsetof(type, label member) or ART_VERSION_NONE. */
#define ART_VERSION_LIST_TABLE(what, type, rows, count, member, name_at)                          \
	{ (what), (rows), (count), sizeof(type), offsetof(type, member), ART_VERSION_NONE,           \
	  ART_VERSION_NONE, (name_at) }
/* A table over an array of `type` rows whose versions are [lo, hi] (members lo and hi). */
#define ART_VERSION_RANGE_TABLE(what, type, rows, count, lo, hi, name_at)                         \
	{ (what), (rows), (count), sizeof(type), ART_VERSION_NONE, offsetof(type, lo),               \
	  offsetof(type, hi), (name_at) }

enum { ART_VERSION_NO_ROW = -1, ART_VERSION_AMBIGUOUS = -2 };

/* Index of the one row holding version v; ART_VERSION_NO_ROW or ART_VERSION_AMBIGUOUS. */
long art_version_row_of(const struct art_version_table *t, unsigned v);
static inline const void *art_version_row(const struct art_version_table *t, size_t i)
{
	return (const char *)t->rows + i * t->stride;
}
/* art_version_row_of as an error: -ERR_UNSUP naming the known versions when no row holds v,
 * -ERR_UNSUP naming both rows when two do; va is the version's offset for the message. */
int art_version_find(const struct art_version_table *t, unsigned v, uint64_t va, size_t *row, struct err *e);
/* Reads the version string at offset `at` of c (three ASCII digits and a NUL) and finds
 * its row.  -ERR_CORRUPT when it is not digits + NUL, -ERR_TRUNC when c ends inside it (the
 * message says how many rows its digits fit), else as art_version_find. */
int art_version_match(const struct art_version_table *t, const struct cursor *c, size_t at, unsigned *v,
		      size_t *row, struct err *e);
/* True when list (items "ddd" or "ddd-ddd", comma-separated) is well formed. */
bool art_version_list_valid(const char *list);

#endif
