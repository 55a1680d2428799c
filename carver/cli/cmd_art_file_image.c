/* cmd_art_file_image.c - see cmd_art_file_image.h.
 *
 * The image is walked together with the other images of its folder (same version and
 * pointer size) so that class pointers into a primary boot image resolve; its classes are
 * named through the DEX files of the OAT/ODEX (+VDEX) files of that folder. */
#include "carver/cli/cmd_art_file_image.h"

#include <stdio.h>
#include <string.h>

#include "carver/base/wbuf.h"

#define AFI_FIELD(f, hx)                                                        \
	do {                                                                    \
		if (h->fmt->off.f != ART_IMAGE_ABSENT && n < AFI_MAX_FIELDS)    \
			out[n++] = (struct afi_field){ #f, (int64_t)h->f, hx }; \
	} while (0)

size_t afi_header_fields(const struct art_image_header *h, struct afi_field out[AFI_MAX_FIELDS])
{
	size_t n = 0;

	AFI_FIELD(image_reservation_size, true);
	AFI_FIELD(component_count, false);
	AFI_FIELD(image_begin, true);
	AFI_FIELD(image_size, false);
	AFI_FIELD(image_checksum, true);
	AFI_FIELD(image_bitmap_offset, true);
	AFI_FIELD(image_bitmap_size, false);
	AFI_FIELD(oat_checksum, true);
	AFI_FIELD(oat_file_begin, true);
	AFI_FIELD(oat_data_begin, true);
	AFI_FIELD(oat_data_end, true);
	AFI_FIELD(oat_file_end, true);
	AFI_FIELD(boot_image_begin, true);
	AFI_FIELD(boot_image_size, false);
	AFI_FIELD(boot_oat_begin, true);
	AFI_FIELD(boot_oat_size, false);
	AFI_FIELD(boot_image_component_count, false);
	AFI_FIELD(boot_image_checksum, true);
	AFI_FIELD(patch_delta, false);
	AFI_FIELD(image_roots, true);
	AFI_FIELD(pointer_size, false);
	AFI_FIELD(compile_pic, false);
	AFI_FIELD(is_pic, false);
	AFI_FIELD(storage_mode, false);
	AFI_FIELD(data_size, false);
	AFI_FIELD(blocks_offset, true);
	AFI_FIELD(blocks_count, false);
	return n;
}

/* A name_ string and the DEX must agree on the class name. */
static int cross_check(struct afi_report *r, uint32_t k, const struct wbuf *name, struct err *e)
{
	struct afi_naming *nm = &r->naming;
	struct wbuf dname;
	int rc;

	wbuf_init(&dname);
	rc = mw_class_name_dex(&r->set.m, k, art_image_set_lookup, &r->set, &dname, e);
	if (rc > 0 && (rc = wbuf_status(&dname, e)) == 0) {
		nm->checked++;
		if ((dname.len != name->len || memcmp(dname.data, name->data, name->len)) && !nm->mismatched++)
			snprintf(nm->first_mismatch, sizeof(nm->first_mismatch), "class 0x%x: name_ %.*s, dex %.*s", k,
				 (int)(name->len > 80 ? 80 : name->len), (const char *)name->data,
				 (int)(dname.len > 80 ? 80 : dname.len), (const char *)dname.data);
	}
	wbuf_release(&dname);
	return rc < 0 ? rc : 0;
}

static int name_classes(struct afi_report *r, struct err *e)
{
	struct afi_naming *nm = &r->naming;
	const struct mirror_walk *w = &r->walk;
	struct wbuf name;
	int rc = 0;

	art_image_set_bind(&r->set, w->dex_caches, w->dex_cache_count);
	nm->own_dex = w->dex_cache_count;
	for (size_t i = 0; i < w->dex_cache_count; i++) {
		if ((rc = art_image_set_has_dex(&r->set, w->dex_caches[i], e)) < 0)
			return rc;
		nm->own_dex_found += rc == 1;
	}
	nm->total = w->class_count;
	wbuf_init(&name);
	for (size_t i = 0; i < w->class_count && rc >= 0; i++) {
		if ((rc = art_image_set_class_has_dex(&r->set, w->classes[i], e)) < 0)
			break;
		bool backed = rc == 1;
		wbuf_reset(&name);
		rc = mw_class_name(&r->set.m, w->classes[i], art_image_set_lookup, &r->set, &name, e);
		nm->dex_backed += backed;
		if (rc > 0) {
			nm->named++;
			nm->by_source[rc]++;
			nm->dex_backed_named += backed;
		}
		if (rc == MW_NAME_FIELD && wbuf_status(&name, e) == 0)
			rc = cross_check(r, w->classes[i], &name, e);
	}
	if (rc >= 0)
		rc = wbuf_status(&name, e);
	wbuf_release(&name);
	return rc < 0 ? rc : 0;
}

int afi_analyze(struct afi_report *r, const char *path, struct err *e)
{
	int rc;

	memset(r, 0, sizeof(*r));
	if ((rc = art_image_set_open(&r->set, path, e)))
		return rc;
	r->lay = art_layout_by_image_version(r->set.images[0].img.h.version);
	if (!r->lay)
		return 0; /* header only */
	if ((rc = art_image_set_add_folder(&r->set, e)))
		return rc;
	art_image_set_layout(&r->set, r->lay);
	if ((rc = mirror_walk_image(&r->walk, &r->set.m, &r->set.images[0].img, e)))
		return err_prefix(e, "object walk");
	return name_classes(r, e);
}

void afi_release(struct afi_report *r)
{
	mirror_walk_release(&r->walk);
	art_image_set_release(&r->set);
	memset(r, 0, sizeof(*r));
}
