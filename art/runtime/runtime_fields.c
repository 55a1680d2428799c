/* runtime_fields.c - each class's instance fields (from ArtFields or from DEX with the
 * field linking), and the layout rows the fields settle. */
#include "art/runtime/runtime.h"

#include <string.h>

#include "art/runtime/runtime_int.h"
#include "carver/base/xalloc.h"

/* ---- instance fields ---- */

/* The Java name of f's type ("int", "java.lang.String[]"); a malformed descriptor leaves it
 * NULL (readers show the descriptor) and is recorded against the class at class_addr. */
static int field_java_type(struct art_runtime *rt, uint64_t class_addr, struct rt_field *f, struct err *why)
{
	struct wbuf b;
	int rc;

	wbuf_init(&b);
	if ((rc = mirror_java_name((const uint8_t *)f->type, strlen(f->type), &b, why)) == 0 &&
	    !(f->java_type = rt_strdup(rt, b.data ? (const char *)b.data : "", b.len)))
		rc = rt_nomem(why);
	wbuf_release(&b);
	if (rc == -ERR_NOMEM)
		return rc;
	if (rc < 0)
		anomaly_add(&rt->anomalies, ANOM_FIELDS, why->code, class_addr, rt_space_name(rt, class_addr),
			    "fields of class at 0x%llx: field %s: %s", (unsigned long long)class_addr, f->name, why->msg);
	return 0;
}

/* Name and type of DEX field idx of the class at class_addr: 0, or <0 with *why set
 * (-ERR_NOMEM, or damage). */
static int field_strings(struct art_runtime *rt, uint64_t class_addr, const struct dex *d, uint32_t idx,
			 struct rt_field *f, struct err *why)
{
	struct dex_field_id id;
	const uint8_t *s, *t;
	size_t sn, tn;
	int rc;

	if ((rc = dex_field_id(d, idx, &id, why)) || (rc = dex_string(d, id.name_idx, &s, &sn, why)) ||
	    (rc = dex_type_descriptor(d, id.type_idx, &t, &tn, why)))
		return rc;
	if (tn == 0)
		return ERR_SET(why, ERR_CORRUPT, ERR_NO_VA, "field %u: empty type descriptor", idx);
	f->name = rt_strdup(rt, (const char *)s, sn);
	f->type = rt_strdup(rt, (const char *)t, tn);
	f->dex_field_idx = idx;
	if (!f->name || !f->type)
		return rt_nomem(why);
	return field_java_type(rt, class_addr, f, why);
}

/* The name of the Class member that holds the instance ArtFields. */
static const char *rt_fields_name(const struct art_layout *l)
{
	return l->fields_merged ? "fields_" : "ifields_";
}

/* Index of idx in the ascending list ids[0..n), or n. */
static uint32_t ids_find(const uint32_t *ids, uint32_t n, uint32_t idx)
{
	uint32_t lo = 0, hi = n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (ids[mid] < idx)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && ids[lo] == idx ? lo : n;
}

/* The second source of an ArtField's field_dex_idx_: the class_data of the class's class_def
 * lists each instance field once (ascending field_idx, dex_file_structure class_data_item), so
 * an ArtField naming a field not listed there, or one another ArtField names too, is damaged
 * (one bad word there once renamed java.lang.Class's referenceInstanceOffsets to "name" and
 * made every Class unreadable).  1 agree or no evidence (another DEX's class, unreadable class
 * data), 0 disagree (*why), <0 -ERR_NOMEM. */
static int ifields_agree_with_dex(const struct dex *d, const struct rt_class *k, const struct rt_field *f,
				  uint32_t n, struct err *why, struct err *e)
{
	struct dex_class_def def;
	struct dex_class_data it;
	struct dex_member mb;
	uint32_t count = 0;
	int rc;

	if ((rc = rt_class_def_agrees(d, &k->raw, e)) <= 0)
		return rc < 0 ? rc : 1;
	/* class data that does not read is no evidence against ifields_ (fields_from_dex says why
	 * when it is needed): *why is left clear */
	if (dex_class_def(d, k->raw.dex_class_def_idx, &def, why) < 0 ||
	    dex_class_data_open(d, &def, &it, why) < 0 || it.count[DEX_INSTANCE_FIELD] > RT_MAX_IFIELDS) {
		err_init(why);
		return 1;
	}
	uint32_t total = it.count[DEX_INSTANCE_FIELD];
	uint32_t *ids = xcalloc(total ? total : 1, sizeof(*ids));
	uint8_t *used = xcalloc(total ? total : 1, 1);
	if (!ids || !used) {
		xfree(ids);
		xfree(used);
		return rt_nomem(e);
	}
	while (count < total && dex_class_data_next(&it, &mb, why) == 1)
		if (mb.kind == DEX_INSTANCE_FIELD && (count == 0 || mb.idx > ids[count - 1]))
			ids[count++] = mb.idx;
	err_init(why);
	rc = 1;
	for (uint32_t i = 0; rc == 1 && count == total && i < n; i++) {
		uint32_t at = ids_find(ids, count, f[i].dex_field_idx);
		if (at < count && !used[at]) {
			used[at] = 1;
			continue;
		}
		ERR_SET(why, ERR_CORRUPT, k->raw.ifields, "ifields_ entry %u names field %u, %s", i, f[i].dex_field_idx,
			at == count ? "not one of its class_def's instance fields" : "named by another entry too");
		rc = 0;
	}
	xfree(ids);
	xfree(used);
	return rc;
}

