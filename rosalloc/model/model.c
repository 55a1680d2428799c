/* model.c - candidates to objects: consistency checks, states, the object table (model.h). */
#include "rosalloc/model/model.h"

#include <stdlib.h>
#include <string.h>

#include "carver/base/bsearch.h"
#include "carver/base/ck.h"
#include "carver/base/cursor.h"
#include "carver/base/xalloc.h"

enum {
	MODEL_MAX_DEPTH = 4096,        /* longest super-class chain walked (hostile cycles) */
	MODEL_LOW4G_SHIFT = 32,
	MODEL_PRIM_MAX = 8,            /* Primitive::Type kPrimDouble (runtime/primitive.h @R11) */
};

/* Alias windows (model.h): they lie in [MODEL_ALIAS_FLOOR, MODEL_ALIAS_CEIL), start on a
 * MODEL_ALIAS_ALIGN boundary and keep MODEL_ALIAS_GUARD bytes from every mapping, space and
 * other window.  The ceiling keeps the top of the 32-bit id space to the ids a carved HPROF
 * invents for its marks (output/hprof/hprof_mark.h). */
#define MODEL_ALIAS_FLOOR 0x1000000ull
#define MODEL_ALIAS_CEIL 0xff000000ull
#define MODEL_ALIAS_ALIGN 0x100000ull
#define MODEL_ALIAS_GUARD 0x100000ull

/* The 32-bit pattern written over dead objects in unevacuated regions
 * (runtime/gc/space/region_space.cc kPoisonDeadObject @R10..R13). */
#define MODEL_POISON_DEAD 0xBADDB01Du

static const char *const alloc_names[] = { "allocated", "free" };
static const char *const content_names[] = { "intact", "partial", "residue" };
static const char *const reach_names[] = { "unknown", "reachable", "unreachable" };
static const char *const kind_names[] = { "instance", "string", "class", "object-array", "primitive-array" };

const char *model_alloc_name(unsigned v) { return v < MODEL_ALLOC_COUNT ? alloc_names[v] : "?"; }
const char *model_content_name(unsigned v) { return v < MODEL_CONTENT_COUNT ? content_names[v] : "?"; }
const char *model_reach_name(unsigned v) { return v < MODEL_REACH_COUNT ? reach_names[v] : "?"; }
const char *model_kind_name(unsigned v) { return v < MODEL_KIND_COUNT ? kind_names[v] : "?"; }

static void ix_release(struct model *m);

static int model_nomem(struct err *e)
{
	return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory building the object model");
}

/* ---- per-class tables ---- */

/* Descriptor character of a Primitive::Type (runtime/primitive.h @R11: 1 boolean ... 8 double). */
static uint8_t prim_descriptor(uint32_t type)
{
	static const char d[] = "?ZBCSIJFD";
	return type >= 1 && type <= MODEL_PRIM_MAX ? (uint8_t)d[type] : 0;
}

static bool is_ref_type(const char *t) { return t && (t[0] == 'L' || t[0] == '['); }

/* The fields of one class of a chain are usable: known offsets, or no fields of its own. */
static bool chain_class_ok(const struct art_runtime *rt, const struct rt_class *k)
{
	if (!*k->fields_how) {
		uint32_t super = k->super != RT_NONE ? rt->classes[k->super].raw.object_size : 0;
		return k->field_count == 0 && k->raw.object_size == super;
	}
	for (uint32_t i = 0; i < k->field_count; i++)
		if (k->fields[i].offset == RT_OFFSET_UNKNOWN)
			return false;
	return true;
}

/* Appends a reference's offset and moves the end of the references past it. */
static void ref_offset(uint32_t *offs, uint32_t *n, uint32_t *end, uint32_t off)
{
	offs[(*n)++] = off;
	if (off > UINT32_MAX - 4)
		*end = UINT32_MAX;   /* never inside an object: the checked path reads it */
	else if (off + 4 > *end)
		*end = off + 4;
}

