/* test_nheap.c - the native heap text formats (carver/native): fields and their errors with
 * file, line and column; dump headers, records, bt_info, MAPS and truncation; the v1.0 count
 * rule; the record_allocs replay against a plain list model over many random operations
 * (the hash tables delete by backward shift). */
#include <stdlib.h>

#include "carver/base/xalloc.h"
#include "carver/native/ndump.h"
#include "carver/native/ndump_agg.h"
#include "carver/native/nheap_text.h"
#include "carver/native/nrec.h"
#include "tests/unit/t.h"

static void test_fields(void)
{
	struct nh_line l = { "  0000a230 ffffffffffffffff 1ffffffffffffffff 18446744073709551616 x", 0, 4, 100, true };
	struct nh_scan sc;
	struct err e;
	uint64_t v;

	T_SECTION("fields");
	l.len = strlen(l.s);
	nh_scan_init(&sc, &l, "f.txt");
	nh_spaces(&sc);
	T_EQ_I(nh_hex(&sc, &v, false, "a frame", &e), 0);
	T_EQ_U(v, 0xa230);
	nh_spaces(&sc);
	T_EQ_I(nh_hex(&sc, &v, false, "a frame", &e), 0);
	T_EQ_U(v, UINT64_MAX);
	nh_spaces(&sc);
	T_EQ_I(nh_hex(&sc, &v, false, "a frame", &e), -ERR_CORRUPT);
	T_EQ_S(e.msg, "f.txt:4:29: a frame does not fit 64 bits");
	T_EQ_U(e.va, 128);
	sc.pos += 18;
	T_EQ_I(nh_dec(&sc, &v, "the size", &e), -ERR_CORRUPT);
	T_EQ_S(e.msg, "f.txt:4:47: the size does not fit 64 bits");
	sc.pos = l.len - 1;
	T_EQ_I(nh_dec(&sc, &v, "the size", &e), -ERR_CORRUPT);
	T_EQ_S(e.msg, "f.txt:4:68: expected the size (decimal digits)");
}

struct collect {
	unsigned records, maps, headers;
	uint64_t frames, info, last_size;
	char first_func[32];
};

static int c_header(void *ctx, const struct ndump_header *h, struct err *e)
{
	(void)h;
	(void)e;
	((struct collect *)ctx)->headers++;
	return 0;
}

static int c_record(void *ctx, const struct ndump_record *r, struct err *e)
{
	struct collect *c = ctx;

	(void)e;
	c->records++;
	c->frames += r->nframes;
	c->info += r->ninfo;
	c->last_size = r->size;
	if (r->ninfo && !c->first_func[0])
		snprintf(c->first_func, sizeof(c->first_func), "%.*s", (int)r->info[0].func_len, r->info[0].func);
	return 0;
}

static int c_map(void *ctx, const struct maps_entry *m, struct err *e)
{
	(void)m;
	(void)e;
	((struct collect *)ctx)->maps++;
	return 0;
}

static int parse(const char *text, struct collect *c, struct ndump_stats *st, struct err *e)
{
	struct ndump_sink sink = { c, c_header, c_record, c_map };

	memset(c, 0, sizeof(*c));
	err_init(e);
	return ndump_parse((const uint8_t *)text, strlen(text), "h.txt", NULL, &sink, st, e);
}

#define V12 "Android Native Heap Dump v1.2\n\nBuild fingerprint: 'x'\n\nTotal memory: 30\nAllocation records: 2\nBacktrace size: 3\n\n"

