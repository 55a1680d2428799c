/* runtime_dex_cache.c - which DEX file each class comes from, through its DexCache. */
#include "art/runtime/runtime.h"

#include <stdlib.h>
#include <string.h>

#include "art/runtime/runtime_int.h"
#include "carver/base/xalloc.h"

/* ---- DexCache -> DEX ---- */

/* A source of one fact failed: -ERR_NOMEM moves to e and is returned; anything else stays
 * in *why for rt_settle and 1 is returned (the next source is tried). */
int rt_source_failed(int rc, struct err *why, struct err *e)
{
	if (rc == -ERR_NOMEM)
		return (*e = *why, rc);
	return 1;
}

/* Once the sources of one fact about the structure at va were tried (a and b: why each
 * failed, code 0 if it did not): bytes that were captured but wrong are damage, recorded
 * even when the other source supplied the fact; bytes that were not captured are a gap,
 * recorded only when the fact is lost (lost: no source gave it). */
void rt_settle(struct art_runtime *rt, enum anomaly_code code, uint64_t va, const char *what, bool lost,
	       const struct err *a, const struct err *b)
{
	const struct err *first = a->code ? a : b->code ? b : NULL;
	const char *space = rt_space_name(rt, va);

	if (!first)
		return;
	if (lost) {
		anomaly_add(&rt->anomalies, code, first->code, va, space, "%s at 0x%llx unknown: %s%s%s", what,
			    (unsigned long long)va, a->code ? a->msg : "", a->code && b->code ? "; " : "",
			    b->code ? b->msg : "");
		return;
	}
	if (a->code && a->code != ERR_UNMAPPED)
		anomaly_add(&rt->anomalies, code, a->code, va, space, "%s at 0x%llx (found elsewhere): %s", what,
			    (unsigned long long)va, a->msg);
	if (b->code && b->code != ERR_UNMAPPED)
		anomaly_add(&rt->anomalies, code, b->code, va, space, "%s at 0x%llx (found elsewhere): %s", what,
			    (unsigned long long)va, b->msg);
}

/* 1 when the class's class_def in d names its own type, 0 when not (indexes outside d are
 * a "no": the class may come from another DEX); <0 only if a checked index does not read. */
int rt_class_def_agrees(const struct dex *d, const struct mirror_class *c, struct err *e)
{
	struct dex_class_def def;
	int rc;

	if (c->dex_class_def_idx >= d->class_defs_size || c->dex_type_idx >= d->type_ids_size)
		return 0;
	if ((rc = dex_class_def(d, c->dex_class_def_idx, &def, e)) < 0)
		return rc;
	return def.class_idx == c->dex_type_idx;
}

/* Classes loaded from a class_def (not arrays, primitives or proxies) vote for their DEX. */
static bool dex_class_votes(const struct rt_class *k)
{
	return k->raw.dex_cache && !k->raw.component_type && !(k->raw.primitive_type & 0xffff) &&
	       k->raw.dex_class_def_idx != 0xffffffffu && k->raw.dex_class_def_idx != 0xffffu;
}

/* Second pass of the vote: a DEX with which all but a few of a DexCache's classes agree
 * (one, and one more per 50 voters; at least 3 agreeing) is theirs: the few are damaged
 * classes, not evidence of another DEX.  Unique, or confirmed by the DexCache's location or
 * native pointer, as in the first pass. */
static bool dex_vote_carries(size_t agree, size_t voters)
{
	return agree >= 3 && voters - agree <= 1 + voters / 50;
}

/* The DEX a vote chose: the first one its DexCache's location or native pointer confirms,
 * else the only one (tie: more than one, none confirmed). */
struct dex_vote { size_t d; bool tie, confirmed; };

static void dex_vote_take(struct dex_vote *v, size_t d, bool confirmed)
{
	if (v->confirmed)
		return;
	v->tie = !confirmed && v->d != RT_NONE;
	v->d = d;
	v->confirmed = confirmed;
}

/* The DEX whose address is what DexCache.dex_file_->begin_ holds, RT_NONE if none is known
 * (*why says why when DexFile.begin_ does not read). */
