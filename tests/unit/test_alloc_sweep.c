/* test_alloc_sweep.c - allocation failure in every parser (libyal's
 * *_test_malloc_attempts_before_fail, driven by the carver/base/xalloc hook).
 * For each parse below, a clean run counts the allocations it makes (xalloc_calls); then for
 * k = 1 .. that count the k-th allocation fails, and the run must return -ERR_NOMEM with an
 * ERR_NOMEM error: no crash, no success claimed on partial data, no other error code.  Under
 * ASan (build/asan/tests/test_alloc_sweep) LeakSanitizer also checks that every failed run
 * released what it had allocated.  Inputs are generated here (tests/tools/dexgen.h,
 * heapgen.h, img_coregen.h, tests/unit/art_image_synth.h), nothing is read from a corpus.
 * Parses: HPROF reader, HPROF conversion, BMD reader, DEX, VDEX, OAT, ART image (load and
 * object walk), ELF core (img_open, with and without a maps listing), an image built in
 * memory, and the runtime model on the heapgen image. */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "art/format/art_image.h"
#include "art/format/art_layout.h"
#include "art/format/dex.h"
#include "art/format/oat.h"
#include "art/format/vdex.h"
#include "art/mirror/mirror_walk.h"
#include "art/runtime/runtime.h"
#include "carver/base/outfile.h"
#include "carver/base/xalloc.h"
#include "carver/image/image.h"
#include "output/bmd/bmd.h"
#include "output/hprof/hprof_writer.h"
#include "output/hprof/hprof_conv.h"
#include "rosalloc/probe/probe.h"
#include "t.h"
#include "tests/tools/heapgen.h"
#include "tests/tools/img_coregen.h"
#include "tests/unit/art_image_synth.h"

typedef int (*parse_fn)(void *ctx, struct err *e);

/* Runs fn once to count its allocations, then once per allocation with that one failing.
 * min_allocs: a parse that should allocate and does not is an error (the sweep would be
 * empty); 0 allows none. */
static void sweep(const char *name, parse_fn fn, void *ctx, unsigned long min_allocs)
{
	struct err e;
	unsigned long before, n, nomem = 0, other = 0;
	int rc;

	err_init(&e);
	before = xalloc_calls();
	rc = fn(ctx, &e);
	n = xalloc_calls() - before;
	T_CHECK(rc == 0, "%s: the clean run fails: rc %d \"%s\"", name, rc, e.msg);
	T_CHECK(n >= min_allocs, "%s: %lu allocations, expected at least %lu", name, n, min_allocs);
	for (unsigned long k = 1; rc == 0 && k <= n; k++) {
		int fired;
		err_init(&e);
		xalloc_fail_after(k);
		rc = fn(ctx, &e);
		fired = xalloc_fail_pending() == 0;
		xalloc_fail_after(0);
		if (fired && rc == -ERR_NOMEM && e.code == ERR_NOMEM) {
			nomem++;
		} else {
			other++;
			T_CHECK(0, "%s: allocation %lu of %lu %s: rc %d (%s) \"%s\"", name, k, n,
				fired ? "failed" : "was never made", rc, rc == 0 ? "success claimed" : err_code_name(e.code),
				e.msg);
		}
		rc = 0;
	}
	printf("   %-44s %5lu allocations; failing each in turn: %lu -ERR_NOMEM, %lu otherwise\n", name, n, nomem,
	       other);
	T_EQ_U(nomem, n);
}

/* ---- HPROF ---------------------------------------------------------------------------- */

struct bytes { const uint8_t *p; size_t len; };

