/* image_dirs.c - directory containers: maps + region files, memfetch, Volatility 2 and 3.
 *
 * maps-dir     `maps` (a /proc/PID/maps listing) plus one raw file per captured region,
 *              named START-END.bin or 0xSTART-0xEND.bin (hex, either case).  A file may be
 *              shorter than its region (the tail was not captured: counted in cut_bytes,
 *              as for memfetch and Volatility 3, whose files hold the whole range), never
 *              longer.
 * memfetch     mfetch.lst (memfetch 0.05b by Michal Zalewski, memfetch.c main()):
 *                # comment lines (PID, executable, date), blank lines, "# End of file."
 *                [NNN] mem-NNN.bin:                     anonymous mapping
 *                     Memory range 0xSTART to 0xEND (LEN bytes)
 *                     START-END PERMS OFFSET DEV INODE [NAME]   (its /proc/PID/maps line)
 *                [NNN] map-NNN.bin:                     file mapping (maps line has a '/')
 *                     Memory range 0xSTART to 0xEND (LEN bytes)
 *                     MAPPED FROM: /path/of/file
 *                     START-END PERMS OFFSET DEV INODE  (the maps line cut before the path)
 *              Some builds print the range on the entry line instead:
 *                [NNN] mem-NNN.bin: 0xSTART-0xEND (LEN bytes)
 *              The maps line, when present, gives the protection and wins over the range.
 * volatility2  linux_dump_map -D DIR: task.PID.0xSTART.vma, the whole VMA (unreadable pages
 *              zero-filled), so the file size gives the end.
 * volatility3  linux.proc.Maps --dump: pid.PID.vma.0xSTART-0xEND.dmp (zero-padded likewise).
 * Volatility files carry no protection or name: both come from a `maps` or `maps.txt`
 * beside them when present (else the region is taken as readable and unnamed).  A
 * directory holding dumps of several processes is refused. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "carver/base/ck.h"
#include "carver/image/image_int.h"
#include "carver/base/xalloc.h"

/* ---- file names ---- */

struct name_scan {
	const char *s;
	size_t pos;
};

static bool scan_lit(struct name_scan *n, const char *lit)
{
	size_t l = strlen(lit);
	if (strncmp(n->s + n->pos, lit, l))
		return false;
	n->pos += l;
	return true;
}

static bool scan_hex(struct name_scan *n, uint64_t *v)
{
	unsigned digits = 0;
	*v = 0;
	for (;;) {
		char ch = n->s[n->pos];
		int d = ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
			: ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : -1;
		if (d < 0)
			break;
		if (++digits > 16)
			return false;
		*v = *v << 4 | (uint64_t)d;
		n->pos++;
	}
	return digits > 0;
}

static bool scan_dec(struct name_scan *n, uint64_t *v)
{
	unsigned digits = 0;
	*v = 0;
	while (n->s[n->pos] >= '0' && n->s[n->pos] <= '9') {
		if (++digits > 19)
			return false;
		*v = *v * 10 + (uint64_t)(n->s[n->pos++] - '0');
	}
	return digits > 0;
}

static bool scan_end(const struct name_scan *n) { return n->s[n->pos] == '\0'; }

bool img_parse_region_file_name(const char *name, uint64_t *start, uint64_t *end)
{
	struct name_scan n = { name, 0 };
	bool prefixed = scan_lit(&n, "0x");

	if (!scan_hex(&n, start) || !scan_lit(&n, "-") || (prefixed && !scan_lit(&n, "0x")) ||
	    !scan_hex(&n, end) || !scan_lit(&n, ".bin") || !scan_end(&n))
		return false;
	return *end > *start;
}

bool img_parse_vol2_name(const char *name, uint64_t *pid, uint64_t *start)
{
	struct name_scan n = { name, 0 };
	return scan_lit(&n, "task.") && scan_dec(&n, pid) && scan_lit(&n, ".0x") && scan_hex(&n, start) &&
	       scan_lit(&n, ".vma") && scan_end(&n);
}

