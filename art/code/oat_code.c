/* oat_code.c - OatClass / OatMethodOffsets / OatQuickMethodHeader decoding (see oat_code.h). */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "art/format/dex.h"
#include "art/code/disasm_art.h"
#include "art/format/oat.h"
#include "art/code/oat_code.h"
#include "carver/base/bsearch.h"
#include "carver/base/ck.h"
#include "carver/wrap/elfw.h"
#include "carver/base/xalloc.h"

/* Rows verified against GrapheneOS/platform_art and CyanogenMod/android_art history:
 * runtime/oat.h (OatMethodOffsets, OatQuickMethodHeader up to 6.0), runtime/oat_quick_method_header.h
 * (7.0+), runtime/oat_file.cc OatDexFile::GetOatClass.  Version boundaries are the kOatVersion
 * of the commits that changed the layout: c6fc909c6 (044, gc_map moved into the header),
 * 9d07e3d12 (079, Quick removed: mapping/gc_map gone), 063fc772b5 (092, CHA deopt flag),
 * cbcedbf938 (116, method_info), 8808756b8f (156, frame_info gone), 8cd54547ce (158,
 * method_info moved into CodeInfo), 113d6ea4c5 (192, code size into CodeInfo), 2cca1e029c
 * (194, OatClass num_methods).  The highest released version checked is 239 (Android 14 QPR). */
static const struct oat_code_layout oat_code_layouts[] = {
	/* min  max  mo  hdr  vmap  minfo        size  mask         codeinfo nummeth */
	{ 39,  43,  8, 24,  4, OAT_CODE_NONE, 20, 0xffffffffu, false, false },
	{ 44,  78,  4, 28,  4, OAT_CODE_NONE, 24, 0xffffffffu, false, false },
	{ 79,  91,  4, 20,  0, OAT_CODE_NONE, 16, 0xffffffffu, false, false },
	{ 92, 115,  4, 20,  0, OAT_CODE_NONE, 16, 0x7fffffffu, false, false },
	{ 116, 155, 4, 24,  0, 4,             20, 0x7fffffffu, false, false },
	{ 156, 157, 4, 12,  0, 4,              8, 0x7fffffffu, false, false },
	{ 158, 191, 4,  8,  0, OAT_CODE_NONE,  4, 0x7fffffffu, false, false },
	{ 192, 193, 4,  4, OAT_CODE_NONE, OAT_CODE_NONE, 0, 0x3fffffffu, true, false },
	{ 194, 239, 4,  4, OAT_CODE_NONE, OAT_CODE_NONE, 0, 0x3fffffffu, true, true },
};

/* OatQuickMethodHeader::data_ (oat 192+): bit 31 should-deoptimize, bit 30 "is CodeInfo offset". */
#define OAT_CODE_DEOPT_BIT 0x80000000u
#define OAT_CODE_IS_CODE_INFO 0x40000000u
/* ClassStatus spans kRetired (-2) .. kVisiblyInitialized (15) across versions
 * (runtime/class_status.h, runtime/mirror/class.h). */
#define OAT_STATUS_MIN (-2)
#define OAT_STATUS_MAX 15

const struct art_version_table oat_code_versions =
	ART_VERSION_RANGE_TABLE("OAT compiled code", struct oat_code_layout, oat_code_layouts,
				sizeof(oat_code_layouts) / sizeof(oat_code_layouts[0]), oat_min, oat_max,
				ART_VERSION_NONE);

const struct oat_code_layout *oat_code_layout_for(unsigned oat_version)
{
	long r = art_version_row_of(&oat_code_versions, oat_version);
	return r >= 0 ? &oat_code_layouts[r] : NULL;
}

uint32_t oat_bitmap_count(const uint8_t *bits, uint32_t n)
{
	uint32_t count = 0;

	for (uint32_t i = 0; i < n / 8; i++)
		count += (uint32_t)__builtin_popcount(bits[i]);
	if (n % 8)
		count += (uint32_t)__builtin_popcount(bits[n / 8] & ((1u << (n % 8)) - 1));
	return count;
}

static bool oat_bitmap_test(const uint8_t *bits, uint32_t i)
{
	return (bits[i / 8] >> (i % 8)) & 1;
}

/* Status and type; the status is i16 up to oat 191 and u16 from 192. */
static int oat_class_read_head(struct cursor *c, const struct oat_code_layout *l, struct oat_class_info *out,
			       struct err *e)
{
	uint16_t status, type;
	int rc;

	if ((rc = cur_u16le(c, &status, e)) < 0 || (rc = cur_u16le(c, &type, e)) < 0)
		return rc;
	out->status = l->code_info_in_data ? (int32_t)status : (int32_t)(int16_t)status;
	if (out->status < OAT_STATUS_MIN || out->status > OAT_STATUS_MAX)
		return ERR_SET(e, ERR_CORRUPT, out->offset, "oat class at 0x%x: status %d is not a class status",
			       out->offset, (int)out->status);
	if (type > OAT_CLASS_NONE_COMPILED)
		return ERR_SET(e, ERR_CORRUPT, out->offset, "oat class at 0x%x: type %u is not 0, 1 or 2",
			       out->offset, (unsigned)type);
	out->type = (enum oat_class_type)type;
	return 0;
}

/* The bitmap of a some-compiled class: byte size stored (< 194) or derived from num_methods. */
static int oat_class_read_bitmap(struct cursor *c, const struct oat_code_layout *l, struct oat_class_info *out,
				 struct err *e)
{
	uint32_t bytes, bits;
	int rc;

	if (l->class_has_num_methods) {
		bytes = (uint32_t)(((uint64_t)out->num_methods + 31) / 32 * 4);
		bits = out->num_methods;
	} else {
		if ((rc = cur_u32le(c, &bytes, e)) < 0)
			return rc;
		if (bytes > UINT32_MAX / 8)
			return ERR_SET(e, ERR_CORRUPT, out->offset, "oat class at 0x%x: bitmap size %u is too large",
				       out->offset, bytes);
		bits = bytes * 8;
		if (out->num_methods != OAT_CODE_UNKNOWN_COUNT && out->num_methods > bits)
			return ERR_SET(e, ERR_CORRUPT, out->offset,
				       "oat class at 0x%x: bitmap of %u bits cannot cover %u methods",
				       out->offset, bits, out->num_methods);
		if (out->num_methods != OAT_CODE_UNKNOWN_COUNT)
			bits = out->num_methods;
	}
	if ((rc = cur_take(c, bytes, &out->bitmap, e)) < 0)
		return err_prefix(e, "oat class at 0x%x: bitmap", out->offset);
	out->compiled_count = oat_bitmap_count(out->bitmap.base, bits);
	return 0;
}

