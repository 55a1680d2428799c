/* runtime_layout.c - the layout family (which ART release) and java.lang.Class, and the
 * pointer size. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "art/runtime/runtime.h"

#include "art/runtime/runtime_int.h"
#include "carver/base/xalloc.h"

/* ---- layout family and java.lang.Class ---- */

struct self_scan {
	uint64_t *v;
	size_t n, cap;
};

static int collect_self(struct art_runtime *rt, uint64_t va, const uint8_t *p, size_t n, void *ctx,
			struct err *e)
{
	struct self_scan *s = ctx;
	(void)rt;
	for (size_t off = 0; off + 8 <= n && s->n < RT_MAX_SELF; off += 8) {
		if (ld_u32le(p + off) != (uint32_t)(va + off))
			continue;
		if (XALLOC_GROW(s->v, s->cap, s->n + 1, 16))
			return rt_nomem(e);
		s->v[s->n++] = va + off;
	}
	return 0;
}

static int jlc_refuted(struct err *why, uint64_t jlc, const struct art_layout *l, const char *what)
{
	ERR_SET(why, ERR_UNSUP, jlc, "candidate 0x%llx read with layout %s: %s", (unsigned long long)jlc, l->family,
		what);
	return -1;
}

/* How well row l explains candidate jlc as java.lang.Class: -1 if it cannot (*why says what
 * refutes it), else the number of optional checks passed. */
static int jlc_score(const struct art_runtime *rt, const struct art_layout *l, uint64_t jlc, struct err *why)
{
	struct mirror m = { rt->img, l, 8 };
	struct mirror_class c, o, dc;
	uint32_t k;
	int score = 0;

	if (mirror_class_read(&m, jlc, &c, why))
		return -1;
	if (!mirror_class_plausible(&m, &c, jlc) || c.super_class == 0 || c.component_type != 0 ||
	    (c.primitive_type & l->klass.primitive_mask))
		return jlc_refuted(why, jlc, l, "not a plausible non-array, non-primitive Class with a super class");
	/* java.lang.Object: no super class, 8-byte instances (the object header) */
	if (mirror_class_read(&m, c.super_class, &o, why))
		return -1;
	if (!mirror_class_plausible(&m, &o, jlc) || o.super_class != 0 || o.object_size != l->object.size)
		return jlc_refuted(why, jlc, l, "its super class is not java.lang.Object");
	if (l->klass.class_flags != ART_ABSENT) {
		if (!(c.class_flags & RT_CLASS_FLAG_CLASS))
			return jlc_refuted(why, jlc, l, "class_flags_ lack kClassFlagClass");
		score++;
	}
	/* the DexCache's class is optional evidence: a DexCache or class not captured (the read
	 * fails) adds nothing and refutes nothing */
	uint32_t cache = c.dex_cache ? c.dex_cache : o.dex_cache;
	if (cache && mirror_klass(&m, cache, &k, why) == 0 && mirror_class_read(&m, k, &dc, why) == 0) {
		/* its instances have this family's size */
		if (!mirror_class_plausible(&m, &dc, jlc) || dc.object_size != l->dex_cache.size)
			return jlc_refuted(why, jlc, l, "its DexCache's class does not have this layout's DexCache size");
		score += 2;
	}
	return score;
}

int rt_layout_from_option(struct art_runtime *rt, const char *family, struct err *e)
{
	rt->layout = art_layout_by_family(family);
	if (!rt->layout)
		return ERR_SET(e, ERR_USAGE, ERR_NO_VA, "unknown ART version '%s' (known layout families: %s)",
			       family, runtime_families());
	rt->layout_by_version = true;
	rt->layout_how = rt_printf(rt, "--art-version %s", family);
	return rt->layout_how ? 0 : rt_nomem(e);
}

