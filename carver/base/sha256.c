/* sha256.c - SHA-256 per FIPS 180-4 (see sha256.h).  Section numbers below are the
 * standard's. */
#include "carver/base/sha256.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "carver/base/mapfile.h"
#include "carver/base/wbuf.h"
#include "carver/base/xalloc.h"

/* 4.2.2: the first 32 bits of the fractional parts of the cube roots of the first 64 primes */
static const uint32_t sha256_k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t rotr(uint32_t x, unsigned n) { return x >> n | x << (32 - n); }

/* 4.1.2 */
static uint32_t ch(uint32_t x, uint32_t y, uint32_t z) { return (x & y) ^ (~x & z); }
static uint32_t maj(uint32_t x, uint32_t y, uint32_t z) { return (x & y) ^ (x & z) ^ (y & z); }
static uint32_t big_sigma0(uint32_t x) { return rotr(x, 2) ^ rotr(x, 13) ^ rotr(x, 22); }
static uint32_t big_sigma1(uint32_t x) { return rotr(x, 6) ^ rotr(x, 11) ^ rotr(x, 25); }
static uint32_t small_sigma0(uint32_t x) { return rotr(x, 7) ^ rotr(x, 18) ^ x >> 3; }
static uint32_t small_sigma1(uint32_t x) { return rotr(x, 17) ^ rotr(x, 19) ^ x >> 10; }

/* 6.2.2: one 512-bit block */
static void sha256_block(uint32_t h[8], const uint8_t *p)
{
	uint32_t w[64];

	for (unsigned t = 0; t < 16; t++)
		w[t] = (uint32_t)p[4 * t] << 24 | (uint32_t)p[4 * t + 1] << 16 | (uint32_t)p[4 * t + 2] << 8 | p[4 * t + 3];
	for (unsigned t = 16; t < 64; t++)
		w[t] = small_sigma1(w[t - 2]) + w[t - 7] + small_sigma0(w[t - 15]) + w[t - 16];
	uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
	for (unsigned t = 0; t < 64; t++) {
		uint32_t t1 = hh + big_sigma1(e) + ch(e, f, g) + sha256_k[t] + w[t];
		uint32_t t2 = big_sigma0(a) + maj(a, b, c);
		hh = g;
		g = f;
		f = e;
		e = d + t1;
		d = c;
		c = b;
		b = a;
		a = t1 + t2;
	}
	h[0] += a;
	h[1] += b;
	h[2] += c;
	h[3] += d;
	h[4] += e;
	h[5] += f;
	h[6] += g;
	h[7] += hh;
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>

/* The SHA extensions (Intel SHA-NI, AMD Zen): CPUID leaf 7 EBX bit 29, with SSSE3 and SSE4.1
 * (leaf 1 ECX bits 9, 19) for the byte shuffles and blends around them.  About 5 times the
 * portable rounds: the input hash of a whole-process core is gigabytes, mostly holes. */
static bool sha256_cpu_has_ni(void)
{
	unsigned a, b, c, d;
	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & 1u << 9) || !(c & 1u << 19))
		return false;
	return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & 1u << 29);
}

/* 6.2.2 for n blocks with SHA256RNDS2 (two rounds each) and SHA256MSG1/MSG2 (the message
 * schedule, four words each).  The instructions keep the state as ABEF and CDGH. */
