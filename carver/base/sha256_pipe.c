/* sha256_pipe.c - see sha256_pipe.h. */
#include "carver/base/sha256_pipe.h"

#include <pthread.h>
#include <stdbool.h>
#include <string.h>

#include "carver/base/xalloc.h"

/* Blocks are handed over in fill order and hashed in that order: the digest is that of the
 * bytes as given.  Four blocks of 4 MiB: the writer runs ahead of the hash by up to 12 MiB. */
enum { PIPE_BLOCKS = 4, PIPE_BLOCK = 4 << 20 };

struct sha256_pipe {
	struct sha256 sum;              /* the thread's only */
	uint8_t *block[PIPE_BLOCKS];
	size_t len[PIPE_BLOCKS];        /* bytes of a ready block */
	bool ready[PIPE_BLOCKS];        /* handed over, not hashed yet (under lock) */
	bool ending;                    /* no more blocks come (under lock) */
	unsigned fill;                  /* the producer's block, */
	size_t used;                    /* and the bytes in it */
	bool started, joined;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t handed, freed;
};

static void *pipe_hash(void *arg)
{
	struct sha256_pipe *p = arg;
	for (unsigned at = 0;; at = (at + 1) % PIPE_BLOCKS) {
		pthread_mutex_lock(&p->lock);
		while (!p->ready[at] && !p->ending)
			pthread_cond_wait(&p->handed, &p->lock);
		bool have = p->ready[at];
		pthread_mutex_unlock(&p->lock);
		if (!have)   /* ending, and every block handed over was hashed */
			return NULL;
		sha256_update(&p->sum, p->block[at], p->len[at]);
		pthread_mutex_lock(&p->lock);
		p->ready[at] = false;
		pthread_cond_signal(&p->freed);
		pthread_mutex_unlock(&p->lock);
	}
}

struct sha256_pipe *sha256_pipe_open(void)
{
	struct sha256_pipe *p = xcalloc(1, sizeof(*p));
	if (!p)
		return NULL;
	sha256_init(&p->sum);
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->handed, NULL);
	pthread_cond_init(&p->freed, NULL);
	for (unsigned i = 0; i < PIPE_BLOCKS; i++)
		if (!(p->block[i] = xmalloc(PIPE_BLOCK))) {
			sha256_pipe_close(p);
			return NULL;
		}
	if (pthread_create(&p->thread, NULL, pipe_hash, p) != 0) {
		sha256_pipe_close(p);
		return NULL;
	}
	p->started = true;
	return p;
}

/* The filled block to the thread; the next one taken once the thread is done with it. */
static void pipe_hand_over(struct sha256_pipe *p)
{
	pthread_mutex_lock(&p->lock);
	p->len[p->fill] = p->used;
	p->ready[p->fill] = true;
	pthread_cond_signal(&p->handed);
	p->fill = (p->fill + 1) % PIPE_BLOCKS;
	while (p->ready[p->fill])
		pthread_cond_wait(&p->freed, &p->lock);
	pthread_mutex_unlock(&p->lock);
	p->used = 0;
}

void sha256_pipe_update(struct sha256_pipe *p, const void *data, size_t n)
{
	const uint8_t *b = data;
	while (n) {
		size_t take = PIPE_BLOCK - p->used < n ? PIPE_BLOCK - p->used : n;
		memcpy(p->block[p->fill] + p->used, b, take);
		p->used += take;
		b += take;
		n -= take;
		if (p->used == PIPE_BLOCK)
			pipe_hand_over(p);
	}
}

/* No more blocks: the thread hashes what it was given and ends. */
static void pipe_join(struct sha256_pipe *p)
{
	if (!p->started || p->joined)
		return;
	pthread_mutex_lock(&p->lock);
	p->ending = true;
	pthread_cond_signal(&p->handed);
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->thread, NULL);
	p->joined = true;
}

void sha256_pipe_final(struct sha256_pipe *p, uint8_t out[SHA256_DIGEST])
{
	if (p->used)
		pipe_hand_over(p);
	pipe_join(p);
	sha256_final(&p->sum, out);
}

void sha256_pipe_close(struct sha256_pipe *p)
{
	if (!p)
		return;
	pipe_join(p);
	for (unsigned i = 0; i < PIPE_BLOCKS; i++)
		xfree(p->block[i]);
	pthread_cond_destroy(&p->freed);
	pthread_cond_destroy(&p->handed);
	pthread_mutex_destroy(&p->lock);
	xfree(p);
}
