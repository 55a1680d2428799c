/* objects_jsonl.c - objects.jsonl (see objects_jsonl.h). */
#include "output/export/objects_jsonl.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "carver/base/cursor.h"
#include "carver/base/wbuf.h"
#include "output/export/escape.h"

enum {
	OJ_MAX_DEPTH = 4096,            /* longest super-class chain followed (hostile cycles) */
	OJ_MAX_CHARS = INT32_MAX,       /* a String's length as ART allows it (count_ is an int) */
};
#define OJ_EXACT_LONG 9007199254740992LL  /* 2^53: larger longs are strings */

struct oj {
	const struct model *m;
	struct wbuf line, copy, text;
	const uint8_t *bytes;           /* the current object's bytes (image or copy) */
};

static int oj_nomem(struct err *e)
{
	return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory writing objects.jsonl");
}

/* The object's bytes in place when one captured region holds them, else one copy. */
static int oj_bytes(struct oj *j, const struct model_obj *o, struct err *e)
{
	const struct img_region *r = img_find(j->m->rt->img, o->addr);
	uint64_t off = r ? o->addr - r->start : 0;
	if (r && r->data && off <= r->data_len && o->size <= r->data_len - off) {
		j->bytes = r->data + off;
		return 0;
	}
	wbuf_reset(&j->copy);
	if (wbuf_reserve(&j->copy, o->size))
		return oj_nomem(e);
	int rc = img_read(j->m->rt->img, o->addr, j->copy.data, o->size, e);
	if (rc)
		return err_prefix(e, "objects.jsonl: object at 0x%x", o->addr);
	j->bytes = j->copy.data;
	return 0;
}

static void put_key(struct wbuf *b, const char *key)
{
	wbuf_printf(b, ",\"%s\":", key);
}

static void put_str(struct wbuf *b, const char *s)
{
	if (s)
		escape_json_quoted(b, (const uint8_t *)s, strlen(s));
	else
		wbuf_put(b, "null", 4);
}

static void put_ref(struct wbuf *b, uint32_t v)
{
	if (v)
		wbuf_printf(b, "\"0x%x\"", v);
	else
		wbuf_put(b, "null", 4);
}

/* Shortest decimal that reads back as v (float: as the same float). */
static void put_real(struct wbuf *b, double v, bool is_float)
{
	char buf[40];
	if (isnan(v)) {
		wbuf_put(b, "\"NaN\"", 5);
		return;
	}
	if (isinf(v)) {
		put_str(b, v < 0 ? "-Infinity" : "Infinity");
		return;
	}
	for (int prec = is_float ? 6 : 15; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, v);
		double back = strtod(buf, NULL);
		if (is_float ? (float)back == (float)v : back == v)
			break;
	}
	wbuf_put(b, buf, strlen(buf));
}

/* The value of type descriptor character t at p (bytes as ART stores them, little-endian). */
static void put_value(struct wbuf *b, uint8_t t, const uint8_t *p)
{
	uint32_t u;
	uint64_t q;
	float f;
	double d;

	switch (t) {
	case 'Z': wbuf_printf(b, "%u", p[0]); return;
	case 'B': wbuf_printf(b, "%d", (int8_t)p[0]); return;
	case 'C': wbuf_printf(b, "%u", ld_u16le(p)); return;
	case 'S': wbuf_printf(b, "%d", (int16_t)ld_u16le(p)); return;
	case 'I': wbuf_printf(b, "%d", (int32_t)ld_u32le(p)); return;
	case 'J': {
		int64_t v = (int64_t)ld_u64le(p);
		if (v >= -OJ_EXACT_LONG && v <= OJ_EXACT_LONG)
			wbuf_printf(b, "%lld", (long long)v);
		else
			wbuf_printf(b, "\"%lld\"", (long long)v);
		return;
	}
	case 'F':
		u = ld_u32le(p);
		memcpy(&f, &u, sizeof(f));
		put_real(b, f, true);
		return;
	case 'D':
		q = ld_u64le(p);
		memcpy(&d, &q, sizeof(d));
		put_real(b, d, false);
		return;
	default:   /* 'L' and '[': a 32-bit heap reference */
		put_ref(b, ld_u32le(p));
	}
}

