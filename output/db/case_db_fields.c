/* case_db_fields.c - case.db's decoded values: every instance's fields (one JSON array per
 * object) and every container's entries (one typed row each), as the object decoder
 * (output/decode/decode.h) reads them. */
#include "output/db/case_db_fields.h"

#include <float.h>
#include <string.h>

#include "carver/base/escape.h"
#include "carver/base/hash.h"
#include "carver/base/htab.h"
#include "carver/base/xalloc.h"
#include "carver/wrap/sqlitew.h"
#include "output/decode/decode.h"

/* After case_db.c's tables.  An instance's decoded fields are one row of object_fields, a JSON
 * array of its values (the view field_values gives one row per value, as a table would): a
 * row per value made SQLite's inserts the carve's largest cost (40 M rows on a 2 M-object
 * heap).  A field's name and declared type are one row of field_names, not text on each
 * value. */
static const char case_db_fields_schema[] =
	"CREATE TABLE field_names(id INTEGER PRIMARY KEY, field TEXT, type TEXT);"
	"CREATE TABLE value_kinds(id INTEGER PRIMARY KEY, kind TEXT NOT NULL);"
	"CREATE TABLE object_fields(object INTEGER PRIMARY KEY, vals TEXT NOT NULL);"
	"CREATE TABLE containers(address INTEGER PRIMARY KEY, kind TEXT NOT NULL, keyed INTEGER NOT NULL,"
	" size INTEGER NOT NULL, given INTEGER NOT NULL, incomplete TEXT);"
	"CREATE TABLE entries(container INTEGER NOT NULL, idx INTEGER NOT NULL, key_kind TEXT, key_int INTEGER,"
	" key_real REAL, key_text TEXT, key_ref INTEGER, value_kind TEXT NOT NULL, value_int INTEGER,"
	" value_real REAL, value_text TEXT, value_ref INTEGER, PRIMARY KEY(container, idx)) WITHOUT ROWID;";

/* One value (text, integer, real, reference) per row, whichever columns its kind fills
 * (json_extract and json_each: SQLite 3.9 and later); a text in pieces (json_text) joined. */
const char case_db_fields_views[] =
	"CREATE VIEW field_values AS SELECT o.object, j.key AS idx, n.field, n.type, k.kind,"
	" iif(json_type(j.value, '$[2]') = 'integer', json_extract(j.value, '$[2]'), NULL) AS int_value,"
	" iif(json_type(j.value, '$[2]') = 'real', json_extract(j.value, '$[2]'), NULL) AS real_value,"
	" iif(json_type(j.value, '$[3]') = 'array',"
	" (SELECT group_concat(p.value, char(0)) FROM json_each(j.value, '$[3]') p), json_extract(j.value, '$[3]'))"
	" AS text_value, json_extract(j.value, '$[4]') AS ref_address,"
	" json_extract(j.value, '$[5]') AS time_utc, n.id AS field_id"
	" FROM object_fields o, json_each(o.vals) j JOIN field_names n ON n.id = json_extract(j.value, '$[0]')"
	" JOIN value_kinds k ON k.id = json_extract(j.value, '$[1]');"
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

enum { FV_NAME, FV_KIND, FV_COUNT };

static const char *const fv_inserts[FV_COUNT] = {
	[FV_NAME] = "INSERT INTO field_names VALUES(?,?,?)",
	[FV_KIND] = "INSERT INTO value_kinds VALUES(?,?)",
};

/* The tables of a row per object or entry, by multi-row statements (sqlitew.h). */
enum { FR_FIELD, FR_CONTAINER, FR_ENTRY, FR_COUNT, FV_BATCH = 32, FV_RECENT = 256 };

static const struct { const char *table; int cols; } fv_rows[FR_COUNT] = {
	[FR_FIELD] = { "object_fields", 2 },
	[FR_CONTAINER] = { "containers", 6 },
	[FR_ENTRY] = { "entries", 12 },
};

struct fv_writer {
	struct sqlw *db;
	struct sqlw_stmt *st[FV_COUNT];
	struct sqlw_rows *rows[FR_COUNT];
	struct dec *dec;
	uint64_t address;         /* the object whose rows are written */
	struct wbuf vals;         /* the object's fields as object_fields.vals */
	struct htab name_ids;     /* hash of a field's name and type -> its index in names */
	struct fv_name *names;    /* field_names.id - 1 */
	size_t name_count, name_cap;
	/* the last ids by the decoder's string pointers (a class's fields come back with the
	 * same ones for every object): hashing both texts per value was 9% of case.db's CPU */
	struct { const char *name, *type; int64_t id; } recent[FV_RECENT];
	struct case_db_fields_stats *stats;
};

