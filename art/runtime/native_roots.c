/* native_roots.c - see native_roots.h. */
#include "art/runtime/native_roots.h"

#include <math.h>
#include <string.h>

#include "art/mirror/mirror.h"
#include "art/runtime/spaces.h"
#include "carver/base/cursor.h"
#include "carver/base/xalloc.h"
#include "carver/image/symbolize.h"

enum {
	NROOTS_RUNTIME_SCAN = 4096,   /* bytes of art::Runtime searched (sizeof(Runtime) is ~2.5 KiB
	                               * on 14; the scan stops at the captured end) */
	NROOTS_OWNED_SCAN = 4096,     /* bytes of an object a Runtime member points at */
	NROOTS_MAX_TABLES = 64,       /* HashSets per intern Table (one, plus one per image) */
	NROOTS_MAX_BUCKETS = 1 << 24, /* slots of one HashSet (hostile bound) */
	NROOTS_IRT_ENTRY = 8,         /* sizeof(IrtEntry) @R14U */
	NROOTS_IRT_GLOBAL = 2,        /* kGlobal, indirect_reference_table.h @R14U */
	NROOTS_IRT_WEAK = 3,          /* kWeakGlobal */
};

static const char *const instance_symbol = "_ZN3art7Runtime9instance_E";

void nroots_release(struct nroots *n)
{
	for (unsigned p = 0; p < NROOTS_PART_COUNT; p++)
		xfree(n->refs[p]);
	memset(n, 0, sizeof(*n));
}

static int nroots_nomem(struct err *e)
{
	return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory reading native roots");
}

static int add_ref(struct nroots *n, enum nroots_part p, uint32_t obj, uint64_t at, struct err *e)
{
	if (n->count[p] == n->cap[p]) {
		size_t cap = n->cap[p] ? n->cap[p] * 2 : 16;
		struct nroots_ref *v = xreallocarray(n->refs[p], cap, sizeof(*v));
		if (!v)
			return nroots_nomem(e);
		n->refs[p] = v;
		n->cap[p] = cap;
	}
	n->refs[p][n->count[p]++] = (struct nroots_ref){ obj, at };
	return 0;
}

/* The captured bytes [va, va + len) in one region, NULL if not all are captured. */
static const uint8_t *captured(const struct image *img, uint64_t va, size_t len)
{
	return img_span(img, va, len, NULL);
}

/* How many bytes from va (at most max) are captured in one region. */
static size_t captured_len(const struct image *img, uint64_t va, size_t max)
{
	size_t n;
	img_span(img, va, 1, &n);
	return n < max ? n : max;
}

/* The Java name of the class of the object at ref, NULL if it names no known class. */
/* The name of the class of the object ref, NULL with *why set when ref is no object of a
 * known class: candidates of a search by content fail so, and *why says why. */
static const char *class_of(const struct art_runtime *rt, uint32_t ref, struct err *why)
{
	uint32_t k;
	const struct rt_class *c;

	if (!ref || (ref & (MIRROR_OBJECT_ALIGN - 1))) {
		ERR_SET(why, ERR_CORRUPT, ref, "0x%x is no object reference", ref);
		return NULL;
	}
	if (mirror_klass(&rt->m, ref, &k, why))
		return NULL;
	if (!(c = runtime_class_at(rt, k)) || !c->name) {
		ERR_SET(why, ERR_CORRUPT, ref, "object at 0x%x: class word 0x%x names no known class", ref, k);
		return NULL;
	}
	return c->name;
}

/* False when class_of(ref) must fail: ref is null, misaligned or its class word is not
 * captured.  A scan by content asks for every word: this answers most without formatting
 * the error message that class_of would (most of the scan's time on a whole-process core). */
static bool maybe_object(const struct art_runtime *rt, uint32_t ref)
{
	return ref && !(ref & (MIRROR_OBJECT_ALIGN - 1)) && captured_len(rt->img, ref + rt->m.l->object.klass, 1);
}

static bool is_class(const struct art_runtime *rt, uint32_t ref, const char *name, struct err *why)
{
	const char *n = class_of(rt, ref, why);
	if (n && strcmp(n, name)) {
		ERR_SET(why, ERR_CORRUPT, ref, "object at 0x%x is a %s, not a %s", ref, n, name);
		return false;
	}
	return n != NULL;
}

