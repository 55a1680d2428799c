/* image_core.c - ELF core files (gdb gcore, kernel core dumps) as process images.
 *
 * One region per PT_LOAD: [p_vaddr, p_vaddr + p_memsz), the first p_filesz bytes captured
 * at p_offset (p_memsz > p_filesz: the tail was not dumped), protection from p_flags.
 * Names of file-backed mappings come from the NT_FILE note (linux fs/binfmt_elf.c
 * fill_files_note; gdb linux-tdep.c writes the same layout), descriptor:
 *   word count; word page_size;                       (word = 4 or 8 bytes, ELF class)
 *   count x { word start; word end; word file_ofs; }  (file_ofs in units of page_size)
 *   count NUL-terminated file names, in the same order. */
#include <string.h>

#include "carver/base/ck.h"
#include "carver/image/elfw.h"
#include "carver/image/image_int.h"

struct core_ctx {
	struct image *img;
	struct elfw *w;
	size_t first;           /* index of this core's first region in img->reg_ */
	const char *path;
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

/* Names every region that starts inside [start, end) after one NT_FILE entry. */
static int core_name_regions(struct core_ctx *cx, uint64_t start, uint64_t end, uint64_t file_ofs,
			     const char *name, size_t name_len)
{
	struct image *img = cx->img;

	for (size_t i = cx->first; i < img->region_count; i++) {
		struct img_region *r = &img->reg_[i];
		if (r->start < start || r->start >= end || r->name[0])
			continue;
		r->name = img_strdup(img, name, name_len);
		if (!r->name)
			return -ERR_NOMEM;
		r->file_offset = file_ofs + (r->start - start);
	}
	return 0;
}

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
		uint64_t start, end, ofs, file_ofs;
		const uint8_t *nul;
		const char *name = (const char *)cur_ptr(&names);
		size_t len;

		if ((rc = core_word(w, &tab, &start, e)) || (rc = core_word(w, &tab, &end, e)) ||
		    (rc = core_word(w, &tab, &ofs, e)))
			return rc;
		nul = memchr(cur_ptr(&names), '\0', cur_remaining(&names));
		if (!nul)
			return ERR_SET(e, ERR_CORRUPT, cur_where(&names),
				       "NT_FILE note: name %zu of %zu at file offset 0x%llx is not NUL-terminated",
				       i, n, (unsigned long long)cur_where(&names));
		len = (size_t)(nul - cur_ptr(&names));
		names.pos += len + 1;
		if (ck_mul64(ofs, page_size, &file_ofs))
			file_ofs = 0;
		if (end > start && core_name_regions(cx, start, end, file_ofs, name, len))
			return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "NT_FILE note: out of memory");
	}
	return 0;
}

static int core_note(void *ctx, const char *name, uint32_t type, struct cursor *desc, struct err *e)
{
	struct core_ctx *cx = ctx;

	if (type == ELFW_NT_FILE && !strcmp(name, "CORE") && core_nt_file(cx, desc, e))
		return err_prefix(e, "%s", cx->path);
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
	struct core_ctx cx = { img, w, img->region_count, path };
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
		if ((rc = elfw_segment(w, &ph, &seg, e)))
			return rc;
		if ((rc = img_push(img, ph.vaddr, end, core_prot(ph.flags), "", 0, seg.base, seg.len, e)))
			return rc;
	}
	if (img->region_count == cx.first)
		return ERR_SET(e, ERR_CORRUPT, ERR_NO_VA, "%s: core holds no memory (no PT_LOAD segment)", path);
	return elfw_for_each_note(w, core_note, &cx, e);
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
