/* hprof_perturb.c - writes a copy of an HPROF with known damage, for tests of `validate`:
 *
 *   hprof_perturb IN OUT [--drop N] [--field N] [--invent N] [--string N]
 *
 *   --drop N    leaves out N instances (spread over the file)
 *   --field N   flips the lowest bit of the first int/long field of N other instances
 *   --invent N  adds N instances of java.lang.Object at ids no record uses
 *   --string N  changes the first character of N non-empty Strings (in their value arrays)
 *
 * Only instances whose class is not java.lang.String and whose class chain has no reference
 * field named "value" or "runtimeInternalObjects" are dropped or changed: their removal or
 * change touches nothing but themselves (ART writes a separate record after those).  Every
 * change is printed ("drop 0x...", "field 0x... NAME", "invent 0x...", "string 0x..."), then
 * one line "perturbed: drop D field F invent I string S".  Exit 0, or 1 with a message.
 * This tool reads the HPROF on its own (output/hprof/hprof_reader.h), independently of validate. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "carver/base/mapfile.h"
#include "carver/base/outfile.h"
#include "carver/base/xalloc.h"
#include "output/hprof/hprof_writer.h"

struct pclass { uint64_t id, super, name_id; uint32_t f0, nf; int elig; };
struct pfield { uint64_t name_id; uint8_t type; };
struct pstr { uint64_t id; const uint8_t *s; size_t n; };

struct pt {
	struct hprof_reader r;
	unsigned id;
	struct pstr *strs; size_t nstrs;
	struct { uint64_t cid, nid; } *lcs; size_t nlcs;
	struct pclass *cls; size_t ncls;
	struct pfield *fl; size_t nfl;
	uint64_t *values; size_t nvalues;        /* value arrays of non-empty Strings */
	uint64_t max_id, object_class;
	size_t eligible, strings_seen;
	unsigned drop, field, invent, string;
	size_t step_obj, step_str;
	unsigned done_drop, done_field, done_invent, done_string;
	struct err e;
};

static void *grow(void *p, size_t n, size_t sz)
{
	if (n & (n - 1))
		return p;               /* grows at powers of two */
	return xreallocarray(p, n ? 2 * n : 1, sz);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Binary search in an array sorted by its leading uint64_t. */
static void *find(void *v, size_t n, size_t sz, uint64_t key)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t k = *(const uint64_t *)((const char *)v + mid * sz);
		if (k < key)
			lo = mid + 1;
		else if (k > key)
			hi = mid;
		else
			return (char *)v + mid * sz;
	}
	return NULL;
}

static const char *name_of(struct pt *t, uint64_t sid, size_t *n)
{
	struct pstr *p = find(t->strs, t->nstrs, sizeof(*t->strs), sid);
	*n = p ? p->n : 0;
	return p ? (const char *)p->s : "";
}

static bool name_is(struct pt *t, uint64_t sid, const char *want)
{
	size_t n;
	const char *s = name_of(t, sid, &n);
	return n == strlen(want) && !memcmp(s, want, n);
}

static struct pclass *class_of(struct pt *t, uint64_t id)
{
	return find(t->cls, t->ncls, sizeof(*t->cls), id);
}

static uint64_t class_name_id(struct pt *t, uint64_t cid)
{
	uint64_t *p = find(t->lcs, t->nlcs, sizeof(*t->lcs), cid);
	return p ? p[1] : 0;
}

static bool eligible_class(struct pt *t, uint64_t cid);

/* Eligible for drop / change: see the header comment (cached per class). */
static bool eligible(struct pt *t, uint64_t cid)
{
	struct pclass *c = class_of(t, cid);
	if (!c)
		return false;
	if (c->elig < 0)
		c->elig = eligible_class(t, cid);
	return c->elig;
}

