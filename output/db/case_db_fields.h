/* case_db_fields.h - case.db's decoded values (README.md, "case.db"): the tables field_names
 * (each field name and declared type once) and object_fields (every instance's fields as one
 * JSON array: kind and an integer, real, text or reference value, an inferred UTC time),
 * containers and entries (the JDK and Android containers and object arrays, read by
 * output/decode/decode.h), and the views over them (field_values: one row per field,
 * fields_named, app_dropped, app_dropped_fields, entries_named).  case_db.c calls it inside
 * its transaction, after the objects, with its own connection. */
#ifndef ARTCARVE_CASE_DB_FIELDS_H
#define ARTCARVE_CASE_DB_FIELDS_H

#include <stdint.h>

#include "carver/base/err.h"
#include "carver/wrap/sqlitew.h"
#include "rosalloc/model/model.h"

struct case_db_fields_stats {
	uint64_t fields, containers, entries;
};

/* The views, created after case_db.c's own (they use objects_named and dropped_objects). */
extern const char case_db_fields_views[];

/* Creates the tables and writes the rows of every object of m.  Returns 0, -ERR_DB or
 * -ERR_NOMEM. */
int case_db_fields_write(struct sqlw *db, const struct model *m, struct case_db_fields_stats *st, struct err *e);

#endif
