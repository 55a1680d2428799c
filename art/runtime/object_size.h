/* object_size.h - the size of a heap object from its class, as ART's Object::SizeOf does
 * (runtime/mirror/object-inl.h, class-inl.h, array-inl.h, string-inl.h):
 *   a Class object (its class is java.lang.Class): its own class_size_;
 *   an array (its class has a component type): the data offset (length_ + 4 rounded up to
 *     the component size) + length * component size (4 for references);
 *   a String with inline characters (6.0+): value_ offset + count characters of 2 bytes,
 *     or of 1 byte when compressed (8.0+: count_ = length << 1 | 1 for UTF-16);
 *   any other object, a 5.x String included: its class's object_size_.
 * The size is SizeOf() itself; objects are laid out at RoundUp(size, 8) (kObjectAlignment).
 * Classes come from the runtime model (runtime_class_at): a class word that names no known
 * class is an error, never a guess. */
#ifndef ARTCARVE_OBJECT_SIZE_H
#define ARTCARVE_OBJECT_SIZE_H

#include <stddef.h>
#include <stdint.h>

#include "art/runtime/runtime.h"
#include "carver/base/err.h"

#define RT_SIZER_CACHE 256u

/* A sizer for many objects: java.lang.String found once, classes cached by address. */
struct rt_sizer {
	const struct art_runtime *rt;
	uint64_t jls;                  /* java.lang.String's Class, 0 when unknown */
	struct { uint32_t addr; const struct rt_class *k; } cache[RT_SIZER_CACHE];
};

void runtime_sizer_init(struct rt_sizer *z, const struct art_runtime *rt);
/* The class named by a class word, NULL if none (cached runtime_class_at). */
const struct rt_class *runtime_sizer_class(struct rt_sizer *z, uint32_t klass);
/* Size of the object at addr whose first avail bytes are p (a view of the image). Returns 0,
 * -ERR_CORRUPT (the class word names no class, a negative length, a size below an object
 * header) or -ERR_TRUNC (the fields that give the size are past avail). */
int runtime_sizer_size(struct rt_sizer *z, uint64_t addr, const uint8_t *p, size_t avail, uint64_t *size,
		       struct err *e);
/* Size of the object at addr, read from rt's image (-ERR_UNMAPPED when not captured).  For
 * one object; walks over many use a sizer (this one looks java.lang.String up each call). */
int runtime_object_size(const struct art_runtime *rt, uint64_t addr, uint64_t *size, struct err *e);

#endif
