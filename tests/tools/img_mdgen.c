/* img_mdgen.c - ground truth for `artcarve native`: writes an ELF core (and its maps
 * listing) of a process whose native heap holds allocations made under malloc_debug with a
 * chosen option set, injected heap overflows (rear guard), underflows (front guard) and
 * use-after-free writes at known offsets, and the ELF libraries the backtrace PCs point
 * into; truth.tsv lists every allocation, damaged byte and frame.
 *
 * Written from bionic libc/malloc_debug (malloc_debug.h Header; DebugData.cpp offsets;
 * BacktraceData.cpp: the frames block in the header up to android-8.1; Config.cpp values
 * and alignment) and the ELF gABI / linux fs/binfmt_elf.c (core, NT_FILE), not from the
 * scanner (it shares no code with carver/native).
 *
 * usage: img_mdgen --out DIR --bits 32|64 --era 7|9 [--front N] [--rear N] [--frames N]
 *          [--fill-alloc] [--fill-free] [--free-track] [--count N] [--seed N]
 *          [--lib NAME=FILE] [--sym NAME:VALUE:SIZE] (repeatable; symbols of the first lib)
 *          [--no-lib-bytes] [--seed-out FILE]
 * --seed-out also writes the heap bytes alone, after one selector byte (word size), as a
 * seed for tests/fuzz/fuzz_mdebug.c.
 * Frames are PCs inside the given symbols of the first library, mapped whole at file offset
 * 0, so the truth names lib+VALUE+k (symbol+k) (the caller checks that the library's text
 * has p_offset == p_vaddr). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TAG 0x1ee7d00du
#define FREE_TAG 0x1cc7dccdu
#define MAXSYMS 64
#define MAXLIBS 4

struct sym { char name[128]; uint64_t value, size; };
struct lib { char name[256]; char file[512]; uint8_t *bytes; size_t len; uint64_t base; };

static struct {
	const char *out, *seed_out;
	unsigned bits, era, front, rear, frames, count;
	int fill_alloc, fill_free, free_track, lib_bytes;
	uint64_t seed;
	struct lib libs[MAXLIBS];
	unsigned nlibs;
	struct sym syms[MAXSYMS];
	unsigned nsyms;
} g = { .bits = 64, .era = 9, .count = 40, .seed = 1, .lib_bytes = 1 };

static uint8_t *heap;
static size_t heap_len, heap_cap;
static uint64_t heap_va;
static FILE *truth;

static uint64_t rnd(void)
{
	g.seed ^= g.seed << 13;
	g.seed ^= g.seed >> 7;
	g.seed ^= g.seed << 17;
	return g.seed;
}

static void die(const char *m)
{
	fprintf(stderr, "img_mdgen: %s\n", m);
	exit(2);
}

static uint64_t al_up(uint64_t v, unsigned a) { return (v + a - 1) / a * a; }

static void heap_need(size_t n)
{
	if (n <= heap_cap)
		return;
	while (heap_cap < n)
		heap_cap = heap_cap ? heap_cap * 2 : 1 << 16;
	heap = realloc(heap, heap_cap);
	if (!heap)
		die("out of memory");
}

static void put_word(size_t at, uint64_t v)
{
	for (unsigned i = 0; i < g.bits / 8; i++)
		heap[at + i] = (uint8_t)(v >> (8 * i));
}

static void put32(size_t at, uint32_t v)
{
	for (unsigned i = 0; i < 4; i++)
		heap[at + i] = (uint8_t)(v >> (8 * i));
}

static const char *state_name(int st) { return st == 0 ? "live" : st == 1 ? "freed" : "tag-corrupted"; }

/* One allocation whose header is at heap offset h; returns the offset past it. */
static size_t one_alloc(unsigned idx, size_t h)
{
	unsigned ps = g.bits / 8, al = g.bits == 64 ? 16 : 8;
	unsigned hdr = (unsigned)al_up(4 + 3 * ps, al);
	unsigned bt = g.era == 7 && g.frames ? (unsigned)al_up(ps * (1 + g.frames), al) : 0;
	unsigned fg = (unsigned)al_up(g.front, al), rg = g.rear;
	uint64_t size = 1 + rnd() % (rnd() % 8 ? 160 : 3000);
	uint64_t usable = rg ? size : al_up(size, al) + (rnd() % 2) * al;
	int st = 0, zygote = g.era == 7 && rnd() % 6 == 0;
	size_t P, end;
	uint64_t slack = 0;
	char text[64];
	size_t tl, written, span;
	uint64_t eb = 0, ef = 0;
	uint32_t tag;

	if (g.free_track && rnd() % 4 == 0)
		st = 1;
	else if ((fg || rg) && rnd() % 12 == 0)
		st = 2;
	if (rnd() % 8 == 0) {
		slack = al * (1 + rnd() % 3); /* a memalign'd block: orig_pointer before the header */
		heap_need(h + slack);
		memset(heap + h, 0, slack);
		h += slack;
	}
	P = h + hdr + bt + fg;
	end = P + (rg ? size + rg : usable) + al * (rnd() % 3);
	heap_need(end + 64);
	memset(heap + h, 0, end + 64 - h);
	tag = st == 0 ? TAG : st == 1 ? FREE_TAG : (uint32_t)(0x41410000u | (rnd() & 0xffff));
	put32(h, tag);
	put_word(h + 4, heap_va + h - slack);
	put_word(h + 4 + ps, size | (zygote ? 1ull << 31 : 0));
	put_word(h + 4 + 2 * ps, usable);
	fprintf(truth, "alloc\t0x%llx\t%s\t%llu\t%llu\t0x%llx\t%d\n", (unsigned long long)(heap_va + P), state_name(st),
		(unsigned long long)size, (unsigned long long)usable, (unsigned long long)(heap_va + h), zygote);
	if (bt) {
		unsigned n = 1 + (unsigned)(rnd() % g.frames);
		put_word(h + hdr, n);
		for (unsigned i = 0; i < n; i++) {
			const struct sym *s = &g.syms[rnd() % g.nsyms];
			uint64_t k = rnd() % s->size, pc = g.libs[0].base + s->value + k;
			put_word(h + hdr + ps * (1 + i), pc);
			fprintf(truth, "frame\t0x%llx\t%u\t0x%llx\t%s\t0x%llx\t%s\t0x%llx\n", (unsigned long long)(heap_va + P), i,
				(unsigned long long)pc, g.libs[0].name, (unsigned long long)s->value + k, s->name,
				(unsigned long long)k);
		}
		for (size_t i = h + hdr + ps * (1 + n); i < h + hdr + bt; i++)
			heap[i] = (uint8_t)(rnd() % 0x80); /* stale words in the unused frame slots */
	}
	memset(heap + P - fg, 0xaa, fg);
	/* the data: text the app wrote, the rest of usable as the fill left it */
	span = rg ? size : usable;
	tl = (size_t)snprintf(text, sizeof(text), "secret-%u payload for allocation %u", idx, idx);
	if (st == 1) {
		memset(heap + P, g.fill_free ? 0xef : 0, span);
	} else {
		written = (size_t)(rnd() % (size + 1));
		memset(heap + P, g.fill_alloc ? 0xeb : 0, span);
		for (size_t i = 0; i < written; i++)
			heap[P + i] = (uint8_t)text[i % tl];
	}
	memset(heap + P + size, 0xbb, rg);
	/* injected damage, offsets from P as malloc_debug logs them */
	if (st != 2 && rg && rnd() % 4 == 0) {
		unsigned n = 1 + (unsigned)(rnd() % (rg < 5 ? rg : 5)), at = (unsigned)(rnd() % (rg - n + 1));
		for (unsigned i = 0; i < n; i++) {
			uint8_t v = (uint8_t)('A' + rnd() % 26);
			heap[P + size + at + i] = v;
			fprintf(truth, "damage\t0x%llx\trear-guard\t%llu\t0x%02x\t0xbb\n", (unsigned long long)(heap_va + P),
				(unsigned long long)(size + at + i), v);
		}
	}
	if (st != 2 && fg && rnd() % 4 == 0) {
		unsigned n = 1 + (unsigned)(rnd() % 4);
		for (unsigned i = 0; i < n; i++) {
			uint8_t v = (uint8_t)('a' + rnd() % 26);
			heap[P - n + i] = v;
		}
		for (unsigned i = 0; i < n; i++)
			fprintf(truth, "damage\t0x%llx\tfront-guard\t-%u\t0x%02x\t0xaa\n", (unsigned long long)(heap_va + P), n - i,
				heap[P - n + i]);
	}
	if (st == 1 && g.fill_free && rnd() % 3 == 0) {
		unsigned n = 1 + (unsigned)(rnd() % 6);
		for (unsigned i = 0; i < n && i < span; i++)
			heap[P + (span - 1 - i * 3 % span)] = (uint8_t)('0' + i);
		for (size_t i = 0; i < span; i++)
			if (heap[P + i] != 0xef)
				fprintf(truth, "damage\t0x%llx\tuse-after-free\t%zu\t0x%02x\t0xef\n",
					(unsigned long long)(heap_va + P), i, heap[P + i]);
	}
	for (size_t i = 0; i < span; i++) {
		eb += heap[P + i] == 0xeb;
		ef += heap[P + i] == 0xef;
	}
	fprintf(truth, "fill\t0x%llx\t%llu\t%llu\t", (unsigned long long)(heap_va + P), (unsigned long long)eb,
		(unsigned long long)ef);
	for (size_t i = 0; i < 32 && i < size; i++)
		fprintf(truth, "%02x", heap[P + i]);
	fputc('\n', truth);
	if (end > heap_len)
		heap_len = end;
	return (size_t)al_up(end, al) + (size_t)(rnd() % 2 ? 0 : al);
}

