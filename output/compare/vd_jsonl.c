/* vd_jsonl.c - the synthetic generator's truth.jsonl as a validate input (format written by
 * tests/synth/truth.c): one JSON object a line, sorted by address, with
 *   addr "0x..", class (Java form), kind (class | instance | string | primitive-array |
 *   object-array), space, alloc (allocated | free), content (intact | partial | residue),
 *   reach (reachable | unreachable), fields [{name, type (descriptor), offset, value}] from the
 *   root class down, statics [...] (class objects), length, element_type, data_fnv1a64 (of the
 *   elements' little-endian memory bytes), elements (short arrays), string (the text).
 * Other keys are skipped, members may come in any order.  The first pass parses every line
 * completely, so decoding a line again for the comparison cannot fail. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "carver/base/ck.h"
#include "output/compare/vd_int.h"

struct jl_line {
	bool have_addr, have_class, have_kind, have_space;
	size_t fields_at, statics_at, elements_at;      /* cursor positions, SIZE_MAX if absent */
};

static int jl_hex(struct vd_js *j, const uint8_t *p, size_t n, uint64_t *v, struct err *e)
{
	*v = 0;
	if (n < 3 || n > 18 || p[0] != '0' || (p[1] != 'x' && p[1] != 'X'))
		return vd_js_error(j, e, "hexadecimal \"0x...\" expected");
	for (size_t i = 2; i < n; i++) {
		uint8_t ch = p[i];
		unsigned d = ch >= '0' && ch <= '9' ? ch - '0' + 0u : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10u
			     : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10u : 16u;
		if (d > 15)
			return vd_js_error(j, e, "hexadecimal \"0x...\" expected");
		*v = *v << 4 | d;
	}
	return 0;
}

/* A string value into tmp (reset first). */
static int jl_str(struct vd_js *j, struct wbuf *tmp, struct err *e)
{
	wbuf_reset(tmp);
	if (vd_js_peek(j) != '"')
		return vd_js_error(j, e, "string expected");
	return vd_js_string(j, tmp, e);
}

static bool jl_is(const struct wbuf *b, const char *s)
{
	return b->len == strlen(s) && !memcmp(b->data, s, b->len);
}

static int jl_enum(struct vd_js *j, struct wbuf *tmp, const char *const *names, unsigned n, unsigned *v,
		   struct err *e)
{
	int rc = jl_str(j, tmp, e);

	if (rc)
		return rc;
	for (unsigned i = 0; i < n; i++)
		if (jl_is(tmp, names[i])) {
			*v = i;
			return 0;
		}
	return vd_js_error(j, e, "unknown state or kind");
}

/* HPROF basic type of a descriptor's first character; 0 when it is none. */
static uint8_t jl_type(uint8_t c)
{
	switch (c) {
	case 'Z': return HPROF_T_BOOLEAN;
	case 'B': return HPROF_T_BYTE;
	case 'C': return HPROF_T_CHAR;
	case 'S': return HPROF_T_SHORT;
	case 'I': return HPROF_T_INT;
	case 'J': return HPROF_T_LONG;
	case 'F': return HPROF_T_FLOAT;
	case 'D': return HPROF_T_DOUBLE;
	case 'L': case '[': return HPROF_T_OBJECT;
	default: return 0;
	}
}

