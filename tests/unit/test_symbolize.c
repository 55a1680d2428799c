/* test_symbolize.c - the symboliser and elfw_symbol_at on small libraries built here with
 * the C compiler (64-bit, and 32-bit with -m32 -nostdlib): every PC inside each function
 * must come back as lib+file offset (function+offset), through the file under a symbols
 * directory, through the caller's bytes, through a copy cut before its section headers
 * (PT_DYNAMIC's symbols only) and through an image holding the mapped segments; then
 * hostile tables and mappings. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "carver/base/mapfile.h"
#include "carver/base/xalloc.h"
#include "carver/wrap/elfw.h"
#include "carver/image/image.h"
#include "carver/image/symbolize.h"
#include "t.h"

static const char lib_src[] =
	"__attribute__((noinline)) static int symz_hidden(int x) { return x * 3 + 1; }\n"
	"int symz_fa(int x) { int y = x; for (int i = 0; i < x; i++) y += symz_hidden(i); return y; }\n"
	"int symz_fb(int x) { return symz_hidden(x) - symz_fa(x / 2); }\n"
	"int symz_table[64] = { 1 };\n";
static const char *const exported[] = { "symz_fa", "symz_fb" };

static char tmpdir[] = "/tmp/test_symbolize.XXXXXX";

/* Builds the library as tmpdir/system/libNN.so; returns 0 when cc made it. */
static int build_lib(const char *name, const char *flags)
{
	char cmd[1024];
	FILE *f;

	snprintf(cmd, sizeof(cmd), "%s/lib.c", tmpdir);
	f = fopen(cmd, "w");
	if (!f)
		return -1;
	fputs(lib_src, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "mkdir -p %s/sym/system/lib && cc %s -shared -fPIC -O1 -o %s/sym/system/lib/%s %s/lib.c",
		 tmpdir, flags, tmpdir, name, tmpdir);
	printf("  %s\n", cmd);
	return system(cmd);
}

struct fn {
	const char *name;
	uint64_t value, size, off; /* symbol value, size, file offset of the value */
};

/* Each function's address and size from the lookup by name (a different path of elfw). */
static int lib_functions(struct elfw *w, struct fn *fns, size_t n)
{
	struct err e;
	err_init(&e);
	for (size_t i = 0; i < n; i++) {
		fns[i].name = exported[i];
		if (elfw_symbol(w, exported[i], &fns[i].value, &fns[i].size, &e) ||
		    elfw_va_to_offset(w, fns[i].value, &fns[i].off, &e)) {
			printf("FAIL %s: %s\n", exported[i], e.msg);
			return -1;
		}
	}
	return 0;
}

#define LIB_BASE 0x7f0000000000ull

/* Every byte of every function, looked up through s, names the function. */
static void check_all_pcs(struct symz *s, const char *libpath, const struct fn *fns, size_t n, const char *how)
{
	struct err e;
	unsigned bad = 0, good = 0;

	err_init(&e);
	for (size_t i = 0; i < n; i++)
		for (uint64_t k = 0; k < fns[i].size; k++) {
			struct symz_frame fr;
			uint64_t pc = LIB_BASE + fns[i].off + k;
			if (symz_lookup(s, pc, &fr, &e) || !fr.placed || !fr.lib || strcmp(fr.lib, libpath) ||
			    fr.lib_offset != fns[i].off + k || !fr.symbol || strcmp(fr.symbol, fns[i].name) ||
			    fr.symbol_offset != k) {
				if (bad++ < 3)
					printf("  %s: pc 0x%llx -> %s+0x%llx (%s+0x%llx) problem %s, expected %s+0x%llx\n", how,
					       (unsigned long long)pc, fr.lib ? fr.lib : "?", (unsigned long long)fr.lib_offset,
					       fr.symbol ? fr.symbol : "?", (unsigned long long)fr.symbol_offset,
					       fr.problem ? fr.problem : "-", fns[i].name, (unsigned long long)k);
			} else {
				good++;
			}
		}
	printf("  %s: %u pcs named as expected, %u not\n", how, good, bad);
	T_CHECK(bad == 0 && good > 0, "%s: %u wrong of %u", how, bad, good + bad);
}

static uint64_t file_size_of(const struct mapfile *m) { return m->len; }

