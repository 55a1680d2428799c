/* case_db.c - the case database writer (see case_db.h; schema documented in README.md,
 * "Case database").  Uses SQLite only through carver/wrap/sqlitew.h. */
#include "output/db/case_db.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "art/mirror/mirror.h"
#include "carver/base/sha256.h"
#include "carver/base/wbuf.h"
#include "carver/base/xalloc.h"
#include "carver/wrap/sqlitew.h"
#include "output/export/strings_tsv.h"

#define STR_(x) #x
#define STR(x) STR_(x)

/* Addresses are INTEGERs (decimal in SQL; the views add hex text).  States are the model's
 * stable names (rosalloc/model/model.h). */
static const char case_db_schema[] =
	"PRAGMA page_size = 16384;"
	"PRAGMA journal_mode = OFF;"
	"PRAGMA synchronous = OFF;"
	"PRAGMA locking_mode = EXCLUSIVE;"
	"PRAGMA cache_size = -32768;"
	"PRAGMA application_id = " STR(CASE_DB_APPLICATION_ID) ";"
	"PRAGMA user_version = " STR(CASE_DB_SCHEMA_VERSION) ";"
	"BEGIN;"
	"CREATE TABLE image(path TEXT NOT NULL, container TEXT NOT NULL, art_version TEXT, art_version_how TEXT,"
	" pointer_size INTEGER, pointer_size_how TEXT, regions INTEGER, captured_bytes INTEGER,"
	" mapped_bytes INTEGER, java_lang_class INTEGER);"
	"CREATE TABLE inputs(id INTEGER PRIMARY KEY, path TEXT NOT NULL, role TEXT NOT NULL, size INTEGER NOT NULL,"
	" sha256 TEXT NOT NULL);"
	"CREATE TABLE runs(id INTEGER PRIMARY KEY, tool TEXT, tool_version TEXT, sqlite_version TEXT,"
	" command_line TEXT, started_utc TEXT, seconds REAL);"
	"CREATE TABLE regions(id INTEGER PRIMARY KEY, va_start INTEGER, va_end INTEGER, perms TEXT, name TEXT,"
	" file_offset INTEGER, captured_bytes INTEGER);"
	"CREATE TABLE spaces(id INTEGER PRIMARY KEY, kind TEXT, name TEXT, va_begin INTEGER, va_end INTEGER,"
	" va_limit INTEGER, how TEXT, detail TEXT, holds_objects INTEGER, allocated INTEGER, free_partial INTEGER,"
	" free_residue INTEGER, empty INTEGER, untyped_residue INTEGER, object_bytes INTEGER);"
	"CREATE TABLE classes(id INTEGER PRIMARY KEY, address INTEGER NOT NULL, name TEXT, name_how TEXT,"
	" super_id INTEGER, component_id INTEGER, kind TEXT, object_size INTEGER, class_size INTEGER,"
	" dex_location TEXT, origin TEXT NOT NULL, origin_why TEXT, fields_how TEXT, statics_how TEXT,"
	" space_id INTEGER, objects INTEGER);"
	"CREATE TABLE fields(class_id INTEGER NOT NULL, is_static INTEGER NOT NULL, idx INTEGER NOT NULL, name TEXT,"
	" type TEXT, java_type TEXT, offset INTEGER, access_flags INTEGER, PRIMARY KEY(class_id, is_static, idx));"
	"CREATE TABLE objects(address INTEGER PRIMARY KEY, class_id INTEGER NOT NULL, size INTEGER NOT NULL,"
	" space_id INTEGER, place TEXT, place_address INTEGER, place_index INTEGER, kind TEXT NOT NULL,"
	" allocation TEXT NOT NULL, content TEXT NOT NULL, reach TEXT NOT NULL, confidence INTEGER NOT NULL,"
	" flags INTEGER NOT NULL, input_id INTEGER, file_offset INTEGER);"
	"CREATE TABLE refs(from_address INTEGER NOT NULL, seq INTEGER NOT NULL, field TEXT, array_index INTEGER,"
	" to_address INTEGER NOT NULL, PRIMARY KEY(from_address, seq)) WITHOUT ROWID;"
	"CREATE TABLE strings(address INTEGER PRIMARY KEY, value TEXT, length INTEGER NOT NULL,"
	" compressed INTEGER NOT NULL, note TEXT, holder TEXT NOT NULL, holder_kind TEXT NOT NULL,"
	" holder_address INTEGER);"
	"CREATE TABLE primitive_arrays(address INTEGER PRIMARY KEY, element_type TEXT, length INTEGER NOT NULL,"
	" bytes BLOB, note TEXT);"
	"CREATE TABLE anomalies(id INTEGER PRIMARY KEY, phase TEXT NOT NULL, code TEXT NOT NULL, cause TEXT,"
	" address INTEGER, space TEXT, message TEXT);"
	"CREATE TABLE anomaly_counts(phase TEXT NOT NULL, code TEXT NOT NULL, total INTEGER NOT NULL,"
	" kept INTEGER NOT NULL, PRIMARY KEY(phase, code));"
	"CREATE TABLE roots(id INTEGER PRIMARY KEY, object INTEGER NOT NULL, source TEXT NOT NULL,"
	" found_at INTEGER, thread INTEGER);"
	"CREATE TABLE root_sources(source TEXT PRIMARY KEY, present INTEGER NOT NULL, roots INTEGER NOT NULL,"
	" words INTEGER NOT NULL, detail TEXT);"
	"CREATE TABLE dex_cache_strings(string INTEGER PRIMARY KEY, dex_cache INTEGER NOT NULL,"
	" string_index INTEGER NOT NULL);"
	"CREATE TABLE unknown_reasons(object INTEGER PRIMARY KEY, reason TEXT NOT NULL);";

