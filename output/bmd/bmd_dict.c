/* bmd_dict.c - dictionary sources for decrunch (see bmd_dict.h). */
#include "output/bmd/bmd_dict.h"

#include <string.h>

#include "art/format/dex.h"
#include "carver/base/mapfile.h"
#include "carver/base/xalloc.h"

/* err_prefix that tolerates a NULL error (probes and tests pass none) */
#define ERR_PREFIX(e, rc, ...) ((e) ? err_prefix((e), __VA_ARGS__) : (rc))
#include "carver/image/zipw.h"

#define DICT_ENTRY_MAX (256u << 20)     /* largest classes*.dex extracted from an APK */

/* Adds raw UTF-8 (zip names) as Java decodes and re-encodes it. */
static int dict_add_utf8(struct bmd_dict *d, struct wbuf *tmp, const uint8_t *s, size_t n, struct err *e)
{
	int32_t hash;
	int rc;

	wbuf_reset(tmp);
	bmd_java_utf8(s, n, tmp, &hash);
	if ((rc = wbuf_status(tmp, e)))
		return rc;
	return bmd_dict_add(d, tmp->data, tmp->len, hash, e);
}

static bool ends_with(const uint8_t *s, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);
	return n >= k && !memcmp(s + n - k, suffix, k);
}

int bmd_dict_add_jar(struct bmd_dict *d, const uint8_t *data, size_t len, const char *label, struct err *e)
{
	struct zipw z;
	struct zipw_iter it;
	struct zipw_entry en;
	struct wbuf name, tmp;
	int rc;

	if ((rc = zipw_open(&z, data, len, label, e)))
		return rc;
	wbuf_init(&name);
	wbuf_init(&tmp);
	zipw_iter_init(&z, &it);
	while ((rc = zipw_next(&it, &en, e)) == 1) {
		if (!ends_with(en.name, en.name_len, ".class"))
			continue;
		/* JarStringReader: name minus ".class", then replace(File.pathSeparator, ".") */
		wbuf_reset(&name);
		bmd_java_utf8(en.name, en.name_len - 6, &name, NULL);
		for (size_t i = 0; i < name.len; i++)
			if (name.data[i] == ':')
				name.data[i] = '.';
		if ((rc = wbuf_status(&name, e)) || (rc = dict_add_utf8(d, &tmp, name.data, name.len, e)))
			break;
	}
	wbuf_release(&name);
	wbuf_release(&tmp);
	return rc < 0 ? rc : 0;
}

/* Adds modified UTF-8 (DEX strings) as Java decodes and re-encodes it. */
static int dict_add_mutf8(struct bmd_dict *d, struct wbuf *tmp, const uint8_t *s, size_t n, struct err *e)
{
	int32_t hash;
	int rc;

	wbuf_reset(tmp);
	bmd_java_mutf8(s, n, tmp, &hash);
	if ((rc = wbuf_status(tmp, e)))
		return rc;
	return bmd_dict_add(d, tmp->data, tmp->len, hash, e);
}

/* "La/b/C;" -> "a.b.C": dex-reader's visit() strips the first and last character and
 * replaces '/' by '.'. */
static int dict_add_class_name(struct bmd_dict *d, struct wbuf *tmp, const uint8_t *desc, size_t n,
			       struct err *e)
{
	struct wbuf name;
	int rc;

	if (n < 2)
		return 0;
	wbuf_init(&name);
	wbuf_put(&name, desc + 1, n - 2);
	for (size_t i = 0; i < name.len; i++)
		if (name.data[i] == '/')
			name.data[i] = '.';
	rc = wbuf_status(&name, e);
	if (rc == 0)
		rc = dict_add_mutf8(d, tmp, name.data, name.len, e);
	wbuf_release(&name);
	return rc;
}