/* One field {"name", "type", "offset", "value"} of an object of size bytes. */
static void put_field(struct wbuf *b, const struct rt_field *f, const uint8_t *bytes, uint32_t size, bool first)
{
	uint8_t t = f->type ? (uint8_t)f->type[0] : 0;
	unsigned n = mirror_field_size(t);
	const char *head = first ? "{\"name\":" : ",{\"name\":";
	wbuf_put(b, head, strlen(head));
	put_str(b, f->name);
	put_key(b, "type");
	put_str(b, f->java_type ? f->java_type : f->type);
	put_key(b, "offset");
	if (f->offset == RT_OFFSET_UNKNOWN || f->offset > size || n > size - f->offset || !t) {
		wbuf_printf(b, f->offset == RT_OFFSET_UNKNOWN ? "null" : "%u", f->offset);
		wbuf_put(b, ",\"value\":null}", 14);
		return;
	}
	wbuf_printf(b, "%u,\"value\":", f->offset);
	put_value(b, t, bytes + f->offset);
	wbuf_u8(b, '}');
}

/* "fields": the instance fields of class cls and its supers. */
static void put_fields(struct oj *j, const struct model_obj *o, size_t cls)
{
	const struct art_runtime *rt = j->m->rt;
	bool first = true;
	unsigned depth = 0;

	put_key(&j->line, "fields");
	wbuf_u8(&j->line, '[');
	for (size_t c = cls; c != RT_NONE && depth < OJ_MAX_DEPTH; c = rt->classes[c].super, depth++) {
		const struct rt_class *k = &rt->classes[c];
		for (uint32_t i = 0; i < k->field_count; i++, first = false)
			put_field(&j->line, &k->fields[i], j->bytes, o->size, first);
	}
	wbuf_u8(&j->line, ']');
}

static void put_place(struct wbuf *b, const struct model_obj *o)
{
	put_key(b, "place");
	wbuf_printf(b, "{\"kind\":\"%s\",\"where\":\"0x%x\",\"index\":%u,\"offset\":", walk_place_name(o->place), o->where,
		    o->index);
	if (o->addr >= o->where)
		wbuf_printf(b, "%u}", o->addr - o->where);
	else
		wbuf_put(b, "null}", 5);
}

static int put_string(struct oj *j, const struct model_obj *o, struct err *e)
{
	const struct mirror *mr = &j->m->rt->m;
	struct mirror_string s;
	struct err why;

	err_init(&why);
	if (mirror_string_read(mr, o->addr, OJ_MAX_CHARS, &s, &why) == 0) {
		put_key(&j->line, "length");
		wbuf_printf(&j->line, "%u,\"compressed\":%s", s.length, s.compressed ? "true" : "false");
	}
	wbuf_reset(&j->text);
	int rc = mirror_string_wtf8(mr, o->addr, OJ_MAX_CHARS, &j->text, &why);
	if (rc == -ERR_NOMEM)
		return oj_nomem(e);
	put_key(&j->line, "value");
	if (rc)   /* the String passed the model's checks; its characters may still be elsewhere (5.x) */
		wbuf_put(&j->line, "null", 4);
	else
		escape_json_quoted(&j->line, j->text.data, j->text.len);
	return 0;
}

static void put_class_object(struct oj *j, const struct model_obj *o)
{
	const struct art_runtime *rt = j->m->rt;
	const struct rt_class *k = runtime_class_at(rt, o->addr);

	put_key(&j->line, "describes");
	put_str(&j->line, k ? k->name : NULL);
	put_key(&j->line, "statics");
	wbuf_u8(&j->line, '[');
	const struct rt_statics *s = k ? &j->m->classes[k - rt->classes].statics : NULL;
	for (uint32_t i = 0; s && i < s->count; i++)
		put_field(&j->line, &s->v[i], j->bytes, o->size, i == 0);
	wbuf_u8(&j->line, ']');
}

