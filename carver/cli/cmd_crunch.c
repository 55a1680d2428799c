/* cmd_crunch.c - `artcarve crunch IN.hprof OUT.bmd`: HPROF -> BMD exactly as Badoo's
 * HprofCruncher does (plus 8-byte identifier input). */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "carver/cli/cli.h"
#include "carver/base/mapfile.h"
#include "carver/base/outfile.h"
#include "carver/base/xalloc.h"
#include "output/bmd/bmd_codec.h"

static int crunch_sink_write(void *ctx, const void *p, size_t n, struct err *e)
{
	return outf_write(ctx, p, n, e);
}

/* Drops mapped input pages the crunch pass has finished with: they stay in the page cache,
 * but not in this process's resident set (the second pass maps them in again). */
static void crunch_release(void *ctx, size_t upto)
{
	const struct mapfile *m = ctx;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	upto -= upto % page;
	if (m->data && upto && upto <= m->len)
		madvise((void *)(uintptr_t)m->data, upto, MADV_DONTNEED);
}

struct crunch_args {
	const char *in, *out;
	const char **keep;
	size_t keep_count;
	bool quiet;
};

static int crunch_parse(int argc, char **argv, struct crunch_args *a)
{
	int pos = 0;

	for (int i = 1; i < argc; i++) {
		const char *s = argv[i];
		if (!strcmp(s, "--keep-class")) {
			if (i + 1 >= argc)
				return cli_usage_error(argv[0], "--keep-class needs a class name");
			a->keep[a->keep_count++] = argv[++i];
		} else if (!strcmp(s, "--quiet") || !strcmp(s, "-q")) {
			a->quiet = true;
		} else if (s[0] == '-' && s[1]) {
			return cli_usage_error(argv[0], "unknown option '%s'", s);
		} else if (pos == 0) {
			a->in = s;
			pos++;
		} else if (pos == 1) {
			a->out = s;
			pos++;
		} else {
			return cli_usage_error(argv[0], "unexpected argument '%s'", s);
		}
	}
	if (pos < 2)
		return cli_usage_error(argv[0], "expected IN.hprof and OUT.bmd");
	return CLI_OK;
}

int cmd_crunch(int argc, char **argv)
{
	struct crunch_args a = { 0 };
	struct bmd_crunch_opts opts = { 0 };
	struct bmd_crunch_stats st;
	struct mapfile in = { 0 };
	struct outf out;
	struct bmd_sink sink = { crunch_sink_write, &out };
	struct err e;
	int rc;

	a.keep = xcalloc((size_t)argc + 1, sizeof(*a.keep));
	if (!a.keep) {
		fprintf(stderr, "artcarve %s: out of memory\n", argv[0]);
		return CLI_INTERNAL;
	}
	if ((rc = crunch_parse(argc, argv, &a)) != CLI_OK) {
		xfree(a.keep);
		return rc;
	}
	opts.keep_classes = a.keep;
	opts.keep_count = a.keep_count;
	opts.consumed = crunch_release;
	opts.consumed_ctx = &in;
	err_init(&e);
	outf_init(&out);
	if (mapfile_open(&in, a.in, &e) < 0 || outf_open(&out, a.out, &e) < 0)
		goto fail;
	if (bmd_crunch(in.data, in.len, a.in, &opts, &sink, &st, &e) < 0) {
		err_prefix(&e, "%s", a.in);
		goto fail;
	}
	if (outf_commit(&out, &e) < 0)
		goto fail;
	if (!a.quiet)
		fprintf(stderr,
			"crunched %s: %llu strings kept, %llu hashed, %llu classes, %llu instances, %llu object "
			"arrays, %llu primitive arrays, %llu roots, %llu legacy records -> %llu bytes (id size %u)\n",
			a.in, (unsigned long long)st.strings, (unsigned long long)st.hashed_strings,
			(unsigned long long)st.classes, (unsigned long long)st.instances,
			(unsigned long long)st.obj_arrays, (unsigned long long)st.prim_arrays,
			(unsigned long long)st.roots, (unsigned long long)st.legacy,
			(unsigned long long)st.bytes_out, st.id_size);
	mapfile_close(&in);
	xfree(a.keep);
	return CLI_OK;
fail:
	outf_abort(&out);
	mapfile_close(&in);
	xfree(a.keep);
	return cli_report(argv[0], &e);
}
