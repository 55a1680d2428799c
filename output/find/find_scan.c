/* find_scan.c - indicators in a carved heap (see find_scan.h). */
#include "output/find/find_scan.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "carver/base/cursor.h"
#include "carver/base/xalloc.h"

enum { SECRET_CHARS = 256, SECRET_BYTES = 64, CLASS_DEPTH = 64 };

/* Platform packages whose fields named like secrets are not credentials (find_scan.h). */
static const char *const platform_prefixes[] = { "java.", "javax.", "sun.", "jdk.", "libcore.", "dalvik.",
						   "kotlin.", "kotlinx.", "android.util.", "android.icu.",
						   "com.android.org." };

struct fs {
	const struct model *m;
	const struct referrers *r;
	struct find_result *f;
	struct wbuf narrow;     /* the text being matched */
	uint8_t *secret;        /* per class: 0 not worked out, 1 no secret fields, 2 some */
	/* the object being scanned (MODEL_NONE: the residue place `place`) */
	size_t obj;
	const struct model_residue *place;
	uint32_t base;          /* offset in the object of narrow's first character */
	unsigned width;         /* bytes per character */
	uint8_t source;
	size_t field, field_len;   /* its holder's field in f->text, once worked out */
	bool field_done;
};

unsigned find_state_of(const struct model_obj *o)
{
	if (o->alloc == MODEL_FREE)
		return FIND_FREE;
	return o->reach == MODEL_REACHABLE ? FIND_LIVE : o->reach == MODEL_UNREACHABLE ? FIND_DROPPED : FIND_UNKNOWN;
}

static const char *class_name(const struct model *m, size_t cls)
{
	const char *n = model_runtime(m)->classes[cls].name;
	return n ? n : "?";
}

void find_holder_field(const struct model *m, const struct referrers *r, size_t i, struct wbuf *t)
{
	const uint32_t *from, *off;
	struct referrers_field rf;

	if (!referrers_of(r, i, &from, &off))
		return;
	const struct model_obj *h = model_obj(m, from[0]);
	if (!referrers_field_at(m, h, off[0], &rf))
		wbuf_printf(t, "%s+0x%x", class_name(m, h->cls), off[0]);
	else if (rf.is_element)
		wbuf_printf(t, "%s[%u]", class_name(m, h->cls), rf.index);
	else
		wbuf_printf(t, "%s%s.%s", rf.is_static ? "static " : "", class_name(m, rf.is_static ? rf.declaring : h->cls),
			    rf.field->name ? rf.field->name : "?");
}

/* The holder's field of the current object into f->text, once per object. */
static void holder_field(struct fs *s)
{
	struct wbuf *t = &s->f->text;
	if (s->field_done)
		return;
	s->field_done = true;
	s->field = t->len;
	find_holder_field(s->m, s->r, s->obj, t);
	s->field_len = t->len - s->field;
}

/* A hit of the current object or place whose value the caller has just appended to f->text
 * from value on. */
static int add_hit(struct fs *s, enum find_kind kind, uint32_t offset, size_t value, struct err *e)
{
	struct find_result *f = s->f;
	const struct model_obj *o = s->obj == MODEL_NONE ? NULL : model_obj(s->m, s->obj);
	size_t value_len = f->text.len - value;

	if (o)
		holder_field(s);
	if (wbuf_status(&f->text, e) || XALLOC_GROW(f->v, f->cap, f->count + 1, 256))
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory keeping the indicators");
	f->v[f->count++] = (struct find_hit){ .addr = o ? model_va(s->m, o) : s->place->addr, .obj = s->obj,
					      .space = o ? 0 : s->place->space, .offset = offset,
					      .kind = (uint8_t)kind,
					      .state = (uint8_t)(o ? find_state_of(o) : FIND_RESIDUE),
					      .source = s->source, .value = value, .value_len = value_len,
					      .field = o ? s->field : 0, .field_len = o ? s->field_len : 0 };
	f->per_kind[kind]++;
	return 0;
}

static int on_match(void *arg, enum find_kind kind, size_t off, size_t len, struct err *e)
{
	struct fs *s = arg;
	size_t value = s->f->text.len;
	wbuf_put(&s->f->text, s->narrow.data + off, len);
	return add_hit(s, kind, s->base + (uint32_t)(off * s->width), value, e);
}

/* Matches n characters of width 1 or 2 (UTF-16LE) at p, the first at offset base of the
 * object. */
