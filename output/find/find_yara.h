/* find_yara.h - YARA rules (carver/wrap/yaraw.h) over the carved objects, each match
 * attributed to its object, class, holder field and state.
 *
 * What each object gives to the rules, one buffer at a time (a rule's condition sees one
 * buffer, not the whole heap):
 *   String        its characters as stored ("stored": 8-bit when compressed, UTF-16LE
 *                 otherwise) and the other form ("utf16": a compressed String widened to
 *                 UTF-16LE; "utf8": a UTF-16 String as UTF-8), so that a rule's plain or
 *                 `wide` string matches the text whichever way the runtime stored it;
 *   array         a primitive array's elements ("stored");
 *   instance      an instance's bytes from its start, header included ("stored"); a free
 *                 instance's bytes are its residue (source "residue").
 * At most FIND_SCAN_MAX bytes of an object.  The offset of a match is in the object (for the
 * other form of a String: of the character where the match starts).  Objects in address
 * order; a rule that holds without a string match is reported once per buffer, offset 0. */
#ifndef ARTCARVE_FIND_YARA_H
#define ARTCARVE_FIND_YARA_H

#include <stddef.h>
#include <stdint.h>

#include "carver/base/err.h"
#include "carver/base/wbuf.h"
#include "carver/wrap/yaraw.h"
#include "output/find/find_scan.h"

enum find_yara_form { FIND_YARA_STORED, FIND_YARA_UTF16, FIND_YARA_UTF8, FIND_YARA_FORM_COUNT };
enum { FIND_YARA_CONTEXT = 48 };   /* matched bytes kept per hit */

struct find_yara_hit {
	uint64_t addr;          /* the object's real address */
	size_t obj;
	uint32_t offset, length;
	uint8_t state, source, form;
	/* in find_yara_result.text (lengths 0: empty) */
	size_t rule, rule_len, tags, tags_len, string, string_len, field, field_len, data, data_len;
};

struct find_yara_result {
	struct find_yara_hit *v;
	size_t count, cap;
	struct wbuf text;
	uint64_t objects, bytes, buffers;   /* scanned */
};

/* Scans every object of the finished model m with the rules of y.  Returns 0, -ERR_NOMEM or
 * a libyara failure; release r in either case. */
int find_yara_run(const struct model *m, const struct referrers *r, struct yaraw *y, struct find_yara_result *out,
		  struct err *e);
void find_yara_release(struct find_yara_result *r);
static inline const char *find_yara_text(const struct find_yara_result *r, size_t off)
{
	return (const char *)r->text.data + off;
}
/* "stored", "utf16", "utf8" */
const char *find_yara_form_name(unsigned f);

#endif
