/* reach.c - root sources and the reachability walk (see reach.h). */
#include "rosalloc/model/reach.h"

#include <stdlib.h>
#include <string.h>

#include "art/mirror/mirror.h"
#include "art/runtime/native_roots.h"
#include "carver/base/bsearch.h"
#include "carver/base/cursor.h"
#include "carver/base/xalloc.h"

enum {
	REACH_IRT_SERIALS = 3,          /* kIRTPrevCount in release builds */
	REACH_IRT_GLOBALS = 51200,      /* kGlobalsMax / kWeakGlobalsMax (runtime/jni/java_vm_ext.cc @R11) */
	REACH_MAX_SUPER_DEPTH = 4096,
	REACH_DEX_CACHE_MAX = 1 << 20,  /* entries read per DexCache array (hostile bound) */
	REACH_DEX_STRING_CACHE_14 = 1024, /* kDexCacheStringCacheSize (runtime/mirror/dex_cache.h @R14U) */
};

static const char *const source_names[REACH_SOURCE_COUNT] = {
	"class statics", "image roots", "thread objects", "jni globals", "jni locals", "thread stacks",
	"dex cache strings", "vm internal", "interned strings",
};

const char *reach_source_name(unsigned s) { return s < REACH_SOURCE_COUNT ? source_names[s] : "?"; }

static int reach_nomem(struct err *e)
{
	return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory walking the object graph");
}

void reach_release(struct reach *r)
{
	xfree(r->roots);
	xfree(r->roots_by_obj);
	xfree(r->doubt);
	xfree(r->dex_cache_edges);
	memset(r, 0, sizeof(*r));
}

static int add_root(struct reach *r, enum reach_source s, uint32_t obj, uint32_t ref, uint32_t thread,
		    struct err *e)
{
	if (XALLOC_GROW(r->roots, r->cap, r->count + 1, 1024))
		return reach_nomem(e);
	r->roots[r->count++] = (struct reach_root){ obj, ref, thread, (uint8_t)s };
	return 0;
}

static int by_source_obj(const void *a, const void *b)
{
	const struct reach_root *x = a, *y = b;
	if (x->source != y->source)
		return x->source < y->source ? -1 : 1;
	if (x->obj != y->obj)
		return x->obj < y->obj ? -1 : 1;
	return x->ref < y->ref ? -1 : x->ref > y->ref;
}

/* Sorts the roots and keeps one per (source, object); counts them per source. */
static void dedup_roots(struct reach *r)
{
	size_t out = 0;
	qsort(r->roots, r->count, sizeof(*r->roots), by_source_obj);
	for (size_t i = 0; i < r->count; i++) {
		if (out && r->roots[out - 1].source == r->roots[i].source && r->roots[out - 1].obj == r->roots[i].obj)
			continue;
		r->roots[out++] = r->roots[i];
	}
	r->count = out;
	for (size_t i = 0; i < r->count; i++)
		r->source[r->roots[i].source].roots++;
}

/* ---- class statics and image roots ---- */

static int class_roots(const struct model *m, struct reach *r, struct err *e)
{
	struct reach_source_info *s = &r->source[REACH_CLASSES];
	for (size_t i = 0; i < model_count(m); i++) {
		if (model_obj(m, i)->kind != MODEL_CLASS)
			continue;
		int rc = add_root(r, REACH_CLASSES, model_obj(m, i)->addr, 0, 0, e);
		if (rc)
			return rc;
		s->present = true;
	}
	s->detail = s->present ? "every Class object" : "no Class object carved";
	return 0;
}

