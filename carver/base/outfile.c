/* outfile.c - see outfile.h. */
#define _GNU_SOURCE   /* O_DIRECT, renameat2 */
#include "carver/base/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "carver/base/xalloc.h"

enum {
	OUTF_DIRECT_MIN = 256 << 10,   /* blocks this big skip the stdio buffer */
	OUTF_STAGE = 1 << 20,          /* outf_open_big's staging buffer */
	OUTF_ALIGN = 4096,             /* O_DIRECT: buffer, length and offset aligned to this */
};

void outf_init(struct outf *o) { memset(o, 0, sizeof(*o)); }

static char *outf_tmp_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	size_t dir_len = slash ? (size_t)(slash - path) + 1 : 0;
	const char *base = path + dir_len;
	size_t n = strlen(path) + 16;
	char *t = xmalloc(n);

	if (t)
		snprintf(t, n, "%.*s.%s.XXXXXX", (int)dir_len, path, base);
	return t;
}

int outf_open(struct outf *o, const char *path, struct err *e)
{
	int fd;

	outf_init(o);
	o->path = xmalloc(strlen(path) + 1);
	o->tmp = outf_tmp_name(path);
	if (!o->path || !o->tmp) {
		outf_abort(o);
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "%s: out of memory", path);
	}
	strcpy(o->path, path);
	fd = mkstemp(o->tmp);
	if (fd < 0) {
		int saved = errno;
		xfree(o->tmp);
		o->tmp = NULL;
		outf_abort(o);
		return ERR_SET(e, ERR_IO, ERR_NO_VA, "%s: cannot create output: %s", path, strerror(saved));
	}
	fchmod(fd, 0644);
	o->fp = fdopen(fd, "wb");
	if (!o->fp) {
		close(fd);
		outf_abort(o);
		return ERR_SET(e, ERR_IO, ERR_NO_VA, "%s: cannot open output stream", path);
	}
	setvbuf(o->fp, NULL, _IOFBF, 1 << 20);
	return 0;
}

/* Turns O_DIRECT on or off on the stream's descriptor; false when the file system refuses. */
static bool outf_set_direct(struct outf *o, bool on)
{
	int fd = fileno(o->fp), fl = fcntl(fd, F_GETFL);
	return fl >= 0 && fcntl(fd, F_SETFL, on ? fl | O_DIRECT : fl & ~O_DIRECT) == 0;
}

int outf_open_big(struct outf *o, const char *path, struct err *e)
{
	void *stage = NULL;
	int rc = outf_open(o, path, e);

	/* no staging memory or no O_DIRECT here: an ordinary stream, which is no error */
	if (rc || posix_memalign(&stage, OUTF_ALIGN, OUTF_STAGE) != 0)
		return rc;
	if (!outf_set_direct(o, true)) {
		free(stage);
		return 0;
	}
	o->stage = stage;
	return 0;
}

static bool outf_is_direct(const struct outf *o)
{
	int fl = fcntl(fileno(o->fp), F_GETFL);
	return fl >= 0 && (fl & O_DIRECT);
}

/* Writes p[0, n) at the end of the file, past the stream's buffer.  With o->stage (the only
 * case where O_DIRECT may be on: n and p aligned then), a file system that took the flag but
 * refuses a write (or a short write left the offset unaligned) gets the rest through the page
 * cache. */
