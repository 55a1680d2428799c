/* cmd_walk.c - `artcarve walk IMAGE [--maps F] [--json] [--objects] [--art-version V]`: the
 * allocation units (RosAlloc runs and page-level allocations, regions, dlmalloc chunks,
 * large-object allocations, image and bump-pointer walks) of every object space as the
 * space walkers see them, with the slots/objects they hold by allocation state, the
 * evidence ART keeps beside them (bitmaps, allocation stacks, card table) and the damage
 * found in the allocators' metadata. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "art/runtime/runtime.h"
#include "carver/base/anomaly.h"
#include "carver/base/rep.h"
#include "carver/cli/cli.h"
#include "carver/image/image.h"
#include "rosalloc/walk/walk.h"

struct walk_opts {
	const char *maps, *art_version;
	bool json, objects;
};

/* Totals of one space. */
struct space_tot {
	const struct art_space *s;
	uint64_t by_alloc[3], by_place[WALK_PLACE_COUNT], units[WALK_UNIT_KIND_COUNT], orphan, dead, clobbered;
	uint64_t live_known, live_set, stack_known, stack_set;
};

struct walk_out {
	const struct walk_opts *o;
	FILE *fp;
	struct rep r;          /* --json: the report object */
	struct space_tot cur;
	bool open;             /* a space section is open */
	uint64_t total[3];
	uint64_t heap_bytes;   /* bytes of the object spaces walked */
	double seconds;        /* walk_all, with this command's counting and printing */
};

static const char *space_label(const struct art_space *s)
{
	return s->name && s->name[0] ? s->name : spaces_kind_name(s->kind);
}

static void space_close(struct walk_out *w)
{
	const struct space_tot *t = &w->cur;
	FILE *fp = w->fp;
	if (!w->open)
		return;
	if (w->o->json) {
		struct rep *r = &w->r;
		rep_close(r);   /* entries */
		rep_u(r, "allocated", t->by_alloc[WALK_ALLOCATED]);
		rep_u(r, "free", t->by_alloc[WALK_FREE]);
		rep_u(r, "unknown", t->by_alloc[WALK_ALLOC_UNKNOWN]);
		rep_u(r, "orphan_free", t->orphan);
		rep_u(r, "dead", t->dead);
		rep_open(r, "live_bit", false);
		rep_u(r, "known", t->live_known);
		rep_u(r, "set", t->live_set);
		rep_close(r);
		rep_open(r, "allocation_stack", false);
		rep_u(r, "known", t->stack_known);
		rep_u(r, "on", t->stack_set);
		rep_close(r);
		rep_close(r);   /* the space */
	} else {
		fprintf(fp, "  total: allocated %llu, free %llu, unknown %llu, orphan free %llu, dead %llu; "
			"live bit known %llu (set %llu), allocation stack known %llu (on %llu)\n",
			(unsigned long long)t->by_alloc[WALK_ALLOCATED], (unsigned long long)t->by_alloc[WALK_FREE],
			(unsigned long long)t->by_alloc[WALK_ALLOC_UNKNOWN], (unsigned long long)t->orphan,
			(unsigned long long)t->dead, (unsigned long long)t->live_known, (unsigned long long)t->live_set,
			(unsigned long long)t->stack_known, (unsigned long long)t->stack_set);
	}
	for (int i = 0; i < 3; i++)
		w->total[i] += t->by_alloc[i];
	w->open = false;
}

static void space_open(struct walk_out *w, const struct art_space *s)
{
	FILE *fp = w->fp;
	if (w->open && w->cur.s == s)
		return;
	space_close(w);
	memset(&w->cur, 0, sizeof(w->cur));
	w->cur.s = s;
	w->open = true;
	if (w->o->json) {
		struct rep *r = &w->r;
		rep_open(r, NULL, false);
		rep_s(r, "kind", spaces_kind_name(s->kind));
		rep_hex(r, "begin", s->begin);
		rep_hex(r, "end", s->end);
		rep_s(r, "name", s->name ? s->name : "");
		rep_open_lines(r, "entries", true);
	} else {
		fprintf(fp, "space %s 0x%llx-0x%llx \"%s\"\n", spaces_kind_name(s->kind), (unsigned long long)s->begin,
			(unsigned long long)s->end, space_label(s));
	}
}

