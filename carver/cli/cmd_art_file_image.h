/* cmd_art_file_image.h - the ART image kind of `artcarve art-file` (the "art" row of
 * af_kinds[] in cmd_art_file.c): loads the image with the other images and OAT/VDEX files
 * of its folder, walks the whole objects section and names the classes.  The row's
 * describe function prints the result through the command's report writer. */
#ifndef ARTCARVE_CMD_ART_FILE_IMAGE_H
#define ARTCARVE_CMD_ART_FILE_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "art/format/art_image.h"
#include "art/runtime/art_image_set.h"
#include "art/format/art_layout.h"
#include "art/mirror/mirror_walk.h"
#include "carver/base/err.h"

/* one decoded header field, in header order; only fields of the image's version */
struct afi_field {
	const char *name;
	int64_t value;
	bool hex;
};
enum { AFI_MAX_FIELDS = 32 };
size_t afi_header_fields(const struct art_image_header *h, struct afi_field out[AFI_MAX_FIELDS]);

struct afi_naming {
	size_t total, named, by_source[5];  /* indexed by enum mw_name_source */
	size_t dex_backed, dex_backed_named; /* classes whose DexCache's DEX was found */
	size_t own_dex, own_dex_found;       /* the image's DexCache objects, those with a DEX */
	size_t checked, mismatched;          /* name_ strings compared with the DEX name */
	char first_mismatch[200];
};

struct afi_report {
	struct art_image_set set;            /* set.images[0] is the file */
	const struct art_layout *lay;        /* NULL: no mirror layout row, header only */
	struct mirror_walk walk;
	struct afi_naming naming;
};

/* Loads path (and its folder), walks and names.  0 with r filled (r->lay NULL when the
 * version has no layout row: header only), or -code with e set; release r either way. */
int afi_analyze(struct afi_report *r, const char *path, struct err *e);
void afi_release(struct afi_report *r);

#endif