/* One value of basic type t: raw bits into fv->val (floats also as fv->fval). */
static int jl_value(struct vd_js *j, uint8_t t, struct vd_fv *fv, struct err *e)
{
	const uint8_t *tok;
	size_t n;
	char buf[48], *end;
	int rc;

	fv->val = 0;
	fv->has_fval = false;
	if (t == HPROF_T_OBJECT) {
		if (vd_js_peek(j) == '"') {
			struct wbuf b;
			wbuf_init(&b);
			rc = vd_js_string(j, &b, e);
			if (!rc)
				rc = jl_hex(j, b.data, b.len, &fv->val, e);
			wbuf_release(&b);
			return rc;
		}
		if ((rc = vd_js_token(j, &tok, &n, e)))
			return rc;
		if (n != 4 || memcmp(tok, "null", 4))
			return vd_js_error(j, e, "reference \"0x...\" or null expected");
		return 0;
	}
	if ((rc = vd_js_token(j, &tok, &n, e)))
		return rc;
	if (t == HPROF_T_BOOLEAN && ((n == 4 && !memcmp(tok, "true", 4)) || (n == 5 && !memcmp(tok, "false", 5)))) {
		fv->val = n == 4;
		return 0;
	}
	if (n >= sizeof(buf))
		return vd_js_error(j, e, "number too long");
	memcpy(buf, tok, n);
	buf[n] = '\0';
	if (t == HPROF_T_FLOAT || t == HPROF_T_DOUBLE) {
		double d = strtod(buf, &end);
		if (end != buf + n)
			return vd_js_error(j, e, "number expected");
		fv->fval = d;
		fv->has_fval = true;
		if (t == HPROF_T_FLOAT) {
			float f = (float)d;
			uint32_t x;
			memcpy(&x, &f, 4);
			fv->val = x;
		} else {
			uint64_t x;
			memcpy(&x, &d, 8);
			fv->val = x;
		}
		return 0;
	}
	long long v = strtoll(buf, &end, 10);
	if (end != buf + n || n == 0)
		return vd_js_error(j, e, "integer expected");
	switch (t) {
	case HPROF_T_BOOLEAN: case HPROF_T_BYTE: fv->val = (uint8_t)v; break;
	case HPROF_T_CHAR: case HPROF_T_SHORT: fv->val = (uint16_t)v; break;
	case HPROF_T_INT: fv->val = (uint32_t)v; break;
	default: fv->val = (uint64_t)v; break;
	}
	return 0;
}

/* One {name, type, offset, value} member of "fields" / "statics". */
static int jl_field(struct vd_side *s, struct vd_js *j, struct vd_view *v, bool is_static, bool class_field,
		    struct err *e)
{
	struct vd_fv fv = { .is_static = is_static };
	size_t value_at = SIZE_MAX, klen;
	bool first = true, have_name = false;
	char key[16];
	int rc;

	wbuf_reset(&v->tmp);
	if ((rc = vd_js_expect(j, '{', e)))
		return rc;
	while ((rc = vd_js_member(j, &first, key, sizeof(key), &klen, e)) == 1) {
		if (klen == 4 && !strcmp(key, "name")) {
			struct wbuf b;
			wbuf_init(&b);
			if (class_field)
				wbuf_put(&b, "$class$", 7);     /* ART's name for a Class's own fields */
			rc = vd_js_peek(j) == '"' ? vd_js_string(j, &b, e) : vd_js_error(j, e, "string expected");
			if (!rc)
				rc = vd_names_add(s->names, (const char *)b.data, b.len, &fv.name, e);
			wbuf_release(&b);
			have_name = true;
		} else if (klen == 4 && !strcmp(key, "type")) {
			if (!(rc = jl_str(j, &v->tmp, e)) && (v->tmp.len == 0 || !(fv.type = jl_type(v->tmp.data[0]))))
				rc = vd_js_error(j, e, "unknown field type");
		} else if (klen == 5 && !strcmp(key, "value")) {
			value_at = j->c.pos;
			rc = vd_js_skip(j, 2, e);
		} else {
			rc = vd_js_skip(j, 2, e);
		}
		if (rc)
			return rc;
	}
	if (rc)
		return rc;
	if (!have_name || !fv.type || value_at == SIZE_MAX)
		return vd_js_error(j, e, "field without name, type or value");
	size_t end = j->c.pos;
	j->c.pos = value_at;
	if ((rc = jl_value(j, fv.type, &fv, e)))
		return rc;
	j->c.pos = end;
	return vd_view_add_field(v, &fv, e);
}

static int jl_fields(struct vd_side *s, struct vd_js *j, struct vd_view *v, bool is_static, bool class_field,
		     struct err *e)
{
	bool first = true;
	int rc;

	if ((rc = vd_js_expect(j, '[', e)))
		return rc;
	while ((rc = vd_js_elem(j, &first, e)) == 1)
		if ((rc = jl_field(s, j, v, is_static, class_field, e)))
			return rc;
	return rc;
}

static int jl_elements(struct vd_js *j, struct vd_view *v, struct err *e)
{
	bool first = true;
	int rc;

	if ((rc = vd_js_expect(j, '[', e)))
		return rc;
	while ((rc = vd_js_elem(j, &first, e)) == 1) {
		struct vd_fv fv;
		if ((rc = jl_value(j, v->elem_type, &fv, e)) ||
		    (rc = vd_grow((void **)&v->elems, &v->ecap, v->nelems, sizeof(*v->elems), e)))
			return rc;
		v->elems[v->nelems++] = fv.val;
	}
	v->have_elems = rc == 0;
	return rc;
}

