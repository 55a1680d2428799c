/* report_map.c - the heap map of report.html (report_map.h). */
#include "output/report/report_map.h"

#include <stdlib.h>
#include <string.h>

#include "carver/base/bsearch.h"
#include "carver/base/xalloc.h"

/* Geometry in SVG user units: cells of MAP_CELL, MAP_COLS to a row, a heading per space. */
enum { MAP_COLS = 64, MAP_CELL = 10, MAP_PITCH = 11, MAP_HEAD = 20, MAP_TAIL = 12, MAP_PAGE = 4096 };

/* What an object's bytes count as; the classes match the page's style sheet (report.c). */
enum map_cat { MAP_LIVE, MAP_DROPPED, MAP_UNKNOWN, MAP_FREE, MAP_CAT_COUNT };
static const char *const map_cat_class[MAP_CAT_COUNT] = { "l", "d", "u", "f" };
static const char *const map_cat_words[MAP_CAT_COUNT] = { "live", "dropped", "reach unknown", "free" };

struct map_cell {
	uint64_t begin, end;
	uint64_t bytes[MAP_CAT_COUNT], objects[MAP_CAT_COUNT];
	uint64_t anomalies, captured;
	const struct report_unit *unit;   /* the one unit drawn, NULL for pages or several units */
	size_t units;                     /* units drawn together (0: pages) */
};

/* One drawn space: its units (sorted by address) or, without units, its pages. */
struct map_space {
	const struct art_space *s;
	const struct report_unit **u;
	size_t n;                 /* units, or pages when u is NULL */
	size_t per_cell;          /* units or pages to a cell */
	size_t cells;
};

struct map_ctx {
	struct report_html *h;
	const struct model *m;
	const struct image *img;
	uint64_t *anom;           /* addresses of the kept anomalies, sorted */
	size_t anom_count;
	uint64_t *done;           /* object bytes tallied so far (model_progress(m)'s count) */
};

/* The map LOS holding va: its index in rt->spaces, SIZE_MAX if none (los: the indexes of
 * the map LOS spaces, usually one). */
static size_t map_los_of(const struct art_runtime *rt, const size_t *los, size_t nlos, uint64_t va)
{
	for (size_t k = 0; k < nlos; k++)
		if (va >= rt->spaces.v[los[k]].begin && va < rt->spaces.v[los[k]].end)
			return los[k];
	return SIZE_MAX;
}

/* Whether space i is drawn: an object space, but not a map LOS allocation that its map LOS
 * draws. */
static bool map_draws(const struct art_runtime *rt, const size_t *los, size_t nlos, size_t i)
{
	const struct art_space *s = &rt->spaces.v[i];
	return spaces_holds_objects(s->kind) &&
	       (s->kind != SPACE_LOS_ALLOCATION || map_los_of(rt, los, nlos, s->begin) == SIZE_MAX);
}

/* Units finer than the space: what the map draws one by one. */
static bool map_fine(const struct report_unit *u)
{
	return u->kind == WALK_UNIT_RUN || u->kind == WALK_UNIT_LARGE || u->kind == WALK_UNIT_FREE_PAGES ||
	       u->kind == WALK_UNIT_REGION || u->kind == WALK_UNIT_LOS;
}

static int map_by_begin(const void *a, const void *b)
{
	const struct report_unit *x = *(const struct report_unit *const *)a, *y = *(const struct report_unit *const *)b;
	if (x->begin != y->begin)
		return x->begin < y->begin ? -1 : 1;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return (x > y) - (x < y);   /* same range twice: the walk's order */
}

static int map_by_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* Fills ms for space s from its fine units (u[0..n), sorted here), or its pages when it has
 * none; how many go to a cell. */
static void map_space_plan(struct map_space *ms, const struct art_space *s, const struct report_unit **u, size_t n,
			   size_t max_cells)
{
	memset(ms, 0, sizeof(*ms));
	ms->s = s;
	if (n) {
		ms->u = u;
		ms->n = n;
		qsort(u, n, sizeof(*u), map_by_begin);
	} else {
		uint64_t len = s->end > s->begin ? s->end - s->begin : 0;
		ms->n = (size_t)(len / MAP_PAGE + (len % MAP_PAGE != 0));
	}
	ms->per_cell = ms->n > max_cells ? (ms->n + max_cells - 1) / max_cells : 1;
	ms->cells = (ms->n + ms->per_cell - 1) / ms->per_cell;
}

