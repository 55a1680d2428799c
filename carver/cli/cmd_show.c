/* cmd_show.c - `artcarve show IMAGE ADDR... [--maps FILE] [--json] [--depth N] [--art-version
 * V]`: the investigator's quick look at carved objects, decoded by output/decode (each field
 * with its declared type and value, Strings as text, containers' entries). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "carver/base/wbuf.h"
#include "carver/cli/cli.h"
#include "carver/pipeline/carve.h"
#include "output/decode/decode.h"

enum {
	SHOW_DEPTH_DEFAULT = 1,
	SHOW_LINE_CHARS = 160,      /* the object's one-line summary */
	SHOW_SUMMARY_CHARS = 120,   /* a referenced object's, after a field or an entry */
};

struct show_cli {
	bool json;
	const char *maps, *art_version;
	uint64_t depth;
};

static const struct opt show_opts[] = {
	OPT_ROW_FLAG("--json", NULL, struct show_cli, json),
	OPT_ROW_STRING("--maps", struct show_cli, maps, "a file"),
	OPT_ROW_STRING("--art-version", struct show_cli, art_version, "a layout family"),
	OPT_ROW_UINT("--depth", struct show_cli, depth, "a count from 0 to 8", 0, DEC_MAX_DEPTH),
	OPT_ROW_END,
};
static const char *const show_pos[] = { "IMAGE", "ADDR", NULL };
const struct opt_spec cmd_show_spec = { show_opts, show_pos, 2, OPT_MANY };

struct shower {
	struct carve *c;
	struct dec *d;
	const struct show_cli *cl;
	struct wbuf out;
	unsigned indent;
};

/* The object holding addr (its start or inside it), MODEL_NONE if none. */
static size_t object_at(const struct model *m, uint64_t addr)
{
	size_t i = model_find(m, addr);
	if (i != MODEL_NONE)
		return i;
	for (size_t k = model_first_ending_after(m, addr); k < model_count(m); k = MODEL_NONE) {
		const struct model_obj *o = model_obj(m, k);
		return model_va(m, o) <= addr ? k : MODEL_NONE;
	}
	return MODEL_NONE;
}

static void put_indent(struct shower *s)
{
	for (unsigned i = 0; i < s->indent; i++)
		wbuf_put(&s->out, "  ", 2);
}

/* " {summary}" of the object a reference names (one level: the summary's own references
 * show their String fields). */
static int ref_summary(struct shower *s, const struct dec_value *v, struct err *e)
{
	if (v->kind != DEC_REF || v->obj == MODEL_NONE)
		return 0;
	wbuf_put(&s->out, " {", 2);
	int rc = dec_object_text(s->d, v->obj, SHOW_SUMMARY_CHARS, &s->out, e);
	wbuf_u8(&s->out, '}');
	return rc;
}

static int field_line(void *arg, const struct dec_value *v, struct err *e)
{
	struct shower *s = arg;
	put_indent(s);
	wbuf_printf(&s->out, "%s %s = ", v->java_type ? v->java_type : "?", v->name);
	dec_value_text(v, &s->out);
	if (v->has_time && v->kind != DEC_BOXED)
		wbuf_printf(&s->out, " (%lld, time inferred)", (long long)v->i);
	else if (v->has_time)
		wbuf_put(&s->out, " (time inferred)", 16);
	if (v->kind == DEC_STRING || v->kind == DEC_ENUM || v->kind == DEC_BOXED)
		wbuf_printf(&s->out, " @0x%llx", (unsigned long long)v->addr);
	if (v->kind == DEC_UNREAD && v->why)
		wbuf_printf(&s->out, " (%s)", v->why);
	int rc = ref_summary(s, v, e);
	wbuf_u8(&s->out, '\n');
	return rc;
}

static int entry_line(void *arg, const struct dec_entry *en, struct err *e)
{
	struct shower *s = arg;
	put_indent(s);
	if (en->has_key) {
		dec_value_text(&en->key, &s->out);
		wbuf_put(&s->out, " = ", 3);
	} else {
		wbuf_printf(&s->out, "[%llu] ", (unsigned long long)en->index);
	}
	dec_value_text(&en->value, &s->out);
	int rc = ref_summary(s, &en->value, e);
	wbuf_u8(&s->out, '\n');
	return rc;
}

