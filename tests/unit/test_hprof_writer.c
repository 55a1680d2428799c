/* test_hprof_writer.c - output/hprof/hprof_writer.c byte for byte.
 * The expected bytes are assembled here by hand from the HPROF binary format (the format
 * comment of HotSpot's services/heapDumper.cpp @ jdk-17, and art runtime/hprof/hprof.cc
 * @ android-11.0.0_r1 for the Android sub-records), not with the writer's encoders:
 *  1. the header, STRING and LOAD_CLASS records, every root kind, HEAP_DUMP_INFO,
 *     CLASS_DUMP, INSTANCE_DUMP, OBJ_ARRAY_DUMP, PRIMITIVE_ARRAY_DUMP and _NODATA, for
 *     identifiers of 4 and 8 bytes;
 *  2. heap dump segments: where a segment ends for a given cap, a sub-record larger than the
 *     cap alone in its segment, HEAP_DUMP instead of HEAP_DUMP_SEGMENT;
 *  3. streaming to a file: the bytes on disk equal the in-memory output while the buffer
 *     never holds more than one segment; sized records flushed while being written;
 *  4. misuse and limits give the documented errors; every allocation failure -ERR_NOMEM. */
#include <stdlib.h>
#include <unistd.h>

#include "carver/base/mapfile.h"
#include "carver/base/xalloc.h"
#include "output/hprof/hprof_writer.h"
#include "t.h"

/* expected bytes, built without wbuf */
struct exp {
	uint8_t b[4096];
	size_t n;
};

static void be(struct exp *x, unsigned width, uint64_t v)
{
	for (unsigned i = 0; i < width; i++)
		x->b[x->n++] = (uint8_t)(v >> (8 * (width - 1 - i)));
}

static void raw(struct exp *x, const void *p, size_t n)
{
	memcpy(x->b + x->n, p, n);
	x->n += n;
}

/* compares and prints the first bytes compared */
static void same_bytes(const char *what, const uint8_t *got, size_t got_n, const struct exp *want)
{
	size_t at = 0;
	while (at < got_n && at < want->n && got[at] == want->b[at])
		at++;
	printf("   %s: %zu bytes, expected %zu:", what, got_n, want->n);
	for (size_t i = 0; i < want->n && i < 24; i++)
		printf(" %02x", want->b[i]);
	printf("%s\n", want->n > 24 ? " ..." : "");
	T_CHECK(got_n == want->n && at == got_n, "%s: first difference at byte %zu (got %02x, want %02x), %zu vs %zu bytes",
		what, at, at < got_n ? got[at] : 0, at < want->n ? want->b[at] : 0, got_n, want->n);
}

static void record_header(struct exp *x, uint8_t tag, uint32_t time, uint32_t len)
{
	be(x, 1, tag);
	be(x, 4, time);
	be(x, 4, len);
}

static void test_top_records(unsigned id)
{
	struct hprof_writer w;
	struct err e;
	struct exp x = { .n = 0 };
	const struct hprof_load_class lc = { 7, 0x1122334455667788ull, 9, 0x0102030405060708ull };
	uint64_t mask = id == 8 ? UINT64_MAX : UINT32_MAX;
	char label[64];

	snprintf(label, sizeof(label), "id size %u: header, STRING, LOAD_CLASS, a raw record", id);
	T_SECTION(label);
	err_init(&e);
	T_EQ_I(hprof_writer_init(&w, NULL, id, &e), 0);
	T_EQ_I(hprof_write_header(&w, "1.0.2", 0x0000018c2a3b4c5dull, &e), 0);
	raw(&x, "JAVA PROFILE 1.0.2", 19);  /* with its NUL */
	be(&x, 4, id);
	be(&x, 4, 0x0000018c);
	be(&x, 4, 0x2a3b4c5d);
	T_EQ_I(hprof_write_string(&w, 0xabcdef0123456789ull & mask, "java/lang/Object", 16, &e), 0);
	record_header(&x, HPROF_STRING, 0, id + 16);
	be(&x, id, 0xabcdef0123456789ull & mask);
	raw(&x, "java/lang/Object", 16);
	T_EQ_I(hprof_write_load_class(&w, &lc, &e), 0);
	record_header(&x, HPROF_LOAD_CLASS, 0, 8 + 2 * id);
	be(&x, 4, 7);
	be(&x, id, lc.class_id & mask);
	be(&x, 4, 9);
	be(&x, id, lc.name_id & mask);
	T_EQ_I(hprof_write_record(&w, HPROF_START_THREAD, 0x01020304, "\xde\xad", 2, &e), 0);
	record_header(&x, HPROF_START_THREAD, 0x01020304, 2);
	raw(&x, "\xde\xad", 2);
	T_EQ_I(hprof_write_record(&w, HPROF_HEAP_DUMP_END, 0, NULL, 0, &e), 0);
	record_header(&x, HPROF_HEAP_DUMP_END, 0, 0);
	same_bytes(label, w.buf.data, w.buf.len, &x);
	hprof_writer_release(&w);
}

