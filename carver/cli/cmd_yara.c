/* cmd_yara.c - `artcarve yara RULES IMAGE [--maps FILE] [--json] [--art-version V]`: the YARA
 * rules of RULES over every carved object (output/find/find_yara.h), each match with its
 * object, class, holder field and state. */
#include <stdio.h>
#include <string.h>

#include "carver/base/escape.h"
#include "carver/base/wbuf.h"
#include "carver/cli/cli.h"
#include "carver/pipeline/carve.h"

struct yara_cli {
	bool json;
	const char *maps, *art_version;
};

static const struct opt yara_opts[] = {
	OPT_ROW_FLAG("--json", NULL, struct yara_cli, json),
	OPT_ROW_STRING("--maps", struct yara_cli, maps, "a file"),
	OPT_ROW_STRING("--art-version", struct yara_cli, art_version, "a layout family"),
	OPT_ROW_END,
};
static const char *const yara_pos[] = { "RULES", "IMAGE", NULL };
const struct opt_spec cmd_yara_spec = { yara_opts, yara_pos, 2, 2 };

static void put_text(struct wbuf *b, const struct find_yara_result *y, size_t off, size_t len)
{
	wbuf_put(b, find_yara_text(y, off), len);
}

/* One match: text "RULE [TAGS] 0xADDR CLASS FIELD STATE +OFFSET $ID FORM "CONTEXT"", or a
 * JSON object on a line of its own. */
static void put_match(struct wbuf *b, const struct model *m, const struct find_yara_result *y,
		      const struct find_yara_hit *h, bool json, bool first)
{
	const char *cls = model_runtime(m)->classes[model_obj(m, h->obj)->cls].name;
	const uint8_t *data = (const uint8_t *)find_yara_text(y, h->data);
	if (!json) {
		put_text(b, y, h->rule, h->rule_len);
		wbuf_printf(b, " [");
		put_text(b, y, h->tags, h->tags_len);
		wbuf_printf(b, "] 0x%llx %s %s%.*s %s +%u %s%.*s %s \"", (unsigned long long)h->addr, cls ? cls : "?",
			    h->field_len ? "" : "-", (int)h->field_len, find_yara_text(y, h->field),
			    find_state_name(h->state), h->offset, h->string_len ? "" : "-", (int)h->string_len,
			    find_yara_text(y, h->string), find_yara_form_name(h->form));
		escape_feature(b, data, h->data_len);
		wbuf_printf(b, "\"\n");
		return;
	}
	wbuf_printf(b, "%s{\"rule\":", first ? "" : ",\n");
	escape_json_quoted(b, (const uint8_t *)find_yara_text(y, h->rule), h->rule_len);
	wbuf_printf(b, ",\"tags\":");
	escape_json_quoted(b, (const uint8_t *)find_yara_text(y, h->tags), h->tags_len);
	wbuf_printf(b, ",\"address\":\"0x%llx\",\"class\":", (unsigned long long)h->addr);
	escape_json_quoted(b, (const uint8_t *)(cls ? cls : "?"), strlen(cls ? cls : "?"));
	wbuf_printf(b, ",\"field\":");
	if (h->field_len)
		escape_json_quoted(b, (const uint8_t *)find_yara_text(y, h->field), h->field_len);
	else
		wbuf_printf(b, "null");
	wbuf_printf(b, ",\"state\":\"%s\",\"source\":\"%s\",\"offset\":%u,\"length\":%u,\"string\":",
		    find_state_name(h->state), find_source_name(h->source), h->offset, h->length);
	escape_json_quoted(b, (const uint8_t *)find_yara_text(y, h->string), h->string_len);
	wbuf_printf(b, ",\"form\":\"%s\",\"context\":", find_yara_form_name(h->form));
	escape_json_quoted(b, data, h->data_len);
	wbuf_printf(b, "}");
}

static int print_matches(const struct carve *c, bool json, struct err *e)
{
	struct wbuf b;
	int rc = 0;
	wbuf_init(&b);
	if (json)
		wbuf_printf(&b, "[");
	for (size_t i = 0; rc == 0 && i < c->ymatch.count; i++) {
		put_match(&b, &c->m, &c->ymatch, &c->ymatch.v[i], json, i == 0);
		if ((rc = wbuf_status(&b, e)) == 0 && b.len >= 1 << 16) {
			fwrite(b.data, 1, b.len, stdout);
			wbuf_reset(&b);
		}
	}
	if (json)
		wbuf_printf(&b, "]\n");
	if (rc == 0 && (rc = wbuf_status(&b, e)) == 0)
		fwrite(b.data, 1, b.len, stdout);
	wbuf_release(&b);
	return rc;
}

int cmd_yara(int argc, char **argv)
{
	struct yara_cli cl = { 0 };
	struct carve_opts o;
	struct carve c;
	struct yaraw *rules = NULL;
	struct err e;
	size_t npos;
	int rc = cli_parse(argc, argv, &cmd_yara_spec, &cl, &npos);

	if (rc != CLI_GO_ON)
		return rc;
	memset(&o, 0, sizeof(o));
	o.image = argv[2];
	o.maps = cl.maps;
	o.art_version = cl.art_version;
	o.skip = ~0u;   /* nothing written */
	err_init(&e);
	/* the rules first: a file that does not compile stops before the carving */
	if ((rc = yaraw_open(&rules, argv[1], &e)))
		return cli_report(argv[0], &e);
	rc = carve_model(&c, &o, &e);
	c.yara = rules;
	if (rc == 0 && (rc = carve_referrers(&c, &e)) == 0 &&
	    (rc = find_yara_run(&c.m, &c.refs, c.yara, &c.ymatch, &e)) == 0)
		rc = print_matches(&c, cl.json, &e);
	carve_release(&c);
	if (rc == 0 && (fflush(stdout) != 0 || ferror(stdout)))
		rc = ERR_SET(&e, ERR_IO, ERR_NO_VA, "cannot write the matches");
	return rc ? cli_report(argv[0], &e) : CLI_OK;
}
