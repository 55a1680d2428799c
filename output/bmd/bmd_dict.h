/* bmd_dict.h - fills the decrunch string dictionary from JAR, APK and DEX files, the way
 * Badoo's decruncher recovers hashed strings (BmdDecruncher, badoo/hprof-tools @ 5e5408e):
 *   .jar  every entry ending in ".class" contributes its name without ".class", with ':'
 *         replaced by '.' (JarStringReader replaces File.pathSeparator, so '/' stays: that
 *         matches HotSpot class names, not Android's dotted ones);
 *   .dex  every class_def contributes its class name as a.b.C and every field in its
 *         class_data its name (ApkStringReader via dex2jar's dex-reader);
 *   .apk  the same for each top-level classes*.dex (Badoo reads classes.dex only);
 *   .jmod (not in Badoo) a JDK module, 4-byte header "JM" 1 0 then a ZIP whose offsets count
 *         from the end of that header (jdk.internal.jmod.JmodFile, OpenJDK 17): each
 *         classes/.../NAME.class contributes its class name as HotSpot writes it in a heap dump
 *         (this_class, "java/lang/System") and the name of every declared field (JVMS 17
 *         sections 4.1, 4.4, 4.5), so a decrunched JVM dump gets back the JDK's own names.
 * Any other extension is a usage error, as in Badoo. */
#ifndef ARTCARVE_BMD_DICT_H
#define ARTCARVE_BMD_DICT_H

#include <stddef.h>
#include <stdint.h>

#include "carver/base/err.h"
#include "output/bmd/bmd_codec.h"

/* Dispatches on the file name's extension; maps the file read-only. */
int bmd_dict_load_file(struct bmd_dict *d, const char *path, struct err *e);
int bmd_dict_add_jar(struct bmd_dict *d, const uint8_t *data, size_t len, const char *label, struct err *e);
int bmd_dict_add_apk(struct bmd_dict *d, const uint8_t *data, size_t len, const char *label, struct err *e);
int bmd_dict_add_dex(struct bmd_dict *d, const uint8_t *data, size_t len, const char *label, struct err *e);
int bmd_dict_add_jmod(struct bmd_dict *d, const uint8_t *data, size_t len, const char *label, struct err *e);
/* One class file: its this_class name and its fields' names. */
int bmd_dict_add_class(struct bmd_dict *d, const uint8_t *data, size_t len, const char *label, struct err *e);
/* Every *.jmod of path, in name order: path is a jmods directory, a JDK home (path/jmods) or
 * one .jmod file. */
int bmd_dict_load_jdk(struct bmd_dict *d, const char *path, struct err *e);

#endif
