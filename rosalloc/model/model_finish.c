/* model_finish.c - the object table once every candidate is in: sorted by address,
 * duplicates and overlaps dropped, every reference checked, counted per space and class. */
#include "rosalloc/model/model_int.h"

#include <stdlib.h>
#include <string.h>

#include "carver/base/jobs.h"
#include "carver/base/xalloc.h"

static int by_addr(const void *a, const void *b)
{
	const struct model_obj *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* allocated before free at the same address, then by space for a stable order */
	if (x->alloc != y->alloc)
		return x->alloc < y->alloc ? -1 : 1;
	return x->space < y->space ? -1 : x->space > y->space;
}

static int by_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

static int by_residue_addr(const void *a, const void *b)
{
	uint64_t x = ((const struct model_residue *)a)->addr, y = ((const struct model_residue *)b)->addr;
	return (x > y) - (x < y);
}

/* Drops the objects overlapping the one before them (the first of two claims is kept). */
/* Marks every object that overlaps the one kept before it. */
static size_t mark_overlaps(struct model *m)
{
	size_t kept = MODEL_NONE, dropped = 0;
	for (size_t i = 0; i < m->count; i++) {
		struct model_obj *o = &m->objs[i];
		const struct model_obj *p = kept != MODEL_NONE ? &m->objs[kept] : NULL;
		if (p && o->addr < (uint64_t)p->addr + p->size) {
			m->duplicates++;
			m->rejected++;
			o->flags |= MODEL_F_DROPPED;
			dropped++;
			anomaly_add(m->sink, ANOM_CANDIDATE, ERR_CORRUPT, model_va(m, o), m->rt->spaces.v[o->space].name,
				    "object at 0x%llx (%u bytes) overlaps the object at 0x%llx (%u bytes)",
				    (unsigned long long)model_va(m, o), o->size, (unsigned long long)model_va(m, p), p->size);
			continue;
		}
		kept = i;
	}
	return dropped;
}

/* Removes the objects marked dropped, with their references.  When the references are
 * already object indexes (resolved), they are renumbered; one to a dropped object becomes
 * MODEL_REF_NONE. */
static int drop_marked(struct model *m, bool resolved, struct err *e)
{
	uint32_t *renumber = resolved ? xreallocarray(NULL, m->count ? m->count : 1, sizeof(uint32_t)) : NULL;
	size_t out = 0, rout = 0;

	if (resolved && !renumber)
		return model_nomem(e);
	for (size_t i = 0; i < m->count; i++) {
		uint32_t a = m->ref_at[i], n = m->ref_at[i + 1] - a;
		if (renumber)
			renumber[i] = m->objs[i].flags & MODEL_F_DROPPED ? MODEL_REF_NONE : (uint32_t)out;
		if (m->objs[i].flags & MODEL_F_DROPPED) {
			m->object_bytes -= m->objs[i].size;
			continue;
		}
		if (n)   /* refs is NULL while no reference was kept */
			memmove(&m->refs[rout], &m->refs[a], (size_t)n * sizeof(*m->refs));
		m->objs[out] = m->objs[i];
		m->ref_at[out++] = (uint32_t)rout;
		rout += n;
	}
	m->ref_at[out] = (uint32_t)rout;
	m->ref_count = rout;
	m->count = out;
	for (size_t k = 0; renumber && k < rout; k++)
		if (m->refs[k] != MODEL_REF_NONE)
			m->refs[k] = renumber[m->refs[k]];
	xfree(renumber);
	return 0;
}

/* The references again, from the image, in the objects' (sorted) order: when the walkers did
 * not hand the objects over in address order, the slices gathered by push no longer match. */
static int regather_refs(struct model *m, struct err *e)
{
	struct img_drop drop = { 0 };
	m->ref_count = 0;
	for (size_t i = 0; i < m->count; i++) {
		img_drop_behind(m->rt->img, &drop, model_va(m, &m->objs[i]));
		int rc = model_gather_refs(m, i, e);
		if (rc)
			return rc;
	}
	return 0;
}

/* The first implausible reference of o, for the anomaly (read again: this is rare). */
static void bad_ref_anomaly(struct model *m, struct model_obj *o, uint32_t value)
{
	const struct rt_class *k = &m->rt->classes[o->cls];
	const char *space = m->rt->spaces.v[o->space].name;
	struct model_ref_scan b = { m, true, false, 0, 0 };
	struct err why;

	err_init(&why);
	o->flags |= MODEL_F_BAD_REF | MODEL_F_DROPPED;
	m->rejected++;
	if (model_each_ref(m, o, model_scan_ref, &b, &why) < 0) {   /* it read when added: say so if not now */
		anomaly_add(m->sink, ANOM_OBJ_REFERENCE, ERR_CORRUPT, model_va(m, o), space,
			    "candidate at 0x%llx (%s): reference 0x%x is no object start (its offset unknown: %s)",
			    (unsigned long long)model_va(m, o), k->name ? k->name : "class ?", value, why.msg);
		return;
	}
	anomaly_add(m->sink, ANOM_OBJ_REFERENCE, ERR_CORRUPT, model_va(m, o), space,
		    "candidate at 0x%llx (%s): reference 0x%x at +%u is no object start", (unsigned long long)model_va(m, o),
		    k->name ? k->name : "class ?", b.value, b.off);
}

