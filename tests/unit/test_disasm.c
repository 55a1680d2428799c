/* test_disasm.c - known byte sequences per ISA -> mnemonics, flow, targets, literals. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "art/code/disasm_art.h"
#include "tests/unit/t.h"

static struct disasm *dis;

/* Decodes the first instruction of bytes at address 0x1000. */
static struct disasm_insn one(enum disasm_arch a, const uint8_t *b, size_t n)
{
	struct disasm_iter it;
	struct disasm_insn in;
	struct err e;

	memset(&in, 0, sizeof(in));
	err_init(&e);
	if (disasm_iter_init(dis, a, b, n, 0x1000, &it, &e) < 0 || disasm_next(&it, &in) != 1)
		snprintf(in.mnemonic, sizeof(in.mnemonic), "<none: %.16s>", e.msg);
	return in;
}

#define ONE(a, ...) one(a, (const uint8_t[]){ __VA_ARGS__ }, sizeof((const uint8_t[]){ __VA_ARGS__ }))

static void test_arm64(void)
{
	struct disasm_insn in;

	T_SECTION("arm64");
	in = ONE(DISASM_ARM64, 0x1f, 0x20, 0x03, 0xd5);
	T_EQ_S(in.mnemonic, "nop");
	T_EQ_U(in.size, 4);
	T_EQ_U(in.flow, DISASM_FLOW_NONE);
	in = ONE(DISASM_ARM64, 0xc0, 0x03, 0x5f, 0xd6);
	T_EQ_S(in.mnemonic, "ret");
	T_EQ_U(in.flow, DISASM_FLOW_RET);
	in = ONE(DISASM_ARM64, 0x04, 0x00, 0x00, 0x94);          /* bl +16 */
	T_EQ_S(in.mnemonic, "bl");
	T_EQ_U(in.flow, DISASM_FLOW_CALL);
	T_CHECK(in.has_target, "bl has a target");
	T_EQ_U(in.target, 0x1010);
	in = ONE(DISASM_ARM64, 0x00, 0x04, 0x00, 0x14);          /* b +0x1000 */
	T_EQ_S(in.mnemonic, "b");
	T_EQ_U(in.flow, DISASM_FLOW_JUMP);
	T_EQ_U(in.target, 0x2000);
	in = ONE(DISASM_ARM64, 0x40, 0x00, 0x00, 0x54);          /* b.eq +8 */
	T_EQ_U(in.flow, DISASM_FLOW_CJUMP);
	T_EQ_U(in.target, 0x1008);
	in = ONE(DISASM_ARM64, 0x50, 0x00, 0x00, 0x58);          /* ldr x16, #8 (literal) */
	T_EQ_S(in.mnemonic, "ldr");
	T_EQ_U(in.mem_base, DISASM_BASE_PC);
	T_EQ_U(in.mem_addr, 0x1008);
	in = ONE(DISASM_ARM64, 0x00, 0x02, 0x1f, 0xd6);          /* br x16 */
	T_EQ_S(in.mnemonic, "br");
	T_EQ_U(in.flow, DISASM_FLOW_JUMP);
	T_CHECK(in.indirect, "br is indirect");
	in = ONE(DISASM_ARM64, 0x7e, 0x3a, 0x40, 0xf9);          /* ldr x30, [x19, #0x70] */
	T_EQ_U(in.mem_base, DISASM_BASE_THREAD);
	T_EQ_U(in.mem_disp, 0x70);
	in = ONE(DISASM_ARM64, 0xc0, 0x03, 0x3f, 0xd6);          /* blr x30 */
	T_EQ_S(in.mnemonic, "blr");
	T_EQ_U(in.flow, DISASM_FLOW_CALL);
	in = ONE(DISASM_ARM64, 0xff, 0xff, 0xff, 0xff);          /* unallocated */
	T_CHECK(!in.valid, "0xffffffff is not an instruction (%s)", in.mnemonic);
	T_EQ_S(in.mnemonic, ".word");
	T_EQ_U(in.size, 4);
}

