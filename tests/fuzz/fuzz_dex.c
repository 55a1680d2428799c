/* fuzz_dex.c - dex_load and every accessor over arbitrary bytes (standard and compact). */
#include <stddef.h>
#include <stdint.h>

#include "tests/fuzz/dex_walk.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cursor c;
	struct dex d;
	struct err e;

	cur_init(&c, data, size, 0);
	if (dex_load(&d, &c, &e) == 0)
		(void)fuzz_dex_walk(&d);
	return 0;
}
