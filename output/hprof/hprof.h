/* hprof.h - streaming HPROF reader and writer (JAVA PROFILE 1.0, 1.0.1, 1.0.2, 1.0.3).
 *
 * Format reference (doc/sources.md): jdk-sa HeapHprofBinWriter.java format
 * comment; art runtime/hprof/hprof.cc for the Android 1.0.3 extensions).  Every number is
 * big-endian; identifiers are id_size (4 or 8) bytes wide.
 *
 * Reader: pull-style over a borrowed buffer (normally an mmap); it remembers nothing, so
 * memory is O(1) whatever the file size.  hprof_next() hands out top-level records;
 * hprof_next_sub() walks the sub-records of a HEAP_DUMP / HEAP_DUMP_SEGMENT body (their
 * extents are computed per tag, CLASS_DUMP field by field).  The decoders below turn one
 * sub-record into a struct whose cursors point into the same buffer.  All cursors carry file
 * offsets (cursor.va), so every error names the offset of the offending byte.
 *
 * Writer: record framing, heap-dump segments with back-patched lengths and a size cap, and
 * sub-record encoders.  Bytes collect in a struct wbuf and go to a struct outf after each
 * complete record (or stay in the wbuf when no outf is given), so memory is bounded by the
 * largest record (segments: the cap plus one sub-record). */
#ifndef ARTCARVE_HPROF_H
#define ARTCARVE_HPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "carver/base/cursor.h"
#include "carver/base/err.h"
#include "carver/base/outfile.h"
#include "carver/base/wbuf.h"

/* Top-level record tags (HeapHprofBinWriter.java). */
enum hprof_tag {
	HPROF_STRING = 0x01,
	HPROF_LOAD_CLASS = 0x02,
	HPROF_UNLOAD_CLASS = 0x03,
	HPROF_STACK_FRAME = 0x04,
	HPROF_STACK_TRACE = 0x05,
	HPROF_ALLOC_SITES = 0x06,
	HPROF_HEAP_SUMMARY = 0x07,
	HPROF_START_THREAD = 0x0a,
	HPROF_END_THREAD = 0x0b,
	HPROF_HEAP_DUMP = 0x0c,
	HPROF_CPU_SAMPLES = 0x0d,
	HPROF_CONTROL_SETTINGS = 0x0e,
	HPROF_HEAP_DUMP_SEGMENT = 0x1c,
	HPROF_HEAP_DUMP_END = 0x2c,
};

/* Heap dump sub-record tags (A.5, Android A.6). */
enum hprof_sub_tag {
	HPROF_ROOT_UNKNOWN = 0xff,
	HPROF_ROOT_JNI_GLOBAL = 0x01,
	HPROF_ROOT_JNI_LOCAL = 0x02,
	HPROF_ROOT_JAVA_FRAME = 0x03,
	HPROF_ROOT_NATIVE_STACK = 0x04,
	HPROF_ROOT_STICKY_CLASS = 0x05,
	HPROF_ROOT_THREAD_BLOCK = 0x06,
	HPROF_ROOT_MONITOR_USED = 0x07,
	HPROF_ROOT_THREAD_OBJECT = 0x08,
	HPROF_CLASS_DUMP = 0x20,
	HPROF_INSTANCE_DUMP = 0x21,
	HPROF_OBJ_ARRAY_DUMP = 0x22,
	HPROF_PRIM_ARRAY_DUMP = 0x23,
	/* Android 1.0.3 */
	HPROF_HEAP_DUMP_INFO = 0xfe,
	HPROF_ROOT_INTERNED_STRING = 0x89,
	HPROF_ROOT_FINALIZING = 0x8a,
	HPROF_ROOT_DEBUGGER = 0x8b,
	HPROF_ROOT_REFERENCE_CLEANUP = 0x8c,
	HPROF_ROOT_VM_INTERNAL = 0x8d,
	HPROF_ROOT_JNI_MONITOR = 0x8e,
	HPROF_ROOT_UNREACHABLE = 0x90,
	HPROF_PRIM_ARRAY_NODATA = 0xc3,
};

