/* reach_doubt.c - reachability "unknown": objects no root of the image reaches, that a root
 * the image lacks would hold (see reach.h, enum reach_doubt).
 *
 * A trimmed image (ART's heap mappings only) holds neither libart's art::Runtime nor the
 * intern table nor the DexCaches' native arrays, so what only they hold looks dropped.  Each
 * rule below applies only while the root source that would decide it is missing, and names
 * objects by what ART itself does with them:
 *   dex literal      a String whose text is a string literal (string_ids) of a DEX file of
 *                    the image: const-string interns every literal it resolves (strong
 *                    intern table, runtime/intern_table.cc) and, 7.0+, the DexCache keeps it;
 *   runtime error    an OutOfMemoryError or NoClassDefFoundError whose detail message is one
 *                    of the runtime's pre-allocated ones ("...; no stack trace available":
 *                    Runtime::Init, runtime/runtime.cc @R14U, without a boot image);
 *   sentinel         a plain java.lang.Object in a non-moving space (Runtime::SetSentinel
 *                    checks !IsMovableObject, runtime/runtime.cc @R14U);
 *   class roots      an object array whose first two elements are java.lang.Class and
 *                    java.lang.Object: ClassLinker::class_roots_ (ClassRoot order,
 *                    runtime/class_root.h @R14U), held by the class linker.
 * What such an object references, and no root reaches, is unknown for the same reason. */
#include "rosalloc/model/reach.h"

#include <stdlib.h>
#include <string.h>

#include "art/mirror/mirror.h"
#include "carver/base/bsearch.h"
#include "carver/base/hash.h"
#include "carver/base/jobs.h"
#include "carver/base/wbuf.h"
#include "carver/base/xalloc.h"
#include "rosalloc/model/model_stats.h"

enum {
	DOUBT_MAX_CHARS = 4096,         /* longer Strings are no literal worth the read */
	DOUBT_MAX_DEX_STRINGS = 1 << 24 /* string_ids read per DEX (hostile bound) */
};

static const char *const doubt_names[REACH_DOUBT_COUNT] = {
	"none", "dex literal", "runtime error", "sentinel", "class roots", "held by unknown",
};

const char *reach_doubt_name(unsigned d) { return d < REACH_DOUBT_COUNT ? doubt_names[d] : "?"; }

struct literal {
	uint64_t hash;          /* FNV-1a of the WTF-8 text */
	uint32_t dex, idx;
};

struct doubt_ctx {
	const struct model *m;
	struct reach *r;
	const uint64_t *seen;
	uint64_t *marked;       /* a bit per object: unknown */
	uint32_t *stack;
	size_t sp;
	struct literal *lit;    /* sorted by hash */
	size_t lit_count;
	struct wbuf text, other;
	bool nomem;             /* a String or literal could not be read for want of memory */
};

static uint64_t literal_key(const void *base, size_t i) { return ((const struct literal *)base)[i].hash; }

static int by_hash(const void *a, const void *b)
{
	const struct literal *x = a, *y = b;
	return x->hash < y->hash ? -1 : x->hash > y->hash;
}

static bool bit(const uint64_t *v, size_t i) { return v[i / 64] >> (i % 64) & 1; }

static int doubt_nomem(struct err *e)
{
	return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory finding objects of unknown reachability");
}

/* The hashes of every string literal of every DEX of the runtime model.  A literal that does
 * not decode is left out (it can match no String). */
static int literals_load(struct doubt_ctx *c, struct err *e)
{
	const struct art_runtime *rt = model_runtime(c->m);
	size_t cap = 0;
	for (size_t d = 0; d < rt->dex_count; d++) {
		const struct dex *dx = &rt->dexes[d].dex;
		uint32_t n = dx->string_ids_size < DOUBT_MAX_DEX_STRINGS ? dx->string_ids_size : DOUBT_MAX_DEX_STRINGS;
		for (uint32_t i = 0; i < n; i++) {
			struct err why;
			err_init(&why);
			wbuf_reset(&c->text);
			if (dex_string_wtf8(dx, i, &c->text, &why)) {
				if (why.code == ERR_NOMEM)
					return doubt_nomem(e);
				/* a damaged literal can match no String: recorded, the others still count */
				anomaly_add_err(model_sink(c->m), ANOM_ROOTS, "DEX string literal", &why);
				continue;
			}
			if (XALLOC_GROW(c->lit, cap, c->lit_count + 1, 4096))
				return doubt_nomem(e);
			c->lit[c->lit_count++] = (struct literal){ hash_fnv1a64(c->text.data, c->text.len), (uint32_t)d, i };
		}
	}
	if (c->lit_count > 1)
		qsort(c->lit, c->lit_count, sizeof(*c->lit), by_hash);
	return 0;
}

