/* symbolize.c - see symbolize.h.  Mappings are kept sorted by start (inserted in place,
 * checked against their neighbours), so a lookup is one binary search; each file's ELF is
 * opened once and its symbol index is built once by elfw (elfw_symbol_at). */
#include "carver/image/symbolize.h"

#include <stdio.h>
#include <string.h>

#include "carver/base/bsearch.h"
#include "carver/base/ck.h"
#include "carver/base/mapfile.h"
#include "carver/base/xalloc.h"
#include "carver/wrap/elfw.h"

/* A file rebuilt from an image is at most this big (a larger one is looked up on disk). */
#define SYMZ_MAX_REBUILT (512u << 20)

struct symz_file {
	char *path;
	const uint8_t *bytes;   /* the caller's or the image's bytes, NULL if none */
	size_t len;
	uint8_t *owned;         /* bytes rebuilt from an image (freed with the symz) */
	struct mapfile mf;      /* symbols_dir + path when opened */
	bool mapped, tried;
	struct elfw *elf;       /* NULL when the file could not be opened */
	char *problem;          /* why not */
};

struct symz_map {
	uint64_t start, end, offset;
	struct symz_file *file; /* NULL: not a file (a path that is not absolute) */
};

struct symz {
	char *dir;
	struct symz_file **files;
	size_t nfiles, files_cap;
	struct symz_map *maps;
	size_t nmaps, maps_cap;
};

static char *symz_strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = xmalloc(n);
	if (d)
		memcpy(d, s, n);
	return d;
}

int symz_new(struct symz **out, const char *symbols_dir, struct err *e)
{
	struct symz *s = xcalloc(1, sizeof(*s));

	*out = NULL;
	if (!s)
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "symboliser: out of memory");
	if (symbols_dir && !(s->dir = symz_strdup(symbols_dir))) {
		xfree(s);
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "symboliser: out of memory");
	}
	*out = s;
	return 0;
}

static void symz_file_free(struct symz_file *f)
{
	elfw_close(f->elf);
	if (f->mapped)
		mapfile_close(&f->mf);
	xfree(f->owned);
	xfree(f->problem);
	xfree(f->path);
	xfree(f);
}

void symz_free(struct symz *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nfiles; i++)
		symz_file_free(s->files[i]);
	xfree(s->files);
	xfree(s->maps);
	xfree(s->dir);
	xfree(s);
}

size_t symz_map_count(const struct symz *s) { return s->nmaps; }

static struct symz_file *symz_find_file(const struct symz *s, const char *path)
{
	for (size_t i = 0; i < s->nfiles; i++)
		if (!strcmp(s->files[i]->path, path))
			return s->files[i];
	return NULL;
}

static int symz_get_file(struct symz *s, const char *path, struct symz_file **out, struct err *e)
{
	struct symz_file *f = symz_find_file(s, path);

	if (f) {
		*out = f;
		return 0;
	}
	if (s->nfiles == s->files_cap) {
		size_t cap = s->files_cap ? s->files_cap * 2 : 16;
		struct symz_file **n = xreallocarray(s->files, cap, sizeof(*n));
		if (!n)
			return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "symboliser: out of memory for files");
		s->files = n;
		s->files_cap = cap;
	}
	f = xcalloc(1, sizeof(*f));
	if (!f || !(f->path = symz_strdup(path))) {
		xfree(f);
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "symboliser: out of memory for files");
	}
	s->files[s->nfiles++] = f;
	*out = f;
	return 0;
}

static uint64_t symz_map_start(const void *v, size_t i) { return ((const struct symz_map *)v)[i].start; }

/* Index of the first mapping whose start is above va. */
static size_t symz_upper(const struct symz *s, uint64_t va)
{
	return bs_upper(s->maps, s->nmaps, symz_map_start, va);
}

static int symz_insert_map(struct symz *s, const struct symz_map *m, struct err *e)
{
	size_t at = symz_upper(s, m->start);

	if ((at > 0 && s->maps[at - 1].end > m->start) || (at < s->nmaps && s->maps[at].start < m->end))
		return ERR_SET(e, ERR_CORRUPT, m->start, "mapping 0x%llx-0x%llx overlaps another",
			       (unsigned long long)m->start, (unsigned long long)m->end);
	if (s->nmaps == s->maps_cap) {
		size_t cap = s->maps_cap ? s->maps_cap * 2 : 64;
		struct symz_map *n = xreallocarray(s->maps, cap, sizeof(*n));
		if (!n)
			return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "symboliser: out of memory for mappings");
		s->maps = n;
		s->maps_cap = cap;
	}
	memmove(s->maps + at + 1, s->maps + at, (s->nmaps - at) * sizeof(*s->maps));
	s->maps[at] = *m;
	s->nmaps++;
	return 0;
}

