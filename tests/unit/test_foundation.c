/* test_foundation.c - write buffer encoders, atomic output files (and their SHA-256 taken on the
 * hashing thread as written), arena, allocation failure, big blocks on huge pages. */
#include <malloc.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "carver/base/arena.h"
#include "carver/base/cursor.h"
#include "carver/base/escape.h"
#include "carver/base/outfile.h"
#include "carver/base/sha256.h"
#include "carver/base/wbuf.h"
#include "carver/base/xalloc.h"
#include "carver/base/hash.h"
#include "t.h"

static void test_wbuf_roundtrip(void)
{
	static const uint64_t values[] = { 0, 1, 127, 128, 300, 16383, 16384, UINT32_MAX, UINT64_MAX };
	struct wbuf b;
	struct cursor c;
	struct err e;

	T_SECTION("wbuf encoders read back through the cursor");
	wbuf_init(&b);
	err_init(&e);
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++)
		wbuf_varint64(&b, values[i]);
	wbuf_u32be(&b, 0xdeadbeef);
	wbuf_u16le(&b, 0x1234);
	wbuf_uNbe(&b, 8, 0x0102030405060708ull);
	T_EQ_I(wbuf_status(&b, &e), 0);
	cur_init(&c, b.data, b.len, 0);
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		uint64_t v = 0;
		T_EQ_I(cur_varint64(&c, &v, &e), 0);
		T_EQ_U(v, values[i]);
	}
	{
		uint32_t v32;
		uint16_t v16;
		uint64_t v64;
		T_EQ_I(cur_u32be(&c, &v32, &e), 0);
		T_EQ_U(v32, 0xdeadbeef);
		T_EQ_I(cur_u16le(&c, &v16, &e), 0);
		T_EQ_U(v16, 0x1234);
		T_EQ_I(cur_u64be(&c, &v64, &e), 0);
		T_EQ_U(v64, 0x0102030405060708ull);
	}
	T_EQ_U(cur_remaining(&c), 0);
	wbuf_patch_u32be(&b, 0, 0x11223344);
	T_EQ_U(ld_u32be(b.data), 0x11223344);

	T_SECTION("wbuf UTF-8 encoder at every length boundary");
	{
		static const struct { uint32_t cp; const char *utf8; } v[] = {
			{ 0x41, "A" }, { 0x7f, "\x7f" }, { 0x80, "\xc2\x80" }, { 0x7ff, "\xdf\xbf" },
			{ 0x800, "\xe0\xa0\x80" }, { 0xfffd, "\xef\xbf\xbd" }, { 0x10000, "\xf0\x90\x80\x80" },
			{ 0x1f600, "\xf0\x9f\x98\x80" }, { 0x10ffff, "\xf4\x8f\xbf\xbf" },
		};
		for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
			wbuf_reset(&b);
			wbuf_utf8(&b, v[i].cp);
			T_CHECK(b.len == strlen(v[i].utf8) && !memcmp(b.data, v[i].utf8, b.len),
				"U+%04X encodes to %zu bytes, expected %zu", (unsigned)v[i].cp, b.len, strlen(v[i].utf8));
		}
	}
	wbuf_release(&b);

	T_SECTION("wbuf allocation failure is sticky and reported");
	wbuf_init(&b);
	xalloc_fail_after(1);
	wbuf_put(&b, "abc", 3);
	wbuf_put(&b, "abc", 3);
	T_EQ_I(wbuf_status(&b, &e), -ERR_NOMEM);
	T_EQ_U(b.len, 0);
	xalloc_fail_after(0);
	wbuf_release(&b);
}

/* Writes `text` through an outf committed at path; the commit's status. */
static int outf_put(const char *path, const char *text, struct err *e)
{
	struct outf o;
	int rc = outf_open(&o, path, e);

	if (rc == 0 && (rc = outf_write(&o, text, strlen(text), e)) != 0)
		outf_abort(&o);
	return rc ? rc : outf_commit(&o, e);
}

