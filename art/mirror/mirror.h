/* mirror.h - the one decoder of mirror objects (Object header, Class, Array, String,
 * DexCache, ClassLoader) at a virtual address of a process image, with the offsets of one
 * art_layout row (art/format/art_layout.c).
 *
 * Every read goes through img_read/img_view (bounded; -ERR_UNMAPPED when a byte is not
 * captured); nothing here trusts a value it read: lengths and counts are checked before
 * use, and references are only followed by callers, after the checks they need.  Heap
 * references are 32-bit; native pointers are read with the process pointer size.  The
 * image may hold a whole process (an ELF core) or only ART image files mapped at their
 * image_begin (art/runtime/art_image_set.h); the decoder does not care which.
 *
 * Returns: 0, or -ERR_UNMAPPED (bytes not captured), -ERR_CORRUPT (a value the format
 * forbids: negative length, index past the end, misaligned reference), -ERR_NOMEM (out
 * buffer), each with e naming the address.  mirror_readable answers "are these bytes
 * there" without an error ("not this" is not an error). */
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
	const struct image *img;    /* borrowed */
	const struct art_layout *l;
	unsigned pointer_size;      /* 4 or 8 */
};

/* lock word states (runtime/lock_word.h: bits 31-30) */
enum { MIRROR_LOCK_THIN = 0, MIRROR_LOCK_FAT = 1, MIRROR_LOCK_HASH = 2, MIRROR_LOCK_FORWARD = 3 };
/* objects are 8-aligned (kObjectAlignment, runtime/runtime_globals.h) */
enum { MIRROR_OBJECT_ALIGN = 8 };

/* True when every byte of [va, va + len) is captured. */
bool mirror_readable(const struct mirror *m, uint64_t va, size_t len);
/* The u32 at va when its bytes are captured (true), false (and *v untouched) when not: a
 * probe for "is it loaded", which is not an error. */
bool mirror_peek_u32(const struct mirror *m, uint64_t va, uint32_t *v);

int mirror_u8(const struct mirror *m, uint64_t va, uint8_t *v, struct err *e);
int mirror_u16(const struct mirror *m, uint64_t va, uint16_t *v, struct err *e);
int mirror_u32(const struct mirror *m, uint64_t va, uint32_t *v, struct err *e);
int mirror_u64(const struct mirror *m, uint64_t va, uint64_t *v, struct err *e);
/* A native pointer of the process's width. */
int mirror_ptr(const struct mirror *m, uint64_t va, uint64_t *v, struct err *e);

/* ---- mirror::Object ---- */
struct mirror_object {
	uint32_t klass, monitor;
};
int mirror_object_read(const struct mirror *m, uint64_t va, struct mirror_object *o, struct err *e);
/* The class reference of the object at va. */
int mirror_klass(const struct mirror *m, uint64_t va, uint32_t *klass, struct err *e);
/* A non-null heap reference is 8-aligned; 0 (null) is not checked here. */
static inline bool mirror_ref_aligned(uint32_t ref) { return ref % MIRROR_OBJECT_ALIGN == 0; }

/* ---- mirror::Class ---- */
/* The data members of a Class object that the runtime model uses (ART_ABSENT fields read 0). */
struct mirror_class {
	uint64_t addr;
	uint32_t klass, monitor, class_loader, component_type, dex_cache, name, super_class;
	uint64_t ifields, methods, sfields;        /* native pointers (u64 fields from 6.0) */
	uint32_t access_flags, class_flags, class_size, object_size, primitive_type, status,
		 reference_instance_offsets, num_reference_instance_fields;
	uint32_t dex_class_def_idx, dex_type_idx;  /* as stored (i32; 0xffffffff = none) */
};
/* Reads the fixed part of the Class at va; status is already shifted, primitive_type as
 * stored (mask with l->klass.primitive_mask). */
