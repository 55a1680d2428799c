/* art_layout.c - the layout table: one row per ART layout family.
 *
 * Row sources (platform/art, GrapheneOS mirror of the AOSP commits; see
 * docs/art-layouts.md §0): "10" = tag QQ3A.200805.001.2020.09.11.14 (image 074, oat 170),
 * "11" = tag RP1A.200720.009.2020.09.25.00 (image 085, oat 183).  Files read for each:
 * runtime/image.h (ImageHeader), runtime/mirror/object.h, class.h, string.h, array.h,
 * dex_cache.h, runtime/art_field.h, runtime/art_method.h, libdexfile/dex/dex_file.h,
 * libartbase/base/length_prefixed_array.h.  Rows for 5.0-9 are added by the artimg helper. */
#include "art/art_layout.h"

#include <stdlib.h>
#include <string.h>

/* mirror::Class data members are identical in 8.0-14 (runtime/mirror/class.h @R10, @R11):
 * 8 class_loader_, 12 component_type_, 16 dex_cache_, 20 ext_data_, 24 iftable_, 28 name_,
 * 32 super_class_, 36 vtable_, 40 ifields_ (u64), 48 methods_ (u64), 56 sfields_ (u64),
 * 64 access_flags_, 68 class_flags_, 72 class_size_, 76 clinit_thread_id_,
 * 80 dex_class_def_idx_, 84 dex_type_idx_, 88 num_reference_instance_fields_,
 * 92 num_reference_static_fields_, 96 object_size_, 100 object_size_alloc_fast_path_,
 * 104 primitive_type_, 108 reference_instance_offsets_, 112 status_,
 * 116 copied_methods_offset_ (u16), 118 virtual_methods_offset_ (u16); end 120.
 * ClassStatus (runtime/class_status.h @R9-R14) is status_ >> 28: 0 NotReady, 1 Retired, ...,
 * 14 Initialized, 15 VisiblyInitialized (11; 10 stops at 14, 15 is unused). */
#define CLASS_8_TO_14                                                                          \
	.klass = { .class_loader = 8, .component_type = 12, .dex_cache = 16, .ext_data = 20,      \
		   .iftable = 24, .name = 28, .super_class = 32, .vtable = 36, .ifields = 40,       \
		   .methods = 48, .sfields = 56, .access_flags = 64, .class_flags = 68,             \
		   .class_size = 72, .clinit_thread_id = 76, .dex_class_def_idx = 80,               \
		   .dex_type_idx = 84, .num_reference_instance_fields = 88,                         \
		   .num_reference_static_fields = 92, .object_size = 96,                            \
		   .object_size_alloc_fast_path = 100, .primitive_type = 104,                       \
		   .reference_instance_offsets = 108, .status = 112, .copied_methods_offset = 116,  \
		   .virtual_methods_offset = 118, .num_instance_fields = ART_ABSENT, .size = 120,   \
		   .status_shift = 28, .status_min = 0, .status_max = 15, .status_retired = 1,   \
		   .primitive_mask = 0xffff }

/* mirror::Object: klass_ 0, monitor_ 4 (no Brooks fields in production builds) */
#define OBJECT_HEADER .object = { .klass = 0, .monitor = 4, .size = 8 }
/* mirror::String 8.0+: count_ 8 (length << 1 | uncompressed flag), hash_code_ 12, chars 16 */
#define STRING_COMPRESSIBLE .string = { .count = 8, .hash = 12, .value = 16, .compressible = true }
/* mirror::Array: length_ 8, first_element_ 12 */
#define ARRAY_12 .array = { .length = 8, .data = 12 }
/* art::ArtField 6.0+: declaring_class_ 0 (GcRoot), access_flags_ 4, field_dex_idx_ 8, offset_ 12;
 * LengthPrefixedArray<ArtField>: u32 size_ then elements aligned to alignof(ArtField) = 4 */
#define ART_FIELD_NATIVE                                                                       \
	.field_storage = ART_FIELDS_LPA, .field_array_header = 4, .art_field_size = 16,           \
	.art_field = { .declaring_class = 0, .access_flags = 4, .field_dex_idx = 8, .offset = 12 }
/* art::ArtMethod 9-11: declaring_class_ 0, access_flags_ 4, dex_code_item_offset_ 8,
 * dex_method_index_ 12, method_index_ 16 (u16), hotness_count_/imt_index_ 18 (u16), then
 * PtrSizedFields { data_, entry_point_from_quick_compiled_code_ } at RoundUp(20, P) */
