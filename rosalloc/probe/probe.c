/* probe.c - allocator metadata probes (see probe.h). */
#include "rosalloc/probe/probe.h"

#include "carver/base/cursor.h"

enum {
	PROBE_BRACKETS = 42,    /* RosAlloc::kNumOfSizeBrackets @ 7.0-14 (34 before: a bound either way) */
	PROBE_RUN_MAGIC = 42,   /* RosAlloc::Run::kMagicNum, debug builds only */
};

/* page map values (runtime/gc/allocator/rosalloc.h enum PageMapKind, identical 5.0-14) */
enum { PM_RELEASED, PM_EMPTY, PM_RUN, PM_RUN_PART, PM_LARGE, PM_LARGE_PART, PM_MAX = PM_LARGE_PART };

/* AllocationInfo flags (runtime/gc/space/large_object_space.cc @ 6.0-14; 5.x free flag
 * 0x08000000) */
#define LOS_FLAG_FREE 0x80000000u
#define LOS_FLAG_ZYGOTE 0x40000000u
#define LOS_FLAG_FREE_5X 0x08000000u

const struct space_probes probe_spaces = {
	.page_map = probe_page_map,
	.page_map_one_word = probe_page_map_one_word,
	.page_start = probe_page_start,
	.run_header = probe_run_header,
	.dlmalloc = probe_dlmalloc,
	.los_info = probe_los_info,
};

/* The number of zero bytes from p (at most n), 8 at a time: a page map and its free tail are
 * mostly zero (PM_RELEASED pages), and a whole-process image holds many such candidates. */
static size_t zero_run(const uint8_t *p, size_t n)
{
	size_t i = 0;
	while (n - i >= 8 && ld_u64le(p + i) == 0)
		i += 8;
	while (i < n && !p[i])
		i++;
	return i;
}

static bool all_zero(const uint8_t *p, size_t n) { return zero_run(p, n) == n; }

/* Byte i of a page map is a PageMapKind that may follow byte i - 1 (any byte may follow a
 * byte of the damaged word, which is wild). */
static bool pm_byte_ok(const uint8_t *p, size_t i, bool after_wild)
{
	uint8_t v = p[i];
	if (v > PM_MAX)
		return false;
	if (after_wild || (v != PM_RUN_PART && v != PM_LARGE_PART))
		return true;
	if (i == 0)
		return false;
	return v == PM_RUN_PART ? p[i - 1] == PM_RUN || p[i - 1] == PM_RUN_PART
				: p[i - 1] == PM_LARGE || p[i - 1] == PM_LARGE_PART;
}

/* The page-map check with at most damaged_words (0 or 1) aligned 4-byte words breaking it. */
static bool page_map_check(const uint8_t *p, size_t n, unsigned damaged_words, size_t *used_pages)
{
	size_t used = 0, bad_word = SIZE_MAX;
	for (size_t i = 0; i < n; i++) {
		if (!p[i]) {   /* PM_RELEASED may follow anything and changes nothing */
			i += zero_run(p + i, n - i) - 1;
			continue;
		}
		bool after_wild = i > 0 && (i - 1) / 4 == bad_word;
		if (!pm_byte_ok(p, i, after_wild) && i / 4 != bad_word) {
			if (!damaged_words || bad_word != SIZE_MAX)
				return false;
			bad_word = i / 4;
		}
		if (p[i] >= PM_RUN && p[i] <= PM_MAX)
			used = i + 1;
	}
	*used_pages = used;
	return true;
}

bool probe_page_map(const uint8_t *p, size_t n, size_t *used_pages)
{
	return page_map_check(p, n, 0, used_pages);
}

bool probe_page_map_one_word(const uint8_t *p, size_t n, size_t *used_pages)
{
	return page_map_check(p, n, 1, used_pages);
}

enum space_page_start probe_page_start(uint8_t v)
{
	return v == PM_RUN ? SPACE_PAGE_RUN : v == PM_LARGE ? SPACE_PAGE_LARGE : SPACE_PAGE_OTHER;
}

bool probe_run_header(const uint8_t *p, size_t n)
{
	/* Run: magic_num_, size_bracket_idx_, is_thread_local_, to_be_bulk_freed_
	 * (runtime/gc/allocator/rosalloc.h @ 5.0-14) */
	return n >= 4 && (p[0] == 0 || p[0] == PROBE_RUN_MAGIC) && p[1] < PROBE_BRACKETS && p[2] <= 1 && p[3] <= 1;
}

bool probe_dlmalloc(const uint8_t *p, size_t n, uint64_t base, unsigned ps)
{
	/* create_mspace_with_base: chunk header (2 words), then malloc_state {u32 smallmap,
	 * u32 treemap, size_t dvsize, topsize, char *least_addr, dv, top, ...}
	 * (external/dlmalloc/malloc.c) */
	if (ps != 4 && ps != 8)
		return probe_dlmalloc(p, n, base, 4) || probe_dlmalloc(p, n, base, 8);
	size_t state = 2 * (size_t)ps, least = state + 8 + 2 * (size_t)ps, top = least + 2 * (size_t)ps;
	if (n < top + ps)
		return false;
	uint64_t least_addr = ps == 8 ? ld_u64le(p + least) : ld_u32le(p + least);
	uint64_t top_addr = ps == 8 ? ld_u64le(p + top) : ld_u32le(p + top);
	return least_addr == base && top_addr > base && top_addr - base < n;
}

bool probe_los_info(const uint8_t *p, size_t n, size_t space_pages)
{
	/* AllocationInfo {u32 prev_free_, u32 alloc_size_ | flags} per page */
	size_t i = 0, steps = 0;
	if (space_pages == 0 || n / 8 < space_pages)
		return false;
	while (i < space_pages) {
		uint32_t v = ld_u32le(p + 8 * i + 4);
		uint32_t pages = v & ~(LOS_FLAG_FREE | LOS_FLAG_ZYGOTE | LOS_FLAG_FREE_5X);
		if (pages == 0) /* the untracked free tail (FreeListSpace::free_end_) is all zero */
			return steps > 0 && all_zero(p + 8 * i, 8 * (space_pages - i));
		if (pages > space_pages - i)
			return false;
		i += pages;
		steps++;
	}
	return steps > 0;
}
