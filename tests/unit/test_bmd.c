/* test_bmd.c - BMD encodings, the reader, Java string rules and HashMap order.
 * Expected values come from Badoo's DataWriter semantics (badoo/hprof-tools @ 5e5408e) and from running
 * JDK 17 (new String(bytes, UTF-8).getBytes(), String.hashCode(), HashMap<Integer> keySet()
 * iteration) on the same inputs. */
#include <stdlib.h>
#include <unistd.h>

#include "carver/base/outfile.h"
#include "output/bmd/bmd.h"
#include "output/bmd/bmd_codec.h"
#include "output/bmd/bmd_dict.h"
#include "output/hprof/hprof_writer.h"
#include "t.h"
#include "tests/tools/zipgen.h"

static int hex_eq(const struct wbuf *b, const char *hex)
{
	char tmp[512];
	size_t n = 0;

	for (size_t i = 0; i < b->len && n + 3 < sizeof(tmp); i++)
		n += (size_t)snprintf(tmp + n, sizeof(tmp) - n, "%02x", b->data[i]);
	tmp[n] = 0;
	if (strcmp(tmp, hex))
		printf("  got %s, want %s\n", tmp, hex);
	return !strcmp(tmp, hex);
}

static void test_varints(void)
{
	struct wbuf b;
	struct cursor c;
	uint32_t v;
	uint64_t v64;

	T_SECTION("varints");
	wbuf_init(&b);
	bmd_put_int32(&b, 0);
	bmd_put_int32(&b, 127);
	bmd_put_int32(&b, 128);
	bmd_put_int32(&b, 300);
	T_CHECK(hex_eq(&b, "007f8001ac02"), "small ints");
	wbuf_reset(&b);
	bmd_put_int32(&b, -1);
	T_CHECK(hex_eq(&b, "ffffffffffffffffff01"), "-1 is 10 bytes");
	wbuf_reset(&b);
	bmd_put_int32(&b, 324731034);
	T_CHECK(hex_eq(&b, "9a81ec9a01"), "spec example hash");
	wbuf_reset(&b);
	bmd_put_int32(&b, -1183708150);
	T_CHECK(hex_eq(&b, "8a98c8cbfbffffffff01"), "negative hash from jdk17-jvm-id4.bmd");
	wbuf_reset(&b);
	bmd_put_uint32(&b, 0xffffffffu);
	T_CHECK(hex_eq(&b, "ffffffff0f"), "raw varint32 of -1 is 5 bytes");
	wbuf_reset(&b);
	bmd_put_int64(&b, -2);
	T_CHECK(hex_eq(&b, "feffffffffffffffff01"), "long -2");

	/* readers keep the low 32 bits of a 10-byte varint */
	wbuf_reset(&b);
	bmd_put_int32(&b, INT32_MIN);
	cur_init(&c, b.data, b.len, 0);
	T_EQ_I(bmd_get_u32(&c, &v, NULL), 0);
	T_EQ_U(v, 0x80000000u);
	T_EQ_U(c.pos, 10);
	/* 11 continuation bytes: rejected, position unchanged */
	{
		static const uint8_t eleven[11] = { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01 };
		struct err e;
		cur_init(&c, eleven, sizeof(eleven), 0x100);
		T_EQ_I(bmd_get_u64(&c, &v64, &e), -ERR_CORRUPT);
		T_EQ_U(e.va, 0x100);
		T_EQ_U(c.pos, 0);
		cur_init(&c, eleven, 3, 0);
		T_EQ_I(bmd_get_u32(&c, &v, &e), -ERR_TRUNC);
	}
	wbuf_release(&b);
}

static void test_values(void)
{
	struct wbuf b;
	struct cursor c;
	uint64_t bits;

	T_SECTION("values");
	wbuf_init(&b);
	T_CHECK(bmd_put_value(&b, BMD_T_FLOAT, 0x3f800000), "float");
	T_CHECK(bmd_put_value(&b, BMD_T_CHAR, 0x0041), "char");
	T_CHECK(bmd_put_value(&b, BMD_T_BOOLEAN, 2), "boolean raw");
	T_CHECK(hex_eq(&b, "0000803f004102"), "float LE, char BE, boolean raw");
	wbuf_reset(&b);
	T_CHECK(bmd_put_value(&b, BMD_T_SHORT, 0xffff), "short -1");
	T_CHECK(hex_eq(&b, "ffffffffffffffffff01"), "negative short is 10 bytes");
	cur_init(&c, b.data, b.len, 0);
	T_EQ_I(bmd_get_value(&c, BMD_T_SHORT, &bits, NULL), 0);
	T_EQ_U(bits, 0xffff);
	wbuf_reset(&b);
	T_CHECK(bmd_put_value(&b, BMD_T_DOUBLE, 0x4000000000000000ULL), "double");
	T_CHECK(hex_eq(&b, "0000000000000040"), "double LE");
	T_CHECK(!bmd_put_value(&b, 9, 0), "type 9 is invalid");
	T_EQ_I(bmd_type_from_hprof(2), BMD_T_OBJECT);
	T_EQ_I(bmd_type_from_hprof(9), BMD_T_SHORT);
	T_EQ_I(bmd_type_from_hprof(3), -1);
	T_EQ_U(bmd_type_to_hprof(BMD_T_LONG), 11);
	wbuf_release(&b);
}

struct utf8_case { const char *in, *out; int32_t hash; };

