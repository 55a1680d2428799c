/* art_image_synth.h - builds tiny synthetic ART image files for tests and fuzz seeds.
 *
 * The image is laid out from the rows under test (art_image_formats[] for the header,
 * art_layouts[] for the mirror objects), the way dex2oat lays one out: ImageHeader, the
 * objects from RoundUp(sizeof(ImageHeader), 8), the objects section ending after the last
 * object, the live bitmap on the page after the stored data.  Objects: java.lang.Class,
 * Object, String, DexCache, primitive classes char/int/long with their arrays, Object[],
 * two user classes (one named by its name_ string, one only through a DEX), one instance,
 * strings (compressed and UTF-16 where the family has compression), a DexCache, arrays,
 * the class roots, the dex caches and the image roots.  Everything here is written by
 * this file; nothing is copied from real images.  An image may also be laid out by hand
 * at another base (a boot image component: set base, the classes it uses and roots, add
 * objects with syn_obj and friends, then syn_file). */
#ifndef ARTCARVE_TEST_ART_IMAGE_SYNTH_H
#define ARTCARVE_TEST_ART_IMAGE_SYNTH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "art/format/art_image.h"
#include "art/format/art_layout.h"
#include "carver/wrap/lz4w.h"

enum { SYN_MAX = 16384, SYN_BEGIN = 0x70000000u };

struct synth {
	const struct art_image_format *fmt;
	const struct art_layout *lay;
	uint32_t base;            /* image_begin (SYN_BEGIN unless laid out by hand) */
	uint8_t img[SYN_MAX];     /* the image as mapped: header + objects */
	uint32_t pos;             /* next free offset */
	uint8_t bitmap[SYN_MAX / 64];
	/* addresses of the well-known objects, for tests */
	uint32_t jlc, jlo, jls, jldc, cchar, cint, clong, achar, aint, along, aobj, foo, bar, foo_obj,
		dex_cache, str_ascii, str_wide, ints, class_roots, dex_caches, roots;
	unsigned classes, objects;
};

static void syn_put32(struct synth *s, uint32_t addr, uint32_t v)
{
	uint32_t o = addr - s->base;
	s->img[o] = (uint8_t)v;
	s->img[o + 1] = (uint8_t)(v >> 8);
	s->img[o + 2] = (uint8_t)(v >> 16);
	s->img[o + 3] = (uint8_t)(v >> 24);
}

static void syn_put16(struct synth *s, uint32_t addr, uint16_t v)
{
	s->img[addr - s->base] = (uint8_t)v;
	s->img[addr - s->base + 1] = (uint8_t)(v >> 8);
}

/* A new object of size bytes (8-aligned) with class klass; marks the live bitmap. */
static uint32_t syn_obj(struct synth *s, uint32_t klass, uint32_t size)
{
	uint32_t off = s->pos;

	s->pos += (size + 7) & ~7u;
	s->bitmap[off / 64] |= (uint8_t)(1u << (off / 8 % 8));
	s->objects++;
	if (klass)
		syn_put32(s, s->base + off, klass);
	return s->base + off;
}

static bool syn_is_5x(const struct synth *s) { return s->lay->string.value == ART_ABSENT; }

static uint32_t syn_class_size(const struct synth *s) { return (s->lay->klass.size + 7) & ~7u; }

/* A Class object; class_size_ is its own size, object_size_ the size of its instances. */
static uint32_t syn_class(struct synth *s, uint32_t object_size, uint32_t flags)
{
	const struct art_layout *l = s->lay;
	uint32_t k = syn_obj(s, s->jlc, syn_class_size(s));

	syn_put32(s, k + l->klass.class_size, syn_class_size(s));
	syn_put32(s, k + l->klass.object_size, object_size);
	if (l->klass.class_flags != ART_ABSENT)
		syn_put32(s, k + l->klass.class_flags, flags);
	syn_put32(s, k + l->klass.dex_type_idx, 0xffffu);
	syn_put32(s, k + l->klass.dex_class_def_idx, 0xffffu);
	s->classes++;
	return k;
}