/* ---- the core ---- */

struct seg { uint64_t va, memsz; const uint8_t *data; size_t filesz; uint32_t flags; const char *file; };

static void w_word(FILE *f, uint64_t v, unsigned w)
{
	for (unsigned i = 0; i < w; i++)
		fputc((int)(v >> (8 * i) & 0xff), f);
}

static void write_core(const char *path, const struct seg *segs, unsigned nsegs)
{
	unsigned w = g.bits / 8, ehsz = g.bits == 64 ? 64 : 52, phsz = g.bits == 64 ? 56 : 32;
	uint8_t note[8192];
	size_t nl = 0, off;
	unsigned nfile = 0;
	FILE *f = fopen(path, "wb");

	if (!f)
		die("cannot write the core");
	/* NT_FILE: count, page size, {start, end, pgoff} per file mapping, then the names */
	for (unsigned i = 0; i < nsegs; i++)
		nfile += segs[i].file != NULL;
#define NOTE_WORD(v) do { for (unsigned i_ = 0; i_ < w; i_++) note[nl++] = (uint8_t)((uint64_t)(v) >> (8 * i_)); } while (0)
	NOTE_WORD(nfile);
	NOTE_WORD(4096);
	for (unsigned i = 0; i < nsegs; i++)
		if (segs[i].file) {
			NOTE_WORD(segs[i].va);
			NOTE_WORD(segs[i].va + segs[i].memsz);
			NOTE_WORD(0);
		}
	for (unsigned i = 0; i < nsegs; i++)
		if (segs[i].file) {
			size_t n = strlen(segs[i].file) + 1;
			memcpy(note + nl, segs[i].file, n);
			nl += n;
		}
#undef NOTE_WORD
	/* ELF header */
	fwrite("\177ELF", 1, 4, f);
	fputc(g.bits == 64 ? 2 : 1, f);
	fputc(1, f);
	fputc(1, f);
	for (int i = 0; i < 9; i++)
		fputc(0, f);
	w_word(f, 4, 2);                           /* ET_CORE */
	w_word(f, g.bits == 64 ? 183 : 40, 2);     /* EM_AARCH64 / EM_ARM */
	w_word(f, 1, 4);
	w_word(f, 0, w);                           /* e_entry */
	w_word(f, ehsz, w);                        /* e_phoff */
	w_word(f, 0, w);                           /* e_shoff */
	w_word(f, 0, 4);
	w_word(f, ehsz, 2);
	w_word(f, phsz, 2);
	w_word(f, nsegs + 1, 2);
	w_word(f, g.bits == 64 ? 64 : 40, 2);
	w_word(f, 0, 2);
	w_word(f, 0, 2);
	off = ehsz + (size_t)phsz * (nsegs + 1);
	/* PT_NOTE: one "CORE" NT_FILE note */
	{
		size_t notelen = 12 + 8 + al_up(nl, 4);
		w_word(f, 4, 4);
		if (g.bits == 64) {
			w_word(f, 0, 4);
			w_word(f, off, 8); w_word(f, 0, 8); w_word(f, 0, 8);
			w_word(f, notelen, 8); w_word(f, 0, 8); w_word(f, 4, 8);
		} else {
			w_word(f, off, 4); w_word(f, 0, 4); w_word(f, 0, 4);
			w_word(f, notelen, 4); w_word(f, 0, 4); w_word(f, 0, 4); w_word(f, 4, 4);
		}
		off += notelen;
	}
	for (unsigned i = 0; i < nsegs; i++) {
		w_word(f, 1, 4);
		if (g.bits == 64) {
			w_word(f, segs[i].flags, 4);
			w_word(f, off, 8); w_word(f, segs[i].va, 8); w_word(f, 0, 8);
			w_word(f, segs[i].filesz, 8); w_word(f, segs[i].memsz, 8); w_word(f, 4096, 8);
		} else {
			w_word(f, off, 4); w_word(f, segs[i].va, 4); w_word(f, 0, 4);
			w_word(f, segs[i].filesz, 4); w_word(f, segs[i].memsz, 4); w_word(f, segs[i].flags, 4);
			w_word(f, 4096, 4);
		}
		off += segs[i].filesz;
	}
	w_word(f, 5, 4);
	w_word(f, nl, 4);
	w_word(f, 0x46494c45, 4);
	fwrite("CORE\0\0\0\0", 1, 8, f);
	fwrite(note, 1, nl, f);
	for (size_t i = nl; i % 4; i++)
		fputc(0, f);
	for (unsigned i = 0; i < nsegs; i++)
		if (segs[i].filesz)
			fwrite(segs[i].data, 1, segs[i].filesz, f);
	if (fclose(f))
		die("cannot write the core");
}