static void test_java_strings(void)
{
	/* JDK 17: new String(bytes) (UTF-8) then getBytes() and hashCode() */
	static const struct utf8_case cases[] = {
		{ "c080", "efbfbdefbfbd", 2097056 },             /* modified-UTF-8 NUL: two U+FFFD */
		{ "eda080edb080", "efbfbdefbfbd", 2097056 },     /* CESU-8 surrogates: one each */
		{ "e4b8", "efbfbd", 65533 },                     /* truncated sequence: one */
		{ "f09f9880", "f09f9880", 1772899 },             /* supplementary: two UTF-16 units */
		{ "f09f41", "efbfbd41", 2031588 },
		{ "e08080", "efbfbdefbfbdefbfbd", 65074269 },    /* overlong */
		{ "61e4b8ad62", "61e4b8ad62", 713718 },
		{ "f4908080", "efbfbdefbfbdefbfbdefbfbd", 2017367872 },
		{ "e441", "efbfbd41", 2031588 },
		{ "f880", "efbfbdefbfbd", 2097056 },
		{ "68656c6c6f", "68656c6c6f", 99162322 },        /* "hello" */
		{ "", "", 0 },
		{ "6a6176612e6c616e672e537472696e67", "6a6176612e6c616e672e537472696e67", 1195259493 },
	};
	struct wbuf b;

	T_SECTION("java strings");
	wbuf_init(&b);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint8_t in[64];
		size_t n = strlen(cases[i].in) / 2;
		int32_t h;
		for (size_t k = 0; k < n; k++) {
			unsigned x;
			sscanf(cases[i].in + 2 * k, "%2x", &x);
			in[k] = (uint8_t)x;
		}
		wbuf_reset(&b);
		bmd_java_utf8(in, n, &b, &h);
		T_CHECK(hex_eq(&b, cases[i].out), "decode %s", cases[i].in);
		T_EQ_I(h, cases[i].hash);
	}
	/* modified UTF-8: C0 80 is U+0000, a surrogate pair becomes one 4-byte sequence */
	{
		static const uint8_t m[] = { 0xc0, 0x80, 0xed, 0xa0, 0xbd, 0xed, 0xb8, 0x80, 0xed, 0xa0, 0x80 };
		int32_t h;
		wbuf_reset(&b);
		bmd_java_mutf8(m, sizeof(m), &b, &h);
		T_CHECK(hex_eq(&b, "00f09f98803f"), "mutf8: NUL, U+1F600, lone surrogate as '?'");
		T_EQ_I(h, (int32_t)((((0u * 31 + 0xd83d) * 31 + 0xde00) * 31 + 0xd800)));
	}
	{
		static const uint16_t u[] = { 'h', 'e', 'l', 'l', 'o' };
		T_EQ_I(bmd_java_hash_utf16(u, 5), 99162322);
	}
	T_CHECK(bmd_keep_string((const uint8_t *)"java.lang.String", 16, NULL), "java.lang prefix kept");
	T_CHECK(bmd_keep_string((const uint8_t *)"java.langX", 10, NULL), "prefix, not package");
	T_CHECK(!bmd_keep_string((const uint8_t *)"java/lang/String", 16, NULL), "HotSpot names hashed");
	T_CHECK(bmd_keep_string((const uint8_t *)"int", 3, NULL), "primitive names kept");
	T_CHECK(!bmd_keep_string((const uint8_t *)"int[]", 5, NULL), "array names hashed");
	T_CHECK(bmd_keep_string((const uint8_t *)"V", 1, NULL), "V kept");
	{
		const char *keep[] = { "com.x.Y" };
		struct bmd_crunch_opts o = { .keep_classes = keep, .keep_count = 1 };
		T_CHECK(bmd_keep_string((const uint8_t *)"com.x.Y", 7, &o), "configured class kept");
	}
	wbuf_release(&b);
}

static void check_order(const uint32_t *keys, size_t n, const char *want)
{
	size_t order[128];
	char got[1024];
	size_t len = 0;

	T_EQ_I(bmd_java_hashmap_order(keys, n, order, NULL), 0);
	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(got + len, sizeof(got) - len, "%zu,", order[i]);
	got[len] = 0;
	T_CHECK(!strcmp(got, want), "order %s, want %s", got, want);
}

static void test_hashmap_order(void)
{
	uint32_t k[128];

	T_SECTION("HashMap<Integer> iteration order (JDK 17 keySet())");
	for (int i = 0; i < 40; i++)
		k[i] = (uint32_t)(i * 37 + 5);
	check_order(k, 40, "31,12,38,19,0,26,7,33,14,21,2,28,9,35,16,23,4,30,11,37,18,25,6,32,13,39,20,1,27,8,34,"
			   "15,22,3,29,10,36,17,24,5,");
	for (int i = 0; i < 100; i++)
		k[i] = (uint32_t)(i * 64 + i % 3);
	check_order(k, 100, "36,0,12,24,48,60,72,84,96,40,4,16,28,52,64,76,88,44,20,8,32,56,68,80,92,45,21,9,33,57,"
			    "69,81,93,37,1,13,25,49,61,73,85,97,41,5,17,29,53,65,77,89,42,18,6,30,54,66,78,90,46,22,"
			    "10,34,58,70,82,94,38,2,14,26,50,62,74,86,98,39,3,15,27,51,63,75,87,99,43,19,7,31,55,67,"
			    "79,91,47,23,11,35,59,71,83,95,");
	/* 13 keys in one bin of a 16-bin table: treeifyBin resizes instead */
	for (int i = 0; i < 13; i++)
		k[i] = (uint32_t)(i * 16);
	check_order(k, 13, "0,2,4,6,8,10,12,1,3,5,7,9,11,");
	{
		const uint32_t hi[] = { 100000, 3, 65536, 7, 1u << 20, 2 };   /* h ^ (h >>> 16) spreading */
		check_order(hi, 6, "4,0,2,5,1,3,");
	}
}

static int mem_write(void *ctx, const void *p, size_t n, struct err *e)
{
	(void)e;
	wbuf_put(ctx, p, n);
	return 0;
}

