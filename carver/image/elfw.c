/* elfw.c - see elfw.h.  The only file that includes <libelf.h>/<gelf.h>.
 *
 * libelf's elf_memory() takes a non-const pointer; it is opened with ELF_C_READ_MMAP
 * semantics (elfutils elf_memory.c), which only reads the image: byte-swapped or
 * misaligned structures are converted into libelf-owned copies.  The bytes we pass are a
 * read-only mmap for files, so a write would fault rather than alter evidence.
 * Notes are decoded here with a cursor (layout: ELF gABI "Note Section"): namesz, descsz,
 * type (4 bytes each, file byte order), name padded to 4, desc padded to 4 (gcore and the
 * kernel use 4-byte alignment for ELFCLASS64 cores too). */
#include "carver/image/elfw.h"

#include <gelf.h>
#include <libelf.h>
#include <string.h>

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
