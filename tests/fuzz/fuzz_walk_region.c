/* fuzz_walk_region.c - the region-space walker (rosalloc/walk/region.c): A = regions from the space start.
 * Input format and classes: tests/fuzz/walk_fuzz.h.  Seeds: tests/tools/mkseeds_walk.c. */
#include "tests/fuzz/walk_fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct wfz f;
	wfz_run(&f, wfz_open(&f, data, size, SPACE_REGION));
	wfz_close(&f);
	return 0;
}
