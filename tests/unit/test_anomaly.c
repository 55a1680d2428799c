/* test_anomaly.c - the anomaly sink (carver/base/anomaly.h): recording, per-code counts,
 * the bound on kept records, the order they are kept in, allocation failure. */
#include <stdlib.h>

#include "carver/base/anomaly.h"
#include "carver/base/xalloc.h"
#include "t.h"

static void test_record(void)
{
	struct anomaly_sink s;
	struct err why;

	T_SECTION("records keep address, space, code, cause and message");
	anomaly_init(&s, 0);
	T_EQ_U(s.keep, ANOMALY_KEEP_DEFAULT);
	T_EQ_U(s.total, 0);
	anomaly_add(&s, ANOM_CLASS, ERR_UNMAPPED, 0x12c01230, "main space", "class at 0x%x: %s", 0x12c01230u,
		    "super_class_ not captured");
	err_init(&why);
	ERR_SET(&why, ERR_CORRUPT, 0x7000, "dex at 0x7000: string_ids beyond the file");
	anomaly_add_err(&s, ANOM_DEX, NULL, &why);
	T_EQ_U(s.total, 2);
	T_EQ_U(s.count, 2);
	T_EQ_U(s.v[0].code, ANOM_CLASS);
	T_EQ_U(s.v[0].cause, ERR_UNMAPPED);
	T_EQ_U(s.v[0].va, 0x12c01230);
	T_EQ_S(s.v[0].space, "main space");
	T_EQ_S(s.v[0].msg, "class at 0x12c01230: super_class_ not captured");
	T_EQ_U(s.v[1].code, ANOM_DEX);
	T_EQ_U(s.v[1].cause, ERR_CORRUPT);
	T_EQ_U(s.v[1].va, 0x7000);
	T_EQ_S(s.v[1].space, "");
	T_EQ_S(s.v[1].msg, why.msg);
	T_EQ_I(anomaly_status(&s, &why), 0);
	anomaly_release(&s);
	T_CHECK(s.v == NULL && s.count == 0, "released");
}

static void test_long_strings(void)
{
	struct anomaly_sink s;
	char space[300], msg[600];

	T_SECTION("long space names and messages are cut, NUL-terminated");
	memset(space, 's', sizeof(space) - 1);
	space[sizeof(space) - 1] = '\0';
	memset(msg, 'm', sizeof(msg) - 1);
	msg[sizeof(msg) - 1] = '\0';
	anomaly_init(&s, 4);
	anomaly_add(&s, ANOM_FIELDS, ERR_TRUNC, ERR_NO_VA, space, "%s", msg);
	T_EQ_U(strlen(s.v[0].space), ANOMALY_SPACE_MAX - 1);
	T_EQ_U(strlen(s.v[0].msg), ANOMALY_MSG_MAX - 1);
	anomaly_release(&s);
}

static void test_counts(void)
{
	static const enum anomaly_code seq[] = { ANOM_CLASS, ANOM_FIELDS, ANOM_CLASS, ANOM_OAT_METHOD, ANOM_CLASS };
	struct anomaly_sink s;

	T_SECTION("per-code counts");
	anomaly_init(&s, 2);
	for (size_t i = 0; i < sizeof(seq) / sizeof(seq[0]); i++)
		anomaly_add(&s, seq[i], ERR_CORRUPT, i, "space", "#%zu", i);
	T_EQ_U(s.total, 5);
	T_EQ_U(s.per_code[ANOM_CLASS], 3);
	T_EQ_U(s.per_code[ANOM_FIELDS], 1);
	T_EQ_U(s.per_code[ANOM_OAT_METHOD], 1);
	T_EQ_U(s.per_code[ANOM_DEX], 0);
	/* out-of-range codes are counted in the total only, and named "unknown" */
	anomaly_add(&s, ANOM_CODE_COUNT, ERR_CORRUPT, 0, NULL, "x");
	T_EQ_U(s.total, 6);
	T_EQ_S(anomaly_code_name(ANOM_CODE_COUNT), "unknown");
	T_EQ_S(anomaly_code_name(ANOM_OAT_METHOD), "oat_method");
	for (unsigned c = 0; c < ANOM_CODE_COUNT; c++)
		T_CHECK(strcmp(anomaly_code_name((enum anomaly_code)c), "unknown") != 0, "code %u has a name", c);
	anomaly_release(&s);
}

