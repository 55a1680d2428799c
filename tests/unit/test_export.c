/* test_export.c - the investigator outputs of output/export and the referrer index of the
 * object model: JSON and bulk_extractor escaping of hostile text (control characters,
 * quotes, backslashes, lone surrogates, invalid and overlong UTF-8, noncharacters; a
 * decode-back round trip over random bytes), mirror_string_wtf8 keeping a lone surrogate,
 * referrers_build / referrers_field_at on a hand-made heap (tests/fuzz/model_fixture.h),
 * and objects.jsonl / strings.tsv of that heap (exact lines, same bytes twice). */
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "carver/base/mapfile.h"
#include "carver/base/outfile.h"
#include "carver/base/wbuf.h"
#include "carver/base/escape.h"
#include "output/decode/decode.h"
#include "output/export/objects_jsonl.h"
#include "output/export/strings_tsv.h"
#include "rosalloc/model/model.h"
#include "rosalloc/model/referrers.h"
#include "t.h"
#include "tests/fuzz/model_fixture.h"

#define U16 0x12c01700u   /* a UTF-16 String "A\xd800B" (lone high surrogate) */

static struct mf fx;
static struct image img;

/* ---- escaping ---- */

/* Escapes in with fn and compares with want. */
static void check(void (*fn)(struct wbuf *, const uint8_t *, size_t), const char *what, const char *in, size_t n,
		  const char *want)
{
	struct wbuf b;
	wbuf_init(&b);
	fn(&b, (const uint8_t *)in, n);
	wbuf_u8(&b, 0);
	T_CHECK(b.data && !strcmp((const char *)b.data, want), "%s gave '%s', expected '%s'", what,
		b.data ? (const char *)b.data : "(null)", want);
	wbuf_release(&b);
}

#define JSON(lit, want) check(escape_json, "escape_json", lit, sizeof(lit) - 1, want)
#define FEATURE(lit, want) check(escape_feature, "escape_feature", lit, sizeof(lit) - 1, want)

static int hexval(uint8_t c) { return c <= '9' ? c - '0' : c - 'A' + 10; }

/* Decodes \xHH escapes of escape_feature's output back to bytes. */
static size_t unescape_feature(const uint8_t *s, size_t n, uint8_t *out)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\\' && i + 3 < n && s[i + 1] == 'x') {
			out[k++] = (uint8_t)(hexval(s[i + 2]) << 4 | hexval(s[i + 3]));
			i += 3;
		} else {
			out[k++] = s[i];
		}
	}
	return k;
}

