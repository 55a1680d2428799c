/* hprof_writer.h - HPROF writer (the format: output/hprof/hprof.h): record framing,
 * heap-dump segments with back-patched lengths and a size cap, and sub-record encoders of
 * the structs the reader decodes (output/hprof/hprof_reader.h).  Bytes collect in a struct
 * wbuf and go to a struct outf after each complete record (or stay in the wbuf when no outf
 * is given), so memory is bounded by the largest record (segments: the cap plus one
 * sub-record). */
#ifndef ARTCARVE_HPROF_WRITER_H
#define ARTCARVE_HPROF_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "carver/base/err.h"
#include "carver/base/outfile.h"
#include "carver/base/wbuf.h"
#include "output/hprof/hprof_reader.h"

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
/* ART's dummy STACK_TRACE record with serial 0 (hprof.h HPROF_NULL_TRACE_BODY). */
int hprof_write_null_trace(struct hprof_writer *w, struct err *e);
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
