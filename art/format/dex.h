/* dex.h - standard DEX (035..041) and compact DEX (cdex 001) reader over borrowed bytes.
 *
 * Layouts: libdexfile/dex/dex_file.h, standard_dex_file.cc, compact_dex_file.h and
 * compact_offset_table.cc (AOSP platform/art, android 9 b151df35 .. 14 930710d4).
 * Offsets stored in a DEX are relative to one of two bases:
 *   - id sections (string_ids_off ... class_defs_off): the DEX header for dex 035..040
 *     and cdex; the container start for dex 041;
 *   - data items (string_data_off, class_data_off, map_off, code_off, ...): the DEX
 *     header for 035..040, the container start for 041, and header + data_off for cdex
 *     (a VDEX keeps the cdex "shared data" after all of its dex files).
 * struct dex keeps one cursor for each base; every accessor bounds-checks against it. */
#ifndef ARTCARVE_DEX_H
#define ARTCARVE_DEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "art/format/art_version.h"
#include "carver/base/cursor.h"
#include "carver/base/err.h"
#include "carver/base/wbuf.h"

enum {
	DEX_HEADER_SIZE = 0x70,         /* dex 035..040 */
	DEX_HEADER_SIZE_V41 = 0x78,     /* + container_size, header_offset */
	CDEX_HEADER_SIZE = 0x88,        /* + feature_flags ... owned_data_end */
	DEX_ENDIAN_CONSTANT = 0x12345678,
	DEX_NO_INDEX = 0xffffffffu,     /* superclass_idx/source_file_idx "none" */
	DEX_NO_INDEX16 = 0xffffu,
};

/* map_list item types (dex_file.h MapItemType) */
enum dex_map_type {
	DEX_TYPE_HEADER_ITEM = 0x0000, DEX_TYPE_STRING_ID_ITEM = 0x0001,
	DEX_TYPE_TYPE_ID_ITEM = 0x0002, DEX_TYPE_PROTO_ID_ITEM = 0x0003,
	DEX_TYPE_FIELD_ID_ITEM = 0x0004, DEX_TYPE_METHOD_ID_ITEM = 0x0005,
	DEX_TYPE_CLASS_DEF_ITEM = 0x0006, DEX_TYPE_CALL_SITE_ID_ITEM = 0x0007,
	DEX_TYPE_METHOD_HANDLE_ITEM = 0x0008, DEX_TYPE_MAP_LIST = 0x1000,
	DEX_TYPE_TYPE_LIST = 0x1001, DEX_TYPE_ANNOTATION_SET_REF_LIST = 0x1002,
	DEX_TYPE_ANNOTATION_SET_ITEM = 0x1003, DEX_TYPE_CLASS_DATA_ITEM = 0x2000,
	DEX_TYPE_CODE_ITEM = 0x2001, DEX_TYPE_STRING_DATA_ITEM = 0x2002,
	DEX_TYPE_DEBUG_INFO_ITEM = 0x2003, DEX_TYPE_ANNOTATION_ITEM = 0x2004,
	DEX_TYPE_ENCODED_ARRAY_ITEM = 0x2005, DEX_TYPE_ANNOTATIONS_DIRECTORY_ITEM = 0x2006,
	DEX_TYPE_HIDDENAPI_CLASS_DATA_ITEM = 0xF000,
};

struct dex_format;

struct dex {
	struct cursor file;        /* exactly the DEX (file_size bytes), borrowed */
	unsigned version;          /* 35..41 for standard DEX; for compact DEX the cdex version (1) */
	const struct dex_format *fmt; /* the version's row (dex.c) */
	bool compact;
	uint32_t checksum;         /* adler32 from the header */
	uint32_t string_ids_size, type_ids_size, proto_ids_size, field_ids_size,
		 method_ids_size, class_defs_size;
	/* header fields, as stored */
	uint32_t file_size, header_size, endian_tag, link_size, link_off, map_off,
		 string_ids_off, type_ids_off, proto_ids_off, field_ids_off, method_ids_off,
		 class_defs_off, data_size, data_off;
	uint32_t container_size, header_offset;           /* dex 041 only, else 0 */
	uint32_t feature_flags, debug_info_offsets_pos,   /* cdex only, else 0 */
		 debug_info_offsets_table_offset, debug_info_base, owned_data_begin, owned_data_end;
	struct cursor ids;         /* base of the id-section offsets */
	struct cursor data;        /* base of data-item offsets (string data, class data, code) */
};

/* "dex\n" or "cdex" magic and three digits + NUL (dex_load matches the version) */
bool dex_probe(const uint8_t *p, size_t len);
/* The version rows of standard and compact DEX (art/format/art_version.h). */
extern const struct art_version_table dex_versions, cdex_versions;
/* Parses the header at c->base.  c may extend past file_size (cdex shared data after
 * the dex, or the rest of a VDEX); d borrows c's bytes. */
