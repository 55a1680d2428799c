/* htab.h - the tree's one hash table: 64-bit keys to 32-bit values, open addressing with
 * linear probing, load factor at most 1/2 (short probe runs), capacity a power of two.
 *
 * Integer keys (addresses, ids, page numbers) are stored as they are.  A byte-string key is
 * stored as its hash (hash_fnv1a64) with the index of the string in the caller's array as
 * the value: htab_add accepts a key already present, and htab_find / htab_find_next visit
 * every entry of a key, so the caller compares the strings itself (no callback per probe).
 *
 * A value is stored + 1 and 0 marks an empty slot, so every key, 0 included, can be stored
 * and a value must be <= HTAB_VAL_MAX.  The slot order depends on the keys and on the order
 * they came in only: it is deterministic, but a caller that lists the entries for an output
 * sorts them.  Growing functions return 0 or -ERR_NOMEM (the table unchanged), like
 * xalloc_grow: the caller says in its error what the table was for. */
#ifndef ARTCARVE_HTAB_H
#define ARTCARVE_HTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HTAB_VAL_MAX (UINT32_MAX - 1)
#define HTAB_END SIZE_MAX            /* no (more) slot */
#define HTAB_MIN_CAP 1024            /* the first allocation's slots */

struct htab {
	uint64_t *keys;
	uint32_t *vals;                 /* value + 1; 0 marks an empty slot */
	size_t cap, count;              /* cap: 0 or a power of two, count <= cap / 2 */
};

void htab_init(struct htab *t);
void htab_release(struct htab *t);
/* Removes every entry, keeps the memory. */
void htab_clear(struct htab *t);

/* The slot a key probes first: the splitmix64 finaliser, so that sequential ids and aligned
 * addresses, which differ in few bits, spread over the table. */
static inline size_t htab_home(uint64_t key, size_t mask)
{
	key ^= key >> 30;
	key *= 0xbf58476d1ce4e5b9ULL;
	key ^= key >> 27;
	key *= 0x94d049bb133111ebULL;
	key ^= key >> 31;
	return (size_t)key & mask;
}

/* The first slot at or after `slot` in probe order (from key's home) holding key, HTAB_END
 * when an empty slot, or a whole turn of the table, comes first. */
static inline size_t htab_probe(const struct htab *t, uint64_t key, size_t slot, size_t steps_left)
{
	size_t mask = t->cap - 1;
	for (; steps_left && t->vals[slot]; slot = (slot + 1) & mask, steps_left--)
		if (t->keys[slot] == key)
			return slot;
	return HTAB_END;
}

/* The slot of key's first entry, or HTAB_END. */
static inline size_t htab_find(const struct htab *t, uint64_t key)
{
	return t->cap ? htab_probe(t, key, htab_home(key, t->cap - 1), t->cap) : HTAB_END;
}

/* The slot of key's next entry after `slot` (a slot htab_find or htab_find_next gave), or
 * HTAB_END. */
static inline size_t htab_find_next(const struct htab *t, uint64_t key, size_t slot)
{
	size_t mask = t->cap - 1, home = htab_home(key, mask);
	/* the steps still left of one turn from home: (slot - home) mod cap were taken */
	return htab_probe(t, key, (slot + 1) & mask, t->cap - 1 - ((slot - home) & mask));
}

/* The value in an occupied slot. */
static inline uint32_t htab_val(const struct htab *t, size_t slot) { return t->vals[slot] - 1; }

/* true and *val when key is present (its first entry). */
static inline bool htab_get(const struct htab *t, uint64_t key, uint32_t *val)
{
	size_t slot = htab_find(t, key);
	if (slot == HTAB_END)
		return false;
	*val = htab_val(t, slot);
	return true;
}

/* Room for n entries without growing. */
int htab_reserve(struct htab *t, size_t n);
/* Inserts key -> val, or replaces the value of key's first entry. */
int htab_put(struct htab *t, uint64_t key, uint32_t val);
/* *val = the value of key; inserts key -> fresh first when key is absent (*added says so). */
int htab_get_or_put(struct htab *t, uint64_t key, uint32_t fresh, uint32_t *val, bool *added);
/* Inserts key -> val as one more entry, even when key is present (keys that are hashes). */
int htab_add(struct htab *t, uint64_t key, uint32_t val);
/* Removes the entry in an occupied slot (backward shift: no tombstones, probes stay short).
 * The entries of other slots may move. */
void htab_del(struct htab *t, size_t slot);
/* The first occupied slot at or after `slot`, HTAB_END after the last: for (s =
 * htab_next(t, 0); s != HTAB_END; s = htab_next(t, s + 1)). */
size_t htab_next(const struct htab *t, size_t slot);

#endif