static int runtime_instance(const struct art_runtime *rt, uint64_t *runtime, struct err *why, struct err *e)
{
	struct symz *s = NULL;
	uint64_t at;
	int rc;

	*runtime = 0;
	if ((rc = symz_new(&s, NULL, e)) || (rc = symz_add_image_files(s, rt->img, "libart", e)) ||
	    (rc = symz_symbol_va(s, "libart", instance_symbol, &at, why, e))) {
		symz_free(s);
		return rc;
	}
	symz_free(s);
	if ((rc = mirror_ptr(&rt->m, at, runtime, why))) {
		err_prefix(why, "art::Runtime::instance_ at 0x%llx", (unsigned long long)at);
		return 1;
	}
	if (*runtime == 0 || !captured(rt->img, *runtime, 64)) {
		ERR_SET(why, ERR_UNMAPPED, at, "art::Runtime::instance_ at 0x%llx holds 0x%llx, not captured",
			(unsigned long long)at, (unsigned long long)*runtime);
		*runtime = 0;
		return 1;
	}
	return 0;
}

int nroots_runtime_errors(const struct art_runtime *rt, uint64_t runtime, struct nroots *out, struct err *why,
			  struct err *e)
{
	const unsigned P = rt->pointer_size;
	size_t len = captured_len(rt->img, runtime, NROOTS_RUNTIME_SCAN);
	const uint8_t *b = captured(rt->img, runtime, len);
	size_t found = SIZE_MAX, runs = 0;
	int rc;

	for (size_t o = 0; b && o + 16 <= len; o += 4) {
		/* the rejections' messages are dropped below: the cheap test first */
		if (!maybe_object(rt, ld_u32le(b + o)) || !maybe_object(rt, ld_u32le(b + o + 4)) ||
		    !maybe_object(rt, ld_u32le(b + o + 8)) || !maybe_object(rt, ld_u32le(b + o + 12)))
			continue;
		if (!is_class(rt, ld_u32le(b + o), "java.lang.OutOfMemoryError", why) ||
		    !is_class(rt, ld_u32le(b + o + 4), "java.lang.OutOfMemoryError", why) ||
		    !is_class(rt, ld_u32le(b + o + 8), "java.lang.OutOfMemoryError", why) ||
		    !is_class(rt, ld_u32le(b + o + 12), "java.lang.NoClassDefFoundError", why))
			continue;
		found = o;
		runs++;
	}
	if (runs == 1)
		err_init(why);   /* the rejections of the other candidates are no failure */
	if (runs != 1) {
		ERR_SET(why, ERR_CORRUPT, runtime,
			"art::Runtime at 0x%llx: %zu runs of three OutOfMemoryError and one NoClassDefFoundError roots, expected 1",
			(unsigned long long)runtime, runs);
		return 1;
	}
	for (unsigned i = 0; i < 4; i++)
		if ((rc = add_ref(out, NROOTS_VM_INTERNAL, ld_u32le(b + found + 4 * i), runtime + found + 4 * i, e)))
			return rc;
	/* sentinel_ after resolution_method_, imt_conflict_method_, imt_unimplemented_method_ */
	size_t so = found + 16 + 3 * (size_t)P;
	if (so + 4 <= len && is_class(rt, ld_u32le(b + so), "java.lang.Object", why)) {
		if ((rc = add_ref(out, NROOTS_VM_INTERNAL, ld_u32le(b + so), runtime + so, e)))
			return rc;
	} else {
		ERR_SET(why, ERR_CORRUPT, runtime + so, "art::Runtime at 0x%llx: sentinel_ at +%zu is no java.lang.Object",
			(unsigned long long)runtime, so);
		return 2;   /* the errors were read, the sentinel was not */
	}
	return 0;
}

/* ---- ClassLinker::class_roots_ ---- */

/* 1 when ref is the class roots array: elements 0 and 1 are java.lang.Class and
 * java.lang.Object, every element a Class (its class is java.lang.Class) or null. */