/* Basic type codes (A.3). */
enum hprof_type {
	HPROF_T_OBJECT = 2,
	HPROF_T_BOOLEAN = 4,
	HPROF_T_CHAR = 5,
	HPROF_T_FLOAT = 6,
	HPROF_T_DOUBLE = 7,
	HPROF_T_BYTE = 8,
	HPROF_T_SHORT = 9,
	HPROF_T_INT = 10,
	HPROF_T_LONG = 11,
};

/* Android heap ids in HEAP_DUMP_INFO (art HprofHeapId). */
enum { HPROF_HEAP_DEFAULT = 0, HPROF_HEAP_APP = 'A', HPROF_HEAP_IMAGE = 'I', HPROF_HEAP_ZYGOTE = 'Z' };

/* Size of a value of basic type `type`: object = id_size; 0 for an unknown type code. */
unsigned hprof_type_size(unsigned type, unsigned id_size);
/* Short names: "object", "boolean", ... "long"; NULL for an unknown code. */
const char *hprof_type_name(unsigned type);
/* "STRING", "HEAP_DUMP_SEGMENT", ...; NULL if unknown. */
const char *hprof_tag_name(unsigned tag);
/* "ROOT_UNKNOWN", "CLASS_DUMP", "HEAP_DUMP_INFO", ...; NULL if unknown. */
const char *hprof_sub_name(unsigned tag);
/* True for the root sub-records (standard and Android). */
bool hprof_sub_is_root(unsigned tag);

/* ---- reader ---------------------------------------------------------------------------- */

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

/* ---- writer ---------------------------------------------------------------------------- */

#define HPROF_SEGMENT_CAP_DEFAULT (1u << 20)   /* HotSpot's 1 MiB segments; ART uses ~4 KiB */
#define HPROF_SEGMENT_CAP_MAX 0x7fffffffu      /* Badoo reads lengths as signed ints */

struct hprof_writer {
	struct outf *out;       /* borrowed; NULL = keep everything in buf */
	struct wbuf buf;        /* pending bytes (owned) */
	unsigned id_size;
	size_t record_at;       /* offset in buf of the open record's tag, SIZE_MAX if none */
	bool in_segment;        /* the open record is a heap dump (segment) */
	uint8_t segment_tag;    /* HEAP_DUMP_SEGMENT (default) or HEAP_DUMP */
	size_t segment_cap;     /* body bytes after which a new segment starts */
	uint64_t segments;      /* heap dump records written */
	uint64_t flushed;       /* bytes already handed to out */
	uint64_t sized_end;     /* hprof_record_begin_sized: file offset where the body must end */
	bool sized_open;
};

/* id_size 4 or 8; out may be NULL (then w->buf holds the whole file). */
int hprof_writer_init(struct hprof_writer *w, struct outf *out, unsigned id_size, struct err *e);
/* Frees the buffer (does not touch out). */
void hprof_writer_release(struct hprof_writer *w);
/* Header: "JAVA PROFILE " + version (e.g. "1.0.2"), NUL, id size, timestamp. */
int hprof_write_header(struct hprof_writer *w, const char *version, uint64_t timestamp, struct err *e);
/* A complete record (closes an open heap segment first). */
int hprof_write_record(struct hprof_writer *w, uint8_t tag, uint32_t time, const void *body,
		       size_t len, struct err *e);
/* Streaming record: begin, append to w->buf (wbuf_* or the put helpers), end patches the
 * length and flushes.  A record > 4 GiB - 1 fails with -ERR_UNSUP. */
int hprof_record_begin(struct hprof_writer *w, uint8_t tag, uint32_t time, struct err *e);
int hprof_record_end(struct hprof_writer *w, struct err *e);
/* Record of known body length `len`: the header is final at once, so the body may be
 * flushed (hprof_writer_flush) while it is written; end checks exactly len bytes came. */
int hprof_record_begin_sized(struct hprof_writer *w, uint8_t tag, uint32_t time, uint32_t len,
			     struct err *e);
int hprof_record_end_sized(struct hprof_writer *w, struct err *e);
int hprof_write_string(struct hprof_writer *w, uint64_t id, const void *text, size_t len, struct err *e);
int hprof_write_load_class(struct hprof_writer *w, const struct hprof_load_class *lc, struct err *e);

