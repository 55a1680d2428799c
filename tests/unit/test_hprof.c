/* test_hprof.c - HPROF reader, writer and converter (output/hprof/hprof_{reader,writer,conv}.h):
 * writer -> reader round trips for id sizes 4 and 8 over every record and sub-record kind,
 * segment rotation, every truncation of a small file, corrupted length and count fields,
 * and the hprof-conv rules on a hand-made Android file.
 *
 * `test_hprof --write-seeds DIR` writes the sample files into DIR (the fuzz seed corpus
 * tests/fuzz/corpus/fuzz_hprof is made this way). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "carver/base/outfile.h"
#include "output/hprof/hprof_writer.h"
#include "output/hprof/hprof_conv.h"
#include "t.h"

/* ---- a sample heap written with the writer ------------------------------------------------ */

static const uint8_t prim_types[] = { HPROF_T_BOOLEAN, HPROF_T_CHAR, HPROF_T_FLOAT, HPROF_T_DOUBLE,
				      HPROF_T_BYTE, HPROF_T_SHORT, HPROF_T_INT, HPROF_T_LONG };
static const uint8_t all_roots[] = {
	HPROF_ROOT_UNKNOWN, HPROF_ROOT_JNI_GLOBAL, HPROF_ROOT_JNI_LOCAL, HPROF_ROOT_JAVA_FRAME,
	HPROF_ROOT_NATIVE_STACK, HPROF_ROOT_STICKY_CLASS, HPROF_ROOT_THREAD_BLOCK, HPROF_ROOT_MONITOR_USED,
	HPROF_ROOT_THREAD_OBJECT, HPROF_ROOT_INTERNED_STRING, HPROF_ROOT_FINALIZING, HPROF_ROOT_DEBUGGER,
	HPROF_ROOT_REFERENCE_CLEANUP, HPROF_ROOT_VM_INTERNAL, HPROF_ROOT_JNI_MONITOR, HPROF_ROOT_UNREACHABLE,
};
#define NROOTS (sizeof(all_roots) / sizeof(all_roots[0]))

/* A value pattern that uses every byte of a type's width (id-sized for objects). */
static uint64_t sample_value(uint8_t type, unsigned id_size, unsigned salt)
{
	unsigned size = hprof_type_size(type, id_size);
	uint64_t v = 0x8877665544332211ull ^ ((uint64_t)salt * 0x0101010101010101ull);
	return size == 8 ? v : v & ((1ull << (8 * size)) - 1);
}

static void sample_class(struct hprof_class_dump *cd, struct hprof_class_entry *consts,
			 struct hprof_class_entry *statics, struct hprof_class_entry *fields, unsigned id)
{
	memset(cd, 0, sizeof(*cd));
	cd->class_id = id == 8 ? 0x7000000000001000ull : 0x1000;
	cd->trace_serial = 7;
	cd->super_id = 0x2000;
	cd->loader_id = 0x3000;
	cd->signers_id = 0x3100;
	cd->domain_id = 0x3200;
	cd->reserved1 = 0x3300;
	cd->reserved2 = 0x3400;
	cd->instance_size = 44;
	cd->const_count = 2;
	cd->static_count = 9;
	cd->field_count = 9;
	for (unsigned i = 0; i < 2; i++)
		consts[i] = (struct hprof_class_entry){ .key = 0x100 + i, .type = prim_types[i + 5],
							.value = sample_value(prim_types[i + 5], id, i) };
	for (unsigned i = 0; i < 9; i++) {
		uint8_t t = i == 8 ? HPROF_T_OBJECT : prim_types[i];
		statics[i] = (struct hprof_class_entry){ .key = 0x500 + i, .type = t, .value = sample_value(t, id, i) };
		fields[i] = (struct hprof_class_entry){ .key = 0x600 + i, .type = t };
	}
}

static struct hprof_root sample_root(uint8_t tag, unsigned i)
{
	struct hprof_root r = { .tag = tag, .id = 0x4000 + i };
	switch (tag) {
	case HPROF_ROOT_JNI_GLOBAL: r.ref_id = 0x4800 + i; break;
	case HPROF_ROOT_JNI_LOCAL: case HPROF_ROOT_JAVA_FRAME: case HPROF_ROOT_THREAD_OBJECT:
	case HPROF_ROOT_JNI_MONITOR:
		r.thread_serial = 10 + i;
		r.frame = 0xffffffffu - i;
		break;
	case HPROF_ROOT_NATIVE_STACK: case HPROF_ROOT_THREAD_BLOCK: r.thread_serial = 10 + i; break;
	default: break;
	}
	return r;
}

static uint8_t prim_data[8 * 5];

