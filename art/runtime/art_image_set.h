/* art_image_set.h - the images and DEX files an image walk may need from one folder.
 *
 * A boot image component or an app image refers to classes of other images (the primary
 * boot image, the boot image of an app); their class names come from the DEX files of the
 * matching OAT (Android 5.0-7.1) or VDEX (8.0+).  An art_image_set maps the image under
 * study plus every other image of the same version and pointer size found in its folder,
 * and every OAT/ODEX there (with its VDEX), and answers "which DEX has this location".
 *
 * Every file is loaded as a region of a struct image (carver/image/image.h): each file is
 * its own image at address 0 (addresses are file offsets), and `view` is one address space
 * holding every loaded image at its image_begin, the way the runtime maps them; objects are
 * read only through `view` with the mirror decoder (`m`, art/mirror/mirror.h). */
#ifndef ARTCARVE_ART_IMAGE_SET_H
#define ARTCARVE_ART_IMAGE_SET_H

#include <stdbool.h>
#include <stddef.h>

#include "art/format/art_image.h"
#include "art/format/dex.h"
#include "art/mirror/mirror.h"
#include "art/mirror/mirror_walk.h"
#include "carver/base/anomaly.h"
#include "carver/base/err.h"
#include "carver/base/htab.h"
#include "carver/image/image.h"

struct art_set_image {
	char *path;
	struct image *file;          /* the file (container "file", at address 0) */
	struct art_image img;        /* decoded from the file; data is a region of the set's view */
};

struct art_set_dex {
	char *location;              /* OatDexFile location, NUL-terminated */
	const char *container;       /* the OAT it was found in (path) */
	struct dex dex;
	bool used;                   /* a class was named through it */
};

struct art_set_oat;

struct art_image_set {
	struct art_set_image *images;   /* [0] is the image under study */
	size_t image_count;
	struct image view;              /* every loaded image at its image_begin (container "memory") */
	struct mirror m;                /* over view, with the layout of art_image_set_layout */
	struct art_set_dex *dexes;
	size_t dex_count;
	struct art_set_oat **oats;
	size_t oat_count;
	/* dex locations asked for and not found (distinct, for the report) */
	char **missing;
	size_t missing_count;
	/* files of the folder left out because they do not read (images, OAT/VDEX files, the
	 * DEX files in an OAT), and DexCaches whose location_ is damaged */
	struct anomaly_sink anomalies;
	/* for the lookup */
	const uint32_t *own_dex_caches;
	size_t own_count;
	/* DexCache -> dex + 1 (0: not found), hashed: a class count of lookups stays linear
	 * however many DexCaches a hostile image names */
	struct htab memo;
};

/* Maps and loads path as images[0].  On error the set is released. */
int art_image_set_open(struct art_image_set *s, const char *path, struct err *e);
/* Adds the other images of path's folder with the same version and pointer size that do
 * not overlap a loaded one (files that fail to load are skipped), and the DEX files of
 * every OAT/ODEX there.  Returns 0 or -ERR_NOMEM/-ERR_IO. */
int art_image_set_add_folder(struct art_image_set *s, struct err *e);
void art_image_set_release(struct art_image_set *s);

/* Sets the layout the mirror decoder (s->m) reads the images with; pointer size from
 * images[0]'s header (4 when the header has none, 5.x). */
void art_image_set_layout(struct art_image_set *s, const struct art_layout *lay);
/* Tells the set the DexCache objects of images[0] (from its walk), for
 * art_image_set_lookup. */
void art_image_set_bind(struct art_image_set *s, const uint32_t *own_dex_caches, size_t own_count);
/* mw_dex_lookup_fn over the set (ctx = the set); 1 found, 0 not, <0 corrupt.  The
 * DexCache's location_ string picks the DEX with that location (else the same file name in
 * another directory).  When the
 * string lives in an image that is not loaded (a boot image component whose strings are
 * in the primary image), the k-th DexCache object of images[0] is the k-th DEX of the OAT
 * with the image's own name (X.art -> X.oat/X.odex), provided the counts agree. */
int art_image_set_lookup(void *ctx, uint32_t dex_cache, const struct dex **out, struct err *e);
/* 1 when the DexCache's DEX is in the set, 0 when not (nothing is recorded as missing),
 * <0 for a corrupt DexCache or location string. */
int art_image_set_has_dex(struct art_image_set *s, uint32_t dex_cache, struct err *e);
/* 1 when the Class at klass is loaded, has a DexCache and that DexCache's DEX is in the
 * set; 0 otherwise; <0 as art_image_set_has_dex. */
int art_image_set_class_has_dex(struct art_image_set *s, uint32_t klass, struct err *e);

#endif
