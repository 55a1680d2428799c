/* case_db_native.c - see case_db_native.h.  Uses SQLite only through carver/wrap/sqlitew.h. */
#include "output/db/case_db_native.h"

#include <stdio.h>

#include "carver/native/mdebug_totals.h"
#include "carver/wrap/sqlitew.h"

static const char native_schema[] =
	"BEGIN;"
	"CREATE TABLE native_scan(bits INTEGER, options TEXT, options_from TEXT, regions_by TEXT,"
	" regions_scanned INTEGER, bytes_scanned INTEGER, allocations INTEGER, live INTEGER, freed INTEGER,"
	" tag_corrupted INTEGER);"
	"CREATE TABLE native_allocations(pointer INTEGER PRIMARY KEY, header INTEGER NOT NULL, orig_pointer INTEGER,"
	" state TEXT NOT NULL, size INTEGER NOT NULL, usable_size INTEGER, tag INTEGER, zygote INTEGER, cut INTEGER,"
	" region TEXT, front_guard_damaged INTEGER, rear_guard_damaged INTEGER, use_after_free_bytes INTEGER,"
	" fill_alloc_bytes INTEGER, fill_free_bytes INTEGER, first_bytes BLOB);"
	"CREATE TABLE native_damage(pointer INTEGER NOT NULL, kind TEXT NOT NULL, offset INTEGER NOT NULL,"
	" found INTEGER NOT NULL, expected INTEGER NOT NULL);"
	"CREATE TABLE native_frames(pointer INTEGER NOT NULL, idx INTEGER NOT NULL, pc INTEGER NOT NULL, lib TEXT,"
	" lib_offset INTEGER, symbol TEXT, symbol_offset INTEGER, PRIMARY KEY(pointer, idx));"
	"CREATE TABLE native_totals(kind TEXT NOT NULL, usable_size INTEGER, first_pointer INTEGER, frames INTEGER,"
	" live INTEGER NOT NULL, live_bytes INTEGER NOT NULL, live_usable_bytes INTEGER NOT NULL, freed INTEGER NOT NULL,"
	" freed_bytes INTEGER NOT NULL, freed_usable_bytes INTEGER NOT NULL, tag_corrupted INTEGER NOT NULL);";

static const char native_finish[] =
	"CREATE INDEX native_damage_by_pointer ON native_damage(pointer);"
	"CREATE VIEW native_named AS SELECT printf('0x%x', a.pointer) AS hex, a.state, a.size, a.usable_size,"
	" a.front_guard_damaged, a.rear_guard_damaged, a.use_after_free_bytes, a.region,"
	" (SELECT coalesce(f.lib, '?') || '+' || printf('0x%x', f.lib_offset) ||"
	" coalesce(' (' || f.symbol || '+' || printf('0x%x', f.symbol_offset) || ')', '')"
	" FROM native_frames f WHERE f.pointer = a.pointer AND f.idx = 0) AS frame0"
	" FROM native_allocations a;"
	"COMMIT;";

enum { NS_SCAN, NS_ALLOC, NS_DAMAGE, NS_FRAME, NS_TOTAL, NS_COUNT };
static const char *const native_inserts[NS_COUNT] = {
	[NS_SCAN] = "INSERT INTO native_scan VALUES(?,?,?,?,?,?,?,?,?,?)",
	[NS_ALLOC] = "INSERT INTO native_allocations VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
	[NS_DAMAGE] = "INSERT INTO native_damage VALUES(?,?,?,?,?)",
	[NS_FRAME] = "INSERT INTO native_frames VALUES(?,?,?,?,?,?,?)",
	[NS_TOTAL] = "INSERT INTO native_totals VALUES(?,?,?,?,?,?,?,?,?,?,?)",
};

static int64_t i64(uint64_t v) { return (int64_t)v; }   /* SQLite integers are signed 64-bit */

