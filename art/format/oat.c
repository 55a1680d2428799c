/* oat.c - OAT reader: header and OatDexFile layouts are table rows (see oat.h). */
#include "art/format/oat.h"

#include <string.h>

#include "art/format/dex.h"
#include "carver/base/ck.h"
#include "carver/base/xalloc.h"

enum { OAT_MAGIC_VERSION_SIZE = 8, OAT_MAX_FIELDS = 24 };

/* ---- OatHeader rows ----
 * Field order of `class OatHeader` (runtime/oat.h) at the commit where each change landed
 * in AOSP master (GrapheneOS/platform_art history; versions before/after each commit):
 *   039 (5.0, 648d7112) and 045 (5.1): portable trampolines present.  Master removed them
 *                        (956af0f0) just before its own bump to 045, but the 5.1 release
 *                        kept them: key_value_store_size is at 80 in the real 5.1 odex files
 *                        of the corpus (a5.1_arm_nexus5-LMY47I)
 *   046 .. 126:          no portable trampolines (7070ccd8 = 6.0, f0192c86 = 7.0, cd3d23c1 = 8.0)
 *   127 .. 161:          + oat_dex_files_offset (0eb882bf; 8.1 = 131, 9 = 138 @b151df35)
 *   162 .. 163:          - image_patch_delta (e0669326)
 *   164 .. 169:          image_file_location_oat_checksum renamed boot_image_checksum (c10a0c60)
 *   170 .. 179:          - interpreter bridges, boot image fields (98fb083a; 10 @aafd1139)
 *   180 .. 189:          + jni_dlsym_lookup_critical_trampoline (fa458ac2; 11 = 183 @04c997d0)
 *   190 .. 224:          + nterp_trampoline (c39af940; 12 = 195 @48e83907)
 *   225 .. 239:          + bcp_bss_info_offset (69a87e30; 13 = 225 @9e6eb184, 14 = 230 @930710d4)
 * Development-only versions inside a range are assumed to share its layout. */
#define COMMON_HEAD OAT_H_CHECKSUM, OAT_H_ISA, OAT_H_ISA_FEATURES, OAT_H_DEX_FILE_COUNT
#define QUICK4 OAT_H_QUICK_GENERIC_JNI, OAT_H_QUICK_IMT_CONFLICT, OAT_H_QUICK_RESOLUTION, \
	OAT_H_QUICK_TO_INTERPRETER
#define INTERP2 OAT_H_INTERPRETER_TO_INTERPRETER_BRIDGE, OAT_H_INTERPRETER_TO_COMPILED_CODE_BRIDGE
#define IMAGE3 OAT_H_IMAGE_PATCH_DELTA, OAT_H_IMAGE_FILE_LOCATION_OAT_CHECKSUM, \
	OAT_H_IMAGE_FILE_LOCATION_OAT_DATA_BEGIN
#define END OAT_H_KEY_VALUE_STORE_SIZE, OAT_H_COUNT

/* ---- OatDexFile record rows (OatFileBase::Setup, runtime/oat_file.cc) ----
 *   039 .. 072: location, checksum, dex_file_offset, u32 class offsets inline (2bcb3b22, 7070ccd8)
 *   075 .. 126: + class_offsets_offset, lookup_table_offset (625a64aa; f0192c86 = 7.0, cd3d23c1 = 8.0)
 *   127 .. 134: + dex_layout_sections_offset, method_bss_mapping_offset (0eb882bf, 120aa286 =
 *                132).  Master's 131 (4147fcc4) lacks dex_layout_sections, but the 8.1
 *                release has it: the 8.1 boot.oat of the corpus points it at the 80 zero
 *                bytes of an empty DexLayoutSections (2 sections x 5 {start, end})
 *   135 .. 185: + type and string bss mappings (f3c52b42; b151df35 = 9, aafd1139, 04c997d0)
 *   186 .. 232: + public/package type bss mappings (8f63f108; 48e83907, 9e6eb184, 930710d4);
 *                lookup_table_offset is VDEX-relative from 193 (c005ada7)
 *   233 .. 239: + 8-byte dex magic after the location, 20-byte SHA-1 after the checksum
 *                (195e269d; GrapheneOS 14 @97192fae)
 * dex_file_offset is into the VDEX from 124 (8.0: kIsVdexEnabled, runtime/globals.h). */
