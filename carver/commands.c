/* commands.c - the subcommand table.  One row per command; implementations live in
 * carver/cmd_*.c (the top layer, which may include every other tree). */
#include "cli.h"

int cmd_version(int argc, char **argv);

const struct cli_command cli_commands[] = {
	{ "version", cmd_version, "print the version",
	  "usage: artcarve version\n\nPrints the artcarve version.\n" },
};

const unsigned cli_command_count = sizeof(cli_commands) / sizeof(cli_commands[0]);
