/* strings_find.c - String objects and string residue of a carved heap (see strings_find.h). */
#include "output/export/strings_find.h"

#include <stdlib.h>
#include <string.h>

#include "carver/base/anomaly.h"
#include "carver/base/cursor.h"
#include "carver/base/xalloc.h"
#include "rosalloc/walk/walk.h"

enum { SF_MAX_CHARS = INT32_MAX };   /* a String's length as ART allows it (count_ is an int) */

struct sf_place {
	uint32_t addr, clobbered;
	uint64_t room;
};

struct sf {
	const struct model *m;
	const struct strings_opts *o;
	strings_fn fn;
	void *arg;
	struct wbuf text;
	struct sf_place *places;
	size_t count, cap;
};

static const char *const source_names[STRINGS_SOURCE_COUNT] = { "object", "string-body", "run8", "run16" };

const char *strings_source_name(unsigned s) { return s < STRINGS_SOURCE_COUNT ? source_names[s] : "?"; }

static int sf_nomem(struct err *e)
{
	return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory listing strings");
}

static const char *cls_name(const struct model *m, size_t c)
{
	const char *n = c < model_runtime(m)->class_count ? model_runtime(m)->classes[c].name : NULL;
	return n ? n : "?";
}

void strings_describe_ref(const struct model *m, size_t from, uint32_t off, struct wbuf *out)
{
	const struct model_obj *o = model_obj(m, from);
	struct referrers_field f;

	if (!referrers_field_at(m, o, off, &f)) {
		wbuf_str(out, cls_name(m, o->cls));
		wbuf_put(out, "+0x", 3);
		wbuf_hex(out, off);
	} else if (f.is_element) {
		wbuf_str(out, cls_name(m, o->cls));
		wbuf_u8(out, '[');
		wbuf_dec(out, f.index);
		wbuf_u8(out, ']');
	} else {
		if (f.is_static)
			wbuf_put(out, "static ", 7);
		wbuf_str(out, cls_name(m, f.is_static ? f.declaring : o->cls));
		wbuf_u8(out, '.');
		wbuf_str(out, f.field->name ? f.field->name : "?");
	}
}

/* ---- pass 1: String objects ---- */

static int each_object(struct sf *s, struct err *e)
{
	const struct mirror *mr = &model_runtime(s->m)->m;
	struct img_drop drop = { 0 };
	for (size_t i = 0; i < model_count(s->m); i++) {
		const struct model_obj *o = model_obj(s->m, i);
		uint64_t va = model_va(s->m, o);
		img_drop_behind(model_image(s->m), &drop, va);   /* in address order: bounded memory */
		struct strings_hit h = { .source = STRINGS_OBJECT, .addr = va, .obj = i, .alloc = o->alloc,
					 .content = o->content, .reach = o->reach, .confidence = o->confidence };
		struct mirror_string ms;
		struct err why;
		int rc;

		if (o->kind != MODEL_STRING && !(o->cls == model_jls(s->m) && model_jls(s->m) != MODEL_NONE))
			continue;   /* 5.x Strings are plain instances of java.lang.String (chars in a char[]) */
		err_init(&why);
		wbuf_reset(&s->text);
		rc = mirror_string_read(mr, va, SF_MAX_CHARS, &ms, &why);
		if (rc == 0) {
			h.length = ms.length;
			h.compressed = ms.compressed;
			rc = mirror_string_wtf8(mr, va, SF_MAX_CHARS, &s->text, &why);
		}
		if (rc == -ERR_NOMEM)
			return sf_nomem(e);
		h.text_ok = rc == 0;   /* a 5.x String's char[] may lie outside the image */
		h.why = h.text_ok ? NULL : why.msg;
		h.text = s->text.data;
		h.text_len = h.text_ok ? s->text.len : 0;
		if ((rc = s->fn(s->arg, &h, e)))
			return rc;
	}
	return 0;
}

