/* cmd_decrunch.c - `artcarve decrunch IN.bmd OUT.hprof [APK|JAR|DEX ...]`: BMD -> HPROF that
 * Eclipse MAT, VisualVM and ahat load (--mat, a synonym kept for old scripts), recovering
 * hashed strings from the given archives; --badoo for Badoo's BmdDecruncher bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "carver/cli/cli.h"
#include "carver/base/mapfile.h"
#include "carver/base/outfile.h"
#include "carver/base/xalloc.h"
#include "output/bmd/bmd_codec.h"
#include "output/bmd/bmd_dict.h"

static int outf_sink_write(void *ctx, const void *p, size_t n, struct err *e)
{
	return outf_write(ctx, p, n, e);
}

/* The BMD is our own read-only mapping: the pages a pass is done with can go. */
static void decrunch_consumed(void *ctx, size_t upto)
{
	const struct mapfile *m = ctx;

	mapfile_drop(m, m->data, upto);
}

/* Where a Debian JDK keeps its modules (default-jdk-headless) */
#define DECRUNCH_JDK_DEFAULT "/usr/lib/jvm/default-java/jmods"

struct decrunch_args {
	bool mat, badoo, quiet, no_jdk;   /* --mat: the default, accepted for old scripts */
	const char *jdk;        /* --jdk PATH */
	const char *id_size;    /* "4", "8" or NULL (from the BMD) */
	uint64_t max_output;    /* 0 = no limit */
};

static const char *const decrunch_id_sizes[] = { "4", "8", NULL };
static const struct opt decrunch_opts[] = {
	OPT_ROW_FLAG("--mat", NULL, struct decrunch_args, mat),
	OPT_ROW_FLAG("--badoo", NULL, struct decrunch_args, badoo),
	OPT_ROW_FLAG("--quiet", "-q", struct decrunch_args, quiet),
	OPT_ROW_STRING("--jdk", struct decrunch_args, jdk, "a JDK home, its jmods directory or a .jmod file"),
	OPT_ROW_FLAG("--no-jdk", NULL, struct decrunch_args, no_jdk),
	OPT_ROW_SIZE("--max-output", struct decrunch_args, max_output, "a size such as 512M or 4G", 1, UINT64_MAX),
	OPT_ROW_CHOICE("--id-size", struct decrunch_args, id_size, "4 or 8", decrunch_id_sizes),
	OPT_ROW_END,
};
static const char *const decrunch_pos[] = { "IN.bmd", "OUT.hprof", "APK|JAR|DEX", NULL };
const struct opt_spec cmd_decrunch_spec = { decrunch_opts, decrunch_pos, 2, OPT_MANY };

static void decrunch_summary(const char *in, const struct bmd_decrunch_stats *st, const struct bmd_dict *dict)
{
	fprintf(stderr,
		"decrunched %s: %llu strings (%llu hashed, %llu recovered), %llu classes, %llu instances, "
		"%llu object arrays, %llu primitive arrays, %llu roots -> %llu bytes (id size %u)\n",
		in, (unsigned long long)(st->strings + st->hashed_strings),
		(unsigned long long)st->hashed_strings, (unsigned long long)st->recovered,
		(unsigned long long)st->classes, (unsigned long long)st->instances,
		(unsigned long long)st->obj_arrays, (unsigned long long)st->prim_arrays,
		(unsigned long long)st->roots, (unsigned long long)st->bytes_out, st->id_size);
	if (dict && dict->collisions)
		fprintf(stderr, "warning: %llu dictionary strings share a hash with another; the later one is used\n",
			(unsigned long long)dict->collisions);
}

int cmd_decrunch(int argc, char **argv)
{
	struct decrunch_args a = { false, false, false, false, NULL, NULL, 0 };
	struct bmd_decrunch_opts opts = { 0 };
	struct bmd_decrunch_stats st;
	struct bmd_dict dict;
	struct bmd_jdk jdk;
	struct mapfile in = { 0 };
	struct outf out;
	struct bmd_sink sink = { outf_sink_write, &out };
	const char *in_path, *out_path;
	size_t npos;
	struct err e;
	int rc;

	if ((rc = cli_parse(argc, argv, &cmd_decrunch_spec, &a, &npos)) != CLI_GO_ON)
		return rc;
	in_path = argv[1];
	out_path = argv[2];
	opts.mat = !a.badoo;
	opts.max_output = a.max_output;
	opts.id_size = a.id_size ? (unsigned)(a.id_size[0] - '0') : 0;
	err_init(&e);
	outf_init(&out);
	bmd_dict_init(&dict);
	bmd_jdk_init(&jdk);
	for (size_t i = 3; i <= npos; i++)   /* the string sources after IN and OUT */
		if (bmd_dict_load_file(&dict, argv[i], &e) < 0)
			goto fail;
	opts.dict = npos > 2 ? &dict : NULL;
	if (a.mat && a.badoo) {
		ERR_SET(&e, ERR_USAGE, ERR_NO_VA, "--mat and --badoo exclude each other");
		goto fail;
	}
	if (a.jdk && a.no_jdk) {
		ERR_SET(&e, ERR_USAGE, ERR_NO_VA, "--jdk and --no-jdk exclude each other");
		goto fail;
	}
	/* the loadable layout reads the installed JDK's names unless told otherwise; --jdk works
	 * in both layouts */
	if (!a.jdk && opts.mat && !a.no_jdk && access(DECRUNCH_JDK_DEFAULT, R_OK) == 0)
		a.jdk = DECRUNCH_JDK_DEFAULT;
	if (a.jdk) {
		if (bmd_jdk_open(&jdk, a.jdk, &e) < 0)
			goto fail;
		opts.jdk = &jdk;
	}
	if (mapfile_open(&in, in_path, &e) < 0)
		goto fail;
	opts.consumed = decrunch_consumed;
	opts.consumed_ctx = &in;
	if (outf_open(&out, out_path, &e) < 0)
		goto fail;
	if (bmd_decrunch(in.data, in.len, in_path, &opts, &sink, &st, &e) < 0) {
		err_prefix(&e, "%s", in_path);
		goto fail;
	}
	if (outf_commit(&out, &e) < 0)
		goto fail;
	if (!a.quiet)
		decrunch_summary(in_path, &st, opts.dict);
	mapfile_close(&in);
	bmd_dict_release(&dict);
	bmd_jdk_release(&jdk);
	return CLI_OK;
fail:
	outf_abort(&out);
	mapfile_close(&in);
	bmd_dict_release(&dict);
	bmd_jdk_release(&jdk);
	return cli_report(argv[0], &e);
}
