/* fuzz_model.c - the object model, reachability, the referrer index and the writers of the
 * carved heap (rosalloc/model, output/hprof/hprof_carve.c, output/report: report.html,
 * output/decode: the object decoder,
 * output/export: objects.jsonl, strings.tsv and the string residue scan, written to
 * /dev/null) over a heap built from the input:
 * [u8 flags][object bytes].  The fixture's classes (tests/fuzz/model_fixture.h) sit at
 * 0x12c00000; the object bytes replace the objects area from 0x12c01000.  Every 8-aligned
 * address there is a candidate (allocated, or free when bit 0 of its lock word is set); room =
 * the bytes left, or 64 << (flags >> 4 & 3) when flags bit 2 is set; flags bit 3 marks the
 * leading 8 bytes of free candidates overwritten.  Flags bit 0 maps the first 4 KiB of the
 * object bytes as an `indirect ref table`, bit 1 as a `[stack]`; bit 7 renames Msg to
 * java.util.ArrayList (text -> elementData, id -> size) for the decoder's container walk.
 * Every object also goes through the decoder (output/decode: JSON, text, entries).
 * Seeds: tests/tools/mkseeds_model.c. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "carver/base/cursor.h"
#include "output/decode/decode.h"
#include "output/export/objects_jsonl.h"
#include "output/export/strings_find.h"
#include "output/export/strings_tsv.h"
#include "output/hprof/hprof_carve.h"
#include "output/report/report.h"
#include "rosalloc/model/model.h"
#include "rosalloc/model/reach.h"
#include "rosalloc/model/referrers.h"
#include "tests/fuzz/model_fixture.h"

#define FUZZ_IRT 0x7f0000000000ull
#define FUZZ_STACK 0x7ffff0000000ull

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int count_ref(void *arg, uint32_t off, uint32_t value)
{
	*(uint64_t *)arg += off ^ value;
	return 0;
}

static int count_string(void *arg, const struct strings_hit *h, struct err *e)
{
	(void)e;
	*(uint64_t *)arg += h->addr ^ h->text_len;
	return 0;
}

/* Every object through the decoder: JSON two levels deep, its one-line text, its entries. */
static int count_entry(void *arg, const struct dec_entry *en, struct err *e)
{
	(void)e;
	*(uint64_t *)arg += en->value.addr ^ en->index;
	return 0;
}

static void decoded(const struct model *m, struct err *e)
{
	struct dec *d;
	struct wbuf b;
	uint64_t sum = 0;

	if (dec_open(&d, m, e))
		return;
	wbuf_init(&b);
	for (size_t i = 0; i < model_count(m); i++) {
		wbuf_reset(&b);
		if (dec_object_json(d, i, 2, &b, e) || dec_object_text(d, i, 80, &b, e) ||
		    dec_each_entry(d, i, count_entry, &sum, NULL, e) < 0)
			break;
	}
	wbuf_release(&b);
	dec_close(d);
}

/* objects.jsonl, strings.tsv and report.html into /dev/null, the strings with the residue
 * scan. */
static void exports(const struct model *m, const struct reach *r, const struct anomaly_sink *anomalies,
		    struct err *e)
{
	static FILE *sink;
	struct referrers refs;
	struct objects_jsonl_stats js;
	struct strings_tsv_stats ts;
	struct strings_opts so = { .residue = true };
	struct strings_tsv_opts to = { "fuzz", "0", NULL, NULL };
	uint64_t sum = 0;

	if (!sink && !(sink = fopen("/dev/null", "w")))
		return;
	struct outf out = { .fp = sink, .path = "/dev/null" };
	(void)objects_jsonl_write(m, NULL, &out, &js, e);
	(void)strings_each(m, &so, count_string, &sum, e);
	bool have_refs = referrers_build(&refs, m, e) == 0;
	if (have_refs)
		(void)strings_tsv_write(m, &refs, &to, &out, &ts, e);
	struct report_input ri = { m, r, anomalies, NULL, NULL, NULL, NULL, have_refs ? &refs : NULL, NULL, NULL };
	(void)report_write(&ri, &out, e);
	decoded(m, e);
	referrers_release(&refs);
}