static int native_scan_row(struct sqlw_stmt *st, const struct mdebug_result *res, struct err *e)
{
	char opts[160];

	mdebug_options_text(&res->options, opts, sizeof(opts));
	sqlw_bind_int(st, 1, res->bits);
	sqlw_bind_str(st, 2, opts);
	sqlw_bind_const(st, 3, res->options_given ? "given" : "inferred");
	sqlw_bind_const(st, 4, res->names_used ? "name" : "writable anonymous");
	sqlw_bind_int(st, 5, i64(res->regions_scanned));
	sqlw_bind_int(st, 6, i64(res->bytes_scanned));
	sqlw_bind_int(st, 7, i64(res->count));
	sqlw_bind_int(st, 8, i64(res->live));
	sqlw_bind_int(st, 9, i64(res->freed));
	sqlw_bind_int(st, 10, i64(res->corrupt));
	return sqlw_step(st, e);
}

static int native_alloc_rows(struct sqlw_stmt **st, const struct mdebug_result *res, const struct mdebug_alloc *a,
			     struct symz *sz, struct err *e)
{
	int rc;

	sqlw_bind_int(st[NS_ALLOC], 1, i64(a->pointer));
	sqlw_bind_int(st[NS_ALLOC], 2, i64(a->header));
	sqlw_bind_int(st[NS_ALLOC], 3, i64(a->orig_pointer));
	sqlw_bind_const(st[NS_ALLOC], 4, mdebug_state_name(a->state));
	sqlw_bind_int(st[NS_ALLOC], 5, i64(a->size));
	sqlw_bind_int(st[NS_ALLOC], 6, i64(a->usable_size));
	sqlw_bind_int(st[NS_ALLOC], 7, a->tag);
	sqlw_bind_int(st[NS_ALLOC], 8, a->zygote);
	sqlw_bind_int(st[NS_ALLOC], 9, a->cut);
	sqlw_bind_str(st[NS_ALLOC], 10, a->region);
	sqlw_bind_int(st[NS_ALLOC], 11, a->front_damaged);
	sqlw_bind_int(st[NS_ALLOC], 12, a->rear_damaged);
	sqlw_bind_int(st[NS_ALLOC], 13, a->uaf_bytes);
	sqlw_bind_int(st[NS_ALLOC], 14, i64(a->fill_alloc_left));
	sqlw_bind_int(st[NS_ALLOC], 15, i64(a->fill_free_left));
	sqlw_bind_blob(st[NS_ALLOC], 16, a->first, a->first_len);
	if ((rc = sqlw_step(st[NS_ALLOC], e)))
		return rc;
	for (size_t i = 0; i < a->damage_count; i++) {
		const struct mdebug_damage *d = &res->damage[a->damage_first + i];
		sqlw_bind_int(st[NS_DAMAGE], 1, i64(a->pointer));
		sqlw_bind_const(st[NS_DAMAGE], 2, mdebug_damage_name(d->kind));
		sqlw_bind_int(st[NS_DAMAGE], 3, d->offset);
		sqlw_bind_int(st[NS_DAMAGE], 4, d->found);
		sqlw_bind_int(st[NS_DAMAGE], 5, d->expected);
		if ((rc = sqlw_step(st[NS_DAMAGE], e)))
			return rc;
	}
	for (size_t i = 0; i < a->frame_count; i++) {
		struct symz_frame f;
		if ((rc = symz_lookup(sz, res->frames[a->frame_first + i], &f, e)))
			return rc;
		sqlw_bind_int(st[NS_FRAME], 1, i64(a->pointer));
		sqlw_bind_int(st[NS_FRAME], 2, (int64_t)i);
		sqlw_bind_int(st[NS_FRAME], 3, i64(f.pc));
		sqlw_bind_str(st[NS_FRAME], 4, f.lib);
		if (f.placed)
			sqlw_bind_int(st[NS_FRAME], 5, i64(f.lib_offset));
		else
			sqlw_bind_null(st[NS_FRAME], 5);
		sqlw_bind_str(st[NS_FRAME], 6, f.symbol);
		if (f.symbol)
			sqlw_bind_int(st[NS_FRAME], 7, i64(f.symbol_offset));
		else
			sqlw_bind_null(st[NS_FRAME], 7);
		if ((rc = sqlw_step(st[NS_FRAME], e)))
			return rc;
	}
	return 0;
}

