/* bootimg.c - a minimal boot image (the core classes, their DEX, dex caches, class roots and
 * image roots, a header of the family's version) plus the app's classes in the heap.
 *
 * Header layouts: runtime/image.h (@R50..R14U, 15: runtime/oat/image.h @R15; doc/sources.md), layouts A-E; its sections, image
 * roots and class roots (runtime/image.h, runtime/class_linker.h).  ArtField (6.0+): 16-byte native {declaring_class_,
 * access_flags_, field_dex_idx_, offset_} in the image's ArtFields section or in LinearAlloc,
 * 6.0 as a raw array counted by the Class, 7.0+ as a LengthPrefixedArray {u32 size, elements}.
 * 5.x: ObjectArray<ArtField> of mirror ArtField objects. */
#include <string.h>

#include "carver/base/xalloc.h"
#include "tests/synth/synth.h"
#include "tests/synth/alloc.h"

#define RUP(x, a) (((x) + (a) - 1) / (a) * (a))

int new_string(struct model *m, const char *u8, enum sp_kind sp, int mode);

static uint64_t img_top;        /* bump pointer inside the image objects section */
static uint64_t img_fields_begin, img_fields_end, img_methods_end;

/* ---- ArtMethods (7.0+) and the code they enter ----
 * art_method.h @7.0-11: declaring_class_ u32 @0, access_flags_ @4, dex_code_item_offset_ @8,
 * dex_method_index_ @12, method_index_ u16 @16, hotness_count_ u16 @18, then pointer-sized
 * fields ending with entry_point_from_quick_compiled_code_ (fam artmethod_quick32/64) right
 * after the JNI entry / data_ pointer.  LengthPrefixedArray<ArtMethod>: u32 length, elements
 * from +P, stride = size rounded up to P.  Native methods enter through libart:
 * art_quick_generic_jni_trampoline (quick) and art_jni_dlsym_lookup_stub (jni / data_). */
#define LIBART_GENERIC_JNI 0x2000
#define LIBART_DLSYM_STUB 0x3000

static unsigned am_size(const struct model *m)
{
	unsigned s = m->bits == 64 ? m->fam->artmethod_size64 : m->fam->artmethod_size32;
	return (s + m->vm.ptr - 1) / m->vm.ptr * m->vm.ptr;
}

static unsigned am_quick(const struct model *m)
{
	return m->bits == 64 ? m->fam->artmethod_quick64 : m->fam->artmethod_quick32;
}

static uint64_t art_methods(struct model *m, int ki, uint64_t a)
{
	struct klass *k = &m->k[ki];
	unsigned P = m->vm.ptr, size = am_size(m), q = am_quick(m);
	static const uint32_t flags[2] = {0x010a, 0x0101};      /* as dexw declares them */

	k->methods_addr = a;
	vm_w32(&m->vm, a, k->n_methods);
	a += P;
	for (unsigned w = 0; w < k->n_methods; w++, a += size) {
		k->method_addr[w] = a;
		vm_w32(&m->vm, a, k->addr);
		vm_w32(&m->vm, a + 4, flags[w]);
		/* 12+ (art_method.h @R12S): dex_code_item_offset_ gone, the rest 4 bytes earlier */
		unsigned idx = m->fam->artmethod_no_code_item ? 8 : 12;
		vm_w32(&m->vm, a + idx, k->method_idx[w]);
		vm_w16(&m->vm, a + idx + 4, (uint16_t)w);    /* virtual: its vtable slot */
		vm_wptr(&m->vm, a + q - P, m->libart + LIBART_DLSYM_STUB);
		vm_wptr(&m->vm, a + q, m->libart + LIBART_GENERIC_JNI);
		m->art_methods++;
	}
	return a;
}

/* libart.so's text (known code) and, with --inject-hooks, an anonymous rwx page of
 * Frida-style trampolines that N ArtMethods now enter instead. */
