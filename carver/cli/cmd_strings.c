/* cmd_strings.c - `artcarve strings IMAGE [--maps FILE] [--grep RE] [--json] [--state LIST]
 * [--no-residue] [--min-run N] [--art-version V]`: every java.lang.String the carve recovers
 * (carver/pipeline/carve.c carve_model) with its address, length, states and what holds it, and
 * string text left in freed memory (output/export/strings_find.h defines what counts). */
#include <regex.h>
#include <stdio.h>
#include <string.h>

#include "carver/base/wbuf.h"
#include "carver/pipeline/carve.h"
#include "carver/cli/cli.h"
#include "carver/base/escape.h"
#include "output/export/strings_find.h"
#include "output/export/strings_tsv.h"

enum { STRINGS_JSON_REFERRERS = 16 };   /* referrers listed per string in --json */

struct strings_cli {
	bool json, no_residue;
	const char *maps, *grep, *state, *art_version;
	uint64_t min_run;
};

static const struct opt strings_opts[] = {
	OPT_ROW_FLAG("--json", NULL, struct strings_cli, json),
	OPT_ROW_FLAG("--no-residue", NULL, struct strings_cli, no_residue),
	OPT_ROW_STRING("--maps", struct strings_cli, maps, "a file"),
	OPT_ROW_STRING("--grep", struct strings_cli, grep, "a POSIX extended regular expression"),
	OPT_ROW_STRING("--state", struct strings_cli, state, "states (comma-separated)"),
	OPT_ROW_STRING("--art-version", struct strings_cli, art_version, "a layout family"),
	OPT_ROW_UINT("--min-run", struct strings_cli, min_run, "a count from 1 to 4096", 1, 4096),
	OPT_ROW_END,
};
static const char *const strings_pos[] = { "IMAGE", NULL };
const struct opt_spec cmd_strings_spec = { strings_opts, strings_pos, 1, 1 };

/* --state: every named state must hold (within one kind, naming two values is an "or"). */
struct state_filter {
	unsigned alloc, content, reach;   /* bit sets of accepted values; 0 = any */
};

static int parse_states(const char *cmd, const char *list, struct state_filter *f)
{
	for (const char *p = list; *p;) {
		size_t n = strcspn(p, ","), k;
		bool found = false;
		for (k = 0; !found && k < MODEL_ALLOC_COUNT; k++)
			if (strlen(model_alloc_name((unsigned)k)) == n && !strncmp(p, model_alloc_name((unsigned)k), n)) {
				f->alloc |= 1u << k;
				found = true;
			}
		for (k = 0; !found && k < MODEL_CONTENT_COUNT; k++)
			if (strlen(model_content_name((unsigned)k)) == n && !strncmp(p, model_content_name((unsigned)k), n)) {
				f->content |= 1u << k;
				found = true;
			}
		for (k = 0; !found && k < MODEL_REACH_COUNT; k++)
			if (strlen(model_reach_name((unsigned)k)) == n && !strncmp(p, model_reach_name((unsigned)k), n)) {
				f->reach |= 1u << k;
				found = true;
			}
		if (!found && n == 7 && !strncmp(p, "dropped", 7)) {   /* allocated and unreachable */
			f->alloc |= 1u << MODEL_ALLOCATED;
			f->reach |= 1u << MODEL_UNREACHABLE;
			found = true;
		}
		if (!found)
			return cli_usage_error(cmd, "--state takes allocated, free, intact, partial, residue, reachable, "
					       "unreachable, unknown or dropped (comma-separated), not '%.*s'", (int)n, p);
		p += n + (p[n] == ',');
	}
	return CLI_GO_ON;
}

static bool states_match(const struct state_filter *f, const struct strings_hit *h)
{
	return (!f->alloc || f->alloc >> h->alloc & 1) && (!f->content || f->content >> h->content & 1) &&
	       (!f->reach || f->reach >> h->reach & 1);
}

struct lister {
	struct carve *c;
	const struct strings_cli *cl;
	struct state_filter states;
	regex_t re;
	bool have_re;
	struct wbuf line;
	uint64_t listed;
};

static bool text_matches(struct lister *l, const struct strings_hit *h)
{
	regmatch_t m[1];
	if (!l->have_re)
		return true;
	/* REG_STARTEND: the whole text, NUL characters included, is searched */
	m[0].rm_so = 0;
	m[0].rm_eo = (regoff_t)h->text_len;
	return regexec(&l->re, h->text_len ? (const char *)h->text : "", 1, m, REG_STARTEND) == 0;
}

