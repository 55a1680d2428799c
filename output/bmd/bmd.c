/* bmd.c - BMD encoders, streaming reader and Java string rules (see bmd.h).
 *
 * Byte-level facts come from badoo/hprof-tools @ 5e5408e (DataWriter.java, DataReader.java,
 * BmdReader.java) (badoo/hprof-tools @ 5e5408e); the UTF-8 rules mirror
 * the JDK 17 decoder (java.lang.String decodeUTF8_UTF16 / sun.nio.cs.UTF_8), checked against a
 * real JVM by tests/unit/test_bmd.c vectors. */
#include "output/bmd/bmd.h"

#include <string.h>

#include "carver/base/ck.h"
#include "carver/base/xalloc.h"

/* err_prefix that tolerates a NULL error (probes and tests pass none) */
#define ERR_PREFIX(e, rc, ...) ((e) ? err_prefix((e), __VA_ARGS__) : (rc))

/* ---- types --------------------------------------------------------------------------------- */

/* index: BMD type; value: HPROF basic type code (B.5) */
static const uint8_t bmd_to_hprof[BMD_T_COUNT] = { 2, 10, 4, 8, 5, 6, 7, 11, 9 };
/* value size in HPROF, object excluded (id size) */
static const uint8_t bmd_hprof_sizes[BMD_T_COUNT] = { 0, 4, 1, 1, 2, 4, 8, 8, 2 };
static const char *const bmd_type_names[BMD_T_COUNT] = {
	"object", "int", "boolean", "byte", "char", "float", "double", "long", "short"
};

int bmd_type_from_hprof(unsigned hprof_type)
{
	for (unsigned t = 0; t < BMD_T_COUNT; t++)
		if (bmd_to_hprof[t] == hprof_type)
			return (int)t;
	return -1;
}

unsigned bmd_type_to_hprof(unsigned bmd_type)
{
	return bmd_type < BMD_T_COUNT ? bmd_to_hprof[bmd_type] : 0;
}

unsigned bmd_type_hprof_size(unsigned bmd_type, unsigned id_size)
{
	if (bmd_type >= BMD_T_COUNT)
		return 0;
	return bmd_type == BMD_T_OBJECT ? id_size : bmd_hprof_sizes[bmd_type];
}

const char *bmd_type_name(unsigned bmd_type)
{
	return bmd_type < BMD_T_COUNT ? bmd_type_names[bmd_type] : NULL;
}

const char *bmd_tag_name(unsigned tag)
{
	static const char *const names[] = { NULL, "STRING", "HASHED_STRING", "CLASS_DEFINITION",
					     "INSTANCE_DUMP", "ROOT_OBJECTS", "OBJECT_ARRAY",
					     "PRIMITIVE_ARRAY_PLACEHOLDER", "LEGACY_HPROF_RECORD" };
	return tag < sizeof(names) / sizeof(names[0]) ? names[tag] : NULL;
}

/* ---- encoders -------------------------------------------------------------------------------- */

void bmd_put_int64(struct wbuf *b, int64_t v)
{
	wbuf_varint64(b, (uint64_t)v);
}

bool bmd_put_value(struct wbuf *b, unsigned type, uint64_t bits)
{
	switch (type) {
	case BMD_T_OBJECT:
	case BMD_T_INT:
		bmd_put_int32(b, (int32_t)(uint32_t)bits);
		return true;
	case BMD_T_SHORT:
		bmd_put_int32(b, (int16_t)(uint16_t)bits);
		return true;
	case BMD_T_LONG:
		bmd_put_int64(b, (int64_t)bits);
		return true;
	case BMD_T_FLOAT:
		wbuf_u32le(b, (uint32_t)bits);
		return true;
	case BMD_T_DOUBLE:
		wbuf_u64le(b, bits);
		return true;
	case BMD_T_BOOLEAN:
	case BMD_T_BYTE:
		wbuf_u8(b, (uint8_t)bits);
		return true;
	case BMD_T_CHAR:
		wbuf_u16be(b, (uint16_t)bits);
		return true;
	default:
		return false;
	}
}

