/* bmd_decrunch.c - BMD -> HPROF, as badoo BmdDecruncher + DecrunchProcessor do it
 * (BmdDecruncher, badoo/hprof-tools @ 5e5408e), plus the --mat flavour (bmd_codec.h).
 *
 * Badoo's output, in order: header (BMD metadata as the version text, id size 4, time 0);
 * STRING / LOAD_CLASS / LEGACY records as the BMD records come; STRING 0x7FFFFFFF
 * "field_removed"; one HEAP_DUMP holding CLASS_DUMPs in Java HashMap<Integer> order,
 * INSTANCE_DUMPs, OBJECT_ARRAY_DUMPs, zero-filled PRIMITIVE_ARRAY_DUMPs, ROOT_UNKNOWNs.
 * Badoo builds the heap dump in memory; here each section is a fresh pass over the
 * (mapped) BMD, and a sizing pass computes the HEAP_DUMP length first, so memory stays
 * proportional to the class definitions. */
#include "output/bmd/bmd_codec.h"
#include "output/bmd/bmd_dict.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "carver/base/ck.h"
#include "carver/base/xalloc.h"
#include "output/hprof/hprof.h"

/* HPROF tags written here (output/hprof/hprof.h) */
enum {
	DC_STRING = 0x01, DC_LOAD_CLASS = 0x02, DC_STACK_TRACE = 0x05, DC_HEAP_DUMP = 0x0c, DC_HEAP_DUMP_SEGMENT = 0x1c,
	DC_HEAP_DUMP_END = 0x2c, DC_ROOT_UNKNOWN = 0xff, DC_CLASS_DUMP = 0x20, DC_INSTANCE_DUMP = 0x21,
	DC_OBJ_ARRAY_DUMP = 0x22, DC_PRIM_ARRAY_DUMP = 0x23, DC_T_BYTE = 8, DC_T_INT = 10,
};

#define DC_FILLER_NAME_ID 0x7fffffffu   /* DecrunchProcessor.FILLER_FIELD_NAME */
#define DC_FLUSH_AT (1u << 20)
#define DC_STRING_MAX (16u << 20)       /* longest placeholder / string accepted */
#define DC_RELEASE_EVERY (4u << 20)     /* input bytes between two o->consumed calls */

/* ---- output ------------------------------------------------------------------------------- */

struct dout {
	const struct bmd_sink *sink;
	struct wbuf buf;
	uint64_t flushed, max;
	unsigned id;            /* HPROF identifier size written */
};

static int dout_flush(struct dout *o, struct err *e)
{
	int rc;

	if ((rc = wbuf_status(&o->buf, e)))
		return rc;
	if (!o->buf.len)
		return 0;
	if (o->max && (o->buf.len > o->max || o->flushed > o->max - o->buf.len))
		return ERR_SET(e, ERR_UNSUP, ERR_NO_VA, "decrunched output exceeds the %llu-byte limit",
			       (unsigned long long)o->max);
	if ((rc = o->sink->write(o->sink->ctx, o->buf.data, o->buf.len, e)))
		return rc;
	o->flushed += o->buf.len;
	wbuf_reset(&o->buf);
	return 0;
}

static inline int dout_maybe_flush(struct dout *o, struct err *e)
{
	return o->buf.len >= DC_FLUSH_AT ? dout_flush(o, e) : 0;
}

static void put_record_header(struct wbuf *b, uint8_t tag, uint32_t len)
{
	wbuf_u8(b, tag);
	wbuf_u32be(b, 0);
	wbuf_u32be(b, len);
}

static void put_string(struct dout *o, uint64_t id, const void *text, size_t len)
{
	put_record_header(&o->buf, DC_STRING, (uint32_t)(len + o->id));
	wbuf_uNbe(&o->buf, o->id, id);
	wbuf_put(&o->buf, text, len);
}

static void put_load_class(struct dout *o, uint32_t serial, uint64_t class_id, uint64_t name_id)
{
	put_record_header(&o->buf, DC_LOAD_CLASS, 8 + 2 * o->id);
	wbuf_u32be(&o->buf, serial);
	wbuf_uNbe(&o->buf, o->id, class_id);
	wbuf_u32be(&o->buf, 0);
	wbuf_uNbe(&o->buf, o->id, name_id);
}

/* --mat: ART's dummy trace of serial 0, which every record names (hprof.h HPROF_NULL_TRACE_BODY:
 * AOSP's ahat rejects a file without it); the source's own was a LEGACY record, not copied. */
static void put_null_trace(struct dout *o)
{
	static const uint8_t body[HPROF_NULL_TRACE_BODY];
	put_record_header(&o->buf, DC_STACK_TRACE, sizeof(body));
	wbuf_put(&o->buf, body, sizeof(body));
}

/* A value as DecrunchProcessor.writeFieldValue writes it (boolean normalised to 0/1). */
static void put_hprof_value(struct wbuf *b, unsigned type, uint64_t bits, unsigned id)
{
	switch (type) {
	case BMD_T_OBJECT:
		wbuf_uNbe(b, id, (uint32_t)bits);
		break;
	case BMD_T_INT:
	case BMD_T_FLOAT:
		wbuf_u32be(b, (uint32_t)bits);
		break;
	case BMD_T_SHORT:
	case BMD_T_CHAR:
		wbuf_u16be(b, (uint16_t)bits);
		break;
	case BMD_T_LONG:
	case BMD_T_DOUBLE:
		wbuf_u64be(b, bits);
		break;
	case BMD_T_BOOLEAN:
		wbuf_u8(b, bits != 0);
		break;
	default:
		wbuf_u8(b, (uint8_t)bits);
		break;
	}
}

/* ---- heap dump: one HEAP_DUMP of known length (Badoo) or segments (--mat) ---------------------- */

struct heap {
	struct dout *o;
	bool mat;
	struct wbuf seg;        /* --mat: the open segment's body */
	size_t cap;
	uint64_t segments;
};

