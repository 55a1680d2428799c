/* test_htab.c - the hash table against a plain array model: growth through many doublings,
 * key 0, keys that share a home slot, several entries of one key (string hashes), deletion
 * by backward shift, iteration, capacity overflow and allocation failure. */
#include <stdint.h>
#include <stdlib.h>

#include "carver/base/err.h"
#include "carver/base/htab.h"
#include "carver/base/xalloc.h"
#include "tests/unit/t.h"

/* Keys that differ in few bits (ids, aligned addresses), 0 first. */
static uint64_t key_of(size_t i) { return i * 8; }

static void test_growth(void)
{
	enum { N = 100000 };
	struct htab t;
	size_t wrong = 0, missing = 0, failed = 0, slots = 0;
	uint32_t v;
	bool added;

	T_SECTION("put and get through the doublings, key 0 included");
	htab_init(&t);
	T_CHECK(!htab_get(&t, 0, &v), "an empty table has no key 0");
	T_EQ_U(htab_find(&t, 0), HTAB_END);
	for (size_t i = 0; i < N; i++)
		failed += htab_put(&t, key_of(i), (uint32_t)i) != 0;
	T_EQ_U(failed, 0);
	printf("%zu entries in %zu slots\n", t.count, t.cap);
	T_EQ_U(t.count, N);
	T_CHECK(t.cap >= 2 * t.count && (t.cap & (t.cap - 1)) == 0, "cap %zu: a power of two >= 2 * count", t.cap);
	for (size_t i = 0; i < N; i++) {
		if (!htab_get(&t, key_of(i), &v))
			missing++;
		else if (v != i)
			wrong++;
	}
	T_EQ_U(missing, 0);
	T_EQ_U(wrong, 0);
	T_CHECK(!htab_get(&t, 7, &v), "key 7 was never put");
	T_CHECK(htab_get(&t, 0, &v) && v == 0, "key 0 -> 0");

	T_SECTION("put replaces, get_or_put keeps the first value");
	T_EQ_I(htab_put(&t, 0, 42), 0);
	T_CHECK(htab_get(&t, 0, &v) && v == 42, "key 0 -> %u after a second put", v);
	T_EQ_I(htab_get_or_put(&t, 8, 99, &v, &added), 0);
	T_CHECK(!added && v == 1, "get_or_put of a present key: added %d, value %u", added, v);
	T_EQ_I(htab_get_or_put(&t, 3, 99, &v, &added), 0);
	T_CHECK(added && v == 99, "get_or_put of a new key: added %d, value %u", added, v);
	T_EQ_U(t.count, N + 1);
	T_EQ_I(htab_put(&t, 5, HTAB_VAL_MAX + 1ull), -ERR_NOMEM);
	T_EQ_I(htab_put(&t, 5, HTAB_VAL_MAX), 0);
	T_CHECK(htab_get(&t, 5, &v) && v == HTAB_VAL_MAX, "the largest value %u", v);

	T_SECTION("htab_next visits every entry once");
	for (size_t s = htab_next(&t, 0); s != HTAB_END; s = htab_next(&t, s + 1))
		slots++;
	T_EQ_U(slots, t.count);

	T_SECTION("clear keeps the memory, empties the table");
	size_t cap = t.cap;
	htab_clear(&t);
	T_EQ_U(t.count, 0);
	T_EQ_U(t.cap, cap);
	T_CHECK(!htab_get(&t, 0, &v), "key 0 after clear");
	T_EQ_U(htab_next(&t, 0), HTAB_END);
	htab_release(&t);
	T_EQ_U(t.cap, 0);
}

/* Keys whose home slot is the same in a table of HTAB_MIN_CAP slots. */
static size_t same_home_keys(uint64_t *out, size_t n)
{
	size_t k = 0;
	for (uint64_t key = 1; k < n && key < 10000000; key++)
		if (htab_home(key, HTAB_MIN_CAP - 1) == 5)
			out[k++] = key;
	return k;
}