/* A small BMD with every record kind. */
static void build_bmd(struct wbuf *b)
{
	struct bmd_const k = { 3, BMD_T_INT, (uint32_t)-5 };
	struct bmd_static s[2] = { { 2, BMD_T_OBJECT, 7 }, { 1, BMD_T_DOUBLE, 0x3ff0000000000000ULL } };
	struct bmd_field f[3] = { { 1, BMD_T_OBJECT }, { 2, BMD_T_SHORT }, { 1, BMD_T_CHAR } };
	struct bmd_class_def obj = { .id = 1, .name_id = 1 };
	struct bmd_class_def sub = { .id = 2, .super_id = 1, .name_id = 2, .const_count = 1, .consts = &k,
				     .static_count = 2, .statics = s, .field_count = 3, .fields = f, .discarded = 6 };
	const uint8_t legacy[] = { 1, 2, 3 };

	bmd_put_header(b, 1, "JAVA PROFILE 1.0.3", 18);
	bmd_put_string(b, 1, "java.lang.Object", 16);
	bmd_put_hashed_string(b, 2, 9, -12345);
	bmd_put_class_def(b, &obj);
	bmd_put_class_def(b, &sub);
	bmd_put_int32(b, BMD_INSTANCE_DUMP);    /* id 9 of class 2: obj 3, short -2, char 'x' */
	bmd_put_int32(b, 9);
	bmd_put_int32(b, 2);
	bmd_put_value(b, BMD_T_OBJECT, 3);
	bmd_put_value(b, BMD_T_SHORT, 0xfffe);
	bmd_put_value(b, BMD_T_CHAR, 'x');
	bmd_put_int32(b, BMD_OBJECT_ARRAY);
	bmd_put_int32(b, 10);
	bmd_put_int32(b, 2);
	bmd_put_int32(b, 2);
	bmd_put_int32(b, 9);
	bmd_put_int32(b, 0);
	bmd_put_prim_array(b, 11, BMD_T_LONG, 3);
	bmd_put_legacy(b, 5, legacy, sizeof(legacy));
	bmd_put_int32(b, BMD_ROOT_OBJECTS);
	bmd_put_int32(b, 2);
	bmd_put_int32(b, 9);
	bmd_put_int32(b, 12);
}

/* Reads the whole buffer: the record count, or -1 on error (offset in *at). */
static int read_all(const uint8_t *p, size_t n, uint64_t *at, size_t *ends, size_t max_ends)
{
	struct bmd_reader r;
	struct bmd_record rec;
	struct err e;
	int rc, count = 0;

	err_init(&e);
	rc = bmd_reader_init(&r, p, n, "t", &e);
	while (rc >= 0 && (rc = bmd_next(&r, &rec, &e)) == 1) {
		if ((size_t)count < max_ends)
			ends[count] = r.c.pos;
		count++;
	}
	*at = e.va;
	bmd_reader_release(&r);
	return rc < 0 ? -1 : count;
}

static void test_reader(void)
{
	struct wbuf b;
	struct bmd_reader r;
	struct bmd_record rec;
	size_t ends[16], header_end;
	uint64_t at;
	int count;

	T_SECTION("reader");
	wbuf_init(&b);
	build_bmd(&b);
	T_EQ_I(bmd_reader_init(&r, b.data, b.len, "t", NULL), 0);
	T_EQ_U(r.meta_len, 18);
	header_end = r.c.pos;
	T_EQ_I(bmd_next(&r, &rec, NULL), 1);
	T_EQ_U(rec.tag, BMD_STRING);
	T_EQ_U(rec.len, 16);
	T_EQ_I(bmd_next(&r, &rec, NULL), 1);
	T_EQ_I(rec.hash, -12345);
	T_EQ_U(rec.length, 9);
	T_EQ_I(bmd_next(&r, &rec, NULL), 1);
	T_EQ_I(bmd_next(&r, &rec, NULL), 1);
	T_EQ_U(rec.def->static_count, 2);
	T_EQ_U(rec.def->consts[0].bits, 0xfffffffbu);
	T_EQ_U(rec.def->discarded, 6);
	T_EQ_I(bmd_next(&r, &rec, NULL), 1);
	T_EQ_U(rec.tag, BMD_INSTANCE_DUMP);
	T_EQ_U(rec.values.len, 1 + 10 + 2);
	T_EQ_I(bmd_next(&r, &rec, NULL), 1);
	T_EQ_U(rec.count, 2);
	bmd_reader_release(&r);

	count = read_all(b.data, b.len, &at, ends, 16);
	T_EQ_I(count, 9);
	/* every truncation: an error naming an offset inside the buffer, or a clean end exactly
	 * at a record boundary (BMD has no end marker) */
	for (size_t n = 0; n < b.len; n++) {
		size_t e2[16];
		int k = read_all(b.data, n, &at, e2, 16);
		bool boundary = n == header_end;
		for (int i = 0; i < count; i++)
			boundary |= ends[i] == n;
		if (k >= 0)
			T_CHECK(boundary, "truncation at %zu read %d records without error", n, k);
		else
			T_CHECK(at <= n || at == ERR_NO_VA, "truncation at %zu: error offset %llu", n,
				(unsigned long long)at);
	}
	/* an unknown tag and an instance of an undefined class are errors naming the offset */
	{
		uint8_t bad[64];
		struct err e;
		memcpy(bad, b.data, header_end);
		bad[header_end] = 9;
		T_EQ_I(bmd_reader_init(&r, bad, header_end + 1, "t", NULL), 0);
		T_EQ_I(bmd_next(&r, &rec, &e), -ERR_CORRUPT);
		T_EQ_U(e.va, header_end);
		bmd_reader_release(&r);
		bad[header_end] = BMD_INSTANCE_DUMP;
		bad[header_end + 1] = 1;
		bad[header_end + 2] = 5;
		T_EQ_I(bmd_reader_init(&r, bad, header_end + 3, "t", NULL), 0);
		T_EQ_I(bmd_next(&r, &rec, &e), -ERR_CORRUPT);
		T_CHECK(strstr(e.msg, "class 5") != NULL, "message: %s", e.msg);
		bmd_reader_release(&r);
	}
	wbuf_release(&b);
}

