/* art_layout.h - per-family ART layouts as table rows.
 *
 * Every offset that differs between ART releases lives in one row of art_layouts[]
 * (art_layout.c), one row per layout family; code reads the row and never tests a
 * version number.  Offsets are decimal bytes from the start of the structure.  Heap
 * references are 32-bit in every family; native pointers inside mirror objects are
 * u64 fields from 6.0 on, so mirror rows do not depend on the pointer size.  ArtMethod
 * does: its sizes and pointer-field offsets are indexed [0] = 32-bit, [1] = 64-bit.
 * ART_ABSENT marks a field that the family does not have.  Sources are cited per row
 * in art_layout.c (AOSP platform/art at the commits listed in doc/sources.md). */
#ifndef ARTCARVE_ART_LAYOUT_H
#define ARTCARVE_ART_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "art/format/art_version.h"

/* ---- ImageHeader (runtime/image.h) ---- */

#define ART_IMAGE_ABSENT 0xffffu      /* a header field this version does not have */
#define ART_IMAGE_MAX_SECTIONS 13u
#define ART_IMAGE_MAX_METHODS 9u

/* Section meaning, independent of its index in a given version. */
enum art_image_section {
	ART_SEC_OBJECTS,
	ART_SEC_ART_FIELDS,
	ART_SEC_ART_METHODS,
	ART_SEC_RUNTIME_METHODS,
	ART_SEC_IM_TABLES,
	ART_SEC_IMT_CONFLICT_TABLES,
	ART_SEC_DEX_CACHE_ARRAYS,
	ART_SEC_INTERNED_STRINGS,
	ART_SEC_CLASS_TABLE,
	ART_SEC_STRING_REFERENCE_OFFSETS,
	ART_SEC_METADATA,
	ART_SEC_IMAGE_BITMAP,
	ART_SEC_JNI_STUB_METHODS, /* 15+ */
	ART_SEC_COUNT
};

/* One ImageHeader layout: the offsets of its fields.  The one table of them is
 * art_image_formats[] (art_layout.c); art/format/art_image.c parses a header with it. */
struct art_image_format {
	const char *versions;     /* image versions of the row: "009", or "085,086" */
	const char *family;       /* "5.0" ... "16", the art_layouts[] family */
	unsigned header_size;     /* sizeof(ImageHeader) */
	struct {
		unsigned image_reservation_size, component_count, image_begin, image_size,
			image_checksum, image_bitmap_offset, image_bitmap_size, oat_checksum,
			oat_file_begin, oat_data_begin, oat_data_end, oat_file_end, boot_image_begin,
			boot_image_size, boot_oat_begin, boot_oat_size, boot_image_component_count,
			boot_image_checksum, patch_delta, image_roots, pointer_size, compile_pic,
			is_pic, sections, image_methods, storage_mode, data_size, blocks_offset,
			blocks_count;
	} off;
	unsigned section_count;
	uint8_t section_kinds[ART_IMAGE_MAX_SECTIONS]; /* index in the header -> art_image_section */
	unsigned image_method_count;
	const char *const *image_method_names;
	/* ImageRoot indices of the image-roots array */
	struct { unsigned dex_caches, class_roots, count; } roots;
};
extern const struct art_image_format art_image_formats[];
extern const size_t art_image_format_count;
/* The image versions of art_image_formats[], for art_version_match. */
extern const struct art_version_table art_image_versions;
/* NULL when no row (or, a table error, two rows) holds the version. */
const struct art_image_format *art_image_format_by_version(unsigned version);

/* ---- mirror and native layouts ---- */

#define ART_ABSENT 0xffffu

/* How Class.ifields_/sfields_ hold the ArtFields. */
enum art_field_storage {
	ART_FIELDS_OBJECT_ARRAY, /* 5.x: reference to ObjectArray<mirror::ArtField> */
	ART_FIELDS_RAW_ARRAY,    /* 6.0: u64 pointer to ArtField[], count in Class.num_instance_fields_ */
	ART_FIELDS_LPA           /* 7.0+: u64 pointer to LengthPrefixedArray<ArtField> */
};

/* How LinkFields (runtime/class_linker.cc) orders and places instance fields.  All rules
 * put the references first, 4 bytes each; they differ in what follows. */
enum art_field_link {
	ART_LINK_5_0 = 1, /* 64-bit fields, then every other primitive in one group; each group
			   * by name; every non-64-bit primitive takes 4 bytes */
	ART_LINK_5_1,     /* by size (larger first), primitive type, dex field index; every
			   * non-64-bit primitive still takes 4 bytes */
	ART_LINK_SHUFFLE, /* 6.0-11: references 4-aligned, then 8/4/2/1-byte fields each at its own
			   * size, alignment padding kept as gaps that smaller fields fill, the
			   * largest gap first (ShuffleForward) */
	ART_LINK_GAPS     /* 12+: as SHUFFLE, but a 2- or 1-byte field takes the smallest gap
			   * first (LinkFieldsHelper::FieldGaps) */
};

struct art_layout {
	const char *family;         /* "5.0", "5.1", "6.0", "7.0", "7.1", "8.0", "8.1", "9", "10" ... "16" */
	const struct art_image_format *image; /* the ImageHeader row of this family */
	unsigned oat_version_min, oat_version_max;