bool img_parse_vol3_name(const char *name, uint64_t *pid, uint64_t *start, uint64_t *end)
{
	struct name_scan n = { name, 0 };
	return scan_lit(&n, "pid.") && scan_dec(&n, pid) && scan_lit(&n, ".vma.0x") && scan_hex(&n, start) &&
	       scan_lit(&n, "-0x") && scan_hex(&n, end) && scan_lit(&n, ".dmp") && scan_end(&n) && *end > *start;
}

/* ---- directory listing ---- */

struct dir_list {
	char **names;
	size_t count;
};

static void dir_list_free(struct dir_list *l)
{
	for (size_t i = 0; i < l->count; i++)
		xfree(l->names[i]);
	xfree(l->names);
	l->names = NULL;
	l->count = 0;
}

static int dir_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Sorted names of dir's entries (without "." files). */
static int dir_list(const char *dir, struct dir_list *l, struct err *e)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t cap = 0;

	l->names = NULL;
	l->count = 0;
	if (!d)
		return ERR_SET(e, ERR_IO, ERR_NO_VA, "%s: cannot read the directory", dir);
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		if (l->count == cap) {
			char **p;
			cap = cap ? cap * 2 : 64;
			p = xreallocarray(l->names, cap, sizeof(*p));
			if (!p)
				goto nomem;
			l->names = p;
		}
		l->names[l->count] = xmalloc(strlen(de->d_name) + 1);
		if (!l->names[l->count])
			goto nomem;
		strcpy(l->names[l->count++], de->d_name);
	}
	closedir(d);
	if (l->count > 1)
		qsort(l->names, l->count, sizeof(*l->names), dir_cmp);
	return 0;
nomem:
	closedir(d);
	dir_list_free(l);
	return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "%s: out of memory listing the directory", dir);
}

static bool dir_has_file(const char *dir, const char *name)
{
	char path[4096];
	struct stat st;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path))
		return false;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

enum dir_kind { DIR_REGION_FILES, DIR_VOL2, DIR_VOL3 };

static bool dir_name_matches(const char *name, enum dir_kind kind)
{
	uint64_t a, b, c;
	switch (kind) {
	case DIR_REGION_FILES: return img_parse_region_file_name(name, &a, &b);
	case DIR_VOL2: return img_parse_vol2_name(name, &a, &b);
	default: return img_parse_vol3_name(name, &a, &b, &c);
	}
}

/* A probe: reads the entries as they come (no list, no allocation, so nothing can fail but
 * the directory itself, which then holds nothing of any kind). */
static bool dir_has_kind(const char *dir, enum dir_kind kind)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	bool found = false;

	if (!d)
		return false;
	while (!found && (de = readdir(d)) != NULL)
		found = de->d_name[0] != '.' && dir_name_matches(de->d_name, kind);
	closedir(d);
	return found;
}

bool img_is_maps_dir(const char *dir) { return dir_has_file(dir, "maps") && dir_has_kind(dir, DIR_REGION_FILES); }
bool img_is_memfetch(const char *dir) { return dir_has_file(dir, "mfetch.lst"); }
bool img_is_volatility(const char *dir, unsigned version)
{
	return dir_has_kind(dir, version == 2 ? DIR_VOL2 : DIR_VOL3);
}

/* ---- loading region files ---- */

static int dir_map(struct image *img, const char *dir, const char *name, const uint8_t **data, size_t *len,
		   struct err *e)
{
	char path[4096];

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path))
		return ERR_SET(e, ERR_IO, ERR_NO_VA, "%s/%s: path too long", dir, name);
	return img_map_file(img, path, data, len, e);
}

