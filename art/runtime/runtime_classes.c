/* runtime_classes.c - the Class objects: collected from the object chunks, sorted, hashed
 * by address, linked to their supers, and named. */
#include "art/runtime/runtime.h"

#include <stdlib.h>
#include <string.h>

#include "art/runtime/runtime_int.h"
#include "carver/base/bsearch.h"
#include "carver/base/ck.h"
#include "carver/base/htab.h"
#include "carver/base/xalloc.h"

/* ---- classes ---- */

static int add_class(struct art_runtime *rt, const struct mirror_class *c, struct err *e)
{
	if (rt->class_count % 256 == 0) {
		struct rt_class *v = xreallocarray(rt->classes, rt->class_count + 256, sizeof(*v));
		if (!v)
			return rt_nomem(e);
		rt->classes = v;
	}
	struct rt_class *k = &rt->classes[rt->class_count++];
	memset(k, 0, sizeof(*k));
	k->addr = c->addr;
	k->raw = *c;
	k->name_how = "";
	k->fields_how = "";
	k->dex = k->dissent_dex = k->super = k->component = RT_NONE;
	k->space = spaces_at(&rt->spaces, c->addr);
	return 0;
}

/* A Class's lock word in the forwarding state (lock_word.h @R11: ForwardingAddress() =
 * value_ << kForwardingAddressShift, in 32 bits) marks a from-space copy a moving GC left
 * behind, when its target is a captured Class too; any other target makes the word damage,
 * and the Class is read on. */
static bool forwarded_copy(const struct art_runtime *rt, uint32_t lock)
{
	uint32_t k;
	return mirror_peek_u32(&rt->m, (uint32_t)(lock << 3), &k) && k == (uint32_t)rt->java_lang_class;
}

/* True when the object at ref reads as a Class but for its own class word (*why: why not,
 * when it does not read). */
static bool class_but_for_its_word(const struct art_runtime *rt, uint32_t ref, struct err *why)
{
	struct mirror_class c;
	if (mirror_class_read(&rt->m, ref, &c, why))
		return false;
	c.klass = (uint32_t)rt->java_lang_class;
	return mirror_class_plausible(&rt->m, &c, c.klass) && !mirror_class_retired(&rt->m, &c);
}

/* True when c is a sound Class once its super and component classes are read as Classes
 * whatever their class words (a damaged class word of java.lang.Object's Class leaves every
 * direct subclass sound: recover_damaged_classes reads it); *why is left clear. */
static bool sound_but_its_classes(const struct art_runtime *rt, const struct mirror_class *c, struct err *why)
{
	struct mirror_class k = *c;
	if (k.super_class && class_but_for_its_word(rt, k.super_class, why))
		k.super_class = 0;
	if (k.component_type && class_but_for_its_word(rt, k.component_type, why))
		k.component_type = 0;
	err_init(why);
	return mirror_class_plausible(&rt->m, &k, rt->java_lang_class);
}

/* True when the field what of c that fails its check is a super or component class whose
 * own class word is the damaged one: c is sound, the class it names is damaged. */
static bool names_damaged_class(const struct art_runtime *rt, const struct mirror_class *c, const char *what,
				struct err *why)
{
	uint32_t ref = !strcmp(what, "super_class_") ? c->super_class
		     : !strcmp(what, "component_type_") ? c->component_type : 0;
	return ref && class_but_for_its_word(rt, ref, why);
}

