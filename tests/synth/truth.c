/* truth.c - the ground truth: truth.jsonl (one object a line), truth.json (summary: spaces,
 * mappings, classes) and README, all rendered from the generator's own records. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "carver/base/hash.h"
#include "carver/base/outfile.h"
#include "carver/base/xalloc.h"
#include "tests/synth/synth.h"
#include "tests/synth/alloc.h"

static const char *const alloc_names[] = {"allocated", "free"};
static const char *const content_names[] = {"intact", "partial", "residue"};
static const char *const reach_names[] = {"reachable", "unreachable"};

static void json_utf16(struct wbuf *b, const uint16_t *s, uint32_t n)
{
	wbuf_u8(b, '"');
	for (uint32_t i = 0; i < n; i++) {
		uint32_t c = s[i];
		if (c == '"' || c == '\\')
			wbuf_printf(b, "\\%c", (char)c);
		else if (c < 0x20 || (c >= 0xd800 && c < 0xe000))
			wbuf_printf(b, "\\u%04x", c);
		else
			wbuf_utf8(b, c);
	}
	wbuf_u8(b, '"');
}

static void json_str(struct wbuf *b, const char *s)
{
	wbuf_u8(b, '"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			wbuf_u8(b, '\\');
		wbuf_u8(b, (uint8_t)*s);
	}
	wbuf_u8(b, '"');
}

static void value(struct wbuf *b, struct model *m, uint64_t a, const char *type)
{
	struct vm *v = &m->vm;
	switch (type[0]) {
	case 'Z': wbuf_printf(b, "%s", vm_r8(v, a) ? "true" : "false"); break;
	case 'B': wbuf_printf(b, "%d", (int8_t)vm_r8(v, a)); break;
	case 'C': wbuf_printf(b, "%u", vm_r16(v, a)); break;
	case 'S': wbuf_printf(b, "%d", (int16_t)vm_r16(v, a)); break;
	case 'I': wbuf_printf(b, "%d", (int32_t)vm_r32(v, a)); break;
	case 'J': wbuf_printf(b, "%lld", (long long)vm_r64(v, a)); break;
	case 'F': { uint32_t x = vm_r32(v, a); float f; memcpy(&f, &x, 4); wbuf_printf(b, "%.9g", (double)f); break; }
	case 'D': { uint64_t x = vm_r64(v, a); double d; memcpy(&d, &x, 8); wbuf_printf(b, "%.17g", d); break; }
	default: {
		uint32_t r = vm_r32(v, a);
		if (r)
			wbuf_printf(b, "\"0x%x\"", r);
		else
			wbuf_printf(b, "null");
	}
	}
}

static const char *kind_name(const struct model *m, const struct obj *o)
{
	switch (m->k[o->cls].kind) {
	case CK_CLASS: return "class";
	case CK_STRING: return "string";
	case CK_PRIM_ARRAY: return "primitive-array";
	case CK_OBJ_ARRAY: return "object-array";
	default: return "instance";
	}
}

static int class_of_obj(const struct model *m, const struct obj *o)
{
	for (unsigned i = 0; i < m->nk; i++)
		if (m->k[i].addr == o->addr && m->k[o->cls].kind == CK_CLASS)
			return (int)i;
	return -1;
}

static void fields_json(struct wbuf *b, struct model *m, uint64_t addr, int cls, uint32_t size)
{
	int chain[16], n = 0;
	bool first = true;
	for (int c = cls; c >= 0 && n < 16; c = m->k[c].super)
		chain[n++] = c;
	wbuf_printf(b, ",\"fields\":[");
	while (n-- > 0) {
		const struct klass *k = &m->k[chain[n]];
		for (unsigned i = 0; i < k->n_ifields; i++) {
			const struct kfield *f = &k->ifields[i];
			if (f->offset + klass_type_size(f->type) > size)
				continue;
			wbuf_printf(b, "%s{\"name\":", first ? "" : ",");
			json_str(b, f->name);
			wbuf_printf(b, ",\"type\":");
			json_str(b, f->type);
			wbuf_printf(b, ",\"offset\":%u,\"value\":", f->offset);
			value(b, m, addr + f->offset, f->type);
			wbuf_u8(b, '}');
			first = false;
		}
	}
	wbuf_u8(b, ']');
}

/* The object's contents (everything but the allocator states). */
static void payload(struct wbuf *b, struct model *m, int oi)
{
	struct obj *o = &m->o[oi];
	struct klass *k = &m->k[o->cls];
	struct vm *v = &m->vm;

	if (k->kind == CK_PRIM_ARRAY || k->kind == CK_OBJ_ARRAY) {
		char elem = k->kind == CK_OBJ_ARRAY ? 'L' : m->k[k->component].prim;
		unsigned es = elem == 'L' ? 4 : klass_type_size((char[]){elem, 0});
		uint64_t d = o->addr + array_data_off(elem);
		uint8_t *p = vm_ptr(v, d, (uint64_t)es * o->length);
		wbuf_printf(b, ",\"length\":%u,\"element_type\":\"%s\",\"data_fnv1a64\":\"%016llx\"", o->length,
			    elem == 'L' ? m->k[k->component].descriptor : (char[]){elem, 0},
			    (unsigned long long)(p ? hash_fnv1a64(p, (size_t)es * o->length) : 0));
		if (o->length <= 16) {
			wbuf_printf(b, ",\"elements\":[");
			for (uint32_t i = 0; i < o->length; i++) {
				if (i)
					wbuf_u8(b, ',');
				value(b, m, d + (uint64_t)i * es, elem == 'L' ? "L" : (char[]){elem, 0});
			}
			wbuf_u8(b, ']');
		}
		return;
	}
	fields_json(b, m, o->addr, o->cls, o->size);
	if (k->kind == CK_STRING) {
		uint16_t *tmp = xcalloc(o->length + 1, 2);
		uint64_t base = o->addr + 16;
		if (m->fam->str == FAM_STR_ARRAY)
			base = vm_r32(v, o->addr + 8) + 12;
		for (uint32_t i = 0; tmp && i < o->length; i++)
			tmp[i] = o->compressed ? vm_r8(v, base + i) : vm_r16(v, base + 2 * i);
		wbuf_printf(b, ",\"length\":%u,\"compressed\":%s,\"string\":", o->length, o->compressed ? "true" : "false");
		if (tmp)
			json_utf16(b, tmp, o->length);
		xfree(tmp);
	}
	int ck = class_of_obj(m, o);
	if (ck >= 0) {
		char name[200];
		klass_java_name(m, ck, name, sizeof(name));
		wbuf_printf(b, ",\"describes\":");
		json_str(b, name);
		wbuf_printf(b, ",\"descriptor\":");
		json_str(b, m->k[ck].descriptor);
		wbuf_printf(b, ",\"statics\":[");
		for (unsigned i = 0; i < m->k[ck].n_sfields; i++) {
			const struct kfield *f = &m->k[ck].sfields[i];
			wbuf_printf(b, "%s{\"name\":", i ? "," : "");
			json_str(b, f->name);
			wbuf_printf(b, ",\"type\":");
			json_str(b, f->type);
			wbuf_printf(b, ",\"offset\":%u,\"value\":", f->offset);
			value(b, m, o->addr + f->offset, f->type);
			wbuf_u8(b, '}');
		}
		wbuf_u8(b, ']');
	}
}

