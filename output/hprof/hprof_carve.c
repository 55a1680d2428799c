/* hprof_carve.c - writes a carved heap as HPROF (see hprof_carve.h). */
#include "output/hprof/hprof_carve.h"

#include <stdio.h>
#include <string.h>

#include "carver/base/cursor.h"
#include "carver/base/hash.h"
#include "carver/base/htab.h"
#include "carver/base/ordered.h"
#include "carver/base/sha256.h"
#include "carver/base/xalloc.h"
#include "output/hprof/hprof_writer.h"

enum {
	HC_ID = 4,                      /* identifier size */
	HC_MAX_CHAIN = 4096,            /* longest super-class chain written (hostile cycles) */
	HC_MARK_CHUNK = 16384,          /* ids per mark array (64 KiB records) */
	HC_CHUNK_OBJECTS = 32768,       /* objects per chunk of the heap dump (a few MB of records) */
};

/* Mark class and array ids: not 8-aligned, counting down by 16 from the top of the 32-bit
 * id space, so they never meet an object's address (output/hprof/hprof_mark.h). */
#define HC_MARK_ID_TOP 0xfffffff1u
#define HC_MARK_ID_STEP 16u
/* Class id slots after the mark array classes: AddressAlias at HPROF_MARK_COUNT, then WalkGap. */
#define HC_GAP_CLASS (HPROF_MARK_COUNT + 1)

/* ---- string ids: one STRING record per distinct text, ids from 1 in first-use order ---- */

struct hc_str {
	const char *s;
	size_t n;
};

struct hc_strings {
	struct htab by_hash;            /* hash_fnv1a64 of the text -> index in v */
	struct hc_str *v;               /* v[i] has the id i + 1 */
	size_t cap, count;
	bool frozen;                    /* the heap dump began: only lookups (its chunks share it) */
};

/* The id of text s (n bytes, borrowed for the writer's lifetime); writes its STRING record
 * the first time. */
static int string_id(struct hc_strings *t, struct hprof_writer *w, const char *s, size_t n, uint32_t *id,
		     struct err *e)
{
	uint64_t h = hash_fnv1a64(s, n);

	for (size_t slot = htab_find(&t->by_hash, h); slot != HTAB_END; slot = htab_find_next(&t->by_hash, h, slot)) {
		const struct hc_str *k = &t->v[htab_val(&t->by_hash, slot)];
		if (k->n == n && !memcmp(k->s, s, n)) {
			*id = htab_val(&t->by_hash, slot) + 1;
			return 0;
		}
	}
	if (t->frozen)   /* every name is written before the heap dump (load_classes) */
		return ERR_SET(e, ERR_INTERNAL, ERR_NO_VA, "HPROF string \"%.*s\" not written before the heap dump",
			       (int)(n < 80 ? n : 80), s);
	if (t->count >= HTAB_VAL_MAX || XALLOC_GROW(t->v, t->cap, t->count + 1, 1024) ||
	    htab_add(&t->by_hash, h, (uint32_t)t->count))
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory for HPROF strings");
	t->v[t->count] = (struct hc_str){ s, n };
	*id = (uint32_t)++t->count;
	return hprof_write_string(w, *id, s, n, e);
}

/* ---- writer state ---- */

/* What an instance of a class becomes: the field values in HPROF order (the class's own
 * fields, then its super classes'), each `size` bytes at `off` in the object. */
struct hc_plan {
	bool made;
	uint32_t n, bytes;           /* fields, payload bytes (String's value id included) */
	uint32_t end;                /* the end of the last field in the object */
	uint32_t *off;
	uint8_t *size;
	uint8_t *shift;              /* 64 - 8 * size: see payload_words */
	uint8_t *ref;                /* 1: a reference field */
	uint64_t word_end;           /* the end of the last 8-byte load payload_words makes */
	uint32_t count_at;           /* String: the field holding count_ (written as the length), else n */
	uint32_t value_at;           /* String: fields before its value id, else n */
};

/* One carved HPROF being written: the model and reachability it writes, the writer, the
 * current object's bytes, and the ids of the records it invents (marks, alias windows, walk
 * gaps).  The heap dump's objects are rendered by parts: copies that share what the writer
 * set up before it (names, plans; read only then) and have their own writer (its buffer
 * holds one chunk's records), scratch, marks and counts (parts_open). */
struct carve_writer {
	const struct model *m;
	const struct reach *r;
	const struct hprof_carve_opts *o;
	struct hprof_writer w;
	struct hc_strings str;
	struct arena names;          /* texts built here (unnamed classes, states) */
	uint32_t *name_id;           /* per class: string id of its name */
	uint32_t *serial;            /* per class: LOAD_CLASS serial */
	bool *own_ok;                /* per class: own instance field offsets known */
	struct hc_plan *plan;        /* per class: its instances' payload, computed when first used */
	struct wbuf obj;             /* scratch: an object's bytes when they span regions */
	const uint8_t *bytes;        /* the current object's bytes (read_object) */
	uint64_t avail;              /* bytes readable from there (the object's and the region's after it) */
	uint64_t *elems;             /* scratch: object array elements */
	size_t elems_cap;
	uint32_t value_id;           /* string id of "value" */
	uint32_t mark_name[HPROF_MARK_COUNT];
	bool aliases;                /* the model has alias windows: the AddressAlias class is written */
	uint32_t alias_name, alias_field[3]; /* string ids of its name and fields */
	bool gaps;                   /* the model has walk gaps: the WalkGap class is written */
	uint32_t gap_name, gap_field[3];
	uint32_t next_mark_id;       /* next free id below the marks' top */
	uint64_t *marked[HPROF_MARK_COUNT]; /* ids waiting for each mark's next array (HC_MARK_CHUNK
					     * of them; a part: its chunk's, marked_cap) */
	size_t marked_n[HPROF_MARK_COUNT], marked_cap[HPROF_MARK_COUNT];
	int heap;                    /* current Android heap id, -1 none */
	uint64_t segments_seen;
	struct hprof_carve_stats *st;
	uint64_t chunk_bytes;        /* a part: the object bytes of its chunk (progress) */
	struct carve_writer *parts;  /* the writer: its parts, one per slot of ordered_run */
	struct hprof_carve_stats *part_st;
	unsigned part_count;
	struct img_drop drop;        /* the image released behind the chunks written */
	uint64_t done;               /* object bytes written (progress) */
};

