/* elfw.c - see elfw.h.  The only file that includes <libelf.h>/<gelf.h>.
 *
 * libelf's elf_memory() takes a non-const pointer; it is opened with ELF_C_READ_MMAP
 * semantics (elfutils elf_memory.c), which only reads the image: byte-swapped or
 * misaligned structures are converted into libelf-owned copies.  The bytes we pass are a
 * read-only mmap for files, so a write would fault rather than alter evidence.
 * Notes are decoded here with a cursor (layout: ELF gABI "Note Section"): namesz, descsz,
 * type (4 bytes each, file byte order), name padded to 4, desc padded to 4 (gcore and the
 * kernel use 4-byte alignment for ELFCLASS64 cores too). */
#include "carver/wrap/elfw.h"

#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>

#include "carver/base/bsearch.h"
#include "carver/base/ck.h"
#include "carver/base/xalloc.h"

struct elfw {
	Elf *elf;
	const uint8_t *data;
	size_t len;
	const char *label;
	unsigned bits, machine, type;
	bool big_endian;
	size_t phnum;
	struct elfw_sym *syms; /* address index for elfw_symbol_at, sorted by value */
	size_t nsyms, syms_cap;
	bool syms_built;
	bool has_bias;         /* load_bias known (elfw_set_load_bias) */
	uint64_t load_bias;
};

struct elfw_sym {
	uint64_t value, size;
	const char *name;
	size_t order; /* insertion order: .symtab's entries come first */
};

bool elfw_probe(const uint8_t *data, size_t len)
{
	return len >= 4 && data[0] == 0x7f && data[1] == 'E' && data[2] == 'L' && data[3] == 'F';
}

static int elfw_libelf_error(struct err *e, const char *label, const char *what)
{
	return ERR_SET(e, ERR_CORRUPT, ERR_NO_VA, "%s: %s: %s", label, what, elf_errmsg(-1));
}

/* libelf quietly shortens a program header table cut by the end of the file
 * (elfutils elf_getphdrnum.c); a cut table is an error here, as is an entry size other
 * than the class's Elf32_Phdr/Elf64_Phdr. */
static int elfw_check_phdr_table(const struct elfw *w, const GElf_Ehdr *eh, struct err *e)
{
	size_t want = gelf_fsize(w->elf, ELF_T_PHDR, 1, EV_CURRENT), bytes;

	if (w->phnum == 0 && eh->e_phnum == 0)
		return 0;
	if (eh->e_phentsize != want)
		return ERR_SET(e, ERR_CORRUPT, w->bits == 64 ? 54 : 42, "%s: program header size %u, expected %zu",
			       w->label, eh->e_phentsize, want);
	if (w->phnum < eh->e_phnum && eh->e_phnum != PN_XNUM)
		return ERR_SET(e, ERR_TRUNC, eh->e_phoff, "%s: program header table at file offset 0x%llx: %u entries exceed the %zu-byte file",
			       w->label, (unsigned long long)eh->e_phoff, eh->e_phnum, w->len);
	if (ck_mul(w->phnum, want, &bytes) || eh->e_phoff > w->len || bytes > w->len - eh->e_phoff)
		return ERR_SET(e, ERR_TRUNC, eh->e_phoff, "%s: program header table at file offset 0x%llx: %zu entries exceed the %zu-byte file",
			       w->label, (unsigned long long)eh->e_phoff, w->phnum, w->len);
	return 0;
}

static int elfw_read_header(struct elfw *w, struct err *e)
{
	GElf_Ehdr eh;
	int cls;

	if (elf_kind(w->elf) != ELF_K_ELF)
		return ERR_SET(e, ERR_CORRUPT, 0, "%s: not an ELF file", w->label);
	cls = gelf_getclass(w->elf);
	if (cls != ELFCLASS32 && cls != ELFCLASS64)
		return ERR_SET(e, ERR_CORRUPT, 4, "%s: ELF class %d is neither 32 nor 64-bit", w->label, cls);
	if (!gelf_getehdr(w->elf, &eh))
		return elfw_libelf_error(e, w->label, "bad ELF header");
	w->bits = cls == ELFCLASS64 ? 64 : 32;
	w->machine = eh.e_machine;
	w->type = eh.e_type;
	w->big_endian = eh.e_ident[EI_DATA] == ELFDATA2MSB;
	if (eh.e_ident[EI_DATA] != ELFDATA2LSB && eh.e_ident[EI_DATA] != ELFDATA2MSB)
		return ERR_SET(e, ERR_CORRUPT, 5, "%s: ELF data encoding %u is unknown", w->label,
			       eh.e_ident[EI_DATA]);
	if (elf_getphdrnum(w->elf, &w->phnum) != 0)
		return elfw_libelf_error(e, w->label, "bad program header table");
	return elfw_check_phdr_table(w, &eh, e);
}

