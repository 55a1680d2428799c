/* test_oat.c - OAT reader on ELF files built by tests/tools/dexgen.h for one version of
 * every header/record row: header fields, key/value store, records, dex inside the OAT
 * (< 124) or in a paired VDEX (124+), class offsets; truncations and corruptions. */
#include "art/format/oat.h"

#include "art/format/dex.h"
#include "carver/base/xalloc.h"
#include "t.h"
#include "tests/tools/dexgen.h"

static const char kv[] = "compiler-filter\0speed\0dex2oat-cmdline\0--test\0";

struct fixture { struct wbuf dex, vdex, oat; struct vdex v; bool has_vdex; };

static void fixture_build(struct fixture *f, unsigned version, unsigned isa, unsigned bits)
{
	struct dg_spec sp = { dg_sample_classes, 2, 35, false };
	const uint8_t *dex[1];
	size_t len[1];
	uint32_t voff[1] = { 0 };
	struct dg_oat_spec os = { version, isa, bits, dex, len, 1, voff, kv, sizeof(kv) - 1 };

	wbuf_init(&f->dex);
	wbuf_init(&f->vdex);
	wbuf_init(&f->oat);
	dg_build(&f->dex, &sp);
	dex[0] = f->dex.data;
	len[0] = f->dex.len;
	f->has_vdex = version >= 124;
	if (f->has_vdex) {
		struct cursor c;
		unsigned vv = version < 131 ? 6 : version < 138 ? 10 : version < 170 ? 19 : version < 195 ? 21 : 27;
		dg_vdex(&f->vdex, vv, dex, len, 1, true);
		cur_init(&c, f->vdex.data, f->vdex.len, 0);
		vdex_parse(&f->v, &c, NULL);
		voff[0] = (uint32_t)(f->v.dex.off + (vv == 19 || vv == 21 ? 4 : 0));
	}
	dg_oat_elf(&f->oat, &os);
}

static void fixture_release(struct fixture *f)
{
	wbuf_release(&f->dex);
	wbuf_release(&f->vdex);
	wbuf_release(&f->oat);
}

static void test_version(unsigned version, unsigned isa, unsigned bits, const char *isa_name)
{
	struct fixture f;
	struct oat o;
	struct err e;
	const char *val;
	size_t vlen;

	printf("-- oat %03u %s\n", version, isa_name);
	fixture_build(&f, version, isa, bits);
	err_init(&e);
	T_EQ_I(oat_open(&o, f.oat.data, f.oat.len, "test.oat", f.has_vdex ? &f.v : NULL, &e), 0);
	if (e.msg[0])
		printf("   %s\n", e.msg);
	T_EQ_U(o.version, version);
	T_EQ_S(o.isa_name, isa_name);
	T_EQ_U(o.pointer_size, bits / 8);
	T_EQ_U(o.dex_file_count, 1);
	T_EQ_I(oat_kv_get(&o, "compiler-filter", &val, &vlen), 1);
	T_CHECK(vlen == 5 && !memcmp(val, "speed", 5), "kv value");
	T_EQ_I(oat_kv_get(&o, "pic", &val, &vlen), 0);
	T_CHECK(o.header[OAT_H_EXECUTABLE_OFFSET] != 0 && oat_has_field(&o, OAT_H_EXECUTABLE_OFFSET), "executable_offset");
	T_EQ_U(o.oatexec.len, 16);
	if (o.dex_file_count == 1) {
		struct oat_dex_file *df = &o.dex_files[0];
		struct dex d;
		uint32_t off;
		T_CHECK(df->location_len == strlen("/system/framework/test0.jar") &&
			!memcmp(df->location, "/system/framework/test0.jar", df->location_len), "location");
		T_EQ_U(df->location_checksum, ld_u32le(f.dex.data + 8));
		T_EQ_U(df->class_count, 2);
		T_EQ_I(dex_load(&d, &df->dex, &e), 0);
		T_EQ_U(d.file_size, f.dex.len);
		T_EQ_I(oat_class_offset(&o, 0, 1, &off, &e), 0);
		T_EQ_I(oat_class_offset(&o, 0, 2, &off, &e), -ERR_CORRUPT);
		T_EQ_U(df->dex_magic != NULL, version >= 233);
	}
	oat_close(&o);
	/* without the VDEX the records still decode, with no dex bytes */
	if (f.has_vdex) {
		T_EQ_I(oat_open(&o, f.oat.data, f.oat.len, "test.oat", NULL, &e), 0);
		T_EQ_U(o.dex_file_count, 1);
		if (o.dex_file_count)
			T_EQ_U(o.dex_files[0].dex.len, 0);
		oat_close(&o);
	}
	/* truncations: sampled every 7 bytes plus the last 64 */
	{
		unsigned crashes_avoided = 0, accepted = 0;
		for (size_t l = 0; l < f.oat.len; l += (l + 64 < f.oat.len) ? 7 : 1) {
			uint8_t *copy = xmalloc(l ? l : 1);
			memcpy(copy, f.oat.data, l);
			err_init(&e);
			if (oat_open(&o, copy, l, "t", f.has_vdex ? &f.v : NULL, &e) == 0)
				accepted++;
			else
				crashes_avoided += e.msg[0] != 0;
			oat_close(&o);
			xfree(copy);
		}
		T_EQ_U(accepted, 0);
		T_CHECK(crashes_avoided > 0, "messages");
	}
	fixture_release(&f);
}

