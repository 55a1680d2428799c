/* decode.c - the decoder's plans per class and its typed values (see decode.h). */
#include "output/decode/decode_int.h"

#include <string.h>

#include "carver/base/cursor.h"
#include "carver/base/escape.h"
#include "carver/base/xalloc.h"

enum { DEC_MAX_SUPERS = 4096 };   /* longest super-class chain followed (hostile cycles) */

/* 2000-01-01 and 2040-01-01 UTC: the times a heap of a phone in use plausibly holds. */
#define DEC_TIME_LO_S 946684800LL
#define DEC_TIME_HI_S 2208988800LL

/* The containers by the name of the class whose fields are read (libcore, frameworks/base
 * core/java/android/util for the android.util ones). */
static const struct {
	const char *name;
	uint8_t box;
} dec_containers[] = {
	{"java.util.ArrayList", DEC_C_ARRAY_LIST},
	{"java.util.Vector", DEC_C_VECTOR},
	{"java.util.LinkedList", DEC_C_LINKED_LIST},
	{"java.util.ArrayDeque", DEC_C_ARRAY_DEQUE},
	{"java.util.LinkedHashMap", DEC_C_LINKED_MAP},   /* before HashMap: a super chain meets it first */
	{"java.util.HashMap", DEC_C_HASH_MAP},
	{"java.util.HashSet", DEC_C_HASH_SET},
	{"java.util.TreeMap", DEC_C_TREE_MAP},
	{"java.util.TreeSet", DEC_C_TREE_SET},
	{"java.util.concurrent.ConcurrentHashMap", DEC_C_CONCURRENT_MAP},
	{"java.util.Hashtable", DEC_C_HASHTABLE},
	{"android.util.ArrayMap", DEC_C_ARRAY_MAP},
	{"android.util.ArraySet", DEC_C_ARRAY_SET},
	{"android.util.SparseArray", DEC_C_SPARSE_ARRAY},
	{"android.util.SparseIntArray", DEC_C_SPARSE_INT},
	{"android.util.LongSparseArray", DEC_C_SPARSE_LONG},
};

/* The boxes of java.lang and the kind of their `value` field. */
static const struct {
	const char *name;
	uint8_t kind;
} dec_boxes[] = {
	{"java.lang.Integer", DEC_INT}, {"java.lang.Long", DEC_LONG}, {"java.lang.Boolean", DEC_BOOL},
	{"java.lang.Character", DEC_CHAR}, {"java.lang.Byte", DEC_BYTE}, {"java.lang.Short", DEC_SHORT},
	{"java.lang.Float", DEC_FLOAT}, {"java.lang.Double", DEC_DOUBLE},
};

int dec_open(struct dec **out, const struct model *m, struct err *e)
{
	const struct art_runtime *rt = model_runtime(m);
	size_t n = rt->class_count ? rt->class_count : 1;
	struct dec *d = xcalloc(1, sizeof(*d));

	*out = NULL;
	if (!d)
		return dec_nomem(e);
	d->m = m;
	d->rt = rt;
	arena_init(&d->a);
	wbuf_init(&d->copy);
	wbuf_init(&d->text[0]);
	wbuf_init(&d->text[1]);
	wbuf_init(&d->scratch);
	err_init(&d->why);
	d->enum_cls = runtime_class_named(rt, "java.lang.Enum");
	if (!(d->plan = xcalloc(n, sizeof(*d->plan)))) {
		dec_close(d);
		return dec_nomem(e);
	}
	*out = d;
	return 0;
}

void dec_close(struct dec *d)
{
	if (!d)
		return;
	wbuf_release(&d->copy);
	wbuf_release(&d->text[0]);
	wbuf_release(&d->text[1]);
	wbuf_release(&d->scratch);
	arena_release(&d->a);
	xfree(d->plan);
	xfree(d->seen);
	xfree(d);
}

const char *dec_kind_name(unsigned k)
{
	static const char *const names[DEC_KIND_COUNT] = {"null", "boolean", "char", "byte", "short", "int",
		"long", "float", "double", "string", "ref", "enum", "boxed", "unread"};
	return k < DEC_KIND_COUNT ? names[k] : "?";
}