static int hc_nomem(struct err *e)
{
	return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory writing the HPROF");
}

static const char *class_name(struct carve_writer *h, size_t i)
{
	const struct rt_class *k = &model_runtime(h->m)->classes[i];
	char buf[64];
	if (k->name)
		return k->name;
	snprintf(buf, sizeof(buf), "unnamed.Class$0x%llx", (unsigned long long)k->addr);
	return arena_strndup(&h->names, buf, strlen(buf));
}

/* HPROF basic type of a field descriptor. */
static uint8_t field_type(char d)
{
	switch (d) {
	case 'Z': return HPROF_T_BOOLEAN;
	case 'C': return HPROF_T_CHAR;
	case 'F': return HPROF_T_FLOAT;
	case 'D': return HPROF_T_DOUBLE;
	case 'B': return HPROF_T_BYTE;
	case 'S': return HPROF_T_SHORT;
	case 'I': return HPROF_T_INT;
	case 'J': return HPROF_T_LONG;
	default: return HPROF_T_OBJECT;
	}
}

static bool own_fields_ok(const struct rt_class *k)
{
	if (!*k->fields_how)
		return false;
	for (uint32_t i = 0; i < k->field_count; i++)
		if (k->fields[i].offset == RT_OFFSET_UNKNOWN)
			return false;
	return true;
}

/* Little-endian value of `size` bytes at p, as the unsigned integer HPROF stores big-endian. */
static uint64_t le_value(const uint8_t *p, unsigned size)
{
	uint64_t v = 0;
	for (unsigned i = size; i-- > 0;)
		v = v << 8 | p[i];
	return v;
}

/* The object's bytes: a pointer into the image when one captured region holds them all (the
 * common case, no copy), else one bounded copy into h->obj. */
static int read_object(struct carve_writer *h, uint64_t addr, uint32_t size, struct err *e)
{
	size_t rest;
	const uint8_t *p = img_span(model_image(h->m), addr, size, &rest);
	if (p) {
		h->bytes = p;
		h->avail = rest;
		return 0;
	}
	wbuf_reset(&h->obj);
	if (wbuf_reserve(&h->obj, size))
		return hc_nomem(e);
	int rc = img_read(model_image(h->m), addr, h->obj.data, size, e);
	if (rc == 0) {
		h->obj.len = size;
		h->bytes = h->obj.data;
		h->avail = size;
	}
	return rc;
}

/* ---- records before the heap dump ---- */

static uint32_t mark_class_id(int k)
{
	return HC_MARK_ID_TOP - (uint32_t)k * HC_MARK_ID_STEP;
}

static int load_classes(struct carve_writer *h, struct err *e)
{
	const struct art_runtime *rt = model_runtime(h->m);
	size_t n = rt->class_count ? rt->class_count : 1;
	int rc = 0;

	h->name_id = xcalloc(n, sizeof(*h->name_id));
	h->serial = xcalloc(n, sizeof(*h->serial));
	h->own_ok = xcalloc(n, sizeof(*h->own_ok));
	h->plan = xcalloc(n, sizeof(*h->plan));
	if (!h->name_id || !h->serial || !h->own_ok || !h->plan)
		return hc_nomem(e);
	for (size_t i = 0; rc == 0 && i < rt->class_count; i++) {
		const char *name = class_name(h, i);
		if (!name)
			return hc_nomem(e);
		h->own_ok[i] = own_fields_ok(&rt->classes[i]);
		rc = string_id(&h->str, &h->w, name, strlen(name), &h->name_id[i], e);
		for (uint32_t f = 0; rc == 0 && h->own_ok[i] && f < rt->classes[i].field_count; f++) {
			uint32_t id;
			const char *fn = rt->classes[i].fields[f].name;
			rc = string_id(&h->str, &h->w, fn, strlen(fn), &id, e);
		}
		const struct rt_statics *s = &model_class(h->m, i)->statics;
		for (uint32_t f = 0; rc == 0 && f < s->count; f++) {
			uint32_t id;
			rc = string_id(&h->str, &h->w, s->v[f].name, strlen(s->v[f].name), &id, e);
		}
	}
	if (rc == 0)
		rc = string_id(&h->str, &h->w, "value", 5, &h->value_id, e);
	for (int k = 0; rc == 0 && k < HPROF_MARK_COUNT; k++) {
		const char *mn = hprof_mark_class((enum hprof_mark)k);
		rc = string_id(&h->str, &h->w, mn, strlen(mn), &h->mark_name[k], e);
	}
	for (size_t i = 0; rc == 0 && h->aliases && i <= 3; i++) {
		const char *an = i ? hprof_mark_alias_fields[i - 1] : hprof_mark_alias_class();
		rc = string_id(&h->str, &h->w, an, strlen(an), i ? &h->alias_field[i - 1] : &h->alias_name, e);
	}
	for (size_t i = 0; rc == 0 && h->gaps && i <= 3; i++) {
		const char *gn = i ? hprof_mark_gap_fields[i - 1] : hprof_mark_gap_class();
		rc = string_id(&h->str, &h->w, gn, strlen(gn), i ? &h->gap_field[i - 1] : &h->gap_name, e);
	}
	for (size_t i = 0; rc == 0 && i < rt->class_count; i++) {
		struct hprof_load_class lc = { (uint32_t)i + 1, rt->classes[i].addr, 0, h->name_id[i] };
		h->serial[i] = lc.serial;
		rc = hprof_write_load_class(&h->w, &lc, e);
	}
	for (int k = 0; rc == 0 && k < HPROF_MARK_COUNT; k++) {
		struct hprof_load_class lc = { (uint32_t)(rt->class_count + 1 + (size_t)k), mark_class_id(k), 0,
					       h->mark_name[k] };
		rc = hprof_write_load_class(&h->w, &lc, e);
	}
	if (rc == 0 && h->aliases) {
		struct hprof_load_class lc = { (uint32_t)(rt->class_count + 1 + HPROF_MARK_COUNT),
					       mark_class_id(HPROF_MARK_COUNT), 0, h->alias_name };
		rc = hprof_write_load_class(&h->w, &lc, e);
	}
	if (rc == 0 && h->gaps) {
		struct hprof_load_class lc = { (uint32_t)(rt->class_count + 2 + HPROF_MARK_COUNT),
					       mark_class_id(HC_GAP_CLASS), 0, h->gap_name };
		rc = hprof_write_load_class(&h->w, &lc, e);
	}
	return rc;
}

