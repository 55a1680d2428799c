/* vd_int.h - internals of the validate module shared by its files: the name table, the per-object
 * index, one input ("side") and the decoded view of one object. */
#ifndef ARTCARVE_VD_INT_H
#define ARTCARVE_VD_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "carver/base/arena.h"
#include "carver/base/cursor.h"
#include "carver/base/err.h"
#include "carver/base/hash.h"
#include "carver/base/htab.h"
#include "carver/base/wbuf.h"
#include "output/hprof/hprof_reader.h"
#include "output/compare/validate.h"

/* ---- interned names (class, field, heap and space names) ------------------------------------ */

struct vd_name { const char *s; uint32_t len; };

struct vd_names {
	struct arena a;         /* the bytes, NUL-terminated */
	struct vd_name *v;
	uint32_t n, cap;
	struct htab by_hash;    /* hash_fnv1a64 of the name -> index in v */
};

void vd_names_init(struct vd_names *t);
void vd_names_release(struct vd_names *t);
/* Interns s[0..len) (any bytes); *idx its index.  -ERR_NOMEM. */
int vd_names_add(struct vd_names *t, const char *s, size_t len, uint32_t *idx, struct err *e);
/* Index of s, or UINT32_MAX when absent. */
uint32_t vd_names_find(const struct vd_names *t, const char *s, size_t len);
/* Interns a class name in Java form: "java/lang/String" -> "java.lang.String", "[I" -> "int[]",
 * "[[Ljava/lang/Object;" -> "java.lang.Object[][]"; Java-form names are kept. */
int vd_names_add_class(struct vd_names *t, const char *s, size_t len, uint32_t *idx, struct err *e);

/* ---- growable arrays -------------------------------------------------------------------- */

/* Makes room for one more item in *v (count *n, capacity *cap, item size sz). */
int vd_grow(void **v, size_t *cap, size_t n, size_t sz, struct err *e);

/* ---- the per-object index ------------------------------------------------------------------ */

enum {
	VD_F_SYN_MASK = 3,      /* synthetic kind + 1 (0: a real object) */
	VD_F_MARK = 4,          /* a state-mark array (output/hprof/hprof_mark.h), not an object */
	VD_F_DUP = 8,           /* same id and class as the entry before it */
	VD_F_BEYOND = 16,       /* result: unmatched, beyond a walk gap the truth did not walk */
};

/* state byte: alloc bit 0, content bits 1-2, reach bits 3-4 */
#define VD_ST_GET(st, dim) ((unsigned)((dim) == VD_DIM_ALLOC ? (st) & 1 : (dim) == VD_DIM_CONTENT ? ((st) >> 1) & 3 : ((st) >> 3) & 3))
static inline uint8_t vd_st_set(uint8_t st, enum vd_dim dim, unsigned v)
{
	switch (dim) {
	case VD_DIM_ALLOC: return (uint8_t)((st & ~1u) | (v & 1));
	case VD_DIM_CONTENT: return (uint8_t)((st & ~6u) | (v & 3) << 1);
	default: return (uint8_t)((st & ~24u) | (v & 3) << 3);
	}
}

struct vd_obj {
	uint64_t id;            /* object id = address */
	uint64_t off;           /* HPROF: file offset of the sub-record tag; jsonl: of the line */
	uint32_t cls;           /* class name (vd_names index) */
	uint8_t heap;           /* heap / space (index into side->heap_names) */
	uint8_t kind;           /* enum vd_kind */
	uint8_t flags;          /* VD_F_* */
	uint8_t state;          /* see VD_ST_GET */
};

static inline bool vd_obj_real(const struct vd_obj *o) { return !(o->flags & (VD_F_SYN_MASK | VD_F_MARK)); }
static inline int vd_obj_syn(const struct vd_obj *o) { return (int)(o->flags & VD_F_SYN_MASK) - 1; }

