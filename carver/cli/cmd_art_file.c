/* cmd_art_file.c - `artcarve art-file FILE... [--json] [--extract-dex DIR]`: decodes DEX,
 * VDEX and OAT/ODEX files (and, through the artimg row, ART image files).
 *
 * The command is a table of file kinds (af_kinds[] below): each row has a probe on the
 * first bytes and a describe function that prints the decoded header and a summary of the
 * contents through the report writer (carver/base/rep.h), which emits either indented
 * text ("key: value" lines) or JSON with the same keys, so a row is written once for both.
 * Each file's report is built in memory and printed only when the file decoded completely;
 * a damaged file gives one line on stderr instead and the command goes on with the next. */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "art/format/art_image.h"
#include "art/format/dex.h"
#include "art/format/oat.h"
#include "art/format/vdex.h"
#include "carver/cli/cli.h"
#include "carver/cli/cmd_art_file_image.h"
#include "carver/wrap/elfw.h"
#include "carver/image/image.h"
#include "carver/base/outfile.h"
#include "carver/base/rep.h"
#include "carver/base/xalloc.h"

/* ---- shared state for one file ---- */

struct af_ctx {
	const char *path;
	struct cursor file;         /* the whole file, through its image (addresses = file offsets) */
	struct rep *r;
	const char *extract_dir;    /* --extract-dex DIR or NULL */
	unsigned extracted;         /* DEX files written for this input */
	bool no_vdex;
};

/* writes the DEX (its whole span: cdex shared data included) as DIR/<basename>-<i>.dex */
static int af_extract(struct af_ctx *cx, const struct dex *d, struct err *e)
{
	const char *base = strrchr(cx->path, '/');
	size_t span = dex_span(d), need;
	struct outf o;
	char *path;
	int rc;

	if (!cx->extract_dir)
		return 0;
	base = base ? base + 1 : cx->path;
	need = strlen(cx->extract_dir) + strlen(base) + 32;
	if (!(path = xmalloc(need)))
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory");
	snprintf(path, need, "%s/%s-%u.%s", cx->extract_dir, base, cx->extracted, d->compact ? "cdex" : "dex");
	outf_init(&o);
	if ((rc = outf_open(&o, path, e)) == 0 && (rc = outf_write(&o, d->file.base, span, e)) == 0)
		rc = outf_commit(&o, e);
	if (rc)
		outf_abort(&o);
	else {
		rep_s(cx->r, "extracted", path);
		cx->extracted++;
	}
	xfree(path);
	return rc;
}

/* ---- DEX ---- */

struct dex_tally { uint64_t static_fields, instance_fields, direct_methods, virtual_methods, code_items; };

static int dex_walk(const struct dex *d, struct dex_tally *t, struct err *e)
{
	uint64_t *slot[4] = { &t->static_fields, &t->instance_fields, &t->direct_methods, &t->virtual_methods };

	for (uint32_t i = 0; i < d->class_defs_size; i++) {
		struct dex_class_def def;
		struct dex_class_data it;
		struct dex_member m;
		const uint8_t *s;
		size_t n;
		int rc;

		if ((rc = dex_class_def(d, i, &def, e)) != 0 ||
		    (rc = dex_type_descriptor(d, def.class_idx, &s, &n, e)) != 0 ||
		    (rc = dex_class_data_open(d, &def, &it, e)) != 0)
			return err_prefix(e, "class_def %u", i);
		while ((rc = dex_class_data_next(&it, &m, e)) == 1) {
			struct dex_code_item ci;
			(*slot[m.kind])++;
			if (m.kind < DEX_DIRECT_METHOD || !m.code_off)
				continue;
			if ((rc = dex_code_item(d, m.code_off, m.idx, &ci, e)) != 0)
				return err_prefix(e, "class_def %u", i);
			t->code_items++;
		}
		if (rc < 0)
			return err_prefix(e, "class_def %u", i);
	}
	return 0;
}