static size_t dex_by_native(struct art_runtime *rt, const struct mirror_dex_cache *dc, struct err *why)
{
	uint64_t begin;

	if (!dc->dex_file)
		return RT_NONE;
	if (mirror_ptr(&rt->m, dc->dex_file + (uint64_t)rt->layout->dex_file.begin_slot * rt->pointer_size, &begin,
		       why)) {
		err_prefix(why, "dex_file_");
		return RT_NONE;
	}
	for (size_t i = 0; i < rt->dex_count; i++)
		if (rt->dexes[i].addr == begin)
			return i;
	return RT_NONE;
}

/* DexCache.location_: 0 (*out NULL when absent or unreadable: *why says why), -ERR_NOMEM. */
static int cache_location(struct art_runtime *rt, const struct mirror_dex_cache *dc, const char **out,
			  struct err *why, struct err *e)
{
	struct wbuf b;
	int rc;

	*out = NULL;
	if (!dc->location)
		return 0;
	wbuf_init(&b);
	rc = mirror_string(&rt->m, dc->location, RT_MAX_NAME, &b, why);
	if (rc == 0 && !(*out = rt_strdup(rt, b.data ? (const char *)b.data : "", b.len)))
		rc = rt_nomem(why);
	wbuf_release(&b);
	if (rc < 0) {
		err_prefix(why, "location_");
		return rt_source_failed(rc, why, e) < 0 ? rc : 0;
	}
	return 0;
}

static bool same_location(const char *a, const char *b)
{
	return a && b && *a && !strcmp(a, b);
}

/* Classes [lo, hi) of order[] share one DexCache: *pick = their DEX, RT_NONE if unknown. */
static int resolve_cache(struct art_runtime *rt, const size_t *order, size_t lo, size_t hi, size_t *pick_out,
			 struct err *e)
{
	uint32_t cache = rt->classes[order[lo]].raw.dex_cache;
	const char *loc = NULL;
	size_t native = RT_NONE, pick = RT_NONE, voters = 0;
	bool tie = false;
	struct mirror_dex_cache dc;
	struct err why_loc, why_native;
	int rc;

	err_init(&why_loc);
	err_init(&why_native);
	/* a DexCache that does not read leaves both sources unknown (why_loc says why) */
	if (mirror_dex_cache_read(&rt->m, cache, &dc, &why_loc) == 0) {
		if ((rc = cache_location(rt, &dc, &loc, &why_loc, e)) < 0)
			return rc;
		native = dex_by_native(rt, &dc, &why_native);
	}
	/* every class agrees with its DEX in a sound image; damage to a few classes' indexes
	 * (dissenters, set apart in rt_resolve_dex_caches) must not lose the DEX of the others:
	 * one count per DEX serves both votes, the near-unanimous one only when none is whole */
	struct dex_vote whole = { RT_NONE, false, false }, near = { RT_NONE, false, false };
	for (size_t d = 0; d < rt->dex_count && !whole.confirmed; d++) {
		size_t agree = 0;
		voters = 0;
		for (size_t i = lo; i < hi; i++) {
			const struct rt_class *k = &rt->classes[order[i]];
			if (!dex_class_votes(k))
				continue;
			voters++;
			if ((rc = rt_class_def_agrees(&rt->dexes[d].dex, &k->raw, e)) < 0)
				return rc;
			agree += (size_t)rc;
		}
		bool confirmed = d == native || same_location(loc, rt->dexes[d].location);
		if (voters && agree == voters)
			dex_vote_take(&whole, d, confirmed);
		else if (voters && dex_vote_carries(agree, voters))
			dex_vote_take(&near, d, confirmed);
	}
	const struct dex_vote *v = whole.d != RT_NONE ? &whole : &near;
	pick = v->d;
	tie = v->tie;
	if (pick != RT_NONE && !tie && loc && !*rt->dexes[pick].location)
		rt->dexes[pick].location = loc;
	if (pick != RT_NONE && !tie && pick == native)
		rt->dex_caches_by_pointer++;
	*pick_out = tie ? RT_NONE : pick;
	/* lost: classes that would name themselves through it have no DEX */
	rt_settle(rt, ANOM_DEX_CACHE, cache, "DexCache's DEX", *pick_out == RT_NONE && voters, &why_native, &why_loc);
	return 0;
}

