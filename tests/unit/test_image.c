/* test_image.c - maps parser, region lookups and reads, ELF core loading (generated core,
 * truncations, corrupted fields) and the detection of every container from hand-made
 * directories in a scratch directory. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "carver/base/mapfile.h"
#include "carver/base/xalloc.h"
#include "carver/image/image.h"
#include "carver/image/image_int.h"
#include "carver/image/maps.h"
#include "t.h"
#include "tests/tools/img_coregen.h"

static char scratch[256];

/* ---- helpers ---- */

static void put_file(const char *dir, const char *name, const void *p, size_t n)
{
	char path[512];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fp = fopen(path, "wb");
	T_CHECK(fp != NULL, "create %s", path);
	if (fp) {
		if (n)
			fwrite(p, 1, n, fp);
		fclose(fp);
	}
}

static void put_text(const char *dir, const char *name, const char *text) { put_file(dir, name, text, strlen(text)); }

static const char *new_dir(const char *name)
{
	static char path[512];
	snprintf(path, sizeof(path), "%s/%s", scratch, name);
	mkdir(path, 0755);
	return path;
}

/* ---- maps ---- */

static void test_maps_line(void)
{
	struct arena a;
	struct maps_entry m;
	struct err e;
	const char *l;

	T_SECTION("maps lines");
	arena_init(&a);
	err_init(&e);
	l = "12c00000-2ac00000 rw-p 00000000 00:00 0                                  [anon:dalvik-main space (region space)]\n";
	T_EQ_I(maps_parse_line(l, strlen(l), 1, &m, &a, &e), 0);
	T_EQ_U(m.start, 0x12c00000);
	T_EQ_U(m.end, 0x2ac00000);
	T_EQ_U(m.prot, IMG_PROT_R | IMG_PROT_W);
	T_CHECK(!m.shared, "private");
	T_EQ_S(m.name, "[anon:dalvik-main space (region space)]");

	l = "7f4c0a9ed000-7f4c0aea8000 r-xs 0001a000 fd:03 123456    /dev/ashmem/dalvik-main space (deleted)\r\n";
	T_EQ_I(maps_parse_line(l, strlen(l), 2, &m, &a, &e), 0);
	T_EQ_U(m.start, 0x7f4c0a9ed000ull);
	T_EQ_U(m.prot, IMG_PROT_R | IMG_PROT_X);
	T_CHECK(m.shared, "shared");
	T_EQ_U(m.offset, 0x1a000);
	T_EQ_U(m.inode, 123456);
	T_CHECK(m.deleted, "deleted flag");
	T_EQ_S(m.name, "/dev/ashmem/dalvik-main space (deleted)");

	l = "0x1000-0x2000 ---p";
	T_EQ_I(maps_parse_line(l, strlen(l), 3, &m, &a, &e), 0);
	T_EQ_U(m.prot, 0);
	T_EQ_S(m.name, "");

	l = "1000-2000 r--p [vdso]";        /* no offset/dev/inode columns */
	T_EQ_I(maps_parse_line(l, strlen(l), 4, &m, &a, &e), 0);
	T_EQ_S(m.name, "[vdso]");
	l = "1000-2000 r--p cafe babe";     /* a name that starts with hex digits */
	T_EQ_I(maps_parse_line(l, strlen(l), 5, &m, &a, &e), 0);
	T_EQ_S(m.name, "cafe babe");
	T_EQ_U(m.offset, 0);
	l = "ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]";
	T_EQ_I(maps_parse_line(l, strlen(l), 6, &m, &a, &e), 0);
	T_EQ_U(m.end, 0xffffffffff601000ull);

	T_EQ_I(maps_parse_line("   \r\n", 5, 7, &m, &a, &e), 1);
	T_EQ_I(maps_parse_line("", 0, 7, &m, &a, &e), 1);

	l = "2000-1000 r--p 0 00:00 0";
	T_EQ_I(maps_parse_line(l, strlen(l), 8, &m, &a, &e), -ERR_CORRUPT);
	T_CHECK(strstr(e.msg, "maps line 8") && strstr(e.msg, "end address"), "%s", e.msg);
	l = "1000-2000 rwzp 0 00:00 0";
	T_EQ_I(maps_parse_line(l, strlen(l), 9, &m, &a, &e), -ERR_CORRUPT);
	T_CHECK(strstr(e.msg, "permissions") != NULL, "%s", e.msg);
	l = "hello world";
	T_EQ_I(maps_parse_line(l, strlen(l), 10, &m, &a, &e), -ERR_CORRUPT);
	l = "10000000000000000-10000000000000001 r--p"; /* 17 digits */
	T_EQ_I(maps_parse_line(l, strlen(l), 11, &m, &a, &e), -ERR_CORRUPT);
	l = "1000-";
	T_EQ_I(maps_parse_line(l, strlen(l), 12, &m, &a, &e), -ERR_CORRUPT);
	l = "1000-2000 r-";
	T_EQ_I(maps_parse_line(l, strlen(l), 13, &m, &a, &e), -ERR_CORRUPT);
	T_EQ_I(maps_parse_line("1000-2000 r--p \0x", 17, 14, &m, &a, &e), -ERR_CORRUPT);
	arena_release(&a);
}

static void test_maps_listing(void)
{
	static const char text[] =
		"1000-3000 r--p 00000000 00:00 0 a\n"
		"\n"
		"2000-4000 rw-p 00000000 00:00 0 b\n" /* overlaps the first: kept, last wins in find */
		"5000-6000 rw-p 00000000 00:00 0";    /* no final newline */
	struct maps m;
	struct err e;
	char buf[5];

	T_SECTION("maps listing");
	maps_init(&m);
	err_init(&e);
	T_EQ_I(maps_parse(&m, (const uint8_t *)text, strlen(text), &e), 0);
	T_EQ_U(m.count, 3);
	T_EQ_S(maps_find(&m, 0x1000)->name, "a");
	T_EQ_S(maps_find(&m, 0x2800)->name, "b");
	T_CHECK(maps_find(&m, 0x4000) == NULL, "gap");
	T_EQ_S(maps_find(&m, 0x5fff)->name, "");
	T_EQ_S(maps_prot_text(IMG_PROT_R | IMG_PROT_X, true, buf), "r-xs");
	maps_release(&m);
	maps_init(&m);
	T_EQ_I(maps_parse(&m, (const uint8_t *)"1000-2000 r--p\nbad\n", 19, &e), -ERR_CORRUPT);
	T_CHECK(strstr(e.msg, "line 2") != NULL, "%s", e.msg);
	maps_release(&m);
}

/* ---- regions built in memory ---- */