static void test_lib(const char *name, const char *flags)
{
	char path[512], libpath[128];
	struct mapfile m;
	struct elfw *w = NULL;
	struct fn fns[2];
	struct symz *s = NULL;
	struct err e;
	struct symz_frame fr;
	uint8_t *cut;
	size_t cut_len = 0, nsyms = 0;

	printf("-- %s (%s)\n", name, flags);
	err_init(&e);
	T_EQ_I(build_lib(name, flags), 0);
	snprintf(libpath, sizeof(libpath), "/system/lib/%s", name);
	snprintf(path, sizeof(path), "%s/sym%s", tmpdir, libpath);
	T_EQ_I(mapfile_open(&m, path, &e), 0);
	if (!m.data)
		return;
	T_EQ_I(elfw_open(&w, m.data, m.len, path, &e), 0);
	if (!w || lib_functions(w, fns, 2)) {
		T_CHECK(0, "library %s unusable: %s", path, e.msg);
		elfw_close(w);
		mapfile_close(&m);
		return;
	}
	T_EQ_I(elfw_symbol_count(w, &nsyms, &e), 0);
	printf("  %zu symbols indexed\n", nsyms);
	T_CHECK(nsyms >= 3, "%zu symbols", nsyms);

	/* through the symbols directory */
	sprintf(path, "%s/sym", tmpdir);
	T_EQ_I(symz_new(&s, path, &e), 0);
	T_EQ_I(symz_add_map(s, libpath, LIB_BASE, LIB_BASE + file_size_of(&m) + 0x10000, 0, NULL, 0, &e), 0);
	check_all_pcs(s, libpath, fns, 2, "symbols dir");
	/* the static function is in .symtab only */
	{
		uint64_t hv = 0, hoff = 0;
		T_EQ_I(elfw_symbol(w, "symz_hidden", &hv, NULL, &e), 0);
		T_EQ_I(elfw_va_to_offset(w, hv, &hoff, &e), 0);
		T_EQ_I(symz_lookup(s, LIB_BASE + hoff, &fr, &e), 0);
		T_CHECK(fr.symbol && !strcmp(fr.symbol, "symz_hidden") && fr.symbol_offset == 0,
			"static function: %s+0x%llx", fr.symbol ? fr.symbol : "?", (unsigned long long)fr.symbol_offset);
	}
	/* below and above the mapping: not placed */
	T_EQ_I(symz_lookup(s, LIB_BASE - 1, &fr, &e), 0);
	T_CHECK(!fr.placed && !fr.lib, "pc below the mapping placed in %s", fr.lib ? fr.lib : "-");
	T_EQ_I(symz_lookup(s, LIB_BASE + file_size_of(&m) + 0x10000, &fr, &e), 0);
	T_CHECK(!fr.placed, "pc at the mapping's end placed");
	/* an overlapping mapping is refused, an abutting one accepted */
	T_EQ_I(symz_add_map(s, "/x", LIB_BASE + 0x10, LIB_BASE + 0x20, 0, NULL, 0, &e), -ERR_CORRUPT);
	T_EQ_I(symz_add_map(s, "/x", LIB_BASE - 0x1000, LIB_BASE, 0, NULL, 0, &e), 0);
	T_EQ_I(symz_lookup(s, LIB_BASE - 1, &fr, &e), 0);
	T_CHECK(fr.placed && fr.lib && !strcmp(fr.lib, "/x") && !fr.symbol && fr.problem,
		"missing file: placed %d problem %s", fr.placed, fr.problem ? fr.problem : "-");
	T_EQ_I(symz_add_map(s, "/y", 5, 5, 0, NULL, 0, &e), -ERR_CORRUPT);
	symz_free(s);

	/* through the caller's bytes, no directory */
	T_EQ_I(symz_new(&s, NULL, &e), 0);
	T_EQ_I(symz_add_map(s, libpath, LIB_BASE, LIB_BASE + file_size_of(&m), 0, m.data, m.len, &e), 0);
	check_all_pcs(s, libpath, fns, 2, "caller's bytes");
	symz_free(s);

	/* a copy cut at the end of the last loaded byte: no section headers, PT_DYNAMIC only */
	for (size_t i = 0; i < elfw_phdr_count(w); i++) {
		struct elfw_phdr ph;
		if (elfw_phdr(w, i, &ph, &e) == 0 && ph.type == ELFW_PT_LOAD && ph.offset + ph.filesz > cut_len)
			cut_len = ph.offset + ph.filesz;
	}
	cut = xmalloc(cut_len);
	if (cut) {
		struct elfw *cw = NULL;
		memcpy(cut, m.data, cut_len);
		T_CHECK(elfw_drop_unmapped_sections(cut, cut_len), "section table of %zu-byte copy dropped", cut_len);
		T_CHECK(!elfw_drop_unmapped_sections(cut, cut_len), "second drop changes nothing");
		T_EQ_I(elfw_open(&cw, cut, cut_len, "cut", &e), 0);
		if (cw) {
			T_EQ_I(elfw_symbol_count(cw, &nsyms, &e), 0);
			printf("  %zu dynamic symbols without section headers\n", nsyms);
			T_CHECK(nsyms >= 2, "%zu", nsyms);
			elfw_close(cw);
		}
		T_EQ_I(symz_new(&s, NULL, &e), 0);
		T_EQ_I(symz_add_map(s, libpath, LIB_BASE, LIB_BASE + file_size_of(&m), 0, cut, cut_len, &e), 0);
		check_all_pcs(s, libpath, fns, 2, "PT_DYNAMIC");
		symz_free(s);

		/* an image holding the loaded segments, one region per PT_LOAD page range */
		{
			struct image img;
			img_init_empty(&img, "segments");
			T_EQ_I(img_add_region_mem(&img, LIB_BASE, cut, cut_len, IMG_PROT_R | IMG_PROT_X, libpath, &e), 0);
			T_EQ_I(symz_new(&s, NULL, &e), 0);
			T_EQ_I(symz_add_image(s, &img, &e), 0);
			T_EQ_U(symz_map_count(s), 1);
			check_all_pcs(s, libpath, fns, 2, "image");
			symz_free(s);
			img_close(&img);
		}
		xfree(cut);
	}
	elfw_close(w);
	mapfile_close(&m);
}

