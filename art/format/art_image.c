/* art_image.c - see art_image.h.  One row per ImageHeader layout; the offsets were read
 * from the data members of `class ImageHeader` in runtime/image.h at each reference commit
 * (docs/art-layouts.md §0): PACKED(4) in 5.0-9, PACKED(8) in 10+ (sizeof rounded to 8). */
#include "art/format/art_image.h"

#include <string.h>

#include "art/format/lz4w.h"
#include "carver/base/ck.h"
#include "carver/base/xalloc.h"

#define NA ART_IMAGE_ABSENT

static const char *const section_names[ART_SEC_COUNT] = {
	"objects", "art-fields", "art-methods", "runtime-methods", "im-tables", "imt-conflict-tables",
	"dex-cache-arrays", "interned-strings", "class-table", "string-reference-offsets",
	"metadata", "image-bitmap",
};

const char *art_image_section_name(enum art_image_section s)
{
	return (unsigned)s < ART_SEC_COUNT ? section_names[s] : "?";
}

const char *art_image_storage_name(uint32_t mode)
{
	switch (mode) {
	case ART_STORAGE_UNCOMPRESSED: return "uncompressed";
	case ART_STORAGE_LZ4: return "lz4";
	case ART_STORAGE_LZ4HC: return "lz4hc";
	default: return "?";
	}
}

/* enum ImageMethod, runtime/image.h @R60/R70/R71 (6 entries), @R80/R81 (7), @R9+ (9) */
static const char *const methods_60[] = {
	"resolution", "imt-conflict", "imt-unimplemented", "callee-save", "refs-only-save",
	"refs-and-args-save",
};
static const char *const methods_80[] = {
	"resolution", "imt-conflict", "imt-unimplemented", "save-all-callee-saves", "save-refs-only",
	"save-refs-and-args", "save-everything", "save-everything-for-clinit",
	"save-everything-for-suspend-check",
};

/* enum ImageSections per version (runtime/image.h) */
#define SEC_60 { ART_SEC_OBJECTS, ART_SEC_ART_FIELDS, ART_SEC_ART_METHODS, ART_SEC_INTERNED_STRINGS, \
		 ART_SEC_IMAGE_BITMAP }
#define SEC_70 { ART_SEC_OBJECTS, ART_SEC_ART_FIELDS, ART_SEC_ART_METHODS, ART_SEC_RUNTIME_METHODS,  \
		 ART_SEC_IMT_CONFLICT_TABLES, ART_SEC_DEX_CACHE_ARRAYS, ART_SEC_INTERNED_STRINGS,    \
		 ART_SEC_CLASS_TABLE, ART_SEC_IMAGE_BITMAP }
#define SEC_71 { ART_SEC_OBJECTS, ART_SEC_ART_FIELDS, ART_SEC_ART_METHODS, ART_SEC_RUNTIME_METHODS,  \
		 ART_SEC_IM_TABLES, ART_SEC_IMT_CONFLICT_TABLES, ART_SEC_DEX_CACHE_ARRAYS,          \
		 ART_SEC_INTERNED_STRINGS, ART_SEC_CLASS_TABLE, ART_SEC_IMAGE_BITMAP }
#define SEC_10 { ART_SEC_OBJECTS, ART_SEC_ART_FIELDS, ART_SEC_ART_METHODS, ART_SEC_RUNTIME_METHODS,  \
		 ART_SEC_IM_TABLES, ART_SEC_IMT_CONFLICT_TABLES, ART_SEC_DEX_CACHE_ARRAYS,          \
		 ART_SEC_INTERNED_STRINGS, ART_SEC_CLASS_TABLE, ART_SEC_STRING_REFERENCE_OFFSETS,   \
		 ART_SEC_METADATA, ART_SEC_IMAGE_BITMAP }
#define SEC_12 { ART_SEC_OBJECTS, ART_SEC_ART_FIELDS, ART_SEC_ART_METHODS, ART_SEC_RUNTIME_METHODS,  \
		 ART_SEC_IM_TABLES, ART_SEC_IMT_CONFLICT_TABLES, ART_SEC_INTERNED_STRINGS,          \
		 ART_SEC_CLASS_TABLE, ART_SEC_STRING_REFERENCE_OFFSETS, ART_SEC_METADATA,           \
		 ART_SEC_IMAGE_BITMAP }
