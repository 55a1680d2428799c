/* vd_hprof.c - an HPROF file as a validate input: one streaming pass builds the per-object index
 * (id, record offset, class, heap), the class layouts and the roots; objects are decoded again
 * from the buffer when compared or walked.
 *
 * Records that are not objects.  ART's HPROF writer (runtime/hprof/hprof.cc @R11:
 * Hprof::DumpHeapClass, DumpHeapInstanceObject, DumpFakeObjectArray) adds
 * three kinds of records that have an id but are no heap object.  Each is reached through an
 * invented reference a few bytes after its owner's own id, and that is how they are told
 * apart, the same way in every input:
 * - String value: a String's characters come as a separate PRIMITIVE_ARRAY_DUMP (byte[] when
 *   compressed, char[] otherwise) whose id is the address of the characters inside the String
 *   (String + 16, or + 8 = kObjectAlignment for an empty String), referenced by the invented
 *   instance field "value".  Rule: a primitive array referenced by the "value" field of a
 *   java.lang.String instance, 1..16 bytes (sizeof(mirror::String)) after the String's id,
 *   in an ART heap (java.lang.Object has ART's field "shadow$_klass_").  Nothing else can
 *   start there, it lies inside the String; under 5.x, where String.value is a real char[],
 *   the String is 24 bytes long, so its real array is never that close.  A JVM's String is a
 *   separate object whose char[] may well follow it at + 16 (32-bit HotSpot): hence the
 *   ART test.
 * - Class statics: a class whose static storage exceeds 4 bytes gets a byte[] with id =
 *   class + 1 (AddClassStaticsId), referenced by the invented static "$classOverhead".  Rule:
 *   a primitive array referenced by a class's "$classOverhead" static, 1..7 bytes after it.
 * - Runtime-internal objects: DexCache and ClassLoader instances get an invented field
 *   "runtimeInternalObjects" referencing an Object[] at object + 4 (kObjectAlignment / 2)
 *   listing what the runtime keeps alive through them.  Rule: an object array referenced by
 *   that field, 1..7 bytes after the instance.
 * Ids 1..7 bytes after an object are not object-aligned, so the last two can never collide
 * with an object.  The synthetic records are left out of every count but stay in the index:
 * String texts are read through them, and reachability walks go through them (the
 * runtime-internal arrays hold real references).
 *
 * State marks (output/hprof/hprof_mark.h) are object arrays of the artcarve.mark.* classes;
 * their elements set the states of the objects they name.  Instances of
 * artcarve.mark.AddressAlias give the address alias windows (s->aliases), instances of
 * artcarve.mark.WalkGap the walk gaps (s->gaps); like the marks they are no heap objects. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "carver/base/bsearch.h"
#include "carver/base/ck.h"
#include "output/hprof/hprof_mark.h"
#include "output/compare/vd_int.h"

#define VD_STRING_VALUE_MAX 16  /* sizeof(mirror::String): runtime/mirror/string.h @R11 */
#define VD_OBJECT_ALIGN 8       /* kObjectAlignment: runtime/runtime_globals.h @R11 */

/* ---- record access by offset ------------------------------------------------------------- */

/* A cursor from file offset off (a record the scan validated) to the end of the input. */
static int hp_cursor_at(struct vd_side *s, uint64_t off, struct cursor *c, struct err *e)
{
	size_t o;

	vd_side_touch(s);
	if (ck_size(off, &o) || o >= s->in.len)
		return ERR_SET(e, ERR_INTERNAL, off, "%s: record offset %llu out of range", s->in.label,
			       (unsigned long long)off);
	cur_init(c, s->in.data + o, s->in.len - o, off);
	return 0;
}

/* The heap sub-record whose tag is at file offset off (already validated by the scan). */
static int hp_sub_at(struct vd_side *s, uint64_t off, struct hprof_sub *sub, struct err *e)
{
	struct cursor c;
	int rc = hp_cursor_at(s, off, &c, e);

	if (rc)
		return rc;
	rc = hprof_next_sub(&c, s->id_size, sub, e);
	if (rc == 1)
		return 0;
	return rc ? rc : ERR_SET(e, ERR_INTERNAL, off, "%s: no record at offset %llu", s->in.label,
				 (unsigned long long)off);
}

/* A top-level record whose tag is at file offset off. */
static int hp_record_at(struct vd_side *s, uint64_t off, struct hprof_record *rec, struct err *e)
{
	struct cursor c;
	uint32_t len;
	uint8_t tag;
	int rc = hp_cursor_at(s, off, &c, e);

	if (rc)
		return rc;
	if ((rc = cur_u8(&c, &tag, e)) || (rc = cur_u32be(&c, &rec->time, e)) || (rc = cur_u32be(&c, &len, e)) ||
	    (rc = cur_take(&c, len, &rec->body, e)))
		return rc;
	rec->tag = tag;
	rec->offset = off;
	return 0;
}

static uint64_t hp_str_id(const void *v, size_t i) { return ((const struct vd_hstr *)v)[i].id; }
static uint64_t hp_lc_id(const void *v, size_t i) { return ((const struct vd_hlc *)v)[i].class_id; }
static uint64_t hp_class_id(const void *v, size_t i) { return ((const struct vd_hclass *)v)[i].id; }

