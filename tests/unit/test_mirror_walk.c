/* test_mirror_walk.c - the object walk and class naming (art/mirror/mirror_walk.c) through
 * the mirror decoder, for every layout family: a primary image (tests/unit/art_image_synth.h)
 * and a component image laid out here whose objects use the primary's classes.  Both in
 * one address space, every class pointer resolves; the component alone, objects whose
 * class is not loaded are sized by the live bitmap and listed once each, java.lang.Class is
 * learned from the first loaded class; names come from name_ (also when the String is in
 * the other image), component types and primitive types; component-type cycles end in an
 * error; an image outside the address space and hostile objects (class pointers null,
 * misaligned or to a non-Class, negative counts and lengths, sizes below a header or past
 * the section) are refused with a message naming the address. */
#include <stdio.h>

#include "art/format/art_image.h"
#include "art/mirror/mirror_walk.h"
#include "carver/image/image.h"
#include "t.h"
#include "art_image_synth.h"

#define COMP_BASE (SYN_BEGIN + 0x100000u)

/* the component image: its own classes and what it holds, for the expectations */
struct comp {
	struct synth s;
	uint32_t baz, baz_array, cyc, cyc_a, cyc_b, named_elsewhere, late_class;
	uint32_t baz_obj, foo_obj, str, ints, dex_cache;
	unsigned primary_class_objects;   /* objects whose class lives in the primary image */
	unsigned strings_5x;              /* 5.x char[] objects (class in the primary) */
};

/* A component of primary p: every object but the Baz instance has a class of p. */
static uint8_t *build_component(struct comp *c, const struct synth *p, size_t *len)
{
	struct synth *s = &c->s;
	const struct art_layout *l = p->lay;
	const bool v5 = l->string.value == ART_ABSENT;

	memset(c, 0, sizeof(*c));
	if (!syn_begin(s, p->fmt, COMP_BASE))
		return NULL;
	/* the primary's classes */
	s->jlc = p->jlc, s->jlo = p->jlo, s->jls = p->jls, s->jldc = p->jldc, s->achar = p->achar;
	s->aint = p->aint, s->aobj = p->aobj, s->foo = p->foo;
	s->roots = p->roots; /* a component uses the primary's image roots */
	/* classes of its own (their class, java.lang.Class, is in the primary) */
	c->baz = syn_class(s, 16, 0);
	c->baz_array = syn_class(s, 0, 0);
	syn_put32(s, c->baz_array + l->klass.component_type, c->baz);
	syn_put32(s, c->baz + l->klass.name, syn_string(s, "com.example.Baz", false));
	c->cyc = syn_class(s, 0, 0);      /* its own component type */
	syn_put32(s, c->cyc + l->klass.component_type, c->cyc);
	c->cyc_a = syn_class(s, 0, 0);    /* two classes, each the other's component */
	c->cyc_b = syn_class(s, 0, 0);
	syn_put32(s, c->cyc_a + l->klass.component_type, c->cyc_b);
	syn_put32(s, c->cyc_b + l->klass.component_type, c->cyc_a);
	c->named_elsewhere = syn_class(s, 16, 0); /* name_ is a String of the primary */
	syn_put32(s, c->named_elsewhere + l->klass.name, p->str_ascii);
	c->baz_obj = syn_obj(s, c->baz, 16);
	c->foo_obj = syn_obj(s, p->foo, 16);
	c->str = syn_string(s, "component", false);
	c->ints = syn_array(s, p->aint, 2, 4);
	c->dex_cache = syn_obj(s, p->jldc, l->dex_cache.size);
	c->late_class = syn_class(s, 16, 0); /* after the instance that teaches java.lang.Class */
	c->strings_5x = v5 ? 2 : 0;
	/* all but the Baz instance: 7 classes, 2 strings (+ their 5.x char[]), the int[],
	 * the Foo instance and the DexCache */
	c->primary_class_objects = 7 + 2 + c->strings_5x + 3;
	return syn_file(s, false, len);
}

