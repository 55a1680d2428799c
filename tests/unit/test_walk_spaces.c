/* test_walk_spaces.c - the dlmalloc, large-object and contiguous walkers and the evidence on
 * hand-made spaces (tests/tools/walkgen.h, the fuzz image of tests/fuzz/walk_fuzz.h):
 * in-use, free and top chunks, segments and fenceposts, a zygote's compacted tail, damaged
 * chunk heads; free-list LOS blocks, their flags per family and damaged entries; map-LOS
 * allocations; bump-pointer objects with a TLAB block header; an image's objects section;
 * live bitmaps and allocation stacks tied to a space. */
#include "tests/tools/walkgen.h"
#include "tests/unit/t.h"

static uint8_t in[5 + 64 * 1024 + 8192];
static uint8_t *const A = in + 5;

struct got {
	struct walk_candidate c[256];
	size_t n;
	struct walk_unit u[64];
	size_t nu;
};

static int got_emit(void *arg, const struct walk_candidate *c, struct err *e)
{
	struct got *g = arg;
	(void)e;
	if (g->n < 256)
		g->c[g->n++] = *c;
	return 0;
}

static int got_unit(void *arg, const struct walk_unit *u, struct err *e)
{
	struct got *g = arg;
	(void)e;
	if (g->nu < 64)
		g->u[g->nu++] = *u;
	return 0;
}

static struct wfz f;

/* Walks the input [flags][a][A][B] as a space of kind k. */
static uint64_t walk(struct got *g, uint8_t flags, size_t a, size_t b, enum space_kind k)
{
	in[0] = flags;
	wg32(in + 1, a);
	struct art_space *s = wfz_open(&f, in, 5 + a + b, k);
	struct err e;
	struct walk_ctx ctx = { .rt = &f.rt, .sink = &f.sink, .emit = got_emit, .arg = g, .unit = got_unit,
				.unit_arg = g };
	memset(g, 0, sizeof(*g));
	err_init(&e);
	T_CHECK(s && walk_space(&ctx, s, &e) == 0, "walk: %s", e.msg);
	uint64_t anomalies = f.sink.total;
	for (size_t i = 0; i < f.sink.count; i++)
		printf("  anomaly %s 0x%llx %s\n", anomaly_code_name(f.sink.v[i].code), (unsigned long long)f.sink.v[i].va,
		       f.sink.v[i].msg);
	wfz_close(&f);
	return anomalies;
}

static size_t count(const struct got *g, enum walk_alloc a)
{
	size_t n = 0;
	for (size_t i = 0; i < g->n; i++)
		n += g->c[i].alloc == a;
	return n;
}

static void test_dlmalloc(unsigned S, bool zygote)
{
	struct got g;
	struct wg_dl d;
	char name[64];
	snprintf(name, sizeof(name), "dlmalloc %u-bit%s", S * 8, zygote ? ", zygote" : "");
	T_SECTION(name);
	memset(in, 0, sizeof(in));
	wg_dl_init(&d, A, WF_SPACE, S);
	uint64_t c1 = wg_dl_chunk(&d, WF_K_OBJ, 0, true);
	wg_dl_chunk(&d, WF_K_BYTEARR, 40, true);
	uint64_t cf = wg_dl_chunk(&d, -1, 48, true);
	uint64_t c4 = wg_dl_chunk(&d, WF_K_OBJARR, 6, false);
	wg_dl_chunk(&d, WF_K_STRING, 10, true);
	uint64_t top = d.c;
	wg_dl_finish(&d, WF_SPACE + 8192, true);
	size_t a = 8192;
	if (zygote) {
		wg_object(A + 8192, WF_K_OBJ, 0);
		wg_object(A + 8192 + 32, WF_K_LONGARR, 2);
		a = 12288;
	}
	uint8_t fl = 3 | (S == 8 ? 4 : 0) | (zygote ? 8 : 0);
	T_EQ_U(walk(&g, fl, a, 0, zygote ? SPACE_ZYGOTE : SPACE_DLMALLOC), 0);
	T_EQ_U(count(&g, WALK_ALLOCATED), 4 + (zygote ? 2 : 0));
	T_EQ_U(count(&g, WALK_FREE), 2);             /* the freed chunk and top */
	T_CHECK(g.n >= 6 && g.c[0].addr == c1 + 2 * S && g.c[0].where == c1 && g.c[0].room == wg_dl_pad(S, 28) - S,
		"first object at chunk + 2 * size_t: 0x%llx room %llu", g.n ? (unsigned long long)g.c[0].addr : 0,
		g.n ? (unsigned long long)g.c[0].room : 0);
	T_CHECK(g.n >= 6 && g.c[2].addr == cf + 2 * S && g.c[2].alloc == WALK_FREE && g.c[2].clobbered == 2 * S,
		"freed chunk: fd/bk clobbered (%u)", g.n > 2 ? g.c[2].clobbered : 0);
	T_CHECK(g.n >= 6 && g.c[3].addr == c4 + 2 * S && g.c[3].alloc == WALK_ALLOCATED, "chunk after the free one");
	T_CHECK(g.n >= 6 && g.c[5].addr == top + 2 * S && g.c[5].alloc == WALK_FREE, "top's payload");
	if (zygote)
		T_CHECK(g.n == 8 && g.c[6].place == WALK_BUMP && g.c[6].addr == WF_SPACE + 8192 && g.c[7].size == 32,
			"compacted tail objects");
	/* damage: a head past the space; the walk resumes at the next plausible chunk */
	uint64_t saved;
	memcpy(&saved, A + (c1 - WF_SPACE) + S, S);
	wgp(A + (c1 - WF_SPACE) + S, 0x10000000u | 3, S);
	T_CHECK(walk(&g, fl, a, 0, zygote ? SPACE_ZYGOTE : SPACE_DLMALLOC) >= 1, "damaged head recorded");
	T_CHECK(count(&g, WALK_ALLOCATED) >= 2, "walk resumed after the damaged chunk: %zu allocated",
		count(&g, WALK_ALLOCATED));
	memcpy(A + (c1 - WF_SPACE) + S, &saved, S);
	/* damage: the free chunk's footer */
	wgp(A + (cf - WF_SPACE) + wg_dl_pad(S, 48), 12345, S);
	T_CHECK(walk(&g, fl, a, 0, zygote ? SPACE_ZYGOTE : SPACE_DLMALLOC) >= 1, "bad footer recorded");
	/* no mspace header */
	memset(A, 0, 64);
	T_CHECK(walk(&g, fl, a, 0, SPACE_DLMALLOC) == 1 && g.n == 0, "no header: one anomaly, no candidate");
}

