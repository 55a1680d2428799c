/* mirror.c - mirror object decoding (see mirror.h).  Layouts: runtime/mirror/object.h,
 * class.h, array.h, string.h, dex_cache.h, class_loader.h at each release, as table rows in
 * art/format/art_layout.c. */
#include "art/mirror/mirror.h"

#include <string.h>

#include "carver/base/ck.h"
#include "carver/base/cursor.h"

enum {
	MIRROR_MAX_CLASS_SIZE = 1 << 24,   /* sanity bound on Class.class_size_ */
	MIRROR_MAX_OBJECT_SIZE = 1 << 30,
	PRIM_VOID = 9,                     /* Primitive::kPrimVoid, runtime/primitive.h */
	UTF16_UNIT = 2,
};

/* Copies [va, va + n) when captured, region by region (at most one step per region): a
 * Class or String may straddle two abutting mappings, so unlike img_span this joins them. */
static bool peek(const struct mirror *m, uint64_t va, uint8_t *buf, size_t n)
{
	uint64_t at = va, end;
	if (ck_add64(va, n, &end))
		return false;
	while (at < end) {
		size_t take;
		const uint8_t *p = img_span(m->img, at, 1, &take);   /* to the end of at's capture */
		if (!p)
			return false;
		if (take > end - at)
			take = (size_t)(end - at);
		if (buf)
			memcpy(buf + (at - va), p, take);
		at += take;
	}
	return true;
}

bool mirror_readable(const struct mirror *m, uint64_t va, size_t len)
{
	return peek(m, va, NULL, len);
}

bool mirror_peek_u32(const struct mirror *m, uint64_t va, uint32_t *v)
{
	uint8_t b[4];
	if (!peek(m, va, b, sizeof(b)))
		return false;
	*v = ld_u32le(b);
	return true;
}

int mirror_u8(const struct mirror *m, uint64_t va, uint8_t *v, struct err *e)
{
	return img_read(m->img, va, v, 1, e);
}

int mirror_u16(const struct mirror *m, uint64_t va, uint16_t *v, struct err *e)
{
	uint8_t b[2];
	int rc = img_read(m->img, va, b, 2, e);
	if (rc == 0)
		*v = ld_u16le(b);
	return rc;
}

int mirror_u32(const struct mirror *m, uint64_t va, uint32_t *v, struct err *e)
{
	uint8_t b[4];
	int rc = img_read(m->img, va, b, 4, e);
	if (rc == 0)
		*v = ld_u32le(b);
	return rc;
}

int mirror_u64(const struct mirror *m, uint64_t va, uint64_t *v, struct err *e)
{
	uint8_t b[8];
	int rc = img_read(m->img, va, b, 8, e);
	if (rc == 0)
		*v = ld_u64le(b);
	return rc;
}

int mirror_ptr(const struct mirror *m, uint64_t va, uint64_t *v, struct err *e)
{
	uint32_t w;
	int rc;
	if (m->pointer_size == 8)
		return mirror_u64(m, va, v, e);
	rc = mirror_u32(m, va, &w, e);
	if (rc == 0)
		*v = w;
	return rc;
}

/* Reads the fixed part [va, va + size) of a structure into buf (one bounded read). */
static int read_fixed(const struct mirror *m, uint64_t va, unsigned size, uint8_t *buf, size_t cap,
		      const char *what, struct err *e)
{
	if (size > cap)
		return ERR_SET(e, ERR_INTERNAL, va, "%s layout %s larger than %zu bytes", what, m->l->family, cap);
	return img_read(m->img, va, buf, size, e);
}

/* A u32 / u64 member of a fixed part read into buf; 0 when the row has no such member. */
static uint32_t f32(const uint8_t *buf, unsigned size, unsigned off)
{
	return off == ART_ABSENT || off > size || 4 > size - off ? 0u : ld_u32le(buf + off);
}

static uint64_t f64(const uint8_t *buf, unsigned size, unsigned off)
{
	return off == ART_ABSENT || off > size || 8 > size - off ? 0u : ld_u64le(buf + off);
}

int mirror_object_read(const struct mirror *m, uint64_t va, struct mirror_object *o, struct err *e)
{
	uint8_t buf[16];
	int rc = read_fixed(m, va, m->l->object.size, buf, sizeof(buf), "object", e);
	if (rc)
		return rc;
	o->klass = f32(buf, m->l->object.size, m->l->object.klass);
	o->monitor = f32(buf, m->l->object.size, m->l->object.monitor);
	return 0;
}

