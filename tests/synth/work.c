/* work.c - builds one process image: the address-space plan, the classes (boot image and app),
 * the app's object graph, reachability, and what a sweep frees. */
#include <stdlib.h>
#include <string.h>

#include "carver/base/xalloc.h"
#include "tests/synth/synth.h"
#include "tests/synth/alloc.h"

#define RUP(x, a) (((x) + (a) - 1) / (a) * (a))

int truth_snapshot_real(struct model *m, int oi);

/* The truth of a freed object is taken before the free (not needed without truth output). */
static int truth_snapshot(struct model *m, int oi)
{
	return m->no_truth ? 0 : truth_snapshot_real(m, oi);
}
int bootimg_build(struct model *m);
void bootimg_finish(struct model *m);

/* ---- classes ---- */

static int add_core(struct model *m, const char *desc, const struct fam_mirror *mm)
{
	int k = klass_find(m, desc);
	if (k >= 0)
		return k;
	enum ck_kind kind = CK_INSTANCE;
	int super = m->c_object;
	int dex = 0;
	if (desc[0] == '[') {
		kind = desc[1] == 'L' || desc[1] == '[' ? CK_OBJ_ARRAY : CK_PRIM_ARRAY;
		dex = -1;
	} else if (desc[1] == 0) {
		kind = CK_PRIMITIVE;
		super = -1;
		dex = -1;
	} else if (strcmp(desc, "Ljava/lang/Object;") == 0) {
		super = -1;
	} else if (strcmp(desc, "Ljava/lang/Class;") == 0) {
		kind = CK_CLASS;
	} else if (strcmp(desc, "Ljava/lang/String;") == 0) {
		kind = CK_STRING;
	}
	k = klass_add(m, desc, super, kind, dex);
	if (k < 0)
		return k;
	if (kind == CK_PRIMITIVE)
		m->k[k].prim = desc[0];
	if (desc[0] == '[') {
		m->k[k].super = m->c_object;
		m->k[k].component = add_core(m, desc + 1, NULL);
		m->k[k].access_flags = 0x0411;  /* public final abstract */
	}
	if (mm && mm->fields)
		klass_mirror(m, k, mm);
	return k;
}

static int add_app(struct model *m, const char *desc, int super)
{
	return klass_add(m, desc, super, CK_INSTANCE, 1);
}

/* --workload messenger plants two indicators the scan must reach beyond objects' own text:
 * a secret in a static field (Messenger.authToken) and a URL in a freed dlmalloc chunk whose
 * class word the allocator's links overwrote (tests/shell/test_find.sh looks for both). */
#define MESSENGER_STATIC_SECRET "mk_live_7Qz2Vx9Lp4Rt8Wn3"
#define MESSENGER_RESIDUE_URL "https://drop.example.net/c2/upload?id=4711"

/* --workload messenger: a messaging app's classes (Messenger$Message as the issue-26 capture
 * holds it) and the JDK containers it keeps them in, with libcore's field names (Android 7.0+
 * ojluni java/util: ArrayList.elementData/size, LinkedList.first/size and Node.item/next,
 * HashMap.table/size and Node.hash/key/value/next); their other fields are left out. */
static int with_fields(struct model *m, int k, const char *const (*f)[2], unsigned n)
{
	for (unsigned i = 0; k >= 0 && i < n; i++)
		klass_field(m, k, f[i][0], f[i][1], false);
	if (k >= 0)
		klass_layout(m, k);
	return k;
}

static int boot_class(struct model *m, const char *desc, const char *const (*f)[2], unsigned n)
{
	int k = klass_find(m, desc);
	return with_fields(m, k >= 0 ? k : klass_add(m, desc, m->c_object, CK_INSTANCE, 0), f, n);
}

static void messenger_classes(struct model *m)
{
	static const char *const list[][2] = {{"elementData", "[Ljava/lang/Object;"}, {"size", "I"}};
	static const char *const node[][2] = {{"item", "Ljava/lang/Object;"}, {"next", "Ljava/util/LinkedList$Node;"}};
	static const char *const linked[][2] = {{"first", "Ljava/util/LinkedList$Node;"}, {"size", "I"}};
	static const char *const hnode[][2] = {{"hash", "I"}, {"key", "Ljava/lang/Object;"},
		{"value", "Ljava/lang/Object;"}, {"next", "Ljava/util/HashMap$Node;"}};
	static const char *const map[][2] = {{"table", "[Ljava/util/HashMap$Node;"}, {"size", "I"}};
	static const char *const person[][2] = {{"name", "Ljava/lang/String;"}, {"phone", "Ljava/lang/String;"}};
	static const char *const msg[][2] = {{"id", "J"}, {"timestamp", "J"}, {"read", "Z"},
		{"body", "Ljava/lang/String;"}, {"sender", "Lcom/example/messenger/Person;"},
		{"recipient", "Lcom/example/messenger/Person;"}};
	boot_class(m, "Ljava/util/ArrayList;", list, 2);
	boot_class(m, "Ljava/util/LinkedList$Node;", node, 2);
	boot_class(m, "Ljava/util/LinkedList;", linked, 2);
	int hn = boot_class(m, "Ljava/util/HashMap$Node;", hnode, 4);
	int a = klass_add(m, "[Ljava/util/HashMap$Node;", m->c_object, CK_OBJ_ARRAY, -1);
	if (a >= 0)
		m->k[a].component = hn;
	boot_class(m, "Ljava/util/HashMap;", map, 2);
	with_fields(m, add_app(m, "Lcom/example/messenger/Person;", m->c_object), person, 2);
	with_fields(m, add_app(m, "Lcom/example/messenger/Messenger$Message;", m->c_object), msg, 6);
	int app = add_app(m, "Lcom/example/messenger/Messenger;", m->c_object);
	klass_field(m, app, "inbox", "Ljava/util/ArrayList;", true);
	klass_field(m, app, "outbox", "Ljava/util/LinkedList;", true);
	klass_field(m, app, "contacts", "Ljava/util/HashMap;", true);
	klass_field(m, app, "authToken", "Ljava/lang/String;", true);   /* a secret in a static */
	klass_layout(m, app);
}

