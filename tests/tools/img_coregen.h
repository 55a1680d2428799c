/* img_coregen.h - builds a small, fully known ELF64 little-endian core file (x86_64,
 * ET_CORE) in a wbuf, for unit tests, fuzz seeds and the corruption sweep.  Written from
 * the ELF gABI and linux fs/binfmt_elf.c (NT_FILE layout); no bytes come from real cores.
 *
 * Layout: ELF header, program headers (PT_NOTE first, then the PT_LOADs of coregen_segs),
 * the note segment (NT_PRSTATUS "CORE" with a dummy register set, NT_FILE "CORE" naming
 * the two file-backed segments), then each segment's captured bytes.  Byte at virtual
 * address va is coregen_byte(va), so readers can check any address.  `unit` scales every
 * size (4096 gives page-sized segments, 16 gives a tiny seed for fuzzing). */
#ifndef ARTCARVE_IMG_COREGEN_H
#define ARTCARVE_IMG_COREGEN_H

#include <stdint.h>
#include <string.h>

#include "carver/base/wbuf.h"

struct coregen_seg {
	uint64_t start, memsz, filesz; /* in units */
	uint32_t flags;                /* PF_R 4, PF_W 2, PF_X 1 */
	const char *file;              /* NT_FILE name, or NULL for anonymous memory */
};

/* start addresses are multiplied by unit too, offset by COREGEN_BASE */
#define COREGEN_BASE 0x12c00000ull
static const struct coregen_seg coregen_segs[] = {
	{ 0, 2, 2, 5, "/system/bin/app_process64" },   /* r-x, file-backed */
	{ 2, 1, 1, 4, "/system/lib64/libart.so" },      /* r--, file-backed, abuts the first */
	{ 8, 4, 4, 6, NULL },                           /* rw- heap */
	{ 12, 2, 1, 6, NULL },                          /* rw-, abuts, tail not captured */
	{ 20, 1, 0, 0, NULL },                          /* ---, nothing captured */
};
#define COREGEN_NSEGS (sizeof(coregen_segs) / sizeof(coregen_segs[0]))

static inline uint8_t coregen_byte(uint64_t va) { return (uint8_t)(va ^ va >> 8 ^ (va >> 16) * 7u); }

static inline uint64_t coregen_va(unsigned unit, uint64_t units) { return COREGEN_BASE + units * unit; }

static inline void coregen_note(struct wbuf *b, const char *name, uint32_t type, const struct wbuf *desc)
{
	size_t nl = strlen(name) + 1;
	wbuf_u32le(b, (uint32_t)nl);
	wbuf_u32le(b, (uint32_t)desc->len);
	wbuf_u32le(b, type);
	wbuf_put(b, name, nl);
	wbuf_zeros(b, (4 - nl % 4) % 4);
	wbuf_put(b, desc->data, desc->len);
	wbuf_zeros(b, (4 - desc->len % 4) % 4);
}

/* The thread's stack pointer: this far into the page of segment start 9 */
#define COREGEN_SP_OFF 0x100u

static inline void coregen_notes(struct wbuf *notes, unsigned unit)
{
	struct wbuf d;
	uint64_t n = 0;

	wbuf_init(&d);
	/* NT_PRSTATUS: 336 bytes on x86_64 (struct elf_prstatus); pid at offset 32, pr_reg at 112,
	 * rsp its 20th register (offset 264): COREGEN_SP */
	wbuf_zeros(&d, 336);
	if (!d.failed) {
		d.data[32] = 42;
		for (int i = 0; i < 8; i++)
			d.data[264 + i] = (uint8_t)((coregen_va(unit, 9) + COREGEN_SP_OFF) >> (8 * i));
	}
	coregen_note(notes, "CORE", 1, &d);
	wbuf_reset(&d);
	for (size_t i = 0; i < COREGEN_NSEGS; i++)
		n += coregen_segs[i].file != NULL;
	wbuf_u64le(&d, n);
	wbuf_u64le(&d, unit); /* page size */
	for (size_t i = 0; i < COREGEN_NSEGS; i++)
		if (coregen_segs[i].file) {
			wbuf_u64le(&d, coregen_va(unit, coregen_segs[i].start));
			wbuf_u64le(&d, coregen_va(unit, coregen_segs[i].start + coregen_segs[i].memsz));
			wbuf_u64le(&d, i + 1); /* file offset in pages */
		}
	for (size_t i = 0; i < COREGEN_NSEGS; i++)
		if (coregen_segs[i].file)
			wbuf_put(&d, coregen_segs[i].file, strlen(coregen_segs[i].file) + 1);
	coregen_note(notes, "CORE", 0x46494c45, &d);
	wbuf_release(&d);
}

