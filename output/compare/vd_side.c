/* vd_side.c - the pieces every input shares: interned names, the sorted per-object index, heap
 * names and the decoded view of one object. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "carver/base/bsearch.h"
#include "carver/base/ck.h"
#include "carver/base/xalloc.h"
#include "art/mirror/mirror.h"
#include "output/compare/vd_int.h"

int vd_grow(void **v, size_t *cap, size_t n, size_t sz, struct err *e)
{
	if (xalloc_grow(v, cap, n + 1, sz, 64))
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory (%zu items of %zu bytes)", n + 1, sz);
	return 0;
}

/* ---- names ------------------------------------------------------------------------------ */

void vd_names_init(struct vd_names *t)
{
	memset(t, 0, sizeof(*t));
	arena_init(&t->a);
}

void vd_names_release(struct vd_names *t)
{
	arena_release(&t->a);
	xfree(t->v);
	htab_release(&t->by_hash);
	memset(t, 0, sizeof(*t));
}

uint32_t vd_names_find(const struct vd_names *t, const char *s, size_t len)
{
	uint64_t h = hash_fnv1a64(s, len);

	for (size_t slot = htab_find(&t->by_hash, h); slot != HTAB_END; slot = htab_find_next(&t->by_hash, h, slot)) {
		uint32_t k = htab_val(&t->by_hash, slot);
		/* (an empty name may come as NULL: memcmp takes no NULL, even for 0 bytes) */
		if (t->v[k].len == len && (len == 0 || !memcmp(t->v[k].s, s, len)))
			return k;
	}
	return UINT32_MAX;
}

int vd_names_add(struct vd_names *t, const char *s, size_t len, uint32_t *idx, struct err *e)
{
	uint32_t k = vd_names_find(t, s, len);
	size_t cap = t->cap;
	char *copy;
	int rc;

	if (k != UINT32_MAX) {
		*idx = k;
		return 0;
	}
	if (len > UINT32_MAX || t->n >= UINT32_MAX - 1)
		return ERR_SET(e, ERR_UNSUP, ERR_NO_VA, "too many or too long names");
	if ((rc = vd_grow((void **)&t->v, &cap, t->n, sizeof(*t->v), e)))
		return rc;
	t->cap = (uint32_t)(cap > UINT32_MAX ? UINT32_MAX : cap);
	copy = arena_strndup(&t->a, s, len);
	if (!copy)
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory for names");
	t->v[t->n].s = copy;
	t->v[t->n].len = (uint32_t)len;
	if (htab_add(&t->by_hash, hash_fnv1a64(s, len), t->n))
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory for names");
	*idx = t->n++;
	return 0;
}

int vd_names_add_class(struct vd_names *t, const char *s, size_t len, uint32_t *idx, struct err *e)
{
	struct wbuf b;
	size_t dims = 0, i;
	int rc;

	if (!memchr(s, '/', len) && (len == 0 || s[0] != '['))
		return vd_names_add(t, s, len, idx, e);
	wbuf_init(&b);
	while (dims < len && s[dims] == '[')
		dims++;
	if (dims == 0) {
		for (i = 0; i < len; i++)
			wbuf_u8(&b, s[i] == '/' ? '.' : (uint8_t)s[i]);
	} else if (dims + 3 <= len && s[dims] == 'L' && s[len - 1] == ';') {
		for (i = dims + 1; i + 1 < len; i++)
			wbuf_u8(&b, s[i] == '/' ? '.' : (uint8_t)s[i]);
	} else if (dims + 1 == len && mirror_descriptor_primitive_name(s[dims])) {
		wbuf_put(&b, mirror_descriptor_primitive_name(s[dims]), strlen(mirror_descriptor_primitive_name(s[dims])));
	} else {
		wbuf_release(&b);       /* not a descriptor: keep the name as it is */
		return vd_names_add(t, s, len, idx, e);
	}
	for (i = 0; i < dims; i++)
		wbuf_put(&b, "[]", 2);
	rc = wbuf_status(&b, e);
	if (!rc)
		rc = vd_names_add(t, (const char *)b.data, b.len, idx, e);
	wbuf_release(&b);
	return rc;
}

/* ---- the index -------------------------------------------------------------------------- */

int vd_obj_push(struct vd_side *s, const struct vd_obj *o, struct err *e)
{
	int rc = vd_grow((void **)&s->obj, &s->cap, s->n, sizeof(*s->obj), e);
	if (!rc)
		s->obj[s->n++] = *o;
	return rc;
}

