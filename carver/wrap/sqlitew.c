/* sqlitew.c - the SQLite wrapper (see sqlitew.h). */
#include "carver/wrap/sqlitew.h"

#include <pthread.h>
#include <sqlite3.h>

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

const char *sqlw_version(void)
{
	return sqlite3_libversion();
}
