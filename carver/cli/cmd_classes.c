/* cmd_classes.c - `artcarve classes IMAGE [--maps F] [--json] [--art-version V]`: every
 * java.lang.Class of a process image with its name, super class, sizes, component type and
 * instance fields (name, type, offset) in declaration order. */
#include <stdio.h>
#include <string.h>

#include "art/runtime/runtime.h"
#include "carver/cli/cli.h"
#include "carver/cli/cli_anomalies.h"
#include "carver/image/image.h"
#include "carver/base/rep.h"

struct classes_opts {
	const char *maps, *art_version;
	bool json;
};

static const char *or_dash(const char *s) { return s ? s : "-"; }

static const char *class_name(const struct art_runtime *rt, size_t i)
{
	return i == RT_NONE ? NULL : rt->classes[i].name;
}

/* Java name of a field's type (the descriptor itself when it is malformed). */
static const char *type_name(const struct rt_field *f)
{
	return f->java_type ? f->java_type : f->type;
}

static void print_text(const struct art_runtime *rt, FILE *fp)
{
	for (size_t i = 0; i < rt->class_count; i++) {
		const struct rt_class *k = &rt->classes[i];
		fprintf(fp, "class 0x%08llx %s super=%s object_size=%u component=%s name_from=%s fields_from=%s origin=%s%s\n",
			(unsigned long long)k->addr, or_dash(k->name), or_dash(class_name(rt, k->super)),
			k->raw.object_size, or_dash(class_name(rt, k->component)), *k->name_how ? k->name_how : "-",
			*k->fields_how ? k->fields_how : "-", runtime_origin_name(runtime_class_origin(rt, i)),
			k->field_count && !k->fields_checked ? " unchecked" : "");
		for (uint32_t j = 0; j < k->field_count; j++) {
			const struct rt_field *f = &k->fields[j];
			if (f->offset == RT_OFFSET_UNKNOWN)
				fprintf(fp, "  field +? %s %s\n", type_name(f), f->name);
			else
				fprintf(fp, "  field +%u %s %s\n", f->offset, type_name(f), f->name);
		}
	}
	{
		struct rep r;
		rep_init(&r, fp, false);
		cli_anomalies(&r, "anomalies", &rt->anomalies);
	}
}

static void json_ref(struct rep *r, const struct art_runtime *rt, const char *key, uint32_t addr, size_t idx)
{
	if (!addr) {
		rep_null(r, key);
		return;
	}
	rep_open(r, key, false);
	rep_hex(r, "address", addr);
	rep_s(r, "name", class_name(rt, idx));
	rep_close(r);
}

static void print_json(const struct art_runtime *rt, FILE *fp)
{
	struct rep r;

	rep_init(&r, fp, true);
	rep_open(&r, NULL, false);
	rep_s(&r, "layout", rt->layout->family);
	rep_u(&r, "pointer_size", rt->pointer_size);
	rep_u(&r, "count", rt->class_count);
	rep_u(&r, "retired", rt->retired_classes);
	rep_u(&r, "rejected", rt->rejected_classes);
	rep_open_lines(&r, "classes", true);
	for (size_t i = 0; i < rt->class_count; i++) {
		const struct rt_class *k = &rt->classes[i];
		rep_open(&r, NULL, false);
		rep_hex(&r, "address", k->addr);
		rep_s(&r, "name", k->name);
		rep_s(&r, "name_from", k->name_how);
		json_ref(&r, rt, "super", k->raw.super_class, k->super);
		json_ref(&r, rt, "component", k->raw.component_type, k->component);
		rep_u(&r, "object_size", k->raw.object_size);
		rep_u(&r, "class_size", k->raw.class_size);
		rep_u(&r, "access_flags", k->raw.access_flags);
		rep_u(&r, "status", k->raw.status);
		rep_s(&r, "fields_from", k->fields_how);
		rep_s(&r, "origin", runtime_origin_name(runtime_class_origin(rt, i)));
		rep_s(&r, "origin_why", runtime_class_origin_why(rt, i));
		rep_s(&r, "dex_location", runtime_class_dex_location(rt, i));
		rep_bool(&r, "fields_checked", k->fields_checked);
		rep_open(&r, "fields", true);
		for (uint32_t j = 0; j < k->field_count; j++) {
			const struct rt_field *f = &k->fields[j];
			rep_open(&r, NULL, false);
			rep_s(&r, "name", f->name);
			rep_s(&r, "type", type_name(f));
			if (f->offset == RT_OFFSET_UNKNOWN)
				rep_null(&r, "offset");
			else
				rep_u(&r, "offset", f->offset);
			rep_close(&r);
		}
		rep_close(&r);
		rep_close(&r);
	}
	rep_close(&r);
	cli_anomalies(&r, "anomalies", &rt->anomalies);
	rep_close(&r);
	fputc('\n', fp);
}

static const struct opt classes_opts[] = {
	OPT_ROW_FLAG("--json", NULL, struct classes_opts, json),
	OPT_ROW_STRING("--maps", struct classes_opts, maps, "a file"),
	OPT_ROW_STRING("--art-version", struct classes_opts, art_version, "a layout family"),
	OPT_ROW_END,
};
static const char *const classes_pos[] = { "IMAGE", NULL };
const struct opt_spec cmd_classes_spec = { classes_opts, classes_pos, 1, 1 };

int cmd_classes(int argc, char **argv)
{
	struct classes_opts o = { 0 };
	struct image img;
	struct art_runtime rt;
	size_t npos;
	struct err e;
	int rc = cli_parse(argc, argv, &cmd_classes_spec, &o, &npos);

	if (rc != CLI_GO_ON)
		return rc;
	err_init(&e);
	if ((rc = cli_open_runtime(argv[0], argv[1], o.maps, o.art_version, &img, &rt)))
		return rc;
	if (o.json)
		print_json(&rt, stdout);
	else
		print_text(&rt, stdout);
	rc = 0;
	runtime_close(&rt);
	img_close(&img);
	if (rc == 0 && (fflush(stdout) != 0 || ferror(stdout)))
		rc = ERR_SET(&e, ERR_IO, ERR_NO_VA, "cannot write the class list");
	return rc ? cli_report(argv[0], &e) : CLI_OK;
}
