/* fuzz_walk_rosalloc.c - the RosAlloc walker (rosalloc/walk/rosalloc.c): A = main space pages, B = its page map.
 * Input format and classes: tests/fuzz/walk_fuzz.h.  Seeds: tests/tools/mkseeds_walk.c. */
#include "tests/fuzz/walk_fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct wfz f;
	wfz_run(&f, wfz_open(&f, data, size, SPACE_ROSALLOC));
	wfz_close(&f);
	return 0;
}