/* A reference target that is no object start named by this many checked objects is one
 * damaged object (its class word), not damage in each of them (issue 23): they are kept. */
enum { MODEL_SHARED_BAD_REF = 3 };

/* The reference passes below run on m->threads threads, each over its own stretch of the
 * objects (CHECK_PARTS at most).  A part only reads the model, the index and the image, and
 * writes its own objects' references and its own list; the lists are joined in object order
 * and every anomaly is recorded after, in that order: the same model and the same anomalies
 * for any number of threads. */
enum { CHECK_PARTS = MODEL_PARTS_MAX };

struct check_part {
	struct model *m;
	size_t lo, hi;              /* its objects */
	const uint32_t *shared;     /* pass 2: the shared bad targets, sorted */
	size_t shared_n;
	uint32_t *v;                /* pass 1: a bad target per object; pass 2: object, value pairs */
	size_t count, cap;
	bool reports;               /* the part that draws progress and drops image pages */
};

static int part_push(struct check_part *p, uint32_t x, struct err *e)
{
	if (XALLOC_GROW(p->v, p->cap, p->count + 1, 64))
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory");
	p->v[p->count++] = x;
	return 0;
}

/* Pass 1: the first implausible target of each checked object of the part. */
static int part_bad_targets(void *arg, struct err *e)
{
	struct check_part *p = arg;
	const struct model *m = p->m;
	for (size_t i = p->lo; i < p->hi; i++) {
		if (m->objs[i].flags & MODEL_F_UNCHECKED)
			continue;
		for (uint32_t k = m->ref_at[i]; k < m->ref_at[i + 1]; k++) {
			uint32_t t = m->refs[k];
			size_t j = model_ix_find(m, t);
			if (j != MODEL_NONE || model_ref_plausible(m, t, j))
				continue;
			if (part_push(p, t, e))
				return err_rc(e);
			break;   /* one per object */
		}
	}
	return 0;
}

/* Pass 2: every reference of the part resolved to an object index (for reach); a checked
 * object with an implausible one that is not shared is listed (object, value) and left. */
static int part_resolve(void *arg, struct err *e)
{
	struct check_part *p = arg;
	struct model *m = p->m;
	uint64_t done = 0;
	progress_muted = !p->reports;
	for (size_t i = p->lo; i < p->hi; i++) {
		const struct model_obj *o = &m->objs[i];
		progress_to(m->progress, done += o->size);
		bool check = !(o->flags & MODEL_F_UNCHECKED);
		if (p->reports && i % 65536 == 65535)   /* a target that is no object is read at its class word, anywhere */
			img_drop(m->rt->img, 0, UINT64_MAX);
		/* free objects have no references kept: their slices are empty */
		for (uint32_t k = m->ref_at[i]; k < m->ref_at[i + 1]; k++) {
			uint32_t v = m->refs[k];
			size_t j = model_ix_find(m, v);
			if (j == MODEL_NONE && check && !model_ref_plausible(m, v, j) &&
			    !bsearch(&v, p->shared, p->shared_n, sizeof(*p->shared), by_u32)) {
				int rc = part_push(p, (uint32_t)i, e) ? err_rc(e) : part_push(p, v, e) ? err_rc(e) : 0;
				progress_muted = false;
				if (rc)
					return rc;
				break;
			}
			m->refs[k] = j == MODEL_NONE ? MODEL_REF_NONE : (uint32_t)j;   /* resolved once, for reach */
		}
	}
	progress_muted = false;
	return 0;
}

/* Runs fn over the objects cut into parts (as many as threads, whole objects each), the
 * parts' lists left in part[]; *n the parts.  The first part's error is the one reported. */
static int check_parts(struct model *m, int (*fn)(void *, struct err *), struct check_part part[CHECK_PARTS],
		       unsigned *n, const uint32_t *shared, size_t shared_n, struct err *e)
{
	struct jobs_job jobs[CHECK_PARTS];
	unsigned parts = model_parts(m);
	for (unsigned k = 0; k < parts; k++) {
		part[k] = (struct check_part){ .m = m, .lo = m->count * k / parts, .hi = m->count * (k + 1) / parts,
					       .shared = shared, .shared_n = shared_n, .reports = k == 0 };
		jobs[k] = (struct jobs_job){ .run = fn, .arg = &part[k] };
	}
	*n = parts;
	int rc = jobs_run(jobs, parts, parts, e);
	for (unsigned k = 0; rc == 0 && k < parts; k++)
		if (jobs[k].rc) {
			*e = jobs[k].err;
			rc = jobs[k].rc;
		}
	return rc;
}

