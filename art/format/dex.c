/* dex.c - DEX / compact DEX reader (see dex.h for the offset bases). */
#include "art/format/dex.h"

#include <string.h>

#include "art/format/art_version.h"
#include "carver/base/ck.h"

/* Header field offsets: libdexfile/dex/dex_file.h struct Header (android 9+), the same
 * layout as runtime/dex_file.h in 5.0..8.1; v41 appends container_size, header_offset
 * (dex_file.h HeaderV41 @14); cdex appends six u32 (compact_dex_file.h @9). */
enum {
	DH_MAGIC = 0, DH_CHECKSUM = 8, DH_SIGNATURE = 12, DH_FILE_SIZE = 32, DH_HEADER_SIZE = 36,
	DH_ENDIAN_TAG = 40, DH_LINK_SIZE = 44, DH_LINK_OFF = 48, DH_MAP_OFF = 52,
	DH_STRING_IDS_SIZE = 56, DH_STRING_IDS_OFF = 60, DH_TYPE_IDS_SIZE = 64,
	DH_TYPE_IDS_OFF = 68, DH_PROTO_IDS_SIZE = 72, DH_PROTO_IDS_OFF = 76,
	DH_FIELD_IDS_SIZE = 80, DH_FIELD_IDS_OFF = 84, DH_METHOD_IDS_SIZE = 88,
	DH_METHOD_IDS_OFF = 92, DH_CLASS_DEFS_SIZE = 96, DH_CLASS_DEFS_OFF = 100,
	DH_DATA_SIZE = 104, DH_DATA_OFF = 108,
	DH_CONTAINER_SIZE = 112, DH_HEADER_OFFSET = 116,
	CDH_FEATURE_FLAGS = 112, CDH_DEBUG_INFO_OFFSETS_POS = 116,
	CDH_DEBUG_INFO_OFFSETS_TABLE_OFFSET = 120, CDH_DEBUG_INFO_BASE = 124,
	CDH_OWNED_DATA_BEGIN = 128, CDH_OWNED_DATA_END = 132,
};

/* id item sizes (dex_file.h StringId/TypeId/ProtoId/FieldId/MethodId/ClassDef) */
enum {
	DEX_STRING_ID_SIZE = 4, DEX_TYPE_ID_SIZE = 4, DEX_PROTO_ID_SIZE = 12,
	DEX_FIELD_ID_SIZE = 8, DEX_METHOD_ID_SIZE = 8, DEX_CLASS_DEF_SIZE = 32,
	DEX_MAP_ITEM_SIZE = 12,
};

/* Standard code item: u16 registers, ins, outs, tries; u32 debug_info_off, insns_size
 * (dex_file.h / standard_dex_file.h CodeItem).  Compact: u16 fields, u16 insns_count_and_flags
 * and an optional pre-header of u16 before the item (compact_dex_file.h CodeItem @9). */
enum {
	DEX_CODE_ITEM_HEADER = 16, CDEX_CODE_ITEM_HEADER = 4,
	CDEX_INSNS_SIZE_SHIFT = 5,
	CDEX_FLAG_REGISTERS = 0x1, CDEX_FLAG_INS = 0x2, CDEX_FLAG_OUTS = 0x4,
	CDEX_FLAG_TRIES = 0x8, CDEX_FLAG_INSNS = 0x10,
	CDEX_OFFSETS_PER_BLOCK = 16,     /* CompactOffsetTable::kElementsPerIndex */
};

static const uint8_t dex_magic[4] = { 'd', 'e', 'x', '\n' };
static const uint8_t cdex_magic[4] = { 'c', 'd', 'e', 'x' };

/* One row per header layout of a version range. */
struct dex_format {
	const char *versions;
	const char *name;
	bool compact;
	size_t header_size;
	bool in_container;   /* 041: container_size/header_offset; offsets from the container start */
};

/* Standard DEX: libdexfile/dex/standard_dex_file.cc kDexMagicVersions @14 lists 035 ... 041
 * (036 was never valid); 041 adds HeaderV41 (dex_file.h @14). */
static const struct dex_format dex_formats[] = {
	{ "035,037-040", "dex 035-040", false, DEX_HEADER_SIZE, false },
	{ "041", "dex 041", false, DEX_HEADER_SIZE_V41, true },
};
/* Compact DEX: compact_dex_file.cc kDexMagicVersion "001" @9 */
static const struct dex_format cdex_formats[] = {
	{ "001", "cdex 001", true, CDEX_HEADER_SIZE, false },
};

const struct art_version_table dex_versions =
	ART_VERSION_LIST_TABLE("dex", struct dex_format, dex_formats, sizeof(dex_formats) / sizeof(dex_formats[0]),
			       versions, offsetof(struct dex_format, name));
const struct art_version_table cdex_versions =
	ART_VERSION_LIST_TABLE("cdex", struct dex_format, cdex_formats, sizeof(cdex_formats) / sizeof(cdex_formats[0]),
			       versions, offsetof(struct dex_format, name));

static bool is_digit(uint8_t b) { return b >= '0' && b <= '9'; }

