/* hprof_reader.c - streaming HPROF reader (see hprof_reader.h).
 *
 * Layouts follow the record formats of doc/sources.md (jdk-sa HeapHprofBinWriter.java format
 * comment, art runtime/hprof/hprof.cc).  All reads go through struct cursor; sub-record
 * extents are computed from their own fields and checked against the enclosing record. */
#include "output/hprof/hprof_reader.h"

#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "carver/base/ck.h"

#define HPROF_MAGIC "JAVA PROFILE "

/* ---- header and records ---------------------------------------------------------------- */

bool hprof_probe(const uint8_t *data, size_t len)
{
	size_t n = sizeof(HPROF_MAGIC) - 1;
	return data && len >= n && memcmp(data, HPROF_MAGIC, n) == 0;
}

/* "1.0" -> 0, "1.0.N" (N = 1..3) -> N, else -1. */
static int hprof_version_minor(const char *v)
{
	if (!strcmp(v, "1.0"))
		return 0;
	if (!strncmp(v, "1.0.", 4) && v[4] >= '1' && v[4] <= '3' && v[5] == '\0')
		return v[4] - '0';
	return -1;
}

int hprof_reader_init(struct hprof_reader *r, const uint8_t *data, size_t len, const char *label,
		      struct err *e)
{
	const uint8_t *nul;
	size_t vlen;
	uint32_t id_size, hi, lo;
	int minor, rc;

	memset(r, 0, sizeof(*r));
	r->label = label;
	cur_init(&r->c, data, len, 0);
	if (!hprof_probe(data, len))
		return ERR_SET(e, len < sizeof(HPROF_MAGIC) - 1 ? ERR_TRUNC : ERR_CORRUPT, 0,
			       "offset 0x0: not an HPROF file (expected \"JAVA PROFILE 1.0.x\")");
	nul = memchr(data, 0, len < HPROF_VERSION_MAX + 1 ? len : HPROF_VERSION_MAX + 1);
	if (!nul)
		return ERR_SET(e, len <= HPROF_VERSION_MAX ? ERR_TRUNC : ERR_CORRUPT, 0,
			       "offset 0x0: header string has no NUL within %d bytes", HPROF_VERSION_MAX + 1);
	vlen = (size_t)(nul - data);
	memcpy(r->version, data, vlen);
	r->version[vlen] = '\0';
	minor = hprof_version_minor(r->version + sizeof(HPROF_MAGIC) - 1);
	if (minor < 0)
		return ERR_SET(e, ERR_UNSUP, 0, "offset 0x0: unsupported HPROF version \"%s\" (expected 1.0, "
			       "1.0.1, 1.0.2 or 1.0.3)", r->version);
	r->minor = (unsigned)minor;
	r->c.pos = vlen + 1;
	if ((rc = cur_u32be(&r->c, &id_size, e)) || (rc = cur_u32be(&r->c, &hi, e)) ||
	    (rc = cur_u32be(&r->c, &lo, e)))
		return err_prefix(e, "HPROF header");
	if (id_size != 4 && id_size != 8)
		return ERR_SET(e, ERR_UNSUP, vlen + 1, "offset 0x%zx: identifier size %u is not supported "
			       "(expected 4 or 8)", vlen + 1, id_size);
	r->id_size = id_size;
	r->timestamp = (uint64_t)hi << 32 | lo;
	r->header_len = r->c.pos;
	return 0;
}

/* See drop_behind in hprof_reader.h: advisory only, failures are ignored. */
void hprof_reader_drop(struct hprof_reader *r, size_t upto)
{
	long ps = sysconf(_SC_PAGESIZE);   /* each time: no static state (threaded writers) */
	size_t page = ps > 0 ? (size_t)ps : 4096;
	size_t end, step = r->drop_step ? r->drop_step : HPROF_DROP_STEP;

	if (!r->drop_behind || upto < r->dropped || upto - r->dropped < step)
		return;
	if ((uintptr_t)r->c.base % page != 0 || upto > r->c.len)
		return;
	end = upto - upto % page;
	if (end <= r->dropped)
		return;
	madvise((void *)(uintptr_t)(r->c.base + r->dropped), end - r->dropped, MADV_DONTNEED);
	r->dropped = end;
}

