/* sweep_classes.c - corruption sweep for the runtime model on a real core: maps the ELF core
 * copy-on-write (the file is never written), builds the model once to learn where the
 * Class objects and DEX files are, then for SAMPLES seeded mutations (a byte of a Class
 * object's fixed part or of a DEX header / id table set to 0, 0xff, a random value or one
 * flipped bit) rebuilds the model and restores the byte.  It checks that every build
 * returns (0 or a clean error) within LIMIT_MS and prints what happened.
 * usage: sweep_classes CORE SAMPLES SEED [MAPS]
 * Prints "RESULT <ok samples> <failed samples>"; exit 0 when none failed. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "art/runtime/runtime.h"
#include "carver/wrap/elfw.h"
#include "carver/image/maps.h"
#include "rosalloc/probe/probe.h"

enum { LIMIT_MS = 20000, PT_LOAD_TYPE = 1, CLASS_BYTES = 120, DEX_BYTES = 0x70 + 4096 };

static uint64_t rng_state;
static uint64_t rng(void)
{
	/* xorshift64* (Vigna): reproducible from the seed */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ull;
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Regions of the core's PT_LOADs over the private writable mapping p. */
static int load(struct image *img, uint8_t *p, size_t len, const struct maps *m, struct err *e)
{
	struct elfw *w;
	int rc = elfw_open(&w, p, len, "core", e);
	if (rc)
		return rc;
	img_init_empty(img, "sweep");
	for (size_t i = 0; rc == 0 && i < elfw_phdr_count(w); i++) {
		struct elfw_phdr ph;
		if ((rc = elfw_phdr(w, i, &ph, e)) || ph.type != PT_LOAD_TYPE || ph.filesz == 0)
			continue;
		if (ph.offset > len || ph.filesz > len - ph.offset)
			continue;
		const struct maps_entry *me = m ? maps_find(m, ph.vaddr) : NULL;
		uint32_t prot = (ph.flags & 4 ? IMG_PROT_R : 0) | (ph.flags & 2 ? IMG_PROT_W : 0) | (ph.flags & 1 ? IMG_PROT_X : 0);
		rc = img_add_region_mem(img, ph.vaddr, p + ph.offset, (size_t)ph.filesz, prot, me ? me->name : "", e);
	}
	elfw_close(w);
	return rc;
}

/* Writable byte behind va (inside the private mapping), NULL if not captured. */
static uint8_t *byte_at(const struct image *img, uint64_t va)
{
	const struct img_region *r = img_find(img, va);
	if (!r || !r->data || va - r->start >= r->data_len)
		return NULL;
	return (uint8_t *)(uintptr_t)(r->data + (va - r->start));
}

int main(int argc, char **argv)
{
	struct maps m;
	struct image img;
	struct art_runtime rt;
	const struct runtime_opts ro = { .probes = &probe_spaces };
	struct err e;
	struct stat st;
	unsigned ok = 0, failed = 0, built = 0;
	double worst = 0;

	if (argc < 4 || argc > 5) {
		fprintf(stderr, "usage: sweep_classes CORE SAMPLES SEED [MAPS]\n");
		return 2;
	}
	unsigned samples = (unsigned)strtoul(argv[2], NULL, 10);
	rng_state = strtoull(argv[3], NULL, 10) | 1;
	err_init(&e);
	maps_init(&m);
	if (argc == 5 && maps_load(&m, argv[4], &e)) {
		fprintf(stderr, "sweep_classes: %s\n", e.msg);
		return 1;
	}
	int fd = open(argv[1], O_RDONLY);
	if (fd < 0 || fstat(fd, &st) != 0) {
		perror(argv[1]);
		return 1;
	}
	uint8_t *p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED || load(&img, p, (size_t)st.st_size, argc == 5 ? &m : NULL, &e) ||
	    runtime_open(&rt, &img, &ro, &e)) {
		fprintf(stderr, "sweep_classes: %s\n", e.msg);
		return 1;
	}
	size_t nclass = rt.class_count, ndex = rt.dex_count;
	uint64_t *targets = calloc(nclass + ndex, sizeof(*targets));
	for (size_t i = 0; targets && i < nclass; i++)
		targets[i] = rt.classes[i].addr;
	for (size_t i = 0; targets && i < ndex; i++)
		targets[nclass + i] = rt.dexes[i].addr;
	runtime_close(&rt);
	if (!targets || nclass == 0)
		return 1;
	for (unsigned s = 0; s < samples; s++) {
		bool in_dex = ndex && rng() % 5 == 0;
		uint64_t va = in_dex ? targets[nclass + rng() % ndex] + rng() % DEX_BYTES
				     : targets[rng() % nclass] + rng() % CLASS_BYTES;
		uint8_t *b = byte_at(&img, va), old, v;
		if (!b)
			continue;
		old = *b;
		switch (rng() % 4) {
		case 0: v = 0; break;
		case 1: v = 0xff; break;
		case 2: v = (uint8_t)rng(); break;
		default: v = old ^ (uint8_t)(1u << (rng() % 8)); break;
		}
		*b = v;
		double t0 = now_ms();
		int rc = runtime_open(&rt, &img, &ro, &e);
		double dt = now_ms() - t0;
		if (rc == 0) {
			built++;
			runtime_close(&rt);
		}
		*b = old;
		worst = dt > worst ? dt : worst;
		if (dt > LIMIT_MS || (rc != 0 && rc != -ERR_UNSUP && rc != -ERR_CORRUPT && rc != -ERR_TRUNC)) {
			failed++;
			printf("FAIL byte 0x%llx = 0x%02x: %s after %.0f ms (%s)\n", (unsigned long long)va, v,
			       rc ? err_code_name(e.code) : "ok", dt, rc ? e.msg : "");
		} else {
			ok++;
		}
	}
	printf("%u mutations in %zu classes and %zu DEX files: %u models built, the rest refused cleanly; "
	       "slowest %.0f ms\n", ok + failed, nclass, ndex, built, worst);
	printf("RESULT %u %u\n", ok, failed);
	free(targets);
	img_close(&img);
	munmap(p, (size_t)st.st_size);
	maps_release(&m);
	return failed ? 1 : 0;
}
