/* disasm.h - the Capstone wrapper: instruction decoding of Thumb-2, arm64, x86 and x86_64
 * code (the only user of Capstone).
 *
 * This file is the wrapper itself rather than a user of a thinner one: everything it does is
 * the translation of Capstone's per-ISA detail (cs_arm64_op, cs_arm_op, cs_x86_op, groups)
 * into the plain structs below, so a thinner layer would have to re-export those types.
 * What is ART's (the OatHeader's InstructionSet numbers, the thread register of compiled
 * code) is in art/code/disasm_art.h, which opens the disassembler callers use.
 *
 * One Capstone handle per ISA, opened lazily, detail on, and one cs_malloc'd instruction
 * per handle that disasm_next() reuses (no allocation per instruction).  Callers see
 * plain structs: the decoded text plus what the carver needs to follow code: direct
 * branch targets, PC-relative literal addresses, thread-register-relative memory operands
 * and the register a load writes or a branch reads.
 *
 * Thumb-2 entry points carry bit 0 (disasm_code_address strips it). */
#ifndef ARTCARVE_DISASM_H
#define ARTCARVE_DISASM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "carver/base/err.h"

enum disasm_arch {
	DISASM_NONE = 0,
	DISASM_THUMB2,
	DISASM_ARM64,
	DISASM_X86,
	DISASM_X86_64,
	DISASM_ARCH_COUNT
};

enum disasm_flow {
	DISASM_FLOW_NONE = 0,   /* falls through */
	DISASM_FLOW_JUMP,       /* unconditional jump (direct or through a register/memory) */
	DISASM_FLOW_CJUMP,      /* conditional jump, may fall through */
	DISASM_FLOW_CALL,
	DISASM_FLOW_RET
};

/* What a memory operand is relative to. */
enum disasm_base {
	DISASM_BASE_NONE = 0,   /* no memory operand */
	DISASM_BASE_PC,         /* PC/RIP-relative or literal: mem_addr is absolute */
	DISASM_BASE_THREAD,     /* the thread register named at disasm_open_thread (ART: x19, r9, fs:,
				 * gs:): mem_disp is the offset in the thread */
	DISASM_BASE_OTHER
};

#define DISASM_MAX_BYTES 16
#define DISASM_NO_REG 0

struct disasm_insn {
	uint64_t address;
	unsigned size;                  /* bytes consumed (>= 1) */
	uint8_t bytes[DISASM_MAX_BYTES];
	bool valid;                     /* false: undecodable, reported as .byte/.short/.word */
	char mnemonic[32];
	char operands[160];
	enum disasm_flow flow;
	bool has_target;                /* direct branch or call: target is absolute */
	uint64_t target;
	bool indirect;                  /* branch/call through a register or memory */
	enum disasm_base mem_base;      /* first memory operand, if any */
	uint64_t mem_addr;              /* absolute address when mem_base == DISASM_BASE_PC */
	int64_t mem_disp;
	unsigned mem_size;              /* access width in bytes when known, else 0 */
	unsigned reg;                   /* first register operand (opaque id, DISASM_NO_REG if none) */
	unsigned reg2;                  /* second register operand, DISASM_NO_REG if none */
	bool has_imm;                   /* last immediate operand (adrp page, add/mov/push value) */
	int64_t imm;
	bool writes_pc;                 /* loads or moves into the program counter (ARM) */
};

struct disasm;

/* The register that holds the current thread, per arch, as the ISA names it ("x19", "r9";
 * on x86 a segment register, "fs", "gs"); NULL: none.  A memory operand based on it (on x86:
 * through that segment) is DISASM_BASE_THREAD. */
struct disasm_thread_regs {
	const char *name[DISASM_ARCH_COUNT];
};

/* A disassembler (release with disasm_close); tr is copied.  A name Capstone does not know
 * is an error of the first disasm_iter_init for that arch. */
int disasm_open_thread(struct disasm **out, const struct disasm_thread_regs *tr, struct err *e);
void disasm_close(struct disasm *d);

const char *disasm_arch_name(enum disasm_arch a);
/* Minimum instruction size/alignment: 2 (Thumb-2), 4 (arm64), 1 (x86). */
unsigned disasm_insn_align(enum disasm_arch a);
/* Pointer width of code for this arch: 4 or 8. */
unsigned disasm_pointer_size(enum disasm_arch a);
/* Code address of an entry point: Thumb-2 entry points have bit 0 set. */
uint64_t disasm_code_address(enum disasm_arch a, uint64_t entry_point);

/* A pass over [code, code+len) at address `address`.  Borrowed bytes. */
struct disasm_iter {
	struct disasm *d;
	enum disasm_arch arch;
	const uint8_t *code;
	size_t len;
	uint64_t address;
};

int disasm_iter_init(struct disasm *d, enum disasm_arch arch, const uint8_t *code, size_t len,
		     uint64_t address, struct disasm_iter *it, struct err *e);
/* 1 and *out filled (an undecodable unit gives valid=false and advances by the
 * instruction alignment), 0 at the end. */
int disasm_next(struct disasm_iter *it, struct disasm_insn *out);

#endif
