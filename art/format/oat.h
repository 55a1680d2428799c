/* oat.h - OAT file reader (ELF container via carver/wrap/elfw.h), OAT versions 039 .. 239.
 *
 * The ELF dynamic symbols `oatdata` (OatHeader, start of .rodata), `oatexec` (start of
 * .text) and `oatlastword` (last word of .text) delimit the OAT data; every OAT-relative
 * offset is relative to oatdata.  The OatHeader and the OatDexFile records differ between
 * versions: each version range is a row of a table in oat.c listing its fields in order
 * (runtime/oat.h and runtime/oat_file.cc OatFileBase::Setup at each release).
 *
 * DEX bytes live inside the OAT for versions < 124 (Android 5.0 .. 7.1) and in the VDEX
 * beside it from 124 (8.0) on: give that VDEX to oat_open (oat_vdex_path_for names it) to
 * get them.  From 9 on a record may also refer to a DEX kept uncompressed in the APK/JAR
 * (dex.len 0 then, dex_external set). */
#ifndef ARTCARVE_OAT_H
#define ARTCARVE_OAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "art/format/art_version.h"
#include "art/format/vdex.h"
#include "carver/base/cursor.h"
#include "carver/wrap/elfw.h"
#include "carver/base/err.h"

/* InstructionSet values (libartbase/arch/instruction_set.h); meaning depends on the version */
enum { OAT_ISA_NONE = 0, OAT_ISA_ARM = 1, OAT_ISA_ARM64 = 2, OAT_ISA_THUMB2 = 3 };

/* OatHeader fields a row may contain (u32 each, in the row's order after magic+version) */
enum oat_hfield {
	OAT_H_CHECKSUM, OAT_H_ISA, OAT_H_ISA_FEATURES, OAT_H_DEX_FILE_COUNT,
	OAT_H_OAT_DEX_FILES_OFFSET, OAT_H_BCP_BSS_INFO_OFFSET, OAT_H_EXECUTABLE_OFFSET,
	OAT_H_INTERPRETER_TO_INTERPRETER_BRIDGE, OAT_H_INTERPRETER_TO_COMPILED_CODE_BRIDGE,
	OAT_H_JNI_DLSYM_LOOKUP, OAT_H_JNI_DLSYM_LOOKUP_CRITICAL,
	OAT_H_PORTABLE_IMT_CONFLICT, OAT_H_PORTABLE_RESOLUTION, OAT_H_PORTABLE_TO_INTERPRETER,
	OAT_H_QUICK_GENERIC_JNI, OAT_H_QUICK_IMT_CONFLICT, OAT_H_QUICK_RESOLUTION,
	OAT_H_QUICK_TO_INTERPRETER, OAT_H_NTERP,
	OAT_H_IMAGE_PATCH_DELTA, OAT_H_IMAGE_FILE_LOCATION_OAT_CHECKSUM,
	OAT_H_IMAGE_FILE_LOCATION_OAT_DATA_BEGIN, OAT_H_KEY_VALUE_STORE_SIZE,
	OAT_H_COUNT
};
const char *oat_hfield_name(enum oat_hfield f);   /* e.g. "executable_offset" */

struct oat_dex_file {
	const uint8_t *location; size_t location_len;   /* not NUL-terminated */
	uint32_t location_checksum;
	uint32_t dex_file_offset;    /* as stored: into oatdata (< 124) or into the VDEX */
	struct cursor dex;           /* DEX bytes (inside the OAT, or in the VDEX given to oat_open),
					running to the end of the dex area (dex_load gives the
					exact extent); len 0 if absent */
	bool dex_external;           /* 9+: dex_file_offset 0, DEX kept in the APK/JAR */
	uint32_t class_offsets_off;  /* offset of the uint32 class offsets table from oatdata start, 0 if none */
	uint32_t class_count;        /* = class_defs_size of its DEX when known, else 0 */
	uint32_t lookup_table_off;   /* oatdata-relative (VDEX-relative from 193), 0 if none */
	uint32_t dex_layout_sections_off, method_bss_mapping_off, type_bss_mapping_off,
		 public_type_bss_mapping_off, package_type_bss_mapping_off, string_bss_mapping_off;
	const uint8_t *dex_magic;    /* 233+: 8 bytes stored in the record, else NULL */
	const uint8_t *dex_sha1;     /* 233+: 20 bytes stored in the record, else NULL */
	uint64_t record_off;         /* oatdata-relative offset of this record */
};

struct oat_format;
struct oat {
	struct elfw *elf;
	struct cursor oatdata;       /* [oatdata, oatdata + its symbol size) of the file; va = file offset */
	uint64_t oatdata_va;         /* ELF vaddr of oatdata */
	struct cursor oatexec;       /* [oatexec, oatlastword + 4); va = file offset */
	uint64_t oatexec_va;
	unsigned version;            /* 39 .. 239 */
	unsigned isa;                /* InstructionSet enum value */
	const char *isa_name;        /* "arm", "arm64", "thumb2", "x86", "x86_64", "mips", "mips64", "riscv64" */
	unsigned pointer_size;       /* 4 or 8, from the ISA */
	size_t dex_file_count;
	struct oat_dex_file *dex_files;
	uint32_t header[OAT_H_COUNT];  /* header values by field; see oat_has_field */
	size_t header_size;          /* bytes before the key/value store */
	struct cursor kv;            /* the key/value store bytes */
	const char *android;         /* release(s) of the header row, e.g. "10" */
	bool dex_in_vdex;            /* row says dex_file_offset is VDEX-relative */
	const struct oat_format *fmt;
};

bool oat_probe_header(const uint8_t *p, size_t len);   /* "oat\n" + 3 digits + NUL */
int  oat_open(struct oat *o, const uint8_t *data, size_t len, const char *label,
	      const struct vdex *vdex /* may be NULL */, struct err *e);
void oat_close(struct oat *o);
/* Parses an OatHeader + OatDexFile records at c (no ELF), e.g. oatdata seen in memory.
 * o->elf stays NULL and oatexec empty; oat_close still releases it. */
int  oat_parse_oatdata(struct oat *o, const struct cursor *c, const struct vdex *vdex, struct err *e);

bool oat_has_field(const struct oat *o, enum oat_hfield f);
int  oat_kv_get(const struct oat *o, const char *key, const char **val, size_t *len);  /* 1 found, 0 not */
/* iterates the key/value pairs: *pos starts at 0; 1 pair, 0 end */
int  oat_kv_next(const struct oat *o, size_t *pos, const char **key, size_t *klen,
		 const char **val, size_t *vlen);
/* entry class_def_idx of dex i's class offsets table: oatdata-relative offset of the OatClass */
int  oat_class_offset(const struct oat *o, size_t dex_i, uint32_t class_def_idx, uint32_t *off,
		      struct err *e);

/* "DIR/STEM.vdex" for "DIR/STEM.oat|.odex" into buf; false when path has no such suffix */
bool oat_vdex_path_for(const char *oat_path, char *buf, size_t cap);

/* version table access for tests and --json */
struct oat_version_info { unsigned min, max; const char *android; };
/* The OAT versions of the header rows (art/format/art_version.h). */
extern const struct art_version_table oat_versions;
/* Name of InstructionSet value isa in OAT version `version` ("arm", "thumb2", "arm64", "x86",
 * "x86_64", "mips", "mips64", "riscv64"), NULL when the value has no name there. */
const char *oat_isa_name(unsigned version, unsigned isa);
size_t oat_version_row_count(void);
const struct oat_version_info *oat_version_row(size_t i);

#endif
