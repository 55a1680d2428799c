/* test_oat_code.c - OatClass / OatMethodOffsets / method header decoding on hand-built bytes,
 * for every layout row, plus corrupted fields (0, 0xffffffff, len+1) and truncations. */
#include <stdint.h>
#include <string.h>

#include "art/code/oat_code.h"
#include "carver/base/wbuf.h"
#include "tests/unit/t.h"

/* A tiny oatdata (.rodata) + oatexec (.text) pair: exec starts 0x100 after oatdata. */
#define EXEC_REL 0x100u

struct mini {
	struct wbuf data, exec;
	struct oat_code_space s;
};

static void mini_init(struct mini *m, unsigned oat_version, unsigned delta)
{
	wbuf_init(&m->data);
	wbuf_init(&m->exec);
	memset(&m->s, 0, sizeof(m->s));
	m->s.layout = oat_code_layout_for(oat_version);
	m->s.exec_rel = EXEC_REL;
	m->s.code_delta = delta;
}

static void mini_bind(struct mini *m)
{
	cur_init(&m->s.data, m->data.data, m->data.len, 0);
	cur_init(&m->s.exec, m->exec.data, m->exec.len, EXEC_REL);
}

static void mini_release(struct mini *m)
{
	wbuf_release(&m->data);
	wbuf_release(&m->exec);
}

/* Appends header + code of `size` bytes (0xcc) to exec and returns the code's oatdata offset. */
static uint32_t mini_add_method(struct mini *m, uint32_t size_field)
{
	const struct oat_code_layout *l = m->s.layout;
	size_t hdr = m->exec.len;
	uint32_t code;

	wbuf_zeros(&m->exec, l->header_size);
	memcpy(m->exec.data + hdr + l->header_size - 4, &size_field, 4);   /* code size is the last field */
	if (l->vmap_at != OAT_CODE_NONE)
		m->exec.data[hdr + l->vmap_at] = 0x40;
	code = (uint32_t)(EXEC_REL + m->exec.len);
	for (uint32_t i = 0; i < (size_field & 0xffff); i++)
		wbuf_u8(&m->exec, 0xcc);
	return code;
}

static void test_rows(void)
{
	static const unsigned versions[] = { 39, 45, 64, 79, 88, 124, 131, 138, 156, 170, 183, 192, 195, 239 };

	T_SECTION("layout rows");
	for (size_t i = 0; i < sizeof(versions) / sizeof(versions[0]); i++)
		T_CHECK(oat_code_layout_for(versions[i]) != NULL, "oat %u has a row", versions[i]);
	T_CHECK(oat_code_layout_for(38) == NULL, "oat 038 is unsupported");
	T_CHECK(oat_code_layout_for(240) == NULL, "oat 240 is unsupported");
	T_EQ_U(oat_code_layout_for(39)->method_offsets_size, 8);
	T_EQ_U(oat_code_layout_for(45)->header_size, 28);
	T_EQ_U(oat_code_layout_for(88)->header_size, 20);
	T_EQ_U(oat_code_layout_for(124)->header_size, 24);
	T_EQ_U(oat_code_layout_for(138)->header_size, 24);
	T_EQ_U(oat_code_layout_for(170)->header_size, 8);
	T_EQ_U(oat_code_layout_for(183)->header_size, 8);
	T_EQ_U(oat_code_layout_for(195)->header_size, 4);
}

