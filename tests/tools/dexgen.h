/* dexgen.h - builds small valid DEX / compact DEX / VDEX / OAT-ELF files for tests and fuzz
 * seeds (our own generator: nothing is copied from real files).
 *
 * A DEX is described by classes with fields and methods; the generator interns strings,
 * types, protos, fields and methods in the sorted order the DEX verifier wants (so Debian's
 * dexdump accepts the output), lays out code items, type lists, string data, class data and
 * the map, and fills the adler32 checksum (SHA-1 left zero; ART does not check it).
 * Header-only so that unit tests, fuzz helpers and tests/tools/mkseeds.c can share it. */
#ifndef ARTCARVE_DEXGEN_H
#define ARTCARVE_DEXGEN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "art/format/dex.h"
#include "carver/base/wbuf.h"

#define DG_FN static __attribute__((unused))
enum { DG_MAX = 256 };

struct dg_field { const char *name, *type; uint32_t flags; };            /* flags & 8 = static */
struct dg_method { const char *name, *ret; const char *params[4]; uint32_t flags; bool code;
		   uint32_t insns_units; /* code units of the body (>= 1), 0 = 1 */ };
struct dg_class { const char *desc, *super; uint32_t flags;
		  struct dg_field fields[8]; struct dg_method methods[8]; };
struct dg_spec { const struct dg_class *classes; size_t class_count; unsigned version; /* 35..40 */
		 bool compact; };

/* ---- interning tables ---- */
struct dg_strs { const char *v[DG_MAX]; size_t n; };
struct dg_proto { uint32_t shorty, ret, params[4], nparams; };
struct dg_member { uint32_t cls, name, type; };  /* type = field type or proto index */
struct dg_state {
	struct dg_strs s;
	uint32_t types[DG_MAX]; size_t ntypes;     /* string index of each type */
	struct dg_proto protos[DG_MAX]; size_t nprotos;
	struct dg_member fields[DG_MAX]; size_t nfields;
	struct dg_member methods[DG_MAX]; size_t nmethods;
	char shorties[DG_MAX][8];
};

DG_FN int dg_cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

DG_FN void dg_add_str(struct dg_strs *s, const char *v)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->v[i], v))
			return;
	if (s->n < DG_MAX)
		s->v[s->n++] = v;
}

DG_FN uint32_t dg_str(const struct dg_state *g, const char *v)
{
	for (size_t i = 0; i < g->s.n; i++)
		if (!strcmp(g->s.v[i], v))
			return (uint32_t)i;
	return 0;
}

DG_FN uint32_t dg_type(const struct dg_state *g, const char *desc)
{
	uint32_t si = dg_str(g, desc);
	for (size_t i = 0; i < g->ntypes; i++)
		if (g->types[i] == si)
			return (uint32_t)i;
	return 0;
}

DG_FN char dg_shorty_char(const char *t) { return t[0] == '[' ? 'L' : t[0]; }

DG_FN void dg_method_shorty(const struct dg_method *m, char *out)
{
	size_t n = 0;
	out[n++] = dg_shorty_char(m->ret);
	for (int i = 0; i < 4 && m->params[i]; i++)
		out[n++] = dg_shorty_char(m->params[i]);
	out[n] = 0;
}

DG_FN int dg_cmp_u32(uint32_t a, uint32_t b) { return a < b ? -1 : a > b; }

DG_FN int dg_cmp_proto(const void *pa, const void *pb)
{
	const struct dg_proto *a = pa, *b = pb;
	int c = dg_cmp_u32(a->ret, b->ret);
	for (uint32_t i = 0; !c && i < a->nparams && i < b->nparams; i++)
		c = dg_cmp_u32(a->params[i], b->params[i]);
	return c ? c : dg_cmp_u32(a->nparams, b->nparams);
}

DG_FN int dg_cmp_member(const void *pa, const void *pb)
{
	const struct dg_member *a = pa, *b = pb;
	int c = dg_cmp_u32(a->cls, b->cls);
	if (!c)
		c = dg_cmp_u32(a->name, b->name);
	return c ? c : dg_cmp_u32(a->type, b->type);
}

DG_FN struct dg_proto dg_make_proto(const struct dg_state *g, const struct dg_method *m, const char *shorty)
{
	struct dg_proto p;
	memset(&p, 0, sizeof(p));
	p.shorty = dg_str(g, shorty);
	p.ret = dg_type(g, m->ret);
	for (int i = 0; i < 4 && m->params[i]; i++)
		p.params[p.nparams++] = dg_type(g, m->params[i]);
	return p;
}

DG_FN uint32_t dg_proto_idx(const struct dg_state *g, const struct dg_proto *p)
{
	for (size_t i = 0; i < g->nprotos; i++)
		if (!dg_cmp_proto(&g->protos[i], p) && g->protos[i].shorty == p->shorty)
			return (uint32_t)i;
	return 0;
}

DG_FN uint32_t dg_member_idx(const struct dg_member *arr, size_t n, struct dg_member m)
{
	for (size_t i = 0; i < n; i++)
		if (!dg_cmp_member(&arr[i], &m))
			return (uint32_t)i;
	return 0;
}

