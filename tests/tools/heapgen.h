/* heapgen.h - builds a small ART 11 (layout family "11") heap for tests and fuzz seeds:
 * java.lang.Class, Object, String, DexCache, a user class with fields of several widths,
 * a primitive class, two array classes, a class named only by its name_ String, a retired
 * placeholder and a word that merely equals java.lang.Class's address; plus the DEX that
 * defines the loaded classes (built by dexgen.h).  Everything is generated here; nothing
 * comes from real images.
 *
 * hg_build fills a struct hg: heap bytes to map at HG_HEAP (as "non moving space") and DEX
 * bytes to map at HG_DEX (as an in-memory extracted dex), and a LinearAlloc page at
 * HG_LINEAR holding java.lang.String's ArtFields.  hg_image maps all three. */
#ifndef ARTCARVE_HEAPGEN_H
#define ARTCARVE_HEAPGEN_H

#include "art/format/art_layout.h"
#include "art/format/dex.h"
#include "carver/image/image.h"
#include "carver/base/wbuf.h"
#include "tests/tools/dexgen.h"

#define HG_FN static __attribute__((unused))
#define HG_HEAP 0x12c00000u
#define HG_DEX 0x7f0000000000ull
#define HG_LINEAR 0x7f0000100000ull  /* ArtField arrays (LinearAlloc), above 4 GiB as on 64-bit */
#define HG_HEAP_NAME "[anon:dalvik-non moving space]"
#define HG_DEX_NAME "[anon:dalvik-classes.dex extracted in memory from /data/hg.jar]"
enum { HG_HEAP_SIZE = 8192, HG_CLASS_STRIDE = 128 };

/* class slots (address = HG_HEAP + 256 + slot * HG_CLASS_STRIDE) */
enum { HG_JLC, HG_OBJECT, HG_STRING, HG_DEXCACHE, HG_NODE, HG_INT, HG_INT_ARRAY, HG_NODE_ARRAY,
       HG_PROXY, HG_RETIRED, HG_SLOTS };

struct hg {
	uint8_t heap[HG_HEAP_SIZE];
	uint8_t linear[4096];
	struct wbuf dex;
};

static const struct dg_class hg_classes[] __attribute__((unused)) = {
	{ "Ljava/lang/Object;", NULL, 0x1,
	  { { "shadow$_klass_", "Ljava/lang/Class;", 0x2 }, { "shadow$_monitor_", "I", 0x2 } }, { { NULL } } },
	{ "Ljava/lang/Class;", "Ljava/lang/Object;", 0x11, { { NULL } }, { { NULL } } },
	{ "Ljava/lang/DexCache;", "Ljava/lang/Object;", 0x11,
	  { { "location", "Ljava/lang/String;", 0x2 } }, { { NULL } } },
	{ "Ljava/lang/String;", "Ljava/lang/Object;", 0x11,
	  { { "count", "I", 0x12 }, { "hash", "I", 0x2 } }, { { NULL } } },
	{ "Lcom/example/Node;", "Ljava/lang/Object;", 0x1,
	  { { "big", "J", 0x2 }, { "c", "C", 0x2 }, { "flag", "Z", 0x2 }, { "next", "Lcom/example/Node;", 0x2 },
	    { "value", "I", 0x2 } }, { { NULL } } },
};

HG_FN uint64_t hg_class_addr(unsigned slot) { return HG_HEAP + 256 + (uint64_t)slot * HG_CLASS_STRIDE; }