int mirror_class_read(const struct mirror *m, uint64_t va, struct mirror_class *c, struct err *e);
/* True when c looks like a Class whose class is jlc: references 8-aligned, referenced
 * super/component classes have class jlc where the image holds them, status, primitive
 * type and sizes in range. */
bool mirror_class_plausible(const struct mirror *m, const struct mirror_class *c, uint64_t jlc);
/* The number of those checks c fails (its class word first), the first failing field's
 * name in *what ("" when none): one damaged word fails at most one. */
unsigned mirror_class_misfits(const struct mirror *m, const struct mirror_class *c, uint64_t jlc, const char **what);
/* True when c is a Class with one damaged field: its class word is jlc, exactly one check
 * fails (*what names the field) and at least two of the fields that tie it to other
 * objects hold (super and component classes, name_, dex_cache_, class_size_ in range). */
bool mirror_class_damaged(const struct mirror *m, const struct mirror_class *c, uint64_t jlc, const char **what);
/* Sets the damaged field what (a mirror_class_misfits name) to a neutral value: a null
 * reference, status initialized, primitive kPrimNot, object_size_ 0 (sized from the field
 * layout), class_size_ the fixed part. */
void mirror_class_repair(const struct mirror *m, struct mirror_class *c, const char *what);
/* True when the class is retired (a placeholder replaced during linking). */
bool mirror_class_retired(const struct mirror *m, const struct mirror_class *c);

/* ---- mirror::Array ---- */
/* Primitive::ComponentSize of a Primitive::Type (runtime/primitive.h): kPrimNot 4 (heap
 * reference), boolean/byte 1, char/short 2, int/float 4, long/double 8; 0 for void and
 * values outside the enum. */
unsigned mirror_component_size(uint32_t primitive_type);
/* mirror::Array::DataOffset: element 0 at RoundUp(length_ + 4, component size). */
unsigned mirror_array_data_offset(const struct art_layout *l, unsigned component_size);
/* SizeOf an array: DataOffset + length * component size (no overflow: 64-bit result). */
uint64_t mirror_array_size(const struct art_layout *l, unsigned component_size, uint32_t length);
/* length_ of the array at va; -ERR_CORRUPT when negative. */
int mirror_array_length(const struct mirror *m, uint64_t va, uint32_t *length, struct err *e);
/* Element i of the ObjectArray at va; -ERR_CORRUPT when i >= length_. */
int mirror_array_ref(const struct mirror *m, uint64_t va, uint32_t i, uint32_t *ref, struct err *e);

/* ---- java.lang.String ---- */
struct mirror_string {
	uint64_t addr;
	uint32_t length;            /* chars (UTF-16 units, or bytes when compressed) */
	bool compressed;            /* 8.0+: 8-bit chars */
	uint32_t hash;              /* hash_code_ as stored (0: not computed yet) */
	uint64_t chars;             /* address of char 0: inline, or inside the 5.x char[] */
	uint32_t array, offset;     /* 5.x: the char[] and the first char's index; else 0 */
};
/* SizeOf a String whose count_ is count: the fixed part plus the inline chars (8.0+: count_
 * = length << 1 | (1 UTF-16, 0 compressed)); 5.x: the fixed part (chars in the char[]).
 * -ERR_CORRUPT for a negative count_ (va names the string). */
int mirror_string_size(const struct art_layout *l, uint64_t va, uint32_t count, uint64_t *size, struct err *e);
/* Reads the String header at va: length, compression, where the chars are.  5.x: array_
 * must be a non-null aligned reference (unless the string is empty) whose length_ holds
 * [offset_, offset_ + count_); its length_ word must be readable.  -ERR_CORRUPT when
 * the length exceeds max_chars. */
int mirror_string_read(const struct mirror *m, uint64_t va, size_t max_chars, struct mirror_string *s,
		       struct err *e);
/* True when the String at va and its chars are captured (a String whose header holds
 * impossible values counts as captured: mirror_string then reports it as corrupt). */