int oat_class_decode(const struct oat_code_space *s, uint32_t class_offset, uint32_t num_methods_hint,
		     struct oat_class_info *out, struct err *e)
{
	const struct oat_code_layout *l = s->layout;
	struct cursor c = s->data;
	size_t bytes;
	int rc;

	*out = (struct oat_class_info){ .offset = class_offset, .num_methods = num_methods_hint,
					.compiled_count = OAT_CODE_UNKNOWN_COUNT,
					.method_offsets_size = l->method_offsets_size };
	if ((rc = cur_seek(&c, class_offset, e)) < 0 || (rc = oat_class_read_head(&c, l, out, e)) < 0)
		return rc == -ERR_TRUNC ? err_prefix(e, "oat class at 0x%x", class_offset) : rc;
	if (out->type == OAT_CLASS_NONE_COMPILED) {
		out->compiled_count = 0;
		out->methods_at = out->end = (uint32_t)c.pos;
		return 0;
	}
	if (l->class_has_num_methods) {
		uint32_t n;
		if ((rc = cur_u32le(&c, &n, e)) < 0)
			return err_prefix(e, "oat class at 0x%x", class_offset);
		if (n == 0 || (num_methods_hint != OAT_CODE_UNKNOWN_COUNT && n != num_methods_hint))
			return ERR_SET(e, ERR_CORRUPT, class_offset,
				       "oat class at 0x%x: %u methods, expected %u from the dex class data",
				       class_offset, n, num_methods_hint);
		out->num_methods = n;
	}
	if (out->type == OAT_CLASS_SOME_COMPILED) {
		if ((rc = oat_class_read_bitmap(&c, l, out, e)) < 0)
			return rc;
	} else {
		out->compiled_count = out->num_methods;
	}
	out->methods_at = (uint32_t)c.pos;
	out->end = out->methods_at;
	if (out->compiled_count == OAT_CODE_UNKNOWN_COUNT)
		return 0;
	if (ck_mul(out->compiled_count, l->method_offsets_size, &bytes) || bytes > cur_remaining(&c))
		return ERR_SET(e, ERR_TRUNC, class_offset,
			       "oat class at 0x%x: %u method offsets exceed the %zu bytes left in oatdata",
			       class_offset, out->compiled_count, cur_remaining(&c));
	out->end = (uint32_t)(c.pos + bytes);
	return 0;
}

int oat_class_method_code_offset(const struct oat_code_space *s, const struct oat_class_info *c,
				 uint32_t method_index, uint32_t *code_offset, struct err *e)
{
	uint32_t slot = method_index;
	size_t at;

	*code_offset = 0;
	if (c->type == OAT_CLASS_NONE_COMPILED)
		return 0;
	if (c->num_methods != OAT_CODE_UNKNOWN_COUNT && method_index >= c->num_methods)
		return ERR_SET(e, ERR_CORRUPT, c->offset, "oat class at 0x%x: method index %u out of range (%u methods)",
			       c->offset, method_index, c->num_methods);
	if (c->type == OAT_CLASS_SOME_COMPILED) {
		if (method_index / 8 >= c->bitmap.len)
			return ERR_SET(e, ERR_CORRUPT, c->offset,
				       "oat class at 0x%x: method index %u beyond the %zu-byte bitmap",
				       c->offset, method_index, c->bitmap.len);
		if (!oat_bitmap_test(c->bitmap.base, method_index))
			return 0;
		slot = oat_bitmap_count(c->bitmap.base, method_index);
	}
	if (c->compiled_count != OAT_CODE_UNKNOWN_COUNT && slot >= c->compiled_count)
		return ERR_SET(e, ERR_CORRUPT, c->offset, "oat class at 0x%x: method slot %u out of range (%u compiled)",
			       c->offset, slot, c->compiled_count);
	if (ck_mul(slot, c->method_offsets_size, &at) || ck_add(at, c->methods_at, &at))
		return ERR_SET(e, ERR_CORRUPT, c->offset, "oat class at 0x%x: method slot %u overflows",
			       c->offset, slot);
	return cur_peek_u32le(&s->data, at, code_offset, e);
}

/* ---- CodeInfo header (libartbase/base/bit_memory_region.h ReadInterleavedVarints @R12) ---- */

#define OAT_VARINT_BITS 4
#define OAT_VARINT_MAX 11
#define OAT_CODE_INFO_HEADERS 7

static int oat_read_bits(const struct cursor *c, size_t *bitpos, unsigned n, uint32_t *out, struct err *e)
{
	uint32_t v = 0;

	for (unsigned k = 0; k < n; k++, (*bitpos)++) {
		size_t byte = *bitpos / 8;
		if (byte >= c->len)
			return ERR_SET(e, ERR_TRUNC, c->va + byte, "code info at 0x%llx: header ends outside oatdata",
				       (unsigned long long)c->va);
		v |= (uint32_t)((c->base[byte] >> (*bitpos % 8)) & 1) << k;
	}
	*out = v;
	return 0;
}

int oat_code_info_field(const struct cursor *code_info, unsigned index, uint32_t *out, struct err *e)
{
	uint32_t small[OAT_CODE_INFO_HEADERS];
	size_t bitpos = 0;
	int rc;

	if (index >= OAT_CODE_INFO_HEADERS)
		return ERR_SET(e, ERR_INTERNAL, ERR_NO_VA, "code info field %u does not exist", index);
	for (unsigned i = 0; i < OAT_CODE_INFO_HEADERS; i++)
		if ((rc = oat_read_bits(code_info, &bitpos, OAT_VARINT_BITS, &small[i], e)) < 0)
			return rc;
	for (unsigned i = 0; i <= index; i++) {
		uint32_t v = small[i];
		if (v > OAT_VARINT_MAX && (rc = oat_read_bits(code_info, &bitpos, (v - OAT_VARINT_MAX) * 8, &v, e)) < 0)
			return rc;
		if (i == index)
			*out = v;
	}
	return 0;
}