/* One class of each type for a pre-194 version; methods decoded through the class. */
static void test_classes(unsigned version)
{
	struct mini m;
	struct oat_class_info c;
	struct oat_method_code mc;
	struct err e;
	uint32_t m0, m1, off;
	unsigned mo;

	printf("-- classes, oat %03u\n", version);
	err_init(&e);
	mini_init(&m, version, 1);
	mo = m.s.layout->method_offsets_size;
	m0 = mini_add_method(&m, 6) + 1;           /* Thumb: entry has bit 0 set */
	wbuf_zeros(&m.exec, 8);
	m1 = mini_add_method(&m, 0x80000004u) + 1;  /* deopt flag where it exists */
	/* all-compiled class at 0: two methods */
	wbuf_u16le(&m.data, 10); wbuf_u16le(&m.data, OAT_CLASS_ALL_COMPILED);
	wbuf_u32le(&m.data, m0); if (mo == 8) wbuf_u32le(&m.data, 0);
	wbuf_u32le(&m.data, m1); if (mo == 8) wbuf_u32le(&m.data, 0);
	/* some-compiled class: 3 methods, only #2 compiled */
	off = (uint32_t)m.data.len;
	wbuf_u16le(&m.data, 10); wbuf_u16le(&m.data, OAT_CLASS_SOME_COMPILED);
	wbuf_u32le(&m.data, 4); wbuf_u32le(&m.data, 0x4);
	wbuf_u32le(&m.data, m1); if (mo == 8) wbuf_u32le(&m.data, 0);
	wbuf_u16le(&m.data, 0xfffe); wbuf_u16le(&m.data, OAT_CLASS_NONE_COMPILED);   /* status -2 retired */
	mini_bind(&m);

	T_EQ_I(oat_class_decode(&m.s, 0, 2, &c, &e), 0);
	T_EQ_U(c.type, OAT_CLASS_ALL_COMPILED);
	T_EQ_I(c.status, 10);
	T_EQ_U(c.compiled_count, 2);
	T_EQ_U(c.end, 4 + 2 * mo);
	T_EQ_I(oat_class_method_code_offset(&m.s, &c, 1, &off, &e), 0);
	T_EQ_U(off, m1);
	if (m.s.layout->code_size_mask == 0xffffffffu) {
		/* no deopt flag in this version: bit 31 makes the size absurd */
		T_EQ_I(oat_method_code_decode(&m.s, off, &mc, &e), -ERR_CORRUPT);
	} else {
		T_EQ_I(oat_method_code_decode(&m.s, off, &mc, &e), 0);
		T_EQ_U(mc.code_offset, m1 - 1);
		T_EQ_U(mc.code_size, 4);
		T_CHECK(mc.should_deoptimize, "deopt flag");
	}
	T_EQ_I(oat_class_method_code_offset(&m.s, &c, 2, &off, &e), -ERR_CORRUPT);
	T_CHECK(strstr(e.msg, "out of range") != NULL, "%s", e.msg);

	/* unknown count: the index is only bounded by oatdata */
	T_EQ_I(oat_class_decode(&m.s, 0, OAT_CODE_UNKNOWN_COUNT, &c, &e), 0);
	T_EQ_U(c.compiled_count, OAT_CODE_UNKNOWN_COUNT);
	T_EQ_I(oat_class_method_code_offset(&m.s, &c, 0, &off, &e), 0);
	T_EQ_U(off, m0);
	T_EQ_I(oat_method_code_decode(&m.s, off, &mc, &e), 0);
	T_EQ_U(mc.code_size, 6);
	T_EQ_U(mc.code.len, 6);
	T_EQ_U(mc.code.base[0], 0xcc);
	T_EQ_I(oat_class_method_code_offset(&m.s, &c, 1000, &off, &e), -ERR_TRUNC);

	T_EQ_I(oat_class_decode(&m.s, (uint32_t)(4 + 2 * mo), 3, &c, &e), 0);
	T_EQ_U(c.type, OAT_CLASS_SOME_COMPILED);
	T_EQ_U(c.compiled_count, 1);
	T_EQ_I(oat_class_method_code_offset(&m.s, &c, 0, &off, &e), 0);
	T_EQ_U(off, 0);
	T_EQ_I(oat_class_method_code_offset(&m.s, &c, 2, &off, &e), 0);
	T_EQ_U(off, m1);
	T_EQ_I(oat_class_decode(&m.s, (uint32_t)(4 + 2 * mo), 40, &c, &e), -ERR_CORRUPT);
	T_CHECK(strstr(e.msg, "bitmap of 32 bits cannot cover 40") != NULL, "%s", e.msg);

	T_EQ_I(oat_class_decode(&m.s, (uint32_t)(m.data.len - 4), OAT_CODE_UNKNOWN_COUNT, &c, &e), 0);
	T_EQ_U(c.type, OAT_CLASS_NONE_COMPILED);
	T_EQ_I(c.status, -2);
	T_EQ_I(oat_class_method_code_offset(&m.s, &c, 5, &off, &e), 0);
	T_EQ_U(off, 0);
	mini_release(&m);
}