static struct wbuf *heap_buf(struct heap *h)
{
	return h->mat ? &h->seg : &h->o->buf;
}

static int heap_flush_segment(struct heap *h, struct err *e)
{
	int rc;

	if ((rc = wbuf_status(&h->seg, e)))
		return rc;
	if (!h->seg.len)
		return 0;       /* never an empty segment (VisualVM rejects them) */
	put_record_header(&h->o->buf, DC_HEAP_DUMP_SEGMENT, (uint32_t)h->seg.len);
	wbuf_put(&h->o->buf, h->seg.data, h->seg.len);
	wbuf_reset(&h->seg);
	h->segments++;
	return dout_maybe_flush(h->o, e);
}

/* After each sub-record. */
static int heap_sub_done(struct heap *h, struct err *e)
{
	if (!h->mat)
		return dout_maybe_flush(h->o, e);
	return h->seg.len >= h->cap ? heap_flush_segment(h, e) : 0;
}

/* ---- decrunch state ---------------------------------------------------------------------------- */

struct dc {
	const uint8_t *data;
	size_t len;
	const char *label;
	const struct bmd_decrunch_opts *o;
	struct bmd_decrunch_stats *st;
	struct dout out;
	struct heap heap;
	struct bmd_reader fin;          /* pass A reader: its class map is the final state */
	bool skip_marker;               /* first record is the id-size marker */
	/* classes in first-definition order, then in HashMap iteration order */
	uint32_t *class_keys;
	size_t class_count, class_cap;
	struct htab class_seen;
	/* --mat bookkeeping */
	struct htab strings_defined;
	struct htab array_classes; /* class ids of object arrays */
	uint64_t heap_bytes;            /* sum of every sub-record except instances */
	uint64_t heap_start;            /* output offset of the HEAP_DUMP record */
	uint32_t next_sid;              /* --mat: next candidate id for a synthesized string */
	uint32_t *synth, *synth_names;  /* --mat: classes referenced but never defined */
	size_t synth_count;
	struct wbuf vals, text;
	struct bmd_dict builtin;        /* --mat: names readers need, see dc_builtin_names */
	/* with o->jdk: the JDK names of the classes the strings may name (bmd_jdk_key of each
	 * in jdk_wanted), read after pass A; until then pass A holds its output back as the
	 * offsets of the records that make it */
	struct bmd_dict jdk;
	struct htab jdk_wanted;
	uint64_t *held;
	size_t held_count, held_cap;
	size_t *offs;                   /* per chain level: start of its values in vals */
	size_t released;                /* input offset last reported through o->consumed */
};

/* Each pass reads the BMD front to back: what lies behind the reader is done with until the
 * next pass, which maps it in again. */
static inline void dc_consumed(struct dc *d, const struct bmd_reader *r)
{
	if (!d->o->consumed)
		return;
	if (r->c.pos < d->released)
		d->released = 0;        /* a new pass */
	if (r->c.pos - d->released >= DC_RELEASE_EVERY) {
		d->o->consumed(d->o->consumed_ctx, r->c.pos);
		d->released = r->c.pos;
	}
}

/* ---- strings ---------------------------------------------------------------------------------- */

/* --mat only: names a loader needs to recognise primitive arrays and the core classes, in
 * Android (dotted) and HotSpot (slashed) spelling.  The cruncher hashes them (only java.lang.*
 * dotted names stay clear), and VisualVM/MAT cannot resolve primitive arrays without them. */
static const char *const dc_builtin_names[] = {
	"boolean[]", "char[]", "float[]", "double[]", "byte[]", "short[]", "int[]", "long[]",
	"[Z", "[C", "[F", "[D", "[B", "[S", "[I", "[J",
	"java/lang/Object", "java/lang/String", "java/lang/Class", "java/lang/ClassLoader",
	"java/lang/Thread", "java/lang/ref/Reference", "[Ljava/lang/Object;", "[Ljava/lang/String;",
	"java.lang.Object[]", "java.lang.String[]", "java.lang.Class[]",
	"value", "hash", "count", "offset", "coder", "referent", "next", "name",
};

static int dc_builtin_init(struct dc *d, struct err *e)
{
	for (size_t i = 0; i < sizeof(dc_builtin_names) / sizeof(dc_builtin_names[0]); i++) {
		const uint8_t *s = (const uint8_t *)dc_builtin_names[i];
		int32_t hash;
		int rc;
		wbuf_reset(&d->text);
		bmd_java_utf8(s, strlen(dc_builtin_names[i]), &d->text, &hash);
		if ((rc = bmd_dict_add(&d->builtin, s, strlen(dc_builtin_names[i]), hash, e)))
			return rc;
	}
	return 0;
}

/* STRING: Badoo decodes with new String(bytes) and writes getBytes(), normalising bad UTF-8. */
static int dc_string(struct dc *d, const struct bmd_record *rec, struct err *e)
{
	wbuf_reset(&d->text);
	bmd_java_utf8(rec->bytes, rec->len, &d->text, NULL);
	if (d->text.len > DC_STRING_MAX)
		return ERR_SET(e, ERR_UNSUP, rec->offset, "string at 0x%llx: %zu bytes exceed the %u-byte limit",
			       (unsigned long long)rec->offset, d->text.len, DC_STRING_MAX);
	put_string(&d->out, rec->id, d->text.data, d->text.len);
	d->st->strings++;
	return 0;
}