int rt_layout_from_images(struct art_runtime *rt, struct err *e)
{
	for (size_t i = 0; i < rt->image_count; i++) {
		const struct art_layout *l = art_layout_by_image_version(rt->images[i].version);
		if (!l)
			continue;
		rt->layout = l;
		/* rows sharing the image version (108) are told apart by the OAT version of a
		 * mapped OAT file (boot.oat) whose range one of them holds */
		for (size_t j = 0; art_layout_image_shared(l) && j < rt->file_count; j++) {
			const struct art_layout *o = art_layout_by_versions(rt->images[i].version, rt->files[j].version);
			if (!rt->files[j].version || o->oat_version_min > rt->files[j].version ||
			    o->oat_version_max < rt->files[j].version)
				continue;
			rt->layout = o;
			rt->layout_by_version = true;
			rt->layout_how = rt_printf(rt, "image header version %03u at 0x%llx, OAT header version %03u in %s",
						   rt->images[i].version, (unsigned long long)rt->images[i].begin,
						   rt->files[j].version, rt->files[j].name);
			return rt->layout_how ? 0 : rt_nomem(e);
		}
		rt->layout_how = rt_printf(rt, "image header version %03u at 0x%llx", rt->images[i].version,
					   (unsigned long long)rt->images[i].begin);
		return rt->layout_how ? 0 : rt_nomem(e);
	}
	return 0;
}

int rt_layout_from_oat(struct art_runtime *rt, struct err *e)
{
	for (size_t i = 0; i < rt->file_count; i++) {
		const struct art_layout *l = art_layout_by_oat_version(rt->files[i].version);
		if (!l)
			continue;
		rt->layout = l;
		rt->layout_by_version = true;
		rt->layout_how = rt_printf(rt, "OAT header version %03u in %s", rt->files[i].version, rt->files[i].name);
		return rt->layout_how ? 0 : rt_nomem(e);
	}
	return 0;
}

/* Writes to list (cap > 0) the other families whose objects read as l's, comma-separated,
 * "" if none (cut at cap): content alone cannot choose among them, and their native layouts
 * (ArtMethod, image header) differ. */
static void content_alike(const struct art_layout *l, char *list, size_t cap)
{
	size_t n = 0;

	list[0] = 0;
	for (size_t i = 0; i < art_layout_count; i++) {
		const struct art_layout *o = &art_layouts[i];
		if (o == l || !art_layout_same_objects(l, o))
			continue;
		int w = snprintf(list + n, cap - n, "%s%s", n ? ", " : "", o->family);
		if (w < 0 || (size_t)w >= cap - n)
			break;
		n += (size_t)w;
	}
}

/* ---- second source: the class of the Classes (issue 23) ----
 * One damaged word of java.lang.Class (its class word), of java.lang.Object's Class or of
 * the DexCache's Class refutes every candidate above.  Every other Class still names
 * java.lang.Class twice: its class word, and its super class's class word.  Those votes
 * give the candidates; each is read against the facts above allowing one to fail (one
 * damaged word spoils at most one), and the disagreement is recorded as an anomaly. */

struct jlc_vote {
	uint32_t jlc, at;   /* the class word's value and the Class holding it */
};

struct vote_scan {
	struct jlc_vote *v;
	size_t n, cap;
	unsigned super_off[4], offs;   /* the super_class_ offsets of the rows tried */
};

/* The words of the chunk at va that may be the class word (value v) of a Class. */
static int collect_votes(struct art_runtime *rt, uint64_t va, const uint8_t *p, size_t n, void *ctx, struct err *e)
{
	struct vote_scan *s = ctx;
	struct mirror m = { rt->img, &art_layouts[0], 8 };

	for (size_t off = 0; off + 8 <= n && s->n < RT_MAX_VOTES; off += 8) {
		uint32_t v = ld_u32le(p + off), k;
		if (!v || (v & 7))
			continue;
		for (unsigned i = 0; i < s->offs; i++) {
			if (s->super_off[i] + 4 > n - off)
				continue;
			/* its super class's class is v, or v is its own class (one of the two holds
			 * when one of them is damaged) */
			uint32_t super = ld_u32le(p + off + s->super_off[i]);
			if (!super || (super & 7) || !mirror_peek_u32(&m, super, &k) ||
			    (k != v && (!mirror_peek_u32(&m, v, &k) || k != v)))
				continue;
			if (XALLOC_GROW(s->v, s->cap, s->n + 1, 256))
				return rt_nomem(e);
			s->v[s->n++] = (struct jlc_vote){ v, (uint32_t)(va + off) };
			break;
		}
	}
	return 0;
}

static int vote_cmp(const void *a, const void *b)
{
	const struct jlc_vote *x = a, *y = b;
	return x->jlc != y->jlc ? (x->jlc < y->jlc ? -1 : 1) : (x->at < y->at ? -1 : x->at > y->at);
}