/* Indexes after the rows (one sort each instead of a b-tree insert per row), then views.
 * objects_by_class holds the class only: a class's objects are found by it and their states
 * read from the rows; the states as text in the key tripled the index's sort. */
static const char case_db_finish[] =
	"CREATE INDEX objects_by_class ON objects(class_id);"
	"CREATE INDEX strings_by_value ON strings(value);"
	"CREATE INDEX refs_by_target ON refs(to_address);"
	"CREATE INDEX roots_by_object ON roots(object);"
	"CREATE INDEX classes_by_name ON classes(name);"
	"CREATE VIEW objects_named AS SELECT o.address, printf('0x%x', o.address) AS hex, c.name AS class_name,"
	" o.class_id, c.origin, o.size, s.name AS space_name, s.kind AS space_kind, o.place, o.place_address, o.place_index,"
	" o.kind, o.allocation, o.content, o.reach, o.confidence, o.input_id, o.file_offset"
	" FROM objects o JOIN classes c ON c.id = o.class_id LEFT JOIN spaces s ON s.id = o.space_id;"
	"CREATE VIEW dropped_objects AS SELECT * FROM objects_named"
	" WHERE allocation = 'allocated' AND reach = 'unreachable';"
	"CREATE VIEW dropped_strings AS SELECT s.address, printf('0x%x', s.address) AS hex, s.value, s.length,"
	" s.compressed, o.confidence, s.holder, s.holder_kind, s.holder_address,"
	" printf('0x%x', s.holder_address) AS holder_hex FROM strings s JOIN objects o ON o.address = s.address"
	" WHERE o.allocation = 'allocated' AND o.reach = 'unreachable';"
	"CREATE VIEW free_objects AS SELECT * FROM objects_named WHERE allocation = 'free';"
	"CREATE VIEW referrers AS SELECT r.to_address, printf('0x%x', r.to_address) AS to_hex, r.from_address,"
	" printf('0x%x', r.from_address) AS from_hex, c.name AS from_class, r.field, r.array_index,"
	" o.allocation AS from_allocation, o.reach AS from_reach"
	" FROM refs r LEFT JOIN objects o ON o.address = r.from_address LEFT JOIN classes c ON c.id = o.class_id;"
	"CREATE VIEW holders AS SELECT to_address AS address, 'object' AS kind, from_address AS holder,"
	" coalesce(field, '[' || array_index || ']') AS via FROM refs"
	" UNION ALL SELECT object, 'root', found_at, source FROM roots"
	" UNION ALL SELECT string, 'dex cache', dex_cache, 'strings[' || string_index || '] (native array)'"
	" FROM dex_cache_strings"
	" UNION ALL SELECT object, 'unknown', NULL, reason FROM unknown_reasons;";

enum { ST_INPUT, ST_REGION, ST_SPACE, ST_CLASS, ST_ANOMALY, ST_ANOMALY_COUNT, ST_ROOT_SOURCE, ST_COUNT };

static const char *const case_db_inserts[ST_COUNT] = {
	[ST_INPUT] = "INSERT INTO inputs VALUES(?,?,?,?,?)",
	[ST_REGION] = "INSERT INTO regions VALUES(?,?,?,?,?,?,?)",
	[ST_SPACE] = "INSERT INTO spaces VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
	[ST_CLASS] = "INSERT INTO classes VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
	[ST_ANOMALY] = "INSERT INTO anomalies(phase, code, cause, address, space, message) VALUES(?,?,?,?,?,?)",
	[ST_ANOMALY_COUNT] = "INSERT INTO anomaly_counts VALUES(?,?,?,?)",
	[ST_ROOT_SOURCE] = "INSERT INTO root_sources VALUES(?,?,?,?,?)",
};