/* Reference field offsets of an instance of class i (own and super fields). */
static int instance_refs(struct model *m, size_t i, struct err *e)
{
	const struct art_runtime *rt = m->rt;
	struct model_class *mc = &m->classes[i];
	uint32_t n = 0, depth = 0;
	size_t c;
	bool ok = true;

	for (c = i; c != RT_NONE && depth < MODEL_MAX_DEPTH; c = rt->classes[c].super, depth++) {
		const struct rt_class *k = &rt->classes[c];
		ok = ok && chain_class_ok(rt, k);
		for (uint32_t f = 0; f < k->field_count; f++)
			n += is_ref_type(k->fields[f].type);
		if (k->raw.super_class && k->super == RT_NONE)
			ok = false;   /* the super class is not in the model */
	}
	mc->fields_ok = ok && c == RT_NONE;
	if (!mc->fields_ok || n == 0)
		return 0;
	mc->refs = arena_array(&m->arena, n, sizeof(uint32_t));
	if (!mc->refs)
		return model_nomem(e);
	for (c = i; c != RT_NONE; c = rt->classes[c].super) {
		const struct rt_class *k = &rt->classes[c];
		for (uint32_t f = 0; f < k->field_count; f++)
			if (is_ref_type(k->fields[f].type))
				ref_offset(mc->refs, &mc->ref_count, &mc->refs_end, k->fields[f].offset);
	}
	return 0;
}

static int class_statics(struct model *m, size_t i, struct err *e)
{
	struct model_class *mc = &m->classes[i];
	struct err why;
	int rc;

	err_init(&why);
	rc = statics_of_class(m->rt, i, &m->arena, &mc->statics, &why);
	if (rc == -ERR_NOMEM)
		return model_nomem(e);
	if (rc) {
		anomaly_add_err(m->sink, ANOM_STATICS, NULL, &why);
		return 0;
	}
	mc->statics_ok = true;
	uint32_t n = 0;
	for (uint32_t f = 0; f < mc->statics.count; f++)
		n += is_ref_type(mc->statics.v[f].type);
	if (n == 0)
		return 0;
	if (!(mc->static_refs = arena_array(&m->arena, n, sizeof(uint32_t))))
		return model_nomem(e);
	for (uint32_t f = 0; f < mc->statics.count; f++)
		if (is_ref_type(mc->statics.v[f].type))
			ref_offset(mc->static_refs, &mc->static_ref_count, &mc->static_refs_end, mc->statics.v[f].offset);
	return 0;
}

static void class_kind(struct model *m, size_t i)
{
	const struct art_runtime *rt = m->rt;
	const struct rt_class *k = &rt->classes[i];
	struct model_class *mc = &m->classes[i];

	mc->kind = MODEL_INSTANCE;
	if (k->raw.component_type) {
		mc->kind = MODEL_OBJ_ARRAY;
		mc->elem = 'L';
		mc->elem_size = 4;
		if (k->component == RT_NONE) {
			mc->elem = 0;   /* component class unknown: instances cannot be sized */
			return;
		}
		uint32_t prim = rt->classes[k->component].raw.primitive_type & rt->layout->klass.primitive_mask;
		if (prim) {
			mc->kind = MODEL_PRIM_ARRAY;
			mc->elem = prim_descriptor(prim);
			mc->elem_size = mc->elem ? (uint8_t)mirror_field_size(mc->elem) : 0;
		}
	} else if (i == m->jls && rt->layout->string.value != ART_ABSENT) {
		mc->kind = MODEL_STRING;   /* 6.0+: characters inline; 5.x Strings are plain instances */
	}
}

static int by_begin(const void *a, const void *b)
{
	const struct art_space *x = *(const struct art_space *const *)a, *y = *(const struct art_space *const *)b;
	return x->begin < y->begin ? -1 : x->begin > y->begin;
}

static int object_spaces(struct model *m, struct err *e)
{
	const struct art_spaces *s = &m->rt->spaces;
	m->ospace = xcalloc(s->count ? s->count : 1, sizeof(*m->ospace));
	if (!m->ospace)
		return model_nomem(e);
	for (size_t i = 0; i < s->count; i++)
		if (spaces_holds_objects(s->v[i].kind) && s->v[i].kind != SPACE_LOS_MAP && s->v[i].end > s->v[i].begin)
			m->ospace[m->ospace_count++] = &s->v[i];
	qsort(m->ospace, m->ospace_count, sizeof(*m->ospace), by_begin);
	return 0;
}

int model_init(struct model *m, const struct art_runtime *rt, struct anomaly_sink *sink, struct err *e)
{
	const struct rt_class *jlc = runtime_class_at(rt, rt->java_lang_class);
	int rc = 0;

	memset(m, 0, sizeof(*m));
	m->rt = rt;
	m->sink = sink;
	arena_init(&m->arena);
	m->jlc = jlc ? (size_t)(jlc - rt->classes) : MODEL_NONE;
	m->jls = runtime_string_class(rt);   /* RT_NONE is MODEL_NONE */
	m->alias_lo = UINT64_MAX;
	m->classes = xcalloc(rt->class_count ? rt->class_count : 1, sizeof(*m->classes));
	m->per_space = xcalloc(rt->spaces.count ? rt->spaces.count : 1, sizeof(*m->per_space));
	if (!m->classes || !m->per_space)
		rc = model_nomem(e);
	for (size_t i = 0; rc == 0 && i < rt->class_count; i++) {
		class_kind(m, i);
		if ((rc = instance_refs(m, i, e)) == 0)
			rc = class_statics(m, i, e);
	}
	if (rc == 0)
		rc = object_spaces(m, e);
	if (rc)
		model_release(m);
	return rc;
}

