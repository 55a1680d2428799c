/* objects_jsonl.h - the object model as JSON Lines (objects.jsonl): one object a line, in
 * the model's address order, for jq and scripts.
 *
 * Every object of the model (allocated and free) is one JSON object with these keys, in
 * this order (a key whose value does not apply to the object's kind is left out):
 *   address        "0x..." (hex string): where the object lies in the process
 *   hprof_id       "0x...", only for an object above 4 GiB (the mark-compact from-space of a
 *                  64-bit process): its id in heap.hprof, a model address in an alias window
 *                  below 4 GiB (rosalloc/model/model.h, output/hprof/hprof_mark.h); such
 *                  objects come after the objects below their id, not after those below
 *                  their address
 *   class          the class's Java name ("java.lang.String", "int[]"), null when unnamed
 *   class_address  "0x..." of the Class object
 *   kind           "instance", "string", "class", "object-array", "primitive-array"
 *   size           bytes the object covers
 *   space          the space's name ("main space (region space)"), space_kind its kind
 *                  ("RegionSpace", "RosAllocSpace", ...)
 *   place          {"kind", "where", "index", "offset"}: kind is the walker's place
 *                  (rosalloc_slot: where = run, index = slot; rosalloc_large: where = first
 *                  page, index = pages; region: where = region start, index = region number;
 *                  region_large: first region and region count; dlmalloc_chunk: where = chunk
 *                  header; los: where = allocation; image: where = image begin, index =
 *                  object number; bump: where = space begin), offset = address - where
 *   alloc, content, reach   the three states (rosalloc/model/model.h names)
 *   root           a root object: its first root source ("class statics", "interned
 *                  strings", ...: rosalloc/model/reach.h)
 *   unknown_reason reach "unknown": why a missing root source may hold it ("dex literal",
 *                  "runtime error", "sentinel", "class roots", "held by unknown")
 *   confidence     0-100
 *   fields         instances, strings and Class objects: {"name": value, ...} as the object
 *                  decoder gives them (output/decode/decode.h), the class's own instance
 *                  fields in declaration order, then its super class's, up to
 *                  java.lang.Object (as HPROF orders them), the class word left out (it is
 *                  class_address); a super class's field hidden by a subclass field of the
 *                  same name is keyed "DeclaringClass.name"; null when the runtime model
 *                  could not derive the field's offset
 *   inferred_times after fields, when an int or long field reads as a time (decode.h):
 *                  {"name": "2026-11-02T10:11:12.345Z"}, UTC, inferred (the field itself
 *                  keeps its number)
 *   entries        containers (ArrayList, LinkedList, HashMap, ... decode.h): {"kind": "list"
 *                  | "map" | "set" | "sparse", "size": the size field, "given": entries
 *                  listed, "incomplete": why the rest do not read (only when so), "items":
 *                  [value, ...] or [{"key": value, "value": value}, ...]}
 *   describes      Class objects: the name of the class it is
 *   instance_fields  Class objects: the described class's own instance fields, [{"name",
 *                  "type", "offset"}...] in declaration order (type: the Java type name;
 *                  offset null when not derivable): the names and types of the "fields"
 *                  of its instances, once per class rather than on every line
 *   static_fields  Class objects: the class's static fields, as instance_fields
 *   statics        Class objects: the static values, {"name": value, ...}
 *   length         arrays: elements; strings (every java.lang.String, also the 5.x ones,
 *                  whose kind is instance): characters
 *   compressed     strings: stored 8-bit
 *   value          strings: the text (null when its characters do not read, and then
 *                  value_error says why)
 *   element_type   arrays: the component type's Java name
 *   elements       object arrays: addresses; primitive arrays except byte[]: values (a
 *                  char[] element as its UTF-16 unit number)
 *   hex            byte[]: the bytes as one lower-case hex string, two digits a byte
 * Values: boolean true / false; byte, short, int JSON numbers; a char a one-character string
 * ("A"; a surrogate half, no character on its own, as its number); a long a number when
 * |v| <= 2^53 (exact in every JSON reader), else a decimal string; float and double the
 * shortest decimal that reads back to the same value, or "NaN", "Infinity", "-Infinity".  A
 * reference in a field or an entry: null; a String {"addr": "0x...", "text": "..."} (with
 * "cut": true past 4096 bytes of text, "outside": true for a freed String no carved object
 * holds, "why" when the text does not read); an enum constant {"addr", "enum": its name,
 * "ordinal"}; a box (Integer, Long, ...) {"addr", "value"}; any other object "0x...".
 * Statics and array elements keep references as "0x...".  Text is escaped by
 * carver/base/escape.h (valid UTF-8, lone surrogates as \uDXXX).  Same model, same bytes. */
#ifndef ARTCARVE_OBJECTS_JSONL_H
#define ARTCARVE_OBJECTS_JSONL_H

#include <stdint.h>

#include "carver/base/err.h"
#include "carver/base/outfile.h"
#include "rosalloc/model/model.h"
#include "rosalloc/model/reach.h"

struct objects_jsonl_stats {
	uint64_t objects, strings, bytes;
};

/* The file's first line, before the objects (carve writes it): what made the file and the
 * image it was carved from (img_sha256's digest text: hex, or "pages-sha256:" and hex with
 * carve --digest pages), so two images' files are never mixed silently:
 *   {"artcarve":"objects.jsonl","version":"...","image_sha256":"<digest>"}
 * It has no "address": `select(.address)` (or `.kind`) skips it. */
int objects_jsonl_header(struct outf *out, const char *version, const char *image_sha256, struct err *e);
/* Writes every object of a finished model to out.  Returns 0 or -ERR_* (I/O, memory, an
 * object whose bytes no longer read). */
int objects_jsonl_write(const struct model *m, const struct reach *reach, struct outf *out,
			struct objects_jsonl_stats *st, struct err *e);

#endif