/* The facts of jlc read with row l that fail (as jlc_score's, a fact not read failing
 * none), one damaged word counted once; *first names the first. */
static unsigned jlc_misfits(const struct art_runtime *rt, const struct art_layout *l, uint64_t jlc, const char **first,
			    struct err *why)
{
	struct mirror m = { rt->img, l, 8 };
	struct mirror_class c, o, dc;
	const char *field;
	unsigned bad = 0;
	uint32_t k;

	*first = "";
	if (mirror_class_read(&m, jlc, &c, why))
		return UINT_MAX;
	struct mirror_class own = c;
	own.klass = (uint32_t)jlc;   /* its fields, apart from its class word */
	unsigned fields = mirror_class_misfits(&m, &own, jlc, &field);
	if (c.klass != jlc) {
		*first = "its class word is not itself";
		bad++;
	}
	bool has_super = c.super_class && !(c.super_class & 7) && mirror_class_read(&m, c.super_class, &o, why) == 0;
	if (fields == 1 && !strcmp(field, "super_class_"))
		fields = 0;   /* its super_class_ or java.lang.Object's Class damaged: the fact below */
	if (fields || c.component_type != 0 || (c.primitive_type & l->klass.primitive_mask)) {
		if (!bad++)
			*first = "not a plausible non-array, non-primitive Class";
		bad += fields > 1;
	}
	if ((!has_super || !mirror_class_plausible(&m, &o, jlc) || o.super_class != 0 ||
	     o.object_size != l->object.size) && !bad++)
		*first = "its super class is not java.lang.Object";
	if (l->klass.class_flags != ART_ABSENT && !(c.class_flags & RT_CLASS_FLAG_CLASS) && !bad++)
		*first = "class_flags_ lack kClassFlagClass";
	uint32_t cache = c.dex_cache ? c.dex_cache : has_super ? o.dex_cache : 0;
	if (cache && mirror_klass(&m, cache, &k, why) == 0 && mirror_class_read(&m, k, &dc, why) == 0 &&
	    /* its super class is java.lang.Object: damage there is the fact above */
	    (mirror_class_misfits(&m, &dc, jlc, &field) > 1 || dc.object_size != l->dex_cache.size)) {
		/* another family's DexCache size exactly is that family's image, no damage */
		for (size_t j = 0; j < art_layout_count; j++)
			if (art_layouts[j].dex_cache.size == dc.object_size && dc.object_size != l->dex_cache.size)
				return UINT_MAX;
		if (!bad++)
			*first = "its DexCache's class does not have this layout's DexCache size";
	}
	return bad;
}

/* How many of the Classes voting for jlc read as plausible Classes with row l, and how many
 * of their DexCaches have l's size: rows alike in the facts of java.lang.Class are told
 * apart by the other classes. */
static size_t jlc_row_support(const struct art_runtime *rt, const struct art_layout *l, const struct jlc_vote *v,
			      size_t n, struct err *why)
{
	struct mirror m = { rt->img, l, 8 };
	struct mirror_class c, dc;
	size_t good = 0;
	uint32_t k;

	for (size_t i = 0; i < n && i < RT_MAX_VOTE_READS; i++) {
		if (mirror_class_read(&m, v[i].at, &c, why) || !mirror_class_plausible(&m, &c, v[i].jlc))
			continue;
		good++;
		/* and its DexCache has this row's size: the DexCache size of java.lang.Class's own
		 * DexCache told apart rows whose Classes read alike */
		good += c.dex_cache && mirror_klass(&m, c.dex_cache, &k, why) == 0 &&
			mirror_class_read(&m, k, &dc, why) == 0 && dc.object_size == l->dex_cache.size;
	}
	return good;
}

struct jlc_pick {
	uint64_t va;
	const struct art_layout *l;
	size_t votes, support;
	unsigned bad;
	const char *first;
	bool tie;   /* another row, reading objects otherwise, fits as well */
};