/* HASHED_STRING: dictionary text, else "Hash$<hash>" padded with '+' to the original length. */
static int dc_hashed(struct dc *d, const struct bmd_record *rec, struct err *e)
{
	const uint8_t *s;
	size_t n;

	d->st->hashed_strings++;
	/* JDK and built-in names must match the original length too, to keep false hits rare */
	if (bmd_dict_find(d->o->dict, rec->hash, &s, &n) ||
	    (bmd_dict_find_len(&d->jdk, rec->hash, rec->length, &s) && (n = rec->length, true)) ||
	    (d->o->mat && bmd_dict_find(&d->builtin, rec->hash, &s, &n) && n == rec->length)) {
		d->st->recovered++;
		put_string(&d->out, rec->id, s, n);
		return 0;
	}
	if (rec->length > DC_STRING_MAX)
		return ERR_SET(e, ERR_UNSUP, rec->offset,
			       "hashed string at 0x%llx: length %u exceeds the %u-byte limit",
			       (unsigned long long)rec->offset, rec->length, DC_STRING_MAX);
	wbuf_reset(&d->text);
	wbuf_printf(&d->text, "Hash$%d", (int)rec->hash);
	if (d->text.len < rec->length) {
		size_t pad = rec->length - d->text.len;
		if (!wbuf_reserve(&d->text, pad)) {
			memset(d->text.data + d->text.len, '+', pad);
			d->text.len += pad;
		}
	}
	if (wbuf_status(&d->text, e))
		return -ERR_NOMEM;
	put_string(&d->out, rec->id, d->text.data, d->text.len);
	return 0;
}

/* ---- classes ---------------------------------------------------------------------------------- */

static int dc_note_class(struct dc *d, const struct bmd_class_def *def, struct err *e)
{
	uint32_t v;
	bool added;
	int rc;

	if ((rc = bmd_idmap_get_or_put(&d->class_seen, def->id, (uint32_t)d->class_count, &v, &added, e)))
		return rc;
	if (!added)
		return 0;
	if (XALLOC_GROW(d->class_keys, d->class_cap, d->class_count + 1, 1024))
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory for %zu classes", d->class_count + 1);
	d->class_keys[d->class_count++] = def->id;
	return 0;
}

/* Filler fields for d discarded bytes: floor(d/4) INTs then d%4 BYTEs (convertClassDefinition). */
static uint32_t dc_discarded(const struct bmd_class_def *def)
{
	return (int32_t)def->discarded > 0 ? def->discarded : 0;
}

static uint64_t dc_filler_count(const struct bmd_class_def *def)
{
	uint32_t dis = dc_discarded(def);
	return dis / 4 + dis % 4;
}

static int dc_class_size(const struct dc *d, const struct bmd_class_def *def, uint64_t *size, struct err *e)
{
	unsigned id = d->out.id;
	uint64_t n = 1 + id + 4 + 6 * (uint64_t)id + 4 + 6, fields = def->field_count + dc_filler_count(def);

	if (def->const_count > 0xffff || def->static_count > 0xffff || fields > 0xffff)
		return ERR_SET(e, ERR_UNSUP, def->offset,
			       "class %u at 0x%llx: %u constants, %u statics, %llu fields exceed HPROF's u2 counts",
			       def->id, (unsigned long long)def->offset, def->const_count, def->static_count,
			       (unsigned long long)fields);
	for (uint32_t i = 0; i < def->const_count; i++)
		n += 3 + bmd_type_hprof_size(def->consts[i].type, id);
	for (uint32_t i = 0; i < def->static_count; i++)
		n += id + 1 + bmd_type_hprof_size(def->statics[i].type, id);
	n += fields * (id + 1);
	*size = n;
	return 0;
}

static uint32_t dc_instance_size(const struct dc *d, const struct bmd_class_def *def)
{
	uint32_t size = 0;
	for (uint32_t i = 0; i < def->field_count; i++)
		size += bmd_type_hprof_size(def->fields[i].type, d->out.id);
	/* fillers: INT for each 4 bytes, BYTE for the rest: exactly the discarded size */
	return size + dc_discarded(def);
}

static void dc_put_class_dump(struct dc *d, struct wbuf *b, const struct bmd_class_def *def)
{
	unsigned id = d->out.id;
	uint32_t dis = dc_discarded(def);

	wbuf_u8(b, DC_CLASS_DUMP);
	wbuf_uNbe(b, id, def->id);
	wbuf_u32be(b, 0);
	wbuf_uNbe(b, id, def->super_id);
	wbuf_zeros(b, 5 * (size_t)id);  /* loader, signers, protection domain, 2 reserved */
	wbuf_u32be(b, dc_instance_size(d, def));
	wbuf_u16be(b, (uint16_t)def->const_count);
	for (uint32_t i = 0; i < def->const_count; i++) {
		wbuf_u16be(b, (uint16_t)def->consts[i].index);
		wbuf_u8(b, (uint8_t)bmd_type_to_hprof(def->consts[i].type));
		put_hprof_value(b, def->consts[i].type, def->consts[i].bits, id);
	}
	wbuf_u16be(b, (uint16_t)def->static_count);
	for (uint32_t i = 0; i < def->static_count; i++) {
		wbuf_uNbe(b, id, def->statics[i].name_id);
		wbuf_u8(b, (uint8_t)bmd_type_to_hprof(def->statics[i].type));
		put_hprof_value(b, def->statics[i].type, def->statics[i].bits, id);
	}
	wbuf_u16be(b, (uint16_t)(def->field_count + dc_filler_count(def)));
	for (uint32_t i = 0; i < def->field_count; i++) {
		wbuf_uNbe(b, id, def->fields[i].name_id);
		wbuf_u8(b, (uint8_t)bmd_type_to_hprof(def->fields[i].type));
	}
	for (uint32_t i = 0; i < dis / 4; i++) {
		wbuf_uNbe(b, id, DC_FILLER_NAME_ID);
		wbuf_u8(b, DC_T_INT);
	}
	for (uint32_t i = 0; i < dis % 4; i++) {
		wbuf_uNbe(b, id, DC_FILLER_NAME_ID);
		wbuf_u8(b, DC_T_BYTE);
	}
}

