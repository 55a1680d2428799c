/* art_layout.c - the layout table: one row per ART layout family.
 *
 * Row sources (platform/art, GrapheneOS mirror of the AOSP commits; see
 * doc/sources.md): "10" = tag QQ3A.200805.001.2020.09.11.14 (image 074, oat 170),
 * "11" = tag RP1A.200720.009.2020.09.25.00 (image 085, oat 183).  Files read for each:
 * runtime/image.h (ImageHeader), runtime/mirror/object.h, class.h, string.h, array.h,
 * dex_cache.h, runtime/art_field.h, runtime/art_method.h, libdexfile/dex/dex_file.h,
 * libartbase/base/length_prefixed_array.h; rows for 5.0-9 from the same files at R50..R9;
 * rows 12-16 from the release tags and commits of doc/android12-16.md (labels R12S..R16). */
#include "art/format/art_layout.h"

#include <string.h>

/* mirror::Class data members are identical in 8.0-15 (runtime/mirror/class.h @R10, @R11,
 * @R12S, @R13T, @R14U, @R15):
 * 8 class_loader_, 12 component_type_, 16 dex_cache_, 20 ext_data_, 24 iftable_, 28 name_,
 * 32 super_class_, 36 vtable_, 40 ifields_ (u64), 48 methods_ (u64), 56 sfields_ (u64),
 * 64 access_flags_, 68 class_flags_, 72 class_size_, 76 clinit_thread_id_,
 * 80 dex_class_def_idx_, 84 dex_type_idx_, 88 num_reference_instance_fields_,
 * 92 num_reference_static_fields_, 96 object_size_, 100 object_size_alloc_fast_path_,
 * 104 primitive_type_, 108 reference_instance_offsets_, 112 status_,
 * 116 copied_methods_offset_ (u16), 118 virtual_methods_offset_ (u16); end 120.
 * ClassStatus (runtime/class_status.h @R9-R14) is status_ >> 28: 0 NotReady, 1 Retired, ...,
 * 14 Initialized, 15 VisiblyInitialized (11-15; 10 stops at 14, 15 is unused). */
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

/* mirror::Class 16 (runtime/mirror/class.h @R16, "Merge sFields and iFields", 2025-01-16):
 * sfields_ is gone and ifields_ became fields_ (u64), so every member after methods_ moves
 * up 8 bytes: 8 class_loader_ ... 36 vtable_, 40 fields_ (u64), 48 methods_ (u64),
 * 56 access_flags_, 60 class_flags_, 64 class_size_, 68 clinit_thread_id_,
 * 72 dex_class_def_idx_, 76 dex_type_idx_, 80 num_reference_instance_fields_,
 * 84 num_reference_static_fields_, 88 object_size_, 92 object_size_alloc_fast_path_,
 * 96 primitive_type_, 100 reference_instance_offsets_, 104 status_,
 * 108 copied_methods_offset_ (u16), 110 virtual_methods_offset_ (u16); end 112.
 * ClassStatus as 9-15 (runtime/class_status.h @R16). */
#define CLASS_16                                                                               \
	.klass = { .class_loader = 8, .component_type = 12, .dex_cache = 16, .ext_data = 20,      \
		   .iftable = 24, .name = 28, .super_class = 32, .vtable = 36, .ifields = 40,       \
		   .methods = 48, .sfields = ART_ABSENT, .access_flags = 56, .class_flags = 60,     \
		   .class_size = 64, .clinit_thread_id = 68, .dex_class_def_idx = 72,               \
		   .dex_type_idx = 76, .num_reference_instance_fields = 80,                         \
		   .num_reference_static_fields = 84, .object_size = 88,                            \
		   .object_size_alloc_fast_path = 92, .primitive_type = 96,                         \
		   .reference_instance_offsets = 100, .status = 104, .copied_methods_offset = 108,  \
		   .virtual_methods_offset = 110, .num_instance_fields = ART_ABSENT, .size = 112,   \
		   .status_shift = 28, .status_min = 0, .status_max = 15, .status_retired = 1,      \
		   .primitive_mask = 0xffff }

/* mirror::Object: klass_ 0, monitor_ 4 (no Brooks fields in production builds) */
#define OBJECT_HEADER .object = { .klass = 0, .monitor = 4, .size = 8 }
/* mirror::String 8.0+: count_ 8 (length << 1 | uncompressed flag), hash_code_ 12, chars 16 */
#define STRING_COMPRESSIBLE                                                                    \
	.string = { .count = 8, .hash = 12, .value = 16, .array = ART_ABSENT, .offset = ART_ABSENT, \
		    .size = 16, .compressible = true }
/* mirror::Array: length_ 8, first_element_ 12 */
#define ARRAY_12 .array = { .length = 8, .data = 12 }
/* art::ArtField 6.0+: declaring_class_ 0 (GcRoot), access_flags_ 4, field_dex_idx_ 8, offset_ 12;
 * LengthPrefixedArray<ArtField>: u32 size_ then elements aligned to alignof(ArtField) = 4 */
#define ART_FIELD_NATIVE_WITH(link)                                                            \
	.field_storage = ART_FIELDS_LPA, .field_array_header = 4, .art_field_size = 16,           \
	.field_link = (link),                                                                     \
	.art_field = { .declaring_class = 0, .access_flags = 4, .field_dex_idx = 8, .offset = 12 }
#define ART_FIELD_NATIVE ART_FIELD_NATIVE_WITH(ART_LINK_SHUFFLE)
/* 12+: "Rewrite gap filling to prefer small gaps over big ones" (platform/art commit
 * c7993d55b2, 2021-01-27, at oat 190, so in every 12 release (oat 195+); runtime/
 * class_linker.cc LinkFieldsHelper @R12S..R16) */
#define ART_FIELD_NATIVE_12 ART_FIELD_NATIVE_WITH(ART_LINK_GAPS)
/* art::ArtMethod 9-11: declaring_class_ 0, access_flags_ 4, dex_code_item_offset_ 8,
 * dex_method_index_ 12, method_index_ 16 (u16), hotness_count_/imt_index_ 18 (u16), then
 * PtrSizedFields { data_, entry_point_from_quick_compiled_code_ } at RoundUp(20, P) */
#define ART_METHOD_9_TO_11                                                                     \
	.art_method_size = { 28, 40 },                                                             \
	.art_method = { .declaring_class = 0, .access_flags = 4, .dex_code_item_offset = 8,       \
			.dex_method_index = 12, .method_index = 16, .data = { 20, 24 },             \
			.entry_point_quick = { 24, 32 } }

/* ---- rows 5.0-9.  Offsets read from the data members of
 * runtime/mirror/{class,string,array,dex_cache}.h, runtime/mirror/art_field.h and
 * art_method.h (5.x), runtime/art_field.h and art_method.h (6.0+), runtime/image.h at the
 * reference commits R50 ... R9 (doc/sources.md), member by member with C++
 * alignment (u64 fields 8-aligned).  Checked on the corpus boot images 7.0-9 by the
 * object walk (art/mirror/mirror_walk.c): every object size derived from these rows lands on
 * the next live-bitmap bit and the walk ends exactly at the objects section end. ---- */

