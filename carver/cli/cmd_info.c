/* cmd_info.c - `artcarve info IMAGE [--maps FILE] [--json] [--hash]`: what an image holds.
 *
 * The report is a list of sections (info_sections[] below), each printing its part as text
 * or as the value of one top-level JSON key.  JSON keys are stable and in this order:
 * "container", "path", "regions", "totals", then the sections later commands add (ART
 * runtime, spaces, boot images, classes): add a row and a function, keep the existing ones. */
#include <stdio.h>
#include <string.h>

#include "carver/base/hash.h"
#include "carver/base/rep.h"
#include "carver/cli/cli.h"
#include "carver/image/image.h"
#include "carver/cli/info_art.h"

struct info_ctx {
	const struct image *img;
	struct rep *r;  /* text, or one JSON object with a key per section */
	bool hash;      /* print an FNV-1a 64 hash of each region's captured bytes */
	bool image_only; /* only the image sections: no ART analysis */
	struct info_art *art; /* ART runtime model (carver/cli/info_art.h) */
};

/* Prints the section's text, or its JSON member named key. */
typedef int (*info_section_fn)(struct info_ctx *cx, const char *key, struct err *e);

struct info_section {
	const char *key;
	info_section_fn fn;
};

static int info_container(struct info_ctx *cx, const char *key, struct err *e)
{
	(void)e;
	rep_s(cx->r, key, cx->img->container);   /* text: "container: ..." */
	return 0;
}

static int info_path(struct info_ctx *cx, const char *key, struct err *e)
{
	(void)e;
	rep_s(cx->r, key, cx->img->path);
	return 0;
}

static void info_region_json(struct info_ctx *cx, const struct img_region *g)
{
	struct rep *r = cx->r;
	char prot[4], hash[24];

	rep_open(r, NULL, false);
	rep_hex(r, "start", g->start);
	rep_hex(r, "end", g->end);
	rep_s(r, "prot", img_prot_text(g->prot, prot));
	rep_u(r, "captured", g->data_len);
	rep_s(r, "name", g->name);
	if (g->file_offset)
		rep_hex(r, "file_offset", g->file_offset);
	if (cx->hash) {
		snprintf(hash, sizeof(hash), "%016llx", (unsigned long long)hash_fnv1a64(g->data, g->data_len));
		rep_s(r, "fnv1a64", hash);
	}
	rep_close(r);
}

static void info_region_text(struct info_ctx *cx, const struct img_region *g)
{
	FILE *fp = cx->r->fp;
	char prot[4];

	fprintf(fp, "  %016llx-%016llx %s %12zu", (unsigned long long)g->start, (unsigned long long)g->end,
		img_prot_text(g->prot, prot), g->data_len);
	if (cx->hash)
		fprintf(fp, " %016llx", (unsigned long long)hash_fnv1a64(g->data, g->data_len));
	fprintf(fp, " %s\n", g->name);
}

static int info_regions(struct info_ctx *cx, const char *key, struct err *e)
{
	const struct image *img = cx->img;

	(void)e;
	if (cx->r->json) {
		rep_open_lines(cx->r, key, true);
		for (size_t i = 0; i < img->region_count; i++)
			info_region_json(cx, &img->regions[i]);
		rep_close(cx->r);
		return 0;
	}
	fprintf(cx->r->fp, "regions: %zu\n  %-33s %s %12s%s %s\n", img->region_count, "START-END", "PRT", "CAPTURED",
		cx->hash ? " FNV-1A-64       " : "", "NAME");
	for (size_t i = 0; i < img->region_count; i++)
		info_region_text(cx, &img->regions[i]);
	return 0;
}

static int info_totals(struct info_ctx *cx, const char *key, struct err *e)
{
	const struct image *img = cx->img;
	struct rep *r = cx->r;
	size_t with_data = 0;

	(void)e;
	for (size_t i = 0; i < img->region_count; i++)
		with_data += img->regions[i].data_len != 0;
	if (r->json) {
		rep_open(r, key, false);
		rep_u(r, "regions", img->region_count);
		rep_u(r, "captured_regions", with_data);
		rep_u(r, "mapped", img_mapped_bytes(img));
		rep_u(r, "captured", img_captured_bytes(img));
		if (img->cut_regions) {
			rep_u(r, "cut_bytes", img->cut_bytes);
			rep_u(r, "cut_regions", img->cut_regions);
			rep_hex(r, "cut_from", img->cut_first_va);
			rep_s(r, "cut_first", img->cut_first);
		}
		rep_close(r);
	} else {
		fprintf(r->fp, "totals: %zu regions (%zu captured), %llu bytes mapped, %llu bytes captured\n",
			img->region_count, with_data, (unsigned long long)img_mapped_bytes(img),
			(unsigned long long)img_captured_bytes(img));
		if (img->cut_regions)
			fprintf(r->fp, "cut short: the file ends %llu bytes early; %zu regions from 0x%llx are not "
				"(all) captured; the first: %s\n", (unsigned long long)img->cut_bytes, img->cut_regions,
				(unsigned long long)img->cut_first_va, img->cut_first);
	}
	return 0;
}

