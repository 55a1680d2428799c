/* hprof_conv.c - Android 1.0.3 -> standard 1.0.2 HPROF conversion (see hprof_conv.h).
 * The rules mirror AOSP dalvik/tools/hprof-conv/HprofConv.c processHeapDump (read, not
 * copied) as hprof-conv does it (tools/hprof-conv/HprofConv.c). */
#include "output/hprof/hprof_conv.h"

#include <string.h>

#include "output/hprof/hprof.h"

#define CONV_CHUNK (1u << 20)   /* bytes buffered before they go to the output file */

struct conv {
	struct hprof_writer w;
	unsigned id_size;
	bool app_only;
	struct hprof_conv_stats *st;
};

/* Output bytes (tag included) of one converted sub-record; 0 = dropped.  *heap tracks the
 * current HEAP_DUMP_INFO heap id. */
static size_t conv_sub_size(const struct conv *cv, const struct hprof_sub *sub, uint32_t *heap)
{
	switch (sub->tag) {
	case HPROF_HEAP_DUMP_INFO:
		if (sub->body.len >= 4)
			*heap = ld_u32be(sub->body.base);
		return 0;
	case HPROF_ROOT_INTERNED_STRING: case HPROF_ROOT_FINALIZING: case HPROF_ROOT_DEBUGGER:
	case HPROF_ROOT_REFERENCE_CLEANUP: case HPROF_ROOT_VM_INTERNAL: case HPROF_ROOT_UNREACHABLE:
	case HPROF_ROOT_JNI_MONITOR:
		return 1 + cv->id_size;
	case HPROF_INSTANCE_DUMP: case HPROF_OBJ_ARRAY_DUMP: case HPROF_PRIM_ARRAY_DUMP:
	case HPROF_PRIM_ARRAY_NODATA:
		if (cv->app_only && *heap != HPROF_HEAP_DEFAULT && *heap != HPROF_HEAP_APP)
			return 0;
		return 1 + sub->body.len;
	default:
		return 1 + sub->body.len;
	}
}

static void conv_sub_write(struct conv *cv, const struct hprof_sub *sub)
{
	struct wbuf *b = &cv->w.buf;

	switch (sub->tag) {
	case HPROF_ROOT_INTERNED_STRING: case HPROF_ROOT_FINALIZING: case HPROF_ROOT_DEBUGGER:
	case HPROF_ROOT_REFERENCE_CLEANUP: case HPROF_ROOT_VM_INTERNAL: case HPROF_ROOT_UNREACHABLE:
	case HPROF_ROOT_JNI_MONITOR:
		/* the id stays; JNI_MONITOR's thread serial and stack depth go */
		wbuf_u8(b, HPROF_ROOT_UNKNOWN);
		wbuf_put(b, sub->body.base, cv->id_size);
		break;
	case HPROF_PRIM_ARRAY_NODATA:
		/* id, trace serial zeroed (hprof-conv), count 0 (no elements follow), type */
		wbuf_u8(b, HPROF_PRIM_ARRAY_DUMP);
		wbuf_put(b, sub->body.base, cv->id_size);
		wbuf_zeros(b, 8);
		wbuf_u8(b, sub->body.base[cv->id_size + 8]);
		break;
	default:
		wbuf_u8(b, sub->tag);
		wbuf_put(b, sub->body.base, sub->body.len);
		break;
	}
}

/* Pass 1: output body length of a heap dump record; also validates every sub-record. */
static int conv_heap_size(struct conv *cv, const struct hprof_record *rec, uint64_t *out_len,
			  struct err *e)
{
	struct cursor body = rec->body;
	struct hprof_sub sub;
	uint32_t heap = HPROF_HEAP_DEFAULT;
	int rc;

	*out_len = 0;
	while ((rc = hprof_next_sub(&body, cv->id_size, &sub, e)) == 1) {
		cv->st->subs_in++;
		*out_len += conv_sub_size(cv, &sub, &heap);
	}
	return rc;
}

/* Pass 2: writes the converted body, flushing every CONV_CHUNK bytes. */
static int conv_heap_write(struct conv *cv, const struct hprof_record *rec, uint64_t out_len,
			   struct err *e)
{
	struct cursor body = rec->body;
	struct hprof_sub sub;
	uint32_t heap = HPROF_HEAP_DEFAULT;
	int rc;

