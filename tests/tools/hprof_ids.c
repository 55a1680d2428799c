/* hprof_ids.c - writes a copy of an HPROF whose object ids are all renumbered as
 * id * MUL + ADD (0 stays 0), for the codec benchmark (bench/codec.sh):
 *
 *   hprof_ids IN OUT MUL ADD
 *
 * e.g. MUL 8 turns a decrunched dump's ids 1, 2, 3... into 8-aligned ones as a JVM or ART
 * writes them, so `crunch` can be timed on the same heap with unaligned and aligned ids.
 * Object ids are rewritten wherever they occur: roots, class dumps (class, super, loader,
 * signers, protection domain, object constants and statics), LOAD_CLASS, instances (the
 * object fields of their class chain, from the class dumps of a first pass), object array
 * elements and every dump's own id.  Strings, frames and serials keep their numbers; other
 * top-level records are copied.  The heap dump records are written as one HEAP_DUMP (or
 * HEAP_DUMP_SEGMENTs of the same size as the input's) by the HPROF writer.  Exit 0, or 1
 * with a message.  This tool reads the HPROF on its own (output/hprof/hprof_reader.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "carver/base/mapfile.h"
#include "carver/base/outfile.h"
#include "carver/base/xalloc.h"
#include "output/hprof/hprof_writer.h"

struct icls { uint64_t id, super; uint32_t f0, nf; };

struct ids {
	struct hprof_reader r;
	unsigned id;
	uint64_t mul, add, max;
	struct icls *cls;
	size_t ncls, capcls;
	uint8_t *ftype;         /* instance field types of every class, f0.. per class */
	size_t nf, capf;
	struct err e;
};

static int fail(struct ids *t, const char *what)
{
	fprintf(stderr, "hprof_ids: %s%s%s\n", what, t->e.msg[0] ? ": " : "", t->e.msg);
	return 1;
}

static int map_id(const struct ids *t, uint64_t id, uint64_t *out)
{
	if (id == 0) {
		*out = 0;
		return 0;
	}
	if (id > (t->max - t->add) / t->mul)
		return -1;
	*out = id * t->mul + t->add;
	return 0;
}

static int cls_cmp(const void *a, const void *b)
{
	const struct icls *x = a, *y = b;
	return x->id < y->id ? -1 : x->id > y->id;
}

static const struct icls *cls_find(const struct ids *t, uint64_t id)
{
	struct icls key = { id, 0, 0, 0 };
	return bsearch(&key, t->cls, t->ncls, sizeof(key), cls_cmp);
}

/* Pass 1: each class's super and instance field types. */
static int collect(struct ids *t, const struct hprof_sub *sub)
{
	struct hprof_class_dump cd;
	struct hprof_class_entry f;
	int rc;

	if (hprof_class_dump_parse(sub, t->id, &cd, &t->e))
		return -1;
	if (XALLOC_GROW(t->cls, t->capcls, t->ncls + 1, 256))
		return -1;
	t->cls[t->ncls] = (struct icls){ cd.class_id, cd.super_id, (uint32_t)t->nf, cd.field_count };
	t->ncls++;
	while ((rc = hprof_class_next_field(&cd, &f, &t->e)) == 1) {
		if (XALLOC_GROW(t->ftype, t->capf, t->nf + 1, 1024))
			return -1;
		t->ftype[t->nf++] = f.type;
	}
	return rc;
}

static int each_heap_sub(struct ids *t, int (*fn)(struct ids *, const struct hprof_sub *, void *), void *ctx)
{
	struct hprof_record rec;
	int rc;

	t->r.c.pos = t->r.header_len;
	while ((rc = hprof_next(&t->r, &rec, &t->e)) == 1) {
		struct cursor body = rec.body;
		struct hprof_sub sub;
		if (rec.tag != HPROF_HEAP_DUMP && rec.tag != HPROF_HEAP_DUMP_SEGMENT)
			continue;
		while ((rc = hprof_next_sub(&body, t->id, &sub, &t->e)) == 1)
			if ((rc = fn(t, &sub, ctx)))
				return rc;
		if (rc)
			return rc;
	}
	return rc;
}

static int collect_cb(struct ids *t, const struct hprof_sub *sub, void *ctx)
{
	(void)ctx;
	return sub->tag == HPROF_CLASS_DUMP ? collect(t, sub) : 0;
}

