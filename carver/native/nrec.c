/* nrec.c - record_allocs parser and replay (see nrec.h and doc/malloc-debug.md). */
#include "carver/native/nrec.h"

#include <stdlib.h>
#include <string.h>

#include "carver/base/ck.h"
#include "carver/base/xalloc.h"

/* One table slot: key 0 is empty (pointer 0 is never tracked, tids are stored + 1). */
struct nrec_slot {
	uint64_t key, size, line, tid;
	uint32_t op;
};

static const char *const nrec_ops[NREC_OPS] = { "malloc", "calloc", "memalign", "realloc", "free", "thread_done" };
static const char *const nrec_events[NREC_EVENT_KINDS] = {
	"double_free", "unknown_free", "realloc_of_freed", "realloc_of_unknown", "live_pointer_reused",
};

const char *nrec_op_name(enum nrec_op op) { return (unsigned)op < NREC_OPS ? nrec_ops[op] : "?"; }
const char *nrec_event_name(enum nrec_event_kind k) { return (unsigned)k < NREC_EVENT_KINDS ? nrec_events[k] : "?"; }

/* ---- parsing ---- */

static int nrec_op_of(const char *w, size_t n, enum nrec_op *op)
{
	for (unsigned i = 0; i < NREC_OPS; i++)
		if (strlen(nrec_ops[i]) == n && memcmp(nrec_ops[i], w, n) == 0) {
			*op = (enum nrec_op)i;
			return 1;
		}
	return 0;
}

/* A space then a field: decimal or 0x-hex. */
static int nrec_field(struct nh_scan *sc, bool hex, uint64_t *v, const char *what, struct err *e)
{
	int rc;

	if (nh_spaces(sc) == 0)
		return nh_bad(sc, e, ERR_CORRUPT, "expected %s", what);
	if ((rc = hex ? nh_hex(sc, v, true, what, e) : nh_dec(sc, v, what, e)))
		return rc;
	return nh_field_end(sc, what, e);
}

/* The optional "START_NS END_NS" (MemoryTrace.cpp: both or neither; thread_done: END_NS). */
static int nrec_times(struct nh_scan *sc, struct nrec_entry *en, struct err *e)
{
	int rc;

	nh_spaces(sc);
	if (nh_at_end(sc))
		return 0;
	en->timed = true;
	if (en->op == NREC_THREAD_DONE) {
		if ((rc = nh_dec(sc, &en->end_ns, "the end time (ns)", e)))
			return rc;
	} else if ((rc = nh_dec(sc, &en->start_ns, "the start time (ns)", e)) ||
		   (rc = nrec_field(sc, false, &en->end_ns, "the end time (ns)", e))) {
		return rc;
	}
	return nh_expect_end(sc, e);
}

static int nrec_args(struct nh_scan *sc, struct nrec_entry *en, struct err *e)
{
	int rc = 0;

	switch (en->op) {
	case NREC_MALLOC:
		return nrec_field(sc, false, &en->size, "the size", e);
	case NREC_CALLOC:
		if ((rc = nrec_field(sc, false, &en->nmemb, "the element count", e)) ||
		    (rc = nrec_field(sc, false, &en->elem_size, "the element size", e)))
			return rc;
		if (ck_mul64(en->nmemb, en->elem_size, &en->size))
			return nh_bad(sc, e, ERR_CORRUPT, "calloc of %llu x %llu bytes overflows 64 bits",
				      (unsigned long long)en->nmemb, (unsigned long long)en->elem_size);
		return 0;
	case NREC_MEMALIGN:
		if ((rc = nrec_field(sc, false, &en->align, "the alignment", e)))
			return rc;
		return nrec_field(sc, false, &en->size, "the size", e);
	case NREC_REALLOC:
		if ((rc = nrec_field(sc, true, &en->old_ptr, "the old pointer", e)))
			return rc;
		return nrec_field(sc, false, &en->size, "the size", e);
	case NREC_FREE: case NREC_THREAD_DONE: case NREC_OPS:
		break;
	}
	return rc;
}