/* ---- OatQuickMethodHeader ---- */

static int oat_header_field(const struct cursor *hdr, unsigned at, uint32_t *v, struct err *e)
{
	*v = 0;
	return at == OAT_CODE_NONE ? 0 : cur_peek_u32le(hdr, at, v, e);
}

/* 192+: data_ is the code size, or the offset (back from the code) of the CodeInfo that holds it. */
static int oat_code_size_from_data(const struct oat_code_space *s, uint32_t code, uint32_t data,
				   struct oat_method_code *out, struct err *e)
{
	struct cursor ci;
	int rc;

	out->should_deoptimize = (data & OAT_CODE_DEOPT_BIT) != 0;
	if (!(data & OAT_CODE_IS_CODE_INFO)) {
		out->code_size = data & s->layout->code_size_mask;
		return 0;
	}
	out->code_info_offset = data & s->layout->code_size_mask;
	if (out->code_info_offset == 0 || out->code_info_offset > code || code - out->code_info_offset >= s->data.len)
		return ERR_SET(e, ERR_CORRUPT, code, "method code at 0x%x: code info offset 0x%x is outside oatdata",
			       code, out->code_info_offset);
	if ((rc = cur_sub(&s->data, code - out->code_info_offset, s->data.len - (code - out->code_info_offset), &ci, e)) < 0)
		return rc;
	ci.va = code - out->code_info_offset;
	if ((rc = oat_code_info_field(&ci, 1, &out->code_size, e)) < 0)
		return err_prefix(e, "method code at 0x%x", code);
	return 0;
}

int oat_method_code_decode(const struct oat_code_space *s, uint32_t code_offset,
			   struct oat_method_code *out, struct err *e)
{
	const struct oat_code_layout *l = s->layout;
	uint32_t code = code_offset & ~(uint32_t)s->code_delta, raw;
	struct cursor hdr;
	uint64_t pos;
	size_t p;
	int rc;

	*out = (struct oat_method_code){ .code_offset = code };
	if (code < s->exec_rel || (pos = code - s->exec_rel) < l->header_size || pos > s->exec.len)
		return ERR_SET(e, ERR_CORRUPT, code, "method code at 0x%x: outside oatexec [0x%llx, 0x%llx) or no room for its %u-byte header",
			       code, (unsigned long long)s->exec_rel,
			       (unsigned long long)(s->exec_rel + s->exec.len), l->header_size);
	if (s->code_align && (code % s->code_align) != 0 && ((code - l->header_size) % s->code_align) != 0)
		return ERR_SET(e, ERR_CORRUPT, code, "method code at 0x%x: neither code nor header is %u-byte aligned",
			       code, s->code_align);
	p = (size_t)pos;
	if ((rc = cur_sub(&s->exec, p - l->header_size, l->header_size, &hdr, e)) < 0)
		return rc;
	if ((rc = oat_header_field(&hdr, l->vmap_at, &out->vmap_table_offset, e)) < 0 ||
	    (rc = oat_header_field(&hdr, l->method_info_at, &out->method_info_offset, e)) < 0 ||
	    (rc = oat_header_field(&hdr, l->code_size_at, &raw, e)) < 0)
		return rc;
	if (l->code_info_in_data) {
		if ((rc = oat_code_size_from_data(s, code, raw, out, e)) < 0)
			return rc;
	} else {
		out->code_size = raw & l->code_size_mask;
		out->should_deoptimize = (raw & ~l->code_size_mask) != 0;
	}
	if (out->code_size == 0)
		return ERR_SET(e, ERR_CORRUPT, code, "method code at 0x%x: code size is 0", code);
	if (out->code_size > s->exec.len - p)
		return ERR_SET(e, ERR_CORRUPT, code,
			       "method code at 0x%x: code size %u exceeds the %zu bytes left in oatexec",
			       code, out->code_size, s->exec.len - p);
	cur_init(&out->code, s->exec.base + p, out->code_size, code);
	return 0;
}

/* ---- the method index ---- */

struct oat_index_ctx {
	struct oat_code_index *ix;
	const struct oat_code_dexfile *dexfiles;
	size_t dex_count;
	uint32_t *class_offsets;        /* every OatClass offset, sorted (bounds for inferred counts) */
	size_t class_offsets_count;
};

static void oat_index_skip(struct oat_code_index *ix, const struct err *why)
{
	if (ix->skipped++ == 0)
		ix->first_skip = *why;
}

/* Without the DEX the class offsets table has no stated length: it ends where the first
 * OatClass it points to begins (oat_writer.cc writes all tables, then the classes), or at
 * the next dex file's table. */
static int oat_index_table_count(const struct oat_index_ctx *x, size_t d, uint32_t *count, struct err *e)
{
	const struct cursor *data = &x->ix->space.data;
	uint64_t limit = data->len, pos;
	uint32_t n = 0, v;
	int rc;

	for (size_t j = 0; j < x->dex_count; j++) {
		uint32_t other = x->dexfiles[j].class_offsets_off;
		if (other > x->dexfiles[d].class_offsets_off && other < limit)
			limit = other;
	}
	/* limit <= data->len: every read is inside oatdata, a failure would be a bug */
	for (pos = x->dexfiles[d].class_offsets_off; pos + 4 <= limit; pos += 4, n++) {
		if ((rc = cur_peek_u32le(data, (size_t)pos, &v, e)) < 0)
			return rc;
		if (v != 0 && v < limit)
			limit = v;
		if (pos + 4 > limit)
			break;
	}
	*count = n;
	return 0;
}

static uint32_t oat_index_class_offset(const struct oat_index_ctx *x, size_t d, uint32_t ci, struct err *e,
				       int *rc)
{
	uint32_t v = 0;
	uint64_t at = (uint64_t)x->dexfiles[d].class_offsets_off + 4 * (uint64_t)ci;

	*rc = at > SIZE_MAX ? ERR_SET(e, ERR_CORRUPT, at, "class offset table entry beyond oatdata")
			    : cur_peek_u32le(&x->ix->space.data, (size_t)at, &v, e);
	return v;
}