#define SEC_14 { ART_SEC_OBJECTS, ART_SEC_ART_FIELDS, ART_SEC_ART_METHODS, ART_SEC_RUNTIME_METHODS,  \
		 ART_SEC_IM_TABLES, ART_SEC_IMT_CONFLICT_TABLES, ART_SEC_INTERNED_STRINGS,          \
		 ART_SEC_CLASS_TABLE, ART_SEC_STRING_REFERENCE_OFFSETS, ART_SEC_DEX_CACHE_ARRAYS,   \
		 ART_SEC_METADATA, ART_SEC_IMAGE_BITMAP }

/* 5.0/5.1 (runtime/image.h @R50/R51): no pointer size, sections or storage mode; the bitmap
 * is located by image_bitmap_offset/size (file offsets) */
#define OFF_5X(pic)                                                                              \
	{ .image_reservation_size = NA, .component_count = NA, .image_begin = 8, .image_size = 12,  \
	  .image_checksum = NA, .image_bitmap_offset = 16, .image_bitmap_size = 20,                 \
	  .oat_checksum = 24, .oat_file_begin = 28, .oat_data_begin = 32, .oat_data_end = 36,       \
	  .oat_file_end = 40, .boot_image_begin = NA, .boot_image_size = NA, .boot_oat_begin = NA,  \
	  .boot_oat_size = NA, .boot_image_component_count = NA, .boot_image_checksum = NA,         \
	  .patch_delta = 44, .image_roots = 48, .pointer_size = NA, .compile_pic = (pic),           \
	  .is_pic = NA, .sections = NA, .image_methods = NA, .storage_mode = NA, .data_size = NA,   \
	  .blocks_offset = NA, .blocks_count = NA }
/* 7.0-9 (runtime/image.h @R70..R9): boot image/oat ranges, is_pic, storage mode + data size
 * after the image methods */
#define OFF_7X(methods, storage)                                                                 \
	{ .image_reservation_size = NA, .component_count = NA, .image_begin = 8, .image_size = 12,  \
	  .image_checksum = NA, .image_bitmap_offset = NA, .image_bitmap_size = NA,                 \
	  .oat_checksum = 16, .oat_file_begin = 20, .oat_data_begin = 24, .oat_data_end = 28,       \
	  .oat_file_end = 32, .boot_image_begin = 36, .boot_image_size = 40, .boot_oat_begin = 44,  \
	  .boot_oat_size = 48, .boot_image_component_count = NA, .boot_image_checksum = NA,         \
	  .patch_delta = 52, .image_roots = 56, .pointer_size = 60, .compile_pic = 64,              \
	  .is_pic = 68, .sections = 72, .image_methods = (methods), .storage_mode = (storage),      \
	  .data_size = (storage) + 4, .blocks_offset = NA, .blocks_count = NA }
/* 10 (runtime/image.h @R10): reservation size + component count first, image checksum,
 * no patch delta / pic flags, compressed blocks */
#define OFF_10                                                                                   \
	{ .image_reservation_size = 8, .component_count = 12, .image_begin = 16, .image_size = 20,  \
	  .image_checksum = 24, .image_bitmap_offset = NA, .image_bitmap_size = NA,                 \
	  .oat_checksum = 28, .oat_file_begin = 32, .oat_data_begin = 36, .oat_data_end = 40,       \
	  .oat_file_end = 44, .boot_image_begin = 48, .boot_image_size = 52, .boot_oat_begin = NA,  \
	  .boot_oat_size = NA, .boot_image_component_count = NA, .boot_image_checksum = NA,         \
	  .patch_delta = NA, .image_roots = 56, .pointer_size = 60, .compile_pic = NA,              \
	  .is_pic = NA, .sections = 64, .image_methods = 160, .storage_mode = NA, .data_size = 232, \
	  .blocks_offset = 236, .blocks_count = 240 }
