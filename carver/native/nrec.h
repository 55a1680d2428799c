/* nrec.h - malloc_debug record_allocs files: the parser of one line and the replay of all of
 * them to the allocations still live at the end, with the frees that do not match.
 *
 * Lines (bionic libc/malloc_debug/RecordData.cpp, Android 8.0-15; memory_trace
 * MemoryTrace.cpp FormatEntry since, which adds optional START_NS END_NS):
 *   TID: malloc PTR SIZE
 *   TID: calloc PTR NMEMB SIZE
 *   TID: memalign PTR ALIGNMENT SIZE        (also aligned_alloc, posix_memalign, valloc,
 *                                            pvalloc)
 *   TID: realloc NEW_PTR OLD_PTR SIZE
 *   TID: free PTR
 *   TID: thread_done 0x0 [END_NS]
 * PTR is bionic's %p ("0x..."; "0x0" for NULL).  The memory a hostile file makes the replay
 * keep grows with its distinct pointers and threads; the events kept are capped
 * (NREC_KEEP_EVENTS), all are counted. */
#ifndef ARTCARVE_NREC_H
#define ARTCARVE_NREC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "carver/base/err.h"
#include "carver/native/nheap_text.h"

enum nrec_op { NREC_MALLOC, NREC_CALLOC, NREC_MEMALIGN, NREC_REALLOC, NREC_FREE, NREC_THREAD_DONE, NREC_OPS };

struct nrec_entry {
	enum nrec_op op;
	uint64_t tid;
	uint64_t ptr, old_ptr;          /* old_ptr: realloc only */
	uint64_t size;                  /* bytes asked for (calloc: nmemb * elem_size) */
	uint64_t nmemb, elem_size;      /* calloc */
	uint64_t align;                 /* memalign */
	bool timed;                     /* START_NS END_NS present (thread_done: END_NS) */
	uint64_t start_ns, end_ns;
	uint64_t line;
};

const char *nrec_op_name(enum nrec_op op);
/* True when the text starts like a record_allocs line: a thread id and ':'. */
bool nrec_sniff(const uint8_t *text, size_t len);
/* Parses one line: 1 and *out, 0 for a blank line, or -ERR_CORRUPT naming path:line:col. */
int nrec_parse_line(const struct nh_line *l, const char *path, struct nrec_entry *out, struct err *e);

enum nrec_event_kind {
	NREC_DOUBLE_FREE,       /* free of a pointer already freed (and not allocated since) */
	NREC_UNKNOWN_FREE,      /* free of a pointer the file never allocated */
	NREC_REALLOC_FREED,     /* realloc of a freed pointer */
	NREC_REALLOC_UNKNOWN,   /* realloc of a pointer never allocated */
	NREC_LIVE_REUSED,       /* an allocation returned a pointer still live (a free not recorded) */
	NREC_EVENT_KINDS
};
const char *nrec_event_name(enum nrec_event_kind k);

#define NREC_KEEP_EVENTS 100000

struct nrec_event {
	enum nrec_event_kind kind;
	enum nrec_op op;
	uint64_t ptr, tid, line;
	uint64_t prev_line;             /* line of the free or allocation it clashes with, 0 if none */
};

struct nrec_live {
	uint64_t ptr, size, line, tid;
	enum nrec_op op;
};

struct nrec_slot;

struct nrec_replay {
	struct nrec_slot *live, *freed, *tids;  /* open-addressed by pointer / by tid */
	size_t live_cap, live_count, freed_cap, freed_count, tid_cap, tid_count;
	uint64_t ops[NREC_OPS];
	uint64_t entries, null_frees, failed_allocs, timed;
	/* sums of live sizes, exact: 64-bit words plus carries (a hostile file can ask for
	 * sizes whose sum passes 2^64); nrec_bytes() reads them, saturated */
	uint64_t live_bytes, live_bytes_hi, peak_live_bytes, peak_live_bytes_hi;
	uint64_t event_total[NREC_EVENT_KINDS];
	struct nrec_event *events;      /* the first NREC_KEEP_EVENTS, in file order */
	size_t event_count, event_cap;
};

/* A (hi, lo) byte sum as one number, UINT64_MAX when it does not fit. */
static inline uint64_t nrec_bytes(uint64_t hi, uint64_t lo) { return hi ? UINT64_MAX : lo; }

void nrec_replay_init(struct nrec_replay *r);
void nrec_replay_release(struct nrec_replay *r);
/* Applies one entry.  0 or -ERR_NOMEM. */
int nrec_replay_apply(struct nrec_replay *r, const struct nrec_entry *en, struct err *e);
/* The live allocations sorted by pointer (*out xmalloc'd, live_count of them; NULL when
 * none).  0 or -ERR_NOMEM. */
int nrec_replay_live(const struct nrec_replay *r, struct nrec_live **out, struct err *e);

/* What a whole-file parse read (lines, bytes, complete = the text ends with a newline). */
struct nrec_stats {
	uint64_t lines, entries, bytes;
	bool complete;
};
/* Parses and replays text[0, len) named path (drop: as for ndump_parse, or NULL).  0, -ERR_TRUNC (the last line is cut: *st and
 * r hold everything before it), -ERR_CORRUPT or -ERR_NOMEM. */
int nrec_parse(const uint8_t *text, size_t len, const char *path, const struct mapfile *drop,
	       struct nrec_replay *r, struct nrec_stats *st, struct err *e);

#endif