void bmd_put_header(struct wbuf *b, uint32_t version, const void *meta, size_t meta_len)
{
	bmd_put_int32(b, (int32_t)version);
	bmd_put_uint32(b, (uint32_t)meta_len);
	wbuf_put(b, meta, meta_len);
}

void bmd_put_string(struct wbuf *b, uint32_t id, const void *bytes, size_t len)
{
	bmd_put_int32(b, BMD_STRING);
	bmd_put_int32(b, (int32_t)id);
	bmd_put_uint32(b, (uint32_t)len);
	wbuf_put(b, bytes, len);
}

void bmd_put_hashed_string(struct wbuf *b, uint32_t id, uint32_t length, int32_t hash)
{
	bmd_put_int32(b, BMD_HASHED_STRING);
	bmd_put_int32(b, (int32_t)id);
	bmd_put_uint32(b, length);
	bmd_put_int32(b, hash);
}

void bmd_put_legacy(struct wbuf *b, uint32_t hprof_tag, const void *body, size_t len)
{
	bmd_put_int32(b, BMD_LEGACY_RECORD);
	bmd_put_int32(b, (int32_t)hprof_tag);
	bmd_put_int32(b, (int32_t)(uint32_t)len);
	wbuf_put(b, body, len);
}

void bmd_put_prim_array(struct wbuf *b, uint32_t id, unsigned type, uint32_t count)
{
	bmd_put_int32(b, BMD_PRIMITIVE_ARRAY);
	bmd_put_int32(b, (int32_t)id);
	bmd_put_int32(b, (int32_t)type);
	bmd_put_int32(b, (int32_t)count);
}

void bmd_put_class_def(struct wbuf *b, const struct bmd_class_def *d)
{
	bmd_put_int32(b, BMD_CLASS_DEFINITION);
	bmd_put_int32(b, (int32_t)d->id);
	bmd_put_int32(b, (int32_t)d->super_id);
	bmd_put_int32(b, (int32_t)d->name_id);
	bmd_put_int32(b, (int32_t)d->const_count);
	for (uint32_t i = 0; i < d->const_count; i++) {
		bmd_put_int32(b, (int32_t)d->consts[i].index);
		bmd_put_int32(b, d->consts[i].type);
		bmd_put_value(b, d->consts[i].type, d->consts[i].bits);
	}
	bmd_put_int32(b, (int32_t)d->static_count);
	for (uint32_t i = 0; i < d->static_count; i++) {
		bmd_put_int32(b, (int32_t)d->statics[i].name_id);
		bmd_put_int32(b, d->statics[i].type);
		bmd_put_value(b, d->statics[i].type, d->statics[i].bits);
	}
	bmd_put_int32(b, (int32_t)d->field_count);
	for (uint32_t i = 0; i < d->field_count; i++) {
		bmd_put_int32(b, (int32_t)d->fields[i].name_id);
		bmd_put_int32(b, d->fields[i].type);
	}
	bmd_put_int32(b, (int32_t)d->discarded);
}

/* ---- primitive decoders ------------------------------------------------------------------- */

/* Java's readRawVarint64: at most 10 bytes, bits beyond 64 dropped. */
int bmd_get_u64(struct cursor *c, uint64_t *v, struct err *e)
{
	const uint8_t *p = c->base + c->pos;
	size_t left = c->len - c->pos;
	uint64_t x = 0;

	for (unsigned i = 0; i < 10; i++) {
		if (i >= left)
			return ERR_SET(e, ERR_TRUNC, cur_where(c), "varint at 0x%llx: input ends after %u bytes",
				       (unsigned long long)cur_where(c), i);
		x |= (uint64_t)(p[i] & 0x7f) << (7 * i);
		if (!(p[i] & 0x80)) {
			c->pos += i + 1;
			*v = x;
			return 0;
		}
	}
	return ERR_SET(e, ERR_CORRUPT, cur_where(c), "varint at 0x%llx: longer than 10 bytes",
		       (unsigned long long)cur_where(c));
}

