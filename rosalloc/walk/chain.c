/* chain.c - the second source of an object start inside a contiguous walk: converging chains
 * (issue 23).
 *
 * Contiguous walks (contig.c, region.c) step from one object to the next by the size the
 * object's own words give; an array's length_ or a String's count_ that one damaged word made
 * too large would swallow every object after it up to its claimed end.  The objects that really
 * follow it form a second chain: it starts at the first word inside the claimed extent, past
 * the smallest object of that class, that names a known class, and goes on object by object.
 * When that chain, every object on it sound, meets the outer chain (the walk from the claimed
 * end, as the walker would go on), and the claimed end contradicts the layout (it lies inside
 * an object of the inner chain, or in a zero run that goes on past it: no object starts there),
 * the length word is the one that disagrees: the object is cut where the inner chain starts.
 * A genuine array whose data holds a copy of objects (or references that read as a class word)
 * stays whole when a sound object starts at its end (the next object back to back), when the
 * copy's chain does not meet the outer one, or when the live bitmap leaves the inner start
 * unmarked. */
#include "rosalloc/walk/walk.h"

#include "art/format/art_layout.h"
#include "rosalloc/walk/walk_int.h"

enum { CH_ALIGN = 8, CH_TRIES = 64 };
#define CH_POISON 0xBADDB01Du

static uint64_t ch_round(uint64_t size) { return (size + CH_ALIGN - 1) & ~(uint64_t)(CH_ALIGN - 1); }

/* The class word at off names a known class (a cheap range check first: most array data is
 * no class address). */
static bool ch_class(struct rt_sizer *z, uint32_t klass)
{
	const struct art_runtime *rt = z->rt;
	return klass && !(klass & 7) && rt->class_count && klass >= rt->classes[0].addr &&
	       klass <= rt->classes[rt->class_count - 1].addr && runtime_sizer_class(z, klass);
}

/* Offset of the word an object's size is read from (array length_, String count_), 0 when its
 * size comes from its class alone; *what names it. */
static unsigned ch_length_word(struct rt_sizer *z, uint32_t klass, const char **what)
{
	const struct art_layout *l = z->rt->layout;
	const struct rt_class *k = runtime_sizer_class(z, klass);
	if (!l || !k || klass == z->rt->java_lang_class)
		return 0;
	if (k->raw.component_type) {
		*what = "array length";
		return l->array.length;
	}
	if (z->jls && klass == z->jls && l->string.value != ART_ABSENT) {
		*what = "String count_";
		return l->string.count;
	}
	return 0;
}

/* The position after the one at off of a chain over s: a zero word (poison too in a region
 * space that poisons) or a sized object that fits (*object).  The strict chain (the inner one)
 * returns SIZE_MAX at anything else; the outer one steps over it a word at a time, as the
 * walkers do.  A probe: an object that does not size is the answer (why is not kept). */
static size_t ch_step(struct rt_sizer *z, const struct wk_span *s, size_t off, bool strict, bool *object)
{
	*object = false;
	if (CH_ALIGN > s->n - off)
		return s->n;
	uint64_t word = wk_u64(s->p + off), size;
	if (!word || (s->poison && (uint32_t)word == CH_POISON))
		return off + CH_ALIGN;
	struct err why;
	err_init(&why);
	if (ch_class(z, (uint32_t)word) &&
	    runtime_sizer_size(z, s->va + off, s->p + off, s->n - off, &size, &why) == 0 && size &&
	    ch_round(size) <= s->n - off) {
		*object = true;
		return off + (size_t)ch_round(size);
	}
	return strict ? SIZE_MAX : off + CH_ALIGN;
}

/* How the inner chain from q met the outer chain from e. */
struct ch_meet {
	bool straddle;   /* an inner object covers e */
	bool via_zero;   /* the inner chain reached e over a zero word */
};

/* Whether the inner chain from q (strict) meets the outer chain from e: the one behind steps
 * until both stand at one position (both chains only move forward: bounded by the span). */
static bool ch_meets(struct rt_sizer *z, const struct wk_span *s, size_t q, size_t e, struct ch_meet *m)
{
	size_t a = q, b = e;
	bool object;
	*m = (struct ch_meet){ 0 };
	while (a != b) {
		if (a > b) {
			b = ch_step(z, s, b, false, &object);
			continue;
		}
		size_t next = ch_step(z, s, a, true, &object);
		if (next == SIZE_MAX)
			return false;
		if (a < e && next > e)
			m->straddle = true;
		if (next == e)
			m->via_zero = !object;
		a = next;
	}
	return true;
}

/* The claimed end e contradicts the inner chain's layout: no sound object starts at e (a
 * genuine array ends where the next object begins, even when the last words of its data look
 * like an object that runs past it), and e lies inside an inner object or in the zero run the
 * inner chain ended in, which goes on past it. */
static bool ch_contradicts(struct rt_sizer *z, const struct wk_span *s, size_t e, const struct ch_meet *m)
{
	bool object;
	if (e < s->n && ch_step(z, s, e, true, &object) != SIZE_MAX && object)
		return false;
	return m->straddle || (m->via_zero && (CH_ALIGN > s->n - e || !wk_u64(s->p + e)));
}

uint64_t wk_chain_cut(struct space_walk *w, struct rt_sizer *z, const struct wk_span *s, size_t off, uint64_t step,
		      enum anomaly_code code)
{
	const char *what = "";
	unsigned lw = ch_length_word(z, wk_u32(s->p + off), &what);
	/* the smallest such object ends after its length word (its data may be empty) */
	uint64_t min = ch_round(lw + 4u);
	if (!lw || step > s->n - off || lw + 4u > s->n - off || min >= step)
		return 0;
	size_t e = off + (size_t)step;
	unsigned tries = 0;
	for (size_t q = off + (size_t)min; q < e && tries < CH_TRIES; q += CH_ALIGN) {
		if (!ch_class(z, wk_u32(s->p + q)))
			continue;
		tries++;
		struct ch_meet m;
		if (!ch_meets(z, s, q, e, &m) || !ch_contradicts(z, s, e, &m) ||
		    (w->ev && walk_evidence_live(w->ev, w->s, s->va + q) == 0))
			continue;
		wk_anom(w, code, ERR_CORRUPT, s->va + off,
			"object at 0x%llx: %s %u (%llu bytes) disagrees with the next object at 0x%llx; cut there",
			(unsigned long long)(s->va + off), what, wk_u32(s->p + off + lw), (unsigned long long)step,
			(unsigned long long)(s->va + q));
		return q - off;
	}
	return 0;
}
