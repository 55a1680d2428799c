/* bmd_crunch.c - HPROF -> BMD as badoo HprofCruncher + CrunchProcessor do it
 * (HprofCruncher, badoo/hprof-tools @ 5e5408e).
 *
 * Pass 1 (file order): header -> BMD header; STRING -> STRING or HASHED_STRING; LOAD_CLASS
 * remembered; CLASS_DUMP -> CLASS_DEFINITION; UNLOAD_CLASS and HEAP_DUMP_END dropped; any
 * other record -> LEGACY_HPROF_RECORD.  Pass 2 (heap records only): INSTANCE_DUMP,
 * OBJECT_ARRAY, PRIMITIVE_ARRAY_PLACEHOLDER in file order, root ids collected; at the end one
 * ROOT_OBJECTS.  Ids are renumbered from 1 in order of first use, strings and objects
 * separately (B.6.6).  Memory: class layouts, the two id maps and the root list; the input is
 * read in place and released behind the cursor through opts->consumed. */
#include "output/bmd/bmd_codec.h"

#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "carver/base/ck.h"
#include "carver/base/mapfile.h"
#include "carver/base/xalloc.h"
#include "output/hprof/hprof_reader.h"

#define CR_FLUSH_AT (1u << 20)
#define CR_RELEASE_EVERY (2u << 20)

/* ---- object id map -------------------------------------------------------------------------- */

/* mapObjectId for millions of objects in little memory.  Object ids are addresses, 8-aligned
 * in both HotSpot and ART dumps; a decrunched dump numbers its objects 1, 2, 3...  Pass 1
 * marks the id of every dumped object in a sparse bitmap (pages of 4096 granules); freezing
 * it gives each marked id a rank, and the new ids live in a dense array indexed by rank:
 * about 4.3 bytes per object instead of a hash table's 10-16.  A granule starts at 8 bytes
 * and shrinks (the marks are redone once per halving, at most three times) when a dumped id
 * is not a multiple of it, so unaligned ids cost what aligned ones do.  Ids that are not
 * marked (references to objects the dump lacks, anything mapped before the freeze) use a
 * general hash map; the freeze moves pass-1 mappings of marked ids into the array so each
 * id has exactly one home. */
#define OM_PAGE_BITS 12                 /* granules per page: 4096 (32 KiB of addresses) */
#define OM_WORDS (1u << (OM_PAGE_BITS - 6))
#define OM_NONE UINT64_MAX

struct om_page {
	uint64_t bits[OM_WORDS];
	uint16_t prefix[OM_WORDS];      /* marked granules before each word (after freeze) */
	uint64_t base;                  /* rank of the page's first marked granule */
	uint64_t no;                    /* page number: granule >> OM_PAGE_BITS */
};

struct objmap {
	struct htab pages;         /* page number -> index in page[] */
	uint32_t *dir;                  /* after freeze, when the pages span a modest range: index
					 * + 1 by page number - dir_lo (0 = no page), no hashing */
	uint64_t dir_lo, dir_n;
	struct om_page *page;
	size_t page_count, page_cap;
	uint32_t *ids;                  /* per rank: mapped id + 0 (0 = not yet mapped) */
	unsigned shift;                 /* log2 of the granule: 3, less for unaligned ids */
	uint64_t ranks;
	bool frozen;
	struct htab other;
	uint64_t last_no;               /* one-entry page cache */
	struct om_page *last;
};

static struct om_page *om_find(struct objmap *m, uint64_t page_no)
{
	uint32_t idx;

	if (m->last && m->last_no == page_no)
		return m->last;
	if (m->dir) {
		if (page_no - m->dir_lo >= m->dir_n || !m->dir[page_no - m->dir_lo])
			return NULL;
		idx = m->dir[page_no - m->dir_lo] - 1;
	} else if (!htab_get(&m->pages, page_no, &idx)) {
		return NULL;
	}
	m->last_no = page_no;
	m->last = &m->page[idx];
	return m->last;
}

static int om_mark(struct objmap *m, uint64_t id, struct err *e);

/* A dumped id that is not a multiple of the granule: the marks so far are redone with the
 * granule its lowest set bit allows (the bitmap grows, no mark is lost). */
static int om_regranulate(struct objmap *m, unsigned shift, struct err *e)
{
	struct om_page *old = m->page;
	size_t n = m->page_count;
	unsigned old_shift = m->shift;
	int rc = 0;

	m->page = NULL;
	m->page_count = m->page_cap = 0;
	m->last = NULL;
	htab_release(&m->pages);
	htab_init(&m->pages);
	m->shift = shift;
	for (size_t i = 0; i < n && rc == 0; i++)
		for (unsigned w = 0; w < OM_WORDS && rc == 0; w++)
			for (uint64_t bits = old[i].bits[w]; bits && rc == 0; bits &= bits - 1) {
				uint64_t g = (old[i].no << OM_PAGE_BITS) + (uint64_t)w * 64 + (unsigned)__builtin_ctzll(bits);
				rc = om_mark(m, g << old_shift, e);
			}
	xfree(old);
	return rc;
}

