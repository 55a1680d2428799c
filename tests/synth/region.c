/* region.c - region space (Android 8.0+ concurrent copying), runtime/gc/space/region_space*.
 *
 * 256 KiB regions (region_space.h kRegionSize @8.0-11); objects 8-byte aligned, contiguous
 * from the region start.  Mutators allocate in TLABs (a whole region per thread); the GC copies
 * survivors into to-space regions; an object larger than a region takes a Large region plus
 * LargeTail regions.  Unevacuated regions keep dead objects in place; 10+ overwrite them with
 * 0xBADDB01D (kPoisonDeadObjectsInUnevacuatedRegions, region_space.cc @10, 11).  The region
 * table itself is native memory and is not part of the image. */
#include <string.h>

#include "carver/base/xalloc.h"
#include "tests/synth/synth.h"
#include "tests/synth/alloc.h"


struct region *region_new(struct model *m, uint64_t begin, uint64_t size)
{
	struct region *r = xcalloc(1, sizeof(*r));
	char name[200];

	if (!r)
		return NULL;
	r->m = m;
	r->begin = begin;
	r->size = size;
	r->rsize = m->fam->region_size;
	r->nreg = (uint32_t)(size / r->rsize);
	r->kind = xcalloc(r->nreg, 1);
	vm_dalvik_name(m->fam, m->fam->main_name, name, sizeof(name));
	r->space = vm_add(&m->vm, name, begin, size, size, "rw-p", SP_REGION);
	return r->kind && r->space ? r : NULL;
}

static int region_take(struct region *r, uint32_t n, uint8_t kind)
{
	if (n > r->nreg - r->next)
		return -1;
	uint32_t i = r->next;
	r->next += n;
	for (uint32_t k = 0; k < n; k++)
		r->kind[i + k] = kind;
	return (int)i;
}

/* mode: 0 TLAB (mutator), 1 to-space (GC survivors), 2 unevacuated from-space. */
uint64_t region_alloc(struct region *r, uint32_t size, int mode, uint8_t *where)
{
	uint32_t need = (size + 7) & ~7u;
	static const uint8_t kinds[3] = {OW_TLAB, OW_REGION, OW_UNEVAC};

	if (need > r->rsize) {
		uint32_t n = (need + r->rsize - 1) / r->rsize;
		int i = region_take(r, n, OW_LARGE_REGION);
		if (i < 0)
			return 0;
		*where = OW_LARGE_REGION;
		return r->begin + (uint64_t)i * r->rsize;
	}
	if (!r->pos[mode] || need > r->end[mode] - r->pos[mode]) {
		int i = region_take(r, 1, kinds[mode]);
		if (i < 0)
			return 0;
		r->pos[mode] = r->begin + (uint64_t)i * r->rsize;
		r->end[mode] = r->pos[mode] + r->rsize;
	}
	uint64_t a = r->pos[mode];
	r->pos[mode] += need;
	*where = kinds[mode];
	return a;
}

/* A dead object in an unevacuated region: 10+ poison it, earlier versions leave it. */
bool region_kill(struct region *r, uint64_t a, uint32_t size)
{
	if (!r->m->fam->poison_unevac)
		return false;
	uint32_t n = (size + 7) & ~7u;
	for (uint32_t i = 0; i < n; i += 4)
		vm_w32(&r->m->vm, a + i, 0xBADDB01Du);
	return true;
}

uint64_t region_end(const struct region *r) { return r->begin + (uint64_t)r->next * r->rsize; }
uint32_t region_count_used(const struct region *r) { return r->next; }