static void test_dump(void)
{
	struct collect c;
	struct ndump_stats st;
	struct err e;

	T_SECTION("dump");
	T_EQ_I(parse(V12 "z 0  sz       10  num    1  bt a b c\n  bt_info {\"/l.so\" 1 \"f\" 2} {\"\" b \"\" 0} {\"x\" c \"g\" 0}\n"
		     "z 1  sz       20  num    1  bt\nMAPS\n1000-2000 r-xp 00000000 00:00 0 /l.so\nEND\n\n", &c, &st, &e), 0);
	T_EQ_U(c.headers, 1);
	T_EQ_U(c.records, 2);
	T_EQ_U(c.frames, 3);
	T_EQ_U(c.info, 3);
	T_EQ_S(c.first_func, "f");
	T_EQ_U(c.maps, 1);
	T_CHECK(st.ended, "END seen");
	/* errors name file, line, column */
	T_EQ_I(parse(V12 "z 2  sz 1  num 1  bt\n", &c, &st, &e), -ERR_CORRUPT);
	T_EQ_S(e.msg, "h.txt:9:4: zygote flag 2 is neither 0 nor 1");
	T_EQ_I(parse(V12 "z 0  sz 1  num 1  bt a b c d\n", &c, &st, &e), -ERR_CORRUPT);
	T_EQ_S(e.msg, "h.txt:9:28: more than 3 frames (the header's backtrace size)");
	T_EQ_I(parse(V12 "z 0  sz 1  num 1  bt ag\n", &c, &st, &e), -ERR_CORRUPT);
	T_EQ_S(e.msg, "h.txt:9:23: unexpected character 'g' after a frame address");
	T_EQ_I(parse(V12 "  bt_info {\"\" 1 \"\" 0}\n", &c, &st, &e), -ERR_CORRUPT);
	T_EQ_S(e.msg, "h.txt:9:10: bt_info line without a record line before it");
	T_EQ_I(parse("Android Native Heap Dump v1.3\n", &c, &st, &e), -ERR_UNSUP);
	T_EQ_I(parse("Native heap dump not available.\n", &c, &st, &e), -ERR_CORRUPT);
	T_CHECK(strstr(e.msg, "h.txt:1:1: not an Android native heap dump") == e.msg, "%s", e.msg);
	T_EQ_I(parse(V12 "Total memory: 4\n", &c, &st, &e), -ERR_CORRUPT);
	T_EQ_S(e.msg, "h.txt:9:1: second \"the total memory\" line");
	T_EQ_I(parse(V12 "MAPS\n1000-0500 r-xp 0 0:0 0 x\nEND\n", &c, &st, &e), -ERR_CORRUPT);
	T_CHECK(strstr(e.msg, "h.txt:10:1: MAPS line: ") == e.msg, "%s", e.msg);
	T_EQ_I(parse(V12 "MAPS\nEND\nz 0  sz 1  num 1  bt\n", &c, &st, &e), -ERR_CORRUPT);
	T_EQ_S(e.msg, "h.txt:11:1: text after the END line");
	/* truncation: what was read is reported, the cut line is not parsed */
	T_EQ_I(parse(V12 "z 0  sz 1  num 1  bt a\nz 0  sz 1  num 1  bt b", &c, &st, &e), -ERR_TRUNC);
	T_EQ_U(c.records, 1);
	T_EQ_S(e.msg, "h.txt: truncated at line 10 (byte 136): read 1 records of the 2 the header announces, 0 MAPS lines, no END line");
	T_EQ_I(parse("Android Native Heap", &c, &st, &e), -ERR_TRUNC);
	T_EQ_I(parse("", &c, &st, &e), -ERR_TRUNC);
	T_EQ_I(parse(V12 "MAPS\nEND", &c, &st, &e), 0);
}

static int agg_parse(struct ndump_agg *a, const char *text, struct err *e)
{
	struct ndump_sink sink;
	struct ndump_stats st;
	int rc;

	ndump_agg_init(a);
	ndump_agg_sink(a, &sink);
	err_init(e);
	if ((rc = ndump_parse((const uint8_t *)text, strlen(text), "h.txt", NULL, &sink, &st, e)))
		return rc;
	return ndump_agg_finish(a, e);
}

static void test_agg(void)
{
	struct ndump_agg a;
	struct ndump_place p;
	struct err e;

	T_SECTION("sums");
	/* v1.0 whose total is the sum of sizes: NUM is noise, one allocation per record */
	T_EQ_I(agg_parse(&a, "Android Native Heap Dump v1.0\n\nTotal memory: 30\nAllocation records: 2\nBacktrace size: 4\n\n"
			 "z 0  sz       10  num    7  bt 00001010\nz 1  sz       20  num    9  bt 00001010\nMAPS\n"
			 "1000-2000 r-xp 00003000 00:00 0 /l.so\nEND\n", &e), 0);
	T_CHECK(!a.num_trusted, "v1.0 with sizes summing to the total: NUM not trusted");
	T_EQ_U(a.site_count, 1);
	T_EQ_U(ndump_site_allocs(&a, a.sites[0]), 2);
	T_EQ_U(ndump_site_bytes(&a, a.sites[0]), 30);
	T_EQ_U(ndump_site_zygote_bytes(&a, a.sites[0]), 20);
	ndump_agg_place(&a, 0x1010, &p);
	T_CHECK(p.placed, "0x1010 placed");
	T_EQ_S(p.lib, "/l.so");
	T_EQ_U(p.lib_offset, 0x3010);
	ndump_agg_place(&a, 0x2000, &p);
	T_CHECK(!p.placed, "0x2000 (the end) not placed");
	ndump_agg_release(&a);
	/* v1.0 whose total matches size * num: trusted */
	T_EQ_I(agg_parse(&a, "Android Native Heap Dump v1.0\n\nTotal memory: 250\n\n"
			 "z 0  sz       10  num    7  bt 1 2\nz 0  sz       20  num    9  bt 1 2\nz 0  sz 1  num 0  bt 2 1\nMAPS\nEND\n", &e), 0);
	T_CHECK(a.num_trusted, "v1.0 with the total of size * num: trusted");
	T_EQ_U(a.site_count, 2);
	T_EQ_U(ndump_site_bytes(&a, a.sites[0]), 250);
	T_EQ_U(a.lib_count, 1);
	T_EQ_S(a.libs[0].name, "[unknown]");
	T_EQ_U(a.libs[0].sites, 2);
	ndump_agg_release(&a);
}

