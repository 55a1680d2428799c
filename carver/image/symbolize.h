/* symbolize.h - places PCs in mapped files and names them from ELF symbols.
 *
 * A symz holds the mappings of one process ([start, end) of file PATH at file offset
 * OFFSET, from a maps listing, an image's NT_FILE names or a dump's MAPS section) and, per
 * file, the ELF bytes to name symbols from: the caller's bytes, the bytes an image holds of
 * the file (symz_add_image rebuilds the file from its mapped segments), or the file
 * symbols_dir + PATH (a copy of the device's /system tree, mmap'd read-only).  When a file
 * has both, the file under symbols_dir wins: it keeps .symtab, which is never mapped.
 * Files are opened on the first lookup that lands in them.
 *
 * A PC is reported as lib + lib_offset, lib_offset being the PC's offset in the FILE
 * (pc - start + offset, what `lib+0x...` means in the tool's output), and as symbol +
 * symbol_offset when an ELF symbol (.symtab, then .dynsym) covers the virtual address that
 * file offset loads at (PT_LOAD).  All strings are owned by the symz (symbol names point
 * into the ELF bytes: caller-given bytes must outlive it). */
#ifndef ARTCARVE_SYMBOLIZE_H
#define ARTCARVE_SYMBOLIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "carver/base/err.h"
#include "carver/image/image.h"

struct symz;

struct symz_frame {
	uint64_t pc;
	bool placed;            /* pc lies in a mapping of a named file */
	const char *lib;        /* that file's path, NULL when not placed */
	uint64_t lib_offset;    /* file offset of pc */
	const char *symbol;     /* NULL when no symbol covers it */
	uint64_t symbol_offset;
	const char *problem;    /* why a placed pc has no symbol when the file could not be
				   read or parsed ("no file DIR/x", "x: bad ELF ..."), else NULL */
};

int symz_new(struct symz **out, const char *symbols_dir /* may be NULL */, struct err *e);
void symz_free(struct symz *s); /* NULL-safe */
/* Mapping [start,end) of file path at file offset offset; bytes = the ELF file's bytes when
 * the caller holds them (else NULL: looked up as symbols_dir + path, mmap'd through
 * mapfile).  Mappings added later must not overlap earlier ones (-ERR_CORRUPT); an empty or
 * wrapping range is -ERR_CORRUPT.  Only absolute paths name files; others ("[stack]") are
 * accepted and place nothing. */
int symz_add_map(struct symz *s, const char *path, uint64_t start, uint64_t end, uint64_t offset,
		 const uint8_t *bytes, size_t len, struct err *e);
/* Every file-backed region of the image (maps / NT_FILE names), with the file's bytes
 * rebuilt from the captured regions when they hold its ELF header. */
int symz_add_image(struct symz *s, const struct image *img, struct err *e);
/* The same for the files whose base name starts with file_prefix only (NULL: every file). */
int symz_add_image_files(struct symz *s, const struct image *img, const char *file_prefix, struct err *e);
/* Fills *out for pc (strings owned by s).  An unplaced pc or a file without symbols is no
 * error (see placed, symbol, problem); -ERR_NOMEM only. */
int symz_lookup(struct symz *s, uint64_t pc, struct symz_frame *out, struct err *e);
/* The run-time address of the symbol NAME of the first file (in path order of addition)
 * whose base name starts with file_prefix ("libart.so" matches libart.so and libart.so.0):
 * the symbol's link address moved by the load bias of the file's mapping at file offset 0.
 * 0 and *va, 1 when no such file, mapping or symbol is known (*why says which), -ERR_NOMEM;
 * a file that does not parse is a 1 with its problem in *why. */
int symz_symbol_va(struct symz *s, const char *file_prefix, const char *name, uint64_t *va, struct err *why,
		   struct err *e);
/* Number of mappings added. */
size_t symz_map_count(const struct symz *s);

#endif
