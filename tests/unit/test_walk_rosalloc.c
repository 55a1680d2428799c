/* test_walk_rosalloc.c - the RosAlloc walker on hand-made page maps and runs: bracket
 * geometry per version row, 7.0+ free-list runs (lists, orphans, damaged links), 5.x/6.0
 * bitmap runs, page-level allocations, and page-map damage. */
#include "tests/unit/t.h"
#include "tests/unit/walk_fixture.h"

#define BASE 0x12c00000ull
#define PMVA 0x7f0000000000ull
#define PAGES 16

static uint8_t heap[PAGES * 4096], pm[4096];

static void test_geometry(void)
{
	/* bracket tables computed from RosAlloc::Initialize (runtime/gc/allocator/rosalloc.cc @R60, @R70): idx, slot size, pages, slots, header */
	static const struct { const char *fam; unsigned idx; uint32_t size, pages, slots, header; } t[] = {
		{ "7.1", 0, 8, 1, 502, 80 },    { "7.1", 2, 24, 1, 166, 112 },  { "7.1", 8, 72, 1, 54, 208 },
		{ "7.1", 15, 128, 1, 31, 128 }, { "7.1", 16, 144, 1, 27, 208 }, { "11", 36, 464, 1, 7, 848 },
		{ "11", 40, 1024, 2, 7, 1024 }, { "8.0", 41, 2048, 4, 7, 2048 }, { "7.0", 31, 384, 1, 9, 640 },
		{ "6.0", 0, 16, 1, 249, 112 },  { "6.0", 6, 112, 1, 35, 176 },  { "5.1", 12, 208, 4, 77, 368 },
		{ "6.0", 24, 400, 8, 80, 768 }, { "6.0", 33, 2048, 32, 63, 2048 }, { "5.0", 4, 80, 2, 101, 112 },
		{ "5.0", 5, 96, 2, 84, 128 },   { "5.0", 7, 128, 2, 63, 128 },  { "5.0", 3, 64, 1, 63, 64 },
	};
	T_SECTION("bracket geometry per version row");
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		uint32_t size, pages, slots, header;
		T_EQ_I(walk_rosalloc_geometry(t[i].fam, t[i].idx, &size, &pages, &slots, &header), 0);
		T_CHECK(size == t[i].size && pages == t[i].pages && slots == t[i].slots && header == t[i].header,
			"%s bracket %u: size %u pages %u slots %u header %u, expected %u %u %u %u", t[i].fam, t[i].idx,
			size, pages, slots, header, t[i].size, t[i].pages, t[i].slots, t[i].header);
	}
	/* every run is exactly filled: header + slots * size = pages * 4096 */
	const char *fams[] = { "5.0", "5.1", "6.0", "7.0", "11" };
	for (size_t f = 0; f < 5; f++)
		for (unsigned i = 0; i < 42; i++) {
			uint32_t size, pages, slots, header;
			if (walk_rosalloc_geometry(fams[f], i, &size, &pages, &slots, &header))
				continue;
			T_CHECK(header + slots * size == pages * 4096, "%s bracket %u does not fill its run", fams[f], i);
		}
	uint32_t a, b, c, d;
	T_EQ_I(walk_rosalloc_geometry("6.0", 34, &a, &b, &c, &d), -1);
	T_EQ_I(walk_rosalloc_geometry("4.4", 0, &a, &b, &c, &d), -1);
}

