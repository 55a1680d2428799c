/* model_fixture.h - a hand-made ART 11 heap for the object model's tests (tests/unit/
 * test_model.c), its fuzz target (tests/fuzz/fuzz_model.c) and seed writer
 * (tests/tools/mkseeds_model.c): eight classes (java.lang.Class, Object, String, int,
 * int[], Object[], Msg {String text; Msg next; int id; boolean seen}, java.lang.Thread
 * {long nativePeer}) as Class objects at MF_HEAP + 0x100 * i, objects from MF_OBJECTS, and a
 * runtime model built by hand around them (no DEX: the classes have no static fields). */
#ifndef ARTCARVE_MODEL_FIXTURE_H
#define ARTCARVE_MODEL_FIXTURE_H

#include <stdint.h>
#include <string.h>

#include "art/runtime/runtime.h"

#define MF_HEAP 0x12c00000u
#define MF_OBJECTS 0x12c01000u
#define MF_HEAP_SIZE 0x10000u

enum { MF_CLASS, MF_OBJECT, MF_STRING, MF_INT, MF_INT_ARRAY, MF_OBJECT_ARRAY, MF_MSG, MF_THREAD, MF_CLASSES };

struct mf {
	uint8_t heap[MF_HEAP_SIZE];
	struct art_space space;
	struct rt_class cls[MF_CLASSES];
	struct rt_field f_object[2], f_string[2], f_msg[4], f_thread[1];
	struct art_runtime rt;
};

static inline void mf_put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline void mf_w32(struct mf *f, uint32_t va, uint32_t v) { mf_put32(f->heap + (va - MF_HEAP), v); }

static inline uint32_t mf_class_addr(int i) { return MF_HEAP + 0x100u * (uint32_t)i; }

static inline void mf_class(struct mf *f, int i, const char *name, int super, int component, uint32_t object_size,
			    uint32_t prim, struct rt_field *fields, uint32_t nf)
{
	struct rt_class *k = &f->cls[i];
	memset(k, 0, sizeof(*k));
	k->addr = mf_class_addr(i);
	k->name = name;
	k->name_how = "dex";
	k->dex = RT_NONE;
	k->super = super < 0 ? RT_NONE : (size_t)super;
	k->component = component < 0 ? RT_NONE : (size_t)component;
	k->fields = fields;
	k->field_count = nf;
	k->fields_how = nf || object_size ? "dex" : "";
	k->fields_checked = true;
	k->space = &f->space;
	k->raw = (struct mirror_class){ .addr = k->addr, .klass = MF_HEAP,
					.super_class = super < 0 ? 0 : mf_class_addr(super),
					.component_type = component < 0 ? 0 : mf_class_addr(component),
					.object_size = object_size, .class_size = 120, .primitive_type = prim,
					.dex_class_def_idx = 0xffffffffu };
	mf_w32(f, k->addr, MF_HEAP);          /* klass_ = java.lang.Class */
	mf_w32(f, k->addr + 72, 120);         /* class_size_ (mirror::Class @ 11) */
}

/* A String (8-bit) at va. */
static inline void mf_string(struct mf *f, uint32_t va, const char *text)
{
	uint32_t n = (uint32_t)strlen(text);
	mf_w32(f, va, mf_class_addr(MF_STRING));
	mf_w32(f, va + 8, n << 1);             /* count_: length << 1 | 0 (compressed) */
	memcpy(f->heap + (va - MF_HEAP) + 16, text, n);
}

static inline void mf_msg(struct mf *f, uint32_t va, uint32_t text, uint32_t next, uint32_t id)
{
	mf_w32(f, va, mf_class_addr(MF_MSG));
	mf_w32(f, va + 8, text);
	mf_w32(f, va + 12, next);
	mf_w32(f, va + 16, id);
	f->heap[va - MF_HEAP + 20] = 1;
}

/* The classes and the sample objects: an Object[] {A}, A = Msg("hello"), B = Msg("secret")
 * -> A (nobody holds B), an attached Thread, an int[3]. */
