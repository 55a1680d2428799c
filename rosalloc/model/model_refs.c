/* model_refs.c - reading objects' words and references: the plausibility of a reference,
 * the reference offsets of an object, model_each_ref, and the references kept per object
 * (model_refs). */
#include "rosalloc/model/model_int.h"

#include <string.h>

#include "carver/base/ck.h"
#include "carver/base/xalloc.h"

/* The 32-bit pattern written over dead objects in unevacuated regions
 * (runtime/gc/space/region_space.cc kPoisonDeadObject @R10..R13). */
#define MODEL_POISON_DEAD 0xBADDB01Du

/* The 32-bit word at va when captured (a plausibility probe: no error, as mirror's
 * "is this a Class?" checks). */
bool model_peek32(const struct model *m, uint64_t va, uint32_t *v)
{
	const uint8_t *p = img_span(m->rt->img, va, 4, NULL);
	if (p)
		*v = ld_u32le(p);
	return p != NULL;
}

/* The 32-bit word at va; -ERR_UNMAPPED naming it when not captured (the common case is
 * model_peek32's one region lookup, no copy). */
int model_rd32(const struct model *m, uint64_t va, uint32_t *v, struct err *e)
{
	uint8_t b[4];
	if (model_peek32(m, va, v))
		return 0;
	int rc = img_read(m->rt->img, va, b, 4, e);   /* across two regions, or the error */
	if (rc == 0)
		*v = ld_u32le(b);
	return rc;
}

static uint64_t ospace_begin(const void *v, size_t i) { return ((const struct art_space *const *)v)[i]->begin; }

/* The object space holding va, NULL if none. */
static const struct art_space *ospace_at(const struct model *m, uint64_t va)
{
	size_t lo = bs_upper(m->ospace, m->ospace_count, ospace_begin, va);
	/* spaces may nest (a LOS allocation inside nothing else, image inside nothing): scan back */
	for (size_t i = lo; i-- > 0;)
		if (va >= m->ospace[i]->begin && va < m->ospace[i]->end)
			return m->ospace[i];
	return NULL;
}

/* True when some byte at va is captured. */
static bool captured(const struct model *m, uint64_t va)
{
	return img_span(m->rt->img, va, 1, NULL) != NULL;
}

static bool free_place(const struct model *m, uint32_t addr)
{
	return bs_find(m->free_places, m->free_count, bs_key_u32, addr) != SIZE_MAX;
}

bool model_is_free_place(const struct model *m, uint64_t addr)
{
	return !(addr >> MODEL_LOW4G_SHIFT) && free_place(m, (uint32_t)addr);
}

bool model_free_place_within(const struct model *m, uint64_t begin, uint64_t end)
{
	size_t lo = bs_lower(m->free_places, m->free_count, bs_key_u32, begin);   /* the first at or past begin */
	return lo < m->free_count && m->free_places[lo] < end;
}

/* A reference value is null or a plausible object start (see model.h); obj is model_ix_find(m, ref),
 * which the caller has already looked up. */
bool model_ref_plausible(const struct model *m, uint32_t ref, size_t obj)
{
	uint32_t k;

	if (ref == 0 || obj != MODEL_NONE)
		return true;
	if (ref & 7)
		return false;
	if (free_place(m, ref) || bs_find(m->damaged_starts, m->damaged_count, bs_key_u32, ref) != SIZE_MAX)
		return true;   /* a free place, or an allocated one whose own class word is damaged */
	if (!ospace_at(m, ref))
		return !captured(m, ref);
	if (!model_peek32(m, ref, &k))
		return true;   /* not captured: not refuted */
	/* a dead object a GC poisoned in an unevacuated region (10-13): dead garbage may still
	 * name it, as it may name a swept slot */
	if (k == MODEL_POISON_DEAD)
		return true;
	return k && !(k & 7) && runtime_class_at(m->rt, k) != NULL;
}

