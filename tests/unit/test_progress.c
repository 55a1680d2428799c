/* test_progress.c - carver/base/progress: silent in the first second and without a stream,
 * at most one redraw per PROGRESS_EVERY, '\r'-overwritten lines blanked to the longest one,
 * percent and MB/s, a final line with a newline only when something was shown. */
#include <stdbool.h>
#include <stdlib.h>

#include "carver/base/progress.h"
#include "t.h"

static double fake_now;
static double fake_clock(void) { return fake_now; }
static unsigned clock_reads;
static double counting_clock(void)
{
	clock_reads++;
	return fake_now;
}

struct cap {
	FILE *fp;
	char *buf;
	size_t len;
};

static void cap_open(struct cap *c)
{
	c->buf = NULL;
	c->len = 0;
	c->fp = open_memstream(&c->buf, &c->len);
}

static void cap_close(struct cap *c)
{
	fclose(c->fp);
	free(c->buf);
}

static size_t count_char(const char *s, size_t n, char ch)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		k += s[i] == ch;
	return k;
}

/* Whether some "NN%" in s has lo <= NN <= hi (the redraws fall where the clock says). */
static bool has_percent_between(const char *s, unsigned lo, unsigned hi)
{
	for (const char *q = strchr(s, '%'); q; q = strchr(q + 1, '%')) {
		const char *d = q;
		unsigned v = 0, scale = 1;
		while (d > s && d[-1] >= '0' && d[-1] <= '9') {
			v += (unsigned)(d[-1] - '0') * scale;
			scale *= 10;
			d--;
		}
		if (d < q && v >= lo && v <= hi)
			return true;
	}
	return false;
}

static void start(struct progress *p, FILE *fp)
{
	fake_now = 100.0;
	progress_init(p, fp, "carve");
	p->clock = fake_clock;
	p->begin = fake_now;
}

static void test_quick_run_silent(void)
{
	struct progress p;
	struct cap c;

	T_SECTION("a task shorter than the delay prints nothing, not even at the end");
	cap_open(&c);
	start(&p, c.fp);
	progress_phase(&p, "walking", 1000000);
	for (uint64_t d = 0; d <= 1000000; d += 1000) {
		fake_now += 0.0009;
		progress_to(&p, d);
	}
	progress_end(&p);
	fflush(c.fp);
	T_EQ_U(c.len, 0);
	cap_close(&c);
}

static void test_long_run(void)
{
	struct progress p;
	struct cap c;
	uint64_t total = 100u << 20;

	T_SECTION("a long task: redraws rate-limited, percent and MB/s, final newline");
	cap_open(&c);
	start(&p, c.fp);
	progress_phase(&p, "loading the image", 0);
	fake_now += 1.5;
	progress_phase(&p, "walking the spaces", total);
	fflush(c.fp);
	T_CHECK(c.len > 0 && strstr(c.buf, "\rcarve: walking the spaces") != NULL, "phase line: '%.*s'", (int)c.len,
		c.buf ? c.buf : "");
	/* 10 s of work in 1 ms clock steps: at most 10 / PROGRESS_EVERY + 1 redraws */
	for (uint64_t i = 1; i <= 10000; i++) {
		fake_now += 0.001;
		progress_to(&p, total / 10000 * i);
	}
	fflush(c.fp);
	size_t redraws = count_char(c.buf, c.len, '\r');
	T_CHECK(redraws >= 30 && redraws <= 2 + (size_t)(10 / PROGRESS_EVERY), "%zu redraws in 10 s", redraws);
	T_CHECK(has_percent_between(c.buf, 45, 55), "a line near 50%% is there");
	/* 100 MiB in 10 s: 10.5 MB/s */
	T_CHECK(strstr(c.buf, "  10 MB/s") != NULL || strstr(c.buf, "  11 MB/s") != NULL, "rate: %.*s",
		(int)(c.len > 60 ? 60 : c.len), c.buf + (c.len > 60 ? c.len - 60 : 0));
	T_EQ_U(count_char(c.buf, c.len, '\n'), 0);
	progress_phase(&p, "x", 0);  /* shorter than the previous line: blanked */
	fflush(c.fp);
	const char *last = strrchr(c.buf, '\r');
	T_CHECK(last && strlen(last) > strlen("\rcarve: walking the spaces  99%"), "short line padded: '%s'",
		last ? last : "");
	progress_end(&p);
	fflush(c.fp);
	T_CHECK(c.len > 0 && c.buf[c.len - 1] == '\n', "ends with a newline");
	T_EQ_U(count_char(c.buf, c.len, '\n'), 1);
	T_CHECK(strstr(c.buf, "carve: done in 11.5 s") != NULL, "final line: %s", strrchr(c.buf, '\r'));
	progress_end(&p);   /* a second end prints nothing more */
	fflush(c.fp);
	T_EQ_U(count_char(c.buf, c.len, '\n'), 1);
	cap_close(&c);
}

static void test_silent(void)
{
	struct progress p;

	T_SECTION("no stream: no clock reads, no output; NULL progress is a no-op");
	clock_reads = 0;
	progress_init(&p, NULL, "carve");
	p.clock = counting_clock;
	progress_phase(&p, "walking", 1000);
	for (uint64_t d = 0; d < 100000000; d += 4096)
		progress_to(&p, d);
	progress_end(&p);
	T_EQ_U(clock_reads, 0);
	progress_phase(NULL, "walking", 10);
	progress_to(NULL, 5);
	progress_end(NULL);   /* a NULL progress is accepted: nothing to check but not crashing */
}

static void test_clock_reads_bounded(void)
{
	struct progress p;
	struct cap c;
	uint64_t total = 1ull << 30;

	T_SECTION("the clock is read about once per step, not per call");
	cap_open(&c);
	start(&p, c.fp);
	p.clock = counting_clock;
	progress_phase(&p, "writing", total);
	clock_reads = 0;
	for (uint64_t d = 0; d <= total; d += 64)
		progress_to(&p, d);
	T_CHECK(clock_reads <= total / p.step + 1, "%u clock reads for %llu bytes (step %llu)", clock_reads,
		(unsigned long long)total, (unsigned long long)p.step);
	cap_close(&c);
}

int main(void)
{
	test_quick_run_silent();
	test_long_run();
	test_silent();
	test_clock_reads_bounded();
	T_DONE();
}