DG_FN void dg_intern(struct dg_state *g, const struct dg_spec *sp)
{
	size_t shn = 0;

	memset(g, 0, sizeof(*g));
	for (size_t c = 0; c < sp->class_count; c++) {
		const struct dg_class *k = &sp->classes[c];
		dg_add_str(&g->s, k->desc);
		if (k->super)
			dg_add_str(&g->s, k->super);
		for (int f = 0; f < 8 && k->fields[f].name; f++) {
			dg_add_str(&g->s, k->fields[f].name);
			dg_add_str(&g->s, k->fields[f].type);
		}
		for (int m = 0; m < 8 && k->methods[m].name; m++) {
			const struct dg_method *mm = &k->methods[m];
			dg_add_str(&g->s, mm->name);
			dg_add_str(&g->s, mm->ret);
			for (int i = 0; i < 4 && mm->params[i]; i++)
				dg_add_str(&g->s, mm->params[i]);
			if (shn < DG_MAX) {
				dg_method_shorty(mm, g->shorties[shn]);
				dg_add_str(&g->s, g->shorties[shn++]);
			}
		}
	}
	qsort(g->s.v, g->s.n, sizeof(g->s.v[0]), dg_cmp_str);
	/* types: every string that is a descriptor, in string order */
	for (size_t i = 0; i < g->s.n; i++) {
		const char *v = g->s.v[i];
		bool is_type = false;
		for (size_t c = 0; c < sp->class_count && !is_type; c++) {
			const struct dg_class *k = &sp->classes[c];
			is_type = !strcmp(v, k->desc) || (k->super && !strcmp(v, k->super));
			for (int f = 0; f < 8 && k->fields[f].name && !is_type; f++)
				is_type = !strcmp(v, k->fields[f].type);
			for (int m = 0; m < 8 && k->methods[m].name && !is_type; m++) {
				is_type = !strcmp(v, k->methods[m].ret);
				for (int p = 0; p < 4 && k->methods[m].params[p] && !is_type; p++)
					is_type = !strcmp(v, k->methods[m].params[p]);
			}
		}
		if (is_type)
			g->types[g->ntypes++] = (uint32_t)i;
	}
	shn = 0;
	for (size_t c = 0; c < sp->class_count; c++) {
		const struct dg_class *k = &sp->classes[c];
		uint32_t ci = dg_type(g, k->desc);
		for (int f = 0; f < 8 && k->fields[f].name; f++) {
			struct dg_member fm = { ci, dg_str(g, k->fields[f].name), dg_type(g, k->fields[f].type) };
			g->fields[g->nfields++] = fm;
		}
		for (int m = 0; m < 8 && k->methods[m].name; m++) {
			struct dg_proto p = dg_make_proto(g, &k->methods[m], g->shorties[shn++]);
			bool dup = false;
			for (size_t i = 0; i < g->nprotos; i++)
				dup |= !dg_cmp_proto(&g->protos[i], &p);
			if (!dup)
				g->protos[g->nprotos++] = p;
		}
	}
	qsort(g->protos, g->nprotos, sizeof(g->protos[0]), dg_cmp_proto);
	shn = 0;
	for (size_t c = 0; c < sp->class_count; c++) {
		const struct dg_class *k = &sp->classes[c];
		for (int m = 0; m < 8 && k->methods[m].name; m++) {
			struct dg_proto p = dg_make_proto(g, &k->methods[m], g->shorties[shn++]);
			struct dg_member mm = { dg_type(g, k->desc), dg_str(g, k->methods[m].name), dg_proto_idx(g, &p) };
			g->methods[g->nmethods++] = mm;
		}
	}
	qsort(g->fields, g->nfields, sizeof(g->fields[0]), dg_cmp_member);
	qsort(g->methods, g->nmethods, sizeof(g->methods[0]), dg_cmp_member);
}

/* ---- byte helpers ---- */
DG_FN void dg_uleb(struct wbuf *b, uint32_t v)
{
	do {
		uint8_t x = v & 0x7f;
		v >>= 7;
		wbuf_u8(b, (uint8_t)(x | (v ? 0x80 : 0)));
	} while (v);
}
DG_FN void dg_align4(struct wbuf *b) { while (b->len % 4) wbuf_u8(b, 0); }
DG_FN void dg_put32(struct wbuf *b, size_t off, uint32_t v)
{
	b->data[off] = (uint8_t)v; b->data[off + 1] = (uint8_t)(v >> 8);
	b->data[off + 2] = (uint8_t)(v >> 16); b->data[off + 3] = (uint8_t)(v >> 24);
}
DG_FN void dg_put16(struct wbuf *b, size_t off, uint16_t v)
{
	b->data[off] = (uint8_t)v; b->data[off + 1] = (uint8_t)(v >> 8);
}

struct dg_map { uint16_t type; uint32_t size, off; };

/* method of class k, ordinal m, with its global method index and code offset */
struct dg_mref { uint32_t idx, flags, code_off; bool direct; };

DG_FN bool dg_is_direct(const struct dg_method *m)
{
	return (m->flags & (0x8 | 0x2)) || !strcmp(m->name, "<init>") || !strcmp(m->name, "<clinit>");
}

DG_FN int dg_cmp_mref(const void *pa, const void *pb)
{
	const struct dg_mref *a = pa, *b = pb;
	return dg_cmp_u32(a->idx, b->idx);
}
DG_FN int dg_cmp_fref(const void *pa, const void *pb) { return dg_cmp_mref(pa, pb); }