/* Records n anomalies with keep k; checks the first min(n, k) are kept, in order. */
static void check_bound(size_t keep, size_t n)
{
	struct anomaly_sink s;
	char want[32];
	size_t kept = n < keep ? n : keep;
	unsigned bad = 0;

	anomaly_init(&s, keep);
	for (size_t i = 0; i < n; i++)
		anomaly_add(&s, (enum anomaly_code)(i % ANOM_CODE_COUNT), ERR_CORRUPT, 0x1000 + 8 * i, "heap", "#%zu", i);
	T_EQ_U(s.total, n);
	T_EQ_U(s.count, kept);
	T_EQ_U(s.unstored, n - kept);
	T_CHECK(s.cap <= keep, "keep %zu: %zu slots allocated, at most keep", keep, s.cap);
	for (size_t i = 0; i < kept; i++) {
		snprintf(want, sizeof(want), "#%zu", i);
		bad += s.v[i].va != 0x1000 + 8 * i || strcmp(s.v[i].msg, want) != 0;
	}
	T_CHECK(bad == 0, "keep %zu, %zu recorded: %u kept records out of order", keep, n, bad);
	anomaly_release(&s);
}

static void test_bound(void)
{
	T_SECTION("the first `keep` records are kept, later ones only counted");
	check_bound(1, 1);
	check_bound(1, 5);
	check_bound(16, 16);
	check_bound(17, 100);
	check_bound(100, 17);
	check_bound(1000, 100000);
}

/* The same walk records the same anomalies in the same order. */
static void test_deterministic(void)
{
	struct anomaly_sink a, b;
	unsigned diff = 0;

	T_SECTION("deterministic order");
	anomaly_init(&a, 50);
	anomaly_init(&b, 50);
	for (unsigned i = 0; i < 200; i++) {
		anomaly_add(&a, (enum anomaly_code)(i * 7 % ANOM_CODE_COUNT), ERR_UNMAPPED, i * 0x10ull, "s", "%u", i);
		anomaly_add(&b, (enum anomaly_code)(i * 7 % ANOM_CODE_COUNT), ERR_UNMAPPED, i * 0x10ull, "s", "%u", i);
	}
	T_EQ_U(a.count, b.count);
	for (size_t i = 0; i < a.count && i < b.count; i++)
		diff += memcmp(&a.v[i], &b.v[i], sizeof(a.v[i])) != 0;
	T_CHECK(diff == 0, "%u records differ", diff);
	T_CHECK(!memcmp(a.per_code, b.per_code, sizeof(a.per_code)), "per-code counts equal");
	anomaly_release(&a);
	anomaly_release(&b);
}

static void test_nomem(void)
{
	struct anomaly_sink s;
	struct err e;

	T_SECTION("a record that cannot be stored is counted and reported as NOMEM");
	anomaly_init(&s, 100);
	anomaly_add(&s, ANOM_CLASS, ERR_CORRUPT, 1, NULL, "first");       /* 16 slots */
	for (unsigned i = 1; i < 16; i++)
		anomaly_add(&s, ANOM_CLASS, ERR_CORRUPT, 1, NULL, "fill");
	xalloc_fail_after(1);
	anomaly_add(&s, ANOM_FIELDS, ERR_CORRUPT, 2, NULL, "needs a bigger array");
	xalloc_fail_after(0);
	anomaly_add(&s, ANOM_FIELDS, ERR_CORRUPT, 3, NULL, "after the failure");
	T_EQ_U(s.total, 18);
	T_EQ_U(s.count, 16);
	T_EQ_U(s.per_code[ANOM_FIELDS], 2);
	T_EQ_U(s.unstored, 2);
	T_EQ_I(anomaly_status(&s, &e), -ERR_NOMEM);
	T_CHECK(strstr(e.msg, "18 recorded") != NULL, "%s", e.msg);
	anomaly_release(&s);
}

static void test_err_prefix_null(void)
{
	struct err e;

	T_SECTION("err_prefix accepts a NULL error like err_set");
	T_EQ_I(ERR_SET(NULL, ERR_CORRUPT, 0, "x"), -ERR_CORRUPT);
	T_CHECK(err_prefix(NULL, "context %d", 1) < 0, "a failure stays a failure");
	err_init(&e);
	ERR_SET(&e, ERR_TRUNC, 4, "short");
	T_EQ_I(err_prefix(&e, "file %s", "f"), -ERR_TRUNC);
	T_EQ_S(e.msg, "file f: short");
}

int main(void)
{
	test_record();
	test_long_strings();
	test_counts();
	test_bound();
	test_deterministic();
	test_nomem();
	test_err_prefix_null();
	T_DONE();
}
