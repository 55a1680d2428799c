/* cursor.c - bounded reads over borrowed bytes (see cursor.h). */
#include "carver/base/cursor.h"

#include "carver/base/ck.h"

void cur_init(struct cursor *c, const uint8_t *p, size_t len, uint64_t va)
{
	c->base = p;
	c->len = p ? len : 0;
	c->pos = 0;
	c->va = va;
}

int cur_need(const struct cursor *c, size_t n, struct err *e)
{
	if (n > c->len - c->pos)
		return ERR_SET(e, ERR_TRUNC, cur_where(c),
			       "at 0x%llx: need %zu bytes, only %zu remain",
			       (unsigned long long)cur_where(c), n, c->len - c->pos);
	return 0;
}

int cur_sub(const struct cursor *c, size_t off, size_t n, struct cursor *out, struct err *e)
{
	if (ck_range(off, n, c->len))
		return ERR_SET(e, ERR_TRUNC, c->va + off,
			       "at 0x%llx: range of %zu bytes exceeds the %zu-byte extent",
			       (unsigned long long)(c->va + off), n, c->len);
	cur_init(out, c->base + off, n, c->va + off);
	return 0;
}

int cur_take(struct cursor *c, size_t n, struct cursor *out, struct err *e)
{
	int rc = cur_sub(c, c->pos, n, out, e);
	if (rc == 0)
		c->pos += n;
	return rc;
}

int cur_seek(struct cursor *c, size_t pos, struct err *e)
{
	if (pos > c->len)
		return ERR_SET(e, ERR_TRUNC, c->va + pos, "seek to 0x%llx beyond the %zu-byte extent",
			       (unsigned long long)(c->va + pos), c->len);
	c->pos = pos;
	return 0;
}

int cur_skip(struct cursor *c, size_t n, struct err *e)
{
	int rc = cur_need(c, n, e);
	if (rc == 0)
		c->pos += n;
	return rc;
}

int cur_bytes(struct cursor *c, size_t n, const uint8_t **p, struct err *e)
{
	int rc = cur_need(c, n, e);
	if (rc)
		return rc;
	*p = c->base + c->pos;
	c->pos += n;
	return 0;
}

#define CUR_FIXED(name, type, width, load)                                  \
	int name(struct cursor *c, type *v, struct err *e)                   \
	{                                                                    \
		int rc = cur_need(c, width, e);                              \
		if (rc)                                                      \
			return rc;                                           \
		*v = load(c->base + c->pos);                                 \
		c->pos += width;                                             \
		return 0;                                                    \
	}

static inline uint8_t ld_u8(const uint8_t *p) { return p[0]; }
CUR_FIXED(cur_u8, uint8_t, 1, ld_u8)
CUR_FIXED(cur_u16le, uint16_t, 2, ld_u16le)
CUR_FIXED(cur_u32le, uint32_t, 4, ld_u32le)
CUR_FIXED(cur_u64le, uint64_t, 8, ld_u64le)
CUR_FIXED(cur_u16be, uint16_t, 2, ld_u16be)
CUR_FIXED(cur_u32be, uint32_t, 4, ld_u32be)
CUR_FIXED(cur_u64be, uint64_t, 8, ld_u64be)

int cur_uNbe(struct cursor *c, unsigned width, uint64_t *v, struct err *e)
{
	uint64_t x = 0;
	int rc;

	if (width != 1 && width != 2 && width != 4 && width != 8)
		return ERR_SET(e, ERR_CORRUPT, cur_where(c), "at 0x%llx: unsupported field width %u",
			       (unsigned long long)cur_where(c), width);
	rc = cur_need(c, width, e);
	if (rc)
		return rc;
	for (unsigned i = 0; i < width; i++)
		x = x << 8 | c->base[c->pos + i];
	c->pos += width;
	*v = x;
	return 0;
}

int cur_uNle(struct cursor *c, unsigned width, uint64_t *v, struct err *e)
{
	uint32_t v32;
	int rc;

	if (width == 8)
		return cur_u64le(c, v, e);
	if (width != 4)
		return ERR_SET(e, ERR_CORRUPT, cur_where(c), "at 0x%llx: unsupported pointer width %u",
			       (unsigned long long)cur_where(c), width);
	rc = cur_u32le(c, &v32, e);
	if (rc == 0)
		*v = v32;
	return rc;
}

/* Shared LEB128 scan: collects up to max_bytes 7-bit groups. */
static int leb_scan(struct cursor *c, unsigned max_bytes, uint64_t *v, unsigned *shift_out,
		    uint8_t *last_out, struct err *e)
{
	uint64_t x = 0;
	unsigned shift = 0;
	size_t p = c->pos;

	for (unsigned i = 0; i < max_bytes; i++) {
		uint8_t b;
		if (p >= c->len)
			return ERR_SET(e, ERR_TRUNC, c->va + p, "at 0x%llx: variable-length integer runs past the end",
				       (unsigned long long)(c->va + c->pos));
		b = c->base[p++];
		x |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80)) {
			c->pos = p;
			*v = x;
			*shift_out = shift;
			*last_out = b;
			return 0;
		}
	}
	return ERR_SET(e, ERR_CORRUPT, cur_where(c), "at 0x%llx: variable-length integer longer than %u bytes",
		       (unsigned long long)cur_where(c), max_bytes);
}

int cur_uleb128(struct cursor *c, uint32_t *v, struct err *e)
{
	size_t start = c->pos;
	uint64_t x;
	unsigned shift;
	uint8_t last;
	int rc = leb_scan(c, 5, &x, &shift, &last, e);

	if (rc)
		return rc;
	if (x > UINT32_MAX) {
		c->pos = start;
		return ERR_SET(e, ERR_CORRUPT, c->va + start, "at 0x%llx: ULEB128 value exceeds 32 bits",
			       (unsigned long long)(c->va + start));
	}
	*v = (uint32_t)x;
	return 0;
}

int cur_sleb128(struct cursor *c, int32_t *v, struct err *e)
{
	uint64_t x;
	unsigned shift;
	uint8_t last;
	int rc = leb_scan(c, 5, &x, &shift, &last, e);

	if (rc)
		return rc;
	if (shift < 64 && (last & 0x40))
		x |= ~(uint64_t)0 << shift;
	*v = (int32_t)(uint32_t)x;
	return 0;
}

int cur_varint64(struct cursor *c, uint64_t *v, struct err *e)
{
	unsigned shift;
	uint8_t last;
	return leb_scan(c, 10, v, &shift, &last, e);
}

int cur_peek_u32le(const struct cursor *c, size_t off, uint32_t *v, struct err *e)
{
	if (ck_range(off, 4, c->len))
		return ERR_SET(e, ERR_TRUNC, c->va + off, "at 0x%llx: need 4 bytes beyond the %zu-byte extent",
			       (unsigned long long)(c->va + off), c->len);
	*v = ld_u32le(c->base + off);
	return 0;
}

int cur_peek_u64le(const struct cursor *c, size_t off, uint64_t *v, struct err *e)
{
	if (ck_range(off, 8, c->len))
		return ERR_SET(e, ERR_TRUNC, c->va + off, "at 0x%llx: need 8 bytes beyond the %zu-byte extent",
			       (unsigned long long)(c->va + off), c->len);
	*v = ld_u64le(c->base + off);
	return 0;
}