static int image_roots(const struct model *m, struct reach *r, struct err *e)
{
	struct reach_source_info *s = &r->source[REACH_IMAGE_ROOTS];
	const struct art_runtime *rt = model_runtime(m);

	s->detail = "no image space in the image";
	for (size_t i = 0; i < rt->image_count; i++) {
		uint32_t obj = rt->images[i].roots;
		s->present = true;
		s->detail = "ImageHeader.image_roots_ of every image space";
		s->words++;
		if (model_find(m, obj) == MODEL_NONE) {
			anomaly_add(model_sink(m), ANOM_ROOTS, ERR_CORRUPT, obj, rt->images[i].name,
				    "image roots 0x%x of the image at 0x%llx are no carved object", obj,
				    (unsigned long long)rt->images[i].begin);
			continue;
		}
		int rc = add_root(r, REACH_IMAGE_ROOTS, obj, (uint32_t)rt->images[i].begin, 0, e);
		if (rc)
			return rc;
	}
	return 0;
}

/* ---- thread objects ---- */

static bool is_subclass(const struct art_runtime *rt, size_t c, size_t base)
{
	for (unsigned d = 0; c != RT_NONE && d < REACH_MAX_SUPER_DEPTH; c = rt->classes[c].super, d++)
		if (c == base)
			return true;
	return false;
}

/* Offset of java.lang.Thread.nativePeer, RT_OFFSET_UNKNOWN when the layout is not known. */
static uint32_t native_peer_offset(const struct art_runtime *rt, size_t thread)
{
	const struct rt_class *k = &rt->classes[thread];
	for (uint32_t f = 0; f < k->field_count; f++)
		if (!strcmp(k->fields[f].name, "nativePeer") && k->fields[f].type[0] == 'J')
			return k->fields[f].offset;
	return RT_OFFSET_UNKNOWN;
}

/* The nativePeer (art::Thread*) of every attached java.lang.Thread, for the 14+ local tables. */
struct peers {
	uint64_t *v;
	size_t n, cap;
};

static int thread_roots(const struct model *m, struct reach *r, struct peers *pe, struct err *e)
{
	const struct art_runtime *rt = model_runtime(m);
	struct reach_source_info *s = &r->source[REACH_THREADS];
	size_t thread = runtime_class_named(rt, "java.lang.Thread");
	uint32_t serial = 0;

	s->detail = "no java.lang.Thread class";
	if (thread == RT_NONE)
		return 0;
	uint32_t off = native_peer_offset(rt, thread);
	s->detail = "java.lang.Thread has no known nativePeer field";
	if (off == RT_OFFSET_UNKNOWN)
		return 0;
	s->detail = "no java.lang.Thread object with nativePeer set";
	for (size_t i = 0; i < model_count(m); i++) {
		const struct model_obj *o = model_obj(m, i);
		uint8_t b[8];
		struct err why;
		if (o->kind != MODEL_INSTANCE || o->alloc != MODEL_ALLOCATED || !is_subclass(rt, o->cls, thread))
			continue;
		s->words++;
		err_init(&why);
		if (img_read(rt->img, model_va(m, o) + off, b, 8, &why)) {
			anomaly_add_err(model_sink(m), ANOM_ROOTS, model_space(m, o)->name, &why);
			continue;
		}
		if (ld_u64le(b) == 0)
			continue;   /* not attached: never started, or ended */
		if (XALLOC_GROW(pe->v, pe->cap, pe->n + 1, 16))
			return reach_nomem(e);
		pe->v[pe->n++] = ld_u64le(b);
		int rc = add_root(r, REACH_THREADS, o->addr, 0, ++serial, e);
		if (rc)
			return rc;
		s->present = true;
		s->detail = "java.lang.Thread objects with nativePeer set";
	}
	return 0;
}

/* ---- JNI reference tables ---- */

static bool region_named(const struct img_region *reg, const char *name)
{
	const char *inner;
	size_t len;
	return spaces_dalvik_name(reg->name, &inner, &len) && len == strlen(name) && !memcmp(inner, name, len);
}

/* Reads the reference of one IrtEntry {u32 serial_; GcRoot references_[3]} of `stride`
 * bytes (GcRoot is a 32-bit compressed reference from 6.0, a raw pointer in 5.x). */