/* The tables of a row (or more) per object, filled by multi-row statements (sqlitew.h). */
enum { R_FIELD, R_OBJECT, R_REF, R_STRING, R_ARRAY, R_ROOT, R_DEX_CACHE_STRING, R_UNKNOWN, R_COUNT };

static const struct { const char *table; int cols; } case_db_rows[R_COUNT] = {
	[R_FIELD] = { "fields", 8 },
	[R_OBJECT] = { "objects", 15 },
	[R_REF] = { "refs", 5 },
	[R_STRING] = { "strings", 8 },
	[R_ARRAY] = { "primitive_arrays", 5 },
	[R_ROOT] = { "roots(object, source, found_at, thread)", 4 },
	[R_DEX_CACHE_STRING] = { "dex_cache_strings", 3 },
	[R_UNKNOWN] = { "unknown_reasons", 2 },
};

struct case_db_writer {
	struct sqlw *db;
	struct sqlw_stmt *st[ST_COUNT];
	struct sqlw_rows *rows[R_COUNT];
	const struct model *m;
	const struct art_runtime *rt;
	const struct referrers *refs;
	const struct reach *reach;
	struct case_db_stats *stats;
	struct wbuf text;        /* a String's value (copied into its row) */
	struct wbuf holder;      /* what holds it (strings.tsv's words) */
	uint8_t *buf;            /* array bytes that cross regions (copied into its row) */
	size_t buf_cap;
	const struct model_obj *obj;   /* the object whose references are being written */
	uint32_t seq;                  /* and the number of its references written so far */
	struct err *e;
};

/* Rows per multi-row statement (sqlw_rows): measured on realart-full/cc-nodes-nogc-full. */
enum { CASE_DB_BATCH = 32 };

static int64_t i64(uint64_t v) { return (int64_t)v; }   /* SQLite integers are signed 64-bit */

/* 0 ok, else the step's error */
static int put_image(struct case_db_writer *c, struct err *e)
{
	const struct art_runtime *rt = c->rt;
	const struct image *img = rt->img;
	struct sqlw_stmt *s;
	int rc = sqlw_prepare(c->db, "INSERT INTO image VALUES(?,?,?,?,?,?,?,?,?,?)", &s, e);
	if (rc)
		return rc;
	sqlw_bind_str(s, 1, img->path);
	sqlw_bind_str(s, 2, img->container);
	sqlw_bind_str(s, 3, rt->layout ? rt->layout->family : NULL);
	sqlw_bind_str(s, 4, rt->layout_how);
	sqlw_bind_int(s, 5, rt->pointer_size);
	sqlw_bind_str(s, 6, rt->pointer_how);
	sqlw_bind_int(s, 7, i64(img->region_count));
	sqlw_bind_int(s, 8, i64(img_captured_bytes(img)));
	sqlw_bind_int(s, 9, i64(img_mapped_bytes(img)));
	sqlw_bind_int(s, 10, i64(rt->java_lang_class));
	rc = sqlw_step(s, e);
	sqlw_finalize(s);
	return rc;
}

/* Every input file with its size and SHA-256 (read again in blocks: the image maps only
 * what it needs, and the digest is of the file as it is on disk). */
static int put_inputs(struct case_db_writer *c, struct err *e)
{
	const struct image *img = c->rt->img;
	size_t n = img_input_count(img);
	for (size_t i = 0; i < n; i++) {
		const char *path = img_input_path(img, i);
		char hex[SHA256_TEXT];
		uint64_t size;
		int rc = img_input_sha256(img, i, hex, &size, e);
		if (rc)
			return err_prefix(e, "case.db: hashing the input");
		sqlw_bind_int(c->st[ST_INPUT], 1, i64(i + 1));
		sqlw_bind_str(c->st[ST_INPUT], 2, path);
		sqlw_bind_str(c->st[ST_INPUT], 3, img->listing && i + 1 == n ? "maps" : "image");
		sqlw_bind_int(c->st[ST_INPUT], 4, i64(size));
		sqlw_bind_str(c->st[ST_INPUT], 5, hex);
		if ((rc = sqlw_step(c->st[ST_INPUT], e)))
			return rc;
		c->stats->inputs++;
	}
	return 0;
}