/* Describes the DEX at c (c may run past it, e.g. to cdex shared data). */
static int af_dex_body(struct af_ctx *cx, const struct cursor *c, struct err *e)
{
	struct rep *r = cx->r;
	struct dex d;
	struct dex_tally t = { 0 };
	uint32_t computed, map_items;
	char ver[8];
	int rc;

	if ((rc = dex_load(&d, c, e)) != 0)
		return rc;
	snprintf(ver, sizeof(ver), "%03u", d.version);
	rep_s(r, "format", d.compact ? "cdex" : "dex");
	rep_s(r, "version", ver);
	rep_hex(r, "offset", d.file.va);
	rep_u(r, "file_size", d.file_size);
	rep_hex(r, "checksum", d.checksum);
	/* a DEX inside a VDEX is usually quickened in place, so a mismatch is reported, not fatal */
	computed = dex_checksum_of(&d);
	rep_bool(r, "checksum_ok", computed == d.checksum);
	if (computed != d.checksum)
		rep_hex(r, "checksum_computed", computed);
	if (d.compact) {
		rep_hex(r, "data_off", d.data_off);
		rep_u(r, "data_size", d.data_size);
		rep_hex(r, "feature_flags", d.feature_flags);
	}
	rep_u(r, "strings", d.string_ids_size);
	rep_u(r, "types", d.type_ids_size);
	rep_u(r, "protos", d.proto_ids_size);
	rep_u(r, "fields", d.field_ids_size);
	rep_u(r, "methods", d.method_ids_size);
	rep_u(r, "classes", d.class_defs_size);
	if ((rc = dex_map_validate(&d, e)) != 0 || (rc = dex_map_count(&d, &map_items, e)) != 0 ||
	    (rc = dex_walk(&d, &t, e)) != 0)
		return err_prefix(e, "dex at 0x%llx", (unsigned long long)d.file.va);
	rep_u(r, "map_items", map_items);
	rep_u(r, "static_fields", t.static_fields);
	rep_u(r, "instance_fields", t.instance_fields);
	rep_u(r, "direct_methods", t.direct_methods);
	rep_u(r, "virtual_methods", t.virtual_methods);
	rep_u(r, "code_items", t.code_items);
	return af_extract(cx, &d, e);
}

static int af_describe_dex(struct af_ctx *cx, struct err *e)
{
	return af_dex_body(cx, &cx->file, e);
}

/* ---- VDEX ---- */

static void rep_region(struct rep *r, const char *key, const struct vdex_region *g)
{
	rep_open(r, key, false);
	rep_hex(r, "offset", g->off);
	rep_u(r, "size", g->size);
	rep_close(r);
}

static int af_vdex_body(struct af_ctx *cx, const struct vdex *v, struct err *e)
{
	struct rep *r = cx->r;
	char ver[8];
	int rc;

	snprintf(ver, sizeof(ver), "%03u", v->version);
	rep_s(r, "version", ver);
	rep_s(r, "android", v->android);
	if (vdex_info(v) && vdex_info(v)->dex_section_version) {
		snprintf(ver, sizeof(ver), "%03u", v->dex_section_version);
		rep_s(r, "dex_section_version", ver);
	}
	rep_u(r, "dex_count", v->dex_count);
	rep_bool(r, "dex_embedded", vdex_has_dex(v));
	rep_region(r, "checksums", &v->checksums);
	rep_region(r, "dex_section", &v->dex);
	if (v->shared_data.size)
		rep_region(r, "dex_shared_data", &v->shared_data);
	rep_region(r, "verifier_deps", &v->verifier_deps);
	if (v->quickening_info.size)
		rep_region(r, "quickening_info", &v->quickening_info);
	if (v->bootclasspath_checksums.size)
		rep_region(r, "bootclasspath_checksums", &v->bootclasspath_checksums);
	if (v->class_loader_context.size)
		rep_region(r, "class_loader_context", &v->class_loader_context);
	if (v->number_of_sections)
		rep_u(r, "number_of_sections", v->number_of_sections);
	rep_open(r, "dex_files", true);
	for (uint32_t i = 0; i < v->dex_count; i++) {
		uint32_t ck;
		struct cursor c;
		rep_open(r, NULL, false);
		if ((rc = vdex_dex_checksum(v, i, &ck, e)) != 0)
			return rc;
		rep_hex(r, "location_checksum", ck);
		if (vdex_has_dex(v)) {
			if ((rc = vdex_dex(v, i, &c, e)) != 0 || (rc = af_dex_body(cx, &c, e)) != 0)
				return err_prefix(e, "vdex dex %u", i);
		}
		rep_close(r);
	}
	rep_close(r);
	return 0;
}

