/* test_hooks.c - inline hook patterns per ISA (found / not found, targets), ArtMethod section
 * walking on hand-built sections, and the code-range table. */
#include <stdint.h>
#include <string.h>

#include "art/code/disasm_art.h"
#include "art/code/hooks.h"
#include "carver/base/wbuf.h"
#include "tests/unit/t.h"

static struct disasm *dis;

/* Literals outside the code are read through an image view: none (NULL), or a "memory"
 * holding one pointer-sized literal at 0x9000. */
static const uint8_t literal[8] = { 0x00, 0x20, 0x00, 0x50, 0x00, 0x00, 0x00, 0x00 };
static struct image lit_img;
#define read_none ((const struct image *)NULL)
#define read_lit ((const struct image *)&lit_img)

static struct hooks_jump jump(enum disasm_arch a, const uint8_t *b, size_t n, const struct image *view)
{
	struct hooks_jump j;
	struct err e;

	err_init(&e);
	if (hooks_first_jump(dis, a, b, n, 0x1000, view, &j, &e) < 0)
		snprintf(j.how, sizeof(j.how), "error: %.100s", e.msg);
	return j;
}

#define JUMP(a, rd, ...) jump(a, (const uint8_t[]){ __VA_ARGS__ }, sizeof((const uint8_t[]){ __VA_ARGS__ }), rd)

static void test_arm64(void)
{
	struct hooks_jump j;

	T_SECTION("arm64");
	j = JUMP(DISASM_ARM64, read_none, 0x50, 0, 0, 0x58, 0x00, 0x02, 0x1f, 0xd6, 0x00, 0x10, 0, 0, 0x7f, 0, 0, 0);
	T_CHECK(j.found && j.target_known, "ldr x16, #8; br x16 (%s)", j.how);
	T_EQ_U(j.target, 0x7f00001000ull);
	T_EQ_S(j.how, "ldr x16, #0x1008; br x16");
	j = JUMP(DISASM_ARM64, read_none, 0x10, 0, 0, 0xb0, 0x10, 0x42, 0, 0x91, 0x00, 0x02, 0x1f, 0xd6);
	T_CHECK(j.found, "adrp x16; add x16, x16, #0x10; br x16 (%s)", j.how);
	T_EQ_U(j.target, 0x2010);
	j = JUMP(DISASM_ARM64, read_none, 0x00, 0x00, 0x00, 0x15);     /* b +64 MiB */
	T_CHECK(j.found, "b far (%s)", j.how);
	T_EQ_U(j.target, 0x1000 + 0x4000000);
	j = JUMP(DISASM_ARM64, read_none, 0x02, 0, 0, 0x14, 0x1f, 0x20, 0x03, 0xd5, 0x1f, 0x20, 0x03, 0xd5);
	T_CHECK(!j.found, "b +8 stays in the method (%s)", j.how);
	j = JUMP(DISASM_ARM64, read_none, 0xf0, 0x0b, 0x40, 0xd1, 0x1f, 0x02, 0x40, 0xb9);  /* ART prologue */
	T_CHECK(!j.found, "an ART stack check is not a hook (%s)", j.how);
	/* literal outside the code: read through the callback, or unknown */
	j = JUMP(DISASM_ARM64, read_none, 0x10, 0x00, 0x04, 0x58, 0x00, 0x02, 0x1f, 0xd6);  /* ldr x16, #0x8000 */
	T_CHECK(j.found && !j.target_known, "unreadable literal still a hook (%s)", j.how);
	j = JUMP(DISASM_ARM64, read_lit, 0x10, 0x00, 0x04, 0x58, 0x00, 0x02, 0x1f, 0xd6);
	T_CHECK(j.found && j.target_known, "literal read through the callback (%s)", j.how);
	T_EQ_U(j.target, 0x50002000);
	j = JUMP(DISASM_ARM64, read_none, 0x50, 0, 0, 0x58, 0x20, 0x02, 0x1f, 0xd6);       /* ldr x16; br x17 */
	T_CHECK(!j.found, "a branch through another register is not the pattern (%s)", j.how);
}