/* The WTF-8 text of String object o into c->text; false when it cannot be read (a String
 * whose characters are not captured or too long is no literal; running out of memory sets
 * c->nomem). */
static bool string_text(struct doubt_ctx *c, const struct model_obj *o)
{
	struct err why;
	err_init(&why);
	wbuf_reset(&c->text);
	if (mirror_string_wtf8(&model_runtime(c->m)->m, model_va(c->m, o), DOUBT_MAX_CHARS, &c->text, &why) == 0)
		return true;
	c->nomem |= why.code == ERR_NOMEM;
	return false;
}

/* The index in c->lit of the first literal entry whose text String o holds, SIZE_MAX if none. */
static size_t literal_of(struct doubt_ctx *c, const struct model_obj *o)
{
	if (!c->lit_count || !string_text(c, o))
		return SIZE_MAX;
	uint64_t h = hash_fnv1a64(c->text.data, c->text.len);
	for (size_t i = bs_lower(c->lit, c->lit_count, literal_key, h); i < c->lit_count && c->lit[i].hash == h; i++) {
		struct err why;
		err_init(&why);
		wbuf_reset(&c->other);
		if (dex_string_wtf8(&model_runtime(c->m)->dexes[c->lit[i].dex].dex, c->lit[i].idx, &c->other, &why)) {
			c->nomem |= why.code == ERR_NOMEM;   /* else: it decoded when loaded */
			continue;
		}
		if (c->other.len == c->text.len && !memcmp(c->other.data, c->text.data, c->text.len))
			return i;   /* the same text always stops at the same entry */
	}
	return SIZE_MAX;
}

/* The classes the rules look at (RT_NONE when the image has none: no object has that class). */
struct doubt_classes {
	size_t oome, ncdfe, object;
	size_t class_obj, object_obj;   /* model indexes of the Class objects java.lang.Class/Object */
};

static bool ends_with(const struct wbuf *b, const char *tail)
{
	size_t n = strlen(tail);
	return b->len >= n && !memcmp(b->data + b->len - n, tail, n);
}

/* A pre-allocated error: one of its references is a String ending as the runtime's messages. */
static bool runtime_error(struct doubt_ctx *c, size_t i)
{
	const uint32_t *refs;
	uint32_t n = model_refs(c->m, i, &refs);
	for (uint32_t k = 0; k < n; k++) {
		if (refs[k] == MODEL_REF_NONE || model_obj(c->m, refs[k])->kind != MODEL_STRING)
			continue;
		if (string_text(c, model_obj(c->m, refs[k])) && ends_with(&c->text, "; no stack trace available"))
			return true;
	}
	return false;
}

static bool non_moving(const struct model *m, const struct model_obj *o)
{
	const struct art_space *s = model_space(m, o);
	return s && (s->kind == SPACE_DLMALLOC || s->kind == SPACE_ZYGOTE);
}

static bool class_roots_array(const struct model *m, size_t i, const struct doubt_classes *k)
{
	const uint32_t *refs;
	/* the non-null elements in order, after the class word when model_refs gives it (the
	 * array's class, Object[] or Class[], is neither of the two) */
	uint32_t n = model_refs(m, i, &refs);
	if (k->class_obj == MODEL_NONE || k->object_obj == MODEL_NONE)
		return false;
	for (uint32_t s = 0; s < 2 && s + 1 < n; s++)
		if (refs[s] == k->class_obj && refs[s + 1] == k->object_obj)
			return true;
	return false;
}

