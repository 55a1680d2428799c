/* xalloc.h - allocation wrappers with a failure-injection hook for tests.
 * They return NULL on failure (never abort); callers turn that into ERR_NOMEM. */
#ifndef ARTCARVE_XALLOC_H
#define ARTCARVE_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t count, size_t size);      /* overflow-checked */
void *xrealloc(void *p, size_t n);
void *xreallocarray(void *p, size_t count, size_t size); /* overflow-checked */
/* align: a power of two, a multiple of sizeof(void *); freed with xfree. */
void *xmalloc_aligned(size_t align, size_t n);
void xfree(void *p);
/* The bytes usable at p (an xalloc block), at least the size asked for; 0 for NULL. */
size_t xalloc_usable(const void *p);
/* xalloc_grow: room for need elements of size bytes in the array *arrp (arrp: the address of
 * a T * variable) whose capacity is *cap, in the manner of git's ALLOC_GROW.  Nothing happens
 * when need <= *cap; otherwise the capacity doubles, from init when it is 0, until it holds
 * need, and the array is reallocated once.  Returns 0, or -ERR_NOMEM when the new capacity or
 * its size in bytes would overflow or the allocation fails: then *arrp and *cap are unchanged
 * (the old array is kept, the caller still owns it).  XALLOC_GROW(arr, cap, need, init) takes
 * the variables themselves; cap must be a size_t. */
int xalloc_grow(void *arrp, size_t *cap, size_t need, size_t size, size_t init);
#define XALLOC_GROW(arr, cap, need, init) xalloc_grow(&(arr), &(cap), (need), sizeof(*(arr)), (init))
/* Test hooks.  xalloc_fail_after: make the n-th allocation from now fail (0 disables);
 * only that one fails.  xalloc_fail_pending: allocations left before it fails, 0 once it has
 * failed (or none is set).  xalloc_calls: allocation calls made so far, failed ones included
 * (a sweep counts a parse's allocations with it, then fails each in turn). */
void xalloc_fail_after(unsigned long n);
unsigned long xalloc_fail_pending(void);
unsigned long xalloc_calls(void);

#endif
