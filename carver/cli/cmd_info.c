/* cmd_info.c - `artcarve info IMAGE [--maps FILE] [--json] [--hash]`: what an image holds.
 *
 * The report is a list of sections (info_sections[] below), each printing its part as text
 * or as the value of one top-level JSON key.  JSON keys are stable and in this order:
 * "container", "path", "regions", "totals", then the sections later commands add (ART
 * runtime, spaces, boot images, classes): add a row and a function, keep the existing ones. */
#include <stdio.h>
#include <string.h>

#include "carver/cli/cli.h"
#include "carver/image/image.h"
#include "carver/cli/info_art.h"

struct info_ctx {
	const struct image *img;
	FILE *out;
	bool json;
	bool hash;      /* print an FNV-1a 64 hash of each region's captured bytes */
	bool image_only; /* only the image sections: no ART analysis */
	struct info_art *art; /* ART runtime model (carver/cli/info_art.h) */
};

/* Prints the section's text, or its JSON value (the key is printed by the caller). */
typedef int (*info_section_fn)(struct info_ctx *cx, struct err *e);

struct info_section {
	const char *key;
	info_section_fn fn;
};

/* FNV-1a 64 (Fowler/Noll/Vo; offset basis 0xcbf29ce484222325, prime 0x100000001b3):
 * deterministic and dependency-free, to compare the bytes of different containers. */
static uint64_t info_fnv1a64(const uint8_t *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

static int info_container(struct info_ctx *cx, struct err *e)
{
	(void)e;
	if (cx->json)
		cli_json_string(cx->out, cx->img->container, strlen(cx->img->container));
	else
		fprintf(cx->out, "container: %s\n", cx->img->container);
	return 0;
}

static int info_path(struct info_ctx *cx, struct err *e)
{
	(void)e;
	if (cx->json)
		cli_json_string(cx->out, cx->img->path, strlen(cx->img->path));
	else
		fprintf(cx->out, "path: %s\n", cx->img->path);
	return 0;
}

static void info_region_json(struct info_ctx *cx, const struct img_region *r)
{
	char prot[4];

	fprintf(cx->out, "{\"start\": \"0x%llx\", \"end\": \"0x%llx\", \"prot\": \"%s\", \"captured\": %zu, \"name\": ",
		(unsigned long long)r->start, (unsigned long long)r->end, img_prot_text(r->prot, prot), r->data_len);
	cli_json_string(cx->out, r->name, strlen(r->name));
	if (r->file_offset)
		fprintf(cx->out, ", \"file_offset\": \"0x%llx\"", (unsigned long long)r->file_offset);
	if (cx->hash)
		fprintf(cx->out, ", \"fnv1a64\": \"%016llx\"", (unsigned long long)info_fnv1a64(r->data, r->data_len));
	fputc('}', cx->out);
}

static void info_region_text(struct info_ctx *cx, const struct img_region *r)
{
	char prot[4];

	fprintf(cx->out, "  %016llx-%016llx %s %12zu", (unsigned long long)r->start, (unsigned long long)r->end,
		img_prot_text(r->prot, prot), r->data_len);
	if (cx->hash)
		fprintf(cx->out, " %016llx", (unsigned long long)info_fnv1a64(r->data, r->data_len));
	fprintf(cx->out, " %s\n", r->name);
}

static int info_regions(struct info_ctx *cx, struct err *e)
{
	const struct image *img = cx->img;

	(void)e;
	if (!cx->json)
		fprintf(cx->out, "regions: %zu\n  %-33s %s %12s%s %s\n", img->region_count, "START-END", "PRT", "CAPTURED",
			cx->hash ? " FNV-1A-64       " : "", "NAME");
	else
		fputc('[', cx->out);
	for (size_t i = 0; i < img->region_count; i++) {
		if (cx->json) {
			fputs(i ? ",\n    " : "\n    ", cx->out);
			info_region_json(cx, &img->regions[i]);
		} else {
			info_region_text(cx, &img->regions[i]);
		}
	}
	if (cx->json)
		fputs(img->region_count ? "\n  ]" : "]", cx->out);
	return 0;
}

static int info_totals(struct info_ctx *cx, struct err *e)
{
	const struct image *img = cx->img;
	size_t with_data = 0;

	(void)e;
	for (size_t i = 0; i < img->region_count; i++)
		with_data += img->regions[i].data_len != 0;
	if (cx->json)
		fprintf(cx->out, "{\"regions\": %zu, \"captured_regions\": %zu, \"mapped\": %llu, \"captured\": %llu}",
			img->region_count, with_data, (unsigned long long)img_mapped_bytes(img),
			(unsigned long long)img_captured_bytes(img));
	else
		fprintf(cx->out, "totals: %zu regions (%zu captured), %llu bytes mapped, %llu bytes captured\n",
			img->region_count, with_data, (unsigned long long)img_mapped_bytes(img),
			(unsigned long long)img_captured_bytes(img));
	return 0;
}

/* ART sections: carver/cli/info_art.c */
static int info_art(struct info_ctx *cx, struct err *e) { return info_art_runtime(cx->art, cx->out, cx->json, e); }
static int info_spaces(struct info_ctx *cx, struct err *e) { return info_art_spaces(cx->art, cx->out, cx->json, e); }
static int info_images(struct info_ctx *cx, struct err *e) { return info_art_images(cx->art, cx->out, cx->json, e); }
static int info_files(struct info_ctx *cx, struct err *e) { return info_art_files(cx->art, cx->out, cx->json, e); }
static int info_classes(struct info_ctx *cx, struct err *e) { return info_art_classes(cx->art, cx->out, cx->json, e); }

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
};

static int info_print(struct info_ctx *cx, struct err *e)
{
	size_t n = cx->image_only ? INFO_IMAGE_SECTIONS : sizeof(info_sections) / sizeof(info_sections[0]);

	if (cx->json)
		fputs("{", cx->out);
	for (size_t i = 0; i < n; i++) {
		int rc;
		if (cx->json)
			fprintf(cx->out, "%s\n  \"%s\": ", i ? "," : "", info_sections[i].key);
		if ((rc = info_sections[i].fn(cx, e)))
			return rc;
	}
	if (cx->json)
		fputs("\n}\n", cx->out);
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
	struct info_ctx cx = { NULL, stdout, false, false, false, NULL };
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
	cx.json = o.json;
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