static int code_maps(struct model *m)
{
	char name[200];
	bool b64 = m->bits == 64;
	const char *lib = b64 ? "lib64" : "lib";

	if (m->fam->api <= 28)
		snprintf(name, sizeof(name), "/system/%s/libart.so", lib);
	else if (m->fam->api == 29)
		snprintf(name, sizeof(name), "/apex/com.android.runtime/%s/libart.so", lib);
	else
		snprintf(name, sizeof(name), "/apex/com.android.art/%s/libart.so", lib);
	m->libart = b64 ? 0x7f60000000ull : 0xe9000000u;
	m->libart_size = 0x10000;
	struct vmap *t = vm_add(&m->vm, name, m->libart, m->libart_size, m->libart_size, "r-xp", SP_NATIVE);
	if (!t)
		return -1;
	t->file = true;
	t->file_off = 0x100000;
	for (uint64_t i = 0; i + 4 <= m->libart_size; i += 4)     /* ret / bx lr */
		vm_w32(&m->vm, m->libart + i, b64 ? 0xd65f03c0u : 0x47704770u);
	if (m->hooks) {
		m->hook_area = b64 ? 0x7f70000000ull : 0xea000000u;
		if (!vm_add(&m->vm, "", m->hook_area, 0x1000 * (1 + m->hooks / 256), 0x1000 * (1 + m->hooks / 256),
			    "rwxp", SP_NATIVE))
			return -1;
	}
	return 0;
}

/* Hook n: trampoline at hook_area + 16n jumping back to the original entry
 * (arm64: ldr x16, #8; br x16; .quad T - Thumb-2: ldr.w pc, [pc, #0]; .word T|1). */
static void inject_hooks(struct model *m)
{
	unsigned n = 0, left = m->art_methods;
	unsigned q = am_quick(m);

	/* selection sampling (Knuth's algorithm S): exactly min(hooks, methods), uniformly */
	for (unsigned i = 0; i < m->nk; i++) {
		struct klass *k = &m->k[i];
		for (unsigned w = 0; w < k->n_methods; w++, left--) {
			if (n >= m->hooks || rng_below(&m->rng, left) >= m->hooks - n)
				continue;
			uint64_t tr = m->hook_area + 16 * (uint64_t)n;
			uint64_t orig = m->libart + LIBART_GENERIC_JNI;
			if (m->bits == 64) {
				vm_w32(&m->vm, tr, 0x58000050u);
				vm_w32(&m->vm, tr + 4, 0xd61f0200u);
				vm_w64(&m->vm, tr + 8, orig);
			} else {
				vm_w32(&m->vm, tr, 0xf000f8dfu);
				vm_w32(&m->vm, tr + 4, (uint32_t)orig | 1);
				tr |= 1;        /* Thumb */
			}
			vm_wptr(&m->vm, k->method_addr[w] + q, tr);
			k->hooked |= 1u << w;
			n++;
		}
	}
	m->n_hooks_done = n;
}

static int img_obj(struct model *m, int cls, uint32_t size)
{
	uint64_t a = img_top;
	img_top = RUP(img_top + size, 8);
	int o = model_new_obj(m, (uint32_t)a, size, cls, SP_IMAGE, OW_IMAGE);
	if (o >= 0) {
		m->o[o].root = true;
		obj_header(m, o);
	}
	return o;
}

static const char *isa_dir(const struct model *m) { return m->bits == 64 ? "arm64" : "arm"; }

static void image_path(const struct model *m, char *out, size_t cap)
{
	if (m->fam->api <= 28)
		snprintf(out, cap, "/data/dalvik-cache/%s/system@framework@boot.art", isa_dir(m));
	else if (m->fam->api == 29)
		snprintf(out, cap, "/system/framework/%s/boot.art", isa_dir(m));
	else
		snprintf(out, cap, "/apex/com.android.art/javalib/%s/boot.art", isa_dir(m));
}

static const char *core_jar(const struct model *m)
{
	return m->fam->api <= 23 ? "/system/framework/core-libart.jar" : "/system/framework/core-oj.jar";
}

