/* fuzz_walk_dlmalloc.c - the dlmalloc walker (rosalloc/walk/dlmalloc.c): A = an mspace
 * (flags bit 3: a zygote space, with a compacted tail).
 * Input format and classes: tests/fuzz/walk_fuzz.h.  Seeds: tests/tools/mkseeds_walk.c. */
#include "tests/fuzz/walk_fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct wfz f;
	uint8_t flags = size ? data[0] : 0;

	wfz_run(&f, wfz_open(&f, data, size, flags & 8 ? SPACE_ZYGOTE : SPACE_DLMALLOC));
	wfz_close(&f);
	return 0;
}
