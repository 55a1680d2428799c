/* test_zipw.c - ZIP reading (carver/wrap/zipw.h) and the decrunch dictionary sources
 * (output/bmd/bmd_dict.h) on archives built here: stored and deflated entries, CRC checks,
 * truncations, ZIP64 and encryption refusals; JAR entry names and DEX class/field names
 * (DEX files from tests/tools/dexgen.h, our own generator). */
#include "carver/base/xalloc.h"
#include "carver/wrap/zipw.h"
#include "output/bmd/bmd_dict.h"
#include "t.h"
#include "tests/tools/dexgen.h"
#include "tests/tools/zipgen.h"

/* A fresh archive of the n entries in z. */
static void build_zip(struct wbuf *z, const struct zentry *en, size_t n, bool zip64_marker)
{
	wbuf_init(z);
	zipgen_build(z, en, n, zip64_marker);
}

/* "dictest/Holder" x3, raw deflate (zlib level 9) */
static const uint8_t deflated[] = { 0x4b, 0xc9, 0x4c, 0x2e, 0x49, 0x2d, 0x2e, 0xd1, 0xf7, 0xc8, 0xcf, 0x49, 0x49,
				    0x2d, 0x52, 0x48, 0xc1, 0xc7, 0x05, 0x00 };
static const char plain[] = "dictest/Holder dictest/Holder dictest/Holder";

static void test_entries(void)
{
	const uint8_t cls[] = { 0xca, 0xfe, 0xba, 0xbe };
	struct zentry en[] = {
		{ "dictest/A.class", cls, 4, 0, NULL, 0, 0, 0 },
		{ "notes.txt", (const uint8_t *)plain, sizeof(plain) - 1, 8, deflated, sizeof(deflated), 0, 0 },
		{ "bad.bin", cls, 4, 0, NULL, 0, 0x12345678, 0 },
		{ "secret.bin", cls, 4, 0, NULL, 0, 0, 1 },
	};
	struct wbuf z;
	struct zipw zw;
	struct zipw_iter it;
	struct zipw_entry e[4];
	struct err er;
	uint8_t *out;
	size_t len;
	int k = 0;

	T_SECTION("entries");
	build_zip(&z, en, 4, false);
	T_CHECK(zipw_probe(z.data, z.len), "probe");
	T_EQ_I(zipw_open(&zw, z.data, z.len, "t", &er), 0);
	T_EQ_U(zw.entry_count, 4);
	zipw_iter_init(&zw, &it);
	while (k < 4 && zipw_next(&it, &e[k], &er) == 1)
		k++;
	T_EQ_I(k, 4);
	T_EQ_I(zipw_next(&it, &e[0], &er), 0);
	T_CHECK(e[0].name_len == 15 && !memcmp(e[0].name, "dictest/A.class", 15), "first name");
	T_EQ_I(zipw_extract(&zw, &e[0], 1 << 20, &out, &len, &er), 0);
	T_CHECK(len == 4 && !memcmp(out, cls, 4), "stored data");
	xfree(out);
	T_EQ_I(zipw_extract(&zw, &e[1], 1 << 20, &out, &len, &er), 0);
	T_CHECK(len == sizeof(plain) - 1 && !memcmp(out, plain, len), "inflated data");
	xfree(out);
	T_EQ_I(zipw_extract(&zw, &e[1], 10, &out, &len, &er), -ERR_UNSUP);
	T_EQ_I(zipw_extract(&zw, &e[2], 1 << 20, &out, &len, &er), -ERR_CORRUPT);
	T_CHECK(strstr(er.msg, "CRC") != NULL, "crc message: %s", er.msg);
	T_EQ_I(zipw_extract(&zw, &e[3], 1 << 20, &out, &len, &er), -ERR_UNSUP);
	/* an entry read again from its directory offset; offsets outside the directory refused */
	{
		struct zipw_entry again;
		T_EQ_I(zipw_entry_at(&zw, e[1].offset, &again, &er), 0);
		T_CHECK(again.name_len == 9 && !memcmp(again.name, "notes.txt", 9) && again.crc32 == e[1].crc32 &&
			again.local_offset == e[1].local_offset, "entry 1 read again at 0x%llx", (unsigned long long)e[1].offset);
		T_EQ_I(zipw_entry_at(&zw, zw.cd_offset - 1, &again, &er), -ERR_CORRUPT);
		T_EQ_I(zipw_entry_at(&zw, zw.cd_offset + zw.cd_size, &again, &er), -ERR_CORRUPT);
		printf("  %s\n", er.msg);
		T_CHECK(zipw_entry_at(&zw, e[3].offset + 1, &again, &er) < 0, "an offset inside an entry: %s", er.msg);
	}
	/* every truncation loses the end record (the archive's last 22 bytes, no comment, and no
	 * other "PK\5\6" in it): zipw_open refuses it as truncated or corrupt, with a message,
	 * and never reads out of bounds (ASan build) */
	{
		unsigned opened = 0, bad = 0;
		for (size_t n = 0; n < z.len; n++) {
			struct zipw t;
			struct err te;
			int rc;
			err_init(&te);
			rc = zipw_open(&t, z.data, n, "t", &te);
			if (rc == 0) {
				opened++;
				printf("  truncation at %zu opened (%u entries)\n", n, (unsigned)t.entry_count);
			} else if ((rc != -ERR_TRUNC && rc != -ERR_CORRUPT) || !te.msg[0]) {
				if (++bad <= 5)
					printf("  truncation at %zu: rc %d, message '%s'\n", n, rc, te.msg);
			}
		}
		T_CHECK(opened == 0 && bad == 0, "%zu truncations refused: %u opened, %u with another error or no message",
			z.len, opened, bad);
	}
	wbuf_release(&z);
	build_zip(&z, en, 1, true);
	T_EQ_I(zipw_open(&zw, z.data, z.len, "t", &er), -ERR_UNSUP);
	T_CHECK(strstr(er.msg, "ZIP64") != NULL, "zip64 message: %s", er.msg);
	wbuf_release(&z);
	T_EQ_I(zipw_open(&zw, (const uint8_t *)"PK\5\6", 4, "t", &er), -ERR_CORRUPT);
}

