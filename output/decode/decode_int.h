/* decode_int.h - the decoder's own state, shared by its files (decode.c: plans and values,
 * decode_entries.c: containers, decode_out.c: JSON and text). */
#ifndef ARTCARVE_DECODE_INT_H
#define ARTCARVE_DECODE_INT_H

#include "output/decode/decode.h"

#include "art/runtime/runtime.h"
#include "carver/base/arena.h"

/* What a value's place says of it being a time (decode.h). */
enum dec_time_hint { DEC_TIME_NONE, DEC_TIME_FIELD, DEC_TIME_NAMED };

/* What a class's instances are to the decoder beyond their fields. */
enum dec_special { DEC_S_PLAIN, DEC_S_STRING, DEC_S_BOXED, DEC_S_ENUM, DEC_S_CONTAINER };

/* The containers, by the JDK / Android class whose fields are read. */
enum dec_box {
	DEC_C_NONE, DEC_C_ARRAY_LIST, DEC_C_VECTOR, DEC_C_LINKED_LIST, DEC_C_ARRAY_DEQUE, DEC_C_HASH_MAP,
	DEC_C_HASH_SET, DEC_C_TREE_MAP, DEC_C_TREE_SET, DEC_C_CONCURRENT_MAP, DEC_C_HASHTABLE,
	DEC_C_ARRAY_MAP, DEC_C_ARRAY_SET, DEC_C_SPARSE_ARRAY, DEC_C_SPARSE_INT, DEC_C_SPARSE_LONG
};

struct dec_field {
	const char *name;           /* as shown: "name", or "DeclaringClass.name" when hidden */
	const char *own_name;       /* the field's own name */
	const char *json_key;       /* name as a JSON key: quoted, escaped, with ':' */
	uint32_t json_key_len;
	const char *type, *java_type;
	uint32_t offset;
	size_t declaring;           /* class index */
	uint8_t t;                  /* descriptor's first character, 0 when unknown */
	uint8_t time_hint;          /* enum dec_time_hint */
};

struct dec_plan {
	bool made;
	uint8_t special;            /* enum dec_special */
	uint8_t container;          /* enum dec_box */
	size_t base;                /* the container's JDK class (whose fields are read) */
	struct dec_field *f;        /* the class's own fields first, supers after */
	uint32_t n;
	const struct dec_field *value; /* BOXED: the value field; ENUM: ordinal */
	const struct dec_field *enum_name;
	uint8_t box_kind;           /* BOXED: enum dec_kind of the value */
};

struct dec {
	const struct model *m;
	const struct art_runtime *rt;
	struct dec_plan *plan;      /* per class */
	size_t enum_cls;            /* java.lang.Enum, RT_NONE */
	struct wbuf copy;           /* an object's bytes when no one region holds them */
	struct wbuf text[2];        /* String texts of the values given (slot 0 value, 1 key) */
	struct wbuf scratch;
	struct err why;             /* why a value does not read (its msg is the value's why) */
	uint32_t *seen;             /* dec_object_json: per object, the call that wrote it */
	uint32_t call;
	struct arena a;
};

static inline int dec_nomem(struct err *e)
{
	return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory decoding objects");
}

/* The plan of class cls (made once).  Returns 0 or -ERR_NOMEM. */
int dec_plan_of(struct dec *d, size_t cls, const struct dec_plan **out, struct err *e);
/* The field named name declared by class declaring (RT_NONE: any class) in plan p, NULL if
 * none (or its offset is unknown). */
const struct dec_field *dec_field_named(const struct dec_plan *p, size_t declaring, const char *name);
/* Reads the 32-bit word / 64-bit word at offset of object obj (within its size).  False when
 * it does not read. */
bool dec_read_u32(struct dec *d, size_t obj, uint32_t offset, uint32_t *v);
bool dec_read_u64(struct dec *d, size_t obj, uint32_t offset, uint64_t *v);
/* The field named name of object obj (any declaring class) read as a reference / an int
 * (int, long, short, char, byte: sign-extended).  False when absent or unread. */
bool dec_obj_ref(struct dec *d, size_t obj, const char *name, uint32_t *ref, struct err *e);
bool dec_obj_int(struct dec *d, size_t obj, const char *name, int64_t *v, struct err *e);
/* Fills v from the bytes p of a value of descriptor character t (references resolved into
 * text slot `slot`); time_hint: enum dec_time_hint.  Returns 0 or -ERR_NOMEM. */
int dec_value_at(struct dec *d, uint8_t t, const uint8_t *p, uint8_t time_hint, unsigned slot, struct dec_value *v,
		 struct err *e);
/* Fills v for the 32-bit reference ref.  Returns 0 or -ERR_NOMEM. */
int dec_ref_value(struct dec *d, uint32_t ref, unsigned slot, struct dec_value *v, struct err *e);

#endif