/* Maps dir/name as the capture of [start, end) (end 0: the file's size gives it). */
static int dir_add_file(struct image *img, const char *dir, const char *name, uint64_t start, uint64_t end,
			uint32_t prot, const char *region_name, struct err *e)
{
	const uint8_t *data;
	size_t len;
	int rc = dir_map(img, dir, name, &data, &len, e);

	if (rc)
		return rc;
	if (end == 0) {
		if (len == 0)
			return 0; /* an empty Volatility 2 file says nothing about its VMA */
		if (ck_add64(start, len, &end))
			return ERR_SET(e, ERR_CORRUPT, start, "%s/%s: %zu bytes at 0x%llx wrap the address space", dir,
				       name, len, (unsigned long long)start);
	}
	if (len > end - start)
		return ERR_SET(e, ERR_CORRUPT, start, "%s/%s: file holds %zu bytes, more than the %llu of region 0x%llx-0x%llx",
			       dir, name, len, (unsigned long long)(end - start), (unsigned long long)start,
			       (unsigned long long)end);
	/* an acquisition stopped early (or a file cut since): what the file holds is captured,
	 * the rest of the region is address space without bytes */
	img_note_cut(img, start, end - start - len, "file %s holds %zu of its %llu bytes", name, len,
		     (unsigned long long)(end - start));
	return img_push(img, start, end, prot, region_name, 0, data, len, e);
}

int img_load_maps_dir(struct image *img, const char *dir, struct err *e)
{
	struct dir_list l;
	int rc = dir_list(dir, &l, e);

	for (size_t i = 0; i < l.count && rc == 0; i++) {
		uint64_t start, end;
		if (img_parse_region_file_name(l.names[i], &start, &end))
			rc = dir_add_file(img, dir, l.names[i], start, end, IMG_PROT_UNKNOWN, "", e);
	}
	dir_list_free(&l);
	return rc;
}

int img_load_volatility(struct image *img, const char *dir, unsigned version, struct err *e)
{
	struct dir_list l;
	uint64_t first_pid = 0;
	bool have_pid = false;
	int rc = dir_list(dir, &l, e);

	for (size_t i = 0; i < l.count && rc == 0; i++) {
		uint64_t pid, start, end = 0;
		bool ok = version == 2 ? img_parse_vol2_name(l.names[i], &pid, &start)
				       : img_parse_vol3_name(l.names[i], &pid, &start, &end);
		if (!ok)
			continue;
		if (have_pid && pid != first_pid) {
			rc = ERR_SET(e, ERR_UNSUP, ERR_NO_VA, "%s: holds dumps of processes %llu and %llu; keep one process per directory",
				     dir, (unsigned long long)first_pid, (unsigned long long)pid);
			break;
		}
		first_pid = pid;
		have_pid = true;
		rc = dir_add_file(img, dir, l.names[i], start, end, IMG_PROT_UNKNOWN, "", e);
	}
	dir_list_free(&l);
	return rc;
}

/* ---- memfetch ---- */

struct mf_line {
	const char *s;
	size_t len;
};

static void mf_trim(struct mf_line *l)
{
	while (l->len && (l->s[l->len - 1] == '\n' || l->s[l->len - 1] == '\r' || l->s[l->len - 1] == ' ' ||
			  l->s[l->len - 1] == '\t'))
		l->len--;
	while (l->len && (l->s[0] == ' ' || l->s[0] == '\t')) {
		l->s++;
		l->len--;
	}
}

static bool mf_starts(const struct mf_line *l, const char *p)
{
	size_t n = strlen(p);
	return l->len >= n && !memcmp(l->s, p, n);
}

/* "0xSTART to 0xEND" or "0xSTART-0xEND" at the start of s (NUL-free, len bounded). */
static bool mf_range(const char *s, size_t len, uint64_t *start, uint64_t *end)
{
	char buf[96];
	struct name_scan n = { buf, 0 };

	if (len >= sizeof(buf))
		len = sizeof(buf) - 1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (!scan_lit(&n, "0x") || !scan_hex(&n, start))
		return false;
	if (!scan_lit(&n, " to 0x") && !scan_lit(&n, "-0x"))
		return false;
	return scan_hex(&n, end) && *end > *start;
}

static bool mf_file_name_ok(const char *s, size_t n)
{
	if (n == 0 || n >= 32 || s[0] == '.')
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') ||
		      s[i] == '-' || s[i] == '_' || s[i] == '.'))
			return false;
	return true;
}

