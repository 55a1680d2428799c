/* objects_jsonl.c - objects.jsonl (see objects_jsonl.h).
 *
 * Speed: a line is built in one buffer with hand-made number formatting (no printf per
 * value), and what every object of a class repeats (its quoted class name, its fields' keys,
 * offsets and types) is planned once per class. */
#include "output/export/objects_jsonl.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "carver/base/arena.h"
#include "carver/base/cursor.h"
#include "carver/base/wbuf.h"
#include "carver/base/xalloc.h"
#include "carver/base/escape.h"
#include "output/decode/decode.h"

enum {
	OJ_MAX_CHARS = INT32_MAX,       /* a String's length as ART allows it (count_ is an int) */
	OJ_FLUSH = 1 << 20,             /* lines gathered before one write to the file */
};

/* What every object of one class repeats (its fields: the decoder's plan). */
struct oj_plan {
	bool made;
	const char *name;               /* quoted, escaped class name, or null */
	uint32_t name_len;
};

/* A piece of a line made once (per space: its name and kind). */
struct oj_piece {
	const char *s;
	uint32_t len;
};

struct oj {
	const struct model *m;
	struct dec *dec;                /* fields, Strings inline, containers' entries */
	struct wbuf line, copy, text, scratch;
	const uint8_t *bytes;           /* the current object's bytes (image or copy) */
	struct oj_plan *plan;           /* per class */
	struct oj_piece *space;         /* per space: ,"space":NAME,"space_kind":"KIND" */
	struct oj_piece kind[MODEL_KIND_COUNT];   /* ,"kind":"KIND" */
	struct oj_piece place[WALK_PLACE_COUNT];  /* ,"place":{"kind":"KIND","where": */
	/* ,"alloc":"A","content":"C","reach":"R", at state_index(A, C, R) */
	struct oj_piece state[MODEL_ALLOC_COUNT * MODEL_CONTENT_COUNT * MODEL_REACH_COUNT];
	const struct reach *reach;      /* NULL: no root or unknown reason is written */
	struct arena a;
};

static int oj_nomem(struct err *e)
{
	return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory writing objects.jsonl");
}

/* s as a quoted, escaped JSON string, null for none. */
static void put_text(struct wbuf *b, const char *s)
{
	if (s)
		escape_json_quoted(b, (const uint8_t *)s, strlen(s));
	else
		WBUF_LIT(b, "null");
}

/* j->scratch copied into the arena. */
static const char *kept_scratch(struct oj *j, uint32_t *len)
{
	if (j->scratch.failed || j->scratch.len > UINT32_MAX)
		return NULL;
	*len = (uint32_t)j->scratch.len;
	return arena_strndup(&j->a, (const char *)j->scratch.data, j->scratch.len);
}

/* A copy of text JSON-escaped and quoted (null for none) in the arena. */
static const char *escaped(struct oj *j, const char *s, uint32_t *len)
{
	wbuf_reset(&j->scratch);
	put_text(&j->scratch, s);
	return kept_scratch(j, len);
}

/* The plan of class cls, made once. */
static int plan_of(struct oj *j, size_t cls, const struct oj_plan **out, struct err *e)
{
	struct oj_plan *p = &j->plan[cls];

	*out = p;
	if (p->made)
		return 0;
	if (!(p->name = escaped(j, model_runtime(j->m)->classes[cls].name, &p->name_len)))
		return oj_nomem(e);
	p->made = true;
	return 0;
}

/* The object's bytes in place when one captured region holds them, else one copy. */
static int oj_bytes(struct oj *j, const struct model_obj *o, struct err *e)
{
	uint64_t va = model_va(j->m, o);
	const uint8_t *p = img_span(model_image(j->m), va, o->size, NULL);
	if (p) {
		j->bytes = p;
		return 0;
	}
	wbuf_reset(&j->copy);
	if (wbuf_reserve(&j->copy, o->size))
		return oj_nomem(e);
	int rc = img_read(model_image(j->m), va, j->copy.data, o->size, e);
	if (rc)
		return err_prefix(e, "objects.jsonl: object at 0x%llx", (unsigned long long)va);
	j->bytes = j->copy.data;
	return 0;
}

/* A value as objects.jsonl writes it: a reference as "0x..." or null, a primitive as the
 * decoder writes it (output/decode/decode.h dec_prim_json). */
