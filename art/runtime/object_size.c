/* object_size.c - Object::SizeOf over the runtime model (see object_size.h). */
#include "art/runtime/object_size.h"

#include <string.h>

#include "art/mirror/mirror.h"
#include "carver/base/cursor.h"

enum { OBJ_HEADER = 8 };

void runtime_sizer_init(struct rt_sizer *z, const struct art_runtime *rt)
{
	memset(z, 0, sizeof(*z));
	z->rt = rt;
	if (rt->layout && rt->layout->string.value == ART_ABSENT)
		return; /* 5.x: a String is an ordinary instance (its chars are in a char[]) */
	size_t jls = runtime_string_class(rt);
	if (jls != RT_NONE)
		z->jls = rt->classes[jls].addr;
}

const struct rt_class *runtime_sizer_class(struct rt_sizer *z, uint32_t klass)
{
	unsigned slot = (klass >> 3) % RT_SIZER_CACHE;
	if (klass && z->cache[slot].addr == klass)
		return z->cache[slot].k;
	const struct rt_class *k = klass ? runtime_class_at(z->rt, klass) : NULL;
	if (k) {
		z->cache[slot].addr = klass;
		z->cache[slot].k = k;
	}
	return k;
}

static int need(uint64_t addr, size_t n, size_t avail, const char *what, struct err *e)
{
	if (n > avail)
		return ERR_SET(e, ERR_TRUNC, addr, "object at 0x%llx: its %s is past the %zu bytes available",
			       (unsigned long long)addr, what, avail);
	return 0;
}

/* The array class's own name as the second source of its component when the component Class
 * is not known (damaged): "T[]" with T no primitive type holds references (kPrimNot). */
static bool refs_by_name(const struct rt_class *k)
{
	static const char *const prims[] = { "boolean[]", "byte[]", "char[]", "short[]", "int[]", "long[]",
					     "float[]", "double[]" };
	size_t n = k->name ? strlen(k->name) : 0;
	if (n < 3 || strcmp(k->name + n - 2, "[]"))
		return false;
	for (size_t i = 0; i < sizeof(prims) / sizeof(prims[0]); i++)
		if (!strcmp(k->name, prims[i]))
			return false;
	return true;
}

static int array_size(struct rt_sizer *z, const struct rt_class *k, uint64_t addr, const uint8_t *p, size_t avail,
		      uint64_t *size, struct err *e)
{
	const struct art_layout *l = z->rt->layout;
	const struct rt_class *c = runtime_sizer_class(z, k->raw.component_type);
	unsigned cs;
	uint32_t len, prim;
	int rc;

	if (!c && !refs_by_name(k))
		return ERR_SET(e, ERR_CORRUPT, addr, "array at 0x%llx: component class 0x%x of class 0x%llx is not known",
			       (unsigned long long)addr, k->raw.component_type, (unsigned long long)k->addr);
	/* 6.0+: the high half of primitive_type_ is log2 of the component size */
	prim = c ? c->raw.primitive_type & l->klass.primitive_mask : 0;
	if (!(cs = mirror_component_size(prim)))
		return ERR_SET(e, ERR_CORRUPT, addr, "array at 0x%llx: component class 0x%llx has primitive type %u",
			       (unsigned long long)addr, (unsigned long long)c->addr, prim);
	if ((rc = need(addr, (size_t)l->array.length + 4, avail, "array length", e)))
		return rc;
	len = ld_u32le(p + l->array.length);
	if (len > INT32_MAX)
		return ERR_SET(e, ERR_CORRUPT, addr, "array at 0x%llx: negative length %d", (unsigned long long)addr,
			       (int32_t)len);
	*size = mirror_array_size(l, cs, len);
	return 0;
}

static int string_size(const struct art_layout *l, uint64_t addr, const uint8_t *p, size_t avail, uint64_t *size,
		       struct err *e)
{
	int rc = need(addr, (size_t)l->string.count + 4, avail, "String count_", e);
	return rc ? rc : mirror_string_size(l, addr, ld_u32le(p + l->string.count), size, e);
}

int runtime_sizer_size(struct rt_sizer *z, uint64_t addr, const uint8_t *p, size_t avail, uint64_t *size,
		       struct err *e)
{
	const struct art_runtime *rt = z->rt;
	const struct art_layout *l = rt->layout;
	const struct rt_class *k;
	uint32_t klass;
	int rc;

	if ((rc = need(addr, OBJ_HEADER, avail, "header", e)))
		return rc;
	klass = ld_u32le(p + l->object.klass);
	/* a Class the runtime model read is its own second source: its class word may be the
	 * damaged one, its class_size_ is repaired when damaged */
	k = runtime_sizer_class(z, klass);
	const struct rt_class *self = !k || klass == rt->java_lang_class ? runtime_sizer_class(z, (uint32_t)addr) : NULL;
	if (self && self->addr == addr) {
		klass = (uint32_t)rt->java_lang_class;
		k = runtime_sizer_class(z, klass);
	}
	if (!k)
		return ERR_SET(e, ERR_CORRUPT, addr, "object at 0x%llx: class word 0x%x names no known class",
			       (unsigned long long)addr, klass);
	if (klass == rt->java_lang_class) {
		if ((rc = need(addr, (size_t)l->klass.class_size + 4, avail, "class_size_", e)))
			return rc;
		*size = ld_u32le(p + l->klass.class_size);
		/* a Class the runtime model read with a damaged class_size_ has it repaired */
		if (self && self->addr == addr && *size < l->klass.size)
			*size = self->raw.class_size;
		if (*size < l->klass.size)
			return ERR_SET(e, ERR_CORRUPT, addr, "class at 0x%llx: class_size_ %llu is smaller than a Class (%u)",
				       (unsigned long long)addr, (unsigned long long)*size, l->klass.size);
		return 0;
	}
	if (k->raw.component_type)
		return array_size(z, k, addr, p, avail, size, e);
	if (z->jls && klass == z->jls)
		return string_size(l, addr, p, avail, size, e);
	*size = k->raw.object_size;
	if (*size < OBJ_HEADER)
		return ERR_SET(e, ERR_CORRUPT, addr, "object at 0x%llx: class 0x%x has object_size_ %u (no instances)",
			       (unsigned long long)addr, klass, k->raw.object_size);
	return 0;
}

int runtime_object_size(const struct art_runtime *rt, uint64_t addr, uint64_t *size, struct err *e)
{
	size_t rest;
	const uint8_t *p = img_span(rt->img, addr, 1, &rest);
	struct rt_sizer z;
	struct cursor c;

	if (!p)
		return img_view(rt->img, addr, OBJ_HEADER, &c, e); /* fails: names the address */
	runtime_sizer_init(&z, rt);
	return runtime_sizer_size(&z, addr, p, rest, size, e);
}
