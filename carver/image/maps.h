/* maps.h - parser for /proc/PID/maps listings (Linux and Android).
 *
 * Line format (fs/proc/task_mmu.c show_map_vma):
 *   START-END PERMS OFFSET MAJOR:MINOR INODE [NAME]
 * e.g. "12c00000-2ac00000 rw-p 00000000 00:00 0    [anon:dalvik-main space (region space)]".
 * Accepted variations: addresses of any width with or without "0x"; CR-LF line ends; blank
 * lines; a missing offset/dev/inode tail (some tools print only "START-END PERMS [NAME]");
 * names holding spaces (kept verbatim, including a trailing " (deleted)", which is also
 * flagged).  Android 5-9 name ART's mappings "/dev/ashmem/dalvik-NAME (deleted)", 10+
 * "[anon:dalvik-NAME]"; both are kept as they are.  Anything else is an error naming the
 * line number. */
#ifndef ARTCARVE_MAPS_H
#define ARTCARVE_MAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "carver/base/arena.h"
#include "carver/base/err.h"

struct maps_entry {
	uint64_t start, end;    /* [start, end), start < end */
	uint32_t prot;          /* IMG_PROT_* bits (r=4 w=2 x=1) */
	bool shared;            /* 's' in the fourth perms column */
	uint64_t offset;        /* file offset of start (0 when absent) */
	uint64_t inode;
	const char *name;       /* NUL-terminated, "" if none; owned by struct maps */
	bool deleted;           /* the name ends in " (deleted)" */
};

struct maps {
	struct maps_entry *entries; /* in listing order */
	size_t count, cap;
	struct arena names;
};

/* Parses one line (with or without its "\n"); line_no is for messages.  Returns 0 and
 * *out (out->name copied into the arena names), 1 for a blank line, or -ERR_CORRUPT /
 * -ERR_NOMEM. */
int maps_parse_line(const char *line, size_t len, unsigned line_no, struct maps_entry *out,
		    struct arena *names, struct err *e);

/* Parses a whole listing.  Entries are kept in listing order (they need not be sorted and
 * may overlap; consumers decide).  Returns 0 or -ERR_CORRUPT/-ERR_NOMEM. */
int maps_parse(struct maps *m, const uint8_t *text, size_t len, struct err *e);
/* Reads and parses a file (prefixes errors with the path). */
int maps_load(struct maps *m, const char *path, struct err *e);
void maps_init(struct maps *m);
void maps_release(struct maps *m);

/* Entry whose [start,end) holds va, the last listed one when several do; NULL if none. */
const struct maps_entry *maps_find(const struct maps *m, uint64_t va);

/* "rwxp" text for prot bits (buf of at least 5 bytes); shared selects 's'. */
const char *maps_prot_text(uint32_t prot, bool shared, char buf[5]);

#endif