/* Pass 1: remembers that an object with this id is dumped. */
static int om_mark(struct objmap *m, uint64_t id, struct err *e)
{
	uint64_t g, page_no;
	struct om_page *p;
	int rc;

	if (id == 0)
		return 0;
	if (id & ((1ULL << m->shift) - 1) && (rc = om_regranulate(m, (unsigned)__builtin_ctzll(id), e)))
		return rc;
	g = id >> m->shift;
	page_no = g >> OM_PAGE_BITS;
	p = om_find(m, page_no);
	if (!p) {
		if (m->page_count == m->page_cap) {
			if (XALLOC_GROW(m->page, m->page_cap, m->page_count + 1, 64))
				return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory for %zu id pages", m->page_count + 1);
			m->last = NULL;         /* the pages moved */
		}
		if ((rc = bmd_idmap_put(&m->pages, page_no, (uint32_t)m->page_count, e)))
			return rc;
		p = &m->page[m->page_count++];
		memset(p, 0, sizeof(*p));
		p->no = page_no;
		m->last_no = page_no;
		m->last = p;
	}
	p->bits[(g >> 6) & (OM_WORDS - 1)] |= 1ULL << (g & 63);
	return 0;
}

/* Bits set in x (SWAR: __builtin_popcountll is a libgcc call without -mpopcnt). */
static inline unsigned om_popcount(uint64_t x)
{
	x -= (x >> 1) & 0x5555555555555555ULL;
	x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
	return (unsigned)((x * 0x0101010101010101ULL) >> 56);
}

static uint64_t om_rank(struct objmap *m, uint64_t id)
{
	uint64_t g = id >> m->shift, bit, word;
	struct om_page *p;
	unsigned w;

	if (id & ((1ULL << m->shift) - 1) || !(p = om_find(m, g >> OM_PAGE_BITS)))
		return OM_NONE;
	w = (unsigned)(g >> 6) & (OM_WORDS - 1);
	word = p->bits[w];
	bit = 1ULL << (g & 63);
	if (!(word & bit))
		return OM_NONE;
	return p->base + p->prefix[w] + om_popcount(word & (bit - 1));
}

/* Pass 2 looks a page up for every reference: when the pages lie within a range of at most
 * OM_DIR_MAX page numbers (any 4-byte-id dump; a compact 64-bit heap), an array replaces the
 * hash map.  Without memory for it the hash map stays. */
#define OM_DIR_MAX ((uint64_t)1 << 20)   /* 4 MiB of array */

static void om_direct(struct objmap *m)
{
	uint64_t lo = UINT64_MAX, hi = 0;

	for (size_t i = 0; i < m->page_count; i++) {
		lo = m->page[i].no < lo ? m->page[i].no : lo;
		hi = m->page[i].no > hi ? m->page[i].no : hi;
	}
	if (m->page_count == 0 || m->page_count >= UINT32_MAX || hi - lo >= OM_DIR_MAX)
		return;
	m->dir = xcalloc((size_t)(hi - lo + 1), sizeof(*m->dir));
	if (!m->dir)
		return;
	m->dir_lo = lo;
	m->dir_n = hi - lo + 1;
	for (size_t i = 0; i < m->page_count; i++)
		m->dir[m->page[i].no - lo] = (uint32_t)i + 1;
}

/* After pass 1: ranks, the id array, and pass-1 mappings of marked ids moved into it. */
static int om_freeze(struct objmap *m, struct err *e)
{
	struct htab rest;
	int rc = 0;

	for (size_t i = 0; i < m->page_count; i++) {
		struct om_page *p = &m->page[i];
		unsigned n = 0;
		p->base = m->ranks;
		for (unsigned w = 0; w < OM_WORDS; w++) {
			p->prefix[w] = (uint16_t)n;
			n += om_popcount(p->bits[w]);
		}
		m->ranks += n;
	}
	om_direct(m);
	m->ids = xcalloc(m->ranks ? (size_t)m->ranks : 1, sizeof(*m->ids));
	if (!m->ids)
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory for %llu object ids", (unsigned long long)m->ranks);
	m->frozen = true;
	htab_init(&rest);
	for (size_t s = htab_next(&m->other, 0); s != HTAB_END && rc == 0; s = htab_next(&m->other, s + 1)) {
		uint64_t r = om_rank(m, m->other.keys[s]);
		if (r != OM_NONE)
			m->ids[r] = htab_val(&m->other, s) + 1;   /* mapped id + 1 */
		else
			rc = bmd_idmap_put(&rest, m->other.keys[s], htab_val(&m->other, s), e);
	}
	htab_release(&m->other);
	m->other = rest;
	return rc;
}

