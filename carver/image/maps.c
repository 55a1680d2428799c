/* maps.c - /proc/PID/maps parser (see maps.h).  Line layout from the kernel's
 * fs/proc/task_mmu.c show_map_vma(): "%08lx-%08lx %c%c%c%c %08llx %02x:%02x %lu " and then
 * the name padded to column 73 (so a name may hold spaces and starts after the padding). */
#include "carver/image/maps.h"

#include <string.h>

#include "carver/base/ck.h"
#include "carver/base/mapfile.h"
#include "carver/base/xalloc.h"

#define MAPS_DELETED " (deleted)"

struct maps_scan {
	const char *s;
	size_t len, pos;
};

static bool maps_is_space(char ch) { return ch == ' ' || ch == '\t'; }

static void maps_skip_space(struct maps_scan *sc)
{
	while (sc->pos < sc->len && maps_is_space(sc->s[sc->pos]))
		sc->pos++;
}

static int maps_hexval(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

/* Hex number of 1..16 digits with an optional 0x; false if none or too long. */
static bool maps_hex(struct maps_scan *sc, uint64_t *v)
{
	unsigned digits = 0;

	*v = 0;
	if (sc->len - sc->pos >= 2 && sc->s[sc->pos] == '0' && (sc->s[sc->pos + 1] == 'x' || sc->s[sc->pos + 1] == 'X'))
		sc->pos += 2;
	while (sc->pos < sc->len && maps_hexval(sc->s[sc->pos]) >= 0) {
		if (++digits > 16)
			return false;
		*v = *v << 4 | (uint64_t)maps_hexval(sc->s[sc->pos]);
		sc->pos++;
	}
	return digits > 0;
}

static bool maps_dec(struct maps_scan *sc, uint64_t *v)
{
	unsigned digits = 0;

	*v = 0;
	while (sc->pos < sc->len && sc->s[sc->pos] >= '0' && sc->s[sc->pos] <= '9') {
		if (++digits > 20 || ck_mul64(*v, 10, v) || ck_add64(*v, (uint64_t)(sc->s[sc->pos] - '0'), v))
			return false;
		sc->pos++;
	}
	return digits > 0;
}

static bool maps_perms(struct maps_scan *sc, uint32_t *prot, bool *shared)
{
	static const char want[3] = { 'r', 'w', 'x' };
	static const uint32_t bit[3] = { 4, 2, 1 };

	if (sc->len - sc->pos < 4)
		return false;
	*prot = 0;
	for (int i = 0; i < 3; i++) {
		char ch = sc->s[sc->pos + (size_t)i];
		if (ch == want[i])
			*prot |= bit[i];
		else if (ch != '-')
			return false;
	}
	switch (sc->s[sc->pos + 3]) {
	case 's': *shared = true; break;
	case 'p': case '-': *shared = false; break;
	default: return false;
	}
	sc->pos += 4;
	return sc->pos == sc->len || maps_is_space(sc->s[sc->pos]);
}

/* The optional "OFFSET MAJOR:MINOR INODE" columns, all or nothing: when they do not all
 * parse, the rest of the line is the name (some tools print only "START-END PERMS NAME"). */
static void maps_tail(struct maps_scan *sc, struct maps_entry *out)
{
	struct maps_scan t = *sc;
	uint64_t offset, major, minor, inode;

	maps_skip_space(&t);
	if (!maps_hex(&t, &offset))
		return;
	maps_skip_space(&t);
	if (!maps_hex(&t, &major) || t.pos >= t.len || t.s[t.pos] != ':')
		return;
	t.pos++;
	if (!maps_hex(&t, &minor))
		return;
	maps_skip_space(&t);
	if (!maps_dec(&t, &inode) || (t.pos < t.len && !maps_is_space(t.s[t.pos])))
		return;
	out->offset = offset;
	out->inode = inode;
	*sc = t;
}

static int maps_bad(struct err *e, unsigned line_no, const char *what, const char *line, size_t len)
{
	int n = len > 60 ? 60 : (int)len;
	return ERR_SET(e, ERR_CORRUPT, ERR_NO_VA, "maps line %u: %s in \"%.*s%s\"", line_no, what, n,
		       line, len > 60 ? "..." : "");
}

int maps_parse_line(const char *line, size_t len, unsigned line_no, struct maps_entry *out,
		    struct arena *names, struct err *e)
{
	struct maps_scan sc = { line, len, 0 };
	size_t name_end;

	memset(out, 0, sizeof(*out));
	out->name = "";
	while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
		len--;
	sc.len = len;
	maps_skip_space(&sc);
	if (sc.pos == sc.len)
		return 1;
	if (!maps_hex(&sc, &out->start) || sc.pos >= sc.len || sc.s[sc.pos++] != '-' ||
	    !maps_hex(&sc, &out->end))
		return maps_bad(e, line_no, "expected START-END in hex", line, len);
	if (out->end <= out->start)
		return maps_bad(e, line_no, "end address not above start", line, len);
	maps_skip_space(&sc);
	if (!maps_perms(&sc, &out->prot, &out->shared))
		return maps_bad(e, line_no, "expected permissions like rw-p", line, len);
	maps_tail(&sc, out);
	maps_skip_space(&sc);
	name_end = sc.len;
	while (name_end > sc.pos && maps_is_space(sc.s[name_end - 1]))
		name_end--;
	if (name_end - sc.pos >= strlen(MAPS_DELETED) &&
	    !memcmp(sc.s + name_end - strlen(MAPS_DELETED), MAPS_DELETED, strlen(MAPS_DELETED)))
		out->deleted = true;
	if (memchr(sc.s + sc.pos, '\0', name_end - sc.pos))
		return maps_bad(e, line_no, "NUL byte in the name", line, len);
	if (name_end > sc.pos) {
		char *n = arena_strndup(names, sc.s + sc.pos, name_end - sc.pos);
		if (!n)
			return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "maps line %u: out of memory", line_no);
		out->name = n;
	}
	return 0;
}