static void test_regions(void)
{
	static uint8_t a[0x1000], b[0x1000], c[0x800];
	struct image img;
	struct cursor cur;
	struct err e;
	uint8_t buf[0x40];
	char prot[4];

	T_SECTION("regions: find, view, read");
	for (size_t i = 0; i < sizeof(a); i++) {
		a[i] = (uint8_t)i;
		b[i] = (uint8_t)(i + 0x80);
	}
	memset(c, 0xcc, sizeof(c));
	img_init_empty(&img, "mem");
	err_init(&e);
	T_EQ_S(img.container, "memory");
	T_EQ_I(img_add_region_mem(&img, 0x2000, b, sizeof(b), IMG_PROT_R, "b", &e), 0);
	T_EQ_I(img_add_region_mem(&img, 0x1000, a, sizeof(a), IMG_PROT_R | IMG_PROT_W, "a", &e), 0);
	T_EQ_I(img_add_region_mem(&img, 0x5000, c, sizeof(c), IMG_PROT_R, NULL, &e), 0);
	T_EQ_I(img_add_region_mem(&img, 0x2800, a, 0x1000, IMG_PROT_R, "overlap", &e), -ERR_CORRUPT);
	T_EQ_I(img_add_region_mem(&img, 0x0800, a, 0x1000, IMG_PROT_R, "overlap", &e), -ERR_CORRUPT);
	T_EQ_I(img_add_region_mem(&img, 0x9000, a, 0, IMG_PROT_R, "empty", &e), -ERR_CORRUPT);
	T_EQ_I(img_add_region_mem(&img, UINT64_MAX - 4, a, 16, IMG_PROT_R, "wrap", &e), -ERR_CORRUPT);
	T_EQ_U(img.region_count, 3);
	T_EQ_U(img.regions[0].start, 0x1000);
	T_EQ_S(img.regions[2].name, "");
	T_EQ_U(img_captured_bytes(&img), 0x2800);
	T_EQ_S(img_prot_text(img.regions[0].prot, prot), "rw-");

	{
		/* regions added in a scattered order end up sorted, each found at its address */
		struct image many;
		unsigned bad = 0;
		img_init_empty(&many, "many");
		for (uint64_t i = 0; i < 1000; i++) {
			uint64_t slot = i * 617 % 1000;     /* 617 is coprime with 1000: every slot once */
			if (img_add_region_mem(&many, 0x100000 + slot * 0x2000, a, 0x1000, IMG_PROT_R, "m", &e))
				bad++;
		}
		T_EQ_I(img_add_region_mem(&many, 0x100000 + 500 * 0x2000 + 0xfff, a, 2, IMG_PROT_R, "x", &e),
		       -ERR_CORRUPT);
		T_EQ_I(img_add_region_mem(&many, 0x100000 + 500 * 0x2000 + 0x1000, a, 0x1000, IMG_PROT_R, "gap", &e), 0);
		for (size_t i = 1; i < many.region_count; i++)
			bad += many.regions[i - 1].end > many.regions[i].start;
		T_EQ_U(many.region_count, 1001);
		T_CHECK(bad == 0, "%u regions failed to add or are out of order", bad);
		T_EQ_S(img_find(&many, 0x100000 + 500 * 0x2000 + 0x1800)->name, "gap");
		img_close(&many);
	}
	{
		/* img_peek: the same copy as img_read, true/false and no error for probes */
		uint8_t pk[8] = { 0 };
		T_CHECK(img_peek(&img, 0x1ffc, pk, 8) && pk[3] == a[0xfff] && pk[4] == b[0], "peek across abutting regions");
		T_CHECK(!img_peek(&img, 0x2ffc, pk, 8), "peek over a gap is false");
		T_CHECK(!img_peek(&img, UINT64_MAX - 2, pk, 8), "peek past the address space is false");
		T_CHECK(img_peek(&img, 0x3000, pk, 0), "an empty peek is true");
	}
	{
		/* img_span: one region's bytes in place; unlike img_peek it does not join abutting ones */
		size_t rest = 1;
		T_CHECK(img_span(&img, 0x1ff0, 0x10, &rest) == a + 0xff0, "span inside region a points into a");
		T_EQ_U(rest, 0x10);
		T_CHECK(img_span(&img, 0x1ffc, 8, &rest) == NULL, "span across abutting regions is NULL");
		T_EQ_U(rest, 0);
		T_CHECK(img_span(&img, 0x2000, 4, NULL) == b, "span at region b's start points at b");
		T_CHECK(img_span(&img, 0x5400, 0, &rest) == c + 0x400, "an empty span inside region c");
		T_EQ_U(rest, 0x400);
		T_CHECK(img_span(&img, 0x5800, 0, &rest) == NULL, "the region's end is outside it, even empty");
		T_EQ_U(rest, 0);
		T_CHECK(img_span(&img, 0x3000, 0, &rest) == NULL, "span in a gap is NULL, even empty");
		T_CHECK(img_span(&img, 0x5000, SIZE_MAX, &rest) == NULL, "a span longer than the region is NULL");
		T_EQ_U(rest, 0);
	}
	T_CHECK(img_find(&img, 0xfff) == NULL, "below");
	T_EQ_S(img_find(&img, 0x1000)->name, "a");
	T_EQ_S(img_find(&img, 0x1fff)->name, "a");
	T_EQ_S(img_find(&img, 0x2000)->name, "b");
	T_CHECK(img_find(&img, 0x3000) == NULL, "gap start");
	T_CHECK(img_find(&img, 0x5800) == NULL, "end is exclusive");

	T_EQ_I(img_view(&img, 0x1ff0, 0x10, &cur, &e), 0);
	T_EQ_U(cur.va, 0x1ff0);
	T_EQ_U(cur.len, 0x10);
	T_EQ_U(cur.base[0], 0xf0);
	T_EQ_I(img_view(&img, 0x1ff0, 0x11, &cur, &e), -ERR_UNMAPPED); /* crosses into b */
	T_EQ_I(img_view(&img, 0x2000, 0, &cur, &e), 0);
	T_EQ_I(img_view(&img, 0x4000, 1, &cur, &e), -ERR_UNMAPPED);
	T_CHECK(strstr(e.msg, "0x4000") && strstr(e.msg, "not mapped"), "%s", e.msg);

	T_EQ_I(img_read(&img, 0x1fe0, buf, 0x40, &e), 0); /* across a|b */
	T_EQ_U(buf[0], 0xe0);
	T_EQ_U(buf[0x1f], 0xff);
	T_EQ_U(buf[0x20], 0x80);
	T_EQ_U(buf[0x3f], 0x9f);
	T_EQ_I(img_read(&img, 0x2fe0, buf, 0x40, &e), -ERR_UNMAPPED); /* b then gap */
	T_EQ_U(e.va, 0x3000);
	T_CHECK(strstr(e.msg, "0x3000") != NULL, "%s", e.msg);
	T_EQ_I(img_read(&img, 0x57f0, buf, 0x20, &e), -ERR_UNMAPPED);
	T_EQ_I(img_read(&img, UINT64_MAX - 8, buf, 0x20, &e), -ERR_UNMAPPED);
	T_EQ_I(img_read(&img, 0x5000, buf, 0, &e), 0);
	img_close(&img);
	img_close(&img); /* safe twice */
}

/* ---- files as regions (img_from_file, img_add_file) ---- */