/* Reads up to cap - 1 bytes of path into buf as a string; its length, or -1. */
static long outf_slurp(const char *path, char *buf, size_t cap)
{
	FILE *f = fopen(path, "rb");
	size_t n = f ? fread(buf, 1, cap - 1, f) : 0;

	if (!f)
		return -1;
	fclose(f);
	buf[n] = 0;
	return (long)n;
}

/* A commit over what is already at the destination: a regular file (swapped out and removed),
 * a symbolic link (the link is replaced, its target untouched, as rename does) and a
 * directory (refused, left as it was); no temporary is left behind in any case. */
static void test_outfile_replace(const char *dir)
{
	char path[256], other[256], sub[300], buf[64], listing[600];
	struct stat st;
	struct err e;

	T_SECTION("commit over a file, a symbolic link, a directory");
	err_init(&e);
	snprintf(path, sizeof(path), "%s/out.bin", dir);
	T_EQ_I(outf_put(path, "first version, longer", &e), 0);
	T_EQ_I(outf_put(path, "second", &e), 0);
	T_EQ_I(outf_slurp(path, buf, sizeof(buf)), 6);
	T_EQ_S(buf, "second");

	snprintf(other, sizeof(other), "%s/target.bin", dir);
	T_EQ_I(outf_put(other, "target", &e), 0);
	unlink(path);
	T_CHECK(symlink("target.bin", path) == 0, "symlink");
	T_EQ_I(outf_put(path, "through", &e), 0);
	T_CHECK(lstat(path, &st) == 0 && S_ISREG(st.st_mode), "the link itself was replaced by a file");
	T_EQ_I(outf_slurp(other, buf, sizeof(buf)), 6);
	T_EQ_S(buf, "target");
	unlink(path);
	unlink(other);

	T_CHECK(mkdir(path, 0755) == 0, "mkdir");
	snprintf(sub, sizeof(sub), "%s/kept", path);
	T_EQ_I(outf_put(sub, "kept", &e), 0);
	T_CHECK(outf_put(path, "not a directory", &e) == -ERR_IO, "commit over a directory refused: %s", e.msg);
	T_EQ_I(outf_slurp(sub, buf, sizeof(buf)), 4);
	unlink(sub);
	T_CHECK(rmdir(path) == 0, "the directory is still one");
	snprintf(listing, sizeof(listing), "test -z \"$(ls -A %s)\"", dir);
	T_CHECK(system(listing) == 0, "no temporary left in %s", dir);
}

static void test_outfile(void)
{
	char dir[] = "/tmp/artcarve-outf.XXXXXX";
	char path[256], listing[512];
	struct outf o;
	struct err e;
	struct stat st;

	T_SECTION("atomic output files");
	err_init(&e);
	T_CHECK(mkdtemp(dir) != NULL, "mkdtemp");
	snprintf(path, sizeof(path), "%s/out.bin", dir);
	T_EQ_I(outf_open(&o, path, &e), 0);
	T_EQ_I(outf_write(&o, "hello", 5, &e), 0);
	T_CHECK(stat(path, &st) != 0, "destination absent before commit");
	T_EQ_I(outf_commit(&o, &e), 0);
	T_CHECK(stat(path, &st) == 0 && st.st_size == 5, "committed file has 5 bytes");
	unlink(path);

	/* an ordinary stream: a block of 256 KiB or more skips the stdio buffer, so it must
	 * land after the small write still buffered before it */
	static uint8_t block[300u << 10], got[sizeof(block) + 9];
	for (size_t i = 0; i < sizeof(block); i++)
		block[i] = (uint8_t)(i * 2654435761u >> 11);
	T_EQ_I(outf_open(&o, path, &e), 0);
	T_EQ_I(outf_write(&o, "head", 4, &e), 0);
	T_EQ_I(outf_write(&o, block, sizeof(block), &e), 0);
	T_EQ_I(outf_write(&o, "tail", 4, &e), 0);
	T_EQ_I(outf_commit(&o, &e), 0);
	FILE *f = fopen(path, "rb");
	size_t n = f ? fread(got, 1, sizeof(got), f) : 0;
	if (f)
		fclose(f);
	T_EQ_U(n, sizeof(block) + 8);
	T_CHECK(n == sizeof(block) + 8 && !memcmp(got, "head", 4) && !memcmp(got + 4, block, sizeof(block)) &&
		!memcmp(got + 4 + sizeof(block), "tail", 4), "head, %zu-byte block, tail read back in order",
		sizeof(block));
	unlink(path);

	T_EQ_I(outf_open(&o, path, &e), 0);
	T_EQ_I(outf_write(&o, "partial", 7, &e), 0);
	outf_abort(&o);
	T_CHECK(stat(path, &st) != 0, "aborted output leaves no destination");
	snprintf(listing, sizeof(listing), "test -z \"$(ls -A %s)\"", dir);
	T_CHECK(system(listing) == 0, "aborted output leaves no temporary in %s", dir);
	snprintf(path, sizeof(path), "%s/no/such/dir/out.bin", dir);
	T_EQ_I(outf_open(&o, path, &e), -ERR_IO);
	T_CHECK(strstr(e.msg, "no/such/dir") != NULL, "error names the path: %s", e.msg);
	test_outfile_replace(dir);
	rmdir(dir);
}