enum oat_rfield {
	OAT_R_LOCATION, OAT_R_DEX_MAGIC, OAT_R_CHECKSUM, OAT_R_DEX_SHA1, OAT_R_DEX_FILE_OFFSET,
	OAT_R_CLASS_OFFSETS_INLINE, OAT_R_CLASS_OFFSETS_OFFSET, OAT_R_LOOKUP_TABLE,
	OAT_R_DEX_LAYOUT_SECTIONS, OAT_R_METHOD_BSS, OAT_R_TYPE_BSS, OAT_R_PUBLIC_TYPE_BSS,
	OAT_R_PACKAGE_TYPE_BSS, OAT_R_STRING_BSS, OAT_R_END
};
#define REC_HEAD OAT_R_LOCATION, OAT_R_CHECKSUM, OAT_R_DEX_FILE_OFFSET
#define REC_7 OAT_R_CLASS_OFFSETS_OFFSET, OAT_R_LOOKUP_TABLE
#define REC_BSS3 OAT_R_METHOD_BSS, OAT_R_TYPE_BSS, OAT_R_STRING_BSS
#define REC_BSS5 OAT_R_METHOD_BSS, OAT_R_TYPE_BSS, OAT_R_PUBLIC_TYPE_BSS, OAT_R_PACKAGE_TYPE_BSS, \
	OAT_R_STRING_BSS

struct oat_format {
	struct oat_version_info info;
	enum oat_hfield header[OAT_MAX_FIELDS];   /* ends with OAT_H_COUNT */
	enum oat_rfield record[16];               /* ends with OAT_R_END */
	bool records_at_offset;                   /* records at oat_dex_files_offset, else after the kv store */
	bool dex_in_vdex;
	bool lookup_in_vdex;
};