static const char *const jl_kinds[] = { "instance", "object-array", "primitive-array", "class", "string" };
static const char *const jl_alloc[] = { "allocated", "free" };
static const char *const jl_content[] = { "intact", "partial", "residue" };
static const char *const jl_reach[] = { "reachable", "unreachable", "unknown" };

/* The top-level members other than fields / statics / elements. */
static int jl_member(struct vd_side *s, struct vd_js *j, const char *key, size_t klen, struct vd_obj *o,
		     struct vd_view *v, struct jl_line *ln, struct err *e)
{
	unsigned k;
	int rc = 0;

	if (klen > 15)
		return vd_js_skip(j, 1, e);
	if (!strcmp(key, "addr")) {
		if (!(rc = jl_str(j, &v->tmp, e)))
			rc = jl_hex(j, v->tmp.data, v->tmp.len, &o->id, e);
		ln->have_addr = true;
	} else if (!strcmp(key, "class")) {
		if (!(rc = jl_str(j, &v->tmp, e)))
			rc = vd_names_add_class(s->names, (const char *)v->tmp.data, v->tmp.len, &o->cls, e);
		ln->have_class = true;
	} else if (!strcmp(key, "kind")) {
		if (!(rc = jl_enum(j, &v->tmp, jl_kinds, 5, &k, e))) {
			o->kind = (uint8_t)(k == 4 ? VD_INSTANCE : k);
			v->is_string = k == 4;
		}
		ln->have_kind = true;
	} else if (!strcmp(key, "space")) {
		uint32_t name;
		if (!(rc = jl_str(j, &v->tmp, e)) &&
		    !(rc = vd_names_add(s->names, (const char *)v->tmp.data, v->tmp.len, &name, e)))
			rc = vd_side_heap(s, name, (const char *)v->tmp.data, v->tmp.len, &o->heap, e);
		ln->have_space = true;
	} else if (!strcmp(key, "alloc")) {
		if (!(rc = jl_enum(j, &v->tmp, jl_alloc, 2, &k, e)))
			o->state = vd_st_set(o->state, VD_DIM_ALLOC, k);
	} else if (!strcmp(key, "content")) {
		if (!(rc = jl_enum(j, &v->tmp, jl_content, 3, &k, e)))
			o->state = vd_st_set(o->state, VD_DIM_CONTENT, k);
	} else if (!strcmp(key, "reach")) {
		if (!(rc = jl_enum(j, &v->tmp, jl_reach, 3, &k, e)))
			o->state = vd_st_set(o->state, VD_DIM_REACH, k);
	} else if (!strcmp(key, "length")) {
		struct vd_fv fv;
		if (!(rc = jl_value(j, HPROF_T_LONG, &fv, e)) && fv.val > UINT32_MAX)
			rc = vd_js_error(j, e, "length out of range");
		v->count = (uint32_t)fv.val;
	} else if (!strcmp(key, "element_type")) {
		if (!(rc = jl_str(j, &v->tmp, e)) && (v->tmp.len == 0 || !(v->elem_type = jl_type(v->tmp.data[0]))))
			rc = vd_js_error(j, e, "unknown element type");
	} else if (!strcmp(key, "data_fnv1a64")) {
		if (!(rc = jl_str(j, &v->tmp, e))) {
			if (v->tmp.len != 16)
				return vd_js_error(j, e, "data_fnv1a64: 16 hex digits expected");
			uint8_t hex[18] = { '0', 'x' };
			memcpy(hex + 2, v->tmp.data, 16);
			rc = jl_hex(j, hex, 18, &v->fnv, e);
			v->have_fnv = true;
		}
	} else if (!strcmp(key, "string")) {
		v->tlen = 0;
		if (vd_js_peek(j) != '"')
			return vd_js_error(j, e, "string expected");
		rc = vd_js_string_utf16(j, v, e);
		v->have_text = rc == 0;
	} else if (!strcmp(key, "fields")) {
		ln->fields_at = j->c.pos;
		rc = vd_js_skip(j, 1, e);
	} else if (!strcmp(key, "statics")) {
		ln->statics_at = j->c.pos;
		rc = vd_js_skip(j, 1, e);
	} else if (!strcmp(key, "elements")) {
		ln->elements_at = j->c.pos;
		rc = vd_js_skip(j, 1, e);
	} else {
		rc = vd_js_skip(j, 1, e);
	}
	return rc;
}

