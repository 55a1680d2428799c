/* test_hprof_mark.c - the state-mark class names of a carved HPROF (output/hprof/hprof_mark.c). */
#include "t.h"
#include "output/hprof/hprof_mark.h"

static int of(const char *s)
{
	return hprof_mark_of_class(s, strlen(s));
}

int main(void)
{
	T_SECTION("names");
	T_EQ_S(hprof_mark_class(HPROF_MARK_FREE), "artcarve.mark.Free[]");
	T_EQ_S(hprof_mark_class(HPROF_MARK_UNREACHABLE), "artcarve.mark.Unreachable[]");
	T_EQ_S(hprof_mark_state(HPROF_MARK_RESIDUE), "residue");
	T_EQ_S(hprof_mark_state(HPROF_MARK_UNKNOWN), "unknown");
	T_CHECK(hprof_mark_class(HPROF_MARK_COUNT) == NULL, "out of range");
	T_CHECK(hprof_mark_state((enum hprof_mark)-1) == NULL, "negative");
	T_EQ_U(hprof_mark_dim(HPROF_MARK_FREE), HPROF_MARK_DIM_ALLOC);
	T_EQ_U(hprof_mark_dim(HPROF_MARK_PARTIAL), HPROF_MARK_DIM_CONTENT);
	T_EQ_U(hprof_mark_dim(HPROF_MARK_RESIDUE), HPROF_MARK_DIM_CONTENT);
	T_EQ_U(hprof_mark_dim(HPROF_MARK_UNKNOWN), HPROF_MARK_DIM_REACH);

	T_SECTION("recognition, both name forms, round trip");
	for (int m = 0; m < HPROF_MARK_COUNT; m++)
		T_EQ_I(of(hprof_mark_class((enum hprof_mark)m)), m);
	T_EQ_I(of("[Lartcarve/mark/Partial;"), HPROF_MARK_PARTIAL);
	T_EQ_I(of("[Lartcarve/mark/Unreachable;"), HPROF_MARK_UNREACHABLE);
	T_EQ_I(of("artcarve.mark.Free"), -1);           /* the element class is no mark array */
	T_EQ_I(of("artcarve.mark.Free[][]"), -1);
	T_EQ_I(of("artcarve.mark.Free["), -1);
	T_EQ_I(of("java.lang.Object[]"), -1);
	T_EQ_I(of(""), -1);
	T_EQ_I(hprof_mark_of_class(NULL, 3), -1);
	T_EQ_I(hprof_mark_of_class("artcarve.mark.Free[]xyz", 20), HPROF_MARK_FREE);   /* length-bounded */

	T_SECTION("record classes: AddressAlias and WalkGap, both name forms, no mark arrays");
	T_EQ_S(hprof_mark_gap_class(), "artcarve.mark.WalkGap");
	T_EQ_S(hprof_mark_gap_fields[0], "gapStart");
	T_EQ_S(hprof_mark_gap_fields[2], "spaceEnd");
	T_CHECK(hprof_mark_is_gap_class("artcarve.mark.WalkGap", 21), "Java form");
	T_CHECK(hprof_mark_is_gap_class("artcarve/mark/WalkGap", 21), "JVM form");
	T_CHECK(!hprof_mark_is_gap_class("artcarve.mark.WalkGap[]", 23), "its array class is no gap class");
	T_CHECK(!hprof_mark_is_gap_class("artcarve.mark.WalkGap", 20), "length-bounded");
	T_CHECK(!hprof_mark_is_gap_class(NULL, 3), "NULL");
	T_CHECK(!hprof_mark_is_alias_class("artcarve.mark.WalkGap", 21), "not an alias class");
	T_EQ_I(of("artcarve.mark.WalkGap"), -1);
	T_CHECK(hprof_mark_is_alias_class(hprof_mark_alias_class(), strlen(hprof_mark_alias_class())), "alias");
	T_DONE();
}