/* 11-14 (runtime/image.h @R11..R14): + boot image component count and checksum */
#define OFF_11(methods)                                                                          \
	{ .image_reservation_size = 8, .component_count = 12, .image_begin = 16, .image_size = 20,  \
	  .image_checksum = 24, .image_bitmap_offset = NA, .image_bitmap_size = NA,                 \
	  .oat_checksum = 28, .oat_file_begin = 32, .oat_data_begin = 36, .oat_data_end = 40,       \
	  .oat_file_end = 44, .boot_image_begin = 48, .boot_image_size = 52, .boot_oat_begin = NA,  \
	  .boot_oat_size = NA, .boot_image_component_count = 56, .boot_image_checksum = 60,         \
	  .patch_delta = NA, .image_roots = 64, .pointer_size = 68, .compile_pic = NA,              \
	  .is_pic = NA, .sections = 72, .image_methods = (methods), .storage_mode = NA,             \
	  .data_size = (methods) + 72, .blocks_offset = (methods) + 76, .blocks_count = (methods) + 80 }

const struct art_image_format art_image_formats[] = {
	/* 5.0: 13 u32 = 52 bytes; roots 6 DexCaches, 7 ClassRoots of 8 */
	{ .versions = "009", .family = "5.0", .header_size = 52, .off = OFF_5X(NA),
	  .roots = { 6, 7, 8 } },
	/* 5.1: + compile_pic_ = 56 bytes; roots 7 DexCaches, 8 ClassRoots of 9 */
	{ .versions = "012", .family = "5.1", .header_size = 56, .off = OFF_5X(52),
	  .roots = { 7, 8, 9 } },
	/* 6.0: 13 u32, sections_[5] at 52, image_methods_[6] at 92; 140 bytes */
	{ .versions = "017", .family = "6.0", .header_size = 140,
	  .off = { .image_reservation_size = NA, .component_count = NA, .image_begin = 8,
		   .image_size = 12, .image_checksum = NA, .image_bitmap_offset = NA,
		   .image_bitmap_size = NA, .oat_checksum = 16, .oat_file_begin = 20,
		   .oat_data_begin = 24, .oat_data_end = 28, .oat_file_end = 32,
		   .boot_image_begin = NA, .boot_image_size = NA, .boot_oat_begin = NA,
		   .boot_oat_size = NA, .boot_image_component_count = NA, .boot_image_checksum = NA,
		   .patch_delta = 36, .image_roots = 40, .pointer_size = 44, .compile_pic = 48,
		   .is_pic = NA, .sections = 52, .image_methods = 92, .storage_mode = NA,
		   .data_size = NA, .blocks_offset = NA, .blocks_count = NA },
	  .section_count = 5, .section_kinds = SEC_60, .image_method_count = 6,
	  .image_method_names = methods_60, .roots = { 0, 1, 2 } },
	/* 7.0: sections_[9] at 72, image_methods_[6] at 144, storage 192; 200 bytes */
	{ .versions = "029", .family = "7.0", .header_size = 200, .off = OFF_7X(144, 192),
	  .section_count = 9, .section_kinds = SEC_70, .image_method_count = 6,
	  .image_method_names = methods_60, .roots = { 0, 1, 2 } },
	/* 7.1: sections_[10] (+ImTables) at 72, image_methods_[6] at 152; 208 bytes */
	{ .versions = "030", .family = "7.1", .header_size = 208, .off = OFF_7X(152, 200),
	  .section_count = 10, .section_kinds = SEC_71, .image_method_count = 6,
	  .image_method_names = methods_60, .roots = { 0, 1, 2 } },
	/* 8.0: image_methods_[7] (+SaveEverything); roots + ClassLoader (app images); 216 bytes */
	{ .versions = "043,044", .family = "8.0", .header_size = 216, .off = OFF_7X(152, 208),
	  .section_count = 10, .section_kinds = SEC_71, .image_method_count = 7,
	  .image_method_names = methods_80, .roots = { 0, 1, 3 } },
	{ .versions = "046", .family = "8.1", .header_size = 216, .off = OFF_7X(152, 208),
	  .section_count = 10, .section_kinds = SEC_71, .image_method_count = 7,
	  .image_method_names = methods_80, .roots = { 0, 1, 3 } },
	/* 9: image_methods_[9]; 232 bytes */
	{ .versions = "056", .family = "9", .header_size = 232, .off = OFF_7X(152, 224),
	  .section_count = 10, .section_kinds = SEC_71, .image_method_count = 9,
	  .image_method_names = methods_80, .roots = { 0, 1, 3 } },
	/* 10: sections_[12] at 64, image_methods_[9] at 160, data_size 232, blocks 236/240;
	 * 244 rounded to 248; roots: + 4 preallocated errors, SpecialRoots = 7 */
	{ .versions = "074", .family = "10", .header_size = 248, .off = OFF_10,
	  .section_count = 12, .section_kinds = SEC_10, .image_method_count = 9,
	  .image_method_names = methods_80, .roots = { 0, 1, 7 } },
	/* 11: sections_[12] at 72, image_methods_[9] at 168; 252 rounded to 256 (086: the
	 * Integer.divideUnsigned intrinsic bump, same header) */
	{ .versions = "085,086", .family = "11", .header_size = 256, .off = OFF_11(168),
	  .section_count = 12, .section_kinds = SEC_10, .image_method_count = 9,
	  .image_method_names = methods_80, .roots = { 0, 1, 3 } },
	/* 12, 13: sections_[11] (no DexCacheArrays) at 72, image_methods_ at 160; 248 bytes */
	{ .versions = "099", .family = "12", .header_size = 248, .off = OFF_11(160),
	  .section_count = 11, .section_kinds = SEC_12, .image_method_count = 9,
	  .image_method_names = methods_80, .roots = { 0, 1, 3 } },
	{ .versions = "106", .family = "13", .header_size = 248, .off = OFF_11(160),
	  .section_count = 11, .section_kinds = SEC_12, .image_method_count = 9,
	  .image_method_names = methods_80, .roots = { 0, 1, 3 } },
	/* 14: DexCacheArrays back at index 9 (12 sections); roots + AppImageOatHeader */
	{ .versions = "108", .family = "14", .header_size = 256, .off = OFF_11(168),
	  .section_count = 12, .section_kinds = SEC_14, .image_method_count = 9,
	  .image_method_names = methods_80, .roots = { 0, 1, 4 } },
};
const size_t art_image_format_count = sizeof(art_image_formats) / sizeof(art_image_formats[0]);

