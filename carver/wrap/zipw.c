/* zipw.c - ZIP central directory and inflate (see zipw.h; APPNOTE.TXT 6.3). */
#include "carver/wrap/zipw.h"

#include <string.h>
#include <zlib.h>

#include "carver/base/ck.h"
#include "carver/base/xalloc.h"

/* err_prefix that tolerates a NULL error (probes and tests pass none) */
#define ERR_PREFIX(e, rc, ...) ((e) ? err_prefix((e), __VA_ARGS__) : (rc))

/* APPNOTE 4.3.16 end of central directory record
 * OFFSET SIZE DESCRIPTION
 *   0     4   signature 0x06054b50
 *   4     2   number of this disk
 *   6     2   disk where the central directory starts
 *   8     2   entries on this disk
 *  10     2   total entries
 *  12     4   central directory size
 *  16     4   central directory offset
 *  20     2   comment length, then the comment */
#define ZIP_EOCD_SIG 0x06054b50u
#define ZIP_EOCD_LEN 22
#define ZIP64_LOCATOR_SIG 0x07064b50u
#define ZIP64_LOCATOR_LEN 20
/* APPNOTE 4.3.12 central directory header: fixed part 46 bytes
 *   0 sig 0x02014b50, 4 made by, 6 needed, 8 flags, 10 method, 12 time, 14 date, 16 crc,
 *  20 csize, 24 usize, 28 name len, 30 extra len, 32 comment len, 34 disk, 36 int attr,
 *  38 ext attr, 42 local header offset, 46 name */
#define ZIP_CDH_SIG 0x02014b50u
#define ZIP_CDH_LEN 46
/* APPNOTE 4.3.7 local file header: fixed part 30 bytes
 *   0 sig 0x04034b50, 4 needed, 6 flags, 8 method, 10 time, 12 date, 14 crc, 18 csize,
 *  22 usize, 26 name len, 28 extra len, 30 name */
#define ZIP_LFH_SIG 0x04034b50u
#define ZIP_LFH_LEN 30
#define ZIP_FLAG_ENCRYPTED 0x0001u
#define ZIP_STORED 0
#define ZIP_DEFLATE 8

bool zipw_probe(const uint8_t *data, size_t len)
{
	return len >= 4 && data[0] == 'P' && data[1] == 'K' &&
	       ((data[2] == 3 && data[3] == 4) || (data[2] == 5 && data[3] == 6));
}

/* The EOCD is the last 22 bytes plus a comment of up to 65535 bytes: scan backwards. */
static int zipw_find_eocd(const struct cursor *f, size_t *at, struct err *e)
{
	size_t len = f->len, lowest;

	if (len < ZIP_EOCD_LEN)
		return ERR_SET(e, ERR_CORRUPT, 0, "not a ZIP archive: %zu bytes is too short for an end record", len);
	lowest = len > ZIP_EOCD_LEN + 0xffff ? len - ZIP_EOCD_LEN - 0xffff : 0;
	for (size_t p = len - ZIP_EOCD_LEN + 1; p-- > lowest;) {
		if (ld_u32le(f->base + p) == ZIP_EOCD_SIG && p + ZIP_EOCD_LEN + ld_u16le(f->base + p + 20) <= len) {
			*at = p;
			return 0;
		}
	}
	return ERR_SET(e, ERR_CORRUPT, ERR_NO_VA, "not a ZIP archive: no end of central directory record");
}