static void test_escape(void)
{
	T_SECTION("JSON escaping");
	JSON("plain", "plain");
	JSON("a\"b\\c", "a\\\"b\\\\c");
	JSON("\b\f\n\r\t", "\\b\\f\\n\\r\\t");
	JSON("\x01\x1f\x7f", "\\u0001\\u001f\\u007f");
	JSON("nul\0x", "nul\\u0000x");
	JSON("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");   /* é € U+1F600 kept */
	JSON("\xe2\x80\xa8\xe2\x80\xa9", "\\u2028\\u2029");
	JSON("A\xed\xa0\x80" "B", "A\\ud800B");                  /* lone high surrogate (WTF-8) */
	JSON("\xed\xbf\xbf", "\\udfff");                          /* lone low surrogate */
	JSON("\xff\xfe", "\\ufffd\\ufffd");                       /* bytes no UTF-8 starts with */
	JSON("\xc0\xaf", "\\ufffd\\ufffd");                       /* overlong '/' */
	JSON("\xe0\x80\xaf", "\\ufffd\\ufffd\\ufffd");            /* overlong 3-byte */
	JSON("\xf4\x90\x80\x80", "\\ufffd\\ufffd\\ufffd\\ufffd"); /* past U+10FFFF */
	JSON("\xe2\x82", "\\ufffd\\ufffd");                       /* cut sequence */
	JSON("x\xc3", "x\\ufffd");

	T_SECTION("bulk_extractor feature escaping");
	FEATURE("plain text", "plain text");
	FEATURE("a\\b", "a\\x5Cb");
	FEATURE("\t\n\r\x01", "\\x09\\x0A\\x0D\\x01");
	FEATURE("q\"'<>", "q\"'<>");
	FEATURE("\x7f", "\x7f");                                  /* as bulk_extractor: DEL is kept */
	FEATURE("\xc3\xa9\xf0\x9f\x98\x80", "\xc3\xa9\xf0\x9f\x98\x80");
	FEATURE("A\xed\xa0\x80" "B", "A\\xED\\xA0\\x80B");        /* lone surrogate: its bytes */
	FEATURE("\xef\xbf\xbe", "\\xEF\\xBF\\xBE");               /* U+FFFE */
	FEATURE("\xff", "\\xFF");
	FEATURE("\xc0\xaf", "\\xC0\\xAF");
	FEATURE("\xf3\xb0\x80\x80", "\xf3\xb0\x80\x80");      /* plane 15 is kept... */
	FEATURE("\xf0\xb0\x80\x80", "\\xF0\\xB0\\x80\\x80");      /* ...plane 3 is not (bulk_extractor) */

	T_SECTION("round trips over random bytes");
	unsigned bad_json = 0, bad_feature = 0;
	srand(11);
	for (int round = 0; round < 2000; round++) {
		uint8_t in[64], back[64 * 4];
		size_t n = (size_t)(rand() % 64);
		for (size_t i = 0; i < n; i++)
			in[i] = (uint8_t)(rand() % 4 ? rand() % 256 : "\\\"\t\x80\xed"[rand() % 5]);
		struct wbuf j, f;
		wbuf_init(&j);
		wbuf_init(&f);
		escape_json(&j, in, n);
		escape_feature(&f, in, n);
		for (size_t i = 0; i < j.len;) {   /* JSON output: valid UTF-8, no raw control byte or quote */
			uint32_t cp = 0;
			size_t k = escape_utf8_seq(j.data + i, j.len - i, &cp);
			if (k == 0 || cp < 0x20 || cp == '"' || (cp >= 0xd800 && cp < 0xe000))
				bad_json++;
			if (cp == '\\')
				k++;   /* the escaped character */
			i += k ? k : 1;
		}
		if (unescape_feature(f.data, f.len, back) != n || (n && memcmp(back, in, n)) ||
		    (f.len && (memchr(f.data, '\t', f.len) || memchr(f.data, '\n', f.len))))
			bad_feature++;
		wbuf_release(&j);
		wbuf_release(&f);
	}
	printf("  2000 random inputs: %u JSON outputs not clean, %u feature outputs not decoding back\n", bad_json,
	       bad_feature);
	T_EQ_U(bad_json, 0);
	T_EQ_U(bad_feature, 0);
}

/* ---- the fixture heap ---- */

static int feed(struct model *m, uint64_t addr, uint64_t room)
{
	struct walk_candidate c = { .addr = addr, .room = room, .alloc = WALK_ALLOCATED, .place = WALK_ROSALLOC_SLOT,
				    .space = &fx.space, .where = addr & ~0xfffull, .live_bit = -1, .on_alloc_stack = -1 };
	struct err e;
	err_init(&e);
	return model_add(m, &c, &e);
}

static void build(struct model *m, struct anomaly_sink *sink)
{
	struct err e;
	err_init(&e);
	mf_build(&fx);
	mf_w32(&fx, U16, mf_class_addr(MF_STRING));
	mf_w32(&fx, U16 + 8, 3u << 1 | 1);          /* count_: 3 UTF-16 units */
	mf_w32(&fx, U16 + 16, 0xd8000041u);         /* 'A', U+D800 */
	mf_w32(&fx, U16 + 20, 0x42u);               /* 'B' */
	img_init_empty(&img, "export test");
	T_EQ_I(img_add_region_mem(&img, MF_HEAP, fx.heap, sizeof(fx.heap), IMG_PROT_R | IMG_PROT_W,
				  "[anon:dalvik-main space]", &e), 0);
	mf_runtime(&fx, &img);
	anomaly_init(sink, 0);
	T_EQ_I(model_init(m, &fx.rt, sink, &e), 0);
	for (int i = 0; i < MF_CLASSES; i++)
		T_EQ_I(feed(m, mf_class_addr(i), 0x100), 0);
	static const uint32_t objs[] = { 0x12c01000, 0x12c01100, 0x12c01200, 0x12c01300,
					 0x12c01400, 0x12c01500, 0x12c01600, U16 };
	for (size_t i = 0; i < sizeof(objs) / sizeof(objs[0]); i++)
		T_EQ_I(feed(m, objs[i], 0x100), 0);
	T_EQ_I(model_finish(m, &e), 0);
	T_EQ_U(m->count, MF_CLASSES + 8);
}