static void parts_release(struct check_part *part, unsigned n)
{
	for (unsigned k = 0; k < n; k++)
		xfree(part[k].v);
}

/* The implausible targets at least MODEL_SHARED_BAD_REF objects name, sorted, into *out
 * (*n of them; NULL when none), each with one anomaly. */
static int shared_bad_targets(struct model *m, uint32_t **out, size_t *n, struct err *e)
{
	struct check_part part[CHECK_PARTS];
	uint32_t *v = NULL;
	size_t count = 0, kept = 0;
	unsigned parts = 0;
	int rc = check_parts(m, part_bad_targets, part, &parts, NULL, 0, e);

	*out = NULL;
	*n = 0;
	for (unsigned k = 0; rc == 0 && k < parts; k++)
		count += part[k].count;
	if (rc == 0 && count && !(v = xreallocarray(NULL, count, sizeof(*v))))
		rc = ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory");
	for (size_t k = 0, at = 0; rc == 0 && v && k < parts; at += part[k++].count)
		memcpy(v + at, part[k].v, part[k].count * sizeof(*v));
	parts_release(part, parts);
	if (rc)
		return rc;
	if (count)
		qsort(v, count, sizeof(*v), by_u32);
	for (size_t i = 0; i < count;) {
		size_t j = i;
		while (j < count && v[j] == v[i])
			j++;
		if (j - i >= MODEL_SHARED_BAD_REF) {
			anomaly_add(m->sink, ANOM_OBJ_REFERENCE, ERR_CORRUPT, v[i], "",
				    "0x%x, named by %zu objects, is no object start (damage there): the objects "
				    "naming it are kept", v[i], j - i);
			v[kept++] = v[i];
		}
		i = j;
	}
	*out = v;
	*n = kept;
	return 0;
}

/* Every allocated object's references (kept by push) must each be plausible; a candidate with
 * one that is not is dropped as an anomaly, unless many name that target.  Reads from the image only the class word of a
 * target that is no object of the model, and the rare failure's bytes. */
static int check_refs(struct model *m, struct err *e)
{
	struct check_part part[CHECK_PARTS];
	size_t dropped = 0, shared_n;
	unsigned parts = 0;
	uint32_t *shared;
	int rc = shared_bad_targets(m, &shared, &shared_n, e);
	if (rc)
		return rc;
	rc = check_parts(m, part_resolve, part, &parts, shared, shared_n, e);
	for (unsigned k = 0; rc == 0 && k < parts; k++)   /* the anomalies in object order */
		for (size_t x = 0; x + 1 < part[k].count; x += 2) {
			bad_ref_anomaly(m, &m->objs[part[k].v[x]], part[k].v[x + 1]);
			dropped++;
		}
	parts_release(part, parts);
	xfree(shared);
	if (rc || !dropped)
		return rc;
	rc = drop_marked(m, true, e);
	if (rc)
		return rc;
	/* the index runs hold the old positions: build it again when objects went */
	if ((rc = model_ix_build(m, e)) == 0)
		model_ix_rank(m);
	return rc;
}

int model_finish(struct model *m, struct err *e)
{
	bool sorted = true;
	int rc;

	/* the walkers emit in address order within a space and walk the spaces in address order */
	for (size_t i = 1; i < m->count && sorted; i++)
		sorted = by_addr(&m->objs[i - 1], &m->objs[i]) < 0;
	if (!sorted)
		qsort(m->objs, m->count, sizeof(*m->objs), by_addr);
	if (!sorted && (rc = regather_refs(m, e)))
		return rc;
	sorted = true;
	for (size_t i = 1; i < m->free_count && sorted; i++)
		sorted = m->free_places[i - 1] < m->free_places[i];
	if (!sorted)
		qsort(m->free_places, m->free_count, sizeof(*m->free_places), by_u32);
	if (m->residue_count > 1)
		qsort(m->residue, m->residue_count, sizeof(*m->residue), by_residue_addr);
	if (m->damaged_count > 1)
		qsort(m->damaged_starts, m->damaged_count, sizeof(*m->damaged_starts), by_u32);
	if (mark_overlaps(m) && (rc = drop_marked(m, false, e)))
		return rc;
	if ((rc = model_ix_build(m, e)))
		return rc;
	model_ix_rank(m);
	if ((rc = check_refs(m, e)))
		return rc;
	for (size_t i = 0; i < m->count; i++) {
		const struct model_obj *o = &m->objs[i];
		struct model_space_count *s = &m->per_space[o->space];
		s->objects[o->alloc][o->content]++;
		s->bytes += o->size;
		m->classes[o->cls].objects++;
	}
	m->finished = true;
	return 0;
}
