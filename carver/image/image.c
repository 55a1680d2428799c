/* image.c - process memory images (see image.h): region bookkeeping, lookups and reads,
 * name joining with a maps listing, and container detection.  The loaders live in
 * image_core.c (ELF cores) and image_dirs.c (directory containers). */
#include "carver/image/image.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "carver/base/bsearch.h"
#include "carver/base/ck.h"
#include "carver/image/image_int.h"
#include "carver/base/mapfile.h"
#include "carver/base/xalloc.h"

/* LiME range header magic (504ensicsLabs/LiME src/lime.h: LIME_MAGIC 0x4C694D45, "EMiL"
 * in little-endian file order). */
#define IMG_LIME_MAGIC 0x4C694D45u

void img_init_empty(struct image *img, const char *label)
{
	memset(img, 0, sizeof(*img));
	arena_init(&img->strings_);
	img->container = "memory";
	img->path = label ? img_strdup(img, label, strlen(label)) : "";
	if (!img->path) {
		img->path = "";
		img->label_nomem_ = true;
	}
	img->sorted_ = true;
	img->keep_ = img_keep_default();
}

/* IMG_KEEP_BYTES, or a quarter of the machine's memory when that is more: an image that fits
 * the page cache with room to spare gains nothing from releasing its pages (they stay cached,
 * and charged, either way), while each release costs the next pass a fault per 64 KiB. */
uint64_t img_keep_default(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
	uint64_t quarter = pages > 0 && page > 0 ? (uint64_t)pages / 4 * (uint64_t)page : 0;
	return quarter > IMG_KEEP_BYTES ? quarter : IMG_KEEP_BYTES;
}

void img_set_keep(struct image *img, uint64_t bytes) { img->keep_ = bytes; }

void img_close(struct image *img)
{
	for (size_t i = 0; i < img->file_count_; i++)
		mapfile_close(&img->files_[i]);
	xfree(img->files_);
	xfree(img->file_order_);
	xfree(img->reg_);
	xfree(img->thr_);
	xfree(img->listing_digest_);
	arena_release(&img->strings_);
	memset(img, 0, sizeof(*img));
}

const char *img_strdup(struct image *img, const char *s, size_t n)
{
	return arena_strndup(&img->strings_, s, n);
}

int img_begin(struct image *img, const char *container, const char *path, struct err *e)
{
	img_init_empty(img, NULL);
	img->container = container;
	img->path = img_strdup(img, path, strlen(path));
	if (!img->path)
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "%s: out of memory", path);
	img->sorted_ = false;
	return 0;
}

size_t img_input_count(const struct image *img)
{
	return img->file_count_ + (img->listing != NULL);
}

const char *img_input_path(const struct image *img, size_t i)
{
	if (i < img->file_count_)
		return img->files_[i].path;
	return i == img->file_count_ ? img->listing : NULL;
}

/* Where input file i's digest is remembered, NULL past the end. */
static struct sha256_memo *img_input_digest(const struct image *img, size_t i)
{
	if (i < img->file_count_)
		return &img->files_[i].digest;
	return i == img->file_count_ ? img->listing_digest_ : NULL;
}

void img_set_digest(struct image *img, enum sha256_kind kind) { img->digest_ = kind; }

int img_input_sha256(const struct image *img, size_t i, char out[SHA256_TEXT], uint64_t *size, struct err *e)
{
	const char *path = img_input_path(img, i);
	struct sha256_memo *m = img_input_digest(img, i);
	int rc;

	if (!path || !m)
		return ERR_SET(e, ERR_INTERNAL, ERR_NO_VA, "%s: no input file %zu", img->path, i);
	if ((rc = sha256_memo_file(m, path, img->digest_, NULL, 0, e)))
		return rc;
	sha256_text(img->digest_, m->digest, out);
	*size = m->size;
	return 0;
}

