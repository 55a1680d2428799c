/* mirror_walk.c - see mirror_walk.h.  Object sizes follow mirror::Object::SizeOf
 * (runtime/mirror/object-inl.h): Class -> class_size_, array -> DataOffset(component size)
 * + length * component size, String -> sizeof(String) + inline chars, else the class's
 * object_size_.  Every structure is decoded by art/mirror/mirror.c with the layout row;
 * every value read is checked before it is used. */
#include "art/mirror/mirror_walk.h"

#include <string.h>

#include "art/format/dex.h"
#include "carver/base/bsearch.h"
#include "carver/base/ck.h"
#include "carver/base/xalloc.h"

/* class flags (runtime/mirror/class_flags.h @ android-7.0 and later; absent before) */
enum { MW_FLAG_STRING = 0x4, MW_FLAG_DEX_CACHE = 0x40 };
/* class roots 0, 4, 5 are java.lang.Class, String, DexCache in every version
 * (runtime/class_linker.h @ android-5.0 ... 9, runtime/class_root.h @ android-10+) */
enum { MW_ROOT_CLASS = 0, MW_ROOT_STRING = 4, MW_ROOT_DEX_CACHE = 5, MW_ROOT_MIN = 6 };
/* nesting limit for array component names ("[[[[I"); Java allows 255 dimensions; the
 * longest name_ string read */
enum { MW_MAX_DIMS = 255, MW_MAX_NAME = 4096 };
/* serialized HashSet (ClassTable / InternTable) header: u64 num_elements, u64 num_buckets,
 * u64 elements_until_expand, f64 min/max load factor, then u32 slots */
enum { MW_HASH_SET_BUCKETS = 8, MW_HASH_SET_HEADER = 40 };

static const char *const kind_names[MW_KIND_COUNT] = {
	"instances", "object-arrays", "primitive-arrays", "classes", "strings", "dex-caches", "sized-by-bitmap",
};

const char *mw_kind_name(enum mw_kind k) { return (unsigned)k < MW_KIND_COUNT ? kind_names[k] : "?"; }

static int push_u32(uint32_t **arr, size_t *n, size_t *cap, uint32_t v, struct err *e)
{
	if (xalloc_grow(arr, cap, *n + 1, sizeof(**arr), 256))
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "mirror walk: no memory for %zu entries", *n + 1);
	(*arr)[(*n)++] = v;
	return 0;
}

/* Records a distinct unresolved class pointer (kept sorted; few distinct values). */
static int note_unresolved(struct mirror_walk *w, uint32_t k, struct err *e)
{
	size_t lo = bs_lower(w->unresolved, w->unresolved_count, bs_key_u32, k);
	int rc;

	if (lo < w->unresolved_count && w->unresolved[lo] == k)
		return 0;
	if ((rc = push_u32(&w->unresolved, &w->unresolved_count, &w->unresolved_cap, k, e)))
		return rc;
	memmove(w->unresolved + lo + 1, w->unresolved + lo, (w->unresolved_count - 1 - lo) * sizeof(uint32_t));
	w->unresolved[lo] = k;
	return 0;
}

/* Element i of the ObjectArray at arr: 1 read, 0 when the array or the element is not
 * loaded or i is past the end, <0 for a negative length. */
static int array_elem(const struct mirror *m, uint32_t arr, uint32_t i, uint32_t *v, struct err *e)
{
	uint32_t len;
	int rc;

	if (!arr || !mirror_readable(m, (uint64_t)arr + m->l->array.length, 4))
		return 0;
	if ((rc = mirror_array_length(m, arr, &len, e)))
		return rc;
	if (i >= len || !mirror_readable(m, (uint64_t)arr + mirror_array_data_offset(m->l, 4) + 4ull * i, 4))
		return 0;
	rc = mirror_array_ref(m, arr, i, v, e);
	return rc ? rc : 1;
}