static int collect_classes(struct art_runtime *rt, uint64_t va, const uint8_t *p, size_t n, void *ctx,
			   struct err *e)
{
	uint32_t jlc = (uint32_t)rt->java_lang_class;
	(void)ctx;
	for (size_t off = 0; off + 8 <= n; off += 8) {
		struct mirror_class c;
		struct err why;
		const char *damaged;
		if (ld_u32le(p + off) != jlc)
			continue;
		/* a from-space copy left behind by a moving GC carries a forwarding lock word: a
		 * normal leftover, not damage */
		if (ld_u32le(p + off + 4) >> 30 == MIRROR_LOCK_FORWARD && forwarded_copy(rt, ld_u32le(p + off + 4))) {
			rt->rejected_classes++;
			continue;
		}
		/* a word equal to java.lang.Class's address is a candidate only: inside another
		 * object (a Field whose type is Class, an array of classes) or in free memory it is
		 * no Class, and that is no damage.  A damaged real Class is an object start the
		 * walkers find: the model records it there ("class word is java.lang.Class but the
		 * runtime model has no Class"), so only the count is kept here. */
		err_init(&why);
		bool read = mirror_class_read(&rt->m, va + off, &c, &why) == 0;
		if (read && !mirror_class_plausible(&rt->m, &c, jlc) && sound_but_its_classes(rt, &c, &why))
			;   /* the damage is its super or component class's, recorded there */
		else if (read && mirror_class_damaged(&rt->m, &c, jlc, &damaged)) {
			/* sound when the class it names is the damaged one: recover_damaged_classes
			 * reads that one */
			if (!names_damaged_class(rt, &c, damaged, &why)) {
				anomaly_add(&rt->anomalies, ANOM_CLASS, ERR_CORRUPT, va + off, rt_space_name(rt, va + off),
					    "class at 0x%llx: %s out of range (damage); read as a Class by its other fields",
					    (unsigned long long)(va + off), damaged);
				mirror_class_repair(&rt->m, &c, damaged);
			}
		} else if (why.code || (!mirror_class_plausible(&rt->m, &c, jlc) &&
		     ERR_SET(&why, ERR_CORRUPT, va + off, "class at 0x%llx: fields out of range for a Class",
			     (unsigned long long)(va + off)))) {
			if (!rt->rejected_classes++)
				snprintf(rt->first_rejected, sizeof(rt->first_rejected), "%.150s", why.msg);
			continue;
		}
		if (mirror_class_retired(&rt->m, &c)) {
			rt->retired_classes++;
			continue;
		}
		int rc = add_class(rt, &c, e);
		if (rc)
			return rc;
	}
	return 0;
}