static void test_decrunch_small(void)
{
	struct wbuf b, out;
	struct bmd_sink sink = { mem_write, &out };
	struct bmd_decrunch_stats st;
	struct bmd_decrunch_opts mat = { .mat = true };

	T_SECTION("decrunch of the small BMD");
	wbuf_init(&b);
	wbuf_init(&out);
	build_bmd(&b);
	T_EQ_I(bmd_decrunch(b.data, b.len, "t", NULL, &sink, &st, NULL), 0);
	T_EQ_U(st.classes, 2);
	T_EQ_U(st.instances, 1);
	T_EQ_U(st.roots, 2);
	T_EQ_U(st.bytes_out, out.len);
	T_CHECK(out.len > 31 && !memcmp(out.data, "JAVA PROFILE 1.0.3", 19), "Badoo keeps the header");
	wbuf_reset(&out);
	T_EQ_I(bmd_decrunch(b.data, b.len, "t", &mat, &sink, &st, NULL), 0);
	T_CHECK(!memcmp(out.data, "JAVA PROFILE 1.0.2", 19), "--mat writes 1.0.2");
	T_CHECK(out.len > 9 && out.data[out.len - 9] == 0x2c, "--mat ends with HEAP_DUMP_END");
	/* every truncation, Badoo and --mat: decrunches only where the reader sees a clean end (at
	 * a record boundary: BMD has no end marker), otherwise fails as truncated or corrupt with a
	 * message naming an offset inside the input (or none); never crashes (ASan build) */
	{
		unsigned decoded = 0, bad = 0;
		for (size_t n = 0; n < b.len; n++) {
			size_t ends[16];
			uint64_t at;
			bool clean = read_all(b.data, n, &at, ends, 16) >= 0;
			for (int pass = 0; pass < 2; pass++) {
				struct err e;
				int rc;
				err_init(&e);
				wbuf_reset(&out);
				rc = bmd_decrunch(b.data, n, "t", pass ? &mat : NULL, &sink, &st, &e);
				if (rc == 0)
					decoded++;
				if (rc == 0 ? clean
					    : (rc == -ERR_TRUNC || rc == -ERR_CORRUPT) && e.msg[0] &&
						      (e.va <= n || e.va == ERR_NO_VA))
					continue;
				if (++bad <= 5)
					printf("  truncation at %zu%s: rc %d (clean end: %d), at %llu, message '%s'\n", n,
					       pass ? " --mat" : "", rc, clean, (unsigned long long)e.va, e.msg);
			}
		}
		T_CHECK(bad == 0, "%zu truncations x 2 (%u decrunched at a record boundary): %u wrong", b.len, decoded, bad);
	}
	wbuf_release(&b);
	wbuf_release(&out);
}

static void test_dict(void)
{
	struct bmd_dict d;
	const uint8_t *s;
	size_t n;

	T_SECTION("dictionary");
	bmd_dict_init(&d);
	/* "Aa" and "BB" share String.hashCode 2112: the string added first-last wins */
	T_EQ_I(bmd_dict_add(&d, (const uint8_t *)"Aa", 2, 2112, NULL), 0);
	T_EQ_I(bmd_dict_add(&d, (const uint8_t *)"BB", 2, 2112, NULL), 0);
	T_EQ_I(bmd_dict_add(&d, (const uint8_t *)"Aa", 2, 2112, NULL), 0);
	T_EQ_I(bmd_dict_find(&d, 2112, &s, &n), 1);
	T_CHECK(n == 2 && !memcmp(s, "BB", 2), "BB wins");
	T_EQ_U(d.collisions, 1);
	T_EQ_I(bmd_dict_find(&d, 7, &s, &n), 0);
	bmd_dict_release(&d);
}

/* ---- JDK class files and modules (hand-built, JVMS 17 chapter 4) ---------------------------- */

/* A class file: pool 1 Utf8 "p/Foo", 2 Class #1, 3 Utf8 "bar", 4 Utf8 "I", 5 Long (two
 * slots), 7 Utf8 "baz"; this_class 2, one interface (#2), fields bar and baz (bar with a
 * 2-byte attribute named #4). */
static size_t build_class(uint8_t *out)
{
	static const uint8_t cls[] = {
		0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 61, 0, 8,
		1, 0, 5, 'p', '/', 'F', 'o', 'o',
		7, 0, 1,
		1, 0, 3, 'b', 'a', 'r',
		1, 0, 1, 'I',
		5, 0, 0, 0, 0, 0, 0, 0, 42,
		1, 0, 3, 'b', 'a', 'z',
		0, 0x21, 0, 2, 0, 0, 0, 1, 0, 2,
		0, 2,
		0, 2, 0, 3, 0, 4, 0, 1, 0, 4, 0, 0, 0, 2, 0xaa, 0xbb,
		0, 8, 0, 7, 0, 4, 0, 0,
		0, 0, 0, 0,
	};
	memcpy(out, cls, sizeof(cls));
	return sizeof(cls);
}

/* "JM" 1 0, then a one-entry stored ZIP whose offsets count from the end of that header. */
static void build_jmod(struct wbuf *b, const char *name, const uint8_t *body, size_t n)
{
	const struct zentry en = { name, body, n, 0, NULL, 0, 0, 0 };

	wbuf_init(b);
	wbuf_put(b, "JM\x01\x00", 4);
	zipgen_build(b, &en, 1, false);
}

/* java.lang.String.hashCode() of an ASCII string. */
static int32_t java_hash(const char *s)
{
	int32_t h = 0;
	for (const char *p = s; *p; p++)
		h = (int32_t)((uint32_t)h * 31 + (uint8_t)*p);
	return h;
}

static bool dict_has(const struct bmd_dict *d, const char *s)
{
	const uint8_t *got;
	return bmd_dict_find_len(d, java_hash(s), strlen(s), &got) && !memcmp(got, s, strlen(s));
}

