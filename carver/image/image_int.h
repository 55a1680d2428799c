/* image_int.h - private interface between image.c and the container loaders
 * (image_core.c, image_dirs.c).  Not for use outside carver/image*. */
#ifndef ARTCARVE_IMAGE_INT_H
#define ARTCARVE_IMAGE_INT_H

#include "carver/image/image.h"
#include "carver/image/maps.h"

/* Loader-only prot bit: the container does not know the protection; img_finish takes it
 * from the maps listing, or assumes IMG_PROT_R (the bytes were readable when captured). */
#define IMG_PROT_UNKNOWN 0x80000000u

/* Starts an image of the given container (a static string) for path. */
int img_begin(struct image *img, const char *container, const char *path, struct err *e);
/* Maps a whole input file read-only and keeps it until img_close. */
int img_map_file(struct image *img, const char *path, const uint8_t **data, size_t *len,
		  struct err *e);
/* Appends a region (any order); name is copied.  end > start, data_len <= end - start. */
int img_push(struct image *img, uint64_t start, uint64_t end, uint32_t prot, const char *name,
	      uint64_t file_offset, const uint8_t *data, size_t data_len, struct err *e);
/* Sorts, rejects overlaps, joins names from the listing m (may be NULL; see image.h),
 * resolves unknown protections. */
int img_finish(struct image *img, const struct maps *m, struct err *e);
const char *img_strdup(struct image *img, const char *s, size_t n);

/* Container loaders; each fills img after img_begin and before img_finish. */
int img_load_core(struct image *img, const char *path, struct err *e);
/* The same over borrowed bytes (which must outlive img); label names them in messages. */
int img_load_core_bytes(struct image *img, const uint8_t *data, size_t len, const char *label,
			struct err *e);
int img_load_maps_dir(struct image *img, const char *dir, struct err *e);
int img_load_memfetch(struct image *img, const char *dir, struct err *e);
int img_load_volatility(struct image *img, const char *dir, unsigned version, struct err *e);

/* Directory probes (no error set): true when dir looks like that container. */
bool img_is_maps_dir(const char *dir);
bool img_is_memfetch(const char *dir);
bool img_is_volatility(const char *dir, unsigned version);

/* memfetch index parser, exposed for the fuzzer and unit tests: calls fn once per entry. */
struct img_mfetch_entry {
	unsigned index;
	char file[32];          /* "mem-000.bin" / "map-000.bin" */
	uint64_t start, end;
	uint32_t prot;          /* IMG_PROT_UNKNOWN when the entry has no maps line */
	const char *name;       /* MAPPED FROM path, else the maps line's name, else "" */
};
int img_mfetch_parse(const uint8_t *text, size_t len, struct arena *names,
		      int (*fn)(void *ctx, const struct img_mfetch_entry *ent, struct err *e),
		      void *ctx, struct err *e);

/* Region file names: "START-END.bin", "0xSTART-0xEND.bin" (maps-dir),
 * "task.PID.0xSTART.vma" (Volatility 2), "pid.PID.vma.0xS-0xE.dmp" (Volatility 3).
 * True and the fields when name matches; end is 0 for Volatility 2 (size gives it). */
bool img_parse_region_file_name(const char *name, uint64_t *start, uint64_t *end);
bool img_parse_vol2_name(const char *name, uint64_t *pid, uint64_t *start);
bool img_parse_vol3_name(const char *name, uint64_t *pid, uint64_t *start, uint64_t *end);

#endif