/* image_roots -> class roots -> java.lang.Class/String/DexCache, when loaded. */
static int find_roots(struct mirror_walk *w, struct err *e)
{
	const struct mirror *m = w->m;
	const struct art_image_header *h = &w->img->h;
	uint32_t roots = h->image_roots, len, jlc_class;
	int rc, got = 0;

	if (!mirror_readable(m, (uint64_t)roots + m->l->array.length, 4))
		return 0; /* a component using the roots of a primary image that is not loaded */
	if ((rc = mirror_array_length(m, roots, &len, e)))
		return err_prefix(e, "image roots");
	if (len <= h->fmt->roots.class_roots)
		return ERR_SET(e, ERR_CORRUPT, roots, "image roots at 0x%x: length %u does not hold the class roots (index %u)",
			       roots, len, h->fmt->roots.class_roots);
	if ((rc = array_elem(m, roots, h->fmt->roots.class_roots, &w->class_roots, e)) < 0)
		return err_prefix(e, "image roots");
	if (rc == 0 || !mirror_readable(m, (uint64_t)w->class_roots + m->l->array.length, 4))
		return 0; /* the class roots live in an image that is not loaded */
	if ((rc = mirror_array_length(m, w->class_roots, &len, e)))
		return err_prefix(e, "class roots");
	if (len < MW_ROOT_MIN)
		return ERR_SET(e, ERR_CORRUPT, w->class_roots, "class roots at 0x%x: length %u, expected at least %u",
			       w->class_roots, len, MW_ROOT_MIN);
	const uint32_t idx[3] = { MW_ROOT_CLASS, MW_ROOT_STRING, MW_ROOT_DEX_CACHE };
	uint32_t *const out[3] = { &w->jlc, &w->jls, &w->jldc };
	for (int i = 0; i < 3; i++) {
		if ((rc = array_elem(m, w->class_roots, idx[i], out[i], e)) < 0)
			return err_prefix(e, "class roots");
		got += rc;
	}
	w->class_roots_loaded = got == 3;
	/* java.lang.Class is its own class (when its image is loaded) */
	if (w->class_roots_loaded && mirror_peek_u32(m, (uint64_t)w->jlc + m->l->object.klass, &jlc_class) &&
	    jlc_class != w->jlc)
		return ERR_SET(e, ERR_CORRUPT, w->class_roots,
			       "class roots at 0x%x: java.lang.Class 0x%x is not its own class", w->class_roots, w->jlc);
	return 0;
}

/* First reference of a serialized HashSet section (ClassTable / InternTable;
 * runtime/base/hash_set.h @ android-7.0, libartbase/base/hash_set.h @ android-10) that
 * points into this image's objects.  From 8.1 class-table slots carry hash bits in the low
 * 3 bits (runtime/class_table.h @ android-8.1): object addresses are 8-aligned, so they are
 * masked off.  0 when none (or the section is not captured). */
static uint32_t first_hash_set_ref(const struct mirror_walk *w, enum art_image_section sec)
{
	const struct art_image *img = w->img;
	const struct art_image_section_val *s = &img->h.sections[sec];
	uint64_t base = (uint64_t)img->h.image_begin + s->offset;
	uint32_t lo, hi, ref;

	if (!img->h.has_section[sec] || s->size < MW_HASH_SET_HEADER || ck_range(s->offset, s->size, img->len) ||
	    !mirror_peek_u32(w->m, base + MW_HASH_SET_BUCKETS, &lo) ||
	    !mirror_peek_u32(w->m, base + MW_HASH_SET_BUCKETS + 4, &hi))
		return 0;
	uint64_t buckets = (uint64_t)hi << 32 | lo, slots = (s->size - MW_HASH_SET_HEADER) / 4;
	for (uint64_t i = 0; i < buckets && i < slots; i++) {
		if (!mirror_peek_u32(w->m, base + MW_HASH_SET_HEADER + 4 * i, &ref))
			return 0;
		ref &= ~(uint32_t)(MIRROR_OBJECT_ALIGN - 1);
		if (ref >= img->h.image_begin + img->h.objects_begin && ref < img->h.image_begin + img->h.objects_end)
			return ref;
	}
	return 0;
}

/* The class of the object at ref, 0 if ref is 0 or not loaded. */
static uint32_t class_of(const struct mirror_walk *w, uint32_t ref)
{
	uint32_t k = 0;

	if (ref && !mirror_peek_u32(w->m, (uint64_t)ref + w->m->l->object.klass, &k))
		k = 0;
	return k;
}

/* Without the class roots (their image is not loaded), learn the addresses of
 * java.lang.Class, String and DexCache from the class of an object this image lists: a
 * class of its class table, an interned string, its first dex cache.  They are checked
 * like any class pointer during the walk. */