/* outf_open_big in dir: mixed write sizes across the 8 MiB staging buffer and an unaligned
 * tail read back equal, whether the file system took O_DIRECT or not. */
static void test_outfile_big_in(const char *base)
{
	char dir[256], path[300];
	const size_t sizes[] = { 1, 4095, 3, 5u << 20, 300u << 10, 9u << 20, 77, 4096, 1234567 };
	size_t total = 0;
	struct outf o;
	struct err e;

	err_init(&e);
	snprintf(dir, sizeof(dir), "%s/artcarve-outf-big.XXXXXX", base);
	if (!mkdtemp(dir)) {
		T_CHECK(0, "mkdtemp in %s", base);
		return;
	}
	snprintf(path, sizeof(path), "%s/big.bin", dir);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		total += sizes[i];
	uint8_t *want = malloc(total), *got = malloc(total + 1);
	T_CHECK(want && got, "memory");
	for (size_t i = 0; want && i < total; i++)
		want[i] = (uint8_t)(i * 2654435761u >> 13);
	T_EQ_I(outf_open_big(&o, path, &e), 0);
	printf("%s: %s\n", base, o.stage ? "O_DIRECT through the staging buffer" : "an ordinary stream");
	for (size_t i = 0, at = 0; want && i < sizeof(sizes) / sizeof(sizes[0]); at += sizes[i++])
		T_EQ_I(outf_write(&o, want + at, sizes[i], &e), 0);
	T_EQ_U(o.written, total);
	/* patches: on disk, still staged, and across the two */
	uint64_t staged_at = o.written - o.staged, at[3] = { 10, total - 100, staged_at > 3 ? staged_at - 3 : 0 };
	for (int i = 0; want && i < 3; i++) {
		const uint8_t patch[6] = { 0xde, 0xad, 0xbe, 0xef, 0x01, (uint8_t)i };
		T_EQ_I(outf_patch(&o, at[i], patch, sizeof(patch), &e), 0);
		memcpy(want + at[i], patch, sizeof(patch));
	}
	T_EQ_I(outf_commit(&o, &e), 0);
	FILE *f = fopen(path, "rb");
	size_t n = f && got ? fread(got, 1, total + 1, f) : 0;
	if (f)
		fclose(f);
	T_EQ_U(n, total);
	T_CHECK(want && got && n == total && !memcmp(want, got, total), "%zu bytes read back equal", total);
	free(want);
	free(got);
	unlink(path);
	rmdir(dir);
}

/* outf_hash_thread: the digest taken on the hashing thread as the bytes go out (past its
 * 16 MiB of blocks, in pieces that leave the staging buffer unaligned) is sha256_file's of the
 * file; a patch spoils it (outf_digest false: the caller reads the file back). */
