/* bmd_dict.c - the decrunch string dictionary and its sources (see bmd_dict.h). */
#include "output/bmd/bmd_dict.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "art/format/dex.h"
#include "carver/base/mapfile.h"
#include "carver/base/xalloc.h"
#include "carver/wrap/zipw.h"

/* err_prefix that tolerates a NULL error (probes and tests pass none) */
#define ERR_PREFIX(e, rc, ...) ((e) ? err_prefix((e), __VA_ARGS__) : (rc))

/* ---- the dictionary ---- */

void bmd_dict_init(struct bmd_dict *d)
{
	memset(d, 0, sizeof(*d));
	htab_init(&d->heads);
	wbuf_init(&d->text);
}

void bmd_dict_release(struct bmd_dict *d)
{
	htab_release(&d->heads);
	xfree(d->entries);
	wbuf_release(&d->text);
	memset(d, 0, sizeof(*d));
}

int bmd_dict_add(struct bmd_dict *d, const uint8_t *utf8, size_t len, int32_t hash, struct err *e)
{
	uint32_t head = UINT32_MAX, i;
	struct bmd_dict_entry *en;
	int rc;

	if (htab_get(&d->heads, (uint32_t)hash, &head)) {
		/* a string already added keeps its place (a HashSet ignores re-adds) */
		for (i = head; i != UINT32_MAX; i = d->entries[i].next)
			if (d->entries[i].len == len && !memcmp(d->text.data + d->entries[i].off, utf8, len))
				return 0;
		d->collisions++;
	}
	/* entries are numbered in 32 bits (UINT32_MAX ends a chain): no more than 2^31 */
	if (d->count == d->cap && (d->cap > UINT32_MAX / 2 || XALLOC_GROW(d->entries, d->cap, d->count + 1, 1024)))
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory for %zu dictionary strings", d->count + 1);
	en = &d->entries[d->count];
	en->hash = hash;
	en->next = head;
	en->off = d->text.len;
	en->len = len;
	wbuf_put(&d->text, utf8, len);
	if ((rc = wbuf_status(&d->text, e)))
		return rc;
	return bmd_idmap_put(&d->heads, (uint32_t)hash, (uint32_t)d->count++, e);
}

int bmd_dict_find_len(const struct bmd_dict *d, int32_t hash, size_t len, const uint8_t **s)
{
	uint32_t i;

	if (!d || !htab_get(&d->heads, (uint32_t)hash, &i))
		return 0;
	for (; i != UINT32_MAX; i = d->entries[i].next)
		if (d->entries[i].len == len) {
			*s = d->text.data + d->entries[i].off;
			return 1;
		}
	return 0;
}

int bmd_dict_find(const struct bmd_dict *d, int32_t hash, const uint8_t **s, size_t *len)
{
	uint32_t i;

	if (!d || !htab_get(&d->heads, (uint32_t)hash, &i))
		return 0;
	*s = d->text.data + d->entries[i].off;
	*len = d->entries[i].len;
	return 1;
}

/* ---- its sources ---- */

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
	if ((rc = dex_load(&dx, &c, e)))
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

/* ---- JDK class files and modules ---------------------------------------------------------------- */

/* Constant pool tags (JVMS 17 section 4.4, Table 4.4-B) and the bytes after each tag; Utf8
 * is u2 length + bytes.  Long and Double take two pool slots (4.4.5). */
enum { CP_UTF8 = 1, CP_LONG = 5, CP_DOUBLE = 6, CP_CLASS = 7 };

static size_t cp_body_size(uint8_t tag)
{
	switch (tag) {
	case 7: case 8: case 16: case 19: case 20: return 2;   /* Class String MethodType Module Package */
	case 15: return 3;                                      /* MethodHandle */
	case 3: case 4: case 9: case 10: case 11: case 12: case 17: case 18: return 4;
	case CP_LONG: case CP_DOUBLE: return 8;
	default: return 0;
	}
}

/* at[idx] = offset of pool entry idx's tag byte, its bytes checked by class_pool (0 for the
 * unusable slot after a Long or Double and for slot 0: offset 0 is the magic). */
