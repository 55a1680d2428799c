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
/* Test hooks.  xalloc_fail_after: make the n-th allocation from now fail (0 disables);
 * only that one fails.  xalloc_fail_pending: allocations left before it fails, 0 once it has
 * failed (or none is set).  xalloc_calls: allocation calls made so far, failed ones included
 * (a sweep counts a parse's allocations with it, then fails each in turn). */
void xalloc_fail_after(unsigned long n);
unsigned long xalloc_fail_pending(void);
unsigned long xalloc_calls(void);

#endif