static bool irt_entry(const uint8_t *p, size_t stride, uint64_t *ref)
{
	uint32_t serial = ld_u32le(p);
	size_t w = (stride - 4) / REACH_IRT_SERIALS;
	if (serial >= REACH_IRT_SERIALS)
		return false;
	*ref = w == 8 ? ld_u64le(p + 4 + 8 * serial) : ld_u32le(p + 4 + 4 * serial);
	return true;
}

/* The entry size that explains the table: every used entry's serial < 3. */
static size_t irt_stride(const struct model *m, const struct img_region *reg)
{
	const size_t strides[2] = { 16, 4 + REACH_IRT_SERIALS * (size_t)model_runtime(m)->pointer_size };
	for (int t = 0; t < 2; t++) {
		size_t st = strides[t], bad = 0, used = 0;
		uint64_t ref;
		for (size_t off = 0; off + st <= reg->data_len; off += st) {
			if (!ld_u32le(reg->data + off) && !ld_u32le(reg->data + off + 4))
				continue;
			used++;
			bad += !irt_entry(reg->data + off, st, &ref);
		}
		if (bad == 0 && (used || t == 1))
			return st;
	}
	return 0;
}

static int jni_table(const struct model *m, struct reach *r, const struct img_region *reg, struct err *e)
{
	size_t st = irt_stride(m, reg);
	if (st == 0) {
		anomaly_add(model_sink(m), ANOM_ROOTS, ERR_CORRUPT, reg->start, "indirect ref table",
			    "indirect ref table at 0x%llx: entries read as neither 16- nor %u-byte IrtEntry",
			    (unsigned long long)reg->start, 4 + REACH_IRT_SERIALS * model_runtime(m)->pointer_size);
		return 0;
	}
	enum reach_source src = (reg->end - reg->start) / st >= REACH_IRT_GLOBALS ? REACH_JNI_GLOBAL : REACH_JNI_LOCAL;
	r->source[src].present = true;
	r->source[src].detail = src == REACH_JNI_GLOBAL ? "global and weak global indirect ref tables"
							: "indirect ref tables of thread locals";
	for (size_t off = 0; off + st <= reg->data_len; off += st) {
		uint64_t ref;
		r->source[src].words++;
		if (!irt_entry(reg->data + off, st, &ref) || ref == 0)
			continue;
		size_t j = model_find(m, ref);
		if (j == MODEL_NONE)
			continue;   /* a cleared weak global (the runtime's sentinel) or a stale entry */
		int rc = add_root(r, src, model_obj(m, j)->addr, (uint32_t)(reg->start + off), 0, e);
		if (rc)
			return rc;
	}
	return 0;
}

/* The roots art/runtime/native_roots.c decodes: vm internal, interned strings, and (14+)
 * JNI globals and the attached threads' locals. */
static int native_roots(const struct model *m, struct reach *r, struct nroots *n, const struct peers *pe,
			struct err *e)
{
	static const enum reach_source src[NROOTS_PART_COUNT] = { REACH_VM_INTERNAL, REACH_INTERNED,
								  REACH_JNI_GLOBAL, REACH_JNI_LOCAL };
	int rc = nroots_find(model_runtime(m), n, model_sink(m), e);
	if (rc)
		return rc;
	/* 14+ thread locals: through each attached thread's art::Thread, once the Runtime is found */
	size_t decoded = 0;
	for (size_t t = 0; n->runtime && model_runtime(m)->layout->irt_single_ref && t < pe->n; t++) {
		struct err why;
		err_init(&why);
		if ((rc = nroots_thread_locals(model_runtime(m), pe->v[t], n, &why, e)) < 0)
			return rc;
		if (rc == 0)
			decoded++;
		else if (why.code)
			anomaly_add(model_sink(m), ANOM_ROOTS, why.code, pe->v[t], "art::Thread", "%s", why.msg);
	}
	if (decoded) {
		n->present[NROOTS_JNI_LOCAL] = true;
		n->detail[NROOTS_JNI_LOCAL] = decoded == pe->n ? "14+: each attached thread's jni::LocalReferenceTable up to its top"
							       : "14+: the jni::LocalReferenceTables of some attached threads (see anomalies)";
	}
	for (unsigned p = 0; p < NROOTS_PART_COUNT; p++) {
		struct reach_source_info *s = &r->source[src[p]];
		if ((p == NROOTS_JNI_GLOBAL || p == NROOTS_JNI_LOCAL) && !n->present[p])
			continue;   /* jni_roots says what it found */
		s->present = n->present[p];
		s->detail = n->detail[p];
		if (n->detail[p] == n->not_found) {   /* n lives on reach_run's stack */
			snprintf(r->native_missing, sizeof(r->native_missing), "%s", n->not_found);
			s->detail = r->native_missing;
		}
		for (size_t i = 0; i < n->count[p]; i++) {
			s->words++;
			size_t j = model_find(m, n->refs[p][i].obj);
			if (j == MODEL_NONE)
				continue;   /* e.g. a weak entry already cleared, or an object not carved */
			if ((rc = add_root(r, src[p], model_obj(m, j)->addr, (uint32_t)n->refs[p][i].at, 0, e)))
				return rc;
		}
	}
	return 0;
}

