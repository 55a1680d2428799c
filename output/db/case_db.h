/* case_db.h - case.db: a carved heap (rosalloc/model) as a SQLite case database that an
 * investigator queries with the sqlite3 shell (schema, views and example queries: README.md,
 * "Case database").
 *
 * Identified by PRAGMA application_id = CASE_DB_APPLICATION_ID (0x61727463, "artc" in ASCII)
 * and PRAGMA user_version = CASE_DB_SCHEMA_VERSION (raised on every schema change).  Written
 * with the journal off in one transaction (the file is a temporary until the caller renames
 * it, so a crash leaves no case.db); rows are inserted through prepared statements reused per
 * row, with bound parameters only (names and strings come from the image), streamed from the
 * model, so memory does not grow with the heap beyond SQLite's bounded page cache.  The same
 * model gives the same rows in the same order; only the `runs` row (tool version, command
 * line, time) differs from run to run. */
#ifndef ARTCARVE_CASE_DB_H
#define ARTCARVE_CASE_DB_H

#include <stdint.h>

#include "carver/base/err.h"
#include "rosalloc/model/model.h"
#include "rosalloc/model/reach.h"
#include "output/db/case_db_fields.h"
#include "rosalloc/model/referrers.h"

#define CASE_DB_APPLICATION_ID 0x61727463   /* "artc" */
#define CASE_DB_SCHEMA_VERSION 5

/* The `runs` row: what ran, when, how long. */
struct case_db_run {
	const char *tool_version;   /* "0.1.0" */
	int argc;                   /* the command line, 0 / NULL if unknown */
	char *const *argv;
	int64_t started;            /* UNIX time the analysis began */
	double seconds;             /* wall-clock seconds the analysis took before the database */
};

struct case_db_stats {
	uint64_t inputs, regions, spaces, classes, fields, objects, refs, strings, prim_arrays, roots, anomalies;
	struct case_db_fields_stats decoded;   /* field_values, containers, entries rows */
};

/* Writes the database of m (after model_finish and reach_run; the image is its runtime's) to
 * path, a new or empty file; refs is m's referrer index (the Strings' holders).  Input files are hashed (SHA-256) as they are recorded.  Returns
 * 0, -ERR_DB (SQLite), -ERR_IO (an input file does not read) or -ERR_NOMEM; on error the
 * file is left for the caller to remove. */
int case_db_write(const char *path, const struct model *m, const struct reach *r, const struct referrers *refs,
		  const struct case_db_run *run, struct case_db_stats *st, struct err *e);

#endif
