/* mirror.c - mirror object decoding (see mirror.h). */
#include "art/mirror/mirror.h"

#include <string.h>

#include "carver/base/cursor.h"

enum {
	MIRROR_MAX_CLASS_SIZE = 1 << 24,   /* sanity bound on Class.class_size_ */
	MIRROR_MAX_OBJECT_SIZE = 1 << 30,
	PRIM_VOID = 9,                     /* Primitive::kPrimVoid, runtime/primitive.h */
};

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

int mirror_klass(const struct mirror *m, uint64_t va, uint32_t *klass, struct err *e)
{
	return mirror_u32(m, va + m->l->object.klass, klass, e);
}

int mirror_class_read(const struct mirror *m, uint64_t va, struct mirror_class *c, struct err *e)
{
	const struct art_layout *l = m->l;
	uint8_t buf[512];
	int rc;

	memset(c, 0, sizeof(*c));
	c->addr = va;
	/* one bounded read of the fixed part; fields are then taken from the copy */
	if (l->klass.size > sizeof(buf))
		return ERR_SET(e, ERR_INTERNAL, va, "class layout %s larger than %zu bytes", l->family, sizeof(buf));
	rc = img_read(m->img, va, buf, l->klass.size, e);
	if (rc)
		return rc;
#define F32(off) ((off) == ART_ABSENT || (off) + 4 > l->klass.size ? 0u : ld_u32le(buf + (off)))
#define F64(off) ((off) == ART_ABSENT || (off) + 8 > l->klass.size ? 0u : ld_u64le(buf + (off)))
	c->klass = F32(l->object.klass);
	c->monitor = F32(l->object.monitor);
	c->class_loader = F32(l->klass.class_loader);
	c->component_type = F32(l->klass.component_type);
	c->dex_cache = F32(l->klass.dex_cache);
	c->name = F32(l->klass.name);
	c->super_class = F32(l->klass.super_class);
	c->access_flags = F32(l->klass.access_flags);
	c->class_flags = F32(l->klass.class_flags);
	c->class_size = F32(l->klass.class_size);
	c->object_size = F32(l->klass.object_size);
	c->primitive_type = F32(l->klass.primitive_type);
	c->reference_instance_offsets = F32(l->klass.reference_instance_offsets);
	c->num_reference_instance_fields = F32(l->klass.num_reference_instance_fields);
	c->dex_class_def_idx = F32(l->klass.dex_class_def_idx);
	c->dex_type_idx = F32(l->klass.dex_type_idx);
	uint32_t st = F32(l->klass.status);
	c->status = l->klass.status_shift ? st >> l->klass.status_shift : st;
	if (l->field_storage == ART_FIELDS_OBJECT_ARRAY)
		c->ifields = F32(l->klass.ifields);
	else
		c->ifields = F64(l->klass.ifields);
	c->methods = F64(l->klass.methods);
	c->sfields = F64(l->klass.sfields);
#undef F32
#undef F64
	return 0;
}

static bool ref_ok(uint32_t ref) { return (ref & 7) == 0; }

/* The object at ref (non-zero) is a Class, or lies where the image has no bytes (another
 * boot image component, memory not captured): only a readable non-Class refutes it. */
static bool may_be_class_ref(const struct mirror *m, uint32_t ref, uint64_t jlc)
{
	uint32_t k;
	if (!ref_ok(ref))
		return false;
	return mirror_klass(m, ref, &k, NULL) != 0 || k == jlc;
}

bool mirror_class_plausible(const struct mirror *m, const struct mirror_class *c, uint64_t jlc)
{
	const struct art_layout *l = m->l;
	int32_t status = (int32_t)c->status;
	uint32_t prim = c->primitive_type & l->klass.primitive_mask;

	if (c->klass != jlc || !ref_ok(c->super_class) || !ref_ok(c->component_type) ||
	    !ref_ok(c->dex_cache) || !ref_ok(c->name) || !ref_ok(c->class_loader))
		return false;
	if (status < l->klass.status_min || status > l->klass.status_max || prim > PRIM_VOID)
		return false;
	if (c->object_size > MIRROR_MAX_OBJECT_SIZE || c->class_size > MIRROR_MAX_CLASS_SIZE)
		return false;
	/* class_size_ covers at least the fixed part for every Class, placeholders included */
	if (c->class_size < l->klass.size)
		return false;
	if (c->super_class && !may_be_class_ref(m, c->super_class, jlc))
		return false;
	if (c->component_type && !may_be_class_ref(m, c->component_type, jlc))
		return false;
	return true;
}

bool mirror_class_retired(const struct mirror *m, const struct mirror_class *c)
{
	return (int32_t)c->status == m->l->klass.status_retired;
}

static void utf16_to_utf8(const uint8_t *p, size_t units, struct wbuf *out)
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
		wbuf_utf8(out, u >= 0xd800 && u < 0xe000 ? 0xfffd : u);
	}
}

int mirror_string(const struct mirror *m, uint64_t va, size_t max_chars, struct wbuf *out, struct err *e)
{
	const struct art_layout *l = m->l;
	uint32_t count;
	size_t len, bytes;
	bool wide = true;
	struct cursor c;
	int rc;

	rc = mirror_u32(m, va + l->string.count, &count, e);
	if (rc)
		return rc;
	if (l->string.compressible) {
		len = count >> 1;             /* count_ = length << 1 | (0 compressed, 1 UTF-16) */
		wide = (count & 1) != 0;
	} else {
		len = count;
	}
	if ((int32_t)count < 0 || len > max_chars)
		return ERR_SET(e, ERR_CORRUPT, va, "string at 0x%llx: length %zu exceeds %zu",
			       (unsigned long long)va, len, max_chars);
	bytes = wide ? 2 * len : len;
	rc = img_view(m->img, va + l->string.value, bytes, &c, e);
	if (rc)
		return rc;
	if (wide) {
		utf16_to_utf8(c.base, len, out);
	} else {
		for (size_t i = 0; i < len; i++)
			wbuf_utf8(out, c.base[i]);
	}
	return wbuf_status(out, e);
}

const char *mirror_primitive_name(uint32_t type)
{
	static const char *const names[] = { NULL, "boolean", "byte", "char", "short", "int",
					     "long", "float", "double", "void" };
	return type < sizeof(names) / sizeof(names[0]) ? names[type] : NULL;
}

static const char *primitive_of_descriptor(uint8_t ch)
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
		const char *p = primitive_of_descriptor(t[0]);
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
