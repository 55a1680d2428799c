/* report_units.c - allocation units recorded for the heap map (report_units.h). */
#include "output/report/report_units.h"

#include <string.h>

#include "carver/base/xalloc.h"

void report_units_init(struct report_units *u)
{
	memset(u, 0, sizeof(*u));
}

void report_units_release(struct report_units *u)
{
	xfree(u->v);
	memset(u, 0, sizeof(*u));
}

static uint32_t sat32(uint64_t v)
{
	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

int report_units_add(void *arg, const struct walk_unit *wu, struct err *e)
{
	struct report_units *u = arg;
	struct report_unit *r;

	if (XALLOC_GROW(u->v, u->cap, u->count + 1, 256))
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory for the heap map's units");
	r = &u->v[u->count++];
	memset(r, 0, sizeof(*r));
	r->begin = wu->begin;
	r->end = wu->end < wu->begin ? wu->begin : wu->end;
	r->space = wu->space;
	r->allocated = sat32(wu->allocated);
	r->free = sat32(wu->free);
	r->damaged = sat32(wu->damaged);
	r->kind = (uint8_t)wu->kind;
	r->state = (uint8_t)wu->state;
	r->bracket = (int8_t)(wu->kind == WALK_UNIT_RUN && wu->bracket >= 0 && wu->bracket < 128 ? wu->bracket : -1);
	r->slot_size = wu->kind == WALK_UNIT_RUN ? wu->slot_size : 0;
	r->thread_local = wu->thread_local;
	return 0;
}