struct fv_name {
	const char *name, *type;  /* the decoder's strings: they live as long as the model */
};

static int64_t i64(uint64_t v) { return (int64_t)v; }

static bool real_kind(enum dec_kind k) { return k == DEC_FLOAT || k == DEC_DOUBLE; }

/* Columns at..at+4: kind, integer, real, text, reference of v (NULL where the kind has none);
 * the text copied (the decoder's lives until its next call). */
static void bind_value(struct sqlw_rows *s, int at, const struct dec_value *v)
{
	enum dec_kind k = v->kind == DEC_BOXED ? v->boxed : v->kind;
	bool has_int = (k >= DEC_BOOL && k <= DEC_LONG) || v->kind == DEC_ENUM;
	bool ref = v->kind == DEC_STRING || v->kind == DEC_REF || v->kind == DEC_ENUM || v->kind == DEC_BOXED;

	sqlw_rows_const(s, at, dec_kind_name(v->kind));
	if (has_int)
		sqlw_rows_int(s, at + 1, v->i);
	else
		sqlw_rows_null(s, at + 1);
	if (real_kind(k))
		sqlw_rows_double(s, at + 2, v->r);
	else
		sqlw_rows_null(s, at + 2);
	if ((v->kind == DEC_STRING || v->kind == DEC_ENUM) && v->text)
		sqlw_rows_text_copy(s, at + 3, v->text, v->text_len);
	else
		sqlw_rows_null(s, at + 3);
	if (ref && v->addr)
		sqlw_rows_int(s, at + 4, i64(v->addr));
	else
		sqlw_rows_null(s, at + 4);
}

static bool same_text(const char *a, const char *b) { return a == b || (a && b && strcmp(a, b) == 0); }

static uint64_t name_key(const char *name, const char *type)
{
	uint64_t h = hash_fnv1a64(name ? name : "", name ? strlen(name) + 1 : 0);
	return hash_fnv1a64_more(h, type ? type : "", type ? strlen(type) : 0);
}

/* *id = field_names.id of (name, type), a new row the first time: ids in the order of first
 * use, so the same model gives the same ids. */
static int name_id_lookup(struct fv_writer *w, const char *name, const char *type, int64_t *id,
			  struct err *e)
{
	uint64_t key = name_key(name, type);
	struct sqlw_stmt *s = w->st[FV_NAME];

	for (size_t slot = htab_find(&w->name_ids, key); slot != HTAB_END;
	     slot = htab_find_next(&w->name_ids, key, slot)) {
		const struct fv_name *n = &w->names[htab_val(&w->name_ids, slot)];
		if (same_text(n->name, name) && same_text(n->type, type)) {
			*id = (int64_t)htab_val(&w->name_ids, slot) + 1;
			return 0;
		}
	}
	if (w->name_count >= HTAB_VAL_MAX || XALLOC_GROW(w->names, w->name_cap, w->name_count + 1, 64) ||
	    htab_add(&w->name_ids, key, (uint32_t)w->name_count))
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory for the field names of case.db");
	w->names[w->name_count++] = (struct fv_name){ name, type };
	*id = (int64_t)w->name_count;
	sqlw_bind_int(s, 1, *id);
	sqlw_bind_const(s, 2, name);
	sqlw_bind_const(s, 3, type);
	return sqlw_step(s, e);
}

/* name_id_lookup through the pointers last seen. */
static int name_id(struct fv_writer *w, const char *name, const char *type, int64_t *id, struct err *e)
{
	size_t r = ((uintptr_t)name >> 3 ^ (uintptr_t)type >> 4) % FV_RECENT;
	if (w->recent[r].id && w->recent[r].name == name && w->recent[r].type == type) {
		*id = w->recent[r].id;
		return 0;
	}
	int rc = name_id_lookup(w, name, type, id, e);
	if (rc == 0) {
		w->recent[r].name = name;
		w->recent[r].type = type;
		w->recent[r].id = *id;
	}
	return rc;
}

/* sep and v in decimal: printf is the cost of millions of values. */
static void json_int(struct wbuf *b, char sep, int64_t v)
{
	wbuf_u8(b, (uint8_t)sep);
	if (v < 0)
		wbuf_u8(b, '-');
	wbuf_dec(b, v < 0 ? 0 - (uint64_t)v : (uint64_t)v);
}