int elfw_open(struct elfw **out, const uint8_t *data, size_t len, const char *label, struct err *e)
{
	struct elfw *w;
	int rc;

	*out = NULL;
	if (!label)
		label = "ELF";
	if (!elfw_probe(data, len))
		return ERR_SET(e, ERR_CORRUPT, 0, "%s: not an ELF file (no \\177ELF magic)", label);
	if (elf_version(EV_CURRENT) == EV_NONE)
		return ERR_SET(e, ERR_INTERNAL, ERR_NO_VA, "libelf: %s", elf_errmsg(-1));
	w = xcalloc(1, sizeof(*w));
	if (!w)
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "%s: out of memory", label);
	w->data = data;
	w->len = len;
	w->label = label;
	/* elf_memory reads only (ELF_C_READ_MMAP); the cast drops const for its prototype. */
	w->elf = elf_memory((char *)(uintptr_t)data, len);
	if (!w->elf) {
		rc = elfw_libelf_error(e, label, "cannot open ELF");
		xfree(w);
		return rc;
	}
	rc = elfw_read_header(w, e);
	if (rc) {
		elfw_close(w);
		return rc;
	}
	*out = w;
	return 0;
}

void elfw_close(struct elfw *w)
{
	if (!w)
		return;
	if (w->elf)
		elf_end(w->elf);
	xfree(w->syms);
	xfree(w);
}

unsigned elfw_bits(const struct elfw *w) { return w->bits; }
unsigned elfw_machine(const struct elfw *w) { return w->machine; }
unsigned elfw_type(const struct elfw *w) { return w->type; }
bool elfw_big_endian(const struct elfw *w) { return w->big_endian; }
size_t elfw_phdr_count(const struct elfw *w) { return w->phnum; }

const uint8_t *elfw_data(const struct elfw *w, size_t *len)
{
	*len = w->len;
	return w->data;
}

int elfw_phdr(const struct elfw *w, size_t i, struct elfw_phdr *out, struct err *e)
{
	GElf_Phdr ph;

	if (i >= w->phnum || i > INT32_MAX)
		return ERR_SET(e, ERR_INTERNAL, ERR_NO_VA, "%s: program header %zu of %zu", w->label, i, w->phnum);
	if (!gelf_getphdr(w->elf, (int)i, &ph))
		return elfw_libelf_error(e, w->label, "bad program header");
	out->type = ph.p_type;
	out->flags = ph.p_flags;
	out->offset = ph.p_offset;
	out->vaddr = ph.p_vaddr;
	out->filesz = ph.p_filesz;
	out->memsz = ph.p_memsz;
	out->align = ph.p_align;
	return 0;
}

/* Cursor over the file extent [off, off+size); what names the structure in messages. */
static int elfw_extent(const struct elfw *w, uint64_t off, uint64_t size, uint64_t va,
		       const char *what, struct cursor *out, struct err *e)
{
	if (off > w->len || size > w->len - off)
		return ERR_SET(e, ERR_TRUNC, off,
			       "%s: %s at file offset 0x%llx: %llu bytes exceed the %zu-byte file",
			       w->label, what, (unsigned long long)off, (unsigned long long)size, w->len);
	cur_init(out, w->data + off, (size_t)size, va);
	return 0;
}

int elfw_segment(const struct elfw *w, const struct elfw_phdr *ph, struct cursor *out, struct err *e)
{
	return elfw_extent(w, ph->offset, ph->filesz, ph->vaddr, "segment", out, e);
}

void elfw_segment_head(const struct elfw *w, const struct elfw_phdr *ph, struct cursor *out, uint64_t *lost)
{
	size_t have = ph->offset >= w->len ? 0 : ph->filesz > w->len - ph->offset ? w->len - (size_t)ph->offset
										   : (size_t)ph->filesz;
	cur_init(out, have ? w->data + ph->offset : w->data, have, ph->vaddr);
	*lost = ph->filesz - have;
}

static int elfw_u32(const struct elfw *w, struct cursor *c, uint32_t *v, struct err *e)
{
	return w->big_endian ? cur_u32be(c, v, e) : cur_u32le(c, v, e);
}

/* Skips to the next multiple of 4 (the end of the segment also counts as aligned). */
static void elfw_note_align(struct cursor *c)
{
	size_t pad = (4 - (c->pos & 3)) & 3;
	c->pos += pad < cur_remaining(c) ? pad : cur_remaining(c);
}

