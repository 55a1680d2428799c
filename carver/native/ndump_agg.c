/* ndump_agg.c - call sites, libraries and PC placement of a native heap dump (see
 * ndump_agg.h). */
#include "carver/native/ndump_agg.h"

#include <stdlib.h>
#include <string.h>

#include "carver/base/bsearch.h"
#include "carver/base/ck.h"
#include "carver/base/xalloc.h"

struct ndump_pcinfo {
	uint64_t pc;
	const char *map, *func;         /* NUL-terminated copies (arena) */
	uint64_t rel_pc, func_off;
};

void ndump_agg_init(struct ndump_agg *a)
{
	memset(a, 0, sizeof(*a));
	arena_init(&a->arena);
	maps_init(&a->maps);
	err_init(&a->place_err);
}

int ndump_agg_symbols(struct ndump_agg *a, const char *dir, struct err *e)
{
	symz_free(a->symz);
	a->symz = NULL;
	return symz_new(&a->symz, dir, e);
}

void ndump_agg_release(struct ndump_agg *a)
{
	xfree(a->tab);
	xfree(a->pctab);
	xfree(a->sites);
	xfree(a->libs);
	symz_free(a->symz);
	maps_release(&a->maps);
	arena_release(&a->arena);
	ndump_agg_init(a);
}

static uint64_t ndump_mix(uint64_t h)
{
	/* splitmix64 finaliser: spreads PCs that differ in few bits over the table */
	h ^= h >> 30;
	h *= 0xbf58476d1ce4e5b9ULL;
	h ^= h >> 27;
	h *= 0x94d049bb133111ebULL;
	return h ^ (h >> 31);
}

static uint64_t ndump_frames_hash(const uint64_t *f, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ n;

	/* one multiply per frame, the full mix once */
	for (size_t i = 0; i < n; i++)
		h = (h ^ f[i]) * 0x100000001b3ULL + (h >> 29);
	return ndump_mix(h);
}

/* Doubles an open-addressed table of pointers whose key is key_of(entry). */
static int ndump_grow(void ***tab, size_t *cap, size_t count, uint64_t (*key_of)(const void *), struct err *e)
{
	size_t ncap;
	void **nt;

	if (count + 1 <= *cap / 4 * 3 && *cap)
		return 0;
	if (ck_mul(*cap ? *cap : 512, 2, &ncap) || !(nt = xcalloc(ncap, sizeof(*nt))))
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory for %zu table slots", count + 1);
	for (size_t i = 0; i < *cap; i++) {
		size_t j;
		if (!(*tab)[i])
			continue;
		for (j = key_of((*tab)[i]) & (ncap - 1); nt[j]; j = (j + 1) & (ncap - 1))
			;
		nt[j] = (*tab)[i];
	}
	xfree(*tab);
	*tab = nt;
	*cap = ncap;
	return 0;
}

static uint64_t ndump_site_key(const void *p) { return ((const struct ndump_site *)p)->hash; }
static uint64_t ndump_pc_key(const void *p) { return ndump_mix(((const struct ndump_pcinfo *)p)->pc); }

static int ndump_find_site(struct ndump_agg *a, const struct ndump_record *r, struct ndump_site **out, struct err *e)
{
	uint64_t h = ndump_frames_hash(r->frames, r->nframes);
	struct ndump_site *s;
	uint64_t *frames;
	size_t j;
	int rc;

	if ((rc = ndump_grow((void ***)&a->tab, &a->tab_cap, a->site_count, ndump_site_key, e)))
		return rc;
	for (j = h & (a->tab_cap - 1); (s = a->tab[j]); j = (j + 1) & (a->tab_cap - 1))
		if (s->hash == h && s->nframes == r->nframes &&
		    (r->nframes == 0 || memcmp(s->frames, r->frames, r->nframes * sizeof(*r->frames)) == 0)) {
			*out = s;
			return 0;
		}
	s = arena_alloc(&a->arena, sizeof(*s));
	frames = r->nframes ? arena_array(&a->arena, r->nframes, sizeof(*frames)) : NULL;
	if (!s || (r->nframes && !frames))
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory for call site %zu", a->site_count + 1);
	if (r->nframes)
		memcpy(frames, r->frames, r->nframes * sizeof(*frames));
	s->hash = h;
	s->nframes = r->nframes;
	s->frames = frames;
	s->first_line = r->line;
	a->tab[j] = s;
	a->site_count++;
	*out = s;
	return 0;
}

static struct ndump_pcinfo *ndump_pc_lookup(const struct ndump_agg *a, uint64_t pc)
{
	struct ndump_pcinfo *p;

	if (!a->pc_cap)
		return NULL;
	for (size_t j = ndump_mix(pc) & (a->pc_cap - 1); (p = a->pctab[j]); j = (j + 1) & (a->pc_cap - 1))
		if (p->pc == pc)
			return p;
	return NULL;
}