struct vd_root { uint64_t id; uint8_t kind; };

/* An address alias window of a carved HPROF (output/hprof/hprof_mark.h): ids in
 * [id, id + len) stand for the real addresses [addr, addr + len). */
struct vd_alias { uint64_t id, addr, len; };

/* A walk gap of a carved HPROF (artcarve.mark.WalkGap, output/hprof/hprof_mark.h): ART's own
 * walk of a bump-pointer space stops at start; objects lie again in [end, space_end). */
struct vd_gap { uint64_t start, end, space_end; };

/* HPROF side tables */
struct vd_hstr { uint64_t id, off; };                   /* STRING record at off */
struct vd_hlc { uint64_t class_id, name_id; };          /* LOAD_CLASS */
struct vd_hfield { uint32_t name; uint8_t type; };
struct vd_hclass {
	uint64_t id, super, off;
	uint32_t name;                  /* class name */
	uint32_t field0, nfields;       /* own instance fields in side->hfields */
	uint32_t own_size;              /* bytes of the own fields' values */
	uint32_t value_off, rio_off;    /* offset of String.value / runtimeInternalObjects in an
					 * instance's values, UINT32_MAX if none */
};

#define VD_MAX_HEAPS 250
#define VD_CHAIN_MAX 256        /* deepest class chain decoded */

enum vd_format { VD_FMT_HPROF, VD_FMT_JSONL };

struct vd_side {
	enum vd_format fmt;
	struct vd_input in;
	struct vd_names *names;         /* shared by both sides */
	struct vd_obj *obj;
	size_t n, cap;
	struct vd_root *roots;
	size_t nroots, roots_cap;
	struct vd_alias *aliases;       /* HPROF: its address alias windows */
	size_t naliases, aliases_cap;
	struct vd_gap *gaps;            /* HPROF: its walk gaps */
	size_t ngaps, gaps_cap;
	uint32_t heap_names[VD_MAX_HEAPS + 1];
	uint64_t heap_keys[VD_MAX_HEAPS + 1];   /* HPROF: heap id << 32 | low name id bits */
	unsigned nheaps;
	struct vd_side_info info;
	uint64_t touches;               /* record decodes, for vd_side_touch */
	/* HPROF */
	unsigned id_size;
	size_t header_len;
	struct vd_hstr *strs;
	size_t nstrs, strs_cap;
	struct vd_hlc *lcs;
	size_t nlcs, lcs_cap;
	struct vd_hclass *classes;
	size_t nclasses, classes_cap;
	struct vd_hfield *hfields;
	size_t nhfields, hfields_cap;
	uint32_t n_string, n_class, n_value, n_rio, n_count, n_offset, n_coder, n_overhead;
	uint32_t prim_names[12];        /* class name of each primitive array type */
};

/* Counts one record decode; every VD_DROP_EVERY of them the mapped input is given back to the
 * kernel when the caller allows it (vd_input.drop_behind). */
void vd_side_touch(struct vd_side *s);

/* Index of the first entry with this id, or SIZE_MAX. */
size_t vd_side_find(const struct vd_side *s, uint64_t id);
/* Index of the first entry whose id is >= id, s->n if none. */
size_t vd_side_lower(const struct vd_side *s, uint64_t id);
void vd_side_release(struct vd_side *s);
int vd_obj_push(struct vd_side *s, const struct vd_obj *o, struct err *e);
/* Sorts the index by (id, class, offset) and flags duplicates. */
void vd_side_sort(struct vd_side *s);
/* Interns a heap/space name; *idx its heap index (the last one collects the overflow). */
int vd_side_heap(struct vd_side *s, uint64_t key, const char *name, size_t len, uint8_t *idx, struct err *e);

/* ---- one object decoded for comparison --------------------------------------------------- */

