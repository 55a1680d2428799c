/* runtime.c - the runtime model: its construction (runtime_open: spaces, files, layout, classes,
 * DEX caches, names, fields, in that order) and the walk over the object chunks the
 * scans share (see runtime.h; the parts are in runtime_*.c). */
#include "art/runtime/runtime.h"

#include <stdarg.h>
#include <string.h>

#include "art/runtime/runtime_int.h"
#include "carver/base/xalloc.h"

int rt_nomem(struct err *e)
{
	return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory building the runtime model");
}

const char *rt_strdup(struct art_runtime *rt, const char *s, size_t n)
{
	return arena_strndup(&rt->arena, s, n);
}

const char *rt_printf(struct art_runtime *rt, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return rt_strdup(rt, buf, strlen(buf));
}

const char *runtime_families(void)
{
	static char list[256];
	size_t n = 0;
	for (size_t i = 0; i < art_layout_count && n + 8 < sizeof(list); i++)
		n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s", i ? ", " : "", art_layouts[i].family);
	return list;
}

/* ---- object chunks: the captured bytes of the spaces that hold objects ---- */

/* The space holding va, for anomaly records: ART's name, else its kind (found by content),
 * else the captured region's name. */
const char *rt_space_name(const struct art_runtime *rt, uint64_t va)
{
	const struct art_space *s = spaces_at(&rt->spaces, va);
	const struct img_region *r;
	if (s)
		return *s->name ? s->name : spaces_kind_name(s->kind);
	r = img_find(rt->img, va);
	return r ? r->name : NULL;
}

static bool object_space_kind(enum space_kind k)
{
	return spaces_holds_objects(k) && k != SPACE_LOS_MAP;
}

static bool any_object_space(const struct art_runtime *rt)
{
	for (size_t i = 0; i < rt->spaces.count; i++)
		if (object_space_kind(rt->spaces.v[i].kind))
			return true;
	return false;
}

/* Calls fn for the captured bytes of every object space; without any known space, for
 * every captured region below 4 GiB (heap references are 32-bit). */
int rt_each_chunk(struct art_runtime *rt, bool images_only, rt_chunk_fn fn, void *ctx, struct err *e)
{
	const struct image *img = rt->img;
	bool spaces = any_object_space(rt);
	for (size_t i = 0; i < img->region_count; i++) {
		const struct img_region *r = &img->regions[i];
		if (!r->data || r->data_len < 8 || r->start >> RT_LOW4G_SHIFT)
			continue;
		uint64_t lo = r->start, hi = r->start + r->data_len;
		if (spaces) {
			const struct art_space *s = spaces_at(&rt->spaces, r->start);
			if (!s || (images_only && s->kind != SPACE_IMAGE))
				continue;
			uint64_t end = s->objects_end ? s->objects_end : s->end;
			if (end < hi)
				hi = end;
		}
		lo = (lo + 7) & ~(uint64_t)7;
		/* in pieces, each released once scanned: the scan needs every page once, not all at
		 * once.  Only the data runs (widened to whole words): a word in a hole of the input
		 * is zero and matches nothing the callers look for, but a self-reference at address
		 * 0, so a region there is scanned whole.  Each step moves past one piece. */
		for (uint64_t at = lo; at < hi;) {
			uint64_t dlo = at, dhi = hi;
			if (r->start != 0) {
				if (!img_next_data(img, at, hi, &dlo, &dhi))
					break;
				dlo &= ~(uint64_t)7;
				dhi = (dhi + 7) & ~(uint64_t)7;   /* below 4 GiB: no wrap */
				if (dlo < at)
					dlo = at;
				if (dhi > hi)
					dhi = hi;
			}
			uint64_t n = dhi - dlo < IMG_DROP_STEP ? dhi - dlo : IMG_DROP_STEP;
			int rc = fn(rt, dlo, r->data + (dlo - r->start), (size_t)n, ctx, e);
			img_drop(img, dlo, dlo + n);
			if (rc)
				return rc;
			at = dlo + n;
		}
	}
	return 0;
}

int runtime_open(struct art_runtime *rt, const struct image *img, const struct runtime_opts *o, struct err *e)
{
	int rc;

	memset(rt, 0, sizeof(*rt));
	rt->img = img;
	arena_init(&rt->arena);
	anomaly_init(&rt->anomalies, o ? o->anomaly_keep : 0);
	if (img->cut_regions)
		anomaly_add(&rt->anomalies, ANOM_CAPTURE, ERR_TRUNC, img->cut_first_va, "",
			    "%s is cut short: %zu regions from 0x%llx lack %llu bytes its headers list (read as "
			    "not captured); the first: %s", img->path, img->cut_regions,
			    (unsigned long long)img->cut_first_va, (unsigned long long)img->cut_bytes, img->cut_first);
	rc = spaces_find(&rt->spaces, img, 0, o ? o->probes : NULL, e);
	if (rc == 0)
		rc = rt_find_images(rt, e);
	if (rc == 0)
		rc = rt_find_files(rt, e);
	if (rc == 0 && o && o->art_version)
		rc = rt_layout_from_option(rt, o->art_version, e);
	if (rc == 0 && !rt->layout)
		rc = rt_layout_from_images(rt, e);
	if (rc == 0 && !rt->layout)
		rc = rt_layout_from_oat(rt, e);
	if (rc == 0)
		rc = rt_find_jlc(rt, e);
	if (rc == 0) {
		rt->m = (struct mirror){ img, rt->layout, 8 };
		rc = rt_find_classes(rt, e);
	}
	if (rc == 0)
		rc = rt_link_classes(rt, e);
	if (rc == 0) {
		rt_choose_pointer_size(rt);
		rt->m.pointer_size = rt->pointer_size;
		if (!rt->pointer_how)
			rc = rt_nomem(e);
	}
	if (rc == 0)
		rc = rt_resolve_dex_caches(rt, e);
	if (rc == 0)
		rc = rt_name_classes(rt, e);
	if (rc == 0)
		rc = rt_decode_fields(rt, e);
	if (rc == 0)
		rc = rt_settle_field_link_row(rt, e);
	if (rc == 0)
		rc = rt_settle_class_loader_row(rt, e);
	if (rc == 0)
		rc = rt_classify_origins(rt, e);
	if (rc == 0)
		rc = anomaly_status(&rt->anomalies, e);
	if (rc)
		runtime_close(rt);
	return rc;
}

void runtime_close(struct art_runtime *rt)
{
	spaces_release(&rt->spaces);
	xfree(rt->images);
	xfree(rt->dexes);
	xfree(rt->files);
	xfree(rt->classes);
	htab_release(&rt->class_hash);
	arena_release(&rt->arena);
	anomaly_release(&rt->anomalies);
	memset(rt, 0, sizeof(*rt));
}
