/* escape.h - text from the image made safe for JSON and for bulk_extractor feature files.
 *
 * Every string taken from an image is hostile: any bytes, any length.  Input is taken as
 * WTF-8 (UTF-8 that may also hold unpaired surrogates as 3-byte sequences, what
 * mirror_string_wtf8 gives for a UTF-16 String), and may be anything else too (class and
 * field names from a DEX, bytes of freed memory):
 *   JSON     RFC 8259 string contents: '"' and '\' escaped with a backslash, control
 *            characters (U+0000-U+001F) as \b \f \n \r \t or \u00XX, U+007F and the line and
 *            paragraph separators U+2028/U+2029 as \u escapes (text stays one line for JSON
 *            Lines and safe inside a <script>); an unpaired surrogate as \uD8XX..\uDFXX (the
 *            code unit is kept: Python's json reads it back, jq shows U+FFFD); every byte
 *            that starts no valid sequence as \uFFFD.  The output is ASCII-safe valid UTF-8.
 *   feature  a field of a bulk_extractor feature file, as bulk_extractor's own writer
 *            escapes features and contexts (be13_api unicode_escape.cpp validateOrEscapeUTF8
 *            with hexesc): a valid UTF-8 character is kept; '\' and bytes below 0x20 (tab and
 *            newline included, so a field never breaks the line) become \xHH (two upper-case
 *            hex digits); so does each byte of an invalid sequence, an encoded surrogate,
 *            U+FFFE, U+FFFF, a code point past U+10FFFF and the planes bulk_extractor calls
 *            invalid (0x14000-0x15FFF, 0x17000-0x1AFFF, 0x1C000-0x1CFFF, 0x2C000-0x2EFFF,
 *            0x30000-0xDFFFE).  Decoding the \xHH escapes back gives the input bytes. */
#ifndef ARTCARVE_ESCAPE_H
#define ARTCARVE_ESCAPE_H

#include <stddef.h>
#include <stdint.h>

#include "carver/base/wbuf.h"

/* Appends s[0..n) as the contents of a JSON string (no quotes). */
void escape_json(struct wbuf *b, const uint8_t *s, size_t n);
/* Appends s[0..n) as a quoted JSON string. */
void escape_json_quoted(struct wbuf *b, const uint8_t *s, size_t n);
/* Appends s[0..n) escaped as bulk_extractor escapes a feature or context field. */
void escape_feature(struct wbuf *b, const uint8_t *s, size_t n);

/* Length (1-4) of the well-formed sequence at s[0..n) with its code point in *cp, 0 when
 * s starts none.  Surrogates encoded in 3 bytes (WTF-8) count as well-formed here; overlong
 * forms and code points past U+10FFFF do not. */
size_t escape_utf8_seq(const uint8_t *s, size_t n, uint32_t *cp);

#endif