int truth_snapshot_real(struct model *m, int oi);
int truth_snapshot_real(struct model *m, int oi)
{
	struct wbuf b;
	wbuf_init(&b);
	payload(&b, m, oi);
	wbuf_u8(&b, 0);
	if (b.failed) {
		wbuf_release(&b);
		return -1;
	}
	m->o[oi].snapshot = (char *)b.data;
	return 0;
}

static void envelope(struct wbuf *b, struct model *m, int oi)
{
	struct obj *o = &m->o[oi];
	char name[200];
	klass_java_name(m, o->cls, name, sizeof(name));
	wbuf_printf(b, "{\"addr\":\"0x%llx\",\"class\":", (unsigned long long)o->addr);
	json_str(b, name);
	wbuf_printf(b, ",\"class_addr\":\"0x%x\",\"size\":%u,\"kind\":\"%s\",\"space\":\"%s\",\"where\":\"%s\"",
		    m->k[o->cls].addr, o->size, kind_name(m, o), sp_names[o->space], ow_names[o->where]);
	if (o->slot)
		wbuf_printf(b, ",\"slot\":%u", o->slot);
	wbuf_printf(b, ",\"alloc\":\"%s\",\"content\":\"%s\",\"reach\":\"%s\"", alloc_names[o->alloc],
		    content_names[o->content], reach_names[o->reach]);
	if (o->content == OB_PARTIAL && o->space == SP_NONMOVING) {
		/* dlmalloc free: fd/bk at payload 0..2S, the next chunk's prev_foot at chunk-2S */
		unsigned S = m->vm.ptr;
		wbuf_printf(b, ",\"overwritten\":[[0,%u]", 2 * S < o->size ? 2 * S : o->size);
		if (o->slot - 2 * S < o->size)
			wbuf_printf(b, ",[%u,%u]", o->slot - 2 * S, o->slot - S < o->size ? o->slot - S : o->size);
		wbuf_u8(b, ']');
	}
}

