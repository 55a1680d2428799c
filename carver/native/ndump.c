/* ndump.c - "Android Native Heap Dump" v1.0/v1.1/v1.2 parser (see ndump.h and
 * doc/malloc-debug.md).  One pass over the lines; the record of the current "z" line is held
 * until the next line shows whether a v1.2 bt_info line belongs to it. */
#include "carver/native/ndump.h"

#include <stdio.h>
#include <string.h>

#include "carver/base/arena.h"
#include "carver/native/nheap_text.h"

#define NDUMP_MAGIC "Android Native Heap Dump v1."

enum ndump_phase { NDUMP_HEADER, NDUMP_RECORDS, NDUMP_MAPS, NDUMP_AFTER };

struct ndump_state {
	const char *path;
	const struct ndump_sink *sink;
	struct ndump_stats *st;
	struct ndump_header h;
	enum ndump_phase phase;
	bool pending;                   /* rec holds a record not yet given to the sink */
	struct ndump_record rec;
	uint64_t frames[NDUMP_MAX_FRAMES];
	struct ndump_frame_info info[NDUMP_MAX_FRAMES];
};

bool ndump_sniff(const uint8_t *text, size_t len)
{
	return len >= strlen(NDUMP_MAGIC) && memcmp(text, NDUMP_MAGIC, strlen(NDUMP_MAGIC)) == 0;
}

/* True when the (cut) line could still become a version line. */
static bool ndump_prefix_of_magic(const struct nh_line *l)
{
	size_t n = l->len < strlen(NDUMP_MAGIC) ? l->len : strlen(NDUMP_MAGIC);

	return memcmp(l->s, NDUMP_MAGIC, n) == 0;
}

/* "Android Native Heap Dump v1.N" (android_os_Debug.cpp writes v1.0, malloc_debug.cpp v1.1
 * in Android 9 and v1.2 from 10). */
static int ndump_version(struct ndump_state *s, const struct nh_line *l, struct err *e)
{
	struct nh_scan sc;
	uint64_t minor;
	int rc;

	nh_scan_init(&sc, l, s->path);
	if (!nh_lit(&sc, NDUMP_MAGIC))
		return nh_bad(&sc, e, ERR_CORRUPT, "not an Android native heap dump (expected \"%s0\", \"%s1\" or \"%s2\")",
			      NDUMP_MAGIC, NDUMP_MAGIC, NDUMP_MAGIC);
	if ((rc = nh_dec(&sc, &minor, "the minor version", e)))
		return rc;
	if (minor > 2)
		return nh_bad(&sc, e, ERR_UNSUP, "native heap dump v1.%llu is not supported (v1.0, v1.1, v1.2 are)",
			      (unsigned long long)minor);
	if ((rc = nh_expect_end(&sc, e)))
		return rc;
	s->h.minor = (unsigned)minor;
	s->h.line = l->no;
	return 0;
}

/* "KEY: N" header line; a second one of the same key is an error. */
static int ndump_header_num(struct nh_scan *sc, bool *has, uint64_t *v, const char *what, struct err *e)
{
	int rc;

	if (*has) {
		sc->pos = 0;
		return nh_bad(sc, e, ERR_CORRUPT, "second \"%s\" line", what);
	}
	nh_spaces(sc);
	if ((rc = nh_dec(sc, v, what, e)) || (rc = nh_expect_end(sc, e)))
		return rc;
	*has = true;
	return 0;
}

/* "Build fingerprint: 'F'" (malloc_debug.cpp write_dump, v1.2): F is the text between the
 * first and the last quote. */
static int ndump_fingerprint(struct ndump_state *s, struct nh_scan *sc, struct err *e)
{
	const char *q;
	size_t start;

	if (s->h.fingerprint) {
		sc->pos = 0;
		return nh_bad(sc, e, ERR_CORRUPT, "second \"Build fingerprint\" line");
	}
	nh_spaces(sc);
	if (!nh_lit(sc, "'"))
		return nh_bad(sc, e, ERR_CORRUPT, "expected the fingerprint in single quotes");
	start = sc->pos;
	q = sc->l->s + sc->l->len;
	while (q > sc->l->s + start && q[-1] != '\'')
		q--;
	if (q == sc->l->s + start)
		return nh_bad(sc, e, ERR_CORRUPT, "the fingerprint has no closing quote");
	s->h.fingerprint = sc->l->s + start;
	s->h.fingerprint_len = (size_t)(q - 1 - (sc->l->s + start));
	return 0;
}