static void test_outfile_hash_thread(void)
{
	const size_t sizes[] = { 5, 4096, (7u << 20) + 3, 9u << 20, 333, 4u << 20 };
	char path[] = "/tmp/artcarve-outf-hash.XXXXXX", want[SHA256_HEX], got[SHA256_HEX];
	uint8_t d[SHA256_DIGEST], *buf = malloc(9u << 20);
	uint64_t size = 0;
	struct outf o;
	struct err e;
	int fd = mkstemp(path);

	T_SECTION("outf_hash_thread: the digest as written is the file's");
	err_init(&e);
	T_CHECK(fd >= 0 && buf, "a temporary name and memory");
	if (fd < 0 || !buf) {
		free(buf);
		return;
	}
	close(fd);
	for (size_t i = 0; i < (9u << 20); i++)
		buf[i] = (uint8_t)(i * 2654435761u >> 11);
	for (int patched = 0; patched < 2; patched++) {
		T_EQ_I(outf_open_big(&o, path, &e), 0);
		outf_hash_thread(&o);
		for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
			T_EQ_I(outf_write(&o, buf, sizes[i], &e), 0);
		if (patched)
			T_EQ_I(outf_patch(&o, 7, "xy", 2, &e), 0);
		T_EQ_I(outf_close_stream(&o, &e), 0);
		bool as_written = outf_digest(&o, d);
		sha256_hex(d, got);
		if (patched) {
			T_CHECK(!as_written, "a patch spoils the digest as written");
		} else {
			T_CHECK(as_written, "hashed as written");
			T_EQ_I(sha256_file(o.tmp, d, &size, &e), 0);
			sha256_hex(d, want);
			printf("%llu bytes: as written %s\n%*sread back  %s\n", (unsigned long long)o.written, got, 12, "",
			       want);
			T_EQ_S(got, want);
			T_EQ_U(size, o.written);
		}
		outf_abort(&o);
	}
	free(buf);
	unlink(path);
}

static void test_outfile_big(void)
{
	T_SECTION("big output files (O_DIRECT where the file system allows it)");
	test_outfile_big_in("/tmp");
	test_outfile_big_in("/dev/shm");   /* tmpfs: older kernels refuse O_DIRECT */
	test_outfile_hash_thread();
}

static void test_arena(void)
{
	struct arena a;
	char *s;
	int *big;

	T_SECTION("arena");
	arena_init(&a);
	s = arena_strndup(&a, "abcdef", 3);
	T_EQ_S(s, "abc");
	T_CHECK(((uintptr_t)s & 15) == 0, "16-byte aligned");
	big = arena_array(&a, 100000, sizeof(int));
	T_CHECK(big && big[99999] == 0, "large zeroed array");
	T_CHECK(arena_array(&a, SIZE_MAX, 2) == NULL, "overflowing array refused");
	arena_release(&a);
	T_CHECK(a.head == NULL, "released");
}