static bool version_listed(const char *list, unsigned v)
{
	for (const char *p = list; p[0] && p[1] && p[2]; p += p[3] == ',' ? 4 : 3) {
		unsigned x = (unsigned)(p[0] - '0') * 100 + (unsigned)(p[1] - '0') * 10 + (unsigned)(p[2] - '0');
		if (x == v)
			return true;
		if (p[3] != ',')
			break;
	}
	return false;
}

const struct art_image_format *art_image_format_by_version(unsigned version)
{
	for (size_t i = 0; i < art_image_format_count; i++)
		if (version_listed(art_image_formats[i].versions, version))
			return &art_image_formats[i];
	return NULL;
}

static bool is_digit(uint8_t c) { return c >= '0' && c <= '9'; }

bool art_image_probe(const uint8_t *p, size_t len)
{
	return len >= 8 && !memcmp(p, "art\n", 4) && is_digit(p[4]) && is_digit(p[5]) &&
	       is_digit(p[6]) && p[7] == 0;
}

/* u32 at off, or 0 when the field is absent in this version */
static uint32_t field(const struct cursor *c, unsigned off)
{
	return off == ART_IMAGE_ABSENT ? 0 : ld_u32le(c->base + off);
}

static void decode_fields(struct art_image_header *h, const struct cursor *c)
{
	const struct art_image_format *f = h->fmt;

#define GET(x) h->x = field(c, f->off.x)
	GET(image_reservation_size); GET(component_count); GET(image_begin); GET(image_size);
	GET(image_checksum); GET(image_bitmap_offset); GET(image_bitmap_size); GET(oat_checksum);
	GET(oat_file_begin); GET(oat_data_begin); GET(oat_data_end); GET(oat_file_end);
	GET(boot_image_begin); GET(boot_image_size); GET(boot_oat_begin); GET(boot_oat_size);
	GET(boot_image_component_count); GET(boot_image_checksum); GET(image_roots);
	GET(pointer_size); GET(compile_pic); GET(is_pic); GET(storage_mode); GET(data_size);
	GET(blocks_offset); GET(blocks_count);
#undef GET
	h->patch_delta = (int32_t)field(c, f->off.patch_delta);
	for (unsigned i = 0; i < f->section_count; i++) {
		enum art_image_section k = f->section_kinds[i];
		h->has_section[k] = true;
		h->sections[k].offset = ld_u32le(c->base + f->off.sections + 8 * i);
		h->sections[k].size = ld_u32le(c->base + f->off.sections + 8 * i + 4);
	}
	for (unsigned i = 0; i < f->image_method_count; i++)
		h->image_methods[i] = ld_u64le(c->base + f->off.image_methods + 8 * i);
}