static void test_jdk_names(void)
{
	uint8_t cls[128], bad[128];
	size_t n = build_class(cls), ok = 0, refused = 0;
	struct bmd_dict d;
	struct wbuf jm;
	struct err e;

	T_SECTION("JDK names: class files and jmods");
	bmd_dict_init(&d);
	err_init(&e);
	T_EQ_I(bmd_dict_add_class(&d, cls, n, "Foo.class", &e), 0);
	printf("  class file: %zu names\n", d.count);
	T_EQ_U(d.count, 3);
	T_CHECK(dict_has(&d, "p/Foo") && dict_has(&d, "bar") && dict_has(&d, "baz"), "this_class and both field names");
	T_CHECK(!dict_has(&d, "I"), "descriptors are not names");
	bmd_dict_release(&d);
	/* every truncation is refused; every one-byte corruption is refused or read in bounds */
	for (size_t k = 0; k < n; k++) {
		bmd_dict_init(&d);
		refused += bmd_dict_add_class(&d, cls, k, "cut", &e) < 0;
		bmd_dict_release(&d);
		for (unsigned bit = 0; bit < 8; bit += 3) {
			memcpy(bad, cls, n);
			bad[k] ^= (uint8_t)(1u << bit);
			bmd_dict_init(&d);
			ok += bmd_dict_add_class(&d, bad, n, "bad", &e) == 0;
			bmd_dict_release(&d);
		}
	}
	printf("  %zu of %zu truncations refused; %zu corrupted copies still read\n", refused, n, ok);
	T_EQ_U(refused, n);
	/* a module: the class inside classes/, module-info and other entries ignored */
	build_jmod(&jm, "classes/p/Foo.class", cls, n);
	bmd_dict_init(&d);
	if (bmd_dict_add_jmod(&d, jm.data, jm.len, "t.jmod", &e))
		printf("  %s\n", e.msg);
	T_CHECK(dict_has(&d, "p/Foo") && dict_has(&d, "baz"), "jmod class names read");
	bmd_dict_release(&d);
	wbuf_release(&jm);
	build_jmod(&jm, "classes/module-info.class", cls, n);
	bmd_dict_init(&d);
	T_EQ_I(bmd_dict_add_jmod(&d, jm.data, jm.len, "t.jmod", &e), 0);
	T_EQ_U(d.count, 0);
	T_CHECK(bmd_dict_add_jmod(&d, jm.data + 4, jm.len - 4, "zip.jmod", &e) < 0, "a bare ZIP is not a jmod");
	printf("  %s\n", e.msg);
	bmd_dict_release(&d);
	wbuf_release(&jm);
}

static uint64_t jdk_key_of(const char *s)
{
	return bmd_jdk_key(java_hash(s), (uint32_t)strlen(s));
}

/* bmd_jdk: a jmods directory indexed from its directories, a class inflated only when wanted
 * under its slashed or dotted name; a file that is no jmod, a damaged one, an empty directory. */
static void test_jdk_index(void)
{
	char dir[] = "/tmp/artcarve-jdk.XXXXXX", path[300];
	uint8_t cls[128];
	size_t n = build_class(cls);
	struct htab wanted;
	struct bmd_jdk j;
	struct bmd_dict d;
	struct wbuf jm;
	struct err e;
	FILE *f;

	T_SECTION("JDK index: classes inflated only when a string names them");
	err_init(&e);
	T_CHECK(mkdtemp(dir) != NULL, "mkdtemp");
	T_EQ_I(bmd_jdk_open(&j, dir, &e), -ERR_USAGE);
	printf("  %s\n", e.msg);
	build_jmod(&jm, "classes/p/Foo.class", cls, n);
	snprintf(path, sizeof(path), "%s/a.jmod", dir);
	f = fopen(path, "wb");
	T_CHECK(f && fwrite(jm.data, 1, jm.len, f) == jm.len && fclose(f) == 0, "write %s", path);
	T_EQ_I(bmd_jdk_open(&j, dir, &e), 0);
	T_EQ_U(j.mod_count, 1);
	T_EQ_U(j.count, 1);
	const char *const names[] = { "p/Foo", "p.Foo", "p/Fo", "bar" };
	const size_t want_count[] = { 3, 3, 0, 0 };
	for (int i = 0; i < 4; i++) {
		htab_init(&wanted);
		bmd_dict_init(&d);
		T_EQ_I(bmd_idmap_put(&wanted, jdk_key_of(names[i]), 0, &e), 0);
		T_EQ_I(bmd_jdk_names(&j, &wanted, &d, &e), 0);
		printf("  wanted \"%s\": %zu names\n", names[i], d.count);
		T_EQ_U(d.count, want_count[i]);
		if (want_count[i])
			T_CHECK(dict_has(&d, "p/Foo") && dict_has(&d, "bar") && dict_has(&d, "baz"), "p/Foo's names");
		bmd_dict_release(&d);
		htab_release(&wanted);
	}
	bmd_jdk_release(&j);
	T_EQ_I(bmd_jdk_open(&j, path, &e), 0);   /* one .jmod file */
	T_EQ_U(j.count, 1);
	bmd_jdk_release(&j);
	/* a damaged class is an error naming the module and the entry once it is wanted */
	jm.data[4 + 30 + 19 + 3] ^= 0xff;        /* local header, name, then the magic's last byte */
	f = fopen(path, "wb");
	T_CHECK(f && fwrite(jm.data, 1, jm.len, f) == jm.len && fclose(f) == 0, "rewrite %s", path);
	T_EQ_I(bmd_jdk_open(&j, dir, &e), 0);
	htab_init(&wanted);
	bmd_dict_init(&d);
	T_EQ_I(bmd_idmap_put(&wanted, jdk_key_of("p/Foo"), 0, &e), 0);
	T_CHECK(bmd_jdk_names(&j, &wanted, &d, &e) < 0 && strstr(e.msg, "a.jmod") && strstr(e.msg, "classes/p/Foo.class"),
		"damaged class refused: %s", e.msg);
	bmd_dict_release(&d);
	htab_release(&wanted);
	bmd_jdk_release(&j);
	/* every truncation of the module is refused when it is opened (the directory is at its end) */
	size_t refused = 0;
	for (size_t k = 0; k < jm.len; k++) {
		f = fopen(path, "wb");
		if (f) {
			fwrite(jm.data, 1, k, f);
			fclose(f);
		}
		refused += bmd_jdk_open(&j, dir, &e) < 0;
		bmd_jdk_release(&j);
	}
	printf("  %zu of %zu truncations refused\n", refused, jm.len);
	T_EQ_U(refused, jm.len);
	snprintf(path, sizeof(path), "%s/x.jar", dir);
	T_EQ_I(bmd_jdk_open(&j, path, &e), -ERR_IO);          /* no such file */
	f = fopen(path, "wb");
	T_CHECK(f && fwrite(jm.data, 1, jm.len, f) == jm.len && fclose(f) == 0, "write %s", path);
	T_EQ_I(bmd_jdk_open(&j, path, &e), -ERR_USAGE);       /* a file that is not a .jmod */
	printf("  %s\n", e.msg);
	unlink(path);
	snprintf(path, sizeof(path), "%s/a.jmod", dir);
	unlink(path);
	rmdir(dir);
	wbuf_release(&jm);
}

