/* walk_fuzz.h - the input format and image of the walker fuzz targets (fuzz_walk_*.c), shared
 * with their seed generator (tests/tools/mkseeds_walk.c) and the walker sweep tool.
 *
 * Input: [u8 flags][u32le a_len][A: a_len bytes][B: the rest]
 *   flags bits 0-1: layout family (0 "5.0", 1 "6.0", 2 "7.1", 3 "11"); bit 2: 64-bit process;
 *   bit 3: the target's variant (dlmalloc: a zygote space; LOS: a map-LOS allocation;
 *   contiguous: an image space).
 *   A: the space's bytes at WF_SPACE; B: its companion (RosAlloc page map, LOS allocation-
 *   info map) at WF_COMP, or nothing.
 * A small class set lives at WF_KBASE (the "boot image"): java.lang.Class, an instance class
 * of 28 bytes, byte, byte[], long, long[], java.lang.String, Object[]; inputs use these
 * addresses as class words. */
#ifndef ARTCARVE_WALK_FUZZ_H
#define ARTCARVE_WALK_FUZZ_H

#include <stdint.h>
#include <string.h>

#include "art/format/art_layout.h"
#include "art/runtime/runtime.h"
#include "carver/base/anomaly.h"
#include "carver/base/cursor.h"
#include "carver/image/image.h"
#include "rosalloc/walk/walk.h"

#define WF_SPACE 0x12c00000ull
#define WF_COMP 0x7f0000000000ull
#define WF_KBASE 0x70000000ull
#define WF_REGION (256u * 1024u)
enum { WF_K_JLC, WF_K_OBJ, WF_K_BYTE, WF_K_BYTEARR, WF_K_LONG, WF_K_LONGARR, WF_K_STRING, WF_K_OBJARR, WF_K_COUNT };
#define WF_KADDR(k) (WF_KBASE + 0x100ull * (k))
#define WF_KMEM 0x1000u

static const char *const wf_families[4] = { "5.0", "6.0", "7.1", "11" };

struct wfz {
	struct image img;
	struct art_runtime rt;
	struct art_space sp[2];
	struct rt_class classes[WF_K_COUNT];
	uint8_t kmem[WF_KMEM];
	struct anomaly_sink sink;
	uint64_t emitted;
};

static inline int wfz_emit(void *arg, const struct walk_candidate *c, struct err *e)
{
	struct wfz *f = arg;
	(void)e;
	f->emitted += c->addr + c->room + c->alloc;   /* touch every field the walker set */
	return 0;
}

static inline int wfz_unit(void *arg, const struct walk_unit *u, struct err *e)
{
	struct wfz *f = arg;
	(void)e;
	f->emitted += u->allocated + u->free;
	return 0;
}

/* Builds the image and runtime; returns the space to walk, NULL when the input is too short. */
static inline struct art_space *wfz_open(struct wfz *f, const uint8_t *data, size_t size, enum space_kind kind)
{
	struct err e;
	memset(f, 0, sizeof(*f));
	err_init(&e);
	img_init_empty(&f->img, "fuzz-walk");
	anomaly_init(&f->sink, 64);
	if (size < 5)
		return NULL;
	uint8_t flags = data[0];
	size_t a = ld_u32le(data + 1), rest = size - 5;
	if (a > rest)
		a = rest;
	f->rt.img = &f->img;
	f->rt.layout = art_layout_by_family(wf_families[flags & 3]);
	f->rt.pointer_size = flags & 4 ? 8 : 4;
	f->rt.java_lang_class = WF_KADDR(WF_K_JLC);
	for (int k = 0; k < WF_K_COUNT; k++) {
		struct rt_class *c = &f->classes[k];
		c->addr = c->raw.addr = WF_KADDR(k);
		c->super = c->component = c->dex = RT_NONE;
		memcpy(f->kmem + 0x100 * k, &(uint32_t){ (uint32_t)WF_KADDR(WF_K_JLC) }, 4);
	}
	f->classes[WF_K_JLC].name = "java.lang.Class";
	f->classes[WF_K_OBJ].raw.object_size = 28;
	f->classes[WF_K_BYTE].raw.primitive_type = 2;
	f->classes[WF_K_BYTEARR].raw.component_type = (uint32_t)WF_KADDR(WF_K_BYTE);
	f->classes[WF_K_LONG].raw.primitive_type = 6;
	f->classes[WF_K_LONGARR].raw.component_type = (uint32_t)WF_KADDR(WF_K_LONG);
	f->classes[WF_K_STRING].name = "java.lang.String";
	f->classes[WF_K_STRING].raw.object_size = 16;
	f->classes[WF_K_OBJARR].raw.component_type = (uint32_t)WF_KADDR(WF_K_OBJ);
	memcpy(f->kmem + 0x100 * WF_K_OBJ + f->rt.layout->klass.class_size, &(uint32_t){ 200 }, 4);
	f->rt.classes = f->classes;
	f->rt.class_count = WF_K_COUNT;
	if (img_add_region_mem(&f->img, WF_KBASE, f->kmem, sizeof(f->kmem), IMG_PROT_R, "/system/framework/boot.art", &e))
		return NULL;
	if (a && img_add_region_mem(&f->img, WF_SPACE, data + 5, a, IMG_PROT_R | IMG_PROT_W, "", &e))
		return NULL;
	if (rest > a && img_add_region_mem(&f->img, WF_COMP, data + 5 + a, rest - a, IMG_PROT_R | IMG_PROT_W, "", &e))
		return NULL;
	struct art_space *s = &f->sp[0];
	s->kind = kind;
	s->begin = WF_SPACE;
	s->end = WF_SPACE + a;
	s->limit = WF_SPACE + (a + 4095) / 4096 * 4096;
	s->name = "fuzz space";
	s->how = "name";
	s->detail = "";
	s->companion = rest > a ? WF_COMP : 0;
	if (kind == SPACE_IMAGE)
		s->objects_end = s->end;
	if (kind == SPACE_REGION)
		s->end = s->limit = WF_SPACE + (a + WF_REGION - 1) / WF_REGION * WF_REGION;
	f->rt.spaces.v = f->sp;
	f->rt.spaces.count = 1;
	return s;
}

static inline void wfz_run(struct wfz *f, const struct art_space *s)
{
	struct err e;
	struct walk_ctx ctx = { .rt = &f->rt, .sink = &f->sink, .emit = wfz_emit, .arg = f, .unit = wfz_unit,
				.unit_arg = f };
	err_init(&e);
	if (s && walk_space(&ctx, s, &e) == 0 && anomaly_status(&f->sink, &e) != 0)
		f->emitted = 0;
}

static inline void wfz_close(struct wfz *f)
{
	anomaly_release(&f->sink);
	img_close(&f->img);
}

#endif