int nrec_parse_line(const struct nh_line *l, const char *path, struct nrec_entry *out, struct err *e)
{
	struct nh_scan sc;
	const char *w;
	size_t n;
	int rc;

	nh_scan_init(&sc, l, path);
	memset(out, 0, sizeof(*out));
	out->line = l->no;
	nh_spaces(&sc);
	if (nh_at_end(&sc))
		return 0;
	if ((rc = nh_dec(&sc, &out->tid, "the thread id", e)))
		return rc;
	if (!nh_lit(&sc, ":"))
		return nh_bad(&sc, e, ERR_CORRUPT, "expected ':' after the thread id");
	if (nh_spaces(&sc) == 0)
		return nh_bad(&sc, e, ERR_CORRUPT, "expected a space and the operation");
	if ((rc = nh_word(&sc, &w, &n, "the operation", e)))
		return rc;
	if (!nrec_op_of(w, n, &out->op)) {
		sc.pos -= n;
		return nh_bad(&sc, e, ERR_CORRUPT, "unknown operation '%.*s' (expected malloc, calloc, memalign, "
			      "realloc, free or thread_done)", (int)(n > 32 ? 32 : n), w);
	}
	if ((rc = nrec_field(&sc, true, &out->ptr, "the pointer", e)) || (rc = nrec_args(&sc, out, e)) ||
	    (rc = nrec_times(&sc, out, e)))
		return rc;
	return 1;
}

/* A first line "DIGITS:" (the thread id of RecordData.cpp's lines). */
bool nrec_sniff(const uint8_t *text, size_t len)
{
	size_t i = 0, digits = 0;

	while (i < len && (text[i] == ' ' || text[i] == '\t'))
		i++;
	while (i < len && text[i] >= '0' && text[i] <= '9') {
		i++;
		digits++;
	}
	return digits > 0 && i < len && text[i] == ':';
}

/* ---- replay ---- */

void nrec_replay_init(struct nrec_replay *r) { memset(r, 0, sizeof(*r)); }

void nrec_replay_release(struct nrec_replay *r)
{
	xfree(r->live);
	xfree(r->freed);
	xfree(r->tids);
	xfree(r->events);
	nrec_replay_init(r);
}

static size_t nrec_hash(uint64_t k, size_t cap)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return (size_t)k & (cap - 1);
}

static struct nrec_slot *nrec_find(struct nrec_slot *t, size_t cap, uint64_t key)
{
	if (!cap)
		return NULL;
	for (size_t j = nrec_hash(key, cap);; j = (j + 1) & (cap - 1)) {
		if (t[j].key == key)
			return &t[j];
		if (t[j].key == 0)
			return NULL;
	}
}

static int nrec_grow(struct nrec_slot **t, size_t *cap, size_t count, struct err *e)
{
	struct nrec_slot *nt;
	size_t ncap;

	if (*cap && count + 1 <= *cap / 2)     /* short probe runs: pointers cluster */
		return 0;
	if (ck_mul(*cap ? *cap : 512, 2, &ncap) || !(nt = xcalloc(ncap, sizeof(*nt))))
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "record_allocs replay: out of memory for %zu entries", count + 1);
	for (size_t i = 0; i < *cap; i++) {
		size_t j;
		if (!(*t)[i].key)
			continue;
		for (j = nrec_hash((*t)[i].key, ncap); nt[j].key; j = (j + 1) & (ncap - 1))
			;
		nt[j] = (*t)[i];
	}
	xfree(*t);
	*t = nt;
	*cap = ncap;
	return 0;
}

/* Inserts or overwrites key; the slot. */
static int nrec_put(struct nrec_slot **t, size_t *cap, size_t *count, uint64_t key, struct nrec_slot **out,
		    struct err *e)
{
	struct nrec_slot *s = nrec_find(*t, *cap, key);
	size_t j;
	int rc;

	if (s) {
		*out = s;
		return 0;
	}
	if ((rc = nrec_grow(t, cap, *count, e)))
		return rc;
	for (j = nrec_hash(key, *cap); (*t)[j].key; j = (j + 1) & (*cap - 1))
		;
	memset(&(*t)[j], 0, sizeof((*t)[j]));
	(*t)[j].key = key;
	(*count)++;
	*out = &(*t)[j];
	return 0;
}