/* Fields from Class.ifields_ (16+: fields_) (LengthPrefixedArray<ArtField>): offsets as ART set them.
 * 0, 1 if not available (none, or an array that does not read: *why), <0 error. */
static int fields_from_ifields(struct art_runtime *rt, struct rt_class *k, const struct dex *d, struct err *why,
			       struct err *e)
{
	const struct art_layout *l = rt->layout;
	uint32_t count, v;
	int rc;

	if (l->field_storage != ART_FIELDS_LPA || !k->raw.ifields)
		return 1;
	if ((rc = mirror_u32(&rt->m, k->raw.ifields, &count, why)) < 0)
		return rt_source_failed(err_prefix(why, "ifields_"), why, e);
	if (count == 0)
		return 1;
	if (count > RT_LPA_MAX_FIELDS)
		return rt_source_failed(ERR_SET(why, ERR_CORRUPT, k->raw.ifields, "ifields_ at 0x%llx holds %u fields",
						(unsigned long long)k->raw.ifields, count), why, e);
	struct rt_field *f = arena_array(&rt->arena, count, sizeof(*f));
	if (!f)
		return rt_nomem(e);
	uint32_t n = 0;
	for (uint32_t i = 0; i < count; i++) {
		uint64_t a = k->raw.ifields + art_layout_field_offset(l, i);
		uint32_t flags = 0;
		if ((rc = mirror_u32(&rt->m, a + l->art_field.declaring_class, &v, why)) == 0 && v != (uint32_t)k->addr)
			rc = ERR_SET(why, ERR_CORRUPT, a, "declaring class 0x%x", v);
		if (rc == 0)
			rc = mirror_u32(&rt->m, a + l->art_field.access_flags, &flags, why);
		/* 16+: fields_ holds the static fields too (before the instance ones) */
		if (rc == 0 && l->fields_merged && (flags & RT_ACC_STATIC))
			continue;
		if (rc == 0 && (rc = mirror_u32(&rt->m, a + l->art_field.field_dex_idx, &v, why)) == 0 &&
		    (rc = field_strings(rt, k->addr, d, v, &f[n], why)) == 0)
			rc = mirror_u32(&rt->m, a + l->art_field.offset, &f[n].offset, why);
		if (rc < 0)
			return rt_source_failed(err_prefix(why, "%s entry %u of %u at 0x%llx", rt_fields_name(l), i,
							   count, (unsigned long long)a), why, e);
		f[n++].access_flags = flags;
	}
	if (n == 0)
		return 1;
	if ((rc = ifields_agree_with_dex(d, k, f, n, why, e)) <= 0)
		return rc < 0 ? rc : 1;
	k->fields = f;
	k->field_count = n;
	k->fields_how = rt_fields_name(l);
	return 0;
}

static uint32_t super_size(const struct art_runtime *rt, const struct rt_class *k, bool *known)
{
	*known = true;
	if (!k->raw.super_class)
		return 0;
	if (k->super == RT_NONE) {
		*known = false;
		return 0;
	}
	return rt->classes[k->super].raw.object_size;
}

/* Offsets re-derived with LinkFields; checked against what the Class says.  0 or -ERR_NOMEM. */
static int link_dex_fields(struct art_runtime *rt, struct rt_class *k, struct rt_field *f, uint32_t n,
			   struct err *e)
{
	bool known;
	uint32_t start = super_size(rt, k, &known), size = 0, refs = 0;
	uint8_t *t = xcalloc(n ? n : 1, 1);
	uint32_t *idx = xcalloc(n ? n : 1, sizeof(*idx)), *off = xcalloc(n ? n : 1, sizeof(*off));
	int rc;