static int oat_cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* Reads every dex file's class offsets table; a table that runs past oatdata is cut where it
 * does (counts[d] lowered, recorded as a skip): the classes after it are not read. */
static int oat_index_collect_class_offsets(struct oat_index_ctx *x, uint32_t *counts, struct err *e)
{
	size_t total = 0, k = 0;
	int rc;

	for (size_t d = 0; d < x->dex_count; d++)
		if (ck_add(total, counts[d], &total))
			return ERR_SET(e, ERR_CORRUPT, ERR_NO_VA, "class count overflows");
	x->class_offsets = xcalloc(total ? total : 1, sizeof(uint32_t));
	if (!x->class_offsets)
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory for %zu class offsets", total);
	for (size_t d = 0; d < x->dex_count; d++)
		for (uint32_t ci = 0; ci < counts[d]; ci++) {
			struct err why;
			err_init(&why);
			uint32_t v = oat_index_class_offset(x, d, ci, &why, &rc);
			if (rc < 0) {
				err_prefix(&why, "dex %zu class_def %u of %u", d, ci, counts[d]);
				oat_index_skip(x->ix, &why);
				counts[d] = ci;
				break;
			}
			if (v != 0)
				x->class_offsets[k++] = v;
		}
	qsort(x->class_offsets, k, sizeof(uint32_t), oat_cmp_u32);
	x->class_offsets_count = k;
	return 0;
}

/* Upper bound of an OatClass's method offsets: the next OatClass in memory, else oatdata's end. */
static uint32_t oat_index_next_class(const struct oat_index_ctx *x, uint32_t off)
{
	size_t lo = bs_upper(x->class_offsets, x->class_offsets_count, bs_key_u32, off);
	return lo < x->class_offsets_count ? x->class_offsets[lo] : (uint32_t)x->ix->space.data.len;
}

static int oat_index_name(struct oat_index_ctx *x, size_t d, uint32_t ci, const struct dex_class_def *def,
			  const struct dex_member *m, struct oat_code_entry *en, struct err *e)
{
	struct wbuf *w = &x->ix->names;
	const struct dex *dex = x->dexfiles[d].dex;
	struct dex_method_id mid;
	const uint8_t *s;
	size_t n;
	int rc;

	en->name_at = w->len;
	if (!dex || !def || !m) {
		wbuf_printf(w, "dex%zu:class%u:method%u", d, ci, en->method_index);
	} else if ((rc = dex_type_descriptor(dex, def->class_idx, &s, &n, e)) < 0 ||
		   (rc = dex_method_id(dex, m->idx, &mid, e)) < 0) {
		return rc;
	} else {
		wbuf_put(w, s, n);
		wbuf_put(w, "->", 2);
		if ((rc = dex_string(dex, mid.name_idx, &s, &n, e)) < 0)
			return rc;
		wbuf_put(w, s, n);
		if ((rc = dex_proto_signature(dex, mid.proto_idx, w, e)) < 0)
			return rc;
	}
	wbuf_u8(w, 0);
	return wbuf_status(w, e);
}

static int oat_index_add(struct oat_index_ctx *x, const struct oat_code_entry *proto, size_t d, uint32_t ci,
			 const struct dex_class_def *def, const struct dex_member *m, struct err *e)
{
	struct oat_code_index *ix = x->ix;
	struct oat_code_entry en = *proto;
	struct oat_method_code mc;
	struct err why;
	int rc;

	if (oat_method_code_decode(&ix->space, en.code_offset, &mc, &why) < 0) {
		err_prefix(&why, "dex %zu class_def %u method %u", d, ci, en.method_index);
		oat_index_skip(ix, &why);
		return 0;
	}
	en.code_start = mc.code_offset;
	en.code_size = mc.code_size;
	if (def && m && (rc = oat_index_name(x, d, ci, def, m, &en, &why)) < 0) {
		if (rc == -ERR_NOMEM)
			return (*e = why, rc);
		oat_index_skip(ix, &why);
		if ((rc = oat_index_name(x, d, ci, NULL, NULL, &en, e)) < 0)
			return rc;
	} else if ((!def || !m) && (rc = oat_index_name(x, d, ci, NULL, NULL, &en, e)) < 0) {
		return rc;
	}
	if (ix->count % 256 == 0) {
		struct oat_code_entry *grown = xreallocarray(ix->entries, ix->count + 256, sizeof(*grown));
		if (!grown)
			return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory for %zu methods", ix->count + 256);
		ix->entries = grown;
	}
	ix->entries[ix->count++] = en;
	return 0;
}

/* Methods of a class known through its DEX class_data (direct then virtual). */
static int oat_index_class_with_dex(struct oat_index_ctx *x, size_t d, uint32_t ci, uint32_t class_off,
				    struct err *e)
{
	const struct dex *dex = x->dexfiles[d].dex;
	struct dex_class_def def;
	struct dex_class_data it;
	struct dex_member m;
	struct oat_class_info c;
	struct oat_code_entry en = { .dex_file = (uint32_t)d, .class_def = ci };
	struct err why;
	uint32_t nmethods;
	int rc;

	if (dex_class_def(dex, ci, &def, &why) < 0 || dex_class_data_open(dex, &def, &it, &why) < 0)
		return oat_index_skip(x->ix, &why), 0;
	nmethods = it.count[DEX_DIRECT_METHOD] + it.count[DEX_VIRTUAL_METHOD];
	if (nmethods < it.count[DEX_DIRECT_METHOD]) {
		ERR_SET(&why, ERR_CORRUPT, ERR_NO_VA, "class_def %u: method count overflows", ci);
		return oat_index_skip(x->ix, &why), 0;
	}
	if (oat_class_decode(&x->ix->space, class_off, nmethods, &c, &why) < 0)
		return oat_index_skip(x->ix, &why), 0;
	while ((rc = dex_class_data_next(&it, &m, &why)) == 1) {
		if (m.kind != DEX_DIRECT_METHOD && m.kind != DEX_VIRTUAL_METHOD)
			continue;
		if (oat_class_method_code_offset(&x->ix->space, &c, en.method_index, &en.code_offset, &why) < 0) {
			oat_index_skip(x->ix, &why);
			break;
		}
		en.method_idx = m.idx;
		en.access_flags = m.access_flags;
		if (en.code_offset && (rc = oat_index_add(x, &en, d, ci, &def, &m, e)) < 0)
			return rc;
		en.method_index++;
	}
	if (rc < 0)
		oat_index_skip(x->ix, &why);
	return 0;
}