/* The rule that names object i, REACH_DOUBT_NONE if none. */
static enum reach_doubt doubt_of(struct doubt_ctx *c, size_t i, const struct doubt_classes *k)
{
	const struct model_obj *o = model_obj(c->m, i);
	if ((o->cls == k->oome || o->cls == k->ncdfe) && runtime_error(c, i))
		return REACH_DOUBT_RUNTIME_ERROR;
	if (o->cls == k->object && o->kind == MODEL_INSTANCE && non_moving(c->m, o))
		return REACH_DOUBT_SENTINEL;
	if (o->kind == MODEL_OBJ_ARRAY && class_roots_array(c->m, i, k))
		return REACH_DOUBT_CLASS_ROOTS;
	return REACH_DOUBT_NONE;
}

static void mark(struct doubt_ctx *c, size_t i, enum reach_doubt why)
{
	if (bit(c->seen, i) || bit(c->marked, i))
		return;
	c->marked[i / 64] |= 1ull << (i % 64);
	c->r->doubt[i] = (uint8_t)why;
	c->stack[c->sp++] = (uint32_t)i;   /* each object pushed once: sp <= count */
}

/* Marks every object the seeds lead to that no root reaches. */
static void spread(struct doubt_ctx *c)
{
	while (c->sp) {
		size_t i = c->stack[--c->sp];
		if (model_obj(c->m, i)->alloc != MODEL_ALLOCATED)
			continue;   /* stale words: not followed, as in the root walk */
		const uint32_t *refs;
		uint32_t n = model_refs(c->m, i, &refs);
		for (uint32_t k = 0; k < n; k++)
			if (refs[k] != MODEL_REF_NONE)
				mark(c, refs[k], REACH_DOUBT_HELD);
	}
}

static void doubt_classes_find(const struct model *m, struct doubt_classes *k)
{
	const struct art_runtime *rt = model_runtime(m);
	k->oome = runtime_class_named(rt, "java.lang.OutOfMemoryError");
	k->ncdfe = runtime_class_named(rt, "java.lang.NoClassDefFoundError");
	k->object = runtime_class_named(rt, "java.lang.Object");
	k->class_obj = rt->java_lang_class ? model_find(m, rt->java_lang_class) : MODEL_NONE;
	k->object_obj = k->object != RT_NONE ? model_find(m, rt->classes[k->object].addr) : MODEL_NONE;
}

/* The runtime's own objects (vm internal missing). */
static void runtime_seeds(struct doubt_ctx *c)
{
	struct doubt_classes k;
	doubt_classes_find(c->m, &k);
	for (size_t i = 0; i < model_count(c->m); i++) {
		if (bit(c->seen, i) || bit(c->marked, i) || model_obj(c->m, i)->alloc != MODEL_ALLOCATED)
			continue;
		enum reach_doubt d = doubt_of(c, i, &k);
		if (d != REACH_DOUBT_NONE) {
			mark(c, i, d);
			spread(c);
		}
	}
}

/* One thread's stretch [lo, hi) of the objects for literal_seeds: its own copy of the
 * context (its own text buffers; the model, the literals and the seen bits only read) and
 * the (object, literal) pairs it found, in object order. */
struct literal_part {
	struct doubt_ctx c;
	size_t lo, hi;
	uint32_t *pairs;
	size_t count, cap;
};

static int literal_part_run(void *arg, struct err *e)
{
	struct literal_part *p = arg;
	for (size_t i = p->lo; i < p->hi; i++) {
		size_t l;
		const struct model_obj *o = model_obj(p->c.m, i);
		if (o->alloc != MODEL_ALLOCATED || !model_stats_is_string(p->c.m, o) || (l = literal_of(&p->c, o)) == SIZE_MAX)
			continue;
		if (XALLOC_GROW(p->pairs, p->cap, p->count + 2, 256))
			return doubt_nomem(e);
		p->pairs[p->count++] = (uint32_t)i;
		p->pairs[p->count++] = (uint32_t)l;
	}
	return 0;
}

/* The String objects that hold a literal's text, as (object, literal) pairs, on up to
 * model_parts threads (each its own stretch; joined in object order by the caller). */