static bool object_written(const struct carve_writer *h, const struct model_obj *o)
{
	if (o->alloc == MODEL_ALLOCATED)
		return true;
	return o->content == MODEL_PARTIAL ? h->o->include_partial : h->o->include_residue;
}

/* ---- heap dump ---- */

static uint8_t root_tag(const struct carve_writer *h, unsigned source)
{
	switch (source) {
	case REACH_CLASSES: return HPROF_ROOT_STICKY_CLASS;
	case REACH_THREADS: return HPROF_ROOT_THREAD_OBJECT;
	case REACH_JNI_GLOBAL: return HPROF_ROOT_JNI_GLOBAL;
	case REACH_JNI_LOCAL: return HPROF_ROOT_JNI_LOCAL;
	case REACH_STACKS: return HPROF_ROOT_NATIVE_STACK;
	case REACH_INTERNED: return h->o->android ? HPROF_ROOT_INTERNED_STRING : HPROF_ROOT_UNKNOWN;
	default: return h->o->android ? HPROF_ROOT_VM_INTERNAL : HPROF_ROOT_UNKNOWN;
	}
}

static int roots(struct carve_writer *h, struct err *e)
{
	for (size_t i = 0; i < h->r->count; i++) {
		const struct reach_root *rr = &h->r->roots[i];
		struct hprof_root root = { root_tag(h, rr->source), rr->obj, rr->ref, rr->thread, 0 };
		if (root.tag == HPROF_ROOT_JNI_LOCAL)
			root.frame = UINT32_MAX;   /* no frame known (-1) */
		int rc = hprof_put_root(&h->w, &root, e);
		if (rc)
			return rc;
		h->st->roots++;
	}
	return 0;
}

/* Android heaps: a HEAP_DUMP_INFO whenever the heap changes or a new segment starts (ART
 * resets the current heap at every segment: runtime/hprof/hprof.cc @R11 StartNewHeapDumpSegment). */
static int heap_for(struct carve_writer *h, const struct model_obj *o, size_t len, struct err *e)
{
	static const char *const names[] = { "app", "image", "zygote" };
	if (!h->o->android)
		return 0;
	enum space_kind k = model_space(h->m, o)->kind;
	int heap = k == SPACE_IMAGE ? HPROF_HEAP_IMAGE : k == SPACE_ZYGOTE ? HPROF_HEAP_ZYGOTE : HPROF_HEAP_APP;
	const char *name = names[heap == HPROF_HEAP_IMAGE ? 1 : heap == HPROF_HEAP_ZYGOTE ? 2 : 0];
	uint32_t id;
	int rc = hprof_heap_reserve(&h->w, len + 1 + 4 + HC_ID, e);
	if (rc)
		return rc;
	if (heap == h->heap && h->w.segments == h->segments_seen)
		return 0;
	h->heap = heap;
	h->segments_seen = h->w.segments;
	/* the name was written as a STRING before the heap dump began */
	if ((rc = string_id(&h->str, &h->w, name, strlen(name), &id, e)))
		return rc;
	struct hprof_heap_info hi = { (uint32_t)heap, id };
	return hprof_put_heap_info(&h->w, &hi, e);
}

/* A reference value in an alias window names no object of the process (the window is
 * unmapped: rosalloc/model/model.h) but is the id of an object above 4 GiB here: written
 * null, so that no reader links it (objects.jsonl and case.db keep the value read). */
static bool names_window(const struct carve_writer *h, uint64_t v)
{
	return model_in_alias(h->m, v);
}

/* Reads the bytes of the class o that hold its first ns statics (only those: class_size_
 * may be damaged) into h->bytes.  False when one lies past the Class's size or the bytes are
 * not captured. */
static bool statics_read(struct carve_writer *h, const struct model_obj *o, const struct rt_statics *s, uint32_t ns)
{
	uint32_t end = 0;
	struct err why;

	err_init(&why);
	for (uint32_t f = 0; f < ns && !why.code; f++) {
		unsigned size = hprof_type_size(field_type(s->v[f].type[0]), HC_ID);
		if (s->v[f].offset > o->size || size > o->size - s->v[f].offset)
			ERR_SET(&why, ERR_CORRUPT, o->addr, "static %s at +%u past the Class's %u bytes", s->v[f].name,
				s->v[f].offset, o->size);
		else if (s->v[f].offset + size > end)
			end = s->v[f].offset + size;
	}
	if (ns && !why.code)
		read_object(h, model_va(h->m, o), end, &why);
	/* the first damaged class's reason goes to the summary with the count */
	if (why.code && !h->st->damaged_classes)
		snprintf(h->st->damaged_why, sizeof(h->st->damaged_why), "class at 0x%llx: %.160s",
			 (unsigned long long)model_va(h->m, o), why.msg);
	return !why.code;
}