/* Heap dump: sub-record encoders open a segment when none is open and start a new one when
 * the current body has reached segment_cap (a sub-record never straddles two segments).
 * hprof_heap_finish closes the open segment (never writes an empty one);
 * hprof_write_heap_dump_end closes it and writes the 0x2c record. */
void hprof_writer_set_segments(struct hprof_writer *w, uint8_t segment_tag, size_t segment_cap);
int hprof_heap_finish(struct hprof_writer *w, struct err *e);
int hprof_write_heap_dump_end(struct hprof_writer *w, struct err *e);
/* Makes room for a sub-record of `len` bytes (tag included): opens/rotates the segment.
 * After it the caller may append exactly that sub-record to w->buf itself. */
int hprof_heap_reserve(struct hprof_writer *w, size_t len, struct err *e);

int hprof_put_root(struct hprof_writer *w, const struct hprof_root *root, struct err *e);
int hprof_put_heap_info(struct hprof_writer *w, const struct hprof_heap_info *hi, struct err *e);
/* cd supplies the fixed fields and the three counts; the entry arrays hold that many items. */
int hprof_put_class_dump(struct hprof_writer *w, const struct hprof_class_dump *cd,
			 const struct hprof_class_entry *constants, const struct hprof_class_entry *statics,
			 const struct hprof_class_entry *fields, struct err *e);
/* values: the raw big-endian field bytes. */
int hprof_put_instance(struct hprof_writer *w, uint64_t id, uint32_t trace_serial, uint64_t class_id,
		       const void *values, size_t len, struct err *e);
/* An INSTANCE_DUMP whose len value bytes the caller writes at the pointer returned, straight
 * into the record (no payload copy); HPROF_ROOM_SLACK more bytes past them may be written
 * (whole-word stores) and are overwritten later.  NULL with e filled. */
enum { HPROF_ROOM_SLACK = 8 };
uint8_t *hprof_put_instance_room(struct hprof_writer *w, uint64_t id, uint32_t trace_serial, uint64_t class_id,
				 size_t len, struct err *e);
/* elements: count ids (native integers, encoded to id_size bytes). */
int hprof_put_obj_array(struct hprof_writer *w, uint64_t id, uint32_t trace_serial, uint64_t class_id,
			const uint64_t *elements, uint32_t count, struct err *e);
/* data: count * type-size raw big-endian bytes; nodata writes a PRIMITIVE_ARRAY_NODATA (data unused). */
int hprof_put_prim_array(struct hprof_writer *w, uint64_t id, uint32_t trace_serial, uint8_t type,
			 uint32_t count, const void *data, bool nodata, struct err *e);
/* The same from count little-endian elements (as a little-endian process holds them),
 * converted to big-endian while written: no intermediate copy. */
int hprof_put_prim_array_le(struct hprof_writer *w, uint64_t id, uint32_t trace_serial, uint8_t type,
			    uint32_t count, const void *le_data, struct err *e);
/* Copies a decoded sub-record unchanged (tag + body). */
int hprof_put_sub_raw(struct hprof_writer *w, const struct hprof_sub *sub, struct err *e);
/* Sends every complete record in buf to out (no-op without out or with a record open); to an
 * outf past the page cache (outf_block) only whole blocks, the rest waits for more. */
int hprof_writer_flush(struct hprof_writer *w, struct err *e);
/* The last flush: everything in buf goes to out. */
int hprof_writer_finish(struct hprof_writer *w, struct err *e);

/* One little-endian value of 1, 2, 4 or 8 bytes at s, big-endian at d, with one load, byte
 * swap and store (the hosts are little-endian: rosalloc/walk/walk.c).  Returns size. */
static inline unsigned hprof_be_from_le(uint8_t *d, const uint8_t *s, unsigned size)
{
	uint16_t h;
	uint32_t w;
	uint64_t q;

	switch (size) {
	case 1:
		*d = *s;
		break;
	case 2:
		memcpy(&h, s, 2);
		h = __builtin_bswap16(h);
		memcpy(d, &h, 2);
		break;
	case 4:
		memcpy(&w, s, 4);
		w = __builtin_bswap32(w);
		memcpy(d, &w, 4);
		break;
	default:
		memcpy(&q, s, 8);
		q = __builtin_bswap64(q);
		memcpy(d, &q, 8);
		break;
	}
	return size;
}

#endif