	if (!t || !idx || !off) {
		rc = rt_nomem(e);
	} else {
		for (uint32_t i = 0; i < n; i++) {
			t[i] = (uint8_t)f[i].type[0];
			idx[i] = f[i].dex_field_idx;
		}
		rc = runtime_link_fields(rt->layout->field_link, t, idx, n, start, off, &size, &refs, e);
	}
	if (rc == 0) {
		/* "we lie to the GC about java.lang.ref.Reference.referent" (LinkFields) */
		if (k->name && !strcmp(k->name, "java.lang.ref.Reference") && refs)
			refs--;
		for (uint32_t i = 0; i < n; i++)
			f[i].offset = known ? off[i] : RT_OFFSET_UNKNOWN;
		k->fields_checked = known && refs == k->raw.num_reference_instance_fields &&
				    (k->raw.object_size == 0 || size == k->raw.object_size);
	}
	xfree(t);
	xfree(idx);
	xfree(off);
	return rc;
}

/* Fields from the DEX class_data of the class's class_def: 0, 1 if not available (another
 * DEX's class, or class data that does not read: *why), <0 error. */
static int fields_from_dex(struct art_runtime *rt, struct rt_class *k, const struct dex *d, struct err *why,
			   struct err *e)
{
	struct dex_class_def def;
	struct dex_class_data it;
	struct dex_member mb;
	uint32_t n = 0, count, ci = k->raw.dex_class_def_idx;
	struct rt_field *f;
	int rc;

	if ((rc = rt_class_def_agrees(d, &k->raw, e)) <= 0)
		return rc < 0 ? rc : 1;
	if ((rc = dex_class_def(d, ci, &def, why)) < 0 || (rc = dex_class_data_open(d, &def, &it, why)) < 0)
		return rt_source_failed(err_prefix(why, "class_def %u", ci), why, e);
	count = it.count[DEX_INSTANCE_FIELD];
	if (count > RT_MAX_IFIELDS)
		return rt_source_failed(ERR_SET(why, ERR_CORRUPT, ERR_NO_VA, "class_def %u: %u instance fields", ci,
						count), why, e);
	if (!(f = arena_array(&rt->arena, count ? count : 1, sizeof(*f))))
		return rt_nomem(e);
	while ((rc = dex_class_data_next(&it, &mb, why)) == 1) {
		if (mb.kind != DEX_INSTANCE_FIELD)
			continue;
		if (n == count)   /* cannot happen: the iterator yields count[kind] of each kind */
			return ERR_SET(e, ERR_INTERNAL, ERR_NO_VA, "class_def %u: more than %u instance fields", ci, count);
		if ((rc = field_strings(rt, k->addr, d, mb.idx, &f[n], why)) < 0)
			return rt_source_failed(err_prefix(why, "class_def %u", ci), why, e);
		f[n++].access_flags = mb.access_flags;
	}
	if (rc < 0)
		return rt_source_failed(err_prefix(why, "class_def %u", ci), why, e);
	if (n != count)
		return rt_source_failed(ERR_SET(why, ERR_CORRUPT, ERR_NO_VA, "class_def %u: %u of %u instance fields "
						"listed", ci, n, count), why, e);
	if ((rc = link_dex_fields(rt, k, f, n, e)) < 0)
		return rc;
	k->fields = f;
	k->field_count = n;
	k->fields_how = "dex";
	return 0;
}

int rt_decode_fields(struct art_runtime *rt, struct err *e)
{
	for (size_t i = 0; i < rt->class_count; i++) {
		struct rt_class *k = &rt->classes[i];
		int rc;
		if (k->dex == RT_NONE || k->raw.component_type || (k->raw.primitive_type & rt->layout->klass.primitive_mask))
			continue;
		const struct dex *d = &rt->dexes[k->dex].dex;
		struct err why_ifields, why_dex;
		err_init(&why_ifields);
		err_init(&why_dex);
		if ((rc = fields_from_ifields(rt, k, d, &why_ifields, e)) == 0)
			k->fields_checked = true;
		else if (rc < 0 || (rc = fields_from_dex(rt, k, d, &why_dex, e)) < 0)
			return rc;
		rt_settle(rt, ANOM_FIELDS, k->addr, "fields of class", rc == 1, &why_ifields, &why_dex);
	}
	return 0;
}

/* Does rule place every field of k (offsets from its ArtFields) where ART put it?  1 yes,
 * 0 no, -1 no evidence (super size unknown), <0 -ERR_NOMEM. */
static int link_rule_fits(struct art_runtime *rt, const struct rt_class *k, enum art_field_link rule,
			  struct err *e)
{
	uint32_t n = k->field_count, size, refs;
	bool known;
	uint32_t start = super_size(rt, k, &known);
	uint8_t *t = xcalloc(n, 1);
	uint32_t *idx = xcalloc(n, sizeof(*idx)), *off = xcalloc(n, sizeof(*off));
	int rc = known ? 1 : -1;