/* ---- pass 2: residue in empty free places ---- */

/* walk_emit_fn: keeps the room and overwritten bytes of each empty free place. */
static int keep_place(void *arg, const struct walk_candidate *c, struct err *e)
{
	struct sf *s = arg;
	if (!model_is_free_place(s->m, c->addr))
		return 0;
	if (XALLOC_GROW(s->places, s->cap, s->count + 1, 256))
		return sf_nomem(e);
	s->places[s->count++] = (struct sf_place){ (uint32_t)c->addr, c->clobbered, c->room };
	return 0;
}

static int by_place(const void *a, const void *b)
{
	const struct sf_place *x = a, *y = b;
	return (x->addr > y->addr) - (x->addr < y->addr);
}

/* Walks again the spaces that hold empty free places, for their rooms.  The walkers record
 * damage into a sink of their own: the carve that made the model recorded it already. */
static int find_places(struct sf *s, struct err *e)
{
	const struct art_runtime *rt = model_runtime(s->m);
	struct anomaly_sink again;
	int rc = 0;

	anomaly_init(&again, 0);
	struct walk_ctx ctx = { .rt = rt, .sink = &again, .emit = keep_place, .arg = s };
	for (size_t i = 0; i < rt->spaces.count && rc == 0; i++) {
		const struct art_space *sp = &rt->spaces.v[i];
		if (!spaces_holds_objects(sp->kind))
			continue;
		if (model_free_place_within(s->m, sp->begin, sp->end))
			rc = walk_space(&ctx, sp, e);
	}
	anomaly_release(&again);
	if (rc == 0 && s->count)
		qsort(s->places, s->count, sizeof(*s->places), by_place);
	return rc;
}

static int report(struct sf *s, const struct sf_place *p, enum strings_source src, uint64_t addr, uint32_t length,
		  bool compressed, uint8_t confidence, struct err *e)
{
	struct strings_hit h = { .source = src, .addr = addr, .obj = MODEL_NONE, .place = p->addr, .length = length,
				 .compressed = compressed, .text_ok = true, .alloc = MODEL_FREE,
				 .content = MODEL_RESIDUE, .reach = MODEL_REACH_UNKNOWN, .confidence = confidence,
				 .text = s->text.data, .text_len = s->text.len };
	if (wbuf_status(&s->text, e))
		return -ERR_NOMEM;
	return s->fn(s->arg, &h, e);
}

static bool printable8(uint8_t c) { return c >= 0x20 && c <= 0x7e; }
static bool printable16(uint32_t u) { return (u >= 0x20 && u <= 0x7e) || (u >= 0xa0 && u <= 0xff); }

/* A String body at the place start (see strings_find.h), read from the place's bytes (count_
 * as 8.0+ stores it: length << 1 | 1 for UTF-16, runtime/mirror/string.h @R80..R11); *end is
 * set past its characters. */
static int body(struct sf *s, const struct sf_place *p, const uint8_t *bytes, uint64_t *end, struct err *e)
{
	const struct art_layout *l = model_runtime(s->m)->layout;
	uint32_t hash = 0, min = s->o->min_run ? s->o->min_run : STRINGS_MIN_RUN;
	bool printable = true;

	*end = 0;
	if (l->string.value == ART_ABSENT || !l->string.compressible || p->clobbered > l->string.count ||
	    l->string.value > p->room || l->string.count > p->room - 4 || l->string.hash > p->room - 4)
		return 0;
	uint32_t count = ld_u32le(bytes + l->string.count), stored_hash = ld_u32le(bytes + l->string.hash);
	uint32_t length = count >> 1;
	bool compressed = (count & 1) == 0;
	uint64_t n = compressed ? length : 2ull * length;
	if (count > INT32_MAX || length == 0 || n > p->room - l->string.value)
		return 0;
	const uint8_t *c = bytes + l->string.value;
	for (uint32_t i = 0; i < length; i++) {
		uint32_t u = compressed ? c[i] : ld_u16le(c + 2ull * i);
		hash = hash * 31 + u;
		printable = printable && printable16(u);
	}
	if (!(stored_hash ? stored_hash == hash : printable && length >= min))
		return 0;
	wbuf_reset(&s->text);
	/* the bytes were read above from the captured place: a failure here is no "not this" */
	int rc = mirror_string_wtf8(&model_runtime(s->m)->m, p->addr, SF_MAX_CHARS, &s->text, e);
	if (rc)
		return rc;
	*end = l->string.value + n;
	return report(s, p, STRINGS_BODY, p->addr, length, compressed, stored_hash ? 70 : 50, e);
}

