/* test_model.c - the object model (rosalloc/model) on a hand-made heap: candidate checks
 * (class word, size, length, references), states and confidence, empty free places,
 * duplicates, reachability from thread objects and a JNI table, and the carved HPROF
 * (records, String character arrays, mark arrays, determinism), and the case database written
 * from it (read back with the sqlite3 shell); a space above 4 GiB and its alias window. */
#include <stdlib.h>
#include <unistd.h>

#include "carver/base/cursor.h"
#include "carver/base/mapfile.h"
#include "carver/base/outfile.h"
#include "output/db/case_db.h"
#include "output/hprof/hprof_reader.h"
#include "output/hprof/hprof_carve.h"
#include "output/hprof/hprof_mark.h"
#include "rosalloc/model/model.h"
#include "rosalloc/model/reach.h"
#include "carver/wrap/sqlitew.h"
#include "t.h"
#include "tests/fuzz/model_fixture.h"

#define HEAP MF_HEAP
#define NATIVE 0x20000000u
#define IRT 0x7f0000000000ull
#define C_COUNT MF_CLASSES
#define C_CLASS MF_CLASS
#define C_MSG MF_MSG

static struct mf fx;
static uint8_t native[0x1000], irt[0x1000];
static struct image img;

#define caddr mf_class_addr

/* The fixture's sample objects and the candidates that must fail, at 0x12c02000 on. */
static void build(void)
{
	struct err e;
	err_init(&e);
	mf_build(&fx);
	mf_w32(&fx, 0x12c02100, 0x12c01000);       /* class word names an instance */
	mf_msg(&fx, 0x12c02200, 0, 0, 1);          /* given room 16 < 24 */
	mf_w32(&fx, 0x12c02300, caddr(MF_INT_ARRAY));
	mf_w32(&fx, 0x12c02308, 0x10000000);       /* length past its room */
	mf_msg(&fx, 0x12c02400, 0x12c01008, 0, 2); /* text into the middle of A */
	mf_msg(&fx, 0x12c02500, NATIVE, 0, 3);     /* text into captured native memory */
	mf_msg(&fx, 0x12c02600, 0x30000000, 0, 4); /* text into memory not captured: not refuted */
	mf_w32(&fx, 0x12c02800, 0x12c02810);       /* free slot: a free-list link in its first word */
	mf_msg(&fx, 0x12c02900, 0x12c0fff0, 0, 5); /* free, bytes intact: residue (stale reference) */
	mf_msg(&fx, 0x12c02b00, 0x12c02700, 0, 6); /* dead, naming a slot a GC freed: kept */
	mf_msg(&fx, 0x12c02c00, 0x12c02d00, 0, 9); /* dead, naming a poisoned dead object: kept */
	for (uint32_t a = 0x12c02d00; a < 0x12c02d20; a += 4)
		mf_w32(&fx, a, 0xBADDB01Du);       /* region_space.cc kPoisonDeadObject (10-13) */

	mf_put32(irt, 0);                          /* IrtEntry {serial 0, references_[0] = the Object[]} */
	mf_put32(irt + 4, 0x12c01500);
	memset(native, 0x5a, sizeof(native));

	img_init_empty(&img, "model test");
	T_EQ_I(img_add_region_mem(&img, HEAP, fx.heap, sizeof(fx.heap), IMG_PROT_R | IMG_PROT_W, "[anon:dalvik-main space]",
				  &e), 0);
	T_EQ_I(img_add_region_mem(&img, NATIVE, native, sizeof(native), IMG_PROT_R, "[anon:libc_malloc]", &e), 0);
	T_EQ_I(img_add_region_mem(&img, IRT, irt, sizeof(irt), IMG_PROT_R, "[anon:dalvik-indirect ref table]", &e), 0);
	mf_runtime(&fx, &img);
}

static int feed(struct model *m, uint64_t addr, uint64_t room, enum walk_alloc alloc, uint32_t clobbered)
{
	struct walk_candidate c = { .addr = addr, .room = room, .alloc = alloc, .place = WALK_ROSALLOC_SLOT,
				    .space = &m->rt->spaces.v[0], .where = addr & ~0xfffull, .clobbered = clobbered,
				    .live_bit = -1, .on_alloc_stack = -1 };
	struct err e;
	err_init(&e);
	return model_add(m, &c, &e);
}

static const struct model_obj *obj(const struct model *m, uint32_t addr)
{
	size_t i = model_find(m, addr);
	return i == MODEL_NONE ? NULL : &m->objs[i];
}