static void test_files(void)
{
	const char *dir = new_dir("files");
	uint8_t bytes[0x40], buf[0x20];
	char pa[512], pb[512], pe[512];
	struct image img;
	struct cursor whole, view;
	struct err e;

	T_SECTION("files as regions");
	for (size_t i = 0; i < sizeof(bytes); i++)
		bytes[i] = (uint8_t)(0xa0 + i);
	put_file(dir, "a.bin", bytes, sizeof(bytes));
	put_file(dir, "b.bin", bytes, 0x10);
	put_file(dir, "empty.bin", bytes, 0);
	snprintf(pa, sizeof(pa), "%s/a.bin", dir);
	snprintf(pb, sizeof(pb), "%s/b.bin", dir);
	snprintf(pe, sizeof(pe), "%s/empty.bin", dir);
	err_init(&e);

	/* one file at a chosen address: one read-only region named by the path */
	T_EQ_I(img_from_file(&img, pa, 0x70000000, &whole, &e), 0);
	T_EQ_S(img.container, "file");
	T_EQ_S(img.path, pa);
	T_EQ_U(img.region_count, 1);
	T_EQ_U(img.regions[0].start, 0x70000000);
	T_EQ_U(img.regions[0].end, 0x70000040);
	T_EQ_U(img.regions[0].prot, IMG_PROT_R);
	T_EQ_U(img.regions[0].file_offset, 0);
	T_EQ_S(img.regions[0].name, pa);
	T_EQ_U(whole.va, 0x70000000);
	T_EQ_U(whole.len, sizeof(bytes));
	T_EQ_U(whole.pos, 0);
	T_CHECK(whole.base == img.regions[0].data, "the cursor views the mapped bytes, no copy");
	T_CHECK(whole.base && !memcmp(whole.base, bytes, sizeof(bytes)), "mapped bytes equal the file");

	/* reads through the image view, bounded by the file's extent */
	T_EQ_I(img_read(&img, 0x70000030, buf, 0x10, &e), 0);
	T_EQ_U(buf[0], 0xd0);
	T_EQ_U(buf[0xf], 0xdf);
	T_EQ_I(img_view(&img, 0x70000000, sizeof(bytes), &view, &e), 0);
	T_EQ_I(img_view(&img, 0x70000038, 9, &view, &e), -ERR_UNMAPPED);
	T_EQ_U(e.va, 0x70000040);
	T_EQ_I(img_read(&img, 0x6fffffff, buf, 1, &e), -ERR_UNMAPPED);
	T_EQ_I(img_read(&img, 0x70000040, buf, 1, &e), -ERR_UNMAPPED);
	T_CHECK(strstr(e.msg, "0x70000040") != NULL, "%s", e.msg);
	img_close(&img);

	/* addresses are file offsets at va 0 */
	T_EQ_I(img_from_file(&img, pa, 0, &whole, &e), 0);
	T_EQ_U(img_find(&img, 0x3f)->start, 0);
	T_CHECK(img_find(&img, 0x40) == NULL, "end is exclusive");
	img_close(&img);

	/* an empty file: no region, an empty cursor */
	T_EQ_I(img_from_file(&img, pe, 0x1000, &whole, &e), 0);
	T_EQ_U(img.region_count, 0);
	T_EQ_U(whole.len, 0);
	T_EQ_U(whole.va, 0x1000);
	T_EQ_I(img_read(&img, 0x1000, buf, 1, &e), -ERR_UNMAPPED);
	img_close(&img);

	/* a missing file or a directory is an I/O error and leaves nothing behind */
	T_EQ_I(img_from_file(&img, "/nonexistent/x.art", 0, &whole, &e), -ERR_IO);
	T_EQ_U(img.region_count, 0);
	T_EQ_I(img_from_file(&img, dir, 0, &whole, &e), -ERR_IO);

	/* several files in one address space: abutting files read across, overlaps and
	 * wrap-around are refused */
	img_init_empty(&img, "files");
	T_EQ_I(img_add_file(&img, pa, 0x1000, IMG_PROT_R, "a", &whole, &e), 0);
	T_EQ_I(img_add_file(&img, pb, 0x1040, IMG_PROT_R | IMG_PROT_X, NULL, &whole, &e), 0);
	T_EQ_U(whole.va, 0x1040);
	T_EQ_U(whole.len, 0x10);
	T_EQ_U(img.region_count, 2);
	T_EQ_S(img.regions[0].name, "a");
	T_EQ_S(img.regions[1].name, pb);
	T_EQ_I(img_read(&img, 0x1038, buf, 0x10, &e), 0);
	T_EQ_U(buf[7], 0xdf);
	T_EQ_U(buf[8], 0xa0);
	T_EQ_I(img_add_file(&img, pb, 0x1048, IMG_PROT_R, NULL, &whole, &e), -ERR_CORRUPT);
	T_CHECK(strstr(e.msg, pb) != NULL && strstr(e.msg, "overlaps") != NULL, "%s", e.msg);
	T_EQ_I(img_add_file(&img, pb, UINT64_MAX - 4, IMG_PROT_R, NULL, &whole, &e), -ERR_CORRUPT);
	T_EQ_U(img.region_count, 2);
	T_CHECK(img_overlaps(&img, 0x0fff, 0x1001), "overlaps the first file");
	T_CHECK(img_overlaps(&img, 0x104f, 0x2000), "overlaps the last byte");
	T_CHECK(!img_overlaps(&img, 0x1050, 0x2000), "after the files");
	T_CHECK(!img_overlaps(&img, 0x0, 0x1000), "before the files (end exclusive)");
	T_CHECK(!img_overlaps(&img, 0x1010, 0x1010), "an empty range");
	img_close(&img);
}

/* ---- ELF cores ---- */

static int load_core_bytes(struct image *img, const uint8_t *p, size_t n, const struct maps *m, struct err *e)
{
	int rc = img_begin(img, "elf-core", "mem-core", e);
	if (rc == 0)
		rc = img_load_core_bytes(img, p, n, "mem-core", e);
	if (rc == 0)
		rc = img_finish(img, m, e);
	return rc;
}

static void check_generated(const struct image *img, unsigned unit)
{
	uint8_t buf[64];
	struct cursor cur;
	struct err e;
	uint64_t heap = coregen_va(unit, 8), tail = coregen_va(unit, 13);

	err_init(&e);
	T_EQ_U(img->region_count, COREGEN_NSEGS);
	T_EQ_S(img->regions[0].name, "/system/bin/app_process64");
	T_EQ_U(img->regions[0].file_offset, unit);
	T_EQ_U(img->regions[0].prot, IMG_PROT_R | IMG_PROT_X);
	T_EQ_S(img->regions[2].name, "");
	T_EQ_U(img->regions[3].data_len, unit);             /* p_filesz < p_memsz */
	T_EQ_U(img->regions[3].end - img->regions[3].start, 2 * unit);
	T_CHECK(img->regions[4].data == NULL && img->regions[4].data_len == 0, "nothing captured");
	/* the bytes are where the generator put them, across the abutting heap segments */
	uint64_t half = unit / 2 < 32 ? unit / 2 : 32, at = heap + 4 * unit - half;
	T_EQ_I(img_read(img, at, buf, 2 * half, &e), 0);
	for (unsigned i = 0; i < 2 * half; i++)
		if (buf[i] != coregen_byte(at + i)) {
			T_CHECK(0, "byte %u differs", i);
			break;
		}
	T_EQ_I(img_view(img, tail - 8, 8, &cur, &e), 0);
	T_EQ_I(img_view(img, tail - 8, 9, &cur, &e), -ERR_UNMAPPED);
	T_CHECK(strstr(e.msg, "mapped but not captured") != NULL, "%s", e.msg);
}