/* Runs of printable 8-bit characters in bytes[from, to) of the place. */
static int runs8(struct sf *s, const struct sf_place *p, const uint8_t *bytes, uint64_t from, uint64_t to,
		 struct err *e)
{
	uint32_t min = s->o->min_run ? s->o->min_run : STRINGS_MIN_RUN;
	for (uint64_t i = from; i < to;) {
		uint64_t j = i;
		while (j < to && printable8(bytes[j]))
			j++;
		if (j - i >= min) {
			wbuf_reset(&s->text);
			wbuf_put(&s->text, bytes + i, (size_t)(j - i));
			int rc = report(s, p, STRINGS_RUN8, p->addr + i, (uint32_t)(j - i), true, 30, e);
			if (rc)
				return rc;
		}
		i = j < to ? j + 1 : j;
	}
	return 0;
}

/* Runs of printable UTF-16LE units at 2-aligned offsets of bytes[from, to). */
static int runs16(struct sf *s, const struct sf_place *p, const uint8_t *bytes, uint64_t from, uint64_t to,
		  struct err *e)
{
	uint32_t min = s->o->min_run ? s->o->min_run : STRINGS_MIN_RUN;
	for (uint64_t i = (from + 1) & ~1ull; i + 2 <= to;) {
		uint64_t j = i;
		while (j + 2 <= to && printable16(ld_u16le(bytes + j)))
			j += 2;
		if ((j - i) / 2 >= min) {
			wbuf_reset(&s->text);
			for (uint64_t k = i; k < j; k += 2)
				wbuf_utf8(&s->text, ld_u16le(bytes + k));
			int rc = report(s, p, STRINGS_RUN16, p->addr + i, (uint32_t)((j - i) / 2), false, 30, e);
			if (rc)
				return rc;
		}
		i = j + 2;
	}
	return 0;
}

static int scan_place(struct sf *s, const struct sf_place *p, struct err *e)
{
	const uint8_t *bytes = p->room ? img_span(model_image(s->m), p->addr, p->room, NULL) : NULL;
	uint64_t from = p->clobbered, after_body = 0;
	int rc;

	/* a place whose bytes are not all captured in one region holds nothing to read */
	if (!bytes)
		return 0;
	if ((rc = body(s, p, bytes, &after_body, e)))
		return rc;
	if (after_body > from)
		from = after_body;
	if (from >= p->room)
		return 0;
	if ((rc = runs8(s, p, bytes, from, p->room, e)))
		return rc;
	return runs16(s, p, bytes, from, p->room, e);
}

int strings_each(const struct model *m, const struct strings_opts *o, strings_fn fn, void *arg, struct err *e)
{
	struct sf s = { .m = m, .o = o, .fn = fn, .arg = arg };
	int rc;

	wbuf_init(&s.text);
	rc = each_object(&s, e);
	if (rc == 0 && o->residue && model_free_place_count(m))
		rc = find_places(&s, e);
	for (size_t i = 0; rc == 0 && i < s.count; i++)
		if (i == 0 || s.places[i].addr != s.places[i - 1].addr)
			rc = scan_place(&s, &s.places[i], e);
	wbuf_release(&s.text);
	xfree(s.places);
	return rc;
}
