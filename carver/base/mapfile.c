/* mapfile.c - see mapfile.h. */
#define _GNU_SOURCE   /* SEEK_DATA, SEEK_HOLE */
#include "carver/base/mapfile.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "carver/base/xalloc.h"

int mapfile_open(struct mapfile *m, const char *path, struct err *e)
{
	struct stat st;
	int fd;
	void *p;

	memset(m, 0, sizeof(*m));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return ERR_SET(e, ERR_IO, ERR_NO_VA, "%s: cannot open: %s", path, strerror(errno));
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return ERR_SET(e, ERR_IO, ERR_NO_VA, "%s: not a regular file", path);
	}
	m->path = xmalloc(strlen(path) + 1);
	if (!m->path) {
		close(fd);
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "%s: out of memory", path);
	}
	strcpy(m->path, path);
	if (st.st_size > 0) {
		int rc = mapfile_find_extents(fd, (uint64_t)st.st_size, true, &m->ext, &m->ext_count, e);
		if (rc) {
			close(fd);
			mapfile_close(m);
			return err_prefix(e, "%s", path);
		}
		for (size_t i = 0; i < m->ext_count; i++)
			m->data_bytes += m->ext[i].end - m->ext[i].off;
		p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p == MAP_FAILED) {
			int saved = errno;
			close(fd);
			mapfile_close(m);
			return ERR_SET(e, ERR_IO, ERR_NO_VA, "%s: cannot map: %s", path, strerror(saved));
		}
		madvise(p, (size_t)st.st_size, MADV_SEQUENTIAL);
		m->data = p;
		m->len = (size_t)st.st_size;
	}
	close(fd);
	return 0;
}

void mapfile_close(struct mapfile *m)
{
	if (m->data)
		munmap((void *)m->data, m->len);
	xfree(m->path);
	xfree(m->ext);
	memset(m, 0, sizeof(*m));
}

void mapfile_drop(const struct mapfile *m, const uint8_t *p, size_t n)
{
	long ps = sysconf(_SC_PAGESIZE);   /* each time: output writers call this at once */
	uintptr_t page = ps > 0 ? (uintptr_t)ps : 4096, lo, hi;

	if (!m->data || p < m->data || p >= m->data + m->len)
		return;
	if (n > (size_t)(m->data + m->len - p))
		n = (size_t)(m->data + m->len - p);
	lo = ((uintptr_t)p + page - 1) & ~(page - 1);
	hi = ((uintptr_t)p + n) & ~(page - 1);
	if (hi > lo)
		madvise((void *)lo, hi - lo, MADV_DONTNEED);   /* advice: nothing to do if refused */
}

static int mapfile_push(struct mapfile_extent **v, size_t *n, size_t *cap, uint64_t off, uint64_t end,
			struct err *e)
{
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 16;
		struct mapfile_extent *p = xreallocarray(*v, c, sizeof(*p));
		if (!p)
			return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory for %zu data runs", c);
		*v = p;
		*cap = c;
	}
	(*v)[*n].off = off;
	(*v)[*n].end = end;
	(*n)++;
	return 0;
}

int mapfile_find_extents(int fd, uint64_t size, bool seek, struct mapfile_extent **v, size_t *n,
			 struct err *e)
{
	size_t cap = 0;
	uint64_t at = 0;
	int rc;

	*v = NULL;
	*n = 0;
	if (size == 0)
		return 0;
	if (size > (uint64_t)INT64_MAX)
		seek = false;
	/* each step finds one data run and moves past it: at most MAPFILE_MAX_EXTENTS steps */
	while (seek && at < size) {
		off_t d = lseek(fd, (off_t)at, SEEK_DATA), h;
		if (d < 0) {
			if (errno == ENXIO)   /* no data from at to the end: a hole */
				break;
			seek = false;         /* SEEK_DATA unsupported (EINVAL) or failing: all data */
			break;
		}
		if ((uint64_t)d >= size)
			break;
		h = lseek(fd, d, SEEK_HOLE);
		if (h < 0 || h <= d) {
			seek = false;
			break;
		}
		if ((uint64_t)h > size)
			h = (off_t)size;
		if (*n == MAPFILE_MAX_EXTENTS - 1)   /* too many runs: the rest counts as data */
			h = (off_t)size;
		if ((rc = mapfile_push(v, n, &cap, (uint64_t)d, (uint64_t)h, e)))
			goto fail;
		at = (uint64_t)h;
	}
	if (!seek) {   /* the file system cannot tell (or failed): everything is data */
		*n = 0;
		if ((rc = mapfile_push(v, n, &cap, 0, size, e)))
			goto fail;
	}
	return 0;
fail:
	xfree(*v);
	*v = NULL;
	*n = 0;
	return rc;
}

uint64_t mapfile_next_data(const struct mapfile *m, uint64_t off, uint64_t end, uint64_t *run_end)
{
	size_t lo = 0, hi = m->ext_count;

	*run_end = end;
	if (off >= end)
		return end;
	/* the first run ending above off (binary search: runs are sorted and disjoint) */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->ext[mid].end <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == m->ext_count || m->ext[lo].off >= end)
		return end;
	if (m->ext[lo].end < end)
		*run_end = m->ext[lo].end;
	return m->ext[lo].off > off ? m->ext[lo].off : off;
}
