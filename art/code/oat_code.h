/* oat_code.h - compiled code of OAT files: OatClass, OatMethodOffsets, OatQuickMethodHeader.
 *
 * Everything here decodes borrowed bytes through cursors; offsets are relative to the
 * oatdata symbol (the OatHeader), as in the OAT file itself.  Layouts are table rows keyed by
 * oat version (oat_code.c cites the AOSP sources); nothing branches on a version number.
 *
 * Version history (runtime/oat.h, runtime/oat_quick_method_header.h, runtime/oat_file.cc):
 *   OatMethodOffsets  {code_offset, gc_map_offset} up to oat 043, {code_offset} from 044
 *   method header     039-043 mapping,vmap,frame_info[12],code_size             24 B
 *                     044-078 mapping,vmap,gc_map,frame_info[12],code_size      28 B
 *                     079-115 vmap,frame_info[12],code_size                     20 B
 *                     116-155 vmap,method_info,frame_info[12],code_size         24 B
 *                     156-157 vmap,method_info,code_size                        12 B
 *                     158-191 vmap,code_size                                     8 B
 *                     192-    data (bit 30 set: CodeInfo offset; code size in CodeInfo) 4 B
 *   code_size bit 31  "should deoptimize" flag from oat 092 (CHA), masked off
 *   OatClass          i16 status, u16 type; some-compiled: u32 bitmap bytes + bitmap;
 *                     from 194: unless none-compiled u32 num_methods, then (some-compiled)
 *                     a bitmap of ceil(num_methods/32) u32 words */
#ifndef ARTCARVE_OAT_CODE_H
#define ARTCARVE_OAT_CODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "art/format/oat.h"
#include "art/format/vdex.h"
#include "carver/base/cursor.h"
#include "carver/image/image.h"
#include "carver/base/err.h"
#include "carver/base/wbuf.h"

enum oat_class_type {
	OAT_CLASS_ALL_COMPILED = 0,
	OAT_CLASS_SOME_COMPILED = 1,
	OAT_CLASS_NONE_COMPILED = 2
};

#define OAT_CODE_NONE 0xffffu   /* field absent in a layout row */
#define OAT_CODE_UNKNOWN_COUNT UINT32_MAX

struct oat_code_layout {
	unsigned oat_min, oat_max;
	unsigned method_offsets_size;   /* bytes per OatMethodOffsets */
	unsigned header_size;           /* OatQuickMethodHeader bytes right before the code */
	unsigned vmap_at, method_info_at, code_size_at;   /* offsets in the header or OAT_CODE_NONE */
	uint32_t code_size_mask;        /* masks the should-deoptimize flag where it exists */
	bool code_info_in_data;         /* 192+: data_ holds a CodeInfo offset (bit 30) or the size */
	bool class_has_num_methods;     /* 194+ */
};

const struct oat_code_layout *oat_code_layout_for(unsigned oat_version);
/* The OAT versions of the layout rows (art/format/art_version.h). */
extern const struct art_version_table oat_code_versions;

/* Where code lives: the oatdata bytes (OatHeader onwards, at least .rodata) and the oatexec
 * bytes (.text), with exec_rel = address of oatexec minus address of oatdata. */
struct oat_code_space {
	struct cursor data;
	struct cursor exec;
	uint64_t exec_rel;
	const struct oat_code_layout *layout;
	unsigned code_delta;            /* 1 for Thumb-2 (entry points have bit 0 set), else 0 */
	unsigned code_align;            /* instruction-set alignment of method code, 0 = unchecked */
};

struct oat_class_info {
	uint32_t offset;                /* of the OatClass, oatdata-relative */
	int32_t status;
	enum oat_class_type type;
	uint32_t num_methods;           /* 194+: stored; else from the caller or the bitmap, or UNKNOWN */
	struct cursor bitmap;           /* some-compiled only */
	uint32_t compiled_count;        /* OatMethodOffsets entries, OAT_CODE_UNKNOWN_COUNT if unknown */
	uint32_t methods_at;            /* oatdata offset of the OatMethodOffsets array */
	unsigned method_offsets_size;
	uint32_t end;                   /* oatdata offset just after the record when compiled_count is known */
};

