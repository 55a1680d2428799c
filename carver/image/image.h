/* image.h - a process memory image: regions of virtual address space, sorted by start,
 * whose bytes are mapped from the input files, never copied.
 *
 * Containers (detected by img_open; ambiguity and unknown input are errors):
 *   "elf-core"    an ELF core file (ET_CORE): one region per PT_LOAD; file-backed mapping
 *                 names from the NT_FILE note; p_memsz > p_filesz means the tail was not
 *                 captured (data_len < end - start).
 *   "maps-dir"    a directory with a `maps` listing and one raw file per captured region,
 *                 named START-END.bin (lowercase or uppercase hex, no 0x) or
 *                 0xSTART-0xEND.bin.  A file shorter than the region captures its head.
 *   "memfetch"    memfetch output: mfetch.lst plus mem-NNN.bin / map-NNN.bin.
 *   "volatility2" Volatility 2 linux_dump_map output: task.PID.0xSTART.vma files.
 *   "volatility3" Volatility 3 linux.proc.Maps --dump output: pid.PID.vma.0xS-0xE.dmp.
 *   "memory"      built in memory with img_init_empty + img_add_region_mem / img_add_file.
 *   "file"        one file on its own (a DEX, VDEX, OAT or ART image file): img_from_file
 *                 maps it as one region at the address the caller chooses.
 * A maps listing (opts->maps_path, or the maps-dir's own `maps`, or a `maps` / `maps.txt`
 * beside a memfetch or Volatility dump) names the regions by address; its lines that
 * nothing captured become regions with data == NULL, so the image lists the whole address
 * space the listing knows.  Captured regions are split where listing lines change.
 *
 * Ownership: the image owns every mapped byte and every name; views, cursors and region
 * pointers are borrowed and must not outlive img_close.  Memory use does not depend on the
 * size of the input (files are mmap'd read-only). */
#ifndef ARTCARVE_IMAGE_H
#define ARTCARVE_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "carver/base/arena.h"
#include "carver/base/cursor.h"
#include "carver/base/err.h"
#include "carver/base/sha256.h"

enum { IMG_PROT_R = 4, IMG_PROT_W = 2, IMG_PROT_X = 1 };

struct img_region {
	uint64_t start, end;       /* [start, end) */
	uint32_t prot;             /* IMG_PROT_* */
	const char *name;          /* mapping name ("" if none); NUL-terminated; owned by the image */
	uint64_t file_offset;      /* offset within the mapped file per maps/NT_FILE, else 0 */
	const uint8_t *data;       /* captured bytes for [start, start+data_len); NULL if none */
	size_t data_len;           /* <= end - start */
};

struct mapfile;

/* A thread of the process as the container records it (an ELF core's NT_PRSTATUS note). */
struct img_thread {
	uint32_t tid;
	uint64_t sp;               /* its stack pointer register */
};

struct image {
	const struct img_region *regions; /* sorted by start, not overlapping */
	size_t region_count;
	const char *container;     /* "elf-core", "maps-dir", "memfetch", "volatility2", "volatility3", "memory", "file" */
	const char *path;
	unsigned pointer_bits;     /* the process's word size from the container (ELF class of a core), 0 if unknown */
	const struct img_thread *threads;  /* threads the container names, in its order (cores only) */
	const char *listing;       /* path of the maps listing joined (--maps or the dump's own), NULL if none */
	struct sha256_memo *listing_digest_;   /* private: the listing's digest once asked (with listing) */
	enum sha256_kind digest_;  /* private: which digest of the input files (img_set_digest) */
	size_t thread_count;
	/* bytes the container lists but its file does not hold (a core cut short: the segments
	 * past the end keep their addresses, uncaptured); 0 when whole */
	uint64_t cut_bytes;
	size_t cut_regions;        /* regions that lost bytes so */
	uint64_t cut_first_va;     /* the first such region's start */
	char cut_first[192];       /* what the first such region misses (file, expected, held) */
	/* private: use the functions below */
	struct img_thread *thr_;
	size_t thr_cap_;
	struct img_region *reg_;
	size_t reg_cap_;
	struct mapfile *files_;    /* every mapped input file */
	size_t file_count_, file_cap_;
	size_t *file_order_;       /* indexes of the mapped files_ with bytes, by address of their bytes */
	size_t file_order_count_;
	uint64_t file_data_;       /* data bytes of the mapped files (their holes left out) */
	uint64_t keep_;            /* img_drop releases nothing while file_data_ <= keep_ */
	struct arena strings_;     /* names and the path */
	bool sorted_;
	bool label_nomem_;         /* img_init_empty could not copy its label: adding fails */
};