int zipw_open(struct zipw *z, const uint8_t *data, size_t len, const char *label, struct err *e)
{
	size_t at = 0;
	const uint8_t *p;
	int rc;

	memset(z, 0, sizeof(*z));
	cur_init(&z->file, data, len, 0);
	z->label = label;
	if ((rc = zipw_find_eocd(&z->file, &at, e)))
		return rc;
	p = data + at;
	if (ld_u16le(p + 4) != 0 || ld_u16le(p + 6) != 0 || ld_u16le(p + 8) != ld_u16le(p + 10))
		return ERR_SET(e, ERR_UNSUP, at, "end record at 0x%zx: multi-disk archives are not supported", at);
	z->entry_count = ld_u16le(p + 10);
	z->cd_size = ld_u32le(p + 12);
	z->cd_offset = ld_u32le(p + 16);
	if (z->entry_count == 0xffff || z->cd_size == 0xffffffffu || z->cd_offset == 0xffffffffu ||
	    (at >= ZIP64_LOCATOR_LEN && ld_u32le(data + at - ZIP64_LOCATOR_LEN) == ZIP64_LOCATOR_SIG))
		return ERR_SET(e, ERR_UNSUP, at, "end record at 0x%zx: ZIP64 archives are not supported", at);
	if (ck_range(z->cd_offset, z->cd_size, at))
		return ERR_SET(e, ERR_CORRUPT, at,
			       "end record at 0x%zx: central directory [0x%llx, +%llu) runs past the end record", at,
			       (unsigned long long)z->cd_offset, (unsigned long long)z->cd_size);
	return 0;
}

void zipw_iter_init(const struct zipw *z, struct zipw_iter *it)
{
	cur_init(&it->cd, z->file.base + z->cd_offset, (size_t)z->cd_size, z->cd_offset);
	it->left = z->entry_count;
}

int zipw_next(struct zipw_iter *it, struct zipw_entry *out, struct err *e)
{
	const uint8_t *p;
	uint64_t at = cur_where(&it->cd);
	size_t var;
	int rc;

	if (it->left == 0)
		return 0;
	if ((rc = cur_bytes(&it->cd, ZIP_CDH_LEN, &p, e)))
		return ERR_PREFIX(e, rc, "central directory entry at 0x%llx", (unsigned long long)at);
	if (ld_u32le(p) != ZIP_CDH_SIG)
		return ERR_SET(e, ERR_CORRUPT, at, "central directory entry at 0x%llx: bad signature 0x%08x",
			       (unsigned long long)at, ld_u32le(p));
	memset(out, 0, sizeof(*out));
	out->offset = at;
	out->flags = ld_u16le(p + 8);
	out->method = ld_u16le(p + 10);
	out->crc32 = ld_u32le(p + 16);
	out->csize = ld_u32le(p + 20);
	out->usize = ld_u32le(p + 24);
	out->name_len = ld_u16le(p + 28);
	out->local_offset = ld_u32le(p + 42);
	var = (size_t)ld_u16le(p + 30) + ld_u16le(p + 32);
	if ((rc = cur_bytes(&it->cd, out->name_len, &out->name, e)) || (rc = cur_skip(&it->cd, var, e)))
		return ERR_PREFIX(e, rc, "central directory entry at 0x%llx", (unsigned long long)at);
	it->left--;
	return 1;
}

int zipw_entry_at(const struct zipw *z, uint64_t offset, struct zipw_entry *out, struct err *e)
{
	struct zipw_iter it;
	int rc;

	if (offset < z->cd_offset || offset - z->cd_offset >= z->cd_size)
		return ERR_SET(e, ERR_CORRUPT, offset, "0x%llx is outside the central directory [0x%llx, +%llu)",
			       (unsigned long long)offset, (unsigned long long)z->cd_offset,
			       (unsigned long long)z->cd_size);
	cur_init(&it.cd, z->file.base + offset, (size_t)(z->cd_offset + z->cd_size - offset), offset);
	it.left = 1;
	rc = zipw_next(&it, out, e);
	return rc == 1 ? 0 : rc;   /* never 0: one entry is left */
}