int bmd_get_u32(struct cursor *c, uint32_t *v, struct err *e)
{
	const uint8_t *p = c->base + c->pos;
	uint64_t x;
	int rc;

	/* fast path: one byte */
	if (c->pos < c->len && p[0] < 0x80) {
		*v = p[0];
		c->pos++;
		return 0;
	}
	rc = bmd_get_u64(c, &x, e);
	if (rc == 0)
		*v = (uint32_t)x;
	return rc;
}

static int bmd_get_raw(struct cursor *c, size_t n, const uint8_t **p, struct err *e)
{
	if (n > c->len - c->pos)
		return ERR_SET(e, ERR_TRUNC, cur_where(c), "at 0x%llx: need %zu bytes, %zu left",
			       (unsigned long long)cur_where(c), n, c->len - c->pos);
	*p = c->base + c->pos;
	c->pos += n;
	return 0;
}

int bmd_get_value(struct cursor *c, unsigned type, uint64_t *bits, struct err *e)
{
	const uint8_t *p = NULL;
	uint32_t v32 = 0;
	int rc;

	switch (type) {
	case BMD_T_OBJECT:
	case BMD_T_INT:
		rc = bmd_get_u32(c, &v32, e);
		*bits = v32;
		return rc;
	case BMD_T_SHORT:
		rc = bmd_get_u32(c, &v32, e);
		*bits = (uint16_t)v32;
		return rc;
	case BMD_T_LONG:
		return bmd_get_u64(c, bits, e);
	case BMD_T_FLOAT:
		if ((rc = bmd_get_raw(c, 4, &p, e)))
			return rc;
		*bits = ld_u32le(p);
		return 0;
	case BMD_T_DOUBLE:
		if ((rc = bmd_get_raw(c, 8, &p, e)))
			return rc;
		*bits = ld_u64le(p);
		return 0;
	case BMD_T_BOOLEAN:
	case BMD_T_BYTE:
		if ((rc = bmd_get_raw(c, 1, &p, e)))
			return rc;
		*bits = p[0];
		return 0;
	case BMD_T_CHAR:
		if ((rc = bmd_get_raw(c, 2, &p, e)))
			return rc;
		*bits = ld_u16be(p);
		return 0;
	default:
		return ERR_SET(e, ERR_CORRUPT, cur_where(c), "at 0x%llx: invalid BMD type %u",
			       (unsigned long long)cur_where(c), type);
	}
}

int bmd_skip_value(struct cursor *c, unsigned type, struct err *e)
{
	uint64_t bits;
	return bmd_get_value(c, type, &bits, e);
}

/* A BMD type code; the message names where it was read. */
static int bmd_get_type(struct cursor *c, uint8_t *type, struct err *e)
{
	uint64_t at = cur_where(c);
	uint32_t t;
	int rc = bmd_get_u32(c, &t, e);

	if (rc)
		return rc;
	if (t >= BMD_T_COUNT)
		return ERR_SET(e, ERR_CORRUPT, at, "at 0x%llx: invalid BMD type %u (expected 0..8)",
			       (unsigned long long)at, t);
	*type = (uint8_t)t;
	return 0;
}

/* A count whose items take at least min_item bytes each: rejects counts the rest of the
 * input cannot hold, so allocations stay proportional to the input. */
static int bmd_get_count(struct cursor *c, size_t min_item, const char *what, uint32_t *n, struct err *e)
{
	uint64_t at = cur_where(c);
	size_t need;
	int rc = bmd_get_u32(c, n, e);

	if (rc)
		return rc;
	if (ck_mul(*n, min_item, &need) || need > c->len - c->pos)
		return ERR_SET(e, ERR_CORRUPT, at, "at 0x%llx: %s count %u exceeds the %zu bytes left",
			       (unsigned long long)at, what, *n, c->len - c->pos);
	return 0;
}

/* ---- id map ------------------------------------------------------------------------------------ */

int bmd_idmap_nomem(const struct htab *m, struct err *e)
{
	return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory for an id map of %zu entries", m->count);
}

