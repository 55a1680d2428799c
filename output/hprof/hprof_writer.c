/* hprof_writer.c - HPROF writer: header, record framing, heap dump segments, sub-record
 * encoders (see hprof_writer.h).  Bytes collect in w->buf; a record's u4 length is back-patched
 * when it ends, then the buffer goes to the outf.  So memory is one record at most, and a
 * heap dump is cut into segments of about segment_cap bytes. */
#include "output/hprof/hprof_writer.h"

#include <string.h>

#define HPROF_NO_RECORD ((size_t)-1)

int hprof_writer_init(struct hprof_writer *w, struct outf *out, unsigned id_size, struct err *e)
{
	memset(w, 0, sizeof(*w));
	if (id_size != 4 && id_size != 8)
		return ERR_SET(e, ERR_UNSUP, ERR_NO_VA, "identifier size %u is not supported (expected 4 or 8)",
			       id_size);
	w->out = out;
	wbuf_init_aligned(&w->buf, outf_block(out));
	w->id_size = id_size;
	w->record_at = HPROF_NO_RECORD;
	w->segment_tag = HPROF_HEAP_DUMP_SEGMENT;
	w->segment_cap = HPROF_SEGMENT_CAP_DEFAULT;
	return 0;
}

void hprof_writer_release(struct hprof_writer *w) { wbuf_release(&w->buf); }

void hprof_writer_set_segments(struct hprof_writer *w, uint8_t segment_tag, size_t segment_cap)
{
	w->segment_tag = segment_tag;
	w->segment_cap = segment_cap == 0 || segment_cap > HPROF_SEGMENT_CAP_MAX ? HPROF_SEGMENT_CAP_MAX
										    : segment_cap;
}

/* Hands the buffer's first n bytes to the outf and moves the rest to the front. */
static int writer_out(struct hprof_writer *w, size_t n, struct err *e)
{
	int rc = wbuf_status(&w->buf, e);

	if (rc || !w->out || w->record_at != HPROF_NO_RECORD || n == 0)
		return rc;
	rc = outf_write(w->out, w->buf.data, n, e);
	w->flushed += n;
	memmove(w->buf.data, w->buf.data + n, w->buf.len - n);
	w->buf.len -= n;
	return rc;
}

int hprof_writer_flush(struct hprof_writer *w, struct err *e)
{
	enum { DIRECT_BATCH = 8 << 20 };   /* each direct write is a device request: few, big ones */
	size_t block = outf_block(w->out);
	if (!block)
		return writer_out(w, w->buf.len, e);
	/* past the page cache only whole aligned blocks go without a copy: the rest waits */
	return w->buf.len < DIRECT_BATCH ? wbuf_status(&w->buf, e) : writer_out(w, w->buf.len / block * block, e);
}

int hprof_writer_finish(struct hprof_writer *w, struct err *e)
{
	return writer_out(w, w->buf.len, e);
}

int hprof_write_header(struct hprof_writer *w, const char *version, uint64_t timestamp, struct err *e)
{
	static const char magic[] = "JAVA PROFILE ";
	size_t n = strlen(version);

	if (n + sizeof(magic) - 1 > HPROF_VERSION_MAX)
		return ERR_SET(e, ERR_INTERNAL, ERR_NO_VA, "HPROF version \"%s\" is too long", version);
	wbuf_put(&w->buf, magic, sizeof(magic) - 1);
	wbuf_put(&w->buf, version, n + 1);
	wbuf_u32be(&w->buf, w->id_size);
	wbuf_u32be(&w->buf, (uint32_t)(timestamp >> 32));
	wbuf_u32be(&w->buf, (uint32_t)timestamp);
	return hprof_writer_flush(w, e);
}