static int hprof_sample(struct wbuf *out)
{
	const struct hprof_class_entry statics[] = { { 0x31, HPROF_T_INT, 7, 0 } };
	const struct hprof_class_entry fields[] = { { 0x32, HPROF_T_OBJECT, 0, 0 }, { 0x33, HPROF_T_LONG, 0, 0 } };
	struct hprof_class_dump cd = { .class_id = 0x100, .super_id = 0, .instance_size = 12, .static_count = 1,
				       .field_count = 2 };
	const struct hprof_load_class lc = { 1, 0x100, 0, 0x30 };
	const struct hprof_heap_info hi = { HPROF_HEAP_APP, 0x34 };
	const struct hprof_root root = { HPROF_ROOT_JNI_GLOBAL, 0x200, 0x9, 0, 0 };
	const uint8_t vals[12] = { 0, 0, 2, 1, 0, 0, 0, 0, 0, 0, 0, 5 };
	const uint64_t elems[2] = { 0x200, 0x201 };
	struct hprof_writer w;
	struct err e;
	int rc;

	err_init(&e);
	rc = hprof_writer_init(&w, NULL, 4, &e);
	if (!rc) rc = hprof_write_header(&w, "1.0.3", 0, &e);
	if (!rc) rc = hprof_write_string(&w, 0x30, "com.example.Foo", 15, &e);
	if (!rc) rc = hprof_write_string(&w, 0x31, "count", 5, &e);
	if (!rc) rc = hprof_write_string(&w, 0x32, "next", 4, &e);
	if (!rc) rc = hprof_write_string(&w, 0x33, "stamp", 5, &e);
	if (!rc) rc = hprof_write_string(&w, 0x34, "app", 3, &e);
	if (!rc) rc = hprof_write_load_class(&w, &lc, &e);
	if (!rc) rc = hprof_put_heap_info(&w, &hi, &e);
	if (!rc) rc = hprof_put_root(&w, &root, &e);
	if (!rc) rc = hprof_put_class_dump(&w, &cd, NULL, statics, fields, &e);
	for (uint32_t i = 0; !rc && i < 40; i++)
		rc = hprof_put_instance(&w, 0x200 + i, 0, 0x100, vals, sizeof(vals), &e);
	if (!rc) rc = hprof_put_obj_array(&w, 0x300, 0, 0x100, elems, 2, &e);
	if (!rc) rc = hprof_put_prim_array(&w, 0x301, 0, HPROF_T_INT, 3, "\0\0\0\1\0\0\0\2\0\0\0\3", false, &e);
	if (!rc) rc = hprof_put_prim_array(&w, 0x302, 0, HPROF_T_BYTE, 9, NULL, true, &e);
	if (!rc) rc = hprof_write_heap_dump_end(&w, &e);
	if (!rc) {
		wbuf_put(out, w.buf.data, w.buf.len);
		rc = wbuf_status(out, &e);
	}
	hprof_writer_release(&w);
	return rc;
}

/* Every record, every sub-record, every decoder. */
static int parse_hprof(void *ctx, struct err *e)
{
	const struct bytes *in = ctx;
	struct hprof_reader r;
	struct hprof_record rec;
	int rc = hprof_reader_init(&r, in->p, in->len, "sample", e);

	while (rc == 0 && (rc = hprof_next(&r, &rec, e)) == 1) {
		struct hprof_sub sub;
		rc = 0;
		if (rec.tag == HPROF_STRING) {
			struct hprof_string s;
			rc = hprof_string_parse(&rec, r.id_size, &s, e);
		} else if (rec.tag == HPROF_LOAD_CLASS) {
			struct hprof_load_class lc;
			rc = hprof_load_class_parse(&rec, r.id_size, &lc, e);
		}
		if (rec.tag != HPROF_HEAP_DUMP_SEGMENT)
			continue;
		while (rc == 0 && (rc = hprof_next_sub(&rec.body, r.id_size, &sub, e)) == 1) {
			union { struct hprof_root r; struct hprof_heap_info hi; struct hprof_class_dump cd;
				struct hprof_instance in; struct hprof_obj_array oa; struct hprof_prim_array pa; } u;
			struct hprof_class_entry ce;
			if (hprof_sub_is_root(sub.tag))
				rc = hprof_root_parse(&sub, r.id_size, &u.r, e);
			else if (sub.tag == HPROF_HEAP_DUMP_INFO)
				rc = hprof_heap_info_parse(&sub, r.id_size, &u.hi, e);
			else if (sub.tag == HPROF_CLASS_DUMP) {
				rc = hprof_class_dump_parse(&sub, r.id_size, &u.cd, e);
				while (rc == 0 && (rc = hprof_class_next_static(&u.cd, &ce, e)) == 1)
					rc = 0;
				while (rc == 0 && (rc = hprof_class_next_field(&u.cd, &ce, e)) == 1)
					rc = 0;
			} else if (sub.tag == HPROF_INSTANCE_DUMP)
				rc = hprof_instance_parse(&sub, r.id_size, &u.in, e);
			else if (sub.tag == HPROF_OBJ_ARRAY_DUMP)
				rc = hprof_obj_array_parse(&sub, r.id_size, &u.oa, e);
			else
				rc = hprof_prim_array_parse(&sub, r.id_size, &u.pa, e);
		}
	}
	return rc < 0 ? rc : 0;
}

