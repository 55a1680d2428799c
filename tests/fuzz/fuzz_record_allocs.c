/* fuzz_record_allocs.c - a record_allocs file through the parser and the replay.  The live
 * set must come out with distinct pointers whose sizes add up to live_bytes exactly, carries
 * included (the replay's hash tables delete by backward shift: a lost or doubled entry shows
 * here), and never above the peak. */
#include <stdlib.h>

#include "carver/base/xalloc.h"
#include "carver/native/nrec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nrec_replay r;
	struct nrec_stats st;
	struct nrec_live *v = NULL;
	struct err e;
	int rc;

	err_init(&e);
	nrec_replay_init(&r);
	rc = nrec_parse(data, size, "fuzz", NULL, &r, &st, &e);
	if ((rc == 0 || rc == -ERR_TRUNC) && nrec_replay_live(&r, &v, &e) == 0) {
		uint64_t lo = 0, hi = 0;
		for (size_t i = 0; i < r.live_count; i++) {
			if (i && v[i - 1].ptr >= v[i].ptr)
				abort();
			lo += v[i].size;
			hi += lo < v[i].size;
		}
		if (r.live_bytes != lo || r.live_bytes_hi != hi)
			abort();
		if (hi > r.peak_live_bytes_hi || (hi == r.peak_live_bytes_hi && lo > r.peak_live_bytes))
			abort();
	}
	xfree(v);
	nrec_replay_release(&r);
	return 0;
}