static void build_classes(struct model *m)
{
	const struct fam *f = m->fam;

	m->c_object = -1;
	m->c_object = add_core(m, "Ljava/lang/Object;", &f->m_object);
	m->c_class = add_core(m, "Ljava/lang/Class;", &f->m_class);
	m->c_string = add_core(m, "Ljava/lang/String;", &f->m_string);
	m->c_dexcache = add_core(m, "Ljava/lang/DexCache;", &f->m_dexcache);
	add_core(m, "Ljava/lang/ref/Reference;", &f->m_reference);
	add_core(m, "Ljava/lang/ClassLoader;", &f->m_classloader);
	if (f->fields == FAM_FIELDS_MIRROR) {
		m->c_artfield = add_core(m, "Ljava/lang/reflect/ArtField;", &f->m_artfield);
		m->c_artmethod = add_core(m, "Ljava/lang/reflect/ArtMethod;", &f->m_artmethod);
	}
	for (unsigned i = 0; i < f->n_class_roots; i++)
		add_core(m, f->class_roots[i], NULL);
	m->c_char_array = klass_find(m, "[C");
	m->c_object_array = klass_find(m, "[Ljava/lang/Object;");
	m->c_artfield_array = klass_find(m, "[Ljava/lang/reflect/ArtField;");
	m->c_artmethod_array = klass_find(m, "[Ljava/lang/reflect/ArtMethod;");
	static const char prims[] = "ZBCDFIJSV";
	for (unsigned i = 0; i < 9; i++)
		m->c_prim[i] = klass_find(m, (char[]){prims[i], 0});
	for (unsigned i = 0; i < 8; i++)
		m->c_prim_array[i] = klass_find(m, (char[]){'[', prims[i], 0});
	for (unsigned i = 0; i < m->nk; i++) {
		if (m->k[i].kind == CK_INSTANCE || m->k[i].kind == CK_STRING || m->k[i].kind == CK_CLASS)
			if (m->k[i].object_size == 0 && m->k[i].super >= 0)
				m->k[i].object_size = m->k[m->k[i].super].object_size;
		m->k[i].in_image = true;        /* the boot class path: in the boot image */
		if (m->k[i].dex == 0 && f->fields == FAM_FIELDS_LPA)
			m->k[i].n_methods = 2;  /* native methods, for ArtMethods and hooks */
	}

	/* the app: a 3-level hierarchy with every field type, a chat and a session token */
	int base = add_app(m, "Lcom/example/synth/Base;", m->c_object);
	static const char *const bf[][2] = {{"alive", "Z"}, {"code", "B"}, {"initial", "C"},
		{"port", "S"}, {"id", "I"}, {"created", "J"}, {"ratio", "F"}, {"amount", "D"},
		{"attachment", "Ljava/lang/Object;"}, {"name", "Ljava/lang/String;"}};
	for (unsigned i = 0; i < 10; i++)
		klass_field(m, base, bf[i][0], bf[i][1], false);
	klass_layout(m, base);
	int mid = add_app(m, "Lcom/example/synth/Mid;", base);
	static const char *const mf[][2] = {{"visible", "Z"}, {"level", "B"}, {"grade", "C"},
		{"depth", "S"}, {"count", "I"}, {"stamp", "J"}, {"scale", "F"}, {"weight", "D"},
		{"values", "[I"}, {"next", "Lcom/example/synth/Base;"}};
	for (unsigned i = 0; i < 10; i++)
		klass_field(m, mid, mf[i][0], mf[i][1], false);
	klass_layout(m, mid);
	int leaf = add_app(m, "Lcom/example/synth/Leaf;", mid);
	static const char *const lf[][2] = {{"flag", "Z"}, {"tag", "B"}, {"letter", "C"},
		{"small", "S"}, {"value", "I"}, {"big", "J"}, {"score", "F"}, {"precise", "D"},
		{"peer", "Lcom/example/synth/Leaf;"}, {"data", "[B"}, {"label", "Ljava/lang/String;"}};
	for (unsigned i = 0; i < 11; i++)
		klass_field(m, leaf, lf[i][0], lf[i][1], false);
	klass_layout(m, leaf);
	int msg = add_app(m, "Lcom/example/chat/Message;", m->c_object);
	klass_field(m, msg, "id", "I", false);
	klass_field(m, msg, "timestamp", "J", false);
	klass_field(m, msg, "sender", "Ljava/lang/String;", false);
	klass_field(m, msg, "text", "Ljava/lang/String;", false);
	klass_field(m, msg, "read", "Z", false);
	klass_field(m, msg, "previous", "Lcom/example/chat/Message;", false);
	klass_layout(m, msg);
	int conv = add_app(m, "Lcom/example/chat/Conversation;", m->c_object);
	klass_field(m, conv, "title", "Ljava/lang/String;", false);
	klass_field(m, conv, "messages", "[Lcom/example/chat/Message;", false);
	klass_field(m, conv, "count", "I", false);
	klass_layout(m, conv);
	int tok = add_app(m, "Lcom/example/auth/SessionToken;", m->c_object);
	klass_field(m, tok, "token", "Ljava/lang/String;", false);
	klass_field(m, tok, "user", "Ljava/lang/String;", false);
	klass_field(m, tok, "expiresAt", "J", false);
	klass_field(m, tok, "secret", "[B", false);
	klass_layout(m, tok);
	int account = add_app(m, "Lcom/example/auth/Account;", m->c_object);
	klass_field(m, account, "user", "Ljava/lang/String;", false);
	klass_field(m, account, "password", "Ljava/lang/String;", false);
	klass_layout(m, account);
	/* the field list of the real captures' Harness (../shared/corpus/images/realart14 and
	 * realart): five references, a long, two booleans after the long's 4-byte gap, where
	 * 6.0-11 and 12+ place the second boolean differently (test_realart_layouts.sh) */
	int harness = add_app(m, "LHarness;", m->c_object);
	static const char *const hf[][2] = {{"compact", "Z"}, {"dumpPath", "Ljava/lang/String;"},
		{"gc", "Z"}, {"hprofCheckPath", "Ljava/lang/String;"}, {"hprofPath", "Ljava/lang/String;"},
		{"markGcCount", "J"}, {"outDir", "Ljava/lang/String;"}, {"readyPath", "Ljava/lang/String;"}};
	for (unsigned i = 0; i < 8; i++)
		klass_field(m, harness, hf[i][0], hf[i][1], false);
	klass_layout(m, harness);
	int app = add_app(m, "Lcom/example/synth/App;", m->c_object);
	klass_field(m, app, "conversation", "Lcom/example/chat/Conversation;", true);
	klass_field(m, app, "session", "Lcom/example/auth/SessionToken;", true);
	klass_field(m, app, "keep", "[Ljava/lang/Object;", true);
	klass_field(m, app, "started", "J", true);
	klass_field(m, app, "counter", "I", true);
	klass_field(m, app, "ready", "Z", true);
	klass_layout(m, app);
	if (m->messenger)
		messenger_classes(m);
	int a;
	a = klass_add(m, "[Lcom/example/chat/Message;", m->c_object, CK_OBJ_ARRAY, -1);
	m->k[a].component = msg;
	a = klass_add(m, "[Lcom/example/synth/Leaf;", m->c_object, CK_OBJ_ARRAY, -1);
	m->k[a].component = leaf;
	a = klass_add(m, "[[I", m->c_object, CK_OBJ_ARRAY, -1);
	m->k[a].component = klass_find(m, "[I");
	for (unsigned i = 0; i < m->nk; i++)
		class_size(m, (int)i);
}

int work_class(const struct model *m, const char *d) { return klass_find(m, d); }

/* ---- the address-space plan ---- */