__attribute__((target("sha,sse4.1,ssse3")))
static void sha256_blocks_ni(uint32_t h[8], const uint8_t *p, size_t n)
{
	const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
	__m128i dcba = _mm_loadu_si128((const __m128i *)(const void *)&h[0]);
	__m128i hgfe = _mm_loadu_si128((const __m128i *)(const void *)&h[4]);
	__m128i cdab = _mm_shuffle_epi32(dcba, 0xb1);
	__m128i efgh = _mm_shuffle_epi32(hgfe, 0x1b);
	__m128i abef = _mm_alignr_epi8(cdab, efgh, 8);
	__m128i cdgh = _mm_blend_epi16(efgh, cdab, 0xf0);

	for (; n; n--, p += 64) {
		__m128i w[16], abef0 = abef, cdgh0 = cdgh;
		for (unsigned g = 0; g < 16; g++) {
			if (g < 4)
				w[g] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + 16 * g)), bswap);
			else   /* W[t-16] + s0(W[t-15]) + W[t-7], then + s1(W[t-2]) */
				w[g] = _mm_sha256msg2_epu32(_mm_add_epi32(_mm_sha256msg1_epu32(w[g - 4], w[g - 3]),
									  _mm_alignr_epi8(w[g - 1], w[g - 2], 4)),
							    w[g - 1]);
			__m128i k = _mm_add_epi32(w[g], _mm_loadu_si128((const __m128i *)(const void *)&sha256_k[4 * g]));
			/* two rounds make the old ABEF the new CDGH: the two variables trade roles
			 * and trade back */
			cdgh = _mm_sha256rnds2_epu32(cdgh, abef, k);
			abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(k, 0x0e));
		}
		abef = _mm_add_epi32(abef, abef0);
		cdgh = _mm_add_epi32(cdgh, cdgh0);
	}
	__m128i feba = _mm_shuffle_epi32(abef, 0x1b);
	__m128i dchg = _mm_shuffle_epi32(cdgh, 0xb1);
	_mm_storeu_si128((__m128i *)(void *)&h[0], _mm_blend_epi16(feba, dchg, 0xf0));
	_mm_storeu_si128((__m128i *)(void *)&h[4], _mm_alignr_epi8(dchg, feba, 8));
}
#else
static bool sha256_cpu_has_ni(void) { return false; }
static void sha256_blocks_ni(uint32_t h[8], const uint8_t *p, size_t n) { (void)h, (void)p, (void)n; }
#endif

/* n whole blocks at p */
static void sha256_blocks(struct sha256 *s, const uint8_t *p, size_t n)
{
	if (s->ni) {
		sha256_blocks_ni(s->h, p, n);
		return;
	}
	for (; n; n--, p += 64)
		sha256_block(s->h, p);
}

void sha256_init(struct sha256 *s)
{
	/* 5.3.3: the first 32 bits of the fractional parts of the square roots of the first 8 primes */
	static const uint32_t h0[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
					0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };
	memcpy(s->h, h0, sizeof(h0));
	s->bytes = 0;
	s->used = 0;
	s->ni = sha256_cpu_has_ni();
}

void sha256_update(struct sha256 *s, const void *p, size_t n)
{
	const uint8_t *b = p;

	s->bytes += n;
	if (s->used) {
		size_t take = 64 - s->used < n ? 64 - s->used : n;
		memcpy(s->block + s->used, b, take);
		s->used += take;
		b += take;
		n -= take;
		if (s->used < 64)
			return;
		sha256_blocks(s, s->block, 1);
		s->used = 0;
	}
	sha256_blocks(s, b, n / 64);
	b += n / 64 * 64;
	n %= 64;
	if (n)
		memcpy(s->block, b, n);
	s->used = n;
}

void sha256_final(struct sha256 *s, uint8_t out[SHA256_DIGEST])
{
	uint64_t bits = s->bytes * 8;   /* 5.1.1: the length in bits, modulo 2^64 */

	/* 5.1.1: a 1 bit, zeros up to 448 mod 512, the 64-bit length */
	s->block[s->used++] = 0x80;
	if (s->used > 56) {
		memset(s->block + s->used, 0, 64 - s->used);
		sha256_blocks(s, s->block, 1);
		s->used = 0;
	}
	memset(s->block + s->used, 0, 56 - s->used);
	for (unsigned i = 0; i < 8; i++)
		s->block[56 + i] = (uint8_t)(bits >> (56 - 8 * i));
	sha256_blocks(s, s->block, 1);
	for (unsigned i = 0; i < 8; i++)
		for (unsigned j = 0; j < 4; j++)
			out[4 * i + j] = (uint8_t)(s->h[i] >> (24 - 8 * j));
	sha256_init(s);
}

