/* damage_lib.h - shared by the damage sweep (tests/tools/damage_sweep.c) and its fuzz target
 * (tests/fuzz/fuzz_damage.c): an ELF core patched word by word in place, the objects of a
 * carve, the recall of the objects a damaged word did not touch, and the words worth
 * damaging (Class fields, objects, allocator metadata) found from an undamaged carve.
 * Header-only (static functions): every tests/tools/NAME.c is a program of its own. */
#ifndef ARTCARVE_DAMAGE_LIB_H
#define ARTCARVE_DAMAGE_LIB_H

#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "carver/base/xalloc.h"
#include "carver/pipeline/carve.h"

/* ---- the core, patched in place ---- */

struct dmg_load { uint64_t va, offset, filesz; };

struct dmg_core {
	const char *path;
	int fd;
	struct dmg_load *load;
	size_t load_count, load_cap;
	uint64_t size;
};

static inline uint64_t dmg_le(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;
	for (unsigned i = n; i-- > 0;)
		v = v << 8 | p[i];
	return v;
}

/* Reads the PT_LOAD headers of the ELF32/ELF64 little-endian core at path (opened for
 * writing).  Returns 0 or -1 with a message on stderr. */
static inline int dmg_core_open(struct dmg_core *k, const char *path)
{
	uint8_t h[64], ph[56];
	struct stat st;

	memset(k, 0, sizeof(*k));
	k->path = path;
	if ((k->fd = open(path, O_RDWR)) < 0 || fstat(k->fd, &st) || pread(k->fd, h, 64, 0) != 64 ||
	    memcmp(h, "\177ELF", 4) || h[5] != 1) {
		fprintf(stderr, "%s: not a writable little-endian ELF core\n", path);
		return -1;
	}
	k->size = (uint64_t)st.st_size;
	bool b64 = h[4] == 2;
	uint64_t phoff = b64 ? dmg_le(h + 32, 8) : dmg_le(h + 28, 4);
	unsigned phentsize = (unsigned)dmg_le(h + (b64 ? 54 : 42), 2), phnum = (unsigned)dmg_le(h + (b64 ? 56 : 44), 2);
	if (phentsize > sizeof(ph) || phentsize < (b64 ? 56u : 32u))
		return -1;
	for (unsigned i = 0; i < phnum; i++) {
		if (pread(k->fd, ph, phentsize, (off_t)(phoff + (uint64_t)i * phentsize)) != (ssize_t)phentsize)
			return -1;
		if (dmg_le(ph, 4) != 1)   /* PT_LOAD */
			continue;
		if (XALLOC_GROW(k->load, k->load_cap, k->load_count + 1, 64))
			return -1;
		struct dmg_load *l = &k->load[k->load_count++];
		l->offset = b64 ? dmg_le(ph + 8, 8) : dmg_le(ph + 4, 4);
		l->va = b64 ? dmg_le(ph + 16, 8) : dmg_le(ph + 8, 4);
		l->filesz = b64 ? dmg_le(ph + 32, 8) : dmg_le(ph + 16, 4);
	}
	return 0;
}

static inline void dmg_core_close(struct dmg_core *k)
{
	if (k->fd >= 0)
		close(k->fd);
	xfree(k->load);
	memset(k, 0, sizeof(*k));
}

/* File offset of the 4 bytes at va, or UINT64_MAX when the core does not hold them. */
static inline uint64_t dmg_core_offset(const struct dmg_core *k, uint64_t va)
{
	for (size_t i = 0; i < k->load_count; i++) {
		const struct dmg_load *l = &k->load[i];
		if (va >= l->va && va - l->va <= l->filesz && l->filesz - (va - l->va) >= 4 &&
		    l->offset + (va - l->va) + 4 <= k->size)
			return l->offset + (va - l->va);
	}
	return UINT64_MAX;
}

/* Writes value (little-endian) at va, the word there before in *old.  0 or -1. */
static inline int dmg_core_patch(struct dmg_core *k, uint64_t va, uint32_t value, uint32_t *old)
{
	uint64_t off = dmg_core_offset(k, va);
	uint8_t b[4] = { (uint8_t)value, (uint8_t)(value >> 8), (uint8_t)(value >> 16), (uint8_t)(value >> 24) }, was[4];
	if (off == UINT64_MAX || pread(k->fd, was, 4, (off_t)off) != 4 || pwrite(k->fd, b, 4, (off_t)off) != 4) {
		fprintf(stderr, "%s: cannot patch 0x%" PRIx64 "\n", k->path, va);
		return -1;
	}
	*old = (uint32_t)dmg_le(was, 4);
	return 0;
}

