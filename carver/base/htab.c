/* htab.c - see htab.h. */
#include "carver/base/htab.h"

#include <string.h>

#include "carver/base/ck.h"
#include "carver/base/err.h"
#include "carver/base/xalloc.h"

void htab_init(struct htab *t) { memset(t, 0, sizeof(*t)); }

void htab_release(struct htab *t)
{
	xfree(t->keys);
	xfree(t->vals);
	htab_init(t);
}

void htab_clear(struct htab *t)
{
	if (t->cap)
		memset(t->vals, 0, t->cap * sizeof(*t->vals));
	t->count = 0;
}

/* The first empty slot in key's probe run (the table has one: count <= cap / 2). */
static size_t htab_free_slot(const struct htab *t, uint64_t key)
{
	size_t mask = t->cap - 1, slot = htab_home(key, mask);
	while (t->vals[slot])
		slot = (slot + 1) & mask;
	return slot;
}

/* Moves every entry into a table of cap slots (cap: a power of two > 2 * count). */
static int htab_rehash(struct htab *t, size_t cap)
{
	struct htab n = { .cap = cap, .count = t->count };

	n.keys = xcalloc(cap, sizeof(*n.keys));
	n.vals = xcalloc(cap, sizeof(*n.vals));
	if (!n.keys || !n.vals) {
		xfree(n.keys);
		xfree(n.vals);
		return -ERR_NOMEM;
	}
	for (size_t i = 0; i < t->cap; i++) {
		if (!t->vals[i])
			continue;
		size_t slot = htab_free_slot(&n, t->keys[i]);
		n.keys[slot] = t->keys[i];
		n.vals[slot] = t->vals[i];
	}
	xfree(t->keys);
	xfree(t->vals);
	*t = n;
	return 0;
}

int htab_reserve(struct htab *t, size_t n)
{
	size_t need, cap = t->cap ? t->cap : HTAB_MIN_CAP;

	if (ck_mul(n, 2, &need))
		return -ERR_NOMEM;
	if (need <= t->cap)
		return 0;
	while (cap < need)
		if (ck_mul(cap, 2, &cap))
			return -ERR_NOMEM;
	return htab_rehash(t, cap);
}

/* Room for one more entry (the test inline: the codec's id maps call this per id). */
static inline int htab_room(struct htab *t)
{
	return t->count < t->cap / 2 ? 0 : htab_reserve(t, t->count + 1);
}

static void htab_store(struct htab *t, size_t slot, uint64_t key, uint32_t val)
{
	t->keys[slot] = key;
	t->vals[slot] = val + 1;
	t->count++;
}

int htab_put(struct htab *t, uint64_t key, uint32_t val)
{
	size_t slot;

	if (val > HTAB_VAL_MAX || htab_room(t))
		return -ERR_NOMEM;
	if ((slot = htab_find(t, key)) != HTAB_END)
		t->vals[slot] = val + 1;
	else
		htab_store(t, htab_free_slot(t, key), key, val);
	return 0;
}

int htab_get_or_put(struct htab *t, uint64_t key, uint32_t fresh, uint32_t *val, bool *added)
{
	size_t slot;

	if (fresh > HTAB_VAL_MAX || htab_room(t))
		return -ERR_NOMEM;
	*added = (slot = htab_find(t, key)) == HTAB_END;
	if (*added)
		htab_store(t, htab_free_slot(t, key), key, fresh);
	*val = *added ? fresh : htab_val(t, slot);
	return 0;
}

int htab_add(struct htab *t, uint64_t key, uint32_t val)
{
	if (val > HTAB_VAL_MAX || htab_room(t))
		return -ERR_NOMEM;
	htab_store(t, htab_free_slot(t, key), key, val);
	return 0;
}

void htab_del(struct htab *t, size_t slot)
{
	size_t mask = t->cap - 1, hole = slot;

	/* later entries of the run move into the hole when their home allows: an entry at j
	 * whose home h lies cyclically in (hole, j] must stay */
	for (size_t j = (hole + 1) & mask; t->vals[j]; j = (j + 1) & mask) {
		size_t h = htab_home(t->keys[j], mask);
		if (((j - h) & mask) < ((j - hole) & mask))
			continue;
		t->keys[hole] = t->keys[j];
		t->vals[hole] = t->vals[j];
		hole = j;
	}
	t->vals[hole] = 0;
	t->count--;
}

size_t htab_next(const struct htab *t, size_t slot)
{
	for (; slot < t->cap; slot++)
		if (t->vals[slot])
			return slot;
	return HTAB_END;
}