void maps_init(struct maps *m)
{
	memset(m, 0, sizeof(*m));
	arena_init(&m->names);
}

void maps_release(struct maps *m)
{
	xfree(m->entries);
	arena_release(&m->names);
	maps_init(m);
}

static int maps_push(struct maps *m, const struct maps_entry *ent, struct err *e)
{
	if (m->count == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 64;
		struct maps_entry *p = xreallocarray(m->entries, cap, sizeof(*p));
		if (!p)
			return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "maps: out of memory for %zu lines", cap);
		m->entries = p;
		m->cap = cap;
	}
	m->entries[m->count++] = *ent;
	return 0;
}

int maps_parse(struct maps *m, const uint8_t *text, size_t len, struct err *e)
{
	const char *s = (const char *)text;
	size_t pos = 0;
	unsigned line_no = 0;

	/* one iteration per line: pos strictly advances */
	while (pos < len) {
		const char *nl = memchr(s + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - s) : len;
		struct maps_entry ent;
		int rc;

		line_no++;
		rc = maps_parse_line(s + pos, end - pos, line_no, &ent, &m->names, e);
		if (rc < 0)
			return rc;
		if (rc == 0 && (rc = maps_push(m, &ent, e)) < 0)
			return rc;
		pos = nl ? end + 1 : len;
	}
	return 0;
}

int maps_load(struct maps *m, const char *path, struct err *e)
{
	struct mapfile f;
	int rc = mapfile_open(&f, path, e);

	if (rc)
		return rc;
	rc = maps_parse(m, f.data, f.len, e);
	mapfile_close(&f);
	if (rc)
		err_prefix(e, "%s", path);
	return rc;
}

const struct maps_entry *maps_find(const struct maps *m, uint64_t va)
{
	for (size_t i = m->count; i-- > 0;)
		if (va >= m->entries[i].start && va < m->entries[i].end)
			return &m->entries[i];
	return NULL;
}

const char *maps_prot_text(uint32_t prot, bool shared, char buf[5])
{
	buf[0] = prot & 4 ? 'r' : '-';
	buf[1] = prot & 2 ? 'w' : '-';
	buf[2] = prot & 1 ? 'x' : '-';
	buf[3] = shared ? 's' : 'p';
	buf[4] = '\0';
	return buf;
}