static void test_wtf8(void)
{
	struct wbuf a, b;
	struct err e;
	T_SECTION("mirror_string_wtf8");
	err_init(&e);
	wbuf_init(&a);
	wbuf_init(&b);
	T_EQ_I(mirror_string(&fx.rt.m, U16, 100, &a, &e), 0);
	T_EQ_I(mirror_string_wtf8(&fx.rt.m, U16, 100, &b, &e), 0);
	T_CHECK(a.len == 5 && !memcmp(a.data, "A\xef\xbf\xbd" "B", 5), "mirror_string: U+FFFD for the surrogate");
	T_CHECK(b.len == 5 && !memcmp(b.data, "A\xed\xa0\x80" "B", 5), "mirror_string_wtf8: the surrogate kept");
	wbuf_release(&a);
	wbuf_release(&b);
}

static size_t at(const struct model *m, uint32_t addr)
{
	return model_find(m, addr);
}

static void test_referrers(const struct model *m, struct referrers *r)
{
	const uint32_t *from, *off;
	struct referrers_field f;
	struct err e;

	T_SECTION("referrer index");
	err_init(&e);
	T_EQ_I(referrers_build(r, m, &e), 0);
	/* edges: Object[] -> A (element 0); A -> "hello" (text); B -> "secret" (text), B -> A (next);
	 * Class objects name their super and component classes through java.lang.Class fields
	 * only when the fixture's Class has such fields (it has none): no class edges */
	printf("  %u edges\n", r->edges);
	T_EQ_U(r->edges, 4);
	uint32_t n = referrers_of(r, at(m, 0x12c01000), &from, &off);
	T_EQ_U(n, 2);
	if (n == 2) {
		T_EQ_U(m->objs[from[0]].addr, 0x12c01200);   /* B.next, lower address first */
		T_EQ_U(off[0], 12);
		T_EQ_U(m->objs[from[1]].addr, 0x12c01500);   /* Object[] element 0 */
		T_EQ_U(off[1], 12);
		T_CHECK(referrers_field_at(m, &m->objs[from[0]], off[0], &f) && f.field && !strcmp(f.field->name, "next"),
			"B's offset 12 is the field next");
		T_CHECK(referrers_field_at(m, &m->objs[from[1]], off[1], &f) && f.is_element && f.index == 0,
			"Object[]'s offset 12 is element 0");
	}
	n = referrers_of(r, at(m, 0x12c01300), &from, &off);
	T_CHECK(n == 1 && m->objs[from[0]].addr == 0x12c01200 && off[0] == 8, "\"secret\" is held by B.text");
	T_EQ_U(referrers_of(r, at(m, 0x12c01200), &from, &off), 0);   /* nobody holds B */
	T_EQ_U(referrers_of(r, at(m, U16), &from, &off), 0);
	T_CHECK(!referrers_field_at(m, &m->objs[at(m, 0x12c01200)], 4, &f), "offset 4 (the monitor) is no reference");
	T_CHECK(!referrers_field_at(m, &m->objs[at(m, 0x12c01500)], 20, &f), "Object[2] has no element at 20");
}

/* Writes with fn into a temporary file and returns its contents (malloc'ed, NUL-terminated). */
static char *write_with(int (*fn)(const struct model *, const struct referrers *, struct outf *, struct err *),
			const struct model *m, const struct referrers *r)
{
	char path[] = "/tmp/test_export.XXXXXX";
	int fd = mkstemp(path);
	struct outf out;
	struct err e;
	char *text = NULL;

	err_init(&e);
	if (fd < 0)
		return NULL;
	close(fd);
	outf_init(&out);
	if (outf_open(&out, path, &e) == 0 && fn(m, r, &out, &e) == 0 && outf_commit(&out, &e) == 0) {
		FILE *fp = fopen(path, "rb");
		if (fp) {
			text = calloc(1, 1 << 16);
			if (text)
				text[fread(text, 1, (1 << 16) - 1, fp)] = 0;
			fclose(fp);
		}
	} else {
		printf("  write failed: %s\n", e.msg);
	}
	outf_abort(&out);
	unlink(path);
	return text;
}