static bool class_roots_array(const struct art_runtime *rt, uint32_t ref, struct err *why)
{
	uint32_t n, x;
	const char *name = class_of(rt, ref, why);

	/* allocated as an Object[] before Class[] exists (class_linker.cc InitWithoutImage @R14U) */
	if (!name || (strcmp(name, "java.lang.Class[]") && strcmp(name, "java.lang.Object[]")) ||
	    mirror_array_length(&rt->m, ref, &n, why) || n < 2 || n > 4096)
		return false;
	if (mirror_array_ref(&rt->m, ref, 0, &x, why) || x != rt->java_lang_class)
		return false;
	if (mirror_array_ref(&rt->m, ref, 1, &x, why) || !runtime_class_at(rt, x) ||
	    strcmp(runtime_class_at(rt, x)->name ? runtime_class_at(rt, x)->name : "", "java.lang.Object"))
		return false;
	for (uint32_t i = 2; i < n; i++)
		if (mirror_array_ref(&rt->m, ref, i, &x, why) || (x && !runtime_class_at(rt, x)))
			return false;
	return true;
}

/* ---- HashSet<GcRoot<String>> ---- */

int nroots_hash_set(const struct art_runtime *rt, uint64_t va, uint64_t *data, uint64_t *buckets,
		    uint64_t *elements, struct err *why)
{
	const uint8_t *b = captured(rt->img, va, 64);

	if (!b) {
		ERR_SET(why, ERR_UNMAPPED, va, "HashSet at 0x%llx not captured", (unsigned long long)va);
		return 1;
	}
	/* the empty functors take the first bytes: num_elements_ is at 0 or 8 */
	for (unsigned h = 0; h <= 8; h += 8) {
		uint64_t ne = ld_u64le(b + h), nb = ld_u64le(b + h + 8), d = ld_u64le(b + h + 32);
		double lo, hi;
		memcpy(&lo, b + h + 40, 8);
		memcpy(&hi, b + h + 48, 8);
		if (!d || !nb || nb > NROOTS_MAX_BUCKETS || ne > nb || !isfinite(lo) || !isfinite(hi) || !(lo > 0) ||
		    !(lo < hi) || !(hi <= 1))
			continue;
		const uint8_t *s = captured(rt->img, d, (size_t)nb * 4);
		if (!s)
			continue;
		uint64_t used = 0;
		for (uint64_t i = 0; i < nb; i++)
			used += ld_u32le(s + 4 * i) != 0;
		if (used != ne)
			continue;
		*data = d;
		*buckets = nb;
		*elements = ne;
		return 0;
	}
	ERR_SET(why, ERR_CORRUPT, va, "no HashSet<GcRoot<String>> at 0x%llx", (unsigned long long)va);
	return 1;
}

/* A Table (std::vector {begin, end, end_of_storage}) at va: its sets, all valid. */
static int intern_vector(const struct art_runtime *rt, const uint8_t *v, uint64_t sets[NROOTS_MAX_TABLES],
			 size_t *count, struct err *why)
{
	static const unsigned strides[2] = { 72, 64 };   /* InternalTable (11+), HashSet (10) */
	uint64_t b = ld_u64le(v), e = ld_u64le(v + 8), c = ld_u64le(v + 16);

	if (!b || e <= b || c < e) {
		ERR_SET(why, ERR_CORRUPT, ERR_NO_VA, "no std::vector {0x%llx, 0x%llx, 0x%llx}", (unsigned long long)b,
			(unsigned long long)e, (unsigned long long)c);
		return 1;
	}
	for (unsigned t = 0; t < 2; t++) {
		uint64_t n = (e - b) / strides[t], d, nb, ne;
		bool ok = (e - b) % strides[t] == 0 && n <= NROOTS_MAX_TABLES;
		for (uint64_t i = 0; ok && i < n; i++) {
			ok = nroots_hash_set(rt, b + i * strides[t], &d, &nb, &ne, why) == 0;
			sets[i] = b + i * strides[t];
		}
		if (ok) {
			*count = (size_t)n;
			return 0;
		}
	}
	return 1;
}

/* The strings of the Table at b + o into out (strong: roots; weak: counted). */
static int table_strings(const struct art_runtime *rt, const uint8_t *v, bool strong, struct nroots *out,
			 struct err *why, struct err *e)
{
	uint64_t sets[NROOTS_MAX_TABLES];
	size_t n = 0;
	int rc;