/* ---- time ---- */

static bool has_word(const char *lower, const char *w)
{
	return strstr(lower, w) != NULL;
}

bool dec_time_named(const char *name)
{
	static const char *const words[] = {"time", "date", "created", "modified", "updated", "sent",
		"received", "expir", "seen", "when", "stamp"};
	char lower[64];
	size_t n = name ? strlen(name) : 0;

	if (n == 0 || n >= sizeof(lower))
		return false;
	for (size_t i = 0; i <= n; i++)
		lower[i] = (char)(name[i] >= 'A' && name[i] <= 'Z' ? name[i] - 'A' + 'a' : name[i]);
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (has_word(lower, words[i]))
			return true;
	/* createdAt, sentMs, lastSeenMillis, created_at, sent_ms */
	return (n > 2 && (!strcmp(name + n - 2, "At") || !strcmp(name + n - 2, "Ms"))) ||
	       (n > 6 && !strcmp(name + n - 6, "Millis")) ||
	       (n > 3 && (!strcmp(lower + n - 3, "_at") || !strcmp(lower + n - 3, "_ms")));
}

/* The time v says (decode.h), into v->has_time / time_ms: hint DEC_TIME_NAMED, or a long
 * field (DEC_TIME_FIELD) in the milliseconds range.  Values without a name (entries, array
 * elements, boxes) are not read as times: the range alone would take ordinary numbers (the
 * Long 2^40 reads as 2004-11-03). */
static void infer_time(struct dec_value *v, uint8_t hint, bool is_long)
{
	int64_t x = v->i;
	bool named = hint == DEC_TIME_NAMED;
	if (hint == DEC_TIME_NONE)
		return;
	if (x >= DEC_TIME_LO_S * 1000 && x < DEC_TIME_HI_S * 1000 && (named || is_long)) {
		v->has_time = true;
		v->time_ms = x;
	} else if (named && x >= DEC_TIME_LO_S && x < DEC_TIME_HI_S) {
		v->has_time = true;
		v->time_ms = x * 1000;
	}
}

/* ---- plans ---- */

static const char *plan_name(struct dec *d, const struct dec_plan *p, uint32_t n, const struct rt_class *k,
			     const char *own)
{
	for (uint32_t i = 0; i < n; i++)
		if (!strcmp(p->f[i].name, own)) {
			wbuf_reset(&d->scratch);
			wbuf_printf(&d->scratch, "%s.%s", k->name ? k->name : "?", own);
			if (d->scratch.failed)
				return NULL;
			return arena_strndup(&d->a, (const char *)d->scratch.data, d->scratch.len);
		}
	return own;
}

/* "name": JSON-escaped, quoted, with the colon (written once per class, not per object). */
static const char *json_key(struct dec *d, const char *name, uint32_t *len)
{
	wbuf_reset(&d->scratch);
	escape_json_quoted(&d->scratch, (const uint8_t *)name, strlen(name));
	wbuf_u8(&d->scratch, ':');
	if (d->scratch.failed || d->scratch.len > UINT32_MAX)
		return NULL;
	*len = (uint32_t)d->scratch.len;
	return arena_strndup(&d->a, (const char *)d->scratch.data, d->scratch.len);
}