int img_sha256(const struct image *img, char out[SHA256_TEXT], struct err *e)
{
	struct sha256 all;
	uint8_t d[SHA256_DIGEST];
	uint64_t size;
	int rc;

	if (img->file_count_ == 0)
		return ERR_SET(e, ERR_INTERNAL, ERR_NO_VA, "%s: no input file to hash", img->path);
	if (img->file_count_ == 1)
		return img_input_sha256(img, 0, out, &size, e);
	sha256_init(&all);
	for (size_t i = 0; i < img->file_count_; i++) {
		char text[SHA256_TEXT];
		const char *path = img_input_path(img, i), *base = strrchr(path, '/');
		if ((rc = img_input_sha256(img, i, text, &size, e)))
			return rc;
		base = base ? base + 1 : path;
		sha256_update(&all, text, strlen(text));
		sha256_update(&all, "  ", 2);
		sha256_update(&all, base, strlen(base));
		sha256_update(&all, "\n", 1);
	}
	sha256_final(&all, d);
	sha256_text(img->digest_, d, out);
	return 0;
}

uint64_t img_inputs_bytes(const struct image *img)
{
	uint64_t n = 0;
	for (size_t i = 0; i < img->file_count_; i++)
		n += img->files_[i].len;
	return n;
}

int img_inputs_hash(const struct image *img, struct progress *p, struct err *e)
{
	uint64_t done = 0;
	for (size_t i = 0; i < img_input_count(img); i++) {
		int rc = sha256_memo_file(img_input_digest(img, i), img_input_path(img, i), img->digest_, p, done, e);
		if (rc)
			return rc;
		done += i < img->file_count_ ? img->files_[i].len : 0;   /* the listing is not counted */
		progress_to(p, done);
	}
	return 0;
}

void img_note_cut(struct image *img, uint64_t va, uint64_t lost, const char *fmt, ...)
{
	if (!lost)
		return;
	if (!img->cut_regions++) {
		va_list ap;
		img->cut_first_va = va;
		va_start(ap, fmt);
		vsnprintf(img->cut_first, sizeof(img->cut_first), fmt, ap);
		va_end(ap);
	}
	img->cut_bytes += lost;
}

int img_map_file(struct image *img, const char *path, const uint8_t **data, size_t *len, struct err *e)
{
	int rc;

	if (img->file_count_ == img->file_cap_) {
		size_t cap = img->file_cap_ ? img->file_cap_ * 2 : 8;
		struct mapfile *p = xreallocarray(img->files_, cap, sizeof(*p));
		if (!p)
			return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "%s: out of memory", path);
		img->files_ = p;
		img->file_cap_ = cap;
	}
	rc = mapfile_open(&img->files_[img->file_count_], path, e);
	if (rc)
		return rc;
	if (img->files_[img->file_count_].data) {
		/* kept in order of the mapped bytes' addresses, for img_file_of's binary search */
		size_t *o = xreallocarray(img->file_order_, img->file_order_count_ + 1, sizeof(*o));
		size_t at = img->file_order_count_;
		const uint8_t *p = img->files_[img->file_count_].data;
		if (!o) {
			mapfile_close(&img->files_[img->file_count_]);
			return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "%s: out of memory", path);
		}
		img->file_order_ = o;
		while (at > 0 && (uintptr_t)img->files_[o[at - 1]].data > (uintptr_t)p) {
			o[at] = o[at - 1];
			at--;
		}
		o[at] = img->file_count_;
		img->file_order_count_++;
		img->file_data_ += img->files_[img->file_count_].data_bytes;
	}
	*data = img->files_[img->file_count_].data;
	*len = img->files_[img->file_count_].len;
	img->file_count_++;
	return 0;
}

static int img_grow(struct image *img, struct err *e)
{
	size_t cap;
	struct img_region *p;

	if (img->region_count < img->reg_cap_)
		return 0;
	cap = img->reg_cap_ ? img->reg_cap_ * 2 : 64;
	p = xreallocarray(img->reg_, cap, sizeof(*p));
	if (!p)
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "%s: out of memory for %zu regions", img->path, cap);
	img->reg_ = p;
	img->reg_cap_ = cap;
	img->regions = p;
	return 0;
}