/* The fine units grouped by the space that draws them: space i's are sorted[first[i] ..
 * first[i + 1]).  A map LOS allocation's units go to its map LOS.  Linear in units and
 * spaces. */
struct map_groups {
	size_t *los, nlos;
	bool *draws;
	size_t *first;                    /* spaces + 1 entries */
	const struct report_unit **sorted;
};

static size_t map_unit_owner(const struct art_runtime *rt, const struct map_groups *g, const struct report_unit *u)
{
	size_t i;
	if (!u->space || !map_fine(u) || u->space < rt->spaces.v || u->space >= rt->spaces.v + rt->spaces.count)
		return SIZE_MAX;
	i = (size_t)(u->space - rt->spaces.v);
	if (g->draws[i])
		return i;
	return u->space->kind == SPACE_LOS_ALLOCATION ? map_los_of(rt, g->los, g->nlos, u->begin) : SIZE_MAX;
}

static int map_groups_make(struct map_groups *g, const struct art_runtime *rt, const struct report_units *units,
			   struct err *e)
{
	size_t ns = rt->spaces.count, nu = units ? units->count : 0, *fill;

	memset(g, 0, sizeof(*g));
	g->los = xcalloc(ns + 1, sizeof(size_t));
	g->draws = xcalloc(ns + 1, sizeof(bool));
	g->first = xcalloc(ns + 2, sizeof(size_t));
	g->sorted = xcalloc(nu + 1, sizeof(*g->sorted));
	fill = xcalloc(ns + 1, sizeof(size_t));
	if (!g->los || !g->draws || !g->first || !g->sorted || !fill) {
		xfree(fill);
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory for the heap map");
	}
	for (size_t i = 0; i < ns; i++)
		if (rt->spaces.v[i].kind == SPACE_LOS_MAP)
			g->los[g->nlos++] = i;
	for (size_t i = 0; i < ns; i++)
		g->draws[i] = map_draws(rt, g->los, g->nlos, i);
	for (size_t k = 0; k < nu; k++) {
		size_t o = map_unit_owner(rt, g, &units->v[k]);
		if (o != SIZE_MAX)
			g->first[o + 1]++;
	}
	for (size_t i = 0; i < ns; i++)
		g->first[i + 1] += g->first[i];
	for (size_t k = 0; k < nu; k++) {
		size_t o = map_unit_owner(rt, g, &units->v[k]);
		if (o != SIZE_MAX)
			g->sorted[g->first[o] + fill[o]++] = &units->v[k];
	}
	xfree(fill);
	return 0;
}

static void map_groups_release(struct map_groups *g)
{
	xfree(g->los);
	xfree(g->draws);
	xfree(g->first);
	xfree(g->sorted);
}

static uint64_t map_group_height(const struct map_space *ms)
{
	return MAP_HEAD + (uint64_t)((ms->cells + MAP_COLS - 1) / MAP_COLS) * MAP_PITCH + MAP_TAIL;
}

static size_t map_lower(const uint64_t *v, size_t n, uint64_t a)
{
	return bs_lower(v, n, bs_key_u64, a);
}

static enum map_cat map_cat_of(const struct model_obj *o)
{
	if (o->alloc == MODEL_FREE)
		return MAP_FREE;
	return o->reach == MODEL_UNREACHABLE ? MAP_DROPPED : o->reach == MODEL_REACHABLE ? MAP_LIVE : MAP_UNKNOWN;
}

static uint64_t map_region_end(const void *v, size_t i) { return ((const struct img_region *)v)[i].end; }