static void put_array(struct oj *j, const struct model_obj *o)
{
	const struct art_runtime *rt = j->m->rt;
	const struct model_class *mc = &j->m->classes[o->cls];
	const struct rt_class *k = &rt->classes[o->cls];
	uint32_t n = model_length(j->m, o);
	const uint8_t *d = j->bytes + (model_data_addr(j->m, o) - o->addr);
	uint8_t t = o->kind == MODEL_OBJ_ARRAY ? 'L' : mc->elem;
	unsigned size = o->kind == MODEL_OBJ_ARRAY ? 4 : mc->elem_size;

	put_key(&j->line, "length");
	wbuf_printf(&j->line, "%u", n);
	put_key(&j->line, "element_type");
	put_str(&j->line, k->component != RT_NONE ? rt->classes[k->component].name : NULL);
	if (t == 'B') {
		static const char hex[] = "0123456789abcdef";
		put_key(&j->line, "hex");
		wbuf_u8(&j->line, '"');
		if (wbuf_reserve(&j->line, 2ull * n) == 0)
			for (uint32_t i = 0; i < n; i++) {
				j->line.data[j->line.len++] = (uint8_t)hex[d[i] >> 4];
				j->line.data[j->line.len++] = (uint8_t)hex[d[i] & 15];
			}
		wbuf_u8(&j->line, '"');
		return;
	}
	put_key(&j->line, "elements");
	wbuf_u8(&j->line, '[');
	for (uint32_t i = 0; i < n; i++) {
		if (i)
			wbuf_u8(&j->line, ',');
		put_value(&j->line, t, d + (size_t)i * size);
	}
	wbuf_u8(&j->line, ']');
}

static int put_object(struct oj *j, const struct model_obj *o, struct err *e)
{
	const struct art_runtime *rt = j->m->rt;
	const struct art_space *s = model_space(j->m, o);
	int rc;

	if ((rc = oj_bytes(j, o, e)))
		return rc;
	wbuf_reset(&j->line);
	wbuf_printf(&j->line, "{\"address\":\"0x%x\",\"class\":", o->addr);
	put_str(&j->line, rt->classes[o->cls].name);
	wbuf_printf(&j->line, ",\"class_address\":\"0x%llx\",\"kind\":\"%s\",\"size\":%u,\"space\":",
		    (unsigned long long)rt->classes[o->cls].addr, model_kind_name(o->kind), o->size);
	put_str(&j->line, s->name);
	put_key(&j->line, "space_kind");
	put_str(&j->line, spaces_kind_name(s->kind));
	put_place(&j->line, o);
	wbuf_printf(&j->line, ",\"alloc\":\"%s\",\"content\":\"%s\",\"reach\":\"%s\",\"confidence\":%u",
		    model_alloc_name(o->alloc), model_content_name(o->content), model_reach_name(o->reach), o->confidence);
	switch (o->kind) {
	case MODEL_OBJ_ARRAY:
	case MODEL_PRIM_ARRAY:
		put_array(j, o);
		break;
	case MODEL_CLASS:
		put_fields(j, o, o->cls);
		put_class_object(j, o);
		break;
	case MODEL_STRING:
		put_fields(j, o, o->cls);
		if ((rc = put_string(j, o, e)))
			return rc;
		break;
	default:
		put_fields(j, o, o->cls);
	}
	wbuf_put(&j->line, "}\n", 2);
	return wbuf_status(&j->line, e);
}

int objects_jsonl_write(const struct model *m, struct outf *out, struct objects_jsonl_stats *st, struct err *e)
{
	struct oj j = { .m = m };
	int rc = 0;

	memset(st, 0, sizeof(*st));
	wbuf_init(&j.line);
	wbuf_init(&j.copy);
	wbuf_init(&j.text);
	for (size_t i = 0; i < m->count && rc == 0; i++) {
		const struct model_obj *o = &m->objs[i];
		if ((rc = put_object(&j, o, e)) == 0 && (rc = outf_write(out, j.line.data, j.line.len, e)) == 0) {
			st->objects++;
			st->strings += o->kind == MODEL_STRING;
		}
	}
	st->bytes = out->written;
	wbuf_release(&j.line);
	wbuf_release(&j.copy);
	wbuf_release(&j.text);
	return rc;
}