struct conv_ctx { struct bytes in; char path[256]; };

static int parse_hprof_conv(void *ctx, struct err *e)
{
	struct conv_ctx *c = ctx;
	struct hprof_conv_opts o = { .app_only = true };
	struct hprof_conv_stats st;
	struct outf out;
	int rc;

	outf_init(&out);
	rc = outf_open(&out, c->path, e);
	if (rc == 0)
		rc = hprof_conv(c->in.p, c->in.len, "sample", &out, &o, &st, e);
	if (rc == 0 && st.subs_in == 0)
		rc = ERR_SET(e, ERR_INTERNAL, ERR_NO_VA, "no sub-record converted");
	outf_abort(&out);
	return rc;
}

/* ---- BMD ------------------------------------------------------------------------------ */

static void bmd_sample(struct wbuf *b)
{
	struct bmd_field f[2] = { { 1, BMD_T_OBJECT }, { 2, BMD_T_INT } };
	struct bmd_class_def obj = { .id = 1, .name_id = 1 };
	struct bmd_class_def sub = { .id = 2, .super_id = 1, .name_id = 2, .field_count = 2, .fields = f };

	bmd_put_header(b, 1, "JAVA PROFILE 1.0.3", 18);
	bmd_put_string(b, 1, "java.lang.Object", 16);
	bmd_put_hashed_string(b, 2, 9, -12345);
	bmd_put_class_def(b, &obj);
	for (uint32_t i = 0; i < 300; i++) {      /* enough definitions to grow the tables */
		sub.id = 2 + i;
		bmd_put_class_def(b, &sub);
	}
	for (uint32_t i = 0; i < 50; i++) {       /* class 2 + 5i: its own two fields, Object none */
		bmd_put_int32(b, BMD_INSTANCE_DUMP);
		bmd_put_int32(b, (int32_t)(1000 + i));
		bmd_put_int32(b, (int32_t)(2 + i * 5));
		bmd_put_value(b, BMD_T_OBJECT, 3);
		bmd_put_value(b, BMD_T_INT, i);
	}
	bmd_put_prim_array(b, 11, BMD_T_LONG, 3);
}

static int parse_bmd(void *ctx, struct err *e)
{
	const struct bytes *in = ctx;
	struct bmd_reader r;
	struct bmd_record rec;
	int rc = bmd_reader_init(&r, in->p, in->len, "sample", e);

	while (rc == 0 && (rc = bmd_next(&r, &rec, e)) == 1) {
		const struct bmd_class_def *chain[BMD_CHAIN_MAX];
		size_t n;
		rc = 0;
		if (rec.tag == BMD_INSTANCE_DUMP)
			rc = bmd_reader_chain(&r, rec.def, chain, BMD_CHAIN_MAX, &n, e);
	}
	bmd_reader_release(&r);
	return rc < 0 ? rc : 0;
}

/* ---- DEX, VDEX, OAT ------------------------------------------------------------------- */

/* Reads every item of a DEX the way `art-file` does; the first error is returned. */
static int dex_walk(const struct dex *d, struct err *e)
{
	struct wbuf sig;
	uint32_t ck;
	int rc;

	wbuf_init(&sig);
	rc = dex_verify_checksum(d, &ck, e);
	if (!rc) rc = dex_map_validate(d, e);
	for (uint32_t i = 0; !rc && i < d->string_ids_size; i++) {
		const uint8_t *s;
		size_t len;
		rc = dex_string(d, i, &s, &len, e);
	}
	for (uint32_t i = 0; !rc && i < d->proto_ids_size; i++) {
		wbuf_reset(&sig);
		rc = dex_proto_signature(d, i, &sig, e);
	}
	for (uint32_t i = 0; !rc && i < d->class_defs_size; i++) {
		struct dex_class_def def;
		struct dex_class_data it;
		struct dex_member m;
		rc = dex_class_def(d, i, &def, e);
		if (!rc) rc = dex_class_data_open(d, &def, &it, e);
		while (!rc && (rc = dex_class_data_next(&it, &m, e)) == 1) {
			struct dex_code_item ci;
			rc = 0;
			if (m.kind >= DEX_DIRECT_METHOD && m.code_off)
				rc = dex_code_item(d, m.code_off, m.idx, &ci, e);
		}
	}
	wbuf_release(&sig);
	return rc < 0 ? rc : 0;
}