static void test_xalloc_grow(void)
{
	uint32_t *v = NULL, *old;
	size_t cap = 0;

	T_SECTION("xalloc_grow from empty, doubling, no-op when it fits");
	T_EQ_I(XALLOC_GROW(v, cap, 1, 16), 0);
	T_CHECK(v != NULL && cap == 16, "empty array grows to init: cap %zu", cap);
	for (uint32_t i = 0; i < 16; i++)
		v[i] = i;
	old = v;
	T_EQ_I(XALLOC_GROW(v, cap, 16, 16), 0);
	T_CHECK(v == old && cap == 16, "need <= cap leaves the array alone");
	T_EQ_I(XALLOC_GROW(v, cap, 17, 16), 0);
	T_EQ_U(cap, 32);
	T_EQ_I(XALLOC_GROW(v, cap, 100, 16), 0);
	T_EQ_U(cap, 128);
	T_CHECK(v[0] == 0 && v[15] == 15, "contents kept across growth");

	T_SECTION("xalloc_grow refuses count * size overflow, keeping the array");
	old = v;
	T_EQ_I(XALLOC_GROW(v, cap, SIZE_MAX / 2, 16), -ERR_NOMEM);
	T_CHECK(v == old && cap == 128 && v[15] == 15, "old array and capacity kept after overflow");
	T_EQ_I(xalloc_grow(&v, &cap, SIZE_MAX, 1, 16), -ERR_NOMEM);
	T_CHECK(v == old && cap == 128, "capacity doubling past SIZE_MAX refused");

	T_SECTION("xalloc_grow allocation failure keeps the old array");
	xalloc_fail_after(1);
	T_EQ_I(XALLOC_GROW(v, cap, 129, 16), -ERR_NOMEM);
	xalloc_fail_after(0);
	T_CHECK(v == old && cap == 128 && v[0] == 0 && v[15] == 15, "old array and capacity kept after failure");
	T_EQ_I(XALLOC_GROW(v, cap, 129, 16), 0);
	T_EQ_U(cap, 256);
	xfree(v);
}

static void test_hash_fnv1a64(void)
{
	T_SECTION("FNV-1a 64 known vectors");
	T_EQ_U(hash_fnv1a64("", 0), 0xcbf29ce484222325ull);
	T_EQ_U(hash_fnv1a64("a", 1), 0xaf63dc4c8601ec8cull);
	T_EQ_U(hash_fnv1a64("foobar", 6), 0x85944171f73967e8ull);
	T_EQ_U(hash_fnv1a64_more(hash_fnv1a64("foo", 3), "bar", 3), hash_fnv1a64("foobar", 6));
}

/* wbuf_dec / wbuf_hex write in place after counting digits: compared with printf at every
 * digit-count boundary and on random values of every bit length. */
static void test_wbuf_numbers(void)
{
	struct wbuf b;
	char want[48];
	uint64_t x = 1, differ = 0, n = 0;

	T_SECTION("wbuf_dec and wbuf_hex against printf's %llu and %llx");
	wbuf_init(&b);
	for (int i = 0; i < 2000000; i++, n++) {
		uint64_t v;
		if (i < 128) {   /* 10^k - 1, 10^k, 16^k - 1, 16^k and their neighbours */
			uint64_t p = 1;
			for (int k = 0; k < i / 6; k++)
				p *= i % 2 ? 16 : 10;
			v = p + (uint64_t)(i % 3) - 1;
		} else {
			x = x * 6364136223846793005ull + 1442695040888963407ull;
			v = x >> (x % 64);
		}
		wbuf_reset(&b);
		wbuf_dec(&b, v);
		wbuf_u8(&b, ' ');
		wbuf_hex(&b, v);
		snprintf(want, sizeof(want), "%llu %llx", (unsigned long long)v, (unsigned long long)v);
		differ += b.len != strlen(want) || memcmp(b.data, want, b.len);
	}
	printf("  %llu values, %llu differ from printf\n", (unsigned long long)n, (unsigned long long)differ);
	T_EQ_U(differ, 0);

	T_SECTION("wbuf_hex_bytes against printf's %02x for every byte value, at every length to 256");
	{
		uint8_t bytes[256];
		char hex[513], sha[SHA256_HEX];
		differ = 0;
		for (int i = 0; i < 256; i++)
			bytes[i] = (uint8_t)(255 - i);
		for (size_t len = 0; len <= 256; len++) {
			wbuf_reset(&b);
			wbuf_hex_bytes(&b, bytes + 256 - len, len);
			for (size_t i = 0; i < len; i++)
				snprintf(hex + 2 * i, 3, "%02x", bytes[256 - len + i]);
			differ += b.len != 2 * len || memcmp(b.data, hex, 2 * len);
		}
		printf("  257 lengths, %llu differ\n", (unsigned long long)differ);
		T_EQ_U(differ, 0);
		sha256_hex(bytes, sha);
		T_CHECK(!strcmp(sha, "fffefdfcfbfaf9f8f7f6f5f4f3f2f1f0efeeedecebeae9e8e7e6e5e4e3e2e1e0"),
			"sha256_hex: %s", sha);
	}
	wbuf_release(&b);
}