static void expect_dict(const struct bmd_dict *d, const char *s, bool want)
{
	struct wbuf b;
	int32_t h;
	const uint8_t *got;
	size_t n;
	bool found;

	wbuf_init(&b);
	bmd_java_utf8((const uint8_t *)s, strlen(s), &b, &h);
	found = bmd_dict_find(d, h, &got, &n) && n == strlen(s) && !memcmp(got, s, n);
	T_CHECK(found == want, "'%s' %s the dictionary", s, want ? "missing from" : "unexpected in");
	wbuf_release(&b);
}

static void test_jar_dict(void)
{
	const uint8_t cls[] = { 0xca, 0xfe };
	const struct zentry en[] = {
		{ "dictest/Holder.class", cls, 2, 0, NULL, 0, 0, 0 },
		{ "dictest/Holder$Node.class", cls, 2, 0, NULL, 0, 0, 0 },
		{ "odd:name.class", cls, 2, 0, NULL, 0, 0, 0 },
		{ "META-INF/MANIFEST.MF", cls, 2, 0, NULL, 0, 0, 0 },
	};
	struct bmd_dict d;
	struct wbuf z;

	T_SECTION("jar dictionary");
	build_zip(&z, en, 4, false);
	bmd_dict_init(&d);
	T_EQ_I(bmd_dict_add_jar(&d, z.data, z.len, "t.jar", NULL), 0);
	T_EQ_U(d.count, 3);
	expect_dict(&d, "dictest/Holder", true);        /* '/' kept, as Badoo's reader does */
	expect_dict(&d, "dictest/Holder$Node", true);
	expect_dict(&d, "odd.name", true);              /* File.pathSeparator ':' -> '.' */
	expect_dict(&d, "dictest.Holder", false);
	expect_dict(&d, "META-INF/MANIFEST.MF", false);
	bmd_dict_release(&d);
	wbuf_release(&z);
}

static void test_dex_dict(void)
{
	struct dg_spec sp = { dg_sample_classes, 2, 35, false };
	struct wbuf dex, z;
	struct bmd_dict d;

	T_SECTION("dex and apk dictionary");
	wbuf_init(&dex);
	dg_build(&dex, &sp);
	bmd_dict_init(&d);
	T_EQ_I(bmd_dict_add_dex(&d, dex.data, dex.len, "t.dex", NULL), 0);
	expect_dict(&d, "com.example.Hello", true);
	expect_dict(&d, "com.example.World", true);
	expect_dict(&d, "count", true);
	expect_dict(&d, "TOTAL", true);
	expect_dict(&d, "data", true);
	expect_dict(&d, "greet", false);                /* methods are not used */
	expect_dict(&d, "com/example/Hello", false);
	bmd_dict_release(&d);
	{
		/* an APK: classes.dex stored, classes2.dex too; other dex files are ignored */
		struct dg_class other[] = { { "Lorg/x/Only2;", "Ljava/lang/Object;", 1, { { "secondField", "I", 2 } },
					      { { NULL, NULL, { NULL }, 0, false, 0 } } } };
		struct dg_spec sp2 = { other, 1, 35, false };
		struct wbuf dex2;
		wbuf_init(&dex2);
		dg_build(&dex2, &sp2);
		const struct zentry en[] = {
			{ "classes.dex", dex.data, dex.len, 0, NULL, 0, 0, 0 },
			{ "classes2.dex", dex2.data, dex2.len, 0, NULL, 0, 0, 0 },
			{ "assets/classes.dex", dex2.data, dex2.len, 0, NULL, 0, 0, 0 },
		};
		build_zip(&z, en, 3, false);
		bmd_dict_init(&d);
		T_EQ_I(bmd_dict_add_apk(&d, z.data, z.len, "t.apk", NULL), 0);
		expect_dict(&d, "com.example.Hello", true);
		expect_dict(&d, "org.x.Only2", true);
		expect_dict(&d, "secondField", true);
		bmd_dict_release(&d);
		/* a damaged DEX inside the APK is an error */
		dex2.data[40] ^= 0xff;
		wbuf_release(&z);
		{
			const struct zentry bad[] = { { "classes.dex", dex2.data, 0x30, 0, NULL, 0, 0, 0 } };
			struct err er;
			build_zip(&z, bad, 1, false);
			bmd_dict_init(&d);
			T_CHECK(bmd_dict_add_apk(&d, z.data, z.len, "t.apk", &er) < 0, "truncated classes.dex rejected");
			bmd_dict_release(&d);
		}
		wbuf_release(&dex2);
		wbuf_release(&z);
	}
	wbuf_release(&dex);
}

int main(void)
{
	test_entries();
	test_jar_dict();
	test_dex_dict();
	T_DONE();
}
