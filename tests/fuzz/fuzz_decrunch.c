/* fuzz_decrunch.c - libFuzzer target for decrunch (output/bmd/bmd_codec.h): every input is
 * decrunched in Badoo's layout and with --mat into a byte-counting sink (output capped at
 * 8 MiB so zero-filled arrays cannot run away).  Seeds: tests/fuzz/corpus/fuzz_decrunch. */
#include <stdint.h>
#include <stdlib.h>

#include "output/bmd/bmd_codec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int count_write(void *ctx, const void *p, size_t n, struct err *e)
{
	(void)p;
	(void)e;
	*(uint64_t *)ctx += n;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t total = 0;
	struct bmd_sink sink = { count_write, &total };
	struct bmd_decrunch_opts o = { .max_output = 8u << 20, .segment_cap = 4096 };
	struct bmd_decrunch_stats st;
	struct err e;

	for (int mat = 0; mat < 2; mat++) {
		o.mat = mat;
		total = 0;
		if (bmd_decrunch(data, size, "fuzz", &o, &sink, &st, &e) == 0 && st.bytes_out != total)
			abort();
	}
	return 0;
}