/* mirror::String 5.x (runtime/mirror/string.h @ android-5.0.0_r5, android-5.1.0_r1): 8 array_
 * (char[]), 12 count_, 16 hash_code_, 20 offset_; fixed size 24, the chars are not inline
 * (value absent): count_ chars of array_ from element offset_ (String::CharAt, string-inl.h) */
#define STRING_5X                                                                              \
	.string = { .count = 12, .hash = 16, .value = ART_ABSENT, .array = 8, .offset = 20,       \
		    .size = 24, .compressible = false }
/* mirror::String 6.0-7.1: 8 count_ (length), 12 hash_code_, 16 UTF-16 chars */
#define STRING_UTF16                                                                           \
	.string = { .count = 8, .hash = 12, .value = 16, .array = ART_ABSENT, .offset = ART_ABSENT, \
		    .size = 16, .compressible = false }
/* 5.x mirror::ArtField objects (runtime/mirror/art_field.h @R50/R51): 8 declaring_class_,
 * 12 access_flags_, 16 field_dex_idx_, 20 offset_, size 24; Class.ifields_ is a reference
 * to an ObjectArray<ArtField> (references from +12, not inline structs) */
#define ART_FIELD_5X                                                                           \
	.field_storage = ART_FIELDS_OBJECT_ARRAY, .field_array_header = 12, .art_field_size = 24, \
	.art_field = { .declaring_class = 8, .access_flags = 12, .field_dex_idx = 16, .offset = 20 }
/* mirror::DexCache 5.0-6.0 (runtime/mirror/dex_cache.h @R50/R51/R60): 8 dex_, 12 location_,
 * 16 resolved_fields_, 20 resolved_methods_, 24 resolved_types_, 28 strings_ (managed
 * arrays), 32 dex_file_ (u64); end 40 */
#define DEX_CACHE_5X                                                                           \
	.dex_cache = { .location = 12, .dex_file = 32, .strings = 28, .resolved_types = 24,       \
		       .num_strings = ART_ABSENT, .num_resolved_types = ART_ABSENT, .size = 40,     \
		       .strings_array = ART_ABSENT, .native_arrays = false }
/* mirror::DexCache 7.0/7.1 (@R70/R71): 8 dex_, 12 location_, 16 dex_file_, 24
 * resolved_fields_, 32 resolved_methods_, 40 resolved_types_, 48 strings_ (u64 native
 * arrays), 56 num_resolved_fields_, 60 num_resolved_methods_, 64 num_resolved_types_,
 * 68 num_strings_; end 72 */
#define DEX_CACHE_7X                                                                           \
	.dex_cache = { .location = 12, .dex_file = 16, .strings = 48, .resolved_types = 40,       \
		       .num_strings = 68, .num_resolved_types = 64, .size = 72,                     \
		       .strings_array = ART_ABSENT, .native_arrays = true }
/* mirror::DexCache 8.0-9 (@R80/R81/R9): 8 location_, 12 num_resolved_call_sites_,
 * 16 dex_file_, 24 resolved_call_sites_, 32 resolved_fields_, 40 resolved_method_types_,
 * 48 resolved_methods_, 56 resolved_types_, 64 strings_, 72 num_resolved_fields_,
 * 76 num_resolved_method_types_, 80 num_resolved_methods_, 84 num_resolved_types_,
 * 88 num_strings_; end 92 */
#define DEX_CACHE_8_TO_9                                                                       \
	.dex_cache = { .location = 8, .dex_file = 16, .strings = 64, .resolved_types = 56,        \
		       .num_strings = 88, .num_resolved_types = 84, .size = 92,                     \
		       .strings_array = ART_ABSENT, .native_arrays = true }
/* art::DexFile 5.0-8.1 (runtime/dex_file.h): virtual, begin_ after the vtable; no data_begin_ */
#define DEX_FILE_NO_DATA .dex_file = { .begin_slot = 1, .data_begin_slot = ART_ABSENT }
/* mirror::Class 8.0/8.1: as 9-14 but status_ is the plain Status enum (no shift): -3 Retired,
 * -2/-1 errors, 0 NotReady ... 10 Initialized (8.0) / 11 Initialized (8.1 adds
 * SuperclassValidated 9) (runtime/mirror/class.h @R80/R81) */
#define CLASS_8X(max)                                                                          \
	.klass = { .class_loader = 8, .component_type = 12, .dex_cache = 16, .ext_data = 20,      \
		   .iftable = 24, .name = 28, .super_class = 32, .vtable = 36, .ifields = 40,       \
		   .methods = 48, .sfields = 56, .access_flags = 64, .class_flags = 68,             \
		   .class_size = 72, .clinit_thread_id = 76, .dex_class_def_idx = 80,               \
		   .dex_type_idx = 84, .num_reference_instance_fields = 88,                         \
		   .num_reference_static_fields = 92, .object_size = 96,                            \
		   .object_size_alloc_fast_path = 100, .primitive_type = 104,                       \
		   .reference_instance_offsets = 108, .status = 112, .copied_methods_offset = 116,  \
		   .virtual_methods_offset = 118, .num_instance_fields = ART_ABSENT, .size = 120,   \
		   .status_shift = 0, .status_min = -3, .status_max = (max), .status_retired = -3,  \
		   .primitive_mask = 0xffff }
/* ClassStatus 5.0-7.1: int32 -2 kStatusRetired ... 10 kStatusInitialized (class.h @R50..R71).
 * mirror::Class 7.0/7.1 (@R70/R71): 8 annotation_type_, 12 class_loader_, 16
 * component_type_, 20 dex_cache_, 24 iftable_, 28 name_, 32 super_class_, 36 verify_error_,
 * 40 vtable_, 44 access_flags_, 48 dex_cache_strings_ (u64), 56 ifields_ (u64), 64 methods_
 * (u64), 72 sfields_ (u64), 80 class_flags_, 84 class_size_, 88 clinit_thread_id_,
 * 92 dex_class_def_idx_, 96 dex_type_idx_, 100 num_reference_instance_fields_,
 * 104 num_reference_static_fields_, 108 object_size_, 112 primitive_type_,
 * 116 reference_instance_offsets_, 120 status_, 124 copied_methods_offset_ (u16),
 * 126 virtual_methods_offset_ (u16); end 128 */
#define CLASS_7X                                                                               \
	.klass = { .class_loader = 12, .component_type = 16, .dex_cache = 20,                     \
		   .ext_data = ART_ABSENT, .iftable = 24, .name = 28, .super_class = 32,            \
		   .vtable = 40, .ifields = 56, .methods = 64, .sfields = 72, .access_flags = 44,   \
		   .class_flags = 80, .class_size = 84, .clinit_thread_id = 88,                     \
		   .dex_class_def_idx = 92, .dex_type_idx = 96,                                     \
		   .num_reference_instance_fields = 100, .num_reference_static_fields = 104,        \
		   .object_size = 108, .object_size_alloc_fast_path = ART_ABSENT,                   \
		   .primitive_type = 112, .reference_instance_offsets = 116, .status = 120,         \
		   .copied_methods_offset = 124, .virtual_methods_offset = 126,                     \
		   .num_instance_fields = ART_ABSENT, .size = 128, .status_shift = 0,               \
		   .status_min = -2, .status_max = 10, .status_retired = -2, .primitive_mask = 0xffff }
