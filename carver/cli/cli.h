/* cli.h - conventions shared by every subcommand: argument parsing and --help (through
 * carver/base/opt.h), errors, exit codes.  Reports (text or JSON) go through
 * carver/base/rep.h.
 *
 * Exit codes (documented in README and the man page):
 *   0 ok, 1 input rejected (truncated/corrupt/unsupported/unmapped), 2 usage, 3 internal/io/nomem. */
#ifndef ARTCARVE_CLI_H
#define ARTCARVE_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "carver/base/err.h"
#include "carver/base/opt.h"

#define ARTCARVE_VERSION "0.1.0"

enum { CLI_OK = 0, CLI_REJECTED = 1, CLI_USAGE = 2, CLI_INTERNAL = 3 };
/* cli_parse: the command line is fine, go on */
enum { CLI_GO_ON = -1 };

struct cli_command {
	const char *name;
	int (*run)(int argc, char **argv); /* argv[0] is the command name */
	const char *summary;
	const char *usage;                  /* full --help text */
	const struct opt_spec *spec;        /* the options and arguments run parses */
};

extern const struct cli_command cli_commands[];
extern const unsigned cli_command_count;

/* Prints "artcarve CMD: MESSAGE" on stderr (one line) and returns the exit status. */
int cli_report(const char *cmd, const struct err *e);
/* Prints a usage error plus "try --help" and returns CLI_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Parses a command's argv (argv[0] is its registered name) against spec into opts; the
 * positional arguments end up in argv[1..*npos].  Returns CLI_GO_ON, or the exit status
 * to return at once: CLI_OK after printing the usage for -h/--help, CLI_USAGE after a
 * usage error naming the option or argument. */
int cli_parse(int argc, char **argv, const struct opt_spec *spec, void *opts, size_t *npos);
const struct cli_command *cli_find(const char *name);
/* True when stderr is a terminal (progress is shown only then). */
bool cli_progress_enabled(void);

struct image;
struct art_runtime;
/* Opens the image at path (with the maps listing at maps, if not NULL) and its runtime model
 * (art_version: a layout family, or NULL to detect it), the spaces found by content too.
 * Returns 0 with both open (runtime_close, then img_close), or the exit status after
 * reporting the error as cmd, with nothing left open. */
int cli_open_runtime(const char *cmd, const char *path, const char *maps, const char *art_version,
		     struct image *img, struct art_runtime *rt);

#endif