/* One native_totals row: kind 'all', 'size_class' (usable_size) or 'backtrace' (first_pointer,
 * frames: the allocation whose native_frames are the backtrace) */
static int native_total_row(struct sqlw_stmt *st, const char *kind, const struct mdebug_total *t,
			    const uint64_t *usable, const uint64_t *first, const size_t *frames, struct err *e)
{
	const uint64_t v[7] = { t->live, t->live_bytes, t->live_usable, t->freed, t->freed_bytes, t->freed_usable,
				t->corrupt };
	sqlw_bind_const(st, 1, kind);
	if (usable)
		sqlw_bind_int(st, 2, i64(*usable));
	else
		sqlw_bind_null(st, 2);
	if (first) {
		sqlw_bind_int(st, 3, i64(*first));
		sqlw_bind_int(st, 4, i64(*frames));
	} else {
		sqlw_bind_null(st, 3);
		sqlw_bind_null(st, 4);
	}
	for (int i = 0; i < 7; i++)
		sqlw_bind_int(st, 5 + i, i64(v[i]));
	return sqlw_step(st, e);
}

static int native_total_rows(struct sqlw_stmt *st, const struct mdebug_result *res, struct err *e)
{
	struct mdebug_totals t;
	int rc = mdebug_totals_make(res, &t, e);
	if (rc == 0)
		rc = native_total_row(st, "all", &t.all, NULL, NULL, NULL, e);
	for (size_t i = 0; rc == 0 && i < t.class_count; i++)
		rc = native_total_row(st, "size_class", &t.classes[i].t, &t.classes[i].usable_size, NULL, NULL, e);
	for (size_t i = 0; rc == 0 && i < t.backtrace_count; i++)
		rc = native_total_row(st, "backtrace", &t.backtraces[i].t, NULL, &res->allocs[t.backtraces[i].first].pointer,
				      &t.backtraces[i].frame_count, e);
	mdebug_totals_release(&t);
	return rc;
}

static int native_write(struct sqlw *db, struct sqlw_stmt **st, const struct mdebug_result *res, struct symz *sz,
			struct err *e)
{
	int rc;

	if ((rc = sqlw_exec(db, native_schema, e)))
		return rc;
	for (int i = 0; i < NS_COUNT; i++)
		if ((rc = sqlw_prepare(db, native_inserts[i], &st[i], e)))
			return rc;
	if ((rc = native_scan_row(st[NS_SCAN], res, e)))
		return rc;
	for (size_t i = 0; i < res->count; i++)
		if ((rc = native_alloc_rows(st, res, &res->allocs[i], sz, e)))
			return rc;
	if ((rc = native_total_rows(st[NS_TOTAL], res, e)))
		return rc;
	for (int i = 0; i < NS_COUNT; i++) {
		sqlw_finalize(st[i]);
		st[i] = NULL;
	}
	return sqlw_exec(db, native_finish, e);
}

int case_db_add_native(const char *path, const struct mdebug_result *res, struct symz *sz, struct err *e)
{
	struct sqlw *db = NULL;
	struct sqlw_stmt *st[NS_COUNT] = { NULL };
	int rc;

	if ((rc = sqlw_open(&db, path, e)) == 0)
		rc = native_write(db, st, res, sz, e);
	for (int i = 0; i < NS_COUNT; i++)
		sqlw_finalize(st[i]);
	if (rc && db)
		sqlw_abandon(db);
	else if (db)
		rc = sqlw_close(db, e);
	return rc ? err_prefix(e, "%s: native tables", path) : 0;
}