#define APP_APK "/data/app/com.example.synth-1/base.apk"

/* Writes DEX d into its own mapping and a native art::DexFile {vtable, begin_, size_, ...}. */
static int place_dex(struct model *m, int d, uint64_t va)
{
	struct wbuf b;
	char name[300], what[260];

	wbuf_init(&b);
	if (dexw_build(m, d, &b) || b.failed) {
		wbuf_release(&b);
		return -1;
	}
	snprintf(what, sizeof(what), "classes.dex extracted in memory from %s", d ? APP_APK : core_jar(m));
	vm_dalvik_name(m->fam, what, name, sizeof(name));
	uint64_t sz = RUP(b.len, m->page);
	struct vmap *map = vm_add(&m->vm, name, va, sz, sz, "r--p", SP_NATIVE);
	if (!map) {
		wbuf_release(&b);
		return -1;
	}
	memcpy(map->bytes, b.data, b.len);
	m->dex_addr[d] = va;
	m->dex_size[d] = (uint32_t)b.len;
	wbuf_release(&b);
	/* DexFile (dex_file.h): vtable at 0, begin_ at P, size_ at 2P; 9+: data_begin_ 3P, data_size_ 4P */
	unsigned P = m->vm.ptr;
	uint64_t df = m->native_top;
	m->native_top += 16 * P;
	vm_wptr(&m->vm, df, m->bits == 64 ? 0x7f50001000ull : 0xe8001000u);
	vm_wptr(&m->vm, df + P, va);
	vm_wptr(&m->vm, df + 2 * P, m->dex_size[d]);
	if (m->fam->api >= 28) {
		vm_wptr(&m->vm, df + 3 * P, va);
		vm_wptr(&m->vm, df + 4 * P, m->dex_size[d]);
	}
	m->dexfile_native[d] = df;
	return 0;
}

static void dexcache_fill(struct model *m, int o, int loc, int d)
{
	const struct fam_mirror *dc = &m->fam->m_dexcache;
	uint32_t a = m->o[o].addr;
	vm_w32(&m->vm, a + fam_off(dc, "location"), m->o[loc].addr);
	vm_w64(&m->vm, a + fam_off(dc, "dexFile"), m->dexfile_native[d]);
}

/* 6.0+: native ArtField arrays (LPA from 7.0) at *top; 5.x: mirror objects, via img/heap.
 * f then g (16: the static fields, then the instance fields, in one fields_ array). */
static uint64_t native_fields(struct model *m, int ki, const struct kfield *f, unsigned n,
			      const struct kfield *g, unsigned ng, uint64_t *top)
{
	if (n + ng == 0)
		return 0;
	uint64_t a = *top;
	uint64_t e = a;
	if (m->fam->fields == FAM_FIELDS_LPA) {
		vm_w32(&m->vm, a, n + ng);
		e += 4;
	}
	for (unsigned i = 0; i < n + ng; i++, e += 16) {
		const struct kfield *x = i < n ? &f[i] : &g[i - n];
		vm_w32(&m->vm, e, m->k[ki].addr);
		vm_w32(&m->vm, e + 4, x->is_static ? 0x0009 : 0x0001);
		vm_w32(&m->vm, e + 8, x->dex_field_idx);
		vm_w32(&m->vm, e + 12, x->offset);
	}
	*top = RUP(e, 8);
	return a;
}