int hprof_record_begin(struct hprof_writer *w, uint8_t tag, uint32_t time, struct err *e)
{
	int rc;

	if (w->sized_open)
		return ERR_SET(e, ERR_INTERNAL, ERR_NO_VA, "hprof writer: record 0x%02x begun inside a sized one",
			       tag);
	if (w->in_segment && (rc = hprof_heap_finish(w, e)))
		return rc;
	if (w->record_at != HPROF_NO_RECORD)
		return ERR_SET(e, ERR_INTERNAL, ERR_NO_VA, "hprof writer: record 0x%02x begun inside another",
			       tag);
	w->record_at = w->buf.len;
	wbuf_u8(&w->buf, tag);
	wbuf_u32be(&w->buf, time);
	wbuf_u32be(&w->buf, 0);         /* patched by hprof_record_end */
	return wbuf_status(&w->buf, e);
}

int hprof_record_end(struct hprof_writer *w, struct err *e)
{
	size_t body;
	int rc = wbuf_status(&w->buf, e);

	if (rc)
		return rc;
	if (w->record_at == HPROF_NO_RECORD)
		return ERR_SET(e, ERR_INTERNAL, ERR_NO_VA, "hprof writer: no record open");
	body = w->buf.len - w->record_at - HPROF_RECORD_HEADER;
	if (body > UINT32_MAX)
		return ERR_SET(e, ERR_UNSUP, ERR_NO_VA, "HPROF record of %zu bytes exceeds the u4 length field",
			       body);
	wbuf_patch_u32be(&w->buf, w->record_at + 5, (uint32_t)body);
	w->record_at = HPROF_NO_RECORD;
	w->in_segment = false;
	return hprof_writer_flush(w, e);
}

int hprof_record_begin_sized(struct hprof_writer *w, uint8_t tag, uint32_t time, uint32_t len,
			     struct err *e)
{
	int rc;

	if (w->in_segment && (rc = hprof_heap_finish(w, e)))
		return rc;
	if (w->record_at != HPROF_NO_RECORD || w->sized_open)
		return ERR_SET(e, ERR_INTERNAL, ERR_NO_VA, "hprof writer: record 0x%02x begun inside another",
			       tag);
	wbuf_u8(&w->buf, tag);
	wbuf_u32be(&w->buf, time);
	wbuf_u32be(&w->buf, len);
	w->sized_open = true;
	w->sized_end = w->flushed + w->buf.len + len;
	return wbuf_status(&w->buf, e);
}

int hprof_record_end_sized(struct hprof_writer *w, struct err *e)
{
	uint64_t at = w->flushed + w->buf.len;

	if (!w->sized_open)
		return ERR_SET(e, ERR_INTERNAL, ERR_NO_VA, "hprof writer: no sized record open");
	w->sized_open = false;
	/* a failed append is short by the bytes it dropped: report the allocation, not the length */
	if (w->buf.failed)
		return wbuf_status(&w->buf, e);
	if (at != w->sized_end)
		return ERR_SET(e, ERR_INTERNAL, at, "hprof writer: sized record ends at %llu, expected %llu",
			       (unsigned long long)at, (unsigned long long)w->sized_end);
	return hprof_writer_flush(w, e);
}

int hprof_write_record(struct hprof_writer *w, uint8_t tag, uint32_t time, const void *body,
		       size_t len, struct err *e)
{
	int rc = hprof_record_begin(w, tag, time, e);

	if (rc)
		return rc;
	wbuf_put(&w->buf, body, len);
	return hprof_record_end(w, e);
}

int hprof_write_string(struct hprof_writer *w, uint64_t id, const void *text, size_t len, struct err *e)
{
	int rc = hprof_record_begin(w, HPROF_STRING, 0, e);

	if (rc)
		return rc;
	wbuf_uNbe(&w->buf, w->id_size, id);
	wbuf_put(&w->buf, text, len);
	return hprof_record_end(w, e);
}

int hprof_write_null_trace(struct hprof_writer *w, struct err *e)
{
	static const uint8_t body[HPROF_NULL_TRACE_BODY];
	return hprof_write_record(w, HPROF_STACK_TRACE, 0, body, sizeof(body), e);
}

int hprof_write_load_class(struct hprof_writer *w, const struct hprof_load_class *lc, struct err *e)
{
	int rc = hprof_record_begin(w, HPROF_LOAD_CLASS, 0, e);

	if (rc)
		return rc;
	wbuf_u32be(&w->buf, lc->serial);
	wbuf_uNbe(&w->buf, w->id_size, lc->class_id);
	wbuf_u32be(&w->buf, lc->trace_serial);
	wbuf_uNbe(&w->buf, w->id_size, lc->name_id);
	return hprof_record_end(w, e);
}

