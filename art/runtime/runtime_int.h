/* runtime_int.h - what the parts of the runtime model (art/runtime/runtime*.c) share; only they
 * include it.  runtime_open (runtime.c) calls the steps in order: the files' and layout's
 * (runtime_files.c, runtime_layout.c), the classes' (runtime_classes.c), the DEX caches'
 * (runtime_dex_cache.c) and the fields' (runtime_fields.c, with runtime_link.c). */
#ifndef ARTCARVE_RUNTIME_INT_H
#define ARTCARVE_RUNTIME_INT_H

#include "art/runtime/runtime.h"

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
	RT_MAX_VOTES = 1 << 20,       /* Classes voting for java.lang.Class (hostile bound) */
	RT_MAX_VOTE_READS = 4096,     /* voters read per candidate row */
	RT_MIN_VOTES = 3,             /* Classes naming a candidate java.lang.Class */
};

/* ---- runtime.c: helpers, and the object chunks the scans go through ---- */

int rt_nomem(struct err *e);
/* Strings kept in the runtime's arena (NULL when out of memory). */
const char *rt_strdup(struct art_runtime *rt, const char *s, size_t n);
const char *rt_printf(struct art_runtime *rt, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The name of the space holding va, for anomaly records. */
const char *rt_space_name(const struct art_runtime *rt, uint64_t va);
typedef int (*rt_chunk_fn)(struct art_runtime *rt, uint64_t va, const uint8_t *p, size_t n, void *ctx,
			   struct err *e);
/* Calls fn for the captured bytes of every object space (images_only: image spaces only). */
int rt_each_chunk(struct art_runtime *rt, bool images_only, rt_chunk_fn fn, void *ctx, struct err *e);

/* ---- runtime_files.c ---- */

int rt_find_images(struct art_runtime *rt, struct err *e);
int rt_find_files(struct art_runtime *rt, struct err *e);

/* ---- runtime_layout.c: rt->layout is chosen by the first of these that finds one ---- */

int rt_layout_from_option(struct art_runtime *rt, const char *family, struct err *e);
int rt_layout_from_images(struct art_runtime *rt, struct err *e);
int rt_layout_from_oat(struct art_runtime *rt, struct err *e);
int rt_find_jlc(struct art_runtime *rt, struct err *e);
/* Sets rt->pointer_size and pointer_how (once the classes are linked). */
void rt_choose_pointer_size(struct art_runtime *rt);

/* ---- runtime_classes.c ---- */

/* Collects every Class object, sorts them by address and hashes them. */
int rt_find_classes(struct art_runtime *rt, struct err *e);
int rt_link_classes(struct art_runtime *rt, struct err *e);
int rt_name_classes(struct art_runtime *rt, struct err *e);

/* ---- runtime_dex_cache.c ---- */

int rt_source_failed(int rc, struct err *why, struct err *e);
void rt_settle(struct art_runtime *rt, enum anomaly_code code, uint64_t va, const char *what, bool lost,
	       const struct err *a, const struct err *b);
int rt_class_def_agrees(const struct dex *d, const struct mirror_class *c, struct err *e);
int rt_resolve_dex_caches(struct art_runtime *rt, struct err *e);

/* ---- runtime_fields.c ---- */

int rt_decode_fields(struct art_runtime *rt, struct err *e);
int rt_settle_field_link_row(struct art_runtime *rt, struct err *e);
int rt_settle_class_loader_row(struct art_runtime *rt, struct err *e);

/* ---- runtime_origin.c ---- */

/* Sets every class's origin (after the DEX caches and names are resolved). */
int rt_classify_origins(struct art_runtime *rt, struct err *e);

#endif