/* Text of the STRING record with this id: 1 and (*p, *n), 0 when there is none. */
static int hp_string(struct vd_side *s, uint64_t id, const uint8_t **p, size_t *n, struct err *e)
{
	size_t lo = bs_find(s->strs, s->nstrs, hp_str_id, id);
	struct hprof_record rec;
	struct hprof_string str;
	int rc;

	if (lo == SIZE_MAX)
		return 0;
	if ((rc = hp_record_at(s, s->strs[lo].off, &rec, e)) || (rc = hprof_string_parse(&rec, s->id_size, &str, e)))
		return rc;
	*p = str.text;
	*n = str.len;
	return 1;
}

static const struct vd_hlc *hp_load_class(const struct vd_side *s, uint64_t class_id)
{
	size_t i = bs_find(s->lcs, s->nlcs, hp_lc_id, class_id);
	return i == SIZE_MAX ? NULL : &s->lcs[i];
}

static struct vd_hclass *hp_class(const struct vd_side *s, uint64_t id)
{
	size_t i = bs_find(s->classes, s->nclasses, hp_class_id, id);
	return i == SIZE_MAX ? NULL : &s->classes[i];
}

/* Interned Java-form name of the class with this id: from its LOAD_CLASS, else made up. */
static int hp_class_name(struct vd_side *s, uint64_t class_id, uint32_t *idx, struct err *e)
{
	const struct vd_hlc *lc = hp_load_class(s, class_id);
	const uint8_t *p;
	size_t n;
	char buf[48];
	int rc;

	if (lc && (rc = hp_string(s, lc->name_id, &p, &n, e)) != 0) {
		if (rc < 0)
			return rc;
		return vd_names_add_class(s->names, (const char *)p, n, idx, e);
	}
	snprintf(buf, sizeof(buf), "(unnamed class 0x%llx)", (unsigned long long)class_id);
	return vd_names_add(s->names, buf, strlen(buf), idx, e);
}

/* ---- pass 1: the scan ------------------------------------------------------------------- */

static enum vd_root_kind hp_root_kind(uint8_t tag)
{
	switch (tag) {
	case HPROF_ROOT_JNI_GLOBAL: return VD_ROOT_JNI_GLOBAL;
	case HPROF_ROOT_JNI_LOCAL: return VD_ROOT_JNI_LOCAL;
	case HPROF_ROOT_JAVA_FRAME: return VD_ROOT_JAVA_FRAME;
	case HPROF_ROOT_NATIVE_STACK: return VD_ROOT_NATIVE_STACK;
	case HPROF_ROOT_STICKY_CLASS: return VD_ROOT_STICKY_CLASS;
	case HPROF_ROOT_THREAD_BLOCK: return VD_ROOT_THREAD_BLOCK;
	case HPROF_ROOT_MONITOR_USED: return VD_ROOT_MONITOR_USED;
	case HPROF_ROOT_THREAD_OBJECT: return VD_ROOT_THREAD_OBJECT;
	case HPROF_ROOT_INTERNED_STRING: return VD_ROOT_INTERNED_STRING;
	case HPROF_ROOT_FINALIZING: return VD_ROOT_FINALIZING;
	case HPROF_ROOT_DEBUGGER: return VD_ROOT_DEBUGGER;
	case HPROF_ROOT_REFERENCE_CLEANUP: return VD_ROOT_REFERENCE_CLEANUP;
	case HPROF_ROOT_VM_INTERNAL: return VD_ROOT_VM_INTERNAL;
	case HPROF_ROOT_JNI_MONITOR: return VD_ROOT_JNI_MONITOR;
	default: return VD_ROOT_UNKNOWN;
	}
}

static int hp_object(struct vd_side *s, const struct hprof_sub *sub, uint8_t heap, struct err *e)
{
	union { struct hprof_class_dump cd; struct hprof_instance in; struct hprof_obj_array oa;
		struct hprof_prim_array pa; } u;
	struct vd_obj o = { .off = sub->offset, .heap = heap };
	int rc;

	switch (sub->tag) {
	case HPROF_CLASS_DUMP:
		if ((rc = hprof_class_dump_parse(sub, s->id_size, &u.cd, e)))
			return rc;
		o.id = u.cd.class_id;
		o.kind = VD_CLASS;
		if ((rc = vd_grow((void **)&s->classes, &s->classes_cap, s->nclasses, sizeof(*s->classes), e)))
			return rc;
		s->classes[s->nclasses++] = (struct vd_hclass){ .id = u.cd.class_id, .super = u.cd.super_id,
								.off = sub->offset };
		break;
	case HPROF_INSTANCE_DUMP:
		if ((rc = hprof_instance_parse(sub, s->id_size, &u.in, e)))
			return rc;
		o.id = u.in.id;
		o.kind = VD_INSTANCE;
		break;
	case HPROF_OBJ_ARRAY_DUMP:
		if ((rc = hprof_obj_array_parse(sub, s->id_size, &u.oa, e)))
			return rc;
		o.id = u.oa.id;
		o.kind = VD_OBJ_ARRAY;
		break;
	default:
		if ((rc = hprof_prim_array_parse(sub, s->id_size, &u.pa, e)))
			return rc;
		o.id = u.pa.id;
		o.kind = VD_PRIM_ARRAY;
		break;
	}
	return vd_obj_push(s, &o, e);
}