/* Builds the DEX (or cdex) into out.  Returns 0. */
DG_FN int dg_build(struct wbuf *out, const struct dg_spec *sp)
{
	static struct dg_state g;
	struct dg_map map[20];
	size_t nmap = 0, hsize = sp->compact ? CDEX_HEADER_SIZE : DEX_HEADER_SIZE;
	size_t off_str, off_type, off_proto, off_field, off_method, off_cdef, data_start, data_base;
	uint32_t proto_params_off[DG_MAX] = { 0 }, str_off[DG_MAX], class_data_off[DG_MAX] = { 0 };
	uint32_t code_off[DG_MAX] = { 0 };  /* by global method index */
	size_t shn = 0;

	dg_intern(&g, sp);
	wbuf_zeros(out, hsize);
	map[nmap++] = (struct dg_map){ DEX_TYPE_HEADER_ITEM, 1, 0 };
	off_str = out->len; wbuf_zeros(out, g.s.n * 4);
	off_type = out->len; wbuf_zeros(out, g.ntypes * 4);
	off_proto = out->len; wbuf_zeros(out, g.nprotos * 12);
	off_field = out->len; wbuf_zeros(out, g.nfields * 8);
	off_method = out->len; wbuf_zeros(out, g.nmethods * 8);
	off_cdef = out->len; wbuf_zeros(out, sp->class_count * 32);
	if (g.s.n) map[nmap++] = (struct dg_map){ DEX_TYPE_STRING_ID_ITEM, (uint32_t)g.s.n, (uint32_t)off_str };
	if (g.ntypes) map[nmap++] = (struct dg_map){ DEX_TYPE_TYPE_ID_ITEM, (uint32_t)g.ntypes, (uint32_t)off_type };
	if (g.nprotos) map[nmap++] = (struct dg_map){ DEX_TYPE_PROTO_ID_ITEM, (uint32_t)g.nprotos, (uint32_t)off_proto };
	if (g.nfields) map[nmap++] = (struct dg_map){ DEX_TYPE_FIELD_ID_ITEM, (uint32_t)g.nfields, (uint32_t)off_field };
	if (g.nmethods) map[nmap++] = (struct dg_map){ DEX_TYPE_METHOD_ID_ITEM, (uint32_t)g.nmethods, (uint32_t)off_method };
	if (sp->class_count) map[nmap++] = (struct dg_map){ DEX_TYPE_CLASS_DEF_ITEM, (uint32_t)sp->class_count, (uint32_t)off_cdef };
	dg_align4(out);
	data_start = out->len;
	/* compact dex: data offsets are relative to data_off; the data section follows the ids */
	data_base = sp->compact ? data_start : 0;

	/* code items */
	{
		uint32_t count = 0, first = 0;
		for (size_t c = 0; c < sp->class_count; c++) {
			const struct dg_class *k = &sp->classes[c];
			for (int m = 0; m < 8 && k->methods[m].name; m++) {
				const struct dg_method *mm = &k->methods[m];
				struct dg_proto p = dg_make_proto(&g, mm, g.shorties[shn++]);
				struct dg_member key = { dg_type(&g, k->desc), dg_str(&g, mm->name), dg_proto_idx(&g, &p) };
				uint32_t mi = dg_member_idx(g.methods, g.nmethods, key);
				uint16_t ins = (uint16_t)(p.nparams + ((mm->flags & 0x8) ? 0 : 1));
				uint32_t units = mm->insns_units ? mm->insns_units : 1;
				if (!mm->code)
					continue;
				for (uint32_t i = 0; i < p.nparams; i++) {
					const char *t = g.s.v[g.types[p.params[i]]];
					if (t[0] == 'J' || t[0] == 'D')
						ins++;
				}
				if (sp->compact) {
					/* fields: regs(excl. ins) | ins | outs | tries; insns count in the top 11 bits;
					 * counts >= 2^11 go to the pre-header (low unit nearest the item) */
					uint32_t masked = units & 0x7ff, rest = units - masked;
					dg_align4(out);
					if (rest) {
						wbuf_u16le(out, (uint16_t)(rest >> 16));
						wbuf_u16le(out, (uint16_t)rest);
					}
					if (!count) first = (uint32_t)out->len;
					code_off[mi] = (uint32_t)(out->len - data_base);
					wbuf_u16le(out, (uint16_t)((ins & 0xf) << 8));
					wbuf_u16le(out, (uint16_t)(masked << 5 | (rest ? 0x10 : 0)));
				} else {
					dg_align4(out);
					if (!count) first = (uint32_t)out->len;
					code_off[mi] = (uint32_t)out->len;
					wbuf_u16le(out, ins); wbuf_u16le(out, ins); wbuf_u16le(out, 0); wbuf_u16le(out, 0);
					wbuf_u32le(out, 0); wbuf_u32le(out, units);
				}
				for (uint32_t u = 1; u < units; u++)
					wbuf_u16le(out, 0x0000);  /* nop */
				wbuf_u16le(out, !strcmp(mm->ret, "V") ? 0x000e : 0x000e);  /* return-void */
				count++;
			}
		}
		if (count)
			map[nmap++] = (struct dg_map){ DEX_TYPE_CODE_ITEM, count, (uint32_t)(first - data_base) };
	}
	/* type lists for protos with parameters */
	{
		uint32_t count = 0, first = 0;
		for (size_t i = 0; i < g.nprotos; i++) {
			if (!g.protos[i].nparams)
				continue;
			dg_align4(out);
			if (!count) first = (uint32_t)out->len;
			proto_params_off[i] = (uint32_t)(out->len - data_base);
			wbuf_u32le(out, g.protos[i].nparams);
			for (uint32_t p = 0; p < g.protos[i].nparams; p++)
				wbuf_u16le(out, (uint16_t)g.protos[i].params[p]);
			count++;
		}
		if (count)
			map[nmap++] = (struct dg_map){ DEX_TYPE_TYPE_LIST, count, (uint32_t)(first - data_base) };
	}
	/* string data */
	if (g.s.n) {
		uint32_t first = (uint32_t)out->len;
		for (size_t i = 0; i < g.s.n; i++) {
			str_off[i] = (uint32_t)(out->len - data_base);
			dg_uleb(out, (uint32_t)strlen(g.s.v[i]));
			wbuf_put(out, g.s.v[i], strlen(g.s.v[i]) + 1);
		}
		map[nmap++] = (struct dg_map){ DEX_TYPE_STRING_DATA_ITEM, (uint32_t)g.s.n, (uint32_t)(first - data_base) };
	}
	/* class data */
	{
		uint32_t count = 0, first = 0;
		for (size_t c = 0; c < sp->class_count; c++) {
			const struct dg_class *k = &sp->classes[c];
			struct dg_mref sf[8], inf[8], dm[8], vm[8];
			uint32_t nsf = 0, nif = 0, ndm = 0, nvm = 0, prev;
			uint32_t ci = dg_type(&g, k->desc);
			for (int f = 0; f < 8 && k->fields[f].name; f++) {
				struct dg_member key = { ci, dg_str(&g, k->fields[f].name), dg_type(&g, k->fields[f].type) };
				struct dg_mref r = { dg_member_idx(g.fields, g.nfields, key), k->fields[f].flags, 0, false };
				if (k->fields[f].flags & 0x8) sf[nsf++] = r; else inf[nif++] = r;
			}
			for (int m = 0; m < 8 && k->methods[m].name; m++) {
				const struct dg_method *mm = &k->methods[m];
				char shorty[8];
				struct dg_proto p;
				struct dg_member key;
				struct dg_mref r;
				dg_method_shorty(mm, shorty);
				p = dg_make_proto(&g, mm, shorty);
				p.shorty = dg_str(&g, shorty);
				key = (struct dg_member){ ci, dg_str(&g, mm->name), dg_proto_idx(&g, &p) };
				r = (struct dg_mref){ dg_member_idx(g.methods, g.nmethods, key), mm->flags, 0, dg_is_direct(mm) };
				r.code_off = code_off[r.idx];
				if (r.direct) dm[ndm++] = r; else vm[nvm++] = r;
			}
			if (!nsf && !nif && !ndm && !nvm)
				continue;
			qsort(sf, nsf, sizeof(sf[0]), dg_cmp_fref);
			qsort(inf, nif, sizeof(inf[0]), dg_cmp_fref);
			qsort(dm, ndm, sizeof(dm[0]), dg_cmp_mref);
			qsort(vm, nvm, sizeof(vm[0]), dg_cmp_mref);
			if (!count) first = (uint32_t)out->len;
			class_data_off[c] = (uint32_t)(out->len - data_base);
			dg_uleb(out, nsf); dg_uleb(out, nif); dg_uleb(out, ndm); dg_uleb(out, nvm);
			prev = 0; for (uint32_t i = 0; i < nsf; i++) { dg_uleb(out, sf[i].idx - prev); dg_uleb(out, sf[i].flags); prev = sf[i].idx; }
			prev = 0; for (uint32_t i = 0; i < nif; i++) { dg_uleb(out, inf[i].idx - prev); dg_uleb(out, inf[i].flags); prev = inf[i].idx; }
			prev = 0; for (uint32_t i = 0; i < ndm; i++) { dg_uleb(out, dm[i].idx - prev); dg_uleb(out, dm[i].flags); dg_uleb(out, dm[i].code_off); prev = dm[i].idx; }
			prev = 0; for (uint32_t i = 0; i < nvm; i++) { dg_uleb(out, vm[i].idx - prev); dg_uleb(out, vm[i].flags); dg_uleb(out, vm[i].code_off); prev = vm[i].idx; }
			count++;
		}
		if (count)
			map[nmap++] = (struct dg_map){ DEX_TYPE_CLASS_DATA_ITEM, count, (uint32_t)(first - data_base) };
	}
	/* compact dex: an all-empty debug info offset table (one block bitmap per 16 methods) */
	if (sp->compact) {
		size_t pos, table;
		dg_align4(out);
		pos = out->len;
		for (size_t i = 0; i < (g.nmethods + 15) / 16; i++)
			wbuf_u16le(out, 0);
		dg_align4(out);
		table = out->len;
		for (size_t i = 0; i < (g.nmethods + 15) / 16; i++)
			wbuf_u32le(out, (uint32_t)(i * 2));
		dg_put32(out, 116, (uint32_t)(pos - data_base));     /* debug_info_offsets_pos */
		dg_put32(out, 120, (uint32_t)(table - pos));         /* ..._table_offset */
		dg_put32(out, 124, 0);                               /* debug_info_base */
	}
	/* map list */
	dg_align4(out);
	{
		uint32_t map_off = (uint32_t)(out->len - data_base);
		map[nmap++] = (struct dg_map){ DEX_TYPE_MAP_LIST, 1, map_off };
		wbuf_u32le(out, (uint32_t)nmap);
		for (size_t i = 0; i < nmap; i++) {
			wbuf_u16le(out, map[i].type); wbuf_u16le(out, 0);
			wbuf_u32le(out, map[i].size); wbuf_u32le(out, map[i].off);
		}
		if (out->failed)
			return -1;
		dg_put32(out, 52, map_off);
	}
	/* fill the id tables */
	for (size_t i = 0; i < g.s.n; i++) dg_put32(out, off_str + i * 4, str_off[i]);
	for (size_t i = 0; i < g.ntypes; i++) dg_put32(out, off_type + i * 4, g.types[i]);
	for (size_t i = 0; i < g.nprotos; i++) {
		dg_put32(out, off_proto + i * 12, g.protos[i].shorty);
		dg_put32(out, off_proto + i * 12 + 4, g.protos[i].ret);
		dg_put32(out, off_proto + i * 12 + 8, proto_params_off[i]);
	}
	for (size_t i = 0; i < g.nfields; i++) {
		dg_put16(out, off_field + i * 8, (uint16_t)g.fields[i].cls);
		dg_put16(out, off_field + i * 8 + 2, (uint16_t)g.fields[i].type);
		dg_put32(out, off_field + i * 8 + 4, g.fields[i].name);
	}
	for (size_t i = 0; i < g.nmethods; i++) {
		dg_put16(out, off_method + i * 8, (uint16_t)g.methods[i].cls);
		dg_put16(out, off_method + i * 8 + 2, (uint16_t)g.methods[i].type);
		dg_put32(out, off_method + i * 8 + 4, g.methods[i].name);
	}
	for (size_t c = 0; c < sp->class_count; c++) {
		const struct dg_class *k = &sp->classes[c];
		size_t o = off_cdef + c * 32;
		dg_put32(out, o, dg_type(&g, k->desc));
		dg_put32(out, o + 4, k->flags);
		dg_put16(out, o + 8, k->super ? (uint16_t)dg_type(&g, k->super) : DEX_NO_INDEX16);
		dg_put32(out, o + 16, DEX_NO_INDEX);  /* source_file_idx */
		dg_put32(out, o + 24, class_data_off[c]);
	}
	/* header */
	if (sp->compact)
		memcpy(out->data, "cdex001", 8);
	else {
		unsigned v = sp->version ? sp->version : 35;
		memcpy(out->data, "dex\n035", 8);
		out->data[5] = (uint8_t)('0' + v / 10);
		out->data[6] = (uint8_t)('0' + v % 10);
	}
	dg_put32(out, 36, (uint32_t)hsize);
	dg_put32(out, 40, DEX_ENDIAN_CONSTANT);
	dg_put32(out, 56, (uint32_t)g.s.n); dg_put32(out, 60, g.s.n ? (uint32_t)off_str : 0);
	dg_put32(out, 64, (uint32_t)g.ntypes); dg_put32(out, 68, g.ntypes ? (uint32_t)off_type : 0);
	dg_put32(out, 72, (uint32_t)g.nprotos); dg_put32(out, 76, g.nprotos ? (uint32_t)off_proto : 0);
	dg_put32(out, 80, (uint32_t)g.nfields); dg_put32(out, 84, g.nfields ? (uint32_t)off_field : 0);
	dg_put32(out, 88, (uint32_t)g.nmethods); dg_put32(out, 92, g.nmethods ? (uint32_t)off_method : 0);
	dg_put32(out, 96, (uint32_t)sp->class_count); dg_put32(out, 100, sp->class_count ? (uint32_t)off_cdef : 0);
	if (sp->compact) {
		/* file_size covers the ids; the data section follows at data_off */
		dg_put32(out, 32, (uint32_t)data_start);
		dg_put32(out, 104, (uint32_t)(out->len - data_start));
		dg_put32(out, 108, (uint32_t)data_start);
		dg_put32(out, 128, 0);
		dg_put32(out, 132, (uint32_t)(out->len - data_start));
	} else {
		dg_put32(out, 32, (uint32_t)out->len);
		dg_put32(out, 104, (uint32_t)(out->len - data_start));
		dg_put32(out, 108, (uint32_t)data_start);
	}
	{
		struct dex d;
		struct cursor c;
		uint32_t ck = 0;
		cur_init(&c, out->data, out->len, 0);
		if (dex_load(&d, &c, NULL) != 0)
			return -1;
		dex_verify_checksum(&d, &ck, NULL);
		dg_put32(out, 8, ck);
	}
	return out->failed ? -1 : 0;
}


