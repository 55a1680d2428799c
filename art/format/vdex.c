/* vdex.c - VDEX reader: one table row per version (see vdex.h for the layouts). */
#include "art/format/vdex.h"

#include <stdio.h>
#include <string.h>

#include "art/format/dex.h"
#include "carver/base/ck.h"

/* header field offsets */
enum {
	VH_MAGIC = 0, VH_VERSION = 4,
	/* 006/010: runtime/vdex_file.h Header @8.0 (cd3d23c1) */
	VH_L_DEX_COUNT = 8, VH_L_DEX_SIZE = 12, VH_L_VERIFIER_DEPS_SIZE = 16,
	VH_L_QUICKENING_INFO_SIZE = 20,
	/* 019/021: VerifierDepsHeader @9 (b151df35), @10 (aafd1139) */
	VH_S_DEX_SECTION_VERSION = 8, VH_S_DEX_COUNT = 12, VH_S_VERIFIER_DEPS_SIZE = 16,
	VH_S_BOOTCLASSPATH_CHECKSUMS_SIZE = 20, VH_S_CLASS_LOADER_CONTEXT_SIZE = 24,
	VDEX_DEX_SECTION_HEADER_SIZE = 12,  /* DexSectionHeader: dex, shared data, quickening sizes */
	/* 027: VdexFileHeader + VdexSectionHeader[] @12 (48e83907) */
	VH_N_NUMBER_OF_SECTIONS = 8, VDEX_SECTION_HEADER_SIZE = 12,
	VDEX_SECTION_CHECKSUMS = 0, VDEX_SECTION_DEX = 1, VDEX_SECTION_VERIFIER_DEPS = 2,
	VDEX_SECTION_TYPE_LOOKUP = 3,
};

struct vdex_format {
	struct vdex_version_info info;
	size_t header_size;
	unsigned dex_align;              /* alignment of each following dex file */
	bool quickening_table_offsets;   /* a u32 precedes each dex (019/021) */
	int (*layout)(struct vdex *v, struct err *e);
};

static int layout_legacy(struct vdex *v, struct err *e);
static int layout_split(struct vdex *v, struct err *e);
static int layout_sections(struct vdex *v, struct err *e);

static const struct vdex_format vdex_formats[] = {
	{ { 6, "8.0", "header+checksums+dex+deps+quickening", false }, 24, 1, false, layout_legacy },
	{ { 10, "8.1", "header+checksums+dex+deps+quickening", false }, 24, 1, false, layout_legacy },
	{ { 19, "9", "split header, dex section 002/000", true }, 20, 4, true, layout_split },
	{ { 21, "10-11", "split header + bcp checksums + clc", true }, 28, 4, true, layout_split },
	{ { 27, "12-14", "section table", false }, 12, 4, false, layout_sections },
};
enum { VDEX_FORMAT_COUNT = sizeof(vdex_formats) / sizeof(vdex_formats[0]) };

const struct art_version_table vdex_versions =
	ART_VERSION_RANGE_TABLE("vdex", struct vdex_format, vdex_formats, VDEX_FORMAT_COUNT, info.version,
				info.version, offsetof(struct vdex_format, info.android));

/* DexSectionHeader versions of 019/021 (runtime/vdex_file.h @9, @10: kDexSectionVersion
 * "002", kDexSectionVersionEmpty "000" when the VDEX stores no DEX) */
struct vdex_dex_section { const char *versions; const char *name; bool has_dex; };
static const struct vdex_dex_section vdex_dex_sections[] = {
	{ "000", "empty dex section", false },
	{ "002", "dex section", true },
};
const struct art_version_table vdex_dex_section_versions =
	ART_VERSION_LIST_TABLE("vdex dex section", struct vdex_dex_section, vdex_dex_sections,
			       sizeof(vdex_dex_sections) / sizeof(vdex_dex_sections[0]), versions,
			       offsetof(struct vdex_dex_section, name));

size_t vdex_version_count(void) { return VDEX_FORMAT_COUNT; }

const struct vdex_version_info *vdex_version_at(size_t i)
{
	return i < VDEX_FORMAT_COUNT ? &vdex_formats[i].info : NULL;
}

bool vdex_probe(const uint8_t *p, size_t len)
{
	return len >= 8 && memcmp(p, "vdex", 4) == 0;
}


static uint32_t hdr_u32(const struct vdex *v, size_t off) { return ld_u32le(v->file.base + off); }

/* Places region r = [*pos, *pos + size) and advances *pos; checks it fits the file. */
static int place(struct vdex *v, struct vdex_region *r, size_t *pos, uint64_t size,
		 const char *what, struct err *e)
{
	size_t n;

	if (ck_size(size, &n) || ck_range(*pos, n, v->file.len))
		return ERR_SET(e, ERR_TRUNC, v->file.va + *pos,
			       "vdex %03u: %s of %llu bytes at 0x%zx exceeds the %zu-byte file",
			       v->version, what, (unsigned long long)size, *pos, v->file.len);
	r->off = *pos;
	r->size = n;
	*pos += n;
	return 0;
}