static void test_checks(struct model *m, struct anomaly_sink *sink)
{
	T_SECTION("candidate checks");
	for (int i = 0; i < C_COUNT; i++)
		T_EQ_I(feed(m, caddr(i), 0x100, WALK_ALLOCATED, 0), 0);
	static const uint32_t good[] = { 0x12c01000, 0x12c01100, 0x12c01200, 0x12c01300, 0x12c01400, 0x12c01500,
					 0x12c01600, 0x12c02600 };
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		T_EQ_I(feed(m, good[i], 0x100, i == 0 ? WALK_ALLOCATED : WALK_ALLOC_UNKNOWN, 0), 0);
	T_EQ_I(feed(m, 0x12c02000, 0x100, WALK_ALLOCATED, 0), 0);   /* null class word */
	T_EQ_I(feed(m, 0x12c02100, 0x100, WALK_ALLOCATED, 0), 0);
	T_EQ_I(feed(m, 0x12c02200, 16, WALK_ALLOCATED, 0), 0);
	T_EQ_I(feed(m, 0x12c02300, 64, WALK_ALLOCATED, 0), 0);
	T_EQ_I(feed(m, 0x12c02400, 0x100, WALK_ALLOCATED, 0), 0);
	T_EQ_I(feed(m, 0x12c02500, 0x100, WALK_ALLOCATED, 0), 0);
	T_EQ_I(feed(m, 0x12c02700, 32, WALK_FREE, 0), 0);           /* zeroed free slot */
	T_EQ_I(feed(m, 0x12c02800, 32, WALK_FREE, 8), 0);           /* class word holds the link */
	T_EQ_I(feed(m, 0x12c02900, 32, WALK_FREE, 0), 0);           /* residue */
	T_EQ_I(feed(m, 0x12c02a04, 32, WALK_ALLOCATED, 0), 0);      /* misaligned */
	T_EQ_I(feed(m, 0x12c02b00, 32, WALK_ALLOCATED, 0), 0);
	T_EQ_I(feed(m, 0x12c02c00, 32, WALK_ALLOCATED, 0), 0);
	T_EQ_I(feed(m, 0x12c01000, 0x100, WALK_ALLOCATED, 0), 0);   /* a second candidate for A */
	struct err e;
	err_init(&e);
	T_EQ_I(model_finish(m, &e), 0);

	T_EQ_U(m->candidates, C_COUNT + 8 + 13);
	T_EQ_U(m->count, C_COUNT + 8 + 3);
	T_EQ_U(m->empty, 2);
	T_EQ_U(sink->per_code[ANOM_OBJ_CLASS], 2);
	T_EQ_U(sink->per_code[ANOM_OBJ_SIZE], 1);
	T_EQ_U(sink->per_code[ANOM_OBJ_LENGTH], 1);
	T_EQ_U(sink->per_code[ANOM_OBJ_REFERENCE], 2);
	T_EQ_U(sink->per_code[ANOM_CANDIDATE], 2);
	T_EQ_U(m->rejected, 8);
	for (size_t i = 1; i < m->count; i++)
		T_CHECK(m->objs[i - 1].addr < m->objs[i].addr, "objects sorted by address at %zu", i);

	const struct model_obj *a = obj(m, 0x12c01000), *s = obj(m, 0x12c01100), *r = obj(m, 0x12c02900);
	const struct model_obj *k = obj(m, caddr(C_MSG)), *arr = obj(m, 0x12c01600), *u = obj(m, 0x12c02600);
	T_CHECK(a && s && r && k && arr && u, "objects present");
	if (!a || !s || !r || !k || !arr || !u)
		return;
	T_EQ_U(a->kind, MODEL_INSTANCE);
	T_EQ_U(a->size, 24);
	T_EQ_U(a->cls, C_MSG);
	T_EQ_U(a->alloc, MODEL_ALLOCATED);
	T_EQ_U(a->content, MODEL_INTACT);
	T_EQ_U(a->confidence, 100);
	T_EQ_U(s->kind, MODEL_STRING);
	T_EQ_U(s->size, 21);
	T_EQ_U(model_length(m, s), 5);
	T_CHECK(model_string_compressed(m, s), "\"hello\" is stored 8-bit");
	T_EQ_U(s->confidence, 90);                /* metadata unknown, bytes consistent */
	T_EQ_U(r->alloc, MODEL_FREE);
	T_EQ_U(r->content, MODEL_RESIDUE);
	T_EQ_U(r->confidence, 70);
	T_EQ_U(k->kind, MODEL_CLASS);
	T_EQ_U(k->size, 120);
	T_EQ_U(k->cls, C_CLASS);
	T_EQ_U(arr->kind, MODEL_PRIM_ARRAY);
	T_EQ_U(arr->size, 24);
	T_EQ_U(model_length(m, arr), 3);
	T_EQ_U(m->per_space[0].empty, 2);
	T_EQ_U(m->classes[C_MSG].objects, 6);     /* A, B, the one naming memory not captured, the residue,
						   * the ones naming a freed slot and a poisoned object */
}

