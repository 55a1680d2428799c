/* test_dex.c - DEX / compact DEX reader on DEX files built by tests/tools/dexgen.h:
 * valid input, every truncation, corrupted header fields, flipped magic. */
#include "art/format/dex.h"

#include <stdlib.h>

#include "carver/base/xalloc.h"
#include "t.h"
#include "tests/tools/dexgen.h"

static int build(struct wbuf *b, unsigned version, bool compact)
{
	struct dg_spec sp = { dg_sample_classes, 2, version, compact };
	wbuf_init(b);
	return dg_build(b, &sp);
}

static int parse(struct dex *d, const struct wbuf *b, size_t len, struct err *e)
{
	struct cursor c;
	cur_init(&c, b->data, len, 0);
	err_init(e);
	return dex_load(d, &c, e);
}

static bool str_is(const struct dex *d, uint32_t idx, const char *want)
{
	const uint8_t *s;
	size_t n;
	return dex_string(d, idx, &s, &n, NULL) == 0 && n == strlen(want) && !memcmp(s, want, n);
}

static bool type_is(const struct dex *d, uint32_t idx, const char *want)
{
	const uint8_t *s;
	size_t n;
	return dex_type_descriptor(d, idx, &s, &n, NULL) == 0 && n == strlen(want) && !memcmp(s, want, n);
}

/* walks everything reachable; returns the number of members seen or -1 on an error */
static long walk_all(const struct dex *d, struct err *e)
{
	long members = 0;
	struct wbuf sig;

	wbuf_init(&sig);
	for (uint32_t i = 0; i < d->class_defs_size; i++) {
		struct dex_class_def def;
		struct dex_class_data it;
		struct dex_member m;
		int rc;
		if (dex_class_def(d, i, &def, e) || dex_class_data_open(d, &def, &it, e))
			goto fail;
		while ((rc = dex_class_data_next(&it, &m, e)) == 1) {
			members++;
			if (m.kind >= DEX_DIRECT_METHOD) {
				struct dex_method_id mid;
				struct dex_code_item ci;
				if (dex_method_id(d, m.idx, &mid, e) || dex_proto_signature(d, mid.proto_idx, &sig, e))
					goto fail;
				if (m.code_off && dex_code_item(d, m.code_off, m.idx, &ci, e))
					goto fail;
			} else {
				struct dex_field_id fid;
				const uint8_t *s;
				size_t n;
				if (dex_field_id(d, m.idx, &fid, e) || dex_string(d, fid.name_idx, &s, &n, e))
					goto fail;
			}
		}
		if (rc < 0)
			goto fail;
	}
	if (dex_map_validate(d, e))
		goto fail;
	wbuf_release(&sig);
	return members;
fail:
	wbuf_release(&sig);
	return -1;
}