static int place_checksums(struct vdex *v, size_t *pos, struct err *e)
{
	return place(v, &v->checksums, pos, (uint64_t)v->dex_count * 4, "dex checksums", e);
}

static int layout_legacy(struct vdex *v, struct err *e)
{
	size_t pos = v->fmt->header_size;
	int rc;

	v->dex_count = hdr_u32(v, VH_L_DEX_COUNT);
	if ((rc = place_checksums(v, &pos, e)) != 0 ||
	    (rc = place(v, &v->dex, &pos, hdr_u32(v, VH_L_DEX_SIZE), "dex section", e)) != 0 ||
	    (rc = place(v, &v->verifier_deps, &pos, hdr_u32(v, VH_L_VERIFIER_DEPS_SIZE), "verifier deps", e)) != 0)
		return rc;
	return place(v, &v->quickening_info, &pos, hdr_u32(v, VH_L_QUICKENING_INFO_SIZE), "quickening info", e);
}

static int layout_split(struct vdex *v, struct err *e)
{
	size_t pos = v->fmt->header_size;
	uint32_t quickening_size = 0;
	size_t row;
	int rc;

	if ((rc = art_version_match(&vdex_dex_section_versions, &v->file, VH_S_DEX_SECTION_VERSION,
				    &v->dex_section_version, &row, e)) != 0)
		return err_prefix(e, "vdex %03u", v->version);
	v->dex_count = hdr_u32(v, VH_S_DEX_COUNT);
	if ((rc = place_checksums(v, &pos, e)) != 0)
		return rc;
	if (vdex_dex_sections[row].has_dex) {
		struct vdex_region dsh;
		if ((rc = place(v, &dsh, &pos, VDEX_DEX_SECTION_HEADER_SIZE, "dex section header", e)) != 0 ||
		    (rc = place(v, &v->dex, &pos, hdr_u32(v, dsh.off), "dex section", e)) != 0 ||
		    (rc = place(v, &v->shared_data, &pos, hdr_u32(v, dsh.off + 4), "dex shared data", e)) != 0)
			return rc;
		quickening_size = hdr_u32(v, dsh.off + 8);
	}
	if ((rc = place(v, &v->verifier_deps, &pos, hdr_u32(v, VH_S_VERIFIER_DEPS_SIZE), "verifier deps", e)) != 0 ||
	    (rc = place(v, &v->quickening_info, &pos, quickening_size, "quickening info", e)) != 0)
		return rc;
	if (v->fmt->header_size <= VH_S_CLASS_LOADER_CONTEXT_SIZE)
		return 0;  /* 019 has no boot class path checksums / class loader context */
	if ((rc = place(v, &v->bootclasspath_checksums, &pos, hdr_u32(v, VH_S_BOOTCLASSPATH_CHECKSUMS_SIZE),
			"boot class path checksums", e)) != 0)
		return rc;
	return place(v, &v->class_loader_context, &pos, hdr_u32(v, VH_S_CLASS_LOADER_CONTEXT_SIZE),
		     "class loader context", e);
}

static int section_region(struct vdex *v, uint32_t kind, struct vdex_region *r, struct err *e)
{
	size_t h = v->fmt->header_size + (size_t)kind * VDEX_SECTION_HEADER_SIZE;
	size_t pos;
	char what[40];

	if (kind >= v->number_of_sections)
		return 0;  /* optional trailing section absent */
	if (hdr_u32(v, h) != kind)
		return ERR_SET(e, ERR_CORRUPT, v->file.va + h,
			       "vdex 027 at 0x%llx: section header %u has kind %u",
			       (unsigned long long)(v->file.va + h), kind, hdr_u32(v, h));
	pos = hdr_u32(v, h + 4);
	snprintf(what, sizeof(what), "section %u", kind);
	return place(v, r, &pos, hdr_u32(v, h + 8), what, e);
}

static int layout_sections(struct vdex *v, struct err *e)
{
	size_t table;
	int rc;

	v->number_of_sections = hdr_u32(v, VH_N_NUMBER_OF_SECTIONS);
	if (v->number_of_sections <= VDEX_SECTION_VERIFIER_DEPS ||
	    ck_mul(v->number_of_sections, VDEX_SECTION_HEADER_SIZE, &table) ||
	    ck_range(v->fmt->header_size, table, v->file.len))
		return ERR_SET(e, ERR_CORRUPT, v->file.va + VH_N_NUMBER_OF_SECTIONS,
			       "vdex 027 at 0x%llx: %u section headers do not fit the %zu-byte file (need at least 3)",
			       (unsigned long long)v->file.va, v->number_of_sections, v->file.len);
	if ((rc = section_region(v, VDEX_SECTION_CHECKSUMS, &v->checksums, e)) != 0 ||
	    (rc = section_region(v, VDEX_SECTION_DEX, &v->dex, e)) != 0 ||
	    (rc = section_region(v, VDEX_SECTION_VERIFIER_DEPS, &v->verifier_deps, e)) != 0 ||
	    (rc = section_region(v, VDEX_SECTION_TYPE_LOOKUP, &v->type_lookup_tables, e)) != 0)
		return rc;
	if (v->checksums.size % 4)
		return ERR_SET(e, ERR_CORRUPT, v->file.va + v->checksums.off,
			       "vdex 027: checksum section size %zu is not a multiple of 4", v->checksums.size);
	v->dex_count = (uint32_t)(v->checksums.size / 4);
	return 0;
}