static int scan_chars(struct fs *s, const uint8_t *p, size_t n, unsigned width, uint32_t base, struct err *e)
{
	wbuf_reset(&s->narrow);
	if (wbuf_reserve(&s->narrow, n))
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory scanning for indicators");
	for (size_t i = 0; i < n; i++) {
		uint32_t c = width == 1 ? p[i] : ld_u16le(p + 2 * i);
		s->narrow.data[i] = c < 0x80 ? (uint8_t)c : 1;
	}
	s->narrow.len = n;
	s->width = width;
	s->base = base;
	s->f->bytes += n * width;
	return find_match_text(s->narrow.data, n, on_match, s, e);
}

/* Bytes of unknown encoding: as 8-bit text, then as UTF-16LE at even offsets. */
static int scan_bytes(struct fs *s, const uint8_t *p, size_t n, uint32_t base, struct err *e)
{
	int rc = scan_chars(s, p, n, 1, base, e);
	return rc ? rc : scan_chars(s, p, n / 2, 2, base, e);
}

/* Bytes [from, from + n) of an object when captured in one piece, else NULL. */
static const uint8_t *object_bytes(const struct fs *s, uint64_t from, size_t n)
{
	return n ? img_span(model_image(s->m), from, n, NULL) : NULL;
}

static int scan_text_object(struct fs *s, const struct model_obj *o, struct err *e)
{
	const struct model_class *k = model_class(s->m, o->cls);
	uint64_t va = model_va(s->m, o), data = model_data_addr(s->m, o);
	uint64_t len = model_length(s->m, o);
	unsigned width;

	if (o->kind == MODEL_STRING) {
		width = model_string_compressed(s->m, o) ? 1 : 2;
		s->source = FIND_SRC_STRING;
	} else if (k->elem == 'C' || k->elem == 'B') {
		width = k->elem == 'C' ? 2 : 1;
		s->source = k->elem == 'C' ? FIND_SRC_CHARS : FIND_SRC_BYTES;
	} else {
		return 0;
	}
	if (data < va || len * width > FIND_SCAN_MAX)
		len = data < va ? 0 : FIND_SCAN_MAX / width;
	const uint8_t *p = object_bytes(s, data, (size_t)(len * width));
	if (!p)
		return 0;
	s->f->objects++;
	if (s->source == FIND_SRC_BYTES)
		return scan_bytes(s, p, (size_t)len, (uint32_t)(data - va), e);
	return scan_chars(s, p, (size_t)len, width, (uint32_t)(data - va), e);
}

/* A free instance's bytes past its class word. */
static int scan_residue(struct fs *s, const struct model_obj *o, struct err *e)
{
	uint32_t from = 4, n = o->size > from ? o->size - from : 0;
	const uint8_t *p = object_bytes(s, model_va(s->m, o) + from, n < FIND_SCAN_MAX ? n : FIND_SCAN_MAX);
	if (!p)
		return 0;
	s->source = FIND_SRC_RESIDUE;
	s->f->objects++;
	return scan_bytes(s, p, n < FIND_SCAN_MAX ? n : FIND_SCAN_MAX, from, e);
}

/* A residue place's bytes past the allocator's links, as far as they are captured in one
 * piece. */
static int scan_place(struct fs *s, const struct model_residue *r, struct err *e)
{
	size_t rest;
	uint64_t n = r->room > r->from ? r->room - r->from : 0;
	const uint8_t *p = n ? img_span(model_image(s->m), r->addr + r->from, 0, &rest) : NULL;
	if (!p)
		return 0;
	n = n < rest ? n : rest;
	n = n < FIND_SCAN_MAX ? n : FIND_SCAN_MAX;
	s->obj = MODEL_NONE;
	s->place = r;
	s->source = FIND_SRC_PLACE;
	s->f->objects++;
	return scan_bytes(s, p, (size_t)n, r->from, e);
}

/* ---- secret fields ---- */

static bool platform_class(const char *name)
{
	for (size_t i = 0; i < sizeof(platform_prefixes) / sizeof(platform_prefixes[0]); i++)
		if (!strncmp(name, platform_prefixes[i], strlen(platform_prefixes[i])))
			return true;
	return false;
}

/* Each class of cls's chain (itself, then its supers; bounded, cycles in damaged data end it). */
#define EACH_CLASS(rt, c, cls, depth)                                                              \
	for (size_t c = (cls), depth = 0; c != RT_NONE && c < (rt)->class_count && depth < CLASS_DEPTH; \
	     c = (rt)->classes[c].super, depth++)

static bool has_secret_fields(struct fs *s, size_t cls)
{
	const struct art_runtime *rt = model_runtime(s->m);
	if (!s->secret[cls]) {
		s->secret[cls] = 1;
		EACH_CLASS(rt, c, cls, depth) {
			const struct rt_class *k = &rt->classes[c];
			if (k->name && platform_class(k->name))
				continue;
			for (uint32_t i = 0; i < k->field_count; i++)
				if (find_secret_name(k->fields[i].name) && k->fields[i].offset != RT_OFFSET_UNKNOWN)
					s->secret[cls] = 2;
		}
	}
	return s->secret[cls] == 2;
}