static const struct oat_format oat_formats[] = {
	{ { 39, 45, "5.0-5.1" },
	  { COMMON_HEAD, OAT_H_EXECUTABLE_OFFSET, INTERP2, OAT_H_JNI_DLSYM_LOOKUP,
	    OAT_H_PORTABLE_IMT_CONFLICT, OAT_H_PORTABLE_RESOLUTION, OAT_H_PORTABLE_TO_INTERPRETER,
	    QUICK4, IMAGE3, END },
	  { REC_HEAD, OAT_R_CLASS_OFFSETS_INLINE, OAT_R_END }, false, false, false },
	{ { 46, 72, "6.0" },
	  { COMMON_HEAD, OAT_H_EXECUTABLE_OFFSET, INTERP2, OAT_H_JNI_DLSYM_LOOKUP, QUICK4, IMAGE3, END },
	  { REC_HEAD, OAT_R_CLASS_OFFSETS_INLINE, OAT_R_END }, false, false, false },
	{ { 75, 123, "7.0-7.1" },
	  { COMMON_HEAD, OAT_H_EXECUTABLE_OFFSET, INTERP2, OAT_H_JNI_DLSYM_LOOKUP, QUICK4, IMAGE3, END },
	  { REC_HEAD, REC_7, OAT_R_END }, false, false, false },
	{ { 124, 126, "8.0" },
	  { COMMON_HEAD, OAT_H_EXECUTABLE_OFFSET, INTERP2, OAT_H_JNI_DLSYM_LOOKUP, QUICK4, IMAGE3, END },
	  { REC_HEAD, REC_7, OAT_R_END }, false, true, false },
	{ { 127, 134, "8.1" },
	  { COMMON_HEAD, OAT_H_OAT_DEX_FILES_OFFSET, OAT_H_EXECUTABLE_OFFSET, INTERP2,
	    OAT_H_JNI_DLSYM_LOOKUP, QUICK4, IMAGE3, END },
	  { REC_HEAD, REC_7, OAT_R_DEX_LAYOUT_SECTIONS, OAT_R_METHOD_BSS, OAT_R_END }, true, true, false },
	{ { 135, 161, "9" },
	  { COMMON_HEAD, OAT_H_OAT_DEX_FILES_OFFSET, OAT_H_EXECUTABLE_OFFSET, INTERP2,
	    OAT_H_JNI_DLSYM_LOOKUP, QUICK4, IMAGE3, END },
	  { REC_HEAD, REC_7, OAT_R_DEX_LAYOUT_SECTIONS, REC_BSS3, OAT_R_END }, true, true, false },
	{ { 162, 169, "dev" },
	  { COMMON_HEAD, OAT_H_OAT_DEX_FILES_OFFSET, OAT_H_EXECUTABLE_OFFSET, INTERP2,
	    OAT_H_JNI_DLSYM_LOOKUP, QUICK4, OAT_H_IMAGE_FILE_LOCATION_OAT_CHECKSUM,
	    OAT_H_IMAGE_FILE_LOCATION_OAT_DATA_BEGIN, END },
	  { REC_HEAD, REC_7, OAT_R_DEX_LAYOUT_SECTIONS, REC_BSS3, OAT_R_END }, true, true, false },
	{ { 170, 179, "10" },
	  { COMMON_HEAD, OAT_H_OAT_DEX_FILES_OFFSET, OAT_H_EXECUTABLE_OFFSET, OAT_H_JNI_DLSYM_LOOKUP,
	    QUICK4, END },
	  { REC_HEAD, REC_7, OAT_R_DEX_LAYOUT_SECTIONS, REC_BSS3, OAT_R_END }, true, true, false },
	{ { 180, 185, "11" },
	  { COMMON_HEAD, OAT_H_OAT_DEX_FILES_OFFSET, OAT_H_EXECUTABLE_OFFSET, OAT_H_JNI_DLSYM_LOOKUP,
	    OAT_H_JNI_DLSYM_LOOKUP_CRITICAL, QUICK4, END },
	  { REC_HEAD, REC_7, OAT_R_DEX_LAYOUT_SECTIONS, REC_BSS3, OAT_R_END }, true, true, false },
	{ { 186, 189, "dev" },
	  { COMMON_HEAD, OAT_H_OAT_DEX_FILES_OFFSET, OAT_H_EXECUTABLE_OFFSET, OAT_H_JNI_DLSYM_LOOKUP,
	    OAT_H_JNI_DLSYM_LOOKUP_CRITICAL, QUICK4, END },
	  { REC_HEAD, REC_7, OAT_R_DEX_LAYOUT_SECTIONS, REC_BSS5, OAT_R_END }, true, true, false },
	{ { 190, 192, "dev" },
	  { COMMON_HEAD, OAT_H_OAT_DEX_FILES_OFFSET, OAT_H_EXECUTABLE_OFFSET, OAT_H_JNI_DLSYM_LOOKUP,
	    OAT_H_JNI_DLSYM_LOOKUP_CRITICAL, QUICK4, OAT_H_NTERP, END },
	  { REC_HEAD, REC_7, OAT_R_DEX_LAYOUT_SECTIONS, REC_BSS5, OAT_R_END }, true, true, false },
	{ { 193, 224, "12" },
	  { COMMON_HEAD, OAT_H_OAT_DEX_FILES_OFFSET, OAT_H_EXECUTABLE_OFFSET, OAT_H_JNI_DLSYM_LOOKUP,
	    OAT_H_JNI_DLSYM_LOOKUP_CRITICAL, QUICK4, OAT_H_NTERP, END },
	  { REC_HEAD, REC_7, OAT_R_DEX_LAYOUT_SECTIONS, REC_BSS5, OAT_R_END }, true, true, true },
	{ { 225, 232, "13-14" },
	  { COMMON_HEAD, OAT_H_OAT_DEX_FILES_OFFSET, OAT_H_BCP_BSS_INFO_OFFSET, OAT_H_EXECUTABLE_OFFSET,
	    OAT_H_JNI_DLSYM_LOOKUP, OAT_H_JNI_DLSYM_LOOKUP_CRITICAL, QUICK4, OAT_H_NTERP, END },
	  { REC_HEAD, REC_7, OAT_R_DEX_LAYOUT_SECTIONS, REC_BSS5, OAT_R_END }, true, true, true },
	{ { 233, 239, "14 QPR" },
	  { COMMON_HEAD, OAT_H_OAT_DEX_FILES_OFFSET, OAT_H_BCP_BSS_INFO_OFFSET, OAT_H_EXECUTABLE_OFFSET,
	    OAT_H_JNI_DLSYM_LOOKUP, OAT_H_JNI_DLSYM_LOOKUP_CRITICAL, QUICK4, OAT_H_NTERP, END },
	  { OAT_R_LOCATION, OAT_R_DEX_MAGIC, OAT_R_CHECKSUM, OAT_R_DEX_SHA1, OAT_R_DEX_FILE_OFFSET,
	    REC_7, OAT_R_DEX_LAYOUT_SECTIONS, REC_BSS5, OAT_R_END }, true, true, true },
};
enum { OAT_FORMAT_COUNT = sizeof(oat_formats) / sizeof(oat_formats[0]) };

const struct art_version_table oat_versions =
	ART_VERSION_RANGE_TABLE("OAT", struct oat_format, oat_formats, OAT_FORMAT_COUNT, info.min, info.max,
				offsetof(struct oat_format, info.android));