/* ---- VDEX (see art/format/vdex.h for the layouts) ----
 * dex[i]/dex_len[i]: files to embed (with_dex false: only their checksums, as 021/027 do for
 * dex files kept in the APK).  A compact dex must be the only one: its data section becomes
 * the shared data after the dex section. */
DG_FN uint32_t dg_rd32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }

DG_FN int dg_vdex(struct wbuf *out, unsigned version, const uint8_t *const *dex, const size_t *dex_len,
		  size_t n, bool with_dex)
{
	size_t base = out->len, dsh = 0, sec = 0, dex_begin, dex_end, shared_end, deps;
	bool split = version == 19 || version == 21, legacy = version == 6 || version == 10;
	char v[4] = { (char)('0' + version / 100), (char)('0' + version / 10 % 10), (char)('0' + version % 10), 0 };

	wbuf_put(out, "vdex", 4);
	wbuf_put(out, v, 4);
	if (legacy) {
		wbuf_u32le(out, (uint32_t)n);
		wbuf_zeros(out, 12);              /* dex_size, verifier_deps_size, quickening_info_size */
	} else if (split) {
		wbuf_put(out, with_dex ? "002" : "000", 4);
		wbuf_u32le(out, (uint32_t)n);
		wbuf_zeros(out, version == 21 ? 12 : 4);  /* deps size (+ bcp checksums, clc sizes) */
	} else {
		wbuf_u32le(out, 4);               /* number_of_sections */
		sec = out->len;
		for (uint32_t k = 0; k < 4; k++) { wbuf_u32le(out, k); wbuf_zeros(out, 8); }
	}
	if (sec) { dg_put32(out, sec + 4, (uint32_t)(out->len - base)); dg_put32(out, sec + 8, (uint32_t)(4 * n)); }
	for (size_t i = 0; i < n; i++)
		wbuf_u32le(out, dg_rd32(dex[i] + 8));
	if (split && with_dex) { dsh = out->len; wbuf_zeros(out, 12); }
	dex_begin = out->len;
	shared_end = 0;
	for (size_t i = 0; with_dex && i < n; i++) {
		size_t fs = dg_rd32(dex[i] + 32);
		if (split)
			wbuf_u32le(out, 0);       /* quickening table offset */
		wbuf_put(out, dex[i], fs < dex_len[i] ? fs : dex_len[i]);
		if (!legacy)
			dg_align4(out);
	}
	dex_end = out->len;
	for (size_t i = 0; with_dex && i < n; i++)    /* cdex data section -> shared data */
		if (dex_len[i] > dg_rd32(dex[i] + 32))
			wbuf_put(out, dex[i] + dg_rd32(dex[i] + 32), dex_len[i] - dg_rd32(dex[i] + 32));
	shared_end = out->len;
	deps = out->len;
	wbuf_zeros(out, 4);                       /* verifier deps: 4 zero bytes */
	if (out->failed)
		return -1;
	if (legacy) {
		dg_put32(out, base + 12, (uint32_t)(dex_end - dex_begin));
		dg_put32(out, base + 16, 4);
	} else if (split) {
		dg_put32(out, base + 16, 4);
		if (dsh) {
			dg_put32(out, dsh, (uint32_t)(dex_end - dex_begin));
			dg_put32(out, dsh + 4, (uint32_t)(shared_end - dex_end));
		}
	} else {
		dg_put32(out, sec + 12 + 4, (uint32_t)(dex_begin - base));
		dg_put32(out, sec + 12 + 8, (uint32_t)(with_dex ? shared_end - dex_begin : 0));
		dg_put32(out, sec + 24 + 4, (uint32_t)(deps - base));
		dg_put32(out, sec + 24 + 8, 4);
		dg_put32(out, sec + 36 + 4, (uint32_t)(out->len - base));
	}
	return 0;
}