static void test_core(void)
{
	struct wbuf b, mt;
	struct image img;
	struct maps m;
	struct err e;

	T_SECTION("generated ELF core");
	err_init(&e);
	wbuf_init(&b);
	T_EQ_I(coregen_build(&b, 4096), 0);
	T_EQ_I(load_core_bytes(&img, b.data, b.len, NULL, &e), 0);
	check_generated(&img, 4096);
	T_EQ_U(img.thread_count, 1);   /* NT_PRSTATUS: thread id and stack pointer */
	if (img.thread_count == 1) {
		T_EQ_U(img.threads[0].tid, 42);
		T_EQ_U(img.threads[0].sp, coregen_va(4096, 9) + COREGEN_SP_OFF);
	}
	img_close(&img);

	/* joined with a listing: names by address, the heap line cut in two, uncaptured lines */
	wbuf_init(&mt);
	coregen_maps(&mt, 4096);
	maps_init(&m);
	T_EQ_I(maps_parse(&m, mt.data, mt.len, &e), 0);
	T_EQ_I(load_core_bytes(&img, b.data, b.len, &m, &e), 0);
	T_EQ_U(img.region_count, 8);
	T_EQ_S(img_find(&img, coregen_va(4096, 9))->name, "[anon:dalvik-main space (region space)]");
	T_EQ_S(img_find(&img, coregen_va(4096, 13))->name, "[anon:dalvik-main space (region space)]");
	T_EQ_U(img_find(&img, coregen_va(4096, 13))->file_offset, 4 * 4096);
	T_EQ_S(img_find(&img, coregen_va(4096, 20))->name, "/dev/ashmem/dalvik-Sentinel fault page (deleted)");
	T_CHECK(img_find(&img, coregen_va(4096, 30)) && img_find(&img, coregen_va(4096, 30))->data == NULL,
		"[stack] listed, not captured");
	T_EQ_U(img_captured_bytes(&img), 8 * 4096);
	img_close(&img);
	maps_release(&m);
	wbuf_release(&mt);
	wbuf_release(&b);

	T_SECTION("tiny core: every truncation, corrupted fields");
	wbuf_init(&b);
	T_EQ_I(coregen_build(&b, 16), 0);
	T_EQ_I(load_core_bytes(&img, b.data, b.len, NULL, &e), 0);
	check_generated(&img, 16);
	img_close(&img);
	{
		/* a cut in the headers or the notes is refused; one in the segment data is an
		 * acquisition that stopped early: loaded, what the file lacks not captured and
		 * counted (captured + cut = the whole core's captured bytes) */
		uint64_t note_end = ld_u64le(b.data + 64 + 8) + ld_u64le(b.data + 64 + 32), whole = 0;
		unsigned refused_early = 0, loaded_late = 0, accounted = 0;
		if (load_core_bytes(&img, b.data, b.len, NULL, &e) == 0)
			whole = img_captured_bytes(&img);
		img_close(&img);
		for (size_t n = 0; n < b.len; n++) {
			uint8_t *copy = malloc(n ? n : 1);
			memcpy(copy, b.data, n);
			int rc = load_core_bytes(&img, copy, n, NULL, &e);
			if (n < note_end)
				refused_early += rc != 0;
			else if (rc == 0) {
				loaded_late++;
				accounted += img_captured_bytes(&img) + img.cut_bytes == whole && img.cut_regions > 0 &&
					     img.region_count == COREGEN_NSEGS;
			}
			img_close(&img);
			free(copy);
		}
		printf("cuts before the note end %llu: %u refused; after it: %u loaded, %u with the lost bytes counted\n",
		       (unsigned long long)note_end, refused_early, loaded_late, accounted);
		T_EQ_U(refused_early, note_end);
		T_EQ_U(loaded_late, b.len - note_end);
		T_EQ_U(accounted, loaded_late);
	}
	{
		/* each 8-byte field of the program headers set to 0, 0xffffffff, all ones, len+1 */
		const uint64_t vals[] = { 0, 0xffffffffull, UINT64_MAX, b.len + 1 };
		unsigned rejected = 0, cut = 0, runs = 0;
		for (size_t off = 64; off + 8 <= 64 + 56 * (COREGEN_NSEGS + 1); off += 8)
			for (size_t v = 0; v < 4; v++) {
				uint8_t *copy = malloc(b.len);
				memcpy(copy, b.data, b.len);
				for (int k = 0; k < 8; k++)
					copy[off + (size_t)k] = (uint8_t)(vals[v] >> (8 * k));
				if (load_core_bytes(&img, copy, b.len, NULL, &e) != 0) {
					rejected++;
					T_CHECK(e.msg[0] != '\0' && !strchr(e.msg, '\n'), "one-line message");
				} else {
					cut += img.cut_regions > 0;   /* a segment past the file: loaded, uncaptured */
				}
				runs++;
				img_close(&img);
				free(copy);
			}
		printf("%u of %u corrupted cores rejected, %u loaded with a segment past the file\n", rejected, runs, cut);
		T_CHECK(rejected > 0 && cut > 0 && rejected + cut > runs / 4 && rejected + cut < runs,
			"%u of %u corrupted cores rejected, %u cut", rejected, runs, cut);
	}
	wbuf_release(&b);
}

/* A core of n one-page PT_LOADs (nothing captured) whose NT_FILE note names the even
 * regions in reverse address order, then holds k entries that each span every region
 * (a hostile note): the odd regions take the first of those, the even ones keep theirs. */
static int many_files_core(struct wbuf *b, size_t n, size_t k)
{
	const uint64_t base = 0x10000000, page = 4096;
	struct wbuf d, names;
	size_t entries = (n + 1) / 2 + k, phnum = n + 1;
	char name[32];

	wbuf_init(&d);
	wbuf_init(&names);
	wbuf_u64le(&d, entries);
	wbuf_u64le(&d, page);
	for (size_t i = n; i-- > 0;) {
		if (i % 2)
			continue;
		wbuf_u64le(&d, base + i * page);
		wbuf_u64le(&d, base + (i + 1) * page);
		wbuf_u64le(&d, i);                      /* file offset in pages */
		snprintf(name, sizeof(name), "/f/%zu", i);
		wbuf_put(&names, name, strlen(name) + 1);
	}
	for (size_t j = 0; j < k; j++) {
		wbuf_u64le(&d, base);
		wbuf_u64le(&d, base + n * page);
		wbuf_u64le(&d, 7 + j);
		snprintf(name, sizeof(name), "/all/%zu", j);
		wbuf_put(&names, name, strlen(name) + 1);
	}
	wbuf_put(&d, names.data, names.len);
	wbuf_put(b, "\177ELF\2\1\1\0\0\0\0\0\0\0\0\0", 16);
	wbuf_u16le(b, 4);                               /* ET_CORE */
	wbuf_u16le(b, 62);
	wbuf_u32le(b, 1);
	wbuf_u64le(b, 0);
	wbuf_u64le(b, 64);                              /* e_phoff */
	wbuf_u64le(b, 0);
	wbuf_u32le(b, 0);
	wbuf_u16le(b, 64);
	wbuf_u16le(b, 56);
	wbuf_u16le(b, (uint16_t)phnum);
	wbuf_u16le(b, 64);
	wbuf_u16le(b, 0);
	wbuf_u16le(b, 0);
	/* PT_NOTE, then the PT_LOADs: type, flags, offset, vaddr, paddr, filesz, memsz, align */
	wbuf_u32le(b, 4);
	wbuf_u32le(b, 0);
	wbuf_u64le(b, 64 + 56 * phnum);
	wbuf_u64le(b, 0);
	wbuf_u64le(b, 0);
	wbuf_u64le(b, 20 + ((d.len + 3) & ~(size_t)3));
	wbuf_u64le(b, 0);
	wbuf_u64le(b, 4);
	for (size_t i = 0; i < n; i++) {
		wbuf_u32le(b, 1);
		wbuf_u32le(b, 4);
		wbuf_u64le(b, 0);
		wbuf_u64le(b, base + i * page);
		wbuf_u64le(b, 0);
		wbuf_u64le(b, 0);
		wbuf_u64le(b, page);
		wbuf_u64le(b, page);
	}
	coregen_note(b, "CORE", 0x46494c45, &d);
	wbuf_release(&d);
	wbuf_release(&names);
	return b->failed || n + 1 > 0xffff ? -1 : 0;
}

