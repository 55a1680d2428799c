/* test_bmd_jhashmap.c - output/bmd/bmd_jhashmap.c: the iteration order of a
 * java.util.HashMap<Integer, V> against orders printed by the JDK itself.
 * The expected orders below were printed by OpenJDK 17.0.15 running
 * tests/tools/JHashMapOrder.java on the same keys (put(key, index), then values()); the
 * shell test tests/shell/test_bmd_jhashmap_jdk.sh compares random key sets with a live JDK.
 * The sets reach the paths the model mirrors (java/util/HashMap.java @ jdk-17): a bin
 * treeified once the table has 64 bins, tree bins split and untreeified on resize, bins
 * with many keys, and keys above 0xffff where hash = h ^ (h >>> 16) spreads the high half.
 * Also: the order is a permutation for random sets; 0 and 1 keys; allocation failures. */
#include <stdlib.h>

#include "carver/base/xalloc.h"
#include "output/bmd/bmd_codec.h"
#include "t.h"

#define MAX_KEYS 512

/* "i,j,...," of the order computed for keys */
static int order_text(const uint32_t *keys, size_t n, char *out, size_t cap, struct err *e)
{
	size_t order[MAX_KEYS], len = 0;
	int rc = bmd_java_hashmap_order(keys, n, order, e);

	out[0] = 0;
	for (size_t i = 0; rc == 0 && i < n; i++)
		len += (size_t)snprintf(out + len, cap - len, "%zu,", order[i]);
	return rc;
}

static void check_jdk(const char *what, const uint32_t *keys, size_t n, const char *want)
{
	static char got[8192];
	struct err e;

	err_init(&e);
	T_EQ_I(order_text(keys, n, got, sizeof(got), &e), 0);
	printf("   %s (%zu keys): %.60s... %s the JDK's order\n", what, n, got, strcmp(got, want) ? "DIFFERS FROM" : "equals");
	T_CHECK(!strcmp(got, want), "%s:\n     got  %s\n     want %s", what, got, want);
}

static void test_jdk_orders(void)
{
	uint32_t k[MAX_KEYS];
	size_t n;

	T_SECTION("orders printed by the JDK");
	/* 40 keys in distinct bins, then 12 keys in bin 0 of the 64-bin table: treeified */
	n = 0;
	for (uint32_t i = 1; i <= 40; i++)
		k[n++] = i;
	for (uint32_t j = 1; j <= 12; j++)
		k[n++] = 64 * j;
	check_jdk("tree bin at 64 bins", k, n,
		  "43,41,45,47,49,51,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,"
		  "26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,42,44,46,48,50,");
	/* 60 keys, 20 colliding at a 128 stride, then 138 more (128 is taken): the tree bin
	 * splits twice */
	n = 0;
	for (uint32_t i = 1; i <= 60; i++)
		k[n++] = i;
	for (uint32_t j = 1; j <= 20; j++)
		k[n++] = 128 * j;
	for (uint32_t i = 61; i < 200; i++)
		if (i != 128)
			k[n++] = i;
	check_jdk("tree bin split on resize", k, n,
		  "67,63,71,75,79,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,"
		  "27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50,51,52,53,54,55,"
		  "56,57,58,59,80,81,82,83,84,85,86,87,88,89,90,91,92,93,94,95,96,97,98,99,100,101,102,103,"
		  "104,105,106,107,108,109,110,111,112,113,114,115,116,117,118,119,120,121,122,123,124,125,"
		  "126,127,128,129,130,131,132,133,134,135,136,137,138,139,140,141,142,143,144,145,146,60,"
		  "64,68,72,76,147,148,149,150,151,152,153,154,155,156,157,158,159,160,161,162,163,164,165,"
		  "166,167,168,169,170,171,172,173,174,175,176,177,178,179,180,181,182,183,184,185,186,187,"
		  "188,189,190,191,192,193,194,195,196,197,198,199,200,201,202,203,204,205,206,207,208,209,"
		  "210,211,212,213,214,215,216,217,61,65,69,73,77,66,62,70,74,78,");
	/* keys whose high halves differ: 0xffffffff - j * 0x10000 and j << 16 */
	n = 0;
	for (uint32_t j = 0; j < 50; j++)
		k[n++] = 0xffffffffu - j * 65536u;
	for (uint32_t j = 0; j < 50; j++)
		k[n++] = j << 16;
	check_jdk("high halves spread into the low bits", k, n,
		  "0,50,1,51,2,52,3,53,4,54,5,55,6,56,7,57,8,58,9,59,10,60,11,61,12,62,13,63,14,64,15,65,"
		  "16,66,17,67,18,68,19,69,20,70,21,71,22,72,23,73,24,74,25,75,26,76,27,77,28,78,29,79,30,"
		  "80,31,81,32,82,33,83,34,84,35,85,36,86,37,87,38,88,39,89,40,90,41,91,42,92,43,93,44,94,"
		  "45,95,46,96,47,97,48,98,49,99,");
}

