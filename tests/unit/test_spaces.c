/* test_spaces.c - ART space identification: mapping names of both Android styles, the
 * image-header probe, and spaces_find over small memory images with the allocator probes
 * of rosalloc/probe/probe.c (tested on their own in test_probe.c) and without them. */
#include <stdlib.h>

#include "art/runtime/spaces.h"
#include "carver/base/cursor.h"
#include "rosalloc/probe/probe.h"
#include "tests/unit/t.h"

static void test_dalvik_names(void)
{
	const char *inner;
	size_t n;
	T_SECTION("dalvik names");
	const struct { const char *mapping, *want; } ok[] = {
		{ "/dev/ashmem/dalvik-main space (deleted)", "main space" },
		{ "/dev/ashmem/dalvik-zygote space", "zygote space" },
		{ "[anon:dalvik-main space (region space)]", "main space (region space)" },
		{ "[anon:dalvik-rosalloc page map]", "rosalloc page map" },
		{ "dalvik-LinearAlloc", "LinearAlloc" },
	};
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		char buf[128];
		T_CHECK(spaces_dalvik_name(ok[i].mapping, &inner, &n), "%s not recognised", ok[i].mapping);
		snprintf(buf, sizeof(buf), "%.*s", (int)n, inner);
		T_EQ_S(buf, ok[i].want);
	}
	const char *no[] = { "", "/system/lib64/libart.so", "[anon:libc_malloc]", "[heap]", "/dev/ashmem/other", NULL };
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		T_CHECK(!spaces_dalvik_name(no[i], &inner, &n), "\"%s\" taken for a dalvik name", no[i] ? no[i] : "(null)");
}

static void test_kinds(void)
{
	T_SECTION("kinds of names");
	const struct { const char *name; enum space_kind k; } t[] = {
		{ "main space", SPACE_ROSALLOC },
		{ "main space 1", SPACE_ROSALLOC },
		{ "main space (region space)", SPACE_REGION },
		{ "zygote space", SPACE_ZYGOTE },
		{ "non moving space", SPACE_DLMALLOC },
		{ "alloc space", SPACE_DLMALLOC },
		{ "large object space allocation", SPACE_LOS_ALLOCATION },
		{ "free list large object space", SPACE_LOS_FREELIST },
		{ "large object space", SPACE_LOS_FREELIST },
		{ "large object free list space allocation info map", SPACE_LOS_INFO_MAP },
		{ "rosalloc page map", SPACE_ROSALLOC_PAGE_MAP },
		{ "allocspace main rosalloc space live-bitmap 1", SPACE_BITMAP },
		{ "region space live bitmap", SPACE_BITMAP },
		{ "large live objects", SPACE_BITMAP },
		{ "imagespace /system/framework/boot.art live-bitmap 0", SPACE_BITMAP },
		{ "allocation stack", SPACE_ALLOCATION_STACK },
		{ "live stack", SPACE_LIVE_STACK },
		{ "thread local mark stack", SPACE_MARK_STACK },
		{ "card table", SPACE_CARD_TABLE },
		{ "classes2.dex extracted in memory from /data/app/x/base.apk", SPACE_DEX_IN_MEMORY },
		{ "LinearAlloc", SPACE_LINEAR_ALLOC },
		{ "Concurrent mark-compact from-space", SPACE_CMC_MAP },
		{ "Concurrent mark-compact moving-space shadow", SPACE_CMC_MAP },
		{ "Concurrent mark-compact compaction buffers", SPACE_CMC_MAP },
		{ "moving-space-shadow", SPACE_CMC_MAP },
		{ "linear-alloc shadow map", SPACE_CMC_MAP },
		{ "linear-alloc page-status map", SPACE_CMC_MAP },
		{ "/data/app/x/oat/arm64/base.art", SPACE_IMAGE },
		{ "indirect ref table", SPACE_KIND_COUNT },
		{ "", SPACE_KIND_COUNT },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		enum space_kind k = spaces_kind_of_name(t[i].name, strlen(t[i].name));
		T_CHECK(k == t[i].k, "\"%s\" -> %s, expected %s", t[i].name, spaces_kind_name(k), spaces_kind_name(t[i].k));
	}
	T_EQ_S(spaces_kind_name(SPACE_REGION), "RegionSpace");
	T_EQ_S(spaces_kind_name(SPACE_KIND_COUNT), "unknown");
	T_CHECK(spaces_holds_objects(SPACE_LOS_ALLOCATION) && !spaces_holds_objects(SPACE_BITMAP), "holds objects");
}