/* True when native_roots decoded the `indirect ref table` mapping at start: jni_roots does not
 * read it again. */
static bool irt_decoded(const struct nroots *n, uint64_t start)
{
	for (unsigned i = 0; i < n->irt_tables && i < NROOTS_MAX_IRT; i++)
		if (n->irt_start[i] == start)
			return true;
	return false;
}

static int jni_roots(const struct model *m, struct reach *r, const struct nroots *n, struct err *e)
{
	const struct image *img = model_image(m);
	if (model_runtime(m)->layout->irt_single_ref) {
		/* 14+: globals only through JavaVMExt (native_roots); locals live in jni::LocalReferenceTables,
		 * whose live extent is in each thread's JNIEnvExt: not read */
		if (!r->source[REACH_JNI_GLOBAL].present)
			r->source[REACH_JNI_GLOBAL].detail = "14+: JavaVMExt::globals_ not found (art::Runtime not captured or not decoded)";
		if (!r->source[REACH_JNI_LOCAL].present)
			r->source[REACH_JNI_LOCAL].detail = "14+: no jni::LocalReferenceTable found (art::Thread / JNIEnvExt not captured)";
		return 0;
	}
	if (!r->source[REACH_JNI_GLOBAL].present)
		r->source[REACH_JNI_GLOBAL].detail = "no global indirect ref table captured";
	r->source[REACH_JNI_LOCAL].detail = "no local indirect ref table captured";
	for (size_t i = 0; i < img->region_count; i++) {
		const struct img_region *reg = &img->regions[i];
		if (!reg->data || reg->data_len < 16 || !region_named(reg, "indirect ref table") ||
		    irt_decoded(n, reg->start))
			continue;
		int rc = jni_table(m, r, reg, e);
		if (rc)
			return rc;
	}
	return 0;
}

/* ---- thread stacks ---- */

static bool stack_region(const struct img_region *reg)
{
	const char *n = reg->name ? reg->name : "";
	return !strcmp(n, "[stack]") || !strncmp(n, "[stack:", 7) || !strncmp(n, "[anon:stack_and_tls:", 20);
}

/* Every 4-aligned word of [from, reg's captured end) that is an object's address is a root. */
static int scan_stack(const struct model *m, struct reach *r, const struct img_region *reg, uint64_t from,
		      struct err *e)
{
	struct reach_source_info *s = &r->source[REACH_STACKS];
	uint64_t off = (from - reg->start + 3) & ~(uint64_t)3;
	for (; off + 4 <= reg->data_len; off += 4) {
		uint32_t w = ld_u32le(reg->data + off);
		s->words++;
		if (w == 0 || (w & 7) || model_find(m, w) == MODEL_NONE)
			continue;
		int rc = add_root(r, REACH_STACKS, w, (uint32_t)(reg->start + off), 0, e);
		if (rc)
			return rc;
	}
	return 0;
}

