/* cmd_hooks.c - `artcarve hooks INPUT`: hooked ART methods.
 *
 * INPUT is an OAT/ODEX file (its compiled methods are checked for inline jumps out of the
 * method), an ART image file (its ArtMethods' entry points are checked against the code of
 * the OAT files of the image set in its folder, then the code they enter), or a memory image
 * (OATs mapped in it, image spaces, JIT code cache and libart give the known code; ArtMethods
 * of the image spaces are checked).  See art/code/hooks.h for the inline patterns. */
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "art/format/art_image.h"
#include "art/format/art_layout.h"
#include "art/code/disasm.h"
#include "art/code/hooks.h"
#include "art/code/oat_code.h"
#include "carver/base/rep.h"
#include "carver/cli/cli.h"
#include "carver/image/image.h"
#include "carver/base/xalloc.h"

enum hk_kind { HK_INLINE, HK_ENTRY };

struct hk_finding {
	enum hk_kind kind;
	uint64_t art_method;        /* 0 for an OAT method without ArtMethod */
	uint64_t entry_at;          /* address (or file offset, image files) of the entry point field */
	uint64_t code;              /* entry point / code address (runtime address when known) */
	bool target_known;
	uint64_t target;
	uint32_t dex_method_index;
	char name[512];
	char how[160];
	char source[256];
};

/* An OAT whose code is known at runtime addresses: delta = runtime oatdata - source oatdata_va. */
struct hk_oat {
	struct oat_code_sources srcs;
	const struct oat_code_source *src;
	uint64_t runtime_oatdata;
	char *path;
};

struct hk_ctx {
	const char *cmd;
	bool json;
	struct disasm *dis;
	struct hooks_ranges known;
	struct hooks_ranges unverified; /* code whose bytes are not here (OATs absent from the folder) */
	size_t entries_unverified;
	struct hk_oat *oats;
	size_t oat_count;
	struct image *img;              /* memory image input */
	struct hk_finding *found;
	size_t found_count;
	size_t methods_checked, code_checked;
	uint64_t last_inline_code;      /* consecutive ArtMethods often share an entry point */
	const char *image_label;
};

static int hk_add(struct hk_ctx *cx, const struct hk_finding *f, struct err *e)
{
	for (size_t i = 0; i < cx->found_count; i++) {
		struct hk_finding *g = &cx->found[i];
		if (g->kind != f->kind || g->code != f->code)
			continue;
		if (f->kind == HK_ENTRY && g->art_method != f->art_method)
			continue;
		if (!g->art_method && f->art_method) {   /* the same patched code, now with its ArtMethod */
			g->art_method = f->art_method;
			g->entry_at = f->entry_at;
			g->dex_method_index = f->dex_method_index;
		}
		return 0;
	}
	if (cx->found_count % 64 == 0) {
		struct hk_finding *v = xreallocarray(cx->found, cx->found_count + 64, sizeof(*v));
		if (!v)
			return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory for %zu findings", cx->found_count + 64);
		cx->found = v;
	}
	cx->found[cx->found_count++] = *f;
	return 0;
}

/* ---- reading code at runtime addresses ---- */

static int hk_oat_read(const struct hk_oat *o, uint64_t va, void *buf, size_t n, struct err *e)
{
	const struct oat_code_space *s = &o->src->ix.space;
	uint64_t off = va - o->runtime_oatdata;
	struct cursor c;

	if (va < o->runtime_oatdata)
		return ERR_SET(e, ERR_UNMAPPED, va, "0x%" PRIx64 " is before the OAT", va);
	if (off < s->data.len && n <= s->data.len - off)
		return cur_sub(&s->data, (size_t)off, n, &c, e) < 0 ? -ERR_UNMAPPED : (memcpy(buf, c.base, n), 0);
	if (off >= s->exec_rel && off - s->exec_rel < s->exec.len && n <= s->exec.len - (off - s->exec_rel)) {
		memcpy(buf, s->exec.base + (off - s->exec_rel), n);
		return 0;
	}
	return ERR_SET(e, ERR_UNMAPPED, va, "0x%" PRIx64 " is outside the OAT", va);
}