static int class_dump(struct carve_writer *h, const struct model_obj *o, struct err *e)
{
	const struct art_runtime *rt = model_runtime(h->m);
	const struct rt_class *k = runtime_class_at(rt, model_va(h->m, o));
	size_t i = (size_t)(k - rt->classes);
	const struct model_class *mc = model_class(h->m, i);
	const struct rt_statics *s = &mc->statics;
	struct hprof_class_entry *st = NULL, *fl = NULL;
	bool string = i == model_jls(h->m) && mc->kind == MODEL_STRING;
	uint32_t nf = h->own_ok[i] ? k->field_count : 0, ns = mc->statics_ok ? s->count : 0;
	int rc;

	/* damage costs only this class: counts HPROF cannot hold, or statics whose bytes do not
	 * read inside the Class, leave them out of its CLASS_DUMP (counted: damaged_classes) */
	bool statics_ok = ns <= UINT16_MAX && statics_read(h, o, s, ns);
	if (!statics_ok || nf + 1 > UINT16_MAX) {
		if (statics_ok && !h->st->damaged_classes)
			snprintf(h->st->damaged_why, sizeof(h->st->damaged_why), "class at 0x%llx: %u fields",
				 (unsigned long long)model_va(h->m, o), nf);
		h->st->damaged_classes++;
		ns = statics_ok ? ns : 0;
		nf = nf + 1 > UINT16_MAX ? 0 : nf;
	}
	st = xcalloc(ns ? ns : 1, sizeof(*st));
	fl = xcalloc(nf + 1, sizeof(*fl));
	if (!st || !fl) {
		xfree(st);
		xfree(fl);
		return hc_nomem(e);
	}
	rc = 0;
	for (uint32_t f = 0; rc == 0 && f < ns; f++) {
		const struct rt_field *sf = &s->v[f];
		uint8_t t = field_type(sf->type[0]);
		unsigned size = hprof_type_size(t, HC_ID);
		uint32_t id = 0;
		rc = string_id(&h->str, &h->w, sf->name, strlen(sf->name), &id, e);
		st[f] = (struct hprof_class_entry){ .key = id, .type = t,
						    .value = le_value(h->bytes + sf->offset, size) };
		if (h->aliases && t == HPROF_T_OBJECT && names_window(h, st[f].value))
			st[f].value = 0;
	}
	for (uint32_t f = 0; rc == 0 && f < nf; f++) {
		uint32_t id = 0;
		rc = string_id(&h->str, &h->w, k->fields[f].name, strlen(k->fields[f].name), &id, e);
		fl[f] = (struct hprof_class_entry){ .key = id, .type = field_type(k->fields[f].type[0]) };
	}
	if (rc == 0 && string) {
		fl[nf].type = HPROF_T_OBJECT;
		fl[nf++].key = h->value_id;
	}
	if (rc == 0 && (rc = heap_for(h, o, 64, e)) == 0) {
		uint32_t isize = k->raw.object_size;
		if (i == model_jlc(h->m) || k->raw.component_type || (k->raw.primitive_type & rt->layout->klass.primitive_mask))
			isize = 0;
		else if (string)
			isize = rt->layout->string.value;
		struct hprof_class_dump cd = {
			.class_id = k->addr,
			.super_id = k->raw.super_class, .loader_id = k->raw.class_loader, .instance_size = isize,
			.static_count = (uint16_t)ns, .field_count = (uint16_t)nf,
		};
		rc = hprof_put_class_dump(&h->w, &cd, NULL, st, fl, e);
	}
	xfree(st);
	xfree(fl);
	if (rc == 0)
		h->st->classes++;
	return rc;
}

/* Id of a String's character array as ART writes it (+8 for an empty string), from the
 * String's id. */
static uint64_t string_value_id(const struct carve_writer *h, const struct model_obj *o)
{
	return (uint64_t)o->addr + (model_length(h->m, o) ? model_data_addr(h->m, o) - model_va(h->m, o) : 8);
}

/* The plan of class c (see struct hc_plan), made once. */
static int plan_of(struct carve_writer *h, size_t cls, const struct hc_plan **out, struct err *e)
{
	const struct art_runtime *rt = model_runtime(h->m);
	struct hc_plan *p = &h->plan[cls];
	uint32_t n = 0;
	unsigned depth = 0;

	*out = p;
	if (p->made)
		return 0;
	for (size_t c = cls; c != RT_NONE && depth < HC_MAX_CHAIN; c = rt->classes[c].super, depth++)
		n += h->own_ok[c] ? rt->classes[c].field_count : 0;
	p->off = arena_array(&h->names, n ? n : 1, sizeof(*p->off));
	p->size = arena_array(&h->names, n ? n : 1, sizeof(*p->size));
	p->shift = arena_array(&h->names, n ? n : 1, sizeof(*p->shift));
	p->ref = arena_array(&h->names, n ? n : 1, sizeof(*p->ref));
	if (!p->off || !p->size || !p->shift || !p->ref)
		return hc_nomem(e);
	p->count_at = p->value_at = UINT32_MAX;
	depth = 0;
	for (size_t c = cls; c != RT_NONE && depth < HC_MAX_CHAIN; c = rt->classes[c].super, depth++) {
		const struct rt_class *k = &rt->classes[c];
		for (uint32_t f = 0; h->own_ok[c] && f < k->field_count; f++) {
			uint8_t t = field_type(k->fields[f].type[0]);
			if (model_class(h->m, cls)->kind == MODEL_STRING && k->fields[f].offset == rt->layout->string.count &&
			    t == HPROF_T_INT)
				p->count_at = p->n;
			p->off[p->n] = k->fields[f].offset;
			p->ref[p->n] = t == HPROF_T_OBJECT;
			p->size[p->n] = (uint8_t)hprof_type_size(t, HC_ID);
			p->shift[p->n++] = (uint8_t)(64 - 8 * hprof_type_size(t, HC_ID));
			if ((uint64_t)k->fields[f].offset + 8 > p->word_end)
				p->word_end = (uint64_t)k->fields[f].offset + 8;
			if ((uint64_t)k->fields[f].offset + hprof_type_size(t, HC_ID) > p->end)
				p->end = (uint32_t)((uint64_t)k->fields[f].offset + hprof_type_size(t, HC_ID));
			p->bytes += hprof_type_size(t, HC_ID);
		}
		if (model_class(h->m, cls)->kind == MODEL_STRING && c == model_jls(h->m)) {
			p->value_at = p->n;
			p->bytes += HC_ID;
		}
	}
	p->made = true;
	return 0;
}

