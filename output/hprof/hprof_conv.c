/* hprof_conv.c - Android 1.0.3 -> standard 1.0.2 HPROF conversion (see hprof_conv.h).
 * The rules mirror AOSP dalvik/tools/hprof-conv/HprofConv.c processHeapDump (read, not
 * copied) as hprof-conv does it (tools/hprof-conv/HprofConv.c).
 *
 * One pass: a heap dump record's header goes out with its length still unknown, the body
 * streams behind it, and the length is patched when the record ends (in the buffer when
 * the header is still there, else in the output file).  The input pages behind the cursor
 * and the output buffer are both released every CONV_CHUNK bytes, so the resident set is
 * a few hundred KiB whatever the size of the file or of one record. */
#include "output/hprof/hprof_conv.h"

#include <string.h>

#include "carver/base/wbuf.h"
#include "output/hprof/hprof_reader.h"

#define CONV_CHUNK ((size_t)128 << 10)   /* output bytes buffered; input bytes between releases */
#define CONV_HEADER 9                     /* u1 tag, u4 time, u4 length */

struct conv {
	struct outf *out;
	struct wbuf buf;        /* pending output; buf.data[0] is file offset out->written */
	struct hprof_reader *r;
	unsigned id_size;
	bool app_only;
	struct hprof_conv_stats *st;
};

static int conv_flush(struct conv *cv, struct err *e)
{
	int rc = wbuf_status(&cv->buf, e);

	if (rc == 0 && cv->buf.len)
		rc = outf_write(cv->out, cv->buf.data, cv->buf.len, e);
	wbuf_reset(&cv->buf);
	return rc;
}

/* Converted sub-record into the buffer; false when dropped.  *heap tracks the current
 * HEAP_DUMP_INFO heap id. */
static bool conv_sub(struct conv *cv, const struct hprof_sub *sub, uint32_t *heap)
{
	struct wbuf *b = &cv->buf;

	switch (sub->tag) {
	case HPROF_HEAP_DUMP_INFO:
		*heap = ld_u32be(sub->body.base);   /* the extent is id + 4 bytes */
		return false;
	case HPROF_ROOT_INTERNED_STRING: case HPROF_ROOT_FINALIZING: case HPROF_ROOT_DEBUGGER:
	case HPROF_ROOT_REFERENCE_CLEANUP: case HPROF_ROOT_VM_INTERNAL: case HPROF_ROOT_UNREACHABLE:
	case HPROF_ROOT_JNI_MONITOR:
		/* the id stays; JNI_MONITOR's thread serial and stack depth go */
		wbuf_u8(b, HPROF_ROOT_UNKNOWN);
		wbuf_put(b, sub->body.base, cv->id_size);
		return true;
	case HPROF_INSTANCE_DUMP: case HPROF_OBJ_ARRAY_DUMP: case HPROF_PRIM_ARRAY_DUMP:
	case HPROF_PRIM_ARRAY_NODATA:
		if (cv->app_only && *heap != HPROF_HEAP_DEFAULT && *heap != HPROF_HEAP_APP) {
			cv->st->dropped_objects++;
			return false;
		}
		if (sub->tag != HPROF_PRIM_ARRAY_NODATA)
			break;
		/* id, trace serial zeroed (hprof-conv), count 0 (no elements follow), type */
		wbuf_u8(b, HPROF_PRIM_ARRAY_DUMP);
		wbuf_put(b, sub->body.base, cv->id_size);
		wbuf_zeros(b, 8);
		wbuf_u8(b, sub->body.base[cv->id_size + 8]);
		return true;
	default:
		break;
	}
	wbuf_u8(b, sub->tag);
	wbuf_put(b, sub->body.base, sub->body.len);
	return true;
}

/* Closes the heap dump record whose tag is at file offset `at`: patches its length, or
 * takes it back when nothing of its body was kept (VisualVM rejects empty records). */
