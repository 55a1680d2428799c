/* art_image_set.c - see art_image_set.h. */
#include "art/runtime/art_image_set.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "art/format/oat.h"
#include "art/format/vdex.h"
#include "art/mirror/mirror.h"
#include "carver/base/xalloc.h"

/* an OAT kept open while its DEX files are in use */
struct art_set_oat {
	struct image oat_file, vdex_file;
	struct vdex vdex;
	bool has_vdex;
	struct oat oat;
	bool open;
};

enum {
	SET_MAX_FILES = 4096,    /* bound on the folder entries considered */
	SET_MAX_LOCATION = 4096, /* longest DexCache.location_ string read */
};

static char *dup_str(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);

	if (p) {
		memcpy(p, s, n);
		p[n] = 0;
	}
	return p;
}

static int nomem(struct err *e) { return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "image set: out of memory"); }

/* Maps the file and decodes the image in it. */
static int load_image(struct art_set_image *im, const char *path, struct err *e)
{
	struct cursor whole;
	int rc;

	if ((rc = img_from_file(im->file, path, 0, &whole, e)))
		return rc;
	return art_image_load(&im->img, whole.base, whole.len, e);
}

/* Puts a decoded image into the view at its image_begin: 0, or 1 when it is not of the
 * kind of images[0] or overlaps an image already there. */
static int place_image(struct art_image_set *s, struct art_set_image *im, const char *path, struct err *e)
{
	const struct art_image_header *h0 = &s->images[0].img.h;
	int rc;

	if (s->image_count > 0 &&
	    (im->img.h.version != h0->version || im->img.h.pointer_size != h0->pointer_size))
		return 1;
	rc = art_image_map(&s->view, &im->img, path, e);
	if (rc == -ERR_CORRUPT && s->image_count > 0)
		return 1;
	return rc;
}

/* Loads path; 1 added, 0 skipped (not an image of the same kind, or overlapping), <0 error
 * (only when want_errors: for images[0]). */
static int add_image(struct art_image_set *s, const char *path, bool want_errors, struct err *e)
{
	struct art_set_image *im, *grown;
	struct err why;
	struct err *ee = want_errors ? e : &why;
	int rc;

	grown = xreallocarray(s->images, s->image_count + 1, sizeof(*grown));
	if (!grown)
		return nomem(e);
	s->images = grown;
	im = &s->images[s->image_count];
	memset(im, 0, sizeof(*im));
	im->path = dup_str(path, strlen(path));
	im->file = xcalloc(1, sizeof(*im->file));
	if (!im->path || !im->file) {
		xfree(im->path);
		xfree(im->file);
		return nomem(e);
	}
	err_init(&why);
	rc = load_image(im, path, ee);
	if (!rc)
		rc = place_image(s, im, path, ee);
	if (rc) {
		art_image_release(&im->img);
		img_close(im->file);
		xfree(im->file);
		xfree(im->path);
		if (rc < 0 && want_errors)
			return err_prefix(e, "%s", path);
		if (rc == -ERR_NOMEM)
			return (*e = why, rc);
		if (rc < 0)   /* a folder image that fails is left out, and recorded */
			anomaly_add_err(&s->anomalies, ANOM_IMAGE_HEADER, path, &why);
		return 0;
	}
	s->image_count++;
	return 1;
}

int art_image_set_open(struct art_image_set *s, const char *path, struct err *e)
{
	int rc;

	memset(s, 0, sizeof(*s));
	anomaly_init(&s->anomalies, 0);
	img_init_empty(&s->view, path);
	rc = add_image(s, path, true, e);
	if (rc < 0) {
		art_image_set_release(s);
		return rc;
	}
	return 0;
}

