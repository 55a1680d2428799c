/* probe.h - content probes over the allocators' own metadata: the RosAlloc page map and
 * run headers, a dlmalloc mspace header, the free-list large object space's
 * allocation-info map.  Each reads only the bytes it is given and answers "looks like
 * one" or "not this" (no error: a failed probe is the normal answer for most mappings).
 *
 * Why a table of function pointers: art/runtime/spaces.c finds the heap spaces of an
 * image and needs these probes when the mapping names are missing, but art/ sits below
 * rosalloc/ and may not call it.  So spaces.h declares the interface (struct
 * space_probes), this folder implements it (probe_spaces), and the callers above both
 * (carver/cli, the tests) hand probe_spaces down through spaces_find / runtime_opts. */
#ifndef ARTCARVE_ROSALLOC_PROBE_H
#define ARTCARVE_ROSALLOC_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "art/runtime/spaces.h"

/* The probes below as the space finder's interface. */
extern const struct space_probes probe_spaces;

/* A RosAlloc page map of n bytes: every byte a PageMapKind (0..5), every run part after
 * a run or run part, every large-object part after a large object or part; *used_pages
 * = index after the last non-free byte. */
bool probe_page_map(const uint8_t *p, size_t n, size_t *used_pages);
/* probe_page_map for a mapping named as a page map: the bytes that break those rules may all
 * lie in one aligned 4-byte word (one damaged word), and a part byte just after that word
 * may follow it. */
bool probe_page_map_one_word(const uint8_t *p, size_t n, size_t *used_pages);
/* What the page-map byte v says of its page: the first page of a run, of a large
 * object, or neither. */
enum space_page_start probe_page_start(uint8_t v);
/* A RosAlloc run header in the first n bytes of a page: magic (0 in release builds, 42
 * in debug builds), a size bracket index in range, two boolean flags. */
bool probe_run_header(const uint8_t *p, size_t n);
/* A dlmalloc mspace at base: malloc_state.least_addr == base and top inside
 * [base, base+n).  pointer_size 4 or 8; any other value tries both. */
bool probe_dlmalloc(const uint8_t *p, size_t n, uint64_t base, unsigned pointer_size);
/* A LOS allocation-info map of n bytes describing a space of space_pages pages: the
 * {prev_free, alloc_size|flags} chain from entry 0 steps exactly onto space_pages. */
bool probe_los_info(const uint8_t *p, size_t n, size_t space_pages);

#endif
