/* case_db_fields.c - case.db's decoded values: every instance's fields and every container's
 * entries, as the object decoder (output/decode/decode.h) reads them, one typed row each. */
#include "output/db/case_db_fields.h"

#include "carver/wrap/sqlitew.h"
#include "output/decode/decode.h"

/* After case_db.c's tables; WITHOUT ROWID and filled in (object, idx) order: rows append. */
static const char case_db_fields_schema[] =
	"CREATE TABLE field_values(object INTEGER NOT NULL, idx INTEGER NOT NULL, field TEXT, type TEXT,"
	" kind TEXT NOT NULL, int_value INTEGER, real_value REAL, text_value TEXT, ref_address INTEGER,"
	" time_utc TEXT, PRIMARY KEY(object, idx)) WITHOUT ROWID;"
	"CREATE TABLE containers(address INTEGER PRIMARY KEY, kind TEXT NOT NULL, keyed INTEGER NOT NULL,"
	" size INTEGER NOT NULL, given INTEGER NOT NULL, incomplete TEXT);"
	"CREATE TABLE entries(container INTEGER NOT NULL, idx INTEGER NOT NULL, key_kind TEXT, key_int INTEGER,"
	" key_real REAL, key_text TEXT, key_ref INTEGER, value_kind TEXT NOT NULL, value_int INTEGER,"
	" value_real REAL, value_text TEXT, value_ref INTEGER, PRIMARY KEY(container, idx)) WITHOUT ROWID;";

/* One value (text, integer, real, reference) per row, whichever columns its kind fills. */
const char case_db_fields_views[] =
	"CREATE VIEW fields_named AS SELECT f.object AS address, printf('0x%x', f.object) AS hex,"
	" c.name AS class_name, c.origin, o.allocation, o.content, o.reach, f.idx, f.field, f.type, f.kind,"
	" coalesce(f.text_value, f.int_value, f.real_value, iif(f.ref_address, printf('0x%x', f.ref_address), NULL))"
	" AS value,"
	" f.int_value, f.real_value, f.text_value, f.ref_address, f.time_utc"
	" FROM field_values f JOIN objects o ON o.address = f.object JOIN classes c ON c.id = o.class_id;"
	"CREATE VIEW app_dropped AS SELECT * FROM dropped_objects WHERE origin = 'app';"
	"CREATE VIEW app_dropped_fields AS SELECT * FROM fields_named"
	" WHERE origin = 'app' AND allocation = 'allocated' AND reach = 'unreachable';"
	"CREATE VIEW entries_named AS SELECT e.container AS address, printf('0x%x', e.container) AS hex,"
	" c.name AS class_name, k.kind AS container_kind, e.idx,"
	" coalesce(e.key_text, e.key_int, e.key_real, iif(e.key_ref, printf('0x%x', e.key_ref), NULL)) AS key,"
	" coalesce(e.value_text, e.value_int, e.value_real, iif(e.value_ref, printf('0x%x', e.value_ref), NULL))"
	" AS value,"
	" e.value_kind, e.value_ref"
	" FROM entries e JOIN containers k ON k.address = e.container JOIN objects o ON o.address = e.container"
	" JOIN classes c ON c.id = o.class_id;";

enum { FV_FIELD, FV_CONTAINER, FV_ENTRY, FV_COUNT };

static const char *const fv_inserts[FV_COUNT] = {
	[FV_FIELD] = "INSERT INTO field_values VALUES(?,?,?,?,?,?,?,?,?,?)",
	[FV_CONTAINER] = "INSERT INTO containers VALUES(?,?,?,?,?,?)",
	[FV_ENTRY] = "INSERT INTO entries VALUES(?,?,?,?,?,?,?,?,?,?,?,?)",
};

struct fv_writer {
	struct sqlw *db;
	struct sqlw_stmt *st[FV_COUNT];
	struct dec *dec;
	uint64_t address;         /* the object whose rows are written */
	uint32_t idx;
	struct wbuf time;
	struct case_db_fields_stats *stats;
};

static int64_t i64(uint64_t v) { return (int64_t)v; }

static bool real_kind(enum dec_kind k) { return k == DEC_FLOAT || k == DEC_DOUBLE; }