static void test_core_many_files(void)
{
	const size_t n = 60000, k = 60000;
	struct wbuf b;
	struct image img;
	struct err e;
	clock_t t0;
	double secs;
	unsigned wrong = 0;
	char want[32];

	T_SECTION("NT_FILE x PT_LOAD: 60000 regions, 90000 entries, 60000 of them spanning everything");
	err_init(&e);
	wbuf_init(&b);
	T_EQ_I(many_files_core(&b, n, k), 0);
	t0 = clock();
	T_EQ_I(load_core_bytes(&img, b.data, b.len, NULL, &e), 0);
	secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
	/* entries x regions would be 5.4e9 steps here (minutes); the sweep takes well under a second */
	printf("loaded in %.3f s of CPU\n", secs);
	T_CHECK(secs < 2.0, "NT_FILE naming took %.3f s of CPU: not linear in entries + regions", secs);
	T_EQ_U(img.region_count, n);
	for (size_t i = 0; i < img.region_count; i++) {
		const struct img_region *r = &img.regions[i];
		uint64_t ofs = i % 2 ? 7 * 4096 + i * 4096 : i * 4096;
		snprintf(want, sizeof(want), i % 2 ? "/all/0" : "/f/%zu", i);
		if (r->start != 0x10000000 + i * 4096 || strcmp(r->name, want) || r->file_offset != ofs) {
			if (wrong++ < 5)
				printf("region %zu at 0x%llx: name %s offset 0x%llx, expected %s 0x%llx\n", i,
				       (unsigned long long)r->start, r->name, (unsigned long long)r->file_offset, want,
				       (unsigned long long)ofs);
		}
	}
	T_CHECK(wrong == 0, "%u of %zu regions named wrongly", wrong, n);
	img_close(&img);
	wbuf_release(&b);
}

/* ---- containers ---- */

static void test_open(const char *path, const char *maps_path, int want_rc, const char *want_container,
		      const char *want_msg, size_t want_regions)
{
	struct img_open_opts o = { maps_path };
	struct image img;
	struct err e;
	int rc;

	err_init(&e);
	rc = img_open(&img, path, &o, &e);
	T_CHECK(rc == want_rc, "%s: rc %d, expected %d (%s)", path, rc, want_rc, e.msg);
	if (rc == 0) {
		T_EQ_S(img.container, want_container);
		T_EQ_U(img.region_count, want_regions);
		img_close(&img);
	} else if (want_msg) {
		T_CHECK(strstr(e.msg, want_msg) != NULL, "%s: \"%s\" lacks \"%s\"", path, e.msg, want_msg);
	}
}

