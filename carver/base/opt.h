/* opt.h - one table-driven parser for command lines: long options with or without a
 * value (and their short aliases), "--opt=value", "--" ending the options, -h/--help,
 * and positional arguments with a minimum and maximum count.
 *
 * A command describes its options once, as a static table of {name, kind, offset into
 * its own options struct, what the value is}; opt_parse fills that struct.  It knows no
 * command and prints nothing: a bad command line is -ERR_USAGE with a one-line message
 * naming the option or argument ("unknown option '--frob'", "--maps needs a file",
 * "--sample needs a count from 1 to 1000000, not '0'", "missing IMAGE", "unexpected
 * argument 'x'"); carver/cli/cli.c turns it into the usage error of the command. */
#ifndef ARTCARVE_OPT_H
#define ARTCARVE_OPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "carver/base/err.h"

enum opt_kind {
	OPT_FLAG,      /* no value; sets a bool */
	OPT_STRING,    /* const char *: the value as given (the last one wins) */
	OPT_LIST,      /* struct opt_list: every value, in order (repeatable) */
	OPT_UINT,      /* uint64_t: decimal digits in [min, max] */
	OPT_SIZE,      /* uint64_t: decimal digits with an optional K, M or G (x1024^n) in [min, max] */
	OPT_CHOICE,    /* const char *: one of choices[] */
};

struct opt {
	const char *name;              /* "--maps" */
	const char *alias;             /* "-q", or NULL */
	enum opt_kind kind;
	size_t off;                    /* offsetof(the command's options struct, field) */
	const char *needs;             /* the value as messages name it: "a file", "4 or 8" */
	uint64_t min, max;             /* OPT_UINT, OPT_SIZE */
	const char *const *choices;    /* OPT_CHOICE, NULL-terminated */
};

/* Table rows, for a command whose options live in a struct of type T. */
#define OPT_ROW_FLAG(name, alias, T, field) { (name), (alias), OPT_FLAG, offsetof(T, field), NULL, 0, 0, NULL }
#define OPT_ROW_STRING(name, T, field, needs) { (name), NULL, OPT_STRING, offsetof(T, field), (needs), 0, 0, NULL }
#define OPT_ROW_LIST(name, T, field, needs) { (name), NULL, OPT_LIST, offsetof(T, field), (needs), 0, 0, NULL }
#define OPT_ROW_UINT(name, T, field, needs, lo, hi) { (name), NULL, OPT_UINT, offsetof(T, field), (needs), (lo), (hi), NULL }
#define OPT_ROW_SIZE(name, T, field, needs, lo, hi) { (name), NULL, OPT_SIZE, offsetof(T, field), (needs), (lo), (hi), NULL }
#define OPT_ROW_CHOICE(name, T, field, needs, list) { (name), NULL, OPT_CHOICE, offsetof(T, field), (needs), 0, 0, (list) }
#define OPT_ROW_END { NULL, NULL, OPT_FLAG, 0, NULL, 0, 0, NULL }

/* Storage of an OPT_LIST, provided by the caller (v with room for cap values). */
struct opt_list {
	const char **v;
	size_t count, cap;
};

#define OPT_MANY SIZE_MAX

struct opt_spec {
	const struct opt *opts;        /* terminated by an entry whose name is NULL */
	const char *const *pos;        /* positional names for messages, NULL-terminated; the
					* last one names every further argument */
	size_t pos_min, pos_max;       /* pos_max OPT_MANY: no limit */
};

enum { OPT_HELP = 1 };

/* Parses argv[1..argc-1] (argv[0] is the command) into the struct at dst.  The
 * positional arguments are moved, in order, to argv[1..*npos] (argv is reordered as GNU
 * getopt does; the strings are not touched).  Returns 0, OPT_HELP when -h or --help
 * appears before "--" (nothing else is parsed then), or -ERR_USAGE. */
int opt_parse(const struct opt_spec *spec, int argc, char **argv, void *dst, size_t *npos, struct err *e);

#endif
