/* hprofw.c - truth.hprof: the allocated objects of the generated heap as an HPROF
 * "JAVA PROFILE 1.0.2" with 4-byte identifiers (object ids = addresses), written from the
 * generator's own records (not the tool's HPROF writer).  Records per the HPROF format
 * (output/hprof/hprof.h): STRING, LOAD_CLASS, STACK_TRACE, HEAP_DUMP_SEGMENT {ROOT_STICKY_CLASS,
 * ROOT_UNKNOWN, CLASS_DUMP, INSTANCE_DUMP, OBJECT_ARRAY_DUMP, PRIMITIVE_ARRAY_DUMP},
 * HEAP_DUMP_END.  Class names in JVM form ("java/lang/String", "[I").  Strings are dumped
 * with their declared fields only (their characters are in truth.jsonl).  A CLASS_DUMP lists
 * the Class object's own fields (java.lang.Class's, then java.lang.Object's) as statics named
 * "$class$" + name before the class's statics, as ART's HPROF does (runtime/hprof/hprof.cc
 * @R11, Hprof::DumpHeapClass), so the references a Class holds (name, dexCache, ...) are
 * edges of the dump. */
#include <stdio.h>
#include <string.h>

#include "carver/base/outfile.h"
#include "carver/base/xalloc.h"
#include "tests/synth/synth.h"
#include "tests/synth/alloc.h"

enum { T_OBJECT = 2, T_BOOLEAN = 4, T_CHAR = 5, T_FLOAT = 6, T_DOUBLE = 7, T_BYTE = 8,
	T_SHORT = 9, T_INT = 10, T_LONG = 11 };

int hprofw_write(struct model *m, const char *path, struct err *e);

static uint8_t basic_type(const char *t)
{
	switch (t[0]) {
	case 'Z': return T_BOOLEAN;
	case 'C': return T_CHAR;
	case 'F': return T_FLOAT;
	case 'D': return T_DOUBLE;
	case 'B': return T_BYTE;
	case 'S': return T_SHORT;
	case 'I': return T_INT;
	case 'J': return T_LONG;
	default: return T_OBJECT;
	}
}

#define HW_CLASS_FIELDS 64

struct hw {
	struct model *m;
	const struct kfield *cfield[HW_CLASS_FIELDS];   /* java.lang.Class's chain, Class first */
	uint32_t cfield_name[HW_CLASS_FIELDS];          /* "$class$" + name */
	unsigned n_cfields;
	struct outf o;
	struct wbuf rec, seg;
	uint32_t next_string;
	uint32_t *name_id;      /* per field name / class: string ids */
	struct err *e;
	int rc;
};

static void record(struct hw *h, uint8_t tag, const struct wbuf *body)
{
	uint8_t hd[9] = {tag, 0, 0, 0, 0};
	uint32_t n = (uint32_t)body->len;
	hd[5] = (uint8_t)(n >> 24); hd[6] = (uint8_t)(n >> 16); hd[7] = (uint8_t)(n >> 8); hd[8] = (uint8_t)n;
	if (h->rc)
		return;
	if ((h->rc = wbuf_status(body, h->e)) || (h->rc = outf_write(&h->o, hd, 9, h->e)))
		return;
	h->rc = outf_write(&h->o, body->data, body->len, h->e);
}

static uint32_t string_rec(struct hw *h, const char *s)
{
	uint32_t id = ++h->next_string;
	wbuf_reset(&h->rec);
	wbuf_u32be(&h->rec, id);
	wbuf_put(&h->rec, s, strlen(s));
	record(h, 0x01, &h->rec);
	return id;
}

static void jvm_name(const struct model *m, int ki, char *out, size_t cap)
{
	const char *d = m->k[ki].descriptor;
	if (d[0] == '[') {
		snprintf(out, cap, "%s", d);
		return;
	}
	if (d[0] == 'L') {
		snprintf(out, cap, "%.*s", (int)strlen(d) - 2, d + 1);
		return;
	}
	klass_java_name(m, ki, out, cap);      /* primitive classes: "int" */
}

static void flush_seg(struct hw *h, bool force)
{
	if (h->seg.len && (force || h->seg.len > 16u << 20)) {
		record(h, 0x1c, &h->seg);
		wbuf_reset(&h->seg);
	}
}