	/* mirror::Object */
	struct { unsigned klass, monitor, size; } object;
	/* mirror::Class fixed part */
	struct {
		unsigned class_loader, component_type, dex_cache, ext_data, iftable, name, super_class,
			vtable, access_flags, class_flags, class_size, clinit_thread_id, dex_class_def_idx,
			dex_type_idx, num_reference_instance_fields, num_reference_static_fields,
			object_size, object_size_alloc_fast_path, primitive_type, reference_instance_offsets,
			status, ifields, sfields, methods, copied_methods_offset, virtual_methods_offset,
			num_instance_fields; /* 6.0 only */
		unsigned size;            /* sizeof(mirror::Class) without embedded tables */
		unsigned status_shift;    /* ClassStatus = status_ >> status_shift (9+: 28), else (int32)status_ */
		int status_min, status_max, status_retired; /* valid ClassStatus range, kRetired */
		unsigned primitive_mask;  /* Primitive::Type = primitive_type_ & mask (6.0+: 0xffff) */
	} klass;
	enum art_field_storage field_storage;
	/* 16+: one Class.fields_ array (at klass.ifields; klass.sfields absent) holds the static
	 * fields, then the instance fields, each in DEX order; kAccStatic in an ArtField's
	 * access_flags_ tells them apart */
	bool fields_merged;
	unsigned field_array_header; /* bytes before ArtField #0 in the ifields_ array */
	enum art_field_link field_link;

	/* mirror::String: count_ holds length << 1 | flag when compressible (8.0+); the chars
	 * are inline from value, or (5.x, value ART_ABSENT) count_ chars of the char[] at array
	 * starting at element offset_; size = the fixed part */
	struct { unsigned count, hash, value, array, offset, size; bool compressible; } string;
	/* mirror::Array: length_, then the data at RoundUp(length + 4, component size); data is
	 * the offset for 4-byte components (8-byte components: 16) */
	struct { unsigned length, data; } array;
	/* mirror::DexCache; strings/resolved_types are u64 native pointers when native_arrays
	 * (7.0+), else references to managed arrays (5.x/6.0); strings_array is 14+'s full
	 * GcRoot<String> array (one entry per string id; ART_ABSENT before 14) */
	struct {
		unsigned location, dex_file, strings, resolved_types, num_strings, num_resolved_types;
		unsigned strings_array;
		unsigned size;
		bool native_arrays;
	} dex_cache;
	/* mirror::ClassLoader: allocator_/class_table_ are u64 native pointers (7.0+) */
	struct { unsigned packages, parent, proxy_cache, allocator, class_table, size; } class_loader;
	/* art::DexFile (native): begin_ is pointer slot begin_slot (offset = slot * P, slot 0 is
	 * the vtable); data_begin_ likewise (compact dex string data base), ART_ABSENT if none */
	struct { unsigned begin_slot, data_begin_slot; } dex_file;

	/* IrtEntry: 0 = {u32 serial_; GcRoot references_[kIRTPrevCount = 3]} (5.0-13,
	 * runtime/indirect_reference_table.h @R60..R13T); 1 = {u32 serial_; GcRoot reference_}
	 * (14+, @R14U; 15 and 16 taken as 14), where thread locals moved to jni::LocalReferenceTable
	 * (`local ref table` mappings, runtime/jni/local_reference_table.h @R14U) */
	unsigned irt_single_ref;

	/* art::ArtField (5.x: mirror object; 6.0+: native 16-byte struct) */
	unsigned art_field_size;
	struct { unsigned declaring_class, access_flags, field_dex_idx, offset; } art_field;

	/* art::ArtMethod, [0] = 32-bit process, [1] = 64-bit process */
	unsigned art_method_size[2];
	struct {
		unsigned declaring_class, access_flags, dex_code_item_offset, dex_method_index,
			method_index, entry_point_quick[2], data[2];
	} art_method;
};

extern const struct art_layout art_layouts[];
extern const size_t art_layout_count;

/* The OAT versions of art_layouts[], for art_version_match. */
extern const struct art_version_table art_layout_oat_versions;

/* NULL when no row matches (or, a table error, two do). */
const struct art_layout *art_layout_by_family(const char *family);
/* Several rows can share one image version (108: oat 226-230 and 231-239 differ in
 * ClassLoader): art_layout_for_image and art_layout_by_image_version give the one of the
 * newest module (highest OAT range), art_layout_by_versions the one whose OAT range holds
 * oat_version (0: unknown), else that default. */
const struct art_layout *art_layout_for_image(const struct art_image_format *f);
const struct art_layout *art_layout_by_image_version(unsigned image_version);
const struct art_layout *art_layout_by_versions(unsigned image_version, unsigned oat_version);
/* True when another row has l's image version (the OAT version then chooses). */
bool art_layout_image_shared(const struct art_layout *l);
const struct art_layout *art_layout_by_oat_version(unsigned oat_version);
/* True when a and b decode every managed object alike (Object, Class, String, Array, DexCache,
 * ClassLoader, ArtField and the field rules): rows that differ only in native layouts
 * (ArtMethod, ImageHeader, DexFile), such as 12 and 13, which the heap alone cannot tell
 * apart. */
bool art_layout_same_objects(const struct art_layout *a, const struct art_layout *b);
/* As art_layout_same_objects, ClassLoader aside: the heap is decoded alike (a ClassLoader
 * object is read through its class's fields, as every instance), only the row's
 * ClassLoader offsets differ (14-oat230 and 14). */
bool art_layout_same_but_class_loader(const struct art_layout *a, const struct art_layout *b);
/* As art_layout_same_but_class_loader, the LinkFields rule aside too (11 and 12/13: only where
 * small fields sit in alignment gaps differs, settled by the classes' ArtFields) */
bool art_layout_same_but_link(const struct art_layout *a, const struct art_layout *b);
/* Index into art_method_size/entry_point_quick/data for a pointer size (4 -> 0, 8 -> 1). */
static inline unsigned art_ptr_index(unsigned pointer_size) { return pointer_size == 8 ? 1 : 0; }
/* Offset of an ArtField/ArtMethod array element: header + i * stride. */
size_t art_layout_field_offset(const struct art_layout *l, size_t i);

#endif
