/* disasm.c - Capstone wrapper: the one file that includes <capstone/capstone.h> (see
 * disasm.h for why it is not a thinner one). */
#include <capstone/capstone.h>
#include <stdio.h>
#include <string.h>

#include "carver/wrap/disasm.h"
#include "carver/base/xalloc.h"

struct disasm_handle {
	bool open;
	csh h;
	cs_insn *insn;          /* the one instruction cs_disasm_iter reuses */
	unsigned thread_reg;    /* Capstone's id of the thread register, DISASM_NO_REG if none */
};

struct disasm {
	struct disasm_handle hs[DISASM_ARCH_COUNT];
	struct disasm_thread_regs thread;
};

const char *disasm_arch_name(enum disasm_arch a)
{
	switch (a) {
	case DISASM_THUMB2: return "thumb2";
	case DISASM_ARM64: return "arm64";
	case DISASM_X86: return "x86";
	case DISASM_X86_64: return "x86_64";
	default: return "none";
	}
}

unsigned disasm_insn_align(enum disasm_arch a)
{
	switch (a) {
	case DISASM_THUMB2: return 2;
	case DISASM_ARM64: return 4;
	default: return 1;
	}
}

unsigned disasm_pointer_size(enum disasm_arch a)
{
	return (a == DISASM_ARM64 || a == DISASM_X86_64) ? 8 : 4;
}

uint64_t disasm_code_address(enum disasm_arch a, uint64_t entry_point)
{
	return a == DISASM_THUMB2 ? entry_point & ~(uint64_t)1 : entry_point;
}

int disasm_open_thread(struct disasm **out, const struct disasm_thread_regs *tr, struct err *e)
{
	struct disasm *d = xcalloc(1, sizeof(*d));

	if (!d)
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory for the disassembler");
	d->thread = *tr;
	*out = d;
	return 0;
}

void disasm_close(struct disasm *d)
{
	if (!d)
		return;
	for (int a = 0; a < DISASM_ARCH_COUNT; a++) {
		struct disasm_handle *hd = &d->hs[a];
		if (!hd->open)
			continue;
		cs_free(hd->insn, 1);
		cs_close(&hd->h);
	}
	xfree(d);
}

/* Capstone names ARM's r9-r12 by their AAPCS roles (capstone arch/ARM/ARMMapping.c). */
static const char *disasm_capstone_reg_name(enum disasm_arch a, const char *name)
{
	static const char *const arm_roles[][2] = {
		{ "r9", "sb" }, { "r10", "sl" }, { "r11", "fp" }, { "r12", "ip" },
	};

	for (size_t i = 0; a == DISASM_THUMB2 && i < sizeof(arm_roles) / sizeof(arm_roles[0]); i++)
		if (!strcmp(name, arm_roles[i][0]))
			return arm_roles[i][1];
	return name;
}

/* Capstone's id of the register called name in the handle's ISA, DISASM_NO_REG for NULL. */
static int disasm_reg_id(const struct disasm_handle *hd, enum disasm_arch a, const char *name, unsigned *id,
			 struct err *e)
{
	unsigned end = a == DISASM_ARM64 ? ARM64_REG_ENDING
		       : a == DISASM_THUMB2 ? ARM_REG_ENDING : X86_REG_ENDING;
	const char *cs_name;

	*id = DISASM_NO_REG;
	if (!name)
		return 0;
	cs_name = disasm_capstone_reg_name(a, name);
	for (unsigned r = 1; r < end; r++) {
		const char *n = cs_reg_name(hd->h, r);
		if (n && !strcmp(n, cs_name)) {
			*id = r;
			return 0;
		}
	}
	return ERR_SET(e, ERR_INTERNAL, ERR_NO_VA, "capstone has no %s register %s", disasm_arch_name(a),
		       name);
}