static void test_reach(struct model *m, struct reach *r)
{
	struct err e;
	err_init(&e);
	T_SECTION("reachability");
	T_EQ_I(reach_run(m, r, &e), 0);
	T_CHECK(r->source[REACH_CLASSES].present, "class statics present");
	T_EQ_U(r->source[REACH_CLASSES].roots, C_COUNT);
	T_CHECK(r->source[REACH_THREADS].present, "thread objects present");
	T_EQ_U(r->source[REACH_THREADS].roots, 1);
	T_CHECK(r->source[REACH_JNI_LOCAL].present, "the JNI table is read");
	T_EQ_U(r->source[REACH_JNI_LOCAL].roots, 1);
	T_CHECK(!r->source[REACH_STACKS].present, "no stacks in this image");
	T_CHECK(!r->source[REACH_IMAGE_ROOTS].present, "no image space");
	static const uint32_t live[] = { 0x12c01000, 0x12c01100, 0x12c01400, 0x12c01500 };
	static const uint32_t dropped[] = { 0x12c01200, 0x12c01300, 0x12c01600, 0x12c02600, 0x12c02900, 0x12c02b00,
					    0x12c02c00 };
	for (size_t i = 0; i < sizeof(live) / sizeof(live[0]); i++) {
		const struct model_obj *o = obj(m, live[i]);
		T_CHECK(o && o->reach == MODEL_REACHABLE, "0x%x reachable", live[i]);
	}
	for (size_t i = 0; i < sizeof(dropped) / sizeof(dropped[0]); i++) {
		const struct model_obj *o = obj(m, dropped[i]);
		T_CHECK(o && o->reach == MODEL_UNREACHABLE, "0x%x unreachable", dropped[i]);
	}
	T_EQ_U(r->unreachable[MODEL_ALLOCATED], 6);
	T_EQ_U(r->unreachable[MODEL_FREE], 1);
}

struct scan {
	uint64_t sub[256];
	uint32_t mark_elems[HPROF_MARK_COUNT];
	bool string_bytes;          /* the byte[] of "secret" at its character address */
	char version[32];
};

/* Counts the sub-records of an HPROF and reads its mark arrays (classes named by LOAD_CLASS). */
static int scan_hprof(const char *path, struct scan *s)
{
	struct mapfile mf;
	struct hprof_reader r;
	struct hprof_record rec;
	struct err e;
	uint64_t mark_class[HPROF_MARK_COUNT] = { 0 };
	int rc;

	memset(s, 0, sizeof(*s));
	err_init(&e);
	if ((rc = mapfile_open(&mf, path, &e)) || (rc = hprof_reader_init(&r, mf.data, mf.len, path, &e)))
		return rc;
	snprintf(s->version, sizeof(s->version), "%s", r.version);
	struct named { uint64_t id; const uint8_t *p; size_t n; } names[64];
	size_t nn = 0;
	while ((rc = hprof_next(&r, &rec, &e)) == 1) {
		if (rec.tag == HPROF_STRING && nn < 64) {
			struct hprof_string hs;
			if (hprof_string_parse(&rec, 4, &hs, &e) == 0)
				names[nn++] = (struct named){ hs.id, hs.text, hs.len };
		} else if (rec.tag == HPROF_LOAD_CLASS) {
			struct hprof_load_class lc;
			if (hprof_load_class_parse(&rec, 4, &lc, &e))
				continue;
			for (size_t i = 0; i < nn; i++) {
				int k = names[i].id == lc.name_id ? hprof_mark_of_class((const char *)names[i].p, names[i].n) : -1;
				if (k >= 0)
					mark_class[k] = lc.class_id;
			}
		} else if (rec.tag == HPROF_HEAP_DUMP_SEGMENT) {
			struct cursor body = rec.body;
			struct hprof_sub sub;
			while (hprof_next_sub(&body, 4, &sub, &e) == 1) {
				s->sub[sub.tag]++;
				if (sub.tag == HPROF_OBJ_ARRAY_DUMP) {
					struct hprof_obj_array oa;
					if (hprof_obj_array_parse(&sub, 4, &oa, &e))
						continue;
					for (int k = 0; k < HPROF_MARK_COUNT; k++)
						if (mark_class[k] && oa.class_id == mark_class[k])
							s->mark_elems[k] += oa.count;
				} else if (sub.tag == HPROF_PRIM_ARRAY_DUMP) {
					struct hprof_prim_array pa;
					if (hprof_prim_array_parse(&sub, 4, &pa, &e) == 0 && pa.id == 0x12c01310 &&
					    pa.type == HPROF_T_BYTE && pa.count == 6 && !memcmp(pa.data.base, "secret", 6))
						s->string_bytes = true;
				}
			}
		}
	}
	mapfile_close(&mf);
	return rc;
}