bool dex_probe(const uint8_t *p, size_t len)
{
	if (len < 8)
		return false;
	return (memcmp(p, dex_magic, 4) == 0 || memcmp(p, cdex_magic, 4) == 0) && is_digit(p[4]) &&
	       is_digit(p[5]) && is_digit(p[6]) && p[7] == 0;
}

/* one id table: size entries of `item` bytes at off, inside the id base */
struct id_table { const char *name; uint32_t size, off; size_t item; };

static int check_table(const struct dex *d, const struct id_table *t, struct err *e)
{
	size_t bytes;

	if (t->size == 0)
		return 0;
	if (ck_mul(t->size, t->item, &bytes) || ck_range(t->off, bytes, d->ids.len))
		return ERR_SET(e, ERR_CORRUPT, d->ids.va + t->off,
			       "dex at 0x%llx: %s table of %u x %zu bytes at 0x%x exceeds the %zu-byte file",
			       (unsigned long long)d->file.va, t->name, t->size, t->item, t->off, d->ids.len);
	if (t->off % 4)
		return ERR_SET(e, ERR_CORRUPT, d->ids.va + t->off,
			       "dex at 0x%llx: %s table at 0x%x is not 4-byte aligned",
			       (unsigned long long)d->file.va, t->name, t->off);
	return 0;
}

static int check_tables(const struct dex *d, struct err *e)
{
	const struct id_table tables[] = {
		{ "string_ids", d->string_ids_size, d->string_ids_off, DEX_STRING_ID_SIZE },
		{ "type_ids", d->type_ids_size, d->type_ids_off, DEX_TYPE_ID_SIZE },
		{ "proto_ids", d->proto_ids_size, d->proto_ids_off, DEX_PROTO_ID_SIZE },
		{ "field_ids", d->field_ids_size, d->field_ids_off, DEX_FIELD_ID_SIZE },
		{ "method_ids", d->method_ids_size, d->method_ids_off, DEX_METHOD_ID_SIZE },
		{ "class_defs", d->class_defs_size, d->class_defs_off, DEX_CLASS_DEF_SIZE },
	};
	int rc;

	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++)
		if ((rc = check_table(d, &tables[i], e)) != 0)
			return rc;
	/* type and proto indexes are u16 elsewhere (dex_file_verifier.cc CheckSizeLimit) */
	if (d->type_ids_size > 0x10000 || d->proto_ids_size > 0x10000)
		return ERR_SET(e, ERR_CORRUPT, d->file.va + DH_TYPE_IDS_SIZE,
			       "dex at 0x%llx: %u type_ids / %u proto_ids exceed the 65536 limit",
			       (unsigned long long)d->file.va, d->type_ids_size, d->proto_ids_size);
	return 0;
}

static void read_header_fields(struct dex *d, const uint8_t *h)
{
	d->checksum = ld_u32le(h + DH_CHECKSUM);
	d->file_size = ld_u32le(h + DH_FILE_SIZE);
	d->header_size = ld_u32le(h + DH_HEADER_SIZE);
	d->endian_tag = ld_u32le(h + DH_ENDIAN_TAG);
	d->link_size = ld_u32le(h + DH_LINK_SIZE);
	d->link_off = ld_u32le(h + DH_LINK_OFF);
	d->map_off = ld_u32le(h + DH_MAP_OFF);
	d->string_ids_size = ld_u32le(h + DH_STRING_IDS_SIZE);
	d->string_ids_off = ld_u32le(h + DH_STRING_IDS_OFF);
	d->type_ids_size = ld_u32le(h + DH_TYPE_IDS_SIZE);
	d->type_ids_off = ld_u32le(h + DH_TYPE_IDS_OFF);
	d->proto_ids_size = ld_u32le(h + DH_PROTO_IDS_SIZE);
	d->proto_ids_off = ld_u32le(h + DH_PROTO_IDS_OFF);
	d->field_ids_size = ld_u32le(h + DH_FIELD_IDS_SIZE);
	d->field_ids_off = ld_u32le(h + DH_FIELD_IDS_OFF);
	d->method_ids_size = ld_u32le(h + DH_METHOD_IDS_SIZE);
	d->method_ids_off = ld_u32le(h + DH_METHOD_IDS_OFF);
	d->class_defs_size = ld_u32le(h + DH_CLASS_DEFS_SIZE);
	d->class_defs_off = ld_u32le(h + DH_CLASS_DEFS_OFF);
	d->data_size = ld_u32le(h + DH_DATA_SIZE);
	d->data_off = ld_u32le(h + DH_DATA_OFF);
}

static void read_cdex_fields(struct dex *d, const uint8_t *h)
{
	d->feature_flags = ld_u32le(h + CDH_FEATURE_FLAGS);
	d->debug_info_offsets_pos = ld_u32le(h + CDH_DEBUG_INFO_OFFSETS_POS);
	d->debug_info_offsets_table_offset = ld_u32le(h + CDH_DEBUG_INFO_OFFSETS_TABLE_OFFSET);
	d->debug_info_base = ld_u32le(h + CDH_DEBUG_INFO_BASE);
	d->owned_data_begin = ld_u32le(h + CDH_OWNED_DATA_BEGIN);
	d->owned_data_end = ld_u32le(h + CDH_OWNED_DATA_END);
}