/* ---- heap dump segments ------------------------------------------------------------------ */

int hprof_heap_finish(struct hprof_writer *w, struct err *e)
{
	if (!w->in_segment)
		return 0;
	return hprof_record_end(w, e);
}

int hprof_write_heap_dump_end(struct hprof_writer *w, struct err *e)
{
	return hprof_write_record(w, HPROF_HEAP_DUMP_END, 0, NULL, 0, e);
}

int hprof_heap_reserve(struct hprof_writer *w, size_t len, struct err *e)
{
	int rc;

	if (w->in_segment) {
		size_t body = w->buf.len - w->record_at - HPROF_RECORD_HEADER;
		if (body == 0 || (body < w->segment_cap && len <= w->segment_cap - body))
			return 0;
		if ((rc = hprof_record_end(w, e)))
			return rc;
	}
	if (len > UINT32_MAX)
		return ERR_SET(e, ERR_UNSUP, ERR_NO_VA, "heap sub-record of %zu bytes exceeds the u4 length "
			       "field", len);
	if ((rc = hprof_record_begin(w, w->segment_tag, 0, e)))
		return rc;
	w->in_segment = true;
	w->segments++;
	return 0;
}

int hprof_put_root(struct hprof_writer *w, const struct hprof_root *root, struct err *e)
{
	unsigned id = w->id_size;
	size_t len = id;
	bool ref = false, serial = false, frame = false;
	int rc;

	if (!hprof_sub_is_root(root->tag))
		return ERR_SET(e, ERR_INTERNAL, ERR_NO_VA, "hprof writer: tag 0x%02x is not a root", root->tag);
	switch (root->tag) {
	case HPROF_ROOT_JNI_GLOBAL:
		ref = true;
		len += id;
		break;
	case HPROF_ROOT_JNI_LOCAL: case HPROF_ROOT_JAVA_FRAME: case HPROF_ROOT_THREAD_OBJECT:
	case HPROF_ROOT_JNI_MONITOR:
		frame = true;
		len += 4;
		/* fall through */
	case HPROF_ROOT_NATIVE_STACK: case HPROF_ROOT_THREAD_BLOCK:
		serial = true;
		len += 4;
		break;
	default:
		break;
	}
	if ((rc = hprof_heap_reserve(w, 1 + len, e)))
		return rc;
	wbuf_u8(&w->buf, root->tag);
	wbuf_uNbe(&w->buf, id, root->id);
	if (ref)
		wbuf_uNbe(&w->buf, id, root->ref_id);
	if (serial)
		wbuf_u32be(&w->buf, root->thread_serial);
	if (frame)
		wbuf_u32be(&w->buf, root->frame);
	return wbuf_status(&w->buf, e);
}

int hprof_put_heap_info(struct hprof_writer *w, const struct hprof_heap_info *hi, struct err *e)
{
	int rc = hprof_heap_reserve(w, 5 + w->id_size, e);

	if (rc)
		return rc;
	wbuf_u8(&w->buf, HPROF_HEAP_DUMP_INFO);
	wbuf_u32be(&w->buf, hi->heap_id);
	wbuf_uNbe(&w->buf, w->id_size, hi->name_id);
	return wbuf_status(&w->buf, e);
}

/* Size of `count` class entries with key bytes each; 0 and an error on a bad type. */
static int class_entries_size(const struct hprof_class_entry *v, unsigned count, unsigned key,
			      bool with_value, unsigned id_size, size_t *total, struct err *e)
{
	for (unsigned i = 0; i < count; i++) {
		unsigned size = hprof_type_size(v[i].type, id_size);
		if (size == 0)
			return ERR_SET(e, ERR_INTERNAL, ERR_NO_VA, "hprof writer: class entry %u has invalid "
				       "type %u", i, v[i].type);
		*total += key + 1u + (with_value ? size : 0);
	}
	return 0;
}