static int by_addr(const void *a, const void *b)
{
	const struct rt_class *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* runtime_class_at answers for every carved object (its class word), often more than once:
 * a hash table of the class addresses replaces a binary search over thousands of classes. */
static int hash_classes(struct art_runtime *rt, struct err *e)
{
	if (rt->class_count > HTAB_VAL_MAX || htab_reserve(&rt->class_hash, rt->class_count))
		return rt_nomem(e);
	for (size_t i = 0; i < rt->class_count; i++)
		if (htab_add(&rt->class_hash, rt->classes[i].addr, (uint32_t)i))   /* the first of equal addresses answers */
			return rt_nomem(e);
	return 0;
}

/* A Class with one damaged word may be no candidate of collect_classes: its class word is
 * not java.lang.Class, or the one field out of range leaves it too few anchors (a primitive
 * class whose component_type_ or primitive_type_ is hit), or its status_ reads retired.  The
 * classes that name it as their super or component class (or, for java.lang.String, whose
 * name_ Strings have it as their class) are its second source: no class names a retired
 * placeholder (ClassLinker::LinkClass, runtime/class_linker.cc @R11, retires the temporary
 * class nobody refers to).  Such an address whose object reads as a sound Class but for one
 * word is read as one, with an anomaly.  At most CLASS_RECOVER_MAX of them (damage, not the
 * rule); the table is sorted and hashed again when one is added. */
enum { CLASS_RECOVER_MAX = 64 };

struct class_found {
	struct mirror_class c;
	const char *what;          /* the damaged field: "klass_", a misfit's name or "status_" */
};

/* The damaged word of the Class c named by another class whose class word is klass: its
 * name, or NULL when c is no Class with exactly one damaged word. */
static const char *named_class_damage(const struct art_runtime *rt, struct mirror_class *c, uint32_t klass)
{
	uint32_t jlc = (uint32_t)rt->java_lang_class;
	const char *what;
	c->klass = jlc;
	unsigned misfits = mirror_class_misfits(&rt->m, c, jlc, &what);
	if (klass != jlc)   /* the class word is the damaged one: every other field must hold */
		return misfits == 0 && !mirror_class_retired(&rt->m, c) ? "klass_" : NULL;
	if (c->monitor >> 30 == MIRROR_LOCK_FORWARD && forwarded_copy(rt, c->monitor))
		return NULL;   /* a from-space copy: collect_classes left it out on purpose */
	if (misfits == 1)
		return what;
	return misfits == 0 && mirror_class_retired(&rt->m, c) ? "status_" : NULL;
}

static size_t damaged_class_words(struct art_runtime *rt, struct class_found *found)
{
	uint32_t jlc = (uint32_t)rt->java_lang_class;
	size_t n = 0;
	for (size_t i = 0; i < rt->class_count && n < CLASS_RECOVER_MAX; i++) {
		/* java.lang.Class itself, named by every class */
		uint32_t named[4] = { rt->classes[i].raw.super_class, rt->classes[i].raw.component_type, 0, jlc }, klass;
		/* and java.lang.String: the class of every class's name_ */
		if (rt->classes[i].raw.name && !mirror_peek_u32(&rt->m, rt->classes[i].raw.name, &named[2]))
			named[2] = 0;
		for (size_t j = 0; j < 4 && n < CLASS_RECOVER_MAX; j++) {
			struct class_found *f = &found[n];
			struct err why;
			bool seen = false;
			if (!named[j] || runtime_class_at(rt, named[j]))
				continue;
			for (size_t k = 0; k < n && !seen; k++)
				seen = found[k].c.addr == named[j];
			if (seen || !mirror_peek_u32(&rt->m, named[j], &klass))   /* not captured */
				continue;
			err_init(&why);
			if (mirror_class_read(&rt->m, named[j], &f->c, &why)) {
				anomaly_add_err(&rt->anomalies, ANOM_CLASS, rt_space_name(rt, named[j]), &why);
				continue;
			}
			if ((f->what = named_class_damage(rt, &f->c, klass))) {
				f->c.klass = klass;
				n++;
			}
		}
	}
	return n;
}

/* The Primitive::Type of a primitive class whose primitive_type_ is damaged: each of the nine
 * (boolean .. void, runtime/primitive.h) has exactly one Class (ClassLinker::InitWithoutImage
 * creates them, runtime/class_linker.cc @R11), so the one no other class holds is its type.
 * 0 (kPrimNot) when c is no primitive class (it has a super or component class) or more than
 * one type is missing. */
static uint32_t primitive_by_elimination(const struct art_runtime *rt, const struct mirror_class *c)
{
	enum { PRIMITIVE_TYPES = 9 };
	bool held[PRIMITIVE_TYPES + 1] = { false };
	uint32_t missing = 0;
	unsigned count = 0;
	if (c->super_class || c->component_type)
		return 0;
	for (size_t i = 0; i < rt->class_count; i++) {
		const struct mirror_class *k = &rt->classes[i].raw;
		uint32_t t = k->primitive_type & rt->layout->klass.primitive_mask;
		if (!k->super_class && !k->component_type && t >= 1 && t <= PRIMITIVE_TYPES)
			held[t] = true;
	}
	for (uint32_t t = 1; t <= PRIMITIVE_TYPES; t++)
		if (!held[t] && count++ == 0)
			missing = t;
	return count == 1 ? missing : 0;
}

/* Records the damaged Class f and adds it, its damaged field set to a neutral value. */
static int add_damaged_class(struct art_runtime *rt, struct class_found *f, struct err *e)
{
	uint32_t jlc = (uint32_t)rt->java_lang_class;
	if (f->c.klass != jlc)
		anomaly_add(&rt->anomalies, ANOM_CLASS, ERR_CORRUPT, f->c.addr, rt_space_name(rt, f->c.addr),
			    "class at 0x%llx: class word 0x%x is not java.lang.Class (damage); read as a Class, "
			    "which other classes name (super or component class, class of their name_)",
			    (unsigned long long)f->c.addr, f->c.klass);
	else
		anomaly_add(&rt->anomalies, ANOM_CLASS, ERR_CORRUPT, f->c.addr, rt_space_name(rt, f->c.addr),
			    "class at 0x%llx: %s %s (damage); read as a Class, which other classes name (super or "
			    "component class, class of their name_)", (unsigned long long)f->c.addr, f->what,
			    strcmp(f->what, "status_") ? "out of range" : "reads retired");
	if (!strcmp(f->what, "status_") && rt->retired_classes)
		rt->retired_classes--;   /* counted by collect_classes */
	f->c.klass = jlc;
	mirror_class_repair(&rt->m, &f->c, f->what);
	if (!strcmp(f->what, "primitive_type_"))
		f->c.primitive_type = primitive_by_elimination(rt, &f->c);
	return add_class(rt, &f->c, e);
}

static int recover_damaged_classes(struct art_runtime *rt, struct err *e)
{
	struct class_found found[CLASS_RECOVER_MAX];
	size_t n = damaged_class_words(rt, found);
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < n; i++)
		rc = add_damaged_class(rt, &found[i], e);
	if (rc == 0 && n) {
		qsort(rt->classes, rt->class_count, sizeof(rt->classes[0]), by_addr);
		htab_clear(&rt->class_hash);
		rc = hash_classes(rt, e);
	}
	return rc;
}

static uint64_t class_addr(const void *v, size_t i) { return ((const struct rt_class *)v)[i].addr; }

