/* mirror_walk.c - see mirror_walk.h.  Object sizes follow mirror::Object::SizeOf
 * (runtime/mirror/object-inl.h): Class -> class_size_, array -> DataOffset(component size)
 * + length * component size, String -> sizeof(String) + chars, else the class's
 * object_size_.  Every value read from the image is checked before it is used. */
#include "art/mirror/mirror_walk.h"

#include <string.h>

#include "art/format/dex.h"
#include "art/mirror/mirror.h"
#include "carver/base/ck.h"
#include "carver/base/cursor.h"
#include "carver/base/xalloc.h"

/* class flags (runtime/mirror/class_flags.h @R70+) */
enum { MW_FLAG_STRING = 0x4, MW_FLAG_DEX_CACHE = 0x40 };
/* class roots 0, 4, 5 are java.lang.Class, String, DexCache in every version
 * (runtime/class_linker.h @R50..R9, runtime/class_root.h @R10+) */
enum { MW_ROOT_CLASS = 0, MW_ROOT_STRING = 4, MW_ROOT_DEX_CACHE = 5, MW_ROOT_MIN = 6 };
/* mirror::Array: length_ at 8, elements from RoundUp(12, component size) */
enum { MW_ARRAY_LENGTH = 8, MW_ARRAY_FIRST = 12 };
/* 5.x java.lang.String: array_ (char[]) at 8, offset_ at 20 (runtime/mirror/string.h @R50) */
enum { MW_STRING5_ARRAY = 8, MW_STRING5_OFFSET = 20 };
/* nesting limit for array component names ("[[[[I"); Java allows 255 dimensions */
enum { MW_MAX_DIMS = 255 };

static const char *const kind_names[MW_KIND_COUNT] = {
	"instances", "object-arrays", "primitive-arrays", "classes", "strings", "dex-caches", "sized-by-bitmap",
};

const char *mw_kind_name(enum mw_kind k) { return (unsigned)k < MW_KIND_COUNT ? kind_names[k] : "?"; }

const struct art_image *mw_space_find(const struct mw_space *s, uint64_t addr, size_t len)
{
	for (size_t i = 0; i < s->count; i++) {
		const struct art_image *im = s->images[i];
		uint64_t b = im->h.image_begin;
		if (addr >= b && addr - b <= im->len && len <= im->len - (addr - b))
			return im;
	}
	return NULL;
}

/* u32 at addr if the bytes are loaded */
static bool rd32(const struct mw_space *s, uint64_t addr, uint32_t *v)
{
	const struct art_image *im = mw_space_find(s, addr, 4);

	if (!im)
		return false;
	*v = ld_u32le(im->data + (addr - im->h.image_begin));
	return true;
}

/* Primitive::Type -> component size in bytes (runtime/primitive.h); 0 for void/invalid */
static unsigned component_size(uint32_t prim)
{
	static const unsigned sizes[] = { 4, 1, 1, 2, 2, 4, 8, 4, 8 };
	return prim < sizeof(sizes) / sizeof(sizes[0]) ? sizes[prim] : 0;
}

static int push_u32(uint32_t **arr, size_t *n, size_t *cap, uint32_t v, struct err *e)
{
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 256;
		uint32_t *p = xreallocarray(*arr, nc, sizeof(*p));
		if (!p)
			return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "mirror walk: no memory for %zu entries", nc);
		*arr = p;
		*cap = nc;
	}
	(*arr)[(*n)++] = v;
	return 0;
}

/* Records a distinct unresolved class pointer (kept sorted; few distinct values). */
static int note_unresolved(struct mirror_walk *w, uint32_t k, struct err *e)
{
	size_t lo = 0, hi = w->unresolved_count;
	int rc;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (w->unresolved[mid] == k)
			return 0;
		if (w->unresolved[mid] < k)
			lo = mid + 1;
		else
			hi = mid;
	}
	if ((rc = push_u32(&w->unresolved, &w->unresolved_count, &w->unresolved_cap, k, e)))
		return rc;
	memmove(w->unresolved + lo + 1, w->unresolved + lo, (w->unresolved_count - 1 - lo) * sizeof(uint32_t));
	w->unresolved[lo] = k;
	return 0;
}