static void test_valid(unsigned version, bool compact)
{
	struct wbuf b;
	struct dex d;
	struct err e;
	uint32_t ck;
	struct wbuf sig;

	printf("-- valid %s %u\n", compact ? "cdex" : "dex", version);
	T_EQ_I(build(&b, version, compact), 0);
	T_CHECK(dex_probe(b.data, b.len), "probe");
	T_EQ_I(parse(&d, &b, b.len, &e), 0);
	T_EQ_U(d.compact, compact);
	T_EQ_U(d.version, compact ? 1 : version);
	T_EQ_U(d.string_ids_size, 18);
	T_EQ_U(d.type_ids_size, 8);
	T_EQ_U(d.proto_ids_size, 3);
	T_EQ_U(d.field_ids_size, 4);
	T_EQ_U(d.method_ids_size, 6);
	T_EQ_U(d.class_defs_size, 2);
	T_EQ_I(dex_verify_checksum(&d, &ck, &e), 0);
	T_EQ_U(ck, d.checksum);
	T_EQ_I(dex_map_validate(&d, &e), 0);
	T_CHECK(str_is(&d, 0, "<init>"), "string 0");
	T_CHECK(type_is(&d, 0, "I"), "type 0");
	T_CHECK(type_is(&d, 2, "Lcom/example/Hello;"), "type 2");
	wbuf_init(&sig);
	T_EQ_I(dex_proto_signature(&d, d.proto_ids_size, &sig, &e), -ERR_CORRUPT);
	{
		/* find greet's proto through its method id */
		bool seen = false;
		for (uint32_t i = 0; i < d.method_ids_size; i++) {
			struct dex_method_id m;
			T_EQ_I(dex_method_id(&d, i, &m, &e), 0);
			if (str_is(&d, m.name_idx, "greet")) {
				wbuf_reset(&sig);
				T_EQ_I(dex_proto_signature(&d, m.proto_idx, &sig, &e), 0);
				T_CHECK(sig.len == strlen("(ILjava/lang/String;)Ljava/lang/String;") &&
					!memcmp(sig.data, "(ILjava/lang/String;)Ljava/lang/String;", sig.len),
					"greet signature %.*s", (int)sig.len, (const char *)sig.data);
				seen = true;
			}
		}
		T_CHECK(seen, "greet found");
	}
	wbuf_release(&sig);
	{
		struct dex_class_def def;
		struct dex_class_data it;
		struct dex_member m;
		unsigned kinds[4] = { 0 };
		uint32_t big_insns = 0;
		T_EQ_I(dex_class_def(&d, 1, &def, &e), 0);
		T_CHECK(type_is(&d, def.class_idx, "Lcom/example/World;"), "class 1");
		T_CHECK(type_is(&d, def.superclass_idx, "Lcom/example/Hello;"), "super 1");
		T_EQ_I(dex_class_def(&d, 0, &def, &e), 0);
		T_EQ_U(def.access_flags, 0x401);
		T_EQ_I(dex_class_data_open(&d, &def, &it, &e), 0);
		while (dex_class_data_next(&it, &m, &e) == 1)
			kinds[m.kind]++;
		T_EQ_U(kinds[DEX_STATIC_FIELD], 1);
		T_EQ_U(kinds[DEX_INSTANCE_FIELD], 2);
		T_EQ_U(kinds[DEX_DIRECT_METHOD], 2);
		T_EQ_U(kinds[DEX_VIRTUAL_METHOD], 2);
		/* World.run has 2100 code units: the cdex pre-header carries the excess */
		T_EQ_I(dex_class_def(&d, 1, &def, &e), 0);
		T_EQ_I(dex_class_data_open(&d, &def, &it, &e), 0);
		while (dex_class_data_next(&it, &m, &e) == 1) {
			struct dex_code_item ci;
			if (m.kind == DEX_VIRTUAL_METHOD) {
				T_EQ_I(dex_code_item(&d, m.code_off, m.idx, &ci, &e), 0);
				big_insns = ci.insns_size;
				T_EQ_U(ci.registers_size, 1);
				T_EQ_U(ci.ins_size, 1);
				T_EQ_U(ci.insns.len, 4200);
			}
		}
		T_EQ_U(big_insns, 2100);
	}
	T_EQ_I(walk_all(&d, &e), 10);
	wbuf_release(&b);
}

/* every prefix must parse or fail cleanly; a prefix shorter than file_size must fail */
static void test_truncations(bool compact)
{
	struct wbuf b;
	struct dex d;
	struct err e;
	unsigned bad = 0;

	printf("-- truncations %s\n", compact ? "cdex" : "dex");
	build(&b, 35, compact);
	for (size_t len = 0; len < b.len; len++) {
		uint8_t *copy = xmalloc(len ? len : 1);
		struct cursor c;
		memcpy(copy, b.data, len);
		cur_init(&c, copy, len, 0);
		err_init(&e);
		if (dex_load(&d, &c, &e) == 0)
			bad++;   /* every generated dex needs all of its bytes */
		else if (e.msg[0] == 0)
			bad++;
		xfree(copy);
	}
	T_EQ_U(bad, 0);
	wbuf_release(&b);
}