static void test_los(void)
{
	struct got g;
	T_SECTION("free-list LOS");
	for (int fam = 0; fam < 2; fam++) {
		memset(in, 0, sizeof(in));
		uint8_t *B = A + 6 * 4096;
		uint32_t freeflag = fam ? 0x80000000u : 0x08000000u;
		wg_object(A, WF_K_BYTEARR, 6000);
		wg_object(A + 3 * 4096, WF_K_LONGARR, 1000);
		wg_los_entry(B, 0, 0, 2, 0);
		wg_los_entry(B, 2, 0, 1, freeflag);
		wg_los_entry(B, 3, 1, 3, 0);
		T_EQ_U(walk(&g, (fam ? 3 : 0) | 4, 6 * 4096, 6 * 8, SPACE_LOS_FREELIST), 0);
		T_CHECK(g.n == 3 && g.c[0].room == 8192 && g.c[1].alloc == WALK_FREE && g.c[2].addr == WF_SPACE + 3 * 4096 &&
			g.c[2].alloc == WALK_ALLOCATED, "%s: blocks 2 + 1 (free) + 3 pages", fam ? "11" : "5.0");
		/* the other family's flag is no flag: a block of 0x08000001 pages runs past the space */
		T_EQ_U(walk(&g, (fam ? 0 : 3) | 4, 6 * 4096, 6 * 8, SPACE_LOS_FREELIST), 1);
		/* prev_free_ disagrees */
		wg_los_entry(B, 3, 7, 3, 0);
		T_EQ_U(walk(&g, (fam ? 3 : 0) | 4, 6 * 4096, 6 * 8, SPACE_LOS_FREELIST), 1);
	}
	T_SECTION("map LOS allocation");
	memset(in, 0, sizeof(in));
	wg_object(A, WF_K_BYTEARR, 9000);
	T_EQ_U(walk(&g, 3 | 8, 3 * 4096, 0, SPACE_LOS_ALLOCATION), 0);
	T_CHECK(g.n == 1 && g.c[0].addr == WF_SPACE && g.c[0].room == 3 * 4096 && g.c[0].place == WALK_LOS,
		"one object at the mapping start");
}

/* The zero gap of a bump-pointer space that ART's own walk stops at: objects back to back from
 * the begin, zeros, objects again from a page boundary (walk_unit.gap_*, contig.c). */
