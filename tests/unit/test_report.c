/* test_report.c - report.html's escaper and writer (output/report/report_html.c) and the
 * unit recorder of the heap map (output/report/report_units.c): hostile strings (markup,
 * quotes, invalid UTF-8, encoded surrogates, control bytes) come out as inert, valid UTF-8
 * text; the writer's blocks reach the file whole; units are kept as the walk gives them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "output/report/report_html.h"
#include "output/report/report_map.h"
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

/* Runs report_map_write on m into a file and returns its text (malloc'd), NULL on failure. */
static char *map_text(const struct model *m, const struct report_units *u, const struct anomaly_sink *sink)
{
	char dest[] = "/tmp/test_report_map.XXXXXX";
	const struct anomaly_sink *sinks[1] = { sink };
	struct report_html h;
	struct outf out;
	struct err e;
	char *text = NULL;
	long n;
	FILE *fp;
	int fd = mkstemp(dest), rc;

	if (fd < 0)
		return NULL;
	close(fd);
	err_init(&e);
	outf_init(&out);
	rc = outf_open(&out, dest, &e);
	report_html_init(&h, &out, &e);
	if (rc == 0)
		rc = report_map_write(&h, m, u, sinks, 1, &e);
	if (report_html_finish(&h) == 0 && rc == 0 && outf_commit(&out, &e) == 0 && (fp = fopen(dest, "rb"))) {
		fseek(fp, 0, SEEK_END);
		n = ftell(fp);
		rewind(fp);
		if (n >= 0 && (text = calloc(1, (size_t)n + 1)) && fread(text, 1, (size_t)n, fp) != (size_t)n) {
			free(text);
			text = NULL;
		}
		fclose(fp);
	}
	outf_abort(&out);
	unlink(dest);
	T_CHECK(text != NULL, "map written: %s", e.msg);
	return text;
}