static int jsonl(const struct model *m, const struct referrers *r, struct outf *out, struct err *e)
{
	struct objects_jsonl_stats st;
	(void)r;
	return objects_jsonl_write(m, NULL, out, &st, e);
}

static int tsv(const struct model *m, const struct referrers *r, struct outf *out, struct err *e)
{
	struct strings_tsv_opts o = { "core\tx", "0.1.0", NULL, NULL };
	struct strings_tsv_stats st;
	return strings_tsv_write(m, r, &o, out, &st, e);
}

static void expect_line(const char *text, const char *line)
{
	T_CHECK(text && strstr(text, line), "output lacks the line\n  %s\n--- output:\n%s", line, text ? text : "(none)");
}

static void test_outputs(const struct model *m, const struct referrers *r)
{
	T_SECTION("objects.jsonl");
	char *a = write_with(jsonl, m, r), *b = write_with(jsonl, m, r);
	T_CHECK(a && b && !strcmp(a, b), "the same model gives the same objects.jsonl");
	size_t lines = 0;
	for (const char *p = a; p && *p; p++)
		lines += *p == '\n';
	T_EQ_U(lines, m->count);
	expect_line(a, "{\"address\":\"0x12c01000\",\"class\":\"Msg\",\"class_address\":\"0x12c00600\",\"kind\":\"instance\","
		       "\"size\":24,\"space\":\"main space\",\"space_kind\":\"RosAllocSpace\",\"place\":{\"kind\":"
		       "\"rosalloc_slot\",\"where\":\"0x12c01000\",\"index\":0,\"offset\":0},\"alloc\":\"allocated\","
		       "\"content\":\"intact\",\"reach\":\"unknown\",\"confidence\":100,\"fields\":{"
		       "\"text\":{\"addr\":\"0x12c01100\",\"text\":\"hello\"},\"next\":null,\"id\":7,\"seen\":true,"
		       "\"shadow$_monitor_\":0}}\n");
	expect_line(a, "\"kind\":\"string\",\"size\":22,");
	expect_line(a, "\"length\":3,\"compressed\":false,\"value\":\"A\\ud800B\"}\n");
	expect_line(a, "\"length\":5,\"compressed\":true,\"value\":\"hello\"}\n");
	expect_line(a, "\"kind\":\"object-array\",\"size\":20,");
	expect_line(a, "\"length\":2,\"element_type\":\"java.lang.Object\",\"elements\":[\"0x12c01000\",null]}\n");
	expect_line(a, "\"length\":3,\"element_type\":\"int\",\"elements\":[10,0,0]}\n");
	expect_line(a, "\"fields\":{\"nativePeer\":139637976731648,\"shadow$_monitor_\":0}}\n");
	expect_line(a, "\"describes\":\"Msg\",\"instance_fields\":[{\"name\":\"text\",\"type\":\"java.lang.String\","
		       "\"offset\":8},{\"name\":\"next\",\"type\":\"Msg\",\"offset\":12},{\"name\":\"id\",\"type\":\"int\","
		       "\"offset\":16},{\"name\":\"seen\",\"type\":\"boolean\",\"offset\":20}],\"static_fields\":[],"
		       "\"statics\":{}}\n");
	free(a);
	free(b);

	T_SECTION("strings.tsv");
	a = write_with(tsv, m, r);
	b = write_with(tsv, m, r);
	T_CHECK(a && b && !strcmp(a, b), "the same model gives the same strings.tsv");
	T_CHECK(a && !strncmp(a, "# BANNER: String objects carved by artcarve from an Android app process image\n"
				 "# ARTCARVE-Version: 0.1.0\n# Feature-Recorder: strings\n# Filename: core\\x09x\n# Offsets: ", 165),
		"header:\n%s", a ? a : "(none)");
	expect_line(a, "\n# Feature-File-Version: 1.1\n0x12c01100\thello\tjava.lang.String len=5 compressed; "
		       "held by Msg.text@0x12c01000; allocated intact unknown confidence=100\n");
	expect_line(a, "\n0x12c01300\tsecret\tjava.lang.String len=6 compressed; held by Msg.text@0x12c01200; ");
	expect_line(a, "\n0x12c01700\tA\\xED\\xA0\\x80B\tjava.lang.String len=3 utf16; held by nothing; ");
	size_t rows = 0;
	for (const char *p = a; p && *p; p++)
		rows += *p == '\n' && p[1] && p[1] != '#';
	T_EQ_U(rows, 3);
	free(a);
	free(b);
}

