/* fuzz_oat.c - OAT reader over arbitrary bytes, three ways by the first bytes:
 *   ELF magic      -> oat_open (symbols, oatdata/oatexec extents, header, records)
 *   "oat\n"        -> oat_parse_oatdata on the bytes (no ELF, no VDEX)
 *   anything else  -> u32 n, n bytes of VDEX, then oatdata: records resolved into the VDEX
 * Every record's DEX is parsed and walked; the class offsets tables are read. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "art/format/oat.h"
#include "tests/fuzz/dex_walk.h"

static void fuzz_records(const struct oat *o)
{
	struct err e;
	size_t pos = 0, kl, vl;
	const char *k, *v;

	while (oat_kv_next(o, &pos, &k, &kl, &v, &vl))
		;
	for (size_t i = 0; i < o->dex_file_count && i < 16; i++) {
		struct dex d;
		uint32_t off;
		for (uint32_t c = 0; c < o->dex_files[i].class_count && c < 64; c++)
			(void)oat_class_offset(o, i, c, &off, &e);
		if (o->dex_files[i].dex.len && dex_load(&d, &o->dex_files[i].dex, &e) == 0)
			(void)fuzz_dex_walk(&d);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct oat o;
	struct err e;
	struct cursor c;

	if (elfw_probe(data, size)) {
		if (oat_open(&o, data, size, "fuzz", NULL, &e) == 0)
			fuzz_records(&o);
		oat_close(&o);
	} else if (size >= 4 && !memcmp(data, "oat\n", 4)) {
		cur_init(&c, data, size, 0);
		if (oat_parse_oatdata(&o, &c, NULL, &e) == 0)
			fuzz_records(&o);
		oat_close(&o);
	} else if (size >= 4) {
		uint32_t n = ld_u32le(data);
		struct vdex v;
		struct cursor vc;
		if (n > size - 4)
			return 0;
		cur_init(&vc, data + 4, n, 0);
		if (vdex_parse(&v, &vc, &e) != 0)
			return 0;
		cur_init(&c, data + 4 + n, size - 4 - n, 0);
		if (oat_parse_oatdata(&o, &c, &v, &e) == 0)
			fuzz_records(&o);
		oat_close(&o);
	}
	return 0;
}
