/* hprof_reader.h - streaming HPROF reader (the format: output/hprof/hprof.h).
 *
 * Pull-style over a borrowed buffer (normally an mmap); it remembers nothing, so memory is
 * O(1) whatever the file size.  hprof_next() hands out top-level records;
 * hprof_next_sub() walks the sub-records of a HEAP_DUMP / HEAP_DUMP_SEGMENT body (their
 * extents are computed per tag, CLASS_DUMP field by field).  The decoders below turn one
 * sub-record into a struct whose cursors point into the same buffer (the writer encodes the
 * same structs).  All cursors carry file offsets (cursor.va), so every error names the
 * offset of the offending byte. */
#ifndef ARTCARVE_HPROF_READER_H
#define ARTCARVE_HPROF_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "carver/base/cursor.h"
#include "carver/base/err.h"
#include "output/hprof/hprof.h"

#define HPROF_VERSION_MAX 23    /* longest version string we accept, without the NUL */

struct hprof_reader {
	struct cursor c;        /* whole file; c.pos = next record */
	char version[HPROF_VERSION_MAX + 1];   /* e.g. "JAVA PROFILE 1.0.3" */
	unsigned minor;         /* 0 for "1.0", 1, 2 or 3 for "1.0.N" */
	unsigned id_size;       /* 4 or 8 */
	uint64_t timestamp;     /* ms since 1970 */
	size_t header_len;      /* bytes before the first record */
	const char *label;      /* file name for messages (borrowed), may be NULL */
	/* Set by a caller whose buffer is its own private read-only mmap of the file: hprof_next
	 * then gives the pages behind the current record back to the kernel (MADV_DONTNEED) every
	 * HPROF_DROP_STEP bytes, so resident memory stays small on huge files.  Going back is
	 * still fine (the pages fault in again from the file).  Never set it for heap memory. */
	bool drop_behind;
	size_t drop_step;       /* bytes between two releases; 0 = HPROF_DROP_STEP */
	size_t dropped;         /* bytes from the start already given back */
};

#define HPROF_DROP_STEP ((size_t)16 << 20)

/* With drop_behind: gives back the pages before file offset `upto` once drop_step bytes
 * have gathered (hprof_next does it at each record; a caller walking one huge heap dump
 * record calls it as it goes). */
void hprof_reader_drop(struct hprof_reader *r, size_t upto);

/* Probe: does data start with a "JAVA PROFILE " header?  Sets no error. */
bool hprof_probe(const uint8_t *data, size_t len);
/* Parses the file header.  data is borrowed for the reader's lifetime.  -ERR_TRUNC,
 * -ERR_CORRUPT (bad magic) or -ERR_UNSUP (other version, id size not 4/8). */
int hprof_reader_init(struct hprof_reader *r, const uint8_t *data, size_t len, const char *label,
		      struct err *e);

struct hprof_record {
	uint8_t tag;
	uint32_t time;          /* microseconds since the header timestamp */
	uint64_t offset;        /* file offset of the tag byte */
	struct cursor body;     /* exactly the body (length field bytes), va = body offset */
};

/* Next top-level record: 1 and *rec filled, 0 at end of file, <0 on error (truncated
 * header or a body running past the end).  Unknown tags are returned, not rejected. */
int hprof_next(struct hprof_reader *r, struct hprof_record *rec, struct err *e);

struct hprof_sub {
	uint8_t tag;
	uint64_t offset;        /* file offset of the tag byte */
	struct cursor body;     /* exactly the bytes after the tag, va = offset + 1 */
};

/* Next sub-record of a HEAP_DUMP/HEAP_DUMP_SEGMENT body: 1, 0 at the end of heap_body, <0 on
 * an unknown tag or a sub-record running past the body. */
int hprof_next_sub(struct cursor *heap_body, unsigned id_size, struct hprof_sub *sub, struct err *e);

/* STRING: id + bytes (text borrowed, not NUL-terminated). */
struct hprof_string { uint64_t id; const uint8_t *text; size_t len; };
int hprof_string_parse(const struct hprof_record *rec, unsigned id_size, struct hprof_string *out,
		       struct err *e);