void model_release(struct model *m)
{
	xfree(m->classes);
	xfree(m->per_space);
	xfree(m->objs);
	xfree(m->ospace);
	xfree(m->free_places);
	xfree(m->alias);
	xfree(m->gaps);
	model_release_refs(m);
	ix_release(m);
	arena_release(&m->arena);
	memset(m, 0, sizeof(*m));
}

/* ---- alias windows (model.h) ---- */

const struct model_alias *model_alias_at(const struct model *m, uint64_t addr)
{
	if (addr < m->alias_lo)
		return NULL;
	for (size_t i = 0; i < m->alias_count; i++) {
		const struct model_alias *a = &m->alias[i];
		if (!a->failed && addr >= a->alias && addr - a->alias < a->len)
			return a;
	}
	return NULL;
}

uint64_t model_addr_va(const struct model *m, uint64_t addr)
{
	const struct model_alias *a = model_alias_at(m, addr);
	return a ? addr - a->alias + a->real : addr;
}

/* [lo, hi) meets [b, e) widened by the guard on both sides. */
static bool near(uint64_t lo, uint64_t hi, uint64_t b, uint64_t e)
{
	uint64_t gb = b > MODEL_ALIAS_GUARD ? b - MODEL_ALIAS_GUARD : 0;
	uint64_t ge = e < UINT64_MAX - MODEL_ALIAS_GUARD ? e + MODEL_ALIAS_GUARD : UINT64_MAX;
	return lo < ge && gb < hi;
}

/* The highest start of what the window [lo, hi) would come near (a mapping of the image, a
 * runtime space or another window), 0 when nothing. */
static uint64_t alias_conflict(const struct model *m, uint64_t lo, uint64_t hi)
{
	const struct image *img = m->rt->img;
	uint64_t top = 0;
	for (size_t i = 0; i < img->region_count; i++)
		if (near(lo, hi, img->regions[i].start, img->regions[i].end) && img->regions[i].start + 1 > top)
			top = img->regions[i].start + 1;
	for (size_t i = 0; i < m->rt->spaces.count; i++) {
		const struct art_space *sp = &m->rt->spaces.v[i];
		if (near(lo, hi, sp->begin, sp->end > sp->begin ? sp->end : sp->begin + 1) && sp->begin + 1 > top)
			top = sp->begin + 1;
	}
	for (size_t i = 0; i < m->alias_count; i++) {
		const struct model_alias *a = &m->alias[i];
		if (!a->failed && near(lo, hi, a->alias, a->alias + a->len) && a->alias + 1 > top)
			top = a->alias + 1;
	}
	return top;
}

/* The highest free window of len bytes (see MODEL_ALIAS_*); false when none.  Each round
 * moves below the highest thing in the way, so it ends after at most one round per mapping,
 * space and window. */
static bool alias_window(const struct model *m, uint64_t len, uint64_t *base)
{
	uint64_t top = MODEL_ALIAS_CEIL;
	while (len <= top && top - len >= MODEL_ALIAS_FLOOR) {
		uint64_t b = (top - len) & ~(MODEL_ALIAS_ALIGN - 1), hit;
		if (b < MODEL_ALIAS_FLOOR)
			return false;
		if (!(hit = alias_conflict(m, b, b + len))) {
			*base = b;
			return true;
		}
		hit--;  /* the start of what is in the way */
		if (hit <= MODEL_ALIAS_GUARD)
			return false;
		top = hit - MODEL_ALIAS_GUARD;
	}
	return false;
}

/* The window of the space sp that lies above 4 GiB: found or made on its first candidate.
 * NULL when the space cannot have one (recorded once, as an anomaly); -ERR_NOMEM in *rc. */