/* Appends the core to b; returns 0 or -1 when an allocation failed. */
static inline int coregen_build(struct wbuf *b, unsigned unit)
{
	const size_t ehsize = 64, phentsize = 56, phnum = COREGEN_NSEGS + 1;
	struct wbuf notes;
	uint64_t off;
	size_t base = b->len;

	wbuf_init(&notes);
	coregen_notes(&notes, unit);
	/* ELF header (gABI): ident, type, machine, version, entry, phoff, shoff, flags,
	 * ehsize, phentsize, phnum, shentsize, shnum, shstrndx */
	wbuf_put(b, "\177ELF\2\1\1\0\0\0\0\0\0\0\0\0", 16);
	wbuf_u16le(b, 4);  /* ET_CORE */
	wbuf_u16le(b, 62); /* EM_X86_64 */
	wbuf_u32le(b, 1);
	wbuf_u64le(b, 0);
	wbuf_u64le(b, ehsize);
	wbuf_u64le(b, 0);
	wbuf_u32le(b, 0);
	wbuf_u16le(b, (uint16_t)ehsize);
	wbuf_u16le(b, (uint16_t)phentsize);
	wbuf_u16le(b, (uint16_t)phnum);
	wbuf_u16le(b, 64);
	wbuf_u16le(b, 0);
	wbuf_u16le(b, 0);
	/* program headers: type, flags, offset, vaddr, paddr, filesz, memsz, align */
	off = ehsize + phentsize * phnum;
	wbuf_u32le(b, 4);
	wbuf_u32le(b, 0);
	wbuf_u64le(b, off);
	wbuf_u64le(b, 0);
	wbuf_u64le(b, 0);
	wbuf_u64le(b, notes.len);
	wbuf_u64le(b, 0);
	wbuf_u64le(b, 4);
	off += notes.len;
	for (size_t i = 0; i < COREGEN_NSEGS; i++) {
		const struct coregen_seg *s = &coregen_segs[i];
		wbuf_u32le(b, 1);
		wbuf_u32le(b, s->flags);
		wbuf_u64le(b, off);
		wbuf_u64le(b, coregen_va(unit, s->start));
		wbuf_u64le(b, 0);
		wbuf_u64le(b, s->filesz * unit);
		wbuf_u64le(b, s->memsz * unit);
		wbuf_u64le(b, unit);
		off += s->filesz * unit;
	}
	wbuf_put(b, notes.data, notes.len);
	wbuf_release(&notes);
	for (size_t i = 0; i < COREGEN_NSEGS; i++) {
		uint64_t va = coregen_va(unit, coregen_segs[i].start);
		for (uint64_t k = 0; k < coregen_segs[i].filesz * unit; k++)
			wbuf_u8(b, coregen_byte(va + k));
	}
	return b->failed || b->len - base != off ? -1 : 0;
}

/* A /proc/PID/maps listing for the generated core: names the anonymous segments, spans the
 * two abutting heap segments with one line, splits nothing else, and adds lines nothing
 * captured (a guard page with a space in its name and a "(deleted)" ashmem mapping). */
static inline void coregen_maps(struct wbuf *b, unsigned unit)
{
	const struct {
		uint64_t start, end, offset; /* units */
		const char *perms, *name;
	} lines[] = {
		{ 0, 2, 1, "r-xp", "/system/bin/app_process64" },
		{ 2, 3, 2, "r--p", "/system/lib64/libart.so" },
		{ 3, 4, 0, "---p", "" },
		{ 8, 14, 0, "rw-p", "[anon:dalvik-main space (region space)]" },
		{ 14, 16, 0, "---p", "[anon:dalvik-main space (region space)]" },
		{ 20, 21, 0, "---p", "/dev/ashmem/dalvik-Sentinel fault page (deleted)" },
		{ 30, 31, 0, "rw-p", "[stack]" },
	};
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		wbuf_printf(b, "%08llx-%08llx %s %08llx fd:00 %u%s%s\n",
			    (unsigned long long)coregen_va(unit, lines[i].start),
			    (unsigned long long)coregen_va(unit, lines[i].end), lines[i].perms,
			    (unsigned long long)(lines[i].offset * unit),
			    lines[i].name[0] == '/' ? 1234u : 0u, lines[i].name[0] ? "                    " : "",
			    lines[i].name);
}

#endif
