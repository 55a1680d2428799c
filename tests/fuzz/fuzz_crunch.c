/* fuzz_crunch.c - libFuzzer round-trip target: the input is crunched as an HPROF file; when
 * that succeeds, the BMD must read back record by record and decrunch (both layouts) without
 * error.  Seeds: tests/fuzz/corpus/fuzz_crunch (synthetic HPROF files from test_bmd). */
#include <stdint.h>
#include <stdlib.h>

#include "output/bmd/bmd_codec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int mem_write(void *ctx, const void *p, size_t n, struct err *e)
{
	wbuf_put(ctx, p, n);
	return wbuf_status(ctx, e);
}

static int count_write(void *ctx, const void *p, size_t n, struct err *e)
{
	(void)p;
	(void)e;
	*(uint64_t *)ctx += n;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wbuf bmd;
	struct bmd_sink sink = { mem_write, &bmd };
	struct bmd_crunch_stats st;
	struct err e;

	wbuf_init(&bmd);
	if (bmd_crunch(data, size, "fuzz", NULL, &sink, &st, &e) == 0) {
		uint64_t total = 0;
		struct bmd_sink counter = { count_write, &total };
		struct bmd_decrunch_opts o = { .max_output = 64u << 20 };
		struct bmd_decrunch_stats dst;
		if (st.bytes_out != bmd.len)
			abort();
		/* what crunch writes, decrunch reads back with every object, unless the HPROF was
		 * one Badoo's decruncher rejects too (an instance of a class without CLASS_DUMP) or
		 * it hits a limit (u2 counts, huge arrays) */
		for (int mat = 0; mat < 2; mat++) {
			o.mat = mat;
			if (bmd_decrunch(bmd.data, bmd.len, "fuzz", &o, &counter, &dst, &e) != 0)
				continue;
			if (dst.instances != st.instances || dst.obj_arrays != st.obj_arrays ||
			    dst.prim_arrays != st.prim_arrays || dst.roots != st.roots)
				abort();
		}
	}
	wbuf_release(&bmd);
	return 0;
}