/* Locates the entry's data through its local header (whose own name/extra lengths count). */
static int zipw_data(const struct zipw *z, const struct zipw_entry *en, struct cursor *data, struct err *e)
{
	struct cursor lh;
	const uint8_t *p;
	size_t skip;
	int rc;

	if ((rc = cur_sub(&z->file, (size_t)en->local_offset, ZIP_LFH_LEN, &lh, e)))
		return ERR_PREFIX(e, rc, "local header of '%.*s'", (int)en->name_len, en->name);
	p = lh.base;
	if (ld_u32le(p) != ZIP_LFH_SIG)
		return ERR_SET(e, ERR_CORRUPT, en->local_offset, "local header at 0x%llx: bad signature 0x%08x",
			       (unsigned long long)en->local_offset, ld_u32le(p));
	skip = ZIP_LFH_LEN + (size_t)ld_u16le(p + 26) + ld_u16le(p + 28);
	if (ck_add((size_t)en->local_offset, skip, &skip) || ck_range(skip, (size_t)en->csize, z->file.len))
		return ERR_SET(e, ERR_CORRUPT, en->local_offset,
			       "entry '%.*s' at 0x%llx: %llu compressed bytes run past the end of the archive",
			       (int)en->name_len, en->name, (unsigned long long)en->local_offset,
			       (unsigned long long)en->csize);
	return cur_sub(&z->file, skip, (size_t)en->csize, data, e);
}

static int zipw_inflate(const struct cursor *src, uint8_t *dst, size_t dlen, const struct zipw_entry *en,
			struct err *e)
{
	z_stream zs;
	int zr;

	memset(&zs, 0, sizeof(zs));
	if (inflateInit2(&zs, -MAX_WBITS) != Z_OK)
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "cannot initialise inflate");
	zs.next_in = (Bytef *)(uintptr_t)src->base;
	zs.avail_in = (uInt)src->len;
	zs.next_out = dst;
	zs.avail_out = (uInt)dlen;
	zr = inflate(&zs, Z_FINISH);
	inflateEnd(&zs);
	if (zr != Z_STREAM_END || zs.total_out != dlen)
		return ERR_SET(e, ERR_CORRUPT, src->va, "entry '%.*s' at 0x%llx: deflate data is damaged (%s)",
			       (int)en->name_len, en->name, (unsigned long long)src->va,
			       zr == Z_STREAM_END ? "size differs from its header" : zs.msg ? zs.msg : "truncated");
	return 0;
}

int zipw_extract(const struct zipw *z, const struct zipw_entry *en, size_t max, uint8_t **out, size_t *len,
		 struct err *e)
{
	struct cursor data;
	uint8_t *buf;
	int rc;

	*out = NULL;
	*len = 0;
	if (en->flags & ZIP_FLAG_ENCRYPTED)
		return ERR_SET(e, ERR_UNSUP, en->offset, "entry '%.*s': encrypted entries are not supported",
			       (int)en->name_len, en->name);
	if (en->method != ZIP_STORED && en->method != ZIP_DEFLATE)
		return ERR_SET(e, ERR_UNSUP, en->offset, "entry '%.*s': compression method %u is not supported",
			       (int)en->name_len, en->name, en->method);
	if (en->usize > max || en->usize > UINT32_MAX - 1 || en->csize > UINT32_MAX - 1)
		return ERR_SET(e, ERR_UNSUP, en->offset, "entry '%.*s': %llu bytes exceed the %zu-byte limit",
			       (int)en->name_len, en->name, (unsigned long long)en->usize, max);
	if ((rc = zipw_data(z, en, &data, e)))
		return rc;
	if (en->method == ZIP_STORED && data.len != en->usize)
		return ERR_SET(e, ERR_CORRUPT, en->offset, "stored entry '%.*s': sizes %llu and %llu differ",
			       (int)en->name_len, en->name, (unsigned long long)en->csize,
			       (unsigned long long)en->usize);
	buf = xmalloc(en->usize ? (size_t)en->usize : 1);
	if (!buf)
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory for %llu bytes", (unsigned long long)en->usize);
	if (en->method == ZIP_STORED)
		memcpy(buf, data.base, data.len);
	else if ((rc = zipw_inflate(&data, buf, (size_t)en->usize, en, e))) {
		xfree(buf);
		return rc;
	}
	if (crc32(0L, buf, (uInt)en->usize) != en->crc32) {
		xfree(buf);
		return ERR_SET(e, ERR_CORRUPT, en->offset, "entry '%.*s': CRC-32 mismatch", (int)en->name_len,
			       en->name);
	}
	*out = buf;
	*len = (size_t)en->usize;
	return 0;
}