/* Hostile symbol tables: every byte of the library flipped in turn, in the whole file and
 * in a copy cut before its section headers (the PT_DYNAMIC path), must give a symbol, no
 * symbol or an error, never a crash (ASan build). */
static void flip_sweep(const uint8_t *data, size_t len, bool cut, const char *how)
{
	struct err e;
	unsigned named = 0, unnamed = 0, errors = 0, opened = 0;
	uint8_t *copy = xmalloc(len);

	err_init(&e);
	if (!copy) {
		T_CHECK(0, "out of memory");
		return;
	}
	for (size_t at = 0; at < len; at++) {
		struct elfw *w = NULL;
		const char *name = NULL;
		uint64_t off;
		memcpy(copy, data, len);
		if (cut)
			elfw_drop_unmapped_sections(copy, len);
		copy[at] ^= 0xff;
		if (elfw_open(&w, copy, len, "flipped", &e) == 0) {
			int rc = elfw_symbol_at(w, 0x1100, &name, &off, &e);
			opened++;
			if (rc == 0 && name && strlen(name) < len)
				named++;
			else if (rc == 1)
				unnamed++;
			else if (rc < 0)
				errors++;
			elfw_close(w);
		}
	}
	xfree(copy);
	printf("  %s: %zu bytes flipped: %u opened, %u named, %u unnamed, %u errors\n", how, len, opened, named,
	       unnamed, errors);
	T_CHECK(opened > 0 && named + unnamed + errors == opened, "%u opened", opened);
}

static void test_hostile(void)
{
	char path[512];
	struct mapfile m;
	struct err e;
	struct elfw *w = NULL;

	T_SECTION("hostile bytes");
	err_init(&e);
	snprintf(path, sizeof(path), "%s/sym/system/lib/libt64.so", tmpdir);
	if (mapfile_open(&m, path, &e) || !m.data) {
		T_CHECK(0, "%s", e.msg);
		return;
	}
	flip_sweep(m.data, m.len, false, "whole file");
	if (elfw_open(&w, m.data, m.len, path, &e) == 0) {
		size_t cut_len = 0;
		for (size_t i = 0; i < elfw_phdr_count(w); i++) {
			struct elfw_phdr ph;
			if (elfw_phdr(w, i, &ph, &e) == 0 && ph.type == ELFW_PT_LOAD && ph.offset + ph.filesz > cut_len)
				cut_len = ph.offset + ph.filesz;
		}
		flip_sweep(m.data, cut_len, true, "PT_DYNAMIC copy");
		elfw_close(w);
	}
	mapfile_close(&m);
	{
		uint8_t junk[64] = { 0 };
		T_CHECK(!elfw_drop_unmapped_sections(junk, sizeof(junk)), "no ELF: nothing dropped");
	}
}

int main(void)
{
	char cmd[600];

	if (!mkdtemp(tmpdir)) {
		printf("FAIL mkdtemp\nRESULT 0 1\n");
		return 1;
	}
	test_lib("libt64.so", "");
	test_lib("libt32.so", "-m32 -nostdlib");
	test_hostile();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	T_EQ_I(system(cmd), 0);
	T_DONE();
}