static int put_run(struct case_db_writer *c, const struct case_db_run *run, struct err *e)
{
	struct sqlw_stmt *s;
	struct wbuf cmd;
	char when[32] = "";
	time_t t = (time_t)run->started;
	struct tm tm;
	int rc = sqlw_prepare(c->db, "INSERT INTO runs(tool, tool_version, sqlite_version, command_line, started_utc, "
				     "seconds) VALUES('artcarve',?,?,?,?,?)", &s, e);
	if (rc)
		return rc;
	wbuf_init(&cmd);
	for (int i = 0; i < run->argc && run->argv; i++) {
		if (i)
			wbuf_put(&cmd, " ", 1);
		wbuf_put(&cmd, run->argv[i], strlen(run->argv[i]));
	}
	if (gmtime_r(&t, &tm))
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	sqlw_bind_str(s, 1, run->tool_version);
	sqlw_bind_str(s, 2, sqlw_version());
	if (run->argc > 0 && run->argv)
		sqlw_bind_text(s, 3, (const char *)cmd.data, cmd.len);
	else
		sqlw_bind_null(s, 3);
	sqlw_bind_str(s, 4, when[0] ? when : NULL);
	sqlw_bind_double(s, 5, run->seconds);
	rc = wbuf_status(&cmd, e);
	wbuf_release(&cmd);
	if (rc == 0)
		rc = sqlw_step(s, e);
	sqlw_finalize(s);
	return rc;
}

static int put_regions(struct case_db_writer *c, struct err *e)
{
	const struct image *img = c->rt->img;
	struct sqlw_stmt *s = c->st[ST_REGION];
	for (size_t i = 0; i < img->region_count; i++) {
		const struct img_region *r = &img->regions[i];
		char prot[4];
		int rc;
		sqlw_bind_int(s, 1, i64(i));
		sqlw_bind_int(s, 2, i64(r->start));
		sqlw_bind_int(s, 3, i64(r->end));
		sqlw_bind_str(s, 4, img_prot_text(r->prot, prot));
		sqlw_bind_str(s, 5, r->name);
		sqlw_bind_int(s, 6, i64(r->file_offset));
		sqlw_bind_int(s, 7, r->data ? i64(r->data_len) : 0);
		if ((rc = sqlw_step(s, e)))
			return rc;
		c->stats->regions++;
	}
	return 0;
}

static int put_spaces(struct case_db_writer *c, struct err *e)
{
	const struct art_spaces *sp = &c->rt->spaces;
	struct sqlw_stmt *s = c->st[ST_SPACE];
	for (size_t i = 0; i < sp->count; i++) {
		const struct art_space *a = &sp->v[i];
		const struct model_space_count *n = model_space_tally(c->m, i);
		int rc;
		sqlw_bind_int(s, 1, i64(i));
		sqlw_bind_str(s, 2, spaces_kind_name(a->kind));
		sqlw_bind_str(s, 3, a->name);
		sqlw_bind_int(s, 4, i64(a->begin));
		sqlw_bind_int(s, 5, i64(a->end));
		sqlw_bind_int(s, 6, i64(a->limit));
		sqlw_bind_str(s, 7, a->how);
		sqlw_bind_str(s, 8, a->detail);
		sqlw_bind_int(s, 9, spaces_holds_objects(a->kind));
		sqlw_bind_int(s, 10, i64(n->objects[MODEL_ALLOCATED][MODEL_INTACT]));
		sqlw_bind_int(s, 11, i64(n->objects[MODEL_FREE][MODEL_PARTIAL]));
		sqlw_bind_int(s, 12, i64(n->objects[MODEL_FREE][MODEL_RESIDUE]));
		sqlw_bind_int(s, 13, i64(n->empty));
		sqlw_bind_int(s, 14, i64(n->untyped));
		sqlw_bind_int(s, 15, i64(n->bytes));
		if ((rc = sqlw_step(s, e)))
			return rc;
		c->stats->spaces++;
	}
	return 0;
}

static void bind_index(struct sqlw_stmt *s, int i, size_t v)
{
	if (v == RT_NONE)
		sqlw_bind_null(s, i);
	else
		sqlw_bind_int(s, i, i64(v));
}

/* Column i of a row: v, or NULL when v is 0 (no address). */
static void row_int_or_null(struct sqlw_rows *s, int i, uint64_t v)
{
	if (v)
		sqlw_rows_int(s, i, i64(v));
	else
		sqlw_rows_null(s, i);
}

static int put_fields(struct case_db_writer *c, size_t cls, bool is_static, const struct rt_field *f,
		      uint32_t n, struct err *e)
{
	struct sqlw_rows *s = c->rows[R_FIELD];
	for (uint32_t i = 0; i < n; i++) {
		int rc;
		sqlw_rows_int(s, 1, i64(cls));
		sqlw_rows_int(s, 2, is_static);
		sqlw_rows_int(s, 3, i);
		sqlw_rows_const(s, 4, f[i].name);
		sqlw_rows_const(s, 5, f[i].type);
		sqlw_rows_const(s, 6, f[i].java_type);
		if (f[i].offset == RT_OFFSET_UNKNOWN)
			sqlw_rows_null(s, 7);
		else
			sqlw_rows_int(s, 7, f[i].offset);
		sqlw_rows_int(s, 8, f[i].access_flags);
		if ((rc = sqlw_rows_end(s, e)))
			return rc;
		c->stats->fields++;
	}
	return 0;
}

