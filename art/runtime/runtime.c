/* runtime.c - the runtime model: layout, pointer size, classes (see runtime.h). */
#include "art/runtime/runtime.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "art/format/art_image.h"
#include "carver/base/bsearch.h"
#include "carver/base/ck.h"
#include "carver/base/cursor.h"
#include "carver/base/wbuf.h"
#include "carver/base/xalloc.h"

enum {
	RT_LOW4G_SHIFT = 32,
	RT_MAX_NAME = 4096,           /* longest class name read from a String */
	RT_MAX_DEXES = 4096,
	RT_MAX_IFIELDS = 65535,       /* u16 field counts in DEX class_data practice */
	RT_MAX_ARRAY_DEPTH = 255,     /* JVM limit on array dimensions */
	RT_CLASS_FLAG_CLASS = 0x10,   /* mirror::kClassFlagClass, class_flags.h @R71-R16Q */
	RT_ACC_STATIC = 0x0008,       /* kAccStatic, libdexfile/dex/modifiers.h */
	RT_LPA_MAX_FIELDS = 1 << 16,
	RT_MAX_SELF = 1 << 16,        /* self-referencing words tried as java.lang.Class (hostile bound) */
};

static int rt_nomem(struct err *e)
{
	return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory building the runtime model");
}

static const char *rt_strdup(struct art_runtime *rt, const char *s, size_t n)
{
	return arena_strndup(&rt->arena, s, n);
}