/* Writes a complete sample file; version "1.0.3" includes Android sub-records. */
static int write_sample(struct hprof_writer *w, const char *version, size_t cap, struct err *e)
{
	unsigned id = w->id_size;
	struct hprof_class_dump cd;
	struct hprof_class_entry consts[2], statics[9], fields[9];
	struct hprof_load_class lc = { .serial = 1, .class_id = 0x1000, .trace_serial = 2, .name_id = 0x21 };
	struct hprof_heap_info hi = { .heap_id = HPROF_HEAP_APP, .name_id = 0x22 };
	uint64_t elems[3] = { 0x1000, 0, id == 8 ? 0xfedcba9876543210ull : 0xfedcba98 };
	uint8_t values[40], frame[4 * 4 + 8];
	bool android = !strcmp(version, "1.0.3");
	int rc = 0;

	for (unsigned i = 0; i < sizeof(prim_data); i++)
		prim_data[i] = (uint8_t)(i * 37 + 1);
	for (unsigned i = 0; i < sizeof(values); i++)
		values[i] = (uint8_t)(0xa0 + i);
	memset(frame, 0x5a, sizeof(frame));
	hprof_writer_set_segments(w, HPROF_HEAP_DUMP_SEGMENT, cap);
	sample_class(&cd, consts, statics, fields, id);
	rc = hprof_write_header(w, version, 0x0000018000000123ull, e);
	if (!rc) rc = hprof_write_string(w, 0x21, "com.example.Foo", 15, e);
	if (!rc) rc = hprof_write_string(w, 0x22, "app", 3, e);
	if (!rc) rc = hprof_write_load_class(w, &lc, e);
	if (!rc) rc = hprof_write_record(w, HPROF_STACK_FRAME, 5, frame, 4 * id + 8 > sizeof(frame) ? sizeof(frame) : 4 * id + 8, e);
	if (!rc) rc = hprof_write_record(w, HPROF_CONTROL_SETTINGS, 0, "\0\0\0\1\0\4", 6, e);
	if (!rc && android) rc = hprof_put_heap_info(w, &hi, e);
	for (unsigned i = 0; i < NROOTS && !rc; i++) {
		struct hprof_root r = sample_root(all_roots[i], i);
		if (android || all_roots[i] < 0x80 || all_roots[i] == HPROF_ROOT_UNKNOWN)
			rc = hprof_put_root(w, &r, e);
	}
	if (!rc) rc = hprof_put_class_dump(w, &cd, consts, statics, fields, e);
	if (!rc) rc = hprof_put_instance(w, 0x5000, 3, 0x1000, values, sizeof(values), e);
	if (!rc) rc = hprof_put_instance(w, 0x5001, 3, 0x1000, NULL, 0, e);
	if (!rc) rc = hprof_put_obj_array(w, 0x6000, 4, 0x1100, elems, 3, e);
	if (!rc) rc = hprof_put_obj_array(w, 0x6001, 4, 0x1100, NULL, 0, e);
	for (unsigned i = 0; i < sizeof(prim_types) && !rc; i++)
		rc = hprof_put_prim_array(w, 0x7000 + i, 5, prim_types[i], 5 / hprof_type_size(prim_types[i], id),
					  prim_data, false, e);
	if (!rc && android) rc = hprof_put_prim_array(w, 0x7100, 6, HPROF_T_INT, 0, NULL, true, e);
	if (!rc) rc = hprof_write_heap_dump_end(w, e);
	return rc;
}

/* ---- reading it back ---------------------------------------------------------------------- */

static void check_class(const struct hprof_sub *sub, unsigned id)
{
	struct hprof_class_dump got, want;
	struct hprof_class_entry consts[2], statics[9], fields[9], ent;
	struct err e;
	unsigned n;
	int rc;

	sample_class(&want, consts, statics, fields, id);
	T_EQ_I(hprof_class_dump_parse(sub, id, &got, &e), 0);
	T_EQ_U(got.class_id, want.class_id);
	T_EQ_U(got.trace_serial, 7);
	T_EQ_U(got.super_id, 0x2000);
	T_EQ_U(got.loader_id, 0x3000);
	T_EQ_U(got.signers_id, 0x3100);
	T_EQ_U(got.domain_id, 0x3200);
	T_EQ_U(got.reserved1, 0x3300);
	T_EQ_U(got.reserved2, 0x3400);
	T_EQ_U(got.instance_size, 44);
	T_EQ_U(got.const_count, 2);
	T_EQ_U(got.static_count, 9);
	T_EQ_U(got.field_count, 9);
	for (n = 0; (rc = hprof_class_next_constant(&got, &ent, &e)) == 1; n++) {
		T_EQ_U(ent.key, consts[n].key);
		T_EQ_U(ent.type, consts[n].type);
		T_EQ_U(ent.value, consts[n].value);
	}
	T_EQ_I(rc, 0);
	T_EQ_U(n, 2);
	for (n = 0; (rc = hprof_class_next_static(&got, &ent, &e)) == 1; n++) {
		T_EQ_U(ent.key, statics[n].key);
		T_EQ_U(ent.type, statics[n].type);
		T_EQ_U(ent.value, statics[n].value);
	}
	T_EQ_I(rc, 0);
	T_EQ_U(n, 9);
	for (n = 0; (rc = hprof_class_next_field(&got, &ent, &e)) == 1; n++) {
		T_EQ_U(ent.key, fields[n].key);
		T_EQ_U(ent.type, fields[n].type);
	}
	T_EQ_I(rc, 0);
	T_EQ_U(n, 9);
}