static int put_classes(struct case_db_writer *c, struct err *e)
{
	const struct art_runtime *rt = c->rt;
	struct sqlw_stmt *s = c->st[ST_CLASS];
	for (size_t i = 0; i < rt->class_count; i++) {
		const struct rt_class *k = &rt->classes[i];
		const struct model_class *mc = model_class(c->m, i);
		int rc;
		sqlw_bind_int(s, 1, i64(i));
		sqlw_bind_int(s, 2, i64(k->addr));
		sqlw_bind_str(s, 3, k->name);
		sqlw_bind_str(s, 4, k->name_how);
		bind_index(s, 5, k->super);
		bind_index(s, 6, k->component);
		sqlw_bind_str(s, 7, model_kind_name(mc->kind));
		sqlw_bind_int(s, 8, k->raw.object_size);
		sqlw_bind_int(s, 9, k->raw.class_size);
		sqlw_bind_str(s, 10, runtime_class_dex_location(rt, i));
		sqlw_bind_str(s, 11, runtime_origin_name(runtime_class_origin(rt, i)));
		sqlw_bind_str(s, 12, runtime_class_origin_why(rt, i));
		sqlw_bind_str(s, 13, k->fields_how);
		sqlw_bind_str(s, 14, mc->statics_ok ? mc->statics.how : NULL);
		if (k->space)
			sqlw_bind_int(s, 15, k->space - rt->spaces.v);
		else
			sqlw_bind_null(s, 15);
		sqlw_bind_int(s, 16, i64(mc->objects));
		if ((rc = sqlw_step(s, e)) || (rc = put_fields(c, i, false, k->fields, k->field_count, e)) ||
		    (mc->statics_ok && (rc = put_fields(c, i, true, mc->statics.v, mc->statics.count, e))))
			return rc;
		c->stats->classes++;
	}
	return 0;
}

/* Name of the reference field at offset off of the object (NULL when the layout does not
 * say), or its array index. */
static const char *ref_field(const struct case_db_writer *c, const struct model_obj *o, uint32_t off,
			     int64_t *index)
{
	const struct art_runtime *rt = c->rt;
	*index = -1;
	if (o->kind == MODEL_OBJ_ARRAY) {
		uint64_t data = model_data_addr(c->m, o) - model_va(c->m, o);
		*index = (int64_t)((off - data) / 4);
		return NULL;
	}
	for (size_t k = o->cls, depth = 0; k != RT_NONE && depth < rt->class_count; k = rt->classes[k].super, depth++)
		for (uint32_t f = 0; f < rt->classes[k].field_count; f++)
			if (rt->classes[k].fields[f].offset == off)
				return rt->classes[k].fields[f].name;
	if (o->kind == MODEL_CLASS) {
		const struct rt_class *own = runtime_class_at(rt, model_va(c->m, o));
		const struct rt_statics *st = own ? &model_class(c->m, (size_t)(own - rt->classes))->statics : NULL;
		for (uint32_t f = 0; st && f < st->count; f++)
			if (st->v[f].offset == off)
				return st->v[f].name;
	}
	return NULL;
}

static int put_ref(void *arg, uint32_t off, uint32_t value)
{
	struct case_db_writer *c = arg;
	struct sqlw_rows *s = c->rows[R_REF];
	int64_t index;
	const char *name;
	int rc;

	if (value == 0)
		return 0;
	name = ref_field(c, c->obj, off, &index);
	sqlw_rows_int(s, 1, i64(model_va(c->m, c->obj)));
	sqlw_rows_int(s, 2, c->seq++);
	sqlw_rows_const(s, 3, name);
	if (index >= 0)
		sqlw_rows_int(s, 4, index);
	else
		sqlw_rows_null(s, 4);
	sqlw_rows_int(s, 5, value);
	if ((rc = sqlw_rows_end(s, c->e)))
		return rc;
	c->stats->refs++;
	return 0;
}

/* The String's value; a value that does not read (residue whose characters are gone) is
 * NULL with the reason in `note`.  Its holder in strings.tsv's words (strings_tsv.h), the
 * kind and the holder's address. */
