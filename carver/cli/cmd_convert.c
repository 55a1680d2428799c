/* cmd_convert.c - `artcarve convert [--app-only] IN OUT`: Android HPROF -> standard HPROF,
 * byte-compatible with hprof-conv (rules in output/hprof/hprof_conv.h). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "carver/cli/cli.h"
#include "carver/base/mapfile.h"
#include "carver/base/outfile.h"
#include "output/hprof/hprof_conv.h"

int cmd_convert(int argc, char **argv)
{
	const char *in = NULL, *out = NULL;
	struct hprof_conv_opts opts = { .app_only = false, .drop_behind = true };
	struct hprof_conv_stats st;
	bool verbose = false;
	struct mapfile m;
	struct outf of;
	struct err e;
	int rc;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--app-only") || !strcmp(argv[i], "-z"))
			opts.app_only = true;
		else if (!strcmp(argv[i], "-v") || !strcmp(argv[i], "--verbose"))
			verbose = true;
		else if (argv[i][0] == '-' && argv[i][1])
			return cli_usage_error(argv[0], "unknown option '%s'", argv[i]);
		else if (!in)
			in = argv[i];
		else if (!out)
			out = argv[i];
		else
			return cli_usage_error(argv[0], "too many arguments");
	}
	if (!in || !out)
		return cli_usage_error(argv[0], "need an input and an output file");
	err_init(&e);
	if (mapfile_open(&m, in, &e))
		return cli_report(argv[0], &e);
	rc = outf_open(&of, out, &e);
	if (rc == 0) {
		rc = hprof_conv(m.data, m.len, in, &of, &opts, &st, &e);
		if (rc && err_exit_status(&e) == CLI_REJECTED)
			err_prefix(&e, "%s", in);
		if (rc == 0)
			rc = outf_commit(&of, &e);
		else
			outf_abort(&of);
	}
	mapfile_close(&m);
	if (rc)
		return cli_report(argv[0], &e);
	if (verbose)
		fprintf(stderr, "%s: %" PRIu64 " records in, %" PRIu64 " out; %" PRIu64 " heap sub-records in, %"
			PRIu64 " out; %" PRIu64 " objects dropped; %" PRIu64 " empty heap dump records left out\n",
			out, st.records_in, st.records_out, st.subs_in, st.subs_out, st.dropped_objects,
			st.dropped_segments);
	return CLI_OK;
}