/* Writes v at va in the heap or the LinearAlloc page. */
HG_FN void hg_put32(struct hg *h, uint64_t va, uint32_t v)
{
	uint8_t *p = NULL;
	if (va >= HG_HEAP && va - HG_HEAP + 4 <= HG_HEAP_SIZE)
		p = h->heap + (va - HG_HEAP);
	else if (va >= HG_LINEAR && va - HG_LINEAR + 4 <= sizeof(h->linear))
		p = h->linear + (va - HG_LINEAR);
	for (int i = 0; p && i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* A compressed java.lang.String at va holding s. */
HG_FN void hg_string(struct hg *h, uint64_t va, const char *s, const struct art_layout *l)
{
	size_t n = strlen(s);
	hg_put32(h, va + l->object.klass, (uint32_t)hg_class_addr(HG_STRING));
	hg_put32(h, va + l->string.count, (uint32_t)(n << 1));
	memcpy(h->heap + (va - HG_HEAP) + l->string.value, s, n);
}

/* Index of descriptor desc in type_ids and of its class_def (UINT32_MAX if none). */
HG_FN void hg_dex_indexes(const struct dex *d, const char *desc, uint32_t *type_idx, uint32_t *def_idx)
{
	*type_idx = *def_idx = UINT32_MAX;
	for (uint32_t t = 0; t < d->type_ids_size; t++) {
		const uint8_t *s;
		size_t n;
		if (dex_type_descriptor(d, t, &s, &n, NULL) == 0 && n == strlen(desc) && !memcmp(s, desc, n))
			*type_idx = t;
	}
	for (uint32_t c = 0; c < d->class_defs_size; c++) {
		struct dex_class_def def;
		if (dex_class_def(d, c, &def, NULL) == 0 && def.class_idx == *type_idx)
			*def_idx = c;
	}
}

/* Index in field_ids of class_desc.name, UINT32_MAX if none. */
HG_FN uint32_t hg_field_idx(const struct dex *d, const char *class_desc, const char *name)
{
	uint32_t type_idx, def_idx;
	hg_dex_indexes(d, class_desc, &type_idx, &def_idx);
	for (uint32_t i = 0; i < d->field_ids_size; i++) {
		struct dex_field_id f;
		const uint8_t *s;
		size_t n;
		if (dex_field_id(d, i, &f, NULL) == 0 && f.class_idx == type_idx &&
		    dex_string(d, f.name_idx, &s, &n, NULL) == 0 && n == strlen(name) && !memcmp(s, name, n))
			return i;
	}
	return UINT32_MAX;
}

/* java.lang.String's ifields_: a LengthPrefixedArray<ArtField> {count +8, hash +12} at va,
 * as the runtime keeps it when ArtField memory is captured. */
HG_FN void hg_string_ifields(struct hg *h, uint64_t va, const struct dex *d, const struct art_layout *l)
{
	static const char *const names[2] = { "count", "hash" };
	uint64_t k = hg_class_addr(HG_STRING);
	hg_put32(h, k + l->klass.ifields, (uint32_t)va);
	hg_put32(h, k + l->klass.ifields + 4, (uint32_t)(va >> 32));
	hg_put32(h, va, 2);
	for (size_t i = 0; i < 2; i++) {
		uint64_t f = va + art_layout_field_offset(l, i);
		hg_put32(h, f + l->art_field.declaring_class, (uint32_t)k);
		hg_put32(h, f + l->art_field.access_flags, 0x12);
		hg_put32(h, f + l->art_field.field_dex_idx, hg_field_idx(d, "Ljava/lang/String;", names[i]));
		hg_put32(h, f + l->art_field.offset, 8 + 4 * (uint32_t)i);
	}
}

struct hg_class_spec {
	unsigned slot, super, component;  /* slots; HG_SLOTS = none */
	const char *desc;                 /* dex classes, NULL otherwise */
	uint32_t object_size, flags, primitive, status, nrefs;
};

HG_FN void hg_class(struct hg *h, const struct hg_class_spec *c, const struct dex *d, uint64_t dex_cache,
		    const struct art_layout *l)
{
	uint64_t a = hg_class_addr(c->slot);
	uint32_t type_idx = 0xffffffffu, def_idx = 0xffffffffu;
	hg_put32(h, a + l->object.klass, (uint32_t)hg_class_addr(HG_JLC));
	if (c->super != HG_SLOTS)
		hg_put32(h, a + l->klass.super_class, (uint32_t)hg_class_addr(c->super));
	if (c->component != HG_SLOTS)
		hg_put32(h, a + l->klass.component_type, (uint32_t)hg_class_addr(c->component));
	if (c->desc) {
		hg_dex_indexes(d, c->desc, &type_idx, &def_idx);
		hg_put32(h, a + l->klass.dex_cache, (uint32_t)dex_cache);
	}
	hg_put32(h, a + l->klass.dex_type_idx, type_idx);
	hg_put32(h, a + l->klass.dex_class_def_idx, def_idx);
	hg_put32(h, a + l->klass.class_size, l->klass.size);
	hg_put32(h, a + l->klass.object_size, c->object_size);
	hg_put32(h, a + l->klass.class_flags, c->flags);
	hg_put32(h, a + l->klass.primitive_type, c->primitive);
	hg_put32(h, a + l->klass.num_reference_instance_fields, c->nrefs);
	hg_put32(h, a + l->klass.status, c->status << l->klass.status_shift);
}

/* Builds the heap and the DEX; returns 0 or -1. */
HG_FN int hg_build(struct hg *h)
{
	const struct art_layout *l = art_layout_by_family("11");
	struct dg_spec sp = { hg_classes, sizeof(hg_classes) / sizeof(hg_classes[0]), 38, false };
	struct cursor c;
	struct dex d;
	const uint64_t dex_cache = HG_HEAP + 2048, location = HG_HEAP + 2304, proxy_name = HG_HEAP + 2400;
	enum { INITIALIZED = 14, RETIRED = 1 };
	const struct hg_class_spec classes[] = {
		{ HG_JLC, HG_OBJECT, HG_SLOTS, "Ljava/lang/Class;", 0, 0x10, 0, INITIALIZED, 0 },
		{ HG_OBJECT, HG_SLOTS, HG_SLOTS, "Ljava/lang/Object;", 8, 0x1, 0, INITIALIZED, 1 },
		{ HG_STRING, HG_OBJECT, HG_SLOTS, "Ljava/lang/String;", 0, 0x4, 0, INITIALIZED, 0 },
		{ HG_DEXCACHE, HG_OBJECT, HG_SLOTS, "Ljava/lang/DexCache;", 108, 0x40, 0, INITIALIZED, 1 },
		/* Node: next +8, value +12 (gap), big +16, c +24, flag +26 -> size 27 */
		{ HG_NODE, HG_OBJECT, HG_SLOTS, "Lcom/example/Node;", 27, 0, 0, INITIALIZED, 1 },
		{ HG_INT, HG_SLOTS, HG_SLOTS, NULL, 0, 0x1, 5 | 2 << 16, INITIALIZED, 0 },
		{ HG_INT_ARRAY, HG_OBJECT, HG_INT, NULL, 0, 0x1, 0, INITIALIZED, 0 },
		{ HG_NODE_ARRAY, HG_OBJECT, HG_NODE, NULL, 0, 0x8, 0, INITIALIZED, 0 },
		{ HG_PROXY, HG_OBJECT, HG_SLOTS, NULL, 8, 0, 0, INITIALIZED, 0 },
		{ HG_RETIRED, HG_OBJECT, HG_SLOTS, "Lcom/example/Node;", 27, 0, 0, RETIRED, 1 },
	};

	memset(h->heap, 0, sizeof(h->heap));
	memset(h->linear, 0, sizeof(h->linear));
	wbuf_init(&h->dex);
	if (!l || dg_build(&h->dex, &sp) || wbuf_status(&h->dex, NULL))
		return -1;
	cur_init(&c, h->dex.data, h->dex.len, HG_DEX);
	if (dex_load(&d, &c, NULL))
		return -1;
	for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++)
		hg_class(h, &classes[i], &d, dex_cache, l);
	hg_string_ifields(h, HG_LINEAR + 64, &d, l);
	hg_put32(h, hg_class_addr(HG_PROXY) + l->klass.name, (uint32_t)proxy_name);
	hg_string(h, proxy_name, "$Proxy7", l);
	hg_put32(h, dex_cache + l->object.klass, (uint32_t)hg_class_addr(HG_DEXCACHE));
	hg_put32(h, dex_cache + l->dex_cache.location, (uint32_t)location);
	hg_string(h, location, "/data/hg.jar", l);
	/* an int[] whose element happens to equal java.lang.Class's address */
	hg_put32(h, HG_HEAP + 4096, (uint32_t)hg_class_addr(HG_INT_ARRAY));
	hg_put32(h, HG_HEAP + 4096 + l->array.length, 3);
	hg_put32(h, HG_HEAP + 4096 + 16, (uint32_t)hg_class_addr(HG_JLC));
	return 0;
}

/* Maps the heap and the DEX into a memory image. */
HG_FN int hg_image(struct image *img, const struct hg *h, struct err *e)
{
	img_init_empty(img, "heapgen");
	if (img_add_region_mem(img, HG_HEAP, h->heap, sizeof(h->heap), IMG_PROT_R | IMG_PROT_W, HG_HEAP_NAME, e) ||
	    img_add_region_mem(img, HG_DEX, h->dex.data, h->dex.len, IMG_PROT_R, HG_DEX_NAME, e) ||
	    img_add_region_mem(img, HG_LINEAR, h->linear, sizeof(h->linear), IMG_PROT_R | IMG_PROT_W,
			       "[anon:dalvik-LinearAlloc]", e))
		return -1;
	return 0;
}

HG_FN void hg_release(struct hg *h) { wbuf_release(&h->dex); }

#endif
