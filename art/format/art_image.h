/* art_image.h - ART image files (boot.art, boot-*.art, app images), every header version
 * from 009 (Android 5.0) to 108 (Android 14).
 *
 * An image file is an ImageHeader followed by the image data (possibly LZ4 compressed),
 * then the live bitmap of the objects section at a page boundary.  The header layout of
 * each version is one row of art_image_formats[] (art_image.c): field offsets, section
 * order, image roots and image methods; code reads the row, never tests a version.
 * Addresses in the header are 32-bit (images live below 4 GiB); section offsets are
 * relative to image_begin.  Source: runtime/image.h, image.cc, gc/space/image_space.cc of
 * AOSP platform/art at the reference commits of docs/art-layouts.md §0. */
#ifndef ARTCARVE_ART_IMAGE_H
#define ARTCARVE_ART_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "carver/base/cursor.h"
#include "carver/base/err.h"

#define ART_IMAGE_ABSENT 0xffffu      /* a header field this version does not have */
#define ART_IMAGE_OBJECT_ALIGN 8u     /* kObjectAlignment */
#define ART_IMAGE_PAGE 4096u          /* kPageSize: the bitmap starts on a page boundary */
#define ART_IMAGE_MAX_SECTIONS 12u
#define ART_IMAGE_MAX_METHODS 9u

/* Section meaning, independent of its index in a given version. */
enum art_image_section {
	ART_SEC_OBJECTS,
	ART_SEC_ART_FIELDS,
	ART_SEC_ART_METHODS,
	ART_SEC_RUNTIME_METHODS,
	ART_SEC_IM_TABLES,
	ART_SEC_IMT_CONFLICT_TABLES,
	ART_SEC_DEX_CACHE_ARRAYS,
	ART_SEC_INTERNED_STRINGS,
	ART_SEC_CLASS_TABLE,
	ART_SEC_STRING_REFERENCE_OFFSETS,
	ART_SEC_METADATA,
	ART_SEC_IMAGE_BITMAP,
	ART_SEC_COUNT
};
const char *art_image_section_name(enum art_image_section s);

/* Storage modes (ImageHeader::StorageMode, 7.0+; per block in 10+). */
enum { ART_STORAGE_UNCOMPRESSED = 0, ART_STORAGE_LZ4 = 1, ART_STORAGE_LZ4HC = 2 };
const char *art_image_storage_name(uint32_t mode); /* "uncompressed", "lz4", "lz4hc", "?" */

/* One header version family: offsets of the fields in the ImageHeader. */
struct art_image_format {
	const char *versions;     /* "009", or "085,086" */
	const char *family;       /* art_layout family: "5.0" ... "14" */
	unsigned header_size;     /* sizeof(ImageHeader) */
	struct {
		unsigned image_reservation_size, component_count, image_begin, image_size,
			image_checksum, image_bitmap_offset, image_bitmap_size, oat_checksum,
			oat_file_begin, oat_data_begin, oat_data_end, oat_file_end, boot_image_begin,
			boot_image_size, boot_oat_begin, boot_oat_size, boot_image_component_count,
			boot_image_checksum, patch_delta, image_roots, pointer_size, compile_pic,
			is_pic, sections, image_methods, storage_mode, data_size, blocks_offset,
			blocks_count;
	} off;
	unsigned section_count;
	uint8_t section_kinds[ART_IMAGE_MAX_SECTIONS]; /* index in the header -> art_image_section */
	unsigned image_method_count;
	const char *const *image_method_names;
	/* ImageRoot indices of the image-roots array */
	struct { unsigned dex_caches, class_roots, count; } roots;
};
extern const struct art_image_format art_image_formats[];
extern const size_t art_image_format_count;
const struct art_image_format *art_image_format_by_version(unsigned version);

struct art_image_section_val { uint32_t offset, size; };

/* The decoded header.  Fields the version lacks are 0 (fmt->off.X == ART_IMAGE_ABSENT). */
struct art_image_header {
	const struct art_image_format *fmt;
	unsigned version;
	uint32_t image_reservation_size, component_count, image_begin, image_size, image_checksum,
		image_bitmap_offset, image_bitmap_size, oat_checksum, oat_file_begin, oat_data_begin,
		oat_data_end, oat_file_end, boot_image_begin, boot_image_size, boot_oat_begin,
		boot_oat_size, boot_image_component_count, boot_image_checksum, image_roots,
		pointer_size, compile_pic, is_pic, storage_mode, data_size, blocks_offset, blocks_count;
	int32_t patch_delta;
	bool has_section[ART_SEC_COUNT];
	struct art_image_section_val sections[ART_SEC_COUNT];
	uint64_t image_methods[ART_IMAGE_MAX_METHODS];
	/* derived: the objects [objects_begin, objects_end) as image offsets */
	uint32_t objects_begin, objects_end;
	bool compressed;          /* any stored data is LZ4 */
	uint64_t stored_size;     /* bytes of image data stored after the header */
};

/* "art\n" + three digits + NUL. */
bool art_image_probe(const uint8_t *p, size_t len);
/* True when the header field exists in this version (e.g. ART_IMAGE_HAS(h, is_pic)). */
#define ART_IMAGE_HAS(h, field) ((h)->fmt->off.field != ART_IMAGE_ABSENT)

/* Decodes and checks the header at the start of file: known version, image_size and the
 * sections inside the image, image_roots inside the objects, pointer size 4 or 8, stored
 * data inside the file.  file->va is the file offset of its first byte (normally 0). */
int art_image_header_parse(struct art_image_header *h, const struct cursor *file, struct err *e);

/* A compressed block (10+): stored [data_offset, +data_size) of the file becomes
 * [image_offset, +image_size) of the image. */
struct art_image_block { uint32_t storage_mode, data_offset, data_size, image_offset, image_size; };
int art_image_block(const struct art_image_header *h, const struct cursor *file, uint32_t i,
		    struct art_image_block *out, struct err *e);

/* An image loaded for reading: `data` holds image_size bytes (the header included, as the
 * runtime maps it), borrowed from the file when uncompressed, owned when decompressed. */
struct art_image {
	struct art_image_header h;
	const uint8_t *data;
	size_t len;               /* image_size */
	uint8_t *owned;           /* non-NULL when data was decompressed */
	const uint8_t *bitmap;    /* live bitmap of the objects (1 bit per 8 bytes), NULL if absent */
	size_t bitmap_len;
	uint64_t bitmap_file_offset;
};
/* Parses the header, decompresses (bounded: output is exactly image_size bytes) and
 * locates the live bitmap.  The file bytes must outlive img.  On error img is released. */
int art_image_load(struct art_image *img, const uint8_t *file, size_t file_len, struct err *e);
void art_image_release(struct art_image *img);
/* Is bit `offset / 8` of the live bitmap set (offset from image_begin)? false if no bitmap. */
bool art_image_bitmap_test(const struct art_image *img, uint32_t offset);
/* Offset of the next set bitmap bit after `offset`, or `limit` when none before it. */
uint32_t art_image_bitmap_next(const struct art_image *img, uint32_t offset, uint32_t limit);

#endif