struct seen { unsigned roots, classes, instances, obj_arrays, prim_arrays, nodata, infos, strings,
	      load_classes, segments, ends, other;
	      bool lax; /* corrupted input: decode only, do not compare values */ };

/* Every decoder must accept what hprof_next_sub accepted. */
static void decode_only(const struct hprof_sub *sub, unsigned id)
{
	union { struct hprof_root r; struct hprof_heap_info hi; struct hprof_instance in;
		struct hprof_obj_array oa; struct hprof_prim_array pa; struct hprof_class_dump cd; } u;
	struct hprof_class_entry ent;
	struct err e;
	int rc;

	switch (sub->tag) {
	case HPROF_HEAP_DUMP_INFO: rc = hprof_heap_info_parse(sub, id, &u.hi, &e); break;
	case HPROF_INSTANCE_DUMP: rc = hprof_instance_parse(sub, id, &u.in, &e); break;
	case HPROF_OBJ_ARRAY_DUMP: rc = hprof_obj_array_parse(sub, id, &u.oa, &e); break;
	case HPROF_PRIM_ARRAY_DUMP: case HPROF_PRIM_ARRAY_NODATA: rc = hprof_prim_array_parse(sub, id, &u.pa, &e); break;
	case HPROF_CLASS_DUMP:
		rc = hprof_class_dump_parse(sub, id, &u.cd, &e);
		while (rc == 0 && (rc = hprof_class_next_constant(&u.cd, &ent, &e)) == 1)
			rc = 0;
		while (rc == 0 && (rc = hprof_class_next_static(&u.cd, &ent, &e)) == 1)
			rc = 0;
		while (rc == 0 && (rc = hprof_class_next_field(&u.cd, &ent, &e)) == 1)
			rc = 0;
		break;
	default: rc = hprof_root_parse(sub, id, &u.r, &e); break;
	}
	if (rc)
		T_CHECK(rc == 0, "decoding accepted sub-record 0x%02x at 0x%llx: %s", sub->tag,
			(unsigned long long)sub->offset, e.msg);
}

static void check_sub(const struct hprof_sub *sub, unsigned id, struct seen *s)
{
	struct err e;
	union { struct hprof_root r; struct hprof_heap_info hi; struct hprof_instance in;
		struct hprof_obj_array oa; struct hprof_prim_array pa; } u;

	if (s->lax) {
		decode_only(sub, id);
		return;
	}
	switch (sub->tag) {
	case HPROF_HEAP_DUMP_INFO:
		T_EQ_I(hprof_heap_info_parse(sub, id, &u.hi, &e), 0);
		T_EQ_U(u.hi.heap_id, HPROF_HEAP_APP);
		T_EQ_U(u.hi.name_id, 0x22);
		s->infos++;
		break;
	case HPROF_CLASS_DUMP:
		check_class(sub, id);
		s->classes++;
		break;
	case HPROF_INSTANCE_DUMP:
		T_EQ_I(hprof_instance_parse(sub, id, &u.in, &e), 0);
		T_CHECK(u.in.id == 0x5000 || u.in.id == 0x5001, "instance id 0x%llx", (unsigned long long)u.in.id);
		T_EQ_U(u.in.class_id, 0x1000);
		T_EQ_U(u.in.trace_serial, 3);
		T_EQ_U(u.in.values.len, u.in.id == 0x5000 ? 40 : 0);
		if (u.in.values.len)
			T_EQ_U(u.in.values.base[39], 0xa0 + 39);
		s->instances++;
		break;
	case HPROF_OBJ_ARRAY_DUMP: {
		T_EQ_I(hprof_obj_array_parse(sub, id, &u.oa, &e), 0);
		T_EQ_U(u.oa.class_id, 0x1100);
		T_EQ_U(u.oa.elements.len, (size_t)u.oa.count * id);
		if (u.oa.count == 3) {
			uint64_t v;
			cur_uNbe(&u.oa.elements, id, &v, &e);
			T_EQ_U(v, 0x1000);
			cur_uNbe(&u.oa.elements, id, &v, &e);
			T_EQ_U(v, 0);
			cur_uNbe(&u.oa.elements, id, &v, &e);
			T_EQ_U(v, id == 8 ? 0xfedcba9876543210ull : 0xfedcba98);
		}
		s->obj_arrays++;
		break;
	}
	case HPROF_PRIM_ARRAY_DUMP: case HPROF_PRIM_ARRAY_NODATA:
		T_EQ_I(hprof_prim_array_parse(sub, id, &u.pa, &e), 0);
		T_EQ_U(u.pa.nodata, sub->tag == HPROF_PRIM_ARRAY_NODATA);
		T_EQ_U(u.pa.data.len, u.pa.nodata ? 0 : (size_t)u.pa.count * hprof_type_size(u.pa.type, id));
		if (!u.pa.nodata)
			T_CHECK(!memcmp(u.pa.data.base, prim_data, u.pa.data.len), "primitive array 0x%llx data",
				(unsigned long long)u.pa.id);
		s->nodata += u.pa.nodata;
		s->prim_arrays++;
		break;
	default: {
		unsigned i;
		struct hprof_root want;
		T_CHECK(hprof_sub_is_root(sub->tag), "tag 0x%02x is a root", sub->tag);
		T_EQ_I(hprof_root_parse(sub, id, &u.r, &e), 0);
		for (i = 0; i < NROOTS && all_roots[i] != sub->tag; i++)
			;
		want = sample_root(sub->tag, i);
		T_EQ_U(u.r.id, want.id);
		T_EQ_U(u.r.ref_id, want.ref_id);
		T_EQ_U(u.r.thread_serial, want.thread_serial);
		T_EQ_U(u.r.frame, want.frame);
		s->roots++;
	}
	}
}