	if (intern_vector(rt, v, sets, &n, why))
		return 1;
	for (size_t i = 0; i < n; i++) {
		uint64_t d = 0, nb = 0, ne;
		if (nroots_hash_set(rt, sets[i], &d, &nb, &ne, why))
			return 1;
		const uint8_t *s = captured(rt->img, d, (size_t)nb * 4);
		for (uint64_t k = 0; s && k < nb; k++) {
			uint32_t ref = ld_u32le(s + 4 * k);
			if (!ref)
				continue;
			if (!strong) {
				out->weak_interns++;
				continue;
			}
			if (!is_class(rt, ref, "java.lang.String", why)) {
				if (!out->bad_interns++)
					out->first_bad_intern = d + 4 * k;
				continue;
			}
			if ((rc = add_ref(out, NROOTS_INTERNED, ref, d + 4 * k, e)))
				return rc;
		}
	}
	return 0;
}

/* strong_interns_ and weak_interns_ are two Tables with new_strong_intern_roots_ (a
 * std::vector, 3 pointers) between them (intern_table.h @R10..R14U): only a pair of valid
 * Tables that far apart is taken, so a damaged strong Table never lets the weak one pass
 * for it. */
enum { NROOTS_WEAK_AFTER_STRONG = 48 };

int nroots_intern_table(const struct art_runtime *rt, uint64_t table, struct nroots *out, struct err *why,
			struct err *e)
{
	size_t len = captured_len(rt->img, table, 512);
	const uint8_t *b = captured(rt->img, table, len);
	uint64_t sets[NROOTS_MAX_TABLES];
	size_t n;
	int rc;

	for (size_t o = 0; b && o + NROOTS_WEAK_AFTER_STRONG + 24 <= len; o += 8) {
		if (intern_vector(rt, b + o, sets, &n, why) ||
		    intern_vector(rt, b + o + NROOTS_WEAK_AFTER_STRONG, sets, &n, why))
			continue;
		if ((rc = table_strings(rt, b + o, true, out, why, e)) < 0 ||
		    (rc = table_strings(rt, b + o + NROOTS_WEAK_AFTER_STRONG, false, out, why, e)) < 0)
			return rc;
		err_init(why);   /* found: the rejections on the way are no failure */
		return 0;
	}
	ERR_SET(why, ERR_CORRUPT, table, "no strong and weak intern Tables (vectors of HashSets) in 0x%llx",
		(unsigned long long)table);
	return 1;
}

/* ---- JavaVMExt's IndirectReferenceTables (14+) ---- */

static bool region_named(const struct img_region *reg, const char *name)
{
	const char *inner;
	size_t len;
	return reg && spaces_dalvik_name(reg->name, &inner, &len) && len == strlen(name) && !memcmp(inner, name, len);
}

/* An IndirectReferenceTable whose table_ is at b + o: 1 for kGlobal, 2 for kWeakGlobal, 0 no. */
static int irt_at(const struct art_runtime *rt, const uint8_t *b, size_t len, size_t o, uint64_t *top)
{
	uint64_t t = ld_u64le(b + o);
	const struct img_region *reg;

	if (o + 40 > len || !t || !(reg = img_find(rt->img, t)) || reg->start != t ||
	    !region_named(reg, "indirect ref table"))
		return 0;
	uint32_t kind = ld_u32le(b + o + 8);
	uint64_t ti = ld_u64le(b + o + 16), max = ld_u64le(b + o + 24), holes = ld_u64le(b + o + 32);
	if ((kind != NROOTS_IRT_GLOBAL && kind != NROOTS_IRT_WEAK) || max != (reg->end - reg->start) / NROOTS_IRT_ENTRY ||
	    ti > max || holes > ti)
		return 0;
	*top = ti;
	return kind == NROOTS_IRT_GLOBAL ? 1 : 2;
}