size_t oat_version_row_count(void) { return OAT_FORMAT_COUNT; }

const struct oat_version_info *oat_version_row(size_t i)
{
	return i < OAT_FORMAT_COUNT ? &oat_formats[i].info : NULL;
}

static const char *const hfield_names[OAT_H_COUNT] = {
	[OAT_H_CHECKSUM] = "checksum", [OAT_H_ISA] = "instruction_set",
	[OAT_H_ISA_FEATURES] = "instruction_set_features", [OAT_H_DEX_FILE_COUNT] = "dex_file_count",
	[OAT_H_OAT_DEX_FILES_OFFSET] = "oat_dex_files_offset",
	[OAT_H_BCP_BSS_INFO_OFFSET] = "bcp_bss_info_offset",
	[OAT_H_EXECUTABLE_OFFSET] = "executable_offset",
	[OAT_H_INTERPRETER_TO_INTERPRETER_BRIDGE] = "interpreter_to_interpreter_bridge_offset",
	[OAT_H_INTERPRETER_TO_COMPILED_CODE_BRIDGE] = "interpreter_to_compiled_code_bridge_offset",
	[OAT_H_JNI_DLSYM_LOOKUP] = "jni_dlsym_lookup_offset",
	[OAT_H_JNI_DLSYM_LOOKUP_CRITICAL] = "jni_dlsym_lookup_critical_trampoline_offset",
	[OAT_H_PORTABLE_IMT_CONFLICT] = "portable_imt_conflict_trampoline_offset",
	[OAT_H_PORTABLE_RESOLUTION] = "portable_resolution_trampoline_offset",
	[OAT_H_PORTABLE_TO_INTERPRETER] = "portable_to_interpreter_bridge_offset",
	[OAT_H_QUICK_GENERIC_JNI] = "quick_generic_jni_trampoline_offset",
	[OAT_H_QUICK_IMT_CONFLICT] = "quick_imt_conflict_trampoline_offset",
	[OAT_H_QUICK_RESOLUTION] = "quick_resolution_trampoline_offset",
	[OAT_H_QUICK_TO_INTERPRETER] = "quick_to_interpreter_bridge_offset",
	[OAT_H_NTERP] = "nterp_trampoline_offset",
	[OAT_H_IMAGE_PATCH_DELTA] = "image_patch_delta",
	[OAT_H_IMAGE_FILE_LOCATION_OAT_CHECKSUM] = "image_file_location_oat_checksum",
	[OAT_H_IMAGE_FILE_LOCATION_OAT_DATA_BEGIN] = "image_file_location_oat_data_begin",
	[OAT_H_KEY_VALUE_STORE_SIZE] = "key_value_store_size",
};

const char *oat_hfield_name(enum oat_hfield f)
{
	return (unsigned)f < OAT_H_COUNT ? hfield_names[f] : "?";
}

/* ---- instruction sets (runtime/instruction_set.h @5.0 .. libartbase/arch @14) ---- */
struct oat_isa_row { unsigned min, max; const char *names[8]; };
static const struct oat_isa_row oat_isas[] = {
	{ 39, 182, { NULL, "arm", "arm64", "thumb2", "x86", "x86_64", "mips", "mips64" } },
	{ 183, 229, { NULL, "arm", "arm64", "thumb2", "x86", "x86_64", NULL, NULL } },  /* mips gone in 11 */
	{ 230, 239, { NULL, "arm", "arm64", "thumb2", "riscv64", "x86", "x86_64", NULL } },  /* 14 */
};

static const struct art_version_table oat_isa_versions =
	ART_VERSION_RANGE_TABLE("OAT instruction set", struct oat_isa_row, oat_isas,
				sizeof(oat_isas) / sizeof(oat_isas[0]), min, max, ART_VERSION_NONE);

const char *oat_isa_name(unsigned version, unsigned isa)
{
	long r = art_version_row_of(&oat_isa_versions, version);
	return r >= 0 && isa < 8 ? oat_isas[r].names[isa] : NULL;
}

static unsigned isa_pointer_size(const char *name)
{
	return !strcmp(name, "arm64") || !strcmp(name, "x86_64") || !strcmp(name, "mips64") ||
	       !strcmp(name, "riscv64") ? 8 : 4;
}

bool oat_probe_header(const uint8_t *p, size_t len)
{
	return len >= OAT_MAGIC_VERSION_SIZE && memcmp(p, "oat\n", 4) == 0 &&
	       p[4] >= '0' && p[4] <= '9' && p[5] >= '0' && p[5] <= '9' && p[6] >= '0' && p[6] <= '9' &&
	       p[7] == 0;
}