/* The best row for candidate v[0..n) (the votes for one value), into *p if better. */
static void jlc_try(const struct art_runtime *rt, const struct jlc_vote *v, size_t n, struct jlc_pick *p,
		    struct err *why)
{
	for (size_t j = 0; j < art_layout_count; j++) {
		const struct art_layout *l = &art_layouts[j];
		const char *first;
		if (rt->layout && l != rt->layout)
			continue;
		unsigned bad = jlc_misfits(rt, l, v[0].jlc, &first, why);
		if (bad > 1)
			continue;
		size_t support = jlc_row_support(rt, l, v, n, why);
		if (!p->l || bad < p->bad || (bad == p->bad && support > p->support))
			*p = (struct jlc_pick){ v[0].jlc, l, n, support, bad, first, false };
		else if (bad == p->bad && support == p->support && p->va == v[0].jlc && !art_layout_same_but_link(p->l, l))
			p->tie = true;
	}
}

/* java.lang.Class by the votes of the other Classes; 0 with rt->java_lang_class set (and the
 * row unless fixed), -ERR_UNSUP if no candidate holds.  *why takes the reads that fail. */
static int find_jlc_by_votes(struct art_runtime *rt, bool images_only, const char *strict_why, struct err *why,
			     struct err *e)
{
	struct vote_scan s = { 0 };
	struct jlc_pick best = { 0 };

	for (size_t j = 0; j < art_layout_count; j++) {
		const struct art_layout *l = &art_layouts[j];
		bool seen = false;
		for (unsigned i = 0; i < s.offs; i++)
			seen |= s.super_off[i] == l->klass.super_class;
		if ((!rt->layout || l == rt->layout) && !seen && s.offs < 4)
			s.super_off[s.offs++] = l->klass.super_class;
	}
	int rc = rt_each_chunk(rt, images_only, collect_votes, &s, e);
	if (rc == 0 && s.n)
		qsort(s.v, s.n, sizeof(*s.v), vote_cmp);
	for (size_t i = 0; rc == 0 && i < s.n;) {
		size_t j = i;
		while (j < s.n && s.v[j].jlc == s.v[i].jlc)
			j++;
		if (j - i >= RT_MIN_VOTES)
			jlc_try(rt, s.v + i, j - i, &best, why);
		i = j;
	}
	xfree(s.v);
	if (rc)
		return rc;
	if (!best.l || best.tie)
		return -ERR_UNSUP;
	rt->java_lang_class = best.va;
	if (!rt->layout) {
		rt->layout = best.l;
		rt->layout_how = rt_printf(rt, "content: java.lang.Class at 0x%llx, the class of %zu Classes; %s fits "
					   "best (%zu points: those it reads as Classes, and their DexCaches of its size)", (unsigned long long)best.va, best.votes,
					   best.l->family, best.support);
		if (!rt->layout_how)
			return rt_nomem(e);
	}
	anomaly_add(&rt->anomalies, ANOM_CLASS, ERR_CORRUPT, best.va, rt_space_name(rt, best.va),
		    "java.lang.Class at 0x%llx found by its second source, the class of %zu Classes: as its own "
		    "class it fails (damage): %s; %s", (unsigned long long)best.va, best.votes,
		    best.bad ? best.first : "no single fact", strict_why);
	return 0;
}

/* Picks java.lang.Class among the self-referencing words (of the image spaces only, or of
 * every object space) and, unless fixed, the row. */
