/* art_version.c - see art_version.h. */
#include "art/format/art_version.h"

#include <stdio.h>
#include <string.h>

enum { VERSION_DIGITS = 3 };

static bool is_digit(uint8_t c) { return c >= '0' && c <= '9'; }

static unsigned digits3(const char *p)
{
	return (unsigned)(p[0] - '0') * 100 + (unsigned)(p[1] - '0') * 10 + (unsigned)(p[2] - '0');
}

static bool three_digits(const char *p)
{
	return is_digit((uint8_t)p[0]) && is_digit((uint8_t)p[1]) && is_digit((uint8_t)p[2]);
}

/* Next item "ddd" or "ddd-ddd" of a list at *p; false at the end or on a malformed item. */
static bool list_next(const char **p, unsigned *lo, unsigned *hi)
{
	const char *s = *p;

	if (!s || !three_digits(s))
		return false;
	*lo = *hi = digits3(s);
	s += VERSION_DIGITS;
	if (*s == '-') {
		if (!three_digits(s + 1))
			return false;
		*hi = digits3(s + 1);
		s += 1 + VERSION_DIGITS;
	}
	if (*s != ',' && *s != '\0')
		return false;
	*p = *s == ',' ? s + 1 : s;
	return *lo <= *hi;
}

bool art_version_list_valid(const char *list)
{
	unsigned lo, hi;
	const char *p = list;

	if (!p || !*p)
		return false;
	/* each step consumes at least 3 characters of a NUL-terminated string */
	while (*p)
		if (!list_next(&p, &lo, &hi) || (p[0] == '\0' && p[-1] == ','))
			return false;
	return true;
}

static const char *row_str(const struct art_version_table *t, size_t i, size_t at)
{
	const char *s;

	if (at == ART_VERSION_NONE)
		return NULL;
	memcpy(&s, (const char *)art_version_row(t, i) + at, sizeof(s));
	return s;
}

static unsigned row_uint(const struct art_version_table *t, size_t i, size_t at)
{
	unsigned v;

	memcpy(&v, (const char *)art_version_row(t, i) + at, sizeof(v));
	return v;
}

/* Calls back on each [lo, hi] range of row i until fn returns true. */
static bool row_any(const struct art_version_table *t, size_t i, bool (*fn)(unsigned lo, unsigned hi, const void *arg),
		    const void *arg)
{
	unsigned lo, hi;

	if (t->list_at == ART_VERSION_NONE)
		return fn(row_uint(t, i, t->lo_at), row_uint(t, i, t->hi_at), arg);
	for (const char *p = row_str(t, i, t->list_at); list_next(&p, &lo, &hi);)
		if (fn(lo, hi, arg))
			return true;
	return false;
}

static bool range_holds(unsigned lo, unsigned hi, const void *arg)
{
	unsigned v = *(const unsigned *)arg;
	return v >= lo && v <= hi;
}

/* prefix = {value of the digits, divisor 10^(3 - digits)}: some version in [lo, hi]
 * starts with those digits */
static bool range_fits_prefix(unsigned lo, unsigned hi, const void *arg)
{
	const unsigned *pf = arg;
	unsigned first = pf[0] * pf[1], last = first + pf[1] - 1;
	return first <= hi && lo <= last;
}

long art_version_row_of(const struct art_version_table *t, unsigned v)
{
	long found = ART_VERSION_NO_ROW;

	for (size_t i = 0; i < t->count; i++) {
		if (!row_any(t, i, range_holds, &v))
			continue;
		if (found != ART_VERSION_NO_ROW)
			return ART_VERSION_AMBIGUOUS;
		found = (long)i;
	}
	return found;
}

static const char *row_label(const struct art_version_table *t, size_t i, char *buf, size_t cap)
{
	const char *name = row_str(t, i, t->name_at);

	if (name)
		return name;
	snprintf(buf, cap, "row %zu", i);
	return buf;
}