int hprof_next(struct hprof_reader *r, struct hprof_record *rec, struct err *e)
{
	struct cursor *c = &r->c;
	const uint8_t *p;
	uint32_t len;
	int rc;

	if (cur_remaining(c) == 0)
		return 0;
	hprof_reader_drop(r, c->pos);
	rec->offset = cur_where(c);
	if (cur_remaining(c) < HPROF_RECORD_HEADER)
		return ERR_SET(e, ERR_TRUNC, rec->offset, "record at 0x%llx: header needs %d bytes, "
			       "only %zu left in the file", (unsigned long long)rec->offset,
			       HPROF_RECORD_HEADER, cur_remaining(c));
	p = cur_ptr(c);
	rec->tag = p[0];
	rec->time = ld_u32be(p + 1);
	len = ld_u32be(p + 5);
	if (len > cur_remaining(c) - HPROF_RECORD_HEADER)
		return ERR_SET(e, ERR_TRUNC, rec->offset, "record at 0x%llx (tag 0x%02x): length %u "
			       "exceeds the %zu bytes left in the file", (unsigned long long)rec->offset,
			       rec->tag, len, cur_remaining(c) - HPROF_RECORD_HEADER);
	if ((rc = cur_sub(c, c->pos + HPROF_RECORD_HEADER, len, &rec->body, e)))   /* checked above */
		return rc;
	c->pos += HPROF_RECORD_HEADER + (size_t)len;
	return 1;
}

/* ---- sub-record extents ------------------------------------------------------------------ */

static inline uint64_t ld_uNbe(const uint8_t *p, unsigned n)
{
	switch (n) {
	case 1: return p[0];
	case 2: return ld_u16be(p);
	case 4: return ld_u32be(p);
	default: return ld_u64be(p);
	}
}

static int sub_trunc(const struct cursor *c, const char *what, uint64_t at, size_t need, struct err *e)
{
	return ERR_SET(e, ERR_TRUNC, at, "%s at 0x%llx: needs %zu bytes, only %zu left in the heap dump "
		       "record", what, (unsigned long long)at, need, cur_remaining(c));
}

/* Walks one CLASS_DUMP section of `count` entries starting at c->pos; each entry is `key`
 * bytes, a type byte and (if with_value) a value.  Advances c past the section. */
static int class_section_walk(struct cursor *c, uint16_t count, unsigned key, bool with_value,
			      unsigned id_size, uint64_t dump_at, const char *section, struct err *e)
{
	for (unsigned i = 0; i < count; i++) {
		uint64_t at = cur_where(c);
		unsigned size = 0;
		uint8_t type;

		if (cur_remaining(c) < key + 1u)
			return ERR_SET(e, ERR_TRUNC, at, "CLASS_DUMP at 0x%llx: %s entry %u at 0x%llx runs past "
				       "the end of the heap dump record", (unsigned long long)dump_at,
				       section, i, (unsigned long long)at);
		type = cur_ptr(c)[key];
		size = hprof_type_size(type, id_size);
		if (size == 0)
			return ERR_SET(e, ERR_CORRUPT, at + key, "CLASS_DUMP at 0x%llx: %s entry %u has invalid "
				       "type %u at 0x%llx (expected 2 or 4..11)", (unsigned long long)dump_at,
				       section, i, type, (unsigned long long)(at + key));
		if (!with_value)
			size = 0;
		if (cur_remaining(c) - (key + 1u) < size)
			return ERR_SET(e, ERR_TRUNC, at, "CLASS_DUMP at 0x%llx: %s entry %u at 0x%llx runs past "
				       "the end of the heap dump record", (unsigned long long)dump_at,
				       section, i, (unsigned long long)at);
		c->pos += key + 1u + size;
	}
	return 0;
}

