/* yaraw.h - YARA rules through Debian's libyara (4.2).  The only includer of <yara.h>.
 *
 * Rules are compiled from one file; a file that does not compile is refused with its first
 * error as "FILE:LINE: MESSAGE".  A scanner is made once per rule set and reused for every
 * buffer (libyara's per-scan set-up would otherwise dominate a scan of many small objects).
 * Each rule that matches a buffer is reported per matched string occurrence (identifier,
 * offset, length, the matched bytes), or once with no string when its condition holds
 * without one ("condition: true", filesize).  Not thread-safe: one scan at a time. */
#ifndef ARTCARVE_YARAW_H
#define ARTCARVE_YARAW_H

#include <stddef.h>
#include <stdint.h>

#include "carver/base/err.h"

struct yaraw;

struct yaraw_match {
	const char *rule;        /* the rule's identifier */
	const char *tags;        /* its tags joined by ' ' ("" when none) */
	const char *string;      /* the string's identifier ("$a"), "" for a condition-only match */
	uint64_t offset;         /* in the buffer */
	uint32_t length;
	const uint8_t *data;     /* the matched bytes libyara kept (at most 512) */
	size_t data_len;
};

/* Non-zero stops the scan; yaraw_scan returns it. */
typedef int (*yaraw_match_fn)(void *arg, const struct yaraw_match *m, struct err *e);

/* Compiles the rules of path.  Returns 0, -ERR_IO (unreadable), -ERR_CORRUPT (the rules do not
 * compile: "PATH:LINE: MESSAGE"), -ERR_NOMEM. */
int yaraw_open(struct yaraw **y, const char *path, struct err *e);
void yaraw_close(struct yaraw *y);    /* NULL-safe */
/* Scans p[0, n) with every rule. */
int yaraw_scan(struct yaraw *y, const uint8_t *p, size_t n, yaraw_match_fn fn, void *arg, struct err *e);
/* "libyara 4.2.3" */
const char *yaraw_version(void);

#endif