static void test_corrupt_methods(void)
{
	struct mini m;
	struct oat_method_code mc;
	struct oat_class_info c;
	struct err e;
	uint32_t code;
	uint8_t *size_field;

	T_SECTION("corrupted method headers and classes (oat 183)");
	err_init(&e);
	mini_init(&m, 183, 0);
	code = mini_add_method(&m, 16);
	wbuf_u16le(&m.data, 7); wbuf_u16le(&m.data, 3);        /* type 3 */
	wbuf_u16le(&m.data, 40); wbuf_u16le(&m.data, 0);       /* status 40 */
	wbuf_u16le(&m.data, 4); wbuf_u16le(&m.data, 1);        /* some-compiled, bitmap size cut */
	wbuf_u16le(&m.data, 0);
	mini_bind(&m);
	size_field = m.exec.data + (code - EXEC_REL) - 4;

	T_EQ_I(oat_method_code_decode(&m.s, code, &mc, &e), 0);
	T_EQ_U(mc.code_size, 16);
	T_EQ_I(oat_method_code_decode(&m.s, 0, &mc, &e), -ERR_CORRUPT);
	T_EQ_I(oat_method_code_decode(&m.s, 0xffffffffu, &mc, &e), -ERR_CORRUPT);
	T_CHECK(strstr(e.msg, "outside oatexec") != NULL, "%s", e.msg);
	T_EQ_I(oat_method_code_decode(&m.s, EXEC_REL + 4, &mc, &e), -ERR_CORRUPT);   /* header before exec */
	T_EQ_I(oat_method_code_decode(&m.s, (uint32_t)(EXEC_REL + m.exec.len + 1), &mc, &e), -ERR_CORRUPT);
	memcpy(size_field, &(uint32_t){ 0 }, 4);
	T_EQ_I(oat_method_code_decode(&m.s, code, &mc, &e), -ERR_CORRUPT);
	T_CHECK(strstr(e.msg, "code size is 0") != NULL, "%s", e.msg);
	memcpy(size_field, &(uint32_t){ 17 }, 4);                 /* len + 1 */
	T_EQ_I(oat_method_code_decode(&m.s, code, &mc, &e), -ERR_CORRUPT);
	T_CHECK(strstr(e.msg, "exceeds the 16 bytes left") != NULL, "%s", e.msg);
	memcpy(size_field, &(uint32_t){ 0xffffffffu }, 4);
	T_EQ_I(oat_method_code_decode(&m.s, code, &mc, &e), -ERR_CORRUPT);
	m.s.code_align = 16;
	memcpy(size_field, &(uint32_t){ 16 }, 4);
	T_EQ_I(oat_method_code_decode(&m.s, code + 2, &mc, &e), -ERR_CORRUPT);
	T_CHECK(strstr(e.msg, "aligned") != NULL, "%s", e.msg);

	T_EQ_I(oat_class_decode(&m.s, 0, 1, &c, &e), -ERR_CORRUPT);
	T_CHECK(strstr(e.msg, "type 3") != NULL, "%s", e.msg);
	T_EQ_I(oat_class_decode(&m.s, 4, 1, &c, &e), -ERR_CORRUPT);
	T_CHECK(strstr(e.msg, "status 40") != NULL, "%s", e.msg);
	T_EQ_I(oat_class_decode(&m.s, 8, 1, &c, &e), -ERR_TRUNC);
	T_EQ_I(oat_class_decode(&m.s, 14, 1, &c, &e), -ERR_TRUNC);
	T_EQ_I(oat_class_decode(&m.s, 0xffffffffu, 1, &c, &e), -ERR_TRUNC);
	mini_release(&m);
}