static size_t count(const char *s, const char *needle)
{
	size_t n = 0;
	for (const char *p = s; p && (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* A RosAlloc space (captured, one run with a live and a dropped object and an anomaly, then
 * free pages), a dlmalloc space not captured (drawn by pages) and a region space of 5000
 * units (drawn 3 to a cell). */
static double fake_now;
static double fake_clock(void) { return fake_now += 1.0; }   /* a second per read: every tick draws */

/* The map is report.html's pass over every object: carve's progress line gets its percent
 * from it, here with a clock that makes every tick draw (no dependence on real time). */
static void test_map_progress(const struct model *base, const struct report_units *u, const struct anomaly_sink *sink)
{
	struct model_obj objs[8];
	struct model m = *base;
	struct progress prog;
	char *out = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&out, &len);

	T_SECTION("heap map: report.html's progress");
	if (!fp) {
		T_CHECK(0, "open_memstream");
		return;
	}
	for (uint32_t i = 0; i < 8; i++)   /* 8 KiB each: 64 KiB, the progress's smallest step */
		objs[i] = (struct model_obj){ .addr = 0x12c00000 + i * 0x2000, .size = 0x2000, .alloc = MODEL_ALLOCATED,
					      .reach = MODEL_REACHABLE };
	m.objs = objs;
	m.count = 8;
	progress_init(&prog, fp, "carve");
	prog.clock = fake_clock;
	prog.begin = fake_now = 100.0;
	progress_phase(&prog, "writing report.html", 8 * 0x2000);
	m.progress = &prog;
	free(map_text(&m, u, sink));
	progress_end(&prog);
	fclose(fp);
	printf("progress: %s\n", out ? out : "");
	T_EQ_U(prog.done, 8 * 0x2000);
	T_CHECK(out && strstr(out, "carve: writing report.html  100%"), "a line with the percent: %s", out ? out : "");
	free(out);
}

static void test_map(void)
{
	static uint8_t heap[0x10000];
	struct art_space sp[6] = { { 0 } };
	struct model_obj objs[2] = { { 0 } };
	struct art_runtime rt = { 0 };
	struct model m = { 0 };
	struct image img;
	struct report_units u;
	struct walk_unit wu = { 0 };
	struct anomaly_sink sink;
	struct err e;
	char *text, *again, *region;

	T_SECTION("heap map");
	err_init(&e);
	img_init_empty(&img, "map");
	T_EQ_I(img_add_region_mem(&img, 0x12c00000, heap, sizeof(heap), IMG_PROT_R | IMG_PROT_W, "main space", &e), 0);
	sp[0] = (struct art_space){ .kind = SPACE_ROSALLOC, .begin = 0x12c00000, .end = 0x12c10000, .name = "main <space>" };
	sp[1] = (struct art_space){ .kind = SPACE_DLMALLOC, .begin = 0x13000000, .end = 0x13003000, .name = "non moving" };
	sp[2] = (struct art_space){ .kind = SPACE_REGION, .begin = 0x20000000, .end = 0x20000000 + 5000u * 0x40000u, .name = "" };
	sp[3] = (struct art_space){ .kind = SPACE_CARD_TABLE, .begin = 0x30000000, .end = 0x30001000, .name = "card table" };
	sp[4] = (struct art_space){ .kind = SPACE_LOS_MAP, .begin = 0x40000000, .end = 0x40010000, .name = "los" };
	sp[5] = (struct art_space){ .kind = SPACE_LOS_ALLOCATION, .begin = 0x40004000, .end = 0x40009000, .name = "alloc" };
	rt.img = &img;
	rt.spaces.v = sp;
	rt.spaces.count = 6;
	objs[0] = (struct model_obj){ .addr = 0x12c00000, .size = 16, .alloc = MODEL_ALLOCATED, .reach = MODEL_REACHABLE };
	objs[1] = (struct model_obj){ .addr = 0x12c00010, .size = 16, .alloc = MODEL_ALLOCATED, .reach = MODEL_UNREACHABLE };
	m.rt = &rt;
	m.objs = objs;
	m.count = 2;
	anomaly_init(&sink, 0);
	anomaly_add(&sink, ANOM_SLOT, ERR_CORRUPT, 0x12c00020, "main space", "a free slot not zero");
	/* a candidate rejected in free memory is no damage: no red cell for it (dlmalloc span) */
	anomaly_add(&sink, ANOM_OBJ_CLASS, ERR_CORRUPT, 0x13000010, "non moving space",
		    "candidate at 0x13000010 (" MODEL_FREE_CANDIDATE " room 32): class word names no Class: 0x1");
	report_units_init(&u);
	wu = (struct walk_unit){ .kind = WALK_UNIT_RUN, .space = &sp[0], .begin = 0x12c00000, .end = 0x12c01000,
				 .bracket = 1, .slot_size = 16, .slots = 256, .allocated = 2, .free = 254 };
	T_EQ_I(report_units_add(&u, &wu, &e), 0);
	wu = (struct walk_unit){ .kind = WALK_UNIT_FREE_PAGES, .space = &sp[0], .begin = 0x12c01000, .end = 0x12c10000 };
	T_EQ_I(report_units_add(&u, &wu, &e), 0);
	wu = (struct walk_unit){ .kind = WALK_UNIT_CHUNK_SPAN, .space = &sp[1], .begin = 0x13000000, .end = 0x13003000 };
	T_EQ_I(report_units_add(&u, &wu, &e), 0);
	wu = (struct walk_unit){ .kind = WALK_UNIT_LOS, .space = &sp[5], .begin = 0x40004000, .end = 0x40009000 };
	T_EQ_I(report_units_add(&u, &wu, &e), 0);
	for (uint32_t i = 0; i < 5000; i++) {   /* in reverse: the map sorts by address */
		uint64_t b = sp[2].begin + (uint64_t)(4999 - i) * 0x40000;
		wu = (struct walk_unit){ .kind = WALK_UNIT_REGION, .space = &sp[2], .begin = b, .end = b + 0x40000,
					 .state = WALK_RS_FREE };
		T_EQ_I(report_units_add(&u, &wu, &e), 0);
	}

	text = map_text(&m, &u, &sink);
	again = map_text(&m, &u, &sink);
	if (text && again) {
		printf("map: %zu bytes, %zu cells\n", strlen(text), count(text, "\"><title>"));
		T_CHECK(!strcmp(text, again), "the same map twice");
		/* the card table is no object space; the map LOS draws its allocation */
		T_EQ_U(count(text, "<g class=\"space\""), 4);
		T_CHECK(strstr(text, "los 0x40000000-0x40010000, 65536 bytes: 1 units</text>\n<g data-b=\"0x40004000\" "
				"data-e=\"0x40009000\"><title>0x40004000-0x40009000 los:"),
			"the map LOS with its allocation, its bounds on the cell for the page's script");
		T_CHECK(strstr(text, "main &lt;space&gt;") && !strstr(text, "main <space>"), "space name escaped");
		T_CHECK(strstr(text, "0x12c00000-0x12c01000 run, bracket 1, 16-byte slots, 2 allocated and 254 free slots: "
					"1 live, 1 dropped, 0 reach unknown, 0 free, 32 of 4096 bytes in objects, 4096 "
					"captured; 1 anomalies") != NULL, "the run's title");
		/* 16 of 4096 bytes: under a pixel, drawn 1 wide so a single object shows */
		T_CHECK(strstr(text, "<rect class=\"l\" x=\"0\" y=\"20\" width=\"1\" height=\"10\"/>"
					"<rect class=\"d\" x=\"1\" y=\"20\" width=\"1\"") != NULL, "live then dropped, 1 wide each");
		T_EQ_U(count(text, "<rect class=\"a\""), 1);
		/* not captured: the three dlmalloc pages, the 1667 region cells, the large object */
		T_EQ_U(count(text, "<rect class=\"n\""), 3 + 1667 + 1);
		T_CHECK(strstr(text, "http") == NULL, "no http in the map");
		region = strstr(text, "data-space=\"2\"");
		if (region && strstr(region, "<g class=\"space\""))   /* the region space's group alone */
			*strstr(region, "<g class=\"space\"") = 0;
		T_CHECK(region && strstr(region, "5000 units, 3 to a cell"), "region space heading");
		T_EQ_U(region ? count(region, "\"><title>") : 0, 1667);
		T_CHECK(region && strstr(region, "<title>0x20000000-0x200c0000 3 units:"), "first region cell: 3 regions");
	}
	free(text);
	free(again);
	test_map_progress(&m, &u, &sink);
	report_units_release(&u);
	anomaly_release(&sink);
	img_close(&img);
}

int main(void)
{
	test_escape();
	test_writer();
	test_units();
	test_map();
	T_DONE();
}
