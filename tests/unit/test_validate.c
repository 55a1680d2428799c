/* test_validate.c - the comparison engine of `validate` (output/compare/validate.h) on small
 * HPROFs built here the way ART writes them (a String's characters as a separate array at
 * String + 16, a class's statics array at class + 1 named by "$classOverhead", DexCache's
 * "runtimeInternalObjects" array at + 4), with one change at a time in the RESULT: the figures
 * must move by exactly the expected amounts.  Also: state marks, 8-byte ids against 4-byte
 * ids, truth.jsonl input, class-name forms, and every truncation of an input.
 *
 * `test_validate --write-seeds DIR` writes the seed corpus of tests/fuzz/fuzz_validate.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "carver/base/wbuf.h"
#include "output/hprof/hprof_writer.h"
#include "output/hprof/hprof_mark.h"
#include "output/compare/validate.h"
#include "output/compare/vd_int.h"
#include "t.h"

/* ---- an ART-like heap --------------------------------------------------------------------- */

enum {
	C_OBJECT = 0x1000, C_STRING = 0x1100, C_NODE = 0x1200, C_DEXCACHE = 0x1300, C_OARR = 0x1400,
	C_CLASS = 0x1500, C_MARK_FREE = 0x1601, C_MARK_UNREACH = 0x1611, C_ALIAS = 0x1621, ALIAS_INST = 0xffffffc1,
	C_GAP = 0x1631, GAP_INST = 0xffffffb1,
	S1 = 0x2000, S2 = 0x2040, N1 = 0x2100, N2 = 0x2120, N3 = 0x2140, DC = 0x2200, ARR = 0x2300,
	PRIM = 0x2400, INVENTED = 0x3000,
	/* a walk gap (mods.gap): ART's walk stops at GAP_START, objects again from GAP_END (B1,
	 * B2) up to GAP_SPACE_END; B3 lies there too (mods.truth_beyond) */
	GAP_START = 0x4000, GAP_END = 0x5000, B1 = 0x5000, B2 = 0x5020, B3 = 0x5040, GAP_SPACE_END = 0x5060,
};

struct mods {
	unsigned id_size;
	bool drop_n3, invent, wrong_class_n2, marks, mark_n1, free_n3;
	bool alias;             /* ids [PRIM, PRIM + 0x100) stand for REAL_PRIM (hprof_mark.h) */
	bool after_empty;       /* a real byte[] at S2 + 16, right after the empty String S2 */
	bool gap;               /* a WalkGap record [GAP_START, GAP_END, GAP_SPACE_END) */
	bool gap_backwards;     /* ... with gapEnd before gapStart (no gap) */
	bool beyond;            /* Nodes B1 and B2 past the gap */
	bool truth_beyond;      /* a Node at B3 (a truth that walked past the gap) */
	uint32_t n1_id;
	const char *s1_text;
};

static const struct mods base = { .id_size = 4, .n1_id = 7, .s1_text = "abc" };

struct bld {
	struct hprof_writer w;
	struct err e;
	int rc;
};

/* Every name is written as a STRING record before the heap dump (a top-level record would
 * close the open heap segment, and the next one starts in the default heap). */
static const char *const names[] = {
	"java.lang.Object", "java.lang.String", "Node", "java.lang.DexCache", "[Ljava/lang/Object;",
	"java.lang.Class", "artcarve.mark.Free[]", "artcarve.mark.Unreachable[]", "app", "shadow$_klass_",
	"shadow$_monitor_", "count", "hash", "value", "id", "next", "big", "location", "runtimeInternalObjects",
	"$classOverhead", "artcarve.mark.AddressAlias", "idBase", "addressBase", "length",
	"artcarve.mark.WalkGap", "gapStart", "gapEnd", "spaceEnd",
};

#define REAL_PRIM 0x7f44002400ull   /* PRIM's real address above 4 GiB (mods.alias) */

static uint64_t str_id(struct bld *b, const char *s)
{
	(void)b;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(names[i], s))
			return i + 1;
	return 0;
}

static void write_names(struct bld *b)
{
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) && !b->rc; i++)
		b->rc = hprof_write_string(&b->w, i + 1, names[i], strlen(names[i]), &b->e);
}

static void load_class(struct bld *b, uint64_t cid, const char *name)
{
	struct hprof_load_class lc = { .serial = (uint32_t)cid, .class_id = cid, .name_id = str_id(b, name) };
	if (!b->rc)
		b->rc = hprof_write_load_class(&b->w, &lc, &b->e);
}

/* fields: "name:T" items, T an HPROF basic type code */
struct fdef { const char *name; uint8_t type; };

static void heap_class(struct bld *b, uint64_t cid, uint64_t super, const struct fdef *f, unsigned nf,
		       const struct fdef *st, const uint64_t *stv, unsigned ns)
{
	struct hprof_class_dump cd = { .class_id = cid, .super_id = super, .static_count = (uint16_t)ns,
				       .field_count = (uint16_t)nf };
	struct hprof_class_entry statics[4], fields[8];
	for (unsigned i = 0; i < nf; i++)
		fields[i] = (struct hprof_class_entry){ .key = str_id(b, f[i].name), .type = f[i].type };
	for (unsigned i = 0; i < ns; i++)
		statics[i] = (struct hprof_class_entry){ .key = str_id(b, st[i].name), .type = st[i].type, .value = stv[i] };
	if (!b->rc)
		b->rc = hprof_put_class_dump(&b->w, &cd, NULL, statics, fields, &b->e);
}

static void put_be(struct wbuf *v, unsigned w, uint64_t x)
{
	wbuf_uNbe(v, w, x);
}

/* Object's fields come last in an instance (most derived class first). */
static void object_part(struct wbuf *v, unsigned id, uint64_t klass)
{
	put_be(v, id, klass);
	put_be(v, 4, 0);
}