struct cache_ref {
	uint32_t cache;
	size_t i;
};

static int by_cache(const void *a, const void *b)
{
	const struct cache_ref *x = a, *y = b;
	if (x->cache != y->cache)
		return x->cache < y->cache ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* k's DEX is its DexCache's d, unless k's own indexes disagree with d: then k was damaged
 * (its DexCache's other classes chose d) and waits for repair_dissenters.  0 or <0. */
static int set_class_dex(struct art_runtime *rt, struct rt_class *k, size_t d, struct err *e)
{
	int rc = 1;

	if (d != RT_NONE && dex_class_votes(k) && (rc = rt_class_def_agrees(&rt->dexes[d].dex, &k->raw, e)) < 0)
		return rc;
	k->dex = rc ? d : RT_NONE;
	k->dissent_dex = rc ? RT_NONE : d;
	return 0;
}

/* The descriptor of k's super class in its own DEX ("" for none: java.lang.Object's super),
 * NULL with *why set when unknown. */
static const uint8_t *super_descriptor(const struct art_runtime *rt, const struct rt_class *k, size_t *n,
				       struct err *why)
{
	const uint8_t *s;

	*n = 0;
	if (!k->raw.super_class)
		return (const uint8_t *)"";
	const struct rt_class *sk = k->super == RT_NONE ? NULL : &rt->classes[k->super];
	if (!sk || sk->dex == RT_NONE) {
		ERR_SET(why, ERR_UNSUP, k->addr, "its super class at 0x%x has no known DEX", k->raw.super_class);
		return NULL;
	}
	if (dex_type_descriptor(&rt->dexes[sk->dex].dex, sk->raw.dex_type_idx, &s, n, why))
		return NULL;
	return s;
}

/* Does class_def ci of d fit k: its super class is k's, and no sound class of k's DexCache
 * was loaded from it?  1, 0 (*why says why), <0 error. */
static int class_def_fits(const struct art_runtime *rt, const struct rt_class *k, const struct dex *d, uint32_t ci,
			  struct err *why, struct err *e)
{
	struct dex_class_def def;
	const uint8_t *want, *got = (const uint8_t *)"";
	size_t wn, gn = 0;
	int rc;

	if (ci >= d->class_defs_size)
		return ERR_SET(why, ERR_CORRUPT, k->addr, "class_def %u past the DEX's %u", ci, d->class_defs_size), 0;
	if (!(want = super_descriptor(rt, k, &wn, why)))
		return 0;
	if ((rc = dex_class_def(d, ci, &def, e)) < 0)
		return rc;
	if (def.superclass_idx != 0xffffffffu && dex_type_descriptor(d, def.superclass_idx, &got, &gn, why))
		return 0;
	if (gn != wn || memcmp(got, want, wn))
		return ERR_SET(why, ERR_CORRUPT, k->addr, "class_def %u names another super class", ci), 0;
	for (size_t i = 0; i < rt->class_count; i++) {
		const struct rt_class *o = &rt->classes[i];
		if (o != k && o->raw.dex_cache == k->raw.dex_cache && o->dex != RT_NONE && o->raw.dex_class_def_idx == ci)
			return ERR_SET(why, ERR_CORRUPT, k->addr, "class_def %u is the class at 0x%llx's", ci,
				       (unsigned long long)o->addr), 0;
	}
	return 1;
}

/* A class whose class_def and type indexes disagree with its DexCache's DEX (damage to one of
 * them): the other index, checked by the class_def's super class and by no sound class
 * owning the class_def, gives the pair back (the second source of the fact); otherwise the
 * class has no name or fields from the DEX.  Either way an anomaly says so.  0 or <0. */
static int repair_dissenter(struct art_runtime *rt, struct rt_class *k, struct err *e)
{
	const struct dex *d = &rt->dexes[k->dissent_dex].dex;
	struct dex_class_def def;
	uint32_t ci = k->raw.dex_class_def_idx, ti = k->raw.dex_type_idx, found = 0, fci = 0, fti = 0;
	struct err why;   /* why the last pair tried did not fit, for the anomaly */
	int rc;

	err_init(&why);
	/* trust the class_def index: its class_def names the type */
	if ((rc = class_def_fits(rt, k, d, ci, &why, e)) < 0)
		return rc;
	if (rc && (rc = dex_class_def(d, ci, &def, e)) == 0) {
		found++;
		fci = ci;
		fti = def.class_idx;
	}
	/* trust the type index: the class_def that defines it (class_defs are bounded by the DEX) */
	for (uint32_t c = 0; rc >= 0 && ti < d->type_ids_size && c < d->class_defs_size; c++) {
		if ((rc = dex_class_def(d, c, &def, e)) < 0)
			return rc;
		if (def.class_idx != ti || c == fci)
			continue;
		if ((rc = class_def_fits(rt, k, d, c, &why, e)) < 0)
			return rc;
		if (rc) {
			found++;
			fci = c;
			fti = ti;
		}
	}
	if (found == 1) {
		anomaly_add(&rt->anomalies, ANOM_CLASS, ERR_CORRUPT, k->addr, rt_space_name(rt, k->addr),
			    "class at 0x%llx: class_def %u / type %u disagree with its DexCache's DEX (damage): "
			    "read as class_def %u / type %u, the pair whose super class is the class's",
			    (unsigned long long)k->addr, ci, ti, fci, fti);
		k->raw.dex_class_def_idx = fci;
		k->raw.dex_type_idx = fti;
		k->dex = k->dissent_dex;
	} else {
		anomaly_add(&rt->anomalies, ANOM_CLASS, ERR_CORRUPT, k->addr, rt_space_name(rt, k->addr),
			    "class at 0x%llx: class_def %u / type %u disagree with its DexCache's DEX (damage) "
			    "and %s%s%s: no name or fields from the DEX", (unsigned long long)k->addr, ci, ti,
			    found ? "two pairs fit" : "no other pair fits (", found ? "" : why.msg, found ? "" : ")");
	}
	k->dissent_dex = RT_NONE;
	return 0;
}

static int repair_dissenters(struct art_runtime *rt, struct err *e)
{
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < rt->class_count; i++)
		if (rt->classes[i].dissent_dex != RT_NONE)
			rc = repair_dissenter(rt, &rt->classes[i], e);
	return rc;
}

int rt_resolve_dex_caches(struct art_runtime *rt, struct err *e)
{
	size_t n = 0;
	int rc = 0;
	struct cache_ref *refs = xcalloc(rt->class_count ? rt->class_count : 1, sizeof(*refs));
	size_t *order = xcalloc(rt->class_count ? rt->class_count : 1, sizeof(*order));
	if (!refs || !order) {
		xfree(refs);
		xfree(order);
		return rt_nomem(e);
	}
	for (size_t i = 0; i < rt->class_count; i++)
		if (rt->classes[i].raw.dex_cache)
			refs[n++] = (struct cache_ref){ rt->classes[i].raw.dex_cache, i };
	qsort(refs, n, sizeof(*refs), by_cache);
	for (size_t i = 0; i < n; i++)
		order[i] = refs[i].i;
	for (size_t lo = 0, hi; rc == 0 && lo < n; lo = hi) {
		size_t d = RT_NONE;
		for (hi = lo + 1; hi < n && refs[hi].cache == refs[lo].cache; hi++)
			;
		if ((rc = resolve_cache(rt, order, lo, hi, &d, e)) < 0)
			break;
		rt->dex_caches++;
		rt->dex_caches_resolved += d != RT_NONE;
		for (size_t i = lo; i < hi && rc == 0; i++)
			rc = set_class_dex(rt, &rt->classes[order[i]], d, e);
	}
	xfree(refs);
	xfree(order);
	return rc ? rc : repair_dissenters(rt, e);
}