static int parse_dex(void *ctx, struct err *e)
{
	const struct bytes *in = ctx;
	struct cursor c;
	struct dex d;
	int rc;

	cur_init(&c, in->p, in->len, 0);
	rc = dex_load(&d, &c, e);
	return rc ? rc : dex_walk(&d, e);
}

static int parse_vdex(void *ctx, struct err *e)
{
	const struct bytes *in = ctx;
	struct cursor c, dc;
	struct vdex v;
	struct dex d;
	int rc;

	cur_init(&c, in->p, in->len, 0);
	rc = vdex_parse(&v, &c, e);
	for (uint32_t i = 0; !rc && i < v.dex_count; i++) {
		rc = vdex_dex(&v, i, &dc, e);
		if (!rc) rc = dex_load(&d, &dc, e);
		if (!rc) rc = dex_walk(&d, e);
	}
	return rc;
}

static int parse_oat(void *ctx, struct err *e)
{
	const struct bytes *in = ctx;
	struct oat o;
	size_t pos = 0, kl, vl;
	const char *k, *v;
	int rc = oat_open(&o, in->p, in->len, "sample.oat", NULL, e);

	while (!rc && oat_kv_next(&o, &pos, &k, &kl, &v, &vl))
		;
	for (size_t i = 0; !rc && i < o.dex_file_count; i++) {
		struct dex d;
		uint32_t off;
		for (uint32_t c = 0; !rc && c < o.dex_files[i].class_count; c++)
			rc = oat_class_offset(&o, i, c, &off, e);
		if (!rc) rc = dex_load(&d, &o.dex_files[i].dex, e);
		if (!rc) rc = dex_walk(&d, e);
	}
	oat_close(&o);
	return rc;
}

/* ---- ART image ------------------------------------------------------------------------ */

static int parse_art_image(void *ctx, struct err *e)
{
	const struct bytes *in = ctx;
	struct art_image img;
	struct mirror_walk w;
	const struct art_layout *lay;
	int rc = art_image_load(&img, in->p, in->len, e);

	if (rc)
		return rc;
	lay = art_layout_by_image_version(img.h.version);
	if (!lay) {
		art_image_release(&img);
		return ERR_SET(e, ERR_INTERNAL, ERR_NO_VA, "no layout for image version %u", img.h.version);
	}
	{
		struct image view;
		struct mirror m = { &view, lay, img.h.pointer_size == 8 ? 8 : 4 };
		img_init_empty(&view, "sweep");
		rc = img_add_region_mem(&view, img.h.image_begin, img.data, img.len, IMG_PROT_R, "image", e);
		if (rc == 0) {
			rc = mirror_walk_image(&w, &m, &img, e);
			for (size_t i = 0; !rc && i < w.class_count; i++) {
				struct wbuf b;
				/* > 0 named, 0 no name without a DEX lookup (a class named only by its DEX) */
				wbuf_init(&b);
				int src = mw_class_name(&m, w.classes[i], NULL, NULL, &b, e);
				rc = src < 0 ? src : wbuf_status(&b, e);
				wbuf_release(&b);
			}
			mirror_walk_release(&w);
		}
		img_close(&view);
	}
	art_image_release(&img);
	return rc;
}

/* ---- images --------------------------------------------------------------------------- */

struct core_ctx { char core[256], maps[256]; bool with_maps; };

static int parse_core(void *ctx, struct err *e)
{
	const struct core_ctx *c = ctx;
	struct img_open_opts o = { c->with_maps ? c->maps : NULL };
	struct image img;
	int rc = img_open(&img, c->core, &o, e);

	if (rc == 0 && img.region_count == 0)
		rc = ERR_SET(e, ERR_INTERNAL, ERR_NO_VA, "no region loaded");
	img_close(&img);
	return rc;
}