static int learn_well_known(struct mirror_walk *w, struct err *e)
{
	const struct art_image_header *h = &w->img->h;
	uint32_t dex_caches = 0, dc = 0;
	int rc;

	if (!w->jlc)
		w->jlc = class_of(w, first_hash_set_ref(w, ART_SEC_CLASS_TABLE));
	if (!w->jls)
		w->jls = class_of(w, first_hash_set_ref(w, ART_SEC_INTERNED_STRINGS));
	if (w->jldc)
		return 0;
	if ((rc = array_elem(w->m, h->image_roots, h->fmt->roots.dex_caches, &dex_caches, e)) < 0)
		return err_prefix(e, "image roots");
	if (rc == 1 && (rc = array_elem(w->m, dex_caches, 0, &dc, e)) < 0)
		return err_prefix(e, "dex caches");
	if (rc == 1)
		w->jldc = class_of(w, dc);
	return 0;
}

struct mw_obj {
	uint32_t addr, off, klass;    /* address, offset in img, class pointer */
	uint32_t avail;               /* bytes from off to the section end */
};

static int need(const struct mw_obj *o, unsigned n, const char *what, struct err *e)
{
	if (n > o->avail)
		return ERR_SET(e, ERR_CORRUPT, o->addr, "object at 0x%x: %s needs %u bytes, %u left in the objects section",
			       o->addr, what, n, o->avail);
	return 0;
}

/* A class K must be a Class: its own class is java.lang.Class (learned from the first
 * class seen when the class roots are not loaded).  K's fixed part is loaded. */
static int check_is_class(struct mirror_walk *w, const struct mw_obj *o, uint32_t k, struct err *e)
{
	const uint64_t klass_off = w->m->l->object.klass;
	uint32_t kk, kkk;
	int rc;

	if ((rc = mirror_klass(w->m, k, &kk, e)))
		return err_prefix(e, "object at 0x%x", o->addr);
	if (!w->jlc) {
		/* java.lang.Class is its own class; if it is loaded, that must hold */
		if (mirror_peek_u32(w->m, kk + klass_off, &kkk) && kkk != kk)
			return ERR_SET(e, ERR_CORRUPT, o->addr,
				       "object at 0x%x: class 0x%x has class 0x%x whose class is 0x%x, not itself", o->addr,
				       k, kk, kkk);
		w->jlc = kk;
	}
	if (kk != w->jlc)
		return ERR_SET(e, ERR_CORRUPT, o->addr,
			       "object at 0x%x: class pointer 0x%x is not a Class (its class is 0x%x, java.lang.Class is 0x%x)",
			       o->addr, k, kk, w->jlc);
	return 0;
}

static int size_class(const struct mirror_walk *w, const struct mw_obj *o, uint64_t *size, struct err *e)
{
	const struct art_layout *l = w->m->l;
	uint32_t cs;
	int rc;

	if ((rc = need(o, l->klass.size, "the fixed part of a Class", e)) ||
	    (rc = mirror_u32(w->m, (uint64_t)o->addr + l->klass.class_size, &cs, e)))
		return rc;
	if (cs < l->klass.size)
		return ERR_SET(e, ERR_CORRUPT, o->addr, "class at 0x%x: class_size %u is smaller than a Class (%u)", o->addr,
			       cs, l->klass.size);
	*size = cs;
	return 0;
}

static int size_string(const struct mirror_walk *w, const struct mw_obj *o, uint64_t *size, struct err *e)
{
	const struct art_layout *l = w->m->l;
	uint32_t count;
	int rc;

	if ((rc = need(o, l->string.size, "a String header", e)) ||
	    (rc = mirror_u32(w->m, (uint64_t)o->addr + l->string.count, &count, e)))
		return rc;
	return mirror_string_size(l, o->addr, count, size, e);
}

