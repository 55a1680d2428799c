/* test_mirror.c - the mirror decoder (art/mirror/mirror.c) on objects written here, for
 * every layout family of art_layouts[]: Object, Class, Array, String (5.x char[] with
 * offset_, inline UTF-16, compressed), DexCache (managed arrays and native arrays),
 * ClassLoader; reads across abutting regions and gaps; hostile values (lengths past the
 * region, negative and overflowing counts, null, misaligned and unmapped references, an
 * index past the end, malformed array names).  Offsets come from the layout rows, values
 * are distinct per field so a field read at the wrong offset shows. */
#include <stdlib.h>

#include "art/mirror/mirror.h"
#include "carver/image/image.h"
#include "tests/unit/t.h"

/* two abutting captured regions, then a gap, then one more region */
#define M_BASE 0x12c00000u
enum { M_SIZE = 0x4000, M_GAP = 0x1000 };
#define M_SECOND (M_BASE + M_SIZE)
#define M_THIRD (M_SECOND + M_SIZE + M_GAP)

struct mem {
	uint8_t a[M_SIZE], b[M_SIZE], c[M_SIZE];
	struct image img;
	struct mirror m;
};

static uint8_t *at(struct mem *x, uint64_t va)
{
	if (va >= M_BASE && va < M_SECOND)
		return x->a + (va - M_BASE);
	if (va >= M_SECOND && va < M_SECOND + M_SIZE)
		return x->b + (va - M_SECOND);
	if (va >= M_THIRD && va < M_THIRD + M_SIZE)
		return x->c + (va - M_THIRD);
	return NULL;
}

static void put8(struct mem *x, uint64_t va, uint8_t v)
{
	uint8_t *p = at(x, va);
	if (p)
		*p = v;
}

static void put16(struct mem *x, uint64_t va, uint16_t v)
{
	put8(x, va, (uint8_t)v);
	put8(x, va + 1, (uint8_t)(v >> 8));
}

static void put32(struct mem *x, uint64_t va, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		put8(x, va + (uint64_t)i, (uint8_t)(v >> (8 * i)));
}

static void put64(struct mem *x, uint64_t va, uint64_t v)
{
	put32(x, va, (uint32_t)v);
	put32(x, va + 4, (uint32_t)(v >> 32));
}

static void put32_opt(struct mem *x, uint64_t base, unsigned off, uint32_t v)
{
	if (off != ART_ABSENT)
		put32(x, base + off, v);
}

static struct mem *mem_new(const struct art_layout *l, unsigned pointer_size)
{
	struct mem *x = calloc(1, sizeof(*x));
	struct err e;

	if (!x)
		return NULL;
	err_init(&e);
	img_init_empty(&x->img, "test_mirror");
	T_CHECK(img_add_region_mem(&x->img, M_BASE, x->a, M_SIZE, IMG_PROT_R, "a", &e) == 0 &&
			img_add_region_mem(&x->img, M_SECOND, x->b, M_SIZE, IMG_PROT_R, "b", &e) == 0 &&
			img_add_region_mem(&x->img, M_THIRD, x->c, M_SIZE, IMG_PROT_R, "c", &e) == 0,
		"regions: %s", e.msg);
	x->m = (struct mirror){ &x->img, l, pointer_size };
	return x;
}

static void mem_free(struct mem *x)
{
	if (x) {
		img_close(&x->img);
		free(x);
	}
}

/* ---- reads, regions, gaps ---- */