/* ---- a small synthetic HPROF, written with the HPROF writer -------------------------------- */

enum { S_OBJECT = 100, S_INTEGER, S_THING, S_VALUE, S_NEXT, S_COUNT, S_INTARR, S_BAD, S_OBJARR, S_STATIC };
enum { C_OBJECT = 0x1000, C_INTEGER = 0x1010, C_THING = 0x1020, C_INTARR = 0x1030, C_OBJARR = 0x1040 };

static void h_string(struct hprof_writer *w, uint64_t id, const char *s, size_t n)
{
	hprof_write_string(w, id, s, n, NULL);
}

static void h_class(struct hprof_writer *w, uint64_t id, uint64_t super, const struct hprof_class_entry *k,
		    uint16_t nk, const struct hprof_class_entry *st, uint16_t ns, const struct hprof_class_entry *f,
		    uint16_t nf)
{
	struct hprof_class_dump cd = { .class_id = id, .super_id = super, .const_count = nk, .static_count = ns,
				       .field_count = nf };
	hprof_put_class_dump(w, &cd, k, st, f, NULL);
}

/* Every record kind the cruncher handles; Android flavour adds HEAP_DUMP_INFO, Android roots
 * and a NODATA array.  Object k (0..4) has id 0x2000 + k * (0x10 + skew): skew 0 keeps them
 * 16-aligned, an odd skew makes every other one odd (as in a decrunched dump's 1, 2, 3...). */
#define OBJ(k) (0x2000 + (uint64_t)(k) * (0x10 + skew))
static void build_hprof_skewed(struct wbuf *out, unsigned id, bool android, uint64_t skew)
{
	static const uint8_t roots[] = { 0xff, 1, 2, 3, 4, 5, 6, 7, 8, 0x89, 0x8a, 0x8b, 0x8c, 0x8d, 0x8e, 0x90 };
	const struct hprof_class_entry int_field[] = { { S_VALUE, HPROF_T_INT, 0, 0 } };
	const struct hprof_class_entry thing_k[] = { { 1, HPROF_T_INT, 0xfffffffb, 0 } };
	const struct hprof_class_entry thing_s[] = { { S_STATIC, HPROF_T_OBJECT, OBJ(0), 0 },
						     { S_COUNT, HPROF_T_SHORT, 0xfffe, 0 },
						     { S_VALUE, HPROF_T_DOUBLE, 0x3ff0000000000000ULL, 0 } };
	const struct hprof_class_entry thing_f[] = { { S_NEXT, HPROF_T_OBJECT, 0, 0 }, { S_COUNT, HPROF_T_INT, 0, 0 },
						     { S_VALUE, HPROF_T_BOOLEAN, 0, 0 }, { S_VALUE, HPROF_T_CHAR, 0, 0 },
						     { S_VALUE, HPROF_T_FLOAT, 0, 0 }, { S_VALUE, HPROF_T_DOUBLE, 0, 0 },
						     { S_VALUE, HPROF_T_BYTE, 0, 0 }, { S_VALUE, HPROF_T_SHORT, 0, 0 },
						     { S_VALUE, HPROF_T_LONG, 0, 0 } };
	const uint64_t elems[] = { OBJ(0), 0, OBJ(1) };
	const uint8_t ints[] = { 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff, 0, 0, 1, 0 };
	const uint8_t stack_trace[] = { 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 0 };
	struct hprof_writer w;
	struct wbuf v;

	hprof_writer_init(&w, NULL, id, NULL);
	hprof_write_header(&w, android ? "1.0.3" : "1.0.2", 0x123456789aULL, NULL);
	h_string(&w, S_OBJECT, "java.lang.Object", 16);
	h_string(&w, S_INTEGER, "java.lang.Integer", 17);
	h_string(&w, S_THING, "com.app.Thing", 13);
	h_string(&w, S_VALUE, "value", 5);
	h_string(&w, S_NEXT, "next", 4);
	h_string(&w, S_COUNT, "count", 5);
	h_string(&w, S_INTARR, "int[]", 5);
	h_string(&w, S_BAD, "\xc0\x80" "A", 3);
	h_string(&w, S_OBJARR, "java.lang.Object[]", 18);
	h_string(&w, S_STATIC, "STATIC", 6);
	{
		const uint64_t cls[][2] = { { C_OBJECT, S_OBJECT }, { C_INTEGER, S_INTEGER }, { C_THING, S_THING },
					    { C_INTARR, S_INTARR }, { C_OBJARR, S_OBJARR } };
		for (unsigned i = 0; i < 5; i++) {
			struct hprof_load_class lc = { i + 1, cls[i][0], 0, cls[i][1] };
			hprof_write_load_class(&w, &lc, NULL);
		}
	}
	hprof_write_record(&w, HPROF_STACK_TRACE, 0, stack_trace, sizeof(stack_trace), NULL);
	hprof_writer_set_segments(&w, HPROF_HEAP_DUMP_SEGMENT, 4096);
	if (android) {
		struct hprof_heap_info hi = { 'A', S_VALUE };
		hprof_put_heap_info(&w, &hi, NULL);
	}
	h_class(&w, C_OBJECT, 0, NULL, 0, NULL, 0, NULL, 0);
	h_class(&w, C_INTEGER, C_OBJECT, NULL, 0, NULL, 0, int_field, 1);
	h_class(&w, C_THING, C_OBJECT, thing_k, 1, thing_s, 3, thing_f, 9);
	h_class(&w, C_INTARR, C_OBJECT, NULL, 0, NULL, 0, NULL, 0);
	h_class(&w, C_OBJARR, C_OBJECT, NULL, 0, NULL, 0, NULL, 0);
	wbuf_init(&v);
	wbuf_u32be(&v, 0xfffffff9);                             /* Integer.value = -7 */
	hprof_put_instance(&w, OBJ(0), 0, C_INTEGER, v.data, v.len, NULL);
	wbuf_reset(&v);
	wbuf_uNbe(&v, id, OBJ(0));                              /* next */
	wbuf_u32be(&v, 12345);                                  /* count */
	wbuf_u8(&v, 1);                                         /* boolean */
	wbuf_u16be(&v, 'z');                                    /* char */
	wbuf_u32be(&v, 0x40490fdb);                             /* float */
	wbuf_u64be(&v, 0x400921fb54442d18ULL);                  /* double */
	wbuf_u8(&v, 0x80);                                      /* byte */
	wbuf_u16be(&v, 0x8000);                                 /* short */
	wbuf_u64be(&v, 0xfffffffffffffffeULL);                  /* long */
	hprof_put_instance(&w, OBJ(1), 0, C_THING, v.data, v.len, NULL);
	wbuf_release(&v);
	hprof_put_obj_array(&w, OBJ(2), 0, C_OBJARR, elems, 3, NULL);
	hprof_put_prim_array(&w, OBJ(3), 0, HPROF_T_INT, 3, ints, false, NULL);
	if (android)
		hprof_put_prim_array(&w, OBJ(4), 0, HPROF_T_BYTE, 0, NULL, true, NULL);
	for (unsigned i = 0; i < sizeof(roots); i++) {
		struct hprof_root r = { roots[i], OBJ(i % 4), 0, 1, 2 };
		if (!android && roots[i] >= 0x89 && roots[i] <= 0x90)
			continue;
		hprof_put_root(&w, &r, NULL);
	}
	hprof_write_heap_dump_end(&w, NULL);
	wbuf_init(out);
	wbuf_put(out, w.buf.data, w.buf.len);
	hprof_writer_release(&w);
}
#undef OBJ

