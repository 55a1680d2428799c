/* ros.c - RosAlloc main space (Android 5.0-7.1), as runtime/gc/allocator/rosalloc.{h,cc} do it.
 *
 * Page map: one byte per page, 0 released, 1 empty, 2 run, 3 run part, 4 large object,
 * 5 large object part (rosalloc.h).  Runs: 5.0-6.0 bitmap runs {magic, idx, is_thread_local,
 * to_be_bulk_freed, u32 first_search_vec_idx, alloc / bulk-free / thread-local-free bitmaps};
 * 7.0+ free-list runs {magic, idx, tl, bulk, pad, then three SlotFreeList {u64 head, u64 tail,
 * u32 size, pad} at 8, 32, 56}.  Release builds write magic 0.  Frees zero the slot (7.0+: then
 * write next_ in the first pointer-sized word and push at the list head). */
#include <string.h>

#include "carver/base/xalloc.h"
#include "tests/synth/synth.h"
#include "tests/synth/alloc.h"

#define PAGE 4096u

enum { PM_RELEASED, PM_EMPTY, PM_RUN, PM_RUN_PART, PM_LARGE, PM_LARGE_PART };



/* 5.x/6.0 sizing (rosalloc.cc Initialize): for s from run/slot down, header = 8 + 3 bitmaps of
 * RoundUp(s,32)/8 bytes, rounded up to the slot size; first s that fits; then add run % slot.
 * 7.0+: header 80 (sizeof(Run)) rounded up to the slot size, plus run % slot. */
void ros_brackets(const struct fam *f, struct ros_bracket *out)
{
	for (unsigned i = 0; i < f->ros_brackets; i++) {
		struct ros_bracket *b = &out[i];
		memset(b, 0, sizeof(*b));
		if (f->ros == FAM_ROS_BITMAP) {
			b->size = i < 32 ? 16 * (i + 1) : i == 32 ? 1024 : 2048;
			b->pages = i < 4 ? 1 : i < 8 ? (f->ros_5_0_pages ? 2 : 1) : i < 16 ? 4 : i < 32 ? 8 : i == 32 ? 16 : 32;
		} else {
			b->size = i < 16 ? 8 * (i + 1) : i < 40 ? 128 + 16 * (i - 15) : i == 40 ? 1024 : 2048;
			b->pages = i < 40 ? 1 : i == 40 ? 2 : 4;
		}
		uint32_t run = b->pages * PAGE;
		if (f->ros == FAM_ROS_BITMAP) {
			for (int s = (int)(run / b->size); s >= 0; s--) {
				uint32_t bm = (((uint32_t)s + 31) / 32) * 4;
				uint32_t unaligned = 8 + 3 * bm;
				uint32_t hdr = (unaligned + b->size - 1) / b->size * b->size;
				if (hdr + (uint32_t)s * b->size <= run) {
					b->slots = (uint32_t)s;
					b->words = bm / 4;
					b->bulk_off = 8 + bm;
					b->tl_off = 8 + 2 * bm;
					b->header = hdr + run % b->size;
					break;
				}
			}
		} else {
			uint32_t hdr = (80 + b->size - 1) / b->size * b->size;
			b->header = hdr + run % b->size;
			b->slots = (run - b->header) / b->size;
		}
	}
}

/* rosalloc.h SizeToIndexAndBracketSize. */
unsigned ros_bracket_for(const struct fam *f, uint32_t size)
{
	if (f->ros == FAM_ROS_BITMAP) {
		if (size <= 512)
			return size <= 16 ? 0 : (size + 15) / 16 - 1;
		return size <= 1024 ? 32 : 33;
	}
	if (size <= 128)
		return size <= 8 ? 0 : (size + 7) / 8 - 1;
	if (size <= 512)
		return 15 + (size - 128 + 15) / 16;
	return size <= 1024 ? 40 : 41;
}

struct ros *ros_new(struct model *m, uint64_t begin, uint64_t capacity, uint64_t pagemap_va)
{
	struct ros *r = xcalloc(1, sizeof(*r));
	char name[200];

	if (!r)
		return NULL;
	r->m = m;
	r->begin = begin;
	r->capacity = capacity;
	r->npages = (uint32_t)(capacity / PAGE);
	ros_brackets(m->fam, r->br);
	for (unsigned i = 0; i < 42; i++)
		r->cur[i] = r->tl[i] = -1;
	r->run_of_page = xcalloc(r->npages, sizeof(int));
	vm_dalvik_name(m->fam, m->fam->main_name, name, sizeof(name));
	r->space = vm_add(&m->vm, name, begin, capacity, capacity, "rw-p", SP_MAIN);
	vm_dalvik_name(m->fam, "rosalloc page map", name, sizeof(name));
	uint64_t pm_size = ((uint64_t)r->npages + PAGE - 1) / PAGE * PAGE;
	r->pagemap = vm_add(&m->vm, name, pagemap_va, pm_size, pm_size, "rw-p", SP_NATIVE);
	if (!r->run_of_page || !r->space || !r->pagemap)
		return NULL;
	return r;
}

