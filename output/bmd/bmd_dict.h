/* bmd_dict.h - the decrunch string dictionary (Java String.hashCode -> string), and its
 * sources: JAR, APK and DEX files, read the way Badoo's decruncher recovers hashed strings
 * (BmdDecruncher, badoo/hprof-tools @ 5e5408e):
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
#include "carver/base/htab.h"
#include "carver/base/mapfile.h"
#include "carver/base/wbuf.h"
#include "carver/wrap/zipw.h"
#include "output/bmd/bmd_codec.h"

/* ---- the dictionary ---- */

struct bmd_dict_entry { int32_t hash; uint32_t next; size_t off, len; };

/* Java String.hashCode -> string.  Among different strings with the same hash the one added
 * first-last wins, which is what Badoo's HashSet -> HashMap copy does for colliding names. */
struct bmd_dict {
	struct htab heads;              /* hash -> index of its most recent distinct string */
	struct bmd_dict_entry *entries;
	size_t count, cap;
	struct wbuf text;               /* the strings, UTF-8 as Java re-encodes them */
	uint64_t collisions;
};

void bmd_dict_init(struct bmd_dict *d);
void bmd_dict_release(struct bmd_dict *d);
/* Adds one string given as Java would re-encode it (see bmd_java_utf8), with its hash. */
int bmd_dict_add(struct bmd_dict *d, const uint8_t *utf8, size_t len, int32_t hash, struct err *e);
/* 1 and the string for hash, 0 if none. */
int bmd_dict_find(const struct bmd_dict *d, int32_t hash, const uint8_t **s, size_t *len);
/* The most recent string with this hash and exactly len bytes: 1, or 0 if none. */
int bmd_dict_find_len(const struct bmd_dict *d, int32_t hash, size_t len, const uint8_t **s);

/* ---- its sources ---- */

/* Dispatches on the file name's extension; maps the file read-only. */
int bmd_dict_load_file(struct bmd_dict *d, const char *path, struct err *e);
int bmd_dict_add_jar(struct bmd_dict *d, const uint8_t *data, size_t len, const char *label, struct err *e);
int bmd_dict_add_apk(struct bmd_dict *d, const uint8_t *data, size_t len, const char *label, struct err *e);
int bmd_dict_add_dex(struct bmd_dict *d, const uint8_t *data, size_t len, const char *label, struct err *e);
int bmd_dict_add_jmod(struct bmd_dict *d, const uint8_t *data, size_t len, const char *label, struct err *e);
/* One class file: its this_class name and its fields' names. */
int bmd_dict_add_class(struct bmd_dict *d, const uint8_t *data, size_t len, const char *label, struct err *e);
/* A JDK's class library as decrunch reads it: every *.jmod of a jmods directory, in name order
 * (the dictionary's "later wins" makes order matter), of which only the ZIP central directories
 * are read up front.  Each class file entry is indexed by the Java hash and length of its name
 * (the entry name without "classes/" and ".class", which is its this_class), so that
 * bmd_jdk_names inflates only the classes a dump's strings can name: on a JDK 17 dump 3,023
 * of the 26,499 classes, a seventh of the CPU time of reading them all. */
struct bmd_jdk_class {
	int32_t hash, dotted_hash;      /* of "a/b/C" and of "a.b.C" (older JVMs dump dotted names) */
	uint32_t len, module;
	uint64_t cd_offset;
};
struct bmd_jdk_module { struct mapfile map; struct zipw zip; };
struct bmd_jdk {
	struct bmd_jdk_module *mods;    /* mapped, in name order */
	size_t mod_count;
	struct bmd_jdk_class *classes;  /* module by module, in central directory order */
	size_t count, cap;
};

void bmd_jdk_init(struct bmd_jdk *j);
/* path is a jmods directory, a JDK home (path/jmods) or one .jmod file; a damaged central
 * directory is an error naming the module. */
int bmd_jdk_open(struct bmd_jdk *j, const char *path, struct err *e);
/* The key of a (hash, length) pair in bmd_jdk_names' wanted map. */
static inline uint64_t bmd_jdk_key(int32_t hash, uint32_t len) { return (uint64_t)len << 32 | (uint32_t)hash; }
/* Adds to d what bmd_dict_add_jmod would add from each module in turn, for the classes whose
 * name's hash and length, slashed or dotted, are a key of wanted (the value is ignored):
 * this_class, then its fields' names.  The modules' pages go back to the kernel as they are
 * done with. */
int bmd_jdk_names(const struct bmd_jdk *j, const struct htab *wanted, struct bmd_dict *d, struct err *e);
void bmd_jdk_release(struct bmd_jdk *j);

#endif