static void test_thumb2(void)
{
	struct hooks_jump j;

	T_SECTION("thumb2");
	j = JUMP(DISASM_THUMB2, read_none, 0xdf, 0xf8, 0x00, 0xf0, 0x01, 0x10, 0x00, 0x40);
	T_CHECK(j.found && j.target_known, "ldr.w pc, [pc] (%s)", j.how);
	T_EQ_U(j.target, 0x40001000);
	j = JUMP(DISASM_THUMB2, read_none, 0x00, 0x4c, 0x20, 0x47, 0x01, 0x10, 0x00, 0x40);
	T_CHECK(j.found && j.target_known, "ldr r4, [pc]; bx r4 (%s)", j.how);
	T_EQ_U(j.target, 0x40001000);
	j = JUMP(DISASM_THUMB2, read_none, 0x00, 0xf1, 0x00, 0xb8);                       /* b.w +1 MiB */
	T_CHECK(j.found, "b.w far (%s)", j.how);
	T_EQ_U(j.target, 0x101004);
	j = JUMP(DISASM_THUMB2, read_none, 0x2d, 0xe9, 0xe0, 0x4d, 0x00, 0xbf);           /* push.w */
	T_CHECK(!j.found, "a push is not a hook (%s)", j.how);
	j = JUMP(DISASM_THUMB2, read_none, 0x00, 0xe0, 0x00, 0xbf, 0x00, 0xbf);           /* b +4 inside */
	T_CHECK(!j.found, "a short branch inside is not a hook (%s)", j.how);
}

static void test_x86(void)
{
	struct hooks_jump j;

	T_SECTION("x86, x86_64");
	j = JUMP(DISASM_X86_64, read_none, 0xff, 0x25, 0, 0, 0, 0, 0x00, 0x10, 0, 0, 0x7f, 0, 0, 0);
	T_CHECK(j.found && j.target_known, "jmp [rip] (%s)", j.how);
	T_EQ_U(j.target, 0x7f00001000ull);
	j = JUMP(DISASM_X86_64, read_none, 0x48, 0xb8, 0x00, 0x10, 0, 0, 0x7f, 0, 0, 0, 0xff, 0xe0);
	T_CHECK(j.found, "movabs rax; jmp rax (%s)", j.how);
	T_EQ_U(j.target, 0x7f00001000ull);
	j = JUMP(DISASM_X86, read_none, 0x68, 0x00, 0x10, 0x00, 0x40, 0xc3);
	T_CHECK(j.found, "push imm; ret (%s)", j.how);
	T_EQ_U(j.target, 0x40001000);
	j = JUMP(DISASM_X86, read_none, 0xe9, 0x00, 0x00, 0x00, 0x40);
	T_CHECK(j.found, "jmp rel32 far (%s)", j.how);
	T_EQ_U(j.target, 0x40001005);
	j = JUMP(DISASM_X86, read_none, 0xeb, 0x00, 0x90);
	T_CHECK(!j.found, "jmp to the next instruction (%s)", j.how);
	j = JUMP(DISASM_X86_64, read_none, 0x48, 0x83, 0xec, 0x28, 0xc3);              /* sub rsp; ret */
	T_CHECK(!j.found, "an ordinary frame (%s)", j.how);
	j = JUMP(DISASM_X86_64, read_none, 0xc3);
	T_CHECK(!j.found, "a lone ret (%s)", j.how);
	j = JUMP(DISASM_X86, read_none, 0xff);
	T_CHECK(!j.found, "undecodable bytes (%s)", j.how);
}

struct walked {
	unsigned n;
	uint64_t va[8], entry[8];
};

static int on_method(void *ctx, const struct hooks_art_method *m, struct err *e)
{
	struct walked *w = ctx;

	(void)e;
	if (w->n < 8) {
		w->va[w->n] = m->va;
		w->entry[w->n] = m->entry;
	}
	w->n++;
	return 0;
}

/* ART 10, 64-bit: ArtMethod 40 bytes, entry point at +32, arrays prefixed by u32 + 4 pad. */
static void put_method(struct wbuf *b, uint64_t entry)
{
	size_t at = b->len;

	wbuf_zeros(b, 40);
	memcpy(b->data + at + 32, &entry, 8);
}

