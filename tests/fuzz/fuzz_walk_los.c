/* fuzz_walk_los.c - the large-object walkers (rosalloc/walk/los.c): A = the free-list
 * space, B = its allocation-info map (flags bit 3: one map-LOS allocation).
 * Input format and classes: tests/fuzz/walk_fuzz.h.  Seeds: tests/tools/mkseeds_walk.c. */
#include "tests/fuzz/walk_fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct wfz f;
	uint8_t flags = size ? data[0] : 0;

	wfz_run(&f, wfz_open(&f, data, size, flags & 8 ? SPACE_LOS_ALLOCATION : SPACE_LOS_FREELIST));
	wfz_close(&f);
	return 0;
}