static int dict_add_fields(struct bmd_dict *d, struct wbuf *tmp, const struct dex *dx,
			   const struct dex_class_def *def, struct err *e)
{
	struct dex_class_data it;
	struct dex_member m;
	int rc;

	if ((rc = dex_class_data_open(dx, def, &it, e)))
		return rc;
	while ((rc = dex_class_data_next(&it, &m, e)) == 1) {
		struct dex_field_id f;
		const uint8_t *s;
		size_t n;
		if (m.kind != DEX_STATIC_FIELD && m.kind != DEX_INSTANCE_FIELD)
			break;  /* fields come first; methods are not used */
		if ((rc = dex_field_id(dx, m.idx, &f, e)) || (rc = dex_string(dx, f.name_idx, &s, &n, e)) ||
		    (rc = dict_add_mutf8(d, tmp, s, n, e)))
			return rc;
	}
	return rc < 0 ? rc : 0;
}

int bmd_dict_add_dex(struct bmd_dict *d, const uint8_t *data, size_t len, const char *label, struct err *e)
{
	struct dex dx;
	struct cursor c;
	struct wbuf tmp;
	int rc;

	cur_init(&c, data, len, 0);
	if (!dex_probe(data, len))
		return ERR_SET(e, ERR_CORRUPT, 0, "%s: not a DEX file (bad magic)", label ? label : "dex");
	if ((rc = dex_parse(&dx, &c, e)))
		return rc;
	wbuf_init(&tmp);
	for (uint32_t i = 0; i < dx.class_defs_size && rc == 0; i++) {
		struct dex_class_def def;
		const uint8_t *s;
		size_t n;
		if ((rc = dex_class_def(&dx, i, &def, e)) || (rc = dex_type_descriptor(&dx, def.class_idx, &s, &n, e)) ||
		    (rc = dict_add_class_name(d, &tmp, s, n, e)))
			break;
		rc = dict_add_fields(d, &tmp, &dx, &def, e);
	}
	wbuf_release(&tmp);
	return rc;
}

/* classes.dex, classes2.dex, ... at the top level of the archive */
static bool is_classes_dex(const struct zipw_entry *en)
{
	size_t n = en->name_len;

	if (n < 11 || memcmp(en->name, "classes", 7) || !ends_with(en->name, n, ".dex"))
		return false;
	for (size_t i = 7; i < n - 4; i++)
		if (en->name[i] < '0' || en->name[i] > '9')
			return false;
	return true;
}

int bmd_dict_add_apk(struct bmd_dict *d, const uint8_t *data, size_t len, const char *label, struct err *e)
{
	struct zipw z;
	struct zipw_iter it;
	struct zipw_entry en;
	int rc;

	if ((rc = zipw_open(&z, data, len, label, e)))
		return rc;
	zipw_iter_init(&z, &it);
	while ((rc = zipw_next(&it, &en, e)) == 1) {
		uint8_t *dex;
		size_t n;
		if (!is_classes_dex(&en))
			continue;
		if ((rc = zipw_extract(&z, &en, DICT_ENTRY_MAX, &dex, &n, e)))
			return rc;
		rc = bmd_dict_add_dex(d, dex, n, label, e);
		xfree(dex);
		if (rc)
			return ERR_PREFIX(e, rc, "%.*s", (int)en.name_len, en.name);
	}
	return rc < 0 ? rc : 0;
}

static bool path_ends_with(const char *path, const char *suffix)
{
	return ends_with((const uint8_t *)path, strlen(path), suffix);
}

int bmd_dict_load_file(struct bmd_dict *d, const char *path, struct err *e)
{
	int (*add)(struct bmd_dict *, const uint8_t *, size_t, const char *, struct err *);
	struct mapfile m;
	int rc;

	if (path_ends_with(path, ".jar"))
		add = bmd_dict_add_jar;
	else if (path_ends_with(path, ".apk"))
		add = bmd_dict_add_apk;
	else if (path_ends_with(path, ".dex"))
		add = bmd_dict_add_dex;
	else
		return ERR_SET(e, ERR_USAGE, ERR_NO_VA, "%s: string source must be a .jar, .apk or .dex file", path);
	if ((rc = mapfile_open(&m, path, e)))
		return rc;
	rc = add(d, m.data, m.len, path, e);
	mapfile_close(&m);
	return rc ? ERR_PREFIX(e, rc, "%s", path) : 0;
}