static void test_walk(void)
{
	const struct art_layout *l10 = art_layout_by_family("10"), *l51 = art_layout_by_family("5.1");
	struct wbuf b;
	struct cursor c;
	struct walked w;
	struct err e;

	T_SECTION("ArtMethod sections");
	err_init(&e);
	T_CHECK(l10 && l51, "layout rows 10 and 5.1 exist");
	if (!l10 || !l51)
		return;
	T_EQ_U(l10->art_method_size[1], 40);
	T_EQ_U(l10->art_method.entry_point_quick[1], 32);
	wbuf_init(&b);
	wbuf_u32le(&b, 2); wbuf_u32le(&b, 0xdeadbeef);
	put_method(&b, 0x7000a000); put_method(&b, 0x7000b000);
	wbuf_u32le(&b, 1); wbuf_u32le(&b, 0);
	put_method(&b, 0x7fdead001000ull);
	cur_init(&c, b.data, b.len, 0x70100000);
	memset(&w, 0, sizeof(w));
	T_EQ_I(hooks_walk_methods(&c, l10, 8, true, on_method, &w, &e), 0);
	T_EQ_U(w.n, 3);
	T_EQ_U(w.va[0], 0x70100008);
	T_EQ_U(w.va[2], 0x70100008 + 80 + 8);
	T_EQ_U(w.entry[2], 0x7fdead001000ull);
	memset(&w, 0, sizeof(w));
	cur_init(&c, b.data + 8, 80, 0x70100008);                 /* runtime methods: no prefix */
	T_EQ_I(hooks_walk_methods(&c, l10, 8, false, on_method, &w, &e), 0);
	T_EQ_U(w.n, 2);
	memcpy(b.data, &(uint32_t){ 0 }, 4);
	cur_init(&c, b.data, b.len, 0x70100000);
	T_EQ_I(hooks_walk_methods(&c, l10, 8, true, on_method, &w, &e), -ERR_CORRUPT);
	memcpy(b.data, &(uint32_t){ 0xffffffffu }, 4);
	T_EQ_I(hooks_walk_methods(&c, l10, 8, true, on_method, &w, &e), -ERR_CORRUPT);
	T_CHECK(strstr(e.msg, "do not fit") != NULL, "%s", e.msg);
	memcpy(b.data, &(uint32_t){ 4 }, 4);                       /* longer than the section */
	cur_init(&c, b.data, b.len - 8, 0x70100000);
	T_EQ_I(hooks_walk_methods(&c, l10, 8, true, on_method, &w, &e), -ERR_CORRUPT);
	T_EQ_I(hooks_walk_methods(&c, l51, 8, true, on_method, &w, &e), -ERR_UNSUP);
	wbuf_release(&b);
}

static void test_ranges(void)
{
	struct hooks_ranges r = { 0 };
	struct err e;

	T_SECTION("code ranges");
	err_init(&e);
	for (unsigned i = 0; i < 40; i++)
		T_EQ_I(hooks_ranges_add(&r, 0x1000 * (i + 1), 0x1000 * (i + 1) + 0x800, "r", &e), 0);
	T_EQ_I(hooks_ranges_add(&r, 5, 5, "empty", &e), 0);
	T_EQ_U(r.count, 40);
	T_CHECK(hooks_ranges_find(&r, 0x1000) != NULL, "start is inside");
	T_CHECK(hooks_ranges_find(&r, 0x1800) == NULL, "end is outside");
	T_CHECK(hooks_ranges_find(&r, 0x28400) != NULL, "last range");
	T_CHECK(hooks_ranges_find(&r, 5) == NULL, "empty range not added");
	hooks_ranges_release(&r);
}

int main(void)
{
	struct err e;

	err_init(&e);
	if (disasm_open(&dis, &e) < 0) {
		printf("disasm_open: %s\nRESULT 0 1\n", e.msg);
		return 1;
	}
	img_init_empty(&lit_img, "literal");
	T_EQ_I(img_add_region_mem(&lit_img, 0x9000, literal, sizeof(literal), IMG_PROT_R, "literal", &e), 0);
	test_arm64();
	test_thumb2();
	test_x86();
	test_walk();
	test_ranges();
	disasm_close(dis);
	img_close(&lit_img);
	T_DONE();
}