static bool same_file(const char *a, const char *b)
{
	struct mapfile x, y;
	struct err e;
	bool same = false;
	err_init(&e);
	if (mapfile_open(&x, a, &e) == 0) {
		if (mapfile_open(&y, b, &e) == 0) {
			same = x.len == y.len && (x.len == 0 || !memcmp(x.data, y.data, x.len));
			mapfile_close(&y);
		}
		mapfile_close(&x);
	}
	return same;
}

static int write_to(const struct model *m, const struct reach *r, const struct hprof_carve_opts *o, const char *path,
		    struct hprof_carve_stats *st)
{
	struct outf out;
	struct err e;
	int rc;
	err_init(&e);
	outf_init(&out);
	if ((rc = outf_open(&out, path, &e)) == 0 && (rc = hprof_carve_write(m, r, o, &out, st, &e)) == 0)
		rc = outf_commit(&out, &e);
	outf_abort(&out);
	if (rc)
		printf("  write %s: %s\n", path, e.msg);
	return rc;
}

static void test_hprof(const struct model *m, const struct reach *r)
{
	char dir[] = "/tmp/artcarve-model.XXXXXX", p1[64], p2[64], p3[64];
	struct hprof_carve_opts o = { 0 };
	struct hprof_carve_stats st;
	struct scan s;

	T_SECTION("carved HPROF");
	if (!mkdtemp(dir)) {
		T_CHECK(0, "mkdtemp");
		return;
	}
	snprintf(p1, sizeof(p1), "%s/a.hprof", dir);
	snprintf(p2, sizeof(p2), "%s/b.hprof", dir);
	snprintf(p3, sizeof(p3), "%s/c.hprof", dir);
	T_EQ_I(write_to(m, r, &o, p1, &st), 0);
	T_EQ_U(st.classes, C_COUNT);
	T_EQ_U(st.instances, 8);                  /* A, B, three other Msgs, the thread, two strings */
	T_EQ_U(st.strings, 2);
	T_EQ_U(st.string_arrays, 2);
	T_EQ_U(st.obj_arrays, 1);
	T_EQ_U(st.prim_arrays, 1);
	T_EQ_U(st.free_objects, 0);
	T_EQ_I(scan_hprof(p1, &s), 0);
	T_EQ_S(s.version, "JAVA PROFILE 1.0.2");
	T_EQ_U(s.sub[HPROF_CLASS_DUMP], C_COUNT + HPROF_MARK_COUNT);
	T_EQ_U(s.sub[HPROF_INSTANCE_DUMP], 8);
	T_EQ_U(s.sub[HPROF_PRIM_ARRAY_DUMP], 3);
	T_EQ_U(s.sub[HPROF_OBJ_ARRAY_DUMP], 1 + st.mark_arrays);
	T_EQ_U(s.sub[HPROF_ROOT_THREAD_OBJECT], 1);
	T_EQ_U(s.sub[HPROF_ROOT_JNI_LOCAL], 1);
	T_EQ_U(s.sub[HPROF_ROOT_STICKY_CLASS], C_COUNT);
	T_EQ_U(s.sub[HPROF_ROOT_UNKNOWN], st.mark_arrays);
	T_EQ_U(s.mark_elems[HPROF_MARK_UNREACHABLE], 6);   /* B, "secret", int[3], the three other Msgs */
	T_EQ_U(s.mark_elems[HPROF_MARK_FREE], 0);
	T_CHECK(s.string_bytes, "\"secret\" written as byte[] at its character address");

	T_EQ_I(write_to(m, r, &o, p2, &st), 0);
	T_CHECK(same_file(p1, p2), "the same model gives the same bytes");

	o.include_residue = true;
	o.android = true;
	T_EQ_I(write_to(m, r, &o, p3, &st), 0);
	T_EQ_U(st.free_objects, 1);
	T_EQ_U(st.instances, 9);
	T_EQ_I(scan_hprof(p3, &s), 0);
	T_EQ_S(s.version, "JAVA PROFILE 1.0.3");
	T_CHECK(s.sub[HPROF_HEAP_DUMP_INFO] >= 1, "HEAP_DUMP_INFO written (%llu)",
		(unsigned long long)s.sub[HPROF_HEAP_DUMP_INFO]);
	T_EQ_U(s.mark_elems[HPROF_MARK_FREE], 1);
	T_EQ_U(s.mark_elems[HPROF_MARK_RESIDUE], 1);
	T_EQ_U(s.mark_elems[HPROF_MARK_UNREACHABLE], 7);
	unlink(p1);
	unlink(p2);
	unlink(p3);
	rmdir(dir);
}