static int af_describe_vdex(struct af_ctx *cx, struct err *e)
{
	struct vdex v;
	int rc;

	if ((rc = vdex_parse(&v, &cx->file, e)) != 0)
		return rc;
	return af_vdex_body(cx, &v, e);
}

/* ---- OAT ---- */

static const char *elf_machine_name(unsigned m)
{
	static const struct { unsigned em; const char *name; } names[] = {
		{ 3, "x86" }, { 8, "mips" }, { 40, "arm" }, { 62, "x86_64" }, { 183, "arm64" }, { 243, "riscv64" },
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].em == m)
			return names[i].name;
	return "unknown";
}

static void af_oat_header(struct rep *r, const struct oat *o)
{
	char s[40];

	snprintf(s, sizeof(s), "ELF%u/%s", elfw_bits(o->elf), elf_machine_name(elfw_machine(o->elf)));
	rep_s(r, "elf", s);
	rep_hex(r, "oatdata", o->oatdata_va);
	rep_hex(r, "oatdata_offset", o->oatdata.va);
	rep_u(r, "oatdata_size", o->oatdata.len);
	rep_hex(r, "oatexec", o->oatexec_va);
	rep_u(r, "oatexec_size", o->oatexec.len);
	snprintf(s, sizeof(s), "%03u", o->version);
	rep_s(r, "version", s);
	rep_s(r, "android", o->android);
	rep_s(r, "isa", o->isa_name);
	rep_u(r, "dex_file_count", o->dex_file_count);
	rep_open(r, "header", false);
	for (unsigned f = 0; f < OAT_H_COUNT; f++)
		if (oat_has_field(o, f) && f != OAT_H_ISA && f != OAT_H_DEX_FILE_COUNT)
			rep_hex(r, oat_hfield_name(f), o->header[f]);
	rep_close(r);
}

static void af_oat_kv(struct rep *r, const struct oat *o)
{
	size_t pos = 0, kl, vl;
	const char *k, *v;

	rep_hex(r, "key_value_offset", o->kv.va);
	rep_u(r, "key_value_size", o->kv.len);
	rep_open(r, "key_value", false);
	while (oat_kv_next(o, &pos, &k, &kl, &v, &vl)) {
		char key[128];
		snprintf(key, sizeof(key), "%.*s", (int)(kl < 127 ? kl : 127), k);
		if (r->json)
			rep_sn(r, key, v, vl);
		else    /* text: "kv: KEY=VALUE", one per line, easy to grep */
			rep_line(r, "kv: %s=%.*s", key, (int)vl, v);
	}
	rep_close(r);
}

static int af_oat_dex_files(struct af_ctx *cx, const struct oat *o, struct err *e)
{
	struct rep *r = cx->r;
	int rc;

	rep_open(r, "dex_files", true);
	for (size_t i = 0; i < o->dex_file_count; i++) {
		const struct oat_dex_file *df = &o->dex_files[i];
		rep_open(r, NULL, false);
		rep_sn(r, "location", (const char *)df->location, df->location_len);
		rep_hex(r, "location_checksum", df->location_checksum);
		rep_hex(r, "dex_file_offset", df->dex_file_offset);
		rep_s(r, "dex_in", df->dex_external ? "apk/jar (external)" : o->dex_in_vdex ? "vdex" : "oat");
		rep_hex(r, "class_offsets_offset", df->class_offsets_off);
		if (df->lookup_table_off)
			rep_hex(r, "lookup_table_offset", df->lookup_table_off);
		if (df->dex_layout_sections_off)
			rep_hex(r, "dex_layout_sections_offset", df->dex_layout_sections_off);
		if (df->method_bss_mapping_off)
			rep_hex(r, "method_bss_mapping_offset", df->method_bss_mapping_off);
		if (df->type_bss_mapping_off)
			rep_hex(r, "type_bss_mapping_offset", df->type_bss_mapping_off);
		if (df->string_bss_mapping_off)
			rep_hex(r, "string_bss_mapping_offset", df->string_bss_mapping_off);
		if (df->dex.len) {
			rep_open(r, "dex", false);
			if ((rc = af_dex_body(cx, &df->dex, e)) != 0)
				return err_prefix(e, "OAT dex %zu", i);
			rep_close(r);
		}
		rep_close(r);
	}
	rep_close(r);
	return 0;
}

