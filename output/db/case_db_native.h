/* case_db_native.h - the native heap tables of case.db (`carve --native`): the malloc_debug
 * allocations carver/native/mdebug.h found, their damaged bytes and backtrace frames, added
 * to a database case_db_write made, in one transaction of their own.
 *
 *   native_scan(bits, options, options_from, regions_by, regions_scanned, bytes_scanned,
 *               allocations, live, freed, tag_corrupted)            one row
 *   native_allocations(pointer PRIMARY KEY, header, orig_pointer, state, size, usable_size,
 *               tag, zygote, cut, region, front_guard_damaged, rear_guard_damaged,
 *               use_after_free_bytes, fill_alloc_bytes, fill_free_bytes, first_bytes BLOB)
 *   native_damage(pointer, kind, offset, found, expected)     offset from the pointer
 *   native_frames(pointer, idx, pc, lib, lib_offset, symbol, symbol_offset)
 *   native_totals(kind, usable_size, first_pointer, frames, live, live_bytes,
 *               live_usable_bytes, freed, freed_bytes, freed_usable_bytes, tag_corrupted)
 *               the totals of carver/native/mdebug_totals.h: one row kind 'all', one per
 *               size class ('size_class', usable_size), one per backtrace ('backtrace':
 *               first_pointer, whose native_frames rows are the backtrace, and frames)
 *   view native_named: allocations with hex addresses and their first frame's text.
 * Strings (mapping names, library paths, symbol names) come from the input: bound, never
 * spliced into SQL. */
#ifndef ARTCARVE_CASE_DB_NATIVE_H
#define ARTCARVE_CASE_DB_NATIVE_H

#include "carver/base/err.h"
#include "carver/image/symbolize.h"
#include "carver/native/mdebug.h"

/* Adds the tables to the database at path.  Returns 0, -ERR_DB or -ERR_NOMEM. */
int case_db_add_native(const char *path, const struct mdebug_result *res, struct symz *sz, struct err *e);

#endif