static const char *rt_printf(struct art_runtime *rt, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static const char *rt_printf(struct art_runtime *rt, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return rt_strdup(rt, buf, strlen(buf));
}

const char *runtime_families(void)
{
	static char list[256];
	size_t n = 0;
	for (size_t i = 0; i < art_layout_count && n + 8 < sizeof(list); i++)
		n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s", i ? ", " : "", art_layouts[i].family);
	return list;
}

/* ---- object chunks: the captured bytes of the spaces that hold objects ---- */

/* The space holding va, for anomaly records: ART's name, else its kind (found by content),
 * else the captured region's name. */
static const char *space_name(const struct art_runtime *rt, uint64_t va)
{
	const struct art_space *s = spaces_at(&rt->spaces, va);
	const struct img_region *r;
	if (s)
		return *s->name ? s->name : spaces_kind_name(s->kind);
	r = img_find(rt->img, va);
	return r ? r->name : NULL;
}

typedef int (*chunk_fn)(struct art_runtime *rt, uint64_t va, const uint8_t *p, size_t n, void *ctx,
			struct err *e);

static bool object_space_kind(enum space_kind k)
{
	return spaces_holds_objects(k) && k != SPACE_LOS_MAP;
}

static bool any_object_space(const struct art_runtime *rt)
{
	for (size_t i = 0; i < rt->spaces.count; i++)
		if (object_space_kind(rt->spaces.v[i].kind))
			return true;
	return false;
}

/* Calls fn for the captured bytes of every object space; without any known space, for
 * every captured region below 4 GiB (heap references are 32-bit). */
static int for_each_chunk(struct art_runtime *rt, bool images_only, chunk_fn fn, void *ctx, struct err *e)
{
	const struct image *img = rt->img;
	bool spaces = any_object_space(rt);
	for (size_t i = 0; i < img->region_count; i++) {
		const struct img_region *r = &img->regions[i];
		if (!r->data || r->data_len < 8 || r->start >> RT_LOW4G_SHIFT)
			continue;
		uint64_t lo = r->start, hi = r->start + r->data_len;
		if (spaces) {
			const struct art_space *s = spaces_at(&rt->spaces, r->start);
			if (!s || (images_only && s->kind != SPACE_IMAGE))
				continue;
			uint64_t end = s->objects_end ? s->objects_end : s->end;
			if (end < hi)
				hi = end;
		}
		lo = (lo + 7) & ~(uint64_t)7;
		/* in pieces, each released once scanned: the scan needs every page once, not all at
		 * once.  Only the data runs (widened to whole words): a word in a hole of the input
		 * is zero and matches nothing the callers look for, but a self-reference at address
		 * 0, so a region there is scanned whole.  Each step moves past one piece. */
		for (uint64_t at = lo; at < hi;) {
			uint64_t dlo = at, dhi = hi;
			if (r->start != 0) {
				if (!img_next_data(img, at, hi, &dlo, &dhi))
					break;
				dlo &= ~(uint64_t)7;
				dhi = (dhi + 7) & ~(uint64_t)7;   /* below 4 GiB: no wrap */
				if (dlo < at)
					dlo = at;
				if (dhi > hi)
					dhi = hi;
			}
			uint64_t n = dhi - dlo < IMG_DROP_STEP ? dhi - dlo : IMG_DROP_STEP;
			int rc = fn(rt, dlo, r->data + (dlo - r->start), (size_t)n, ctx, e);
			img_drop(img, dlo, dlo + n);
			if (rc)
				return rc;
			at = dlo + n;
		}
	}
	return 0;
}

/* ---- image spaces ---- */

/* An image space whose ImageHeader cannot be read is recorded and left out. */
static int find_images(struct art_runtime *rt, struct err *e)
{
	for (size_t i = 0; i < rt->spaces.count; i++) {
		const struct art_space *s = &rt->spaces.v[i];
		struct art_image_header h;
		struct err why;
		err_init(&why);
		if (s->kind != SPACE_IMAGE)
			continue;
		/* a header that does not parse (or has no mirror layout) leaves the space out, recorded */
		if (art_image_header_at(&h, rt->img, s->begin, &why) != 0) {
			anomaly_add_err(&rt->anomalies, ANOM_IMAGE_HEADER, space_name(rt, s->begin), &why);
			continue;
		}
		if (!art_layout_for_image(h.fmt)) {
			anomaly_add(&rt->anomalies, ANOM_IMAGE_HEADER, ERR_UNSUP, s->begin, space_name(rt, s->begin),
				    "image space at 0x%llx: ImageHeader version %03u has no mirror layout row",
				    (unsigned long long)s->begin, h.version);
			continue;
		}
		struct rt_image *im = xreallocarray(rt->images, rt->image_count + 1, sizeof(*im));
		if (!im)
			return rt_nomem(e);
		rt->images = im;
		im = &rt->images[rt->image_count++];
		im->begin = s->begin;
		im->version = h.version;
		im->size = h.image_size;
		im->roots = h.image_roots;
		im->pointer_size = h.pointer_size;   /* 0 where the header has none (5.x) */
		im->name = s->name;
	}
	return 0;
}

/* ---- DEX, OAT and VDEX files ---- */

static const char *dex_location_of(struct art_runtime *rt, const char *region_name)
{
	static const char from[] = " extracted in memory from ";
	const char *inner;
	size_t len;
	if (!region_name || !*region_name)
		return "";
	if (!spaces_dalvik_name(region_name, &inner, &len))
		return region_name;
	for (size_t i = 0; i + sizeof(from) - 1 <= len; i++) {
		if (memcmp(inner + i, from, sizeof(from) - 1))
			continue;
		const char *zip = inner + i + sizeof(from) - 1;
		size_t zn = len - i - (sizeof(from) - 1);
		/* multidex: "classes2.dex extracted ... from X" has location "X!classes2.dex" */
		if (i == strlen("classes.dex") && !memcmp(inner, "classes.dex", i))
			return rt_strdup(rt, zip, zn);
		return rt_printf(rt, "%.*s!%.*s", (int)zn, zip, (int)i, inner);
	}
	return rt_strdup(rt, inner, len);
}

static int add_dex(struct art_runtime *rt, const struct img_region *r, size_t off, const struct dex *d,
		   struct err *e)
{
	struct rt_dex *v = xreallocarray(rt->dexes, rt->dex_count + 1, sizeof(*v));
	if (!v)
		return rt_nomem(e);
	rt->dexes = v;
	v = &rt->dexes[rt->dex_count++];
	memset(v, 0, sizeof(*v));
	v->addr = r->start + off;
	v->size = d->file_size;
	v->dex = *d;
	v->location = dex_location_of(rt, r->name);
	v->how = rt_printf(rt, "magic at 0x%llx", (unsigned long long)v->addr);
	return v->location && v->how ? 0 : rt_nomem(e);
}

/* A library's own bytes (code, strings: libart.so holds "dex\n035" as a constant) are no
 * place for a DEX that ART loads; a magic there whose header does not parse is a rejected
 * candidate.  Anywhere else (dalvik- anonymous memory, .dex/.jar/.apk/.vdex/.oat mappings) it
 * is a DEX cut by the capture or overwritten: an anomaly. */
static bool library_mapping(const char *name)
{
	const char *base = strrchr(name, '/');
	base = base ? base + 1 : name;
	const char *so = strstr(base, ".so");
	return so && (so[3] == 0 || so[3] == '.' || so[3] == ' ');
}

static void dex_rejected(struct art_runtime *rt, const struct img_region *r, const struct err *why)
{
	if (library_mapping(r->name))
		rt->rejected_dexes++;
	else
		anomaly_add_err(&rt->anomalies, ANOM_DEX, r->name, why);
}

static const uint8_t *find_magic(const uint8_t *p, size_t n, size_t from)
{
	for (size_t i = from; i + 8 <= n; i += 4)
		if ((p[i] == 'd' && !memcmp(p + i, "dex\n", 4)) || (p[i] == 'c' && !memcmp(p + i, "cdex", 4)))
			return p + i;
	return NULL;
}

/* The magic is looked for window by window, each released once searched: a big mapping with no
 * DEX in it is read once, not kept resident. */
static int scan_region_dexes(struct art_runtime *rt, const struct img_region *r, struct err *e)
{
	size_t off = 0;
	while (rt->dex_count < RT_MAX_DEXES && off < r->data_len) {
		uint64_t lo, hi;
		/* a magic's bytes are not zero: the holes of the file (zero, unread) hold none */
		if (!img_next_data(rt->img, r->start + off, r->start + r->data_len, &lo, &hi))
			break;
		if (lo - r->start > off)
			off = ((size_t)(lo - r->start) + 3) & ~(size_t)3;   /* magics are 4-aligned */
		size_t run = (size_t)(hi - r->start);
		if (off >= run)
			continue;
		size_t win = run - off < IMG_DROP_STEP ? run - off : IMG_DROP_STEP;
		/* a magic starting inside the window is found here, one past it in the next window */
		size_t end = win + 7 < r->data_len - off ? off + win + 7 : r->data_len;
		const uint8_t *hit = find_magic(r->data, end, off);
		if (!hit) {
			img_drop(rt->img, r->start + off, r->start + off + win);
			off += win;
			continue;
		}
		size_t at = (size_t)(hit - r->data);
		struct cursor c;
		struct dex d;
		struct err why;
		off = at + 4;
		if (!dex_probe(hit, r->data_len - at))
			continue;
		cur_init(&c, hit, r->data_len - at, r->start + at);
		err_init(&why);
		if (dex_parse(&d, &c, &why) != 0) {   /* a DEX cut by the capture, or overwritten */
			dex_rejected(rt, r, &why);
			continue;
		}
		int rc = add_dex(rt, r, at, &d, e);
		if (rc)
			return rc;
		if (d.file_size > 4 && d.file_size <= r->data_len - at)
			off = at + ((d.file_size + 3) & ~(size_t)3);
	}
	return 0;
}

/* Version of the OatHeader ("oat\n" + 3 digits + NUL at a page boundary: oatdata) in the
 * captured part of an OAT mapping, 0 if none (runtime/oat.h). */
static unsigned oat_version_in(const struct img_region *r)
{
	for (size_t off = 0; off + 8 <= r->data_len; off += 4096) {
		const uint8_t *p = r->data + off;
		if (memcmp(p, "oat\n", 4) || p[7] || p[4] < '0' || p[4] > '9' || p[5] < '0' || p[5] > '9' ||
		    p[6] < '0' || p[6] > '9')
			continue;
		return (unsigned)(p[4] - '0') * 100 + (unsigned)(p[5] - '0') * 10 + (unsigned)(p[6] - '0');
	}
	return 0;
}

static int add_file(struct art_runtime *rt, const struct img_region *r, const char *kind, struct err *e)
{
	struct rt_file *f = xreallocarray(rt->files, rt->file_count + 1, sizeof(*f));
	if (!f)
		return rt_nomem(e);
	rt->files = f;
	f = &rt->files[rt->file_count++];
	f->addr = r->start;
	f->kind = kind;
	f->name = r->name ? r->name : "";
	f->version = strcmp(kind, "oat") ? 0 : oat_version_in(r);
	return 0;
}

static bool name_ends(const char *n, const char *suffix)
{
	size_t a = n ? strlen(n) : 0, b = strlen(suffix);
	return a >= b && !strcmp(n + a - b, suffix);
}

static int find_files(struct art_runtime *rt, struct err *e)
{
	const struct image *img = rt->img;
	for (size_t i = 0; i < img->region_count; i++) {
		const struct img_region *r = &img->regions[i];
		int rc = 0;
		if (!r->data || r->data_len < 8 || spaces_at(&rt->spaces, r->start))
			continue;
		if (!memcmp(r->data, "vdex", 4))
			rc = add_file(rt, r, "vdex", e);
		else if (!memcmp(r->data, "\177ELF", 4) &&
			 (name_ends(r->name, ".oat") || name_ends(r->name, ".odex")))
			rc = add_file(rt, r, "oat", e);
		if (rc == 0)
			rc = scan_region_dexes(rt, r, e);
		img_drop(img, r->start, r->start + r->data_len);   /* scanned: what is used is read again */
		if (rc)
			return rc;
	}
	return 0;
}

/* ---- layout family and java.lang.Class ---- */

struct self_scan {
	uint64_t *v;
	size_t n, cap;
};

static int collect_self(struct art_runtime *rt, uint64_t va, const uint8_t *p, size_t n, void *ctx,
			struct err *e)
{
	struct self_scan *s = ctx;
	(void)rt;
	for (size_t off = 0; off + 8 <= n && s->n < RT_MAX_SELF; off += 8) {
		if (ld_u32le(p + off) != (uint32_t)(va + off))
			continue;
		if (XALLOC_GROW(s->v, s->cap, s->n + 1, 16))
			return rt_nomem(e);
		s->v[s->n++] = va + off;
	}
	return 0;
}

static int jlc_refuted(struct err *why, uint64_t jlc, const struct art_layout *l, const char *what)
{
	ERR_SET(why, ERR_UNSUP, jlc, "candidate 0x%llx read with layout %s: %s", (unsigned long long)jlc, l->family,
		what);
	return -1;
}

/* How well row l explains candidate jlc as java.lang.Class: -1 if it cannot (*why says what
 * refutes it), else the number of optional checks passed. */
static int jlc_score(const struct art_runtime *rt, const struct art_layout *l, uint64_t jlc, struct err *why)
{
	struct mirror m = { rt->img, l, 8 };
	struct mirror_class c, o, dc;
	uint32_t k;
	int score = 0;

	if (mirror_class_read(&m, jlc, &c, why))
		return -1;
	if (!mirror_class_plausible(&m, &c, jlc) || c.super_class == 0 || c.component_type != 0 ||
	    (c.primitive_type & l->klass.primitive_mask))
		return jlc_refuted(why, jlc, l, "not a plausible non-array, non-primitive Class with a super class");
	/* java.lang.Object: no super class, 8-byte instances (the object header) */
	if (mirror_class_read(&m, c.super_class, &o, why))
		return -1;
	if (!mirror_class_plausible(&m, &o, jlc) || o.super_class != 0 || o.object_size != l->object.size)
		return jlc_refuted(why, jlc, l, "its super class is not java.lang.Object");
	if (l->klass.class_flags != ART_ABSENT) {
		if (!(c.class_flags & RT_CLASS_FLAG_CLASS))
			return jlc_refuted(why, jlc, l, "class_flags_ lack kClassFlagClass");
		score++;
	}
	/* the DexCache's class is optional evidence: a DexCache or class not captured (the read
	 * fails) adds nothing and refutes nothing */
	uint32_t cache = c.dex_cache ? c.dex_cache : o.dex_cache;
	if (cache && mirror_klass(&m, cache, &k, why) == 0 && mirror_class_read(&m, k, &dc, why) == 0) {
		/* its instances have this family's size */
		if (!mirror_class_plausible(&m, &dc, jlc) || dc.object_size != l->dex_cache.size)
			return jlc_refuted(why, jlc, l, "its DexCache's class does not have this layout's DexCache size");
		score += 2;
	}
	return score;
}

static int layout_from_option(struct art_runtime *rt, const char *family, struct err *e)
{
	rt->layout = art_layout_by_family(family);
	if (!rt->layout)
		return ERR_SET(e, ERR_USAGE, ERR_NO_VA, "unknown ART version '%s' (known layout families: %s)",
			       family, runtime_families());
	rt->layout_by_version = true;
	rt->layout_how = rt_printf(rt, "--art-version %s", family);
	return rt->layout_how ? 0 : rt_nomem(e);
}

static int layout_from_images(struct art_runtime *rt, struct err *e)
{
	for (size_t i = 0; i < rt->image_count; i++) {
		const struct art_layout *l = art_layout_by_image_version(rt->images[i].version);
		if (!l)
			continue;
		rt->layout = l;
		/* rows sharing the image version (108) are told apart by the OAT version of a
		 * mapped OAT file (boot.oat) whose range one of them holds */
		for (size_t j = 0; art_layout_image_shared(l) && j < rt->file_count; j++) {
			const struct art_layout *o = art_layout_by_versions(rt->images[i].version, rt->files[j].version);
			if (!rt->files[j].version || o->oat_version_min > rt->files[j].version ||
			    o->oat_version_max < rt->files[j].version)
				continue;
			rt->layout = o;
			rt->layout_by_version = true;
			rt->layout_how = rt_printf(rt, "image header version %03u at 0x%llx, OAT header version %03u in %s",
						   rt->images[i].version, (unsigned long long)rt->images[i].begin,
						   rt->files[j].version, rt->files[j].name);
			return rt->layout_how ? 0 : rt_nomem(e);
		}
		rt->layout_how = rt_printf(rt, "image header version %03u at 0x%llx", rt->images[i].version,
					   (unsigned long long)rt->images[i].begin);
		return rt->layout_how ? 0 : rt_nomem(e);
	}
	return 0;
}

static int layout_from_oat(struct art_runtime *rt, struct err *e)
{
	for (size_t i = 0; i < rt->file_count; i++) {
		const struct art_layout *l = art_layout_by_oat_version(rt->files[i].version);
		if (!l)
			continue;
		rt->layout = l;
		rt->layout_by_version = true;
		rt->layout_how = rt_printf(rt, "OAT header version %03u in %s", rt->files[i].version, rt->files[i].name);
		return rt->layout_how ? 0 : rt_nomem(e);
	}
	return 0;
}

/* Writes to list (cap > 0) the other families whose objects read as l's, comma-separated,
 * "" if none (cut at cap): content alone cannot choose among them, and their native layouts
 * (ArtMethod, image header) differ. */
static void content_alike(const struct art_layout *l, char *list, size_t cap)
{
	size_t n = 0;

	list[0] = 0;
	for (size_t i = 0; i < art_layout_count; i++) {
		const struct art_layout *o = &art_layouts[i];
		if (o == l || !art_layout_same_objects(l, o))
			continue;
		int w = snprintf(list + n, cap - n, "%s%s", n ? ", " : "", o->family);
		if (w < 0 || (size_t)w >= cap - n)
			break;
		n += (size_t)w;
	}
}

/* Picks java.lang.Class among the self-referencing words (of the image spaces only, or of
 * every object space) and, unless fixed, the row. */
static int find_jlc_in(struct art_runtime *rt, bool images_only, struct err *e)
{
	struct self_scan s = { 0 };
	int rc = for_each_chunk(rt, images_only, collect_self, &s, e);
	int best = -1;
	const struct art_layout *best_l = NULL, *tie = NULL;
	uint64_t best_va = 0;
	struct err why, first_why;   /* why the first candidate was refuted, for the message */

	err_init(&why);
	err_init(&first_why);

	for (size_t i = 0; rc == 0 && i < s.n; i++) {
		int cbest = -1;
		const struct art_layout *cl = NULL, *ctie = NULL;
		for (size_t j = 0; j < art_layout_count; j++) {
			const struct art_layout *l = &art_layouts[j];
			if (rt->layout && l != rt->layout)
				continue;
			int sc = jlc_score(rt, l, s.v[i], &why);
			if (sc < 0 && i == 0 && !first_why.msg[0])
				first_why = why;
			if (sc > cbest) {
				cbest = sc;
				cl = l;
				ctie = NULL;
			} else if (sc >= 0 && sc == cbest && !art_layout_same_but_link(cl, l)) {
				/* rows that read every object alike are no ambiguity for the heap
				 * (the first is kept; layout_how says so); rows differing only in
				 * ClassLoader or in the LinkFields rule are settled by the classes'
				 * own fields later (settle_field_link_row, settle_class_loader_row) */
				ctie = l;
			}
		}
		if (cbest > best) {
			best = cbest;
			best_l = cl;
			tie = ctie;
			best_va = s.v[i];
		}
	}
	xfree(s.v);
	if (rc)
		return rc;
	if (best < 0)
		return ERR_SET(e, ERR_UNSUP, ERR_NO_VA,
			       "no java.lang.Class found: no object whose class is itself reads as a Class in any "
			       "known layout (families %s); is this an ART process image? (%zu candidates%s%s)",
			       runtime_families(), s.n, s.n ? "; the first: " : "", first_why.msg);
	if (tie)
		return ERR_SET(e, ERR_UNSUP, best_va,
			       "java.lang.Class at 0x%llx reads equally well with layouts %s and %s; "
			       "choose one with --art-version", (unsigned long long)best_va, best_l->family,
			       tie->family);
	rt->java_lang_class = best_va;
	if (!rt->layout) {
		rt->layout = best_l;
		char alike[128];
		content_alike(best_l, alike, sizeof(alike));
		rt->layout_how = rt_printf(rt, "content: java.lang.Class at 0x%llx (its own class) read with "
					   "every layout row; only %s fits (java.lang.Object size, Class flags, "
					   "DexCache size %u)%s%s", (unsigned long long)best_va, best_l->family,
					   best_l->dex_cache.size, alike[0] ? "; objects read alike in " : "", alike);
		if (!rt->layout_how)
			return rt_nomem(e);
	}
	return 0;
}

/* java.lang.Class is a boot image class: the image spaces are searched first (one pass over a
 * few MB), and the whole heap only when nothing there reads as java.lang.Class. */
static int find_jlc(struct art_runtime *rt, struct err *e)
{
	for (size_t i = 0; i < rt->spaces.count; i++) {
		if (rt->spaces.v[i].kind != SPACE_IMAGE)
			continue;
		int rc = find_jlc_in(rt, true, e);
		if (rc != -ERR_UNSUP)
			return rc;
		break;   /* the message of the whole search below replaces this one */
	}
	return find_jlc_in(rt, false, e);
}

/* ---- classes ---- */

static int add_class(struct art_runtime *rt, const struct mirror_class *c, struct err *e)
{
	if (rt->class_count % 256 == 0) {
		struct rt_class *v = xreallocarray(rt->classes, rt->class_count + 256, sizeof(*v));
		if (!v)
			return rt_nomem(e);
		rt->classes = v;
	}
	struct rt_class *k = &rt->classes[rt->class_count++];
	memset(k, 0, sizeof(*k));
	k->addr = c->addr;
	k->raw = *c;
	k->name_how = "";
	k->fields_how = "";
	k->dex = k->dissent_dex = k->super = k->component = RT_NONE;
	k->space = spaces_at(&rt->spaces, c->addr);
	return 0;
}

/* A Class's lock word in the forwarding state (lock_word.h @R11: ForwardingAddress() =
 * value_ << kForwardingAddressShift, in 32 bits) marks a from-space copy a moving GC left
 * behind, when its target is a captured Class too; any other target makes the word damage,
 * and the Class is read on. */
static bool forwarded_copy(const struct art_runtime *rt, uint32_t lock)
{
	uint32_t k;
	return mirror_peek_u32(&rt->m, (uint32_t)(lock << 3), &k) && k == (uint32_t)rt->java_lang_class;
}

static int collect_classes(struct art_runtime *rt, uint64_t va, const uint8_t *p, size_t n, void *ctx,
			   struct err *e)
{
	uint32_t jlc = (uint32_t)rt->java_lang_class;
	(void)ctx;
	for (size_t off = 0; off + 8 <= n; off += 8) {
		struct mirror_class c;
		struct err why;
		const char *damaged;
		if (ld_u32le(p + off) != jlc)
			continue;
		/* a from-space copy left behind by a moving GC carries a forwarding lock word: a
		 * normal leftover, not damage */
		if (ld_u32le(p + off + 4) >> 30 == MIRROR_LOCK_FORWARD && forwarded_copy(rt, ld_u32le(p + off + 4))) {
			rt->rejected_classes++;
			continue;
		}
		/* a word equal to java.lang.Class's address is a candidate only: inside another
		 * object (a Field whose type is Class, an array of classes) or in free memory it is
		 * no Class, and that is no damage.  A damaged real Class is an object start the
		 * walkers find: the model records it there ("class word is java.lang.Class but the
		 * runtime model has no Class"), so only the count is kept here. */
		err_init(&why);
		if (mirror_class_read(&rt->m, va + off, &c, &why) == 0 && mirror_class_damaged(&rt->m, &c, jlc, &damaged)) {
			anomaly_add(&rt->anomalies, ANOM_CLASS, ERR_CORRUPT, va + off, space_name(rt, va + off),
				    "class at 0x%llx: %s out of range (damage); read as a Class by its other fields",
				    (unsigned long long)(va + off), damaged);
			mirror_class_repair(&rt->m, &c, damaged);
		} else if (why.code || (!mirror_class_plausible(&rt->m, &c, jlc) &&
		     ERR_SET(&why, ERR_CORRUPT, va + off, "class at 0x%llx: fields out of range for a Class",
			     (unsigned long long)(va + off)))) {
			if (!rt->rejected_classes++)
				snprintf(rt->first_rejected, sizeof(rt->first_rejected), "%.150s", why.msg);
			continue;
		}
		if (mirror_class_retired(&rt->m, &c)) {
			rt->retired_classes++;
			continue;
		}
		int rc = add_class(rt, &c, e);
		if (rc)
			return rc;
	}
	return 0;
}

static int by_addr(const void *a, const void *b)
{
	const struct rt_class *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static size_t class_slot(uint64_t addr, size_t mask)
{
	return (size_t)(((addr >> 3) * 0x9e3779b97f4a7c15ull) >> 32) & mask;
}

/* runtime_class_at answers for every carved object (its class word), often more than once:
 * an open-addressing table of the class addresses (at least twice the class count, so probes
 * stay short) replaces a binary search over thousands of classes. */
static int hash_classes(struct art_runtime *rt, struct err *e)
{
	size_t cap = 16;
	while (cap < rt->class_count || cap - rt->class_count < rt->class_count)
		if (ck_mul(cap, 2, &cap))
			return rt_nomem(e);
	if (!(rt->class_hash = xcalloc(cap, sizeof(*rt->class_hash))))
		return rt_nomem(e);
	rt->class_hash_mask = cap - 1;
	for (size_t i = 0; i < rt->class_count; i++) {
		size_t h = class_slot(rt->classes[i].addr, rt->class_hash_mask);
		while (rt->class_hash[h])
			h = (h + 1) & rt->class_hash_mask;
		rt->class_hash[h] = (uint32_t)i + 1;
	}
	return 0;
}

/* A Class whose own class word is damaged is no candidate of collect_classes; the classes
 * that name it as their super or component class (or, for java.lang.String, whose name_
 * Strings have it as their class) are its second source.  Such an address
 * whose object reads as a sound Class but for its class word is read as one, with an anomaly.
 * At most CLASS_RECOVER_MAX of them (damage, not the rule); the table is sorted and hashed
 * again when one is added. */
enum { CLASS_RECOVER_MAX = 64 };

static size_t damaged_class_words(struct art_runtime *rt, struct mirror_class *found)
{
	uint32_t jlc = (uint32_t)rt->java_lang_class;
	size_t n = 0;
	for (size_t i = 0; i < rt->class_count && n < CLASS_RECOVER_MAX; i++) {
		uint32_t named[3] = { rt->classes[i].raw.super_class, rt->classes[i].raw.component_type, 0 }, klass;
		/* and java.lang.String: the class of every class's name_ */
		if (rt->classes[i].raw.name && !mirror_peek_u32(&rt->m, rt->classes[i].raw.name, &named[2]))
			named[2] = 0;
		for (size_t j = 0; j < 3 && n < CLASS_RECOVER_MAX; j++) {
			struct mirror_class c;
			struct err why;
			bool seen = false;
			if (!named[j] || runtime_class_at(rt, named[j]))
				continue;
			for (size_t k = 0; k < n && !seen; k++)
				seen = found[k].addr == named[j];
			/* not captured, or a Class collect_classes already judged */
			if (seen || !mirror_peek_u32(&rt->m, named[j], &klass) || klass == jlc)
				continue;
			err_init(&why);
			if (mirror_class_read(&rt->m, named[j], &c, &why)) {
				anomaly_add_err(&rt->anomalies, ANOM_CLASS, space_name(rt, named[j]), &why);
				continue;
			}
			c.klass = jlc;
			if (mirror_class_plausible(&rt->m, &c, jlc) && !mirror_class_retired(&rt->m, &c)) {
				c.klass = klass;
				found[n++] = c;
			}
		}
	}
	return n;
}

static int recover_damaged_classes(struct art_runtime *rt, struct err *e)
{
	struct mirror_class found[CLASS_RECOVER_MAX];
	size_t n = damaged_class_words(rt, found);
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < n; i++) {
		anomaly_add(&rt->anomalies, ANOM_CLASS, ERR_CORRUPT, found[i].addr, space_name(rt, found[i].addr),
			    "class at 0x%llx: class word 0x%x is not java.lang.Class (damage); read as a Class, "
			    "which other classes name (super or component class, class of their name_)",
			    (unsigned long long)found[i].addr, found[i].klass);
		found[i].klass = (uint32_t)rt->java_lang_class;
		rc = add_class(rt, &found[i], e);
	}
	if (rc == 0 && n) {
		qsort(rt->classes, rt->class_count, sizeof(rt->classes[0]), by_addr);
		xfree(rt->class_hash);
		rt->class_hash = NULL;
		rc = hash_classes(rt, e);
	}
	return rc;
}

static uint64_t class_addr(const void *v, size_t i) { return ((const struct rt_class *)v)[i].addr; }

const struct rt_class *runtime_class_at(const struct art_runtime *rt, uint64_t addr)
{
	if (rt->class_hash) {
		for (size_t h = class_slot(addr, rt->class_hash_mask); rt->class_hash[h]; h = (h + 1) & rt->class_hash_mask)
			if (rt->classes[rt->class_hash[h] - 1].addr == addr)
				return &rt->classes[rt->class_hash[h] - 1];
		return NULL;
	}
	size_t i = bs_find(rt->classes, rt->class_count, class_addr, addr);
	return i == SIZE_MAX ? NULL : &rt->classes[i];
}

static size_t class_index(const struct art_runtime *rt, uint64_t addr)
{
	const struct rt_class *k = addr ? runtime_class_at(rt, addr) : NULL;
	return k ? (size_t)(k - rt->classes) : RT_NONE;
}

static void link_classes(struct art_runtime *rt)
{
	for (size_t i = 0; i < rt->class_count; i++) {
		struct rt_class *k = &rt->classes[i];
		k->super = class_index(rt, k->raw.super_class);
		k->component = class_index(rt, k->raw.component_type);
	}
}

/* ---- pointer size ---- */

static void choose_pointer_size(struct art_runtime *rt)
{
	size_t nonzero = 0;
	for (size_t i = 0; i < rt->image_count; i++) {
		unsigned p = rt->images[i].pointer_size;
		if (p == 4 || p == 8) {
			rt->pointer_size = p;
			rt->pointer_how = rt_printf(rt, "image header at 0x%llx", (unsigned long long)rt->images[i].begin);
			return;
		}
	}
	if (rt->img->pointer_bits == 32 || rt->img->pointer_bits == 64) {
		/* a core's ELF class is the process's word size; needed for 5.x, whose Class objects
		 * hold heap references where later versions hold native pointers */
		rt->pointer_size = rt->img->pointer_bits / 8;
		rt->pointer_how = rt->img->pointer_bits == 64 ? "container: ELF class 64 of the core"
							      : "container: ELF class 32 of the core";
		return;
	}
	for (size_t i = 0; i < rt->class_count; i++) {
		const struct mirror_class *c = &rt->classes[i].raw;
		const uint64_t v[3] = { c->ifields, c->methods, c->sfields };
		for (int j = 0; j < 3; j++) {
			if (v[j] >> 32) {
				rt->pointer_size = 8;
				rt->pointer_how = rt_printf(rt, "content: native pointer 0x%llx above 4 GiB in the Class at 0x%llx",
							    (unsigned long long)v[j], (unsigned long long)c->addr);
				return;
			}
			nonzero += v[j] != 0;
		}
	}
	rt->pointer_size = nonzero ? 4 : 8;
	rt->pointer_how = nonzero ? "content: every native pointer in Class objects is below 4 GiB"
				  : "unknown (no native pointers seen); 8 assumed";
}

/* ---- DexCache -> DEX ---- */

/* A source of one fact failed: -ERR_NOMEM moves to e and is returned; anything else stays
 * in *why for rt_settle and 1 is returned (the next source is tried). */
static int rt_source_failed(int rc, struct err *why, struct err *e)
{
	if (rc == -ERR_NOMEM)
		return (*e = *why, rc);
	return 1;
}

/* Once the sources of one fact about the structure at va were tried (a and b: why each
 * failed, code 0 if it did not): bytes that were captured but wrong are damage, recorded
 * even when the other source supplied the fact; bytes that were not captured are a gap,
 * recorded only when the fact is lost (lost: no source gave it). */
static void rt_settle(struct art_runtime *rt, enum anomaly_code code, uint64_t va, const char *what, bool lost,
		      const struct err *a, const struct err *b)
{
	const struct err *first = a->code ? a : b->code ? b : NULL;
	const char *space = space_name(rt, va);

	if (!first)
		return;
	if (lost) {
		anomaly_add(&rt->anomalies, code, first->code, va, space, "%s at 0x%llx unknown: %s%s%s", what,
			    (unsigned long long)va, a->code ? a->msg : "", a->code && b->code ? "; " : "",
			    b->code ? b->msg : "");
		return;
	}
	if (a->code && a->code != ERR_UNMAPPED)
		anomaly_add(&rt->anomalies, code, a->code, va, space, "%s at 0x%llx (found elsewhere): %s", what,
			    (unsigned long long)va, a->msg);
	if (b->code && b->code != ERR_UNMAPPED)
		anomaly_add(&rt->anomalies, code, b->code, va, space, "%s at 0x%llx (found elsewhere): %s", what,
			    (unsigned long long)va, b->msg);
}

/* 1 when the class's class_def in d names its own type, 0 when not (indexes outside d are
 * a "no": the class may come from another DEX); <0 only if a checked index does not read. */
static int class_def_agrees(const struct dex *d, const struct mirror_class *c, struct err *e)
{
	struct dex_class_def def;
	int rc;

	if (c->dex_class_def_idx >= d->class_defs_size || c->dex_type_idx >= d->type_ids_size)
		return 0;
	if ((rc = dex_class_def(d, c->dex_class_def_idx, &def, e)) < 0)
		return rc;
	return def.class_idx == c->dex_type_idx;
}

/* Classes loaded from a class_def (not arrays, primitives or proxies) vote for their DEX. */
static bool dex_class_votes(const struct rt_class *k)
{
	return k->raw.dex_cache && !k->raw.component_type && !(k->raw.primitive_type & 0xffff) &&
	       k->raw.dex_class_def_idx != 0xffffffffu && k->raw.dex_class_def_idx != 0xffffu;
}

/* Second pass of the vote: a DEX with which all but a few of a DexCache's classes agree
 * (one, and one more per 50 voters; at least 3 agreeing) is theirs: the few are damaged
 * classes, not evidence of another DEX.  Unique, or confirmed by the DexCache's location or
 * native pointer, as in the first pass. */
static bool dex_vote_carries(size_t agree, size_t voters)
{
	return agree >= 3 && voters - agree <= 1 + voters / 50;
}

/* The DEX a vote chose: the first one its DexCache's location or native pointer confirms,
 * else the only one (tie: more than one, none confirmed). */
struct dex_vote { size_t d; bool tie, confirmed; };

static void dex_vote_take(struct dex_vote *v, size_t d, bool confirmed)
{
	if (v->confirmed)
		return;
	v->tie = !confirmed && v->d != RT_NONE;
	v->d = d;
	v->confirmed = confirmed;
}

/* The DEX whose address is what DexCache.dex_file_->begin_ holds, RT_NONE if none is known
 * (*why says why when DexFile.begin_ does not read). */
static size_t dex_by_native(struct art_runtime *rt, const struct mirror_dex_cache *dc, struct err *why)
{
	uint64_t begin;

	if (!dc->dex_file)
		return RT_NONE;
	if (mirror_ptr(&rt->m, dc->dex_file + (uint64_t)rt->layout->dex_file.begin_slot * rt->pointer_size, &begin,
		       why)) {
		err_prefix(why, "dex_file_");
		return RT_NONE;
	}
	for (size_t i = 0; i < rt->dex_count; i++)
		if (rt->dexes[i].addr == begin)
			return i;
	return RT_NONE;
}

/* DexCache.location_: 0 (*out NULL when absent or unreadable: *why says why), -ERR_NOMEM. */
static int cache_location(struct art_runtime *rt, const struct mirror_dex_cache *dc, const char **out,
			  struct err *why, struct err *e)
{
	struct wbuf b;
	int rc;

	*out = NULL;
	if (!dc->location)
		return 0;
	wbuf_init(&b);
	rc = mirror_string(&rt->m, dc->location, RT_MAX_NAME, &b, why);
	if (rc == 0 && !(*out = rt_strdup(rt, b.data ? (const char *)b.data : "", b.len)))
		rc = rt_nomem(why);
	wbuf_release(&b);
	if (rc < 0) {
		err_prefix(why, "location_");
		return rt_source_failed(rc, why, e) < 0 ? rc : 0;
	}
	return 0;
}

static bool same_location(const char *a, const char *b)
{
	return a && b && *a && !strcmp(a, b);
}

/* Classes [lo, hi) of order[] share one DexCache: *pick = their DEX, RT_NONE if unknown. */
static int resolve_cache(struct art_runtime *rt, const size_t *order, size_t lo, size_t hi, size_t *pick_out,
			 struct err *e)
{
	uint32_t cache = rt->classes[order[lo]].raw.dex_cache;
	const char *loc = NULL;
	size_t native = RT_NONE, pick = RT_NONE, voters = 0;
	bool tie = false;
	struct mirror_dex_cache dc;
	struct err why_loc, why_native;
	int rc;

	err_init(&why_loc);
	err_init(&why_native);
	/* a DexCache that does not read leaves both sources unknown (why_loc says why) */
	if (mirror_dex_cache_read(&rt->m, cache, &dc, &why_loc) == 0) {
		if ((rc = cache_location(rt, &dc, &loc, &why_loc, e)) < 0)
			return rc;
		native = dex_by_native(rt, &dc, &why_native);
	}
	/* every class agrees with its DEX in a sound image; damage to a few classes' indexes
	 * (dissenters, set apart in resolve_dex_caches) must not lose the DEX of the others:
	 * one count per DEX serves both votes, the near-unanimous one only when none is whole */
	struct dex_vote whole = { RT_NONE, false, false }, near = { RT_NONE, false, false };
	for (size_t d = 0; d < rt->dex_count && !whole.confirmed; d++) {
		size_t agree = 0;
		voters = 0;
		for (size_t i = lo; i < hi; i++) {
			const struct rt_class *k = &rt->classes[order[i]];
			if (!dex_class_votes(k))
				continue;
			voters++;
			if ((rc = class_def_agrees(&rt->dexes[d].dex, &k->raw, e)) < 0)
				return rc;
			agree += (size_t)rc;
		}
		bool confirmed = d == native || same_location(loc, rt->dexes[d].location);
		if (voters && agree == voters)
			dex_vote_take(&whole, d, confirmed);
		else if (voters && dex_vote_carries(agree, voters))
			dex_vote_take(&near, d, confirmed);
	}
	const struct dex_vote *v = whole.d != RT_NONE ? &whole : &near;
	pick = v->d;
	tie = v->tie;
	if (pick != RT_NONE && !tie && loc && !*rt->dexes[pick].location)
		rt->dexes[pick].location = loc;
	if (pick != RT_NONE && !tie && pick == native)
		rt->dex_caches_by_pointer++;
	*pick_out = tie ? RT_NONE : pick;
	/* lost: classes that would name themselves through it have no DEX */
	rt_settle(rt, ANOM_DEX_CACHE, cache, "DexCache's DEX", *pick_out == RT_NONE && voters, &why_native, &why_loc);
	return 0;
}

struct cache_ref {
	uint32_t cache;
	size_t i;
};

static int by_cache(const void *a, const void *b)
{
	const struct cache_ref *x = a, *y = b;
	if (x->cache != y->cache)
		return x->cache < y->cache ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* k's DEX is its DexCache's d, unless k's own indexes disagree with d: then k was damaged
 * (its DexCache's other classes chose d) and waits for repair_dissenters.  0 or <0. */
static int set_class_dex(struct art_runtime *rt, struct rt_class *k, size_t d, struct err *e)
{
	int rc = 1;

	if (d != RT_NONE && dex_class_votes(k) && (rc = class_def_agrees(&rt->dexes[d].dex, &k->raw, e)) < 0)
		return rc;
	k->dex = rc ? d : RT_NONE;
	k->dissent_dex = rc ? RT_NONE : d;
	return 0;
}

/* The descriptor of k's super class in its own DEX ("" for none: java.lang.Object's super),
 * NULL with *why set when unknown. */
static const uint8_t *super_descriptor(const struct art_runtime *rt, const struct rt_class *k, size_t *n,
				       struct err *why)
{
	const uint8_t *s;

	*n = 0;
	if (!k->raw.super_class)
		return (const uint8_t *)"";
	const struct rt_class *sk = k->super == RT_NONE ? NULL : &rt->classes[k->super];
	if (!sk || sk->dex == RT_NONE) {
		ERR_SET(why, ERR_UNSUP, k->addr, "its super class at 0x%x has no known DEX", k->raw.super_class);
		return NULL;
	}
	if (dex_type_descriptor(&rt->dexes[sk->dex].dex, sk->raw.dex_type_idx, &s, n, why))
		return NULL;
	return s;
}

/* Does class_def ci of d fit k: its super class is k's, and no sound class of k's DexCache
 * was loaded from it?  1, 0 (*why says why), <0 error. */
static int class_def_fits(const struct art_runtime *rt, const struct rt_class *k, const struct dex *d, uint32_t ci,
			  struct err *why, struct err *e)
{
	struct dex_class_def def;
	const uint8_t *want, *got = (const uint8_t *)"";
	size_t wn, gn = 0;
	int rc;

	if (ci >= d->class_defs_size)
		return ERR_SET(why, ERR_CORRUPT, k->addr, "class_def %u past the DEX's %u", ci, d->class_defs_size), 0;
	if (!(want = super_descriptor(rt, k, &wn, why)))
		return 0;
	if ((rc = dex_class_def(d, ci, &def, e)) < 0)
		return rc;
	if (def.superclass_idx != 0xffffffffu && dex_type_descriptor(d, def.superclass_idx, &got, &gn, why))
		return 0;
	if (gn != wn || memcmp(got, want, wn))
		return ERR_SET(why, ERR_CORRUPT, k->addr, "class_def %u names another super class", ci), 0;
	for (size_t i = 0; i < rt->class_count; i++) {
		const struct rt_class *o = &rt->classes[i];
		if (o != k && o->raw.dex_cache == k->raw.dex_cache && o->dex != RT_NONE && o->raw.dex_class_def_idx == ci)
			return ERR_SET(why, ERR_CORRUPT, k->addr, "class_def %u is the class at 0x%llx's", ci,
				       (unsigned long long)o->addr), 0;
	}
	return 1;
}

/* A class whose class_def and type indexes disagree with its DexCache's DEX (damage to one of
 * them): the other index, checked by the class_def's super class and by no sound class
 * owning the class_def, gives the pair back (the second source of the fact); otherwise the
 * class has no name or fields from the DEX.  Either way an anomaly says so.  0 or <0. */
static int repair_dissenter(struct art_runtime *rt, struct rt_class *k, struct err *e)
{
	const struct dex *d = &rt->dexes[k->dissent_dex].dex;
	struct dex_class_def def;
	uint32_t ci = k->raw.dex_class_def_idx, ti = k->raw.dex_type_idx, found = 0, fci = 0, fti = 0;
	struct err why;   /* why the last pair tried did not fit, for the anomaly */
	int rc;

	err_init(&why);
	/* trust the class_def index: its class_def names the type */
	if ((rc = class_def_fits(rt, k, d, ci, &why, e)) < 0)
		return rc;
	if (rc && (rc = dex_class_def(d, ci, &def, e)) == 0) {
		found++;
		fci = ci;
		fti = def.class_idx;
	}
	/* trust the type index: the class_def that defines it (class_defs are bounded by the DEX) */
	for (uint32_t c = 0; rc >= 0 && ti < d->type_ids_size && c < d->class_defs_size; c++) {
		if ((rc = dex_class_def(d, c, &def, e)) < 0)
			return rc;
		if (def.class_idx != ti || c == fci)
			continue;
		if ((rc = class_def_fits(rt, k, d, c, &why, e)) < 0)
			return rc;
		if (rc) {
			found++;
			fci = c;
			fti = ti;
		}
	}
	if (found == 1) {
		anomaly_add(&rt->anomalies, ANOM_CLASS, ERR_CORRUPT, k->addr, space_name(rt, k->addr),
			    "class at 0x%llx: class_def %u / type %u disagree with its DexCache's DEX (damage): "
			    "read as class_def %u / type %u, the pair whose super class is the class's",
			    (unsigned long long)k->addr, ci, ti, fci, fti);
		k->raw.dex_class_def_idx = fci;
		k->raw.dex_type_idx = fti;
		k->dex = k->dissent_dex;
	} else {
		anomaly_add(&rt->anomalies, ANOM_CLASS, ERR_CORRUPT, k->addr, space_name(rt, k->addr),
			    "class at 0x%llx: class_def %u / type %u disagree with its DexCache's DEX (damage) "
			    "and %s%s%s: no name or fields from the DEX", (unsigned long long)k->addr, ci, ti,
			    found ? "two pairs fit" : "no other pair fits (", found ? "" : why.msg, found ? "" : ")");
	}
	k->dissent_dex = RT_NONE;
	return 0;
}

static int repair_dissenters(struct art_runtime *rt, struct err *e)
{
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < rt->class_count; i++)
		if (rt->classes[i].dissent_dex != RT_NONE)
			rc = repair_dissenter(rt, &rt->classes[i], e);
	return rc;
}

static int resolve_dex_caches(struct art_runtime *rt, struct err *e)
{
	size_t n = 0;
	int rc = 0;
	struct cache_ref *refs = xcalloc(rt->class_count ? rt->class_count : 1, sizeof(*refs));
	size_t *order = xcalloc(rt->class_count ? rt->class_count : 1, sizeof(*order));
	if (!refs || !order) {
		xfree(refs);
		xfree(order);
		return rt_nomem(e);
	}
	for (size_t i = 0; i < rt->class_count; i++)
		if (rt->classes[i].raw.dex_cache)
			refs[n++] = (struct cache_ref){ rt->classes[i].raw.dex_cache, i };
	qsort(refs, n, sizeof(*refs), by_cache);
	for (size_t i = 0; i < n; i++)
		order[i] = refs[i].i;
	for (size_t lo = 0, hi; rc == 0 && lo < n; lo = hi) {
		size_t d = RT_NONE;
		for (hi = lo + 1; hi < n && refs[hi].cache == refs[lo].cache; hi++)
			;
		if ((rc = resolve_cache(rt, order, lo, hi, &d, e)) < 0)
			break;
		rt->dex_caches++;
		rt->dex_caches_resolved += d != RT_NONE;
		for (size_t i = lo; i < hi && rc == 0; i++)
			rc = set_class_dex(rt, &rt->classes[order[i]], d, e);
	}
	xfree(refs);
	xfree(order);
	return rc ? rc : repair_dissenters(rt, e);
}

/* ---- names ---- */

static int name_class(struct art_runtime *rt, size_t i, unsigned depth, struct wbuf *b, struct err *e);

/* Appends the name from the class's DEX type_ids: 0, 1 if unknown (*why says why when the
 * type does not read), <0 error. */
static int name_from_dex(struct art_runtime *rt, struct rt_class *k, struct wbuf *b, struct err *why,
			 struct err *e)
{
	const uint8_t *s;
	size_t n;
	int rc;

	if (k->dex == RT_NONE)
		return 1;
	if ((rc = dex_type_descriptor(&rt->dexes[k->dex].dex, k->raw.dex_type_idx, &s, &n, why)) == 0)
		rc = mirror_java_name(s, n, b, why);
	if (rc < 0) {
		err_prefix(why, "dex_type_idx %u", k->raw.dex_type_idx);
		return rt_source_failed(rc, why, e);
	}
	k->name_how = "dex";
	rt->dexes[k->dex].classes++;
	return 0;
}

/* Appends Class.name_ when it is set: 0, 1 if unset or unreadable (*why), <0 error. */
static int name_from_string(struct art_runtime *rt, struct rt_class *k, struct wbuf *b, struct err *why,
			    struct err *e)
{
	size_t start = b->len;
	int rc;

	if (!k->raw.name)
		return 1;
	if ((rc = mirror_class_name_string(&rt->m, k->raw.name, RT_MAX_NAME, b, why)) == 0) {
		k->name_how = "name_";
		return 0;
	}
	b->len = start;
	err_prefix(why, "name_");
	return rt_source_failed(rc, why, e);
}

/* Appends the name from name_, else the primitive type, the component type or the DEX:
 * 0, 1 if unknown, <0 error.  Failed reads are settled (recorded) here. */
static int name_sources(struct art_runtime *rt, size_t i, unsigned depth, struct wbuf *b, struct err *e)
{
	struct rt_class *k = &rt->classes[i];
	struct err why_name, why_dex;
	const char *p;
	int rc;

	err_init(&why_name);
	err_init(&why_dex);
	if ((rc = name_from_string(rt, k, b, &why_name, e)) != 1) {
		if (rc < 0)
			return rc;
	} else if ((p = mirror_primitive_name(k->raw.primitive_type & rt->layout->klass.primitive_mask))) {
		wbuf_put(b, p, strlen(p));
		k->name_how = "primitive";
		rc = 0;
	} else if (k->component != RT_NONE && k->component != i) {
		if ((rc = name_class(rt, k->component, depth + 1, b, e)) == 0) {
			wbuf_put(b, "[]", 2);
			k->name_how = "array";
		}
	} else {
		rc = name_from_dex(rt, k, b, &why_dex, e);
	}
	if (rc < 0)
		return rc;
	rt_settle(rt, ANOM_CLASS_NAME, k->addr, "name of class", rc == 1, &why_name, &why_dex);
	return rc;
}

/* Appends the name of class i to b (computing and caching it): 0, 1 if unknown, <0 error.
 * A class is worked out once: an unknown name is not retried (nor its damage recorded
 * again) when an array class of it asks. */
static int name_class(struct art_runtime *rt, size_t i, unsigned depth, struct wbuf *b, struct err *e)
{
	struct rt_class *k = &rt->classes[i];
	size_t start = b->len;
	int rc;

	if (k->name) {
		wbuf_put(b, k->name, strlen(k->name));
		return 0;
	}
	if (k->name_tried || depth > RT_MAX_ARRAY_DEPTH)
		return 1;
	k->name_tried = true;
	if ((rc = name_sources(rt, i, depth, b, e)) != 0)
		return rc;
	if (b->failed)
		return wbuf_status(b, e);
	/* an empty name leaves the buffer unallocated: no offset on a NULL pointer */
	k->name = rt_strdup(rt, b->data ? (const char *)b->data + start : "", b->len - start);
	return k->name ? 0 : rt_nomem(e);
}

static int name_classes(struct art_runtime *rt, struct err *e)
{
	struct wbuf b;
	int rc = 0;

	wbuf_init(&b);
	for (size_t i = 0; i < rt->class_count && rc >= 0; i++) {
		b.len = 0;
		rc = name_class(rt, i, 0, &b, e);
	}
	if (rc >= 0)
		rc = wbuf_status(&b, e);
	wbuf_release(&b);
	return rc < 0 ? rc : 0;
}

/* ---- field linking (runtime/class_linker.cc LinkFields) ----
 *
 * Three rules, one per art_field_link value of the layout row, read from LinkFields and
 * LinkFieldsComparator at each release:
 *   android-5.0.0_r5 (73b774ed): references, then long/double, then every other primitive,
 *     each group sorted by field name (strcmp); references and every non-64-bit primitive
 *     take 4 bytes (a byte or boolean field too); if the offset after the references is not
 *     8-aligned, the first non-64-bit primitive of the sorted list fills that word, else it
 *     is padding.
 *   android-5.1.0_r1 (170ecf55; LinkFields unchanged on the 5.1.1 branch): as 5.0, but sorted
 *     by size (larger first), then Primitive::Type, then dex field index.
 *   android-6.0.1_r22 (8d5c5f43) and later (@R11 identical): same order as 5.1; references
 *     are 4-aligned, each primitive takes its own size at its own alignment
 *     (ShuffleForward<8,4,2,1>), and alignment padding becomes gaps (AddFieldGap) that the
 *     later, smaller fields fill, largest gap first.
 *   12 and later (platform/art c7993d55b2 "Rewrite ClassLinker::LinkFields()", 2021-01-27,
 *     oat 190; LinkFieldsHelper @R12S..R16): same order and alignment, but at most one gap of
 *     each size 1, 2 and 4 is kept (FieldGaps), only one 4-byte field may take the 4-byte
 *     gap, and a 2- or 1-byte field takes the smallest gap that holds it: "prefer small gaps
 *     over big ones".  Two booleans after a 4-byte gap at 28 lie at 28 and 29 (6.0-11: 28
 *     and 30, the 2-byte rest of the gap being larger than the 1-byte one).
 * The generator in tests/synth follows the same source; test_synth_classes.sh compares the
 * two on every family.  In both 5.x rules equal sort keys cannot happen within one class
 * except for same-named fields of different types (obfuscated bytecode): the dex field
 * index (name, then type) breaks the tie. */

struct gap { uint32_t start, size; };
struct gaps { struct gap v[32]; unsigned n; };

static void gap_push(struct gaps *g, uint32_t start, uint32_t size)
{
	if (g->n < sizeof(g->v) / sizeof(g->v[0]))
		g->v[g->n++] = (struct gap){ start, size };
}

/* AddFieldGap: split [start, end) into the largest aligned 4/2/1-byte pieces. */
static void gap_add(struct gaps *g, uint32_t start, uint32_t end)
{
	while (start < end) {
		uint32_t left = end - start, piece = left >= 4 && start % 4 == 0 ? 4 : left >= 2 && start % 2 == 0 ? 2 : 1;
		gap_push(g, start, piece);
		start += piece;
	}
}

/* The priority queue's top: the largest gap, the lowest offset among equals. */
static int gap_top(const struct gaps *g)
{
	int best = -1;
	for (unsigned i = 0; i < g->n; i++)
		if (best < 0 || g->v[i].size > g->v[best].size ||
		    (g->v[i].size == g->v[best].size && g->v[i].start < g->v[best].start))
			best = (int)i;
	return best;
}

/* LinkFieldsComparator groups, 5.1+: references, then J D, I F, C S, Z B (larger first;
 * within a size by Primitive::Type order).  5.0: references, then J and D together, then
 * all the others together. */
static unsigned link_group(enum art_field_link rule, uint8_t t)
{
	static const char order[] = "JDIFCSZB";
	const char *p = t ? strchr(order, t) : NULL;
	if (!p)
		return 0; /* 'L', '[' (and anything else: a reference-sized slot) */
	if (rule == ART_LINK_5_0)
		return p - order < 2 ? 1 : 2;
	return 1 + (unsigned)(p - order);
}

struct link_item { unsigned group; uint32_t dex_idx, i; };

static int by_link_order(const void *a, const void *b)
{
	const struct link_item *x = a, *y = b;
	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	if (x->dex_idx != y->dex_idx)
		return x->dex_idx < y->dex_idx ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* 5.x: it[k..n) are the primitives in sorted order; 4-byte slots, one of them moved
 * forward to 8-align the 64-bit fields.  Returns the end offset. */
static uint32_t link_slots_5x(const struct link_item *it, uint32_t k, uint32_t n, const uint8_t *type0,
			      uint32_t off, uint32_t *offsets)
{
	uint32_t filler = n;
	if (k < n && off % 8) {
		for (uint32_t j = k; j < n && filler == n; j++)
			if (mirror_field_size(type0[it[j].i]) != 8)
				filler = j;
		if (filler < n)
			offsets[it[filler].i] = off;
		off += 4;
	}
	for (; k < n; k++) {
		if (k == filler)
			continue;
		offsets[it[k].i] = off;
		off += mirror_field_size(type0[it[k].i]) == 8 ? 8 : 4;
	}
	return off;
}

/* 6.0+: ShuffleForward<8>, <4>, <2>, <1> over it[k..n).  Returns the end offset. */
static uint32_t link_shuffle(const struct link_item *it, uint32_t k, uint32_t n, const uint8_t *type0,
			     uint32_t off, struct gaps *g, uint32_t *offsets)
{
	for (uint32_t width = 8; width >= 1; width /= 2) {
		for (; k < n && mirror_field_size(type0[it[k].i]) >= width; k++) {
			if (off % width) {
				uint32_t up = (off + width - 1) & ~(width - 1);
				gap_add(g, off, up);
				off = up;
			}
			int t = gap_top(g);
			if (t >= 0 && g->v[t].size >= width) {
				struct gap gp = g->v[t];
				g->v[t] = g->v[--g->n];
				offsets[it[k].i] = gp.start;
				if (gp.size > width)
					gap_add(g, gp.start + width, gp.start + gp.size);
			} else {
				offsets[it[k].i] = off;
				off += width;
			}
		}
	}
	return off;
}

/* 12+: FieldGaps keeps one gap of each size 1, 2, 4 (at[0..2]), each aligned to its size. */
struct size_gaps { uint32_t at[3]; };
#define NO_GAP UINT32_MAX

/* AddGaps: [start, end) with end aligned to the next field's size, cut at start's low bits. */
static void size_gaps_add(struct size_gaps *g, uint32_t start, uint32_t end)
{
	for (unsigned k = 0; k < 3 && start < end; k++)
		if (start & (1u << k)) {
			g->at[k] = start;
			start += 1u << k;
		}
}

/* HasGap<width>: a gap of width or more (only the 4-byte gap for a 4-byte field). */
static int size_gaps_find(const struct size_gaps *g, uint32_t width)
{
	for (unsigned k = width == 4 ? 2 : width == 2 ? 1 : 0; k < 3; k++)
		if (g->at[k] != NO_GAP)
			return (int)k;
	return -1;
}

/* ReleaseGap<width>: the smallest gap that holds it; the rest of a larger gap is kept. */
static uint32_t size_gaps_take(struct size_gaps *g, unsigned k, uint32_t width)
{
	uint32_t at = g->at[k];
	g->at[k] = NO_GAP;
	size_gaps_add(g, at + width, at + (1u << k));
	return at;
}

static uint32_t size_gaps_align(struct size_gaps *g, uint32_t off, uint32_t width)
{
	uint32_t up = (off + width - 1) & ~(width - 1);
	if (up != off)
		size_gaps_add(g, off, up);
	return up;
}

/* 12+: it[k..n) are the primitives in sorted order, off is past the references.  8-byte
 * fields never take a gap, the first 4-byte field takes the 4-byte gap if there is one, the
 * 2- and 1-byte fields fill gaps while any holds them.  Returns the end offset. */
static uint32_t link_size_gaps(const struct link_item *it, uint32_t k, uint32_t n, const uint8_t *type0,
			       uint32_t off, struct size_gaps *g, uint32_t *offsets)
{
	for (uint32_t width = 8; width >= 1; width /= 2) {
		if (k == n || mirror_field_size(type0[it[k].i]) != width)
			continue;
		if (width > 1)
			off = size_gaps_align(g, off, width);
		for (int first = 1; k < n && mirror_field_size(type0[it[k].i]) == width; k++, first = 0) {
			int gk = width == 8 || (width == 4 && !first) ? -1 : size_gaps_find(g, width);
			if (gk >= 0) {
				offsets[it[k].i] = size_gaps_take(g, (unsigned)gk, width);
			} else {
				offsets[it[k].i] = off;
				off += width;
			}
		}
	}
	return off;
}

int runtime_link_fields(enum art_field_link rule, const uint8_t *type0, const uint32_t *dex_idx, uint32_t n,
			uint32_t start, uint32_t *offsets, uint32_t *size, uint32_t *refs, struct err *e)
{
	struct link_item *it = xcalloc(n ? n : 1, sizeof(*it));
	struct gaps g = { .n = 0 };
	uint32_t off = start, k = 0;

	if (!it)
		return rt_nomem(e);
	for (uint32_t i = 0; i < n; i++)
		it[i] = (struct link_item){ link_group(rule, type0[i]), dex_idx[i], i };
	qsort(it, n, sizeof(*it), by_link_order);
	*refs = 0;
	struct size_gaps sg = { { NO_GAP, NO_GAP, NO_GAP } };
	for (; k < n && it[k].group == 0; k++) {
		if (rule == ART_LINK_GAPS && off % 4) {
			off = size_gaps_align(&sg, off, 4);
		} else if (rule == ART_LINK_SHUFFLE && off % 4) {
			gap_add(&g, off, (off + 3) & ~3u);
			off = (off + 3) & ~3u;
		}
		offsets[it[k].i] = off;
		off += 4;
		++*refs;
	}
	if (rule == ART_LINK_GAPS)
		*size = link_size_gaps(it, k, n, type0, off, &sg, offsets);
	else if (rule == ART_LINK_SHUFFLE)
		*size = link_shuffle(it, k, n, type0, off, &g, offsets);
	else
		*size = link_slots_5x(it, k, n, type0, off, offsets);
	xfree(it);
	return 0;
}

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
		anomaly_add(&rt->anomalies, ANOM_FIELDS, why->code, class_addr, space_name(rt, class_addr),
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

	if ((rc = class_def_agrees(d, &k->raw, e)) <= 0)
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

static int decode_fields(struct art_runtime *rt, struct err *e)
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
static int settle_field_link_row(struct art_runtime *rt, struct err *e)
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
static int settle_class_loader_row(struct art_runtime *rt, struct err *e)
{
	const struct rt_class *k = NULL;
	uint32_t parent = RT_OFFSET_UNKNOWN;

	if (rt->layout_by_version)
		return 0;
	for (size_t i = 0; i < rt->class_count && !k; i++)
		if (rt->classes[i].name && !strcmp(rt->classes[i].name, "java.lang.ClassLoader"))
			k = &rt->classes[i];
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

int runtime_open(struct art_runtime *rt, const struct image *img, const struct runtime_opts *o, struct err *e)
{
	int rc;

	memset(rt, 0, sizeof(*rt));
	rt->img = img;
	arena_init(&rt->arena);
	anomaly_init(&rt->anomalies, o ? o->anomaly_keep : 0);
	if (img->cut_regions)
		anomaly_add(&rt->anomalies, ANOM_CAPTURE, ERR_TRUNC, img->cut_first_va, "",
			    "%s is cut short: %zu regions from 0x%llx lack %llu bytes its headers list (read as "
			    "not captured)", img->path, img->cut_regions, (unsigned long long)img->cut_first_va,
			    (unsigned long long)img->cut_bytes);
	rc = spaces_find(&rt->spaces, img, 0, o ? o->probes : NULL, e);
	if (rc == 0)
		rc = find_images(rt, e);
	if (rc == 0)
		rc = find_files(rt, e);
	if (rc == 0 && o && o->art_version)
		rc = layout_from_option(rt, o->art_version, e);
	if (rc == 0 && !rt->layout)
		rc = layout_from_images(rt, e);
	if (rc == 0 && !rt->layout)
		rc = layout_from_oat(rt, e);
	if (rc == 0)
		rc = find_jlc(rt, e);
	if (rc == 0) {
		rt->m = (struct mirror){ img, rt->layout, 8 };
		rc = for_each_chunk(rt, false, collect_classes, NULL, e);
	}
	if (rc == 0) {
		if (rt->class_count > 1) /* none when every Class is a forwarded copy: classes is NULL */
			qsort(rt->classes, rt->class_count, sizeof(rt->classes[0]), by_addr);
		if (rt->class_count > UINT32_MAX - 1)
			rc = ERR_SET(e, ERR_UNSUP, ERR_NO_VA, "%zu classes: more than the model holds", rt->class_count);
		else
			rc = hash_classes(rt, e);
	}
	if (rc == 0)
		rc = recover_damaged_classes(rt, e);
	if (rc == 0) {
		link_classes(rt);
		choose_pointer_size(rt);
		rt->m.pointer_size = rt->pointer_size;
		if (!rt->pointer_how)
			rc = rt_nomem(e);
	}
	if (rc == 0)
		rc = resolve_dex_caches(rt, e);
	if (rc == 0)
		rc = name_classes(rt, e);
	if (rc == 0)
		rc = decode_fields(rt, e);
	if (rc == 0)
		rc = settle_field_link_row(rt, e);
	if (rc == 0)
		rc = settle_class_loader_row(rt, e);
	if (rc == 0)
		rc = anomaly_status(&rt->anomalies, e);
	if (rc)
		runtime_close(rt);
	return rc;
}

void runtime_close(struct art_runtime *rt)
{
	spaces_release(&rt->spaces);
	xfree(rt->images);
	xfree(rt->dexes);
	xfree(rt->files);
	xfree(rt->classes);
	xfree(rt->class_hash);
	arena_release(&rt->arena);
	anomaly_release(&rt->anomalies);
	memset(rt, 0, sizeof(*rt));
}

/* By name; else (the name lost to damage or to bytes not captured) the one class whose
 * class_flags_ say String: kClassFlagString = 0x4 (runtime/class_flags.h @R11; 7.0+). */
size_t runtime_string_class(const struct art_runtime *rt)
{
	size_t found = RT_NONE;
	for (size_t i = 0; i < rt->class_count; i++)
		if (rt->classes[i].name && !strcmp(rt->classes[i].name, "java.lang.String"))
			return i;
	if (!rt->layout || rt->layout->klass.class_flags == ART_ABSENT)
		return RT_NONE;
	for (size_t i = 0; i < rt->class_count; i++) {
		const struct rt_class *k = &rt->classes[i];
		if (!(k->raw.class_flags & 0x4u) || k->raw.component_type || (k->name && strcmp(k->name, "java.lang.String")))
			continue;
		if (found != RT_NONE)
			return RT_NONE;   /* two: the flags do not tell */
		found = i;
	}
	return found;
}