static void test_reads(void)
{
	const struct art_layout *l = art_layout_by_family("11");
	struct mem *x = mem_new(l, 8);
	struct err e;
	uint32_t v32 = 0;
	uint64_t v64 = 0;

	T_SECTION("reads across regions and gaps");
	if (!x)
		return;
	err_init(&e);
	put64(x, M_SECOND - 4, 0x1122334455667788ull); /* straddles the two abutting regions */
	T_EQ_I(mirror_u64(&x->m, M_SECOND - 4, &v64, &e), 0);
	T_EQ_U(v64, 0x1122334455667788ull);
	T_CHECK(mirror_readable(&x->m, M_BASE, 2 * M_SIZE), "both abutting regions readable as one range");
	T_CHECK(!mirror_readable(&x->m, M_SECOND + M_SIZE - 4, 8), "a range into the gap is not readable");
	T_CHECK(!mirror_readable(&x->m, UINT64_MAX - 2, 8), "a range that wraps is not readable");
	T_CHECK(mirror_readable(&x->m, M_THIRD, 0), "an empty range inside a region");
	T_CHECK(!mirror_peek_u32(&x->m, M_SECOND + M_SIZE, &v32), "peek in the gap");
	T_CHECK(!mirror_peek_u32(&x->m, 0, &v32), "peek at null");
	T_EQ_I(mirror_u32(&x->m, M_SECOND + M_SIZE - 2, &v32, &e), -ERR_UNMAPPED);
	T_CHECK(strstr(e.msg, "0x") != NULL, "unmapped read names the address: %s", e.msg);
	T_EQ_I(mirror_u32(&x->m, 0, &v32, &e), -ERR_UNMAPPED);
	/* native pointers by the process width */
	put64(x, M_THIRD, 0xaabbccdd11223344ull);
	T_EQ_I(mirror_ptr(&x->m, M_THIRD, &v64, &e), 0);
	T_EQ_U(v64, 0xaabbccdd11223344ull);
	x->m.pointer_size = 4;
	T_EQ_I(mirror_ptr(&x->m, M_THIRD, &v64, &e), 0);
	T_EQ_U(v64, 0x11223344u);
	mem_free(x);
}

/* ---- Object and Class ---- */

