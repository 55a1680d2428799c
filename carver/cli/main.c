/* main.c - artcarve entry point: dispatches to a subcommand (carver/cli/commands.c), which
 * parses its own arguments and --help (cli_parse). */
#include <stdio.h>
#include <string.h>

#include "carver/cli/cli.h"

int cmd_version(int argc, char **argv);

static void main_usage(FILE *fp)
{
	fprintf(fp, "usage: artcarve COMMAND [ARGS...]\n\n"
		    "Recovers Java objects from memory images of Android (ART) app processes and\n"
		    "converts heap dumps between HPROF and BMD.\n\ncommands:\n");
	for (unsigned i = 0; i < cli_command_count; i++)
		fprintf(fp, "  %-12s %s\n", cli_commands[i].name, cli_commands[i].summary);
	fprintf(fp, "\n'artcarve COMMAND --help' describes a command.  An option's value follows it (--maps FILE)\n"
		    "or is joined to it (--maps=FILE); '--' ends the options.  Exit status: 0 ok, 1 input\n"
		    "rejected, 2 usage error, 3 internal, I/O or out-of-memory error.\n");
}

int main(int argc, char **argv)
{
	const struct cli_command *cmd;

	if (argc < 2) {
		main_usage(stderr);
		return CLI_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		main_usage(stdout);
		return CLI_OK;
	}
	if (!strcmp(argv[1], "--version")) {   /* like `artcarve version`; what follows is ignored */
		static char name[] = "version";
		char *v[] = { name, NULL };
		return cmd_version(1, v);
	}
	cmd = cli_find(argv[1]);
	if (!cmd) {
		fprintf(stderr, "artcarve: unknown command '%s' (try 'artcarve --help')\n", argv[1]);
		return CLI_USAGE;
	}
	return cmd->run(argc - 1, argv + 1);
}