/* ---- reader ------------------------------------------------------------------------------------- */

int bmd_reader_init(struct bmd_reader *r, const uint8_t *data, size_t len, const char *label, struct err *e)
{
	uint32_t meta_len;
	int rc;

	memset(r, 0, sizeof(*r));
	cur_init(&r->c, data, len, 0);
	r->label = label;
	arena_init(&r->defs);
	htab_init(&r->classes);
	if (len == 0)
		return ERR_SET(e, ERR_TRUNC, 0, "empty file: no BMD header at 0x0");
	if ((rc = bmd_get_u32(&r->c, &r->version, e)))
		return ERR_PREFIX(e, rc, "BMD header");
	if ((rc = bmd_get_u32(&r->c, &meta_len, e)))
		return ERR_PREFIX(e, rc, "BMD header");
	if (meta_len > r->c.len - r->c.pos)
		return ERR_SET(e, ERR_TRUNC, cur_where(&r->c),
			       "BMD header at 0x%llx: metadata length %u exceeds the %zu bytes left",
			       (unsigned long long)cur_where(&r->c), meta_len, r->c.len - r->c.pos);
	r->meta = r->c.base + r->c.pos;
	r->meta_len = meta_len;
	r->c.pos += meta_len;
	return 0;
}

void bmd_reader_release(struct bmd_reader *r)
{
	arena_release(&r->defs);
	htab_release(&r->classes);
	xfree(r->all);
	r->all = NULL;
}

const struct bmd_class_def *bmd_reader_class(const struct bmd_reader *r, uint32_t id)
{
	uint32_t serial;
	return htab_get(&r->classes, id, &serial) ? r->all[serial] : NULL;
}

int bmd_reader_chain(const struct bmd_reader *r, const struct bmd_class_def *def,
		     const struct bmd_class_def **chain, size_t max, size_t *n, struct err *e)
{
	size_t k = 0;

	/* a well-formed chain visits each definition once, so it is no longer than def_count */
	while (def) {
		if (k == max || k > r->def_count)
			return ERR_SET(e, ERR_CORRUPT, def->offset,
				       "class %u (CLASS_DEFINITION at 0x%llx): superclass chain is cyclic or deeper "
				       "than %zu classes", chain[0]->id, (unsigned long long)chain[0]->offset, max);
		chain[k++] = def;
		def = bmd_reader_class(r, def->super_id);
	}
	*n = k;
	return 0;
}

static int bmd_read_consts(struct bmd_reader *r, struct bmd_class_def *d, struct err *e)
{
	struct cursor *c = &r->c;
	int rc;

	/* each constant takes at least 3 bytes (index, type, 1-byte value) */
	if ((rc = bmd_get_count(c, 3, "constant", &d->const_count, e)))
		return rc;
	d->consts = arena_array(&r->defs, d->const_count, sizeof(*d->consts));
	if (!d->consts && d->const_count)
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory for %u constants", d->const_count);
	for (uint32_t i = 0; i < d->const_count; i++) {
		struct bmd_const *k = &d->consts[i];
		if ((rc = bmd_get_u32(c, &k->index, e)) || (rc = bmd_get_type(c, &k->type, e)) ||
		    (rc = bmd_get_value(c, k->type, &k->bits, e)))
			return rc;
	}
	return 0;
}

static int bmd_read_statics(struct bmd_reader *r, struct bmd_class_def *d, struct err *e)
{
	struct cursor *c = &r->c;
	int rc;

	if ((rc = bmd_get_count(c, 3, "static field", &d->static_count, e)))
		return rc;
	d->statics = arena_array(&r->defs, d->static_count, sizeof(*d->statics));
	if (!d->statics && d->static_count)
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory for %u static fields", d->static_count);
	for (uint32_t i = 0; i < d->static_count; i++) {
		struct bmd_static *s = &d->statics[i];
		if ((rc = bmd_get_u32(c, &s->name_id, e)) || (rc = bmd_get_type(c, &s->type, e)) ||
		    (rc = bmd_get_value(c, s->type, &s->bits, e)))
			return rc;
	}
	return 0;
}

