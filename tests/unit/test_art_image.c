/* test_art_image.c - ImageHeader rows, LZ4 loading, the object walk and class naming on
 * synthetic images built from the rows themselves (tests/unit/art_image_synth.h), plus
 * hostile variants.  `test_art_image --write-seeds DIR` writes the synthetic images as the
 * seed corpus of tests/fuzz/fuzz_art_image.c. */
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>

#include "art/format/art_image.h"
#include "art/format/dex.h"
#include "carver/wrap/lz4w.h"
#include "art/mirror/mirror_walk.h"
#include "t.h"
#include "art_image_synth.h"

/* ---- a two-class DEX: types LFoo... and LBar..., class defs in that order ---- */
static uint8_t dex_bytes[0x100];
static struct dex synth_dex;

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void build_dex(void)
{
	static const char *const strs[] = { "Lcom/example/Foo;", "Lcom/example/Bar;" };
	uint32_t data = 0xc0, off = data;
	struct cursor c;
	struct err e;

	memcpy(dex_bytes, "dex\n035", 8);
	put32(dex_bytes + 32, sizeof(dex_bytes)); /* file_size */
	put32(dex_bytes + 36, 0x70);              /* header_size */
	put32(dex_bytes + 40, 0x12345678);        /* endian_tag */
	put32(dex_bytes + 56, 2);                 /* string_ids */
	put32(dex_bytes + 60, 0x70);
	put32(dex_bytes + 64, 2);                 /* type_ids */
	put32(dex_bytes + 68, 0x78);
	put32(dex_bytes + 96, 2);                 /* class_defs */
	put32(dex_bytes + 100, 0x80);
	put32(dex_bytes + 104, sizeof(dex_bytes) - data);
	put32(dex_bytes + 108, data);
	for (uint32_t i = 0; i < 2; i++) {
		size_t n = strlen(strs[i]);
		put32(dex_bytes + 0x70 + 4 * i, off);     /* string_data_off */
		put32(dex_bytes + 0x78 + 4 * i, i);       /* type i -> string i */
		put32(dex_bytes + 0x80 + 32 * i, i);      /* class def i: class_idx i */
		put32(dex_bytes + 0x80 + 32 * i + 8, 0xffffffffu);
		dex_bytes[off] = (uint8_t)n;              /* uleb128 utf16 length */
		memcpy(dex_bytes + off + 1, strs[i], n + 1);
		off += (uint32_t)n + 2;
	}
	cur_init(&c, dex_bytes, sizeof(dex_bytes), 0);
	err_init(&e);
	T_CHECK(dex_load(&synth_dex, &c, &e) == 0, "synthetic dex: %s", e.msg);
}

static int lookup_synth(void *ctx, uint32_t dex_cache, const struct dex **out, struct err *e)
{
	const struct synth *s = ctx;

	(void)e;
	if (dex_cache != s->dex_cache)
		return 0;
	*out = &synth_dex;
	return 1;
}

static void check_name(const struct mirror *m, const struct synth *s, uint32_t k, int want_src, const char *want)
{
	struct wbuf b;
	struct err e;
	int rc;

	wbuf_init(&b);
	err_init(&e);
	rc = mw_class_name(m, k, lookup_synth, (void *)s, &b, &e);
	wbuf_u8(&b, 0);
	T_CHECK(rc == want_src && !strcmp((const char *)b.data, want), "family %s class 0x%x: source %d \"%s\" (%s), want %d \"%s\"",
		s->lay->family, k, rc, (const char *)b.data, e.msg, want_src, want);
	wbuf_release(&b);
}

/* The loaded image alone in an address space, at its image_begin (view released by the
 * caller with img_close). */
static int view_of(struct image *view, const struct art_image *img, struct err *e)
{
	img_init_empty(view, "synthetic image");
	return img_add_region_mem(view, img->h.image_begin, img->data, img->len, IMG_PROT_R, "image", e);
}