static int obj_cmp(const void *a, const void *b)
{
	const struct vd_obj *x = a, *y = b;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	/* a freed object and the one allocated in its slot since (a truth.jsonl lists both): the
	 * allocated one is the object at that address now, so it is the one matched */
	unsigned ax = VD_ST_GET(x->state, VD_DIM_ALLOC), ay = VD_ST_GET(y->state, VD_DIM_ALLOC);
	if (ax != ay)
		return ax == VD_ALLOCATED ? -1 : 1;
	if (x->cls != y->cls)
		return x->cls < y->cls ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

void vd_side_sort(struct vd_side *s)
{
	if (s->n && s->cap > s->n) {    /* the index is final: give the growth slack back */
		struct vd_obj *p = xreallocarray(s->obj, s->n, sizeof(*s->obj));
		if (p) {
			s->obj = p;
			s->cap = s->n;
		}
	}
	if (s->n > 1)
		qsort(s->obj, s->n, sizeof(*s->obj), obj_cmp);
	for (size_t i = 1; i < s->n; i++)
		if (s->obj[i].id == s->obj[i - 1].id && s->obj[i].cls == s->obj[i - 1].cls)
			s->obj[i].flags |= VD_F_DUP;
}

void vd_side_touch(struct vd_side *s)
{
	if (++s->touches % VD_DROP_EVERY || !s->in.drop_behind || !s->in.data || !s->in.len)
		return;
	/* the mapping is the caller's private read-only file mapping: dropping it loses nothing */
	madvise((void *)(uintptr_t)s->in.data, s->in.len, MADV_DONTNEED);
}

static uint64_t vd_obj_id(const void *v, size_t i) { return ((const struct vd_obj *)v)[i].id; }

size_t vd_side_find(const struct vd_side *s, uint64_t id)
{
	return bs_find(s->obj, s->n, vd_obj_id, id);
}

size_t vd_side_lower(const struct vd_side *s, uint64_t id)
{
	return bs_lower(s->obj, s->n, vd_obj_id, id);
}

int vd_side_heap(struct vd_side *s, uint64_t key, const char *name, size_t len, uint8_t *idx, struct err *e)
{
	for (unsigned i = 0; i < s->nheaps; i++)
		if (s->heap_keys[i] == key) {
			*idx = (uint8_t)i;
			return 0;
		}
	if (s->nheaps == VD_MAX_HEAPS) {
		*idx = VD_MAX_HEAPS;    /* the overflow heap */
		if (s->heap_names[VD_MAX_HEAPS] == 0 && s->heap_keys[VD_MAX_HEAPS] == 0) {
			s->heap_keys[VD_MAX_HEAPS] = UINT64_MAX;
			return vd_names_add(s->names, "other", 5, &s->heap_names[VD_MAX_HEAPS], e);
		}
		return 0;
	}
	s->heap_keys[s->nheaps] = key;
	*idx = (uint8_t)s->nheaps;
	s->nheaps++;
	return vd_names_add(s->names, name, len, &s->heap_names[*idx], e);
}

void vd_side_release(struct vd_side *s)
{
	xfree(s->obj);
	xfree(s->roots);
	xfree(s->strs);
	xfree(s->lcs);
	xfree(s->classes);
	xfree(s->hfields);
	xfree(s->aliases);
	xfree(s->gaps);
	memset(s, 0, sizeof(*s));
}

unsigned vd_elem_mem_size(uint8_t t)
{
	switch (t) {
	case HPROF_T_BOOLEAN: case HPROF_T_BYTE: return 1;
	case HPROF_T_CHAR: case HPROF_T_SHORT: return 2;
	case HPROF_T_INT: case HPROF_T_FLOAT: case HPROF_T_OBJECT: return 4;
	case HPROF_T_LONG: case HPROF_T_DOUBLE: return 8;
	default: return 0;
	}
}

/* ---- views ------------------------------------------------------------------------------ */

void vd_view_init(struct vd_view *v)
{
	memset(v, 0, sizeof(*v));
	wbuf_init(&v->tmp);
}

void vd_view_release(struct vd_view *v)
{
	xfree(v->f);
	xfree(v->elems);
	xfree(v->text);
	wbuf_release(&v->tmp);
	memset(v, 0, sizeof(*v));
}

void vd_view_reset(struct vd_view *v)
{
	v->kind = VD_INSTANCE;
	v->decodable = true;
	v->nf = 0;
	v->elem_type = 0;
	v->count = 0;
	v->id_size = 0;
	v->have_data = v->have_fnv = v->have_elems = false;
	cur_init(&v->data, NULL, 0, 0);
	v->fnv = 0;
	v->nelems = 0;
	v->is_string = v->have_text = false;
	v->tlen = 0;
	wbuf_reset(&v->tmp);
}

int vd_view_add_field(struct vd_view *v, const struct vd_fv *f, struct err *e)
{
	struct vd_fv x = *f;
	int rc;

	x.occ = 0;
	for (size_t i = 0; i < v->nf; i++)      /* classes have few fields: a scan is enough */
		if (v->f[i].name == x.name && v->f[i].is_static == x.is_static)
			x.occ++;
	if ((rc = vd_grow((void **)&v->f, &v->fcap, v->nf, sizeof(*v->f), e)))
		return rc;
	v->f[v->nf++] = x;
	return 0;
}

int vd_view_add_unit(struct vd_view *v, uint16_t u, struct err *e)
{
	int rc = vd_grow((void **)&v->text, &v->tcap, v->tlen, sizeof(*v->text), e);
	if (!rc)
		v->text[v->tlen++] = u;
	return rc;
}