/* Bytes from the object's start to its first array element / character. */
uint32_t model_data_offset(const struct model *m, const struct model_class *mc)
{
	const struct art_layout *l = m->rt->layout;
	if (mc->kind == MODEL_STRING)
		return l->string.value;
	uint32_t a = mc->elem_size ? mc->elem_size : 1;
	return (l->array.data + a - 1) / a * a;
}

/* Reads the 32-bit word at off of an object whose bytes are in view (or through the
 * image when the object spans regions). */
static int obj_u32(const struct model *m, const struct model_obj *o, const struct cursor *view, uint32_t off,
		   uint32_t *v, struct err *e)
{
	if (view->base && off <= view->len && view->len - off >= 4) {
		*v = ld_u32le(view->base + off);
		return 0;
	}
	return model_rd32(m, model_va(m, o) + off, v, e);
}

/* A cursor over the object's bytes when one region holds them all, else an empty one. */
static void object_view(const struct model *m, const struct model_obj *o, struct cursor *view)
{
	uint64_t va = model_va(m, o);
	const uint8_t *p = img_span(m->rt->img, va, o->size, NULL);
	memset(view, 0, sizeof(*view));
	if (p)
		cur_init(view, p, o->size, va);
}

/* The reference offsets of an object, in the one order both readers (model_each_ref and
 * gather_in_view) keep them: an array's elements (`words` words from `data`), else the
 * instance reference fields of its class, then, for a Class object, its own reference statics. */
struct ref_offsets {
	uint32_t data, words;        /* array elements: `words` words from data (0 for other objects) */
	const uint32_t *off[2];      /* instance fields; a Class's own statics */
	uint32_t n[2];
	uint32_t end;                /* past the last word of either list (0 when both are empty) */
	uint32_t count;              /* words + n[0] + n[1] */
};

/* Fills r for o: false when o is a Class object the runtime model does not know (its statics
 * are then unknown). */
static inline bool ref_offsets_of(const struct model *m, const struct model_obj *o, struct ref_offsets *r)
{
	const struct model_class *mc = &m->classes[o->cls];
	r->n[1] = 0;
	if (o->kind == MODEL_OBJ_ARRAY) {
		r->data = model_data_offset(m, mc);
		r->words = r->count = o->size >= r->data ? (o->size - r->data) / 4 : 0;
		r->off[0] = NULL;
		r->n[0] = r->end = 0;
		return true;
	}
	r->words = 0;
	r->off[0] = mc->refs;
	r->n[0] = r->count = mc->ref_count;
	r->end = mc->refs_end;
	if (o->kind != MODEL_CLASS)
		return true;
	const struct rt_class *k = runtime_class_at(m->rt, model_va(m, o));
	if (!k)
		return false;
	const struct model_class *own = &m->classes[k - m->rt->classes];
	r->off[1] = own->static_refs;
	r->n[1] = own->static_ref_count;
	r->end = own->static_refs_end > r->end ? own->static_refs_end : r->end;
	r->count += own->static_ref_count;
	return true;
}

int model_each_ref(const struct model *m, const struct model_obj *o, model_ref_fn fn, void *arg, struct err *e)
{
	struct ref_offsets r;
	struct cursor view;
	int rc;

	if (!ref_offsets_of(m, o, &r))
		return ERR_SET(e, ERR_INTERNAL, model_va(m, o), "Class object at 0x%llx is not in the runtime model",
			       (unsigned long long)model_va(m, o));
	/* one zero-copy view of the whole object; an object across two regions is read word by word */
	object_view(m, o, &view);
	for (uint32_t i = 0; i < r.words; i++) {
		uint32_t v, off = r.data + 4 * i;
		if ((rc = obj_u32(m, o, &view, off, &v, e)) || (rc = fn(arg, off, v)))
			return rc;
	}
	for (int l = 0; l < 2; l++)
		for (uint32_t i = 0; i < r.n[l]; i++) {
			uint32_t v, off = r.off[l][i];
			if ((rc = obj_u32(m, o, &view, off, &v, e)) || (rc = fn(arg, off, v)))
				return rc;
		}
	return 0;
}