/* Runs sql through the sqlite3 shell on db; its output (rows "a|b", one a line) in out. */
static bool sql_query(const char *db, const char *sql, char *out, size_t cap)
{
	char cmd[512], res[256];
	FILE *fp;
	size_t n;

	snprintf(res, sizeof(res), "%s.out", db);
	snprintf(cmd, sizeof(cmd), "sqlite3 -batch '%s' >'%s' 2>&1", db, res);
	if (!(fp = popen(cmd, "w")))
		return false;
	fputs(sql, fp);
	if (pclose(fp) != 0 || !(fp = fopen(res, "r")))
		return false;
	n = fread(out, 1, cap - 1, fp);
	out[n] = '\0';
	fclose(fp);
	unlink(res);
	return true;
}

static void expect_rows(const char *db, const char *sql, const char *want)
{
	char got[1024] = "";
	T_CHECK(sql_query(db, sql, got, sizeof(got)) && !strcmp(got, want), "%s\n  gave: %s  want: %s", sql, got, want);
}

/* The case database of the fixture's model: rows, views and bytes against what the fixture
 * put in the heap (mf_build and test_checks above), and a path that cannot be written. */
static void test_case_db(const struct model *m, const struct reach *r)
{
	char dir[] = "/tmp/artcarve-casedb.XXXXXX", db[64], want[256], bad[96];
	struct case_db_run run = { "test", 0, NULL, 0, 0 };
	struct case_db_stats st;
	struct referrers refs;
	struct err e;

	T_SECTION("case database");
	err_init(&e);
	if (referrers_build(&refs, m, &e)) {
		T_CHECK(0, "referrers_build: %s", e.msg);
		return;
	}
	if (!mkdtemp(dir)) {
		T_CHECK(0, "mkdtemp");
		return;
	}
	snprintf(db, sizeof(db), "%s/case.db", dir);
	T_EQ_I(case_db_write(db, m, r, &refs, &run, &st, &e), 0);
	T_EQ_U(st.objects, m->count);
	T_EQ_U(st.classes, C_COUNT);
	T_EQ_U(st.strings, 2);                    /* "hello", "secret" */
	T_EQ_U(st.prim_arrays, 1);
	expect_rows(db, "PRAGMA integrity_check;", "ok\n");
	expect_rows(db, "PRAGMA application_id; PRAGMA user_version;", "1634890851\n5\n");
	snprintf(want, sizeof(want), "%zu\n", m->count);
	expect_rows(db, "SELECT count(*) FROM objects;", want);
	expect_rows(db, "SELECT hex, value, length, compressed FROM dropped_strings;", "0x12c01300|secret|6|1\n");
	expect_rows(db, "SELECT holder, holder_kind, holder_hex FROM dropped_strings;",
		    "held by Msg.text@0x12c01200|object|0x12c01200\n");
	expect_rows(db, "SELECT count(*) FROM dropped_objects;", "6\n");
	expect_rows(db, "SELECT hex, class_name, content, confidence FROM free_objects;", "0x12c02900|Msg|residue|70\n");
	snprintf(want, sizeof(want), "text|0x12c01300\nnext|0x12c01000\nshadow$_klass_|0x%x\n", caddr(C_MSG));
	expect_rows(db, "SELECT field, printf('0x%x', to_address) FROM refs WHERE from_address = 0x12c01200 ORDER BY seq;",
		    want);
	expect_rows(db, "SELECT from_hex, from_class, coalesce(field, '[' || array_index || ']') FROM referrers"
			" WHERE to_address = 0x12c01000 ORDER BY from_address;",
		    "0x12c01200|Msg|next\n0x12c01500|java.lang.Object[]|[0]\n");
	expect_rows(db, "SELECT element_type, length, hex(bytes) FROM primitive_arrays;", "int|3|0A0000000000000000000000\n");
	expect_rows(db, "SELECT source, count(*) FROM roots GROUP BY source ORDER BY source;",
		    "class statics|8\njni locals|1\nthread objects|1\n");
	expect_rows(db, "SELECT name, offset FROM fields WHERE class_id = 6 AND is_static = 0 ORDER BY idx;",
		    "text|8\nnext|12\nid|16\nseen|20\n");
	expect_rows(db, "SELECT idx, field, type, kind, coalesce(int_value, real_value, text_value), printf('0x%x', ref_address)"
			" FROM field_values WHERE object = 0x12c01200 ORDER BY idx;",
		    "0|text|java.lang.String|string|secret|0x12c01300\n1|next|Msg|ref||0x12c01000\n2|id|int|int|8|0x0\n"
		    "3|seen|boolean|boolean|1|0x0\n4|shadow$_monitor_|int|int|0|0x0\n");

	/* text from the image is bound, never SQL: "hello" made into quotes and a comment */
	memcpy(fx.heap + (0x12c01100 - HEAP) + 16, "');--", 5);
	snprintf(bad, sizeof(bad), "%s/hostile.db", dir);
	T_EQ_I(case_db_write(bad, m, r, &refs, &run, &st, &e), 0);
	expect_rows(bad, "SELECT value, length FROM strings WHERE address = 0x12c01100;", "');--|5\n");
	expect_rows(bad, "SELECT printf('0x%x', object), field, hex(text_value) FROM field_values WHERE ref_address = 0x12c01100;",
		    "0x12c01000|text|27293B2D2D\n");
	/* and JSON's own specials (a quote, a backslash, control characters) in object_fields */
	memcpy(fx.heap + (0x12c01100 - HEAP) + 16, "\"\\\x01\n]", 5);
	unlink(bad);
	T_EQ_I(case_db_write(bad, m, r, &refs, &run, &st, &e), 0);
	expect_rows(bad, "SELECT hex(text_value) FROM field_values WHERE ref_address = 0x12c01100;", "225C010A5D\n");
	snprintf(want, sizeof(want), "%zu\n", m->count);
	expect_rows(bad, "SELECT count(*) FROM objects;", want);
	/* NULs in a String's text (SQLite 3.40's json_extract ends a JSON string at \u0000): the
	 * field's text_value is the whole text, as the strings table's value */
	memcpy(fx.heap + (0x12c01100 - HEAP) + 16, "\0a\0\0b", 5);
	unlink(bad);
	T_EQ_I(case_db_write(bad, m, r, &refs, &run, &st, &e), 0);
	expect_rows(bad, "SELECT hex(value), length FROM strings WHERE address = 0x12c01100;", "0061000062|5\n");
	expect_rows(bad, "SELECT hex(text_value), hex(value) FROM fields_named WHERE ref_address = 0x12c01100;",
		    "0061000062|0061000062\n");
	memcpy(fx.heap + (0x12c01100 - HEAP) + 16, "hello", 5);
	unlink(bad);

	/* a path in a directory that does not exist: an error naming it, no file */
	snprintf(bad, sizeof(bad), "%s/missing/case.db", dir);
	T_EQ_I(case_db_write(bad, m, r, &refs, &run, &st, &e), -ERR_DB);
	printf("  unwritable path: %s\n", e.msg);
	T_CHECK(strstr(e.msg, bad) != NULL, "the error names the path: %s", e.msg);
	T_CHECK(access(bad, F_OK) != 0, "no file at %s", bad);
	unlink(db);
	rmdir(dir);
	referrers_release(&refs);
}

