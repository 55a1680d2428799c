/* nd_gen.c - ground truth for `artcarve native-dump`: writes Android native heap dumps (v1.0,
 * v1.1, v1.2 with or without bt_info) and malloc_debug record_allocs files with known
 * records, call sites, live allocations, double frees and unknown frees, and the answers the
 * tool must give.  Written from the format descriptions (bionic libc/malloc_debug README.md,
 * PointerData.cpp, RecordData.cpp, frameworks/base android_os_Debug.cpp; doc/malloc-debug.md),
 * sharing no code with the parsers (libc only).
 *
 *   nd_gen dump --version 0|1|2 --bits 32|64 --seed N --syms FILE --out DUMP --truth DIR
 *               [--sites N] [--bt-info] [--bad-num] [--symbols] [--target-mb N]
 *   nd_gen rec  --seed N --ops N --out FILE --truth DIR [--timed] [--bits 32|64]
 *
 * SYMS (made by tests/shell/test_native_dump.sh from readelf and nm of libraries it builds):
 *   lib DEVICE_PATH          a library as the dump's MAPS names it
 *   seg VADDR OFFSET MEMSZ X one PT_LOAD (hex; X 1 when executable)
 *   fn NAME VALUE SIZE       a function symbol of the last lib (hex value and size)
 * Truth files (DIR): summary (key value), sites ("BYTES ALLOCS RECORDS ZYGOTE_BYTES
 * FRAME|FRAME..."), folded (the --folded lines), libs ("NAME SELF_BYTES SELF_ALLOCS BYTES
 * ALLOCS SITES"); for rec: summary, live ("0xPTR SIZE OP TID LINE"), events ("KIND 0xPTR OP
 * TID LINE PREV"), folded.  Frame text: LIB+0xOFF or 0xPC, then " (FUNC+0xK)" when the
 * symbol is known (bt_info written, or --symbols: the tool is given the libraries). */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXLIB 16
#define MAXSEG 8
#define MAXFN 64
#define MAXSITES 200000
#define MAXFRAMES 16

struct fn { char name[256]; uint64_t value, size; };
struct seg { uint64_t vaddr, offset, memsz; int exec; };
struct lib {
	char path[256];
	struct seg seg[MAXSEG];
	int nseg;
	struct fn fn[MAXFN];
	int nfn;
	uint64_t base;
};
struct map { uint64_t start, end, offset; char perms[5]; char name[256]; };

static struct lib libs[MAXLIB];
static int nlib;
static struct map maps[MAXLIB * MAXSEG + 8];
static int nmap;
static uint64_t rng_state;

static uint64_t rnd(void)
{
	/* xorshift64*: reproducible across platforms */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ULL;
}
static uint64_t rndn(uint64_t n) { return n ? rnd() % n : 0; }

static void die(const char *m)
{
	fprintf(stderr, "nd_gen: %s\n", m);
	exit(2);
}

static FILE *open_out(const char *dir, const char *name)
{
	char p[1024];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	if (!(f = fopen(p, "w")))
		die("cannot write a truth file");
	return f;
}

static void read_syms(const char *path)
{
	char line[512], a[256];
	uint64_t x, y, z;
	int ex;
	FILE *f = fopen(path, "r");

	if (!f)
		die("cannot read the syms file");
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "lib %255s", a) == 1) {
			if (nlib == MAXLIB)
				die("too many libs");
			snprintf(libs[nlib++].path, sizeof(libs[0].path), "%s", a);
		} else if (sscanf(line, "seg %" SCNx64 " %" SCNx64 " %" SCNx64 " %d", &x, &y, &z, &ex) == 4 && nlib) {
			struct lib *l = &libs[nlib - 1];
			if (l->nseg < MAXSEG)
				l->seg[l->nseg++] = (struct seg){ x, y, z, ex };
		} else if (sscanf(line, "fn %255s %" SCNx64 " %" SCNx64, a, &x, &y) == 3 && nlib) {
			struct lib *l = &libs[nlib - 1];
			if (l->nfn < MAXFN && y > 0) {
				snprintf(l->fn[l->nfn].name, sizeof(l->fn[0].name), "%s", a);
				l->fn[l->nfn].value = x;
				l->fn[l->nfn++].size = y;
			}
		}
	}
	fclose(f);
}

