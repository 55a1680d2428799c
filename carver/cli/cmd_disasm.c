/* cmd_disasm.c - `artcarve disasm (IMAGE|OAT) METHOD`: Capstone disassembly of compiled methods.
 *
 * An OAT/ODEX file is opened with its VDEX beside it (for DEX names, 8.0+); a memory image is
 * searched for the OAT files mapped in it (oat_code_sources_open).  Methods are
 * selected by their exact name "Lpkg/Class;->name(sig)" or a glob over it, and printed with
 * address, bytes, mnemonic and operands; branch targets are named when they land in a known
 * method or OatHeader trampoline, thread-register loads/calls as quick entry points. */
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "art/code/disasm_art.h"
#include "art/code/oat_code.h"
#include "carver/base/rep.h"
#include "carver/cli/cli.h"
#include "carver/base/xalloc.h"

struct dis_opts {
	const char *input, *pattern, *vdex, *maps;
	bool json, list;
	uint64_t sample;         /* 0 = every match */
};

struct dis_ctx {
	struct dis_opts o;
	struct disasm *dis;
	FILE *out;
	struct rep r;            /* --json: one array of methods */
	size_t printed;
};

static bool dis_matches(const char *name, const char *pattern)
{
	return !strcmp(name, pattern) || fnmatch(pattern, name, 0) == 0;
}

static void dis_hex(FILE *out, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%02x", p[i]);
}

/* Name of an address in the source: a method (+offset) or a trampoline; false if unknown. */
static bool dis_name_of(const struct oat_code_source *cs, uint64_t va, char *buf, size_t cap)
{
	uint32_t delta;
	const char *n;

	if (va < cs->oatdata_va || va - cs->oatdata_va > UINT32_MAX)
		return false;
	n = oat_code_index_name_at(&cs->ix, (uint32_t)(va - cs->oatdata_va), &delta);
	if (!n)
		return false;
	if (delta)
		snprintf(buf, cap, "%s+0x%x", n, delta);
	else
		snprintf(buf, cap, "%s", n);
	return true;
}

/* The comment after an instruction: where a branch goes, which entry point a thread-register
 * operand reads, which literal a PC-relative load reads. */
static bool dis_comment(const struct oat_code_source *cs, const struct disasm_insn *in, char *buf, size_t cap)
{
	char name[512];

	if (in->has_target) {
		if (dis_name_of(cs, in->target, name, sizeof(name)))
			snprintf(buf, cap, "%s", name);
		else
			snprintf(buf, cap, "0x%" PRIx64 " (outside known code)", in->target);
		return true;
	}
	if (in->mem_base == DISASM_BASE_THREAD) {
		snprintf(buf, cap, "Thread+0x%" PRIx64 " (quick entry point)", (uint64_t)in->mem_disp);
		return true;
	}
	if (in->mem_base == DISASM_BASE_PC && dis_name_of(cs, in->mem_addr, name, sizeof(name))) {
		snprintf(buf, cap, "literal in %s", name);
		return true;
	}
	return false;
}

static void dis_insn_text(struct dis_ctx *cx, const struct oat_code_source *cs, const struct disasm_insn *in)
{
	char comment[600];
	int w;

	fprintf(cx->out, "  0x%08" PRIx64 "  ", in->address);
	dis_hex(cx->out, in->bytes, in->size);
	w = (int)(2 * in->size);
	fprintf(cx->out, "%*s %-8s %s", w < 20 ? 20 - w : 0, "", in->mnemonic, in->operands);
	if (dis_comment(cs, in, comment, sizeof(comment)))
		fprintf(cx->out, "  ; %s", comment);
	fputc('\n', cx->out);
}