/* LOAD_CLASS */
struct hprof_load_class { uint32_t serial; uint64_t class_id; uint32_t trace_serial; uint64_t name_id; };
int hprof_load_class_parse(const struct hprof_record *rec, unsigned id_size,
			   struct hprof_load_class *out, struct err *e);

/* Roots and HEAP_DUMP_INFO: every field a given tag lacks is 0. */
struct hprof_root {
	uint8_t tag;
	uint64_t id;            /* object (or thread object for ROOT_THREAD_OBJECT) */
	uint64_t ref_id;        /* ROOT_JNI_GLOBAL: the JNI global reference id */
	uint32_t thread_serial; /* JNI_LOCAL, JAVA_FRAME, NATIVE_STACK, THREAD_BLOCK, THREAD_OBJECT, JNI_MONITOR */
	uint32_t frame;         /* JNI_LOCAL, JAVA_FRAME: frame number; THREAD_OBJECT: stack trace
				 * serial; JNI_MONITOR: stack depth */
};
int hprof_root_parse(const struct hprof_sub *sub, unsigned id_size, struct hprof_root *out, struct err *e);

struct hprof_heap_info { uint32_t heap_id; uint64_t name_id; };
int hprof_heap_info_parse(const struct hprof_sub *sub, unsigned id_size, struct hprof_heap_info *out,
			  struct err *e);

/* One constant-pool entry, static field or instance field of a CLASS_DUMP. */
struct hprof_class_entry {
	uint64_t key;           /* constant: pool index; static / instance field: name string id */
	uint8_t type;           /* basic type code */
	uint64_t value;         /* raw big-endian value zero-extended (id for objects; float/double
				 * bit patterns); 0 for instance fields */
	uint64_t offset;        /* file offset of the entry */
};

struct hprof_class_dump {
	uint64_t class_id;
	uint32_t trace_serial;
	uint64_t super_id, loader_id, signers_id, domain_id, reserved1, reserved2;
	uint32_t instance_size;
	uint16_t const_count, static_count, field_count;
	/* iteration state (hprof_class_next_*): one cursor per section, bounded to it */
	struct cursor constants, statics, fields;
	unsigned id_size;
	uint16_t const_left, static_left, field_left;
};
/* Decodes the fixed part and bounds the three sections (already validated entry by entry). */
int hprof_class_dump_parse(const struct hprof_sub *sub, unsigned id_size, struct hprof_class_dump *out,
			   struct err *e);
/* Iterators: 1 and *out filled, 0 when the section is exhausted, <0 on error. */
int hprof_class_next_constant(struct hprof_class_dump *cd, struct hprof_class_entry *out, struct err *e);
int hprof_class_next_static(struct hprof_class_dump *cd, struct hprof_class_entry *out, struct err *e);
int hprof_class_next_field(struct hprof_class_dump *cd, struct hprof_class_entry *out, struct err *e);

struct hprof_instance {
	uint64_t id;
	uint32_t trace_serial;
	uint64_t class_id;
	struct cursor values;   /* the field bytes (byte count from the record) */
};
int hprof_instance_parse(const struct hprof_sub *sub, unsigned id_size, struct hprof_instance *out,
			 struct err *e);

struct hprof_obj_array {
	uint64_t id;
	uint32_t trace_serial;
	uint32_t count;
	uint64_t class_id;      /* the array class, e.g. [Ljava/lang/String; */
	struct cursor elements; /* count * id_size bytes; read with cur_uNbe(.., id_size, ..) */
};
int hprof_obj_array_parse(const struct hprof_sub *sub, unsigned id_size, struct hprof_obj_array *out,
			  struct err *e);

/* PRIMITIVE_ARRAY_DUMP, and PRIMITIVE_ARRAY_NODATA (nodata = true, data empty). */
struct hprof_prim_array {
	uint64_t id;
	uint32_t trace_serial;
	uint32_t count;
	uint8_t type;
	bool nodata;
	struct cursor data;     /* count * hprof_type_size(type) bytes */
};
int hprof_prim_array_parse(const struct hprof_sub *sub, unsigned id_size, struct hprof_prim_array *out,
			   struct err *e);

#endif
