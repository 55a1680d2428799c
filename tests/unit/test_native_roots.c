/* test_native_roots.c - art/runtime/native_roots.c on a hand-made ART 14 process: an
 * art::Runtime with its pre-allocated errors and sentinel_, an InternTable (strong and weak
 * Tables of HashSets), a JavaVMExt with the global and weak global IndirectReferenceTables,
 * a ClassLinker with class_roots_; then damage (a bad intern entry, a HashSet whose data is
 * cut off, counts that disagree, load factors that are no numbers, a table top past its
 * size, two runs of errors) which must give anomalies or missing parts, never a crash or
 * a guessed root.  Also the 14+ DexCache strings_array_ and its DexFile's string count. */
#include <stdlib.h>

#include "art/mirror/mirror.h"
#include "art/runtime/native_roots.h"
#include "carver/base/anomaly.h"
#include "carver/image/image.h"
#include "t.h"

#define HEAP 0x12c00000u
#define NAT 0x7f0000000000ull
#define IRTG 0x7f1000000000ull
#define IRTW 0x7f1000001000ull

enum { C_CLASS, C_OBJECT, C_STRING, C_OOME, C_NCDFE, C_OBJARR, C_COUNT };
static const char *const names[C_COUNT] = { "java.lang.Class", "java.lang.Object", "java.lang.String",
					    "java.lang.OutOfMemoryError", "java.lang.NoClassDefFoundError",
					    "java.lang.Object[]" };

static uint8_t heap[0x4000], nat[0x4000], irtg[0x1000], irtw[0x1000];
static struct rt_class cls[C_COUNT];
static struct art_runtime rt;
static struct image img;

static void w32(uint8_t *base, uint64_t at, uint64_t va, uint32_t v) { memcpy(base + (va - at), &v, 4); }
static void w64(uint8_t *base, uint64_t at, uint64_t va, uint64_t v) { memcpy(base + (va - at), &v, 8); }
static void h32(uint32_t va, uint32_t v) { w32(heap, HEAP, va, v); }
static void n32(uint64_t va, uint32_t v) { w32(nat, NAT, va, v); }
static void n64(uint64_t va, uint64_t v) { w64(nat, NAT, va, v); }
static void nd(uint64_t va, double d) { memcpy(nat + (va - NAT), &d, 8); }
static uint32_t caddr(int i) { return HEAP + 0x100u * (uint32_t)i; }

/* objects */
#define OOME1 0x12c01000u
#define OOME2 0x12c01020u
#define OOME3 0x12c01040u
#define NCDFE 0x12c01060u
#define SENT 0x12c01080u
#define ROOTS 0x12c01100u
#define S1 0x12c01200u
#define S2 0x12c01220u
#define S3 0x12c01240u
#define JG 0x12c01300u
#define JW 0x12c01320u
#define JSTALE 0x12c01340u
#define JUNK 0x12c03ff8u   /* a word whose class word names no class */

/* native */
#define RUNTIME NAT
#define INTERN (NAT + 0x400)
#define JAVAVM (NAT + 0x800)
#define LINKER (NAT + 0xc00)
#define SET_S (NAT + 0x1000)
#define SET_W (NAT + 0x1100)
#define DATA_S (NAT + 0x1800)
#define DATA_W (NAT + 0x1900)

static void hash_set(uint64_t at, uint64_t elements, uint64_t buckets, uint64_t data)
{
	n64(at + 8, elements);
	n64(at + 16, buckets);
	n64(at + 24, buckets * 7 / 10);
	nat[at + 32 - NAT] = 1;
	n64(at + 40, data);
	nd(at + 48, 0.4);   /* kDefaultMinLoadFactor, hash_set.h @R14U */
	nd(at + 56, 0.7);
}