/* Multi-row inserts (sqlitew.h): 10 rows in batches of 4 (two full, a tail of 2), copied text
 * that outgrows the batch's buffer, const text, empty and copied blobs, NULLs; then a
 * column out of range fails at the row's end. */
static void test_sqlw_rows(void)
{
	char dir[] = "/tmp/artcarve-rows.XXXXXX", db[64], want[512] = "";
	struct sqlw *h = NULL;
	struct sqlw_rows *r = NULL;
	struct err e;
	char text[300];

	T_SECTION("multi-row inserts");
	err_init(&e);
	if (!mkdtemp(dir)) {
		T_CHECK(0, "mkdtemp");
		return;
	}
	snprintf(db, sizeof(db), "%s/rows.db", dir);
	T_EQ_I(sqlw_open(&h, db, &e), 0);
	T_EQ_I(sqlw_exec(h, "CREATE TABLE t(i INTEGER, s TEXT, c TEXT, b BLOB);", &e), 0);
	T_EQ_I(sqlw_rows_open(h, "t", 4, 4, &r, &e), 0);
	for (int i = 0; r && i < 10; i++) {
		size_t n = (size_t)i * 30;
		memset(text, 'a' + i, n);
		sqlw_rows_int(r, 1, i);
		sqlw_rows_text_copy(r, 2, text, n);
		sqlw_rows_const(r, 3, i % 3 ? "const" : NULL);
		if (i % 2)
			sqlw_rows_blob_copy(r, 4, text, n < 3 ? n : 3);
		else
			sqlw_rows_blob_const(r, 4, "", 0);
		memset(text, 'z', sizeof(text));   /* the copies are the row's, not the buffer's */
		T_EQ_I(sqlw_rows_end(r, &e), 0);
		snprintf(want + strlen(want), sizeof(want) - strlen(want), "%d|%zu|%c|%s|%s\n", i, n, n ? 'a' + i : '-',
			 i % 3 ? "const" : "", i % 2 ? (i == 1 ? "626262" : i == 3 ? "646464" : i == 5 ? "666666" :
						      i == 7 ? "686868" : "6A6A6A") : "");
	}
	T_EQ_I(sqlw_rows_flush(r, &e), 0);
	sqlw_rows_int(r, 5, 1);
	T_CHECK(sqlw_rows_end(r, &e) == -ERR_DB && strstr(e.msg, "parameter"), "column 5 of 4: %s", e.msg);
	printf("  column out of range: %s\n", e.msg);
	sqlw_rows_close(r);
	T_EQ_I(sqlw_close(h, &e), 0);
	/* each text one letter repeated: the row's own copy */
	expect_rows(db, "SELECT i, length(s), iif(s = '', '-', substr(s, 1, 1)), coalesce(c, ''), hex(b) FROM t"
			" WHERE replace(s, substr(s, 1, 1), '') = '' ORDER BY rowid;",
		    want);
	unlink(db);
	rmdir(dir);
}

