/* cmd_crunch.c - `artcarve crunch IN.hprof OUT.bmd`: HPROF -> BMD exactly as Badoo's
 * HprofCruncher does (plus 8-byte identifier input). */
#include <stdio.h>
#include <string.h>

#include "carver/cli/cli.h"
#include "carver/base/outfile.h"
#include "carver/base/progress.h"
#include "carver/base/xalloc.h"
#include "output/bmd/bmd_codec.h"

static int crunch_sink_write(void *ctx, const void *p, size_t n, struct err *e)
{
	return outf_write(ctx, p, n, e);
}

struct crunch_args {
	struct opt_list keep;   /* --keep-class values */
	bool quiet;
};

static const struct opt crunch_opts[] = {
	OPT_ROW_LIST("--keep-class", struct crunch_args, keep, "a class name"),
	OPT_ROW_FLAG("--quiet", "-q", struct crunch_args, quiet),
	OPT_ROW_END,
};
static const char *const crunch_pos[] = { "IN.hprof", "OUT.bmd", NULL };
const struct opt_spec cmd_crunch_spec = { crunch_opts, crunch_pos, 2, 2 };

int cmd_crunch(int argc, char **argv)
{
	struct crunch_args a = { { NULL, 0, 0 }, false };
	struct bmd_crunch_opts opts = { 0 };
	struct bmd_crunch_stats st;
	struct progress prog;
	struct outf out;
	struct bmd_sink sink = { crunch_sink_write, &out };
	const char *in_path, *out_path;
	size_t npos;
	struct err e;
	int rc;

	a.keep.cap = (size_t)argc;
	a.keep.v = xcalloc(a.keep.cap + 1, sizeof(*a.keep.v));
	if (!a.keep.v) {
		fprintf(stderr, "artcarve %s: out of memory\n", argv[0]);
		return CLI_INTERNAL;
	}
	if ((rc = cli_parse(argc, argv, &cmd_crunch_spec, &a, &npos)) != CLI_GO_ON) {
		xfree(a.keep.v);
		return rc;
	}
	in_path = argv[1];
	out_path = argv[2];
	opts.keep_classes = a.keep.v;
	opts.keep_count = a.keep.count;
	progress_init(&prog, !a.quiet && cli_progress_enabled() ? stderr : NULL, "crunch");
	opts.progress = &prog;
	err_init(&e);
	outf_init(&out);
	if (outf_open(&out, out_path, &e) < 0 || bmd_crunch_file(in_path, &opts, &sink, &st, &e) < 0 ||
	    outf_commit(&out, &e) < 0)
		goto fail;
	progress_end(&prog);
	if (!a.quiet)
		fprintf(stderr,
			"crunched %s: %llu strings kept, %llu hashed, %llu classes, %llu instances, %llu object "
			"arrays, %llu primitive arrays, %llu roots, %llu legacy records -> %llu bytes (id size %u)\n",
			in_path, (unsigned long long)st.strings, (unsigned long long)st.hashed_strings,
			(unsigned long long)st.classes, (unsigned long long)st.instances,
			(unsigned long long)st.obj_arrays, (unsigned long long)st.prim_arrays,
			(unsigned long long)st.roots, (unsigned long long)st.legacy,
			(unsigned long long)st.bytes_out, st.id_size);
	xfree(a.keep.v);
	return CLI_OK;
fail:
	progress_end(&prog);
	outf_abort(&out);
	xfree(a.keep.v);
	return cli_report(argv[0], &e);
}