/* Columns at..at+4: kind, integer, real, text, reference of v (NULL where the kind has none). */
static void bind_value(struct sqlw_stmt *s, int at, const struct dec_value *v)
{
	enum dec_kind k = v->kind == DEC_BOXED ? v->boxed : v->kind;
	bool has_int = (k >= DEC_BOOL && k <= DEC_LONG) || v->kind == DEC_ENUM;
	bool ref = v->kind == DEC_STRING || v->kind == DEC_REF || v->kind == DEC_ENUM || v->kind == DEC_BOXED;

	sqlw_bind_const(s, at, dec_kind_name(v->kind));
	if (has_int)
		sqlw_bind_int(s, at + 1, v->i);
	else
		sqlw_bind_null(s, at + 1);
	if (real_kind(k))
		sqlw_bind_double(s, at + 2, v->r);
	else
		sqlw_bind_null(s, at + 2);
	if ((v->kind == DEC_STRING || v->kind == DEC_ENUM) && v->text)
		sqlw_bind_text(s, at + 3, v->text, v->text_len);
	else
		sqlw_bind_null(s, at + 3);
	if (ref && v->addr)
		sqlw_bind_int(s, at + 4, i64(v->addr));
	else
		sqlw_bind_null(s, at + 4);
}

static int put_field(void *arg, const struct dec_value *v, struct err *e)
{
	struct fv_writer *w = arg;
	struct sqlw_stmt *s = w->st[FV_FIELD];
	int rc;

	sqlw_bind_int(s, 1, i64(w->address));
	sqlw_bind_int(s, 2, w->idx++);
	sqlw_bind_str(s, 3, v->name);
	sqlw_bind_str(s, 4, v->java_type ? v->java_type : v->type);
	bind_value(s, 5, v);
	if (v->has_time) {
		wbuf_reset(&w->time);
		dec_time_iso(v->time_ms, &w->time);
		if ((rc = wbuf_status(&w->time, e)))
			return rc;
		sqlw_bind_text(s, 10, (const char *)w->time.data, w->time.len);
	} else {
		sqlw_bind_null(s, 10);
	}
	if ((rc = sqlw_step(s, e)))
		return rc;
	w->stats->fields++;
	return 0;
}

static int put_entry(void *arg, const struct dec_entry *en, struct err *e)
{
	struct fv_writer *w = arg;
	struct sqlw_stmt *s = w->st[FV_ENTRY];
	int rc;

	sqlw_bind_int(s, 1, i64(w->address));
	sqlw_bind_int(s, 2, i64(en->index));
	if (en->has_key) {
		bind_value(s, 3, &en->key);
	} else {
		for (int c = 3; c <= 7; c++)
			sqlw_bind_null(s, c);
	}
	bind_value(s, 8, &en->value);
	if ((rc = sqlw_step(s, e)))
		return rc;
	w->stats->entries++;
	return 0;
}

static int put_container(struct fv_writer *w, const struct dec_entries *info, struct err *e)
{
	struct sqlw_stmt *s = w->st[FV_CONTAINER];
	int rc;

	sqlw_bind_int(s, 1, i64(w->address));
	sqlw_bind_const(s, 2, info->kind);
	sqlw_bind_int(s, 3, info->keyed);
	sqlw_bind_int(s, 4, i64(info->size));
	sqlw_bind_int(s, 5, i64(info->given));
	sqlw_bind_str(s, 6, info->incomplete);
	if ((rc = sqlw_step(s, e)))
		return rc;
	w->stats->containers++;
	return 0;
}

/* An instance's fields (Strings and Class objects are in their own tables: strings, classes
 * and fields), and a container's entries (a primitive array's are its primitive_arrays row). */
static int put_object(struct fv_writer *w, const struct model *m, size_t i, struct err *e)
{
	const struct model_obj *o = model_obj(m, i);
	struct dec_entries info;
	int rc;

	w->address = model_va(m, o);
	w->idx = 0;
	if (o->kind == MODEL_INSTANCE && (rc = dec_each_field(w->dec, i, put_field, w, e)))
		return rc;
	if (o->kind != MODEL_INSTANCE && o->kind != MODEL_OBJ_ARRAY)
		return 0;
	if ((rc = dec_each_entry(w->dec, i, put_entry, w, &info, e)))
		return rc;
	return info.kind ? put_container(w, &info, e) : 0;
}

int case_db_fields_write(struct sqlw *db, const struct model *m, struct case_db_fields_stats *st, struct err *e)
{
	struct fv_writer w = { .db = db, .stats = st };
	int rc = sqlw_exec(db, case_db_fields_schema, e);

	wbuf_init(&w.time);
	for (int i = 0; rc == 0 && i < FV_COUNT; i++)
		rc = sqlw_prepare(db, fv_inserts[i], &w.st[i], e);
	if (rc == 0)
		rc = dec_open(&w.dec, m, e);
	for (size_t i = 0; rc == 0 && i < model_count(m); i++)
		rc = put_object(&w, m, i, e);
	for (int i = 0; i < FV_COUNT; i++)
		sqlw_finalize(w.st[i]);
	dec_close(w.dec);
	wbuf_release(&w.time);
	return rc;
}