static int bmd_read_fields(struct bmd_reader *r, struct bmd_class_def *d, struct err *e)
{
	struct cursor *c = &r->c;
	int rc;

	if ((rc = bmd_get_count(c, 2, "instance field", &d->field_count, e)))
		return rc;
	d->fields = arena_array(&r->defs, d->field_count, sizeof(*d->fields));
	if (!d->fields && d->field_count)
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory for %u fields", d->field_count);
	for (uint32_t i = 0; i < d->field_count; i++) {
		struct bmd_field *f = &d->fields[i];
		if ((rc = bmd_get_u32(c, &f->name_id, e)) || (rc = bmd_get_type(c, &f->type, e)))
			return rc;
	}
	return 0;
}

static int bmd_register_def(struct bmd_reader *r, struct bmd_class_def *d, struct err *e)
{
	if (r->def_count == r->def_cap) {
		size_t cap = r->def_cap;   /* a 32-bit count: no more than 2^31 */
		if (r->def_cap > UINT32_MAX / 2 || XALLOC_GROW(r->all, cap, (size_t)r->def_count + 1, 256))
			return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory for %u class definitions", r->def_count + 1);
		r->def_cap = (uint32_t)cap;
	}
	d->serial = r->def_count;
	r->all[r->def_count++] = d;
	return bmd_idmap_put(&r->classes, d->id, d->serial, e);
}

static int bmd_read_class_def(struct bmd_reader *r, struct bmd_record *rec, struct err *e)
{
	struct bmd_class_def *d = arena_alloc(&r->defs, sizeof(*d));
	int rc;

	if (!d)
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory for a class definition");
	d->offset = rec->offset;
	if ((rc = bmd_get_u32(&r->c, &d->id, e)) || (rc = bmd_get_u32(&r->c, &d->super_id, e)) ||
	    (rc = bmd_get_u32(&r->c, &d->name_id, e)) || (rc = bmd_read_consts(r, d, e)) ||
	    (rc = bmd_read_statics(r, d, e)) || (rc = bmd_read_fields(r, d, e)) ||
	    (rc = bmd_get_u32(&r->c, &d->discarded, e)))
		return rc;
	rec->id = d->id;
	rec->def = d;
	return bmd_register_def(r, d, e);
}

static int bmd_read_instance(struct bmd_reader *r, struct bmd_record *rec, struct err *e)
{
	const struct bmd_class_def *chain[BMD_CHAIN_MAX];
	struct cursor *c = &r->c;
	size_t n = 0, start;
	int rc;

	if ((rc = bmd_get_u32(c, &rec->id, e)) || (rc = bmd_get_u32(c, &rec->class_id, e)))
		return rc;
	rec->def = bmd_reader_class(r, rec->class_id);
	if (!rec->def)
		return ERR_SET(e, ERR_CORRUPT, rec->offset,
			       "instance dump at 0x%llx: class %u has no earlier CLASS_DEFINITION",
			       (unsigned long long)rec->offset, rec->class_id);
	if ((rc = bmd_reader_chain(r, rec->def, chain, BMD_CHAIN_MAX, &n, e)))
		return rc;
	start = c->pos;
	for (size_t k = 0; k < n; k++)
		for (uint32_t i = 0; i < chain[k]->field_count; i++)
			if ((rc = bmd_skip_value(c, chain[k]->fields[i].type, e)))
				return ERR_PREFIX(e, rc, "instance dump at 0x%llx", (unsigned long long)rec->offset);
	return cur_sub(c, start, c->pos - start, &rec->values, e);
}

/* count varint ids: the values cursor spans them */
static int bmd_read_id_list(struct bmd_reader *r, struct bmd_record *rec, const char *what, struct err *e)
{
	struct cursor *c = &r->c;
	size_t start;
	uint32_t v;
	int rc;

	if ((rc = bmd_get_count(c, 1, what, &rec->count, e)))
		return rc;
	start = c->pos;
	for (uint32_t i = 0; i < rec->count; i++)
		if ((rc = bmd_get_u32(c, &v, e)))
			return rc;
	return cur_sub(c, start, c->pos - start, &rec->values, e);
}