static void test_image_header_probe(void)
{
	T_SECTION("image header");
	/* an 085 header (runtime/image.h @ android-11): image_begin_ 16, image_size_ 20,
	 * image_roots_ 64, pointer_size_ 68, sections_[0] (objects) at 72 */
	uint8_t ih[256] = { 'a', 'r', 't', '\n', '0', '8', '5', 0 };
	ih[16] = 0x00, ih[17] = 0x00, ih[18] = 0x00, ih[19] = 0x70;
	ih[20] = 0x00, ih[21] = 0x10;     /* image_size 0x1000 */
	ih[64] = 0x00, ih[65] = 0x01, ih[66] = 0x00, ih[67] = 0x70;   /* roots 0x70000100 */
	ih[68] = 8;
	ih[77] = 0x08;                    /* objects [0, 0x800) */
	T_CHECK(spaces_probe_image_header(ih, sizeof(ih), 0x70000000), "085 header rejected");
	T_CHECK(!spaces_probe_image_header(ih, sizeof(ih), 0x71000000), "header at the wrong address accepted");
	T_CHECK(!spaces_probe_image_header(ih, 12, 0x70000000), "short header accepted");
	ih[6] = '9';
	T_CHECK(!spaces_probe_image_header(ih, sizeof(ih), 0x70000000), "unknown version accepted");
	ih[6] = 'x';
	T_CHECK(!spaces_probe_image_header(ih, sizeof(ih), 0x70000000), "non-digit version accepted");
}

static const struct art_space *find_kind(const struct art_spaces *s, enum space_kind k)
{
	for (size_t i = 0; i < s->count; i++)
		if (s->v[i].kind == k)
			return &s->v[i];
	return NULL;
}

/* A RosAlloc space (by name or content) with its page map, a dlmalloc space, a region space
 * and LOS allocations; every object's class chain ends at a self-class at 0x10000000. */