/* A class with no definition (only --mat): no fields, super 0. */
static void dc_put_empty_class_dump(struct dc *d, struct wbuf *b, uint32_t class_id)
{
	wbuf_u8(b, DC_CLASS_DUMP);
	wbuf_uNbe(b, d->out.id, class_id);
	wbuf_u32be(b, 0);
	wbuf_zeros(b, 6 * (size_t)d->out.id);
	wbuf_u32be(b, 0);
	wbuf_zeros(b, 6);
}

/* ---- instances --------------------------------------------------------------------------------- */

/* Decodes an INSTANCE_DUMP's values per level of the chain it was read with (Badoo keeps
 * each value tagged with its BmdClassDefinition object); fills d->vals and d->offs. */
static int dc_levels(struct dc *d, struct bmd_reader *r, const struct bmd_record *rec,
		     const struct bmd_class_def **chain, size_t *n, struct err *e)
{
	struct cursor c = rec->values;
	int rc;

	if ((rc = bmd_reader_chain(r, rec->def, chain, BMD_CHAIN_MAX, n, e)))
		return rc;
	wbuf_reset(&d->vals);
	for (size_t k = 0; k < *n; k++) {
		d->offs[k] = d->vals.len;
		for (uint32_t i = 0; i < chain[k]->field_count; i++) {
			uint64_t bits;
			if ((rc = bmd_get_value(&c, chain[k]->fields[i].type, &bits, e)))
				return rc;
			put_hprof_value(&d->vals, chain[k]->fields[i].type, bits, d->out.id);
		}
	}
	d->offs[*n] = d->vals.len;
	return wbuf_status(&d->vals, e);
}

/* Walks the final class chain as writeInstanceDump does: for each level the values read for
 * that same definition, then its discarded bytes as zeros.  out NULL = size only. */
static int dc_payload(struct dc *d, const struct bmd_record *rec, const struct bmd_class_def **chain, size_t n,
		      struct wbuf *out, uint64_t *size, struct err *e)
{
	uint32_t cur = rec->class_id, steps = 0;
	uint64_t total = 0;

	while (cur != 0) {
		const struct bmd_class_def *f = bmd_reader_class(&d->fin, cur);
		if (!f)
			break;  /* Badoo throws a NullPointerException here; end the chain */
		if (++steps > d->fin.def_count)
			return ERR_SET(e, ERR_CORRUPT, rec->offset, "instance at 0x%llx: class %u has a cyclic superclass chain",
				       (unsigned long long)rec->offset, rec->class_id);
		for (size_t k = 0; k < n; k++) {
			if (chain[k]->serial != f->serial)
				continue;
			total += d->offs[k + 1] - d->offs[k];
			if (out && d->offs[k + 1] > d->offs[k])
				wbuf_put(out, d->vals.data + d->offs[k], d->offs[k + 1] - d->offs[k]);
		}
		total += dc_discarded(f);
		if (out)
			wbuf_zeros(out, dc_discarded(f));
		cur = f->super_id;
	}
	*size = total;
	return 0;
}

/* ---- passes over the BMD ------------------------------------------------------------------------ */

typedef int (*dc_visit)(struct dc *d, struct bmd_reader *r, const struct bmd_record *rec, struct err *e);

/* Re-reads the whole BMD, calling fn for records with the given tag. */
static int dc_pass(struct dc *d, uint32_t tag, dc_visit fn, struct err *e)
{
	struct bmd_reader r;
	struct bmd_record rec;
	int rc;

	if ((rc = bmd_reader_init(&r, d->data, d->len, d->label, e)) == 0) {
		while ((rc = bmd_next(&r, &rec, e)) == 1) {
			if (rec.tag == tag && (rc = fn(d, &r, &rec, e)))
				break;
			dc_consumed(d, &r);
		}
	}
	bmd_reader_release(&r);
	return rc < 0 ? rc : 0;
}

static int dc_size_instance(struct dc *d, struct bmd_reader *r, const struct bmd_record *rec, struct err *e)
{
	const struct bmd_class_def *chain[BMD_CHAIN_MAX];
	size_t n;
	uint64_t size;
	int rc;

	if ((rc = dc_levels(d, r, rec, chain, &n, e)) || (rc = dc_payload(d, rec, chain, n, NULL, &size, e)))
		return rc;
	d->heap_bytes += 1 + 2 * (uint64_t)d->out.id + 8 + size;
	return 0;
}

static int dc_write_instance(struct dc *d, struct bmd_reader *r, const struct bmd_record *rec, struct err *e)
{
	const struct bmd_class_def *chain[BMD_CHAIN_MAX];
	struct wbuf *b = heap_buf(&d->heap);
	size_t n;
	uint64_t size;
	int rc;

	if ((rc = dc_levels(d, r, rec, chain, &n, e)) || (rc = dc_payload(d, rec, chain, n, NULL, &size, e)))
		return rc;
	if (size > UINT32_MAX || (d->out.max && size > d->out.max))
		return ERR_SET(e, ERR_UNSUP, rec->offset, "instance at 0x%llx: payload of %llu bytes is too large",
			       (unsigned long long)rec->offset, (unsigned long long)size);
	wbuf_u8(b, DC_INSTANCE_DUMP);
	wbuf_uNbe(b, d->out.id, rec->id);
	wbuf_u32be(b, 0);
	wbuf_uNbe(b, d->out.id, rec->class_id);
	wbuf_u32be(b, (uint32_t)size);
	if ((rc = dc_payload(d, rec, chain, n, b, &size, e)))
		return rc;
	d->st->instances++;
	return heap_sub_done(&d->heap, e);
}