/* Scans a CLASS_DUMP body (c positioned after the tag).  Fills cd when non-NULL. */
static int class_dump_scan(struct cursor *c, unsigned id_size, uint64_t at, struct hprof_class_dump *cd,
			   struct err *e)
{
	size_t fixed = 7 * (size_t)id_size + 8;
	const uint8_t *p;
	uint16_t counts[3];
	size_t starts[3];
	static const char *const names[3] = { "constant pool", "static field", "instance field" };
	int rc;

	if (cur_remaining(c) < fixed + 2)
		return sub_trunc(c, "CLASS_DUMP", at, fixed + 2, e);
	p = cur_ptr(c);
	if (cd) {
		cd->id_size = id_size;
		cd->class_id = ld_uNbe(p, id_size);
		cd->trace_serial = ld_u32be(p + id_size);
		p += id_size + 4;
		cd->super_id = ld_uNbe(p, id_size);
		cd->loader_id = ld_uNbe(p + id_size, id_size);
		cd->signers_id = ld_uNbe(p + 2 * id_size, id_size);
		cd->domain_id = ld_uNbe(p + 3 * id_size, id_size);
		cd->reserved1 = ld_uNbe(p + 4 * id_size, id_size);
		cd->reserved2 = ld_uNbe(p + 5 * id_size, id_size);
		cd->instance_size = ld_u32be(p + 6 * id_size);
	}
	c->pos += fixed;
	for (int s = 0; s < 3; s++) {
		if (cur_remaining(c) < 2)
			return ERR_SET(e, ERR_TRUNC, cur_where(c), "CLASS_DUMP at 0x%llx: %s count at 0x%llx runs "
				       "past the end of the heap dump record", (unsigned long long)at, names[s],
				       (unsigned long long)cur_where(c));
		counts[s] = ld_u16be(cur_ptr(c));
		c->pos += 2;
		starts[s] = c->pos;
		rc = class_section_walk(c, counts[s], s == 0 ? 2 : id_size, s != 2, id_size, at, names[s], e);
		if (rc)
			return rc;
		if (cd) {
			struct cursor *sec = s == 0 ? &cd->constants : s == 1 ? &cd->statics : &cd->fields;
			if ((rc = cur_sub(c, starts[s], c->pos - starts[s], sec, e)))   /* walked above */
				return rc;
		}
	}
	if (cd) {
		cd->const_count = cd->const_left = counts[0];
		cd->static_count = cd->static_left = counts[1];
		cd->field_count = cd->field_left = counts[2];
	}
	return 0;
}

/* Bytes after the tag for fixed-size sub-records; 0 for variable-size or unknown tags. */
static size_t sub_fixed_size(uint8_t tag, unsigned id)
{
	switch (tag) {
	case HPROF_ROOT_UNKNOWN: case HPROF_ROOT_STICKY_CLASS: case HPROF_ROOT_MONITOR_USED:
	case HPROF_ROOT_INTERNED_STRING: case HPROF_ROOT_FINALIZING: case HPROF_ROOT_DEBUGGER:
	case HPROF_ROOT_REFERENCE_CLEANUP: case HPROF_ROOT_VM_INTERNAL: case HPROF_ROOT_UNREACHABLE:
		return id;
	case HPROF_ROOT_JNI_GLOBAL:
		return 2 * (size_t)id;
	case HPROF_ROOT_NATIVE_STACK: case HPROF_ROOT_THREAD_BLOCK: case HPROF_HEAP_DUMP_INFO:
		return id + 4;
	case HPROF_ROOT_JNI_LOCAL: case HPROF_ROOT_JAVA_FRAME: case HPROF_ROOT_THREAD_OBJECT:
	case HPROF_ROOT_JNI_MONITOR:
		return id + 8;
	case HPROF_PRIM_ARRAY_NODATA:
		return id + 9;
	default:
		return 0;
	}
}

/* Extent of a variable-size object dump whose fixed head is `head` bytes and whose payload
 * is count * unit bytes (count read at count_off in the head). */