static int literal_parts(struct doubt_ctx *c, struct literal_part part[MODEL_PARTS_MAX], unsigned *n, struct err *e)
{
	struct jobs_job jobs[MODEL_PARTS_MAX];
	unsigned parts = model_parts(c->m);
	size_t count = model_count(c->m);
	for (unsigned k = 0; k < parts; k++) {
		part[k] = (struct literal_part){ .c = *c, .lo = count * k / parts, .hi = count * (k + 1) / parts };
		wbuf_init(&part[k].c.text);
		wbuf_init(&part[k].c.other);
		part[k].c.nomem = false;
		jobs[k] = (struct jobs_job){ .run = literal_part_run, .arg = &part[k] };
	}
	*n = parts;
	int rc = jobs_run(jobs, parts, parts, e);
	for (unsigned k = 0; k < parts; k++) {
		if (rc == 0 && jobs[k].rc) {
			*e = jobs[k].err;
			rc = jobs[k].rc;
		}
		c->nomem |= part[k].c.nomem || part[k].c.text.failed || part[k].c.other.failed;
		wbuf_release(&part[k].c.text);
		wbuf_release(&part[k].c.other);
	}
	return rc;
}

/* DEX literals (interned strings missing).  The intern table holds one String per text, so
 * per literal at most one object is unknown: none when a root reaches a String of that text,
 * else the first by address (the earliest allocated in a bump-pointer or region space). */
static int literal_seeds(struct doubt_ctx *c, struct err *e)
{
	struct literal_part part[MODEL_PARTS_MAX];
	unsigned parts = 0;
	uint32_t *first = xmalloc((c->lit_count ? c->lit_count : 1) * sizeof(*first));
	uint64_t *live = xcalloc(c->lit_count / 64 + 1, sizeof(*live));
	int rc = !first || !live ? doubt_nomem(e) : literal_parts(c, part, &parts, e);
	if (rc) {
		for (unsigned k = 0; k < parts; k++)
			xfree(part[k].pairs);
		xfree(first);
		xfree(live);
		return rc;
	}
	memset(first, 0xff, (c->lit_count ? c->lit_count : 1) * sizeof(*first));
	for (unsigned k = 0; k < parts; k++) {   /* the pairs in object order, as one pass would meet them */
		for (size_t x = 0; x + 1 < part[k].count; x += 2) {
			uint32_t i = part[k].pairs[x], l = part[k].pairs[x + 1];
			if (bit(c->seen, i))
				live[l / 64] |= 1ull << (l % 64);
			else if (first[l] == UINT32_MAX)
				first[l] = i;
		}
		xfree(part[k].pairs);
	}
	for (size_t l = 0; l < c->lit_count; l++)
		if (first[l] != UINT32_MAX && !bit(live, l)) {
			mark(c, first[l], REACH_DOUBT_DEX_LITERAL);
			spread(c);
		}
	xfree(first);
	xfree(live);
	return 0;
}

int reach_doubt(const struct model *m, struct reach *r, const uint64_t *seen, uint64_t *marked, struct err *e)
{
	bool literals = !r->source[REACH_INTERNED].present;
	bool runtime = !r->source[REACH_VM_INTERNAL].present;
	struct doubt_ctx c = { .m = m, .r = r, .seen = seen, .marked = marked };
	int rc = 0;

	if (!literals && !runtime)
		return 0;
	wbuf_init(&c.text);
	wbuf_init(&c.other);
	c.stack = xcalloc(model_count(m) ? model_count(m) : 1, sizeof(*c.stack));
	r->doubt = xcalloc(model_count(m) ? model_count(m) : 1, 1);
	if (!c.stack || !r->doubt)
		rc = doubt_nomem(e);
	if (!rc && runtime)
		runtime_seeds(&c);
	if (!rc && literals && !(rc = literals_load(&c, e)))
		rc = literal_seeds(&c, e);
	if (!rc && (c.nomem || c.text.failed || c.other.failed))
		rc = doubt_nomem(e);
	xfree(c.stack);
	xfree(c.lit);
	wbuf_release(&c.text);
	wbuf_release(&c.other);
	return rc;
}
