/* find_match.h - the indicator matchers: hand-written, one bounded pass over a narrow text
 * (one byte per character: what find_scan.h makes of a String, a char[], a byte[] or
 * residue bytes; characters outside ASCII arrive as a byte no matcher accepts).
 *
 * At each position where the previous character does not continue a word, the matchers are
 * tried in the order below; the first that matches reports [off, off + len) and the scan goes
 * on after it (an indicator is never reported inside another).  Each matcher reads at most
 * FIND_MATCH_MAX characters from its start, so the pass is linear in the text.
 *   url     scheme http, https, ftp, ws, wss (any case) "://", a host of labels with a dot
 *           (or an IPv4 address, or "localhost"), then URL characters (RFC 3986); trailing
 *           punctuation .,;:!?'")] is not part of it
 *   jwt     "eyJ" (base64url of '{"') + three base64url parts joined by '.', the first at
 *           least 10 characters and decoding to a JSON object holding "alg"; the third may be
 *           empty (an unsecured JWT, RFC 7519 6.1)
 *   bearer  "Bearer " (any case) + a token of at least 16 token68 characters (RFC 6750 2.1)
 *   email   local part [A-Za-z0-9._%+-] (1-64, not starting or ending with '.') '@' a domain
 *           of at least two labels [A-Za-z0-9-] (not starting or ending with '-'), the last
 *           2-24 letters
 *   card    13-19 digits, alone or in groups split by one kind of separator (' ' or '-'),
 *           that pass the Luhn check and start with a known issuer prefix of a length it
 *           issues: Visa 4 (13, 16, 19), Mastercard 51-55 and 2221-2720 (16), American Express
 *           34 and 37 (15), Diners 300-305, 36, 38-39 (14-19), Discover 6011, 644-649, 65
 *           (16-19), JCB 3528-3589 (16-19), UnionPay 62 (16-19); all digits equal is no card
 *   phone   E.164: '+', country code digit 1-9, 8-15 digits in all, single separators ' ',
 *           '-', '.' or a parenthesised group between digits; or the North American form
 *           (NXX) NXX-XXXX, NXX-NXX-XXXX, NXX.NXX.XXXX (N 2-9, one separator kind).  Bare
 *           digit runs are never phone numbers (ids and timestamps look the same)
 *   ipv4    four decimal octets 0-255 without leading zeros, not followed by '.'+digit
 *   ipv6    RFC 4291 text: 1-4 hex digit groups and ':' with eight groups, or fewer and one
 *           "::"; at least three groups, at least one holding a digit and one of 2+ digits
 * After a match the next character must not continue it (a letter or digit where the form
 * could go on).  find_match.c says why each rule is as strict as it is. */
#ifndef ARTCARVE_FIND_MATCH_H
#define ARTCARVE_FIND_MATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "carver/base/err.h"

/* Kinds of indicator; FIND_SECRET is a field's value (find_scan.h), not a text match. */
enum find_kind {
	FIND_URL, FIND_EMAIL, FIND_PHONE, FIND_IPV4, FIND_IPV6, FIND_JWT, FIND_BEARER, FIND_CARD, FIND_SECRET,
	FIND_KIND_COUNT
};

enum { FIND_MATCH_MAX = 4096 };   /* characters one indicator may span */

/* Called per match: text[off, off + len).  Non-zero stops find_match_text, which returns it. */
typedef int (*find_match_fn)(void *arg, enum find_kind kind, size_t off, size_t len, struct err *e);

/* Runs every matcher over text[0, n). */
int find_match_text(const uint8_t *text, size_t n, find_match_fn fn, void *arg, struct err *e);

/* True when n decimal digits pass the Luhn check (ISO/IEC 7812-1 annex B). */
bool find_luhn(const uint8_t *digits, size_t n);
/* True when a field name marks a secret: one of its word parts (split at '_', '-', '$',
 * digits and lower-to-upper case changes) is password, passwd, token, secret, key, auth,
 * cookie or session, in any case. */
bool find_secret_name(const char *name);

/* "url", "email", "phone", "ipv4", "ipv6", "jwt", "bearer", "card", "secret" */
const char *find_kind_name(unsigned k);

#endif