/* The magic picks the table, the version string its row (art_version_match). */
static int parse_version(struct dex *d, const struct cursor *c, struct err *e)
{
	const struct art_version_table *t;
	const struct dex_format *rows;
	size_t row;
	int rc;

	if (memcmp(c->base, cdex_magic, 4) == 0) {
		t = &cdex_versions;
		rows = cdex_formats;
	} else if (memcmp(c->base, dex_magic, 4) == 0) {
		t = &dex_versions;
		rows = dex_formats;
	} else {
		return ERR_SET(e, ERR_CORRUPT, c->va,
			       "at 0x%llx: no dex magic (expected \"dex\\n0NN\\0\" or \"cdex001\\0\")",
			       (unsigned long long)c->va);
	}
	if ((rc = art_version_match(t, c, 4, &d->version, &row, e)))
		return rc;
	d->fmt = &rows[row];
	d->compact = d->fmt->compact;
	return 0;
}

/* Sets d->ids and d->data (the two offset bases, see dex.h). */
static int setup_bases(struct dex *d, const struct cursor *c, struct err *e)
{
	if (d->compact) {
		d->ids = d->file;
		if (ck_range(d->data_off, d->data_size, c->len))
			return ERR_SET(e, ERR_TRUNC, c->va + d->data_off,
				       "cdex at 0x%llx: data section [0x%x, +0x%x) exceeds the %zu bytes available",
				       (unsigned long long)c->va, d->data_off, d->data_size, c->len);
		cur_init(&d->data, c->base + d->data_off, d->data_size, c->va + d->data_off);
		return 0;
	}
	if (d->fmt->in_container) {
		if (d->header_offset != 0)
			return ERR_SET(e, ERR_UNSUP, c->va + DH_HEADER_OFFSET,
				       "dex at 0x%llx: header_offset 0x%x (not the first dex of its container) is not supported",
				       (unsigned long long)c->va, d->header_offset);
		if (d->container_size < d->file_size || d->container_size > c->len)
			return ERR_SET(e, ERR_TRUNC, c->va + DH_CONTAINER_SIZE,
				       "dex at 0x%llx: container_size %u is not within [file_size %u, %zu available]",
				       (unsigned long long)c->va, d->container_size, d->file_size, c->len);
		cur_init(&d->ids, c->base, d->container_size, c->va);
		d->data = d->ids;
		return 0;
	}
	d->ids = d->file;
	d->data = d->file;
	if (ck_range(d->data_off, d->data_size, d->file.len))
		return ERR_SET(e, ERR_CORRUPT, c->va + DH_DATA_OFF,
			       "dex at 0x%llx: data section [0x%x, +0x%x) exceeds the %u-byte file",
			       (unsigned long long)c->va, d->data_off, d->data_size, d->file_size);
	return 0;
}

int dex_load(struct dex *d, const struct cursor *c, struct err *e)
{
	const uint8_t *h;
	size_t hsize;
	int rc;

	memset(d, 0, sizeof(*d));
	cur_init(&d->file, c->base, c->len, c->va);
	if (c->len < DEX_HEADER_SIZE)
		return ERR_SET(e, ERR_TRUNC, c->va, "dex at 0x%llx: %zu bytes, shorter than the %u-byte header",
			       (unsigned long long)c->va, c->len, DEX_HEADER_SIZE);
	h = c->base;
	if ((rc = parse_version(d, c, e)) != 0)
		return rc;
	hsize = d->fmt->header_size;
	if (c->len < hsize)
		return ERR_SET(e, ERR_TRUNC, c->va, "dex at 0x%llx: %zu bytes, shorter than the %zu-byte header",
			       (unsigned long long)c->va, c->len, hsize);
	read_header_fields(d, h);
	if (d->compact)
		read_cdex_fields(d, h);
	else if (d->fmt->in_container) {
		d->container_size = ld_u32le(h + DH_CONTAINER_SIZE);
		d->header_offset = ld_u32le(h + DH_HEADER_OFFSET);
	}
	if (d->endian_tag != DEX_ENDIAN_CONSTANT)
		return ERR_SET(e, ERR_CORRUPT, c->va + DH_ENDIAN_TAG,
			       "dex at 0x%llx: endian_tag 0x%08x, expected 0x12345678",
			       (unsigned long long)c->va, d->endian_tag);
	if (d->header_size != hsize)
		return ERR_SET(e, ERR_CORRUPT, c->va + DH_HEADER_SIZE,
			       "dex at 0x%llx: header_size %u, expected %zu",
			       (unsigned long long)c->va, d->header_size, hsize);
	if (d->file_size < hsize)
		return ERR_SET(e, ERR_CORRUPT, c->va + DH_FILE_SIZE,
			       "dex at 0x%llx: file_size %u is smaller than the header",
			       (unsigned long long)c->va, d->file_size);
	if (d->file_size > c->len)
		return ERR_SET(e, ERR_TRUNC, c->va + DH_FILE_SIZE,
			       "dex at 0x%llx: file_size %u exceeds the %zu bytes available",
			       (unsigned long long)c->va, d->file_size, c->len);
	d->file.len = d->file_size;
	if ((rc = setup_bases(d, c, e)) != 0)
		return rc;
	return check_tables(d, e);
}

