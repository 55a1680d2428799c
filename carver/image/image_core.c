/* image_core.c - ELF core files (gdb gcore, kernel core dumps) as process images.
 *
 * One region per PT_LOAD: [p_vaddr, p_vaddr + p_memsz), the first p_filesz bytes captured
 * at p_offset (p_memsz > p_filesz: the tail was not dumped), protection from p_flags.
 * Names of file-backed mappings come from the NT_FILE note (linux fs/binfmt_elf.c
 * fill_files_note; gdb linux-tdep.c writes the same layout), descriptor:
 *   word count; word page_size;                       (word = 4 or 8 bytes, ELF class)
 *   count x { word start; word end; word file_ofs; }  (file_ofs in units of page_size)
 *   count NUL-terminated file names, in the same order.
 * Threads come from the NT_PRSTATUS notes (linux include/uapi/linux/elfcore.h struct
 * elf_prstatus: pr_pid after the signal words, pr_reg after the four times): the thread id
 * and its stack pointer, at offsets per machine below. */
#include <stdlib.h>
#include <string.h>

#include "carver/base/ck.h"
#include "carver/base/xalloc.h"
#include "carver/wrap/elfw.h"
#include "carver/image/image_int.h"

struct core_file {           /* one NT_FILE entry */
	uint64_t start, end, file_ofs;
	const char *name;           /* in the note (the mapped input outlives the load) */
	size_t name_len;
	size_t order;               /* position among all NT_FILE entries of the core */
};

struct core_ctx {
	struct image *img;
	struct elfw *w;
	size_t first;           /* index of this core's first region in img->reg_ */
	const char *path;
	struct core_file *files;  /* every NT_FILE entry, in note order */
	size_t file_count, file_cap;
};

static int core_word(const struct elfw *w, struct cursor *c, uint64_t *v, struct err *e)
{
	if (elfw_bits(w) == 64)
		return elfw_big_endian(w) ? cur_u64be(c, v, e) : cur_u64le(c, v, e);
	uint32_t x;
	int rc = elfw_big_endian(w) ? cur_u32be(c, &x, e) : cur_u32le(c, &x, e);
	*v = x;
	return rc;
}

static int core_add_file(struct core_ctx *cx, const struct core_file *f, struct err *e)
{
	if (cx->file_count == cx->file_cap) {
		size_t cap = cx->file_cap ? cx->file_cap * 2 : 64;
		struct core_file *v = xreallocarray(cx->files, cap, sizeof(*v));
		if (!v)
			return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "NT_FILE note: out of memory for %zu entries", cap);
		cx->files = v;
		cx->file_cap = cap;
	}
	cx->files[cx->file_count] = *f;
	cx->files[cx->file_count].order = cx->file_count;
	cx->file_count++;
	return 0;
}

/* Collects the note's entries; core_name_regions applies them once every note is read. */
static int core_nt_file(struct core_ctx *cx, struct cursor *desc, struct err *e)
{
	const struct elfw *w = cx->w;
	unsigned word = elfw_bits(w) / 8;
	uint64_t count, page_size;
	size_t table, n;
	struct cursor tab, names;
	int rc;

	if ((rc = core_word(w, desc, &count, e)) || (rc = core_word(w, desc, &page_size, e)))
		return err_prefix(e, "NT_FILE note");
	if (ck_size(count, &n) || ck_mul(n, 3u * word, &table) || table > cur_remaining(desc))
		return ERR_SET(e, ERR_CORRUPT, cur_where(desc),
			       "NT_FILE note at file offset 0x%llx: %llu entries do not fit its %zu bytes",
			       (unsigned long long)desc->va, (unsigned long long)count, desc->len);
	if ((rc = cur_take(desc, table, &tab, e)))
		return rc;
	names = *desc;
	for (size_t i = 0; i < n; i++) {
		struct core_file f = { 0 };
		uint64_t ofs;
		const uint8_t *nul;

		if ((rc = core_word(w, &tab, &f.start, e)) || (rc = core_word(w, &tab, &f.end, e)) ||
		    (rc = core_word(w, &tab, &ofs, e)))
			return rc;
		nul = memchr(cur_ptr(&names), '\0', cur_remaining(&names));
		if (!nul)
			return ERR_SET(e, ERR_CORRUPT, cur_where(&names),
				       "NT_FILE note: name %zu of %zu at file offset 0x%llx is not NUL-terminated",
				       i, n, (unsigned long long)cur_where(&names));
		f.name = (const char *)cur_ptr(&names);
		f.name_len = (size_t)(nul - cur_ptr(&names));
		names.pos += f.name_len + 1;
		/* an offset that overflows is a damaged entry: it names nothing (no offset 0) */
		if (ck_mul64(ofs, page_size, &f.file_ofs))
			continue;
		if (f.end > f.start && (rc = core_add_file(cx, &f, e)))
			return rc;
	}
	return 0;
}

