/* test_sha256.c - SHA-256 against the FIPS 180-4 example vectors (NIST "Examples with
 * intermediate values", SHA256.pdf, and the one-million-'a' vector of FIPS 180-2 appendix B.3),
 * fed whole and split at every boundary, by the portable rounds and by the CPU's SHA
 * instructions where it has them; sha256_file against the same digests, and on a sparse file
 * (holes hashed as zeros, unread) against the digest of the same bytes in memory; the hashing
 * thread (sha256_pipe) against sha256_update over the same bytes, fed in odd pieces past its
 * four 4 MiB blocks, and a pipe closed without a digest; the page digest (carve --digest
 * pages) of a sparse file, of a full copy of it and of a FIFO fed the same bytes against the
 * SHA-256 of its message built in memory from the bytes. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "carver/base/sha256.h"
#include "carver/base/sha256_pipe.h"
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

/* the CPU's SHA instructions in use (sha256_init finds them); false: the portable rounds */
static bool use_ni;

static void start(struct sha256 *s)
{
	sha256_init(s);
	s->ni = s->ni && use_ni;
}

static void hex_of(const void *p, size_t n, char out[SHA256_HEX])
{
	struct sha256 s;
	uint8_t d[SHA256_DIGEST];
	start(&s);
	sha256_update(&s, p, n);
	sha256_final(&s, d);
	sha256_hex(d, out);
}

