/* xalloc.h - allocation wrappers with a failure-injection hook for tests.
 * They return NULL on failure (never abort); callers turn that into ERR_NOMEM. */
#ifndef ARTCARVE_XALLOC_H
#define ARTCARVE_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t count, size_t size);      /* overflow-checked */
void *xrealloc(void *p, size_t n);
void *xreallocarray(void *p, size_t count, size_t size); /* overflow-checked */
void xfree(void *p);
/* Test hook: make the n-th allocation from now fail (0 disables). */
void xalloc_fail_after(unsigned long n);

#endif