/* A stack mapping holding B's address makes B and its String reachable. */
static void test_stack(void)
{
	static uint8_t stack[0x1000];
	struct image simg;
	struct anomaly_sink sink;
	struct model m;
	struct reach r;
	struct err e;

	T_SECTION("conservative stack scan");
	err_init(&e);
	mf_put32(stack + 0x84, 0x12c01200);
	mf_put32(stack + 0x88, 0x12c01204);      /* inside an object: no root */
	img_init_empty(&simg, "stack test");
	T_EQ_I(img_add_region_mem(&simg, HEAP, fx.heap, sizeof(fx.heap), IMG_PROT_R, "[anon:dalvik-main space]", &e), 0);
	T_EQ_I(img_add_region_mem(&simg, 0x7ffff000ull, stack, sizeof(stack), IMG_PROT_R, "[stack]", &e), 0);
	mf_runtime(&fx, &simg);
	anomaly_init(&sink, 0);
	T_EQ_I(model_init(&m, &fx.rt, &sink, &e), 0);
	for (int i = 0; i < C_COUNT; i++)
		T_EQ_I(feed(&m, caddr(i), 0x100, WALK_ALLOCATED, 0), 0);
	T_EQ_I(feed(&m, 0x12c01000, 0x100, WALK_ALLOCATED, 0), 0);
	T_EQ_I(feed(&m, 0x12c01100, 0x100, WALK_ALLOCATED, 0), 0);
	T_EQ_I(feed(&m, 0x12c01200, 0x100, WALK_ALLOCATED, 0), 0);
	T_EQ_I(feed(&m, 0x12c01300, 0x100, WALK_ALLOCATED, 0), 0);
	T_EQ_I(model_finish(&m, &e), 0);
	T_EQ_I(reach_run(&m, &r, &e), 0);
	T_CHECK(r.source[REACH_STACKS].present, "the [stack] mapping is scanned");
	T_EQ_U(r.source[REACH_STACKS].roots, 1);
	T_EQ_U(r.source[REACH_STACKS].words, sizeof(stack) / 4);
	T_CHECK(obj(&m, 0x12c01200) && obj(&m, 0x12c01200)->reach == MODEL_REACHABLE, "B reachable from the stack");
	T_CHECK(obj(&m, 0x12c01300) && obj(&m, 0x12c01300)->reach == MODEL_REACHABLE, "B's String too");
	reach_release(&r);
	model_release(&m);
	anomaly_release(&sink);
	img_close(&simg);
}

/* A space above 4 GiB (the mark-compact from-space of a 64-bit process): its candidates get
 * model addresses in an alias window below 4 GiB (model.h), readers reach their bytes at the
 * real address, a reference into the window names nothing, and the HPROF holds the window. */