/* mapObjectId: the id's number, a fresh one (*next) on first use; 0 stays 0. */
static int objmap_map(struct objmap *m, uint64_t id, uint32_t *next, uint32_t *out, struct err *e)
{
	uint64_t r;
	bool added;
	int rc;

	if (id == 0) {
		*out = 0;
		return 0;
	}
	if (*next >= UINT32_MAX - 2)
		return ERR_SET(e, ERR_UNSUP, ERR_NO_VA, "more than 4294967293 distinct object ids");
	if (m->frozen && (r = om_rank(m, id)) != OM_NONE) {
		if (!m->ids[r])
			m->ids[r] = ++*next;            /* stored + 1: next - 1 is the new id */
		*out = m->ids[r] - 1;
		return 0;
	}
	if ((rc = bmd_idmap_get_or_put(&m->other, id, *next, out, &added, e)))
		return rc;
	*next += added;
	return 0;
}

static void objmap_release(struct objmap *m)
{
	xfree(m->dir);
	htab_release(&m->pages);
	htab_release(&m->other);
	xfree(m->page);
	xfree(m->ids);
}

/* ---- classes ---------------------------------------------------------------------------------- */

/* One field step of an instance payload walk, precomputed per class chain. */
enum { OP_OBJECT, OP_SKIP, OP_VALUE };
struct cr_op { uint8_t op, type; uint32_t n; };   /* VALUE: BMD type; SKIP: byte count */

struct cr_class {
	uint64_t id, name_id, super_id;
	bool has_super;                 /* a CLASS_DUMP set super_id */
	/* the constants / statics / fields lists in effect: Badoo replaces a list only when a
	 * CLASS_DUMP has a non-empty one, and a LOAD_CLASS starts the class afresh */
	struct cursor consts, statics, fields;
	uint16_t nconst, nstatic, nfield;
	/* pass 2 */
	int preserve;                   /* -1 unknown, 0, 1 */
	struct cr_op *plan;             /* NULL until first needed */
	uint32_t plan_len;
	uint64_t payload;               /* bytes the plan consumes */
};

struct cr {
	const uint8_t *data;
	size_t len;
	const char *label;
	const struct bmd_crunch_opts *o;
	const struct bmd_sink *sink;
	struct bmd_crunch_stats *st;
	unsigned id;
	struct wbuf out;
	uint64_t flushed;
	struct htab strings;       /* original string id -> mapped */
	uint32_t next_string, next_object;
	uint8_t *kept;                  /* per mapped string id: kept in clear (preserved) */
	size_t kept_cap;
	struct objmap objects;
	struct htab class_index;   /* class object id -> index in classes */
	struct cr_class *classes;
	size_t class_count, class_cap;
	uint64_t *roots;
	size_t root_count, root_cap;
	uint64_t released;              /* input offset last reported as consumed */
	uint64_t pass_base;             /* progress: 0 in pass 1, len in pass 2 */
	struct arena plans;
	struct wbuf text;
};

static int cr_flush(struct cr *c, struct err *e)
{
	int rc;

	if ((rc = wbuf_status(&c->out, e)))
		return rc;
	if (!c->out.len)
		return 0;
	if ((rc = c->sink->write(c->sink->ctx, c->out.data, c->out.len, e)))
		return rc;
	c->flushed += c->out.len;
	wbuf_reset(&c->out);
	return 0;
}

/* Flushes full output buffers and tells the caller which input bytes are done with, so a
 * mapped input does not stay resident (pass 2 maps it in again). */
static inline int cr_maybe_flush(struct cr *c, uint64_t consumed, struct err *e)
{
	progress_to(c->o->progress, c->pass_base + consumed);
	if (c->o->consumed && consumed >= c->released + CR_RELEASE_EVERY) {
		c->o->consumed(c->o->consumed_ctx, (size_t)consumed);
		c->released = consumed;
	}
	return c->out.len >= CR_FLUSH_AT ? cr_flush(c, e) : 0;
}

static int cr_map_string(struct cr *c, uint64_t id, uint32_t *out, struct err *e)
{
	bool added;
	int rc;

	if (id == 0) {
		*out = 0;
		return 0;
	}
	if ((rc = bmd_idmap_get_or_put(&c->strings, id, c->next_string, out, &added, e)))
		return rc;
	c->next_string += added;
	return 0;
}

static inline int cr_map_object(struct cr *c, uint64_t id, uint32_t *out, struct err *e)
{
	return objmap_map(&c->objects, id, &c->next_object, out, e);
}

/* writeInt32(mapObjectId(id)) */
static inline int cr_put_object(struct cr *c, uint64_t id, struct err *e)
{
	uint32_t v;
	int rc = cr_map_object(c, id, &v, e);

	if (rc == 0)
		bmd_put_int32(&c->out, (int32_t)v);
	return rc;
}

static int cr_put_string_id(struct cr *c, uint64_t id, struct err *e)
{
	uint32_t v;
	int rc = cr_map_string(c, id, &v, e);

	if (rc == 0)
		bmd_put_int32(&c->out, (int32_t)v);
	return rc;
}

/* ---- strings ------------------------------------------------------------------------------------ */

static const char *const cr_kept_names[] = { "V", "boolean", "byte", "short", "char", "int", "long", "float",
					     "double" };