static uint64_t native_alloc(struct model *m, uint64_t n)
{
	uint64_t a = m->native_top;
	m->native_top += RUP(n, 16);
	return a;
}

static int plan(struct model *m, uint64_t heap)
{
	const struct fam *f = m->fam;
	bool b64 = m->bits == 64;
	char name[200];

	/* native memory (malloc heap, LinearAlloc, DEX copies, RosAlloc page map, LOS table):
	 * not low-4GB on 64-bit */
	uint64_t native = b64 ? 0x7f40000000ull : 0xe0000000ull;
	/* capacities stay below 4 GiB (every heap mapping is low_4gb): main (and its twin) plus
	 * the LOS must fit above 0x12c00000 */
	uint64_t cap = RUP(heap + heap / 4 + 4 * 1024 * 1024, 1024 * 1024);
	bool twin = !f->region && !m->cmc && 0x12c00000 + 2 * cap + heap / 2 + (64u << 20) < 0xe0000000ull;
	m->native_heap = vm_add(&m->vm, "[anon:libc_malloc]", native, 64 * 1024, 64 * 1024, "rw-p", SP_NATIVE);
	m->native_top = native;
	/* LinearAlloc holds native ArtField/ArtMethod arrays from 6.0 on (5.x: mirror objects) */
	if (f->fields != FAM_FIELDS_MIRROR) {
		vm_dalvik_name(f, "LinearAlloc", name, sizeof(name));
		m->linear_alloc = vm_add(&m->vm, name, native + 0x200000, 256 * 1024, 256 * 1024, "rw-p", SP_NATIVE);
		m->la_top = native + 0x200000;
		if (!m->linear_alloc)
			return -1;
	}
	if (!m->native_heap)
		return -1;
	uint64_t image_cap = 1024 * 1024;
	uint64_t heap_end = 0x12c00000 + (twin ? 2 : 1) * cap;
	uint64_t los_begin = RUP(heap_end + 0x1000000, 0x100000);
	uint64_t los_size = RUP(heap / 64 + 2 * 1024 * 1024, m->page);
	/* the boot image sits at 0x70000000; a heap too big to fit below it is placed first and
	 * the image after it (ART maps the spaces wherever they fit when the preferred address
	 * is taken) */
	m->image_begin = 0x70000000;
	if (los_begin + los_size + 0x1000000 > m->image_begin)
		m->image_begin = RUP(los_begin + los_size + 0x1000000, 0x1000000);
	if (m->image_begin + 0x4000000 + heap / 4 > (b64 ? 0xfff00000ull : native))
		return -1;      /* does not fit the low 4 GiB */
	m->image_end = m->image_begin + image_cap;
	/* non-moving / zygote spaces follow the boot image (heap.cc) */
	uint64_t zyg = RUP(m->image_end + 0x100000, 0x10000);
	uint64_t zcap = 256 * 1024 + RUP(heap / 16, m->page);
	m->zygote = dlm_new(m, f->zygote_name, zyg, zcap, SP_ZYGOTE);
	m->nonmoving = dlm_new(m, f->nonmoving_name, zyg + zcap, 256 * 1024 + RUP(heap / 8, m->page), SP_NONMOVING);
	if (!m->zygote || !m->nonmoving)
		return -1;
	if (m->cmc) {
		/* CMC (heap.cc @R14U): the moving space is the "main space" map, no twin */
		m->bump = bump_new(m, 0x12c00000, cap);
		if (!m->bump)
			return -1;
		/* the collector's own maps (collector/mark_compact.cc @R14U): the from-space is as
		 * big as the moving space and is madvised to zero after each compaction (here the
		 * capture comes just before that: bump_from_space); the compaction buffers and the
		 * chunk-info vector hold native data, zero here */
		static const char *const cmc_maps[] = { "Concurrent mark-compact from-space",
			"Concurrent mark-compact compaction buffers", "Concurrent mark-compact chunk-info vector" };
		uint64_t at = native + 0x4000000;
		for (unsigned i = 0; i < 3; i++) {
			uint64_t size = i == 0 ? cap : 256 * 1024;
			if (at + size > (b64 ? 0x8000000000ull : 0xfff00000ull))
				return -1;
			vm_dalvik_name(f, cmc_maps[i], name, sizeof(name));
			/* the from-space's bytes are all held here; bump_from_space trims what the core
			 * captures to what it wrote */
			if (!vm_add(&m->vm, name, at, size, i ? m->page : size, "rw-p", i ? SP_NONE : SP_CMC_FROM))
				return -1;
			if (i == 0)
				m->cmc_from = at;
			at += RUP(size + m->page, 0x100000);
		}
	} else if (f->region) {
		m->region = region_new(m, 0x12c00000, cap);
		if (!m->region)
			return -1;
	} else {
		m->ros = ros_new(m, 0x12c00000, cap, native + 0x1000000);
		if (!m->ros)
			return -1;
		vm_dalvik_name(f, f->main1_name, name, sizeof(name));
		if (twin && !vm_add(&m->vm, name, 0x12c00000 + cap, cap, m->page, "rw-p", SP_NONE))
			return -1;
	}
	/* LOS: free-list on arm64, one map per object on 32-bit (mem_map.h USE_ART_LOW_4G_ALLOCATOR) */
	m->los = los_new(m, b64, los_begin, los_size, native + 0x2000000);
	return m->los ? 0 : -1;
}

/* ---- object helpers ---- */

static int new_instance(struct model *m, int cls, enum sp_kind sp, int mode)
{
	int o = heap_alloc(m, cls, m->k[cls].object_size, sp, mode);
	if (o >= 0)
		obj_header(m, o);
	return o;
}

static bool ascii_only(const uint16_t *s, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (s[i] == 0 || s[i] > 0x7f)
			return false;
	return true;
}

static uint32_t str_hash(const uint16_t *s, uint32_t n)
{
	uint32_t h = 0;
	for (uint32_t i = 0; i < n; i++)
		h = 31 * h + s[i];
	return h;
}

static int new_prim_array(struct model *m, char elem, uint32_t n, enum sp_kind sp, int mode);

/* A java.lang.String in the family's layout (string.h): 5.x {value char[], count, hash,
 * offset}; 6.0-7.1 {count, hash, UTF-16 chars}; 8.0+ {count<<1 | !compressed, hash, chars}. */
