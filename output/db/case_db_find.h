/* case_db_find.h - the indicators of a carve (output/find/find_scan.h) as a case.db table,
 * added to a database case_db_write made, in one transaction of their own:
 *   indicators(kind, value, address, hex, class, field, state, source, offset)
 *     kind     url, email, phone, ipv4, ipv6, jwt, bearer, card, secret
 *     value    the text matched (a secret: the field's value; a byte[] as hex)
 *     address  the object's real address (an integer for joins with objects.address),
 *     hex      and its canonical spelling: "0x" and lower-case hex digits without padding
 *     class    the object's class; field: the holder's field ("CLASS.FIELD", NULL when no
 *              object references it); state: live, dropped, unknown, free; source: string,
 *              chars, bytes, residue, field; offset: of the match in the object
 *   index indicators_by_kind(kind, value).
 * `carve --yara RULES` adds (output/find/find_yara.h)
 *   yara_matches(rule, tags, string, address, hex, class, field, state, source, form, offset,
 *                length, data BLOB)
 *     rule, tags (space-separated), string: the rule, its tags and the matched string's
 *     identifier ("" when the condition held without one); form: the bytes scanned (stored,
 *     utf16, utf8); offset: of the match in the object; data: the first matched bytes
 *   index yara_by_rule(rule).
 * Values and names come from the image and the rules: bound, never spliced into SQL. */
#ifndef ARTCARVE_CASE_DB_FIND_H
#define ARTCARVE_CASE_DB_FIND_H

#include "carver/base/err.h"
#include "output/find/find_scan.h"
#include "output/find/find_yara.h"
#include "rosalloc/model/model.h"

/* Adds the table to the database at path.  Returns 0, -ERR_DB or -ERR_NOMEM. */
int case_db_add_find(const char *path, const struct model *m, const struct find_result *f, struct err *e);
/* Adds yara_matches.  Returns 0, -ERR_DB or -ERR_NOMEM. */
int case_db_add_yara(const char *path, const struct model *m, const struct find_yara_result *y, struct err *e);

#endif
