/* strings_find.h - every java.lang.String the carve recovered, and string text left in freed
 * memory whose objects are gone: what strings.tsv and `artcarve strings` list.
 *
 * Two passes, in this order:
 *  1. objects: every String object of the model (kind string, and on 5.x every instance of
 *     java.lang.String, whose characters live in a char[]; allocated or free, each with its three
 *     states and confidence), in address order; its text is read by the mirror decoder
 *     (mirror_string_wtf8: compressed 8-bit or UTF-16, 5.x char[]; a lone surrogate kept).
 *  2. residue (on request): the empty free places of the model (model.h: free places whose
 *     class word the allocator overwrote: RosAlloc free-list slots, dlmalloc free chunks,
 *     whose bodies dlmalloc keeps) are scanned, from the end of the bytes the allocator
 *     overwrote (the candidate's `clobbered`) to the end of the place (its `room`, found by
 *     walking the spaces that hold free places again), in address order.  What counts:
 *       string-body  a String's body past its lost class word (8.0+ layouts, chars inline:
 *                    runtime/mirror/string.h @R80..R11): count_ is not in the overwritten bytes, decodes
 *                    to a length of at least 1 whose characters fit the place, and either
 *                    hash_ is non-zero and equals String.hashCode() of those characters
 *                    (s[0]*31^(n-1) + ... + s[n-1], java.lang.String.hashCode), or hash_
 *                    is 0 (never computed) and every character is printable (below) and
 *                    there are at least min_run of them.  Address: the place start (where
 *                    the String started).
 *       run8         a maximal run of at least min_run bytes 0x20-0x7E (printable ASCII, what
 *                    a compressed String or UTF-8/Latin-1 text holds), outside a string-body.
 *       run16        a maximal run of at least min_run 2-byte-aligned UTF-16LE units
 *                    0x0020-0x007E or 0x00A0-0x00FF (printable Latin-1, a UTF-16 String's or
 *                    char[]'s characters), outside a string-body.
 *     Residue reports alloc free, content residue, reach unknown and a confidence of 70
 *     (string-body with its hash), 50 (string-body, hash not computed) or 30 (runs).
 * Free String objects whose class word survived are objects (pass 1), not residue. */
#ifndef ARTCARVE_STRINGS_FIND_H
#define ARTCARVE_STRINGS_FIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "carver/base/err.h"
#include "carver/base/wbuf.h"
#include "rosalloc/model/model.h"
#include "rosalloc/model/referrers.h"

enum strings_source { STRINGS_OBJECT, STRINGS_BODY, STRINGS_RUN8, STRINGS_RUN16, STRINGS_SOURCE_COUNT };

enum { STRINGS_MIN_RUN = 8 };

struct strings_opts {
	bool residue;           /* scan the free places too (pass 2) */
	uint32_t min_run;       /* characters of a run (0: STRINGS_MIN_RUN) */
};

struct strings_hit {
	enum strings_source source;
	uint64_t addr;          /* the String object, the start of a string-body or of a run */
	size_t obj;             /* objects: index of a model object (model_obj), else MODEL_NONE */
	uint64_t place;         /* residue: start of the free place, else 0 */
	uint32_t length;        /* characters */
	bool compressed;        /* 8-bit characters */
	bool text_ok;           /* false: an object whose characters did not read (text empty) */
	const char *why;        /* then why not (valid during the callback only), else NULL */
	uint8_t alloc, content, reach, confidence;
	const uint8_t *text;    /* WTF-8, valid during the callback only */
	size_t text_len;
};

/* Return non-zero to stop (strings_each returns it). */
typedef int (*strings_fn)(void *arg, const struct strings_hit *h, struct err *e);

/* Calls fn for every string of m (finished model), objects then residue.  Returns 0, fn's
 * non-zero value, or -ERR_NOMEM / a walk error. */
int strings_each(const struct model *m, const struct strings_opts *o, strings_fn fn, void *arg, struct err *e);

/* "object", "string-body", "run8", "run16" */
const char *strings_source_name(unsigned s);

/* Appends what holds a reference at offset off of object model_obj(m, from):
 * "CLASS.FIELD" (an instance field of the object, CLASS its class), "CLASS[INDEX]" (an
 * object array element), "static CLASS.FIELD" (a static of the class a Class object is),
 * "CLASS+0xOFF" when no field is known there.  Names are as the runtime model has them
 * (unescaped; "?" for an unnamed class). */
void strings_describe_ref(const struct model *m, size_t from, uint32_t off, struct wbuf *out);

#endif