/* Sections (but the bitmap, which is stored outside the image) must lie in the image. */
static int check_sections(const struct art_image_header *h, uint64_t at, struct err *e)
{
	for (unsigned k = 0; k < ART_SEC_COUNT; k++) {
		const struct art_image_section_val *s = &h->sections[k];
		if (!h->has_section[k] || k == ART_SEC_IMAGE_BITMAP)
			continue;
		if (ck_range(s->offset, s->size, h->image_size))
			return ERR_SET(e, ERR_CORRUPT, at,
				       "image header at 0x%llx: %s section [0x%x, +0x%x) exceeds image_size 0x%x",
				       (unsigned long long)at, art_image_section_name(k), s->offset, s->size,
				       h->image_size);
	}
	if (h->has_section[ART_SEC_OBJECTS] && h->sections[ART_SEC_OBJECTS].offset != 0)
		return ERR_SET(e, ERR_CORRUPT, at, "image header at 0x%llx: objects section starts at 0x%x, expected 0",
			       (unsigned long long)at, h->sections[ART_SEC_OBJECTS].offset);
	return 0;
}

/* How many image bytes are stored after the header, and whether any is compressed. */
static int stored_extent(struct art_image_header *h, const struct cursor *file, uint64_t at, struct err *e)
{
	uint64_t body = h->image_size - h->fmt->header_size;

	if (ART_IMAGE_HAS(h, blocks_count)) {
		/* 10+: stored data = data_size bytes after the header; blocks say what is LZ4 */
		h->stored_size = h->data_size;
		h->compressed = h->blocks_count != 0;
	} else if (ART_IMAGE_HAS(h, storage_mode)) {
		if (h->storage_mode > ART_STORAGE_LZ4HC)
			return ERR_SET(e, ERR_CORRUPT, at, "image header at 0x%llx: storage mode %u, expected 0..2",
				       (unsigned long long)at, h->storage_mode);
		h->compressed = h->storage_mode != ART_STORAGE_UNCOMPRESSED;
		h->stored_size = h->compressed ? h->data_size : body;
	} else {
		h->stored_size = body;
	}
	if (h->stored_size > cur_remaining(file) - h->fmt->header_size)
		return ERR_SET(e, ERR_TRUNC, at,
			       "image at 0x%llx: %llu bytes of image data stored after the %u-byte header, the file has %zu",
			       (unsigned long long)at, (unsigned long long)h->stored_size, h->fmt->header_size,
			       cur_remaining(file) - h->fmt->header_size);
	/* an uncompressed image is mapped from the file as is (image_size bytes); data_size then
	 * only places the bitmap, and ART does not check it against image_size either */
	return 0;
}