static int parse_mem_image(void *ctx, struct err *e)
{
	const struct hg *h = ctx;
	struct image img;
	int rc;

	img_init_empty(&img, "heapgen");
	rc = img_add_region_mem(&img, HG_HEAP, h->heap, sizeof(h->heap), IMG_PROT_R | IMG_PROT_W, HG_HEAP_NAME, e);
	if (!rc)
		rc = img_add_region_mem(&img, HG_DEX, h->dex.data, h->dex.len, IMG_PROT_R, HG_DEX_NAME, e);
	if (!rc)
		rc = img_add_region_mem(&img, HG_LINEAR, h->linear, sizeof(h->linear), IMG_PROT_R | IMG_PROT_W,
					"[anon:dalvik-LinearAlloc]", e);
	img_close(&img);
	return rc;
}

struct rt_ctx { const struct image *img; size_t want_classes; };

static int parse_runtime(void *ctx, struct err *e)
{
	const struct rt_ctx *c = ctx;
	struct art_runtime rt;
	struct runtime_opts o = { .probes = &probe_spaces };
	int rc = runtime_open(&rt, c->img, &o, e);

	if (rc)
		return rc;
	/* a model with fewer classes, or a class left unnamed, would be a partial result */
	if (rt.class_count != c->want_classes)
		rc = ERR_SET(e, ERR_INTERNAL, ERR_NO_VA, "%zu classes, expected %zu", rt.class_count, c->want_classes);
	for (size_t i = 0; !rc && i < rt.class_count; i++)
		if (!rt.classes[i].name)
			rc = ERR_SET(e, ERR_INTERNAL, rt.classes[i].addr, "class at 0x%llx unnamed",
				     (unsigned long long)rt.classes[i].addr);
	runtime_close(&rt);
	return rc;
}

/* ---- the sweeps ----------------------------------------------------------------------- */

static void sweep_formats(void)
{
	struct dg_spec sp = { dg_sample_classes, sizeof(dg_sample_classes) / sizeof(dg_sample_classes[0]), 35, false };
	struct wbuf dex, vdex, oat;
	const uint8_t *dexp[1];
	size_t dexl[1];

	T_SECTION("DEX, VDEX, OAT built by tests/tools/dexgen.h");
	wbuf_init(&dex);
	wbuf_init(&vdex);
	wbuf_init(&oat);
	T_EQ_I(dg_build(&dex, &sp), 0);
	dexp[0] = dex.data;
	dexl[0] = dex.len;
	{
		struct bytes b = { dex.data, dex.len };
		sweep("DEX 035 (parse, every item)", parse_dex, &b, 1);
	}
	T_EQ_I(dg_vdex(&vdex, 21, dexp, dexl, 1, true), 0);
	{
		struct bytes b = { vdex.data, vdex.len };
		sweep("VDEX 021 with its DEX", parse_vdex, &b, 1);
	}
	{
		static const char kv[] = "compiler-filter\0speed\0";
		uint32_t voff[1] = { 0 };
		struct dg_oat_spec os = { 79, 4, 32, dexp, dexl, 1, voff, kv, sizeof(kv) - 1 };
		struct bytes b;
		T_EQ_I(dg_oat_elf(&oat, &os), 0);
		b = (struct bytes){ oat.data, oat.len };
		sweep("OAT 079 (ELF, records, DEX inside)", parse_oat, &b, 1);
	}
	wbuf_release(&dex);
	wbuf_release(&vdex);
	wbuf_release(&oat);
}

static void sweep_art_images(void)
{
	static struct synth s;
	static const char *const versions[] = { "017", "029", "056", "085" };

	T_SECTION("ART images built by tests/unit/art_image_synth.h");
	for (size_t i = 0; i < sizeof(versions) / sizeof(versions[0]); i++) {
		for (int z = 0; z < 2; z++) {
			const struct art_image_format *f = art_image_format_by_version((unsigned)atoi(versions[i]));
			char name[64];
			size_t len = 0;
			uint8_t *file;
			if (!f) {
				T_CHECK(0, "no image format row for %s", versions[i]);
				continue;
			}
			if (z && f->off.storage_mode == ART_IMAGE_ABSENT && f->off.blocks_count == ART_IMAGE_ABSENT)
				continue;
			file = syn_build(&s, f, z, &len);
			T_CHECK(file != NULL, "synthetic image %s", versions[i]);
			if (!file)
				continue;
			snprintf(name, sizeof(name), "ART image %s%s (load, walk, names)", versions[i], z ? " lz4" : "");
			struct bytes b = { file, len };
			sweep(name, parse_art_image, &b, 1);
			free(file);
		}
	}
}

