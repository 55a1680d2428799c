/* fuzz_oat_code.c - OatClass, OatMethodOffsets and method header decoding over arbitrary bytes.
 *
 * Input: u8 version selector, u8 flags (bit 0: Thumb code delta, bit 1: known method counts),
 * u16 split, u32 exec_rel, then the payload: [0, split) is oatdata, the rest oatexec.
 * oatdata starts with u32 n and n u32 class offsets (n capped); every class is decoded and every
 * method's code is located and bounds-checked, and the code bytes are read (ASan sees overreads).
 * Then the method index is built over the same table, once with the stated count and once
 * with the count inferred from the layout, and code addresses are looked up in it. */
#include <stddef.h>
#include <stdint.h>

#include "art/code/oat_code.h"

static const unsigned fuzz_versions[] = { 39, 45, 79, 124, 138, 156, 170, 183, 192, 195 };

static unsigned fuzz_touch(const struct cursor *c)
{
	unsigned sum = 0;

	for (size_t i = 0; i < c->len; i++)
		sum += c->base[i];
	return sum;
}

static void fuzz_class(const struct oat_code_space *s, uint32_t off, uint32_t hint)
{
	struct oat_class_info c;
	struct oat_method_code mc;
	struct err e;
	uint32_t code;

	if (oat_class_decode(s, off, hint, &c, &e) < 0)
		return;
	for (uint32_t m = 0; m < 64; m++) {
		if (oat_class_method_code_offset(s, &c, m, &code, &e) < 0)
			break;
		if (code && oat_method_code_decode(s, code, &mc, &e) == 0)
			(void)fuzz_touch(&mc.code);
	}
}

static void fuzz_index(const struct oat_code_space *s, uint32_t count)
{
	struct oat_code_dexfile df = { (const uint8_t *)"f", 1, NULL, 4, count };
	struct oat_code_index ix;
	struct err e;
	uint32_t delta;

	if (oat_code_index_build(&ix, s, NULL, &df, 1, &e) < 0)
		return;
	for (size_t i = 0; i < ix.count; i++)
		(void)oat_code_index_name_at(&ix, ix.entries[i].code_start + ix.entries[i].code_size / 2, &delta);
	oat_code_index_release(&ix);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct oat_code_space s = { 0 };
	struct err e;
	size_t split;
	uint32_t n, off, v;

	if (size < 8)
		return 0;
	s.layout = oat_code_layout_for(fuzz_versions[data[0] % (sizeof(fuzz_versions) / sizeof(fuzz_versions[0]))]);
	s.code_delta = data[1] & 1;
	split = (size_t)(data[2] | data[3] << 8);
	s.exec_rel = (uint64_t)(data[4] | data[5] << 8 | data[6] << 16 | (uint32_t)data[7] << 24);
	data += 8;
	size -= 8;
	if (split > size)
		split = size;
	cur_init(&s.data, data, split, 0);
	cur_init(&s.exec, data + split, size - split, s.exec_rel);
	if (oat_code_info_field(&s.data, 1, &v, &e) == 0)
		(void)v;
	if (cur_peek_u32le(&s.data, 0, &n, &e) < 0)
		return 0;
	if (n > 64)
		n = 64;
	for (uint32_t i = 0; i < n; i++) {
		if (cur_peek_u32le(&s.data, 4 + 4 * (size_t)i, &off, &e) < 0)
			break;
		fuzz_class(&s, off, (data - 8)[1] & 2 ? (off & 0x1f) : OAT_CODE_UNKNOWN_COUNT);
	}
	fuzz_index(&s, n);
	fuzz_index(&s, 0);
	return 0;
}
