/* sha256.h - SHA-256 (FIPS 180-4, section 6.2), written for this project, so case.db can
 * record the digest of every input file without a crypto library.
 *
 * Streaming: sha256_init, any number of sha256_update calls, sha256_final.  sha256_file reads
 * a file in fixed blocks (memory does not depend on its size). */
#ifndef ARTCARVE_SHA256_H
#define ARTCARVE_SHA256_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "carver/base/err.h"
#include "carver/base/progress.h"

#define SHA256_DIGEST 32u
#define SHA256_HEX (2u * SHA256_DIGEST + 1u)   /* hex text with its NUL */

struct sha256 {
	uint32_t h[8];          /* the intermediate hash value H(i) */
	uint64_t bytes;         /* message length so far */
	uint8_t block[64];      /* the partial block */
	size_t used;            /* bytes of it filled, < 64 */
	bool ni;                /* the CPU's SHA instructions do the rounds (same digest) */
};

void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *p, size_t n);
/* Pads, writes the digest (big-endian words) and leaves s to be re-initialised. */
void sha256_final(struct sha256 *s, uint8_t out[SHA256_DIGEST]);
/* Lower-case hex of a digest, NUL-terminated. */
void sha256_hex(const uint8_t d[SHA256_DIGEST], char out[SHA256_HEX]);
/* Digest and size of the file at path, read in blocks: of a regular file only the data runs
 * (SEEK_DATA / SEEK_HOLE), its holes hashed as the zeros they read as, unread.  Returns 0 or
 * -ERR_IO (the message names the file). */
int sha256_file(const char *path, uint8_t out[SHA256_DIGEST], uint64_t *size, struct err *e);
/* sha256_file that moves p (may be NULL) to base + the bytes read after each block: base is
 * what the phase had done before this file. */
int sha256_file_progress(const char *path, uint8_t out[SHA256_DIGEST], uint64_t *size, struct progress *p,
			 uint64_t base, struct err *e);

/* A file's digest and size on disk, kept once computed: a run asks for each input's more than
 * once (case.db, report.html) and hashes it once. */
struct sha256_memo {
	uint8_t digest[SHA256_DIGEST];
	uint64_t size;
	bool done;
};
/* sha256_file_progress the first time (m->done false), then what m remembers. */
int sha256_memo_file(struct sha256_memo *m, const char *path, struct progress *p, uint64_t base, struct err *e);

#endif