static int irt_roots(const struct art_runtime *rt, const uint8_t *b, size_t len, struct nroots *out,
		     struct err *e)
{
	int rc;
	for (size_t o = 0; o + 40 <= len; o += 8) {
		uint64_t top = 0, t = ld_u64le(b + o);
		int k = irt_at(rt, b, len, o, &top);
		if (!k)
			continue;
		if (out->irt_tables < NROOTS_MAX_IRT)
			out->irt_start[out->irt_tables] = t;
		out->irt_tables++;
		if (k == 2)
			continue;   /* weak globals are not roots */
		out->present[NROOTS_JNI_GLOBAL] = true;
		out->detail[NROOTS_JNI_GLOBAL] = "JavaVMExt::globals_ up to its top_index_ (14+)";
		const uint8_t *ent = captured(rt->img, t, (size_t)top * NROOTS_IRT_ENTRY);
		for (uint64_t i = 0; ent && i < top; i++) {
			uint32_t ref = ld_u32le(ent + NROOTS_IRT_ENTRY * i + 4);
			if (ref && (rc = add_ref(out, NROOTS_JNI_GLOBAL, ref, t + NROOTS_IRT_ENTRY * i + 4, e)))
				return rc;
		}
	}
	return 0;
}

/* ---- jni::LocalReferenceTable (14+) ---- */

enum {
	NROOTS_LRT_SMALL = 128,       /* kSmallLrtEntries = kInitialLrtBytes 512 / 4 */
	NROOTS_LRT_MAX_TABLES = 20,   /* 128 << 19 entries: far past kMaxTableSizeInBytes */
	NROOTS_LRT_CHECKJNI = 4,      /* kCheckJniEntriesPerReference */
};

static int lrt_table(const struct art_runtime *rt, uint64_t t, uint32_t count, struct nroots *out, struct err *e)
{
	const uint8_t *b = captured(rt->img, t, (size_t)count * 4);
	int rc;

	if (!b)
		return 1;
	for (uint32_t i = 0; i < count;) {
		uint32_t v = ld_u32le(b + 4ull * i), at = i;
		if (i % NROOTS_LRT_CHECKJNI == 0 && (v & 2)) {
			uint32_t serial = v >> 2;
			if (serial == 0 || serial >= NROOTS_LRT_CHECKJNI || i + NROOTS_LRT_CHECKJNI > count)
				return 1;
			at = i + serial;
			v = ld_u32le(b + 4ull * at);
			i += NROOTS_LRT_CHECKJNI;
		} else {
			i++;
		}
		if ((v & 3) || !v)
			continue;   /* free (or, past a damaged serial, not a reference) */
		if ((rc = add_ref(out, NROOTS_JNI_LOCAL, v, t + 4ull * at, e)))
			return rc;
	}
	return 0;
}

/* The LRT at b (len bytes, va at): 0 read, 1 not an LRT. */
static int lrt_at(const struct art_runtime *rt, const uint8_t *b, size_t len, struct nroots *out, struct err *e)
{
	if (len < 48)
		return 1;
	uint32_t top = ld_u32le(b), max = ld_u32le(b + 4);
	uint64_t small = ld_u64le(b + 16), tb = ld_u64le(b + 24), te = ld_u64le(b + 32), tc = ld_u64le(b + 40);
	unsigned k = 0;

	while (k < NROOTS_LRT_MAX_TABLES && ((uint64_t)NROOTS_LRT_SMALL << k) < max)
		k++;
	if (top > max || (uint64_t)NROOTS_LRT_SMALL << k != max)
		return 1;
	if (small)
		return max != NROOTS_LRT_SMALL ? 1 : lrt_table(rt, small, top, out, e);
	/* tables of 128, 128, 256, ...: max = 128 << (n - 1) for n tables */
	uint64_t n = (te - tb) / 8;
	if (!tb || te < tb || tc < te || (te - tb) % 8 || n == 0 || n > NROOTS_LRT_MAX_TABLES ||
	    (n == 1 ? NROOTS_LRT_SMALL : (uint64_t)NROOTS_LRT_SMALL << (n - 1)) != max)
		return 1;
	const uint8_t *tv = captured(rt->img, tb, (size_t)n * 8);
	if (!tv)
		return 1;
	uint32_t remaining = top;
	for (uint64_t i = 0; i < n && remaining; i++) {
		uint32_t size = i == 0 ? (uint32_t)NROOTS_LRT_SMALL : (uint32_t)NROOTS_LRT_SMALL << (i - 1);
		uint32_t count = remaining < size ? remaining : size;
		int rc = lrt_table(rt, ld_u64le(tv + 8 * i), count, out, e);
		if (rc)
			return rc;
		remaining -= count;
	}
	return 0;
}