static int elfw_walk_notes(const struct elfw *w, struct cursor *c,
			   int (*fn)(void *, const char *, uint32_t, struct cursor *, struct err *),
			   void *ctx, struct err *e)
{
	char name[64];
	/* each note is at least 12 bytes, so the walk ends after len/12 notes */
	while (cur_remaining(c) >= 12) {
		uint64_t at = cur_where(c);
		uint32_t namesz, descsz, type;
		const uint8_t *np;
		struct cursor desc;
		int rc;

		if ((rc = elfw_u32(w, c, &namesz, e)) || (rc = elfw_u32(w, c, &descsz, e)) ||
		    (rc = elfw_u32(w, c, &type, e)))
			return rc;
		if (namesz > cur_remaining(c))
			return ERR_SET(e, ERR_CORRUPT, at, "%s: note at file offset 0x%llx: name size %u exceeds the %zu bytes left in its segment",
				       w->label, (unsigned long long)at, namesz, cur_remaining(c));
		if ((rc = cur_bytes(c, namesz, &np, e)))
			return rc;
		/* names are short ("CORE", "LINUX", "GNU"); a longer one is kept truncated */
		{
			size_t n = namesz < sizeof(name) - 1 ? namesz : sizeof(name) - 1;
			memcpy(name, np, n);
			name[n] = '\0';
		}
		elfw_note_align(c);
		if (descsz > cur_remaining(c))
			return ERR_SET(e, ERR_CORRUPT, at, "%s: note at file offset 0x%llx: descriptor size %u exceeds the %zu bytes left in its segment",
				       w->label, (unsigned long long)at, descsz, cur_remaining(c));
		if ((rc = cur_take(c, descsz, &desc, e)))
			return rc;
		elfw_note_align(c);
		rc = fn(ctx, name, type, &desc, e);
		if (rc)
			return rc;
	}
	return 0;
}

int elfw_for_each_note(const struct elfw *w,
		       int (*fn)(void *ctx, const char *name, uint32_t type, struct cursor *desc,
				 struct err *e),
		       void *ctx, struct err *e)
{
	for (size_t i = 0; i < w->phnum; i++) {
		struct elfw_phdr ph;
		struct cursor c;
		int rc;

		if ((rc = elfw_phdr(w, i, &ph, e)))
			return rc;
		if (ph.type != ELFW_PT_NOTE)
			continue;
		if ((rc = elfw_extent(w, ph.offset, ph.filesz, ph.offset, "PT_NOTE segment", &c, e)))
			return rc;
		c.va = ph.offset; /* note errors name file offsets */
		if ((rc = elfw_walk_notes(w, &c, fn, ctx, e)))
			return rc;
	}
	return 0;
}

static int elfw_fill_section(const struct elfw *w, Elf_Scn *scn, struct elfw_section *out,
			     const char *name, struct err *e)
{
	GElf_Shdr sh;

	if (!gelf_getshdr(scn, &sh))
		return elfw_libelf_error(e, w->label, "bad section header");
	out->offset = sh.sh_offset;
	out->size = sh.sh_size;
	out->addr = sh.sh_addr;
	out->type = sh.sh_type;
	out->flags = sh.sh_flags;
	if (sh.sh_type != SHT_NOBITS && (sh.sh_offset > w->len || sh.sh_size > w->len - sh.sh_offset))
		return ERR_SET(e, ERR_TRUNC, sh.sh_offset,
			       "%s: section %s at file offset 0x%llx: %llu bytes exceed the %zu-byte file",
			       w->label, name, (unsigned long long)sh.sh_offset,
			       (unsigned long long)sh.sh_size, w->len);
	return 0;
}

