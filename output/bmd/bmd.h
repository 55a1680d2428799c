/* bmd.h - BMD (Badoo Memory Dump) records: encoders, a streaming reader, and the Java string
 * rules the codec needs (UTF-8 decoding with U+FFFD replacement, String.hashCode).
 *
 * Format reference (doc/sources.md): Part B (badoo/hprof-tools @ 5e5408e:
 * bmd-lib DataWriter/DataReader/BmdReader, cruncher CrunchProcessor).  Summary:
 *
 *   header  varint32 version (1), varint32 metadata length, metadata bytes
 *   record  varint32 tag, then per tag (B.4):
 *     1 STRING            id, length, bytes
 *     2 HASHED_STRING     id, length of the original bytes, hash (Java String.hashCode)
 *     3 CLASS_DEFINITION  id, super id, name id, constants {index, type, value}*,
 *                         statics {name id, type, value}*, kept fields {name id, type}*,
 *                         discarded field size
 *     4 INSTANCE_DUMP     id, class id, kept field values of class, super, ... (no length)
 *     5 ROOT_OBJECTS      count, ids
 *     6 OBJECT_ARRAY      id, array class id, count, element ids
 *     7 PRIMITIVE_ARRAY_PLACEHOLDER  id, element type, count
 *     8 LEGACY_HPROF_RECORD  HPROF tag, length, body bytes
 *
 * "varint32" is protobuf's writeInt32: no zigzag, negative values are sign-extended to 64
 * bits and take 10 bytes; readers keep the low 32 bits.  Values per BMD type: object, int,
 * short -> varint32; long -> varint64; float/double -> little-endian IEEE bits; boolean,
 * byte -> 1 raw byte; char -> 2 bytes big-endian.  There is no end marker and no record
 * length: an unknown tag is fatal, and an INSTANCE_DUMP can only be parsed with the
 * CLASS_DEFINITIONs of its class chain, which the reader therefore remembers. */
#ifndef ARTCARVE_BMD_H
#define ARTCARVE_BMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "carver/base/arena.h"
#include "carver/base/cursor.h"
#include "carver/base/err.h"
#include "carver/base/htab.h"
#include "carver/base/wbuf.h"

enum bmd_tag {
	BMD_STRING = 1,
	BMD_HASHED_STRING = 2,
	BMD_CLASS_DEFINITION = 3,
	BMD_INSTANCE_DUMP = 4,
	BMD_ROOT_OBJECTS = 5,
	BMD_OBJECT_ARRAY = 6,
	BMD_PRIMITIVE_ARRAY = 7,
	BMD_LEGACY_RECORD = 8,
};

/* BMD basic types (B.5; badoo BmdBasicType). */
enum bmd_type {
	BMD_T_OBJECT = 0,
	BMD_T_INT = 1,
	BMD_T_BOOLEAN = 2,
	BMD_T_BYTE = 3,
	BMD_T_CHAR = 4,
	BMD_T_FLOAT = 5,
	BMD_T_DOUBLE = 6,
	BMD_T_LONG = 7,
	BMD_T_SHORT = 8,
	BMD_T_COUNT = 9,
};

#define BMD_VERSION 1

/* HPROF basic type code (2..11) -> BMD type; -1 for a code HPROF does not define. */
int bmd_type_from_hprof(unsigned hprof_type);
/* BMD type -> HPROF basic type code; 0 for an invalid BMD type. */
unsigned bmd_type_to_hprof(unsigned bmd_type);
/* Bytes of an HPROF value of this BMD type (object = id_size); 0 if invalid. */
unsigned bmd_type_hprof_size(unsigned bmd_type, unsigned id_size);
const char *bmd_type_name(unsigned bmd_type);
const char *bmd_tag_name(unsigned tag);

/* ---- encoders (append to a wbuf; failures are sticky in the wbuf) ---------------------- */