/* The value of a reference field: a String's text, a char[] as text, a byte[] as hex.
 * Returns 1 when one was appended, 0 for null, any other object or a String whose characters
 * do not read (damage, not a failed run: e is cleared), -ERR_NOMEM. */
static int reference_value(struct fs *s, uint32_t ref, size_t *target, struct wbuf *t, struct err *e)
{
	const struct model *m = s->m;
	size_t i = ref ? model_find(m, ref) : MODEL_NONE;
	if (i == MODEL_NONE)
		return 0;
	const struct model_obj *o = model_obj(m, i);
	const struct model_class *k = model_class(m, o->cls);
	uint32_t n = model_length(m, o);
	const uint8_t *p;
	*target = i;
	if (o->kind == MODEL_STRING || (o->cls == model_jls(m) && model_jls(m) != MODEL_NONE)) {
		int rc = mirror_string_wtf8(&model_runtime(m)->m, model_va(m, o), SECRET_CHARS, t, e);
		if (rc == -ERR_NOMEM)
			return rc;
		if (rc)
			err_init(e);
		return rc == 0;
	}
	if (o->kind != MODEL_PRIM_ARRAY || (k->elem != 'B' && k->elem != 'C') || n == 0)
		return 0;
	if (k->elem == 'C') {
		n = n < SECRET_CHARS ? n : SECRET_CHARS;
		if (!(p = img_span(model_image(m), model_data_addr(m, o), 2u * n, NULL)))
			return 0;
		for (uint32_t j = 0; j < n; j++)
			wbuf_utf8(t, ld_u16le(p + 2 * j));
		return 1;
	}
	n = n < SECRET_BYTES ? n : SECRET_BYTES;
	if (!(p = img_span(model_image(m), model_data_addr(m, o), n, NULL)))
		return 0;
	for (uint32_t j = 0; j < n; j++)
		wbuf_printf(t, "%02x", p[j]);
	return 1;
}

/* A primitive field's value (type descriptor t) from its bytes; false when zero. */
static bool primitive_value(uint8_t type, const uint8_t *p, struct wbuf *t)
{
	uint64_t v = 0;
	unsigned n = mirror_field_size(type);
	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)p[i] << 8 * i;
	if (v == 0)
		return false;
	switch (type) {
	case 'Z': wbuf_printf(t, "true"); break;
	case 'B': wbuf_printf(t, "%d", (int8_t)v); break;
	case 'S': wbuf_printf(t, "%d", (int16_t)v); break;
	case 'C': wbuf_printf(t, "%u", (unsigned)v); break;
	case 'I': wbuf_printf(t, "%" PRId32, (int32_t)v); break;
	case 'F': { float x; uint32_t u = (uint32_t)v; memcpy(&x, &u, 4); wbuf_printf(t, "%.9g", (double)x); break; }
	case 'D': { double x; memcpy(&x, &v, 8); wbuf_printf(t, "%.17g", x); break; }
	default: wbuf_printf(t, "%" PRId64, (int64_t)v); break;
	}
	return true;
}

/* One secret field fd (declared by class `declaring`; a static one of the Class object hi
 * when is_static) of the holder object hi: its name, then its value, into f->text. */
static int secret_field(struct fs *s, size_t hi, const struct rt_field *fd, size_t declaring, bool is_static,
			struct err *e)
{
	const struct model_obj *h = model_obj(s->m, hi);
	struct wbuf *t = &s->f->text;
	size_t field = t->len, value, target = hi;
	uint8_t b[8], type = fd->type ? (uint8_t)fd->type[0] : 0;
	unsigned n = mirror_field_size(type);

	if (!n || fd->offset > h->size || n > h->size - fd->offset ||
	    !img_peek(model_image(s->m), model_va(s->m, h) + fd->offset, b, n))
		return 0;
	wbuf_printf(t, "%s%s.%s", is_static ? "static " : "", class_name(s->m, declaring), fd->name ? fd->name : "?");
	value = t->len;
	int got = type == 'L' || type == '[' ? reference_value(s, ld_u32le(b), &target, t, e) : primitive_value(type, b, t);
	if (got <= 0) {
		t->len = field;
		return got;
	}
	s->obj = target;
	s->source = FIND_SRC_FIELD;
	s->field = field;
	s->field_len = value - field;
	s->field_done = true;
	return add_hit(s, FIND_SECRET, target == hi ? fd->offset : 0, value, e);
}