static int dc_write_obj_array(struct dc *d, struct bmd_reader *r, const struct bmd_record *rec, struct err *e)
{
	struct wbuf *b = heap_buf(&d->heap);
	struct cursor c = rec->values;
	int rc;

	(void)r;
	wbuf_u8(b, DC_OBJ_ARRAY_DUMP);
	wbuf_uNbe(b, d->out.id, rec->id);
	wbuf_u32be(b, 0);
	wbuf_u32be(b, rec->count);
	wbuf_uNbe(b, d->out.id, rec->class_id);
	for (uint32_t i = 0; i < rec->count; i++) {
		uint32_t v;
		if ((rc = bmd_get_u32(&c, &v, e)))
			return rc;
		wbuf_uNbe(b, d->out.id, v);
	}
	d->st->obj_arrays++;
	return heap_sub_done(&d->heap, e);
}

static uint64_t dc_prim_bytes(const struct bmd_record *rec)
{
	return (uint64_t)rec->count * bmd_type_hprof_size(rec->type, 4);
}

static void dc_prim_header(struct dc *d, struct wbuf *b, const struct bmd_record *rec)
{
	wbuf_u8(b, DC_PRIM_ARRAY_DUMP);
	wbuf_uNbe(b, d->out.id, rec->id);
	wbuf_u32be(b, 0);
	wbuf_u32be(b, rec->count);
	wbuf_u8(b, (uint8_t)bmd_type_to_hprof(rec->type));
}

/* Zeros in bounded chunks, so a huge array never sits in memory. */
static int dc_zeros(struct dc *d, uint64_t n, struct err *e)
{
	int rc;

	while (n) {
		size_t k = n > DC_FLUSH_AT ? DC_FLUSH_AT : (size_t)n;
		wbuf_zeros(&d->out.buf, k);
		n -= k;
		if ((rc = dout_maybe_flush(&d->out, e)))
			return rc;
	}
	return 0;
}

static int dc_write_prim_array(struct dc *d, struct bmd_reader *r, const struct bmd_record *rec, struct err *e)
{
	uint64_t data = dc_prim_bytes(rec), sub = 1 + d->out.id + 9 + data;
	int rc;

	(void)r;
	d->st->prim_arrays++;
	if (d->heap.mat && sub > d->heap.cap) {
		/* a segment of its own, streamed */
		if ((rc = heap_flush_segment(&d->heap, e)))
			return rc;
		if (sub > UINT32_MAX)
			return ERR_SET(e, ERR_UNSUP, rec->offset, "primitive array at 0x%llx: %llu bytes exceed 4 GiB",
				       (unsigned long long)rec->offset, (unsigned long long)data);
		put_record_header(&d->out.buf, DC_HEAP_DUMP_SEGMENT, (uint32_t)sub);
		d->heap.segments++;
		dc_prim_header(d, &d->out.buf, rec);
		return dc_zeros(d, data, e);
	}
	dc_prim_header(d, heap_buf(&d->heap), rec);
	if (!d->heap.mat)
		return dc_zeros(d, data, e);
	wbuf_zeros(&d->heap.seg, (size_t)data);
	return heap_sub_done(&d->heap, e);
}

static int dc_write_roots(struct dc *d, struct bmd_reader *r, const struct bmd_record *rec, struct err *e)
{
	struct cursor c = rec->values;
	int rc;

	(void)r;
	for (uint32_t i = 0; i < rec->count; i++) {
		struct wbuf *b = heap_buf(&d->heap);
		uint32_t v;
		if ((rc = bmd_get_u32(&c, &v, e)))
			return rc;
		wbuf_u8(b, DC_ROOT_UNKNOWN);
		wbuf_uNbe(b, d->out.id, v);
		d->st->roots++;
		if ((rc = heap_sub_done(&d->heap, e)))
			return rc;
	}
	return 0;
}

/* ---- pass A: strings, LOAD_CLASS, LEGACY in BMD order; sizes of the array sections ------------- */

static int dc_define_string(struct dc *d, uint32_t id, struct err *e)
{
	return d->o->mat ? bmd_idmap_put(&d->strings_defined, id, 0, e) : 0;
}

/* Adds a record's share of the heap dump; fails as soon as the output would pass the
 * caller's limit or, for Badoo's single HEAP_DUMP, its u4 length, naming the record. */
static int dc_add_heap(struct dc *d, const struct bmd_record *rec, uint64_t bytes, struct err *e)
{
	uint64_t limit = d->o->mat ? UINT64_MAX : UINT32_MAX;

	if (d->out.max && d->out.max < limit)
		limit = d->out.max;
	d->heap_bytes += bytes;
	if (d->heap_bytes > limit)
		return ERR_SET(e, ERR_UNSUP, rec->offset,
			       "%s at 0x%llx takes the heap dump to %llu bytes, over the %llu-byte limit%s",
			       bmd_tag_name(rec->tag), (unsigned long long)rec->offset,
			       (unsigned long long)d->heap_bytes, (unsigned long long)limit,
			       limit == UINT32_MAX ? " of one HEAP_DUMP record (--mat writes segments)" : "");
	return 0;
}

/* What pass A writes for a record: strings as they come and, in Badoo's layout, LOAD_CLASS
 * and LEGACY records. */
static int dc_emit_a(struct dc *d, const struct bmd_record *rec, struct err *e)
{
	switch (rec->tag) {
	case BMD_STRING:
		return dc_string(d, rec, e);
	case BMD_HASHED_STRING:
		return dc_hashed(d, rec, e);
	case BMD_CLASS_DEFINITION:
		if (!d->o->mat)
			put_load_class(&d->out, 0, rec->def->id, rec->def->name_id);
		return 0;
	case BMD_LEGACY_RECORD:
		if (d->o->mat)
			return 0;       /* their ids were never renumbered: they would dangle */
		put_record_header(&d->out.buf, (uint8_t)rec->hprof_tag, (uint32_t)rec->len);
		wbuf_put(&d->out.buf, rec->bytes, rec->len);
		return 0;
	default:
		return 0;
	}
}

