/* hooks_image.c - what an ART image tells the hook checks (see hooks.h): its ArtMethods, the
 * code they may enter (its folder's OAT files, as the runtime maps a multi-image boot image),
 * and the known code mappings of a process image. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "art/code/hooks.h"
#include "carver/base/ck.h"

/* hooks_walk_methods' callback with the image named */
struct hooks_labelled {
	hooks_method_fn fn;
	void *ctx;
	const char *image;
};

static int hooks_label_method(void *ctx, const struct hooks_art_method *m, struct err *e)
{
	const struct hooks_labelled *l = ctx;
	struct hooks_art_method named = *m;

	named.image = l->image;
	return l->fn(l->ctx, &named, e);
}

int hooks_walk_image(const struct image *view, const struct art_image_header *h, const char *label,
		     hooks_method_fn fn, void *ctx, struct err *e)
{
	static const enum art_image_section secs[] = { ART_SEC_ART_METHODS, ART_SEC_RUNTIME_METHODS };
	const struct art_layout *l = art_layout_for_image(h->fmt);
	struct hooks_labelled named = { fn, ctx, label };
	int rc;

	if (!l)
		return ERR_SET(e, ERR_UNSUP, h->image_begin, "image version %03u has no layout row", h->version);
	for (size_t i = 0; i < 2; i++) {
		const struct art_image_section_val *s = &h->sections[secs[i]];
		struct cursor c;
		if (!h->has_section[secs[i]] || s->size == 0)
			continue;
		if ((rc = img_view(view, (uint64_t)h->image_begin + s->offset, s->size, &c, e)) < 0)
			return err_prefix(e, "image section %s [0x%x, +0x%x)", art_image_section_name(secs[i]), s->offset,
					  s->size);
		if ((rc = hooks_walk_methods(&c, l, h->pointer_size, secs[i] == ART_SEC_ART_METHODS, hooks_label_method,
					     &named, e)) < 0)
			return rc;
	}
	return 0;
}

int hooks_walk_image_spaces(const struct image *img, hooks_method_fn fn, void *ctx, struct err *e)
{
	for (size_t i = 0; i < img->region_count; i++) {
		const struct img_region *r = &img->regions[i];
		struct art_image_header h;
		struct err why;
		int rc;
		if (!r->data || !art_image_probe(r->data, r->data_len))
			continue;
		err_init(&why);
		/* a region that merely starts with the magic, or a header that does not parse, is
		 * no image space mapped at its own address: not walked */
		if (art_image_header_at(&h, img, r->start, &why) < 0 || h.image_begin != r->start)
			continue;
		if ((rc = hooks_walk_image(img, &h, r->name, fn, ctx, e)) < 0)
			return err_prefix(e, "image space at 0x%llx", (unsigned long long)r->start);
	}
	return 0;
}

static bool hooks_name_has(const char *name, const char *part) { return strstr(name, part) != NULL; }

int hooks_known_code(const struct image *img, struct hooks_ranges *known, struct err *e)
{
	int rc;

	/* JIT code: "jit-code-cache" (7.0+, jit/jit_code_cache.cc), "jit-cache" (memory names of
	 * other releases); libart's own code (trampolines, the interpreter) */
	for (size_t i = 0; i < img->region_count; i++) {
		const struct img_region *r = &img->regions[i];
		if (hooks_name_has(r->name, "jit-code-cache") || hooks_name_has(r->name, "jit-cache") ||
		    ((r->prot & IMG_PROT_X) &&
		     (hooks_name_has(r->name, "/libart.so") || hooks_name_has(r->name, "/libartd.so"))))
			if ((rc = hooks_ranges_add(known, r->start, r->end, r->name, e)) < 0)
				return rc;
	}
	return 0;
}

/* STEM.oat or STEM.odex beside an image file, into buf; false if neither exists. */
static bool hooks_oat_beside(const char *art_path, char *buf, size_t cap)
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

/* The header of a folder's image file when it is of the study's kind: 1, 0 when not (the
 * reason kept in f), <0 on lack of memory. */
