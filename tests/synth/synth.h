/* synth.h - the synthetic ART memory-image generator (tests/synth).
 *
 * An independent implementation of ART's allocator and object-layout rules, written from
 * the AOSP platform/art sources at the release commits of doc/sources.md (gc/allocator/
 * rosalloc.*, gc/space/, mirror/, image.h).  It shares no decoding code with the tool: only the
 * foundation (err, wbuf, xalloc, outfile).  Everything the generator writes is also recorded
 * as truth (one record per object) so an independent checker can compare.
 *
 * Address space: every mapping is a zero-filled buffer; objects are written little-endian.
 * Heap references are 32-bit in 32- and 64-bit processes (all heap mappings lie below 4 GiB;
 * the mark-compact from-space of a 64-bit process lies above, bump.c). */
#ifndef SYNTH_H
#define SYNTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "carver/base/err.h"
#include "carver/base/wbuf.h"

/* ---- version families (fam.c) ---- */

enum fam_ros { FAM_ROS_NONE, FAM_ROS_BITMAP, FAM_ROS_FREELIST };
enum fam_str { FAM_STR_ARRAY, FAM_STR_INLINE16, FAM_STR_COMPRESSED };
enum fam_fields { FAM_FIELDS_MIRROR, FAM_FIELDS_RAW, FAM_FIELDS_LPA };
enum fam_hdr { FAM_HDR_A, FAM_HDR_B, FAM_HDR_C, FAM_HDR_D, FAM_HDR_E };

/* One declared field of a mirror class: Java name, descriptor, byte offset. */
struct fam_field {
	const char *name;
	const char *type;
	uint32_t offset;
};

struct fam_mirror {
	const struct fam_field *fields;
	uint32_t size;          /* instance size (end of the last field, unrounded) */
};

struct fam {
	const char *version;    /* "5.0" ... "16" */
	int api;
	const char *image_version, *oat_version;
	enum fam_ros ros;
	bool region;            /* region space (8.0+ CC) instead of RosAlloc */
	bool ashmem;            /* 5.0-9 name style */
	enum fam_str str;
	enum fam_fields fields;
	enum fam_hdr hdr;
	unsigned hdr_size, n_sections, n_methods;
	unsigned ros_brackets, ros_tl_brackets;
	bool ros_5_0_pages;     /* 5.0: brackets 4-7 use 2-page runs */
	uint32_t los_free_flag, los_zygote_flag;
	const char *zygote_name, *nonmoving_name, *los_freelist_name;
	const char *main_name, *main1_name;
	unsigned n_image_roots, root_dex_caches, root_class_roots;
	const char *const *class_roots; unsigned n_class_roots;
	int link_rule;              /* LinkFields: 0 packed, largest gap first (6.0-11), 1 5.1
				     * (4-byte slots), 2 5.0, 3 packed, smallest gap first (12+) */
	int status_initialized;     /* raw status_ value written for initialized classes */
	int class_flags;            /* 1 when Class has class_flags_ (7.0+) */
	int prim_type_shift;        /* 6.0+: high 16 bits of primitive_type_ = log2 size */
	bool ref_offsets_lsb;       /* 6.0+: LSB-first reference_instance_offsets_ */
	unsigned artmethod_size32, artmethod_size64; /* native ArtMethod (6.0+), 0 for mirror */
	unsigned artmethod_quick32, artmethod_quick64;
	bool artmethod_no_code_item; /* 12+: no dex_code_item_offset_, dex_method_index_ at 8 */
	unsigned region_size;
	bool poison_unevac;         /* 10-13: dead objects in unevacuated regions -> 0xBADDB01D */
	bool cmc_ok;                /* 14+ modules: the CMC heap (--heap cmc) is possible */
	bool page16_ok;             /* 15+: gPageSize may be 16 KiB (--page 16k, 64-bit) */
	bool fields_merged;         /* 16+: one Class.fields_ LPA, static fields first, no sFields */
	bool array_shift_flags;     /* 16+: array classes' class_flags_ hold the component size
				     * shift in bits 30-31, primitive arrays kClassFlagPrimitiveArray */
	struct fam_mirror m_object, m_class, m_string, m_dexcache, m_reference, m_classloader,
		m_artfield, m_artmethod;
};

const struct fam *fam_find(const char *version);
const struct fam *fam_at(unsigned i);
unsigned fam_count(void);
/* Offset of a named field in a mirror layout, or UINT32_MAX. */
uint32_t fam_off(const struct fam_mirror *m, const char *name);

/* ---- RosAlloc brackets (computed from the sizing rules, ros.c) ---- */
struct ros_bracket {
	uint32_t size, pages, slots, header;
	uint32_t words;             /* 5.x/6.0: 32-bit bitmap words */
	uint32_t bulk_off, tl_off;  /* 5.x/6.0: bitmap offsets in the run header */
};
void ros_brackets(const struct fam *f, struct ros_bracket *out /* [42] */);
unsigned ros_bracket_for(const struct fam *f, uint32_t size);

