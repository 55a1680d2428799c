/* runtime.h - the ART runtime model of a process image: layout family, pointer size,
 * spaces, image spaces, DEX files, and every java.lang.Class with its name, super class,
 * sizes and instance field layout.
 *
 * How each fact was found is kept beside it ("how" strings), because offline evidence
 * differs from image to image:
 *   layout family  --art-version > an image header's version > an OAT header's version >
 *                  content: the object whose
 *                  class is itself (java.lang.Class) checked against every table row
 *                  (java.lang.Object's size, Class flags, DexCache's object size);
 *   pointer size   an image header > native pointers stored in Class/DexCache objects;
 *   classes        8-aligned words equal to java.lang.Class's address in the object spaces,
 *                  kept when the Class reads plausibly (retired placeholders are counted,
 *                  not listed, as ART's own HPROF does);
 *   names          Class.name_ > primitive type > component type + "[]" > DEX type_ids via
 *                  the class's DexCache, whose DEX is found through DexCache.dex_file_ ->
 *                  DexFile.begin_ when that native memory is captured, else among the DEX
 *                  files in the image the one whose class_defs agree with the classes
 *                  (class_defs[dex_class_def_idx_].class_idx == dex_type_idx_ for all);
 *   fields         Class.ifields_ (LengthPrefixedArray<ArtField>) when captured, else the
 *                  DEX class_data instance fields with offsets re-derived by ART's field
 *                  linking rules (class_linker.cc LinkFields) and checked against
 *                  object_size_ and num_reference_instance_fields_. */
#ifndef ARTCARVE_RUNTIME_H
#define ARTCARVE_RUNTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "art/format/art_layout.h"
#include "art/format/dex.h"
#include "art/mirror/mirror.h"
#include "art/runtime/spaces.h"
#include "carver/base/anomaly.h"
#include "carver/base/arena.h"
#include "carver/base/err.h"
#include "carver/base/htab.h"
#include "carver/image/image.h"

#define RT_NONE ((size_t)-1)
#define RT_OFFSET_UNKNOWN UINT32_MAX

struct rt_field {
	const char *name;         /* MUTF-8 from the DEX */
	const char *type;         /* type descriptor, e.g. "I", "Ljava/lang/String;" */
	uint32_t offset;          /* byte offset in the instance, RT_OFFSET_UNKNOWN if not derivable */
	uint32_t access_flags;
	uint32_t dex_field_idx;
	const char *java_type;    /* the type's Java name ("int", "java.lang.String"); NULL when the
				   * descriptor is malformed (or the field was not made by the model) */
};

/* Where a class comes from (runtime_origin.c): the app (its DEX under /data/app and the
 * app data folders, or a non-boot class loader with a DEX off the system partitions), the
 * boot class path (null class loader), other system jars with a class loader (/system,
 * /apex, ...), or unknown (runtime_class_origin_why says why). */
enum rt_origin { RT_ORIGIN_UNKNOWN, RT_ORIGIN_BOOT, RT_ORIGIN_FRAMEWORK, RT_ORIGIN_APP };

struct rt_class {
	uint64_t addr;
	struct mirror_class raw;  /* the Class's own words */
	const char *name;         /* Java name as ART prints it ("int[]", "java.util.Map$Entry"); NULL if unknown */
	const char *name_how;     /* "name_", "primitive", "array", "dex", "" */
	bool name_tried;          /* the name was worked out (NULL: unknown); not retried */
	size_t dex;               /* index in dexes, RT_NONE */
	size_t dissent_dex;       /* the DEX its DexCache chose when its own indexes disagreed
				   * with it (damage), RT_NONE otherwise */
	size_t super;             /* index in classes, RT_NONE */
	size_t component;         /* index in classes, RT_NONE */
	struct rt_field *fields;  /* declared instance fields in declaration (ifields_) order */
	uint32_t field_count;
	const char *fields_how;   /* "ifields_" (16+: "fields_"), "dex", "" (none known) */
	bool fields_checked;      /* offsets agree with object_size_ and the reference count */
	const struct art_space *space;
	enum rt_origin origin;
	const char *origin_why;   /* for RT_ORIGIN_UNKNOWN, else NULL */
};

struct rt_dex {
	uint64_t addr;            /* address of the DEX header */
	size_t size;              /* bytes of the DEX in the image */
	const char *location;     /* from its mapping name or a DexCache.location_, "" if unknown */
	const char *how;          /* "magic in <region name>" */
	struct dex dex;
	size_t classes;           /* classes named through it */
};

struct rt_image {
	uint64_t begin;
	uint32_t size, roots;
	unsigned version, pointer_size;
	const char *name;
};