static void pm_set(struct ros *r, uint32_t page, uint8_t v) { r->pagemap->bytes[page] = v; }

static uint32_t ros_pages(struct ros *r, uint32_t n)
{
	if (n > r->npages - r->next_page)
		return UINT32_MAX;
	uint32_t p = r->next_page;
	r->next_page += n;
	return p;
}

/* ---- slot lists (7.0+) ---- */
enum { L_FREE = 8, L_BULK = 32, L_TL = 56 };

static void list_push(struct ros *r, uint64_t run, unsigned list, uint64_t slot)
{
	struct vm *v = &r->m->vm;
	uint64_t head = vm_r64(v, run + list);
	vm_w64(v, run + list, slot);
	if (head == 0) {
		if (list != L_FREE)     /* SlotFreeList<true> keeps a tail */
			vm_w64(v, run + list + 8, slot);
	} else {
		vm_wptr(v, slot, head);
	}
	vm_w32(v, run + list + 16, vm_r32(v, run + list + 16) + 1);
}

static uint64_t list_pop(struct ros *r, uint64_t run)
{
	struct vm *v = &r->m->vm;
	uint64_t head = vm_r64(v, run + L_FREE);
	if (!head)
		return 0;
	uint64_t next = r->m->vm.ptr == 8 ? vm_r64(v, head) : vm_r32(v, head);
	vm_w64(v, run + L_FREE, next);
	vm_w32(v, run + L_FREE + 16, vm_r32(v, run + L_FREE + 16) - 1);
	vm_wptr(v, head, 0);    /* Slot::Clear */
	return head;
}

static int ros_new_run(struct ros *r, unsigned idx, bool tl)
{
	struct ros_bracket *b = &r->br[idx];
	uint32_t p = ros_pages(r, b->pages);
	struct vm *v = &r->m->vm;

	if (p == UINT32_MAX)
		return -1;
	if (XALLOC_GROW(r->runs, r->cap, (size_t)r->nruns + 1, 64))
		return -1;
	struct ros_run *run = &r->runs[r->nruns];
	run->va = r->begin + (uint64_t)p * PAGE;
	run->idx = idx;
	run->tl = tl;
	run->allocated = 0;
	for (uint32_t i = 0; i < b->pages; i++) {
		pm_set(r, p + i, i ? PM_RUN_PART : PM_RUN);
		r->run_of_page[p + i] = (int)r->nruns;
	}
	vm_w8(v, run->va + 1, (uint8_t)idx);
	vm_w8(v, run->va + 2, tl);
	if (r->m->fam->ros == FAM_ROS_BITMAP) {
		/* SetAllocBitMapBitsForInvalidSlots: bits past the last slot are 1 */
		uint32_t last = b->words - 1, used = b->slots - 32 * last;
		if (used < 32)
			vm_w32(v, run->va + 8 + 4 * last, ~((1u << used) - 1));
	} else {
		/* InitFreeList: push slots from the last down, so the list ascends from slot 0 */
		for (uint32_t s = b->slots; s-- > 0;)
			list_push(r, run->va, L_FREE, run->va + b->header + (uint64_t)s * b->size);
	}
	return (int)r->nruns++;
}

static uint64_t bitmap_alloc(struct ros *r, struct ros_run *run)
{
	struct vm *v = &r->m->vm;
	struct ros_bracket *b = &r->br[run->idx];
	uint32_t w = vm_r32(v, run->va + 4);

	for (; w < b->words; w++) {
		uint32_t word = vm_r32(v, run->va + 8 + 4 * w);
		if (word != 0xffffffffu) {
			unsigned bit = (unsigned)__builtin_ctz(~word);
			vm_w32(v, run->va + 8 + 4 * w, word | 1u << bit);
			vm_w32(v, run->va + 4, w);
			return run->va + b->header + (uint64_t)(32 * w + bit) * b->size;
		}
		if (w + 1 >= b->words)
			break;
		vm_w32(v, run->va + 4, w + 1);
	}
	return 0;
}

static uint64_t run_alloc(struct ros *r, int ri)
{
	struct ros_run *run = &r->runs[ri];
	uint64_t a = r->m->fam->ros == FAM_ROS_BITMAP ? bitmap_alloc(r, run) : list_pop(r, run->va);
	if (a)
		run->allocated++;
	return a;
}

