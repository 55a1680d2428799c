/* find_features.c - the indicators' feature files (see find_features.h). */
#include "output/find/find_features.h"

#include <string.h>

#include "carver/base/escape.h"
#include "carver/base/wbuf.h"

static void header(struct wbuf *b, unsigned kind, const struct find_features_opts *o)
{
	wbuf_printf(b, "# BANNER FILE NOT PROVIDED (-b option)\n");
	if (o->version)
		wbuf_printf(b, "# ARTCARVE-Version: %s\n", o->version);
	wbuf_printf(b, "# Feature-Recorder: %s\n", find_kind_name(kind));
	if (o->image) {
		wbuf_printf(b, "# Filename: ");
		escape_feature(b, (const uint8_t *)o->image, strlen(o->image));
		wbuf_u8(b, '\n');
	}
	wbuf_printf(b, "# Offsets: virtual address of the object in the process plus the offset of the match in "
		       "it (decimal), not file offsets; context: class@address+offset, holder field, state, source\n"
		       "# Feature-File-Version: 1.1\n");
}

static void line(struct wbuf *b, struct wbuf *ctx, const struct model *m, const struct find_result *f,
		 const struct find_hit *h)
{
	const struct art_runtime *rt = model_runtime(m);
	wbuf_reset(ctx);
	wbuf_printf(b, "%llu\t", (unsigned long long)(h->addr + h->offset));
	escape_feature(b, (const uint8_t *)find_text(f, h->value), h->value_len);
	if (h->obj == MODEL_NONE) {   /* a residue place: its space instead of a class */
		const char *sp = h->space < rt->spaces.count ? rt->spaces.v[h->space].name : NULL;
		wbuf_printf(ctx, "free place in %s@0x%llx+%u; ", sp && *sp ? sp : "?", (unsigned long long)h->addr,
			    h->offset);
	} else {
		const char *cls = rt->classes[model_obj(m, h->obj)->cls].name;
		wbuf_printf(ctx, "%s@0x%llx+%u; ", cls ? cls : "?", (unsigned long long)h->addr, h->offset);
	}
	if (h->field_len) {
		wbuf_printf(ctx, "field ");
		wbuf_put(ctx, find_text(f, h->field), h->field_len);
	} else {
		wbuf_printf(ctx, "no holder");
	}
	wbuf_printf(ctx, "; %s; %s", find_state_name(h->state), find_source_name(h->source));
	wbuf_u8(b, '\t');
	escape_feature(b, ctx->data, ctx->len);
	wbuf_u8(b, '\n');
}

int find_features_write(const struct model *m, const struct find_result *f, unsigned kind,
			const struct find_features_opts *o, struct outf *out, struct err *e)
{
	struct wbuf b, ctx;
	int rc;

	wbuf_init(&b);
	wbuf_init(&ctx);
	header(&b, kind, o);
	rc = wbuf_status(&b, e);
	for (size_t i = 0; rc == 0 && i < f->count; i++) {
		if (f->v[i].kind != kind)
			continue;
		line(&b, &ctx, m, f, &f->v[i]);
		if ((rc = wbuf_status(&b, e)) == 0 && (rc = wbuf_status(&ctx, e)) == 0 && b.len >= 1 << 16) {
			rc = outf_write(out, b.data, b.len, e);
			wbuf_reset(&b);
		}
	}
	if (rc == 0 && b.len)
		rc = outf_write(out, b.data, b.len, e);
	wbuf_release(&b);
	wbuf_release(&ctx);
	return rc;
}

int find_features_report(const struct find_result *f, struct outf *out, struct err *e)
{
	struct wbuf b;
	int rc;

	wbuf_init(&b);
	wbuf_printf(&b, "# artcarve indicators: kind, count, feature file\n");
	for (unsigned k = 0; k < FIND_KIND_COUNT; k++)
		wbuf_printf(&b, "%s\t%llu\t%s.txt\n", find_kind_name(k), (unsigned long long)f->per_kind[k],
			    find_kind_name(k));
	wbuf_printf(&b, "# scanned: %llu objects, %llu bytes\n", (unsigned long long)f->objects,
		    (unsigned long long)f->bytes);
	rc = wbuf_status(&b, e);
	if (rc == 0)
		rc = outf_write(out, b.data, b.len, e);
	wbuf_release(&b);
	return rc;
}