static int plan_fields(struct dec *d, size_t cls, struct dec_plan *p, struct err *e)
{
	const struct art_runtime *rt = d->rt;
	uint32_t klass = rt->layout->object.klass;
	uint32_t n = 0;
	unsigned depth = 0;

	for (size_t c = cls; c != RT_NONE && depth < DEC_MAX_SUPERS; c = rt->classes[c].super, depth++)
		n += rt->classes[c].field_count;
	if (!(p->f = arena_array(&d->a, n ? n : 1, sizeof(*p->f))))
		return dec_nomem(e);
	depth = 0;
	for (size_t c = cls; c != RT_NONE && depth < DEC_MAX_SUPERS; c = rt->classes[c].super, depth++) {
		const struct rt_class *k = &rt->classes[c];
		for (uint32_t i = 0; i < k->field_count; i++) {
			const struct rt_field *f = &k->fields[i];
			uint8_t t = f->type ? (uint8_t)f->type[0] : 0;
			if (f->offset == klass && (t == 'L' || t == '['))
				continue;   /* the class word: the object's class, not a field to show */
			struct dec_field *o = &p->f[p->n];
			o->own_name = f->name ? f->name : "?";
			if (!(o->name = plan_name(d, p, p->n, k, o->own_name)) || !(o->json_key = json_key(d, o->name, &o->json_key_len)))
				return dec_nomem(e);
			o->type = f->type;
			o->java_type = f->java_type ? f->java_type : f->type;
			o->offset = f->offset;
			o->declaring = c;
			o->t = t;
			o->time_hint = (t == 'J' || t == 'I') && dec_time_named(o->own_name) ? DEC_TIME_NAMED : DEC_TIME_FIELD;
			p->n++;
		}
	}
	return 0;
}

static bool reaches(const struct art_runtime *rt, size_t cls, size_t target)
{
	unsigned depth = 0;
	for (size_t c = cls; c != RT_NONE && depth < DEC_MAX_SUPERS; c = rt->classes[c].super, depth++)
		if (c == target)
			return true;
	return false;
}

/* What cls's instances are beyond their fields (enum dec_special). */
static void plan_special(struct dec *d, size_t cls, struct dec_plan *p)
{
	const struct art_runtime *rt = d->rt;
	const char *name = rt->classes[cls].name;
	unsigned depth = 0;

	if (cls == model_jls(d->m) || model_class(d->m, cls)->kind == MODEL_STRING) {
		p->special = DEC_S_STRING;
		return;
	}
	for (size_t i = 0; name && i < sizeof(dec_boxes) / sizeof(dec_boxes[0]); i++)
		if (!strcmp(name, dec_boxes[i].name) && (p->value = dec_field_named(p, cls, "value"))) {
			p->special = DEC_S_BOXED;
			p->box_kind = dec_boxes[i].kind;
			return;
		}
	if (d->enum_cls != RT_NONE && cls != d->enum_cls && reaches(rt, cls, d->enum_cls)) {
		p->enum_name = dec_field_named(p, d->enum_cls, "name");
		p->value = dec_field_named(p, d->enum_cls, "ordinal");
		p->special = DEC_S_ENUM;
		return;
	}
	for (size_t c = cls; c != RT_NONE && depth < DEC_MAX_SUPERS; c = rt->classes[c].super, depth++)
		for (size_t i = 0; rt->classes[c].name && i < sizeof(dec_containers) / sizeof(dec_containers[0]); i++)
			if (!strcmp(rt->classes[c].name, dec_containers[i].name)) {
				p->special = DEC_S_CONTAINER;
				p->container = dec_containers[i].box;
				p->base = c;
				return;
			}
}

int dec_plan_of(struct dec *d, size_t cls, const struct dec_plan **out, struct err *e)
{
	struct dec_plan *p = &d->plan[cls];
	int rc;

	*out = p;
	if (p->made)
		return 0;
	if ((rc = plan_fields(d, cls, p, e)))
		return rc;
	plan_special(d, cls, p);
	p->made = true;
	return 0;
}

const struct dec_field *dec_field_named(const struct dec_plan *p, size_t declaring, const char *name)
{
	for (uint32_t i = 0; i < p->n; i++)
		if ((declaring == RT_NONE || p->f[i].declaring == declaring) && !strcmp(p->f[i].own_name, name) &&
		    p->f[i].offset != RT_OFFSET_UNKNOWN && p->f[i].t)
			return &p->f[i];
	return NULL;
}

/* ---- reads ---- */

static bool read_at(struct dec *d, size_t obj, uint32_t offset, void *buf, uint32_t n)
{
	const struct model_obj *o = model_obj(d->m, obj);
	if (offset > o->size || n > o->size - offset)
		return false;
	return img_peek(model_image(d->m), model_va(d->m, o) + offset, buf, n);
}