/* A comma and a JSON number for a real that reads back as one: every output's shortest text
 * that reads back to the same double (dec_json_real; a float's value is the double it
 * widens to, so as a double), with a point or an exponent (2.0, not 2, which json_type calls
 * an integer).  NaN has none (SQLite stores it as NULL too), infinities are 9e999, which
 * SQLite reads back as infinite. */
static void json_real(struct wbuf *b, double r)
{
	size_t at;

	if (r != r) {
		WBUF_LIT(b, ",null");
		return;
	}
	if (r > DBL_MAX || r < -DBL_MAX) {
		if (r < 0)
			WBUF_LIT(b, ",-9e999");
		else
			WBUF_LIT(b, ",9e999");
		return;
	}
	wbuf_u8(b, ',');
	at = b->len;
	dec_json_real(b, r, false);
	if (!b->failed && !memchr(b->data + at, '.', b->len - at) && !memchr(b->data + at, 'e', b->len - at))
		WBUF_LIT(b, ".0");
}

/* A comma and a String's text as a JSON string; a text holding NUL as the array of its pieces
 * between the NULs: SQLite's json_extract (3.40) ends a string at \u0000, so the view
 * field_values joins the pieces with char(0). */
static void json_text(struct wbuf *b, const char *s, size_t n)
{
	const char *nul = memchr(s, 0, n);
	size_t at = 0;

	wbuf_u8(b, ',');
	if (!nul) {
		escape_json_quoted(b, (const uint8_t *)s, n);
		return;
	}
	wbuf_u8(b, '[');
	for (;;) {
		size_t len = (size_t)(nul - (s + at));
		escape_json_quoted(b, (const uint8_t *)s + at, len);
		at += len;
		if (at == n)
			break;
		wbuf_u8(b, ',');
		at++;
		nul = memchr(s + at, 0, n - at);
		if (!nul)
			nul = s + n;
	}
	wbuf_u8(b, ']');
}

/* Columns 2..5 of a value (number, text, address, time) as far as the value has any. */
enum { V_NUMBER = 2, V_TEXT, V_ADDRESS, V_TIME };

/* Nulls up to (not including) position `to`, from `at`. */
static int json_nulls(struct wbuf *b, int at, int to)
{
	for (; at < to; at++)
		wbuf_put(b, ",null", 5);
	return to + 1;
}

/* One value of object_fields.vals: [field_names.id, value_kinds.id, number, text, address,
 * time], the trailing nulls left out; the number is an integer (integers, booleans, chars,
 * an enum's ordinal, a boxed integer) or a real (float, double, boxed real). */
static void json_value(struct wbuf *b, int64_t id, const struct dec_value *v)
{
	enum dec_kind k = v->kind == DEC_BOXED ? v->boxed : v->kind;
	bool ref = v->kind == DEC_STRING || v->kind == DEC_REF || v->kind == DEC_ENUM || v->kind == DEC_BOXED;
	int at = V_NUMBER;

	json_int(b, '[', id);
	json_int(b, ',', (int64_t)v->kind);
	if ((k >= DEC_BOOL && k <= DEC_LONG) || v->kind == DEC_ENUM) {
		json_int(b, ',', v->i);
		at++;
	} else if (real_kind(k)) {
		json_real(b, v->r);
		at++;
	}
	if ((v->kind == DEC_STRING || v->kind == DEC_ENUM) && v->text) {
		at = json_nulls(b, at, V_TEXT);
		json_text(b, v->text, v->text_len);
	}
	if (ref && v->addr) {
		at = json_nulls(b, at, V_ADDRESS);
		json_int(b, ',', i64(v->addr));
	}
	if (v->has_time) {
		json_nulls(b, at, V_TIME);
		wbuf_put(b, ",\"", 2);
		dec_time_iso(v->time_ms, b);
		wbuf_u8(b, '"');
	}
	wbuf_u8(b, ']');
}

static int put_field(void *arg, const struct dec_value *v, struct err *e)
{
	struct fv_writer *w = arg;
	int64_t id = 0;
	int rc;

	if ((rc = name_id(w, v->name, v->java_type ? v->java_type : v->type, &id, e)))
		return rc;
	wbuf_u8(&w->vals, w->vals.len ? ',' : '[');
	json_value(&w->vals, id, v);
	w->stats->fields++;
	return 0;
}