/* Java writeInt32: >= 0 as an unsigned varint, < 0 sign-extended (10 bytes, protobuf). */
static inline void bmd_put_int32(struct wbuf *b, int32_t v) { wbuf_varint64(b, (uint64_t)(int64_t)v); }
/* writeRawVarint32: the 32-bit pattern as an unsigned varint (lengths). */
static inline void bmd_put_uint32(struct wbuf *b, uint32_t v) { wbuf_varint64(b, v); }
/* writeInt64: two's complement as an unsigned varint (negative -> 10 bytes). */
void bmd_put_int64(struct wbuf *b, int64_t v);
/* A value of BMD type `type`; `bits` holds the raw value: object/int = 32-bit pattern,
 * short = 16-bit pattern (sign-extended as Java does), long/double = 64 bits, float = 32 bits,
 * boolean/byte = 8 bits, char = 16 bits.  Returns false for an invalid type. */
bool bmd_put_value(struct wbuf *b, unsigned type, uint64_t bits);
void bmd_put_header(struct wbuf *b, uint32_t version, const void *meta, size_t meta_len);
void bmd_put_string(struct wbuf *b, uint32_t id, const void *bytes, size_t len);
void bmd_put_hashed_string(struct wbuf *b, uint32_t id, uint32_t length, int32_t hash);
void bmd_put_legacy(struct wbuf *b, uint32_t hprof_tag, const void *body, size_t len);
void bmd_put_prim_array(struct wbuf *b, uint32_t id, unsigned type, uint32_t count);

/* ---- primitive decoders ----------------------------------------------------------------- */

/* readRawVarint32/readInt32: up to 10 bytes, the low 32 bits. */
int bmd_get_u32(struct cursor *c, uint32_t *v, struct err *e);
/* readRawVarint64: up to 10 bytes. */
int bmd_get_u64(struct cursor *c, uint64_t *v, struct err *e);
/* A value of BMD type `type`, decoded to the same `bits` convention as bmd_put_value
 * (short = low 16 bits of the varint; boolean kept raw). */
int bmd_get_value(struct cursor *c, unsigned type, uint64_t *bits, struct err *e);
/* Skips one value of the type. */
int bmd_skip_value(struct cursor *c, unsigned type, struct err *e);

/* ---- class definitions -------------------------------------------------------------------- */

struct bmd_const { uint32_t index; uint8_t type; uint64_t bits; };
struct bmd_static { uint32_t name_id; uint8_t type; uint64_t bits; };
struct bmd_field { uint32_t name_id; uint8_t type; };

struct bmd_class_def {
	uint32_t id, super_id, name_id;
	uint32_t const_count, static_count, field_count;
	struct bmd_const *consts;
	struct bmd_static *statics;
	struct bmd_field *fields;       /* kept instance fields */
	uint32_t discarded;             /* bytes of dropped primitive fields */
	uint32_t serial;                /* n-th CLASS_DEFINITION read (0-based): identifies a version */
	uint64_t offset;                /* file offset of the record's tag */
};

/* Appends the whole CLASS_DEFINITION record (tag included). */
void bmd_put_class_def(struct wbuf *b, const struct bmd_class_def *def);

/* ---- id maps: carver/base/htab.h (id renumbering, class lookup), with the codec's error ---- */

int bmd_idmap_nomem(const struct htab *m, struct err *e);

/* htab_put; val must be <= HTAB_VAL_MAX.  -ERR_NOMEM on allocation failure. */
static inline int bmd_idmap_put(struct htab *m, uint64_t key, uint32_t val, struct err *e)
{
	return htab_put(m, key, val) ? bmd_idmap_nomem(m, e) : 0;
}

/* htab_get_or_put: the value of key, `fresh` inserted first when absent (*added says so). */
static inline int bmd_idmap_get_or_put(struct htab *m, uint64_t key, uint32_t fresh, uint32_t *val, bool *added,
				       struct err *e)
{
	return htab_get_or_put(m, key, fresh, val, added) ? bmd_idmap_nomem(m, e) : 0;
}

