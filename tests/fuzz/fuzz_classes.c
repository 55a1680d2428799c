/* fuzz_classes.c - class decoding (art/runtime/runtime*.c, art/mirror/mirror.c, art/runtime/spaces.c) over an image
 * built from the input: [u8 flags][u32le heap_len][u32le linear_len][heap][linear][DEX].
 * The heap is mapped at 0x12c00000 (named "non moving space" when flags bit 0 is set, else
 * unnamed and found by content), the linear part at 0x7f0000100000 (ArtField arrays), the
 * rest at 0x7f0000000000 as an in-memory extracted DEX.  Bit 1 forces --art-version 11.
 * Seeds: tests/tools/mkseeds_classes.c (generated heaps, tests/tools/heapgen.h). */
#include <stdint.h>
#include <string.h>

#include "art/runtime/runtime.h"
#include "carver/base/cursor.h"
#include "rosalloc/probe/probe.h"

enum { FUZZ_HEAP = 0x12c00000 };
#define FUZZ_DEX 0x7f0000000000ull
#define FUZZ_LINEAR 0x7f0000100000ull

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t walk(const struct art_runtime *rt)
{
	size_t n = 0;
	for (size_t i = 0; i < rt->class_count; i++) {
		const struct rt_class *k = &rt->classes[i];
		n += k->name ? strlen(k->name) : 0;
		for (uint32_t j = 0; j < k->field_count; j++)
			n += strlen(k->fields[j].name) + strlen(k->fields[j].type) + k->fields[j].offset;
	}
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct image img;
	struct art_runtime rt;
	struct runtime_opts o = { .probes = &probe_spaces };
	struct err e;

	if (size < 9)
		return 0;
	uint8_t flags = data[0];
	size_t rest = size - 9, heap = ld_u32le(data + 1), linear = ld_u32le(data + 5);
	if (heap > rest)
		heap = rest;
	if (linear > rest - heap)
		linear = rest - heap;
	size_t dex = rest - heap - linear;
	const uint8_t *p = data + 9;
	err_init(&e);
	img_init_empty(&img, "fuzz");
	if (heap && img_add_region_mem(&img, FUZZ_HEAP, p, heap, IMG_PROT_R | IMG_PROT_W,
				       flags & 1 ? "[anon:dalvik-non moving space]" : "", &e) != 0)
		goto out;
	if (linear && img_add_region_mem(&img, FUZZ_LINEAR, p + heap, linear < 65536 ? linear : 65536,
					 IMG_PROT_R | IMG_PROT_W, "[anon:dalvik-LinearAlloc]", &e) != 0)
		goto out;
	if (dex && img_add_region_mem(&img, FUZZ_DEX, p + heap + linear, dex, IMG_PROT_R,
				      "[anon:dalvik-classes.dex extracted in memory from /f.jar]", &e) != 0)
		goto out;
	if (flags & 2)
		o.art_version = "11";
	if (runtime_open(&rt, &img, &o, &e) == 0) {
		if (walk(&rt) == SIZE_MAX) /* keeps the walk; never true */
			e.code = ERR_INTERNAL;
		runtime_close(&rt);
	}
out:
	img_close(&img);
	return 0;
}