/* The decoder on the fixture: a String field as text, a boolean, a reference followed one
 * level (and a cycle-free answer), an Object[]'s entries, the one-line text. */
/* dec_value_fn: keeps the field named by the struct's name, with a copy of the value */
struct pick_field {
	const char *name;
	struct dec_value v;
	bool found;
};

static int pick_field(void *arg, const struct dec_value *v, struct err *e)
{
	struct pick_field *p = arg;
	(void)e;
	if (v->name && !strcmp(v->name, p->name)) {
		p->v = *v;
		p->found = true;
	}
	return 0;
}

/* A reference as a table cell says it (dec_ref_text): the second Msg's `next` is the first
 * Msg, shown by its String field; the first Msg's `next` is null. */
static void test_ref_text(struct dec *d, const struct model *m, size_t msg, struct wbuf *b, struct err *e)
{
	struct pick_field next = { .name = "next" }, none = { .name = "next" };
	size_t first = model_find(m, 0x12c01000);

	T_EQ_I(dec_each_field(d, msg, pick_field, &next, e), 0);
	T_CHECK(next.found && next.v.kind == DEC_REF, "the second Msg's next is a reference");
	wbuf_reset(b);
	T_EQ_I(dec_ref_text(d, &next.v, 200, b, e), 0);
	wbuf_u8(b, 0);
	printf("   next as a cell: %s\n", (const char *)b->data);
	T_EQ_S((const char *)b->data, "Msg{text=\"hello\"}");
	wbuf_reset(b);
	T_EQ_I(dec_ref_text(d, &next.v, 5, b, e), 0);   /* cut, marked */
	wbuf_u8(b, 0);
	T_EQ_S((const char *)b->data, "Msg{t...");
	T_CHECK(first != MODEL_NONE, "the fixture has the first Msg");
	if (first == MODEL_NONE)
		return;
	T_EQ_I(dec_each_field(d, first, pick_field, &none, e), 0);
	wbuf_reset(b);
	T_EQ_I(dec_ref_text(d, &none.v, 200, b, e), 0);
	wbuf_u8(b, 0);
	T_EQ_S((const char *)b->data, "null");
}