int img_push(struct image *img, uint64_t start, uint64_t end, uint32_t prot, const char *name,
	     uint64_t file_offset, const uint8_t *data, size_t data_len, struct err *e)
{
	struct img_region *r;
	int rc;

	if (end <= start || data_len > end - start)
		return ERR_SET(e, ERR_INTERNAL, start, "%s: bad region 0x%llx-0x%llx with %zu bytes", img->path,
			       (unsigned long long)start, (unsigned long long)end, data_len);
	if ((rc = img_grow(img, e)))
		return rc;
	r = &img->reg_[img->region_count];
	r->start = start;
	r->end = end;
	r->prot = prot;
	r->name = name ? img_strdup(img, name, strlen(name)) : "";
	if (!r->name)
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "%s: out of memory", img->path);
	r->file_offset = file_offset;
	r->data = data_len ? data : NULL;
	r->data_len = data ? data_len : 0;
	img->region_count++;
	return 0;
}

static int img_cmp_start(const void *a, const void *b)
{
	const struct img_region *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

static int img_check_overlaps(const struct image *img, struct err *e)
{
	for (size_t i = 1; i < img->region_count; i++) {
		const struct img_region *p = &img->reg_[i - 1], *r = &img->reg_[i];
		if (r->start < p->end)
			return ERR_SET(e, ERR_CORRUPT, r->start,
				       "%s: regions 0x%llx-0x%llx and 0x%llx-0x%llx overlap", img->path,
				       (unsigned long long)p->start, (unsigned long long)p->end,
				       (unsigned long long)r->start, (unsigned long long)r->end);
	}
	return 0;
}

static size_t img_lower(const struct image *img, uint64_t va);

int img_add_region_mem(struct image *img, uint64_t va, const uint8_t *data, size_t len,
		       uint32_t prot, const char *name, struct err *e)
{
	uint64_t end;
	size_t at, last;
	int rc;

	if (img->label_nomem_)
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory for the image's label");
	if (len == 0 || ck_add64(va, len, &end))
		return ERR_SET(e, ERR_CORRUPT, va, "%s: region at 0x%llx of %zu bytes is empty or wraps",
			       img->path, (unsigned long long)va, len);
	/* the regions are sorted and disjoint: only the first one ending above va can overlap */
	at = img_lower(img, va);
	if (at < img->region_count && img->reg_[at].start < end)
		return ERR_SET(e, ERR_CORRUPT, va, "%s: region 0x%llx-0x%llx overlaps 0x%llx-0x%llx",
			       img->path, (unsigned long long)va, (unsigned long long)end,
			       (unsigned long long)img->reg_[at].start, (unsigned long long)img->reg_[at].end);
	rc = img_push(img, va, end, prot & 7, name, 0, data, len, e);
	if (rc)
		return rc;
	/* moved into place rather than re-sorting the whole array on every addition */
	last = img->region_count - 1;
	if (at < last) {
		struct img_region r = img->reg_[last];
		memmove(&img->reg_[at + 1], &img->reg_[at], (last - at) * sizeof(r));
		img->reg_[at] = r;
	}
	return 0;
}

int img_add_file(struct image *img, const char *path, uint64_t va, uint32_t prot, const char *name,
		 struct cursor *whole, struct err *e)
{
	const uint8_t *data;
	size_t len;
	int rc;

	if ((rc = img_map_file(img, path, &data, &len, e)))
		return rc;
	cur_init(whole, NULL, 0, va);
	if (len == 0)
		return 0;
	if ((rc = img_add_region_mem(img, va, data, len, prot, name ? name : path, e)))
		return strcmp(img->path, path) ? err_prefix(e, "%s", path) : rc;
	return img_view(img, va, len, whole, e);
}

int img_from_file(struct image *img, const char *path, uint64_t va, struct cursor *whole, struct err *e)
{
	int rc;

	img_init_empty(img, path);
	img->container = "file";
	if (!img->path[0] && path[0])
		rc = ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "%s: out of memory", path);
	else
		rc = img_add_file(img, path, va, IMG_PROT_R, NULL, whole, e);
	if (rc)
		img_close(img);
	return rc;
}

/* ---- lookups ---- */

static uint64_t region_end(const void *v, size_t i) { return ((const struct img_region *)v)[i].end; }

