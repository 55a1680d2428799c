/* xalloc.c - see xalloc.h. */
#include "carver/base/xalloc.h"

#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

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

/* Blocks of at least XALLOC_HUGE bytes (the model's tables, the writers' buffers) are each a
 * mapping of their own (M_MMAP_THRESHOLD, set before the first one) advised MADV_HUGEPAGE:
 * where the kernel gives transparent huge pages on request, filling one costs a page fault
 * per 2 MiB instead of one per 4 KiB page (issue 24: ~10,000 faults per 100 MB of heap were
 * the model's first touches).  The whole mapping is advised, so it stays one VMA and glibc's
 * realloc can still grow it with mremap; a block inside the brk heap (the threshold not set)
 * is left alone. */
enum { XALLOC_HUGE = 4 << 20 };
static _Atomic int xalloc_threshold_set;

static void xalloc_big_first(size_t n)
{
	if (n >= XALLOC_HUGE && !xalloc_threshold_set) {
		mallopt(M_MMAP_THRESHOLD, XALLOC_HUGE);
		xalloc_threshold_set = 1;
	}
}

static void *xalloc_advise(void *p, size_t n)
{
	long ps = sysconf(_SC_PAGESIZE);
	uintptr_t page = ps > 0 ? (uintptr_t)ps : 4096, lo, hi;

	if (!p || n < XALLOC_HUGE || !xalloc_threshold_set)
		return p;
	lo = (uintptr_t)p & ~(page - 1);   /* glibc's chunk header lies in the mapping's first page */
	hi = ((uintptr_t)p + n + page - 1) & ~(page - 1);
	madvise((void *)lo, hi - lo, MADV_HUGEPAGE);   /* advice: nothing to do if refused */
	return p;
}

void *xmalloc(size_t n)
{
	if (xalloc_should_fail())
		return NULL;
	xalloc_big_first(n);
	return xalloc_advise(malloc(n ? n : 1), n);
}

void *xcalloc(size_t count, size_t size)
{
	size_t total;
	if (ck_mul(count, size, &total) || xalloc_should_fail())
		return NULL;
	xalloc_big_first(total);
	return xalloc_advise(calloc(total ? total : 1, 1), total);
}

void *xrealloc(void *p, size_t n)
{
	if (xalloc_should_fail())
		return NULL;
	xalloc_big_first(n);
	return xalloc_advise(realloc(p, n ? n : 1), n);
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
	xalloc_big_first(n);
	if (posix_memalign(&p, align, n ? n : 1) != 0)
		return NULL;
	return xalloc_advise(p, n);
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