/* Drop-behind state of one pass over the image in address order (see img_drop_behind). */
struct img_drop {
	uint64_t from;             /* pages from here up may still be resident */
};

enum { IMG_DROP_STEP = 8 << 20 };   /* bytes passed between two releases */
/* img_drop keeps the pages of an image whose mapped files hold at most this many data bytes,
 * or a quarter of the machine's memory when that is more (img_keep_default): each release
 * was read again by the next pass at a page fault per 64 KiB (the kernel's fault-around),
 * three to four passes per carve, most of a heap.hprof carve's faults on the file (issue
 * 24); the page cache keeps those pages anyway, so releasing them only bounds the resident
 * set of an image too big for memory. */
enum { IMG_KEEP_BYTES = 256 << 20 };
uint64_t img_keep_default(void);

struct img_open_opts {
	const char *maps_path; /* --maps, may be NULL */
};

/* Opens path (a file or a directory), detects the container and loads the regions.
 * Returns 0, or -ERR_UNSUP (unknown or ambiguous input, LiME physical image), -ERR_CORRUPT/
 * -ERR_TRUNC (damaged container), -ERR_IO, -ERR_NOMEM; on error the image is released. */
int img_open(struct image *img, const char *path, const struct img_open_opts *opts, struct err *e);
/* Container "memory" with no regions.  When the label cannot be copied, the next
 * img_add_region_mem / img_add_file returns -ERR_NOMEM. */
void img_init_empty(struct image *img, const char *label);
/* Adds [va, va+len) with borrowed bytes (must outlive the image).  Rejects overlaps with
 * -ERR_CORRUPT and len 0 / wrap-around with -ERR_CORRUPT. */
int img_add_region_mem(struct image *img, uint64_t va, const uint8_t *data, size_t len,
		       uint32_t prot, const char *name, struct err *e);
/* Maps the file at path read-only (never copied) and adds it as one region [va, va + size)
 * named `name` (path when NULL), kept until img_close.  *whole is a cursor over all of its
 * bytes taken through img_view (whole->va = va); an empty file adds no region and gives an
 * empty cursor.  Overlaps and wrap-around are rejected as by img_add_region_mem. */
int img_add_file(struct image *img, const char *path, uint64_t va, uint32_t prot, const char *name,
		 struct cursor *whole, struct err *e);
/* Container "file": an image holding only the file at path, at va (0: addresses are file
 * offsets), read-only.  On error the image is released. */
int img_from_file(struct image *img, const char *path, uint64_t va, struct cursor *whole, struct err *e);
void img_close(struct image *img); /* safe on a zeroed or closed image */
/* Counts lost bytes of the region at va that the container lists but its file does not hold
 * (cut_bytes, cut_regions); the first call's what (printf-style) goes to cut_first. */
