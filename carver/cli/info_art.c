/* info_art.c - ART sections of `artcarve info` (see info_art.h). */
#include "carver/cli/info_art.h"

#include <string.h>

#include "carver/cli/cli_anomalies.h"
#include "rosalloc/probe/probe.h"

int info_art_open(struct info_art *ia, const struct image *img, const char *art_version, struct err *e)
{
	struct runtime_opts o = { .art_version = art_version, .probes = &probe_spaces };
	int rc;

	memset(ia, 0, sizeof(*ia));
	err_init(&ia->why);
	rc = runtime_open(&ia->rt, img, &o, &ia->why);
	if (rc == 0) {
		ia->have_rt = true;
		return 0;
	}
	if (rc == -ERR_USAGE || rc == -ERR_NOMEM) {
		*e = ia->why;
		return rc;
	}
	return spaces_find(&ia->spaces, img, 0, &probe_spaces, e);
}

void info_art_close(struct info_art *ia)
{
	if (ia->have_rt)
		runtime_close(&ia->rt);
	spaces_release(&ia->spaces);
}

static const struct art_spaces *spaces_of(const struct info_art *ia)
{
	return ia->have_rt ? &ia->rt.spaces : &ia->spaces;
}

int info_art_runtime(const struct info_art *ia, struct rep *r, const char *key, struct err *e)
{
	const struct art_runtime *rt = &ia->rt;
	(void)e;
	if (!ia->have_rt) {
		if (r->json) {
			rep_open(r, key, false);
			rep_s(r, "error", ia->why.msg);
			rep_close(r);
		} else {
			fprintf(r->fp, "ART runtime: not found (%s)\n", ia->why.msg);
		}
		return 0;
	}
	if (r->json) {
		rep_open(r, key, false);
		rep_s(r, "layout", rt->layout->family);
		rep_s(r, "layout_how", rt->layout_how);
		rep_s(r, "image_versions", rt->layout->image->versions);
		rep_u(r, "pointer_size", rt->pointer_size);
		rep_s(r, "pointer_how", rt->pointer_how);
		rep_hex(r, "java_lang_class", rt->java_lang_class);
		rep_close(r);
	} else {
		fprintf(r->fp, "ART runtime: layout family %s (image version %s), found by %s\n", rt->layout->family,
			rt->layout->image->versions, rt->layout_how);
		fprintf(r->fp, "pointer size: %u, found by %s\n", rt->pointer_size, rt->pointer_how);
		fprintf(r->fp, "java.lang.Class: 0x%llx\n", (unsigned long long)rt->java_lang_class);
	}
	return 0;
}

static void space_json(struct rep *r, const struct art_space *sp)
{
	rep_open(r, NULL, false);
	rep_s(r, "kind", spaces_kind_name(sp->kind));
	rep_s(r, "role", spaces_holds_objects(sp->kind) ? "space" : "helper");
	rep_hex(r, "begin", sp->begin);
	rep_hex(r, "end", sp->end);
	rep_hex(r, "limit", sp->limit);
	rep_bool(r, "backup", sp->backup);
	rep_s(r, "how", sp->how);
	rep_s(r, "name", sp->name);
	rep_s(r, "detail", sp->detail);
	if (sp->kind == SPACE_LOS_MAP)
		rep_u(r, "allocations", sp->count);
	rep_close(r);
}

int info_art_spaces(const struct info_art *ia, struct rep *r, const char *key, struct err *e)
{
	const struct art_spaces *s = spaces_of(ia);
	(void)e;
	if (r->json) {
		rep_open_lines(r, key, true);
		for (size_t i = 0; i < s->count; i++)
			space_json(r, &s->v[i]);
		rep_close(r);
		return 0;
	}
	fprintf(r->fp, "spaces and heap mappings: %zu\n", s->count);
	for (size_t i = 0; i < s->count; i++) {
		const struct art_space *sp = &s->v[i];
		fprintf(r->fp, "  %s %s 0x%llx 0x%llx limit=0x%llx how=%s%s name=\"%s\"%s%s\n",
			spaces_holds_objects(sp->kind) ? "space" : "mapping", spaces_kind_name(sp->kind),
			(unsigned long long)sp->begin, (unsigned long long)sp->end, (unsigned long long)sp->limit, sp->how,
			sp->backup ? " backup" : "", sp->name, *sp->detail ? " detail=" : "", sp->detail);
	}
	return 0;
}

int info_art_images(const struct info_art *ia, struct rep *r, const char *key, struct err *e)
{
	const struct art_runtime *rt = &ia->rt;
	size_t n = ia->have_rt ? rt->image_count : 0;
	char version[8];
	(void)e;
	if (r->json)
		rep_open(r, key, true);
	else
		fprintf(r->fp, "boot/app images: %zu\n", n);
	for (size_t i = 0; i < n; i++) {
		const struct rt_image *im = &rt->images[i];
		if (r->json) {
			snprintf(version, sizeof(version), "%03u", im->version);
			rep_open(r, NULL, false);
			rep_hex(r, "begin", im->begin);
			rep_s(r, "version", version);
			rep_u(r, "size", im->size);
			rep_hex(r, "image_roots", im->roots);
			rep_u(r, "pointer_size", im->pointer_size);
			rep_s(r, "name", im->name);
			rep_close(r);
		} else {
			fprintf(r->fp, "  image 0x%llx version %03u size %u roots 0x%x pointer size %u %s\n",
				(unsigned long long)im->begin, im->version, im->size, im->roots, im->pointer_size, im->name);
		}
	}
	if (r->json)
		rep_close(r);
	return 0;
}