static uint8_t *put_u32be(uint8_t *d, uint32_t v)
{
	d[0] = (uint8_t)(v >> 24);
	d[1] = (uint8_t)(v >> 16);
	d[2] = (uint8_t)(v >> 8);
	d[3] = (uint8_t)v;
	return d + 4;
}

/* The field values by whole words: each read as 8 bytes, byte-swapped and shifted so that
 * its own bytes come first in big-endian order, stored as 8 bytes of which the next value
 * overwrites the rest.  No branch per field (field sizes vary too much to predict).  The
 * caller checks that every 8-byte load stays in the captured bytes. */
static void payload_words(const struct hc_plan *p, const uint8_t *s, uint8_t *d)
{
	for (uint32_t i = 0; i < p->n; i++) {
		uint64_t q;
		memcpy(&q, s + p->off[i], 8);
		q = __builtin_bswap64(q) >> p->shift[i];
		memcpy(d, &q, 8);
		d += p->size[i];
	}
}

/* The field values one by one, with String's length and value id. */
static void payload_fields(struct carve_writer *h, const struct model_obj *o, const struct hc_plan *p, uint8_t *d)
{
	for (uint32_t i = 0; i <= p->n; i++) {
		if (i == p->value_at)
			d = put_u32be(d, (uint32_t)string_value_id(h, o));
		if (i == p->n)
			break;
		if (i == p->count_at)
			d = put_u32be(d, model_length(h->m, o));   /* ART writes the length, not the flag */
		else
			d += hprof_be_from_le(d, h->bytes + p->off[i], p->size[i]);
	}
}

/* Nulls the reference fields of a composed INSTANCE_DUMP payload that name a window. */
static void null_window_refs(const struct carve_writer *h, const struct hc_plan *p, uint8_t *d)
{
	for (uint32_t i = 0; i <= p->n; i++) {
		if (i == p->value_at)
			d += HC_ID;   /* the String's value id: its own array, kept */
		if (i == p->n)
			break;
		if (p->ref[i] && names_window(h, ld_u32be(d)))
			memset(d, 0, HC_ID);
		d += p->size[i];
	}
}

/* An object smaller than its class's fields (its class's object_size_ damaged, issue 23):
 * the fields past its size are written as zero from a padded copy, and the object is counted
 * (damaged_objects, the first with its reason) instead of failing the dump. */
static int pad_fields(struct carve_writer *h, const struct model_obj *o, const struct hc_plan *p, struct err *e)
{
	uint32_t i = 0;
	while (i < p->n && p->off[i] <= o->size && p->size[i] <= o->size - p->off[i])
		i++;
	if (i == p->n)
		return 0;   /* every field lies inside it */
	if (!h->st->damaged_objects++)
		snprintf(h->st->damaged_objects_why, sizeof(h->st->damaged_objects_why),
			 "object at 0x%llx: a field at +%u past its size %u (written as zero)",
			 (unsigned long long)model_va(h->m, o), p->off[i], o->size);
	if (h->bytes != h->obj.data) {
		wbuf_reset(&h->obj);
		if (wbuf_reserve(&h->obj, p->end))
			return hc_nomem(e);
		memcpy(h->obj.data, h->bytes, o->size);
	} else if (p->end > h->obj.len && wbuf_reserve(&h->obj, p->end - h->obj.len)) {
		return hc_nomem(e);
	}
	memset(h->obj.data + o->size, 0, p->end - o->size);
	h->bytes = h->obj.data;
	h->avail = p->end;
	return 0;
}

/* The INSTANCE_DUMP: fields of the class, then of its super classes, composed in the record. */
static int instance(struct carve_writer *h, const struct model_obj *o, struct err *e)
{
	const struct hc_plan *p;
	uint8_t *d;
	int rc = plan_of(h, o->cls, &p, e);

	if (rc)
		return rc;
	if (p->end > o->size && (rc = pad_fields(h, o, p, e)))   /* checked once per object */
		return rc;
	if (!(d = hprof_put_instance_room(&h->w, o->addr, 0, model_runtime(h->m)->classes[o->cls].addr, p->bytes, e)))
		return err_rc(e);
	if (p->count_at == UINT32_MAX && p->value_at == UINT32_MAX && p->word_end <= h->avail)
		payload_words(p, h->bytes, d);
	else
		payload_fields(h, o, p, d);
	if (h->aliases)
		null_window_refs(h, p, d);
	return 0;
}

static int string_chars(struct carve_writer *h, const struct model_obj *o, struct err *e)
{
	uint32_t n = model_length(h->m, o);
	uint64_t data = model_data_addr(h->m, o) - model_va(h->m, o);
	bool narrow = model_string_compressed(h->m, o);

	int rc = hprof_put_prim_array_le(&h->w, string_value_id(h, o), 0, narrow ? HPROF_T_BYTE : HPROF_T_CHAR, n,
					 h->bytes + data, e);
	if (rc == 0)
		h->st->string_arrays++;
	return rc;
}

static int object_array(struct carve_writer *h, const struct model_obj *o, struct err *e)
{
	uint32_t n = model_length(h->m, o);
	uint64_t data = model_data_addr(h->m, o) - model_va(h->m, o);
	if (n > h->elems_cap) {
		uint64_t *v = xreallocarray(h->elems, n, sizeof(*v));
		if (!v)
			return hc_nomem(e);
		h->elems = v;
		h->elems_cap = n;
	}
	for (uint32_t i = 0; i < n; i++)
		h->elems[i] = ld_u32le(h->bytes + data + 4ull * i);
	for (uint32_t i = 0; h->aliases && i < n; i++)
		if (names_window(h, h->elems[i]))
			h->elems[i] = 0;
	h->st->obj_arrays++;
	return hprof_put_obj_array(&h->w, o->addr, 0, model_runtime(h->m)->classes[o->cls].addr, h->elems, n, e);
}

static int prim_array(struct carve_writer *h, const struct model_obj *o, struct err *e)
{
	const struct model_class *mc = model_class(h->m, o->cls);
	uint32_t n = model_length(h->m, o);
	uint64_t data = model_data_addr(h->m, o) - model_va(h->m, o);

	h->st->prim_arrays++;
	return hprof_put_prim_array_le(&h->w, o->addr, 0, field_type((char)mc->elem), n, h->bytes + data, e);
}