/* Without the DEX: the method count is stored (194+), or follows from the bitmap, or (all-
 * compiled before 194) is bounded by the next OatClass; past the last valid code offset the
 * array has ended. */
static int oat_index_class_blind(struct oat_index_ctx *x, size_t d, uint32_t ci, uint32_t class_off, struct err *e)
{
	struct oat_class_info c;
	struct oat_code_entry en = { .dex_file = (uint32_t)d, .class_def = ci, .method_idx = OAT_CODE_NO_IDX };
	struct oat_method_code mc;
	struct err why;
	uint32_t limit;
	bool last = false;
	int rc;

	if (oat_class_decode(&x->ix->space, class_off, OAT_CODE_UNKNOWN_COUNT, &c, &why) < 0)
		return oat_index_skip(x->ix, &why), 0;
	if (c.type == OAT_CLASS_NONE_COMPILED)
		return 0;
	limit = c.num_methods;
	if (c.type == OAT_CLASS_SOME_COMPILED && limit == OAT_CODE_UNKNOWN_COUNT)
		limit = (uint32_t)(c.bitmap.len * 8);
	if (c.type == OAT_CLASS_ALL_COMPILED && limit == OAT_CODE_UNKNOWN_COUNT) {
		uint32_t next = oat_index_next_class(x, class_off);
		limit = next > c.methods_at ? (next - c.methods_at) / c.method_offsets_size : 0;
		last = next >= x->ix->space.data.len;
		x->ix->inferred_counts = true;
	}
	for (; en.method_index < limit; en.method_index++) {
		/* a count taken from the bitmap or the next class can run past the array: the first
		 * offset that does not read ends the class, and is recorded */
		if (oat_class_method_code_offset(&x->ix->space, &c, en.method_index, &en.code_offset, &why) < 0) {
			err_prefix(&why, "dex %zu class_def %u method %u of %u", d, ci, en.method_index, limit);
			oat_index_skip(x->ix, &why);
			break;
		}
		if (en.code_offset == 0)
			continue;
		/* the last OatClass has no next one to bound it: its array ends at the first entry
		 * that is not a method's code (bss mappings or code infos follow) */
		if (last && oat_method_code_decode(&x->ix->space, en.code_offset, &mc, &why) < 0)
			break;
		if ((rc = oat_index_add(x, &en, d, ci, NULL, NULL, e)) < 0)
			return rc;
	}
	return 0;
}

static int oat_cmp_by_code(const void *a, const void *b)
{
	const struct oat_code_pos *x = a, *y = b;

	if (x->code_start != y->code_start)
		return x->code_start < y->code_start ? -1 : 1;
	return x->entry < y->entry ? -1 : x->entry > y->entry;
}

static int oat_index_sort(struct oat_code_index *ix, struct err *e)
{
	ix->by_code = xcalloc(ix->count ? ix->count : 1, sizeof(*ix->by_code));
	if (!ix->by_code)
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory sorting %zu methods", ix->count);
	for (size_t i = 0; i < ix->count; i++)
		ix->by_code[i] = (struct oat_code_pos){ ix->entries[i].code_start, i };
	qsort(ix->by_code, ix->count, sizeof(*ix->by_code), oat_cmp_by_code);
	return 0;
}