/* OAT with its VDEX (same folder, same stem) when one is there, for 8.0+ dex bytes */
static int af_describe_oat(struct af_ctx *cx, struct err *e)
{
	char vpath[4096];
	struct image vm = { 0 };
	struct vdex v;
	const struct vdex *vp = NULL;
	struct oat o;
	int rc;

	if (!cx->no_vdex && oat_vdex_path_for(cx->path, vpath, sizeof(vpath))) {
		struct err ve;
		struct cursor c;
		err_init(&ve);
		if (img_from_file(&vm, vpath, 0, &c, &ve) == 0) {
			if (vdex_parse(&v, &c, &ve) != 0) {
				img_close(&vm);
				return ERR_SET(e, ve.code, ve.va, "paired %s: %s", vpath, ve.msg);
			}
			vp = &v;
		}
	}
	rc = oat_open(&o, cx->file.base, cx->file.len, "ELF", vp, e);
	if (rc == 0) {
		af_oat_header(cx->r, &o);
		rep_s(cx->r, "vdex", vp ? vpath : "");
		af_oat_kv(cx->r, &o);
		rc = af_oat_dex_files(cx, &o, e);
	}
	oat_close(&o);
	img_close(&vm);
	return rc;
}

static bool af_probe_oat(const uint8_t *p, size_t len) { return elfw_probe(p, len); }

/* ---- ART image files (analysis in cmd_art_file_image.c) ---- */