/* Index of the first region whose end is above va (region_count if none). */
static size_t img_lower(const struct image *img, uint64_t va)
{
	return bs_upper(img->regions, img->region_count, region_end, va);
}

static const struct mapfile *img_file_of(const struct image *img, const uint8_t *p);

void img_drop(const struct image *img, uint64_t lo, uint64_t hi)
{
	/* regions whose bytes abut in one file are released by one madvise: a whole-process core
	 * has hundreds of segments, and one call each per pass was most of a carve's system time */
	const struct mapfile *run_file = NULL;
	const uint8_t *run = NULL;
	size_t run_len = 0;

	if (img->file_data_ <= img->keep_)
		return;
	for (size_t i = img_lower(img, lo); i < img->region_count && img->regions[i].start < hi; i++) {
		const struct img_region *r = &img->regions[i];
		uint64_t a = lo > r->start ? lo - r->start : 0;
		uint64_t b = hi - r->start < r->data_len ? hi - r->start : r->data_len;
		const struct mapfile *f;
		if (!r->data || b <= a || !(f = img_file_of(img, r->data + a)))
			continue;   /* bytes held in memory are never released */
		if (f == run_file && r->data + a == run + run_len) {
			run_len += (size_t)(b - a);
			continue;
		}
		if (run_file)
			mapfile_drop(run_file, run, run_len);
		run_file = f;
		run = r->data + a;
		run_len = (size_t)(b - a);
	}
	if (run_file)
		mapfile_drop(run_file, run, run_len);
}

void img_drop_behind(const struct image *img, struct img_drop *d, uint64_t va)
{
	if (va < d->from) {   /* a new pass began below the last one */
		d->from = va;
		return;
	}
	if (va - d->from < IMG_DROP_STEP)
		return;
	img_drop(img, d->from, va);
	d->from = va;
}

bool img_overlaps(const struct image *img, uint64_t start, uint64_t end)
{
	size_t at = img_lower(img, start);
	return start < end && at < img->region_count && img->regions[at].start < end;
}

/* Readers go through the heap in address order, so the region of the calling thread's
 * previous lookup is checked first: one cache per thread (carve's output writers read one
 * image at once), checked against the regions, so a stale one only costs the search. */
static _Thread_local const struct image *img_hint_of;
static _Thread_local size_t img_hint;

const struct img_region *img_find(const struct image *img, uint64_t va)
{
	size_t i = img_hint;
	if (img_hint_of == img && i < img->region_count && img->regions[i].start <= va && va < img->regions[i].end)
		return &img->regions[i];
	i = img_lower(img, va);
	if (i < img->region_count && img->regions[i].start <= va) {
		img_hint_of = img;
		img_hint = i;
		return &img->regions[i];
	}
	return NULL;
}

static int img_unmapped(const struct image *img, uint64_t va, size_t len, uint64_t at, struct err *e)
{
	const struct img_region *r = img_find(img, at);
	return ERR_SET(e, ERR_UNMAPPED, at, "%s: 0x%llx (reading %zu bytes at 0x%llx) is %s", img->path,
		       (unsigned long long)at, len, (unsigned long long)va,
		       r ? "mapped but not captured" : "not mapped");
}

int img_view(const struct image *img, uint64_t va, size_t len, struct cursor *out, struct err *e)
{
	const struct img_region *r = img_find(img, va);
	uint64_t off;

	if (!r || va - r->start >= r->data_len)
		return img_unmapped(img, va, len, va, e);
	off = va - r->start;
	if (len > r->data_len - off)
		return img_unmapped(img, va, len, r->start + r->data_len, e);
	cur_init(out, r->data + off, len, va);
	return 0;
}

const uint8_t *img_span(const struct image *img, uint64_t va, size_t n, size_t *rest)
{
	const struct img_region *r = img_find(img, va);
	bool held = r && r->data && va - r->start <= r->data_len && n <= r->data_len - (va - r->start);
	if (rest)
		*rest = held ? r->data_len - (size_t)(va - r->start) : 0;
	return held ? r->data + (va - r->start) : NULL;
}