/* ---- streaming reader ----------------------------------------------------------------------- */

struct bmd_reader {
	struct cursor c;                /* whole buffer (borrowed); c.pos = next record */
	uint32_t version;
	const uint8_t *meta;            /* header metadata, borrowed */
	size_t meta_len;
	const char *label;              /* for messages, may be NULL */
	struct arena defs;              /* every definition read (stable pointers) */
	struct htab classes;       /* class id -> index in all */
	const struct bmd_class_def **all;   /* all[serial], every definition read */
	uint32_t def_count, def_cap;
	uint64_t records;
};

struct bmd_record {
	uint32_t tag;
	uint64_t offset;                /* file offset of the tag */
	uint32_t id;                    /* STRING/HASHED: string id; INSTANCE/ARRAYS: object id */
	uint32_t class_id;              /* INSTANCE, OBJECT_ARRAY */
	uint32_t length;                /* HASHED_STRING: original byte length */
	int32_t hash;                   /* HASHED_STRING */
	const uint8_t *bytes;           /* STRING text, LEGACY body (borrowed) */
	size_t len;
	uint32_t hprof_tag;             /* LEGACY */
	uint32_t count;                 /* OBJECT_ARRAY elements, ROOT_OBJECTS ids, PRIMITIVE count */
	uint8_t type;                   /* PRIMITIVE_ARRAY element type (BMD code) */
	const struct bmd_class_def *def;/* CLASS_DEFINITION: the new definition; INSTANCE: its class */
	struct cursor values;           /* INSTANCE field values, OBJECT_ARRAY elements, root ids:
					 * exactly their bytes (already validated) */
};

/* Parses the header.  data is borrowed for the reader's lifetime. */
int bmd_reader_init(struct bmd_reader *r, const uint8_t *data, size_t len, const char *label,
		    struct err *e);
void bmd_reader_release(struct bmd_reader *r);
/* Next record: 1 and *rec filled, 0 at the end of the buffer, <0 on error (the message names
 * the offset).  A CLASS_DEFINITION replaces the definition of its id for later INSTANCE_DUMPs;
 * an INSTANCE_DUMP whose class is unknown is an error (as in Badoo's reader). */
int bmd_next(struct bmd_reader *r, struct bmd_record *rec, struct err *e);
/* Latest definition of class id, NULL if none. */
const struct bmd_class_def *bmd_reader_class(const struct bmd_reader *r, uint32_t id);
/* The class chain of def as the reader sees it now: def, its super, ... (stops at a missing
 * super).  Fills up to max pointers and *n; -ERR_CORRUPT on a cycle or a chain > max. */
int bmd_reader_chain(const struct bmd_reader *r, const struct bmd_class_def *def,
		     const struct bmd_class_def **chain, size_t max, size_t *n, struct err *e);

#define BMD_CHAIN_MAX 4096      /* deepest class hierarchy accepted */

/* ---- Java string rules ------------------------------------------------------------------ */

/* Decodes bytes as Java's UTF-8 decoder does (new String(bytes, UTF_8): malformed input
 * becomes U+FFFD per JDK rules) and appends the re-encoded UTF-8 (String.getBytes()) to out.
 * *hash (may be NULL) receives String.hashCode() of the decoded UTF-16 text. */
void bmd_java_utf8(const uint8_t *in, size_t n, struct wbuf *out, int32_t *hash);
/* Same for modified UTF-8 (DEX strings, JVM symbols): C0 80 is U+0000, surrogates are
 * encoded one by one; a lone surrogate is written as '?' as String.getBytes() does. */
void bmd_java_mutf8(const uint8_t *in, size_t n, struct wbuf *out, int32_t *hash);
/* String.hashCode() over UTF-16 code units. */
int32_t bmd_java_hash_utf16(const uint16_t *units, size_t n);

#endif