bool oat_has_field(const struct oat *o, enum oat_hfield f)
{
	if (!o->fmt)
		return false;
	for (size_t i = 0; o->fmt->header[i] != OAT_H_COUNT; i++)
		if (o->fmt->header[i] == f)
			return true;
	return false;
}

/* ---- header ---- */

static int parse_header(struct oat *o, struct err *e)
{
	const struct cursor *c = &o->oatdata;
	size_t pos = OAT_MAGIC_VERSION_SIZE, kv_size, row;
	unsigned v;
	int rc;

	if (!oat_probe_header(c->base, c->len))
		return ERR_SET(e, c->len < 8 ? ERR_TRUNC : ERR_CORRUPT, c->va,
			       "oatdata at 0x%llx: no OAT magic (expected \"oat\\n\" and 3 digits)",
			       (unsigned long long)c->va);
	if ((rc = art_version_match(&oat_versions, c, 4, &v, &row, e)) != 0)
		return err_prefix(e, "oatdata");
	o->version = v;
	o->fmt = &oat_formats[row];
	o->android = o->fmt->info.android;
	o->dex_in_vdex = o->fmt->dex_in_vdex;
	for (size_t i = 0; o->fmt->header[i] != OAT_H_COUNT; i++, pos += 4) {
		if (c->len - pos < 4)
			return ERR_SET(e, ERR_TRUNC, c->va + pos, "OAT %03u header at 0x%llx: truncated at field %s",
				       v, (unsigned long long)c->va, hfield_names[o->fmt->header[i]]);
		o->header[o->fmt->header[i]] = ld_u32le(c->base + pos);
	}
	o->header_size = pos;
	o->isa = o->header[OAT_H_ISA];
	o->isa_name = oat_isa_name(v, o->isa);
	if (!o->isa_name)
		return ERR_SET(e, ERR_CORRUPT, c->va + 12, "OAT %03u header at 0x%llx: unknown instruction set %u",
			       v, (unsigned long long)c->va, o->isa);
	o->pointer_size = isa_pointer_size(o->isa_name);
	kv_size = o->header[OAT_H_KEY_VALUE_STORE_SIZE];
	if (kv_size > c->len - pos)
		return ERR_SET(e, ERR_TRUNC, c->va + pos - 4,
			       "OAT %03u header at 0x%llx: key_value_store_size %zu exceeds the %zu bytes of oatdata left",
			       v, (unsigned long long)c->va, kv_size, c->len - pos);
	cur_init(&o->kv, c->base + pos, kv_size, c->va + pos);
	return 0;
}

/* ---- key/value store: key NUL value NUL ... (runtime/oat.cc GetStoreKeyValuePairByIndex) ---- */

static bool kv_string(const struct cursor *kv, size_t *pos, const char **s, size_t *n)
{
	const uint8_t *p = kv->base + *pos, *nul;

	if (*pos >= kv->len || !(nul = memchr(p, 0, kv->len - *pos)))
		return false;
	*s = (const char *)p;
	*n = (size_t)(nul - p);
	*pos += *n + 1;
	return true;
}

int oat_kv_next(const struct oat *o, size_t *pos, const char **key, size_t *klen,
		const char **val, size_t *vlen)
{
	size_t p = *pos;

	if (!kv_string(&o->kv, &p, key, klen) || !kv_string(&o->kv, &p, val, vlen))
		return 0;
	*pos = p;
	return 1;
}

int oat_kv_get(const struct oat *o, const char *key, const char **val, size_t *len)
{
	size_t pos = 0, klen;
	const char *k;

	while (oat_kv_next(o, &pos, &k, &klen, val, len))
		if (klen == strlen(key) && memcmp(k, key, klen) == 0)
			return 1;
	return 0;
}

static int check_kv(const struct oat *o, struct err *e)
{
	size_t pos = 0, kl, vl;
	const char *k, *v;

	while (oat_kv_next(o, &pos, &k, &kl, &v, &vl))
		;
	/* dex2oat pads nothing: the pairs must fill the store exactly */
	if (pos != o->kv.len)
		return ERR_SET(e, ERR_CORRUPT, o->kv.va + pos,
			       "OAT key/value store at 0x%llx: unterminated pair at byte %zu of %zu",
			       (unsigned long long)o->kv.va, pos, o->kv.len);
	return 0;
}

/* ---- OatDexFile records ---- */

