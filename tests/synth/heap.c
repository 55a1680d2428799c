/* heap.c - placing and writing objects: allocation routing between the spaces, object headers,
 * instance fields, arrays, strings and Class objects in each family's layout. */
#include <string.h>

#include "carver/base/xalloc.h"
#include "tests/synth/synth.h"
#include "tests/synth/alloc.h"

const char *const ow_names[] = {"none", "run", "thread-local-run", "pages", "region", "tlab",
	"large-region", "unevacuated-region", "chunk", "bump", "los-map", "los-freelist", "image",
	"cmc-from-space"};

int model_new_obj(struct model *m, uint64_t addr, uint32_t size, int cls, enum sp_kind sp, uint8_t where)
{
	if (XALLOC_GROW(m->o, m->cap_o, (size_t)m->no + 1, 1024))
		return -1;
	struct obj *o = &m->o[m->no];
	memset(o, 0, sizeof(*o));
	o->addr = addr;
	o->size = size;
	o->cls = cls;
	o->space = sp;
	o->where = where;
	o->reach = OB_UNREACHABLE;
	m->bytes += size;
	return (int)m->no++;
}

/* Heap.AllocObject routing: primitive arrays (5.x) and also strings (6.0+) of at least
 * 3 pages go to the large object space (heap.h kDefaultLargeObjectThreshold, heap-inl.h). */
static bool goes_to_los(const struct model *m, int cls, uint32_t size)
{
	const struct klass *k = &m->k[cls];
	if (size < 3 * 4096 || !m->los)
		return false;
	return k->kind == CK_PRIM_ARRAY || (k->kind == CK_STRING && m->fam->api >= 23);
}

/* Allocates size bytes for an object of class cls in the space the hint names; returns the
 * truth index or -1 when the space is full. */
int heap_alloc(struct model *m, int cls, uint32_t size, enum sp_kind hint, int region_mode)
{
	uint64_t a = 0;
	uint8_t where = OW_NONE;
	uint32_t slot = 0;
	enum sp_kind sp = hint;

	if (hint == SP_MAIN && goes_to_los(m, cls, size)) {
		a = los_alloc(m->los, size, &where);
		sp = SP_LOS;
	} else if (hint == SP_MAIN && m->ros) {
		a = ros_alloc(m->ros, size, &where, &slot);
	} else if (hint == SP_MAIN && m->bump) {
		a = bump_alloc(m->bump, size, region_mode, &where);
		sp = SP_BUMP;
	} else if (hint == SP_MAIN && m->region) {
		a = region_alloc(m->region, size, region_mode, &where);
		sp = SP_REGION;
	} else if (hint == SP_NONMOVING) {
		a = dlm_alloc(m->nonmoving, size, &slot);
		where = OW_CHUNK;
	} else if (hint == SP_ZYGOTE) {
		if (region_mode == 0) {
			a = dlm_alloc(m->zygote, size, &slot);
			where = OW_CHUNK;
		} else {
			a = dlm_bump(m->zygote, size);
			where = OW_BUMP;
		}
	}
	if (!a)
		return -1;
	int i = model_new_obj(m, (uint32_t)a, size, cls, sp, where);
	if (i >= 0)
		m->o[i].slot = slot;
	return i;
}

/* ---- writing ---- */

void obj_header(struct model *m, int oi)
{
	struct obj *o = &m->o[oi];
	vm_w32(&m->vm, o->addr, m->k[o->cls].addr);
}

uint32_t class_off(const struct model *m, const char *field)
{
	return fam_off(&m->fam->m_class, field);
}

static void cw32(struct model *m, const struct klass *k, const char *field, uint32_t v)
{
	uint32_t off = class_off(m, field);
	if (off != UINT32_MAX)
		vm_w32(&m->vm, k->addr + off, v);
}

static void cw64(struct model *m, const struct klass *k, const char *field, uint64_t v)
{
	uint32_t off = class_off(m, field);
	if (off != UINT32_MAX)
		vm_w64(&m->vm, k->addr + off, v);
}


/* Primitive::Type (primitive.h): Not 0, boolean 1, byte 2, char 3, short 4, int 5, long 6,
 * float 7, double 8, void 9. */
static uint32_t prim_type(char c)
{
	static const char order[] = "ZBCSIJFDV";
	const char *p = strchr(order, c);
	return p ? 1 + (uint32_t)(p - order) : 0;
}

static uint32_t log2_size(char c)
{
	unsigned s = c == 'V' ? 0 : klass_type_size((char[]){c, 0});
	return s == 8 ? 3 : s == 4 ? 2 : s == 2 ? 1 : 0;
}