void sha256_hex(const uint8_t d[SHA256_DIGEST], char out[SHA256_HEX])
{
	hex_encode(out, d, SHA256_DIGEST);
	out[2 * SHA256_DIGEST] = '\0';
}

int sha256_file(const char *path, uint8_t out[SHA256_DIGEST], uint64_t *size, struct err *e)
{
	return sha256_file_progress(path, out, size, NULL, 0, e);
}

static const uint8_t zero[1u << 16];

/* How bytes read from a file go into its digest: buf holds n of them from file offset off
 * (a multiple of SHA256_PAGE, n whole pages but at the file's end, for put_pages). */
typedef void (*sha256_put_fn)(struct sha256 *s, const uint8_t *buf, uint64_t off, size_t n);

/* The SHA-256 of every byte. */
static void put_all(struct sha256 *s, const uint8_t *buf, uint64_t off, size_t n)
{
	(void)off;
	sha256_update(s, buf, n);
}

/* v into the message as 8 bytes, big-endian */
static void sha256_be64(struct sha256 *s, uint64_t v)
{
	uint8_t be[8];
	for (unsigned i = 0; i < 8; i++)
		be[i] = (uint8_t)(v >> (56 - 8 * i));
	sha256_update(s, be, sizeof(be));
}

/* The page digest (sha256.h): each non-zero page after its offset. */
static void put_pages(struct sha256 *s, const uint8_t *buf, uint64_t off, size_t n)
{
	for (size_t at = 0; at < n; at += SHA256_PAGE) {
		size_t take = n - at < SHA256_PAGE ? n - at : SHA256_PAGE;
		if (!memcmp(buf + at, zero, take))
			continue;
		sha256_be64(s, off + at);
		sha256_update(s, buf + at, take);
	}
}

/* n zero bytes (a hole of the file) from a static block: nothing is read, no page is touched */
static void sha256_zeros(struct sha256 *s, uint64_t n, struct progress *p, uint64_t base)
{
	while (n) {
		size_t take = n < sizeof(zero) ? (size_t)n : sizeof(zero);
		sha256_update(s, zero, take);
		n -= take;
		progress_to(p, base + s->bytes);
	}
}

/* Reads up to n bytes into buf, at off (at false: where fd is), as many as there are: fewer
 * only at the end of the file.  The count, or -1 with errno. */