static int put_string(struct case_db_writer *c, size_t i, const struct model_obj *o, struct err *e)
{
	struct sqlw_rows *s = c->rows[R_STRING];
	uint32_t n = model_length(c->m, o);
	struct strings_held held;
	struct err why;
	int rc;

	wbuf_reset(&c->holder);
	strings_tsv_held_by(c->m, c->refs, c->reach, i, &c->holder, &held);
	if ((rc = wbuf_status(&c->holder, e)))
		return rc;

	err_init(&why);
	wbuf_reset(&c->text);
	rc = mirror_string(&c->rt->m, model_va(c->m, o), n, &c->text, &why);
	if (rc == -ERR_NOMEM) {
		*e = why;
		return rc;
	}
	if (rc == 0 && (rc = wbuf_status(&c->text, e)))
		return rc;
	sqlw_rows_int(s, 1, i64(model_va(c->m, o)));
	if (rc == 0)
		sqlw_rows_text_copy(s, 2, (const char *)c->text.data, c->text.len);
	else
		sqlw_rows_null(s, 2);
	sqlw_rows_int(s, 3, n);
	sqlw_rows_int(s, 4, model_string_compressed(c->m, o));
	sqlw_rows_str_copy(s, 5, rc ? why.msg : NULL);
	sqlw_rows_text_copy(s, 6, (const char *)c->holder.data, c->holder.len);
	sqlw_rows_const(s, 7, held.kind);
	if (held.has_address)
		sqlw_rows_int(s, 8, i64(held.address));
	else
		sqlw_rows_null(s, 8);
	if ((rc = sqlw_rows_end(s, e)))
		return rc;
	c->stats->strings++;
	return 0;
}

/* The elements as stored (little-endian), read in place when one region holds them (the
 * image's bytes outlive the row), else copied. */
static int put_array(struct case_db_writer *c, const struct model_obj *o, struct err *e)
{
	struct sqlw_rows *s = c->rows[R_ARRAY];
	const struct model_class *mc = model_class(c->m, o->cls);
	const struct rt_class *k = &c->rt->classes[o->cls];
	uint32_t n = model_length(c->m, o);
	uint64_t bytes = (uint64_t)n * mc->elem_size, data = model_data_addr(c->m, o);
	struct cursor view;
	struct err why;
	const uint8_t *p = NULL;
	int rc;

	err_init(&why);
	if (bytes > SIZE_MAX)
		return ERR_SET(e, ERR_CORRUPT, model_va(c->m, o), "array of %llu bytes", (unsigned long long)bytes);
	if (img_view(c->rt->img, data, (size_t)bytes, &view, &why) == 0) {
		p = cur_ptr(&view);
	} else {
		if (bytes > c->buf_cap) {
			uint8_t *nb = xrealloc(c->buf, (size_t)bytes);
			if (!nb)
				return ERR_SET(e, ERR_NOMEM, model_va(c->m, o), "out of memory for an array of %llu bytes",
					       (unsigned long long)bytes);
			c->buf = nb;
			c->buf_cap = (size_t)bytes;
		}
		err_init(&why);
		if (img_read(c->rt->img, data, c->buf, (size_t)bytes, &why) == 0)
			p = c->buf;
	}
	sqlw_rows_int(s, 1, i64(model_va(c->m, o)));
	sqlw_rows_const(s, 2, k->component != RT_NONE ? c->rt->classes[k->component].name : NULL);
	sqlw_rows_int(s, 3, n);
	if (p == c->buf && p)
		sqlw_rows_blob_copy(s, 4, p, (size_t)bytes);
	else if (p || bytes == 0)
		sqlw_rows_blob_const(s, 4, p, (size_t)bytes);
	else
		sqlw_rows_null(s, 4);
	sqlw_rows_str_copy(s, 5, p || bytes == 0 ? NULL : why.msg);
	if ((rc = sqlw_rows_end(s, e)))
		return rc;
	c->stats->prim_arrays++;
	return 0;
}

/* Columns 14 and 15 of an object: the input file (inputs.id) and offset where its first
 * byte lies, for a hex editor; NULL when it is not in a file. */
static void bind_file_position(struct case_db_writer *c, struct sqlw_rows *s, uint64_t va)
{
	size_t input;
	uint64_t offset;
	if (img_file_position(c->rt->img, va, &input, &offset)) {
		sqlw_rows_int(s, 14, i64(input + 1));
		sqlw_rows_int(s, 15, i64(offset));
	} else {
		sqlw_rows_null(s, 14);
		sqlw_rows_null(s, 15);
	}
}

static int put_objects(struct case_db_writer *c, struct err *e)
{
	const struct model *m = c->m;
	struct sqlw_rows *s = c->rows[R_OBJECT];
	uint64_t done = 0;
	c->e = e;
	for (size_t i = 0; i < model_count(m); i++) {
		const struct model_obj *o = model_obj(m, i);
		int rc;
		progress_to(model_progress(m), done += o->size);   /* the long part of case.db: its percent */
		sqlw_rows_int(s, 1, i64(model_va(m, o)));
		sqlw_rows_int(s, 2, o->cls);
		sqlw_rows_int(s, 3, o->size);
		sqlw_rows_int(s, 4, o->space);
		sqlw_rows_const(s, 5, walk_place_name((enum walk_place)o->place));
		sqlw_rows_int(s, 6, i64(model_addr_va(m, o->where)));
		sqlw_rows_int(s, 7, o->index);
		sqlw_rows_const(s, 8, model_kind_name(o->kind));
		sqlw_rows_const(s, 9, model_alloc_name(o->alloc));
		sqlw_rows_const(s, 10, model_content_name(o->content));
		sqlw_rows_const(s, 11, model_reach_name(o->reach));
		sqlw_rows_int(s, 12, o->confidence);
		sqlw_rows_int(s, 13, o->flags);
		bind_file_position(c, s, model_va(m, o));
		if ((rc = sqlw_rows_end(s, e)))
			return rc;
		c->stats->objects++;
		c->obj = o;
		c->seq = 0;
		if ((rc = model_each_ref(m, o, put_ref, c, e)))
			return rc;
		if (o->kind == MODEL_STRING || (model_jls(m) != MODEL_NONE && o->cls == model_jls(m)))
			rc = put_string(c, i, o, e);
		else if (o->kind == MODEL_PRIM_ARRAY)
			rc = put_array(c, o, e);
		if (rc)
			return rc;
	}
	return 0;
}