static void put_value(struct wbuf *b, struct model *m, uint64_t a, const char *t)
{
	switch (klass_type_size(t)) {
	case 1: wbuf_u8(b, vm_r8(&m->vm, a)); break;
	case 2: wbuf_u16be(b, vm_r16(&m->vm, a)); break;
	case 8: wbuf_u64be(b, vm_r64(&m->vm, a)); break;
	default: wbuf_u32be(b, vm_r32(&m->vm, a)); break;
	}
}

static void class_dump(struct hw *h, int ki, const uint32_t *fname)
{
	struct model *m = h->m;
	struct klass *k = &m->k[ki];
	struct wbuf *b = &h->seg;
	wbuf_u8(b, 0x20);
	wbuf_u32be(b, k->addr);
	wbuf_u32be(b, 1);
	wbuf_u32be(b, k->super >= 0 ? m->k[k->super].addr : 0);
	for (int i = 0; i < 5; i++)
		wbuf_u32be(b, 0);       /* loader, signers, protection domain, reserved x2 */
	wbuf_u32be(b, k->kind == CK_INSTANCE || k->kind == CK_STRING ? k->object_size : 0);
	wbuf_u16be(b, 0);
	wbuf_u16be(b, (uint16_t)(h->n_cfields + k->n_sfields));
	for (unsigned i = 0; i < h->n_cfields; i++) {
		wbuf_u32be(b, h->cfield_name[i]);
		wbuf_u8(b, basic_type(h->cfield[i]->type));
		put_value(b, m, k->addr + h->cfield[i]->offset, h->cfield[i]->type);
	}
	for (unsigned i = 0; i < k->n_sfields; i++) {
		const struct kfield *f = &k->sfields[i];
		wbuf_u32be(b, fname[ki * 64 + 32 + i]);
		wbuf_u8(b, basic_type(f->type));
		put_value(b, m, k->addr + f->offset, f->type);
	}
	wbuf_u16be(b, (uint16_t)k->n_ifields);
	for (unsigned i = 0; i < k->n_ifields; i++) {
		wbuf_u32be(b, fname[ki * 64 + i]);
		wbuf_u8(b, basic_type(k->ifields[i].type));
	}
}

static void instance_dump(struct hw *h, const struct obj *o)
{
	struct model *m = h->m;
	struct wbuf *b = &h->seg;
	size_t len_at;
	wbuf_u8(b, 0x21);
	wbuf_u32be(b, o->addr);
	wbuf_u32be(b, 1);
	wbuf_u32be(b, m->k[o->cls].addr);
	len_at = b->len;
	wbuf_u32be(b, 0);
	for (int c = o->cls; c >= 0; c = m->k[c].super)        /* most derived class first */
		for (unsigned i = 0; i < m->k[c].n_ifields; i++)
			put_value(b, m, o->addr + m->k[c].ifields[i].offset, m->k[c].ifields[i].type);
	if (!b->failed)
		wbuf_patch_u32be(b, len_at, (uint32_t)(b->len - len_at - 4));
}

static void array_dump(struct hw *h, const struct obj *o)
{
	struct model *m = h->m;
	struct klass *k = &m->k[o->cls];
	struct wbuf *b = &h->seg;
	if (k->kind == CK_OBJ_ARRAY) {
		wbuf_u8(b, 0x22);
		wbuf_u32be(b, o->addr);
		wbuf_u32be(b, 1);
		wbuf_u32be(b, o->length);
		wbuf_u32be(b, k->addr);
		for (uint32_t i = 0; i < o->length; i++)
			wbuf_u32be(b, vm_r32(&m->vm, o->addr + 12 + 4 * (uint64_t)i));
		return;
	}
	char elem = m->k[k->component].prim;
	char t[2] = {elem, 0};
	unsigned es = klass_type_size(t);
	uint64_t d = o->addr + array_data_off(elem);
	wbuf_u8(b, 0x23);
	wbuf_u32be(b, o->addr);
	wbuf_u32be(b, 1);
	wbuf_u32be(b, o->length);
	wbuf_u8(b, basic_type(t));
	for (uint32_t i = 0; i < o->length; i++)
		put_value(b, m, d + (uint64_t)i * es, t);
}