/* Captured bytes of [a, b) (regions are sorted by start and do not overlap). */
static uint64_t map_captured(const struct image *img, uint64_t a, uint64_t b)
{
	size_t lo = bs_upper(img->regions, img->region_count, map_region_end, a);   /* first ending past a */
	uint64_t n = 0;
	for (size_t i = lo; i < img->region_count && img->regions[i].start < b; i++) {
		const struct img_region *r = &img->regions[i];
		uint64_t s = r->start > a ? r->start : a, t = r->start + r->data_len < b ? r->start + r->data_len : b;
		if (r->data && t > s)
			n += t - s;
	}
	return n;
}

/* The figures of a cell over [c->begin, c->end).  Every object is tallied once where it starts
 * (the report's one pass over all objects): its bytes are the report's progress. */
static void map_tally(const struct map_ctx *x, struct map_cell *c)
{
	const struct model *m = x->m;
	uint64_t kept, begin = c->begin, end = c->end;
	/* a cell above 4 GiB that an alias window stands for: its objects by model address */
	for (size_t i = 0; i < model_alias_count(m); i++) {
		const struct model_alias *a = model_alias(m, i);
		if (!a->failed && begin >= a->real && begin - a->real < a->len) {
			begin = begin - a->real + a->alias;
			end = end - c->begin > a->len - (c->begin - a->real) ? a->alias + a->len : begin + (end - c->begin);
			break;
		}
	}
	for (size_t k = model_first_ending_after(m, begin); k < model_count(m) && model_obj(m, k)->addr < end; k++) {
		const struct model_obj *o = model_obj(m, k);
		uint64_t lo = o->addr > begin ? o->addr : begin;
		uint64_t hi = (uint64_t)o->addr + o->size < end ? (uint64_t)o->addr + o->size : end;
		enum map_cat cat = map_cat_of(o);
		if (hi > lo)
			c->bytes[cat] += hi - lo;
		if (o->addr >= begin) {
			c->objects[cat]++;
			progress_to(model_progress(m), *x->done += o->size);
		}
	}
	kept = map_lower(x->anom, x->anom_count, c->end) - map_lower(x->anom, x->anom_count, c->begin);
	c->anomalies = kept > c->anomalies ? kept : c->anomalies;   /* a unit's damage is also in a sink */
	c->captured = map_captured(x->img, c->begin, c->end);
}

/* Cell i of space ms. */
static void map_cell_make(const struct map_ctx *x, const struct map_space *ms, size_t i, struct map_cell *c)
{
	size_t first = i * ms->per_cell, last = first + ms->per_cell < ms->n ? first + ms->per_cell : ms->n;

	memset(c, 0, sizeof(*c));
	if (ms->u) {
		c->begin = ms->u[first]->begin;
		c->end = ms->u[first]->end;
		for (size_t k = first; k < last; k++) {
			c->end = ms->u[k]->end > c->end ? ms->u[k]->end : c->end;
			c->anomalies += ms->u[k]->damaged;
		}
		c->units = last - first;
		c->unit = c->units == 1 ? ms->u[first] : NULL;
	} else {
		c->begin = ms->s->begin + (uint64_t)first * MAP_PAGE;
		c->end = ms->s->begin + (uint64_t)last * MAP_PAGE;
		c->end = c->end < ms->s->end ? c->end : ms->s->end;
	}
	if (c->end > c->begin)
		map_tally(x, c);
}

/* What the cell is, for its title (trusted text: numbers and fixed words). */
static void map_cell_what(struct report_html *h, const struct map_cell *c)
{
	const struct report_unit *u = c->unit;
	if (!c->units) {
		report_html_printf(h, "%llu bytes of pages", (unsigned long long)(c->end - c->begin));
		return;
	}
	if (!u) {
		report_html_printf(h, "%zu units", c->units);
		return;
	}
	switch (u->kind) {
	case WALK_UNIT_RUN:
		report_html_printf(h, "run, bracket %d, %u-byte slots%s, %u allocated and %u free slots", u->bracket,
				   u->slot_size, u->thread_local ? ", thread-local" : "", u->allocated, u->free);
		break;
	case WALK_UNIT_REGION:
		report_html_printf(h, "region (%s)", walk_region_state_name((enum walk_region_state)u->state));
		break;
	default:
		report_html_printf(h, "%s", walk_unit_kind_name((enum walk_unit_kind)u->kind));
	}
}