static uint64_t pgdown(uint64_t v) { return v & ~0xfffULL; }
static uint64_t pgup(uint64_t v) { return (v + 0xfff) & ~0xfffULL; }

static void add_map(uint64_t start, uint64_t end, uint64_t off, const char *perms, const char *name)
{
	struct map *m = &maps[nmap++];

	m->start = start;
	m->end = end;
	m->offset = off;
	snprintf(m->perms, sizeof(m->perms), "%s", perms);
	snprintf(m->name, sizeof(m->name), "%.255s", name);
}

static int map_cmp(const void *a, const void *b)
{
	const struct map *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* Lays the libraries out (each at its own base), then an anonymous named mapping, a
 * nameless one and [stack]; a gap stays unmapped (PCs there are [unknown]). */
static void layout(int bits)
{
	uint64_t base = bits == 64 ? 0x7f12300000ULL : 0xe1000000ULL;

	for (int i = 0; i < nlib; i++) {
		struct lib *l = &libs[i];
		uint64_t top = 0;
		l->base = base;
		for (int k = 0; k < l->nseg; k++) {
			struct seg *s = &l->seg[k];
			add_map(base + pgdown(s->vaddr), base + pgup(s->vaddr + s->memsz), pgdown(s->offset),
				s->exec ? "r-xp" : "r--p", l->path);
			if (pgup(s->vaddr + s->memsz) > top)
				top = pgup(s->vaddr + s->memsz);
		}
		base += pgup(top) + 0x10000;
	}
	add_map(base, base + 0x40000, 0, "rw-p", "[anon:libc_malloc]");
	add_map(base + 0x40000, base + 0x50000, 0, "rw-p", "");
	add_map(base + 0x100000, base + 0x121000, 0, "rw-p", "[stack]");
	qsort(maps, (size_t)nmap, sizeof(maps[0]), map_cmp);
}

/* ---- the dump ---- */

struct frame { uint64_t pc; char label[400]; char lib[256]; char fn[256]; uint64_t rel, k; };
struct site {
	struct frame f[MAXFRAMES];
	int n;
	uint64_t bytes, allocs, records, zbytes;
};

static struct site *sites;
static int nsites;
static bool want_symbols;

/* One frame of kind 0..3: in a function, in a library without symbols (executable segment
 * outside every function), in [anon:libc_malloc], in the nameless mapping, unmapped. */
static void pick_frame(struct frame *fr)
{
	int kind = (int)rndn(10);
	const struct map *anon = NULL, *noname = NULL;

	memset(fr, 0, sizeof(*fr));
	for (int i = 0; i < nmap; i++) {
		if (!strcmp(maps[i].name, "[anon:libc_malloc]"))
			anon = &maps[i];
		if (!maps[i].name[0])
			noname = &maps[i];
	}
	if (kind < 7) {
		struct lib *l = &libs[rndn((uint64_t)nlib)];
		if (l->nfn) {
			struct fn *f = &l->fn[rndn((uint64_t)l->nfn)];
			fr->k = rndn(f->size);
			fr->pc = l->base + f->value + fr->k;
			snprintf(fr->fn, sizeof(fr->fn), "%s", f->name);
		} else {
			for (int k = 0; k < l->nseg; k++)
				if (l->seg[k].exec)
					fr->pc = l->base + l->seg[k].vaddr + rndn(l->seg[k].memsz);
		}
	} else if (kind == 7) {
		fr->pc = anon->start + rndn(anon->end - anon->start);
	} else if (kind == 8) {
		fr->pc = noname->start + rndn(noname->end - noname->start);
	} else {
		fr->pc = maps[nmap - 1].end + 0x100000 + rndn(0x10000);      /* above every map */
	}
	for (int i = 0; i < nmap; i++)
		if (fr->pc >= maps[i].start && fr->pc < maps[i].end) {
			snprintf(fr->lib, sizeof(fr->lib), "%s", maps[i].name);
			fr->rel = fr->pc - maps[i].start + maps[i].offset;
			if (maps[i].name[0])
				snprintf(fr->label, sizeof(fr->label), "%s+0x%" PRIx64, maps[i].name, fr->rel);
		}
	if (!fr->label[0])
		snprintf(fr->label, sizeof(fr->label), "0x%" PRIx64, fr->pc);
	if (fr->fn[0] && want_symbols) {
		size_t n = strlen(fr->label);
		snprintf(fr->label + n, sizeof(fr->label) - n, " (%s+0x%" PRIx64 ")", fr->fn, fr->k);
	}
}

static bool same_site(const struct site *a, const struct site *b)
{
	if (a->n != b->n)
		return false;
	for (int i = 0; i < a->n; i++)
		if (a->f[i].pc != b->f[i].pc)
			return false;
	return true;
}

struct rec { int site; int z; uint64_t size, num; };

static void write_frames(FILE *o, const struct site *s, int version, int bits)
{
	for (int i = 0; i < s->n; i++) {
		if (version == 2)
			fprintf(o, " %" PRIx64, s->f[i].pc);
		else if (bits == 64)
			fprintf(o, " %016" PRIx64, s->f[i].pc);
		else
			fprintf(o, " %08" PRIx64, s->f[i].pc);
	}
	fputc('\n', o);
}

static void write_bt_info(FILE *o, const struct site *s)
{
	fputs("  bt_info", o);
	for (int i = 0; i < s->n; i++) {
		const struct frame *f = &s->f[i];
		fprintf(o, " {\"%s\" %" PRIx64, f->lib, f->lib[0] ? f->rel : f->pc);
		if (f->fn[0])
			fprintf(o, " \"%s\" %" PRIx64 "}", f->fn, f->k);
		else
			fputs(" \"\" 0}", o);
	}
	fputc('\n', o);
}

static void write_maps(FILE *o)
{
	fputs("MAPS\n", o);
	for (int i = 0; i < nmap; i++) {
		int n = fprintf(o, "%08" PRIx64 "-%08" PRIx64 " %s %08" PRIx64 " fd:00 %d", maps[i].start, maps[i].end,
				maps[i].perms, maps[i].offset, maps[i].name[0] == '/' ? 1000 + i : 0);
		if (maps[i].name[0])  /* the kernel pads the name to column 73 (fs/proc/task_mmu.c) */
			fprintf(o, "%*s%s", n < 73 ? 73 - n : 1, "", maps[i].name);
		fputc('\n', o);
	}
	fputs("END\n", o);
}

struct libsum { const char *name; uint64_t sb, sa, b, a, sites; };

static void truth_libs(const char *dir)
{
	struct libsum ls[MAXLIB * MAXSEG + 8];
	int nls = 0;
	FILE *t = open_out(dir, "libs");

	for (int si = 0; si < nsites; si++) {
		const struct site *s = &sites[si];
		const char *seen[MAXFRAMES];
		int nseen = 0;
		for (int i = 0; i < s->n; i++) {
			/* a PC in no mapping counts for "[unknown]"; a nameless mapping is the library "" */
			const char *name = "[unknown]";
			int j;
			for (int m = 0; m < nmap; m++)
				if (s->f[i].pc >= maps[m].start && s->f[i].pc < maps[m].end)
					name = s->f[i].lib;
			for (j = 0; j < nls && strcmp(ls[j].name, name); j++)
				;
			if (j == nls)
				ls[nls++] = (struct libsum){ name, 0, 0, 0, 0, 0 };
			if (i == 0) {
				ls[j].sb += s->bytes;
				ls[j].sa += s->allocs;
			}
			bool dup = false;
			for (int k = 0; k < nseen; k++)
				dup |= !strcmp(seen[k], name);
			if (!dup) {
				seen[nseen++] = name;
				ls[j].b += s->bytes;
				ls[j].a += s->allocs;
				ls[j].sites++;
			}
		}
	}
	for (int j = 0; j < nls; j++)
		fprintf(t, "%s %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", ls[j].name, ls[j].sb, ls[j].sa,
			ls[j].b, ls[j].a, ls[j].sites);
	fclose(t);
}

static int gen_dump(int version, int bits, const char *out, const char *dir, int nsite, bool bt_info, bool bad_num,
		    uint64_t target_mb)
{
	struct rec *recs;
	size_t nrec = 0, cap;
	uint64_t total = 0, zbytes = 0, allocs = 0;
	FILE *o, *t;

	layout(bits);
	if (nsite < 1 || nsite > MAXSITES)
		die("--sites out of range");
	sites = calloc((size_t)nsite, sizeof(*sites));
	cap = (size_t)nsite * 3;
	recs = calloc(cap, sizeof(*recs));
	if (!sites || !recs)
		die("out of memory");
	for (nsites = 0; nsites < nsite;) {
		struct site *s = &sites[nsites];
		bool dup = false;
		s->n = 1 + (int)rndn(MAXFRAMES);
		for (int i = 0; i < s->n; i++)
			pick_frame(&s->f[i]);
		for (int j = 0; j < nsites && !dup; j++)
			dup = same_site(&sites[j], s);
		if (dup)
			continue;
		int nr = 1 + (int)rndn(3);
		for (int r = 0; r < nr; r++) {
			struct rec *rc = &recs[nrec++];
			rc->site = nsites;
			rc->z = (int)rndn(2);
			rc->size = 1 + rndn(1 << (1 + rndn(20)));
			rc->num = bad_num ? 2 + rndn(30) : 1 + rndn(5);
			uint64_t real = bad_num ? 1 : rc->num;   /* the old bug: NUM was noise, one each */
			s->bytes += rc->size * real;
			s->allocs += real;
			s->records++;
			if (rc->z)
				s->zbytes += rc->size * real;
			total += rc->size * real;
			allocs += real;
			if (rc->z)
				zbytes += rc->size * real;
		}
		nsites++;
	}
	/* records in random order: a site's records are not together */
	for (size_t i = nrec; i > 1; i--) {
		size_t j = rndn(i);
		struct rec tmp = recs[i - 1];
		recs[i - 1] = recs[j];
		recs[j] = tmp;
	}
	if (!(o = fopen(out, "w")))
		die("cannot write the dump");
	fprintf(o, "Android Native Heap Dump v1.%d\n\n", version);
	if (version == 2)
		fprintf(o, "Build fingerprint: 'artcarve/nd_gen/gen:%d/SEED/1:user/test-keys'\n\n", bits);
	fprintf(o, "Total memory: %" PRIu64 "\nAllocation records: %zu\nBacktrace size: %d\n\n", total, nrec, MAXFRAMES);
	/* the benchmark repeats the record section until the file is big enough (the header
	 * then announces fewer records than there are: the tool reports, never fails on it) */
	uint64_t written = 0;
	do {
		for (size_t i = 0; i < nrec; i++) {
			const struct rec *r = &recs[i];
			if (version == 0)   /* android_os_Debug.cpp dumpNativeHeap */
				fprintf(o, "z %d  sz %8" PRIu64 "  num %4" PRIu64 "  bt", r->z, r->size, r->num);
			else                /* PointerData.cpp DumpLiveToFile */
				fprintf(o, "z %d  sz %8" PRIu64 "  num    %" PRIu64 "  bt", r->z, r->size, r->num);
			write_frames(o, &sites[r->site], version, bits);
			if (bt_info)
				write_bt_info(o, &sites[r->site]);
		}
		written = (uint64_t)ftell(o);
	} while (target_mb && written < target_mb << 20);
	write_maps(o);
	if (fclose(o))
		die("write error");
	if (target_mb)
		return 0;

	t = open_out(dir, "summary");
	fprintf(t, "version v1.%d\nrecords %zu\nallocations %" PRIu64 "\nbytes %" PRIu64 "\ncall_sites %d\n"
		"num_trusted %s\nzygote_child_bytes %" PRIu64 "\nmaps_lines %d\n", version, nrec, allocs, total, nsites,
		bad_num ? "false" : "true", zbytes, nmap);
	fclose(t);
	t = open_out(dir, "sites");
	FILE *fo = open_out(dir, "folded");
	for (int si = 0; si < nsites; si++) {
		const struct site *s = &sites[si];
		fprintf(t, "%" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " ", s->bytes, s->allocs, s->records, s->zbytes);
		for (int i = 0; i < s->n; i++)
			fprintf(t, "%s%s", i ? "|" : "", s->f[i].label);
		fputc('\n', t);
		for (int i = s->n; i-- > 0;)
			fprintf(fo, "%s%s", s->f[i].label, i ? ";" : "");
		fprintf(fo, " %" PRIu64 "\n", s->bytes);
	}
	fclose(t);
	fclose(fo);
	truth_libs(dir);
	free(sites);
	free(recs);
	return 0;
}

/* ---- record_allocs ---- */

enum { MALLOC, CALLOC, MEMALIGN, REALLOC, FREE, THREAD_DONE };
static const char *const opname[] = { "malloc", "calloc", "memalign", "realloc", "free", "thread_done" };

struct live { uint64_t ptr, size, line, tid; int op; };
struct freed { uint64_t ptr, line; };

static struct live *lv;
static size_t nlv;
static struct freed *fr;
static size_t nfr;
static FILE *ev_out;
static uint64_t live_bytes, peak, ev_count[5], failed, null_frees;
static const char *const evname[] = { "double_free", "unknown_free", "realloc_of_freed", "realloc_of_unknown",
				      "live_pointer_reused" };

/* pointer -> index in lv / fr: open addressing with tombstones (key 1, never a pointer
 * here), sized once for every pointer a run can create */
struct ix { uint64_t key; long val; };
static struct ix *ix_live, *ix_freed;
static size_t ix_cap;

static size_t ix_home(uint64_t k) { return (size_t)((k * 0x9e3779b97f4a7c15ULL) >> 20) & (ix_cap - 1); }

static long ix_get(const struct ix *t, uint64_t k)
{
	for (size_t j = ix_home(k);; j = (j + 1) & (ix_cap - 1)) {
		if (t[j].key == k)
			return t[j].val;
		if (t[j].key == 0)
			return -1;
	}
}

static void ix_set(struct ix *t, uint64_t k, long v)
{
	size_t j, slot = SIZE_MAX;

	for (j = ix_home(k); t[j].key != 0; j = (j + 1) & (ix_cap - 1)) {
		if (t[j].key == k) {
			t[j].val = v;
			return;
		}
		if (t[j].key == 1 && slot == SIZE_MAX)
			slot = j;
	}
	if (slot == SIZE_MAX)
		slot = j;
	t[slot].key = k;
	t[slot].val = v;
}

static void ix_del(struct ix *t, uint64_t k)
{
	for (size_t j = ix_home(k); t[j].key != 0; j = (j + 1) & (ix_cap - 1))
		if (t[j].key == k) {
			t[j].key = 1;
			return;
		}
}

static long find_live(uint64_t p) { return ix_get(ix_live, p); }
static long find_freed(uint64_t p) { return ix_get(ix_freed, p); }

static void live_remove(long i)
{
	ix_del(ix_live, lv[i].ptr);
	lv[i] = lv[--nlv];
	if ((size_t)i < nlv)
		ix_set(ix_live, lv[i].ptr, i);
}

static void freed_remove(long i)
{
	ix_del(ix_freed, fr[i].ptr);
	fr[i] = fr[--nfr];
	if ((size_t)i < nfr)
		ix_set(ix_freed, fr[i].ptr, i);
}

static void event(int k, uint64_t p, int op, uint64_t tid, uint64_t line, uint64_t prev)
{
	ev_count[k]++;
	fprintf(ev_out, "%s 0x%" PRIx64 " %s %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", evname[k], p, opname[op], tid, line, prev);
}

static void t_alloc(uint64_t p, uint64_t size, int op, uint64_t tid, uint64_t line)
{
	long i = find_live(p), f;

	if (p == 0) {
		failed++;
		return;
	}
	if (i >= 0) {
		event(4, p, op, tid, line, lv[i].line);
		live_bytes -= lv[i].size;
		lv[i] = (struct live){ p, size, line, tid, op };
	} else {
		ix_set(ix_live, p, (long)nlv);
		lv[nlv++] = (struct live){ p, size, line, tid, op };
	}
	live_bytes += size;
	if (live_bytes > peak)
		peak = live_bytes;
	if ((f = find_freed(p)) >= 0)
		freed_remove(f);
}

static void t_release(uint64_t p, int op, uint64_t tid, uint64_t line, bool is_realloc)
{
	long i = find_live(p), f;

	if (i >= 0) {
		live_bytes -= lv[i].size;
		live_remove(i);
		if ((f = find_freed(p)) >= 0) {
			fr[f].line = line;
		} else {
			ix_set(ix_freed, p, (long)nfr);
			fr[nfr++] = (struct freed){ p, line };
		}
		return;
	}
	if ((f = find_freed(p)) >= 0)
		event(is_realloc ? 2 : 0, p, op, tid, line, fr[f].line);
	else
		event(is_realloc ? 3 : 1, p, op, tid, line, 0);
}

static int live_cmp(const void *a, const void *b)
{
	const struct live *x = a, *y = b;
	return x->ptr < y->ptr ? -1 : x->ptr > y->ptr;
}

static int live_to_cmp(const void *a, const void *b)
{
	const struct live *x = a, *y = b;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->op - y->op;
}

static int gen_rec(uint64_t nops, bool timed, int bits, const char *out, const char *dir)
{
	uint64_t next = bits == 64 ? 0x7a00001000ULL : 0xb6001000U, line = 0, ops[6] = { 0 }, t0 = 1000000;
	uint64_t tids[8] = { 1234, 1235, 1301, 1302, 1450, 2001, 2002, 2003 }, seen_tid[8] = { 0 };
	FILE *o = fopen(out, "w"), *t;

	lv = calloc(nops + 1, sizeof(*lv));
	fr = calloc(nops + 1, sizeof(*fr));
	for (ix_cap = 1024; ix_cap < 4 * (nops + 1); ix_cap *= 2)
		;
	ix_live = calloc(ix_cap, sizeof(*ix_live));
	ix_freed = calloc(ix_cap, sizeof(*ix_freed));
	if (!o || !lv || !fr || !ix_live || !ix_freed)
		die("cannot write the record_allocs file");
	ev_out = open_out(dir, "events");
	for (uint64_t n = 0; n < nops; n++) {
		int ti = (int)rndn(8), r = (int)rndn(100);
		uint64_t tid = tids[ti], p, size = 1 + rndn(4096), old;
		char args[96] = "";
		int op;

		line++;
		seen_tid[ti] = 1;
		if (r < 28 || (nlv == 0 && r < 70)) {           /* malloc, a fresh or a reused pointer */
			op = MALLOC;
			p = nfr && rndn(3) == 0 ? fr[rndn(nfr)].ptr : (next += 16 * (1 + rndn(8)));
			snprintf(args, sizeof(args), " %" PRIu64, size);
			t_alloc(p, size, op, tid, line);
		} else if (r < 36) {
			uint64_t nm = 1 + rndn(16), es = 1 + rndn(64);
			op = CALLOC;
			p = (next += 16 * (1 + rndn(8)));
			size = nm * es;
			snprintf(args, sizeof(args), " %" PRIu64 " %" PRIu64, nm, es);
			t_alloc(p, size, op, tid, line);
		} else if (r < 40) {
			uint64_t al = 16u << rndn(9);
			op = MEMALIGN;
			p = (next += al) & ~(al - 1);
			next = p;
			snprintf(args, sizeof(args), " %" PRIu64 " %" PRIu64, al, size);
			t_alloc(p, size, op, tid, line);
		} else if (r < 52) {                            /* realloc, every variant */
			int v = (int)rndn(10);
			op = REALLOC;
			old = nlv ? lv[rndn(nlv)].ptr : 0;
			if (v == 0 || !old) {                   /* realloc(NULL, size) */
				old = 0;
				p = (next += 32);
				t_alloc(p, size, op, tid, line);
			} else if (v == 1) {                    /* realloc(p, 0) frees */
				p = 0;
				size = 0;
				t_release(old, op, tid, line, true);
			} else if (v == 2) {                    /* failed: old stays */
				p = 0;
				failed++;
			} else if (v == 3 && nfr) {             /* of a freed pointer */
				old = fr[rndn(nfr)].ptr;
				p = (next += 32);
				t_release(old, op, tid, line, true);
				t_alloc(p, size, op, tid, line);
			} else if (v == 4) {                    /* of a pointer never seen */
				old = 0x10 + 16 * rndn(1000);
				p = (next += 32);
				t_release(old, op, tid, line, true);
				t_alloc(p, size, op, tid, line);
			} else if (v == 5) {                    /* in place */
				p = old;
				t_release(old, op, tid, line, true);
				t_alloc(p, size, op, tid, line);
			} else {                                /* moved */
				p = (next += 32);
				t_release(old, op, tid, line, true);
				t_alloc(p, size, op, tid, line);
			}
			snprintf(args, sizeof(args), " 0x%" PRIx64 " %" PRIu64, old, size);
		} else if (r < 85) {                            /* free of a live block */
			op = FREE;
			if (!nlv) {
				p = 0;
				null_frees++;
			} else {
				p = lv[rndn(nlv)].ptr;
				t_release(p, op, tid, line, false);
			}
		} else if (r < 89 && nfr) {                     /* double free */
			op = FREE;
			p = fr[rndn(nfr)].ptr;
			t_release(p, op, tid, line, false);
		} else if (r < 92) {                            /* unknown free (below any allocation) */
			op = FREE;
			p = 0x10 + 16 * rndn(1000);
			t_release(p, op, tid, line, false);
		} else if (r < 94) {
			op = FREE;
			p = 0;
			null_frees++;
		} else if (r < 95) {                            /* failed malloc */
			op = MALLOC;
			p = 0;
			snprintf(args, sizeof(args), " %" PRIu64, size);
			failed++;
		} else if (r < 96 && nlv) {                     /* a live pointer handed out again */
			op = MALLOC;
			p = lv[rndn(nlv)].ptr;
			snprintf(args, sizeof(args), " %" PRIu64, size);
			t_alloc(p, size, op, tid, line);
		} else {
			op = THREAD_DONE;
			p = 0;
		}
		ops[op]++;
		fprintf(o, "%" PRIu64 ": %s 0x%" PRIx64 "%s", tid, opname[op], p, args);
		if (timed) {
			t0 += 1 + rndn(5000);
			if (op == THREAD_DONE)
				fprintf(o, " %" PRIu64, t0);
			else
				fprintf(o, " %" PRIu64 " %" PRIu64, t0, t0 + rndn(900));
		}
		fputc('\n', o);
	}
	if (fclose(o))
		die("write error");
	fclose(ev_out);
	qsort(lv, nlv, sizeof(*lv), live_cmp);
	t = open_out(dir, "live");
	for (size_t i = 0; i < nlv; i++)
		fprintf(t, "0x%" PRIx64 " %" PRIu64 " %s %" PRIu64 " %" PRIu64 "\n", lv[i].ptr, lv[i].size, opname[lv[i].op],
			lv[i].tid, lv[i].line);
	fclose(t);
	int nt = 0;
	for (int i = 0; i < 8; i++)
		nt += (int)seen_tid[i];
	t = open_out(dir, "summary");
	fprintf(t, "entries %" PRIu64 "\n", line);
	for (int i = 0; i < 6; i++)
		fprintf(t, "%s %" PRIu64 "\n", opname[i], ops[i]);
	fprintf(t, "threads %d\nfailed_allocations %" PRIu64 "\nnull_frees %" PRIu64 "\nlive_allocations %zu\n"
		"live_bytes %" PRIu64 "\npeak_live_bytes %" PRIu64 "\n", nt, failed, null_frees, nlv, live_bytes, peak);
	for (int i = 0; i < 5; i++)
		fprintf(t, "%s %" PRIu64 "\n", evname[i], ev_count[i]);
	fclose(t);
	qsort(lv, nlv, sizeof(*lv), live_to_cmp);
	t = open_out(dir, "folded");
	for (size_t i = 0; i < nlv;) {
		uint64_t b = 0;
		size_t j = i;
		for (; j < nlv && lv[j].tid == lv[i].tid && lv[j].op == lv[i].op; j++)
			b += lv[j].size;
		fprintf(t, "thread %" PRIu64 ";%s %" PRIu64 "\n", lv[i].tid, opname[lv[i].op], b);
		i = j;
	}
	fclose(t);
	free(lv);
	free(fr);
	free(ix_live);
	free(ix_freed);
	return 0;
}

int main(int argc, char **argv)
{
	const char *out = NULL, *dir = ".", *syms = NULL;
	int version = 2, bits = 64, nsite = 50;
	uint64_t seed = 1, nops = 1000, target_mb = 0;
	bool bt_info = false, bad_num = false, timed = false;

	if (argc < 2)
		die("usage: nd_gen dump|rec [options] (see the file's header)");
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--bt-info")) { bt_info = true; continue; }
		if (!strcmp(a, "--bad-num")) { bad_num = true; continue; }
		if (!strcmp(a, "--timed")) { timed = true; continue; }
		if (!strcmp(a, "--symbols")) { want_symbols = true; continue; }
		if (!v)
			die("option without value");
		i++;
		if (!strcmp(a, "--version")) version = atoi(v);
		else if (!strcmp(a, "--bits")) bits = atoi(v);
		else if (!strcmp(a, "--seed")) seed = strtoull(v, NULL, 0);
		else if (!strcmp(a, "--syms")) syms = v;
		else if (!strcmp(a, "--out")) out = v;
		else if (!strcmp(a, "--truth")) dir = v;
		else if (!strcmp(a, "--sites")) nsite = atoi(v);
		else if (!strcmp(a, "--ops")) nops = strtoull(v, NULL, 0);
		else if (!strcmp(a, "--target-mb")) target_mb = strtoull(v, NULL, 0);
		else die("unknown option");
	}
	rng_state = seed * 0x9e3779b97f4a7c15ULL + 1;
	if (!out)
		die("--out is required");
	if (!strcmp(argv[1], "rec"))
		return gen_rec(nops, timed, bits, out, dir);
	if (strcmp(argv[1], "dump") || !syms || version < 0 || version > 2 || (bits != 32 && bits != 64))
		die("dump needs --syms, --version 0..2, --bits 32|64");
	want_symbols |= bt_info;
	read_syms(syms);
	if (nlib == 0)
		die("no lib in the syms file");
	return gen_dump(version, bits, out, dir, nsite, bt_info, bad_num, target_mb);
}