static void test_v194(void)
{
	struct mini m;
	struct oat_class_info c;
	struct oat_method_code mc;
	struct err e;
	uint32_t code, off, ci_at;

	T_SECTION("oat 195: num_methods and CodeInfo code size");
	err_init(&e);
	mini_init(&m, 195, 0);
	/* CodeInfo in oatdata at offset 0x40: flags 0, code_size 300 (> 11: 2 extra bytes), rest 0.
	 * small fields: [0, 11+2=13, 0, 0, 0, 0, 0] -> 28 bits, then 16 bits of 300. */
	wbuf_zeros(&m.data, 0x40);
	ci_at = (uint32_t)m.data.len;
	{
		uint64_t bits = (uint64_t)13 << 4 | (uint64_t)300 << 28;
		for (int i = 0; i < 6; i++)
			wbuf_u8(&m.data, (uint8_t)(bits >> (8 * i)));
	}
	off = (uint32_t)m.data.len;
	wbuf_u16le(&m.data, 15); wbuf_u16le(&m.data, OAT_CLASS_SOME_COMPILED);
	wbuf_u32le(&m.data, 33);                               /* 33 methods: 2 bitmap words */
	wbuf_u32le(&m.data, 0); wbuf_u32le(&m.data, 1);        /* method 32 compiled */
	code = (uint32_t)(EXEC_REL + 4);
	wbuf_u32le(&m.data, code);
	wbuf_u32le(&m.exec, 0x40000000u | (code - ci_at));
	wbuf_zeros(&m.exec, 300);
	mini_bind(&m);

	T_EQ_I(oat_class_decode(&m.s, off, OAT_CODE_UNKNOWN_COUNT, &c, &e), 0);
	T_EQ_U(c.num_methods, 33);
	T_EQ_U(c.compiled_count, 1);
	T_EQ_U(c.bitmap.len, 8);
	T_EQ_I(oat_class_decode(&m.s, off, 32, &c, &e), -ERR_CORRUPT);
	T_EQ_I(oat_class_decode(&m.s, off, 33, &c, &e), 0);
	T_EQ_I(oat_class_method_code_offset(&m.s, &c, 32, &off, &e), 0);
	T_EQ_U(off, code);
	T_EQ_I(oat_class_method_code_offset(&m.s, &c, 33, &off, &e), -ERR_CORRUPT);
	T_EQ_I(oat_method_code_decode(&m.s, code, &mc, &e), 0);
	T_EQ_U(mc.code_info_offset, code - ci_at);
	T_EQ_U(mc.code_size, 300);
	memcpy(m.exec.data, &(uint32_t){ 0x40000000u | 0x3fffffffu }, 4);   /* code info before oatdata */
	T_EQ_I(oat_method_code_decode(&m.s, code, &mc, &e), -ERR_CORRUPT);
	memcpy(m.exec.data, &(uint32_t){ 0x40000000u | (code - (uint32_t)m.data.len + 1) }, 4); /* last byte */
	T_EQ_I(oat_method_code_decode(&m.s, code, &mc, &e), -ERR_TRUNC);
	memcpy(m.exec.data, &(uint32_t){ 0x80000000u | 12 }, 4);             /* plain size + deopt */
	T_EQ_I(oat_method_code_decode(&m.s, code, &mc, &e), 0);
	T_EQ_U(mc.code_size, 12);
	T_CHECK(mc.should_deoptimize, "deopt flag");
	mini_release(&m);
}


