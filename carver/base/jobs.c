/* jobs.c - see jobs.h. */
#include "carver/base/jobs.h"

#include <pthread.h>
#include <stdbool.h>
#include <unistd.h>

enum job_state { JOB_WAITING, JOB_RUNNING, JOB_DONE };

struct jobs {
	struct jobs_job *v;
	unsigned n;
	enum job_state state[JOBS_MAX];
	pthread_mutex_t lock;
	pthread_cond_t changed;   /* a job ended */
};

/* Under the lock: the first waiting job whose prerequisites all succeeded (a job whose
 * prerequisite failed or did not run is marked JOBS_NOT_RUN and DONE on the way); n when none
 * is ready.  *left: jobs not DONE. */
static unsigned jobs_pick(struct jobs *j, unsigned *left)
{
	unsigned pick = j->n;
	*left = 0;
	for (unsigned i = 0; i < j->n; i++) {
		if (j->state[i] == JOB_DONE)
			continue;
		(*left)++;
		if (j->state[i] != JOB_WAITING || pick < j->n)
			continue;
		bool ready = true, doomed = false;
		for (unsigned k = 0; k < j->n; k++) {
			if (!(j->v[i].after & 1u << k))
				continue;
			ready = ready && j->state[k] == JOB_DONE;
			doomed = doomed || (j->state[k] == JOB_DONE && j->v[k].rc != 0);
		}
		if (doomed) {
			j->v[i].rc = JOBS_NOT_RUN;
			j->state[i] = JOB_DONE;
			(*left)--;
			pthread_cond_broadcast(&j->changed);
		} else if (ready) {
			pick = i;
		}
	}
	return pick;
}

static void *jobs_worker(void *arg)
{
	struct jobs *j = arg;
	pthread_mutex_lock(&j->lock);
	for (;;) {
		unsigned left, i = jobs_pick(j, &left);
		if (left == 0)
			break;
		if (i == j->n) {   /* every job left runs or waits for a running one */
			pthread_cond_wait(&j->changed, &j->lock);
			continue;
		}
		j->state[i] = JOB_RUNNING;
		pthread_mutex_unlock(&j->lock);
		err_init(&j->v[i].err);
		int rc = j->v[i].run(j->v[i].arg, &j->v[i].err);
		pthread_mutex_lock(&j->lock);
		j->v[i].rc = rc;
		j->state[i] = JOB_DONE;
		pthread_cond_broadcast(&j->changed);
	}
	pthread_mutex_unlock(&j->lock);
	return NULL;
}

/* A prerequisite outside the table, or itself or a later job on one thread: refused. */
static bool jobs_valid(const struct jobs_job *v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (v[i].after >> i)   /* only lower indexes: no cycle can form */
			return false;
	return true;
}

int jobs_run(struct jobs_job *v, unsigned n, unsigned threads, struct err *e)
{
	struct jobs j = { .v = v, .n = n };
	pthread_t tid[JOBS_MAX];
	unsigned started = 0;
	int rc = 0;

	if (n > JOBS_MAX || !jobs_valid(v, n))
		return ERR_SET(e, ERR_INTERNAL, ERR_NO_VA, "jobs_run: %u jobs, or a job waits for a later one", n);
	for (unsigned i = 0; i < n; i++) {
		j.state[i] = JOB_WAITING;
		v[i].rc = JOBS_NOT_RUN;
	}
	pthread_mutex_init(&j.lock, NULL);
	pthread_cond_init(&j.changed, NULL);
	for (unsigned t = 1; t < threads && t < n; t++) {
		if (pthread_create(&tid[started], NULL, jobs_worker, &j) != 0) {
			rc = ERR_SET(e, ERR_INTERNAL, ERR_NO_VA, "cannot start a thread: the jobs run on %u", started + 1);
			break;
		}
		started++;
	}
	jobs_worker(&j);
	for (unsigned t = 0; t < started; t++)
		pthread_join(tid[t], NULL);
	pthread_cond_destroy(&j.changed);
	pthread_mutex_destroy(&j.lock);
	return rc;
}

unsigned jobs_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (unsigned)n : 1;
}