static void test_sub_records(unsigned id)
{
	static const struct { uint8_t tag; unsigned extra; } roots[] = {
		/* bytes after tag + object id (heapDumper.cpp; hprof.cc for 0x89..0x90) */
		{ HPROF_ROOT_UNKNOWN, 0 }, { HPROF_ROOT_JNI_GLOBAL, 1 }, { HPROF_ROOT_JNI_LOCAL, 8 },
		{ HPROF_ROOT_JAVA_FRAME, 8 }, { HPROF_ROOT_NATIVE_STACK, 4 }, { HPROF_ROOT_STICKY_CLASS, 0 },
		{ HPROF_ROOT_THREAD_BLOCK, 4 }, { HPROF_ROOT_MONITOR_USED, 0 }, { HPROF_ROOT_THREAD_OBJECT, 8 },
		{ HPROF_ROOT_INTERNED_STRING, 0 }, { HPROF_ROOT_FINALIZING, 0 }, { HPROF_ROOT_DEBUGGER, 0 },
		{ HPROF_ROOT_REFERENCE_CLEANUP, 0 }, { HPROF_ROOT_VM_INTERNAL, 0 }, { HPROF_ROOT_JNI_MONITOR, 8 },
		{ HPROF_ROOT_UNREACHABLE, 0 },
	};
	const struct hprof_class_entry consts[] = { { 3, HPROF_T_INT, 0xfffffffb, 0 } };
	const struct hprof_class_entry statics[] = { { 0x51, HPROF_T_OBJECT, 0x6000, 0 },
						     { 0x52, HPROF_T_DOUBLE, 0x3ff0000000000000ull, 0 },
						     { 0x53, HPROF_T_BOOLEAN, 1, 0 } };
	const struct hprof_class_entry fields[] = { { 0x61, HPROF_T_LONG, 0, 0 }, { 0x62, HPROF_T_CHAR, 0, 0 } };
	struct hprof_class_dump cd = { .class_id = 0x1000, .trace_serial = 2, .super_id = 0x900, .loader_id = 0x901,
				       .signers_id = 0x902, .domain_id = 0x903, .instance_size = 10,
				       .const_count = 1, .static_count = 3, .field_count = 2 };
	const struct hprof_heap_info hi = { HPROF_HEAP_APP, 0x77 };
	const uint8_t values[10] = { 0, 0, 0, 0, 0, 0, 0, 42, 0, 'x' };
	const uint64_t elems[3] = { 0x5000, 0, 0x5001 };
	const uint8_t shorts[6] = { 0x00, 0x01, 0xff, 0xfe, 0x7f, 0xff };
	struct hprof_writer w;
	struct err e;
	struct exp x = { .n = 0 };
	size_t body_at;
	char label[64];

	snprintf(label, sizeof(label), "id size %u: every heap dump sub-record", id);
	T_SECTION(label);
	err_init(&e);
	T_EQ_I(hprof_writer_init(&w, NULL, id, &e), 0);
	record_header(&x, HPROF_HEAP_DUMP_SEGMENT, 0, 0); /* length patched below */
	body_at = x.n;
	T_EQ_I(hprof_put_heap_info(&w, &hi, &e), 0);
	be(&x, 1, 0xfe);
	be(&x, 4, 'A');
	be(&x, id, 0x77);
	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		struct hprof_root r = { roots[i].tag, 0x4000 + i, 0x8000 + i, 0x10 + (uint32_t)i, 0x20 + (uint32_t)i };
		T_EQ_I(hprof_put_root(&w, &r, &e), 0);
		be(&x, 1, r.tag);
		be(&x, id, r.id);
		if (roots[i].extra == 1)
			be(&x, id, r.ref_id);       /* JNI global: the reference id */
		if (roots[i].extra >= 4)
			be(&x, 4, r.thread_serial);
		if (roots[i].extra == 8)
			be(&x, 4, r.frame);
	}
	T_EQ_I(hprof_put_class_dump(&w, &cd, consts, statics, fields, &e), 0);
	be(&x, 1, 0x20);
	be(&x, id, 0x1000);
	be(&x, 4, 2);
	be(&x, id, 0x900);
	be(&x, id, 0x901);
	be(&x, id, 0x902);
	be(&x, id, 0x903);
	be(&x, id, 0);
	be(&x, id, 0);
	be(&x, 4, 10);
	be(&x, 2, 1);
	be(&x, 2, 3), be(&x, 1, HPROF_T_INT), be(&x, 4, 0xfffffffb);
	be(&x, 2, 3);
	be(&x, id, 0x51), be(&x, 1, HPROF_T_OBJECT), be(&x, id, 0x6000);
	be(&x, id, 0x52), be(&x, 1, HPROF_T_DOUBLE), be(&x, 8, 0x3ff0000000000000ull);
	be(&x, id, 0x53), be(&x, 1, HPROF_T_BOOLEAN), be(&x, 1, 1);
	be(&x, 2, 2);
	be(&x, id, 0x61), be(&x, 1, HPROF_T_LONG);
	be(&x, id, 0x62), be(&x, 1, HPROF_T_CHAR);
	T_EQ_I(hprof_put_instance(&w, 0x5000, 3, 0x1000, values, sizeof(values), &e), 0);
	be(&x, 1, 0x21), be(&x, id, 0x5000), be(&x, 4, 3), be(&x, id, 0x1000), be(&x, 4, 10);
	raw(&x, values, sizeof(values));
	T_EQ_I(hprof_put_obj_array(&w, 0x6000, 4, 0x1100, elems, 3, &e), 0);
	be(&x, 1, 0x22), be(&x, id, 0x6000), be(&x, 4, 4), be(&x, 4, 3), be(&x, id, 0x1100);
	be(&x, id, 0x5000), be(&x, id, 0), be(&x, id, 0x5001);
	T_EQ_I(hprof_put_prim_array(&w, 0x7000, 5, HPROF_T_SHORT, 3, shorts, false, &e), 0);
	be(&x, 1, 0x23), be(&x, id, 0x7000), be(&x, 4, 5), be(&x, 4, 3), be(&x, 1, HPROF_T_SHORT);
	raw(&x, shorts, sizeof(shorts));
	T_EQ_I(hprof_put_prim_array(&w, 0x7001, 6, HPROF_T_LONG, 1000, NULL, true, &e), 0);
	be(&x, 1, 0xc3), be(&x, id, 0x7001), be(&x, 4, 6), be(&x, 4, 1000), be(&x, 1, HPROF_T_LONG);
	T_EQ_I(hprof_write_heap_dump_end(&w, &e), 0);
	{
		size_t body = x.n - body_at;
		for (int i = 0; i < 4; i++)
			x.b[body_at - 4 + i] = (uint8_t)(body >> (24 - 8 * i));
		printf("   segment body: %zu bytes\n", body);
	}
	record_header(&x, HPROF_HEAP_DUMP_END, 0, 0);
	same_bytes(label, w.buf.data, w.buf.len, &x);
	T_EQ_U(w.segments, 1);
	hprof_writer_release(&w);
}

