/* model.c - the object model's life (model_init, model_release), its per-class tables,
 * and the readers of the finished object table (model.h; the other parts are model_*.c). */
#include "rosalloc/model/model.h"

#include <stdlib.h>
#include <string.h>

#include "carver/base/xalloc.h"
#include "rosalloc/model/model_int.h"

enum {
	MODEL_MAX_DEPTH = 4096,        /* longest super-class chain walked (hostile cycles) */
	MODEL_PRIM_MAX = 8,            /* Primitive::Type kPrimDouble (runtime/primitive.h @R11) */
};

static const char *const alloc_names[] = { "allocated", "free" };
static const char *const content_names[] = { "intact", "partial", "residue" };
static const char *const reach_names[] = { "unknown", "reachable", "unreachable" };
static const char *const kind_names[] = { "instance", "string", "class", "object-array", "primitive-array" };

const char *model_alloc_name(unsigned v) { return v < MODEL_ALLOC_COUNT ? alloc_names[v] : "?"; }
const char *model_content_name(unsigned v) { return v < MODEL_CONTENT_COUNT ? content_names[v] : "?"; }
const char *model_reach_name(unsigned v) { return v < MODEL_REACH_COUNT ? reach_names[v] : "?"; }
const char *model_kind_name(unsigned v) { return v < MODEL_KIND_COUNT ? kind_names[v] : "?"; }

int model_nomem(struct err *e)
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
	xfree(m->residue);
	xfree(m->damaged_starts);
	xfree(m->alias);
	xfree(m->gaps);
	model_release_refs(m);
	model_ix_release(m);
	arena_release(&m->arena);
	memset(m, 0, sizeof(*m));
}

/* ---- the finished table ---- */

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
		return model_ix_find(m, addr);   /* it answers MODEL_NONE in an alias window */
	if (model_in_alias(m, addr))
		return MODEL_NONE;
	size_t i = bs_find(m->objs, m->count, obj_addr, addr);
	return i == SIZE_MAX ? MODEL_NONE : i;
}

static uint64_t obj_end(const void *v, size_t i)
{
	const struct model_obj *o = &((const struct model_obj *)v)[i];
	return (uint64_t)o->addr + o->size;
}

size_t model_first_ending_after(const struct model *m, uint64_t addr)
{
	return bs_upper(m->objs, m->count, obj_end, addr);
}

const struct art_space *model_space(const struct model *m, const struct model_obj *o)
{
	return &m->rt->spaces.v[o->space];
}

uint64_t model_data_addr(const struct model *m, const struct model_obj *o)
{
	if (o->kind != MODEL_STRING && o->kind != MODEL_OBJ_ARRAY && o->kind != MODEL_PRIM_ARRAY)
		return 0;
	return model_va(m, o) + model_data_offset(m, &m->classes[o->cls]);
}

uint32_t model_length(const struct model *m, const struct model_obj *o)
{
	const struct model_class *mc = &m->classes[o->cls];
	uint32_t data = model_data_offset(m, mc);
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
