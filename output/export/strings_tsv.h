/* strings_tsv.h - the String objects of a carved heap as a bulk_extractor feature file
 * (strings.tsv), which forensic suites that read bulk_extractor output ingest.
 *
 * Header: comment lines as bulk_extractor's feature_recorder_file writes them (banner,
 * version, recorder name, input file, the image's SHA-256 (img_sha256), then "# Feature-File-Version: 1.1" last), plus one line
 * saying what the offsets are.  Then one line per String object of the model (strings_find.h
 * pass 1, address order):
 *   OFFSET<TAB>FEATURE<TAB>CONTEXT
 *   OFFSET   the String object's virtual address in the process, 0x + lowercase hex (the
 *            one spelling of addresses in every output; not a file offset);
 *   FEATURE  the string's text, escaped as bulk_extractor escapes features (escape.h: '\',
 *            control characters and bytes of invalid or lone-surrogate sequences as \xHH);
 *            empty for an empty String (or one whose characters did not read: the
 *            context then ends "text not read: REASON");
 *   CONTEXT  "java.lang.String len=N compressed|utf16; held by HOLDER@0xADDR (+K more);
 *            ALLOC CONTENT REACH confidence=C": HOLDER is the first referrer (lowest
 *            address) from the referrer index (rosalloc/model/referrers.h) named as
 *            strings_describe_ref does, "held by nothing" when no object names it; escaped
 *            as the feature.
 * The same model gives the same bytes (the input path is printed as given). */
#ifndef ARTCARVE_STRINGS_TSV_H
#define ARTCARVE_STRINGS_TSV_H

#include <stdbool.h>
#include <stdint.h>

#include "carver/base/err.h"
#include "carver/base/outfile.h"
#include "rosalloc/model/model.h"
#include "rosalloc/model/reach.h"
#include "rosalloc/model/referrers.h"

struct strings_tsv_opts {
	const char *image;      /* input path for "# Filename:", NULL to leave the line out */
	const char *version;    /* artcarve's version for "# ARTCARVE-Version:", NULL to leave out */
	const struct reach *reach;   /* roots, DexCache holders, unknown reasons; NULL: none */
	const char *image_sha256;   /* digest text (img_sha256) for "# Image-SHA256:", NULL to leave the line out */
};

struct strings_tsv_stats {
	uint64_t strings, bytes;
};

int strings_tsv_write(const struct model *m, const struct referrers *r, const struct strings_tsv_opts *o,
		      struct outf *out, struct strings_tsv_stats *st, struct err *e);

/* Appends the holder part of a context for object i (unescaped): "held by HOLDER@0xADDR (+K
 * more)"; with no holding object, from reach (may be NULL): "a root (SOURCE at 0xWHERE)",
 * "held by java.lang.DexCache strings[IDX]@0xADDR (native array)", "held by nothing the image
 * shows (unknown: REASON)"; else "held by nothing". */
void strings_tsv_holder(const struct model *m, const struct referrers *r, const struct reach *reach, size_t i,
			struct wbuf *out);
/* The same text, and what kind of holder it names for a database column: kind "object" (the
 * first referring object's address), "root" (the root's table entry or stack word, when
 * known), "dex cache" (the DexCache's address), "unknown" or "none" (no address). */
struct strings_held {
	const char *kind;
	uint64_t address;
	bool has_address;
};
void strings_tsv_held_by(const struct model *m, const struct referrers *r, const struct reach *reach, size_t i,
			 struct wbuf *out, struct strings_held *held);

#endif
