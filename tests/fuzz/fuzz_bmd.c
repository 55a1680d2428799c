/* fuzz_bmd.c - libFuzzer target for the BMD reader (output/bmd/bmd.h): reads every record,
 * re-decodes instance values, array elements and root ids from the cursors the reader hands
 * out, and walks each instance's class chain.  Seeds: tests/fuzz/corpus/fuzz_bmd (written by
 * `build/tests/test_bmd --write-seeds tests/fuzz/corpus`). */
#include <stdint.h>
#include <stdlib.h>

#include "output/bmd/bmd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_values(const struct bmd_reader *r, const struct bmd_record *rec)
{
	const struct bmd_class_def *chain[BMD_CHAIN_MAX];
	struct cursor c = rec->values;
	size_t n;
	uint64_t bits;
	uint32_t v;

	if (rec->tag == BMD_INSTANCE_DUMP) {
		/* the reader validated the values against this same chain: decoding cannot fail */
		if (bmd_reader_chain(r, rec->def, chain, BMD_CHAIN_MAX, &n, NULL))
			abort();
		for (size_t k = 0; k < n; k++)
			for (uint32_t i = 0; i < chain[k]->field_count; i++)
				if (bmd_get_value(&c, chain[k]->fields[i].type, &bits, NULL))
					abort();
	} else if (rec->tag == BMD_OBJECT_ARRAY || rec->tag == BMD_ROOT_OBJECTS) {
		for (uint32_t i = 0; i < rec->count; i++)
			if (bmd_get_u32(&c, &v, NULL))
				abort();
	} else {
		return;
	}
	if (cur_remaining(&c) != 0)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bmd_reader r;
	struct bmd_record rec;
	struct err e;
	int rc;

	if (bmd_reader_init(&r, data, size, "fuzz", &e) == 0) {
		while ((rc = bmd_next(&r, &rec, &e)) == 1)
			fuzz_values(&r, &rec);
		if (rc < 0 && (e.va != ERR_NO_VA && e.va > size))
			abort();        /* an error names an offset inside the input */
	}
	bmd_reader_release(&r);
	return 0;
}
