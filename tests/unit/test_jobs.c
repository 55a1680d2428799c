/* test_jobs.c - jobs_run: every job runs once, never before the jobs it waits for; a failed
 * prerequisite keeps its dependents from running (JOBS_NOT_RUN) and no other job; the same
 * on 1, 2 and more threads than jobs; a table where a job waits for a later one is refused. */
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>

#include "carver/base/jobs.h"
#include "t.h"

enum { N = 6 };

struct probe {
	atomic_uint clock;        /* a tick per job start and end */
	unsigned start[N], end[N];
	atomic_uint runs[N];
	int fail;                 /* the job that fails, -1 none */
};

struct job_arg {
	struct probe *p;
	unsigned i;
};

static int job(void *arg, struct err *e)
{
	struct job_arg *a = arg;
	a->p->start[a->i] = atomic_fetch_add(&a->p->clock, 1);
	atomic_fetch_add(&a->p->runs[a->i], 1);
	usleep(2000 * (N - a->i));   /* early jobs last longest: a wrong order would show */
	a->p->end[a->i] = atomic_fetch_add(&a->p->clock, 1);
	if ((int)a->i == a->p->fail)
		return ERR_SET(e, ERR_IO, ERR_NO_VA, "job %u fails", a->i);
	return 0;
}

/* job 2 after 0; 3 after 0 and 1; 5 after 3; 1 and 4 after none */
static const uint32_t after[N] = { 0, 0, 1u << 0, 1u << 0 | 1u << 1, 0, 1u << 3 };

/* True when job i waits for job k, directly or through another */
static bool waits_for(unsigned i, int k)
{
	for (unsigned j = 0; k >= 0 && j < N; j++)
		if (after[i] & 1u << j && ((int)j == k || waits_for(j, k)))
			return true;
	return false;
}

static void run(unsigned threads, int fail)
{
	struct probe p = { .fail = fail };
	struct job_arg a[N];
	struct jobs_job v[N];
	struct err e;

	printf("-- %u thread(s), job %d fails\n", threads, fail);
	for (unsigned i = 0; i < N; i++) {
		a[i] = (struct job_arg){ &p, i };
		v[i] = (struct jobs_job){ .run = job, .arg = &a[i], .after = after[i] };
	}
	err_init(&e);
	T_EQ_I(jobs_run(v, N, threads, &e), 0);
	for (unsigned i = 0; i < N; i++) {
		bool doomed = waits_for(i, fail);
		printf("job %u: rc %d, ran %u time(s)%s\n", i, v[i].rc, atomic_load(&p.runs[i]),
		       doomed ? " (a prerequisite failed)" : "");
		T_EQ_U(atomic_load(&p.runs[i]), doomed ? 0 : 1);
		T_EQ_I(v[i].rc, doomed ? JOBS_NOT_RUN : (int)i == fail ? -ERR_IO : 0);
		if ((int)i == fail) {
			char want[32];
			snprintf(want, sizeof(want), "job %u fails", i);
			T_EQ_S(v[i].err.msg, want);
		}
		for (unsigned k = 0; !doomed && k < N; k++)
			if (after[i] & 1u << k)
				T_CHECK(p.end[k] < p.start[i], "job %u started (%u) before job %u ended (%u)", i, p.start[i], k,
					p.end[k]);
	}
}

int main(void)
{
	struct jobs_job bad[2] = { { .run = job, .after = 1u << 1 }, { .run = job } };
	struct err e;

	for (unsigned t = 1; t <= 8; t *= 2) {
		run(t, -1);
		run(t, 0);
		run(t, 1);
		run(t, 3);
	}
	T_SECTION("a job that waits for a later one");
	err_init(&e);
	T_EQ_I(jobs_run(bad, 2, 2, &e), -ERR_INTERNAL);
	printf("refused: %s\n", e.msg);
	printf("online CPUs: %u\n", jobs_cpus());
	T_CHECK(jobs_cpus() >= 1, "jobs_cpus %u", jobs_cpus());
	T_DONE();
}