/* The object's row of object_fields, when it has fields. */
static int put_fields_row(struct fv_writer *w, struct err *e)
{
	struct sqlw_rows *s = w->rows[FR_FIELD];
	int rc;

	if (w->vals.len == 0)
		return 0;
	wbuf_u8(&w->vals, ']');
	if ((rc = wbuf_status(&w->vals, e)))
		return rc;
	sqlw_rows_int(s, 1, i64(w->address));
	sqlw_rows_text_copy(s, 2, (const char *)w->vals.data, w->vals.len);
	return sqlw_rows_end(s, e);
}

static int put_entry(void *arg, const struct dec_entry *en, struct err *e)
{
	struct fv_writer *w = arg;
	struct sqlw_rows *s = w->rows[FR_ENTRY];
	int rc;

	sqlw_rows_int(s, 1, i64(w->address));
	sqlw_rows_int(s, 2, i64(en->index));
	if (en->has_key) {
		bind_value(s, 3, &en->key);
	} else {
		for (int c = 3; c <= 7; c++)
			sqlw_rows_null(s, c);
	}
	bind_value(s, 8, &en->value);
	if ((rc = sqlw_rows_end(s, e)))
		return rc;
	w->stats->entries++;
	return 0;
}

static int put_container(struct fv_writer *w, const struct dec_entries *info, struct err *e)
{
	struct sqlw_rows *s = w->rows[FR_CONTAINER];
	int rc;

	sqlw_rows_int(s, 1, i64(w->address));
	sqlw_rows_str_copy(s, 2, info->kind);
	sqlw_rows_int(s, 3, info->keyed);
	sqlw_rows_int(s, 4, i64(info->size));
	sqlw_rows_int(s, 5, i64(info->given));
	sqlw_rows_str_copy(s, 6, info->incomplete);
	if ((rc = sqlw_rows_end(s, e)))
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
	wbuf_reset(&w->vals);
	if (o->kind == MODEL_INSTANCE &&
	    ((rc = dec_each_field(w->dec, i, put_field, w, e)) || (rc = put_fields_row(w, e))))
		return rc;
	if (o->kind != MODEL_INSTANCE && o->kind != MODEL_OBJ_ARRAY)
		return 0;
	if ((rc = dec_each_entry(w->dec, i, put_entry, w, &info, e)))
		return rc;
	return info.kind ? put_container(w, &info, e) : 0;
}

/* value_kinds: the decoder's kind names by number (the second element of a value). */
static int put_kinds(struct fv_writer *w, struct err *e)
{
	struct sqlw_stmt *s = w->st[FV_KIND];
	int rc;

	for (unsigned k = 0; k < DEC_KIND_COUNT; k++) {
		sqlw_bind_int(s, 1, k);
		sqlw_bind_const(s, 2, dec_kind_name(k));
		if ((rc = sqlw_step(s, e)))
			return rc;
	}
	return 0;
}

int case_db_fields_write(struct sqlw *db, const struct model *m, struct case_db_fields_stats *st, struct err *e)
{
	struct fv_writer w = { .db = db, .stats = st };
	int rc = sqlw_exec(db, case_db_fields_schema, e);

	wbuf_init(&w.vals);
	htab_init(&w.name_ids);
	for (int i = 0; rc == 0 && i < FV_COUNT; i++)
		rc = sqlw_prepare(db, fv_inserts[i], &w.st[i], e);
	for (int i = 0; rc == 0 && i < FR_COUNT; i++)
		rc = sqlw_rows_open(db, fv_rows[i].table, fv_rows[i].cols, FV_BATCH, &w.rows[i], e);
	if (rc == 0 && (rc = put_kinds(&w, e)) == 0)
		rc = dec_open(&w.dec, m, e);
	for (size_t i = 0; rc == 0 && i < model_count(m); i++)
		rc = put_object(&w, m, i, e);
	for (int i = 0; rc == 0 && i < FR_COUNT; i++)
		rc = sqlw_rows_flush(w.rows[i], e);
	for (int i = 0; i < FV_COUNT; i++)
		sqlw_finalize(w.st[i]);
	for (int i = 0; i < FR_COUNT; i++)
		sqlw_rows_close(w.rows[i]);
	dec_close(w.dec);
	wbuf_release(&w.vals);
	htab_release(&w.name_ids);
	xfree(w.names);
	return rc;
}
