/* fuzz_hprof.c - libFuzzer target for the HPROF reader (output/hprof/hprof_reader.h): walks every record
 * and heap sub-record, decodes each one, and re-encodes it with the writer, which must give
 * back the same bytes.  Seeds: tests/fuzz/corpus/fuzz_hprof (written by
 * `build/tests/test_hprof --write-seeds DIR`). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "output/hprof/hprof_writer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_MAX_ENTRIES 64
#define FUZZ_MAX_ELEMENTS 1024

static void fuzz_same(struct hprof_writer *w, const struct hprof_sub *sub)
{
	/* the writer output (one sub-record in one fresh segment) must equal the input */
	if (w->buf.len != 9 + 1 + sub->body.len || w->buf.data[9] != sub->tag ||
	    memcmp(w->buf.data + 10, sub->body.base, sub->body.len) != 0)
		abort();
}

static int fuzz_class(struct hprof_writer *w, const struct hprof_sub *sub, unsigned id, struct err *e)
{
	struct hprof_class_dump cd;
	struct hprof_class_entry c[FUZZ_MAX_ENTRIES], s[FUZZ_MAX_ENTRIES], f[FUZZ_MAX_ENTRIES];
	unsigned n;
	int rc = hprof_class_dump_parse(sub, id, &cd, e);

	if (rc)
		return rc;
	if (cd.const_count > FUZZ_MAX_ENTRIES || cd.static_count > FUZZ_MAX_ENTRIES ||
	    cd.field_count > FUZZ_MAX_ENTRIES) {
		struct hprof_class_entry ent;
		while ((rc = hprof_class_next_constant(&cd, &ent, e)) == 1)
			;
		while (rc == 0 && (rc = hprof_class_next_static(&cd, &ent, e)) == 1)
			rc = 0;
		while (rc == 0 && (rc = hprof_class_next_field(&cd, &ent, e)) == 1)
			rc = 0;
		if (rc)
			abort();
		return 0;
	}
	for (n = 0; (rc = hprof_class_next_constant(&cd, &c[n], e)) == 1; n++)
		;
	if (rc == 0)
		for (n = 0; (rc = hprof_class_next_static(&cd, &s[n], e)) == 1; n++)
			;
	if (rc == 0)
		for (n = 0; (rc = hprof_class_next_field(&cd, &f[n], e)) == 1; n++)
			;
	if (rc)
		abort();        /* hprof_next_sub validated every entry already */
	if (hprof_put_class_dump(w, &cd, c, s, f, e))
		abort();
	return 0;
}

static int fuzz_sub(const struct hprof_sub *sub, unsigned id, struct err *e)
{
	union { struct hprof_root r; struct hprof_heap_info hi; struct hprof_instance in;
		struct hprof_obj_array oa; struct hprof_prim_array pa; } u;
	struct hprof_writer w;
	uint64_t elems[FUZZ_MAX_ELEMENTS];
	int rc = 0;
	bool encoded = true;

	hprof_writer_init(&w, NULL, id, e);
	switch (sub->tag) {
	case HPROF_HEAP_DUMP_INFO:
		if (!(rc = hprof_heap_info_parse(sub, id, &u.hi, e)))
			rc = hprof_put_heap_info(&w, &u.hi, e);
		break;
	case HPROF_CLASS_DUMP:
		rc = fuzz_class(&w, sub, id, e);
		encoded = w.buf.len > 0;
		break;
	case HPROF_INSTANCE_DUMP:
		if (!(rc = hprof_instance_parse(sub, id, &u.in, e)))
			rc = hprof_put_instance(&w, u.in.id, u.in.trace_serial, u.in.class_id, u.in.values.base,
						u.in.values.len, e);
		break;
	case HPROF_OBJ_ARRAY_DUMP:
		if ((rc = hprof_obj_array_parse(sub, id, &u.oa, e)))
			break;
		encoded = u.oa.count <= FUZZ_MAX_ELEMENTS;
		for (uint32_t i = 0; encoded && i < u.oa.count; i++)
			if (cur_uNbe(&u.oa.elements, id, &elems[i], e))
				abort();
		if (encoded)
			rc = hprof_put_obj_array(&w, u.oa.id, u.oa.trace_serial, u.oa.class_id, elems, u.oa.count, e);
		break;
	case HPROF_PRIM_ARRAY_DUMP: case HPROF_PRIM_ARRAY_NODATA:
		if (!(rc = hprof_prim_array_parse(sub, id, &u.pa, e)))
			rc = hprof_put_prim_array(&w, u.pa.id, u.pa.trace_serial, u.pa.type, u.pa.count,
						  u.pa.data.base, u.pa.nodata, e);
		break;
	default:
		if (!(rc = hprof_root_parse(sub, id, &u.r, e)))
			rc = hprof_put_root(&w, &u.r, e);
		break;
	}
	if (rc)
		abort();        /* decoders and encoders accept whatever hprof_next_sub accepted */
	if (encoded)
		fuzz_same(&w, sub);
	hprof_writer_release(&w);
	return 0;
}

static void fuzz_record(const struct hprof_record *rec, unsigned id)
{
	struct cursor body = rec->body;
	struct hprof_sub sub;
	struct err e;
	union { struct hprof_string s; struct hprof_load_class lc; } u;

	switch (rec->tag) {
	case HPROF_HEAP_DUMP: case HPROF_HEAP_DUMP_SEGMENT:
		while (hprof_next_sub(&body, id, &sub, &e) == 1)
			fuzz_sub(&sub, id, &e);
		break;
	case HPROF_STRING:
		hprof_string_parse(rec, id, &u.s, &e);
		break;
	case HPROF_LOAD_CLASS:
		hprof_load_class_parse(rec, id, &u.lc, &e);
		break;
	default:
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hprof_reader r;
	struct hprof_record rec;
	struct err e;

	if (hprof_reader_init(&r, data, size, "fuzz", &e))
		return 0;
	while (hprof_next(&r, &rec, &e) == 1)
		fuzz_record(&rec, r.id_size);
	return 0;
}