/* corrupt every header u32 with 0, 0xffffffff and len+1: parse + walk must not crash */
static void test_corrupt_fields(bool compact)
{
	struct wbuf b;
	const uint32_t vals[3] = { 0, 0xffffffffu, 0 };
	unsigned rejected = 0, total = 0;
	size_t hsize = compact ? CDEX_HEADER_SIZE : DEX_HEADER_SIZE;

	printf("-- corrupt header fields %s\n", compact ? "cdex" : "dex");
	build(&b, 35, compact);
	for (size_t off = 8; off + 4 <= hsize; off += 4) {
		for (int k = 0; k < 3; k++) {
			uint8_t *copy = xmalloc(b.len);
			struct dex d;
			struct err e;
			uint32_t v = k == 2 ? (uint32_t)b.len + 1 : vals[k];
			memcpy(copy, b.data, b.len);
			dg_put32(&(struct wbuf){ .data = copy, .len = b.len, .cap = b.len }, off, v);
			{
				struct cursor c;
				cur_init(&c, copy, b.len, 0);
				err_init(&e);
				if (dex_load(&d, &c, &e) != 0 || walk_all(&d, &e) < 0) {
					rejected++;
					T_CHECK(e.msg[0] != 0, "error message for field 0x%zx", off);
				}
			}
			total++;
			xfree(copy);
		}
	}
	T_CHECK(rejected > total / 3, "%u of %u corruptions rejected", rejected, total);
	wbuf_release(&b);
}

static void test_magic_and_versions(void)
{
	struct wbuf b;
	struct dex d;
	struct err e;

	T_SECTION("magic and versions");
	build(&b, 35, false);
	b.data[0] = 'D';
	T_CHECK(!dex_probe(b.data, b.len), "flipped magic not probed");
	T_EQ_I(parse(&d, &b, b.len, &e), -ERR_CORRUPT);
	T_CHECK(strstr(e.msg, "no dex magic") != NULL, "%s", e.msg);
	b.data[0] = 'd';
	memcpy(b.data + 4, "036", 3);
	T_EQ_I(parse(&d, &b, b.len, &e), -ERR_UNSUP);
	memcpy(b.data + 4, "042", 3);
	T_EQ_I(parse(&d, &b, b.len, &e), -ERR_UNSUP);
	memcpy(b.data + 4, "039", 3);
	T_EQ_I(parse(&d, &b, b.len, &e), 0);
	dg_put32(&b, 40, 0x78563412);  /* byte-swapped endian tag */
	T_EQ_I(parse(&d, &b, b.len, &e), -ERR_CORRUPT);
	T_CHECK(strstr(e.msg, "endian_tag") != NULL, "%s", e.msg);
	wbuf_release(&b);
	T_CHECK(!dex_probe((const uint8_t *)"dex\n03", 6), "short probe");
	T_CHECK(dex_probe((const uint8_t *)"cdex001", 8), "cdex probe");
}

static void test_index_bounds(void)
{
	struct wbuf b;
	struct dex d;
	struct err e;
	const uint8_t *s;
	size_t n;
	struct dex_field_id f;

	T_SECTION("index bounds");
	build(&b, 35, false);
	parse(&d, &b, b.len, &e);
	T_EQ_I(dex_string(&d, d.string_ids_size, &s, &n, &e), -ERR_CORRUPT);
	T_EQ_I(dex_type_descriptor(&d, 0xffffffffu, &s, &n, &e), -ERR_CORRUPT);
	T_EQ_I(dex_field_id(&d, d.field_ids_size, &f, &e), -ERR_CORRUPT);
	T_CHECK(strstr(e.msg, "field index 4 out of range") != NULL, "%s", e.msg);
	/* a string_data_off past the end */
	dg_put32(&b, d.string_ids_off, (uint32_t)b.len);
	T_EQ_I(dex_string(&d, 0, &s, &n, &e), -ERR_CORRUPT);
	wbuf_release(&b);
}