static const char *af_base(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

static void af_art_header(struct rep *r, const struct art_image *img)
{
	const struct art_image_header *h = &img->h;
	struct afi_field f[AFI_MAX_FIELDS];
	size_t n = afi_header_fields(h, f);

	rep_open(r, "header", false);
	for (size_t i = 0; i < n; i++) {
		if (f[i].hex)
			rep_hex(r, f[i].name, (uint64_t)f[i].value);
		else if (f[i].value < 0)
			rep_i(r, f[i].name, f[i].value);
		else
			rep_u(r, f[i].name, (uint64_t)f[i].value);
	}
	rep_close(r);
	rep_s(r, "storage", !h->compressed ? "uncompressed"
			    : ART_IMAGE_HAS(h, blocks_count) ? "lz4 blocks" : art_image_storage_name(h->storage_mode));
	rep_u(r, "stored_size", h->stored_size);
	rep_open(r, "sections", false);
	for (unsigned i = 0; i < h->fmt->section_count; i++) {
		enum art_image_section k = h->fmt->section_kinds[i];
		rep_open(r, art_image_section_name(k), false);
		rep_hex(r, "offset", h->sections[k].offset);
		rep_u(r, "size", h->sections[k].size);
		rep_close(r);
	}
	rep_close(r);
	rep_open(r, "image_methods", false);
	for (unsigned i = 0; i < h->fmt->image_method_count; i++)
		rep_hex(r, h->fmt->image_method_names[i], h->image_methods[i]);
	rep_close(r);
	rep_open(r, "live_bitmap", false);
	rep_hex(r, "file_offset", img->bitmap ? img->bitmap_file_offset : 0);
	rep_u(r, "size", img->bitmap_len);
	rep_close(r);
}

static void af_art_walk(struct rep *r, const struct afi_report *ar)
{
	const struct mirror_walk *w = &ar->walk;
	const struct art_image_header *h = &ar->set.images[0].img.h;

	rep_open(r, "walk", false);
	rep_u(r, "objects", w->objects);
	rep_hex(r, "begin", h->objects_begin);
	rep_hex(r, "end", w->end);
	rep_hex(r, "objects_end", h->objects_end);
	rep_bool(r, "exact", w->end == h->objects_end);
	for (int k = 0; k < MW_KIND_COUNT; k++)
		rep_u(r, mw_kind_name(k), w->count[k]);
	rep_u(r, "class_pointers_outside", w->outside);
	rep_u(r, "classes_outside", w->unresolved_count);
	rep_u(r, "bitmap_checked", w->bitmap_checked);
	rep_hex(r, "java_lang_class", w->jlc);
	rep_s(r, "java_lang_class_from", w->class_roots_loaded ? "class roots" : "image contents");
	rep_open(r, "images", true);
	for (size_t i = 0; i < ar->set.image_count; i++)
		rep_s(r, NULL, af_base(ar->set.images[i].path));
	rep_close(r);
	rep_close(r);
}

static void af_art_classes(struct rep *r, const struct afi_report *ar)
{
	const struct afi_naming *nm = &ar->naming;
	char share[32];

	snprintf(share, sizeof(share), "%.1f%%", nm->total ? 100.0 * (double)nm->named / (double)nm->total : 100.0);
	rep_open(r, "classes", false);
	rep_u(r, "total", nm->total);
	rep_u(r, "named", nm->named);
	rep_s(r, "share_named", share);
	rep_u(r, "by_name_field", nm->by_source[MW_NAME_FIELD]);
	rep_u(r, "by_primitive", nm->by_source[MW_NAME_PRIMITIVE]);
	rep_u(r, "by_array", nm->by_source[MW_NAME_ARRAY]);
	rep_u(r, "by_dex", nm->by_source[MW_NAME_DEX]);
	rep_u(r, "dex_backed", nm->dex_backed);
	rep_u(r, "dex_backed_named", nm->dex_backed_named);
	rep_u(r, "own_dex", nm->own_dex);
	rep_u(r, "own_dex_found", nm->own_dex_found);
	rep_u(r, "name_field_checked", nm->checked);
	rep_u(r, "name_field_mismatched", nm->mismatched);
	if (nm->mismatched)
		rep_s(r, "first_mismatch", nm->first_mismatch);
	rep_open(r, "dex_used", true);
	for (size_t i = 0; i < ar->set.dex_count; i++)
		if (ar->set.dexes[i].used)
			rep_s(r, NULL, ar->set.dexes[i].location);
	rep_close(r);
	rep_open(r, "dex_missing", true);
	for (size_t i = 0; i < ar->set.missing_count; i++)
		rep_s(r, NULL, ar->set.missing[i]);
	rep_close(r);
	rep_close(r);
}

/* Files of the folder left out and damaged DexCaches (the walk went on without them). */
static void af_art_anomalies(struct rep *r, const struct anomaly_sink *s)
{
	char line[512];

	rep_open(r, "anomalies", false);
	rep_u(r, "total", s->total);
	for (unsigned c = 0; c < ANOM_CODE_COUNT; c++)
		if (s->per_code[c])
			rep_u(r, anomaly_code_name((enum anomaly_code)c), s->per_code[c]);
	rep_open(r, "records", true);
	for (size_t i = 0; i < s->count; i++) {
		snprintf(line, sizeof(line), "%s [%s] %s: %s", anomaly_code_name(s->v[i].code), s->v[i].space,
			 err_code_name(s->v[i].cause), s->v[i].msg);
		rep_s(r, NULL, line);
	}
	rep_close(r);
	rep_close(r);
}

static int af_describe_art(struct af_ctx *cx, struct err *e)
{
	struct afi_report ar;
	const struct art_image *img;
	int rc = afi_analyze(&ar, cx->path, e);

	if (rc == 0) {
		char version[8];
		img = &ar.set.images[0].img;
		snprintf(version, sizeof(version), "%03u", img->h.version);
		rep_s(cx->r, "version", version);
		rep_s(cx->r, "family", ar.lay ? ar.lay->family : img->h.fmt->family);
		af_art_header(cx->r, img);
		if (ar.lay) {
			af_art_walk(cx->r, &ar);
			af_art_classes(cx->r, &ar);
			af_art_anomalies(cx->r, &ar.set.anomalies);
		} else {
			rep_s(cx->r, "walk", "skipped: no mirror layout row for this image version");
		}
	}
	afi_release(&ar);
	return rc;
}

/* ---- the table of file kinds ---- */

struct af_kind {
	const char *name;
	bool (*probe)(const uint8_t *p, size_t len);
	int (*describe)(struct af_ctx *cx, struct err *e);
};

static const struct af_kind af_kinds[] = {
	{ "dex", dex_probe, af_describe_dex },
	{ "vdex", vdex_probe, af_describe_vdex },
	{ "oat", af_probe_oat, af_describe_oat },
	/* boot/app image files (.art): header, sections, object walk, class naming */
	{ "art", art_image_probe, af_describe_art },
};
enum { AF_KIND_COUNT = sizeof(af_kinds) / sizeof(af_kinds[0]) };

/* Decodes one file into a memory buffer; prints it only on success. */
static int af_file(const char *path, FILE *out, bool json, bool first, const char *extract_dir,
		   bool no_vdex, struct err *e)
{
	struct image m;
	struct cursor whole;
	const struct af_kind *kind = NULL;
	char *buf = NULL;
	size_t buf_len = 0;
	FILE *mem;
	struct rep r;
	struct af_ctx cx;
	int rc;

	if ((rc = img_from_file(&m, path, 0, &whole, e)) != 0)
		return rc;
	for (size_t i = 0; i < AF_KIND_COUNT && !kind; i++)
		if (af_kinds[i].probe(whole.base, whole.len))
			kind = &af_kinds[i];
	if (!kind) {
		img_close(&m);
		return ERR_SET(e, ERR_CORRUPT, 0, "%s: at 0x0: not a DEX, VDEX, OAT or ART image file (unknown magic)", path);
	}
	if (!(mem = open_memstream(&buf, &buf_len))) {
		img_close(&m);
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory");
	}
	rep_init_item(&r, mem, json, first);
	cx = (struct af_ctx){ path, whole, &r, extract_dir, 0, no_vdex };
	if (json)
		rep_open(&r, NULL, false);
	rep_s(&r, "file", path);
	rep_s(&r, "kind", kind->name);
	rep_u(&r, "size", whole.len);
	rc = kind->describe(&cx, e);
	if (json)
		rep_close(&r);
	fclose(mem);
	if (rc == 0)
		fwrite(buf, 1, buf_len, out);
	else {
		/* some lower layers (libelf) name no offset: add the one the error is about */
		if (!strstr(e->msg, "0x"))
			err_prefix(e, "at 0x%llx", (unsigned long long)(e->va == ERR_NO_VA ? 0 : e->va));
		err_prefix(e, "%s", path);
	}
	free(buf);
	img_close(&m);
	return rc;
}

struct art_file_opts {
	bool json, no_vdex;
	const char *extract_dir;
};

static const struct opt art_file_opts[] = {
	OPT_ROW_FLAG("--json", NULL, struct art_file_opts, json),
	OPT_ROW_FLAG("--no-vdex", NULL, struct art_file_opts, no_vdex),
	OPT_ROW_STRING("--extract-dex", struct art_file_opts, extract_dir, "a directory"),
	OPT_ROW_END,
};
static const char *const art_file_pos[] = { "FILE", NULL };
const struct opt_spec cmd_art_file_spec = { art_file_opts, art_file_pos, 1, OPT_MANY };

int cmd_art_file(int argc, char **argv)
{
	struct art_file_opts o = { false, false, NULL };
	bool first = true;
	int status = CLI_OK;
	size_t npos;
	int rc = cli_parse(argc, argv, &cmd_art_file_spec, &o, &npos);

	if (rc != CLI_GO_ON)
		return rc;
	if (o.json)
		fputs("{\"files\": [", stdout);
	for (size_t i = 1; i <= npos; i++) {
		struct err e;
		err_init(&e);
		rc = af_file(argv[i], stdout, o.json, first, o.extract_dir, o.no_vdex, &e);
		if (rc) {
			int s = cli_report(argv[0], &e);
			if (s > status)
				status = s;
		} else
			first = false;
	}
	if (o.json)
		fputs("]}\n", stdout);
	return status;
}