bool bmd_keep_string(const uint8_t *s, size_t n, const struct bmd_crunch_opts *o)
{
	if (n >= 9 && !memcmp(s, "java.lang", 9))
		return true;
	/* a carved heap's provenance stays readable in the BMD (Badoo's decruncher copies it) */
	if (n >= strlen(HPROF_PROVENANCE) && !memcmp(s, HPROF_PROVENANCE, strlen(HPROF_PROVENANCE)))
		return true;
	for (size_t i = 0; i < sizeof(cr_kept_names) / sizeof(cr_kept_names[0]); i++)
		if (strlen(cr_kept_names[i]) == n && !memcmp(s, cr_kept_names[i], n))
			return true;
	for (size_t i = 0; o && i < o->keep_count; i++)
		if (strlen(o->keep_classes[i]) == n && !memcmp(s, o->keep_classes[i], n))
			return true;
	return false;
}

static int cr_mark_kept(struct cr *c, uint32_t mapped, struct err *e)
{
	if (mapped >= c->kept_cap) {
		size_t old_cap = c->kept_cap;
		if (XALLOC_GROW(c->kept, c->kept_cap, (size_t)mapped + 1, 4096))
			return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory for %zu string flags", (size_t)mapped + 1);
		memset(c->kept + old_cap, 0, c->kept_cap - old_cap);
	}
	c->kept[mapped] = 1;
	return 0;
}

static bool cr_is_kept(const struct cr *c, uint64_t name_id)
{
	uint32_t mapped;
	return htab_get(&c->strings, name_id, &mapped) && mapped < c->kept_cap && c->kept[mapped];
}

/* STRING: decoded as new String(bytes) (UTF-8, U+FFFD for bad input), kept or hashed. */
static int cr_string(struct cr *c, const struct hprof_record *rec, struct err *e)
{
	struct hprof_string s;
	uint32_t mapped;
	int32_t hash;
	int rc;

	if ((rc = hprof_string_parse(rec, c->id, &s, e)) || (rc = cr_map_string(c, s.id, &mapped, e)))
		return rc;
	wbuf_reset(&c->text);
	bmd_java_utf8(s.text, s.len, &c->text, &hash);
	if ((rc = wbuf_status(&c->text, e)))
		return rc;
	if (bmd_keep_string(c->text.data, c->text.len, c->o)) {
		if ((rc = cr_mark_kept(c, mapped, e)))
			return rc;
		bmd_put_string(&c->out, mapped, c->text.data, c->text.len);
		c->st->strings++;
	} else {
		bmd_put_hashed_string(&c->out, mapped, (uint32_t)c->text.len, hash);
		c->st->hashed_strings++;
	}
	return 0;
}

/* ---- pass 1: classes ---------------------------------------------------------------------------- */

static int cr_load_class(struct cr *c, const struct hprof_record *rec, struct err *e)
{
	struct hprof_load_class lc;
	struct cr_class *k;
	uint32_t idx;
	bool added;
	int rc;

	if ((rc = hprof_load_class_parse(rec, c->id, &lc, e)))
		return rc;
	if (XALLOC_GROW(c->classes, c->class_cap, c->class_count + 1, 1024))
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory for %zu classes", c->class_count + 1);
	if ((rc = bmd_idmap_get_or_put(&c->class_index, lc.class_id, (uint32_t)c->class_count, &idx, &added, e)))
		return rc;
	if (added)
		c->class_count++;
	/* a new ClassDefinition replaces any earlier one for this id */
	k = &c->classes[idx];
	memset(k, 0, sizeof(*k));
	k->id = lc.class_id;
	k->name_id = lc.name_id;
	k->preserve = -1;
	return 0;
}

static struct cr_class *cr_class(struct cr *c, uint64_t id)
{
	uint32_t idx;
	return htab_get(&c->class_index, id, &idx) ? &c->classes[idx] : NULL;
}

/* The value of a constant or static as writeFieldValue encodes it. */
static int cr_put_entry_value(struct cr *c, const struct hprof_class_entry *en, struct err *e)
{
	int t = bmd_type_from_hprof(en->type);

	bmd_put_int32(&c->out, t);
	if (t == BMD_T_OBJECT)
		return cr_put_object(c, en->value, e);
	bmd_put_value(&c->out, (unsigned)t, en->value);
	return 0;
}

static int cr_put_constants(struct cr *c, const struct cr_class *k, struct err *e)
{
	struct hprof_class_dump cd = { .constants = k->consts, .const_left = k->nconst, .id_size = c->id };
	struct hprof_class_entry en;
	int rc;

	bmd_put_int32(&c->out, k->nconst);
	while ((rc = hprof_class_next_constant(&cd, &en, e)) == 1) {
		/* the pool index is a Java short: 0x8000 and up are negative (10 bytes) */
		bmd_put_int32(&c->out, (int16_t)(uint16_t)en.key);
		if ((rc = cr_put_entry_value(c, &en, e)))
			return rc;
	}
	return rc;
}

static int cr_put_statics(struct cr *c, const struct cr_class *k, struct err *e)
{
	struct hprof_class_dump cd = { .statics = k->statics, .static_left = k->nstatic, .id_size = c->id };
	struct hprof_class_entry en;
	int rc;

	bmd_put_int32(&c->out, k->nstatic);
	while ((rc = hprof_class_next_static(&cd, &en, e)) == 1)
		if ((rc = cr_put_string_id(c, en.key, e)) || (rc = cr_put_entry_value(c, &en, e)))
			return rc;
	return rc;
}