/* Copies [va, va+len) region by region; false with *gap = the first byte not captured. */
static bool img_copy(const struct image *img, uint64_t va, uint8_t *dst, size_t len, uint64_t *gap)
{
	uint64_t at = va;
	size_t done = 0;

	if (len && ck_add64(va, len - 1, &(uint64_t){ 0 })) {
		*gap = UINT64_MAX;
		return false;
	}
	/* each step copies from one region and moves to the next; at most region_count steps */
	while (done < len) {
		const struct img_region *r = img_find(img, at);
		uint64_t off;
		size_t n;

		if (!r || at - r->start >= r->data_len) {
			*gap = at;
			return false;
		}
		off = at - r->start;
		n = r->data_len - (size_t)off;
		if (n > len - done)
			n = len - done;
		memcpy(dst + done, r->data + off, n);
		done += n;
		at += n;
	}
	return true;
}

int img_read(const struct image *img, uint64_t va, void *buf, size_t len, struct err *e)
{
	uint64_t gap;

	if (!img_copy(img, va, buf, len, &gap))
		return img_unmapped(img, va, len, gap, e);
	return 0;
}

bool img_peek(const struct image *img, uint64_t va, void *buf, size_t len)
{
	uint64_t gap;

	return img_copy(img, va, buf, len, &gap);
}

/* ---- holes ---- */

