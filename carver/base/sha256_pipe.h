/* sha256_pipe.h - a SHA-256 taken on a thread of its own, fed copies of the bytes: for an
 * output of gigabytes (a carved heap.hprof) whose digest manifest.json records, so that
 * hashing overlaps writing instead of following it (SHA-256 runs at about 1.5 GB/s with the
 * CPU's SHA instructions; copying a block costs a small part of that).
 *
 * sha256_pipe_open starts the thread; sha256_pipe_update copies the bytes into the block
 * being filled and hands each full one over (waiting only when every block is still being
 * hashed); sha256_pipe_final hands over the rest, waits for the thread and gives the digest,
 * the same as sha256_update over the same bytes.  sha256_pipe_close (also after final, and
 * on a pipe never opened) stops the thread and frees the blocks. */
#ifndef ARTCARVE_SHA256_PIPE_H
#define ARTCARVE_SHA256_PIPE_H

#include <stddef.h>

#include "carver/base/sha256.h"

struct sha256_pipe;

/* NULL when the memory or the thread is not there (the caller then hashes on its own
 * thread: sha256_update gives the same digest). */
struct sha256_pipe *sha256_pipe_open(void);
void sha256_pipe_update(struct sha256_pipe *p, const void *data, size_t n);
void sha256_pipe_final(struct sha256_pipe *p, uint8_t out[SHA256_DIGEST]);
void sha256_pipe_close(struct sha256_pipe *p);

#endif
