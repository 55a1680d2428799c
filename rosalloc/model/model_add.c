/* model_add.c - candidates to objects: the checks and states of model_add (model.h), empty
 * free places, and the walk units' gaps (model_unit). */
#include "rosalloc/model/model_int.h"

#include <string.h>

#include "carver/base/xalloc.h"

struct cand_ctx {
	const struct walk_candidate *c;
	const char *space;
	uint32_t addr, where;   /* model address and walker detail (aliased above 4 GiB) */
	bool aliased;
};

static void reject(struct model *m, const struct cand_ctx *x, enum anomaly_code code, enum err_code cause,
		   const char *what, uint64_t detail)
{
	m->rejected++;
	anomaly_add(m->sink, code, cause, x->c->addr, x->space, "candidate at 0x%llx (%s room %llu): %s 0x%llx",
		    (unsigned long long)x->c->addr, x->c->alloc == WALK_FREE ? MODEL_FREE_CANDIDATE : "allocated,",
		    (unsigned long long)x->c->room, what, (unsigned long long)detail);
}

bool model_anomaly_free_candidate(const struct anomaly *a)
{
	return a->code >= ANOM_CANDIDATE && a->code <= ANOM_OBJ_UNMAPPED && !strncmp(a->msg, "candidate at ", 13) &&
	       strstr(a->msg, " (" MODEL_FREE_CANDIDATE " room ");
}

/* Size of an array or string object from its length; false when it cannot fit room. */
static bool sized_by_length(const struct model *m, const struct model_class *mc, uint64_t addr, uint64_t room,
			    uint32_t *size, uint64_t *len_out, bool *compressed, struct err *e, int *rc)
{
	const struct art_layout *l = m->rt->layout;
	uint32_t raw, len, unit = mc->elem_size;
	uint64_t data = model_data_offset(m, mc);

	*rc = model_rd32(m, addr + (mc->kind == MODEL_STRING ? l->string.count : l->array.length), &raw, e);
	if (*rc)
		return false;
	len = raw;
	*compressed = false;
	if (mc->kind == MODEL_STRING) {
		/* 8.0+: count_ = length << 1 | 1 for UTF-16, | 0 for 8-bit (runtime/mirror/string.h @R80) */
		*compressed = l->string.compressible && !(raw & 1);
		len = l->string.compressible ? raw >> 1 : raw;
		unit = *compressed ? 1 : 2;
	}
	*len_out = len;
	if (unit == 0 || data > room || len > (room - data) / unit)
		return false;
	/* room is 64-bit (a large-object mapping may be huge); the model keeps 32-bit sizes */
	uint64_t total = data + (uint64_t)len * unit;
	if (total > UINT32_MAX)
		return false;
	*size = (uint32_t)total;
	return true;
}

/* True when some byte of [addr + from, addr + room) is captured and not zero. */
static bool bytes_left(const struct model *m, uint64_t addr, uint64_t from, uint64_t room)
{
	size_t rest;
	const uint8_t *p = img_span(m->rt->img, addr, 0, &rest);
	if (!p || from >= room)
		return false;
	uint64_t end = room < rest ? room : rest;
	for (uint64_t i = from; i < end; i++)
		if (p[i])
			return true;
	return false;
}

/* Keeps a residue place: bytes survive past the allocator's links or the zero class word. */
static int residue_place(struct model *m, const struct walk_candidate *c, uint32_t from, struct err *e)
{
	if (XALLOC_GROW(m->residue, m->residue_cap, m->residue_count + 1, 64))
		return model_nomem(e);
	m->residue[m->residue_count++] = (struct model_residue){ .addr = c->addr, .room = c->room, .from = from,
								   .space = (uint16_t)(c->space - m->rt->spaces.v) };
	return 0;
}

/* An empty free place: counted per space, its start kept for the reference check, and kept as
 * residue when bytes past the allocator's links (or past the zero class word) survive. */
static int empty_place(struct model *m, const struct cand_ctx *x, struct err *e)
{
	const struct walk_candidate *c = x->c;
	struct model_space_count *s = &m->per_space[c->space - m->rt->spaces.v];
	uint32_t past_klass = m->rt->layout->object.klass + 4;
	uint32_t from = c->clobbered > past_klass ? c->clobbered : past_klass;
	bool left = bytes_left(m, c->addr, from, c->room);
	m->empty++;
	s->empty++;
	/* untyped counts the places whose links hid the class word (past bytes as from) */
	if (c->clobbered && (c->clobbered == from ? left : bytes_left(m, c->addr, c->clobbered, c->room))) {
		m->untyped++;
		s->untyped++;
	}
	if (left && residue_place(m, c, from, e))
		return -ERR_NOMEM;
	if (x->aliased)
		return 0;   /* a reference into a window names nothing, not even a free place */
	if (XALLOC_GROW(m->free_places, m->free_cap, m->free_count + 1, 1024))
		return model_nomem(e);
	m->free_places[m->free_count++] = x->addr;
	return 0;
}