static void instance(struct bld *b, uint64_t id, uint64_t cls, const struct wbuf *v)
{
	if (!b->rc)
		b->rc = hprof_put_instance(&b->w, id, 0, cls, v->data, v->len, &b->e);
}

static void node(struct bld *b, uint64_t id, uint64_t cls, uint32_t n, uint64_t next, uint64_t big)
{
	struct wbuf v;
	unsigned is = b->w.id_size;
	wbuf_init(&v);
	put_be(&v, 4, n);
	put_be(&v, is, next);
	put_be(&v, 8, big);
	object_part(&v, is, cls);
	instance(b, id, cls, &v);
	wbuf_release(&v);
}

static void string(struct bld *b, uint64_t id, const char *text)
{
	struct wbuf v;
	unsigned is = b->w.id_size;
	size_t n = strlen(text);
	uint64_t value = id + (n ? 16 : 8);
	wbuf_init(&v);
	put_be(&v, 4, n);
	put_be(&v, 4, 0);
	put_be(&v, is, value);
	object_part(&v, is, C_STRING);
	instance(b, id, C_STRING, &v);
	wbuf_release(&v);
	if (!b->rc)
		b->rc = hprof_put_prim_array(&b->w, value, 0, HPROF_T_BYTE, (uint32_t)n, text, false, &b->e);
}

/* The WalkGap class and its one instance with its root (output/hprof/hprof_mark.h). */
static void gap_record(struct bld *b, bool backwards)
{
	static const struct fdef f_gap[] = { { "gapStart", HPROF_T_LONG }, { "gapEnd", HPROF_T_LONG },
					     { "spaceEnd", HPROF_T_LONG } };
	struct hprof_root gr = { .tag = HPROF_ROOT_UNKNOWN, .id = GAP_INST };
	struct wbuf v;

	heap_class(b, C_GAP, 0, f_gap, 3, NULL, NULL, 0);
	wbuf_init(&v);
	put_be(&v, 8, backwards ? GAP_END : GAP_START);
	put_be(&v, 8, backwards ? GAP_START : GAP_END);
	put_be(&v, 8, GAP_SPACE_END);
	instance(b, GAP_INST, C_GAP, &v);
	wbuf_release(&v);
	if (!b->rc)
		b->rc = hprof_put_root(&b->w, &gr, &b->e);
}