static int conv_heap_end(struct conv *cv, const struct hprof_record *rec, uint64_t at, struct err *e)
{
	uint64_t end = cv->out->written + cv->buf.len, len = end - at - CONV_HEADER;
	uint8_t be[4];
	int rc = wbuf_status(&cv->buf, e);   /* a failed append left buf short: no length to patch */

	if (rc)
		return rc;
	if (len == 0) {
		/* nothing was written after the header, so nothing was flushed since it went in */
		if (at < cv->out->written)
			return ERR_SET(e, ERR_INTERNAL, rec->offset, "empty heap dump record at 0x%llx was "
				       "flushed", (unsigned long long)rec->offset);
		cv->buf.len -= CONV_HEADER;
		cv->st->dropped_segments++;
		return 0;
	}
	if (len > UINT32_MAX)
		return ERR_SET(e, ERR_INTERNAL, rec->offset, "heap dump record at 0x%llx grew past 4 GiB",
			       (unsigned long long)rec->offset);
	cv->st->records_out++;
	if (at >= cv->out->written) {
		wbuf_patch_u32be(&cv->buf, (size_t)(at - cv->out->written) + 5, (uint32_t)len);
		return 0;
	}
	be[0] = (uint8_t)(len >> 24);
	be[1] = (uint8_t)(len >> 16);
	be[2] = (uint8_t)(len >> 8);
	be[3] = (uint8_t)len;
	return outf_patch(cv->out, at + 5, be, 4, e);
}

static int conv_heap_dump(struct conv *cv, const struct hprof_record *rec, struct err *e)
{
	struct cursor body = rec->body;
	struct hprof_sub sub;
	uint32_t heap = HPROF_HEAP_DEFAULT;
	uint64_t at = cv->out->written + cv->buf.len;
	int rc;

	wbuf_u8(&cv->buf, rec->tag);
	wbuf_u32be(&cv->buf, rec->time);
	wbuf_u32be(&cv->buf, 0);        /* patched by conv_heap_end */
	while ((rc = hprof_next_sub(&body, cv->id_size, &sub, e)) == 1) {
		cv->st->subs_in++;
		if (!conv_sub(cv, &sub, &heap))
			continue;
		cv->st->subs_out++;
		if (cv->buf.len >= CONV_CHUNK) {
			if ((rc = conv_flush(cv, e)))
				return rc;
			hprof_reader_drop(cv->r, (size_t)(sub.offset - cv->r->c.va));
		}
	}
	return rc ? rc : conv_heap_end(cv, rec, at, e);
}

/* Copies a record unchanged, in chunks so a huge body is never buffered whole. */
static int conv_copy_record(struct conv *cv, const struct hprof_record *rec, struct err *e)
{
	size_t done = 0, len = rec->body.len;
	int rc = 0;

	wbuf_u8(&cv->buf, rec->tag);
	wbuf_u32be(&cv->buf, rec->time);
	wbuf_u32be(&cv->buf, (uint32_t)len);   /* hprof_next read it as a u4 */
	while (rc == 0 && done < len) {
		size_t n = len - done < CONV_CHUNK ? len - done : CONV_CHUNK;
		wbuf_put(&cv->buf, rec->body.base + done, n);
		done += n;
		if (cv->buf.len >= CONV_CHUNK)
			rc = conv_flush(cv, e);
	}
	cv->st->records_out++;
	return rc;
}

static int conv_records(struct conv *cv, struct err *e)
{
	struct hprof_record rec;
	int rc;

	while ((rc = hprof_next(cv->r, &rec, e)) == 1) {
		cv->st->records_in++;
		if (rec.tag == HPROF_HEAP_DUMP || rec.tag == HPROF_HEAP_DUMP_SEGMENT)
			rc = conv_heap_dump(cv, &rec, e);
		else
			rc = conv_copy_record(cv, &rec, e);
		if (rc == 0 && cv->buf.len >= CONV_CHUNK)
			rc = conv_flush(cv, e);
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
	r.drop_step = CONV_CHUNK;
	memset(&cv, 0, sizeof(cv));
	cv.out = out;
	cv.r = &r;
	cv.id_size = r.id_size;
	cv.app_only = opts && opts->app_only;
	cv.st = stats;
	wbuf_init(&cv.buf);
	/* "JAVA PROFILE " is 13 bytes; 1.0.3 -> 1.0.2, other versions stay */
	version = r.minor == 3 ? "1.0.2" : r.version + 13;
	wbuf_put(&cv.buf, "JAVA PROFILE ", 13);
	wbuf_put(&cv.buf, version, strlen(version) + 1);
	wbuf_u32be(&cv.buf, r.id_size);
	wbuf_u32be(&cv.buf, (uint32_t)(r.timestamp >> 32));
	wbuf_u32be(&cv.buf, (uint32_t)r.timestamp);
	rc = conv_records(&cv, e);
	if (rc == 0)
		rc = conv_flush(&cv, e);
	wbuf_release(&cv.buf);
	return rc;
}
