/* info_art.h - the ART sections of `artcarve info`: runtime (layout family, pointer size and
 * how they were found), spaces, boot images, OAT/VDEX/DEX files, class count.
 *
 * cmd_info.c opens one info_art after the image and calls one function per section; each
 * prints text, or the JSON member named key ("art", "spaces", "boot_images", "files",
 * "classes") through the report writer (carver/base/rep.h).  When the image holds no recognisable ART runtime the sections still print
 * (spaces found by name or content; "art" says why the model is missing). */
#ifndef ARTCARVE_INFO_ART_H
#define ARTCARVE_INFO_ART_H

#include <stdbool.h>
#include <stdio.h>

#include "art/runtime/runtime.h"
#include "carver/base/err.h"
#include "carver/base/rep.h"
#include "carver/image/image.h"

struct info_art {
	struct art_runtime rt;
	bool have_rt;            /* runtime_open succeeded */
	struct art_spaces spaces;/* used when the runtime could not be built */
	struct err why;          /* why the runtime is missing */
};

/* Fails only for an unknown --art-version (-ERR_USAGE) or out of memory. */
int info_art_open(struct info_art *ia, const struct image *img, const char *art_version, struct err *e);
void info_art_close(struct info_art *ia);

int info_art_runtime(const struct info_art *ia, struct rep *r, const char *key, struct err *e);
int info_art_spaces(const struct info_art *ia, struct rep *r, const char *key, struct err *e);
int info_art_images(const struct info_art *ia, struct rep *r, const char *key, struct err *e);
int info_art_files(const struct info_art *ia, struct rep *r, const char *key, struct err *e);
int info_art_classes(const struct info_art *ia, struct rep *r, const char *key, struct err *e);
/* Damaged input the runtime model met (counts per code, first records). */
int info_art_anomalies(const struct info_art *ia, struct rep *r, const char *key, struct err *e);

#endif