int new_string16(struct model *m, const uint16_t *s, uint32_t n, enum sp_kind sp, int mode)
{
	const struct fam *f = m->fam;
	int cls = m->c_string;
	bool hashed = rng_chance(&m->rng, 50);

	if (f->str == FAM_STR_ARRAY) {
		int arr = new_prim_array(m, 'C', n, sp, mode);
		int o = new_instance(m, cls, sp, mode);
		if (o < 0 || arr < 0)
			return -1;
		for (uint32_t i = 0; i < n; i++)
			vm_w16(&m->vm, m->o[arr].addr + 12 + 2 * i, s[i]);
		obj_setf(m, o, "value", m->o[arr].addr);
		obj_setf(m, o, "count", n);
		obj_setf(m, o, "offset", 0);
		obj_setf(m, o, "hashCode", hashed ? str_hash(s, n) : 0);
		m->o[o].length = n;
		return o;
	}
	bool comp = f->str == FAM_STR_COMPRESSED && ascii_only(s, n);
	uint32_t size = 16 + (comp ? n : 2 * n);
	int o = heap_alloc(m, cls, size, sp, mode);
	if (o < 0)
		return -1;
	obj_header(m, o);
	uint32_t a = m->o[o].addr;
	vm_w32(&m->vm, a + 8, f->str == FAM_STR_COMPRESSED ? (n << 1 | !comp) : n);
	vm_w32(&m->vm, a + 12, hashed ? str_hash(s, n) : 0);
	for (uint32_t i = 0; i < n; i++) {
		if (comp)
			vm_w8(&m->vm, a + 16 + i, (uint8_t)s[i]);
		else
			vm_w16(&m->vm, a + 16 + 2 * i, s[i]);
	}
	m->o[o].length = n;
	m->o[o].compressed = comp;
	return o;
}

/* UTF-8 input (BMP only) -> UTF-16 string object. */
int new_string(struct model *m, const char *u8, enum sp_kind sp, int mode)
{
	uint16_t buf[512];
	uint32_t n = 0;
	const unsigned char *p = (const unsigned char *)u8;
	while (*p && n < 512) {
		uint32_t c = *p++;
		if (c >= 0xe0 && p[0] && p[1]) {
			c = (c & 0x0f) << 12 | (p[0] & 0x3fu) << 6 | (p[1] & 0x3fu);
			p += 2;
		} else if (c >= 0xc0 && p[0]) {
			c = (c & 0x1f) << 6 | (p[0] & 0x3fu);
			p++;
		}
		buf[n++] = (uint16_t)c;
	}
	return new_string16(m, buf, n, sp, mode);
}

static int prim_array_class(const struct model *m, char elem)
{
	static const char order[] = "ZBCDFIJS";
	const char *p = strchr(order, elem);
	return p ? m->c_prim_array[p - order] : -1;
}

static int new_prim_array(struct model *m, char elem, uint32_t n, enum sp_kind sp, int mode)
{
	int cls = prim_array_class(m, elem);
	int o = heap_alloc(m, cls, array_size(elem, n), sp, mode);
	if (o < 0)
		return -1;
	obj_header(m, o);
	vm_w32(&m->vm, m->o[o].addr + 8, n);
	m->o[o].length = n;
	return o;
}

static void fill_random(struct model *m, int o, char elem)
{
	unsigned es = klass_type_size((char[]){elem, 0});
	uint32_t a = m->o[o].addr + array_data_off(elem);
	for (uint32_t i = 0; i < m->o[o].length; i++) {
		uint64_t v = rng_next(&m->rng);
		if (elem == 'Z')
			v &= 1;
		if (elem == 'F')
			v = 0x3f800000u + (v & 0xfffff);    /* finite floats */
		if (elem == 'D')
			v = 0x4000000000000000ull + (v & 0xffffffffffffull);
		vm_wbytes(&m->vm, a + i * es, &v, es);
	}
}

static int new_obj_array(struct model *m, int cls, uint32_t n, enum sp_kind sp, int mode)
{
	int o = heap_alloc(m, cls, array_size('L', n), sp, mode);
	if (o < 0)
		return -1;
	obj_header(m, o);
	vm_w32(&m->vm, m->o[o].addr + 8, n);
	m->o[o].length = n;
	return o;
}

static void aset(struct model *m, int arr, uint32_t i, int val)
{
	if (arr >= 0 && val >= 0 && i < m->o[arr].length)
		vm_w32(&m->vm, m->o[arr].addr + 12 + 4 * i, m->o[val].addr);
}

static void set_ref(struct model *m, int o, const char *field, int val)
{
	if (o >= 0)
		obj_setf(m, o, field, val >= 0 ? m->o[val].addr : 0);
}

/* ---- workload ---- */

static const char *const words[] = {"hello", "see you at 8", "ok", "the code is 4711",
	"Grüße aus Köln", "日本語のメッセージ", "call me", "where are you?", "Ça va?",
	"meeting moved to Friday", "Привет", "lol", "sent from my phone", "password reset link",
	"€20 for the tickets", "done"};
static const char *const people[] = {"alice", "bob", "carol", "dave", "Zoë", "mallory"};

static int leaf_new(struct model *m, enum sp_kind sp, int mode)
{
	int cls = klass_find(m, "Lcom/example/synth/Leaf;");
	int o = new_instance(m, cls, sp, mode);
	if (o < 0)
		return -1;
	struct rng *r = &m->rng;
	static const char *const prim[][2] = {{"alive", "Z"}, {"code", "B"}, {"initial", "C"},
		{"port", "S"}, {"id", "I"}, {"created", "J"}, {"ratio", "F"}, {"amount", "D"},
		{"visible", "Z"}, {"level", "B"}, {"grade", "C"}, {"depth", "S"}, {"count", "I"},
		{"stamp", "J"}, {"scale", "F"}, {"weight", "D"}, {"flag", "Z"}, {"tag", "B"},
		{"letter", "C"}, {"small", "S"}, {"value", "I"}, {"big", "J"}, {"score", "F"},
		{"precise", "D"}};
	for (unsigned i = 0; i < sizeof(prim) / sizeof(prim[0]); i++) {
		uint64_t v = rng_next(r);
		switch (prim[i][1][0]) {
		case 'Z': v &= 1; break;
		case 'C': v = 'A' + v % 26; break;
		case 'F': v = 0x40000000u + (v & 0x7fffff); break;
		case 'D': v = 0x3ff0000000000000ull + (v & 0xfffffffffffffull); break;
		default: break;
		}
		obj_setf(m, o, prim[i][0], v);
	}
	if (rng_chance(r, 10))  /* an identity hash in the lock word (state 2) */
		vm_w32(&m->vm, m->o[o].addr + 4, 0x80000000u | (uint32_t)(rng_next(r) & 0x0fffffff));
	return o;
}

struct work {
	int app, keep, conv, leaves_arr;
	unsigned nkeep, keep_used;
	int residue;            /* messenger: the byte[] freed with its URL (messenger_residue), or -1 */
};

static void keep_add(struct model *m, struct work *w, int o)
{
	if (o >= 0 && w->keep_used < w->nkeep)
		aset(m, w->keep, w->keep_used++, o);
}