bool mirror_string_loaded(const struct mirror *m, uint64_t va);
/* Appends the UTF-8 value of the String at va (compressed 8-bit or UTF-16, inline or 5.x
 * char[]; unpaired surrogates become U+FFFD).  max_chars bounds the length accepted. */
int mirror_string(const struct mirror *m, uint64_t va, size_t max_chars, struct wbuf *out, struct err *e);
/* As mirror_string, but an unpaired surrogate keeps its value, encoded as a 3-byte sequence
 * (WTF-8; ED A0 80..ED BF BF), so that a writer can escape it without loss (JSON \udXXX,
 * bulk_extractor's \xHH); the result is then not always valid UTF-8. */
int mirror_string_wtf8(const struct mirror *m, uint64_t va, size_t max_chars, struct wbuf *out, struct err *e);

/* Class.name_: the String Class.getName() caches ("java.lang.String", "int",
 * "[Ljava.lang.String;"; runtime/mirror/class.cc ComputeName) appended to out as the Java
 * name the tool prints everywhere ("java.lang.String[]": arrays through mirror_java_name).
 * -ERR_CORRUPT for a malformed array name, else as mirror_string. */
int mirror_class_name_string(const struct mirror *m, uint64_t name, size_t max_chars, struct wbuf *out,
			     struct err *e);

/* ---- java.lang.DexCache ---- */
struct mirror_dex_cache {
	uint64_t addr;
	uint32_t location;          /* String reference, 0 if none */
	uint64_t dex_file;          /* native art::DexFile*, 0 if none */
	uint64_t strings, resolved_types; /* 7.0+: native arrays; 5.x/6.0: array references */
	uint32_t num_strings, num_resolved_types; /* 7.0+ fields; 5.x/6.0: 0 (the count is the
						   * referenced array's length_) */
	uint64_t strings_array;     /* 14+: the full GcRoot<String> array (one entry per string
				     * id of the DexFile), 0 if none or before 14 */
};
int mirror_dex_cache_read(const struct mirror *m, uint64_t va, struct mirror_dex_cache *dc, struct err *e);
/* The string id count of the DexFile dc->dex_file points at: DexFile.begin_ (pointer slot
 * layout dex_file.begin_slot) -> the DEX header's string_ids_size (header offset 56,
 * libdexfile/dex/dex_file.h @R14U Header; compact dex shares that prefix).  14+ DexCaches
 * carry no counts.  -ERR_UNMAPPED / -ERR_CORRUPT when a pointer does not read. */
int mirror_dex_cache_string_ids(const struct mirror *m, const struct mirror_dex_cache *dc, uint32_t *n,
				struct err *e);

/* ---- java.lang.ClassLoader ---- */
struct mirror_class_loader {
	uint64_t addr;
	uint32_t packages, parent, proxy_cache;  /* references */
	uint64_t allocator, class_table;         /* 7.0+ native pointers; 0 before */
};
int mirror_class_loader_read(const struct mirror *m, uint64_t va, struct mirror_class_loader *cl, struct err *e);

/* ---- names ---- */
/* Java name of a type descriptor: "I" -> "int", "[Ljava/lang/String;" -> "java.lang.String[]",
 * "Lcom/x/Y$Z;" -> "com.x.Y$Z".  Appends to out; -ERR_CORRUPT for a malformed descriptor. */
int mirror_java_name(const uint8_t *d, size_t n, struct wbuf *out, struct err *e);
/* Name of a Primitive::Type value (1..9), NULL otherwise. */
const char *mirror_primitive_name(uint32_t type);
/* Size in bytes of a field of this descriptor's type: J/D 8, I/F 4, C/S 2, Z/B 1, L/[ 4. */
unsigned mirror_field_size(uint8_t descriptor0);

/* Java name of a primitive type descriptor character ("int" for 'I', "void" for 'V'), NULL
 * for any other character. */
const char *mirror_descriptor_primitive_name(char ch);

#endif
