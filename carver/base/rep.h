/* rep.h - one writer for the reports commands print: JSON, or text "key: value" lines
 * with the same keys, so a report is written once for both.
 *
 * JSON: keys are printed in the order they are written (stable output for the same
 * input); members and items are separated by ", " on one line, or, in a container opened
 * with rep_open_lines, each on its own line indented two spaces per such container.
 * Strings are escaped by escape_json (escape.h): valid JSON whatever the bytes (invalid
 * UTF-8 as U+FFFD), the same escaper every JSON output uses.  Hex addresses
 * are JSON strings "0x...", numbers are decimal.
 * Text: rep_open prints "key:" (an unnamed item "-") and indents what follows by two
 * spaces; a value prints "key: value" (an unnamed one just the value); booleans are
 * yes/no.  Free-form lines (tables) go to r->fp directly or through rep_line.
 * Reports nest a few levels, fixed by the code (never by the input): REP_MAX_DEPTH. */
#ifndef ARTCARVE_REP_H
#define ARTCARVE_REP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum { REP_MAX_DEPTH = 16 };

struct rep {
	FILE *fp;
	bool json;
	int depth;
	struct {
		bool first;   /* nothing written yet at this level (JSON separators) */
		bool array;   /* the level is a list: its values have no key */
		bool lines;   /* JSON: one member per line */
	} lv[REP_MAX_DEPTH];
};

/* Starts a report on fp (borrowed) at the top level, where one value (usually an object
 * from rep_open) is written without a key. */
void rep_init(struct rep *r, FILE *fp, bool json);
/* Starts a report that continues a list someone else opened: the next value is an item
 * of an array at the top level, preceded by ", " unless first (art-file's files, each
 * reported on its own). */
void rep_init_item(struct rep *r, FILE *fp, bool json, bool first);

void rep_open(struct rep *r, const char *key, bool array);
void rep_open_lines(struct rep *r, const char *key, bool array);
void rep_close(struct rep *r);

void rep_u(struct rep *r, const char *key, uint64_t v);
void rep_i(struct rep *r, const char *key, int64_t v);
void rep_hex(struct rep *r, const char *key, uint64_t v);
void rep_bool(struct rep *r, const char *key, bool v);
/* s may be NULL: JSON null, text "-". */
void rep_s(struct rep *r, const char *key, const char *s);
/* n bytes of s, not NUL-terminated. */
void rep_sn(struct rep *r, const char *key, const char *s, size_t n);
/* JSON null; text "key: -". */
void rep_null(struct rep *r, const char *key);
/* Text only: one free-form line at the current indentation (JSON writes members instead). */
void rep_line(struct rep *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* s (n bytes) as a JSON string literal on fp, escaped by escape_json_quoted (escape.h). */
void rep_json_string(FILE *fp, const char *s, size_t n);

#endif
