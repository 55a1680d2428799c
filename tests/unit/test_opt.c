/* test_opt.c - the command-line parser (carver/base/opt.c): every kind of option, "--opt=v",
 * aliases, "--", help, positional counts and the usage messages that name the culprit. */
#include <stdbool.h>
#include <string.h>

#include "carver/base/opt.h"
#include "tests/unit/t.h"

struct o {
	bool json, quiet;
	const char *maps, *size_choice;
	struct opt_list keep;
	uint64_t count, bytes;
};

static const char *const choices[] = { "4", "8", NULL };
static const struct opt rows[] = {
	OPT_ROW_FLAG("--json", NULL, struct o, json),
	OPT_ROW_FLAG("--quiet", "-q", struct o, quiet),
	OPT_ROW_STRING("--maps", struct o, maps, "a file"),
	OPT_ROW_LIST("--keep", struct o, keep, "a class name"),
	OPT_ROW_UINT("--count", struct o, count, "a count from 1 to 100", 1, 100),
	OPT_ROW_SIZE("--max", struct o, bytes, "a size such as 4G", 1, UINT64_MAX),
	OPT_ROW_CHOICE("--id-size", struct o, size_choice, "4 or 8", choices),
	OPT_ROW_END,
};
static const char *const pos_names[] = { "IN", "OUT", "EXTRA", NULL };
static const struct opt_spec spec = { rows, pos_names, 2, 3 };

static const char *keep_store[8];
static struct o res;
static struct err e;
static size_t npos;
static char *argv_buf[32];

/* Parses the words of line (space-separated; argv[0] = "cmd") with a fresh result. */
static int parse(const char *line)
{
	static char text[512];
	int argc = 0;

	memset(&res, 0, sizeof(res));
	res.keep.v = keep_store;
	res.keep.cap = 2;
	err_init(&e);
	snprintf(text, sizeof(text), "cmd %s", line);
	for (char *t = strtok(text, " "); t && argc < 31; t = strtok(NULL, " "))
		argv_buf[argc++] = t;
	argv_buf[argc] = NULL;
	return opt_parse(&spec, argc, argv_buf, &res, &npos, &e);
}

#define T_USAGE(line, want)                                                                    \
	do {                                                                                   \
		T_EQ_I(parse(line), -ERR_USAGE);                                               \
		T_CHECK(!strcmp(e.msg, want), "'%s': message \"%s\", expected \"%s\"", line, e.msg, want); \
	} while (0)

int main(void)
{
	T_SECTION("options and positional arguments");
	T_EQ_I(parse("--json a -q --maps m.txt b"), 0);
	T_CHECK(res.json && res.quiet, "flags");
	T_EQ_S(res.maps, "m.txt");
	T_EQ_U(npos, 2);
	T_EQ_S(argv_buf[1], "a");
	T_EQ_S(argv_buf[2], "b");
	T_EQ_I(parse("--maps=x=y a b c"), 0);
	T_EQ_S(res.maps, "x=y");
	T_EQ_U(npos, 3);
	T_EQ_S(argv_buf[3], "c");
	T_EQ_I(parse("--maps --json a b"), 0);     /* a value may start with '-' */
	T_EQ_S(res.maps, "--json");
	T_CHECK(!res.json, "--json taken as the value of --maps");
	T_EQ_I(parse("--maps a --maps b c d"), 0); /* the last one wins */
	T_EQ_S(res.maps, "b");
	T_EQ_I(parse("- a"), 0);                   /* "-" alone is an argument (stdin by convention) */
	T_EQ_S(argv_buf[1], "-");
	T_EQ_I(parse("a -- --json -q"), 0);        /* after "--" nothing is an option */
	T_CHECK(!res.json && !res.quiet, "options after --");
	T_EQ_U(npos, 3);
	T_EQ_S(argv_buf[2], "--json");

	T_SECTION("lists, numbers, sizes, choices");
	T_EQ_I(parse("--keep A a --keep=B b"), 0);
	T_EQ_U(res.keep.count, 2);
	T_EQ_S(res.keep.v[0], "A");
	T_EQ_S(res.keep.v[1], "B");
	T_USAGE("--keep A --keep B --keep C a b", "--keep given more than 2 times");
	T_EQ_I(parse("--count 100 --max 3K a b"), 0);
	T_EQ_U(res.count, 100);
	T_EQ_U(res.bytes, 3072);
	T_EQ_I(parse("--max 2g a b"), 0);
	T_EQ_U(res.bytes, 2ull << 30);
	T_EQ_I(parse("--max 17179869183G a b"), 0);   /* (2^64 - 1) >> 30 still fits */
	T_EQ_U(res.bytes, 17179869183ull << 30);
	T_USAGE("--max 17179869184G a b", "--max needs a size such as 4G, not '17179869184G'");
	T_USAGE("--max 18446744073709551616 a b", "--max needs a size such as 4G, not '18446744073709551616'");
	T_USAGE("--max 0 a b", "--max needs a size such as 4G, not '0'");
	T_USAGE("--max 4T a b", "--max needs a size such as 4G, not '4T'");
	T_USAGE("--max 4KB a b", "--max needs a size such as 4G, not '4KB'");
	T_USAGE("--count 0 a b", "--count needs a count from 1 to 100, not '0'");
	T_USAGE("--count 101 a b", "--count needs a count from 1 to 100, not '101'");
	T_USAGE("--count +5 a b", "--count needs a count from 1 to 100, not '+5'");
	T_USAGE("--count 5K a b", "--count needs a count from 1 to 100, not '5K'");
	T_USAGE("--count= a b", "--count needs a count from 1 to 100, not ''");
	T_EQ_I(parse("--id-size 8 a b"), 0);
	T_EQ_S(res.size_choice, "8");
	T_USAGE("--id-size 5 a b", "--id-size needs 4 or 8, not '5'");

	T_SECTION("usage errors name the option or argument");
	T_USAGE("--frob a b", "unknown option '--frob'");
	T_USAGE("--frob=1 a b", "unknown option '--frob'");
	T_USAGE("-x a b", "unknown option '-x'");
	T_USAGE("--jso a b", "unknown option '--jso'");
	T_USAGE("--json=yes a b", "--json takes no value");
	T_USAGE("a b --maps", "--maps needs a file");
	T_USAGE("", "missing IN");
	T_USAGE("a", "missing OUT");
	T_USAGE("a b c d", "unexpected argument 'd'");
	T_EQ_I(parse("a b c"), 0);

	T_SECTION("help");
	T_EQ_I(parse("--help"), OPT_HELP);
	T_EQ_I(parse("--frob -h"), OPT_HELP);      /* help wins over any error */
	T_EQ_I(parse("--maps --help"), OPT_HELP);
	T_EQ_I(parse("a -- --help"), 0);           /* after "--" it is an argument */
	T_EQ_S(argv_buf[2], "--help");
	T_DONE();
}