/* Decodes the OatClass at oatdata+class_offset.  num_methods_hint is the number of methods in
 * the class's class_data (direct + virtual) when the DEX is known, else OAT_CODE_UNKNOWN_COUNT. */
int oat_class_decode(const struct oat_code_space *s, uint32_t class_offset, uint32_t num_methods_hint,
		     struct oat_class_info *out, struct err *e);

/* code_offset field of method `method_index` (class_data order: direct then virtual methods);
 * *code_offset = 0 when the method has no compiled code.  For all-compiled classes with an
 * unknown count the index is only checked against the end of oatdata. */
int oat_class_method_code_offset(const struct oat_code_space *s, const struct oat_class_info *c,
				 uint32_t method_index, uint32_t *code_offset, struct err *e);

struct oat_method_code {
	uint32_t code_offset;           /* oatdata-relative first instruction (code delta removed) */
	uint32_t code_size;             /* flag bits masked off */
	bool should_deoptimize;
	uint32_t vmap_table_offset;     /* 0 when the layout has none */
	uint32_t method_info_offset;
	uint32_t code_info_offset;      /* 192+ (0 if the header holds the size) */
	struct cursor code;             /* exactly the code bytes, inside exec; va = oatdata-relative offset */
};

/* Decodes the OatQuickMethodHeader before code_offset (as stored, with the Thumb bit) and
 * returns a cursor over the code; every byte is checked to lie inside exec (and, for 12+
 * CodeInfo, inside data). */
int oat_method_code_decode(const struct oat_code_space *s, uint32_t code_offset,
			   struct oat_method_code *out, struct err *e);

/* CodeInfo header (oat 192+): 7 interleaved varints (flags, code_size, packed_frame_size,
 * core/fp spill masks, dex registers, bit table flags); returns field `index`. */
int oat_code_info_field(const struct cursor *code_info, unsigned index, uint32_t *out, struct err *e);

/* Number of set bits among the first n bits of a little-endian bitmap (bit i = byte i/8, bit i%8). */
uint32_t oat_bitmap_count(const uint8_t *bits, uint32_t n);

/* ---- OatHeader trampolines (filled from art/format/oat.h by oat_code_index_from_oat) ---- */

#define OAT_CODE_MAX_TRAMPOLINES 12

struct oat_code_trampoline {
	const char *name;               /* e.g. "quick_resolution_trampoline" */
	uint32_t offset;                /* oatdata-relative as stored (0 = none; Thumb bit kept) */
};

struct oat_code_header {
	uint32_t executable_offset;     /* oatexec - oatdata */
	size_t trampoline_count;
	struct oat_code_trampoline trampolines[OAT_CODE_MAX_TRAMPOLINES];
};

/* ---- the methods of an OAT file and their code ---- */

struct dex;

/* One OatDexFile as the index needs it; dex NULL when its bytes are not available. */
struct oat_code_dexfile {
	const uint8_t *location;
	size_t location_len;
	const struct dex *dex;
	uint32_t class_offsets_off;     /* oatdata offset of the u32 OatClass offsets, 0 if none */
	uint32_t class_count;           /* class_defs_size; 0 = unknown (then inferred, see .c) */
};

#define OAT_CODE_NO_IDX UINT32_MAX

struct oat_code_entry {
	uint32_t dex_file, class_def;
	uint32_t method_index;          /* position in class_data: direct methods, then virtual */
	uint32_t method_idx;            /* method_ids index, OAT_CODE_NO_IDX without the DEX */
	uint32_t access_flags;
	uint32_t code_offset;           /* as stored (Thumb bit kept) */
	uint32_t code_start, code_size; /* decoded from the method header (code delta removed) */
	size_t name_at;                 /* into index.names */
};

struct oat_code_index {
	struct oat_code_space space;
	struct oat_code_header header;
	struct oat_code_entry *entries; /* class_def order, then method order */
	size_t count;
	struct wbuf names;              /* NUL-terminated names */
	struct oat_code_pos { uint32_t code_start; size_t entry; } *by_code;  /* sorted by code, then entry */
	size_t skipped;                 /* classes or methods left out because they were corrupt */
	struct err first_skip;          /* why the first one was left out */
	bool inferred_counts;           /* class or method counts were inferred without the DEX */
	struct oat_code_dexfile *dexfiles;  /* owned when built by oat_code_index_from_oat */
	size_t dexfile_count;
};