static int object(struct carve_writer *h, const struct model_obj *o, struct err *e)
{
	int rc;

	if (o->alloc == MODEL_FREE)
		h->st->free_objects++;
	if (o->kind == MODEL_CLASS)
		return class_dump(h, o, e);
	if ((rc = read_object(h, model_va(h->m, o), o->size, e)) || (rc = heap_for(h, o, 64, e)))
		return rc;
	switch (o->kind) {
	case MODEL_OBJ_ARRAY:
		return object_array(h, o, e);
	case MODEL_PRIM_ARRAY:
		return prim_array(h, o, e);
	default:
		break;
	}
	if ((rc = instance(h, o, e)))
		return rc;
	h->st->instances++;
	if (o->kind != MODEL_STRING)
		return 0;
	h->st->strings++;
	return string_chars(h, o, e);
}

/* ---- state marks (output/hprof/hprof_mark.h) ---- */

static bool has_mark(const struct model_obj *o, int k)
{
	switch (k) {
	case HPROF_MARK_FREE: return o->alloc == MODEL_FREE;
	case HPROF_MARK_PARTIAL: return o->content == MODEL_PARTIAL;
	case HPROF_MARK_RESIDUE: return o->content == MODEL_RESIDUE;
	case HPROF_MARK_UNREACHABLE: return o->reach == MODEL_UNREACHABLE;
	default: return o->reach == MODEL_REACH_UNKNOWN;
	}
}

/* The CLASS_DUMP of a record class with three long fields (AddressAlias, WalkGap). */
static int long3_class(struct carve_writer *h, int k, const uint32_t field[3], struct err *e)
{
	struct hprof_class_entry fl[3];
	for (int f = 0; f < 3; f++)
		fl[f] = (struct hprof_class_entry){ .key = field[f], .type = HPROF_T_LONG };
	struct hprof_class_dump cd = { .class_id = mark_class_id(k), .super_id = 0, .instance_size = 24,
				       .field_count = 3 };
	return hprof_put_class_dump(&h->w, &cd, NULL, NULL, fl, e);
}

/* One instance of such a class, with its root. */
static int long3_instance(struct carve_writer *h, int k, const uint64_t v[3], struct err *e)
{
	uint32_t id = h->next_mark_id;
	struct hprof_root root = { HPROF_ROOT_UNKNOWN, id, 0, 0, 0 };
	uint8_t *d = hprof_put_instance_room(&h->w, id, 0, mark_class_id(k), 24, e);
	if (!d)
		return err_rc(e);
	h->next_mark_id -= HC_MARK_ID_STEP;
	for (int f = 0; f < 24; f++)
		d[f] = (uint8_t)(v[f / 8] >> (56 - 8 * (f % 8)));   /* big-endian */
	return hprof_put_root(&h->w, &root, e);
}

/* The AddressAlias class and one instance (with its root) per alias window of the model
 * (output/hprof/hprof_mark.h). */
static int alias_records(struct carve_writer *h, struct err *e)
{
	int rc = long3_class(h, HPROF_MARK_COUNT, h->alias_field, e);
	for (size_t i = 0; rc == 0 && i < model_alias_count(h->m); i++) {
		const struct model_alias *a = model_alias(h->m, i);
		if (a->failed)
			continue;
		const uint64_t v[3] = { a->alias, a->real, a->len };
		rc = long3_instance(h, HPROF_MARK_COUNT, v, e);
		h->st->alias_windows++;
	}
	return rc;
}

/* The WalkGap class and one instance (with its root) per walk gap of the model
 * (output/hprof/hprof_mark.h). */
static int gap_records(struct carve_writer *h, struct err *e)
{
	int rc = long3_class(h, HC_GAP_CLASS, h->gap_field, e);
	for (size_t i = 0; rc == 0 && i < model_gap_count(h->m); i++) {
		const struct model_walk_gap *g = model_gap(h->m, i);
		const uint64_t v[3] = { g->begin, g->end, g->space_end };
		rc = long3_instance(h, HC_GAP_CLASS, v, e);
		h->st->walk_gaps++;
	}
	return rc;
}

/* The mark classes: no fields, super java.lang.Object[] when the model has it. */
static int mark_classes(struct carve_writer *h, struct err *e)
{
	const struct art_runtime *rt = model_runtime(h->m);
	size_t oa = runtime_class_named(rt, "java.lang.Object[]");
	uint32_t super = oa == RT_NONE ? 0 : (uint32_t)rt->classes[oa].addr;
	for (int k = 0; k < HPROF_MARK_COUNT; k++) {
		struct hprof_class_dump cd = { .class_id = mark_class_id(k), .super_id = super };
		int rc = hprof_put_class_dump(&h->w, &cd, NULL, NULL, NULL, e);
		if (rc)
			return rc;
	}
	int rc = h->aliases ? alias_records(h, e) : 0;
	return rc == 0 && h->gaps ? gap_records(h, e) : rc;
}

/* Writes the ids waiting for mark k as one array (and its root). */
static int mark_array(struct carve_writer *h, int k, struct err *e)
{
	uint32_t id = h->next_mark_id;
	struct hprof_root root = { HPROF_ROOT_UNKNOWN, id, 0, 0, 0 };
	int rc;
	h->next_mark_id -= HC_MARK_ID_STEP;
	if ((rc = hprof_put_obj_array(&h->w, id, 0, mark_class_id(k), h->marked[k], (uint32_t)h->marked_n[k], e)) ||
	    (rc = hprof_put_root(&h->w, &root, e)))
		return rc;
	h->marked_n[k] = 0;
	h->st->mark_arrays++;
	return 0;
}

static int marks_begin(struct carve_writer *h, struct err *e)
{
	for (int k = 0; k < HPROF_MARK_COUNT; k++)
		if (!(h->marked[k] = xreallocarray(NULL, HC_MARK_CHUNK, sizeof(*h->marked[k]))))
			return hc_nomem(e);
	h->next_mark_id = mark_class_id(h->gaps ? HC_GAP_CLASS + 1 : HPROF_MARK_COUNT + (h->aliases ? 1 : 0));
	return mark_classes(h, e);
}