/* Parses one line completely: *o (index entry) and *v (contents). */
static int jl_parse(struct vd_side *s, struct vd_js *j, struct vd_obj *o, struct vd_view *v, struct err *e)
{
	struct jl_line ln = { .fields_at = SIZE_MAX, .statics_at = SIZE_MAX, .elements_at = SIZE_MAX };
	bool first = true;
	size_t klen, end;
	char key[16];
	int rc;

	vd_view_reset(v);
	o->state = 0;
	o->heap = 0;
	if ((rc = vd_js_expect(j, '{', e)))
		return rc;
	while ((rc = vd_js_member(j, &first, key, sizeof(key), &klen, e)) == 1)
		if ((rc = jl_member(s, j, key, klen, o, v, &ln, e)))
			return rc;
	if (rc)
		return rc;
	if (vd_js_peek(j) >= 0)
		return vd_js_error(j, e, "text after the object");
	if (!ln.have_addr || !ln.have_class || !ln.have_kind)
		return vd_js_error(j, e, "object without addr, class or kind");
	if (!ln.have_space && (rc = vd_side_heap(s, UINT64_MAX, "(no space)", 10, &o->heap, e)))
		return rc;
	end = j->c.pos;
	v->kind = (enum vd_kind)o->kind;
	if (ln.fields_at != SIZE_MAX) {
		j->c.pos = ln.fields_at;
		if ((rc = jl_fields(s, j, v, o->kind == VD_CLASS, o->kind == VD_CLASS, e)))
			return rc;
	}
	if (ln.statics_at != SIZE_MAX) {
		j->c.pos = ln.statics_at;
		if ((rc = jl_fields(s, j, v, true, false, e)))
			return rc;
	}
	if (ln.elements_at != SIZE_MAX) {
		if (!v->elem_type)
			return vd_js_error(j, e, "elements without element_type");
		j->c.pos = ln.elements_at;
		if ((rc = jl_elements(j, v, e)))
			return rc;
	}
	j->c.pos = end;
	v->id_size = 4;
	return 0;
}

/* The line starting at *pos: a cursor over it and the position after it. */
static void jl_next_line(const struct vd_side *s, size_t *pos, struct vd_js *j)
{
	const uint8_t *p = s->in.data + *pos, *nl = memchr(p, '\n', s->in.len - *pos);
	size_t n = nl ? (size_t)(nl - p) : s->in.len - *pos;

	cur_init(&j->c, p, n, *pos);
	*pos += n + (nl != NULL);
}

int vd_jsonl_load(struct vd_side *s, struct err *e)
{
	struct vd_view v;
	size_t pos = 0;
	unsigned line = 0;
	int rc = 0;

	s->fmt = VD_FMT_JSONL;
	snprintf(s->info.format, sizeof(s->info.format), "truth.jsonl");
	for (int d = 0; d < VD_DIM_COUNT; d++)
		s->info.states[d] = true;
	vd_view_init(&v);
	while (pos < s->in.len) {
		struct vd_js j = { .label = s->in.label, .line = ++line };
		struct vd_obj o = { 0 };
		vd_side_touch(s);
		jl_next_line(s, &pos, &j);
		if (vd_js_peek(&j) < 0)
			continue;       /* blank line */
		o.off = j.c.va;
		if ((rc = jl_parse(s, &j, &o, &v, e)) || (rc = vd_obj_push(s, &o, e)))
			break;
	}
	vd_view_release(&v);
	if (!rc)
		vd_side_sort(s);
	return rc;
}

int vd_jsonl_view(struct vd_side *s, size_t i, struct vd_view *v, struct err *e)
{
	struct vd_obj o = { 0 };
	size_t pos;
	struct vd_js j = { .label = s->in.label };

	if (ck_size(s->obj[i].off, &pos))
		return ERR_SET(e, ERR_INTERNAL, s->obj[i].off, "%s: line offset out of range", s->in.label);
	vd_side_touch(s);
	jl_next_line(s, &pos, &j);
	return jl_parse(s, &j, &o, v, e);
}