static void map_cell_write(struct report_html *h, const struct map_cell *c, uint64_t x0, uint64_t y0)
{
	uint64_t len = c->end > c->begin ? c->end - c->begin : 1, used = 0, at = x0;

	report_html_printf(h, "<g data-b=\"0x%llx\" data-e=\"0x%llx\"><title>0x%llx-0x%llx ", (unsigned long long)c->begin,
			   (unsigned long long)c->end, (unsigned long long)c->begin, (unsigned long long)c->end);
	map_cell_what(h, c);
	report_html_raw(h, ":");
	for (int k = 0; k < MAP_CAT_COUNT; k++) {
		report_html_printf(h, " %llu %s,", (unsigned long long)c->objects[k], map_cat_words[k]);
		used += c->bytes[k];
	}
	report_html_printf(h, " %llu of %llu bytes in objects, %llu captured; %llu anomalies</title>",
			   (unsigned long long)used, (unsigned long long)(c->end - c->begin),
			   (unsigned long long)c->captured, (unsigned long long)c->anomalies);
	report_html_printf(h, "<rect class=\"%s\" x=\"%llu\" y=\"%llu\" width=\"%d\" height=\"%d\"/>",
			   c->captured ? "e" : "n", (unsigned long long)x0, (unsigned long long)y0, MAP_CELL, MAP_CELL);
	for (int k = 0; k < MAP_CAT_COUNT; k++) {
		uint64_t w;
		if (!c->bytes[k] || at >= x0 + MAP_CELL)
			continue;
		w = c->bytes[k] * MAP_CELL / len;   /* bytes <= len <= 2^32 * regions: no overflow */
		w = w ? w : 1;                      /* one dropped object in a run still shows */
		w = at + w > x0 + MAP_CELL ? x0 + MAP_CELL - at : w;
		report_html_printf(h, "<rect class=\"%s\" x=\"%llu\" y=\"%llu\" width=\"%llu\" height=\"%d\"/>",
				   map_cat_class[k], (unsigned long long)at, (unsigned long long)y0, (unsigned long long)w,
				   MAP_CELL);
		at += w;
	}
	if (c->anomalies)
		report_html_printf(h, "<rect class=\"a\" x=\"%llu\" y=\"%llu\" width=\"%d\" height=\"%d\"/>",
				   (unsigned long long)x0 + 1, (unsigned long long)y0 + 1, MAP_CELL - 2, MAP_CELL - 2);
	report_html_raw(h, "</g>\n");
}

static void map_space_write(const struct map_ctx *x, const struct map_space *ms, size_t index, uint64_t y)
{
	struct report_html *h = x->h;
	const struct art_space *s = ms->s;
	struct map_cell c;

	report_html_printf(h, "<g class=\"space\" data-space=\"%zu\" transform=\"translate(0,%llu)\">", index,
			   (unsigned long long)y);
	report_html_printf(h, "<text x=\"0\" y=\"14\">%s ", spaces_kind_name(s->kind));
	report_html_str(h, s->name && s->name[0] ? s->name : "(found by content)");
	report_html_printf(h, " 0x%llx-0x%llx, %llu bytes: %zu %s", (unsigned long long)s->begin,
			   (unsigned long long)s->end, (unsigned long long)(s->end > s->begin ? s->end - s->begin : 0),
			   ms->n, ms->u ? "units" : "pages");
	if (ms->per_cell > 1)
		report_html_printf(h, ", %zu to a cell", ms->per_cell);
	report_html_raw(h, "</text>\n");
	for (size_t i = 0; i < ms->cells && !h->rc; i++) {
		map_cell_make(x, ms, i, &c);
		map_cell_write(h, &c, (uint64_t)(i % MAP_COLS) * MAP_PITCH,
			       MAP_HEAD + (uint64_t)(i / MAP_COLS) * MAP_PITCH);
	}
	report_html_raw(h, "</g>\n");
}