static int write_file(const char *path, const struct wbuf *b, struct err *e)
{
	struct outf o;
	int rc;
	outf_init(&o);
	if ((rc = wbuf_status(b, e)) || (rc = outf_open(&o, path, e)) || (rc = outf_write(&o, b->data, b->len, e)) ||
	    (rc = outf_commit(&o, e)))
		outf_abort(&o);
	return rc;
}

static struct model *sort_m;
static int cmp_idx(const void *a, const void *b)
{
	const struct obj *x = &sort_m->o[*(const int *)a], *y = &sort_m->o[*(const int *)b];
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->alloc != y->alloc)
		return x->alloc > y->alloc ? -1 : 1;    /* the freed object first, then its successor */
	return *(const int *)a - *(const int *)b;
}

int truth_jsonl(struct model *m, const char *path, struct err *e)
{
	struct wbuf b;
	struct outf o;
	int rc = 0;
	int *idx = xcalloc(m->no + 1, sizeof(int));
	if (!idx)
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory");
	outf_init(&o);
	if ((rc = outf_open(&o, path, e))) {
		xfree(idx);
		return rc;
	}
	for (unsigned i = 0; i < m->no; i++)
		idx[i] = (int)i;
	sort_m = m;
	qsort(idx, m->no, sizeof(int), cmp_idx);
	wbuf_init(&b);
	for (unsigned j = 0; j < m->no; j++) {
		int i = idx[j];
		envelope(&b, m, i);
		if (m->o[i].snapshot)
			wbuf_put(&b, m->o[i].snapshot, strlen(m->o[i].snapshot));
		else
			payload(&b, m, i);
		wbuf_printf(&b, "}\n");
		if (b.len > (8u << 20) || j + 1 == m->no) {     /* stream: bounded memory */
			if ((rc = wbuf_status(&b, e)) || (rc = outf_write(&o, b.data, b.len, e)))
				break;
			wbuf_reset(&b);
		}
	}
	xfree(idx);
	if (!rc)
		rc = outf_commit(&o, e);
	if (rc)
		outf_abort(&o);
	wbuf_release(&b);
	return rc;
}

static const char *space_kind(enum sp_kind s, const struct model *m)
{
	switch (s) {
	case SP_IMAGE: return "ImageSpace";
	case SP_MAIN: return "RosAllocSpace";
	case SP_REGION: return "RegionSpace";
	case SP_NONMOVING: return "DlMallocSpace";
	case SP_ZYGOTE: return "ZygoteSpace";
	case SP_LOS: return m->los && m->los->freelist ? "FreeListSpace" : "LargeObjectMapSpace";
	case SP_BUMP: return "BumpPointerSpace";
	default: return "";
	}
}