int hprofw_write(struct model *m, const char *path, struct err *e)
{
	struct hw h = {0};
	static const char magic[] = "JAVA PROFILE 1.0.2";
	uint8_t head[31];

	h.m = m;
	h.e = e;
	wbuf_init(&h.rec);
	wbuf_init(&h.seg);
	outf_init(&h.o);
	h.name_id = xcalloc((size_t)m->nk * 64 + 1, sizeof(uint32_t));
	uint32_t *cname = xcalloc(m->nk + 1, sizeof(uint32_t));
	if (!h.name_id || !cname) {
		h.rc = ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory");
		goto out;
	}
	if ((h.rc = outf_open(&h.o, path, e)))
		goto out;
	memcpy(head, magic, sizeof(magic));     /* with its NUL */
	head[19] = 0; head[20] = 0; head[21] = 0; head[22] = 4;  /* identifier size */
	memset(head + 23, 0, 8);                /* timestamp 0: deterministic */
	if ((h.rc = outf_write(&h.o, head, sizeof(head), e)))
		goto out;
	/* names: classes and fields */
	for (unsigned i = 0; i < m->nk; i++) {
		char name[200];
		jvm_name(m, (int)i, name, sizeof(name));
		cname[i] = string_rec(&h, name);
		for (unsigned j = 0; j < m->k[i].n_ifields && j < 32; j++)
			h.name_id[i * 64 + j] = string_rec(&h, m->k[i].ifields[j].name);
		for (unsigned j = 0; j < m->k[i].n_sfields && j < 32; j++)
			h.name_id[i * 64 + 32 + j] = string_rec(&h, m->k[i].sfields[j].name);
	}
	/* the Class object's own fields: java.lang.Class's, then its super classes' */
	for (int c = klass_find(m, "Ljava/lang/Class;"); c >= 0; c = m->k[c].super)
		for (unsigned j = 0; j < m->k[c].n_ifields && h.n_cfields < HW_CLASS_FIELDS; j++) {
			char name[64];
			snprintf(name, sizeof(name), "$class$%s", m->k[c].ifields[j].name);
			h.cfield[h.n_cfields] = &m->k[c].ifields[j];
			h.cfield_name[h.n_cfields++] = string_rec(&h, name);
		}
	wbuf_reset(&h.rec);
	wbuf_u32be(&h.rec, 1);          /* STACK_TRACE serial 1, thread 0, no frames */
	wbuf_u32be(&h.rec, 0);
	wbuf_u32be(&h.rec, 0);
	record(&h, 0x05, &h.rec);
	for (unsigned i = 0; i < m->nk; i++) {
		wbuf_reset(&h.rec);
		wbuf_u32be(&h.rec, i + 1);
		wbuf_u32be(&h.rec, m->k[i].addr);
		wbuf_u32be(&h.rec, 1);
		wbuf_u32be(&h.rec, cname[i]);
		record(&h, 0x02, &h.rec);
	}
	/* roots: every class (sticky), the image roots and the app dex cache (unknown) */
	for (unsigned i = 0; i < m->nk; i++) {
		wbuf_u8(&h.seg, 0x05);
		wbuf_u32be(&h.seg, m->k[i].addr);
	}
	for (unsigned i = 0; i < m->no; i++) {
		if (m->o[i].root && m->k[m->o[i].cls].kind != CK_CLASS && m->o[i].alloc == OB_ALLOCATED) {
			wbuf_u8(&h.seg, 0xff);
			wbuf_u32be(&h.seg, m->o[i].addr);
		}
	}
	for (unsigned i = 0; i < m->nk; i++) {
		class_dump(&h, (int)i, h.name_id);
		flush_seg(&h, false);
	}
	for (unsigned i = 0; i < m->no; i++) {
		const struct obj *o = &m->o[i];
		enum ck_kind kind = m->k[o->cls].kind;
		if (o->alloc != OB_ALLOCATED || kind == CK_CLASS)
			continue;
		if (kind == CK_PRIM_ARRAY || kind == CK_OBJ_ARRAY)
			array_dump(&h, o);
		else
			instance_dump(&h, o);
		flush_seg(&h, false);
	}
	flush_seg(&h, true);
	wbuf_reset(&h.rec);
	record(&h, 0x2c, &h.rec);
	if (!h.rc)
		h.rc = outf_commit(&h.o, e);
out:
	if (h.rc)
		outf_abort(&h.o);
	wbuf_release(&h.rec);
	wbuf_release(&h.seg);
	xfree(h.name_id);
	xfree(cname);
	return h.rc;
}
