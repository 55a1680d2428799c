/* klass.c - classes of the generated heap and ART's instance-field layout rule.
 *
 * LinkFields (runtime/class_linker.cc): a class's fields start at the super class's object
 * size, references first (6.0+: 4-aligned).  6.0+ (ShuffleForward): then 8-, 4-, 2-, 1-byte
 * fields, same-size fields by primitive type then dex field index (= name); alignment padding
 * becomes gaps that later smaller fields fill (largest gap first, then lowest offset).  12+
 * (LinkFieldsHelper::FieldGaps, runtime/class_linker.cc @R12S..R16, platform/art c7993d55b2
 * "prefer small gaps over big ones"): the same gaps, but a field takes the smallest gap that
 * holds it.  5.1: same order but
 * every non-64-bit field takes 4 bytes and one of them fills the gap before the 64-bit ones.
 * 5.0: references, 64-bit, then all others, each group by name, same 4-byte slots. */
#include <stdlib.h>
#include <string.h>

#include "carver/base/xalloc.h"
#include "tests/synth/synth.h"

unsigned klass_type_size(const char *t)
{
	switch (t[0]) {
	case 'J': case 'D': return 8;
	case 'I': case 'F': return 4;
	case 'C': case 'S': return 2;
	case 'Z': case 'B': return 1;
	default: return 4;      /* references are 32-bit heap references */
	}
}

int klass_find(const struct model *m, const char *descriptor)
{
	for (unsigned i = 0; i < m->nk; i++)
		if (strcmp(m->k[i].descriptor, descriptor) == 0)
			return (int)i;
	return -1;
}

int klass_add(struct model *m, const char *descriptor, int super, enum ck_kind kind, int dex)
{
	if (m->nk >= KLASS_MAX)
		return -1;
	struct klass *k = &m->k[m->nk];
	memset(k, 0, sizeof(*k));
	snprintf(k->descriptor, sizeof(k->descriptor), "%s", descriptor);
	k->super = super;
	k->component = -1;
	k->kind = kind;
	k->dex = dex;
	k->obj = -1;
	k->access_flags = 0x0001;       /* public */
	if (super >= 0)
		k->object_size = m->k[super].object_size;
	return (int)m->nk++;
}

void klass_field(struct model *m, int ki, const char *name, const char *type, bool is_static)
{
	struct klass *k = &m->k[ki];
	struct kfield **arr = is_static ? &k->sfields : &k->ifields;
	unsigned *n = is_static ? &k->n_sfields : &k->n_ifields;
	struct kfield *p = xreallocarray(*arr, *n + 1, sizeof(*p));
	if (!p)
		return;
	*arr = p;
	memset(&p[*n], 0, sizeof(p[*n]));
	snprintf(p[*n].name, sizeof(p[*n].name), "%s", name);
	snprintf(p[*n].type, sizeof(p[*n].type), "%s", type);
	p[*n].is_static = is_static;
	(*n)++;
}

/* Primitive::Type order (primitive.h): Not, Z, B, C, S, I, J, F, D. */
static int prim_order(const char *t)
{
	static const char order[] = "ZBCSIJFD";
	const char *p = strchr(order, t[0]);
	return t[0] == 'L' || t[0] == '[' || !p ? 0 : 1 + (int)(p - order);
}

static int link_rule;   /* qsort has no context argument */

/* 6.0+ and 5.1: references, then larger primitives first, then by primitive type, then by
 * dex field index (= name, then type).  5.0: references, 64-bit, all others; by name. */
static int field_cmp(const void *a, const void *b)
{
	const struct kfield *x = a, *y = b;
	int px = prim_order(x->type), py = prim_order(y->type);
	if (link_rule == 2) {
		int gx = px == 0 ? 0 : klass_type_size(x->type) == 8 ? 1 : 2;
		int gy = py == 0 ? 0 : klass_type_size(y->type) == 8 ? 1 : 2;
		if (gx != gy)
			return gx - gy;
	} else if (px != py) {
		if (px == 0 || py == 0)
			return px == 0 ? -1 : 1;
		unsigned sx = klass_type_size(x->type), sy = klass_type_size(y->type);
		if (sx != sy)
			return sx > sy ? -1 : 1;
		return px - py;
	}
	int c = strcmp(x->name, y->name);
	return c ? c : strcmp(x->type, y->type);
}

struct gap { uint32_t start, size; };

#define RUP4(x) (((x) + 3u) & ~3u)

static void add_gap(struct gap *gaps, unsigned *ng, uint32_t start, uint32_t end)
{
	while (start < end && *ng < 64) {       /* AddFieldGap: largest aligned pieces */
		uint32_t piece = end - start >= 4 && start % 4 == 0 ? 4 : end - start >= 2 && start % 2 == 0 ? 2 : 1;
		gaps[*ng].start = start;
		gaps[*ng].size = piece;
		(*ng)++;
		start += piece;
	}
}

/* 5.0/5.1: one non-64-bit field fills the alignment gap, every non-64-bit field takes 4 bytes. */
static uint32_t link_legacy(struct kfield *f, unsigned n, uint32_t off)
{
	unsigned i = 0;
	for (; i < n && prim_order(f[i].type) == 0; i++, off += 4)
		f[i].offset = off;
	if (i < n && off % 8) {
		for (unsigned j = i; j < n; j++) {
			if (klass_type_size(f[j].type) == 8)
				continue;
			struct kfield t = f[j];
			memmove(&f[i + 1], &f[i], (j - i) * sizeof(*f));
			f[i] = t;
			f[i++].offset = off;
			break;
		}
		off += 4;
	}
	for (; i < n; i++) {
		f[i].offset = off;
		off += klass_type_size(f[i].type) == 8 ? 8 : 4;
	}
	return off;
}

