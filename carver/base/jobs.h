/* jobs.h - a fixed set of jobs run on up to N threads (POSIX threads), each one only after
 * the jobs it waits for have succeeded.  For independent passes over read-only data (carve's
 * output writers): what a job writes must be its own; the order jobs run in is not fixed,
 * so nothing a job produces may depend on it.
 *
 * A job whose prerequisite failed does not run (its rc is JOBS_NOT_RUN).  jobs_run returns
 * when every job has ended; the caller then reads each job's rc and err in its own order,
 * so the error reported does not depend on timing. */
#ifndef ARTCARVE_JOBS_H
#define ARTCARVE_JOBS_H

#include <stdint.h>

#include "carver/base/err.h"

enum { JOBS_MAX = 32, JOBS_NOT_RUN = 1 };

struct jobs_job {
	int (*run)(void *arg, struct err *e);   /* 0 or -ERR_* (e filled) */
	void *arg;
	uint32_t after;          /* bit j: job j must have succeeded before this one starts */
	int rc;                  /* set by jobs_run: run's result, or JOBS_NOT_RUN */
	struct err err;          /* this job's error (each job has its own) */
};

/* Runs the n (<= JOBS_MAX) jobs of v on min(threads, n) threads, the caller's among them
 * (threads <= 1: all on the caller's, in index order, a prerequisite always having a lower
 * index or the job not running).  Returns 0, or -ERR_INTERNAL in *e when a thread cannot be
 * started (the jobs then run on fewer threads, all of them) or the table is invalid. */
int jobs_run(struct jobs_job *v, unsigned n, unsigned threads, struct err *e);
/* The number of online CPUs (sysconf), at least 1. */
unsigned jobs_cpus(void);

#endif