/* An address space holding the given loaded images at their image_begin. */
static int view_of(struct image *view, const struct art_image *const *imgs, size_t n, struct err *e)
{
	img_init_empty(view, "test_mirror_walk");
	for (size_t i = 0; i < n; i++) {
		int rc = img_add_region_mem(view, imgs[i]->h.image_begin, imgs[i]->data, imgs[i]->len, IMG_PROT_R,
					    "image", e);
		if (rc)
			return rc;
	}
	return 0;
}

static void expect_name(const struct mirror *m, const char *fam, uint32_t k, int want_src, const char *want)
{
	struct wbuf b;
	struct err e;
	int rc;

	err_init(&e);
	wbuf_init(&b);
	rc = mw_class_name(m, k, NULL, NULL, &b, &e);
	wbuf_u8(&b, 0);
	T_CHECK(rc == want_src && !strcmp((const char *)b.data, want),
		"family %s class 0x%x: source %d \"%s\" (%s), want %d \"%s\"", fam, k, rc, (const char *)b.data,
		e.msg, want_src, want);
	wbuf_release(&b);
}

static void expect_name_error(const struct mirror *m, const char *fam, uint32_t k, const char *what)
{
	struct wbuf b;
	struct err e;
	int rc;

	err_init(&e);
	wbuf_init(&b);
	wbuf_put(&b, "kept", 4);
	rc = mw_class_name(m, k, NULL, NULL, &b, &e);
	T_CHECK(rc == -ERR_CORRUPT && strstr(e.msg, what) && b.len == 4,
		"family %s class 0x%x: rc %d \"%s\", %zu bytes left in the buffer", fam, k, rc, e.msg, b.len);
	wbuf_release(&b);
}