/* ---- address space (vm.c) ---- */

enum sp_kind { SP_NONE, SP_IMAGE, SP_MAIN, SP_REGION, SP_NONMOVING, SP_ZYGOTE, SP_LOS, SP_NATIVE,
	SP_BUMP /* CMC moving space (BumpPointerSpace) */,
	SP_CMC_FROM /* "Concurrent mark-compact from-space": the moving space before a compaction */ };
extern const char *const sp_names[];

struct vmap {
	char name[200];         /* full maps name as printed */
	uint64_t va, size;      /* whole reservation */
	uint64_t rw_size;       /* leading readable part (rest is ---p, not in the core) */
	uint8_t *bytes;         /* rw_size bytes */
	char perms[5];
	bool file;              /* file-backed (goes in NT_FILE) */
	uint64_t file_off;
	enum sp_kind space;
};

#define VM_MAX_MAPS 4096

struct vm {
	struct vmap *maps;
	unsigned n;
	size_t cap;
	int bits;               /* 32 or 64 */
	unsigned ptr;           /* 4 or 8 */
	bool bad;               /* a write went outside every mapping (generator bug) */
	uint64_t bad_va;
};

int vm_init(struct vm *v, int bits);
void vm_release(struct vm *v);
struct vmap *vm_add(struct vm *v, const char *name, uint64_t va, uint64_t size, uint64_t rw_size,
		    const char *perms, enum sp_kind space);
struct vmap *vm_find(struct vm *v, uint64_t va);
uint8_t *vm_ptr(struct vm *v, uint64_t va, uint64_t n);
void vm_w8(struct vm *v, uint64_t va, uint8_t x);
void vm_w16(struct vm *v, uint64_t va, uint16_t x);
void vm_w32(struct vm *v, uint64_t va, uint32_t x);
void vm_w64(struct vm *v, uint64_t va, uint64_t x);
void vm_wptr(struct vm *v, uint64_t va, uint64_t x);
void vm_wbytes(struct vm *v, uint64_t va, const void *p, size_t n);
void vm_zero(struct vm *v, uint64_t va, uint64_t n);
uint32_t vm_r32(struct vm *v, uint64_t va);
uint64_t vm_r64(struct vm *v, uint64_t va);
uint8_t vm_r8(struct vm *v, uint64_t va);
uint16_t vm_r16(struct vm *v, uint64_t va);
/* "dalvik-<name>" in that version's style. */
void vm_dalvik_name(const struct fam *f, const char *name, char *out, size_t cap);

/* ---- deterministic random numbers (synth.c) ---- */
struct rng { uint64_t s; };
uint64_t rng_next(struct rng *r);
uint32_t rng_below(struct rng *r, uint32_t n);    /* 0 .. n-1 */
bool rng_chance(struct rng *r, unsigned percent);

/* ---- classes (klass.c) ---- */

enum ck_kind { CK_INSTANCE, CK_CLASS, CK_STRING, CK_PRIM_ARRAY, CK_OBJ_ARRAY, CK_PRIMITIVE };

struct kfield {
	char name[48];
	char type[96];          /* descriptor */
	uint32_t offset;
	bool is_static;
	uint32_t dex_field_idx; /* filled by dexw */
};

struct klass {
	char descriptor[128];   /* "Ljava/lang/String;", "[I", "I" */
	int super;              /* index or -1 */
	int component;          /* arrays: component class index, else -1 */
	enum ck_kind kind;
	char prim;              /* primitive type char for primitives and primitive arrays' component */
	struct kfield *ifields; unsigned n_ifields;     /* declared instance fields */
	struct kfield *sfields; unsigned n_sfields;
	uint32_t object_size;   /* instance size incl. super (unrounded), 0 for arrays/strings */
	uint32_t class_size;    /* Class object size */
	uint32_t statics_off;   /* start of static storage inside the Class object */
	uint32_t addr;          /* Class object address */
	int dex;                /* 0 core dex, 1 app dex, -1 none (arrays, primitives) */
	uint32_t type_idx, class_def_idx;
	uint64_t fields_addr;   /* native ArtField array / mirror ObjectArray */
	uint64_t sfields_addr;
	uint64_t methods_addr;
	unsigned n_methods;     /* 0 or 2: a direct and a virtual native method (7.0+ core classes) */
	uint32_t method_idx[2]; /* dex method indexes, filled by dexw */
	uint64_t method_addr[2];
	unsigned hooked;        /* bit w: method w enters a hook trampoline */
	uint32_t access_flags;
	bool in_image;
	int obj;                /* truth object index of the Class object */
};