int mirror_klass(const struct mirror *m, uint64_t va, uint32_t *klass, struct err *e)
{
	return mirror_u32(m, va + m->l->object.klass, klass, e);
}

int mirror_class_read(const struct mirror *m, uint64_t va, struct mirror_class *c, struct err *e)
{
	const struct art_layout *l = m->l;
	const unsigned n = l->klass.size;
	uint8_t buf[512];
	int rc;

	memset(c, 0, sizeof(*c));
	c->addr = va;
	if ((rc = read_fixed(m, va, n, buf, sizeof(buf), "class", e)))
		return rc;
	c->klass = f32(buf, n, l->object.klass);
	c->monitor = f32(buf, n, l->object.monitor);
	c->class_loader = f32(buf, n, l->klass.class_loader);
	c->component_type = f32(buf, n, l->klass.component_type);
	c->dex_cache = f32(buf, n, l->klass.dex_cache);
	c->name = f32(buf, n, l->klass.name);
	c->super_class = f32(buf, n, l->klass.super_class);
	c->access_flags = f32(buf, n, l->klass.access_flags);
	c->class_flags = f32(buf, n, l->klass.class_flags);
	c->class_size = f32(buf, n, l->klass.class_size);
	c->object_size = f32(buf, n, l->klass.object_size);
	c->primitive_type = f32(buf, n, l->klass.primitive_type);
	c->reference_instance_offsets = f32(buf, n, l->klass.reference_instance_offsets);
	c->num_reference_instance_fields = f32(buf, n, l->klass.num_reference_instance_fields);
	c->dex_class_def_idx = f32(buf, n, l->klass.dex_class_def_idx);
	c->dex_type_idx = f32(buf, n, l->klass.dex_type_idx);
	uint32_t st = f32(buf, n, l->klass.status);
	c->status = l->klass.status_shift ? st >> l->klass.status_shift : st;
	/* 5.x: ifields_ is a reference to an ObjectArray<ArtField>; 6.0+: a u64 native pointer */
	if (l->field_storage == ART_FIELDS_OBJECT_ARRAY)
		c->ifields = f32(buf, n, l->klass.ifields);
	else
		c->ifields = f64(buf, n, l->klass.ifields);
	c->methods = f64(buf, n, l->klass.methods);
	c->sfields = f64(buf, n, l->klass.sfields);
	return 0;
}

static bool ref_ok(uint32_t ref) { return mirror_ref_aligned(ref); }

/* The object at ref (non-zero) is a Class, or lies where the image has no bytes (another
 * boot image component, memory not captured): only a readable non-Class refutes it. */
static bool may_be_class_ref(const struct mirror *m, uint32_t ref, uint64_t jlc)
{
	uint32_t k;
	if (!ref_ok(ref))
		return false;
	return !mirror_peek_u32(m, (uint64_t)ref + m->l->object.klass, &k) || k == jlc;
}

/* The checks of a Class candidate, each on one field (so that one damaged word fails one). */
static bool status_ok(const struct art_layout *l, const struct mirror_class *c)
{
	int32_t status = (int32_t)c->status;
	return status >= l->klass.status_min && status <= l->klass.status_max;
}

unsigned mirror_class_misfits(const struct mirror *m, const struct mirror_class *c, uint64_t jlc, const char **what)
{
	const struct art_layout *l = m->l;
	const struct { bool ok; const char *field; } check[] = {
		{ !c->super_class || may_be_class_ref(m, c->super_class, jlc), "super_class_" },
		{ !c->component_type || may_be_class_ref(m, c->component_type, jlc), "component_type_" },
		{ ref_ok(c->dex_cache), "dex_cache_" },
		{ ref_ok(c->name), "name_" },
		{ ref_ok(c->class_loader), "class_loader_" },
		{ status_ok(l, c), "status_" },
		{ (c->primitive_type & l->klass.primitive_mask) <= PRIM_VOID, "primitive_type_" },
		{ c->object_size <= MIRROR_MAX_OBJECT_SIZE, "object_size_" },
		/* class_size_ covers at least the fixed part for every Class, placeholders included */
		{ c->class_size >= l->klass.size && c->class_size <= MIRROR_MAX_CLASS_SIZE, "class_size_" },
	};
	unsigned n = c->klass == jlc ? 0 : 1;
	*what = n ? "klass_" : "";
	for (size_t i = 0; i < sizeof(check) / sizeof(check[0]); i++)
		if (!check[i].ok && n++ == 0)
			*what = check[i].field;
	return n;
}