/* Linear-probing deletion by backward shift (no tombstones): later entries of the same
 * cluster move into the hole when their home slot allows it. */
static void nrec_del(struct nrec_slot *t, size_t cap, size_t *count, struct nrec_slot *s)
{
	size_t i = (size_t)(s - t), j = i;

	for (;;) {
		size_t k;
		j = (j + 1) & (cap - 1);
		if (!t[j].key)
			break;
		k = nrec_hash(t[j].key, cap);
		/* t[j] may move to i when its home k is not cyclically in (i, j] */
		if ((i <= j) ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		t[i] = t[j];
		i = j;
	}
	t[i].key = 0;
	(*count)--;
}

static int nrec_event(struct nrec_replay *r, enum nrec_event_kind k, const struct nrec_entry *en, uint64_t ptr,
		      uint64_t prev_line, struct err *e)
{
	struct nrec_event *ev;

	r->event_total[k]++;
	if (r->event_count == NREC_KEEP_EVENTS)
		return 0;
	if (XALLOC_GROW(r->events, r->event_cap, r->event_count + 1, 64))
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "record_allocs replay: out of memory for %zu events",
			       r->event_count + 1);
	ev = &r->events[r->event_count++];
	ev->kind = k;
	ev->op = en->op;
	ev->ptr = ptr;
	ev->tid = en->tid;
	ev->line = en->line;
	ev->prev_line = prev_line;
	return 0;
}

static void nrec_sub(struct nrec_replay *r, uint64_t n)
{
	r->live_bytes_hi -= r->live_bytes < n;
	r->live_bytes -= n;
}

static void nrec_add(struct nrec_replay *r, uint64_t n)
{
	r->live_bytes += n;
	r->live_bytes_hi += r->live_bytes < n;
	if (r->live_bytes_hi > r->peak_live_bytes_hi ||
	    (r->live_bytes_hi == r->peak_live_bytes_hi && r->live_bytes > r->peak_live_bytes)) {
		r->peak_live_bytes_hi = r->live_bytes_hi;
		r->peak_live_bytes = r->live_bytes;
	}
}

static int nrec_alloc(struct nrec_replay *r, const struct nrec_entry *en, uint64_t ptr, struct err *e)
{
	struct nrec_slot *s = nrec_find(r->live, r->live_cap, ptr), *f;
	int rc;

	if (ptr == 0) {
		r->failed_allocs++;
		return 0;
	}
	if (s) {
		if ((rc = nrec_event(r, NREC_LIVE_REUSED, en, ptr, s->line, e)))
			return rc;
		nrec_sub(r, s->size);
	} else if ((rc = nrec_put(&r->live, &r->live_cap, &r->live_count, ptr, &s, e))) {
		return rc;
	}
	s->size = en->size;
	s->line = en->line;
	s->tid = en->tid;
	s->op = en->op;
	nrec_add(r, en->size);
	if ((f = nrec_find(r->freed, r->freed_cap, ptr)))
		nrec_del(r->freed, r->freed_cap, &r->freed_count, f);
	return 0;
}

/* Releases ptr (free, or the old block of a realloc): live -> freed, else the event. */
static int nrec_release(struct nrec_replay *r, const struct nrec_entry *en, uint64_t ptr, bool is_realloc,
			struct err *e)
{
	struct nrec_slot *s = nrec_find(r->live, r->live_cap, ptr), *f;
	int rc;

	if (s) {
		nrec_sub(r, s->size);
		nrec_del(r->live, r->live_cap, &r->live_count, s);
		if ((rc = nrec_put(&r->freed, &r->freed_cap, &r->freed_count, ptr, &f, e)))
			return rc;
		f->line = en->line;
		return 0;
	}
	if ((f = nrec_find(r->freed, r->freed_cap, ptr)))
		return nrec_event(r, is_realloc ? NREC_REALLOC_FREED : NREC_DOUBLE_FREE, en, ptr, f->line, e);
	return nrec_event(r, is_realloc ? NREC_REALLOC_UNKNOWN : NREC_UNKNOWN_FREE, en, ptr, 0, e);
}