static bool eligible_class(struct pt *t, uint64_t cid)
{
	if (name_is(t, class_name_id(t, cid), "java.lang.String"))
		return false;
	for (struct pclass *c = class_of(t, cid); c; c = c->super ? class_of(t, c->super) : NULL)
		for (uint32_t i = 0; i < c->nf; i++)
			if (t->fl[c->f0 + i].type == HPROF_T_OBJECT &&
			    (name_is(t, t->fl[c->f0 + i].name_id, "value") ||
			     name_is(t, t->fl[c->f0 + i].name_id, "runtimeInternalObjects")))
				return false;
	return true;
}

/* Offset and field of the first int/long value of an instance of cid; -1 if none. */
static long first_number(struct pt *t, uint64_t cid, const struct pfield **f)
{
	long at = 0;
	for (struct pclass *c = class_of(t, cid); c; c = c->super ? class_of(t, c->super) : NULL)
		for (uint32_t i = 0; i < c->nf; i++) {
			const struct pfield *x = &t->fl[c->f0 + i];
			if (x->type == HPROF_T_INT || x->type == HPROF_T_LONG) {
				*f = x;
				return at;
			}
			at += hprof_type_size(x->type, t->id);
		}
	return -1;
}

static int pass1_sub(struct pt *t, const struct hprof_sub *sub)
{
	union { struct hprof_class_dump cd; struct hprof_instance in; struct hprof_obj_array oa;
		struct hprof_prim_array pa; } u;
	struct hprof_class_entry ent;
	int rc = 0;

	switch (sub->tag) {
	case HPROF_CLASS_DUMP:
		if ((rc = hprof_class_dump_parse(sub, t->id, &u.cd, &t->e)))
			return rc;
		if (!(t->cls = grow(t->cls, t->ncls, sizeof(*t->cls))))
			return -1;
		t->cls[t->ncls] = (struct pclass){ u.cd.class_id, u.cd.super_id, 0, (uint32_t)t->nfl, 0, -1 };
		while ((rc = hprof_class_next_constant(&u.cd, &ent, &t->e)) == 1)
			;
		while (rc == 0 && (rc = hprof_class_next_static(&u.cd, &ent, &t->e)) == 1)
			rc = 0;
		while (rc == 0 && (rc = hprof_class_next_field(&u.cd, &ent, &t->e)) == 1) {
			if (!(t->fl = grow(t->fl, t->nfl, sizeof(*t->fl))))
				return -1;
			t->fl[t->nfl++] = (struct pfield){ ent.key, ent.type };
			t->cls[t->ncls].nf++;
			rc = 0;
		}
		t->ncls++;
		if (u.cd.class_id > t->max_id)
			t->max_id = u.cd.class_id;
		return rc;
	case HPROF_INSTANCE_DUMP:
		if ((rc = hprof_instance_parse(sub, t->id, &u.in, &t->e)))
			return rc;
		if (u.in.id > t->max_id)
			t->max_id = u.in.id;
		return 0;
	case HPROF_OBJ_ARRAY_DUMP:
		rc = hprof_obj_array_parse(sub, t->id, &u.oa, &t->e);
		if (!rc && u.oa.id > t->max_id)
			t->max_id = u.oa.id;
		return rc;
	case HPROF_PRIM_ARRAY_DUMP:
		rc = hprof_prim_array_parse(sub, t->id, &u.pa, &t->e);
		if (!rc && u.pa.id > t->max_id)
			t->max_id = u.pa.id;
		return rc;
	default:
		return 0;
	}
}

static int pass(struct pt *t, int (*fn)(struct pt *, const struct hprof_record *, void *), void *ctx)
{
	struct hprof_record rec;
	int rc;

	t->r.c.pos = t->r.header_len;
	while ((rc = hprof_next(&t->r, &rec, &t->e)) == 1)
		if ((rc = fn(t, &rec, ctx)))
			return rc;
	return rc;
}