int nroots_thread_locals(const struct art_runtime *rt, uint64_t thread, struct nroots *out, struct err *why,
			 struct err *e)
{
	size_t len = captured_len(rt->img, thread, NROOTS_OWNED_SCAN);
	const uint8_t *b = captured(rt->img, thread, len);

	for (size_t o = 0; b && o + 8 <= len; o += 8) {
		uint64_t env = ld_u64le(b + o);
		size_t elen;
		const uint8_t *q;
		if (!env || (env & 7) || env == thread || (elen = captured_len(rt->img, env, 256)) < 64 ||
		    !(q = captured(rt->img, env, elen)) || ld_u64le(q + 8) != thread)
			continue;
		/* JNIEnvExt: functions, self_, vm_, local_ref_cookie_, then locals_ (8-aligned) */
		for (size_t l = 24; l + 48 <= elen && l <= 64; l += 8) {
			size_t before = out->count[NROOTS_JNI_LOCAL];
			int rc = lrt_at(rt, q + l, elen - l, out, e);
			if (rc < 0)
				return rc;
			if (rc == 0)
				return 0;
			out->count[NROOTS_JNI_LOCAL] = before;   /* a candidate that failed midway */
		}
	}
	ERR_SET(why, ERR_CORRUPT, thread, "art::Thread at 0x%llx: no JNIEnvExt with a LocalReferenceTable found",
		(unsigned long long)thread);
	return 1;
}

/* ---- the whole ---- */

static void note(struct anomaly_sink *sink, const struct err *why, uint64_t runtime)
{
	if (sink && why->code)
		anomaly_add(sink, ANOM_ROOTS, why->code, why->va != ERR_NO_VA ? why->va : runtime, "art::Runtime", "%s",
			    why->msg);
}

int nroots_find(const struct art_runtime *rt, struct nroots *out, struct anomaly_sink *sink, struct err *e)
{
	struct err why;
	uint64_t runtime;
	int rc;

	memset(out, 0, sizeof(*out));
	for (unsigned p = 0; p < NROOTS_PART_COUNT; p++)
		out->detail[p] = "art::Runtime not found (libart's Runtime::instance_ and the Runtime not captured)";
	if (rt->pointer_size != 8) {
		/* the decoders read 64-bit std::vector, HashSet, IndirectReferenceTable layouts */
		for (unsigned p = 0; p < NROOTS_PART_COUNT; p++)
			out->detail[p] = "32-bit process: the runtime's native structures are not read";
		return 0;
	}
	err_init(&why);
	if ((rc = runtime_instance(rt, &runtime, &why, e)) < 0)
		return rc;
	if (rc) {   /* a trimmed capture: not damage, but the summary says why */
		snprintf(out->not_found, sizeof(out->not_found), "art::Runtime not found: %s", why.msg);
		for (unsigned p = 0; p < NROOTS_PART_COUNT; p++)
			out->detail[p] = out->not_found;
		return 0;
	}
	return nroots_from_runtime(rt, runtime, out, sink, e);
}

int nroots_from_runtime(const struct art_runtime *rt, uint64_t runtime, struct nroots *out,
			struct anomaly_sink *sink, struct err *e)
{
	struct err why;
	int rc;

	out->runtime = runtime;

	/* pre-allocated errors and the sentinel */
	err_init(&why);
	if ((rc = nroots_runtime_errors(rt, runtime, out, &why, e)) < 0)
		return rc;
	note(sink, &why, runtime);
	int errors = rc;   /* 0 errors and sentinel_, 2 errors only, 1 neither */
	out->detail[NROOTS_INTERNED] = "no intern table found in art::Runtime (see anomalies)";
	out->detail[NROOTS_JNI_GLOBAL] = "no IndirectReferenceTable of globals found from art::Runtime";