static void test_class(const struct art_layout *l)
{
	struct mem *x = mem_new(l, 8);
	const uint64_t k = M_BASE + 0x100, jlc = M_BASE + 0x40;
	struct mirror_class c;
	struct mirror_object o;
	struct err e;
	uint32_t v = 0;

	if (!x)
		return;
	err_init(&e);
	put32(x, jlc + l->object.klass, (uint32_t)jlc); /* java.lang.Class is its own class */
	put32(x, k + l->object.klass, (uint32_t)jlc);
	put32(x, k + l->object.monitor, 0x40000001u);
	put32_opt(x, k, l->klass.class_loader, 0x12c01008u);
	put32_opt(x, k, l->klass.component_type, 0);
	put32_opt(x, k, l->klass.dex_cache, 0x12c01010u);
	put32_opt(x, k, l->klass.name, 0x12c01018u);
	put32_opt(x, k, l->klass.super_class, (uint32_t)jlc);
	put32_opt(x, k, l->klass.access_flags, 0x80001u);
	put32_opt(x, k, l->klass.class_flags, 0x4u);
	put32_opt(x, k, l->klass.class_size, l->klass.size + 40);
	put32_opt(x, k, l->klass.object_size, 44);
	put32_opt(x, k, l->klass.primitive_type, 5u | 2u << 16);
	put32_opt(x, k, l->klass.reference_instance_offsets, 0x30003u);
	put32_opt(x, k, l->klass.num_reference_instance_fields, 3);
	put32_opt(x, k, l->klass.dex_class_def_idx, 17);
	put32_opt(x, k, l->klass.dex_type_idx, 23);
	put32_opt(x, k, l->klass.status, l->klass.status_shift ? 14u << l->klass.status_shift : 10u);
	if (l->field_storage == ART_FIELDS_OBJECT_ARRAY)
		put32(x, k + l->klass.ifields, 0x12c01020u);
	else
		put64(x, k + l->klass.ifields, 0x7f0000001000ull);
	if (l->klass.methods != ART_ABSENT)
		put64(x, k + l->klass.methods, 0x7f0000002000ull);
	if (l->klass.sfields != ART_ABSENT && l->field_storage != ART_FIELDS_OBJECT_ARRAY)
		put64(x, k + l->klass.sfields, 0x7f0000003000ull);

	T_EQ_I(mirror_object_read(&x->m, k, &o, &e), 0);
	T_EQ_U(o.klass, jlc);
	T_EQ_U(o.monitor, 0x40000001u);
	T_EQ_I(mirror_klass(&x->m, k, &v, &e), 0);
	T_EQ_U(v, jlc);
	T_EQ_I(mirror_class_read(&x->m, k, &c, &e), 0);
	T_EQ_U(c.addr, k);
	T_EQ_U(c.klass, jlc);
	T_EQ_U(c.class_loader, 0x12c01008u);
	T_EQ_U(c.dex_cache, 0x12c01010u);
	T_EQ_U(c.name, 0x12c01018u);
	T_EQ_U(c.super_class, jlc);
	T_EQ_U(c.access_flags, 0x80001u);
	T_EQ_U(c.class_flags, l->klass.class_flags == ART_ABSENT ? 0 : 0x4u);
	T_EQ_U(c.class_size, l->klass.size + 40);
	T_EQ_U(c.object_size, 44);
	T_EQ_U(c.primitive_type & l->klass.primitive_mask, 5);
	T_EQ_U(c.num_reference_instance_fields, 3);
	T_EQ_U(c.dex_class_def_idx, 17);
	T_EQ_U(c.dex_type_idx, 23);
	T_EQ_U(c.status, l->klass.status_shift ? 14 : 10);
	T_EQ_U(c.ifields, l->field_storage == ART_FIELDS_OBJECT_ARRAY ? 0x12c01020u : 0x7f0000001000ull);
	T_EQ_U(c.methods, l->klass.methods == ART_ABSENT ? 0 : 0x7f0000002000ull);
	T_CHECK(!mirror_class_retired(&x->m, &c), "family %s: an initialized class is not retired", l->family);
	/* plausibility: the super class (here java.lang.Class itself) is a Class */
	T_CHECK(mirror_class_plausible(&x->m, &c, jlc), "family %s: class plausible", l->family);
	c.super_class = (uint32_t)jlc + 4;
	T_CHECK(!mirror_class_plausible(&x->m, &c, jlc), "family %s: misaligned super accepted", l->family);
	c.super_class = (uint32_t)jlc;
	c.status = (uint32_t)(l->klass.status_max + 1);
	T_CHECK(!mirror_class_plausible(&x->m, &c, jlc), "family %s: status out of range accepted", l->family);
	c.status = 10;
	c.class_size = l->klass.size - 1;
	T_CHECK(!mirror_class_plausible(&x->m, &c, jlc), "family %s: class_size below the fixed part", l->family);
	c.class_size = l->klass.size;
	/* a super class whose class word is readable and is not jlc refutes the class */
	put32(x, jlc + l->object.klass, (uint32_t)k);
	T_CHECK(!mirror_class_plausible(&x->m, &c, jlc), "family %s: super is no Class", l->family);
	c.status = (uint32_t)l->klass.status_retired;
	T_CHECK(mirror_class_retired(&x->m, &c), "family %s: retired", l->family);
	/* a Class cut by the gap: the read fails, naming the address */
	T_EQ_I(mirror_class_read(&x->m, M_SECOND + M_SIZE - 16, &c, &e), -ERR_UNMAPPED);
	T_EQ_I(mirror_object_read(&x->m, 4, &o, &e), -ERR_UNMAPPED);
	mem_free(x);
}

/* ---- arrays ---- */