/* With a JDK: the record's output waits for its names (dc_release_held).  The classes wanted
 * from the JDK are those a string may name: by hash and length for a hashed one, and a string
 * in clear too (crunch keeps java.lang.* dotted names, as older JVMs and Android write them,
 * whose fields are hashed). */
static int dc_hold(struct dc *d, const struct bmd_record *rec, struct err *e)
{
	int32_t hash;
	int rc;

	if (rec->tag == BMD_HASHED_STRING &&
	    (rc = bmd_idmap_put(&d->jdk_wanted, bmd_jdk_key(rec->hash, rec->length), 0, e)))
		return rc;
	if (rec->tag == BMD_STRING && rec->len <= DC_STRING_MAX) {
		wbuf_reset(&d->text);
		bmd_java_utf8(rec->bytes, rec->len, &d->text, &hash);
		if ((rc = wbuf_status(&d->text, e)) ||
		    (rc = bmd_idmap_put(&d->jdk_wanted, bmd_jdk_key(hash, (uint32_t)d->text.len), 0, e)))
			return rc;
	}
	if (d->o->mat && (rec->tag == BMD_CLASS_DEFINITION || rec->tag == BMD_LEGACY_RECORD))
		return 0;       /* nothing of theirs is written here (dc_emit_a) */
	if (XALLOC_GROW(d->held, d->held_cap, d->held_count + 1, 4096))
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory for %zu string records", d->held_count + 1);
	d->held[d->held_count++] = rec->offset;
	return 0;
}

/* After pass A: the JDK's names for what the strings want, then the held records' output in
 * their order, read again from the BMD. */
static int dc_release_held(struct dc *d, struct err *e)
{
	struct bmd_reader r;
	struct bmd_record rec;
	int rc;

	if ((rc = bmd_jdk_names(d->o->jdk, &d->jdk_wanted, &d->jdk, e)))
		return rc;
	if ((rc = bmd_reader_init(&r, d->data, d->len, d->label, e)) == 0)
		for (size_t i = 0; i < d->held_count && rc == 0; i++)
			if ((rc = cur_seek(&r.c, (size_t)d->held[i], e)) == 0 && (rc = bmd_next(&r, &rec, e)) == 1 &&
			    (rc = dc_emit_a(d, &rec, e)) == 0)
				rc = dout_maybe_flush(&d->out, e);
	bmd_reader_release(&r);
	return rc;
}

static int dc_record_a(struct dc *d, const struct bmd_record *rec, struct err *e)
{
	unsigned id = d->out.id;
	int rc;

	switch (rec->tag) {
	case BMD_STRING:
	case BMD_HASHED_STRING:
	case BMD_CLASS_DEFINITION:
	case BMD_LEGACY_RECORD:
		if ((rc = d->o->jdk ? dc_hold(d, rec, e) : dc_emit_a(d, rec, e)))
			return rc;
		break;
	default:
		break;
	}
	switch (rec->tag) {
	case BMD_STRING:
	case BMD_HASHED_STRING:
		return dc_define_string(d, rec->id, e);
	case BMD_CLASS_DEFINITION:
		return dc_note_class(d, rec->def, e);
	case BMD_OBJECT_ARRAY:
		if ((rc = dc_add_heap(d, rec, 1 + 2 * (uint64_t)id + 8 + (uint64_t)rec->count * id, e)))
			return rc;
		return d->o->mat ? bmd_idmap_put(&d->array_classes, rec->class_id, 0, e) : 0;
	case BMD_PRIMITIVE_ARRAY:
		return dc_add_heap(d, rec, 1 + (uint64_t)id + 9 + dc_prim_bytes(rec), e);
	case BMD_ROOT_OBJECTS:
		return dc_add_heap(d, rec, (uint64_t)rec->count * (1 + id), e);
	case BMD_LEGACY_RECORD:
		d->st->legacy++;
		return 0;
	default:
		return 0;
	}
}

static int dc_pass_a(struct dc *d, struct err *e)
{
	struct bmd_record rec;
	bool first = true;
	int rc;

	while ((rc = bmd_next(&d->fin, &rec, e)) == 1) {
		if (first && d->skip_marker) {
			first = false;
			continue;
		}
		first = false;
		if ((rc = dc_record_a(d, &rec, e)) || (rc = dout_maybe_flush(&d->out, e)))
			return rc;
		dc_consumed(d, &d->fin);
	}
	return rc;
}

/* Is the first record the STRING id 0 "artcarve:id-size=8" marker?  1 yes, 0 no, <0 when
 * the first record does not read (the error the decoding passes would meet next). */
static int dc_has_marker(const struct dc *d, struct err *e)
{
	struct bmd_reader r;
	struct bmd_record rec;
	int rc;

	if ((rc = bmd_reader_init(&r, d->data, d->len, d->label, e)) < 0)
		return rc;
	if ((rc = bmd_next(&r, &rec, e)) == 1)
		rc = rec.tag == BMD_STRING && rec.id == 0 && rec.len == strlen(BMD_MARKER_ID8) &&
		     !memcmp(rec.bytes, BMD_MARKER_ID8, rec.len);
	bmd_reader_release(&r);
	return rc;
}

static void dc_header(struct dc *d)
{
	struct wbuf *b = &d->out.buf;

	if (d->o->mat) {
		wbuf_put(b, "JAVA PROFILE 1.0.2", 19);      /* with its NUL */
	} else {
		/* Badoo: new String(metadata), written back with getBytes() and a NUL */
		bmd_java_utf8(d->fin.meta, d->fin.meta_len, b, NULL);
		wbuf_u8(b, 0);
	}
	wbuf_u32be(b, d->out.id);
	wbuf_u64be(b, 0);
}

/* ---- the heap dump ------------------------------------------------------------------------------ */

static int dc_class_order(struct dc *d, size_t **order, struct err *e)
{
	*order = xcalloc(d->class_count ? d->class_count : 1, sizeof(**order));
	if (!*order)
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory for %zu classes", d->class_count);
	return bmd_java_hashmap_order(d->class_keys, d->class_count, *order, e);
}