static void sweep_images_and_runtime(void)
{
	static struct hg h;
	char dir[] = "/tmp/artcarve-sweep.XXXXXX";
	struct core_ctx cc;
	struct wbuf b;
	struct image img;
	struct err e;
	FILE *fp;

	T_SECTION("ELF core (img_coregen.h), an image in memory, the runtime model (heapgen.h)");
	err_init(&e);
	T_CHECK(mkdtemp(dir) != NULL, "mkdtemp");
	snprintf(cc.core, sizeof(cc.core), "%s/core", dir);
	snprintf(cc.maps, sizeof(cc.maps), "%s/maps", dir);
	wbuf_init(&b);
	T_EQ_I(coregen_build(&b, 4096), 0);
	fp = fopen(cc.core, "wb");
	T_CHECK(fp && fwrite(b.data, 1, b.len, fp) == b.len && fclose(fp) == 0, "write %s", cc.core);
	wbuf_reset(&b);
	coregen_maps(&b, 4096);
	fp = fopen(cc.maps, "wb");
	T_CHECK(fp && fwrite(b.data, 1, b.len, fp) == b.len && fclose(fp) == 0, "write %s", cc.maps);
	wbuf_release(&b);
	cc.with_maps = false;
	sweep("ELF core (img_open)", parse_core, &cc, 1);
	cc.with_maps = true;
	sweep("ELF core with a maps listing (img_open)", parse_core, &cc, 1);
	unlink(cc.core);
	unlink(cc.maps);
	rmdir(dir);

	T_EQ_I(hg_build(&h), 0);
	sweep("image in memory (3 regions)", parse_mem_image, &h, 1);
	if (hg_image(&img, &h, &e) == 0) {
		struct art_runtime rt;
		struct runtime_opts o = { .probes = &probe_spaces };
		struct rt_ctx rc = { &img, 0 };
		T_EQ_I(runtime_open(&rt, &img, &o, &e), 0);
		rc.want_classes = rt.class_count;
		printf("   heapgen image: %zu classes in the clean model\n", rt.class_count);
		runtime_close(&rt);
		sweep("runtime model (heapgen ART 11 heap)", parse_runtime, &rc, 1);
	} else {
		T_CHECK(0, "hg_image: %s", e.msg);
	}
	img_close(&img);
	hg_release(&h);
}

static void sweep_heap_dumps(void)
{
	char dir[] = "/tmp/artcarve-sweep.XXXXXX";
	struct wbuf hprof, bmd;
	struct conv_ctx cc;

	T_SECTION("HPROF (written by hprof_writer) and BMD (bmd_put_*)");
	wbuf_init(&hprof);
	wbuf_init(&bmd);
	T_EQ_I(hprof_sample(&hprof), 0);
	{
		struct bytes b = { hprof.data, hprof.len };
		/* the reader keeps nothing (hprof_reader.h): no allocation at all */
		sweep("HPROF reader (records, sub-records, decoders)", parse_hprof, &b, 0);
		unsigned long before = xalloc_calls();
		struct err e;
		err_init(&e);
		T_EQ_I(parse_hprof(&b, &e), 0);
		T_EQ_U(xalloc_calls() - before, 0);
	}
	T_CHECK(mkdtemp(dir) != NULL, "mkdtemp");
	cc.in = (struct bytes){ hprof.data, hprof.len };
	snprintf(cc.path, sizeof(cc.path), "%s/out.hprof", dir);
	sweep("HPROF 1.0.3 -> 1.0.2 conversion (--app-only)", parse_hprof_conv, &cc, 1);
	rmdir(dir);
	bmd_sample(&bmd);
	{
		struct bytes b = { bmd.data, bmd.len };
		sweep("BMD reader (301 class definitions, chains)", parse_bmd, &b, 1);
	}
	wbuf_release(&hprof);
	wbuf_release(&bmd);
}

int main(void)
{
	sweep_heap_dumps();
	sweep_formats();
	sweep_images_and_runtime();
	sweep_art_images();
	T_DONE();
}
