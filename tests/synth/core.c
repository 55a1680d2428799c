/* core.c - the ELF core file (ET_CORE, one PT_LOAD per readable mapping, a PT_NOTE with
 * NT_FILE for file-backed mappings) and the /proc/PID/maps listing of the generated process.
 * ELF structures follow the System V gABI / <elf.h>; written field by field, little-endian. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "carver/base/outfile.h"
#include "carver/base/xalloc.h"
#include "tests/synth/synth.h"

#define PAGE 4096u
#define NT_FILE 0x46494c45u

static int cmp_map(const void *a, const void *b)
{
	const struct vmap *x = *(const struct vmap *const *)a, *y = *(const struct vmap *const *)b;
	return x->va < y->va ? -1 : x->va > y->va;
}

struct vmap **core_sorted(struct vm *v)
{
	struct vmap **s = xcalloc(v->n + 1, sizeof(*s));
	if (!s)
		return NULL;
	for (unsigned i = 0; i < v->n; i++)
		s[i] = &v->maps[i];
	qsort(s, v->n, sizeof(*s), cmp_map);
	return s;
}

static void word(struct wbuf *b, bool b64, uint64_t v)
{
	if (b64)
		wbuf_u64le(b, v);
	else
		wbuf_u32le(b, (uint32_t)v);
}

static uint32_t pflags(const char *perms)
{
	return (perms[0] == 'r' ? 4u : 0) | (perms[1] == 'w' ? 2u : 0) | (perms[2] == 'x' ? 1u : 0);
}

static void note_file(struct model *m, struct vmap **s, struct wbuf *d)
{
	bool b64 = m->bits == 64;
	unsigned n = 0;
	for (unsigned i = 0; i < m->vm.n; i++)
		n += s[i]->file && s[i]->rw_size;
	word(d, b64, n);
	word(d, b64, PAGE);
	for (unsigned i = 0; i < m->vm.n; i++)
		if (s[i]->file && s[i]->rw_size) {
			word(d, b64, s[i]->va);
			word(d, b64, s[i]->va + s[i]->size);
			word(d, b64, s[i]->file_off / PAGE);
		}
	for (unsigned i = 0; i < m->vm.n; i++)
		if (s[i]->file && s[i]->rw_size)
			wbuf_put(d, s[i]->name, strlen(s[i]->name) + 1);
}

/* Writes data skipping all-zero pages (the file stays sparse; ftruncate sets the size). */
static int write_sparse(struct outf *o, const uint8_t *p, uint64_t n, struct err *e)
{
	static const uint8_t zero[PAGE];
	for (uint64_t off = 0; off < n; off += PAGE) {
		uint64_t len = n - off < PAGE ? n - off : PAGE;
		if (len == PAGE && memcmp(p + off, zero, PAGE) == 0) {
			if (fseeko(o->fp, PAGE, SEEK_CUR))
				return ERR_SET(e, ERR_IO, ERR_NO_VA, "seek in core file failed");
			o->written += PAGE;
			continue;
		}
		if (outf_write(o, p + off, (size_t)len, e))
			return -ERR_IO;
	}
	return 0;
}