static int hk_read(void *ctx, uint64_t va, void *buf, size_t n, struct err *e)
{
	struct hk_ctx *cx = ctx;

	if (cx->img)
		return img_read(cx->img, va, buf, n, e);
	for (size_t i = 0; i < cx->oat_count; i++)
		if (hk_oat_read(&cx->oats[i], va, buf, n, e) == 0)
			return 0;
	return ERR_SET(e, ERR_UNMAPPED, va, "0x%" PRIx64 " is in no known file", va);
}

/* ---- inline checks ---- */

static void hk_label(char *buf, size_t cap, const char *s)
{
	snprintf(buf, cap, "%s", s);
}

static int hk_check_code(struct hk_ctx *cx, const struct hk_oat *o, const struct oat_code_entry *en,
			 const struct hooks_art_method *m, struct err *e)
{
	const struct oat_code_source *src = o->src;
	struct oat_method_code mc;
	struct hooks_jump j;
	struct hk_finding f;
	struct err why;
	uint64_t va;
	int rc;

	if (oat_method_code_decode(&src->ix.space, en->code_offset, &mc, &why) < 0)
		return 0;   /* the index only holds decodable methods; a changed header is not a hook */
	va = o->runtime_oatdata + mc.code_offset;
	cx->code_checked++;
	if ((rc = hooks_first_jump(cx->dis, src->arch, mc.code.base, mc.code.len, va, hk_read, cx, &j, e)) < 0)
		return rc;
	if (!j.found)
		return 0;
	memset(&f, 0, sizeof(f));
	f.kind = HK_INLINE;
	f.code = va;
	f.target_known = j.target_known;
	f.target = j.target;
	if (m) {
		f.art_method = m->va;
		f.entry_at = m->entry_at;
		f.dex_method_index = m->dex_method_index;
	}
	hk_label(f.name, sizeof(f.name), oat_code_entry_name(&src->ix, en));
	hk_label(f.how, sizeof(f.how), j.how);
	hk_label(f.source, sizeof(f.source), src->label);
	return hk_add(cx, &f, e);
}

