/* test_walk_region.c - the region-space walker and runtime_object_size on a hand-made region
 * space: contiguous objects, a zero gap (partial TLAB) inside a region, a Large object over
 * three regions, the 10+ dead-object poison, words that name no class, a String, arrays of
 * 1-, 4- and 8-byte components, a Class object; a damaged length word cut by the objects
 * after it (converging chains, chain.c), and arrays holding copies of objects kept whole. */
#include "art/runtime/object_size.h"
#include "tests/unit/t.h"
#include "tests/unit/walk_fixture.h"

#define RBASE 0x12c00000ull
#define RSZ (256u * 1024u)
#define NREG 6
#define KBASE 0x70000000ull

static uint8_t space[NREG * RSZ], kmem[4096];

enum { K_JLC = 0, K_OBJ, K_BYTE, K_BYTEARR, K_LONG, K_LONGARR, K_STRING, K_OBJARR };
static const uint64_t kaddr[] = { KBASE, KBASE + 0x100, KBASE + 0x200, KBASE + 0x300, KBASE + 0x400,
				  KBASE + 0x500, KBASE + 0x600, KBASE + 0x700 };

static void classes(struct wf *f)
{
	struct rt_class *k;
	for (int i = 0; i <= K_OBJARR; i++)
		wf_class(f, kaddr[i]);
	f->rt.java_lang_class = kaddr[K_JLC];
	f->classes[K_JLC].name = "java.lang.Class";
	k = &f->classes[K_OBJ];
	k->name = "Node";
	k->raw.object_size = 28;
	f->classes[K_BYTE].raw.primitive_type = 2;            /* kPrimByte */
	f->classes[K_BYTEARR].raw.component_type = (uint32_t)kaddr[K_BYTE];
	f->classes[K_LONG].raw.primitive_type = 6 | 3u << 16; /* kPrimLong, size shift in the high half */
	f->classes[K_LONGARR].raw.component_type = (uint32_t)kaddr[K_LONG];
	f->classes[K_STRING].name = "java.lang.String";
	f->classes[K_STRING].raw.object_size = 16;
	f->classes[K_OBJARR].raw.component_type = (uint32_t)kaddr[K_OBJ];
	/* the class words in memory: every class's class is java.lang.Class */
	for (int i = 0; i <= K_OBJARR; i++)
		wf_w32(kmem + (kaddr[i] - KBASE), (uint32_t)kaddr[K_JLC]);
}

static size_t put(size_t off, int k, uint32_t len_or_count)
{
	wf_w32(space + off, (uint32_t)kaddr[k]);
	if (k == K_BYTEARR || k == K_LONGARR || k == K_OBJARR)
		wf_w32(space + off + 8, len_or_count);
	if (k == K_STRING)
		wf_w32(space + off + 8, len_or_count);
	return off;
}

static void test_object_size(struct wf *f)
{
	T_SECTION("runtime_object_size");
	static const struct { size_t off; uint64_t size; } t[] = {
		{ 0, 28 },                     /* Node: object_size_ */
		{ 32, 12 + 5 },                /* byte[5] */
		{ 56, 16 + 3 * 8 },            /* long[3]: data at 16 */
		{ 96, 16 + 4 },                /* compressed String "abcd": count 4 << 1 */
		{ 120, 16 + 2 * 3 },           /* UTF-16 String of 3: count 3 << 1 | 1 */
		{ 144, 12 + 4 * 2 },           /* Node[2] */
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		uint64_t size = 0;
		int rc = runtime_object_size(&f->rt, RBASE + t[i].off, &size, &f->e);
		T_CHECK(rc == 0 && size == t[i].size, "object at +%zu: rc %d size %llu, expected %llu (%s)", t[i].off, rc,
			(unsigned long long)size, (unsigned long long)t[i].size, f->e.msg);
	}
	uint64_t size;
	T_EQ_I(runtime_object_size(&f->rt, RBASE + 4096, &size, &f->e), -ERR_CORRUPT);   /* zero class word */
	T_EQ_I(runtime_object_size(&f->rt, 0x1000, &size, &f->e), -ERR_UNMAPPED);
	/* a Class object is sized by its own class_size_ */
	wf_w32(kmem + 0x100 + f->rt.layout->klass.class_size, 500);
	T_CHECK(runtime_object_size(&f->rt, kaddr[K_OBJ], &size, &f->e) == 0 && size == 500, "class_size_ %llu",
		(unsigned long long)size);
	/* a negative array length */
	wf_w32(space + 32 + 8, 0x80000000u);
	T_EQ_I(runtime_object_size(&f->rt, RBASE + 32, &size, &f->e), -ERR_CORRUPT);
	wf_w32(space + 32 + 8, 5);
}