static int sub_array_extent(const struct cursor *c, const char *what, uint64_t at, size_t head,
			    size_t count_off, unsigned unit, size_t *extent, struct err *e)
{
	size_t payload;
	uint32_t count;

	if (cur_remaining(c) < head)
		return sub_trunc(c, what, at, head, e);
	count = ld_u32be(cur_ptr(c) + count_off);
	if (ck_mul(count, unit, &payload) || ck_add(payload, head, extent) || *extent > cur_remaining(c))
		return ERR_SET(e, ERR_TRUNC, at, "%s at 0x%llx: %u elements of %u bytes exceed the %zu "
			       "bytes left in the heap dump record", what, (unsigned long long)at, count,
			       unit, cur_remaining(c) - head);
	return 0;
}

static bool prim_type_ok(uint8_t type, unsigned id)
{
	return type != HPROF_T_OBJECT && hprof_type_size(type, id) != 0;
}

static int sub_extent(const struct cursor *c, uint8_t tag, unsigned id, uint64_t at, size_t *extent,
		      struct err *e)
{
	size_t fixed = sub_fixed_size(tag, id);

	if (fixed) {
		if (cur_remaining(c) < fixed)
			return sub_trunc(c, hprof_sub_name(tag), at, fixed, e);
		if (tag == HPROF_PRIM_ARRAY_NODATA && !prim_type_ok(cur_ptr(c)[id + 8], id))
			return ERR_SET(e, ERR_CORRUPT, at + 1 + id + 8, "PRIMITIVE_ARRAY_NODATA at 0x%llx: element "
				       "type %u at 0x%llx is not a primitive type (expected 4..11)",
				       (unsigned long long)at, cur_ptr(c)[id + 8], (unsigned long long)(at + 1 + id + 8));
		*extent = fixed;
		return 0;
	}
	switch (tag) {
	case HPROF_INSTANCE_DUMP:
		/* id object, u4 trace, id class, u4 byte count, bytes */
		return sub_array_extent(c, "INSTANCE_DUMP", at, 2 * (size_t)id + 8, 2 * (size_t)id + 4, 1,
					extent, e);
	case HPROF_OBJ_ARRAY_DUMP:
		/* id array, u4 trace, u4 count, id class, ids */
		return sub_array_extent(c, "OBJECT_ARRAY_DUMP", at, 2 * (size_t)id + 8, id + 4, id, extent, e);
	case HPROF_PRIM_ARRAY_DUMP: {
		/* id array, u4 trace, u4 count, u1 type, values */
		unsigned size;
		uint8_t type;
		if (cur_remaining(c) < id + 9u)
			return sub_trunc(c, "PRIMITIVE_ARRAY_DUMP", at, id + 9u, e);
		type = cur_ptr(c)[id + 8];
		size = hprof_type_size(type, id);
		if (!prim_type_ok(type, id))
			return ERR_SET(e, ERR_CORRUPT, at + 1 + id + 8, "PRIMITIVE_ARRAY_DUMP at 0x%llx: element "
				       "type %u at 0x%llx is not a primitive type (expected 4..11)",
				       (unsigned long long)at, type, (unsigned long long)(at + 1 + id + 8));
		return sub_array_extent(c, "PRIMITIVE_ARRAY_DUMP", at, id + 9u, id + 4, size, extent, e);
	}
	case HPROF_CLASS_DUMP: {
		struct cursor probe = *c;
		int rc = class_dump_scan(&probe, id, at, NULL, e);
		if (rc)
			return rc;
		*extent = probe.pos - c->pos;
		return 0;
	}
	default:
		return ERR_SET(e, ERR_CORRUPT, at, "heap sub-record at 0x%llx: unknown tag 0x%02x",
			       (unsigned long long)at, tag);
	}
}

/* Element size of a primitive array type (4..11), 0 for anything else. */
static const uint8_t prim_size[256] = {
	[HPROF_T_BOOLEAN] = 1, [HPROF_T_CHAR] = 2, [HPROF_T_FLOAT] = 4, [HPROF_T_DOUBLE] = 8,
	[HPROF_T_BYTE] = 1, [HPROF_T_SHORT] = 2, [HPROF_T_INT] = 4, [HPROF_T_LONG] = 8,
};