static void test_array(const struct art_layout *l)
{
	struct mem *x = mem_new(l, 4);
	const uint64_t a = M_BASE + 0x200;
	struct err e;
	uint32_t n = 0, ref = 0;

	if (!x)
		return;
	err_init(&e);
	T_EQ_U(mirror_component_size(0), 4);
	T_EQ_U(mirror_component_size(1), 1);
	T_EQ_U(mirror_component_size(3), 2);
	T_EQ_U(mirror_component_size(6), 8);
	T_EQ_U(mirror_component_size(8), 8);
	T_EQ_U(mirror_component_size(9), 0);
	T_EQ_U(mirror_component_size(0xffffffffu), 0);
	T_EQ_U(mirror_array_data_offset(l, 1), 12);
	T_EQ_U(mirror_array_data_offset(l, 2), 12);
	T_EQ_U(mirror_array_data_offset(l, 4), l->array.data);
	T_EQ_U(mirror_array_data_offset(l, 8), 16);
	T_EQ_U(mirror_array_size(l, 8, 3), 40);
	T_EQ_U(mirror_array_size(l, 1, 0), 12);
	T_EQ_U(mirror_array_size(l, 4, 0x7fffffffu), 12 + 4ull * 0x7fffffffu); /* no 32-bit wrap */
	put32(x, a + l->array.length, 3);
	put32(x, a + l->array.data, 0x12c00400u);
	put32(x, a + l->array.data + 8, 0x12c00408u);
	T_EQ_I(mirror_array_length(&x->m, a, &n, &e), 0);
	T_EQ_U(n, 3);
	T_EQ_I(mirror_array_ref(&x->m, a, 2, &ref, &e), 0);
	T_EQ_U(ref, 0x12c00408u);
	T_EQ_I(mirror_array_ref(&x->m, a, 3, &ref, &e), -ERR_CORRUPT);
	T_CHECK(strstr(e.msg, "index 3") != NULL, "message: %s", e.msg);
	T_EQ_I(mirror_array_ref(&x->m, a, UINT32_MAX, &ref, &e), -ERR_CORRUPT);
	put32(x, a + l->array.length, 0x80000000u);
	T_EQ_I(mirror_array_length(&x->m, a, &n, &e), -ERR_CORRUPT);
	T_CHECK(strstr(e.msg, "negative length") != NULL, "message: %s", e.msg);
	T_EQ_I(mirror_array_ref(&x->m, a, 0, &ref, &e), -ERR_CORRUPT);
	/* an array whose length claims more than the region: an element in the gap is unmapped */
	const uint64_t b = M_SECOND + M_SIZE - 16;
	put32(x, b + l->array.length, 0x1000);
	T_EQ_I(mirror_array_ref(&x->m, b, 100, &ref, &e), -ERR_UNMAPPED);
	mem_free(x);
}

/* ---- strings ---- */

/* Writes a String holding text (UTF-16 units) at va in the family's layout; 5.x puts the
 * chars into a char[] at arr starting at element off; compressible families store 8-bit
 * chars when compressed.  Returns nothing: the test reads it back. */
static void put_string(struct mem *x, const struct art_layout *l, uint64_t va, const uint16_t *u, uint32_t n,
		       bool compressed, uint64_t arr, uint32_t off)
{
	put32(x, va + l->object.klass, M_BASE + 0x48);
	put32(x, va + l->string.hash, 0x5a5a5a5au);
	if (l->string.value == ART_ABSENT) {
		put32(x, va + l->string.array, (uint32_t)arr);
		put32(x, va + l->string.offset, off);
		put32(x, va + l->string.count, n);
		put32(x, arr + l->array.length, off + n + 2);
		for (uint32_t i = 0; i < n; i++)
			put16(x, arr + mirror_array_data_offset(l, 2) + 2 * (uint64_t)(off + i), u[i]);
		return;
	}
	put32(x, va + l->string.count, l->string.compressible ? n << 1 | (compressed ? 0u : 1u) : n);
	for (uint32_t i = 0; i < n; i++) {
		if (compressed)
			put8(x, va + l->string.value + i, (uint8_t)u[i]);
		else
			put16(x, va + l->string.value + 2 * (uint64_t)i, u[i]);
	}
}

