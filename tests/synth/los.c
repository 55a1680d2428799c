/* los.c - large object space, runtime/gc/space/large_object_space.cc.
 *
 * Map variant (LargeObjectMapSpace; 32-bit and x86-64): one anonymous mapping per object named
 * "large object space allocation", object at its start.  Free-list variant (FreeListSpace;
 * arm64): one mapping, page granularity, plus "large object free list space allocation info
 * map" holding one AllocationInfo {u32 prev_free_, u32 alloc_size_} per page; alloc_size_ is
 * in pages with flag bits (free 0x08000000 in 5.x, 0x80000000 and zygote 0x40000000 from 6.0);
 * prev_free_ counts the free pages before a block.  Freed pages are madvised (zero). */
#include <string.h>

#include "carver/base/xalloc.h"
#include "tests/synth/synth.h"
#include "tests/synth/alloc.h"



struct los *los_new(struct model *m, bool freelist, uint64_t begin, uint64_t size,
		    uint64_t info_va)
{
	struct los *l = xcalloc(1, sizeof(*l));
	char name[200];

	if (!l)
		return NULL;
	l->m = m;
	l->freelist = freelist;
	l->begin = begin;
	l->size = size;
	l->next_map = begin;
	if (!freelist)
		return l;
	l->npages = (uint32_t)(size / l->m->page);
	vm_dalvik_name(m->fam, m->fam->los_freelist_name, name, sizeof(name));
	l->space = vm_add(&m->vm, name, begin, size, size, "rw-p", SP_LOS);
	vm_dalvik_name(m->fam, "large object free list space allocation info map", name, sizeof(name));
	uint64_t isz = ((uint64_t)l->npages * 8 + l->m->page - 1) / l->m->page * l->m->page;
	l->info = vm_add(&m->vm, name, info_va, isz, isz, "rw-p", SP_NATIVE);
	return l->space && l->info ? l : NULL;
}

static void info_set(struct los *l, uint32_t page, uint32_t prev_free, uint32_t size_flags)
{
	vm_w32(&l->m->vm, l->info->va + (uint64_t)page * 8, prev_free);
	vm_w32(&l->m->vm, l->info->va + (uint64_t)page * 8 + 4, size_flags);
}

uint64_t los_alloc(struct los *l, uint32_t size, uint8_t *where)
{
	uint32_t pages = (size + l->m->page - 1) / l->m->page;

	if (!l->freelist) {
		char name[200];
		vm_dalvik_name(l->m->fam, "large object space allocation", name, sizeof(name));
		uint64_t a = l->next_map;
		if (!vm_add(&l->m->vm, name, a, (uint64_t)pages * l->m->page, (uint64_t)pages * l->m->page, "rw-p", SP_LOS))
			return 0;
		/* mmap leaves gaps between unrelated maps; keep one guard page between objects */
		l->next_map += (uint64_t)(pages + 1) * l->m->page;
		*where = OW_LOS_MAP;
		return a;
	}
	if (pages > l->npages - l->next_page)
		return 0;
	uint32_t p = l->next_page;
	l->next_page += pages;
	info_set(l, p, 0, pages);
	*where = OW_LOS_FREELIST;
	return l->begin + (uint64_t)p * l->m->page;
}

/* Free-list LOS only; the caller never frees two neighbours or the last block, so no
 * coalescing is needed: the block becomes free and the next block records it in prev_free_. */
bool los_free(struct los *l, uint64_t a)
{
	if (!l->freelist)
		return false;
	uint32_t p = (uint32_t)((a - l->begin) / l->m->page);
	uint32_t pages = vm_r32(&l->m->vm, l->info->va + (uint64_t)p * 8 + 4);
	vm_zero(&l->m->vm, a, (uint64_t)pages * l->m->page);
	info_set(l, p, vm_r32(&l->m->vm, l->info->va + (uint64_t)p * 8), pages | l->m->fam->los_free_flag);
	info_set(l, p + pages, pages, vm_r32(&l->m->vm, l->info->va + (uint64_t)(p + pages) * 8 + 4));
	return true;
}

bool los_is_last(const struct los *l, uint64_t a, uint32_t size)
{
	uint32_t pages = (size + l->m->page - 1) / l->m->page;
	return l->freelist && a + (uint64_t)pages * l->m->page == l->begin + (uint64_t)l->next_page * l->m->page;
}

uint64_t los_end(const struct los *l) { return l->freelist ? l->begin + (uint64_t)l->next_page * l->m->page : l->next_map; }