int vdex_parse(struct vdex *v, const struct cursor *c, struct err *e)
{
	size_t row;
	int rc;

	memset(v, 0, sizeof(*v));
	cur_init(&v->file, c->base, c->len, c->va);
	if (!vdex_probe(c->base, c->len))
		return ERR_SET(e, c->len < 8 ? ERR_TRUNC : ERR_CORRUPT, c->va,
			       "at 0x%llx: no vdex magic (expected \"vdex\" and a version)", (unsigned long long)c->va);
	if ((rc = art_version_match(&vdex_versions, &v->file, VH_VERSION, &v->version, &row, e)) != 0)
		return rc;
	v->fmt = &vdex_formats[row];
	v->android = v->fmt->info.android;
	if (c->len < v->fmt->header_size)
		return ERR_SET(e, ERR_TRUNC, c->va, "vdex %03u at 0x%llx: %zu bytes, shorter than the %zu-byte header",
			       v->version, (unsigned long long)c->va, c->len, v->fmt->header_size);
	return v->fmt->layout(v, e);
}

const struct vdex_version_info *vdex_info(const struct vdex *v)
{
	return v->fmt ? &v->fmt->info : NULL;
}

int vdex_dex_checksum(const struct vdex *v, uint32_t i, uint32_t *out, struct err *e)
{
	if (i >= v->dex_count)
		return ERR_SET(e, ERR_CORRUPT, v->file.va, "vdex: dex index %u out of range (%u dex files)",
			       i, v->dex_count);
	*out = ld_u32le(v->file.base + v->checksums.off + (size_t)i * 4);
	return 0;
}

/* offset (within the dex region) of the u32 slot or dex header that starts entry i */
static int walk_to(const struct vdex *v, uint32_t i, size_t *entry, struct err *e)
{
	size_t pre = v->fmt->quickening_table_offsets ? 4 : 0, pos = 0;

	if (!vdex_has_dex(v))
		return ERR_SET(e, ERR_CORRUPT, v->file.va, "vdex %03u: the file holds no dex files (only their checksums)",
			       v->version);
	if (i >= v->dex_count)
		return ERR_SET(e, ERR_CORRUPT, v->file.va, "vdex: dex index %u out of range (%u dex files)",
			       i, v->dex_count);
	for (uint32_t k = 0;; k++) {
		size_t hdr = pos + pre, next;
		uint32_t file_size;
		const uint8_t *p = v->file.base + v->dex.off + hdr;
		uint64_t where = v->file.va + v->dex.off + hdr;

		if (hdr > v->dex.size || v->dex.size - hdr < DEX_HEADER_SIZE || !dex_probe(p, DEX_HEADER_SIZE))
			return ERR_SET(e, ERR_CORRUPT, where,
				       "vdex %03u: dex %u expected at 0x%llx (no dex header inside the dex section)",
				       v->version, k, (unsigned long long)where);
		if (k == i) {
			*entry = pos;
			return 0;
		}
		file_size = ld_u32le(p + 32);
		if (file_size < DEX_HEADER_SIZE || ck_add(hdr, file_size, &next) ||
		    ck_add(next, (v->fmt->dex_align - next % v->fmt->dex_align) % v->fmt->dex_align, &next))
			return ERR_SET(e, ERR_CORRUPT, where + 32, "vdex %03u: dex %u at 0x%llx has file_size %u",
				       v->version, k, (unsigned long long)where, file_size);
		pos = next;
	}
}

int vdex_dex(const struct vdex *v, uint32_t i, struct cursor *out, struct err *e)
{
	size_t entry, start, end = v->dex.off + v->dex.size;
	int rc = walk_to(v, i, &entry, e);

	if (rc)
		return rc;
	if (v->shared_data.size && v->shared_data.off == end)
		end += v->shared_data.size;
	start = v->dex.off + entry + (v->fmt->quickening_table_offsets ? 4 : 0);
	return cur_sub(&v->file, start, end - start, out, e);
}

int vdex_quickening_table_offset(const struct vdex *v, uint32_t i, uint32_t *out, struct err *e)
{
	size_t entry;
	int rc;

	*out = 0;
	if (!v->fmt->quickening_table_offsets)
		return 0;
	if ((rc = walk_to(v, i, &entry, e)) != 0)
		return rc;
	*out = ld_u32le(v->file.base + v->dex.off + entry);
	return 0;
}