static void build_hprof(struct wbuf *out, unsigned id, bool android)
{
	build_hprof_skewed(out, id, android, 0);
}

static int crunch_mem(const struct wbuf *in, struct wbuf *out, struct bmd_crunch_stats *st, struct err *e)
{
	struct bmd_sink sink = { mem_write, out };
	wbuf_init(out);
	return bmd_crunch(in->data, in->len, "t", NULL, &sink, st, e);
}

/* Finds the first record with tag (and id, if nonzero). */
static bool find_record(const struct wbuf *b, uint32_t tag, uint32_t id, struct bmd_record *out)
{
	struct bmd_reader r;
	bool found = false;

	if (bmd_reader_init(&r, b->data, b->len, "t", NULL))
		return false;
	while (!found && bmd_next(&r, out, NULL) == 1)
		found = out->tag == tag && (!id || out->id == id);
	if (found && out->def) {
		/* copy what the caller reads before the reader goes away */
		static struct bmd_class_def def;
		static struct bmd_field fields[16];
		def = *out->def;
		memcpy(fields, def.fields, (def.field_count < 16 ? def.field_count : 16) * sizeof(fields[0]));
		def.fields = fields;
		out->def = &def;
	}
	bmd_reader_release(&r);
	return found;
}

static void test_crunch_synthetic(unsigned id, bool android)
{
	struct wbuf h, b, d;
	struct bmd_crunch_stats st;
	struct bmd_decrunch_stats dst;
	struct bmd_record rec;
	struct bmd_sink sink = { mem_write, &d };
	struct err e;

	printf("-- crunch of a synthetic HPROF (id %u, %s)\n", id, android ? "1.0.3" : "1.0.2");
	build_hprof(&h, id, android);
	err_init(&e);
	T_EQ_I(crunch_mem(&h, &b, &st, &e), 0);
	if (e.msg[0])
		printf("  %s\n", e.msg);
	T_EQ_U(st.id_size, id);
	T_EQ_U(st.classes, 5);
	T_EQ_U(st.instances, 2);
	T_EQ_U(st.obj_arrays, 1);
	T_EQ_U(st.prim_arrays, 1);           /* NODATA arrays vanish */
	T_EQ_U(st.roots, android ? 15 : 9);  /* ROOT_UNREACHABLE is not collected */
	T_EQ_U(st.legacy, 1);
	T_EQ_U(st.strings, 3);               /* java.lang.Object, java.lang.Integer, java.lang.Object[] */
	T_EQ_U(st.hashed_strings, 7);
	/* the 8-byte marker comes first, else the first string: java.lang.Object as id 1 */
	T_CHECK(find_record(&b, BMD_STRING, 0, &rec), "a STRING record");
	if (id == 8)
		T_CHECK(rec.id == 0 && rec.len == 18 && !memcmp(rec.bytes, BMD_MARKER_ID8, 18), "id-size marker");
	else
		T_CHECK(rec.id == 1 && rec.len == 16, "java.lang.Object is string 1");
	/* bad UTF-8 is hashed after replacement: C0 80 41 -> U+FFFD U+FFFD 'A' */
	T_CHECK(find_record(&b, BMD_HASHED_STRING, 8, &rec), "string 8 hashed");
	T_EQ_U(rec.length, 7);
	T_EQ_I(rec.hash, (int32_t)((0xfffdu * 31 + 0xfffdu) * 31 + 'A'));
	/* Thing: only the object field kept, 30 bytes of primitives discarded */
	T_CHECK(find_record(&b, BMD_CLASS_DEFINITION, 3, &rec), "class 3 (Thing)");
	T_EQ_U(rec.def->field_count, 1);
	T_EQ_U(rec.def->discarded, 4 + 1 + 2 + 4 + 8 + 1 + 2 + 8);
	/* Integer is preserved (java.lang name): its int field is kept */
	T_CHECK(find_record(&b, BMD_CLASS_DEFINITION, 2, &rec), "class 2 (Integer)");
	T_EQ_U(rec.def->field_count, 1);
	T_EQ_U(rec.def->discarded, 0);
	T_CHECK(find_record(&b, BMD_ROOT_OBJECTS, 0, &rec), "roots last");
	/* decrunch both ways */
	wbuf_init(&d);
	T_EQ_I(bmd_decrunch(b.data, b.len, "t", NULL, &sink, &dst, &e), 0);
	T_EQ_U(dst.id_size, id);
	T_EQ_U(dst.instances, 2);
	T_EQ_U(dst.classes, 5);
	T_CHECK(!memcmp(d.data, android ? "JAVA PROFILE 1.0.3" : "JAVA PROFILE 1.0.2", 19), "header text kept");
	wbuf_reset(&d);
	{
		struct bmd_decrunch_opts mat = { .mat = true, .segment_cap = 64 };
		T_EQ_I(bmd_decrunch(b.data, b.len, "t", &mat, &sink, &dst, &e), 0);
		T_EQ_U(dst.roots, android ? 15 : 9);
	}
	wbuf_release(&d);
	wbuf_release(&b);
	wbuf_release(&h);
}