uint32_t klass_link(struct kfield *f, unsigned n, uint32_t start, int rule)
{
	struct gap gaps[64];
	unsigned ng = 0;
	uint32_t off = start;

	link_rule = rule;
	qsort(f, n, sizeof(*f), field_cmp);
	if (rule == 1 || rule == 2)
		return link_legacy(f, n, off);
	for (unsigned i = 0; i < n; i++) {
		unsigned sz = klass_type_size(f[i].type);
		if (prim_order(f[i].type) == 0) {
			/* references are 4-aligned after an odd-sized super class, the padding a gap
			 * (runtime/class_linker.cc LinkFields @ android-6.0.1_r22, unchanged to 11) */
			if (off % 4) {
				add_gap(gaps, &ng, off, RUP4(off));
				off = RUP4(off);
			}
			f[i].offset = off;
			off += 4;
			continue;
		}
		if (off % sz) {         /* ShuffleForward: align, the padding becomes gaps */
			uint32_t aligned = (off + sz - 1) / sz * sz;
			add_gap(gaps, &ng, off, aligned);
			off = aligned;
		}
		int best = -1;
		for (unsigned g = 0; g < ng; g++) {
			if (rule == 3) {        /* 12+: smallest gap that holds the field */
				if (gaps[g].size >= sz && (best < 0 || gaps[g].size < gaps[best].size ||
							   (gaps[g].size == gaps[best].size &&
							    gaps[g].start < gaps[best].start)))
					best = (int)g;
			} else if (best < 0 || gaps[g].size > gaps[best].size ||   /* largest, lowest */
				   (gaps[g].size == gaps[best].size && gaps[g].start < gaps[best].start)) {
				best = (int)g;
			}
		}
		if (best >= 0 && gaps[best].size >= sz) {
			struct gap g = gaps[best];
			gaps[best] = gaps[--ng];
			f[i].offset = g.start;
			add_gap(gaps, &ng, g.start + sz, g.start + g.size);
			continue;
		}
		f[i].offset = off;
		off += sz;
	}
	return off;
}

void klass_layout(struct model *m, int ki)
{
	struct klass *k = &m->k[ki];
	uint32_t start = k->super >= 0 ? m->k[k->super].object_size : 0;
	k->object_size = klass_link(k->ifields, k->n_ifields, start, m->fam->link_rule);
}

void klass_mirror(struct model *m, int ki, const struct fam_mirror *mm)
{
	struct klass *k = &m->k[ki];
	uint32_t start = k->super >= 0 ? m->k[k->super].object_size : 0;
	for (const struct fam_field *f = mm->fields; f->name; f++) {
		if (f->offset < start)
			continue;       /* inherited */
		klass_field(m, ki, f->name, f->type, false);
		k->ifields[k->n_ifields - 1].offset = f->offset;
	}
	k->object_size = mm->size;
}

void klass_java_name(const struct model *m, int ki, char *out, size_t cap)
{
	const struct klass *k = &m->k[ki];
	static const char prims[] = "ZBCSIJFDV";
	static const char *const pn[] = {"boolean", "byte", "char", "short", "int", "long", "float",
		"double", "void"};
	const char *d = k->descriptor;
	unsigned dims = 0;
	char base[128];

	while (d[dims] == '[')
		dims++;
	d += dims;
	if (d[0] == 'L') {
		size_t n = strlen(d);
		snprintf(base, sizeof(base), "%.*s", (int)(n - 2), d + 1);
		for (char *p = base; *p; p++)
			if (*p == '/')
				*p = '.';
	} else {
		const char *p = strchr(prims, d[0]);
		snprintf(base, sizeof(base), "%s", p ? pn[p - prims] : "?");
	}
	size_t len = (size_t)snprintf(out, cap, "%s", base);
	for (unsigned i = 0; i < dims && len + 2 < cap; i++, len += 2)
		memcpy(out + len, "[]", 3);
}

/* Re-derives every mirror layout of every family with link_fields (java.lang.Object's
 * header fields taken as given) and reports differences. */
int klass_selftest(FILE *log)
{
	int bad = 0;
	for (unsigned i = 0; i < fam_count(); i++) {
		const struct fam *f = fam_at(i);
		const struct fam_mirror *ms[] = {&f->m_class, &f->m_string, &f->m_dexcache,
			&f->m_reference, &f->m_classloader, &f->m_artfield, &f->m_artmethod};
		for (unsigned j = 0; j < sizeof(ms) / sizeof(ms[0]); j++) {
			struct kfield fl[64];
			unsigned n = 0;
			for (const struct fam_field *x = ms[j]->fields; x->name && n < 64; x++, n++) {
				memset(&fl[n], 0, sizeof(fl[n]));
				snprintf(fl[n].name, sizeof(fl[n].name), "%s", x->name);
				snprintf(fl[n].type, sizeof(fl[n].type), "%s", x->type);
			}
			if (!n)
				continue;
			klass_link(fl, n, 8, f->link_rule);
			for (unsigned a = 0; a < n; a++) {
				uint32_t want = fam_off(ms[j], fl[a].name);
				if (want != fl[a].offset) {
					fprintf(log, "%s: mirror %u field %s: table %u, LinkFields %u\n",
						f->version, j, fl[a].name, want, fl[a].offset);
					bad++;
				}
			}
		}
	}
	return bad;
}