static void test_permutation(void)
{
	unsigned ok = 0, sets = 0;
	struct err e;

	T_SECTION("distinct key sets, spread and clustered: every index exactly once");
	err_init(&e);
	for (size_t n = 0; n <= MAX_KEYS; n += 37) {
		for (int clustered = 0; clustered < 2; clustered++) {
			uint32_t keys[MAX_KEYS];
			size_t order[MAX_KEYS];
			unsigned char seen[MAX_KEYS] = { 0 };
			bool perm = true;

			/* distinct: an odd multiplier is a bijection of 32-bit values; i << 9 shares
			 * the low bits, so the keys pile into few bins */
			for (size_t i = 0; i < n; i++)
				keys[i] = clustered ? (uint32_t)i << 9 : (uint32_t)i * 2654435761u;
			sets++;
			if (bmd_java_hashmap_order(keys, n, order, &e) != 0) {
				T_CHECK(0, "%zu keys: %s", n, e.msg);
				continue;
			}
			for (size_t i = 0; i < n; i++) {
				if (order[i] >= n || seen[order[i]])
					perm = false;
				else
					seen[order[i]] = 1;
			}
			ok += perm;
			T_CHECK(perm, "%zu keys (%s): not a permutation", n, clustered ? "clustered" : "spread");
		}
	}
	printf("   %u of %u sets (0 to %d keys) give a permutation\n", ok, sets, MAX_KEYS);
	{
		uint32_t one = 12345;
		size_t order[1] = { 99 };
		T_EQ_I(bmd_java_hashmap_order(&one, 1, order, &e), 0);
		T_EQ_U(order[0], 0);
		T_EQ_I(bmd_java_hashmap_order(NULL, 0, NULL, &e), 0);
	}
}

static void test_nomem(void)
{
	uint32_t keys[200];
	size_t order[200];
	struct err e;
	unsigned long calls, nomem = 0;

	T_SECTION("allocation failure: each allocation fails in turn");
	for (uint32_t i = 0; i < 200; i++)
		keys[i] = i * 64;       /* collisions: tree bins and resizes */
	err_init(&e);
	calls = xalloc_calls();
	T_EQ_I(bmd_java_hashmap_order(keys, 200, order, &e), 0);
	calls = xalloc_calls() - calls;
	printf("   200 keys: %lu allocations\n", calls);
	for (unsigned long k = 1; k <= calls; k++) {
		int rc;
		err_init(&e);
		xalloc_fail_after(k);
		rc = bmd_java_hashmap_order(keys, 200, order, &e);
		T_CHECK(xalloc_fail_pending() == 0, "allocation %lu made", k);
		xalloc_fail_after(0);
		nomem += rc == -ERR_NOMEM;
		T_CHECK(rc == -ERR_NOMEM && strstr(e.msg, "out of memory"), "allocation %lu: rc %d \"%s\"", k, rc, e.msg);
	}
	printf("   %lu of %lu failed allocations gave -ERR_NOMEM\n", nomem, calls);
}

int main(void)
{
	test_jdk_orders();
	test_permutation();
	test_nomem();
	T_DONE();
}