/* Rewrites the object fields of an instance payload in place (class chain order). */
static int fix_values(const struct ids *t, uint64_t class_id, uint8_t *v, size_t len)
{
	size_t at = 0;

	for (unsigned depth = 0; class_id && depth < 256; depth++) {
		const struct icls *c = cls_find(t, class_id);
		if (!c)
			return -1;
		for (uint32_t i = 0; i < c->nf; i++) {
			uint8_t type = t->ftype[c->f0 + i];
			unsigned size = hprof_type_size(type, t->id);
			uint64_t x, y;
			if (size == 0 || size > len - at)
				return -1;
			if (type == HPROF_T_OBJECT) {
				x = t->id == 4 ? ld_u32be(v + at) : ld_u64be(v + at);
				if (map_id(t, x, &y))
					return -1;
				for (unsigned k = 0; k < t->id; k++)
					v[at + k] = (uint8_t)(y >> (8 * (t->id - 1 - k)));
			}
			at += size;
		}
		class_id = c->super;
	}
	return at == len ? 0 : -1;
}

static int entries(struct ids *t, struct hprof_class_dump *cd, int (*next)(struct hprof_class_dump *,
		   struct hprof_class_entry *, struct err *), struct hprof_class_entry *out, uint16_t n, bool values)
{
	for (uint16_t i = 0; i < n; i++) {
		if (next(cd, &out[i], &t->e) != 1)
			return -1;
		if (values && out[i].type == HPROF_T_OBJECT && map_id(t, out[i].value, &out[i].value))
			return -1;
	}
	return 0;
}

static int put_class(struct ids *t, struct hprof_writer *w, const struct hprof_sub *sub)
{
	struct hprof_class_dump cd;
	struct hprof_class_entry *k, *s, *f;
	int rc = -1;

	if (hprof_class_dump_parse(sub, t->id, &cd, &t->e))
		return -1;
	k = xcalloc(cd.const_count + 1u, sizeof(*k));
	s = xcalloc(cd.static_count + 1u, sizeof(*s));
	f = xcalloc(cd.field_count + 1u, sizeof(*f));
	if (k && s && f && !entries(t, &cd, hprof_class_next_constant, k, cd.const_count, true) &&
	    !entries(t, &cd, hprof_class_next_static, s, cd.static_count, true) &&
	    !entries(t, &cd, hprof_class_next_field, f, cd.field_count, false) &&
	    !map_id(t, cd.class_id, &cd.class_id) && !map_id(t, cd.super_id, &cd.super_id) &&
	    !map_id(t, cd.loader_id, &cd.loader_id) && !map_id(t, cd.signers_id, &cd.signers_id) &&
	    !map_id(t, cd.domain_id, &cd.domain_id))
		rc = hprof_put_class_dump(w, &cd, k, s, f, &t->e);
	xfree(k);
	xfree(s);
	xfree(f);
	return rc;
}

static int put_sub(struct ids *t, const struct hprof_sub *sub, void *ctx)
{
	struct hprof_writer *w = ctx;
	union { struct hprof_root root; struct hprof_instance in; struct hprof_obj_array oa;
		struct hprof_prim_array pa; } u;
	uint64_t id, cls;
	int rc = -1;

	switch (sub->tag) {
	case HPROF_CLASS_DUMP:
		return put_class(t, w, sub);
	case HPROF_INSTANCE_DUMP: {
		uint8_t *v;
		if (hprof_instance_parse(sub, t->id, &u.in, &t->e) || map_id(t, u.in.id, &id) ||
		    map_id(t, u.in.class_id, &cls) || !(v = xmalloc(u.in.values.len + 1)))
			return -1;
		memcpy(v, u.in.values.base, u.in.values.len);
		if (fix_values(t, u.in.class_id, v, u.in.values.len) == 0)
			rc = hprof_put_instance(w, id, u.in.trace_serial, cls, v, u.in.values.len, &t->e);
		xfree(v);
		return rc;
	}
	case HPROF_OBJ_ARRAY_DUMP: {
		uint64_t *el;
		if (hprof_obj_array_parse(sub, t->id, &u.oa, &t->e) || map_id(t, u.oa.id, &id) ||
		    map_id(t, u.oa.class_id, &cls) || !(el = xcalloc(u.oa.count + 1u, sizeof(*el))))
			return -1;
		rc = 0;
		for (uint32_t i = 0; i < u.oa.count && rc == 0; i++) {
			uint64_t x;
			rc = cur_uNbe(&u.oa.elements, t->id, &x, &t->e) || map_id(t, x, &el[i]) ? -1 : 0;
		}
		if (rc == 0)
			rc = hprof_put_obj_array(w, id, u.oa.trace_serial, cls, el, u.oa.count, &t->e);
		xfree(el);
		return rc;
	}
	case HPROF_PRIM_ARRAY_DUMP: case HPROF_PRIM_ARRAY_NODATA:
		if (hprof_prim_array_parse(sub, t->id, &u.pa, &t->e) || map_id(t, u.pa.id, &id))
			return -1;
		return hprof_put_prim_array(w, id, u.pa.trace_serial, u.pa.type, u.pa.count, u.pa.data.base, u.pa.nodata,
					    &t->e);
	case HPROF_HEAP_DUMP_INFO:
		return hprof_put_sub_raw(w, sub, &t->e);
	default:
		if (hprof_root_parse(sub, t->id, &u.root, &t->e) || map_id(t, u.root.id, &u.root.id))
			return -1;
		return hprof_put_root(w, &u.root, &t->e);
	}
}

