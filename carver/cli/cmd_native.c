/* cmd_native.c - `artcarve native IMAGE [--maps FILE] [--symbols DIR] [--json]
 * [--options STR]`: allocations made under Android's malloc_debug in the image's native
 * heap (carver/native/mdebug.h), with guard damage, fill and use-after-free evidence, and
 * the header's backtrace named through carver/image/symbolize.h (the ELF files mapped in the
 * image, else DIR + their path). */
#include <stdio.h>
#include <string.h>

#include "carver/base/rep.h"
#include "carver/cli/cli.h"
#include "carver/cli/native_rep.h"
#include "carver/image/image.h"
#include "carver/image/symbolize.h"
#include "carver/native/mdebug.h"

struct native_cli {
	bool json;
	const char *maps, *symbols, *options;
	uint64_t bits;
};

static const struct opt native_opts[] = {
	OPT_ROW_FLAG("--json", NULL, struct native_cli, json),
	OPT_ROW_STRING("--maps", struct native_cli, maps, "a file"),
	OPT_ROW_STRING("--symbols", struct native_cli, symbols, "a directory"),
	OPT_ROW_STRING("--options", struct native_cli, options, "malloc_debug options"),
	OPT_ROW_UINT("--bits", struct native_cli, bits, "32 or 64", 32, 64),
	OPT_ROW_END,
};
static const char *const native_pos[] = { "IMAGE", NULL };
const struct opt_spec cmd_native_spec = { native_opts, native_pos, 1, 1 };

static int native_run(const struct native_cli *cl, const char *path, struct err *e)
{
	struct img_open_opts io = { cl->maps };
	struct image img;
	struct mdebug_options given;
	struct mdebug_scan_opts so = { NULL, (unsigned)cl->bits };
	struct mdebug_result res;
	struct symz *sz = NULL;
	struct rep r;
	int rc;

	if (cl->options && (rc = mdebug_parse_options(cl->options, &given, e)))
		return rc;
	if (cl->options)
		so.options = &given;
	memset(&img, 0, sizeof(img));
	if ((rc = img_open(&img, path, &io, e)))
		return rc;
	memset(&res, 0, sizeof(res));
	if ((rc = mdebug_scan(&img, &so, &res, e)) || (rc = symz_new(&sz, cl->symbols, e)) ||
	    (rc = symz_add_image(sz, &img, e)))
		goto out;
	rep_init(&r, stdout, cl->json);
	rc = native_report(&r, &img, &res, sz, e);
	if (!rc && (fflush(stdout) != 0 || ferror(stdout)))
		rc = ERR_SET(e, ERR_IO, ERR_NO_VA, "cannot write the report");
out:
	symz_free(sz);
	mdebug_result_free(&res);
	img_close(&img);
	return rc;
}

int cmd_native(int argc, char **argv)
{
	struct native_cli cl = { 0 };
	struct err e;
	size_t npos;
	int rc = cli_parse(argc, argv, &cmd_native_spec, &cl, &npos);

	if (rc != CLI_GO_ON)
		return rc;
	if (cl.bits && cl.bits != 32 && cl.bits != 64)
		return cli_usage_error(argv[0], "--bits takes 32 or 64, not %llu", (unsigned long long)cl.bits);
	err_init(&e);
	rc = native_run(&cl, argv[1], &e);
	if (rc == -ERR_USAGE)
		return cli_usage_error(argv[0], "--options: %s", e.msg);
	return rc ? cli_report(argv[0], &e) : CLI_OK;
}