static void put_value(struct wbuf *b, uint8_t t, const uint8_t *p)
{
	uint32_t ref;
	if (t != 'L' && t != '[') {
		dec_prim_json(b, t, p);
		return;
	}
	ref = ld_u32le(p);
	if (ref)
		dec_json_hex(b, ref);
	else
		WBUF_LIT(b, "null");
}

/* A field's value in an object of size bytes, or null when its offset is unknown or past
 * the object. */
static void put_field_value(struct wbuf *b, uint8_t t, uint32_t offset, const uint8_t *bytes, uint32_t size)
{
	unsigned n = mirror_field_size(t);
	if (!t || offset == RT_OFFSET_UNKNOWN || offset > size || n > size - offset)
		WBUF_LIT(b, "null");
	else
		put_value(b, t, bytes + offset);
}


/* [{"name", "type", "offset"}...] of fields (a class's layout, on its Class object's line). */
static void put_layout(struct oj *j, const char *key, const struct rt_field *v, uint32_t n)
{
	WBUF_LIT(&j->line, ",\"");
	wbuf_str(&j->line, key);
	WBUF_LIT(&j->line, "\":[");
	for (uint32_t i = 0; i < n; i++) {
		WBUF_LIT(&j->line, "{\"name\":");
		put_text(&j->line, v[i].name);
		WBUF_LIT(&j->line, ",\"type\":");
		put_text(&j->line, v[i].java_type ? v[i].java_type : v[i].type);
		WBUF_LIT(&j->line, ",\"offset\":");
		if (v[i].offset == RT_OFFSET_UNKNOWN)
			WBUF_LIT(&j->line, "null");
		else
			dec_json_u64(&j->line, v[i].offset);
		wbuf_u8(&j->line, '}');
		if (i + 1 < n)
			wbuf_u8(&j->line, ',');
	}
	wbuf_u8(&j->line, ']');
}

/* A Class object: the class it describes, that class's own instance field layout, its
 * static field layout and the static values. */
static void put_class_object(struct oj *j, const struct model_obj *o)
{
	const struct art_runtime *rt = model_runtime(j->m);
	const struct rt_class *k = runtime_class_at(rt, model_va(j->m, o));
	const struct rt_statics *s = k ? &model_class(j->m, (size_t)(k - rt->classes))->statics : NULL;

	WBUF_LIT(&j->line, ",\"describes\":");
	put_text(&j->line, k ? k->name : NULL);
	put_layout(j, "instance_fields", k ? k->fields : NULL, k ? k->field_count : 0);
	put_layout(j, "static_fields", s ? s->v : NULL, s ? s->count : 0);
	WBUF_LIT(&j->line, ",\"statics\":{");
	for (uint32_t i = 0; s && i < s->count; i++) {
		const struct rt_field *f = &s->v[i];
		if (i)
			wbuf_u8(&j->line, ',');
		escape_json_quoted(&j->line, (const uint8_t *)(f->name ? f->name : "?"), strlen(f->name ? f->name : "?"));
		wbuf_u8(&j->line, ':');
		put_field_value(&j->line, f->type ? (uint8_t)f->type[0] : 0, f->offset, j->bytes, o->size);
	}
	wbuf_u8(&j->line, '}');
}

static int put_string(struct oj *j, const struct model_obj *o, struct err *e)
{
	const struct mirror *mr = &model_runtime(j->m)->m;
	struct mirror_string s;
	struct err why;

	err_init(&why);
	wbuf_reset(&j->text);
	int rc = mirror_string_read(mr, model_va(j->m, o), OJ_MAX_CHARS, &s, &why);
	if (rc == 0) {
		WBUF_LIT(&j->line, ",\"length\":");
		dec_json_u64(&j->line, s.length);
		if (s.compressed)
			WBUF_LIT(&j->line, ",\"compressed\":true");
		else
			WBUF_LIT(&j->line, ",\"compressed\":false");
		rc = mirror_string_wtf8(mr, model_va(j->m, o), OJ_MAX_CHARS, &j->text, &why);
	}
	if (rc == -ERR_NOMEM)
		return oj_nomem(e);
	WBUF_LIT(&j->line, ",\"value\":");
	if (rc == 0) {
		escape_json_quoted(&j->line, j->text.data, j->text.len);
		return 0;
	}
	/* the String passed the model's checks; a 5.x String's char[] may lie outside the image */
	WBUF_LIT(&j->line, "null,\"value_error\":");
	escape_json_quoted(&j->line, (const uint8_t *)why.msg, strlen(why.msg));
	return 0;
}

