/* statics.c - static field layouts of classes (see statics.h). */
#include "art/runtime/statics.h"

#include <string.h>

#include "carver/base/xalloc.h"

enum {
	ST_MAX_FIELDS = 65535,   /* u16 counts in class_data practice and in CLASS_DUMP */
};

static int st_nomem(struct err *e)
{
	return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory reading static fields");
}

/* Name and type of field_ids[idx] into f (strings copied into a). */
static int field_names(struct arena *a, const struct dex *d, uint32_t idx, struct rt_field *f, struct err *e)
{
	struct dex_field_id id;
	const uint8_t *s, *t;
	size_t sn, tn;
	int rc;

	if ((rc = dex_field_id(d, idx, &id, e)) || (rc = dex_string(d, id.name_idx, &s, &sn, e)) ||
	    (rc = dex_type_descriptor(d, id.type_idx, &t, &tn, e)))
		return rc;
	if (tn == 0)
		return ERR_SET(e, ERR_CORRUPT, ERR_NO_VA, "field %u has an empty type descriptor", idx);
	f->name = arena_strndup(a, (const char *)s, sn);
	f->type = arena_strndup(a, (const char *)t, tn);
	f->dex_field_idx = idx;
	return f->name && f->type ? 0 : st_nomem(e);
}

/* The DEX static fields of the class, in declaration order (offsets not set). */
static int dex_statics(const struct art_runtime *rt, const struct rt_class *k, struct arena *a,
		       struct rt_field **out, uint32_t *count, struct err *e)
{
	const struct dex *d = &rt->dexes[k->dex].dex;
	struct dex_class_def def;
	struct dex_class_data it;
	struct dex_member mb;
	uint32_t n = 0;
	int rc;

	if ((rc = dex_class_def(d, k->raw.dex_class_def_idx, &def, e)))
		return rc;
	if (def.class_idx != k->raw.dex_type_idx)
		return ERR_SET(e, ERR_CORRUPT, k->addr, "class_def %u names type %u, the Class says %u",
			       k->raw.dex_class_def_idx, def.class_idx, k->raw.dex_type_idx);
	if ((rc = dex_class_data_open(d, &def, &it, e)))
		return rc;
	*count = it.count[DEX_STATIC_FIELD];
	if (*count > ST_MAX_FIELDS)
		return ERR_SET(e, ERR_CORRUPT, k->addr, "%u static fields", *count);
	if (*count == 0)
		return 0;
	struct rt_field *f = arena_array(a, *count, sizeof(*f));
	if (!f)
		return st_nomem(e);
	while ((rc = dex_class_data_next(&it, &mb, e)) == 1 && mb.kind == DEX_STATIC_FIELD && n < *count) {
		if ((rc = field_names(a, d, mb.idx, &f[n], e)))
			return rc;
		f[n].access_flags = mb.access_flags;
		f[n++].offset = RT_OFFSET_UNKNOWN;
	}
	if (rc < 0)
		return rc;
	if (n != *count)
		return ERR_SET(e, ERR_CORRUPT, k->addr, "class_data lists %u static fields, %u read", *count, n);
	*out = f;
	return 0;
}

enum { STATICS_ACC_STATIC = 0x0008 }; /* kAccStatic, libdexfile/dex/modifiers.h */

/* Offsets from Class.sfields_ (LengthPrefixedArray<ArtField>); 16+ from Class.fields_, whose
 * first entries are the static fields (ClassLinker::LoadClassHelper in
 * runtime/class_linker.cc @R16 loads them before the instance fields), each with kAccStatic.
 * Names come from the DEX through each ArtField's field_dex_idx_. */
static int sfields_offsets(const struct art_runtime *rt, const struct rt_class *k, struct rt_field *f,
			   uint32_t n, struct err *e)
{
	const struct art_layout *l = rt->layout;
	const char *what = l->fields_merged ? "Class.fields_" : "Class.sfields_";
	const uint64_t arr = l->fields_merged ? k->raw.ifields : k->raw.sfields;
	uint32_t count, v;
	int rc;

	if (l->field_storage != ART_FIELDS_LPA)
		return ERR_SET(e, ERR_UNSUP, k->addr, "Class.sfields_ is not a LengthPrefixedArray in family %s",
			       l->family);
	if (!arr)
		return ERR_SET(e, ERR_CORRUPT, k->addr, "%s is null for %u static fields", what, n);
	if ((rc = mirror_u32(&rt->m, arr, &count, e)))
		return rc;
	if (l->fields_merged ? count < n : count != n)
		return ERR_SET(e, ERR_CORRUPT, arr, "%s holds %u fields, the DEX %u static", what, count, n);
	for (uint32_t i = 0; i < n; i++) {
		uint64_t at = arr + art_layout_field_offset(l, i);
		if ((rc = mirror_u32(&rt->m, at + l->art_field.declaring_class, &v, e)))
			return rc;
		if (v != (uint32_t)k->addr)
			return ERR_SET(e, ERR_CORRUPT, at, "static ArtField %u belongs to 0x%x, not 0x%llx", i, v,
				       (unsigned long long)k->addr);
		if (l->fields_merged) {
			if ((rc = mirror_u32(&rt->m, at + l->art_field.access_flags, &v, e)))
				return rc;
			if (!(v & STATICS_ACC_STATIC))
				return ERR_SET(e, ERR_CORRUPT, at, "%s entry %u lacks kAccStatic (flags 0x%x)", what, i, v);
		}
		if ((rc = mirror_u32(&rt->m, at + l->art_field.field_dex_idx, &v, e)))
			return rc;
		if (v != f[i].dex_field_idx)
			return ERR_SET(e, ERR_CORRUPT, at, "static ArtField %u is field %u, the DEX lists %u", i, v,
				       f[i].dex_field_idx);
		if ((rc = mirror_u32(&rt->m, at + l->art_field.offset, &f[i].offset, e)))
			return rc;
	}
	return 0;
}