/* Walks a whole file; returns the first error code (0 if it parsed to the end). */
static int walk(const uint8_t *p, size_t n, struct seen *s, struct err *e)
{
	struct hprof_reader r;
	struct hprof_record rec;
	int rc = hprof_reader_init(&r, p, n, "sample", e);

	while (rc == 0 && (rc = hprof_next(&r, &rec, e)) == 1) {
		rc = 0;
		if (rec.tag == HPROF_HEAP_DUMP_SEGMENT || rec.tag == HPROF_HEAP_DUMP) {
			struct hprof_sub sub;
			s->segments++;
			while ((rc = hprof_next_sub(&rec.body, r.id_size, &sub, e)) == 1)
				check_sub(&sub, r.id_size, s);
		} else if (rec.tag == HPROF_STRING) {
			struct hprof_string str;
			rc = hprof_string_parse(&rec, r.id_size, &str, e);
			s->strings++;
		} else if (rec.tag == HPROF_LOAD_CLASS) {
			struct hprof_load_class lc;
			rc = hprof_load_class_parse(&rec, r.id_size, &lc, e);
			T_EQ_U(lc.class_id, 0x1000);
			T_EQ_U(lc.name_id, 0x21);
			s->load_classes++;
		} else if (rec.tag == HPROF_HEAP_DUMP_END) {
			T_EQ_U(rec.body.len, 0);
			s->ends++;
		} else {
			s->other++;
		}
	}
	return rc;
}

static void test_round_trip(unsigned id, const char *version)
{
	struct hprof_writer w;
	struct hprof_reader r;
	struct seen s = { 0 };
	struct err e;
	bool android = !strcmp(version, "1.0.3");
	char sect[64];

	snprintf(sect, sizeof(sect), "round trip id %u version %s", id, version);
	T_SECTION(sect);
	T_EQ_I(hprof_writer_init(&w, NULL, id, &e), 0);
	T_EQ_I(write_sample(&w, version, HPROF_SEGMENT_CAP_DEFAULT, &e), 0);
	T_EQ_I(hprof_reader_init(&r, w.buf.data, w.buf.len, "x", &e), 0);
	T_EQ_U(r.id_size, id);
	T_EQ_U(r.timestamp, 0x0000018000000123ull);
	T_EQ_U(r.minor, version[4] - '0');
	T_EQ_I(walk(w.buf.data, w.buf.len, &s, &e), 0);
	T_EQ_U(s.roots, android ? NROOTS : 9);
	T_EQ_U(s.classes, 1);
	T_EQ_U(s.instances, 2);
	T_EQ_U(s.obj_arrays, 2);
	T_EQ_U(s.prim_arrays, android ? 9 : 8);
	T_EQ_U(s.nodata, android ? 1 : 0);
	T_EQ_U(s.infos, android ? 1 : 0);
	T_EQ_U(s.strings, 2);
	T_EQ_U(s.load_classes, 1);
	T_EQ_U(s.segments, 1);
	T_EQ_U(s.ends, 1);
	T_EQ_U(s.other, 2);
	hprof_writer_release(&w);
}

/* Segments rotate at the cap, none is empty, and sub-records never straddle two. */
static void test_segments(void)
{
	struct hprof_writer w;
	struct hprof_reader r;
	struct hprof_record rec;
	struct seen s = { 0 };
	struct err e;
	unsigned segments = 0, bad = 0;

	T_SECTION("segment cap");
	hprof_writer_init(&w, NULL, 4, &e);
	T_EQ_I(write_sample(&w, "1.0.3", 40, &e), 0);
	T_EQ_I(walk(w.buf.data, w.buf.len, &s, &e), 0);
	T_EQ_U(s.roots, NROOTS);
	T_EQ_U(s.prim_arrays, 9);
	hprof_reader_init(&r, w.buf.data, w.buf.len, "x", &e);
	while (hprof_next(&r, &rec, &e) == 1) {
		if (rec.tag != HPROF_HEAP_DUMP_SEGMENT)
			continue;
		segments++;
		/* a body over the cap holds exactly one sub-record */
		if (rec.body.len == 0 || rec.body.len > 40) {
			struct hprof_sub sub;
			struct cursor b = rec.body;
			bad += rec.body.len == 0 || hprof_next_sub(&b, 4, &sub, &e) != 1 || cur_remaining(&b) != 0;
		}
	}
	T_EQ_U(segments, w.segments);
	T_CHECK(segments > 10, "%u segments with a 40-byte cap", segments);
	T_EQ_U(bad, 0);
	hprof_writer_release(&w);

	/* the cap is clamped; 0 means "as large as allowed" */
	hprof_writer_init(&w, NULL, 4, &e);
	hprof_writer_set_segments(&w, HPROF_HEAP_DUMP, 0);
	T_EQ_U(w.segment_cap, HPROF_SEGMENT_CAP_MAX);
	hprof_writer_release(&w);
}