static int build(struct wbuf *out, const struct mods *m)
{
	static const struct fdef f_object[] = { { "shadow$_klass_", HPROF_T_OBJECT }, { "shadow$_monitor_", HPROF_T_INT } };
	static const struct fdef f_string[] = { { "count", HPROF_T_INT }, { "hash", HPROF_T_INT }, { "value", HPROF_T_OBJECT } };
	static const struct fdef f_node[] = { { "id", HPROF_T_INT }, { "next", HPROF_T_OBJECT }, { "big", HPROF_T_LONG } };
	static const struct fdef f_dex[] = { { "location", HPROF_T_OBJECT }, { "runtimeInternalObjects", HPROF_T_OBJECT } };
	static const struct fdef s_object[] = { { "$classOverhead", HPROF_T_OBJECT } };
	static const struct fdef s_node[] = { { "count", HPROF_T_INT } };
	const uint64_t sv_object[] = { C_OBJECT + 1 }, sv_node[] = { 3 };
	struct bld b = { 0 };
	struct wbuf v;
	unsigned is = m->id_size;

	err_init(&b.e);
	hprof_writer_init(&b.w, NULL, is, &b.e);
	b.rc = hprof_write_header(&b.w, "1.0.3", 0, &b.e);
	write_names(&b);
	load_class(&b, C_OBJECT, "java.lang.Object");
	load_class(&b, C_STRING, "java.lang.String");
	load_class(&b, C_NODE, "Node");
	load_class(&b, C_DEXCACHE, "java.lang.DexCache");
	load_class(&b, C_OARR, "[Ljava/lang/Object;");     /* JVM form: compared in Java form */
	load_class(&b, C_CLASS, "java.lang.Class");
	if (m->alias)
		load_class(&b, C_ALIAS, hprof_mark_alias_class());
	if (m->gap)
		load_class(&b, C_GAP, hprof_mark_gap_class());
	if (m->marks) {
		load_class(&b, C_MARK_FREE, hprof_mark_class(HPROF_MARK_FREE));
		load_class(&b, C_MARK_UNREACH, hprof_mark_class(HPROF_MARK_UNREACHABLE));
	}
	struct hprof_heap_info hi = { HPROF_HEAP_APP, str_id(&b, "app") };
	if (!b.rc)
		b.rc = hprof_put_heap_info(&b.w, &hi, &b.e);
	for (uint64_t c = C_OBJECT; c <= C_CLASS; c += 0x100) {
		struct hprof_root r = { .tag = HPROF_ROOT_STICKY_CLASS, .id = c };
		if (!b.rc)
			b.rc = hprof_put_root(&b.w, &r, &b.e);
	}
	struct hprof_root r1 = { .tag = HPROF_ROOT_UNKNOWN, .id = N1 }, r2 = { .tag = HPROF_ROOT_JNI_GLOBAL, .id = DC };
	if (!b.rc)
		b.rc = hprof_put_root(&b.w, &r1, &b.e);
	if (!b.rc)
		b.rc = hprof_put_root(&b.w, &r2, &b.e);
	/* the statics array of java.lang.Object's class (art AddClassStaticsId: class + 1) */
	if (!b.rc)
		b.rc = hprof_put_prim_array(&b.w, C_OBJECT + 1, 0, HPROF_T_BYTE, 4, "\0\0\0\0", false, &b.e);
	heap_class(&b, C_OBJECT, 0, f_object, 2, s_object, sv_object, 1);
	heap_class(&b, C_STRING, C_OBJECT, f_string, 3, NULL, NULL, 0);
	heap_class(&b, C_NODE, C_OBJECT, f_node, 3, s_node, sv_node, 1);
	heap_class(&b, C_DEXCACHE, C_OBJECT, f_dex, 2, NULL, NULL, 0);
	heap_class(&b, C_OARR, C_OBJECT, NULL, 0, NULL, NULL, 0);
	heap_class(&b, C_CLASS, C_OBJECT, NULL, 0, NULL, NULL, 0);
	if (m->alias) {
		static const struct fdef f_alias[] = { { "idBase", HPROF_T_LONG }, { "addressBase", HPROF_T_LONG },
						       { "length", HPROF_T_LONG } };
		struct hprof_root ar = { .tag = HPROF_ROOT_UNKNOWN, .id = ALIAS_INST };
		heap_class(&b, C_ALIAS, 0, f_alias, 3, NULL, NULL, 0);
		wbuf_init(&v);
		put_be(&v, 8, PRIM);
		put_be(&v, 8, REAL_PRIM);
		put_be(&v, 8, 0x100);
		instance(&b, ALIAS_INST, C_ALIAS, &v);
		wbuf_release(&v);
		if (!b.rc)
			b.rc = hprof_put_root(&b.w, &ar, &b.e);
	}
	if (m->gap)
		gap_record(&b, m->gap_backwards);
	if (m->marks) {
		heap_class(&b, C_MARK_FREE, C_OBJECT, NULL, 0, NULL, NULL, 0);
		heap_class(&b, C_MARK_UNREACH, C_OBJECT, NULL, 0, NULL, NULL, 0);
	}
	string(&b, S1, m->s1_text);
	string(&b, S2, "");
	node(&b, N1, C_NODE, m->n1_id, N2, 0xCAFEBABE00000001ull);
	node(&b, N2, m->wrong_class_n2 ? C_OBJECT : C_NODE, 8, 0, 2);
	if (!m->drop_n3)
		node(&b, N3, C_NODE, 9, N1, 3);
	if (m->invent)
		node(&b, INVENTED, C_NODE, 10, 0, 4);
	if (m->beyond) {
		node(&b, B1, C_NODE, 11, 0, 5);
		node(&b, B2, C_NODE, 12, B1, 6);
	}
	if (m->truth_beyond)
		node(&b, B3, C_NODE, 13, 0, 7);
	wbuf_init(&v);
	put_be(&v, is, S1);
	put_be(&v, is, DC + 4);
	object_part(&v, is, C_DEXCACHE);
	instance(&b, DC, C_DEXCACHE, &v);
	wbuf_release(&v);
	uint64_t rio[] = { S2 }, arr[] = { N1, S1 };
	if (!b.rc)
		b.rc = hprof_put_obj_array(&b.w, DC + 4, 0, C_OARR, rio, 1, &b.e);
	if (!b.rc)
		b.rc = hprof_put_obj_array(&b.w, ARR, 0, C_OARR, arr, 2, &b.e);
	if (!b.rc)
		b.rc = hprof_put_prim_array(&b.w, PRIM, 0, HPROF_T_INT, 3, "\0\0\0\1\0\0\0\2\0\0\0\3", false, &b.e);
	if (m->after_empty && !b.rc)
		b.rc = hprof_put_prim_array(&b.w, S2 + 16, 0, HPROF_T_BYTE, 2, "xy", false, &b.e);
	if (m->marks) {
		uint64_t unreach[4] = { ARR, N3, PRIM, N1 }, fr[1] = { N3 };
		unsigned nu = m->mark_n1 ? 4 : 3;
		if (!b.rc)
			b.rc = hprof_put_obj_array(&b.w, 0xfffffff1, 0, C_MARK_UNREACH, unreach, nu, &b.e);
		if (!b.rc)
			b.rc = hprof_put_obj_array(&b.w, 0xffffffe1, 0, C_MARK_FREE, fr, m->free_n3 ? 1 : 0, &b.e);
		struct hprof_root mr = { .tag = HPROF_ROOT_UNKNOWN, .id = 0xfffffff1 };
		if (!b.rc)
			b.rc = hprof_put_root(&b.w, &mr, &b.e);
	}
	if (!b.rc)
		b.rc = hprof_write_heap_dump_end(&b.w, &b.e);
	wbuf_init(out);
	if (!b.rc)
		wbuf_put(out, b.w.buf.data, b.w.buf.len);
	hprof_writer_release(&b.w);
	if (b.rc)
		printf("build failed: %s\n", b.e.msg);
	return b.rc;
}

static struct vd_report *compare(const struct wbuf *res, const struct wbuf *tru, int *rc_out)
{
	struct vd_input ri = { res->data, res->len, "result", false }, ti = { tru->data, tru->len, "truth", false };
	struct vd_options opt = { .per_class = 20, .examples = 5 };
	struct vd_report *r = NULL;
	struct err e;
	int rc;

	err_init(&e);
	rc = vd_compare(&ri, &ti, &opt, &r, &e);
	if (rc_out)
		*rc_out = rc;
	if (rc && !rc_out)
		printf("vd_compare: %s\n", e.msg);
	return r;
}

static const struct vd_named_count *class_row(const struct vd_report *r, const char *name)
{
	for (unsigned i = 0; i < r->class_count; i++)
		if (!strcmp(r->classes[i].name, name))
			return &r->classes[i];
	return NULL;
}

/* ---- the tests ---------------------------------------------------------------------------- */