int symz_add_map(struct symz *s, const char *path, uint64_t start, uint64_t end, uint64_t offset,
		 const uint8_t *bytes, size_t len, struct err *e)
{
	struct symz_map m = { start, end, offset, NULL };
	int rc;

	if (end <= start)
		return ERR_SET(e, ERR_CORRUPT, start, "mapping 0x%llx-0x%llx is empty or reversed",
			       (unsigned long long)start, (unsigned long long)end);
	if (path && path[0] == '/') {
		if ((rc = symz_get_file(s, path, &m.file, e)))
			return rc;
		if (bytes && !m.file->bytes) {
			m.file->bytes = bytes;
			m.file->len = len;
		}
	}
	return symz_insert_map(s, &m, e);
}

/* Zeroes what the regions of f's file before region `before` copied into [lo, hi) of the
 * file: a hole of a later region overwrites them, as its copy would.  Bounded by region_count. */
static void symz_zero_earlier(struct symz_file *f, const struct image *img, size_t before, uint64_t lo,
			      uint64_t hi)
{
	for (size_t j = 0; j < before; j++) {
		const struct img_region *b = &img->regions[j];
		uint64_t a = b->file_offset, z = b->file_offset + b->data_len;
		if (!b->data || strcmp(b->name, f->path))
			continue;
		if (a < lo)
			a = lo;
		if (z > hi)
			z = hi;
		if (a < z)
			memset(f->owned + a, 0, (size_t)(z - a));
	}
}

/* The file's bytes rebuilt from the image: each captured region of it is copied to its file
 * offset.  Leaves f alone when the region at offset 0 is not captured or holds no ELF. */
static int symz_rebuild(struct symz_file *f, const struct image *img, struct err *e)
{
	uint64_t size = 0;
	bool has_head = false;

	for (size_t i = 0; i < img->region_count; i++) {
		const struct img_region *r = &img->regions[i];
		uint64_t top;
		if (!r->data || strcmp(r->name, f->path))
			continue;
		if (ck_add64(r->file_offset, r->data_len, &top) || top > SYMZ_MAX_REBUILT)
			return 0;
		if (top > size)
			size = top;
		if (r->file_offset == 0 && elfw_probe(r->data, r->data_len))
			has_head = true;
	}
	if (!has_head)
		return 0;
	f->owned = xcalloc(1, (size_t)size);
	if (!f->owned)
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "%s: out of memory rebuilding it from the image", f->path);
	for (size_t i = 0; i < img->region_count; i++) {
		const struct img_region *r = &img->regions[i];
		uint64_t lo, hi, va = r->start, end = r->start + r->data_len;
		if (!r->data || strcmp(r->name, f->path))
			continue;
		/* the copy starts zero: the holes of the input (zero) are not read, only zeroed where
		 * an earlier region of the file wrote; each step copies one data run and moves past it */
		while (va < end) {
			bool run = img_next_data(img, va, end, &lo, &hi);
			if (!run)
				lo = hi = end;
			symz_zero_earlier(f, img, i, r->file_offset + (va - r->start), r->file_offset + (lo - r->start));
			if (!run)
				break;
			memcpy(f->owned + r->file_offset + (lo - r->start), r->data + (lo - r->start), (size_t)(hi - lo));
			va = hi;
		}
	}
	elfw_drop_unmapped_sections(f->owned, (size_t)size);
	f->bytes = f->owned;
	f->len = (size_t)size;
	return 0;
}

static bool symz_base_prefix(const char *path, const char *prefix);

int symz_add_image(struct symz *s, const struct image *img, struct err *e)
{
	return symz_add_image_files(s, img, NULL, e);
}

int symz_add_image_files(struct symz *s, const struct image *img, const char *file_prefix, struct err *e)
{
	for (size_t i = 0; i < img->region_count; i++) {
		const struct img_region *r = &img->regions[i];
		struct symz_file *f;
		bool fresh;
		int rc;

		if (r->name[0] != '/' || (file_prefix && !symz_base_prefix(r->name, file_prefix)))
			continue;
		fresh = symz_find_file(s, r->name) == NULL;
		if ((rc = symz_add_map(s, r->name, r->start, r->end, r->file_offset, NULL, 0, e)))
			return err_prefix(e, "%s", img->path ? img->path : "image");
		f = symz_find_file(s, r->name);
		if (fresh && f && !f->bytes && (rc = symz_rebuild(f, img, e)))
			return rc;
	}
	return 0;
}

static int symz_problem(struct symz_file *f, const char *msg, struct err *e)
{
	if (!(f->problem = symz_strdup(msg)))
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "symboliser: out of memory");
	return 0;
}

/* True when path stays under the symbols directory (no ".." component). */
static bool symz_path_ok(const char *path)
{
	for (const char *p = path; (p = strstr(p, "..")) != NULL; p += 2)
		if ((p == path || p[-1] == '/') && (p[2] == '/' || p[2] == '\0'))
			return false;
	return true;
}

