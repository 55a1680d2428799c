/* report_units.h - the allocation units of the space walkers (rosalloc/walk/walk.h: RosAlloc
 * runs, page-level allocations and free page stretches, regions, dlmalloc chunk spans,
 * large-object blocks, contiguous walks), recorded during carve's one walk so the heap map
 * of report.html draws the heap run by run and region by region without walking again.
 * Records are compact (what the map shows), one per unit, in the order the walk gives them. */
#ifndef ARTCARVE_REPORT_UNITS_H
#define ARTCARVE_REPORT_UNITS_H

#include <stddef.h>
#include <stdint.h>

#include "carver/base/err.h"
#include "rosalloc/walk/walk.h"

struct report_unit {
	uint64_t begin, end;
	const struct art_space *space;
	uint32_t allocated, free;     /* candidates by state the walker counted (saturated) */
	uint32_t damaged;             /* anomalies the walker recorded for the unit (saturated) */
	uint32_t slot_size;           /* RosAlloc runs: bytes per slot, else 0 */
	uint8_t kind;                 /* enum walk_unit_kind */
	uint8_t state;                /* enum walk_region_state (regions) */
	int8_t bracket;               /* RosAlloc runs: size bracket, -1 otherwise */
	uint8_t thread_local;         /* RosAlloc runs: thread-local */
};

struct report_units {
	struct report_unit *v;
	size_t count, cap;
};

void report_units_init(struct report_units *u);
void report_units_release(struct report_units *u);
/* A walk_unit_fn (arg is the struct report_units): appends one record.  Returns 0 or
 * -ERR_NOMEM. */
int report_units_add(void *arg, const struct walk_unit *wu, struct err *e);

#endif