static void test_self(void)
{
	struct wbuf t;
	struct vd_report *r;

	T_SECTION("truth against itself");
	T_EQ_I(build(&t, &base), 0);
	r = compare(&t, &t, NULL);
	T_CHECK(r != NULL, "report");
	if (!r)
		return;
	printf("objects %llu, not objects %llu/%llu/%llu\n", (unsigned long long)r->truth_info.objects,
	       (unsigned long long)r->truth_info.synthetic[0], (unsigned long long)r->truth_info.synthetic[1],
	       (unsigned long long)r->truth_info.synthetic[2]);
	T_EQ_U(r->truth_info.objects, 14);
	T_EQ_U(r->truth_info.synthetic[VD_SYN_STRING_VALUE], 2);
	T_EQ_U(r->truth_info.synthetic[VD_SYN_CLASS_STATICS], 1);
	T_EQ_U(r->truth_info.synthetic[VD_SYN_RUNTIME_INTERNAL], 1);
	T_EQ_U(r->truth_info.by_kind[VD_CLASS], 6);
	T_EQ_U(r->truth_info.by_kind[VD_INSTANCE], 6);
	T_EQ_U(r->truth_info.by_kind[VD_OBJ_ARRAY], 1);
	T_EQ_U(r->truth_info.by_kind[VD_PRIM_ARRAY], 1);
	T_EQ_U(r->truth_info.roots, 8);
	T_EQ_U(r->overall.truth, 14);
	T_EQ_U(r->overall.matched, 14);
	T_EQ_U(r->overall.result, 14);
	T_EQ_U(r->overall.result_matched, 14);
	T_EQ_U(r->class_mismatch, 0);
	T_EQ_U(r->truth_heap_count, 1);
	T_EQ_S(r->truth_heaps[0].name, "app");
	T_CHECK(class_row(r, "java.lang.Object[]") != NULL, "JVM-form class name in Java form");
	T_EQ_U(r->classes_differing, 0);
	/* fields: Node 3 x (monitor, id, big), String 2 x (monitor, count, hash), DexCache monitor */
	T_EQ_U(r->fields.prim, 16);
	T_EQ_U(r->fields.prim_equal, 16);
	T_EQ_U(r->fields.ref, 10);     /* Node 3 x (klass, next), String 2 x klass, DexCache klass, location */
	T_EQ_U(r->fields.ref_equal, 10);
	T_EQ_U(r->fields.invented, 4); /* 2 x String.value, runtimeInternalObjects, $classOverhead */
	T_EQ_U(r->fields.statics, 1);
	T_EQ_U(r->fields.arrays, 2);
	T_EQ_U(r->fields.elements, 5);
	T_EQ_U(r->fields.elements_equal, 5);
	T_EQ_U(r->fields.objects, 14);
	T_EQ_U(r->fields.objects_equal, 14);
	T_EQ_U(r->strings.truth, 2);
	T_EQ_U(r->strings.compared, 2);
	T_EQ_U(r->strings.equal, 2);
	/* reachability: the roots reach 6 classes, N1, N2, DexCache, S1, S2 (only through the
	 * runtime-internal array, followed last); not Object[] ARR, N3, int[] PRIM */
	T_EQ_S(r->reach.truth_source, "roots");
	T_EQ_S(r->reach.result_source, "roots");
	T_EQ_U(r->reach.truth_reachable, 11);
	T_EQ_U(r->reach.truth_unreachable, 3);
	T_EQ_U(r->reach.reached_by_root[VD_ROOT_STICKY_CLASS], 6);
	T_EQ_U(r->reach.reached_by_root[VD_ROOT_JNI_GLOBAL], 2);
	T_EQ_U(r->reach.reached_by_root[VD_ROOT_RUNTIME_INTERNAL], 1);  /* S2, after every root */
	T_EQ_U(r->reach.reached_by_root[VD_ROOT_UNKNOWN], 2);
	T_EQ_U(r->reach.unreachable_agree, 3);
	T_EQ_U(r->reach.false_unreachable, 0);
	vd_report_free(r);
	wbuf_release(&t);
}

/* ART puts an empty String's characters at + 8, so an array at + 16 is the next object in
 * the slot after it, not the String's value (realart cc-nodes-nogc holds two of them). */
static void test_array_after_empty_string(void)
{
	struct mods m = base;
	struct wbuf t;
	struct vd_report *r;

	T_SECTION("a real array right after an empty String is an object");
	m.after_empty = true;
	T_EQ_I(build(&t, &m), 0);
	r = compare(&t, &t, NULL);
	T_CHECK(r != NULL, "report");
	if (!r)
		return;
	printf("objects %llu, String value arrays %llu, value-position objects %llu\n",
	       (unsigned long long)r->truth_info.objects,
	       (unsigned long long)r->truth_info.synthetic[VD_SYN_STRING_VALUE],
	       (unsigned long long)r->truth_info.value_position_objects);
	T_EQ_U(r->truth_info.objects, 15);
	T_EQ_U(r->truth_info.by_kind[VD_PRIM_ARRAY], 2);
	T_EQ_U(r->truth_info.synthetic[VD_SYN_STRING_VALUE], 2);
	T_EQ_U(r->truth_info.value_position_objects, 1);
	T_EQ_U(r->overall.matched, 15);
	vd_report_free(r);
	wbuf_release(&t);
}