static void build(void)
{
	struct err e;

	memset(heap, 0, sizeof(heap));
	memset(nat, 0, sizeof(nat));
	memset(irtg, 0, sizeof(irtg));
	memset(irtw, 0, sizeof(irtw));
	memset(cls, 0, sizeof(cls));
	for (int i = 0; i < C_COUNT; i++) {
		cls[i].addr = caddr(i);
		cls[i].name = names[i];
		cls[i].super = cls[i].component = cls[i].dex = RT_NONE;
		h32(caddr(i), caddr(C_CLASS));
	}
	h32(OOME1, caddr(C_OOME));
	h32(OOME2, caddr(C_OOME));
	h32(OOME3, caddr(C_OOME));
	h32(NCDFE, caddr(C_NCDFE));
	h32(SENT, caddr(C_OBJECT));
	h32(ROOTS, caddr(C_OBJARR));   /* Object[] of the classes, java.lang.Class first */
	h32(ROOTS + 8, C_COUNT);
	for (int i = 0; i < C_COUNT; i++)
		h32(ROOTS + 12 + 4 * (uint32_t)i, caddr(i));
	h32(S1, caddr(C_STRING));
	h32(S2, caddr(C_STRING));
	h32(S3, caddr(C_STRING));
	h32(JG, caddr(C_OBJECT));
	h32(JW, caddr(C_OBJECT));
	h32(JSTALE, caddr(C_OBJECT));
	h32(JUNK, 0x12c03000u);

	/* art::Runtime (runtime.h @R14U): callee_save_methods_[6], the four errors, three
	 * ArtMethod*, sentinel_; pointer members further on */
	n32(RUNTIME + 48, OOME1);
	n32(RUNTIME + 52, OOME2);
	n32(RUNTIME + 56, OOME3);
	n32(RUNTIME + 60, NCDFE);
	n64(RUNTIME + 64, NAT + 0x3000);
	n64(RUNTIME + 72, NAT + 0x3040);
	n64(RUNTIME + 80, NAT + 0x3080);
	n32(RUNTIME + 88, SENT);
	n64(RUNTIME + 200, INTERN);
	n64(RUNTIME + 208, JAVAVM);
	n64(RUNTIME + 216, LINKER);

	/* InternTable: strong Table vector at +56, new_strong_intern_roots_ at +80, weak at +104 */
	n64(INTERN + 56, SET_S);
	n64(INTERN + 64, SET_S + 72);
	n64(INTERN + 72, SET_S + 72);
	n64(INTERN + 104, SET_W);
	n64(INTERN + 112, SET_W + 72);
	n64(INTERN + 120, SET_W + 72);
	hash_set(SET_S, 2, 8, DATA_S);
	n32(DATA_S + 4, S1);
	n32(DATA_S + 20, S2);
	hash_set(SET_W, 1, 8, DATA_W);
	n32(DATA_W + 8, S3);

	/* JavaVMExt: globals_ table_ at +112 (kind 2, top 2), weak_globals_ at +200 (kind 3) */
	n64(JAVAVM, RUNTIME);
	n64(JAVAVM + 112, IRTG);
	n32(JAVAVM + 120, 2);
	n64(JAVAVM + 128, 2);
	n64(JAVAVM + 136, sizeof(irtg) / 8);
	n64(JAVAVM + 200, IRTW);
	n32(JAVAVM + 208, 3);
	n64(JAVAVM + 216, 1);
	n64(JAVAVM + 224, sizeof(irtw) / 8);
	w32(irtg, IRTG, IRTG + 4, JG);          /* IrtEntry {serial_, reference_} */
	w32(irtg, IRTG, IRTG + 20, JSTALE);     /* entry 2: above top_index_, not read */
	w32(irtw, IRTW, IRTW + 4, JW);

	/* ClassLinker: class_roots_ somewhere inside */
	w32(nat, NAT, LINKER + 40, ROOTS);

	img_close(&img);
	err_init(&e);
	img_init_empty(&img, "native roots test");
	T_EQ_I(img_add_region_mem(&img, HEAP, heap, sizeof(heap), IMG_PROT_R | IMG_PROT_W, "[anon:dalvik-main space]", &e), 0);
	T_EQ_I(img_add_region_mem(&img, NAT, nat, sizeof(nat), IMG_PROT_R | IMG_PROT_W, "[heap]", &e), 0);
	T_EQ_I(img_add_region_mem(&img, IRTG, irtg, sizeof(irtg), IMG_PROT_R | IMG_PROT_W,
				  "[anon:dalvik-indirect ref table]", &e), 0);
	T_EQ_I(img_add_region_mem(&img, IRTW, irtw, sizeof(irtw), IMG_PROT_R | IMG_PROT_W,
				  "[anon:dalvik-indirect ref table]", &e), 0);
	memset(&rt, 0, sizeof(rt));
	rt.img = &img;
	rt.layout = art_layout_by_family("14");
	rt.pointer_size = 8;
	rt.m = (struct mirror){ &img, rt.layout, 8 };
	rt.java_lang_class = caddr(C_CLASS);
	rt.classes = cls;
	rt.class_count = C_COUNT;
}

static bool has(const struct nroots *n, enum nroots_part p, uint32_t obj)
{
	for (size_t i = 0; i < n->count[p]; i++)
		if (n->refs[p][i].obj == obj)
			return true;
	return false;
}

