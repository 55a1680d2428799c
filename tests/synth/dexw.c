/* dexw.c - a minimal DEX file (dex 035) naming the generated classes and their fields.
 *
 * Layout (libdexfile/dex/dex_file.h @R10): header (0x70 bytes), string_ids,
 * type_ids, field_ids, class_defs, then data: string_data_item (ULEB128 UTF-16 length, MUTF-8,
 * NUL), class_data_item (ULEB128 counts, delta-coded field indexes), map_list.  Strings are
 * sorted (code-unit order), type ids by string index, field ids by (class, name, type).
 * checksum = Adler-32 of bytes 12..end; the SHA-1 signature is left zero (ART does not check it). */
#include <stdlib.h>
#include <string.h>

#include "carver/base/xalloc.h"
#include "tests/synth/synth.h"

struct dexw {
	const char **str; unsigned ns; size_t cap;
};

static void add_str(struct dexw *d, const char *s)
{
	for (unsigned i = 0; i < d->ns; i++)
		if (strcmp(d->str[i], s) == 0)
			return;
	if (XALLOC_GROW(d->str, d->cap, (size_t)d->ns + 1, 64))
		return;
	d->str[d->ns++] = s;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

static uint32_t str_idx(const struct dexw *d, const char *s)
{
	for (unsigned i = 0; i < d->ns; i++)
		if (strcmp(d->str[i], s) == 0)
			return i;
	return 0;
}

static uint32_t type_idx(const struct dexw *d, const uint32_t *types, unsigned n, const char *s)
{
	uint32_t si = str_idx(d, s);
	for (unsigned i = 0; i < n; i++)
		if (types[i] == si)
			return i;
	return 0;
}

static void uleb(struct wbuf *b, uint32_t v)
{
	do {
		uint8_t c = v & 0x7f;
		v >>= 7;
		wbuf_u8(b, (uint8_t)(c | (v ? 0x80 : 0)));
	} while (v);
}

static uint32_t adler32(const uint8_t *p, size_t n)
{
	uint32_t a = 1, b = 0;
	for (size_t i = 0; i < n; i++) {
		a = (a + p[i]) % 65521;
		b = (b + a) % 65521;
	}
	return b << 16 | a;
}

struct fref { int k; struct kfield *f; uint32_t cls, name, type; };
struct mref { int k; unsigned which; uint32_t cls, name; };

/* The two native methods a class may declare: private static native void nativeCreate()
 * (direct) and public native void nativeUpdate() (virtual). */
const char *const dexw_method_names[2] = {"nativeCreate", "nativeUpdate"};
static const uint32_t method_flags[2] = {0x010a, 0x0101};

static int cmp_mref(const void *a, const void *b)
{
	const struct mref *x = a, *y = b;
	if (x->cls != y->cls)
		return x->cls < y->cls ? -1 : 1;
	return x->name < y->name ? -1 : x->name > y->name;
}

static int cmp_fref(const void *a, const void *b)
{
	const struct fref *x = a, *y = b;
	if (x->cls != y->cls)
		return x->cls < y->cls ? -1 : 1;
	if (x->name != y->name)
		return x->name < y->name ? -1 : 1;
	return x->type < y->type ? -1 : x->type > y->type;
}

static void patch32(struct wbuf *b, size_t off, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		b->data[off + i] = (uint8_t)(v >> (8 * i));
}

/* Builds the DEX of every class with k->dex == dex into out; sets type/field/class-def idx. */
int dexw_build(struct model *m, int dex, struct wbuf *out)
{
	struct dexw d = {0};
	unsigned ntypes = 0, nf = 0, nc = 0;
	uint32_t *types = NULL;
	struct fref *fr = NULL;
	struct mref *mr = NULL;

	unsigned nm = 0;
	for (unsigned i = 0; i < m->nk; i++) {
		struct klass *k = &m->k[i];
		if (k->dex != dex)
			continue;
		nc++;
		add_str(&d, k->descriptor);
		if (k->n_methods) {
			add_str(&d, dexw_method_names[0]);
			add_str(&d, dexw_method_names[1]);
			add_str(&d, "V");
			nm += 2;
		}
		if (k->super >= 0)
			add_str(&d, m->k[k->super].descriptor);
		for (unsigned j = 0; j < k->n_ifields + k->n_sfields; j++) {
			struct kfield *f = j < k->n_ifields ? &k->ifields[j] : &k->sfields[j - k->n_ifields];
			add_str(&d, f->name);
			add_str(&d, f->type);
			nf++;
		}
	}
	qsort(d.str, d.ns, sizeof(*d.str), cmp_str);
	/* type ids: every string that is a descriptor, in string order */
	types = xcalloc(d.ns + 1, sizeof(*types));
	fr = xcalloc(nf + 1, sizeof(*fr));
	mr = xcalloc(nm + 1, sizeof(*mr));
	if (!types || !fr || !d.str || !mr)
		goto fail;
	for (unsigned i = 0; i < d.ns; i++) {
		const char *s = d.str[i];
		bool is_type = s[0] == 'L' || s[0] == '[' || (s[1] == 0 && strchr("ZBCSIJFDV", s[0]));
		if (is_type)
			types[ntypes++] = i;
	}
#define TYPE_IDX(s) type_idx(&d, types, ntypes, s)
	nf = 0;
	for (unsigned i = 0; i < m->nk; i++) {
		struct klass *k = &m->k[i];
		if (k->dex != dex)
			continue;
		k->type_idx = TYPE_IDX(k->descriptor);
		for (unsigned j = 0; j < k->n_ifields + k->n_sfields; j++) {
			struct kfield *f = j < k->n_ifields ? &k->ifields[j] : &k->sfields[j - k->n_ifields];
			fr[nf].k = (int)i;
			fr[nf].f = f;
			fr[nf].cls = k->type_idx;
			fr[nf].name = str_idx(&d, f->name);
			fr[nf].type = TYPE_IDX(f->type);
			nf++;
		}
	}
	qsort(fr, nf, sizeof(*fr), cmp_fref);
	for (unsigned i = 0; i < nf; i++)
		fr[i].f->dex_field_idx = i;
	nm = 0;
	for (unsigned i = 0; i < m->nk; i++) {
		struct klass *k = &m->k[i];
		if (k->dex != dex || !k->n_methods)
			continue;
		for (unsigned w = 0; w < 2; w++) {
			mr[nm].k = (int)i;
			mr[nm].which = w;
			mr[nm].cls = k->type_idx;
			mr[nm].name = str_idx(&d, dexw_method_names[w]);
			nm++;
		}
	}
	qsort(mr, nm, sizeof(*mr), cmp_mref);
	for (unsigned i = 0; i < nm; i++)
		m->k[mr[i].k].method_idx[mr[i].which] = i;

	/* one proto "()V" when there are methods: shorty "V", return type V, no parameters */
	uint32_t nproto = nm ? 1 : 0;
	uint32_t off_str = 0x70, off_type = off_str + 4 * d.ns, off_proto = off_type + 4 * ntypes;
	uint32_t off_field = off_proto + 12 * nproto, off_meth = off_field + 8 * nf;
	uint32_t off_cdef = off_meth + 8 * nm, off_data = off_cdef + 32 * nc;
	wbuf_reset(out);
	wbuf_zeros(out, off_data);
	uint32_t *sdata = xcalloc(d.ns + 1, sizeof(*sdata));
	uint32_t *cdata = xcalloc(nc + 1, sizeof(*cdata));
	if (!sdata || !cdata) {
		xfree(sdata);
		xfree(cdata);
		goto fail;
	}
	for (unsigned i = 0; i < d.ns; i++) {
		sdata[i] = (uint32_t)out->len;
		uleb(out, (uint32_t)strlen(d.str[i]));  /* ASCII: UTF-16 length = bytes */
		wbuf_put(out, d.str[i], strlen(d.str[i]) + 1);
	}
	unsigned ci = 0;
	for (unsigned i = 0; i < m->nk; i++) {
		struct klass *k = &m->k[i];
		if (k->dex != dex)
			continue;
		k->class_def_idx = ci;
		cdata[ci++] = (uint32_t)out->len;
		uleb(out, k->n_sfields);
		uleb(out, k->n_ifields);
		uleb(out, k->n_methods ? 1 : 0);
		uleb(out, k->n_methods ? 1 : 0);
		for (int st = 1; st >= 0; st--) {       /* statics first, each list by field index */
			uint32_t prev = 0;
			bool first = true;
			for (unsigned q = 0; q < nf; q++) {
				if (fr[q].k != (int)i || fr[q].f->is_static != (bool)st)
					continue;
				uleb(out, first ? q : q - prev);
				uleb(out, st ? 0x0009 : 0x0001);        /* public static / public */
				prev = q;
				first = false;
			}
		}
		for (unsigned w = 0; k->n_methods && w < 2; w++) {     /* native: code_off 0 */
			uleb(out, k->method_idx[w]);
			uleb(out, method_flags[w]);
			uleb(out, 0);
		}
	}
	while (out->len % 4)
		wbuf_u8(out, 0);
	uint32_t off_map = (uint32_t)out->len;
	struct { uint16_t type; uint32_t n, off; } items[] = {
		{0x0000, 1, 0}, {0x0001, d.ns, off_str}, {0x0002, ntypes, off_type},
		{0x0003, nproto, off_proto}, {0x0004, nf, off_field}, {0x0005, nm, off_meth},
		{0x0006, nc, off_cdef}, {0x2002, d.ns, sdata[0]},
		{0x2000, nc, nc ? cdata[0] : 0}, {0x1000, 1, off_map}};
	unsigned nitems = 0;
	for (unsigned i = 0; i < sizeof(items) / sizeof(items[0]); i++)
		nitems += items[i].n != 0;
	wbuf_u32le(out, nitems);
	for (unsigned i = 0; i < sizeof(items) / sizeof(items[0]); i++) {
		if (!items[i].n)
			continue;
		wbuf_u16le(out, items[i].type);
		wbuf_u16le(out, 0);
		wbuf_u32le(out, items[i].n);
		wbuf_u32le(out, items[i].off);
	}
	if (out->failed) {
		xfree(sdata);
		xfree(cdata);
		goto fail;
	}
	/* ids */
	for (unsigned i = 0; i < d.ns; i++)
		patch32(out, off_str + 4 * i, sdata[i]);
	for (unsigned i = 0; i < ntypes; i++)
		patch32(out, off_type + 4 * i, types[i]);
	for (unsigned i = 0; i < nf; i++) {
		patch32(out, off_field + 8 * i, fr[i].cls | fr[i].type << 16);
		patch32(out, off_field + 8 * i + 4, fr[i].name);
	}
	if (nproto) {
		patch32(out, off_proto, str_idx(&d, "V"));
		patch32(out, off_proto + 4, TYPE_IDX("V"));
		patch32(out, off_proto + 8, 0);
	}
	for (unsigned i = 0; i < nm; i++) {
		patch32(out, off_meth + 8 * i, mr[i].cls);     /* class_idx, proto_idx 0 */
		patch32(out, off_meth + 8 * i + 4, mr[i].name);
	}
	xfree(mr);
	mr = NULL;
	ci = 0;
	for (unsigned i = 0; i < m->nk; i++) {
		struct klass *k = &m->k[i];
		if (k->dex != dex)
			continue;
		size_t o = off_cdef + 32 * ci;
		patch32(out, o, k->type_idx);
		patch32(out, o + 4, k->access_flags);
		patch32(out, o + 8, k->super >= 0 ? TYPE_IDX(m->k[k->super].descriptor) : 0xffffffffu);
		patch32(out, o + 12, 0);
		patch32(out, o + 16, 0xffffffffu);      /* no source file */
		patch32(out, o + 20, 0);
		patch32(out, o + 24, cdata[ci]);
		patch32(out, o + 28, 0);
		ci++;
	}
	xfree(sdata);
	xfree(cdata);
	/* header */
	memcpy(out->data, "dex\n035", 8);
	uint32_t hdr[] = {(uint32_t)out->len, 0x70, 0x12345678, 0, 0, off_map, d.ns, off_str, ntypes,
		off_type, nproto, nproto ? off_proto : 0, nf, nf ? off_field : 0, nm, nm ? off_meth : 0, nc, off_cdef,
		(uint32_t)out->len - off_data, off_data};
	for (unsigned i = 0; i < sizeof(hdr) / sizeof(hdr[0]); i++)
		patch32(out, 32 + 4 * i, hdr[i]);
	patch32(out, 8, adler32(out->data + 12, out->len - 12));
	xfree(types);
	xfree(fr);
	xfree(d.str);
	return 0;
fail:
	xfree(mr);
	xfree(types);
	xfree(fr);
	xfree(d.str);
	return -1;
}