size_t dex_span(const struct dex *d)
{
	size_t end = d->file_size;

	if (d->compact && (size_t)d->data_off + d->data_size > end)
		end = (size_t)d->data_off + d->data_size;
	if (d->fmt && d->fmt->in_container)
		end = d->container_size;
	return end;
}

/* ---- checksum ---- */

uint32_t dex_adler32(uint32_t adler, const uint8_t *p, size_t n)
{
	enum { MOD = 65521, NMAX = 5552 };  /* largest block without 32-bit overflow */
	uint32_t a = adler & 0xffff, b = adler >> 16;

	while (n > 0) {
		size_t k = n < NMAX ? n : NMAX;
		n -= k;
		while (k--) {
			a += *p++;
			b += a;
		}
		a %= MOD;
		b %= MOD;
	}
	return b << 16 | a;
}

/* CompactDexFile::CalculateChecksum (compact_dex_file.cc @9): adler32 of the header with
 * checksum, data_off and data_size zeroed, then of the rest of the dex, then of the data
 * section, chained as ck = ck * 31 ^ adler32(part). */
static uint32_t cdex_checksum(const struct dex *d)
{
	uint8_t h[CDEX_HEADER_SIZE];
	uint32_t ck;

	memcpy(h, d->file.base, sizeof(h));
	memset(h + DH_CHECKSUM, 0, 4);
	memset(h + DH_DATA_SIZE, 0, 8);  /* data_size, data_off */
	ck = dex_adler32(1, h, sizeof(h));
	ck = ck * 31 ^ dex_adler32(1, d->file.base + sizeof(h), d->file.len - sizeof(h));
	return ck * 31 ^ dex_adler32(1, d->data.base, d->data.len);
}

/* DexFile::CalculateChecksum: adler32 of [12, file_size) (dex_file.cc @9) */
uint32_t dex_checksum_of(const struct dex *d)
{
	if (d->compact)
		return cdex_checksum(d);
	return dex_adler32(1, d->file.base + DH_SIGNATURE, d->file.len - DH_SIGNATURE);
}

int dex_verify_checksum(const struct dex *d, uint32_t *computed, struct err *e)
{
	uint32_t a = dex_checksum_of(d);

	*computed = a;
	if (a != d->checksum)
		return ERR_SET(e, ERR_CORRUPT, d->file.va + DH_CHECKSUM,
			       "dex at 0x%llx: checksum 0x%08x, computed 0x%08x",
			       (unsigned long long)d->file.va, d->checksum, a);
	return 0;
}

/* ---- id tables ---- */

static int index_check(const struct dex *d, const char *what, uint32_t idx, uint32_t size,
		       struct err *e)
{
	if (idx >= size)
		return ERR_SET(e, ERR_CORRUPT, d->file.va,
			       "dex at 0x%llx: %s index %u out of range (%u entries)",
			       (unsigned long long)d->file.va, what, idx, size);
	return 0;
}

/* entry idx of a table already checked by check_tables */
static const uint8_t *id_entry(const struct dex *d, uint32_t off, uint32_t idx, size_t item)
{
	return d->ids.base + off + (size_t)idx * item;
}

/* cursor at a data-relative offset, to the end of the data section */
static int data_at(const struct dex *d, uint32_t off, const char *what, struct cursor *out,
		   struct err *e)
{
	if (off >= d->data.len)
		return ERR_SET(e, ERR_CORRUPT, d->data.va + off,
			       "dex at 0x%llx: %s offset 0x%x beyond the %zu-byte data section",
			       (unsigned long long)d->file.va, what, off, d->data.len);
	cur_init(out, d->data.base + off, d->data.len - off, d->data.va + off);
	return 0;
}

static int string_data(const struct dex *d, uint32_t idx, struct cursor *c, uint32_t *utf16,
		       struct err *e)
{
	int rc;

	if ((rc = index_check(d, "string", idx, d->string_ids_size, e)) != 0)
		return rc;
	rc = data_at(d, ld_u32le(id_entry(d, d->string_ids_off, idx, DEX_STRING_ID_SIZE)),
		     "string_data", c, e);
	if (rc == 0)
		rc = cur_uleb128(c, utf16, e);
	return rc;
}

int dex_string(const struct dex *d, uint32_t idx, const uint8_t **s, size_t *len, struct err *e)
{
	struct cursor c;
	uint32_t utf16;
	const uint8_t *p, *nul;
	int rc;

	if ((rc = string_data(d, idx, &c, &utf16, e)) != 0)
		return rc;
	p = cur_ptr(&c);
	nul = memchr(p, 0, cur_remaining(&c));
	if (!nul)
		return ERR_SET(e, ERR_TRUNC, cur_where(&c),
			       "dex at 0x%llx: string %u at 0x%llx has no terminating NUL",
			       (unsigned long long)d->file.va, idx, (unsigned long long)cur_where(&c));
	*s = p;
	*len = (size_t)(nul - p);
	return 0;
}

/* One UTF-16 unit of MUTF-8 at p[*i] (dex-format.html "MUTF-8 encoding": 1 to 3 bytes, NUL as
 * C0 80, a supplementary character as two 3-byte surrogates); -1 for a malformed sequence. */
