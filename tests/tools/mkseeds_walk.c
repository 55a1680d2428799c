/* mkseeds_walk.c - writes the seed corpora of the walker fuzz targets (tests/fuzz/fuzz_walk_*.c)
 * in their input format [u8 flags][u32le a_len][A][B] (tests/fuzz/walk_fuzz.h), built with
 * tests/tools/walkgen.h: RosAlloc free-list and bitmap runs with page maps, region-space
 * objects (a zero gap, poison, a Large array), dlmalloc mspaces (32/64-bit, a zygote with a
 * compacted tail), free-list LOS maps, bump-pointer and image objects.
 *   usage: mkseeds_walk DIR      (writes DIR/fuzz_walk_*\/NAME; exit 0 ok, 1 error) */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "tests/tools/walkgen.h"

static uint8_t A[64 * 1024], B[8192];

static int seed(const char *dir, const char *target, const char *name, uint8_t flags, size_t a, size_t b)
{
	char path[512];
	uint8_t hdr[5] = { flags, (uint8_t)a, (uint8_t)(a >> 8), (uint8_t)(a >> 16), (uint8_t)(a >> 24) };
	snprintf(path, sizeof(path), "%s/%s", dir, target);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/%s", dir, target, name);
	FILE *fp = fopen(path, "wb");
	if (!fp)
		return -1;
	int bad = fwrite(hdr, 1, 5, fp) != 5 || fwrite(A, 1, a, fp) != a || fwrite(B, 1, b, fp) != b;
	memset(A, 0, sizeof(A));
	memset(B, 0, sizeof(B));
	return fclose(fp) != 0 || bad ? -1 : 0;
}

enum { F50 = 0, F60 = 1, F71 = 2, F11 = 3, P64 = 4, VARIANT = 8 };

static int rosalloc_seeds(const char *dir)
{
	static const unsigned used[] = { 0, 5, 7 };
	int rc = 0;
	for (unsigned ps = 4; ps <= 8; ps += 4) {
		wg_fl_run(A, B, WF_SPACE, 0, 3, used, 3, ps);
		B[1] = 4, B[2] = 5, B[3] = 1;
		wg_object(A + 4096, WF_K_BYTEARR, 5000);
		wg_fl_run(A, B, WF_SPACE, 4, 40, used, 1, ps);
		rc |= seed(dir, "fuzz_walk_rosalloc", ps == 8 ? "freelist-64" : "freelist-32", F71 | (ps == 8 ? P64 : 0),
			   6 * 4096, 4096);
	}
	wg_bm_run(A, B, 0, "6.0", 1, 10, true);
	wg_bm_run(A, B, 1, "6.0", 8, 50, false);
	rc |= seed(dir, "fuzz_walk_rosalloc", "bitmap-6.0", F60, 5 * 4096, 4096);
	wg_bm_run(A, B, 0, "5.0", 4, 70, false);
	rc |= seed(dir, "fuzz_walk_rosalloc", "bitmap-5.0", F50 | P64, 2 * 4096, 4096);
	return rc;
}

static uint32_t put(size_t off, int k, uint32_t n) { return (wg_object(A + off, k, n) + 7) & ~7u; }

static int region_seeds(const char *dir)
{
	int rc = 0;
	for (int f = 0; f < 2; f++) {
		size_t off = 0;
		off += put(off, WF_K_OBJ, 0);
		off += put(off, WF_K_BYTEARR, 5);
		off += put(off, WF_K_LONGARR, 3);
		off += put(off, WF_K_STRING, 4);
		off += put(off, WF_K_OBJARR, 2);
		for (int i = 0; i < 32; i += 4)          /* a dead object's poison (10+) */
			wg32(A + off + i, 0xBADDB01Du);
		off += 32;
		off += put(off, WF_K_OBJ, 0);
		off = 8192;                              /* a zero gap: a partial TLAB */
		put(off, WF_K_STRING, 20);
		rc |= seed(dir, "fuzz_walk_region", f ? "objects-7.1" : "objects-11", (f ? F71 : F11) | P64, 16384, 0);
	}
	put(0, WF_K_BYTEARR, 600000);                    /* Large over three regions */
	rc |= seed(dir, "fuzz_walk_region", "large-11", F11 | P64, 4096, 0);
	return rc;
}