/* art::ArtMethod 7.0/7.1 (runtime/art_method.h @R70/R71): 0 declaring_class_, 4 access_flags_,
 * 8 dex_code_item_offset_, 12 dex_method_index_, 16 method_index_ (u16), 18 hotness_count_
 * (u16), PtrSizedFields {dex_cache_resolved_methods_, dex_cache_resolved_types_, jni, quick}
 * at RoundUp(20, P): 20/24/28/32 (size 36), 24/32/40/48 (size 56); data = the JNI entry */
#define ART_METHOD_7X                                                                          \
	.art_method_size = { 36, 56 },                                                             \
	.art_method = { .declaring_class = 0, .access_flags = 4, .dex_code_item_offset = 8,       \
			.dex_method_index = 12, .method_index = 16, .data = { 28, 40 },             \
			.entry_point_quick = { 32, 48 } }
/* art::ArtMethod 8.0/8.1 (@R80/R81): fixed part as 7.x, PtrSizedFields
 * {dex_cache_resolved_methods_, data_, quick}: 20/24/28 (size 32), 24/32/40 (size 48) */
#define ART_METHOD_8X                                                                          \
	.art_method_size = { 32, 48 },                                                             \
	.art_method = { .declaring_class = 0, .access_flags = 4, .dex_code_item_offset = 8,       \
			.dex_method_index = 12, .method_index = 16, .data = { 24, 32 },             \
			.entry_point_quick = { 28, 40 } }
/* mirror::ClassLoader (runtime/mirror/class_loader.h @ android-5.0.0_r5 ... android-6.0.1_r22):
 * 8 packages_, 12 parent_, 16 proxyCache_; end 20 */
#define CLASS_LOADER_5X                                                                        \
	.class_loader = { .packages = 8, .parent = 12, .proxy_cache = 16, .allocator = ART_ABSENT, \
			  .class_table = ART_ABSENT, .size = 20 }
/* 7.0-11 (class_loader.h @ android-7.0 ... android-11): as 5.x, then 20 padding_,
 * 24 allocator_ (u64), 32 class_table_ (u64); end 40 */
#define CLASS_LOADER_7X                                                                        \
	.class_loader = { .packages = 8, .parent = 12, .proxy_cache = 16, .allocator = 24,        \
			  .class_table = 32, .size = 40 }
/* 14-15 (class_loader.h @R14U, @R15): name_ 8 first, then packages_ 12, parent_ 16,
 * proxyCache_ 20, allocator_ 24 (u64), class_table_ 32 (u64); end 40 (no padding_ any more) */
#define CLASS_LOADER_14                                                                        \
	.class_loader = { .packages = 12, .parent = 16, .proxy_cache = 20, .allocator = 24,       \
			  .class_table = 32, .size = 40 }
/* art::ArtMethod 12-15 (runtime/art_method.h @R12S, @R13T, @R14U, @R15): dex_code_item_offset_
 * is gone; declaring_class_ 0, access_flags_ 4, dex_method_index_ 8, method_index_ 12 (u16),
 * hotness_count_/imt_index_ 14 (u16), PtrSizedFields { data_, quick entry } at 16 */
#define ART_METHOD_12_TO_15                                                                    \
	.art_method_size = { 24, 32 },                                                             \
	.art_method = { .declaring_class = 0, .access_flags = 4, .dex_code_item_offset = ART_ABSENT, \
			.dex_method_index = 8, .method_index = 12, .data = { 16, 16 },              \
			.entry_point_quick = { 20, 24 } }
/* mirror::DexCache 11-13 (dex_cache.h @R11, @R12S, @R13T): class_loader_ 8, location_ 12,
 * dex_file_ 16, preresolved_strings_ 24, resolved_call_sites_ 32, resolved_fields_ 40,
 * resolved_method_types_ 48, resolved_methods_ 56, resolved_types_ 64, strings_ 72,
 * num_preresolved_strings_ 80 ... num_resolved_types_ 100, num_strings_ 104; end 108 */
#define DEX_CACHE_11_TO_13                                                                     \
	.dex_cache = { .location = 12, .dex_file = 16, .strings = 72, .resolved_types = 64,       \
		       .num_strings = 104, .num_resolved_types = 100, .size = 108,                  \
		       .strings_array = ART_ABSENT, .native_arrays = true }
/* mirror::DexCache 14-15 (dex_cache.h @R14U, @R15): class_loader_ 8, location_ 12, dex_file_
 * 16, then u64 pairs (hash-indexed cache, full array): resolved_call_sites_ 24,
 * resolved_fields_ 32/40, resolved_method_types_ 48/56, resolved_methods_ 64/72,
 * resolved_types_ 80/88, strings_ 96/104; end 112; no element counts (the sizes come from the
 * DexFile header) */
#define DEX_CACHE_14_TO_15                                                                     \
	.dex_cache = { .location = 12, .dex_file = 16, .strings = 96, .resolved_types = 80,       \
		       .num_strings = ART_ABSENT, .num_resolved_types = ART_ABSENT, .size = 112,    \
		       .strings_array = 104, .native_arrays = true }

/* ---- ImageHeader rows (runtime/image.h): one per header layout, every image version from
 * 009 (5.0) to 108 (14).  The offsets were read from the data members of `class ImageHeader`
 * in runtime/image.h at each release: PACKED(4) in 5.0-9, PACKED(8) in 10+ (sizeof rounded
 * to 8).  art_image.c parses a header with the row; art_layouts[] below points at the row of
 * its family. ---- */

#define NA ART_IMAGE_ABSENT

/* ImageHeader rows, one per header layout and family of art_layouts[] */
enum { IH_5_0, IH_5_1, IH_6_0, IH_7_0, IH_7_1, IH_8_0, IH_8_1, IH_9, IH_10, IH_11, IH_12, IH_13, IH_14,
       IH_15, IH_16 };

/* enum ImageMethod, runtime/image.h @R60/R70/R71 (6 entries), @R80/R81 (7), @R9+ (9) */
static const char *const methods_60[] = {
	"resolution", "imt-conflict", "imt-unimplemented", "callee-save", "refs-only-save",
	"refs-and-args-save",
};
static const char *const methods_80[] = {
	"resolution", "imt-conflict", "imt-unimplemented", "save-all-callee-saves", "save-refs-only",
	"save-refs-and-args", "save-everything", "save-everything-for-clinit",
	"save-everything-for-suspend-check",
};

/* enum ImageSections per version (runtime/image.h) */
#define SEC_60 { ART_SEC_OBJECTS, ART_SEC_ART_FIELDS, ART_SEC_ART_METHODS, ART_SEC_INTERNED_STRINGS, \
		 ART_SEC_IMAGE_BITMAP }
#define SEC_70 { ART_SEC_OBJECTS, ART_SEC_ART_FIELDS, ART_SEC_ART_METHODS, ART_SEC_RUNTIME_METHODS,  \
		 ART_SEC_IMT_CONFLICT_TABLES, ART_SEC_DEX_CACHE_ARRAYS, ART_SEC_INTERNED_STRINGS,    \
		 ART_SEC_CLASS_TABLE, ART_SEC_IMAGE_BITMAP }