/* A reference field the GC is told about: LinkFields lies about
 * java.lang.ref.Reference.referent (its last reference field), so it is neither counted in
 * num_reference_instance_fields_ nor set in reference_instance_offsets_
 * (runtime/class_linker.cc LinkFields, CreateReferenceOffsets @ android-5.0.0_r5 ... 11). */
static bool gc_ref(const struct klass *k, const struct kfield *f)
{
	if (f->type[0] != 'L' && f->type[0] != '[')
		return false;
	return f->is_static || strcmp(k->descriptor, "Ljava/lang/ref/Reference;") || strcmp(f->name, "referent");
}

/* Reference instance offsets (class.h): 5.x MSB-first bit per word from offset 0 (klass_
 * included), 3 = walk super; 6.0+ LSB-first bit n for offset 8 + 4n, 0xC0000000 walk super. */
static uint32_t ref_offsets(const struct model *m, int ki)
{
	const struct klass *k = &m->k[ki];
	uint32_t bits = k->super >= 0 ? ref_offsets(m, k->super) : 0;
	bool lsb = m->fam->ref_offsets_lsb;
	uint32_t walk = lsb ? 0xC0000000u : 3u;

	if (bits == walk)
		return walk;
	for (unsigned i = 0; i < k->n_ifields; i++) {
		const struct kfield *f = &k->ifields[i];
		if (!gc_ref(k, f))
			continue;
		if (lsb) {
			if (f->offset < 8)
				continue;
			uint32_t n = (f->offset - 8) / 4;
			/* 16: bit 31 is kVisitReferencesSlowpathMask (an overflow bitmap at the end
			 * of the Class, class.cc SetReferenceInstanceOffsets @R16); the generator's
			 * classes stay below 31 reference slots (checked in class_write) */
			if (m->fam->array_shift_flags && n >= 31)
				return UINT32_MAX;
			if (n >= 32)
				return walk;
			bits |= 1u << n;
		} else {
			uint32_t n = f->offset / 4;
			if (n >= 32)
				return walk;
			bits |= 0x80000000u >> n;
		}
	}
	if (lsb && ki == m->c_object)
		return 0;
	return bits;
}

static unsigned count_refs(const struct klass *k, const struct kfield *f, unsigned n)
{
	unsigned c = 0;
	for (unsigned i = 0; i < n; i++)
		c += gc_ref(k, &f[i]);
	return c;
}

/* Writes the Class object of class ki (fields the layout table names). */
void class_write(struct model *m, int ki)
{
	const struct fam *f = m->fam;
	struct klass *k = &m->k[ki];
	bool variable = k->kind == CK_CLASS || k->kind == CK_PRIM_ARRAY || k->kind == CK_OBJ_ARRAY ||
			(k->kind == CK_STRING && f->api >= 23);

	vm_w32(&m->vm, k->addr, m->k[m->c_class].addr);
	cw32(m, k, "superClass", k->super >= 0 ? m->k[k->super].addr : 0);
	cw32(m, k, "componentType", k->component >= 0 ? m->k[k->component].addr : 0);
	cw32(m, k, "dexCache", k->dex >= 0 ? m->dexcache_obj[k->dex] : 0);
	cw32(m, k, "accessFlags", k->access_flags);
	cw32(m, k, "classSize", k->class_size);
	cw32(m, k, "clinitThreadId", 0);
	cw32(m, k, "dexClassDefIndex", k->dex >= 0 ? k->class_def_idx : 0xffffu);
	cw32(m, k, "dexTypeIndex", k->dex >= 0 ? k->type_idx : 0xffffu);
	cw32(m, k, "numReferenceInstanceFields", count_refs(k, k->ifields, k->n_ifields));
	cw32(m, k, "numReferenceStaticFields", count_refs(k, k->sfields, k->n_sfields));
	cw32(m, k, "objectSize", variable ? 0 : k->object_size);
	cw32(m, k, "objectSizeAllocFastPath", variable ? 0x7fffffffu : (k->object_size + 7) & ~7u);
	uint32_t pt = 0;
	if (k->kind == CK_PRIMITIVE)
		pt = prim_type(k->prim) | (f->prim_type_shift ? log2_size(k->prim) << 16 : 0);
	cw32(m, k, "primitiveType", pt);
	uint32_t refs = ref_offsets(m, ki);
	if (refs == UINT32_MAX) {
		/* a 16 class past 31 reference slots would need the overflow bitmap */
		fprintf(stderr, "synth: class %s has more than 31 reference slots (16 overflow bitmap)\n",
			k->descriptor);
		m->vm.bad = true;
		m->vm.bad_va = k->addr;
		refs = 0;
	}
	cw32(m, k, "referenceInstanceOffsets", refs);
	cw32(m, k, "status", (uint32_t)f->status_initialized);
	if (f->class_flags) {
		uint32_t fl = 0;
		if (k->kind == CK_STRING)
			fl = 0x4 | 0x1;
		else if (k->kind == CK_OBJ_ARRAY)
			fl = 0x8;
		else if (k->kind == CK_CLASS)
			fl = 0x10;
		else if (ki == m->c_dexcache)
			fl = 0x40;
		else if (k->kind == CK_PRIM_ARRAY || k->kind == CK_PRIMITIVE || refs == 0)
			fl = 0x1;
		/* 16: arrays carry the component size shift in bits 30-31, primitive arrays also
		 * kClassFlagPrimitiveArray (class_flags.h, ClassLinker::CreateArrayClass @R16) */
		if (f->array_shift_flags && k->kind == CK_PRIM_ARRAY && k->component >= 0)
			fl |= 0x1000u | log2_size(m->k[k->component].prim) << 30;
		else if (f->array_shift_flags && k->kind == CK_OBJ_ARRAY)
			fl |= 2u << 30;
		cw32(m, k, "classFlags", fl);
	}
	/* fields: 5.x ObjectArray<ArtField> refs, 6.0 raw pointer + counts, 7.0+ LPA pointer */
	if (f->fields == FAM_FIELDS_MIRROR) {
		cw32(m, k, "iFields", k->fields_addr);
		cw32(m, k, "sFields", k->sfields_addr);
	} else {
		cw64(m, k, "iFields", k->fields_addr);
		cw64(m, k, "sFields", k->sfields_addr);
		cw32(m, k, "numInstanceFields", k->n_ifields);
		cw32(m, k, "numStaticFields", k->n_sfields);
		if (k->methods_addr) {
			cw64(m, k, "methods", k->methods_addr);
			uint32_t vo = class_off(m, "virtualMethodsOffset"), co = class_off(m, "copiedMethodsOffset");
			if (vo != UINT32_MAX)
				vm_w16(&m->vm, k->addr + vo, 1);        /* [0,1) direct, [1,2) virtual */
			if (co != UINT32_MAX)
				vm_w16(&m->vm, k->addr + co, (uint16_t)k->n_methods);
		}
	}
}

