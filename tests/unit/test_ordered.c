/* test_ordered.c - ordered_run (carver/base/ordered.h): 1,000 chunks of uneven work made on
 * 1 to 4 threads through 1 to 5 slots are taken in order, each with what its own make put in
 * its slot (a checksum over the takes, the same for every setting); a make or a take that
 * fails at chunk k (the first, one in the middle, the last) gives k's error after exactly the
 * takes before it; no chunk is made twice; zero chunks do nothing. */
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "carver/base/ordered.h"
#include "tests/unit/t.h"

enum { CHUNKS = 1000, SLOTS_MAX = 5 };

struct run {
	uint64_t slot_val[SLOTS_MAX];
	size_t slot_chunk[SLOTS_MAX];
	size_t taken;           /* takes so far, in order */
	bool out_of_order;      /* a take saw another chunk's value, or came out of order */
	uint64_t sum;           /* over the takes, order-sensitive */
	atomic_uint made[CHUNKS];
	size_t fail_make, fail_take;   /* 1 + the chunk that fails, 0 none */
};

/* A value only chunk c gives, after some work that varies with c. */
static uint64_t chunk_value(size_t c)
{
	uint64_t v = c * 0x9e3779b97f4a7c15ull;
	for (size_t i = 0; i < (c * 7919) % 20000; i++)
		v = v * 6364136223846793005ull + 1442695040888963407ull;
	return v;
}

static int make(void *arg, unsigned slot, size_t c, struct err *e)
{
	struct run *r = arg;
	atomic_fetch_add(&r->made[c], 1);
	if (r->fail_make == c + 1)
		return ERR_SET(e, ERR_CORRUPT, c, "make failed at chunk %zu", c);
	r->slot_val[slot] = chunk_value(c);
	r->slot_chunk[slot] = c;
	return 0;
}

static int take(void *arg, unsigned slot, size_t c, struct err *e)
{
	struct run *r = arg;
	if (r->fail_take == c + 1)
		return ERR_SET(e, ERR_CORRUPT, c, "take failed at chunk %zu", c);
	if (c != r->taken || r->slot_chunk[slot] != c || r->slot_val[slot] != chunk_value(c))
		r->out_of_order = true;
	r->sum = r->sum * 31 + r->slot_val[slot];
	r->taken++;
	return 0;
}

/* One run; its rc, *e its error. */
static int run_once(struct run *r, size_t chunks, unsigned threads, unsigned slots, struct err *e)
{
	struct ordered_ops ops = { make, take, r };
	err_init(e);
	return ordered_run(&ops, chunks, threads, slots, e);
}

static struct run r;

int main(void)
{
	struct err e;
	uint64_t want = 0;

	T_SECTION("every chunk taken once, in order, with its own slot's value");
	for (unsigned threads = 1; threads <= 4; threads++) {
		for (unsigned slots = 1; slots <= SLOTS_MAX; slots++) {
			memset(&r, 0, sizeof(r));
			int rc = run_once(&r, CHUNKS, threads, slots, &e);
			unsigned twice = 0;
			for (size_t c = 0; c < CHUNKS; c++)
				twice += atomic_load(&r.made[c]) != 1;
			if (threads == 1 && slots == 1)
				want = r.sum;
			printf("threads %u slots %u: rc %d, %zu taken, checksum %016llx, made not once %u\n", threads, slots,
			       rc, r.taken, (unsigned long long)r.sum, twice);
			T_EQ_I(rc, 0);
			T_EQ_U(r.taken, CHUNKS);
			T_CHECK(!r.out_of_order, "threads %u slots %u: a chunk taken out of order", threads, slots);
			T_CHECK(r.sum == want, "threads %u slots %u: checksum differs from one thread's", threads, slots);
			T_EQ_U(twice, 0);
		}
	}

	T_SECTION("a make or take that fails: its error, after the takes before it");
	const size_t at[] = { 0, 1, 499, CHUNKS - 1 };
	for (int which = 0; which < 2; which++) {
		for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
			for (unsigned threads = 1; threads <= 3; threads += 2) {
				memset(&r, 0, sizeof(r));
				if (which == 0)
					r.fail_make = at[i] + 1;
				else
					r.fail_take = at[i] + 1;
				int rc = run_once(&r, CHUNKS, threads, 4, &e);
				char want_msg[64];
				snprintf(want_msg, sizeof(want_msg), "%s failed at chunk %zu", which ? "take" : "make", at[i]);
				printf("%s, threads %u: rc %d \"%s\", %zu taken\n", want_msg, threads, rc, e.msg, r.taken);
				T_EQ_I(rc, -ERR_CORRUPT);
				T_EQ_S(e.msg, want_msg);
				T_EQ_U(r.taken, at[i]);
				T_CHECK(!r.out_of_order, "the takes before the failure in order");
			}
		}
	}

	T_SECTION("no chunk; no slot");
	memset(&r, 0, sizeof(r));
	T_EQ_I(run_once(&r, 0, 4, 2, &e), 0);
	T_EQ_U(r.taken, 0);
	T_EQ_I(run_once(&r, 10, 4, 0, &e), -ERR_INTERNAL);
	printf("no slot: %s\n", e.msg);
	T_DONE();
}