/* The section named name, or NULL (no error) when absent or unnamed. */
static Elf_Scn *elfw_find_scn(const struct elfw *w, const char *name)
{
	size_t shstrndx, shnum;
	Elf_Scn *scn = NULL;

	if (elf_getshdrnum(w->elf, &shnum) != 0 || shnum == 0)
		return NULL;
	if (elf_getshdrstrndx(w->elf, &shstrndx) != 0)
		return NULL;
	/* elf_nextscn visits each of the shnum sections once */
	while ((scn = elf_nextscn(w->elf, scn)) != NULL) {
		GElf_Shdr sh;
		const char *n;
		if (!gelf_getshdr(scn, &sh))
			continue;
		n = elf_strptr(w->elf, shstrndx, sh.sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

int elfw_section_by_name(const struct elfw *w, const char *name, struct elfw_section *out, struct err *e)
{
	Elf_Scn *scn = elfw_find_scn(w, name);
	if (!scn)
		return ERR_SET(e, ERR_CORRUPT, ERR_NO_VA, "%s: no section %s", w->label, name);
	return elfw_fill_section(w, scn, out, name, e);
}

int elfw_section_bytes(const struct elfw *w, const struct elfw_section *s, struct cursor *out, struct err *e)
{
	if (s->type == SHT_NOBITS) {
		cur_init(out, NULL, 0, s->addr);
		return 0;
	}
	return elfw_extent(w, s->offset, s->size, s->addr, "section", out, e);
}

/* 1 and value, size filled when name is in the symbol table scn, 0 when not. */
static int elfw_search_symtab(const struct elfw *w, Elf_Scn *scn, const char *name,
			      uint64_t *value, uint64_t *size, struct err *e)
{
	GElf_Shdr sh;
	Elf_Data *d;
	size_t count;

	if (!gelf_getshdr(scn, &sh))
		return elfw_libelf_error(e, w->label, "bad symbol table header");
	if (sh.sh_type == SHT_NOBITS || sh.sh_offset > w->len || sh.sh_size > w->len - sh.sh_offset)
		return ERR_SET(e, ERR_TRUNC, sh.sh_offset, "%s: symbol table at file offset 0x%llx: %llu bytes exceed the %zu-byte file",
			       w->label, (unsigned long long)sh.sh_offset, (unsigned long long)sh.sh_size, w->len);
	d = elf_getdata(scn, NULL);
	if (!d)
		return elfw_libelf_error(e, w->label, "bad symbol table");
	count = d->d_size / gelf_fsize(w->elf, ELF_T_SYM, 1, EV_CURRENT);
	for (size_t i = 0; i < count && i <= INT32_MAX; i++) {
		GElf_Sym sym;
		const char *n;
		if (!gelf_getsym(d, (int)i, &sym))
			break;
		n = elf_strptr(w->elf, sh.sh_link, sym.st_name);
		if (n && !strcmp(n, name)) {
			if (value)
				*value = sym.st_value;
			if (size)
				*size = sym.st_size;
			return 1;
		}
	}
	return 0;
}

int elfw_symbol(const struct elfw *w, const char *name, uint64_t *value, uint64_t *size, struct err *e)
{
	static const char *const tables[] = { ".dynsym", ".symtab" };

	for (size_t t = 0; t < 2; t++) {
		Elf_Scn *scn = elfw_find_scn(w, tables[t]);
		int rc;
		if (!scn)
			continue;
		rc = elfw_search_symtab(w, scn, name, value, size, e);
		if (rc != 0)
			return rc < 0 ? rc : 0;
	}
	return ERR_SET(e, ERR_CORRUPT, ERR_NO_VA, "%s: no symbol %s", w->label, name);
}

int elfw_va_to_offset(const struct elfw *w, uint64_t va, uint64_t *off, struct err *e)
{
	for (size_t i = 0; i < w->phnum; i++) {
		struct elfw_phdr ph;
		int rc;

		if ((rc = elfw_phdr(w, i, &ph, e)))
			return rc;
		if (ph.type != ELFW_PT_LOAD || va < ph.vaddr || va - ph.vaddr >= ph.filesz)
			continue;
		if (ph.offset > w->len || va - ph.vaddr >= w->len - ph.offset)
			return ERR_SET(e, ERR_TRUNC, va, "%s: address 0x%llx maps to a file offset beyond the %zu-byte file",
				       w->label, (unsigned long long)va, w->len);
		*off = ph.offset + (va - ph.vaddr);
		return 0;
	}
	return ERR_SET(e, ERR_UNMAPPED, va, "%s: address 0x%llx is in no PT_LOAD segment's file data",
		       w->label, (unsigned long long)va);
}

int elfw_offset_to_va(const struct elfw *w, uint64_t off, uint64_t *va, struct err *e)
{
	for (size_t i = 0; i < w->phnum; i++) {
		struct elfw_phdr ph;
		int rc;

		if ((rc = elfw_phdr(w, i, &ph, e)))
			return rc;
		if (ph.type != ELFW_PT_LOAD || off < ph.offset || off - ph.offset >= ph.filesz)
			continue;
		if (ck_add64(ph.vaddr, off - ph.offset, va))
			return ERR_SET(e, ERR_CORRUPT, off, "%s: file offset 0x%llx: segment address overflows",
				       w->label, (unsigned long long)off);
		return 0;
	}
	return ERR_SET(e, ERR_UNMAPPED, off, "%s: file offset 0x%llx is in no PT_LOAD segment",
		       w->label, (unsigned long long)off);
}

/* Symbol types and section index worth indexing (ELF gABI "Symbol Table"). */
enum { ELFW_STT_NOTYPE = 0, ELFW_STT_OBJECT = 1, ELFW_STT_FUNC = 2, ELFW_STT_GNU_IFUNC = 10,
       ELFW_SHN_UNDEF = 0, ELFW_SHN_LORESERVE = 0xff00, ELFW_SHN_ABS = 0xfff1, ELFW_EM_ARM = 40 };

static int elfw_rd(const struct elfw *w, struct cursor *c, unsigned width, uint64_t *v, struct err *e)
{
	if (width == 8) {
		if (w->big_endian)
			return cur_u64be(c, v, e);
		return cur_u64le(c, v, e);
	}
	if (width == 4) {
		uint32_t x;
		int rc = w->big_endian ? cur_u32be(c, &x, e) : cur_u32le(c, &x, e);
		*v = x;
		return rc;
	}
	if (width == 2) {
		uint16_t x;
		int rc = w->big_endian ? cur_u16be(c, &x, e) : cur_u16le(c, &x, e);
		*v = x;
		return rc;
	}
	{
		uint8_t x;
		int rc = cur_u8(c, &x, e);
		*v = x;
		return rc;
	}
}

static int elfw_sym_push(struct elfw *w, uint64_t value, uint64_t size, const char *name, struct err *e)
{
	if (w->nsyms == w->syms_cap) {
		size_t cap = w->syms_cap ? w->syms_cap * 2 : 64;
		struct elfw_sym *n = xreallocarray(w->syms, cap, sizeof(*n));
		if (!n)
			return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "%s: out of memory for the symbol index", w->label);
		w->syms = n;
		w->syms_cap = cap;
	}
	w->syms[w->nsyms] = (struct elfw_sym){ value, size, name, w->nsyms };
	w->nsyms++;
	return 0;
}

/* Name at offset off of the string table strtab: NULL unless NUL-terminated inside it. */
static const char *elfw_str(const struct cursor *strtab, uint64_t off)
{
	const uint8_t *p, *nul;

	if (off >= strtab->len)
		return NULL;
	p = strtab->base + off;
	nul = memchr(p, 0, strtab->len - (size_t)off);
	return nul ? (const char *)p : NULL;
}

/* Adds the code and data symbols of count entries of the symbol table syms (entries of the
 * class's Elf32_Sym/Elf64_Sym layout) naming strings in strtab. */
static int elfw_index_table(struct elfw *w, struct cursor *syms, size_t count, const struct cursor *strtab,
			    struct err *e)
{
	size_t entsize = w->bits == 64 ? 24 : 16;

	for (size_t i = 0; i < count && cur_remaining(syms) >= entsize; i++) {
		uint64_t name, value, size, info, other, shndx;
		const char *n;
		unsigned type;
		int rc;

		if (w->bits == 64) {
			if ((rc = elfw_rd(w, syms, 4, &name, e)) || (rc = elfw_rd(w, syms, 1, &info, e)) ||
			    (rc = elfw_rd(w, syms, 1, &other, e)) || (rc = elfw_rd(w, syms, 2, &shndx, e)) ||
			    (rc = elfw_rd(w, syms, 8, &value, e)) || (rc = elfw_rd(w, syms, 8, &size, e)))
				return rc;
		} else if ((rc = elfw_rd(w, syms, 4, &name, e)) || (rc = elfw_rd(w, syms, 4, &value, e)) ||
			   (rc = elfw_rd(w, syms, 4, &size, e)) || (rc = elfw_rd(w, syms, 1, &info, e)) ||
			   (rc = elfw_rd(w, syms, 1, &other, e)) || (rc = elfw_rd(w, syms, 2, &shndx, e))) {
			return rc;
		}
		type = info & 0xf;
		if (type != ELFW_STT_FUNC && type != ELFW_STT_OBJECT && type != ELFW_STT_NOTYPE &&
		    type != ELFW_STT_GNU_IFUNC)
			continue;
		if (shndx == ELFW_SHN_UNDEF || (shndx >= ELFW_SHN_LORESERVE && shndx != ELFW_SHN_ABS) || value == 0)
			continue;
		n = elfw_str(strtab, name);
		if (!n || !*n || (type == ELFW_STT_NOTYPE && n[0] == '$'))
			continue; /* unnamed, or an ARM/AArch64 mapping symbol ($x, $d) */
		if (w->machine == ELFW_EM_ARM && type == ELFW_STT_FUNC)
			value &= ~(uint64_t)1; /* Thumb bit (ELF for the ARM Architecture, 5.5.3) */
		if ((rc = elfw_sym_push(w, value, size, n, e)))
			return rc;
	}
	return 0;
}

/* 1 when the section table named name exists and was indexed, 0 when absent. */
static int elfw_index_section(struct elfw *w, const char *name, struct err *e)
{
	Elf_Scn *scn = elfw_find_scn(w, name), *str;
	struct elfw_section sec, strsec;
	struct cursor syms, strtab;
	GElf_Shdr sh;
	int rc;

	if (!scn)
		return 0;
	if ((rc = elfw_fill_section(w, scn, &sec, name, e)) || (rc = elfw_section_bytes(w, &sec, &syms, e)))
		return rc;
	if (!gelf_getshdr(scn, &sh))
		return elfw_libelf_error(e, w->label, "bad symbol table header");
	str = elf_getscn(w->elf, sh.sh_link);
	if (!str)
		return ERR_SET(e, ERR_CORRUPT, sec.offset, "%s: %s links to no string table (section %u)",
			       w->label, name, (unsigned)sh.sh_link);
	if ((rc = elfw_fill_section(w, str, &strsec, "string table", e)) ||
	    (rc = elfw_section_bytes(w, &strsec, &strtab, e)))
		return rc;
	rc = elfw_index_table(w, &syms, cur_remaining(&syms), &strtab, e);
	return rc ? rc : 1;
}

/* Dynamic tags (ELF gABI "Dynamic Section"; DT_GNU_HASH from binutils include/elf/common.h). */
enum { ELFW_PT_DYNAMIC = 2, ELFW_DT_NULL = 0, ELFW_DT_HASH = 4, ELFW_DT_STRTAB = 5, ELFW_DT_SYMTAB = 6,
       ELFW_DT_STRSZ = 10, ELFW_DT_GNU_HASH = 0x6ffffef5 };

struct elfw_dyn {
	uint64_t hash, gnu_hash, strtab, symtab, strsz;
};

/* Cursor from virtual address va to the end of its segment's file bytes. */
static int elfw_va_cursor(const struct elfw *w, uint64_t va, struct cursor *out, struct err *e)
{
	uint64_t off;
	int rc = elfw_va_to_offset(w, va, &off, e);
	if (rc)
		return rc;
	return elfw_extent(w, off, w->len - off, va, "dynamic table", out, e);
}

/* Symbols a GNU hash table counts: one past the highest index its chains reach
 * (glibc elf/dl-lookup.c reads the same layout: nbuckets, symoffset, bloom_size,
 * bloom_shift, bloom words, buckets, chains ending with bit 0 set). */
static int elfw_gnu_hash_count(const struct elfw *w, uint64_t va, size_t *count, struct err *e)
{
	struct cursor c, chain;
	uint64_t nbuckets, symoffset, bloom, shift, maxb = 0, v;
	size_t skip;
	int rc;

	if ((rc = elfw_va_cursor(w, va, &c, e)) || (rc = elfw_rd(w, &c, 4, &nbuckets, e)) ||
	    (rc = elfw_rd(w, &c, 4, &symoffset, e)) || (rc = elfw_rd(w, &c, 4, &bloom, e)) ||
	    (rc = elfw_rd(w, &c, 4, &shift, e)))
		return rc;
	if (ck_mul((size_t)bloom, w->bits / 8, &skip) || (rc = cur_skip(&c, skip, e)))
		return rc ? rc : ERR_SET(e, ERR_CORRUPT, va, "%s: GNU hash bloom size %llu", w->label, (unsigned long long)bloom);
	if (nbuckets > cur_remaining(&c) / 4)
		return ERR_SET(e, ERR_TRUNC, va, "%s: GNU hash table: %llu buckets exceed the file",
			       w->label, (unsigned long long)nbuckets);
	for (uint64_t i = 0; i < nbuckets; i++) {
		if ((rc = elfw_rd(w, &c, 4, &v, e)))
			return rc;
		if (v > maxb)
			maxb = v;
	}
	if (maxb < symoffset) {
		*count = (size_t)symoffset;
		return 0;
	}
	/* chains are indexed from symoffset; walk from the highest bucket to its chain's end */
	chain = c;
	if (ck_mul((size_t)(maxb - symoffset), 4, &skip) || (rc = cur_skip(&chain, skip, e)))
		return rc ? rc : ERR_SET(e, ERR_CORRUPT, va, "%s: GNU hash chain index", w->label);
	for (;;) {
		if ((rc = elfw_rd(w, &chain, 4, &v, e)))
			return rc;
		maxb++;
		if (v & 1)
			break;
	}
	return ck_size(maxb, count) ? ERR_SET(e, ERR_CORRUPT, va, "%s: GNU hash count", w->label) : 0;
}

void elfw_set_load_bias(struct elfw *w, uint64_t bias)
{
	w->has_bias = true;
	w->load_bias = bias;
}

/* A dynamic-table address as the file's own link address: glibc's loader adds the load
 * bias to DT_HASH, DT_STRTAB, DT_SYMTAB, DT_GNU_HASH ... in the writable .dynamic of a
 * loaded object (elf/get-dynamic-info.h, ADJUST_DYN_INFO), bionic does not; a value in no
 * PT_LOAD that lands in one once the known bias is taken off is such a relocated one. */
static int elfw_unrelocate(const struct elfw *w, uint64_t *va, struct err *e)
{
	uint64_t off;
	int rc;

	if (!*va || !w->has_bias || *va < w->load_bias || (rc = elfw_va_to_offset(w, *va, &off, e)) == 0)
		return 0;
	/* in no segment's file data as it stands: relocated, unless the bias taken off is no
	 * better (then the value stays, and reading through it reports where it points) */
	if (rc == -ERR_UNMAPPED || rc == -ERR_TRUNC) {
		rc = elfw_va_to_offset(w, *va - w->load_bias, &off, e);
		if (rc == 0)
			*va -= w->load_bias;
		else if (rc == -ERR_UNMAPPED || rc == -ERR_TRUNC)
			rc = 0;
	}
	if (rc == 0)
		err_init(e);   /* either reading is an answer, not a failure */
	return rc;
}

static int elfw_read_dynamic(const struct elfw *w, const struct elfw_phdr *ph, struct elfw_dyn *d, struct err *e)
{
	struct cursor c;
	unsigned width = w->bits / 8;
	int rc;

	if ((rc = elfw_segment(w, ph, &c, e)))
		return rc;
	memset(d, 0, sizeof(*d));
	while (cur_remaining(&c) >= 2u * width) {
		uint64_t tag, val;
		if ((rc = elfw_rd(w, &c, width, &tag, e)) || (rc = elfw_rd(w, &c, width, &val, e)))
			return rc;
		if (tag == ELFW_DT_NULL)
			break;
		if (tag == ELFW_DT_HASH) d->hash = val;
		else if (tag == ELFW_DT_GNU_HASH) d->gnu_hash = val;
		else if (tag == ELFW_DT_STRTAB) d->strtab = val;
		else if (tag == ELFW_DT_SYMTAB) d->symtab = val;
		else if (tag == ELFW_DT_STRSZ) d->strsz = val;
	}
	if ((rc = elfw_unrelocate(w, &d->hash, e)) || (rc = elfw_unrelocate(w, &d->gnu_hash, e)) ||
	    (rc = elfw_unrelocate(w, &d->strtab, e)) || (rc = elfw_unrelocate(w, &d->symtab, e)))
		return rc;
	return 0;
}

/* The dynamic symbol table through PT_DYNAMIC (for files without section headers). */
static int elfw_index_dynamic(struct elfw *w, struct err *e)
{
	struct elfw_dyn d;
	struct cursor syms, strtab;
	size_t count = 0, strsz;
	int rc;

	for (size_t i = 0; i < w->phnum; i++) {
		struct elfw_phdr ph;
		if ((rc = elfw_phdr(w, i, &ph, e)))
			return rc;
		if (ph.type != ELFW_PT_DYNAMIC)
			continue;
		if ((rc = elfw_read_dynamic(w, &ph, &d, e)))
			return rc;
		if (!d.symtab || !d.strtab || (!d.hash && !d.gnu_hash))
			return 0; /* nothing to index */
		if ((rc = elfw_va_cursor(w, d.strtab, &strtab, e)) || (rc = elfw_va_cursor(w, d.symtab, &syms, e)))
			return rc;
		if (ck_size(d.strsz, &strsz) || strsz > strtab.len)
			return ERR_SET(e, ERR_TRUNC, d.strtab, "%s: DT_STRSZ %llu exceeds the file", w->label,
				       (unsigned long long)d.strsz);
		strtab.len = strsz;
		if (d.hash) {
			struct cursor h;
			uint64_t nbucket, nchain;
			if ((rc = elfw_va_cursor(w, d.hash, &h, e)) || (rc = elfw_rd(w, &h, 4, &nbucket, e)) ||
			    (rc = elfw_rd(w, &h, 4, &nchain, e)))
				return rc;
			count = (size_t)nchain;
		} else if ((rc = elfw_gnu_hash_count(w, d.gnu_hash, &count, e))) {
			return rc;
		}
		return elfw_index_table(w, &syms, count, &strtab, e);
	}
	return 0;
}

static int elfw_sym_cmp(const void *a, const void *b)
{
	const struct elfw_sym *x = a, *y = b;
	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	if ((x->size != 0) != (y->size != 0))
		return x->size ? -1 : 1; /* a sized symbol first */
	return x->order < y->order ? -1 : x->order > y->order; /* .symtab's entry first */
}

static int elfw_build_index(struct elfw *w, struct err *e)
{
	int rc, got;
	size_t out = 0;

	if (w->syms_built)
		return 0;
	/* built once: a damaged table is reported by this call, later calls find no symbol */
	w->syms_built = true;
	rc = 0;
	if ((got = elfw_index_section(w, ".symtab", e)) < 0 || (rc = elfw_index_section(w, ".dynsym", e)) < 0 ||
	    (!got && !rc && (rc = elfw_index_dynamic(w, e)) < 0)) {
		w->nsyms = 0;
		return got < 0 ? got : rc;
	}
	if (w->nsyms)
		qsort(w->syms, w->nsyms, sizeof(*w->syms), elfw_sym_cmp);
	/* one entry per address: the first after sorting (sized, from .symtab) */
	for (size_t i = 0; i < w->nsyms; i++)
		if (out == 0 || w->syms[out - 1].value != w->syms[i].value)
			w->syms[out++] = w->syms[i];
	w->nsyms = out;
	return 0;
}

int elfw_symbol_count(struct elfw *w, size_t *count, struct err *e)
{
	int rc = elfw_build_index(w, e);
	*count = w->nsyms;
	return rc;
}

int elfw_symbol_value(struct elfw *w, const char *name, uint64_t *value, uint64_t *size, struct err *e)
{
	int rc = elfw_build_index(w, e);

	if (rc)
		return rc;
	for (size_t i = 0; i < w->nsyms; i++)
		if (!strcmp(w->syms[i].name, name)) {
			*value = w->syms[i].value;
			if (size)
				*size = w->syms[i].size;
			return 0;
		}
	return 1;
}

static uint64_t elfw_sym_value(const void *v, size_t i) { return ((const struct elfw_sym *)v)[i].value; }

int elfw_symbol_at(struct elfw *w, uint64_t va, const char **name, uint64_t *sym_off, struct err *e)
{
	size_t lo;
	const struct elfw_sym *s;
	int rc = elfw_build_index(w, e);

	if (rc)
		return rc;
	lo = bs_upper(w->syms, w->nsyms, elfw_sym_value, va);   /* first symbol above va */
	if (lo == 0)
		return 1;
	s = &w->syms[lo - 1];
	if (s->size && va - s->value >= s->size)
		return 1;
	*name = s->name;
	*sym_off = va - s->value;
	return 0;
}

static uint64_t elfw_ld(const uint8_t *p, unsigned width, bool be)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < width; i++)
		v |= (uint64_t)p[i] << (8 * (be ? width - 1 - i : i));
	return v;
}

