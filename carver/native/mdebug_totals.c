/* mdebug_totals.c - see mdebug_totals.h. */
#include "carver/native/mdebug_totals.h"

#include <stdlib.h>
#include <string.h>

#include "carver/base/hash.h"
#include "carver/base/htab.h"
#include "carver/base/xalloc.h"

static void total_add(struct mdebug_total *t, const struct mdebug_alloc *a)
{
	switch (a->state) {
	case MDEBUG_LIVE:
		t->live++;
		t->live_bytes += a->size;
		t->live_usable += a->usable_size;
		break;
	case MDEBUG_FREED:
		t->freed++;
		t->freed_bytes += a->size;
		t->freed_usable += a->usable_size;
		break;
	default:
		t->corrupt++;
		break;
	}
}

static uint64_t frames_hash(const struct mdebug_result *r, const struct mdebug_alloc *a)
{
	return hash_fnv1a64(r->frames + a->frame_first, a->frame_count * sizeof(uint64_t));
}

static bool same_frames(const struct mdebug_result *r, const struct mdebug_alloc *a, const struct mdebug_alloc *b)
{
	return a->frame_count == b->frame_count &&
	       !memcmp(r->frames + a->frame_first, r->frames + b->frame_first, a->frame_count * sizeof(uint64_t));
}

/* The group of a's backtrace in t->backtraces (new at the end when none yet), or SIZE_MAX
 * when memory runs out. */
static size_t backtrace_group(const struct mdebug_result *r, struct mdebug_totals *t, struct htab *by_hash,
			      size_t *cap, size_t i)
{
	const struct mdebug_alloc *a = &r->allocs[i];
	uint64_t h = frames_hash(r, a);
	for (size_t s = htab_find(by_hash, h); s != HTAB_END; s = htab_find_next(by_hash, h, s))
		if (same_frames(r, a, &r->allocs[t->backtraces[htab_val(by_hash, s)].first]))
			return htab_val(by_hash, s);
	if (t->backtrace_count >= HTAB_VAL_MAX || XALLOC_GROW(t->backtraces, *cap, t->backtrace_count + 1, 64) ||
	    htab_add(by_hash, h, (uint32_t)t->backtrace_count))
		return SIZE_MAX;
	t->backtraces[t->backtrace_count] = (struct mdebug_bt_total){ .first = i, .frame_count = a->frame_count };
	return t->backtrace_count++;
}

static size_t class_group(struct mdebug_totals *t, struct htab *by_size, size_t *cap, uint64_t usable)
{
	uint32_t v;
	if (htab_get(by_size, usable, &v))
		return v;
	if (t->class_count >= HTAB_VAL_MAX || XALLOC_GROW(t->classes, *cap, t->class_count + 1, 64) ||
	    htab_put(by_size, usable, (uint32_t)t->class_count))
		return SIZE_MAX;
	t->classes[t->class_count] = (struct mdebug_class_total){ .usable_size = usable };
	return t->class_count++;
}

static int by_usable(const void *x, const void *y)
{
	const struct mdebug_class_total *a = x, *b = y;
	return a->usable_size < b->usable_size ? -1 : a->usable_size > b->usable_size;
}

static int by_bytes(const void *x, const void *y)
{
	const struct mdebug_bt_total *a = x, *b = y;
	if (a->t.live_bytes != b->t.live_bytes)
		return a->t.live_bytes > b->t.live_bytes ? -1 : 1;
	if (a->t.freed_bytes != b->t.freed_bytes)
		return a->t.freed_bytes > b->t.freed_bytes ? -1 : 1;
	return a->first < b->first ? -1 : a->first > b->first;
}

int mdebug_totals_make(const struct mdebug_result *r, struct mdebug_totals *t, struct err *e)
{
	struct htab by_size, by_hash;
	size_t class_cap = 0, bt_cap = 0;
	int rc = 0;

	memset(t, 0, sizeof(*t));
	htab_init(&by_size);
	htab_init(&by_hash);
	for (size_t i = 0; i < r->count && rc == 0; i++) {
		const struct mdebug_alloc *a = &r->allocs[i];
		size_t c = class_group(t, &by_size, &class_cap, a->usable_size);
		size_t b = c == SIZE_MAX ? SIZE_MAX : backtrace_group(r, t, &by_hash, &bt_cap, i);
		if (b == SIZE_MAX) {
			rc = ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory for the native totals");
			break;
		}
		total_add(&t->all, a);
		total_add(&t->classes[c].t, a);
		total_add(&t->backtraces[b].t, a);
	}
	htab_release(&by_size);
	htab_release(&by_hash);
	if (rc) {
		mdebug_totals_release(t);
		return rc;
	}
	if (t->class_count)
		qsort(t->classes, t->class_count, sizeof(*t->classes), by_usable);
	if (t->backtrace_count)
		qsort(t->backtraces, t->backtrace_count, sizeof(*t->backtraces), by_bytes);
	return 0;
}

void mdebug_totals_release(struct mdebug_totals *t)
{
	xfree(t->classes);
	xfree(t->backtraces);
	memset(t, 0, sizeof(*t));
}