static void test_decoder(const struct model *m)
{
	struct dec *d = NULL;
	struct wbuf b;
	struct err e;
	size_t msg = model_find(m, 0x12c01200), arr = MODEL_NONE;

	T_SECTION("decoder");
	err_init(&e);
	wbuf_init(&b);
	for (size_t i = 0; i < model_count(m); i++)
		if (model_obj(m, i)->kind == MODEL_OBJ_ARRAY)
			arr = i;
	T_CHECK(msg != MODEL_NONE && arr != MODEL_NONE, "the fixture has the second Msg and an Object[]");
	T_EQ_I(dec_open(&d, m, &e), 0);
	if (!d || msg == MODEL_NONE || arr == MODEL_NONE)
		return;
	T_EQ_I(dec_object_text(d, msg, 200, &b, &e), 0);
	wbuf_u8(&b, 0);
	T_EQ_S((const char *)b.data, "text=\"secret\" next=Msg{text=\"hello\"} id=8 seen=true");
	wbuf_reset(&b);
	T_EQ_I(dec_object_json(d, msg, 1, &b, &e), 0);
	wbuf_u8(&b, 0);
	T_EQ_S((const char *)b.data,
	       "{\"addr\":\"0x12c01200\",\"class\":\"Msg\",\"state\":\"allocated/intact/unknown\",\"fields\":{"
	       "\"text\":{\"addr\":\"0x12c01300\",\"text\":\"secret\"},\"next\":{\"addr\":\"0x12c01000\",\"class\":\"Msg\","
	       "\"object\":{\"addr\":\"0x12c01000\",\"class\":\"Msg\",\"state\":\"allocated/intact/unknown\",\"fields\":{"
	       "\"text\":{\"addr\":\"0x12c01100\",\"text\":\"hello\"},\"next\":null,\"id\":7,\"seen\":true,"
	       "\"shadow$_monitor_\":0}}},\"id\":8,\"seen\":true,\"shadow$_monitor_\":0}}");
	wbuf_reset(&b);
	T_EQ_I(dec_object_text(d, arr, 200, &b, &e), 0);
	wbuf_u8(&b, 0);
	T_EQ_S((const char *)b.data, "[2] Msg{text=\"hello\"}, null");
	wbuf_reset(&b);
	T_EQ_I(dec_object_text(d, msg, 12, &b, &e), 0);   /* cut on a character, marked */
	wbuf_u8(&b, 0);
	T_EQ_S((const char *)b.data, "text=\"secret...");
	test_ref_text(d, m, msg, &b, &e);
	wbuf_reset(&b);
	dec_time_iso(1700000060123, &b);
	dec_time_iso(-1, &b);
	wbuf_u8(&b, 0);
	T_EQ_S((const char *)b.data, "2023-11-14T22:14:20.123Z1969-12-31T23:59:59.999Z");
	T_CHECK(dec_time_named("createdAt") && dec_time_named("lastSeenMillis") && dec_time_named("timestamp") &&
		!dec_time_named("id") && !dec_time_named("count"), "time names: createdAt, lastSeenMillis, timestamp; not id, count");
	dec_close(d);
	wbuf_release(&b);
}

/* A char field's text form (table cells: report.html, `show`): 'c', as Java writes the
 * literal, beside its JSON form ("c"); escapes inside the quotes; a surrogate half as its
 * unit.  (The text form once wrapped the JSON form: '"c"'.) */
static void test_char_text(void)
{
	static const struct { int64_t unit; const char *text, *json; } cases[] = {
		{ 'Q', "'Q'", "\"Q\"" },
		{ '\'', "'\\''", "\"'\"" },
		{ '"', "'\\\"'", "\"\\\"\"" },
		{ '\\', "'\\\\'", "\"\\\\\"" },
		{ '\n', "'\\n'", "\"\\n\"" },
		{ 0, "'\\u0000'", "\"\\u0000\"" },
		{ 0xe9, "'\xc3\xa9'", "\"\xc3\xa9\"" },
		{ 0x20ac, "'\xe2\x82\xac'", "\"\xe2\x82\xac\"" },
		{ 0xd83d, "'\\uD83D'", "55357" },
	};
	struct dec_value v;
	struct wbuf b;
	uint8_t le[2];

	T_SECTION("a char's text and JSON forms");
	wbuf_init(&b);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(&v, 0, sizeof(v));
		v.kind = DEC_CHAR;
		v.i = cases[i].unit;
		wbuf_reset(&b);
		dec_value_text(&v, &b);
		wbuf_u8(&b, 0);
		printf("   U+%04llX: text %s\n", (unsigned long long)cases[i].unit, (const char *)b.data);
		T_EQ_S((const char *)b.data, cases[i].text);
		le[0] = (uint8_t)cases[i].unit;
		le[1] = (uint8_t)(cases[i].unit >> 8);
		wbuf_reset(&b);
		dec_prim_json(&b, 'C', le);
		wbuf_u8(&b, 0);
		T_EQ_S((const char *)b.data, cases[i].json);
	}
	wbuf_release(&b);
}

/* The number formatters against printf: wbuf_dec / wbuf_hex at their edges, and
 * dec_json_real against its definition ("%.*g" from 6 (float) or 15 (double) digits up, the
 * first that reads back) over random bit patterns, short decimals, whole numbers, powers of
 * ten around the plain / exponent switch, carries (9.9999..), subnormals and the extremes. */