static void test_perturbed(void)
{
	struct wbuf t, x;
	struct vd_report *r;
	struct mods m;

	build(&t, &base);

	T_SECTION("one object dropped");
	m = base;
	m.drop_n3 = true;
	build(&x, &m);
	if ((r = compare(&x, &t, NULL))) {
		T_EQ_U(r->overall.matched, 13);
		T_EQ_U(r->overall.truth, 14);
		T_EQ_U(r->overall.result, 13);
		T_EQ_U(r->overall.result_matched, 13);
		T_EQ_U(r->missed.total, 1);
		T_EQ_U(r->missed.v[0].id, N3);
		T_EQ_U(r->classes_differing, 1);
		const struct vd_named_count *node_row = class_row(r, "Node");
		T_CHECK(node_row && node_row->c.truth == 3 && node_row->c.result == 2, "Node counts 3 / 2");
		T_EQ_U(r->fields.objects_equal, 13);
	}
	vd_report_free(r);
	wbuf_release(&x);

	T_SECTION("one field changed");
	m = base;
	m.n1_id = 70;
	build(&x, &m);
	if ((r = compare(&x, &t, NULL))) {
		T_EQ_U(r->overall.matched, 14);
		T_EQ_U(r->fields.prim, 16);
		T_EQ_U(r->fields.prim_equal, 15);
		T_EQ_U(r->fields.objects_equal, 13);
		T_EQ_U(r->fields.diff_count, 1);
		if (r->fields.diff_count) {
			T_EQ_S(r->fields.diffs[0].cls, "Node");
			T_EQ_S(r->fields.diffs[0].field, "id");
		}
		T_EQ_U(r->fields.ex.total, 1);
		if (r->fields.ex.n)
			T_EQ_U(r->fields.ex.v[0].id, N1);
	}
	vd_report_free(r);
	wbuf_release(&x);

	T_SECTION("one object invented");
	m = base;
	m.invent = true;
	build(&x, &m);
	if ((r = compare(&x, &t, NULL))) {
		T_EQ_U(r->overall.matched, 14);
		T_EQ_U(r->overall.result, 15);
		T_EQ_U(r->overall.result_matched, 14);
		T_EQ_U(r->invented.total, 1);
		T_EQ_U(r->invented.v[0].id, INVENTED);
	}
	vd_report_free(r);
	wbuf_release(&x);

	T_SECTION("one String's text changed");
	m = base;
	m.s1_text = "abd";
	build(&x, &m);
	if ((r = compare(&x, &t, NULL))) {
		T_EQ_U(r->strings.compared, 2);
		T_EQ_U(r->strings.equal, 1);
		T_EQ_U(r->strings.ex.total, 1);
		T_EQ_U(r->fields.objects_equal, 14);    /* the characters are no field */
		T_EQ_U(r->overall.result, 14);
	}
	vd_report_free(r);
	wbuf_release(&x);

	T_SECTION("same address, other class");
	m = base;
	m.wrong_class_n2 = true;
	build(&x, &m);
	if ((r = compare(&x, &t, NULL))) {
		T_EQ_U(r->class_mismatch, 1);
		T_EQ_U(r->overall.matched, 13);
		T_EQ_U(r->overall.result_matched, 13);
		T_EQ_U(r->mismatched.total, 1);
		if (r->mismatched.n)
			T_EQ_S(r->mismatched.v[0].result, "java.lang.Object");
	}
	vd_report_free(r);
	wbuf_release(&x);

	T_SECTION("8-byte ids against 4-byte ids");
	m = base;
	m.id_size = 8;
	build(&x, &m);
	if ((r = compare(&x, &t, NULL))) {
		T_EQ_U(r->result_info.id_size, 8);
		T_EQ_U(r->overall.result_matched, 14);
		T_EQ_U(r->fields.objects_equal, 14);
		T_EQ_U(r->strings.equal, 2);
		T_EQ_U(r->result_info.synthetic[VD_SYN_STRING_VALUE], 2);
	}
	vd_report_free(r);
	wbuf_release(&x);
	wbuf_release(&t);
}

/* Result objects past a walk gap that the truth lacks are beyond_walk, not invented, as long
 * as the truth lists nothing from the gap's start on. */
static void test_walk_gap(void)
{
	struct wbuf t, x;
	struct vd_report *r;
	struct mods m = base;

	build(&t, &base);
	T_SECTION("walk gap: two objects past it, absent from the truth, and one invented elsewhere");
	m.gap = m.beyond = m.invent = true;
	build(&x, &m);
	if ((r = compare(&x, &t, NULL))) {
		T_EQ_U(r->result_info.objects, 17);     /* the WalkGap class and instance are no objects */
		T_EQ_U(r->result_info.roots, 8);        /* nor is the root naming the instance */
		T_EQ_U(r->overall.result, 17);
		T_EQ_U(r->overall.result_matched, 14);
		T_EQ_U(r->overall.beyond_walk, 2);
		T_EQ_U(r->by_kind[VD_INSTANCE].beyond_walk, 2);
		T_EQ_U(r->invented.total, 1);
		T_CHECK(r->invented.n == 1 && r->invented.v[0].id == INVENTED, "invented 0x%llx",
			r->invented.n ? (unsigned long long)r->invented.v[0].id : 0ull);
		T_CHECK(r->beyond_walk.n == 2 && r->beyond_walk.v[0].id == B1 && r->beyond_walk.v[1].id == B2,
			"beyond walk: %u", r->beyond_walk.n);
		T_EQ_U(r->overall.matched, 14);
	}
	vd_report_free(r);
	wbuf_release(&x);

	T_SECTION("walk gap: objects past it alone: every class's count equals the truth's");
	m.invent = false;
	build(&x, &m);
	if ((r = compare(&x, &t, NULL))) {
		const struct vd_named_count *node = class_row(r, "Node");
		printf("Node: truth %llu, result %llu, beyond walk %llu; classes differing %llu\n",
		       node ? (unsigned long long)node->c.truth : 0ull, node ? (unsigned long long)node->c.result : 0ull,
		       node ? (unsigned long long)node->c.beyond_walk : 0ull, (unsigned long long)r->classes_differing);
		T_CHECK(node && node->c.beyond_walk == 2 && node->c.result == node->c.truth + 2, "Node row");
		T_EQ_U(r->classes_differing, 0);
	}
	vd_report_free(r);
	wbuf_release(&x);

	T_SECTION("walk gap: the truth lists an object past the gap's start: its walk went on, invented");
	m.invent = false;
	build(&x, &m);
	struct mods tm = base;
	tm.truth_beyond = true;
	wbuf_release(&t);
	build(&t, &tm);
	if ((r = compare(&x, &t, NULL))) {
		T_EQ_U(r->overall.beyond_walk, 0);
		T_EQ_U(r->invented.total, 2);
		T_EQ_U(r->missed.total, 1);             /* B3 */
	}
	vd_report_free(r);
	wbuf_release(&x);
	wbuf_release(&t);

	T_SECTION("walk gap: a record out of order is no gap; without a record, invented");
	build(&t, &base);
	m.gap_backwards = true;
	build(&x, &m);
	if ((r = compare(&x, &t, NULL))) {
		T_EQ_U(r->overall.beyond_walk, 0);
		T_EQ_U(r->invented.total, 2);
		T_EQ_U(r->result_info.objects, 16);
	}
	vd_report_free(r);
	wbuf_release(&x);
	m = base;
	m.beyond = true;
	build(&x, &m);
	if ((r = compare(&x, &t, NULL))) {
		T_EQ_U(r->overall.beyond_walk, 0);
		T_EQ_U(r->invented.total, 2);
	}
	vd_report_free(r);
	wbuf_release(&x);
	wbuf_release(&t);
}