static int32_t mutf8_unit(const uint8_t *p, size_t n, size_t *i)
{
	uint8_t b = p[*i];
	if (b < 0x80) {
		*i += 1;
		return b;
	}
	if ((b & 0xe0) == 0xc0 && n - *i >= 2 && (p[*i + 1] & 0xc0) == 0x80) {
		*i += 2;
		return (b & 0x1f) << 6 | (p[*i - 1] & 0x3f);
	}
	if ((b & 0xf0) == 0xe0 && n - *i >= 3 && (p[*i + 1] & 0xc0) == 0x80 && (p[*i + 2] & 0xc0) == 0x80) {
		*i += 3;
		return (b & 0x0f) << 12 | (p[*i - 2] & 0x3f) << 6 | (p[*i - 1] & 0x3f);
	}
	return -1;
}

int dex_string_wtf8(const struct dex *d, uint32_t idx, struct wbuf *out, struct err *e)
{
	const uint8_t *s;
	size_t n, i = 0;
	int rc = dex_string(d, idx, &s, &n, e);

	while (rc == 0 && i < n) {
		int32_t u = mutf8_unit(s, n, &i), lo;
		size_t j = i;
		if (u < 0)
			return ERR_SET(e, ERR_CORRUPT, d->file.va, "dex at 0x%llx: string %u is not MUTF-8 (byte %zu)",
				       (unsigned long long)d->file.va, idx, i);
		if (u >= 0xd800 && u < 0xdc00 && j < n && (lo = mutf8_unit(s, n, &j)) >= 0xdc00 && lo < 0xe000) {
			wbuf_utf8(out, 0x10000 + ((uint32_t)(u - 0xd800) << 10) + (uint32_t)(lo - 0xdc00));
			i = j;
		} else {
			wbuf_utf8(out, (uint32_t)u);
		}
	}
	return rc ? rc : wbuf_status(out, e);
}

int dex_string_utf16_len(const struct dex *d, uint32_t idx, uint32_t *out, struct err *e)
{
	struct cursor c;

	return string_data(d, idx, &c, out, e);
}

int dex_type_descriptor(const struct dex *d, uint32_t idx, const uint8_t **s, size_t *len,
			struct err *e)
{
	int rc = index_check(d, "type", idx, d->type_ids_size, e);

	if (rc)
		return rc;
	return dex_string(d, ld_u32le(id_entry(d, d->type_ids_off, idx, DEX_TYPE_ID_SIZE)), s, len, e);
}

/* field_id and method_id share one layout: u16 class_idx, u16 type/proto idx, u32 name_idx */
static int member_id(const struct dex *d, const char *what, uint32_t idx, uint32_t size, uint32_t off,
		     uint32_t out[3], struct err *e)
{
	const uint8_t *p;
	int rc = index_check(d, what, idx, size, e);

	if (rc)
		return rc;
	p = id_entry(d, off, idx, DEX_FIELD_ID_SIZE);
	out[0] = ld_u16le(p);
	out[1] = ld_u16le(p + 2);
	out[2] = ld_u32le(p + 4);
	return 0;
}

int dex_field_id(const struct dex *d, uint32_t idx, struct dex_field_id *out, struct err *e)
{
	uint32_t v[3];
	int rc = member_id(d, "field", idx, d->field_ids_size, d->field_ids_off, v, e);

	if (rc == 0)
		*out = (struct dex_field_id){ v[0], v[1], v[2] };
	return rc;
}

int dex_method_id(const struct dex *d, uint32_t idx, struct dex_method_id *out, struct err *e)
{
	uint32_t v[3];
	int rc = member_id(d, "method", idx, d->method_ids_size, d->method_ids_off, v, e);

	if (rc == 0)
		*out = (struct dex_method_id){ v[0], v[1], v[2] };
	return rc;
}

int dex_proto_id(const struct dex *d, uint32_t idx, struct dex_proto_id *out, struct err *e)
{
	const uint8_t *p;
	int rc = index_check(d, "proto", idx, d->proto_ids_size, e);

	if (rc)
		return rc;
	p = id_entry(d, d->proto_ids_off, idx, DEX_PROTO_ID_SIZE);
	out->shorty_idx = ld_u32le(p);
	out->return_type_idx = ld_u16le(p + 4);
	out->parameters_off = ld_u32le(p + 8);
	return 0;
}

static int append_type(const struct dex *d, uint32_t type_idx, struct wbuf *out, struct err *e)
{
	const uint8_t *s;
	size_t n;
	int rc = dex_type_descriptor(d, type_idx, &s, &n, e);

	if (rc == 0)
		wbuf_put(out, s, n);
	return rc;
}

