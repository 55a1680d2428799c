/* xalloc.c - see xalloc.h. */
#define _GNU_SOURCE   /* mremap */
#include "carver/base/xalloc.h"

#include <malloc.h>
#include <pthread.h>
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
 * 24: most of the ~15,700 faults per 100 MB of heap were such first touches).
 *
 * glibc's heap (the program break) is set up once, before the first block: below XALLOC_BIG
 * no block gets a mapping of its own (glibc's threshold starts at 128 KiB: each such block
 * was faulted in page by page and unmapped when freed); the break moves by XALLOC_HEAP_STEP
 * at a time and is given back only past twice that, so that a freed block's pages serve the
 * next one; and every stretch the break grows by is advised MADV_HUGEPAGE (xalloc_heap_grew).
 * The pad costs no memory until used.  Measured on realart-full cc-nodes-nogc-full,
 * heap.hprof alone: 7,000 faults before; 3,300 with the heap set up but not advised; 1,100
 * advised too. */
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

/* Big blocks are mappings of their own, on a 2 MiB boundary, in whole huge pages (the tail
 * past the last boundary would otherwise fault 4 KiB at a time), advised.  They grow by
 * mremap: the kernel moves the pages already filled, huge pages whole, where a copy into a
 * new block faulted every page of it again and copied it (10% of a 23 M-object carve's CPU:
 * model_add's tables doubling).  A fresh mapping is zero, so xcalloc clears nothing.  The
 * live blocks are listed (few: the model's tables, the writers' buffers), so that xfree and
 * xrealloc tell them from glibc's; only a pointer on a 2 MiB boundary is looked up.  Under
 * a sanitizer they stay glibc's (posix_memalign, grown by copy), which it checks. */
#ifdef __SANITIZE_ADDRESS__
enum { XALLOC_OWN_MAPPINGS = 0 };
#else
enum { XALLOC_OWN_MAPPINGS = 1 };
#endif

struct xalloc_block { void *p; size_t len; };
static pthread_mutex_t xalloc_blocks_lock = PTHREAD_MUTEX_INITIALIZER;
static struct xalloc_block *xalloc_blocks;   /* glibc's memory: it is small */
static size_t xalloc_nblocks, xalloc_blocks_cap;

static int xalloc_is_aligned(const void *p) { return ((uintptr_t)p & (XALLOC_HUGE_PAGE - 1)) == 0; }

/* The index of p among the live blocks, or xalloc_nblocks.  Holds the lock. */
static size_t xalloc_block_of(const void *p)
{
	size_t i = 0;
	while (i < xalloc_nblocks && xalloc_blocks[i].p != p)
		i++;
	return i;
}

/* The length of big block p, 0 when p is not one. */
static size_t xalloc_block_len(const void *p)
{
	size_t i, len = 0;

	if (!XALLOC_OWN_MAPPINGS || !p || !xalloc_is_aligned(p))
		return 0;
	pthread_mutex_lock(&xalloc_blocks_lock);
	if ((i = xalloc_block_of(p)) < xalloc_nblocks)
		len = xalloc_blocks[i].len;
	pthread_mutex_unlock(&xalloc_blocks_lock);
	return len;
}

/* Lists p (len bytes) in place of was (NULL: a new block).  0, or -1 out of memory. */
static int xalloc_block_set(void *was, void *p, size_t len)
{
	size_t i;
	int rc = 0;

	pthread_mutex_lock(&xalloc_blocks_lock);
	i = was ? xalloc_block_of(was) : xalloc_nblocks;
	if (i == xalloc_nblocks && xalloc_nblocks == xalloc_blocks_cap) {
		size_t cap = xalloc_blocks_cap ? 2 * xalloc_blocks_cap : 64;
		struct xalloc_block *b = realloc(xalloc_blocks, cap * sizeof(*b));
		if (b) {
			xalloc_blocks = b;
			xalloc_blocks_cap = cap;
		} else
			rc = -1;
	}
	if (rc == 0) {
		if (i == xalloc_nblocks)
			xalloc_nblocks++;
		xalloc_blocks[i] = (struct xalloc_block){ p, len };
	}
	pthread_mutex_unlock(&xalloc_blocks_lock);
	return rc;
}