/* An array whose component class is comp.  Returns 1 when comp is not loaded. */
static int size_array(struct mirror_walk *w, const struct mw_obj *o, uint32_t comp, enum mw_kind *kind,
		      uint64_t *size, struct err *e)
{
	const struct art_layout *l = w->m->l;
	uint32_t prim, len;
	unsigned cs;
	int rc;

	if (!mirror_peek_u32(w->m, (uint64_t)comp + l->klass.primitive_type, &prim))
		return 1;
	prim &= l->klass.primitive_mask;
	cs = mirror_component_size(prim);
	if (!cs)
		return ERR_SET(e, ERR_CORRUPT, o->addr, "array at 0x%x: component class 0x%x has primitive type %u", o->addr,
			       comp, prim);
	if ((rc = need(o, l->array.length + 4, "an array header", e)) ||
	    (rc = mirror_array_length(w->m, o->addr, &len, e)))
		return rc;
	*size = mirror_array_size(l, cs, len);
	*kind = prim == 0 ? MW_OBJECT_ARRAY : MW_PRIMITIVE_ARRAY;
	return 0;
}

/* Kind and size of an object whose class k is loaded (and checked to be a Class).
 * Returns 1 when the size depends on a class that is not loaded. */
static int size_by_class(struct mirror_walk *w, const struct mw_obj *o, uint32_t k, enum mw_kind *kind,
			 uint64_t *size, struct err *e)
{
	struct mirror_class c;
	int rc;

	if ((rc = mirror_class_read(w->m, k, &c, e)))
		return err_prefix(e, "object at 0x%x", o->addr);
	if (c.component_type)
		return size_array(w, o, c.component_type, kind, size, e);
	if (k == w->jls || (c.class_flags & MW_FLAG_STRING)) {
		*kind = MW_STRING;
		return size_string(w, o, size, e);
	}
	*kind = (k == w->jldc || (c.class_flags & MW_FLAG_DEX_CACHE)) ? MW_DEX_CACHE : MW_INSTANCE;
	if (c.object_size < w->m->l->object.size)
		return ERR_SET(e, ERR_CORRUPT, o->addr, "object at 0x%x: class 0x%x has object_size %u, less than a header",
			       o->addr, k, c.object_size);
	*size = c.object_size;
	return 0;
}

/* Size from the live bitmap: the distance to the next object start. */
static int size_by_bitmap(struct mirror_walk *w, const struct mw_obj *o, uint64_t *size, struct err *e)
{
	uint32_t end = w->img->h.objects_end;

	if (!w->img->bitmap)
		return ERR_SET(e, ERR_UNSUP, o->addr,
			       "object at 0x%x: class 0x%x is in no loaded image and there is no live bitmap to size it",
			       o->addr, o->klass);
	*size = art_image_bitmap_next(w->img, o->off, end) - o->off;
	return 0;
}

/* Sizes an object whose class pointer is valid; returns the kind through *kind. */
static int size_object(struct mirror_walk *w, struct mw_obj *o, enum mw_kind *kind, uint64_t *size, struct err *e)
{
	const struct art_layout *l = w->m->l;
	bool loaded = mirror_readable(w->m, o->klass, l->klass.size);
	int rc;

	if (!loaded) {
		w->outside++; /* honest count: the class is in no loaded image */
		if ((rc = note_unresolved(w, o->klass, e)))
			return rc;
	}
	if (o->klass == w->jlc) {
		*kind = MW_CLASS;
		return size_class(w, o, size, e);
	}
	if (loaded) {
		if ((rc = check_is_class(w, o, o->klass, e)))
			return rc;
		if (o->klass == w->jlc) {
			*kind = MW_CLASS;
			return size_class(w, o, size, e);
		}
		return size_by_class(w, o, o->klass, kind, size, e);
	}
	if (o->klass == w->jls) {
		*kind = MW_STRING; /* java.lang.String known, its image not loaded */
		return size_string(w, o, size, e);
	}
	if (o->klass == w->jldc) {
		*kind = MW_DEX_CACHE; /* DexCache has a fixed size */
		*size = l->dex_cache.size;
		return 0;
	}
	return 1;
}