void img_note_cut(struct image *img, uint64_t va, uint64_t lost, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* The input files the image was read from: every file it mapped, in the order opened, then
 * the maps listing (img->listing) if one was joined.  img_input_path returns NULL past the
 * end; the paths are owned by the image. */
size_t img_input_count(const struct image *img);
const char *img_input_path(const struct image *img, size_t i);
/* Which digest img_input_sha256 and img_sha256 take of every input file: SHA-256 of every
 * byte (SHA256_KIND_FILE, as opened) or the page digest (carve --digest pages, sha256.h).
 * Before the first input is hashed. */
void img_set_digest(struct image *img, enum sha256_kind kind);
/* Digest text (sha256_text: hex, or the page digest's prefix and hex) and size on disk of
 * input file i (read in blocks the first time, its holes unread, then remembered: case.db
 * and report.html both list them).  -ERR_IO when it does not read. */
int img_input_sha256(const struct image *img, size_t i, char out[SHA256_TEXT], uint64_t *size, struct err *e);
/* The image's identity, as every carve output records it: the digest text of its one mapped
 * file (an ELF core; the maps listing is not part of it), or, for an image of several files,
 * the digest of the `sha256sum`-style listing of their digest texts ("TEXT  BASENAME\n" per
 * file, in the order opened; with the page digest's prefix when the inputs have it), so that
 * a renamed folder keeps it.  -ERR_IO when a file does not read. */
int img_sha256(const struct image *img, char out[SHA256_TEXT], struct err *e);
/* Bytes of the mapped input files (the maps listing aside): img_inputs_hash's work. */
uint64_t img_inputs_bytes(const struct image *img);
/* Hashes every input file not hashed yet (the listing too), so img_input_sha256 answers from
 * memory, moving p (may be NULL) through img_inputs_bytes.  -ERR_IO when one does not read. */
int img_inputs_hash(const struct image *img, struct progress *p, struct err *e);

/* True when some region has an address in [start, end). */
bool img_overlaps(const struct image *img, uint64_t start, uint64_t end);
/* Region holding va (captured or not), NULL if unmapped. */
const struct img_region *img_find(const struct image *img, uint64_t va);
/* Where the captured byte at va lies in the input files, for checking it in a hex editor:
 * *input = the file's index (img_input_path), *offset = the byte's offset in it (an ELF
 * core's file offset, a region file's offset for the directory forms).  False when va is
 * not captured or its bytes are not a file's (built in memory). */
bool img_file_position(const struct image *img, uint64_t va, size_t *input, uint64_t *offset);
/* Releases the resident pages of the captured bytes in [lo, hi) that come from mapped input
 * files (mapfile_drop: they are read again on the next access; bytes held in memory are
 * left alone), unless those files hold no more data than img_set_keep's budget.  The image
 * is unchanged: this bounds memory, not what is read. */
void img_drop(const struct image *img, uint64_t lo, uint64_t hi);
/* Sets the data bytes below which img_drop releases nothing (IMG_KEEP_BYTES from the start;
 * 0: release always). */
void img_set_keep(struct image *img, uint64_t bytes);
/* For a pass in address order: once va is IMG_DROP_STEP past d->from, releases [d->from, va)
 * (img_drop); a va below d->from starts a new pass.  d starts zeroed. */
void img_drop_behind(const struct image *img, struct img_drop *d, uint64_t va);
/* Zero-copy cursor over [va, va+len) inside ONE region's captured bytes (cursor.va = va);
 * -ERR_UNMAPPED (message names the address) when any byte is not captured. */
int img_view(const struct image *img, uint64_t va, size_t len, struct cursor *out, struct err *e);
/* The probe every "bytes at this address" reader goes through: a pointer to the captured
 * bytes [va, va + n) when ONE region's capture holds them all (no copy; n 0: va may be the
 * end of a capture shorter than its region), NULL otherwise, with no error made (not captured is an answer: a trimmed
 * image leaves most native memory out).  Unlike img_peek it never joins abutting regions, so a
 * reader sees one mapping's bytes.  Holes are captured bytes (they read as zero: img_is_hole).
 * When rest is not NULL, *rest is the number of bytes captured from va to that capture's end
 * (0 when NULL is returned). */
const uint8_t *img_span(const struct image *img, uint64_t va, size_t n, size_t *rest);
/* Copies [va, va+len) even across abutting captured regions; -ERR_UNMAPPED on a gap. */
int img_read(const struct image *img, uint64_t va, void *buf, size_t len, struct err *e);
/* The same for probes that ask "is this X?" (libyal's 0 = "not this"): true when every byte
 * is captured; bytes that are not are an answer, not an error, so no error is made. */
bool img_peek(const struct image *img, uint64_t va, void *buf, size_t len);

/* Holes: a captured byte that its input file holds in a hole (a range the file system never
 * stored, found with lseek SEEK_DATA / SEEK_HOLE when the file is opened) is zero, known
 * without reading it: a view or read of it gives zeros, but a scan for content can skip it
 * untouched (no page fault).  Bytes held in memory (img_add_region_mem) and files on a file
 * system that cannot tell count as data.
 *
 * img_next_data: the first run [*lo, *hi) of captured bytes inside [va, end) that lie in ONE
 * region and may be non-zero (data in their file), va <= *lo < *hi <= end; every byte of
 * [va, *lo) is uncaptured, unmapped or a hole.  False when there is none.  At most
 * region_count steps. */
bool img_next_data(const struct image *img, uint64_t va, uint64_t end, uint64_t *lo, uint64_t *hi);
/* True when every byte of [va, va + len) is captured and a hole (reads as zero); len 0 is false. */
bool img_is_hole(const struct image *img, uint64_t va, uint64_t len);
/* True when no captured byte of [va, va + len) is non-zero, reading only the data runs (the
 * holes are zero, unread); bytes not captured are not looked at. */
bool img_zero(const struct image *img, uint64_t va, uint64_t len);
/* Bytes of the captured regions held as data (img_captured_bytes less the holes). */
uint64_t img_data_bytes(const struct image *img);

/* Sum of data_len over all regions, and of (end - start). */
uint64_t img_captured_bytes(const struct image *img);
uint64_t img_mapped_bytes(const struct image *img);
/* "rwx" text of prot (buf of at least 4 bytes). */
const char *img_prot_text(uint32_t prot, char buf[4]);

#endif