static int dc_write_class_dumps(struct dc *d, const size_t *order, struct err *e)
{
	int rc;

	for (size_t i = 0; i < d->class_count; i++) {
		dc_put_class_dump(d, heap_buf(&d->heap), bmd_reader_class(&d->fin, d->class_keys[order[i]]));
		if ((rc = heap_sub_done(&d->heap, e)))
			return rc;
	}
	return 0;
}

/* The object sections, each a pass over the BMD in record order. */
static int dc_write_objects(struct dc *d, struct err *e)
{
	int rc;

	if ((rc = dc_pass(d, BMD_INSTANCE_DUMP, dc_write_instance, e)) ||
	    (rc = dc_pass(d, BMD_OBJECT_ARRAY, dc_write_obj_array, e)) ||
	    (rc = dc_pass(d, BMD_PRIMITIVE_ARRAY, dc_write_prim_array, e)))
		return rc;
	return dc_pass(d, BMD_ROOT_OBJECTS, dc_write_roots, e);
}

static int dc_heap_badoo(struct dc *d, const size_t *order, struct err *e)
{
	uint64_t total;
	int rc;

	for (size_t i = 0; i < d->class_count; i++) {
		uint64_t n;
		if ((rc = dc_class_size(d, bmd_reader_class(&d->fin, d->class_keys[order[i]]), &n, e)))
			return rc;
		d->heap_bytes += n;
	}
	if ((rc = dc_pass(d, BMD_INSTANCE_DUMP, dc_size_instance, e)))
		return rc;
	total = d->heap_bytes;
	if (total > UINT32_MAX || (d->out.max && total > d->out.max))
		return ERR_SET(e, ERR_UNSUP, d->len,
			       "heap dump of %llu bytes (classes and instances up to the end at 0x%zx) is over "
			       "the limit of one HEAP_DUMP record or --max-output (--mat writes segments)",
			       (unsigned long long)total, d->len);
	put_record_header(&d->out.buf, DC_HEAP_DUMP, (uint32_t)total);
	if ((rc = dc_write_class_dumps(d, order, e)) || (rc = dc_write_objects(d, e)))
		return rc;
	if (d->out.flushed + d->out.buf.len != d->heap_start + 9 + total)
		return ERR_SET(e, ERR_INTERNAL, ERR_NO_VA, "heap dump length mismatch: wrote %llu of %llu bytes",
			       (unsigned long long)(d->out.flushed + d->out.buf.len - d->heap_start - 9),
			       (unsigned long long)total);
	return 0;
}

/* ---- --mat: strings before use, a class for every reference, segments ------------------------- */

static int dc_fresh_string(struct dc *d, const char *text, uint32_t *id, struct err *e)
{
	uint32_t v;

	while (d->next_sid && htab_get(&d->strings_defined, d->next_sid, &v))
		d->next_sid--;
	if (!d->next_sid)
		return ERR_SET(e, ERR_UNSUP, ERR_NO_VA, "no free string id left for synthesized names");
	*id = d->next_sid--;
	put_string(&d->out, *id, text, strlen(text));
	return bmd_idmap_put(&d->strings_defined, *id, 0, e);
}

/* Defines a placeholder for a string id that is used but was never in the BMD. */
static int dc_need_string(struct dc *d, uint32_t id, struct err *e)
{
	char text[32];
	uint32_t v;

	if (htab_get(&d->strings_defined, id, &v))
		return 0;
	snprintf(text, sizeof(text), "Unknown$%u", id);
	put_string(&d->out, id, text, strlen(text));
	return bmd_idmap_put(&d->strings_defined, id, 0, e);
}