static inline uint64_t dmg_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* ---- the objects of a carve ---- */

struct dmg_obj {
	uint32_t addr, size;       /* model address (the HPROF id) and size */
	uint64_t va;               /* real address */
	uint64_t cls;              /* its Class's address */
	unsigned kind;             /* enum model_kind */
};

struct dmg_objects {
	struct dmg_obj *v;
	size_t count;
};

static inline int dmg_objects_take(struct dmg_objects *o, const struct model *m)
{
	o->count = 0;
	if (!(o->v = xcalloc(m->count ? m->count : 1, sizeof(*o->v))))
		return -1;
	for (size_t i = 0; i < m->count; i++) {
		const struct model_obj *x = &m->objs[i];
		if (x->flags & MODEL_F_DROPPED)
			continue;
		o->v[o->count++] = (struct dmg_obj){ x->addr, x->size, model_va(m, x), m->rt->classes[x->cls].addr, x->kind };
	}
	return 0;
}

static inline void dmg_objects_free(struct dmg_objects *o)
{
	xfree(o->v);
	memset(o, 0, sizeof(*o));
}

/* True when the baseline object is carved alike in m: same address, size and class. */
static inline bool dmg_kept(const struct model *m, const struct dmg_obj *b)
{
	size_t lo = 0, hi = m->count;   /* by model address: model_find names no alias-window object */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->objs[mid].addr < b->addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == m->count || m->objs[lo].addr != b->addr)
		return false;
	const struct model_obj *x = &m->objs[lo];
	return !(x->flags & MODEL_F_DROPPED) && x->size == b->size && m->rt->classes[x->cls].addr == b->cls;
}

/* True when the object's bytes include one of the words at va[0..n). */
static inline bool dmg_touches(const struct dmg_obj *b, const uint64_t *va, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (va[i] + 4 > b->va && va[i] < b->va + b->size)
			return true;
	return false;
}

/* The share of the baseline's objects untouched by the damaged words va[0..n) that m keeps
 * (1 when there are none); why names the first lost one.  An object is touched when its
 * bytes include a damaged word, or its Class's do (a damaged Class may cost its own
 * instances, never other classes' objects). */
static inline double dmg_recall(const struct dmg_objects *base, const struct model *m, const uint64_t *va, size_t n,
			 char *why, size_t why_len)
{
	uint64_t untouched = 0, kept = 0, lost = 0, classes[8];
	size_t nc = 0;
	for (size_t i = 0; i < base->count; i++)
		if (base->v[i].kind == MODEL_CLASS && nc < 8 && dmg_touches(&base->v[i], va, n))
			classes[nc++] = base->v[i].va;
	for (size_t i = 0; i < base->count; i++) {
		const struct dmg_obj *b = &base->v[i];
		bool touched = dmg_touches(b, va, n);
		for (size_t k = 0; k < nc && !touched; k++)
			touched = b->cls == classes[k];
		if (touched)
			continue;
		untouched++;
		if (dmg_kept(m, b))
			kept++;
		else if (lost++ == 0)
			snprintf(why, why_len, "first lost 0x%" PRIx64 " of class 0x%" PRIx64, b->va, b->cls);
	}
	if (lost)
		snprintf(why + strlen(why), why_len - strlen(why), ", %" PRIu64 " lost", lost);
	return untouched ? (double)kept / (double)untouched : 1;
}

/* True when every output o wants was written (non-empty); else why names the missing one. */
static inline bool dmg_outputs_written(const struct carve *c, const struct carve_opts *o, char *why, size_t n)
{
	for (unsigned i = 0; i < CARVE_OUT_COUNT; i++) {
		struct stat st;
		if (!carve_output_file(i) || (o->skip & 1u << i))
			continue;
		if (!c->path[i] || stat(c->path[i], &st) || st.st_size == 0) {
			snprintf(why, n, "%s not written", carve_output_file(i));
			return false;
		}
	}
	return true;
}

/* ---- the words worth damaging ---- */

#define DMG_MAX_VA 256

struct dmg_target {
	char field[48];
	uint64_t va[DMG_MAX_VA];
	size_t va_count;
	unsigned runs;             /* 0: the sweep's runs per field */
};

struct dmg_targets {
	struct dmg_target *v;
	size_t count, cap;
};