static int ndump_header_line(struct ndump_state *s, const struct nh_line *l, struct err *e)
{
	struct nh_scan sc;

	nh_scan_init(&sc, l, s->path);
	if (nh_lit(&sc, "Total memory:"))
		return ndump_header_num(&sc, &s->h.has_total, &s->h.total_memory, "the total memory", e);
	if (nh_lit(&sc, "Allocation records:"))
		return ndump_header_num(&sc, &s->h.has_records, &s->h.alloc_records, "the record count", e);
	if (nh_lit(&sc, "Backtrace size:")) {
		int rc = ndump_header_num(&sc, &s->h.has_bt_size, &s->h.bt_size, "the backtrace size", e);
		if (rc == 0 && s->h.bt_size > NDUMP_MAX_FRAMES)
			return nh_bad(&sc, e, ERR_CORRUPT, "backtrace size %llu above malloc_debug's maximum %d",
				      (unsigned long long)s->h.bt_size, NDUMP_MAX_FRAMES);
		return rc;
	}
	if (nh_lit(&sc, "Build fingerprint:"))
		return ndump_fingerprint(s, &sc, e);
	return nh_bad(&sc, e, ERR_CORRUPT, "unknown header line (expected Total memory, Allocation records, "
		      "Backtrace size, Build fingerprint, a \"z\" record or MAPS)");
}

static int ndump_flush(struct ndump_state *s, struct err *e)
{
	int rc = 0;

	if (!s->pending)
		return 0;
	s->pending = false;
	s->st->records++;
	if (s->sink->record)
		rc = s->sink->record(s->sink->ctx, &s->rec, e);
	return rc;
}

static int ndump_end_header(struct ndump_state *s, struct err *e)
{
	if (s->st->header_done)
		return 0;
	s->st->header_done = true;
	return s->sink->header ? s->sink->header(s->sink->ctx, &s->h, e) : 0;
}

/* "NAME N" pair of a record line, e.g. "sz      400" (PointerData.cpp "z %d  sz %8zu  num
 * %zu  bt", android_os_Debug.cpp "num %4zu"). */
static int ndump_pair(struct nh_scan *sc, const char *key, uint64_t *v, const char *what, struct err *e)
{
	int rc;

	if (nh_spaces(sc) == 0 || !nh_lit(sc, key) || nh_spaces(sc) == 0)
		return nh_bad(sc, e, ERR_CORRUPT, "expected \"%s\" and %s", key, what);
	if ((rc = nh_dec(sc, v, what, e)) || (rc = nh_field_end(sc, what, e)))
		return rc;
	return 0;
}

static int ndump_record_line(struct ndump_state *s, const struct nh_line *l, struct err *e)
{
	struct ndump_record *r = &s->rec;
	struct nh_scan sc;
	uint64_t z, limit = s->h.has_bt_size ? s->h.bt_size : NDUMP_MAX_FRAMES;
	int rc;

	nh_scan_init(&sc, l, s->path);
	memset(r, 0, sizeof(*r));
	r->frames = s->frames;
	r->info = s->info;
	r->line = l->no;
	sc.pos = 1;     /* past "z" */
	if (nh_spaces(&sc) == 0 || (rc = nh_dec(&sc, &z, "the zygote flag", e)) == 0)
		rc = nh_field_end(&sc, "the zygote flag", e);
	if (rc)
		return rc;
	if (z > 1)
		return nh_bad(&sc, e, ERR_CORRUPT, "zygote flag %llu is neither 0 nor 1", (unsigned long long)z);
	r->zygote_child = z == 1;
	if ((rc = ndump_pair(&sc, "sz", &r->size, "the allocation size", e)) ||
	    (rc = ndump_pair(&sc, "num", &r->num, "the allocation count", e)))
		return rc;
	if (nh_spaces(&sc) == 0 || !nh_lit(&sc, "bt"))
		return nh_bad(&sc, e, ERR_CORRUPT, "expected \"bt\" and the frames");
	if ((rc = nh_field_end(&sc, "\"bt\"", e)))
		return rc;
	for (;;) {
		nh_spaces(&sc);
		if (nh_at_end(&sc))
			break;
		if (r->nframes == limit)
			return nh_bad(&sc, e, ERR_CORRUPT, "more than %llu frames%s", (unsigned long long)limit,
				      s->h.has_bt_size ? " (the header's backtrace size)" : "");
		if ((rc = nh_hex(&sc, &s->frames[r->nframes], true, "a frame address", e)) ||
		    (rc = nh_field_end(&sc, "a frame address", e)))
			return rc;
		r->nframes++;
	}
	s->pending = true;
	return 0;
}

