/* art_image.h - ART image files (boot.art, boot-*.art, app images), every header version
 * from 009 (Android 5.0) to 108 (Android 14).
 *
 * An image file is an ImageHeader followed by the image data (possibly LZ4 compressed),
 * then the live bitmap of the objects section at a page boundary.  The header layout of
 * each version is one row of art_image_formats[] (art_layout.c): field offsets, section
 * order, image roots and image methods; code reads the row, never tests a version.
 * Addresses in the header are 32-bit (images live below 4 GiB); section offsets are
 * relative to image_begin.  Source: runtime/image.h, image.cc, gc/space/image_space.cc of
 * AOSP platform/art at the reference commits of doc/sources.md. */
#ifndef ARTCARVE_ART_IMAGE_H
#define ARTCARVE_ART_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "art/format/art_layout.h"
#include "carver/base/cursor.h"
#include "carver/base/err.h"
#include "carver/image/image.h"

#define ART_IMAGE_OBJECT_ALIGN 8u     /* kObjectAlignment */
#define ART_IMAGE_PAGE 4096u          /* kPageSize: the bitmap starts on a page boundary */
#define ART_IMAGE_MAX_HEADER 512u     /* no ImageHeader row is larger (test_art_image checks) */

const char *art_image_section_name(enum art_image_section s);

/* Storage modes (ImageHeader::StorageMode, 7.0+; per block in 10+). */
enum { ART_STORAGE_UNCOMPRESSED = 0, ART_STORAGE_LZ4 = 1, ART_STORAGE_LZ4HC = 2 };
const char *art_image_storage_name(uint32_t mode); /* "uncompressed", "lz4", "lz4hc", "?" */

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

/* Where the header was read: a file stores the image (maybe compressed) after the header;
 * a mapped image is the runtime's copy, laid out and decompressed. */
enum art_image_source { ART_IMAGE_IN_FILE, ART_IMAGE_MAPPED };

/* The one ImageHeader parser.  Decodes and checks the header at the start of c: "art\n" and
 * a version of art_image_versions (art_version_match: unknown, ambiguous and cut-short
 * versions are errors), image_size and the sections inside the image, image_roots inside
 * the objects, pointer size 4 or 8; for ART_IMAGE_IN_FILE also that the stored data is
 * inside c.  c->va is the offset or address of the header. */
int art_image_header_parse(struct art_image_header *h, const struct cursor *c, enum art_image_source src,
			   struct err *e);
/* The header of the image mapped at va of img, read through img_read (ART_IMAGE_MAPPED). */
int art_image_header_at(struct art_image_header *h, const struct image *img, uint64_t va, struct err *e);
/* The second source of a mapped header whose version bytes are damaged: the row whose other
 * fields fit (image_begin the mapping's address, sections, roots: check_header), when every
 * row that fits gives the same end of the objects section (neighbouring rows differ in the
 * header's size alone: objects_begin is the first fitting row's).  0, or <0 with *e. */
int art_image_header_by_fields(struct art_image_header *h, const struct image *img, uint64_t va, struct err *e);

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
/* Maps a loaded image into view as the runtime does (gc/space/image_space.cc): its image_size
 * bytes at image_begin, borrowed from img (which must outlive view's use of them), named name.
 * -ERR_CORRUPT, with nothing added, when that range overlaps a region of view. */
int art_image_map(struct image *view, const struct art_image *img, const char *name, struct err *e);
/* Is bit `offset / 8` of the live bitmap set (offset from image_begin)? false if no bitmap. */
bool art_image_bitmap_test(const struct art_image *img, uint32_t offset);
/* Offset of the next set bitmap bit after `offset`, or `limit` when none before it. */
uint32_t art_image_bitmap_next(const struct art_image *img, uint32_t offset, uint32_t limit);

#endif
