/* test_bsearch.c - the binary search helpers against a linear scan: every prefix length of a
 * sorted array with repeated keys, every probe around them, and keys read through a struct
 * accessor up to UINT64_MAX. */
#include <stdint.h>
#include <stdlib.h>

#include "carver/base/bsearch.h"
#include "tests/unit/t.h"

struct span {
	uint32_t pad;
	uint64_t start;
};

static uint64_t span_start(const void *v, size_t i) { return ((const struct span *)v)[i].start; }

/* The scan the helpers must agree with: entries whose key is <= x (or < x). */
static size_t count_below(const uint32_t *v, size_t n, uint64_t x, int strict)
{
	size_t c = 0;
	for (size_t i = 0; i < n; i++)
		c += strict ? v[i] < x : v[i] <= x;
	return c;
}

static void test_words(void)
{
	static const uint32_t v[] = { 2, 3, 3, 3, 8, 9, 16, 16, 40, 41 };
	const size_t len = sizeof(v) / sizeof(v[0]);
	unsigned bad_upper = 0, bad_lower = 0, bad_find = 0, probes = 0;

	T_SECTION("bs_upper, bs_lower, bs_find over words (every length, every probe)");
	for (size_t n = 0; n <= len; n++)
		for (uint64_t x = 0; x <= 42; x++, probes++) {
			size_t up = bs_upper(v, n, bs_key_u32, x), lo = bs_lower(v, n, bs_key_u32, x);
			size_t f = bs_find(v, n, bs_key_u32, x), want_f = SIZE_MAX;
			for (size_t i = 0; i < n && want_f == SIZE_MAX; i++)
				if (v[i] == x)
					want_f = i;
			if (up != count_below(v, n, x, 0)) {
				bad_upper++;
				printf("n %zu x %llu: bs_upper %zu, scan %zu\n", n, (unsigned long long)x, up,
				       count_below(v, n, x, 0));
			}
			if (lo != count_below(v, n, x, 1)) {
				bad_lower++;
				printf("n %zu x %llu: bs_lower %zu, scan %zu\n", n, (unsigned long long)x, lo,
				       count_below(v, n, x, 1));
			}
			if (f != want_f) {
				bad_find++;
				printf("n %zu x %llu: bs_find %zu, scan %zu\n", n, (unsigned long long)x, f, want_f);
			}
		}
	printf("%u probes\n", probes);
	T_EQ_U(bad_upper, 0);
	T_EQ_U(bad_lower, 0);
	T_EQ_U(bad_find, 0);
	T_EQ_U(bs_find(v, len, bs_key_u32, 3), 1);   /* the first of equal keys */
}

static void test_structs(void)
{
	static const struct span s[] = { { 7, 0x1000 }, { 7, 0x2000 }, { 7, 0xffffffff00000000ull },
					 { 7, UINT64_MAX } };
	const size_t n = sizeof(s) / sizeof(s[0]);
	static const uint64_t u64[] = { 1, UINT64_MAX };

	T_SECTION("keys through a struct accessor, up to UINT64_MAX");
	/* "the last entry whose start is <= x" is bs_upper - 1 */
	T_EQ_U(bs_upper(s, n, span_start, 0xfff), 0);
	T_EQ_U(bs_upper(s, n, span_start, 0x1000), 1);
	T_EQ_U(bs_upper(s, n, span_start, 0x1fff), 1);
	T_EQ_U(bs_upper(s, n, span_start, 0x2000), 2);
	T_EQ_U(bs_upper(s, n, span_start, UINT64_MAX - 1), 3);
	T_EQ_U(bs_upper(s, n, span_start, UINT64_MAX), 4);
	T_EQ_U(bs_lower(s, n, span_start, UINT64_MAX), 3);
	T_EQ_U(bs_find(s, n, span_start, 0xffffffff00000000ull), 2);
	T_EQ_U(bs_find(s, n, span_start, 0xffffffff00000001ull), SIZE_MAX);
	T_EQ_U(bs_find(u64, 2, bs_key_u64, UINT64_MAX), 1);
	T_EQ_U(bs_upper(u64, 0, bs_key_u64, UINT64_MAX), 0);
}

int main(void)
{
	test_words();
	test_structs();
	T_DONE();
}
