/* carve_dir.c - carve's output folder (see carve_dir.h). */
#include "carver/pipeline/carve_dir.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "carver/base/escape.h"
#include "carver/base/wbuf.h"
#include "carver/base/xalloc.h"

enum { DIR_NAMES_SHOWN = 4 };

/* ".NAME.XXXXXX": the temporary outfile.h gives output NAME (six characters of mkstemp) */
static bool temporary_of_output(const char *name, bool (*is_output)(const char *name))
{
	size_t n = strlen(name);
	char base[256];
	if (name[0] != '.' || n < 9 || n - 8 >= sizeof(base) || name[n - 7] != '.')
		return false;
	memcpy(base, name + 1, n - 8);
	base[n - 8] = '\0';
	return is_output(base) || !strcmp(base, CARVE_MANIFEST);
}

static bool is_ours(const char *name, bool (*is_output)(const char *name))
{
	return is_output(name) || !strcmp(name, CARVE_MANIFEST) || temporary_of_output(name, is_output);
}

/* The entries of a folder that stop a run, sorted so the message is the same every time */
struct dir_names {
	char **v;
	size_t n, cap;
};

static int names_add(struct dir_names *d, const char *name, struct err *e)
{
	char *copy = NULL;
	if (XALLOC_GROW(d->v, d->cap, d->n + 1, 16) || !(copy = xmalloc(strlen(name) + 1))) {
		xfree(copy);
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory listing the output directory");
	}
	d->v[d->n++] = strcpy(copy, name);
	return 0;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* "a, b, c, d, ..." of the first DIR_NAMES_SHOWN names in order */
static void names_text(struct dir_names *d, struct wbuf *out)
{
	if (d->n > 1)   /* qsort of NULL, 0 is undefined */
		qsort(d->v, d->n, sizeof(*d->v), cmp_name);
	for (size_t i = 0; i < d->n && i < DIR_NAMES_SHOWN; i++)
		wbuf_printf(out, "%s%s", i ? ", " : "", d->v[i]);
	if (d->n > DIR_NAMES_SHOWN)
		wbuf_printf(out, ", ...");
}

static void names_release(struct dir_names *d)
{
	for (size_t i = 0; i < d->n; i++)
		xfree(d->v[i]);
	xfree(d->v);
}

/* Removes the temporaries a killed run left (--force) */
static int remove_temporaries(const char *dir, DIR *d, bool (*is_output)(const char *name), struct err *e)
{
	struct dirent *de;
	rewinddir(d);
	while ((de = readdir(d)))
		if (temporary_of_output(de->d_name, is_output) && carve_dir_remove(dir, de->d_name, e))
			return err_rc(e);
	return 0;
}

int carve_dir_check(const char *dir, bool force, bool (*is_output)(const char *name), struct err *e)
{
	struct dir_names found = { NULL, 0, 0 };
	struct wbuf names;
	struct dirent *de;
	size_t count;
	int rc = 0;
	DIR *d = opendir(dir);

	if (!d)
		return errno == ENOENT ? 0
				       : ERR_SET(e, ERR_IO, ERR_NO_VA, "cannot read the output directory %s: %s", dir,
						 strerror(errno));
	wbuf_init(&names);
	while (rc == 0 && (de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
		    (!force || !is_ours(de->d_name, is_output)))
			rc = names_add(&found, de->d_name, e);
	count = found.n;
	names_text(&found, &names);
	if (rc == 0 && (rc = wbuf_status(&names, e)) == 0 && count && !force)
		rc = ERR_SET(e, ERR_USAGE, ERR_NO_VA,
			     "%s holds %zu file%s this run did not write (%.*s): carve writes into an empty folder; "
			     "--force replaces an earlier run's outputs",
			     dir, count, count == 1 ? "" : "s", (int)names.len, (const char *)names.data);
	else if (rc == 0 && count)
		rc = ERR_SET(e, ERR_USAGE, ERR_NO_VA,
			     "%s holds %zu file%s artcarve did not write (%.*s): --force replaces only carve's outputs",
			     dir, count, count == 1 ? "" : "s", (int)names.len, (const char *)names.data);
	else if (rc == 0 && force)
		rc = remove_temporaries(dir, d, is_output, e);
	wbuf_release(&names);
	names_release(&found);
	closedir(d);
	return rc;
}

int carve_dir_remove(const char *dir, const char *file, struct err *e)
{
	struct wbuf p;
	int rc;
	wbuf_init(&p);
	wbuf_printf(&p, "%s/%s", dir, file);
	wbuf_u8(&p, '\0');
	if ((rc = wbuf_status(&p, e)) == 0 && unlink((const char *)p.data) != 0 && errno != ENOENT)
		rc = ERR_SET(e, ERR_IO, ERR_NO_VA, "cannot remove %s: %s", (const char *)p.data, strerror(errno));
	wbuf_release(&p);
	return rc;
}

static void json_str(struct wbuf *b, const char *s)
{
	escape_json_quoted(b, (const uint8_t *)s, strlen(s));
}

static int manifest_inputs(struct wbuf *b, const struct image *img, struct err *e)
{
	size_t n = img_input_count(img);
	for (size_t i = 0; i < n; i++) {
		char hex[SHA256_TEXT];
		uint64_t size;
		int rc = img_input_sha256(img, i, hex, &size, e);
		if (rc)
			return rc;
		wbuf_printf(b, "%s\n    {\"path\": ", i ? "," : "");
		json_str(b, img_input_path(img, i));
		wbuf_printf(b, ", \"role\": \"%s\", \"bytes\": %llu, \"sha256\": \"%s\"}",
			    img->listing && i + 1 == n ? "maps" : "image", (unsigned long long)size, hex);
	}
	return 0;
}

int carve_dir_manifest(struct outf *out, const struct image *img, const char *image_path, const char *version,
		       const char *image_sha256, const struct carve_dir_file *files, unsigned n, struct err *e)
{
	struct wbuf b;
	int rc;

	wbuf_init(&b);
	wbuf_printf(&b, "{\n  \"tool\": \"artcarve\",\n  \"version\": ");
	json_str(&b, version ? version : "");
	wbuf_printf(&b, ",\n  \"image\": {\"path\": ");
	json_str(&b, image_path);
	wbuf_printf(&b, ", \"sha256\": \"%s\"},\n  \"inputs\": [", image_sha256);
	rc = manifest_inputs(&b, img, e);
	wbuf_printf(&b, "\n  ],\n  \"outputs\": [");
	for (unsigned i = 0; i < n; i++) {
		wbuf_printf(&b, "%s\n    {\"file\": ", i ? "," : "");
		json_str(&b, files[i].file);
		wbuf_printf(&b, ", \"bytes\": %llu, \"sha256\": \"%s\"}", (unsigned long long)files[i].bytes,
			    files[i].sha256);
	}
	wbuf_printf(&b, "\n  ]\n}\n");
	if (rc == 0 && (rc = wbuf_status(&b, e)) == 0)
		rc = outf_write(out, b.data, b.len, e);
	wbuf_release(&b);
	return rc;
}