const struct rt_class *runtime_class_at(const struct art_runtime *rt, uint64_t addr)
{
	if (rt->class_hash.cap) {
		uint32_t i;
		return htab_get(&rt->class_hash, addr, &i) ? &rt->classes[i] : NULL;
	}
	size_t i = bs_find(rt->classes, rt->class_count, class_addr, addr);
	return i == SIZE_MAX ? NULL : &rt->classes[i];
}

uint64_t runtime_class_between(const struct art_runtime *rt, uint64_t lo, uint64_t hi)
{
	size_t i = bs_lower(rt->classes, rt->class_count, class_addr, lo);
	return i < rt->class_count && rt->classes[i].addr < hi ? rt->classes[i].addr : hi;
}

static size_t class_index(const struct art_runtime *rt, uint64_t addr)
{
	const struct rt_class *k = addr ? runtime_class_at(rt, addr) : NULL;
	return k ? (size_t)(k - rt->classes) : RT_NONE;
}

/* Super class chains that loop (super_class_ words damaged so that a class is its own
 * ancestor) are cut where the loop closes, with an anomaly: every pass and writer walks
 * them (HPROF's and BMD's super chains).  One pass: stamp[i] is the chain start that first
 * reached class i, plus one. */
static int cut_super_loops(struct art_runtime *rt, struct err *e)
{
	size_t *stamp = xcalloc(rt->class_count ? rt->class_count : 1, sizeof(*stamp));
	if (!stamp)
		return rt_nomem(e);
	for (size_t i = 0; i < rt->class_count; i++) {
		size_t at = i, prev = RT_NONE;
		while (at != RT_NONE && !stamp[at]) {
			stamp[at] = i + 1;
			prev = at;
			at = rt->classes[at].super;
		}
		if (at == RT_NONE || stamp[at] != i + 1)
			continue;   /* the chain ends, or joins one walked before */
		struct rt_class *k = &rt->classes[prev];
		anomaly_add(&rt->anomalies, ANOM_CLASS, ERR_CORRUPT, k->addr, rt_space_name(rt, k->addr),
			    "class at 0x%llx: super class 0x%x closes a loop of super classes (damage); read "
			    "without a super class", (unsigned long long)k->addr, k->raw.super_class);
		k->super = RT_NONE;
		k->raw.super_class = 0;
	}
	xfree(stamp);
	return 0;
}

int rt_link_classes(struct art_runtime *rt, struct err *e)
{
	for (size_t i = 0; i < rt->class_count; i++) {
		struct rt_class *k = &rt->classes[i];
		k->super = class_index(rt, k->raw.super_class);
		k->component = class_index(rt, k->raw.component_type);
	}
	return cut_super_loops(rt, e);
}

int rt_find_classes(struct art_runtime *rt, struct err *e)
{
	int rc = rt_each_chunk(rt, false, collect_classes, NULL, e);
	if (rc)
		return rc;
	if (rt->class_count > 1) /* none when every Class is a forwarded copy: classes is NULL */
		qsort(rt->classes, rt->class_count, sizeof(rt->classes[0]), by_addr);
	if (rt->class_count > UINT32_MAX - 1)
		return ERR_SET(e, ERR_UNSUP, ERR_NO_VA, "%zu classes: more than the model holds", rt->class_count);
	if ((rc = hash_classes(rt, e)))
		return rc;
	return recover_damaged_classes(rt, e);
}

/* ---- names ---- */

static int name_class(struct art_runtime *rt, size_t i, unsigned depth, struct wbuf *b, struct err *e);

/* Appends the name from the class's DEX type_ids: 0, 1 if unknown (*why says why when the
 * type does not read), <0 error. */
static int name_from_dex(struct art_runtime *rt, struct rt_class *k, struct wbuf *b, struct err *why,
			 struct err *e)
{
	const uint8_t *s;
	size_t n;
	int rc;

	if (k->dex == RT_NONE)
		return 1;
	if ((rc = dex_type_descriptor(&rt->dexes[k->dex].dex, k->raw.dex_type_idx, &s, &n, why)) == 0)
		rc = mirror_java_name(s, n, b, why);
	if (rc < 0) {
		err_prefix(why, "dex_type_idx %u", k->raw.dex_type_idx);
		return rt_source_failed(rc, why, e);
	}
	k->name_how = "dex";
	rt->dexes[k->dex].classes++;
	return 0;
}