struct rt_file {             /* OAT / VDEX files seen in the image (by magic at a region start) */
	uint64_t addr;
	const char *kind;         /* "oat", "vdex" */
	const char *name;
	unsigned version;         /* OAT header version found in the mapping, 0 if none */
};

struct art_runtime {
	const struct image *img;
	const struct art_layout *layout;
	const char *layout_how;
	bool layout_by_version;   /* --art-version or an OAT version chose the row: the content
				   * does not revise it (rt_settle_class_loader_row, runtime_fields.c) */
	unsigned pointer_size;
	const char *pointer_how;
	struct mirror m;          /* img + layout + pointer size, for decoding objects */
	struct art_spaces spaces;
	struct rt_image *images;
	size_t image_count;
	struct rt_dex *dexes;
	size_t dex_count;
	struct rt_file *files;
	size_t file_count;
	uint64_t java_lang_class;
	struct rt_class *classes; /* sorted by address */
	size_t class_count;
	struct htab class_hash;   /* runtime_class_at's table: address -> class index */
	size_t retired_classes;   /* placeholders replaced during linking (not listed) */
	size_t rejected_classes;  /* words equal to java.lang.Class's address that are no Class */
	char first_rejected[160]; /* why the first of them is none */
	size_t rejected_dexes;    /* DEX magics in a library's mapping whose header does not parse */
	size_t dex_caches, dex_caches_resolved;
	size_t dex_caches_by_pointer; /* resolved through DexCache.dex_file_ -> DexFile.begin_ */
	/* Damaged input met while building the model (image headers, DEX files, Class objects,
	 * names, field arrays, DexCaches that do not read), and by the walkers that carve the
	 * spaces later: they record into this same sink. */
	struct anomaly_sink anomalies;
	struct arena arena;
};

struct runtime_opts {
	const char *art_version;  /* --art-version: a layout family ("11") or NULL to detect */
	const struct space_probes *probes; /* allocator probes for spaces_find, required
					    * (rosalloc/probe/probe.h probe_spaces) */
	size_t anomaly_keep;      /* anomalies kept in full (0: ANOMALY_KEEP_DEFAULT); all are counted */
};

/* Builds the model; o is required (its probes).  Returns 0, -ERR_UNSUP when no
 * java.lang.Class (or no layout) can be found, -ERR_USAGE for an unknown --art-version,
 * -ERR_NOMEM, -ERR_INTERNAL without probes.  Odd content never fails the whole model: what
 * cannot be decoded stays unnamed / without fields, and is recorded in rt->anomalies. */
int runtime_open(struct art_runtime *rt, const struct image *img, const struct runtime_opts *o, struct err *e);
void runtime_close(struct art_runtime *rt);

/* The class at addr, NULL if none. */
const struct rt_class *runtime_class_at(const struct art_runtime *rt, uint64_t addr);
/* The address of the first Class at or after lo and before hi, hi when none: where a Class
 * whose class word is damaged (even zeroed) still starts. */
uint64_t runtime_class_between(const struct art_runtime *rt, uint64_t lo, uint64_t hi);
/* Index of the first class named name (Java form, "java.lang.Object[]") in rt->classes,
 * RT_NONE if none. */
size_t runtime_class_named(const struct art_runtime *rt, const char *name);
/* Index of java.lang.String in rt->classes (by name, else by its class flags), RT_NONE. */
size_t runtime_string_class(const struct art_runtime *rt);
/* The class's origin (RT_ORIGIN_UNKNOWN for an index out of range), its word ("boot",
 * "framework", "app", "unknown"), why it is unknown (NULL when known), and the location of
 * its DEX file (an array class: its element class's), NULL when unknown. */
enum rt_origin runtime_class_origin(const struct art_runtime *rt, size_t cls);
const char *runtime_origin_name(enum rt_origin o);
const char *runtime_class_origin_why(const struct art_runtime *rt, size_t cls);
const char *runtime_class_dex_location(const struct art_runtime *rt, size_t cls);
/* Comma-separated list of the layout families the table knows (for messages). */
const char *runtime_families(void);

/* Field linking (runtime/class_linker.cc LinkFields) by the layout row's rule: assigns
 * offsets[i] to n fields whose types are given by descriptor first characters type0[i] and
 * whose dex field indexes order them inside a sort group, starting at start (the super
 * class's object size).  *size = the object size after the last field, *refs = number of
 * reference fields.  Returns 0 or -ERR_NOMEM. */
int runtime_link_fields(enum art_field_link rule, const uint8_t *type0, const uint32_t *dex_idx, uint32_t n,
			uint32_t start, uint32_t *offsets, uint32_t *size, uint32_t *refs, struct err *e);

#endif