static void ref_real(char *out, size_t n, double v, bool is_float)
{
	for (int prec = is_float ? 6 : 15; prec <= 17; prec++) {
		snprintf(out, n, "%.*g", prec, v);
		double back = strtod(out, NULL);
		if (is_float ? (float)back == (float)v : back == v)
			return;
	}
}

static uint64_t rnd_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* 1 when dec_json_real(v) differs from ref_real(v) (printed), else 0 */
static unsigned real_differs(struct wbuf *b, double v, bool is_float)
{
	char want[64];
	if (isnan(v) || isinf(v))
		return 0;
	ref_real(want, sizeof(want), v, is_float);
	wbuf_reset(b);
	dec_json_real(b, v, is_float);
	wbuf_u8(b, 0);
	if (!strcmp((const char *)b->data, want))
		return 0;
	printf("  %s %.17g: got %s, printf %s\n", is_float ? "float" : "double", v, (const char *)b->data, want);
	return 1;
}

static unsigned real_both(struct wbuf *b, double v)
{
	return real_differs(b, v, false) + real_differs(b, (float)v, true) + real_differs(b, -v, false);
}

static void test_numbers(void)
{
	static const uint64_t dec[] = { 0, 9, 10, 99, 100, 101, 999, 1000, 4294967295u, UINT64_MAX };
	struct wbuf b;
	char want[64];
	uint64_t s = 0x9e3779b97f4a7c15ull;
	unsigned bad = 0, tried = 0;

	T_SECTION("numbers without printf");
	wbuf_init(&b);
	for (size_t i = 0; i < sizeof(dec) / sizeof(dec[0]); i++) {
		wbuf_reset(&b);
		wbuf_dec(&b, dec[i]);
		wbuf_u8(&b, ' ');
		wbuf_hex(&b, dec[i]);
		wbuf_u8(&b, 0);
		snprintf(want, sizeof(want), "%llu %llx", (unsigned long long)dec[i], (unsigned long long)dec[i]);
		T_EQ_S((const char *)b.data, want);
	}
	for (unsigned i = 0; i < 40000; i++, tried += 2) {
		uint64_t r = rnd_next(&s);
		double d;
		float f;
		uint32_t u = (uint32_t)r;
		memcpy(&d, &r, sizeof(d));
		memcpy(&f, &u, sizeof(f));
		bad += real_differs(&b, d, false) + real_differs(&b, f, true);
	}
	for (int e = -330; e <= 310; e++, tried += 9) {
		double p = pow(10, e);
		bad += real_both(&b, p) + real_both(&b, p * 9.9999999999999995) + real_both(&b, p * 1.5);
	}
	for (unsigned i = 0; i < 10000; i++, tried += 6)
		bad += real_both(&b, (double)(rnd_next(&s) % 2000001) / 1000.0) +
		       real_both(&b, (double)(int64_t)(rnd_next(&s) % 100000000000000000ull));
	/* powers of two (an interval half as wide below) and decimals of 16 digits, the two
	 * cases around dec_json_real's single test at 16 digits */
	for (int e = -1074; e <= 1023; e++, tried += 6)
		bad += real_both(&b, ldexp(1, e)) + real_both(&b, nextafter(ldexp(1, e), INFINITY));
	for (unsigned i = 0; i < 20000; i++, tried += 3)
		bad += real_both(&b, (double)(rnd_next(&s) % 10000000000000000ull) * pow(10, (int)(rnd_next(&s) % 40) - 20));
	tried += 15;
	bad += real_both(&b, 5e-324) + real_both(&b, 2.2250738585072014e-308) + real_both(&b, 1.7976931348623157e308) +
	       real_both(&b, 0.0001) + real_both(&b, 0.00001);
	printf("   %u values formatted, %u differ from printf's shortest %%.*g\n", tried, bad);
	T_EQ_U(bad, 0);
	wbuf_release(&b);
}

int main(void)
{
	struct anomaly_sink sink;
	struct model m;
	struct referrers r;

	test_escape();
	test_numbers();
	test_char_text();
	build(&m, &sink);
	test_wtf8();
	test_referrers(&m, &r);
	test_outputs(&m, &r);
	test_decoder(&m);
	referrers_release(&r);
	model_release(&m);
	anomaly_release(&sink);
	img_close(&img);
	T_DONE();
}