static uint8_t *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *b;
	long n;

	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET))
		die("cannot read a library");
	b = malloc((size_t)n + 1);
	if (!b || fread(b, 1, (size_t)n, f) != (size_t)n)
		die("cannot read a library");
	fclose(f);
	*len = (size_t)n;
	return b;
}

static void args(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--fill-alloc")) g.fill_alloc = 1;
		else if (!strcmp(a, "--fill-free")) g.fill_free = 1;
		else if (!strcmp(a, "--free-track")) g.free_track = g.fill_free = 1;
		else if (!strcmp(a, "--no-lib-bytes")) g.lib_bytes = 0;
		else if (!v) die("an option needs a value");
		else if (!strcmp(a, "--out")) g.out = v, i++;
		else if (!strcmp(a, "--seed-out")) g.seed_out = v, i++;
		else if (!strcmp(a, "--bits")) g.bits = (unsigned)atoi(v), i++;
		else if (!strcmp(a, "--era")) g.era = (unsigned)atoi(v), i++;
		else if (!strcmp(a, "--front")) g.front = (unsigned)atoi(v), i++;
		else if (!strcmp(a, "--rear")) g.rear = (unsigned)atoi(v), i++;
		else if (!strcmp(a, "--frames")) g.frames = (unsigned)atoi(v), i++;
		else if (!strcmp(a, "--count")) g.count = (unsigned)atoi(v), i++;
		else if (!strcmp(a, "--seed")) g.seed = strtoull(v, NULL, 0) | 1, i++;
		else if (!strcmp(a, "--lib") && g.nlibs < MAXLIBS) {
			const char *eq = strchr(v, '=');
			struct lib *l = &g.libs[g.nlibs++];
			if (!eq || (size_t)(eq - v) >= sizeof(l->name))
				die("--lib NAME=FILE");
			memcpy(l->name, v, (size_t)(eq - v));
			snprintf(l->file, sizeof(l->file), "%s", eq + 1);
			i++;
		} else if (!strcmp(a, "--sym") && g.nsyms < MAXSYMS) {
			struct sym *s = &g.syms[g.nsyms++];
			unsigned long long val, sz;
			if (sscanf(v, "%127[^:]:%llx:%llx", s->name, &val, &sz) != 3 || sz == 0)
				die("--sym NAME:VALUE:SIZE (hex)");
			s->value = val;
			s->size = sz;
			i++;
		} else die("unknown option");
	}
	if (!g.out || (g.bits != 32 && g.bits != 64) || (g.era != 7 && g.era != 9))
		die("usage: img_mdgen --out DIR --bits 32|64 --era 7|9 ...");
	if (g.era == 7 && g.frames && (!g.nlibs || !g.nsyms))
		die("backtraces need --lib and --sym");
}