/* A 7.0+ free-list run of bracket idx at page p; free slots listed in ascending order. */
static void fl_run(unsigned p, unsigned idx, const unsigned *used, size_t nused, unsigned ps, uint32_t klass)
{
	uint32_t size, pages, slots, header;
	walk_rosalloc_geometry("7.1", idx, &size, &pages, &slots, &header);
	uint8_t *r = heap + (size_t)p * 4096;
	uint64_t va = BASE + (uint64_t)p * 4096, prev = 0;
	unsigned n = 0;
	r[1] = (uint8_t)idx;
	pm[p] = 2;
	for (uint32_t k = 1; k < pages; k++)
		pm[p + k] = 3;
	for (uint32_t k = slots; k-- > 0;) {
		bool is_used = false;
		for (size_t j = 0; j < nused; j++)
			is_used |= used[j] == k;
		uint8_t *s = r + header + (size_t)k * size;
		if (is_used) {
			wf_w32(s, klass);
			continue;
		}
		if (ps == 8)
			wf_w64(s, prev);
		else
			wf_w32(s, (uint32_t)prev);
		prev = va + header + (uint64_t)k * size;
		n++;
	}
	wf_w64(r + 8, prev);
	wf_w32(r + 24, n);
}

static struct art_space *setup(struct wf *f, const char *fam, unsigned ps)
{
	wf_init(f, fam, ps);
	img_add_region_mem(&f->img, BASE, heap, sizeof(heap), 6, "[anon:dalvik-main space]", &f->e);
	img_add_region_mem(&f->img, PMVA, pm, sizeof(pm), 6, "[anon:dalvik-rosalloc page map]", &f->e);
	struct art_space *s = wf_space(f, SPACE_ROSALLOC, BASE, BASE + sizeof(heap), BASE + sizeof(heap), "main space");
	s->companion = PMVA;
	wf_class(f, 0x12c05000);  /* the class word of the test objects (a slot boundary of page 4's run) */
	return s;
}

