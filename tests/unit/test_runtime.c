/* test_runtime.c - the runtime model on a generated ART 11 heap (tests/tools/heapgen.h),
 * field linking, descriptor names, String decoding, and damaged heaps. */
#include "art/mirror/mirror.h"
#include "art/runtime/runtime.h"
#include "rosalloc/probe/probe.h"
#include "tests/tools/heapgen.h"
#include "tests/unit/t.h"

/* the model as the commands build it: allocator probes from rosalloc/ */
static const struct runtime_opts with_probes = { .probes = &probe_spaces };

static const struct rt_class *by_name(const struct art_runtime *rt, const char *name)
{
	for (size_t i = 0; i < rt->class_count; i++)
		if (rt->classes[i].name && !strcmp(rt->classes[i].name, name))
			return &rt->classes[i];
	return NULL;
}

/* offsets of fields 0..n-1 as "a b c" */
static const char *offsets_text(const uint32_t *off, uint32_t n)
{
	static char buf[256];
	size_t len = 0;
	buf[0] = 0;
	for (uint32_t i = 0; i < n && len < sizeof(buf) - 12; i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%u", i ? " " : "", off[i]);
	return buf;
}

/* 12+ (LinkFieldsHelper, class_linker.cc @R14): small fields take the smallest gap first */
static void test_link_fields_12(void)
{
	uint32_t off[16], size, refs;
	T_SECTION("LinkFields 12+: smallest gap first");
	/* the example of platform/art c7993d55b2: class A { byte unalign; } (size 9),
	 * class B extends A { long l; byte a, b, c, d, e, f, g; } */
	const uint8_t t1[] = { 'J', 'B', 'B', 'B', 'B', 'B', 'B', 'B' };
	const uint32_t i1[] = { 7, 0, 1, 2, 3, 4, 5, 6 };
	T_EQ_I(runtime_link_fields(ART_LINK_GAPS, t1, i1, 8, 9, off, &size, &refs, NULL), 0);
	printf("12+: l a..g at %s, size %u\n", offsets_text(off, 8), size);
	T_EQ_S(offsets_text(off, 8), "16 9 10 11 12 13 14 15");
	T_EQ_U(size, 24);
	T_EQ_I(runtime_link_fields(ART_LINK_SHUFFLE, t1, i1, 8, 9, off, &size, &refs, NULL), 0);
	printf("6.0-11: l a..g at %s, size %u\n", offsets_text(off, 8), size);
	T_EQ_S(offsets_text(off, 8), "16 12 10 14 9 11 13 15");
	T_EQ_U(size, 24);
	/* the real ART 14 capture's Harness: 5 references, a long, booleans compact and gc
	 * (core bytes 00 01 at 28 and 29, ART's own HPROF: compact false, gc true) */
	const uint8_t t2[] = { 'Z', 'L', 'Z', 'L', 'L', 'J', 'L', 'L' };
	const uint32_t i2[] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	T_EQ_I(runtime_link_fields(ART_LINK_GAPS, t2, i2, 8, 8, off, &size, &refs, NULL), 0);
	printf("12+: Harness compact dumpPath gc hprofCheckPath hprofPath markGcCount outDir readyPath at %s\n",
	       offsets_text(off, 8));
	T_EQ_S(offsets_text(off, 8), "28 8 29 12 16 32 20 24");
	T_EQ_U(size, 40);
	T_EQ_U(refs, 5);
	T_EQ_I(runtime_link_fields(ART_LINK_SHUFFLE, t2, i2, 8, 8, off, &size, &refs, NULL), 0);
	T_EQ_S(offsets_text(off, 8), "28 8 30 12 16 32 20 24");
	/* a 2-byte gap (odd-sized super class, then a reference) and a 4-byte gap (a long):
	 * 12+ puts the char into the 2-byte gap, 6.0-11 into the 4-byte one */
	const uint8_t t3[] = { 'L', 'L', 'J', 'C' };
	const uint32_t i3[] = { 0, 1, 2, 3 };
	T_EQ_I(runtime_link_fields(ART_LINK_GAPS, t3, i3, 4, 10, off, &size, &refs, NULL), 0);
	printf("12+: ref ref long char after 10 at %s, size %u\n", offsets_text(off, 4), size);
	T_EQ_S(offsets_text(off, 4), "12 16 24 10");
	T_EQ_U(size, 32);
	T_EQ_I(runtime_link_fields(ART_LINK_SHUFFLE, t3, i3, 4, 10, off, &size, &refs, NULL), 0);
	T_EQ_S(offsets_text(off, 4), "12 16 24 20");
	/* only one 4-byte field takes the 4-byte gap; the second int follows the long */
	const uint8_t t4[] = { 'J', 'I', 'I', 'S', 'Z' };
	const uint32_t i4[] = { 0, 1, 2, 3, 4 };
	T_EQ_I(runtime_link_fields(ART_LINK_GAPS, t4, i4, 5, 12, off, &size, &refs, NULL), 0);
	T_EQ_S(offsets_text(off, 5), "16 12 24 28 30");
	T_EQ_U(size, 31);
}

static void test_link_fields(void)
{
	T_SECTION("LinkFields");
	/* java.lang.Object: shadow$_klass_ (ref) 0, shadow$_monitor_ (int) 4, size 8 */
	const uint8_t t1[] = { 'L', 'I' };
	const uint32_t i1[] = { 0, 1 };
	uint32_t off[16], size, refs;
	T_EQ_I(runtime_link_fields(ART_LINK_SHUFFLE, t1, i1, 2, 0, off, &size, &refs, NULL), 0);
	T_EQ_U(off[0], 0);
	T_EQ_U(off[1], 4);
	T_EQ_U(size, 8);
	T_EQ_U(refs, 1);
	/* gap filling: after 8 + one ref the long is aligned to 16, the int fills 12 */
	const uint8_t t2[] = { 'J', 'C', 'Z', 'L', 'I' };
	const uint32_t i2[] = { 10, 11, 12, 13, 14 };
	T_EQ_I(runtime_link_fields(ART_LINK_SHUFFLE, t2, i2, 5, 8, off, &size, &refs, NULL), 0);
	T_EQ_U(off[3], 8);
	T_EQ_U(off[4], 12);
	T_EQ_U(off[0], 16);
	T_EQ_U(off[1], 24);
	T_EQ_U(off[2], 26);
	T_EQ_U(size, 27);
	T_EQ_U(refs, 1);
	/* a byte and a short fill the 4-byte gap left by aligning a long after 12 */
	const uint8_t t3[] = { 'B', 'S', 'D' };
	const uint32_t i3[] = { 0, 1, 2 };
	T_EQ_I(runtime_link_fields(ART_LINK_SHUFFLE, t3, i3, 3, 12, off, &size, &refs, NULL), 0);
	T_EQ_U(off[2], 16);
	T_EQ_U(off[1], 12);
	T_EQ_U(off[0], 14);
	T_EQ_U(size, 24);
	/* same-size groups: long before double, int before float, then dex order */
	const uint8_t t4[] = { 'D', 'J', 'F', 'I', 'I' };
	const uint32_t i4[] = { 0, 1, 2, 4, 3 };
	T_EQ_I(runtime_link_fields(ART_LINK_SHUFFLE, t4, i4, 5, 8, off, &size, &refs, NULL), 0);
	T_EQ_U(off[1], 8);
	T_EQ_U(off[0], 16);
	T_EQ_U(off[4], 24);
	T_EQ_U(off[3], 28);
	T_EQ_U(off[2], 32);
	T_EQ_U(size, 36);
	T_EQ_I(runtime_link_fields(ART_LINK_SHUFFLE, t1, i1, 0, 8, off, &size, &refs, NULL), 0);
	T_EQ_U(size, 8);
	/* 6.0+: a reference after an odd-sized super class is 4-aligned; the char fills the gap */
	const uint8_t t5[] = { 'L', 'C', 'L' };
	const uint32_t i5[] = { 0, 1, 2 };
	T_EQ_I(runtime_link_fields(ART_LINK_SHUFFLE, t5, i5, 3, 46, off, &size, &refs, NULL), 0);
	T_EQ_U(off[0], 48);
	T_EQ_U(off[2], 52);
	T_EQ_U(off[1], 46);
	T_EQ_U(size, 56);
	T_EQ_U(refs, 2);
	/* 5.0 (class_linker.cc @ android-5.0.0_r5): references, 64-bit, the rest, each by name;
	 * every non-64-bit primitive in a 4-byte slot (the synthetic Base class) */
	const uint8_t t6[] = { 'Z', 'B', 'C', 'S', 'I', 'J', 'F', 'D', 'L', 'L' };
	/* dex order = name order: alive amount attachment code created id initial name port ratio */
	const uint32_t i6[] = { 0, 3, 6, 8, 5, 4, 9, 1, 2, 7 };
	T_EQ_I(runtime_link_fields(ART_LINK_5_0, t6, i6, 10, 8, off, &size, &refs, NULL), 0);
	T_EQ_U(off[8], 8);  /* attachment */
	T_EQ_U(off[9], 12); /* name */
	T_EQ_U(off[7], 16); /* amount (D) */
	T_EQ_U(off[5], 24); /* created (J) */
	T_EQ_U(off[0], 32); /* alive (Z) */
	T_EQ_U(off[1], 36); /* code (B) */
	T_EQ_U(off[4], 40); /* id (I) */
	T_EQ_U(off[2], 44); /* initial (C) */
	T_EQ_U(off[3], 48); /* port (S) */
	T_EQ_U(off[6], 52); /* ratio (F) */
	T_EQ_U(size, 56);
	T_EQ_U(refs, 2);
	/* 5.1 (@ android-5.1.0_r1): the same class sorted by size, type, dex index */
	T_EQ_I(runtime_link_fields(ART_LINK_5_1, t6, i6, 10, 8, off, &size, &refs, NULL), 0);
	T_EQ_U(off[5], 16); /* created (J) */
	T_EQ_U(off[7], 24); /* amount (D) */
	T_EQ_U(off[4], 32); /* id (I) */
	T_EQ_U(off[6], 36); /* ratio (F) */
	T_EQ_U(off[2], 40); /* initial (C) */
	T_EQ_U(off[3], 44); /* port (S) */
	T_EQ_U(off[0], 48); /* alive (Z) */
	T_EQ_U(off[1], 52); /* code (B) */
	T_EQ_U(size, 56);
	/* 5.x: an unaligned start takes the first non-64-bit primitive of the sorted list
	 * (5.0: by name, 5.1: int before boolean), or 4 bytes of padding without one */
	const uint8_t t7[] = { 'J', 'Z', 'I' };
	const uint32_t i7[] = { 0, 1, 2 };
	T_EQ_I(runtime_link_fields(ART_LINK_5_0, t7, i7, 3, 12, off, &size, &refs, NULL), 0);
	T_EQ_U(off[1], 12);
	T_EQ_U(off[0], 16);
	T_EQ_U(off[2], 24);
	T_EQ_U(size, 28);
	T_EQ_I(runtime_link_fields(ART_LINK_5_1, t7, i7, 3, 12, off, &size, &refs, NULL), 0);
	T_EQ_U(off[2], 12);
	T_EQ_U(off[0], 16);
	T_EQ_U(off[1], 24);
	T_EQ_U(size, 28);
	T_EQ_I(runtime_link_fields(ART_LINK_5_1, t7, i7, 1, 12, off, &size, &refs, NULL), 0);
	T_EQ_U(off[0], 16);
	T_EQ_U(size, 24);
	test_link_fields_12();
}

static void test_names(void)
{
	struct wbuf b;
	T_SECTION("descriptors");
	wbuf_init(&b);
	const struct { const char *d, *want; } ok[] = {
		{ "I", "int" }, { "[I", "int[]" }, { "[[Ljava/lang/String;", "java.lang.String[][]" },
		{ "Lcom/x/Y$Z;", "com.x.Y$Z" }, { "V", "void" },
	};
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		b.len = 0;
		T_EQ_I(mirror_java_name((const uint8_t *)ok[i].d, strlen(ok[i].d), &b, NULL), 0);
		wbuf_u8(&b, 0);
		T_EQ_S((const char *)b.data, ok[i].want);
	}
	const char *bad[] = { "", "[", "L;", "Ljava", "Q", "[V", "II" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		T_CHECK(mirror_java_name((const uint8_t *)bad[i], strlen(bad[i]), &b, NULL) == -ERR_CORRUPT,
			"\"%s\" accepted", bad[i]);
	T_EQ_S(mirror_primitive_name(5), "int");
	T_CHECK(mirror_primitive_name(0) == NULL && mirror_primitive_name(10) == NULL, "bad primitive named");
	T_EQ_U(mirror_field_size('J'), 8);
	T_EQ_U(mirror_field_size('['), 4);
	T_EQ_U(mirror_field_size('Z'), 1);
	wbuf_release(&b);
}

static void test_model(void)
{
	static struct hg h;
	struct image img;
	struct art_runtime rt;
	struct err e;

	T_SECTION("model of a generated heap");
	err_init(&e);
	T_EQ_I(hg_build(&h), 0);
	T_EQ_I(hg_image(&img, &h, &e), 0);
	T_EQ_I(runtime_open(&rt, &img, &with_probes, &e), 0);
	if (e.msg[0])
		printf("  %s\n", e.msg);
	T_EQ_S(rt.layout ? rt.layout->family : "", "11");
	T_CHECK(rt.layout_how && strstr(rt.layout_how, "content"), "layout how: %s", rt.layout_how);
	/* 12 and 13 read every object as 11 does but for small fields in alignment gaps: no
	 * tie; String's ArtFields (two ints, no gap) fit both rules, so 11's stays, and says so */
	T_CHECK(rt.layout_how && strstr(rt.layout_how, "LinkFields as 11 (12+ places small fields in alignment "
					 "gaps otherwise): 0 classes' ArtFields fit only it, 0 fit only 12, 1 both"),
		"layout how: %s", rt.layout_how);
	T_EQ_U(rt.java_lang_class, hg_class_addr(HG_JLC));
	T_EQ_U(rt.class_count, 9);
	T_EQ_U(rt.retired_classes, 1);
	T_EQ_U(rt.rejected_classes, 1);
	T_EQ_U(rt.dex_count, 1);
	T_EQ_U(rt.dex_caches_resolved, 1);
	const char *names[] = { "java.lang.Class", "java.lang.Object", "java.lang.String", "java.lang.DexCache",
				"com.example.Node", "int", "int[]", "com.example.Node[]", "$Proxy7" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		T_CHECK(by_name(&rt, names[i]) != NULL, "class %s not found", names[i]);
	const struct rt_class *node = by_name(&rt, "com.example.Node");
	if (node) {
		static const struct { const char *name, *type; uint32_t off; } want[] = {
			{ "big", "J", 16 }, { "c", "C", 24 }, { "flag", "Z", 26 }, { "next", "Lcom/example/Node;", 8 },
			{ "value", "I", 12 } };
		T_EQ_U(node->field_count, 5);
		T_EQ_S(node->fields_how, "dex");
		T_CHECK(node->fields_checked, "Node layout not checked");
		for (uint32_t i = 0; i < node->field_count && i < 5; i++) {
			T_EQ_S(node->fields[i].name, want[i].name);
			T_EQ_S(node->fields[i].type, want[i].type);
			T_EQ_U(node->fields[i].offset, want[i].off);
		}
		T_CHECK(node->super != RT_NONE && !strcmp(rt.classes[node->super].name, "java.lang.Object"),
			"Node's super");
	}
	const struct rt_class *str = by_name(&rt, "java.lang.String");
	T_CHECK(str && !strcmp(str->fields_how, "ifields_") && str->field_count == 2, "String fields from ifields_");
	if (str && str->field_count == 2) {
		T_EQ_S(str->fields[0].name, "count");
		T_EQ_U(str->fields[0].offset, 8);
		T_EQ_S(str->fields[1].name, "hash");
		T_EQ_S(str->fields[1].type, "I");
		T_EQ_U(str->fields[1].offset, 12);
	}
	const struct rt_class *arr = by_name(&rt, "com.example.Node[]");
	T_CHECK(arr && !strcmp(arr->name_how, "array"), "array named from its component");
	const struct rt_class *px = by_name(&rt, "$Proxy7");
	T_CHECK(px && !strcmp(px->name_how, "name_"), "proxy named from name_");
	T_EQ_S(rt.dexes[0].location, "/data/hg.jar");
	T_CHECK(runtime_class_at(&rt, hg_class_addr(HG_NODE)) == node, "lookup by address");
	T_CHECK(runtime_class_at(&rt, hg_class_addr(HG_NODE) + 8) == NULL, "lookup of a non-class");
	runtime_close(&rt);

	T_SECTION("--art-version");
	struct runtime_opts o = { .art_version = "10", .probes = &probe_spaces };
	T_EQ_I(runtime_open(&rt, &img, &o, &e), -ERR_UNSUP);
	o.art_version = "4.4";
	T_EQ_I(runtime_open(&rt, &img, &o, &e), -ERR_USAGE);
	T_CHECK(strstr(e.msg, "known layout families") != NULL, "message: %s", e.msg);
	o.art_version = "11";
	T_EQ_I(runtime_open(&rt, &img, &o, &e), 0);
	T_CHECK(rt.layout_how && strstr(rt.layout_how, "--art-version"), "how: %s", rt.layout_how);
	runtime_close(&rt);
	img_close(&img);

	T_SECTION("DexCache.dex_file_ -> DexFile.begin_");
	{
		const struct art_layout *l11 = art_layout_by_family("11");
		const uint64_t dex_cache = HG_HEAP + 2048, dexfile = HG_HEAP + 3584;
		hg_put32(&h, dexfile, 0x1234);              /* vtable */
		hg_put32(&h, dexfile + 8, (uint32_t)HG_DEX); /* begin_ (64-bit pointer) */
		hg_put32(&h, dexfile + 12, (uint32_t)(HG_DEX >> 32));
		hg_put32(&h, dex_cache + l11->dex_cache.dex_file, (uint32_t)dexfile);
		T_EQ_I(hg_image(&img, &h, &e), 0);
		T_EQ_I(runtime_open(&rt, &img, &with_probes, &e), 0);
		T_EQ_U(rt.dex_caches_by_pointer, 1);
		T_EQ_U(rt.dex_caches_resolved, 1);
		runtime_close(&rt);
		img_close(&img);
		/* a DexFile pointing at no DEX falls back to the class_def vote */
		hg_put32(&h, dexfile + 8, 0x5000);
		T_EQ_I(hg_image(&img, &h, &e), 0);
		T_EQ_I(runtime_open(&rt, &img, &with_probes, &e), 0);
		T_EQ_U(rt.dex_caches_by_pointer, 0);
		T_EQ_U(rt.dex_caches_resolved, 1);
		runtime_close(&rt);
		img_close(&img);
	}

	T_SECTION("damaged heaps");
	/* a super-class cycle and a component cycle must terminate */
	const struct art_layout *l = art_layout_by_family("11");
	hg_put32(&h, hg_class_addr(HG_NODE_ARRAY) + l->klass.component_type, (uint32_t)hg_class_addr(HG_NODE_ARRAY));
	hg_put32(&h, hg_class_addr(HG_NODE) + l->klass.super_class, (uint32_t)hg_class_addr(HG_NODE));
	T_EQ_I(hg_image(&img, &h, &e), 0);
	T_EQ_I(runtime_open(&rt, &img, &with_probes, &e), 0);
	T_EQ_U(rt.class_count, 9);
	node = by_name(&rt, "com.example.Node");
	T_CHECK(node && !node->fields_checked, "a self-super class cannot check its layout");
	runtime_close(&rt);
	img_close(&img);
	/* no java.lang.Class at all */
	memset(h.heap, 0, sizeof(h.heap));
	T_EQ_I(hg_image(&img, &h, &e), 0);
	T_EQ_I(runtime_open(&rt, &img, &with_probes, &e), -ERR_UNSUP);
	T_CHECK(strstr(e.msg, "no java.lang.Class") != NULL, "message: %s", e.msg);
	T_EQ_I(runtime_open(&rt, &img, NULL, &e), -ERR_INTERNAL);   /* the probes are required */
	img_close(&img);
	hg_release(&h);
}

static void test_string(void)
{
	static struct hg h;
	struct image img;
	struct err e;
	struct wbuf b;
	const struct art_layout *l = art_layout_by_family("11");
	struct mirror m = { &img, l, 8 };

	T_SECTION("String");
	err_init(&e);
	wbuf_init(&b);
	memset(&h, 0, sizeof(h));
	wbuf_init(&h.dex);
	wbuf_u8(&h.dex, 0);
	/* UTF-16 "é€" and a surrogate pair */
	hg_put32(&h, HG_HEAP + 64 + 8, 4 << 1 | 1);
	const uint16_t u[] = { 0xe9, 0x20ac, 0xd83d, 0xde00 };
	for (int i = 0; i < 4; i++) {
		h.heap[64 + 16 + 2 * i] = (uint8_t)u[i];
		h.heap[64 + 17 + 2 * i] = (uint8_t)(u[i] >> 8);
	}
	hg_string(&h, HG_HEAP + 256, "abc", l);
	hg_put32(&h, HG_HEAP + 512 + 8, 0x7ffffff0);  /* absurd length */
	T_EQ_I(hg_image(&img, &h, &e), 0);
	T_EQ_I(mirror_string(&m, HG_HEAP + 64, 100, &b, &e), 0);
	wbuf_u8(&b, 0);
	T_EQ_S((const char *)b.data, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
	b.len = 0;
	T_EQ_I(mirror_string(&m, HG_HEAP + 256, 100, &b, &e), 0);
	wbuf_u8(&b, 0);
	T_EQ_S((const char *)b.data, "abc");
	T_EQ_I(mirror_string(&m, HG_HEAP + 512, 100, &b, &e), -ERR_CORRUPT);
	T_EQ_I(mirror_string(&m, HG_HEAP + 512, 1u << 30, &b, &e), -ERR_UNMAPPED);
	T_EQ_I(mirror_string(&m, HG_HEAP + HG_HEAP_SIZE - 4, 100, &b, &e), -ERR_UNMAPPED);
	img_close(&img);
	wbuf_release(&b);
	hg_release(&h);
}

/* One line per class (address, name, where it came from, fields); the class at `skip` is
 * left out, and fields_how too when no_how (a recovered source). */
static void model_lines(const struct art_runtime *rt, struct wbuf *out, uint64_t skip, bool no_how)
{
	wbuf_reset(out);
	for (size_t i = 0; i < rt->class_count; i++) {
		const struct rt_class *k = &rt->classes[i];
		if (k->addr == skip)
			continue;
		wbuf_printf(out, "0x%llx %s %s %s %u:", (unsigned long long)k->addr, k->name ? k->name : "-",
			    k->name_how, no_how ? "" : k->fields_how, k->field_count);
		for (uint32_t j = 0; j < k->field_count; j++)
			wbuf_printf(out, " %s %s +%u", k->fields[j].name, k->fields[j].type, k->fields[j].offset);
		wbuf_u8(out, '\n');
	}
	wbuf_u8(out, 0);
}

/* Builds the model of h; returns runtime_open's code. */
static int open_hg(struct art_runtime *rt, struct image *img, const struct hg *h, const struct runtime_opts *o,
		   struct err *e)
{
	if (hg_image(img, h, e))
		return -1;
	return runtime_open(rt, img, o, e);
}

static bool has_record(const struct anomaly_sink *s, enum anomaly_code code, uint64_t va, const char *text)
{
	for (size_t i = 0; i < s->count; i++)
		printf("  anomaly %s 0x%llx [%s]: %s\n", anomaly_code_name(s->v[i].code), (unsigned long long)s->v[i].va,
		       s->v[i].space, s->v[i].msg);
	for (size_t i = 0; i < s->count; i++)
		if (s->v[i].code == code && s->v[i].va == va && strstr(s->v[i].msg, text))
			return true;
	return false;
}

static void test_anomalies(void)
{
	static struct hg h;
	const struct art_layout *l = art_layout_by_family("11");
	const uint64_t proxy = hg_class_addr(HG_PROXY), string = hg_class_addr(HG_STRING);
	const uint64_t field0 = HG_LINEAR + 64 + art_layout_field_offset(l, 0);
	struct image img;
	struct art_runtime rt;
	struct runtime_opts o = { .probes = &probe_spaces, .anomaly_keep = 1 };
	struct wbuf sound, got;
	struct err e;

	T_SECTION("anomalies: the sound heap");
	err_init(&e);
	wbuf_init(&sound);
	wbuf_init(&got);
	T_EQ_I(hg_build(&h), 0);
	T_EQ_I(open_hg(&rt, &img, &h, &with_probes, &e), 0);
	/* the int[] element equal to java.lang.Class's address is the one candidate that is no
	 * Class: a rejected candidate inside another object, counted, and no anomaly (no damage) */
	T_EQ_U(rt.anomalies.total, 0);
	T_EQ_U(rt.rejected_classes, 1);
	model_lines(&rt, &sound, proxy, false);
	runtime_close(&rt);
	img_close(&img);

	T_SECTION("anomalies: a Class with one field out of range is read by its other fields");
	/* class_size_ 0xffffffff, the rest a sound Class (super class, name_, dex_cache_): a
	 * damaged Class, its class_size_ repaired to the fixed part, one anomaly (issue 23) */
	hg_put32(&h, proxy + l->klass.class_size, 0xffffffffu);
	T_EQ_I(open_hg(&rt, &img, &h, &with_probes, &e), 0);
	T_EQ_U(rt.class_count, 9);
	T_EQ_U(rt.rejected_classes, 1);
	T_EQ_U(rt.anomalies.per_code[ANOM_CLASS], 1);
	T_CHECK(rt.anomalies.count && strstr(rt.anomalies.v[0].msg, "class_size_ out of range (damage)"), "%s",
		rt.anomalies.count ? rt.anomalies.v[0].msg : "no anomaly");
	T_CHECK(runtime_class_at(&rt, proxy) && runtime_class_at(&rt, proxy)->raw.class_size == l->klass.size,
		"class_size_ repaired");
	runtime_close(&rt);
	img_close(&img);

	T_SECTION("anomalies: a corrupted Class object is left out, the rest is unchanged");
	/* two fields out of range: the runtime cannot tell it from a false candidate; the model
	 * records it where a walker finds an object start (test_model) */
	hg_put32(&h, proxy + l->klass.name, 0x13u);   /* and name_ misaligned */
	T_EQ_I(open_hg(&rt, &img, &h, &with_probes, &e), 0);
	T_EQ_U(rt.class_count, 8);
	T_EQ_U(rt.rejected_classes, 2);
	T_EQ_U(rt.anomalies.total, 0);
	model_lines(&rt, &got, proxy, false);
	T_CHECK(!strcmp((const char *)got.data, (const char *)sound.data), "other classes changed:\n%s---\n%s",
		(const char *)got.data, (const char *)sound.data);
	runtime_close(&rt);
	img_close(&img);
	hg_put32(&h, proxy + l->klass.class_size, l->klass.size);
	hg_put32(&h, proxy + l->klass.name, (uint32_t)(HG_HEAP + 2400));   /* its name_ String */

	T_SECTION("anomalies: keep bounds the records, not the counts");
	hg_put32(&h, HG_HEAP + 2400 + l->string.count, 0x7ffffff0u);     /* the proxy's name_ */
	hg_put32(&h, field0 + l->art_field.declaring_class, 0x1234);     /* String's ifields_ */
	T_EQ_I(open_hg(&rt, &img, &h, &o, &e), 0);
	T_EQ_U(rt.anomalies.total, 2);
	T_EQ_U(rt.anomalies.count, 1);
	T_EQ_U(rt.anomalies.count ? rt.anomalies.v[0].va : 0, proxy);   /* names are worked out first */
	runtime_close(&rt);
	img_close(&img);
	hg_string(&h, HG_HEAP + 2400, "$Proxy7", l);
	hg_put32(&h, field0 + l->art_field.declaring_class, (uint32_t)string);

	T_SECTION("anomalies: a name_ String that does not read");
	hg_put32(&h, HG_HEAP + 2400 + l->string.count, 0x7ffffff0u);
	T_EQ_I(open_hg(&rt, &img, &h, &with_probes, &e), 0);
	T_EQ_U(rt.class_count, 9);
	T_EQ_U(rt.anomalies.per_code[ANOM_CLASS_NAME], 1);
	T_CHECK(has_record(&rt.anomalies, ANOM_CLASS_NAME, proxy, "name_"), "no name_ record for 0x%llx",
		(unsigned long long)proxy);
	T_CHECK(runtime_class_at(&rt, proxy) && !runtime_class_at(&rt, proxy)->name, "the proxy is unnamed");
	model_lines(&rt, &got, proxy, false);
	T_CHECK(!strcmp((const char *)got.data, (const char *)sound.data), "other classes changed");
	runtime_close(&rt);
	img_close(&img);
	hg_string(&h, HG_HEAP + 2400, "$Proxy7", l);

	T_SECTION("anomalies: a damaged ifields_ array is recorded, the DEX gives the fields");
	hg_put32(&h, field0 + l->art_field.declaring_class, 0x1234);
	T_EQ_I(open_hg(&rt, &img, &h, &with_probes, &e), 0);
	T_EQ_U(rt.anomalies.per_code[ANOM_FIELDS], 1);
	T_CHECK(has_record(&rt.anomalies, ANOM_FIELDS, string, "declaring class"), "no ifields_ record for 0x%llx",
		(unsigned long long)string);
	T_CHECK(runtime_class_at(&rt, string) && !strcmp(runtime_class_at(&rt, string)->fields_how, "dex"),
		"String's fields from the DEX");
	model_lines(&rt, &got, proxy, true);
	{
		struct wbuf sound_no_how;
		struct art_runtime sound_rt;
		struct image sound_img;
		wbuf_init(&sound_no_how);
		hg_put32(&h, field0 + l->art_field.declaring_class, (uint32_t)string);
		T_EQ_I(open_hg(&sound_rt, &sound_img, &h, &with_probes, &e), 0);
		model_lines(&sound_rt, &sound_no_how, proxy, true);
		T_CHECK(!strcmp((const char *)got.data, (const char *)sound_no_how.data), "fields differ:\n%s---\n%s",
			(const char *)got.data, (const char *)sound_no_how.data);
		runtime_close(&sound_rt);
		img_close(&sound_img);
		wbuf_release(&sound_no_how);
	}
	runtime_close(&rt);
	img_close(&img);

	T_SECTION("anomalies: an ifields_ array that was not captured is a gap the DEX closes");
	hg_put32(&h, string + l->klass.ifields, 0x00200000);   /* 0x7f0000200000: no region */
	T_EQ_I(open_hg(&rt, &img, &h, &with_probes, &e), 0);
	T_EQ_U(rt.anomalies.per_code[ANOM_FIELDS], 0);
	T_EQ_U(rt.anomalies.total, 0);
	T_CHECK(runtime_class_at(&rt, string) && runtime_class_at(&rt, string)->field_count == 2, "String's fields");
	runtime_close(&rt);
	img_close(&img);

	T_SECTION("anomalies: no java.lang.Class: the first candidate's reason is reported");
	memset(h.heap, 0, sizeof(h.heap));
	hg_put32(&h, HG_HEAP + 64, HG_HEAP + 64);   /* an object whose class is itself, and nothing else */
	T_EQ_I(open_hg(&rt, &img, &h, &with_probes, &e), -ERR_UNSUP);
	T_CHECK(strstr(e.msg, "1 candidates; the first: candidate 0x12c00040") != NULL, "message: %s", e.msg);
	img_close(&img);
	wbuf_release(&sound);
	wbuf_release(&got);
	hg_release(&h);
}

int main(void)
{
	test_link_fields();
	test_names();
	test_model();
	test_string();
	test_anomalies();
	T_DONE();
}