/* Lists o under each mark of its states (a part: for its chunk; part_take adds the list to
 * the writer's, which writes each full one at once, so a mark array may come before or after
 * the objects it names). */
static int mark_object(struct carve_writer *h, const struct model_obj *o, struct err *e)
{
	if (o->alloc == MODEL_ALLOCATED && o->content == MODEL_INTACT && o->reach == MODEL_REACHABLE)
		return 0;   /* the default states: no mark */
	for (int k = 0; k < HPROF_MARK_COUNT; k++) {
		if (!has_mark(o, k))
			continue;
		if (XALLOC_GROW(h->marked[k], h->marked_cap[k], h->marked_n[k] + 1, 1024))
			return hc_nomem(e);
		h->marked[k][h->marked_n[k]++] = o->addr;
		h->st->marked[k]++;
	}
	return 0;
}

/* The n ids of a part's list for mark k added to the writer's, each full list written. */
static int marks_add(struct carve_writer *h, int k, const uint64_t *ids, size_t n, struct err *e)
{
	for (size_t i = 0; i < n; i++) {
		h->marked[k][h->marked_n[k]++] = ids[i];
		int rc = h->marked_n[k] == HC_MARK_CHUNK ? mark_array(h, k, e) : 0;
		if (rc)
			return rc;
	}
	return 0;
}

static int marks_end(struct carve_writer *h, struct err *e)
{
	int rc = 0;
	for (int k = 0; rc == 0 && k < HPROF_MARK_COUNT; k++)
		if (h->marked_n[k])
			rc = mark_array(h, k, e);
	return rc;
}

/* ---- the heap dump's objects, by chunks of HC_CHUNK_OBJECTS (carver/base/ordered.h) ---- */

/* The counts of a part added to the writer's (the first reasons kept in chunk order). */
static void stats_add(struct hprof_carve_stats *d, const struct hprof_carve_stats *s)
{
	d->classes += s->classes;
	d->instances += s->instances;
	d->obj_arrays += s->obj_arrays;
	d->prim_arrays += s->prim_arrays;
	d->strings += s->strings;
	d->string_arrays += s->string_arrays;
	d->free_objects += s->free_objects;
	for (int k = 0; k < HPROF_MARK_COUNT; k++)
		d->marked[k] += s->marked[k];
	if (!d->damaged_classes && s->damaged_classes)
		memcpy(d->damaged_why, s->damaged_why, sizeof(d->damaged_why));
	d->damaged_classes += s->damaged_classes;
	if (!d->damaged_objects && s->damaged_objects)
		memcpy(d->damaged_objects_why, s->damaged_objects_why, sizeof(d->damaged_objects_why));
	d->damaged_objects += s->damaged_objects;
}

/* The index past the last object of chunk. */
static size_t chunk_end(const struct carve_writer *h, size_t chunk)
{
	size_t n = model_count(h->m) - chunk * HC_CHUNK_OBJECTS;
	return chunk * HC_CHUNK_OBJECTS + (n < HC_CHUNK_OBJECTS ? n : HC_CHUNK_OBJECTS);
}

/* Part slot's objects: its chunk's records, complete HEAP_DUMP_SEGMENTs, in its writer's
 * buffer (a chunk starts a segment: on Android, with a HEAP_DUMP_INFO), their marks listed. */
static int part_make(void *arg, unsigned slot, size_t chunk, struct err *e)
{
	struct carve_writer *h = arg, *p = &h->parts[slot];
	size_t end = chunk_end(h, chunk);
	int rc = 0;

	wbuf_reset(&p->w.buf);
	memset(p->st, 0, sizeof(*p->st));
	memset(p->marked_n, 0, sizeof(p->marked_n));
	p->heap = -1;
	p->chunk_bytes = 0;
	for (size_t i = chunk * HC_CHUNK_OBJECTS; rc == 0 && i < end; i++) {
		const struct model_obj *o = model_obj(h->m, i);
		p->chunk_bytes += o->size;
		if (object_written(p, o) && (rc = object(p, o, e)) == 0)
			rc = mark_object(p, o, e);
	}
	return rc ? rc : hprof_heap_finish(&p->w, e);
}

/* Part slot's records written after the writer's, its marks and counts added. */
static int part_take(void *arg, unsigned slot, size_t chunk, struct err *e)
{
	struct carve_writer *h = arg, *p = &h->parts[slot];
	int rc = hprof_heap_finish(&h->w, e);

	if (rc == 0) {
		wbuf_put(&h->w.buf, p->w.buf.data, p->w.buf.len);
		rc = hprof_writer_flush(&h->w, e);
	}
	for (int k = 0; rc == 0 && k < HPROF_MARK_COUNT; k++)
		rc = marks_add(h, k, p->marked[k], p->marked_n[k], e);
	stats_add(h->st, p->st);
	img_drop_behind(model_image(h->m), &h->drop, model_va(h->m, model_obj(h->m, chunk_end(h, chunk) - 1)));
	progress_to(model_progress(h->m), h->done += p->chunk_bytes);
	return rc;
}

/* The writer's parts: copies sharing what it set up, each with its own writer (buffering a
 * chunk), scratch, marks and counts.  Every plan made first: parts only read them. */
static int parts_open(struct carve_writer *h, unsigned count, struct err *e)
{
	const struct hc_plan *plan;
	int rc = 0;
	for (size_t c = 0; rc == 0 && c < model_runtime(h->m)->class_count; c++)
		rc = plan_of(h, c, &plan, e);
	if (rc || !(h->parts = xcalloc(count, sizeof(*h->parts))) || !(h->part_st = xcalloc(count, sizeof(*h->part_st))))
		return rc ? rc : hc_nomem(e);
	h->str.frozen = true;
	for (unsigned i = 0; rc == 0 && i < count; i++) {
		struct carve_writer *p = &h->parts[i];
		*p = *h;
		p->parts = NULL;
		p->part_st = NULL;
		p->st = &h->part_st[i];
		p->elems = NULL;
		p->elems_cap = 0;
		memset(p->marked, 0, sizeof(p->marked));
		memset(p->marked_cap, 0, sizeof(p->marked_cap));
		wbuf_init(&p->obj);
		rc = hprof_writer_init(&p->w, NULL, HC_ID, e);
		hprof_writer_set_segments(&p->w, h->w.segment_tag, h->w.segment_cap);
		h->part_count = i + 1;
	}
	return rc;
}

