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

enum { ST_FLUSH = 1 << 20 };   /* lines gathered before one write to the file */

/* 0x and the lower-case hex digits of v */
static void put_addr(struct wbuf *b, uint64_t v)
{
	WBUF_LIT(b, "0x");
	wbuf_hex(b, v);
}

/* What holds object i when no object references it (reach.h reach_holder_of). */
static void holder_beyond_objects(const struct model *m, const struct reach *reach, size_t i, struct wbuf *out,
				  struct strings_held *held)
{
	struct reach_holder h;
	if (!reach || !reach_holder_of(reach, m, i, &h)) {
		WBUF_LIT(out, "held by nothing");
		*held = (struct strings_held){ "none", 0, false };
		return;
	}
	switch (h.kind) {
	case REACH_HOLDER_ROOT:
		WBUF_LIT(out, "a root (");
		wbuf_str(out, reach_source_name(h.source));
		if (h.ref) {
			WBUF_LIT(out, " at ");
			put_addr(out, h.ref);
		}
		wbuf_u8(out, ')');
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
	WBUF_LIT(out, "held by ");
	strings_describe_ref(m, from[0], off[0], out);
	wbuf_u8(out, '@');
	put_addr(out, model_va(m, model_obj(m, from[0])));
	if (n > 1) {
		WBUF_LIT(out, " (+");
		wbuf_dec(out, n - 1);
		WBUF_LIT(out, " more)");
	}
	*held = (struct strings_held){ "object", model_va(m, model_obj(m, from[0])), true };
}

void strings_tsv_holder(const struct model *m, const struct referrers *r, const struct reach *reach, size_t i,
			struct wbuf *out)
{
	struct strings_held held;
	strings_tsv_held_by(m, r, reach, i, out, &held);
}

/* "ALLOC CONTENT REACH confidence=N" */
static void put_states(struct wbuf *b, const struct strings_hit *h)
{
	wbuf_str(b, model_alloc_name(h->alloc));
	wbuf_u8(b, ' ');
	wbuf_str(b, model_content_name(h->content));
	wbuf_u8(b, ' ');
	wbuf_str(b, model_reach_name(h->reach));
	WBUF_LIT(b, " confidence=");
	wbuf_dec(b, h->confidence);
}

/* The lines gathered in c->line written out (in pieces of ST_FLUSH bytes or more). */
static int flush(struct st_ctx *c, struct err *e)
{
	int rc = wbuf_status(&c->line, e);
	if (rc == 0)
		rc = outf_write(c->out, c->line.data, c->line.len, e);
	wbuf_reset(&c->line);
	return rc;
}

static int line(void *arg, const struct strings_hit *h, struct err *e)
{
	struct st_ctx *c = arg;

	wbuf_reset(&c->ctx);
	put_addr(&c->line, h->addr);
	wbuf_u8(&c->line, '\t');
	escape_feature(&c->line, h->text, h->text_len);
	WBUF_LIT(&c->ctx, "java.lang.String len=");
	wbuf_dec(&c->ctx, h->length);
	wbuf_str(&c->ctx, h->compressed ? " compressed; " : " utf16; ");
	strings_tsv_holder(c->m, c->r, c->reach, h->obj, &c->ctx);
	WBUF_LIT(&c->ctx, "; ");
	put_states(&c->ctx, h);
	if (!h->text_ok) {
		WBUF_LIT(&c->ctx, "; text not read: ");
		wbuf_str(&c->ctx, h->why ? h->why : "?");
	}
	wbuf_u8(&c->line, '\t');
	escape_feature(&c->line, c->ctx.data, c->ctx.len);
	wbuf_u8(&c->line, '\n');
	int rc = wbuf_status(&c->line, e);
	if (rc == 0 && (rc = wbuf_status(&c->ctx, e)) == 0)
		c->st->strings++;
	if (rc == 0 && c->line.len >= ST_FLUSH)
		rc = flush(c, e);
	return rc;
}

static int header(struct st_ctx *c, const struct strings_tsv_opts *o, struct err *e)
{
	wbuf_reset(&c->line);
	/* bulk_extractor's first line is its banner (its -b file); this one says what made the file */
	wbuf_printf(&c->line, "# BANNER: String objects carved by artcarve from an Android app process image\n");
	if (o->version)
		wbuf_printf(&c->line, "# ARTCARVE-Version: %s\n", o->version);
	wbuf_printf(&c->line, "# Feature-Recorder: strings\n");
	if (o->image) {
		wbuf_printf(&c->line, "# Filename: ");
		escape_feature(&c->line, (const uint8_t *)o->image, strlen(o->image));
		wbuf_u8(&c->line, '\n');
	}
	if (o->image_sha256)
		wbuf_printf(&c->line, "# Image-SHA256: %s\n", o->image_sha256);
	wbuf_printf(&c->line, "# Offsets: virtual addresses of java.lang.String objects in the process (0x + hex), "
			      "not file offsets; context: length, holder (class.field@address), states\n"
			      "# Feature-File-Version: 1.1\n");
	return flush(c, e);
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
	if (rc == 0)
		rc = flush(&c, e);
	st->bytes = out->written;
	wbuf_release(&c.line);
	wbuf_release(&c.ctx);
	return rc;
}