static int hooks_folder_header(const char *path, const struct art_image_header *study, struct hooks_folder *f,
			       struct art_image_header *h, struct err *e)
{
	struct image file;
	struct cursor c;
	struct err why;
	int rc;

	err_init(&why);
	rc = img_from_file(&file, path, 0, &c, &why);
	if (rc == 0)
		rc = art_image_header_parse(h, &c, ART_IMAGE_IN_FILE, &why);
	img_close(&file);
	if (rc == -ERR_NOMEM)
		return (*e = why, rc);
	if (rc < 0) {
		if (f->skipped++ == 0)
			f->first_skip = why;
		return 0;
	}
	return h->version == study->version && h->pointer_size == study->pointer_size;
}

/* One image of the folder: its OAT through oat() when the file is beside it; its OAT's extent
 * [oat_file_begin, oat_file_end) is code that cannot be verified where the OAT is not read. */
static int hooks_folder_image(const char *path, const struct art_image_header *h, hooks_oat_fn oat, void *ctx,
			      struct hooks_folder *f, struct err *e)
{
	char oat_path[4400];
	int rc;

	f->images++;
	f->images_end = (uint64_t)h->image_begin + h->image_size > f->images_end ?
				(uint64_t)h->image_begin + h->image_size : f->images_end;
	if (h->oat_file_begin && h->oat_file_begin < f->oats_begin)
		f->oats_begin = h->oat_file_begin;
	if (h->oat_data_begin && hooks_oat_beside(path, oat_path, sizeof(oat_path)) &&
	    (rc = oat(ctx, oat_path, h->oat_data_begin, e)) < 0)
		return rc;
	return hooks_ranges_add(f->unverified, h->oat_file_begin, h->oat_file_end, "OAT file not available", e);
}

/* The boot image an app image or boot image extension runs with: 7-9 name its OAT extent,
 * 10+ the whole boot image reservation (images and their OAT files; runtime/image.h). */
static int hooks_boot_image(const struct art_image_header *h, struct hooks_ranges *unverified, struct err *e)
{
	int rc = 0;

	if (h->boot_oat_size)
		rc = hooks_ranges_add(unverified, h->boot_oat_begin, (uint64_t)h->boot_oat_begin + h->boot_oat_size,
				      "boot image OAT", e);
	else if (h->boot_image_size)
		rc = hooks_ranges_add(unverified, h->boot_image_begin, (uint64_t)h->boot_image_begin + h->boot_image_size,
				      "boot image", e);
	return rc;
}

int hooks_image_folder(const char *art_path, const struct art_image_header *study, hooks_oat_fn oat, void *ctx,
		       struct hooks_folder *f, struct err *e)
{
	char dir[4096], path[4400];
	const char *slash = strrchr(art_path, '/');
	struct dirent **names;
	int n, rc = 0;

	f->images = f->skipped = 0;
	f->images_end = 0;
	f->oats_begin = UINT64_MAX;
	err_init(&f->first_skip);
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - art_path) : 1, slash ? art_path : ".");
	if ((n = scandir(dir, &names, NULL, alphasort)) < 0)
		return ERR_SET(e, ERR_IO, ERR_NO_VA, "cannot list %s", dir);
	for (int i = 0; i < n; i++) {
		struct art_image_header h;
		size_t len = strlen(names[i]->d_name);
		if (rc == 0 && len > 4 && !strcmp(names[i]->d_name + len - 4, ".art")) {
			snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
			rc = hooks_folder_header(path, study, f, &h, e);
			rc = rc > 0 ? hooks_folder_image(path, &h, oat, ctx, f, e) : rc;
		}
		free(names[i]);
	}
	free(names);
	/* A multi-image boot image maps all images, then all OAT files in the same order
	 * (dex2oat --multi-image, gc/space/image_space.cc): OATs of components missing from the
	 * folder (typically the primary boot.oat) lie between the last image and the first OAT. */
	if (rc == 0 && f->images_end < f->oats_begin && f->oats_begin != UINT64_MAX)
		rc = hooks_ranges_add(f->unverified, f->images_end, f->oats_begin, "OAT files of absent boot image components",
				      e);
	return rc < 0 ? rc : hooks_boot_image(study, f->unverified, e);
}
