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

static const char yara_schema[] =
	"BEGIN;"
	"CREATE TABLE yara_matches(id INTEGER PRIMARY KEY, rule TEXT NOT NULL, tags TEXT NOT NULL, string TEXT NOT NULL,"
	" address INTEGER NOT NULL, hex TEXT NOT NULL, class TEXT, field TEXT, state TEXT NOT NULL, source TEXT NOT NULL,"
	" form TEXT NOT NULL, offset INTEGER NOT NULL, length INTEGER NOT NULL, data BLOB);";

static const char yara_finish[] =
	"CREATE INDEX yara_by_rule ON yara_matches(rule);"
	"COMMIT;";

/* The columns every row shares: address, hex, class (from column i on; NULL for a residue
 * place, which is no object). */
static void bind_object(struct sqlw_stmt *st, int i, const struct model *m, size_t obj, uint64_t addr)
{
	char hex[24];
	snprintf(hex, sizeof(hex), "0x%llx", (unsigned long long)addr);
	sqlw_bind_int(st, i, (int64_t)addr);
	sqlw_bind_str(st, i + 1, hex);
	sqlw_bind_str(st, i + 2, obj == MODEL_NONE ? NULL : model_runtime(m)->classes[model_obj(m, obj)->cls].name);
}

static void bind_text_or_null(struct sqlw_stmt *st, int i, const char *p, size_t n)
{
	if (n)
		sqlw_bind_text(st, i, p, n);
	else
		sqlw_bind_null(st, i);
}

static int find_rows(struct sqlw_stmt *st, const struct model *m, const struct find_result *f, struct err *e)
{
	for (size_t i = 0; i < f->count; i++) {
		const struct find_hit *h = &f->v[i];
		int rc;
		sqlw_bind_const(st, 1, find_kind_name(h->kind));
		sqlw_bind_text(st, 2, find_text(f, h->value), h->value_len);
		bind_object(st, 3, m, h->obj, h->addr);
		bind_text_or_null(st, 6, find_text(f, h->field), h->field_len);
		sqlw_bind_const(st, 7, find_state_name(h->state));
		sqlw_bind_const(st, 8, find_source_name(h->source));
		sqlw_bind_int(st, 9, h->offset);
		if ((rc = sqlw_step(st, e)))
			return rc;
	}
	return 0;
}

static int yara_rows(struct sqlw_stmt *st, const struct model *m, const struct find_yara_result *y, struct err *e)
{
	for (size_t i = 0; i < y->count; i++) {
		const struct find_yara_hit *h = &y->v[i];
		int rc;
		sqlw_bind_text(st, 1, find_yara_text(y, h->rule), h->rule_len);
		sqlw_bind_text(st, 2, find_yara_text(y, h->tags), h->tags_len);
		sqlw_bind_text(st, 3, find_yara_text(y, h->string), h->string_len);
		bind_object(st, 4, m, h->obj, h->addr);
		bind_text_or_null(st, 7, find_yara_text(y, h->field), h->field_len);
		sqlw_bind_const(st, 8, find_state_name(h->state));
		sqlw_bind_const(st, 9, find_source_name(h->source));
		sqlw_bind_const(st, 10, find_yara_form_name(h->form));
		sqlw_bind_int(st, 11, h->offset);
		sqlw_bind_int(st, 12, h->length);
		sqlw_bind_blob(st, 13, find_yara_text(y, h->data), h->data_len);
		if ((rc = sqlw_step(st, e)))
			return rc;
	}
	return 0;
}

typedef int (*rows_fn)(struct sqlw_stmt *st, const struct model *m, const void *rows, struct err *e);

static int rows_find(struct sqlw_stmt *st, const struct model *m, const void *rows, struct err *e)
{
	return find_rows(st, m, rows, e);
}

static int rows_yara(struct sqlw_stmt *st, const struct model *m, const void *rows, struct err *e)
{
	return yara_rows(st, m, rows, e);
}

/* One table in a transaction of its own: schema, rows through insert, finish. */
static int add_table(const char *path, const char *schema, const char *insert, const char *finish, rows_fn fn,
		     const struct model *m, const void *rows, struct err *e)
{
	struct sqlw *db = NULL;
	struct sqlw_stmt *st = NULL;
	int rc;

	if ((rc = sqlw_open(&db, path, e)) == 0 && (rc = sqlw_exec(db, schema, e)) == 0 &&
	    (rc = sqlw_prepare(db, insert, &st, e)) == 0 && (rc = fn(st, m, rows, e)) == 0) {
		sqlw_finalize(st);
		st = NULL;
		rc = sqlw_exec(db, finish, e);
	}
	sqlw_finalize(st);
	if (rc && db)
		sqlw_abandon(db);
	else if (db)
		rc = sqlw_close(db, e);
	return rc;
}

int case_db_add_find(const char *path, const struct model *m, const struct find_result *f, struct err *e)
{
	int rc = add_table(path, find_schema,
			   "INSERT INTO indicators(kind, value, address, hex, class, field, state, source, offset)"
			   " VALUES(?,?,?,?,?,?,?,?,?)", find_finish, rows_find, m, f, e);
	return rc ? err_prefix(e, "%s: indicators", path) : 0;
}

int case_db_add_yara(const char *path, const struct model *m, const struct find_yara_result *y, struct err *e)
{
	int rc = add_table(path, yara_schema,
			   "INSERT INTO yara_matches(rule, tags, string, address, hex, class, field, state, source, form,"
			   " offset, length, data) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?)", yara_finish, rows_yara, m, y, e);
	return rc ? err_prefix(e, "%s: yara_matches", path) : 0;
}