static bool has_suffix(const char *name, const char *suffix)
{
	size_t n = strlen(name), m = strlen(suffix);

	return n > m && !strcmp(name + n - m, suffix);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void free_names(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		xfree(names[i]);
	xfree(names);
}

/* Sorted "dir/name" paths of the folder entries ending in one of the suffixes. */
static int list_folder(const char *dir, const char *const *suffixes, char ***out, size_t *count, struct err *e)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **names = NULL;
	size_t n = 0;

	*out = NULL;
	*count = 0;
	if (!d)
		return 0; /* an unreadable folder just adds nothing */
	while ((de = readdir(d)) != NULL && n < SET_MAX_FILES) {
		bool match = false;
		char **grown;
		size_t len;
		for (const char *const *sx = suffixes; *sx; sx++)
			match |= has_suffix(de->d_name, *sx);
		if (!match)
			continue;
		grown = xreallocarray(names, n + 1, sizeof(*names));
		if (!grown)
			goto oom;
		names = grown;
		len = strlen(dir) + strlen(de->d_name) + 2;
		if (!(names[n] = xmalloc(len)))
			goto oom;
		snprintf(names[n++], len, "%s/%s", dir, de->d_name);
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_str);
	*out = names;
	*count = n;
	return 0;
oom:
	closedir(d);
	free_names(names, n);
	return nomem(e);
}

static char *folder_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return dup_str(".", 1);
	return dup_str(path, slash == path ? 1 : (size_t)(slash - path));
}

static void close_oat(struct art_set_oat *o)
{
	if (o->open)
		oat_close(&o->oat);
	img_close(&o->oat_file);
	img_close(&o->vdex_file);
	memset(o, 0, sizeof(*o));
}

/* An OAT or VDEX of the folder that does not read: -ERR_NOMEM is returned, anything else is
 * recorded and the file left out (0). */
static int oat_left_out(struct art_image_set *s, int rc, const char *path, const struct err *why, struct err *e)
{
	if (rc == -ERR_NOMEM)
		return (*e = *why, rc);
	anomaly_add_err(&s->anomalies, ANOM_OAT_FILE, path, why);
	return 0;
}

/* Opens an OAT (with its VDEX when there is one) and adds its DEX files. */
static int add_oat(struct art_image_set *s, const char *path, struct err *e)
{
	struct art_set_oat *o, **grown;
	struct cursor oat_bytes, vdex_bytes;
	char vpath[4096];
	struct err why;
	int rc;

	grown = xreallocarray(s->oats, s->oat_count + 1, sizeof(*grown));
	if (!grown)
		return nomem(e);
	s->oats = grown;
	/* separately allocated: struct oat may keep pointers to its vdex */
	if (!(o = xcalloc(1, sizeof(*o))))
		return nomem(e);
	s->oats[s->oat_count] = o;
	err_init(&why);
	if ((rc = img_from_file(&o->oat_file, path, 0, &oat_bytes, &why)) < 0) {
		xfree(o);
		return oat_left_out(s, rc, path, &why, e);
	}
	/* a VDEX beside it that exists and does not read is recorded; the OAT is used without it */
	if (oat_vdex_path_for(path, vpath, sizeof(vpath)) && access(vpath, R_OK) == 0) {
		if ((rc = img_from_file(&o->vdex_file, vpath, 0, &vdex_bytes, &why)) == 0)
			rc = vdex_parse(&o->vdex, &vdex_bytes, &why);
		o->has_vdex = rc == 0;
		if (rc < 0 && (rc = oat_left_out(s, rc, vpath, &why, e)) < 0) {
			close_oat(o);
			xfree(o);
			return rc;
		}
	}
	if ((rc = oat_open(&o->oat, oat_bytes.base, oat_bytes.len, path, o->has_vdex ? &o->vdex : NULL, &why)) < 0) {
		close_oat(o);
		xfree(o);
		return oat_left_out(s, rc, path, &why, e);
	}
	o->open = true;
	s->oat_count++;
	for (size_t i = 0; i < o->oat.dex_file_count; i++) {
		const struct oat_dex_file *df = &o->oat.dex_files[i];
		struct art_set_dex *d, *dg;
		if (df->dex.len == 0)
			continue;
		dg = xreallocarray(s->dexes, s->dex_count + 1, sizeof(*dg));
		if (!dg)
			return nomem(e);
		s->dexes = dg;
		d = &s->dexes[s->dex_count];
		memset(d, 0, sizeof(*d));
		if (dex_load(&d->dex, &df->dex, &why)) {   /* a damaged DEX names nothing */
			anomaly_add_err(&s->anomalies, ANOM_DEX, path, &why);
			continue;
		}
		if (!(d->location = dup_str((const char *)df->location, df->location_len)))
			return nomem(e);
		d->container = o->oat_file.path;
		s->dex_count++;
	}
	return 0;
}

