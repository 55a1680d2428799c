/* test_maps.c - carver/image/maps.c against the kernel's own output and format.
 *  1. this process's /proc/self/maps, parsed by maps_load, equals an independent sscanf
 *     parse of the same text, line by line (start, end, perms, offset, inode, name);
 *  2. lines printed with the kernel's format (fs/proc/task_mmu.c show_map_vma: "%08lx-%08lx
 *     %c%c%c%c %08llx %02x:%02x %lu " padded to column 73, then the name) for boundary and
 *     pseudo-random values read back to the values printed;
 *  3. limits: 16 hex digits, 20 decimal digits up to UINT64_MAX, names with spaces and tabs,
 *     a listing that outgrows the first entry array, maps_load errors named by path;
 *  4. allocation failure of the entry array and of a name: -ERR_NOMEM, nothing leaked.
 * (Line-level basics are also in test_image.c.) */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "carver/base/wbuf.h"
#include "carver/base/xalloc.h"
#include "carver/image/image.h"
#include "carver/image/maps.h"
#include "t.h"

/* Reads a whole (proc) file into b; 0 or -1. */
static int slurp(const char *path, struct wbuf *b)
{
	char chunk[4096];
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -1;
	while ((n = read(fd, chunk, sizeof(chunk))) > 0)
		wbuf_put(b, chunk, (size_t)n);
	close(fd);
	return n < 0 || b->failed ? -1 : 0;
}

/* The fields of one kernel line, read with sscanf (the independent side). */
struct ref_line {
	unsigned long long start, end, offset, inode;
	char perms[5];
	const char *name;       /* points into the line copy */
};

static int ref_parse(char *line, struct ref_line *r)
{
	unsigned major, minor;
	int name_at = 0;

	if (sscanf(line, "%llx-%llx %4s %llx %x:%x %llu %n", &r->start, &r->end, r->perms, &r->offset, &major,
		   &minor, &r->inode, &name_at) != 7)
		return -1;
	r->name = line + name_at;
	return 0;
}

static void test_proc_self_maps(void)
{
	struct wbuf text;
	struct maps m;
	struct err e;
	size_t line = 0, agree = 0;

	T_SECTION("/proc/self/maps: maps_load versus sscanf of the same text");
	wbuf_init(&text);
	err_init(&e);
	maps_init(&m);
	T_CHECK(slurp("/proc/self/maps", &text) == 0, "read /proc/self/maps");
	/* (a proc file reports size 0: it is read, then parsed from memory) */
	T_EQ_I(maps_parse(&m, text.data, text.len, &e), 0);
	for (size_t pos = 0; pos < text.len; line++) {
		const char *nl = memchr(text.data + pos, '\n', text.len - pos);
		size_t end = nl ? (size_t)(nl - (const char *)text.data) : text.len;
		char copy[4096];
		struct ref_line r;
		char prot[5];

		snprintf(copy, sizeof(copy), "%.*s", (int)(end - pos), (const char *)text.data + pos);
		pos = end + 1;
		if (ref_parse(copy, &r) != 0 || line >= m.count) {
			T_CHECK(0, "line %zu: \"%s\" (%zu entries parsed)", line + 1, copy, m.count);
			continue;
		}
		const struct maps_entry *x = &m.entries[line];
		maps_prot_text(x->prot, x->shared, prot);
		if (x->start == r.start && x->end == r.end && !strcmp(prot, r.perms) && x->offset == r.offset &&
		    x->inode == r.inode && !strcmp(x->name, r.name))
			agree++;
		else
			T_CHECK(0, "line %zu: maps %" PRIx64 "-%" PRIx64 " %s %" PRIx64 " %" PRIu64 " '%s', sscanf %llx-%llx %s "
				"%llx %llu '%s'", line + 1, x->start, x->end, prot, x->offset, x->inode, x->name,
				r.start, r.end, r.perms, r.offset, r.inode, r.name);
		if (line < 3 || strstr(r.name, "[stack]"))
			printf("   line %zu: %llx-%llx %s %llx inode %llu '%s' = maps entry\n", line + 1, r.start, r.end,
			       r.perms, r.offset, r.inode, r.name);
	}
	printf("   %zu of %zu lines agree (%zu entries)\n", agree, line, m.count);
	T_EQ_U(m.count, line);
	T_EQ_U(agree, line);
	T_CHECK(line >= 5, "a process has at least 5 mappings (%zu)", line);
	/* this function's own code lies in an r-x mapping of the test binary */
	const struct maps_entry *self = maps_find(&m, (uint64_t)(uintptr_t)&test_proc_self_maps);
	T_CHECK(self && (self->prot & IMG_PROT_X) && strstr(self->name, "test_maps"),
		"code at %p in '%s'", (void *)&test_proc_self_maps, self ? self->name : "(none)");
	maps_release(&m);
	wbuf_release(&text);
}

