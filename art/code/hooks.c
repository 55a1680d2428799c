/* hooks.c - see hooks.h. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "art/code/hooks.h"
#include "carver/base/ck.h"
#include "carver/base/xalloc.h"

#define HOOKS_WINDOW 4          /* instructions looked at */
#define HOOKS_MAX_ARRAYS 0x1000000u

int hooks_ranges_add(struct hooks_ranges *r, uint64_t start, uint64_t end, const char *what, struct err *e)
{
	if (end <= start)
		return 0;
	if (r->count % 16 == 0) {
		struct hooks_range *v = xreallocarray(r->v, r->count + 16, sizeof(*v));
		if (!v)
			return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory for %zu code ranges", r->count + 16);
		r->v = v;
	}
	r->v[r->count++] = (struct hooks_range){ start, end, what };
	return 0;
}

const struct hooks_range *hooks_ranges_find(const struct hooks_ranges *r, uint64_t va)
{
	for (size_t i = 0; i < r->count; i++)
		if (va >= r->v[i].start && va < r->v[i].end)
			return &r->v[i];
	return NULL;
}

void hooks_ranges_release(struct hooks_ranges *r)
{
	xfree(r->v);
	r->v = NULL;
	r->count = 0;
}

/* ---- inline hooks ---- */

struct hooks_code {
	const uint8_t *code;
	size_t len;
	uint64_t va;
	unsigned ptr;           /* literal width: the arch's pointer size */
	const struct image *view;  /* where literals outside the code are read, NULL if nowhere */
};

/* A pointer-sized little-endian literal at va: from the code when inside it, else through
 * the image view. */
static bool hooks_literal(const struct hooks_code *hc, uint64_t va, uint64_t *out)
{
	uint8_t b[8] = { 0 };

	/* a literal the view does not hold is an answer (target unknown), not an error */
	if (va >= hc->va && va - hc->va <= hc->len && hc->len - (va - hc->va) >= hc->ptr)
		memcpy(b, hc->code + (va - hc->va), hc->ptr);
	else if (!hc->view || !img_peek(hc->view, va, b, hc->ptr))
		return false;
	*out = hc->ptr == 8 ? ld_u64le(b) : ld_u32le(b);
	return true;
}

static void hooks_how(struct hooks_jump *j, const struct disasm_insn *in, size_t n)
{
	size_t at = 0;

	for (size_t i = 0; i < n && at < sizeof(j->how); i++) {
		int w = snprintf(j->how + at, sizeof(j->how) - at, "%s%s%s%s", i ? "; " : "", in[i].mnemonic,
				 in[i].operands[0] ? " " : "", in[i].operands);
		if (w < 0)
			break;
		at += (size_t)w;
	}
}

static void hooks_found(struct hooks_jump *j, const struct disasm_insn *in, size_t n, bool known, uint64_t target)
{
	j->found = true;
	j->target_known = known;
	j->target = target;
	hooks_how(j, in, n);
}

static bool hooks_is(const struct disasm_insn *in, const char *mnemonic)
{
	return in->valid && !strcmp(in->mnemonic, mnemonic);
}

static bool hooks_jumps_via(const struct disasm_insn *in, unsigned reg)
{
	return in->valid && in->flow == DISASM_FLOW_JUMP && in->indirect && in->mem_base == DISASM_BASE_NONE &&
	       in->reg == reg && reg != DISASM_NO_REG;
}

/* Register-loading sequences ending in an indirect jump (literal, adrp+add, adrp+ldr, mov imm). */
static bool hooks_register_jump(const struct hooks_code *hc, enum disasm_arch arch, const struct disasm_insn *in,
				size_t n, struct hooks_jump *j)
{
	uint64_t t = 0;
	bool ok;

	if (n >= 2 && in[0].valid && in[0].mem_base == DISASM_BASE_PC && !in[0].writes_pc &&
	    in[0].flow == DISASM_FLOW_NONE && hooks_jumps_via(&in[1], in[0].reg)) {
		ok = hooks_literal(hc, in[0].mem_addr, &t);     /* ldr xN, #lit ; br xN  /  ldr rN, [pc] ; bx rN */
		hooks_found(j, in, 2, ok, disasm_code_address(arch, t));
		return true;
	}
	if (n >= 3 && hooks_is(&in[0], "adrp") && in[0].has_imm && hooks_jumps_via(&in[2], in[0].reg)) {
		if (hooks_is(&in[1], "add") && in[1].has_imm && in[1].reg == in[0].reg) {
			hooks_found(j, in, 3, true, (uint64_t)in[0].imm + (uint64_t)in[1].imm);
			return true;
		}
		if (hooks_is(&in[1], "ldr") && in[1].mem_base == DISASM_BASE_OTHER && in[1].reg == in[0].reg) {
			ok = hooks_literal(hc, (uint64_t)in[0].imm + (uint64_t)in[1].mem_disp, &t);
			hooks_found(j, in, 3, ok, t);
			return true;
		}
	}
	if (n >= 2 && (hooks_is(&in[0], "movabs") || hooks_is(&in[0], "mov")) && in[0].has_imm &&
	    in[0].mem_base == DISASM_BASE_NONE && hooks_jumps_via(&in[1], in[0].reg)) {
		hooks_found(j, in, 2, true, (uint64_t)in[0].imm);
		return true;
	}
	return false;
}