/* ---- OAT in a minimal ELF (our layout: one PT_LOAD, .dynstr/.dynsym/.rodata/.text) ---- */
struct dg_oat_spec {
	unsigned version, isa, bits;   /* OAT version, InstructionSet value, 32/64 */
	const uint8_t *const *dex; const size_t *dex_len; size_t n;
	const uint32_t *vdex_offsets;  /* 124+: dex_file_offset of each dex inside the VDEX (NULL: 0) */
	const char *kv;                /* "k1\0v1\0k2\0v2\0", kv_len bytes */
	size_t kv_len;
};

/* number of u32 OatHeader fields after the version, and where the optional ones sit
 * (independent restatement of runtime/oat.h per release, used as the test oracle) */
DG_FN unsigned dg_oat_hfields(unsigned v, bool *odf, bool *bcp)
{
	*odf = v >= 127;
	*bcp = v >= 225;
	if (v <= 45) return 19;
	if (v < 127) return 16;
	if (v < 162) return 17;
	if (v < 170) return 15;
	if (v < 180) return 12;
	if (v < 190) return 13;
	if (v < 225) return 14;
	return 15;
}

DG_FN void dg_oat_record(struct wbuf *b, const struct dg_oat_spec *o, size_t i, uint32_t dex_off,
			 uint32_t cls_off, uint32_t class_count)
{
	unsigned v = o->version;
	char loc[40];
	int n = snprintf(loc, sizeof(loc), "/system/framework/test%zu.jar", i);

	wbuf_u32le(b, (uint32_t)n);
	wbuf_put(b, loc, (size_t)n);
	if (v >= 233) wbuf_put(b, o->dex[i], 8);
	wbuf_u32le(b, dg_rd32(o->dex[i] + 8));
	if (v >= 233) wbuf_zeros(b, 20);
	wbuf_u32le(b, dex_off);
	if (v < 75) {
		for (uint32_t c = 0; c < class_count; c++) wbuf_u32le(b, 0);
		return;
	}
	wbuf_u32le(b, cls_off);
	wbuf_u32le(b, 0);                      /* lookup table */
	if (v >= 127) wbuf_zeros(b, 8);        /* dex layout sections, method bss */
	if (v >= 135) wbuf_zeros(b, 8);        /* type, string bss */
	if (v >= 186) wbuf_zeros(b, 8);        /* public, package type bss */
}