/* Keeps the first bt_info seen for each PC (the unwinder gives the same answer each time). */
static int ndump_add_info(struct ndump_agg *a, uint64_t pc, const struct ndump_frame_info *fi, struct err *e)
{
	struct ndump_pcinfo *p;
	size_t j;
	int rc;

	if (ndump_pc_lookup(a, pc))
		return 0;
	if ((rc = ndump_grow((void ***)&a->pctab, &a->pc_cap, a->pc_count, ndump_pc_key, e)))
		return rc;
	p = arena_alloc(&a->arena, sizeof(*p));
	if (!p || !(p->map = arena_strndup(&a->arena, fi->map, fi->map_len)) ||
	    !(p->func = arena_strndup(&a->arena, fi->func, fi->func_len)))
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory for the bt_info of pc 0x%llx", (unsigned long long)pc);
	p->pc = pc;
	p->rel_pc = fi->rel_pc;
	p->func_off = fi->func_off;
	for (j = ndump_mix(pc) & (a->pc_cap - 1); a->pctab[j]; j = (j + 1) & (a->pc_cap - 1))
		;
	a->pctab[j] = p;
	a->pc_count++;
	return 0;
}

/* Sums saturate: a hostile dump may announce sizes whose total does not fit 64 bits. */
static uint64_t ndump_sat_add(uint64_t x, uint64_t y) { return x > UINT64_MAX - y ? UINT64_MAX : x + y; }
static uint64_t ndump_sat_mul(uint64_t x, uint64_t y)
{
	uint64_t r;
	return ck_mul64(x, y, &r) ? UINT64_MAX : r;
}

static void ndump_count(struct ndump_site *s, const struct ndump_record *r)
{
	uint64_t b = ndump_sat_mul(r->size, r->num);

	s->records++;
	s->allocs = ndump_sat_add(s->allocs, r->num);
	s->bytes = ndump_sat_add(s->bytes, b);
	s->records_bytes = ndump_sat_add(s->records_bytes, r->size);
	if (r->zygote_child) {
		s->zygote_records++;
		s->zygote_allocs = ndump_sat_add(s->zygote_allocs, r->num);
		s->zygote_bytes = ndump_sat_add(s->zygote_bytes, b);
		s->zygote_records_bytes = ndump_sat_add(s->zygote_records_bytes, r->size);
	}
}

static int ndump_agg_record(void *ctx, const struct ndump_record *r, struct err *e)
{
	struct ndump_agg *a = ctx;
	struct ndump_site *s = NULL;
	int rc;

	if ((rc = ndump_find_site(a, r, &s, e)))
		return rc;
	ndump_count(s, r);
	ndump_count(&a->total, r);
	if (r->nframes > a->frames_max)
		a->frames_max = r->nframes;
	if (r->ninfo)
		a->bt_info_records++;
	for (size_t i = 0; i < r->ninfo && i < r->nframes; i++)
		if ((rc = ndump_add_info(a, r->frames[i], &r->info[i], e)))
			return rc;
	return 0;
}

static int ndump_agg_header(void *ctx, const struct ndump_header *h, struct err *e)
{
	struct ndump_agg *a = ctx;

	a->h = *h;
	if (h->fingerprint && !(a->h.fingerprint = arena_strndup(&a->arena, h->fingerprint, h->fingerprint_len)))
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory for the fingerprint");
	return 0;
}

static int ndump_agg_map(void *ctx, const struct maps_entry *m, struct err *e)
{
	struct ndump_agg *a = ctx;
	struct maps_entry *p;
	char *name;

	if (XALLOC_GROW(a->maps.entries, a->maps.cap, a->maps.count + 1, 64))
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory for %zu MAPS lines", a->maps.count + 1);
	if (!(name = arena_strndup(&a->maps.names, m->name, strlen(m->name))))
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory for a MAPS name");
	p = &a->maps.entries[a->maps.count++];
	*p = *m;
	p->name = name;
	return 0;
}

void ndump_agg_sink(struct ndump_agg *a, struct ndump_sink *sink)
{
	sink->ctx = a;
	sink->header = ndump_agg_header;
	sink->record = ndump_agg_record;
	sink->map = ndump_agg_map;
}

uint64_t ndump_site_allocs(const struct ndump_agg *a, const struct ndump_site *s)
{
	return a->num_trusted ? s->allocs : s->records;
}

uint64_t ndump_site_bytes(const struct ndump_agg *a, const struct ndump_site *s)
{
	return a->num_trusted ? s->bytes : s->records_bytes;
}