static void parts_close(struct carve_writer *h)
{
	for (unsigned i = 0; i < h->part_count; i++) {
		struct carve_writer *p = &h->parts[i];
		hprof_writer_release(&p->w);
		wbuf_release(&p->obj);
		xfree(p->elems);
		for (int k = 0; k < HPROF_MARK_COUNT; k++)
			xfree(p->marked[k]);
	}
	xfree(h->parts);
	xfree(h->part_st);
}

static int heap_dump(struct carve_writer *h, struct err *e)
{
	unsigned threads = h->o->threads > 1 ? h->o->threads : 1;
	unsigned slots = threads > 1 ? 2 * threads : 1;   /* a chunk in hand per thread, one ready */
	size_t chunks = (model_count(h->m) + HC_CHUNK_OBJECTS - 1) / HC_CHUNK_OBJECTS;
	struct ordered_ops ops = { part_make, part_take, h };
	int rc = roots(h, e);

	if (rc == 0)
		rc = marks_begin(h, e);
	if (rc == 0)
		rc = parts_open(h, slots, e);
	if (rc == 0)
		rc = ordered_run(&ops, chunks, threads, slots, e);
	if (rc == 0)
		rc = marks_end(h, e);
	if (rc == 0)
		rc = hprof_write_heap_dump_end(&h->w, e);
	return rc;
}

/* Classes of the runtime model that are no carved object still get a CLASS_DUMP, so every
 * instance's class chain is described (a reader needs it to decode the payload). */
static int orphan_classes(struct carve_writer *h, struct err *e)
{
	const struct art_runtime *rt = model_runtime(h->m);
	for (size_t i = 0; i < rt->class_count; i++) {
		size_t j = model_find(h->m, rt->classes[i].addr);
		if (j != MODEL_NONE && model_obj(h->m, j)->kind == MODEL_CLASS && object_written(h, model_obj(h->m, j)))
			continue;
		struct model_obj o = { .addr = (uint32_t)rt->classes[i].addr, .size = rt->classes[i].raw.class_size,
				       .cls = (uint32_t)model_jlc(h->m), .kind = MODEL_CLASS, .reach = MODEL_REACH_UNKNOWN };
		o.space = rt->classes[i].space ? (uint16_t)(rt->classes[i].space - rt->spaces.v) : 0;
		if (!rt->classes[i].space || rt->spaces.count == 0)
			continue;   /* a class outside every space cannot be placed in a heap */
		int rc = class_dump(h, &o, e);
		if (rc)
			return rc;
	}
	return 0;
}

/* The image's SHA-256 as a STRING record no record names (readers keep or ignore it), so the
 * file says which image it was carved from: "artcarve:image-sha256=HEX". */
static int provenance(struct carve_writer *h, struct err *e)
{
	char buf[sizeof(HPROF_PROVENANCE) + SHA256_TEXT];
	const char *text;
	uint32_t id;
	if (!h->o->image_sha256)
		return 0;
	snprintf(buf, sizeof(buf), "%s%s", HPROF_PROVENANCE, h->o->image_sha256);
	if (!(text = arena_strndup(&h->names, buf, strlen(buf))))
		return hc_nomem(e);
	return string_id(&h->str, &h->w, text, strlen(text), &id, e);
}

static int write_all(struct carve_writer *h, struct err *e)
{
	const char *version = h->o->android ? "1.0.3" : "1.0.2";
	int rc;

	if ((rc = hprof_write_header(&h->w, version, 0, e)) || (rc = provenance(h, e)) || (rc = load_classes(h, e)) ||
	    (rc = hprof_write_null_trace(&h->w, e)))
		return rc;
	if (h->o->android) {
		static const char *const heaps[] = { "app", "image", "zygote" };
		for (int i = 0; i < 3; i++) {
			uint32_t id;
			if ((rc = string_id(&h->str, &h->w, heaps[i], strlen(heaps[i]), &id, e)))
				return rc;
		}
	}
	if ((rc = orphan_classes(h, e)))
		return rc;
	return heap_dump(h, e);
}

int hprof_carve_write(const struct model *m, const struct reach *r, const struct hprof_carve_opts *o,
		      struct outf *out, struct hprof_carve_stats *st, struct err *e)
{
	struct carve_writer h;
	int rc;

	memset(&h, 0, sizeof(h));
	memset(st, 0, sizeof(*st));
	h.m = m;
	h.r = r;
	h.o = o;
	h.st = st;
	h.heap = -1;
	/* the windows are written when the file holds an object above 4 GiB (--include) */
	for (size_t i = 0; i < model_count(m) && !h.aliases && model_has_alias(m); i++)
		h.aliases = model_in_alias(m, model_obj(m, i)->addr) && object_written(&h, model_obj(m, i));
	h.gaps = model_gap_count(m) > 0;
	arena_init(&h.names);
	wbuf_init(&h.obj);
	rc = hprof_writer_init(&h.w, out, HC_ID, e);
	if (rc == 0)
		rc = write_all(&h, e);
	if (rc == 0)
		rc = hprof_writer_finish(&h.w, e);
	st->bytes = h.w.flushed;
	hprof_writer_release(&h.w);
	wbuf_release(&h.obj);
	xfree(h.str.v);
	htab_release(&h.str.by_hash);
	xfree(h.name_id);
	xfree(h.serial);
	xfree(h.own_ok);
	xfree(h.plan);
	xfree(h.elems);
	for (int k = 0; k < HPROF_MARK_COUNT; k++)
		xfree(h.marked[k]);
	parts_close(&h);
	arena_release(&h.names);
	return rc;
}