/* Index of the closing quote of a bt_info string starting at from: the first '"' followed by
 * " HEX" and then tail ("" or "}"), so names holding quotes still parse. */
static bool ndump_close_quote(const struct nh_line *l, size_t from, bool then_brace, size_t *at)
{
	for (size_t i = from; i < l->len; i++) {
		size_t j = i + 1, digits = 0;
		if (l->s[i] != '"')
			continue;
		if (j >= l->len || l->s[j] != ' ')
			continue;
		for (j++; j < l->len && ((l->s[j] >= '0' && l->s[j] <= '9') || (l->s[j] >= 'a' && l->s[j] <= 'f')); j++)
			digits++;
		if (digits == 0)
			continue;
		if (then_brace ? (j < l->len && l->s[j] == '}') : (j < l->len && l->s[j] == ' ')) {
			*at = i;
			return true;
		}
	}
	return false;
}

/* One {"MAP" RELPC "FUNC" OFF} (PointerData.cpp DumpLiveToFile, backtrace_full). */
static int ndump_info_elem(struct nh_scan *sc, struct ndump_frame_info *fi, struct err *e)
{
	size_t q;
	int rc;

	if (!nh_lit(sc, "{\""))
		return nh_bad(sc, e, ERR_CORRUPT, "expected {\"MAP\" RELPC \"FUNCTION\" OFFSET}");
	if (!ndump_close_quote(sc->l, sc->pos, false, &q))
		return nh_bad(sc, e, ERR_CORRUPT, "expected the map name's closing quote and the relative pc");
	fi->map = sc->l->s + sc->pos;
	fi->map_len = q - sc->pos;
	sc->pos = q + 2;
	if ((rc = nh_hex(sc, &fi->rel_pc, false, "the relative pc", e)))
		return rc;
	if (!nh_lit(sc, " \""))
		return nh_bad(sc, e, ERR_CORRUPT, "expected the function name in quotes");
	if (!ndump_close_quote(sc->l, sc->pos, true, &q))
		return nh_bad(sc, e, ERR_CORRUPT, "expected the function name's closing quote and its offset");
	fi->func = sc->l->s + sc->pos;
	fi->func_len = q - sc->pos;
	sc->pos = q + 2;
	if ((rc = nh_hex(sc, &fi->func_off, false, "the function offset", e)))
		return rc;
	if (!nh_lit(sc, "}"))
		return nh_bad(sc, e, ERR_CORRUPT, "expected '}'");
	return nh_field_end(sc, "'}'", e);
}

static int ndump_bt_info(struct ndump_state *s, struct nh_scan *sc, struct err *e)
{
	struct ndump_record *r = &s->rec;
	int rc;

	if (s->h.minor < 2)
		return nh_bad(sc, e, ERR_CORRUPT, "bt_info lines exist only in v1.2");
	if (!s->pending || r->ninfo)
		return nh_bad(sc, e, ERR_CORRUPT, "bt_info line without a record line before it");
	for (;;) {
		nh_spaces(sc);
		if (nh_at_end(sc))
			return 0;
		if (r->ninfo == NDUMP_MAX_FRAMES)
			return nh_bad(sc, e, ERR_CORRUPT, "more than %d bt_info frames", NDUMP_MAX_FRAMES);
		if ((rc = ndump_info_elem(sc, &s->info[r->ninfo], e)))
			return rc;
		r->ninfo++;
	}
}

static int ndump_map_line(struct ndump_state *s, const struct nh_line *l, struct err *e)
{
	struct maps_entry m;
	struct arena names;
	struct nh_scan sc;
	int rc;

	if (l->len == 3 && memcmp(l->s, "END", 3) == 0) {
		s->phase = NDUMP_AFTER;
		s->st->ended = true;
		return 0;
	}
	if (l->len >= 14 && memcmp(l->s, "Could not open", 14) == 0) {  /* malloc_debug.cpp write_dump */
		s->st->maps_unreadable = true;
		return 0;
	}
	arena_init(&names);
	rc = maps_parse_line(l->s, l->len, (unsigned)(l->no > UINT32_MAX ? UINT32_MAX : l->no), &m, &names, e);
	if (rc < 0 && rc != -ERR_NOMEM) {
		char msg[sizeof(e->msg)];
		memcpy(msg, e->msg, sizeof(msg));
		nh_scan_init(&sc, l, s->path);
		rc = nh_bad(&sc, e, ERR_CORRUPT, "MAPS line: %s", msg);
	} else if (rc == 0) {
		s->st->map_lines++;
		if (s->sink->map)
			rc = s->sink->map(s->sink->ctx, &m, e);
	} else if (rc == 1) {
		rc = 0;
	}
	arena_release(&names);
	return rc;
}