/* Loads, walks and names one synthetic image. */
static void check_image(const struct art_image_format *f, bool compressed)
{
	static struct synth s;
	struct art_image img;
	struct mirror_walk w;
	struct err e;
	size_t len = 0;
	uint8_t *file = syn_build(&s, f, compressed, &len);
	struct image view;
	struct mirror m = { &view, NULL, 8 };
	unsigned strings_5x = 0;

	if (!file)
		return;
	err_init(&e);
	T_CHECK(len < 65536, "family %s: synthetic image of %zu bytes", f->family, len);
	if (art_image_load(&img, file, len, &e)) {
		T_CHECK(0, "family %s%s: load: %s", f->family, compressed ? " lz4" : "", e.msg);
		free(file);
		return;
	}
	T_EQ_U(img.h.image_begin, SYN_BEGIN);
	T_EQ_U(img.h.image_roots, s.roots);
	T_EQ_U(img.h.compressed, compressed);
	T_EQ_U(img.h.oat_checksum, 0x12345678);
	T_CHECK(img.bitmap != NULL, "family %s: no bitmap", f->family);
	T_CHECK(!memcmp(img.data + f->header_size, s.img + f->header_size, img.len - f->header_size),
		"family %s: decoded image differs", f->family);
	m.l = s.lay;
	T_CHECK(view_of(&view, &img, &e) == 0, "family %s: view: %s", f->family, e.msg);
	T_CHECK(mirror_walk_image(&w, &m, &img, &e) == 0, "family %s%s: walk: %s", f->family,
		compressed ? " lz4" : "", e.msg);
	strings_5x = s.lay->string.value == ART_ABSENT ? 4 : 0;
	T_EQ_U(w.end, img.h.objects_end);
	T_EQ_U(w.objects, s.objects);
	T_EQ_U(w.count[MW_CLASS], s.classes);
	T_EQ_U(w.count[MW_STRING], 4);
	T_EQ_U(w.count[MW_DEX_CACHE], 1);
	T_EQ_U(w.count[MW_INSTANCE], 1);
	T_EQ_U(w.count[MW_OBJECT_ARRAY], 3);
	T_EQ_U(w.count[MW_PRIMITIVE_ARRAY], 2 + strings_5x);
	T_EQ_U(w.count[MW_UNRESOLVED], 0);
	T_EQ_U(w.outside, 0);
	T_EQ_U(w.jlc, s.jlc);
	T_CHECK(w.class_roots_loaded, "family %s: class roots", f->family);
	check_name(&m, &s, s.foo, MW_NAME_FIELD, "com.example.Foo");
	check_name(&m, &s, s.bar, MW_NAME_DEX, "com.example.Bar");
	check_name(&m, &s, s.achar, MW_NAME_ARRAY, "char[]");
	check_name(&m, &s, s.clong, MW_NAME_PRIMITIVE, "long");
	check_name(&m, &s, s.jlo, MW_NAME_NONE, "");
	{
		struct wbuf b;
		wbuf_init(&b);
		T_CHECK(mirror_string(&m, s.str_wide, 100, &b, &e) == 0 && b.len == 5 && !memcmp(b.data, "wide!", 5),
			"family %s: wide string", f->family);
		wbuf_release(&b);
	}
	mirror_walk_release(&w);
	img_close(&view);
	art_image_release(&img);
	free(file);
}

/* Expects load+walk of the mutated file to fail with a message naming an offset/address. */
static void expect_reject(const char *what, const uint8_t *file, size_t len, const struct art_layout *lay)
{
	struct art_image img;
	struct mirror_walk w;
	struct err e;
	int rc;

	err_init(&e);
	rc = art_image_load(&img, file, len, &e);
	if (rc == 0) {
		struct image view;
		struct mirror m = { &view, lay, 8 };
		rc = view_of(&view, &img, &e);
		if (rc == 0) {
			rc = mirror_walk_image(&w, &m, &img, &e);
			mirror_walk_release(&w);
		}
		img_close(&view);
		art_image_release(&img);
	}
	T_CHECK(rc < 0 && strstr(e.msg, "0x") != NULL, "%s: rc %d \"%s\"", what, rc, e.msg);
}

static void set32(uint8_t *p, uint32_t v) { put32(p, v); }

