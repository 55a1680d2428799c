/* carve.c - the carving pipeline (see carve.h). */
#include "carver/cli/carve.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "carver/base/outfile.h"
#include "carver/base/xalloc.h"
#include "rosalloc/probe/probe.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void phase(const struct carve_opts *o, const char *what)
{
	if (o->progress)
		fprintf(stderr, "carve: %s\n", what);
}

/* Captured bytes of the spaces that hold objects (what the walkers read). */
static uint64_t heap_bytes(const struct art_runtime *rt)
{
	uint64_t n = 0;
	for (size_t i = 0; i < rt->spaces.count; i++) {
		const struct art_space *s = &rt->spaces.v[i];
		if (!spaces_holds_objects(s->kind) || s->kind == SPACE_LOS_MAP)
			continue;
		for (size_t j = 0; j < rt->img->region_count; j++) {
			const struct img_region *r = &rt->img->regions[j];
			uint64_t lo = r->start > s->begin ? r->start : s->begin;
			uint64_t hi = r->start + r->data_len < s->end ? r->start + r->data_len : s->end;
			if (r->data && hi > lo)
				n += hi - lo;
		}
	}
	return n;
}

/* RssAnon of /proc/self/status (kB), 0 when not there: the model's own memory, as opposed
 * to the image's file pages the kernel maps in and can drop at will. */
static uint64_t rss_anon_kb(void)
{
	FILE *fp = fopen("/proc/self/status", "r");
	char line[256];
	unsigned long long kb = 0;
	if (!fp)
		return 0;
	while (fgets(line, sizeof(line), fp))
		if (sscanf(line, "RssAnon: %llu kB", &kb) == 1)
			break;
	fclose(fp);
	return kb;
}

static int make_dir(const char *dir, struct err *e)
{
	struct stat st;
	if (mkdir(dir, 0777) == 0 || (errno == EEXIST && stat(dir, &st) == 0 && S_ISDIR(st.st_mode)))
		return 0;
	return ERR_SET(e, ERR_IO, ERR_NO_VA, "cannot create the output directory %s: %s", dir,
		       errno == EEXIST ? "a file of that name exists" : strerror(errno));
}

static int walk_spaces(struct carve *c, struct err *e)
{
	struct walk_evidence *ev = walk_evidence_open(&c->rt, &c->sink, e);
	int rc;
	if (!ev)
		return -e->code;
	struct walk_ctx ctx = { .rt = &c->rt, .sink = &c->sink, .emit = model_add, .arg = &c->m, .ev = ev };
	rc = walk_all(&ctx, e);
	walk_evidence_report(ev, c->evidence);
	walk_evidence_close(ev);
	return rc;
}

static int write_hprof(struct carve *c, const struct carve_opts *o, struct err *e)
{
	struct outf out;
	size_t n = strlen(o->out_dir) + sizeof("/heap.hprof");
	int rc;

	if (!(c->hprof_path = xmalloc(n)))
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory");
	snprintf(c->hprof_path, n, "%s/heap.hprof", o->out_dir);
	outf_init(&out);
	if ((rc = make_dir(o->out_dir, e)) || (rc = outf_open(&out, c->hprof_path, e)))
		return rc;
	rc = hprof_carve_write(&c->m, &c->r, &o->hprof, &out, &c->hs, e);
	if (rc == 0)
		rc = outf_commit(&out, e);
	outf_abort(&out);
	return rc;
}

int carve_run(struct carve *c, const struct carve_opts *o, struct err *e)
{
	struct img_open_opts io = { o->maps };
	struct runtime_opts ro = { .art_version = o->art_version, .probes = &probe_spaces };
	double t0 = now();
	clock_t c0 = clock();
	int rc;

	memset(c, 0, sizeof(*c));
	anomaly_init(&c->sink, 0);
	phase(o, "loading the image and the runtime model");
	if ((rc = img_open(&c->img, o->image, &io, e)))
		return rc;
	c->img_open = true;
	if ((rc = runtime_open(&c->rt, &c->img, &ro, e)))
		return rc;
	c->rt_open = true;
	if ((rc = model_init(&c->m, &c->rt, &c->sink, e)))
		return rc;
	c->model_open = true;
	c->heap_bytes = heap_bytes(&c->rt);
	phase(o, "walking the spaces and checking candidates");
	if ((rc = walk_spaces(c, e)) || (rc = model_finish(&c->m, e)))
		return rc;
	phase(o, "walking the object graph from the roots");
	if ((rc = reach_run(&c->m, &c->r, e)))
		return rc;
	phase(o, "writing heap.hprof");
	if ((rc = write_hprof(c, o, e)) || (rc = anomaly_status(&c->sink, e)))
		return rc;
	c->seconds = now() - t0;
	c->cpu_seconds = (double)(clock() - c0) / CLOCKS_PER_SEC;
	c->anon_kb = rss_anon_kb();
	return 0;
}

void carve_release(struct carve *c)
{
	reach_release(&c->r);
	if (c->model_open)
		model_release(&c->m);
	if (c->rt_open)
		runtime_close(&c->rt);
	if (c->img_open)
		img_close(&c->img);
	anomaly_release(&c->sink);
	xfree(c->hprof_path);
	memset(c, 0, sizeof(*c));
}