static int class_entry(const struct cursor *c, const uint32_t *at, uint16_t count, uint16_t idx, uint8_t tag,
		       const uint8_t **body, struct err *e)
{
	if (idx == 0 || idx >= count || !at[idx] || c->base[at[idx]] != tag)
		return ERR_SET(e, ERR_CORRUPT, ERR_NO_VA, "class file: constant %u is not a %s entry", idx,
			       tag == CP_UTF8 ? "Utf8" : "Class");
	*body = c->base + at[idx] + 1;
	return 0;
}

static int class_utf8(const struct cursor *c, const uint32_t *at, uint16_t count, uint16_t idx,
		      const uint8_t **s, size_t *n, struct err *e)
{
	const uint8_t *b = NULL;
	int rc = class_entry(c, at, count, idx, CP_UTF8, &b, e);

	if (rc)
		return rc;
	*n = ld_u16be(b);
	*s = b + 2;
	return 0;
}

/* Walks the constant pool, remembering where each entry is. */
static int class_pool(struct cursor *c, uint32_t *at, uint16_t count, struct err *e)
{
	for (uint16_t i = 1; i < count; i++) {
		size_t start = c->pos;
		uint8_t tag;
		uint16_t n;
		int rc;
		if ((rc = cur_u8(c, &tag, e)))
			return rc;
		if (start > UINT32_MAX)
			return ERR_SET(e, ERR_UNSUP, ERR_NO_VA, "class file larger than 4 GiB");
		at[i] = (uint32_t)start;
		if (tag == CP_UTF8) {
			if ((rc = cur_u16be(c, &n, e)) || (rc = cur_skip(c, n, e)))
				return rc;
			continue;
		}
		if (!cp_body_size(tag))
			return ERR_SET(e, ERR_CORRUPT, ERR_NO_VA, "class file: constant %u has unknown tag %u", i, tag);
		if ((rc = cur_skip(c, cp_body_size(tag), e)))
			return rc;
		if (tag == CP_LONG || tag == CP_DOUBLE)
			i++;
	}
	return 0;
}

static int class_attributes(struct cursor *c, uint16_t count, struct err *e)
{
	for (uint16_t a = 0; a < count; a++) {
		uint16_t name;
		uint32_t len;
		int rc;
		if ((rc = cur_u16be(c, &name, e)) || (rc = cur_u32be(c, &len, e)) || (rc = cur_skip(c, len, e)))
			return rc;
	}
	return 0;
}

/* field_info / method_info (JVMS 4.5, 4.6): access, name, descriptor, attributes. */
static int class_member(struct cursor *c, uint16_t *name, struct err *e)
{
	uint16_t flags, desc, n_attr;
	int rc;

	if ((rc = cur_u16be(c, &flags, e)) || (rc = cur_u16be(c, name, e)) || (rc = cur_u16be(c, &desc, e)) ||
	    (rc = cur_u16be(c, &n_attr, e)))
		return rc;
	return class_attributes(c, n_attr, e);
}

/* this_class's name ("java/lang/System") and every declared field's name (JVMS 4.1, 4.5). */
static int class_names(struct bmd_dict *d, struct cursor *c, const uint32_t *utf8_at, uint16_t count,
		       struct wbuf *tmp, struct err *e)
{
	uint16_t access, this_class, super, n_if, n_fields;
	const uint8_t *s, *cls = NULL;
	size_t n;
	int rc;

	if ((rc = cur_u16be(c, &access, e)) || (rc = cur_u16be(c, &this_class, e)) ||
	    (rc = cur_u16be(c, &super, e)) || (rc = cur_u16be(c, &n_if, e)) || (rc = cur_skip(c, 2 * (size_t)n_if, e)))
		return rc;
	if ((rc = class_entry(c, utf8_at, count, this_class, CP_CLASS, &cls, e)) ||
	    (rc = class_utf8(c, utf8_at, count, ld_u16be(cls), &s, &n, e)) || (rc = dict_add_mutf8(d, tmp, s, n, e)))
		return rc;
	if ((rc = cur_u16be(c, &n_fields, e)))
		return rc;
	for (uint16_t f = 0; f < n_fields; f++) {
		uint16_t name;
		if ((rc = class_member(c, &name, e)) || (rc = class_utf8(c, utf8_at, count, name, &s, &n, e)) ||
		    (rc = dict_add_mutf8(d, tmp, s, n, e)))
			return rc;
	}
	/* the rest is read for its bounds only: methods, then the class's attributes */
	if ((rc = cur_u16be(c, &n_fields, e)))
		return rc;
	for (uint16_t m = 0; m < n_fields; m++) {
		uint16_t name;
		if ((rc = class_member(c, &name, e)))
			return rc;
	}
	if ((rc = cur_u16be(c, &n_fields, e)) || (rc = class_attributes(c, n_fields, e)))
		return rc;
	if (cur_remaining(c))
		return ERR_SET(e, ERR_CORRUPT, ERR_NO_VA, "class file: %zu bytes after the last attribute",
			       cur_remaining(c));
	return 0;
}

