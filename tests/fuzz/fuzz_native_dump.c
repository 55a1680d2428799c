/* fuzz_native_dump.c - a native heap dump through the parser, the call-site and library sums
 * and the placement of every frame (with a symboliser that has no files to open).  The sums
 * must agree: the sites add up to the totals unless a sum saturated. */
#include <stdlib.h>

#include "carver/native/ndump.h"
#include "carver/native/ndump_agg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ndump_agg a;
	struct ndump_sink sink;
	struct ndump_stats st;
	struct err e;
	int rc;

	err_init(&e);
	ndump_agg_init(&a);
	ndump_agg_sink(&a, &sink);
	if (ndump_agg_symbols(&a, NULL, &e) == 0) {
		rc = ndump_parse(data, size, "fuzz", NULL, &sink, &st, &e);
		if ((rc == 0 || rc == -ERR_TRUNC) && ndump_agg_finish(&a, &e) == 0) {
			uint64_t records = 0, bytes = 0;
			for (size_t i = 0; i < a.site_count; i++) {
				struct ndump_place p;
				records += a.sites[i]->records;
				bytes += a.sites[i]->records_bytes;
				for (size_t k = 0; k < a.sites[i]->nframes; k++)
					ndump_agg_place(&a, a.sites[i]->frames[k], &p);
			}
			if (records != a.total.records || (a.total.records_bytes < UINT64_MAX / 2 && bytes != a.total.records_bytes))
				abort();
			if (ndump_agg_status(&a, &e) != 0 && e.code != ERR_NOMEM)
				abort();
		}
	}
	ndump_agg_release(&a);
	return 0;
}
