/* case_db_find.c - see case_db_find.h.  Uses SQLite only through carver/wrap/sqlitew.h. */
#include "output/db/case_db_find.h"

#include <stdio.h>

#include "carver/wrap/sqlitew.h"

static const char find_schema[] =
	"BEGIN;"
	"CREATE TABLE indicators(id INTEGER PRIMARY KEY, kind TEXT NOT NULL, value TEXT NOT NULL,"
	" address INTEGER NOT NULL, hex TEXT NOT NULL, class TEXT, field TEXT, state TEXT NOT NULL,"
	" source TEXT NOT NULL, offset INTEGER NOT NULL);";

static const char find_finish[] =
	"CREATE INDEX indicators_by_kind ON indicators(kind, value);"
	"COMMIT;";

static int find_rows(struct sqlw_stmt *st, const struct model *m, const struct find_result *f, struct err *e)
{
	for (size_t i = 0; i < f->count; i++) {
		const struct find_hit *h = &f->v[i];
		const char *cls = model_runtime(m)->classes[model_obj(m, h->obj)->cls].name;
		char hex[24];
		int rc;
		snprintf(hex, sizeof(hex), "0x%llx", (unsigned long long)h->addr);
		sqlw_bind_const(st, 1, find_kind_name(h->kind));
		sqlw_bind_text(st, 2, find_text(f, h->value), h->value_len);
		sqlw_bind_int(st, 3, (int64_t)h->addr);
		sqlw_bind_str(st, 4, hex);
		sqlw_bind_str(st, 5, cls);
		if (h->field_len)
			sqlw_bind_text(st, 6, find_text(f, h->field), h->field_len);
		else
			sqlw_bind_null(st, 6);
		sqlw_bind_const(st, 7, find_state_name(h->state));
		sqlw_bind_const(st, 8, find_source_name(h->source));
		sqlw_bind_int(st, 9, h->offset);
		if ((rc = sqlw_step(st, e)))
			return rc;
	}
	return 0;
}

int case_db_add_find(const char *path, const struct model *m, const struct find_result *f, struct err *e)
{
	struct sqlw *db = NULL;
	struct sqlw_stmt *st = NULL;
	int rc;

	if ((rc = sqlw_open(&db, path, e)) == 0 && (rc = sqlw_exec(db, find_schema, e)) == 0 &&
	    (rc = sqlw_prepare(db, "INSERT INTO indicators(kind, value, address, hex, class, field, state, source, offset)"
				   " VALUES(?,?,?,?,?,?,?,?,?)", &st, e)) == 0 &&
	    (rc = find_rows(st, m, f, e)) == 0) {
		sqlw_finalize(st);
		st = NULL;
		rc = sqlw_exec(db, find_finish, e);
	}
	sqlw_finalize(st);
	if (rc && db)
		sqlw_abandon(db);
	else if (db)
		rc = sqlw_close(db, e);
	return rc ? err_prefix(e, "%s: indicators", path) : 0;
}
