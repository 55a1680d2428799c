/* alloc.h - the generator's allocators and object writers (internal to tests/synth). */
#ifndef SYNTH_ALLOC_H
#define SYNTH_ALLOC_H

#include "tests/synth/synth.h"

struct ros_run {
	uint64_t va;
	unsigned idx;
	bool tl;
	unsigned allocated;
};

struct ros {
	struct model *m;
	struct vmap *space, *pagemap;
	uint64_t begin, capacity;
	uint32_t npages, next_page;
	struct ros_bracket br[42];
	int cur[42], tl[42];            /* run index or -1 */
	struct ros_run *runs;
	unsigned nruns;
	size_t cap;
	int *run_of_page;
};

struct region {
	struct model *m;
	struct vmap *space;
	uint64_t begin, size;
	uint32_t rsize, nreg, next;
	uint64_t pos[3], end[3];        /* current region of each mode (0 none) */
	uint8_t *kind;                  /* per region: OW_* of its use */
};

struct dlm {
	struct model *m;
	struct vmap *map;
	uint64_t begin, cap;
	unsigned S;
	uint64_t ms;            /* malloc_state address (payload of chunk 0) */
	uint64_t top;
	uint64_t bump;          /* zygote: compacted objects start / pointer, 0 otherwise */
	uint64_t footprint_end;
};

/* CMC moving space (bump.c) */
#define BUMP_TLAB (32u * 1024)
struct bump {
	struct model *m;
	struct vmap *space;
	uint64_t begin, cap, end;       /* end: the space's bump pointer */
	uint64_t pos, tlab_end;         /* the current TLAB */
	unsigned tlabs;
	uint64_t main_end;              /* end of the main block (where the first TLAB began) */
};

struct los {
	struct model *m;
	bool freelist;
	struct vmap *space, *info;
	uint64_t begin, size, next_map;
	uint32_t npages, next_page;
};


struct ros *ros_new(struct model *m, uint64_t begin, uint64_t capacity, uint64_t pagemap_va);
uint64_t ros_alloc(struct ros *r, uint32_t size, uint8_t *where, uint32_t *slot);
uint64_t ros_alloc_reuse(struct ros *r, uint32_t size, uint8_t *where, uint32_t *slot);
void ros_free(struct ros *r, uint64_t a, bool bulk_pending);
void ros_finish(struct ros *r);
uint64_t ros_end(const struct ros *r);

struct region *region_new(struct model *m, uint64_t begin, uint64_t size);
uint64_t region_alloc(struct region *r, uint32_t size, int mode, uint8_t *where);
bool region_kill(struct region *r, uint64_t a, uint32_t size);
uint64_t region_end(const struct region *r);
uint32_t region_count_used(const struct region *r);

struct bump *bump_new(struct model *m, uint64_t begin, uint64_t cap);
uint64_t bump_alloc(struct bump *b, uint32_t size, int mode, uint8_t *where);
uint64_t bump_end(const struct bump *b);
/* Writes the from-space map `from` (as big as the moving space) as the last compaction left
 * it; 0, or -1 when a write fails. */
int bump_from_space(struct bump *b, struct vmap *from);

struct los *los_new(struct model *m, bool freelist, uint64_t begin, uint64_t size, uint64_t info_va);
uint64_t los_alloc(struct los *l, uint32_t size, uint8_t *where);
bool los_free(struct los *l, uint64_t a);
bool los_is_last(const struct los *l, uint64_t a, uint32_t size);
uint64_t los_end(const struct los *l);

struct dlm *dlm_new(struct model *m, const char *name, uint64_t begin, uint64_t cap, enum sp_kind sp);
uint64_t dlm_alloc(struct dlm *d, uint32_t size, uint32_t *chunk);
bool dlm_free(struct dlm *d, uint64_t mem);
uint64_t dlm_next_mem(struct dlm *d, uint64_t mem);
bool dlm_in_use(struct dlm *d, uint64_t mem);
uint64_t dlm_top(const struct dlm *d);
unsigned dlm_word(const struct dlm *d);
uint64_t dlm_bump(struct dlm *d, uint32_t size);
uint64_t dlm_finish(struct dlm *d);
uint64_t dlm_bump_start(const struct dlm *d);

int heap_alloc(struct model *m, int cls, uint32_t size, enum sp_kind hint, int region_mode);
void obj_header(struct model *m, int oi);
void class_write(struct model *m, int ki);
void class_size(struct model *m, int ki);
uint32_t class_off(const struct model *m, const char *field);
void obj_set(struct model *m, uint32_t addr, const struct kfield *f, uint64_t v);
void obj_setf(struct model *m, int oi, const char *name, uint64_t v);
const struct kfield *klass_field_find(const struct model *m, int ki, const char *name);
const struct kfield *klass_static_find(const struct model *m, int ki, const char *name);
uint32_t array_data_off(char elem);
uint32_t array_size(char elem, uint32_t n);

int dexw_build(struct model *m, int dex, struct wbuf *out);

#endif