static int dlmalloc_seeds(const char *dir)
{
	int rc = 0;
	for (unsigned S = 4; S <= 8; S *= 2)
		for (int zygote = 0; zygote < 2; zygote++) {
			struct wg_dl d;
			wg_dl_init(&d, A, WF_SPACE, S);
			wg_dl_chunk(&d, WF_K_OBJ, 0, true);
			wg_dl_chunk(&d, WF_K_BYTEARR, 40, true);
			wg_dl_chunk(&d, -1, 48, true);           /* freed */
			wg_dl_chunk(&d, WF_K_OBJARR, 6, false);
			wg_dl_chunk(&d, WF_K_STRING, 10, true);
			wg_dl_finish(&d, WF_SPACE + 8192, true);
			size_t a = 8192;
			if (zygote) {                            /* the compacted tail */
				size_t off = 8192;
				off += put(off, WF_K_OBJ, 0);
				off += put(off, WF_K_LONGARR, 2);
				put(off, WF_K_STRING, 3);
				a = 12288;
			}
			char name[32];
			snprintf(name, sizeof(name), "%s-%u", zygote ? "zygote" : "mspace", S * 8);
			rc |= seed(dir, "fuzz_walk_dlmalloc", name, F11 | (S == 8 ? P64 : 0) | (zygote ? VARIANT : 0), a, 0);
		}
	return rc;
}

static int los_seeds(const char *dir)
{
	int rc = 0;
	static const struct { const char *name; uint8_t fam; uint32_t free; } v[] = {
		{ "freelist-11", F11, 0x80000000u }, { "freelist-5.0", F50, 0x08000000u },
	};
	for (int i = 0; i < 2; i++) {
		wg_object(A, WF_K_BYTEARR, 6000);
		wg_object(A + 3 * 4096, WF_K_LONGARR, 1000);
		wg_los_entry(B, 0, 0, 2, 0);
		wg_los_entry(B, 2, 0, 1, v[i].free);
		wg_los_entry(B, 3, 1, 3, 0);
		rc |= seed(dir, "fuzz_walk_los", v[i].name, v[i].fam | P64, 6 * 4096, 6 * 8);
	}
	wg_object(A, WF_K_BYTEARR, 9000);
	rc |= seed(dir, "fuzz_walk_los", "map-allocation", F11 | VARIANT, 3 * 4096, 0);
	return rc;
}

static int contig_seeds(const char *dir)
{
	int rc = 0;
	size_t off = 0;
	off += put(off, WF_K_OBJ, 0);
	off += put(off, WF_K_BYTEARR, 9);
	wg64(A + off, 64);                               /* a TLAB BlockHeader {size, unused} */
	off += 16;
	off += put(off, WF_K_STRING, 5);
	put(off, WF_K_OBJARR, 3);
	rc |= seed(dir, "fuzz_walk_contig", "bump-64", F11 | P64, 4096, 0);
	off = 512;                                       /* past an image header */
	off += put(off, WF_K_OBJ, 0);
	off += put(off, WF_K_LONGARR, 4);
	put(off, WF_K_STRING, 7);
	rc |= seed(dir, "fuzz_walk_contig", "image-11", F11 | P64 | VARIANT, 1024, 0);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: mkseeds_walk DIR\n");
		return 2;
	}
	int rc = rosalloc_seeds(argv[1]) | region_seeds(argv[1]) | dlmalloc_seeds(argv[1]) | los_seeds(argv[1]) |
		 contig_seeds(argv[1]);
	if (rc)
		fprintf(stderr, "mkseeds_walk: cannot write the seeds under %s\n", argv[1]);
	return rc ? 1 : 0;
}