/* Lays the fields out from start; returns the end offset and the reference count. */
static int link_from(enum art_field_link rule, const struct rt_field *f, uint32_t n, uint32_t start,
		     uint32_t *off, uint32_t *end, uint32_t *refs, struct err *e)
{
	uint8_t *t = xcalloc(n, 1);
	uint32_t *idx = xcalloc(n, sizeof(*idx));
	int rc = 0;

	if (!t || !idx)
		rc = st_nomem(e);
	for (uint32_t i = 0; rc == 0 && i < n; i++) {
		t[i] = (uint8_t)f[i].type[0];
		idx[i] = f[i].dex_field_idx;
	}
	if (rc == 0)
		rc = runtime_link_fields(rule, t, idx, n, start, off, end, refs, e);
	xfree(t);
	xfree(idx);
	return rc;
}

/* Offsets re-derived with LinkFields so that the statics end at class_size_ (both parities
 * of the start modulo 8 tried; see statics.h). */
static int dex_offsets(const struct art_runtime *rt, const struct rt_class *k, struct rt_field *f, uint32_t n,
		       struct err *e)
{
	const struct art_layout *l = rt->layout;
	uint32_t want_refs = 0, *off[2] = { NULL, NULL };
	int rc = 0, pick = -1;
	bool refs_known = l->klass.num_reference_static_fields != ART_ABSENT;

	if (refs_known && (rc = mirror_u32(&rt->m, k->addr + l->klass.num_reference_static_fields, &want_refs, e)))
		return rc;
	for (int p = 0; p < 2 && rc == 0; p++) {
		uint32_t base = p ? 4 : 0, end = 0, refs = 0;
		if (!(off[p] = xcalloc(n, sizeof(uint32_t)))) {
			rc = st_nomem(e);
			break;
		}
		if ((rc = link_from(l->field_link, f, n, base, off[p], &end, &refs, e)))
			break;
		uint32_t span = end - base;
		/* S = class_size_ - span must have this parity and leave room for the fixed part */
		if (span > k->raw.class_size || k->raw.class_size - span < l->klass.size ||
		    (k->raw.class_size - span) % 8 != base || (refs_known && refs != want_refs))
			continue;
		uint32_t s = k->raw.class_size - span;
		for (uint32_t i = 0; i < n; i++)
			off[p][i] = off[p][i] - base + s;
		if (pick < 0 || (p == 1 && rt->pointer_size == 4))
			pick = p;   /* on 64-bit the embedded tables end 8-aligned: prefer parity 0 */
	}
	if (rc == 0 && pick < 0)
		rc = ERR_SET(e, ERR_CORRUPT, k->addr, "no layout of %u static fields ends at class_size_ %u "
			     "with %u reference statics", n, k->raw.class_size, want_refs);
	if (rc == 0)
		for (uint32_t i = 0; i < n; i++)
			f[i].offset = off[pick][i];
	xfree(off[0]);
	xfree(off[1]);
	return rc;
}

int statics_of_class(const struct art_runtime *rt, size_t i, struct arena *a, struct rt_statics *out,
		     struct err *e)
{
	const struct rt_class *k = &rt->classes[i];
	struct rt_field *f = NULL;
	uint32_t n = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	out->how = "none";
	/* arrays, primitives and proxies have no class_def, so no static fields of their own */
	if (k->raw.component_type || (k->raw.primitive_type & rt->layout->klass.primitive_mask) ||
	    k->raw.dex_class_def_idx == 0xffffffffu || k->raw.dex_class_def_idx == 0xffffu)
		return 0;
	out->how = "";
	if (k->dex == RT_NONE)
		return ERR_SET(e, ERR_UNSUP, k->addr, "the DEX of class %s is not known", k->name ? k->name : "?");
	if ((rc = dex_statics(rt, k, a, &f, &n, e)))
		return rc;
	if (n == 0) {
		out->how = "none";
		return 0;
	}
	struct err why;
	err_init(&why);
	if (sfields_offsets(rt, k, f, n, &why) == 0) {
		out->how = rt->layout->fields_merged ? "fields_" : "sfields_";
	} else if ((rc = dex_offsets(rt, k, f, n, e)) == 0) {
		out->how = "dex";
	} else {
		return rc == -ERR_NOMEM ? rc : err_prefix(e, "%s (Class.sfields_: %s)", k->name ? k->name : "class",
							  why.msg);
	}
	out->v = f;
	out->count = n;
	return 0;
}