/* Escaping tests plain text 8 bytes at a time: every byte value at every position of a
 * 24-byte plain text escapes as it does alone (each byte below 0x80, and each lone byte at or
 * above it, is one sequence). */
static void test_escape_lanes(void)
{
	struct wbuf whole, parts;
	uint8_t s[24];
	uint64_t differ = 0, n = 0;

	T_SECTION("JSON and feature escaping: any byte in any lane of the word-at-a-time test");
	wbuf_init(&whole);
	wbuf_init(&parts);
	for (int json = 0; json < 2; json++)
		for (unsigned c = 0; c < 256; c++)
			for (size_t at = 0; at < sizeof(s); at++, n++) {
				void (*esc)(struct wbuf *, const uint8_t *, size_t) = json ? escape_json : escape_feature;
				memset(s, 'a', sizeof(s));
				s[at] = (uint8_t)c;
				wbuf_reset(&whole);
				wbuf_reset(&parts);
				esc(&whole, s, sizeof(s));
				esc(&parts, s, at);
				esc(&parts, s + at, 1);
				esc(&parts, s + at + 1, sizeof(s) - at - 1);
				differ += whole.len != parts.len || memcmp(whole.data, parts.data, whole.len);
			}
	printf("  %llu texts, %llu escape otherwise than their parts\n", (unsigned long long)n,
	       (unsigned long long)differ);
	T_EQ_U(differ, 0);
	wbuf_release(&whole);
	wbuf_release(&parts);
}

/* True when the mapping holding p is advised MADV_HUGEPAGE ("hg" in its VmFlags in
 * /proc/self/smaps): the advice is recorded whether or not the kernel then gives huge pages. */
static bool hugepage_advised(const void *p)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	bool inside = false, hg = false;
	unsigned long lo, hi;

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' '))
			inside = (uintptr_t)p >= lo && (uintptr_t)p < hi;
		else if (inside && !strncmp(line, "VmFlags:", 8)) {
			hg = strstr(line, " hg") != NULL;
			break;
		}
	}
	fclose(f);
	return hg;
}

/* A big block grown past its mapping: where the addresses past it are taken, it moves, and
 * the kernel moves its pages (no page of it is faulted again, none is copied); its bytes stay
 * and it stays on a huge-page boundary.  Under a sanitizer big blocks are glibc's, grown by a
 * copy: only the bytes are checked. */
static void test_xalloc_big_moves(void)
{
	enum { MIB = 1 << 20, LEN = 64 * MIB };
	uint8_t *p = xmalloc(LEN), *q = NULL, *wall = MAP_FAILED;
	struct rusage before, after;
	size_t differ = 0;

	T_SECTION("xrealloc moves a filled big block without faulting its pages again");
	if (!p) {
		T_CHECK(0, "xmalloc(64 MiB) failed");
		return;
	}
	for (size_t i = 0; i < LEN; i += 4096)
		p[i] = (uint8_t)(i / 4096 * 7 + 1);
	/* the 2 MiB past the block taken, so that it cannot grow where it is */
	wall = mmap(p + xalloc_usable(p), 2 * MIB, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
		    -1, 0);
	getrusage(RUSAGE_SELF, &before);
	q = xrealloc(p, 3 * LEN);
	getrusage(RUSAGE_SELF, &after);
	for (size_t i = 0; q && i < LEN; i += 4096)
		differ += q[i] != (uint8_t)(i / 4096 * 7 + 1);
	printf("   64 MiB block %p -> %p (the addresses past it %s), %ld page faults in xrealloc\n", (void *)p, (void *)q,
	       wall == MAP_FAILED ? "already taken" : "taken by the test", after.ru_minflt - before.ru_minflt);
	T_CHECK(q && q != p && differ == 0, "moved with its 16,384 sampled bytes: %zu differ", differ);
	T_CHECK(q && ((uintptr_t)q & (2 * MIB - 1)) == 0 && xalloc_usable(q) >= 3 * (size_t)LEN,
		"at %p on a 2 MiB boundary, %zu usable bytes", (void *)q, xalloc_usable(q));
#ifndef __SANITIZE_ADDRESS__
	T_CHECK(after.ru_minflt - before.ru_minflt < 16,
		"%ld page faults moving 64 MiB (a copy faults 32 huge pages or more)", after.ru_minflt - before.ru_minflt);
#endif
	if (wall != MAP_FAILED)
		munmap(wall, 2 * MIB);
	xfree(q ? q : p);
}