static int scan_secrets(struct fs *s, size_t hi, struct err *e)
{
	const struct art_runtime *rt = model_runtime(s->m);
	const struct model_obj *h = model_obj(s->m, hi);
	int rc = 0;
	EACH_CLASS(rt, c, (size_t)h->cls, depth) {
		const struct rt_class *k = &rt->classes[c];
		if (k->name && platform_class(k->name))
			continue;
		for (uint32_t i = 0; rc == 0 && i < k->field_count; i++)
			if (k->fields[i].offset != RT_OFFSET_UNKNOWN && find_secret_name(k->fields[i].name))
				rc = secret_field(s, hi, &k->fields[i], c, false, e);
		if (rc)
			return rc;
	}
	return 0;
}

/* The static fields named like secrets of the class whose Class object is hi (its own
 * statics: they are not inherited), when the class is not the platform's. */
static int scan_static_secrets(struct fs *s, size_t hi, struct err *e)
{
	const struct art_runtime *rt = model_runtime(s->m);
	const struct rt_class *k = runtime_class_at(rt, model_va(s->m, model_obj(s->m, hi)));
	if (!k || (k->name && platform_class(k->name)))
		return 0;
	size_t c = (size_t)(k - rt->classes);
	const struct model_class *mc = model_class(s->m, c);
	int rc = 0;
	for (uint32_t i = 0; rc == 0 && mc->statics_ok && i < mc->statics.count; i++) {
		const struct rt_field *fd = &mc->statics.v[i];
		if (fd->offset != RT_OFFSET_UNKNOWN && find_secret_name(fd->name))
			rc = secret_field(s, hi, fd, c, true, e);
	}
	return rc;
}

/* ---- the pass ---- */

/* Hits are kept in object order; a secret's value object may lie anywhere, so the list is
 * sorted by address and offset at the end (stable for the same object and offset: kind). */
static int by_place(const void *a, const void *b)
{
	const struct find_hit *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return x->value < y->value ? -1 : x->value > y->value;
}

static int scan_object(struct fs *s, size_t i, struct err *e)
{
	const struct model_obj *o = model_obj(s->m, i);
	int rc = 0;
	s->obj = i;
	s->field_done = false;
	s->field_len = 0;
	if (o->kind == MODEL_STRING || o->kind == MODEL_PRIM_ARRAY)
		return scan_text_object(s, o, e);
	if (o->kind == MODEL_CLASS)
		return scan_static_secrets(s, i, e);
	if (o->kind != MODEL_INSTANCE)
		return 0;
	if (o->alloc == MODEL_FREE && (rc = scan_residue(s, o, e)))
		return rc;
	if (o->cls < model_runtime(s->m)->class_count && has_secret_fields(s, o->cls))
		rc = scan_secrets(s, i, e);
	return rc;
}

int find_run(const struct model *m, const struct referrers *r, struct find_result *f, struct err *e)
{
	struct fs s = { .m = m, .r = r, .f = f };
	struct img_drop drop = { 0 };
	size_t classes = model_runtime(m)->class_count;
	int rc = 0;

	memset(f, 0, sizeof(*f));
	wbuf_init(&f->text);
	wbuf_init(&s.narrow);
	if (!(s.secret = xcalloc(classes ? classes : 1, 1)))
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory scanning for indicators");
	for (size_t i = 0; rc == 0 && i < model_count(m); i++) {
		img_drop_behind(model_image(m), &drop, model_va(m, model_obj(m, i)));   /* address order */
		rc = scan_object(&s, i, e);
	}
	drop = (struct img_drop){ 0 };   /* the residue places: a second pass in address order */
	for (size_t i = 0; rc == 0 && i < model_residue_count(m); i++) {
		img_drop_behind(model_image(m), &drop, model_residue_at(m, i)->addr);
		rc = scan_place(&s, model_residue_at(m, i), e);
	}
	if (rc == 0 && f->count)
		qsort(f->v, f->count, sizeof(*f->v), by_place);
	wbuf_release(&s.narrow);
	xfree(s.secret);
	return rc;
}

void find_release(struct find_result *f)
{
	xfree(f->v);
	wbuf_release(&f->text);
	memset(f, 0, sizeof(*f));
}

const char *find_state_name(unsigned st)
{
	static const char *const names[FIND_STATE_COUNT] = { "live", "dropped", "unknown", "free", "residue" };
	return st < FIND_STATE_COUNT ? names[st] : "?";
}

const char *find_source_name(unsigned src)
{
	static const char *const names[FIND_SRC_COUNT] = { "string", "chars", "bytes", "residue", "field",
								 "array", "instance", "place" };
	return src < FIND_SRC_COUNT ? names[src] : "?";
}