/* string_ids[0] pointed at MUTF-8 bytes appended to the file, read back as WTF-8 */
static int wtf8_of(struct wbuf *b, const char *mutf8, size_t n, struct wbuf *out, struct err *e)
{
	struct dex d;
	size_t at = b->len;
	wbuf_u8(b, (uint8_t)n);           /* uleb128 UTF-16 length: not checked against the bytes */
	wbuf_put(b, mutf8, n);
	wbuf_u8(b, 0);
	dg_put32(b, 32, (uint32_t)b->len);                          /* file_size */
	dg_put32(b, 104, (uint32_t)(b->len - ld_u32le(b->data + 108)));  /* data_size from data_off */
	T_EQ_I(parse(&d, b, b->len, e), 0);
	dg_put32(b, d.string_ids_off, (uint32_t)at);
	wbuf_reset(out);
	return dex_string_wtf8(&d, 0, out, e);
}

static void test_string_wtf8(void)
{
	static const struct { const char *name, *in; size_t n; const char *want; size_t want_n; } cases[] = {
		{ "ASCII", "abc", 3, "abc", 3 },
		{ "NUL as C0 80", "A\xc0\x80" "B", 4, "A\0B", 3 },
		{ "2-byte", "\xc3\xa9", 2, "\xc3\xa9", 2 },
		{ "surrogate pair -> one 4-byte character", "\xed\xa0\xbd\xed\xb8\x80", 6, "\xf0\x9f\x98\x80", 4 },
		{ "lone high surrogate kept as 3 bytes", "x\xed\xa0\x80y", 5, "x\xed\xa0\x80y", 5 },
		{ "low surrogate first: two lone ones", "\xed\xb8\x80\xed\xa0\xbd", 6, "\xed\xb8\x80\xed\xa0\xbd", 6 },
	};
	struct wbuf b, out;
	struct err e;

	T_SECTION("string as WTF-8 (heap String form)");
	wbuf_init(&out);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		build(&b, 35, false);
		int rc = wtf8_of(&b, cases[i].in, cases[i].n, &out, &e);
		T_CHECK(rc == 0 && out.len == cases[i].want_n && !memcmp(out.data, cases[i].want, out.len),
			"%s: rc %d, %zu bytes (want %zu)", cases[i].name, rc, out.len, cases[i].want_n);
		wbuf_release(&b);
	}
	static const char *const bad[] = { "\x80", "\xc3", "\xe0\x80", "\xf0\x9f\x98\x80" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		build(&b, 35, false);
		T_EQ_I(wtf8_of(&b, bad[i], strlen(bad[i]), &out, &e), -ERR_CORRUPT);
		wbuf_release(&b);
	}
	T_CHECK(strstr(e.msg, "is not MUTF-8") != NULL, "%s", e.msg);
	wbuf_release(&out);
}

static void test_adler(void)
{
	T_SECTION("adler32");
	T_EQ_U(dex_adler32(1, (const uint8_t *)"", 0), 1);
	T_EQ_U(dex_adler32(1, (const uint8_t *)"Wikipedia", 9), 0x11E60398);
	{
		/* long input crosses the NMAX block boundary */
		uint8_t *buf = xmalloc(100000);
		uint32_t a = 1, b = 0;
		for (size_t i = 0; i < 100000; i++) {
			buf[i] = (uint8_t)(i * 7);
			a = (a + buf[i]) % 65521;
			b = (b + a) % 65521;
		}
		T_EQ_U(dex_adler32(1, buf, 100000), b << 16 | a);
		xfree(buf);
	}
}

int main(void)
{
	test_string_wtf8();
	test_valid(35, false);
	test_valid(38, false);
	test_valid(40, false);
	test_valid(0, true);
	test_truncations(false);
	test_truncations(true);
	test_corrupt_fields(false);
	test_corrupt_fields(true);
	test_magic_and_versions();
	test_index_bounds();
	test_adler();
	T_DONE();
}