static int disasm_handle_open(struct disasm *d, enum disasm_arch a, struct err *e)
{
	struct disasm_handle *hd = &d->hs[a];
	cs_arch arch;
	cs_mode mode;
	cs_err rc;
	int named;

	if (hd->open)
		return 0;
	switch (a) {
	case DISASM_THUMB2: arch = CS_ARCH_ARM; mode = CS_MODE_THUMB; break;
	case DISASM_ARM64: arch = CS_ARCH_ARM64; mode = CS_MODE_ARM; break;
	case DISASM_X86: arch = CS_ARCH_X86; mode = CS_MODE_32; break;
	case DISASM_X86_64: arch = CS_ARCH_X86; mode = CS_MODE_64; break;
	default:
		return ERR_SET(e, ERR_UNSUP, ERR_NO_VA, "no disassembler for arch %d", (int)a);
	}
	rc = cs_open(arch, mode, &hd->h);
	if (rc != CS_ERR_OK)
		return ERR_SET(e, ERR_INTERNAL, ERR_NO_VA, "capstone cannot open %s: %s",
			       disasm_arch_name(a), cs_strerror(rc));
	rc = cs_option(hd->h, CS_OPT_DETAIL, CS_OPT_ON);
	if (rc == CS_ERR_OK)
		hd->insn = cs_malloc(hd->h);
	if (rc != CS_ERR_OK || !hd->insn) {
		cs_close(&hd->h);
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "capstone cannot set up %s: %s",
			       disasm_arch_name(a), cs_strerror(rc != CS_ERR_OK ? rc : CS_ERR_MEM));
	}
	if ((named = disasm_reg_id(hd, a, d->thread.name[a], &hd->thread_reg, e)) < 0) {
		cs_free(hd->insn, 1);
		cs_close(&hd->h);
		return named;
	}
	hd->open = true;
	return 0;
}

int disasm_iter_init(struct disasm *d, enum disasm_arch arch, const uint8_t *code, size_t len,
		     uint64_t address, struct disasm_iter *it, struct err *e)
{
	int rc = disasm_handle_open(d, arch, e);

	if (rc < 0)
		return rc;
	it->d = d;
	it->arch = arch;
	it->code = code;
	it->len = code ? len : 0;
	it->address = address;
	return 0;
}

static void disasm_note_reg(struct disasm_insn *o, unsigned reg)
{
	if (o->reg == DISASM_NO_REG)
		o->reg = reg;
	else if (o->reg2 == DISASM_NO_REG)
		o->reg2 = reg;
}

/* ---- ARM64 ---- */

/* A memory operand's base (or x86 segment) is the thread register tr. */
static bool disasm_is_thread(unsigned tr, unsigned reg)
{
	return tr != DISASM_NO_REG && reg == tr;
}

/* What a register-based memory operand is relative to (ARM: its base register). */
static enum disasm_base disasm_mem_base(unsigned tr, unsigned base)
{
	return disasm_is_thread(tr, base) ? DISASM_BASE_THREAD : DISASM_BASE_OTHER;
}