/* ART sections: carver/cli/info_art.c */
static int info_art(struct info_ctx *cx, const char *key, struct err *e)
{
	return info_art_runtime(cx->art, cx->r, key, e);
}

static int info_spaces(struct info_ctx *cx, const char *key, struct err *e)
{
	return info_art_spaces(cx->art, cx->r, key, e);
}

static int info_images(struct info_ctx *cx, const char *key, struct err *e)
{
	return info_art_images(cx->art, cx->r, key, e);
}

static int info_files(struct info_ctx *cx, const char *key, struct err *e)
{
	return info_art_files(cx->art, cx->r, key, e);
}

static int info_classes(struct info_ctx *cx, const char *key, struct err *e)
{
	return info_art_classes(cx->art, cx->r, key, e);
}

static int info_anomalies(struct info_ctx *cx, const char *key, struct err *e)
{
	return info_art_anomalies(cx->art, cx->r, key, e);
}

/* The sections before the first ART one describe the image alone (--image-only). */
#define INFO_IMAGE_SECTIONS 4

static const struct info_section info_sections[] = {
	{ "container", info_container },
	{ "path", info_path },
	{ "regions", info_regions },
	{ "totals", info_totals },
	{ "art", info_art },
	{ "spaces", info_spaces },
	{ "boot_images", info_images },
	{ "files", info_files },
	{ "classes", info_classes },
	{ "anomalies", info_anomalies },
};

static int info_print(struct info_ctx *cx, struct err *e)
{
	size_t n = cx->image_only ? INFO_IMAGE_SECTIONS : sizeof(info_sections) / sizeof(info_sections[0]);

	if (cx->r->json)
		rep_open_lines(cx->r, NULL, false);
	for (size_t i = 0; i < n; i++) {
		int rc;
		if ((rc = info_sections[i].fn(cx, info_sections[i].key, e)))
			return rc;
	}
	if (cx->r->json) {
		rep_close(cx->r);
		fputc('\n', cx->r->fp);
	}
	return 0;
}

static int info_flush(const char *cmd, struct err *e)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		ERR_SET(e, ERR_IO, ERR_NO_VA, "cannot write the report");
		return cli_report(cmd, e);
	}
	return CLI_OK;
}

struct info_opts {
	bool json, hash, image_only;
	const char *maps, *art_version;
};

static const struct opt info_opts[] = {
	OPT_ROW_FLAG("--json", NULL, struct info_opts, json),
	OPT_ROW_FLAG("--hash", NULL, struct info_opts, hash),
	OPT_ROW_FLAG("--image-only", NULL, struct info_opts, image_only),
	OPT_ROW_STRING("--maps", struct info_opts, maps, "a file"),
	OPT_ROW_STRING("--art-version", struct info_opts, art_version, "a layout family"),
	OPT_ROW_END,
};
static const char *const info_pos[] = { "IMAGE", NULL };
const struct opt_spec cmd_info_spec = { info_opts, info_pos, 1, 1 };

int cmd_info(int argc, char **argv)
{
	struct info_opts o = { false, false, false, NULL, NULL };
	struct img_open_opts opts = { NULL };
	struct info_ctx cx = { NULL, NULL, false, false, NULL };
	struct rep r;
	struct info_art art;
	const char *path;
	struct image img;
	size_t npos;
	struct err e;
	int rc;

	if ((rc = cli_parse(argc, argv, &cmd_info_spec, &o, &npos)) != CLI_GO_ON)
		return rc;
	path = argv[1];
	opts.maps_path = o.maps;
	rep_init(&r, stdout, o.json);
	cx.r = &r;
	cx.hash = o.hash;
	cx.image_only = o.image_only;
	err_init(&e);
	if ((rc = img_open(&img, path, &opts, &e)))
		return cli_report(argv[0], &e);
	cx.img = &img;
	if (cx.image_only) {
		rc = info_print(&cx, &e);
		img_close(&img);
		return rc ? cli_report(argv[0], &e) : info_flush(argv[0], &e);
	}
	if ((rc = info_art_open(&art, &img, o.art_version, &e))) {
		img_close(&img);
		return cli_report(argv[0], &e);
	}
	cx.art = &art;
	rc = info_print(&cx, &e);
	info_art_close(&art);
	img_close(&img);
	if (rc)
		return cli_report(argv[0], &e);
	return info_flush(argv[0], &e);
}