static const struct model_alias *alias_of_space(struct model *m, const struct art_space *sp, int *rc,
						struct err *e)
{
	uint16_t si = (uint16_t)(sp - m->rt->spaces.v);
	uint64_t base = 0, len = sp->end > sp->begin ? sp->end - sp->begin : 0;
	*rc = 0;
	for (size_t i = 0; i < m->alias_count; i++)
		if (m->alias[i].space == si)
			return m->alias[i].failed ? NULL : &m->alias[i];
	struct model_alias *v = xreallocarray(m->alias, m->alias_count + 1, sizeof(*v));
	if (!v) {
		*rc = model_nomem(e);
		return NULL;
	}
	m->alias = v;
	struct model_alias *a = &v[m->alias_count];
	bool ok = sp->begin >> MODEL_LOW4G_SHIFT && !(sp->begin & 7) && len && alias_window(m, len, &base);
	*a = (struct model_alias){ .alias = base, .real = sp->begin, .len = len, .space = si, .failed = !ok };
	m->alias_count++;
	if (!ok) {
		anomaly_add(m->sink, ANOM_CANDIDATE, ERR_UNSUP, sp->begin, sp->name,
			    "space at 0x%llx (%llu bytes) lies above 4 GiB and no unmapped window of its size is free "
			    "below 4 GiB: its objects are not carved (heap addresses are 32-bit)",
			    (unsigned long long)sp->begin, (unsigned long long)len);
		return NULL;
	}
	if (base < m->alias_lo)
		m->alias_lo = base;
	return a;
}

/* ---- reading objects ---- */

/* ---- the object-start index ---- */

/* Bits set in x, inline: without -mpopcnt (the x86-64 baseline) __builtin_popcountll is a
 * call into libgcc, and ix_find runs once per reference of every object. */
static inline uint32_t pop64(uint64_t x)
{
	x -= (x >> 1) & 0x5555555555555555ull;
	x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
	return (uint32_t)((x * 0x0101010101010101ull) >> 56);
}

static void ix_release(struct model *m)
{
	for (size_t i = 0; i < m->ix_count; i++) {
		xfree(m->ix[i].w);
	}
	xfree(m->ix);
	m->ix = NULL;
	m->ix_count = 0;
}

/* One index run per stretch of objects of one space (objects are sorted and spaces do not
 * overlap, so a space's objects are contiguous); every object's bit is set. */
static int ix_build(struct model *m, struct err *e)
{
	size_t runs = 0;
	ix_release(m);
	for (size_t i = 0; i < m->count; i++)
		runs += i == 0 || m->objs[i].space != m->objs[i - 1].space;
	if (runs == 0)
		return 0;
	if (!(m->ix = xcalloc(runs, sizeof(*m->ix))))
		return model_nomem(e);
	for (size_t i = 0, j; i < m->count; i = j) {
		for (j = i + 1; j < m->count && m->objs[j].space == m->objs[i].space; j++)
			;
		struct model_ix *x = &m->ix[m->ix_count++];
		x->begin = m->objs[i].addr & ~(uint64_t)511;
		x->end = (uint64_t)m->objs[j - 1].addr + 8;
		x->words = (size_t)((x->end - x->begin + 511) / 512);
		x->first = i;
		if (!(x->w = xcalloc(x->words, sizeof(*x->w))))
			return model_nomem(e);
		for (size_t k = i; k < j; k++) {
			uint64_t bit = (m->objs[k].addr - x->begin) / 8;
			x->w[bit / 64].bits |= 1ull << (bit % 64);
		}
	}
	return 0;
}

/* Counts the objects before every word (the objects must be in their final places). */
static void ix_rank(struct model *m)
{
	for (size_t r = 0; r < m->ix_count; r++) {
		struct model_ix *x = &m->ix[r];
		uint32_t n = 0;
		for (size_t w = 0; w < x->words; w++) {
			x->w[w].rank = n;
			n += pop64(x->w[w].bits);
		}
	}
}

static uint64_t ix_begin(const void *v, size_t i) { return ((const struct model_ix *)v)[i].begin; }

static const struct model_ix *ix_at(const struct model *m, uint64_t addr)
{
	size_t lo = bs_upper(m->ix, m->ix_count, ix_begin, addr);
	if (lo == 0 || addr >= m->ix[lo - 1].end)
		return NULL;
	return &m->ix[lo - 1];
}

/* The object starting at addr through the object-start index (ranks built), MODEL_NONE if none. */
static size_t ix_find(const struct model *m, uint64_t addr)
{
	const struct model_ix *x = (addr & 7) ? NULL : ix_at(m, addr);
	if (!x || model_in_alias(m, addr))
		return MODEL_NONE;   /* an alias window is unmapped memory to a reference */
	const struct model_ix_word *w = &x->w[(addr - x->begin) / 512];
	uint64_t bit = (addr - x->begin) / 8, word = w->bits, below = word & ((1ull << (bit % 64)) - 1);
	if (!(word >> (bit % 64) & 1))
		return MODEL_NONE;
	return x->first + w->rank + pop64(below);
}

