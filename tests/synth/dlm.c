/* dlm.c - dlmalloc mspace (non-moving and zygote spaces), runtime/gc/space/dlmalloc_space.cc
 * over external/dlmalloc 2.8.x built with ONLY_MSPACES, HAVE_MORECORE, no mmap, no FOOTERS
 * (runtime/gc/allocator/dlmalloc.h).
 *
 * Chunks: {size_t prev_foot, size_t head}, payload at chunk + 2*S (S = sizeof(size_t));
 * head = size | PINUSE(1) | CINUSE(2); size = max(MIN_CHUNK, RoundUp(request + S, 2*S)).
 * create_mspace_with_base puts the malloc_state in the first chunk of the space; top follows.
 * A free clears CINUSE, writes the size into the next chunk's prev_foot and clears its PINUSE,
 * and links the chunk into a small bin (fd, bk at payload + 0 and + S): the object body stays
 * except those words.  Zygote space: the zygote's dlmalloc chunks, then the objects the zygote
 * compaction copied bump-pointer style after them (heap.cc PreZygoteFork). */
#include <string.h>

#include "carver/base/xalloc.h"
#include "tests/synth/synth.h"
#include "tests/synth/alloc.h"



static uint64_t ms_off_top(unsigned S) { return 8 + 4 * (uint64_t)S; }
static uint64_t ms_off_smallbins(unsigned S) { return 8 + 8 * (uint64_t)S; }

static uint64_t pad_request(unsigned S, uint64_t req)
{
	uint64_t align = 2 * S, min = 4 * S;
	uint64_t n = (req + S + align - 1) & ~(align - 1);
	return n < min ? min : n;
}

/* sizeof(struct malloc_state) without locks: 2 binmaps, 8 size_t/pointers, 66 small bins,
 * 32 tree bins, footprint, max_footprint, footprint_limit, mflags, segment {4 words}, extp,
 * exts (malloc.c 2.8.6; estimate - the walker needs only the chunk head). */
static uint64_t mstate_size(unsigned S)
{
	uint64_t n = 8 + 8 * (uint64_t)S + 66 * S + 32 * S + 3 * S;
	n += S == 8 ? 8 : 4;    /* mflags + padding */
	return n + 4 * S + 2 * S;
}

static void whead(struct dlm *d, uint64_t c, uint64_t v) { vm_wptr(&d->m->vm, c + d->S, v); }
static uint64_t rhead(struct dlm *d, uint64_t c)
{
	return d->S == 8 ? vm_r64(&d->m->vm, c + 8) : vm_r32(&d->m->vm, c + 4);
}

static void set_top(struct dlm *d, uint64_t top)
{
	struct vm *v = &d->m->vm;
	unsigned S = d->S;
	uint64_t top_foot = pad_request(S, 4 * S) + 4 * S;
	uint64_t end = (top + top_foot + 2 * d->m->page) & ~(uint64_t)(d->m->page - 1);
	if (end > d->begin + d->cap)
		end = d->begin + d->cap;
	uint64_t tsize = end - top - top_foot;
	d->top = top;
	d->footprint_end = end;
	whead(d, top, tsize | 1);
	whead(d, top + tsize, top_foot);        /* fencepost head (init_top) */
	vm_wptr(v, d->ms + 8 + S, tsize);       /* topsize */
	vm_wptr(v, d->ms + ms_off_top(S), top);
}

struct dlm *dlm_new(struct model *m, const char *name, uint64_t begin, uint64_t cap, enum sp_kind sp)
{
	struct dlm *d = xcalloc(1, sizeof(*d));
	char full[200];

	if (!d)
		return NULL;
	d->m = m;
	d->begin = begin;
	d->cap = cap;
	d->S = m->vm.ptr;
	vm_dalvik_name(m->fam, name, full, sizeof(full));
	d->map = vm_add(&m->vm, full, begin, cap, cap, "rw-p", sp);
	if (!d->map)
		return NULL;
	unsigned S = d->S;
	uint64_t msize = pad_request(S, mstate_size(S));
	d->ms = begin + 2 * S;
	whead(d, begin, msize | 3);
	struct vm *v = &m->vm;
	vm_wptr(v, d->ms + 8 + 2 * S, begin);                   /* least_addr */
	vm_wptr(v, d->ms + 8 + 7 * S, (0x58585858u ^ (uint32_t)m->seed) & ~7u);  /* magic */
	for (unsigned i = 0; i < 33; i++) {     /* init_bins: each bin points to itself */
		uint64_t bin = d->ms + ms_off_smallbins(S) + (uint64_t)i * 2 * S;
		vm_wptr(v, bin + 2 * S, bin);
		vm_wptr(v, bin + 3 * S, bin);
	}
	uint64_t seg = d->ms + ms_off_smallbins(S) + 66 * S + 32 * S + 3 * S + (S == 8 ? 8 : 4);
	vm_wptr(v, seg, begin);                                  /* seg.base */
	set_top(d, begin + msize);
	vm_wptr(v, seg + S, d->footprint_end - begin);           /* seg.size */
	return d;
}