static void test_alias(void)
{
	static uint8_t high[0x2000];
	const uint64_t real = 0x7f44000000ull;
	struct art_space spaces[2];
	struct image aimg;
	struct anomaly_sink sink;
	struct model m;
	struct reach r;
	struct err e;

	T_SECTION("a space above 4 GiB: an alias window");
	err_init(&e);
	memset(high, 0, sizeof(high));
	mf_put32(high + 0x100, caddr(MF_STRING));          /* a dead String "dead!" */
	mf_put32(high + 0x108, 5u << 1);
	memcpy(high + 0x110, "dead!", 5);
	mf_put32(high + 0x200, caddr(MF_MSG));             /* a dead Msg naming the moving space */
	mf_put32(high + 0x208, 0x12c01100);
	img_init_empty(&aimg, "alias test");
	T_EQ_I(img_add_region_mem(&aimg, HEAP, fx.heap, sizeof(fx.heap), IMG_PROT_R, "[anon:dalvik-main space]", &e), 0);
	T_EQ_I(img_add_region_mem(&aimg, real, high, sizeof(high), IMG_PROT_R,
				  "[anon:dalvik-Concurrent mark-compact from-space]", &e), 0);
	mf_runtime(&fx, &aimg);
	spaces[0] = fx.space;
	spaces[1] = (struct art_space){ .kind = SPACE_CMC_MAP, .begin = real, .end = real + sizeof(high),
					.limit = real + sizeof(high), .name = "Concurrent mark-compact from-space",
					.how = "name", .detail = "" };
	fx.rt.spaces.v = spaces;
	fx.rt.spaces.count = 2;
	anomaly_init(&sink, 0);
	T_EQ_I(model_init(&m, &fx.rt, &sink, &e), 0);
	for (int i = 0; i < C_COUNT; i++)
		T_EQ_I(feed(&m, caddr(i), 0x100, WALK_ALLOCATED, 0), 0);
	T_EQ_I(feed(&m, 0x12c01500, 0x100, WALK_ALLOCATED, 0), 0);   /* Object[] {0, ...} */
	T_EQ_I(feed(&m, 0x12c01100, 0x100, WALK_ALLOCATED, 0), 0);
	for (uint64_t off = 0x100; off <= 0x200; off += 0x100) {
		struct walk_candidate c = { .addr = real + off, .room = 0x100, .alloc = WALK_FREE,
					    .place = WALK_CMC_FROM_SPACE, .space = &spaces[1], .where = real,
					    .live_bit = -1, .on_alloc_stack = -1 };
		T_EQ_I(model_add(&m, &c, &e), 0);
	}
	T_EQ_I(model_finish(&m, &e), 0);
	T_EQ_U(m.alias_count, 1);
	const struct model_alias *a = m.alias_count ? &m.alias[0] : NULL;
	T_CHECK(a && !a->failed && a->real == real && a->len == sizeof(high) && a->alias + a->len <= 0xff000000ull &&
			!(a->alias & 0xfffff) && !img_overlaps(&aimg, a->alias - 0x100000, a->alias + a->len + 0x100000),
		"window 0x%llx: below 4 GiB, 1 MiB aligned, away from every mapping", a ? (unsigned long long)a->alias : 0ull);
	if (!a || a->failed) {
		model_release(&m);
		anomaly_release(&sink);
		img_close(&aimg);
		return;
	}
	size_t n = 0;
	for (size_t i = 0; i < m.count; i++) {
		const struct model_obj *o = &m.objs[i];
		if (model_va(&m, o) == o->addr)
			continue;
		n++;
		T_CHECK(o->addr >= a->alias && o->addr < a->alias + a->len && model_va(&m, o) == o->addr - a->alias + real,
			"object 0x%x stands for 0x%llx", o->addr, (unsigned long long)model_va(&m, o));
		T_EQ_U(model_addr_va(&m, o->where), real);
		T_CHECK(model_find(&m, o->addr) == MODEL_NONE, "a reference to 0x%x (in the window) names no object", o->addr);
		if (o->kind == MODEL_STRING)
			T_EQ_U(model_data_addr(&m, o), real + 0x110);
	}
	T_EQ_U(n, 2);
	T_EQ_U(m.rejected, 0);
	T_EQ_I(reach_run(&m, &r, &e), 0);
	for (size_t i = 0; i < m.count; i++)
		if (model_va(&m, &m.objs[i]) != m.objs[i].addr)
			T_CHECK(m.objs[i].reach == MODEL_UNREACHABLE, "residue 0x%x unreachable", m.objs[i].addr);
	char dir[] = "/tmp/artcarve-alias.XXXXXX", path[64];
	struct hprof_carve_opts o = { .include_residue = true };
	struct hprof_carve_stats st;
	T_CHECK(mkdtemp(dir) != NULL, "temporary directory");
	snprintf(path, sizeof(path), "%s/a.hprof", dir);
	T_EQ_I(write_to(&m, &r, &o, path, &st), 0);
	T_EQ_U(st.alias_windows, 1);
	T_EQ_U(st.free_objects, 2);
	o.include_residue = false;
	T_EQ_I(write_to(&m, &r, &o, path, &st), 0);
	T_EQ_U(st.alias_windows, 0);                        /* no object of the window in the file */
	unlink(path);
	rmdir(dir);
	reach_release(&r);
	model_release(&m);
	anomaly_release(&sink);
	img_close(&aimg);
}

int main(void)
{
	struct anomaly_sink sink;
	struct model m;
	struct reach r;
	struct err e;

	build();
	err_init(&e);
	anomaly_init(&sink, 0);
	T_EQ_I(model_init(&m, &fx.rt, &sink, &e), 0);
	T_EQ_U(sink.total, 0);                    /* no class lacks its layouts */
	test_checks(&m, &sink);
	test_reach(&m, &r);
	test_hprof(&m, &r);
	test_case_db(&m, &r);
	test_sqlw_rows();
	reach_release(&r);
	model_release(&m);
	anomaly_release(&sink);
	test_stack();
	test_alias();
	img_close(&img);
	T_DONE();
}