bool dec_read_u32(struct dec *d, size_t obj, uint32_t offset, uint32_t *v)
{
	uint8_t b[4];
	if (!read_at(d, obj, offset, b, 4))
		return false;
	*v = ld_u32le(b);
	return true;
}

bool dec_read_u64(struct dec *d, size_t obj, uint32_t offset, uint64_t *v)
{
	uint8_t b[8];
	if (!read_at(d, obj, offset, b, 8))
		return false;
	*v = ld_u64le(b);
	return true;
}

/* The field named name of obj, NULL when absent; *rc -ERR_NOMEM when the plan failed. */
static const struct dec_field *obj_field(struct dec *d, size_t obj, const char *name, int *rc, struct err *e)
{
	const struct dec_plan *p;
	if ((*rc = dec_plan_of(d, model_obj(d->m, obj)->cls, &p, e)))
		return NULL;
	return dec_field_named(p, RT_NONE, name);
}

bool dec_obj_ref(struct dec *d, size_t obj, const char *name, uint32_t *ref, struct err *e)
{
	int rc;
	const struct dec_field *f = obj_field(d, obj, name, &rc, e);
	return f && (f->t == 'L' || f->t == '[') && dec_read_u32(d, obj, f->offset, ref);
}

bool dec_obj_int(struct dec *d, size_t obj, const char *name, int64_t *v, struct err *e)
{
	int rc;
	const struct dec_field *f = obj_field(d, obj, name, &rc, e);
	uint8_t b[8];

	if (!f || !strchr("JIBSC", f->t) || !f->t)
		return false;
	if (!read_at(d, obj, f->offset, b, mirror_field_size(f->t)))
		return false;
	switch (f->t) {
	case 'J': *v = (int64_t)ld_u64le(b); break;
	case 'I': *v = (int32_t)ld_u32le(b); break;
	case 'S': *v = (int16_t)ld_u16le(b); break;
	case 'C': *v = ld_u16le(b); break;
	default: *v = (int8_t)b[0];
	}
	return true;
}

/* ---- values ---- */

/* The text of the String object obj into slot's buffer, cut at DEC_TEXT_MAX bytes on a
 * character boundary. */
static int string_text(struct dec *d, size_t obj, unsigned slot, struct dec_value *v, struct err *e)
{
	struct wbuf *b = &d->text[slot];
	const struct model_obj *o = model_obj(d->m, obj);

	wbuf_reset(b);
	err_init(&d->why);
	int rc = mirror_string_wtf8(&d->rt->m, model_va(d->m, o), INT32_MAX, b, &d->why);
	if (rc == -ERR_NOMEM || b->failed)
		return dec_nomem(e);
	if (rc) {
		v->why = d->why.msg;
		return 0;
	}
	size_t n = b->len;
	if (n > DEC_TEXT_MAX) {
		n = DEC_TEXT_MAX;
		while (n > 0 && (b->data[n] & 0xc0) == 0x80)
			n--;   /* not inside a UTF-8 sequence */
		v->text_cut = true;
	}
	v->text = b->data ? (const char *)b->data : "";
	v->text_len = n;
	return 0;
}

/* The boxed primitive obj (plan p) into v. */
static void boxed_value(struct dec *d, size_t obj, const struct dec_plan *p, struct dec_value *v)
{
	uint8_t b[8] = { 0 };
	uint32_t u;
	uint64_t q;
	float f;
	double r;

	if (!read_at(d, obj, p->value->offset, b, mirror_field_size(p->value->t))) {
		v->kind = DEC_REF;
		return;
	}
	v->kind = DEC_BOXED;
	v->boxed = p->box_kind;
	switch (p->box_kind) {
	case DEC_LONG: v->i = (int64_t)ld_u64le(b); break;
	case DEC_INT: v->i = (int32_t)ld_u32le(b); break;
	case DEC_SHORT: v->i = (int16_t)ld_u16le(b); break;
	case DEC_CHAR: v->i = ld_u16le(b); break;
	case DEC_BYTE: v->i = (int8_t)b[0]; break;
	case DEC_BOOL: v->i = b[0] != 0; break;
	case DEC_FLOAT: u = ld_u32le(b); memcpy(&f, &u, sizeof(f)); v->r = f; break;
	default: q = ld_u64le(b); memcpy(&r, &q, sizeof(r)); v->r = r; break;   /* DEC_DOUBLE */
	}
}