/* An allocated place the allocator holds whose class word is damaged: an object start for
 * the references to it (its referrers are sound; model_ref_plausible). */
static int damaged_start(struct model *m, const struct cand_ctx *x, struct err *e)
{
	if (x->c->alloc != WALK_ALLOCATED || x->aliased)
		return 0;
	if (XALLOC_GROW(m->damaged_starts, m->damaged_cap, m->damaged_count + 1, 64))
		return model_nomem(e);
	m->damaged_starts[m->damaged_count++] = x->addr;
	return 0;
}

/* Appends an object; its references are gathered now, while the walk has its bytes at hand. */
static int push(struct model *m, const struct model_obj *o, struct err *e)
{
	if (m->count >= MODEL_REF_NONE - 1)   /* indexes are 32-bit (model_refs) */
		return ERR_SET(e, ERR_UNSUP, model_va(m, o), "more than %u objects", MODEL_REF_NONE - 1);
	if (m->count == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 4096;
		struct model_obj *v = xreallocarray(m->objs, cap, sizeof(*v));
		uint32_t *at = v ? xreallocarray(m->ref_at, cap + 1, sizeof(*at)) : NULL;
		if (v)
			m->objs = v;
		if (!at)
			return model_nomem(e);
		m->ref_at = at;
		m->cap = cap;
	}
	m->objs[m->count] = *o;
	m->object_bytes += o->size;
	return model_gather_refs(m, m->count++, e);
}

/* Confidence (0-100) that the object is what the model says: allocator metadata that
 * agrees, extra evidence (live bitmap, allocation stack), and how much of it survives. */
static uint8_t confidence_of(const struct walk_candidate *c, enum model_content content)
{
	if (content == MODEL_PARTIAL)
		return 50;
	if (content == MODEL_RESIDUE)
		return 70;
	if (c->alloc == WALK_ALLOCATED)
		return 100;
	return c->live_bit == 1 || c->on_alloc_stack == 1 ? 95 : 90;
}

/* The class word of a Class object: size from class_size_, or not an object (retired). */
static bool class_object(struct model *m, const struct cand_ctx *x, struct model_obj *o)
{
	const struct rt_class *self = runtime_class_at(m->rt, x->c->addr);
	struct mirror_class mcl;
	struct err why;

	if (self) {
		o->kind = MODEL_CLASS;
		o->cls = (uint32_t)m->jlc;
		o->size = self->raw.class_size;
		return true;
	}
	err_init(&why);
	if (mirror_class_read(&m->rt->m, x->c->addr, &mcl, &why) == 0 && mirror_class_retired(&m->rt->m, &mcl)) {
		m->retired++;   /* ART's own HPROF leaves retired classes out too */
		return false;
	}
	reject(m, x, ANOM_OBJ_CLASS, why.code ? why.code : ERR_CORRUPT,
	       "class word is java.lang.Class but the runtime model has no Class at", x->c->addr);
	return false;
}

/* Size of an object of class k; false (and an anomaly) when it does not fit. */
static bool size_object(struct model *m, const struct cand_ctx *x, struct model_obj *o, struct err *e, int *rc)
{
	const struct model_class *mc = &m->classes[o->cls];
	const struct rt_class *k = &m->rt->classes[o->cls];
	uint64_t len = 0;
	bool compressed = false;

	*rc = 0;
	o->kind = (uint8_t)mc->kind;
	if (mc->kind == MODEL_INSTANCE) {
		o->size = k->raw.object_size;
	} else if ((mc->kind == MODEL_OBJ_ARRAY || mc->kind == MODEL_PRIM_ARRAY) && !mc->elem) {
		reject(m, x, ANOM_OBJ_CLASS, ERR_UNSUP, "array class without a known component type:", k->addr);
		return false;
	} else if (!sized_by_length(m, mc, x->c->addr, x->c->room, &o->size, &len, &compressed, e, rc)) {
		if (*rc == 0)
			reject(m, x, ANOM_OBJ_LENGTH, ERR_CORRUPT, "length does not fit the room:", len);
		return false;
	}
	if (compressed)
		o->flags |= MODEL_F_COMPRESSED;
	if (o->size < m->rt->layout->object.size || o->size > x->c->room) {
		reject(m, x, ANOM_OBJ_SIZE, ERR_CORRUPT, "object size does not fit the room:", o->size);
		return false;
	}
	return true;
}

/* k: the class klass names (model_add looked it up). */
static int add_checked(struct model *m, const struct cand_ctx *x, uint32_t klass, const struct rt_class *k,
		       struct err *e)
{
	const struct walk_candidate *c = x->c;
	struct model_obj o;
	int rc = 0;