static void test_find(bool names)
{
	enum { PAGE = 4096, REGION = 256 * 1024 };
	static uint8_t klass[PAGE], ros[4 * PAGE], zeros[PAGE], pm[PAGE], dl[2 * PAGE], reg[2 * REGION], los[4 * PAGE];
	struct image img;
	struct art_spaces s;
	struct err e;

	T_SECTION(names ? "spaces by name" : "spaces by content");
	err_init(&e);
	memset(klass, 0, sizeof(klass));
	klass[0] = 0x00, klass[1] = 0x00, klass[2] = 0x00, klass[3] = 0x10;   /* 0x10000000: own class */
	klass[8] = 0x00, klass[9] = 0x00, klass[10] = 0x00, klass[11] = 0x10; /* 0x10000008: class of... */
	memset(ros, 0, sizeof(ros));
	ros[1] = 5;                                 /* run, bracket 5 */
	ros[PAGE + 3] = 0x10;                       /* page 1: large object of class 0x10000000 */
	memset(pm, 0, sizeof(pm));
	pm[0] = 2, pm[1] = 4, pm[2] = 5;
	memset(dl, 0, sizeof(dl));
	const uint64_t dl_base = 0x20000000;
	for (int i = 0; i < 8; i++) {
		dl[40 + i] = (uint8_t)(dl_base >> (8 * i));
		dl[56 + i] = (uint8_t)((dl_base + 64) >> (8 * i));
	}
	memset(reg, 0, sizeof(reg));
	reg[3] = 0x10;
	reg[REGION + 3] = 0x10;
	memset(los, 0, sizeof(los));
	los[3] = 0x10;
	los[8] = 0x55;

	img_init_empty(&img, "spaces");
	T_EQ_I(img_add_region_mem(&img, 0x10000000, klass, sizeof(klass), 6, "", &e), 0);
	T_EQ_I(img_add_region_mem(&img, 0x12c00000, ros, sizeof(ros), 6, names ? "[anon:dalvik-main space]" : "", &e), 0);
	T_EQ_I(img_add_region_mem(&img, 0x12c00000 + sizeof(ros), zeros, sizeof(zeros), 0,
				  names ? "[anon:dalvik-main space]" : "", &e), 0);
	T_EQ_I(img_add_region_mem(&img, 0x7f0000000000, pm, sizeof(pm), 6, names ? "[anon:dalvik-rosalloc page map]" : "", &e), 0);
	T_EQ_I(img_add_region_mem(&img, dl_base, dl, sizeof(dl), 6, names ? "/dev/ashmem/dalvik-non moving space (deleted)" : "", &e), 0);
	T_EQ_I(img_add_region_mem(&img, 0x30000000, reg, sizeof(reg), 6, names ? "[anon:dalvik-main space (region space)]" : "", &e), 0);
	T_EQ_I(img_add_region_mem(&img, 0x40000000, los, sizeof(los), 6, names ? "[anon:dalvik-large object space allocation]" : "", &e), 0);
	T_EQ_I(img_add_region_mem(&img, 0x40010000, los, sizeof(los), 6, names ? "[anon:dalvik-large object space allocation]" : "", &e), 0);
	T_EQ_I(spaces_find(&s, &img, 0, &probe_spaces, &e), 0);

	const char *how = names ? "name" : "content";
	const struct art_space *r = find_kind(&s, SPACE_ROSALLOC);
	T_CHECK(r && r->begin == 0x12c00000 && r->end == 0x12c00000 + sizeof(ros), "RosAlloc bounds");
	if (r) {
		T_EQ_S(r->how, how);
		T_EQ_U(r->companion, 0x7f0000000000);
		T_EQ_U(r->limit, names ? 0x12c00000 + sizeof(ros) + sizeof(zeros) : 0x12c00000 + (uint64_t)PAGE * PAGE);
	}
	r = find_kind(&s, SPACE_DLMALLOC);
	T_CHECK(r && r->begin == dl_base && r->end == dl_base + sizeof(dl), "dlmalloc bounds");
	r = find_kind(&s, SPACE_REGION);
	T_CHECK(r && r->begin == 0x30000000 && r->end == 0x30000000 + sizeof(reg), "region space bounds");
	r = find_kind(&s, SPACE_LOS_MAP);
	T_CHECK(r && r->begin == 0x40000000 && r->end == 0x40010000 + sizeof(los) && r->count == 2, "LOS map space");
	T_CHECK(find_kind(&s, SPACE_ROSALLOC_PAGE_MAP) != NULL, "page map listed");
	T_CHECK(spaces_at(&s, 0x30000010) == find_kind(&s, SPACE_REGION), "spaces_at");
	T_CHECK(spaces_at(&s, 0x7f0000000000) == NULL, "page map holds no objects");
	spaces_release(&s);
	img_close(&img);
}

/* The allocator probes are required: without them the finder refuses (an internal error,
 * not a names-only guess); with rosalloc/'s probes a named main space pairs with its page
 * map and an unnamed dlmalloc mspace is found by its header. */