static int bmd_read_bytes(struct bmd_reader *r, struct bmd_record *rec, const char *what, struct err *e)
{
	uint64_t at = cur_where(&r->c);
	uint32_t n;
	int rc = bmd_get_u32(&r->c, &n, e);

	if (rc)
		return rc;
	/* Badoo reads the length with readInt32: a negative length cannot be valid */
	if (n > r->c.len - r->c.pos)
		return ERR_SET(e, ERR_TRUNC, at, "%s at 0x%llx: length %u exceeds the %zu bytes left", what,
			       (unsigned long long)rec->offset, n, r->c.len - r->c.pos);
	rec->bytes = r->c.base + r->c.pos;
	rec->len = n;
	r->c.pos += n;
	return 0;
}

static int bmd_read_body(struct bmd_reader *r, struct bmd_record *rec, struct err *e)
{
	struct cursor *c = &r->c;
	uint32_t v;
	int rc;

	switch (rec->tag) {
	case BMD_STRING:
		if ((rc = bmd_get_u32(c, &rec->id, e)))
			return rc;
		return bmd_read_bytes(r, rec, "string", e);
	case BMD_HASHED_STRING:
		if ((rc = bmd_get_u32(c, &rec->id, e)) || (rc = bmd_get_u32(c, &rec->length, e)) ||
		    (rc = bmd_get_u32(c, &v, e)))
			return rc;
		rec->hash = (int32_t)v;
		return 0;
	case BMD_CLASS_DEFINITION:
		return bmd_read_class_def(r, rec, e);
	case BMD_INSTANCE_DUMP:
		return bmd_read_instance(r, rec, e);
	case BMD_ROOT_OBJECTS:
		return bmd_read_id_list(r, rec, "root", e);
	case BMD_OBJECT_ARRAY:
		if ((rc = bmd_get_u32(c, &rec->id, e)) || (rc = bmd_get_u32(c, &rec->class_id, e)))
			return rc;
		return bmd_read_id_list(r, rec, "array element", e);
	case BMD_PRIMITIVE_ARRAY:
		if ((rc = bmd_get_u32(c, &rec->id, e)) || (rc = bmd_get_type(c, &rec->type, e)) ||
		    (rc = bmd_get_u32(c, &rec->count, e)))
			return rc;
		return 0;
	case BMD_LEGACY_RECORD:
		if ((rc = bmd_get_u32(c, &rec->hprof_tag, e)))
			return rc;
		return bmd_read_bytes(r, rec, "legacy record", e);
	default:
		return ERR_SET(e, ERR_CORRUPT, rec->offset, "record at 0x%llx: unknown BMD tag %u (expected 1..8)",
			       (unsigned long long)rec->offset, rec->tag);
	}
}

int bmd_next(struct bmd_reader *r, struct bmd_record *rec, struct err *e)
{
	int rc;

	memset(rec, 0, sizeof(*rec));
	if (r->c.pos == r->c.len)
		return 0;
	rec->offset = cur_where(&r->c);
	if ((rc = bmd_get_u32(&r->c, &rec->tag, e)) || (rc = bmd_read_body(r, rec, e))) {
		if (e && e->code == ERR_TRUNC)
			err_prefix(e, "%s record at 0x%llx is truncated",
				   bmd_tag_name(rec->tag) ? bmd_tag_name(rec->tag) : "BMD",
				   (unsigned long long)rec->offset);
		return rc;
	}
	r->records++;
	return 1;
}

/* ---- Java strings ------------------------------------------------------------------------------ */

struct jstr {
	struct wbuf *out;
	uint32_t h;
};

static inline void jstr_unit(struct jstr *s, uint32_t unit)
{
	s->h = s->h * 31u + unit;
}

