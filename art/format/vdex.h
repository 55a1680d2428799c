/* vdex.h - VDEX container reader (Android 8.0+), over borrowed bytes.
 *
 * Versions are rows of a format table (vdex.c), not version tests in the code:
 *   006 (8.0), 010 (8.1)   header {magic, version, dex count, dex_size, verifier_deps_size,
 *                          quickening_info_size}, checksums, dex files back to back,
 *                          verifier deps, quickening info        (runtime/vdex_file.h @8.0)
 *   019 (9), 021 (10, 11)  header {magic, verifier-deps version, dex-section version "002"
 *                          or "000" (no dex), dex count, verifier_deps_size [021:
 *                          bootclasspath_checksums_size, class_loader_context_size]},
 *                          checksums, [DexSectionHeader {dex_size, dex_shared_data_size,
 *                          quickening_info_size}, per dex a u32 quickening-table offset then
 *                          the dex (4-byte aligned), cdex shared data], verifier deps,
 *                          quickening info [021: bootclasspath checksums, class loader
 *                          context]                               (runtime/vdex_file.h @9, 10, 11)
 *   027 (12-14)            header {magic, version, number_of_sections}, section headers
 *                          {kind, offset, size} indexed by kind: 0 checksums, 1 dex files,
 *                          2 verifier deps, 3 type lookup tables  (runtime/vdex_file.h @12, 14)
 * The DEX files may be absent (019/021 dex-section "000", 027 empty dex section): then
 * dex_count still gives the number of checksums but vdex_has_dex() is false. */
#ifndef ARTCARVE_VDEX_H
#define ARTCARVE_VDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "art/format/art_version.h"
#include "carver/base/cursor.h"
#include "carver/base/err.h"

struct vdex_format;   /* a row of the version table (vdex.c) */

/* one region of the file, offsets from the vdex start */
struct vdex_region { size_t off, size; };

struct vdex {
	struct cursor file;              /* the whole VDEX, borrowed */
	unsigned version;                /* 6, 10, 19, 21, 27 (verifier-deps version for 019/021) */
	unsigned dex_section_version;    /* 019/021: 2, or 0 when no dex is stored; else 0 */
	const char *android;             /* release of the row, e.g. "8.1" */
	uint32_t dex_count;              /* number of dex checksums = dex files described */
	struct vdex_region checksums;    /* dex_count u32 location checksums */
	struct vdex_region dex;          /* the dex files (empty when absent) */
	struct vdex_region shared_data;  /* 019/021: compact-dex shared data after the dex files */
	struct vdex_region verifier_deps;
	struct vdex_region quickening_info;
	struct vdex_region bootclasspath_checksums, class_loader_context;  /* 021 */
	struct vdex_region type_lookup_tables;                             /* 027 */
	uint32_t number_of_sections;     /* 027 */
	const struct vdex_format *fmt;
};

bool vdex_probe(const uint8_t *p, size_t len);        /* "vdex" magic */
int  vdex_parse(struct vdex *v, const struct cursor *c, struct err *e);
static inline bool vdex_has_dex(const struct vdex *v) { return v->dex.size != 0; }
/* Cursor that starts at DEX i and runs to the end of the dex section including the cdex
 * shared data, so dex_load() works for compact dex; dex_load gives the exact extent.
 * -ERR_CORRUPT when the VDEX holds no DEX or the chain of dex headers is broken. */
int  vdex_dex(const struct vdex *v, uint32_t i, struct cursor *out, struct err *e);
int  vdex_dex_checksum(const struct vdex *v, uint32_t i, uint32_t *out, struct err *e);
/* 019/021: the u32 quickening-table offset stored before DEX i (0 elsewhere) */
int  vdex_quickening_table_offset(const struct vdex *v, uint32_t i, uint32_t *out, struct err *e);

/* version table access, e.g. for `art-file --json` and tests */
struct vdex_version_info {
	unsigned version;
	const char *android;
	const char *layout;
	bool dex_section_version;        /* the header names a DexSectionHeader version (019/021) */
};
size_t vdex_version_count(void);
/* The row of a parsed VDEX, NULL before vdex_parse succeeded. */
const struct vdex_version_info *vdex_info(const struct vdex *v);
/* The versions of the rows and of 019/021's dex section (art/format/art_version.h). */
extern const struct art_version_table vdex_versions, vdex_dex_section_versions;
const struct vdex_version_info *vdex_version_at(size_t i);

#endif