/* Decodes the fixture; returns the anomaly count. */
static size_t decode(struct nroots *n)
{
	struct anomaly_sink sink;
	struct err e;
	size_t a;

	anomaly_init(&sink, 0);
	err_init(&e);
	memset(n, 0, sizeof(*n));
	T_EQ_I(nroots_from_runtime(&rt, RUNTIME, n, &sink, &e), 0);
	a = sink.total;
	for (size_t i = 0; i < sink.count && i < 4; i++)
		printf("# anomaly: %s\n", sink.v[i].msg);
	anomaly_release(&sink);
	return a;
}

static void test_intact(void)
{
	struct nroots n;

	build();
	T_EQ_U(decode(&n), 0);
	T_CHECK(n.present[NROOTS_VM_INTERNAL] && n.present[NROOTS_INTERNED] && n.present[NROOTS_JNI_GLOBAL],
		"every part decodes");
	T_EQ_U(n.count[NROOTS_VM_INTERNAL], 6);
	T_CHECK(has(&n, NROOTS_VM_INTERNAL, OOME1) && has(&n, NROOTS_VM_INTERNAL, OOME3) &&
			has(&n, NROOTS_VM_INTERNAL, NCDFE) && has(&n, NROOTS_VM_INTERNAL, SENT) &&
			has(&n, NROOTS_VM_INTERNAL, ROOTS),
		"errors, sentinel and class roots");
	T_EQ_U(n.count[NROOTS_INTERNED], 2);
	T_CHECK(has(&n, NROOTS_INTERNED, S1) && has(&n, NROOTS_INTERNED, S2) && !has(&n, NROOTS_INTERNED, S3),
		"the strong table only");
	T_EQ_U(n.weak_interns, 1);
	T_EQ_U(n.irt_tables, 2);
	T_EQ_U(n.count[NROOTS_JNI_GLOBAL], 1);
	T_CHECK(has(&n, NROOTS_JNI_GLOBAL, JG) && !has(&n, NROOTS_JNI_GLOBAL, JW) && !has(&n, NROOTS_JNI_GLOBAL, JSTALE),
		"globals below top_index_ only, no weak global, no stale entry");
	T_EQ_U(n.refs[NROOTS_INTERNED][0].at, DATA_S + 4);
	nroots_release(&n);
}