	if ((rc = hprof_record_begin_sized(&cv->w, rec->tag, rec->time, (uint32_t)out_len, e)))
		return rc;
	while ((rc = hprof_next_sub(&body, cv->id_size, &sub, e)) == 1) {
		if (conv_sub_size(cv, &sub, &heap) == 0) {
			if (sub.tag != HPROF_HEAP_DUMP_INFO)
				cv->st->dropped_objects++;
			continue;
		}
		conv_sub_write(cv, &sub);
		cv->st->subs_out++;
		if (cv->w.buf.len >= CONV_CHUNK && (rc = hprof_writer_flush(&cv->w, e)))
			return rc;
	}
	if (rc)
		return rc;
	return hprof_record_end_sized(&cv->w, e);
}

static int conv_heap_dump(struct conv *cv, const struct hprof_record *rec, struct err *e)
{
	uint64_t out_len;
	int rc = conv_heap_size(cv, rec, &out_len, e);

	if (rc)
		return rc;
	if (out_len == 0) {
		/* count what the skipped pass 2 would have dropped */
		struct cursor body = rec->body;
		struct hprof_sub sub;
		/* pass 1 (conv_heap_size) walked these sub-records already: a failure here is a bug */
		while ((rc = hprof_next_sub(&body, cv->id_size, &sub, e)) == 1)
			cv->st->dropped_objects += sub.tag != HPROF_HEAP_DUMP_INFO;
		if (rc < 0)
			return rc;
		cv->st->dropped_segments++;
		return 0;
	}
	cv->st->records_out++;
	return conv_heap_write(cv, rec, out_len, e);
}

/* Copies a record unchanged, in chunks so a huge body is never buffered whole. */
static int conv_copy_record(struct conv *cv, const struct hprof_record *rec, struct err *e)
{
	size_t done = 0, len = rec->body.len;
	int rc = hprof_record_begin_sized(&cv->w, rec->tag, rec->time, (uint32_t)len, e);

	while (rc == 0 && done < len) {
		size_t n = len - done < CONV_CHUNK ? len - done : CONV_CHUNK;
		wbuf_put(&cv->w.buf, rec->body.base + done, n);
		done += n;
		rc = hprof_writer_flush(&cv->w, e);
	}
	if (rc == 0)
		rc = hprof_record_end_sized(&cv->w, e);
	cv->st->records_out++;
	return rc;
}

static int conv_records(struct conv *cv, struct hprof_reader *r, struct err *e)
{
	struct hprof_record rec;
	int rc;

	while ((rc = hprof_next(r, &rec, e)) == 1) {
		cv->st->records_in++;
		if (rec.tag == HPROF_HEAP_DUMP || rec.tag == HPROF_HEAP_DUMP_SEGMENT)
			rc = conv_heap_dump(cv, &rec, e);
		else
			rc = conv_copy_record(cv, &rec, e);
		if (rc)
			return rc;
	}
	return rc;
}

int hprof_conv(const uint8_t *data, size_t len, const char *label, struct outf *out,
	       const struct hprof_conv_opts *opts, struct hprof_conv_stats *stats, struct err *e)
{
	struct hprof_reader r;
	struct conv cv;
	const char *version;
	int rc;

	memset(stats, 0, sizeof(*stats));
	if ((rc = hprof_reader_init(&r, data, len, label, e)))
		return rc;
	r.drop_behind = opts && opts->drop_behind;
	memset(&cv, 0, sizeof(cv));
	cv.id_size = r.id_size;
	cv.app_only = opts && opts->app_only;
	cv.st = stats;
	if ((rc = hprof_writer_init(&cv.w, out, r.id_size, e)))
		return rc;
	/* "JAVA PROFILE " is 13 bytes; 1.0.3 -> 1.0.2, other versions stay */
	version = r.minor == 3 ? "1.0.2" : r.version + 13;
	rc = hprof_write_header(&cv.w, version, r.timestamp, e);
	if (rc == 0)
		rc = conv_records(&cv, &r, e);
	if (rc == 0)
		rc = hprof_writer_flush(&cv.w, e);
	hprof_writer_release(&cv.w);
	return rc;
}