static uint32_t mirror_fields(struct model *m, int ki, const struct kfield *f, unsigned n, bool image)
{
	if (n == 0)
		return 0;
	uint32_t size = 12 + 4 * n;
	int arr = image ? img_obj(m, m->c_artfield_array, size)
			: heap_alloc(m, m->c_artfield_array, size, SP_MAIN, 1);
	if (arr < 0)
		return 0;
	obj_header(m, arr);
	vm_w32(&m->vm, m->o[arr].addr + 8, n);
	m->o[arr].length = n;
	const struct fam_mirror *af = &m->fam->m_artfield;
	for (unsigned i = 0; i < n; i++) {
		int o = image ? img_obj(m, m->c_artfield, af->size) : heap_alloc(m, m->c_artfield, af->size, SP_MAIN, 1);
		if (o < 0)
			return 0;
		obj_header(m, o);
		uint32_t a = m->o[o].addr;
		vm_w32(&m->vm, a + fam_off(af, "declaringClass"), m->k[ki].addr);
		vm_w32(&m->vm, a + fam_off(af, "accessFlags"), f[i].is_static ? 0x0009 : 0x0001);
		vm_w32(&m->vm, a + fam_off(af, "fieldDexIndex"), f[i].dex_field_idx);
		vm_w32(&m->vm, a + fam_off(af, "offset"), f[i].offset);
		vm_w32(&m->vm, m->o[arr].addr + 12 + 4 * i, a);
	}
	return m->o[arr].addr;
}

static void class_fields(struct model *m, int ki, bool image, uint64_t *top)
{
	struct klass *k = &m->k[ki];
	if (m->fam->fields == FAM_FIELDS_MIRROR) {
		k->fields_addr = mirror_fields(m, ki, k->ifields, k->n_ifields, image);
		k->sfields_addr = mirror_fields(m, ki, k->sfields, k->n_sfields, image);
	} else if (m->fam->fields_merged) {
		/* Class.fields_ (class_linker.cc LoadClassHelper @R16): statics first */
		k->fields_addr = native_fields(m, ki, k->sfields, k->n_sfields, k->ifields, k->n_ifields, top);
		k->sfields_addr = 0;
	} else {
		k->fields_addr = native_fields(m, ki, k->ifields, k->n_ifields, NULL, 0, top);
		k->sfields_addr = native_fields(m, ki, k->sfields, k->n_sfields, NULL, 0, top);
	}
}

static int obj_array(struct model *m, int cls, uint32_t n, bool image)
{
	uint32_t size = 12 + 4 * n;
	int o = image ? img_obj(m, cls, size) : heap_alloc(m, cls, size, SP_MAIN, 1);
	if (o >= 0) {
		obj_header(m, o);
		vm_w32(&m->vm, m->o[o].addr + 8, n);
		m->o[o].length = n;
	}
	return o;
}

static int img_string(struct model *m, const char *s)
{
	/* strings in the image: allocate through a temporary redirect of new_string */
	size_t n = strlen(s);
	if (m->fam->str == FAM_STR_ARRAY) {
		int arr = img_obj(m, m->c_char_array, 12 + 2 * (uint32_t)n);
		int o = img_obj(m, m->c_string, m->fam->m_string.size);
		if (arr < 0 || o < 0)
			return -1;
		vm_w32(&m->vm, m->o[arr].addr + 8, (uint32_t)n);
		m->o[arr].length = (uint32_t)n;
		for (size_t i = 0; i < n; i++)
			vm_w16(&m->vm, m->o[arr].addr + 12 + 2 * i, (uint8_t)s[i]);
		obj_setf(m, o, "value", m->o[arr].addr);
		obj_setf(m, o, "count", (uint32_t)n);
		m->o[o].length = (uint32_t)n;
		return o;
	}
	bool comp = m->fam->str == FAM_STR_COMPRESSED;
	int o = img_obj(m, m->c_string, 16 + (uint32_t)(comp ? n : 2 * n));
	if (o < 0)
		return -1;
	uint32_t a = m->o[o].addr;
	vm_w32(&m->vm, a + 8, comp ? (uint32_t)n << 1 : (uint32_t)n);
	for (size_t i = 0; i < n; i++) {
		if (comp)
			vm_w8(&m->vm, a + 16 + i, (uint8_t)s[i]);
		else
			vm_w16(&m->vm, a + 16 + 2 * i, (uint8_t)s[i]);
	}
	m->o[o].length = (uint32_t)n;
	m->o[o].compressed = comp;
	return o;
}