static ssize_t sha256_read_full(int fd, uint8_t *buf, size_t n, bool at, uint64_t off)
{
	size_t got = 0;
	while (got < n) {
		ssize_t r = at ? pread(fd, buf + got, n - got, (off_t)(off + got)) : read(fd, buf + got, n - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

/* [off, end) of fd through buf into put; -ERR_IO when it does not read, or ends early (the
 * file shrank) */
static int sha256_read_run(struct sha256 *s, int fd, const char *path, uint64_t off, uint64_t end, uint8_t *buf,
			   size_t cap, sha256_put_fn put, struct progress *p, uint64_t base, struct err *e)
{
	while (off < end) {
		size_t want = end - off < cap ? (size_t)(end - off) : cap;
		ssize_t n = sha256_read_full(fd, buf, want, true, off);
		if (n < 0)
			return ERR_SET(e, ERR_IO, ERR_NO_VA, "cannot read %s: %s", path, strerror(errno));
		if ((size_t)n < want)
			return ERR_SET(e, ERR_IO, ERR_NO_VA, "cannot read %s: it shrank while read", path);
		put(s, buf, off, want);
		off += want;
		progress_to(p, base + off);
	}
	return 0;
}

/* A regular file of size bytes: its data runs (mapfile_find_extents: SEEK_DATA / SEEK_HOLE)
 * read; a hole is never read: the SHA-256 of every byte hashes it as the zeros it reads as,
 * the page digest skips its pages (a run may begin or end inside a page: the whole page is
 * read, its hole part as zeros). */
static int sha256_sparse(struct sha256 *s, int fd, const char *path, uint64_t size, bool pages,
			 struct progress *p, uint64_t base, struct err *e)
{
	uint8_t buf[1u << 16];
	struct mapfile_extent *run;
	size_t runs;
	uint64_t next = 0;   /* the first byte not in the digest yet */
	int rc = mapfile_find_extents(fd, size, true, &run, &runs, e);

	for (size_t i = 0; rc == 0 && i < runs; i++) {
		uint64_t from = run[i].off, to = run[i].end;
		if (pages) {
			from &= ~(uint64_t)(SHA256_PAGE - 1);
			to = size - to < SHA256_PAGE ? size : (to + SHA256_PAGE - 1) & ~(uint64_t)(SHA256_PAGE - 1);
			from = from < next ? next : from;
		} else {
			sha256_zeros(s, from - next, p, base);
		}
		if (from < to) {
			rc = sha256_read_run(s, fd, path, from, to, buf, sizeof(buf), pages ? put_pages : put_all, p, base, e);
			next = to;
		}
	}
	if (rc == 0 && !pages)
		sha256_zeros(s, size - next, p, base);
	xfree(run);
	progress_to(p, base + size);
	return rc;
}

/* Anything else (a pipe, a device): read to its end; *size the bytes it held. */
static int sha256_stream(struct sha256 *s, int fd, const char *path, sha256_put_fn put, uint64_t *size,
			 struct progress *p, uint64_t base, struct err *e)
{
	uint8_t buf[1u << 16];
	for (*size = 0;;) {
		ssize_t n = sha256_read_full(fd, buf, sizeof(buf), false, 0);
		if (n < 0)
			return ERR_SET(e, ERR_IO, ERR_NO_VA, "cannot read %s: %s", path, strerror(errno));
		put(s, buf, *size, (size_t)n);
		*size += (uint64_t)n;
		progress_to(p, base + *size);
		if ((size_t)n < sizeof(buf))
			return 0;
	}
}

int sha256_file_kind(const char *path, enum sha256_kind kind, uint8_t out[SHA256_DIGEST], uint64_t *size,
		     struct progress *p, uint64_t base, struct err *e)
{
	struct sha256 s;
	struct stat st;
	bool pages = kind == SHA256_KIND_PAGES;
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc;

	if (fd < 0)
		return ERR_SET(e, ERR_IO, ERR_NO_VA, "cannot open %s: %s", path, strerror(errno));
	if (fstat(fd, &st) != 0) {
		rc = ERR_SET(e, ERR_IO, ERR_NO_VA, "cannot read %s: %s", path, strerror(errno));
		close(fd);
		return rc;
	}
	sha256_init(&s);
	if (S_ISREG(st.st_mode)) {
		*size = (uint64_t)st.st_size;
		rc = sha256_sparse(&s, fd, path, *size, pages, p, base, e);
	} else {
		rc = sha256_stream(&s, fd, path, pages ? put_pages : put_all, size, p, base, e);
	}
	close(fd);
	if (rc)
		return rc;
	if (pages)
		sha256_be64(&s, *size);
	sha256_final(&s, out);
	return 0;
}

int sha256_file_progress(const char *path, uint8_t out[SHA256_DIGEST], uint64_t *size, struct progress *p,
			 uint64_t base, struct err *e)
{
	return sha256_file_kind(path, SHA256_KIND_FILE, out, size, p, base, e);
}

void sha256_text(enum sha256_kind kind, const uint8_t d[SHA256_DIGEST], char out[SHA256_TEXT])
{
	size_t at = 0;
	if (kind == SHA256_KIND_PAGES) {
		memcpy(out, SHA256_PAGES_PREFIX, sizeof(SHA256_PAGES_PREFIX) - 1);
		at = sizeof(SHA256_PAGES_PREFIX) - 1;
	}
	sha256_hex(d, out + at);
}

int sha256_memo_file(struct sha256_memo *m, const char *path, enum sha256_kind kind, struct progress *p,
		     uint64_t base, struct err *e)
{
	if (m->done)   /* read only: case.db and report.html ask at once on two threads */
		return 0;
	int rc = sha256_file_kind(path, kind, m->digest, &m->size, p, base, e);
	m->done = rc == 0;
	return rc;
}