/* Kept instance fields: all for a preserved class, else the object ones; the sizes of the
 * dropped primitives are summed into the discarded size. */
static int cr_put_fields(struct cr *c, const struct cr_class *k, struct err *e)
{
	struct hprof_class_dump cd = { .fields = k->fields, .field_left = k->nfield, .id_size = c->id };
	struct hprof_class_entry en;
	bool preserve = cr_is_kept(c, k->name_id);
	uint32_t kept = 0, discarded = 0;
	int rc;

	for (struct hprof_class_dump probe = cd; (rc = hprof_class_next_field(&probe, &en, e)) == 1;) {
		if (preserve || en.type == HPROF_T_OBJECT)
			kept++;
		else
			discarded += hprof_type_size(en.type, c->id);
	}
	if (rc < 0)
		return rc;
	bmd_put_int32(&c->out, (int32_t)kept);
	while ((rc = hprof_class_next_field(&cd, &en, e)) == 1) {
		if (!preserve && en.type != HPROF_T_OBJECT)
			continue;
		if ((rc = cr_put_string_id(c, en.key, e)))
			return rc;
		bmd_put_int32(&c->out, bmd_type_from_hprof(en.type));
	}
	if (rc < 0)
		return rc;
	bmd_put_int32(&c->out, (int32_t)discarded);
	return 0;
}

static int cr_class_dump(struct cr *c, const struct hprof_sub *sub, struct err *e)
{
	struct hprof_class_dump cd;
	struct cr_class *k;
	int rc;

	if ((rc = hprof_class_dump_parse(sub, c->id, &cd, e)))
		return rc;
	k = cr_class(c, cd.class_id);
	if (!k)
		return ERR_SET(e, ERR_CORRUPT, sub->offset,
			       "CLASS_DUMP at 0x%llx: class 0x%llx has no earlier LOAD_CLASS record",
			       (unsigned long long)sub->offset, (unsigned long long)cd.class_id);
	k->super_id = cd.super_id;
	k->has_super = true;
	if (cd.const_count) {
		k->consts = cd.constants;
		k->nconst = cd.const_count;
	}
	if (cd.static_count) {
		k->statics = cd.statics;
		k->nstatic = cd.static_count;
	}
	if (cd.field_count) {
		k->fields = cd.fields;
		k->nfield = cd.field_count;
	}
	/* writeClassDefinition: class, super, name, constants, statics, kept fields, discarded */
	bmd_put_int32(&c->out, BMD_CLASS_DEFINITION);
	if ((rc = cr_put_object(c, k->id, e)) || (rc = cr_put_object(c, k->super_id, e)) ||
	    (rc = cr_put_string_id(c, k->name_id, e)) || (rc = cr_put_constants(c, k, e)) ||
	    (rc = cr_put_statics(c, k, e)) || (rc = cr_put_fields(c, k, e)))
		return rc;
	c->st->classes++;
	return 0;
}

static int cr_heap_pass1(struct cr *c, const struct hprof_record *rec, struct err *e)
{
	struct cursor body = rec->body;
	struct hprof_sub sub;
	int rc;

	while ((rc = hprof_next_sub(&body, c->id, &sub, e)) == 1) {
		uint64_t id;
		switch (sub.tag) {
		case HPROF_CLASS_DUMP:
		case HPROF_INSTANCE_DUMP:
		case HPROF_OBJ_ARRAY_DUMP:
		case HPROF_PRIM_ARRAY_DUMP:
			/* every object dump starts with its id (the extent walk checked it is there) */
			id = c->id == 4 ? ld_u32be(sub.body.base) : ld_u64be(sub.body.base);
			if ((rc = om_mark(&c->objects, id, e)))
				return rc;
			if (sub.tag == HPROF_CLASS_DUMP && (rc = cr_class_dump(c, &sub, e)))
				return rc;
			break;
		default:
			break;
		}
		if ((rc = cr_maybe_flush(c, (size_t)sub.offset, e)))
			return rc;
	}
	return rc;
}

static int cr_record_pass1(struct cr *c, const struct hprof_record *rec, struct err *e)
{
	switch (rec->tag) {
	case HPROF_STRING:
		return cr_string(c, rec, e);
	case HPROF_LOAD_CLASS:
		return cr_load_class(c, rec, e);
	case HPROF_HEAP_DUMP:
	case HPROF_HEAP_DUMP_SEGMENT:
		return cr_heap_pass1(c, rec, e);
	case HPROF_UNLOAD_CLASS:
	case HPROF_HEAP_DUMP_END:
		return 0;
	default:
		bmd_put_legacy(&c->out, rec->tag, rec->body.base, rec->body.len);
		c->st->legacy++;
		return 0;
	}
}

/* ---- pass 2: objects ----------------------------------------------------------------------------- */