static int put_array(struct oj *j, const struct model_obj *o, struct err *e)
{
	const struct art_runtime *rt = model_runtime(j->m);
	const struct model_class *mc = model_class(j->m, o->cls);
	const struct rt_class *k = &rt->classes[o->cls];
	uint32_t n = model_length(j->m, o);
	const uint8_t *d = j->bytes + (model_data_addr(j->m, o) - model_va(j->m, o));
	uint8_t t = o->kind == MODEL_OBJ_ARRAY ? 'L' : mc->elem;
	unsigned size = o->kind == MODEL_OBJ_ARRAY ? 4 : mc->elem_size;
	const struct oj_plan *cp;
	int rc;

	WBUF_LIT(&j->line, ",\"length\":");
	dec_json_u64(&j->line, n);
	WBUF_LIT(&j->line, ",\"element_type\":");
	if (k->component == RT_NONE) {
		WBUF_LIT(&j->line, "null");
	} else {
		if ((rc = plan_of(j, k->component, &cp, e)))
			return rc;
		wbuf_put(&j->line, cp->name, cp->name_len);
	}
	if (t == 'B') {
		WBUF_LIT(&j->line, ",\"hex\":\"");
		wbuf_hex_bytes(&j->line, d, n);
		wbuf_u8(&j->line, '"');
		return 0;
	}
	WBUF_LIT(&j->line, ",\"elements\":[");
	for (uint32_t i = 0; i < n; i++) {
		if (i)
			wbuf_u8(&j->line, ',');
		if (t == 'C')   /* a char[] element: its UTF-16 unit (text split in units, surrogates too) */
			dec_json_u64(&j->line, ld_u16le(d + (size_t)i * size));
		else
			put_value(&j->line, t, d + (size_t)i * size);
	}
	wbuf_u8(&j->line, ']');
	return 0;
}

/* ,"place":{"kind":"KIND","where": */
static void put_place_kind(struct wbuf *b, unsigned place)
{
	WBUF_LIT(b, ",\"place\":{\"kind\":\"");
	wbuf_str(b, walk_place_name(place));
	WBUF_LIT(b, "\",\"where\":");
}

static void put_place(struct oj *j, const struct model_obj *o)
{
	const struct model *m = j->m;
	struct wbuf *b = &j->line;
	uint64_t where = model_addr_va(m, o->where), va = model_va(m, o);
	if (o->place < WALK_PLACE_COUNT)
		wbuf_put(b, j->place[o->place].s, j->place[o->place].len);
	else
		put_place_kind(b, o->place);
	dec_json_hex(b, where);
	WBUF_LIT(b, ",\"index\":");
	dec_json_u64(b, o->index);
	WBUF_LIT(b, ",\"offset\":");
	if (va >= where)
		dec_json_u64(b, va - where);
	else
		WBUF_LIT(b, "null");
	wbuf_u8(b, '}');
}

/* VALUE" (a name from a fixed table: no escaping needed) and the closing quote */
static void put_name_value(struct wbuf *b, const char *value)
{
	wbuf_put(b, value, strlen(value));
	wbuf_u8(b, '"');
}

/* ,"KEY":"VALUE" for a literal KEY and a value from a fixed table */
#define put_name(b, key, value) (WBUF_LIT((b), ",\"" key "\":\""), put_name_value((b), (value)))

static void put_kind(struct wbuf *b, unsigned kind)
{
	put_name(b, "kind", model_kind_name(kind));
}

static unsigned state_index(unsigned alloc, unsigned content, unsigned reach)
{
	return (alloc * MODEL_CONTENT_COUNT + content) * MODEL_REACH_COUNT + reach;
}

static void put_state(struct wbuf *b, unsigned alloc, unsigned content, unsigned reach)
{
	put_name(b, "alloc", model_alloc_name(alloc));
	put_name(b, "content", model_content_name(content));
	put_name(b, "reach", model_reach_name(reach));
}

/* "root": the root source of a root object (reach_holder_of: its first source); "unknown_reason":
 * why no root reaches it and yet it may be held (reach.h enum reach_doubt). */
