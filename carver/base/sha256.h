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

/* The page digest of a file (carve --digest pages): the SHA-256 of its non-zero pages with
 * their offsets, so that holes and zero pages are never hashed (a whole-process core is
 * gigabytes of reserved, untouched address space around a heap of megabytes).  The message
 * hashed is, for each SHA256_PAGE-byte page of the file that holds a non-zero byte, in file
 * order, its offset (8 bytes, big-endian) then its bytes (the last page of the file may be
 * shorter); then the file's size (8 bytes, big-endian).  Given the size the message parses
 * back into the file, so two files share a page digest only if SHA-256 collides; it depends
 * on the bytes alone, not on which runs the file system stores (a sparse copy and a full
 * one agree).  It is not sha256sum's digest: where it is recorded it is written as
 * SHA256_PAGES_PREFIX + hex. */
#define SHA256_PAGE 4096u
#define SHA256_PAGES_PREFIX "pages-sha256:"
/* The longest digest text: the prefix, 64 hex digits, the NUL. */
#define SHA256_TEXT (sizeof(SHA256_PAGES_PREFIX) - 1 + SHA256_HEX)

enum sha256_kind {
	SHA256_KIND_FILE,    /* every byte: sha256sum's digest (the default) */
	SHA256_KIND_PAGES,   /* the page digest above */
};

/* sha256_file_progress for SHA256_KIND_FILE; for SHA256_KIND_PAGES the page digest: of a
 * regular file only the pages of its data runs are read (SEEK_DATA / SEEK_HOLE), zero ones
 * skipped; anything else is read to its end.  Moves p (may be NULL) to base + the offset
 * reached.  0 or -ERR_IO. */
int sha256_file_kind(const char *path, enum sha256_kind kind, uint8_t out[SHA256_DIGEST], uint64_t *size,
		     struct progress *p, uint64_t base, struct err *e);
/* A digest as text: hex, after SHA256_PAGES_PREFIX for a page digest. */
void sha256_text(enum sha256_kind kind, const uint8_t d[SHA256_DIGEST], char out[SHA256_TEXT]);

/* A file's digest and size on disk, kept once computed: a run asks for each input's more than
 * once (case.db, report.html) and hashes it once. */
struct sha256_memo {
	uint8_t digest[SHA256_DIGEST];
	uint64_t size;
	bool done;
};
/* sha256_file_kind the first time (m->done false), then what m remembers (a memo holds one
 * kind of digest: its caller always asks for the same). */
int sha256_memo_file(struct sha256_memo *m, const char *path, enum sha256_kind kind, struct progress *p,
		     uint64_t base, struct err *e);

#endif