int main(int argc, char **argv)
{
	char path[1024];
	struct seg segs[MAXLIBS + 3];
	unsigned nsegs = 0;
	uint8_t junk[8192];
	FILE *maps;
	size_t h;

	args(argc, argv);
	snprintf(path, sizeof(path), "%s/truth.tsv", g.out);
	if (!(truth = fopen(path, "w")))
		die("cannot write truth.tsv");
	heap_va = g.bits == 64 ? 0x7a00000000ull : 0xa0000000ull;
	for (unsigned i = 0; i < g.nlibs; i++) {
		g.libs[i].bytes = read_file(g.libs[i].file, &g.libs[i].len);
		g.libs[i].base = (g.bits == 64 ? 0x7f00000000ull : 0xe0000000ull) + i * 0x1000000ull;
	}
	fprintf(truth, "mix\tbits=%u era=%u front=%u rear=%u frames=%u fill_alloc=%d fill_free=%d free_track=%d\n",
		g.bits, g.era, g.front, g.rear, g.era == 7 ? g.frames : 0, g.fill_alloc, g.fill_free, g.free_track);
	h = 64;
	heap_need(h);
	memset(heap, 0, h);
	for (unsigned i = 0; i < g.count; i++)
		h = one_alloc(i, h);
	heap_len = al_up(h + 256, 4096);
	heap_need(heap_len);
	memset(heap + h, 0, heap_len - h);
	/* writable anonymous memory of other data, which must yield nothing */
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (uint8_t)rnd();
	segs[nsegs++] = (struct seg){ heap_va - 0x100000, sizeof(junk), junk, sizeof(junk), 6, NULL };
	segs[nsegs++] = (struct seg){ heap_va, heap_len, heap, heap_len, 6, NULL };
	for (unsigned i = 0; i < g.nlibs; i++)
		segs[nsegs++] = (struct seg){ g.libs[i].base, al_up(g.libs[i].len, 4096), g.libs[i].bytes,
					      g.lib_bytes ? g.libs[i].len : 0, 5, g.libs[i].name };
	snprintf(path, sizeof(path), "%s/core", g.out);
	write_core(path, segs, nsegs);
	if (g.seed_out) {
		FILE *f = fopen(g.seed_out, "wb");
		if (!f || fputc(g.bits == 32 ? 1 : 2, f) == EOF || fwrite(heap, 1, heap_len, f) != heap_len || fclose(f))
			die("cannot write the seed");
	}
	snprintf(path, sizeof(path), "%s/maps", g.out);
	if (!(maps = fopen(path, "w")))
		die("cannot write maps");
	fprintf(maps, "%llx-%llx rw-p 00000000 00:00 0 [anon:other]\n", (unsigned long long)segs[0].va,
		(unsigned long long)(segs[0].va + segs[0].memsz));
	fprintf(maps, "%llx-%llx rw-p 00000000 00:00 0 [anon:libc_malloc]\n", (unsigned long long)heap_va,
		(unsigned long long)(heap_va + heap_len));
	for (unsigned i = 0; i < g.nlibs; i++)
		fprintf(maps, "%llx-%llx r-xp 00000000 fd:00 %u %s\n", (unsigned long long)g.libs[i].base,
			(unsigned long long)(g.libs[i].base + al_up(g.libs[i].len, 4096)), 100 + i, g.libs[i].name);
	if (fclose(maps) || fclose(truth))
		die("cannot write the outputs");
	return 0;
}