struct mf_state {
	struct img_mfetch_entry ent;
	const char *from, *line_name; /* "MAPPED FROM:" path, the maps line's name */
	bool open, have_range, have_maps_line;
	unsigned line_no;
};

/* Starts an entry from "[NNN] FILE:" (+ optional " 0xS-0xE (N bytes)"). */
static int mf_header(struct mf_state *st, const struct mf_line *l, struct err *e)
{
	const char *close = memchr(l->s, ']', l->len);
	const char *colon;
	size_t at;
	unsigned idx = 0;

	if (!close)
		return ERR_SET(e, ERR_CORRUPT, ERR_NO_VA, "mfetch.lst line %u: entry header without ']'", st->line_no);
	for (const char *p = l->s + 1; p < close; p++) {
		if (*p < '0' || *p > '9' || idx > 1000000)
			return ERR_SET(e, ERR_CORRUPT, ERR_NO_VA, "mfetch.lst line %u: bad entry number", st->line_no);
		idx = idx * 10 + (unsigned)(*p - '0');
	}
	at = (size_t)(close - l->s) + 1;
	while (at < l->len && l->s[at] == ' ')
		at++;
	colon = memchr(l->s + at, ':', l->len - at);
	if (!colon || !mf_file_name_ok(l->s + at, (size_t)(colon - (l->s + at))))
		return ERR_SET(e, ERR_CORRUPT, ERR_NO_VA, "mfetch.lst line %u: expected \"[NNN] mem-NNN.bin:\"", st->line_no);
	memset(&st->ent, 0, sizeof(st->ent));
	st->ent.index = idx;
	memcpy(st->ent.file, l->s + at, (size_t)(colon - (l->s + at)));
	st->ent.prot = IMG_PROT_UNKNOWN;
	st->ent.name = "";
	st->from = st->line_name = "";
	st->open = true;
	st->have_maps_line = false;
	at = (size_t)(colon - l->s) + 1;
	while (at < l->len && l->s[at] == ' ')
		at++;
	st->have_range = mf_range(l->s + at, l->len - at, &st->ent.start, &st->ent.end);
	return 0;
}

static int mf_body_line(struct mf_state *st, const struct mf_line *l, struct arena *names, struct err *e)
{
	static const char range[] = "Memory range ", from[] = "MAPPED FROM:";
	struct maps_entry me;
	struct err why;
	int rc;

	if (mf_starts(l, range)) {
		st->have_range = mf_range(l->s + strlen(range), l->len - strlen(range), &st->ent.start, &st->ent.end);
		if (!st->have_range)
			return ERR_SET(e, ERR_CORRUPT, ERR_NO_VA, "mfetch.lst line %u: bad memory range", st->line_no);
		return 0;
	}
	if (mf_starts(l, from)) {
		struct mf_line p = { l->s + strlen(from), l->len - strlen(from) };
		mf_trim(&p);
		if (memchr(p.s, '\0', p.len))
			return ERR_SET(e, ERR_CORRUPT, ERR_NO_VA, "mfetch.lst line %u: NUL in the path", st->line_no);
		st->from = arena_strndup(names, p.s, p.len);
		return st->from ? 0 : ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "mfetch.lst: out of memory");
	}
	if (st->have_maps_line)
		return ERR_SET(e, ERR_CORRUPT, ERR_NO_VA, "mfetch.lst line %u: unexpected \"%.*s\"", st->line_no,
			       (int)(l->len > 60 ? 60 : l->len), l->s);
	/* the entry's /proc/PID/maps line (gives protection, and the name of mem- entries) */
	err_init(&why);
	if ((rc = maps_parse_line(l->s, l->len, st->line_no, &me, names, &why)) == -ERR_NOMEM)
		return (*e = why, rc);
	if (rc < 0)
		return ERR_SET(e, ERR_CORRUPT, ERR_NO_VA, "mfetch.lst line %u: unexpected \"%.*s\" (as a maps line: %s)",
			       st->line_no, (int)(l->len > 60 ? 60 : l->len), l->s, why.msg);
	st->have_maps_line = true;
	st->have_range = true;
	st->ent.start = me.start;
	st->ent.end = me.end;
	st->ent.prot = me.prot;
	st->line_name = me.name;
	return 0;
}