int art_image_set_add_folder(struct art_image_set *s, struct err *e)
{
	static const char *const image_sfx[] = { ".art", NULL };
	static const char *const oat_sfx[] = { ".oat", ".odex", NULL };
	char *dir, **names = NULL;
	size_t n = 0;
	int rc;

	if (s->image_count == 0)
		return 0;
	if (!(dir = folder_of(s->images[0].path)))
		return nomem(e);
	rc = list_folder(dir, image_sfx, &names, &n, e);
	for (size_t i = 0; rc == 0 && i < n; i++)
		if (strcmp(names[i], s->images[0].path))
			rc = add_image(s, names[i], false, e) < 0 ? -ERR_NOMEM : 0;
	free_names(names, n);
	if (rc == 0)
		rc = list_folder(dir, oat_sfx, &names, &n, e);
	for (size_t i = 0; rc == 0 && i < n; i++)
		rc = add_oat(s, names[i], e);
	if (rc == 0)
		free_names(names, n);
	xfree(dir);
	return rc;
}

void art_image_set_release(struct art_image_set *s)
{
	for (size_t i = 0; i < s->image_count; i++) {
		art_image_release(&s->images[i].img);
		img_close(s->images[i].file);
		xfree(s->images[i].file);
		xfree(s->images[i].path);
	}
	img_close(&s->view);
	for (size_t i = 0; i < s->dex_count; i++)
		xfree(s->dexes[i].location);
	for (size_t i = 0; i < s->oat_count; i++) {
		close_oat(s->oats[i]);
		xfree(s->oats[i]);
	}
	for (size_t i = 0; i < s->missing_count; i++)
		xfree(s->missing[i]);
	xfree(s->missing);
	htab_release(&s->memo);
	xfree(s->images);
	img_close(&s->view);
	xfree(s->dexes);
	xfree(s->oats);
	anomaly_release(&s->anomalies);
	memset(s, 0, sizeof(*s));
}

/* "core-oj.jar:classes2.dex" -> the part after the last '/' */
static const char *base_name(const char *p, size_t len, size_t *blen)
{
	const char *b = p;

	for (size_t i = 0; i < len; i++)
		if (p[i] == '/')
			b = p + i + 1;
	*blen = len - (size_t)(b - p);
	return b;
}

static void note_missing(struct art_image_set *s, const char *loc, size_t len)
{
	char **grown;

	for (size_t i = 0; i < s->missing_count; i++)
		if (strlen(s->missing[i]) == len && !memcmp(s->missing[i], loc, len))
			return;
	grown = xreallocarray(s->missing, s->missing_count + 1, sizeof(*grown));
	if (!grown)
		return; /* the report only loses one missing name */
	s->missing = grown;
	if ((s->missing[s->missing_count] = dup_str(loc, len)) != NULL)
		s->missing_count++;
}

void art_image_set_layout(struct art_image_set *s, const struct art_layout *lay)
{
	unsigned p = s->image_count ? s->images[0].img.h.pointer_size : 0;

	s->m = (struct mirror){ &s->view, lay, p == 8 ? 8 : 4 };
	htab_clear(&s->memo);
}

void art_image_set_bind(struct art_image_set *s, const uint32_t *own_dex_caches, size_t own_count)
{
	s->own_dex_caches = own_dex_caches;
	s->own_count = own_count;
	htab_clear(&s->memo);
}

static long by_location(const struct art_image_set *s, const char *location, size_t len)
{
	size_t blen, dblen;
	const char *b = base_name(location, len, &blen);

	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < s->dex_count; i++) {
			const char *dl = s->dexes[i].location, *db = base_name(dl, strlen(dl), &dblen);
			bool hit = pass == 0 ? strlen(dl) == len && !memcmp(dl, location, len)
					     : dblen == blen && !memcmp(db, b, blen);
			if (hit)
				return (long)i;
		}
	}
	return -1;
}

/* "DIR/X.art" and "DIR/X.oat" (or .odex) share the stem X */
static bool same_stem(const char *image_path, const char *oat_path)
{
	const char *a = strrchr(image_path, '/'), *b = strrchr(oat_path, '/');
	size_t la, lb;

	a = a ? a + 1 : image_path;
	b = b ? b + 1 : oat_path;
	la = strrchr(a, '.') ? (size_t)(strrchr(a, '.') - a) : strlen(a);
	lb = strrchr(b, '.') ? (size_t)(strrchr(b, '.') - b) : strlen(b);
	return la == lb && !memcmp(a, b, la);
}

