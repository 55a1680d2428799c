/* mirror.h - decoding mirror objects (Object header, Class, String, DexCache) at a virtual
 * address of a process image, with the offsets of one art_layout row.
 *
 * Every read goes through img_read (bounded; -ERR_UNMAPPED when a byte is not captured);
 * nothing here trusts a value it read: references are only followed by callers, after
 * the checks they need.  Heap references are 32-bit; native pointers are read with the
 * process pointer size. */
#ifndef ARTCARVE_MIRROR_H
#define ARTCARVE_MIRROR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "art/format/art_layout.h"
#include "carver/base/err.h"
#include "carver/image/image.h"
#include "carver/base/wbuf.h"

struct mirror {
	const struct image *img;
	const struct art_layout *l;
	unsigned pointer_size;      /* 4 or 8 */
};

/* lock word states (runtime/lock_word.h: bits 31-30) */
enum { MIRROR_LOCK_THIN = 0, MIRROR_LOCK_FAT = 1, MIRROR_LOCK_HASH = 2, MIRROR_LOCK_FORWARD = 3 };

int mirror_u8(const struct mirror *m, uint64_t va, uint8_t *v, struct err *e);
int mirror_u16(const struct mirror *m, uint64_t va, uint16_t *v, struct err *e);
int mirror_u32(const struct mirror *m, uint64_t va, uint32_t *v, struct err *e);
int mirror_u64(const struct mirror *m, uint64_t va, uint64_t *v, struct err *e);
/* A native pointer of the process's width. */
int mirror_ptr(const struct mirror *m, uint64_t va, uint64_t *v, struct err *e);
/* The class reference of the object at va. */
int mirror_klass(const struct mirror *m, uint64_t va, uint32_t *klass, struct err *e);

/* The data members of a Class object that the runtime model uses (ART_ABSENT fields read 0). */
struct mirror_class {
	uint64_t addr;
	uint32_t klass, monitor, class_loader, component_type, dex_cache, name, super_class;
	uint64_t ifields, methods, sfields;        /* native pointers (u64 fields from 6.0) */
	uint32_t access_flags, class_flags, class_size, object_size, primitive_type, status,
		 reference_instance_offsets, num_reference_instance_fields;
	uint32_t dex_class_def_idx, dex_type_idx;  /* as stored (i32; 0xffffffff = none) */
};
/* Reads the fixed part of the Class at va; status is already shifted, primitive_type masked. */
int mirror_class_read(const struct mirror *m, uint64_t va, struct mirror_class *c, struct err *e);
/* True when c looks like a Class whose class is jlc: references 8-aligned, referenced
 * super/component classes have class jlc where the image holds them, status, primitive
 * type and sizes in range. */
bool mirror_class_plausible(const struct mirror *m, const struct mirror_class *c, uint64_t jlc);
/* True when the class is retired (a placeholder replaced during linking). */
bool mirror_class_retired(const struct mirror *m, const struct mirror_class *c);

/* Appends the UTF-8 value of the java.lang.String at va (compressed 8-bit or UTF-16;
 * unpaired surrogates become U+FFFD).  max_chars bounds the length accepted. */
int mirror_string(const struct mirror *m, uint64_t va, size_t max_chars, struct wbuf *out, struct err *e);

/* Java name of a type descriptor: "I" -> "int", "[Ljava/lang/String;" -> "java.lang.String[]",
 * "Lcom/x/Y$Z;" -> "com.x.Y$Z".  Appends to out; -ERR_CORRUPT for a malformed descriptor. */
int mirror_java_name(const uint8_t *d, size_t n, struct wbuf *out, struct err *e);
/* Name of a Primitive::Type value (1..9), NULL otherwise. */
const char *mirror_primitive_name(uint32_t type);
/* Size in bytes of a field of this descriptor's type: J/D 8, I/F 4, C/S 2, Z/B 1, L/[ 4. */
unsigned mirror_field_size(uint8_t descriptor0);

#endif
