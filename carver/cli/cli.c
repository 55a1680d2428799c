/* cli.c - see cli.h. */
#include "carver/cli/cli.h"

#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#include "art/runtime/runtime.h"
#include "carver/image/image.h"
#include "rosalloc/probe/probe.h"

int cli_report(const char *cmd, const struct err *e)
{
	fprintf(stderr, "artcarve %s: %s\n", cmd, e->msg[0] ? e->msg : err_code_name(e->code));
	return err_exit_status(e);
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "artcarve %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (try 'artcarve %s --help')\n", cmd);
	return CLI_USAGE;
}

int cli_parse(int argc, char **argv, const struct opt_spec *spec, void *opts, size_t *npos)
{
	const struct cli_command *cmd = cli_find(argv[0]);
	struct err e;
	int rc;

	err_init(&e);
	if (!cmd) {   /* main.c dispatches by the registered name: a wiring mistake */
		fprintf(stderr, "artcarve %s: not a registered command\n", argv[0]);
		return CLI_INTERNAL;
	}
	rc = opt_parse(spec, argc, argv, opts, npos, &e);
	if (rc == OPT_HELP) {
		fputs(cmd->usage, stdout);
		return CLI_OK;
	}
	if (rc < 0)
		return cli_usage_error(argv[0], "%s", e.msg);
	return CLI_GO_ON;
}

const struct cli_command *cli_find(const char *name)
{
	for (unsigned i = 0; i < cli_command_count; i++)
		if (!strcmp(cli_commands[i].name, name))
			return &cli_commands[i];
	return NULL;
}

bool cli_progress_enabled(void) { return isatty(STDERR_FILENO) == 1; }

int cli_open_runtime(const char *cmd, const char *path, const char *maps, const char *art_version,
		     struct image *img, struct art_runtime *rt)
{
	struct img_open_opts io = { maps };
	struct runtime_opts ro = { .art_version = art_version, .probes = &probe_spaces };
	struct err e;

	err_init(&e);
	if (img_open(img, path, &io, &e))
		return cli_report(cmd, &e);
	if (runtime_open(rt, img, &ro, &e)) {
		img_close(img);
		return cli_report(cmd, &e);
	}
	return 0;
}