static void test_containers(void)
{
	static uint8_t page[0x1000];
	static const char maps[] = "10000-11000 rw-p 00000000 00:00 0   [anon:dalvik-x]\n"
				   "11000-13000 r--p 00000000 00:00 0   [anon:dalvik-y]\n";
	static const uint8_t lime[32] = { 0x45, 0x4d, 0x69, 0x4c, 1 };
	const char *d;
	struct image img;
	struct err e;
	struct wbuf b;

	T_SECTION("containers");
	memset(page, 0x5a, sizeof(page));
	err_init(&e);

	d = new_dir("mapsdir");
	put_text(d, "maps", maps);
	put_file(d, "10000-11000.bin", page, sizeof(page));
	put_file(d, "0x11000-0x13000.bin", page, 0x800); /* short: head captured */
	test_open(d, NULL, 0, "maps-dir", NULL, 2);
	if (img_open(&img, d, NULL, &e) == 0) {
		T_EQ_S(img.regions[1].name, "[anon:dalvik-y]");
		T_EQ_U(img.regions[1].prot, IMG_PROT_R);
		T_EQ_U(img.regions[1].data_len, 0x800);
		img_close(&img);
	}
	/* every input hashed once, the listing too: after img_inputs_hash the digests come from
	 * memory, the same when the files are gone */
	if (img_open(&img, d, NULL, &e) == 0) {
		uint8_t want[SHA256_DIGEST];
		char got[SHA256_TEXT], want_hex[SHA256_HEX];
		uint64_t nw = 0, ng = 0;
		char listing[512], moved[520];
		snprintf(listing, sizeof(listing), "%s/maps", d);
		snprintf(moved, sizeof(moved), "%s.moved", listing);
		T_EQ_U(img_input_count(&img), 3);
		T_EQ_S(img_input_path(&img, 2), listing);
		T_EQ_I(sha256_file(listing, want, &nw, &e), 0);
		T_EQ_I(img_inputs_hash(&img, NULL, &e), 0);
		T_EQ_I(rename(listing, moved), 0);
		T_EQ_I(img_input_sha256(&img, 2, got, &ng, &e), 0);
		T_EQ_I(rename(moved, listing), 0);
		sha256_hex(want, want_hex);
		T_EQ_S(got, want_hex);   /* the listing's digest remembered from img_inputs_hash */
		T_EQ_U(ng, sizeof(maps) - 1);
		T_EQ_U(nw, ng);
		img_close(&img);
	}
	put_file(d, "13000-13800.bin", page, 0x1000); /* longer than its region */
	test_open(d, NULL, -ERR_CORRUPT, NULL, "more than the 2048", 0);

	d = new_dir("memfetch");
	put_text(d, "mfetch.lst",
		 "# This memory data dump generated by memfetch by <lcamtuf@coredump.cx>\n"
		 "# PID 1, declared executable: /system/bin/app_process64\n\n"
		 "[000] mem-000.bin:\n     Memory range 0x00010000 to 0x00011000 (4096 bytes)\n"
		 "     10000-11000 rw-p 00000000 00:00 0   [anon:dalvik-x]\n\n"
		 "[001] map-001.bin:\n     Memory range 0x00011000 to 0x00012000 (4096 bytes)\n"
		 "     MAPPED FROM: /data/app/base.apk]\n"
		 "     11000-12000 r--p 00000000 00:00 0   [anon:dalvik-classes.dex extracted in memory from\n\n"
		 "[002] mem-002.bin: 0x0000000000020000-0x0000000000021000 (4096 bytes)\n\n"
		 "# End of file.\n");
	put_file(d, "mem-000.bin", page, sizeof(page));
	put_file(d, "map-001.bin", page, sizeof(page));
	put_file(d, "mem-002.bin", page, sizeof(page));
	test_open(d, NULL, 0, "memfetch", NULL, 3);
	if (img_open(&img, d, NULL, &e) == 0) {
		T_EQ_S(img.regions[1].name, "[anon:dalvik-classes.dex extracted in memory from /data/app/base.apk]");
		T_EQ_U(img.regions[2].prot, IMG_PROT_R); /* no maps line: assumed readable */
		img_close(&img);
	}
	put_text(d, "mfetch.lst", "[000] mem-000.bin:\n     garbage\n");
	test_open(d, NULL, -ERR_CORRUPT, NULL, "line 2", 0);
	put_text(d, "mfetch.lst", "[000] ../../etc/passwd:\n     Memory range 0x1000 to 0x2000 (1 bytes)\n");
	test_open(d, NULL, -ERR_CORRUPT, NULL, "expected", 0);
	put_text(d, "mfetch.lst", "# nothing\n");
	test_open(d, NULL, -ERR_CORRUPT, NULL, "no entries", 0);

	d = new_dir("vol2");
	put_file(d, "task.77.0x10000.vma", page, sizeof(page));
	put_file(d, "task.77.0x11000.vma", page, 0x2000 > sizeof(page) ? sizeof(page) : 0x2000);
	test_open(d, NULL, 0, "volatility2", NULL, 2);
	put_text(d, "maps", maps);
	test_open(d, NULL, 0, "volatility2", NULL, 3); /* 12000-13000 from the listing */
	put_file(d, "task.78.0x30000.vma", page, sizeof(page));
	test_open(d, NULL, -ERR_UNSUP, NULL, "processes 77 and 78", 0);

	d = new_dir("vol3");
	put_file(d, "pid.77.vma.0x10000-0x11000.dmp", page, sizeof(page));
	test_open(d, NULL, 0, "volatility3", NULL, 1);
	put_file(d, "mfetch.lst", "x", 1);
	test_open(d, NULL, -ERR_UNSUP, NULL, "ambiguous directory: looks like memfetch, volatility3", 0);

	d = new_dir("empty");
	test_open(d, NULL, -ERR_UNSUP, NULL, "holds no known image", 0);
	put_file(d, "lime.raw", lime, sizeof(lime));
	{
		char p[512];
		snprintf(p, sizeof(p), "%s/lime.raw", d);
		test_open(p, NULL, -ERR_UNSUP, NULL, "LiME physical memory image", 0);
		snprintf(p, sizeof(p), "%s/missing", d);
		test_open(p, NULL, -ERR_IO, NULL, "cannot open", 0);
		put_text(d, "text", "hello");
		snprintf(p, sizeof(p), "%s/text", d);
		test_open(p, NULL, -ERR_UNSUP, NULL, "unknown image format", 0);
		put_file(d, "empty-file", "", 0);
		snprintf(p, sizeof(p), "%s/empty-file", d);
		test_open(p, NULL, -ERR_UNSUP, NULL, "unknown image format", 0);
	}

	d = new_dir("core");
	wbuf_init(&b);
	T_EQ_I(coregen_build(&b, 4096), 0);
	put_file(d, "core", b.data, b.len);
	wbuf_reset(&b);
	coregen_maps(&b, 4096);
	put_file(d, "maps", b.data, b.len);
	wbuf_release(&b);
	{
		char p[512], mp[512];
		snprintf(p, sizeof(p), "%s/core", d);
		snprintf(mp, sizeof(mp), "%s/maps", d);
		test_open(p, NULL, 0, "elf-core", NULL, COREGEN_NSEGS);
		test_open(p, mp, 0, "elf-core", NULL, 8);
		snprintf(mp, sizeof(mp), "%s/nonexistent-maps", d);
		test_open(p, mp, -ERR_IO, NULL, "nonexistent-maps", 0);
	}
}

static void test_names(void)
{
	uint64_t pid, s, e;

	T_SECTION("region file names");
	T_CHECK(img_parse_region_file_name("12c00000-12c01000.bin", &s, &e) && s == 0x12c00000 && e == 0x12c01000, "plain");
	T_CHECK(img_parse_region_file_name("0x7F00-0x7F10.bin", &s, &e) && e == 0x7f10, "0x, upper case");
	T_CHECK(!img_parse_region_file_name("0x1000-2000.bin", &s, &e), "mixed forms");
	T_CHECK(!img_parse_region_file_name("2000-1000.bin", &s, &e), "end below start");
	T_CHECK(!img_parse_region_file_name("1000-2000.bin.bak", &s, &e), "suffix");
	T_CHECK(!img_parse_region_file_name("11112222333344445-2.bin", &s, &e), "17 digits");
	T_CHECK(img_parse_vol2_name("task.1234.0x12c00000.vma", &pid, &s) && pid == 1234 && s == 0x12c00000, "vol2");
	T_CHECK(!img_parse_vol2_name("task.1234.12c00000.vma", &pid, &s), "vol2 without 0x");
	T_CHECK(img_parse_vol3_name("pid.9.vma.0x1000-0x3000.dmp", &pid, &s, &e) && pid == 9 && e == 0x3000, "vol3");
	T_CHECK(!img_parse_vol3_name("pid.9.vma.0x3000-0x1000.dmp", &pid, &s, &e), "vol3 reversed");
}

/* Minor page faults of reading every page of [p, p + n) once (the sum keeps the reads). */
static long faults_reading(const uint8_t *p, size_t n, unsigned *sum)
{
	struct rusage before, after;
	getrusage(RUSAGE_SELF, &before);
	for (size_t i = 0; i < n; i += 4096)
		*sum += ((const volatile uint8_t *)p)[i];
	getrusage(RUSAGE_SELF, &after);
	return after.ru_minflt - before.ru_minflt;
}

/* img_drop keeps the pages of an image whose files hold no more data than img_set_keep's
 * budget (IMG_KEEP_BYTES at first): a pass after it reads them without a page fault; with a
 * budget of 0 they are released and read again at a fault each run of pages. */
