/* cmd_walk.c - `artcarve walk IMAGE [--maps F] [--json] [--objects] [--art-version V]`: the
 * allocation units (RosAlloc runs and page-level allocations, regions, dlmalloc chunks,
 * large-object allocations, image and bump-pointer walks) of every object space as the
 * space walkers see them, with the slots/objects they hold by allocation state, the
 * evidence ART keeps beside them (bitmaps, allocation stacks, card table) and the damage
 * found in the allocators' metadata. */
#include <stdio.h>
#include <string.h>

#include "art/runtime/runtime.h"
#include "carver/base/anomaly.h"
#include "carver/cli/cli.h"
#include "carver/image/image.h"
#include "rosalloc/probe/probe.h"
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
	struct space_tot cur;
	bool open;             /* a space section is open */
	size_t spaces, units_in_space, cands_in_space;
	uint64_t total[3];
};

static const char *space_label(const struct art_space *s)
{
	return s->name && s->name[0] ? s->name : spaces_kind_name(s->kind);
}

static void json_str(FILE *fp, const char *s) { cli_json_string(fp, s, strlen(s)); }

static void space_close(struct walk_out *w)
{
	const struct space_tot *t = &w->cur;
	FILE *fp = w->fp;
	if (!w->open)
		return;
	if (w->o->json) {
		fprintf(fp, "%s], \"allocated\": %llu, \"free\": %llu, \"unknown\": %llu, \"orphan_free\": %llu, "
			"\"dead\": %llu, \"live_bit\": {\"known\": %llu, \"set\": %llu}, "
			"\"allocation_stack\": {\"known\": %llu, \"on\": %llu}}",
			w->units_in_space ? "\n  " : "", (unsigned long long)t->by_alloc[WALK_ALLOCATED],
			(unsigned long long)t->by_alloc[WALK_FREE], (unsigned long long)t->by_alloc[WALK_ALLOC_UNKNOWN],
			(unsigned long long)t->orphan, (unsigned long long)t->dead, (unsigned long long)t->live_known,
			(unsigned long long)t->live_set, (unsigned long long)t->stack_known,
			(unsigned long long)t->stack_set);
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
	w->units_in_space = w->cands_in_space = 0;
	if (w->o->json) {
		fprintf(fp, "%s\n {\"kind\": \"%s\", \"begin\": \"0x%llx\", \"end\": \"0x%llx\", \"name\": ",
			w->spaces++ ? "," : "", spaces_kind_name(s->kind), (unsigned long long)s->begin,
			(unsigned long long)s->end);
		json_str(fp, s->name ? s->name : "");
		fputs(", \"entries\": [", fp);
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
		fprintf(fp, "%s\n  {\"unit\": \"%s\", \"begin\": \"0x%llx\", \"end\": \"0x%llx\", \"index\": %u, "
			"\"pages\": %u", w->units_in_space++ ? "," : "", walk_unit_kind_name(u->kind),
			(unsigned long long)u->begin, (unsigned long long)u->end, u->index, u->pages);
		if (u->kind == WALK_UNIT_RUN)
			fprintf(fp, ", \"bracket\": %d, \"slot_size\": %u, \"slots\": %u, \"thread_local\": %s, "
				"\"bulk_free\": %s", u->bracket, u->slot_size, u->slots, u->thread_local ? "true" : "false",
				u->bulk_free ? "true" : "false");
		if (u->kind == WALK_UNIT_REGION)
			fprintf(fp, ", \"state\": \"%s\", \"top\": \"0x%llx\", \"dead\": %llu",
				walk_region_state_name(u->state), (unsigned long long)u->top, (unsigned long long)u->dead);
		fprintf(fp, ", \"allocated\": %llu, \"free\": %llu, \"damaged\": %llu}", (unsigned long long)u->allocated,
			(unsigned long long)u->free, (unsigned long long)u->damaged);
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
	fprintf(fp, " allocated=%llu free=%llu damaged=%llu\n", (unsigned long long)u->allocated,
		(unsigned long long)u->free, (unsigned long long)u->damaged);
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
		fprintf(w->fp, "%s\n  {\"object\": \"0x%llx\", \"room\": %llu, \"alloc\": \"%s\", \"place\": \"%s\", "
			"\"where\": \"0x%llx\", \"index\": %u, \"clobbered\": %u, \"live_bit\": %d, "
			"\"on_alloc_stack\": %d, \"flags\": %u, \"size\": %llu}", w->units_in_space++ ? "," : "",
			(unsigned long long)c->addr, (unsigned long long)c->room, walk_alloc_name(c->alloc),
			walk_place_name(c->place), (unsigned long long)c->where, c->index, c->clobbered, c->live_bit,
			c->on_alloc_stack, c->flags, (unsigned long long)c->size);
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
	struct walk_ev_report rep[WALK_EV_COUNT];
	FILE *fp = w->fp;

	space_close(w);
	walk_evidence_report(ev, rep);
	if (w->o->json) {
		fprintf(fp, "\n], \"allocated\": %llu, \"free\": %llu, \"unknown\": %llu, \"evidence\": {",
			(unsigned long long)w->total[0], (unsigned long long)w->total[1], (unsigned long long)w->total[2]);
		for (int i = 0; i < WALK_EV_COUNT; i++)
			fprintf(fp, "%s\"%s\": {\"present\": %s, \"used\": %s, \"mappings\": %u, \"entries\": %llu, "
				"\"consulted\": %llu}", i ? ", " : "", walk_ev_source_name((enum walk_ev_source)i),
				rep[i].present ? "true" : "false", rep[i].used ? "true" : "false", rep[i].mappings,
				(unsigned long long)rep[i].entries, (unsigned long long)rep[i].consulted);
		fprintf(fp, "}, \"anomalies\": {\"total\": %llu, \"by_code\": {", (unsigned long long)sink->total);
		int n = 0;
		for (int c = 0; c < ANOM_CODE_COUNT; c++)
			if (sink->per_code[c])
				fprintf(fp, "%s\"%s\": %llu", n++ ? ", " : "", anomaly_code_name((enum anomaly_code)c),
					(unsigned long long)sink->per_code[c]);
		fputs("}, \"first\": [", fp);
		for (size_t i = 0; i < sink->count; i++) {
			const struct anomaly *a = &sink->v[i];
			fprintf(fp, "%s\n  {\"code\": \"%s\", \"va\": \"0x%llx\", \"space\": ", i ? "," : "",
				anomaly_code_name(a->code), (unsigned long long)a->va);
			json_str(fp, a->space);
			fputs(", \"message\": ", fp);
			json_str(fp, a->msg);
			fputc('}', fp);
		}
		fputs("]}}\n", fp);
		return;
	}
	fprintf(fp, "candidates: allocated %llu, free %llu, unknown %llu\n", (unsigned long long)w->total[0],
		(unsigned long long)w->total[1], (unsigned long long)w->total[2]);
	for (int i = 0; i < WALK_EV_COUNT; i++)
		fprintf(fp, "evidence %s: %s, %s (mappings %u, entries %llu, consulted %llu)\n",
			walk_ev_source_name((enum walk_ev_source)i), rep[i].present ? "present" : "absent",
			rep[i].used ? "used" : "not used", rep[i].mappings, (unsigned long long)rep[i].entries,
			(unsigned long long)rep[i].consulted);
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
	if (o->json)
		fprintf(stdout, "{\"layout\": \"%s\", \"pointer_size\": %u, \"spaces\": [", rt->layout->family,
			rt->pointer_size);
	rc = walk_all(&ctx, e);
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
	struct img_open_opts io = { NULL };
	struct runtime_opts ro = { NULL, &probe_spaces };
	struct image img;
	struct art_runtime rt;
	size_t npos;
	struct err e;
	int rc = cli_parse(argc, argv, &cmd_walk_spec, &o, &npos);

	if (rc != CLI_GO_ON)
		return rc;
	err_init(&e);
	io.maps_path = o.maps;
	ro.art_version = o.art_version;
	if (img_open(&img, argv[1], &io, &e))
		return cli_report(argv[0], &e);
	if (runtime_open(&rt, &img, &ro, &e)) {
		img_close(&img);
		return cli_report(argv[0], &e);
	}
	rc = run_walk(&o, &rt, &e);
	runtime_close(&rt);
	img_close(&img);
	if (rc == 0 && (fflush(stdout) != 0 || ferror(stdout)))
		rc = ERR_SET(&e, ERR_IO, ERR_NO_VA, "cannot write the walk");
	return rc ? cli_report(argv[0], &e) : CLI_OK;
}