/* The stack of each thread the container names, from its stack pointer up (the live
 * frames), then every mapping named as a stack that holds no such pointer, whole. */
static int stack_roots(const struct model *m, struct reach *r, struct err *e)
{
	const struct image *img = model_image(m);
	struct reach_source_info *s = &r->source[REACH_STACKS];
	size_t from_sp = 0;
	int rc;

	s->detail = "no thread stack captured";
	for (size_t t = 0; t < img->thread_count; t++) {
		const struct img_region *reg = img_find(img, img->threads[t].sp);
		if (!reg || !reg->data || img->threads[t].sp - reg->start >= reg->data_len)
			continue;
		if ((rc = scan_stack(m, r, reg, img->threads[t].sp, e)))
			return rc;
		from_sp++;
	}
	for (size_t i = 0; i < img->region_count; i++) {
		const struct img_region *reg = &img->regions[i];
		bool scanned = false;
		if (!reg->data || !stack_region(reg))
			continue;
		for (size_t t = 0; t < img->thread_count && !scanned; t++)
			scanned = img->threads[t].sp >= reg->start && img->threads[t].sp - reg->start < reg->data_len;
		if (!scanned && (rc = scan_stack(m, r, reg, reg->start, e)))
			return rc;
		s->present = true;
	}
	if (from_sp) {
		s->present = true;
		s->detail = "each thread's stack from its stack pointer (core notes), scanned conservatively";
	} else if (s->present) {
		s->detail = "stack mappings, scanned conservatively";
	}
	return 0;
}

/* ---- dex cache strings (edges, not roots) ---- */

/* One native string array of a DexCache: n entries of `stride` bytes, the reference in the
 * entry's first 4 bytes. */
struct dex_cache_array {
	const uint8_t *p;
	size_t n, stride;
};

/* The array at va if all of it is captured in one region (not all of it is the normal case
 * for native memory in a trimmed image: not an anomaly); pairs (stride 8) must keep the
 * invariant. */
static bool dex_cache_array_at(const struct model *m, uint64_t va, size_t n, size_t stride,
			       struct dex_cache_array *out)
{
	const uint8_t *a = img_span(model_image(m), va, n * stride, NULL);
	if (!a || !n)
		return false;
	for (size_t i = 0; stride == 8 && i < n; i++)
		if (ld_u32le(a + 8 * i) && ld_u32le(a + 8 * i + 4) % n != i)
			return false;
	*out = (struct dex_cache_array){ a, n, stride };
	return true;
}

/* The DexCache's native string arrays (0, 1 or 2 of them) into out[2]:
 *   7.x      one GcRoot<String> per string id, num_strings_ entries;
 *   8.0-13   DexCachePair<String> {GcRoot object; u32 index}, num_strings_ entries, the pair of
 *            string index i at slot i % num_strings_ (runtime/mirror/dex_cache.h @R80..R13T);
 *            7.x and 8.0+ told apart by that invariant;
 *   14+      strings_: kDexCacheStringCacheSize (1024) DexCachePairs, and strings_array_: a
 *            GcRoot<String> per string id of the DexFile (its header's string_ids_size); both
 *            are GC roots of the DexCache (runtime/mirror/dex_cache.h, dex_cache-inl.h
 *            VisitNativeRoots @R14U). */
static size_t dex_cache_strings(const struct model *m, const struct model_obj *o,
				struct dex_cache_array out[2])
{
	struct mirror_dex_cache dc;
	struct err why;
	size_t k = 0;

