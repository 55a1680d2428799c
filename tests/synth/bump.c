/* bump.c - the moving space of the mark-compact (CMC) collector: a BumpPointerSpace
 * (runtime/gc/space/bump_pointer_space.{h,cc} @R14U, @R15; doc/android12-16.md).
 *
 * The space is the "main space" mapping (heap.cc @R14U keeps kMemMapSpaceName[0] for the
 * moving space when the foreground collector is CMC).  Objects are 8-byte aligned and
 * contiguous.  The first part is the main block (what the last compaction left: here the
 * objects allocated before the first TLAB); then each TLAB is a block of its own whose
 * unused tail stays zero.  An allocation too big for a TLAB bumps the space's end and so
 * extends the last block (BumpPointerSpace::AllocNonvirtualWithoutAccounting adds it to
 * block_sizes_.back()).  The block sizes live only in native memory (main_block_size_,
 * block_sizes_): there is no BlockHeader in the heap from 14 on. */
#include "carver/base/xalloc.h"
#include "tests/synth/synth.h"
#include "tests/synth/alloc.h"

struct bump *bump_new(struct model *m, uint64_t begin, uint64_t cap)
{
	struct bump *b = xcalloc(1, sizeof(*b));
	char name[200];

	if (!b)
		return NULL;
	b->m = m;
	b->begin = b->end = begin;
	b->cap = cap;
	vm_dalvik_name(m->fam, "main space", name, sizeof(name));
	b->space = vm_add(&m->vm, name, begin, cap, cap, "rw-p", SP_BUMP);
	if (!b->space) {
		xfree(b);
		return NULL;
	}
	return b;
}

/* mode 0: mutator (TLAB); 1, 2: before the first TLAB into the main block, else as 0. */
uint64_t bump_alloc(struct bump *b, uint32_t size, int mode, uint8_t *where)
{
	uint64_t need = (size + 7) & ~7u;
	uint64_t a;

	if (mode != 0 && b->tlabs == 0) {
		if (need > b->begin + b->cap - b->end)
			return 0;
		a = b->end;
		b->end += need;
		*where = OW_BUMP;
		return a;
	}
	if (need > BUMP_TLAB / 2) {
		/* too big for a TLAB: bumps the end, the last block grows */
		if (need > b->begin + b->cap - b->end)
			return 0;
		a = b->end;
		b->end += need;
		*where = OW_BUMP;
		return a;
	}
	if (!b->tlabs || need > b->tlab_end - b->pos) {
		/* a new TLAB of 16-64 KiB at the end; the old one keeps its zero tail */
		uint64_t t = BUMP_TLAB / 2 + 8 * (uint64_t)rng_below(&b->m->rng, BUMP_TLAB * 3 / 16);
		if (t > b->begin + b->cap - b->end)
			return 0;
		b->pos = b->end;
		b->tlab_end = b->end += t;
		b->tlabs++;
	}
	a = b->pos;
	b->pos += need;
	*where = OW_TLAB;
	return a;
}

uint64_t bump_end(const struct bump *b) { return b->end; }