static struct vmap *image_map;

int bootimg_build(struct model *m)
{
	const struct fam *f = m->fam;
	char path[200];

	image_path(m, path, sizeof(path));
	image_map = vm_add(&m->vm, path, m->image_begin, m->image_end - m->image_begin,
			   m->image_end - m->image_begin, "rw-p", SP_IMAGE);
	if (!image_map)
		return -1;
	image_map->file = true;
	m->image = image_map;
	uint64_t dex_va = m->native_top + 0x400000;
	if (place_dex(m, 0, dex_va) || place_dex(m, 1, dex_va + 0x100000))
		return -1;
	img_top = m->image_begin + RUP(f->hdr_size, 8);

	/* Class objects of the boot class path */
	for (unsigned i = 0; i < m->nk; i++) {
		struct klass *k = &m->k[i];
		if (!k->in_image)
			continue;
		k->addr = (uint32_t)img_top;
		int o = model_new_obj(m, (uint32_t)img_top, k->class_size, m->c_class, SP_IMAGE, OW_IMAGE);
		if (o < 0)
			return -1;
		m->o[o].root = true;
		k->obj = o;
		img_top = RUP(img_top + k->class_size, 8);
	}
	/* the core dex cache and its location string */
	int loc = img_string(m, core_jar(m));
	int dc = img_obj(m, m->c_dexcache, f->m_dexcache.size);
	if (loc < 0 || dc < 0)
		return -1;
	m->dexcache_obj[0] = m->o[dc].addr;
	dexcache_fill(m, dc, loc, 0);
	/* class roots, dex caches array, image roots */
	int croots = obj_array(m, klass_find(m, "[Ljava/lang/Class;"), f->n_class_roots, true);
	int dcs = obj_array(m, m->c_object_array, 1, true);
	int roots = obj_array(m, m->c_object_array, f->n_image_roots, true);
	if (croots < 0 || dcs < 0 || roots < 0)
		return -1;
	for (unsigned i = 0; i < f->n_class_roots; i++)
		vm_w32(&m->vm, m->o[croots].addr + 12 + 4 * i, m->k[klass_find(m, f->class_roots[i])].addr);
	vm_w32(&m->vm, m->o[dcs].addr + 12, m->dexcache_obj[0]);
	vm_w32(&m->vm, m->o[roots].addr + 12 + 4 * f->root_dex_caches, m->o[dcs].addr);
	vm_w32(&m->vm, m->o[roots].addr + 12 + 4 * f->root_class_roots, m->o[croots].addr);
	m->image_roots_addr = m->o[roots].addr;
	m->class_roots_addr = m->o[croots].addr;
	/* 5.x: mirror ArtFields are image objects; 6.0+: the ArtFields section follows the objects */
	uint64_t ftop = 0;
	if (f->fields == FAM_FIELDS_MIRROR) {
		for (unsigned i = 0; i < m->nk; i++)
			if (m->k[i].in_image)
				class_fields(m, (int)i, true, NULL);
	}
	img_fields_begin = RUP(img_top, 8);
	ftop = img_fields_begin;
	if (f->fields != FAM_FIELDS_MIRROR)
		for (unsigned i = 0; i < m->nk; i++)
			if (m->k[i].in_image)
				class_fields(m, (int)i, true, &ftop);
	img_fields_end = ftop;
	/* 7.0+: the ArtMethods section (native methods of the core classes) */
	uint64_t mtop = img_fields_end;
	if (f->fields == FAM_FIELDS_LPA) {
		if (code_maps(m))
			return -1;
		mtop = (mtop + m->vm.ptr - 1) / m->vm.ptr * m->vm.ptr;
		for (unsigned i = 0; i < m->nk; i++)
			if (m->k[i].in_image && m->k[i].n_methods)
				mtop = art_methods(m, (int)i, mtop);
		inject_hooks(m);
	}
	img_methods_end = mtop;

	/* the app's classes: Class objects in the heap, fields in LinearAlloc (or the heap) */
	for (unsigned i = 0; i < m->nk; i++) {
		struct klass *k = &m->k[i];
		if (k->in_image)
			continue;
		int o = heap_alloc(m, m->c_class, k->class_size, SP_MAIN, 1);
		if (o < 0)
			return -1;
		k->addr = m->o[o].addr;
		k->obj = o;
	}
	int aloc = new_string(m, APP_APK, SP_MAIN, 1);
	int adc = heap_alloc(m, m->c_dexcache, f->m_dexcache.size, SP_MAIN, 1);
	if (aloc < 0 || adc < 0)
		return -1;
	obj_header(m, adc);
	m->o[adc].root = true;          /* held by the class linker's dex cache list */
	m->dexcache_obj[1] = m->o[adc].addr;
	dexcache_fill(m, adc, aloc, 1);
	uint64_t la = m->la_top;
	for (unsigned i = 0; i < m->nk; i++)
		if (!m->k[i].in_image)
			class_fields(m, (int)i, false, &la);
	m->la_top = la;
	for (unsigned i = 0; i < m->nk; i++)
		class_write(m, (int)i);
	return m->vm.bad ? -1 : 0;
}