bool elfw_drop_unmapped_sections(uint8_t *buf, size_t len)
{
	/* e_shoff, e_shentsize, e_shnum, e_shstrndx offsets per class (ELF gABI "ELF Header") */
	bool is64, be;
	size_t shoff_at, shent_at, width;
	uint64_t shoff, shent, shnum, bytes;

	if (len < 64 || !elfw_probe(buf, len) || (buf[4] != 1 && buf[4] != 2) || (buf[5] != 1 && buf[5] != 2))
		return false;
	is64 = buf[4] == 2;
	be = buf[5] == 2;
	width = is64 ? 8 : 4;
	shoff_at = is64 ? 40 : 32;
	shent_at = is64 ? 58 : 46;
	shoff = elfw_ld(buf + shoff_at, (unsigned)width, be);
	shent = elfw_ld(buf + shent_at, 2, be);
	shnum = elfw_ld(buf + shent_at + 2, 2, be);
	if (shoff == 0 && shnum == 0)
		return false;
	if (!ck_mul64(shent, shnum, &bytes) && shoff <= len && bytes <= len - shoff && shnum != 0)
		return false;
	memset(buf + shoff_at, 0, width);
	memset(buf + shent_at + 2, 0, 4); /* e_shnum, e_shstrndx */
	return true;
}
