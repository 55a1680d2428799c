/* hprof_mark.c - names of the state-mark classes of a carved HPROF (see hprof_mark.h). */
#include <string.h>

#include "output/hprof/hprof_mark.h"

static const struct {
	const char *java;       /* array class, Java form */
	const char *jvm;        /* the same in JVM form */
	const char *state;
	enum hprof_mark_dim dim;
} mark_names[HPROF_MARK_COUNT] = {
	[HPROF_MARK_FREE] = { "artcarve.mark.Free[]", "[Lartcarve/mark/Free;", "free", HPROF_MARK_DIM_ALLOC },
	[HPROF_MARK_PARTIAL] = { "artcarve.mark.Partial[]", "[Lartcarve/mark/Partial;", "partial",
				 HPROF_MARK_DIM_CONTENT },
	[HPROF_MARK_RESIDUE] = { "artcarve.mark.Residue[]", "[Lartcarve/mark/Residue;", "residue",
				 HPROF_MARK_DIM_CONTENT },
	[HPROF_MARK_UNREACHABLE] = { "artcarve.mark.Unreachable[]", "[Lartcarve/mark/Unreachable;",
				     "unreachable", HPROF_MARK_DIM_REACH },
	[HPROF_MARK_UNKNOWN] = { "artcarve.mark.Unknown[]", "[Lartcarve/mark/Unknown;", "unknown",
				 HPROF_MARK_DIM_REACH },
};

const char *hprof_mark_class(enum hprof_mark m)
{
	return (unsigned)m < HPROF_MARK_COUNT ? mark_names[m].java : NULL;
}

const char *hprof_mark_state(enum hprof_mark m)
{
	return (unsigned)m < HPROF_MARK_COUNT ? mark_names[m].state : NULL;
}

enum hprof_mark_dim hprof_mark_dim(enum hprof_mark m)
{
	return (unsigned)m < HPROF_MARK_COUNT ? mark_names[m].dim : HPROF_MARK_DIM_ALLOC;
}

static int mark_name_eq(const char *name, size_t len, const char *want)
{
	return strlen(want) == len && !memcmp(name, want, len);
}

int hprof_mark_of_class(const char *name, size_t len)
{
	if (!name)
		return -1;
	for (int m = 0; m < HPROF_MARK_COUNT; m++)
		if (mark_name_eq(name, len, mark_names[m].java) || mark_name_eq(name, len, mark_names[m].jvm))
			return m;
	return -1;
}

const char *const hprof_mark_alias_fields[3] = { "idBase", "addressBase", "length" };

const char *hprof_mark_alias_class(void)
{
	return "artcarve.mark.AddressAlias";
}

bool hprof_mark_is_alias_class(const char *name, size_t len)
{
	return name && (mark_name_eq(name, len, "artcarve.mark.AddressAlias") ||
			mark_name_eq(name, len, "artcarve/mark/AddressAlias"));
}

const char *const hprof_mark_gap_fields[3] = { "gapStart", "gapEnd", "spaceEnd" };

const char *hprof_mark_gap_class(void)
{
	return "artcarve.mark.WalkGap";
}

bool hprof_mark_is_gap_class(const char *name, size_t len)
{
	return name && (mark_name_eq(name, len, "artcarve.mark.WalkGap") ||
			mark_name_eq(name, len, "artcarve/mark/WalkGap"));
}