static int outf_write_all(struct outf *o, const uint8_t *p, size_t n)
{
	int fd = fileno(o->fp);
	while (n) {
		ssize_t k = write(fd, p, n);
		if (k < 0 && (errno == EINTR || (errno == EINVAL && o->stage && outf_is_direct(o) &&
						 outf_set_direct(o, false))))
			continue;
		if (k <= 0) {
			if (k == 0)
				errno = EIO;
			return -1;
		}
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

/* A big block goes straight to the file after the stream's buffer is flushed: copying it
 * through the buffer first would only add a copy (writers hand over whole records). */
static int outf_write_direct(struct outf *o, const uint8_t *p, size_t n)
{
	return fflush(o->fp) != 0 ? -1 : outf_write_all(o, p, n);
}

/* Writes the first n staged bytes and moves the rest to the front. */
static int outf_stage_out(struct outf *o, size_t n)
{
	if (outf_write_all(o, o->stage, n))
		return -1;
	memmove(o->stage, o->stage + n, o->staged - n);
	o->staged -= n;
	return 0;
}

size_t outf_block(const struct outf *o) { return o && o->stage ? OUTF_ALIGN : 0; }

static int outf_write_staged(struct outf *o, const uint8_t *p, size_t n)
{
	if (o->staged == 0 && (uintptr_t)p % OUTF_ALIGN == 0 && n % OUTF_ALIGN == 0)
		return outf_write_all(o, p, n);   /* whole aligned blocks: no copy */
	while (n) {
		size_t k = OUTF_STAGE - o->staged < n ? OUTF_STAGE - o->staged : n;
		memcpy(o->stage + o->staged, p, k);
		o->staged += k;
		p += k;
		n -= k;
		if (o->staged == OUTF_STAGE && outf_stage_out(o, OUTF_STAGE))
			return -1;
	}
	return 0;
}

/* The staged bytes left: the aligned part directly, the tail (O_DIRECT off) through the cache. */
static int outf_stage_finish(struct outf *o)
{
	int rc = 0;
	if (o->staged >= OUTF_ALIGN)
		rc = outf_stage_out(o, o->staged / OUTF_ALIGN * OUTF_ALIGN);
	if (rc == 0 && o->staged && !outf_set_direct(o, false))
		rc = -1;
	if (rc == 0 && o->staged)
		rc = outf_stage_out(o, o->staged);
	free(o->stage);
	o->stage = NULL;
	return rc;
}

int outf_write(struct outf *o, const void *p, size_t n, struct err *e)
{
	if (n && (o->stage ? outf_write_staged(o, p, n)
		  : n >= OUTF_DIRECT_MIN ? outf_write_direct(o, p, n)
		  : fwrite(p, 1, n, o->fp) != n ? -1 : 0))
		return ERR_SET(e, ERR_IO, o->written, "%s: write failed at byte %llu: %s", o->path,
			       (unsigned long long)o->written, strerror(errno));
	if (o->hashing == 1 && o->pipe)
		sha256_pipe_update(o->pipe, p, n);
	else if (o->hashing == 1)
		sha256_update(&o->sum, p, n);
	o->written += n;
	return 0;
}

void outf_hash(struct outf *o)
{
	sha256_init(&o->sum);
	o->hashing = o->written ? 2 : 1;
}

void outf_hash_thread(struct outf *o)
{
	outf_hash(o);
	if (o->hashing == 1)
		o->pipe = sha256_pipe_open();
}

bool outf_digest(struct outf *o, uint8_t out[SHA256_DIGEST])
{
	struct stat st;
	if (o->hashing != 1 || !o->tmp || stat(o->tmp, &st) != 0 || (uint64_t)st.st_size != o->written)
		return false;
	if (o->pipe)
		sha256_pipe_final(o->pipe, out);
	else
		sha256_final(&o->sum, out);
	o->hashing = 0;
	return true;
}

int outf_patch(struct outf *o, uint64_t at, const void *p, size_t n, struct err *e)
{
	const uint8_t *b = p;

	if (o->hashing)
		o->hashing = 2;
	if (at > o->written || n > o->written - at)
		return ERR_SET(e, ERR_INTERNAL, ERR_NO_VA, "%s: patch of %zu bytes at %llu is past the %llu "
			       "bytes written", o->path, n, (unsigned long long)at, (unsigned long long)o->written);
	uint64_t staged_at = o->written - o->staged;   /* file offset of the staging buffer's bytes */
	if (o->stage && at + n > staged_at) {           /* the part still staged is patched there */
		size_t keep = at < staged_at ? (size_t)(staged_at - at) : 0;
		memcpy(o->stage + (at + keep - staged_at), b + keep, n - keep);
		if ((n = keep) == 0)
			return 0;
	}
	if (o->stage && outf_is_direct(o) && !outf_set_direct(o, false))   /* pwrite of a few bytes */
		return ERR_SET(e, ERR_IO, at, "%s: cannot patch byte %llu: %s", o->path, (unsigned long long)at,
			       strerror(errno));
	if (fflush(o->fp) != 0)
		return ERR_SET(e, ERR_IO, at, "%s: write failed: %s", o->path, strerror(errno));
	while (n) {
		ssize_t k = pwrite(fileno(o->fp), b, n, (off_t)at);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return ERR_SET(e, ERR_IO, at, "%s: write failed at byte %llu: %s", o->path,
				       (unsigned long long)at, k == 0 ? "no progress" : strerror(errno));
		b += k;
		at += (uint64_t)k;
		n -= (size_t)k;
	}
	return 0;
}

int outf_close_stream(struct outf *o, struct err *e)
{
	int rc = 0;

	if (o->stage && outf_stage_finish(o))
		rc = ERR_SET(e, ERR_IO, o->written, "%s: write failed: %s", o->path, strerror(errno));
	if (o->fp && fclose(o->fp) != 0 && rc == 0)
		rc = ERR_SET(e, ERR_IO, ERR_NO_VA, "%s: cannot finish output: %s", o->path, strerror(errno));
	o->fp = NULL;
	return rc;
}

/* Puts the finished temporary at o->path.  A regular file already there is swapped out in one
 * step (RENAME_EXCHANGE) and then removed under the temporary's name: a plain rename over an
 * existing file makes ext4 start writing the new file's data back inside rename() (its
 * auto_da_alloc replace-via-rename heuristic, fs/ext4/namei.c ext4_rename), about 0.7 ms for
 * 1 MB here and more while other writers keep the disk busy -- more than converting that MB.
 * Readers see the old file or the complete new one either way; nothing here promised the new
 * bytes would survive a power cut (no fsync).  Where the exchange is refused (no such file,
 * a file system without it) or the swapped-out entry cannot be removed (it stopped being a
 * regular file after the lstat), the entries are put back and a plain rename does it. */
static int outf_place(struct outf *o)
{
	struct stat st;

	if (lstat(o->path, &st) == 0 && S_ISREG(st.st_mode) &&
	    renameat2(AT_FDCWD, o->tmp, AT_FDCWD, o->path, RENAME_EXCHANGE) == 0) {
		if (unlink(o->tmp) == 0)
			return 0;
		if (renameat2(AT_FDCWD, o->tmp, AT_FDCWD, o->path, RENAME_EXCHANGE) != 0)
			return -1;
	}
	return rename(o->tmp, o->path);
}

int outf_commit(struct outf *o, struct err *e)
{
	int rc = outf_close_stream(o, e);

	if (rc == 0 && outf_place(o) != 0)
		rc = ERR_SET(e, ERR_IO, ERR_NO_VA, "%s: cannot rename output into place: %s", o->path,
			     strerror(errno));
	if (rc == 0) {
		xfree(o->tmp);
		o->tmp = NULL;
	}
	outf_abort(o);
	return rc;
}

void outf_abort(struct outf *o)
{
	sha256_pipe_close(o->pipe);
	free(o->stage);
	if (o->fp)
		fclose(o->fp);
	if (o->tmp)
		unlink(o->tmp);
	xfree(o->tmp);
	xfree(o->path);
	outf_init(o);
}