static int hk_check_oat_methods(struct hk_ctx *cx, const struct hk_oat *o, struct err *e)
{
	for (size_t i = 0; i < o->src->ix.count; i++) {
		int rc = hk_check_code(cx, o, &o->src->ix.entries[i], NULL, e);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* ---- ArtMethods ---- */

static const struct hk_oat *hk_oat_at(const struct hk_ctx *cx, uint64_t va)
{
	for (size_t i = 0; i < cx->oat_count; i++) {
		const struct oat_code_space *s = &cx->oats[i].src->ix.space;
		uint64_t exec = cx->oats[i].runtime_oatdata + s->exec_rel;
		if (va >= exec && va - exec < s->exec.len)
			return &cx->oats[i];
	}
	return NULL;
}

/* The index entry whose code starts at oatdata offset off (code delta removed), NULL if none. */
static const struct oat_code_entry *hk_entry_at(const struct oat_code_index *ix, uint32_t off)
{
	uint32_t delta;
	const char *name = oat_code_index_name_at(ix, off, &delta);
	size_t lo = 0, hi = ix->count;

	if (!name || delta)
		return NULL;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ix->by_code[mid].code_start < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < ix->count && ix->by_code[lo].code_start == off ? &ix->entries[ix->by_code[lo].entry] : NULL;
}

static int hk_method(void *ctx, const struct hooks_art_method *m, struct err *e)
{
	struct hk_ctx *cx = ctx;
	const struct hk_oat *o;
	const struct oat_code_entry *en;
	const struct hooks_range *r;
	struct hk_finding f;
	uint64_t code;

	cx->methods_checked++;
	if (m->entry == 0)
		return 0;
	r = hooks_ranges_find(&cx->known, m->entry);
	if (!r && hooks_ranges_find(&cx->unverified, m->entry)) {
		cx->entries_unverified++;
		return 0;
	}
	if (!r) {
		memset(&f, 0, sizeof(f));
		f.kind = HK_ENTRY;
		f.art_method = m->va;
		f.entry_at = m->entry_at;
		f.code = m->entry;
		f.dex_method_index = m->dex_method_index;
		snprintf(f.name, sizeof(f.name), "ArtMethod@0x%" PRIx64 " (dex method %u)", m->va, m->dex_method_index);
		snprintf(f.how, sizeof(f.how), "entry point 0x%" PRIx64 " is outside every known code mapping", m->entry);
		hk_label(f.source, sizeof(f.source), cx->image_label);
		return hk_add(cx, &f, e);
	}
	if (!(o = hk_oat_at(cx, m->entry)))
		return 0;
	code = m->entry - o->runtime_oatdata;
	if (code > UINT32_MAX || code == cx->last_inline_code)
		return 0;
	cx->last_inline_code = code;
	en = hk_entry_at(&o->src->ix, (uint32_t)code & ~(uint32_t)o->src->ix.space.code_delta);
	return en ? hk_check_code(cx, o, en, m, e) : 0;
}

static int hk_walk_image(struct hk_ctx *cx, const struct art_image_header *h, const uint8_t *data, size_t len,
			 struct err *e)
{
	static const enum art_image_section secs[] = { ART_SEC_ART_METHODS, ART_SEC_RUNTIME_METHODS };
	const struct art_layout *l = art_layout_by_image_version(h->version);
	int rc;

	if (!l)
		return ERR_SET(e, ERR_UNSUP, 0, "image version %03u has no layout row", h->version);
	for (size_t i = 0; i < 2; i++) {
		const struct art_image_section_val *s = &h->sections[secs[i]];
		struct cursor c;
		if (!h->has_section[secs[i]] || s->size == 0)
			continue;
		if (s->offset > len || s->size > len - s->offset)
			return ERR_SET(e, ERR_TRUNC, s->offset, "image section %s [0x%x, +0x%x) beyond the image",
				       art_image_section_name(secs[i]), s->offset, s->size);
		cur_init(&c, data + s->offset, s->size, (uint64_t)h->image_begin + s->offset);
		if ((rc = hooks_walk_methods(&c, l, h->pointer_size, secs[i] == ART_SEC_ART_METHODS, hk_method, cx, e)) < 0)
			return rc;
	}
	return 0;
}

/* ---- known code and OATs ---- */

static int hk_add_oat(struct hk_ctx *cx, const char *path, uint64_t runtime_oatdata, bool runtime_known,
		      struct err *e)
{
	struct hk_oat *v = xreallocarray(cx->oats, cx->oat_count + 1, sizeof(*v)), *o;
	int rc;

	if (!v)
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory opening %s", path);
	cx->oats = v;
	o = &cx->oats[cx->oat_count];
	memset(o, 0, sizeof(*o));
	if ((rc = oat_code_sources_open(&o->srcs, path, NULL, NULL, e)) < 0)
		return rc;
	if (o->srcs.is_image || o->srcs.count != 1) {
		oat_code_sources_close(&o->srcs);
		return ERR_SET(e, ERR_CORRUPT, 0, "%s is not an OAT file", path);
	}
	o->src = &o->srcs.v[0];
	o->runtime_oatdata = runtime_known ? runtime_oatdata : o->src->oatdata_va;
	cx->oat_count++;
	return hooks_ranges_add(&cx->known, o->runtime_oatdata + o->src->ix.space.exec_rel,
				o->runtime_oatdata + o->src->ix.space.exec_rel + o->src->ix.space.exec.len,
				o->src->label, e);
}

/* STEM.oat or STEM.odex beside an image file, into buf; false if neither exists. */
static bool hk_oat_beside(const char *art_path, char *buf, size_t cap)
{
	static const char *const exts[] = { ".oat", ".odex" };
	const char *dot = strrchr(art_path, '.');
	size_t stem = dot ? (size_t)(dot - art_path) : strlen(art_path);

	for (size_t i = 0; i < 2; i++) {
		struct stat st;
		if (stem + strlen(exts[i]) + 1 > cap)
			return false;
		memcpy(buf, art_path, stem);
		strcpy(buf + stem, exts[i]);
		if (stat(buf, &st) == 0 && S_ISREG(st.st_mode))
			return true;
	}
	return false;
}

/* One image of the folder: its OAT's code when the file is beside it, else its OAT's extent
 * [oat_file_begin, oat_file_end) as code that cannot be verified. */
static int hk_folder_image(struct hk_ctx *cx, const struct art_image_header *h, const char *oat, struct err *e)
{
	struct err quiet;
	int rc;

	if (oat && h->oat_data_begin) {
		rc = hk_add_oat(cx, oat, h->oat_data_begin, true, &quiet);
		if (rc == 0 || rc != -ERR_NOMEM)
			rc = 0;   /* an unreadable OAT leaves its code unverified */
		else
			return (*e = quiet, rc);
	}
	return hooks_ranges_add(&cx->unverified, h->oat_file_begin, h->oat_file_end, "OAT file not available", e);
}

/* Every image of the same version in the folder with its OAT beside it: the OAT's code is at
 * the image header's oat_data_begin (+ executable_offset) at runtime. */
static int hk_folder_oats(struct hk_ctx *cx, const char *art_path, const struct art_image_header *study,
			  struct err *e)
{
	char dir[4096], path[4400], oat[4400];
	const char *slash = strrchr(art_path, '/');
	struct dirent **names;
	uint64_t images_end = 0, oats_begin = UINT64_MAX;
	int n, rc = 0;

	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - art_path) : 1, slash ? art_path : ".");
	if ((n = scandir(dir, &names, NULL, alphasort)) < 0)
		return ERR_SET(e, ERR_IO, ERR_NO_VA, "cannot list %s", dir);
	for (int i = 0; i < n; i++) {
		struct image f;
		struct art_image_header h;
		struct cursor c;
		struct err quiet;
		size_t len = strlen(names[i]->d_name);
		if (rc == 0 && len > 4 && !strcmp(names[i]->d_name + len - 4, ".art")) {
			snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
			if (img_from_file(&f, path, 0, &c, &quiet) == 0) {
				if (art_image_header_parse(&h, &c, ART_IMAGE_IN_FILE, &quiet) == 0 && h.version == study->version &&
				    h.pointer_size == study->pointer_size) {
					rc = hk_folder_image(cx, &h, hk_oat_beside(path, oat, sizeof(oat)) ? oat : NULL, e);
					if ((uint64_t)h.image_begin + h.image_size > images_end)
						images_end = (uint64_t)h.image_begin + h.image_size;
					if (h.oat_file_begin && h.oat_file_begin < oats_begin)
						oats_begin = h.oat_file_begin;
				}
				img_close(&f);
			}
		}
		free(names[i]);
	}
	free(names);
	/* A multi-image boot image maps all images, then all OAT files in the same order
	 * (dex2oat --multi-image, gc/space/image_space.cc): OATs of components missing from the
	 * folder (typically the primary boot.oat) lie between the last image and the first OAT. */
	if (rc == 0 && images_end < oats_begin && oats_begin != UINT64_MAX)
		rc = hooks_ranges_add(&cx->unverified, images_end, oats_begin, "OAT files of absent boot image components", e);
	return rc;
}

