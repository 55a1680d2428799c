/* fuzz_walk_contig.c - the contiguous-object walks (rosalloc/walk/contig.c): A = a
 * bump-pointer space (flags bit 3: an image space, objects after the header).
 * Input format and classes: tests/fuzz/walk_fuzz.h.  Seeds: tests/tools/mkseeds_walk.c. */
#include "tests/fuzz/walk_fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct wfz f;
	uint8_t flags = size ? data[0] : 0;

	wfz_run(&f, wfz_open(&f, data, size, flags & 8 ? SPACE_IMAGE : SPACE_BUMP_POINTER));
	wfz_close(&f);
	return 0;
}