	/* objects the Runtime's pointer members point at: ClassLinker, InternTable, JavaVMExt */
	size_t len = captured_len(rt->img, runtime, NROOTS_RUNTIME_SCAN), tables = 0, roots_found = 0;
	const uint8_t *b = captured(rt->img, runtime, len);
	uint32_t class_roots = 0;
	uint64_t class_roots_at = 0;
	struct err intern_why, roots_why;   /* the last candidate's rejection, for the anomalies */
	uint32_t unexplained = 0;           /* the last candidate, when rejected by maybe_object */
	err_init(&intern_why);
	err_init(&roots_why);
	for (size_t o = 0; b && o + 8 <= len; o += 8) {
		uint64_t p = ld_u64le(b + o);
		size_t plen;
		const uint8_t *q;
		if (!p || (p & 7) || p == runtime || !(plen = captured_len(rt->img, p, NROOTS_OWNED_SCAN)) ||
		    !(q = captured(rt->img, p, plen)))
			continue;
		if (!tables) {
			if ((rc = nroots_intern_table(rt, p, out, &intern_why, e)) < 0)
				return rc;
			if (rc == 0) {
				out->present[NROOTS_INTERNED] = true;
				out->detail[NROOTS_INTERNED] = "the strong intern table (InternTable::strong_interns_)";
				tables++;
				continue;
			}
		}
		unsigned irt_before = out->irt_tables;
		if ((rc = irt_roots(rt, q, plen, out, e)) < 0)
			return rc;
		if (out->irt_tables > irt_before)
			continue;
		for (size_t k = 0; k + 4 <= plen; k += 4) {
			uint32_t v = ld_u32le(q + k);
			if (!v || v == class_roots)
				continue;
			if (!maybe_object(rt, v)) {   /* rejected unformatted: its message is made if last */
				unexplained = v;
				continue;
			}
			/* a rejection that writes roots_why supersedes an unexplained one (the code
			 * is cleared to see the write, and put back when there was none) */
			enum err_code last = roots_why.code;
			roots_why.code = ERR_OK;
			if (class_roots_array(rt, v, &roots_why)) {
				class_roots = v;
				class_roots_at = p + k;
				roots_found++;
			}
			if (roots_why.code != ERR_OK)
				unexplained = 0;
			else
				roots_why.code = last;
		}
	}
	if (unexplained)   /* the last candidate's rejection, as if every one had been checked */
		class_roots_array(rt, unexplained, &roots_why);
	if (!out->present[NROOTS_INTERNED])
		anomaly_add(sink, ANOM_ROOTS, ERR_CORRUPT, runtime, "art::Runtime",
			    "art::Runtime at 0x%llx: no InternTable with a valid strong Table found through its members "
			    "(the last candidate: %s)", (unsigned long long)runtime, intern_why.msg);
	if (out->bad_interns)
		anomaly_add(sink, ANOM_ROOTS, ERR_CORRUPT, out->first_bad_intern, "intern table",
			    "intern table: %llu strong entries name no java.lang.String (first at 0x%llx), not used as roots",
			    (unsigned long long)out->bad_interns, (unsigned long long)out->first_bad_intern);
	if (roots_found == 1 && (rc = add_ref(out, NROOTS_VM_INTERNAL, class_roots, class_roots_at, e)))
		return rc;
	if (roots_found != 1)
		anomaly_add(sink, ANOM_ROOTS, ERR_CORRUPT, runtime, "art::Runtime",
			    "art::Runtime at 0x%llx: %zu class roots arrays (ClassLinker::class_roots_) found, expected 1%s%s%s",
			    (unsigned long long)runtime, roots_found, roots_found ? "" : " (the last candidate: ",
			    roots_found ? "" : roots_why.msg, roots_found ? "" : ")");
	/* present when any part decoded; the detail says which parts are missing */
	out->present[NROOTS_VM_INTERNAL] = out->count[NROOTS_VM_INTERNAL] > 0;
	if (errors == 0 && roots_found == 1)
		out->detail[NROOTS_VM_INTERNAL] = "art::Runtime's pre-allocated errors, sentinel_ and class roots";
	else if (errors != 1 && roots_found != 1)
		out->detail[NROOTS_VM_INTERNAL] = errors == 0 ? "art::Runtime's pre-allocated errors and sentinel_; class roots missing (see anomalies)"
							      : "art::Runtime's pre-allocated errors; sentinel_ and class roots missing (see anomalies)";
	else if (errors == 2)
		out->detail[NROOTS_VM_INTERNAL] = "art::Runtime's pre-allocated errors and class roots; sentinel_ missing (see anomalies)";
	else
		out->detail[NROOTS_VM_INTERNAL] = roots_found == 1 ? "class roots only; art::Runtime's pre-allocated errors and sentinel_ missing (see anomalies)"
								   : "art::Runtime's own roots did not decode (see anomalies)";
	return 0;
}
