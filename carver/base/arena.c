/* arena.c - see arena.h. */
#include "carver/base/arena.h"

#include <string.h>

#include "carver/base/ck.h"
#include "carver/base/xalloc.h"

#define ARENA_BLOCK (64u * 1024u)

struct arena_block {
	struct arena_block *next;
	size_t used, cap;
	_Alignas(16) unsigned char data[];
};

void arena_init(struct arena *a) { memset(a, 0, sizeof(*a)); }

void arena_release(struct arena *a)
{
	struct arena_block *b = a->head;
	while (b) {
		struct arena_block *next = b->next;
		xfree(b);
		b = next;
	}
	arena_init(a);
}

void *arena_alloc(struct arena *a, size_t n)
{
	struct arena_block *b = a->head;
	size_t need, cap, total;
	void *p;

	if (ck_add(n, 15, &need))
		return NULL;
	need &= ~(size_t)15;
	if (!b || need > b->cap - b->used) {
		cap = need > ARENA_BLOCK ? need : ARENA_BLOCK;
		if (ck_add(cap, sizeof(*b), &total))
			return NULL;
		b = xmalloc(total);
		if (!b)
			return NULL;
		b->cap = cap;
		b->used = 0;
		b->next = a->head;
		a->head = b;
	}
	p = b->data + b->used;
	b->used += need;
	a->total += need;
	memset(p, 0, n);
	return p;
}

void *arena_array(struct arena *a, size_t count, size_t size)
{
	size_t n;
	if (ck_mul(count, size, &n))
		return NULL;
	return arena_alloc(a, n);
}

char *arena_strndup(struct arena *a, const char *s, size_t n)
{
	size_t m;
	char *p;
	if (ck_add(n, 1, &m))
		return NULL;
	p = arena_alloc(a, m);
	if (p) {
		if (n) /* (NULL, 0) is an empty string, as an unallocated wbuf holds */
			memcpy(p, s, n);
		p[n] = '\0';
	}
	return p;
}