static void make_chat(struct model *m, struct work *w, unsigned n, int mode)
{
	int msgc = klass_find(m, "Lcom/example/chat/Message;");
	int conv = new_instance(m, klass_find(m, "Lcom/example/chat/Conversation;"), SP_MAIN, 1);
	int title = new_string(m, "Family group ♥", SP_MAIN, 1);
	int arr = new_obj_array(m, klass_find(m, "[Lcom/example/chat/Message;"), n, SP_MAIN, 1);
	set_ref(m, conv, "title", title);
	set_ref(m, conv, "messages", arr);
	int prev = -1;
	unsigned kept = 0;
	for (unsigned i = 0; i < n; i++) {
		int msg = new_instance(m, msgc, SP_MAIN, mode);
		char text[160];
		snprintf(text, sizeof(text), "%s #%u", words[rng_below(&m->rng, 16)], i);
		int t = new_string(m, text, SP_MAIN, mode);
		int s = new_string(m, people[rng_below(&m->rng, 6)], SP_MAIN, mode);
		if (msg < 0 || t < 0 || s < 0)
			break;
		obj_setf(m, msg, "id", 1000 + i);
		obj_setf(m, msg, "timestamp", 1700000000000ull + i * 60000ull);
		set_ref(m, msg, "sender", s);
		set_ref(m, msg, "text", t);
		obj_setf(m, msg, "read", rng_chance(&m->rng, 70));
		/* one in four messages is dropped (deleted by the user): not in the array any more */
		bool dropped = rng_chance(&m->rng, 25);
		if (!dropped) {
			set_ref(m, msg, "previous", prev);
			aset(m, arr, kept++, msg);
			prev = msg;
		}
	}
	obj_setf(m, conv, "count", kept);
	w->conv = conv;
}

static int make_token(struct model *m, unsigned i, int mode)
{
	int tok = new_instance(m, klass_find(m, "Lcom/example/auth/SessionToken;"), SP_MAIN, mode);
	char buf[96];
	snprintf(buf, sizeof(buf), "eyJhbGciOiJIUzI1NiJ9.session-%u.%08x", i, (uint32_t)rng_next(&m->rng));
	int t = new_string(m, buf, SP_MAIN, mode);
	int u = new_string(m, people[i % 6], SP_MAIN, mode);
	int sec = new_prim_array(m, 'B', 32, SP_MAIN, mode);
	if (tok < 0 || t < 0 || u < 0 || sec < 0)
		return -1;
	fill_random(m, sec, 'B');
	set_ref(m, tok, "token", t);
	set_ref(m, tok, "user", u);
	set_ref(m, tok, "secret", sec);
	obj_setf(m, tok, "expiresAt", 1700003600000ull + i * 3600000ull);
	return tok;
}

/* Messages that hold indicators (output/find/find_match.h), live (kept) or dropped, one of
 * them a card number that fails the Luhn check; and an account whose password field is a
 * secret.  tests/shell/test_find.sh looks for each in the carve. */
static void make_indicators(struct model *m, struct work *w)
{
	static const struct { const char *text; int live; } planted[] = {
		{"invite: https://chat.example.com/join/7f3a9c", 1},
		{"write to alice.smith@example.org", 0},
		{"call me on +1 415-555-0132", 0},
		{"vpn at 192.168.17.42 again", 1},
		{"pay with 4111 1111 1111 1111 please", 0},
		{"not a card 4111 1111 1111 1112", 0}};
	int msgc = klass_find(m, "Lcom/example/chat/Message;");
	for (unsigned i = 0; i < sizeof(planted) / sizeof(planted[0]); i++) {
		int msg = new_instance(m, msgc, SP_MAIN, planted[i].live);
		int t = new_string(m, planted[i].text, SP_MAIN, planted[i].live);
		if (msg < 0 || t < 0)
			return;
		obj_setf(m, msg, "id", 5000 + i);
		obj_setf(m, msg, "timestamp", 1700005000000ull + i * 60000ull);
		set_ref(m, msg, "text", t);
		if (planted[i].live)
			keep_add(m, w, msg);
	}
	int acc = new_instance(m, klass_find(m, "Lcom/example/auth/Account;"), SP_MAIN, 1);
	set_ref(m, acc, "user", new_string(m, "alice", SP_MAIN, 1));
	set_ref(m, acc, "password", new_string(m, "hunter2-Correct-Horse", SP_MAIN, 1));
	keep_add(m, w, acc);
}

/* --workload messenger: persons, and messages of which half were deleted (dropped: no longer
 * in the inbox ArrayList); five more queued in the outbox LinkedList; the contacts HashMap
 * from name to Person.  The app class Messenger holds the three containers in statics. */
static int messenger_person(struct model *m, unsigned i)
{
	char phone[32];
	int p = new_instance(m, klass_find(m, "Lcom/example/messenger/Person;"), SP_MAIN, 1);
	snprintf(phone, sizeof(phone), "+49 221 555 01%02u", i);
	set_ref(m, p, "name", new_string(m, people[i % 6], SP_MAIN, 1));
	set_ref(m, p, "phone", new_string(m, phone, SP_MAIN, 1));
	return p;
}

static int messenger_message(struct model *m, unsigned i, const int *person, unsigned np)
{
	char body[160];
	int msg = new_instance(m, klass_find(m, "Lcom/example/messenger/Messenger$Message;"), SP_MAIN, 1);
	snprintf(body, sizeof(body), "%s (message %u)", words[rng_below(&m->rng, 16)], i);
	obj_setf(m, msg, "id", 5000 + i);
	obj_setf(m, msg, "timestamp", 1790000000000ull + i * 90000ull);
	obj_setf(m, msg, "read", rng_chance(&m->rng, 50));
	set_ref(m, msg, "body", new_string(m, body, SP_MAIN, 1));
	set_ref(m, msg, "sender", person[i % np]);
	set_ref(m, msg, "recipient", person[(i + 1) % np]);
	return msg;
}

static void messenger_statics(struct model *m, int inbox, int outbox, int contacts)
{
	int app = klass_find(m, "Lcom/example/messenger/Messenger;");
	uint32_t at = m->k[app].addr;
	vm_w32(&m->vm, at + klass_static_find(m, app, "inbox")->offset, m->o[inbox].addr);
	vm_w32(&m->vm, at + klass_static_find(m, app, "outbox")->offset, m->o[outbox].addr);
	vm_w32(&m->vm, at + klass_static_find(m, app, "contacts")->offset, m->o[contacts].addr);
	int token = new_string(m, MESSENGER_STATIC_SECRET, SP_MAIN, 1);
	if (token >= 0)
		vm_w32(&m->vm, at + klass_static_find(m, app, "authToken")->offset, m->o[token].addr);
}

/* A URL in a byte[] of the non-moving space that the app dropped and dlmalloc freed
 * (messenger_free_residue): the chunk's bin links overwrite the class word, its text
 * survives past them (tests/shell/test_find.sh).  Live neighbours on both sides keep the
 * chunk from coalescing. */
