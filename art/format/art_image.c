/* art_image.c - see art_image.h.  The ImageHeader rows are art_image_formats[] in
 * art_layout.c; this file is the one parser of a header, from a file or mapped in memory. */
#include "art/format/art_image.h"

#include <string.h>

#include "carver/wrap/lz4w.h"
#include "carver/base/ck.h"
#include "carver/base/xalloc.h"

static const char *const section_names[ART_SEC_COUNT] = {
	"objects", "art-fields", "art-methods", "runtime-methods", "im-tables", "imt-conflict-tables",
	"dex-cache-arrays", "interned-strings", "class-table", "string-reference-offsets",
	"metadata", "image-bitmap", "jni-stub-methods",
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

static int check_header(struct art_image_header *h, uint64_t at, struct err *e)
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
	return 0;
}

/* "art\n", then the version string matched against art_image_versions. */
static int match_version(struct art_image_header *h, const struct cursor *c, struct err *e)
{
	size_t row;
	int rc;

	if (c->len < 4 || memcmp(c->base, "art\n", 4))
		return ERR_SET(e, c->len < 4 ? ERR_TRUNC : ERR_CORRUPT, c->va,
			       "image at 0x%llx: no \"art\\n\" magic with a 3-digit version", (unsigned long long)c->va);
	if ((rc = art_version_match(&art_image_versions, c, 4, &h->version, &row, e)))
		return rc;
	h->fmt = &art_image_formats[row];
	return 0;
}

int art_image_header_parse(struct art_image_header *h, const struct cursor *c, enum art_image_source src,
			   struct err *e)
{
	struct cursor whole = *c;
	uint64_t at = c->va;
	int rc;

	memset(h, 0, sizeof(*h));
	whole.pos = 0;
	if ((rc = match_version(h, &whole, e)))
		return rc;
	if (h->fmt->header_size > whole.len)
		return ERR_SET(e, ERR_TRUNC, at, "image header at 0x%llx: version %03u needs %u bytes, the input has %zu",
			       (unsigned long long)at, h->version, h->fmt->header_size, whole.len);
	decode_fields(h, &whole);
	if ((rc = check_header(h, at, e)))
		return rc;
	/* a mapped image was laid out by the runtime: what the file stored no longer matters */
	return src == ART_IMAGE_IN_FILE ? stored_extent(h, &whole, at, e) : 0;
}

int art_image_header_at(struct art_image_header *h, const struct image *img, uint64_t va, struct err *e)
{
	uint8_t buf[ART_IMAGE_MAX_HEADER];
	struct cursor c;
	int rc;

	memset(h, 0, sizeof(*h));
	if ((rc = img_read(img, va, buf, 8, e)))
		return rc;
	cur_init(&c, buf, 8, va);
	if ((rc = match_version(h, &c, e)))
		return rc;
	if (h->fmt->header_size > sizeof(buf))
		return ERR_SET(e, ERR_INTERNAL, va, "image header row %s is larger than %zu bytes", h->fmt->family,
			       sizeof(buf));
	if ((rc = img_read(img, va, buf, h->fmt->header_size, e)))
		return rc;
	cur_init(&c, buf, h->fmt->header_size, va);
	return art_image_header_parse(h, &c, ART_IMAGE_MAPPED, e);
}

/* The header parsed with row r, its version bytes taken as the row's first version. */
static int header_as_row(struct art_image_header *h, const struct image *img, uint64_t va, size_t r, struct err *e)
{
	uint8_t buf[ART_IMAGE_MAX_HEADER];
	const struct art_image_format *f = &art_image_formats[r];
	struct cursor c;
	int rc;

	if (f->header_size > sizeof(buf) || strlen(f->versions) < 3)
		return ERR_SET(e, ERR_INTERNAL, va, "image header row %s", f->family);
	if ((rc = img_read(img, va, buf, f->header_size, e)))
		return rc;
	memcpy(buf + 4, f->versions, 3);
	buf[7] = 0;
	cur_init(&c, buf, f->header_size, va);
	if ((rc = art_image_header_parse(h, &c, ART_IMAGE_MAPPED, e)))
		return rc;
	if (h->image_begin != va)
		return ERR_SET(e, ERR_CORRUPT, va, "image header at 0x%llx read as %s: image_begin 0x%x",
			       (unsigned long long)va, f->versions, h->image_begin);
	return 0;
}

int art_image_header_by_fields(struct art_image_header *h, const struct image *img, uint64_t va, struct err *e)
{
	struct art_image_header t;
	uint8_t magic[4];
	unsigned fits = 0;
	int rc;

	memset(h, 0, sizeof(*h));
	if ((rc = img_read(img, va, magic, sizeof(magic), e)))
		return rc;
	if (memcmp(magic, "art\n", 4))
		return ERR_SET(e, ERR_CORRUPT, va, "image at 0x%llx: no \"art\\n\" magic", (unsigned long long)va);
	for (size_t r = 0; r < art_image_format_count; r++) {
		if (header_as_row(&t, img, va, r, e))
			continue;
		if (fits++ == 0)
			*h = t;
		else if (t.objects_end != h->objects_end)
			return ERR_SET(e, ERR_CORRUPT, va, "image header at 0x%llx: rows %s and %s both fit, with other "
				       "ends of the objects section", (unsigned long long)va, h->fmt->versions, t.fmt->versions);
	}
	if (!fits)
		return ERR_SET(e, ERR_CORRUPT, va, "image header at 0x%llx: no row's fields fit",
			       (unsigned long long)va);
	err_init(e);
	return 0;
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
	if ((rc = art_image_header_parse(&img->h, &c, ART_IMAGE_IN_FILE, e)))
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

int art_image_map(struct image *view, const struct art_image *img, const char *name, struct err *e)
{
	return img_add_region_mem(view, img->h.image_begin, img->data, img->len, IMG_PROT_R | IMG_PROT_W, name, e);
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
