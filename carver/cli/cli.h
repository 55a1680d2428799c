/* cli.h - conventions shared by every subcommand: help, errors, exit codes, JSON text.
 *
 * Exit codes (documented in README and the man page):
 *   0 ok, 1 input rejected (truncated/corrupt/unsupported/unmapped), 2 usage, 3 internal/io/nomem. */
#ifndef ARTCARVE_CLI_H
#define ARTCARVE_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "carver/base/err.h"

enum { CLI_OK = 0, CLI_REJECTED = 1, CLI_USAGE = 2, CLI_INTERNAL = 3 };

struct cli_command {
	const char *name;
	int (*run)(int argc, char **argv); /* argv[0] is the command name */
	const char *summary;
	const char *usage;                  /* full --help text */
};

extern const struct cli_command cli_commands[];
extern const unsigned cli_command_count;

/* Prints "artcarve CMD: MESSAGE" on stderr (one line) and returns the exit status. */
int cli_report(const char *cmd, const struct err *e);
/* Prints a usage error plus "try --help" and returns CLI_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* True when argv holds -h or --help; prints the command's usage to stdout. */
bool cli_help_requested(int argc, char **argv, const struct cli_command *cmd);
const struct cli_command *cli_find(const char *name);
/* Writes s (n bytes, not NUL-terminated) as a JSON string literal. */
void cli_json_string(FILE *fp, const char *s, size_t n);
/* True when stderr is a terminal (progress is shown only then). */
bool cli_progress_enabled(void);

#endif
