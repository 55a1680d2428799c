/* cmd_decrunch.c - `artcarve decrunch IN.bmd OUT.hprof [APK|JAR|DEX ...]`: BMD -> HPROF as
 * Badoo's BmdDecruncher does, recovering hashed strings from the given archives; --mat for a
 * file Eclipse MAT loads. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

struct decrunch_args {
	const char *in, *out;
	char **dict_files;
	int dict_count;
	struct bmd_decrunch_opts opts;
	bool quiet;
};

/* "123", "64K", "512M", "4G" -> bytes; nonzero on a bad size. */
static int decrunch_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	unsigned shift = 0;

	if (end == s)
		return 1;
	if (*end == 'K' || *end == 'k')
		shift = 10;
	else if (*end == 'M' || *end == 'm')
		shift = 20;
	else if (*end == 'G' || *end == 'g')
		shift = 30;
	if (shift)
		end++;
	if (*end || v == 0 || v > (UINT64_MAX >> shift))
		return 1;
	*out = (uint64_t)v << shift;
	return 0;
}

static int decrunch_parse(int argc, char **argv, struct decrunch_args *a)
{
	int pos = 0;

	for (int i = 1; i < argc; i++) {
		const char *s = argv[i];
		if (!strcmp(s, "--mat")) {
			a->opts.mat = true;
		} else if (!strcmp(s, "--quiet") || !strcmp(s, "-q")) {
			a->quiet = true;
		} else if (!strcmp(s, "--max-output")) {
			if (i + 1 >= argc || decrunch_size(argv[i + 1], &a->opts.max_output))
				return cli_usage_error(argv[0], "--max-output needs a size such as 512M or 4G");
			i++;
		} else if (!strcmp(s, "--id-size")) {
			if (i + 1 >= argc || (strcmp(argv[i + 1], "4") && strcmp(argv[i + 1], "8")))
				return cli_usage_error(argv[0], "--id-size needs 4 or 8");
			a->opts.id_size = (unsigned)atoi(argv[++i]);
		} else if (s[0] == '-' && s[1]) {
			return cli_usage_error(argv[0], "unknown option '%s'", s);
		} else if (pos == 0) {
			a->in = s;
			pos++;
		} else if (pos == 1) {
			a->out = s;
			pos++;
		} else {
			a->dict_files[a->dict_count++] = argv[i];
		}
	}
	if (pos < 2)
		return cli_usage_error(argv[0], "expected IN.bmd and OUT.hprof");
	return CLI_OK;
}

static void decrunch_summary(const struct decrunch_args *a, const struct bmd_decrunch_stats *st,
			     const struct bmd_dict *dict)
{
	if (a->quiet)
		return;
	fprintf(stderr,
		"decrunched %s: %llu strings (%llu hashed, %llu recovered), %llu classes, %llu instances, "
		"%llu object arrays, %llu primitive arrays, %llu roots -> %llu bytes (id size %u)\n",
		a->in, (unsigned long long)(st->strings + st->hashed_strings),
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
	struct decrunch_args a;
	struct bmd_decrunch_stats st;
	struct bmd_dict dict;
	struct mapfile in = { 0 };
	struct outf out;
	struct bmd_sink sink = { outf_sink_write, &out };
	struct err e;
	int rc;

	memset(&a, 0, sizeof(a));
	a.dict_files = xcalloc((size_t)argc + 1, sizeof(*a.dict_files));
	if (!a.dict_files) {
		fprintf(stderr, "artcarve %s: out of memory\n", argv[0]);
		return CLI_INTERNAL;
	}
	if ((rc = decrunch_parse(argc, argv, &a)) != CLI_OK) {
		xfree(a.dict_files);
		return rc;
	}
	err_init(&e);
	outf_init(&out);
	bmd_dict_init(&dict);
	for (int i = 0; i < a.dict_count; i++)
		if (bmd_dict_load_file(&dict, a.dict_files[i], &e) < 0)
			goto fail;
	a.opts.dict = a.dict_count ? &dict : NULL;
	if (mapfile_open(&in, a.in, &e) < 0)
		goto fail;
	if (outf_open(&out, a.out, &e) < 0)
		goto fail;
	if (bmd_decrunch(in.data, in.len, a.in, &a.opts, &sink, &st, &e) < 0) {
		err_prefix(&e, "%s", a.in);
		goto fail;
	}
	if (outf_commit(&out, &e) < 0)
		goto fail;
	decrunch_summary(&a, &st, a.opts.dict);
	mapfile_close(&in);
	bmd_dict_release(&dict);
	xfree(a.dict_files);
	return CLI_OK;
fail:
	outf_abort(&out);
	mapfile_close(&in);
	bmd_dict_release(&dict);
	xfree(a.dict_files);
	return cli_report(argv[0], &e);
}