uint64_t ndump_site_zygote_allocs(const struct ndump_agg *a, const struct ndump_site *s)
{
	return a->num_trusted ? s->zygote_allocs : s->zygote_records;
}

uint64_t ndump_site_zygote_bytes(const struct ndump_agg *a, const struct ndump_site *s)
{
	return a->num_trusted ? s->zygote_bytes : s->zygote_records_bytes;
}

static int ndump_cmp_u64(uint64_t x, uint64_t y) { return x < y ? -1 : x > y; }

/* By the sort keys ndump_agg_finish set (bytes, allocations as the dump means them), then
 * the frames: a total order, so the output does not depend on the hash table. */
static int ndump_site_cmp(const void *pa, const void *pb)
{
	const struct ndump_site *x = *(struct ndump_site *const *)pa, *y = *(struct ndump_site *const *)pb;
	int c;

	if ((c = ndump_cmp_u64(y->sort_bytes, x->sort_bytes)) || (c = ndump_cmp_u64(y->sort_allocs, x->sort_allocs)))
		return c;
	for (size_t i = 0; i < x->nframes && i < y->nframes; i++)
		if ((c = ndump_cmp_u64(x->frames[i], y->frames[i])))
			return c;
	return ndump_cmp_u64(x->nframes, y->nframes);
}

static int ndump_map_cmp(const void *pa, const void *pb)
{
	const struct maps_entry *x = pa, *y = pb;
	int c = ndump_cmp_u64(x->start, y->start);

	return c ? c : ndump_cmp_u64(x->end, y->end);
}

static uint64_t ndump_line_start(const void *v, size_t i) { return ((const struct maps_entry *)v)[i].start; }

/* Index of the MAPS entry holding pc (entries sorted by start), SIZE_MAX if none: the last
 * one starting at or below pc (/proc maps entries do not overlap). */
static size_t ndump_map_index(const struct ndump_agg *a, uint64_t pc)
{
	size_t lo = bs_upper(a->maps.entries, a->maps.count, ndump_line_start, pc);
	return lo > 0 && pc < a->maps.entries[lo - 1].end ? lo - 1 : SIZE_MAX;
}

void ndump_agg_place(struct ndump_agg *a, uint64_t pc, struct ndump_place *p)
{
	size_t mi = ndump_map_index(a, pc);
	const struct ndump_pcinfo *info = ndump_pc_lookup(a, pc);

	memset(p, 0, sizeof(*p));
	p->pc = pc;
	if (mi != SIZE_MAX) {
		const struct maps_entry *m = &a->maps.entries[mi];
		p->placed = true;
		p->lib = m->name;
		p->lib_offset = pc - m->start + m->offset;      /* wraps only for a hostile offset */
	}
	if (mi != SIZE_MAX && a->symz && a->place_rc == 0) {
		struct symz_frame f;
		int rc = symz_lookup(a->symz, pc, &f, &a->place_err);
		if (rc) {
			a->place_rc = rc;
		} else if (f.symbol) {
			p->symbol = f.symbol;
			p->symbol_offset = f.symbol_offset;
			p->symbol_from = "elf";
			return;
		} else {
			p->problem = f.problem;
		}
	}
	if (info && info->func[0]) {
		p->symbol = info->func;
		p->symbol_offset = info->func_off;
		p->symbol_from = "bt_info";
	}
}

int ndump_agg_status(const struct ndump_agg *a, struct err *e)
{
	if (a->place_rc)
		*e = a->place_err;
	return a->place_rc;
}

/* The MAPS lines of named files go to the symboliser; one that overlaps an earlier one
 * (impossible in /proc maps, possible in a damaged dump) is counted and left out. */
static int ndump_feed_symz(struct ndump_agg *a, struct err *e)
{
	for (size_t i = 0; a->symz && i < a->maps.count; i++) {
		const struct maps_entry *m = &a->maps.entries[i];
		struct err me;
		int rc;
		if (m->name[0] != '/')
			continue;
		err_init(&me);
		rc = symz_add_map(a->symz, m->name, m->start, m->end, m->offset, NULL, 0, &me);
		if (rc == -ERR_CORRUPT) {
			a->symz_maps_rejected++;
		} else if (rc) {
			*e = me;
			return rc;
		} else {
			a->symz_maps++;
		}
	}
	return 0;
}

static int ndump_lib_cmp(const void *pa, const void *pb)
{
	const struct ndump_lib *x = pa, *y = pb;
	int c;

	if ((c = ndump_cmp_u64(y->self_bytes, x->self_bytes)) || (c = ndump_cmp_u64(y->bytes, x->bytes)))
		return c;
	return strcmp(x->name, y->name);
}

struct ndump_named {
	const char *name;
	size_t map;             /* index in a->maps.entries */
};