static void expect_text(struct mem *x, uint64_t va, size_t max, const char *want, const char *what)
{
	struct wbuf b;
	struct err e;
	int rc;

	err_init(&e);
	wbuf_init(&b);
	rc = mirror_string(&x->m, va, max, &b, &e);
	wbuf_u8(&b, 0);
	T_CHECK(rc == 0 && !strcmp((const char *)b.data, want), "family %s %s: rc %d \"%s\" (%s), want \"%s\"",
		x->m.l->family, what, rc, (const char *)b.data, e.msg, want);
	wbuf_release(&b);
}

static int string_rc(struct mem *x, uint64_t va, size_t max, struct err *e)
{
	struct wbuf b;
	int rc;

	wbuf_init(&b);
	rc = mirror_string(&x->m, va, max, &b, e);
	wbuf_release(&b);
	return rc;
}

static void test_string(const struct art_layout *l)
{
	static const uint16_t hello[] = { 'h', 'e', 'l', 'l', 'o' };
	static const uint16_t wide[] = { 0xe9, 0x20ac, 0xd83d, 0xde00, 'x' };   /* é € U+1F600 x */
	static const uint16_t lone[] = { 'a', 0xd800, 'b', 0xdc00 };            /* unpaired */
	const bool v5 = l->string.value == ART_ABSENT;
	struct mem *x = mem_new(l, 4);
	struct mirror_string s;
	struct err e;
	uint64_t size = 0;

	if (!x)
		return;
	err_init(&e);
	const uint64_t s1 = M_BASE + 0x400, s2 = M_BASE + 0x500, s3 = M_BASE + 0x600, s4 = M_BASE + 0x700;
	const uint64_t a1 = M_BASE + 0x800, a2 = M_BASE + 0x900, a3 = M_BASE + 0xa00;
	put_string(x, l, s1, hello, 5, l->string.compressible, a1, v5 ? 3 : 0);
	put_string(x, l, s2, wide, 5, false, a2, 0);
	put_string(x, l, s3, lone, 4, false, a3, 1);
	expect_text(x, s1, 100, "hello", "ascii");
	expect_text(x, s2, 100, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80x", "utf-16 with a surrogate pair");
	expect_text(x, s3, 100, "a\xef\xbf\xbd" "b\xef\xbf\xbd", "unpaired surrogates");
	T_EQ_I(mirror_string_read(&x->m, s1, 100, &s, &e), 0);
	T_EQ_U(s.length, 5);
	T_EQ_U(s.hash, 0x5a5a5a5au);
	T_EQ_U(s.compressed, l->string.compressible);
	T_EQ_U(s.array, v5 ? a1 : 0);
	T_EQ_U(s.offset, v5 ? 3 : 0);
	T_EQ_U(s.chars, v5 ? a1 + 12 + 2 * 3 : s1 + l->string.value);
	T_CHECK(mirror_string_loaded(&x->m, s1), "family %s: string loaded", l->family);
	/* SizeOf: 5.x the fixed 24 bytes, else the header plus inline chars */
	T_EQ_I(mirror_string_size(l, s1, l->string.compressible ? 5u << 1 : 5u, &size, &e), 0);
	T_EQ_U(size, v5 ? 24 : l->string.value + (l->string.compressible ? 5 : 10));
	T_EQ_I(mirror_string_size(l, s1, l->string.compressible ? 5u << 1 | 1 : 5u, &size, &e), 0);
	T_EQ_U(size, v5 ? 24 : l->string.value + 10);
	T_EQ_I(mirror_string_size(l, s1, 0x80000000u, &size, &e), -ERR_CORRUPT);
	/* an empty string (5.x: no char[] needed) */
	put_string(x, l, s4, hello, 0, false, 0, 0);
	expect_text(x, s4, 0, "", "empty");

	/* hostile: length above the bound, negative count */
	T_EQ_I(string_rc(x, s1, 4, &e), -ERR_CORRUPT);
	T_CHECK(strstr(e.msg, "exceeds") != NULL, "message: %s", e.msg);
	put32(x, s4 + l->string.count, 0xfffffff1u);
	T_EQ_I(string_rc(x, s4, 1u << 30, &e), -ERR_CORRUPT);
	T_CHECK(strstr(e.msg, "negative count") != NULL, "message: %s", e.msg);
	T_CHECK(mirror_string_loaded(&x->m, s4), "family %s: a corrupt string counts as loaded", l->family);
	/* a count whose chars run past the region into the gap (inline) or past the char[] (5.x) */
	const uint64_t s5 = M_SECOND + M_SIZE - 64;
	put_string(x, l, s5, hello, 5, false, a3 + 0x80, 0);
	put32(x, s5 + l->string.count, l->string.compressible ? 1000u << 1 | 1 : 1000u);
	T_EQ_I(string_rc(x, s5, 1u << 30, &e), v5 ? -ERR_CORRUPT : -ERR_UNMAPPED);
	T_CHECK(!mirror_string_loaded(&x->m, s5) || v5, "family %s: chars in the gap count as loaded", l->family);
	/* a count near INT32_MAX: no overflow, the read fails */
	put32(x, s5 + l->string.count, 0x7fffffffu);
	T_CHECK(string_rc(x, s5, SIZE_MAX, &e) < 0, "family %s: huge count accepted", l->family);
	/* a String header cut by the gap */
	T_EQ_I(string_rc(x, M_SECOND + M_SIZE - 4, 100, &e), -ERR_UNMAPPED);
	T_CHECK(!mirror_string_loaded(&x->m, M_SECOND + M_SIZE - 4), "family %s: cut header loaded", l->family);
	T_EQ_I(string_rc(x, 0, 100, &e), -ERR_UNMAPPED); /* null */
	if (v5) {
		/* 5.x: array_ null / misaligned / unmapped, offset_ past the char[], offset_ + count_
		 * overflowing, a char[] with a negative length */
		put32(x, s1 + l->string.array, 0);
		T_EQ_I(string_rc(x, s1, 100, &e), -ERR_CORRUPT);
		put32(x, s1 + l->string.array, (uint32_t)a1 + 2);
		T_EQ_I(string_rc(x, s1, 100, &e), -ERR_CORRUPT);
		T_CHECK(strstr(e.msg, "array_") != NULL, "message: %s", e.msg);
		put32(x, s1 + l->string.array, M_SECOND + M_SIZE + 8);
		T_EQ_I(string_rc(x, s1, 100, &e), -ERR_UNMAPPED);
		T_CHECK(!mirror_string_loaded(&x->m, s1), "5.x: char[] in the gap counts as loaded");
		put32(x, s1 + l->string.array, (uint32_t)a1);
		put32(x, s1 + l->string.offset, 9);
		T_EQ_I(string_rc(x, s1, 100, &e), -ERR_CORRUPT);
		T_CHECK(strstr(e.msg, "outside its char[") != NULL, "message: %s", e.msg);
		put32(x, s1 + l->string.offset, 0xfffffffeu);
		T_EQ_I(string_rc(x, s1, 100, &e), -ERR_CORRUPT);
		put32(x, s1 + l->string.offset, 3);
		put32(x, a1 + l->array.length, 0x80000000u);
		T_EQ_I(string_rc(x, s1, 100, &e), -ERR_CORRUPT);
		T_CHECK(strstr(e.msg, "negative length") != NULL, "message: %s", e.msg);
	} else if (l->string.compressible) {
		/* 8.0+: the flag bit selects the width: the same bytes read as UTF-16 */
		put32(x, s1 + l->string.count, 2u << 1 | 1);
		expect_text(x, s1, 100, "\xe6\x95\xa8\xe6\xb1\xac", "compressed bytes read as UTF-16"); /* U+6568 U+6C6C */
	}
	mem_free(x);
}

/* ---- Class.name_ ---- */

static void test_class_name(const struct art_layout *l)
{
	static const char *const names[][2] = {
		{ "java.lang.String", "java.lang.String" }, { "int", "int" },
		{ "[Ljava.lang.String;", "java.lang.String[]" }, { "[[I", "int[][]" },
	};
	struct mem *x = mem_new(l, 4);
	struct wbuf b;
	struct err e;

	if (!x)
		return;
	err_init(&e);
	wbuf_init(&b);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		uint16_t u[64];
		uint32_t n = (uint32_t)strlen(names[i][0]);
		for (uint32_t j = 0; j < n; j++)
			u[j] = (uint8_t)names[i][0][j];
		put_string(x, l, M_BASE + 0x100 * (i + 1), u, n, false, M_BASE + 0x1000 + 0x100 * i, 0);
		wbuf_reset(&b);
		wbuf_put(&b, "<", 1);
		T_EQ_I(mirror_class_name_string(&x->m, M_BASE + 0x100 * (i + 1), 100, &b, &e), 0);
		wbuf_u8(&b, 0);
		T_CHECK(!strcmp((const char *)b.data + 1, names[i][1]) && b.data[0] == '<',
			"family %s: name_ \"%s\" -> \"%s\"", l->family, names[i][0], (const char *)b.data);
	}
	/* a malformed array name is corrupt */
	const uint16_t bad[] = { '[', 'Q' };
	put_string(x, l, M_BASE + 0x600, bad, 2, false, M_BASE + 0x1800, 0);
	wbuf_reset(&b);
	T_EQ_I(mirror_class_name_string(&x->m, M_BASE + 0x600, 100, &b, &e), -ERR_CORRUPT);
	wbuf_release(&b);
	mem_free(x);
}