static void hostile(void)
{
	static struct synth s;
	const struct art_image_format *f = art_image_format_by_version(85);
	size_t len = 0;
	uint8_t *file = syn_build(&s, f, false, &len), *bad = malloc(len);
	uint32_t off;

	if (!file || !bad)
		return;
#define MUTATE(what, stmt)                               \
	do {                                             \
		memcpy(bad, file, len);                  \
		stmt;                                    \
		expect_reject(what, bad, len, s.lay);    \
	} while (0)
	MUTATE("flipped magic", bad[0] ^= 0x20);
	MUTATE("unknown version", memcpy(bad + 4, "999", 3));
	MUTATE("image_size 0", set32(bad + f->off.image_size, 0));
	MUTATE("image_size huge", set32(bad + f->off.image_size, 0xffffffffu));
	MUTATE("objects end + 1", set32(bad + f->off.sections + 4, s.pos + 1));
	MUTATE("objects end - 8", set32(bad + f->off.sections + 4, s.pos - 8));
	MUTATE("image_roots unaligned", set32(bad + f->off.image_roots, s.roots + 4));
	MUTATE("pointer size 5", set32(bad + f->off.pointer_size, 5));
	off = s.foo_obj - SYN_BEGIN;
	MUTATE("class pointer 0", set32(bad + off, 0));
	MUTATE("class pointer to a string", set32(bad + off, s.str_ascii));
	MUTATE("class pointer unaligned", set32(bad + off, s.foo + 4));
	MUTATE("string count huge", set32(bad + s.str_ascii - SYN_BEGIN + s.lay->string.count, 0xfffffff1u));
	MUTATE("class size small", set32(bad + s.foo - SYN_BEGIN + s.lay->klass.class_size, 8));
	MUTATE("object size 0", set32(bad + s.foo - SYN_BEGIN + s.lay->klass.object_size, 0));
	MUTATE("object size + 8", set32(bad + s.foo - SYN_BEGIN + s.lay->klass.object_size, 24));
	MUTATE("array length negative", set32(bad + s.class_roots - SYN_BEGIN + 8, 0x80000000u));
	MUTATE("array length + 2", set32(bad + s.class_roots - SYN_BEGIN + 8, 8));
	MUTATE("component primitive void", set32(bad + s.cint - SYN_BEGIN + s.lay->klass.primitive_type, 9));
	off = s.foo_obj - SYN_BEGIN; /* its live-bitmap bit: offset / 8 */
	MUTATE("bitmap bit cleared", bad[len - 4096 + off / 64] &= (uint8_t)~(1u << (off / 8 % 8)));
	MUTATE("bitmap bit added", bad[len - 4096 + (off + 8) / 64] |= (uint8_t)(1u << ((off + 8) / 8 % 8)));
	for (size_t cut = 0; cut < len; cut += len / 16 + 1) {
		char what[64];
		snprintf(what, sizeof(what), "truncated to %zu", cut);
		if (cut < s.pos) /* cuts inside the bitmap only lose the cross-check */
			expect_reject(what, file, cut, s.lay);
	}
	free(file);
	free(bad);
	/* compressed: damaged lz4 data, blocks that do not tile the image */
	file = syn_build(&s, f, true, &len);
	bad = malloc(len);
	if (!file || !bad)
		return;
	MUTATE("lz4 data damaged", memset(bad + f->header_size, 0xff, 16));
	MUTATE("block image offset", set32(bad + ld_u32le(file + f->off.blocks_offset) + 12, 8));
	MUTATE("block count huge", set32(bad + f->off.blocks_count, 0x10000000u));
	MUTATE("image_size beyond lz4 ratio", set32(bad + f->off.image_size, 0x7fffff00u));
	free(file);
	free(bad);
	f = art_image_format_by_version(56);
	file = syn_build(&s, f, true, &len);
	bad = malloc(len);
	if (!file || !bad)
		return;
	MUTATE("storage mode 7", set32(bad + f->off.storage_mode, 7));
	MUTATE("lz4 stream damaged", memset(bad + f->header_size + 4, 0xee, 24));
	MUTATE("data_size beyond the file", set32(bad + f->off.data_size, 0x00ffffffu));
	free(file);
	free(bad);
#undef MUTATE
}