static int hk_run_art_file(struct hk_ctx *cx, const char *path, const struct cursor *f, struct err *e)
{
	struct art_image img;
	int rc;

	if ((rc = art_image_load(&img, f->base, f->len, e)) < 0)
		return err_prefix(e, "%s", path);
	cx->image_label = path;
	rc = hk_folder_oats(cx, path, &img.h, e);
	/* the boot image an app image or boot image extension runs with: 7-9 name its OAT
	 * extent, 10+ the whole boot image reservation (images and their OAT files) */
	if (rc == 0 && img.h.boot_oat_size)
		rc = hooks_ranges_add(&cx->unverified, img.h.boot_oat_begin, (uint64_t)img.h.boot_oat_begin + img.h.boot_oat_size,
				      "boot image OAT", e);
	if (rc == 0 && img.h.boot_image_size && !img.h.boot_oat_size)
		rc = hooks_ranges_add(&cx->unverified, img.h.boot_image_begin,
				      (uint64_t)img.h.boot_image_begin + img.h.boot_image_size, "boot image", e);
	if (rc == 0)
		rc = hk_walk_image(cx, &img.h, img.data, img.len, e);
	for (size_t i = 0; rc == 0 && i < cx->oat_count; i++)
		rc = hk_check_oat_methods(cx, &cx->oats[i], e);
	art_image_release(&img);
	return rc < 0 ? err_prefix(e, "%s", path) : 0;
}

