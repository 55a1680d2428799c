/* model_index.c - the object-start index (model.h struct model_ix), built and ranked; its lookup
 * (model_ix_find: a bit test and a popcount) is inline in model_int.h. */
#include "rosalloc/model/model_int.h"

#include "carver/base/xalloc.h"

void model_ix_release(struct model *m)
{
	for (size_t i = 0; i < m->ix_count; i++) {
		xfree(m->ix[i].w);
	}
	xfree(m->ix);
	m->ix = NULL;
	m->ix_count = 0;
}

/* One index run per stretch of objects of one space (objects are sorted and spaces do not
 * overlap, so a space's objects are contiguous); every object's bit is set. */
int model_ix_build(struct model *m, struct err *e)
{
	size_t runs = 0;
	model_ix_release(m);
	for (size_t i = 0; i < m->count; i++)
		runs += i == 0 || m->objs[i].space != m->objs[i - 1].space;
	if (runs == 0)
		return 0;
	if (!(m->ix = xcalloc(runs, sizeof(*m->ix))))
		return model_nomem(e);
	for (size_t i = 0, j; i < m->count; i = j) {
		for (j = i + 1; j < m->count && m->objs[j].space == m->objs[i].space; j++)
			;
		struct model_ix *x = &m->ix[m->ix_count++];
		x->begin = m->objs[i].addr & ~(uint64_t)511;
		x->end = (uint64_t)m->objs[j - 1].addr + 8;
		x->words = (size_t)((x->end - x->begin + 511) / 512);
		x->first = i;
		if (!(x->w = xcalloc(x->words, sizeof(*x->w))))
			return model_nomem(e);
		for (size_t k = i; k < j; k++) {
			uint64_t bit = (m->objs[k].addr - x->begin) / 8;
			x->w[bit / 64].bits |= 1ull << (bit % 64);
		}
	}
	return 0;
}

/* Counts the objects before every word (the objects must be in their final places). */
void model_ix_rank(struct model *m)
{
	for (size_t r = 0; r < m->ix_count; r++) {
		struct model_ix *x = &m->ix[r];
		uint32_t n = 0;
		for (size_t w = 0; w < x->words; w++) {
			x->w[w].rank = n;
			n += model_pop64(x->w[w].bits);
		}
	}
}