/* The enum constant obj (plan p) into v: its name_ text and ordinal. */
static int enum_value(struct dec *d, size_t obj, const struct dec_plan *p, unsigned slot, struct dec_value *v,
		      struct err *e)
{
	uint32_t ref, ord;
	size_t s;

	v->kind = DEC_ENUM;
	if (p->value && dec_read_u32(d, obj, p->value->offset, &ord))
		v->i = (int32_t)ord;
	if (!p->enum_name || !dec_read_u32(d, obj, p->enum_name->offset, &ref) || !ref ||
	    (s = model_find(d->m, ref)) == MODEL_NONE) {
		v->why = "the constant's name_ is not in the model";
		return 0;
	}
	const struct dec_plan *sp;
	int rc = dec_plan_of(d, model_obj(d->m, s)->cls, &sp, e);
	if (rc || sp->special != DEC_S_STRING)
		return rc;
	return string_text(d, s, slot, v, e);
}

/* A reference to no carved object whose bytes still hold a String (its class word names
 * java.lang.String): a String the allocator freed while its holder lives on (a sticky GC
 * sweeps young garbage first), its text read where it lies, marked outside. */
static int outside_string(struct dec *d, uint32_t ref, unsigned slot, struct dec_value *v, struct err *e)
{
	size_t jls = model_jls(d->m);
	uint32_t klass;

	if (jls == MODEL_NONE || model_in_alias(d->m, ref))
		return 0;
	err_init(&d->why);
	if (mirror_klass(&d->rt->m, ref, &klass, &d->why) || klass != d->rt->classes[jls].addr)
		return 0;
	struct wbuf *b = &d->text[slot];
	wbuf_reset(b);
	int rc = mirror_string_wtf8(&d->rt->m, ref, DEC_TEXT_MAX, b, &d->why);
	if (rc == -ERR_NOMEM || b->failed)
		return dec_nomem(e);
	if (rc)
		return 0;   /* not a String that reads (or longer than a value carries): a plain reference */
	v->kind = DEC_STRING;
	v->outside = true;
	v->ref_class = d->rt->classes[jls].name;
	v->text = b->data ? (const char *)b->data : "";
	v->text_len = b->len;
	return 0;
}

int dec_ref_value(struct dec *d, uint32_t ref, unsigned slot, struct dec_value *v, struct err *e)
{
	const struct dec_plan *p;
	int rc;

	v->addr = ref;
	v->obj = MODEL_NONE;
	if (!ref) {
		v->kind = DEC_NULL;
		return 0;
	}
	v->kind = DEC_REF;
	if ((v->obj = model_find(d->m, ref)) == MODEL_NONE)
		return outside_string(d, ref, slot, v, e);
	const struct model_obj *o = model_obj(d->m, v->obj);
	v->addr = model_va(d->m, o);
	v->ref_class = d->rt->classes[o->cls].name;
	if ((rc = dec_plan_of(d, o->cls, &p, e)))
		return rc;
	switch (p->special) {
	case DEC_S_STRING:
		v->kind = DEC_STRING;
		return string_text(d, v->obj, slot, v, e);
	case DEC_S_BOXED:
		boxed_value(d, v->obj, p, v);
		return 0;
	case DEC_S_ENUM:
		return enum_value(d, v->obj, p, slot, v, e);
	default:
		return 0;
	}
}

int dec_value_at(struct dec *d, uint8_t t, const uint8_t *p, uint8_t time_hint, unsigned slot, struct dec_value *v,
		 struct err *e)
{
	uint32_t u;
	uint64_t q;
	float f;