/* Primitive class: 5.x stores the plain Primitive::Type, 6.0+ adds the size shift << 16. */
static uint32_t syn_prim_class(struct synth *s, uint32_t type, uint32_t shift)
{
	uint32_t k = syn_class(s, 0, 1 /* no reference fields */);

	syn_put32(s, k + s->lay->klass.primitive_type, syn_is_5x(s) ? type : type | shift << 16);
	return k;
}

static uint32_t syn_array_class(struct synth *s, uint32_t component)
{
	uint32_t k = syn_class(s, 0, 0);

	syn_put32(s, k + s->lay->klass.component_type, component);
	if (!syn_is_5x(s))
		syn_put32(s, k + s->lay->klass.primitive_type, 2u << 16); /* kPrimNot, 4-byte refs */
	return k;
}

static uint32_t syn_array(struct synth *s, uint32_t klass, uint32_t len, uint32_t elem)
{
	uint32_t first = elem == 8 ? 16 : 12;
	uint32_t a = syn_obj(s, klass, first + len * elem);

	syn_put32(s, a + 8, len);
	return a;
}

/* java.lang.String with ASCII text; wide stores UTF-16 (always for 6.0/7.x). */
static uint32_t syn_string(struct synth *s, const char *text, bool wide)
{
	const struct art_layout *l = s->lay;
	uint32_t n = (uint32_t)strlen(text), str;

	if (syn_is_5x(s)) { /* 5.x: String{array_ 8, count_ 12, hash 16, offset_ 20} + char[] */
		uint32_t chars = syn_array(s, s->achar, n, 2);
		for (uint32_t i = 0; i < n; i++)
			syn_put16(s, chars + 12 + 2 * i, (uint8_t)text[i]);
		str = syn_obj(s, s->jls, 24);
		syn_put32(s, str + 8, chars);
		syn_put32(s, str + l->string.count, n);
		return str;
	}
	wide = wide || !l->string.compressible;
	str = syn_obj(s, s->jls, l->string.value + n * (wide ? 2 : 1));
	syn_put32(s, str + l->string.count, l->string.compressible ? n << 1 | (wide ? 1u : 0u) : n);
	for (uint32_t i = 0; i < n; i++) {
		if (wide)
			syn_put16(s, str + l->string.value + 2 * i, (uint8_t)text[i]);
		else
			s->img[str - s->base + l->string.value + i] = (uint8_t)text[i];
	}
	return str;
}

static void syn_header32(struct synth *s, unsigned off, uint32_t v)
{
	if (off != ART_IMAGE_ABSENT)
		syn_put32(s, s->base + off, v);
}

static void syn_classes(struct synth *s)
{
	const struct art_layout *l = s->lay;

	/* java.lang.Class first: its class is itself */
	s->jlc = s->base + s->pos;
	s->jlc = syn_class(s, syn_class_size(s), 0x10);
	s->jlo = syn_class(s, l->object.size, 0);
	s->jls = syn_class(s, syn_is_5x(s) ? 24 : l->string.value, 0x4);
	s->jldc = syn_class(s, l->dex_cache.size, 0x40);
	s->cchar = syn_prim_class(s, 3, 1);
	s->cint = syn_prim_class(s, 5, 2);
	s->clong = syn_prim_class(s, 6, 3);
	s->achar = syn_array_class(s, s->cchar);
	s->aint = syn_array_class(s, s->cint);
	s->along = syn_array_class(s, s->clong);
	s->aobj = syn_array_class(s, s->jlo);
	s->foo = syn_class(s, 16, 0);
	s->bar = syn_class(s, 24, 0);
}