static void test_walk_gap(void)
{
	struct got g;
	T_SECTION("bump-pointer walk gap");
	memset(in, 0, sizeof(in));
	size_t off = 0;
	off += (wg_object(A + off, WF_K_OBJ, 0) + 7) & ~7u;
	off += (wg_object(A + off, WF_K_BYTEARR, 9) + 7) & ~7u;
	size_t gap = off, after = 4096;
	after += (wg_object(A + after, WF_K_STRING, 5) + 7) & ~7u;
	size_t end = after + ((wg_object(A + after, WF_K_OBJ, 0) + 7) & ~7u);
	T_EQ_U(walk(&g, 3 | 4, 3 * 4096, 0, SPACE_BUMP_POINTER), 0);
	T_CHECK(g.n == 4 && g.nu == 1 && g.u[0].gap_begin == WF_SPACE + gap && g.u[0].gap_end == WF_SPACE + 4096 &&
			g.u[0].top == WF_SPACE + end,
		"gap 0x%llx-0x%llx, top 0x%llx", g.nu ? (unsigned long long)g.u[0].gap_begin : 0ull,
		g.nu ? (unsigned long long)g.u[0].gap_end : 0ull, g.nu ? (unsigned long long)g.u[0].top : 0ull);
	/* objects after the zeros off a page boundary: a TLAB tail, no gap */
	memmove(A + 4096 + 8, A + 4096, end - 4096);
	memset(A + 4096, 0, 8);
	T_EQ_U(walk(&g, 3 | 4, 3 * 4096, 0, SPACE_BUMP_POINTER), 0);
	T_CHECK(g.n == 4 && g.nu == 1 && !g.u[0].gap_begin && !g.u[0].gap_end, "no gap off a page boundary");
	/* a word naming no class before the page: damage, no gap */
	memmove(A + 4096, A + 4096 + 8, end - 4096);
	wg32(A + gap + 64, 0x1234);
	T_EQ_U(walk(&g, 3 | 4, 3 * 4096, 0, SPACE_BUMP_POINTER), 1);
	T_CHECK(g.nu == 1 && !g.u[0].gap_end, "no gap after damage");
	/* nothing after the zeros: no gap */
	memset(A + gap, 0, 3 * 4096 - gap);
	T_EQ_U(walk(&g, 3 | 4, 3 * 4096, 0, SPACE_BUMP_POINTER), 0);
	T_CHECK(g.n == 2 && g.nu == 1 && !g.u[0].gap_begin && !g.u[0].gap_end, "no gap at the end");
}

static void test_contiguous(void)
{
	struct got g;
	T_SECTION("bump-pointer and image objects");
	memset(in, 0, sizeof(in));
	size_t off = 0;
	off += (wg_object(A + off, WF_K_OBJ, 0) + 7) & ~7u;
	off += (wg_object(A + off, WF_K_BYTEARR, 9) + 7) & ~7u;
	wg64(A + off, 64);                    /* BlockHeader {size 64, unused 0} */
	off += 16;
	off += (wg_object(A + off, WF_K_STRING, 5) + 7) & ~7u;
	wg_object(A + off, WF_K_OBJARR, 3);
	T_EQ_U(walk(&g, 3 | 4, 4096, 0, SPACE_BUMP_POINTER), 0);
	T_CHECK(g.n == 4 && g.c[2].addr == WF_SPACE + 72 && g.c[2].size == 21 && g.c[1].room == 40,
		"objects around a TLAB block header (%zu)", g.n);
	wg32(A + 200, 0x1234);                /* a word naming no class */
	T_EQ_U(walk(&g, 3 | 4, 4096, 0, SPACE_BUMP_POINTER), 1);
	test_walk_gap();
	memset(in, 0, sizeof(in));
	off = 256;                            /* the 11 ImageHeader is 256 bytes */
	off += (wg_object(A + off, WF_K_OBJ, 0) + 7) & ~7u;
	off += (wg_object(A + off, WF_K_LONGARR, 4) + 7) & ~7u;
	wg_object(A + off, WF_K_STRING, 8);
	/* no ImageHeader here (zeros): recorded; the walk keeps the layout row's header size */
	T_EQ_U(walk(&g, 3 | 4 | 8, off + 24, 0, SPACE_IMAGE), 1);
	T_CHECK(g.n == 3 && g.c[0].place == WALK_IMAGE && g.c[2].index == 2 && g.c[0].addr == WF_SPACE + 256,
		"image objects numbered from the header end");
	T_EQ_U(walk(&g, 3 | 4 | 8, off + 40, 0, SPACE_IMAGE), 2);  /* and the section ends past the last object */
}

