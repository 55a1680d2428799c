/* test_cursor.c - the bounded reader: values, every truncation, position kept on failure. */
#include "carver/base/ck.h"
#include "carver/base/cursor.h"
#include "t.h"

static void test_fixed_reads(void)
{
	static const uint8_t b[] = { 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09 };
	struct cursor c;
	struct err e;
	uint16_t v16;
	uint32_t v32;
	uint64_t v64;

	T_SECTION("fixed-width reads");
	err_init(&e);
	cur_init(&c, b, sizeof(b), 0x1000);
	T_EQ_I(cur_u16le(&c, &v16, &e), 0);
	T_EQ_U(v16, 0x0201);
	T_EQ_I(cur_u32be(&c, &v32, &e), 0);
	T_EQ_U(v32, 0x03040506);
	T_EQ_U(cur_remaining(&c), 3);
	T_EQ_I(cur_u32le(&c, &v32, &e), -ERR_TRUNC);
	T_EQ_U(c.pos, 6);
	T_EQ_U(e.va, 0x1006);
	T_CHECK(strstr(e.msg, "0x1006") != NULL, "message names the address: %s", e.msg);
	cur_init(&c, b, sizeof(b), 0);
	T_EQ_I(cur_u64le(&c, &v64, &e), 0);
	T_EQ_U(v64, 0x0807060504030201ull);
	cur_init(&c, b, sizeof(b), 0);
	T_EQ_I(cur_u64be(&c, &v64, &e), 0);
	T_EQ_U(v64, 0x0102030405060708ull);
	cur_init(&c, b, sizeof(b), 0);
	T_EQ_I(cur_uNbe(&c, 4, &v64, &e), 0);
	T_EQ_U(v64, 0x01020304);
	T_EQ_I(cur_uNbe(&c, 3, &v64, &e), -ERR_CORRUPT);
	T_EQ_I(cur_uNle(&c, 4, &v64, &e), 0);
	T_EQ_U(v64, 0x08070605);
}

static void test_every_truncation(void)
{
	static const uint8_t b[8] = { 0 };
	T_SECTION("every truncation of an 8-byte read");
	for (size_t n = 0; n < 8; n++) {
		struct cursor c;
		struct err e;
		uint64_t v;
		err_init(&e);
		cur_init(&c, b, n, 0);
		T_EQ_I(cur_u64le(&c, &v, &e), -ERR_TRUNC);
		T_EQ_U(c.pos, 0);
	}
}

static void test_leb(void)
{
	static const uint8_t u[] = { 0xe5, 0x8e, 0x26 };                 /* 624485 */
	static const uint8_t s[] = { 0x7f };                              /* -1 */
	static const uint8_t big[] = { 0xff, 0xff, 0xff, 0xff, 0x7f };    /* > 32 bits */
	static const uint8_t lng[] = { 0x80, 0x80, 0x80, 0x80, 0x80, 0x01 };
	static const uint8_t vi[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 };
	struct cursor c;
	struct err e;
	uint32_t v;
	int32_t sv;
	uint64_t v64;

	T_SECTION("LEB128 and varints");
	err_init(&e);
	cur_init(&c, u, sizeof(u), 0);
	T_EQ_I(cur_uleb128(&c, &v, &e), 0);
	T_EQ_U(v, 624485);
	cur_init(&c, s, sizeof(s), 0);
	T_EQ_I(cur_sleb128(&c, &sv, &e), 0);
	T_EQ_I(sv, -1);
	cur_init(&c, big, sizeof(big), 0);
	T_EQ_I(cur_uleb128(&c, &v, &e), -ERR_CORRUPT);
	T_EQ_U(c.pos, 0);
	cur_init(&c, lng, sizeof(lng), 0);
	T_EQ_I(cur_uleb128(&c, &v, &e), -ERR_CORRUPT);
	cur_init(&c, u, 2, 0);
	T_EQ_I(cur_uleb128(&c, &v, &e), -ERR_TRUNC);
	T_EQ_U(c.pos, 0);
	cur_init(&c, vi, sizeof(vi), 0);
	T_EQ_I(cur_varint64(&c, &v64, &e), 0);
	T_EQ_U(v64, UINT64_MAX);
}

static void test_sub(void)
{
	static const uint8_t b[16] = { 0 };
	struct cursor c, s;
	struct err e;

	T_SECTION("sub-cursors");
	err_init(&e);
	cur_init(&c, b, sizeof(b), 0x100);
	T_EQ_I(cur_sub(&c, 4, 8, &s, &e), 0);
	T_EQ_U(s.va, 0x104);
	T_EQ_U(s.len, 8);
	T_EQ_I(cur_sub(&c, 9, 8, &s, &e), -ERR_TRUNC);
	T_EQ_I(cur_sub(&c, SIZE_MAX, 2, &s, &e), -ERR_TRUNC);
	T_EQ_I(cur_sub(&c, 2, SIZE_MAX, &s, &e), -ERR_TRUNC);
	T_EQ_I(cur_take(&c, 10, &s, &e), 0);
	T_EQ_U(c.pos, 10);
	T_EQ_I(cur_take(&c, 7, &s, &e), -ERR_TRUNC);
	T_EQ_U(c.pos, 10);
	T_EQ_I(cur_skip(&c, 6, &e), 0);
	T_EQ_U(cur_remaining(&c), 0);
	T_EQ_I(cur_seek(&c, 17, &e), -ERR_TRUNC);
}

static void test_ck(void)
{
	size_t r;
	uint64_t r64;
	T_SECTION("overflow-checked arithmetic");
	T_CHECK(ck_add(SIZE_MAX, 1, &r), "SIZE_MAX+1 overflows");
	T_CHECK(!ck_add(1, 2, &r) && r == 3, "1+2");
	T_CHECK(ck_mul(SIZE_MAX / 2 + 1, 2, &r), "mul overflows");
	T_CHECK(ck_mul64(UINT64_MAX, 2, &r64), "mul64 overflows");
	T_CHECK(ck_range(10, 1, 10), "[10,11) outside 10");
	T_CHECK(!ck_range(9, 1, 10), "[9,10) inside 10");
	T_CHECK(ck_range(11, 0, 10), "offset past the end");
}

int main(void)
{
	test_fixed_reads();
	test_every_truncation();
	test_leb();
	test_sub();
	test_ck();
	T_DONE();
}