/* The Class object's size: fixed part, then static fields (embedded vtable / IMT omitted). */
void class_size(struct model *m, int ki)
{
	struct klass *k = &m->k[ki];
	uint32_t fixed = m->fam->m_class.size;
	k->statics_off = (fixed + 3) & ~3u;
	uint32_t end = klass_link(k->sfields, k->n_sfields, k->statics_off, m->fam->link_rule);
	k->class_size = end > fixed ? end : fixed;
}

/* ---- instance contents ---- */

void obj_set(struct model *m, uint32_t addr, const struct kfield *f, uint64_t v)
{
	switch (klass_type_size(f->type)) {
	case 1: vm_w8(&m->vm, addr + f->offset, (uint8_t)v); break;
	case 2: vm_w16(&m->vm, addr + f->offset, (uint16_t)v); break;
	case 4: vm_w32(&m->vm, addr + f->offset, (uint32_t)v); break;
	default: vm_w64(&m->vm, addr + f->offset, v); break;
	}
}

/* Finds a field by name in the class or its supers. */
const struct kfield *klass_field_find(const struct model *m, int ki, const char *name)
{
	for (; ki >= 0; ki = m->k[ki].super)
		for (unsigned i = 0; i < m->k[ki].n_ifields; i++)
			if (strcmp(m->k[ki].ifields[i].name, name) == 0)
				return &m->k[ki].ifields[i];
	return NULL;
}

const struct kfield *klass_static_find(const struct model *m, int ki, const char *name)
{
	for (unsigned i = 0; i < m->k[ki].n_sfields; i++)
		if (strcmp(m->k[ki].sfields[i].name, name) == 0)
			return &m->k[ki].sfields[i];
	return NULL;
}

void obj_setf(struct model *m, int oi, const char *name, uint64_t v)
{
	const struct kfield *f = klass_field_find(m, m->o[oi].cls, name);
	if (f)
		obj_set(m, m->o[oi].addr, f, v);
	else
		m->vm.bad = true;
}

/* Array data offset (array.h): 12, or 16 for 8-byte elements. */
uint32_t array_data_off(char elem) { return elem == 'J' || elem == 'D' ? 16 : 12; }

uint32_t array_size(char elem, uint32_t n)
{
	unsigned es = elem == 'L' ? 4 : klass_type_size((char[]){elem, 0});
	return array_data_off(elem) + es * n;
}