int bmd_dict_add_class(struct bmd_dict *d, const uint8_t *data, size_t len, const char *label, struct err *e)
{
	struct cursor c;
	uint32_t magic, *utf8_at;
	uint16_t minor, major, count;
	struct wbuf tmp;
	int rc;

	cur_init(&c, data, len, 0);
	if ((rc = cur_u32be(&c, &magic, e)) || (rc = cur_u16be(&c, &minor, e)) || (rc = cur_u16be(&c, &major, e)) ||
	    (rc = cur_u16be(&c, &count, e)))
		return ERR_PREFIX(e, rc, "%s", label ? label : "class file");
	if (magic != 0xcafebabe)
		return ERR_SET(e, ERR_CORRUPT, 0, "%s: not a class file (magic 0x%08x)", label ? label : "class file", magic);
	utf8_at = xcalloc(count ? count : 1, sizeof(*utf8_at));
	if (!utf8_at)
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory for %u constants", count);
	wbuf_init(&tmp);
	rc = class_pool(&c, utf8_at, count, e);
	if (rc == 0)
		rc = class_names(d, &c, utf8_at, count, &tmp, e);
	wbuf_release(&tmp);
	xfree(utf8_at);
	return rc ? ERR_PREFIX(e, rc, "%s", label ? label : "class file") : 0;
}

#define JMOD_MAGIC "JM\x01\x00"          /* jdk.internal.jmod.JmodFile: 'J' 'M' major 1 minor 0 */
#define CLASS_MAX (64u << 20)            /* largest class file extracted from a module */

static bool is_module_class(const struct zipw_entry *en)
{
	return en->name_len > 14 && !memcmp(en->name, "classes/", 8) && ends_with(en->name, en->name_len, ".class") &&
	       !ends_with(en->name, en->name_len, "module-info.class");
}

/* The entries of a module in archive order; with m, the mapped pages behind the entry being
 * read go back to the kernel every megabyte (a module is tens of MB). */
static int dict_add_jmod_map(struct bmd_dict *d, const uint8_t *data, size_t len, const struct mapfile *m,
			     const char *label, struct err *e)
{
	struct zipw z;
	struct zipw_iter it;
	struct zipw_entry en;
	uint64_t dropped = 0;
	int rc;

	if (len < 4 || memcmp(data, JMOD_MAGIC, 4))
		return ERR_SET(e, ERR_CORRUPT, 0, "%s: not a jmod file (no JM 1.0 header)", label ? label : "jmod");
	/* the ZIP's offsets count from the end of the 4-byte header (it is written after it) */
	if ((rc = zipw_open(&z, data + 4, len - 4, label, e)))
		return rc;
	zipw_iter_init(&z, &it);
	while ((rc = zipw_next(&it, &en, e)) == 1) {
		uint8_t *cls;
		size_t n;
		if (!is_module_class(&en))
			continue;
		if ((rc = zipw_extract(&z, &en, CLASS_MAX, &cls, &n, e)))
			return ERR_PREFIX(e, rc, "%.*s", (int)en.name_len, en.name);
		rc = bmd_dict_add_class(d, cls, n, NULL, e);
		xfree(cls);
		if (rc)
			return ERR_PREFIX(e, rc, "%.*s", (int)en.name_len, en.name);
		if (m && en.local_offset > dropped + (1u << 20) && en.local_offset < len) {
			mapfile_drop(m, data, 4 + (size_t)en.local_offset);
			dropped = en.local_offset;
		}
	}
	return rc < 0 ? rc : 0;
}