static void dis_insn_json(struct dis_ctx *cx, const struct oat_code_source *cs, const struct disasm_insn *in)
{
	char comment[600], bytes[2 * DISASM_MAX_BYTES + 1];
	struct rep *r = &cx->r;

	for (size_t i = 0; i < in->size && i < DISASM_MAX_BYTES; i++)
		snprintf(bytes + 2 * i, 3, "%02x", in->bytes[i]);
	bytes[2 * (in->size < DISASM_MAX_BYTES ? in->size : DISASM_MAX_BYTES)] = '\0';
	rep_open(r, NULL, false);
	rep_hex(r, "address", in->address);
	rep_u(r, "size", in->size);
	rep_s(r, "bytes", bytes);
	rep_s(r, "mnemonic", in->mnemonic);
	rep_s(r, "operands", in->operands);
	rep_bool(r, "valid", in->valid);
	if (in->has_target)
		rep_hex(r, "target", in->target);
	if (dis_comment(cs, in, comment, sizeof(comment)))
		rep_s(r, "comment", comment);
	rep_close(r);
}

static void dis_method_head(struct dis_ctx *cx, const struct oat_code_source *cs, const struct oat_code_entry *en)
{
	const char *name = oat_code_entry_name(&cs->ix, en);
	uint64_t va = cs->oatdata_va + en->code_start;

	if (!cx->o.json && cx->o.list) {
		fprintf(cx->out, "0x%08" PRIx64 " %7u %s\n", va, en->code_size, name);
		return;
	}
	if (!cx->o.json) {
		fprintf(cx->out, "%s%s\n  %s, dex %u class_def %u method %u, %s, code 0x%" PRIx64 ", %u bytes",
			cx->printed ? "\n" : "", name, cs->label, en->dex_file, en->class_def, en->method_index,
			disasm_arch_name(cs->arch), va, en->code_size);
		if (cs->file_offset_known)
			fprintf(cx->out, ", file offset 0x%" PRIx64, cs->exec_file_offset + (en->code_start - cs->ix.space.exec_rel));
		fputc('\n', cx->out);
		return;
	}
	rep_open(&cx->r, NULL, false);
	rep_s(&cx->r, "method", name);
	rep_s(&cx->r, "source", cs->label);
	rep_u(&cx->r, "dex", en->dex_file);
	rep_u(&cx->r, "class_def", en->class_def);
	rep_u(&cx->r, "method_index", en->method_index);
	rep_s(&cx->r, "isa", disasm_arch_name(cs->arch));
	rep_hex(&cx->r, "address", va);
	rep_u(&cx->r, "size", en->code_size);
	if (cs->file_offset_known)
		rep_u(&cx->r, "file_offset", cs->exec_file_offset + (en->code_start - cs->ix.space.exec_rel));
}

static int dis_method(struct dis_ctx *cx, const struct oat_code_source *cs, const struct oat_code_entry *en,
		      struct err *e)
{
	struct oat_method_code mc;
	struct disasm_iter it;
	struct disasm_insn in;
	int rc;

	if ((rc = oat_method_code_decode(&cs->ix.space, en->code_offset, &mc, e)) < 0)
		return err_prefix(e, "%s", oat_code_entry_name(&cs->ix, en));
	dis_method_head(cx, cs, en);
	if (cx->o.list) {
		if (cx->o.json)
			rep_close(&cx->r);
		cx->printed++;
		return 0;
	}
	if ((rc = disasm_iter_init(cx->dis, cs->arch, mc.code.base, mc.code.len, cs->oatdata_va + mc.code_offset,
				   &it, e)) < 0)
		return rc;
	if (cx->o.json)
		rep_open_lines(&cx->r, "instructions", true);
	while (disasm_next(&it, &in) == 1) {
		if (cx->o.json)
			dis_insn_json(cx, cs, &in);
		else
			dis_insn_text(cx, cs, &in);
	}
	if (cx->o.json) {
		rep_close(&cx->r);
		rep_close(&cx->r);
	}
	cx->printed++;
	return 0;
}

/* The matching entries of one source, in index order (class_def, then method). */
static int dis_collect(const struct oat_code_source *cs, const char *pattern, size_t **out, size_t *count,
		       struct err *e)
{
	size_t *sel = NULL, n = 0;

	for (size_t i = 0; i < cs->ix.count; i++) {
		if (!dis_matches(oat_code_entry_name(&cs->ix, &cs->ix.entries[i]), pattern))
			continue;
		if (n % 256 == 0) {
			size_t *grown = xreallocarray(sel, n + 256, sizeof(*sel));
			if (!grown) {
				xfree(sel);
				return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory selecting methods");
			}
			sel = grown;
		}
		sel[n++] = i;
	}
	*out = sel;
	*count = n;
	return 0;
}