static void test_evidence(void)
{
	T_SECTION("evidence: live bitmap and allocation stack");
	static uint8_t space[64 * 1024], bm[4096], bm2[4096], stack[4096], cards[4096];
	struct image img;
	struct art_runtime rt;
	struct art_space sp[6];
	struct anomaly_sink sink;
	struct err e;
	memset(&rt, 0, sizeof(rt));
	memset(sp, 0, sizeof(sp));
	err_init(&e);
	anomaly_init(&sink, 0);
	img_init_empty(&img, "ev");
	rt.img = &img;
	rt.layout = art_layout_by_family("11");
	rt.pointer_size = 8;
	/* objects at +0 and +64; the live bitmap marks +0, the allocation stack holds +64 */
	wg32(space, WF_KADDR(WF_K_OBJ));
	wg32(space + 64, WF_KADDR(WF_K_OBJ));
	bm[0] = 1;
	wg32(stack + 8, WF_SPACE + 64);
	cards[3] = 0x70;
	img_add_region_mem(&img, WF_SPACE, space, sizeof(space), 6, "[anon:dalvik-main space]", &e);
	img_add_region_mem(&img, 0x7f0000000000, bm2, sizeof(bm2), 6, "x", &e);
	img_add_region_mem(&img, 0x7f0000010000, bm, sizeof(bm), 6, "y", &e);
	img_add_region_mem(&img, 0x7f0000020000, stack, sizeof(stack), 6, "z", &e);
	img_add_region_mem(&img, 0x7f0000030000, cards, sizeof(cards), 6, "c", &e);
	sp[0] = (struct art_space){ .kind = SPACE_ROSALLOC, .begin = WF_SPACE, .end = WF_SPACE + sizeof(space),
				    .limit = WF_SPACE + 256 * 1024, .name = "main space" };
	/* two bitmaps of the size for a 256 KiB space (4 KiB): one empty, one marking +0 */
	sp[1] = (struct art_space){ .kind = SPACE_BITMAP, .begin = 0x7f0000000000, .end = 0x7f0000001000,
				    .limit = 0x7f0000001000, .name = "allocspace main rosalloc space mark-bitmap 1" };
	sp[2] = (struct art_space){ .kind = SPACE_BITMAP, .begin = 0x7f0000010000, .end = 0x7f0000011000,
				    .limit = 0x7f0000011000, .name = "allocspace main rosalloc space live-bitmap 1" };
	sp[3] = (struct art_space){ .kind = SPACE_ALLOCATION_STACK, .begin = 0x7f0000020000, .end = 0x7f0000021000,
				    .limit = 0x7f0000021000, .name = "allocation stack" };
	sp[4] = (struct art_space){ .kind = SPACE_CARD_TABLE, .begin = 0x7f0000030000, .end = 0x7f0000031000,
				    .limit = 0x7f0000031000, .name = "card table" };
	rt.spaces.v = sp;
	rt.spaces.count = 5;
	struct walk_evidence *ev = walk_evidence_open(&rt, &sink, &e);
	T_CHECK(ev != NULL, "evidence opens");
	if (!ev)
		return;
	T_EQ_I(walk_evidence_live(ev, &sp[0], WF_SPACE), 1);
	T_EQ_I(walk_evidence_live(ev, &sp[0], WF_SPACE + 64), 0);
	T_EQ_I(walk_evidence_on_stack(ev, WF_SPACE + 64), 1);
	T_EQ_I(walk_evidence_on_stack(ev, WF_SPACE), 0);
	T_EQ_I(walk_evidence_marked(ev, &sp[0], WF_SPACE, WF_SPACE + 4096), 1);
	T_EQ_I(walk_evidence_marked(ev, &sp[0], WF_SPACE + 4096, WF_SPACE + 8192), 0);
	struct walk_ev_report r[WALK_EV_COUNT];
	walk_evidence_report(ev, r);
	T_CHECK(r[WALK_EV_LIVE_BITMAP].present && r[WALK_EV_LIVE_BITMAP].used && r[WALK_EV_LIVE_BITMAP].mappings == 2 &&
		r[WALK_EV_LIVE_BITMAP].entries == 1, "live bitmap report");
	T_CHECK(r[WALK_EV_ALLOC_STACK].present && r[WALK_EV_ALLOC_STACK].entries == 1, "allocation stack report");
	T_CHECK(r[WALK_EV_CARD_TABLE].present && !r[WALK_EV_CARD_TABLE].used && r[WALK_EV_CARD_TABLE].entries == 1,
		"card table: present, one dirty card, not used");
	T_CHECK(!r[WALK_EV_LIVE_STACK].present && !r[WALK_EV_LOS_BITMAP].present, "absent sources");
	T_EQ_U(sink.total, 0);
	walk_evidence_close(ev);
	/* a stack entry that is no heap address is damage */
	wg32(stack + 16, 0x13);
	ev = walk_evidence_open(&rt, &sink, &e);
	T_EQ_U(sink.per_code[ANOM_EVIDENCE], 1);
	walk_evidence_close(ev);
	anomaly_release(&sink);
	img_close(&img);
}

int main(void)
{
	test_dlmalloc(8, false);
	test_dlmalloc(4, false);
	test_dlmalloc(8, true);
	test_dlmalloc(4, true);
	test_los();
	test_contiguous();
	test_evidence();
	T_DONE();
}