/* Walks every OatClass of every dex file and records the methods that have code.  Corrupt
 * classes/methods are skipped and counted (first reason kept); only NOMEM and a bad
 * space/header stop it.  Names: "Lpkg/Class;->name(sig)" from the DEX, else
 * "dexN:classC:methodM" (class_def index, class_data position). */
int oat_code_index_build(struct oat_code_index *ix, const struct oat_code_space *space,
			 const struct oat_code_header *header /* may be NULL */,
			 const struct oat_code_dexfile *dexfiles, size_t dex_count, struct err *e);
void oat_code_index_release(struct oat_code_index *ix);
static inline const char *oat_code_entry_name(const struct oat_code_index *ix, const struct oat_code_entry *en)
{
	return (const char *)ix->names.data + en->name_at;
}
/* Name of the method or trampoline whose code contains oatdata offset `off` (code delta
 * removed); *delta = off - start.  NULL when nothing is known there. */
const char *oat_code_index_name_at(const struct oat_code_index *ix, uint32_t off, uint32_t *delta);
/* The method whose code starts exactly at oatdata offset off (code delta removed), NULL if
 * none (a trampoline, or inside a method). */
const struct oat_code_entry *oat_code_index_entry_at(const struct oat_code_index *ix, uint32_t off);


/* The code space of an opened OAT file (code_delta 1 for Thumb-2). */
int oat_code_space_from_oat(struct oat_code_space *s, const struct oat *o, unsigned code_delta, struct err *e);
/* Parses the DEX files the OAT carries and builds the index over them (owning the parsed
 * dex structs); OatDexFiles without DEX bytes get positional names. */
int oat_code_index_from_oat(struct oat_code_index *ix, const struct oat *o, unsigned code_delta, struct err *e);

/* Maps an OAT's code space into view as the runtime does, its oatdata at address oatdata:
 * the oatdata bytes (read-only) and the oatexec bytes (r-x) at oatdata + exec_rel, borrowed
 * (they must outlive view), both named label.  -ERR_CORRUPT, with nothing added, when either
 * range wraps around or overlaps a region already there. */
int oat_code_map(struct image *view, const struct oat_code_space *s, uint64_t oatdata, const char *label,
		 struct err *e);

/* ---- code sources: the OAT files of an input (an OAT/ODEX file, or a memory image) ---- */

struct oat_code_source {
	const char *label;              /* the file path, or the mapping name in an image */
	struct oat oat;
	struct oat_code_index ix;
	unsigned arch;                  /* enum disasm_arch */
	uint64_t oatdata_va;            /* oatdata's address: ELF vaddr (file) or runtime address (image) */
	uint64_t exec_va;               /* oatexec's address */
	bool file_offset_known;         /* OAT files: exec_file_offset is oatexec's file offset */
	uint64_t exec_file_offset;
};

struct oat_code_sources {
	struct oat_code_source *v;
	size_t count;
	bool is_image;
	struct image *img;              /* memory image inputs */
	struct image *files;            /* OAT file and its VDEX, each an image at address 0 */
	size_t file_count;
	struct vdex *vdexes;            /* one per source (unused ones zeroed) */
	size_t failed;                  /* OATs seen in an image that could not be read */
	struct err first_failure;
};

/* Opens path as an OAT/ODEX file (with vdex_path, or the .vdex beside it when present), else as
 * a memory image (img_open with maps_path) and finds the OAT files mapped in it: mappings that
 * start with an ELF header and hold an OatHeader ("oat\n" + version) on a page boundary; the
 * oatexec is at oatdata + executable_offset, DEX names come from a mapped VDEX of the same stem. */
int oat_code_sources_open(struct oat_code_sources *s, const char *path, const char *vdex_path,
			  const char *maps_path, struct err *e);
void oat_code_sources_close(struct oat_code_sources *s);

#endif
