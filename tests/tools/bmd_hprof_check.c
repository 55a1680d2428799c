/* bmd_hprof_check.c - structural checker for HPROF files written by decrunch, the rules of
 * the rules (README "MAT" notes) that MAT, VisualVM and Badoo's reader rely on:
 *   - every string id is defined (STRING) before a LOAD_CLASS or CLASS_DUMP uses it;
 *   - every class has its LOAD_CLASS before its CLASS_DUMP;
 *   - every class an instance, object array or CLASS_DUMP (as super) refers to has a CLASS_DUMP;
 *   - instance payloads are exactly the field bytes of their class chain;
 * and with --mat additionally: header "JAVA PROFILE 1.0.2", only standard sub-records, only
 * HEAP_DUMP_SEGMENTs (none empty) followed by exactly one HEAP_DUMP_END as the last record,
 * one STACK_TRACE (ART's dummy of serial 0, which AOSP's ahat needs) and no other record.
 * Prints "ok: ..." or the first violation; exit 0 ok, 1 violation, 2 usage/unreadable. */
#include <stdio.h>
#include <string.h>

#include "carver/base/mapfile.h"
#include "carver/base/xalloc.h"
#include "output/bmd/bmd.h"
#include "output/hprof/hprof_reader.h"

struct chk {
	unsigned id;
	bool mat;
	struct htab strings, loaded, dumped;   /* ids seen */
	struct htab super, field_bytes;        /* class -> super class, own field bytes */
	struct htab wanted;                    /* class ids referenced: must be dumped */
	uint64_t instances, classes, segments, ends, heap_dumps, traces;
	char msg[256];
};

static bool has(const struct htab *m, uint64_t k)
{
	uint32_t v;
	return htab_get(m, k, &v);
}

static int fail(struct chk *c, const char *fmt, unsigned long long a, unsigned long long b)
{
	snprintf(c->msg, sizeof(c->msg), fmt, a, b);
	return 1;
}

static int check_class_dump(struct chk *c, const struct hprof_sub *sub, struct err *e)
{
	struct hprof_class_dump cd;
	struct hprof_class_entry en;
	uint32_t bytes = 0;
	int rc;

	if (hprof_class_dump_parse(sub, c->id, &cd, e))
		return 2;
	if (!has(&c->loaded, cd.class_id))
		return fail(c, "CLASS_DUMP at 0x%llx: class 0x%llx has no earlier LOAD_CLASS", sub->offset, cd.class_id);
	while ((rc = hprof_class_next_static(&cd, &en, e)) == 1)
		if (!has(&c->strings, en.key))
			return fail(c, "CLASS_DUMP at 0x%llx: static name id 0x%llx not defined before", sub->offset, en.key);
	while ((rc = hprof_class_next_field(&cd, &en, e)) == 1) {
		if (!has(&c->strings, en.key))
			return fail(c, "CLASS_DUMP at 0x%llx: field name id 0x%llx not defined before", sub->offset, en.key);
		bytes += hprof_type_size(en.type, c->id);
	}
	bmd_idmap_put(&c->dumped, cd.class_id, 0, e);
	bmd_idmap_put(&c->field_bytes, cd.class_id, bytes, e);
	bmd_idmap_put(&c->super, cd.class_id, (uint32_t)cd.super_id, e);
	if (cd.super_id)
		bmd_idmap_put(&c->wanted, cd.super_id, 0, e);
	c->classes++;
	return 0;
}

static int check_sub(struct chk *c, const struct hprof_sub *sub, struct err *e)
{
	if (c->mat && !(sub->tag == HPROF_ROOT_UNKNOWN || (sub->tag >= 1 && sub->tag <= 8) ||
			(sub->tag >= HPROF_CLASS_DUMP && sub->tag <= HPROF_PRIM_ARRAY_DUMP)))
		return fail(c, "sub-record at 0x%llx: tag 0x%llx is not a standard one", sub->offset, sub->tag);
	if (sub->tag == HPROF_CLASS_DUMP)
		return check_class_dump(c, sub, e);
	if (sub->tag == HPROF_INSTANCE_DUMP) {
		struct hprof_instance in;
		if (hprof_instance_parse(sub, c->id, &in, e))
			return 2;
		bmd_idmap_put(&c->wanted, in.class_id, 0, e);
		c->instances++;
	} else if (sub->tag == HPROF_OBJ_ARRAY_DUMP) {
		struct hprof_obj_array a;
		if (hprof_obj_array_parse(sub, c->id, &a, e))
			return 2;
		bmd_idmap_put(&c->wanted, a.class_id, 0, e);
	}
	return 0;
}

