/* cmd_version.c - `artcarve version` (also `artcarve --version`). */
#include <stdio.h>

#include "carver/cli/cli.h"

static const struct opt version_opts[] = { OPT_ROW_END };
const struct opt_spec cmd_version_spec = { version_opts, NULL, 0, 0 };

int cmd_version(int argc, char **argv)
{
	size_t npos;
	char none;
	int rc = cli_parse(argc, argv, &cmd_version_spec, &none, &npos);

	if (rc != CLI_GO_ON)
		return rc;
	printf("artcarve %s\n", ARTCARVE_VERSION);
	return CLI_OK;
}
