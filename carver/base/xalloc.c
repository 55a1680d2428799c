/* xalloc.c - see xalloc.h. */
#include "carver/base/xalloc.h"

#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

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

/* Blocks of at least XALLOC_BIG bytes (the model's tables, the writers' buffers) start on a
 * 2 MiB boundary in a mapping of their own (M_MMAP_THRESHOLD, set before the first one) and
 * are advised MADV_HUGEPAGE: where the kernel gives transparent huge pages on request, filling
 * one costs a page fault per 2 MiB instead of one per 4 KiB page (issue 24: most of the
 * ~15,700 faults per 100 MB of heap were such first touches).  A big block grows by a copy
 * into a new aligned one, not by glibc's mremap, which would move it off the boundary. */
enum { XALLOC_BIG = 4 << 20, XALLOC_HUGE_PAGE = 2 << 20 };
static _Atomic int xalloc_threshold_set;

static void xalloc_big_first(size_t n)
{
	if (n >= XALLOC_BIG && !xalloc_threshold_set) {
		mallopt(M_MMAP_THRESHOLD, XALLOC_BIG);
		xalloc_threshold_set = 1;
	}
}

static void *xalloc_advise(void *p, size_t n)
{
	uintptr_t lo, hi;

	if (!p || n < XALLOC_BIG)
		return p;
	lo = ((uintptr_t)p + XALLOC_HUGE_PAGE - 1) & ~(uintptr_t)(XALLOC_HUGE_PAGE - 1);
	hi = ((uintptr_t)p + n) & ~(uintptr_t)(XALLOC_HUGE_PAGE - 1);
	if (hi > lo)
		madvise((void *)lo, hi - lo, MADV_HUGEPAGE);   /* advice: nothing to do if refused */
	return p;
}

/* n >= XALLOC_BIG bytes aligned to align (a power of two) or to a huge page, advised. */
static void *xalloc_big(size_t align, size_t n)
{
	void *p = NULL;
	xalloc_big_first(n);
	if (posix_memalign(&p, align > XALLOC_HUGE_PAGE ? align : XALLOC_HUGE_PAGE, n) != 0)
		return NULL;
	return xalloc_advise(p, n);
}

void *xmalloc(size_t n)
{
	if (xalloc_should_fail())
		return NULL;
	return n >= XALLOC_BIG ? xalloc_big(0, n) : malloc(n ? n : 1);
}

void *xcalloc(size_t count, size_t size)
{
	size_t total;
	if (ck_mul(count, size, &total) || xalloc_should_fail())
		return NULL;
	/* calloc itself: a fresh mapping is zero without touching its pages */
	xalloc_big_first(total);
	return xalloc_advise(calloc(total ? total : 1, 1), total);
}

void *xrealloc(void *p, size_t n)
{
	size_t had;
	void *q;

	if (xalloc_should_fail())
		return NULL;
	if (n < XALLOC_BIG)
		return realloc(p, n ? n : 1);
	had = p ? malloc_usable_size(p) : 0;
	if (n <= had)
		return p;
	if (!(q = xalloc_big(0, n)))
		return NULL;
	if (p)
		memcpy(q, p, had);
	free(p);
	return q;
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
	if (xalloc_should_fail())
		return NULL;
	if (n >= XALLOC_BIG)
		return xalloc_big(align, n);
	if (posix_memalign(&p, align, n ? n : 1) != 0)
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
