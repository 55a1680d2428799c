/* carve_dir.h - carve's output folder: what may be in it before a run, and manifest.json.
 *
 * Evidence of two images must never sit in one folder: a run refuses a folder that holds
 * anything (files of another run, another image's outputs, anything else), unless --force;
 * --force replaces the outputs of an earlier run all together (those this run does not
 * write, e.g. with --skip, are removed when this run's are committed) and still refuses a
 * folder holding any other file, which artcarve never removes.  manifest.json, committed
 * with the outputs, lists each with its size and SHA-256, and the image's SHA-256. */
#ifndef ARTCARVE_CARVE_DIR_H
#define ARTCARVE_CARVE_DIR_H

#include <stdbool.h>
#include <stdint.h>

#include "carver/base/err.h"
#include "carver/base/outfile.h"
#include "carver/base/sha256.h"
#include "carver/image/image.h"

#define CARVE_MANIFEST "manifest.json"

/* One output for the manifest: its file name in DIR, size and SHA-256. */
struct carve_dir_file {
	const char *file;
	uint64_t bytes;
	char sha256[SHA256_HEX];
};

/* 0 when dir does not exist, is empty, or (force) holds only artcarve's outputs, manifest.json
 * and temporaries of those (".NAME.XXXXXX", left by a killed run: removed now).  Otherwise
 * -ERR_USAGE, the message naming the folder and its first files; -ERR_IO when it cannot be
 * read.  is_output(name) says whether a name is one of carve's outputs. */
int carve_dir_check(const char *dir, bool force, bool (*is_output)(const char *name), struct err *e);
/* Removes DIR/file when it exists (--force: an earlier run's output this run does not write). */
int carve_dir_remove(const char *dir, const char *file, struct err *e);
/* Writes manifest.json into out (opened by the caller): the tool, the image's path and
 * SHA-256 (img_sha256), every input file (img_input_*) and the n outputs. */
int carve_dir_manifest(struct outf *out, const struct image *img, const char *image_path, const char *version,
		       const char *image_sha256, const struct carve_dir_file *files, unsigned n, struct err *e);

#endif