static void class_entries_put(struct wbuf *b, const struct hprof_class_entry *v, unsigned count,
			      unsigned key, bool with_value, unsigned id_size)
{
	wbuf_u16be(b, (uint16_t)count);
	for (unsigned i = 0; i < count; i++) {
		wbuf_uNbe(b, key, v[i].key);
		wbuf_u8(b, v[i].type);
		if (with_value)
			wbuf_uNbe(b, hprof_type_size(v[i].type, id_size), v[i].value);
	}
}

int hprof_put_class_dump(struct hprof_writer *w, const struct hprof_class_dump *cd,
			 const struct hprof_class_entry *constants, const struct hprof_class_entry *statics,
			 const struct hprof_class_entry *fields, struct err *e)
{
	unsigned id = w->id_size;
	size_t len = 1 + 7 * (size_t)id + 8 + 6;
	struct wbuf *b = &w->buf;
	int rc;

	if ((rc = class_entries_size(constants, cd->const_count, 2, true, id, &len, e)) ||
	    (rc = class_entries_size(statics, cd->static_count, id, true, id, &len, e)) ||
	    (rc = class_entries_size(fields, cd->field_count, id, false, id, &len, e)) ||
	    (rc = hprof_heap_reserve(w, len, e)))
		return rc;
	wbuf_u8(b, HPROF_CLASS_DUMP);
	wbuf_uNbe(b, id, cd->class_id);
	wbuf_u32be(b, cd->trace_serial);
	wbuf_uNbe(b, id, cd->super_id);
	wbuf_uNbe(b, id, cd->loader_id);
	wbuf_uNbe(b, id, cd->signers_id);
	wbuf_uNbe(b, id, cd->domain_id);
	wbuf_uNbe(b, id, cd->reserved1);
	wbuf_uNbe(b, id, cd->reserved2);
	wbuf_u32be(b, cd->instance_size);
	class_entries_put(b, constants, cd->const_count, 2, true, id);
	class_entries_put(b, statics, cd->static_count, id, true, id);
	class_entries_put(b, fields, cd->field_count, id, false, id);
	return wbuf_status(b, e);
}

/* Big-endian v of `width` bytes at d; returns the byte after it. */
static uint8_t *put_be(uint8_t *d, unsigned width, uint64_t v)
{
	for (unsigned i = 0; i < width; i++)
		d[i] = (uint8_t)(v >> (8 * (width - 1 - i)));
	return d + width;
}

/* Room for a sub-record of len bytes in the segment and in the buffer: a pointer to write it
 * at (the caller advances buf.len), NULL with e filled. */
static uint8_t *sub_room(struct hprof_writer *w, size_t len, struct err *e)
{
	if (hprof_heap_reserve(w, len, e))
		return NULL;
	if (wbuf_reserve(&w->buf, len)) {
		wbuf_status(&w->buf, e);
		return NULL;
	}
	return w->buf.data + w->buf.len;
}

uint8_t *hprof_put_instance_room(struct hprof_writer *w, uint64_t id, uint32_t trace_serial, uint64_t class_id,
				 size_t len, struct err *e)
{
	unsigned n = w->id_size;
	size_t total = 1 + 2 * (size_t)n + 8 + len;
	uint8_t *d;

	if (len > UINT32_MAX) {
		ERR_SET(e, ERR_UNSUP, ERR_NO_VA, "instance payload of %zu bytes exceeds u4", len);
		return NULL;
	}
	if (!(d = sub_room(w, total, e)))
		return NULL;
	if (wbuf_reserve(&w->buf, total + HPROF_ROOM_SLACK)) {
		wbuf_status(&w->buf, e);
		return NULL;
	}
	d = w->buf.data + w->buf.len;
	*d++ = HPROF_INSTANCE_DUMP;
	d = put_be(d, n, id);
	d = put_be(d, 4, trace_serial);
	d = put_be(d, n, class_id);
	d = put_be(d, 4, len);
	w->buf.len += total;
	return d;
}