static void test_corruption(void)
{
	struct fixture f;
	struct oat o;
	struct err e;
	size_t data_off;

	T_SECTION("corruption");
	fixture_build(&f, 88, 2, 64);
	T_EQ_I(oat_open(&o, f.oat.data, f.oat.len, "t", NULL, &e), 0);
	data_off = o.oatdata.va;
	oat_close(&o);
	memcpy(f.oat.data + data_off + 4, "999", 3);
	T_EQ_I(oat_open(&o, f.oat.data, f.oat.len, "t", NULL, &e), -ERR_UNSUP);
	oat_close(&o);
	memcpy(f.oat.data + data_off + 4, "088", 3);
	dg_put32(&f.oat, data_off + 20, 0xffffffff);   /* dex_file_count */
	T_EQ_I(oat_open(&o, f.oat.data, f.oat.len, "t", NULL, &e), -ERR_CORRUPT);
	T_CHECK(strstr(e.msg, "dex_file_count") != NULL, "%s", e.msg);
	oat_close(&o);
	dg_put32(&f.oat, data_off + 20, 1);
	dg_put32(&f.oat, data_off + 12, 9);            /* instruction set */
	T_EQ_I(oat_open(&o, f.oat.data, f.oat.len, "t", NULL, &e), -ERR_CORRUPT);
	oat_close(&o);
	dg_put32(&f.oat, data_off + 12, 2);
	dg_put32(&f.oat, data_off + 68, 0xfffffff0);   /* key_value_store_size (16 fields -> at 68) */
	T_EQ_I(oat_open(&o, f.oat.data, f.oat.len, "t", NULL, &e), -ERR_TRUNC);
	oat_close(&o);
	dg_put32(&f.oat, data_off + 68, sizeof(kv) - 2);  /* cut the last NUL: unterminated pair */
	T_EQ_I(oat_open(&o, f.oat.data, f.oat.len, "t", NULL, &e), -ERR_CORRUPT);
	oat_close(&o);
	f.oat.data[0] = 0;
	T_CHECK(oat_open(&o, f.oat.data, f.oat.len, "t", NULL, &e) < 0, "not ELF");
	oat_close(&o);
	fixture_release(&f);
	{
		char buf[64];
		T_CHECK(oat_vdex_path_for("a/b/boot.oat", buf, sizeof(buf)) && !strcmp(buf, "a/b/boot.vdex"), "%s", buf);
		T_CHECK(oat_vdex_path_for("x.odex", buf, sizeof(buf)) && !strcmp(buf, "x.vdex"), "%s", buf);
		T_CHECK(!oat_vdex_path_for("x.art", buf, sizeof(buf)), "art");
		T_CHECK(!oat_vdex_path_for("x.oat", buf, 5), "small buffer");
	}
}

int main(void)
{
	test_version(39, 3, 32, "thumb2");
	test_version(45, 3, 32, "thumb2");
	test_version(64, 1, 32, "arm");
	test_version(79, 4, 32, "x86");
	test_version(88, 2, 64, "arm64");
	test_version(124, 5, 64, "x86_64");
	test_version(131, 3, 32, "thumb2");
	test_version(138, 2, 64, "arm64");
	test_version(170, 7, 64, "mips64");
	test_version(183, 5, 64, "x86_64");
	test_version(195, 2, 64, "arm64");
	test_version(225, 2, 64, "arm64");
	test_version(230, 4, 64, "riscv64");
	test_version(239, 6, 64, "x86_64");
	test_corruption();
	T_DONE();
}