/* The index without a DEX: table length and method counts inferred from the layout. */
static void test_index_blind(void)
{
	struct mini m;
	struct oat_code_index ix;
	struct oat_code_dexfile df = { (const uint8_t *)"x.jar", 5, NULL, 0, 0 };
	struct oat_code_header hdr = { 0 };
	struct err e;
	uint32_t c[5], delta, table, first;
	const char *n;

	T_SECTION("index without DEX (oat 183)");
	err_init(&e);
	mini_init(&m, 183, 0);
	for (int i = 0; i < 5; i++) {
		c[i] = mini_add_method(&m, 16);
		wbuf_zeros(&m.exec, 8);
	}
	wbuf_zeros(&m.data, 8);                                  /* stands for the OatHeader */
	table = (uint32_t)m.data.len;
	first = table + 4 * 4;                                   /* 4 classes */
	wbuf_u32le(&m.data, first);                              /* all-compiled, 2 methods */
	wbuf_u32le(&m.data, first + 12);                         /* some-compiled: methods 0 and 2 */
	wbuf_u32le(&m.data, first + 12 + 8 + 4 + 8);             /* none-compiled */
	wbuf_u32le(&m.data, first + 12 + 8 + 4 + 8 + 4);         /* the last: all-compiled, 1 + junk */
	wbuf_u16le(&m.data, 10); wbuf_u16le(&m.data, 0); wbuf_u32le(&m.data, c[0]); wbuf_u32le(&m.data, c[1]);
	wbuf_u16le(&m.data, 10); wbuf_u16le(&m.data, 1); wbuf_u32le(&m.data, 4); wbuf_u32le(&m.data, 5);
	wbuf_u32le(&m.data, c[2]); wbuf_u32le(&m.data, c[3]);
	wbuf_u16le(&m.data, 10); wbuf_u16le(&m.data, 2);
	wbuf_u16le(&m.data, 10); wbuf_u16le(&m.data, 0); wbuf_u32le(&m.data, c[4]);
	wbuf_u32le(&m.data, 0x12345678);                         /* what follows the last class */
	mini_bind(&m);
	df.class_offsets_off = table;
	hdr.trampoline_count = 1;
	hdr.trampolines[0] = (struct oat_code_trampoline){ "quick_to_interpreter_bridge", EXEC_REL };

	T_EQ_I(oat_code_index_build(&ix, &m.s, &hdr, &df, 1, &e), 0);
	T_EQ_U(ix.count, 5);
	T_CHECK(ix.inferred_counts, "counts were inferred");
	T_EQ_U(ix.skipped, 0);
	T_EQ_S(oat_code_entry_name(&ix, &ix.entries[0]), "dex0:class0:method0");
	T_EQ_S(oat_code_entry_name(&ix, &ix.entries[3]), "dex0:class1:method2");
	T_EQ_S(oat_code_entry_name(&ix, &ix.entries[4]), "dex0:class3:method0");
	n = oat_code_index_name_at(&ix, c[1] + 4, &delta);
	T_EQ_S(n ? n : "(null)", "dex0:class0:method1");
	T_EQ_U(delta, 4);
	T_CHECK(oat_code_index_name_at(&ix, c[1] + 16, &delta) == NULL, "past the code: nothing");
	n = oat_code_index_name_at(&ix, EXEC_REL, &delta);
	T_EQ_S(n ? n : "(null)", "quick_to_interpreter_bridge");
	T_CHECK(oat_code_index_entry_at(&ix, c[1]) == &ix.entries[1], "method 1 starts at its code");
	T_CHECK(oat_code_index_entry_at(&ix, c[1] + 4) == NULL, "inside a method: no entry");
	T_CHECK(oat_code_index_entry_at(&ix, EXEC_REL) == NULL, "a trampoline is no method");
	oat_code_index_release(&ix);

	/* a corrupt method header is skipped and counted */
	memcpy(m.exec.data + (c[2] - EXEC_REL) - 4, &(uint32_t){ 0 }, 4);
	T_EQ_I(oat_code_index_build(&ix, &m.s, NULL, &df, 1, &e), 0);
	T_EQ_U(ix.count, 4);
	T_EQ_U(ix.skipped, 1);
	T_CHECK(strstr(ix.first_skip.msg, "code size is 0") != NULL, "%s", ix.first_skip.msg);
	oat_code_index_release(&ix);
	/* the table pointing outside oatdata */
	memcpy(m.data.data + table, &(uint32_t){ 0xfffffff0u }, 4);
	T_EQ_I(oat_code_index_build(&ix, &m.s, NULL, &df, 1, &e), 0);
	T_CHECK(ix.skipped >= 1, "class outside oatdata skipped (%zu)", ix.skipped);
	oat_code_index_release(&ix);
	mini_release(&m);
}