static int cr_plan_push(struct cr_op **ops, uint32_t *n, size_t *cap, struct cr_op op)
{
	if (op.op == OP_SKIP && *n && (*ops)[*n - 1].op == OP_SKIP) {
		(*ops)[*n - 1].n += op.n;      /* merge runs of dropped fields */
		return 0;
	}
	if (*n == UINT32_MAX || xalloc_grow(ops, cap, (size_t)*n + 1, sizeof(**ops), 16))
		return -ERR_NOMEM;
	(*ops)[(*n)++] = op;
	return 0;
}

/* writeInstanceDump's walk for one class, flattened: class -> super -> ... */
static int cr_plan(struct cr *c, struct cr_class *k, struct err *e)
{
	struct cr_op *ops = NULL;
	uint32_t n = 0;
	size_t cap = 0;
	uint64_t payload = 0;
	size_t depth = 0;

	for (struct cr_class *cur = k; cur; cur = cur->has_super ? cr_class(c, cur->super_id) : NULL) {
		struct hprof_class_dump cd = { .fields = cur->fields, .field_left = cur->nfield, .id_size = c->id };
		struct hprof_class_entry en;
		bool preserve;
		int rc;
		if (++depth > c->class_count) {
			xfree(ops);
			return ERR_SET(e, ERR_CORRUPT, ERR_NO_VA, "class 0x%llx: superclass chain is cyclic",
				       (unsigned long long)k->id);
		}
		preserve = cr_is_kept(c, cur->name_id);
		while ((rc = hprof_class_next_field(&cd, &en, e)) == 1) {
			unsigned size = hprof_type_size(en.type, c->id);
			struct cr_op op = { OP_SKIP, 0, size };
			if (en.type == HPROF_T_OBJECT)
				op.op = OP_OBJECT;
			else if (preserve)
				op = (struct cr_op){ OP_VALUE, (uint8_t)bmd_type_from_hprof(en.type), size };
			payload += size;
			if (cr_plan_push(&ops, &n, &cap, op) < 0) {
				xfree(ops);
				return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory for a class layout");
			}
		}
		if (rc < 0) {
			xfree(ops);
			return rc;
		}
	}
	k->plan = arena_array(&c->plans, n ? n : 1, sizeof(*ops));
	if (!k->plan) {
		xfree(ops);
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory for a class layout");
	}
	if (n)
		memcpy(k->plan, ops, n * sizeof(*ops));
	xfree(ops);
	k->plan_len = n;
	k->payload = payload;
	return 0;
}

static int cr_instance(struct cr *c, const struct hprof_sub *sub, struct err *e)
{
	struct hprof_instance in;
	struct cr_class *k;
	const uint8_t *p;
	int rc;

	if ((rc = hprof_instance_parse(sub, c->id, &in, e)))
		return rc;
	bmd_put_int32(&c->out, BMD_INSTANCE_DUMP);
	if ((rc = cr_put_object(c, in.id, e)) || (rc = cr_put_object(c, in.class_id, e)))
		return rc;
	k = cr_class(c, in.class_id);
	if (k && !k->plan && (rc = cr_plan(c, k, e)))
		return rc;
	if ((k ? k->payload : 0) != in.values.len)
		return ERR_SET(e, ERR_CORRUPT, sub->offset,
			       "INSTANCE_DUMP at 0x%llx: %zu field bytes, class 0x%llx%s declares %llu",
			       (unsigned long long)sub->offset, in.values.len, (unsigned long long)in.class_id,
			       k ? "" : " (no LOAD_CLASS)", (unsigned long long)(k ? k->payload : 0));
	p = in.values.base;
	for (uint32_t i = 0; k && i < k->plan_len; i++) {
		const struct cr_op *op = &k->plan[i];
		if (op->op == OP_OBJECT) {
			if ((rc = cr_put_object(c, c->id == 4 ? ld_u32be(p) : ld_u64be(p), e)))
				return rc;
		} else if (op->op == OP_VALUE) {
			uint64_t bits = 0;
			for (uint32_t b = 0; b < op->n; b++)
				bits = bits << 8 | p[b];
			bmd_put_value(&c->out, op->type, bits);
		}
		p += op->n;
	}
	c->st->instances++;
	return 0;
}

static int cr_obj_array(struct cr *c, const struct hprof_sub *sub, struct err *e)
{
	struct hprof_obj_array a;
	const uint8_t *p;
	int rc;

	if ((rc = hprof_obj_array_parse(sub, c->id, &a, e)))
		return rc;
	bmd_put_int32(&c->out, BMD_OBJECT_ARRAY);
	if ((rc = cr_put_object(c, a.id, e)) || (rc = cr_put_object(c, a.class_id, e)))
		return rc;
	bmd_put_int32(&c->out, (int32_t)a.count);
	p = a.elements.base;
	for (uint32_t i = 0; i < a.count; i++, p += c->id)
		if ((rc = cr_put_object(c, c->id == 4 ? ld_u32be(p) : ld_u64be(p), e)))
			return rc;
	c->st->obj_arrays++;
	return 0;
}

