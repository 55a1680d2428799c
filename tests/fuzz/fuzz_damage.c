/* fuzz_damage.c - word damage inside a small real heap (issue 23): the input chooses up to 8
 * aligned 4-byte words of samples/android11-64bit/core (ARTCARVE_DAMAGE_CORE / _MAPS
 * override it; paths from the tree's root, where `make check` and `make fuzz` run) and the
 * values written there; the damaged core is carved in-process (carve_run, every output, into a
 * temporary directory) and must
 *   - succeed and write every output, and
 *   - keep >= 98% of the undamaged carve's objects the damage did not touch when one word is
 *     damaged (an object is touched when its bytes or its Class's bytes include a damaged
 *     word), >= 50% when more are (no cascade); FUZZ_DAMAGE_VERBOSE=1 prints every input
 *     below 99%.
 * Input: records of 8 bytes [u32 where][u32 value], little-endian.  where < 2^31 picks an
 * object of the undamaged carve (where % objects) and a word in it (where / objects);
 * otherwise a word anywhere in the core's PT_LOAD data (allocator metadata, free memory).
 * A violated invariant aborts (libFuzzer reports it, the replay counts a crash).
 * Seeds: tests/fuzz/corpus/fuzz_damage (one record each: Class fields, an array length, a
 * String count (two: seed-zygote-string-count is the zygote space's), a page of metadata). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/tools/damage_lib.h"
#include "carver/pipeline/carve_dir.h"

#define MAX_WORDS 8
/* One damaged word keeps >= 99% of the untouched objects, more words >= 50% (the cascade bound:
 * no damage costing most of the heap).  Found by this target and fixed (issue 23), each in the
 * corpus: record 1f1f0000 00100000 (0x1000 into the count_ of the zygote space's String at
 * 0x70202000) kept 0.978 until the contiguous walks' converging chains
 * (seed-zygote-string-count, now 0.996); record 050000ff 0e000000 (word 0x70001ba4 of the boot
 * image, the field_dex_idx_ of one of java.lang.Class's ArtFields, 0x14 -> 0xe: two fields
 * named "name") kept 0.9825 until ArtFields are checked against the class_def's field list
 * (seed-image-word-classes); record 0d0000c2 00000000 (word 0x70000004 of the boot image, its
 * header's version, zeroed) kept 0.7588, the image's objects unwalked, until the header's other
 * fields choose its row (seed-image-header-version). */
#define FUZZ_DAMAGE_FLOOR_ONE 0.99
#define FUZZ_DAMAGE_FLOOR 0.5

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct fuzz_state {
	struct dmg_core core;
	struct dmg_objects base;
	struct dmg_targets targets;
	const char *maps;
	char dir[64], core_path[80], out[80];   /* out: the carves' folder (carve refuses one holding the core) */
	bool ready, failed;
};

static struct fuzz_state st;

static bool copy_file(const char *from, const char *to)
{
	FILE *in = fopen(from, "rb"), *out = in ? fopen(to, "wb") : NULL;
	char buf[65536];
	size_t n;
	bool ok = in && out;
	while (ok && (n = fread(buf, 1, sizeof(buf), in)) > 0)
		ok = fwrite(buf, 1, n, out) == n;
	ok = ok && !ferror(in);
	if (out && fclose(out))
		ok = false;
	if (in)
		fclose(in);
	return ok;
}

/* At exit: the temporary directory and what is in it. */
static void cleanup(void)
{
	char path[128];
	for (unsigned i = 0; i <= CARVE_OUT_COUNT; i++)
		if (i == CARVE_OUT_COUNT || carve_output_file(i)) {
			snprintf(path, sizeof(path), "%s/%s", st.out, i == CARVE_OUT_COUNT ? CARVE_MANIFEST : carve_output_file(i));
			unlink(path);
		}
	rmdir(st.out);
	dmg_core_close(&st.core);
	dmg_objects_free(&st.base);
	dmg_targets_free(&st.targets);
	unlink(st.core_path);
	rmdir(st.dir);
}