/* Element i of the ObjectArray at addr, if loaded and in bounds. */
static bool array_elem(const struct mw_space *s, uint32_t arr, uint32_t i, uint32_t *v)
{
	uint32_t len;

	if (!rd32(s, (uint64_t)arr + MW_ARRAY_LENGTH, &len) || i >= len)
		return false;
	return rd32(s, (uint64_t)arr + MW_ARRAY_FIRST + 4ull * i, v);
}

/* image_roots -> class roots -> java.lang.Class/String/DexCache, when loaded. */
static int find_roots(struct mirror_walk *w, struct err *e)
{
	const struct art_image_header *h = &w->img->h;
	uint32_t roots = h->image_roots, len;

	if (!rd32(w->space, (uint64_t)roots + MW_ARRAY_LENGTH, &len))
		return 0; /* a component using the roots of a primary image that is not loaded */
	if (len <= h->fmt->roots.class_roots)
		return ERR_SET(e, ERR_CORRUPT, roots, "image roots at 0x%x: length %u does not hold the class roots (index %u)",
			       roots, len, h->fmt->roots.class_roots);
	array_elem(w->space, roots, h->fmt->roots.class_roots, &w->class_roots);
	if (!rd32(w->space, (uint64_t)w->class_roots + MW_ARRAY_LENGTH, &len))
		return 0; /* the class roots live in an image that is not loaded */
	if (len < MW_ROOT_MIN)
		return ERR_SET(e, ERR_CORRUPT, w->class_roots, "class roots at 0x%x: length %u, expected at least %u",
			       w->class_roots, len, MW_ROOT_MIN);
	w->class_roots_loaded = array_elem(w->space, w->class_roots, MW_ROOT_CLASS, &w->jlc) &&
				array_elem(w->space, w->class_roots, MW_ROOT_STRING, &w->jls) &&
				array_elem(w->space, w->class_roots, MW_ROOT_DEX_CACHE, &w->jldc);
	/* java.lang.Class is its own class (when its image is loaded) */
	if (w->class_roots_loaded && rd32(w->space, w->jlc, &len) && len != w->jlc)
		return ERR_SET(e, ERR_CORRUPT, w->class_roots,
			       "class roots at 0x%x: java.lang.Class 0x%x is not its own class", w->class_roots, w->jlc);
	return 0;
}

/* First reference of a serialized HashSet section (ClassTable / InternTable: u64
 * num_elements, u64 num_buckets, u64 elements_until_expand, f64 min/max load, then u32
 * slots; runtime/base/hash_set.h @R70, libartbase/base/hash_set.h @R10) that points into
 * this image.  From 8.1 class-table slots carry hash bits in the low 3 bits
 * (runtime/class_table.h @R81): object addresses are 8-aligned, so they are masked off. */
static uint32_t first_hash_set_ref(const struct art_image *img, enum art_image_section sec)
{
	const struct art_image_section_val *s = &img->h.sections[sec];
	uint64_t buckets;

	if (!img->h.has_section[sec] || s->size < 40 || ck_range(s->offset, s->size, img->len))
		return 0;
	buckets = ld_u64le(img->data + s->offset + 8);
	for (uint64_t i = 0; i < buckets && i < (s->size - 40) / 4; i++) {
		uint32_t ref = ld_u32le(img->data + s->offset + 40 + 4 * i) & ~(ART_IMAGE_OBJECT_ALIGN - 1);
		uint32_t b = img->h.image_begin;
		if (ref >= b + img->h.objects_begin && ref < b + img->h.objects_end)
			return ref;
	}
	return 0;
}

/* The class of the object at ref (in img), 0 if unreadable. */
static uint32_t class_of(const struct mirror_walk *w, uint32_t ref)
{
	uint32_t k = 0;

	if (ref)
		rd32(w->space, ref, &k);
	return k;
}

/* Without the class roots (their image is not loaded), learn the addresses of
 * java.lang.Class, String and DexCache from the class of an object this image lists: a
 * class of its class table, an interned string, its first dex cache.  They are checked
 * like any class pointer during the walk. */