static int pass1(struct pt *t, const struct hprof_record *rec, void *ctx)
{
	struct cursor body = rec->body;
	struct hprof_sub sub;
	int rc;

	(void)ctx;
	if (rec->tag == HPROF_STRING) {
		struct hprof_string s;
		if ((rc = hprof_string_parse(rec, t->id, &s, &t->e)))
			return rc;
		if (!(t->strs = grow(t->strs, t->nstrs, sizeof(*t->strs))))
			return -1;
		t->strs[t->nstrs++] = (struct pstr){ s.id, s.text, s.len };
	} else if (rec->tag == HPROF_LOAD_CLASS) {
		struct hprof_load_class lc;
		if ((rc = hprof_load_class_parse(rec, t->id, &lc, &t->e)))
			return rc;
		if (!(t->lcs = grow(t->lcs, t->nlcs, sizeof(*t->lcs))))
			return -1;
		t->lcs[t->nlcs].cid = lc.class_id;
		t->lcs[t->nlcs++].nid = lc.name_id;
	} else if (rec->tag == HPROF_HEAP_DUMP || rec->tag == HPROF_HEAP_DUMP_SEGMENT) {
		while ((rc = hprof_next_sub(&body, t->id, &sub, &t->e)) == 1)
			if ((rc = pass1_sub(t, &sub)))
				return rc;
		return rc;
	}
	return 0;
}

/* Second look: eligible instances, String value arrays (the classes are all known now). */
static int pass1b(struct pt *t, const struct hprof_record *rec, void *ctx)
{
	struct cursor body = rec->body;
	struct hprof_sub sub;
	struct hprof_instance in;
	int rc;

	(void)ctx;
	if (rec->tag != HPROF_HEAP_DUMP && rec->tag != HPROF_HEAP_DUMP_SEGMENT)
		return 0;
	while ((rc = hprof_next_sub(&body, t->id, &sub, &t->e)) == 1) {
		if (sub.tag != HPROF_INSTANCE_DUMP)
			continue;
		if ((rc = hprof_instance_parse(&sub, t->id, &in, &t->e)))
			return rc;
		if (eligible(t, in.class_id)) {
			t->eligible++;
			continue;
		}
		if (!name_is(t, class_name_id(t, in.class_id), "java.lang.String"))
			continue;
		/* String: find "value" and "count" in the most derived class (String's own fields) */
		struct pclass *c = class_of(t, in.class_id);
		uint64_t value = 0, count = 0;
		size_t at = 0;
		for (uint32_t i = 0; c && i < c->nf; i++) {
			const struct pfield *f = &t->fl[c->f0 + i];
			unsigned w = hprof_type_size(f->type, t->id);
			if (at + w > in.values.len)
				break;
			const uint8_t *p = in.values.base + at;
			uint64_t v = w == 4 ? ld_u32be(p) : w == 8 ? ld_u64be(p) : w == 2 ? ld_u16be(p) : p[0];
			if (name_is(t, f->name_id, "value"))
				value = v;
			if (name_is(t, f->name_id, "count"))
				count = v;
			at += w;
		}
		if (value && count) {
			if (!(t->values = grow(t->values, t->nvalues, sizeof(*t->values))))
				return -1;
			t->values[t->nvalues++] = value;
		}
	}
	return rc;
}

struct out { struct hprof_writer w; size_t inst_seen, str_seen; };

static bool picked(size_t k, size_t step, unsigned n, size_t shift)
{
	return step && k >= shift && (k - shift) % step == 0 && (k - shift) / step < n;
}