static void test_xalloc_big(void)
{
	enum { MIB = 1 << 20 };
	size_t n = 4 * MIB + 1;
	uint8_t *p, *q, *r;
	size_t nonzero = 0;

	T_SECTION("xalloc big blocks: on a 2 MiB boundary, whole huge pages, advised MADV_HUGEPAGE");
	p = xmalloc(n);
	T_CHECK(p && ((uintptr_t)p & (2 * MIB - 1)) == 0, "xmalloc(4 MiB + 1) at %p: on a 2 MiB boundary", (void *)p);
	T_CHECK(p && xalloc_usable(p) >= 6 * MIB, "usable %zu bytes: rounded up to 6 MiB (whole huge pages)",
		xalloc_usable(p));
	T_CHECK(p && hugepage_advised(p + 6 * MIB - 1), "its last byte's mapping is advised MADV_HUGEPAGE");
	if (p)
		memset(p, 0xa5, n);
	xfree(p);

	T_SECTION("xcalloc big blocks: aligned the same, zeroed even where memory is reused");
	q = xcalloc(n, 1);
	T_CHECK(q && ((uintptr_t)q & (2 * MIB - 1)) == 0, "xcalloc(4 MiB + 1) at %p: on a 2 MiB boundary", (void *)q);
	for (size_t i = 0; q && i < n; i++)
		nonzero += q[i] != 0;
	T_CHECK(q && nonzero == 0, "%zu non-zero bytes", nonzero);
	T_CHECK(q && hugepage_advised(q), "advised MADV_HUGEPAGE");

	T_SECTION("xrealloc grows a big block into its rounding in place");
	r = q ? xrealloc(q, n + 4096) : NULL;
	T_CHECK(r && r == q, "xrealloc(+4 KiB) of the 6 MiB block: %p -> %p", (void *)q, (void *)r);
	xfree(r ? r : q);
	test_xalloc_big_moves();
	T_SECTION("xalloc: glibc's heap advised MADV_HUGEPAGE as it grows (not under a sanitizer's allocator)");
#ifndef __SANITIZE_ADDRESS__
	{
		enum { PIECES = 48 };   /* 48 MiB in 1 MiB blocks: past the first 32 MiB step of the break */
		uint8_t *piece[PIECES], *brk0 = sbrk(0);
		size_t grown = 0, advised = 0;
		for (size_t i = 0; i < PIECES; i++)
			if ((piece[i] = xmalloc(MIB)) && piece[i] >= brk0) {   /* from what the heap grew by */
				grown++;
				advised += hugepage_advised(piece[i]);
			}
		printf("   %zu blocks of 1 MiB from the heap's growth, %zu of them in memory advised MADV_HUGEPAGE\n",
		       grown, advised);
		T_CHECK(grown >= PIECES / 2 && advised == grown, "%zu blocks from the growth, %zu advised", grown, advised);
		for (size_t i = 0; i < PIECES; i++)
			xfree(piece[i]);
	}
#endif
}

int main(void)
{
	test_wbuf_numbers();
	test_escape_lanes();
	test_xalloc_grow();
	test_xalloc_big();
	test_hash_fnv1a64();
	test_wbuf_roundtrip();
	test_outfile();
	test_outfile_big();
	test_arena();
	T_DONE();
}