static void rows(void)
{
	/* header sizes and offsets from runtime/image.h at each reference commit */
	static const struct { unsigned v, size, roots, sections; const char *fam; } want[] = {
		{ 9, 52, 48, ART_IMAGE_ABSENT, "5.0" }, { 12, 56, 48, ART_IMAGE_ABSENT, "5.1" },
		{ 17, 140, 40, 52, "6.0" }, { 29, 200, 56, 72, "7.0" }, { 30, 208, 56, 72, "7.1" },
		{ 43, 216, 56, 72, "8.0" }, { 46, 216, 56, 72, "8.1" }, { 56, 232, 56, 72, "9" },
		{ 74, 248, 56, 64, "10" }, { 85, 256, 64, 72, "11" }, { 86, 256, 64, 72, "11" },
		{ 99, 248, 64, 72, "12" }, { 106, 248, 64, 72, "13" }, { 108, 256, 64, 72, "14" },
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct art_image_format *f = art_image_format_by_version(want[i].v);
		T_CHECK(f != NULL, "no row for %03u", want[i].v);
		if (!f)
			continue;
		T_EQ_U(f->header_size, want[i].size);
		T_EQ_U(f->off.image_roots, want[i].roots);
		T_EQ_U(f->off.sections, want[i].sections);
		T_EQ_S(f->family, want[i].fam);
		/* the section table and image methods end where the next field starts */
		if (f->off.sections != ART_IMAGE_ABSENT)
			T_EQ_U(f->off.sections + 8 * f->section_count, f->off.image_methods);
		if (f->off.data_size != ART_IMAGE_ABSENT)
			T_CHECK(f->off.image_methods + 8 * f->image_method_count <= f->off.data_size - (f->off.storage_mode != ART_IMAGE_ABSENT ? 4 : 0),
				"%03u: image methods overlap the storage fields", want[i].v);
	}
	/* Class status ranges of the 5.0-9 layout rows (enum Status in runtime/mirror/class.h
	 * @R50..R81, ClassStatus << 28 @R9) */
	static const struct { const char *fam; int min, max, retired; unsigned shift; } st[] = {
		{ "5.0", -2, 10, -2, 0 }, { "5.1", -2, 10, -2, 0 }, { "6.0", -2, 10, -2, 0 },
		{ "7.0", -2, 10, -2, 0 }, { "7.1", -2, 10, -2, 0 }, { "8.0", -3, 10, -3, 0 },
		{ "8.1", -3, 11, -3, 0 }, { "9", 0, 15, 1, 28 },
	};
	for (size_t i = 0; i < sizeof(st) / sizeof(st[0]); i++) {
		const struct art_layout *l = art_layout_by_family(st[i].fam);
		T_CHECK(l && l->klass.status_min == st[i].min && l->klass.status_max == st[i].max &&
				l->klass.status_retired == st[i].retired && l->klass.status_shift == st[i].shift,
			"family %s: class status row", st[i].fam);
	}
	T_CHECK(art_image_format_by_version(1) == NULL, "version 001 has no row");
	T_CHECK(art_image_probe((const uint8_t *)"art\n085", 8), "probe");
	T_CHECK(!art_image_probe((const uint8_t *)"art\n08x", 8), "probe digits");
	T_CHECK(!art_image_probe((const uint8_t *)"art\n085", 7), "probe length");
}

/* The one header parser over every row: the file and the same bytes mapped at image_begin
 * of a struct image give the same header; a mapped header needs only its own bytes; every
 * cut inside a header and inside its version string is an error. */
