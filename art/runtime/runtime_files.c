/* runtime_files.c - the image spaces and the DEX, OAT and VDEX files the image maps. */
#include "art/runtime/runtime.h"

#include <string.h>

#include "art/format/art_image.h"
#include "art/runtime/runtime_int.h"
#include "carver/base/xalloc.h"

/* ---- image spaces ---- */

/* An image space whose ImageHeader cannot be read is recorded and left out. */
int rt_find_images(struct art_runtime *rt, struct err *e)
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
			anomaly_add_err(&rt->anomalies, ANOM_IMAGE_HEADER, rt_space_name(rt, s->begin), &why);
			continue;
		}
		if (!art_layout_for_image(h.fmt)) {
			anomaly_add(&rt->anomalies, ANOM_IMAGE_HEADER, ERR_UNSUP, s->begin, rt_space_name(rt, s->begin),
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
		if (dex_load(&d, &c, &why) != 0) {   /* a DEX cut by the capture, or overwritten */
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

int rt_find_files(struct art_runtime *rt, struct err *e)
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