static void test_freelist(unsigned ps)
{
	struct wf f;
	char name[64];
	snprintf(name, sizeof(name), "7.1 free-list runs, %u-bit", ps * 8);
	T_SECTION(name);
	memset(heap, 0, sizeof(heap));
	memset(pm, 0, sizeof(pm));
	static const unsigned used[] = { 0, 5, 7 };
	fl_run(0, 3, used, 3, ps, 0x12c05000);        /* 32-byte slots, 125 */
	pm[1] = 4; pm[2] = 5;                          /* a page-level allocation over two pages */
	wf_w32(heap + 4096, 0x12c05000);
	pm[3] = 1;
	fl_run(4, 40, used, 1, ps, 0x12c05000);       /* 1 KiB slots over 2 pages, slot 0 used */
	struct art_space *s = setup(&f, "7.1", ps);
	T_EQ_I(wf_walk(&f, s), 0);
	T_EQ_U(f.sink.total, 0);
	T_EQ_U(f.nc, 125 + 1 + 7);
	T_EQ_U(wf_count(&f, WALK_ALLOCATED), 3 + 1 + 1);
	const struct walk_candidate *c = wf_at(&f, BASE + 96 + 5 * 32);
	T_CHECK(c && c->alloc == WALK_ALLOCATED && c->place == WALK_ROSALLOC_SLOT && c->index == 5 && c->room == 32,
		"slot 5 of the first run");
	c = wf_at(&f, BASE + 96 + 6 * 32);
	T_CHECK(c && c->alloc == WALK_FREE && c->clobbered == ps && c->where == BASE, "slot 6 free, clobbered %u",
		c ? c->clobbered : 0);
	c = wf_at(&f, BASE + 4096);
	T_CHECK(c && c->place == WALK_ROSALLOC_LARGE && c->room == 8192 && c->alloc == WALK_ALLOCATED, "large object");
	/* units: run, large, free pages, run */
	T_EQ_U(f.nu, 4);
	T_CHECK(f.u[0].kind == WALK_UNIT_RUN && f.u[0].bracket == 3 && f.u[0].allocated == 3 && f.u[0].free == 122,
		"first run unit");
	T_CHECK(f.u[1].kind == WALK_UNIT_LARGE && f.u[1].pages == 2, "large unit");
	T_CHECK(f.u[2].kind == WALK_UNIT_FREE_PAGES && f.u[2].index == 3, "free pages unit");
	T_CHECK(f.u[3].kind == WALK_UNIT_RUN && f.u[3].pages == 2 && f.u[3].slots == 7, "two-page run unit");
	/* candidates ascend */
	bool up = true;
	for (size_t i = 1; i < f.nc; i++)
		up &= f.c[i].addr > f.c[i - 1].addr;
	T_CHECK(up, "candidates in ascending address order");

	/* damage: a cycle, a link out of the run, a misaligned link, a wrong size */
	uint8_t *r = heap;
	uint64_t s1 = BASE + 96 + 32, s2 = BASE + 96 + 64;
	struct { const char *what; uint64_t link; uint32_t size; } bad[] = {
		{ "cycle", s1, 2 }, { "out of run", BASE + 8192, 2 }, { "misaligned", s2 + 4, 2 }, { "size", 0, 7 },
	};
	for (size_t i = 0; i < 4; i++) {
		memset(heap, 0, 4096);
		fl_run(0, 3, used, 3, ps, 0x12c05000);
		/* the list is head s1 -> s2 -> bad[i].link */
		wf_w64(r + 8, s1);
		wf_w32(r + 24, bad[i].size);
		if (ps == 8) {
			wf_w64(heap + (s1 - BASE), s2);
			wf_w64(heap + (s2 - BASE), bad[i].link);
		} else {
			wf_w32(heap + (s1 - BASE), (uint32_t)s2);
			wf_w32(heap + (s2 - BASE), (uint32_t)bad[i].link);
		}
		T_EQ_I(wf_walk(&f, s), 0);
		T_CHECK(f.sink.per_code[ANOM_FREE_LIST] >= 1, "%s: %llu free-list anomalies", bad[i].what,
			(unsigned long long)f.sink.per_code[ANOM_FREE_LIST]);
		c = wf_at(&f, s2);
		T_CHECK(c && c->alloc == WALK_FREE, "%s: listed slot free", bad[i].what);
		/* the slots that lost their list still read free: orphans */
		c = wf_at(&f, BASE + 96 + 10 * 32);
		T_CHECK(c && c->alloc == WALK_FREE && (c->flags & WALK_F_ORPHAN), "%s: unlisted free slot is an orphan",
			bad[i].what);
		c = wf_at(&f, BASE + 96 + 5 * 32);
		T_CHECK(c && c->alloc == WALK_ALLOCATED, "%s: object slot stays allocated", bad[i].what);
		T_EQ_U(f.nc, 125 + 1 + 7);
	}
	/* a free slot with a non-zero body */
	memset(heap, 0, 4096);
	fl_run(0, 3, used, 3, ps, 0x12c05000);
	heap[96 + 6 * 32 + 20] = 1;
	T_EQ_I(wf_walk(&f, s), 0);
	T_EQ_U(f.sink.per_code[ANOM_SLOT], 1);
	wf_release(&f);
}

static void test_page_map_damage(void)
{
	struct wf f;
	T_SECTION("page-map damage");
	memset(heap, 0, sizeof(heap));
	memset(pm, 0, sizeof(pm));
	static const unsigned used[] = { 0 };
	fl_run(0, 40, used, 1, 8, 0x12c05000);  /* a two-page run ... */
	pm[1] = 1;                              /* ... whose part is missing */
	pm[2] = 3;                              /* an orphan run part */
	pm[3] = 5;                              /* an orphan large part */
	pm[4] = 9;                              /* no PageMapKind */
	pm[5] = 2;                              /* a run whose bracket index is out of range */
	heap[5 * 4096 + 1] = 42;
	pm[6] = 2;                              /* a run past the captured bytes */
	pm[PAGES + 2] = 2;
	struct art_space *s = setup(&f, "11", 8);
	s->limit = BASE + 64 * 4096;
	T_EQ_I(wf_walk(&f, s), 0);
	T_CHECK(f.sink.per_code[ANOM_PAGE_MAP] >= 4, "page-map anomalies: %llu",
		(unsigned long long)f.sink.per_code[ANOM_PAGE_MAP]);
	T_EQ_U(f.sink.per_code[ANOM_RUN_HEADER], 1);
	for (size_t i = 0; i < f.sink.count; i++)
		printf("  recorded: %s 0x%llx %s\n", anomaly_code_name(f.sink.v[i].code),
		       (unsigned long long)f.sink.v[i].va, f.sink.v[i].msg);
	/* the run at page 6 has bracket 0 and zero lists: every slot reads as an orphan free slot */
	T_CHECK(f.nc == 502, "candidates %zu", f.nc);
	/* no page map: nothing, one anomaly */
	s->companion = 0;
	T_EQ_I(wf_walk(&f, s), 0);
	T_EQ_U(f.nc, 0);
	T_EQ_U(f.sink.per_code[ANOM_PAGE_MAP], 1);
	wf_release(&f);
}