/* Every prefix of a sample file: parses cleanly only when it ends on a record boundary, and
 * never reads out of bounds (ASan build). */
static void test_truncations(unsigned id)
{
	struct hprof_writer w;
	struct err e;
	unsigned ok = 0, failed_with_offset = 0, total = 0;
	uint8_t *copy;

	T_SECTION("every truncation");
	hprof_writer_init(&w, NULL, id, &e);
	write_sample(&w, "1.0.3", HPROF_SEGMENT_CAP_DEFAULT, &e);
	for (size_t n = 0; n < w.buf.len; n++) {
		struct seen s = { .lax = true };
		copy = malloc(n ? n : 1);
		memcpy(copy, w.buf.data, n);
		err_init(&e);
		total++;
		if (walk(copy, n, &s, &e) == 0)
			ok++;
		else if (strstr(e.msg, "0x") && e.code != ERR_INTERNAL)
			failed_with_offset++;
		else
			printf("truncation to %zu: message without offset: %s\n", n, e.msg);
		free(copy);
	}
	/* the header alone, then the ends of 2 strings, load class, frame, settings, segment (the
	 * END record ends at the full length, which is not a truncation) */
	T_EQ_U(ok, 7);
	T_EQ_U(ok + failed_with_offset, total);
	hprof_writer_release(&w);
}

static uint8_t *sample_bytes(unsigned id, size_t *len)
{
	struct hprof_writer w;
	struct err e;
	uint8_t *p;

	hprof_writer_init(&w, NULL, id, &e);
	write_sample(&w, "1.0.3", HPROF_SEGMENT_CAP_DEFAULT, &e);
	p = malloc(w.buf.len);
	memcpy(p, w.buf.data, w.buf.len);
	*len = w.buf.len;
	hprof_writer_release(&w);
	return p;
}

/* Offset of the first record with `tag`, or 0. */
static size_t find_record(const uint8_t *p, size_t n, uint8_t tag)
{
	struct hprof_reader r;
	struct hprof_record rec;
	struct err e;

	hprof_reader_init(&r, p, n, "x", &e);
	while (hprof_next(&r, &rec, &e) == 1)
		if (rec.tag == tag)
			return rec.offset;
	return 0;
}

