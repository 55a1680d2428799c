/* vm.c - the generated process's address space: named mappings backed by zeroed buffers. */
#include <stdio.h>
#include <string.h>

#include "carver/base/xalloc.h"
#include "tests/synth/synth.h"

const char *const sp_names[] = {"none", "image", "main", "region", "non-moving", "zygote", "los",
	"native", "bump", "cmc-from-space"};

int vm_init(struct vm *v, int bits)
{
	memset(v, 0, sizeof(*v));
	v->bits = bits;
	v->ptr = bits == 64 ? 8 : 4;
	v->cap = 64;
	v->maps = xcalloc(v->cap, sizeof(*v->maps));
	return v->maps ? 0 : -1;
}

void vm_release(struct vm *v)
{
	for (unsigned i = 0; i < v->n; i++)
		xfree(v->maps[i].bytes);
	xfree(v->maps);
	memset(v, 0, sizeof(*v));
}

/* Returns NULL when out of memory or when the range overlaps an existing mapping. */
struct vmap *vm_add(struct vm *v, const char *name, uint64_t va, uint64_t size, uint64_t rw_size,
		    const char *perms, enum sp_kind space)
{
	struct vmap *m;

	for (unsigned i = 0; i < v->n; i++)
		if (va < v->maps[i].va + v->maps[i].size && v->maps[i].va < va + size)
			return NULL;
	if (XALLOC_GROW(v->maps, v->cap, (size_t)v->n + 1, 64))
		return NULL;
	m = &v->maps[v->n];
	memset(m, 0, sizeof(*m));
	snprintf(m->name, sizeof(m->name), "%s", name);
	m->va = va;
	m->size = size;
	m->rw_size = rw_size;
	m->space = space;
	snprintf(m->perms, sizeof(m->perms), "%s", perms);
	if (rw_size) {
		m->bytes = xcalloc(1, rw_size);
		if (!m->bytes)
			return NULL;
	}
	v->n++;
	return m;
}

struct vmap *vm_find(struct vm *v, uint64_t va)
{
	for (unsigned i = v->n; i-- > 0;)
		if (va >= v->maps[i].va && va - v->maps[i].va < v->maps[i].rw_size)
			return &v->maps[i];
	return NULL;
}

uint8_t *vm_ptr(struct vm *v, uint64_t va, uint64_t n)
{
	struct vmap *m = vm_find(v, va);
	if (!m || n > m->rw_size - (va - m->va)) {
		if (!v->bad)
			v->bad_va = va;
		v->bad = true;
		return NULL;
	}
	return m->bytes + (va - m->va);
}

void vm_wbytes(struct vm *v, uint64_t va, const void *p, size_t n)
{
	uint8_t *d = vm_ptr(v, va, n);
	if (d && n)
		memcpy(d, p, n);
}

static void vm_wle(struct vm *v, uint64_t va, uint64_t x, unsigned n)
{
	uint8_t *d = vm_ptr(v, va, n);
	for (unsigned i = 0; d && i < n; i++)
		d[i] = (uint8_t)(x >> (8 * i));
}

static uint64_t vm_rle(struct vm *v, uint64_t va, unsigned n)
{
	uint8_t *d = vm_ptr(v, va, n);
	uint64_t x = 0;
	for (unsigned i = 0; d && i < n; i++)
		x |= (uint64_t)d[i] << (8 * i);
	return x;
}

void vm_w8(struct vm *v, uint64_t va, uint8_t x) { vm_wle(v, va, x, 1); }
void vm_w16(struct vm *v, uint64_t va, uint16_t x) { vm_wle(v, va, x, 2); }
void vm_w32(struct vm *v, uint64_t va, uint32_t x) { vm_wle(v, va, x, 4); }
void vm_w64(struct vm *v, uint64_t va, uint64_t x) { vm_wle(v, va, x, 8); }
void vm_wptr(struct vm *v, uint64_t va, uint64_t x) { vm_wle(v, va, x, v->ptr); }
uint8_t vm_r8(struct vm *v, uint64_t va) { return (uint8_t)vm_rle(v, va, 1); }
uint16_t vm_r16(struct vm *v, uint64_t va) { return (uint16_t)vm_rle(v, va, 2); }
uint32_t vm_r32(struct vm *v, uint64_t va) { return (uint32_t)vm_rle(v, va, 4); }
uint64_t vm_r64(struct vm *v, uint64_t va) { return vm_rle(v, va, 8); }

void vm_zero(struct vm *v, uint64_t va, uint64_t n)
{
	uint8_t *d = vm_ptr(v, va, n);
	if (d)
		memset(d, 0, n);
}

/* mem_map.cc: 5.0-9 ashmem "dalvik-<name>" (the kernel appends " (deleted)"), 10+ prctl
 * PR_SET_VMA_ANON_NAME shown as "[anon:dalvik-<name>]". */
void vm_dalvik_name(const struct fam *f, const char *name, char *out, size_t cap)
{
	if (f->ashmem)
		snprintf(out, cap, "/dev/ashmem/dalvik-%s (deleted)", name);
	else
		snprintf(out, cap, "[anon:dalvik-%s]", name);
}