int truth_summary(struct model *m, const char *path, const char *size_name, struct err *e)
{
	struct wbuf b;
	const struct fam *f = m->fam;
	wbuf_init(&b);
	wbuf_printf(&b, "{\n \"generator\": \"artcarve tests/synth\",\n \"android\": \"%s\",\n \"api\": %d,\n"
		    " \"bits\": %d,\n \"pointer_size\": %u,\n \"heap_reference_size\": 4,\n \"isa\": \"%s\",\n"
		    " \"seed\": %llu,\n \"size\": \"%s\",\n \"layout\": \"%s\",\n \"image_version\": \"%s\",\n"
		    " \"string_compression\": %s,\n",
		    f->version, f->api, m->bits, m->vm.ptr, m->isa, (unsigned long long)m->seed, size_name,
		    m->cmc ? "cmc" : f->region ? "cc" : "cms", f->image_version, f->str == FAM_STR_COMPRESSED ? "true" : "false");
	if (m->page != 4096)    /* absent: 4 KiB */
		wbuf_printf(&b, " \"page_size\": %u,\n", m->page);
	wbuf_printf(&b, " \"image\": {\"begin\": \"0x%llx\", \"size\": %llu, \"image_roots\": \"0x%x\", \"class_roots\": \"0x%x\"},\n",
		    (unsigned long long)m->image_begin, (unsigned long long)m->image->size, m->image_roots_addr,
		    m->class_roots_addr);
	wbuf_printf(&b, " \"dex\": [{\"begin\": \"0x%llx\", \"size\": %u, \"dex_file\": \"0x%llx\"}, {\"begin\": \"0x%llx\", \"size\": %u, \"dex_file\": \"0x%llx\"}],\n",
		    (unsigned long long)m->dex_addr[0], m->dex_size[0], (unsigned long long)m->dexfile_native[0],
		    (unsigned long long)m->dex_addr[1], m->dex_size[1], (unsigned long long)m->dexfile_native[1]);
	/* spaces: one per space kind, merging per-object LOS maps */
	wbuf_printf(&b, " \"spaces\": [");
	bool first = true;
	for (int s = SP_IMAGE; s <= SP_LOS; s++) {
		uint64_t lo = UINT64_MAX, hi = 0, lim = 0;
		const char *name = NULL;
		for (unsigned i = 0; i < m->vm.n; i++) {
			struct vmap *mp = &m->vm.maps[i];
			if (mp->space != (enum sp_kind)s)
				continue;
			if (mp->va < lo) {
				lo = mp->va;
				name = mp->name;
			}
			if (mp->va + mp->rw_size > hi)
				hi = mp->va + mp->rw_size;
			if (mp->va + mp->size > lim)
				lim = mp->va + mp->size;
		}
		if (!name)
			continue;
		wbuf_printf(&b, "%s\n  {\"kind\": \"%s\", \"map\": ", first ? "" : ",", space_kind((enum sp_kind)s, m));
		json_str(&b, name);
		wbuf_printf(&b, ", \"space\": \"%s\", \"begin\": \"0x%llx\", \"end\": \"0x%llx\", \"limit\": \"0x%llx\"}",
			    sp_names[s], (unsigned long long)lo, (unsigned long long)hi, (unsigned long long)lim);
		first = false;
	}
	wbuf_printf(&b, "\n ],\n \"mappings\": [");
	for (unsigned i = 0; i < m->vm.n; i++) {
		struct vmap *mp = &m->vm.maps[i];
		wbuf_printf(&b, "%s\n  {\"name\": ", i ? "," : "");
		json_str(&b, mp->name);
		wbuf_printf(&b, ", \"begin\": \"0x%llx\", \"end\": \"0x%llx\", \"readable_end\": \"0x%llx\", \"space\": \"%s\"}",
			    (unsigned long long)mp->va, (unsigned long long)(mp->va + mp->size),
			    (unsigned long long)(mp->va + mp->rw_size), sp_names[mp->space]);
	}
	wbuf_printf(&b, "\n ],\n \"classes\": [");
	for (unsigned i = 0; i < m->nk; i++) {
		struct klass *k = &m->k[i];
		char name[200];
		unsigned n = 0, unreach = 0, nfree = 0;
		for (unsigned j = 0; j < m->no; j++) {
			if (m->o[j].cls != (int)i)
				continue;
			if (m->o[j].alloc == OB_FREE) {
				nfree++;
				continue;
			}
			n++;
			unreach += m->o[j].reach == OB_UNREACHABLE;
		}
		klass_java_name(m, (int)i, name, sizeof(name));
		wbuf_printf(&b, "%s\n  {\"name\": ", i ? "," : "");
		json_str(&b, name);
		wbuf_printf(&b, ", \"addr\": \"0x%x\", \"super\": ", k->addr);
		if (k->super >= 0) {
			char sn[200];
			klass_java_name(m, k->super, sn, sizeof(sn));
			json_str(&b, sn);
		} else {
			wbuf_printf(&b, "null");
		}
		wbuf_printf(&b, ", \"object_size\": %u, \"class_size\": %u, \"in_image\": %s, \"objects\": %u, \"unreachable\": %u, \"freed\": %u, \"fields\": [",
			    k->object_size, k->class_size, k->in_image ? "true" : "false", n, unreach, nfree);
		for (unsigned j = 0; j < k->n_ifields + k->n_sfields; j++) {
			const struct kfield *fl = j < k->n_ifields ? &k->ifields[j] : &k->sfields[j - k->n_ifields];
			wbuf_printf(&b, "%s{\"name\": ", j ? ", " : "");
			json_str(&b, fl->name);
			wbuf_printf(&b, ", \"type\": ");
			json_str(&b, fl->type);
			wbuf_printf(&b, ", \"offset\": %u, \"static\": %s}", fl->offset, fl->is_static ? "true" : "false");
		}
		wbuf_printf(&b, "]}");
	}
	unsigned counts[3][2] = {{0}};
	for (unsigned j = 0; j < m->no; j++)
		counts[m->o[j].content][m->o[j].alloc]++;
	wbuf_printf(&b, "\n ],\n \"objects\": %u,\n \"allocated_intact\": %u,\n \"free_partial\": %u,\n \"free_residue\": %u\n}\n",
		    m->no, counts[OB_INTACT][OB_ALLOCATED], counts[OB_PARTIAL][OB_FREE], counts[OB_RESIDUE][OB_FREE]);
	int rc = write_file(path, &b, e);
	wbuf_release(&b);
	return rc;
}