static void test_thumb2(void)
{
	struct disasm_insn in;

	T_SECTION("thumb2");
	in = ONE(DISASM_THUMB2, 0x00, 0xbf);
	T_EQ_S(in.mnemonic, "nop");
	T_EQ_U(in.size, 2);
	in = ONE(DISASM_THUMB2, 0x70, 0x47);                     /* bx lr */
	T_EQ_S(in.mnemonic, "bx");
	T_EQ_U(in.flow, DISASM_FLOW_RET);
	in = ONE(DISASM_THUMB2, 0x00, 0xf0, 0x00, 0xf8);         /* bl +4 */
	T_EQ_S(in.mnemonic, "bl");
	T_EQ_U(in.size, 4);
	T_EQ_U(in.flow, DISASM_FLOW_CALL);
	T_EQ_U(in.target, 0x1004);
	in = ONE(DISASM_THUMB2, 0xdf, 0xf8, 0x00, 0xf0);         /* ldr.w pc, [pc] */
	T_EQ_S(in.mnemonic, "ldr.w");
	T_CHECK(in.writes_pc, "ldr.w pc writes pc");
	T_EQ_U(in.flow, DISASM_FLOW_JUMP);
	T_EQ_U(in.mem_base, DISASM_BASE_PC);
	T_EQ_U(in.mem_addr, 0x1004);
	in = ONE(DISASM_THUMB2, 0xd9, 0xf8, 0x00, 0xe1);         /* ldr.w lr, [r9, #0x100] */
	T_EQ_U(in.mem_base, DISASM_BASE_THREAD);
	T_EQ_U(in.mem_disp, 0x100);
	in = ONE(DISASM_THUMB2, 0xf0, 0x47);                     /* blx lr */
	T_EQ_S(in.mnemonic, "blx");
	T_EQ_U(in.flow, DISASM_FLOW_CALL);
	T_CHECK(in.indirect, "blx lr is indirect");
	in = ONE(DISASM_THUMB2, 0x00, 0xf0);                     /* half of a 32-bit insn */
	T_CHECK(!in.valid, "a lone 32-bit prefix is undecodable (%s)", in.mnemonic);
	T_EQ_S(in.mnemonic, ".short");
	T_EQ_U(in.size, 2);
	in = ONE(DISASM_THUMB2, 0x35, 0xeb, 0x45, 0x72);         /* undefined 32-bit encoding */
	T_CHECK(!in.valid, "0xeb35 0x7245 is undefined (%s)", in.mnemonic);
	T_EQ_U(in.size, 4);
	T_EQ_S(in.operands, "0xeb357245");
	in = ONE(DISASM_THUMB2, 0x35, 0xeb);                     /* its first half alone */
	T_EQ_U(in.size, 2);
	T_EQ_U(disasm_code_address(DISASM_THUMB2, 0x7001235), 0x7001234);
	T_EQ_U(disasm_code_address(DISASM_ARM64, 0x7001235), 0x7001235);
}

