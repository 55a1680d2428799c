/* arena.h - bump allocator: decoded data lives in one arena and is freed once. */
#ifndef ARTCARVE_ARENA_H
#define ARTCARVE_ARENA_H

#include <stddef.h>

struct arena_block;
struct arena {
	struct arena_block *head;
	size_t total;
};

void arena_init(struct arena *a);
void arena_release(struct arena *a);
/* Zeroed, 16-byte aligned; NULL on overflow or out of memory. */
void *arena_alloc(struct arena *a, size_t n);
void *arena_array(struct arena *a, size_t count, size_t size);
/* The n bytes at s plus a NUL; s may be NULL when n is 0. */
char *arena_strndup(struct arena *a, const char *s, size_t n);

#endif
