/* test_art_version.c - the version matcher: lists and ranges, unknown, ambiguous, cut-short
 * and malformed version strings, and every version table of the decoders checked for rows
 * that overlap. */
#include "art/code/oat_code.h"
#include "art/format/art_layout.h"
#include "art/format/art_version.h"
#include "art/format/dex.h"
#include "art/format/oat.h"
#include "art/format/vdex.h"
#include "t.h"

struct list_row { const char *versions; const char *name; };
struct range_row { unsigned lo, hi; const char *name; };

static const struct list_row good_rows[] = {
	{ "035,037-040", "old" }, { "041", "v41" }, { "043,044", "eight-oh" }, { "046", "eight-one" },
};
static const struct list_row clash_rows[] = { { "043,044", "first" }, { "044-046", "second" } };
static const struct range_row ranges[] = { { 39, 45, "a" }, { 46, 72, "b" }, { 72, 80, "c" } };

static const struct art_version_table good =
	ART_VERSION_LIST_TABLE("test", struct list_row, good_rows, 4, versions, offsetof(struct list_row, name));
static const struct art_version_table clash =
	ART_VERSION_LIST_TABLE("test", struct list_row, clash_rows, 2, versions, offsetof(struct list_row, name));
static const struct art_version_table range =
	ART_VERSION_RANGE_TABLE("test", struct range_row, ranges, 3, lo, hi, offsetof(struct range_row, name));

/* match on the bytes s[0..n) (the version string starts at offset 4, after a magic) */
static int match(const struct art_version_table *t, const char *s, size_t n, unsigned *v, size_t *row, struct err *e)
{
	struct cursor c;

	cur_init(&c, (const uint8_t *)s, n, 0x100);
	return art_version_match(t, &c, 4, v, row, e);
}

static void test_lists(void)
{
	struct err e;
	size_t row = 99;

	T_SECTION("lists and ranges");
	err_init(&e);
	T_EQ_I(art_version_row_of(&good, 35), 0);
	T_EQ_I(art_version_row_of(&good, 36), ART_VERSION_NO_ROW);
	T_EQ_I(art_version_row_of(&good, 38), 0);
	T_EQ_I(art_version_row_of(&good, 41), 1);
	T_EQ_I(art_version_row_of(&good, 44), 2);
	T_EQ_I(art_version_row_of(&good, 45), ART_VERSION_NO_ROW);
	T_EQ_I(art_version_row_of(&range, 39), 0);
	T_EQ_I(art_version_row_of(&range, 71), 1);
	T_EQ_I(art_version_row_of(&range, 80), 2);
	T_EQ_I(art_version_row_of(&range, 81), ART_VERSION_NO_ROW);
	T_EQ_I(art_version_find(&good, 40, 4, &row, &e), 0);
	T_EQ_U(row, 0);
	T_EQ_I(art_version_find(&good, 42, 4, &row, &e), -ERR_UNSUP);
	T_CHECK(strstr(e.msg, "unsupported version 042") && strstr(e.msg, "035,037-040 041 043,044 046"), "%s", e.msg);
	T_EQ_I(art_version_find(&range, 99, 4, &row, &e), -ERR_UNSUP);
	T_CHECK(strstr(e.msg, "039-045 046-072 072-080") != NULL, "%s", e.msg);

	T_SECTION("two rows holding a version: an error naming both, never the first");
	T_EQ_I(art_version_row_of(&clash, 44), ART_VERSION_AMBIGUOUS);
	T_EQ_I(art_version_row_of(&clash, 43), 0);
	T_EQ_I(art_version_row_of(&clash, 45), 1);
	T_EQ_I(art_version_find(&clash, 44, 4, &row, &e), -ERR_UNSUP);
	T_CHECK(strstr(e.msg, "ambiguous") && strstr(e.msg, "first") && strstr(e.msg, "second"), "%s", e.msg);
	T_EQ_I(art_version_row_of(&range, 72), ART_VERSION_AMBIGUOUS);
	T_EQ_I(art_version_find(&range, 72, 4, &row, &e), -ERR_UNSUP);
	T_CHECK(strstr(e.msg, "(b and c)") != NULL, "%s", e.msg);

	T_SECTION("list syntax");
	T_CHECK(art_version_list_valid("085,086"), "085,086");
	T_CHECK(art_version_list_valid("039-045"), "039-045");
	T_CHECK(art_version_list_valid("035,037-040"), "035,037-040");
	T_CHECK(!art_version_list_valid(""), "empty");
	T_CHECK(!art_version_list_valid(NULL), "NULL");
	T_CHECK(!art_version_list_valid("85"), "two digits");
	T_CHECK(!art_version_list_valid("085,"), "trailing comma");
	T_CHECK(!art_version_list_valid("045-039"), "reversed range");
	T_CHECK(!art_version_list_valid("085;086"), "bad separator");
}

