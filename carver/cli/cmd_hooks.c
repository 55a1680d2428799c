/* cmd_hooks.c - `artcarve hooks INPUT`: hooked ART methods.
 *
 * INPUT is an OAT/ODEX file (its compiled methods are checked for inline jumps out of the
 * method), an ART image file (its ArtMethods' entry points are checked against the code of
 * the OAT files of the image set in its folder, then the code they enter), or a memory image
 * (OATs mapped in it, image spaces, JIT code cache and libart give the known code; ArtMethods
 * of the image spaces are checked).  See art/code/hooks.h for the inline patterns and for
 * what an image tells about the code its methods may enter.  Every code byte and literal is
 * read through one address space: the memory image itself, or for file inputs `code`, where
 * each OAT is mapped at its runtime address and the image at its image_begin. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "art/format/art_image.h"
#include "art/format/art_layout.h"
#include "art/code/disasm_art.h"
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
	size_t oats_unread;             /* OATs beside the images that did not read (first_unread says why) */
	struct err first_unread;
	struct image code;              /* file inputs: OATs at their runtime oatdata, the image at image_begin */
	const struct image *view;       /* where code and literals are read: &code or the memory image */
	struct hk_finding *found;
	size_t found_count;
	size_t methods_checked, code_checked;
	uint64_t last_inline_code;      /* consecutive ArtMethods often share an entry point */
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
	uint64_t va;
	int rc;

	/* the index holds only methods whose header decoded from these same bytes */
	if ((rc = oat_method_code_decode(&src->ix.space, en->code_offset, &mc, e)) < 0)
		return rc;
	va = o->runtime_oatdata + mc.code_offset;
	cx->code_checked++;
	if ((rc = hooks_first_jump(cx->dis, src->arch, mc.code.base, mc.code.len, va, cx->view, &j, e)) < 0)
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
		hk_label(f.source, sizeof(f.source), m->image ? m->image : "");
		return hk_add(cx, &f, e);
	}
	if (!(o = hk_oat_at(cx, m->entry)))
		return 0;
	code = m->entry - o->runtime_oatdata;
	if (code > UINT32_MAX || code == cx->last_inline_code)
		return 0;
	cx->last_inline_code = code;
	en = oat_code_index_entry_at(&o->src->ix, (uint32_t)code & ~(uint32_t)o->src->ix.space.code_delta);
	return en ? hk_check_code(cx, o, en, m, e) : 0;
}

/* ---- known code and OATs ---- */

/* Opens the OAT file at path and maps its code into cx->code at runtime_oatdata. */
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
	if ((rc = oat_code_map(&cx->code, &o->src->ix.space, o->runtime_oatdata, o->src->label, e)) < 0) {
		oat_code_sources_close(&o->srcs);
		return rc;
	}
	cx->oat_count++;
	return hooks_ranges_add(&cx->known, o->runtime_oatdata + o->src->ix.space.exec_rel,
				o->runtime_oatdata + o->src->ix.space.exec_rel + o->src->ix.space.exec.len,
				o->src->label, e);
}

/* hooks_oat_fn: an OAT beside an image of the folder; one that does not read (or overlaps
 * a mapping) is counted and its code stays unverified. */
static int hk_folder_oat(void *ctx, const char *oat_path, uint64_t oatdata, struct err *e)
{
	struct hk_ctx *cx = ctx;
	struct err why;
	int rc;

	err_init(&why);
	if ((rc = hk_add_oat(cx, oat_path, oatdata, true, &why)) == 0)
		return 0;
	if (rc == -ERR_NOMEM)
		return (*e = why, rc);
	if (cx->oats_unread++ == 0)
		cx->first_unread = why;
	return 0;
}

static int hk_run_art_file(struct hk_ctx *cx, const char *path, const struct cursor *f, struct err *e)
{
	struct hooks_folder folder = { .unverified = &cx->unverified };
	struct art_image img;
	int rc;

	if ((rc = art_image_load(&img, f->base, f->len, e)) < 0)
		return err_prefix(e, "%s", path);
	/* the image first: an OAT that would overlap it does not read */
	rc = art_image_map(&cx->code, &img, path, e);
	if (rc == 0)
		rc = hooks_image_folder(path, &img.h, hk_folder_oat, cx, &folder, e);
	if (rc == 0)
		rc = hooks_walk_image(cx->view, &img.h, path, hk_method, cx, e);
	for (size_t i = 0; rc == 0 && i < cx->oat_count; i++)
		rc = hk_check_oat_methods(cx, &cx->oats[i], e);
	art_image_release(&img);
	return rc < 0 ? err_prefix(e, "%s", path) : 0;
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
	if (cx->oats[0].srcs.is_image)
		cx->view = cx->oats[0].srcs.img;   /* the OATs are mapped in it already */
	for (size_t i = 0; i < cx->oat_count; i++) {
		const struct oat_code_source *src = &cx->oats[0].srcs.v[i];
		cx->oats[i].src = src;
		cx->oats[i].runtime_oatdata = src->oatdata_va;
		if (!cx->oats[0].srcs.is_image &&
		    (rc = oat_code_map(&cx->code, &src->ix.space, src->oatdata_va, src->label, e)) < 0)
			return err_prefix(e, "%s", path);
		if ((rc = hooks_ranges_add(&cx->known, src->exec_va, src->exec_va + src->ix.space.exec.len, src->label, e)) < 0)
			return rc;
	}
	if (cx->oats[0].srcs.is_image &&
	    ((rc = hooks_known_code(cx->view, &cx->known, e)) < 0 ||
	     (rc = hooks_walk_image_spaces(cx->view, hk_method, cx, e)) < 0))
		return rc;
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
		if (cx->oats_unread) {
			rep_u(&r, "oats_unread", cx->oats_unread);
			rep_s(&r, "first_oat_unread", cx->first_unread.msg);
		}
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
	if (cx->oats_unread)
		printf("%zu OAT file%s beside the images did not read, their code is unverified (first: %s)\n",
		       cx->oats_unread, cx->oats_unread == 1 ? "" : "s", cx->first_unread.msg);
}

static void hk_release(struct hk_ctx *cx)
{
	for (size_t i = 0; i < cx->oat_count; i++)
		if (cx->oats[i].srcs.count || cx->oats[i].srcs.img)
			oat_code_sources_close(&cx->oats[i].srcs);
	xfree(cx->oats);
	xfree(cx->found);
	img_close(&cx->code);
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
	err_init(&cx.first_unread);
	cx.json = o.json;
	input = argv[1];
	maps = o.maps;
	if ((rc = disasm_open(&cx.dis, &e)) < 0)
		return cli_report(argv[0], &e);
	img_init_empty(&cx.code, "code");
	cx.view = &cx.code;
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