/* Opens f's ELF once: symbols_dir + path first (it keeps .symtab), else the bytes held. */
static int symz_open_file(struct symz *s, struct symz_file *f, struct err *e)
{
	struct err fe;
	const uint8_t *bytes = f->bytes;
	size_t len = f->len;
	char path[4096];

	f->tried = true;
	err_init(&fe);
	if (s->dir && symz_path_ok(f->path)) {
		int n = snprintf(path, sizeof(path), "%s%s", s->dir, f->path);
		if (n > 0 && (size_t)n < sizeof(path) && mapfile_open(&f->mf, path, &fe) == 0) {
			f->mapped = true;
			bytes = f->mf.data;
			len = f->mf.len;
		} else if (!bytes) {
			return symz_problem(f, fe.msg[0] ? fe.msg : "path too long", e);
		}
	}
	if (!bytes)
		return symz_problem(f, s->dir ? "no ELF bytes" : "no ELF bytes in the image and no --symbols directory", e);
	if (elfw_open(&f->elf, bytes, len, f->path, &fe))
		return symz_problem(f, fe.msg, e);
	for (size_t m = 0; m < s->nmaps; m++) {
		uint64_t head;
		err_init(&fe);
		if (s->maps[m].file == f && s->maps[m].offset == 0 && elfw_offset_to_va(f->elf, 0, &head, &fe) == 0) {
			elfw_set_load_bias(f->elf, s->maps[m].start - head);
			break;
		}
	}
	return 0;
}

static bool symz_base_prefix(const char *path, const char *prefix)
{
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	return !strncmp(b, prefix, strlen(prefix));
}

int symz_symbol_va(struct symz *s, const char *file_prefix, const char *name, uint64_t *va, struct err *why,
		   struct err *e)
{
	int rc;

	ERR_SET(why, ERR_CORRUPT, ERR_NO_VA, "no mapped file %s*", file_prefix);
	for (size_t i = 0; i < s->nfiles; i++) {
		struct symz_file *f = s->files[i];
		uint64_t value, head;
		if (!symz_base_prefix(f->path, file_prefix))
			continue;
		if (!f->tried && (rc = symz_open_file(s, f, e)))
			return rc;
		if (!f->elf) {
			ERR_SET(why, ERR_CORRUPT, ERR_NO_VA, "%s: %s", f->path, f->problem ? f->problem : "not opened");
			continue;
		}
		rc = elfw_symbol_value(f->elf, name, &value, NULL, why);
		if (rc == -ERR_NOMEM)
			return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "%s", why->msg);
		if (rc) {
			if (rc > 0)
				ERR_SET(why, ERR_CORRUPT, ERR_NO_VA, "%s: no symbol %s", f->path, name);
			continue;
		}
		/* the load bias: the mapping of file offset 0 starts at the link address of offset 0 */
		for (size_t m = 0; m < s->nmaps; m++) {
			if (s->maps[m].file != f || s->maps[m].offset != 0 || elfw_offset_to_va(f->elf, 0, &head, why))
				continue;
			*va = s->maps[m].start - head + value;
			err_init(why);   /* an earlier mapping that did not fit is no failure */
			return 0;
		}
		ERR_SET(why, ERR_CORRUPT, ERR_NO_VA, "%s: no mapping of its first page", f->path);
	}
	return 1;
}

int symz_lookup(struct symz *s, uint64_t pc, struct symz_frame *out, struct err *e)
{
	size_t at = symz_upper(s, pc);
	const struct symz_map *m;
	struct symz_file *f;
	struct err fe;
	uint64_t va;
	int rc;

	memset(out, 0, sizeof(*out));
	out->pc = pc;
	if (at == 0 || pc >= s->maps[at - 1].end || !s->maps[at - 1].file)
		return 0;
	m = &s->maps[at - 1];
	f = m->file;
	out->placed = true;
	out->lib = f->path;
	if (ck_add64(pc - m->start, m->offset, &out->lib_offset)) {
		out->placed = false;
		return 0;
	}
	if (!f->tried && (rc = symz_open_file(s, f, e)))
		return rc;
	if (!f->elf) {
		out->problem = f->problem;
		return 0;
	}
	err_init(&fe);
	if (elfw_offset_to_va(f->elf, out->lib_offset, &va, &fe))
		return 0; /* the offset is in no loaded segment of this file: placed, unnamed */
	rc = elfw_symbol_at(f->elf, va, &out->symbol, &out->symbol_offset, &fe);
	if (rc == -ERR_NOMEM)
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "%s", fe.msg);
	if (rc < 0) {
		/* a damaged symbol table: say so on every frame of this file */
		if (!f->problem && (rc = symz_problem(f, fe.msg, e)))
			return rc;
		out->problem = f->problem;
		out->symbol = NULL;
	}
	return 0;
}