static int oat_index_dexfile(struct oat_index_ctx *x, size_t d, uint32_t count, struct err *e)
{
	int rc;

	for (uint32_t ci = 0; ci < count; ci++) {
		struct err why;
		uint32_t off = oat_index_class_offset(x, d, ci, &why, &rc);
		if (rc < 0) {
			oat_index_skip(x->ix, &why);
			break;
		}
		if (off == 0)
			continue;
		rc = x->dexfiles[d].dex ? oat_index_class_with_dex(x, d, ci, off, e)
					: oat_index_class_blind(x, d, ci, off, e);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int oat_code_index_build(struct oat_code_index *ix, const struct oat_code_space *space,
			 const struct oat_code_header *header, const struct oat_code_dexfile *dexfiles,
			 size_t dex_count, struct err *e)
{
	struct oat_index_ctx x = { .ix = ix, .dexfiles = dexfiles, .dex_count = dex_count };
	uint32_t *counts;
	int rc = 0;

	memset(ix, 0, sizeof(*ix));
	wbuf_init(&ix->names);
	ix->space = *space;
	if (header)
		ix->header = *header;
	counts = xcalloc(dex_count ? dex_count : 1, sizeof(uint32_t));
	if (!counts)
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory for %zu dex files", dex_count);
	for (size_t d = 0; d < dex_count; d++) {
		counts[d] = dexfiles[d].class_count;
		if (dexfiles[d].class_offsets_off == 0)
			counts[d] = 0;
		else if (counts[d] == 0) {
			if ((rc = oat_index_table_count(&x, d, &counts[d], e)) < 0)
				break;
			ix->inferred_counts = true;
		}
	}
	if (rc == 0)
		rc = oat_index_collect_class_offsets(&x, counts, e);
	for (size_t d = 0; rc == 0 && d < dex_count; d++)
		rc = oat_index_dexfile(&x, d, counts[d], e);
	if (rc == 0)
		rc = oat_index_sort(ix, e);
	xfree(counts);
	xfree(x.class_offsets);
	if (rc < 0)
		oat_code_index_release(ix);
	return rc;
}

void oat_code_index_release(struct oat_code_index *ix)
{
	for (size_t i = 0; ix->dexfiles && i < ix->dexfile_count; i++)
		xfree((void *)ix->dexfiles[i].dex);
	xfree(ix->dexfiles);
	ix->dexfiles = NULL;
	xfree(ix->entries);
	xfree(ix->by_code);
	wbuf_release(&ix->names);
	ix->entries = NULL;
	ix->by_code = NULL;
	ix->count = 0;
}

static uint64_t pos_code(const void *v, size_t i) { return ((const struct oat_code_pos *)v)[i].code_start; }

const char *oat_code_index_name_at(const struct oat_code_index *ix, uint32_t off, uint32_t *delta)
{
	size_t lo;

	for (size_t i = 0; i < ix->header.trampoline_count; i++) {
		const struct oat_code_trampoline *t = &ix->header.trampolines[i];
		if (t->offset && (t->offset & ~(uint32_t)ix->space.code_delta) == off) {
			*delta = 0;
			return t->name;
		}
	}
	lo = bs_upper(ix->by_code, ix->count, pos_code, off);   /* last entry starting at or before off */
	if (lo == 0)
		return NULL;
	{
		size_t first = lo - 1;
		const struct oat_code_entry *en;
		/* deduplicated code: report the first method (in class order) sharing this start */
		while (first > 0 && ix->by_code[first - 1].code_start == ix->by_code[first].code_start)
			first--;
		en = &ix->entries[ix->by_code[first].entry];
		if (off - en->code_start >= en->code_size)
			return NULL;
		*delta = off - en->code_start;
		return oat_code_entry_name(ix, en);
	}
}

/* ---- an opened OAT file (art/format/oat.h) ---- */

/* OatHeader trampolines and bridges, in oat.h's field order */
static const enum oat_hfield oat_trampoline_fields[] = {
	OAT_H_INTERPRETER_TO_INTERPRETER_BRIDGE, OAT_H_INTERPRETER_TO_COMPILED_CODE_BRIDGE,
	OAT_H_JNI_DLSYM_LOOKUP, OAT_H_JNI_DLSYM_LOOKUP_CRITICAL, OAT_H_PORTABLE_IMT_CONFLICT,
	OAT_H_PORTABLE_RESOLUTION, OAT_H_PORTABLE_TO_INTERPRETER, OAT_H_QUICK_GENERIC_JNI,
	OAT_H_QUICK_IMT_CONFLICT, OAT_H_QUICK_RESOLUTION, OAT_H_QUICK_TO_INTERPRETER, OAT_H_NTERP,
};

int oat_code_space_from_oat(struct oat_code_space *s, const struct oat *o, unsigned code_delta, struct err *e)
{
	memset(s, 0, sizeof(*s));
	s->layout = oat_code_layout_for(o->version);
	if (!s->layout)
		return ERR_SET(e, ERR_UNSUP, 0, "oat version %03u: compiled code layout unknown", o->version);
	if (o->oatexec_va < o->oatdata_va)
		return ERR_SET(e, ERR_CORRUPT, o->oatexec_va, "oatexec 0x%llx lies before oatdata 0x%llx",
			       (unsigned long long)o->oatexec_va, (unsigned long long)o->oatdata_va);
	s->data = o->oatdata;
	s->data.pos = 0;
	s->exec = o->oatexec;
	s->exec.pos = 0;
	s->exec_rel = o->oatexec_va - o->oatdata_va;
	s->code_delta = code_delta;
	return 0;
}

static void oat_code_header_from_oat(const struct oat *o, struct oat_code_header *h)
{
	memset(h, 0, sizeof(*h));
	h->executable_offset = o->header[OAT_H_EXECUTABLE_OFFSET];
	for (size_t i = 0; i < sizeof(oat_trampoline_fields) / sizeof(oat_trampoline_fields[0]); i++) {
		enum oat_hfield f = oat_trampoline_fields[i];
		if (!oat_has_field(o, f))
			continue;
		h->trampolines[h->trampoline_count].name = oat_hfield_name(f);
		h->trampolines[h->trampoline_count++].offset = o->header[f];
	}
}

/* Parses each OatDexFile's DEX when its bytes are present; a DEX that does not parse is left
 * out (methods are then named by position) and counted as skipped. */
static int oat_code_dexfiles(const struct oat *o, struct oat_code_dexfile *out, struct oat_code_index *ix,
			     struct err *e)
{
	for (size_t i = 0; i < o->dex_file_count; i++) {
		const struct oat_dex_file *df = &o->dex_files[i];
		struct dex *d;
		struct err why;

		out[i] = (struct oat_code_dexfile){ df->location, df->location_len, NULL, df->class_offsets_off,
						    df->class_count };
		if (df->dex.len == 0)
			continue;
		if (!(d = xcalloc(1, sizeof(*d))))
			return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory for a dex file");
		if (dex_load(d, &df->dex, &why) < 0) {
			xfree(d);
			err_prefix(&why, "dex file %zu", i);
			oat_index_skip(ix, &why);
			continue;
		}
		out[i].dex = d;
		if (out[i].class_count == 0)
			out[i].class_count = d->class_defs_size;
	}
	return 0;
}

int oat_code_index_from_oat(struct oat_code_index *ix, const struct oat *o, unsigned code_delta, struct err *e)
{
	struct oat_code_space space;
	struct oat_code_header header;
	struct oat_code_dexfile *dfs;
	struct oat_code_index pre = { 0 };
	int rc;

	if ((rc = oat_code_space_from_oat(&space, o, code_delta, e)) < 0)
		return rc;
	oat_code_header_from_oat(o, &header);
	dfs = xcalloc(o->dex_file_count ? o->dex_file_count : 1, sizeof(*dfs));
	if (!dfs)
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory for %zu dex files", o->dex_file_count);
	rc = oat_code_dexfiles(o, dfs, &pre, e);
	if (rc == 0)
		rc = oat_code_index_build(ix, &space, &header, dfs, o->dex_file_count, e);
	if (rc < 0) {
		for (size_t i = 0; i < o->dex_file_count; i++)
			xfree((void *)dfs[i].dex);
		xfree(dfs);
		return rc;
	}
	ix->dexfiles = dfs;
	ix->dexfile_count = o->dex_file_count;
	if (pre.skipped) {
		if (ix->skipped == 0)
			ix->first_skip = pre.first_skip;
		ix->skipped += pre.skipped;
	}
	return 0;
}

const struct oat_code_entry *oat_code_index_entry_at(const struct oat_code_index *ix, uint32_t off)
{
	uint32_t delta;
	const char *name = oat_code_index_name_at(ix, off, &delta);
	size_t i;

	if (!name || delta)
		return NULL;
	i = bs_find(ix->by_code, ix->count, pos_code, off);
	return i != SIZE_MAX ? &ix->entries[ix->by_code[i].entry] : NULL;
}

int oat_code_map(struct image *view, const struct oat_code_space *s, uint64_t oatdata, const char *label,
		 struct err *e)
{
	uint64_t exec, exec_end, data_end;
	size_t data_len = s->data.len;
	int rc;

	if (ck_add64(oatdata, s->exec_rel, &exec) || ck_add64(exec, s->exec.len, &exec_end) ||
	    ck_add64(oatdata, data_len, &data_end))
		return ERR_SET(e, ERR_CORRUPT, oatdata, "%s: oatdata at 0x%llx and its code wrap around the address space",
			       label, (unsigned long long)oatdata);
	/* .rodata ends before .text starts (dex2oat's oat_writer.cc); a file where they overlap
	 * keeps the code and the oatdata bytes before it */
	if (s->exec_rel < data_len) {
		data_len = (size_t)s->exec_rel;
		data_end = exec;
	}
	if (img_overlaps(view, exec, exec_end) || img_overlaps(view, oatdata, data_end))
		return ERR_SET(e, ERR_CORRUPT, oatdata, "%s: oatdata 0x%llx-0x%llx or code 0x%llx-0x%llx overlaps a mapping",
			       label, (unsigned long long)oatdata, (unsigned long long)data_end,
			       (unsigned long long)exec, (unsigned long long)exec_end);
	if (s->exec.len && (rc = img_add_region_mem(view, exec, s->exec.base, s->exec.len, IMG_PROT_R | IMG_PROT_X,
						      label, e)))
		return rc;
	if (data_len && (rc = img_add_region_mem(view, oatdata, s->data.base, data_len, IMG_PROT_R, label, e)))
		return rc;
	return 0;
}

/* ---- code sources ---- */

#define OAT_SCAN_PAGES 256u       /* how far into an ELF mapping the OatHeader is looked for */
#define OAT_PAGE 4096u

static int oat_sources_grow(struct oat_code_sources *s, struct err *e)
{
	struct oat_code_source *v;
	struct vdex *vd;

	if (s->count % 8)
		return 0;
	v = xreallocarray(s->v, s->count + 8, sizeof(*v));
	if (v)
		s->v = v;
	vd = v ? xreallocarray(s->vdexes, s->count + 8, sizeof(*vd)) : NULL;
	if (!v || !vd)
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory for %zu OAT files", s->count + 8);
	s->vdexes = vd;
	memset(&s->v[s->count], 0, 8 * sizeof(*v));
	memset(&s->vdexes[s->count], 0, 8 * sizeof(*vd));
	return 0;
}

/* The arch, the index, and the addresses, once src->oat is open. */
static int oat_source_finish(struct oat_code_source *src, struct err *e)
{
	enum disasm_arch arch;
	int rc;

	if ((rc = disasm_arch_from_art_isa(src->oat.isa, src->oat.version, &arch, e)) < 0)
		return rc;
	src->arch = arch;
	src->oatdata_va = src->oat.oatdata_va;
	src->exec_va = src->oat.oatexec_va;
	return oat_code_index_from_oat(&src->ix, &src->oat, arch == DISASM_THUMB2 ? 1 : 0, e);
}

/* Loads path as a file image kept until the sources close; *bytes views all of it. */
static int oat_sources_map(struct oat_code_sources *s, const char *path, struct cursor *bytes, struct err *e)
{
	struct image *f = xreallocarray(s->files, s->file_count + 1, sizeof(*f));
	int rc;

	if (!f)
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory opening %s", path);
	s->files = f;
	if ((rc = img_from_file(&s->files[s->file_count], path, 0, bytes, e)) < 0)
		return rc;
	s->file_count++;
	return 0;
}

/* The VDEX for an OAT file: the one named, or STEM.vdex beside it when that exists and parses. */
/* A VDEX found beside the OAT that does not read is left out (*why says why, for the index's
 * skip count: methods are then named by position); one named with --vdex must read. */
static int oat_sources_vdex(struct oat_code_sources *s, const char *oat_path, const char *vdex_path,
			    struct vdex *out, bool *have, struct err *why, struct err *e)
{
	char buf[4096];
	struct cursor c;
	int rc;

	*have = false;
	if (!vdex_path) {
		if (!oat_vdex_path_for(oat_path, buf, sizeof(buf)) || access(buf, R_OK) != 0)
			return 0;
		if ((rc = oat_sources_map(s, buf, &c, why)) == 0)
			rc = vdex_parse(out, &c, why);
		if (rc == -ERR_NOMEM)
			return (*e = *why, rc);
		if (rc < 0) {
			err_prefix(why, "%s left out", buf);
			return 0;
		}
		*have = true;
		return 0;
	}
	if ((rc = oat_sources_map(s, vdex_path, &c, e)) < 0)
		return rc;
	if ((rc = vdex_parse(out, &c, e)) < 0)
		return err_prefix(e, "%s", vdex_path);
	*have = true;
	return 0;
}

/* data/len: the mapped OAT (s->files may move while the VDEX is mapped; the bytes do not). */
static int oat_sources_open_file(struct oat_code_sources *s, const uint8_t *data, size_t len, const char *path,
				 const char *vdex_path, struct err *e)
{
	struct oat_code_source *src;
	struct err vdex_why;
	bool have_vdex;
	int rc;

	err_init(&vdex_why);
	if ((rc = oat_sources_grow(s, e)) < 0 ||
	    (rc = oat_sources_vdex(s, path, vdex_path, &s->vdexes[0], &have_vdex, &vdex_why, e)) < 0)
		return rc;
	src = &s->v[s->count];
	src->label = path;
	if ((rc = oat_open(&src->oat, data, len, path, have_vdex ? &s->vdexes[0] : NULL, e)) < 0) {
		oat_close(&src->oat);   /* oat_open leaves a partly opened oat on failure */
		return rc;
	}
	s->count++;
	src->file_offset_known = true;
	src->exec_file_offset = src->oat.oatexec.va;
	if ((rc = oat_source_finish(src, e)) < 0)
		return err_prefix(e, "%s", path);
	if (vdex_why.code)
		oat_index_skip(&src->ix, &vdex_why);
	return 0;
}

/* A VDEX mapped in the image whose file stem equals the OAT mapping's ("boot.oat" -> "boot.vdex");
 * false when none reads (*why: why the last candidate did not, code 0 if there was none). */
static bool oat_image_vdex(const struct image *img, const char *oat_name, struct vdex *out, struct err *why)
{
	const char *base = strrchr(oat_name, '/'), *dot;
	size_t stem;
	struct cursor c;

	base = base ? base + 1 : oat_name;
	dot = strrchr(base, '.');
	stem = dot ? (size_t)(dot - base) : strlen(base);
	for (size_t i = 0; i < img->region_count; i++) {
		const struct img_region *r = &img->regions[i];
		const char *rb = strrchr(r->name, '/');
		rb = rb ? rb + 1 : r->name;
		if (!r->data || r->file_offset != 0 || strncmp(rb, base, stem) || strcmp(rb + stem, ".vdex"))
			continue;
		cur_init(&c, r->data, r->data_len, r->start);
		if (vdex_parse(out, &c, why) == 0)
			return true;
		err_prefix(why, "VDEX mapping %s left out", r->name);
	}
	return false;
}

/* One OAT in an image: oatdata found in region r at offset off. */
static int oat_sources_image_oat(struct oat_code_sources *s, const struct img_region *r, size_t off,
				 struct err *e)
{
	struct oat_code_source *src;
	const struct img_region *xr;
	struct cursor c;
	struct err vdex_why;
	uint64_t exec_va;
	bool have_vdex;
	int rc;

	if ((rc = oat_sources_grow(s, e)) < 0)
		return rc;
	src = &s->v[s->count];
	err_init(&vdex_why);
	have_vdex = oat_image_vdex(s->img, r->name, &s->vdexes[s->count], &vdex_why);
	cur_init(&c, r->data + off, r->data_len - off, r->start + off);
	if ((rc = oat_parse_oatdata(&src->oat, &c, have_vdex ? &s->vdexes[s->count] : NULL, e)) < 0) {
		oat_close(&src->oat);
		return rc;
	}
	src->label = r->name[0] ? r->name : "(anonymous OAT mapping)";
	s->count++;
	src->oat.oatdata_va = r->start + off;
	exec_va = src->oat.oatdata_va + src->oat.header[OAT_H_EXECUTABLE_OFFSET];
	xr = img_find(s->img, exec_va);
	if (!xr || !xr->data || exec_va - xr->start >= xr->data_len)
		return ERR_SET(e, ERR_UNMAPPED, exec_va, "%s: oatexec at 0x%llx is not captured", src->label,
			       (unsigned long long)exec_va);
	cur_init(&src->oat.oatexec, xr->data + (exec_va - xr->start), xr->data_len - (size_t)(exec_va - xr->start),
		 exec_va);
	src->oat.oatexec_va = exec_va;
	if ((rc = oat_source_finish(src, e)) < 0)
		return err_prefix(e, "%s", src->label);
	if (!have_vdex && vdex_why.code)
		oat_index_skip(&src->ix, &vdex_why);
	return 0;
}

static bool oat_region_is_elf(const struct img_region *r)
{
	return r->data && r->data_len >= OAT_PAGE && !memcmp(r->data, "\177ELF", 4);
}

static int oat_sources_scan_image(struct oat_code_sources *s, struct err *e)
{
	for (size_t i = 0; i < s->img->region_count; i++) {
		const struct img_region *r = &s->img->regions[i];
		if (!oat_region_is_elf(r))
			continue;
		for (size_t off = OAT_PAGE; off < r->data_len && off <= OAT_SCAN_PAGES * OAT_PAGE; off += OAT_PAGE) {
			struct err why;
			int rc;
			if (!oat_probe_header(r->data + off, r->data_len - off))
				continue;
			rc = oat_sources_image_oat(s, r, off, &why);
			if (rc == -ERR_NOMEM)
				return (*e = why, rc);
			if (rc < 0 && s->failed++ == 0)
				s->first_failure = why;
			break;
		}
	}
	return 0;
}

/* An ELF core (e_type ET_CORE = 4 at offset 16, in the byte order of EI_DATA) is a memory
 * image, not an OAT file, even though both start with an ELF header. */
static bool oat_sources_is_core(const uint8_t *p, size_t len)
{
	if (len < 18)
		return false;
	return (p[5] == 2 ? ld_u16be(p + 16) : ld_u16le(p + 16)) == 4;
}

int oat_code_sources_open(struct oat_code_sources *s, const char *path, const char *vdex_path,
			  const char *maps_path, struct err *e)
{
	struct img_open_opts opts = { .maps_path = maps_path };
	struct cursor f;
	struct stat st;
	int rc;

	memset(s, 0, sizeof(*s));
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
		if ((rc = oat_sources_map(s, path, &f, e)) < 0)
			return rc;
		if (elfw_probe(f.base, f.len) && !oat_sources_is_core(f.base, f.len) &&
		    (rc = oat_sources_open_file(s, f.base, f.len, path, vdex_path, e)) != -ERR_UNSUP) {
			if (rc < 0)
				oat_code_sources_close(s);
			return rc;
		}
	}
	s->is_image = true;
	if (!(s->img = xcalloc(1, sizeof(*s->img)))) {
		oat_code_sources_close(s);
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory opening %s", path);
	}
	if ((rc = img_open(s->img, path, &opts, e)) < 0 || (rc = oat_sources_scan_image(s, e)) < 0) {
		oat_code_sources_close(s);
		return rc;
	}
	return 0;
}

void oat_code_sources_close(struct oat_code_sources *s)
{
	for (size_t i = 0; i < s->count; i++) {
		oat_code_index_release(&s->v[i].ix);
		oat_close(&s->v[i].oat);
	}
	xfree(s->v);
	xfree(s->vdexes);
	for (size_t i = 0; i < s->file_count; i++)
		img_close(&s->files[i]);
	xfree(s->files);
	if (s->img) {
		img_close(s->img);
		xfree(s->img);
	}
	memset(s, 0, sizeof(*s));
}