static void test_probes_required(void)
{
	enum { PAGE = 4096 };
	static uint8_t ros[PAGE], pm[PAGE], dl[2 * PAGE];
	const uint64_t dl_base = 0x20000000;
	struct space_probes partial = probe_spaces;
	struct image img;
	struct art_spaces s;
	struct err e;

	T_SECTION("allocator probes required");
	err_init(&e);
	memset(ros, 0, sizeof(ros));
	ros[1] = 5;                                 /* run, bracket 5 */
	memset(pm, 0, sizeof(pm));
	pm[0] = 2;
	memset(dl, 0, sizeof(dl));
	for (int i = 0; i < 8; i++) {
		dl[40 + i] = (uint8_t)(dl_base >> (8 * i));
		dl[56 + i] = (uint8_t)((dl_base + 64) >> (8 * i));
	}
	img_init_empty(&img, "probes");
	T_EQ_I(img_add_region_mem(&img, 0x12c00000, ros, sizeof(ros), 6, "[anon:dalvik-main space]", &e), 0);
	T_EQ_I(img_add_region_mem(&img, dl_base, dl, sizeof(dl), 6, "", &e), 0);
	T_EQ_I(img_add_region_mem(&img, 0x7f0000000000, pm, sizeof(pm), 6, "[anon:dalvik-rosalloc page map]", &e), 0);
	T_EQ_I(spaces_find(&s, &img, 8, NULL, &e), -ERR_INTERNAL);
	T_CHECK(strstr(e.msg, "probe_spaces") != NULL, "message: %s", e.msg);
	T_EQ_U(s.count, 0);
	partial.los_info = NULL;
	T_EQ_I(spaces_find(&s, &img, 8, &partial, &e), -ERR_INTERNAL);
	T_EQ_I(spaces_find(&s, &img, 8, &probe_spaces, &e), 0);
	const struct art_space *r = find_kind(&s, SPACE_ROSALLOC);
	T_CHECK(r && r->begin == 0x12c00000 && !r->backup && r->companion == 0x7f0000000000,
		"named main space paired with its page map");
	r = find_kind(&s, SPACE_DLMALLOC);
	T_CHECK(r && r->begin == dl_base, "unnamed mspace found by its header");
	spaces_release(&s);
	img_close(&img);
}

/* The 5.0/5.1 twin bug: both main maps are called "main space"; only the one the page
 * map describes is RosAlloc in use, the empty one is the inactive twin. */
static void test_twins(void)
{
	enum { PAGE = 4096 };
	static uint8_t a[PAGE], none[PAGE], b[PAGE], pm_a[PAGE], pm_b[PAGE];
	struct image img;
	struct art_spaces s;
	struct err e;

	T_SECTION("twin main spaces");
	err_init(&e);
	memset(a, 0, sizeof(a));
	a[1] = 3;
	memset(pm_a, 0, sizeof(pm_a));
	pm_a[0] = 2;
	img_init_empty(&img, "twins");
	T_EQ_I(img_add_region_mem(&img, 0x12c00000, a, PAGE, 6, "/dev/ashmem/dalvik-main space (deleted)", &e), 0);
	T_EQ_I(img_add_region_mem(&img, 0x12c01000, none, PAGE, 0, "/dev/ashmem/dalvik-main space (deleted)", &e), 0);
	T_EQ_I(img_add_region_mem(&img, 0x12c02000, b, PAGE, 6, "/dev/ashmem/dalvik-main space (deleted)", &e), 0);
	T_EQ_I(img_add_region_mem(&img, 0x7f0000000000, pm_b, PAGE, 6, "/dev/ashmem/dalvik-rosalloc page map (deleted)", &e), 0);
	T_EQ_I(img_add_region_mem(&img, 0x7f0000001000, pm_a, PAGE, 6, "/dev/ashmem/dalvik-rosalloc page map (deleted)", &e), 0);
	T_EQ_I(spaces_find(&s, &img, 8, &probe_spaces, &e), 0);
	size_t n = 0;
	for (size_t i = 0; i < s.count; i++) {
		const struct art_space *sp = &s.v[i];
		if (sp->kind != SPACE_ROSALLOC)
			continue;
		n++;
		if (sp->begin == 0x12c00000)
			T_CHECK(!sp->backup && sp->companion == 0x7f0000001000 && sp->limit == 0x12c02000,
				"active twin: backup %d companion 0x%llx", sp->backup, (unsigned long long)sp->companion);
		else
			T_CHECK(sp->backup && sp->begin == 0x12c02000, "inactive twin at 0x%llx", (unsigned long long)sp->begin);
	}
	T_EQ_U(n, 2);
	spaces_release(&s);
	img_close(&img);
}

int main(void)
{
	test_dalvik_names();
	test_kinds();
	test_image_header_probe();
	test_find(true);
	test_find(false);
	test_twins();
	test_probes_required();
	T_DONE();
}
