/* strings_tsv.c - strings.tsv, a bulk_extractor feature file (see strings_tsv.h). */
#include "output/export/strings_tsv.h"

#include <string.h>

#include "carver/base/wbuf.h"
#include "carver/base/escape.h"
#include "output/export/strings_find.h"

struct st_ctx {
	const struct model *m;
	const struct referrers *r;
	const struct reach *reach;
	struct outf *out;
	struct strings_tsv_stats *st;
	struct wbuf line, ctx;
};

/* What holds object i when no object references it (reach.h reach_holder_of). */
static void holder_beyond_objects(const struct model *m, const struct reach *reach, size_t i, struct wbuf *out,
				  struct strings_held *held)
{
	struct reach_holder h;
	if (!reach || !reach_holder_of(reach, m, i, &h)) {
		wbuf_printf(out, "held by nothing");
		*held = (struct strings_held){ "none", 0, false };
		return;
	}
	switch (h.kind) {
	case REACH_HOLDER_ROOT:
		wbuf_printf(out, "a root (%s", reach_source_name(h.source));
		if (h.ref)
			wbuf_printf(out, " at 0x%llx", (unsigned long long)h.ref);
		wbuf_printf(out, ")");
		*held = (struct strings_held){ "root", h.ref, h.ref != 0 };
		break;
	case REACH_HOLDER_DEX_CACHE:
		wbuf_printf(out, "held by java.lang.DexCache strings[%u]@0x%llx (native array)", h.index,
			    (unsigned long long)model_va(m, model_obj(m, h.dex_cache)));
		*held = (struct strings_held){ "dex cache", model_va(m, model_obj(m, h.dex_cache)), true };
		break;
	default:
		wbuf_printf(out, "held by nothing the image shows (unknown: %s)", reach_doubt_name(h.doubt));
		*held = (struct strings_held){ "unknown", 0, false };
		break;
	}
}

void strings_tsv_held_by(const struct model *m, const struct referrers *r, const struct reach *reach, size_t i,
			 struct wbuf *out, struct strings_held *held)
{
	const uint32_t *from, *off;
	uint32_t n = referrers_of(r, i, &from, &off);
	if (n == 0) {
		holder_beyond_objects(m, reach, i, out, held);
		return;
	}
	wbuf_printf(out, "held by ");
	strings_describe_ref(m, from[0], off[0], out);
	wbuf_printf(out, "@0x%llx", (unsigned long long)model_va(m, model_obj(m, from[0])));
	if (n > 1)
		wbuf_printf(out, " (+%u more)", n - 1);
	*held = (struct strings_held){ "object", model_va(m, model_obj(m, from[0])), true };
}

void strings_tsv_holder(const struct model *m, const struct referrers *r, const struct reach *reach, size_t i,
			struct wbuf *out)
{
	struct strings_held held;
	strings_tsv_held_by(m, r, reach, i, out, &held);
}

static int line(void *arg, const struct strings_hit *h, struct err *e)
{
	struct st_ctx *c = arg;

	wbuf_reset(&c->line);
	wbuf_reset(&c->ctx);
	wbuf_printf(&c->line, "0x%llx\t", (unsigned long long)h->addr);
	escape_feature(&c->line, h->text, h->text_len);
	wbuf_printf(&c->ctx, "java.lang.String len=%u %s; ", h->length, h->compressed ? "compressed" : "utf16");
	strings_tsv_holder(c->m, c->r, c->reach, h->obj, &c->ctx);
	wbuf_printf(&c->ctx, "; %s %s %s confidence=%u", model_alloc_name(h->alloc), model_content_name(h->content),
		    model_reach_name(h->reach), h->confidence);
	if (!h->text_ok)
		wbuf_printf(&c->ctx, "; text not read: %s", h->why ? h->why : "?");
	wbuf_u8(&c->line, '\t');
	escape_feature(&c->line, c->ctx.data, c->ctx.len);
	wbuf_u8(&c->line, '\n');
	int rc = wbuf_status(&c->line, e);
	if (rc == 0 && (rc = wbuf_status(&c->ctx, e)) == 0 && (rc = outf_write(c->out, c->line.data, c->line.len, e)) == 0)
		c->st->strings++;
	return rc;
}

static int header(struct st_ctx *c, const struct strings_tsv_opts *o, struct err *e)
{
	wbuf_reset(&c->line);
	wbuf_printf(&c->line, "# BANNER FILE NOT PROVIDED (-b option)\n");
	if (o->version)
		wbuf_printf(&c->line, "# ARTCARVE-Version: %s\n", o->version);
	wbuf_printf(&c->line, "# Feature-Recorder: strings\n");
	if (o->image) {
		wbuf_printf(&c->line, "# Filename: ");
		escape_feature(&c->line, (const uint8_t *)o->image, strlen(o->image));
		wbuf_u8(&c->line, '\n');
	}
	wbuf_printf(&c->line, "# Offsets: virtual addresses of java.lang.String objects in the process (0x + hex), "
			      "not file offsets; context: length, holder (class.field@address), states\n"
			      "# Feature-File-Version: 1.1\n");
	int rc = wbuf_status(&c->line, e);
	return rc ? rc : outf_write(c->out, c->line.data, c->line.len, e);
}

int strings_tsv_write(const struct model *m, const struct referrers *r, const struct strings_tsv_opts *o,
		      struct outf *out, struct strings_tsv_stats *st, struct err *e)
{
	struct st_ctx c = { .m = m, .r = r, .reach = o->reach, .out = out, .st = st };
	struct strings_opts so = { .residue = false };
	int rc;

	memset(st, 0, sizeof(*st));
	wbuf_init(&c.line);
	wbuf_init(&c.ctx);
	rc = header(&c, o, e);
	if (rc == 0)
		rc = strings_each(m, &so, line, &c, e);
	st->bytes = out->written;
	wbuf_release(&c.line);
	wbuf_release(&c.ctx);
	return rc;
}