static int put_roots(struct case_db_writer *c, const struct reach *r, struct err *e)
{
	struct sqlw_rows *s = c->rows[R_ROOT];
	struct sqlw_stmt *q = c->st[ST_ROOT_SOURCE];
	int rc;
	for (size_t i = 0; i < r->count; i++) {
		const struct reach_root *x = &r->roots[i];
		sqlw_rows_int(s, 1, x->obj);
		sqlw_rows_const(s, 2, reach_source_name(x->source));
		row_int_or_null(s, 3, x->ref);
		row_int_or_null(s, 4, x->thread);
		if ((rc = sqlw_rows_end(s, e)))
			return rc;
		c->stats->roots++;
	}
	for (unsigned i = 0; i < REACH_SOURCE_COUNT; i++) {
		sqlw_bind_str(q, 1, reach_source_name(i));
		sqlw_bind_int(q, 2, r->source[i].present);
		sqlw_bind_int(q, 3, i64(r->source[i].roots));
		sqlw_bind_int(q, 4, i64(r->source[i].words));
		sqlw_bind_str(q, 5, r->source[i].detail);
		if ((rc = sqlw_step(q, e)))
			return rc;
	}
	return 0;
}

/* What holds an object beyond heap references: the strings the DexCaches' native arrays hold
 * (the first DexCache of each), and why an object's reachability is unknown. */
static int put_holders(struct case_db_writer *c, const struct reach *r, struct err *e)
{
	struct sqlw_rows *s = c->rows[R_DEX_CACHE_STRING], *q = c->rows[R_UNKNOWN];
	int rc;
	for (size_t i = 0; i < r->dex_cache_edge_count; i++) {
		const struct reach_dex_cache_edge *x = &r->dex_cache_edges[i];
		sqlw_rows_int(s, 1, i64(model_va(c->m, model_obj(c->m, x->str))));
		sqlw_rows_int(s, 2, i64(model_va(c->m, model_obj(c->m, x->cache))));
		sqlw_rows_int(s, 3, x->index);
		if ((rc = sqlw_rows_end(s, e)))
			return rc;
	}
	for (size_t i = 0; r->doubt && i < model_count(c->m); i++) {
		if (r->doubt[i] == REACH_DOUBT_NONE || model_obj(c->m, i)->reach != MODEL_REACH_UNKNOWN)
			continue;
		sqlw_rows_int(q, 1, i64(model_va(c->m, model_obj(c->m, i))));
		sqlw_rows_const(q, 2, reach_doubt_name(r->doubt[i]));
		if ((rc = sqlw_rows_end(q, e)))
			return rc;
	}
	return 0;
}

/* The records a sink kept, and its counts per code (all, kept or not). */
static int put_anomalies(struct case_db_writer *c, const char *phase, const struct anomaly_sink *sink,
			 struct err *e)
{
	struct sqlw_stmt *s = c->st[ST_ANOMALY], *q = c->st[ST_ANOMALY_COUNT];
	uint64_t kept[ANOM_CODE_COUNT] = { 0 };
	int rc;
	for (size_t i = 0; i < sink->count; i++) {
		const struct anomaly *a = &sink->v[i];
		if ((unsigned)a->code < ANOM_CODE_COUNT)
			kept[a->code]++;
		sqlw_bind_str(s, 1, phase);
		sqlw_bind_str(s, 2, anomaly_code_name(a->code));
		sqlw_bind_str(s, 3, err_code_name(a->cause));
		if (a->va == ERR_NO_VA)
			sqlw_bind_null(s, 4);
		else
			sqlw_bind_int(s, 4, i64(a->va));
		sqlw_bind_str(s, 5, a->space);
		sqlw_bind_str(s, 6, a->msg);
		if ((rc = sqlw_step(s, e)))
			return rc;
		c->stats->anomalies++;
	}
	for (unsigned k = 0; k < ANOM_CODE_COUNT; k++) {
		if (!sink->per_code[k])
			continue;
		sqlw_bind_str(q, 1, phase);
		sqlw_bind_str(q, 2, anomaly_code_name((enum anomaly_code)k));
		sqlw_bind_int(q, 3, i64(sink->per_code[k]));
		sqlw_bind_int(q, 4, i64(kept[k]));
		if ((rc = sqlw_step(q, e)))
			return rc;
	}
	return 0;
}