static void put_why_held(struct oj *j, const struct model_obj *o)
{
	size_t i = (size_t)(o - model_obj(j->m, 0));
	struct reach_holder h;
	if (!j->reach)
		return;
	/* only a reachable object can be a root: the others skip the roots' search */
	if (o->reach == MODEL_REACHABLE && reach_holder_of(j->reach, j->m, i, &h) && h.kind == REACH_HOLDER_ROOT)
		put_name(&j->line, "root", reach_source_name(h.source));
	if (o->reach == MODEL_REACH_UNKNOWN && j->reach->doubt && j->reach->doubt[i] != REACH_DOUBT_NONE)
		put_name(&j->line, "unknown_reason", reach_doubt_name(j->reach->doubt[i]));
}

static int put_object(struct oj *j, const struct model_obj *o, struct err *e)
{
	const struct art_runtime *rt = model_runtime(j->m);
	const struct oj_plan *p;
	int rc;

	if ((rc = oj_bytes(j, o, e)) || (rc = plan_of(j, o->cls, &p, e)))
		return rc;
	WBUF_LIT(&j->line, "{\"address\":");
	dec_json_hex(&j->line, model_va(j->m, o));
	if (model_in_alias(j->m, o->addr)) {
		WBUF_LIT(&j->line, ",\"hprof_id\":");   /* an object above 4 GiB: its id in heap.hprof */
		dec_json_hex(&j->line, o->addr);
	}
	WBUF_LIT(&j->line, ",\"class\":");
	wbuf_put(&j->line, p->name, p->name_len);
	WBUF_LIT(&j->line, ",\"class_address\":");
	dec_json_hex(&j->line, rt->classes[o->cls].addr);
	if (o->kind < MODEL_KIND_COUNT)
		wbuf_put(&j->line, j->kind[o->kind].s, j->kind[o->kind].len);
	else
		put_kind(&j->line, o->kind);
	WBUF_LIT(&j->line, ",\"size\":");
	dec_json_u64(&j->line, o->size);
	wbuf_put(&j->line, j->space[o->space].s, j->space[o->space].len);
	put_place(j, o);
	if (o->alloc < MODEL_ALLOC_COUNT && o->content < MODEL_CONTENT_COUNT && o->reach < MODEL_REACH_COUNT) {
		const struct oj_piece *st = &j->state[state_index(o->alloc, o->content, o->reach)];
		wbuf_put(&j->line, st->s, st->len);
	} else {
		put_state(&j->line, o->alloc, o->content, o->reach);
	}
	put_why_held(j, o);
	WBUF_LIT(&j->line, ",\"confidence\":");
	dec_json_u64(&j->line, o->confidence);
	if (o->kind == MODEL_OBJ_ARRAY || o->kind == MODEL_PRIM_ARRAY) {
		if ((rc = put_array(j, o, e)))
			return rc;
	} else {
		size_t i = (size_t)(o - model_obj(j->m, 0));
		if ((rc = dec_fields_json(j->dec, i, &j->line, e)) || (rc = dec_entries_json(j->dec, i, &j->line, e)))
			return rc;
		if (o->kind == MODEL_CLASS)
			put_class_object(j, o);
		else if ((o->kind == MODEL_STRING || (o->cls == model_jls(j->m) && model_jls(j->m) != MODEL_NONE)) &&
			 (rc = put_string(j, o, e)))
			return rc;   /* 5.x Strings are plain instances (their characters in a char[]) */
	}
	WBUF_LIT(&j->line, "}\n");
	return wbuf_status(&j->line, e);
}

/* Space sp's piece of every line: ,"space":NAME,"space_kind":"KIND" */
static int space_piece(struct oj *j, const struct art_space *sp, struct oj_piece *out, struct err *e)
{
	wbuf_reset(&j->scratch);
	WBUF_LIT(&j->scratch, ",\"space\":");
	put_text(&j->scratch, sp->name);
	put_name(&j->scratch, "space_kind", spaces_kind_name(sp->kind));
	return (out->s = kept_scratch(j, &out->len)) ? 0 : oj_nomem(e);
}

/* The piece put(b, v) writes, kept in *out. */
static int make_piece(struct oj *j, void (*put)(struct wbuf *, unsigned), unsigned v, struct oj_piece *out,
		      struct err *e)
{
	wbuf_reset(&j->scratch);
	put(&j->scratch, v);
	return (out->s = kept_scratch(j, &out->len)) ? 0 : oj_nomem(e);
}