static int on_unit(void *arg, const struct walk_unit *u, struct err *e)
{
	struct walk_out *w = arg;
	FILE *fp = w->fp;
	(void)e;
	space_open(w, u->space);
	w->cur.units[u->kind]++;
	if (w->o->json) {
		struct rep *r = &w->r;
		rep_open(r, NULL, false);
		rep_s(r, "unit", walk_unit_kind_name(u->kind));
		rep_hex(r, "begin", u->begin);
		rep_hex(r, "end", u->end);
		rep_u(r, "index", u->index);
		rep_u(r, "pages", u->pages);
		if (u->kind == WALK_UNIT_RUN) {
			rep_i(r, "bracket", u->bracket);
			rep_u(r, "slot_size", u->slot_size);
			rep_u(r, "slots", u->slots);
			rep_bool(r, "thread_local", u->thread_local);
			rep_bool(r, "bulk_free", u->bulk_free);
		}
		if (u->kind == WALK_UNIT_REGION) {
			rep_s(r, "state", walk_region_state_name(u->state));
			rep_hex(r, "top", u->top);
			rep_u(r, "dead", u->dead);
		}
		rep_u(r, "allocated", u->allocated);
		rep_u(r, "free", u->free);
		rep_u(r, "damaged", u->damaged);
		if (u->gap_end) {
			rep_hex(r, "walk_gap_begin", u->gap_begin);
			rep_hex(r, "walk_gap_end", u->gap_end);
			rep_hex(r, "top", u->top);
		}
		rep_close(r);
		return 0;
	}
	fprintf(fp, "  %s 0x%llx-0x%llx index=%u pages=%u", walk_unit_kind_name(u->kind), (unsigned long long)u->begin,
		(unsigned long long)u->end, u->index, u->pages);
	if (u->kind == WALK_UNIT_RUN)
		fprintf(fp, " bracket=%d slot=%u slots=%u thread_local=%d bulk_free=%d", u->bracket, u->slot_size,
			u->slots, u->thread_local, u->bulk_free);
	if (u->kind == WALK_UNIT_REGION)
		fprintf(fp, " state=%s top=0x%llx dead=%llu", walk_region_state_name(u->state),
			(unsigned long long)u->top, (unsigned long long)u->dead);
	fprintf(fp, " allocated=%llu free=%llu damaged=%llu", (unsigned long long)u->allocated,
		(unsigned long long)u->free, (unsigned long long)u->damaged);
	if (u->gap_end)
		fprintf(fp, " walk_gap=0x%llx-0x%llx top=0x%llx", (unsigned long long)u->gap_begin,
			(unsigned long long)u->gap_end, (unsigned long long)u->top);
	fputc('\n', fp);
	return 0;
}

