/* dex_walk.h - touches everything a parsed DEX exposes (shared by the dex, vdex and oat
 * fuzz targets): strings, types, ids, proto signatures, class data, code items, debug info
 * offsets, the map and the checksum.  Loops are capped so one input stays fast. */
#ifndef ARTCARVE_FUZZ_DEX_WALK_H
#define ARTCARVE_FUZZ_DEX_WALK_H

#include "art/format/dex.h"

enum { FUZZ_CAP = 512 };

static unsigned fuzz_dex_walk(const struct dex *d)
{
	struct err e;
	struct wbuf sig;
	unsigned sum = 0;
	uint32_t ck, n;
	const uint8_t *s;
	size_t len;

	wbuf_init(&sig);
	(void)dex_verify_checksum(d, &ck, &e);
	(void)dex_map_validate(d, &e);
	if (dex_map_count(d, &n, &e) == 0)
		for (uint32_t i = 0; i < n && i < FUZZ_CAP; i++) {
			struct dex_map_item it;
			if (dex_map_item(d, i, &it, &e) == 0)
				sum += it.type;
		}
	for (uint32_t i = 0; i < d->string_ids_size && i < FUZZ_CAP; i++)
		if (dex_string(d, i, &s, &len, &e) == 0 && len)
			sum += s[len - 1];
	for (uint32_t i = 0; i < d->type_ids_size && i < FUZZ_CAP; i++)
		if (dex_type_descriptor(d, i, &s, &len, &e) == 0 && len)
			sum += s[0];
	for (uint32_t i = 0; i < d->proto_ids_size && i < FUZZ_CAP; i++) {
		wbuf_reset(&sig);
		if (dex_proto_signature(d, i, &sig, &e) == 0)
			sum += (unsigned)sig.len;
	}
	for (uint32_t i = 0; i < d->field_ids_size && i < FUZZ_CAP; i++) {
		struct dex_field_id f;
		if (dex_field_id(d, i, &f, &e) == 0)
			sum += f.name_idx;
	}
	for (uint32_t i = 0; i < d->class_defs_size && i < FUZZ_CAP; i++) {
		struct dex_class_def def;
		struct dex_class_data it;
		struct dex_member m;
		unsigned k = 0;
		if (dex_class_def(d, i, &def, &e) || dex_class_data_open(d, &def, &it, &e))
			continue;
		while (k++ < FUZZ_CAP && dex_class_data_next(&it, &m, &e) == 1) {
			struct dex_code_item ci;
			struct dex_method_id mid;
			uint32_t dbg;
			if (m.kind < DEX_DIRECT_METHOD)
				continue;
			if (dex_method_id(d, m.idx, &mid, &e) == 0)
				sum += mid.proto_idx;
			if (dex_cdex_debug_info_off(d, m.idx, &dbg, &e) == 0)
				sum += dbg;
			if (m.code_off && dex_code_item(d, m.code_off, m.idx, &ci, &e) == 0 && ci.insns.len)
				sum += ci.insns.base[ci.insns.len - 1];
		}
	}
	wbuf_release(&sig);
	return sum;
}

#endif