static int walk_one(struct mirror_walk *w, struct mw_obj *o, uint64_t *size, struct err *e)
{
	struct mirror_object ob;
	enum mw_kind kind = MW_UNRESOLVED;
	int rc;

	if ((rc = need(o, w->m->l->object.size, "an object header", e)) ||
	    (rc = mirror_object_read(w->m, o->addr, &ob, e)))
		return rc;
	o->klass = ob.klass;
	if (o->klass == 0 || !mirror_ref_aligned(o->klass))
		return ERR_SET(e, ERR_CORRUPT, o->addr, "object at 0x%x: class pointer 0x%x is not an aligned address", o->addr,
			       o->klass);
	if (w->img->bitmap && !art_image_bitmap_test(w->img, o->off))
		return ERR_SET(e, ERR_CORRUPT, o->addr, "object at 0x%x: no live-bitmap bit marks an object here", o->addr);
	w->bitmap_checked += w->img->bitmap != NULL;
	rc = size_object(w, o, &kind, size, e);
	if (rc == 1) {
		kind = MW_UNRESOLVED;
		rc = size_by_bitmap(w, o, size, e);
	}
	if (rc)
		return rc;
	if (kind == MW_CLASS && (rc = push_u32(&w->classes, &w->class_count, &w->class_cap, o->addr, e)))
		return rc;
	if (kind == MW_DEX_CACHE &&
	    (rc = push_u32(&w->dex_caches, &w->dex_cache_count, &w->dex_cache_cap, o->addr, e)))
		return rc;
	w->count[kind]++;
	return 0;
}

/* No other object may start inside this one (its size would be wrong). */
static int check_no_overlap(const struct mirror_walk *w, const struct mw_obj *o, uint64_t aligned, struct err *e)
{
	uint32_t next;

	if (!w->img->bitmap)
		return 0;
	next = art_image_bitmap_next(w->img, o->off, w->img->h.objects_end);
	if (next < o->off + aligned)
		return ERR_SET(e, ERR_CORRUPT, o->addr,
			       "object at 0x%x: size %llu overlaps the next live object at 0x%x (class 0x%x)", o->addr,
			       (unsigned long long)aligned, w->img->h.image_begin + next, o->klass);
	return 0;
}

int mirror_walk_image(struct mirror_walk *w, const struct mirror *m, const struct art_image *img, struct err *e)
{
	const struct art_image_header *h = &img->h;
	uint32_t pos = h->objects_begin;
	int rc;

	memset(w, 0, sizeof(*w));
	w->m = m;
	w->img = img;
	if (h->objects_end > img->len)
		return ERR_SET(e, ERR_CORRUPT, h->image_begin, "image at 0x%x: objects end 0x%x beyond image size 0x%zx",
			       h->image_begin, h->objects_end, img->len);
	if (!mirror_readable(m, h->image_begin, h->objects_end))
		return ERR_SET(e, ERR_UNMAPPED, h->image_begin, "image at 0x%x: its objects are not in the walk's address space",
			       h->image_begin);
	if ((rc = find_roots(w, e)))
		return rc;
	if (!w->class_roots_loaded && (rc = learn_well_known(w, e)))
		return rc;
	while (pos < h->objects_end) {
		struct mw_obj o = { .addr = h->image_begin + pos, .off = pos, .avail = h->objects_end - pos };
		uint64_t size = 0, aligned;
		if ((rc = walk_one(w, &o, &size, e)))
			goto out;
		aligned = (size + MIRROR_OBJECT_ALIGN - 1) & ~(uint64_t)(MIRROR_OBJECT_ALIGN - 1);
		if (aligned == 0 || aligned > o.avail) {
			rc = ERR_SET(e, ERR_CORRUPT, o.addr,
				     "object at 0x%x: size %llu (class 0x%x) runs past the objects section end 0x%x by %llu bytes",
				     o.addr, (unsigned long long)size, o.klass, h->image_begin + h->objects_end,
				     (unsigned long long)(aligned - o.avail));
			goto out;
		}
		if ((rc = check_no_overlap(w, &o, aligned, e)))
			goto out;
		pos += (uint32_t)aligned;
		w->objects++;
	}
out:
	w->end = pos;
	return rc;
}

void mirror_walk_release(struct mirror_walk *w)
{
	xfree(w->classes);
	xfree(w->unresolved);
	xfree(w->dex_caches);
	memset(w, 0, sizeof(*w));
}

/* ---- naming ---- */

/* name_ holds Class.getName(): 0 when the String is not loaded (it lives in an image that
 * is not), 1 named, <0 corrupt. */
static int name_from_field(const struct mirror *m, uint32_t name, struct wbuf *out, struct err *e)
{
	int rc;

	if (!mirror_string_loaded(m, name))
		return 0;
	if ((rc = mirror_class_name_string(m, name, MW_MAX_NAME, out, e)) < 0)
		return err_prefix(e, "class name_ string at 0x%x", name);
	return 1;
}