static void learn_well_known(struct mirror_walk *w)
{
	const struct art_image_header *h = &w->img->h;
	uint32_t dex_caches = 0, dc = 0;

	if (!w->jlc)
		w->jlc = class_of(w, first_hash_set_ref(w->img, ART_SEC_CLASS_TABLE));
	if (!w->jls)
		w->jls = class_of(w, first_hash_set_ref(w->img, ART_SEC_INTERNED_STRINGS));
	if (!w->jldc && array_elem(w->space, h->image_roots, h->fmt->roots.dex_caches, &dex_caches) &&
	    array_elem(w->space, dex_caches, 0, &dc))
		w->jldc = class_of(w, dc);
}

struct mw_obj {
	uint32_t addr, off, klass;    /* address, offset in img, class pointer */
	uint32_t avail;               /* bytes from off to the section end */
	const uint8_t *p;             /* the object's bytes */
};

static uint32_t obj_u32(const struct mw_obj *o, unsigned off) { return ld_u32le(o->p + off); }

static int need(const struct mw_obj *o, unsigned n, const char *what, struct err *e)
{
	if (n > o->avail)
		return ERR_SET(e, ERR_CORRUPT, o->addr, "object at 0x%x: %s needs %u bytes, %u left in the objects section",
			       o->addr, what, n, o->avail);
	return 0;
}

/* A class K must be a Class: its own class is java.lang.Class (learned from the first
 * class seen when the class roots are not loaded). */