/* A 6.0 bitmap run of bracket 1 (32-byte slots, 126 slots, 4 words, header 64). */
static void test_bitmap(void)
{
	struct wf f;
	T_SECTION("6.0 bitmap runs");
	memset(heap, 0, sizeof(heap));
	memset(pm, 0, sizeof(pm));
	uint8_t *r = heap;
	pm[0] = 2;
	r[1] = 1;
	r[2] = 1;                                    /* thread-local */
	wf_w32(r + 8, 0x3ff);                        /* slots 0-9 allocated */
	wf_w32(r + 8 + 12, 0xc0000000u);             /* invalid high bits of word 3 (slots 126, 127) */
	wf_w32(r + 8 + 16, 1u << 3);                 /* slot 3 on the bulk-free bitmap */
	wf_w32(r + 8 + 32, 1u << 4);                 /* slot 4 on the thread-local-free bitmap */
	for (int k = 0; k < 10; k++)
		if (k != 3 && k != 4)
			wf_w32(r + 64 + 32 * k, 0x12c05000);
	struct art_space *s = setup(&f, "6.0", 4);
	T_EQ_I(wf_walk(&f, s), 0);
	T_EQ_U(f.sink.total, 0);
	T_EQ_U(f.nc, 126);
	T_EQ_U(wf_count(&f, WALK_ALLOCATED), 8);
	const struct walk_candidate *c = wf_at(&f, BASE + 64 + 3 * 32);
	T_CHECK(c && c->alloc == WALK_FREE && c->clobbered == 0, "bulk-freed slot 3 free");
	c = wf_at(&f, BASE + 64 + 4 * 32);
	T_CHECK(c && c->alloc == WALK_FREE && (c->flags & WALK_F_THREAD_LOCAL), "thread-local-freed slot 4 free");
	/* damage: invalid bits cleared, first_search_vec_idx_ out of range, a free slot not zero */
	wf_w32(r + 8 + 12, 0);
	wf_w32(r + 4, 9);
	heap[64 + 20 * 32 + 5] = 7;
	T_EQ_I(wf_walk(&f, s), 0);
	T_EQ_U(f.sink.per_code[ANOM_RUN_HEADER], 2);
	T_EQ_U(f.sink.per_code[ANOM_SLOT], 1);
	T_EQ_U(f.nc, 126);
	/* first_search_vec_idx_ 1 while word 0 has a free bit */
	wf_w32(r + 8 + 12, 0xc0000000u);
	wf_w32(r + 4, 1);
	heap[64 + 20 * 32 + 5] = 0;
	T_EQ_I(wf_walk(&f, s), 0);
	T_EQ_U(f.sink.per_code[ANOM_RUN_HEADER], 1);
	wf_release(&f);
}

int main(void)
{
	test_geometry();
	test_freelist(8);
	test_freelist(4);
	test_page_map_damage();
	test_bitmap();
	T_DONE();
}