int hprof_put_instance(struct hprof_writer *w, uint64_t id, uint32_t trace_serial, uint64_t class_id,
		       const void *values, size_t len, struct err *e)
{
	uint8_t *d = hprof_put_instance_room(w, id, trace_serial, class_id, len, e);
	if (!d)
		return err_rc(e);
	if (len)
		memcpy(d, values, len);
	return 0;
}

int hprof_put_obj_array(struct hprof_writer *w, uint64_t id, uint32_t trace_serial, uint64_t class_id,
			const uint64_t *elements, uint32_t count, struct err *e)
{
	unsigned n = w->id_size;
	size_t total = 1 + 2 * (size_t)n + 8 + (size_t)count * n;
	uint8_t *d = sub_room(w, total, e);

	if (!d)
		return err_rc(e);
	*d++ = HPROF_OBJ_ARRAY_DUMP;
	d = put_be(d, n, id);
	d = put_be(d, 4, trace_serial);
	d = put_be(d, 4, count);
	d = put_be(d, n, class_id);
	for (uint32_t i = 0; i < count; i++)
		d = put_be(d, n, elements[i]);
	w->buf.len += total;
	return 0;
}

int hprof_put_prim_array(struct hprof_writer *w, uint64_t id, uint32_t trace_serial, uint8_t type,
			 uint32_t count, const void *data, bool nodata, struct err *e)
{
	unsigned n = w->id_size, size = hprof_type_size(type, n);
	size_t bytes = nodata ? 0 : (size_t)count * size;
	int rc;

	if (size == 0 || type == HPROF_T_OBJECT)
		return ERR_SET(e, ERR_INTERNAL, ERR_NO_VA, "hprof writer: %u is not a primitive type", type);
	if ((rc = hprof_heap_reserve(w, 1 + (size_t)n + 9 + bytes, e)))
		return rc;
	wbuf_u8(&w->buf, nodata ? HPROF_PRIM_ARRAY_NODATA : HPROF_PRIM_ARRAY_DUMP);
	wbuf_uNbe(&w->buf, n, id);
	wbuf_u32be(&w->buf, trace_serial);
	wbuf_u32be(&w->buf, count);
	wbuf_u8(&w->buf, type);
	wbuf_put(&w->buf, data, bytes);
	return wbuf_status(&w->buf, e);
}

/* count little-endian elements of `size` bytes from p to d, big-endian. */
static void swap_copy(uint8_t *d, const uint8_t *p, size_t count, unsigned size)
{
	if (size == 1) {
		memcpy(d, p, count);
		return;
	}
	for (size_t i = 0; i < (size_t)size * count; i += size)
		hprof_be_from_le(d + i, p + i, size);
}

int hprof_put_prim_array_le(struct hprof_writer *w, uint64_t id, uint32_t trace_serial, uint8_t type,
			    uint32_t count, const void *le_data, struct err *e)
{
	unsigned n = w->id_size, size = hprof_type_size(type, n);
	size_t bytes = (size_t)count * size, total = 1 + (size_t)n + 9 + bytes;
	uint8_t *d;

	if (size == 0 || type == HPROF_T_OBJECT)
		return ERR_SET(e, ERR_INTERNAL, ERR_NO_VA, "hprof writer: %u is not a primitive type", type);
	if (!(d = sub_room(w, total, e)))
		return err_rc(e);
	*d++ = HPROF_PRIM_ARRAY_DUMP;
	d = put_be(d, n, id);
	d = put_be(d, 4, trace_serial);
	d = put_be(d, 4, count);
	*d++ = type;
	if (bytes)   /* an empty array appends nothing (le_data may be NULL) */
		swap_copy(d, le_data, count, size);
	w->buf.len += total;
	return 0;
}

int hprof_put_sub_raw(struct hprof_writer *w, const struct hprof_sub *sub, struct err *e)
{
	int rc = hprof_heap_reserve(w, 1 + sub->body.len, e);

	if (rc)
		return rc;
	wbuf_u8(&w->buf, sub->tag);
	wbuf_put(&w->buf, sub->body.base, sub->body.len);
	return wbuf_status(&w->buf, e);
}