static int check_header(struct art_image_header *h, const struct cursor *file, uint64_t at, struct err *e)
{
	uint32_t objects_size;

	if (h->image_size < h->fmt->header_size)
		return ERR_SET(e, ERR_CORRUPT, at, "image header at 0x%llx: image_size 0x%x is smaller than the %u-byte header",
			       (unsigned long long)at, h->image_size, h->fmt->header_size);
	if (ART_IMAGE_HAS(h, pointer_size) && h->pointer_size != 4 && h->pointer_size != 8)
		return ERR_SET(e, ERR_CORRUPT, at, "image header at 0x%llx: pointer size %u, expected 4 or 8",
			       (unsigned long long)at, h->pointer_size);
	if (ck_range(h->image_begin, h->image_size, UINT32_MAX) || h->image_begin % ART_IMAGE_PAGE)
		return ERR_SET(e, ERR_CORRUPT, at,
			       "image header at 0x%llx: image [0x%x, +0x%x) is not a page-aligned range below 4 GiB",
			       (unsigned long long)at, h->image_begin, h->image_size);
	int rc = check_sections(h, at, e);
	if (rc)
		return rc;
	/* 5.x: the objects are the whole image (compiler/image_writer.cc @R50) */
	objects_size = h->has_section[ART_SEC_OBJECTS] ? h->sections[ART_SEC_OBJECTS].size : h->image_size;
	h->objects_begin = (h->fmt->header_size + ART_IMAGE_OBJECT_ALIGN - 1) & ~(ART_IMAGE_OBJECT_ALIGN - 1);
	h->objects_end = objects_size;
	if (objects_size < h->objects_begin)
		return ERR_SET(e, ERR_CORRUPT, at, "image header at 0x%llx: objects section ends at 0x%x, before the first object at 0x%x",
			       (unsigned long long)at, objects_size, h->objects_begin);
	/* a boot image component may use the roots of the primary image (outside this one) */
	if (h->image_roots == 0 || h->image_roots % ART_IMAGE_OBJECT_ALIGN ||
	    (h->image_roots >= h->image_begin && h->image_roots - h->image_begin < h->image_size &&
	     (h->image_roots < h->image_begin + h->objects_begin || h->image_roots >= h->image_begin + objects_size)))
		return ERR_SET(e, ERR_CORRUPT, at,
			       "image header at 0x%llx: image_roots 0x%x is not an aligned object address (objects [0x%x, 0x%x))",
			       (unsigned long long)at, h->image_roots, h->image_begin + h->objects_begin,
			       h->image_begin + objects_size);
	return stored_extent(h, file, at, e);
}

int art_image_header_parse(struct art_image_header *h, const struct cursor *file, struct err *e)
{
	struct cursor c = *file;
	uint64_t at = file->va;
	unsigned v;

	memset(h, 0, sizeof(*h));
	c.pos = 0;
	if (!art_image_probe(c.base, c.len))
		return ERR_SET(e, ERR_CORRUPT, at, "image at 0x%llx: no \"art\\n\" magic with a 3-digit version",
			       (unsigned long long)at);
	v = (unsigned)(c.base[4] - '0') * 100 + (unsigned)(c.base[5] - '0') * 10 + (unsigned)(c.base[6] - '0');
	h->fmt = art_image_format_by_version(v);
	h->version = v;
	if (!h->fmt)
		return ERR_SET(e, ERR_UNSUP, at + 4, "image at 0x%llx: version %03u is not a known ART image version",
			       (unsigned long long)at, v);
	if (h->fmt->header_size > c.len)
		return ERR_SET(e, ERR_TRUNC, at, "image header at 0x%llx: version %03u needs %u bytes, the input has %zu",
			       (unsigned long long)at, v, h->fmt->header_size, c.len);
	decode_fields(h, &c);
	return check_header(h, &c, at, e);
}

int art_image_block(const struct art_image_header *h, const struct cursor *file, uint32_t i,
		    struct art_image_block *out, struct err *e)
{
	size_t off;
	struct cursor b;
	int rc;

