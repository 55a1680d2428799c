/* img_split.c - test tool: rewrites an ELF64 little-endian core as another process-image
 * container, so tests can check that every container loads to the same regions and bytes.
 *
 *   img_split CORE MAPS FORM OUTDIR      FORM: maps-dir | memfetch | vol2 | vol3
 *   img_split --mkcore UNIT CORE MAPS    writes the generated core of img_coregen.h
 *
 * It reads the core with its own few lines of ELF parsing (not artcarve's loader, which is
 * what is under test).  Each PT_LOAD's captured bytes (p_filesz) go to one file, written
 * sparse (zero 4 KiB blocks are skipped with lseek) so large zero-filled heaps cost little
 * disk.  Names and permissions in the memfetch index come from the MAPS line that holds
 * the segment's start, written the way memfetch 0.05b writes them (a name holding '/' is
 * cut before the '/' into a "MAPPED FROM:" line, and the file is map-NNN.bin).  Region file
 * names alternate between START-END.bin and 0xSTART-0xEND.bin; memfetch entries alternate
 * between the two-line and the one-line range forms.  Uses only libc and the foundation. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "carver/base/cursor.h"
#include "carver/base/mapfile.h"
#include "carver/base/wbuf.h"
#include "tests/tools/img_coregen.h"

#define SPLIT_PID 4242

struct seg {
	uint64_t vaddr, memsz, filesz, offset;
	uint32_t flags;
};

static void die(const char *fmt, const char *arg)
{
	fprintf(stderr, "img_split: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n");
	exit(1);
}

static size_t read_segs(const struct mapfile *core, struct seg *out, size_t cap)
{
	struct cursor c;
	struct err e;
	uint64_t phoff;
	uint16_t phentsize, phnum;
	size_t n = 0;

	mapfile_cursor(core, &c);
	if (core->len < 64 || memcmp(core->data, "\177ELF\2\1", 6))
		die("%s: not an ELF64 little-endian file", core->path);
	if (cur_peek_u64le(&c, 32, &phoff, &e) || cur_seek(&c, 54, &e) || cur_u16le(&c, &phentsize, &e) ||
	    cur_u16le(&c, &phnum, &e) || phentsize < 56)
		die("%s: bad ELF header", core->path);
	for (uint16_t i = 0; i < phnum; i++) {
		struct cursor ph;
		uint32_t type;
		struct seg s;
		if (cur_sub(&c, (size_t)phoff + (size_t)i * phentsize, 56, &ph, &e) || cur_u32le(&ph, &type, &e) ||
		    cur_u32le(&ph, &s.flags, &e) || cur_u64le(&ph, &s.offset, &e) || cur_u64le(&ph, &s.vaddr, &e) ||
		    cur_skip(&ph, 8, &e) || cur_u64le(&ph, &s.filesz, &e) || cur_u64le(&ph, &s.memsz, &e))
			die("%s: bad program header", core->path);
		if (type != 1 || s.memsz == 0)
			continue;
		if (s.offset > core->len || s.filesz > core->len - s.offset)
			die("%s: segment outside the file", core->path);
		if (n == cap)
			die("%s: too many segments", core->path);
		out[n++] = s;
	}
	return n;
}

static void write_sparse(const char *path, const uint8_t *p, size_t len)
{
	static const uint8_t zero[4096];
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);

	if (fd < 0)
		die("cannot create %s", path);
	for (size_t at = 0; at < len; at += sizeof(zero)) {
		size_t n = len - at < sizeof(zero) ? len - at : sizeof(zero);
		if (!memcmp(p + at, zero, n)) {
			if (lseek(fd, (off_t)n, SEEK_CUR) < 0)
				die("cannot seek in %s", path);
		} else if (write(fd, p + at, n) != (ssize_t)n) {
			die("cannot write %s", path);
		}
	}
	if (ftruncate(fd, (off_t)len) != 0 || close(fd) != 0)
		die("cannot finish %s", path);
}

static void write_text(const char *path, const void *p, size_t len)
{
	FILE *fp = fopen(path, "wb");
	if (!fp || fwrite(p, 1, len, fp) != len || fclose(fp) != 0)
		die("cannot write %s", path);
}

/* The MAPS line holding va: its perms' 4th char and its name (both point into a static). */
static const char *maps_line_for(const struct mapfile *maps, uint64_t va, char *share)
{
	static char name[1024];
	const char *s = (const char *)maps->data;
	size_t pos = 0;

	*share = 'p';
	while (pos < maps->len) {
		const char *nl = memchr(s + pos, '\n', maps->len - pos);
		size_t end = nl ? (size_t)(nl - s) : maps->len;
		char line[1200], perms[8];
		unsigned long long a, b;
		int at = 0;
		size_t n = end - pos < sizeof(line) - 1 ? end - pos : sizeof(line) - 1;

		memcpy(line, s + pos, n);
		line[n] = '\0';
		pos = end + 1;
		if (sscanf(line, "%llx-%llx %7s %*x %*x:%*x %*u %n", &a, &b, perms, &at) < 3 || va < a || va >= b)
			continue;
		*share = perms[3];
		snprintf(name, sizeof(name), "%s", at > 0 ? line + at : "");
		return name;
	}
	return "";
}