static void w32(struct model *m, uint32_t off, uint32_t v) { vm_w32(&m->vm, m->image_begin + off, v); }

/* 12+ (the ART module, whose layouts follow the image and OAT versions): boot.oat mapped
 * where the image header says, [oat_begin, +3 pages): an ELF file whose oatdata (the
 * OatHeader, runtime/oat.h @R12S..R16: magic "oat\n", version "NNN\0") starts one page in.
 * Only the two headers are written; the rest stays zero. */
static void oat_map(struct model *m, uint64_t oat_begin)
{
	char path[200];
	image_path(m, path, sizeof(path));
	size_t n = strlen(path);
	if (n < 4 || strcmp(path + n - 4, ".art")) {
		m->vm.bad = true;
		return;
	}
	memcpy(path + n - 4, ".oat", 4);
	struct vmap *o = vm_add(&m->vm, path, oat_begin, 3 * m->page, 3 * m->page, "r--p", SP_NATIVE);
	if (!o) {
		m->vm.bad = true;
		m->vm.bad_va = oat_begin;
		return;
	}
	o->file = true;
	memcpy(o->bytes, "\177ELF", 4);
	o->bytes[4] = m->bits == 64 ? 2 : 1;          /* EI_CLASS */
	o->bytes[5] = 1;                               /* EI_DATA little-endian */
	o->bytes[6] = 1;                               /* EI_VERSION */
	memcpy(o->bytes + m->page, "oat\n", 4);
	memcpy(o->bytes + m->page + 4, m->fam->oat_version, 3);
}