static int check_record(struct chk *c, const struct hprof_record *rec, bool last, struct err *e)
{
	struct hprof_sub sub;
	struct cursor body = rec->body;
	int rc;

	switch (rec->tag) {
	case HPROF_STRING: {
		struct hprof_string s;
		if (hprof_string_parse(rec, c->id, &s, e))
			return 2;
		bmd_idmap_put(&c->strings, s.id, 0, e);
		return 0;
	}
	case HPROF_LOAD_CLASS: {
		struct hprof_load_class lc;
		if (hprof_load_class_parse(rec, c->id, &lc, e))
			return 2;
		if (!has(&c->strings, lc.name_id))
			return fail(c, "LOAD_CLASS at 0x%llx: name id 0x%llx not defined before", rec->offset, lc.name_id);
		bmd_idmap_put(&c->loaded, lc.class_id, 0, e);
		return 0;
	}
	case HPROF_HEAP_DUMP_END:
		c->ends++;
		if (c->mat && (!last || c->ends != 1 || c->segments == 0))
			return fail(c, "HEAP_DUMP_END at 0x%llx: must be the single last record after segments (%llu)",
				    rec->offset, c->ends);
		return 0;
	case HPROF_HEAP_DUMP:
	case HPROF_HEAP_DUMP_SEGMENT:
		if (rec->tag == HPROF_HEAP_DUMP) {
			c->heap_dumps++;
			if (c->mat)
				return fail(c, "record at 0x%llx: HEAP_DUMP (0x%llx) where segments are expected", rec->offset,
					    rec->tag);
		} else {
			c->segments++;
			if (rec->body.len == 0)
				return fail(c, "segment at 0x%llx: empty (%llu bytes)", rec->offset, 0);
		}
		while ((rc = hprof_next_sub(&body, c->id, &sub, e)) == 1)
			if ((rc = check_sub(c, &sub, e)))
				return rc;
		return rc < 0 ? 2 : 0;
	case HPROF_STACK_TRACE:   /* --mat: only ART's dummy trace of serial 0 (hprof.h) */
		if (c->mat && (rec->body.len != HPROF_NULL_TRACE_BODY || c->traces++))
			return fail(c, "record at 0x%llx: a STACK_TRACE other than the one of serial 0 (%llu bytes)",
				    rec->offset, (unsigned long long)rec->body.len);
		return 0;
	default:
		if (c->mat)
			return fail(c, "record at 0x%llx: tag 0x%llx in a --mat file", rec->offset, rec->tag);
		return 0;
	}
}

/* After the walk: referenced classes dumped; instance payloads vs chains (second walk). */
static int check_instances(struct chk *c, const struct mapfile *m, struct err *e)
{
	struct hprof_reader r;
	struct hprof_record rec;
	int rc;

	for (size_t s = 0; s < c->wanted.cap; s++)
		if (c->wanted.vals[s] && !has(&c->dumped, c->wanted.keys[s]))
			return fail(c, "class 0x%llx is referenced but has no CLASS_DUMP (%llu)", c->wanted.keys[s], 0);
	if (hprof_reader_init(&r, m->data, m->len, m->path, e))
		return 2;
	while ((rc = hprof_next(&r, &rec, e)) == 1) {
		struct cursor body = rec.body;
		struct hprof_sub sub;
		if (rec.tag != HPROF_HEAP_DUMP && rec.tag != HPROF_HEAP_DUMP_SEGMENT)
			continue;
		while ((rc = hprof_next_sub(&body, c->id, &sub, e)) == 1) {
			struct hprof_instance in;
			uint64_t want = 0, k;
			uint32_t v, depth = 0;
			if (sub.tag != HPROF_INSTANCE_DUMP)
				continue;
			hprof_instance_parse(&sub, c->id, &in, e);
			for (k = in.class_id; k && depth++ < 10000 && htab_get(&c->field_bytes, k, &v);) {
				want += v;
				htab_get(&c->super, k, &v);
				k = v;
			}
			if (want != in.values.len)
				return fail(c, "INSTANCE_DUMP at 0x%llx: payload differs from its class chain by %llu bytes",
					    sub.offset, in.values.len > want ? in.values.len - want : want - in.values.len);
		}
	}
	return rc < 0 ? 2 : 0;
}

int main(int argc, char **argv)
{
	struct chk c = { 0 };
	struct mapfile m;
	struct hprof_reader r;
	struct hprof_record rec, next;
	struct err e;
	int rc = 0, more;
	const char *path = argc == 3 && !strcmp(argv[1], "--mat") ? argv[2] : argc == 2 ? argv[1] : NULL;

	if (!path) {
		fprintf(stderr, "usage: bmd_hprof_check [--mat] FILE.hprof\n");
		return 2;
	}
	c.mat = argc == 3;
	err_init(&e);
	if (mapfile_open(&m, path, &e) || hprof_reader_init(&r, m.data, m.len, path, &e)) {
		fprintf(stderr, "bmd_hprof_check: %s\n", e.msg);
		return 2;
	}
	c.id = r.id_size;
	if (c.mat && strcmp(r.version, "JAVA PROFILE 1.0.2"))
		rc = fail(&c, "header is not JAVA PROFILE 1.0.2 (%llu%llu)", 0, 0);
	more = hprof_next(&r, &rec, &e);
	while (rc == 0 && more == 1) {
		more = hprof_next(&r, &next, &e);
		rc = check_record(&c, &rec, more == 0, &e);
		rec = next;
	}
	if (rc == 0 && more < 0)
		rc = 2;
	if (rc == 0 && c.mat && c.ends != 1)
		rc = fail(&c, "%llu HEAP_DUMP_END records (expected 1) %llu", c.ends, 0);
	if (rc == 0)
		rc = check_instances(&c, &m, &e);
	if (rc == 2)
		fprintf(stderr, "bmd_hprof_check: %s\n", e.msg);
	else if (rc == 1)
		printf("%s: %s\n", path, c.msg);
	else
		printf("ok: %s: %llu classes, %llu instances, %llu segments, %llu heap dumps\n", path,
		       (unsigned long long)c.classes, (unsigned long long)c.instances,
		       (unsigned long long)c.segments, (unsigned long long)c.heap_dumps);
	mapfile_close(&m);
	return rc;
}