static void messenger_residue(struct model *m, struct work *w)
{
	static const char text[] = "seen: " MESSENGER_RESIDUE_URL " (deleted draft)";
	int before = new_prim_array(m, 'B', 24, SP_NONMOVING, 1);
	int url = new_prim_array(m, 'B', sizeof(text) - 1, SP_NONMOVING, 0);
	int after = new_prim_array(m, 'B', 24, SP_NONMOVING, 1);
	if (before < 0 || url < 0 || after < 0)
		return;
	for (uint32_t i = 0; i + 1 < sizeof(text); i++)
		vm_w8(&m->vm, m->o[url].addr + array_data_off('B') + i, (uint8_t)text[i]);
	keep_add(m, w, before);
	keep_add(m, w, after);
	w->residue = url;
}

/* After the sweep: the residue byte[] is freed (unless the sweep already freed it). */
static void messenger_free_residue(struct model *m, struct work *w)
{
	struct obj *o;
	if (w->residue < 0 || (o = &m->o[w->residue])->freed)
		return;
	truth_snapshot(m, w->residue);
	if (!dlm_free(m->nonmoving, o->addr)) {
		xfree(o->snapshot);
		o->snapshot = NULL;
		return;
	}
	o->content = OB_PARTIAL;
	o->alloc = OB_FREE;
	o->freed = true;
}

static int messenger_contacts(struct model *m, const int *person, unsigned np)
{
	enum { BUCKETS = 4 };
	int map = new_instance(m, klass_find(m, "Ljava/util/HashMap;"), SP_MAIN, 1);
	int table = new_obj_array(m, klass_find(m, "[Ljava/util/HashMap$Node;"), BUCKETS, SP_MAIN, 1);
	int head[BUCKETS] = {-1, -1, -1, -1};
	for (unsigned i = 0; i < np; i++) {     /* chains of two: bucket i % 4 */
		int n = new_instance(m, klass_find(m, "Ljava/util/HashMap$Node;"), SP_MAIN, 1);
		obj_setf(m, n, "hash", i % BUCKETS);
		set_ref(m, n, "key", new_string(m, people[i % 6], SP_MAIN, 1));
		set_ref(m, n, "value", person[i]);
		set_ref(m, n, "next", head[i % BUCKETS]);
		head[i % BUCKETS] = n;
	}
	for (unsigned b = 0; b < BUCKETS; b++)
		aset(m, table, b, head[b]);
	set_ref(m, map, "table", table);
	obj_setf(m, map, "size", np);
	return map;
}

static void make_messenger(struct model *m, unsigned n)
{
	enum { PERSONS = 6, OUTBOX = 5 };
	int person[PERSONS];
	for (unsigned i = 0; i < PERSONS; i++)
		person[i] = messenger_person(m, i);
	int inbox = new_instance(m, klass_find(m, "Ljava/util/ArrayList;"), SP_MAIN, 1);
	int data = new_obj_array(m, m->c_object_array, n, SP_MAIN, 1);   /* capacity n */
	unsigned kept = 0;
	for (unsigned i = 0; i < n; i++) {
		int msg = messenger_message(m, i, person, PERSONS);
		if (i % 2 == 0 || rng_chance(&m->rng, 10))   /* the others were deleted */
			aset(m, data, kept++, msg);
	}
	set_ref(m, inbox, "elementData", data);
	obj_setf(m, inbox, "size", kept);
	int outbox = new_instance(m, klass_find(m, "Ljava/util/LinkedList;"), SP_MAIN, 1);
	int next = -1;
	for (unsigned i = OUTBOX; i-- > 0;) {
		int node = new_instance(m, klass_find(m, "Ljava/util/LinkedList$Node;"), SP_MAIN, 1);
		set_ref(m, node, "item", messenger_message(m, n + i, person, PERSONS));
		set_ref(m, node, "next", next);
		next = node;
	}
	set_ref(m, outbox, "first", next);
	obj_setf(m, outbox, "size", OUTBOX);
	messenger_statics(m, inbox, outbox, messenger_contacts(m, person, PERSONS));
}

static uint64_t heap_used(const struct model *m) { return m->bytes; }

/* The app logged the names of some of its classes: Class.getName() caches the String in
 * Class.name_ (runtime/mirror/class.cc ComputeName @ android-5.0.0_r5, java/lang/Class.java
 * getName from 7.0): the descriptor with dots, arrays as "[Lcom.example.chat.Message;". */
static void name_classes(struct model *m)
{
	static const char *const named[] = {"Lcom/example/chat/Message;", "Lcom/example/auth/SessionToken;",
		"Lcom/example/synth/Leaf;", "[Lcom/example/chat/Message;"};
	for (unsigned i = 0; i < sizeof(named) / sizeof(named[0]); i++) {
		int k = klass_find(m, named[i]);
		char name[128];
		size_t n = 0;
		const char *d = named[i];
		if (k < 0 || m->k[k].obj < 0)
			continue;
		if (d[0] == 'L')        /* "Lcom/x/Y;" -> "com.x.Y" */
			for (d++; *d && *d != ';' && n + 1 < sizeof(name); d++)
				name[n++] = *d == '/' ? '.' : *d;
		else                    /* arrays keep their descriptor, with dots */
			for (; *d && n + 1 < sizeof(name); d++)
				name[n++] = *d == '/' ? '.' : *d;
		name[n] = 0;
		set_ref(m, m->k[k].obj, "name", new_string(m, name, SP_MAIN, 1));
	}
}