static int dc_need_class(struct dc *d, struct htab *seen, uint32_t id, struct err *e)
{
	uint32_t v;
	bool added;
	int rc;

	if (id == 0 || bmd_reader_class(&d->fin, id))
		return 0;
	if ((rc = bmd_idmap_get_or_put(seen, id, 0, &v, &added, e)) || !added)
		return rc;
	d->synth[d->synth_count++] = id;
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* Classes referenced as a superclass or an object array's class without a definition. */
static int dc_collect_missing(struct dc *d, const size_t *order, struct err *e)
{
	struct htab seen;
	size_t max = d->class_count + d->array_classes.count + 1;
	int rc = 0;

	d->synth = xcalloc(max, sizeof(uint32_t));
	d->synth_names = xcalloc(max, sizeof(uint32_t));
	if (!d->synth || !d->synth_names)
		return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory for %zu class references", max);
	htab_init(&seen);
	for (size_t i = 0; i < d->class_count && !rc; i++)
		rc = dc_need_class(d, &seen, bmd_reader_class(&d->fin, d->class_keys[order[i]])->super_id, e);
	for (size_t s = 0; s < d->array_classes.cap && !rc; s++)
		if (d->array_classes.vals[s])
			rc = dc_need_class(d, &seen, (uint32_t)d->array_classes.keys[s], e);
	htab_release(&seen);
	qsort(d->synth, d->synth_count, sizeof(uint32_t), cmp_u32);
	return rc;
}

static int dc_mat_names(struct dc *d, const size_t *order, struct err *e)
{
	uint32_t v;
	int rc;

	for (size_t i = 0; i < d->class_count; i++) {
		const struct bmd_class_def *def = bmd_reader_class(&d->fin, d->class_keys[order[i]]);
		if ((rc = dc_need_string(d, def->name_id, e)))
			return rc;
		for (uint32_t k = 0; k < def->static_count; k++)
			if ((rc = dc_need_string(d, def->statics[k].name_id, e)))
				return rc;
		for (uint32_t k = 0; k < def->field_count; k++)
			if ((rc = dc_need_string(d, def->fields[k].name_id, e)))
				return rc;
		if ((rc = dout_maybe_flush(&d->out, e)))
			return rc;
	}
	for (size_t i = 0; i < d->synth_count; i++) {
		char text[48];
		bool array = htab_get(&d->array_classes, d->synth[i], &v);
		snprintf(text, sizeof(text), "artcarve.MissingClass$%u%s", d->synth[i], array ? "[]" : "");
		if ((rc = dc_fresh_string(d, text, &d->synth_names[i], e)))
			return rc;
	}
	return 0;
}

static int dc_heap_mat(struct dc *d, const size_t *order, struct err *e)
{
	uint32_t serial = 1;
	int rc;

	if ((rc = bmd_idmap_put(&d->strings_defined, DC_FILLER_NAME_ID, 0, e)) ||
	    (rc = dc_collect_missing(d, order, e)) || (rc = dc_mat_names(d, order, e)))
		return rc;
	for (size_t i = 0; i < d->class_count; i++) {
		const struct bmd_class_def *def = bmd_reader_class(&d->fin, d->class_keys[order[i]]);
		put_load_class(&d->out, serial++, def->id, def->name_id);
	}
	for (size_t i = 0; i < d->synth_count; i++)
		put_load_class(&d->out, serial++, d->synth[i], d->synth_names[i]);
	put_null_trace(&d->out);
	for (size_t i = 0; i < d->class_count; i++) {
		uint64_t n;
		if ((rc = dc_class_size(d, bmd_reader_class(&d->fin, d->class_keys[order[i]]), &n, e)))
			return rc;
	}
	if ((rc = dc_write_class_dumps(d, order, e)))
		return rc;
	for (size_t i = 0; i < d->synth_count; i++) {
		dc_put_empty_class_dump(d, &d->heap.seg, d->synth[i]);
		if ((rc = heap_sub_done(&d->heap, e)))
			return rc;
	}
	d->st->synthesized_classes = d->synth_count;
	if ((rc = dc_write_objects(d, e)) || (rc = heap_flush_segment(&d->heap, e)))
		return rc;
	put_record_header(&d->out.buf, DC_HEAP_DUMP_END, 0);
	return 0;
}

/* ---- entry point --------------------------------------------------------------------------------- */

static void dc_release(struct dc *d)
{
	bmd_reader_release(&d->fin);
	wbuf_release(&d->out.buf);
	wbuf_release(&d->heap.seg);
	wbuf_release(&d->vals);
	wbuf_release(&d->text);
	htab_release(&d->class_seen);
	htab_release(&d->strings_defined);
	htab_release(&d->array_classes);
	bmd_dict_release(&d->builtin);
	bmd_dict_release(&d->jdk);
	htab_release(&d->jdk_wanted);
	xfree(d->held);
	xfree(d->class_keys);
	xfree(d->offs);
	xfree(d->synth);
	xfree(d->synth_names);
}

static int dc_run(struct dc *d, struct err *e)
{
	size_t *order = NULL;
	int rc;

	if ((rc = bmd_reader_init(&d->fin, d->data, d->len, d->label, e)))
		return rc;
	if ((rc = dc_has_marker(d, e)) < 0)
		return rc;
	d->skip_marker = rc == 1;
	d->out.id = d->o->id_size ? d->o->id_size : d->skip_marker ? 8 : 4;
	if (d->out.id != 4 && d->out.id != 8)
		return ERR_SET(e, ERR_USAGE, ERR_NO_VA, "identifier size %u: expected 4 or 8", d->out.id);
	d->st->id_size = d->out.id;
	if (d->o->mat && (rc = dc_builtin_init(d, e)))
		return rc;
	dc_header(d);
	if ((rc = dc_pass_a(d, e)) < 0 || (d->o->jdk && (rc = dc_release_held(d, e))))
		return rc;
	put_string(&d->out, DC_FILLER_NAME_ID, "field_removed", 13);
	d->st->classes = d->class_count;
	if ((rc = dc_class_order(d, &order, e)) == 0) {
		d->heap_start = d->out.flushed + d->out.buf.len;
		rc = d->o->mat ? dc_heap_mat(d, order, e) : dc_heap_badoo(d, order, e);
	}
	xfree(order);
	if (rc == 0)
		rc = dout_flush(&d->out, e);
	d->st->bytes_out = d->out.flushed;
	return rc;
}

int bmd_decrunch(const uint8_t *bmd, size_t len, const char *label, const struct bmd_decrunch_opts *o,
		 const struct bmd_sink *out, struct bmd_decrunch_stats *st, struct err *e)
{
	static const struct bmd_decrunch_opts defaults;
	struct bmd_decrunch_stats dummy;
	struct dc d;
	int rc;

	memset(&d, 0, sizeof(d));
	d.data = bmd;
	d.len = len;
	d.label = label;
	d.o = o ? o : &defaults;
	d.st = st ? st : &dummy;
	memset(d.st, 0, sizeof(*d.st));
	d.out.sink = out;
	d.out.max = d.o->max_output;
	d.heap.o = &d.out;
	d.heap.mat = d.o->mat;
	d.heap.cap = d.o->segment_cap ? d.o->segment_cap : (1u << 20);
	d.next_sid = 0x7ffffffe;
	wbuf_init(&d.out.buf);
	wbuf_init(&d.heap.seg);
	wbuf_init(&d.vals);
	wbuf_init(&d.text);
	htab_init(&d.class_seen);
	htab_init(&d.strings_defined);
	htab_init(&d.array_classes);
	bmd_dict_init(&d.builtin);
	bmd_dict_init(&d.jdk);
	htab_init(&d.jdk_wanted);
	d.offs = xcalloc(BMD_CHAIN_MAX + 1, sizeof(*d.offs));
	if (!d.offs)
		rc = ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory");
	else
		rc = dc_run(&d, e);
	dc_release(&d);
	return rc;
}