	if (!t || !idx || !off)
		rc = rt_nomem(e);
	for (uint32_t i = 0; rc == 1 && i < n; i++) {
		t[i] = (uint8_t)k->fields[i].type[0];
		idx[i] = k->fields[i].dex_field_idx;
	}
	if (rc == 1 && (rc = runtime_link_fields(rule, t, idx, n, start, off, &size, &refs, e)) == 0)
		rc = 1;
	for (uint32_t i = 0; rc == 1 && i < n; i++)
		if (off[i] != k->fields[i].offset)
			rc = 0;
	xfree(t);
	xfree(idx);
	xfree(off);
	return rc;
}

/* The row whose objects read as rt->layout's with the other LinkFields rule, or NULL. */
static const struct art_layout *row_with_other_link(const struct art_layout *l)
{
	for (size_t i = 0; i < art_layout_count; i++)
		if (art_layouts[i].field_link != l->field_link && art_layout_same_but_link(&art_layouts[i], l))
			return &art_layouts[i];
	return NULL;
}

/* 11 and 12/13 read every object alike but for where LinkFields puts small fields in
 * alignment gaps (ART_LINK_SHUFFLE, ART_LINK_GAPS).  When the content chose the row, the
 * offsets ART itself wrote into ArtFields (ifields_, when LinearAlloc is captured) settle the
 * rule: the other row is taken when some class fits only its rule and none only ours; the
 * fields derived from the DEX are then placed again.  Without such a class the content's
 * row stays, and layout_how says so. */
int rt_settle_field_link_row(struct art_runtime *rt, struct err *e)
{
	const struct art_layout *other = rt->layout_by_version ? NULL : row_with_other_link(rt->layout);
	unsigned ours_only = 0, other_only = 0, both = 0;

	for (size_t i = 0; other && i < rt->class_count; i++) {
		const struct rt_class *k = &rt->classes[i];
		if (!k->field_count || !k->fields_how || strcmp(k->fields_how, rt_fields_name(rt->layout)))
			continue;
		int a = link_rule_fits(rt, k, rt->layout->field_link, e), b;
		if (a < -1 || (b = link_rule_fits(rt, k, other->field_link, e)) < -1)
			return a < -1 ? a : b;
		ours_only += a == 1 && b == 0;
		other_only += a == 0 && b == 1;
		both += a == 1 && b == 1;
	}
	if (!other)
		return 0;
	if (other_only == 0 || ours_only) {
		rt->layout_how = rt_printf(rt, "%s; LinkFields as %s (12+ places small fields in alignment gaps "
					   "otherwise): %u classes' ArtFields fit only it, %u fit only %s, %u both",
					   rt->layout_how, rt->layout->family, ours_only, other_only, other->family, both);
		return rt->layout_how ? 0 : rt_nomem(e);
	}
	rt->layout_how = rt_printf(rt, "%s; LinkFields as row %s: %u classes' ArtField offsets (%s) fit only it",
				   rt->layout_how, other->family, other_only, rt_fields_name(rt->layout));
	rt->layout = other;
	rt->m.l = other;
	for (size_t i = 0; rt->layout_how && i < rt->class_count; i++) {
		struct rt_class *k = &rt->classes[i];
		int rc;
		if (k->fields_how && !strcmp(k->fields_how, "dex") &&
		    (rc = link_dex_fields(rt, k, k->fields, k->field_count, e)) < 0)
			return rc;
	}
	return rt->layout_how ? 0 : rt_nomem(e);
}

/* Rows that differ only in ClassLoader (14-oat230, 14) read the heap alike; when no version
 * chose among them (the content did, or image 108 without an OAT header),
 * java.lang.ClassLoader's own fields do: the row whose parent_ offset is that of its field
 * "parent" (class_loader.h @R14, @R14U).  Nothing is changed when the class or its fields
 * are not known. */
int rt_settle_class_loader_row(struct art_runtime *rt, struct err *e)
{
	const struct rt_class *k = NULL;
	uint32_t parent = RT_OFFSET_UNKNOWN;

	if (rt->layout_by_version)
		return 0;
	size_t loader = runtime_class_named(rt, "java.lang.ClassLoader");
	if (loader != RT_NONE)
		k = &rt->classes[loader];
	for (uint32_t i = 0; k && i < k->field_count; i++)
		if (k->fields[i].name && !strcmp(k->fields[i].name, "parent"))
			parent = k->fields[i].offset;
	if (parent == RT_OFFSET_UNKNOWN || rt->layout->class_loader.parent == parent)
		return 0;
	for (size_t i = 0; i < art_layout_count; i++) {
		const struct art_layout *l = &art_layouts[i];
		if (l->class_loader.parent != parent || !art_layout_same_but_class_loader(l, rt->layout))
			continue;
		rt->layout_how = rt_printf(rt, "%s; ClassLoader as row %s: java.lang.ClassLoader.parent at +%u (%s)",
					   rt->layout_how, l->family, parent, k->fields_how);
		rt->layout = l;
		rt->m.l = l;
		return rt->layout_how ? 0 : rt_nomem(e);
	}
	return 0;
}
