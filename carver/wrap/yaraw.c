/* yaraw.c - see yaraw.h. */
#include "carver/wrap/yaraw.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yara.h>

#include "carver/base/xalloc.h"

struct yaraw {
	YR_RULES *rules;
	YR_SCANNER *scanner;
	/* the scan in progress */
	yaraw_match_fn fn;
	void *arg;
	struct err *e;
	int rc;
	char tags[256];
};

struct yaraw_compile {
	const char *path;
	char first[400];        /* the first error, "PATH:LINE: MESSAGE" */
};

static void on_compile(int level, const char *file, int line, const YR_RULE *rule, const char *msg, void *arg)
{
	struct yaraw_compile *c = arg;
	(void)rule;
	if (level == YARA_ERROR_LEVEL_ERROR && !c->first[0])
		snprintf(c->first, sizeof(c->first), "%s:%d: %s", file ? file : c->path, line, msg);
}

int yaraw_open(struct yaraw **out, const char *path, struct err *e)
{
	struct yaraw_compile c = { .path = path };
	YR_COMPILER *comp = NULL;
	struct yaraw *y;
	FILE *fp;
	int rc = 0;

	*out = NULL;
	if (yr_initialize() != ERROR_SUCCESS)
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "libyara does not initialise");
	if (!(fp = fopen(path, "r"))) {
		yr_finalize();
		return ERR_SET(e, ERR_IO, ERR_NO_VA, "%s: %s", path, strerror(errno));
	}
	if (!(y = xcalloc(1, sizeof(*y))) || yr_compiler_create(&comp) != ERROR_SUCCESS) {
		rc = ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory compiling %s", path);
	} else {
		yr_compiler_set_callback(comp, on_compile, &c);
		if (yr_compiler_add_file(comp, fp, NULL, path) != 0)
			rc = ERR_SET(e, ERR_CORRUPT, ERR_NO_VA, "%s", c.first[0] ? c.first : "the rules do not compile");
		else if (yr_compiler_get_rules(comp, &y->rules) != ERROR_SUCCESS ||
			 yr_scanner_create(y->rules, &y->scanner) != ERROR_SUCCESS)
			rc = ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory compiling %s", path);
	}
	fclose(fp);
	if (comp)
		yr_compiler_destroy(comp);
	if (rc) {
		if (y)
			yaraw_close(y);   /* frees what was made */
		else
			yr_finalize();
		return rc;
	}
	*out = y;
	return 0;
}

void yaraw_close(struct yaraw *y)
{
	if (!y)
		return;
	if (y->scanner)
		yr_scanner_destroy(y->scanner);
	if (y->rules)
		yr_rules_destroy(y->rules);
	xfree(y);
	yr_finalize();
}

static void join_tags(struct yaraw *y, const YR_RULE *rule)
{
	const char *tag;
	size_t n = 0;
	y->tags[0] = 0;
	yr_rule_tags_foreach(rule, tag) {
		int k = snprintf(y->tags + n, sizeof(y->tags) - n, "%s%s", n ? " " : "", tag);
		if (k < 0 || (size_t)k >= sizeof(y->tags) - n)
			break;
		n += (size_t)k;
	}
}

/* One rule that matched: each occurrence of each of its strings, or the rule alone. */
static int report_rule(struct yaraw *y, YR_SCAN_CONTEXT *ctx, const YR_RULE *rule)
{
	const YR_STRING *s;
	const YR_MATCH *mt;
	bool any = false;
	int rc = 0;

	join_tags(y, rule);
	yr_rule_strings_foreach(rule, s) {
		yr_string_matches_foreach(ctx, s, mt) {
			struct yaraw_match m = { rule->identifier, y->tags, s->identifier, (uint64_t)mt->offset,
						 (uint32_t)mt->match_length, mt->data, (size_t)mt->data_length };
			any = true;
			if ((rc = y->fn(y->arg, &m, y->e)))
				return rc;
		}
	}
	if (!any) {
		struct yaraw_match m = { rule->identifier, y->tags, "", 0, 0, NULL, 0 };
		rc = y->fn(y->arg, &m, y->e);
	}
	return rc;
}

static int on_scan(YR_SCAN_CONTEXT *ctx, int message, void *data, void *arg)
{
	struct yaraw *y = arg;
	if (message != CALLBACK_MSG_RULE_MATCHING)
		return CALLBACK_CONTINUE;
	y->rc = report_rule(y, ctx, data);
	return y->rc ? CALLBACK_ABORT : CALLBACK_CONTINUE;
}

int yaraw_scan(struct yaraw *y, const uint8_t *p, size_t n, yaraw_match_fn fn, void *arg, struct err *e)
{
	int yr;
	y->fn = fn;
	y->arg = arg;
	y->e = e;
	y->rc = 0;
	yr_scanner_set_callback(y->scanner, on_scan, y);
	yr = yr_scanner_scan_mem(y->scanner, p, n);
	if (y->rc)
		return y->rc;
	if (yr == ERROR_INSUFFICIENT_MEMORY)
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory in a YARA scan");
	if (yr != ERROR_SUCCESS && yr != ERROR_TOO_MANY_MATCHES)
		return ERR_SET(e, ERR_INTERNAL, ERR_NO_VA, "YARA scan failed (libyara error %d)", yr);
	return 0;
}

const char *yaraw_version(void)
{
	return "libyara " YR_VERSION;
}