static int show_text(struct shower *s, size_t obj, struct err *e)
{
	const struct model *m = &s->c->m;
	const struct model_obj *o = model_obj(m, obj);
	const char *name = model_runtime(m)->classes[o->cls].name;
	struct dec_entries info;
	int rc;

	wbuf_printf(&s->out, "0x%llx %s size=%u %s/%s/%s\n", (unsigned long long)model_va(m, o), name ? name : "?",
		    o->size, model_alloc_name(o->alloc), model_content_name(o->content), model_reach_name(o->reach));
	s->indent = 1;
	put_indent(s);
	if ((rc = dec_object_text(s->d, obj, SHOW_LINE_CHARS, &s->out, e)))
		return rc;
	wbuf_u8(&s->out, '\n');
	if ((rc = dec_each_field(s->d, obj, field_line, s, e)))
		return rc;
	size_t at = s->out.len;
	put_indent(s);
	wbuf_put(&s->out, "entries:\n", 9);
	s->indent = 2;
	if ((rc = dec_each_entry(s->d, obj, entry_line, s, &info, e)))
		return rc;
	if (!info.kind) {
		s->out.len = at;
		return 0;
	}
	s->indent = 1;
	put_indent(s);
	wbuf_printf(&s->out, "%s: size %llu, %llu shown", info.kind, (unsigned long long)info.size,
		    (unsigned long long)info.given);
	if (info.incomplete)
		wbuf_printf(&s->out, "; incomplete: %s", info.incomplete);
	wbuf_u8(&s->out, '\n');
	return 0;
}

static bool parse_addr(const char *s, uint64_t *v)
{
	char *end;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 0);
	if (errno || end == s || *end || s[0] == '-')
		return false;
	*v = x;
	return true;
}

static int show_all(struct shower *s, char **addrs, size_t n, bool *missing, struct err *e)
{
	const struct model *m = &s->c->m;
	bool first = true;
	int rc;

	if (s->cl->json)
		wbuf_u8(&s->out, '[');
	for (size_t i = 0; i < n; i++) {
		uint64_t addr = 0;
		size_t obj;
		parse_addr(addrs[i], &addr);
		if ((obj = object_at(m, addr)) == MODEL_NONE) {
			fprintf(stderr, "artcarve show: 0x%llx: no carved object there\n", (unsigned long long)addr);
			*missing = true;
			continue;
		}
		if (s->cl->json) {
			wbuf_put(&s->out, first ? "\n" : ",\n", first ? 1 : 2);
			rc = dec_object_json(s->d, obj, (unsigned)s->cl->depth, &s->out, e);
		} else {
			rc = show_text(s, obj, e);
		}
		if (rc || (rc = wbuf_status(&s->out, e)))
			return rc;
		if (fwrite(s->out.data, 1, s->out.len, stdout) != s->out.len)
			return ERR_SET(e, ERR_IO, ERR_NO_VA, "cannot write the objects");
		wbuf_reset(&s->out);
		first = false;
	}
	if (s->cl->json && fputs("\n]\n", stdout) == EOF)
		return ERR_SET(e, ERR_IO, ERR_NO_VA, "cannot write the objects");
	return 0;
}

int cmd_show(int argc, char **argv)
{
	struct show_cli cl = { .depth = SHOW_DEPTH_DEFAULT };
	struct shower s = { .cl = &cl };
	struct carve_opts o = { 0 };
	struct carve c;
	struct progress prog;
	struct err e;
	size_t npos;
	bool missing = false;
	int rc = cli_parse(argc, argv, &cmd_show_spec, &cl, &npos);

	if (rc != CLI_GO_ON)
		return rc;
	for (size_t i = 2; i <= npos; i++) {
		uint64_t a;
		if (!parse_addr(argv[i], &a))
			return cli_usage_error(argv[0], "ADDR takes an address (0x... or decimal), not '%s'", argv[i]);
	}
	o.image = argv[1];
	o.skip = (1u << CARVE_OUT_COUNT) - 1;
	o.maps = cl.maps;
	o.art_version = cl.art_version;
	progress_init(&prog, cli_progress_enabled() ? stderr : NULL, "show");
	o.progress = &prog;
	s.c = &c;
	err_init(&e);
	wbuf_init(&s.out);
	rc = carve_model(&c, &o, &e);
	progress_end(&prog);
	if (rc == 0)
		rc = dec_open(&s.d, &c.m, &e);
	if (rc == 0)
		rc = show_all(&s, argv + 2, npos - 1, &missing, &e);
	dec_close(s.d);
	wbuf_release(&s.out);
	carve_release(&c);
	if (rc == 0 && (fflush(stdout) != 0 || ferror(stdout)))
		rc = ERR_SET(&e, ERR_IO, ERR_NO_VA, "cannot write the objects");
	if (rc)
		return cli_report(argv[0], &e);
	return missing ? CLI_REJECTED : CLI_OK;
}