static void both_loaded(const struct comp *c, const struct synth *p, const struct art_image *pi,
			const struct art_image *ci)
{
	const char *fam = p->lay->family;
	const struct art_image *both[2] = { pi, ci };
	struct image view;
	struct mirror m = { &view, p->lay, 8 };
	struct mirror_walk w;
	struct err e;

	err_init(&e);
	T_EQ_I(view_of(&view, both, 2, &e), 0);
	T_CHECK(mirror_walk_image(&w, &m, ci, &e) == 0, "family %s: component walk: %s", fam, e.msg);
	T_EQ_U(w.end, ci->h.objects_end);
	T_EQ_U(w.outside, 0);
	T_EQ_U(w.count[MW_UNRESOLVED], 0);
	T_CHECK(w.class_roots_loaded && w.jlc == p->jlc && w.jls == p->jls && w.jldc == p->jldc,
		"family %s: well-known classes from the primary's class roots", fam);
	T_EQ_U(w.count[MW_CLASS], 7);
	T_EQ_U(w.count[MW_INSTANCE], 2);
	T_EQ_U(w.count[MW_STRING], 2);
	T_EQ_U(w.count[MW_PRIMITIVE_ARRAY], 1 + c->strings_5x);
	T_EQ_U(w.count[MW_DEX_CACHE], 1);
	T_EQ_U(w.class_count, 7);
	T_EQ_U(w.dex_cache_count, 1);
	T_CHECK(w.dex_caches[0] == c->dex_cache, "family %s: the DexCache listed", fam);
	expect_name(&m, fam, c->baz, MW_NAME_FIELD, "com.example.Baz");
	expect_name(&m, fam, c->baz_array, MW_NAME_ARRAY, "com.example.Baz[]");
	expect_name(&m, fam, c->named_elsewhere, MW_NAME_FIELD, "hello"); /* name_ in the primary */
	expect_name(&m, fam, p->foo, MW_NAME_FIELD, "com.example.Foo");
	expect_name(&m, fam, p->aint, MW_NAME_ARRAY, "int[]");
	expect_name_error(&m, fam, c->cyc, "nest deeper");
	expect_name_error(&m, fam, c->cyc_a, "nest deeper");
	expect_name(&m, fam, 0, MW_NAME_NONE, "");
	expect_name(&m, fam, COMP_BASE + 0x80000, MW_NAME_NONE, ""); /* nothing there */
	mirror_walk_release(&w);
	img_close(&view);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

static void component_alone(const struct comp *c, const struct synth *p, const struct art_image *ci)
{
	const char *fam = p->lay->family;
	const bool v5 = p->lay->string.value == ART_ABSENT;
	const struct art_image *one[1] = { ci };
	struct image view;
	struct mirror m = { &view, p->lay, 8 };
	struct mirror_walk w;
	struct err e;
	uint32_t want[6] = { p->jlc, p->jls, p->foo, p->aint, p->jldc, p->achar };
	size_t nwant = v5 ? 6 : 5;

	err_init(&e);
	T_EQ_I(view_of(&view, one, 1, &e), 0);
	T_CHECK(mirror_walk_image(&w, &m, ci, &e) == 0, "family %s: component alone: %s", fam, e.msg);
	T_EQ_U(w.end, ci->h.objects_end);
	T_CHECK(!w.class_roots_loaded, "family %s: class roots of an image not loaded", fam);
	T_EQ_U(w.jlc, p->jlc); /* learned from the Baz instance's class */
	T_EQ_U(w.outside, c->primary_class_objects);
	T_EQ_U(w.count[MW_INSTANCE], 1);
	T_EQ_U(w.count[MW_CLASS], 1); /* the class after java.lang.Class was learned */
	T_EQ_U(w.count[MW_UNRESOLVED], c->primary_class_objects - 1);
	T_EQ_U(w.objects, c->primary_class_objects + 1);
	T_EQ_U(w.bitmap_checked, w.objects);
	qsort(want, nwant, sizeof(want[0]), cmp_u32);
	T_EQ_U(w.unresolved_count, nwant);
	T_CHECK(w.unresolved_count == nwant && !memcmp(w.unresolved, want, nwant * sizeof(want[0])),
		"family %s: the distinct unresolved classes, sorted", fam);
	/* the name_ String of this class is in the primary: not loaded, not an error */
	expect_name(&m, fam, c->named_elsewhere, MW_NAME_NONE, "");
	expect_name(&m, fam, c->baz, MW_NAME_FIELD, "com.example.Baz");
	mirror_walk_release(&w);
	img_close(&view);
	/* an image that is not in the walk's address space */
	img_init_empty(&view, "empty");
	T_EQ_I(mirror_walk_image(&w, &m, ci, &e), -ERR_UNMAPPED);
	T_CHECK(strstr(e.msg, "0x") != NULL, "message: %s", e.msg);
	mirror_walk_release(&w);
	img_close(&view);
}

/* Loads file (len bytes), walks it alone; returns the walk's result, e set. */
static int walk_file(const uint8_t *file, size_t len, const struct art_layout *l, struct err *e)
{
	struct art_image img;
	struct image view;
	struct mirror m = { &view, l, 8 };
	struct mirror_walk w;
	const struct art_image *one[1] = { &img };
	int rc = art_image_load(&img, file, len, e);

	if (rc)
		return rc;
	rc = view_of(&view, one, 1, e);
	if (rc == 0) {
		rc = mirror_walk_image(&w, &m, &img, e);
		mirror_walk_release(&w);
	}
	img_close(&view);
	art_image_release(&img);
	return rc;
}

static void set32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* Hostile objects in the primary image of every family. */
static void hostile(const struct synth *p, const uint8_t *file, size_t len)
{
	const struct art_layout *l = p->lay;
	const bool v5 = l->string.value == ART_ABSENT;
	uint8_t *bad = malloc(len);
	struct err e;
	int rc;

	if (!bad)
		return;
#define OFF(addr) ((addr) - SYN_BEGIN)
#define MUTATE(what, stmt)                                                                      \
	do {                                                                                    \
		memcpy(bad, file, len);                                                         \
		stmt;                                                                           \
		err_init(&e);                                                                   \
		rc = walk_file(bad, len, l, &e);                                                \
		T_CHECK(rc < 0 && strstr(e.msg, "0x") != NULL, "family %s %s: rc %d \"%s\"", l->family, \
			what, rc, e.msg);                                                       \
	} while (0)
	MUTATE("class pointer null", set32(bad + OFF(p->foo_obj), 0));
	MUTATE("class pointer misaligned", set32(bad + OFF(p->foo_obj), p->foo + 4));
	MUTATE("class pointer to a String", set32(bad + OFF(p->foo_obj), p->str_ascii));
	MUTATE("java.lang.Class not its own class", set32(bad + OFF(p->jlc), p->jlo));
	MUTATE("class_size below a Class", set32(bad + OFF(p->foo + l->klass.class_size), 8));
	MUTATE("object_size below a header", set32(bad + OFF(p->foo + l->klass.object_size), 4));
	MUTATE("object_size past the next object", set32(bad + OFF(p->foo + l->klass.object_size), 24));
	MUTATE("class roots length negative", set32(bad + OFF(p->class_roots + l->array.length), 0x80000000u));
	MUTATE("class roots too short", set32(bad + OFF(p->class_roots + l->array.length), 2));
	MUTATE("image roots too short", set32(bad + OFF(p->roots + l->array.length), 1));
	MUTATE("int[] length past the section", set32(bad + OFF(p->ints + l->array.length), 0x7fffffffu));
	MUTATE("int[] length negative", set32(bad + OFF(p->ints + l->array.length), 0xffffffffu));
	MUTATE("string count negative", set32(bad + OFF(p->str_ascii + l->string.count), 0xfffffff1u));
	MUTATE("component of a primitive type void", set32(bad + OFF(p->cint + l->klass.primitive_type), 9));
	if (!v5) /* 5.x: a String's size does not depend on count_ (the chars are in the char[]) */
		MUTATE("string count past the section", set32(bad + OFF(p->str_ascii + l->string.count), 0x7ffffff0u));
	/* a class pointer to where nothing is loaded is no error: sized by the bitmap, counted */
	memcpy(bad, file, len);
	set32(bad + OFF(p->foo_obj), SYN_BEGIN + 0x80000);
	err_init(&e);
	T_CHECK(walk_file(bad, len, l, &e) == 0, "family %s: class pointer past the image: %s", l->family, e.msg);
#undef MUTATE
#undef OFF
	free(bad);
}

static void family(const struct art_image_format *f)
{
	static struct synth p;
	static struct comp c;
	struct art_image pi, ci;
	struct err e;
	size_t plen = 0, clen = 0;
	uint8_t *pfile = syn_build(&p, f, false, &plen), *cfile = pfile ? build_component(&c, &p, &clen) : NULL;

	if (!pfile || !cfile) {
		free(pfile);
		return;
	}
	printf("-- family %s (image %.3s): component with the primary, alone, hostile\n", p.lay->family, f->versions);
	err_init(&e);
	int prc = art_image_load(&pi, pfile, plen, &e);
	T_CHECK(prc == 0, "family %s: primary: %s", p.lay->family, e.msg);
	int crc = art_image_load(&ci, cfile, clen, &e);
	T_CHECK(crc == 0, "family %s: component: %s", p.lay->family, e.msg);
	if (prc == 0 && crc == 0) {
		both_loaded(&c, &p, &pi, &ci);
		component_alone(&c, &p, &ci);
		hostile(&p, pfile, plen);
	}
	if (prc == 0)
		art_image_release(&pi);
	if (crc == 0)
		art_image_release(&ci);
	free(pfile);
	free(cfile);
}

int main(void)
{
	T_CHECK(strcmp(mw_kind_name(MW_UNRESOLVED), "sized-by-bitmap") == 0 && strcmp(mw_kind_name(MW_KIND_COUNT), "?") == 0,
		"kind names");
	/* one image format per layout family (the first listed) */
	for (size_t i = 0; i < art_image_format_count; i++) {
		const struct art_image_format *f = &art_image_formats[i];
		bool first = true;
		for (size_t j = 0; j < i; j++)
			first &= strcmp(art_image_formats[j].family, f->family) != 0;
		if (first && art_layout_by_family(f->family))
			family(f);
	}
	T_DONE();
}