/* Objects above 4 GiB (the mark-compact from-space of a 64-bit process) have a heap.hprof id
 * that is not their address (rosalloc/model/model.h): the table hprof_ids, made only then,
 * gives it, so that an object seen in MAT is found here. */
static int put_hprof_ids(struct case_db_writer *c, struct err *e)
{
	const struct model *m = c->m;
	struct sqlw_stmt *s = NULL;
	int rc = 0;
	if (!model_has_alias(m))
		return 0;   /* no window was made (alias_lo is the lowest one's start) */
	if ((rc = sqlw_exec(c->db, "CREATE TABLE hprof_ids(address INTEGER PRIMARY KEY, hprof_id INTEGER NOT NULL);",
			    e)) ||
	    (rc = sqlw_prepare(c->db, "INSERT INTO hprof_ids VALUES(?,?)", &s, e)))
		return rc;
	for (size_t i = 0; rc == 0 && i < model_count(m); i++) {
		const struct model_obj *o = model_obj(m, i);
		if (!model_in_alias(m, o->addr))
			continue;
		sqlw_bind_int(s, 1, i64(model_va(m, o)));
		sqlw_bind_int(s, 2, o->addr);
		rc = sqlw_step(s, e);
	}
	sqlw_finalize(s);
	return rc;
}

static void release_statements(struct case_db_writer *c)
{
	for (int i = 0; i < ST_COUNT; i++) {
		sqlw_finalize(c->st[i]);
		c->st[i] = NULL;
	}
	for (int i = 0; i < R_COUNT; i++) {
		sqlw_rows_close(c->rows[i]);
		c->rows[i] = NULL;
	}
}

static int write_all(struct case_db_writer *c, const struct reach *r, const struct case_db_run *run,
		     struct err *e)
{
	int rc;
	if ((rc = sqlw_exec(c->db, case_db_schema, e)))
		return rc;
	for (int i = 0; i < ST_COUNT; i++)
		if ((rc = sqlw_prepare(c->db, case_db_inserts[i], &c->st[i], e)))
			return rc;
	for (int i = 0; i < R_COUNT; i++)
		if ((rc = sqlw_rows_open(c->db, case_db_rows[i].table, case_db_rows[i].cols, CASE_DB_BATCH, &c->rows[i], e)))
			return rc;
	if ((rc = put_image(c, e)) || (rc = put_inputs(c, e)) || (rc = put_run(c, run, e)) ||
	    (rc = put_regions(c, e)) || (rc = put_spaces(c, e)) || (rc = put_classes(c, e)) ||
	    (rc = put_objects(c, e)) || (rc = put_hprof_ids(c, e)) || (rc = put_roots(c, r, e)) ||
	    (rc = put_holders(c, r, e)) || (rc = case_db_fields_write(c->db, c->m, &c->stats->decoded, e)) ||
	    (rc = put_anomalies(c, "runtime", &c->rt->anomalies, e)) ||
	    (rc = put_anomalies(c, "carving", model_sink(c->m), e)))
		return rc;
	for (int i = 0; i < R_COUNT; i++)
		if ((rc = sqlw_rows_flush(c->rows[i], e)))
			return rc;
	release_statements(c);
	if ((rc = sqlw_exec(c->db, case_db_finish, e)) || (rc = sqlw_exec(c->db, case_db_fields_views, e)))
		return rc;
	return sqlw_exec(c->db, "COMMIT;", e);
}

int case_db_write(const char *path, const struct model *m, const struct reach *r, const struct referrers *refs,
		  const struct case_db_run *run, struct case_db_stats *st, struct err *e)
{
	struct case_db_writer c;
	int rc;

	memset(&c, 0, sizeof(c));
	memset(st, 0, sizeof(*st));
	c.m = m;
	c.rt = model_runtime(m);
	c.refs = refs;
	c.reach = r;
	c.stats = st;
	wbuf_init(&c.text);
	wbuf_init(&c.holder);
	if ((rc = sqlw_open(&c.db, path, e)) == 0)
		rc = write_all(&c, r, run, e);
	release_statements(&c);
	if (rc)
		sqlw_abandon(c.db);
	else
		rc = sqlw_close(c.db, e);
	wbuf_release(&c.text);
	wbuf_release(&c.holder);
	xfree(c.buf);
	return rc ? err_prefix(e, "%s", path) : 0;
}