/* An Android 11 runtime with the classes above, the boot image's bytes and an empty region
 * space of NREG regions. */
static struct art_space *region_fixture(struct wf *f)
{
	wf_init(f, "11", 8);
	memset(space, 0, sizeof(space));
	memset(kmem, 0, sizeof(kmem));
	classes(f);
	img_add_region_mem(&f->img, KBASE, kmem, sizeof(kmem), 6, "boot.art", &f->e);
	img_add_region_mem(&f->img, RBASE, space, sizeof(space), 6, "[anon:dalvik-main space (region space)]", &f->e);
	return wf_space(f, SPACE_REGION, RBASE, RBASE + sizeof(space), RBASE + sizeof(space), "main space (region space)");
}

static void test_region_walk(void)
{
	struct wf f;
	struct art_space *s = region_fixture(&f);
	/* region 0: six objects, a zero gap (a partial TLAB), two more */
	put(0, K_OBJ, 0);
	put(32, K_BYTEARR, 5);
	put(56, K_LONGARR, 3);
	put(96, K_STRING, 4 << 1);
	memcpy(space + 112, "abcd", 4);
	put(120, K_STRING, 3 << 1 | 1);
	put(144, K_OBJARR, 2);
	put(8192, K_OBJ, 0);
	put(8224, K_OBJ, 0);
	test_object_size(&f);
	/* region 1: a byte[] of 600000 bytes: Large over regions 1-3 */
	put(RSZ, K_BYTEARR, 600000);
	/* region 4: an object, poison over a dead one (10+), an object, a word naming no class */
	put(4 * RSZ, K_OBJ, 0);
	for (int i = 0; i < 32; i += 4)
		wf_w32(space + 4 * RSZ + 32 + i, 0xBADDB01Du);
	put(4 * RSZ + 64, K_OBJ, 0);
	wf_w32(space + 4 * RSZ + 128, 0x12345678);
	put(4 * RSZ + 160, K_OBJ, 0);

	T_SECTION("region walk (11)");
	T_EQ_I(wf_walk(&f, s), 0);
	T_EQ_U(f.nc, 8 + 1 + 3);
	T_EQ_U(wf_count(&f, WALK_ALLOCATED), f.nc);
	const struct walk_candidate *c = wf_at(&f, RBASE + 144);
	T_CHECK(c && c->place == WALK_REGION && c->size == 20 && c->room == 8192 - 144, "Node[2] before the gap: room %llu",
		c ? (unsigned long long)c->room : 0);
	c = wf_at(&f, RBASE + 8192);
	T_CHECK(c && c->room == 32 && c->index == 0, "object after the gap");
	c = wf_at(&f, RBASE + RSZ);
	T_CHECK(c && c->place == WALK_REGION_LARGE && c->index == 3 && c->size == 600012, "Large object over 3 regions");
	c = wf_at(&f, RBASE + 4 * RSZ + 64);
	T_CHECK(c && c->room == 96, "object after the poison: room to the next object, past the junk word");
	T_EQ_U(f.sink.total, 1);    /* the word that names no class */
	T_EQ_U(f.sink.per_code[ANOM_REGION], 1);
	/* units: region 0, Large 1-3, region 4, free region 5 */
	T_EQ_U(f.nu, 4);
	T_CHECK(f.nu == 4 && f.u[0].state == WALK_RS_ALLOCATED && f.u[0].allocated == 8 && f.u[0].top == RBASE + 8256,
		"region 0 unit: top 0x%llx", (unsigned long long)f.u[0].top);
	T_CHECK(f.nu == 4 && f.u[1].state == WALK_RS_LARGE && f.u[1].pages == 3 && f.u[1].index == 1, "Large unit");
	T_CHECK(f.nu == 4 && f.u[2].index == 4 && f.u[2].allocated == 3 && f.u[2].damaged == 1, "region 4 unit");
	T_CHECK(f.nu == 4 && f.u[3].state == WALK_RS_FREE && f.u[3].index == 5, "free region 5");

	T_SECTION("region walk: the live bitmap marks region 4 (unevacuated): its unmarked object is dead");
	{
		static uint8_t bm[NREG * RSZ / 64];
		img_add_region_mem(&f.img, 0x7f0000000000, bm, sizeof(bm), 6, "[anon:dalvik-region space live bitmap]",
				   &f.e);
		wf_space(&f, SPACE_BITMAP, 0x7f0000000000, 0x7f0000000000 + sizeof(bm), 0x7f0000000000 + sizeof(bm),
			 "region space live bitmap");
		uint64_t live[] = { 4 * RSZ, 4 * RSZ + 160 };   /* +64 is not marked */
		for (int i = 0; i < 2; i++)
			bm[live[i] / 64] |= (uint8_t)(1u << ((live[i] / 8) % 8));
		struct walk_evidence *ev = walk_evidence_open(&f.rt, &f.sink, &f.e);
		struct walk_ctx ctx = { .rt = &f.rt, .sink = &f.sink, .emit = wf_emit, .arg = &f, .unit = wf_unit,
					.unit_arg = &f, .ev = ev };
		f.nc = f.nu = 0;
		T_EQ_I(walk_space(&ctx, s, &f.e), 0);
		c = wf_at(&f, RBASE + 4 * RSZ + 64);
		T_CHECK(c && (c->flags & WALK_F_DEAD) && c->live_bit == 0, "unmarked object in a marked region: dead");
		c = wf_at(&f, RBASE + 4 * RSZ + 160);
		T_CHECK(c && !(c->flags & WALK_F_DEAD) && c->live_bit == 1, "marked object: live");
		c = wf_at(&f, RBASE + 8192);
		T_CHECK(c && !(c->flags & WALK_F_DEAD) && c->live_bit == 0, "region without marks: no dead flag");
		T_CHECK(f.nu == 4 && f.u[2].dead == 1, "region 4 unit: one dead");
		walk_evidence_close(ev);
		f.rt.spaces.count--;
	}

	T_SECTION("region walk (9): no poison");
	f.rt.layout = art_layout_by_family("9");
	T_EQ_I(wf_walk(&f, s), 0);
	T_EQ_U(f.sink.per_code[ANOM_REGION], 1);  /* one per region: the poison is junk before 10 */
	T_CHECK(f.sink.count == 1 && strstr(f.sink.v[0].msg, "5 non-zero"), "poison + junk words: %s",
		f.sink.count ? f.sink.v[0].msg : "");

	T_SECTION("region walk: damage");
	f.rt.layout = art_layout_by_family("11");
	wf_w32(space + 56 + 8, 0x7fffffff);       /* long[] of 2^31-1 elements: past its region */
	T_EQ_I(wf_walk(&f, s), 0);
	T_CHECK(f.sink.per_code[ANOM_REGION] >= 2, "region anomalies %llu", (unsigned long long)f.sink.per_code[ANOM_REGION]);
	c = wf_at(&f, RBASE + 96);
	T_CHECK(c != NULL, "the walk finds the String after the damaged array");
	wf_release(&f);
}