int bmd_dict_add_jmod(struct bmd_dict *d, const uint8_t *data, size_t len, const char *label, struct err *e)
{
	return dict_add_jmod_map(d, data, len, NULL, label, e);
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The *.jmod files of dir, sorted (the dictionary's "later wins" makes order matter). */
static int jdk_list(const char *dir, char ***names, size_t *count, struct err *e)
{
	DIR *dp = opendir(dir);
	struct dirent *de;
	size_t cap = 0;

	*names = NULL;
	*count = 0;
	if (!dp)
		return ERR_SET(e, ERR_IO, ERR_NO_VA, "%s: cannot read the directory", dir);
	while ((de = readdir(dp))) {
		size_t n = strlen(de->d_name);
		char *copy;
		if (n < 6 || strcmp(de->d_name + n - 5, ".jmod"))
			continue;
		if (XALLOC_GROW(*names, cap, *count + 1, 64))
			break;
		if (!(copy = xmalloc(strlen(dir) + n + 2)))
			break;
		snprintf(copy, strlen(dir) + n + 2, "%s/%s", dir, de->d_name);
		(*names)[(*count)++] = copy;
	}
	closedir(dp);
	if (de)
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "%s: out of memory listing modules", dir);
	if (*count)
		qsort(*names, *count, sizeof(**names), name_cmp);
	return 0;
}

void bmd_jdk_init(struct bmd_jdk *j)
{
	memset(j, 0, sizeof(*j));
}

void bmd_jdk_release(struct bmd_jdk *j)
{
	for (size_t i = 0; i < j->mod_count; i++)
		mapfile_close(&j->mods[i].map);
	xfree(j->mods);
	xfree(j->classes);
	bmd_jdk_init(j);
}

/* Indexes the class entries of the module just mapped at j->mods[module] from its central
 * directory: "classes/a/B.class" under the hash and length of "a/B" as Java re-encodes it. */
static int jdk_index(struct bmd_jdk *j, uint32_t module, struct wbuf *name, struct wbuf *enc, struct err *e)
{
	struct bmd_jdk_module *m = &j->mods[module];
	struct zipw_iter it;
	struct zipw_entry en;
	int rc;

	if (m->map.len < 4 || memcmp(m->map.data, JMOD_MAGIC, 4))
		return ERR_SET(e, ERR_CORRUPT, 0, "not a jmod file (no JM 1.0 header)");
	if ((rc = zipw_open(&m->zip, m->map.data + 4, m->map.len - 4, m->map.path, e)))
		return rc;
	zipw_iter_init(&m->zip, &it);
	while ((rc = zipw_next(&it, &en, e)) == 1) {
		int32_t hash, dotted;
		if (!is_module_class(&en))
			continue;
		/* "classes/" and ".class" off; '/' is one byte in UTF-8, so the dotted name is the
		 * same bytes with '.' for '/' (and re-encodes to the same length) */
		wbuf_reset(name);
		wbuf_put(name, en.name + 8, en.name_len - 14);
		wbuf_reset(enc);
		bmd_java_utf8(name->data, name->len, enc, &hash);
		for (size_t k = 0; k < name->len; k++)
			if (name->data[k] == '/')
				name->data[k] = '.';
		bmd_java_utf8(name->data, name->len, enc, &dotted);
		if ((rc = wbuf_status(name, e)) || (rc = wbuf_status(enc, e)))
			return rc;
		if (XALLOC_GROW(j->classes, j->cap, j->count + 1, 4096))
			return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory for %zu JDK classes", j->count + 1);
		j->classes[j->count++] = (struct bmd_jdk_class){ hash, dotted, (uint32_t)(enc->len / 2), module, en.offset };
	}
	/* the directory is read again only for the few entries bmd_jdk_names inflates */
	mapfile_drop(&m->map, m->zip.file.base + m->zip.cd_offset, (size_t)m->zip.cd_size);
	return rc < 0 ? rc : 0;
}

int bmd_jdk_open(struct bmd_jdk *j, const char *path, struct err *e)
{
	char sub[4096];
	struct stat st;
	struct wbuf name, enc;
	char **names = NULL;
	size_t count = 0;
	int rc = 0;

	bmd_jdk_init(j);
	if (stat(path, &st) != 0)
		return ERR_SET(e, ERR_IO, ERR_NO_VA, "%s: no such JDK module file or directory", path);
	if (!S_ISDIR(st.st_mode)) {
		if (!ends_with((const uint8_t *)path, strlen(path), ".jmod"))
			return ERR_SET(e, ERR_USAGE, ERR_NO_VA, "%s: expected a JDK home, its jmods directory or a .jmod file",
				       path);
		names = xmalloc(sizeof(*names));
		if (!names || !(names[0] = xmalloc(strlen(path) + 1))) {
			xfree(names);
			return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "%s: out of memory", path);
		}
		strcpy(names[0], path);
		count = 1;
	} else {
		/* a JDK home holds its modules in jmods/ */
		if (snprintf(sub, sizeof(sub), "%s/jmods", path) < (int)sizeof(sub) && stat(sub, &st) == 0 &&
		    S_ISDIR(st.st_mode))
			path = sub;
		if ((rc = jdk_list(path, &names, &count, e)))
			return rc;
		if (count == 0)
			rc = ERR_SET(e, ERR_USAGE, ERR_NO_VA, "%s: no .jmod files (expected a JDK's jmods directory)", path);
	}
	if (rc == 0 && !(j->mods = xcalloc(count, sizeof(*j->mods))))
		rc = ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "%s: out of memory for %zu modules", path, count);
	wbuf_init(&name);
	wbuf_init(&enc);
	for (size_t i = 0; i < count && rc == 0; i++) {
		if ((rc = mapfile_open(&j->mods[i].map, names[i], e)))
			break;
		j->mod_count++;
		if ((rc = jdk_index(j, (uint32_t)i, &name, &enc, e)))
			rc = ERR_PREFIX(e, rc, "%s", names[i]);
	}
	wbuf_release(&name);
	wbuf_release(&enc);
	for (size_t i = 0; i < count; i++)
		xfree(names[i]);
	xfree(names);
	if (rc)
		bmd_jdk_release(j);
	return rc;
}