static size_t find_sub(const uint8_t *p, size_t n, uint8_t tag)
{
	struct hprof_reader r;
	struct hprof_record rec;
	struct hprof_sub sub;
	struct err e;

	hprof_reader_init(&r, p, n, "x", &e);
	while (hprof_next(&r, &rec, &e) == 1)
		while (rec.tag == HPROF_HEAP_DUMP_SEGMENT && hprof_next_sub(&rec.body, r.id_size, &sub, &e) == 1)
			if (sub.tag == tag)
				return sub.offset;
	return 0;
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* Sets the u4 at off to each of 0, 0xffffffff, orig+1 and expects a clean error. */
static void corrupt_u32(uint8_t *p, size_t n, size_t off, const char *what, bool zero_ok)
{
	static const char *const kinds[] = { "0", "0xffffffff", "len+1" };
	uint32_t orig = ld_u32be(p + off);
	uint32_t vals[3] = { 0, 0xffffffffu, orig + 1 };

	for (unsigned k = 0; k < 3; k++) {
		struct seen s = { .lax = true };
		struct err e;
		int rc;
		put32(p + off, vals[k]);
		err_init(&e);
		rc = walk(p, n, &s, &e);
		if (k == 0 && zero_ok)
			continue;
		T_CHECK(rc < 0 && e.code != ERR_INTERNAL && strstr(e.msg, "0x"), "%s set to %s: rc %d, \"%s\"", what,
			kinds[k], rc, e.msg);
	}
	put32(p + off, orig);
}

static void test_corrupt_lengths(void)
{
	size_t n, off;
	uint8_t *p = sample_bytes(4, &n);
	struct seen s = { .lax = true };
	struct err e;

	T_SECTION("corrupted length fields");
	off = find_record(p, n, HPROF_HEAP_DUMP_SEGMENT);
	T_CHECK(off > 0, "segment found");
	corrupt_u32(p, n, off + 5, "segment length", false);
	off = find_record(p, n, HPROF_STRING);
	corrupt_u32(p, n, off + 5, "STRING length", false);
	off = find_sub(p, n, HPROF_INSTANCE_DUMP);
	corrupt_u32(p, n, off + 1 + 4 + 4 + 4, "instance byte count", false);
	off = find_sub(p, n, HPROF_OBJ_ARRAY_DUMP);
	corrupt_u32(p, n, off + 1 + 4 + 4, "object array count", false);
	off = find_sub(p, n, HPROF_PRIM_ARRAY_DUMP);
	/* count 0 turns the elements into plausible sub-records, so only the others must fail */
	corrupt_u32(p, n, off + 1 + 4 + 4, "primitive array count", true);

	/* bad element type, bad class entry type, unknown sub tag, bad header fields */
	off = find_sub(p, n, HPROF_PRIM_ARRAY_DUMP);
	p[off + 1 + 4 + 8] = HPROF_T_OBJECT;
	err_init(&e);
	T_CHECK(walk(p, n, &s, &e) == -ERR_CORRUPT && strstr(e.msg, "not a primitive type"), "%s", e.msg);
	p[off + 1 + 4 + 8] = HPROF_T_BOOLEAN;
	off = find_sub(p, n, HPROF_CLASS_DUMP);
	p[off + 1 + 7 * 4 + 8 + 2 + 2] = 3;   /* first constant's type */
	err_init(&e);
	T_CHECK(walk(p, n, &s, &e) == -ERR_CORRUPT && strstr(e.msg, "invalid type 3"), "%s", e.msg);
	p[off + 1 + 7 * 4 + 8 + 2 + 2] = HPROF_T_SHORT;
	p[off] = 0x77;
	err_init(&e);
	T_CHECK(walk(p, n, &s, &e) == -ERR_CORRUPT && strstr(e.msg, "unknown tag 0x77"), "%s", e.msg);
	p[off] = HPROF_CLASS_DUMP;
	p[22] = 5;  /* id size 0x00000405 */
	err_init(&e);
	T_CHECK(walk(p, n, &s, &e) == -ERR_UNSUP && strstr(e.msg, "identifier size"), "%s", e.msg);
	p[22] = 4;
	p[0] = 'j';
	err_init(&e);
	T_CHECK(walk(p, n, &s, &e) == -ERR_CORRUPT && strstr(e.msg, "not an HPROF file"), "%s", e.msg);
	p[0] = 'J';
	T_EQ_I(walk(p, n, &s, &e), 0);
	free(p);
}

static void test_header_versions(void)
{
	static const struct { const char *v; int rc; unsigned minor; } cases[] = {
		{ "1.0", 0, 0 }, { "1.0.1", 0, 1 }, { "1.0.2", 0, 2 }, { "1.0.3", 0, 3 },
		{ "1.0.4", -ERR_UNSUP, 0 }, { "1.0.10", -ERR_UNSUP, 0 }, { "2.0", -ERR_UNSUP, 0 },
	};
	T_SECTION("header versions");
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct hprof_writer w;
		struct hprof_reader r;
		struct err e;
		hprof_writer_init(&w, NULL, 8, &e);
		hprof_write_header(&w, cases[i].v, 1, &e);
		T_EQ_I(hprof_reader_init(&r, w.buf.data, w.buf.len, "x", &e), cases[i].rc);
		if (cases[i].rc == 0)
			T_EQ_U(r.minor, cases[i].minor);
		hprof_writer_release(&w);
	}
	{       /* no NUL within the maximum length */
		struct hprof_reader r;
		struct err e;
		const char *s = "JAVA PROFILE 1.0.2.....................";
		T_EQ_I(hprof_reader_init(&r, (const uint8_t *)s, strlen(s), "x", &e), -ERR_CORRUPT);
		T_CHECK(hprof_probe((const uint8_t *)s, strlen(s)), "probe");
		T_CHECK(!hprof_probe((const uint8_t *)"JAVA", 4), "short probe");
	}
	T_EQ_U(hprof_type_size(HPROF_T_OBJECT, 8), 8);
	T_EQ_U(hprof_type_size(HPROF_T_OBJECT, 4), 4);
	T_EQ_U(hprof_type_size(HPROF_T_LONG, 4), 8);
	T_EQ_U(hprof_type_size(HPROF_T_CHAR, 4), 2);
	T_EQ_U(hprof_type_size(HPROF_T_BOOLEAN, 4), 1);
	T_EQ_U(hprof_type_size(1, 4), 0);
	T_EQ_U(hprof_type_size(12, 4), 0);
	T_EQ_S(hprof_tag_name(HPROF_HEAP_DUMP_SEGMENT), "HEAP_DUMP_SEGMENT");
	T_EQ_S(hprof_sub_name(HPROF_PRIM_ARRAY_NODATA), "PRIMITIVE_ARRAY_NODATA");
	T_EQ_S(hprof_type_name(HPROF_T_DOUBLE), "double");
}