static int map_anomalies(struct map_ctx *x, const struct anomaly_sink *const sinks[], size_t sink_count,
			 struct err *e)
{
	size_t n = 0;
	for (size_t i = 0; i < sink_count; i++)
		n += sinks[i] ? sinks[i]->count : 0;
	if (!n)
		return 0;
	if (!(x->anom = xcalloc(n, sizeof(uint64_t))))
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory for the heap map");
	for (size_t i = 0; i < sink_count; i++)
		for (size_t k = 0; sinks[i] && k < sinks[i]->count; k++)
			/* red cells are damage: what contradicts the image's metadata, not a
			 * candidate rejected in memory the allocator calls free */
			if (sinks[i]->v[k].va != ERR_NO_VA && !model_anomaly_free_candidate(&sinks[i]->v[k]))
				x->anom[x->anom_count++] = sinks[i]->v[k].va;
	qsort(x->anom, x->anom_count, sizeof(uint64_t), map_by_u64);
	return 0;
}

static void map_legend(struct report_html *h)
{
	report_html_raw(h, "<p class=\"legend\">"
			   "<span class=\"sw l\"></span> allocated, reachable "
			   "<span class=\"sw d\"></span> allocated, unreachable (dropped) "
			   "<span class=\"sw u\"></span> allocated, reachability unknown "
			   "<span class=\"sw f\"></span> free (partial or residue objects) "
			   "<span class=\"sw e\"></span> empty "
			   "<span class=\"sw n\"></span> not captured "
			   "<span class=\"sw a\"></span> anomaly</p>\n"
			   "<p>Each cell is one allocation unit (RosAlloc run or page-level allocation or free pages, "
			   "region, large object) or, where the walk has none finer, a page; it fills from the left in "
			   "proportion to the bytes of its objects by state. Hover over a cell for its addresses and "
			   "counts.</p>\n");
}

int report_map_write(struct report_html *h, const struct model *m, const struct report_units *units,
		     const struct anomaly_sink *const sinks[], size_t sink_count, struct err *e)
{
	const struct art_runtime *rt = model_runtime(m);
	uint64_t done = 0;
	struct map_ctx x = { h, m, rt->img, NULL, 0, &done };
	struct map_space *ms = xcalloc(rt->spaces.count ? rt->spaces.count : 1, sizeof(*ms));
	struct map_groups g;
	size_t n = 0, drawn = 0, max_cells;
	uint64_t height = 0, y = 0;
	int rc;

	if (!ms)
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory for the heap map");
	if ((rc = map_groups_make(&g, rt, units, e)) == 0)
		rc = map_anomalies(&x, sinks, sink_count, e);
	for (size_t i = 0; rc == 0 && i < rt->spaces.count; i++)
		drawn += g.draws[i];
	max_cells = drawn ? REPORT_MAP_TOTAL_CELLS / drawn : REPORT_MAP_MAX_CELLS;
	max_cells = max_cells > REPORT_MAP_MAX_CELLS ? REPORT_MAP_MAX_CELLS
		    : max_cells < REPORT_MAP_MIN_CELLS ? REPORT_MAP_MIN_CELLS : max_cells;
	for (size_t i = 0; rc == 0 && i < rt->spaces.count; i++) {
		if (!g.draws[i])
			continue;
		map_space_plan(&ms[n], &rt->spaces.v[i], g.sorted + g.first[i], g.first[i + 1] - g.first[i], max_cells);
		height += map_group_height(&ms[n++]);
	}
	if (rc == 0) {
		map_legend(h);
		report_html_printf(h, "<svg id=\"heapmap\" width=\"%d\" height=\"%llu\" viewBox=\"0 0 %d %llu\">\n",
				   MAP_COLS * MAP_PITCH, (unsigned long long)height, MAP_COLS * MAP_PITCH,
				   (unsigned long long)height);
		for (size_t i = 0; i < n && !h->rc; i++) {
			map_space_write(&x, &ms[i], (size_t)(ms[i].s - rt->spaces.v), y);
			y += map_group_height(&ms[i]);
		}
		report_html_raw(h, "</svg>\n");
	}
	map_groups_release(&g);
	xfree(ms);
	xfree(x.anom);
	return rc;
}