/* Builds the objects; returns the objects section end (an image offset). */
static uint32_t syn_objects(struct synth *s)
{
	const struct art_layout *l = s->lay;
	const struct art_image_format *f = s->fmt;
	uint32_t loc;

	syn_classes(s);
	/* Foo is named by name_, Bar only through the DEX (type 1, class def 1) */
	syn_put32(s, s->foo + l->klass.name, syn_string(s, "com.example.Foo", false));
	s->dex_cache = syn_obj(s, s->jldc, l->dex_cache.size);
	loc = syn_string(s, "/system/framework/synth.jar", false);
	syn_put32(s, s->dex_cache + l->dex_cache.location, loc);
	syn_put32(s, s->foo + l->klass.dex_cache, s->dex_cache);
	syn_put32(s, s->bar + l->klass.dex_cache, s->dex_cache);
	syn_put32(s, s->foo + l->klass.dex_type_idx, 0);
	syn_put32(s, s->foo + l->klass.dex_class_def_idx, 0);
	syn_put32(s, s->bar + l->klass.dex_type_idx, 1);
	syn_put32(s, s->bar + l->klass.dex_class_def_idx, 1);
	s->foo_obj = syn_obj(s, s->foo, 16);
	s->str_ascii = syn_string(s, "hello", false);
	s->str_wide = syn_string(s, "wide!", true);
	s->ints = syn_array(s, s->aint, 3, 4);
	syn_put32(s, s->ints + 12, 7);
	syn_array(s, s->along, 2, 8);
	/* class roots: Class, Object, Class[] (Object[] here), Object[], String, DexCache */
	s->class_roots = syn_array(s, s->aobj, 6, 4);
	syn_put32(s, s->class_roots + 12, s->jlc);
	syn_put32(s, s->class_roots + 16, s->jlo);
	syn_put32(s, s->class_roots + 20, s->aobj);
	syn_put32(s, s->class_roots + 24, s->aobj);
	syn_put32(s, s->class_roots + 28, s->jls);
	syn_put32(s, s->class_roots + 32, s->jldc);
	s->dex_caches = syn_array(s, s->aobj, 1, 4);
	syn_put32(s, s->dex_caches + 12, s->dex_cache);
	s->roots = syn_array(s, s->aobj, f->roots.count, 4);
	syn_put32(s, s->roots + 12 + 4 * f->roots.dex_caches, s->dex_caches);
	syn_put32(s, s->roots + 12 + 4 * f->roots.class_roots, s->class_roots);
	return s->pos;
}

static unsigned syn_version(const struct art_image_format *f)
{
	return (unsigned)(f->versions[0] - '0') * 100 + (unsigned)(f->versions[1] - '0') * 10 +
	       (unsigned)(f->versions[2] - '0');
}

static size_t syn_round_page(size_t n) { return (n + ART_IMAGE_PAGE - 1) & ~(size_t)(ART_IMAGE_PAGE - 1); }

/* Writes the header of an image of image_size bytes whose objects end at objects_end. */
static void syn_header(struct synth *s, uint32_t objects_end, uint32_t bitmap_size)
{
	const struct art_image_format *f = s->fmt;
	unsigned v = syn_version(f);

	memcpy(s->img, "art\n", 4);
	s->img[4] = (uint8_t)('0' + v / 100);
	s->img[5] = (uint8_t)('0' + v / 10 % 10);
	s->img[6] = (uint8_t)('0' + v % 10);
	syn_header32(s, f->off.image_begin, s->base);
	syn_header32(s, f->off.image_size, objects_end);
	syn_header32(s, f->off.oat_checksum, 0x12345678);
	syn_header32(s, f->off.oat_file_begin, s->base + 0x100000);
	syn_header32(s, f->off.oat_data_begin, s->base + 0x101000);
	syn_header32(s, f->off.oat_data_end, s->base + 0x180000);
	syn_header32(s, f->off.oat_file_end, s->base + 0x181000);
	syn_header32(s, f->off.image_roots, s->roots);
	syn_header32(s, f->off.pointer_size, 8);
	syn_header32(s, f->off.compile_pic, 1);
	syn_header32(s, f->off.image_reservation_size, 0x181000);
	syn_header32(s, f->off.component_count, 1);
	syn_header32(s, f->off.image_bitmap_offset, (uint32_t)syn_round_page(objects_end));
	syn_header32(s, f->off.image_bitmap_size, bitmap_size);
	for (unsigned i = 0; i < f->section_count; i++) {
		enum art_image_section k = f->section_kinds[i];
		uint32_t off = k == ART_SEC_OBJECTS ? 0 : objects_end, size = k == ART_SEC_OBJECTS ? objects_end : 0;
		if (k == ART_SEC_IMAGE_BITMAP) {
			off = (uint32_t)syn_round_page(objects_end);
			size = bitmap_size;
		}
		syn_put32(s, s->base + f->off.sections + 8 * i, off);
		syn_put32(s, s->base + f->off.sections + 8 * i + 4, size);
	}
	for (unsigned i = 0; i < f->image_method_count; i++)
		syn_put32(s, s->base + f->off.image_methods + 8 * i, s->base + 0x200000 + 64 * i);
	syn_header32(s, f->off.data_size, objects_end - f->header_size);
}