static int on_candidate(void *arg, const struct walk_candidate *c, struct err *e)
{
	struct walk_out *w = arg;
	struct space_tot *t;
	(void)e;
	space_open(w, c->space);
	t = &w->cur;
	t->by_alloc[c->alloc < 3 ? c->alloc : WALK_ALLOC_UNKNOWN]++;
	if ((unsigned)c->place < WALK_PLACE_COUNT)
		t->by_place[c->place]++;
	t->orphan += (c->flags & WALK_F_ORPHAN) != 0;
	t->dead += (c->flags & WALK_F_DEAD) != 0;
	t->live_known += c->live_bit >= 0;
	t->live_set += c->live_bit > 0;
	t->stack_known += c->on_alloc_stack >= 0;
	t->stack_set += c->on_alloc_stack > 0;
	if (!w->o->objects)
		return 0;
	if (w->o->json) {
		struct rep *r = &w->r;
		rep_open(r, NULL, false);
		rep_hex(r, "object", c->addr);
		rep_u(r, "room", c->room);
		rep_s(r, "alloc", walk_alloc_name(c->alloc));
		rep_s(r, "place", walk_place_name(c->place));
		rep_hex(r, "where", c->where);
		rep_u(r, "index", c->index);
		rep_u(r, "clobbered", c->clobbered);
		rep_i(r, "live_bit", c->live_bit);
		rep_i(r, "on_alloc_stack", c->on_alloc_stack);
		rep_u(r, "flags", c->flags);
		rep_u(r, "size", c->size);
		rep_close(r);
	} else {
		fprintf(w->fp, "    object 0x%llx room=%llu %s %s where=0x%llx index=%u clobbered=%u live=%d stack=%d%s%s"
			" size=%llu\n", (unsigned long long)c->addr, (unsigned long long)c->room, walk_alloc_name(c->alloc),
			walk_place_name(c->place), (unsigned long long)c->where, c->index, c->clobbered, c->live_bit,
			c->on_alloc_stack, c->flags & WALK_F_ORPHAN ? " orphan" : "", c->flags & WALK_F_DEAD ? " dead" : "",
			(unsigned long long)c->size);
	}
	return 0;
}

static void print_tail(struct walk_out *w, const struct walk_evidence *ev, const struct anomaly_sink *sink)
{
	struct walk_ev_report evr[WALK_EV_COUNT];
	FILE *fp = w->fp;

	space_close(w);
	walk_evidence_report(ev, evr);
	if (w->o->json) {
		struct rep *r = &w->r;
		rep_close(r);   /* spaces */
		rep_u(r, "allocated", w->total[0]);
		rep_u(r, "free", w->total[1]);
		rep_u(r, "unknown", w->total[2]);
		rep_open(r, "evidence", false);
		for (int i = 0; i < WALK_EV_COUNT; i++) {
			rep_open(r, walk_ev_source_name((enum walk_ev_source)i), false);
			rep_bool(r, "present", evr[i].present);
			rep_bool(r, "used", evr[i].used);
			rep_u(r, "mappings", evr[i].mappings);
			rep_u(r, "entries", evr[i].entries);
			rep_u(r, "consulted", evr[i].consulted);
			rep_close(r);
		}
		rep_close(r);
		rep_open(r, "anomalies", false);
		rep_u(r, "total", sink->total);
		rep_open(r, "by_code", false);
		for (int c = 0; c < ANOM_CODE_COUNT; c++)
			if (sink->per_code[c])
				rep_u(r, anomaly_code_name((enum anomaly_code)c), sink->per_code[c]);
		rep_close(r);
		rep_open_lines(r, "first", true);
		for (size_t i = 0; i < sink->count; i++) {
			const struct anomaly *a = &sink->v[i];
			rep_open(r, NULL, false);
			rep_s(r, "code", anomaly_code_name(a->code));
			rep_hex(r, "va", a->va);
			rep_s(r, "space", a->space);
			rep_s(r, "message", a->msg);
			rep_close(r);
		}
		rep_close(r);
		rep_close(r);   /* anomalies */
		rep_close(r);
		fputc('\n', fp);
		return;
	}
	fprintf(fp, "candidates: allocated %llu, free %llu, unknown %llu\n", (unsigned long long)w->total[0],
		(unsigned long long)w->total[1], (unsigned long long)w->total[2]);
	fprintf(fp, "time: walk %.3f s over %.1f MiB of object spaces (%.0f MB/s)\n", w->seconds,
		(double)w->heap_bytes / (1 << 20), w->seconds > 0 ? (double)w->heap_bytes / 1e6 / w->seconds : 0.0);
	for (int i = 0; i < WALK_EV_COUNT; i++)
		fprintf(fp, "evidence %s: %s, %s (mappings %u, entries %llu, consulted %llu)\n",
			walk_ev_source_name((enum walk_ev_source)i), evr[i].present ? "present" : "absent",
			evr[i].used ? "used" : "not used", evr[i].mappings, (unsigned long long)evr[i].entries,
			(unsigned long long)evr[i].consulted);
	fprintf(fp, "anomalies: %llu\n", (unsigned long long)sink->total);
	for (int c = 0; c < ANOM_CODE_COUNT; c++)
		if (sink->per_code[c])
			fprintf(fp, "  %s: %llu\n", anomaly_code_name((enum anomaly_code)c),
				(unsigned long long)sink->per_code[c]);
	for (size_t i = 0; i < sink->count; i++)
		fprintf(fp, "  anomaly %s 0x%llx [%s] %s\n", anomaly_code_name(sink->v[i].code),
			(unsigned long long)sink->v[i].va, sink->v[i].space, sink->v[i].msg);
}

