/* test_cli.c - every command of the table parses its arguments with an option table that
 * its --help text documents: each option and alias of the table appears in the usage,
 * each "--option" the usage names is in the table, and -h/--help and a missing argument
 * are recognised by that table (the man page is built from the same usage texts). */
#include <ctype.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "carver/cli/cli.h"
#include "tests/unit/t.h"

/* name occurs in text as a whole option word (not as the prefix of a longer one). */
static bool mentions(const char *text, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = strstr(text, name); p; p = strstr(p + 1, name)) {
		char before = p == text ? ' ' : p[-1], after = p[n];
		if (!isalnum((unsigned char)before) && before != '-' && !isalnum((unsigned char)after) && after != '-')
			return true;
	}
	return false;
}

static bool in_table(const struct opt_spec *spec, const char *word, size_t n)
{
	if (n == 6 && !memcmp(word, "--help", 6))
		return true;
	for (const struct opt *o = spec->opts; o->name; o++)
		if (strlen(o->name) == n && !memcmp(o->name, word, n))
			return true;
	return false;
}

/* Every "--option" word of text [p, end) is an option of the table. */
static void check_words(const struct cli_command *c, const char *p, const char *end)
{
	for (p = strstr(p, "--"); p && p < end; p = strstr(p + 2, "--")) {
		size_t n = 2;
		while (islower((unsigned char)p[n]) || p[n] == '-')
			n++;
		if (n > 2 && p[-1] != '-')
			T_CHECK(in_table(c->spec, p, n), "%s: its --help names %.*s, which it does not parse", c->name,
				(int)n, p);
	}
}

static void check_command(const struct cli_command *c)
{
	char head[64];
	const char *u = c->usage;

	snprintf(head, sizeof(head), "usage: artcarve %s", c->name);
	T_CHECK(!strncmp(u, head, strlen(head)), "%s: usage starts \"%.30s\"", c->name, u);
	T_CHECK(c->spec && c->spec->opts, "%s: no option table", c->name);
	if (!c->spec || !c->spec->opts)
		return;
	for (const struct opt *o = c->spec->opts; o->name; o++) {
		T_CHECK(mentions(u, o->name), "%s: option %s is not in its --help", c->name, o->name);
		if (o->alias)
			T_CHECK(mentions(u, o->alias), "%s: alias %s is not in its --help", c->name, o->alias);
		T_CHECK(o->kind == OPT_FLAG || (o->needs && *o->needs), "%s: %s does not say what value it needs",
			c->name, o->name);
	}
	/* the synopsis (up to the first blank line) and the "options:" section; the prose may
	 * quote other tools' options (Volatility's --dump) */
	const char *syn_end = strstr(u, "\n\n"), *opt = strstr(u, "\noptions:\n"), *opt_end;
	opt_end = opt ? strstr(opt + 1, "\n\n") : NULL;
	check_words(c, u, syn_end ? syn_end : u + strlen(u));
	if (opt)
		check_words(c, opt, opt_end ? opt_end : opt + strlen(opt));
}

/* The table itself answers help and counts arguments (what cli_parse relies on). */
static void check_parse(const struct cli_command *c)
{
	char name[32], help[] = "--help", none[] = "";
	char *argv[3] = { name, help, NULL };
	union { max_align_t align; char room[512]; } opts;   /* room for any command's options struct */
	struct err e;
	size_t npos;

	snprintf(name, sizeof(name), "%s", c->name);
	err_init(&e);
	memset(&opts, 0, sizeof(opts));
	T_CHECK(opt_parse(c->spec, 2, argv, &opts, &npos, &e) == OPT_HELP, "%s --help not recognised", c->name);
	argv[1] = none;
	memset(&opts, 0, sizeof(opts));
	int rc = opt_parse(c->spec, 1, argv, &opts, &npos, &e);
	if (c->spec->pos_min)
		T_CHECK(rc == -ERR_USAGE && !strncmp(e.msg, "missing ", 8), "%s without arguments: %d %s", c->name, rc,
			e.msg);
	else
		T_CHECK(rc == 0 && npos == 0, "%s without arguments: %d %s", c->name, rc, e.msg);
}

int main(void)
{
	T_SECTION("every command's options are its --help's options");
	T_CHECK(cli_command_count >= 11, "%u commands", cli_command_count);
	for (unsigned i = 0; i < cli_command_count; i++) {
		printf("  %s\n", cli_commands[i].name);
		check_command(&cli_commands[i]);
		if (cli_commands[i].spec && cli_commands[i].spec->opts)
			check_parse(&cli_commands[i]);
		T_CHECK(cli_find(cli_commands[i].name) == &cli_commands[i], "cli_find %s", cli_commands[i].name);
	}
	T_CHECK(cli_find("no-such-command") == NULL, "cli_find of an unknown name");
	T_DONE();
}