static int ndump_name_cmp(const void *pa, const void *pb)
{
	const struct ndump_named *x = pa, *y = pb;
	int c = strcmp(x->name, y->name);

	return c ? c : ndump_cmp_u64(x->map, y->map);
}

/* One library per distinct MAPS name plus "[unknown]" (index 0); map_lib[i] is the library
 * of MAPS entry i. */
static int ndump_libs_index(struct ndump_agg *a, size_t *map_lib, struct err *e)
{
	size_t n = a->maps.count;
	struct ndump_named *order = n ? xcalloc(n, sizeof(*order)) : NULL;

	if (n && !order)
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory for %zu MAPS names", n);
	if (!(a->libs = xcalloc(n + 1, sizeof(*a->libs)))) {
		xfree(order);
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory for %zu libraries", n + 1);
	}
	a->libs[0].name = "[unknown]";
	a->lib_count = 1;
	for (size_t i = 0; i < n; i++)
		order[i] = (struct ndump_named){ a->maps.entries[i].name, i };
	if (n)
		qsort(order, n, sizeof(*order), ndump_name_cmp);
	for (size_t i = 0; i < n; i++) {
		if (i == 0 || strcmp(order[i].name, a->libs[a->lib_count - 1].name) != 0)
			a->libs[a->lib_count++].name = order[i].name;
		map_lib[order[i].map] = a->lib_count - 1;
	}
	xfree(order);
	return 0;
}

/* Adds every site to the library of each of its frames: self for frame 0, inclusive once
 * per library and site (seen[] holds the last site index + 1 that touched a library). */
static int ndump_libs_sum(struct ndump_agg *a, struct err *e)
{
	size_t n = a->maps.count, *map_lib = xcalloc(n + 1, sizeof(*map_lib)), *seen = NULL;
	int rc;

	if (!map_lib)
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory for %zu MAPS lines", n);
	if ((rc = ndump_libs_index(a, map_lib, e)) ||
	    (!(seen = xcalloc(a->lib_count, sizeof(*seen))) &&
	     (rc = ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory for %zu libraries", a->lib_count)))) {
		xfree(map_lib);
		return rc;
	}
	for (size_t si = 0; si < a->site_count; si++) {
		const struct ndump_site *s = a->sites[si];
		uint64_t allocs = ndump_site_allocs(a, s), bytes = ndump_site_bytes(a, s);
		for (size_t i = 0; i < s->nframes; i++) {
			size_t mi = ndump_map_index(a, s->frames[i]);
			struct ndump_lib *l = &a->libs[mi == SIZE_MAX ? 0 : map_lib[mi]];
			if (i == 0) {
				l->self_allocs = ndump_sat_add(l->self_allocs, allocs);
				l->self_bytes = ndump_sat_add(l->self_bytes, bytes);
			}
			if (seen[l - a->libs] != si + 1) {
				seen[l - a->libs] = si + 1;
				l->sites++;
				l->allocs = ndump_sat_add(l->allocs, allocs);
				l->bytes = ndump_sat_add(l->bytes, bytes);
			}
		}
	}
	xfree(seen);
	xfree(map_lib);
	/* libraries no frame lies in are left out */
	size_t k = 0;
	for (size_t i = 0; i < a->lib_count; i++)
		if (a->libs[i].sites)
			a->libs[k++] = a->libs[i];
	a->lib_count = k;
	qsort(a->libs, a->lib_count, sizeof(*a->libs), ndump_lib_cmp);
	return 0;
}

int ndump_agg_finish(struct ndump_agg *a, struct err *e)
{
	size_t k = 0;
	int rc;

	/* README.md "Backtrace Heap Dump Format": v1.0's NUM may be wrong (treat it as 1); the
	 * viewer's tests (development/scripts/native_heapdump_viewer_tests.py) trust it when the
	 * header's Total memory equals the sum of size * num */
	a->num_trusted = a->h.minor >= 1 || (a->h.has_total && a->h.total_memory == a->total.bytes);
	if (a->site_count && !(a->sites = xcalloc(a->site_count, sizeof(*a->sites))))
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory for %zu call sites", a->site_count);
	for (size_t i = 0; i < a->tab_cap; i++)
		if (a->tab[i]) {
			a->tab[i]->sort_bytes = ndump_site_bytes(a, a->tab[i]);
			a->tab[i]->sort_allocs = ndump_site_allocs(a, a->tab[i]);
			a->sites[k++] = a->tab[i];
		}
	if (a->site_count)
		qsort(a->sites, a->site_count, sizeof(*a->sites), ndump_site_cmp);
	if (a->maps.count)
		qsort(a->maps.entries, a->maps.count, sizeof(*a->maps.entries), ndump_map_cmp);
	if ((rc = ndump_feed_symz(a, e)))
		return rc;
	return ndump_libs_sum(a, e);
}
