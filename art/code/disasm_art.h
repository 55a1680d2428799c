/* disasm_art.h - what ART adds to the Capstone wrapper (carver/wrap/disasm.h): the
 * OatHeader's InstructionSet numbers and the thread register of ART's compiled code. */
#ifndef ARTCARVE_DISASM_ART_H
#define ARTCARVE_DISASM_ART_H

#include "carver/base/err.h"
#include "carver/wrap/disasm.h"

/* A disassembler whose DISASM_BASE_THREAD operands are relative to ART's thread register
 * (quick entry points are Thread offsets); release with disasm_close. */
int disasm_open(struct disasm **out, struct err *e);
/* Maps ART's InstructionSet value (u32 in the OatHeader) to an arch; the enum gained
 * kRiscv64 = 4 at oat 229 (libartbase/arch/instruction_set.h, commit ebc548c64c).
 * Returns -ERR_UNSUP for None, MIPS and RISC-V. */
int disasm_arch_from_art_isa(unsigned isa, unsigned oat_version, enum disasm_arch *out, struct err *e);

#endif