/* The extent of the three object dumps that make up nearly every heap dump, from the `left`
 * bytes after the tag at p; false for any other tag or anything out of bounds (sub_extent
 * then says what is wrong).  Counts are u4, so count * 8 cannot overflow a 64-bit size_t. */
static inline bool sub_extent_fast(const uint8_t *p, size_t left, uint8_t tag, unsigned id, size_t *extent)
{
	size_t head, payload;

	switch (tag) {
	case HPROF_INSTANCE_DUMP:
		head = 2 * (size_t)id + 8;
		if (left < head)
			return false;
		payload = ld_u32be(p + 2 * (size_t)id + 4);
		break;
	case HPROF_OBJ_ARRAY_DUMP:
		head = 2 * (size_t)id + 8;
		if (left < head)
			return false;
		payload = (size_t)ld_u32be(p + id + 4) * id;
		break;
	case HPROF_PRIM_ARRAY_DUMP:
		head = (size_t)id + 9;
		if (left < head || !prim_size[p[id + 8]])
			return false;
		payload = (size_t)ld_u32be(p + id + 4) * prim_size[p[id + 8]];
		break;
	default:
		return false;
	}
	if (sizeof(size_t) < 8 || payload > left - head)
		return false;
	*extent = head + payload;
	return true;
}

int hprof_next_sub(struct cursor *heap_body, unsigned id_size, struct hprof_sub *sub, struct err *e)
{
	struct cursor c;
	size_t extent, left = cur_remaining(heap_body);
	const uint8_t *p;
	int rc;

	if (left == 0)
		return 0;
	p = cur_ptr(heap_body);
	sub->offset = cur_where(heap_body);
	sub->tag = p[0];
	__builtin_prefetch(p + 1024);   /* a hint only: no fault, even past the end */
	if (sub_extent_fast(p + 1, left - 1, p[0], id_size, &extent)) {
		/* in bounds by the check above: the sub-cursor needs no second one */
		sub->body.base = p + 1;
		sub->body.len = extent;
		sub->body.pos = 0;
		sub->body.va = sub->offset + 1;
		heap_body->pos += 1 + extent;
		return 1;
	}
	if ((rc = cur_sub(heap_body, heap_body->pos + 1, left - 1, &c, e)) ||
	    (rc = sub_extent(&c, sub->tag, id_size, sub->offset, &extent, e)) ||
	    (rc = cur_sub(&c, 0, extent, &sub->body, e)))
		return rc;
	heap_body->pos += 1 + extent;
	return 1;
}

/* ---- decoders ------------------------------------------------------------------------------ */

static int expect_tag(const struct hprof_sub *sub, uint8_t tag, struct err *e)
{
	if (sub->tag != tag)
		return ERR_SET(e, ERR_INTERNAL, sub->offset, "sub-record at 0x%llx: tag 0x%02x is not %s",
			       (unsigned long long)sub->offset, sub->tag, hprof_sub_name(tag));
	return 0;
}

int hprof_string_parse(const struct hprof_record *rec, unsigned id_size, struct hprof_string *out,
		       struct err *e)
{
	struct cursor c = rec->body;

	/* the cursor's "truncated" becomes the record-level message */
	if (cur_uNbe(&c, id_size, &out->id, e))
		return ERR_SET(e, ERR_CORRUPT, rec->offset, "STRING record at 0x%llx: body of %zu bytes is "
			       "shorter than the %u-byte id", (unsigned long long)rec->offset, rec->body.len,
			       id_size);
	out->text = cur_ptr(&c);
	out->len = cur_remaining(&c);
	return 0;
}

int hprof_load_class_parse(const struct hprof_record *rec, unsigned id_size,
			   struct hprof_load_class *out, struct err *e)
{
	struct cursor c = rec->body;

