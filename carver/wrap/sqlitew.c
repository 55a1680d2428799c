/* sqlitew.c - the SQLite wrapper (see sqlitew.h). */
#include "carver/wrap/sqlitew.h"

#include <pthread.h>
#include <sqlite3.h>
#include <string.h>

#include "carver/base/wbuf.h"
#include "carver/base/xalloc.h"

struct sqlw {
	sqlite3 *h;
};

struct sqlw_stmt {
	struct sqlw *db;
	sqlite3_stmt *s;
	int bind_rc;         /* first failed bind since the last step, SQLITE_OK if none */
	int bind_index;
};

static int sqlw_fail(sqlite3 *h, int rc, const char *what, struct err *e)
{
	enum err_code code = rc == SQLITE_NOMEM ? ERR_NOMEM : ERR_DB;
	return ERR_SET(e, code, ERR_NO_VA, "sqlite: %s: %s", what, h ? sqlite3_errmsg(h) : sqlite3_errstr(rc));
}

/* No memory statistics: with them every SQLite allocation takes a global mutex and updates
 * counters we never read (a few per row).  Before the library initialises, once. */
static void sqlw_configure(void)
{
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

int sqlw_open(struct sqlw **db, const char *path, struct err *e)
{
	static pthread_once_t configured = PTHREAD_ONCE_INIT;
	struct sqlw *d = xcalloc(1, sizeof(*d));
	int rc;

	pthread_once(&configured, sqlw_configure);
	*db = NULL;
	if (!d)
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory");
	rc = sqlite3_open_v2(path, &d->h, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK) {
		int r = sqlw_fail(d->h, rc, "open", e);
		sqlite3_close(d->h);
		xfree(d);
		return r;
	}
	sqlite3_extended_result_codes(d->h, 1);
	*db = d;
	return 0;
}

int sqlw_close(struct sqlw *db, struct err *e)
{
	int rc;
	if (!db)
		return 0;
	rc = sqlite3_close(db->h);
	if (rc != SQLITE_OK) {
		int r = sqlw_fail(db->h, rc, "close", e);
		sqlite3_close_v2(db->h);
		xfree(db);
		return r;
	}
	xfree(db);
	return 0;
}

void sqlw_abandon(struct sqlw *db)
{
	if (!db)
		return;
	sqlite3_close_v2(db->h);
	xfree(db);
}

int sqlw_exec(struct sqlw *db, const char *sql, struct err *e)
{
	char *msg = NULL;
	int rc = sqlite3_exec(db->h, sql, NULL, NULL, &msg);
	if (rc != SQLITE_OK) {
		int r = ERR_SET(e, rc == SQLITE_NOMEM ? ERR_NOMEM : ERR_DB, ERR_NO_VA, "sqlite: %s: %.120s",
				msg ? msg : sqlite3_errstr(rc), sql);
		sqlite3_free(msg);
		return r;
	}
	return 0;
}

int sqlw_prepare(struct sqlw *db, const char *sql, struct sqlw_stmt **st, struct err *e)
{
	struct sqlw_stmt *s = xcalloc(1, sizeof(*s));
	int rc;

	*st = NULL;
	if (!s)
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory");
	rc = sqlite3_prepare_v3(db->h, sql, -1, SQLITE_PREPARE_PERSISTENT, &s->s, NULL);
	if (rc != SQLITE_OK) {
		xfree(s);
		return ERR_SET(e, rc == SQLITE_NOMEM ? ERR_NOMEM : ERR_DB, ERR_NO_VA, "sqlite: %s: %.120s",
			       sqlite3_errmsg(db->h), sql);
	}
	s->db = db;
	*st = s;
	return 0;
}

void sqlw_finalize(struct sqlw_stmt *st)
{
	if (!st)
		return;
	sqlite3_finalize(st->s);
	xfree(st);
}

static void sqlw_bound(struct sqlw_stmt *st, int i, int rc)
{
	if (rc != SQLITE_OK && st->bind_rc == SQLITE_OK) {
		st->bind_rc = rc;
		st->bind_index = i;
	}
}

void sqlw_bind_int(struct sqlw_stmt *st, int i, int64_t v)
{
	sqlw_bound(st, i, sqlite3_bind_int64(st->s, i, v));
}

void sqlw_bind_double(struct sqlw_stmt *st, int i, double v)
{
	sqlw_bound(st, i, sqlite3_bind_double(st->s, i, v));
}

void sqlw_bind_text(struct sqlw_stmt *st, int i, const char *s, size_t n)
{
	if (n > INT32_MAX) {
		sqlw_bound(st, i, SQLITE_TOOBIG);
		return;
	}
	sqlw_bound(st, i, sqlite3_bind_text(st->s, i, s ? s : "", (int)n, SQLITE_TRANSIENT));
}

void sqlw_bind_str(struct sqlw_stmt *st, int i, const char *s)
{
	if (!s)
		sqlw_bind_null(st, i);
	else
		sqlw_bound(st, i, sqlite3_bind_text(st->s, i, s, -1, SQLITE_TRANSIENT));
}

void sqlw_bind_const(struct sqlw_stmt *st, int i, const char *s)
{
	if (!s)
		sqlw_bind_null(st, i);
	else
		sqlw_bound(st, i, sqlite3_bind_text(st->s, i, s, -1, SQLITE_STATIC));
}

void sqlw_bind_text_const(struct sqlw_stmt *st, int i, const char *s, size_t n)
{
	if (n > INT32_MAX) {
		sqlw_bound(st, i, SQLITE_TOOBIG);
		return;
	}
	sqlw_bound(st, i, sqlite3_bind_text(st->s, i, s ? s : "", (int)n, SQLITE_STATIC));
}

static void sqlw_blob(struct sqlw_stmt *st, int i, const void *p, size_t n, void (*keep)(void *))
{
	if (n > INT32_MAX) {
		sqlw_bound(st, i, SQLITE_TOOBIG);
		return;
	}
	/* a zero-length blob is an empty blob, not NULL (SQLite binds NULL for a NULL pointer) */
	sqlw_bound(st, i, n ? sqlite3_bind_blob(st->s, i, p, (int)n, keep) : sqlite3_bind_zeroblob(st->s, i, 0));
}

void sqlw_bind_blob(struct sqlw_stmt *st, int i, const void *p, size_t n)
{
	sqlw_blob(st, i, p, n, SQLITE_TRANSIENT);
}

void sqlw_bind_blob_const(struct sqlw_stmt *st, int i, const void *p, size_t n)
{
	sqlw_blob(st, i, p, n, SQLITE_STATIC);
}

void sqlw_bind_null(struct sqlw_stmt *st, int i)
{
	sqlw_bound(st, i, sqlite3_bind_null(st->s, i));
}

int sqlw_step(struct sqlw_stmt *st, struct err *e)
{
	sqlite3 *h = st->db->h;
	int rc = st->bind_rc, r = 0;

	if (rc != SQLITE_OK) {
		r = ERR_SET(e, rc == SQLITE_NOMEM ? ERR_NOMEM : ERR_DB, ERR_NO_VA, "sqlite: binding parameter %d of %.120s: %s",
			    st->bind_index, sqlite3_sql(st->s), sqlite3_errstr(rc));
	} else if ((rc = sqlite3_step(st->s)) != SQLITE_DONE) {
		r = ERR_SET(e, rc == SQLITE_NOMEM ? ERR_NOMEM : ERR_DB, ERR_NO_VA, "sqlite: %s: %.120s", sqlite3_errmsg(h),
			    sqlite3_sql(st->s));
	}
	st->bind_rc = SQLITE_OK;
	sqlite3_reset(st->s);
	return r;
}

/* ---- multi-row inserts ---- */

enum sqlw_val_type { SV_NULL, SV_INT, SV_DOUBLE, SV_TEXT, SV_TEXT_COPY, SV_BLOB, SV_BLOB_COPY };

/* One column of a waiting row: copied text and blobs are offsets in the batch's buffer
 * (which may move as it grows), made pointers when the batch binds. */
struct sqlw_val {
	enum sqlw_val_type type;
	union {
		int64_t i;
		double d;
		const void *p;
		size_t off;
	} u;
	size_t n;
};

struct sqlw_rows {
	struct sqlw *db;
	char *table;
	int cols, rows;
	int waiting;                 /* complete rows in vals */
	struct sqlw_val *vals;       /* rows * cols */
	struct wbuf copies;          /* the _copy values of the waiting rows */
	sqlite3_stmt *full;          /* `rows` rows */
	sqlite3_stmt *tail;          /* tail_rows rows, made for the last batch */
	int tail_rows;
	int failed;                  /* a value that did not fit (SQLITE_TOOBIG, SQLITE_RANGE) */
};

/* "INSERT INTO table VALUES(?,?),(?,?)" of n rows in *stmt. */
static int sqlw_rows_prepare(struct sqlw_rows *r, int n, sqlite3_stmt **stmt, struct err *e)
{
	struct wbuf sql;
	int rc;

	wbuf_init(&sql);
	WBUF_LIT(&sql, "INSERT INTO ");
	wbuf_str(&sql, r->table);
	WBUF_LIT(&sql, " VALUES");
	for (int i = 0; i < n; i++) {
		if (i)
			wbuf_u8(&sql, ',');
		WBUF_LIT(&sql, "(?");
		for (int c = 1; c < r->cols; c++)
			WBUF_LIT(&sql, ",?");
		wbuf_u8(&sql, ')');
	}
	wbuf_u8(&sql, 0);
	if ((rc = wbuf_status(&sql, e)) == 0) {
		rc = sqlite3_prepare_v3(r->db->h, (const char *)sql.data, (int)sql.len, SQLITE_PREPARE_PERSISTENT, stmt,
					NULL);
		if (rc != SQLITE_OK)
			rc = ERR_SET(e, rc == SQLITE_NOMEM ? ERR_NOMEM : ERR_DB, ERR_NO_VA, "sqlite: %s: INSERT INTO %.80s",
				     sqlite3_errmsg(r->db->h), r->table);
	}
	wbuf_release(&sql);
	return rc;
}

int sqlw_rows_open(struct sqlw *db, const char *table, int cols, int rows, struct sqlw_rows **r, struct err *e)
{
	struct sqlw_rows *w = xcalloc(1, sizeof(*w));
	size_t len = strlen(table);
	int rc;

	*r = NULL;
	/* the parameters one statement may hold (32766 by default since SQLite 3.32, 999 before) */
	if (cols < 1 || rows < 1 || rows > sqlite3_limit(db->h, SQLITE_LIMIT_VARIABLE_NUMBER, -1) / cols) {
		xfree(w);
		return ERR_SET(e, ERR_DB, ERR_NO_VA, "sqlite: %d rows of %d columns for %s", rows, cols, table);
	}
	if (!w || !(w->table = xmalloc(len + 1)) || !(w->vals = xcalloc((size_t)rows * (size_t)cols, sizeof(*w->vals)))) {
		sqlw_rows_close(w);
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory");
	}
	memcpy(w->table, table, len + 1);
	w->db = db;
	w->cols = cols;
	w->rows = rows;
	wbuf_init(&w->copies);
	if ((rc = sqlw_rows_prepare(w, rows, &w->full, e))) {
		sqlw_rows_close(w);
		return rc;
	}
	*r = w;
	return 0;
}

void sqlw_rows_close(struct sqlw_rows *r)
{
	if (!r)
		return;
	sqlite3_finalize(r->full);
	sqlite3_finalize(r->tail);
	wbuf_release(&r->copies);
	xfree(r->vals);
	xfree(r->table);
	xfree(r);
}

/* The slot of column col (1..cols) of the row being made, NULL (and the batch failed) when
 * col is out of range. */
static struct sqlw_val *sqlw_rows_slot(struct sqlw_rows *r, int col)
{
	if (col < 1 || col > r->cols) {
		r->failed = SQLITE_RANGE;
		return NULL;
	}
	return &r->vals[(size_t)r->waiting * (size_t)r->cols + (size_t)(col - 1)];
}

static void sqlw_rows_set(struct sqlw_rows *r, int col, struct sqlw_val v)
{
	struct sqlw_val *s = sqlw_rows_slot(r, col);
	if (s)
		*s = v;
}

void sqlw_rows_int(struct sqlw_rows *r, int col, int64_t v)
{
	sqlw_rows_set(r, col, (struct sqlw_val){ .type = SV_INT, .u.i = v });
}

void sqlw_rows_double(struct sqlw_rows *r, int col, double v)
{
	sqlw_rows_set(r, col, (struct sqlw_val){ .type = SV_DOUBLE, .u.d = v });
}

void sqlw_rows_null(struct sqlw_rows *r, int col)
{
	sqlw_rows_set(r, col, (struct sqlw_val){ .type = SV_NULL });
}

static void sqlw_rows_ptr(struct sqlw_rows *r, int col, enum sqlw_val_type t, const void *p, size_t n)
{
	if (n > INT32_MAX)
		r->failed = SQLITE_TOOBIG;
	else
		sqlw_rows_set(r, col, (struct sqlw_val){ .type = t, .u.p = p, .n = n });
}

/* Copies p into the batch's buffer: the slot keeps its offset. */
static void sqlw_rows_copy(struct sqlw_rows *r, int col, enum sqlw_val_type t, const void *p, size_t n)
{
	if (n > INT32_MAX) {
		r->failed = SQLITE_TOOBIG;
		return;
	}
	sqlw_rows_set(r, col, (struct sqlw_val){ .type = t, .u.off = r->copies.len, .n = n });
	wbuf_put(&r->copies, p, n);
}

void sqlw_rows_const(struct sqlw_rows *r, int col, const char *s)
{
	if (!s)
		sqlw_rows_null(r, col);
	else
		sqlw_rows_ptr(r, col, SV_TEXT, s, strlen(s));
}

void sqlw_rows_text_const(struct sqlw_rows *r, int col, const char *s, size_t n)
{
	sqlw_rows_ptr(r, col, SV_TEXT, s ? s : "", n);
}

void sqlw_rows_str_copy(struct sqlw_rows *r, int col, const char *s)
{
	if (!s)
		sqlw_rows_null(r, col);
	else
		sqlw_rows_copy(r, col, SV_TEXT_COPY, s, strlen(s));
}

void sqlw_rows_text_copy(struct sqlw_rows *r, int col, const char *s, size_t n)
{
	sqlw_rows_copy(r, col, SV_TEXT_COPY, s ? s : "", n);
}

void sqlw_rows_blob_const(struct sqlw_rows *r, int col, const void *p, size_t n)
{
	sqlw_rows_ptr(r, col, SV_BLOB, p, n);
}

void sqlw_rows_blob_copy(struct sqlw_rows *r, int col, const void *p, size_t n)
{
	sqlw_rows_copy(r, col, SV_BLOB_COPY, p, n);
}

static int sqlw_rows_bind_one(struct sqlw_rows *r, sqlite3_stmt *s, int i, const struct sqlw_val *v)
{
	const uint8_t *base = r->copies.data;
	switch (v->type) {
	case SV_INT: return sqlite3_bind_int64(s, i, v->u.i);
	case SV_DOUBLE: return sqlite3_bind_double(s, i, v->u.d);
	case SV_TEXT: return sqlite3_bind_text(s, i, v->u.p, (int)v->n, SQLITE_STATIC);
	case SV_TEXT_COPY: return sqlite3_bind_text(s, i, (const char *)(base ? base + v->u.off : (const uint8_t *)""),
						    (int)v->n, SQLITE_STATIC);
	case SV_BLOB: return v->n ? sqlite3_bind_blob(s, i, v->u.p, (int)v->n, SQLITE_STATIC) : sqlite3_bind_zeroblob(s, i, 0);
	case SV_BLOB_COPY: return v->n ? sqlite3_bind_blob(s, i, base + v->u.off, (int)v->n, SQLITE_STATIC)
				      : sqlite3_bind_zeroblob(s, i, 0);
	case SV_NULL: break;
	}
	return sqlite3_bind_null(s, i);
}

/* Binds the waiting rows to s (made for exactly that many) and runs it. */
static int sqlw_rows_run(struct sqlw_rows *r, sqlite3_stmt *s, struct err *e)
{
	int n = r->waiting * r->cols, rc = SQLITE_OK, at = 0;

	for (int i = 0; i < n && rc == SQLITE_OK; i++)
		rc = sqlw_rows_bind_one(r, s, at = i + 1, &r->vals[i]);
	if (rc != SQLITE_OK) {
		rc = ERR_SET(e, rc == SQLITE_NOMEM ? ERR_NOMEM : ERR_DB, ERR_NO_VA,
			     "sqlite: binding parameter %d of INSERT INTO %.80s: %s", at, r->table, sqlite3_errstr(rc));
	} else if ((rc = sqlite3_step(s)) != SQLITE_DONE) {
		rc = ERR_SET(e, rc == SQLITE_NOMEM ? ERR_NOMEM : ERR_DB, ERR_NO_VA, "sqlite: %s: INSERT INTO %.80s",
			     sqlite3_errmsg(r->db->h), r->table);
	} else {
		rc = 0;
	}
	sqlite3_reset(s);
	r->waiting = 0;
	wbuf_reset(&r->copies);
	return rc;
}

/* The failure of a value set since the batch last ran, or of the copies' buffer. */
static int sqlw_rows_check(struct sqlw_rows *r, struct err *e)
{
	int rc;
	if (r->failed != SQLITE_OK) {
		rc = r->failed;
		r->failed = SQLITE_OK;
		return ERR_SET(e, ERR_DB, ERR_NO_VA, "sqlite: a value for INSERT INTO %.80s: %s", r->table,
			       sqlite3_errstr(rc));
	}
	return wbuf_status(&r->copies, e);
}

int sqlw_rows_end(struct sqlw_rows *r, struct err *e)
{
	int rc = sqlw_rows_check(r, e);
	if (rc)
		return rc;
	if (++r->waiting < r->rows)
		return 0;
	return sqlw_rows_run(r, r->full, e);
}

int sqlw_rows_flush(struct sqlw_rows *r, struct err *e)
{
	int rc = sqlw_rows_check(r, e);
	if (rc || r->waiting == 0)
		return rc;
	if (r->tail_rows != r->waiting) {
		sqlite3_finalize(r->tail);
		r->tail = NULL;
		r->tail_rows = 0;
		if ((rc = sqlw_rows_prepare(r, r->waiting, &r->tail, e)))
			return rc;
		r->tail_rows = r->waiting;
	}
	return sqlw_rows_run(r, r->tail, e);
}

const char *sqlw_version(void)
{
	return sqlite3_libversion();
}