int  dex_load(struct dex *d, const struct cursor *c, struct err *e);
/* Bytes the DEX needs from its start: file_size, or for cdex up to the end of its
 * shared data (data_off + data_size) when that is larger.  Use this to extract a cdex
 * from a VDEX as a self-contained file. */
size_t dex_span(const struct dex *d);

/* adler32 over the header from offset 12 to file_size (plus the cdex data section) */
uint32_t dex_adler32(uint32_t adler, const uint8_t *p, size_t n);
int  dex_verify_checksum(const struct dex *d, uint32_t *computed, struct err *e);
/* The checksum the header should hold (adler32 after the magic, or compact dex's own). */
uint32_t dex_checksum_of(const struct dex *d);

/* MUTF-8 bytes of string_ids[idx], without the NUL */
int  dex_string(const struct dex *d, uint32_t idx, const uint8_t **s, size_t *len, struct err *e);
/* Appends string_ids[idx] as WTF-8, the form mirror_string_wtf8 gives a String's text (UTF-8;
 * a surrogate pair as one 4-byte character, a lone surrogate as 3 bytes, NUL as 00), so that
 * a DEX literal and a heap String compare byte for byte.  -ERR_CORRUPT for malformed MUTF-8. */
int  dex_string_wtf8(const struct dex *d, uint32_t idx, struct wbuf *out, struct err *e);
/* the UTF-16 length stored before the string data */
int  dex_string_utf16_len(const struct dex *d, uint32_t idx, uint32_t *out, struct err *e);
/* descriptor of type_ids[idx], e.g. "Ljava/lang/String;" */
int  dex_type_descriptor(const struct dex *d, uint32_t idx, const uint8_t **s, size_t *len, struct err *e);

struct dex_field_id  { uint32_t class_idx, type_idx, name_idx; };
struct dex_method_id { uint32_t class_idx, proto_idx, name_idx; };
struct dex_proto_id  { uint32_t shorty_idx, return_type_idx, parameters_off; };
int  dex_field_id(const struct dex *d, uint32_t idx, struct dex_field_id *out, struct err *e);
int  dex_method_id(const struct dex *d, uint32_t idx, struct dex_method_id *out, struct err *e);
int  dex_proto_id(const struct dex *d, uint32_t idx, struct dex_proto_id *out, struct err *e);
/* appends "(ILjava/lang/String;)V" for proto_ids[idx] */
int  dex_proto_signature(const struct dex *d, uint32_t idx, struct wbuf *out, struct err *e);

struct dex_class_def { uint32_t class_idx, access_flags, superclass_idx, interfaces_off,
		       source_file_idx, annotations_off, class_data_off, static_values_off; };
int  dex_class_def(const struct dex *d, uint32_t idx, struct dex_class_def *out, struct err *e);

/* class_data iteration: static fields, instance fields, direct methods, virtual methods */
struct dex_class_data {
	struct cursor c;           /* over the class_data item, reading position */
	uint32_t count[4];         /* per kind, as declared */
	unsigned kind;             /* current kind (index into count) */
	uint32_t left;             /* items left in the current kind */
	uint32_t prev_idx;         /* delta base, restarts for each kind */
};
struct dex_member {
	uint32_t idx;              /* field_ids / method_ids index */
	uint32_t access_flags;
	uint32_t code_off;         /* methods only (data-relative), 0 for fields / no code */
	enum { DEX_STATIC_FIELD, DEX_INSTANCE_FIELD, DEX_DIRECT_METHOD, DEX_VIRTUAL_METHOD } kind;
};
/* def->class_data_off == 0 gives an empty iteration */
int  dex_class_data_open(const struct dex *d, const struct dex_class_def *def,
			 struct dex_class_data *it, struct err *e);
int  dex_class_data_next(struct dex_class_data *it, struct dex_member *m, struct err *e); /* 1 item, 0 end */

/* A code item, standard or compact (compact_dex_file.h CodeItem with its pre-header). */
struct dex_code_item {
	uint16_t registers_size, ins_size, outs_size, tries_size;
	uint32_t debug_info_off;   /* standard: from the item; cdex: from the offset table (needs method_idx) */
	uint32_t insns_size;       /* in 16-bit code units */
	struct cursor insns;       /* insns_size * 2 bytes */
};
int  dex_code_item(const struct dex *d, uint32_t code_off, uint32_t method_idx,
		   struct dex_code_item *out, struct err *e);
/* cdex: debug_info offset of a method through the compact offset table (0 = none) */
int  dex_cdex_debug_info_off(const struct dex *d, uint32_t method_idx, uint32_t *off, struct err *e);

/* map_list: calls fn per item after checking the list lies in the data section */
struct dex_map_item { uint16_t type; uint32_t size, offset; };
int  dex_map_count(const struct dex *d, uint32_t *count, struct err *e);
int  dex_map_item(const struct dex *d, uint32_t i, struct dex_map_item *out, struct err *e);
/* checks the map: sorted by offset, id-section entries equal the header's, items in range */
int  dex_map_validate(const struct dex *d, struct err *e);

#endif