bool mirror_class_damaged(const struct mirror *m, const struct mirror_class *c, uint64_t jlc, const char **what)
{
	unsigned anchors = 0;
	if (c->klass != jlc || mirror_class_misfits(m, c, jlc, what) != 1)
		return false;
	/* the fields that tie a Class to others: a zero-filled or foreign candidate has few */
	anchors += c->super_class && may_be_class_ref(m, c->super_class, jlc);
	anchors += c->component_type && may_be_class_ref(m, c->component_type, jlc);
	anchors += c->name && ref_ok(c->name);
	anchors += c->dex_cache && ref_ok(c->dex_cache);
	anchors += c->class_size >= m->l->klass.size && c->class_size <= MIRROR_MAX_CLASS_SIZE;
	/* a primitive class has none of those references, a primitive type and no class_def
	 * (ClassLinker::CreatePrimitiveClass, runtime/class_linker.cc @R11: kDexNoIndex16) */
	uint32_t prim = c->primitive_type & m->l->klass.primitive_mask;
	anchors += !c->super_class && !c->component_type && prim >= 1 && prim <= 8 && c->dex_class_def_idx == 0xffffu;
	return anchors >= 2;
}

void mirror_class_repair(const struct mirror *m, struct mirror_class *c, const char *what)
{
	const struct art_layout *l = m->l;
	if (!strcmp(what, "super_class_"))
		c->super_class = 0;
	else if (!strcmp(what, "component_type_"))
		c->component_type = 0;
	else if (!strcmp(what, "dex_cache_"))
		c->dex_cache = 0;
	else if (!strcmp(what, "name_"))
		c->name = 0;
	else if (!strcmp(what, "class_loader_"))
		c->class_loader = 0;
	else if (!strcmp(what, "status_"))
		c->status = (uint32_t)l->klass.status_max;
	else if (!strcmp(what, "primitive_type_"))
		c->primitive_type = 0;
	else if (!strcmp(what, "object_size_"))
		c->object_size = 0;
	else if (!strcmp(what, "class_size_"))
		c->class_size = l->klass.size;
}

bool mirror_class_plausible(const struct mirror *m, const struct mirror_class *c, uint64_t jlc)
{
	const char *what;
	return mirror_class_misfits(m, c, jlc, &what) == 0;
}

bool mirror_class_retired(const struct mirror *m, const struct mirror_class *c)
{
	return (int32_t)c->status == m->l->klass.status_retired;
}

/* ---- arrays ---- */

unsigned mirror_component_size(uint32_t primitive_type)
{
	/* kPrimNot, Boolean, Byte, Char, Short, Int, Long, Float, Double (runtime/primitive.h) */
	static const unsigned sizes[] = { 4, 1, 1, 2, 2, 4, 8, 4, 8 };
	return primitive_type < sizeof(sizes) / sizeof(sizes[0]) ? sizes[primitive_type] : 0;
}

unsigned mirror_array_data_offset(const struct art_layout *l, unsigned component_size)
{
	unsigned first = l->array.length + 4, cs = component_size ? component_size : 1;
	return (first + cs - 1) / cs * cs;
}

uint64_t mirror_array_size(const struct art_layout *l, unsigned component_size, uint32_t length)
{
	return mirror_array_data_offset(l, component_size) + (uint64_t)length * component_size;
}

int mirror_array_length(const struct mirror *m, uint64_t va, uint32_t *length, struct err *e)
{
	uint32_t n;
	int rc = mirror_u32(m, va + m->l->array.length, &n, e);
	if (rc)
		return rc;
	if (n > INT32_MAX)
		return ERR_SET(e, ERR_CORRUPT, va, "array at 0x%llx: negative length %d", (unsigned long long)va,
			       (int32_t)n);
	*length = n;
	return 0;
}

int mirror_array_ref(const struct mirror *m, uint64_t va, uint32_t i, uint32_t *ref, struct err *e)
{
	uint32_t n;
	int rc = mirror_array_length(m, va, &n, e);
	if (rc)
		return rc;
	if (i >= n)
		return ERR_SET(e, ERR_CORRUPT, va, "array at 0x%llx: index %u past its length %u",
			       (unsigned long long)va, i, n);
	return mirror_u32(m, va + mirror_array_data_offset(m->l, 4) + 4ull * i, ref, e);
}