extern const char *const dexw_method_names[2];

/* hooks.json: the ArtMethods of the image, the known code, and the injected hooks. */
int truth_hooks(struct model *m, const char *path, struct err *e)
{
	struct wbuf b;
	unsigned q = m->bits == 64 ? m->fam->artmethod_quick64 : m->fam->artmethod_quick32;
	bool first = true;
	wbuf_init(&b);
	wbuf_printf(&b, "{\n \"art_methods\": %u,\n \"quick_entry_offset\": %u,\n", m->art_methods, q);
	wbuf_printf(&b, " \"known_code\": [{\"what\": \"libart.so\", \"begin\": \"0x%llx\", \"end\": \"0x%llx\"}],\n",
		    (unsigned long long)m->libart, (unsigned long long)(m->libart + m->libart_size));
	wbuf_printf(&b, " \"hooks\": [");
	for (unsigned i = 0; i < m->nk; i++) {
		struct klass *k = &m->k[i];
		for (unsigned w = 0; w < k->n_methods; w++) {
			if (!(k->hooked & 1u << w))
				continue;
			char name[200];
			klass_java_name(m, (int)i, name, sizeof(name));
			uint64_t entry = m->bits == 64 ? vm_r64(&m->vm, k->method_addr[w] + q) : vm_r32(&m->vm, k->method_addr[w] + q);
			wbuf_printf(&b, "%s\n  {\"art_method\": \"0x%llx\", \"class\": ", first ? "" : ",",
				    (unsigned long long)k->method_addr[w]);
			json_str(&b, name);
			wbuf_printf(&b, ", \"method\": \"%s\", \"entry\": \"0x%llx\", \"entry_at\": \"0x%llx\"}",
				    dexw_method_names[w], (unsigned long long)entry,
				    (unsigned long long)(k->method_addr[w] + q));
			first = false;
		}
	}
	wbuf_printf(&b, "%s]\n}\n", first ? "" : "\n ");
	int rc = write_file(path, &b, e);
	wbuf_release(&b);
	return rc;
}