/* Writes the header once the image contents are final. */
void bootimg_finish(struct model *m)
{
	const struct fam *f = m->fam;
	uint32_t objects_end = (uint32_t)(img_fields_begin - m->image_begin);
	uint32_t fields_off = objects_end, fields_size = (uint32_t)(img_fields_end - img_fields_begin);
	uint32_t methods_off = (uint32_t)(img_fields_end - m->image_begin), methods_size = (uint32_t)(img_methods_end - img_fields_end);
	if (methods_size) {
		methods_off = (methods_off + m->vm.ptr - 1) / m->vm.ptr * m->vm.ptr;
		methods_size = (uint32_t)(img_methods_end - m->image_begin) - methods_off;
	}
	uint32_t end = (uint32_t)(img_methods_end - m->image_begin);
	uint32_t image_size = end;      /* not page-aligned (real boot images are not either) */
	uint32_t oat_begin = (uint32_t)m->image_begin + RUP(image_size, m->page);
	uint32_t roots = m->image_roots_addr;
	uint32_t bitmap_size = RUP(image_size / 64, 8);

	memcpy(m->image->bytes, "art\n", 4);
	memcpy(m->image->bytes + 4, f->image_version, 4);
	unsigned sec = 0, meth = 0;
	switch (f->hdr) {
	case FAM_HDR_A:
		w32(m, 8, (uint32_t)m->image_begin); w32(m, 12, image_size);
		w32(m, 16, RUP(image_size, m->page)); w32(m, 20, bitmap_size);
		w32(m, 24, 0x5e4d5c11); w32(m, 28, oat_begin); w32(m, 32, oat_begin + m->page);
		w32(m, 36, oat_begin + 2 * m->page); w32(m, 40, oat_begin + 3 * m->page);
		w32(m, 44, 0); w32(m, 48, roots);
		if (f->hdr_size > 52)
			w32(m, 52, 1);
		break;
	case FAM_HDR_B:
		w32(m, 8, (uint32_t)m->image_begin); w32(m, 12, image_size); w32(m, 16, 0x5e4d5c11);
		w32(m, 20, oat_begin); w32(m, 24, oat_begin + m->page); w32(m, 28, oat_begin + 2 * m->page);
		w32(m, 32, oat_begin + 3 * m->page); w32(m, 36, 0); w32(m, 40, roots);
		w32(m, 44, m->vm.ptr); w32(m, 48, 1);
		sec = 52; meth = 92;
		break;
	case FAM_HDR_C:
		w32(m, 8, (uint32_t)m->image_begin); w32(m, 12, image_size); w32(m, 16, 0x5e4d5c11);
		w32(m, 20, oat_begin); w32(m, 24, oat_begin + m->page); w32(m, 28, oat_begin + 2 * m->page);
		w32(m, 32, oat_begin + 3 * m->page); w32(m, 52, 0); w32(m, 56, roots);
		w32(m, 60, m->vm.ptr); w32(m, 64, 1); w32(m, 68, 1);
		sec = 72; meth = 72 + 8 * f->n_sections;
		w32(m, f->hdr_size - 8, 0);                     /* storage_mode uncompressed */
		w32(m, f->hdr_size - 4, image_size - f->hdr_size);      /* data_size */
		break;
	case FAM_HDR_D:
	case FAM_HDR_E: {
		unsigned r = f->hdr == FAM_HDR_D ? 56 : 64;
		w32(m, 8, RUP(image_size, m->page) + 4 * m->page); w32(m, 12, 1);
		w32(m, 16, (uint32_t)m->image_begin); w32(m, 20, image_size); w32(m, 24, 0x1a2b3c4d);
		w32(m, 28, 0x5e4d5c11); w32(m, 32, oat_begin); w32(m, 36, oat_begin + m->page);
		w32(m, 40, oat_begin + 2 * m->page); w32(m, 44, oat_begin + 3 * m->page);
		w32(m, r, roots); w32(m, r + 4, m->vm.ptr);
		sec = r + 8; meth = sec + 8 * f->n_sections;
		w32(m, meth + 8 * 9, image_size - f->hdr_size);     /* data_size; no blocks */
		break;
	}
	}
	if (sec) {
		/* 0 Objects, 1 ArtFields, 2 ArtMethods, ..., last ImageBitmap (file offset) */
		for (unsigned i = 0; i < f->n_sections; i++) {
			uint32_t off = end, size = 0;
			if (i == 0) { off = 0; size = objects_end; }
			if (i == 1) { off = fields_off; size = fields_size; }
			if (i == 2) { off = methods_off; size = methods_size; }
			if (i == f->n_sections - 1) { off = RUP(end, m->page); size = bitmap_size; }
			w32(m, sec + 8 * i, off);
			w32(m, sec + 8 * i + 4, size);
		}
		(void)meth;     /* image methods (runtime ArtMethods) are not generated: 0 */
	}
	m->image->rw_size = RUP(image_size, m->page);
	m->image->size = RUP(image_size, m->page);
	if (f->api >= 31)
		oat_map(m, oat_begin);
}