/* The mapped input file whose bytes hold p, NULL when p is not in one (bytes in memory). */
static const struct mapfile *img_file_of(const struct image *img, const uint8_t *p)
{
	size_t lo = 0, hi = img->file_order_count_;
	uintptr_t a = (uintptr_t)p;

	while (lo < hi) {   /* the last file whose bytes start at or below p */
		size_t mid = lo + (hi - lo) / 2;
		if ((uintptr_t)img->files_[img->file_order_[mid]].data <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	const struct mapfile *f = &img->files_[img->file_order_[lo - 1]];
	return a - (uintptr_t)f->data < f->len ? f : NULL;
}

bool img_file_position(const struct image *img, uint64_t va, size_t *input, uint64_t *offset)
{
	const struct img_region *r = img_find(img, va);
	const struct mapfile *f;

	if (!r || !r->data || va - r->start >= r->data_len || !(f = img_file_of(img, r->data)))
		return false;
	*input = (size_t)(f - img->files_);
	*offset = (uint64_t)(r->data - f->data) + (va - r->start);
	return true;
}

bool img_next_data(const struct image *img, uint64_t va, uint64_t end, uint64_t *lo, uint64_t *hi)
{
	for (size_t i = img_lower(img, va); i < img->region_count && img->regions[i].start < end; i++) {
		const struct img_region *r = &img->regions[i];
		uint64_t a = va > r->start ? va - r->start : 0;   /* offsets in the region */
		uint64_t b = end - r->start < r->data_len ? end - r->start : r->data_len;
		const struct mapfile *f;
		uint64_t base, d, de;

		if (!r->data || a >= b)
			continue;
		f = img_file_of(img, r->data);
		if (!f) {
			*lo = r->start + a;
			*hi = r->start + b;
			return true;
		}
		base = (uint64_t)(r->data - f->data);   /* the region's bytes in the file */
		if (r->data_len > f->len - base)        /* cannot happen: loaders map inside a file */
			b = f->len - base < a ? a : f->len - base;
		d = mapfile_next_data(f, base + a, base + b, &de);
		if (d >= base + b)
			continue;
		*lo = r->start + (d - base);
		*hi = r->start + (de - base);
		return true;
	}
	return false;
}

bool img_is_hole(const struct image *img, uint64_t va, uint64_t len)
{
	uint64_t end, at = va, lo, hi;

	if (len == 0 || ck_add64(va, len, &end))
		return false;
	/* every byte captured: regions abut without gaps, each captured to its end but the last */
	while (at < end) {
		const struct img_region *r = img_find(img, at);
		if (!r || at - r->start >= r->data_len)
			return false;
		at = r->start + r->data_len;
		if (at < end && at < r->end)
			return false;
	}
	return !img_next_data(img, va, end, &lo, &hi);
}

bool img_zero(const struct image *img, uint64_t va, uint64_t len)
{
	uint64_t end, lo, hi;

	if (ck_add64(va, len, &end))
		end = UINT64_MAX;
	/* each step checks one data run and moves past it */
	while (va < end && img_next_data(img, va, end, &lo, &hi)) {
		const struct img_region *r = img_find(img, lo);
		const uint8_t *p = r->data + (lo - r->start);
		size_t n = (size_t)(hi - lo), i = 0;
		uint64_t acc = 0;
		for (; i + 8 <= n; i += 8) {
			uint64_t w;
			memcpy(&w, p + i, 8);
			acc |= w;
			if (acc)
				return false;
		}
		for (; i < n; i++)
			acc |= p[i];
		if (acc)
			return false;
		va = hi;
	}
	return true;
}

uint64_t img_data_bytes(const struct image *img)
{
	uint64_t n = 0, va = 0, lo, hi;

	/* each run found moves past it: bounded by the runs of the files and the regions */
	while (img->region_count && img_next_data(img, va, UINT64_MAX, &lo, &hi)) {
		n += hi - lo;
		va = hi;
	}
	return n;
}

/* Sum of data_len over all regions, and of (end - start). */
uint64_t img_captured_bytes(const struct image *img)
{
	uint64_t n = 0;
	for (size_t i = 0; i < img->region_count; i++)
		n += img->regions[i].data_len;
	return n;
}

uint64_t img_mapped_bytes(const struct image *img)
{
	uint64_t n = 0;
	for (size_t i = 0; i < img->region_count; i++)
		n += img->regions[i].end - img->regions[i].start;
	return n;
}

const char *img_prot_text(uint32_t prot, char buf[4])
{
	buf[0] = prot & IMG_PROT_R ? 'r' : '-';
	buf[1] = prot & IMG_PROT_W ? 'w' : '-';
	buf[2] = prot & IMG_PROT_X ? 'x' : '-';
	buf[3] = '\0';
	return buf;
}

/* ---- joining with a maps listing ---- */

static int img_cmp_entry(const void *a, const void *b)
{
	const struct maps_entry *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end < y->end ? -1 : x->end > y->end;
}

/* The listing sorted by start with overlaps clipped away (a hostile or merged listing must
 * not produce overlapping regions).  *out is freed by the caller. */
static int img_sorted_lines(const struct maps *m, struct maps_entry **out, size_t *count, struct err *e)
{
	struct maps_entry *v;
	size_t n = 0;

	*out = NULL;
	*count = 0;
	if (!m || m->count == 0)
		return 0;
	v = xreallocarray(NULL, m->count, sizeof(*v));
	if (!v)
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "maps: out of memory for %zu lines", m->count);
	memcpy(v, m->entries, m->count * sizeof(*v));
	qsort(v, m->count, sizeof(*v), img_cmp_entry);
	for (size_t i = 0; i < m->count; i++) {
		struct maps_entry l = v[i];
		if (n && l.start < v[n - 1].end) {
			if (l.end <= v[n - 1].end)
				continue;
			l.offset += v[n - 1].end - l.start;
			l.start = v[n - 1].end;
		}
		v[n++] = l;
	}
	*out = v;
	*count = n;
	return 0;
}

static uint64_t line_end(const void *v, size_t i) { return ((const struct maps_entry *)v)[i].end; }

/* First line whose end is above va. */
static size_t img_line_lower(const struct maps_entry *v, size_t n, uint64_t va)
{
	return bs_upper(v, n, line_end, va);
}

static uint32_t img_resolve_prot(uint32_t prot, const struct maps_entry *l)
{
	if (!(prot & IMG_PROT_UNKNOWN))
		return prot;
	return l ? l->prot : IMG_PROT_R;
}

/* Cuts captured region r at the listing's line boundaries into img (names from the lines). */
static int img_split_region(struct image *img, const struct img_region *r, const struct maps_entry *v,
			    size_t n, struct err *e)
{
	uint64_t pos = r->start;
	size_t li = img_line_lower(v, n, pos);

	/* each step ends at a line boundary or r->end, so pos strictly advances */
	while (pos < r->end) {
		const struct maps_entry *l = li < n && v[li].start <= pos ? &v[li] : NULL;
		uint64_t end = r->end, off = pos - r->start, fofs;
		const uint8_t *data = NULL;
		size_t dlen = 0;
		int rc;

		if (l && l->end < end)
			end = l->end;
		else if (!l && li < n && v[li].start < end)
			end = v[li].start;
		if (off < r->data_len) {
			data = r->data + off;
			dlen = r->data_len - (size_t)off;
			if (dlen > end - pos)
				dlen = (size_t)(end - pos);
		}
		fofs = l ? l->offset + (pos - l->start) : r->file_offset + off;
		rc = img_push(img, pos, end, img_resolve_prot(r->prot, l), l && l->name[0] ? l->name : r->name,
			      fofs, data, dlen, e);
		if (rc)
			return rc;
		if (l && end == l->end)
			li++;
		pos = end;
	}
	return 0;
}

/* Adds the parts of line l that no captured region (caps[0, nc), sorted) covers. */
static int img_add_uncaptured(struct image *img, const struct maps_entry *l, const struct img_region *caps,
			      size_t nc, struct err *e)
{
	uint64_t pos = l->start;
	size_t lo = bs_upper(caps, nc, region_end, pos);   /* the first capture ending past pos */

	while (pos < l->end) {
		const struct img_region *c = lo < nc ? &caps[lo] : NULL;
		if (c && c->start <= pos) {
			pos = c->end;
			lo++;
			continue;
		}
		uint64_t end = c && c->start < l->end ? c->start : l->end;
		int rc = img_push(img, pos, end, l->prot, l->name, l->offset + (pos - l->start), NULL, 0, e);
		if (rc)
			return rc;
		pos = end;
	}
	return 0;
}

int img_finish(struct image *img, const struct maps *m, struct err *e)
{
	struct maps_entry *v = NULL;
	struct img_region *caps;
	size_t nc = img->region_count, nv = 0;
	int rc;

	if (nc > 1)
		qsort(img->reg_, nc, sizeof(*img->reg_), img_cmp_start);
	if ((rc = img_check_overlaps(img, e)))
		return rc;
	if ((rc = img_sorted_lines(m, &v, &nv, e)))
		return rc;
	/* rebuild the region array from the captured regions plus the listing */
	caps = img->reg_;
	img->reg_ = NULL;
	img->regions = NULL;
	img->region_count = 0;
	img->reg_cap_ = 0;
	for (size_t i = 0; i < nc && rc == 0; i++)
		rc = img_split_region(img, &caps[i], v, nv, e);
	for (size_t i = 0; i < nv && rc == 0; i++)
		rc = img_add_uncaptured(img, &v[i], caps, nc, e);
	xfree(caps);
	xfree(v);
	if (rc)
		return rc;
	if (img->region_count > 1)
		qsort(img->reg_, img->region_count, sizeof(*img->reg_), img_cmp_start);
	img->regions = img->reg_;
	img->sorted_ = true;
	return img_check_overlaps(img, e);
}

/* ---- container detection ---- */

static bool img_file_exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Message for a regular file that is not an ELF core. */
static int img_reject_file(const char *path, const uint8_t *p, size_t len, struct err *e)
{
	if (len >= 4 && ld_u32le(p) == IMG_LIME_MAGIC)
		return ERR_SET(e, ERR_UNSUP, 0,
			       "%s: a LiME physical memory image, not a process image; extract the process first "
			       "(Volatility 2 linux_dump_map -p PID -D DIR, or Volatility 3 linux.proc.Maps --pid PID --dump) "
			       "and give artcarve that directory", path);
	return ERR_SET(e, ERR_UNSUP, 0,
		       "%s: unknown image format (expected an ELF core file, or a directory of maps + region files, "
		       "memfetch or Volatility output)", path);
}

static int img_open_file(struct image *img, const char *path, struct err *e)
{
	struct mapfile f;
	int rc = mapfile_open(&f, path, e);
	bool elf;

	if (rc)
		return rc;
	elf = f.len >= 4 && !memcmp(f.data, "\177ELF", 4);
	if (!elf) {
		rc = img_reject_file(path, f.data, f.len, e);
		mapfile_close(&f);
		return rc;
	}
	mapfile_close(&f);
	if ((rc = img_begin(img, "elf-core", path, e)))
		return rc;
	return img_load_core(img, path, e);
}

static int img_open_dir(struct image *img, const char *path, struct err *e)
{
	static const char *const names[] = { "maps-dir", "memfetch", "volatility2", "volatility3" };
	bool hit[4];
	unsigned n = 0, which = 0;
	int rc;

	hit[0] = img_is_maps_dir(path);
	hit[1] = img_is_memfetch(path);
	hit[2] = img_is_volatility(path, 2);
	hit[3] = img_is_volatility(path, 3);
	for (unsigned i = 0; i < 4; i++)
		if (hit[i]) {
			n++;
			which = i;
		}
	if (n == 0)
		return ERR_SET(e, ERR_UNSUP, ERR_NO_VA,
			       "%s: directory holds no known image (maps + START-END.bin files, memfetch mfetch.lst, "
			       "Volatility task.PID.0xSTART.vma or pid.PID.vma.0xS-0xE.dmp files)", path);
	if (n > 1) {
		char list[128] = "";
		for (unsigned i = 0; i < 4; i++)
			if (hit[i]) {
				strcat(list, list[0] ? ", " : "");
				strcat(list, names[i]);
			}
		return ERR_SET(e, ERR_UNSUP, ERR_NO_VA, "%s: ambiguous directory: looks like %s; keep one dump per directory",
			       path, list);
	}
	if ((rc = img_begin(img, names[which], path, e)))
		return rc;
	switch (which) {
	case 0: return img_load_maps_dir(img, path, e);
	case 1: return img_load_memfetch(img, path, e);
	default: return img_load_volatility(img, path, which == 2 ? 2 : 3, e);
	}
}

/* Listing to join: --maps, else the directory's own `maps` / `maps.txt` if any; its path is
 * kept in img->listing (an input file as much as the mapped ones). */
static int img_listing(struct image *img, const char *path, const struct img_open_opts *opts,
		       struct maps *m, bool *have, struct err *e)
{
	static const char *const own[] = { "maps", "maps.txt" };
	char buf[4096];
	const char *found = NULL;

	*have = false;
	if (opts && opts->maps_path) {
		found = opts->maps_path;
	} else if (strcmp(img->container, "elf-core")) {
		for (size_t i = 0; i < 2 && !found; i++) {
			if ((size_t)snprintf(buf, sizeof(buf), "%s/%s", path, own[i]) >= sizeof(buf))
				return ERR_SET(e, ERR_IO, ERR_NO_VA, "%s: path too long", path);
			if (img_file_exists(buf))
				found = buf;
		}
	}
	if (!found)
		return 0;
	*have = true;
	if (!(img->listing = img_strdup(img, found, strlen(found))) ||
	    !(img->listing_digest_ = xcalloc(1, sizeof(*img->listing_digest_))))
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "%s: out of memory", found);
	return maps_load(m, found, e);
}

int img_open(struct image *img, const char *path, const struct img_open_opts *opts, struct err *e)
{
	const char *base = strrchr(path, '/');
	struct maps m;
	struct stat st;
	bool have = false;
	int rc;

	memset(img, 0, sizeof(*img));
	maps_init(&m);
	if (stat(path, &st) != 0)
		return ERR_SET(e, ERR_IO, ERR_NO_VA, "%s: cannot open: %s", path, strerror(errno));
	if (S_ISDIR(st.st_mode))
		rc = img_open_dir(img, path, e);
	else if (!strcmp(base ? base + 1 : path, "mfetch.lst"))
		rc = ERR_SET(e, ERR_UNSUP, ERR_NO_VA, "%s: give the directory that holds mfetch.lst, not the file", path);
	else
		rc = img_open_file(img, path, e);
	if (rc == 0)
		rc = img_listing(img, path, opts, &m, &have, e);
	if (rc == 0)
		rc = img_finish(img, have ? &m : NULL, e);
	maps_release(&m);
	if (rc)
		img_close(img);
	return rc;
}