/* type_list: u32 size, then size u16 type indexes (dex_file.h TypeList) */
int dex_proto_signature(const struct dex *d, uint32_t idx, struct wbuf *out, struct err *e)
{
	struct dex_proto_id p;
	int rc = dex_proto_id(d, idx, &p, e);

	if (rc)
		return rc;
	wbuf_u8(out, '(');
	if (p.parameters_off != 0) {
		struct cursor c;
		uint32_t n;
		if ((rc = data_at(d, p.parameters_off, "parameters", &c, e)) != 0 ||
		    (rc = cur_u32le(&c, &n, e)) != 0)
			return rc;
		if (n > cur_remaining(&c) / 2)
			return ERR_SET(e, ERR_CORRUPT, cur_where(&c),
				       "dex at 0x%llx: type list of %u entries at 0x%llx exceeds the data section",
				       (unsigned long long)d->file.va, n, (unsigned long long)cur_where(&c));
		for (uint32_t i = 0; i < n; i++) {
			uint16_t t;
			if ((rc = cur_u16le(&c, &t, e)) != 0 || (rc = append_type(d, t, out, e)) != 0)
				return rc;
		}
	}
	wbuf_u8(out, ')');
	if ((rc = append_type(d, p.return_type_idx, out, e)) != 0)
		return rc;
	return wbuf_status(out, e);
}

int dex_class_def(const struct dex *d, uint32_t idx, struct dex_class_def *out, struct err *e)
{
	const uint8_t *p;
	int rc = index_check(d, "class_def", idx, d->class_defs_size, e);

	if (rc)
		return rc;
	p = id_entry(d, d->class_defs_off, idx, DEX_CLASS_DEF_SIZE);
	out->class_idx = ld_u16le(p);
	out->access_flags = ld_u32le(p + 4);
	out->superclass_idx = ld_u16le(p + 8);
	if (out->superclass_idx == DEX_NO_INDEX16)
		out->superclass_idx = DEX_NO_INDEX;
	out->interfaces_off = ld_u32le(p + 12);
	out->source_file_idx = ld_u32le(p + 16);
	out->annotations_off = ld_u32le(p + 20);
	out->class_data_off = ld_u32le(p + 24);
	out->static_values_off = ld_u32le(p + 28);
	return 0;
}

/* ---- class_data ---- */

int dex_class_data_open(const struct dex *d, const struct dex_class_def *def,
			struct dex_class_data *it, struct err *e)
{
	size_t items = 0, min_bytes;
	int rc;

	memset(it, 0, sizeof(*it));
	if (def->class_data_off == 0)
		return 0;
	if ((rc = data_at(d, def->class_data_off, "class_data", &it->c, e)) != 0)
		return rc;
	for (unsigned k = 0; k < 4; k++) {
		if ((rc = cur_uleb128(&it->c, &it->count[k], e)) != 0)
			return rc;
		if (ck_add(items, it->count[k], &items))
			items = SIZE_MAX;
	}
	/* a field takes at least 2 bytes, a method 3: reject impossible counts up front */
	if (ck_mul(items, 2, &min_bytes) || min_bytes > cur_remaining(&it->c))
		return ERR_SET(e, ERR_CORRUPT, d->data.va + def->class_data_off,
			       "dex at 0x%llx: class_data at 0x%x declares %zu members, more than its %zu bytes hold",
			       (unsigned long long)d->file.va, def->class_data_off, items,
			       cur_remaining(&it->c));
	it->kind = 0;
	it->left = it->count[0];
	return 0;
}

int dex_class_data_next(struct dex_class_data *it, struct dex_member *m, struct err *e)
{
	uint32_t diff;
	int rc;

	while (it->left == 0) {
		if (it->kind >= 3)
			return 0;
		it->kind++;
		it->left = it->count[it->kind];
		it->prev_idx = 0;
	}
	if ((rc = cur_uleb128(&it->c, &diff, e)) != 0 ||
	    (rc = cur_uleb128(&it->c, &m->access_flags, e)) != 0)
		return rc;
	m->code_off = 0;
	if (it->kind >= DEX_DIRECT_METHOD && (rc = cur_uleb128(&it->c, &m->code_off, e)) != 0)
		return rc;
	/* the first index of a list is absolute (diff from 0); wrap-around is corrupt */
	if (diff > UINT32_MAX - it->prev_idx)
		return ERR_SET(e, ERR_CORRUPT, cur_where(&it->c),
			       "class_data at 0x%llx: member index overflows 32 bits",
			       (unsigned long long)cur_where(&it->c));
	m->idx = it->prev_idx + diff;
	it->prev_idx = m->idx;
	m->kind = it->kind;
	it->left--;
	return 1;
}

/* ---- code items ---- */

static int standard_code_item(const struct dex *d, uint32_t code_off, struct dex_code_item *out,
			      struct err *e)
{
	struct cursor c;
	size_t nbytes;
	int rc;

	if ((rc = data_at(d, code_off, "code_item", &c, e)) != 0 ||
	    (rc = cur_need(&c, DEX_CODE_ITEM_HEADER, e)) != 0)
		return rc;
	out->registers_size = ld_u16le(cur_ptr(&c));
	out->ins_size = ld_u16le(cur_ptr(&c) + 2);
	out->outs_size = ld_u16le(cur_ptr(&c) + 4);
	out->tries_size = ld_u16le(cur_ptr(&c) + 6);
	out->debug_info_off = ld_u32le(cur_ptr(&c) + 8);
	out->insns_size = ld_u32le(cur_ptr(&c) + 12);
	c.pos += DEX_CODE_ITEM_HEADER;
	if (ck_mul(out->insns_size, 2, &nbytes))
		nbytes = SIZE_MAX;
	return cur_take(&c, nbytes, &out->insns, e);
}

