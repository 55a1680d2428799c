/* elfw.h - the one wrapper around libelf/gelf (the only file that includes them).
 *
 * An elfw borrows the bytes it is opened on (an mmap'd file or a buffer): it never writes
 * to them and they must outlive the elfw.  Everything it hands out (note descriptors,
 * section bounds) points into or describes those bytes.  Every offset and size read from
 * the file is checked against the buffer before any byte is touched, so hostile files give
 * -ERR_TRUNC/-ERR_CORRUPT, never a crash.  Cores often have no section headers (elfw_open
 * accepts that; the section and symbol functions then report "no section"). */
#ifndef ARTCARVE_ELFW_H
#define ARTCARVE_ELFW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "carver/base/cursor.h"
#include "carver/base/err.h"

struct elfw; /* opaque */

struct elfw_phdr {
	uint32_t type, flags;   /* PT_*, PF_* */
	uint64_t offset, vaddr, filesz, memsz, align;
};

struct elfw_section {
	uint64_t offset, size, addr; /* size is 0 for SHT_NOBITS' file extent checks */
	uint32_t type;               /* SHT_* */
	uint64_t flags;              /* SHF_* */
};

/* ELF constants callers need without including <elf.h> (values from the ELF gABI). */
enum {
	ELFW_ET_EXEC = 2, ELFW_ET_DYN = 3, ELFW_ET_CORE = 4,
	ELFW_PT_LOAD = 1, ELFW_PT_NOTE = 4,
	ELFW_PF_X = 1, ELFW_PF_W = 2, ELFW_PF_R = 4,
	ELFW_NT_PRSTATUS = 1, ELFW_NT_AUXV = 6, ELFW_NT_FILE = 0x46494c45
};

/* True when the bytes start with the ELF magic (no error set; a probe). */
bool elfw_probe(const uint8_t *data, size_t len);

/* Opens the ELF held in data[0, len).  label names the file in messages.  The header, the
 * program header table and (when present) the section header table must lie inside the
 * buffer.  Returns 0 and *out (free with elfw_close), or -ERR_CORRUPT/-ERR_TRUNC ("not an
 * ELF file" etc.), -ERR_NOMEM. */
int elfw_open(struct elfw **out, const uint8_t *data, size_t len, const char *label, struct err *e);
void elfw_close(struct elfw *w); /* NULL-safe */

unsigned elfw_bits(const struct elfw *w);    /* 32 or 64 */
unsigned elfw_machine(const struct elfw *w); /* EM_* value */
unsigned elfw_type(const struct elfw *w);    /* ET_* value */
bool elfw_big_endian(const struct elfw *w);
const uint8_t *elfw_data(const struct elfw *w, size_t *len); /* the borrowed bytes */

size_t elfw_phdr_count(const struct elfw *w);
/* Program header i (i < elfw_phdr_count).  Does not check the segment's file extent:
 * use elfw_segment for its bytes. */
int elfw_phdr(const struct elfw *w, size_t i, struct elfw_phdr *out, struct err *e);
/* Cursor over the file bytes [offset, offset+filesz) of a program header (cursor.va =
 * p_vaddr); -ERR_TRUNC naming the segment when they exceed the file. */
int elfw_segment(const struct elfw *w, const struct elfw_phdr *ph, struct cursor *out, struct err *e);
/* As elfw_segment for a file cut short: the cursor holds what the file has of the segment
 * (possibly nothing) and *lost the bytes past its end (0 when whole). */
void elfw_segment_head(const struct elfw *w, const struct elfw_phdr *ph, struct cursor *out, uint64_t *lost);

/* Calls fn for each note of every PT_NOTE segment, in file order.  name is the note's
 * NUL-terminated name ("" when absent), desc a cursor over the descriptor bytes (cursor.va
 * = file offset).  A non-zero return from fn stops the walk and is returned.  Malformed
 * note headers give -ERR_CORRUPT/-ERR_TRUNC naming the file offset. */
int elfw_for_each_note(const struct elfw *w,
		       int (*fn)(void *ctx, const char *name, uint32_t type, struct cursor *desc,
				 struct err *e),
		       void *ctx, struct err *e);

/* 0 and *out filled, or -ERR_CORRUPT "no section NAME" (also when there is no section
 * header table).  The section's file extent is checked unless it is SHT_NOBITS. */
int elfw_section_by_name(const struct elfw *w, const char *name, struct elfw_section *out,
			 struct err *e);
/* Cursor over a section's file bytes (cursor.va = sh_addr); -ERR_TRUNC when outside. */
int elfw_section_bytes(const struct elfw *w, const struct elfw_section *s, struct cursor *out,
		       struct err *e);

/* Looks NAME up in .dynsym, then .symtab; -ERR_CORRUPT "no symbol NAME" if absent.
 * value/size may be NULL. */
int elfw_symbol(const struct elfw *w, const char *name, uint64_t *value, uint64_t *size,
		struct err *e);

/* File offset of virtual address va through the PT_LOAD segments (va must lie in a
 * segment's file-backed part); -ERR_UNMAPPED naming va otherwise. */
int elfw_va_to_offset(const struct elfw *w, uint64_t va, uint64_t *off, struct err *e);

/* Virtual address of file offset off through the PT_LOAD segments (off must lie in a
 * segment's file-backed part); -ERR_UNMAPPED naming off otherwise. */
int elfw_offset_to_va(const struct elfw *w, uint64_t off, uint64_t *va, struct err *e);

/* The symbol covering virtual address va: the function or object symbol of .symtab, then
 * .dynsym (the section tables; when the file has no section header table, the dynamic
 * symbol table that PT_DYNAMIC's DT_SYMTAB/DT_STRTAB/DT_HASH or DT_GNU_HASH name).  The
 * sorted index is built on the first call and kept by w (hence not const).  Returns 0 with
 * *name (NUL-terminated, inside the borrowed bytes) and *sym_off = va - symbol value, 1 when
 * no symbol covers va (a sized symbol ends before it, or va precedes every symbol), or
 * -ERR_TRUNC/-ERR_CORRUPT for a damaged table (every offset is checked), -ERR_NOMEM.
 * ARM symbols have their Thumb bit cleared. */
int elfw_symbol_at(struct elfw *w, uint64_t va, const char **name, uint64_t *sym_off, struct err *e);
/* The load bias of the mapped copy these bytes come from (run-time address - link
 * address): dynamic-table addresses a loader relocated in place are read back through it. */
void elfw_set_load_bias(struct elfw *w, uint64_t bias);
/* The value (and size, may be NULL) of the symbol NAME in the index elfw_symbol_at uses
 * (.symtab, .dynsym, else PT_DYNAMIC's table): 0, 1 when no symbol has that name, or the
 * index's error.  Linear in the symbol count. */
int elfw_symbol_value(struct elfw *w, const char *name, uint64_t *value, uint64_t *size, struct err *e);
/* Number of symbols in the index (building it); -code on error. */
int elfw_symbol_count(struct elfw *w, size_t *count, struct err *e);

/* For an ELF rebuilt by the caller from a process's mapped segments (a caller-owned copy:
 * the section header table sits at the end of the file and is usually not mapped): when
 * e_shoff/e_shnum point past len, clears e_shoff, e_shnum and e_shstrndx so elfw_open
 * accepts the copy and symbols come from PT_DYNAMIC.  Returns true when it changed the
 * copy; false (nothing done) when the table lies inside or the bytes are no ELF header. */
bool elfw_drop_unmapped_sections(uint8_t *buf, size_t len);

#endif