static bool hooks_match(const struct hooks_code *hc, enum disasm_arch arch, const struct disasm_insn *in, size_t n,
			struct hooks_jump *j)
{
	uint64_t t = 0;
	bool ok;

	if (n == 0 || !in[0].valid)
		return false;
	if (in[0].flow == DISASM_FLOW_JUMP && in[0].has_target && !in[0].indirect) {
		hooks_found(j, in, 1, true, in[0].target);                 /* b / b.w / jmp rel */
		return true;
	}
	if (in[0].flow == DISASM_FLOW_JUMP && in[0].indirect && in[0].mem_base == DISASM_BASE_PC) {
		ok = hooks_literal(hc, in[0].mem_addr, &t);                 /* ldr.w pc, [pc] / jmp [rip] */
		hooks_found(j, in, 1, ok, disasm_code_address(arch, t));
		return true;
	}
	if (n >= 2 && hooks_is(&in[0], "push") && in[0].has_imm && in[0].mem_base == DISASM_BASE_NONE &&
	    in[1].valid && in[1].flow == DISASM_FLOW_RET && arch != DISASM_THUMB2) {
		hooks_found(j, in, 2, true, (uint64_t)in[0].imm & UINT32_MAX);  /* push imm32 ; ret */
		return true;
	}
	return hooks_register_jump(hc, arch, in, n, j);
}

int hooks_first_jump(struct disasm *d, enum disasm_arch arch, const uint8_t *code, size_t len, uint64_t va,
		     const struct image *view, struct hooks_jump *out, struct err *e)
{
	struct hooks_code hc = { code, len, va, disasm_pointer_size(arch), view };
	struct disasm_insn in[HOOKS_WINDOW];
	struct disasm_iter it;
	size_t n = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = disasm_iter_init(d, arch, code, len, va, &it, e)) < 0)
		return rc;
	while (n < HOOKS_WINDOW && disasm_next(&it, &in[n]) == 1) {
		bool stop = in[n].flow != DISASM_FLOW_NONE;
		n++;
		if (stop)
			break;
	}
	if (hooks_match(&hc, arch, in, n, out) && out->target_known && out->target >= va && out->target - va < len)
		memset(out, 0, sizeof(*out));   /* a jump inside the method is ordinary code */
	return 0;
}

/* ---- ArtMethods of image sections ---- */

static int hooks_method_at(const struct cursor *sec, size_t off, const struct art_layout *l, unsigned p,
			   hooks_method_fn fn, void *ctx, struct err *e)
{
	unsigned pi = art_ptr_index(p);
	struct hooks_art_method m = { .va = sec->va + off };
	uint64_t entry;
	int rc;

	if ((rc = cur_peek_u32le(sec, off + l->art_method.access_flags, &m.access_flags, e)) < 0 ||
	    (rc = cur_peek_u32le(sec, off + l->art_method.dex_method_index, &m.dex_method_index, e)) < 0)
		return rc;
	if (p == 8)
		rc = cur_peek_u64le(sec, off + l->art_method.entry_point_quick[pi], &entry, e);
	else {
		uint32_t v;
		rc = cur_peek_u32le(sec, off + l->art_method.entry_point_quick[pi], &v, e);
		entry = v;
	}
	if (rc < 0)
		return rc;
	m.entry = entry;
	m.entry_at = m.va + l->art_method.entry_point_quick[pi];
	return fn(ctx, &m, e);
}

int hooks_walk_methods(const struct cursor *section, const struct art_layout *l, unsigned pointer_size,
		       bool prefixed, hooks_method_fn fn, void *ctx, struct err *e)
{
	unsigned pi = art_ptr_index(pointer_size), size = l->art_method_size[pi];
	size_t off = 0;
	int rc;

	if (l->field_storage != ART_FIELDS_LPA || size == 0 || size == ART_ABSENT ||
	    l->art_method.entry_point_quick[pi] == ART_ABSENT)
		return ERR_SET(e, ERR_UNSUP, section->va, "ArtMethod arrays of ART %s are not walked", l->family);
	while (off < section->len) {
		uint32_t n = 1;
		size_t bytes;
		if (prefixed) {
			if ((rc = cur_peek_u32le(section, off, &n, e)) < 0)
				return rc;
			if (n == 0 || n > HOOKS_MAX_ARRAYS || ck_mul(n, size, &bytes) || ck_add(bytes, pointer_size, &bytes) ||
			    bytes > section->len - off)
				return ERR_SET(e, ERR_CORRUPT, section->va + off,
					       "ArtMethod array at 0x%" PRIx64 ": %u methods do not fit the section",
					       section->va + off, n);
			off += pointer_size;   /* LengthPrefixedArray: u32 size_, elements aligned to P */
		}
		for (uint32_t i = 0; i < n; i++, off += size) {
			if (section->len - off < size)
				return ERR_SET(e, ERR_TRUNC, section->va + off, "ArtMethod at 0x%" PRIx64 " cut by the section end",
					       section->va + off);
			if ((rc = hooks_method_at(section, off, l, pointer_size, fn, ctx, e)) != 0)
				return rc;
		}
	}
	return 0;
}