/* reads the u16 `back` code units before the item (the cdex pre-header grows downwards) */
static int preheader_u16(const struct dex *d, size_t item, unsigned back, uint16_t *v, struct err *e)
{
	size_t need = (size_t)back * 2;

	if (need > item)
		return ERR_SET(e, ERR_CORRUPT, d->data.va + item,
			       "cdex code item at 0x%zx: pre-header runs before the data section", item);
	*v = ld_u16le(d->data.base + item - need);
	return 0;
}

static int compact_code_item(const struct dex *d, uint32_t code_off, uint32_t method_idx,
			     struct dex_code_item *out, struct err *e)
{
	struct cursor c;
	uint16_t fields, flags, v = 0, hi = 0;
	unsigned back = 0;
	size_t nbytes;
	int rc;

	if ((rc = data_at(d, code_off, "code_item", &c, e)) != 0 ||
	    (rc = cur_need(&c, CDEX_CODE_ITEM_HEADER, e)) != 0)
		return rc;
	fields = ld_u16le(cur_ptr(&c));
	flags = ld_u16le(cur_ptr(&c) + 2);
	c.pos += CDEX_CODE_ITEM_HEADER;
	out->registers_size = fields >> 12 & 0xf;
	out->ins_size = fields >> 8 & 0xf;
	out->outs_size = fields >> 4 & 0xf;
	out->tries_size = fields & 0xf;
	out->insns_size = flags >> CDEX_INSNS_SIZE_SHIFT;
	if (flags & CDEX_FLAG_INSNS) {
		if ((rc = preheader_u16(d, code_off, ++back, &v, e)) != 0 ||
		    (rc = preheader_u16(d, code_off, ++back, &hi, e)) != 0)
			return rc;
		out->insns_size += (uint32_t)v + ((uint32_t)hi << 16);
	}
	static const struct { uint16_t flag; size_t field; } ext[] = {
		{ CDEX_FLAG_REGISTERS, offsetof(struct dex_code_item, registers_size) },
		{ CDEX_FLAG_INS, offsetof(struct dex_code_item, ins_size) },
		{ CDEX_FLAG_OUTS, offsetof(struct dex_code_item, outs_size) },
		{ CDEX_FLAG_TRIES, offsetof(struct dex_code_item, tries_size) },
	};
	for (size_t i = 0; i < sizeof(ext) / sizeof(ext[0]); i++) {
		uint16_t *f = (uint16_t *)((char *)out + ext[i].field);
		if (!(flags & ext[i].flag))
			continue;
		if ((rc = preheader_u16(d, code_off, ++back, &v, e)) != 0)
			return rc;
		*f = (uint16_t)(*f + v);
	}
	out->registers_size = (uint16_t)(out->registers_size + out->ins_size);
	if ((rc = dex_cdex_debug_info_off(d, method_idx, &out->debug_info_off, e)) != 0)
		return rc;
	if (ck_mul(out->insns_size, 2, &nbytes))
		nbytes = SIZE_MAX;
	return cur_take(&c, nbytes, &out->insns, e);
}

int dex_code_item(const struct dex *d, uint32_t code_off, uint32_t method_idx,
		  struct dex_code_item *out, struct err *e)
{
	memset(out, 0, sizeof(*out));
	if (d->compact)
		return compact_code_item(d, code_off, method_idx, out, e);
	return standard_code_item(d, code_off, out, e);
}

/* CompactOffsetTable::Accessor::GetOffset (compact_offset_table.cc @9): the table of u32
 * block offsets sits at data + pos + table_offset; each block is a big-endian u16 bitmap
 * of present entries followed by ULEB128 deltas from debug_info_base. */
int dex_cdex_debug_info_off(const struct dex *d, uint32_t method_idx, uint32_t *off, struct err *e)
{
	struct cursor region, blk;
	size_t entry;
	uint32_t block_off, cur, delta;
	unsigned bit = method_idx % CDEX_OFFSETS_PER_BLOCK, count;
	uint16_t mask;
	int rc;

	*off = 0;
	if (!d->compact)
		return 0;
	if ((rc = index_check(d, "method", method_idx, d->method_ids_size, e)) != 0)
		return rc;
	if (d->debug_info_offsets_pos > d->data.len)
		return ERR_SET(e, ERR_CORRUPT, d->file.va + CDH_DEBUG_INFO_OFFSETS_POS,
			       "cdex at 0x%llx: debug_info_offsets_pos 0x%x beyond the %zu-byte data section",
			       (unsigned long long)d->file.va, d->debug_info_offsets_pos, d->data.len);
	cur_init(&region, d->data.base + d->debug_info_offsets_pos,
		 d->data.len - d->debug_info_offsets_pos, d->data.va + d->debug_info_offsets_pos);
	if (ck_add(d->debug_info_offsets_table_offset, (size_t)(method_idx / CDEX_OFFSETS_PER_BLOCK) * 4, &entry))
		entry = SIZE_MAX;
	if ((rc = cur_peek_u32le(&region, entry, &block_off, e)) != 0)
		return rc;
	if (block_off > region.len)
		return ERR_SET(e, ERR_CORRUPT, region.va + entry,
			       "cdex at 0x%llx: debug info block 0x%x beyond the data section",
			       (unsigned long long)d->file.va, block_off);
	cur_init(&blk, region.base + block_off, region.len - block_off, region.va + block_off);
	if ((rc = cur_u16be(&blk, &mask, e)) != 0)
		return rc;
	if (!(mask & (1u << bit)))
		return 0;
	count = (unsigned)__builtin_popcount(mask & ((2u << bit) - 1));
	cur = d->debug_info_base;
	while (count--) {
		if ((rc = cur_uleb128(&blk, &delta, e)) != 0)
			return rc;
		cur += delta;  /* unsigned wrap matches the 32-bit runtime arithmetic */
	}
	*off = cur;
	return 0;
}