/* Takes p off the list: its length, 0 when p is not a big block (one lookup, one lock). */
static size_t xalloc_block_take(void *p)
{
	size_t i, len = 0;

	if (!XALLOC_OWN_MAPPINGS || !p || !xalloc_is_aligned(p))
		return 0;
	pthread_mutex_lock(&xalloc_blocks_lock);
	if ((i = xalloc_block_of(p)) < xalloc_nblocks) {
		len = xalloc_blocks[i].len;
		xalloc_blocks[i] = xalloc_blocks[--xalloc_nblocks];
	}
	pthread_mutex_unlock(&xalloc_blocks_lock);
	return len;
}

/* n rounded up to whole huge pages; 0 on overflow. */
static size_t xalloc_whole(size_t n)
{
	size_t whole;
	if (ck_add(n, XALLOC_HUGE_PAGE - 1, &whole))
		return 0;
	return whole & ~(size_t)(XALLOC_HUGE_PAGE - 1);
}

/* An address range of len bytes (whole huge pages) on a boundary of align (a power of two,
 * at least a huge page), mapped inaccessible and unused, or NULL. */
static void *xalloc_reserve(size_t align, size_t len)
{
	size_t span;
	uint8_t *r, *p;

	if (ck_add(len, align, &span))
		return NULL;
	r = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (r == MAP_FAILED)
		return NULL;
	p = (uint8_t *)(((uintptr_t)r + align - 1) & ~(uintptr_t)(align - 1));
	if (p > r)
		munmap(r, (size_t)(p - r));
	if (r + span > p + len)
		munmap(p + len, (size_t)(r + span - (p + len)));
	return p;
}

/* n >= XALLOC_BIG bytes aligned to align (a power of two) or to a huge page, advised. */
static void *xalloc_big(size_t align, size_t n)
{
	size_t whole = xalloc_whole(n);
	void *p = NULL;

	if (!whole)
		return NULL;
	if (align < XALLOC_HUGE_PAGE)
		align = XALLOC_HUGE_PAGE;
	if (!XALLOC_OWN_MAPPINGS) {
		if (posix_memalign(&p, align, whole) != 0)
			return NULL;
		return xalloc_advise(p, whole);
	}
	if (!(p = xalloc_reserve(align, whole)))
		return NULL;
	if (mprotect(p, whole, PROT_READ | PROT_WRITE) != 0 || xalloc_block_set(NULL, p, whole) != 0) {
		munmap(p, whole);
		return NULL;
	}
	return xalloc_advise(p, whole);
}

/* Big block p (had bytes) grown to n: in place where the addresses past it are free, else
 * moved (its pages with it) to a new huge-page boundary.  NULL leaves p as it was. */
static void *xalloc_big_grow(void *p, size_t had, size_t n)
{
	size_t whole = xalloc_whole(n);
	void *q;

	if (!whole)
		return NULL;
	if ((q = mremap(p, had, whole, 0)) == MAP_FAILED) {
		void *to = xalloc_reserve(XALLOC_HUGE_PAGE, whole);
		if (!to)
			return NULL;
		if ((q = mremap(p, had, whole, MREMAP_MAYMOVE | MREMAP_FIXED, to)) == MAP_FAILED) {
			munmap(to, whole);
			return NULL;
		}
	}
	if (xalloc_block_set(p, q, whole) != 0)   /* cannot fail: p was listed */
		return NULL;
	return xalloc_advise(q, whole);
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
	/* aligned like xmalloc's big blocks (calloc's would start 16 bytes into its mapping);
	 * a new mapping of our own is zero, glibc's memory is cleared by hand */
	if ((p = xalloc_big(0, total)) && !XALLOC_OWN_MAPPINGS)
		memset(p, 0, total);
	return p;
}

size_t xalloc_usable(const void *p)
{
	size_t len = xalloc_block_len(p);
	return len ? len : p ? malloc_usable_size((void *)p) : 0;
}

void *xrealloc(void *p, size_t n)
{
	size_t had, big;
	void *q;

	if (xalloc_should_fail())
		return NULL;
	xalloc_setup();
	big = xalloc_block_len(p);
	if (n < XALLOC_BIG && !big)
		return xalloc_heap_grew(realloc(p, n ? n : 1));
	had = big ? big : p ? malloc_usable_size(p) : 0;
	if (n <= had)
		return p;
	if (big)
		return xalloc_big_grow(p, had, n);
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

void xfree(void *p)
{
	size_t len = xalloc_block_take(p);

	if (len)
		munmap(p, len);
	else
		free(p);
}

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