	switch (t) {
	case 'Z': v->kind = DEC_BOOL; v->i = p[0] != 0; return 0;
	case 'B': v->kind = DEC_BYTE; v->i = (int8_t)p[0]; return 0;
	case 'C': v->kind = DEC_CHAR; v->i = ld_u16le(p); return 0;
	case 'S': v->kind = DEC_SHORT; v->i = (int16_t)ld_u16le(p); return 0;
	case 'I':
		v->kind = DEC_INT;
		v->i = (int32_t)ld_u32le(p);
		infer_time(v, time_hint, false);
		return 0;
	case 'J':
		v->kind = DEC_LONG;
		v->i = (int64_t)ld_u64le(p);
		infer_time(v, time_hint, true);
		return 0;
	case 'F':
		v->kind = DEC_FLOAT;
		u = ld_u32le(p);
		memcpy(&f, &u, sizeof(f));
		v->r = f;
		return 0;
	case 'D':
		v->kind = DEC_DOUBLE;
		q = ld_u64le(p);
		memcpy(&v->r, &q, sizeof(v->r));
		return 0;
	default:
		return dec_ref_value(d, ld_u32le(p), slot, v, e);
	}
}

/* The object's bytes: in place when one captured region holds them, else *own (the caller
 * frees it: a callback may decode other objects meanwhile).  NULL when they do not read. */
static const uint8_t *object_bytes(struct dec *d, const struct model_obj *o, uint8_t **own, int *rc, struct err *e)
{
	uint64_t va = model_va(d->m, o);
	const uint8_t *p = img_span(model_image(d->m), va, o->size, NULL);

	*own = NULL;
	*rc = 0;
	if (p)
		return p;
	if (!(*own = xmalloc(o->size ? o->size : 1))) {
		*rc = dec_nomem(e);
		return NULL;
	}
	err_init(&d->why);
	if (img_read(model_image(d->m), va, *own, o->size, &d->why)) {
		xfree(*own);
		*own = NULL;
		return NULL;
	}
	return *own;
}

static void field_unread(const char *why, struct dec_value *v)
{
	v->kind = DEC_UNREAD;
	v->why = why;
}

int dec_each_field(struct dec *d, size_t obj, dec_value_fn fn, void *arg, struct err *e)
{
	const struct model_obj *o = model_obj(d->m, obj);
	const struct dec_plan *p;
	uint8_t *own;
	int rc;

	if (o->kind == MODEL_OBJ_ARRAY || o->kind == MODEL_PRIM_ARRAY)
		return 0;
	if ((rc = dec_plan_of(d, o->cls, &p, e)))
		return rc;
	const uint8_t *bytes = object_bytes(d, o, &own, &rc, e);
	if (rc)
		return rc;
	/* each value starts as a copy of one cleared outside the loop: clearing it per field
	 * compiled to `rep stos`, whose start-up was 6% of an objects.jsonl carve's CPU */
	const struct dec_value blank = { .obj = MODEL_NONE };
	for (uint32_t i = 0; i < p->n && rc == 0; i++) {
		const struct dec_field *f = &p->f[i];
		struct dec_value v = blank;
		v.name = f->name;
		v.type = f->type;
		v.java_type = f->java_type;
		v.offset = f->offset;
		v.json_key = f->json_key;
		v.json_key_len = f->json_key_len;
		if (!f->t)
			field_unread("the field's type is unknown", &v);
		else if (f->offset == RT_OFFSET_UNKNOWN)
			field_unread("the field's offset is unknown", &v);
		else if (f->offset > o->size || mirror_field_size(f->t) > o->size - f->offset)
			field_unread("the field lies past the object", &v);
		else if (!bytes)
			field_unread("the object's bytes do not read", &v);
		else if ((rc = dec_value_at(d, f->t, bytes + f->offset, f->time_hint, 0, &v, e)))
			break;
		rc = fn(arg, &v, e);
	}
	xfree(own);
	return rc;
}