static void test_x86(void)
{
	struct disasm_insn in;

	T_SECTION("x86");
	in = ONE(DISASM_X86, 0x90);
	T_EQ_S(in.mnemonic, "nop");
	in = ONE(DISASM_X86, 0xc3);
	T_EQ_S(in.mnemonic, "ret");
	T_EQ_U(in.flow, DISASM_FLOW_RET);
	in = ONE(DISASM_X86, 0xe9, 0xfb, 0x0f, 0x00, 0x00);      /* jmp 0x2000 */
	T_EQ_S(in.mnemonic, "jmp");
	T_EQ_U(in.flow, DISASM_FLOW_JUMP);
	T_EQ_U(in.target, 0x2000);
	in = ONE(DISASM_X86, 0x74, 0x02);                        /* je +2 */
	T_EQ_U(in.flow, DISASM_FLOW_CJUMP);
	T_EQ_U(in.target, 0x1004);
	in = ONE(DISASM_X86, 0x64, 0xff, 0x15, 0x00, 0x02, 0x00, 0x00); /* call fs:[0x200] */
	T_EQ_S(in.mnemonic, "call");
	T_EQ_U(in.mem_base, DISASM_BASE_THREAD);
	T_EQ_U(in.mem_disp, 0x200);
	in = ONE(DISASM_X86, 0xe8, 0xfb, 0xff, 0xff, 0xff);      /* call 0x1000 */
	T_EQ_U(in.flow, DISASM_FLOW_CALL);
	T_EQ_U(in.target, 0x1000);

	T_SECTION("x86_64");
	in = ONE(DISASM_X86_64, 0xff, 0x25, 0x00, 0x00, 0x00, 0x00); /* jmp [rip] */
	T_EQ_S(in.mnemonic, "jmp");
	T_CHECK(in.indirect, "jmp [rip] is indirect");
	T_EQ_U(in.mem_base, DISASM_BASE_PC);
	T_EQ_U(in.mem_addr, 0x1006);
	in = ONE(DISASM_X86_64, 0x65, 0xff, 0x14, 0x25, 0x00, 0x04, 0x00, 0x00); /* call gs:[0x400] */
	T_EQ_U(in.mem_base, DISASM_BASE_THREAD);
	T_EQ_U(in.mem_disp, 0x400);
	in = ONE(DISASM_X86_64, 0x48, 0xb8, 1, 2, 3, 4, 5, 6, 7, 8);
	T_EQ_S(in.mnemonic, "movabs");
	T_EQ_U(in.size, 10);
	in = ONE(DISASM_X86_64, 0xd6);                           /* salc does not exist in 64-bit mode */
	T_CHECK(!in.valid, "0xd6 is invalid in 64-bit mode (%s)", in.mnemonic);
	T_EQ_U(in.size, 1);
}

static void test_iteration(void)
{
	static const uint8_t code[] = { 0xf0, 0xb5, 0x00, 0xbf, 0x00, 0xf0, 0x00, 0xf8, 0xf0, 0xbd };
	struct disasm_iter it;
	struct disasm_insn in;
	struct err e;
	unsigned n = 0, bytes = 0;
	enum disasm_arch a;

	T_SECTION("iteration and ISA mapping");
	err_init(&e);
	T_EQ_I(disasm_iter_init(dis, DISASM_THUMB2, code, sizeof(code), 0x2000, &it, &e), 0);
	while (disasm_next(&it, &in) == 1) {
		n++;
		bytes += in.size;
	}
	T_EQ_U(n, 4);
	T_EQ_U(bytes, sizeof(code));
	T_EQ_I(disasm_next(&it, &in), 0);
	T_EQ_I(disasm_iter_init(dis, DISASM_ARM64, NULL, 0, 0, &it, &e), 0);
	T_EQ_I(disasm_next(&it, &in), 0);

	T_EQ_I(disasm_arch_from_art_isa(3, 183, &a, &e), 0);
	T_EQ_U(a, DISASM_THUMB2);
	T_EQ_I(disasm_arch_from_art_isa(1, 64, &a, &e), 0);
	T_EQ_U(a, DISASM_THUMB2);
	T_EQ_I(disasm_arch_from_art_isa(5, 183, &a, &e), 0);
	T_EQ_U(a, DISASM_X86_64);
	T_EQ_I(disasm_arch_from_art_isa(5, 230, &a, &e), 0);
	T_EQ_U(a, DISASM_X86);
	T_EQ_I(disasm_arch_from_art_isa(4, 230, &a, &e), -ERR_UNSUP);
	T_EQ_I(disasm_arch_from_art_isa(6, 138, &a, &e), -ERR_UNSUP);
	T_EQ_I(disasm_arch_from_art_isa(0xffffffff, 138, &a, &e), -ERR_UNSUP);
}

int main(void)
{
	struct err e;

	err_init(&e);
	if (disasm_open(&dis, &e) < 0) {
		printf("disasm_open: %s\nRESULT 0 1\n", e.msg);
		return 1;
	}
	test_arm64();
	test_thumb2();
	test_x86();
	test_iteration();
	disasm_close(dis);
	T_DONE();
}
