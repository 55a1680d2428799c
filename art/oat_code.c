/* oat_code.c - OatClass / OatMethodOffsets / OatQuickMethodHeader decoding (see oat_code.h). */
#include "art/oat_code.h"
#include "carver/ck.h"

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

const struct oat_code_layout *oat_code_layout_for(unsigned oat_version)
{
	for (size_t i = 0; i < sizeof(oat_code_layouts) / sizeof(oat_code_layouts[0]); i++)
		if (oat_version >= oat_code_layouts[i].oat_min && oat_version <= oat_code_layouts[i].oat_max)
			return &oat_code_layouts[i];
	return NULL;
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