/* Starts an image for format row f at base with its objects right after the header;
 * false for rows without a layout. */
static bool syn_begin(struct synth *s, const struct art_image_format *f, uint32_t base)
{
	memset(s, 0, sizeof(*s));
	s->fmt = f;
	s->base = base;
	s->lay = art_layout_by_family(f->family);
	s->pos = (f->header_size + 7) & ~7u;
	return s->lay != NULL;
}

/* Writes the image laid out so far (objects end at s->pos) as a file into a malloc'd
 * buffer (*len bytes); compressed selects LZ4 storage (7.0+: one stream; 10+: one block). */
static uint8_t *syn_file(struct synth *s, bool compressed, size_t *len)
{
	const struct art_image_format *f = s->fmt;
	uint32_t end = s->pos, bitmap_size;
	size_t stored, file_len, bitmap_off;
	uint8_t *file;
	struct err e;

	bitmap_size = (uint32_t)syn_round_page((end + 63) / 64);
	syn_header(s, end, bitmap_size);
	file = calloc(1, 2 * SYN_MAX + ART_IMAGE_PAGE + bitmap_size);
	if (!file)
		return NULL;
	stored = end - f->header_size;
	if (compressed && f->off.blocks_count != ART_IMAGE_ABSENT) {
		size_t c = 0;
		lz4w_compress(s->img + f->header_size, stored, file + f->header_size, SYN_MAX, 0, &c, &e);
		syn_header32(s, f->off.blocks_count, 1);
		syn_header32(s, f->off.blocks_offset, (uint32_t)(f->header_size + c));
		syn_header32(s, f->off.data_size, (uint32_t)(c + 20));
		memcpy(file, s->img, f->header_size);
		uint32_t block[5] = { ART_STORAGE_LZ4, f->header_size, (uint32_t)c, f->header_size, (uint32_t)stored };
		for (int i = 0; i < 5; i++)
			for (int b = 0; b < 4; b++)
				file[f->header_size + c + 4 * i + b] = (uint8_t)(block[i] >> (8 * b));
		stored = c + 20;
	} else if (compressed && f->off.storage_mode != ART_IMAGE_ABSENT) {
		size_t c = 0;
		lz4w_compress(s->img + f->header_size, stored, file + f->header_size, SYN_MAX, 1, &c, &e);
		syn_header32(s, f->off.storage_mode, ART_STORAGE_LZ4HC);
		syn_header32(s, f->off.data_size, (uint32_t)c);
		memcpy(file, s->img, f->header_size);
		stored = c;
	} else {
		memcpy(file, s->img, end);
	}
	/* 5.x and 6.0 give the bitmap's file offset; 7.0+ put it after the stored data */
	bitmap_off = f->off.data_size == ART_IMAGE_ABSENT ? syn_round_page(end) : syn_round_page(f->header_size + stored);
	memcpy(file + bitmap_off, s->bitmap, bitmap_size < sizeof(s->bitmap) ? bitmap_size : sizeof(s->bitmap));
	file_len = bitmap_off + bitmap_size;
	*len = file_len;
	return file;
}

/* Builds the image file for format row f into a malloc'd buffer (*len bytes); compressed
 * selects LZ4 storage (7.0+: one stream; 10+: one block).  NULL for unsupported rows. */
static uint8_t *syn_build(struct synth *s, const struct art_image_format *f, bool compressed, size_t *len)
{
	if (!syn_begin(s, f, SYN_BEGIN))
		return NULL;
	syn_objects(s);
	return syn_file(s, compressed, len);
}

#endif