/* ---- DexCache, ClassLoader ---- */

static void test_dex_cache(const struct art_layout *l)
{
	struct mem *x = mem_new(l, 8);
	const uint64_t dc = M_BASE + 0x300, strs = M_BASE + 0x800, types = M_BASE + 0x900;
	struct mirror_dex_cache d;
	struct err e;

	if (!x)
		return;
	err_init(&e);
	put32(x, dc + l->dex_cache.location, 0x12c00a00u);
	put64(x, dc + l->dex_cache.dex_file, 0x7f00c0ffee00ull);
	if (l->dex_cache.native_arrays) {
		put64(x, dc + l->dex_cache.strings, 0x7f0000010000ull);
		put64(x, dc + l->dex_cache.resolved_types, 0x7f0000020000ull);
		if (l->dex_cache.num_strings != ART_ABSENT) {
			put32(x, dc + l->dex_cache.num_strings, 1234);
			put32(x, dc + l->dex_cache.num_resolved_types, 567);
		}
	} else {
		put32(x, dc + l->dex_cache.strings, (uint32_t)strs);
		put32(x, dc + l->dex_cache.resolved_types, (uint32_t)types);
		put32(x, strs + l->array.length, 1234);
		put32(x, types + l->array.length, 567);
	}
	T_EQ_I(mirror_dex_cache_read(&x->m, dc, &d, &e), 0);
	T_EQ_U(d.addr, dc);
	T_EQ_U(d.location, 0x12c00a00u);
	T_EQ_U(d.dex_file, 0x7f00c0ffee00ull);
	T_EQ_U(d.strings, l->dex_cache.native_arrays ? 0x7f0000010000ull : strs);
	T_EQ_U(d.resolved_types, l->dex_cache.native_arrays ? 0x7f0000020000ull : types);
	if (l->dex_cache.native_arrays) {
		/* 14+: no counts in the DexCache, the decoder reports 0 */
		const bool counts = l->dex_cache.num_strings != ART_ABSENT;
		T_EQ_U(d.num_strings, counts ? 1234u : 0u);
		T_EQ_U(d.num_resolved_types, counts ? 567u : 0u);
	} else {
		/* managed arrays: the decoder follows no reference; the count is the array's length */
		uint32_t n = 0;
		T_EQ_U(d.num_strings, 0);
		T_EQ_I(mirror_array_length(&x->m, d.strings, &n, &e), 0);
		T_EQ_U(n, 1234);
		put32(x, strs + l->array.length, 0x80000000u); /* a damaged array leaves the DexCache readable */
		T_EQ_I(mirror_dex_cache_read(&x->m, dc, &d, &e), 0);
		T_EQ_I(mirror_array_length(&x->m, d.strings, &n, &e), -ERR_CORRUPT);
	}
	T_EQ_I(mirror_dex_cache_read(&x->m, M_SECOND + M_SIZE - 8, &d, &e), -ERR_UNMAPPED);
	mem_free(x);
}