	err_init(&why);
	if (!model_runtime(m)->layout->dex_cache.native_arrays)
		return 0;
	if (mirror_dex_cache_read(&model_runtime(m)->m, model_va(m, o), &dc, &why)) {
		anomaly_add_err(model_sink(m), ANOM_ROOTS, model_space(m, o)->name, &why);
		return 0;
	}
	if (model_runtime(m)->layout->dex_cache.num_strings == ART_ABSENT) {
		uint32_t ids = 0;
		if (dc.strings && dex_cache_array_at(m, dc.strings, REACH_DEX_STRING_CACHE_14, 8, &out[k]))
			k++;
		if (!dc.strings_array)
			return k;
		if (mirror_dex_cache_string_ids(&model_runtime(m)->m, &dc, &ids, &why)) {
			if (why.code != ERR_UNMAPPED)   /* uncaptured native memory is normal */
				anomaly_add_err(model_sink(m), ANOM_ROOTS, model_space(m, o)->name, &why);
			return k;
		}
		if (ids > REACH_DEX_CACHE_MAX) {
			anomaly_add(model_sink(m), ANOM_ROOTS, ERR_CORRUPT, model_va(m, o), model_space(m, o)->name,
				    "dex cache at 0x%llx: its DexFile claims %u string ids (more than %u)",
				    (unsigned long long)model_va(m, o), ids, (unsigned)REACH_DEX_CACHE_MAX);
			return k;
		}
		if (dex_cache_array_at(m, dc.strings_array, ids, 4, &out[k]))
			k++;
		return k;
	}
	if (!dc.strings || !dc.num_strings || dc.num_strings > REACH_DEX_CACHE_MAX)
		return 0;
	if (dex_cache_array_at(m, dc.strings, dc.num_strings, 8, &out[0]) ||
	    dex_cache_array_at(m, dc.strings, dc.num_strings, 4, &out[0]))
		return 1;
	return 0;
}

/* ---- the walk ---- */

/* The graph walk from the roots: a stack of object indexes still to follow, and a bit per
 * object once it is reached. */
struct graph_walk {
	struct model *m;
	struct reach *r;
	uint32_t *stack;
	size_t sp;
	uint64_t *seen;         /* a bit per object: a few MB that stay in cache, where the objects'
	                         * own reach fields are spread over the whole table */
	size_t dex_cache;       /* class index of java.lang.DexCache, RT_NONE */
	bool nomem;             /* keeping a DexCache edge failed */
};

static void visit(struct graph_walk *w, size_t j)
{
	uint64_t bit = 1ull << (j % 64);
	if (w->seen[j / 64] & bit)
		return;
	w->seen[j / 64] |= bit;
	w->stack[w->sp++] = (uint32_t)j;   /* each object pushed once: sp <= count */
}

static int follow(void *arg, uint32_t off, uint32_t value)
{
	struct graph_walk *w = arg;
	(void)off;
	if (value == 0)
		return 0;
	size_t j = model_find(w->m, value);
	w->r->edges++;
	if (j != MODEL_NONE)
		visit(w, j);
	return 0;
}

/* Remembers that DexCache object `cache` holds String j in its native arrays (what
 * reach_holder_of answers); the first holder of each String suffices. */
static void keep_dex_cache_edge(struct graph_walk *w, size_t j, size_t cache, uint32_t idx)
{
	struct reach *r = w->r;
	if (w->seen[j / 64] >> (j % 64) & 1)
		return;   /* reached before: a root or an object already holds it */
	if (XALLOC_GROW(r->dex_cache_edges, r->dex_cache_edge_cap, r->dex_cache_edge_count + 1, 1024)) {
		w->nomem = true;
		return;
	}
	r->dex_cache_edges[r->dex_cache_edge_count++] = (struct reach_dex_cache_edge){ (uint32_t)j, (uint32_t)cache, idx };
}