static void test_drop_keep(void)
{
	const char *dir = new_dir("drop_keep");
	enum { N = 64 * 4096 };
	static uint8_t bytes[N];
	struct image img;
	struct cursor whole;
	struct err e;
	char path[512];
	unsigned sum = 0;
	long first, kept, released;

	T_SECTION("img_drop: pages of a small image kept (no fault on the next pass), released with keep 0");
	for (size_t i = 0; i < N; i++)
		bytes[i] = (uint8_t)(i * 11 + 3);
	put_file(dir, "k.bin", bytes, N);
	snprintf(path, sizeof(path), "%s/k.bin", dir);
	err_init(&e);
	img_init_empty(&img, "drop_keep");
	T_EQ_I(img_add_file(&img, path, 0x10000000, IMG_PROT_R, "k", &whole, &e), 0);
	const uint8_t *p = img_span(&img, 0x10000000, N, NULL);
	T_CHECK(p != NULL, "the file's bytes in one span");
	if (!p) {
		img_close(&img);
		return;
	}
	first = faults_reading(p, N, &sum);
	img_drop(&img, 0, UINT64_MAX);
	kept = faults_reading(p, N, &sum);
	img_set_keep(&img, 0);
	img_drop(&img, 0, UINT64_MAX);
	released = faults_reading(p, N, &sum);
	printf("   faults reading %d pages: first pass %ld, after img_drop (kept) %ld, after img_drop with keep 0 %ld\n",
	       N / 4096, first, kept, released);
	T_CHECK(first > 0, "the first pass faults the pages in");
	T_CHECK(kept == 0, "kept: no fault after img_drop of a %d-byte image", N);
	T_CHECK(released > 0, "released with keep 0: faulted in again");
	img_close(&img);

	T_SECTION("img_drop's default budget: IMG_KEEP_BYTES or a quarter of MemTotal (/proc/meminfo)");
	unsigned long long kb = 0;
	FILE *mi = fopen("/proc/meminfo", "r");
	char line[256];
	while (mi && fgets(line, sizeof(line), mi))
		if (sscanf(line, "MemTotal: %llu kB", &kb) == 1)
			break;
	if (mi)
		fclose(mi);
	uint64_t quarter = (uint64_t)kb * 1024 / 4, want = quarter > IMG_KEEP_BYTES ? quarter : IMG_KEEP_BYTES;
	uint64_t got = img_keep_default(), slack = want / 100;   /* MemTotal omits what the kernel reserved */
	printf("   MemTotal %llu kB: budget %llu bytes, expected about %llu\n", kb, (unsigned long long)got,
	       (unsigned long long)want);
	T_CHECK(kb > 0 && got >= IMG_KEEP_BYTES && got + slack >= want && got <= want + want / 10,
		"budget %llu bytes for MemTotal %llu kB", (unsigned long long)got, kb);
}

/* img_drop releases mapped file pages only: the bytes read the same after it, and bytes held
 * in memory (img_add_region_mem) are never touched (MADV_DONTNEED on them would zero them). */
static void test_drop(void)
{
	const char *dir = new_dir("drop");
	enum { N = 3 * 65536 };
	static uint8_t file_bytes[N], mem[N], again[N];
	struct image img;
	struct cursor whole;
	struct img_drop d = { 0 };
	struct err e;
	char path[512];

	T_SECTION("img_drop: file pages released, bytes unchanged, memory regions untouched");
	for (size_t i = 0; i < N; i++) {
		file_bytes[i] = (uint8_t)(i * 7 + 1);
		mem[i] = (uint8_t)(i * 13 + 5);
	}
	put_file(dir, "f.bin", file_bytes, N);
	snprintf(path, sizeof(path), "%s/f.bin", dir);
	err_init(&e);
	img_init_empty(&img, "drop");
	img_set_keep(&img, 0);   /* a file this small is kept by default (test_drop_keep) */
	T_EQ_I(img_add_file(&img, path, 0x10000000, IMG_PROT_R, "f", &whole, &e), 0);
	T_EQ_I(img_add_region_mem(&img, 0x20000000, mem, N, IMG_PROT_R, "m", &e), 0);
	img_drop(&img, 0, UINT64_MAX);
	img_drop(&img, 0x10000000 + 100, 0x10000000 + 5000);   /* partial pages: whole ones inside only */
	T_EQ_I(img_read(&img, 0x10000000, again, N, &e), 0);
	T_CHECK(!memcmp(again, file_bytes, N), "file bytes read the same after img_drop");
	T_EQ_I(img_read(&img, 0x20000000, again, N, &e), 0);
	T_CHECK(!memcmp(again, mem, N), "memory region bytes unchanged by img_drop");
	for (uint64_t va = 0x10000000; va < 0x10000000 + N; va += 4096)
		img_drop_behind(&img, &d, va);
	img_drop_behind(&img, &d, 0x10000000 + IMG_DROP_STEP);   /* past the step: a release */
	T_EQ_U(d.from, 0x10000000 + IMG_DROP_STEP);
	img_drop_behind(&img, &d, 0x10000000);   /* below: a new pass */
	T_EQ_U(d.from, 0x10000000);
	T_EQ_I(img_read(&img, 0x10000000, again, N, &e), 0);
	T_CHECK(!memcmp(again, file_bytes, N), "file bytes read the same after img_drop_behind");

	/* the input's digest: computed once, then remembered (the same both times) */
	uint8_t want[SHA256_DIGEST];
	char d1[SHA256_TEXT], d2[SHA256_TEXT], want_hex[SHA256_HEX];
	uint64_t n1 = 0, n2 = 0, nw = 0;
	T_EQ_I(sha256_file(path, want, &nw, &e), 0);
	sha256_hex(want, want_hex);
	T_EQ_U(img_input_count(&img), 1);
	T_EQ_I(img_input_sha256(&img, 0, d1, &n1, &e), 0);
	T_EQ_I(img_input_sha256(&img, 0, d2, &n2, &e), 0);
	T_EQ_S(d1, want_hex);   /* img_input_sha256 = sha256_file, twice */
	T_EQ_S(d2, want_hex);
	T_EQ_U(n1, N);
	T_EQ_U(n2, N);
	T_EQ_I(img_input_sha256(&img, 1, d1, &n1, &e), -ERR_INTERNAL);
	img_close(&img);

	/* img_inputs_hash: every mapped input read once, then remembered (the file is gone when
	 * img_input_sha256 asks); its progress is test_sha256's */
	img_init_empty(&img, "hash");
	T_EQ_I(img_add_file(&img, path, 0x10000000, IMG_PROT_R, "f", &whole, &e), 0);
	T_EQ_U(img_inputs_bytes(&img), N);
	T_EQ_I(img_inputs_hash(&img, NULL, &e), 0);
	unlink(path);
	T_EQ_I(img_input_sha256(&img, 0, d1, &n1, &e), 0);
	T_EQ_S(d1, want_hex);   /* img_inputs_hash then img_input_sha256 = sha256_file, from memory */
	T_EQ_U(n1, N);
	T_EQ_I(img_inputs_hash(&img, NULL, &e), 0);   /* nothing left to read */
	img_close(&img);
}

/* A sparse file: [0, 64 KiB) data, a hole to 2 MiB, 4 KiB of data, a hole to 3 MiB, 4 KiB of
 * zeros written (data, not a hole), a hole to the end at 4 MiB. */
enum { HOLE_D1 = 64 << 10, HOLE_D2 = 2 << 20, HOLE_Z = 3 << 20, HOLE_SIZE = 4 << 20, HOLE_VA = 0x10000000 };