static void disasm_fill_arm64(const cs_insn *ci, unsigned tr, struct disasm_insn *o)
{
	const cs_arm64 *a = &ci->detail->arm64;

	switch (ci->id) {
	case ARM64_INS_BL: o->flow = DISASM_FLOW_CALL; break;
	case ARM64_INS_BLR: o->flow = DISASM_FLOW_CALL; o->indirect = true; break;
	case ARM64_INS_RET: o->flow = DISASM_FLOW_RET; break;
	case ARM64_INS_BR: o->flow = DISASM_FLOW_JUMP; o->indirect = true; break;
	case ARM64_INS_B:
		o->flow = (a->cc == ARM64_CC_INVALID || a->cc == ARM64_CC_AL) ? DISASM_FLOW_JUMP
									   : DISASM_FLOW_CJUMP;
		break;
	case ARM64_INS_CBZ: case ARM64_INS_CBNZ: case ARM64_INS_TBZ: case ARM64_INS_TBNZ:
		o->flow = DISASM_FLOW_CJUMP;
		break;
	default: break;
	}
	for (unsigned i = 0; i < a->op_count; i++) {
		const cs_arm64_op *op = &a->operands[i];
		if (op->type == ARM64_OP_REG) {
			disasm_note_reg(o, op->reg);
		} else if (op->type == ARM64_OP_IMM) {
			o->has_imm = true;
			o->imm = op->imm;
		}
		if (op->type == ARM64_OP_MEM && o->mem_base == DISASM_BASE_NONE) {
			o->mem_base = disasm_mem_base(tr, op->mem.base);
			o->mem_disp = op->mem.disp;
		} else if (op->type == ARM64_OP_IMM && i + 1 == a->op_count) {
			if (o->flow != DISASM_FLOW_NONE && o->flow != DISASM_FLOW_RET) {
				o->has_target = true;
				o->target = (uint64_t)op->imm;
			} else if (ci->id == ARM64_INS_LDR || ci->id == ARM64_INS_LDRSW) {
				/* load (literal): Capstone gives the absolute literal address */
				o->mem_base = DISASM_BASE_PC;
				o->mem_addr = (uint64_t)op->imm;
			}
		}
	}
}

/* ---- Thumb-2 ---- */

static bool disasm_arm_reglist_has_pc(const cs_arm *a)
{
	for (unsigned i = 0; i < a->op_count; i++)
		if (a->operands[i].type == ARM_OP_REG && a->operands[i].reg == ARM_REG_PC)
			return true;
	return false;
}

static void disasm_arm_flow(const cs_insn *ci, const cs_arm *a, struct disasm_insn *o)
{
	bool always = a->cc == ARM_CC_AL || a->cc == ARM_CC_INVALID;

	switch (ci->id) {
	case ARM_INS_BL: case ARM_INS_BLX:
		o->flow = DISASM_FLOW_CALL;
		o->indirect = a->op_count > 0 && a->operands[0].type == ARM_OP_REG;
		break;
	case ARM_INS_B:
		o->flow = always ? DISASM_FLOW_JUMP : DISASM_FLOW_CJUMP;
		break;
	case ARM_INS_CBZ: case ARM_INS_CBNZ:
		o->flow = DISASM_FLOW_CJUMP;
		break;
	case ARM_INS_BX:
		o->indirect = true;
		o->flow = (a->op_count > 0 && a->operands[0].reg == ARM_REG_LR) ? DISASM_FLOW_RET
			  : always ? DISASM_FLOW_JUMP : DISASM_FLOW_CJUMP;
		break;
	case ARM_INS_TBB: case ARM_INS_TBH:
		o->flow = DISASM_FLOW_JUMP;
		o->indirect = true;
		break;
	case ARM_INS_POP: case ARM_INS_LDM:
		if (disasm_arm_reglist_has_pc(a)) {
			o->writes_pc = true;
			o->flow = always ? DISASM_FLOW_RET : DISASM_FLOW_CJUMP;
		}
		break;
	case ARM_INS_LDR: case ARM_INS_MOV:
		if (a->op_count > 0 && a->operands[0].type == ARM_OP_REG && a->operands[0].reg == ARM_REG_PC) {
			o->writes_pc = true;
			o->indirect = true;
			o->flow = always ? DISASM_FLOW_JUMP : DISASM_FLOW_CJUMP;
		}
		break;
	default: break;
	}
}