static int cr_prim_array(struct cr *c, const struct hprof_sub *sub, struct err *e)
{
	struct hprof_prim_array a;
	uint32_t id;
	int rc;

	if ((rc = hprof_prim_array_parse(sub, c->id, &a, e)))
		return rc;
	if (a.nodata)
		return 0;       /* Badoo skips PRIMITIVE_ARRAY_NODATA */
	if ((rc = cr_map_object(c, a.id, &id, e)))
		return rc;
	bmd_put_prim_array(&c->out, id, (unsigned)bmd_type_from_hprof(a.type), a.count);
	c->st->prim_arrays++;
	return 0;
}

static int cr_root(struct cr *c, const struct hprof_sub *sub, struct err *e)
{
	struct hprof_root r;
	int rc;

	if (sub->tag == HPROF_ROOT_UNREACHABLE)
		return 0;       /* not among the roots ObjectDumpProcessor collects */
	if ((rc = hprof_root_parse(sub, c->id, &r, e)))
		return rc;
	if (XALLOC_GROW(c->roots, c->root_cap, c->root_count + 1, 4096))
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory for %zu roots", c->root_count + 1);
	c->roots[c->root_count++] = r.id;
	return 0;
}

static int cr_heap_pass2(struct cr *c, const struct hprof_record *rec, struct err *e)
{
	struct cursor body = rec->body;
	struct hprof_sub sub;
	int rc;

	while ((rc = hprof_next_sub(&body, c->id, &sub, e)) == 1) {
		switch (sub.tag) {
		case HPROF_INSTANCE_DUMP:
			rc = cr_instance(c, &sub, e);
			break;
		case HPROF_OBJ_ARRAY_DUMP:
			rc = cr_obj_array(c, &sub, e);
			break;
		case HPROF_PRIM_ARRAY_DUMP:
		case HPROF_PRIM_ARRAY_NODATA:
			rc = cr_prim_array(c, &sub, e);
			break;
		default:
			rc = hprof_sub_is_root(sub.tag) ? cr_root(c, &sub, e) : 0;
			break;
		}
		if (rc || (rc = cr_maybe_flush(c, (size_t)sub.offset, e)))
			return rc;
	}
	return rc;
}

static int cr_roots(struct cr *c, struct err *e)
{
	int rc;

	bmd_put_int32(&c->out, BMD_ROOT_OBJECTS);
	bmd_put_int32(&c->out, (int32_t)c->root_count);
	for (size_t i = 0; i < c->root_count; i++) {
		if ((rc = cr_put_object(c, c->roots[i], e)) || (rc = cr_maybe_flush(c, c->len, e)))
			return rc;
	}
	c->st->roots = c->root_count;
	return 0;
}

/* ---- driver ------------------------------------------------------------------------------------------- */

typedef int (*cr_record_fn)(struct cr *c, const struct hprof_record *rec, struct err *e);

static int cr_pass(struct cr *c, cr_record_fn fn, bool heap_only, struct err *e)
{
	struct hprof_reader r;
	struct hprof_record rec;
	int rc;

	if ((rc = hprof_reader_init(&r, c->data, c->len, c->label, e)))
		return rc;
	c->released = 0;
	while ((rc = hprof_next(&r, &rec, e)) == 1) {
		if (heap_only && rec.tag != HPROF_HEAP_DUMP && rec.tag != HPROF_HEAP_DUMP_SEGMENT)
			continue;
		if ((rc = fn(c, &rec, e)) || (rc = cr_maybe_flush(c, (size_t)rec.offset, e)))
			return rc;
	}
	return rc;
}

static int cr_header(struct cr *c, struct err *e)
{
	struct hprof_reader r;
	int rc;

	if ((rc = hprof_reader_init(&r, c->data, c->len, c->label, e)))
		return rc;
	c->id = r.id_size;
	c->st->id_size = r.id_size;
	/* metadata: the version text as new String(text).getBytes() */
	wbuf_reset(&c->text);
	bmd_java_utf8(c->data, strnlen((const char *)c->data, r.header_len), &c->text, NULL);
	if ((rc = wbuf_status(&c->text, e)))
		return rc;
	bmd_put_header(&c->out, BMD_VERSION, c->text.data, c->text.len);
	if (c->id == 8)
		bmd_put_string(&c->out, 0, BMD_MARKER_ID8, strlen(BMD_MARKER_ID8));
	return 0;
}

static int cr_run(struct cr *c, struct err *e)
{
	int rc;

	progress_phase(c->o->progress, c->o->progress_phase ? c->o->progress_phase : "crunching", 2 * (uint64_t)c->len);
	if ((rc = cr_header(c, e)) || (rc = cr_pass(c, cr_record_pass1, false, e)) < 0)
		return rc;
	/* startSecondPass: Badoo refuses a file without strings or classes */
	if (c->strings.count == 0 || c->class_count == 0)
		return ERR_SET(e, ERR_CORRUPT, c->len, "no %s record before the end of the file at 0x%zx: "
			       "nothing to crunch", c->strings.count == 0 ? "STRING" : "LOAD_CLASS", c->len);
	if ((rc = om_freeze(&c->objects, e)))
		return rc;
	c->pass_base = c->len;
	if ((rc = cr_pass(c, cr_heap_pass2, true, e)) < 0 || (rc = cr_roots(c, e)))
		return rc;
	if ((rc = cr_flush(c, e)))
		return rc;
	c->st->bytes_out = c->flushed;
	return 0;
}