static void test_holes(void)
{
	const char *dir = new_dir("holes");
	static uint8_t data[HOLE_D1], zero[4096], back[8192];
	struct mapfile_extent *v = NULL;
	struct mapfile m;
	struct image img;
	struct cursor whole;
	struct err e;
	char path[512];
	size_t n = 0;
	uint64_t lo = 0, hi = 0, re = 0;
	int fd;

	T_SECTION("holes: SEEK_DATA / SEEK_HOLE runs, the all-data fallback, img_next_data, img_is_hole, img_zero");
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 5 + 1);
	snprintf(path, sizeof(path), "%s/sparse.bin", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	T_CHECK(fd >= 0, "create %s", path);
	if (fd < 0)
		return;
	T_EQ_I(ftruncate(fd, HOLE_SIZE), 0);
	T_EQ_I(pwrite(fd, data, HOLE_D1, 0), HOLE_D1);
	T_EQ_I(pwrite(fd, data, 4096, HOLE_D2), 4096);
	T_EQ_I(pwrite(fd, zero, 4096, HOLE_Z), 4096);
	T_EQ_I(fsync(fd), 0);
	err_init(&e);

	/* the fallback (a file system without SEEK_DATA): one run, the whole file */
	T_EQ_I(mapfile_find_extents(fd, HOLE_SIZE, false, &v, &n, &e), 0);
	T_EQ_U(n, 1);
	if (n == 1) {
		T_EQ_U(v[0].off, 0);
		T_EQ_U(v[0].end, HOLE_SIZE);
	}
	xfree(v);
	T_EQ_I(mapfile_find_extents(fd, 0, true, &v, &n, &e), 0);
	T_CHECK(n == 0 && v == NULL, "an empty file has no run (%zu)", n);
	T_EQ_I(mapfile_find_extents(fd, HOLE_SIZE, true, &v, &n, &e), 0);
	bool seeks = n > 1;   /* tmpfs and ext4 tell; a file system that cannot gives one run */
	printf("  %s: %zu data runs\n", path, n);
	if (seeks) {
		T_EQ_U(n, 3);
		T_CHECK(n >= 3 && v[0].off == 0 && v[0].end == HOLE_D1 && v[1].off == HOLE_D2 && v[1].end == HOLE_D2 + 4096 &&
			v[2].off == HOLE_Z && v[2].end == HOLE_Z + 4096, "runs [0,64K) [2M,2M+4K) [3M,3M+4K)");
	}
	xfree(v);
	close(fd);

	T_EQ_I(mapfile_open(&m, path, &e), 0);
	T_EQ_U(mapfile_next_data(&m, 0, HOLE_SIZE, &re), 0);
	T_EQ_U(re, seeks ? HOLE_D1 : HOLE_SIZE);
	if (seeks) {
		T_EQ_U(mapfile_next_data(&m, HOLE_D1, HOLE_SIZE, &re), HOLE_D2);
		T_EQ_U(re, HOLE_D2 + 4096);
		T_EQ_U(mapfile_next_data(&m, HOLE_D1, HOLE_D2, &re), HOLE_D2);   /* none below end: end */
		T_EQ_U(mapfile_next_data(&m, HOLE_D2 + 100, HOLE_D2 + 200, &re), HOLE_D2 + 100);
		T_EQ_U(re, HOLE_D2 + 200);   /* capped at end */
		T_EQ_U(mapfile_next_data(&m, HOLE_Z + 4096, HOLE_SIZE, &re), HOLE_SIZE);
	}
	T_EQ_U(mapfile_next_data(&m, 5, 5, &re), 5);
	mapfile_close(&m);

	img_init_empty(&img, "holes");
	T_EQ_I(img_add_file(&img, path, HOLE_VA, IMG_PROT_R, "sparse", &whole, &e), 0);
	T_EQ_I(img_add_region_mem(&img, HOLE_VA + 0x1000000, zero, sizeof(zero), IMG_PROT_R, "mem", &e), 0);
	T_CHECK(img_next_data(&img, 0, UINT64_MAX, &lo, &hi), "data in the image");
	T_EQ_U(lo, HOLE_VA);
	T_EQ_U(hi, HOLE_VA + (seeks ? HOLE_D1 : HOLE_SIZE));
	if (seeks) {
		T_CHECK(img_next_data(&img, HOLE_VA + 100, UINT64_MAX, &lo, &hi), "the first run, from inside");
		T_EQ_U(lo, HOLE_VA + 100);
		T_CHECK(img_next_data(&img, HOLE_VA + HOLE_D1, UINT64_MAX, &lo, &hi), "the second run");
		T_EQ_U(lo, HOLE_VA + HOLE_D2);
		T_EQ_U(hi, HOLE_VA + HOLE_D2 + 4096);
		T_CHECK(!img_next_data(&img, HOLE_VA + HOLE_D1, HOLE_VA + HOLE_D2, &lo, &hi), "none in the hole");
		T_CHECK(img_next_data(&img, HOLE_VA + HOLE_Z + 4096, UINT64_MAX, &lo, &hi), "past the file: memory");
		T_EQ_U(lo, HOLE_VA + 0x1000000);   /* bytes in memory count as data */
		T_EQ_U(hi, HOLE_VA + 0x1000000 + sizeof(zero));
		T_CHECK(img_is_hole(&img, HOLE_VA + HOLE_D1, HOLE_D2 - HOLE_D1), "the first hole");
		T_CHECK(img_is_hole(&img, HOLE_VA + HOLE_Z + 4096, HOLE_SIZE - HOLE_Z - 4096), "the tail hole");
		T_CHECK(!img_is_hole(&img, HOLE_VA + HOLE_Z, 4096), "zeros written are data, not a hole");
		T_EQ_U(img_data_bytes(&img), HOLE_D1 + 4096 + 4096 + sizeof(zero));
	} else {
		T_EQ_U(img_data_bytes(&img), HOLE_SIZE + sizeof(zero));
	}
	T_CHECK(!img_is_hole(&img, HOLE_VA + HOLE_D1 - 1, 2), "a byte of data");
	T_CHECK(!img_is_hole(&img, HOLE_VA + HOLE_SIZE - 1, 2), "past the capture");
	T_CHECK(!img_is_hole(&img, HOLE_VA, 0), "len 0");
	T_CHECK(!img_is_hole(&img, UINT64_MAX, 2), "wraps");
	T_CHECK(!img_next_data(&img, HOLE_VA + 0x2000000, UINT64_MAX, &lo, &hi), "nothing past the last region");
	T_CHECK(img_zero(&img, HOLE_VA + HOLE_D2 + 4096, 0x2000000), "holes, zeros written and gaps are zero");
	T_CHECK(img_zero(&img, HOLE_VA + HOLE_D1, HOLE_D2 - HOLE_D1), "a hole is zero");
	T_CHECK(!img_zero(&img, HOLE_VA + HOLE_D1 - 8, 16), "data is not");
	T_CHECK(!img_zero(&img, HOLE_VA + HOLE_D2 - 4, 8), "data after a hole is not");
	/* a hole reads as zeros through every reader */
	T_EQ_I(img_read(&img, HOLE_VA + HOLE_D2 - 4096, back, sizeof(back), &e), 0);
	T_CHECK(!memcmp(back, zero, 4096) && !memcmp(back + 4096, data, 4096), "hole then data read back");
	img_close(&img);
}

int main(void)
{
	char cmd[300];
	const char *tmp = getenv("TMPDIR");

	snprintf(scratch, sizeof(scratch), "%s/test_image.XXXXXX", tmp ? tmp : "/tmp");
	if (!mkdtemp(scratch)) {
		printf("cannot create a scratch directory\n");
		return 1;
	}
	test_maps_line();
	test_maps_listing();
	test_regions();
	test_files();
	test_core();
	test_core_many_files();
	test_containers();
	test_names();
	test_drop();
	test_drop_keep();
	test_holes();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", scratch);
	if (system(cmd) != 0)
		printf("could not remove %s\n", scratch);
	T_DONE();
}
