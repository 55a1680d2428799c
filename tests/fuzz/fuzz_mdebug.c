/* fuzz_mdebug.c - the malloc_debug header scan (carver/native/mdebug.c) over arbitrary
 * heap bytes.  The first byte picks the word size and whether the option set is inferred
 * or given (the inference and the given layout read different offsets); the rest is the
 * heap, at an address where the generator places it.  Every allocation reported must lie in
 * the buffer's address range and every listed record inside the result's arrays. */
#include <stdlib.h>

#include "carver/native/mdebug.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mdebug_options given = { 32, 32, 16, true, true, true };
	struct mdebug_scan_opts so = { NULL, 0 };
	struct mdebug_result r;
	struct err e;
	uint64_t va;

	if (size < 1)
		return 0;
	so.bits = data[0] & 1 ? 32 : data[0] & 2 ? 64 : 0;
	if (data[0] & 4)
		so.options = &given;
	va = so.bits == 32 ? 0xa0000000ull : 0x7a00000000ull;
	err_init(&e);
	if (mdebug_scan_bytes(data + 1, size - 1, va, &so, &r, &e) == 0) {
		for (size_t i = 0; i < r.count; i++) {
			const struct mdebug_alloc *a = &r.allocs[i];
			if (a->header < va || a->header >= va + size - 1 || a->damage_first + a->damage_count > r.ndamage ||
			    a->frame_first + a->frame_count > r.nframes || a->first_len > MDEBUG_FIRST_BYTES)
				abort();
		}
	} else if (e.code != ERR_NOMEM) {
		abort(); /* a buffer scan has no error but memory */
	}
	mdebug_result_free(&r);
	return 0;
}
