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
 * Literals are read from the code itself when they lie inside it, else through an image view. */
#ifndef ARTCARVE_HOOKS_H
#define ARTCARVE_HOOKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "art/format/art_image.h"
#include "art/format/art_layout.h"
#include "carver/wrap/disasm.h"
#include "carver/base/cursor.h"
#include "carver/base/err.h"
#include "carver/image/image.h"

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

struct hooks_jump {
	bool found;          /* the code starts with a jump to outside [va, va + len) */
	bool target_known;   /* false: a literal jump whose literal could not be read */
	uint64_t target;
	char how[160];       /* the instructions, e.g. "ldr x16, #0x1008; br x16" */
};

/* Looks at the first instructions of code [va, va+len) (bytes borrowed); a literal outside
 * the code is read through view (the process's address space), NULL when nothing is. */
int hooks_first_jump(struct disasm *d, enum disasm_arch arch, const uint8_t *code, size_t len, uint64_t va,
		     const struct image *view, struct hooks_jump *out, struct err *e);

/* One ArtMethod of an image section. */
struct hooks_art_method {
	uint64_t va;            /* address of the ArtMethod */
	uint64_t entry;         /* entry_point_from_quick_compiled_code_ */
	uint64_t entry_at;      /* address of that field */
	uint32_t access_flags, dex_method_index;
	const char *image;      /* the image holding it (file path or mapping name), set by hooks_walk_image */
};

typedef int (*hooks_method_fn)(void *ctx, const struct hooks_art_method *m, struct err *e);

/* Walks the ArtMethods section of an image (7.0+: LengthPrefixedArray<ArtMethod> after
 * LengthPrefixedArray, runtime/art_method.h, dex2oat/linker/image_writer.cc bins kArtMethodClean
 * + kArtMethodDirty) or, with prefixed = false, the runtime methods section (ArtMethods back to
 * back).  section.va is the runtime address of its first byte.  -ERR_UNSUP for 5.x/6.0. */
int hooks_walk_methods(const struct cursor *section, const struct art_layout *l, unsigned pointer_size,
		       bool prefixed, hooks_method_fn fn, void *ctx, struct err *e);

/* ---- images (hooks_image.c) ---- */

/* Calls fn for every ArtMethod of the ArtMethods and runtime-methods sections of the image
 * whose header is h, read through view, where the image is mapped at its image_begin; each
 * method names the image `label`.  -ERR_UNSUP when the version has no mirror layout row. */
int hooks_walk_image(const struct image *view, const struct art_image_header *h, const char *label,
		     hooks_method_fn fn, void *ctx, struct err *e);
/* hooks_walk_image over every image space of a process image: a captured region that starts
 * with an ImageHeader whose image_begin is its own address (gc/space/image_space.cc maps
 * each image at the address its header names). */
int hooks_walk_image_spaces(const struct image *img, hooks_method_fn fn, void *ctx, struct err *e);
/* Adds the code of a process image the runtime knows besides its OATs: the JIT code cache
 * and libart's executable mappings, by mapping name. */
int hooks_known_code(const struct image *img, struct hooks_ranges *known, struct err *e);

/* Called for an OAT file found beside an image with the runtime address of its oatdata (the
 * image header's oat_data_begin).  Returns <0 to stop (lack of memory); an OAT that does not
 * read is the callee's to record, its code then stays unverified. */
typedef int (*hooks_oat_fn)(void *ctx, const char *oat_path, uint64_t oatdata, struct err *e);

struct hooks_folder {
	struct hooks_ranges *unverified; /* in: where code that is not here is added */
	size_t images;                   /* images of the study's version and pointer size (itself included) */
	size_t skipped;                  /* .art files that did not load or parse; first_skip says why */
	struct err first_skip;
	uint64_t images_end, oats_begin; /* end of the highest image, start of the lowest OAT */
};

/* The code the methods of the image file at art_path (header study) may enter, as the
 * runtime maps a multi-image boot image (dex2oat --multi-image, gc/space/image_space.cc):
 * every image of its folder with the same version and pointer size maps its OAT at its
 * oat_data_begin (oat is called when the file is beside the image), its OAT extent
 * [oat_file_begin, oat_file_end) is added to f->unverified, so is the gap between the last
 * image and the first OAT (components absent from the folder), and the boot image an app
 * image or extension names (boot_oat_* 7.0-9, boot_image_* 10+). */
int hooks_image_folder(const char *art_path, const struct art_image_header *study, hooks_oat_fn oat, void *ctx,
		       struct hooks_folder *f, struct err *e);

#endif