/* Appends Class.name_ when it is set: 0, 1 if unset or unreadable (*why), <0 error. */
static int name_from_string(struct art_runtime *rt, struct rt_class *k, struct wbuf *b, struct err *why,
			    struct err *e)
{
	size_t start = b->len;
	int rc;

	if (!k->raw.name)
		return 1;
	if ((rc = mirror_class_name_string(&rt->m, k->raw.name, RT_MAX_NAME, b, why)) == 0) {
		k->name_how = "name_";
		return 0;
	}
	b->len = start;
	err_prefix(why, "name_");
	return rt_source_failed(rc, why, e);
}

/* Appends the name from name_, else the primitive type, the component type or the DEX:
 * 0, 1 if unknown, <0 error.  Failed reads are settled (recorded) here. */
static int name_sources(struct art_runtime *rt, size_t i, unsigned depth, struct wbuf *b, struct err *e)
{
	struct rt_class *k = &rt->classes[i];
	struct err why_name, why_dex;
	const char *p;
	int rc;

	err_init(&why_name);
	err_init(&why_dex);
	if ((rc = name_from_string(rt, k, b, &why_name, e)) != 1) {
		if (rc < 0)
			return rc;
	} else if ((p = mirror_primitive_name(k->raw.primitive_type & rt->layout->klass.primitive_mask))) {
		wbuf_put(b, p, strlen(p));
		k->name_how = "primitive";
		rc = 0;
	} else if (k->component != RT_NONE && k->component != i) {
		if ((rc = name_class(rt, k->component, depth + 1, b, e)) == 0) {
			wbuf_put(b, "[]", 2);
			k->name_how = "array";
		}
	} else {
		rc = name_from_dex(rt, k, b, &why_dex, e);
	}
	if (rc < 0)
		return rc;
	rt_settle(rt, ANOM_CLASS_NAME, k->addr, "name of class", rc == 1, &why_name, &why_dex);
	return rc;
}

/* Appends the name of class i to b (computing and caching it): 0, 1 if unknown, <0 error.
 * A class is worked out once: an unknown name is not retried (nor its damage recorded
 * again) when an array class of it asks. */
static int name_class(struct art_runtime *rt, size_t i, unsigned depth, struct wbuf *b, struct err *e)
{
	struct rt_class *k = &rt->classes[i];
	size_t start = b->len;
	int rc;

	if (k->name) {
		wbuf_put(b, k->name, strlen(k->name));
		return 0;
	}
	if (k->name_tried || depth > RT_MAX_ARRAY_DEPTH)
		return 1;
	k->name_tried = true;
	if ((rc = name_sources(rt, i, depth, b, e)) != 0)
		return rc;
	if (b->failed)
		return wbuf_status(b, e);
	/* an empty name leaves the buffer unallocated: no offset on a NULL pointer */
	k->name = rt_strdup(rt, b->data ? (const char *)b->data + start : "", b->len - start);
	return k->name ? 0 : rt_nomem(e);
}

int rt_name_classes(struct art_runtime *rt, struct err *e)
{
	struct wbuf b;
	int rc = 0;

	wbuf_init(&b);
	for (size_t i = 0; i < rt->class_count && rc >= 0; i++) {
		b.len = 0;
		rc = name_class(rt, i, 0, &b, e);
	}
	if (rc >= 0)
		rc = wbuf_status(&b, e);
	wbuf_release(&b);
	return rc < 0 ? rc : 0;
}

size_t runtime_class_named(const struct art_runtime *rt, const char *name)
{
	for (size_t i = 0; i < rt->class_count; i++)
		if (rt->classes[i].name && !strcmp(rt->classes[i].name, name))
			return i;
	return RT_NONE;
}

/* By name; else (the name lost to damage or to bytes not captured) the one class whose
 * class_flags_ say String: kClassFlagString = 0x4 (runtime/class_flags.h @R11; 7.0+). */
size_t runtime_string_class(const struct art_runtime *rt)
{
	size_t found = runtime_class_named(rt, "java.lang.String");
	if (found != RT_NONE)
		return found;
	if (!rt->layout || rt->layout->klass.class_flags == ART_ABSENT)
		return RT_NONE;
	for (size_t i = 0; i < rt->class_count; i++) {
		const struct rt_class *k = &rt->classes[i];
		if (!(k->raw.class_flags & 0x4u) || k->raw.component_type || (k->name && strcmp(k->name, "java.lang.String")))
			continue;
		if (found != RT_NONE)
			return RT_NONE;   /* two: the flags do not tell */
		found = i;
	}
	return found;
}
