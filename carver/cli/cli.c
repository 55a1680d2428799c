/* cli.c - see cli.h. */
#include "carver/cli/cli.h"

#include <stdarg.h>
#include <string.h>
#include <unistd.h>

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

bool cli_help_requested(int argc, char **argv, const struct cli_command *cmd)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(cmd->usage, stdout);
			return true;
		}
	}
	return false;
}

const struct cli_command *cli_find(const char *name)
{
	for (unsigned i = 0; i < cli_command_count; i++)
		if (!strcmp(cli_commands[i].name, name))
			return &cli_commands[i];
	return NULL;
}

void cli_json_string(FILE *fp, const char *s, size_t n)
{
	fputc('"', fp);
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];
		if (ch == '"' || ch == '\\')
			fprintf(fp, "\\%c", ch);
		else if (ch < 0x20 || ch == 0x7f)
			fprintf(fp, "\\u%04x", ch);
		else
			fputc(ch, fp);
	}
	fputc('"', fp);
}

bool cli_progress_enabled(void) { return isatty(STDERR_FILENO) == 1; }