static int ndump_line(struct ndump_state *s, const struct nh_line *l, struct err *e)
{
	struct nh_scan sc;
	bool blank;
	int rc;

	nh_scan_init(&sc, l, s->path);
	nh_spaces(&sc);
	blank = nh_at_end(&sc);
	if (s->phase == NDUMP_MAPS)
		return ndump_map_line(s, l, e);
	if (s->phase == NDUMP_AFTER)
		return blank ? 0 : nh_bad(&sc, e, ERR_CORRUPT, "text after the END line");
	if (blank)
		return 0;
	if (sc.pos > 0 && nh_lit(&sc, "bt_info"))
		return s->phase == NDUMP_RECORDS ? ndump_bt_info(s, &sc, e)
						 : nh_bad(&sc, e, ERR_CORRUPT, "bt_info line without a record line before it");
	if (l->len >= 2 && l->s[0] == 'z' && (l->s[1] == ' ' || l->s[1] == '\t')) {
		if ((rc = ndump_flush(s, e)) || (rc = ndump_end_header(s, e)))
			return rc;
		s->phase = NDUMP_RECORDS;
		return ndump_record_line(s, l, e);
	}
	if (l->len == 4 && memcmp(l->s, "MAPS", 4) == 0) {
		if ((rc = ndump_flush(s, e)) || (rc = ndump_end_header(s, e)))
			return rc;
		s->phase = NDUMP_MAPS;
		s->st->in_maps = true;
		return 0;
	}
	if (s->phase == NDUMP_HEADER)
		return ndump_header_line(s, l, e);
	return nh_bad(&sc, e, ERR_CORRUPT, "expected a \"z\" record, a bt_info line or MAPS");
}

static int ndump_truncated(struct ndump_state *s, uint64_t line, uint64_t off, struct err *e)
{
	char hdr[64] = "";

	if (s->h.has_records)
		snprintf(hdr, sizeof(hdr), " of the %llu the header announces", (unsigned long long)s->h.alloc_records);
	return ERR_SET(e, ERR_TRUNC, off, "%s: truncated at line %llu (byte %llu): read %llu records%s, %llu MAPS lines, no END line",
		       s->path, (unsigned long long)line, (unsigned long long)off, (unsigned long long)s->st->records,
		       hdr, (unsigned long long)s->st->map_lines);
}

int ndump_parse(const uint8_t *text, size_t len, const char *path, const struct mapfile *drop,
		const struct ndump_sink *sink, struct ndump_stats *st, struct err *e)
{
	struct ndump_state local, *s = &local;
	struct nh_lines lines;
	struct nh_line l;
	int rc = 0;

	memset(s, 0, sizeof(*s));
	memset(st, 0, sizeof(*st));
	s->path = path;
	s->sink = sink;
	s->st = st;
	nh_lines_init(&lines, text, len, drop);
	while (rc == 0 && nh_lines_next(&lines, &l) == 1) {
		st->lines = l.no;
		st->bytes = l.off;
		/* a last line without its newline was cut: not parsed, unless it is the END line or
		 * a first line that is not even the start of a version line */
		if (!l.complete && !(s->phase == NDUMP_MAPS && l.len == 3 && memcmp(l.s, "END", 3) == 0) &&
		    !(l.no == 1 && !ndump_prefix_of_magic(&l)))
			break;
		rc = l.no == 1 ? ndump_version(s, &l, e) : ndump_line(s, &l, e);
		st->bytes = nh_lines_offset(&lines);
	}
	if (rc)
		return rc;
	if (st->lines == 0)
		return ERR_SET(e, ERR_TRUNC, 0, "%s: empty file, not a native heap dump", path);
	if (s->h.line == 0)
		return ERR_SET(e, ERR_TRUNC, 0, "%s: truncated in the version line", path);
	if ((rc = ndump_flush(s, e)) || (rc = ndump_end_header(s, e)))
		return rc;
	if (!st->ended)
		return ndump_truncated(s, st->lines, st->bytes, e);
	return 0;
}