static bool hk_name_has(const char *name, const char *part)
{
	return strstr(name, part) != NULL;
}

/* Known code of a memory image: its OATs, the JIT code cache, libart's executable mappings. */
static int hk_image_ranges(struct hk_ctx *cx, struct err *e)
{
	int rc;

	for (size_t i = 0; i < cx->img->region_count; i++) {
		const struct img_region *r = &cx->img->regions[i];
		if (hk_name_has(r->name, "jit-code-cache") || hk_name_has(r->name, "jit-cache") ||
		    ((r->prot & IMG_PROT_X) && (hk_name_has(r->name, "/libart.so") || hk_name_has(r->name, "/libartd.so"))))
			if ((rc = hooks_ranges_add(&cx->known, r->start, r->end, r->name, e)) < 0)
				return rc;
	}
	return 0;
}

static int hk_image_spaces(struct hk_ctx *cx, struct err *e)
{
	for (size_t i = 0; i < cx->img->region_count; i++) {
		const struct img_region *r = &cx->img->regions[i];
		struct art_image_header h;
		struct err why;
		int rc;
		if (!r->data || !art_image_probe(r->data, r->data_len))
			continue;
		if (art_image_header_at(&h, cx->img, r->start, &why) < 0 || h.image_begin != r->start)
			continue;   /* not an image space mapped at its own address */
		cx->image_label = r->name;
		if ((rc = hk_walk_image(cx, &h, r->data, r->data_len, e)) < 0)
			return err_prefix(e, "image space at 0x%" PRIx64, r->start);
	}
	return 0;
}

static int hk_run_sources(struct hk_ctx *cx, const char *path, const char *maps, struct err *e)
{
	struct hk_oat *o = xcalloc(1, sizeof(*o));
	int rc;

	if (!o)
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory");
	cx->oats = o;
	if ((rc = oat_code_sources_open(&o->srcs, path, NULL, maps, e)) < 0) {
		xfree(o);
		cx->oats = NULL;
		return rc;
	}
	/* every source of a memory image shares srcs; one hk_oat per source */
	if (o->srcs.count > 1) {
		struct hk_oat *v = xreallocarray(cx->oats, o->srcs.count, sizeof(*v));
		if (!v)
			return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory");
		cx->oats = v;
		for (size_t i = 1; i < v[0].srcs.count; i++)
			memset(&v[i], 0, sizeof(v[i]));
	}
	cx->oat_count = cx->oats[0].srcs.count;
	for (size_t i = 0; i < cx->oat_count; i++) {
		const struct oat_code_source *src = &cx->oats[0].srcs.v[i];
		cx->oats[i].src = src;
		cx->oats[i].runtime_oatdata = src->oatdata_va;
		if ((rc = hooks_ranges_add(&cx->known, src->exec_va, src->exec_va + src->ix.space.exec.len, src->label, e)) < 0)
			return rc;
	}
	if (cx->oats[0].srcs.is_image) {
		cx->img = cx->oats[0].srcs.img;
		if ((rc = hk_image_ranges(cx, e)) < 0 || (rc = hk_image_spaces(cx, e)) < 0)
			return rc;
	}
	for (size_t i = 0; i < cx->oat_count; i++)
		if ((rc = hk_check_oat_methods(cx, &cx->oats[i], e)) < 0)
			return rc;
	return 0;
}

/* ---- output ---- */