static void test_class_loader(const struct art_layout *l)
{
	struct mem *x = mem_new(l, 8);
	const uint64_t cl = M_BASE + 0x300;
	struct mirror_class_loader c;
	struct err e;
	const bool native = l->class_loader.class_table != ART_ABSENT;

	if (!x)
		return;
	err_init(&e);
	put32(x, cl + l->class_loader.packages, 0x12c00b00u);
	put32(x, cl + l->class_loader.parent, 0x12c00b08u);
	put32(x, cl + l->class_loader.proxy_cache, 0x12c00b10u);
	if (native) {
		put64(x, cl + l->class_loader.allocator, 0x7f0000030000ull);
		put64(x, cl + l->class_loader.class_table, 0x7f0000040000ull);
	}
	T_EQ_I(mirror_class_loader_read(&x->m, cl, &c, &e), 0);
	T_EQ_U(c.packages, 0x12c00b00u);
	T_EQ_U(c.parent, 0x12c00b08u);
	T_EQ_U(c.proxy_cache, 0x12c00b10u);
	T_EQ_U(c.allocator, native ? 0x7f0000030000ull : 0);
	T_EQ_U(c.class_table, native ? 0x7f0000040000ull : 0);
	T_EQ_I(mirror_class_loader_read(&x->m, M_SECOND + M_SIZE - 8, &c, &e), -ERR_UNMAPPED);
	mem_free(x);
}