/* ---- strings ---- */

/* UTF-16 units -> UTF-8.  An unpaired surrogate becomes U+FFFD, or with keep_lone its own
 * 3-byte sequence (WTF-8: the text survives for writers that can escape it, e.g. JSON). */
static void utf16_to_utf8(const uint8_t *p, size_t units, bool keep_lone, struct wbuf *out)
{
	for (size_t i = 0; i < units; i++) {
		uint32_t u = ld_u16le(p + 2 * i);
		if (u >= 0xd800 && u < 0xdc00 && i + 1 < units) {
			uint32_t lo = ld_u16le(p + 2 * i + 2);
			if (lo >= 0xdc00 && lo < 0xe000) {
				wbuf_utf8(out, 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00));
				i++;
				continue;
			}
		}
		wbuf_utf8(out, u >= 0xd800 && u < 0xe000 && !keep_lone ? 0xfffd : u);
	}
}

/* count_ -> length and compression (string.h @ 8.0: count_ = length << 1 | flag, flag 0 =
 * compressed); -ERR_CORRUPT for a negative count_. */
static int string_count(const struct art_layout *l, uint64_t va, uint32_t count, uint32_t *length,
			bool *compressed, struct err *e)
{
	if (count > INT32_MAX)
		return ERR_SET(e, ERR_CORRUPT, va, "string at 0x%llx: negative count %d", (unsigned long long)va,
			       (int32_t)count);
	*length = l->string.compressible ? count >> 1 : count;
	*compressed = l->string.compressible && (count & 1) == 0;
	return 0;
}

int mirror_string_size(const struct art_layout *l, uint64_t va, uint32_t count, uint64_t *size, struct err *e)
{
	uint32_t n = 0;
	bool comp = false;
	int rc = string_count(l, va, count, &n, &comp, e);
	if (rc)
		return rc;
	if (l->string.value == ART_ABSENT)
		*size = l->string.size;
	else
		*size = l->string.value + (uint64_t)n * (comp ? 1 : UTF16_UNIT);
	return 0;
}

/* 5.x: the chars are count_ elements of the char[] array_ from index offset_. */
static int string_chars_5x(const struct mirror *m, struct mirror_string *s, struct err *e)
{
	const struct art_layout *l = m->l;
	uint32_t alen, off;
	int rc;

	if ((rc = mirror_u32(m, s->addr + l->string.array, &s->array, e)) ||
	    (rc = mirror_u32(m, s->addr + l->string.offset, &off, e)))
		return rc;
	if (s->array == 0 && s->length == 0 && off == 0)
		return 0; /* an empty string needs no chars */
	if (s->array == 0 || !mirror_ref_aligned(s->array))
		return ERR_SET(e, ERR_CORRUPT, s->addr, "string at 0x%llx: array_ 0x%x is not an object reference",
			       (unsigned long long)s->addr, s->array);
	if ((rc = mirror_array_length(m, s->array, &alen, e)))
		return err_prefix(e, "string at 0x%llx", (unsigned long long)s->addr);
	if (off > alen || s->length > alen - off)
		return ERR_SET(e, ERR_CORRUPT, s->addr, "string at 0x%llx: chars [%u, +%u) outside its char[%u] at 0x%x",
			       (unsigned long long)s->addr, off, s->length, alen, s->array);
	s->offset = off;
	s->chars = s->array + mirror_array_data_offset(l, UTF16_UNIT) + (uint64_t)UTF16_UNIT * off;
	return 0;
}

int mirror_string_read(const struct mirror *m, uint64_t va, size_t max_chars, struct mirror_string *s,
		       struct err *e)
{
	const struct art_layout *l = m->l;
	uint32_t count;
	int rc;

	memset(s, 0, sizeof(*s));
	s->addr = va;
	if ((rc = mirror_u32(m, va + l->string.count, &count, e)) ||
	    (rc = mirror_u32(m, va + l->string.hash, &s->hash, e)) ||
	    (rc = string_count(l, va, count, &s->length, &s->compressed, e)))
		return rc;
	if (s->length > max_chars)
		return ERR_SET(e, ERR_CORRUPT, va, "string at 0x%llx: length %u exceeds %zu", (unsigned long long)va,
			       s->length, max_chars);
	if (l->string.value == ART_ABSENT)
		return string_chars_5x(m, s, e);
	s->chars = va + l->string.value;
	return 0;
}

