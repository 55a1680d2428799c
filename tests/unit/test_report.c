/* test_report.c - report.html's escaper and writer (output/report/report_html.c) and the
 * unit recorder of the heap map (output/report/report_units.c): hostile strings (markup,
 * quotes, invalid UTF-8, encoded surrogates, control bytes) come out as inert, valid UTF-8
 * text; the writer's blocks reach the file whole; units are kept as the walk gives them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "output/report/report_html.h"
#include "output/report/report_units.h"
#include "tests/unit/t.h"

/* The escaped form of n bytes of s, NUL-terminated, in a static buffer. */
static const char *esc(const char *s, size_t n)
{
	static char out[512];
	struct wbuf b, scratch;
	wbuf_init(&b);
	wbuf_init(&scratch);
	report_html_escape(&b, &scratch, (const uint8_t *)s, n);
	snprintf(out, sizeof(out), "%.*s", (int)b.len, b.data ? (const char *)b.data : "");
	wbuf_release(&b);
	wbuf_release(&scratch);
	return out;
}

#define ESC(lit) esc(lit, sizeof(lit) - 1)

static void test_escape(void)
{
	T_SECTION("escape");
	T_EQ_S(ESC("plain text 123"), "plain text 123");
	T_EQ_S(ESC("<script>alert(1)</script>"), "&lt;script&gt;alert(1)&lt;/script&gt;");
	T_EQ_S(ESC("\"><img onerror='x'>"), "&quot;&gt;&lt;img onerror=&#39;x&#39;&gt;");
	T_EQ_S(ESC("a&amp;b"), "a&amp;amp;b");
	/* valid UTF-8 passes through */
	T_EQ_S(ESC("Gr\xc3\xbc\xc3\x9f" "e \xd0\x9f"), "Gr\xc3\xbc\xc3\x9f" "e \xd0\x9f");
	/* invalid UTF-8: a lone continuation byte, a truncated sequence, an overlong '<' */
	T_EQ_S(ESC("a\x80z"), "a\xef\xbf\xbdz");
	T_EQ_S(ESC("a\xe2\x82"), "a\xef\xbf\xbd");
	T_EQ_S(ESC("\xc0\xbcscript"), "\xef\xbf\xbd\xef\xbf\xbdscript");
	/* an encoded surrogate (CESU / modified UTF-8) is not valid UTF-8 */
	T_CHECK(strstr(ESC("x\xed\xa0\x80y"), "\xed\xa0") == NULL, "surrogate bytes replaced: %s", ESC("x\xed\xa0\x80y"));
	/* control bytes become visible Control Pictures: NUL, tab, newline, ESC, DEL */
	T_EQ_S(esc("a\0b", 3), "a\xe2\x90\x80" "b");
	T_EQ_S(ESC("\t\n\x1b\x7f"), "\xe2\x90\x89\xe2\x90\x8a\xe2\x90\x9b\xe2\x90\xa1");
	T_EQ_S(ESC(""), "");
}

static void test_writer(void)
{
	char path[] = "/tmp/test_report.XXXXXX", dest[64];
	struct report_html h;
	struct outf out;
	struct err e;
	static char buf[300000];
	size_t n;
	FILE *fp;
	int fd = mkstemp(path);

	T_SECTION("writer");
	T_CHECK(fd >= 0, "mkstemp");
	if (fd < 0)
		return;
	close(fd);
	unlink(path);
	snprintf(dest, sizeof(dest), "%s.html", path);
	err_init(&e);
	outf_init(&out);
	T_EQ_I(outf_open(&out, dest, &e), 0);
	report_html_init(&h, &out, &e);
	report_html_raw(&h, "<p>");
	for (int i = 0; i < 20000; i++)    /* past the flush size several times */
		report_html_str(&h, "<&>");
	report_html_printf(&h, "%d</p>", 42);
	report_html_str(&h, NULL);
	T_EQ_I(report_html_finish(&h), 0);
	T_EQ_I(outf_commit(&out, &e), 0);
	outf_abort(&out);
	fp = fopen(dest, "rb");
	n = fp ? fread(buf, 1, sizeof(buf) - 1, fp) : 0;
	if (fp)
		fclose(fp);
	buf[n] = 0;
	T_EQ_U(n, 3 + 20000 * 13 + 6 + 1);
	T_CHECK(!strncmp(buf, "<p>&lt;&amp;&gt;&lt;", 20), "start: %.20s", buf);
	T_CHECK(n >= 7 && !strcmp(buf + n - 7, "42</p>?"), "end: %s", n >= 7 ? buf + n - 7 : buf);
	unlink(dest);
}

static void test_units(void)
{
	struct art_space sp = { 0 };
	struct walk_unit wu = { 0 };
	struct report_units u;
	struct err e;

	T_SECTION("units");
	err_init(&e);
	report_units_init(&u);
	for (uint32_t i = 0; i < 1000; i++) {
		wu.kind = i % 2 ? WALK_UNIT_RUN : WALK_UNIT_REGION;
		wu.space = &sp;
		wu.begin = 0x12c00000u + i * 0x1000u;
		wu.end = wu.begin + 0x1000;
		wu.bracket = (int)(i % 40);
		wu.slot_size = 16;
		wu.allocated = i == 999 ? (uint64_t)1 << 40 : i;   /* saturates */
		wu.state = WALK_RS_ALLOCATED;
		T_CHECK(report_units_add(&u, &wu, &e) == 0, "add %u: %s", i, e.msg);
	}
	T_EQ_U(u.count, 1000);
	T_EQ_U(u.v[3].begin, 0x12c03000u);
	T_EQ_U(u.v[3].kind, WALK_UNIT_RUN);
	T_EQ_I(u.v[3].bracket, 3);
	T_EQ_U(u.v[3].slot_size, 16);
	T_EQ_I(u.v[4].bracket, -1);            /* not a run */
	T_EQ_U(u.v[4].slot_size, 0);
	T_EQ_U(u.v[4].state, WALK_RS_ALLOCATED);
	T_EQ_U(u.v[999].allocated, UINT32_MAX);
	T_CHECK(u.v[0].space == &sp, "space kept");
	report_units_release(&u);
	T_EQ_U(u.count, 0);
}

int main(void)
{
	test_escape();
	test_writer();
	test_units();
	T_DONE();
}