/* "035,037-040 041" or "039-045 046-072": every row's versions, for a message. */
static void known_versions(const struct art_version_table *t, char *buf, size_t cap)
{
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < t->count && n < cap; i++) {
		unsigned lo = 0, hi = 0;
		int w;
		if (t->list_at != ART_VERSION_NONE)
			w = snprintf(buf + n, cap - n, "%s%s", n ? " " : "", row_str(t, i, t->list_at));
		else if ((lo = row_uint(t, i, t->lo_at)) == (hi = row_uint(t, i, t->hi_at)))
			w = snprintf(buf + n, cap - n, "%s%03u", n ? " " : "", lo);
		else
			w = snprintf(buf + n, cap - n, "%s%03u-%03u", n ? " " : "", lo, hi);
		if (w < 0)
			break;
		n += (size_t)w;
	}
}

int art_version_find(const struct art_version_table *t, unsigned v, uint64_t va, size_t *row, struct err *e)
{
	long r = art_version_row_of(t, v);
	char known[256], a[32], b[32];
	size_t first = t->count;

	if (r >= 0) {
		*row = (size_t)r;
		return 0;
	}
	if (r == ART_VERSION_NO_ROW) {
		known_versions(t, known, sizeof(known));
		return ERR_SET(e, ERR_UNSUP, va, "%s at 0x%llx: unsupported version %03u (known: %s)", t->what,
			       (unsigned long long)va, v, known);
	}
	for (size_t i = 0; i < t->count; i++) {
		if (!row_any(t, i, range_holds, &v))
			continue;
		if (first == t->count) {
			first = i;
			continue;
		}
		return ERR_SET(e, ERR_UNSUP, va, "%s at 0x%llx: version %03u fits two rows (%s and %s): ambiguous",
			       t->what, (unsigned long long)va, v, row_label(t, first, a, sizeof(a)),
			       row_label(t, i, b, sizeof(b)));
	}
	return ERR_SET(e, ERR_INTERNAL, va, "%s: version %03u matched inconsistently", t->what, v);
}

/* The digits of a version string that ends early: how many rows they fit, as an error. */
static int truncated(const struct art_version_table *t, const uint8_t *p, size_t nd, uint64_t va, struct err *e)
{
	unsigned pf[2] = { 0, 1 };
	size_t fits = 0;
	char a[32];
	long last = -1;

	for (size_t i = 0; i < nd; i++)
		pf[0] = pf[0] * 10 + (unsigned)(p[i] - '0');
	for (size_t i = nd; i < VERSION_DIGITS; i++)
		pf[1] *= 10;
	for (size_t i = 0; i < t->count; i++)
		if (row_any(t, i, range_fits_prefix, pf)) {
			fits++;
			last = (long)i;
		}
	if (fits == 1)
		return ERR_SET(e, ERR_TRUNC, va, "%s at 0x%llx: version string cut after \"%.*s\" (fits %s only; not guessed)",
			       t->what, (unsigned long long)va, (int)nd, (const char *)p,
			       row_label(t, (size_t)last, a, sizeof(a)));
	return ERR_SET(e, ERR_TRUNC, va, "%s at 0x%llx: version string cut after \"%.*s\" (fits %zu rows%s)", t->what,
		       (unsigned long long)va, (int)nd, (const char *)p, fits, fits > 1 ? ": ambiguous" : "");
}

int art_version_match(const struct art_version_table *t, const struct cursor *c, size_t at, unsigned *v,
		      size_t *row, struct err *e)
{
	size_t avail = at <= c->len ? c->len - at : 0, nd = 0;
	const uint8_t *p = c->base + (at <= c->len ? at : c->len);
	uint64_t va = c->va + at;

	while (nd < VERSION_DIGITS && nd < avail && is_digit(p[nd]))
		nd++;
	if (nd < avail && (nd < VERSION_DIGITS || p[nd] != 0)) {
		char shown[16] = "";
		size_t n = avail < 4 ? avail : 4, w = 0;
		for (size_t i = 0; i < n; i++)
			w += (size_t)snprintf(shown + w, sizeof(shown) - w, "%s%02x", i ? " " : "", p[i]);
		return ERR_SET(e, ERR_CORRUPT, va, "%s at 0x%llx: version bytes %s are not three digits and a NUL",
			       t->what, (unsigned long long)va, n ? shown : "(none)");
	}
	if (avail <= VERSION_DIGITS)
		return truncated(t, p, nd, va, e);
	*v = digits3((const char *)p);
	return art_version_find(t, *v, va, row, e);
}