static int check_is_class(struct mirror_walk *w, const struct mw_obj *o, uint32_t k, struct err *e)
{
	uint32_t kk;

	if (!rd32(w->space, k, &kk))
		return ERR_SET(e, ERR_CORRUPT, o->addr, "object at 0x%x: class 0x%x is cut at the end of its image", o->addr, k);
	if (!w->jlc) {
		uint32_t kkk;
		/* java.lang.Class is its own class; if it is loaded, that must hold */
		if (rd32(w->space, kk, &kkk) && kkk != kk)
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
	const struct art_layout *l = w->lay;
	uint32_t cs;
	int rc;

	if ((rc = need(o, l->klass.size, "the fixed part of a Class", e)))
		return rc;
	cs = obj_u32(o, l->klass.class_size);
	if (cs < l->klass.size)
		return ERR_SET(e, ERR_CORRUPT, o->addr, "class at 0x%x: class_size %u is smaller than a Class (%u)", o->addr,
			       cs, l->klass.size);
	*size = cs;
	return 0;
}

static int size_string(const struct mirror_walk *w, const struct mw_obj *o, uint64_t *size, struct err *e)
{
	const struct art_layout *l = w->lay;
	uint32_t count;
	uint64_t chars;
	int rc;

	if ((rc = need(o, l->string.value, "a String header", e)))
		return rc;
	count = obj_u32(o, l->string.count);
	if (l->string.compressible) /* count_ = length << 1 | (1 = UTF-16, 0 = compressed) */
		chars = (count & 1) ? (uint64_t)(count >> 1) * 2 : count >> 1;
	else if (count > INT32_MAX)
		return ERR_SET(e, ERR_CORRUPT, o->addr, "string at 0x%x: negative length %d", o->addr, (int32_t)count);
	else
		chars = (uint64_t)count * 2;
	*size = l->string.value + chars;
	return 0;
}

/* Array of class k (loaded) with component class c. */
static int size_array(struct mirror_walk *w, const struct mw_obj *o, uint32_t c, enum mw_kind *kind, uint64_t *size,
		      struct err *e)
{
	uint32_t prim, len;
	unsigned cs, first;
	int rc;

	if (!rd32(w->space, (uint64_t)c + w->lay->klass.primitive_type, &prim))
		return 1; /* component class not loaded */
	cs = component_size(prim & w->lay->klass.primitive_mask);
	if (!cs)
		return ERR_SET(e, ERR_CORRUPT, o->addr, "array at 0x%x: component class 0x%x has primitive type %u", o->addr,
			       c, prim & w->lay->klass.primitive_mask);
	if ((rc = need(o, MW_ARRAY_FIRST, "an array header", e)))
		return rc;
	len = obj_u32(o, MW_ARRAY_LENGTH);
	if (len > INT32_MAX)
		return ERR_SET(e, ERR_CORRUPT, o->addr, "array at 0x%x: negative length %d", o->addr, (int32_t)len);
	first = (MW_ARRAY_FIRST + cs - 1) / cs * cs;
	*size = first + (uint64_t)len * cs;
	*kind = (prim & w->lay->klass.primitive_mask) == 0 ? MW_OBJECT_ARRAY : MW_PRIMITIVE_ARRAY;
	return 0;
}

/* Kind and size of an object whose class k is loaded (and checked to be a Class).
 * Returns 1 when the size depends on a class that is not loaded. */
static int size_by_class(struct mirror_walk *w, const struct mw_obj *o, uint32_t k, enum mw_kind *kind, uint64_t *size,
			 struct err *e)
{
	const struct art_layout *l = w->lay;
	uint32_t comp = 0, flags = 0, osize;

	if (!rd32(w->space, (uint64_t)k + l->klass.component_type, &comp) ||
	    !rd32(w->space, (uint64_t)k + l->klass.object_size, &osize))
		return ERR_SET(e, ERR_CORRUPT, o->addr, "object at 0x%x: class 0x%x is cut at the end of its image", o->addr, k);
	if (l->klass.class_flags != ART_ABSENT)
		rd32(w->space, (uint64_t)k + l->klass.class_flags, &flags);
	if (comp)
		return size_array(w, o, comp, kind, size, e);
	if ((k == w->jls || (flags & MW_FLAG_STRING)) && l->string.value != ART_ABSENT) {
		*kind = MW_STRING;
		return size_string(w, o, size, e);
	}
	*kind = (k == w->jls || (flags & MW_FLAG_STRING)) ? MW_STRING
		: (k == w->jldc || (flags & MW_FLAG_DEX_CACHE)) ? MW_DEX_CACHE : MW_INSTANCE;
	if (osize < l->object.size)
		return ERR_SET(e, ERR_CORRUPT, o->addr, "object at 0x%x: class 0x%x has object_size %u, less than a header",
			       o->addr, k, osize);
	*size = osize;
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

static int walk_one(struct mirror_walk *w, struct mw_obj *o, uint64_t *size, struct err *e)
{
	enum mw_kind kind = MW_UNRESOLVED;
	int rc;

	if ((rc = need(o, w->lay->object.size, "an object header", e)))
		return rc;
	o->klass = obj_u32(o, w->lay->object.klass);
	if (o->klass == 0 || o->klass % ART_IMAGE_OBJECT_ALIGN)
		return ERR_SET(e, ERR_CORRUPT, o->addr, "object at 0x%x: class pointer 0x%x is not an aligned address", o->addr,
			       o->klass);
	if (w->img->bitmap && !art_image_bitmap_test(w->img, o->off))
		return ERR_SET(e, ERR_CORRUPT, o->addr, "object at 0x%x: no live-bitmap bit marks an object here", o->addr);
	w->bitmap_checked += w->img->bitmap != NULL;
	if (!mw_space_find(w->space, o->klass, w->lay->klass.size)) {
		w->outside++; /* honest count: the class is in no loaded image */
		if ((rc = note_unresolved(w, o->klass, e)))
			return rc;
	}
	if (o->klass == w->jlc) {
		kind = MW_CLASS;
		rc = size_class(w, o, size, e);
	} else if (mw_space_find(w->space, o->klass, w->lay->klass.size)) {
		if ((rc = check_is_class(w, o, o->klass, e)))
			return rc;
		rc = o->klass == w->jlc ? (kind = MW_CLASS, size_class(w, o, size, e))
					: size_by_class(w, o, o->klass, &kind, size, e);
	} else if (o->klass == w->jls && w->lay->string.value != ART_ABSENT) {
		kind = MW_STRING; /* java.lang.String known, its image not loaded */
		rc = size_string(w, o, size, e);
	} else if (o->klass == w->jldc) {
		kind = MW_DEX_CACHE; /* DexCache has a fixed size */
		*size = w->lay->dex_cache.size;
		rc = 0;
	} else {
		rc = 1;
	}
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

int mirror_walk_image(struct mirror_walk *w, const struct mw_space *space, const struct art_image *img,
		      const struct art_layout *lay, struct err *e)
{
	const struct art_image_header *h = &img->h;
	uint32_t pos = h->objects_begin;
	int rc;

	memset(w, 0, sizeof(*w));
	w->space = space;
	w->img = img;
	w->lay = lay;
	if (h->objects_end > img->len)
		return ERR_SET(e, ERR_CORRUPT, h->image_begin, "image at 0x%x: objects end 0x%x beyond image size 0x%zx",
			       h->image_begin, h->objects_end, img->len);
	if ((rc = find_roots(w, e)))
		return rc;
	if (!w->class_roots_loaded)
		learn_well_known(w);
	while (pos < h->objects_end) {
		struct mw_obj o = { .addr = h->image_begin + pos, .off = pos, .avail = h->objects_end - pos,
				    .p = img->data + pos };
		uint64_t size = 0, aligned;
		if ((rc = walk_one(w, &o, &size, e)))
			goto out;
		aligned = (size + ART_IMAGE_OBJECT_ALIGN - 1) & ~(uint64_t)(ART_IMAGE_OBJECT_ALIGN - 1);
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

/* chars: n UTF-16 units (wide) or n bytes at addr, all loaded */
static int chars_utf8(const struct mw_space *s, uint64_t addr, uint32_t n, bool wide, struct wbuf *out, struct err *e)
{
	size_t bytes = (size_t)n * (wide ? 2 : 1);
	const struct art_image *im = mw_space_find(s, addr, bytes);
	const uint8_t *p;

	if (!im)
		return ERR_SET(e, ERR_CORRUPT, addr, "string chars at 0x%llx (%u) are outside the loaded images",
			       (unsigned long long)addr, n);
	p = im->data + (addr - im->h.image_begin);
	for (uint32_t i = 0; i < n; i++)
		wbuf_utf8(out, wide ? ld_u16le(p + 2 * i) : p[i]);
	return 1;
}

int mw_string_utf8(const struct mw_space *s, const struct art_layout *lay, uint32_t addr, struct wbuf *out,
		       struct err *e)
{
	uint32_t count, arr, start, alen;

	if (!rd32(s, (uint64_t)addr + lay->string.count, &count))
		return 0;
	if (lay->string.value != ART_ABSENT) {
		if (lay->string.compressible)
			return chars_utf8(s, (uint64_t)addr + lay->string.value, count >> 1, count & 1, out, e);
		return chars_utf8(s, (uint64_t)addr + lay->string.value, count, true, out, e);
	}
	/* 5.x: count_ chars of array_ from offset_ */
	if (!rd32(s, (uint64_t)addr + MW_STRING5_ARRAY, &arr) || !rd32(s, (uint64_t)addr + MW_STRING5_OFFSET, &start) ||
	    !rd32(s, (uint64_t)arr + MW_ARRAY_LENGTH, &alen))
		return 0;
	if (start > alen || count > alen - start)
		return ERR_SET(e, ERR_CORRUPT, addr, "string at 0x%x: chars [%u, +%u) outside its char[%u]", addr, start,
			       count, alen);
	return chars_utf8(s, (uint64_t)arr + MW_ARRAY_FIRST + 2ull * start, count, true, out, e);
}

/* name_ holds Class.getName(): "java.lang.String", "[Ljava.lang.String;", "int" */
static int name_from_field(const struct mw_space *s, const struct art_layout *lay, uint32_t name, struct wbuf *out,
			   struct err *e)
{
	struct wbuf tmp;
	int rc;

	wbuf_init(&tmp);
	rc = mw_string_utf8(s, lay, name, &tmp, e);
	if (rc == 1 && (rc = wbuf_status(&tmp, e)) == 0) {
		if (tmp.len && tmp.data[0] == '[') /* "[Ljava.lang.String;" */
			rc = mirror_java_name(tmp.data, tmp.len, out, e);
		else
			wbuf_put(out, tmp.data, tmp.len);
		rc = rc < 0 ? err_prefix(e, "class name_ string at 0x%x", name) : 1;
	}
	wbuf_release(&tmp);
	return rc;
}

/* Through the dex cache: location -> dex; dex_type_idx -> descriptor; the class def at
 * dex_class_def_idx must define that type. */
static int name_from_dex(const struct mw_space *s, const struct art_layout *lay, uint32_t k, mw_dex_lookup_fn lookup,
			 void *ctx, struct wbuf *out, struct err *e)
{
	uint32_t dc, type_idx, def_idx;
	const struct dex *dex;
	const uint8_t *desc;
	size_t dlen;
	struct err ign;
	struct dex_class_def def;
	int rc;

	if (!lookup || !rd32(s, (uint64_t)k + lay->klass.dex_cache, &dc) || !dc ||
	    !rd32(s, (uint64_t)k + lay->klass.dex_type_idx, &type_idx) ||
	    !rd32(s, (uint64_t)k + lay->klass.dex_class_def_idx, &def_idx))
		return 0;
	if ((rc = lookup(ctx, dc, &dex)) != 1)
		return rc;
	if (dex_type_descriptor(dex, type_idx, &desc, &dlen, &ign) != 0)
		return ERR_SET(e, ERR_CORRUPT, k, "class at 0x%x: dex_type_idx %u is not a type of its dex (%u types)", k,
			       type_idx, dex->type_ids_size);
	if (def_idx < dex->class_defs_size && dex_class_def(dex, def_idx, &def, &ign) == 0 && def.class_idx != type_idx)
		return ERR_SET(e, ERR_CORRUPT, k, "class at 0x%x: class def %u defines type %u, not dex_type_idx %u", k,
			       def_idx, def.class_idx, type_idx);
	if ((rc = mirror_java_name(desc, dlen, out, e)) < 0)
		return err_prefix(e, "class at 0x%x", k);
	return 1;
}

static int class_name(const struct mw_space *s, const struct art_layout *lay, uint32_t k, mw_dex_lookup_fn lookup,
		      void *ctx, struct wbuf *out, unsigned depth, struct err *e)
{
	uint32_t name = 0, prim = 0, comp = 0;
	const char *pn;
	int rc;

	if (depth > MW_MAX_DIMS)
		return ERR_SET(e, ERR_CORRUPT, k, "class at 0x%x: component types nest deeper than %u", k, MW_MAX_DIMS);
	if (!rd32(s, (uint64_t)k + lay->klass.name, &name))
		return MW_NAME_NONE;
	if (name && (rc = name_from_field(s, lay, name, out, e)) != 0)
		return rc < 0 ? rc : MW_NAME_FIELD;
	rd32(s, (uint64_t)k + lay->klass.component_type, &comp);
	if (comp) {
		rc = class_name(s, lay, comp, lookup, ctx, out, depth + 1, e);
		if (rc > 0)
			wbuf_put(out, "[]", 2);
		return rc > 0 ? MW_NAME_ARRAY : rc;
	}
	rd32(s, (uint64_t)k + lay->klass.primitive_type, &prim);
	if ((pn = mirror_primitive_name(prim & lay->klass.primitive_mask)) != NULL) {
		wbuf_printf(out, "%s", pn);
		return MW_NAME_PRIMITIVE;
	}
	rc = name_from_dex(s, lay, k, lookup, ctx, out, e);
	return rc > 0 ? MW_NAME_DEX : rc;
}

int mw_class_name_dex(const struct mw_space *s, const struct art_layout *lay, uint32_t addr,
			  mw_dex_lookup_fn lookup, void *ctx, struct wbuf *out, struct err *e)
{
	size_t mark = out->len;
	int rc = name_from_dex(s, lay, addr, lookup, ctx, out, e);

	if (rc <= 0)
		out->len = mark;
	return rc > 0 ? MW_NAME_DEX : rc;
}

int mw_class_name(const struct mw_space *s, const struct art_layout *lay, uint32_t addr, mw_dex_lookup_fn lookup,
		      void *ctx, struct wbuf *out, struct err *e)
{
	size_t mark = out->len;
	int rc = class_name(s, lay, addr, lookup, ctx, out, 0, e);

	if (rc <= 0)
		out->len = mark; /* drop a partial name */
	return rc;
}