/* Appends code point cp (BMP or supplementary) as UTF-8 and hashes its UTF-16 units. */
static void jstr_cp(struct jstr *s, uint32_t cp)
{
	wbuf_utf8(s->out, cp);
	if (cp < 0x10000) {
		jstr_unit(s, cp);
	} else {
		jstr_unit(s, 0xd800 + ((cp - 0x10000) >> 10));
		jstr_unit(s, 0xdc00 + ((cp - 0x10000) & 0x3ff));
	}
}

#define JAVA_REPL 0xfffd

static inline bool not_cont(uint8_t b) { return (b & 0xc0) != 0x80; }

/* JDK isMalformed3: E0 needs A0..BF second; both trailing bytes continuation */
static bool malformed3(uint8_t b1, uint8_t b2, uint8_t b3)
{
	return (b1 == 0xe0 && (b2 & 0xe0) == 0x80) || not_cont(b2) || not_cont(b3);
}

/* JDK isMalformed3_2 (only two bytes available) */
static bool malformed3_2(uint8_t b1, uint8_t b2)
{
	return (b1 == 0xe0 && (b2 & 0xe0) == 0x80) || not_cont(b2);
}

/* JDK isMalformed4_2: second byte of a 4-byte form */
static bool malformed4_2(uint8_t b1, uint8_t b2)
{
	return (b1 == 0xf0 && (b2 < 0x90 || b2 > 0xbf)) || (b1 == 0xf4 && (b2 & 0xf0) != 0x80) || not_cont(b2);
}

/* JDK malformedN(3): how many bytes one U+FFFD replaces */
static size_t malformed3_len(uint8_t b1, uint8_t b2)
{
	return ((b1 == 0xe0 && (b2 & 0xe0) == 0x80) || not_cont(b2)) ? 1 : 2;
}

/* JDK malformedN(4) */
static size_t malformed4_len(uint8_t b1, uint8_t b2, uint8_t b3)
{
	if (b1 > 0xf4 || malformed4_2(b1, b2))
		return 1;
	return not_cont(b3) ? 2 : 3;
}

/* One step of the JDK decoder at in[i]; returns bytes consumed, 0 to stop (input ended in an
 * incomplete sequence, which yields one U+FFFD). */
static size_t java_utf8_step(struct jstr *s, const uint8_t *in, size_t i, size_t n)
{
	uint8_t b1 = in[i];
	size_t left = n - i;

	if (b1 < 0x80) {
		jstr_cp(s, b1);
		return 1;
	}
	if (b1 >= 0xc2 && b1 <= 0xdf) {
		if (left < 2) {
			jstr_cp(s, JAVA_REPL);
			return 0;
		}
		if (not_cont(in[i + 1])) {
			jstr_cp(s, JAVA_REPL);
			return 1;
		}
		jstr_cp(s, (uint32_t)(b1 & 0x1f) << 6 | (in[i + 1] & 0x3f));
		return 2;
	}
	if ((b1 & 0xf0) == 0xe0) {
		if (left >= 3) {
			uint8_t b2 = in[i + 1], b3 = in[i + 2];
			uint32_t cp;
			if (malformed3(b1, b2, b3)) {
				jstr_cp(s, JAVA_REPL);
				return malformed3_len(b1, b2);
			}
			cp = (uint32_t)(b1 & 0x0f) << 12 | (uint32_t)(b2 & 0x3f) << 6 | (b3 & 0x3f);
			/* an encoded surrogate (CESU-8 half) is malformed: one U+FFFD for 3 bytes */
			jstr_cp(s, cp >= 0xd800 && cp <= 0xdfff ? JAVA_REPL : cp);
			return 3;
		}
		jstr_cp(s, JAVA_REPL);
		if (left == 2 && malformed3_2(b1, in[i + 1]))
			return 1;
		return 0;
	}
	if ((b1 & 0xf8) == 0xf0) {
		if (left >= 4) {
			uint8_t b2 = in[i + 1], b3 = in[i + 2], b4 = in[i + 3];
			uint32_t cp = (uint32_t)(b1 & 0x07) << 18 | (uint32_t)(b2 & 0x3f) << 12 |
				      (uint32_t)(b3 & 0x3f) << 6 | (b4 & 0x3f);
			if (not_cont(b2) || not_cont(b3) || not_cont(b4) || cp < 0x10000 || cp > 0x10ffff) {
				jstr_cp(s, JAVA_REPL);
				return malformed4_len(b1, b2, b3);
			}
			jstr_cp(s, cp);
			return 4;
		}
		jstr_cp(s, JAVA_REPL);
		if (b1 > 0xf4 || (left >= 2 && malformed4_2(b1, in[i + 1])))
			return 1;
		if (left >= 3 && not_cont(in[i + 2]))
			return 2;
		return 0;
	}
	/* 80..C1 and F8..FF never start a sequence */
	jstr_cp(s, JAVA_REPL);
	return 1;
}

