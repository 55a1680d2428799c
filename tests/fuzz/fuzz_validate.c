/* fuzz_validate.c - libFuzzer target for the comparison engine of `validate`
 * (output/compare/validate.h).  Input: u32le length of RESULT, RESULT, TRUTH (shorter inputs
 * are compared with themselves); each may be an HPROF or a truth.jsonl.  A comparison that
 * runs must give consistent figures (nothing matched that is not there) and both reports
 * must render.  Seeds: tests/fuzz/corpus/fuzz_validate (written by
 * `build/tests/test_validate --write-seeds tests/fuzz/corpus/fuzz_validate`). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "carver/base/cursor.h"
#include "output/compare/validate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_check(const struct vd_report *r)
{
	const struct vd_fields *f = &r->fields;

	if (r->overall.matched > r->overall.truth || r->overall.result_matched > r->overall.result ||
	    f->objects_equal > f->objects ||
	    f->prim_equal > f->prim || f->ref_equal > f->ref || f->statics_equal > f->statics ||
	    f->arrays_equal > f->arrays || r->strings.equal > r->strings.compared ||
	    r->strings.compared > r->strings.matched || r->strings.matched > r->strings.truth ||
	    r->reach.unreachable_agree > r->reach.truth_unreachable)
		abort();
	for (int k = 0; k < VD_KIND_COUNT; k++)
		if (r->by_kind[k].matched > r->by_kind[k].truth || r->by_kind[k].result_matched > r->by_kind[k].result)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vd_options opt = { .per_class = 5, .examples = 3 };
	struct vd_input res = { data, size, "result", false }, tru = { data, size, "truth", false };
	struct vd_report *r = NULL;
	struct err e;
	FILE *sink;

	if (size >= 4) {
		uint32_t n = ld_u32le(data);
		if (n <= size - 4) {
			res = (struct vd_input){ data + 4, n, "result", false };
			tru = (struct vd_input){ data + 4 + n, size - 4 - n, "truth", false };
		}
	}
	err_init(&e);
	if (vd_compare(&res, &tru, &opt, &r, &e)) {
		if (r || !e.msg[0])
			abort();        /* a failure leaves no report and always says why */
		return 0;
	}
	fuzz_check(r);
	sink = fopen("/dev/null", "w");
	if (sink) {
		if (vd_report_text(r, sink, &e) || vd_report_json(r, sink, &e))
			abort();
		fclose(sink);
	}
	vd_report_free(r);
	return 0;
}
