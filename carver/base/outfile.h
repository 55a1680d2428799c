/* outfile.h - atomic output files.
 *
 * Output goes to a temporary file beside the destination (".NAME.XXXXXX") and is renamed
 * over the destination only by outf_commit, so a failed run leaves no partial output.
 * outf_abort (also safe after commit, and on a never-opened outf) removes the temporary.
 * A writer that needs a path rather than a stream (a database library opening the file
 * itself) calls outf_close_stream and writes to o->tmp; commit and abort work as before.
 *
 * outf_open_big is for an output of up to gigabytes that the run does not read back soon (a
 * carved heap.hprof): where the file system allows it the file is written with O_DIRECT from
 * an aligned staging buffer, so the kernel neither copies it into the page cache nor keeps
 * it there (on a 2 GiB heap that copy cost more CPU than carving a third of it).  Elsewhere
 * it is an ordinary stream. */
#ifndef ARTCARVE_OUTFILE_H
#define ARTCARVE_OUTFILE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "carver/base/err.h"
#include "carver/base/sha256.h"
#include "carver/base/sha256_pipe.h"

struct outf {
	FILE *fp;
	char *path;     /* destination */
	char *tmp;      /* temporary name, NULL once committed or aborted */
	uint64_t written;
	uint8_t *stage; /* outf_open_big with O_DIRECT: aligned staging buffer, else NULL */
	size_t staged;  /* bytes waiting in stage */
	struct sha256 sum;      /* outf_hash: the bytes written so far */
	struct sha256_pipe *pipe;   /* outf_hash_thread: they go to the hashing thread instead */
	unsigned char hashing;  /* 0 off, 1 on (outf_hash), 2 spoiled (by a patch or a late start) */
};

void outf_init(struct outf *o);
int outf_open(struct outf *o, const char *path, struct err *e);
int outf_open_big(struct outf *o, const char *path, struct err *e);
int outf_write(struct outf *o, const void *p, size_t n, struct err *e);
/* 4096 when writes go past the page cache (outf_open_big): a writer that hands over whole
 * blocks from a buffer aligned to it is written without a copy; 0 otherwise. */
size_t outf_block(const struct outf *o);
/* Overwrites n bytes already written at file offset `at` (at + n <= o->written), e.g. a
 * length field that was a placeholder; the stream position stays at the end. */
int outf_patch(struct outf *o, uint64_t at, const void *p, size_t n, struct err *e);
/* Hashes the bytes as outf_write takes them (call it before the first), so that outf_digest
 * gives the file's SHA-256 without reading the file back.  An outf_patch spoils it. */
void outf_hash(struct outf *o);
/* outf_hash on a thread of its own (sha256_pipe.h): the writer only copies each block, so a
 * big output is hashed while it is written.  Without the memory or the thread for it, the
 * writer's own thread hashes (outf_hash): the same digest. */
void outf_hash_thread(struct outf *o);
/* The SHA-256 of the temporary file (after outf_close_stream) as outf_hash took it: false when
 * it did not (no outf_hash, a patch, or bytes that did not come through outf_write: a writer
 * that wrote to o->tmp itself). */
bool outf_digest(struct outf *o, uint8_t out[SHA256_DIGEST]);
int outf_close_stream(struct outf *o, struct err *e);
int outf_commit(struct outf *o, struct err *e);
void outf_abort(struct outf *o);

#endif
