/* find_scan.h - indicators in a carved heap: the matchers of find_match.h over every String,
 * char[] and byte[] of the model and over residue, and the values of fields whose names mark
 * secrets.  One pass over the objects in address order (the image's pages released behind
 * it); the result is a list the outputs write (case.db `indicators`, the feature files of
 * DIR/indicators/, the carve summary).
 *
 * What is scanned, each as a narrow text of one byte per character (characters above ASCII
 * become a byte no matcher accepts, so a match is ASCII and its offset exact):
 *   string    a String's characters as stored: 8-bit (compressed) or UTF-16 (5.x Strings keep
 *             them in a char[], scanned as that char[]);
 *   chars     a char[]'s UTF-16 units;
 *   bytes     a byte[] twice: as 8-bit text (ASCII, UTF-8, Latin-1) and as UTF-16LE units at
 *             even offsets;
 *   residue   the bytes of every free object that is not a String or an array (a freed
 *             instance keeps its old field values), past its class word, both ways as a byte[];
 *   place     the bytes of every residue place (rosalloc/model/model.h struct model_residue:
 *             a free slot or chunk whose class word is gone but whose other bytes survive),
 *             past the allocator's links, both ways as a byte[]: no object, so the hit is the
 *             place's (its address and space), state "residue", no class and no holder.
 * At most FIND_SCAN_MAX bytes of one object or place are scanned.
 *   secret    every instance field whose name marks a secret (find_secret_name), declared by a
 *             class outside the platform's own packages (java., javax., sun., jdk., libcore.,
 *             dalvik., kotlin., kotlinx., android.util., android.icu., com.android.org.:
 *             their `key` fields are map keys, not credentials), that is not null or zero: a
 *             String's text (up to 256 characters), a char[] as text, a byte[] as lower-case
 *             hex (up to 64 bytes), a primitive as its value (decimal; boolean true/false);
 *             attributed to the String or array (its field is the holder's) or, for a
 *             primitive, to the holder at the field's offset.  The same for every static
 *             field so named of such a class (art/runtime/statics.h: its value in the Class
 *             object), the field written "static CLASS.FIELD".
 * Each hit: kind, value, the object (index, real address), its class, state, the offset of the
 * match in the object, and the holder's field: "CLASS.FIELD" of the first object that
 * references it (rosalloc/model/referrers.h; "CLASS[INDEX]" for an array element), empty when
 * no object does.  States: live (allocated, reachable), dropped (allocated, unreachable),
 * unknown (allocated, reachability unknown), free, residue (a residue place). */
#ifndef ARTCARVE_FIND_SCAN_H
#define ARTCARVE_FIND_SCAN_H

#include <stddef.h>
#include <stdint.h>

#include "carver/base/err.h"
#include "carver/base/wbuf.h"
#include "output/find/find_match.h"
#include "rosalloc/model/model.h"
#include "rosalloc/model/referrers.h"

enum { FIND_SCAN_MAX = 4 << 20 };

enum find_state { FIND_LIVE, FIND_DROPPED, FIND_UNKNOWN, FIND_FREE, FIND_RESIDUE, FIND_STATE_COUNT };
enum find_source {
	FIND_SRC_STRING, FIND_SRC_CHARS, FIND_SRC_BYTES, FIND_SRC_RESIDUE, FIND_SRC_FIELD,
	FIND_SRC_ARRAY, FIND_SRC_INSTANCE,   /* YARA (find_yara.h): any primitive array, an instance's bytes */
	FIND_SRC_PLACE,                      /* a residue place (state FIND_RESIDUE): no object */
	FIND_SRC_COUNT
};

struct find_hit {
	uint64_t addr;          /* the object's real address (model_va), or the residue place's */
	size_t obj;             /* its index in the model; MODEL_NONE for a residue place */
	uint16_t space;         /* a residue place's space (index in the runtime's spaces) */
	uint32_t offset;        /* of the match (or the field) in the object */
	uint8_t kind, state, source;
	size_t value, value_len;   /* the value in find_result.text */
	size_t field, field_len;   /* the holder's field in find_result.text (len 0: none) */
};

struct find_result {
	struct find_hit *v;     /* in object address order, then offset */
	size_t count, cap;
	struct wbuf text;       /* values and field names */
	uint64_t per_kind[FIND_KIND_COUNT];
	uint64_t objects, bytes;   /* objects and bytes scanned */
};

/* Scans the finished model m (reach_run done) with its referrer index r.  Returns 0 or
 * -ERR_NOMEM; f is to be released in either case. */
int find_run(const struct model *m, const struct referrers *r, struct find_result *f, struct err *e);
void find_release(struct find_result *f);

/* Text of a hit's value or field (not NUL-terminated: use the lengths). */
static inline const char *find_text(const struct find_result *f, size_t off)
{
	return (const char *)f->text.data + off;
}
/* Appends the holder's field of object i (find_scan.h: "CLASS.FIELD" of its first referrer,
 * "static CLASS.FIELD", "CLASS[INDEX]", "CLASS+0xOFF"), nothing when no object references it. */
void find_holder_field(const struct model *m, const struct referrers *r, size_t i, struct wbuf *t);
/* The state of an object: enum find_state. */
unsigned find_state_of(const struct model_obj *o);
/* "live", "dropped", "unknown", "free", "residue" */
const char *find_state_name(unsigned s);
/* "string", "chars", "bytes", "residue", "field", "array", "instance", "place" */
const char *find_source_name(unsigned s);

#endif