struct rec_ctx {
	struct oat *o;
	const struct vdex *vdex;
	struct cursor c;   /* over oatdata, positioned at the record */
};

static int rec_u32(struct rec_ctx *r, const char *what, uint32_t *v, struct err *e)
{
	int rc = cur_u32le(&r->c, v, e);

	if (rc)
		return err_prefix(e, "OatDexFile at 0x%llx: %s", (unsigned long long)cur_where(&r->c), what);
	return 0;
}

/* dex bytes for the record: in oatdata (< 124) or in the paired VDEX */
static int locate_dex(struct rec_ctx *r, struct oat_dex_file *df, struct err *e)
{
	const struct cursor *base = &r->o->oatdata;
	struct dex d;
	size_t end;
	int rc;

	cur_init(&df->dex, NULL, 0, 0);
	if (r->o->dex_in_vdex) {
		if (df->dex_file_offset == 0) {
			df->dex_external = true;
			return 0;
		}
		if (!r->vdex)
			return 0;
		if (!vdex_has_dex(r->vdex))
			return 0;  /* the VDEX keeps only checksums/verifier deps */
		base = &r->vdex->file;
	}
	if (df->dex_file_offset >= base->len)
		return ERR_SET(e, ERR_CORRUPT, r->o->oatdata.va + df->record_off,
			       "OatDexFile at 0x%llx: dex_file_offset 0x%x beyond the %zu-byte %s",
			       (unsigned long long)(r->o->oatdata.va + df->record_off), df->dex_file_offset,
			       base->len, r->o->dex_in_vdex ? "VDEX" : "oatdata");
	end = base->len;
	if (r->o->dex_in_vdex) {  /* keep the cursor inside the VDEX dex (+shared data) area */
		const struct vdex *v = r->vdex;
		end = v->dex.off + v->dex.size;
		if (v->shared_data.size && v->shared_data.off == end)
			end += v->shared_data.size;
		if (df->dex_file_offset < v->dex.off || df->dex_file_offset >= end)
			return ERR_SET(e, ERR_CORRUPT, r->o->oatdata.va + df->record_off,
				       "OatDexFile at 0x%llx: dex_file_offset 0x%x outside the VDEX dex section [0x%zx, 0x%zx)",
				       (unsigned long long)(r->o->oatdata.va + df->record_off),
				       df->dex_file_offset, v->dex.off, end);
	}
	if ((rc = cur_sub(base, df->dex_file_offset, end - df->dex_file_offset, &df->dex, e)) != 0)
		return rc;
	if ((rc = dex_load(&d, &df->dex, e)) != 0)
		return err_prefix(e, "OatDexFile at 0x%llx", (unsigned long long)(r->o->oatdata.va + df->record_off));
	df->class_count = d.class_defs_size;
	return 0;
}

static int rec_location(struct rec_ctx *r, struct oat_dex_file *df, struct err *e)
{
	uint32_t n;
	int rc = rec_u32(r, "location size", &n, e);

	if (rc)
		return rc;
	if (n == 0)
		return ERR_SET(e, ERR_CORRUPT, cur_where(&r->c) - 4, "OatDexFile at 0x%llx: empty location",
			       (unsigned long long)(cur_where(&r->c) - 4));
	if ((rc = cur_bytes(&r->c, n, &df->location, e)) != 0)
		return err_prefix(e, "OatDexFile location of %u bytes", n);
	df->location_len = n;
	return 0;
}

static int rec_inline_offsets(struct rec_ctx *r, struct oat_dex_file *df, struct err *e)
{
	size_t bytes;
	int rc;

	/* the table length comes from the dex header, which must be inside the OAT here; the
	 * table follows the variable-length location, so it need not be aligned */
	if ((rc = locate_dex(r, df, e)) != 0)
		return rc;
	df->class_offsets_off = (uint32_t)r->c.pos;
	if (ck_mul(df->class_count, 4, &bytes) || (rc = cur_skip(&r->c, bytes, e)) != 0)
		return rc ? err_prefix(e, "OatDexFile class offsets (%u classes)", df->class_count)
			  : ERR_SET(e, ERR_CORRUPT, cur_where(&r->c), "class count overflow");
	return 0;
}