static void test_names(void)
{
	struct wbuf b;
	struct err e;

	T_SECTION("descriptors and primitive types");
	err_init(&e);
	wbuf_init(&b);
	T_EQ_I(mirror_java_name((const uint8_t *)"[[Lcom/x/Y$Z;", 13, &b, &e), 0);
	wbuf_u8(&b, 0);
	T_EQ_S((const char *)b.data, "com.x.Y$Z[][]");
	T_EQ_I(mirror_java_name((const uint8_t *)"[V", 2, &b, &e), -ERR_CORRUPT);
	T_EQ_S(mirror_primitive_name(9), "void");
	T_CHECK(mirror_primitive_name(0xffffffffu) == NULL, "huge primitive type named");
	T_EQ_U(mirror_field_size('D'), 8);
	T_EQ_U(mirror_field_size('C'), 2);
	T_EQ_U(mirror_field_size('B'), 1);
	T_EQ_U(mirror_field_size('L'), 4);
	wbuf_release(&b);
}

int main(void)
{
	test_reads();
	test_names();
	for (size_t i = 0; i < art_layout_count; i++) {
		const struct art_layout *l = &art_layouts[i];
		printf("-- family %s: Object, Class, Array, String, name_, DexCache, ClassLoader\n", l->family);
		test_class(l);
		test_array(l);
		test_string(l);
		test_class_name(l);
		test_dex_cache(l);
		test_class_loader(l);
	}
	T_DONE();
}
