/* info_art.c - ART sections of `artcarve info` (see info_art.h). */
#include "carver/cli/info_art.h"

#include <string.h>

#include "carver/cli/cli.h"
#include "rosalloc/probe/probe.h"

int info_art_open(struct info_art *ia, const struct image *img, const char *art_version, struct err *e)
{
	struct runtime_opts o = { art_version, &probe_spaces };
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

static void json_str(FILE *fp, const char *s)
{
	if (s)
		cli_json_string(fp, s, strlen(s));
	else
		fputs("null", fp);
}

int info_art_runtime(const struct info_art *ia, FILE *fp, bool json, struct err *e)
{
	const struct art_runtime *rt = &ia->rt;
	(void)e;
	if (!ia->have_rt) {
		if (json) {
			fputs("{\"error\": ", fp);
			json_str(fp, ia->why.msg);
			fputc('}', fp);
		} else {
			fprintf(fp, "ART runtime: not found (%s)\n", ia->why.msg);
		}
		return 0;
	}
	if (json) {
		fputs("{\"layout\": ", fp);
		json_str(fp, rt->layout->family);
		fputs(", \"layout_how\": ", fp);
		json_str(fp, rt->layout_how);
		fprintf(fp, ", \"image_versions\": \"%s\", \"pointer_size\": %u, \"pointer_how\": ",
			rt->layout->image_versions, rt->pointer_size);
		json_str(fp, rt->pointer_how);
		fprintf(fp, ", \"java_lang_class\": \"0x%llx\"}", (unsigned long long)rt->java_lang_class);
	} else {
		fprintf(fp, "ART runtime: layout family %s (image version %s), found by %s\n", rt->layout->family,
			rt->layout->image_versions, rt->layout_how);
		fprintf(fp, "pointer size: %u, found by %s\n", rt->pointer_size, rt->pointer_how);
		fprintf(fp, "java.lang.Class: 0x%llx\n", (unsigned long long)rt->java_lang_class);
	}
	return 0;
}

int info_art_spaces(const struct info_art *ia, FILE *fp, bool json, struct err *e)
{
	const struct art_spaces *s = spaces_of(ia);
	(void)e;
	if (json)
		fputc('[', fp);
	else
		fprintf(fp, "spaces and heap mappings: %zu\n", s->count);
	for (size_t i = 0; i < s->count; i++) {
		const struct art_space *sp = &s->v[i];
		bool obj = spaces_holds_objects(sp->kind);
		if (json) {
			fprintf(fp, "%s\n    {\"kind\": \"%s\", \"role\": \"%s\", \"begin\": \"0x%llx\", \"end\": \"0x%llx\", "
				    "\"limit\": \"0x%llx\", \"backup\": %s, \"how\": \"%s\", \"name\": ",
				i ? "," : "", spaces_kind_name(sp->kind), obj ? "space" : "helper",
				(unsigned long long)sp->begin, (unsigned long long)sp->end, (unsigned long long)sp->limit,
				sp->backup ? "true" : "false", sp->how);
			json_str(fp, sp->name);
			fputs(", \"detail\": ", fp);
			json_str(fp, sp->detail);
			if (sp->kind == SPACE_LOS_MAP)
				fprintf(fp, ", \"allocations\": %zu", sp->count);
			fputc('}', fp);
		} else {
			fprintf(fp, "  %s %s 0x%llx 0x%llx limit=0x%llx how=%s%s name=\"%s\"%s%s\n",
				obj ? "space" : "mapping", spaces_kind_name(sp->kind), (unsigned long long)sp->begin,
				(unsigned long long)sp->end, (unsigned long long)sp->limit, sp->how,
				sp->backup ? " backup" : "", sp->name, *sp->detail ? " detail=" : "", sp->detail);
		}
	}
	if (json)
		fputs(s->count ? "\n  ]" : "]", fp);
	return 0;
}

int info_art_images(const struct info_art *ia, FILE *fp, bool json, struct err *e)
{
	const struct art_runtime *rt = &ia->rt;
	size_t n = ia->have_rt ? rt->image_count : 0;
	(void)e;
	if (json)
		fputc('[', fp);
	else
		fprintf(fp, "boot/app images: %zu\n", n);
	for (size_t i = 0; i < n; i++) {
		const struct rt_image *im = &rt->images[i];
		if (json) {
			fprintf(fp, "%s{\"begin\": \"0x%llx\", \"version\": \"%03u\", \"size\": %u, \"image_roots\": \"0x%x\", "
				    "\"pointer_size\": %u, \"name\": ",
				i ? ", " : "", (unsigned long long)im->begin, im->version, im->size, im->roots,
				im->pointer_size);
			json_str(fp, im->name);
			fputc('}', fp);
		} else {
			fprintf(fp, "  image 0x%llx version %03u size %u roots 0x%x pointer size %u %s\n",
				(unsigned long long)im->begin, im->version, im->size, im->roots, im->pointer_size, im->name);
		}
	}
	if (json)
		fputc(']', fp);
	return 0;
}

int info_art_files(const struct info_art *ia, FILE *fp, bool json, struct err *e)
{
	const struct art_runtime *rt = &ia->rt;
	size_t nf = ia->have_rt ? rt->file_count : 0, nd = ia->have_rt ? rt->dex_count : 0;
	(void)e;
	if (json)
		fputc('[', fp);
	else
		fprintf(fp, "OAT/VDEX/DEX files: %zu\n", nf + nd);
	for (size_t i = 0; i < nf; i++) {
		const struct rt_file *f = &rt->files[i];
		if (json) {
			fprintf(fp, "%s{\"kind\": \"%s\", \"address\": \"0x%llx\", \"version\": %u, \"name\": ",
				i ? ", " : "", f->kind, (unsigned long long)f->addr, f->version);
			json_str(fp, f->name);
			fputc('}', fp);
		} else {
			fprintf(fp, "  %s 0x%llx version %03u %s\n", f->kind, (unsigned long long)f->addr, f->version, f->name);
		}
	}
	for (size_t i = 0; i < nd; i++) {
		const struct rt_dex *d = &rt->dexes[i];
		if (json) {
			fprintf(fp, "%s{\"kind\": \"%s\", \"address\": \"0x%llx\", \"size\": %zu, \"version\": %u, "
				    "\"classes_named\": %zu, \"location\": ",
				nf + i ? ", " : "", d->dex.compact ? "cdex" : "dex", (unsigned long long)d->addr, d->size,
				d->dex.version, d->classes);
			json_str(fp, d->location);
			fputc('}', fp);
		} else {
			fprintf(fp, "  %s 0x%llx size %zu version %03u class_defs %u, names %zu classes, location \"%s\"\n",
				d->dex.compact ? "cdex" : "dex", (unsigned long long)d->addr, d->size, d->dex.version,
				d->dex.class_defs_size, d->classes, d->location);
		}
	}
	if (json)
		fputc(']', fp);
	return 0;
}

int info_art_classes(const struct info_art *ia, FILE *fp, bool json, struct err *e)
{
	const struct art_runtime *rt = &ia->rt;
	size_t named = 0, with_fields = 0, checked = 0;
	(void)e;
	if (!ia->have_rt) {
		fputs(json ? "null" : "classes: none (no ART runtime)\n", fp);
		return 0;
	}
	for (size_t i = 0; i < rt->class_count; i++) {
		named += rt->classes[i].name != NULL;
		with_fields += *rt->classes[i].fields_how != 0;
		checked += rt->classes[i].fields_checked;
	}
	if (json)
		fprintf(fp, "{\"count\": %zu, \"named\": %zu, \"with_fields\": %zu, \"fields_checked\": %zu, "
			    "\"retired\": %zu, \"rejected\": %zu, \"dex_caches\": %zu, \"dex_caches_resolved\": %zu, "
			    "\"dex_caches_by_pointer\": %zu}",
			rt->class_count, named, with_fields, checked, rt->retired_classes, rt->rejected_classes,
			rt->dex_caches, rt->dex_caches_resolved, rt->dex_caches_by_pointer);
	else
		fprintf(fp, "classes: %zu (%zu named, %zu with field layouts, %zu layouts checked); %zu retired and "
			    "%zu rejected candidates not listed; dex caches %zu/%zu resolved\n",
			rt->class_count, named, with_fields, checked, rt->retired_classes, rt->rejected_classes,
			rt->dex_caches_resolved, rt->dex_caches);
	return 0;
}
