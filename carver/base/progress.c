/* progress.c - see progress.h. */
#include "carver/base/progress.h"

#include <string.h>
#include <time.h>

enum { PROGRESS_STEP_MIN = 1 << 16, PROGRESS_STEP_MAX = 1 << 22 };

static double progress_clock(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void progress_init(struct progress *p, FILE *fp, const char *task)
{
	memset(p, 0, sizeof(*p));
	p->fp = fp;
	p->task = task;
	p->clock = progress_clock;
	p->next = UINT64_MAX;   /* no phase yet */
	if (fp)
		p->begin = p->clock();
}

/* Draws the line; pads with blanks over what a longer previous line left. */
static void progress_draw(struct progress *p, double t, const char *text)
{
	int n = fprintf(p->fp, "\r%s", text);
	if (n > 0 && n - 1 < p->width)
		fprintf(p->fp, "%*s", p->width - (n - 1), "");
	fflush(p->fp);
	p->width = n > 0 ? n - 1 : p->width;
	p->shown_at = t;
	p->shown = true;
}

static void progress_show(struct progress *p, double t)
{
	char line[160];
	double secs = t - p->phase_begin;
	int n = snprintf(line, sizeof(line), "%s: %s", p->task, p->phase);

	if (n < 0 || (size_t)n >= sizeof(line))
		n = (int)sizeof(line) - 1;
	if (p->total && p->done)
		n += snprintf(line + n, sizeof(line) - (size_t)n, "  %3u%%",
			      (unsigned)(p->done >= p->total ? 100 : p->done * 100 / p->total));
	if (p->done && secs > 0 && (size_t)n < sizeof(line))
		snprintf(line + n, sizeof(line) - (size_t)n, "  %.0f MB/s", (double)p->done / 1e6 / secs);
	progress_draw(p, t, line);
}

_Thread_local bool progress_muted;

void progress_phase(struct progress *p, const char *phase, uint64_t total)
{
	uint64_t step = total / 1024;
	double t;

	if (!p || !p->fp || progress_muted)
		return;
	t = p->clock();
	snprintf(p->phase, sizeof(p->phase), "%s", phase);
	p->total = total;
	p->done = 0;
	p->phase_begin = t;
	p->step = step < PROGRESS_STEP_MIN ? PROGRESS_STEP_MIN : step > PROGRESS_STEP_MAX ? PROGRESS_STEP_MAX : step;
	p->next = p->step;
	if (t - p->begin >= PROGRESS_DELAY)
		progress_show(p, t);
}

void progress_tick(struct progress *p, uint64_t done)
{
	double t;

	if (!p->fp) {
		p->next = UINT64_MAX;
		return;
	}
	p->done = done;
	p->next = done + p->step;
	t = p->clock();
	if (t - p->begin >= PROGRESS_DELAY && t - p->shown_at >= PROGRESS_EVERY)
		progress_show(p, t);
}

void progress_end(struct progress *p)
{
	char line[96];
	double t;

	if (!p || !p->fp || !p->shown)
		return;
	t = p->clock();
	snprintf(line, sizeof(line), "%s: done in %.1f s", p->task, t - p->begin);
	progress_draw(p, t, line);
	fputc('\n', p->fp);
	fflush(p->fp);
	p->shown = false;
	p->fp = NULL;
}