static void test_damage(void)
{
	struct nroots n;
	struct err why;
	uint64_t d, b, el;

	/* a bad pointer in the strong table: counted and reported, not a root */
	build();
	n32(DATA_S + 12, JUNK);
	n64(SET_S + 8, 3);
	T_EQ_U(decode(&n), 1);
	T_EQ_U(n.count[NROOTS_INTERNED], 2);
	T_EQ_U(n.bad_interns, 1);
	T_EQ_U(n.first_bad_intern, DATA_S + 12);
	nroots_release(&n);

	/* a pointer into memory not captured */
	build();
	n32(DATA_S + 12, 0x70000000u);
	n64(SET_S + 8, 3);
	T_EQ_U(decode(&n), 1);
	T_EQ_U(n.bad_interns, 1);
	nroots_release(&n);

	/* the strong set's data cut off at the end of the capture: no table, an anomaly */
	build();
	n64(SET_S + 40, NAT + sizeof(nat) - 8);
	T_EQ_U(decode(&n), 1);
	T_CHECK(!n.present[NROOTS_INTERNED], "no intern table");
	T_EQ_U(n.count[NROOTS_INTERNED], 0);
	err_init(&why);
	T_EQ_I(nroots_hash_set(&rt, SET_S, &d, &b, &el, &why), 1);
	nroots_release(&n);

	/* num_elements_ disagrees with the slots in use; NaN load factors; huge bucket count */
	build();
	n64(SET_S + 8, 5);
	err_init(&why);
	T_EQ_I(nroots_hash_set(&rt, SET_S, &d, &b, &el, &why), 1);
	build();
	nd(SET_S + 48, 0.0 / 0.0);
	T_EQ_I(nroots_hash_set(&rt, SET_S, &d, &b, &el, &why), 1);
	build();
	n64(SET_S + 16, UINT64_MAX);
	T_EQ_I(nroots_hash_set(&rt, SET_S, &d, &b, &el, &why), 1);
	build();
	T_EQ_I(nroots_hash_set(&rt, SET_S, &d, &b, &el, &why), 0);
	T_EQ_U(d, DATA_S);
	T_EQ_U(b, 8);
	T_EQ_U(el, 2);
	/* a HashSet pointer near the end of the capture */
	T_EQ_I(nroots_hash_set(&rt, NAT + sizeof(nat) - 16, &d, &b, &el, &why), 1);

	/* an IRT whose top_index_ exceeds max_entries_: not a table, its roots missing */
	build();
	n64(JAVAVM + 128, sizeof(irtg) / 8 + 1);
	T_EQ_U(decode(&n), 0);
	T_EQ_U(n.irt_tables, 1);
	T_EQ_U(n.count[NROOTS_JNI_GLOBAL], 0);
	T_CHECK(!n.present[NROOTS_JNI_GLOBAL], "globals missing");
	nroots_release(&n);

	/* two runs of errors: ambiguous, nothing taken from the Runtime */
	build();
	n32(RUNTIME + 160, OOME1);
	n32(RUNTIME + 164, OOME2);
	n32(RUNTIME + 168, OOME3);
	n32(RUNTIME + 172, NCDFE);
	T_CHECK(decode(&n) >= 1, "an anomaly");
	T_CHECK(strstr(n.detail[NROOTS_VM_INTERNAL], "errors and sentinel_ missing") != NULL, "detail: %s",
		n.detail[NROOTS_VM_INTERNAL]);
	T_CHECK(!has(&n, NROOTS_VM_INTERNAL, OOME1) && has(&n, NROOTS_VM_INTERNAL, ROOTS), "no error taken");
	nroots_release(&n);

	/* a sentinel that is no java.lang.Object: the errors stay, the sentinel is not guessed */
	build();
	n32(RUNTIME + 88, S1);
	T_EQ_U(decode(&n), 1);
	T_CHECK(has(&n, NROOTS_VM_INTERNAL, OOME2) && !has(&n, NROOTS_VM_INTERNAL, S1), "errors without sentinel");
	nroots_release(&n);

	/* a class roots array whose first element is not java.lang.Class */
	build();
	h32(ROOTS + 12, caddr(C_OBJECT));
	T_EQ_U(decode(&n), 1);
	T_CHECK(!has(&n, NROOTS_VM_INTERNAL, ROOTS), "no class roots");
	nroots_release(&n);

	/* every byte of the Runtime garbage: no crash, parts missing */
	build();
	for (size_t i = 0; i < 0x400; i++)
		nat[i] = (uint8_t)(i * 37 + 11);
	(void)decode(&n);
	T_CHECK(!n.present[NROOTS_VM_INTERNAL], "garbage Runtime decodes nothing");
	nroots_release(&n);
}

/* 14+: a thread's jni::LocalReferenceTable through art::Thread -> JNIEnvExt */
#define THREAD (NAT + 0x2400)
#define ENV (NAT + 0x2600)
#define LRT 0x7f1000002000ull
static uint8_t lrt[0x1000];

static void add_lrt_region(void)
{
	struct err e;
	err_init(&e);
	T_EQ_I(img_add_region_mem(&img, LRT, lrt, sizeof(lrt), IMG_PROT_R | IMG_PROT_W, "[anon:dalvik-local ref table]", &e), 0);
}

