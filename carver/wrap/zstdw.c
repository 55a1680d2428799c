/* zstdw.c - see zstdw.h. */
#include "carver/wrap/zstdw.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zstd.h>

#include "carver/base/ck.h"
#include "carver/base/cursor.h"
#include "carver/base/xalloc.h"

#define ZSTDW_MAGIC 0xFD2FB528u
#define ZSTDW_SKIP_MAGIC 0x184D2A50u    /* low 4 bits are free (RFC 8878 3.1.2) */

bool zstdw_probe(const uint8_t *data, size_t len)
{
	uint32_t m;

	if (!data || len < 4)
		return false;
	m = ld_u32le(data);
	return m == ZSTDW_MAGIC || (m & 0xFFFFFFF0u) == ZSTDW_SKIP_MAGIC;
}

/* An unlinked temporary file: nothing is left behind whatever happens next. */
static int zstdw_tempfile(const char *label, struct err *e)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];
	int fd;

	if (!dir || !*dir)
		dir = "/tmp";
	if ((size_t)snprintf(path, sizeof(path), "%s/artcarve-zstd.XXXXXX", dir) >= sizeof(path))
		return ERR_SET(e, ERR_IO, ERR_NO_VA, "%s: temporary directory name too long", label);
	fd = mkstemp(path);
	if (fd < 0)
		return ERR_SET(e, ERR_IO, ERR_NO_VA, "%s: cannot create a temporary file in %s: %s", label, dir,
			       strerror(errno));
	unlink(path);
	return fd;
}

static int zstdw_write_all(int fd, const uint8_t *p, size_t n, const char *label, struct err *e)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return ERR_SET(e, ERR_IO, ERR_NO_VA, "%s: cannot write the decompressed data: %s", label,
				       w < 0 ? strerror(errno) : "short write");
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Streams every frame of in into fd; *total = bytes written.  Each turn consumes input or
 * produces output (else it stops), and output is capped by max_out, so the loop ends. */
static int zstdw_stream(const uint8_t *in, size_t len, int fd, uint64_t max_out, const char *label,
			uint64_t *total, struct err *e)
{
	ZSTD_DStream *ds = ZSTD_createDStream();
	size_t cap = ZSTD_DStreamOutSize(), ret = 0;
	uint8_t *buf = xmalloc(cap);
	ZSTD_inBuffer ib = { in, len, 0 };
	int rc = 0;

	*total = 0;
	if (!ds || !buf) {
		rc = ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "%s: out of memory for zstd", label);
		goto out;
	}
	ZSTD_initDStream(ds);
	for (;;) {
		ZSTD_outBuffer ob = { buf, cap, 0 };
		size_t before = ib.pos;
		ret = ZSTD_decompressStream(ds, &ob, &ib);
		if (ZSTD_isError(ret)) {
			rc = ERR_SET(e, ERR_CORRUPT, ib.pos, "%s: zstd data at offset %zu: %s", label, ib.pos,
				     ZSTD_getErrorName(ret));
			goto out;
		}
		if (ob.pos > max_out - *total) {
			rc = ERR_SET(e, ERR_UNSUP, ib.pos, "%s: decompresses to more than %llu bytes", label,
				     (unsigned long long)max_out);
			goto out;
		}
		*total += ob.pos;
		if ((rc = zstdw_write_all(fd, buf, ob.pos, label, e)))
			goto out;
		if (ib.pos == ib.size && ob.pos < cap)
			break;          /* input consumed and the decoder flushed all it holds */
		if (ob.pos == 0 && ib.pos == before)
			break;
	}
	if (ret != 0)
		rc = ERR_SET(e, ERR_TRUNC, len, "%s: zstd data ends inside a frame (offset %zu)", label, len);
out:
	xfree(buf);
	ZSTD_freeDStream(ds);
	return rc;
}

int zstdw_map(const uint8_t *in, size_t len, const char *label, uint64_t max_out, struct mapfile *out,
	      struct err *e)
{
	uint64_t total = 0;
	size_t n;
	int fd, rc;

	memset(out, 0, sizeof(*out));
	if (!label)
		label = "(zstd)";
	if (!zstdw_probe(in, len))
		return ERR_SET(e, ERR_CORRUPT, 0, "%s: not zstd data", label);
	if ((fd = zstdw_tempfile(label, e)) < 0)
		return fd;
	rc = zstdw_stream(in, len, fd, max_out, label, &total, e);
	if (!rc && ck_size(total, &n))
		rc = ERR_SET(e, ERR_UNSUP, ERR_NO_VA, "%s: decompressed size does not fit in memory", label);
	if (!rc) {
		out->path = xmalloc(strlen(label) + 1);
		if (!out->path)
			rc = ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "%s: out of memory", label);
		else
			strcpy(out->path, label);
	}
	if (!rc && n > 0) {
		void *p = mmap(NULL, n, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p == MAP_FAILED)
			rc = ERR_SET(e, ERR_IO, ERR_NO_VA, "%s: cannot map the decompressed data: %s", label,
				     strerror(errno));
		else {
			madvise(p, n, MADV_SEQUENTIAL);
			out->data = p;
			out->len = n;
		}
	}
	close(fd);
	if (rc)
		mapfile_close(out);
	return rc;
}