static int hp_heap_dump(struct vd_side *s, const struct hprof_record *rec, uint8_t default_heap, struct err *e)
{
	struct cursor body = rec->body;
	uint8_t heap = default_heap;    /* a new segment starts in the default heap (art
					 * Hprof::StartNewHeapDumpSegment) */
	struct hprof_sub sub;
	int rc;

	while ((rc = hprof_next_sub(&body, s->id_size, &sub, e)) == 1) {
		vd_side_touch(s);
		if (sub.tag == HPROF_HEAP_DUMP_INFO) {
			struct hprof_heap_info hi;
			if ((rc = hprof_heap_info_parse(&sub, s->id_size, &hi, e)) ||
			    (rc = vd_side_heap(s, hi.name_id, "", 0, &heap, e)))
				return rc;
		} else if (hprof_sub_is_root(sub.tag)) {
			struct hprof_root root;
			if ((rc = hprof_root_parse(&sub, s->id_size, &root, e)))
				return rc;
			if (sub.tag == HPROF_ROOT_UNREACHABLE)
				continue;       /* Dalvik's marker of unreachable objects, not a root */
			if ((rc = vd_grow((void **)&s->roots, &s->roots_cap, s->nroots, sizeof(*s->roots), e)))
				return rc;
			s->roots[s->nroots++] = (struct vd_root){ root.id, (uint8_t)hp_root_kind(sub.tag) };
		} else if ((rc = hp_object(s, &sub, heap, e))) {
			return rc;
		}
	}
	return rc;
}

static int hp_scan(struct vd_side *s, struct err *e)
{
	struct hprof_reader r;
	struct hprof_record rec;
	uint8_t default_heap;
	int rc;

	if ((rc = hprof_reader_init(&r, s->in.data, s->in.len, s->in.label, e)))
		return rc;
	s->id_size = r.id_size;
	s->header_len = r.header_len;
	snprintf(s->info.format, sizeof(s->info.format), "%s", r.version);
	s->info.id_size = r.id_size;
	if ((rc = vd_side_heap(s, UINT64_MAX, "default", 7, &default_heap, e)))
		return rc;
	while ((rc = hprof_next(&r, &rec, e)) == 1) {
		vd_side_touch(s);
		if (rec.tag == HPROF_STRING) {
			struct hprof_string str;
			if ((rc = hprof_string_parse(&rec, s->id_size, &str, e)) ||
			    (rc = vd_grow((void **)&s->strs, &s->strs_cap, s->nstrs, sizeof(*s->strs), e)))
				return rc;
			s->strs[s->nstrs++] = (struct vd_hstr){ str.id, rec.offset };
		} else if (rec.tag == HPROF_LOAD_CLASS) {
			struct hprof_load_class lc;
			if ((rc = hprof_load_class_parse(&rec, s->id_size, &lc, e)) ||
			    (rc = vd_grow((void **)&s->lcs, &s->lcs_cap, s->nlcs, sizeof(*s->lcs), e)))
				return rc;
			s->lcs[s->nlcs++] = (struct vd_hlc){ lc.class_id, lc.name_id };
		} else if (rec.tag == HPROF_HEAP_DUMP || rec.tag == HPROF_HEAP_DUMP_SEGMENT) {
			if ((rc = hp_heap_dump(s, &rec, default_heap, e)))
				return rc;
		}
	}
	return rc;
}

/* ---- after the scan: names, layouts, synthetic records, marks ---------------------------- */