/* The state piece at index v (state_index). */
static void put_state_at(struct wbuf *b, unsigned v)
{
	put_state(b, v / (MODEL_CONTENT_COUNT * MODEL_REACH_COUNT), v / MODEL_REACH_COUNT % MODEL_CONTENT_COUNT,
		  v % MODEL_REACH_COUNT);
}

/* The pieces of a line that depend only on an object's kind, place kind and states, made
 * once. */
static int enum_pieces(struct oj *j, struct err *e)
{
	int rc = 0;
	for (unsigned k = 0; k < MODEL_KIND_COUNT && rc == 0; k++)
		rc = make_piece(j, put_kind, k, &j->kind[k], e);
	for (unsigned k = 0; k < WALK_PLACE_COUNT && rc == 0; k++)
		rc = make_piece(j, put_place_kind, k, &j->place[k], e);
	for (unsigned k = 0; k < MODEL_ALLOC_COUNT * MODEL_CONTENT_COUNT * MODEL_REACH_COUNT && rc == 0; k++)
		rc = make_piece(j, put_state_at, k, &j->state[k], e);
	return rc;
}

static int oj_init(struct oj *j, const struct model *m, struct err *e)
{
	const struct art_runtime *rt = model_runtime(m);

	memset(j, 0, sizeof(*j));
	j->m = m;
	wbuf_init(&j->line);
	wbuf_init(&j->copy);
	wbuf_init(&j->text);
	wbuf_init(&j->scratch);
	arena_init(&j->a);
	j->plan = arena_array(&j->a, rt->class_count ? rt->class_count : 1, sizeof(*j->plan));
	j->space = arena_array(&j->a, rt->spaces.count ? rt->spaces.count : 1, sizeof(*j->space));
	if (!j->plan || !j->space)
		return oj_nomem(e);
	int rc = dec_open(&j->dec, m, e);
	if (rc)
		return rc;
	memset(j->plan, 0, (rt->class_count ? rt->class_count : 1) * sizeof(*j->plan));
	for (size_t i = 0; i < rt->spaces.count && rc == 0; i++)
		rc = space_piece(j, &rt->spaces.v[i], &j->space[i], e);
	return rc ? rc : enum_pieces(j, e);
}

static void oj_release(struct oj *j)
{
	wbuf_release(&j->line);
	wbuf_release(&j->copy);
	wbuf_release(&j->text);
	wbuf_release(&j->scratch);
	arena_release(&j->a);
	dec_close(j->dec);
}

int objects_jsonl_header(struct outf *out, const char *version, const char *image_sha256, struct err *e)
{
	struct wbuf b;
	int rc;
	wbuf_init(&b);
	wbuf_printf(&b, "{\"artcarve\":\"objects.jsonl\",\"version\":");
	escape_json_quoted(&b, (const uint8_t *)(version ? version : ""), version ? strlen(version) : 0);
	wbuf_printf(&b, ",\"image_sha256\":\"%s\"}\n", image_sha256);
	if ((rc = wbuf_status(&b, e)) == 0)
		rc = outf_write(out, b.data, b.len, e);
	wbuf_release(&b);
	return rc;
}

int objects_jsonl_write(const struct model *m, const struct reach *reach, struct outf *out,
			struct objects_jsonl_stats *st, struct err *e)
{
	struct oj j;
	struct img_drop drop = { 0 };
	uint64_t done = 0;
	int rc = oj_init(&j, m, e);

	j.reach = reach;

	memset(st, 0, sizeof(*st));
	for (size_t i = 0; i < model_count(m) && rc == 0; i++) {
		const struct model_obj *o = model_obj(m, i);
		img_drop_behind(model_image(m), &drop, model_va(m, o));   /* in address order: bounded memory */
		progress_to(model_progress(m), done += o->size);
		if ((rc = put_object(&j, o, e)) == 0) {
			st->objects++;
			st->strings += o->kind == MODEL_STRING;
		}
		if (rc == 0 && (j.line.len >= OJ_FLUSH || i + 1 == model_count(m))) {
			rc = outf_write(out, j.line.data, j.line.len, e);
			wbuf_reset(&j.line);
		}
	}
	st->bytes = out->written;
	oj_release(&j);
	return rc;
}