DG_FN int dg_oat_elf(struct wbuf *out, const struct dg_oat_spec *o)
{
	struct wbuf rod;
	bool odf, bcp, is64 = o->bits == 64;
	unsigned nf = dg_oat_hfields(o->version, &odf, &bcp);
	size_t ehsz = is64 ? 64 : 52, phsz = is64 ? 56 : 32, shsz = is64 ? 64 : 40, symsz = is64 ? 24 : 16;
	size_t rec_start, cls_tables[8] = { 0 }, dex_offs[8] = { 0 }, rod_off, text_off, text_len = 16;
	size_t dynstr_off, dynsym_off, shstr_off, sh_off;
	static const char dynstr[] = "\0oatdata\0oatexec\0oatlastword";
	static const char shstr[] = "\0.dynstr\0.dynsym\0.rodata\0.text\0.shstrtab";
	uint32_t counts[8];
	char ver[5];

	if (o->n > 8)
		return -1;
	wbuf_init(&rod);
	snprintf(ver, sizeof(ver), "%03u", o->version);
	wbuf_put(&rod, "oat\n", 4);
	wbuf_put(&rod, ver, 4);
	wbuf_zeros(&rod, nf * 4);
	dg_put32(&rod, 12, o->isa);
	dg_put32(&rod, 20, (uint32_t)o->n);
	dg_put32(&rod, 8 + (nf - 1) * 4, (uint32_t)o->kv_len);
	wbuf_put(&rod, o->kv, o->kv_len);
	for (size_t i = 0; i < o->n; i++)
		counts[i] = dg_rd32(o->dex[i] + 96);
	/* without oat_dex_files_offset the records follow the key/value store: reserve them;
	 * < 124 the dex files follow inside oatdata; then the class offset tables */
	rec_start = rod.len;
	if (!odf) {
		struct wbuf tmp;
		wbuf_init(&tmp);
		for (size_t i = 0; i < o->n; i++)
			dg_oat_record(&tmp, o, i, 0, 0, counts[i]);
		wbuf_zeros(&rod, tmp.len);
		wbuf_release(&tmp);
	}
	for (size_t i = 0; o->version < 124 && i < o->n; i++) {
		dg_align4(&rod);
		dex_offs[i] = rod.len;
		wbuf_put(&rod, o->dex[i], o->dex_len[i]);
	}
	for (size_t i = 0; o->version >= 75 && i < o->n; i++) {
		dg_align4(&rod);
		cls_tables[i] = rod.len;
		for (uint32_t c = 0; c < counts[i]; c++)
			wbuf_u32le(&rod, 0);
	}
	if (odf) {
		dg_align4(&rod);
		rec_start = rod.len;
	}
	{
		struct wbuf recs;
		wbuf_init(&recs);
		for (size_t i = 0; i < o->n; i++)
			dg_oat_record(&recs, o, i, o->version >= 124 ? (o->vdex_offsets ? o->vdex_offsets[i] : 0)
							  : (uint32_t)dex_offs[i],
				      (uint32_t)cls_tables[i], counts[i]);
		if (odf) wbuf_put(&rod, recs.data, recs.len);
		else if (!rod.failed) memcpy(rod.data + rec_start, recs.data, recs.len);
		wbuf_release(&recs);
	}
	if (odf) dg_put32(&rod, 24, (uint32_t)rec_start);
	if (rod.failed) return wbuf_release(&rod), -1;

	/* ELF: ehdr, phdr, .dynstr, .dynsym, .rodata (oatdata), .text (oatexec), .shstrtab, shdrs */
	wbuf_zeros(out, ehsz + phsz);
	dynstr_off = out->len; wbuf_put(out, dynstr, sizeof(dynstr));
	while (out->len % 8) wbuf_u8(out, 0);
	dynsym_off = out->len; wbuf_zeros(out, symsz * 4);
	while (out->len % 16) wbuf_u8(out, 0);
	rod_off = out->len; wbuf_put(out, rod.data, rod.len);
	while (out->len % 16) wbuf_u8(out, 0);
	text_off = out->len; wbuf_zeros(out, text_len);
	dg_put32(out, rod_off + 8 + 4 * (odf ? (bcp ? 6 : 5) : 4), (uint32_t)(text_off - rod_off)); /* executable_offset */
	shstr_off = out->len; wbuf_put(out, shstr, sizeof(shstr));
	while (out->len % 8) wbuf_u8(out, 0);
	sh_off = out->len; wbuf_zeros(out, shsz * 6);
	wbuf_release(&rod);
	if (out->failed) return -1;
	{
		uint8_t *e = out->data;
		uint16_t machine = o->isa == 2 ? 183 : o->isa == 5 ? (o->version >= 230 ? 3 : 62)
				 : o->isa == 4 ? (o->version >= 230 ? 243 : 3) : o->isa == 6 ? 62 : 40;
		memcpy(e, "\177ELF", 4);
		e[4] = is64 ? 2 : 1; e[5] = 1; e[6] = 1;
		dg_put16(out, 16, 3); dg_put16(out, 18, machine); dg_put32(out, 20, 1);
		if (is64) {
			dg_put32(out, 32, (uint32_t)ehsz); dg_put32(out, 40, (uint32_t)sh_off);
			dg_put16(out, 52, (uint16_t)ehsz); dg_put16(out, 54, (uint16_t)phsz); dg_put16(out, 56, 1);
			dg_put16(out, 58, (uint16_t)shsz); dg_put16(out, 60, 6); dg_put16(out, 62, 5);
			/* PT_LOAD R+X over the whole file, vaddr = offset */
			dg_put32(out, ehsz, 1); dg_put32(out, ehsz + 4, 5);
			dg_put32(out, ehsz + 32, (uint32_t)out->len); dg_put32(out, ehsz + 40, (uint32_t)out->len);
			dg_put32(out, ehsz + 48, 16);
		} else {
			dg_put32(out, 28, (uint32_t)ehsz); dg_put32(out, 32, (uint32_t)sh_off);
			dg_put16(out, 40, (uint16_t)ehsz); dg_put16(out, 42, (uint16_t)phsz); dg_put16(out, 44, 1);
			dg_put16(out, 46, (uint16_t)shsz); dg_put16(out, 48, 6); dg_put16(out, 50, 5);
			dg_put32(out, ehsz, 1);
			dg_put32(out, ehsz + 16, (uint32_t)out->len); dg_put32(out, ehsz + 20, (uint32_t)out->len);
			dg_put32(out, ehsz + 24, 5); dg_put32(out, ehsz + 28, 16);
		}
		/* symbols 1..3: oatdata, oatexec, oatlastword (name offsets in dynstr) */
		{
			const uint32_t name[3] = { 1, 9, 17 };
			const size_t val[3] = { rod_off, text_off, text_off + text_len - 4 };
			const size_t sz[3] = { text_off - rod_off, text_len, 4 };
			for (int i = 0; i < 3; i++) {
				size_t s = dynsym_off + (size_t)(i + 1) * symsz;
				dg_put32(out, s, name[i]);
				if (is64) {
					e[s + 4] = 0x11; dg_put16(out, s + 6, i == 0 ? 3 : 4);
					dg_put32(out, s + 8, (uint32_t)val[i]); dg_put32(out, s + 16, (uint32_t)sz[i]);
				} else {
					dg_put32(out, s + 4, (uint32_t)val[i]); dg_put32(out, s + 8, (uint32_t)sz[i]);
					e[s + 12] = 0x11; dg_put16(out, s + 14, i == 0 ? 3 : 4);
				}
			}
		}
		/* section headers: 0 null, 1 .dynstr, 2 .dynsym, 3 .rodata, 4 .text, 5 .shstrtab */
		{
			const uint32_t nm[6] = { 0, 1, 9, 17, 25, 31 }, ty[6] = { 0, 3, 11, 1, 1, 3 };
			const size_t of[6] = { 0, dynstr_off, dynsym_off, rod_off, text_off, shstr_off };
			const size_t ln[6] = { 0, sizeof(dynstr), symsz * 4, text_off - rod_off, text_len, sizeof(shstr) };
			for (int i = 1; i < 6; i++) {
				size_t h = sh_off + (size_t)i * shsz;
				dg_put32(out, h, nm[i]); dg_put32(out, h + 4, ty[i]);
				if (is64) {
					dg_put32(out, h + 8, i == 3 ? 2 : i == 4 ? 6 : i == 2 || i == 1 ? 2 : 0);
					dg_put32(out, h + 16, i == 5 ? 0 : (uint32_t)of[i]);
					dg_put32(out, h + 24, (uint32_t)of[i]); dg_put32(out, h + 32, (uint32_t)ln[i]);
					if (i == 2) { dg_put32(out, h + 40, 1); dg_put32(out, h + 44, 1); dg_put32(out, h + 56, (uint32_t)symsz); }
					dg_put32(out, h + 48, i == 2 ? 8 : 1);
				} else {
					dg_put32(out, h + 8, i == 3 ? 2 : i == 4 ? 6 : i == 2 || i == 1 ? 2 : 0);
					dg_put32(out, h + 12, i == 5 ? 0 : (uint32_t)of[i]);
					dg_put32(out, h + 16, (uint32_t)of[i]); dg_put32(out, h + 20, (uint32_t)ln[i]);
					if (i == 2) { dg_put32(out, h + 24, 1); dg_put32(out, h + 28, 1); dg_put32(out, h + 36, (uint32_t)symsz); }
					dg_put32(out, h + 32, i == 2 ? 4 : 1);
				}
			}
		}
	}
	return 0;
}

/* A ready-made two-class spec used by the unit tests and seeds. */
static const struct dg_class dg_sample_classes[] __attribute__((unused)) = {
	{ "Lcom/example/Hello;", "Ljava/lang/Object;", 0x401,
	  { { "count", "I", 0x2 }, { "name", "Ljava/lang/String;", 0x2 }, { "TOTAL", "J", 0x9 } },
	  { { "<init>", "V", { NULL }, 0x10001, true, 0 },
	    { "greet", "Ljava/lang/String;", { "I", "Ljava/lang/String;" }, 0x1, true, 3 },
	    { "sum", "J", { "J", "I" }, 0x9, true, 0 },
	    { "run", "V", { NULL }, 0x401, false, 0 } } },
	{ "Lcom/example/World;", "Lcom/example/Hello;", 0x11,
	  { { "data", "[B", 0x12 } },
	  { { "<init>", "V", { NULL }, 0x10001, true, 0 },
	    { "run", "V", { NULL }, 0x1, true, 2100 } } },
};

#endif