static int read_record(struct rec_ctx *r, struct oat_dex_file *df, struct err *e)
{
	bool located = false;
	int rc = 0;

	df->record_off = r->c.pos;
	for (const enum oat_rfield *f = r->o->fmt->record; *f != OAT_R_END && rc == 0; f++) {
		switch (*f) {
		case OAT_R_LOCATION: rc = rec_location(r, df, e); break;
		case OAT_R_DEX_MAGIC: rc = cur_bytes(&r->c, 8, &df->dex_magic, e); break;
		case OAT_R_CHECKSUM: rc = rec_u32(r, "checksum", &df->location_checksum, e); break;
		case OAT_R_DEX_SHA1: rc = cur_bytes(&r->c, 20, &df->dex_sha1, e); break;
		case OAT_R_DEX_FILE_OFFSET: rc = rec_u32(r, "dex_file_offset", &df->dex_file_offset, e); break;
		case OAT_R_CLASS_OFFSETS_INLINE: rc = rec_inline_offsets(r, df, e); located = true; break;
		case OAT_R_CLASS_OFFSETS_OFFSET: rc = rec_u32(r, "class_offsets_offset", &df->class_offsets_off, e); break;
		case OAT_R_LOOKUP_TABLE: rc = rec_u32(r, "lookup_table_offset", &df->lookup_table_off, e); break;
		case OAT_R_DEX_LAYOUT_SECTIONS: rc = rec_u32(r, "dex_layout_sections_offset", &df->dex_layout_sections_off, e); break;
		case OAT_R_METHOD_BSS: rc = rec_u32(r, "method_bss_mapping_offset", &df->method_bss_mapping_off, e); break;
		case OAT_R_TYPE_BSS: rc = rec_u32(r, "type_bss_mapping_offset", &df->type_bss_mapping_off, e); break;
		case OAT_R_PUBLIC_TYPE_BSS: rc = rec_u32(r, "public_type_bss_mapping_offset", &df->public_type_bss_mapping_off, e); break;
		case OAT_R_PACKAGE_TYPE_BSS: rc = rec_u32(r, "package_type_bss_mapping_offset", &df->package_type_bss_mapping_off, e); break;
		case OAT_R_STRING_BSS: rc = rec_u32(r, "string_bss_mapping_offset", &df->string_bss_mapping_off, e); break;
		case OAT_R_END: break;
		}
	}
	if (rc == 0 && !located)
		rc = locate_dex(r, df, e);
	return rc;
}

/* the class offsets table must lie inside oatdata (OatFileBase::Setup checks the same) */
static int check_class_offsets(const struct oat *o, const struct oat_dex_file *df, struct err *e)
{
	size_t bytes;

	bool inline_table = o->fmt->record[3] == OAT_R_CLASS_OFFSETS_INLINE;

	if ((!inline_table && df->class_offsets_off % 4) ||
	    ck_mul(df->class_count, 4, &bytes) || ck_range(df->class_offsets_off, bytes, o->oatdata.len))
		return ERR_SET(e, ERR_CORRUPT, o->oatdata.va + df->record_off,
			       "OatDexFile at 0x%llx: class offsets table at 0x%x (%u classes) is misaligned or outside oatdata",
			       (unsigned long long)(o->oatdata.va + df->record_off), df->class_offsets_off, df->class_count);
	return 0;
}

static int parse_records(struct oat *o, const struct vdex *vdex, struct err *e)
{
	struct rec_ctx r = { o, vdex, o->oatdata };
	uint32_t count = o->header[OAT_H_DEX_FILE_COUNT];
	size_t start = o->header_size + o->kv.len;
	int rc;

	if (o->fmt->records_at_offset)
		start = o->header[OAT_H_OAT_DEX_FILES_OFFSET];
	if ((rc = cur_seek(&r.c, start, e)) != 0)
		return err_prefix(e, "OAT %03u: OatDexFile records", o->version);
	/* each record is at least 16 bytes: bound the count before allocating */
	if (count > cur_remaining(&r.c) / 16)
		return ERR_SET(e, ERR_CORRUPT, o->oatdata.va + 20,
			       "OAT %03u header: dex_file_count %u cannot fit in the %zu bytes after 0x%zx",
			       o->version, count, cur_remaining(&r.c), start);
	o->dex_files = xcalloc(count ? count : 1, sizeof(*o->dex_files));
	if (!o->dex_files)
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory for %u OatDexFile records", count);
	for (uint32_t i = 0; i < count; i++) {
		if ((rc = read_record(&r, &o->dex_files[i], e)) != 0 ||
		    (rc = check_class_offsets(o, &o->dex_files[i], e)) != 0)
			return err_prefix(e, "OatDexFile %u of %u", i, count);
		o->dex_file_count = i + 1;
	}
	return 0;
}