int truth_readme(struct model *m, const char *path, const char *cmdline, struct err *e)
{
	struct wbuf b;
	const struct fam *f = m->fam;
	wbuf_init(&b);
	wbuf_printf(&b, "Synthetic ART process image: Android %s (API %d), %d-bit (%s), seed %llu\n\n"
		    "Made by artcarve's generator (tests/synth), an independent implementation of ART's\n"
		    "allocator and object-layout rules, with:\n\n    %s\n\n"
		    "The same command gives the same bytes.\n\n", f->version, f->api, m->bits, m->isa,
		    (unsigned long long)m->seed, cmdline);
	wbuf_printf(&b, "Files:\n"
		    "  core         ELF%d core (ET_CORE): one PT_LOAD per readable mapping, NT_FILE note\n"
		    "  maps         /proc/PID/maps of the process (%s names)\n"
		    "  truth.jsonl  one line per object: addr, class, size, space, allocator detail, alloc\n"
		    "               (allocated|free), content (intact|partial|residue), reach\n"
		    "               (reachable|unreachable), field values, string text, array checksums\n"
		    "  truth.json   summary: spaces, mappings, image, DEX, classes with fields and counts\n"
		    "  truth.hprof  HPROF 1.0.2 (4-byte ids) of the allocated objects (ids = addresses)\n"
		    "  hooks.json   the image's ArtMethods (7.0+), libart's code range and the hooks\n"
		    "               injected with --inject-hooks (ArtMethod, class, method, entry)\n\n",
		    m->bits, f->ashmem ? "ashmem '/dev/ashmem/dalvik-<name> (deleted)'" : "'[anon:dalvik-<name>]'");
	wbuf_printf(&b, "Layout: %s.\n", m->cmc ? "mark-compact (CMC) moving space: a bump-pointer 'main space' with a main block and TLAB blocks whose unused tails are zero, dlmalloc zygote and non-moving spaces, large object space"
			    : f->region ? "region space (CC) with TLABs, dlmalloc zygote and non-moving spaces, large object space"
			    : f->ros == FAM_ROS_BITMAP ? "RosAlloc main space with bitmap runs (alloc, bulk-free, thread-local-free bitmaps), dlmalloc zygote and non-moving spaces, large object space"
			    : "RosAlloc main space with free-list runs (free, bulk, thread-local lists), dlmalloc zygote and non-moving spaces, large object space");
	if (m->art_methods)
		wbuf_printf(&b, "ArtMethods: %u native methods of the core classes in the image's ArtMethods\n"
			    "section, entering libart.so (generic JNI trampoline); %u of them hooked: their\n"
			    "quick entry points at an anonymous rwx page of ldr/br trampolines.\n",
			    m->art_methods, m->n_hooks_done);
	wbuf_printf(&b, "Reachability roots: every Class object (statics included), the image roots and the app\n"
		    "dex cache.  Dropped chat messages and old session tokens are unreachable; a sweep freed\n"
		    "some unreachable objects the way that version frees (RosAlloc: slot zeroed, 7.0+ free-list\n"
		    "link in word 0; dlmalloc: chunk links over the first words; LOS: pages zeroed; 10+\n"
		    "unevacuated regions: 0xBADDB01D).\n\n");
	wbuf_printf(&b, "Simplifications (not what a device has): no OAT/VDEX file (the DEX bytes sit in an\n"
		    "anonymous 'classes.dex extracted in memory' mapping); Class objects carry no embedded\n"
		    "vtable/IMT (static fields follow the fixed part); no compiled code (methods are native);\n"
		    "image methods, runtime ArtMethods and\n"
		    "the Oome roots of 10 are null; no live/mark bitmaps, card table or allocation stacks;\n"
		    "the region space and LOS mappings are cut to their used part.\n");
	wbuf_printf(&b, "%.*s", (int)m->notes.len, m->notes.data ? (const char *)m->notes.data : "");
	int rc = write_file(path, &b, e);
	wbuf_release(&b);
	return rc;
}
