/* test_art_layout.c - the layout table: lookups and row invariants. */
#include "art/format/art_layout.h"
#include "tests/unit/t.h"
#include <string.h>

/* Every present Class field must lie inside the fixed part and not overlap the header. */
static void check_class_row(const struct art_layout *l)
{
	const unsigned f[] = { l->klass.class_loader, l->klass.component_type, l->klass.dex_cache,
			       l->klass.iftable, l->klass.name, l->klass.super_class,
			       l->klass.access_flags, l->klass.dex_type_idx, l->klass.object_size,
			       l->klass.primitive_type, l->klass.status, l->klass.ifields };
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		T_CHECK(f[i] != ART_ABSENT, "family %s field #%zu is absent", l->family, i);
		T_CHECK(f[i] >= l->object.size && f[i] + 4 <= l->klass.size,
			"family %s field #%zu at %u outside [%u, %u)", l->family, i, f[i],
			l->object.size, l->klass.size);
		for (size_t j = 0; j < i; j++)
			T_CHECK(f[i] != f[j], "family %s fields #%zu and #%zu share offset %u",
				l->family, i, j, f[i]);
	}
}

int main(void)
{
	T_SECTION("lookups");
	T_EQ_S(art_layout_by_image_version(85)->family, "11");
	T_EQ_S(art_layout_by_image_version(74)->family, "10");
	T_EQ_S(art_layout_by_oat_version(183)->family, "11");
	T_EQ_S(art_layout_by_oat_version(170)->family, "10");
	T_CHECK(art_layout_by_oat_version(0) == NULL, "oat 0 matched");
	T_CHECK(art_layout_by_image_version(999) == NULL, "image 999 matched");
	T_CHECK(art_layout_by_family("nonsense") == NULL, "bogus family matched");
	T_CHECK(art_layout_by_family(NULL) == NULL, "NULL family matched");

	T_SECTION("12-15 rows (doc/android12-16.md): image and OAT versions, what differs");
	static const struct { unsigned image, oat; const char *fam; } mod[] = {
		{ 99, 195, "12" }, { 99, 199, "12" }, { 101, 200, "13" }, { 106, 225, "13" },
		{ 108, 239, "14" }, { 111, 244, "15" }, { 118, 259, "16" },
		{ 118, 265, "16" },
	};
	for (size_t i = 0; i < sizeof(mod) / sizeof(mod[0]); i++) {
		const struct art_layout *a = art_layout_by_image_version(mod[i].image);
		const struct art_layout *b = art_layout_by_oat_version(mod[i].oat);
		T_CHECK(a && !strcmp(a->family, mod[i].fam), "image %03u -> %s", mod[i].image, a ? a->family : "none");
		T_CHECK(b && !strcmp(b->family, mod[i].fam), "oat %u -> %s", mod[i].oat, b ? b->family : "none");
	}
	/* image 108 holds two rows: oat 226-230 (14 as released, no ClassLoader.name_) and
	 * 231-239; the image version alone gives the newer */
	{
		const struct art_layout *a = art_layout_by_versions(108, 230), *b = art_layout_by_versions(108, 231),
					*c = art_layout_by_versions(108, 0), *o = art_layout_by_oat_version(230);
		T_CHECK(a && !strcmp(a->family, "14-oat230") && o == a, "image 108 + oat 230 -> %s, oat 230 -> %s",
			a ? a->family : "none", o ? o->family : "none");
		T_CHECK(b && !strcmp(b->family, "14") && c == b && art_layout_by_image_version(108) == b,
			"image 108 + oat 231 / unknown -> %s", b ? b->family : "none");
		T_CHECK(a && b && art_layout_image_shared(a) && art_layout_image_shared(b) &&
				!art_layout_image_shared(art_layout_by_family("15")),
			"108 shared by two rows, 111 by one");
		T_CHECK(a && b && a->class_loader.parent == 12 && a->class_loader.packages == 8 &&
				b->class_loader.parent == 16 && b->class_loader.packages == 12,
			"ClassLoader: parent_ at 12 (oat 230) and 16 (name_ first, oat 231+)");
		T_CHECK(a && b && !art_layout_same_objects(a, b) && art_layout_same_but_class_loader(a, b),
			"14-oat230 and 14 differ in ClassLoader only");
		T_CHECK(art_layout_by_versions(108, 244) == b && art_layout_by_versions(999, 230) == NULL,
			"an OAT version outside the image's rows gives its default; an unknown image none");
	}
	T_CHECK(art_layout_by_image_version(107) == NULL && art_layout_by_image_version(109) == NULL,
		"dev-only image versions 107 and 109 have no row");
	/* 12-13 and 14-15 read every managed object alike; 13 -> 14 changes DexCache, ClassLoader;
	 * 11 -> 12 only where LinkFields puts small fields into alignment gaps */
	T_CHECK(art_layout_by_family("11") && art_layout_by_family("12") &&
			art_layout_same_but_link(art_layout_by_family("11"), art_layout_by_family("12")) &&
			!art_layout_same_but_link(art_layout_by_family("10"), art_layout_by_family("11")),
		"11 and 12 differ in the LinkFields rule only, 10 and 11 in more");
	static const struct { const char *a, *b; bool same; } alike[] = {
		{ "11", "12", false }, { "12", "13", true }, { "14", "15", true }, { "13", "14", false },
		{ "10", "11", false }, { "9", "10", false },
	};
	for (size_t i = 0; i < sizeof(alike) / sizeof(alike[0]); i++) {
		const struct art_layout *a = art_layout_by_family(alike[i].a), *b = art_layout_by_family(alike[i].b);
		T_CHECK(a && b && art_layout_same_objects(a, b) == alike[i].same, "%s vs %s: objects %s",
			alike[i].a, alike[i].b, alike[i].same ? "alike" : "differ");
	}
	const struct art_layout *l12 = art_layout_by_family("12"), *l11 = art_layout_by_family("11");
	T_CHECK(l12 && l11 && l12->art_method_size[1] == 32 && l11->art_method_size[1] == 40 &&
			l12->art_method.dex_code_item_offset == ART_ABSENT,
		"ArtMethod loses dex_code_item_offset_ in 12 (40 -> 32 bytes on 64-bit)");

	T_SECTION("16 (doc/android12-16.md, R16): Class.fields_ replaces ifields_/sfields_");
	const struct art_layout *l16 = art_layout_by_family("16"), *l15 = art_layout_by_family("15");
	T_CHECK(l16 && l15, "rows 15 and 16");
	if (l16 && l15) {
		T_EQ_U(l16->klass.size, 112);
		T_EQ_U(l16->klass.ifields, 40);
		T_EQ_U(l16->klass.methods, 48);
		T_CHECK(l16->klass.sfields == ART_ABSENT && l16->fields_merged && !l15->fields_merged,
			"16: no sfields_, one fields_ array");
		T_EQ_U(l16->klass.access_flags, 56);
		T_EQ_U(l16->klass.class_flags, 60);
		T_EQ_U(l16->klass.class_size, 64);
		T_EQ_U(l16->klass.object_size, 88);
		T_EQ_U(l16->klass.primitive_type, 96);
		T_EQ_U(l16->klass.status, 104);
		T_EQ_U(l16->klass.virtual_methods_offset, 110);
		T_EQ_U(l16->image->header_size, 264);
		T_EQ_U(l16->image->section_count, 13);
		T_CHECK(!art_layout_same_objects(l15, l16), "15 and 16 read Class objects differently");
		T_CHECK(!memcmp(&l15->class_loader, &l16->class_loader, sizeof(l15->class_loader)) &&
				!memcmp(&l15->dex_cache, &l16->dex_cache, sizeof(l15->dex_cache)) &&
				!memcmp(&l15->art_method, &l16->art_method, sizeof(l15->art_method)),
			"16: ClassLoader, DexCache and ArtMethod as 15");
	}
	T_CHECK(art_layout_by_oat_version(254) == NULL && art_layout_by_oat_version(245) == NULL,
		"main-line OAT versions 245-254 (fields_ merged at 254 without a bump) have no row");

	T_SECTION("ART 11 facts (runtime/mirror/*.h @ android-11)");
	const struct art_layout *l = art_layout_by_family("11");
	T_CHECK(l != NULL, "no row 11");
	if (l) {
		T_EQ_U(l->klass.super_class, 32);
		T_EQ_U(l->klass.object_size, 96);
		T_EQ_U(l->klass.ifields, 40);
		T_EQ_U(l->klass.dex_type_idx, 84);
		T_EQ_U(l->klass.size, 120);
		T_EQ_U(l->dex_cache.location, 12);
		T_EQ_U(l->dex_cache.dex_file, 16);
		T_EQ_U(l->image->off.image_roots, 64);
		T_EQ_U(l->image->header_size, 256);
		T_EQ_U(l->art_method_size[art_ptr_index(8)], 40);
		T_EQ_U(l->art_method_size[art_ptr_index(4)], 28);
		T_EQ_U(art_layout_field_offset(l, 2), 36);
	}
	T_SECTION("5.x/6.0 facts (runtime/mirror/string.h, class_loader.h, class_linker.cc)");
	l = art_layout_by_family("5.0");
	T_CHECK(l != NULL, "no row 5.0");
	if (l) {
		T_EQ_U(l->string.array, 8);
		T_EQ_U(l->string.count, 12);
		T_EQ_U(l->string.offset, 20);
		T_EQ_U(l->string.size, 24);
		T_EQ_U(l->field_link, ART_LINK_5_0);
		T_EQ_U(l->class_loader.parent, 12);
		T_EQ_U(l->class_loader.size, 20);
	}
	l = art_layout_by_family("5.1");
	T_CHECK(l && l->field_link == ART_LINK_5_1 && l->string.value == ART_ABSENT, "row 5.1");
	l = art_layout_by_family("6.0");
	T_CHECK(l && l->field_link == ART_LINK_SHUFFLE && l->string.value == 16 && !l->string.compressible,
		"row 6.0");
	l = art_layout_by_family("7.0");
	T_CHECK(l && l->class_loader.allocator == 24 && l->class_loader.class_table == 32 &&
			l->class_loader.size == 40,
		"row 7.0 class loader");
	l = art_layout_by_family("10");
	T_CHECK(l != NULL, "no row 10");
	if (l) {
		T_EQ_U(l->dex_cache.location, 8);
		T_EQ_U(l->image->off.pointer_size, 60);
	}

	T_SECTION("row invariants");
	for (size_t i = 0; i < art_layout_count; i++) {
		const struct art_layout *r = &art_layouts[i];
		check_class_row(r);
		T_CHECK(art_layout_by_family(r->family) == r, "family %s not unique", r->family);
		T_CHECK(r->oat_version_min <= r->oat_version_max, "family %s oat range", r->family);
		/* ClassStatus: Initialized is >= 10 in every family and kRetired is inside the range */
		T_CHECK(r->klass.status_min < r->klass.status_max && r->klass.status_max >= 10 &&
				r->klass.status_retired >= r->klass.status_min &&
				r->klass.status_retired <= r->klass.status_max,
			"family %s status range %d..%d retired %d", r->family, r->klass.status_min,
			r->klass.status_max, r->klass.status_retired);
		T_CHECK(r->art_method_size[0] <= r->art_method_size[1], "family %s method sizes", r->family);
		/* every row names its LinkFields rule; String is 5.x-style (char[] + offset_) or
		 * inline, never both; the ClassLoader's native fields come together */
		T_CHECK(r->field_link == ART_LINK_5_0 || r->field_link == ART_LINK_5_1 ||
				r->field_link == ART_LINK_SHUFFLE || r->field_link == ART_LINK_GAPS,
			"family %s field link rule %d", r->family, (int)r->field_link);
		/* LinkFieldsHelper (smallest gap first) from platform/art c7993d55b2 at oat 190 */
		T_CHECK((r->field_link == ART_LINK_GAPS) == (r->oat_version_min >= 190),
			"family %s (oat %u+): field link rule %d", r->family, r->oat_version_min, (int)r->field_link);
		T_CHECK((r->string.value == ART_ABSENT) == (r->string.array != ART_ABSENT) &&
				(r->string.array == ART_ABSENT) == (r->string.offset == ART_ABSENT),
			"family %s string row", r->family);
		T_CHECK(r->string.count + 4 <= r->string.size && r->string.hash + 4 <= r->string.size &&
				(r->string.value == ART_ABSENT || r->string.value == r->string.size),
			"family %s string size %u", r->family, r->string.size);
		T_CHECK((r->class_loader.allocator == ART_ABSENT) == (r->class_loader.class_table == ART_ABSENT) &&
				r->class_loader.parent + 4 <= r->class_loader.size,
			"family %s class loader row", r->family);
		/* counts only beside native arrays; 14+ native arrays carry no counts (the DexFile
		 * header has them, runtime/mirror/dex_cache.h @R14U) */
		T_CHECK(r->dex_cache.native_arrays == (r->dex_cache.num_strings != ART_ABSENT) ||
				(r->dex_cache.native_arrays && r->dex_cache.size >= 112),
			"family %s dex cache arrays", r->family);
		/* 5.x headers have no pointer size (ART_ABSENT) */
		T_CHECK(r->image->off.pointer_size == ART_ABSENT || r->image->off.pointer_size + 4 <= r->image->header_size,
			"family %s image header", r->family);
	}
	T_DONE();
}