static void test_marks(void)
{
	struct wbuf t, x;
	struct vd_report *r;
	struct mods m = base;

	build(&t, &base);
	T_SECTION("state marks: the three unreachable objects");
	m.marks = true;
	build(&x, &m);
	if ((r = compare(&x, &t, NULL))) {
		T_EQ_U(r->result_info.mark_arrays, 2);
		T_EQ_U(r->result_info.objects, 14);     /* mark arrays are no objects */
		T_EQ_U(r->overall.result_matched, 14);
		T_CHECK(r->result_info.states[VD_DIM_REACH] && r->result_info.states[VD_DIM_ALLOC] &&
			!r->result_info.states[VD_DIM_CONTENT], "reach and alloc marked, content not");
		T_EQ_S(r->reach.result_source, "marks");
		T_EQ_U(r->reach.result_unreachable, 3);
		T_EQ_U(r->reach.unreachable_agree, 3);
		T_EQ_U(r->reach.false_unreachable, 0);
		T_EQ_U(r->states[VD_DIM_ALLOC][VD_ALLOCATED].agree, 14);
		T_EQ_U(r->states[VD_DIM_REACH][VD_UNREACHABLE].result_true, 3);
		T_EQ_U(r->truth_info.roots, 8);
		T_EQ_U(r->result_info.roots, 8);        /* the root naming the mark array is dropped */
	}
	vd_report_free(r);
	wbuf_release(&x);

	T_SECTION("state marks: a reachable object called unreachable, one called free");
	m.mark_n1 = true;
	m.free_n3 = true;
	build(&x, &m);
	if ((r = compare(&x, &t, NULL))) {
		T_EQ_U(r->reach.result_unreachable, 4);
		T_EQ_U(r->reach.false_unreachable, 1);
		T_EQ_U(r->reach.false_unreachable_by_root[VD_ROOT_UNKNOWN], 1);
		T_EQ_U(r->states[VD_DIM_ALLOC][VD_FREE].result, 1);
		T_EQ_U(r->states[VD_DIM_ALLOC][VD_FREE].result_true, 0);
		T_EQ_U(r->states[VD_DIM_ALLOC][VD_ALLOCATED].agree, 13);
		const struct vd_named_count *node_row = class_row(r, "Node");
		T_CHECK(node_row && node_row->c.result == 2, "a free object is not counted in its class");
		/* a runtime HPROF holds no free object: the one marked free is not judged */
		T_EQ_U(r->result_free_unjudged, 1);
		T_EQ_U(r->overall.result, 13);
		T_EQ_U(r->overall.result_matched, 13);
		T_EQ_U(r->overall.matched, 14);
	}
	vd_report_free(r);
	wbuf_release(&x);
	wbuf_release(&t);
}

/* ---- truth.jsonl ---------------------------------------------------------------------------- */

static uint64_t fnv_le32(const uint32_t *v, unsigned n)
{
	uint64_t h = HASH_FNV1A64_INIT;
	for (unsigned i = 0; i < n; i++) {
		uint8_t b[4] = { (uint8_t)v[i], (uint8_t)(v[i] >> 8), (uint8_t)(v[i] >> 16), (uint8_t)(v[i] >> 24) };
		h = hash_fnv1a64_more(h, b, 4);
	}
	return h;
}

static void jsonl_truth_at(struct wbuf *j, const char *s1, unsigned prim_last, unsigned count, uint64_t prim)
{
	uint32_t p[3] = { 1, 2, prim_last };
	wbuf_init(j);
	wbuf_printf(j, "{\"addr\":\"0x%x\",\"class\":\"java.lang.String\",\"kind\":\"string\",\"space\":\"region\","
		    "\"alloc\":\"allocated\",\"content\":\"intact\",\"reach\":\"reachable\",\"fields\":["
		    "{\"name\":\"shadow$_klass_\",\"type\":\"Ljava/lang/Class;\",\"offset\":0,\"value\":\"0x%x\"},"
		    "{\"name\":\"shadow$_monitor_\",\"type\":\"I\",\"offset\":4,\"value\":0},"
		    "{\"name\":\"count\",\"type\":\"I\",\"offset\":8,\"value\":%u},"
		    "{\"name\":\"hash\",\"type\":\"I\",\"offset\":12,\"value\":0}],"
		    "\"length\":3,\"compressed\":true,\"string\":\"%s\"}\n", S1, C_STRING, count, s1);
	wbuf_printf(j, "\n{\"reach\":\"unreachable\",\"addr\":\"0x%llx\",\"class\":\"int[]\",\"kind\":\"primitive-array\","
		    "\"space\":\"los\",\"alloc\":\"allocated\",\"content\":\"intact\",\"length\":3,"
		    "\"elements\":[1,2,%u],\"element_type\":\"I\",\"data_fnv1a64\":\"%016llx\"}\n", (unsigned long long)prim, prim_last,
		    (unsigned long long)fnv_le32(p, 3));
	wbuf_printf(j, "{\"addr\":\"0x%x\",\"class\":\"Node\",\"kind\":\"instance\",\"space\":\"region\","
		    "\"alloc\":\"free\",\"content\":\"residue\",\"reach\":\"unreachable\",\"fields\":[]}\n", 0x5000);
}