/* Corrupt classes/methods the index left out: one line on stderr with the first reason. */
static void dis_warn_skipped(const char *cmd, const struct oat_code_source *cs)
{
	if (cs->ix.skipped)
		fprintf(stderr, "artcarve %s: warning: %s: %zu class%s or method%s left out as corrupt, first: %s\n", cmd,
			cs->label, cs->ix.skipped, cs->ix.skipped == 1 ? "" : "es", cs->ix.skipped == 1 ? "" : "s",
			cs->ix.first_skip.msg);
}

static int dis_source(struct dis_ctx *cx, const struct oat_code_source *cs, struct err *e)
{
	size_t *sel = NULL, n = 0, take;
	int rc = 0;

	if ((rc = dis_collect(cs, cx->o.pattern, &sel, &n, e)) < 0)
		return rc;
	take = (cx->o.sample && cx->o.sample < n) ? (size_t)cx->o.sample : n;
	for (size_t k = 0; k < take && rc == 0; k++) {
		/* --sample N: N methods spread evenly over the matches, deterministically */
		size_t i = take == n ? k : (size_t)((uint64_t)k * n / take);
		rc = dis_method(cx, cs, &cs->ix.entries[sel[i]], e);
	}
	xfree(sel);
	return rc;
}

/* Why nothing was printed: no OAT at all (say why the first one failed), or no match. */
static int dis_nothing(const struct oat_code_sources *srcs, const char *pattern, struct err *e)
{
	if (srcs->count == 0 && srcs->failed) {
		*e = srcs->first_failure;
		return err_prefix(e, "no readable OAT file in the image (%zu failed)", srcs->failed);
	}
	if (srcs->count == 0)
		return ERR_SET(e, ERR_CORRUPT, ERR_NO_VA, "no OAT file found in the image");
	return ERR_SET(e, ERR_CORRUPT, ERR_NO_VA, "no compiled method matches '%s'", pattern);
}

static const struct opt dis_opts[] = {
	OPT_ROW_FLAG("--json", NULL, struct dis_opts, json),
	OPT_ROW_FLAG("--list", NULL, struct dis_opts, list),
	OPT_ROW_UINT("--sample", struct dis_opts, sample, "a count from 1 to 1000000", 1, 1000000),
	OPT_ROW_STRING("--vdex", struct dis_opts, vdex, "a file"),
	OPT_ROW_STRING("--maps", struct dis_opts, maps, "a file"),
	OPT_ROW_END,
};
static const char *const dis_pos[] = { "OAT or IMAGE", "METHOD", NULL };
const struct opt_spec cmd_disasm_spec = { dis_opts, dis_pos, 2, 2 };

int cmd_disasm(int argc, char **argv)
{
	struct dis_ctx cx = { .out = stdout };
	struct oat_code_sources srcs;
	size_t npos;
	struct err e;
	int rc;

	err_init(&e);
	if ((rc = cli_parse(argc, argv, &cmd_disasm_spec, &cx.o, &npos)) != CLI_GO_ON)
		return rc;
	cx.o.input = argv[1];
	cx.o.pattern = argv[2];
	if ((rc = disasm_open(&cx.dis, &e)) < 0)
		return cli_report(argv[0], &e);
	rep_init(&cx.r, cx.out, cx.o.json);
	rc = oat_code_sources_open(&srcs, cx.o.input, cx.o.vdex, cx.o.maps, &e);
	if (rc == 0) {
		if (cx.o.json)
			rep_open_lines(&cx.r, NULL, true);
		for (size_t i = 0; i < srcs.count && rc == 0; i++) {
			dis_warn_skipped(argv[0], &srcs.v[i]);
			rc = dis_source(&cx, &srcs.v[i], &e);
		}
		if (cx.o.json) {
			rep_close(&cx.r);
			fputc('\n', cx.out);
		}
		if (rc == 0 && cx.printed == 0)
			rc = dis_nothing(&srcs, cx.o.pattern, &e);
		oat_code_sources_close(&srcs);
	}
	disasm_close(cx.dis);
	return rc < 0 ? cli_report(argv[0], &e) : CLI_OK;
}