	if (cur_u32be(&c, &out->serial, e) || cur_uNbe(&c, id_size, &out->class_id, e) ||
	    cur_u32be(&c, &out->trace_serial, e) || cur_uNbe(&c, id_size, &out->name_id, e))
		return ERR_SET(e, ERR_TRUNC, rec->offset, "LOAD_CLASS record at 0x%llx: body of %zu bytes is "
			       "shorter than %u", (unsigned long long)rec->offset, rec->body.len, 8 + 2 * id_size);
	return 0;
}

int hprof_root_parse(const struct hprof_sub *sub, unsigned id_size, struct hprof_root *out, struct err *e)
{
	const uint8_t *p = sub->body.base;
	size_t need = sub_fixed_size(sub->tag, id_size);

	memset(out, 0, sizeof(*out));
	if (!hprof_sub_is_root(sub->tag))
		return ERR_SET(e, ERR_INTERNAL, sub->offset, "sub-record at 0x%llx: tag 0x%02x is not a root",
			       (unsigned long long)sub->offset, sub->tag);
	if (sub->body.len < need)
		return sub_trunc(&sub->body, hprof_sub_name(sub->tag), sub->offset, need, e);
	out->tag = sub->tag;
	out->id = ld_uNbe(p, id_size);
	p += id_size;
	switch (sub->tag) {
	case HPROF_ROOT_JNI_GLOBAL:
		out->ref_id = ld_uNbe(p, id_size);
		break;
	case HPROF_ROOT_JNI_LOCAL: case HPROF_ROOT_JAVA_FRAME: case HPROF_ROOT_THREAD_OBJECT:
	case HPROF_ROOT_JNI_MONITOR:
		out->thread_serial = ld_u32be(p);
		out->frame = ld_u32be(p + 4);
		break;
	case HPROF_ROOT_NATIVE_STACK: case HPROF_ROOT_THREAD_BLOCK:
		out->thread_serial = ld_u32be(p);
		break;
	default:
		break;
	}
	return 0;
}

int hprof_heap_info_parse(const struct hprof_sub *sub, unsigned id_size, struct hprof_heap_info *out,
			  struct err *e)
{
	int rc = expect_tag(sub, HPROF_HEAP_DUMP_INFO, e);

	if (rc)
		return rc;
	if (sub->body.len < 4 + id_size)
		return sub_trunc(&sub->body, "HEAP_DUMP_INFO", sub->offset, 4 + id_size, e);
	out->heap_id = ld_u32be(sub->body.base);
	out->name_id = ld_uNbe(sub->body.base + 4, id_size);
	return 0;
}

int hprof_class_dump_parse(const struct hprof_sub *sub, unsigned id_size, struct hprof_class_dump *out,
			   struct err *e)
{
	struct cursor c = sub->body;
	int rc = expect_tag(sub, HPROF_CLASS_DUMP, e);

	if (rc)
		return rc;
	memset(out, 0, sizeof(*out));
	return class_dump_scan(&c, id_size, sub->offset, out, e);
}

/* One entry of a section the scan already validated; the checks stay for direct callers. */
static int class_next(struct cursor *c, uint16_t *left, unsigned key, bool with_value, unsigned id_size,
		      struct hprof_class_entry *out, struct err *e)
{
	unsigned size;
	uint8_t type;

	if (*left == 0)
		return 0;
	out->offset = cur_where(c);
	if (cur_remaining(c) < key + 1u)
		return ERR_SET(e, ERR_TRUNC, out->offset, "CLASS_DUMP entry at 0x%llx is truncated",
			       (unsigned long long)out->offset);
	type = cur_ptr(c)[key];
	size = hprof_type_size(type, id_size);
	if (size == 0)
		return ERR_SET(e, ERR_CORRUPT, out->offset + key, "CLASS_DUMP entry at 0x%llx: invalid type %u",
			       (unsigned long long)out->offset, type);
	if (!with_value)
		size = 0;
	if (cur_remaining(c) - (key + 1u) < size)
		return ERR_SET(e, ERR_TRUNC, out->offset, "CLASS_DUMP entry at 0x%llx is truncated",
			       (unsigned long long)out->offset);
	out->key = ld_uNbe(cur_ptr(c), key);
	out->type = type;
	out->value = size ? ld_uNbe(cur_ptr(c) + key + 1, size) : 0;
	c->pos += key + 1u + size;
	(*left)--;
	return 1;
}

