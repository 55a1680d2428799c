/* test_mdebug.c - the malloc_debug scanner on heaps written here byte by byte (Header
 * layout of bionic libc/malloc_debug/malloc_debug.h; offsets of DebugData.cpp), its option
 * strings, and sweeps: every truncation of a heap and every byte of it changed must give a
 * result inside the buffer, never a crash (ASan build). */
#include <stdlib.h>
#include <string.h>

#include "carver/native/mdebug.h"
#include "t.h"

#define VA64 0x7a00000000ull

static void put_le(uint8_t *p, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* One 64-bit allocation with guard=32 at offset h of heap: header 32, front guard 32,
 * size bytes of text, rear guard 32.  Returns the offset past it (16-aligned). */
static size_t put_alloc64(uint8_t *heap, size_t h, uint32_t tag, uint64_t size, const char *text)
{
	size_t P = h + 32 + 32;
	put_le(heap + h, tag, 4);
	put_le(heap + h + 4, VA64 + h, 8);
	put_le(heap + h + 12, size, 8);
	put_le(heap + h + 20, size, 8);
	memset(heap + h + 32, 0xaa, 32);
	for (uint64_t i = 0; i < size; i++)
		heap[P + i] = tag == MDEBUG_FREE_TAG ? 0xef : (uint8_t)text[i % strlen(text)];
	memset(heap + P + size, 0xbb, 32);
	return (P + size + 32 + 15) / 16 * 16;
}

static size_t build_heap(uint8_t *heap, size_t cap)
{
	size_t h = 16;
	memset(heap, 0, cap);
	h = put_alloc64(heap, h, MDEBUG_TAG, 24, "password=hunter2;");
	h = put_alloc64(heap, h, MDEBUG_FREE_TAG, 40, "");
	h = put_alloc64(heap, h, MDEBUG_TAG, 5, "abcde");
	h = put_alloc64(heap, h, MDEBUG_TAG, 100, "0123456789");
	return h + 64;
}

static void test_heap(void)
{
	uint8_t heap[1024];
	size_t len = build_heap(heap, sizeof(heap));
	struct mdebug_result r;
	struct mdebug_scan_opts so = { NULL, 64 };
	struct err e;
	char opts[128];

	T_SECTION("a written heap");
	err_init(&e);
	/* an overflow of 3 bytes past the first allocation, an underflow of 1 before the third,
	 * a use-after-free write into the freed one */
	heap[16 + 64 + 24] = 'X';
	heap[16 + 64 + 25] = 'Y';
	heap[16 + 64 + 26] = 'Z';
	T_EQ_I(mdebug_scan_bytes(heap, len, VA64, &so, &r, &e), 0);
	mdebug_options_text(&r.options, opts, sizeof(opts));
	printf("  %zu allocations, options '%s'\n", r.count, opts);
	T_EQ_U(r.count, 4);
	T_EQ_S(opts, "guard=32 free_track");
	if (r.count == 4) {
		T_EQ_U(r.allocs[0].pointer, VA64 + 16 + 64);
		T_EQ_U(r.allocs[0].size, 24);
		T_EQ_U(r.allocs[0].rear_damaged, 3);
		T_EQ_U(r.allocs[0].damage_count, 3);
		T_EQ_I(r.damage[r.allocs[0].damage_first].offset, 24);
		T_EQ_U(r.damage[r.allocs[0].damage_first].found, 'X');
		T_EQ_U(r.damage[r.allocs[0].damage_first].expected, 0xbb);
		T_EQ_U(r.allocs[1].state, MDEBUG_FREED);
		T_EQ_U(r.allocs[1].fill_free_left, 40);
		T_CHECK(!memcmp(r.allocs[0].first, "password=hunter2;passwor", 24), "first bytes %.24s", r.allocs[0].first);
	}
	mdebug_result_free(&r);

	/* a write into the freed block's data (its header follows the first block, 16-aligned) */
	{
		size_t freed_p = (16 + 64 + 24 + 32 + 15) / 16 * 16 + 64;
		heap[freed_p + 7] = 0x41;
		T_EQ_I(mdebug_scan_bytes(heap, len, VA64, &so, &r, &e), 0);
		T_CHECK(r.count == 4 && r.allocs[1].uaf_bytes == 1, "use after free: %u",
			r.count == 4 ? r.allocs[1].uaf_bytes : 0);
		if (r.count == 4 && r.allocs[1].damage_count == 1) {
			T_EQ_I(r.damage[r.allocs[1].damage_first].offset, 7);
			T_EQ_U(r.damage[r.allocs[1].damage_first].kind, MDEBUG_USE_AFTER_FREE);
		}
		mdebug_result_free(&r);
	}
	/* a tag overwritten: still found as tag-corrupted (fields and guards fit) */
	put_le(heap + 16, 0x41414141, 4);
	T_EQ_I(mdebug_scan_bytes(heap, len, VA64, &so, &r, &e), 0);
	T_CHECK(r.count == 4 && r.allocs[0].state == MDEBUG_TAG_CORRUPT, "%zu allocations, first state %s", r.count,
		r.count ? mdebug_state_name(r.allocs[0].state) : "-");
	mdebug_result_free(&r);
}

static void test_sweeps(void)
{
	uint8_t heap[1024], *copy;
	size_t len = build_heap(heap, sizeof(heap));
	struct mdebug_scan_opts so = { NULL, 64 };
	struct mdebug_result r;
	struct err e;
	unsigned bad = 0, runs = 0;

	T_SECTION("truncation and corruption sweeps");
	err_init(&e);
	for (size_t n = 0; n <= len; n++) {
		copy = malloc(n ? n : 1);
		if (!copy)
			break;
		memcpy(copy, heap, n);
		runs++;
		if (mdebug_scan_bytes(copy, n, VA64, &so, &r, &e) != 0 || r.count > 4)
			bad++;
		for (size_t i = 0; i < r.count; i++)
			if (r.allocs[i].header < VA64 || r.allocs[i].header >= VA64 + n)
				bad++;
		mdebug_result_free(&r);
		free(copy);
	}
	for (size_t at = 0; at < len; at++)
		for (unsigned v = 0; v < 4; v++) {
			static const uint8_t vals[4] = { 0x00, 0xff, 0xaa, 0x80 };
			{
				uint8_t keep = heap[at];
				heap[at] = vals[v];
				runs++;
				if (mdebug_scan_bytes(heap, len, VA64, &so, &r, &e) != 0)
					bad++;
				for (size_t i = 0; i < r.count; i++)
					if (r.allocs[i].damage_first + r.allocs[i].damage_count > r.ndamage)
						bad++;
				mdebug_result_free(&r);
				heap[at] = keep;
			}
		}
	printf("  %u scans of cut or changed heaps, %u bad\n", runs, bad);
	T_CHECK(bad == 0 && runs > len, "%u bad of %u", bad, runs);
}

static void test_options(void)
{
	struct mdebug_options o;
	struct err e;
	char t[128];

	T_SECTION("option strings");
	err_init(&e);
	T_EQ_I(mdebug_parse_options("guard=64 backtrace", &o, &e), 0);
	T_EQ_U(o.front_guard, 64);
	T_EQ_U(o.rear_guard, 64);
	T_EQ_U(o.backtrace, 16);
	mdebug_options_text(&o, t, sizeof(t));
	T_EQ_S(t, "guard=64 backtrace=16");
	T_EQ_I(mdebug_parse_options("front_guard=8,free_track=10 verbose", &o, &e), 0);
	T_CHECK(o.front_guard == 8 && o.rear_guard == 0 && o.free_track && o.fill_free && !o.fill_alloc, "parsed");
	mdebug_options_text(&o, t, sizeof(t));
	T_EQ_S(t, "front_guard=8 free_track");
	T_EQ_I(mdebug_parse_options("fill", &o, &e), 0);
	T_CHECK(o.fill_alloc && o.fill_free, "fill is both");
	T_EQ_I(mdebug_parse_options("", &o, &e), 0);
	mdebug_options_text(&o, t, sizeof(t));
	T_EQ_S(t, "none");
	T_EQ_I(mdebug_parse_options("guard=0", &o, &e), -ERR_USAGE);
	T_EQ_I(mdebug_parse_options("backtrace=257", &o, &e), -ERR_USAGE);
	T_EQ_I(mdebug_parse_options("guard=1x", &o, &e), -ERR_USAGE);
	T_EQ_I(mdebug_parse_options("guard=", &o, &e), -ERR_USAGE);
	T_EQ_I(mdebug_parse_options("nonsense", &o, &e), -ERR_USAGE);
	T_CHECK(strstr(e.msg, "nonsense") != NULL, "%s", e.msg);
}

int main(void)
{
	test_heap();
	test_sweeps();
	test_options();
	T_DONE();
}