static int write_sub(struct pt *t, struct out *o, const struct hprof_sub *sub)
{
	struct hprof_instance in;
	struct hprof_prim_array pa;
	int rc;

	if (sub->tag == HPROF_INSTANCE_DUMP) {
		if ((rc = hprof_instance_parse(sub, t->id, &in, &t->e)))
			return rc;
		if (eligible(t, in.class_id)) {
			size_t k = o->inst_seen++;
			if (picked(k, t->step_obj, t->drop, 0)) {
				printf("drop 0x%llx\n", (unsigned long long)in.id);
				t->done_drop++;
				return 0;
			}
			const struct pfield *f = NULL;
			long at = first_number(t, in.class_id, &f);
			if (picked(k, t->step_obj, t->field, t->step_obj / 2) && at >= 0 && t->done_field < t->field) {
				size_t n = sub->body.len;
				uint8_t *copy = xmalloc(n);
				size_t last = (size_t)at + hprof_type_size(f->type, t->id) - 1;
				size_t vo = (size_t)(in.values.base - sub->body.base);
				if (!copy)
					return -1;
				memcpy(copy, sub->body.base, n);
				copy[vo + last] ^= 1;
				struct hprof_sub mod = *sub;
				cur_init(&mod.body, copy, n, sub->body.va);
				size_t nl;
				const char *nm = name_of(t, f->name_id, &nl);
				printf("field 0x%llx %.*s\n", (unsigned long long)in.id, (int)nl, nm);
				t->done_field++;
				rc = hprof_put_sub_raw(&o->w, &mod, &t->e);
				xfree(copy);
				return rc;
			}
		}
	} else if (sub->tag == HPROF_PRIM_ARRAY_DUMP && t->string) {
		if ((rc = hprof_prim_array_parse(sub, t->id, &pa, &t->e)))
			return rc;
		bool is_value = find(t->values, t->nvalues, sizeof(*t->values), pa.id) != NULL;
		if (is_value && pa.count && picked(o->str_seen++, t->step_str, t->string, 0)) {
			size_t n = sub->body.len;
			uint8_t *copy = xmalloc(n);
			size_t first = (size_t)(pa.data.base - sub->body.base) + (pa.type == HPROF_T_CHAR ? 1 : 0);
			if (!copy)
				return -1;
			memcpy(copy, sub->body.base, n);
			copy[first] ^= 1;       /* first character, low bit */
			struct hprof_sub mod = *sub;
			cur_init(&mod.body, copy, n, sub->body.va);
			printf("string 0x%llx\n", (unsigned long long)pa.id);
			t->done_string++;
			rc = hprof_put_sub_raw(&o->w, &mod, &t->e);
			xfree(copy);
			return rc;
		}
	}
	return hprof_put_sub_raw(&o->w, sub, &t->e);
}

static int invent(struct pt *t, struct out *o)
{
	struct pclass *c = class_of(t, t->object_class);
	uint8_t values[64] = { 0 };
	size_t len = 0;
	int rc;

	if (!c)
		return t->invent ? (fprintf(stderr, "no java.lang.Object class\n"), -1) : 0;
	for (uint32_t i = 0; i < c->nf; i++)
		len += hprof_type_size(t->fl[c->f0 + i].type, t->id);
	if (len > sizeof(values))
		return -1;
	for (unsigned k = 0; k < t->invent; k++) {
		uint64_t id = ((t->max_id + 0x1000) & ~(uint64_t)7) + 16u * k;
		/* java.lang.Object's first field is the class reference (shadow$_klass_) */
		for (unsigned b = 0; b < t->id && b < len; b++)
			values[b] = (uint8_t)(t->object_class >> (8 * (t->id - 1 - b)));
		if ((rc = hprof_put_instance(&o->w, id, 0, t->object_class, values, len, &t->e)))
			return rc;
		printf("invent 0x%llx\n", (unsigned long long)id);
		t->done_invent++;
	}
	return 0;
}

static int pass2(struct pt *t, const struct hprof_record *rec, void *ctx)
{
	struct out *o = ctx;
	struct cursor body = rec->body;
	struct hprof_sub sub;
	int rc;

	if (rec->tag == HPROF_HEAP_DUMP || rec->tag == HPROF_HEAP_DUMP_SEGMENT) {
		hprof_writer_set_segments(&o->w, rec->tag, HPROF_SEGMENT_CAP_DEFAULT);
		while ((rc = hprof_next_sub(&body, t->id, &sub, &t->e)) == 1)
			if ((rc = write_sub(t, o, &sub)))
				return rc;
		if (rc)
			return rc;
		return hprof_heap_finish(&o->w, &t->e);
	}
	if (rec->tag == HPROF_HEAP_DUMP_END && (rc = invent(t, o)))
		return rc;
	if (rec->tag == HPROF_HEAP_DUMP_END && (rc = hprof_heap_finish(&o->w, &t->e)))
		return rc;
	return hprof_write_record(&o->w, rec->tag, rec->time, rec->body.base, rec->body.len, &t->e);
}