static void jsonl_truth(struct wbuf *j, const char *s1, unsigned prim_last, unsigned count)
{
	jsonl_truth_at(j, s1, prim_last, count, PRIM);
}

static void test_jsonl(void)
{
	struct wbuf t, j;
	struct vd_report *r;
	int rc;

	T_SECTION("truth.jsonl as the truth");
	build(&t, &base);
	jsonl_truth(&j, "abc", 3, 3);
	if ((r = compare(&t, &j, NULL))) {
		T_EQ_S(r->truth_info.format, "truth.jsonl");
		T_EQ_U(r->truth_info.objects, 3);
		T_EQ_U(r->overall.truth, 2);            /* the free one is not in the recall */
		T_EQ_U(r->overall.matched, 2);
		T_EQ_U(r->states[VD_DIM_ALLOC][VD_FREE].truth, 1);
		T_EQ_U(r->states[VD_DIM_ALLOC][VD_FREE].found, 0);
		T_EQ_U(r->strings.equal, 1);
		T_EQ_U(r->fields.prim, 3);              /* monitor, count, hash */
		T_EQ_U(r->fields.prim_equal, 3);
		T_EQ_U(r->fields.arrays_equal, 1);
		T_EQ_U(r->fields.elements_equal, 3);
		T_EQ_S(r->reach.truth_source, "truth.jsonl");
		T_EQ_U(r->reach.unreachable_agree, 1);  /* PRIM is unreachable from the result's roots too */
		T_EQ_U(r->truth_heap_count, 2);
		T_EQ_U(r->fields.extra, 0);
		T_EQ_U(r->fields.invented, 1);          /* the result's String.value, ART-style */
	}
	vd_report_free(r);
	wbuf_release(&j);

	T_SECTION("truth.jsonl: String.count as the field holds it (length << 1 | flag)");
	jsonl_truth(&j, "abc", 3, 6);
	if ((r = compare(&t, &j, NULL))) {
		T_EQ_U(r->fields.prim_equal, 3);        /* 6 >> 1 is the length of the text both give */
		T_EQ_U(r->fields.objects_equal, 2);
	}
	vd_report_free(r);
	wbuf_release(&j);
	jsonl_truth(&j, "abd", 3, 8);
	if ((r = compare(&t, &j, NULL))) {
		T_EQ_U(r->fields.prim_equal, 2);        /* 8 is neither 3 nor 3 << 1 | flag */
		T_EQ_U(r->strings.equal, 0);
	}
	vd_report_free(r);
	wbuf_release(&j);

	T_SECTION("truth.jsonl: other text, other element");
	jsonl_truth(&j, "ab\\u00e9", 4, 3);
	if ((r = compare(&t, &j, NULL))) {
		T_EQ_U(r->strings.equal, 0);
		T_EQ_U(r->strings.compared, 1);
		T_EQ_U(r->fields.arrays_equal, 0);
		T_EQ_U(r->fields.elements_equal, 2);
	}
	vd_report_free(r);
	wbuf_release(&j);

	T_SECTION("address aliases: ids of an AddressAlias window meet the truth's real addresses");
	{
		struct wbuf a;
		struct mods m = base;
		m.alias = true;
		jsonl_truth_at(&j, "abc", 3, 3, REAL_PRIM);
		if ((r = compare(&t, &j, NULL))) {     /* no window: the int[] above 4 GiB is missed */
			T_EQ_U(r->overall.matched, 1);
			T_CHECK(r->missed.n == 1 && r->missed.v[0].id == REAL_PRIM, "missed: %u, 0x%llx", r->missed.n,
				r->missed.n ? (unsigned long long)r->missed.v[0].id : 0ull);
		}
		vd_report_free(r);
		build(&a, &m);
		if ((r = compare(&a, &j, NULL))) {
			T_EQ_U(r->result_info.objects, 14);     /* the alias class and instance are no objects */
			T_EQ_U(r->overall.matched, 2);
			T_EQ_U(r->fields.elements_equal, 3);
			T_EQ_U(r->missed.n, 0);
		}
		vd_report_free(r);
		wbuf_release(&j);
		jsonl_truth_at(&j, "abc", 3, 3, REAL_PRIM + 8);
		if ((r = compare(&a, &j, NULL)))        /* a truth object in the window, at no result id */
			T_CHECK(r->missed.n == 1 && r->missed.v[0].id == REAL_PRIM + 8, "missed %u 0x%llx", r->missed.n,
				r->missed.n ? (unsigned long long)r->missed.v[0].id : 0ull);
		vd_report_free(r);
		wbuf_release(&a);
		wbuf_release(&j);
	}

	T_SECTION("truth.jsonl: damaged lines are refused with their line number");
	static const char *const bad[] = {
		"{\"addr\":\"12\",\"class\":\"A\",\"kind\":\"instance\"}\n",
		"{\"addr\":\"0x10\",\"class\":\"A\",\"kind\":\"thing\"}\n",
		"{\"addr\":\"0x10\",\"class\":\"A\"}\n",
		"{\"addr\":\"0x10\",\"class\":\"A\",\"kind\":\"instance\"\n",
		"{\"addr\":\"0x10\",\"class\":\"A\",\"kind\":\"instance\",\"x\":[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]}\n",
		"{\"addr\":\"0x10\",\"class\":\"A\",\"kind\":\"instance\",\"fields\":[{\"name\":\"f\",\"type\":\"I\",\"value\":\"x\"}]}\n",
		"{\"addr\":\"0x10\",\"class\":\"A\",\"kind\":\"primitive-array\",\"elements\":[1]}\n",
		"{\"addr\":\"0x10\",\"class\":\"A\",\"kind\":\"instance\",\"string\":\"\\ud83d\\ude00\xff\"}\n",
		"{\"addr\":\"0x10\",\"class\":\"A\",\"kind\":\"instance\"} x\n",
		"[1]\n",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct wbuf b;
		wbuf_init(&b);
		wbuf_printf(&b, "\n%s", bad[i]);
		r = compare(&t, &b, &rc);
		T_CHECK(rc == -ERR_CORRUPT && r == NULL, "bad line %zu: rc %d", i, rc);
		vd_report_free(r);
		wbuf_release(&b);
	}
	wbuf_release(&t);
}