static void perms_text(uint32_t flags, char share, char out[5])
{
	out[0] = flags & 4 ? 'r' : '-';
	out[1] = flags & 2 ? 'w' : '-';
	out[2] = flags & 1 ? 'x' : '-';
	out[3] = share;
	out[4] = '\0';
}

static void memfetch_entry(struct wbuf *lst, const struct mapfile *maps, const struct seg *s, unsigned i,
			   char *file, size_t file_size)
{
	char share, perms[5], line[1400];
	const char *name = maps_line_for(maps, s->vaddr, &share);
	const char *slash = strchr(name, '/');
	uint64_t end = s->vaddr + s->memsz;

	perms_text(s->flags, share, perms);
	snprintf(line, sizeof(line), "%08llx-%08llx %s 00000000 00:00 0          %s", (unsigned long long)s->vaddr,
		 (unsigned long long)end, perms, name);
	snprintf(file, file_size, "%s-%03u.bin", slash ? "map" : "mem", i);
	if (i % 2 == 0)
		wbuf_printf(lst, "[%03u] %s:\n     Memory range 0x%08llx to 0x%08llx (%llu bytes)\n", i, file,
			    (unsigned long long)s->vaddr, (unsigned long long)end, (unsigned long long)s->memsz);
	else
		wbuf_printf(lst, "[%03u] %s: 0x%016llx-0x%016llx (%llu bytes)\n", i, file, (unsigned long long)s->vaddr,
			    (unsigned long long)end, (unsigned long long)s->memsz);
	if (slash) {
		/* memfetch puts a NUL over the character before the first '/' */
		char *cut = strchr(line, '/');
		wbuf_printf(lst, "     MAPPED FROM: %s\n", cut);
		cut[-1] = '\0';
	}
	wbuf_printf(lst, "     %s\n\n", line);
}

static void split(const char *core_path, const char *maps_path, const char *form, const char *dir)
{
	struct mapfile core, maps;
	struct err e;
	struct seg segs[4096];
	struct wbuf lst;
	char path[4096], file[128];
	size_t n;

	if (mapfile_open(&core, core_path, &e) || mapfile_open(&maps, maps_path, &e))
		die("%s", e.msg);
	n = read_segs(&core, segs, sizeof(segs) / sizeof(segs[0]));
	if (mkdir(dir, 0755) != 0 && errno != EEXIST)
		die("cannot create %s", dir);
	wbuf_init(&lst);
	wbuf_printf(&lst, "# This memory data dump generated by memfetch by <lcamtuf@coredump.cx>\n"
			  "# PID %d, declared executable: /system/bin/app_process64\n"
			  "# Date: Thu Jan  1 00:00:00 1970\n\n", SPLIT_PID);
	for (size_t i = 0; i < n; i++) {
		const struct seg *s = &segs[i];
		unsigned long long a = s->vaddr, b = s->vaddr + s->memsz;
		if (!strcmp(form, "maps-dir"))
			snprintf(file, sizeof(file), i % 2 ? "0x%llx-0x%llx.bin" : "%llx-%llx.bin", a, b);
		else if (!strcmp(form, "vol2"))
			snprintf(file, sizeof(file), "task.%d.0x%llx.vma", SPLIT_PID, a);
		else if (!strcmp(form, "vol3"))
			snprintf(file, sizeof(file), "pid.%d.vma.0x%llx-0x%llx.dmp", SPLIT_PID, a, b);
		else if (!strcmp(form, "memfetch"))
			memfetch_entry(&lst, &maps, s, (unsigned)i, file, sizeof(file));
		else
			die("unknown form %s", form);
		snprintf(path, sizeof(path), "%s/%s", dir, file);
		write_sparse(path, core.data + s->offset, (size_t)s->filesz);
	}
	if (!strcmp(form, "maps-dir")) {
		snprintf(path, sizeof(path), "%s/maps", dir);
		write_text(path, maps.data, maps.len);
	} else if (!strcmp(form, "memfetch")) {
		wbuf_printf(&lst, "# End of file.\n");
		snprintf(path, sizeof(path), "%s/mfetch.lst", dir);
		write_text(path, lst.data, lst.len);
	}
	wbuf_release(&lst);
	mapfile_close(&core);
	mapfile_close(&maps);
}

static void mkcore(unsigned unit, const char *core_path, const char *maps_path)
{
	struct wbuf b;

	wbuf_init(&b);
	if (coregen_build(&b, unit) != 0)
		die("%s", "cannot build the core");
	write_text(core_path, b.data, b.len);
	wbuf_reset(&b);
	coregen_maps(&b, unit);
	write_text(maps_path, b.data, b.len);
	wbuf_release(&b);
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "--mkcore")) {
		mkcore((unsigned)strtoul(argv[2], NULL, 0), argv[3], argv[4]);
		return 0;
	}
	if (argc != 5) {
		fprintf(stderr, "usage: img_split CORE MAPS maps-dir|memfetch|vol2|vol3 OUTDIR\n"
				"       img_split --mkcore UNIT CORE MAPS\n");
		return 2;
	}
	split(argv[1], argv[2], argv[3], argv[4]);
	return 0;
}