bool mirror_string_loaded(const struct mirror *m, uint64_t va)
{
	const struct art_layout *l = m->l;
	uint32_t count, length, array, off, alen;
	bool comp = false;

	if (!mirror_readable(m, va, l->string.size) || !mirror_peek_u32(m, va + l->string.count, &count))
		return false;
	if (count > INT32_MAX)
		return true; /* corrupt, not missing */
	length = l->string.compressible ? count >> 1 : count;
	comp = l->string.compressible && (count & 1) == 0;
	if (l->string.value != ART_ABSENT)
		return mirror_readable(m, va + l->string.value, comp ? length : (size_t)length * UTF16_UNIT);
	if (!mirror_peek_u32(m, va + l->string.array, &array) || !mirror_peek_u32(m, va + l->string.offset, &off))
		return false;
	if (array == 0 || !mirror_ref_aligned(array))
		return true;
	if (!mirror_peek_u32(m, (uint64_t)array + l->array.length, &alen))
		return false;
	if (alen > INT32_MAX || off > alen || length > alen - off)
		return true;
	return mirror_readable(m, array + mirror_array_data_offset(l, UTF16_UNIT) + (uint64_t)UTF16_UNIT * off,
			       (size_t)length * UTF16_UNIT);
}

static int string_text(const struct mirror *m, uint64_t va, size_t max_chars, bool keep_lone, struct wbuf *out,
		       struct err *e)
{
	struct mirror_string s;
	struct cursor c;
	int rc;

	if ((rc = mirror_string_read(m, va, max_chars, &s, e)))
		return rc;
	if (s.length == 0)
		return wbuf_status(out, e); /* 5.x: an empty string may have no char[] */
	rc = img_view(m->img, s.chars, s.compressed ? s.length : (size_t)s.length * UTF16_UNIT, &c, e);
	if (rc)
		return err_prefix(e, "chars of the string at 0x%llx", (unsigned long long)va);
	if (s.compressed) {
		for (size_t i = 0; i < s.length; i++)
			wbuf_utf8(out, c.base[i]);
	} else {
		utf16_to_utf8(c.base, s.length, keep_lone, out);
	}
	return wbuf_status(out, e);
}

int mirror_string(const struct mirror *m, uint64_t va, size_t max_chars, struct wbuf *out, struct err *e)
{
	return string_text(m, va, max_chars, false, out, e);
}

int mirror_string_wtf8(const struct mirror *m, uint64_t va, size_t max_chars, struct wbuf *out, struct err *e)
{
	return string_text(m, va, max_chars, true, out, e);
}

int mirror_class_name_string(const struct mirror *m, uint64_t name, size_t max_chars, struct wbuf *out,
			     struct err *e)
{
	size_t start = out->len;
	struct wbuf tmp;
	int rc;

	if ((rc = mirror_string(m, name, max_chars, out, e)))
		return rc;
	if (out->len == start || out->data[start] != '[')
		return 0;
	/* "[Lcom.x.Y;" -> "com.x.Y[]" */
	wbuf_init(&tmp);
	wbuf_put(&tmp, out->data + start, out->len - start);
	out->len = start;
	rc = wbuf_status(&tmp, e);
	if (rc == 0 && (rc = mirror_java_name(tmp.data, tmp.len, out, e)))
		err_prefix(e, "class name_ string at 0x%llx", (unsigned long long)name);
	wbuf_release(&tmp);
	return rc;
}

/* ---- DexCache, ClassLoader ---- */

int mirror_dex_cache_read(const struct mirror *m, uint64_t va, struct mirror_dex_cache *dc, struct err *e)
{
	const struct art_layout *l = m->l;
	const unsigned n = l->dex_cache.size;
	uint8_t buf[128];
	int rc;

	memset(dc, 0, sizeof(*dc));
	dc->addr = va;
	if ((rc = read_fixed(m, va, n, buf, sizeof(buf), "dex cache", e)))
		return rc;
	dc->location = f32(buf, n, l->dex_cache.location);
	dc->dex_file = f64(buf, n, l->dex_cache.dex_file);
	if (l->dex_cache.native_arrays) {
		dc->strings = f64(buf, n, l->dex_cache.strings);
		dc->resolved_types = f64(buf, n, l->dex_cache.resolved_types);
		dc->num_strings = f32(buf, n, l->dex_cache.num_strings);
		dc->num_resolved_types = f32(buf, n, l->dex_cache.num_resolved_types);
		dc->strings_array = f64(buf, n, l->dex_cache.strings_array);
	} else {
		/* 5.x/6.0: references to managed arrays (their length_ is the count) */
		dc->strings = f32(buf, n, l->dex_cache.strings);
		dc->resolved_types = f32(buf, n, l->dex_cache.resolved_types);
	}
	return 0;
}

