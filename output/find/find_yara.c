/* find_yara.c - YARA over the carved objects (see find_yara.h). */
#include "output/find/find_yara.h"

#include <string.h>

#include "carver/base/cursor.h"
#include "carver/base/xalloc.h"

struct fy {
	const struct model *m;
	const struct referrers *r;
	struct yaraw *y;
	struct find_yara_result *out;
	struct wbuf alt;        /* the other form of a String */
	size_t obj;
	uint32_t base;          /* offset in the object of the buffer's first byte */
	uint8_t source, form;
	size_t field, field_len;
	bool field_done;
};

/* The offset in the object of buffer offset off: the stored bytes map one to one; a widened
 * 8-bit String two buffer bytes per character; UTF-8 one character (two bytes stored, four
 * for a surrogate pair) per sequence. */
static uint32_t object_offset(const struct fy *s, uint64_t off)
{
	uint64_t at = off;
	if (s->form == FIND_YARA_UTF16) {
		at = off / 2;
	} else if (s->form == FIND_YARA_UTF8) {
		at = 0;
		for (uint64_t i = 0; i < off && i < s->alt.len; i++) {
			uint8_t c = s->alt.data[i];
			at += (c & 0xc0) != 0x80 ? (c >= 0xf0 ? 4 : 2) : 0;
		}
	}
	return s->base + (uint32_t)at;
}

static size_t keep(struct wbuf *t, const void *p, size_t n)
{
	size_t at = t->len;
	if (n)
		wbuf_put(t, p, n);
	return at;
}

static int on_match(void *arg, const struct yaraw_match *ym, struct err *e)
{
	struct fy *s = arg;
	struct find_yara_result *o = s->out;
	struct wbuf *t = &o->text;
	const struct model_obj *ob = model_obj(s->m, s->obj);
	size_t dn = ym->data_len < FIND_YARA_CONTEXT ? ym->data_len : FIND_YARA_CONTEXT;
	struct find_yara_hit h = { .addr = model_va(s->m, ob), .obj = s->obj, .offset = object_offset(s, ym->offset),
				   .length = ym->length, .state = (uint8_t)find_state_of(ob), .source = s->source,
				   .form = s->form };

	if (!s->field_done) {
		s->field_done = true;
		s->field = t->len;
		find_holder_field(s->m, s->r, s->obj, t);
		s->field_len = t->len - s->field;
	}
	h.field = s->field;
	h.field_len = s->field_len;
	h.rule = keep(t, ym->rule, h.rule_len = strlen(ym->rule));
	h.tags = keep(t, ym->tags, h.tags_len = strlen(ym->tags));
	h.string = keep(t, ym->string, h.string_len = strlen(ym->string));
	h.data = keep(t, ym->data, h.data_len = ym->data ? dn : 0);
	if (wbuf_status(t, e) || XALLOC_GROW(o->v, o->cap, o->count + 1, 64))
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory keeping the YARA matches");
	o->v[o->count++] = h;
	return 0;
}

static int scan(struct fy *s, const uint8_t *p, size_t n, uint8_t form, struct err *e)
{
	s->form = form;
	s->out->bytes += n;
	s->out->buffers++;
	return yaraw_scan(s->y, p, n, on_match, s, e);
}

/* A String: stored, then the other form. */
static int scan_string(struct fy *s, const struct model_obj *o, const uint8_t *p, size_t n, struct err *e)
{
	bool narrow = model_string_compressed(s->m, o);
	int rc = scan(s, p, n, FIND_YARA_STORED, e);
	wbuf_reset(&s->alt);
	for (size_t i = 0; narrow && i < n; i++)
		wbuf_u16le(&s->alt, p[i]);
	for (size_t i = 0; !narrow && i + 1 < n; i += 2) {
		uint32_t u = ld_u16le(p + i);
		if (u >= 0xd800 && u < 0xdc00 && i + 3 < n && ld_u16le(p + i + 2) >= 0xdc00 && ld_u16le(p + i + 2) < 0xe000) {
			u = 0x10000 + ((u - 0xd800) << 10) + (ld_u16le(p + i + 2) - 0xdc00u);
			i += 2;
		}
		wbuf_utf8(&s->alt, u);
	}
	if (rc == 0 && (rc = wbuf_status(&s->alt, e)) == 0)
		rc = scan(s, s->alt.data, s->alt.len, narrow ? FIND_YARA_UTF16 : FIND_YARA_UTF8, e);
	return rc;
}

static int scan_object(struct fy *s, size_t i, struct err *e)
{
	const struct model_obj *o = model_obj(s->m, i);
	uint64_t va = model_va(s->m, o), from = va;
	uint64_t n = o->size;
	const uint8_t *p;

	s->obj = i;
	s->field_done = false;
	s->source = o->kind == MODEL_STRING ? FIND_SRC_STRING
		  : o->kind == MODEL_PRIM_ARRAY ? FIND_SRC_ARRAY
		  : o->alloc == MODEL_FREE ? FIND_SRC_RESIDUE : FIND_SRC_INSTANCE;
	if (o->kind == MODEL_CLASS || o->kind == MODEL_OBJ_ARRAY)
		return 0;
	if (o->kind == MODEL_STRING || o->kind == MODEL_PRIM_ARRAY) {
		from = model_data_addr(s->m, o);
		n = from >= va && from - va <= o->size ? o->size - (from - va) : 0;
	}
	if (n > FIND_SCAN_MAX)
		n = FIND_SCAN_MAX;
	if (!n || !(p = img_span(model_image(s->m), from, (size_t)n, NULL)))
		return 0;
	s->base = (uint32_t)(from - va);
	s->out->objects++;
	if (o->kind == MODEL_STRING)
		return scan_string(s, o, p, (size_t)n, e);
	return scan(s, p, (size_t)n, FIND_YARA_STORED, e);
}

int find_yara_run(const struct model *m, const struct referrers *r, struct yaraw *y, struct find_yara_result *out,
		  struct err *e)
{
	struct fy s = { .m = m, .r = r, .y = y, .out = out };
	struct img_drop drop = { 0 };
	int rc = 0;

	memset(out, 0, sizeof(*out));
	wbuf_init(&out->text);
	wbuf_init(&s.alt);
	for (size_t i = 0; rc == 0 && i < model_count(m); i++) {
		img_drop_behind(model_image(m), &drop, model_va(m, model_obj(m, i)));
		rc = scan_object(&s, i, e);
	}
	wbuf_release(&s.alt);
	return rc;
}

void find_yara_release(struct find_yara_result *r)
{
	xfree(r->v);
	wbuf_release(&r->text);
	memset(r, 0, sizeof(*r));
}

const char *find_yara_form_name(unsigned f)
{
	static const char *const names[FIND_YARA_FORM_COUNT] = { "stored", "utf16", "utf8" };
	return f < FIND_YARA_FORM_COUNT ? names[f] : "?";
}
