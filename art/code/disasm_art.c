/* disasm_art.c - ART's instruction sets and thread register for the Capstone wrapper (see
 * disasm_art.h). */
#include "art/code/disasm_art.h"

#include <string.h>

#include "art/format/oat.h"

/* ART's thread register TR (runtime/arch/{arm64,arm}/registers_{arm64,arm}.h: TR = X19,
 * TR = R9) and, on x86, the segment its Thread::Current() reads through (runtime/arch/x86
 * and x86_64 thread_x86*.cc: fs, gs). */
static const struct disasm_thread_regs disasm_art_thread = { .name = {
	[DISASM_THUMB2] = "r9", [DISASM_ARM64] = "x19", [DISASM_X86] = "fs", [DISASM_X86_64] = "gs",
} };

int disasm_open(struct disasm **out, struct err *e)
{
	return disasm_open_thread(out, &disasm_art_thread, e);
}

/* The ART instruction set names of the OAT header rows (art/format/oat.c) that Capstone
 * decodes: kArm code is Thumb-2 in every shipped release (compiler/compiled_method.h). */
static const struct { const char *isa; enum disasm_arch arch; } disasm_isas[] = {
	{ "arm", DISASM_THUMB2 }, { "thumb2", DISASM_THUMB2 }, { "arm64", DISASM_ARM64 },
	{ "x86", DISASM_X86 }, { "x86_64", DISASM_X86_64 },
};

int disasm_arch_from_art_isa(unsigned isa, unsigned oat_version, enum disasm_arch *out, struct err *e)
{
	const char *name = oat_isa_name(oat_version, isa);

	for (size_t i = 0; name && i < sizeof(disasm_isas) / sizeof(disasm_isas[0]); i++)
		if (!strcmp(disasm_isas[i].isa, name)) {
			*out = disasm_isas[i].arch;
			return 0;
		}
	return ERR_SET(e, ERR_UNSUP, ERR_NO_VA, "instruction set %u%s%s%s (oat %03u) cannot be disassembled", isa,
		       name ? " (" : "", name ? name : "", name ? ")" : "", oat_version);
}