#define KLASS_MAX 512

struct model;

int klass_add(struct model *m, const char *descriptor, int super, enum ck_kind kind, int dex);
int klass_find(const struct model *m, const char *descriptor);
/* Adds a declared field; call klass_layout after all fields are added. */
void klass_field(struct model *m, int k, const char *name, const char *type, bool is_static);
/* Assigns offsets as ART's LinkFields does (refs, then 8/4/2/1-byte groups, gaps filled). */
void klass_layout(struct model *m, int k);
/* Lays out fields from offset start by a family's rule; returns the end offset. */
uint32_t klass_link(struct kfield *f, unsigned n, uint32_t start, int rule);
/* Uses a mirror layout from the family table for a core class. */
void klass_mirror(struct model *m, int k, const struct fam_mirror *mm);
/* Java-style name: "java.lang.String", "int[]". */
void klass_java_name(const struct model *m, int k, char *out, size_t cap);
unsigned klass_type_size(const char *type);
/* Checks LinkFields against every mirror layout of every family; returns mismatches. */
int klass_selftest(FILE *log);

/* ---- objects and truth ---- */

enum ob_alloc { OB_ALLOCATED, OB_FREE };
enum ob_content { OB_INTACT, OB_PARTIAL, OB_RESIDUE };
enum ob_reach { OB_REACHABLE, OB_UNREACHABLE };

struct obj {
	uint64_t addr;          /* below 4 GiB but in the from-space of a 64-bit process */
	uint32_t size;          /* SizeOf() (unrounded) */
	int cls;
	enum sp_kind space;
	uint8_t alloc, content, reach;
	uint8_t where;          /* allocator detail: see OW_* */
	uint32_t length;        /* arrays / strings */
	bool compressed;        /* strings */
	bool root;              /* a GC root of the truth's reachability */
	bool freed;             /* freed by the generator (content changed after snapshot) */
	char *snapshot;         /* truth JSON of a freed object, taken before the free */
	uint32_t slot;          /* RosAlloc slot size / chunk size / region, for the truth */
};

enum { OW_NONE, OW_RUN, OW_TL_RUN, OW_PAGES, OW_REGION, OW_TLAB, OW_LARGE_REGION,
	OW_UNEVAC, OW_CHUNK, OW_BUMP, OW_LOS_MAP, OW_LOS_FREELIST, OW_IMAGE, OW_CMC_FROM };
extern const char *const ow_names[];

/* ---- allocators ---- */

struct ros;     /* ros.c */
struct region;  /* region.c */
struct dlm;     /* dlm.c */
struct los;     /* los.c */
struct bump;    /* bump.c */

struct model {
	const struct fam *fam;
	struct vm vm;
	struct rng rng;
	int bits;
	uint64_t seed;
	uint64_t heap_target;   /* bytes of objects to generate */
	unsigned hooks;         /* --inject-hooks */
	bool no_truth;          /* --no-truth: core, maps and truth.json only (benchmarks) */
	bool messenger;         /* --workload messenger: the messaging app (work.c make_messenger) */
	uint32_t page;          /* the process's page size: 4096, or 16384 (--page 16k, 15+ arm64) */
	uint64_t bytes;         /* sum of object sizes so far */

	struct klass *k; unsigned nk;
	struct obj *o; unsigned no; size_t cap_o;

	struct ros *ros;
	struct region *region;
	struct bump *bump;      /* --heap cmc: the mark-compact moving space instead of region */
	uint64_t cmc_from;      /* --heap cmc: "Concurrent mark-compact from-space" (its address:
				 * vm_add may move the map records) */
	bool cmc;
	struct dlm *nonmoving, *zygote;
	struct los *los;
	struct vmap *image, *linear_alloc, *native_heap;
	uint64_t image_begin, image_end;
	uint64_t la_top, native_top;      /* bump pointers in LinearAlloc and native heap */

	/* well-known classes */
	int c_object, c_class, c_string, c_dexcache, c_char_array, c_object_array, c_artfield,
		c_artmethod, c_artfield_array, c_artmethod_array;
	int c_prim[9];          /* Z B C D F I J S V */
	int c_prim_array[8];    /* Z B C D F I J S */

	/* DEX files written into memory */
	uint64_t dex_addr[2], dexfile_native[2];
	uint32_t dex_size[2], dexcache_obj[2];
	int dexcache_index[2];

	char isa[16];
	uint64_t libart, libart_size, hook_area;
	uint32_t art_methods;   /* ArtMethods written in the image */
	uint32_t image_roots_addr, class_roots_addr;
	unsigned n_hooks_done;
	struct wbuf notes;      /* extra README text */
};

int model_new_obj(struct model *m, uint64_t addr, uint32_t size, int cls, enum sp_kind sp,
		  uint8_t where);

#endif
