/* decode.h - the object decoder: one carved object as an investigator reads it, used by every
 * output (objects.jsonl, `show`, case.db, report.html, the indicator scanner).
 *
 * A decoder is opened once per model (dec_open) and plans each class once, on first use: its
 * instance fields with names, declared types and offsets, the class's own fields first, then
 * its super class's, up to java.lang.Object (the order objects.jsonl and HPROF use), the class
 * word left out.  A super class's field hidden by a subclass field of the same name is named
 * "DeclaringClass.name".  Values are typed (struct dec_value):
 *   boolean, char, byte, short, int, long, float, double  as numbers (char: the UTF-16 unit);
 *   a reference to a String     DEC_STRING: its text (UTF-8; unpaired surrogates as WTF-8) up
 *                               to DEC_TEXT_MAX bytes, and the String's address; also for a
 *                               reference to no carved object whose bytes hold a String
 *                               (outside: a freed String of a living holder);
 *   a reference to a boxed primitive (java.lang.Integer, Long, Boolean, Character, Byte,
 *                               Short, Float, Double)  DEC_BOXED: its value field, boxed = the
 *                               primitive's kind;
 *   a reference to an enum constant (a class whose super chain reaches java.lang.Enum)
 *                               DEC_ENUM: Enum.name_ as text, ordinal in i;
 *   any other reference         DEC_REF: address, the object's index in the model (or
 *                               MODEL_NONE: a reference outside the model) and class name;
 *   null                        DEC_NULL;
 *   a field whose offset is unknown or lies past the object   DEC_UNREAD with a reason.
 * An int or long field is also read as a UTC time (has_time, always inferred: the heap keeps
 * no unit): milliseconds or seconds since 1970 when the field's name says time (holds time,
 * date, stamp, created, modified, updated, sent, received, expir, seen or when, or ends in
 * At, Ms, Millis, _at, _ms) and the value lies in 2000-2040; a long field without
 * such a name only when it lies in 2000-2040 as milliseconds.  Values without a field name
 * (container entries, array elements, boxes) are never read as times.
 *
 * Containers (dec_each_entry) are read through the fields of their classes by name, never
 * hard-coded offsets (libcore differs between Android 5.0 and 16): ArrayList, Vector,
 * LinkedList, ArrayDeque, HashMap/LinkedHashMap/HashSet/LinkedHashSet, TreeMap/TreeSet,
 * ConcurrentHashMap, Hashtable, android.util.ArrayMap/ArraySet/SparseArray/SparseIntArray/
 * LongSparseArray, object arrays and primitive arrays; a subclass of one of them (an app's
 * own list) is read as its JDK super class.  Every walk is bounded (DEC_MAX_ENTRIES entries,
 * DEC_MAX_STEPS nodes) and cycle-safe; a damaged container shows what reads and says why the
 * rest does not (struct dec_entries.incomplete).
 *
 * Every read of object bytes goes through carver/image and art/mirror; the decoder never
 * fails on damaged input (a value that does not read is DEC_UNREAD, a walk that breaks off is
 * incomplete); its functions fail only on -ERR_NOMEM or a callback's own error. */
#ifndef ARTCARVE_DECODE_H
#define ARTCARVE_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "carver/base/err.h"
#include "carver/base/wbuf.h"
#include "rosalloc/model/model.h"

enum {
	DEC_TEXT_MAX = 4096,        /* bytes of a String's text a value carries (text_cut beyond) */
	DEC_MAX_ENTRIES = 10000,    /* entries one dec_each_entry call gives at most */
	DEC_MAX_STEPS = 1000000,    /* nodes one container walk visits at most (cycles, damage) */
	DEC_MAX_DEPTH = 8,          /* nesting dec_object_json follows at most */
};

enum dec_kind {
	DEC_NULL, DEC_BOOL, DEC_CHAR, DEC_BYTE, DEC_SHORT, DEC_INT, DEC_LONG, DEC_FLOAT, DEC_DOUBLE,
	DEC_STRING, DEC_REF, DEC_ENUM, DEC_BOXED, DEC_UNREAD, DEC_KIND_COUNT
};