/* Once: the core copied into a temporary directory (it is patched in place) and carved. */
static bool setup(void)
{
	const char *core = getenv("ARTCARVE_DAMAGE_CORE");
	uint32_t near_miss;
	if (st.ready || st.failed)
		return st.ready;
	st.failed = true;
	st.maps = getenv("ARTCARVE_DAMAGE_MAPS");
	if (!core) {
		core = "samples/android11-64bit/core";
		st.maps = "samples/android11-64bit/maps";
	}
	snprintf(st.dir, sizeof(st.dir), "/tmp/fuzz-damage.XXXXXX");
	if (!mkdtemp(st.dir))
		return false;
	atexit(cleanup);
	snprintf(st.core_path, sizeof(st.core_path), "%s/core", st.dir);
	snprintf(st.out, sizeof(st.out), "%s/out", st.dir);
	if (!copy_file(core, st.core_path) || dmg_core_open(&st.core, st.core_path) ||
	    dmg_baseline(&st.base, &st.targets, st.core_path, st.maps, st.out, &near_miss) || !st.base.count) {
		fprintf(stderr, "fuzz_damage: no undamaged carve of %s\n", core);
		return false;
	}
	st.ready = true;
	st.failed = false;
	return true;
}

/* The word a record's where names (4-aligned), 0 when the core holds none there. */
static uint64_t word_at(uint32_t where)
{
	if (where < 0x80000000u) {
		const struct dmg_obj *b = &st.base.v[where % st.base.count];
		uint32_t words = b->size / 4 ? b->size / 4 : 1;
		return b->va + (uint64_t)(where / st.base.count % words) * 4;
	}
	where &= 0x7fffffffu;
	for (size_t i = 0; i < st.core.load_count; i++) {
		const struct dmg_load *l = &st.core.load[(where + i) % st.core.load_count];
		if (l->filesz >= 4)
			return l->va + (uint64_t)(where / st.core.load_count) * 4 % (l->filesz & ~(uint64_t)3);
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t va[MAX_WORDS];
	uint32_t old[MAX_WORDS];
	size_t n = 0;
	char why[160] = "";

	if (!setup())
		abort();   /* the fixture itself is missing: every input would test nothing */
	for (size_t i = 0; i + 8 <= size && n < MAX_WORDS; i += 8) {
		uint64_t w = word_at((uint32_t)dmg_le(data + i, 4));
		if (w && dmg_core_patch(&st.core, w, (uint32_t)dmg_le(data + i + 4, 4), &old[n]) == 0)
			va[n++] = w;
	}

	struct carve_opts o = { .image = st.core_path, .maps = st.maps, .out_dir = st.out, .force = true };
	struct carve c;
	struct err e;
	err_init(&e);
	int rc = carve_run(&c, &o, &e);
	bool written = rc == 0 && dmg_outputs_written(&c, &o, why, sizeof(why));
	double recall = written ? dmg_recall(&st.base, &c.m, va, n, why, sizeof(why)) : 0;
	carve_release(&c);
	size_t damaged = n;
	uint64_t first_va = n ? va[0] : 0;
	while (n-- > 0) {   /* in reverse: a word damaged twice gets its first value back */
		uint32_t was;
		if (dmg_core_patch(&st.core, va[n], old[n], &was))
			abort();
	}
	if (rc || !written || recall < (damaged == 1 ? FUZZ_DAMAGE_FLOOR_ONE : FUZZ_DAMAGE_FLOOR)) {
		fprintf(stderr, "fuzz_damage: %s%s%zu word(s) from 0x%llx; recall %.4f %s\n", rc ? "carve failed: " : "",
			rc ? e.msg : "", damaged, (unsigned long long)first_va, recall, why);
		abort();
	}
	if (recall < 0.99 && getenv("FUZZ_DAMAGE_VERBOSE"))
		fprintf(stderr, "fuzz_damage: below 99%%: %zu word(s) from 0x%llx; recall %.4f %s\n", damaged,
			(unsigned long long)first_va, recall, why);
	return 0;
}
