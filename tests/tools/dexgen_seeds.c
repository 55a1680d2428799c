/* dexgen_seeds.c - writes the fuzz seeds of fuzz_dex, fuzz_vdex and fuzz_oat (and sample
 * files for shell tests) from tests/tools/dexgen.h: `dexgen_seeds DIR` creates
 * DIR/fuzz_dex/, DIR/fuzz_vdex/, DIR/fuzz_oat/.  Everything is generated; nothing is read. */
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>

#include "tests/tools/dexgen.h"

static int write_file(const char *dir, const char *sub, const char *name, const uint8_t *p, size_t n)
{
	char path[1024];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, sub);
	if (mkdir(path, 0755) != 0 && errno != EEXIST)
		return -1;
	snprintf(path, sizeof(path), "%s/%s/%s", dir, sub, name);
	if (!(fp = fopen(path, "wb")))
		return -1;
	if (fwrite(p, 1, n, fp) != n) {
		fclose(fp);
		return -1;
	}
	return fclose(fp);
}

static const struct dg_class small_class[] = {
	{ "LA;", "Ljava/lang/Object;", 0x1, { { "x", "I", 0x1 } },
	  { { "<init>", "V", { NULL }, 0x10001, true, 0 }, { "f", "I", { "J" }, 0x9, true, 2 } } },
};

int main(int argc, char **argv)
{
	static const char kv[] = "compiler-filter\0speed\0pic\0true\0";
	struct wbuf dex[4], b;
	const char *dir = argc > 1 ? argv[1] : ".";
	char name[64];
	int rc = 0;

	if (mkdir(dir, 0755) != 0 && errno != EEXIST)
		return 1;
	/* dex: 035/038/040 samples, a one-class dex, a compact dex */
	{
		struct dg_spec specs[4] = { { dg_sample_classes, 2, 35, false }, { dg_sample_classes, 2, 39, false },
					    { small_class, 1, 38, false }, { dg_sample_classes, 2, 0, true } };
		const char *names[4] = { "sample035.dex", "sample039.dex", "small038.dex", "sample.cdex" };
		for (int i = 0; i < 4; i++) {
			wbuf_init(&dex[i]);
			rc |= dg_build(&dex[i], &specs[i]);
			rc |= write_file(dir, "fuzz_dex", names[i], dex[i].data, dex[i].len);
		}
	}
	/* vdex: every version with two standard dex files; 019/021 with the compact dex;
	 * 021/027 without dex */
	{
		static const unsigned versions[] = { 6, 10, 19, 21, 27 };
		const uint8_t *p[2] = { dex[2].data, dex[0].data };
		size_t l[2] = { dex[2].len, dex[0].len };
		const uint8_t *cp[1] = { dex[3].data };
		size_t cl[1] = { dex[3].len };
		for (int i = 0; i < 5; i++) {
			wbuf_init(&b);
			rc |= dg_vdex(&b, versions[i], p, l, 2, true);
			snprintf(name, sizeof(name), "v%03u.vdex", versions[i]);
			rc |= write_file(dir, "fuzz_vdex", name, b.data, b.len);
			wbuf_release(&b);
		}
		for (int i = 2; i < 4; i++) {
			wbuf_init(&b);
			rc |= dg_vdex(&b, versions[i], cp, cl, 1, true);
			snprintf(name, sizeof(name), "v%03u-cdex.vdex", versions[i]);
			rc |= write_file(dir, "fuzz_vdex", name, b.data, b.len);
			wbuf_release(&b);
		}
		for (int i = 3; i < 5; i++) {
			wbuf_init(&b);
			rc |= dg_vdex(&b, versions[i], p, l, 2, false);
			snprintf(name, sizeof(name), "v%03u-nodex.vdex", versions[i]);
			rc |= write_file(dir, "fuzz_vdex", name, b.data, b.len);
			wbuf_release(&b);
		}
	}
	/* oat: one ELF per layout row; and raw oatdata / vdex+oatdata inputs */
	{
		static const struct { unsigned v, isa, bits; } oats[] = {
			{ 39, 3, 32 }, { 45, 3, 32 }, { 64, 1, 32 }, { 79, 4, 32 }, { 88, 2, 64 }, { 124, 5, 64 },
			{ 131, 3, 32 }, { 138, 2, 64 }, { 170, 2, 64 }, { 183, 5, 64 }, { 195, 2, 64 },
			{ 225, 2, 64 }, { 233, 6, 64 },
		};
		const uint8_t *p[1] = { dex[2].data };
		size_t l[1] = { dex[2].len };
		for (size_t i = 0; i < sizeof(oats) / sizeof(oats[0]); i++) {
			uint32_t voff[1] = { 0 };
			struct wbuf vd;
			struct dg_oat_spec os = { oats[i].v, oats[i].isa, oats[i].bits, p, l, 1, voff, kv, sizeof(kv) - 1 };
			wbuf_init(&vd);
			if (oats[i].v >= 124) {
				unsigned vv = oats[i].v < 131 ? 6 : oats[i].v < 138 ? 10 : oats[i].v < 170 ? 19 : oats[i].v < 195 ? 21 : 27;
				rc |= dg_vdex(&vd, vv, p, l, 1, true);
				voff[0] = (uint32_t)(vv == 6 || vv == 10 ? 28 : vv == 27 ? 64 : (vv == 19 ? 20 : 28) + 4 + 12 + 4);
			}
			wbuf_init(&b);
			rc |= dg_oat_elf(&b, &os);
			snprintf(name, sizeof(name), "oat%03u.elf", oats[i].v);
			rc |= write_file(dir, "fuzz_oat", name, b.data, b.len);
			if (vd.len) {
				/* u32 n, the VDEX, then the oatdata alone (found through the ELF symbol) */
				struct wbuf combo;
				size_t od = 0;
				for (size_t k = 0; k + 8 <= b.len; k += 16)
					if (!memcmp(b.data + k, "oat\n", 4)) { od = k; break; }
				wbuf_init(&combo);
				wbuf_u32le(&combo, (uint32_t)vd.len);
				wbuf_put(&combo, vd.data, vd.len);
				wbuf_put(&combo, b.data + od, b.len - od);
				snprintf(name, sizeof(name), "vdex+oatdata%03u.bin", oats[i].v);
				rc |= write_file(dir, "fuzz_oat", name, combo.data, combo.len);
				wbuf_release(&combo);
			}
			wbuf_release(&b);
			wbuf_release(&vd);
		}
	}
	for (int i = 0; i < 4; i++)
		wbuf_release(&dex[i]);
	if (rc)
		fprintf(stderr, "dexgen_seeds: failed to build or write a seed under %s\n", dir);
	return rc ? 1 : 0;
}