/* Ids are renumbered in order of first use, so the BMD does not depend on their values: ids
 * of every alignment (the object id map's granule shrinks from 8 to 1 byte on the way) give
 * the bytes 16-aligned ones give. */
static void test_crunch_unaligned(unsigned id)
{
	static const uint64_t skews[] = { 8, 4, 2, 1, 3, 0x1001 };
	struct wbuf h, b, ref;
	struct bmd_crunch_stats st;
	struct err e;

	printf("-- crunch of unaligned ids (id %u)\n", id);
	build_hprof(&h, id, false);
	err_init(&e);
	T_EQ_I(crunch_mem(&h, &ref, &st, &e), 0);
	wbuf_release(&h);
	for (size_t i = 0; i < sizeof(skews) / sizeof(skews[0]); i++) {
		build_hprof_skewed(&h, id, false, skews[i]);
		T_EQ_I(crunch_mem(&h, &b, &st, &e), 0);
		printf("  skew %llu: %zu bytes, 16-aligned ids: %zu bytes\n", (unsigned long long)skews[i], b.len, ref.len);
		T_CHECK(b.len == ref.len && !memcmp(b.data, ref.data, b.len), "BMD identical to the 16-aligned one");
		T_EQ_U(st.instances, 2);
		wbuf_release(&b);
		wbuf_release(&h);
	}
	wbuf_release(&ref);
}

static int write_file(const char *dir, const char *name, const struct wbuf *b)
{
	char path[512];
	struct outf o;
	struct err e;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (outf_open(&o, path, &e) || outf_write(&o, b->data, b->len, &e) || outf_commit(&o, &e)) {
		fprintf(stderr, "%s\n", e.msg);
		outf_abort(&o);
		return 1;
	}
	return 0;
}

/* Seeds for tests/fuzz/corpus/fuzz_{bmd,decrunch,crunch}: `test_bmd --write-seeds DIR` writes
 * DIR/fuzz_crunch/{id4-android,id8-jvm}.hprof and the BMDs made from them plus the
 * hand-made small BMD into DIR/fuzz_bmd and DIR/fuzz_decrunch. */
static int write_seeds(const char *dir)
{
	static const char *const bmd_dirs[] = { "fuzz_bmd", "fuzz_decrunch" };
	struct wbuf h, b, small;
	char sub[512];
	int rc = 0;

	wbuf_init(&small);
	build_bmd(&small);
	for (unsigned k = 0; k < 2; k++) {
		unsigned id = k ? 8 : 4;
		const char *name = k ? "id8-jvm" : "id4-android";
		char file[64];
		build_hprof(&h, id, !k);
		snprintf(sub, sizeof(sub), "%s/fuzz_crunch", dir);
		snprintf(file, sizeof(file), "%s.hprof", name);
		rc |= write_file(sub, file, &h);
		rc |= crunch_mem(&h, &b, NULL, NULL) != 0;
		snprintf(file, sizeof(file), "%s.bmd", name);
		for (unsigned d = 0; d < 2; d++) {
			snprintf(sub, sizeof(sub), "%s/%s", dir, bmd_dirs[d]);
			rc |= write_file(sub, file, &b);
			rc |= write_file(sub, "small.bmd", &small);
		}
		wbuf_release(&b);
		wbuf_release(&h);
	}
	wbuf_release(&small);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--write-seeds"))
		return write_seeds(argv[2]);
	test_crunch_synthetic(4, true);
	test_crunch_synthetic(8, false);
	test_crunch_unaligned(4);
	test_crunch_unaligned(8);
	test_varints();
	test_values();
	test_java_strings();
	test_hashmap_order();
	test_reader();
	test_decrunch_small();
	test_dict();
	test_jdk_names();
	test_jdk_index();
	T_DONE();
}
