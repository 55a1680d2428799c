/* image_hold.c - img_hold (see image.h): the heap's captured bytes copied once into
 * anonymous memory.  A mapped core costs a minor page fault per 64 KiB of file pages read
 * (the kernel's fault-around), again after every img_drop; issue 24 measured ~15,700 faults
 * per 100 MB of heap.  Anonymous memory advised MADV_HUGEPAGE takes one per 2 MiB. */
#define _GNU_SOURCE   /* MADV_HUGEPAGE */
#include "carver/image/image_int.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "carver/base/mapfile.h"
#include "carver/base/xalloc.h"

enum { IMG_HOLD_ALIGN = 2 << 20 };   /* a transparent huge page (x86_64, arm64 with 4 KiB pages) */

struct img_held {
	uint8_t *copy;            /* IMG_HOLD_ALIGN-aligned, the region's data_len bytes */
	const uint8_t *origin;    /* the mapped file bytes it copies */
	size_t len;
	void *map;                /* the anonymous mapping around copy (munmap) */
	size_t map_len;
};

const uint8_t *img_origin(const struct image *img, const uint8_t *data)
{
	for (size_t i = 0; i < img->held_count_; i++)
		if (img->held_[i].copy == data)
			return img->held_[i].origin;
	return data;
}

void img_held_release(struct image *img)
{
	for (size_t i = 0; i < img->held_count_; i++)
		munmap(img->held_[i].map, img->held_[i].map_len);
	xfree(img->held_);
	img->held_ = NULL;
	img->held_count_ = img->held_cap_ = 0;
	img->held_bytes_ = 0;
}

/* Bytes the held copies may take in all: a share of the physical memory. */
static uint64_t img_hold_budget(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
	if (pages <= 0 || size <= 0)
		return 0;
	return (uint64_t)pages / IMG_HOLD_SHARE * (uint64_t)size;
}

/* Anonymous memory of len bytes starting on an IMG_HOLD_ALIGN boundary, advised huge. */
static bool img_hold_map(struct img_held *h, size_t len)
{
	size_t map_len = len + IMG_HOLD_ALIGN;
	uint8_t *p;

	if (map_len < len)
		return false;
	p = mmap(NULL, map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return false;
	h->map = p;
	h->map_len = map_len;
	h->copy = (uint8_t *)(((uintptr_t)p + IMG_HOLD_ALIGN - 1) & ~(uintptr_t)(IMG_HOLD_ALIGN - 1));
	h->len = len;
	madvise(h->copy, len, MADV_HUGEPAGE);   /* advice: 4 KiB pages if refused */
	return true;
}

/* The data runs of [off, off + h->len) of file f into h->copy with pread on fd; the holes
 * are left as they are (zero).  False when a read fails or comes short. */
static bool img_hold_read(struct img_held *h, const struct mapfile *f, int fd, uint64_t off)
{
	uint64_t at = off, end = off + h->len, run_end;

	/* each step reads one data run, or part of it, and moves past it */
	while ((at = mapfile_next_data(f, at, end, &run_end)) < end) {
		ssize_t got = pread(fd, h->copy + (at - off), (size_t)(run_end - at), (off_t)at);
		if (got <= 0) {
			if (got < 0 && errno == EINTR)
				continue;
			return false;
		}
		at += (uint64_t)got;
	}
	return true;
}

/* Region i's bytes into a held copy; false (the region unchanged) when it cannot be made. */
static bool img_hold_region(struct image *img, size_t i, struct img_held *h)
{
	struct img_region *r = &img->reg_[i];
	const struct mapfile *f = img_file_of(img, r->data);
	struct stat st;
	bool ok;
	int fd;

	if (!f || r->data_len > f->len - (size_t)(r->data - f->data) || !img_hold_map(h, r->data_len))
		return false;
	/* the file is read again by its path: the same file (size) or nothing is held */
	fd = open(f->path, O_RDONLY | O_CLOEXEC);
	ok = fd >= 0 && fstat(fd, &st) == 0 && (uint64_t)st.st_size == f->len &&
	     img_hold_read(h, f, fd, (uint64_t)(r->data - f->data));
	if (fd >= 0)
		close(fd);
	if (!ok) {
		munmap(h->map, h->map_len);
		return false;
	}
	h->origin = r->data;
	r->data = h->copy;
	return true;
}

int img_hold(struct image *img, uint64_t lo, uint64_t hi, struct err *e)
{
	uint64_t budget = img_hold_budget();

	for (size_t i = 0; i < img->region_count && img->reg_[i].start < hi; i++) {
		struct img_region *r = &img->reg_[i];
		struct img_held h;
		if (r->end <= lo || !r->data || img->held_bytes_ > budget ||
		    r->data_len > budget - img->held_bytes_ || img_origin(img, r->data) != r->data)
			continue;   /* nothing captured, over the budget, or held already */
		if (XALLOC_GROW(img->held_, img->held_cap_, img->held_count_ + 1, 8))
			return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "%s: out of memory", img->path);
		if (!img_hold_region(img, i, &h))
			continue;
		img->held_[img->held_count_++] = h;
		img->held_bytes_ += h.len;
	}
	return 0;
}