static inline void mf_build(struct mf *f)
{
	static const struct rt_field object[] = { { "shadow$_klass_", "Ljava/lang/Class;", 0, 0, 0,
						    "java.lang.Class" },
						  { "shadow$_monitor_", "I", 4, 0, 1, "int" } };
	static const struct rt_field string[] = { { "count", "I", 8, 0, 2, "int" }, { "hash", "I", 12, 0, 3, "int" } };
	static const struct rt_field msg[] = { { "text", "Ljava/lang/String;", 8, 0, 4, "java.lang.String" },
					       { "next", "LMsg;", 12, 0, 5, "Msg" }, { "id", "I", 16, 0, 6, "int" },
					       { "seen", "Z", 20, 0, 7, "boolean" } };
	static const struct rt_field thread[] = { { "nativePeer", "J", 8, 0, 8, "long" } };

	memset(f, 0, sizeof(*f));
	memcpy(f->f_object, object, sizeof(object));
	memcpy(f->f_string, string, sizeof(string));
	memcpy(f->f_msg, msg, sizeof(msg));
	memcpy(f->f_thread, thread, sizeof(thread));
	f->space = (struct art_space){ .kind = SPACE_ROSALLOC, .begin = MF_HEAP, .end = MF_HEAP + MF_HEAP_SIZE,
				       .limit = MF_HEAP + MF_HEAP_SIZE, .name = "main space", .how = "name", .detail = "" };
	mf_class(f, MF_CLASS, "java.lang.Class", MF_OBJECT, -1, 0, 0, NULL, 0);
	mf_class(f, MF_OBJECT, "java.lang.Object", -1, -1, 8, 0, f->f_object, 2);
	mf_class(f, MF_STRING, "java.lang.String", MF_OBJECT, -1, 16, 0, f->f_string, 2);
	mf_class(f, MF_INT, "int", -1, -1, 0, 5, NULL, 0);
	mf_class(f, MF_INT_ARRAY, "int[]", MF_OBJECT, MF_INT, 0, 0, NULL, 0);
	mf_class(f, MF_OBJECT_ARRAY, "java.lang.Object[]", MF_OBJECT, MF_OBJECT, 0, 0, NULL, 0);
	mf_class(f, MF_MSG, "Msg", MF_OBJECT, -1, 24, 0, f->f_msg, 4);
	mf_class(f, MF_THREAD, "java.lang.Thread", MF_OBJECT, -1, 16, 0, f->f_thread, 1);
	f->cls[MF_INT].name_how = "primitive";

	mf_w32(f, 0x12c01500, mf_class_addr(MF_OBJECT_ARRAY));
	mf_w32(f, 0x12c01508, 2);
	mf_w32(f, 0x12c0150c, 0x12c01000);
	mf_msg(f, 0x12c01000, 0x12c01100, 0, 7);
	mf_string(f, 0x12c01100, "hello");
	mf_msg(f, 0x12c01200, 0x12c01300, 0x12c01000, 8);
	mf_string(f, 0x12c01300, "secret");
	mf_w32(f, 0x12c01400, mf_class_addr(MF_THREAD));
	mf_w32(f, 0x12c01408, 0x1000);
	mf_w32(f, 0x12c0140c, 0x7f00);         /* nativePeer = 0x7f0000001000 */
	mf_w32(f, 0x12c01600, mf_class_addr(MF_INT_ARRAY));
	mf_w32(f, 0x12c01608, 3);
	mf_w32(f, 0x12c0160c, 10);
}

/* The runtime model around f's classes, over img (which must map f->heap at MF_HEAP). */
static inline void mf_runtime(struct mf *f, const struct image *img)
{
	struct art_runtime *rt = &f->rt;
	memset(rt, 0, sizeof(*rt));
	rt->img = img;
	rt->layout = art_layout_by_family("11");
	rt->pointer_size = 8;
	rt->m = (struct mirror){ img, rt->layout, 8 };
	rt->spaces.v = &f->space;
	rt->spaces.count = 1;
	rt->java_lang_class = MF_HEAP;
	rt->classes = f->cls;
	rt->class_count = MF_CLASSES;
}

#endif