/* realloc(old, size) = new (malloc_debug.cpp debug_realloc): old NULL is a malloc; size 0
 * with a NULL result frees old; a NULL result otherwise leaves old allocated. */
static int nrec_realloc(struct nrec_replay *r, const struct nrec_entry *en, struct err *e)
{
	int rc;

	if (en->old_ptr == 0)
		return nrec_alloc(r, en, en->ptr, e);
	if (en->ptr == 0) {
		if (en->size == 0)
			return nrec_release(r, en, en->old_ptr, true, e);
		r->failed_allocs++;
		return 0;
	}
	if ((rc = nrec_release(r, en, en->old_ptr, true, e)))
		return rc;
	return nrec_alloc(r, en, en->ptr, e);
}

int nrec_replay_apply(struct nrec_replay *r, const struct nrec_entry *en, struct err *e)
{
	struct nrec_slot *t;
	int rc;

	r->entries++;
	r->ops[en->op]++;
	r->timed += en->timed;
	if ((rc = nrec_put(&r->tids, &r->tid_cap, &r->tid_count, en->tid + 1 ? en->tid + 1 : 1, &t, e)))
		return rc;
	switch (en->op) {
	case NREC_MALLOC: case NREC_CALLOC: case NREC_MEMALIGN:
		return nrec_alloc(r, en, en->ptr, e);
	case NREC_REALLOC:
		return nrec_realloc(r, en, e);
	case NREC_FREE:
		if (en->ptr == 0) {
			r->null_frees++;
			return 0;
		}
		return nrec_release(r, en, en->ptr, false, e);
	case NREC_THREAD_DONE: case NREC_OPS:
		break;
	}
	return 0;
}

static int nrec_live_cmp(const void *pa, const void *pb)
{
	const struct nrec_live *x = pa, *y = pb;

	return x->ptr < y->ptr ? -1 : x->ptr > y->ptr;
}

int nrec_replay_live(const struct nrec_replay *r, struct nrec_live **out, struct err *e)
{
	struct nrec_live *v;
	size_t k = 0;

	*out = NULL;
	if (!r->live_count)
		return 0;
	if (!(v = xcalloc(r->live_count, sizeof(*v))))
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory for %zu live allocations", r->live_count);
	for (size_t i = 0; i < r->live_cap; i++) {
		const struct nrec_slot *s = &r->live[i];
		if (!s->key)
			continue;
		v[k].ptr = s->key;
		v[k].size = s->size;
		v[k].line = s->line;
		v[k].tid = s->tid;
		v[k].op = (enum nrec_op)s->op;
		k++;
	}
	qsort(v, k, sizeof(*v), nrec_live_cmp);
	*out = v;
	return 0;
}

int nrec_parse(const uint8_t *text, size_t len, const char *path, const struct mapfile *drop,
	       struct nrec_replay *r, struct nrec_stats *st, struct err *e)
{
	struct nh_lines lines;
	struct nh_line l;
	struct nrec_entry en;
	int rc;

	memset(st, 0, sizeof(*st));
	st->complete = true;
	nh_lines_init(&lines, text, len, drop);
	while (nh_lines_next(&lines, &l) == 1) {
		if (!l.complete) {
			st->complete = false;
			return ERR_SET(e, ERR_TRUNC, l.off, "%s: truncated in line %llu (byte %llu, no newline): read %llu "
				       "lines, %llu entries", path, (unsigned long long)l.no, (unsigned long long)l.off,
				       (unsigned long long)st->lines, (unsigned long long)st->entries);
		}
		st->lines = l.no;
		if ((rc = nrec_parse_line(&l, path, &en, e)) < 0)
			return rc;
		if (rc == 1) {
			st->entries++;
			if ((rc = nrec_replay_apply(r, &en, e)))
				return rc;
		}
		st->bytes = nh_lines_offset(&lines);
	}
	if (st->lines == 0)
		return ERR_SET(e, ERR_TRUNC, 0, "%s: empty file, no record_allocs lines", path);
	return 0;
}