	memset(&o, 0, sizeof(o));
	o.addr = x->addr;
	if (klass == (uint32_t)m->rt->java_lang_class && m->jlc != MODEL_NONE) {
		if (!class_object(m, x, &o))
			return 0;
		if (o.size < m->rt->layout->klass.size || o.size > c->room) {
			reject(m, x, ANOM_OBJ_SIZE, ERR_CORRUPT, "class_size_ does not fit the room:", o.size);
			return 0;
		}
	} else {
		o.cls = (uint32_t)(k - m->rt->classes);
		if (!size_object(m, x, &o, e, &rc)) {
			if (rc != -ERR_UNMAPPED)
				return rc;
			anomaly_add_err(m->sink, ANOM_OBJ_UNMAPPED, x->space, e);
			m->rejected++;
			return 0;
		}
	}
	o.alloc = c->alloc == WALK_FREE ? MODEL_FREE : MODEL_ALLOCATED;
	o.content = o.alloc == MODEL_ALLOCATED ? MODEL_INTACT : c->clobbered ? MODEL_PARTIAL : MODEL_RESIDUE;
	if (!m->classes[o.cls].fields_ok && o.kind != MODEL_OBJ_ARRAY && o.kind != MODEL_PRIM_ARRAY)
		o.flags |= MODEL_F_UNCHECKED;
	o.where = x->where;
	o.index = c->index;
	o.place = (uint8_t)c->place;
	o.space = (uint16_t)(c->space - m->rt->spaces.v);
	o.reach = MODEL_REACH_UNKNOWN;
	o.confidence = confidence_of(c, o.content);
	if ((o.flags & MODEL_F_UNCHECKED) && o.confidence > 80)
		o.confidence = 80;   /* a class without field layout: references not checked */
	return push(m, &o, e);
}

int model_unit(void *arg, const struct walk_unit *u, struct err *e)
{
	struct model *m = arg;
	if (!u->gap_end || !u->space)
		return 0;
	struct model_walk_gap *v = xreallocarray(m->gaps, m->gap_count + 1, sizeof(*v));
	if (!v)
		return model_nomem(e);
	m->gaps = v;
	v[m->gap_count++] = (struct model_walk_gap){ u->gap_begin, u->gap_end, u->top,
						     (uint16_t)(u->space - m->rt->spaces.v) };
	return 0;
}

int model_add(void *arg, const struct walk_candidate *c, struct err *e)
{
	struct model *m = arg;
	struct cand_ctx x = { c, c->space && c->space->name ? c->space->name : "", 0, 0, false };
	uint32_t klass;

	m->candidates++;
	img_drop_behind(m->rt->img, &m->drop, c->addr);   /* the walkers go in address order */
	if (!c->space || c->space < m->rt->spaces.v || c->space >= m->rt->spaces.v + m->rt->spaces.count)
		return ERR_SET(e, ERR_INTERNAL, c->addr, "candidate at 0x%llx names no space of the runtime model",
			       (unsigned long long)c->addr);
	if (c->addr >> MODEL_LOW4G_SHIFT && !(c->addr & 7) && c->addr >= c->space->begin && c->addr < c->space->end) {
		int rc;
		const struct model_alias *a = model_alias_of_space(m, c->space, &rc, e);
		if (rc)
			return rc;
		if (!a) {
			m->rejected++;   /* the space's one anomaly says why */
			return 0;
		}
		x.aliased = true;
		x.addr = (uint32_t)(c->addr - a->real + a->alias);
		x.where = c->where >= a->real && c->where - a->real < a->len ? (uint32_t)(c->where - a->real + a->alias)
									 : (uint32_t)c->where;
	} else if (c->addr >> MODEL_LOW4G_SHIFT || c->addr & 7 || c->where >> MODEL_LOW4G_SHIFT) {
		reject(m, &x, ANOM_CANDIDATE, ERR_CORRUPT, "not an 8-aligned address below 4 GiB:", c->addr);
		return 0;
	} else {
		x.addr = (uint32_t)c->addr;
		x.where = (uint32_t)c->where;
	}
	if (!model_peek32(m, c->addr + m->rt->layout->object.klass, &klass)) {
		if (c->alloc == WALK_FREE)
			return empty_place(m, &x, e);
		reject(m, &x, ANOM_OBJ_UNMAPPED, ERR_UNMAPPED, "class word not captured at", c->addr);
		return 0;
	}
	if (c->alloc == WALK_FREE && (klass == 0 || c->clobbered > m->rt->layout->object.klass))
		return empty_place(m, &x, e);   /* a zeroed slot, or the class word holds the allocator's link */
	const struct rt_class *k = klass && !(klass & 7) ? runtime_class_at(m->rt, klass) : NULL;
	if (!k && m->jlc != MODEL_NONE && runtime_class_at(m->rt, c->addr)) {
		/* a Class the runtime model read whose own class word is damaged (it recorded that) */
		klass = (uint32_t)m->rt->java_lang_class;
		k = &m->rt->classes[m->jlc];
	}
	if (!k) {
		reject(m, &x, ANOM_OBJ_CLASS, ERR_CORRUPT, "class word names no Class:", klass);
		return damaged_start(m, &x, e);
	}
	return add_checked(m, &x, klass, k, e);
}
