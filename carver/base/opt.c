/* opt.c - the command-line parser (see opt.h). */
#include "carver/base/opt.h"

#include <stdbool.h>
#include <string.h>

static bool opt_is(const char *a, const char *name, size_t n)
{
	return name && strlen(name) == n && !memcmp(a, name, n);
}

static const struct opt *opt_find(const struct opt_spec *spec, const char *a, size_t n)
{
	for (const struct opt *o = spec->opts; o && o->name; o++)
		if (opt_is(a, o->name, n) || opt_is(a, o->alias, n))
			return o;
	return NULL;
}

static bool opt_help_requested(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			return false;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return true;
	}
	return false;
}

/* Decimal digits only (no sign, no spaces), then an optional K/M/G when scaled. */
static bool opt_number(const char *s, bool scaled, uint64_t *out)
{
	uint64_t v = 0;
	unsigned shift = 0;
	const char *p = s;

	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			return false;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (p == s)
		return false;
	if (scaled && *p) {
		if (*p == 'K' || *p == 'k')
			shift = 10;
		else if (*p == 'M' || *p == 'm')
			shift = 20;
		else if (*p == 'G' || *p == 'g')
			shift = 30;
		else
			return false;
		p++;
	}
	if (*p || v > (UINT64_MAX >> shift))
		return false;
	*out = v << shift;
	return true;
}

static bool opt_choice(const char *v, const char *const *choices)
{
	for (; choices && *choices; choices++)
		if (!strcmp(v, *choices))
			return true;
	return false;
}

/* Stores the value v of option o into dst. */
static int opt_store(const struct opt *o, const char *v, void *dst, struct err *e)
{
	char *field = (char *)dst + o->off;
	uint64_t n;

	switch (o->kind) {
	case OPT_FLAG:
		*(bool *)field = true;
		return 0;
	case OPT_STRING:
		*(const char **)field = v;
		return 0;
	case OPT_LIST: {
		struct opt_list *l = (struct opt_list *)field;
		if (l->count >= l->cap)
			return ERR_SET(e, ERR_USAGE, ERR_NO_VA, "%s given more than %zu times", o->name, l->cap);
		l->v[l->count++] = v;
		return 0;
	}
	case OPT_UINT:
	case OPT_SIZE:
		if (!opt_number(v, o->kind == OPT_SIZE, &n) || n < o->min || n > o->max)
			break;
		*(uint64_t *)field = n;
		return 0;
	case OPT_CHOICE:
		if (!opt_choice(v, o->choices))
			break;
		*(const char **)field = v;
		return 0;
	}
	return ERR_SET(e, ERR_USAGE, ERR_NO_VA, "%s needs %s, not '%s'", o->name, o->needs, v);
}

/* One option at argv[*i] ("--name", "--name=value" or an alias); *i moves past its value. */
static int opt_one(const struct opt_spec *spec, int argc, char **argv, int *i, void *dst, struct err *e)
{
	const char *a = argv[*i], *eq = a[1] == '-' ? strchr(a, '=') : NULL, *v;
	size_t n = eq ? (size_t)(eq - a) : strlen(a);
	const struct opt *o = opt_find(spec, a, n);

	if (!o)
		return ERR_SET(e, ERR_USAGE, ERR_NO_VA, "unknown option '%.*s'", (int)n, a);
	if (o->kind == OPT_FLAG) {
		if (eq)
			return ERR_SET(e, ERR_USAGE, ERR_NO_VA, "%s takes no value", o->name);
		return opt_store(o, NULL, dst, e);
	}
	if (eq) {
		v = eq + 1;
	} else {
		if (*i + 1 >= argc)
			return ERR_SET(e, ERR_USAGE, ERR_NO_VA, "%s needs %s", o->name, o->needs);
		v = argv[++*i];
	}
	return opt_store(o, v, dst, e);
}

static const char *opt_pos_name(const struct opt_spec *spec, size_t k)
{
	size_t n = 0;

	while (spec->pos && spec->pos[n])
		n++;
	if (n == 0)
		return "an argument";
	return spec->pos[k < n ? k : n - 1];
}

int opt_parse(const struct opt_spec *spec, int argc, char **argv, void *dst, size_t *npos, struct err *e)
{
	bool options = true;
	size_t k = 0;
	int rc;

	*npos = 0;
	if (opt_help_requested(argc, argv))
		return OPT_HELP;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (options && !strcmp(a, "--")) {
			options = false;
		} else if (options && a[0] == '-' && a[1]) {
			if ((rc = opt_one(spec, argc, argv, &i, dst, e)) < 0)
				return rc;
		} else if (k == spec->pos_max) {
			return ERR_SET(e, ERR_USAGE, ERR_NO_VA, "unexpected argument '%s'", a);
		} else {
			argv[1 + k++] = argv[i];   /* 1 + k <= i: nothing unread is overwritten */
		}
	}
	if (k < spec->pos_min)
		return ERR_SET(e, ERR_USAGE, ERR_NO_VA, "missing %s", opt_pos_name(spec, k));
	*npos = k;
	return 0;
}