/* The body lengths of the heap dump records in buf, as "tag:len," text. */
static void segment_lengths(const struct wbuf *b, char *out, size_t cap)
{
	size_t pos = 0, n = 0;
	out[0] = 0;
	while (pos + 9 <= b->len) {
		uint32_t len = (uint32_t)b->data[pos + 5] << 24 | (uint32_t)b->data[pos + 6] << 16 |
			       (uint32_t)b->data[pos + 7] << 8 | b->data[pos + 8];
		n += (size_t)snprintf(out + n, cap - n, "%02x:%u,", b->data[pos], len);
		pos += 9 + (size_t)len;
	}
}

static void test_segments(void)
{
	struct hprof_writer w;
	struct err e;
	char got[256];
	const uint8_t big[30] = { 0 };

	T_SECTION("segments: cut before the cap, a big sub-record alone, HEAP_DUMP tag");
	err_init(&e);
	hprof_writer_init(&w, NULL, 4, &e);
	hprof_writer_set_segments(&w, HPROF_HEAP_DUMP_SEGMENT, 20);
	for (int i = 0; i < 5; i++) {     /* ROOT_UNKNOWN: 5 bytes each; 4 fill a 20-byte cap */
		struct hprof_root r = { HPROF_ROOT_UNKNOWN, (uint64_t)i + 1, 0, 0, 0 };
		T_EQ_I(hprof_put_root(&w, &r, &e), 0);
	}
	/* an instance of 1+4+4+4+4+30 = 47 bytes: bigger than the cap, alone in its segment */
	T_EQ_I(hprof_put_instance(&w, 9, 0, 1, big, sizeof(big), &e), 0);
	{
		struct hprof_root r = { HPROF_ROOT_STICKY_CLASS, 10, 0, 0, 0 };
		T_EQ_I(hprof_put_root(&w, &r, &e), 0);
	}
	T_EQ_I(hprof_heap_finish(&w, &e), 0);
	T_EQ_I(hprof_heap_finish(&w, &e), 0);   /* nothing open: no empty segment */
	segment_lengths(&w.buf, got, sizeof(got));
	printf("   records (tag:body length): %s\n", got);
	T_EQ_S(got, "1c:20,1c:5,1c:47,1c:5,");
	T_EQ_U(w.segments, 4);
	hprof_writer_release(&w);

	hprof_writer_init(&w, NULL, 8, &e);
	hprof_writer_set_segments(&w, HPROF_HEAP_DUMP, 0);     /* 0: the largest cap */
	T_EQ_U(w.segment_cap, HPROF_SEGMENT_CAP_MAX);
	{
		struct hprof_root r = { HPROF_ROOT_UNKNOWN, 1, 0, 0, 0 };
		T_EQ_I(hprof_put_root(&w, &r, &e), 0);
	}
	/* a top-level record closes the open heap dump first */
	T_EQ_I(hprof_write_string(&w, 5, "s", 1, &e), 0);
	segment_lengths(&w.buf, got, sizeof(got));
	printf("   records (tag:body length): %s\n", got);
	T_EQ_S(got, "0c:9,01:9,");
	hprof_writer_release(&w);
}