static void test_vectors(void)
{
	char got[SHA256_HEX];

	T_SECTION(use_ni ? "FIPS 180-4 vectors, whole and split at every byte (SHA instructions)"
			 : "FIPS 180-4 vectors, whole and split at every byte (portable rounds)");
	for (size_t v = 0; v < sizeof(vectors) / sizeof(vectors[0]); v++) {
		size_t n = strlen(vectors[v].msg);
		unsigned bad = 0;
		hex_of(vectors[v].msg, n, got);
		printf("sha256(\"%.20s%s\") = %s\n", vectors[v].msg, n > 20 ? "..." : "", got);
		T_EQ_S(got, vectors[v].hex);
		for (size_t cut = 0; cut <= n; cut++) {
			struct sha256 s;
			uint8_t d[SHA256_DIGEST];
			start(&s);
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
	start(&s);
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

/* 1 MiB of pseudo-random bytes fed in uneven pieces: the SHA instructions (many blocks per
 * call) and the portable rounds give the same digest. */
static void test_ni_agrees(void)
{
	static uint8_t buf[1 << 20];
	char a[SHA256_HEX], b[SHA256_HEX];
	uint32_t x = 2463534242u;
	struct sha256 s;

	T_SECTION("SHA instructions = portable rounds on 1 MiB");
	sha256_init(&s);
	printf("this CPU has the SHA instructions: %s\n", s.ni ? "yes" : "no (both runs portable)");
	for (size_t i = 0; i < sizeof(buf); i++) {   /* xorshift32 */
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		buf[i] = (uint8_t)x;
	}
	for (int pass = 0; pass < 2; pass++) {
		uint8_t d[SHA256_DIGEST];
		use_ni = pass == 0;
		start(&s);
		for (size_t off = 0, step = 1; off < sizeof(buf); off += step, step = step * 3 + 1)
			sha256_update(&s, buf + off, step < sizeof(buf) - off ? step : sizeof(buf) - off);
		sha256_final(&s, d);
		sha256_hex(d, pass ? b : a);
	}
	use_ni = true;
	printf("instructions %s\nportable     %s\n", a, b);
	T_EQ_S(a, b);
}

/* A sparse file: 5000 bytes of data, a 3 MiB hole, 70000 bytes of data, a 1 MiB hole to the
 * end.  sha256_file reads the data runs only and must give the digest of every byte. */
static void test_sparse_file(void)
{
	enum { D1 = 5000, H1 = 3 << 20, D2 = 70000, H2 = 1 << 20, SIZE = D1 + H1 + D2 + H2 };
	static uint8_t all[SIZE];
	char path[] = "/tmp/artcarve-sha256-sparse-XXXXXX", got[SHA256_HEX], want[SHA256_HEX];
	uint8_t d[SHA256_DIGEST];
	uint64_t size = 0;
	struct err e;
	int fd = mkstemp(path);

	T_SECTION("a sparse file: the holes hashed as zeros");
	T_CHECK(fd >= 0, "mkstemp");
	if (fd < 0)
		return;
	for (size_t i = 0; i < D1; i++)
		all[i] = (uint8_t)(i * 7 + 1);
	for (size_t i = 0; i < D2; i++)
		all[D1 + H1 + i] = (uint8_t)(i * 13 + 5);
	bool written = pwrite(fd, all, D1, 0) == D1 && pwrite(fd, all + D1 + H1, D2, D1 + H1) == D2 &&
		       ftruncate(fd, SIZE) == 0;
	T_CHECK(written, "sparse file written");
	off_t hole = lseek(fd, 0, SEEK_END);
	close(fd);
	printf("file of %lld bytes\n", (long long)hole);
	hex_of(all, SIZE, want);
	err_init(&e);
	T_EQ_I(sha256_file(path, d, &size, &e), 0);
	sha256_hex(d, got);
	printf("in memory %s\nsparse    %s\n", want, got);
	T_EQ_S(got, want);
	T_EQ_U(size, SIZE);
	unlink(path);
}

/* The page digest's message (sha256.h) of the n bytes of all, built here from its definition:
 * each page holding a non-zero byte as its offset (8 bytes, big-endian) and its bytes, then
 * the size; its SHA-256 as hex. */
static void pages_message_hex(const uint8_t *all, size_t n, char out[SHA256_HEX])
{
	uint8_t *msg = malloc(2 * n + 16), *w = msg;
	T_CHECK(msg != NULL, "no memory for the page digest's message");
	if (!msg)
		return;
	for (size_t at = 0; at < n; at += SHA256_PAGE) {
		size_t take = n - at < SHA256_PAGE ? n - at : SHA256_PAGE;
		bool zero = true;
		for (size_t i = 0; i < take && zero; i++)
			zero = all[at + i] == 0;
		if (zero)
			continue;
		for (unsigned i = 0; i < 8; i++)
			*w++ = (uint8_t)((uint64_t)at >> (56 - 8 * i));
		memcpy(w, all + at, take);
		w += take;
	}
	for (unsigned i = 0; i < 8; i++)
		*w++ = (uint8_t)((uint64_t)n >> (56 - 8 * i));
	printf("message of %zu bytes for a file of %zu\n", (size_t)(w - msg), n);
	hex_of(msg, (size_t)(w - msg), out);
	free(msg);
}

/* sha256_file_kind's page digest of path as hex, "" when it fails; its size into *size */
static void pages_file_hex(const char *path, char out[SHA256_HEX], uint64_t *size)
{
	uint8_t d[SHA256_DIGEST];
	struct err e;
	err_init(&e);
	out[0] = '\0';
	if (sha256_file_kind(path, SHA256_KIND_PAGES, d, size, NULL, 0, &e) == 0)
		sha256_hex(d, out);
	else
		printf("sha256_file_kind %s: %s\n", path, e.msg);
}

/* A FIFO at path fed n bytes of all by a child process; its page digest as hex */
static void pages_fifo_hex(const char *path, const uint8_t *all, size_t n, char out[SHA256_HEX], uint64_t *size)
{
	out[0] = '\0';
	if (mkfifo(path, 0600) != 0) {
		T_CHECK(false, "mkfifo");
		return;
	}
	pid_t child = fork();
	if (child == 0) {
		int fd = open(path, O_WRONLY);
		for (size_t at = 0; fd >= 0 && at < n;) {   /* odd pieces: the reader fills whole pages */
			ssize_t put = write(fd, all + at, n - at < 7777 ? n - at : 7777);
			if (put <= 0)
				_exit(1);
			at += (size_t)put;
		}
		_exit(fd >= 0 ? 0 : 1);
	}
	if (child > 0) {
		int status = 0;
		pages_file_hex(path, out, size);
		T_CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0,
			"the FIFO's writer");
	}
	unlink(path);
}

/* The page digest of a file: data runs that start and end inside pages, a page of zeros
 * the file system stores, a page of one non-zero byte, a 3 MiB hole, a short last page; and
 * the same file without its holes.  Then a file whose pages are all zero but the last. */
static void test_pages_file(void)
{
	enum { H1 = 3 << 20, D2 = 70000, SIZE = 16384 + H1 + 100 + D2 + 1234 };
	static uint8_t all[SIZE];
	char path[] = "/tmp/artcarve-sha256-pages-XXXXXX", full[64], fifo[64];
	char want[SHA256_HEX], sparse[SHA256_HEX], dense[SHA256_HEX], piped[SHA256_HEX];
	uint64_t n1 = 0, n2 = 0, n3 = 0;
	int fd = mkstemp(path), fd2;

	T_SECTION("the page digest: the non-zero pages with their offsets, then the size");
	T_CHECK(fd >= 0, "mkstemp");
	if (fd < 0)
		return;
	snprintf(full, sizeof(full), "%s.full", path);
	snprintf(fifo, sizeof(fifo), "%s.fifo", path);
	for (size_t i = 0; i < 5000; i++)   /* page 0 and part of page 1 */
		all[i] = (uint8_t)(i * 7 + 1);
	all[12288 + 4095] = 9;              /* page 3: its last byte; page 2 is stored zeros */
	for (size_t i = 0; i < D2 + 1234; i++)   /* from inside a page past the hole to the end */
		all[16384 + H1 + 100 + i] = (uint8_t)(i * 13 + 5);
	bool written = pwrite(fd, all, 16384, 0) == 16384 &&
		       pwrite(fd, all + 16384 + H1 + 100, D2 + 1234, 16384 + H1 + 100) == D2 + 1234;
	close(fd);
	fd2 = open(full, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	written = written && fd2 >= 0 && write(fd2, all, SIZE) == SIZE;
	if (fd2 >= 0)
		close(fd2);
	T_CHECK(written, "files written");
	pages_message_hex(all, SIZE, want);
	pages_file_hex(path, sparse, &n1);
	pages_file_hex(full, dense, &n2);
	pages_fifo_hex(fifo, all, SIZE, piped, &n3);
	printf("message  %s\nsparse   %s\nfull     %s\nfifo     %s\n", want, sparse, dense, piped);
	T_EQ_S(sparse, want);
	T_EQ_S(dense, want);
	T_EQ_S(piped, want);
	T_EQ_U(n1, SIZE);
	T_EQ_U(n2, SIZE);
	T_EQ_U(n3, SIZE);

	/* one byte moved to the next page: another digest; then a file all zero but its short
	 * last page */
	all[12288 + 4095] = 0;
	all[16384] = 9;
	fd = open(full, O_WRONLY | O_TRUNC);
	written = fd >= 0 && write(fd, all, SIZE) == SIZE;
	if (fd >= 0)
		close(fd);
	T_CHECK(written, "file rewritten");
	pages_file_hex(full, dense, &n2);
	printf("moved    %s\n", dense);
	T_CHECK(strcmp(dense, want) != 0 && dense[0], "a byte moved to another page changes the page digest");
	memset(all, 0, SIZE);
	all[SIZE - 1] = 1;
	pages_message_hex(all, SIZE, want);
	fd = open(full, O_WRONLY | O_TRUNC);
	written = fd >= 0 && ftruncate(fd, SIZE - 1) == 0 && pwrite(fd, all + SIZE - 1, 1, SIZE - 1) == 1;
	if (fd >= 0)
		close(fd);
	T_CHECK(written, "file rewritten");
	pages_file_hex(full, dense, &n2);
	printf("last     %s\nmessage  %s\n", dense, want);
	T_EQ_S(dense, want);
	unlink(path);
	unlink(full);
}

/* 37 MiB + 5 bytes (more than twice round the ring, a part block at the end) in pieces of
 * 1 byte to 3 MiB; the empty message; a pipe closed half fed. */
static void test_pipe(void)
{
	enum { PIPE_TEST = (37u << 20) + 5u };
	static const size_t pieces[] = { 1, 63, 4096, 1u << 20, 3u << 20, 777 };
	uint8_t *data = malloc(PIPE_TEST), d[SHA256_DIGEST];
	char want[SHA256_HEX], got[SHA256_HEX];

	T_SECTION("sha256_pipe: the hashing thread's digest is sha256_update's");
	T_CHECK(data != NULL, "no memory for the test");
	if (!data)
		return;
	for (size_t i = 0; i < PIPE_TEST; i++)
		data[i] = (uint8_t)(i * 2654435761u >> 13);
	hex_of(data, PIPE_TEST, want);
	struct sha256_pipe *p = sha256_pipe_open();
	T_CHECK(p != NULL, "sha256_pipe_open: no memory or no thread");
	if (!p) {
		free(data);
		return;
	}
	for (size_t at = 0, k = 0; at < PIPE_TEST; k++) {
		size_t n = pieces[k % 6] < PIPE_TEST - at ? pieces[k % 6] : PIPE_TEST - at;
		sha256_pipe_update(p, data + at, n);
		at += n;
	}
	sha256_pipe_final(p, d);
	sha256_pipe_close(p);
	sha256_hex(d, got);
	printf("%u bytes\nsha256_update %s\nsha256_pipe   %s\n", (unsigned)PIPE_TEST, want, got);
	T_EQ_S(got, want);

	hex_of("", 0, want);
	p = sha256_pipe_open();
	T_CHECK(p != NULL, "sha256_pipe_open: no memory or no thread");
	if (p) {
		sha256_pipe_final(p, d);
		sha256_pipe_close(p);
		sha256_hex(d, got);
		printf("empty: %s\n", got);
		T_EQ_S(got, want);
	}
	p = sha256_pipe_open();   /* closed half fed, without final: ends, frees (ASan build) */
	if (p) {
		sha256_pipe_update(p, data, 9u << 20);
		sha256_pipe_close(p);
	}
	free(data);
}

int main(void)
{
	use_ni = true;
	test_vectors();
	use_ni = false;
	test_vectors();
	use_ni = true;
	test_million();
	test_ni_agrees();
	test_sparse_file();
	test_pages_file();
	test_pipe();
	T_DONE();
}