static void workload(struct model *m, struct work *w)
{
	struct rng *r = &m->rng;
	int app = klass_find(m, "Lcom/example/synth/App;");
	uint32_t app_addr = m->k[app].addr;
	uint64_t target = m->heap_target;
	static const char prims[] = "ZBCDFIJS";

	w->nkeep = 256 + (unsigned)(target / 160);
	w->keep = new_obj_array(m, m->c_object_array, w->nkeep, SP_MAIN, 1);
	vm_w32(&m->vm, app_addr + klass_static_find(m, app, "keep")->offset, m->o[w->keep].addr);
	obj_set(m, app_addr, klass_static_find(m, app, "started"), 1700000000123ull);
	obj_set(m, app_addr, klass_static_find(m, app, "counter"), 42);
	obj_set(m, app_addr, klass_static_find(m, app, "ready"), 1);

	make_chat(m, w, 24 + (unsigned)(target / 65536), 0);
	if (m->messenger) {
		make_messenger(m, 40);
		messenger_residue(m, w);
	}
	vm_w32(&m->vm, app_addr + klass_static_find(m, app, "conversation")->offset, m->o[w->conv].addr);
	int cur = -1;
	for (unsigned i = 0; i < 6; i++) {      /* older session tokens are dropped */
		int t = make_token(m, i, i < 5 ? 0 : 1);
		if (t >= 0)
			cur = t;
	}
	if (cur >= 0)
		vm_w32(&m->vm, app_addr + klass_static_find(m, app, "session")->offset, m->o[cur].addr);
	make_indicators(m, w);
	/* arrays of every primitive type, object arrays, 2-D arrays, page-level and LOS arrays */
	for (unsigned i = 0; i < 8; i++) {
		int a = new_prim_array(m, prims[i], 1 + rng_below(r, 40), SP_MAIN, 1);
		if (a >= 0)
			fill_random(m, a, prims[i]);
		keep_add(m, w, a);
	}
	int grid = new_obj_array(m, klass_find(m, "[[I"), 4, SP_MAIN, 1);
	for (unsigned i = 0; i < 4; i++) {
		int row = new_prim_array(m, 'I', 3, SP_MAIN, 1);
		fill_random(m, row, 'I');
		aset(m, grid, i, row);
	}
	keep_add(m, w, grid);
	int big = new_obj_array(m, m->c_object_array, 1500, SP_MAIN, 1);  /* > 2 KiB: RosAlloc pages */
	keep_add(m, w, big);
	int los1 = new_prim_array(m, 'B', 20000 + rng_below(r, 20000), SP_MAIN, 1);
	if (los1 >= 0)
		fill_random(m, los1, 'B');
	keep_add(m, w, los1);
	for (unsigned i = 0; i < 4; i++) {      /* LOS garbage, some of it freed */
		int g = new_prim_array(m, i % 2 ? 'I' : 'C', 4000 + rng_below(r, 6000), SP_MAIN, 0);
		if (g >= 0)
			fill_random(m, g, i % 2 ? 'I' : 'C');
	}
	int los2 = new_prim_array(m, 'J', 2000, SP_MAIN, 1);
	keep_add(m, w, los2);
	/* non-moving arrays (VMRuntime.newNonMovableArray) and strings, some garbage */
	for (unsigned i = 0; i < 12; i++) {
		int nm = i % 3 == 0 ? new_string(m, words[i % 16], SP_NONMOVING, 0)
				    : new_prim_array(m, 'B', 8 + rng_below(r, 150), SP_NONMOVING, 0);
		if (nm >= 0 && m->k[m->o[nm].cls].kind == CK_PRIM_ARRAY)
			fill_random(m, nm, 'B');
		if (i % 2 == 0)
			keep_add(m, w, nm);
	}
	/* zygote space: preloaded objects in dlmalloc chunks and in the compacted tail */
	for (unsigned i = 0; i < 10; i++) {
		char buf[64];
		snprintf(buf, sizeof(buf), "zygote preloaded %u", i);
		int z = new_string(m, buf, SP_ZYGOTE, i < 4 ? 0 : 1);
		if (i != 7)
			keep_add(m, w, z);
	}
	name_classes(m);
	/* the bulk: linked leaves with cycles, some dropped */
	int leaves_cls = klass_find(m, "[Lcom/example/synth/Leaf;");
	unsigned nl = 32;
	w->leaves_arr = new_obj_array(m, leaves_cls, nl, SP_MAIN, 1);
	keep_add(m, w, w->leaves_arr);
	unsigned li = 0;
	int prev = -1;
	while (heap_used(m) < target) {
		int mode = rng_chance(r, 60) ? 0 : rng_chance(r, 70) ? 1 : 2;
		int l = leaf_new(m, SP_MAIN, mode);
		if (l < 0)
			break;
		if (rng_chance(r, 40)) {
			char buf[64];
			snprintf(buf, sizeof(buf), li % 5 == 0 ? "leaf-ü-%u" : "leaf-%u", li);
			set_ref(m, l, "label", new_string(m, buf, SP_MAIN, mode));
		}
		if (rng_chance(r, 20)) {
			int d = new_prim_array(m, 'B', rng_below(r, 64), SP_MAIN, mode);
			fill_random(m, d, 'B');
			set_ref(m, l, "data", d);
		}
		if (rng_chance(r, 15)) {
			int v = new_prim_array(m, 'I', rng_below(r, 16), SP_MAIN, mode);
			fill_random(m, v, 'I');
			set_ref(m, l, "values", v);
		}
		if (prev >= 0 && rng_chance(r, 50))
			set_ref(m, l, "next", prev);
		if (prev >= 0 && rng_chance(r, 10)) {   /* a two-object cycle */
			set_ref(m, l, "peer", prev);
			set_ref(m, prev, "peer", l);
		} else if (rng_chance(r, 3)) {
			set_ref(m, l, "peer", l);       /* self cycle */
		}
		if (rng_chance(r, 5))
			set_ref(m, l, "attachment", w->conv);
		unsigned roll = rng_below(r, 100);
		if (roll < 55)
			keep_add(m, w, l);
		else if (roll < 60)
			aset(m, w->leaves_arr, li % nl, l);
		/* else: garbage (unreachable unless a kept leaf links to it) */
		prev = l;
		li++;
	}
	keep_add(m, w, big);
}

/* ---- reachability (roots: every Class object, the image roots, class statics) ---- */

static int cmp_addr(const void *a, const void *b)
{
	uint32_t x = ((const uint32_t *)a)[0], y = ((const uint32_t *)b)[0];
	return x < y ? -1 : x > y;
}

struct amap { uint32_t addr, idx; };

static int find_obj(const struct amap *am, unsigned n, uint32_t a)
{
	unsigned lo = 0, hi = n;
	while (lo < hi) {
		unsigned mid = (lo + hi) / 2;
		if (am[mid].addr < a)
			lo = mid + 1;
		else if (am[mid].addr > a)
			hi = mid;
		else
			return (int)am[mid].idx;
	}
	return -1;
}

/* Calls fn for every reference slot of object oi (the generator's own layout knowledge). */
void work_refs(struct model *m, int oi, void (*fn)(struct model *, uint32_t, void *), void *ctx)
{
	struct obj *o = &m->o[oi];
	struct klass *k = &m->k[o->cls];

	if (k->kind == CK_OBJ_ARRAY) {
		for (uint32_t i = 0; i < o->length; i++)
			fn(m, vm_r32(&m->vm, o->addr + 12 + 4 * i), ctx);
		return;
	}
	if (k->kind == CK_PRIM_ARRAY)
		return;
	fn(m, vm_r32(&m->vm, o->addr), ctx);    /* the class */
	for (int c = o->cls; c >= 0; c = m->k[c].super)
		for (unsigned i = 0; i < m->k[c].n_ifields; i++) {
			const struct kfield *f = &m->k[c].ifields[i];
			if ((f->type[0] == 'L' || f->type[0] == '[') && f->offset >= 8 && f->offset + 4 <= o->size)
				fn(m, vm_r32(&m->vm, o->addr + f->offset), ctx);
		}
	if (k->kind == CK_CLASS) {      /* a Class object: its statics */
		for (unsigned c = 0; c < m->nk; c++) {
			if (m->k[c].addr != o->addr)
				continue;
			for (unsigned i = 0; i < m->k[c].n_sfields; i++) {
				const struct kfield *f = &m->k[c].sfields[i];
				if (f->type[0] == 'L' || f->type[0] == '[')
					fn(m, vm_r32(&m->vm, o->addr + f->offset), ctx);
			}
		}
	}
}

struct reach_ctx { struct amap *am; unsigned n; int *stack; unsigned sp; };