static const struct opt walk_opts[] = {
	OPT_ROW_FLAG("--json", NULL, struct walk_opts, json),
	OPT_ROW_FLAG("--objects", NULL, struct walk_opts, objects),
	OPT_ROW_STRING("--maps", struct walk_opts, maps, "a file"),
	OPT_ROW_STRING("--art-version", struct walk_opts, art_version, "a layout family"),
	OPT_ROW_END,
};
static const char *const walk_pos[] = { "IMAGE", NULL };
const struct opt_spec cmd_walk_spec = { walk_opts, walk_pos, 1, 1 };

static int run_walk(const struct walk_opts *o, struct art_runtime *rt, struct err *e)
{
	struct anomaly_sink sink;
	struct walk_out w = { .o = o, .fp = stdout };
	struct walk_evidence *ev;
	int rc;

	anomaly_init(&sink, 0);
	if (!(ev = walk_evidence_open(rt, &sink, e))) {
		anomaly_release(&sink);
		return -ERR_NOMEM;
	}
	struct walk_ctx ctx = { .rt = rt, .sink = &sink, .emit = on_candidate, .arg = &w, .unit = on_unit,
				.unit_arg = &w, .ev = ev };
	rep_init(&w.r, stdout, o->json);
	if (o->json) {
		rep_open(&w.r, NULL, false);
		rep_s(&w.r, "layout", rt->layout->family);
		rep_u(&w.r, "pointer_size", rt->pointer_size);
		rep_open_lines(&w.r, "spaces", true);
	}
	struct timespec t0, t1;
	for (size_t i = 0; i < rt->spaces.count; i++) {
		const struct art_space *s = &rt->spaces.v[i];
		if (spaces_holds_objects(s->kind) && s->kind != SPACE_LOS_MAP)
			w.heap_bytes += s->end - s->begin;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = walk_all(&ctx, e);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	w.seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	if (rc == 0)
		rc = anomaly_status(&sink, e);
	if (rc == 0)
		print_tail(&w, ev, &sink);
	walk_evidence_close(ev);
	anomaly_release(&sink);
	return rc;
}

int cmd_walk(int argc, char **argv)
{
	struct walk_opts o = { 0 };
	struct image img;
	struct art_runtime rt;
	size_t npos;
	struct err e;
	int rc = cli_parse(argc, argv, &cmd_walk_spec, &o, &npos);

	if (rc != CLI_GO_ON)
		return rc;
	err_init(&e);
	if ((rc = cli_open_runtime(argv[0], argv[1], o.maps, o.art_version, &img, &rt)))
		return rc;
	rc = run_walk(&o, &rt, &e);
	runtime_close(&rt);
	img_close(&img);
	if (rc == 0 && (fflush(stdout) != 0 || ferror(stdout)))
		rc = ERR_SET(&e, ERR_IO, ERR_NO_VA, "cannot write the walk");
	return rc ? cli_report(argv[0], &e) : CLI_OK;
}