	if (i >= h->blocks_count)
		return ERR_SET(e, ERR_INTERNAL, ERR_NO_VA, "block %u of %u", i, h->blocks_count);
	if (ck_mul(i, 20, &off) || ck_add(off, h->blocks_offset, &off))
		return ERR_SET(e, ERR_CORRUPT, file->va, "image blocks at 0x%x: block %u overflows", h->blocks_offset, i);
	if ((rc = cur_sub(file, off, 20, &b, e)))
		return err_prefix(e, "image block %u", i);
	out->storage_mode = ld_u32le(b.base);
	out->data_offset = ld_u32le(b.base + 4);
	out->data_size = ld_u32le(b.base + 8);
	out->image_offset = ld_u32le(b.base + 12);
	out->image_size = ld_u32le(b.base + 16);
	return 0;
}

/* 10+: copy or decompress each block into its place; blocks must tile the image after the
 * header exactly once (out-of-order or overlapping blocks are corrupt). */
static int load_blocks(struct art_image *img, const struct cursor *file, struct err *e)
{
	const struct art_image_header *h = &img->h;
	uint32_t next = h->fmt->header_size;

	if (ck_range(h->blocks_offset, (size_t)h->blocks_count * 20, cur_remaining(file)) || h->blocks_count > (1u << 20))
		return ERR_SET(e, ERR_CORRUPT, file->va + h->fmt->off.blocks_offset,
			       "image header: %u blocks at 0x%x exceed the %zu-byte file", h->blocks_count,
			       h->blocks_offset, cur_remaining(file));
	for (uint32_t i = 0; i < h->blocks_count; i++) {
		struct art_image_block b;
		int rc = art_image_block(h, file, i, &b, e);
		uint64_t where = file->va + h->blocks_offset + 20ull * i;
		if (rc)
			return rc;
		if (b.image_offset != next || ck_range(b.image_offset, b.image_size, img->len))
			return ERR_SET(e, ERR_CORRUPT, where,
				       "image block %u at 0x%llx: image range [0x%x, +0x%x), expected to start at 0x%x inside 0x%zx bytes",
				       i, (unsigned long long)where, b.image_offset, b.image_size, next, img->len);
		if (ck_range(b.data_offset, b.data_size, cur_remaining(file)))
			return ERR_SET(e, ERR_TRUNC, where,
				       "image block %u at 0x%llx: data [0x%x, +0x%x) exceeds the %zu-byte file", i,
				       (unsigned long long)where, b.data_offset, b.data_size, cur_remaining(file));
		if (b.storage_mode == ART_STORAGE_UNCOMPRESSED) {
			if (b.data_size != b.image_size)
				return ERR_SET(e, ERR_CORRUPT, where, "image block %u at 0x%llx: uncompressed data size 0x%x != image size 0x%x",
					       i, (unsigned long long)where, b.data_size, b.image_size);
			memcpy(img->owned + b.image_offset, file->base + b.data_offset, b.data_size);
		} else if (b.storage_mode <= ART_STORAGE_LZ4HC) {
			rc = lz4w_decompress_exact(file->base + b.data_offset, b.data_size, img->owned + b.image_offset,
						   b.image_size, file->va + b.data_offset, e);
			if (rc)
				return err_prefix(e, "image block %u", i);
		} else {
			return ERR_SET(e, ERR_CORRUPT, where, "image block %u at 0x%llx: storage mode %u, expected 0..2", i,
				       (unsigned long long)where, b.storage_mode);
		}
		next = b.image_offset + b.image_size;
	}
	if (next != img->len)
		return ERR_SET(e, ERR_CORRUPT, file->va + h->blocks_offset,
			       "image blocks at 0x%x cover the image up to 0x%x, expected image_size 0x%zx", h->blocks_offset,
			       next, img->len);
	return 0;
}