/* ---- map_list ---- */

static int map_cursor(const struct dex *d, struct cursor *c, uint32_t *count, struct err *e)
{
	size_t bytes;
	int rc;

	if (d->map_off % 4)
		return ERR_SET(e, ERR_CORRUPT, d->data.va + d->map_off,
			       "dex at 0x%llx: map_off 0x%x is not 4-byte aligned",
			       (unsigned long long)d->file.va, d->map_off);
	if ((rc = data_at(d, d->map_off, "map", c, e)) != 0 || (rc = cur_u32le(c, count, e)) != 0)
		return rc;
	if (ck_mul(*count, DEX_MAP_ITEM_SIZE, &bytes) || bytes > cur_remaining(c))
		return ERR_SET(e, ERR_CORRUPT, d->data.va + d->map_off,
			       "dex at 0x%llx: map of %u items at 0x%x exceeds the data section",
			       (unsigned long long)d->file.va, *count, d->map_off);
	return 0;
}

int dex_map_count(const struct dex *d, uint32_t *count, struct err *e)
{
	struct cursor c;

	return map_cursor(d, &c, count, e);
}

int dex_map_item(const struct dex *d, uint32_t i, struct dex_map_item *out, struct err *e)
{
	struct cursor c;
	uint32_t n;
	const uint8_t *p;
	int rc;

	if ((rc = map_cursor(d, &c, &n, e)) != 0)
		return rc;
	if ((rc = index_check(d, "map item", i, n, e)) != 0)
		return rc;
	p = cur_ptr(&c) + (size_t)i * DEX_MAP_ITEM_SIZE;
	out->type = ld_u16le(p);
	out->size = ld_u32le(p + 4);
	out->offset = ld_u32le(p + 8);
	return 0;
}

/* the header-declared (size, offset) a map entry of an id type must repeat */
static bool header_pair(const struct dex *d, uint16_t type, uint32_t *size, uint32_t *off)
{
	switch (type) {
	case DEX_TYPE_STRING_ID_ITEM: *size = d->string_ids_size; *off = d->string_ids_off; return true;
	case DEX_TYPE_TYPE_ID_ITEM: *size = d->type_ids_size; *off = d->type_ids_off; return true;
	case DEX_TYPE_PROTO_ID_ITEM: *size = d->proto_ids_size; *off = d->proto_ids_off; return true;
	case DEX_TYPE_FIELD_ID_ITEM: *size = d->field_ids_size; *off = d->field_ids_off; return true;
	case DEX_TYPE_METHOD_ID_ITEM: *size = d->method_ids_size; *off = d->method_ids_off; return true;
	case DEX_TYPE_CLASS_DEF_ITEM: *size = d->class_defs_size; *off = d->class_defs_off; return true;
	default: return false;
	}
}

int dex_map_validate(const struct dex *d, struct err *e)
{
	uint32_t n, prev_off = 0, hsize, hoff;
	int rc;

	if ((rc = dex_map_count(d, &n, e)) != 0)
		return rc;
	for (uint32_t i = 0; i < n; i++) {
		struct dex_map_item it;
		uint64_t where = d->data.va + d->map_off + 4 + (uint64_t)i * DEX_MAP_ITEM_SIZE;
		if ((rc = dex_map_item(d, i, &it, e)) != 0)
			return rc;
		/* compact dex keeps id sections and data in different bases: order is per base */
		if (!d->compact && i > 0 && it.offset <= prev_off)
			return ERR_SET(e, ERR_CORRUPT, where,
				       "dex map item %u at 0x%llx: offset 0x%x not above the previous 0x%x",
				       i, (unsigned long long)where, it.offset, prev_off);
		prev_off = it.offset;
		if (header_pair(d, it.type, &hsize, &hoff) && (it.size != hsize || (hsize && it.offset != hoff)))
			return ERR_SET(e, ERR_CORRUPT, where,
				       "dex map item %u at 0x%llx: type 0x%04x (%u at 0x%x) disagrees with the header (%u at 0x%x)",
				       i, (unsigned long long)where, it.type, it.size, it.offset, hsize, hoff);
		if (it.type == DEX_TYPE_MAP_LIST && it.offset != d->map_off)
			return ERR_SET(e, ERR_CORRUPT, where,
				       "dex map item %u at 0x%llx: map_list at 0x%x, header says 0x%x",
				       i, (unsigned long long)where, it.offset, d->map_off);
	}
	return 0;
}