int hprof_class_next_constant(struct hprof_class_dump *cd, struct hprof_class_entry *out, struct err *e)
{
	return class_next(&cd->constants, &cd->const_left, 2, true, cd->id_size, out, e);
}

int hprof_class_next_static(struct hprof_class_dump *cd, struct hprof_class_entry *out, struct err *e)
{
	return class_next(&cd->statics, &cd->static_left, cd->id_size, true, cd->id_size, out, e);
}

int hprof_class_next_field(struct hprof_class_dump *cd, struct hprof_class_entry *out, struct err *e)
{
	return class_next(&cd->fields, &cd->field_left, cd->id_size, false, cd->id_size, out, e);
}

/* Re-derives the extent so decoders are safe on hand-made hprof_sub values too. */
static int sub_check(const struct hprof_sub *sub, uint8_t tag, unsigned id_size, struct err *e)
{
	size_t extent;
	int rc = expect_tag(sub, tag, e);

	if (rc)
		return rc;
	if (!sub_extent_fast(cur_ptr(&sub->body), cur_remaining(&sub->body), tag, id_size, &extent) &&
	    (rc = sub_extent(&sub->body, tag, id_size, sub->offset, &extent, e)))
		return rc;
	if (extent != sub->body.len)
		return ERR_SET(e, ERR_CORRUPT, sub->offset, "%s at 0x%llx: body is %zu bytes, its fields say %zu",
			       hprof_sub_name(tag), (unsigned long long)sub->offset, sub->body.len, extent);
	return 0;
}

int hprof_instance_parse(const struct hprof_sub *sub, unsigned id_size, struct hprof_instance *out,
			 struct err *e)
{
	const uint8_t *p = sub->body.base;
	int rc = sub_check(sub, HPROF_INSTANCE_DUMP, id_size, e);

	if (rc)
		return rc;
	out->id = ld_uNbe(p, id_size);
	out->trace_serial = ld_u32be(p + id_size);
	out->class_id = ld_uNbe(p + id_size + 4, id_size);
	return cur_sub(&sub->body, 2 * (size_t)id_size + 8, sub->body.len - (2 * (size_t)id_size + 8),
		       &out->values, e);
}

int hprof_obj_array_parse(const struct hprof_sub *sub, unsigned id_size, struct hprof_obj_array *out,
			  struct err *e)
{
	const uint8_t *p = sub->body.base;
	int rc = sub_check(sub, HPROF_OBJ_ARRAY_DUMP, id_size, e);

	if (rc)
		return rc;
	out->id = ld_uNbe(p, id_size);
	out->trace_serial = ld_u32be(p + id_size);
	out->count = ld_u32be(p + id_size + 4);
	out->class_id = ld_uNbe(p + id_size + 8, id_size);
	return cur_sub(&sub->body, 2 * (size_t)id_size + 8, sub->body.len - (2 * (size_t)id_size + 8),
		       &out->elements, e);
}

int hprof_prim_array_parse(const struct hprof_sub *sub, unsigned id_size, struct hprof_prim_array *out,
			   struct err *e)
{
	const uint8_t *p = sub->body.base;
	bool nodata = sub->tag == HPROF_PRIM_ARRAY_NODATA;
	int rc = sub_check(sub, nodata ? HPROF_PRIM_ARRAY_NODATA : HPROF_PRIM_ARRAY_DUMP, id_size, e);

	if (rc)
		return rc;
	out->id = ld_uNbe(p, id_size);
	out->trace_serial = ld_u32be(p + id_size);
	out->count = ld_u32be(p + id_size + 4);
	out->type = p[id_size + 8];
	out->nodata = nodata;
	return cur_sub(&sub->body, id_size + 9u, sub->body.len - (id_size + 9u), &out->data, e);
}