struct dec_value {
	const char *name;           /* field name; NULL for a container entry */
	const char *type;           /* declared type descriptor ("J", "Ljava/lang/String;"), NULL
				     * for an entry (Object) */
	const char *java_type;      /* its Java name ("long", "java.lang.String") or NULL */
	uint32_t offset;            /* byte offset in the object (fields), 0 for entries */
	enum dec_kind kind;
	enum dec_kind boxed;        /* DEC_BOXED: the primitive's kind (DEC_INT, ...) */
	int64_t i;                  /* BOOL/CHAR/BYTE/SHORT/INT/LONG, boxed integral, enum ordinal */
	double r;                   /* FLOAT/DOUBLE, boxed real */
	uint64_t addr;              /* references: the real address referenced (0 for null) */
	size_t obj;                 /* references: index in the model, MODEL_NONE when none */
	const char *ref_class;      /* references: the referenced object's class name or NULL */
	const char *text;           /* STRING: text; ENUM: constant name; NULL when unread */
	size_t text_len;
	bool text_cut;              /* the text was longer than DEC_TEXT_MAX bytes */
	bool outside;               /* STRING: no carved object (obj MODEL_NONE), but the bytes
				     * there still hold a String (class word java.lang.String): a
				     * String freed while its holder lives on, read where it lies */
	bool has_time;              /* INT/LONG fields: read as a time, inferred */
	int64_t time_ms;            /* that time: milliseconds since 1970-01-01 UTC */
	const char *why;            /* UNREAD (and a STRING/ENUM whose text does not read): why */
	const char *json_key;       /* fields: name as a JSON key ("name": quoted, escaped, with
				     * the colon), made once per class */
	uint32_t json_key_len;
};

/* The container behind dec_each_entry's entries. */
struct dec_entries {
	const char *kind;           /* "list", "map", "set", "sparse", "array"; NULL: not a container */
	bool keyed;                 /* entries have keys (maps, sparse arrays) */
	uint64_t size;              /* the size the container claims (its size field, array length) */
	uint64_t given;             /* entries given */
	const char *incomplete;     /* NULL, or why the entries given are not all of them */
};

struct dec_entry {
	uint64_t index;             /* position in the walk, 0 .. */
	bool has_key;
	struct dec_value key, value;
};

struct dec;

/* Opens a decoder over a finished model (kept, not copied, until dec_close).  *d is set to
 * NULL on failure.  Returns 0 or -ERR_NOMEM. */
int dec_open(struct dec **d, const struct model *m, struct err *e);
void dec_close(struct dec *d);

/* Calls fn for every instance field of object obj (a model index) in plan order (strings and
 * Class objects too: their instance fields), stopping at fn's first non-zero return, which
 * it returns.  The value's pointers live until the next decoder call.  Arrays have no fields.
 * Returns 0, fn's return, or -ERR_NOMEM. */
typedef int (*dec_value_fn)(void *arg, const struct dec_value *v, struct err *e);
int dec_each_field(struct dec *d, size_t obj, dec_value_fn fn, void *arg, struct err *e);

/* Calls fn for the entries of object obj when it is a container (see the top of this file);
 * info (may be NULL) says which and whether all were read.  Not a container: info->kind NULL,
 * no call.  Returns as dec_each_field. */
typedef int (*dec_entry_fn)(void *arg, const struct dec_entry *en, struct err *e);
int dec_each_entry(struct dec *d, size_t obj, dec_entry_fn fn, void *arg, struct dec_entries *info,
		   struct err *e);

