/* xalloc.c - see xalloc.h. */
#include "carver/base/xalloc.h"

#include <stdlib.h>
#include <string.h>

#include "carver/base/ck.h"
#include "carver/base/err.h"

/* per thread: the hooks are for single-threaded tests, and a count shared by carve's output
 * writers would be a data race */
static _Thread_local unsigned long xalloc_countdown, xalloc_count;

void xalloc_fail_after(unsigned long n) { xalloc_countdown = n; }
unsigned long xalloc_fail_pending(void) { return xalloc_countdown; }
unsigned long xalloc_calls(void) { return xalloc_count; }

static int xalloc_should_fail(void)
{
	xalloc_count++;
	if (xalloc_countdown == 0)
		return 0;
	return --xalloc_countdown == 0;
}

void *xmalloc(size_t n)
{
	if (xalloc_should_fail())
		return NULL;
	return malloc(n ? n : 1);
}

void *xcalloc(size_t count, size_t size)
{
	size_t total;
	if (ck_mul(count, size, &total) || xalloc_should_fail())
		return NULL;
	return calloc(total ? total : 1, 1);
}

void *xrealloc(void *p, size_t n)
{
	if (xalloc_should_fail())
		return NULL;
	return realloc(p, n ? n : 1);
}

void *xreallocarray(void *p, size_t count, size_t size)
{
	size_t total;
	if (ck_mul(count, size, &total))
		return NULL;
	return xrealloc(p, total);
}

void *xmalloc_aligned(size_t align, size_t n)
{
	void *p = NULL;
	if (xalloc_should_fail() || posix_memalign(&p, align, n ? n : 1) != 0)
		return NULL;
	return p;
}

void xfree(void *p) { free(p); }

int xalloc_grow(void *arrp, size_t *cap, size_t need, size_t size, size_t init)
{
	size_t nc = *cap ? *cap : init ? init : 1;
	void *old, *p;

	if (need <= *cap)
		return 0;
	while (nc < need)
		if (ck_mul(nc, 2, &nc))
			return -ERR_NOMEM;
	memcpy(&old, arrp, sizeof(old));
	if (!(p = xreallocarray(old, nc, size)))
		return -ERR_NOMEM;
	memcpy(arrp, &p, sizeof(p));
	*cap = nc;
	return 0;
}
