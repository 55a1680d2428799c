/* xalloc.c - see xalloc.h. */
#include "carver/base/xalloc.h"

#include <malloc.h>
#include <stdatomic.h>
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

/* Blocks of at least XALLOC_BIG bytes (the model's tables, the writers' buffers) start on a
 * 2 MiB boundary and are advised MADV_HUGEPAGE: where the kernel gives transparent huge pages
 * on request, filling one costs a page fault per 2 MiB instead of one per 4 KiB page (issue
 * 24: most of the ~15,700 faults per 100 MB of heap were such first touches).  A big block
 * grows by a copy into a new aligned one, not by glibc's mremap, which would move it off the
 * boundary.
 *
 * glibc's heap (the program break) is set up once, before the first block: below XALLOC_BIG
 * no block gets a mapping of its own (glibc's threshold starts at 128 KiB: each such block
 * was faulted in page by page and unmapped when freed); the break moves by XALLOC_HEAP_STEP
 * at a time and is given back only past twice that, so that the big blocks too are mostly
 * cut from the heap's top and a freed table's pages serve the next one; and every stretch
 * the break grows by is advised MADV_HUGEPAGE (xalloc_heap_grew).  The pad costs no memory
 * until used.  Measured on realart-full cc-nodes-nogc-full, heap.hprof alone: 7,000 faults
 * before; 3,300 with the heap set up but not advised; 1,100 advised too. */
enum { XALLOC_BIG = 4 << 20, XALLOC_HUGE_PAGE = 2 << 20, XALLOC_HEAP_STEP = 32 << 20 };
static _Atomic int xalloc_ready;
static _Atomic uintptr_t xalloc_heap_end;   /* the break up to which the heap is advised */

static void xalloc_setup(void)
{
	if (xalloc_ready)
		return;
	xalloc_ready = 1;   /* a second thread doing the same at once sets the same values */
	mallopt(M_MMAP_THRESHOLD, XALLOC_BIG);
	mallopt(M_TRIM_THRESHOLD, 2 * XALLOC_HEAP_STEP);
	mallopt(M_TOP_PAD, XALLOC_HEAP_STEP);
	xalloc_heap_end = (uintptr_t)sbrk(0);   /* what the start-up allocated stays as it is */
}

/* After an allocation from glibc's heap: advises what the break grew by since the last one
 * (the kernel makes a new mapping of each growth, without the advice). */
static void *xalloc_heap_grew(void *p)
{
	uintptr_t end = (uintptr_t)sbrk(0), seen = xalloc_heap_end, page = 4096;

	if (end == seen || end == (uintptr_t)-1)
		return p;
	seen = atomic_exchange(&xalloc_heap_end, end);
	if (end > seen)
		madvise((void *)(seen & ~(page - 1)), end - (seen & ~(page - 1)), MADV_HUGEPAGE);   /* advice */
	return p;
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

/* n >= XALLOC_BIG bytes aligned to align (a power of two) or to a huge page, advised.  The
 * size is rounded up to whole huge pages: the tail past the last 2 MiB boundary would
 * otherwise fault a 4 KiB page at a time (up to 511 faults per block, each time a table
 * grows into a new block), and xrealloc's malloc_usable_size then grows into the rounding. */
static void *xalloc_big(size_t align, size_t n)
{
	void *p = NULL;
	size_t whole;

	if (ck_add(n, XALLOC_HUGE_PAGE - 1, &whole))
		return NULL;
	whole &= ~(size_t)(XALLOC_HUGE_PAGE - 1);
	if (posix_memalign(&p, align > XALLOC_HUGE_PAGE ? align : XALLOC_HUGE_PAGE, whole) != 0)
		return NULL;
	return xalloc_advise(p, whole);
}

void *xmalloc(size_t n)
{
	if (xalloc_should_fail())
		return NULL;
	xalloc_setup();
	return n >= XALLOC_BIG ? xalloc_big(0, n) : xalloc_heap_grew(malloc(n ? n : 1));
}

void *xcalloc(size_t count, size_t size)
{
	size_t total;
	void *p;

	if (ck_mul(count, size, &total) || xalloc_should_fail())
		return NULL;
	xalloc_setup();
	if (total < XALLOC_BIG)
		return xalloc_heap_grew(calloc(total ? total : 1, 1));
	/* aligned like xmalloc's big blocks (calloc's would start 16 bytes into its mapping,
	 * its first and last 2 MiB in 4 KiB pages); cleared by hand, as glibc may carve it from
	 * memory already used */
	if ((p = xalloc_big(0, total)))
		memset(p, 0, total);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	size_t had;
	void *q;

	if (xalloc_should_fail())
		return NULL;
	xalloc_setup();
	if (n < XALLOC_BIG)
		return xalloc_heap_grew(realloc(p, n ? n : 1));
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
	xalloc_setup();
	if (n >= XALLOC_BIG)
		return xalloc_big(align, n);
	if (posix_memalign(&p, align, n ? n : 1) != 0)
		return NULL;
	return xalloc_heap_grew(p);
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