static int parse_oatdata(struct oat *o, const struct cursor *c, const struct vdex *vdex, struct err *e)
{
	int rc;

	o->oatdata = *c;
	o->oatdata.pos = 0;
	if ((rc = parse_header(o, e)) != 0 || (rc = check_kv(o, e)) != 0)
		return rc;
	return parse_records(o, vdex, e);
}

int oat_parse_oatdata(struct oat *o, const struct cursor *c, const struct vdex *vdex, struct err *e)
{
	memset(o, 0, sizeof(*o));
	return parse_oatdata(o, c, vdex, e);
}

/* ---- ELF ---- */

static int symbol_offset(const struct oat *o, const char *name, uint64_t *va, uint64_t *size,
			 uint64_t *off, struct err *e)
{
	int rc = elfw_symbol(o->elf, name, va, size, e);

	if (rc == 0)
		rc = elfw_va_to_offset(o->elf, *va, off, e);
	return rc ? err_prefix(e, "OAT symbol %s", name) : 0;
}

static int map_symbols(struct oat *o, const uint8_t *data, size_t len, struct err *e)
{
	uint64_t data_va, data_size, data_off, exec_size, exec_off, last_va, last_size, last_off;
	size_t n;
	int rc;

	if ((rc = symbol_offset(o, "oatdata", &data_va, &data_size, &data_off, e)) != 0 ||
	    (rc = symbol_offset(o, "oatexec", &o->oatexec_va, &exec_size, &exec_off, e)) != 0 ||
	    (rc = symbol_offset(o, "oatlastword", &last_va, &last_size, &last_off, e)) != 0)
		return rc;
	o->oatdata_va = data_va;
	if (data_size == 0 && o->oatexec_va > data_va)
		data_size = o->oatexec_va - data_va;  /* older writers leave st_size 0 */
	if (ck_size(data_size, &n) || ck_range(data_off, n, len))
		return ERR_SET(e, ERR_TRUNC, data_off, "oatdata at file offset 0x%llx: %llu bytes exceed the %zu-byte file",
			       (unsigned long long)data_off, (unsigned long long)data_size, len);
	cur_init(&o->oatdata, data + data_off, n, data_off);
	if (last_va < o->oatexec_va || ck_size(last_va - o->oatexec_va + 4, &n) || ck_range(exec_off, n, len))
		return ERR_SET(e, ERR_CORRUPT, exec_off,
			       "oatexec at 0x%llx / oatlastword at 0x%llx: not an extent inside the %zu-byte file",
			       (unsigned long long)o->oatexec_va, (unsigned long long)last_va, len);
	cur_init(&o->oatexec, data + exec_off, n, exec_off);
	return 0;
}

int oat_open(struct oat *o, const uint8_t *data, size_t len, const char *label,
	     const struct vdex *vdex, struct err *e)
{
	int rc;

	memset(o, 0, sizeof(*o));
	if ((rc = elfw_open(&o->elf, data, len, label, e)) != 0 ||
	    (rc = map_symbols(o, data, len, e)) != 0)
		return rc;
	return parse_oatdata(o, &o->oatdata, vdex, e);
}

void oat_close(struct oat *o)
{
	elfw_close(o->elf);
	xfree(o->dex_files);
	memset(o, 0, sizeof(*o));
}

int oat_class_offset(const struct oat *o, size_t dex_i, uint32_t class_def_idx, uint32_t *off,
		     struct err *e)
{
	const struct oat_dex_file *df;

	if (dex_i >= o->dex_file_count)
		return ERR_SET(e, ERR_CORRUPT, ERR_NO_VA, "OAT: dex index %zu out of range (%zu)",
			       dex_i, o->dex_file_count);
	df = &o->dex_files[dex_i];
	if (df->class_count && class_def_idx >= df->class_count)
		return ERR_SET(e, ERR_CORRUPT, ERR_NO_VA, "OAT dex %zu: class_def %u out of range (%u)",
			       dex_i, class_def_idx, df->class_count);
	return cur_peek_u32le(&o->oatdata, (size_t)df->class_offsets_off + (size_t)class_def_idx * 4, off, e);
}

bool oat_vdex_path_for(const char *oat_path, char *buf, size_t cap)
{
	size_t n = strlen(oat_path), stem;

	if (n > 4 && !strcmp(oat_path + n - 4, ".oat"))
		stem = n - 4;
	else if (n > 5 && !strcmp(oat_path + n - 5, ".odex"))
		stem = n - 5;
	else
		return false;
	if (stem + 6 > cap)
		return false;
	memcpy(buf, oat_path, stem);
	memcpy(buf + stem, ".vdex", 6);
	return true;
}