static void test_strings(void)
{
	struct err e;
	unsigned v = 0;
	size_t row = 99;

	T_SECTION("version strings");
	err_init(&e);
	T_EQ_I(match(&good, "dex\n037", 8, &v, &row, &e), 0);
	T_EQ_U(v, 37);
	T_EQ_U(row, 0);
	T_EQ_I(match(&good, "dex\n046\0tail", 12, &v, &row, &e), 0);
	T_EQ_U(row, 3);
	T_EQ_I(match(&good, "dex\n042", 8, &v, &row, &e), -ERR_UNSUP);
	T_EQ_U(e.va, 0x104);
	T_EQ_I(match(&clash, "dex\n044", 8, &v, &row, &e), -ERR_UNSUP);
	T_CHECK(strstr(e.msg, "ambiguous") != NULL, "%s", e.msg);

	/* not digits and a NUL */
	T_EQ_I(match(&good, "dex\n04x", 8, &v, &row, &e), -ERR_CORRUPT);
	T_EQ_I(match(&good, "dex\n0410", 8, &v, &row, &e), -ERR_CORRUPT);
	T_EQ_I(match(&good, "dex\n 41", 8, &v, &row, &e), -ERR_CORRUPT);
	T_CHECK(strstr(e.msg, "20 34 31 00") != NULL, "bytes shown: %s", e.msg);

	/* cut short: an error even when the digits fit one row; the message counts the rows */
	T_EQ_I(match(&good, "dex\n04", 6, &v, &row, &e), -ERR_TRUNC);
	T_CHECK(strstr(e.msg, "fits 4 rows: ambiguous") != NULL, "%s", e.msg);
	T_EQ_I(match(&good, "dex\n03", 6, &v, &row, &e), -ERR_TRUNC);
	T_CHECK(strstr(e.msg, "fits old only; not guessed") != NULL, "%s", e.msg);
	T_EQ_I(match(&good, "dex\n041", 7, &v, &row, &e), -ERR_TRUNC);
	T_CHECK(strstr(e.msg, "fits v41 only") != NULL, "%s", e.msg);
	T_EQ_I(match(&good, "dex\n05", 6, &v, &row, &e), -ERR_TRUNC);
	T_CHECK(strstr(e.msg, "fits 0 rows") != NULL, "%s", e.msg);
	T_EQ_I(match(&good, "dex\n", 4, &v, &row, &e), -ERR_TRUNC);
	T_EQ_I(match(&good, "de", 2, &v, &row, &e), -ERR_TRUNC);
	T_EQ_I(match(&range, "oat\n07", 6, &v, &row, &e), -ERR_TRUNC);
	T_CHECK(strstr(e.msg, "fits 2 rows: ambiguous") != NULL, "%s", e.msg);
}

/* Every table of the decoders: well-formed lists, no version in two rows, and the
 * versions the decoders name in their comments present. */
static void check_table(const struct art_version_table *t, unsigned must_have)
{
	unsigned held = 0;

	for (size_t i = 0; t->list_at != ART_VERSION_NONE && i < t->count; i++) {
		const char *list;
		memcpy(&list, (const char *)art_version_row(t, i) + t->list_at, sizeof(list));
		T_CHECK(art_version_list_valid(list), "%s row %zu list \"%s\"", t->what, i, list);
	}
	for (unsigned v = 0; v <= 999; v++) {
		long r = art_version_row_of(t, v);
		T_CHECK(r != ART_VERSION_AMBIGUOUS, "%s version %03u is in two rows", t->what, v);
		held += r >= 0;
	}
	T_CHECK(art_version_row_of(t, must_have) >= 0, "%s: %03u has no row", t->what, must_have);
	printf("   %s: %zu rows hold %u versions\n", t->what, t->count, held);
}

static void test_tables(void)
{
	T_SECTION("the decoders' tables");
	check_table(&art_image_versions, 85);
	check_table(&art_layout_oat_versions, 183);
	check_table(&oat_versions, 239);
	check_table(&oat_code_versions, 194);
	check_table(&vdex_versions, 27);
	check_table(&vdex_dex_section_versions, 2);
	check_table(&dex_versions, 39);
	check_table(&cdex_versions, 1);
	/* the rows of the mirror layouts are the image rows of their families */
	for (size_t i = 0; i < art_layout_count; i++) {
		const struct art_layout *l = &art_layouts[i];
		const struct art_layout *owner = art_layout_for_image(l->image);
		T_CHECK(l->image && owner && !strcmp(l->image->family, owner->family) &&
				(owner == l || art_layout_image_shared(l)),
			"family %s: image row %s", l->family, l->image ? l->image->family : "(none)");
		/* an image row shared by several families (108) maps back to the newest; the others
		 * through their OAT versions */
		const struct art_layout *back = art_layout_for_image(l->image);
		T_CHECK(back == l || (art_layout_image_shared(l) && back && back->oat_version_max > l->oat_version_max),
			"family %s: image row maps back", l->family);
	}
}

int main(void)
{
	test_lists();
	test_strings();
	test_tables();
	T_DONE();
}