static inline void dmg_targets_free(struct dmg_targets *t)
{
	xfree(t->v);
	memset(t, 0, sizeof(*t));
}

static struct dmg_target *dmg_field(struct dmg_targets *t, const char *field)
{
	for (size_t i = 0; i < t->count; i++)
		if (!strcmp(t->v[i].field, field))
			return &t->v[i];
	if (XALLOC_GROW(t->v, t->cap, t->count + 1, 16))
		return NULL;
	struct dmg_target *g = &t->v[t->count++];
	memset(g, 0, sizeof(*g));
	snprintf(g->field, sizeof(g->field), "%s", field);
	return g;
}

/* Adds va to field (up to DMG_MAX_VA words; later ones replace earlier ones at random). */
static inline void dmg_add(struct dmg_targets *t, const char *field, uint64_t va, uint64_t *rng)
{
	struct dmg_target *g = dmg_field(t, field);
	if (!g)
		return;
	if (g->va_count < DMG_MAX_VA)
		g->va[g->va_count++] = va;
	else
		g->va[dmg_rand(rng) % DMG_MAX_VA] = va;
}

/* The fixed fields of mirror::Class with their layout-row offsets. */
#define DMG_KLASS(f) { #f, offsetof(struct art_layout, klass.f) }
static const struct { const char *name; size_t off; } dmg_klass_fields[] = {
	DMG_KLASS(class_loader), DMG_KLASS(component_type), DMG_KLASS(dex_cache), DMG_KLASS(ext_data),
	DMG_KLASS(iftable), DMG_KLASS(name), DMG_KLASS(super_class), DMG_KLASS(vtable),
	DMG_KLASS(access_flags), DMG_KLASS(class_flags), DMG_KLASS(class_size), DMG_KLASS(clinit_thread_id),
	DMG_KLASS(dex_class_def_idx), DMG_KLASS(dex_type_idx), DMG_KLASS(num_reference_instance_fields),
	DMG_KLASS(num_reference_static_fields), DMG_KLASS(object_size), DMG_KLASS(object_size_alloc_fast_path),
	DMG_KLASS(primitive_type), DMG_KLASS(reference_instance_offsets), DMG_KLASS(status), DMG_KLASS(ifields),
	DMG_KLASS(sfields), DMG_KLASS(methods), DMG_KLASS(copied_methods_offset),
	DMG_KLASS(virtual_methods_offset), DMG_KLASS(num_instance_fields),
};

/* Every Class field of the classes at cls[0..n), and the class word and monitor of it. */
static inline void dmg_class_targets(struct dmg_targets *t, const struct art_runtime *rt, const uint64_t *cls, size_t n,
			      uint64_t *rng)
{
	char name[48];
	for (size_t f = 0; f < sizeof(dmg_klass_fields) / sizeof(dmg_klass_fields[0]); f++) {
		unsigned off = *(const unsigned *)((const char *)rt->layout + dmg_klass_fields[f].off);
		if (off == ART_ABSENT)
			continue;
		snprintf(name, sizeof(name), "Class.%s", dmg_klass_fields[f].name);
		for (size_t i = 0; i < n; i++)
			dmg_add(t, name, cls[i] + off, rng);
	}
	for (size_t i = 0; i < n; i++) {
		dmg_add(t, "Class.klass_", cls[i] + rt->layout->object.klass, rng);
		dmg_add(t, "Class.monitor_", cls[i] + rt->layout->object.monitor, rng);
	}
}

/* The classes whose damage costs most: the one with most instances, java.lang.String's
 * class and one at random. */
static inline size_t dmg_pick_classes(const struct model *m, uint64_t *cls, uint64_t *rng)
{
	size_t best = MODEL_NONE, n = 0, count = m->rt->class_count;
	for (size_t i = 0; i < count; i++)
		if (i != m->jlc && (best == MODEL_NONE || m->classes[i].objects > m->classes[best].objects))
			best = i;
	if (best != MODEL_NONE)
		cls[n++] = m->rt->classes[best].addr;
	if (m->jls != MODEL_NONE)
		cls[n++] = m->rt->classes[m->jls].addr;
	if (count)
		cls[n++] = m->rt->classes[dmg_rand(rng) % count].addr;
	return n;
}