/* Writer misuse is an internal error, never a crash. */
static void test_writer_errors(void)
{
	struct hprof_writer w;
	struct hprof_root bad = { .tag = HPROF_CLASS_DUMP };
	struct err e;

	T_SECTION("writer errors");
	T_EQ_I(hprof_writer_init(&w, NULL, 2, &e), -ERR_UNSUP);
	hprof_writer_init(&w, NULL, 4, &e);
	T_EQ_I(hprof_record_end(&w, &e), -ERR_INTERNAL);
	T_EQ_I(hprof_put_root(&w, &bad, &e), -ERR_INTERNAL);
	T_EQ_I(hprof_put_prim_array(&w, 1, 0, HPROF_T_OBJECT, 0, NULL, false, &e), -ERR_INTERNAL);
	T_EQ_I(hprof_record_begin(&w, HPROF_STRING, 0, &e), 0);
	T_EQ_I(hprof_record_begin(&w, HPROF_STRING, 0, &e), -ERR_INTERNAL);
	hprof_writer_release(&w);
	hprof_writer_init(&w, NULL, 4, &e);
	T_EQ_I(hprof_record_begin_sized(&w, HPROF_STRING, 0, 8, &e), 0);
	wbuf_zeros(&w.buf, 7);
	T_EQ_I(hprof_record_end_sized(&w, &e), -ERR_INTERNAL);
	hprof_writer_release(&w);
}

/* Through a real output file: same bytes as the in-memory writer. */
static void test_outf(void)
{
	struct hprof_writer w, m;
	struct outf of;
	struct err e;
	char path[] = "/tmp/test_hprof_XXXXXX";
	int fd = mkstemp(path);
	FILE *fp;
	uint8_t *back;
	long n;

	T_SECTION("writer through outf");
	close(fd);
	T_EQ_I(outf_open(&of, path, &e), 0);
	hprof_writer_init(&w, &of, 8, &e);
	T_EQ_I(write_sample(&w, "1.0.3", 64, &e), 0);
	T_EQ_I(hprof_writer_flush(&w, &e), 0);
	T_EQ_U(w.buf.len, 0);
	T_EQ_I(outf_commit(&of, &e), 0);
	hprof_writer_init(&m, NULL, 8, &e);
	write_sample(&m, "1.0.3", 64, &e);
	fp = fopen(path, "rb");
	fseek(fp, 0, SEEK_END);
	n = ftell(fp);
	rewind(fp);
	back = malloc((size_t)n);
	T_EQ_U(fread(back, 1, (size_t)n, fp), (size_t)n);
	fclose(fp);
	T_EQ_U((size_t)n, m.buf.len);
	T_CHECK(!memcmp(back, m.buf.data, m.buf.len), "file bytes equal in-memory bytes");
	T_EQ_U(w.flushed, m.buf.len);
	free(back);
	unlink(path);
	hprof_writer_release(&w);
	hprof_writer_release(&m);
}

/* hprof-conv rules on the hand-made Android file. */
static void test_conv(unsigned id, bool app_only)
{
	size_t n;
	uint8_t *p = sample_bytes(id, &n);
	struct outf of;
	struct hprof_conv_opts opts = { .app_only = app_only };
	struct hprof_conv_stats st;
	struct err e;
	char path[] = "/tmp/test_hprof_conv_XXXXXX";
	int fd = mkstemp(path);
	FILE *fp;
	uint8_t out[4096];
	size_t m;
	struct hprof_reader r;
	struct hprof_record rec;
	struct hprof_sub sub;
	unsigned unknown = 0, android = 0, nodata_ok = 0, subs = 0;

	printf("-- convert id %u%s\n", id, app_only ? " --app-only" : "");
	close(fd);
	outf_open(&of, path, &e);
	T_EQ_I(hprof_conv(p, n, "sample", &of, &opts, &st, &e), 0);
	T_EQ_I(outf_commit(&of, &e), 0);
	fp = fopen(path, "rb");
	m = fread(out, 1, sizeof(out), fp);
	fclose(fp);
	unlink(path);
	T_EQ_I(hprof_reader_init(&r, out, m, "conv", &e), 0);
	T_EQ_S(r.version, "JAVA PROFILE 1.0.2");
	while (hprof_next(&r, &rec, &e) == 1) {
		if (rec.tag != HPROF_HEAP_DUMP_SEGMENT)
			continue;
		while (hprof_next_sub(&rec.body, id, &sub, &e) == 1) {
			const uint8_t *b = sub.body.base;
			subs++;
			unknown += sub.tag == HPROF_ROOT_UNKNOWN;
			android += sub.tag >= 0x80 && sub.tag != HPROF_ROOT_UNKNOWN;
			if (sub.tag == HPROF_ROOT_UNKNOWN)
				T_EQ_U(sub.body.len, id);
			if (sub.tag == HPROF_PRIM_ARRAY_DUMP && ld_u32be(b + id - 4) == 0x7100)
				nodata_ok += ld_u32be(b + id) == 0 && ld_u32be(b + id + 4) == 0 &&
					     b[id + 8] == HPROF_T_INT && sub.body.len == id + 9u;
		}
		T_EQ_U(cur_remaining(&rec.body), 0);
	}
	T_EQ_U(android, 0);
	T_EQ_U(unknown, 8);     /* ROOT_UNKNOWN plus the 7 Android roots */
	/* the sample's heap is "app", so --app-only keeps everything */
	T_EQ_U(nodata_ok, 1);
	T_EQ_U(subs, NROOTS + 1 + 2 + 2 + 9);
	T_EQ_U(st.subs_in, subs + 1);
	T_EQ_U(st.dropped_objects, 0);
	free(p);
}