void bmd_java_utf8(const uint8_t *in, size_t n, struct wbuf *out, int32_t *hash)
{
	struct jstr s = { out, 0 };
	size_t i = 0;

	while (i < n) {
		/* ASCII runs: the common case for class and field names */
		size_t j = i;
		while (j < n && in[j] < 0x80) {
			s.h = s.h * 31u + in[j];
			j++;
		}
		wbuf_put(out, in + i, j - i);
		i = j;
		if (i < n) {
			size_t k = java_utf8_step(&s, in, i, n);
			if (!k)
				break;
			i += k;
		}
	}
	if (hash)
		*hash = (int32_t)s.h;
}

/* UTF-16 unit sink for modified UTF-8: pairs surrogates, writes lone ones as '?' (getBytes). */
struct junits {
	struct jstr s;
	uint32_t pending_hi;    /* 0 or a high surrogate waiting for its low half */
};

static void junits_flush(struct junits *u)
{
	if (u->pending_hi) {
		wbuf_u8(u->s.out, '?');
		jstr_unit(&u->s, u->pending_hi);
		u->pending_hi = 0;
	}
}

static void junits_add(struct junits *u, uint32_t unit)
{
	if (unit >= 0xdc00 && unit <= 0xdfff && u->pending_hi) {
		uint32_t cp = 0x10000 + ((u->pending_hi - 0xd800) << 10) + (unit - 0xdc00);
		u->pending_hi = 0;
		jstr_cp(&u->s, cp);
		return;
	}
	junits_flush(u);
	if (unit >= 0xd800 && unit <= 0xdbff) {
		u->pending_hi = unit;
	} else if (unit >= 0xdc00 && unit <= 0xdfff) {
		wbuf_u8(u->s.out, '?');
		jstr_unit(&u->s, unit);
	} else {
		jstr_cp(&u->s, unit);
	}
}

void bmd_java_mutf8(const uint8_t *in, size_t n, struct wbuf *out, int32_t *hash)
{
	struct junits u = { { out, 0 }, 0 };
	size_t i = 0;

	while (i < n) {
		uint8_t b1 = in[i];
		if (b1 < 0x80) {
			junits_add(&u, b1);
			i++;
		} else if ((b1 & 0xe0) == 0xc0 && n - i >= 2 && !not_cont(in[i + 1])) {
			junits_add(&u, (uint32_t)(b1 & 0x1f) << 6 | (in[i + 1] & 0x3f));
			i += 2;
		} else if ((b1 & 0xf0) == 0xe0 && n - i >= 3 && !not_cont(in[i + 1]) && !not_cont(in[i + 2])) {
			junits_add(&u, (uint32_t)(b1 & 0x0f) << 12 | (uint32_t)(in[i + 1] & 0x3f) << 6 |
					       (in[i + 2] & 0x3f));
			i += 3;
		} else {
			junits_add(&u, JAVA_REPL);
			i++;
		}
	}
	junits_flush(&u);
	if (hash)
		*hash = (int32_t)u.s.h;
}

int32_t bmd_java_hash_utf16(const uint16_t *units, size_t n)
{
	uint32_t h = 0;
	for (size_t i = 0; i < n; i++)
		h = h * 31u + units[i];
	return (int32_t)h;
}
