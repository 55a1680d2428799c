/* sqlitew.h - the one wrapper of SQLite (the only file that includes <sqlite3.h>).
 *
 * Just what a writer of a fresh database needs: create a file, run fixed SQL, prepare
 * statements once and run them per row (or per batch of rows: sqlw_rows) with bound
 * parameters (never SQL text built from data: strings from an image are hostile).  A bind
 * failure is kept in the statement and returned by the next sqlw_step, so a row is a run of
 * binds and one checked step.
 * Errors are -ERR_DB (or -ERR_NOMEM) with SQLite's message and the statement's SQL. */
#ifndef ARTCARVE_SQLITEW_H
#define ARTCARVE_SQLITEW_H

#include <stddef.h>
#include <stdint.h>

#include "carver/base/err.h"

struct sqlw;
struct sqlw_stmt;

/* Opens (creating it if need be) the database file at path; a writer gives a new or empty
 * file, such as the temporary of carver/base/outfile.h.  Returns 0 or -ERR_DB / -ERR_NOMEM;
 * *db is NULL on failure. */
int sqlw_open(struct sqlw **db, const char *path, struct err *e);
/* Closes (NULL-safe); finalize every statement first.  Returns 0 or -ERR_DB. */
int sqlw_close(struct sqlw *db, struct err *e);
/* Closes after a failure (NULL-safe): frees everything, reports nothing (the file is
 * removed by its owner, the first error is the one reported). */
void sqlw_abandon(struct sqlw *db);
/* Runs one or more fixed SQL statements (no parameters). */
int sqlw_exec(struct sqlw *db, const char *sql, struct err *e);

int sqlw_prepare(struct sqlw *db, const char *sql, struct sqlw_stmt **st, struct err *e);
void sqlw_finalize(struct sqlw_stmt *st);  /* NULL-safe */
/* Parameters are numbered from 1.  Text and blobs are copied by SQLite. */
void sqlw_bind_int(struct sqlw_stmt *st, int i, int64_t v);
void sqlw_bind_double(struct sqlw_stmt *st, int i, double v);
void sqlw_bind_text(struct sqlw_stmt *st, int i, const char *s, size_t n);
void sqlw_bind_str(struct sqlw_stmt *st, int i, const char *s);    /* NULL binds NULL */
/* A string that stays unchanged until the statement's next step (a constant name): not
 * copied, which saves a malloc, a copy and a free per value. */
void sqlw_bind_const(struct sqlw_stmt *st, int i, const char *s);
void sqlw_bind_blob(struct sqlw_stmt *st, int i, const void *p, size_t n);
void sqlw_bind_null(struct sqlw_stmt *st, int i);
/* Runs a statement that returns no row, then resets it for the next row (bindings are kept:
 * a writer binds every parameter of every row).  Returns 0, the first bind failure since
 * the last step, or the step's failure. */
int sqlw_step(struct sqlw_stmt *st, struct err *e);

/* Multi-row inserts: "INSERT INTO table VALUES(?..),(?..),..." of `rows` rows, prepared once
 * and run once per `rows` rows; the last, shorter batch by a statement of its length.  Per
 * row SQLite's statement overhead (step, reset, halt, cursors, a journal check) was a fifth
 * of case.db's cost; per batch it is a `rows`-th of that.  A row is its columns (numbered
 * from 1, each set once, any order), then sqlw_rows_end; values are kept until the batch
 * runs: numbers by value, _copy text and blobs copied, _const ones by pointer (the caller
 * keeps them unchanged until the batch runs: sqlw_rows_end that completes it, or
 * sqlw_rows_flush). */
struct sqlw_rows;
/* table: the name, or the name and a column list ("anomalies(phase, code)"); cols columns. */
int sqlw_rows_open(struct sqlw *db, const char *table, int cols, int rows, struct sqlw_rows **r, struct err *e);
void sqlw_rows_close(struct sqlw_rows *r);   /* NULL-safe; rows not run are dropped */
void sqlw_rows_int(struct sqlw_rows *r, int col, int64_t v);
void sqlw_rows_double(struct sqlw_rows *r, int col, double v);
void sqlw_rows_null(struct sqlw_rows *r, int col);
void sqlw_rows_const(struct sqlw_rows *r, int col, const char *s);   /* NULL sets NULL */
void sqlw_rows_text_const(struct sqlw_rows *r, int col, const char *s, size_t n);
void sqlw_rows_str_copy(struct sqlw_rows *r, int col, const char *s);   /* NULL sets NULL */
void sqlw_rows_text_copy(struct sqlw_rows *r, int col, const char *s, size_t n);
/* A zero-length blob is an empty blob, not NULL. */
void sqlw_rows_blob_const(struct sqlw_rows *r, int col, const void *p, size_t n);
void sqlw_rows_blob_copy(struct sqlw_rows *r, int col, const void *p, size_t n);
/* Ends a row; runs the batch when it is full.  Returns 0, -ERR_NOMEM, or the batch's
 * failure (a value that does not bind, the statement's error). */
int sqlw_rows_end(struct sqlw_rows *r, struct err *e);
/* Runs the rows waiting (none: nothing).  Returns as sqlw_rows_end. */
int sqlw_rows_flush(struct sqlw_rows *r, struct err *e);

/* The SQLite library version ("3.40.1"). */
const char *sqlw_version(void);

#endif