static void disasm_fill_thumb(const cs_insn *ci, unsigned tr, struct disasm_insn *o)
{
	const cs_arm *a = &ci->detail->arm;

	disasm_arm_flow(ci, a, o);
	for (unsigned i = 0; i < a->op_count; i++) {
		const cs_arm_op *op = &a->operands[i];
		if (op->type == ARM_OP_REG) {
			if (op->reg >= 0)       /* capstone's arm_reg: 0 (invalid) and up */
				disasm_note_reg(o, (unsigned)op->reg);
		} else if (op->type == ARM_OP_IMM) {
			o->has_imm = true;
			o->imm = op->imm;
		}
		if (op->type == ARM_OP_MEM && o->mem_base == DISASM_BASE_NONE) {
			o->mem_disp = op->mem.disp;
			if (op->mem.base == ARM_REG_PC && op->mem.index == ARM_REG_INVALID) {
				/* Thumb literal base: Align(address + 4, 4) (ARM ARM, LDR literal) */
				o->mem_base = DISASM_BASE_PC;
				o->mem_addr = ((ci->address + 4) & ~(uint64_t)3) + (uint64_t)(int64_t)op->mem.disp;
			} else {
				o->mem_base = disasm_mem_base(tr, op->mem.base);
			}
		} else if (op->type == ARM_OP_IMM && i + 1 == a->op_count && !o->indirect &&
			   (o->flow == DISASM_FLOW_CALL || o->flow == DISASM_FLOW_JUMP ||
			    o->flow == DISASM_FLOW_CJUMP)) {
			o->has_target = true;
			o->target = (uint64_t)(uint32_t)op->imm;
		}
	}
}

/* ---- x86 / x86_64 ---- */

static bool disasm_in_group(const cs_insn *ci, uint8_t group)
{
	for (unsigned i = 0; i < ci->detail->groups_count; i++)
		if (ci->detail->groups[i] == group)
			return true;
	return false;
}

static void disasm_fill_x86(const cs_insn *ci, bool is64, unsigned tr, struct disasm_insn *o)
{
	const cs_x86 *x = &ci->detail->x86;

	if (disasm_in_group(ci, CS_GRP_CALL) || ci->id == X86_INS_CALL || ci->id == X86_INS_LCALL)
		o->flow = DISASM_FLOW_CALL;
	else if (ci->id == X86_INS_RET || ci->id == X86_INS_RETF || ci->id == X86_INS_RETFQ)
		o->flow = DISASM_FLOW_RET;
	else if (ci->id == X86_INS_JMP || ci->id == X86_INS_LJMP)
		o->flow = DISASM_FLOW_JUMP;
	else if (disasm_in_group(ci, CS_GRP_JUMP))
		o->flow = DISASM_FLOW_CJUMP;
	for (unsigned i = 0; i < x->op_count; i++) {
		const cs_x86_op *op = &x->operands[i];
		if (op->type == X86_OP_IMM) {
			o->has_imm = true;
			o->imm = op->imm;
		}
		if (op->type == X86_OP_REG) {
			disasm_note_reg(o, op->reg);
			if (o->flow == DISASM_FLOW_JUMP || o->flow == DISASM_FLOW_CALL)
				o->indirect = true;
		} else if (op->type == X86_OP_MEM && o->mem_base == DISASM_BASE_NONE) {
			o->mem_disp = op->mem.disp;
			o->mem_size = op->size;
			if (o->flow == DISASM_FLOW_JUMP || o->flow == DISASM_FLOW_CALL)
				o->indirect = true;
			if (disasm_is_thread(tr, op->mem.segment)) {
				o->mem_base = DISASM_BASE_THREAD;
			} else if (op->mem.base == X86_REG_RIP && op->mem.index == X86_REG_INVALID) {
				o->mem_base = DISASM_BASE_PC;
				o->mem_addr = ci->address + ci->size + (uint64_t)op->mem.disp;
			} else if (op->mem.base == X86_REG_INVALID && op->mem.index == X86_REG_INVALID &&
				   op->mem.segment == X86_REG_INVALID) {
				o->mem_base = DISASM_BASE_PC;   /* absolute address */
				o->mem_addr = (uint64_t)op->mem.disp & (is64 ? UINT64_MAX : UINT32_MAX);
			} else {
				o->mem_base = DISASM_BASE_OTHER;
			}
		} else if (op->type == X86_OP_IMM && (o->flow == DISASM_FLOW_CALL || o->flow == DISASM_FLOW_JUMP ||
						       o->flow == DISASM_FLOW_CJUMP)) {
			o->has_target = true;
			o->target = (uint64_t)op->imm & (is64 ? UINT64_MAX : UINT32_MAX);
		}
	}
}

