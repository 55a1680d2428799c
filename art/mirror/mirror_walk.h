/* mirror_walk.h - walks the objects section of an ART image object by object and names
 * its classes.
 *
 * A walk starts at the first 8-aligned offset after the ImageHeader and steps by each
 * object's size rounded up to 8 (ImageHeader::VisitObjects, runtime/image.cc @ android-10):
 * Class objects by their class_size_, strings by count_ (with the compression flag from
 * 8.0), arrays by length * component size after the data offset, everything else by its
 * class's object_size_.  It must end exactly at the end of the objects section.
 *
 * Memory is read only through the mirror decoder (art/mirror/mirror.h) over one struct
 * image that holds every image loaded for the walk (boot image components, the boot image
 * of an app image) as regions at their image_begin; the image walked must be one of them.
 * A class pointer whose Class is not captured there is "unresolved"; such an object is
 * sized by the image's live bitmap (the next object start) and counted, never guessed. */
#ifndef ARTCARVE_MIRROR_WALK_H
#define ARTCARVE_MIRROR_WALK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "art/format/art_image.h"
#include "art/format/art_layout.h"
#include "art/mirror/mirror.h"
#include "carver/base/err.h"
#include "carver/base/wbuf.h"

struct dex;

enum mw_kind {
	MW_INSTANCE, MW_OBJECT_ARRAY, MW_PRIMITIVE_ARRAY, MW_CLASS, MW_STRING, MW_DEX_CACHE,
	MW_UNRESOLVED, MW_KIND_COUNT
};
const char *mw_kind_name(enum mw_kind k);

struct mirror_walk {
	/* inputs (borrowed) */
	const struct mirror *m;           /* every loaded image, at its image_begin */
	const struct art_image *img;      /* the image walked: header, sections, live bitmap */
	/* well-known classes: 0 when not known */
	uint32_t jlc, jls, jldc;          /* java.lang.Class, String, DexCache */
	uint32_t class_roots;             /* address of the class-roots array (maybe elsewhere) */
	bool class_roots_loaded;          /* the class roots were read (their image is loaded) */
	/* results */
	uint64_t count[MW_KIND_COUNT];
	uint64_t objects;
	uint64_t outside;                 /* objects whose class pointer is in no loaded image */
	uint64_t bitmap_checked;          /* objects whose start bit was checked in the bitmap */
	uint32_t end;                     /* offset where the walk stopped (= objects_end) */
	uint32_t *classes;                /* addresses of the Class objects of this image */
	size_t class_count, class_cap;
	uint32_t *unresolved;             /* distinct class pointers in no loaded image, sorted */
	size_t unresolved_count, unresolved_cap;
	uint32_t *dex_caches;             /* addresses of the DexCache objects of this image */
	size_t dex_cache_count, dex_cache_cap;
};

/* Walks img's objects section; m->img must hold img's bytes at its image_begin.  Returns 0
 * when the walk ended exactly at the section end with every resolvable class pointer
 * pointing at a Class whose class is java.lang.Class; -ERR_CORRUPT naming the object's
 * address otherwise (-ERR_UNMAPPED when img is not in m->img).  w is filled (release it
 * even on error). */
int mirror_walk_image(struct mirror_walk *w, const struct mirror *m, const struct art_image *img, struct err *e);
void mirror_walk_release(struct mirror_walk *w);

/* Finds the dex file of the DexCache at dex_cache; 1 found, 0 not, <0 error (e set). */
typedef int (*mw_dex_lookup_fn)(void *ctx, uint32_t dex_cache, const struct dex **out, struct err *e);

enum mw_name_source { MW_NAME_NONE, MW_NAME_FIELD, MW_NAME_PRIMITIVE, MW_NAME_ARRAY, MW_NAME_DEX };
/* Appends the Java name of the class at addr ("java.lang.String", "int[]") to out.
 * Returns the source (> 0) when named, MW_NAME_NONE when the name cannot be found (class,
 * dex cache or dex absent), <0 on corrupt data.  lookup may be NULL. */
int mw_class_name(const struct mirror *m, uint32_t addr, mw_dex_lookup_fn lookup, void *ctx, struct wbuf *out,
		  struct err *e);
/* Only the DEX path of mw_class_name (to cross-check a name_ string). */
int mw_class_name_dex(const struct mirror *m, uint32_t addr, mw_dex_lookup_fn lookup, void *ctx, struct wbuf *out,
		      struct err *e);
#endif