static void hk_print(const struct hk_ctx *cx)
{
	if (cx->json) {
		struct rep r;
		rep_init(&r, stdout, true);
		rep_open(&r, NULL, false);
		rep_u(&r, "methods_checked", cx->methods_checked);
		rep_u(&r, "code_checked", cx->code_checked);
		rep_u(&r, "entries_unverified", cx->entries_unverified);
		rep_open_lines(&r, "hooks", true);
		for (size_t i = 0; i < cx->found_count; i++) {
			const struct hk_finding *f = &cx->found[i];
			rep_open(&r, NULL, false);
			rep_s(&r, "kind", f->kind == HK_INLINE ? "inline" : "entry");
			rep_s(&r, "method", f->name);
			rep_s(&r, "source", f->source);
			if (f->art_method) {
				rep_hex(&r, "art_method", f->art_method);
				rep_hex(&r, "entry_point_at", f->entry_at);
			}
			rep_hex(&r, "code", f->code);
			if (f->kind == HK_INLINE && f->target_known)
				rep_hex(&r, "target", f->target);
			rep_s(&r, "how", f->how);
			rep_close(&r);
		}
		rep_close(&r);
		rep_close(&r);
		putchar('\n');
		return;
	}
	for (size_t i = 0; i < cx->found_count; i++) {
		const struct hk_finding *f = &cx->found[i];
		printf("%s hook: %s\n  %s", f->kind == HK_INLINE ? "inline" : "entry", f->name, f->source);
		if (f->art_method)
			printf(", ArtMethod 0x%" PRIx64, f->art_method);
		printf(", code 0x%" PRIx64 "\n  %s", f->code, f->how);
		if (f->kind == HK_INLINE)
			f->target_known ? printf(" -> 0x%" PRIx64 "\n", f->target) : printf(" -> (literal unreadable)\n");
		else
			putchar('\n');
	}
	printf("%zu hook%s; %zu ArtMethods and %zu compiled methods checked", cx->found_count,
	       cx->found_count == 1 ? "" : "s", cx->methods_checked, cx->code_checked);
	if (cx->entries_unverified)
		printf("; %zu entry points lead into OAT files that are not here", cx->entries_unverified);
	putchar('\n');
}

static void hk_release(struct hk_ctx *cx)
{
	for (size_t i = 0; i < cx->oat_count; i++)
		if (cx->oats[i].srcs.count || cx->oats[i].srcs.img)
			oat_code_sources_close(&cx->oats[i].srcs);
	xfree(cx->oats);
	xfree(cx->found);
	hooks_ranges_release(&cx->known);
	hooks_ranges_release(&cx->unverified);
	disasm_close(cx->dis);
}

struct hk_opts {
	bool json;
	const char *maps;
};

static const struct opt hk_opts[] = {
	OPT_ROW_FLAG("--json", NULL, struct hk_opts, json),
	OPT_ROW_STRING("--maps", struct hk_opts, maps, "a file"),
	OPT_ROW_END,
};
static const char *const hk_pos[] = { "OAT, ART-IMAGE or IMAGE", NULL };
const struct opt_spec cmd_hooks_spec = { hk_opts, hk_pos, 1, 1 };

int cmd_hooks(int argc, char **argv)
{
	struct hk_ctx cx = { .cmd = argv[0] };
	struct hk_opts o = { false, NULL };
	const char *input, *maps;
	struct image f = { 0 };
	struct cursor whole = { 0 };
	size_t npos;
	struct err e;
	int rc = cli_parse(argc, argv, &cmd_hooks_spec, &o, &npos);

	if (rc != CLI_GO_ON)
		return rc;
	err_init(&e);
	cx.json = o.json;
	input = argv[1];
	maps = o.maps;
	if ((rc = disasm_open(&cx.dis, &e)) < 0)
		return cli_report(argv[0], &e);
	{
		struct stat st;
		if (stat(input, &st) == 0 && S_ISREG(st.st_mode) && (rc = img_from_file(&f, input, 0, &whole, &e)) < 0) {
			hk_release(&cx);
			return cli_report(argv[0], &e);
		}
	}
	if (whole.len && art_image_probe(whole.base, whole.len))
		rc = hk_run_art_file(&cx, input, &whole, &e);
	else
		rc = hk_run_sources(&cx, input, maps, &e);
	if (rc == 0)
		hk_print(&cx);
	img_close(&f);
	hk_release(&cx);
	return rc < 0 ? cli_report(argv[0], &e) : CLI_OK;
}