/* Bytes an undecodable unit spans: the instruction alignment, except that a Thumb halfword
 * whose bits [15:11] are 0b11101, 0b11110 or 0b11111 is the first half of a 32-bit encoding
 * (ARM ARM A6.1), so an undefined 32-bit Thumb-2 instruction is skipped whole. */
static size_t disasm_undecodable_size(const struct disasm_iter *it)
{
	size_t n = disasm_insn_align(it->arch);

	if (it->arch == DISASM_THUMB2 && it->len >= 4 && (it->code[1] >> 3) >= 0x1d)
		n = 4;
	return n > it->len ? it->len : n;
}

static void disasm_fill_invalid(const struct disasm_iter *it, size_t n, struct disasm_insn *o)
{
	memcpy(o->bytes, it->code, n);
	o->size = (unsigned)n;
	o->valid = false;
	if (n == 4 && it->arch == DISASM_THUMB2) {
		snprintf(o->mnemonic, sizeof(o->mnemonic), ".word");   /* two halfwords, first one first */
		snprintf(o->operands, sizeof(o->operands), "0x%04x%04x", (unsigned)(it->code[0] | it->code[1] << 8),
			 (unsigned)(it->code[2] | it->code[3] << 8));
	} else if (n == 4) {
		snprintf(o->mnemonic, sizeof(o->mnemonic), ".word");
		snprintf(o->operands, sizeof(o->operands), "0x%08x",
			 (unsigned)it->code[0] | (unsigned)it->code[1] << 8 | (unsigned)it->code[2] << 16 | (unsigned)it->code[3] << 24);
	} else if (n == 2) {
		snprintf(o->mnemonic, sizeof(o->mnemonic), ".short");
		snprintf(o->operands, sizeof(o->operands), "0x%04x", (unsigned)(it->code[0] | it->code[1] << 8));
	} else {
		snprintf(o->mnemonic, sizeof(o->mnemonic), ".byte");
		snprintf(o->operands, sizeof(o->operands), "0x%02x", (unsigned)it->code[0]);
	}
}

int disasm_next(struct disasm_iter *it, struct disasm_insn *out)
{
	struct disasm_handle *hd = &it->d->hs[it->arch];
	const uint8_t *code = it->code;
	size_t len = it->len;
	uint64_t addr = it->address;
	cs_insn *ci = hd->insn;

	if (it->len == 0)
		return 0;
	memset(out, 0, sizeof(*out));
	out->address = it->address;
	if (!cs_disasm_iter(hd->h, &code, &len, &addr, ci) || ci->size == 0 || ci->size > DISASM_MAX_BYTES) {
		size_t n = disasm_undecodable_size(it);
		disasm_fill_invalid(it, n, out);
		it->code += n;
		it->len -= n;
		it->address += n;
		return 1;
	}
	out->valid = true;
	out->size = ci->size;
	memcpy(out->bytes, ci->bytes, ci->size);
	snprintf(out->mnemonic, sizeof(out->mnemonic), "%s", ci->mnemonic);
	snprintf(out->operands, sizeof(out->operands), "%s", ci->op_str);
	switch (it->arch) {
	case DISASM_ARM64: disasm_fill_arm64(ci, hd->thread_reg, out); break;
	case DISASM_THUMB2: disasm_fill_thumb(ci, hd->thread_reg, out); break;
	case DISASM_X86: disasm_fill_x86(ci, false, hd->thread_reg, out); break;
	case DISASM_X86_64: disasm_fill_x86(ci, true, hd->thread_reg, out); break;
	default: break;
	}
	it->code = code;
	it->len = len;
	it->address = addr;
	return 1;
}