static void follow_dex_cache(struct graph_walk *w, size_t cache)
{
	const struct model_obj *o = model_obj(w->m, cache);
	struct reach_source_info *s = &w->r->source[REACH_DEX_CACHES];
	struct dex_cache_array a[2];
	size_t k = dex_cache_strings(w->m, o, a);
	if (!k)
		return;
	s->present = true;
	s->detail = "strings in the DexCaches' native arrays (7.0+), followed as references";
	for (size_t t = 0; t < k; t++)
		for (size_t i = 0; i < a[t].n; i++) {
			uint32_t ref = ld_u32le(a[t].p + a[t].stride * i);
			s->words++;
			size_t j = ref ? model_find(w->m, ref) : MODEL_NONE;
			if (j != MODEL_NONE) {
				s->roots++;
				/* pairs {GcRoot<String>, u32 string_idx} (dex_cache.h DexCachePair), else
				 * the array's own index is the string index */
				uint32_t idx = a[t].stride >= 8 ? ld_u32le(a[t].p + a[t].stride * i + 4) : (uint32_t)i;
				keep_dex_cache_edge(w, j, cache, idx);
				(void)follow(w, 0, ref);
			}
		}
}

static void set_reach(struct model *m, struct reach *r, size_t i, bool seen, const uint8_t *doubt)
{
	uint8_t alloc = model_obj(m, i)->alloc;
	if (seen) {
		model_set_reach(m, i, MODEL_REACHABLE);
		r->reachable[alloc]++;
	} else if (doubt) {
		model_set_reach(m, i, MODEL_REACH_UNKNOWN);
		r->unknown[*doubt]++;
	} else {
		model_set_reach(m, i, MODEL_UNREACHABLE);
		r->unreachable[alloc]++;
	}
}

/* Marks every object reached from r's roots (each pushed once; a free object is reached but
 * not followed), then what a missing root source would hold (reach_doubt.c), and sets each
 * object's reach state, counting them. */
static int walk_graph(struct model *m, struct reach *r, struct err *e)
{
	struct graph_walk w = { m, r, xcalloc(model_count(m) ? model_count(m) : 1, sizeof(uint32_t)), 0,
				xcalloc(model_count(m) / 64 + 1, sizeof(uint64_t)),
				runtime_class_named(model_runtime(m), "java.lang.DexCache"), false };

	r->source[REACH_DEX_CACHES].detail = model_runtime(m)->layout->dex_cache.native_arrays
						     ? "no DexCache native array captured (LinearAlloc / native heap)"
						     : "5.x/6.0: DexCache arrays are heap objects, followed as fields";

	if (!w.stack || !w.seen) {
		xfree(w.stack);
		xfree(w.seen);
		return reach_nomem(e);
	}
	for (size_t i = 0; i < r->count; i++) {
		size_t j = model_find(m, r->roots[i].obj);
		if (j != MODEL_NONE)
			visit(&w, j);
	}
	uint64_t done = 0;
	while (w.sp) {
		size_t j = w.stack[--w.sp];
		const struct model_obj *o = model_obj(m, j);
		progress_to(model_progress(m), done += o->size);
		if (o->alloc != MODEL_ALLOCATED)
			continue;   /* a free object is reached, but its words are stale: not followed */
		const uint32_t *refs;
		uint32_t n = model_refs(m, j, &refs);
		r->edges += n;
		for (uint32_t k = 0; k < n; k++)
			if (refs[k] != MODEL_REF_NONE)
				visit(&w, refs[k]);
		if (o->cls == w.dex_cache && o->kind == MODEL_INSTANCE)
			follow_dex_cache(&w, j);
	}
	uint64_t *doubt = xcalloc(model_count(m) / 64 + 1, sizeof(uint64_t));
	int rc = doubt && !w.nomem ? reach_doubt(m, r, w.seen, doubt, e) : reach_nomem(e);
	for (size_t i = 0; !rc && i < model_count(m); i++)
		set_reach(m, r, i, w.seen[i / 64] >> (i % 64) & 1, doubt[i / 64] >> (i % 64) & 1 ? &r->doubt[i] : NULL);
	xfree(doubt);
	xfree(w.stack);
	xfree(w.seen);
	return rc;
}