int main(int argc, char **argv)
{
	struct pt t = { 0 };
	struct mapfile m;
	struct outf of;
	struct out o;
	int rc;

	if (argc < 3) {
		fprintf(stderr, "usage: hprof_perturb IN OUT [--drop N] [--field N] [--invent N] [--string N]\n");
		return 2;
	}
	for (int i = 3; i + 1 < argc; i += 2) {
		unsigned v = (unsigned)strtoul(argv[i + 1], NULL, 10);
		if (!strcmp(argv[i], "--drop")) t.drop = v;
		else if (!strcmp(argv[i], "--field")) t.field = v;
		else if (!strcmp(argv[i], "--invent")) t.invent = v;
		else if (!strcmp(argv[i], "--string")) t.string = v;
		else {
			fprintf(stderr, "hprof_perturb: unknown option %s\n", argv[i]);
			return 2;
		}
	}
	err_init(&t.e);
	if ((rc = mapfile_open(&m, argv[1], &t.e)) || (rc = hprof_reader_init(&t.r, m.data, m.len, argv[1], &t.e))) {
		fprintf(stderr, "hprof_perturb: %s\n", t.e.msg);
		return 1;
	}
	t.id = t.r.id_size;
	if ((rc = pass(&t, pass1, NULL)))
		goto fail;
	qsort(t.strs, t.nstrs, sizeof(*t.strs), cmp_u64);
	qsort(t.lcs, t.nlcs, sizeof(*t.lcs), cmp_u64);
	qsort(t.cls, t.ncls, sizeof(*t.cls), cmp_u64);
	if ((rc = pass(&t, pass1b, NULL)))
		goto fail;
	qsort(t.values, t.nvalues, sizeof(*t.values), cmp_u64);
	for (size_t i = 0; i < t.nlcs; i++)
		if (name_is(&t, t.lcs[i].nid, "java.lang.Object") || name_is(&t, t.lcs[i].nid, "java/lang/Object"))
			t.object_class = t.lcs[i].cid;
	/* drops at k*step, field changes at k*step + step/2: never the same instance */
	unsigned most = t.drop > t.field ? t.drop : t.field;
	t.step_obj = most ? t.eligible / most : 0;
	t.step_str = t.string ? t.nvalues / t.string : 0;
	if ((most && t.step_obj < 2) || (t.string && !t.step_str)) {
		fprintf(stderr, "hprof_perturb: too few objects (%zu instances, %zu strings) for the request\n",
			t.eligible, t.nvalues);
		rc = -1;
		goto fail;
	}
	outf_init(&of);
	if ((rc = outf_open(&of, argv[2], &t.e)))
		goto fail;
	memset(&o, 0, sizeof(o));
	hprof_writer_init(&o.w, &of, t.id, &t.e);
	rc = hprof_write_header(&o.w, t.r.version + strlen("JAVA PROFILE "), t.r.timestamp, &t.e);
	if (!rc)
		rc = pass(&t, pass2, &o);
	if (!rc)
		rc = hprof_writer_flush(&o.w, &t.e);
	hprof_writer_release(&o.w);
	if (!rc)
		rc = outf_commit(&of, &t.e);
	else
		outf_abort(&of);
	if (!rc && (t.done_drop != t.drop || t.done_field != t.field || t.done_string != t.string ||
		    t.done_invent != t.invent)) {
		fprintf(stderr, "hprof_perturb: did drop %u field %u string %u invent %u of the request\n", t.done_drop,
			t.done_field, t.done_string, t.done_invent);
		rc = -1;
	}
fail:
	if (!rc)
		printf("perturbed: drop %u field %u invent %u string %u\n", t.done_drop, t.done_field, t.done_invent,
		       t.done_string);
	else if (t.e.msg[0])
		fprintf(stderr, "hprof_perturb: %s\n", t.e.msg);
	xfree(t.strs);
	xfree(t.lcs);
	xfree(t.cls);
	xfree(t.fl);
	xfree(t.values);
	mapfile_close(&m);
	return rc ? 1 : 0;
}