#define SEC_71 { ART_SEC_OBJECTS, ART_SEC_ART_FIELDS, ART_SEC_ART_METHODS, ART_SEC_RUNTIME_METHODS,  \
		 ART_SEC_IM_TABLES, ART_SEC_IMT_CONFLICT_TABLES, ART_SEC_DEX_CACHE_ARRAYS,          \
		 ART_SEC_INTERNED_STRINGS, ART_SEC_CLASS_TABLE, ART_SEC_IMAGE_BITMAP }
#define SEC_10 { ART_SEC_OBJECTS, ART_SEC_ART_FIELDS, ART_SEC_ART_METHODS, ART_SEC_RUNTIME_METHODS,  \
		 ART_SEC_IM_TABLES, ART_SEC_IMT_CONFLICT_TABLES, ART_SEC_DEX_CACHE_ARRAYS,          \
		 ART_SEC_INTERNED_STRINGS, ART_SEC_CLASS_TABLE, ART_SEC_STRING_REFERENCE_OFFSETS,   \
		 ART_SEC_METADATA, ART_SEC_IMAGE_BITMAP }
#define SEC_12 { ART_SEC_OBJECTS, ART_SEC_ART_FIELDS, ART_SEC_ART_METHODS, ART_SEC_RUNTIME_METHODS,  \
		 ART_SEC_IM_TABLES, ART_SEC_IMT_CONFLICT_TABLES, ART_SEC_INTERNED_STRINGS,          \
		 ART_SEC_CLASS_TABLE, ART_SEC_STRING_REFERENCE_OFFSETS, ART_SEC_METADATA,           \
		 ART_SEC_IMAGE_BITMAP }
#define SEC_14 { ART_SEC_OBJECTS, ART_SEC_ART_FIELDS, ART_SEC_ART_METHODS, ART_SEC_RUNTIME_METHODS,  \
		 ART_SEC_IM_TABLES, ART_SEC_IMT_CONFLICT_TABLES, ART_SEC_INTERNED_STRINGS,          \
		 ART_SEC_CLASS_TABLE, ART_SEC_STRING_REFERENCE_OFFSETS, ART_SEC_DEX_CACHE_ARRAYS,   \
		 ART_SEC_METADATA, ART_SEC_IMAGE_BITMAP }
/* 15 (runtime/oat/image.h @R15): RuntimeMethods moved after the IMT sections and JniStubMethods
 * added, 13 sections */
#define SEC_15 { ART_SEC_OBJECTS, ART_SEC_ART_FIELDS, ART_SEC_ART_METHODS, ART_SEC_IM_TABLES,        \
		 ART_SEC_IMT_CONFLICT_TABLES, ART_SEC_RUNTIME_METHODS, ART_SEC_JNI_STUB_METHODS,    \
		 ART_SEC_INTERNED_STRINGS, ART_SEC_CLASS_TABLE, ART_SEC_STRING_REFERENCE_OFFSETS,   \
		 ART_SEC_DEX_CACHE_ARRAYS, ART_SEC_METADATA, ART_SEC_IMAGE_BITMAP }

/* 5.0/5.1 (runtime/image.h @R50/R51): no pointer size, sections or storage mode; the bitmap
 * is located by image_bitmap_offset/size (file offsets) */
#define OFF_5X(pic)                                                                              \
	{ .image_reservation_size = NA, .component_count = NA, .image_begin = 8, .image_size = 12,  \
	  .image_checksum = NA, .image_bitmap_offset = 16, .image_bitmap_size = 20,                 \
	  .oat_checksum = 24, .oat_file_begin = 28, .oat_data_begin = 32, .oat_data_end = 36,       \
	  .oat_file_end = 40, .boot_image_begin = NA, .boot_image_size = NA, .boot_oat_begin = NA,  \
	  .boot_oat_size = NA, .boot_image_component_count = NA, .boot_image_checksum = NA,         \
	  .patch_delta = 44, .image_roots = 48, .pointer_size = NA, .compile_pic = (pic),           \
	  .is_pic = NA, .sections = NA, .image_methods = NA, .storage_mode = NA, .data_size = NA,   \
	  .blocks_offset = NA, .blocks_count = NA }
/* 7.0-9 (runtime/image.h @R70..R9): boot image/oat ranges, is_pic, storage mode + data size
 * after the image methods */
#define OFF_7X(methods, storage)                                                                 \
	{ .image_reservation_size = NA, .component_count = NA, .image_begin = 8, .image_size = 12,  \
	  .image_checksum = NA, .image_bitmap_offset = NA, .image_bitmap_size = NA,                 \
	  .oat_checksum = 16, .oat_file_begin = 20, .oat_data_begin = 24, .oat_data_end = 28,       \
	  .oat_file_end = 32, .boot_image_begin = 36, .boot_image_size = 40, .boot_oat_begin = 44,  \
	  .boot_oat_size = 48, .boot_image_component_count = NA, .boot_image_checksum = NA,         \
	  .patch_delta = 52, .image_roots = 56, .pointer_size = 60, .compile_pic = 64,              \
	  .is_pic = 68, .sections = 72, .image_methods = (methods), .storage_mode = (storage),      \
	  .data_size = (storage) + 4, .blocks_offset = NA, .blocks_count = NA }
/* 10 (runtime/image.h @R10): reservation size + component count first, image checksum,
 * no patch delta / pic flags, compressed blocks */
#define OFF_10                                                                                   \
	{ .image_reservation_size = 8, .component_count = 12, .image_begin = 16, .image_size = 20,  \
	  .image_checksum = 24, .image_bitmap_offset = NA, .image_bitmap_size = NA,                 \
	  .oat_checksum = 28, .oat_file_begin = 32, .oat_data_begin = 36, .oat_data_end = 40,       \
	  .oat_file_end = 44, .boot_image_begin = 48, .boot_image_size = 52, .boot_oat_begin = NA,  \
	  .boot_oat_size = NA, .boot_image_component_count = NA, .boot_image_checksum = NA,         \
	  .patch_delta = NA, .image_roots = 56, .pointer_size = 60, .compile_pic = NA,              \
	  .is_pic = NA, .sections = 64, .image_methods = 160, .storage_mode = NA, .data_size = 232, \
	  .blocks_offset = 236, .blocks_count = 240 }
/* 11-15 (runtime/image.h @R11..R14U, runtime/oat/image.h @R15): + boot image component count
 * and checksum */
#define OFF_11(methods)                                                                          \
	{ .image_reservation_size = 8, .component_count = 12, .image_begin = 16, .image_size = 20,  \
	  .image_checksum = 24, .image_bitmap_offset = NA, .image_bitmap_size = NA,                 \
	  .oat_checksum = 28, .oat_file_begin = 32, .oat_data_begin = 36, .oat_data_end = 40,       \
	  .oat_file_end = 44, .boot_image_begin = 48, .boot_image_size = 52, .boot_oat_begin = NA,  \
	  .boot_oat_size = NA, .boot_image_component_count = 56, .boot_image_checksum = 60,         \
	  .patch_delta = NA, .image_roots = 64, .pointer_size = 68, .compile_pic = NA,              \
	  .is_pic = NA, .sections = 72, .image_methods = (methods), .storage_mode = NA,             \
	  .data_size = (methods) + 72, .blocks_offset = (methods) + 76, .blocks_count = (methods) + 80 }

