/* mapfile.c - see mapfile.h. */
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
	memset(m, 0, sizeof(*m));
}

void mapfile_drop(const struct mapfile *m, const uint8_t *p, size_t n)
{
	static uintptr_t page;
	uintptr_t lo, hi;

	if (!m->data || p < m->data || p >= m->data + m->len)
		return;
	if (n > (size_t)(m->data + m->len - p))
		n = (size_t)(m->data + m->len - p);
	if (!page) {
		long ps = sysconf(_SC_PAGESIZE);
		page = ps > 0 ? (uintptr_t)ps : 4096;
	}
	lo = ((uintptr_t)p + page - 1) & ~(page - 1);
	hi = ((uintptr_t)p + n) & ~(page - 1);
	if (hi > lo)
		madvise((void *)lo, hi - lo, MADV_DONTNEED);   /* advice: nothing to do if refused */
}
