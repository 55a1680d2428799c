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
 * block_sizes_): there is no BlockHeader in the heap from 14 on.  bump_from_space writes the
 * collector's from-space as a capture taken just after a compaction finds it. */
#include <string.h>

#include "carver/base/xalloc.h"
#include "tests/synth/synth.h"
#include "tests/synth/alloc.h"

#define RUP(x, a) (((x) + (a) - 1) / (a) * (a))

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
		if (!b->tlabs)
			b->main_end = b->end;
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

/* One dead object at a in the from-space: a primitive array or a String of a boot class
 * (classes that no compaction moves), at least 4 random bytes of contents, so that no dead
 * object equals a survivor (cmc.c cannot tell those apart and does not report them); -1
 * when it does not fit before end. */
static int dead_object(struct model *m, uint64_t a, uint64_t end)
{
	static const char prims[] = "BCIJ";
	unsigned pick = rng_below(&m->rng, 5);
	uint32_t n, size;
	int cls, o;

	if (pick == 4) {        /* a compressed (8.0+) ASCII String */
		cls = m->c_string;
		n = 4 + rng_below(&m->rng, 40);
		size = 16 + n;
	} else {
		char e = prims[pick];
		unsigned es = klass_type_size((char[]){e, 0});
		cls = m->c_prim_array[strchr("ZBCDFIJS", e) - "ZBCDFIJS"];
		n = (e == 'B' ? 4 : e == 'C' ? 2 : 1) + rng_below(&m->rng, e == 'B' ? 200 : 48);
		size = array_data_off(e) + es * n;
	}
	if (cls < 0 || RUP(size, 8) > end - a)
		return -1;
	if ((o = model_new_obj(m, a, size, cls, SP_CMC_FROM, OW_CMC_FROM)) < 0)
		return -1;
	m->o[o].alloc = OB_FREE;
	m->o[o].content = OB_RESIDUE;
	m->o[o].reach = OB_UNREACHABLE;
	m->o[o].length = n;
	vm_w32(&m->vm, a, m->k[cls].addr);
	if (cls == m->c_string) {
		vm_w32(&m->vm, a + 8, n << 1);  /* count_: length << 1, 0 = compressed */
		for (uint32_t i = 0; i < n; i++)
			vm_w8(&m->vm, a + 16 + i, (uint8_t)(' ' + rng_below(&m->rng, 95)));
		m->o[o].compressed = true;
		return 0;
	}
	vm_w32(&m->vm, a + 8, n);
	for (uint32_t i = 12; i < size; i++)
		vm_w8(&m->vm, a + i, (uint8_t)rng_next(&m->rng));
	return 0;
}

/* The from-space as a capture between the end of a compaction and FinishPhase holds it
 * (collector/mark_compact.cc @R14U..R16: the moving space's pages are moved there when the
 * compaction starts, MadviseDontNeedAndZero in FinishPhase zeroes them): the moving space
 * before that compaction, offset for offset.  This compaction found the main block live and
 * what followed it dead, so nothing moved: the main block is there again byte for byte
 * (copies, not objects of the truth), and where the TLABs now lie lay the dead objects
 * (truth: free, residue, unreachable).  A 64-bit process maps the from-space anywhere
 * (MapAnonymousAligned without low_4gb, mark_compact.cc @R14U..R16; work.c puts it above
 * 4 GiB): it is written the same way, and its dead objects carry their 64-bit addresses in
 * the truth (their class words, like every heap reference, stay 32-bit). */
int bump_from_space(struct bump *b, struct vmap *from)
{
	struct model *m = b->m;
	uint64_t main_end = b->tlabs ? b->main_end : b->end;
	uint64_t live = main_end - b->begin, all = b->end - b->begin;

	if (!from || from->rw_size < RUP(all ? all : 8, m->page) || m->fam->str != FAM_STR_COMPRESSED)
		return -1;
	from->rw_size = RUP(all ? all : 8, m->page);
	uint8_t *dst = vm_ptr(&m->vm, from->va, from->rw_size), *src = vm_ptr(&m->vm, b->begin, live);
	if (!dst || (live && !src))
		return -1;
	memcpy(dst, src, live);
	uint64_t a = from->va + live, end = from->va + all;
	while (end - a >= 64 && dead_object(m, a, end) == 0)
		a = RUP(a + m->o[m->no - 1].size, 8);
	return m->vm.bad ? -1 : 0;
}