const struct art_image_format art_image_formats[] = {
	/* 5.0: 13 u32 = 52 bytes; roots 6 DexCaches, 7 ClassRoots of 8 */
	[IH_5_0] = { .versions = "009", .family = "5.0", .header_size = 52, .off = OFF_5X(NA),
	  .roots = { 6, 7, 8 } },
	/* 5.1: + compile_pic_ = 56 bytes; roots 7 DexCaches, 8 ClassRoots of 9 */
	[IH_5_1] = { .versions = "012", .family = "5.1", .header_size = 56, .off = OFF_5X(52),
	  .roots = { 7, 8, 9 } },
	/* 6.0: 13 u32, sections_[5] at 52, image_methods_[6] at 92; 140 bytes */
	[IH_6_0] = { .versions = "017", .family = "6.0", .header_size = 140,
	  .off = { .image_reservation_size = NA, .component_count = NA, .image_begin = 8,
		   .image_size = 12, .image_checksum = NA, .image_bitmap_offset = NA,
		   .image_bitmap_size = NA, .oat_checksum = 16, .oat_file_begin = 20,
		   .oat_data_begin = 24, .oat_data_end = 28, .oat_file_end = 32,
		   .boot_image_begin = NA, .boot_image_size = NA, .boot_oat_begin = NA,
		   .boot_oat_size = NA, .boot_image_component_count = NA, .boot_image_checksum = NA,
		   .patch_delta = 36, .image_roots = 40, .pointer_size = 44, .compile_pic = 48,
		   .is_pic = NA, .sections = 52, .image_methods = 92, .storage_mode = NA,
		   .data_size = NA, .blocks_offset = NA, .blocks_count = NA },
	  .section_count = 5, .section_kinds = SEC_60, .image_method_count = 6,
	  .image_method_names = methods_60, .roots = { 0, 1, 2 } },
	/* 7.0: sections_[9] at 72, image_methods_[6] at 144, storage 192; 200 bytes */
	[IH_7_0] = { .versions = "029", .family = "7.0", .header_size = 200, .off = OFF_7X(144, 192),
	  .section_count = 9, .section_kinds = SEC_70, .image_method_count = 6,
	  .image_method_names = methods_60, .roots = { 0, 1, 2 } },
	/* 7.1: sections_[10] (+ImTables) at 72, image_methods_[6] at 152; 208 bytes */
	[IH_7_1] = { .versions = "030", .family = "7.1", .header_size = 208, .off = OFF_7X(152, 200),
	  .section_count = 10, .section_kinds = SEC_71, .image_method_count = 6,
	  .image_method_names = methods_60, .roots = { 0, 1, 2 } },
	/* 8.0: image_methods_[7] (+SaveEverything); roots + ClassLoader (app images); 216 bytes */
	[IH_8_0] = { .versions = "043,044", .family = "8.0", .header_size = 216, .off = OFF_7X(152, 208),
	  .section_count = 10, .section_kinds = SEC_71, .image_method_count = 7,
	  .image_method_names = methods_80, .roots = { 0, 1, 3 } },
	[IH_8_1] = { .versions = "046", .family = "8.1", .header_size = 216, .off = OFF_7X(152, 208),
	  .section_count = 10, .section_kinds = SEC_71, .image_method_count = 7,
	  .image_method_names = methods_80, .roots = { 0, 1, 3 } },
	/* 9: image_methods_[9]; 232 bytes */
	[IH_9] = { .versions = "056", .family = "9", .header_size = 232, .off = OFF_7X(152, 224),
	  .section_count = 10, .section_kinds = SEC_71, .image_method_count = 9,
	  .image_method_names = methods_80, .roots = { 0, 1, 3 } },
	/* 10: sections_[12] at 64, image_methods_[9] at 160, data_size 232, blocks 236/240;
	 * 244 rounded to 248; roots: + 4 preallocated errors, SpecialRoots = 7 */
	[IH_10] = { .versions = "074", .family = "10", .header_size = 248, .off = OFF_10,
	  .section_count = 12, .section_kinds = SEC_10, .image_method_count = 9,
	  .image_method_names = methods_80, .roots = { 0, 1, 7 } },
	/* 11: sections_[12] at 72, image_methods_[9] at 168; 252 rounded to 256 (086: the
	 * Integer.divideUnsigned intrinsic bump, same header) */
	[IH_11] = { .versions = "085,086", .family = "11", .header_size = 256, .off = OFF_11(168),
	  .section_count = 12, .section_kinds = SEC_10, .image_method_count = 9,
	  .image_method_names = methods_80, .roots = { 0, 1, 3 } },
	/* 12, 13: sections_[11] (no DexCacheArrays) at 72, image_methods_ at 160; 248 bytes
	 * (@R12S, @R13T).  100-105 are the module builds between the two releases (sc-dev to
	 * tm-dev, doc/android12-16.md): header, mirror and ArtMethod layouts as 106 */
	[IH_12] = { .versions = "099", .family = "12", .header_size = 248, .off = OFF_11(160),
	  .section_count = 11, .section_kinds = SEC_12, .image_method_count = 9,
	  .image_method_names = methods_80, .roots = { 0, 1, 3 } },
	[IH_13] = { .versions = "100,101,102,103,104,105,106", .family = "13", .header_size = 248,
	  .off = OFF_11(160), .section_count = 11, .section_kinds = SEC_12, .image_method_count = 9,
	  .image_method_names = methods_80, .roots = { 0, 1, 3 } },
	/* 14: DexCacheArrays back at index 9 (12 sections), 256 bytes (@R14U); kAppImageOatHeader
	 * aliases kSpecialRoots, so still 3 roots (ImageHeader::NumberOfImageRoots) */
	[IH_14] = { .versions = "108", .family = "14", .header_size = 256, .off = OFF_11(168),
	  .section_count = 12, .section_kinds = SEC_14, .image_method_count = 9,
	  .image_method_names = methods_80, .roots = { 0, 1, 3 } },
	/* 15: 13 sections at 72, image_methods_[9] at 176, data_size 248; 260 rounded to 264 (@R15) */
	[IH_15] = { .versions = "111", .family = "15", .header_size = 264, .off = OFF_11(176),
	  .section_count = 13, .section_kinds = SEC_15, .image_method_count = 9,
	  .image_method_names = methods_80, .roots = { 0, 1, 3 } },
	/* 16 (runtime/oat/image.h @R16): data members, sections and image roots as 111; 118 */
	[IH_16] = { .versions = "118", .family = "16", .header_size = 264, .off = OFF_11(176),
	  .section_count = 13, .section_kinds = SEC_15, .image_method_count = 9,
	  .image_method_names = methods_80, .roots = { 0, 1, 3 } },
};
const size_t art_image_format_count = sizeof(art_image_formats) / sizeof(art_image_formats[0]);

#undef NA

const struct art_version_table art_image_versions =
	ART_VERSION_LIST_TABLE("image", struct art_image_format, art_image_formats,
			       sizeof(art_image_formats) / sizeof(art_image_formats[0]), versions,
			       offsetof(struct art_image_format, family));

const struct art_image_format *art_image_format_by_version(unsigned version)
{
	long r = art_version_row_of(&art_image_versions, version);
	return r >= 0 ? &art_image_formats[r] : NULL;
}

