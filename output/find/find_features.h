/* find_features.h - the indicators of a carve as bulk_extractor feature files, one per kind
 * (DIR/indicators/url.txt, email.txt, phone.txt, ipv4.txt, ipv6.txt, jwt.txt, bearer.txt,
 * card.txt, secret.txt), which forensic suites that read bulk_extractor output ingest.
 *
 * Header: comment lines as bulk_extractor's feature_recorder_file writes them (banner, version,
 * recorder name = the kind, input file), one line saying what the offsets are, then
 * "# Feature-File-Version: 1.1".  Then one line per indicator of the kind, in address order:
 *   OFFSET<TAB>FEATURE<TAB>CONTEXT
 *   OFFSET   the object's virtual address in the process plus the match's offset in it, in
 *            decimal: an image is a set of captured regions (core segments, region files),
 *            so a file offset exists only per container; the address is what every other
 *            output of the carve names (case.db, objects.jsonl, strings.tsv)
 *   FEATURE  the value, escaped as bulk_extractor escapes features (escape.h)
 *   CONTEXT  "CLASS@0xADDR+OFFSET; field HOLDER.FIELD (or: no holder); STATE; SOURCE"; for a
 *            residue place (no object): "free place in SPACE@0xADDR+OFFSET; no holder;
 *            residue; place"
 * The same model gives the same bytes. */
#ifndef ARTCARVE_FIND_FEATURES_H
#define ARTCARVE_FIND_FEATURES_H

#include "carver/base/err.h"
#include "carver/base/outfile.h"
#include "output/find/find_scan.h"

struct find_features_opts {
	const char *image;      /* input path for "# Filename:", NULL to leave the line out */
	const char *version;    /* artcarve's version, NULL to leave the line out */
};

/* Writes the feature file of kind (enum find_kind) to out. */
int find_features_write(const struct model *m, const struct find_result *f, unsigned kind,
			const struct find_features_opts *o, struct outf *out, struct err *e);
/* Writes DIR/indicators/report.txt: per kind "KIND<TAB>COUNT<TAB>FILE", then the objects and
 * bytes scanned. */
int find_features_report(const struct find_result *f, struct outf *out, struct err *e);

#endif