/* Where elf_prstatus keeps pr_pid and the stack pointer inside pr_reg, per machine: pr_reg
 * starts at 112 (64-bit) / 72 (32-bit); sp is user_regs_struct.rsp (x86_64, index 19),
 * user_pt_regs.sp (arm64, after regs[31]), uregs[13] (arm), esp (i386, index 15),
 * user_regs_struct.sp (riscv64, index 2). */
static const struct core_prstatus {
	unsigned machine, bits, pid, sp;
} core_prstatus_rows[] = {
	{ 62, 64, 32, 112 + 19 * 8 },   /* EM_X86_64 */
	{ 183, 64, 32, 112 + 31 * 8 },  /* EM_AARCH64 */
	{ 243, 64, 32, 112 + 2 * 8 },   /* EM_RISCV */
	{ 40, 32, 24, 72 + 13 * 4 },    /* EM_ARM */
	{ 3, 32, 24, 72 + 15 * 4 },     /* EM_386 */
};

static int core_prstatus(struct core_ctx *cx, const struct cursor *desc, struct err *e)
{
	const struct core_prstatus *row = NULL;
	unsigned bits = elfw_bits(cx->w), word = bits / 8;
	struct image *img = cx->img;
	const uint8_t *p = cur_ptr(desc);
	size_t n = cur_remaining(desc);

	for (size_t i = 0; i < sizeof(core_prstatus_rows) / sizeof(core_prstatus_rows[0]); i++)
		if (core_prstatus_rows[i].machine == elfw_machine(cx->w) && core_prstatus_rows[i].bits == bits)
			row = &core_prstatus_rows[i];
	/* another machine, a big-endian core or a short note: no thread recorded, not an error */
	if (!row || elfw_big_endian(cx->w) || n < row->sp || n - row->sp < word)
		return 0;
	if (img->thread_count == img->thr_cap_) {
		size_t cap = img->thr_cap_ ? img->thr_cap_ * 2 : 16;
		struct img_thread *v = xreallocarray(img->thr_, cap, sizeof(*v));
		if (!v)
			return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "%s: NT_PRSTATUS: out of memory", cx->path);
		img->thr_ = v;
		img->thr_cap_ = cap;
		img->threads = v;
	}
	img->thr_[img->thread_count++] = (struct img_thread){
		ld_u32le(p + row->pid), word == 8 ? ld_u64le(p + row->sp) : ld_u32le(p + row->sp) };
	return 0;
}

static int core_note(void *ctx, const char *name, uint32_t type, struct cursor *desc, struct err *e)
{
	struct core_ctx *cx = ctx;

	if (type == ELFW_NT_FILE && !strcmp(name, "CORE") && core_nt_file(cx, desc, e))
		return err_prefix(e, "%s", cx->path);
	if (type == ELFW_NT_PRSTATUS && !strcmp(name, "CORE"))
		return core_prstatus(cx, desc, e);
	return 0;
}

/* ---- naming regions: one sweep over both lists sorted by address ---- */

static int core_cmp_region(const void *a, const void *b)
{
	const struct img_region *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

static int core_cmp_file(const void *a, const void *b)
{
	const struct core_file *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* A binary min-heap of indexes into the sorted entries, keyed by note order. */
struct core_heap {
	size_t *v, n;
	const struct core_file *f;
};

static bool core_heap_less(const struct core_heap *h, size_t a, size_t b)
{
	return h->f[h->v[a]].order < h->f[h->v[b]].order;
}

static void core_heap_swap(struct core_heap *h, size_t a, size_t b)
{
	size_t t = h->v[a];
	h->v[a] = h->v[b];
	h->v[b] = t;
}

static void core_heap_push(struct core_heap *h, size_t idx)
{
	size_t i = h->n++;
	h->v[i] = idx;
	while (i > 0 && core_heap_less(h, i, (i - 1) / 2)) {
		core_heap_swap(h, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
}

static void core_heap_pop(struct core_heap *h)
{
	size_t i = 0;
	h->v[0] = h->v[--h->n];
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < h->n && core_heap_less(h, l, m))
			m = l;
		if (r < h->n && core_heap_less(h, r, m))
			m = r;
		if (m == i)
			return;
		core_heap_swap(h, i, m);
		i = m;
	}
}

/* Each region takes the name of the first entry (in note order) whose [start, end) holds
 * the region's start.  Regions and entries are sorted by start and swept once; the entries
 * that have begun wait in a heap ordered by note order, and one that has ended is dropped
 * for good (later regions start higher): O((entries + regions) log entries) instead of
 * entries x regions, which a hostile note would make quadratic. */
static int core_name_regions(struct core_ctx *cx, struct err *e)
{
	struct image *img = cx->img;
	struct img_region *regs = img->reg_ + cx->first;
	size_t nr = img->region_count - cx->first, next = 0;
	struct core_heap h = { NULL, 0, cx->files };

	if (cx->file_count == 0)
		return 0;
	if (!(h.v = xreallocarray(NULL, cx->file_count, sizeof(*h.v))))
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "%s: NT_FILE note: out of memory", cx->path);
	qsort(regs, nr, sizeof(*regs), core_cmp_region);
	qsort(cx->files, cx->file_count, sizeof(*cx->files), core_cmp_file);
	for (size_t i = 0; i < nr; i++) {
		struct img_region *r = &regs[i];
		const struct core_file *f;
		while (next < cx->file_count && cx->files[next].start <= r->start)
			core_heap_push(&h, next++);
		while (h.n && cx->files[h.v[0]].end <= r->start)
			core_heap_pop(&h);
		if (!h.n || r->name[0])
			continue;
		f = &cx->files[h.v[0]];
		if (!(r->name = img_strdup(img, f->name, f->name_len))) {
			xfree(h.v);
			return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "%s: NT_FILE note: out of memory", cx->path);
		}
		r->file_offset = f->file_ofs + (r->start - f->start);
	}
	xfree(h.v);
	return 0;
}