int bmd_crunch(const uint8_t *hprof, size_t len, const char *label, const struct bmd_crunch_opts *o,
	       const struct bmd_sink *out, struct bmd_crunch_stats *st, struct err *e)
{
	static const struct bmd_crunch_opts defaults;
	struct bmd_crunch_stats dummy;
	struct cr c;
	int rc;

	memset(&c, 0, sizeof(c));
	c.data = hprof;
	c.len = len;
	c.label = label;
	c.o = o ? o : &defaults;
	c.sink = out;
	c.st = st ? st : &dummy;
	memset(c.st, 0, sizeof(*c.st));
	c.next_string = c.next_object = 1;
	wbuf_init(&c.out);
	wbuf_init(&c.text);
	htab_init(&c.strings);
	htab_init(&c.class_index);
	htab_init(&c.objects.other);
	c.objects.shift = 3;
	arena_init(&c.plans);
	rc = cr_run(&c, e);
	wbuf_release(&c.out);
	wbuf_release(&c.text);
	htab_release(&c.strings);
	htab_release(&c.class_index);
	objmap_release(&c.objects);
	arena_release(&c.plans);
	xfree(c.classes);
	xfree(c.kept);
	xfree(c.roots);
	return rc;
}

/* bmd_crunch_file's input: pages a pass has finished with go back to the kernel, and a
 * helper thread maps the next CR_AHEAD bytes in (MADV_POPULATE_READ, Linux 5.14) while the
 * cruncher works, as zstd's I/O thread reads ahead of its compressor: the page faults leave
 * the cruncher's thread.  Both are advice; a kernel that refuses them changes nothing. */
#define CR_AHEAD ((size_t)4 << 20)

struct cr_input {
	const struct mapfile *m;
	size_t page;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	size_t want, done;      /* populate [done, want) */
	size_t dropped;         /* released below this offset in the current pass */
	bool stop, threaded;
};

static void *cr_ahead_main(void *arg)
{
	struct cr_input *in = arg;

	pthread_mutex_lock(&in->mu);
	while (!in->stop) {
		size_t from = in->done, to = in->want;
		if (from >= to) {
			pthread_cond_wait(&in->cv, &in->mu);
			continue;
		}
		in->done = to;
		pthread_mutex_unlock(&in->mu);
		madvise((void *)(uintptr_t)(in->m->data + from), to - from, MADV_POPULATE_READ);
		pthread_mutex_lock(&in->mu);
	}
	pthread_mutex_unlock(&in->mu);
	return NULL;
}

static void cr_input_consumed(void *ctx, size_t upto)
{
	struct cr_input *in = ctx;
	size_t from, len = in->m->len;

	upto -= upto % in->page;
	if (!in->m->data || upto > len)
		return;
	pthread_mutex_lock(&in->mu);
	if (upto < in->dropped)         /* the second pass starts over */
		in->dropped = 0;
	from = in->dropped;
	in->dropped = upto;
	if (in->done < upto)
		in->done = upto;
	in->want = len - upto > CR_AHEAD ? upto + CR_AHEAD : len;
	in->want -= in->want % in->page;
	pthread_cond_signal(&in->cv);
	pthread_mutex_unlock(&in->mu);
	if (upto > from)
		madvise((void *)(uintptr_t)(in->m->data + from), upto - from, MADV_DONTNEED);
}

int bmd_crunch_file(const char *path, const struct bmd_crunch_opts *o, const struct bmd_sink *out,
		    struct bmd_crunch_stats *st, struct err *e)
{
	static const struct bmd_crunch_opts defaults;
	struct bmd_crunch_opts fo = o ? *o : defaults;
	struct mapfile m = { 0 };
	struct cr_input in;
	pthread_t ahead;
	long page = sysconf(_SC_PAGESIZE);
	int rc;

	if ((rc = mapfile_open(&m, path, e)))
		return rc;
	memset(&in, 0, sizeof(in));
	in.m = &m;
	in.page = page > 0 ? (size_t)page : 4096;
	pthread_mutex_init(&in.mu, NULL);
	pthread_cond_init(&in.cv, NULL);
	in.threaded = m.len > CR_AHEAD && pthread_create(&ahead, NULL, cr_ahead_main, &in) == 0;
	fo.consumed = cr_input_consumed;
	fo.consumed_ctx = &in;
	if ((rc = bmd_crunch(m.data, m.len, path, &fo, out, st, e)))
		err_prefix(e, "%s", path);
	if (in.threaded) {
		pthread_mutex_lock(&in.mu);
		in.stop = true;
		pthread_cond_signal(&in.cv);
		pthread_mutex_unlock(&in.mu);
		pthread_join(ahead, NULL);
	}
	pthread_cond_destroy(&in.cv);
	pthread_mutex_destroy(&in.mu);
	mapfile_close(&m);
	return rc;
}