static void candidates(struct model *m, struct mf *f, uint8_t flags, size_t n)
{
	struct err e;
	for (int i = 0; i < MF_CLASSES; i++) {
		struct walk_candidate c = { .addr = mf_class_addr(i), .room = 0x100, .alloc = WALK_ALLOCATED,
					    .place = WALK_ROSALLOC_SLOT, .space = &f->space, .live_bit = -1,
					    .on_alloc_stack = -1 };
		err_init(&e);
		(void)model_add(m, &c, &e);
	}
	for (size_t off = 0; off + 8 <= n; off += 8) {
		uint64_t addr = MF_OBJECTS + off, room = n - off;
		bool is_free = f->heap[addr - MF_HEAP + 4] & 1;
		if (flags & 4)
			room = 64u << (flags >> 4 & 3);
		struct walk_candidate c = { .addr = addr, .room = room, .alloc = is_free ? WALK_FREE : WALK_ALLOCATED,
					    .place = WALK_ROSALLOC_SLOT, .space = &f->space, .where = addr & ~0xfffull,
					    .clobbered = is_free && (flags & 8) ? 8 : 0, .live_bit = -1,
					    .on_alloc_stack = -1 };
		err_init(&e);
		if (model_add(m, &c, &e))
			return;   /* out of memory only */
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct mf f;
	struct image img;
	struct anomaly_sink sink;
	struct model m;
	struct reach r;
	struct err e;

	if (size < 1)
		return 0;
	uint8_t flags = data[0];
	size_t n = size - 1, cap = MF_HEAP_SIZE - (MF_OBJECTS - MF_HEAP);
	if (n > cap)
		n = cap;
	mf_build(&f);
	if (flags & 0x80) {   /* Msg read as an ArrayList: its text its backing array, id its size */
		f.cls[MF_MSG].name = "java.util.ArrayList";
		f.f_msg[0].name = "elementData";
		f.f_msg[2].name = "size";
	}
	memset(f.heap + (MF_OBJECTS - MF_HEAP), 0, cap);
	memcpy(f.heap + (MF_OBJECTS - MF_HEAP), data + 1, n);
	size_t side = n < 4096 ? n & ~(size_t)15 : 4096;
	err_init(&e);
	img_init_empty(&img, "fuzz");
	if (img_add_region_mem(&img, MF_HEAP, f.heap, sizeof(f.heap), IMG_PROT_R | IMG_PROT_W, "[anon:dalvik-main space]",
			       &e) ||
	    (side && (flags & 1) &&
	     img_add_region_mem(&img, FUZZ_IRT, data + 1, side, IMG_PROT_R, "[anon:dalvik-indirect ref table]", &e)) ||
	    (side && (flags & 2) && img_add_region_mem(&img, FUZZ_STACK, data + 1, side, IMG_PROT_R, "[stack]", &e))) {
		img_close(&img);
		return 0;
	}
	mf_runtime(&f, &img);
	anomaly_init(&sink, 64);
	if (model_init(&m, &f.rt, &sink, &e) == 0) {
		candidates(&m, &f, flags, n);
		if (model_finish(&m, &e) == 0 && reach_run(&m, &r, &e) == 0) {
			struct hprof_carve_opts o = { .android = flags & 0x40, .include_partial = true, .include_residue = true };
			struct hprof_carve_stats st;
			uint64_t sum = 0;
			(void)hprof_carve_write(&m, &r, &o, NULL, &st, &e);
			for (size_t i = 0; i < m.count; i++)
				if (model_each_ref(&m, &m.objs[i], count_ref, &sum, &e) < 0)
					break;
			exports(&m, &r, &sink, &e);
		}
		reach_release(&r);
		model_release(&m);
	}
	anomaly_release(&sink);
	img_close(&img);
	return 0;
}