/* The mapping's name.  memfetch cuts the maps line at the character before the first '/'
 * and prints the rest as MAPPED FROM, so "[anon:x from /data/y]" comes back as the line's
 * name "[anon:x from" plus the path "/data/y]"; the cut character is taken to be the
 * space that precedes a path (for a plain file name the line's name part is empty). */
static const char *mf_name(struct mf_state *st, struct arena *names)
{
	size_t a = strlen(st->line_name), b = strlen(st->from);
	char *n;

	if (!b)
		return st->line_name;
	if (!a)
		return st->from;
	n = arena_alloc(names, a + b + 2);
	if (!n)
		return NULL;
	memcpy(n, st->line_name, a);
	n[a] = ' ';
	memcpy(n + a + 1, st->from, b + 1);
	return n;
}

static int mf_flush(struct mf_state *st, struct arena *names,
		    int (*fn)(void *, const struct img_mfetch_entry *, struct err *), void *ctx, struct err *e)
{
	if (!st->open)
		return 0;
	st->open = false;
	if (!st->have_range)
		return ERR_SET(e, ERR_CORRUPT, ERR_NO_VA, "mfetch.lst: entry [%03u] %s has no memory range",
			       st->ent.index, st->ent.file);
	st->ent.name = mf_name(st, names);
	if (!st->ent.name)
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "mfetch.lst: out of memory");
	return fn(ctx, &st->ent, e);
}

int img_mfetch_parse(const uint8_t *text, size_t len, struct arena *names,
		     int (*fn)(void *ctx, const struct img_mfetch_entry *ent, struct err *e), void *ctx,
		     struct err *e)
{
	const char *s = (const char *)text;
	struct mf_state st;
	size_t pos = 0;
	unsigned entries = 0;
	int rc = 0;

	memset(&st, 0, sizeof(st));
	/* one line per iteration; pos strictly advances */
	while (pos < len && rc == 0) {
		const char *nl = memchr(s + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - s) : len;
		struct mf_line l = { s + pos, end - pos };

		st.line_no++;
		pos = nl ? end + 1 : len;
		mf_trim(&l);
		if (l.len == 0 || l.s[0] == '#' || mf_starts(&l, "**"))
			continue;
		if (l.s[0] == '[') {
			if ((rc = mf_flush(&st, names, fn, ctx, e)) == 0 && (rc = mf_header(&st, &l, e)) == 0)
				entries++;
		} else if (st.open) {
			rc = mf_body_line(&st, &l, names, e);
		} else {
			rc = ERR_SET(e, ERR_CORRUPT, ERR_NO_VA, "mfetch.lst line %u: text before the first entry", st.line_no);
		}
	}
	if (rc == 0)
		rc = mf_flush(&st, names, fn, ctx, e);
	if (rc == 0 && entries == 0)
		rc = ERR_SET(e, ERR_CORRUPT, ERR_NO_VA, "mfetch.lst: no entries");
	return rc;
}

struct mf_load {
	struct image *img;
	const char *dir;
};

static int mf_add(void *ctx, const struct img_mfetch_entry *ent, struct err *e)
{
	struct mf_load *ml = ctx;
	return dir_add_file(ml->img, ml->dir, ent->file, ent->start, ent->end, ent->prot, ent->name, e);
}

int img_load_memfetch(struct image *img, const char *dir, struct err *e)
{
	const uint8_t *text;
	size_t len;
	struct arena names;
	struct mf_load ml = { img, dir };
	int rc = dir_map(img, dir, "mfetch.lst", &text, &len, e);

	if (rc)
		return rc;
	arena_init(&names);
	rc = img_mfetch_parse(text, len, &names, mf_add, &ml, e);
	arena_release(&names);
	if (rc && !strstr(e->msg, dir))
		err_prefix(e, "%s", dir);
	return rc;
}