/* The 32-bit word at va when captured (a plausibility probe: no error, as mirror's
 * "is this a Class?" checks). */
static bool peek32(const struct model *m, uint64_t va, uint32_t *v)
{
	const struct img_region *r = img_find(m->rt->img, va);
	if (!r || !r->data || va - r->start > r->data_len || r->data_len - (va - r->start) < 4)
		return false;
	*v = ld_u32le(r->data + (va - r->start));
	return true;
}

/* The 32-bit word at va; -ERR_UNMAPPED naming it when not captured (the common case is
 * peek32's one region lookup, no copy). */
static int rd32(const struct model *m, uint64_t va, uint32_t *v, struct err *e)
{
	uint8_t b[4];
	if (peek32(m, va, v))
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
	const struct img_region *r = img_find(m->rt->img, va);
	return r && r->data && va - r->start < r->data_len;
}

static bool free_place(const struct model *m, uint32_t addr)
{
	return bs_find(m->free_places, m->free_count, bs_key_u32, addr) != SIZE_MAX;
}

bool model_is_free_place(const struct model *m, uint64_t addr)
{
	return !(addr >> MODEL_LOW4G_SHIFT) && free_place(m, (uint32_t)addr);
}

/* A reference value is null or a plausible object start (see model.h); obj is ix_find(m, ref),
 * which the caller has already looked up. */
static bool ref_plausible(const struct model *m, uint32_t ref, size_t obj)
{
	uint32_t k;

	if (ref == 0 || obj != MODEL_NONE)
		return true;
	if (ref & 7)
		return false;
	if (free_place(m, ref))
		return true;
	if (!ospace_at(m, ref))
		return !captured(m, ref);
	if (!peek32(m, ref, &k))
		return true;   /* not captured: not refuted */
	/* a dead object a GC poisoned in an unevacuated region (10-13): dead garbage may still
	 * name it, as it may name a swept slot */
	if (k == MODEL_POISON_DEAD)
		return true;
	return k && !(k & 7) && runtime_class_at(m->rt, k) != NULL;
}

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

/* Bytes from the object's start to its first array element / character. */
static uint32_t data_offset(const struct model *m, const struct model_class *mc)
{
	const struct art_layout *l = m->rt->layout;
	if (mc->kind == MODEL_STRING)
		return l->string.value;
	uint32_t a = mc->elem_size ? mc->elem_size : 1;
	return (l->array.data + a - 1) / a * a;
}