#define ART_METHOD_9_TO_11                                                                     \
	.art_method_size = { 28, 40 },                                                             \
	.art_method = { .declaring_class = 0, .access_flags = 4, .dex_code_item_offset = 8,       \
			.dex_method_index = 12, .method_index = 16, .data = { 20, 24 },             \
			.entry_point_quick = { 24, 32 } }

const struct art_layout art_layouts[] = {
	{
		.family = "10", .image_versions = "074", .oat_version_min = 170, .oat_version_max = 170,
		/* runtime/image.h @R10: image_begin_ 16, image_size_ 20, image_roots_ 56,
		 * pointer_size_ 60, sections_[12] 64; sizeof 248 */
		.image = { .image_begin = 16, .image_size = 20, .image_roots = 56, .pointer_size = 60,
			   .sections = 64, .header_size = 248 },
		OBJECT_HEADER, CLASS_8_TO_14, STRING_COMPRESSIBLE, ARRAY_12, ART_FIELD_NATIVE,
		ART_METHOD_9_TO_11,
		/* runtime/mirror/dex_cache.h @R10: location_ 8, num_preresolved_strings_ 12,
		 * dex_file_ 16, preresolved_strings_ 24, resolved_call_sites_ 32,
		 * resolved_fields_ 40, resolved_method_types_ 48, resolved_methods_ 56,
		 * resolved_types_ 64, strings_ 72, num_resolved_call_sites_ 80 ... num_resolved_types_
		 * 96, num_strings_ 100; end 104 */
		.dex_cache = { .location = 8, .dex_file = 16, .strings = 72, .resolved_types = 64,
			       .num_strings = 100, .num_resolved_types = 96, .size = 104 },
		/* libdexfile/dex/dex_file.h @R10: vtable, begin_, size_, data_begin_, data_size_ */
		.dex_file = { .begin_slot = 1, .data_begin_slot = 3 },
	},
	{
		.family = "11", .image_versions = "085", .oat_version_min = 183, .oat_version_max = 183,
		/* runtime/image.h @R11: adds boot_image_component_count_/checksum_ at 56/60:
		 * image_roots_ 64, pointer_size_ 68, sections_[12] 72; sizeof 256 */
		.image = { .image_begin = 16, .image_size = 20, .image_roots = 64, .pointer_size = 68,
			   .sections = 72, .header_size = 256 },
		OBJECT_HEADER, CLASS_8_TO_14, STRING_COMPRESSIBLE, ARRAY_12, ART_FIELD_NATIVE,
		ART_METHOD_9_TO_11,
		/* runtime/mirror/dex_cache.h @R11: class_loader_ 8, location_ 12, dex_file_ 16,
		 * preresolved_strings_ 24, resolved_call_sites_ 32, resolved_fields_ 40,
		 * resolved_method_types_ 48, resolved_methods_ 56, resolved_types_ 64, strings_ 72,
		 * num_preresolved_strings_ 80, num_resolved_call_sites_ 84 ... num_resolved_types_
		 * 100, num_strings_ 104; end 108 */
		.dex_cache = { .location = 12, .dex_file = 16, .strings = 72, .resolved_types = 64,
			       .num_strings = 104, .num_resolved_types = 100, .size = 108 },
		.dex_file = { .begin_slot = 1, .data_begin_slot = 3 },
	},
};

const size_t art_layout_count = sizeof(art_layouts) / sizeof(art_layouts[0]);

const struct art_layout *art_layout_by_family(const char *family)
{
	for (size_t i = 0; family && i < art_layout_count; i++)
		if (!strcmp(art_layouts[i].family, family))
			return &art_layouts[i];
	return NULL;
}

/* True when "ddd" (three digits) of v occurs as a comma-separated item of list. */
static bool version_listed(const char *list, unsigned v)
{
	for (const char *p = list; p && *p;) {
		char *end;
		unsigned long x = strtoul(p, &end, 10);
		if (end == p)
			return false;
		if (x == v)
			return true;
		p = *end == ',' ? end + 1 : end;
	}
	return false;
}

const struct art_layout *art_layout_by_image_version(unsigned image_version)
{
	for (size_t i = 0; i < art_layout_count; i++)
		if (version_listed(art_layouts[i].image_versions, image_version))
			return &art_layouts[i];
	return NULL;
}

const struct art_layout *art_layout_by_oat_version(unsigned oat_version)
{
	for (size_t i = 0; i < art_layout_count; i++)
		if (oat_version >= art_layouts[i].oat_version_min &&
		    oat_version <= art_layouts[i].oat_version_max)
			return &art_layouts[i];
	return NULL;
}

size_t art_layout_field_offset(const struct art_layout *l, size_t i)
{
	return l->field_array_header + i * l->art_field_size;
}