struct vd_fv {
	uint32_t name, occ;     /* field name; how many fields of that name come before it (root first) */
	uint8_t type;           /* HPROF basic type */
	bool is_static;
	uint64_t val;           /* raw value bits, zero-extended (ids as ids) */
	double fval;            /* floats from truth.jsonl (text form), for NaN-aware compares */
	bool has_fval;
};

struct vd_view {
	enum vd_kind kind;
	bool decodable;                 /* false: the values could not be laid out */
	struct vd_fv *f;
	size_t nf, fcap;
	/* arrays */
	uint8_t elem_type;              /* HPROF basic type */
	uint32_t count;
	unsigned id_size;               /* width of object elements in data */
	bool have_data;                 /* data holds the big-endian elements (HPROF) */
	struct cursor data;
	bool have_fnv;                  /* truth.jsonl: FNV-1a 64 of the little-endian memory bytes */
	uint64_t fnv;
	bool have_elems;                /* truth.jsonl: short arrays list their elements */
	uint64_t *elems;
	size_t nelems, ecap;
	/* String text (UTF-16 code units) */
	bool is_string, have_text;
	uint16_t *text;
	size_t tlen, tcap;
	struct wbuf tmp;                /* scratch for names */
};

void vd_view_init(struct vd_view *v);
void vd_view_release(struct vd_view *v);
void vd_view_reset(struct vd_view *v);
int vd_view_add_field(struct vd_view *v, const struct vd_fv *f, struct err *e);
int vd_view_add_unit(struct vd_view *v, uint16_t u, struct err *e);

/* ---- per format ------------------------------------------------------------------------ */

int vd_hprof_load(struct vd_side *s, struct err *e);
int vd_hprof_view(struct vd_side *s, size_t i, struct vd_view *v, struct err *e);
/* Calls fn(ctx, id) for every reference of object i: its class, instance / static reference
 * fields, array elements, a class's super class and loader. */
int vd_hprof_refs(struct vd_side *s, size_t i, void (*fn)(void *ctx, uint64_t id), void *ctx, struct err *e);

int vd_jsonl_load(struct vd_side *s, struct err *e);
int vd_jsonl_view(struct vd_side *s, size_t i, struct vd_view *v, struct err *e);

/* Memory size of an array element of HPROF basic type t in an ART heap (references 4 bytes). */
unsigned vd_elem_mem_size(uint8_t t);

/* ---- the small JSON reader for truth.jsonl (vd_json.c) -------------------------------------- */

struct vd_js {
	struct cursor c;        /* one line; c.va = its file offset */
	const char *label;
	unsigned line;
};

#define VD_JS_DEPTH 16

/* The next non-blank byte, or -1 at the end (nothing consumed). */
int vd_js_peek(struct vd_js *j);
int vd_js_expect(struct vd_js *j, char ch, struct err *e);
/* A string; its UTF-8 bytes go to out (NULL: validated and skipped). */
int vd_js_string(struct vd_js *j, struct wbuf *out, struct err *e);
/* A string as UTF-16 code units (\uXXXX escapes kept as units, other text decoded from UTF-8). */
int vd_js_string_utf16(struct vd_js *j, struct vd_view *v, struct err *e);
/* A bare token: number, true, false, null, nan, inf (borrowed). */
int vd_js_token(struct vd_js *j, const uint8_t **tok, size_t *n, struct err *e);
/* Validates and skips one value. */
int vd_js_skip(struct vd_js *j, unsigned depth, struct err *e);
/* Object members: call after '{' was read; 1 and the key in key[0..*klen) (truncated to cap,
 * *klen may exceed cap), 0 at '}'.  first: no ',' expected before this member. */
int vd_js_member(struct vd_js *j, bool *first, char *key, size_t cap, size_t *klen, struct err *e);
/* Array elements: call after '['; 1 when an element follows, 0 at ']'. */
int vd_js_elem(struct vd_js *j, bool *first, struct err *e);
int vd_js_error(struct vd_js *j, struct err *e, const char *what);

#endif