static int decompress(struct art_image *img, const struct cursor *file, struct err *e)
{
	const struct art_image_header *h = &img->h;
	unsigned hs = h->fmt->header_size;

	/* LZ4 expands at most 255:1: refuse before allocating an absurd image_size */
	if ((img->len - hs) / 255 > h->stored_size + 16)
		return ERR_SET(e, ERR_CORRUPT, file->va + h->fmt->off.image_size,
			       "image header: image_size 0x%zx cannot come from %llu stored lz4 bytes", img->len,
			       (unsigned long long)h->stored_size);
	img->owned = xmalloc(img->len);
	if (!img->owned)
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "image: no memory for %zu decompressed bytes", img->len);
	memcpy(img->owned, file->base, hs);
	img->data = img->owned;
	if (ART_IMAGE_HAS(h, blocks_count))
		return load_blocks(img, file, e);
	/* 7.0-9: one LZ4 stream after the header (gc/space/image_space.cc @R71, @R9) */
	return lz4w_decompress_exact(file->base + hs, h->data_size, img->owned + hs, img->len - hs, file->va + hs, e);
}

/* Where the live bitmap is stored in the file (gc/space/image_space.cc): 5.x header fields;
 * 6.0 the bitmap section offset; 7.0+ the first page after the stored data. */
static void locate_bitmap(struct art_image *img, const struct cursor *file)
{
	const struct art_image_header *h = &img->h;
	uint64_t off, size;

	if (ART_IMAGE_HAS(h, image_bitmap_offset)) {
		off = h->image_bitmap_offset;
		size = h->image_bitmap_size;
	} else if (!h->has_section[ART_SEC_IMAGE_BITMAP]) {
		return;
	} else if (!ART_IMAGE_HAS(h, data_size)) {
		off = h->sections[ART_SEC_IMAGE_BITMAP].offset;
		size = h->sections[ART_SEC_IMAGE_BITMAP].size;
	} else {
		off = (h->fmt->header_size + h->stored_size + ART_IMAGE_PAGE - 1) & ~(uint64_t)(ART_IMAGE_PAGE - 1);
		size = h->sections[ART_SEC_IMAGE_BITMAP].size;
	}
	if (size == 0 || off > cur_remaining(file) || size > cur_remaining(file) - off)
		return; /* a truncated file loses only the bitmap cross-check */
	img->bitmap = file->base + off;
	img->bitmap_len = (size_t)size;
	img->bitmap_file_offset = file->va + off;
}

int art_image_load(struct art_image *img, const uint8_t *file, size_t file_len, struct err *e)
{
	struct cursor c;
	int rc;

	memset(img, 0, sizeof(*img));
	cur_init(&c, file, file_len, 0);
	if ((rc = art_image_header_parse(&img->h, &c, e)))
		return rc;
	img->len = img->h.image_size;
	if (img->h.compressed) {
		rc = decompress(img, &c, e);
		if (rc) {
			art_image_release(img);
			return rc;
		}
	} else {
		if (img->len > file_len) {
			rc = ERR_SET(e, ERR_TRUNC, 0, "image: image_size 0x%zx exceeds the %zu-byte file", img->len, file_len);
			art_image_release(img);
			return rc;
		}
		img->data = file;
	}
	locate_bitmap(img, &c);
	return 0;
}

void art_image_release(struct art_image *img)
{
	xfree(img->owned);
	memset(img, 0, sizeof(*img));
}

bool art_image_bitmap_test(const struct art_image *img, uint32_t offset)
{
	uint32_t bit = offset / ART_IMAGE_OBJECT_ALIGN;

	if (!img->bitmap || bit / 8 >= img->bitmap_len)
		return false;
	return (img->bitmap[bit / 8] >> (bit % 8)) & 1;
}

uint32_t art_image_bitmap_next(const struct art_image *img, uint32_t offset, uint32_t limit)
{
	for (uint64_t o = (uint64_t)offset + ART_IMAGE_OBJECT_ALIGN; o < limit; o += ART_IMAGE_OBJECT_ALIGN) {
		uint64_t bit = o / ART_IMAGE_OBJECT_ALIGN;
		if (!img->bitmap || bit / 8 >= img->bitmap_len)
			return limit;
		if (img->bitmap[bit / 8] == 0 && bit % 8 == 0) {
			o += 7 * ART_IMAGE_OBJECT_ALIGN; /* skip an empty byte */
			continue;
		}
		if ((img->bitmap[bit / 8] >> (bit % 8)) & 1)
			return (uint32_t)o;
	}
	return limit;
}