/* Room for n more kept references; -1 when out of memory (they are counted in 32 bits). */
static int reserve_refs(struct model *m, size_t n)
{
	size_t cap = m->ref_cap ? m->ref_cap : 4096;
	while (cap - m->ref_count < n)
		if (ck_mul(cap, 2, &cap))
			return -1;
	if (cap == m->ref_cap)
		return 0;
	uint32_t *v = cap <= UINT32_MAX ? xreallocarray(m->refs, cap, sizeof(*v)) : NULL;
	if (!v)
		return -1;
	m->refs = v;
	m->ref_cap = cap;
	return 0;
}

static int keep_ref(struct model *m, uint32_t value)
{
	if (reserve_refs(m, 1))
		return -1;
	m->refs[m->ref_count++] = value;
	return 0;
}

/* Keeps the non-null words at offs[0, n) of the bytes at p (room reserved). */
static void keep_words_at(struct model *m, const uint8_t *p, const uint32_t *offs, uint32_t n)
{
	uint32_t *d = m->refs + m->ref_count;
	for (uint32_t k = 0; k < n; k++) {
		*d = ld_u32le(p + offs[k]);
		d += *d != 0;   /* no branch on data the predictor cannot guess */
	}
	m->ref_count = (size_t)(d - m->refs);
}

/* Keeps the non-null words of the n words at p (room reserved). */
static void keep_words(struct model *m, const uint8_t *p, uint32_t n)
{
	uint32_t *d = m->refs + m->ref_count;
	for (uint32_t k = 0; k < n; k++) {
		*d = ld_u32le(p + 4ull * k);
		d += *d != 0;
	}
	m->ref_count = (size_t)(d - m->refs);
}

int model_scan_ref(void *arg, uint32_t off, uint32_t value)
{
	struct model_ref_scan *b = arg;
	if (value == 0)
		return 0;
	if (b->check) {   /* looking for the implausible one only */
		if (model_ref_plausible(b->m, value, model_ix_find(b->m, value)))   /* ranks are built before any check */
			return 0;
		b->off = off;
		b->value = value;
		return 1;
	}
	if (keep_ref(b->m, value)) {
		b->nomem = true;
		return 1;
	}
	return 0;
}

/* The references of o straight from its bytes, in model_each_ref's order (ref_offsets_of),
 * when one region holds the object and every offset lies inside it: 1 done, 0 not so
 * (model_each_ref reads them then), -1 out of memory.  This is the walk's hot path: no
 * callback per reference. */
static int gather_in_view(struct model *m, const struct model_obj *o)
{
	struct ref_offsets r;
	struct cursor view;

	object_view(m, o, &view);   /* first: nothing of r is then held across the call */
	if (!view.base || !ref_offsets_of(m, o, &r) || r.end > o->size)
		return 0;
	if (reserve_refs(m, r.count))
		return -1;
	if (r.words) {   /* an array: its words alone */
		keep_words(m, view.base + r.data, r.words);
		return 1;
	}
	if (r.n[0])   /* no call for a part the object does not have */
		keep_words_at(m, view.base, r.off[0], r.n[0]);
	if (r.n[1])
		keep_words_at(m, view.base, r.off[1], r.n[1]);
	return 1;
}

/* Appends the non-null references of object i (allocated objects only: a free object's are
 * stale) to refs and closes its slice: ref_at[i + 1]. */
int model_gather_refs(struct model *m, size_t i, struct err *e)
{
	const struct model_obj *o = &m->objs[i];
	struct model_ref_scan b = { m, false, false, 0, 0 };
	int rc = 0, fast = 0;

	m->ref_at[i] = (uint32_t)m->ref_count;
	if (o->alloc == MODEL_ALLOCATED && (fast = gather_in_view(m, o)) == 0)
		rc = model_each_ref(m, o, model_scan_ref, &b, e);
	if (fast < 0 || b.nomem || m->ref_count > UINT32_MAX)
		return model_nomem(e);
	m->ref_at[i + 1] = (uint32_t)m->ref_count;
	return rc < 0 ? rc : 0;
}