/* writes the same small dump: 2000 instances, 20 per 512-byte segment */
static int write_dump(struct hprof_writer *w, struct err *e)
{
	uint8_t vals[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	int rc = hprof_write_header(w, "1.0.3", 1234, e);

	hprof_writer_set_segments(w, HPROF_HEAP_DUMP_SEGMENT, 512);
	for (uint32_t i = 0; rc == 0 && i < 2000; i++)
		rc = hprof_put_instance(w, 0x10000 + i, 0, 0x1000, vals, sizeof(vals), e);
	if (rc == 0)
		rc = hprof_write_heap_dump_end(w, e);
	return rc;
}

static void test_streaming(void)
{
	char dir[] = "/tmp/artcarve-hpw.XXXXXX", path[256];
	struct hprof_writer mem, file;
	struct outf o;
	struct mapfile mf;
	struct err e;
	size_t max_pending = 0;

	T_SECTION("streaming to a file equals the in-memory output, one segment held at most");
	err_init(&e);
	T_CHECK(mkdtemp(dir) != NULL, "mkdtemp");
	snprintf(path, sizeof(path), "%s/out.hprof", dir);
	hprof_writer_init(&mem, NULL, 4, &e);
	T_EQ_I(write_dump(&mem, &e), 0);
	outf_init(&o);
	T_EQ_I(outf_open(&o, path, &e), 0);
	hprof_writer_init(&file, &o, 4, &e);
	T_EQ_I(hprof_write_header(&file, "1.0.3", 1234, &e), 0);
	T_EQ_U(file.buf.len, 0);                 /* the header went out at once */
	T_EQ_U(file.flushed, 31);
	hprof_writer_set_segments(&file, HPROF_HEAP_DUMP_SEGMENT, 512);
	uint8_t vals[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	for (uint32_t i = 0; i < 2000; i++) {
		T_CHECK(hprof_put_instance(&file, 0x10000 + i, 0, 0x1000, vals, sizeof(vals), &e) == 0, "instance %u", i);
		if (file.buf.len > max_pending)
			max_pending = file.buf.len;
	}
	T_EQ_I(hprof_write_heap_dump_end(&file, &e), 0);
	T_EQ_I(outf_commit(&o, &e), 0);
	printf("   %zu bytes in memory, %llu flushed to %s; at most %zu bytes pending (cap 512 + one sub-record)\n",
	       mem.buf.len, (unsigned long long)file.flushed, path, max_pending);
	T_CHECK(max_pending <= 9 + 512, "pending %zu", max_pending);
	T_EQ_U(file.flushed, mem.buf.len);
	T_EQ_U(mem.segments, 100);   /* 25-byte instances: 20 fill 500 of 512 bytes */
	T_EQ_I(mapfile_open(&mf, path, &e), 0);
	T_CHECK(mf.len == mem.buf.len && !memcmp(mf.data, mem.buf.data, mf.len), "file %zu bytes equals memory %zu",
		mf.len, mem.buf.len);
	mapfile_close(&mf);
	outf_abort(&o);
	hprof_writer_release(&file);

	/* sized record: the header is final at once, the body may be flushed in pieces */
	outf_init(&o);
	T_EQ_I(outf_open(&o, path, &e), 0);
	hprof_writer_init(&file, &o, 4, &e);
	T_EQ_I(hprof_record_begin_sized(&file, HPROF_STRING, 0, 4 + 6, &e), 0);
	wbuf_u32be(&file.buf, 0x99);
	wbuf_put(&file.buf, "abc", 3);
	T_EQ_I(hprof_writer_flush(&file, &e), 0);
	T_EQ_U(file.flushed, 9 + 4 + 3);
	wbuf_put(&file.buf, "def", 3);
	T_EQ_I(hprof_record_end_sized(&file, &e), 0);
	T_EQ_I(outf_commit(&o, &e), 0);
	T_EQ_I(mapfile_open(&mf, path, &e), 0);
	{
		struct exp x = { .n = 0 };
		record_header(&x, HPROF_STRING, 0, 10);
		be(&x, 4, 0x99);
		raw(&x, "abcdef", 6);
		same_bytes("sized STRING flushed in two pieces", mf.data, mf.len, &x);
	}
	mapfile_close(&mf);
	outf_abort(&o);
	hprof_writer_release(&file);
	hprof_writer_release(&mem);
	unlink(path);
	rmdir(dir);
}

/* A heap dump of n instances with 1 MiB segments, the instance ids counting from 0x10000. */
static int write_big_dump(struct hprof_writer *w, uint32_t n, struct err *e)
{
	uint8_t vals[12] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };
	int rc = hprof_write_header(w, "1.0.2", 99, e);
	for (uint32_t i = 0; rc == 0 && i < n; i++)
		rc = hprof_put_instance(w, 0x10000 + 8ull * i, 0, 0x1000, vals, sizeof(vals), e);
	if (rc == 0)
		rc = hprof_write_heap_dump_end(w, e);
	return rc;
}

/* Past the page cache (outf_open_big) the writer hands over whole aligned blocks and keeps
 * the rest until hprof_writer_finish: the file equals the in-memory output. */
static void test_streaming_big(void)
{
	char dir[] = "/tmp/artcarve-hpw-big.XXXXXX", path[256];
	struct hprof_writer mem, file;
	struct outf o;
	struct mapfile mf;
	struct err e;
	const uint32_t n = 500000;   /* about 14.5 MB: several direct batches and a tail */

	T_SECTION("streaming past the page cache equals the in-memory output");
	err_init(&e);
	T_CHECK(mkdtemp(dir) != NULL, "mkdtemp");
	snprintf(path, sizeof(path), "%s/big.hprof", dir);
	hprof_writer_init(&mem, NULL, 4, &e);
	T_EQ_I(write_big_dump(&mem, n, &e), 0);
	outf_init(&o);
	T_EQ_I(outf_open_big(&o, path, &e), 0);
	hprof_writer_init(&file, &o, 4, &e);
	printf("   writer buffer aligned to %zu (outf block %zu)\n", file.buf.align, outf_block(&o));
	T_EQ_U(file.buf.align, outf_block(&o));
	T_EQ_I(write_big_dump(&file, n, &e), 0);
	T_CHECK(outf_block(&o) == 0 || file.flushed % outf_block(&o) == 0, "only whole blocks before the finish: %llu",
		(unsigned long long)file.flushed);
	T_EQ_I(hprof_writer_finish(&file, &e), 0);
	T_EQ_U(file.buf.len, 0);
	T_EQ_I(outf_commit(&o, &e), 0);
	T_EQ_I(mapfile_open(&mf, path, &e), 0);
	printf("   %zu bytes in memory, %zu in %s\n", mem.buf.len, mf.len, path);
	T_CHECK(mf.len == mem.buf.len && !memcmp(mf.data, mem.buf.data, mf.len), "file %zu bytes equals memory %zu",
		mf.len, mem.buf.len);
	mapfile_close(&mf);
	hprof_writer_release(&file);
	hprof_writer_release(&mem);
	unlink(path);
	rmdir(dir);
}

static void expect_err(const char *what, int rc, int want, const struct err *e, const char *msg)
{
	printf("   %s: rc %d \"%s\"\n", what, rc, rc ? e->msg : "");
	T_CHECK(rc == want && (!msg || strstr(e->msg, msg)), "%s: rc %d (want %d), \"%s\" (want \"%s\")", what, rc,
		want, e->msg, msg ? msg : "");
}

static void test_misuse(void)
{
	struct hprof_writer w;
	struct err e;
	struct hprof_root not_root = { HPROF_CLASS_DUMP, 1, 0, 0, 0 };
	struct hprof_class_entry bad = { 1, 3, 0, 0 };
	struct hprof_class_dump cd = { .class_id = 1, .field_count = 1 };

	T_SECTION("misuse and limits");
	err_init(&e);
	expect_err("id size 3", hprof_writer_init(&w, NULL, 3, &e), -ERR_UNSUP, &e, "identifier size 3");
	hprof_writer_init(&w, NULL, 4, &e);
	expect_err("version of 11 characters", hprof_write_header(&w, "1.0.2-extra", 0, &e), -ERR_INTERNAL, &e,
		   "too long");
	expect_err("end without a record", hprof_record_end(&w, &e), -ERR_INTERNAL, &e, "no record open");
	T_EQ_I(hprof_record_begin(&w, HPROF_STRING, 0, &e), 0);
	expect_err("record inside a record", hprof_record_begin(&w, HPROF_STRING, 0, &e), -ERR_INTERNAL, &e,
		   "inside another");
	T_EQ_I(hprof_record_end(&w, &e), 0);
	expect_err("sized end without begin", hprof_record_end_sized(&w, &e), -ERR_INTERNAL, &e, "no sized record");
	T_EQ_I(hprof_record_begin_sized(&w, HPROF_STRING, 0, 8, &e), 0);
	expect_err("record inside a sized one", hprof_record_begin(&w, HPROF_LOAD_CLASS, 0, &e), -ERR_INTERNAL, &e,
		   "inside a sized one");
	wbuf_put(&w.buf, "1234567", 7);
	expect_err("sized record one byte short", hprof_record_end_sized(&w, &e), -ERR_INTERNAL, &e,
		   "ends at 25, expected 26");
	expect_err("a root with tag 0x20", hprof_put_root(&w, &not_root, &e), -ERR_INTERNAL, &e, "not a root");
	expect_err("object as a primitive array type",
		   hprof_put_prim_array(&w, 1, 0, HPROF_T_OBJECT, 1, "\0\0\0\0", false, &e), -ERR_INTERNAL, &e,
		   "not a primitive type");
	expect_err("primitive type 12", hprof_put_prim_array(&w, 1, 0, 12, 1, "\0", false, &e), -ERR_INTERNAL, &e,
		   "not a primitive type");
	expect_err("class field of type 3", hprof_put_class_dump(&w, &cd, NULL, NULL, &bad, &e), -ERR_INTERNAL, &e,
		   "invalid type 3");
	hprof_writer_release(&w);
}

static void test_nomem(void)
{
	struct hprof_writer w;
	struct err e;
	unsigned long k, calls, failed = 0;

	T_SECTION("allocation failure: each allocation of a whole dump fails in turn");
	err_init(&e);
	calls = xalloc_calls();
	hprof_writer_init(&w, NULL, 8, &e);
	T_EQ_I(write_dump(&w, &e), 0);
	hprof_writer_release(&w);
	calls = xalloc_calls() - calls;
	printf("   the dump makes %lu allocations\n", calls);
	T_CHECK(calls > 0, "allocations counted");
	for (k = 1; k <= calls; k++) {
		int rc;
		err_init(&e);
		xalloc_fail_after(k);
		hprof_writer_init(&w, NULL, 8, &e);
		rc = write_dump(&w, &e);
		T_CHECK(xalloc_fail_pending() == 0, "allocation %lu was made", k);
		xalloc_fail_after(0);
		failed += rc == -ERR_NOMEM;
		T_CHECK(rc == -ERR_NOMEM && e.code == ERR_NOMEM, "allocation %lu: rc %d \"%s\"", k, rc, e.msg);
		hprof_writer_release(&w);
	}
	printf("   %lu of %lu failed allocations gave -ERR_NOMEM\n", failed, calls);
}

int main(void)
{
	test_top_records(4);
	test_top_records(8);
	test_sub_records(4);
	test_sub_records(8);
	test_segments();
	test_streaming();
	test_streaming_big();
	test_misuse();
	test_nomem();
	T_DONE();
}