static uint32_t core_prot(uint32_t flags)
{
	return (flags & ELFW_PF_R ? IMG_PROT_R : 0) | (flags & ELFW_PF_W ? IMG_PROT_W : 0) |
	       (flags & ELFW_PF_X ? IMG_PROT_X : 0);
}

static int core_load(struct image *img, struct elfw *w, const char *path, struct err *e)
{
	size_t n = elfw_phdr_count(w);
	struct core_ctx cx = { img, w, img->region_count, path, NULL, 0, 0 };
	int rc;

	for (size_t i = 0; i < n; i++) {
		struct elfw_phdr ph;
		struct cursor seg;
		uint64_t end;

		if ((rc = elfw_phdr(w, i, &ph, e)))
			return rc;
		if (ph.type != ELFW_PT_LOAD || ph.memsz == 0)
			continue;
		if (ck_add64(ph.vaddr, ph.memsz, &end))
			return ERR_SET(e, ERR_CORRUPT, ph.vaddr, "%s: PT_LOAD %zu at 0x%llx: size 0x%llx wraps the address space",
				       path, i, (unsigned long long)ph.vaddr, (unsigned long long)ph.memsz);
		if (ph.filesz > ph.memsz)
			return ERR_SET(e, ERR_CORRUPT, ph.vaddr, "%s: PT_LOAD %zu at 0x%llx: file size 0x%llx exceeds memory size 0x%llx",
				       path, i, (unsigned long long)ph.vaddr, (unsigned long long)ph.filesz,
				       (unsigned long long)ph.memsz);
		/* an acquisition stopped early: what the file holds is captured, the rest of the
		 * segment (and the segments after it) are address space without bytes */
		uint64_t lost;
		elfw_segment_head(w, &ph, &seg, &lost);
		img_note_cut(img, ph.vaddr, lost, "PT_LOAD %zu holds %llu of its %llu bytes", i,
			     (unsigned long long)(ph.filesz - lost), (unsigned long long)ph.filesz);
		if ((rc = img_push(img, ph.vaddr, end, core_prot(ph.flags), "", 0, seg.len ? seg.base : NULL, seg.len, e)))
			return rc;
	}
	if (img->region_count == cx.first)
		return ERR_SET(e, ERR_CORRUPT, ERR_NO_VA, "%s: core holds no memory (no PT_LOAD segment)", path);
	rc = elfw_for_each_note(w, core_note, &cx, e);
	if (rc == 0)
		rc = core_name_regions(&cx, e);
	xfree(cx.files);
	return rc;
}

int img_load_core_bytes(struct image *img, const uint8_t *data, size_t len, const char *label, struct err *e)
{
	struct elfw *w;
	int rc;

	if ((rc = elfw_open(&w, data, len, label, e)))
		return rc;
	if (elfw_type(w) != ELFW_ET_CORE)
		rc = ERR_SET(e, ERR_UNSUP, 16, "%s: an ELF file of type %u, not a core file (ET_CORE)", label, elfw_type(w));
	else
		rc = core_load(img, w, label, e);
	if (rc == 0)
		img->pointer_bits = elfw_bits(w);
	elfw_close(w);
	return rc;
}

int img_load_core(struct image *img, const char *path, struct err *e)
{
	const uint8_t *data;
	size_t len;
	int rc;

	if ((rc = img_map_file(img, path, &data, &len, e)))
		return rc;
	return img_load_core_bytes(img, data, len, path, e);
}