/* oat_code_map: the oatdata and oatexec bytes at their runtime addresses in one view. */
static void test_map(void)
{
	struct mini m;
	struct image view;
	struct err e;
	uint8_t b[4];

	T_SECTION("code spaces mapped at runtime addresses");
	err_init(&e);
	mini_init(&m, 183, 0);
	wbuf_zeros(&m.data, 0x40);
	m.data.data[0] = 'o';
	mini_add_method(&m, 16);
	mini_bind(&m);
	img_init_empty(&view, "code");
	T_EQ_I(oat_code_map(&view, &m.s, 0x70000000, "t.oat", &e), 0);
	T_EQ_U(view.region_count, 2);
	T_EQ_I(img_read(&view, 0x70000000, b, 1, &e), 0);
	T_EQ_U(b[0], 'o');
	T_EQ_I(img_read(&view, 0x70000000 + EXEC_REL + m.s.layout->header_size, b, 4, &e), 0);
	T_EQ_U(b[0], 0xcc);
	T_EQ_U(img_find(&view, 0x70000000 + EXEC_REL)->prot, IMG_PROT_R | IMG_PROT_X);
	T_EQ_I(img_read(&view, 0x70000000 + 0x40, b, 1, &e), -ERR_UNMAPPED);   /* the gap before .text */
	/* a second OAT on top of the first, and one that wraps around: refused, nothing added */
	T_EQ_I(oat_code_map(&view, &m.s, 0x70000000 + EXEC_REL, "u.oat", &e), -ERR_CORRUPT);
	T_EQ_I(oat_code_map(&view, &m.s, UINT64_MAX - 0x20, "w.oat", &e), -ERR_CORRUPT);
	T_EQ_U(view.region_count, 2);
	img_close(&view);
	/* oatdata running into oatexec keeps the code and the bytes before it */
	wbuf_zeros(&m.data, 0x100);
	mini_bind(&m);
	img_init_empty(&view, "code");
	T_EQ_I(oat_code_map(&view, &m.s, 0x1000, "x.oat", &e), 0);
	T_EQ_U(img_find(&view, 0x1000)->end, 0x1000 + EXEC_REL);
	T_EQ_I(img_read(&view, 0x1000 + EXEC_REL + m.s.layout->header_size, b, 1, &e), 0);
	T_EQ_U(b[0], 0xcc);
	img_close(&view);
	mini_release(&m);
}

/* A class offsets table whose stated class count runs past oatdata: the entries that read are
 * used, the first that does not is recorded (never dropped with the build reporting success). */
static void test_index_table_past_end(void)
{
	struct mini m;
	struct oat_code_index ix;
	struct oat_code_dexfile df[2] = { { (const uint8_t *)"a.jar", 5, NULL, 0, 0 },
					  { (const uint8_t *)"b.jar", 5, NULL, 0, 1000 } };
	struct err e;
	uint32_t c0, table;

	T_SECTION("class offsets table past oatdata (oat 183)");
	err_init(&e);
	mini_init(&m, 183, 0);
	c0 = mini_add_method(&m, 16);
	wbuf_zeros(&m.exec, 8);
	wbuf_zeros(&m.data, 8);                                  /* stands for the OatHeader */
	table = (uint32_t)m.data.len;
	wbuf_u32le(&m.data, table + 4);                          /* a.jar: 1 class, all-compiled, 1 method */
	wbuf_u16le(&m.data, 10); wbuf_u16le(&m.data, 0); wbuf_u32le(&m.data, c0);
	df[1].class_offsets_off = (uint32_t)m.data.len;          /* b.jar: 2 entries (no class), then the end */
	wbuf_zeros(&m.data, 8);
	mini_bind(&m);
	df[0].class_offsets_off = table;
	T_EQ_I(oat_code_index_build(&ix, &m.s, NULL, df, 2, &e), 0);
	T_EQ_U(ix.count, 1);
	T_EQ_S(ix.count ? oat_code_entry_name(&ix, &ix.entries[0]) : "", "dex0:class0:method0");
	T_EQ_U(ix.skipped, 1);
	T_CHECK(strstr(ix.first_skip.msg, "dex 1 class_def 2 of 1000") != NULL, "first skip: %s", ix.first_skip.msg);
	oat_code_index_release(&ix);
	mini_release(&m);
}

int main(void)
{
	static const unsigned versions[] = { 39, 45, 79, 124, 138, 156, 183 };

	T_EQ_U(oat_bitmap_count((const uint8_t[]){ 0xff, 0x01 }, 9), 9);
	T_EQ_U(oat_bitmap_count((const uint8_t[]){ 0xff, 0x01 }, 3), 3);
	test_rows();
	for (size_t i = 0; i < sizeof(versions) / sizeof(versions[0]); i++)
		test_classes(versions[i]);
	test_corrupt_methods();
	test_v194();
	test_index_blind();
	test_map();
	test_index_table_past_end();
	T_DONE();
}