/* Allocates size bytes; *where is OW_RUN, OW_TL_RUN or OW_PAGES, *slot the slot size. */
uint64_t ros_alloc(struct ros *r, uint32_t size, uint8_t *where, uint32_t *slot)
{
	if (size > 2048) {      /* kLargeSizeThreshold: whole pages */
		uint32_t n = (size + PAGE - 1) / PAGE;
		uint32_t p = ros_pages(r, n);
		if (p == UINT32_MAX)
			return 0;
		for (uint32_t i = 0; i < n; i++) {
			pm_set(r, p + i, i ? PM_LARGE_PART : PM_LARGE);
			r->run_of_page[p + i] = -1;
		}
		*where = OW_PAGES;
		*slot = n * PAGE;
		return r->begin + (uint64_t)p * PAGE;
	}
	unsigned idx = ros_bracket_for(r->m->fam, size);
	bool tl = idx < r->m->fam->ros_tl_brackets;
	int *cur = tl ? &r->tl[idx] : &r->cur[idx];
	uint64_t a = 0;

	if (*cur >= 0)
		a = run_alloc(r, *cur);
	if (!a) {
		if (*cur >= 0 && tl) {  /* a full thread-local run is given back: no longer thread-local */
			r->runs[*cur].tl = false;
			vm_w8(&r->m->vm, r->runs[*cur].va + 2, 0);
		}
		*cur = ros_new_run(r, idx, tl);
		if (*cur < 0)
			return 0;
		a = run_alloc(r, *cur);
	}
	*where = tl ? OW_TL_RUN : OW_RUN;
	*slot = r->br[idx].size;
	return a;
}

static void release_run(struct ros *r, struct ros_run *run)
{
	struct ros_bracket *b = &r->br[run->idx];
	uint32_t p = (uint32_t)((run->va - r->begin) / PAGE);
	vm_zero(&r->m->vm, run->va, (uint64_t)b->pages * PAGE);
	for (uint32_t i = 0; i < b->pages; i++)
		pm_set(r, p + i, PM_EMPTY);
	for (unsigned i = 0; i < 42; i++) {
		if (r->cur[i] >= 0 && &r->runs[r->cur[i]] == run)
			r->cur[i] = -1;
		if (r->tl[i] >= 0 && &r->runs[r->tl[i]] == run)
			r->tl[i] = -1;
	}
}

/* Frees the object at a.  bulk_pending: the capture interrupted a sweep, the slot is on the
 * bulk list / bulk bitmap with to_be_bulk_freed_ set.  Returns the state the slot ends in. */
void ros_free(struct ros *r, uint64_t a, bool bulk_pending)
{
	struct vm *v = &r->m->vm;
	uint32_t p = (uint32_t)((a - r->begin) / PAGE);
	int ri = r->run_of_page[p];

	if (ri < 0) {   /* page-level object: FreePages zeroes the pages, map -> empty */
		uint32_t n = 1;
		while (p + n < r->npages && r->pagemap->bytes[p + n] == PM_LARGE_PART)
			n++;
		vm_zero(v, a, (uint64_t)n * PAGE);
		for (uint32_t i = 0; i < n; i++)
			pm_set(r, p + i, PM_EMPTY);
		return;
	}
	struct ros_run *run = &r->runs[ri];
	struct ros_bracket *b = &r->br[run->idx];
	uint32_t s = (uint32_t)((a - run->va - b->header) / b->size);

	vm_zero(v, a, b->size);
	run->allocated--;
	if (run->allocated == 0 && !bulk_pending && !run->tl) {
		release_run(r, run);
		return;
	}
	if (bulk_pending)
		vm_w8(v, run->va + 3, 1);
	if (r->m->fam->ros == FAM_ROS_BITMAP) {
		uint32_t w = s / 32, bit = 1u << (s % 32);
		if (bulk_pending) {
			vm_w32(v, run->va + b->bulk_off + 4 * w, vm_r32(v, run->va + b->bulk_off + 4 * w) | bit);
		} else if (run->tl) {
			vm_w32(v, run->va + b->tl_off + 4 * w, vm_r32(v, run->va + b->tl_off + 4 * w) | bit);
		} else {
			vm_w32(v, run->va + 8 + 4 * w, vm_r32(v, run->va + 8 + 4 * w) & ~bit);
			if (w < vm_r32(v, run->va + 4))
				vm_w32(v, run->va + 4, w);
		}
	} else {
		list_push(r, run->va, bulk_pending ? L_BULK : run->tl ? L_TL : L_FREE, a);
	}
}

/* Allocation after a sweep reuses free slots (7.0+: from the free-list head; 5.x/6.0: the
 * lowest free bit from first_search_vec_idx_).  Non-thread-local runs only. */
uint64_t ros_alloc_reuse(struct ros *r, uint32_t size, uint8_t *where, uint32_t *slot)
{
	unsigned idx = ros_bracket_for(r->m->fam, size);
	if (size > 2048)
		return 0;
	for (unsigned i = 0; i < r->nruns; i++) {
		struct ros_run *run = &r->runs[i];
		if (run->idx != idx || run->tl || run->allocated == 0 || vm_r8(&r->m->vm, run->va + 3))
			continue;
		uint64_t a = run_alloc(r, (int)i);
		if (a) {
			*where = OW_RUN;
			*slot = r->br[idx].size;
			return a;
		}
	}
	return 0;
}

/* The readable footprint: up to the last page handed out (rest stays ---p). */
void ros_finish(struct ros *r)
{
	uint64_t used = ((uint64_t)r->next_page + 1) * PAGE;
	if (used > r->capacity)
		used = r->capacity;
	r->space->rw_size = used;
}

uint64_t ros_end(const struct ros *r) { return r->begin + (uint64_t)r->next_page * PAGE; }