static void test_collisions_and_delete(void)
{
	uint64_t keys[40];
	size_t n = same_home_keys(keys, 40), bad = 0;
	struct htab t;
	uint32_t v;

	T_SECTION("keys of one home slot, deleted in turn (backward shift)");
	printf("%zu keys share home slot 5\n", n);
	T_EQ_U(n, 40);
	htab_init(&t);
	for (size_t i = 0; i < n; i++)
		T_EQ_I(htab_put(&t, keys[i], (uint32_t)i), 0);
	/* a run that wraps past the table's end: keys homed at the last slot */
	T_EQ_U(t.cap, HTAB_MIN_CAP);
	for (size_t i = 0; i < n; i += 3) {
		size_t s = htab_find(&t, keys[i]);
		T_CHECK(s != HTAB_END, "key %zu before its deletion", i);
		if (s != HTAB_END)
			htab_del(&t, s);
	}
	for (size_t i = 0; i < n; i++) {
		bool present = htab_get(&t, keys[i], &v);
		if (present != (i % 3 != 0) || (present && v != i)) {
			bad++;
			printf("key %zu: present %d value %u\n", i, present, present ? v : 0);
		}
	}
	T_EQ_U(bad, 0);
	T_EQ_U(t.count, n - (n + 2) / 3);
	htab_release(&t);

	T_SECTION("deletion in a run that wraps around the end of the table");
	uint64_t wrap[12];
	size_t w = 0;
	for (uint64_t key = 1; w < 12 && key < 10000000; key++)
		if (htab_home(key, HTAB_MIN_CAP - 1) >= HTAB_MIN_CAP - 2)
			wrap[w++] = key;
	T_EQ_U(w, 12);
	htab_init(&t);
	for (size_t i = 0; i < w; i++)
		T_EQ_I(htab_put(&t, wrap[i], (uint32_t)i), 0);
	htab_del(&t, htab_find(&t, wrap[0]));
	htab_del(&t, htab_find(&t, wrap[5]));
	bad = 0;
	for (size_t i = 0; i < w; i++) {
		bool present = htab_get(&t, wrap[i], &v);
		if (present != (i != 0 && i != 5) || (present && v != i))
			bad++;
	}
	T_EQ_U(bad, 0);
	htab_release(&t);
}

static void test_multi(void)
{
	struct htab t;
	size_t seen = 0;
	uint32_t mask = 0;

	T_SECTION("several entries of one key (hashes of strings), visited by find_next");
	htab_init(&t);
	for (uint32_t i = 0; i < 5; i++) {
		T_EQ_I(htab_add(&t, 77, i), 0);
		T_EQ_I(htab_add(&t, 78, 10 + i), 0);
	}
	for (size_t s = htab_find(&t, 77); s != HTAB_END; s = htab_find_next(&t, 77, s)) {
		seen++;
		mask |= 1u << htab_val(&t, s);
	}
	T_EQ_U(seen, 5);
	T_EQ_U(mask, 0x1f);
	T_EQ_U(htab_find(&t, 79), HTAB_END);
	htab_release(&t);
}

static void test_failures(void)
{
	struct htab t;
	uint32_t v;

	T_SECTION("capacity overflow and allocation failure leave the table as it was");
	htab_init(&t);
	T_EQ_I(htab_reserve(&t, SIZE_MAX / 2 + 1), -ERR_NOMEM);
	T_EQ_I(htab_reserve(&t, SIZE_MAX / 4 + 2), -ERR_NOMEM);     /* the doubling overflows */
	T_EQ_I(htab_reserve(&t, SIZE_MAX / 4), -ERR_NOMEM);         /* the bytes overflow */
	T_EQ_U(t.cap, 0);
	T_EQ_I(htab_put(&t, 1, 1), 0);
	size_t cap = t.cap;
	for (unsigned fail = 1; fail <= 2; fail++) {        /* the keys, then the values */
		xalloc_fail_after(fail);
		T_EQ_I(htab_reserve(&t, cap), -ERR_NOMEM);
		xalloc_fail_after(0);
		T_EQ_U(t.cap, cap);
		T_CHECK(htab_get(&t, 1, &v) && v == 1, "the entry after failure %u", fail);
	}
	T_EQ_I(htab_reserve(&t, cap), 0);
	T_EQ_U(t.cap, 2 * cap);
	T_CHECK(htab_get(&t, 1, &v) && v == 1, "the entry after growth");
	htab_release(&t);
}

int main(void)
{
	test_growth();
	test_collisions_and_delete();
	test_multi();
	test_failures();
	T_DONE();
}