/* The k-th own DexCache -> the k-th DEX of the image's own OAT, when the counts agree. */
static long by_own_order(const struct art_image_set *s, uint32_t dex_cache)
{
	size_t k = 0, first = 0, n = 0;
	const char *own_oat = NULL;

	while (k < s->own_count && s->own_dex_caches[k] != dex_cache)
		k++;
	if (k == s->own_count)
		return -1;
	for (size_t i = 0; i < s->dex_count; i++) {
		if (!same_stem(s->images[0].path, s->dexes[i].container))
			continue;
		if (!own_oat) {
			own_oat = s->dexes[i].container;
			first = i;
		}
		n += s->dexes[i].container == own_oat;
	}
	return own_oat && n == s->own_count ? (long)(first + k) : -1;
}

/* The DEX of the DexCache at dex_cache: *d = its index, -1 when it is not in the set.
 * The DexCache's location_ string picks it when loaded, else its rank among the image's
 * own DexCaches.  Returns 0 or <0 (a corrupt DexCache or location string). */
static int find_dex(struct art_image_set *s, uint32_t dex_cache, bool record, long *d, struct err *e)
{
	struct mirror_dex_cache dc = { .location = 0 };
	struct wbuf loc;
	int rc;

	*d = -1;
	if (mirror_readable(&s->m, dex_cache, s->m.l->dex_cache.size) &&
	    (rc = mirror_dex_cache_read(&s->m, dex_cache, &dc, e)))
		return rc;
	if (dc.location && mirror_string_loaded(&s->m, dc.location)) {
		wbuf_init(&loc);
		rc = mirror_string(&s->m, dc.location, SET_MAX_LOCATION, &loc, e);
		if (rc == 0) {
			*d = by_location(s, (const char *)loc.data, loc.len);
			if (*d < 0 && record)
				note_missing(s, (const char *)loc.data, loc.len);
		}
		wbuf_release(&loc);
		return rc ? err_prefix(e, "dex cache at 0x%x: location_", dex_cache) : 0;
	}
	*d = by_own_order(s, dex_cache);
	if (*d < 0 && record) {
		char what[64];
		snprintf(what, sizeof(what), "(DexCache 0x%x, location not loaded)", dex_cache);
		note_missing(s, what, strlen(what));
	}
	return 0;
}

int art_image_set_has_dex(struct art_image_set *s, uint32_t dex_cache, struct err *e)
{
	long d = -1;
	int rc;

	if (!s->m.l)
		return 0;
	if ((rc = find_dex(s, dex_cache, false, &d, e)))
		return rc;
	return d >= 0;
}

int art_image_set_class_has_dex(struct art_image_set *s, uint32_t klass, struct err *e)
{
	struct mirror_class c;
	int rc;

	if (!s->m.l || !klass || !mirror_readable(&s->m, klass, s->m.l->klass.size))
		return 0;
	if ((rc = mirror_class_read(&s->m, klass, &c, e)))
		return rc;
	return c.dex_cache ? art_image_set_has_dex(s, c.dex_cache, e) : 0;
}

/* Remembers dex_cache -> d; without memory it is only not remembered (found again next time). */
static void memo_put(struct art_image_set *s, uint32_t dex_cache, long d)
{
	if (d >= -1 && (unsigned long)(d + 1) <= HTAB_VAL_MAX)   /* stored + 1: -1 is "not found" */
		(void)htab_put(&s->memo, dex_cache, (uint32_t)(d + 1));
}

int art_image_set_lookup(void *ctx, uint32_t dex_cache, const struct dex **out, struct err *e)
{
	struct art_image_set *s = ctx;
	uint32_t known;
	long d;
	int rc;

	if (!s->m.l || !dex_cache)
		return 0;
	if (htab_get(&s->memo, dex_cache, &known)) {
		d = (long)known - 1;
	} else {
		if ((rc = find_dex(s, dex_cache, true, &d, e)))
			return rc;
		memo_put(s, dex_cache, d);
	}
	if (d < 0)
		return 0;
	s->dexes[d].used = true;
	*out = &s->dexes[d].dex;
	return 1;
}
