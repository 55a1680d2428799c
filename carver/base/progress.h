/* progress.h - progress of a long task on a terminal: one line, overwritten with '\r', that
 * names the phase and gives its percent and rate ("carve: walking the spaces  42%  310 MB/s").
 *
 * Nothing is shown before the task has run PROGRESS_DELAY seconds (a quick run stays silent),
 * updates come at most every PROGRESS_EVERY seconds, and progress_end ends the line with a
 * newline only when something was shown.  A progress without a stream (fp NULL: stderr is no
 * terminal, or --quiet) never reads the clock and prints nothing.
 *
 * Work is counted in bytes (of heap walked, of objects checked or written, of input read):
 * progress_to is an inline comparison, cheap enough to call once per object; it reads the
 * clock only every `step` bytes. */
#ifndef ARTCARVE_PROGRESS_H
#define ARTCARVE_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define PROGRESS_DELAY 1.0      /* seconds of silence at the start of a task */
#define PROGRESS_EVERY 0.25     /* seconds between two updates of the line */

struct progress {
	FILE *fp;               /* NULL: silent */
	const char *task;       /* line prefix ("carve") */
	double (*clock)(void);  /* monotonic seconds (tests replace it) */
	double begin;           /* when the task began */
	double phase_begin, shown_at;
	char phase[64];         /* copied: the caller's text may be a reused buffer */
	uint64_t total;         /* bytes of work in this phase, 0 when not known */
	uint64_t done, next, step;
	int width;              /* characters of the line on screen */
	bool shown;             /* a line is on screen (progress_end adds the newline) */
};

/* Starts a task; fp NULL makes every later call a no-op. */
void progress_init(struct progress *p, FILE *fp, const char *task);
/* A new phase of `total` bytes (0: unknown, no percent); shown at once past the delay.  p may
 * be NULL. */
void progress_phase(struct progress *p, const char *phase, uint64_t total);
/* Slow path of progress_to: records done and redraws the line when it is time. */
void progress_tick(struct progress *p, uint64_t done);
/* Per thread: while true, progress_phase and progress_to do nothing on this thread.  Passes
 * run at once on several threads (carve's output writers) share one progress: all but one
 * are muted, so one thread alone draws the line. */
extern _Thread_local bool progress_muted;
/* `done` bytes of the phase are through (monotonic within a phase).  p may be NULL. */
static inline void progress_to(struct progress *p, uint64_t done)
{
	if (p && !progress_muted && done >= p->next)
		progress_tick(p, done);
}
/* Ends the task: when a line was shown, a last one ("carve: done in 6.2 s") and a newline,
 * so what is printed next starts on its own line.  p may be NULL. */
void progress_end(struct progress *p);

#endif