/* ---- names, truncations ---------------------------------------------------------------- */

static void test_names(void)
{
	static const char *const cases[][2] = {
		{ "java/lang/String", "java.lang.String" }, { "[I", "int[]" }, { "[[J", "long[][]" },
		{ "[Ljava/lang/Object;", "java.lang.Object[]" }, { "[[Lcom/x/A$B;", "com.x.A$B[][]" },
		{ "java.lang.String[]", "java.lang.String[]" }, { "int", "int" }, { "[Q", "[Q" }, { "[L;", "[L;" },
	};
	struct vd_names t;
	struct err e;

	T_SECTION("class names in Java form");
	vd_names_init(&t);
	err_init(&e);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint32_t k = UINT32_MAX;
		int rc = vd_names_add_class(&t, cases[i][0], strlen(cases[i][0]), &k, &e);
		T_CHECK(rc == 0, "%s: %s", cases[i][0], e.msg);
		T_EQ_S(k < t.n ? t.v[k].s : NULL, cases[i][1]);
	}
	for (unsigned i = 0; i < 2000; i++) {  /* rehashes keep every name */
		char buf[16];
		uint32_t k;
		snprintf(buf, sizeof(buf), "n%u", i);
		vd_names_add(&t, buf, strlen(buf), &k, &e);
	}
	T_EQ_U(vd_names_find(&t, "n1999", 5) != UINT32_MAX, 1);
	T_EQ_U(vd_names_find(&t, "java.lang.String", 16) != UINT32_MAX, 1);
	T_EQ_U(vd_names_find(&t, "absent", 6), UINT32_MAX);
	vd_names_release(&t);
}

static void test_truncations(void)
{
	struct wbuf t, x;
	struct mods m = base;
	unsigned ok = 0, refused = 0, bad = 0;

	T_SECTION("every truncation of the truth and of the result");
	m.marks = true;
	build(&t, &base);
	build(&x, &m);
	for (size_t n = 0; n < t.len; n++) {
		struct wbuf cut = { .data = t.data, .len = n };
		int rc;
		struct vd_report *r = compare(&x, &cut, &rc);
		if (rc == 0)
			ok++;
		else if (rc == -ERR_TRUNC || rc == -ERR_CORRUPT || rc == -ERR_UNSUP)
			refused++;
		else
			bad++;
		vd_report_free(r);
		cut.len = n < x.len ? n : x.len;
		cut.data = x.data;
		r = compare(&cut, &t, &rc);
		if (rc == 0)
			ok++;
		else if (rc == -ERR_TRUNC || rc == -ERR_CORRUPT || rc == -ERR_UNSUP)
			refused++;
		else
			bad++;
		vd_report_free(r);
	}
	printf("truncations: %u compared (cut at a record end), %u refused, %u other\n", ok, refused, bad);
	T_EQ_U(bad, 0);
	T_CHECK(refused > ok, "most cuts fall inside a record");
	wbuf_release(&t);
	wbuf_release(&x);
}

/* ---- fuzz seeds ----------------------------------------------------------------------------- */

/* Seed format of fuzz_validate: u32le length of RESULT, RESULT, TRUTH. */
static int write_seed(const char *dir, const char *name, const struct wbuf *res, const struct wbuf *tru)
{
	char path[4096];
	uint8_t len[4] = { (uint8_t)res->len, (uint8_t)(res->len >> 8), (uint8_t)(res->len >> 16),
			   (uint8_t)(res->len >> 24) };
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fp = fopen(path, "wb");
	if (!fp)
		return -1;
	fwrite(len, 1, 4, fp);
	fwrite(res->data, 1, res->len, fp);
	fwrite(tru->data, 1, tru->len, fp);
	return fclose(fp) ? -1 : 0;
}

static int write_seeds(const char *dir)
{
	struct wbuf t, x, j;
	struct mods m = base;
	int rc = 0;

	build(&t, &base);
	jsonl_truth(&j, "abc", 3, 3);
	rc |= write_seed(dir, "self.seed", &t, &t);
	m.marks = m.mark_n1 = m.free_n3 = true;
	m.n1_id = 70;
	m.invent = true;
	build(&x, &m);
	rc |= write_seed(dir, "marks-perturbed.seed", &x, &t);
	wbuf_release(&x);
	m = base;
	m.id_size = 8;
	m.wrong_class_n2 = m.drop_n3 = true;
	build(&x, &m);
	rc |= write_seed(dir, "id8-against-id4.seed", &x, &t);
	rc |= write_seed(dir, "hprof-against-jsonl.seed", &t, &j);
	m = base;
	m.alias = true;
	wbuf_release(&x);
	build(&x, &m);
	wbuf_release(&j);
	jsonl_truth_at(&j, "abc", 3, 3, REAL_PRIM);
	rc |= write_seed(dir, "alias-against-jsonl.seed", &x, &j);
	wbuf_release(&x);
	m = base;
	m.gap = m.beyond = m.invent = true;
	build(&x, &m);
	rc |= write_seed(dir, "walk-gap.seed", &x, &t);
	wbuf_release(&x);
	wbuf_release(&t);
	wbuf_release(&j);
	if (rc)
		fprintf(stderr, "test_validate: cannot write seeds into %s\n", dir);
	return rc ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--write-seeds"))
		return write_seeds(argv[2]);
	test_self();
	test_array_after_empty_string();
	test_perturbed();
	test_marks();
	test_walk_gap();
	test_jsonl();
	test_names();
	test_truncations();
	T_DONE();
}
