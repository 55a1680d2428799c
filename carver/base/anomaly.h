/* anomaly.h - a sink for damaged input that the walk records and goes past.
 *
 * A carver reads memory that is partly unmapped, overwritten or freed: one Class object that
 * does not decode, one unreadable field array, one OatClass past the end of its file is the
 * normal case, not a reason to stop.  Where the right answer is "record and go on", the
 * walker records an anomaly here (address, space, reason code, message) and continues; where
 * the whole input is wrong it returns the error as usual.  The models are libevtx's
 * LIBEVTX_CHUNK_FLAG_IS_CORRUPTED (libevtx_chunk.c: the chunk is kept, flagged, and the next
 * one read) and SQLite's SQLITE_CORRUPT_* extended codes (sqlite3.h: one code per kind of
 * damage).
 *
 * The caller owns the sink.  Every anomaly is counted, per code; the first `keep` are kept in
 * full, in the order recorded (the walkers are sequential, so the order is the same run after
 * run); later ones are only counted, which bounds memory on hostile input.  Recording never
 * fails: a record that cannot be stored for lack of memory is still counted, and
 * anomaly_status() turns that into -ERR_NOMEM when the phase ends (as wbuf_status does). */
#ifndef ARTCARVE_ANOMALY_H
#define ARTCARVE_ANOMALY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "carver/base/err.h"

/* What the walk gave up on.  Append new codes before ANOM_CODE_COUNT and name them in
 * anomaly.c; names are stable (they are JSON keys). */
enum anomaly_code {
	ANOM_IMAGE_HEADER,   /* "image_header": an image space whose ImageHeader does not read */
	ANOM_DEX,            /* "dex": DEX magic whose header or tables do not parse */
	ANOM_CLASS,          /* "class": a word pointing at java.lang.Class whose object is no Class */
	ANOM_CLASS_NAME,     /* "class_name": a class whose name_ String or DEX type does not read */
	ANOM_FIELDS,         /* "fields": a class whose instance field array does not read */
	ANOM_DEX_CACHE,      /* "dex_cache": a DexCache whose DexFile or location does not read */
	ANOM_OAT_FILE,       /* "oat_file": an OAT (or its VDEX) in the input that does not read */
	ANOM_OAT_CLASS,      /* "oat_class": an OatClass or class offset table entry that does not read */
	ANOM_OAT_METHOD,     /* "oat_method": a compiled method whose header or name does not read */
	/* allocator metadata (rosalloc/walk) */
	ANOM_PAGE_MAP,       /* "page_map": a RosAlloc page-map byte out of range or out of order */
	ANOM_RUN_HEADER,     /* "run_header": a RosAlloc run header or bitmap that breaks its rules */
	ANOM_FREE_LIST,      /* "free_list": a free-list link out of its run, misaligned, in a cycle,
			      * a list length unlike its size field, a free slot no list reached */
	ANOM_SLOT,           /* "slot": a slot whose bytes contradict its state (a free slot not zero) */
	ANOM_REGION,         /* "region": region-space contents that do not walk (no class, past the end) */
	ANOM_CHUNK,          /* "chunk": a dlmalloc chunk header or free-chunk link that breaks its rules */
	ANOM_LOS,            /* "los": a large-object allocation-info entry or allocation that does not read */
	ANOM_CONTIGUOUS,     /* "contiguous": an image or bump-pointer object walk that cannot go on */
	ANOM_EVIDENCE,       /* "evidence": a live bitmap or GC stack that disagrees with its space */
	/* object model (rosalloc/model) */
	ANOM_CANDIDATE,      /* "candidate": a walker candidate misplaced, or overlapping another object */
	ANOM_OBJ_CLASS,      /* "object_class": a candidate whose class word names no Class */
	ANOM_OBJ_SIZE,       /* "object_size": a candidate whose object does not fit its room */
	ANOM_OBJ_LENGTH,     /* "object_length": an array or string length that does not fit its room */
	ANOM_OBJ_REFERENCE,  /* "object_reference": a reference field that points at no object start */
	ANOM_OBJ_UNMAPPED,   /* "object_unmapped": a candidate whose bytes are not all captured */
	ANOM_STATICS,        /* "statics": a class whose static field layout does not read */
	ANOM_ROOTS,          /* "roots": a root source (image roots, JNI table) that does not read */
	ANOM_CAPTURE,        /* "capture": bytes the container lists but its file does not hold */
	ANOM_CODE_COUNT
};

#define ANOMALY_KEEP_DEFAULT 1000u
#define ANOMALY_SPACE_MAX 96u      /* bytes kept of a space name, with its NUL */
#define ANOMALY_MSG_MAX 256u       /* bytes kept of a message, with its NUL */

struct anomaly {
	enum anomaly_code code;
	enum err_code cause;       /* the error that stopped the read (ERR_UNMAPPED, ERR_CORRUPT, ...) */
	uint64_t va;               /* address or file offset, ERR_NO_VA if none */
	char space[ANOMALY_SPACE_MAX];  /* space, region or file name, "" if none */
	char msg[ANOMALY_MSG_MAX];
};

struct anomaly_sink {
	struct anomaly *v;         /* the first records, in the order recorded */
	size_t count, cap;         /* kept, allocated */
	size_t keep;               /* most records kept in full */
	uint64_t total;            /* all records, kept or not */
	uint64_t per_code[ANOM_CODE_COUNT];
	uint64_t unstored;         /* past `keep`, or not stored for lack of memory */
	bool nomem;                /* sticky: a record within `keep` could not be stored */
};

/* keep 0 means ANOMALY_KEEP_DEFAULT.  Allocates nothing until the first record. */
void anomaly_init(struct anomaly_sink *s, size_t keep);
void anomaly_release(struct anomaly_sink *s);
/* Records one anomaly; space may be NULL. */
void anomaly_add(struct anomaly_sink *s, enum anomaly_code code, enum err_code cause, uint64_t va,
		 const char *space, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* Records the error that made the walk give up on a structure (cause, va and message from why). */
void anomaly_add_err(struct anomaly_sink *s, enum anomaly_code code, const char *space, const struct err *why);
/* 0, or -ERR_NOMEM (with a message) if a record within `keep` could not be stored. */
int anomaly_status(const struct anomaly_sink *s, struct err *e);
/* Stable lower-case name of a code ("class", "oat_method"), "unknown" outside the enum. */
const char *anomaly_code_name(enum anomaly_code code);

#endif