enum { MIRROR_DEX_STRING_IDS_SIZE = 56 };   /* libdexfile/dex/dex_file.h @R14U Header */

int mirror_dex_cache_string_ids(const struct mirror *m, const struct mirror_dex_cache *dc, uint32_t *n,
				struct err *e)
{
	uint64_t begin;
	int rc;

	*n = 0;
	if (!dc->dex_file)
		return ERR_SET(e, ERR_CORRUPT, dc->addr, "dex cache at 0x%llx: no dex_file_",
			       (unsigned long long)dc->addr);
	if ((rc = mirror_ptr(m, dc->dex_file + (uint64_t)m->l->dex_file.begin_slot * m->pointer_size, &begin, e)))
		return rc;
	if (begin > UINT64_MAX - MIRROR_DEX_STRING_IDS_SIZE)
		return ERR_SET(e, ERR_CORRUPT, dc->dex_file, "DexFile at 0x%llx: begin_ 0x%llx out of range",
			       (unsigned long long)dc->dex_file, (unsigned long long)begin);
	return mirror_u32(m, begin + MIRROR_DEX_STRING_IDS_SIZE, n, e);
}

int mirror_class_loader_read(const struct mirror *m, uint64_t va, struct mirror_class_loader *cl, struct err *e)
{
	const struct art_layout *l = m->l;
	const unsigned n = l->class_loader.size;
	uint8_t buf[64];
	int rc;

	memset(cl, 0, sizeof(*cl));
	cl->addr = va;
	if ((rc = read_fixed(m, va, n, buf, sizeof(buf), "class loader", e)))
		return rc;
	cl->packages = f32(buf, n, l->class_loader.packages);
	cl->parent = f32(buf, n, l->class_loader.parent);
	cl->proxy_cache = f32(buf, n, l->class_loader.proxy_cache);
	cl->allocator = f64(buf, n, l->class_loader.allocator);
	cl->class_table = f64(buf, n, l->class_loader.class_table);
	return 0;
}

const char *mirror_primitive_name(uint32_t type)
{
	static const char *const names[] = { NULL, "boolean", "byte", "char", "short", "int",
					     "long", "float", "double", "void" };
	return type < sizeof(names) / sizeof(names[0]) ? names[type] : NULL;
}

const char *mirror_descriptor_primitive_name(char ch)
{
	switch (ch) {
	case 'Z': return "boolean";
	case 'B': return "byte";
	case 'C': return "char";
	case 'S': return "short";
	case 'I': return "int";
	case 'J': return "long";
	case 'F': return "float";
	case 'D': return "double";
	case 'V': return "void";
	default: return NULL;
	}
}

int mirror_java_name(const uint8_t *d, size_t n, struct wbuf *out, struct err *e)
{
	size_t dims = 0;
	while (dims < n && d[dims] == '[')
		dims++;
	if (dims == n || dims > 255)
		goto bad;
	const uint8_t *t = d + dims;
	size_t tn = n - dims;
	if (t[0] == 'L') {
		if (tn < 3 || t[tn - 1] != ';')
			goto bad;
		for (size_t i = 1; i < tn - 1; i++)
			wbuf_u8(out, t[i] == '/' ? '.' : t[i]);
	} else {
		const char *p = mirror_descriptor_primitive_name((char)t[0]);
		if (!p || tn != 1 || (dims && t[0] == 'V'))
			goto bad;
		wbuf_put(out, p, strlen(p));
	}
	for (size_t i = 0; i < dims; i++)
		wbuf_put(out, "[]", 2);
	return wbuf_status(out, e);
bad:
	return ERR_SET(e, ERR_CORRUPT, ERR_NO_VA, "malformed type descriptor \"%.*s\"",
		       (int)(n > 64 ? 64 : n), (const char *)d);
}

unsigned mirror_field_size(uint8_t ch)
{
	switch (ch) {
	case 'J': case 'D': return 8;
	case 'I': case 'F': return 4;
	case 'C': case 'S': return 2;
	case 'Z': case 'B': return 1;
	default: return 4;  /* L... and [... : 32-bit heap reference */
	}
}