/* Damaged length words (issue 23): the objects after the damaged object are found by the
 * chain that starts inside its claimed extent; arrays whose data holds copies of objects keep
 * their length. */
static void test_region_chain(void)
{
	struct wf f;
	struct art_space *s = region_fixture(&f);
	/* region 0: byte[20] (a Large claim below), byte[5] with a damaged length, long[3],
	 * Node, then zeros; a byte[68] whose data holds two Nodes that end exactly at its end, a
	 * Node; a byte[100] holding one Node then zeros, a Node right after it */
	put(0, K_BYTEARR, 20);
	put(32, K_BYTEARR, 0x1000);             /* claims 4108 bytes: up to 4144, in the zeros */
	put(56, K_LONGARR, 3);
	put(96, K_OBJ, 0);
	put(8192, K_BYTEARR, 68);
	put(8208, K_OBJ, 0);
	put(8240, K_OBJ, 0);
	put(8272, K_OBJ, 0);
	put(8304, K_BYTEARR, 100);
	put(8320, K_OBJ, 0);
	put(8416, K_OBJ, 0);
	/* a Node[3] whose last element names Node's class (a Node read there would run past the
	 * array and end where the objects after it do), two Nodes back to back after it */
	put(8448, K_OBJARR, 3);
	wf_w32(space + 8464, (uint32_t)kaddr[K_OBJ]);
	put(8472, K_OBJ, 0);
	put(8504, K_OBJ, 0);
	/* region 1: a genuine Large byte[] */
	put(RSZ, K_BYTEARR, 600000);

	T_SECTION("region walk: a damaged array length cut by the chain after it");
	T_EQ_I(wf_walk(&f, s), 0);
	const struct walk_candidate *c = wf_at(&f, RBASE + 32);
	T_CHECK(c && c->size == 24 && c->room == 24, "byte[] with length 0x1000 cut at the long[]: size %llu room %llu",
		c ? (unsigned long long)c->size : 0, c ? (unsigned long long)c->room : 0);
	T_CHECK(wf_at(&f, RBASE + 56) && wf_at(&f, RBASE + 96), "the long[] and the Node after it are walked");
	T_CHECK(f.sink.count == 1 && strstr(f.sink.v[0].msg, "array length 4096") &&
		strstr(f.sink.v[0].msg, "next object at 0x12c00038"), "anomaly: %s", f.sink.count ? f.sink.v[0].msg : "");
	c = wf_at(&f, RBASE + 8192);
	T_CHECK(c && c->size == 80 && !wf_at(&f, RBASE + 8208) && !wf_at(&f, RBASE + 8240),
		"byte[68] holding two Nodes that end at its end: one object (size %llu)", c ? (unsigned long long)c->size : 0);
	c = wf_at(&f, RBASE + 8304);
	T_CHECK(c && c->size == 112 && !wf_at(&f, RBASE + 8320) && wf_at(&f, RBASE + 8416),
		"byte[100] holding a Node, then zeros, the next object at its end: one object (size %llu)",
		c ? (unsigned long long)c->size : 0);
	c = wf_at(&f, RBASE + 8448);
	T_CHECK(c && c->size == 24 && !wf_at(&f, RBASE + 8464) && wf_at(&f, RBASE + 8472) && wf_at(&f, RBASE + 8504),
		"Node[3] whose last element reads as a Node running past it: one object (size %llu)",
		c ? (unsigned long long)c->size : 0);
	c = wf_at(&f, RBASE + RSZ);
	T_CHECK(c && c->place == WALK_REGION_LARGE && c->size == 600012, "the genuine Large byte[] stays Large");

	T_SECTION("region walk: a damaged length claiming a Large object at a region start");
	wf_w32(space + 8, 600000);              /* region 0's byte[20] claims regions 0-2 */
	T_EQ_I(wf_walk(&f, s), 0);
	c = wf_at(&f, RBASE);
	T_CHECK(c && c->place == WALK_REGION && c->size == 32, "byte[] cut to its region: place %d size %llu",
		c ? (int)c->place : -1, c ? (unsigned long long)c->size : 0);
	T_CHECK(wf_at(&f, RBASE + 32) && wf_at(&f, RBASE + 96) && wf_at(&f, RBASE + 8416),
		"region 0's objects after it are walked");
	size_t cuts = 0;
	for (size_t i = 0; i < f.sink.count; i++)
		cuts += strstr(f.sink.v[i].msg, "object at 0x12c00000:") != NULL;
	T_CHECK(cuts == 1, "the Large claim is cut once: %zu anomalies name it", cuts);
	c = wf_at(&f, RBASE + RSZ);
	T_CHECK(c && c->place == WALK_REGION_LARGE, "region 1's Large object is walked");
	wf_release(&f);
}

int main(void)
{
	test_region_walk();
	test_region_chain();
	T_DONE();
}