static uint64_t next_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* One line exactly as show_map_vma prints it (seq_pad to column 73 before a name). */
static size_t kernel_line(char *buf, size_t cap, uint64_t start, uint64_t end, const char perms[4],
			  uint64_t offset, unsigned major, unsigned minor, uint64_t inode, const char *name)
{
	int n = snprintf(buf, cap, "%08" PRIx64 "-%08" PRIx64 " %c%c%c%c %08" PRIx64 " %02x:%02x %" PRIu64 " ", start,
			 end, perms[0], perms[1], perms[2], perms[3], offset, major, minor, inode);
	if (*name) {
		while (n < 73)
			buf[n++] = ' ';
		n += snprintf(buf + n, cap - (size_t)n, "%s", name);
	}
	buf[n++] = '\n';
	buf[n] = 0;
	return (size_t)n;
}

static void test_kernel_format(void)
{
	static const char *names[] = { "", "/system/lib64/libart.so", "[anon:dalvik-main space (region space)]",
				       "/dev/ashmem/dalvik-zygote space (deleted)", "[stack]", "a b\tc" };
	static const char perms[][5] = { "r--p", "rw-p", "r-xp", "---p", "rwxs", "-w-s" };
	struct arena a;
	struct err e;
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	unsigned agree = 0, total = 0;

	T_SECTION("lines in the kernel's format read back to the printed values");
	arena_init(&a);
	err_init(&e);
	for (int i = 0; i < 600; i++) {
		char line[256], prot[5];
		struct maps_entry x;
		uint64_t start = next_rand(&seed) & ~0xfffull, len = (next_rand(&seed) % 0x100000 + 1) << 12;
		uint64_t offset = next_rand(&seed) >> (i % 64), inode = next_rand(&seed) >> (i % 64);
		const char *p = perms[i % 6], *name = names[i % 6];

		if (i == 0) { /* the extremes */
			start = 0, len = 0x1000, offset = UINT64_MAX, inode = UINT64_MAX;
		} else if (i == 1) {
			start = 0xfffffffffffff000ull - 0x1000, len = 0x1000, offset = 0, inode = 0;
		}
		if (start > UINT64_MAX - len)
			start -= len;
		size_t n = kernel_line(line, sizeof(line), start, start + len, p, offset, (unsigned)i & 0xff,
				       (unsigned)(i * 7) & 0xff, inode, name);
		total++;
		if (maps_parse_line(line, n, (unsigned)i + 1, &x, &a, &e) != 0) {
			T_CHECK(0, "line %d rejected: %s (%s)", i, line, e.msg);
			continue;
		}
		maps_prot_text(x.prot, x.shared, prot);
		bool ok = x.start == start && x.end == start + len && !strcmp(prot, p) && x.offset == offset &&
			  x.inode == inode && !strcmp(x.name, name) && x.deleted == (strstr(name, "(deleted)") != NULL);
		agree += ok;
		T_CHECK(ok, "printed %s read %" PRIx64 "-%" PRIx64 " %s %" PRIx64 " %" PRIu64 " '%s' deleted %d", line,
			x.start, x.end, prot, x.offset, x.inode, x.name, x.deleted);
		if (i < 2)
			printf("   %s   -> start %#" PRIx64 " end %#" PRIx64 " offset %#" PRIx64 " inode %" PRIu64 "\n",
			       line, x.start, x.end, x.offset, x.inode);
	}
	printf("   %u of %u printed lines read back exactly\n", agree, total);
	T_EQ_U(agree, total);
	arena_release(&a);
}

static void expect_line(const char *line, int want_rc, const char *want_msg, uint64_t want_inode,
			const char *want_name)
{
	struct arena a;
	struct maps_entry x;
	struct err e;
	int rc;

	arena_init(&a);
	err_init(&e);
	rc = maps_parse_line(line, strlen(line), 42, &x, &a, &e);
	printf("   \"%s\": rc %d%s%s\n", line, rc, rc < 0 ? ", " : "", rc < 0 ? e.msg : "");
	T_EQ_I(rc, want_rc);
	if (rc < 0 && want_msg)
		T_CHECK(strstr(e.msg, want_msg) && strstr(e.msg, "maps line 42"), "message \"%s\" names \"%s\"",
			e.msg, want_msg);
	if (rc == 0) {
		T_EQ_U(x.inode, want_inode);
		T_EQ_S(x.name, want_name);
	}
	arena_release(&a);
}

static void test_limits(void)
{
	T_SECTION("limits of the number columns and names");
	expect_line("ffffffffffffe000-fffffffffffff000 r--p 0 00:00 18446744073709551615 x", 0, NULL, UINT64_MAX, "x");
	/* one past UINT64_MAX, or 21 digits: not an inode, so the tail is part of the name */
	expect_line("1000-2000 r--p 0 00:00 18446744073709551616 x", 0, NULL, 0, "0 00:00 18446744073709551616 x");
	expect_line("1000-2000 r--p 0 00:00 000000000000000000001 x", 0, NULL, 0, "0 00:00 000000000000000000001 x");
	expect_line("00000000000000001000-2000 r--p", -ERR_CORRUPT, "START-END", 0, NULL);
	expect_line("1000-2000 r--p 0 00:00 7 \tname with\ttabs and  spaces \t ", 0, NULL, 7, "name with\ttabs and  spaces");
	expect_line("1000-2000 r--p 0 00:00 7  (deleted)", 0, NULL, 7, "(deleted)");
	expect_line("1000-1000 r--p", -ERR_CORRUPT, "end address not above start", 0, NULL);
	expect_line("1000-2000 r--x", -ERR_CORRUPT, "permissions", 0, NULL);
	expect_line("1000-2000 r--pq", -ERR_CORRUPT, "permissions", 0, NULL);
	expect_line("1000 2000 r--p", -ERR_CORRUPT, "START-END", 0, NULL);
	expect_line("\t \r\n", 1, NULL, 0, NULL);
}