/* --app-only drops objects of a zygote heap and the segment they leave empty. */
static void test_conv_zygote(void)
{
	struct hprof_writer w;
	struct hprof_heap_info hi = { .heap_id = HPROF_HEAP_ZYGOTE, .name_id = 0x22 };
	struct hprof_conv_opts opts = { .app_only = true };
	struct hprof_conv_stats st;
	struct outf of;
	struct err e;
	char path[] = "/tmp/test_hprof_z_XXXXXX";
	int fd = mkstemp(path);
	uint8_t values[4] = { 1, 2, 3, 4 };
	uint8_t out[512];
	size_t m;
	FILE *fp;

	T_SECTION("convert --app-only, zygote heap");
	close(fd);
	hprof_writer_init(&w, NULL, 4, &e);
	hprof_write_header(&w, "1.0.3", 0, &e);
	hprof_put_heap_info(&w, &hi, &e);
	hprof_put_instance(&w, 0x10, 0, 0x20, values, 4, &e);
	hprof_heap_finish(&w, &e);
	hprof_put_instance(&w, 0x11, 0, 0x20, values, 4, &e);      /* default heap: kept */
	hprof_write_heap_dump_end(&w, &e);
	outf_open(&of, path, &e);
	T_EQ_I(hprof_conv(w.buf.data, w.buf.len, "z", &of, &opts, &st, &e), 0);
	outf_commit(&of, &e);
	T_EQ_U(st.dropped_objects, 1);
	T_EQ_U(st.dropped_segments, 1);
	T_EQ_U(st.records_out, 2);
	fp = fopen(path, "rb");
	m = fread(out, 1, sizeof(out), fp);
	fclose(fp);
	unlink(path);
	/* header 31 + segment (9 + 1 + 4+4+4+4 + 4) + END 9 */
	T_EQ_U(m, 31 + 30 + 9);
	hprof_writer_release(&w);
}

/* Writes the sample files used as the fuzz seed corpus. */
static int write_seeds(const char *dir)
{
	static const struct { const char *name; unsigned id; const char *version; size_t cap; } seeds[] = {
		{ "android-id4.hprof", 4, "1.0.3", HPROF_SEGMENT_CAP_DEFAULT },
		{ "android-id4-small-segments.hprof", 4, "1.0.3", 48 },
		{ "android-id8.hprof", 8, "1.0.3", HPROF_SEGMENT_CAP_DEFAULT },
		{ "jvm-id8.hprof", 8, "1.0.2", HPROF_SEGMENT_CAP_DEFAULT },
		{ "jvm-id4-101.hprof", 4, "1.0.1", HPROF_SEGMENT_CAP_DEFAULT },
		{ "old-10.hprof", 4, "1.0", 100 },
	};
	for (unsigned i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
		struct hprof_writer w;
		struct err e;
		char path[4096];
		FILE *fp;
		snprintf(path, sizeof(path), "%s/%s", dir, seeds[i].name);
		hprof_writer_init(&w, NULL, seeds[i].id, &e);
		if (write_sample(&w, seeds[i].version, seeds[i].cap, &e))
			return 1;
		if (!strcmp(seeds[i].version, "1.0.1")) {
			/* a 1.0.1 file has one HEAP_DUMP: rewrite the segment tag */
			struct hprof_reader r;
			struct hprof_record rec;
			hprof_reader_init(&r, w.buf.data, w.buf.len, "x", &e);
			while (hprof_next(&r, &rec, &e) == 1)
				if (rec.tag == HPROF_HEAP_DUMP_SEGMENT)
					w.buf.data[rec.offset] = HPROF_HEAP_DUMP;
			w.buf.len -= 9;         /* and drop HEAP_DUMP_END */
		}
		fp = fopen(path, "wb");
		if (!fp || fwrite(w.buf.data, 1, w.buf.len, fp) != w.buf.len || fclose(fp))
			return 1;
		hprof_writer_release(&w);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--write-seeds"))
		return write_seeds(argv[2]);
	test_header_versions();
	test_round_trip(4, "1.0.3");
	test_round_trip(8, "1.0.3");
	test_round_trip(4, "1.0.2");
	test_round_trip(8, "1.0.1");
	test_segments();
	test_truncations(4);
	test_truncations(8);
	test_corrupt_lengths();
	test_writer_errors();
	test_outf();
	test_conv(4, false);
	test_conv(4, true);
	test_conv(8, false);
	test_conv_zygote();
	T_DONE();
}
