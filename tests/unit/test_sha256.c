/* test_sha256.c - SHA-256 against the FIPS 180-4 example vectors (NIST "Examples with
 * intermediate values", SHA256.pdf, and the one-million-'a' vector of FIPS 180-2 appendix B.3),
 * fed whole and split at every boundary, and sha256_file against the same digests. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "carver/base/sha256.h"
#include "t.h"

struct vector {
	const char *msg;
	const char *hex;
};

static const struct vector vectors[] = {
	{ "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
	{ "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
	{ "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
	  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1" },
	{ "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
	  "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1" },
};

static void hex_of(const void *p, size_t n, char out[SHA256_HEX])
{
	struct sha256 s;
	uint8_t d[SHA256_DIGEST];
	sha256_init(&s);
	sha256_update(&s, p, n);
	sha256_final(&s, d);
	sha256_hex(d, out);
}

static void test_vectors(void)
{
	char got[SHA256_HEX];

	T_SECTION("FIPS 180-4 vectors, whole and split at every byte");
	for (size_t v = 0; v < sizeof(vectors) / sizeof(vectors[0]); v++) {
		size_t n = strlen(vectors[v].msg);
		unsigned bad = 0;
		hex_of(vectors[v].msg, n, got);
		printf("sha256(\"%.20s%s\") = %s\n", vectors[v].msg, n > 20 ? "..." : "", got);
		T_EQ_S(got, vectors[v].hex);
		for (size_t cut = 0; cut <= n; cut++) {
			struct sha256 s;
			uint8_t d[SHA256_DIGEST];
			sha256_init(&s);
			sha256_update(&s, vectors[v].msg, cut);
			sha256_update(&s, vectors[v].msg + cut, n - cut);
			sha256_final(&s, d);
			sha256_hex(d, got);
			bad += strcmp(got, vectors[v].hex) != 0;
		}
		T_EQ_U(bad, 0);
	}
}

/* One million 'a' (FIPS 180-2 B.3): fed in 1000 pieces of 1000, then through a file. */
static double fake_now;
static double tick_clock(void) { return fake_now += 1.0; }   /* a second per read: every tick draws */

static void test_million(void)
{
	static const char want[] = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0";
	char piece[1000], got[SHA256_HEX], path[] = "/tmp/artcarve-sha256-XXXXXX";
	uint8_t d[SHA256_DIGEST];
	uint64_t size = 0;
	struct sha256 s;
	struct err e;
	int fd;

	T_SECTION("one million 'a', streamed and as a file");
	memset(piece, 'a', sizeof(piece));
	sha256_init(&s);
	for (int i = 0; i < 1000; i++)
		sha256_update(&s, piece, sizeof(piece));
	sha256_final(&s, d);
	sha256_hex(d, got);
	printf("sha256(1e6 x 'a') = %s\n", got);
	T_EQ_S(got, want);

	err_init(&e);
	fd = mkstemp(path);
	T_CHECK(fd >= 0, "mkstemp");
	if (fd < 0)
		return;
	int short_writes = 0;
	for (int i = 0; i < 1000; i++)
		short_writes += write(fd, piece, sizeof(piece)) != (ssize_t)sizeof(piece);
	close(fd);
	T_EQ_I(short_writes, 0);
	T_EQ_I(sha256_file(path, d, &size, &e), 0);
	sha256_hex(d, got);
	T_EQ_S(got, want);
	T_EQ_U(size, 1000000);

	/* with progress: moved after every 64 KiB block read, from base on (a clock that makes
	 * every tick draw, so nothing depends on real time) */
	struct progress p;
	char *out = NULL;
	size_t out_len = 0;
	FILE *fp = open_memstream(&out, &out_len);
	T_CHECK(fp != NULL, "open_memstream");
	progress_init(&p, fp, "test");
	p.clock = tick_clock;
	p.begin = fake_now = 10.0;
	progress_phase(&p, "hashing", 5 + 1000000);
	T_EQ_I(sha256_file_progress(path, d, &size, &p, 5, &e), 0);
	sha256_hex(d, got);
	T_EQ_S(got, want);
	progress_end(&p);
	if (fp)
		fclose(fp);
	size_t lines = 0;
	for (size_t i = 0; out && i < out_len; i++)
		lines += out[i] == '%';
	printf("progress: %zu lines with a percent, last count %llu\n", lines, (unsigned long long)p.done);
	T_CHECK(lines >= 10, "a percent line per block or so: %zu", lines);
	T_CHECK(p.done > 5 + 900000 && p.done <= 5 + 1000000, "counted from base: %llu", (unsigned long long)p.done);
	free(out);
	unlink(path);
	T_EQ_I(sha256_file(path, d, &size, &e), -ERR_IO);
	printf("missing file: %s\n", e.msg);
	T_CHECK(strstr(e.msg, path) != NULL, "the message names the file: %s", e.msg);
}

int main(void)
{
	test_vectors();
	test_million();
	T_DONE();
}
