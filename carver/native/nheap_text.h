/* nheap_text.h - the line reader and field scanner shared by the native heap text formats
 * (carver/native/ndump.c: "Android Native Heap Dump", carver/native/nrec.c: malloc_debug
 * record_allocs).  Both formats are lines of space-separated fields written with printf by
 * bionic's libc/malloc_debug (see doc/malloc-debug.md).
 *
 * A line is borrowed from the caller's buffer (an mmap'd file): no copy, no NUL.  Errors
 * name the file, the line (1-based) and the column (1-based byte) of the field that does not
 * parse: "heap.txt:12:7: expected the size after \"sz\"". */
#ifndef ARTCARVE_NHEAP_TEXT_H
#define ARTCARVE_NHEAP_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "carver/base/cursor.h"
#include "carver/base/err.h"
#include "carver/base/mapfile.h"

struct nh_lines {
	struct cursor cur;      /* over the whole text; pos is the start of the next line */
	uint64_t no;            /* number of the last line returned */
	const struct mapfile *drop;     /* when the text is this mapping: pages behind are */
	size_t dropped, prev;           /* handed back (up to the line before the last one) */
};

struct nh_line {
	const char *s;          /* without its "\n" (and a "\r" before it) */
	size_t len;
	uint64_t no;            /* 1-based */
	uint64_t off;           /* file offset of s[0] */
	bool complete;          /* ended by "\n" (false: the text ends inside this line) */
};

/* drop (may be NULL): the read-only mapping p lies in; every NH_DROP_EVERY bytes the pages
 * already read are given back to the kernel (mapfile_drop), so the resident set stays small
 * on a big file (the bytes stay readable: they come back from the page cache if touched). */
void nh_lines_init(struct nh_lines *r, const uint8_t *p, size_t len, const struct mapfile *drop);
#define NH_DROP_EVERY (8u << 20)
/* Next line into *l: 1, or 0 at the end of the text. */
int nh_lines_next(struct nh_lines *r, struct nh_line *l);
/* Bytes consumed so far (the offset of the next line). */
static inline uint64_t nh_lines_offset(const struct nh_lines *r) { return cur_where(&r->cur); }

struct nh_scan {
	const struct nh_line *l;
	size_t pos;
	const char *path;       /* for messages */
};

static inline void nh_scan_init(struct nh_scan *sc, const struct nh_line *l, const char *path)
{
	sc->l = l;
	sc->pos = 0;
	sc->path = path;
}
/* -code with "PATH:LINE:COL: message" (COL is pos+1). */
int nh_bad(const struct nh_scan *sc, struct err *e, enum err_code code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Skips spaces and tabs; the number skipped. */
size_t nh_spaces(struct nh_scan *sc);
static inline bool nh_at_end(const struct nh_scan *sc) { return sc->pos == sc->l->len; }
/* True and past it when the text at pos is lit. */
bool nh_lit(struct nh_scan *sc, const char *lit);
/* A word up to the next space: *w and *n (n >= 1), or a "expected WHAT" error. */
int nh_word(struct nh_scan *sc, const char **w, size_t *n, const char *what, struct err *e);
/* Unsigned decimal (fits 64 bits) / hexadecimal of 1..16 digits, "0x" allowed when
 * with_0x; a "expected WHAT" error otherwise (the position does not move on error). */
int nh_dec(struct nh_scan *sc, uint64_t *v, const char *what, struct err *e);
int nh_hex(struct nh_scan *sc, uint64_t *v, bool with_0x, const char *what, struct err *e);
/* The field just read must be followed by a space or the end of the line. */
int nh_field_end(struct nh_scan *sc, const char *what, struct err *e);
/* Nothing but spaces may be left on the line. */
int nh_expect_end(struct nh_scan *sc, struct err *e);

#endif