/* Size of an array or string object from its length; false when it cannot fit room. */
static bool sized_by_length(const struct model *m, const struct model_class *mc, uint64_t addr, uint64_t room,
			    uint32_t *size, uint64_t *len_out, bool *compressed, struct err *e, int *rc)
{
	const struct art_layout *l = m->rt->layout;
	uint32_t raw, len, unit = mc->elem_size;
	uint64_t data = data_offset(m, mc);

	*rc = rd32(m, addr + (mc->kind == MODEL_STRING ? l->string.count : l->array.length), &raw, e);
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

/* Reads the 32-bit word at off of an object whose bytes are in view (or through the
 * image when the object spans regions). */
static int obj_u32(const struct model *m, const struct model_obj *o, const struct cursor *view, uint32_t off,
		   uint32_t *v, struct err *e)
{
	if (view->base && off <= view->len && view->len - off >= 4) {
		*v = ld_u32le(view->base + off);
		return 0;
	}
	return rd32(m, model_va(m, o) + off, v, e);
}

/* A cursor over the object's bytes when one region holds them all, else an empty one. */
static void object_view(const struct model *m, const struct model_obj *o, struct cursor *view)
{
	uint64_t va = model_va(m, o);
	const struct img_region *r = img_find(m->rt->img, va);
	uint64_t off = r ? va - r->start : 0;
	memset(view, 0, sizeof(*view));
	if (r && r->data && off <= r->data_len && r->data_len - off >= o->size)
		cur_init(view, r->data + off, o->size, va);
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
		r->data = data_offset(m, mc);
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

/* The references of one object: its non-null ones are kept (model_refs: the reference check
 * and the graph walk then never read the image again); with check set, the scan stops at the
 * first implausible one instead. */
struct ref_scan {
	struct model *m;
	bool check;             /* held to the reference check (allocated, class layout known) */
	bool nomem;
	uint32_t off, value;    /* the first reference that is no plausible object start */
};

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

static int scan_ref(void *arg, uint32_t off, uint32_t value)
{
	struct ref_scan *b = arg;
	if (value == 0)
		return 0;
	if (b->check) {   /* looking for the implausible one only */
		if (ref_plausible(b->m, value, ix_find(b->m, value)))   /* ranks are built before any check */
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

/* An empty free place: counted per space, its start kept for the reference check. */
/* True when some byte of [addr + from, addr + room) is captured and not zero. */
static bool bytes_left(const struct model *m, uint64_t addr, uint64_t from, uint64_t room)
{
	const struct img_region *r = img_find(m->rt->img, addr);
	if (!r || !r->data || from >= room)
		return false;
	uint64_t off = addr - r->start, end = room < r->data_len - off ? room : r->data_len - off;
	for (uint64_t i = from; off <= r->data_len && i < end; i++)
		if (r->data[off + i])
			return true;
	return false;
}

static int empty_place(struct model *m, const struct cand_ctx *x, struct err *e)
{
	const struct walk_candidate *c = x->c;
	struct model_space_count *s = &m->per_space[c->space - m->rt->spaces.v];
	m->empty++;
	s->empty++;
	if (c->clobbered && bytes_left(m, c->addr, c->clobbered, c->room)) {
		m->untyped++;
		s->untyped++;
	}
	if (x->aliased)
		return 0;   /* a reference into a window names nothing, not even a free place */
	if (XALLOC_GROW(m->free_places, m->free_cap, m->free_count + 1, 1024))
		return model_nomem(e);
	m->free_places[m->free_count++] = x->addr;
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
static int gather_refs(struct model *m, size_t i, struct err *e)
{
	const struct model_obj *o = &m->objs[i];
	struct ref_scan b = { m, false, false, 0, 0 };
	int rc = 0, fast = 0;

	m->ref_at[i] = (uint32_t)m->ref_count;
	if (o->alloc == MODEL_ALLOCATED && (fast = gather_in_view(m, o)) == 0)
		rc = model_each_ref(m, o, scan_ref, &b, e);
	if (fast < 0 || b.nomem || m->ref_count > UINT32_MAX)
		return model_nomem(e);
	m->ref_at[i + 1] = (uint32_t)m->ref_count;
	return rc < 0 ? rc : 0;
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
	return gather_refs(m, m->count++, e);
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
		const struct model_alias *a = alias_of_space(m, c->space, &rc, e);
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
	if (!peek32(m, c->addr + m->rt->layout->object.klass, &klass)) {
		if (c->alloc == WALK_FREE)
			return empty_place(m, &x, e);
		reject(m, &x, ANOM_OBJ_UNMAPPED, ERR_UNMAPPED, "class word not captured at", c->addr);
		return 0;
	}
	if (c->alloc == WALK_FREE && (klass == 0 || c->clobbered > m->rt->layout->object.klass))
		return empty_place(m, &x, e);   /* a zeroed slot, or the class word holds the allocator's link */
	const struct rt_class *k = klass && !(klass & 7) ? runtime_class_at(m->rt, klass) : NULL;
	if (!k) {
		reject(m, &x, ANOM_OBJ_CLASS, ERR_CORRUPT, "class word names no Class:", klass);
		return 0;
	}
	return add_checked(m, &x, klass, k, e);
}

/* ---- the table ---- */

static int by_addr(const void *a, const void *b)
{
	const struct model_obj *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* allocated before free at the same address, then by space for a stable order */
	if (x->alloc != y->alloc)
		return x->alloc < y->alloc ? -1 : 1;
	return x->space < y->space ? -1 : x->space > y->space;
}

static int by_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

/* Drops the objects overlapping the one before them (the first of two claims is kept). */
/* Marks every object that overlaps the one kept before it. */
static size_t mark_overlaps(struct model *m)
{
	size_t kept = MODEL_NONE, dropped = 0;
	for (size_t i = 0; i < m->count; i++) {
		struct model_obj *o = &m->objs[i];
		const struct model_obj *p = kept != MODEL_NONE ? &m->objs[kept] : NULL;
		if (p && o->addr < (uint64_t)p->addr + p->size) {
			m->duplicates++;
			m->rejected++;
			o->flags |= MODEL_F_DROPPED;
			dropped++;
			anomaly_add(m->sink, ANOM_CANDIDATE, ERR_CORRUPT, model_va(m, o), m->rt->spaces.v[o->space].name,
				    "object at 0x%llx (%u bytes) overlaps the object at 0x%llx (%u bytes)",
				    (unsigned long long)model_va(m, o), o->size, (unsigned long long)model_va(m, p), p->size);
			continue;
		}
		kept = i;
	}
	return dropped;
}

/* Removes the objects marked dropped, with their references.  When the references are
 * already object indexes (resolved), they are renumbered; one to a dropped object becomes
 * MODEL_REF_NONE. */
static int drop_marked(struct model *m, bool resolved, struct err *e)
{
	uint32_t *renumber = resolved ? xreallocarray(NULL, m->count ? m->count : 1, sizeof(uint32_t)) : NULL;
	size_t out = 0, rout = 0;

	if (resolved && !renumber)
		return model_nomem(e);
	for (size_t i = 0; i < m->count; i++) {
		uint32_t a = m->ref_at[i], n = m->ref_at[i + 1] - a;
		if (renumber)
			renumber[i] = m->objs[i].flags & MODEL_F_DROPPED ? MODEL_REF_NONE : (uint32_t)out;
		if (m->objs[i].flags & MODEL_F_DROPPED) {
			m->object_bytes -= m->objs[i].size;
			continue;
		}
		if (n)   /* refs is NULL while no reference was kept */
			memmove(&m->refs[rout], &m->refs[a], (size_t)n * sizeof(*m->refs));
		m->objs[out] = m->objs[i];
		m->ref_at[out++] = (uint32_t)rout;
		rout += n;
	}
	m->ref_at[out] = (uint32_t)rout;
	m->ref_count = rout;
	m->count = out;
	for (size_t k = 0; renumber && k < rout; k++)
		if (m->refs[k] != MODEL_REF_NONE)
			m->refs[k] = renumber[m->refs[k]];
	xfree(renumber);
	return 0;
}

/* The references again, from the image, in the objects' (sorted) order: when the walkers did
 * not hand the objects over in address order, the slices gathered by push no longer match. */
static int regather_refs(struct model *m, struct err *e)
{
	struct img_drop drop = { 0 };
	m->ref_count = 0;
	for (size_t i = 0; i < m->count; i++) {
		img_drop_behind(m->rt->img, &drop, model_va(m, &m->objs[i]));
		int rc = gather_refs(m, i, e);
		if (rc)
			return rc;
	}
	return 0;
}

/* The first implausible reference of o, for the anomaly (read again: this is rare). */
static void bad_ref_anomaly(struct model *m, struct model_obj *o, uint32_t value)
{
	const struct rt_class *k = &m->rt->classes[o->cls];
	const char *space = m->rt->spaces.v[o->space].name;
	struct ref_scan b = { m, true, false, 0, 0 };
	struct err why;

	err_init(&why);
	o->flags |= MODEL_F_BAD_REF | MODEL_F_DROPPED;
	m->rejected++;
	if (model_each_ref(m, o, scan_ref, &b, &why) < 0) {   /* it read when added: say so if not now */
		anomaly_add(m->sink, ANOM_OBJ_REFERENCE, ERR_CORRUPT, model_va(m, o), space,
			    "candidate at 0x%llx (%s): reference 0x%x is no object start (its offset unknown: %s)",
			    (unsigned long long)model_va(m, o), k->name ? k->name : "class ?", value, why.msg);
		return;
	}
	anomaly_add(m->sink, ANOM_OBJ_REFERENCE, ERR_CORRUPT, model_va(m, o), space,
		    "candidate at 0x%llx (%s): reference 0x%x at +%u is no object start", (unsigned long long)model_va(m, o),
		    k->name ? k->name : "class ?", b.value, b.off);
}

/* Every allocated object's references (kept by push) must each be plausible; a candidate with
 * one that is not is dropped as an anomaly.  Reads from the image only the class word of a
 * target that is no object of the model, and the rare failure's bytes. */
static int check_refs(struct model *m, struct err *e)
{
	size_t dropped = 0;
	uint64_t done = 0;
	for (size_t i = 0; i < m->count; i++) {
		struct model_obj *o = &m->objs[i];
		progress_to(m->progress, done += o->size);
		bool check = !(o->flags & MODEL_F_UNCHECKED);
		if (i % 65536 == 65535)   /* a target that is no object is read at its class word, anywhere */
			img_drop(m->rt->img, 0, UINT64_MAX);
		/* free objects have no references kept: their slices are empty */
		for (uint32_t k = m->ref_at[i]; k < m->ref_at[i + 1]; k++) {
			uint32_t v = m->refs[k];
			size_t j = ix_find(m, v);
			if (j == MODEL_NONE && check && !ref_plausible(m, v, j)) {
				bad_ref_anomaly(m, o, v);
				dropped++;
				break;
			}
			m->refs[k] = j == MODEL_NONE ? MODEL_REF_NONE : (uint32_t)j;   /* resolved once, for reach */
		}
	}
	if (!dropped)
		return 0;
	int rc = drop_marked(m, true, e);
	if (rc)
		return rc;
	/* the index runs hold the old positions: build it again when objects went */
	if ((rc = ix_build(m, e)) == 0)
		ix_rank(m);
	return rc;
}

int model_finish(struct model *m, struct err *e)
{
	bool sorted = true;
	int rc;

	/* the walkers emit in address order within a space and walk the spaces in address order */
	for (size_t i = 1; i < m->count && sorted; i++)
		sorted = by_addr(&m->objs[i - 1], &m->objs[i]) < 0;
	if (!sorted)
		qsort(m->objs, m->count, sizeof(*m->objs), by_addr);
	if (!sorted && (rc = regather_refs(m, e)))
		return rc;
	sorted = true;
	for (size_t i = 1; i < m->free_count && sorted; i++)
		sorted = m->free_places[i - 1] < m->free_places[i];
	if (!sorted)
		qsort(m->free_places, m->free_count, sizeof(*m->free_places), by_u32);
	if (mark_overlaps(m) && (rc = drop_marked(m, false, e)))
		return rc;
	if ((rc = ix_build(m, e)))
		return rc;
	ix_rank(m);
	if ((rc = check_refs(m, e)))
		return rc;
	for (size_t i = 0; i < m->count; i++) {
		const struct model_obj *o = &m->objs[i];
		struct model_space_count *s = &m->per_space[o->space];
		s->objects[o->alloc][o->content]++;
		s->bytes += o->size;
		m->classes[o->cls].objects++;
	}
	m->finished = true;
	return 0;
}

void model_release_refs(struct model *m)
{
	xfree(m->ref_at);
	xfree(m->refs);
	m->ref_at = m->refs = NULL;
	m->ref_count = m->ref_cap = 0;
}

uint32_t model_refs(const struct model *m, size_t i, const uint32_t **refs)
{
	if (!m->ref_at) {   /* released (model_release_refs) */
		*refs = NULL;
		return 0;
	}
	*refs = m->refs ? m->refs + m->ref_at[i] : NULL;   /* no object kept a reference: none */
	return m->ref_at[i + 1] - m->ref_at[i];
}

uint64_t model_object_bytes(const struct model *m)
{
	return m->object_bytes;   /* kept by push and drop_marked: no pass over the objects */
}

static uint64_t obj_addr(const void *v, size_t i) { return ((const struct model_obj *)v)[i].addr; }

size_t model_find(const struct model *m, uint64_t addr)
{
	if (addr >> MODEL_LOW4G_SHIFT)
		return MODEL_NONE;
	if (m->finished)
		return ix_find(m, addr);   /* it answers MODEL_NONE in an alias window */
	if (model_in_alias(m, addr))
		return MODEL_NONE;
	size_t i = bs_find(m->objs, m->count, obj_addr, addr);
	return i == SIZE_MAX ? MODEL_NONE : i;
}

const struct art_space *model_space(const struct model *m, const struct model_obj *o)
{
	return &m->rt->spaces.v[o->space];
}

uint64_t model_data_addr(const struct model *m, const struct model_obj *o)
{
	if (o->kind != MODEL_STRING && o->kind != MODEL_OBJ_ARRAY && o->kind != MODEL_PRIM_ARRAY)
		return 0;
	return model_va(m, o) + data_offset(m, &m->classes[o->cls]);
}

uint32_t model_length(const struct model *m, const struct model_obj *o)
{
	const struct model_class *mc = &m->classes[o->cls];
	uint32_t data = data_offset(m, mc);
	if (o->kind == MODEL_OBJ_ARRAY || o->kind == MODEL_PRIM_ARRAY)
		return mc->elem_size ? (o->size - data) / mc->elem_size : 0;
	if (o->kind == MODEL_STRING)
		return model_string_compressed(m, o) ? o->size - data : (o->size - data) / 2;
	return 0;
}

bool model_string_compressed(const struct model *m, const struct model_obj *o)
{
	(void)m;
	return o->kind == MODEL_STRING && (o->flags & MODEL_F_COMPRESSED);
}