static int find_jlc_in(struct art_runtime *rt, bool images_only, struct err *e)
{
	struct self_scan s = { 0 };
	int rc = rt_each_chunk(rt, images_only, collect_self, &s, e);
	int best = -1;
	const struct art_layout *best_l = NULL, *tie = NULL;
	uint64_t best_va = 0;
	struct err why, first_why;   /* why the first candidate was refuted, for the message */

	err_init(&why);
	err_init(&first_why);

	for (size_t i = 0; rc == 0 && i < s.n; i++) {
		int cbest = -1;
		const struct art_layout *cl = NULL, *ctie = NULL;
		for (size_t j = 0; j < art_layout_count; j++) {
			const struct art_layout *l = &art_layouts[j];
			if (rt->layout && l != rt->layout)
				continue;
			int sc = jlc_score(rt, l, s.v[i], &why);
			if (sc < 0 && i == 0 && !first_why.msg[0])
				first_why = why;
			if (sc > cbest) {
				cbest = sc;
				cl = l;
				ctie = NULL;
			} else if (sc >= 0 && sc == cbest && !art_layout_same_but_link(cl, l)) {
				/* rows that read every object alike are no ambiguity for the heap
				 * (the first is kept; layout_how says so); rows differing only in
				 * ClassLoader or in the LinkFields rule are settled by the classes'
				 * own fields later (rt_settle_field_link_row, rt_settle_class_loader_row) */
				ctie = l;
			}
		}
		if (cbest > best) {
			best = cbest;
			best_l = cl;
			tie = ctie;
			best_va = s.v[i];
		}
	}
	xfree(s.v);
	if (rc)
		return rc;
	if (best < 0 && (rc = find_jlc_by_votes(rt, images_only, first_why.msg, &why, e)) != -ERR_UNSUP)
		return rc;
	if (best < 0)
		return ERR_SET(e, ERR_UNSUP, ERR_NO_VA,
			       "no java.lang.Class found: no object whose class is itself reads as a Class in any "
			       "known layout (families %s); is this an ART process image? (%zu candidates%s%s)",
			       runtime_families(), s.n, s.n ? "; the first: " : "", first_why.msg);
	/* rows the facts of java.lang.Class cannot tell apart (its DexCache's class not read:
	 * damage) are told apart by the other classes */
	if (tie && (rc = find_jlc_by_votes(rt, images_only, "its DexCache's class does not read", &why, e)) !=
		       -ERR_UNSUP)
		return rc;
	if (tie)
		return ERR_SET(e, ERR_UNSUP, best_va,
			       "java.lang.Class at 0x%llx reads equally well with layouts %s and %s; "
			       "choose one with --art-version", (unsigned long long)best_va, best_l->family,
			       tie->family);
	rt->java_lang_class = best_va;
	if (!rt->layout) {
		rt->layout = best_l;
		char alike[128];
		content_alike(best_l, alike, sizeof(alike));
		rt->layout_how = rt_printf(rt, "content: java.lang.Class at 0x%llx (its own class) read with "
					   "every layout row; only %s fits (java.lang.Object size, Class flags, "
					   "DexCache size %u)%s%s", (unsigned long long)best_va, best_l->family,
					   best_l->dex_cache.size, alike[0] ? "; objects read alike in " : "", alike);
		if (!rt->layout_how)
			return rt_nomem(e);
	}
	return 0;
}

/* java.lang.Class is a boot image class: the image spaces are searched first (one pass over a
 * few MB), and the whole heap only when nothing there reads as java.lang.Class. */
int rt_find_jlc(struct art_runtime *rt, struct err *e)
{
	for (size_t i = 0; i < rt->spaces.count; i++) {
		if (rt->spaces.v[i].kind != SPACE_IMAGE)
			continue;
		int rc = find_jlc_in(rt, true, e);
		if (rc != -ERR_UNSUP)
			return rc;
		break;   /* the message of the whole search below replaces this one */
	}
	return find_jlc_in(rt, false, e);
}

/* ---- pointer size ---- */

void rt_choose_pointer_size(struct art_runtime *rt)
{
	size_t nonzero = 0;
	for (size_t i = 0; i < rt->image_count; i++) {
		unsigned p = rt->images[i].pointer_size;
		if (p == 4 || p == 8) {
			rt->pointer_size = p;
			rt->pointer_how = rt_printf(rt, "image header at 0x%llx", (unsigned long long)rt->images[i].begin);
			return;
		}
	}
	if (rt->img->pointer_bits == 32 || rt->img->pointer_bits == 64) {
		/* a core's ELF class is the process's word size; needed for 5.x, whose Class objects
		 * hold heap references where later versions hold native pointers */
		rt->pointer_size = rt->img->pointer_bits / 8;
		rt->pointer_how = rt->img->pointer_bits == 64 ? "container: ELF class 64 of the core"
							      : "container: ELF class 32 of the core";
		return;
	}
	for (size_t i = 0; i < rt->class_count; i++) {
		const struct mirror_class *c = &rt->classes[i].raw;
		const uint64_t v[3] = { c->ifields, c->methods, c->sfields };
		for (int j = 0; j < 3; j++) {
			if (v[j] >> 32) {
				rt->pointer_size = 8;
				rt->pointer_how = rt_printf(rt, "content: native pointer 0x%llx above 4 GiB in the Class at 0x%llx",
							    (unsigned long long)v[j], (unsigned long long)c->addr);
				return;
			}
			nonzero += v[j] != 0;
		}
	}
	rt->pointer_size = nonzero ? 4 : 8;
	rt->pointer_how = nonzero ? "content: every native pointer in Class objects is below 4 GiB"
				  : "unknown (no native pointers seen); 8 assumed";
}