static void test_locals(void)
{
	struct nroots n;
	struct err e, why;

	build();
	memset(lrt, 0, sizeof(lrt));
	add_lrt_region();
	n64(THREAD + 0x98, ENV);         /* tlsPtr_.jni_env somewhere in the Thread */
	n64(ENV, NAT + 0x3800);          /* functions */
	n64(ENV + 8, THREAD);            /* self_ */
	n64(ENV + 16, JAVAVM);           /* vm_ */
	n32(ENV + 32, 3);                /* locals_.segment_state_.top_index */
	n32(ENV + 36, 128);              /* max_entries_ */
	n32(ENV + 40, 0xfffffffcu);      /* free_entries_list_: kFreeListEnd, no CheckJNI */
	n64(ENV + 48, LRT);              /* small_table_ */
	w32(lrt, LRT, LRT, JG);
	w32(lrt, LRT, LRT + 4, (5u << 2) | 1u);  /* a free entry */
	w32(lrt, LRT, LRT + 8, S1);
	w32(lrt, LRT, LRT + 12, S2);     /* above top_index: not read */
	err_init(&e);
	err_init(&why);
	memset(&n, 0, sizeof(n));
	T_EQ_I(nroots_thread_locals(&rt, THREAD, &n, &why, &e), 0);
	T_EQ_U(n.count[NROOTS_JNI_LOCAL], 2);
	T_CHECK(has(&n, NROOTS_JNI_LOCAL, JG) && has(&n, NROOTS_JNI_LOCAL, S1) && !has(&n, NROOTS_JNI_LOCAL, S2),
		"live entries below the top only");
	nroots_release(&n);

	/* CheckJNI: a serial-number entry names the live one of the next three */
	w32(lrt, LRT, LRT, (2u << 2) | 2u);
	w32(lrt, LRT, LRT + 4, S3);
	w32(lrt, LRT, LRT + 8, JG);
	w32(lrt, LRT, LRT + 12, S2);
	n32(ENV + 32, 4);
	T_EQ_I(nroots_thread_locals(&rt, THREAD, &n, &why, &e), 0);
	T_EQ_U(n.count[NROOTS_JNI_LOCAL], 1);
	T_CHECK(has(&n, NROOTS_JNI_LOCAL, JG), "the entry the serial names");
	nroots_release(&n);

	/* damage: a serial past the group, a top past max_entries_, self_ not the Thread,
	 * a small table not captured */
	w32(lrt, LRT, LRT, (7u << 2) | 2u);
	T_EQ_I(nroots_thread_locals(&rt, THREAD, &n, &why, &e), 1);
	T_EQ_U(n.count[NROOTS_JNI_LOCAL], 0);
	w32(lrt, LRT, LRT, JG);
	n32(ENV + 32, 129);
	T_EQ_I(nroots_thread_locals(&rt, THREAD, &n, &why, &e), 1);
	n32(ENV + 32, 3);
	n64(ENV + 8, THREAD + 8);
	T_EQ_I(nroots_thread_locals(&rt, THREAD, &n, &why, &e), 1);
	n64(ENV + 8, THREAD);
	n64(ENV + 48, 0x7f2000000000ull);
	T_EQ_I(nroots_thread_locals(&rt, THREAD, &n, &why, &e), 1);
	T_EQ_U(n.count[NROOTS_JNI_LOCAL], 0);
	/* a Thread pointer at the end of the capture */
	T_EQ_I(nroots_thread_locals(&rt, NAT + sizeof(nat) - 8, &n, &why, &e), 1);
	nroots_release(&n);
}

/* 14+: DexCache.strings_array_ and the string count from DexFile.begin_'s header */
static void test_dex_cache_14(void)
{
	struct mirror_dex_cache dc;
	struct err e;
	uint32_t n = 0;
	const uint32_t cache = 0x12c02000u;

	build();
	h32(cache, caddr(C_OBJECT));
	w64(heap, HEAP, cache + 16, NAT + 0x2000);  /* dex_file_ */
	w64(heap, HEAP, cache + 96, NAT + 0x2800);  /* strings_ */
	w64(heap, HEAP, cache + 104, NAT + 0x2900); /* strings_array_ */
	n64(NAT + 0x2008, NAT + 0x2100);             /* DexFile.begin_ (slot 1) */
	n32(NAT + 0x2100 + 56, 410);                 /* header string_ids_size */
	err_init(&e);
	T_EQ_I(mirror_dex_cache_read(&rt.m, cache, &dc, &e), 0);
	T_EQ_U(dc.strings, NAT + 0x2800);
	T_EQ_U(dc.strings_array, NAT + 0x2900);
	T_EQ_U(dc.num_strings, 0);
	T_EQ_I(mirror_dex_cache_string_ids(&rt.m, &dc, &n, &e), 0);
	T_EQ_U(n, 410);
	n64(NAT + 0x2008, 0x10000);                  /* begin_ not captured */
	T_EQ_I(mirror_dex_cache_string_ids(&rt.m, &dc, &n, &e), -ERR_UNMAPPED);
	n64(NAT + 0x2008, UINT64_MAX - 8);           /* begin_ + 56 wraps */
	T_CHECK(mirror_dex_cache_string_ids(&rt.m, &dc, &n, &e) < 0, "a wrapping begin_ is refused");
	dc.dex_file = 0;
	T_EQ_I(mirror_dex_cache_string_ids(&rt.m, &dc, &n, &e), -ERR_CORRUPT);
	/* before 14 there is no strings_array_ */
	rt.m.l = art_layout_by_family("11");
	T_EQ_I(mirror_dex_cache_read(&rt.m, cache, &dc, &e), 0);
	T_EQ_U(dc.strings_array, 0);
}

int main(void)
{
	test_intact();
	test_damage();
	test_locals();
	test_dex_cache_14();
	img_close(&img);
	T_DONE();
}