/* Returns the payload address (the object address) or 0. */
uint64_t dlm_alloc(struct dlm *d, uint32_t size, uint32_t *chunk)
{
	uint64_t n = pad_request(d->S, size);
	uint64_t c = d->top;
	uint64_t pinuse = rhead(d, c) & 1;
	if (c + n + 8 * d->m->page > d->begin + d->cap)
		return 0;
	whead(d, c, n | pinuse | 2);
	set_top(d, c + n);
	*chunk = (uint32_t)n;
	return c + 2 * d->S;
}

/* Frees a small chunk (< 256 bytes, a small bin).  The caller never frees a chunk whose
 * neighbours are free or the chunk just below top, so nothing coalesces.  Returns false
 * when the chunk is not eligible. */
bool dlm_free(struct dlm *d, uint64_t mem)
{
	struct vm *v = &d->m->vm;
	unsigned S = d->S;
	uint64_t c = mem - 2 * S;
	uint64_t head = rhead(d, c), size = head & ~(uint64_t)7;
	uint64_t next = c + size;

	if (size >= 256 || !(head & 1) || next == d->top || !(rhead(d, next) & 2))
		return false;
	whead(d, c, size | 1);                  /* CINUSE cleared, PINUSE kept */
	vm_wptr(v, next, size);                 /* next->prev_foot */
	whead(d, next, rhead(d, next) & ~(uint64_t)1);
	/* insert_small_chunk: B = smallbin(size >> 3); F = B or B->fd */
	unsigned idx = (unsigned)(size >> 3);
	uint64_t bin = d->ms + ms_off_smallbins(S) + (uint64_t)idx * 2 * S;
	uint32_t smallmap = vm_r32(v, d->ms);
	uint64_t f = bin;
	if (smallmap & (1u << idx))
		f = S == 8 ? vm_r64(v, bin + 2 * S) : vm_r32(v, bin + 2 * S);
	else
		vm_w32(v, d->ms, smallmap | 1u << idx);
	vm_wptr(v, bin + 2 * S, c);             /* B->fd = P */
	vm_wptr(v, f + 3 * S, c);               /* F->bk = P */
	vm_wptr(v, mem, f);                     /* P->fd = F */
	vm_wptr(v, mem + S, bin);               /* P->bk = B */
	return true;
}

/* Where the chunk after mem starts (for neighbour checks). */
uint64_t dlm_next_mem(struct dlm *d, uint64_t mem)
{
	uint64_t c = mem - 2 * d->S;
	return c + (rhead(d, c) & ~(uint64_t)7) + 2 * d->S;
}
bool dlm_in_use(struct dlm *d, uint64_t mem) { return (rhead(d, mem - 2 * d->S) & 2) != 0; }
uint64_t dlm_top(const struct dlm *d) { return d->top; }
unsigned dlm_word(const struct dlm *d) { return d->S; }

/* Zygote compaction target: objects follow the mspace footprint, 8-byte aligned. */
uint64_t dlm_bump(struct dlm *d, uint32_t size)
{
	if (!d->bump)
		d->bump = d->footprint_end;
	uint64_t a = d->bump;
	uint64_t n = (size + 7) & ~(uint64_t)7;
	if (a + n > d->begin + d->cap)
		return 0;
	d->bump += n;
	return a;
}

/* Readable part of the mapping: the footprint (and the zygote's compacted objects). */
uint64_t dlm_finish(struct dlm *d)
{
	uint64_t end = d->bump ? (d->bump + d->m->page - 1) & ~(uint64_t)(d->m->page - 1) : d->footprint_end;
	d->map->rw_size = end - d->begin;
	return end;
}
uint64_t dlm_bump_start(const struct dlm *d) { return d->bump ? d->footprint_end : 0; }
