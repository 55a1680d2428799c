/* hooks.h - signs of hooked ART methods: entry points outside every known code mapping, and
 * compiled code whose first instructions jump out of the method (inline hooks of the kind
 * Frida, Xposed/EdXposed/LSPosed and similar frameworks install).
 *
 * The inline patterns recognised (first instructions of the code, target outside [code, end)):
 *   all ISAs   an unconditional direct jump (arm64 b, Thumb-2 b/b.w, x86 jmp rel)
 *   arm64      ldr xN, #literal ; br xN          adrp xN, page ; add xN, xN, #off ; br xN
 *              adrp xN, page ; ldr xN, [xN, #off] ; br xN
 *   Thumb-2    ldr.w pc, [pc, #off]              ldr rN, [pc, #off] ; bx rN
 *   x86_64     jmp qword ptr [rip + d]           movabs rN, imm ; jmp rN      push imm ; ret
 *   x86        jmp dword ptr [abs]               mov rN, imm ; jmp rN         push imm ; ret
 * Literals are read from the code itself when they lie inside it, else through a callback. */
#ifndef ARTCARVE_HOOKS_H
#define ARTCARVE_HOOKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "art/format/art_layout.h"
#include "art/code/disasm.h"
#include "carver/base/cursor.h"
#include "carver/base/err.h"

/* Known code: [start, end) with what it is ("oat exec /system/framework/boot.oat", "libart"). */
struct hooks_range {
	uint64_t start, end;
	const char *what;
};

struct hooks_ranges {
	struct hooks_range *v;
	size_t count;
};

int hooks_ranges_add(struct hooks_ranges *r, uint64_t start, uint64_t end, const char *what, struct err *e);
/* The range holding va, NULL if none. */
const struct hooks_range *hooks_ranges_find(const struct hooks_ranges *r, uint64_t va);
void hooks_ranges_release(struct hooks_ranges *r);

/* Reads n bytes at address va into buf: 0, or -ERR_UNMAPPED/-ERR_TRUNC. */
typedef int (*hooks_read_fn)(void *ctx, uint64_t va, void *buf, size_t n, struct err *e);

struct hooks_jump {
	bool found;          /* the code starts with a jump to outside [va, va + len) */
	bool target_known;   /* false: a literal jump whose literal could not be read */
	uint64_t target;
	char how[160];       /* the instructions, e.g. "ldr x16, #0x1008; br x16" */
};

/* Looks at the first instructions of code [va, va+len) (bytes borrowed). */
int hooks_first_jump(struct disasm *d, enum disasm_arch arch, const uint8_t *code, size_t len, uint64_t va,
		     hooks_read_fn read, void *ctx, struct hooks_jump *out, struct err *e);

/* One ArtMethod of an image section. */
struct hooks_art_method {
	uint64_t va;            /* address of the ArtMethod */
	uint64_t entry;         /* entry_point_from_quick_compiled_code_ */
	uint64_t entry_at;      /* address of that field */
	uint32_t access_flags, dex_method_index;
};

typedef int (*hooks_method_fn)(void *ctx, const struct hooks_art_method *m, struct err *e);

/* Walks the ArtMethods section of an image (7.0+: LengthPrefixedArray<ArtMethod> after
 * LengthPrefixedArray, runtime/art_method.h, dex2oat/linker/image_writer.cc bins kArtMethodClean
 * + kArtMethodDirty) or, with prefixed = false, the runtime methods section (ArtMethods back to
 * back).  section.va is the runtime address of its first byte.  -ERR_UNSUP for 5.x/6.0. */
int hooks_walk_methods(const struct cursor *section, const struct art_layout *l, unsigned pointer_size,
		       bool prefixed, hooks_method_fn fn, void *ctx, struct err *e);

#endif
