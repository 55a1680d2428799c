/* zipgen.h - builds small ZIP archives (APPNOTE 4.3.7 local headers, 4.3.12 central directory,
 * 4.3.16 end record; no ZIP64) for the tests of the ZIP reader and of what reads through it
 * (jmods, JARs, APKs).  Our own writer: it shares nothing with carver/wrap/zipw.c, so a
 * mistake in one is not hidden by the other.  Header-only, like dexgen.h. */
#ifndef ARTCARVE_ZIPGEN_H
#define ARTCARVE_ZIPGEN_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "carver/base/wbuf.h"

#define ZG_FN static __attribute__((unused))

/* One entry: data is what the entry holds; raw (raw_len bytes), when given, the stored bytes
 * (deflated data for method 8); crc 0 means the CRC-32 of data. */
struct zentry { const char *name; const uint8_t *data; size_t len; uint16_t method; const uint8_t *raw; size_t raw_len;
		uint32_t crc; uint16_t flags; };

/* CRC-32 (IEEE 802.3, reflected, polynomial 0xedb88320), bit by bit. */
ZG_FN uint32_t zipgen_crc32(const uint8_t *p, size_t n)
{
	uint32_t c = 0xffffffffu;
	for (size_t i = 0; i < n; i++) {
		c ^= p[i];
		for (int k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ 0xedb88320u : c >> 1;
	}
	return ~c;
}

/* Appends the n (<= 16) entries to z as one archive whose offsets count from z's length on
 * entry: local headers, then the central directory, then the end record; zip64_marker puts
 * 0xffff in the end record's entry counts (a ZIP64 archive's marker). */
ZG_FN void zipgen_build(struct wbuf *z, const struct zentry *en, size_t n, bool zip64_marker)
{
	size_t base = z->len, offs[16], cd;

	for (size_t i = 0; i < n && i < 16; i++) {
		const uint8_t *body = en[i].raw ? en[i].raw : en[i].data;
		size_t blen = en[i].raw ? en[i].raw_len : en[i].len;
		offs[i] = z->len - base;
		wbuf_u32le(z, 0x04034b50);
		wbuf_u16le(z, 20);
		wbuf_u16le(z, en[i].flags);
		wbuf_u16le(z, en[i].method);
		wbuf_u32le(z, 0);
		wbuf_u32le(z, en[i].crc ? en[i].crc : zipgen_crc32(en[i].data, en[i].len));
		wbuf_u32le(z, (uint32_t)blen);
		wbuf_u32le(z, (uint32_t)en[i].len);
		wbuf_u16le(z, (uint16_t)strlen(en[i].name));
		wbuf_u16le(z, 0);
		wbuf_put(z, en[i].name, strlen(en[i].name));
		wbuf_put(z, body, blen);
	}
	cd = z->len - base;
	for (size_t i = 0; i < n && i < 16; i++) {
		size_t blen = en[i].raw ? en[i].raw_len : en[i].len;
		wbuf_u32le(z, 0x02014b50);
		wbuf_u16le(z, 20);
		wbuf_u16le(z, 20);
		wbuf_u16le(z, en[i].flags);
		wbuf_u16le(z, en[i].method);
		wbuf_u32le(z, 0);
		wbuf_u32le(z, en[i].crc ? en[i].crc : zipgen_crc32(en[i].data, en[i].len));
		wbuf_u32le(z, (uint32_t)blen);
		wbuf_u32le(z, (uint32_t)en[i].len);
		wbuf_u16le(z, (uint16_t)strlen(en[i].name));
		wbuf_u16le(z, 0);
		wbuf_u16le(z, 0);
		wbuf_u16le(z, 0);
		wbuf_u16le(z, 0);
		wbuf_u32le(z, 0);
		wbuf_u32le(z, (uint32_t)offs[i]);
		wbuf_put(z, en[i].name, strlen(en[i].name));
	}
	wbuf_u32le(z, 0x06054b50);
	wbuf_u16le(z, 0);
	wbuf_u16le(z, 0);
	wbuf_u16le(z, zip64_marker ? 0xffff : (uint16_t)n);
	wbuf_u16le(z, zip64_marker ? 0xffff : (uint16_t)n);
	wbuf_u32le(z, (uint32_t)(z->len - base - 12 - cd));
	wbuf_u32le(z, (uint32_t)cd);
	wbuf_u16le(z, 0);
}

#endif
