/* cmd_convert.c - `artcarve convert [--app-only] IN OUT`: Android HPROF -> standard HPROF,
 * byte-compatible with hprof-conv (rules in output/hprof/hprof_conv.h). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "carver/cli/cli.h"
#include "carver/base/mapfile.h"
#include "carver/base/outfile.h"
#include "output/hprof/hprof_conv.h"

struct convert_opts {
	bool app_only, verbose;
};

static const struct opt convert_opts[] = {
	OPT_ROW_FLAG("--app-only", "-z", struct convert_opts, app_only),
	OPT_ROW_FLAG("--verbose", "-v", struct convert_opts, verbose),
	OPT_ROW_END,
};
static const char *const convert_pos[] = { "IN.hprof", "OUT.hprof", NULL };
const struct opt_spec cmd_convert_spec = { convert_opts, convert_pos, 2, 2 };

int cmd_convert(int argc, char **argv)
{
	struct convert_opts o = { false, false };
	struct hprof_conv_opts opts = { .app_only = false, .drop_behind = true };
	struct hprof_conv_stats st;
	const char *in, *out;
	struct mapfile m;
	struct outf of;
	size_t npos;
	struct err e;
	int rc;

	if ((rc = cli_parse(argc, argv, &cmd_convert_spec, &o, &npos)) != CLI_GO_ON)
		return rc;
	in = argv[1];
	out = argv[2];
	opts.app_only = o.app_only;
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
	if (o.verbose)
		fprintf(stderr, "%s: %" PRIu64 " records in, %" PRIu64 " out; %" PRIu64 " heap sub-records in, %"
			PRIu64 " out; %" PRIu64 " objects dropped; %" PRIu64 " empty heap dump records left out\n",
			out, st.records_in, st.records_out, st.subs_in, st.subs_out, st.dropped_objects,
			st.dropped_segments);
	return CLI_OK;
}