/* One indexed class, inflated: its names into d; *at is where its local header lies. */
static int jdk_class_names(const struct bmd_jdk_module *m, uint64_t cd_offset, struct bmd_dict *d, uint64_t *at,
			   struct err *e)
{
	struct zipw_entry en;
	uint8_t *cls;
	size_t n;
	int rc;

	if ((rc = zipw_entry_at(&m->zip, cd_offset, &en, e)))
		return rc;
	*at = en.local_offset;
	if ((rc = zipw_extract(&m->zip, &en, CLASS_MAX, &cls, &n, e)))
		return ERR_PREFIX(e, rc, "%.*s", (int)en.name_len, en.name);
	rc = bmd_dict_add_class(d, cls, n, NULL, e);
	xfree(cls);
	return rc ? ERR_PREFIX(e, rc, "%.*s", (int)en.name_len, en.name) : 0;
}

static void jdk_drop(const struct bmd_jdk *j, uint32_t module)
{
	const struct mapfile *m = &j->mods[module].map;
	mapfile_drop(m, m->data, m->len);
}

int bmd_jdk_names(const struct bmd_jdk *j, const struct htab *wanted, struct bmd_dict *d, struct err *e)
{
	uint64_t at, dropped = 0;
	uint32_t v;
	int rc;

	for (size_t i = 0; i < j->count; i++) {
		const struct bmd_jdk_class *c = &j->classes[i];
		const struct bmd_jdk_module *m = &j->mods[c->module];
		if (i > 0 && c->module != j->classes[i - 1].module) {
			jdk_drop(j, j->classes[i - 1].module);
			dropped = 0;
		}
		if (!htab_get(wanted, bmd_jdk_key(c->hash, c->len), &v) &&
		    !htab_get(wanted, bmd_jdk_key(c->dotted_hash, c->len), &v))
			continue;
		if ((rc = jdk_class_names(m, c->cd_offset, d, &at, e)))
			return ERR_PREFIX(e, rc, "%s", m->map.path);
		/* entries lie in directory order: the pages behind this one go every megabyte */
		if (at > dropped + (1u << 20) && at < m->map.len) {
			mapfile_drop(&m->map, m->map.data, 4 + (size_t)at);
			dropped = at;
		}
	}
	if (j->count)
		jdk_drop(j, j->classes[j->count - 1].module);
	return 0;
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
	else if (path_ends_with(path, ".jmod"))
		add = NULL;
	else
		return ERR_SET(e, ERR_USAGE, ERR_NO_VA, "%s: string source must be a .jar, .apk, .dex or .jmod file",
			       path);
	if ((rc = mapfile_open(&m, path, e)))
		return rc;
	rc = add ? add(d, m.data, m.len, path, e) : dict_add_jmod_map(d, m.data, m.len, &m, path, e);
	mapfile_close(&m);
	return rc ? ERR_PREFIX(e, rc, "%s", path) : 0;
}