/* The replay against a list model: random operations on few pointers (long probe clusters),
 * checked after every step. */
static void test_replay_model(void)
{
	enum { N = 64, STEPS = 20000 };
	struct nrec_replay r;
	struct nrec_entry en;
	struct nrec_live *v = NULL;
	uint64_t model_size[N + 1], model_live[N + 1], bytes = 0, seed = 7;
	struct err e;
	unsigned bad = 0, events = 0;

	T_SECTION("replay model");
	memset(model_live, 0, sizeof(model_live));
	nrec_replay_init(&r);
	for (unsigned s = 0; s < STEPS && !bad; s++) {
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		unsigned k = 1 + (unsigned)(seed >> 33) % N;
		memset(&en, 0, sizeof(en));
		en.line = s + 1;
		en.ptr = (uint64_t)k << 12;     /* the same low bits: every pointer in one cluster */
		if ((seed >> 20) & 1) {
			en.op = NREC_MALLOC;
			en.size = seed >> 50;
			if (model_live[k]) {
				bytes -= model_size[k];
				events++;
			}
			model_live[k] = 1;
			model_size[k] = en.size;
			bytes += en.size;
		} else {
			en.op = NREC_FREE;
			if (model_live[k])
				bytes -= model_size[k];
			else
				events++;
			model_live[k] = 0;
		}
		if (nrec_replay_apply(&r, &en, &e)) {
			bad++;
			break;
		}
		if (r.live_bytes != bytes)
			bad++;
	}
	T_EQ_U(bad, 0);
	T_EQ_I(nrec_replay_live(&r, &v, &e), 0);
	unsigned live = 0, same = 0;
	for (unsigned k = 1; k <= N; k++)
		live += (unsigned)model_live[k];
	for (size_t i = 0; i < r.live_count; i++)
		same += model_live[v[i].ptr >> 12] && model_size[v[i].ptr >> 12] == v[i].size;
	T_EQ_U(r.live_count, live);
	T_EQ_U(same, live);
	T_EQ_U(r.event_total[NREC_DOUBLE_FREE] + r.event_total[NREC_UNKNOWN_FREE] + r.event_total[NREC_LIVE_REUSED], events);
	printf("  %u steps: %zu live, %u events, as the model says\n", (unsigned)STEPS, r.live_count, events);
	xfree(v);
	nrec_replay_release(&r);
}

static void test_rec_lines(void)
{
	struct nh_line l;
	struct nrec_entry en;
	struct err e;
	const char *bad[][2] = {
		{ "12 malloc 0x10 4", "r.txt:3:3: expected ':' after the thread id" },
		{ "12: malloc 0x10", "r.txt:3:16: expected the size" },
		{ "12: realloc 0x10 0x20", "r.txt:3:22: expected the size" },
		{ "12: calloc 0x10 4294967296 4294967296", "r.txt:3:38: calloc of 4294967296 x 4294967296 bytes overflows 64 bits" },
		{ "12: free 0x10 5", "r.txt:3:16: expected the end time (ns)" },
		{ "12: free 0x10 5 6 7", "r.txt:3:19: unexpected text at the end of the line" },
		{ "12: frees 0x10", "r.txt:3:5: unknown operation 'frees' (expected malloc, calloc, memalign, realloc, free or thread_done)" },
	};

	T_SECTION("record_allocs lines");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		l = (struct nh_line){ bad[i][0], strlen(bad[i][0]), 3, 0, true };
		err_init(&e);
		T_EQ_I(nrec_parse_line(&l, "r.txt", &en, &e), -ERR_CORRUPT);
		T_EQ_S(e.msg, bad[i][1]);
	}
	l = (struct nh_line){ "7: memalign 0x1000 64 100 5 9", 29, 1, 0, true };
	T_EQ_I(nrec_parse_line(&l, "r.txt", &en, &e), 1);
	T_EQ_U(en.align, 64);
	T_EQ_U(en.size, 100);
	T_CHECK(en.timed && en.start_ns == 5 && en.end_ns == 9, "times 5 9");
	l = (struct nh_line){ "7: thread_done 0x0 77", 21, 1, 0, true };
	T_EQ_I(nrec_parse_line(&l, "r.txt", &en, &e), 1);
	T_CHECK(en.op == NREC_THREAD_DONE && en.end_ns == 77, "thread_done end time");
}

int main(void)
{
	test_fields();
	test_dump();
	test_agg();
	test_replay_model();
	test_rec_lines();
	T_DONE();
}