/* Through the dex cache: lookup -> dex; dex_type_idx -> descriptor; the class def at
 * dex_class_def_idx (when it names one) must define that type. */
static int name_from_dex(const struct mirror_class *c, mw_dex_lookup_fn lookup, void *ctx, struct wbuf *out,
			 struct err *e)
{
	const uint32_t k = (uint32_t)c->addr;
	const struct dex *dex;
	const uint8_t *desc;
	size_t dlen;
	struct dex_class_def def;
	int rc;

	if (!lookup || !c->dex_cache)
		return 0;
	if ((rc = lookup(ctx, c->dex_cache, &dex, e)) != 1)
		return rc;
	if (dex_type_descriptor(dex, c->dex_type_idx, &desc, &dlen, e) != 0)
		return err_prefix(e, "class at 0x%x: dex_type_idx %u of a dex with %u types", k, c->dex_type_idx,
				  dex->type_ids_size);
	if (c->dex_class_def_idx < dex->class_defs_size) {
		if ((rc = dex_class_def(dex, c->dex_class_def_idx, &def, e)))
			return err_prefix(e, "class at 0x%x: class def %u", k, c->dex_class_def_idx);
		if (def.class_idx != c->dex_type_idx)
			return ERR_SET(e, ERR_CORRUPT, k, "class at 0x%x: class def %u defines type %u, not dex_type_idx %u",
				       k, c->dex_class_def_idx, def.class_idx, c->dex_type_idx);
	}
	if ((rc = mirror_java_name(desc, dlen, out, e)) < 0)
		return err_prefix(e, "class at 0x%x", k);
	return 1;
}

/* The Class at k when its fixed part is loaded: 1, 0 not loaded, <0 error. */
static int read_class(const struct mirror *m, uint32_t k, struct mirror_class *c, struct err *e)
{
	int rc;

	if (!k || !mirror_readable(m, k, m->l->klass.size))
		return 0;
	rc = mirror_class_read(m, k, c, e);
	return rc ? rc : 1;
}

static int class_name(const struct mirror *m, uint32_t k, mw_dex_lookup_fn lookup, void *ctx, struct wbuf *out,
		      unsigned depth, struct err *e)
{
	struct mirror_class c;
	const char *pn;
	int rc;

	if (depth > MW_MAX_DIMS)
		return ERR_SET(e, ERR_CORRUPT, k, "class at 0x%x: component types nest deeper than %u", k, MW_MAX_DIMS);
	if ((rc = read_class(m, k, &c, e)) <= 0)
		return rc < 0 ? rc : MW_NAME_NONE;
	if (c.name && (rc = name_from_field(m, c.name, out, e)) != 0)
		return rc < 0 ? rc : MW_NAME_FIELD;
	if (c.component_type) {
		rc = class_name(m, c.component_type, lookup, ctx, out, depth + 1, e);
		if (rc > 0)
			wbuf_put(out, "[]", 2);
		return rc > 0 ? MW_NAME_ARRAY : rc;
	}
	if ((pn = mirror_primitive_name(c.primitive_type & m->l->klass.primitive_mask)) != NULL) {
		wbuf_put(out, pn, strlen(pn));
		return MW_NAME_PRIMITIVE;
	}
	rc = name_from_dex(&c, lookup, ctx, out, e);
	return rc > 0 ? MW_NAME_DEX : rc;
}

int mw_class_name_dex(const struct mirror *m, uint32_t addr, mw_dex_lookup_fn lookup, void *ctx, struct wbuf *out,
		      struct err *e)
{
	size_t mark = out->len;
	struct mirror_class c;
	int rc = read_class(m, addr, &c, e);

	if (rc > 0)
		rc = name_from_dex(&c, lookup, ctx, out, e);
	if (rc <= 0)
		out->len = mark;
	return rc > 0 ? MW_NAME_DEX : rc;
}

int mw_class_name(const struct mirror *m, uint32_t addr, mw_dex_lookup_fn lookup, void *ctx, struct wbuf *out,
		  struct err *e)
{
	size_t mark = out->len;
	int rc = class_name(m, addr, lookup, ctx, out, 0, e);

	if (rc <= 0)
		out->len = mark; /* drop a partial name */
	return rc;
}