static inline void dmg_object_targets(struct dmg_targets *t, const struct model *m, uint64_t *rng)
{
	const struct art_layout *L = m->rt->layout;
	for (size_t i = 0; i < m->count; i++) {
		const struct model_obj *o = &m->objs[i];
		uint64_t va = model_va(m, o);
		const struct art_space *sp = model_space(m, o);
		if (o->flags & MODEL_F_DROPPED || o->alloc != MODEL_ALLOCATED)
			continue;
		if (o->kind == MODEL_INSTANCE && o->size >= 8)
			dmg_add(t, "instance", va + (dmg_rand(rng) % (o->size / 4)) * 4, rng);
		else if (o->kind == MODEL_OBJ_ARRAY || o->kind == MODEL_PRIM_ARRAY)
			dmg_add(t, "array.length", va + L->array.length, rng);
		else if (o->kind == MODEL_STRING)
			dmg_add(t, "String.count_", va + L->string.count, rng);
		if (sp && (sp->kind == SPACE_DLMALLOC || sp->kind == SPACE_ZYGOTE) && va >= m->rt->pointer_size)
			dmg_add(t, "dlmalloc.chunk_head", va - m->rt->pointer_size, rng);
		/* region space: the word after a region's last object, where the walk's top is */
		uint64_t next = va + ((o->size + 7u) & ~7u);
		if (sp && sp->kind == SPACE_REGION && next < sp->end && (next & ~(uint64_t)0x3ffff) == (va & ~(uint64_t)0x3ffff) &&
		    model_find(m, o->addr + (next - va)) == MODEL_NONE)
			dmg_add(t, "region.top", next, rng);
		if (sp && sp->kind == SPACE_LOS_FREELIST && sp->companion)
			/* FreeListSpace::AllocationInfo {prev_free_, alloc_size_}, one per page
			 * (runtime/gc/space/large_object_space.h @R11) */
			for (unsigned w = 0; w < 2; w++)
				dmg_add(t, "los.table", sp->companion + (va - sp->begin) / 4096 * 8 + 4 * w, rng);
	}
}

/* Allocator metadata from the walk's units: the page-map byte and the header of each RosAlloc
 * run (Run: magic_num_, size_bracket_idx_, is_thread_local_, to_be_bulk_freed_,
 * top_bitmap_idx_; then SlotFreeList free_list_ {head_, tail_, size_}: rosalloc.h @R11), the
 * word after a region's last object (the top the walk found). */
static inline void dmg_unit_targets(struct dmg_targets *t, const struct report_units *u, uint64_t *rng)
{
	for (size_t i = 0; i < u->count; i++) {
		const struct report_unit *x = &u->v[i];
		if (x->kind == WALK_UNIT_RUN && x->space && x->space->companion) {
			dmg_add(t, "rosalloc.page_map", x->space->companion + (x->begin - x->space->begin) / 4096, rng);
			dmg_add(t, "rosalloc.run_header", x->begin + 4 * (dmg_rand(rng) % 2), rng);
			dmg_add(t, "rosalloc.free_list", x->begin + 8 + 4 * (dmg_rand(rng) % 5), rng);
		} else if (x->kind == WALK_UNIT_LARGE && x->space && x->space->companion)
			dmg_add(t, "rosalloc.page_map", x->space->companion + (x->begin - x->space->begin) / 4096, rng);
	}
}

/* The undamaged carve: every output (report.html included: its units name the allocator
 * metadata), the objects into *base, the words to damage into *t, and a near-miss heap
 * address (an object's address + 4) into *near_miss.  0 or -1. */
static inline int dmg_baseline(struct dmg_objects *base, struct dmg_targets *t, const char *core, const char *maps,
			const char *out, uint32_t *near_miss)
{
	struct carve_opts o = { .image = core, .maps = maps, .out_dir = out, .force = true };   /* runs share out */
	struct carve c;
	struct err e;
	uint64_t rng = 0x9e3779b97f4a7c15ull, cls[3];
	int rc;

	err_init(&e);
	if ((rc = carve_run(&c, &o, &e)))
		fprintf(stderr, "%s: baseline carve: %s\n", core, e.msg);
	else if ((rc = dmg_objects_take(base, &c.m)) == 0) {
		dmg_class_targets(t, &c.rt, cls, dmg_pick_classes(&c.m, cls, &rng), &rng);
		dmg_object_targets(t, &c.m, &rng);
		dmg_unit_targets(t, &c.units, &rng);
		*near_miss = base->count ? base->v[base->count / 2].addr + 4 : 0x12c00004u;
	}
	carve_release(&c);
	return rc ? -1 : 0;
}

#endif
