/* test_rep.c - the report writer (carver/base/rep.c): JSON members in written order with
 * ", " or one per line, nesting, escaping, numbers and hex addresses, NULL strings; text
 * "key: value" lines with the same calls; a report that continues someone else's list. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "carver/base/rep.h"
#include "tests/unit/t.h"

static char *buf;
static size_t len;

static FILE *open_buf(void)
{
	free(buf);
	buf = NULL;
	len = 0;
	return open_memstream(&buf, &len);
}

/* The same report in either mode. */
static void sample(struct rep *r)
{
	rep_open(r, NULL, false);
	rep_s(r, "name", "a\"b\\c\n\x01\x7f\xc3\xa9");
	rep_u(r, "count", 18446744073709551615ull);
	rep_i(r, "delta", -5);
	rep_hex(r, "address", 0x12c00000);
	rep_bool(r, "ok", true);
	rep_s(r, "none", NULL);
	rep_sn(r, "part", "abcdef", 3);
	rep_open(r, "inner", false);
	rep_bool(r, "no", false);
	rep_close(r);
	rep_open(r, "list", true);
	rep_u(r, NULL, 1);
	rep_s(r, NULL, "two");
	rep_close(r);
	rep_open(r, "empty", true);
	rep_close(r);
	rep_close(r);
}

static void test_json(void)
{
	struct rep r;
	FILE *fp = open_buf();

	T_SECTION("JSON on one line");
	rep_init(&r, fp, true);
	sample(&r);
	fclose(fp);
	const char *want = "{\"name\": \"a\\\"b\\\\c\\n\\u0001\\u007f\xc3\xa9\", \"count\": 18446744073709551615, "
			   "\"delta\": -5, \"address\": \"0x12c00000\", \"ok\": true, \"none\": null, \"part\": \"abc\", "
			   "\"inner\": {\"no\": false}, \"list\": [1, \"two\"], \"empty\": []}";
	T_CHECK(len == strlen(want) && !memcmp(buf, want, len), "got  %s\n  want %s", buf, want);
}

/* A name from an image (a maps line) with bytes that are no UTF-8: still valid JSON */
static void test_json_invalid_utf8(void)
{
	struct rep r;
	FILE *fp = open_buf();

	T_SECTION("JSON: bytes that are no UTF-8");
	rep_init(&r, fp, true);
	rep_open(&r, NULL, false);
	rep_s(&r, "name", "/data/app\xff\xfe.so \xe2\x80\xa8");
	rep_close(&r);
	fclose(fp);
	const char *want = "{\"name\": \"/data/app\\ufffd\\ufffd.so \\u2028\"}";
	printf("got %s\n", buf);
	T_CHECK(len == strlen(want) && !memcmp(buf, want, len), "got  %s\n  want %s", buf, want);
}

static void test_lines(void)
{
	struct rep r;
	FILE *fp = open_buf();

	T_SECTION("JSON one member per line");
	rep_init(&r, fp, true);
	rep_open_lines(&r, NULL, false);
	rep_s(&r, "a", "x");
	rep_open_lines(&r, "items", true);
	rep_open(&r, NULL, false);
	rep_u(&r, "n", 1);
	rep_open_lines(&r, "sub", true);
	rep_u(&r, NULL, 7);
	rep_close(&r);
	rep_close(&r);
	rep_open(&r, NULL, false);
	rep_close(&r);
	rep_close(&r);
	rep_open_lines(&r, "none", true);
	rep_close(&r);
	rep_close(&r);
	fclose(fp);
	const char *want = "{\n  \"a\": \"x\",\n  \"items\": [\n    {\"n\": 1, \"sub\": [\n      7\n    ]},\n    {}\n  ],\n"
			   "  \"none\": []\n}";
	T_CHECK(len == strlen(want) && !memcmp(buf, want, len), "got\n%s\nwant\n%s", buf, want);
}

static void test_text(void)
{
	struct rep r;
	FILE *fp = open_buf();

	T_SECTION("text key: value lines");
	rep_init(&r, fp, false);
	sample(&r);
	rep_line(&r, "free %d", 3);
	fclose(fp);
	const char *want = "-\n  name: a\"b\\c\n\x01\x7f\xc3\xa9\n  count: 18446744073709551615\n  delta: -5\n"
			   "  address: 0x12c00000\n  ok: yes\n  none: -\n  part: abc\n  inner:\n    no: no\n  list:\n"
			   "    1\n    two\n  empty:\nfree 3\n";
	T_CHECK(len == strlen(want) && !memcmp(buf, want, len), "got\n%s\nwant\n%s", buf, want);
}

static void test_items(void)
{
	struct rep r;
	FILE *fp = open_buf();

	T_SECTION("continuing a list");
	for (int i = 0; i < 3; i++) {
		rep_init_item(&r, fp, true, i == 0);
		rep_open(&r, NULL, false);
		rep_u(&r, "i", (uint64_t)i);
		rep_close(&r);
	}
	rep_init(&r, fp, true);
	rep_line(&r, "ignored in JSON");
	fclose(fp);
	const char *want = "{\"i\": 0}, {\"i\": 1}, {\"i\": 2}";
	T_CHECK(len == strlen(want) && !memcmp(buf, want, len), "got  %s\n  want %s", buf, want);
}

int main(void)
{
	test_json();
	test_json_invalid_utf8();
	test_lines();
	test_text();
	test_items();
	free(buf);
	T_DONE();
}