/* Pass 2: the top-level records in order, each heap dump record's sub-records rewritten. */
static int rewrite(struct ids *t, struct hprof_writer *w)
{
	struct hprof_record rec;
	int rc;

	t->r.c.pos = t->r.header_len;
	while ((rc = hprof_next(&t->r, &rec, &t->e)) == 1) {
		struct cursor body = rec.body;
		struct hprof_sub sub;
		if (rec.tag == HPROF_HEAP_DUMP || rec.tag == HPROF_HEAP_DUMP_SEGMENT) {
			hprof_writer_set_segments(w, rec.tag, rec.tag == HPROF_HEAP_DUMP ? HPROF_SEGMENT_CAP_MAX : rec.body.len);
			while ((rc = hprof_next_sub(&body, t->id, &sub, &t->e)) == 1)
				if (put_sub(t, &sub, w))
					return -1;
			if (rc || hprof_heap_finish(w, &t->e))
				return -1;
			continue;
		}
		if (rec.tag == HPROF_LOAD_CLASS) {
			struct hprof_load_class lc;
			if (hprof_load_class_parse(&rec, t->id, &lc, &t->e) || map_id(t, lc.class_id, &lc.class_id) ||
			    hprof_write_load_class(w, &lc, &t->e))
				return -1;
			continue;
		}
		if (hprof_write_record(w, rec.tag, rec.time, rec.body.base, rec.body.len, &t->e))
			return -1;
	}
	return rc;
}

int main(int argc, char **argv)
{
	struct ids t;
	struct mapfile m;
	struct outf o;
	struct hprof_writer w;
	char *end1, *end2;
	int rc;

	memset(&t, 0, sizeof(t));
	err_init(&t.e);
	if (argc != 5) {
		fprintf(stderr, "usage: hprof_ids IN OUT MUL ADD\n");
		return 2;
	}
	t.mul = strtoull(argv[3], &end1, 0);
	t.add = strtoull(argv[4], &end2, 0);
	if (*end1 || *end2 || t.mul == 0) {
		fprintf(stderr, "hprof_ids: MUL and ADD are numbers, MUL > 0\n");
		return 2;
	}
	if (mapfile_open(&m, argv[1], &t.e) || hprof_reader_init(&t.r, m.data, m.len, argv[1], &t.e))
		return fail(&t, argv[1]);
	t.id = t.r.id_size;
	t.max = t.id == 4 ? UINT32_MAX : UINT64_MAX;
	if (t.add > t.max)
		return fail(&t, "ADD does not fit the id size");
	if (each_heap_sub(&t, collect_cb, NULL))
		return fail(&t, "reading the class dumps");
	qsort(t.cls, t.ncls, sizeof(*t.cls), cls_cmp);
	if (outf_open(&o, argv[2], &t.e) || hprof_writer_init(&w, &o, t.id, &t.e))
		return fail(&t, argv[2]);
	rc = hprof_write_header(&w, t.r.version + 13, t.r.timestamp, &t.e) || rewrite(&t, &w) ||
	     hprof_writer_flush(&w, &t.e);
	hprof_writer_release(&w);
	if (rc || outf_commit(&o, &t.e)) {
		outf_abort(&o);
		return fail(&t, "rewriting (an id too large for MUL and ADD, or a damaged record)");
	}
	mapfile_close(&m);
	xfree(t.cls);
	xfree(t.ftype);
	printf("hprof_ids: %zu classes; object ids * %llu + %llu\n", t.ncls, (unsigned long long)t.mul,
	       (unsigned long long)t.add);
	return 0;
}