static void json_line(struct lister *l, const struct strings_hit *h)
{
	const struct model *m = &l->c->m;
	struct wbuf *b = &l->line;

	wbuf_printf(b, "%s{\"address\":\"0x%llx\",\"source\":\"%s\",\"length\":%u,\"compressed\":%s,\"alloc\":\"%s\","
		    "\"content\":\"%s\",\"reach\":\"%s\",\"confidence\":%u", l->listed ? ",\n" : "[\n",
		    (unsigned long long)h->addr, strings_source_name(h->source), h->length, h->compressed ? "true" : "false",
		    model_alloc_name(h->alloc), model_content_name(h->content), model_reach_name(h->reach), h->confidence);
	if (h->obj != MODEL_NONE) {
		const uint32_t *from, *off;
		uint32_t n = referrers_of(&l->c->refs, h->obj, &from, &off);
		wbuf_printf(b, ",\"referrer_count\":%u,\"referrers\":[", n);
		for (uint32_t i = 0; i < n && i < STRINGS_JSON_REFERRERS; i++) {
			struct wbuf holder;
			wbuf_init(&holder);
			strings_describe_ref(m, from[i], off[i], &holder);
			wbuf_printf(b, "%s{\"address\":\"0x%llx\",\"holder\":", i ? "," : "",
				    (unsigned long long)model_va(m, &m->objs[from[i]]));
			escape_json_quoted(b, holder.data, holder.len);
			wbuf_u8(b, '}');
			if (holder.failed)
				b->failed = 1;
			wbuf_release(&holder);
		}
		wbuf_u8(b, ']');
		if (n == 0) {   /* a root, a DexCache's native array, or why unknown */
			struct wbuf holder;
			wbuf_init(&holder);
			strings_tsv_holder(m, &l->c->refs, &l->c->r, h->obj, &holder);
			wbuf_printf(b, ",\"held_by\":");
			escape_json_quoted(b, holder.data, holder.len);
			if (holder.failed)
				b->failed = 1;
			wbuf_release(&holder);
		}
	} else {
		wbuf_printf(b, ",\"place\":\"0x%llx\"", (unsigned long long)h->place);
	}
	wbuf_printf(b, ",\"value\":");
	if (h->text_ok) {
		escape_json_quoted(b, h->text, h->text_len);
	} else {
		wbuf_printf(b, "null,\"value_error\":");
		escape_json_quoted(b, (const uint8_t *)(h->why ? h->why : "?"), strlen(h->why ? h->why : "?"));
	}
	wbuf_u8(b, '}');
}

static void text_line(struct lister *l, const struct strings_hit *h)
{
	struct wbuf *b = &l->line;

	wbuf_printf(b, "0x%llx %s len=%u %s %s,%s,%s ", (unsigned long long)h->addr, strings_source_name(h->source),
		    h->length, h->compressed ? "8bit" : "utf16", model_alloc_name(h->alloc), model_content_name(h->content),
		    model_reach_name(h->reach));
	if (h->obj != MODEL_NONE) {
		struct wbuf holder;
		wbuf_init(&holder);
		strings_tsv_holder(&l->c->m, &l->c->refs, &l->c->r, h->obj, &holder);
		escape_json(b, holder.data, holder.len);
		if (holder.failed)
			b->failed = 1;
		wbuf_release(&holder);
	} else {
		wbuf_printf(b, "in free place 0x%llx", (unsigned long long)h->place);
	}
	if (h->text_ok) {
		wbuf_u8(b, ' ');
		escape_json_quoted(b, h->text, h->text_len);
	} else {
		wbuf_printf(b, " (text not read: ");
		escape_json(b, (const uint8_t *)(h->why ? h->why : "?"), strlen(h->why ? h->why : "?"));
		wbuf_u8(b, ')');
	}
	wbuf_u8(b, '\n');
}

static int list_one(void *arg, const struct strings_hit *h, struct err *e)
{
	struct lister *l = arg;
	if (!states_match(&l->states, h) || !text_matches(l, h))
		return 0;
	wbuf_reset(&l->line);
	if (l->cl->json)
		json_line(l, h);
	else
		text_line(l, h);
	int rc = wbuf_status(&l->line, e);
	if (rc)
		return rc;
	if (fwrite(l->line.data, 1, l->line.len, stdout) != l->line.len)
		return ERR_SET(e, ERR_IO, ERR_NO_VA, "cannot write the list");
	l->listed++;
	return 0;
}

static int run(struct lister *l, const struct carve_opts *o, struct err *e)
{
	struct strings_opts so = { .residue = !l->cl->no_residue, .min_run = (uint32_t)l->cl->min_run };
	int rc;

	if ((rc = carve_model(l->c, o, e)) || (rc = carve_referrers(l->c, e)))
		return rc;
	progress_end(o->progress);   /* the list starts on a line of its own */
	if ((rc = strings_each(&l->c->m, &so, list_one, l, e)))
		return rc;
	if (l->cl->json && fputs(l->listed ? "\n]\n" : "[]\n", stdout) == EOF)
		return ERR_SET(e, ERR_IO, ERR_NO_VA, "cannot write the list");
	return 0;
}

int cmd_strings(int argc, char **argv)
{
	struct strings_cli cl = { .min_run = STRINGS_MIN_RUN };
	struct lister l = { .cl = &cl };
	struct carve_opts o = { 0 };
	struct carve c;
	struct progress prog;
	struct err e;
	size_t npos;
	int rc = cli_parse(argc, argv, &cmd_strings_spec, &cl, &npos);

	if (rc != CLI_GO_ON)
		return rc;
	if (cl.state && (rc = parse_states(argv[0], cl.state, &l.states)) != CLI_GO_ON)
		return rc;
	if (cl.grep) {
		int bad = regcomp(&l.re, cl.grep, REG_EXTENDED | REG_NOSUB);
		if (bad) {
			char why[128];
			regerror(bad, &l.re, why, sizeof(why));
			return cli_usage_error(argv[0], "--grep: bad regular expression '%s': %s", cl.grep, why);
		}
		l.have_re = true;
	}
	o.image = argv[1];
	o.skip = (1u << CARVE_OUT_COUNT) - 1;   /* no output: nothing to collect for one */
	o.maps = cl.maps;
	o.art_version = cl.art_version;
	progress_init(&prog, cli_progress_enabled() ? stderr : NULL, "strings");
	o.progress = &prog;
	l.c = &c;
	err_init(&e);
	wbuf_init(&l.line);
	rc = run(&l, &o, &e);
	progress_end(&prog);
	wbuf_release(&l.line);
	carve_release(&c);
	if (l.have_re)
		regfree(&l.re);
	if (rc == 0 && (fflush(stdout) != 0 || ferror(stdout)))
		rc = ERR_SET(&e, ERR_IO, ERR_NO_VA, "cannot write the list");
	return rc ? cli_report(argv[0], &e) : CLI_OK;
}