static int cmp_u64_pair(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static int hp_heap_names(struct vd_side *s, struct err *e)
{
	const uint8_t *p;
	size_t n;
	char buf[40];
	int rc;

	for (unsigned i = 0; i < s->nheaps; i++) {
		if (s->heap_keys[i] == UINT64_MAX)
			continue;       /* "default" */
		if ((rc = hp_string(s, s->heap_keys[i], &p, &n, e)) < 0)
			return rc;
		if (rc == 0) {
			snprintf(buf, sizeof(buf), "heap-0x%llx", (unsigned long long)s->heap_keys[i]);
			p = (const uint8_t *)buf;
			n = strlen(buf);
		}
		if ((rc = vd_names_add(s->names, (const char *)p, n, &s->heap_names[i], e)))
			return rc;
	}
	return 0;
}

/* Own instance fields, name and flags of every CLASS_DUMP. */
static int hp_layouts(struct vd_side *s, struct err *e)
{
	for (size_t i = 0; i < s->nclasses; i++) {
		struct vd_hclass *c = &s->classes[i];
		struct hprof_sub sub;
		struct hprof_class_dump cd;
		struct hprof_class_entry ent;
		int rc;

		if ((rc = hp_sub_at(s, c->off, &sub, e)) || (rc = hprof_class_dump_parse(&sub, s->id_size, &cd, e)) ||
		    (rc = hp_class_name(s, c->id, &c->name, e)))
			return rc;
		if (hprof_mark_of_class(s->names->v[c->name].s, s->names->v[c->name].len) >= 0)
			s->info.states[hprof_mark_dim((enum hprof_mark)hprof_mark_of_class(
				s->names->v[c->name].s, s->names->v[c->name].len))] = true;
		c->field0 = (uint32_t)s->nhfields;
		c->value_off = c->rio_off = UINT32_MAX;
		while ((rc = hprof_class_next_constant(&cd, &ent, e)) == 1)
			;
		while (rc == 0 && (rc = hprof_class_next_static(&cd, &ent, e)) == 1)
			rc = 0;
		while (rc == 0 && (rc = hprof_class_next_field(&cd, &ent, e)) == 1) {
			const uint8_t *p = NULL;
			size_t n = 0;
			uint32_t name;
			if ((rc = hp_string(s, ent.key, &p, &n, e)) < 0)
				return rc;
			if ((rc = vd_names_add(s->names, rc ? (const char *)p : "(unnamed)", rc ? n : 9, &name, e)) ||
			    (rc = vd_grow((void **)&s->hfields, &s->hfields_cap, s->nhfields, sizeof(*s->hfields), e)))
				return rc;
			s->hfields[s->nhfields++] = (struct vd_hfield){ name, ent.type };
			c->own_size += hprof_type_size(ent.type, s->id_size);
			c->nfields++;
		}
		if (rc)
			return rc;
	}
	return 0;
}

/* The chain of class i (most derived first) into chain[]; its length, 0 when a class is
 * missing or the chain is too deep (a loop). */
static unsigned hp_chain(const struct vd_side *s, const struct vd_hclass *c, const struct vd_hclass **chain)
{
	unsigned n = 0;

	while (c) {
		if (n == VD_CHAIN_MAX)
			return 0;
		chain[n++] = c;
		if (!c->super)
			return n;
		c = hp_class(s, c->super);
		if (!c)
			return 0;
	}
	return n;
}

/* True when java.lang.Object has the field "shadow$_klass_": the Object of ART's libcore
 * (libcore java/lang/Object.java, every ART release), not a JVM's. */
static bool hp_art_heap(const struct vd_side *s)
{
	uint32_t obj = vd_names_find(s->names, "java.lang.Object", 16);
	uint32_t klass = vd_names_find(s->names, "shadow$_klass_", 14);

	for (size_t i = 0; i < s->nclasses && obj != UINT32_MAX && klass != UINT32_MAX; i++)
		if (s->classes[i].name == obj)
			for (uint32_t f = 0; f < s->classes[i].nfields; f++)
				if (s->hfields[s->classes[i].field0 + f].name == klass)
					return true;
	return false;
}

/* Offsets of String.value (ART heaps) and runtimeInternalObjects in an instance's values. */
static void hp_special_offsets(struct vd_side *s)
{
	const struct vd_hclass *chain[VD_CHAIN_MAX];
	bool art = hp_art_heap(s);

	for (size_t i = 0; i < s->nclasses; i++) {
		struct vd_hclass *c = &s->classes[i];
		unsigned n = hp_chain(s, c, chain);
		uint32_t at = 0;
		for (unsigned k = 0; k < n; k++) {
			for (uint32_t f = 0; f < chain[k]->nfields; f++) {
				const struct vd_hfield *hf = &s->hfields[chain[k]->field0 + f];
				if (art && hf->type == HPROF_T_OBJECT && hf->name == s->n_value && c->name == s->n_string &&
				    c->value_off == UINT32_MAX)
					c->value_off = at;
				if (hf->type == HPROF_T_OBJECT && hf->name == s->n_rio && c->rio_off == UINT32_MAX)
					c->rio_off = at;
				at += hprof_type_size(hf->type, s->id_size);
			}
		}
	}
}

static int hp_prim_names(struct vd_side *s, struct err *e)
{
	static const struct { uint8_t t; const char *n; } prims[] = {
		{ HPROF_T_BOOLEAN, "boolean[]" }, { HPROF_T_CHAR, "char[]" }, { HPROF_T_FLOAT, "float[]" },
		{ HPROF_T_DOUBLE, "double[]" }, { HPROF_T_BYTE, "byte[]" }, { HPROF_T_SHORT, "short[]" },
		{ HPROF_T_INT, "int[]" }, { HPROF_T_LONG, "long[]" },
	};
	int rc;

	for (size_t i = 0; i < sizeof(prims) / sizeof(prims[0]); i++)
		if ((rc = vd_names_add(s->names, prims[i].n, strlen(prims[i].n), &s->prim_names[prims[i].t], e)))
			return rc;
	if ((rc = vd_names_add(s->names, "java.lang.String", 16, &s->n_string, e)) ||
	    (rc = vd_names_add(s->names, "java.lang.Class", 15, &s->n_class, e)) ||
	    (rc = vd_names_add(s->names, "value", 5, &s->n_value, e)) ||
	    (rc = vd_names_add(s->names, "runtimeInternalObjects", 22, &s->n_rio, e)) ||
	    (rc = vd_names_add(s->names, "count", 5, &s->n_count, e)) ||
	    (rc = vd_names_add(s->names, "offset", 6, &s->n_offset, e)) ||
	    (rc = vd_names_add(s->names, "coder", 5, &s->n_coder, e)) ||
	    (rc = vd_names_add(s->names, "$classOverhead", 14, &s->n_overhead, e)))
		return rc;
	return 0;
}

/* The three big-endian longs of one of artcarve's record instances (hprof_mark.h). */
static int hp_three_longs(const struct vd_side *s, const struct hprof_instance *in, const char *what, uint64_t v[3],
			  struct err *e)
{
	if (in->values.len != 24)
		return ERR_SET(e, ERR_CORRUPT, in->values.va, "%s: %s record of %zu bytes, not 24", s->in.label, what,
			       in->values.len);
	for (unsigned i = 0; i < 3; i++)
		v[i] = ld_u64be(in->values.base + 8 * i);
	return 0;
}

/* An address alias window: the three big-endian longs idBase, addressBase, length
 * (output/hprof/hprof_mark.h); a window that wraps around is no window and is left out. */
static int hp_alias(struct vd_side *s, const struct hprof_instance *in, struct err *e)
{
	uint64_t v[3];
	int rc;

	if ((rc = hp_three_longs(s, in, "address alias", v, e)))
		return rc;
	struct vd_alias a = { .id = v[0], .addr = v[1], .len = v[2] };
	if (!a.len || a.id > UINT64_MAX - a.len || a.addr > UINT64_MAX - a.len)
		return 0;
	if ((rc = vd_grow((void **)&s->aliases, &s->aliases_cap, s->naliases, sizeof(*s->aliases), e)))
		return rc;
	s->aliases[s->naliases++] = a;
	return 0;
}

/* A walk gap: the three big-endian longs gapStart, gapEnd, spaceEnd (output/hprof/hprof_mark.h);
 * one out of order is no gap and is left out. */
static int hp_gap(struct vd_side *s, const struct hprof_instance *in, struct err *e)
{
	uint64_t v[3];
	int rc;

	if ((rc = hp_three_longs(s, in, "walk gap", v, e)))
		return rc;
	struct vd_gap g = { .start = v[0], .end = v[1], .space_end = v[2] };
	if (g.start >= g.end || g.end >= g.space_end)
		return 0;
	if ((rc = vd_grow((void **)&s->gaps, &s->gaps_cap, s->ngaps, sizeof(*s->gaps), e)))
		return rc;
	s->gaps[s->ngaps++] = g;
	return 0;
}

/* True when name n names a class of artcarve's records that are no heap objects. */
static bool hp_record_class(const struct vd_name *n)
{
	return hprof_mark_of_class(n->s, n->len) >= 0 || hprof_mark_is_alias_class(n->s, n->len) ||
	       hprof_mark_is_gap_class(n->s, n->len);
}

/* Class name of every object (file order, before the sort). */
static int hp_object_classes(struct vd_side *s, struct err *e)
{
	for (size_t i = 0; i < s->n; i++) {
		struct vd_obj *o = &s->obj[i];
		union { struct hprof_instance in; struct hprof_obj_array oa; struct hprof_prim_array pa; } u;
		struct hprof_sub sub;
		const struct vd_hclass *c;
		uint64_t cid;
		int rc;

		if (o->kind == VD_CLASS) {
			o->cls = s->n_class;
			c = hp_class(s, o->id);
			if (c && hp_record_class(&s->names->v[c->name]))
				o->flags |= VD_F_MARK;  /* a mark class is no object of the heap */
			continue;
		}
		if ((rc = hp_sub_at(s, o->off, &sub, e)))
			return rc;
		if (o->kind == VD_PRIM_ARRAY) {
			if ((rc = hprof_prim_array_parse(&sub, s->id_size, &u.pa, e)))
				return rc;
			o->cls = s->prim_names[u.pa.type < 12 ? u.pa.type : 0];
			continue;
		}
		if (o->kind == VD_INSTANCE) {
			if ((rc = hprof_instance_parse(&sub, s->id_size, &u.in, e)))
				return rc;
			cid = u.in.class_id;
		} else {
			if ((rc = hprof_obj_array_parse(&sub, s->id_size, &u.oa, e)))
				return rc;
			cid = u.oa.class_id;
		}
		c = hp_class(s, cid);
		if (c)
			o->cls = c->name;
		else if ((rc = hp_class_name(s, cid, &o->cls, e)))
			return rc;
		if (o->kind == VD_INSTANCE &&
		    hprof_mark_is_alias_class(s->names->v[o->cls].s, s->names->v[o->cls].len)) {
			o->flags |= VD_F_MARK;
			if ((rc = hp_alias(s, &u.in, e)))
				return rc;
		}
		if (o->kind == VD_INSTANCE &&
		    hprof_mark_is_gap_class(s->names->v[o->cls].s, s->names->v[o->cls].len)) {
			o->flags |= VD_F_MARK;
			if ((rc = hp_gap(s, &u.in, e)))
				return rc;
		}
		if (o->kind == VD_OBJ_ARRAY &&
		    hprof_mark_of_class(s->names->v[o->cls].s, s->names->v[o->cls].len) >= 0)
			o->flags |= VD_F_MARK;
	}
	return 0;
}

/* Reads the big-endian value of basic type t at values[at]; false when it does not fit. */
static bool hp_value(const struct cursor *values, uint32_t at, uint8_t t, unsigned id_size, uint64_t *v)
{
	unsigned w = hprof_type_size(t, id_size);
	const uint8_t *p = values->base;

	if (!w || at > values->len || w > values->len - at)
		return false;
	p += at;
	*v = w == 1 ? p[0] : w == 2 ? ld_u16be(p) : w == 4 ? ld_u32be(p) : ld_u64be(p);
	return true;
}

/* Flags the record with this id and kind as synthetic of kind syn. */
static void hp_flag_syn(struct vd_side *s, uint64_t id, enum vd_kind kind, enum vd_syn syn)
{
	size_t j = vd_side_find(s, id);

	for (; j != SIZE_MAX && j < s->n && s->obj[j].id == id; j++)
		if (s->obj[j].kind == kind && !(s->obj[j].flags & VD_F_MARK)) {
			unsigned others = s->obj[j].flags & ~(unsigned)VD_F_SYN_MASK;
			s->obj[j].flags = (uint8_t)(others | (syn + 1));
			return;
		}
}

static bool hp_has(const struct vd_side *s, uint64_t id, enum vd_kind kind)
{
	for (size_t j = vd_side_find(s, id); j != SIZE_MAX && j < s->n && s->obj[j].id == id; j++)
		if (s->obj[j].kind == kind)
			return true;
	return false;
}

static int hp_syn_class(struct vd_side *s, const struct vd_obj *o, struct err *e)
{
	struct hprof_sub sub;
	struct hprof_class_dump cd;
	struct hprof_class_entry ent;
	int rc;

	if ((rc = hp_sub_at(s, o->off, &sub, e)) || (rc = hprof_class_dump_parse(&sub, s->id_size, &cd, e)))
		return rc;
	while ((rc = hprof_class_next_constant(&cd, &ent, e)) == 1)
		;
	while (rc == 0 && (rc = hprof_class_next_static(&cd, &ent, e)) == 1) {
		const uint8_t *p;
		size_t n;
		rc = 0;
		if (ent.type != HPROF_T_OBJECT || ent.value <= o->id || ent.value - o->id >= VD_OBJECT_ALIGN)
			continue;
		if ((rc = hp_string(s, ent.key, &p, &n, e)) < 0)
			return rc;
		if (rc == 1 && vd_names_find(s->names, (const char *)p, n) == s->n_overhead)
			hp_flag_syn(s, ent.value, VD_PRIM_ARRAY, VD_SYN_CLASS_STATICS);
		rc = 0;
	}
	return rc;
}

static int hp_syn_instance(struct vd_side *s, const struct vd_obj *o, struct err *e)
{
	struct hprof_sub sub;
	struct hprof_instance in;
	const struct vd_hclass *c;
	uint64_t v;
	int rc;

	if ((rc = hp_sub_at(s, o->off, &sub, e)) || (rc = hprof_instance_parse(&sub, s->id_size, &in, e)))
		return rc;
	c = hp_class(s, in.class_id);
	if (!c)
		return 0;
	if (c->value_off != UINT32_MAX && hp_value(&in.values, c->value_off, HPROF_T_OBJECT, s->id_size, &v)) {
		if (v > o->id && v - o->id <= VD_STRING_VALUE_MAX)
			hp_flag_syn(s, v, VD_PRIM_ARRAY, VD_SYN_STRING_VALUE);
		if (v != o->id + VD_STRING_VALUE_MAX && hp_has(s, o->id + VD_STRING_VALUE_MAX, VD_PRIM_ARRAY))
			s->info.value_position_objects++;
	}
	if (c->rio_off != UINT32_MAX && hp_value(&in.values, c->rio_off, HPROF_T_OBJECT, s->id_size, &v) &&
	    v > o->id && v - o->id < VD_OBJECT_ALIGN)
		hp_flag_syn(s, v, VD_OBJ_ARRAY, VD_SYN_RUNTIME_INTERNAL);
	return 0;
}

static int hp_synthetic(struct vd_side *s, struct err *e)
{
	int rc;

	for (size_t i = 0; i < s->n; i++) {
		const struct vd_obj *o = &s->obj[i];
		if (o->flags & (VD_F_MARK | VD_F_SYN_MASK))
			continue;
		if (o->kind == VD_CLASS && (rc = hp_syn_class(s, o, e)))
			return rc;
		if (o->kind == VD_INSTANCE && (rc = hp_syn_instance(s, o, e)))
			return rc;
	}
	return 0;
}

static const uint8_t hp_mark_state[HPROF_MARK_COUNT] = {
	[HPROF_MARK_FREE] = VD_FREE, [HPROF_MARK_PARTIAL] = VD_PARTIAL, [HPROF_MARK_RESIDUE] = VD_RESIDUE,
	[HPROF_MARK_UNREACHABLE] = VD_UNREACHABLE, [HPROF_MARK_UNKNOWN] = VD_REACH_UNKNOWN,
};

static int hp_marks(struct vd_side *s, struct err *e)
{
	for (size_t i = 0; i < s->n; i++) {
		const struct vd_obj *o = &s->obj[i];
		struct hprof_sub sub;
		struct hprof_obj_array oa;
		int m, rc;

		if (!(o->flags & VD_F_MARK) || o->kind != VD_OBJ_ARRAY)
			continue;
		m = hprof_mark_of_class(s->names->v[o->cls].s, s->names->v[o->cls].len);
		s->info.states[hprof_mark_dim((enum hprof_mark)m)] = true;
		s->info.mark_arrays++;
		if ((rc = hp_sub_at(s, o->off, &sub, e)) || (rc = hprof_obj_array_parse(&sub, s->id_size, &oa, e)))
			return rc;
		for (uint32_t k = 0; k < oa.count; k++) {
			uint64_t id;
			size_t j;
			if ((rc = cur_uNbe(&oa.elements, s->id_size, &id, e)))
				return rc;
			for (j = vd_side_find(s, id); j != SIZE_MAX && j < s->n && s->obj[j].id == id; j++)
				if (vd_obj_real(&s->obj[j]))
					s->obj[j].state = vd_st_set(s->obj[j].state,
								    (enum vd_dim)hprof_mark_dim((enum hprof_mark)m),
								    hp_mark_state[m]);
		}
	}
	return 0;
}

/* Roots naming a mark array are the writer's way to keep marked objects visible, not roots. */
static void hp_roots(struct vd_side *s)
{
	size_t k = 0;

	if (s->nroots > 1)
		qsort(s->roots, s->nroots, sizeof(*s->roots), cmp_u64_pair);
	for (size_t i = 0; i < s->nroots; i++) {
		size_t j = vd_side_find(s, s->roots[i].id);
		if (j != SIZE_MAX && (s->obj[j].flags & VD_F_MARK))
			continue;
		s->roots[k++] = s->roots[i];
	}
	s->nroots = k;
}

int vd_hprof_load(struct vd_side *s, struct err *e)
{
	int rc;

	s->fmt = VD_FMT_HPROF;
	if ((rc = hp_prim_names(s, e)) || (rc = hp_scan(s, e)))
		return rc;
	if (s->nstrs > 1)
		qsort(s->strs, s->nstrs, sizeof(*s->strs), cmp_u64_pair);
	if (s->nlcs > 1)
		qsort(s->lcs, s->nlcs, sizeof(*s->lcs), cmp_u64_pair);
	if (s->nclasses > 1)
		qsort(s->classes, s->nclasses, sizeof(*s->classes), cmp_u64_pair);
	if ((rc = hp_heap_names(s, e)) || (rc = hp_layouts(s, e)))
		return rc;
	hp_special_offsets(s);
	if ((rc = hp_object_classes(s, e)))
		return rc;
	vd_side_sort(s);
	if ((rc = hp_synthetic(s, e)) || (rc = hp_marks(s, e)))
		return rc;
	hp_roots(s);
	return 0;
}

/* ---- decoding one object ------------------------------------------------------------------ */

typedef int (*hp_field_fn)(void *ctx, const struct vd_hfield *f, uint64_t val, struct err *e);

/* Calls fn for every instance field, root class first; 1 when the values do not fit the
 * class layout (nothing called), 0 when done, <0 on error. */
static int hp_fields(const struct vd_side *s, const struct hprof_instance *in, hp_field_fn fn, void *ctx,
		     struct err *e)
{
	const struct vd_hclass *chain[VD_CHAIN_MAX];
	const struct vd_hclass *c = hp_class(s, in->class_id);
	uint32_t start[VD_CHAIN_MAX];
	uint64_t total = 0;
	unsigned n = c ? hp_chain(s, c, chain) : 0;
	int rc;

	if (!n)
		return 1;
	for (unsigned k = 0; k < n; k++) {
		start[k] = (uint32_t)total;
		total += chain[k]->own_size;
		if (total > in->values.len)
			return 1;
	}
	if (total != in->values.len)
		return 1;
	for (unsigned k = n; k-- > 0;) {
		uint32_t at = start[k];
		for (uint32_t f = 0; f < chain[k]->nfields; f++) {
			const struct vd_hfield *hf = &s->hfields[chain[k]->field0 + f];
			uint64_t v = 0;
			if (!hp_value(&in->values, at, hf->type, s->id_size, &v))
				return 1;
			at += hprof_type_size(hf->type, s->id_size);
			if ((rc = fn(ctx, hf, v, e)))
				return rc < 0 ? rc : 1;
		}
	}
	return 0;
}

static int hp_view_field(void *ctx, const struct vd_hfield *f, uint64_t val, struct err *e)
{
	struct vd_fv fv = { .name = f->name, .type = f->type, .val = val };
	return vd_view_add_field(ctx, &fv, e);
}

static const struct vd_fv *hp_find_field(const struct vd_view *v, uint32_t name)
{
	for (size_t i = 0; i < v->nf; i++)
		if (v->f[i].name == name && !v->f[i].is_static)
			return &v->f[i];
	return NULL;
}

/* The text of a String through its own fields: "value" names the character array (char[]:
 * UTF-16; byte[]: Latin-1, or UTF-16 little-endian when a "coder" field is 1, as OpenJDK 9+
 * keeps it), "offset" and "count" select the part of it (5.x and OpenJDK 8 share arrays). */
static int hp_string_text(struct vd_side *s, struct vd_view *v, struct err *e)
{
	const struct vd_fv *value = hp_find_field(v, s->n_value), *count = hp_find_field(v, s->n_count);
	const struct vd_fv *offset = hp_find_field(v, s->n_offset), *coder = hp_find_field(v, s->n_coder);
	struct hprof_prim_array pa;
	struct hprof_sub sub;
	uint64_t units, first = 0, n;
	size_t j;
	int rc;

	if (!value || value->type != HPROF_T_OBJECT || !value->val)
		return 0;
	for (j = vd_side_find(s, value->val); j != SIZE_MAX && j < s->n && s->obj[j].id == value->val; j++)
		if (s->obj[j].kind == VD_PRIM_ARRAY)
			break;
	if (j == SIZE_MAX || j >= s->n || s->obj[j].id != value->val)
		return 0;
	if ((rc = hp_sub_at(s, s->obj[j].off, &sub, e)) || (rc = hprof_prim_array_parse(&sub, s->id_size, &pa, e)))
		return rc;
	bool utf16le = pa.type == HPROF_T_BYTE && coder && coder->val == 1;
	if (pa.nodata || (pa.type != HPROF_T_CHAR && pa.type != HPROF_T_BYTE))
		return 0;
	units = pa.type == HPROF_T_CHAR ? pa.count : utf16le ? pa.data.len / 2 : pa.count;
	if (offset && offset->val <= units)
		first = offset->val;
	n = units - first;
	if (count && (count->val & 0xffffffffu) <= n)
		n = count->val & 0xffffffffu;
	for (uint64_t i = first; i < first + n; i++) {
		const uint8_t *p = pa.data.base;
		uint16_t u = pa.type == HPROF_T_CHAR ? ld_u16be(p + 2 * i) : utf16le ? ld_u16le(p + 2 * i) : p[i];
		if ((rc = vd_view_add_unit(v, u, e)))
			return rc;
	}
	v->have_text = true;
	return 0;
}

static int hp_view_class(struct vd_side *s, const struct hprof_sub *sub, struct vd_view *v, struct err *e)
{
	struct hprof_class_dump cd;
	struct hprof_class_entry ent;
	int rc;

	if ((rc = hprof_class_dump_parse(sub, s->id_size, &cd, e)))
		return rc;
	while ((rc = hprof_class_next_constant(&cd, &ent, e)) == 1)
		;
	while (rc == 0 && (rc = hprof_class_next_static(&cd, &ent, e)) == 1) {
		const uint8_t *p = NULL;
		size_t n = 0;
		struct vd_fv fv = { .type = ent.type, .val = ent.value, .is_static = true };
		if ((rc = hp_string(s, ent.key, &p, &n, e)) < 0 ||
		    (rc = vd_names_add(s->names, rc ? (const char *)p : "(unnamed)", rc ? n : 9, &fv.name, e)) ||
		    (rc = vd_view_add_field(v, &fv, e)))
			return rc;
	}
	return rc;
}

int vd_hprof_view(struct vd_side *s, size_t i, struct vd_view *v, struct err *e)
{
	const struct vd_obj *o = &s->obj[i];
	union { struct hprof_instance in; struct hprof_obj_array oa; struct hprof_prim_array pa; } u;
	struct hprof_sub sub;
	int rc;

	vd_view_reset(v);
	v->kind = (enum vd_kind)o->kind;
	v->id_size = s->id_size;
	if ((rc = hp_sub_at(s, o->off, &sub, e)))
		return rc;
	switch (o->kind) {
	case VD_CLASS:
		return hp_view_class(s, &sub, v, e);
	case VD_INSTANCE:
		if ((rc = hprof_instance_parse(&sub, s->id_size, &u.in, e)))
			return rc;
		rc = hp_fields(s, &u.in, hp_view_field, v, e);
		if (rc < 0)
			return rc;
		v->decodable = rc == 0;
		v->is_string = o->cls == s->n_string;
		return v->decodable && v->is_string ? hp_string_text(s, v, e) : 0;
	case VD_OBJ_ARRAY:
		if ((rc = hprof_obj_array_parse(&sub, s->id_size, &u.oa, e)))
			return rc;
		v->elem_type = HPROF_T_OBJECT;
		v->count = u.oa.count;
		v->data = u.oa.elements;
		v->have_data = true;
		return 0;
	default:
		if ((rc = hprof_prim_array_parse(&sub, s->id_size, &u.pa, e)))
			return rc;
		v->elem_type = u.pa.type;
		v->count = u.pa.count;
		v->data = u.pa.data;
		v->have_data = !u.pa.nodata;
		v->decodable = !u.pa.nodata;
		return 0;
	}
}

/* ---- references, for reachability walks ------------------------------------------------ */

struct hp_ref_ctx { void (*fn)(void *ctx, uint64_t id); void *ctx; };

static int hp_ref_field(void *ctx, const struct vd_hfield *f, uint64_t val, struct err *e)
{
	struct hp_ref_ctx *r = ctx;
	(void)e;
	if (f->type == HPROF_T_OBJECT && val)
		r->fn(r->ctx, val);
	return 0;
}

int vd_hprof_refs(struct vd_side *s, size_t i, void (*fn)(void *ctx, uint64_t id), void *ctx, struct err *e)
{
	const struct vd_obj *o = &s->obj[i];
	union { struct hprof_class_dump cd; struct hprof_instance in; struct hprof_obj_array oa; } u;
	struct hp_ref_ctx rctx = { fn, ctx };
	struct hprof_class_entry ent;
	struct hprof_sub sub;
	int rc;

	if (o->kind == VD_PRIM_ARRAY)
		return 0;
	if ((rc = hp_sub_at(s, o->off, &sub, e)))
		return rc;
	switch (o->kind) {
	case VD_CLASS:
		if ((rc = hprof_class_dump_parse(&sub, s->id_size, &u.cd, e)))
			return rc;
		const uint64_t ids[] = { u.cd.super_id, u.cd.loader_id, u.cd.signers_id, u.cd.domain_id };
		for (size_t k = 0; k < sizeof(ids) / sizeof(ids[0]); k++)
			if (ids[k])
				fn(ctx, ids[k]);
		while ((rc = hprof_class_next_constant(&u.cd, &ent, e)) == 1)
			if (ent.type == HPROF_T_OBJECT && ent.value)
				fn(ctx, ent.value);
		while (rc == 0 && (rc = hprof_class_next_static(&u.cd, &ent, e)) == 1) {
			rc = 0;
			if (ent.type == HPROF_T_OBJECT && ent.value)
				fn(ctx, ent.value);
		}
		return rc;
	case VD_INSTANCE:
		if ((rc = hprof_instance_parse(&sub, s->id_size, &u.in, e)))
			return rc;
		fn(ctx, u.in.class_id);
		rc = hp_fields(s, &u.in, hp_ref_field, &rctx, e);
		return rc < 0 ? rc : 0;
	default:
		if ((rc = hprof_obj_array_parse(&sub, s->id_size, &u.oa, e)))
			return rc;
		fn(ctx, u.oa.class_id);
		for (uint32_t k = 0; k < u.oa.count; k++) {
			uint64_t id;
			if ((rc = cur_uNbe(&u.oa.elements, s->id_size, &id, e)))
				return rc;
			if (id)
				fn(ctx, id);
		}
		return 0;
	}
}