int info_art_files(const struct info_art *ia, struct rep *r, const char *key, struct err *e)
{
	const struct art_runtime *rt = &ia->rt;
	size_t nf = ia->have_rt ? rt->file_count : 0, nd = ia->have_rt ? rt->dex_count : 0;
	(void)e;
	if (r->json)
		rep_open(r, key, true);
	else
		fprintf(r->fp, "OAT/VDEX/DEX files: %zu\n", nf + nd);
	for (size_t i = 0; i < nf; i++) {
		const struct rt_file *f = &rt->files[i];
		if (r->json) {
			rep_open(r, NULL, false);
			rep_s(r, "kind", f->kind);
			rep_hex(r, "address", f->addr);
			rep_u(r, "version", f->version);
			rep_s(r, "name", f->name);
			rep_close(r);
		} else {
			fprintf(r->fp, "  %s 0x%llx version %03u %s\n", f->kind, (unsigned long long)f->addr, f->version,
				f->name);
		}
	}
	for (size_t i = 0; i < nd; i++) {
		const struct rt_dex *d = &rt->dexes[i];
		if (r->json) {
			rep_open(r, NULL, false);
			rep_s(r, "kind", d->dex.compact ? "cdex" : "dex");
			rep_hex(r, "address", d->addr);
			rep_u(r, "size", d->size);
			rep_u(r, "version", d->dex.version);
			rep_u(r, "classes_named", d->classes);
			rep_s(r, "location", d->location);
			rep_close(r);
		} else {
			fprintf(r->fp, "  %s 0x%llx size %zu version %03u class_defs %u, names %zu classes, location \"%s\"\n",
				d->dex.compact ? "cdex" : "dex", (unsigned long long)d->addr, d->size, d->dex.version,
				d->dex.class_defs_size, d->classes, d->location);
		}
	}
	if (r->json)
		rep_close(r);
	else if (rt->rejected_dexes)
		fprintf(r->fp, "  (%zu DEX magics in libraries' own bytes with no DEX header after them: not DEX files)\n",
			rt->rejected_dexes);
	return 0;
}

int info_art_classes(const struct info_art *ia, struct rep *r, const char *key, struct err *e)
{
	const struct art_runtime *rt = &ia->rt;
	size_t named = 0, with_fields = 0, checked = 0;
	(void)e;
	if (!ia->have_rt) {
		if (r->json)
			rep_null(r, key);
		else
			fputs("classes: none (no ART runtime)\n", r->fp);
		return 0;
	}
	for (size_t i = 0; i < rt->class_count; i++) {
		named += rt->classes[i].name != NULL;
		with_fields += *rt->classes[i].fields_how != 0;
		checked += rt->classes[i].fields_checked;
	}
	if (r->json) {
		rep_open(r, key, false);
		rep_u(r, "count", rt->class_count);
		rep_u(r, "named", named);
		rep_u(r, "with_fields", with_fields);
		rep_u(r, "fields_checked", checked);
		rep_u(r, "retired", rt->retired_classes);
		rep_u(r, "rejected", rt->rejected_classes);
		if (rt->rejected_classes)
			rep_s(r, "first_rejected", rt->first_rejected);
		rep_u(r, "rejected_dex_magics", rt->rejected_dexes);
		rep_u(r, "dex_caches", rt->dex_caches);
		rep_u(r, "dex_caches_resolved", rt->dex_caches_resolved);
		rep_u(r, "dex_caches_by_pointer", rt->dex_caches_by_pointer);
		rep_close(r);
	} else {
		fprintf(r->fp, "classes: %zu (%zu named, %zu with field layouts, %zu layouts checked); %zu retired and "
			       "%zu rejected candidates not listed; dex caches %zu/%zu resolved\n",
			rt->class_count, named, with_fields, checked, rt->retired_classes, rt->rejected_classes,
			rt->dex_caches_resolved, rt->dex_caches);
		if (rt->rejected_classes)   /* a word equal to java.lang.Class's address: no damage */
			fprintf(r->fp, "  the first rejected candidate: %s\n", rt->first_rejected);
	}
	return 0;
}

int info_art_anomalies(const struct info_art *ia, struct rep *r, const char *key, struct err *e)
{
	(void)e;
	if (ia->have_rt)
		cli_anomalies(r, key, &ia->rt.anomalies);
	else if (r->json)
		rep_null(r, key);
	else
		fputs("anomalies: none (no ART runtime)\n", r->fp);
	return 0;
}
