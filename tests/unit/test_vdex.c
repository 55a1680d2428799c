/* test_vdex.c - VDEX 006/010/019/021/027 on files built by tests/tools/dexgen.h: layout,
 * dex iteration (standard and compact), absent dex, truncations, corrupted sizes. */
#include "art/format/vdex.h"

#include "art/format/dex.h"
#include "carver/base/xalloc.h"
#include "t.h"
#include "tests/tools/dexgen.h"

static void build_dex(struct wbuf *b, bool compact, const struct dg_class *classes, size_t n)
{
	struct dg_spec sp = { classes, n, 35, compact };
	wbuf_init(b);
	dg_build(b, &sp);
}

static int parse(struct vdex *v, const struct wbuf *b, size_t len, struct err *e)
{
	struct cursor c;
	cur_init(&c, b->data, len, 0);
	err_init(e);
	return vdex_parse(v, &c, e);
}

static void test_version(unsigned version, bool compact, bool with_dex)
{
	struct wbuf d1, d2, vb;
	const uint8_t *dex[2];
	size_t len[2], n = compact ? 1 : 2;
	struct vdex v;
	struct err e;

	printf("-- vdex %03u %s%s\n", version, compact ? "cdex" : "dex", with_dex ? "" : " (no dex)");
	build_dex(&d1, compact, dg_sample_classes, 2);
	build_dex(&d2, compact, dg_sample_classes + 1, 1);
	dex[0] = d1.data; len[0] = d1.len; dex[1] = d2.data; len[1] = d2.len;
	wbuf_init(&vb);
	T_EQ_I(dg_vdex(&vb, version, dex, len, n, with_dex), 0);
	T_CHECK(vdex_probe(vb.data, vb.len), "probe");
	T_EQ_I(parse(&v, &vb, vb.len, &e), 0);
	T_EQ_U(v.version, version);
	T_EQ_U(v.dex_count, n);
	T_EQ_U(vdex_has_dex(&v), with_dex);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t ck;
		T_EQ_I(vdex_dex_checksum(&v, i, &ck, &e), 0);
		T_EQ_U(ck, ld_u32le(dex[i] + 8));
		if (with_dex) {
			struct cursor c;
			struct dex d;
			uint32_t computed;
			T_EQ_I(vdex_dex(&v, i, &c, &e), 0);
			T_EQ_I(dex_load(&d, &c, &e), 0);
			T_EQ_U(d.compact, compact);
			T_EQ_U(d.class_defs_size, i == 0 ? 2 : 1);
			T_EQ_I(dex_verify_checksum(&d, &computed, &e), 0);
			T_EQ_U(dex_span(&d), len[i]);
		} else {
			struct cursor c;
			T_EQ_I(vdex_dex(&v, i, &c, &e), -ERR_CORRUPT);
		}
	}
	{
		struct cursor c;
		T_EQ_I(vdex_dex(&v, (uint32_t)n, &c, &e), -ERR_CORRUPT);
	}
	/* every truncation is rejected with a message (the last region always has bytes) */
	{
		unsigned accepted = 0;
		for (size_t l = 0; l < vb.len; l++) {
			uint8_t *copy = xmalloc(l ? l : 1);
			struct cursor c;
			memcpy(copy, vb.data, l);
			cur_init(&c, copy, l, 0);
			err_init(&e);
			if (vdex_parse(&v, &c, &e) == 0)
				accepted++;
			xfree(copy);
		}
		T_EQ_U(accepted, 0);
	}
	wbuf_release(&vb);
	wbuf_release(&d1);
	wbuf_release(&d2);
}

static void test_corruption(void)
{
	struct wbuf d1, vb;
	const uint8_t *dex[1];
	size_t len[1];
	struct vdex v;
	struct err e;
	struct cursor c;

	T_SECTION("corruption");
	build_dex(&d1, false, dg_sample_classes, 2);
	dex[0] = d1.data; len[0] = d1.len;
	wbuf_init(&vb);
	dg_vdex(&vb, 19, dex, len, 1, true);
	memcpy(vb.data + 4, "018", 3);
	T_EQ_I(parse(&v, &vb, vb.len, &e), -ERR_UNSUP);
	T_CHECK(strstr(e.msg, "unsupported version") != NULL, "%s", e.msg);
	memcpy(vb.data + 4, "019", 3);
	memcpy(vb.data + 8, "001", 3);
	T_EQ_I(parse(&v, &vb, vb.len, &e), -ERR_UNSUP);
	memcpy(vb.data + 8, "002", 3);
	dg_put32(&vb, 12, 0x40000000);   /* dex count */
	T_EQ_I(parse(&v, &vb, vb.len, &e), -ERR_TRUNC);
	dg_put32(&vb, 12, 1);
	dg_put32(&vb, 16, 0xffffffff);   /* verifier deps size */
	T_EQ_I(parse(&v, &vb, vb.len, &e), -ERR_TRUNC);
	dg_put32(&vb, 16, 4);
	T_EQ_I(parse(&v, &vb, vb.len, &e), 0);
	vb.data[v.dex.off + 4] = 'x';    /* break the dex magic after the quickening slot */
	T_EQ_I(vdex_dex(&v, 0, &c, &e), -ERR_CORRUPT);
	T_CHECK(strstr(e.msg, "no dex header") != NULL, "%s", e.msg);
	vb.data[0] = 'w';                /* kVdexInvalidMagic "wdex" */
	T_CHECK(!vdex_probe(vb.data, vb.len), "wdex not probed");
	T_EQ_I(parse(&v, &vb, vb.len, &e), -ERR_CORRUPT);
	wbuf_release(&vb);
	wbuf_release(&d1);
	T_CHECK(vdex_version_count() == 5 && vdex_version_at(4)->version == 27 && !vdex_version_at(5), "table");
}

int main(void)
{
	static const unsigned versions[] = { 6, 10, 19, 21, 27 };
	for (size_t i = 0; i < 5; i++)
		test_version(versions[i], false, true);
	test_version(19, true, true);
	test_version(21, true, true);
	test_version(21, false, false);
	test_version(27, false, false);
	test_corruption();
	T_DONE();
}
