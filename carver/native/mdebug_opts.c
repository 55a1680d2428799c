/* mdebug_opts.c - malloc_debug option strings (see mdebug.h).  Names, defaults and limits
 * are bionic libc/malloc_debug/Config.cpp's (@ android-7.0.0_r1 "guard" .. "leak_track";
 * @ android-14.0.0_r1 adds the bt_* aliases and the options that leave no trace in the
 * heap, listed in mdebug_ignored). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "carver/native/mdebug.h"

enum { MDEBUG_DEFAULT_GUARD = 32, MDEBUG_DEFAULT_FRAMES = 16 };

static const char *const mdebug_ignored[] = {
	"expand_alloc", "free_track_backtrace_num_frames", "leak_track", "record_allocs",
	"record_allocs_file", "verify_pointers", "abort_on_error", "verbose", "backtrace_full", "bt_full",
	"backtrace_enable_on_signal", "bt_en_on_sig", "backtrace_dump_on_exit", "bt_dmp_on_ex",
	"backtrace_dump_prefix", "bt_dmp_pre", "backtrace_size", "bt_sz", "backtrace_min_size", "bt_min_sz",
	"backtrace_max_size", "bt_max_sz", "check_unreachable_on_signal", "log_allocator_stats_on_signal",
	NULL
};

/* The value of "name=N" in [lo, hi], or dflt without '='. */
static int mdebug_value(const char *name, size_t nlen, const char *val, size_t vlen, uint64_t dflt,
			uint64_t lo, uint64_t hi, uint64_t *out, struct err *e)
{
	uint64_t v = 0;

	if (!val) {
		*out = dflt;
		return 0;
	}
	if (vlen == 0 || vlen > 19)
		return ERR_SET(e, ERR_USAGE, ERR_NO_VA, "option %.*s needs a number", (int)nlen, name);
	for (size_t i = 0; i < vlen; i++) {
		if (val[i] < '0' || val[i] > '9')
			return ERR_SET(e, ERR_USAGE, ERR_NO_VA, "option %.*s: '%.*s' is not a number", (int)nlen,
				       name, (int)vlen, val);
		v = v * 10 + (uint64_t)(val[i] - '0');
	}
	if (v < lo || v > hi)
		return ERR_SET(e, ERR_USAGE, ERR_NO_VA, "option %.*s takes %llu to %llu, not %llu", (int)nlen, name,
			       (unsigned long long)lo, (unsigned long long)hi, (unsigned long long)v);
	*out = v;
	return 0;
}

static bool mdebug_is(const char *name, size_t n, const char *want)
{
	return strlen(want) == n && !strncmp(name, want, n);
}

static int mdebug_one(const char *name, size_t n, const char *val, size_t vlen, struct mdebug_options *o,
		      struct err *e)
{
	uint64_t v;
	int rc;

	if (mdebug_is(name, n, "guard") || mdebug_is(name, n, "front_guard") || mdebug_is(name, n, "rear_guard")) {
		if ((rc = mdebug_value(name, n, val, vlen, MDEBUG_DEFAULT_GUARD, 1, MDEBUG_MAX_GUARD, &v, e)))
			return rc;
		if (!mdebug_is(name, n, "rear_guard"))
			o->front_guard = (uint32_t)v;
		if (!mdebug_is(name, n, "front_guard"))
			o->rear_guard = (uint32_t)v;
		return 0;
	}
	if (mdebug_is(name, n, "backtrace") || mdebug_is(name, n, "bt")) {
		if ((rc = mdebug_value(name, n, val, vlen, MDEBUG_DEFAULT_FRAMES, 1, MDEBUG_MAX_FRAMES, &v, e)))
			return rc;
		o->backtrace = (uint32_t)v;
		return 0;
	}
	if (mdebug_is(name, n, "fill") || mdebug_is(name, n, "fill_on_alloc") || mdebug_is(name, n, "fill_on_free") ||
	    mdebug_is(name, n, "free_track")) {
		if ((rc = mdebug_value(name, n, val, vlen, 1, 1, UINT64_MAX >> 1, &v, e)))
			return rc;
		if (mdebug_is(name, n, "fill") || mdebug_is(name, n, "fill_on_alloc"))
			o->fill_alloc = true;
		if (!mdebug_is(name, n, "fill_on_alloc"))
			o->fill_free = true;
		if (mdebug_is(name, n, "free_track"))
			o->free_track = true;
		return 0;
	}
	for (size_t i = 0; mdebug_ignored[i]; i++)
		if (mdebug_is(name, n, mdebug_ignored[i]))
			return 0;
	return ERR_SET(e, ERR_USAGE, ERR_NO_VA, "unknown malloc_debug option '%.*s'", (int)n, name);
}

int mdebug_parse_options(const char *text, struct mdebug_options *o, struct err *e)
{
	memset(o, 0, sizeof(*o));
	for (const char *p = text; *p;) {
		size_t n = strcspn(p, " ,\t"), nlen;
		const char *eq;
		int rc;

		if (n == 0) {
			p++;
			continue;
		}
		eq = memchr(p, '=', n);
		nlen = eq ? (size_t)(eq - p) : n;
		if ((rc = mdebug_one(p, nlen, eq ? eq + 1 : NULL, eq ? n - nlen - 1 : 0, o, e)))
			return rc;
		p += n;
	}
	return 0;
}

/* Appends one option (a space before all but the first) to buf[0, n). */
static void mdebug_put(char *buf, size_t n, const char *name, uint32_t v)
{
	size_t at = strlen(buf);
	char item[48];

	if (v)
		snprintf(item, sizeof(item), "%s%s=%u", at ? " " : "", name, (unsigned)v);
	else
		snprintf(item, sizeof(item), "%s%s", at ? " " : "", name);
	if (strlen(item) < n - at)
		memcpy(buf + at, item, strlen(item) + 1);
}

void mdebug_options_text(const struct mdebug_options *o, char *buf, size_t n)
{
	if (n == 0)
		return;
	buf[0] = '\0';
	if (o->front_guard && o->front_guard == o->rear_guard) {
		mdebug_put(buf, n, "guard", o->front_guard);
	} else {
		if (o->front_guard)
			mdebug_put(buf, n, "front_guard", o->front_guard);
		if (o->rear_guard)
			mdebug_put(buf, n, "rear_guard", o->rear_guard);
	}
	if (o->backtrace)
		mdebug_put(buf, n, "backtrace", o->backtrace);
	if (o->fill_alloc)
		mdebug_put(buf, n, "fill_on_alloc", 0);
	if (o->free_track)
		mdebug_put(buf, n, "free_track", 0);
	else if (o->fill_free)
		mdebug_put(buf, n, "fill_on_free", 0);
	if (!buf[0])
		mdebug_put(buf, n, "none", 0);
}

const char *mdebug_state_name(enum mdebug_state s)
{
	return s == MDEBUG_LIVE ? "live" : s == MDEBUG_FREED ? "freed" : "tag-corrupted";
}

const char *mdebug_damage_name(enum mdebug_damage_kind k)
{
	return k == MDEBUG_FRONT ? "front-guard" : k == MDEBUG_REAR ? "rear-guard" : "use-after-free";
}