const struct art_layout art_layouts[] = {
	{
		.family = "5.0", .image = &art_image_formats[IH_5_0], .oat_version_min = 39, .oat_version_max = 39,
		OBJECT_HEADER,
		/* runtime/mirror/class.h @R50: 8 class_loader_, 12 component_type_, 16 dex_cache_,
		 * 20 direct_methods_, 24 ifields_, 28 iftable_, 32 imtable_, 36 name_, 40 sfields_,
		 * 44 super_class_, 48 verify_error_class_, 52 virtual_methods_, 56 vtable_,
		 * 60 access_flags_, 64 class_size_, 68 clinit_thread_id_, 72 dex_class_def_idx_,
		 * 76 dex_type_idx_, 80 num_reference_instance_fields_, 84
		 * num_reference_static_fields_, 88 object_size_, 92 primitive_type_ (plain
		 * Primitive::Type), 96 reference_instance_offsets_, 100 reference_static_offsets_,
		 * 104 status_; end 108 */
		.klass = { .class_loader = 8, .component_type = 12, .dex_cache = 16,
			   .ext_data = ART_ABSENT, .iftable = 28, .name = 36, .super_class = 44,
			   .vtable = 56, .ifields = 24, .methods = ART_ABSENT, .sfields = 40,
			   .access_flags = 60, .class_flags = ART_ABSENT, .class_size = 64,
			   .clinit_thread_id = 68, .dex_class_def_idx = 72, .dex_type_idx = 76,
			   .num_reference_instance_fields = 80, .num_reference_static_fields = 84,
			   .object_size = 88, .object_size_alloc_fast_path = ART_ABSENT,
			   .primitive_type = 92, .reference_instance_offsets = 96, .status = 104,
			   .copied_methods_offset = ART_ABSENT, .virtual_methods_offset = ART_ABSENT,
			   .num_instance_fields = ART_ABSENT, .size = 108, .status_shift = 0,
			   .status_min = -2, .status_max = 10, .status_retired = -2,
			   .primitive_mask = 0xffff },
		STRING_5X, ARRAY_12, ART_FIELD_5X, DEX_CACHE_5X, DEX_FILE_NO_DATA, CLASS_LOADER_5X,
		.field_link = ART_LINK_5_0,
		/* mirror::ArtMethod @R50 (same for 32/64-bit: u64 entry points): 8 declaring_class_,
		 * 24 entry_point_from_interpreter_, 32 _from_jni_, 40 _from_quick_compiled_code_,
		 * 48 gc_map_, 56 access_flags_, 60 dex_code_item_offset_, 64 dex_method_index_,
		 * 68 method_index_; size 72 (no portable entry point in shipped builds) */
		.art_method_size = { 72, 72 },
		.art_method = { .declaring_class = 8, .access_flags = 56, .dex_code_item_offset = 60,
				.dex_method_index = 64, .method_index = 68, .data = { 32, 32 },
				.entry_point_quick = { 40, 40 } },
	},
	{
		.family = "5.1", .image = &art_image_formats[IH_5_1], .oat_version_min = 45, .oat_version_max = 45,
		OBJECT_HEADER,
		/* runtime/mirror/class.h @R51: 8 class_loader_, 12 component_type_, 16 dex_cache_,
		 * 20 dex_cache_strings_, 24 direct_methods_, 28 ifields_, 32 iftable_, 36 name_,
		 * 40 sfields_, 44 super_class_, 48 verify_error_class_, 52 virtual_methods_,
		 * 56 vtable_, then as 5.0 from 60 access_flags_ to 104 status_; end 108 */
		.klass = { .class_loader = 8, .component_type = 12, .dex_cache = 16,
			   .ext_data = ART_ABSENT, .iftable = 32, .name = 36, .super_class = 44,
			   .vtable = 56, .ifields = 28, .methods = ART_ABSENT, .sfields = 40,
			   .access_flags = 60, .class_flags = ART_ABSENT, .class_size = 64,
			   .clinit_thread_id = 68, .dex_class_def_idx = 72, .dex_type_idx = 76,
			   .num_reference_instance_fields = 80, .num_reference_static_fields = 84,
			   .object_size = 88, .object_size_alloc_fast_path = ART_ABSENT,
			   .primitive_type = 92, .reference_instance_offsets = 96, .status = 104,
			   .copied_methods_offset = ART_ABSENT, .virtual_methods_offset = ART_ABSENT,
			   .num_instance_fields = ART_ABSENT, .size = 108, .status_shift = 0,
			   .status_min = -2, .status_max = 10, .status_retired = -2,
			   .primitive_mask = 0xffff },
		STRING_5X, ARRAY_12, ART_FIELD_5X, DEX_CACHE_5X, DEX_FILE_NO_DATA, CLASS_LOADER_5X,
		.field_link = ART_LINK_5_1,
		/* mirror::ArtMethod @R51: 8 declaring_class_, 12 dex_cache_resolved_methods_,
		 * 16 dex_cache_resolved_types_, 20 access_flags_, 24 dex_code_item_offset_,
		 * 28 dex_method_index_, 32 method_index_, then PtrSizedFields {interpreter, jni,
		 * quick}: 36/40/44 (32-bit, size 48), 40/48/56 after 4 bytes padding (64-bit, 64) */
		.art_method_size = { 48, 64 },
		.art_method = { .declaring_class = 8, .access_flags = 20, .dex_code_item_offset = 24,
				.dex_method_index = 28, .method_index = 32, .data = { 40, 48 },
				.entry_point_quick = { 44, 56 } },
	},
	{
		.family = "6.0", .image = &art_image_formats[IH_6_0], .oat_version_min = 64, .oat_version_max = 64,
		OBJECT_HEADER,
		/* runtime/mirror/class.h @R60: 8 class_loader_, 12 component_type_, 16 dex_cache_,
		 * 20 dex_cache_strings_, 24 iftable_, 28 name_, 32 super_class_,
		 * 36 verify_error_class_, 40 vtable_, 44 access_flags_, 48 direct_methods_ (u64),
		 * 56 ifields_ (u64), 64 sfields_ (u64), 72 virtual_methods_ (u64), 80 class_size_,
		 * 84 clinit_thread_id_, 88 dex_class_def_idx_, 92 dex_type_idx_,
		 * 96 num_direct_methods_, 100 num_instance_fields_, 104
		 * num_reference_instance_fields_, 108 num_reference_static_fields_,
		 * 112 num_static_fields_, 116 num_virtual_methods_, 120 object_size_,
		 * 124 primitive_type_ (type | size shift << 16), 128 reference_instance_offsets_,
		 * 132 status_; end 136 */
		.klass = { .class_loader = 8, .component_type = 12, .dex_cache = 16,
			   .ext_data = ART_ABSENT, .iftable = 24, .name = 28, .super_class = 32,
			   .vtable = 40, .ifields = 56, .methods = ART_ABSENT, .sfields = 64,
			   .access_flags = 44, .class_flags = ART_ABSENT, .class_size = 80,
			   .clinit_thread_id = 84, .dex_class_def_idx = 88, .dex_type_idx = 92,
			   .num_reference_instance_fields = 104, .num_reference_static_fields = 108,
			   .object_size = 120, .object_size_alloc_fast_path = ART_ABSENT,
			   .primitive_type = 124, .reference_instance_offsets = 128, .status = 132,
			   .copied_methods_offset = ART_ABSENT, .virtual_methods_offset = ART_ABSENT,
			   .num_instance_fields = 100, .size = 136, .status_shift = 0,
			   .status_min = -2, .status_max = 10, .status_retired = -2,
			   .primitive_mask = 0xffff },
		.field_storage = ART_FIELDS_RAW_ARRAY, .field_array_header = 0, .art_field_size = 16,
		.field_link = ART_LINK_SHUFFLE,
		.art_field = { .declaring_class = 0, .access_flags = 4, .field_dex_idx = 8, .offset = 12 },
		STRING_UTF16, ARRAY_12, DEX_CACHE_5X, DEX_FILE_NO_DATA, CLASS_LOADER_5X,
		/* runtime/art_method.h @R60: 0 declaring_class_, 4 dex_cache_resolved_methods_,
		 * 8 dex_cache_resolved_types_, 12 access_flags_, 16 dex_code_item_offset_,
		 * 20 dex_method_index_, 24 method_index_ (u32), PtrSizedFields {interpreter, jni,
		 * quick} at RoundUp(28, P): 28/32/36 (size 40), 32/40/48 (size 56) */
		.art_method_size = { 40, 56 },
		.art_method = { .declaring_class = 0, .access_flags = 12, .dex_code_item_offset = 16,
				.dex_method_index = 20, .method_index = 24, .data = { 32, 40 },
				.entry_point_quick = { 36, 48 } },
	},
	{
		.family = "7.0", .image = &art_image_formats[IH_7_0], .oat_version_min = 79, .oat_version_max = 79,
		OBJECT_HEADER, CLASS_7X, STRING_UTF16, ARRAY_12, CLASS_LOADER_7X, ART_FIELD_NATIVE,
		DEX_CACHE_7X, DEX_FILE_NO_DATA,
		ART_METHOD_7X,
	},
	{
		/* 7.1.0 shipped image 030 with oat 079 (same layouts as 7.0, found by image
		 * version); 7.1.1/7.1.2 oat 088 */
		.family = "7.1", .image = &art_image_formats[IH_7_1], .oat_version_min = 80, .oat_version_max = 88,
		OBJECT_HEADER, CLASS_7X, STRING_UTF16, ARRAY_12, CLASS_LOADER_7X, ART_FIELD_NATIVE,
		DEX_CACHE_7X, DEX_FILE_NO_DATA,
		ART_METHOD_7X,
	},
	{
		/* 044 and oat 126: later 8.0 builds (Ghidra ArtConstants/OatConstants, unverified) */
		.family = "8.0", .image = &art_image_formats[IH_8_0], .oat_version_min = 124, .oat_version_max = 126,
		OBJECT_HEADER, CLASS_8X(10), STRING_COMPRESSIBLE, ARRAY_12, CLASS_LOADER_7X, ART_FIELD_NATIVE,
		DEX_CACHE_8_TO_9, DEX_FILE_NO_DATA,
		ART_METHOD_8X,
	},
	{
		.family = "8.1", .image = &art_image_formats[IH_8_1], .oat_version_min = 131, .oat_version_max = 131,
		OBJECT_HEADER, CLASS_8X(11), STRING_COMPRESSIBLE, ARRAY_12, CLASS_LOADER_7X, ART_FIELD_NATIVE,
		DEX_CACHE_8_TO_9, DEX_FILE_NO_DATA,
		ART_METHOD_8X,
	},
	{
		/* 9: Class.status_ holds ClassStatus << 28 (runtime/mirror/class.h @R9) */
		.family = "9", .image = &art_image_formats[IH_9], .oat_version_min = 138, .oat_version_max = 138,
		OBJECT_HEADER, CLASS_8_TO_14, STRING_COMPRESSIBLE, ARRAY_12, CLASS_LOADER_7X,
		ART_FIELD_NATIVE, DEX_CACHE_8_TO_9,
		/* libdexfile/dex/dex_file.h @R9: vtable, begin_, size_, data_begin_, data_size_ */
		.dex_file = { .begin_slot = 1, .data_begin_slot = 3 },
		ART_METHOD_9_TO_11,
	},
	{
		.family = "10", .image = &art_image_formats[IH_10], .oat_version_min = 170, .oat_version_max = 170,
		OBJECT_HEADER, CLASS_8_TO_14, STRING_COMPRESSIBLE, ARRAY_12, CLASS_LOADER_7X, ART_FIELD_NATIVE,
		ART_METHOD_9_TO_11,
		/* runtime/mirror/dex_cache.h @R10: location_ 8, num_preresolved_strings_ 12,
		 * dex_file_ 16, preresolved_strings_ 24, resolved_call_sites_ 32,
		 * resolved_fields_ 40, resolved_method_types_ 48, resolved_methods_ 56,
		 * resolved_types_ 64, strings_ 72, num_resolved_call_sites_ 80 ... num_resolved_types_
		 * 96, num_strings_ 100; end 104 */
		.dex_cache = { .location = 8, .dex_file = 16, .strings = 72, .resolved_types = 64,
			       .num_strings = 100, .num_resolved_types = 96, .size = 104,
			       .strings_array = ART_ABSENT, .native_arrays = true },
		/* libdexfile/dex/dex_file.h @R10: vtable, begin_, size_, data_begin_, data_size_ */
		.dex_file = { .begin_slot = 1, .data_begin_slot = 3 },
	},
	{
		.family = "11", .image = &art_image_formats[IH_11], .oat_version_min = 183, .oat_version_max = 183,
		OBJECT_HEADER, CLASS_8_TO_14, STRING_COMPRESSIBLE, ARRAY_12, CLASS_LOADER_7X, ART_FIELD_NATIVE,
		ART_METHOD_9_TO_11,
		/* runtime/mirror/dex_cache.h @R11: class_loader_ 8, location_ 12, dex_file_ 16,
		 * preresolved_strings_ 24, resolved_call_sites_ 32, resolved_fields_ 40,
		 * resolved_method_types_ 48, resolved_methods_ 56, resolved_types_ 64, strings_ 72,
		 * num_preresolved_strings_ 80, num_resolved_call_sites_ 84 ... num_resolved_types_
		 * 100, num_strings_ 104; end 108 */
		.dex_cache = { .location = 12, .dex_file = 16, .strings = 72, .resolved_types = 64,
			       .num_strings = 104, .num_resolved_types = 100, .size = 108,
			       .strings_array = ART_ABSENT, .native_arrays = true },
		.dex_file = { .begin_slot = 1, .data_begin_slot = 3 },
	},
	/* 12-15: rows keyed on the image version (and OAT version); 12 and 13 differ only in
	 * the class roots (13 adds StaticFieldVarHandle, runtime/class_root.h @R13T), which the
	 * tool reads by name.  libdexfile/dex/dex_file.h @R12S..R15: begin_ slot 1, data_ (13-:
	 * data_begin_; 14+: ArrayRef data_) slot 3 */
	{
		/* oat 195 (SP1A) .. 199 (SQ3A) */
		.family = "12", .image = &art_image_formats[IH_12], .oat_version_min = 195, .oat_version_max = 199,
		OBJECT_HEADER, CLASS_8_TO_14, STRING_COMPRESSIBLE, ARRAY_12, CLASS_LOADER_7X, ART_FIELD_NATIVE_12,
		ART_METHOD_12_TO_15, DEX_CACHE_11_TO_13, .dex_file = { .begin_slot = 1, .data_begin_slot = 3 },
	},
	{
		/* oat 200 .. 225 (TP1A/TQ3A: 225) */
		.family = "13", .image = &art_image_formats[IH_13], .oat_version_min = 200, .oat_version_max = 225,
		OBJECT_HEADER, CLASS_8_TO_14, STRING_COMPRESSIBLE, ARRAY_12, CLASS_LOADER_7X, ART_FIELD_NATIVE_12,
		ART_METHOD_12_TO_15, DEX_CACHE_11_TO_13, .dex_file = { .begin_slot = 1, .data_begin_slot = 3 },
	},
	{
		/* image 108 with oat 226 .. 230: 14 as first released (udc-dev @R14, GrapheneOS tag
		 * 2023100800: oat 230), the 7.0-13 ClassLoader (class_loader.h @R14).  name_ was
		 * added on 2023-06-08 still at oat 230 (main-line only) and oat 231 followed on
		 * 2023-07-03, so 231+ is the row below (doc/android12-16.md) */
		.family = "14-oat230", .image = &art_image_formats[IH_14], .oat_version_min = 226,
		.oat_version_max = 230,
		OBJECT_HEADER, CLASS_8_TO_14, STRING_COMPRESSIBLE, ARRAY_12, CLASS_LOADER_7X, ART_FIELD_NATIVE_12,
		ART_METHOD_12_TO_15, DEX_CACHE_14_TO_15, .dex_file = { .begin_slot = 1, .data_begin_slot = 3 },
		.irt_single_ref = 1,
	},
	{
		/* image 108 with oat 231 .. 239 (14 QPR2 and the 2024 module, branch 14 @R14U): the
		 * ClassLoader with name_ (class_loader.h @R14U); the row of image 108 when no OAT
		 * version is known */
		.family = "14", .image = &art_image_formats[IH_14], .oat_version_min = 231, .oat_version_max = 239,
		OBJECT_HEADER, CLASS_8_TO_14, STRING_COMPRESSIBLE, ARRAY_12, CLASS_LOADER_14, ART_FIELD_NATIVE_12,
		ART_METHOD_12_TO_15, DEX_CACHE_14_TO_15, .dex_file = { .begin_slot = 1, .data_begin_slot = 3 },
		.irt_single_ref = 1,
	},
	{
		/* oat 244 (24Q3 release, @R15) */
		.family = "15", .image = &art_image_formats[IH_15], .oat_version_min = 240, .oat_version_max = 244,
		OBJECT_HEADER, CLASS_8_TO_14, STRING_COMPRESSIBLE, ARRAY_12, CLASS_LOADER_14, ART_FIELD_NATIVE_12,
		ART_METHOD_12_TO_15, DEX_CACHE_14_TO_15, .dex_file = { .begin_slot = 1, .data_begin_slot = 3 },
		.irt_single_ref = 1,
	},
	{
		/* oat 259 (android16-security-release, @R16) .. 265 (25Q4 release, @R16Q); image 118
		 * from 2024-11-20, but fields_ merged on 2025-01-16 at oat 254 without a bump of
		 * either version, so the OAT range starts at 255.  Object, String, Array, DexCache,
		 * ClassLoader, ArtField, ArtMethod and DexFile as 15 (runtime/mirror/ headers, art_method.h,
		 * art_field.h, dex_file.h @R16); Class as CLASS_16 */
		.family = "16", .image = &art_image_formats[IH_16], .oat_version_min = 255, .oat_version_max = 265,
		OBJECT_HEADER, CLASS_16, STRING_COMPRESSIBLE, ARRAY_12, CLASS_LOADER_14, ART_FIELD_NATIVE_12,
		.fields_merged = true,
		ART_METHOD_12_TO_15, DEX_CACHE_14_TO_15, .dex_file = { .begin_slot = 1, .data_begin_slot = 3 },
		.irt_single_ref = 1,
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

const struct art_version_table art_layout_oat_versions =
	ART_VERSION_RANGE_TABLE("OAT", struct art_layout, art_layouts,
				sizeof(art_layouts) / sizeof(art_layouts[0]), oat_version_min, oat_version_max,
				offsetof(struct art_layout, family));

/* Of the rows of one image version, the one of the newest module (highest OAT range) */
const struct art_layout *art_layout_for_image(const struct art_image_format *f)
{
	const struct art_layout *best = NULL;
	for (size_t i = 0; f && i < art_layout_count; i++)
		if (art_layouts[i].image == f && (!best || art_layouts[i].oat_version_max > best->oat_version_max))
			best = &art_layouts[i];
	return best;
}

const struct art_layout *art_layout_by_versions(unsigned image_version, unsigned oat_version)
{
	const struct art_image_format *f = art_image_format_by_version(image_version);
	for (size_t i = 0; f && oat_version && i < art_layout_count; i++)
		if (art_layouts[i].image == f && oat_version >= art_layouts[i].oat_version_min &&
		    oat_version <= art_layouts[i].oat_version_max)
			return &art_layouts[i];
	return art_layout_for_image(f);
}

bool art_layout_image_shared(const struct art_layout *l)
{
	for (size_t i = 0; l && i < art_layout_count; i++)
		if (&art_layouts[i] != l && art_layouts[i].image == l->image)
			return true;
	return false;
}

const struct art_layout *art_layout_by_image_version(unsigned image_version)
{
	return art_layout_for_image(art_image_format_by_version(image_version));
}

const struct art_layout *art_layout_by_oat_version(unsigned oat_version)
{
	long r = art_version_row_of(&art_layout_oat_versions, oat_version);
	return r >= 0 ? &art_layouts[r] : NULL;
}

size_t art_layout_field_offset(const struct art_layout *l, size_t i)
{
	return l->field_array_header + i * l->art_field_size;
}

/* memcmp of the sub-structures is exact: the rows have static storage, so their padding is
 * zero (C11 6.7.9p10) */
bool art_layout_same_objects(const struct art_layout *a, const struct art_layout *b)
{
	return art_layout_same_but_class_loader(a, b) &&
	       !memcmp(&a->class_loader, &b->class_loader, sizeof(a->class_loader));
}

bool art_layout_same_but_class_loader(const struct art_layout *a, const struct art_layout *b)
{
	return art_layout_same_but_link(a, b) && a->field_link == b->field_link;
}

bool art_layout_same_but_link(const struct art_layout *a, const struct art_layout *b)
{
	return !memcmp(&a->object, &b->object, sizeof(a->object)) &&
	       !memcmp(&a->klass, &b->klass, sizeof(a->klass)) && a->field_storage == b->field_storage &&
	       a->fields_merged == b->fields_merged &&
	       a->field_array_header == b->field_array_header &&
	       !memcmp(&a->string, &b->string, sizeof(a->string)) &&
	       !memcmp(&a->array, &b->array, sizeof(a->array)) &&
	       !memcmp(&a->dex_cache, &b->dex_cache, sizeof(a->dex_cache)) &&
	       a->art_field_size == b->art_field_size &&
	       !memcmp(&a->art_field, &b->art_field, sizeof(a->art_field));
}