int core_write(struct model *m, const char *path, struct err *e)
{
	bool b64 = m->bits == 64;
	struct vmap **s = core_sorted(&m->vm);
	struct wbuf h, d;
	struct outf o;
	int rc = -ERR_NOMEM;

	wbuf_init(&h);
	wbuf_init(&d);
	outf_init(&o);
	if (!s)
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory");
	unsigned nload = 0;
	for (unsigned i = 0; i < m->vm.n; i++)
		nload += s[i]->rw_size != 0;
	note_file(m, s, &d);
	unsigned ehsize = b64 ? 64 : 52, phsize = b64 ? 56 : 32, phnum = nload + 1;
	uint64_t note_off = ehsize + (uint64_t)phsize * phnum;
	uint64_t note_size = 20 + ((d.len + 3) & ~(size_t)3);
	uint64_t off = (note_off + note_size + PAGE - 1) / PAGE * PAGE;

	/* ELF header */
	static const uint8_t ident[4] = {0x7f, 'E', 'L', 'F'};
	wbuf_put(&h, ident, 4);
	wbuf_u8(&h, b64 ? 2 : 1);       /* ELFCLASS */
	wbuf_u8(&h, 1);                 /* ELFDATA2LSB */
	wbuf_u8(&h, 1);                 /* EV_CURRENT */
	wbuf_zeros(&h, 9);
	wbuf_u16le(&h, 4);              /* ET_CORE */
	wbuf_u16le(&h, b64 ? 183 : 40); /* EM_AARCH64 / EM_ARM */
	wbuf_u32le(&h, 1);
	word(&h, b64, 0);               /* e_entry */
	word(&h, b64, ehsize);          /* e_phoff */
	word(&h, b64, 0);               /* e_shoff */
	wbuf_u32le(&h, 0);
	wbuf_u16le(&h, (uint16_t)ehsize);
	wbuf_u16le(&h, (uint16_t)phsize);
	wbuf_u16le(&h, (uint16_t)phnum);
	wbuf_u16le(&h, b64 ? 64 : 40);
	wbuf_u16le(&h, 0);
	wbuf_u16le(&h, 0);
	/* program headers: the note, then the loads in address order */
	for (unsigned i = 0; i <= m->vm.n; i++) {
		uint32_t type, flags;
		uint64_t poff, va, filesz, memsz, align;
		if (i == 0) {
			type = 4; flags = 0; poff = note_off; va = 0; filesz = memsz = note_size; align = 4;
		} else {
			struct vmap *mp = s[i - 1];
			if (!mp->rw_size)
				continue;
			type = 1; flags = pflags(mp->perms); poff = off; va = mp->va;
			filesz = memsz = mp->rw_size; align = PAGE;
			off += (mp->rw_size + PAGE - 1) / PAGE * PAGE;
		}
		if (b64) {
			wbuf_u32le(&h, type); wbuf_u32le(&h, flags); wbuf_u64le(&h, poff);
			wbuf_u64le(&h, va); wbuf_u64le(&h, 0); wbuf_u64le(&h, filesz);
			wbuf_u64le(&h, memsz); wbuf_u64le(&h, align);
		} else {
			wbuf_u32le(&h, type); wbuf_u32le(&h, (uint32_t)poff); wbuf_u32le(&h, (uint32_t)va);
			wbuf_u32le(&h, 0); wbuf_u32le(&h, (uint32_t)filesz); wbuf_u32le(&h, (uint32_t)memsz);
			wbuf_u32le(&h, flags); wbuf_u32le(&h, (uint32_t)align);
		}
	}
	/* the note */
	wbuf_u32le(&h, 5);
	wbuf_u32le(&h, (uint32_t)((d.len + 3) & ~(size_t)3));
	wbuf_u32le(&h, NT_FILE);
	wbuf_put(&h, "CORE\0\0\0", 8);
	wbuf_put(&h, d.data, d.len);
	while (h.len % 4)
		wbuf_u8(&h, 0);
	wbuf_zeros(&h, (size_t)((note_off + note_size + PAGE - 1) / PAGE * PAGE - h.len));
	if (wbuf_status(&h, e) || wbuf_status(&d, e))
		goto out;
	if ((rc = outf_open(&o, path, e)) || (rc = outf_write(&o, h.data, h.len, e)))
		goto out;
	for (unsigned i = 0; i < m->vm.n; i++) {
		struct vmap *mp = s[i];
		if (!mp->rw_size)
			continue;
		uint64_t padded = (mp->rw_size + PAGE - 1) / PAGE * PAGE;
		if ((rc = write_sparse(&o, mp->bytes, mp->rw_size, e)))
			goto out;
		if (padded > mp->rw_size && fseeko(o.fp, (off_t)(padded - mp->rw_size), SEEK_CUR) == 0)
			o.written += padded - mp->rw_size;
	}
	if (fflush(o.fp) || ftruncate(fileno(o.fp), (off_t)o.written)) {
		rc = ERR_SET(e, ERR_IO, ERR_NO_VA, "cannot set the size of %s", path);
		goto out;
	}
	rc = outf_commit(&o, e);
out:
	if (rc)
		outf_abort(&o);
	wbuf_release(&h);
	wbuf_release(&d);
	xfree(s);
	return rc;
}

/* /proc/PID/maps lines (fs/proc/task_mmu.c show_map_vma): name padded to column 73. */
static void maps_line(struct wbuf *b, const struct vmap *mp, uint64_t va, uint64_t end,
		      const char *perms, unsigned inode)
{
	size_t start = b->len;
	bool ashmem = strncmp(mp->name, "/dev/ashmem/", 12) == 0;
	const char *dev = mp->file ? "fd:00" : ashmem ? "00:04" : "00:00";
	wbuf_printf(b, "%08llx-%08llx %s %08llx %s %u", (unsigned long long)va,
		    (unsigned long long)end, perms, (unsigned long long)(mp->file ? mp->file_off + (va - mp->va) : 0),
		    dev, mp->file || ashmem ? inode : 0);
	if (mp->name[0]) {
		while (b->len - start < 73)
			wbuf_u8(b, ' ');
		wbuf_printf(b, "%s", mp->name);
	}
	wbuf_u8(b, '\n');
}

int maps_write(struct model *m, const char *path, struct err *e)
{
	struct vmap **s = core_sorted(&m->vm);
	struct wbuf b;
	struct outf o;
	int rc;

	if (!s)
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory");
	wbuf_init(&b);
	outf_init(&o);
	for (unsigned i = 0; i < m->vm.n; i++) {
		struct vmap *mp = s[i];
		unsigned inode = 10000 + i * 7;
		if (mp->rw_size)
			maps_line(&b, mp, mp->va, mp->va + mp->rw_size, mp->perms, inode);
		if (mp->size > mp->rw_size)
			maps_line(&b, mp, mp->va + mp->rw_size, mp->va + mp->size, "---p", inode);
	}
	rc = wbuf_status(&b, e);
	if (!rc && !(rc = outf_open(&o, path, e)) && !(rc = outf_write(&o, b.data, b.len, e)))
		rc = outf_commit(&o, e);
	if (rc)
		outf_abort(&o);
	wbuf_release(&b);
	xfree(s);
	return rc;
}