static void reach_visit(struct model *m, uint32_t a, void *vctx)
{
	struct reach_ctx *c = vctx;
	if (!a)
		return;
	int i = find_obj(c->am, c->n, a);
	if (i < 0 || m->o[i].reach == OB_REACHABLE || m->o[i].alloc != OB_ALLOCATED)
		return;
	m->o[i].reach = OB_REACHABLE;
	c->stack[c->sp++] = i;
}

static int reachability(struct model *m)
{
	struct reach_ctx c = {0};
	c.am = xcalloc(m->no + 1, sizeof(*c.am));
	c.stack = xcalloc(m->no + 1, sizeof(int));
	if (!c.am || !c.stack) {
		xfree(c.am);
		xfree(c.stack);
		return -1;
	}
	for (unsigned i = 0; i < m->no; i++) {
		m->o[i].reach = OB_UNREACHABLE;
		if (m->o[i].alloc == OB_ALLOCATED) {
			c.am[c.n].addr = m->o[i].addr;
			c.am[c.n++].idx = i;
		}
	}
	qsort(c.am, c.n, sizeof(*c.am), cmp_addr);
	for (unsigned i = 0; i < m->no; i++) {
		if (m->o[i].alloc == OB_ALLOCATED && (m->o[i].root || m->k[m->o[i].cls].kind == CK_CLASS)) {
			m->o[i].reach = OB_REACHABLE;
			c.stack[c.sp++] = (int)i;
		}
	}
	while (c.sp)
		work_refs(m, c.stack[--c.sp], reach_visit, &c);
	xfree(c.am);
	xfree(c.stack);
	return 0;
}

/* ---- the sweep: what a GC (or the app) freed before the capture ---- */

static void sweep(struct model *m)
{
	struct rng *r = &m->rng;
	unsigned nfree = 0;
	bool bulk_done = false;

	for (unsigned i = 0; i < m->no; i++) {
		struct obj *o = &m->o[i];
		if (o->reach != OB_UNREACHABLE || o->alloc != OB_ALLOCATED)
			continue;
		if (m->k[o->cls].kind == CK_CLASS)
			continue;
		bool freed = false;
		switch (o->space) {
		case SP_MAIN:
			if (!rng_chance(r, 50))
				break;
			truth_snapshot(m, (int)i);
			{
				bool bulk = !bulk_done && o->where == OW_RUN && nfree > 3;
				ros_free(m->ros, o->addr, bulk);
				if (bulk)
					bulk_done = true;
			}
			o->content = OB_RESIDUE;
			freed = true;
			break;
		case SP_NONMOVING: {
			uint64_t nx = dlm_next_mem(m->nonmoving, o->addr);
			unsigned S = dlm_word(m->nonmoving);
			uint64_t head = S == 8 ? vm_r64(&m->vm, o->addr - 8) : vm_r32(&m->vm, o->addr - 4);
			if (!(head & 1) || !dlm_in_use(m->nonmoving, nx) || !rng_chance(r, 70))
				break;
			truth_snapshot(m, (int)i);
			if (!dlm_free(m->nonmoving, o->addr)) {
				xfree(o->snapshot);
				o->snapshot = NULL;
				break;
			}
			o->content = OB_PARTIAL;
			freed = true;
			break;
		}
		case SP_LOS: {
			if (!m->los || los_is_last(m->los, o->addr, o->size) || !rng_chance(r, 60))
				break;
			/* neighbours must be allocated: check the page before and after */
			bool ok = true;
			for (unsigned j = 0; j < m->no; j++) {
				struct obj *p = &m->o[j];
				if (p->space != SP_LOS || p->alloc != OB_FREE)
					continue;
				uint64_t pend = p->addr + RUP((uint64_t)p->size, m->page);
				uint64_t oend = o->addr + RUP((uint64_t)o->size, m->page);
				if (pend == o->addr || oend == p->addr)
					ok = false;
			}
			if (!ok)
				break;
			truth_snapshot(m, (int)i);
			if (!los_free(m->los, o->addr)) {
				xfree(o->snapshot);
				o->snapshot = NULL;
				break;
			}
			o->content = OB_RESIDUE;
			freed = true;
			break;
		}
		case SP_REGION:
			if (o->where != OW_UNEVAC)
				break;
			truth_snapshot(m, (int)i);
			if (region_kill(m->region, o->addr, o->size)) {
				o->content = OB_RESIDUE;
				freed = true;
			} else {
				xfree(o->snapshot);
				o->snapshot = NULL;
			}
			break;
		default:
			break;
		}
		if (freed) {
			o->alloc = OB_FREE;
			o->freed = true;
			nfree++;
		}
	}
}

/* After the sweep the app allocated a few more messages: 7.0+ reuse free-list heads. */
static void after_sweep(struct model *m, struct work *w)
{
	if (!m->ros)
		return;
	int msgc = klass_find(m, "Lcom/example/chat/Message;");
	for (unsigned i = 0; i < 4 && w->keep_used < w->nkeep; i++) {
		uint8_t where;
		uint32_t slot;
		uint64_t a = ros_alloc_reuse(m->ros, m->k[msgc].object_size, &where, &slot);
		if (!a)
			break;
		int o = model_new_obj(m, (uint32_t)a, m->k[msgc].object_size, msgc, SP_MAIN, where);
		if (o < 0)
			break;
		m->o[o].slot = slot;
		obj_header(m, o);
		obj_setf(m, o, "id", 9000 + i);
		obj_setf(m, o, "timestamp", 1700009999000ull + i);
		keep_add(m, w, o);
	}
}

static void finish_spaces(struct model *m)
{
	if (m->ros)
		ros_finish(m->ros);
	if (m->region) {
		uint64_t used = region_end(m->region) - 0x12c00000;
		m->region->space->rw_size = used ? used : m->page;
	}
	if (m->bump) {
		uint64_t used = RUP(bump_end(m->bump) - 0x12c00000, m->page);
		m->bump->space->rw_size = used ? used : m->page;
	}
	dlm_finish(m->nonmoving);
	dlm_finish(m->zygote);
	m->zygote->map->rw_size = m->zygote->map->size;
	if (m->los && m->los->space) {
		uint64_t used = los_end(m->los) - m->los->begin;
		m->los->space->rw_size = used ? used : m->page;
	}
}

int work_build(struct model *m)
{
	struct work w = {.residue = -1};
	uint64_t heap = m->heap_target;

	if (plan(m, heap))
		return -1;
	build_classes(m);
	if (bootimg_build(m))
		return -1;
	workload(m, &w);
	if (reachability(m))
		return -1;
	sweep(m);
	messenger_free_residue(m, &w);
	after_sweep(m, &w);
	if (reachability(m))
		return -1;
	/* freed objects stay unreachable; restore their truth state after the second pass */
	finish_spaces(m);
	if (m->bump && bump_from_space(m->bump, vm_find(&m->vm, m->cmc_from)))
		return -1;
	bootimg_finish(m);
	(void)native_alloc;
	return m->vm.bad ? -1 : 0;
}