/* Appends one JSON object for obj to out:
 *   {"addr":"0x..","class":"..","state":"allocated/intact/reachable",
 *    "fields":{"name":VALUE,...}, "entries":{"kind":"list","size":N,"given":N,
 *    "incomplete":"..","items":[VALUE or {"key":VALUE,"value":VALUE},...]}, "text":".."}
 * (entries only for containers, text only for Strings).  A VALUE (dec_value_json) is a
 * number, true/false, a one-character string for a char, null, or for a reference an object
 * {"addr":"0x..","class":".."} plus "text" (String, enum), "value" (boxed), "time"
 * ("2026-11-02T10:11:12.345Z", with "inferred":true) and, while depth > 0, "object": the
 * referenced object decoded the same way at depth - 1 (each object once per call: a cycle
 * gives {"addr":..,"seen":true}).  depth is capped at DEC_MAX_DEPTH.
 * Returns 0 or -ERR_NOMEM. */
int dec_object_json(struct dec *d, size_t obj, unsigned depth, struct wbuf *out, struct err *e);
/* Appends v as a JSON value (the VALUE above, without "object"). */
void dec_value_json(const struct dec_value *v, struct wbuf *out);

/* objects.jsonl's pieces (depth 0): `,"fields":{...}` with `,"inferred_times":{"name":
 * "2026-..Z"}` after it when a field reads as a time (the field keeps its number), and
 * `,"entries":{...}` for a container (nothing otherwise).  Return 0 or -ERR_NOMEM. */
int dec_fields_json(struct dec *d, size_t obj, struct wbuf *out, struct err *e);
int dec_entries_json(struct dec *d, size_t obj, struct wbuf *out, struct err *e);
/* JSON numbers as every output writes them: decimal; a long exactly when |v| <= 2^53, else a
 * decimal string; "0x..." (quoted, lower case); a float/double as the shortest decimal that
 * reads back the same, or "NaN", "Infinity", "-Infinity". */
void dec_json_u64(struct wbuf *b, uint64_t v);
void dec_json_i64(struct wbuf *b, int64_t v);
void dec_json_long(struct wbuf *b, int64_t v);
void dec_json_hex(struct wbuf *b, uint64_t v);
void dec_json_real(struct wbuf *b, double v, bool is_float);
/* The primitive of descriptor character t at p (little-endian, as ART stores it) as JSON:
 * true/false, a char as a one-character string, numbers as above; null for other t. */
void dec_prim_json(struct wbuf *b, uint8_t t, const uint8_t *p);

/* Appends one short line for table cells, at most about max_chars characters (the text is
 * cut at a character boundary and ends "..." when cut): a String as its quoted text; an
 * instance as its non-null fields `body="hi there" sender=Person{name="Bob"} time=2026-11-
 * 02T10:11:12Z` (a referenced object shows its String fields, one level); a container as
 * `[3] "a", "b", "c"` or `{2} "k"=1, "j"=2`.  Returns 0 or -ERR_NOMEM. */
int dec_object_text(struct dec *d, size_t obj, size_t max_chars, struct wbuf *out, struct err *e);
/* Appends a reference v as a table cell says it, at most about max_chars bytes (cut at a
 * character boundary, "..." when cut): a carved instance as Class{its String and enum
 * fields} (`Person{name="Bob"}`), or its full class name when it has none; a String, a
 * container or an Object[] as dec_object_text gives it; a primitive array as its type and
 * length (`byte[46]`); a Class object as its class's name; any other value as
 * dec_value_text.
 * Returns 0 or -ERR_NOMEM. */
int dec_ref_text(struct dec *d, const struct dec_value *v, size_t max_chars, struct wbuf *out, struct err *e);
/* Appends v as text (the form of dec_object_text's fields: "text", 12, true, 'c',
 * 2026-11-02T10:11:12Z (inferred times shown as times), Class@0x...). */
void dec_value_text(const struct dec_value *v, struct wbuf *out);

/* Appends the ISO 8601 UTC form of ms since 1970 ("2026-11-02T10:11:12.345Z", ".345" left
 * out when 0). */
void dec_time_iso(int64_t ms, struct wbuf *out);
/* True when a field named name says it holds a time (the words at the top of this file). */
bool dec_time_named(const char *name);
/* Stable names of the kinds: "null", "boolean", "char", ..., "string", "ref", "enum",
 * "boxed", "unread". */
const char *dec_kind_name(unsigned k);

#endif
