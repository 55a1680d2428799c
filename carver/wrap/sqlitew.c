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

void sqlw_bind_blob(struct sqlw_stmt *st, int i, const void *p, size_t n)
{
	if (n > INT32_MAX) {
		sqlw_bound(st, i, SQLITE_TOOBIG);
		return;
	}
	/* a zero-length blob is an empty blob, not NULL (SQLite binds NULL for a NULL pointer) */
	sqlw_bound(st, i, n ? sqlite3_bind_blob(st->s, i, p, (int)n, SQLITE_TRANSIENT) : sqlite3_bind_zeroblob(st->s, i, 0));
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

/* A copied value of a waiting row: an offset in the batch's buffer (which may move as it
 * grows), bound when the batch runs. */
struct sqlw_copy {
	int param;
	int blob;
	size_t off, n;
};

/* Numbers and _const values are bound to the statement at once (parameter row * cols + col):
 * a value is set once, not kept and bound later. */
struct sqlw_rows {
	struct sqlw *db;
	char *table;
	int cols, rows;
	int waiting;                 /* complete rows bound */
	sqlite3_stmt *full;          /* `rows` rows */
	struct wbuf copies;          /* the _copy values of the waiting rows */
	struct sqlw_copy *pending;
	size_t pending_count, pending_cap;
	int failed, failed_param;    /* the first value that did not bind since the batch ran */
};

/* "INSERT INTO table VALUES(?,?),(?,?)" of `rows` rows, or with limit > 0 "INSERT INTO table
 * SELECT * FROM (VALUES ...) LIMIT limit": the same parameters, only the first rows. */
static int sqlw_rows_prepare(struct sqlw_rows *r, int limit, sqlite3_stmt **stmt, struct err *e)
{
	struct wbuf sql;
	int rc;

	wbuf_init(&sql);
	WBUF_LIT(&sql, "INSERT INTO ");
	wbuf_str(&sql, r->table);
	if (limit)
		WBUF_LIT(&sql, " SELECT * FROM (VALUES");
	else
		WBUF_LIT(&sql, " VALUES");
	for (int i = 0; i < r->rows; i++) {
		if (i)
			wbuf_u8(&sql, ',');
		WBUF_LIT(&sql, "(?");
		for (int c = 1; c < r->cols; c++)
			WBUF_LIT(&sql, ",?");
		wbuf_u8(&sql, ')');
	}
	if (limit) {
		WBUF_LIT(&sql, ") LIMIT ");
		wbuf_dec(&sql, (uint64_t)limit);
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
	if (!w || !(w->table = xmalloc(len + 1))) {
		sqlw_rows_close(w);
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory");
	}
	memcpy(w->table, table, len + 1);
	w->db = db;
	w->cols = cols;
	w->rows = rows;
	wbuf_init(&w->copies);
	if ((rc = sqlw_rows_prepare(w, 0, &w->full, e))) {
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
	wbuf_release(&r->copies);
	xfree(r->pending);
	xfree(r->table);
	xfree(r);
}

static void sqlw_rows_bound(struct sqlw_rows *r, int param, int rc);

/* The parameter of column col (1..cols) of the row being made, 0 when col is out of range. */
static int sqlw_rows_param(struct sqlw_rows *r, int col)
{
	if (col < 1 || col > r->cols) {
		sqlw_rows_bound(r, r->waiting * r->cols + col, SQLITE_RANGE);
		return 0;
	}
	return r->waiting * r->cols + col;
}

static void sqlw_rows_bound(struct sqlw_rows *r, int param, int rc)
{
	if (rc != SQLITE_OK && r->failed == SQLITE_OK) {
		r->failed = rc;
		r->failed_param = param;
	}
}

void sqlw_rows_int(struct sqlw_rows *r, int col, int64_t v)
{
	int i = sqlw_rows_param(r, col);
	if (i)
		sqlw_rows_bound(r, i, sqlite3_bind_int64(r->full, i, v));
}

void sqlw_rows_double(struct sqlw_rows *r, int col, double v)
{
	int i = sqlw_rows_param(r, col);
	if (i)
		sqlw_rows_bound(r, i, sqlite3_bind_double(r->full, i, v));
}

void sqlw_rows_null(struct sqlw_rows *r, int col)
{
	int i = sqlw_rows_param(r, col);
	if (i)
		sqlw_rows_bound(r, i, sqlite3_bind_null(r->full, i));
}

/* Binds text or a blob kept by the caller (a zero-length blob as an empty blob: SQLite binds
 * NULL for a NULL pointer). */
static void sqlw_rows_bind_ptr(struct sqlw_rows *r, int i, int blob, const void *p, size_t n)
{
	int rc;
	if (n > INT32_MAX)
		rc = SQLITE_TOOBIG;
	else if (!blob)
		rc = sqlite3_bind_text(r->full, i, p, (int)n, SQLITE_STATIC);
	else
		rc = n ? sqlite3_bind_blob(r->full, i, p, (int)n, SQLITE_STATIC) : sqlite3_bind_zeroblob(r->full, i, 0);
	sqlw_rows_bound(r, i, rc);
}

/* Copies p into the batch's buffer, bound when the batch runs. */
static void sqlw_rows_copy(struct sqlw_rows *r, int col, int blob, const void *p, size_t n)
{
	int i = sqlw_rows_param(r, col);
	if (!i)
		return;
	if (XALLOC_GROW(r->pending, r->pending_cap, r->pending_count + 1, 64)) {
		sqlw_rows_bound(r, i, SQLITE_NOMEM);
		return;
	}
	r->pending[r->pending_count++] = (struct sqlw_copy){ i, blob, r->copies.len, n };
	wbuf_put(&r->copies, p, n);
}

void sqlw_rows_const(struct sqlw_rows *r, int col, const char *s)
{
	int i = sqlw_rows_param(r, col);
	if (!i)
		return;
	if (!s)
		sqlw_rows_bound(r, i, sqlite3_bind_null(r->full, i));
	else
		sqlw_rows_bind_ptr(r, i, 0, s, strlen(s));
}

void sqlw_rows_text_const(struct sqlw_rows *r, int col, const char *s, size_t n)
{
	int i = sqlw_rows_param(r, col);
	if (i)
		sqlw_rows_bind_ptr(r, i, 0, s ? s : "", n);
}

void sqlw_rows_str_copy(struct sqlw_rows *r, int col, const char *s)
{
	if (!s)
		sqlw_rows_null(r, col);
	else
		sqlw_rows_copy(r, col, 0, s, strlen(s));
}

void sqlw_rows_text_copy(struct sqlw_rows *r, int col, const char *s, size_t n)
{
	sqlw_rows_copy(r, col, 0, s ? s : "", n);
}

void sqlw_rows_blob_const(struct sqlw_rows *r, int col, const void *p, size_t n)
{
	int i = sqlw_rows_param(r, col);
	if (i)
		sqlw_rows_bind_ptr(r, i, 1, p, n);
}

void sqlw_rows_blob_copy(struct sqlw_rows *r, int col, const void *p, size_t n)
{
	sqlw_rows_copy(r, col, 1, p, n);
}

/* The failure of a value bound since the batch last ran, or of the copies' buffer. */
static int sqlw_rows_check(struct sqlw_rows *r, struct err *e)
{
	int rc = r->failed;
	if (rc != SQLITE_OK) {
		r->failed = SQLITE_OK;
		return ERR_SET(e, rc == SQLITE_NOMEM ? ERR_NOMEM : ERR_DB, ERR_NO_VA,
			       "sqlite: binding parameter %d of INSERT INTO %.80s: %s", r->failed_param, r->table,
			       sqlite3_errstr(rc));
	}
	return wbuf_status(&r->copies, e);
}

/* Binds the copied values (their buffer no longer grows) and runs s: the full statement, or
 * the tail that took its bindings. */
static int sqlw_rows_run(struct sqlw_rows *r, sqlite3_stmt *s, struct err *e)
{
	int rc;

	for (size_t k = 0; k < r->pending_count; k++) {
		const struct sqlw_copy *c = &r->pending[k];
		sqlw_rows_bind_ptr(r, c->param, c->blob, c->n ? r->copies.data + c->off : (const uint8_t *)"", c->n);
	}
	r->pending_count = 0;
	if ((rc = sqlw_rows_check(r, e)) == 0 && s != r->full && sqlite3_transfer_bindings(r->full, s) != SQLITE_OK)
		rc = ERR_SET(e, ERR_DB, ERR_NO_VA, "sqlite: moving the values of INSERT INTO %.80s", r->table);
	if (rc == 0 && (rc = sqlite3_step(s)) != SQLITE_DONE)
		rc = ERR_SET(e, rc == SQLITE_NOMEM ? ERR_NOMEM : ERR_DB, ERR_NO_VA, "sqlite: %s: INSERT INTO %.80s",
			     sqlite3_errmsg(r->db->h), r->table);
	else if (rc == SQLITE_DONE)
		rc = 0;
	sqlite3_reset(s);
	r->waiting = 0;
	wbuf_reset(&r->copies);
	return rc;
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

/* The last, shorter batch: the full statement's parameters moved to one that inserts only
 * the first rows; the others bound NULL (no pointer left from an earlier batch).  The move is
 * sqlite3_transfer_bindings, which SQLite's documentation lists as deprecated (prepare_v2
 * made its first use unneeded) but every build without SQLITE_OMIT_DEPRECATED keeps, Debian's
 * among them.  Measured against the alternative of one statement whose LIMIT is a parameter
 * (INSERT .. SELECT * FROM (VALUES ..) LIMIT ?, no move needed): that form costs every full
 * batch a subquery, +0.27 s of user CPU on realart-full cc-nodes-nogc-full's case.db (best of
 * 8, 1.77 against 1.50 s). */
int sqlw_rows_flush(struct sqlw_rows *r, struct err *e)
{
	sqlite3_stmt *tail = NULL;
	int rc = sqlw_rows_check(r, e);

	if (rc || r->waiting == 0)
		return rc;
	for (int i = r->waiting * r->cols + 1; i <= r->rows * r->cols; i++)
		sqlw_rows_bound(r, i, sqlite3_bind_null(r->full, i));
	if ((rc = sqlw_rows_prepare(r, r->waiting, &tail, e)) == 0)
		rc = sqlw_rows_run(r, tail, e);
	sqlite3_finalize(tail);
	r->waiting = 0;
	r->pending_count = 0;
	wbuf_reset(&r->copies);
	return rc;
}

const char *sqlw_version(void)
{
	return sqlite3_libversion();
}