static void test_listing_growth_and_load(void)
{
	char dir[] = "/tmp/artcarve-maps.XXXXXX", path[256];
	struct wbuf text;
	struct maps m;
	struct err e;
	FILE *fp;

	T_SECTION("a 1000-line listing (entry array grows past 64) through maps_load");
	T_CHECK(mkdtemp(dir) != NULL, "mkdtemp");
	snprintf(path, sizeof(path), "%s/maps", dir);
	wbuf_init(&text);
	for (unsigned i = 0; i < 1000; i++) {
		char line[128];
		int n = snprintf(line, sizeof(line), "%x-%x rw-p %08x 00:00 %u r%u\n", 0x10000 + i * 0x2000,
				 0x11000 + i * 0x2000, i, i, i);
		wbuf_put(&text, line, (size_t)n);
	}
	fp = fopen(path, "wb");
	T_CHECK(fp && fwrite(text.data, 1, text.len, fp) == text.len, "write %s", path);
	if (fp)
		fclose(fp);
	err_init(&e);
	maps_init(&m);
	T_EQ_I(maps_load(&m, path, &e), 0);
	T_EQ_U(m.count, 1000);
	if (m.count == 1000) {
		printf("   entry 999: %" PRIx64 "-%" PRIx64 " offset %" PRIx64 " inode %" PRIu64 " '%s'\n", m.entries[999].start,
		       m.entries[999].end, m.entries[999].offset, m.entries[999].inode, m.entries[999].name);
		T_EQ_U(m.entries[999].start, 0x10000 + 999 * 0x2000);
		T_EQ_U(m.entries[999].offset, 999);
		T_EQ_S(m.entries[999].name, "r999");
		T_EQ_S(maps_find(&m, 0x10000 + 500 * 0x2000 + 0xfff)->name, "r500");
		T_CHECK(maps_find(&m, 0x11000 + 500 * 0x2000) == NULL, "the gap after r500 is unmapped");
	}
	maps_release(&m);

	/* a bad line: the error names the file and the line */
	fp = fopen(path, "ab");
	T_CHECK(fp && fputs("zz-1 r--p\n", fp) >= 0, "append");
	if (fp)
		fclose(fp);
	maps_init(&m);
	T_EQ_I(maps_load(&m, path, &e), -ERR_CORRUPT);
	printf("   error: %s\n", e.msg);
	T_CHECK(strstr(e.msg, path) && strstr(e.msg, "maps line 1001"), "message \"%s\"", e.msg);
	maps_release(&m);

	/* an empty file is an empty listing; a missing one an I/O error naming it */
	fp = fopen(path, "wb");
	if (fp)
		fclose(fp);
	maps_init(&m);
	T_EQ_I(maps_load(&m, path, &e), 0);
	T_EQ_U(m.count, 0);
	T_CHECK(maps_find(&m, 0) == NULL, "nothing found in an empty listing");
	maps_release(&m);
	unlink(path);
	maps_init(&m);
	T_EQ_I(maps_load(&m, path, &e), -ERR_IO);
	T_CHECK(strstr(e.msg, path) != NULL, "message \"%s\"", e.msg);
	maps_release(&m);
	rmdir(dir);
	wbuf_release(&text);
}

static void test_nomem(void)
{
	static const char text[] = "1000-2000 r--p 0 00:00 0 first\n2000-3000 r--p 0 00:00 0 second\n";
	struct maps m;
	struct err e;

	T_SECTION("allocation failure: each allocation of a 2-line parse fails in turn");
	for (unsigned long k = 1; k <= 8; k++) {
		int rc;
		maps_init(&m);
		err_init(&e);
		xalloc_fail_after(k);
		rc = maps_parse(&m, (const uint8_t *)text, strlen(text), &e);
		bool fired = xalloc_fail_pending() == 0;
		xalloc_fail_after(0);
		printf("   fail allocation %lu: rc %d (%s)\n", k, rc, rc ? e.msg : "all allocations done");
		if (fired)
			T_CHECK(rc == -ERR_NOMEM && strstr(e.msg, "out of memory"), "allocation %lu: rc %d \"%s\"", k, rc,
				e.msg);
		else
			T_CHECK(rc == 0 && m.count == 2, "allocation %lu never made: rc %d, %zu entries", k, rc, m.count);
		maps_release(&m);
		if (!fired)
			break;
	}
}

int main(void)
{
	test_proc_self_maps();
	test_kernel_format();
	test_limits();
	test_listing_growth_and_load();
	test_nomem();
	T_DONE();
}
