/* test_probe.c - the allocator content probes of rosalloc/probe/probe.c on hand-made buffers:
 * RosAlloc page map and run header, dlmalloc mspace header, LOS allocation-info map. */
#include <string.h>

#include "rosalloc/probe/probe.h"
#include "tests/unit/t.h"

static void test_probes(void)
{
	uint8_t pm[16] = { 2, 3, 3, 1, 4, 5, 5, 0, 2, 0 };
	size_t used;
	T_SECTION("page map");
	T_CHECK(probe_page_map(pm, sizeof(pm), &used), "valid page map rejected");
	T_EQ_U(used, 9);
	pm[3] = 3; /* run part after a run part is fine */
	T_CHECK(probe_page_map(pm, sizeof(pm), &used), "run parts");
	pm[10] = 3; /* run part after a free page */
	T_CHECK(!probe_page_map(pm, sizeof(pm), &used), "orphan run part accepted");
	pm[10] = 0;
	pm[7] = 3; /* run part after a large-object part */
	T_CHECK(!probe_page_map(pm, sizeof(pm), &used), "run part after a large object accepted");
	pm[7] = 0;
	pm[10] = 5;
	T_CHECK(!probe_page_map(pm, sizeof(pm), &used), "orphan large part accepted");
	pm[10] = 6;
	T_CHECK(!probe_page_map(pm, sizeof(pm), &used), "value 6 accepted");
	pm[0] = 3;
	pm[10] = 0;
	T_CHECK(!probe_page_map(pm, sizeof(pm), &used), "part at index 0 accepted");

	T_SECTION("page map with one damaged word");
	uint8_t dm[16] = { 2, 3, 3, 3, 2, 3, 3, 3, 2, 3, 3, 3, 4, 5, 0, 0 };
	memset(dm + 4, 0xff, 4);   /* a run's header page and its parts: one word of 0xff */
	T_CHECK(!probe_page_map(dm, sizeof(dm), &used), "strict probe accepted a damaged word");
	T_CHECK(probe_page_map_one_word(dm, sizeof(dm), &used), "one damaged word refuted the page map");
	T_EQ_U(used, 14);
	memset(dm + 4, 0, 4);      /* a run zeroed in the map (valid bytes) whose next run's */
	dm[8] = 3;                 /* start byte is damaged: the orphan parts 8..11 are one word */
	T_CHECK(probe_page_map_one_word(dm, sizeof(dm), &used), "orphan parts in one word refuted the map");
	dm[14] = 7;                /* and a second damaged word */
	T_CHECK(!probe_page_map_one_word(dm, sizeof(dm), &used), "two damaged words accepted");

	T_SECTION("dlmalloc");
	uint8_t ms[128] = { 0 };
	const uint64_t base = 0x40000000;
	/* 64-bit: least_addr at 16 + 8 + 16 = 40, top at 56 */
	for (int i = 0; i < 8; i++) {
		ms[40 + i] = (uint8_t)(base >> (8 * i));
		ms[56 + i] = (uint8_t)((base + 0x60) >> (8 * i));
	}
	T_CHECK(probe_dlmalloc(ms, sizeof(ms), base, 8), "64-bit mspace rejected");
	T_CHECK(probe_dlmalloc(ms, sizeof(ms), base, 0), "mspace of unknown width rejected");
	T_CHECK(!probe_dlmalloc(ms, sizeof(ms), base + 8, 8), "wrong base accepted");
	T_CHECK(!probe_dlmalloc(ms, 40, base, 8), "short buffer accepted");
	memset(ms, 0, sizeof(ms));
	/* 32-bit: least_addr at 8 + 8 + 8 = 24, top at 32 */
	for (int i = 0; i < 4; i++) {
		ms[24 + i] = (uint8_t)(base >> (8 * i));
		ms[32 + i] = (uint8_t)((base + 0x30) >> (8 * i));
	}
	T_CHECK(probe_dlmalloc(ms, sizeof(ms), base, 4), "32-bit mspace rejected");
	T_CHECK(!probe_dlmalloc(ms, sizeof(ms), base, 8), "32-bit mspace read as 64-bit");

	T_SECTION("LOS allocation-info map");
	uint8_t info[8 * 8] = { 0 };
	info[4] = 3;                      /* pages 0-2 allocated */
	info[3 * 8 + 4] = 5;              /* pages 3-7 free */
	info[3 * 8 + 7] = 0x80;
	T_CHECK(probe_los_info(info, sizeof(info), 8), "valid chain rejected");
	T_CHECK(!probe_los_info(info, sizeof(info), 7), "chain past the space accepted");
	T_CHECK(!probe_los_info(info, 8, 8), "short map accepted");
	memset(info + 3 * 8, 0, 8);       /* free tail not tracked */
	T_CHECK(probe_los_info(info, sizeof(info), 8), "zero free tail rejected");
	info[6 * 8] = 1;                  /* garbage in the tail */
	T_CHECK(!probe_los_info(info, sizeof(info), 8), "non-zero tail accepted");
	memset(info, 0, sizeof(info));
	T_CHECK(!probe_los_info(info, sizeof(info), 8), "all-zero map accepted");
}

static void test_run_pages(void)
{
	uint8_t h[4] = { 0, 5, 0, 0 };
	T_SECTION("page starts and run headers");
	T_CHECK(probe_page_start(2) == SPACE_PAGE_RUN, "kPageMapRun");
	T_CHECK(probe_page_start(4) == SPACE_PAGE_LARGE, "kPageMapLargeObject");
	for (uint8_t v = 0; v < 8; v++)
		if (v != 2 && v != 4)
			T_CHECK(probe_page_start(v) == SPACE_PAGE_OTHER, "page-map byte %u starts nothing", v);
	T_CHECK(probe_run_header(h, sizeof(h)), "release run header rejected");
	h[0] = 42, h[2] = 1, h[3] = 1;
	T_CHECK(probe_run_header(h, sizeof(h)), "debug thread-local run header rejected");
	T_CHECK(!probe_run_header(h, 3), "short run header accepted");
	h[0] = 7;
	T_CHECK(!probe_run_header(h, sizeof(h)), "bad magic accepted");
	h[0] = 0, h[1] = 42;
	T_CHECK(!probe_run_header(h, sizeof(h)), "bracket 42 accepted");
	h[1] = 41, h[2] = 2;
	T_CHECK(!probe_run_header(h, sizeof(h)), "is_thread_local 2 accepted");
	h[2] = 0, h[3] = 2;
	T_CHECK(!probe_run_header(h, sizeof(h)), "to_be_bulk_freed 2 accepted");
	T_CHECK(probe_spaces.page_map == probe_page_map && probe_spaces.page_start == probe_page_start &&
			probe_spaces.run_header == probe_run_header && probe_spaces.dlmalloc == probe_dlmalloc &&
			probe_spaces.los_info == probe_los_info,
		"probe_spaces holds the probes of this file");
}

int main(void)
{
	test_probes();
	test_run_pages();
	T_DONE();
}