int reach_run(struct model *m, struct reach *r, struct err *e)
{
	struct nroots n;
	struct peers pe = { 0 };
	int rc;

	memset(r, 0, sizeof(*r));
	memset(&n, 0, sizeof(n));
	r->source[REACH_VM_INTERNAL].detail = r->source[REACH_INTERNED].detail = "not read";
	rc = class_roots(m, r, e);
	if (!rc)
		rc = image_roots(m, r, e);
	if (!rc)
		rc = thread_roots(m, r, &pe, e);
	if (!rc)
		rc = native_roots(m, r, &n, &pe, e);
	if (!rc)
		rc = jni_roots(m, r, &n, e);
	if (!rc)
		rc = stack_roots(m, r, e);
	nroots_release(&n);
	xfree(pe.v);
	if (rc)
		return rc;
	dedup_roots(r);
	if ((rc = walk_graph(m, r, e)) == 0)
		rc = reach_index_holders(r, e);
	return rc;
}

/* ---- what holds an object no object references ---- */

static uint64_t obj_source_key(const void *base, size_t i)
{
	const struct reach_root *x = &((const struct reach_root *)base)[i];
	return (uint64_t)x->obj << 32 | x->source;
}

static int by_obj_source(const void *a, const void *b)
{
	const struct reach_root *x = a, *y = b;
	if (x->obj != y->obj)
		return x->obj < y->obj ? -1 : 1;
	return x->source < y->source ? -1 : x->source > y->source;
}
static uint64_t edge_key(const void *base, size_t i) { return ((const struct reach_dex_cache_edge *)base)[i].str; }

static int by_str(const void *a, const void *b)
{
	const struct reach_dex_cache_edge *x = a, *y = b;
	return x->str < y->str ? -1 : x->str > y->str;
}

/* The roots by object give an object's first source in one search (its holder, asked per
 * object by objects.jsonl, strings.tsv and the report), not one search per source. */
int reach_index_holders(struct reach *r, struct err *e)
{
	xfree(r->roots_by_obj);
	r->roots_by_obj = NULL;
	if (r->count) {
		if (!(r->roots_by_obj = xreallocarray(NULL, r->count, sizeof(*r->roots_by_obj))))
			return reach_nomem(e);
		memcpy(r->roots_by_obj, r->roots, r->count * sizeof(*r->roots_by_obj));
		qsort(r->roots_by_obj, r->count, sizeof(*r->roots_by_obj), by_obj_source);
	}
	if (r->dex_cache_edge_count > 1)
		qsort(r->dex_cache_edges, r->dex_cache_edge_count, sizeof(*r->dex_cache_edges), by_str);
	return 0;
}

bool reach_holder_of(const struct reach *r, const struct model *m, size_t i, struct reach_holder *h)
{
	const struct model_obj *o = model_obj(m, i);
	memset(h, 0, sizeof(*h));
	/* the first of its roots by source (one per source and object: dedup_roots) */
	size_t at = r->roots_by_obj ? bs_lower(r->roots_by_obj, r->count, obj_source_key, (uint64_t)o->addr << 32)
				    : r->count;
	if (at < r->count && r->roots_by_obj[at].obj == o->addr) {
		const struct reach_root *x = &r->roots_by_obj[at];
		*h = (struct reach_holder){ .kind = REACH_HOLDER_ROOT, .source = x->source, .ref = x->ref };
		return true;
	}
	size_t k = bs_find(r->dex_cache_edges, r->dex_cache_edge_count, edge_key, i);
	if (k != SIZE_MAX) {
		*h = (struct reach_holder){ .kind = REACH_HOLDER_DEX_CACHE, .dex_cache = r->dex_cache_edges[k].cache,
					    .index = r->dex_cache_edges[k].index };
		return true;
	}
	if (o->reach == MODEL_REACH_UNKNOWN && r->doubt && r->doubt[i] != REACH_DOUBT_NONE) {
		*h = (struct reach_holder){ .kind = REACH_HOLDER_DOUBT, .doubt = r->doubt[i] };
		return true;
	}
	return false;
}
