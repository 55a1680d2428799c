/* fuzz_vdex.c - vdex_parse, the dex chain and every embedded DEX over arbitrary bytes. */
#include <stddef.h>
#include <stdint.h>

#include "art/format/vdex.h"
#include "tests/fuzz/dex_walk.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cursor c;
	struct vdex v;
	struct err e;

	cur_init(&c, data, size, 0);
	if (vdex_parse(&v, &c, &e) != 0)
		return 0;
	for (uint32_t i = 0; i < v.dex_count && i < 16; i++) {
		struct cursor dc;
		struct dex d;
		uint32_t ck, q;
		(void)vdex_dex_checksum(&v, i, &ck, &e);
		(void)vdex_quickening_table_offset(&v, i, &q, &e);
		if (vdex_dex(&v, i, &dc, &e) == 0 && dex_load(&d, &dc, &e) == 0)
			(void)fuzz_dex_walk(&d);
	}
	return 0;
}