static void header_parser(void)
{
	static struct synth s;

	for (size_t i = 0; i < art_image_format_count; i++) {
		const struct art_image_format *f = &art_image_formats[i];
		struct art_image_header hf, hm;
		struct image img;
		struct cursor c;
		struct err e;
		size_t len = 0, bad_cuts = 0;
		uint8_t *file = syn_build(&s, f, false, &len);

		if (!file)
			continue;
		err_init(&e);
		printf("   %s (%s): header %u bytes\n", f->versions, f->family, f->header_size);
		T_CHECK(f->header_size <= ART_IMAGE_MAX_HEADER, "row %s: %u-byte header", f->versions, f->header_size);
		cur_init(&c, file, len, 0);
		T_CHECK(art_image_header_parse(&hf, &c, ART_IMAGE_IN_FILE, &e) == 0, "row %s file: %s", f->versions, e.msg);
		T_CHECK(hf.fmt == f, "row %s: parsed with row %s", f->versions, hf.fmt ? hf.fmt->versions : "(none)");
		T_EQ_U(hf.version, syn_version(f));
		T_EQ_U(hf.image_begin, SYN_BEGIN);
		T_EQ_U(hf.image_roots, s.roots);
		T_EQ_U(hf.objects_end, s.pos);

		img_init_empty(&img, "mapped");
		T_EQ_I(img_add_region_mem(&img, SYN_BEGIN, file, len, IMG_PROT_R, "boot.art", &e), 0);
		T_CHECK(art_image_header_at(&hm, &img, SYN_BEGIN, &e) == 0, "row %s mapped: %s", f->versions, e.msg);
		T_CHECK(hm.fmt == f && hm.version == hf.version && hm.image_begin == hf.image_begin &&
				hm.image_size == hf.image_size && hm.image_roots == hf.image_roots &&
				hm.pointer_size == hf.pointer_size && hm.objects_end == hf.objects_end &&
				!memcmp(hm.sections, hf.sections, sizeof(hm.sections)),
			"row %s: mapped header differs from the file's", f->versions);
		T_EQ_I(art_image_header_at(&hm, &img, SYN_BEGIN + 8, &e), -ERR_CORRUPT);
		T_EQ_I(art_image_header_at(&hm, &img, SYN_BEGIN - 8, &e), -ERR_UNMAPPED);
		img_close(&img);

		/* mapped, only the header is needed; a file must also hold the data it stores */
		img_init_empty(&img, "head");
		T_EQ_I(img_add_region_mem(&img, SYN_BEGIN, file, f->header_size, IMG_PROT_R, "head", &e), 0);
		T_CHECK(art_image_header_at(&hm, &img, SYN_BEGIN, &e) == 0, "row %s header only: %s", f->versions, e.msg);
		img_close(&img);
		cur_init(&c, file, f->header_size, 0);
		T_EQ_I(art_image_header_parse(&hf, &c, ART_IMAGE_IN_FILE, &e), -ERR_TRUNC);

		for (size_t cut = 0; cut < f->header_size; cut++) {
			cur_init(&c, file, cut, 0);
			bad_cuts += art_image_header_parse(&hm, &c, ART_IMAGE_MAPPED, &e) != -ERR_TRUNC;
		}
		T_CHECK(bad_cuts == 0, "row %s: %zu cuts inside the header not reported as truncated", f->versions, bad_cuts);
		free(file);
	}

	T_SECTION("image version strings");
	{
		static const struct { const char *bytes; size_t n; int rc; const char *says; } v[] = {
			{ "art\n085", 8, 0, NULL },
			{ "art\n086", 8, 0, NULL },
			{ "art\n999", 8, -ERR_UNSUP, "unsupported version 999" },
			{ "art\n08x", 8, -ERR_CORRUPT, "not three digits" },
			{ "art\n0850", 8, -ERR_CORRUPT, "not three digits" },
			{ "art\n04", 6, -ERR_TRUNC, "fits 2 rows: ambiguous" },   /* 043/044 (8.0), 046 (8.1) */
			{ "art\n07", 6, -ERR_TRUNC, "fits 10 only; not guessed" },
			{ "art\n", 4, -ERR_TRUNC, "fits 15 rows: ambiguous" },   /* every image row, 5.0-16 */
			{ "art", 3, -ERR_TRUNC, "magic" },
			{ "ART\n085", 8, -ERR_CORRUPT, "magic" },
		};
		for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
			struct art_image_header h;
			struct cursor c;
			struct err e;
			int rc;
			err_init(&e);
			cur_init(&c, (const uint8_t *)v[i].bytes, v[i].n, 0);
			rc = art_image_header_parse(&h, &c, ART_IMAGE_MAPPED, &e);
			if (v[i].rc == 0) {   /* the version matched; only the header is short */
				T_CHECK(rc == -ERR_TRUNC && h.fmt && !strcmp(h.fmt->family, "11"), "%.8s: rc %d %s",
					v[i].bytes, rc, e.msg);
				continue;
			}
			T_CHECK(rc == v[i].rc && strstr(e.msg, v[i].says), "%zu: rc %d, want %d \"%s\": %s", i, rc,
				v[i].rc, v[i].says, e.msg);
		}
	}
}

static int write_seeds(const char *dir)
{
	static struct synth s;
	unsigned n = 0;

	mkdir(dir, 0777);
	for (size_t i = 0; i < art_image_format_count; i++) {
		for (int z = 0; z < 2; z++) {
			const struct art_image_format *f = &art_image_formats[i];
			size_t len = 0;
			uint8_t *file;
			char path[512];
			FILE *fp;
			if (z && f->off.storage_mode == ART_IMAGE_ABSENT && f->off.blocks_count == ART_IMAGE_ABSENT)
				continue;
			if (!(file = syn_build(&s, f, z, &len)))
				continue;
			snprintf(path, sizeof(path), "%s/synth-%.3s%s.art", dir, f->versions, z ? "-lz4" : "");
			fp = fopen(path, "wb");
			if (!fp || fwrite(file, 1, len, fp) != len) {
				fprintf(stderr, "%s: %s\n", path, strerror(errno));
				free(file);
				return 1;
			}
			fclose(fp);
			free(file);
			n++;
		}
	}
	printf("wrote %u seeds to %s\n", n, dir);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--write-seeds"))
		return write_seeds(argv[2]);
	T_SECTION("format rows");
	rows();
	build_dex();
	T_SECTION("synthetic images, every family");
	for (size_t i = 0; i < art_image_format_count; i++) {
		check_image(&art_image_formats[i], false);
		if (art_image_formats[i].off.storage_mode != ART_IMAGE_ABSENT ||
		    art_image_formats[i].off.blocks_count != ART_IMAGE_ABSENT)
			check_image(&art_image_formats[i], true);
	}
	T_SECTION("one header parser, every row, file and mapped");
	header_parser();
	T_SECTION("hostile variants");
	hostile();
	T_DONE();
}
