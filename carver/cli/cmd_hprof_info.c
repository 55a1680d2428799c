/* cmd_hprof_info.c - `artcarve hprof-info FILE [--json]`: header, record and sub-record
 * counts, roots by kind and Android heaps of an HPROF file.  Streams the file once, twice
 * when HEAP_DUMP_INFO names heaps (the second pass only resolves the names), checking every
 * record's and sub-record's extent and decoding class dumps, roots and heap infos fully, so
 * it doubles as a validator; memory is constant. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "carver/cli/cli.h"
#include "carver/base/mapfile.h"
#include "carver/base/rep.h"
#include "carver/base/xalloc.h"
#include "output/hprof/hprof_reader.h"

#define INFO_MAX_HEAPS 16       /* distinct (heap id, name id) pairs tracked; more go to "other" */

struct info_heap {
	uint32_t heap_id;
	uint64_t name_id;
	bool named;             /* came from a HEAP_DUMP_INFO (else: the default heap) */
	const uint8_t *name;    /* resolved in pass 2 (borrowed from the map) */
	size_t name_len;
	uint64_t infos, objects, classes, instances, obj_arrays, prim_arrays;
};

struct info {
	uint64_t records[256], subs[256];
	uint64_t record_count, sub_count;
	uint64_t prim_elements_bytes, instance_bytes;
	struct info_heap heaps[INFO_MAX_HEAPS + 1];    /* [0] = default heap, last = other */
	unsigned heap_count;
};

static struct info_heap *info_heap_for(struct info *in, const struct hprof_heap_info *hi)
{
	for (unsigned i = 1; i < in->heap_count; i++)
		if (in->heaps[i].heap_id == hi->heap_id && in->heaps[i].name_id == hi->name_id)
			return &in->heaps[i];
	if (in->heap_count == INFO_MAX_HEAPS) {
		struct info_heap *other = &in->heaps[INFO_MAX_HEAPS];
		other->named = true;
		other->heap_id = UINT32_MAX;
		return other;
	}
	in->heaps[in->heap_count].heap_id = hi->heap_id;
	in->heaps[in->heap_count].name_id = hi->name_id;
	in->heaps[in->heap_count].named = true;
	return &in->heaps[in->heap_count++];
}

/* Decodes a CLASS_DUMP completely (fixed part and every entry). */
static int info_class(const struct hprof_sub *sub, unsigned id_size, struct err *e)
{
	struct hprof_class_dump cd;
	struct hprof_class_entry ent;
	int rc = hprof_class_dump_parse(sub, id_size, &cd, e);

	while (rc == 0 && (rc = hprof_class_next_constant(&cd, &ent, e)) == 1)
		rc = 0;
	while (rc == 0 && (rc = hprof_class_next_static(&cd, &ent, e)) == 1)
		rc = 0;
	while (rc == 0 && (rc = hprof_class_next_field(&cd, &ent, e)) == 1)
		rc = 0;
	return rc;
}

/* Counts one sub-record; *heap is the current heap (HEAP_DUMP_INFO moves it).  The object
 * dumps' extents were checked by hprof_next_sub, which is all their decoders would check
 * again: their payload sizes come from the body length. */
static int info_sub(struct info *in, const struct hprof_sub *sub, unsigned id_size,
		    struct info_heap **heap, struct err *e)
{
	union { struct hprof_root root; struct hprof_heap_info hi; } u;
	struct info_heap *h = *heap;
	int rc = 0;

	in->subs[sub->tag]++;
	in->sub_count++;
	switch (sub->tag) {
	case HPROF_HEAP_DUMP_INFO:
		if ((rc = hprof_heap_info_parse(sub, id_size, &u.hi, e)))
			return rc;
		*heap = info_heap_for(in, &u.hi);
		(*heap)->infos++;
		return 0;
	case HPROF_CLASS_DUMP:
		rc = info_class(sub, id_size, e);
		h->classes++;
		break;
	case HPROF_INSTANCE_DUMP:
		in->instance_bytes += sub->body.len - (2 * (size_t)id_size + 8);
		h->instances++;
		break;
	case HPROF_OBJ_ARRAY_DUMP:
		h->obj_arrays++;
		break;
	case HPROF_PRIM_ARRAY_DUMP: case HPROF_PRIM_ARRAY_NODATA:
		in->prim_elements_bytes += sub->body.len - ((size_t)id_size + 9);
		h->prim_arrays++;
		break;
	default:
		return hprof_root_parse(sub, id_size, &u.root, e);
	}
	h->objects++;
	return rc;
}

static int info_heap_dump(struct info *in, const struct hprof_record *rec, unsigned id_size, struct err *e)
{
	struct cursor body = rec->body;
	struct info_heap *heap = &in->heaps[0];  /* a new segment starts in the default heap (art
						  * StartNewHeapDumpSegment, dalvik HprofHeap.c) */
	struct hprof_sub sub;
	int rc;

	while ((rc = hprof_next_sub(&body, id_size, &sub, e)) == 1)
		if ((rc = info_sub(in, &sub, id_size, &heap, e)))
			return rc;
	return rc;
}

static int info_scan(struct info *in, struct hprof_reader *r, struct err *e)
{
	struct hprof_record rec;
	int rc;

	in->heap_count = 1;
	while ((rc = hprof_next(r, &rec, e)) == 1) {
		in->records[rec.tag]++;
		in->record_count++;
		if (rec.tag == HPROF_HEAP_DUMP || rec.tag == HPROF_HEAP_DUMP_SEGMENT) {
			if ((rc = info_heap_dump(in, &rec, r->id_size, e)))
				return rc;
		} else if (rec.tag == HPROF_STRING) {
			struct hprof_string s;
			if ((rc = hprof_string_parse(&rec, r->id_size, &s, e)))
				return rc;
		} else if (rec.tag == HPROF_LOAD_CLASS) {
			struct hprof_load_class lc;
			if ((rc = hprof_load_class_parse(&rec, r->id_size, &lc, e)))
				return rc;
		}
	}
	return rc;
}

/* Pass 2: finds the STRING records that name the heaps. */
static int info_resolve_heap_names(struct info *in, struct hprof_reader *r, struct err *e)
{
	struct hprof_record rec;
	struct hprof_string s;
	int rc;

	r->c.pos = r->header_len;
	r->dropped = 0;
	while ((rc = hprof_next(r, &rec, e)) == 1) {
		if (rec.tag != HPROF_STRING || hprof_string_parse(&rec, r->id_size, &s, e))
			continue;
		for (unsigned i = 1; i < in->heap_count; i++)
			if (in->heaps[i].name_id == s.id && !in->heaps[i].name) {
				in->heaps[i].name = s.text;
				in->heaps[i].name_len = s.len;
			}
	}
	return rc;
}

static void info_name(char *buf, size_t n, const char *name, unsigned tag)
{
	if (name)
		snprintf(buf, n, "%s", name);
	else
		snprintf(buf, n, "0x%02x", tag);
}

static void info_heap_label(const struct info_heap *h, unsigned idx, char *buf, size_t n)
{
	if (idx == 0)
		snprintf(buf, n, "default");
	else if (h->heap_id == UINT32_MAX && !h->name)
		snprintf(buf, n, "other");
	else if (h->name) {
		size_t len = h->name_len < n - 1 ? h->name_len : n - 1;
		for (size_t i = 0; i < len; i++)       /* the name comes from the file: printable only */
			buf[i] = h->name[i] >= 0x20 && h->name[i] < 0x7f ? (char)h->name[i] : '?';
		buf[len] = '\0';
	}
	else
		snprintf(buf, n, "heap-0x%x", h->heap_id);
}

static uint64_t info_roots(const struct info *in)
{
	uint64_t n = 0;
	for (unsigned t = 0; t < 256; t++)
		if (hprof_sub_is_root(t))
			n += in->subs[t];
	return n;
}

static bool info_heap_shown(const struct info *in, unsigned i)
{
	return i < in->heap_count || (i == INFO_MAX_HEAPS && in->heaps[i].named);
}

/* "  NAME   count" rows under a count line, for the tags with a count. */
static void info_text_rows(const uint64_t *counts, const char *(*namer)(unsigned), bool roots_only)
{
	char name[80];

	for (unsigned t = 0; t < 256; t++)
		if (counts[t] && (!roots_only || hprof_sub_is_root(t))) {
			info_name(name, sizeof(name), namer(t), t);
			printf("  %-24s %" PRIu64 "\n", name, counts[t]);
		}
}

static void info_print_text(const struct info *in, const struct hprof_reader *hr, const char *path)
{
	struct rep rr, *r = &rr;
	char name[80];

	rep_init(r, stdout, false);
	rep_s(r, "file", path);
	rep_u(r, "size", hr->c.len);
	rep_s(r, "version", hr->version);
	rep_u(r, "id size", hr->id_size);
	rep_u(r, "timestamp", hr->timestamp);
	rep_u(r, "records", in->record_count);
	info_text_rows(in->records, hprof_tag_name, false);
	rep_u(r, "heap sub-records", in->sub_count);
	info_text_rows(in->subs, hprof_sub_name, false);
	rep_u(r, "strings", in->records[HPROF_STRING]);
	rep_u(r, "loaded classes", in->records[HPROF_LOAD_CLASS]);
	rep_u(r, "segments", in->records[HPROF_HEAP_DUMP_SEGMENT]);
	rep_u(r, "heap dumps", in->records[HPROF_HEAP_DUMP]);
	rep_u(r, "classes", in->subs[HPROF_CLASS_DUMP]);
	rep_u(r, "instances", in->subs[HPROF_INSTANCE_DUMP]);
	rep_u(r, "object arrays", in->subs[HPROF_OBJ_ARRAY_DUMP]);
	rep_u(r, "primitive arrays", in->subs[HPROF_PRIM_ARRAY_DUMP] + in->subs[HPROF_PRIM_ARRAY_NODATA]);
	rep_u(r, "roots", info_roots(in));
	info_text_rows(in->subs, hprof_sub_name, true);
	rep_open(r, "heaps", false);
	for (unsigned i = 0; i <= INFO_MAX_HEAPS; i++) {
		const struct info_heap *h = &in->heaps[i];
		if (!info_heap_shown(in, i) || (i == 0 && h->objects == 0))
			continue;
		info_heap_label(h, i, name, sizeof(name));
		rep_line(r, "%-8s id 0x%02x: %" PRIu64 " objects (%" PRIu64 " classes, %" PRIu64 " instances, %" PRIu64
			 " object arrays, %" PRIu64 " primitive arrays), %" PRIu64 " HEAP_DUMP_INFO",
			 name, h->heap_id, h->objects, h->classes, h->instances, h->obj_arrays, h->prim_arrays, h->infos);
	}
	rep_close(r);
}

/* {"TAG": count, ...} for the tags with a count (only the root tags when roots_only). */
static void info_json_map(struct rep *r, const char *key, const uint64_t *counts, const char *(*namer)(unsigned),
			  bool roots_only)
{
	char name[16];

	rep_open(r, key, false);
	for (unsigned t = 0; t < 256; t++) {
		const char *nm;
		if (!counts[t] || (roots_only && !hprof_sub_is_root(t)))
			continue;
		nm = namer(t);
		if (!nm) {
			snprintf(name, sizeof(name), "0x%02x", t);
			nm = name;
		}
		rep_u(r, nm, counts[t]);
	}
	rep_close(r);
}

static void info_print_json(const struct info *in, const struct hprof_reader *hr, const char *path)
{
	struct rep rr, *r = &rr;
	char name[80];

	rep_init(r, stdout, true);
	rep_open(r, NULL, false);
	rep_s(r, "file", path);
	rep_u(r, "size", hr->c.len);
	rep_s(r, "version", hr->version);
	rep_u(r, "id_size", hr->id_size);
	rep_u(r, "timestamp", hr->timestamp);
	rep_u(r, "record_count", in->record_count);
	info_json_map(r, "records", in->records, hprof_tag_name, false);
	rep_u(r, "sub_record_count", in->sub_count);
	info_json_map(r, "sub_records", in->subs, hprof_sub_name, false);
	rep_u(r, "strings", in->records[HPROF_STRING]);
	rep_u(r, "load_classes", in->records[HPROF_LOAD_CLASS]);
	rep_u(r, "segments", in->records[HPROF_HEAP_DUMP_SEGMENT]);
	rep_u(r, "heap_dumps", in->records[HPROF_HEAP_DUMP]);
	rep_u(r, "heap_dump_ends", in->records[HPROF_HEAP_DUMP_END]);
	rep_u(r, "classes", in->subs[HPROF_CLASS_DUMP]);
	rep_u(r, "instances", in->subs[HPROF_INSTANCE_DUMP]);
	rep_u(r, "object_arrays", in->subs[HPROF_OBJ_ARRAY_DUMP]);
	rep_u(r, "primitive_arrays", in->subs[HPROF_PRIM_ARRAY_DUMP] + in->subs[HPROF_PRIM_ARRAY_NODATA]);
	rep_u(r, "primitive_arrays_nodata", in->subs[HPROF_PRIM_ARRAY_NODATA]);
	rep_u(r, "instance_bytes", in->instance_bytes);
	rep_u(r, "primitive_array_bytes", in->prim_elements_bytes);
	rep_u(r, "root_count", info_roots(in));
	info_json_map(r, "roots", in->subs, hprof_sub_name, true);
	rep_open(r, "heaps", true);
	for (unsigned i = 0; i <= INFO_MAX_HEAPS; i++) {
		const struct info_heap *h = &in->heaps[i];
		if (!info_heap_shown(in, i) || (i == 0 && h->objects == 0))
			continue;
		info_heap_label(h, i, name, sizeof(name));
		rep_open(r, NULL, false);
		if (h->name)   /* the name as the file has it (escaped), not the printable label */
			rep_sn(r, "name", (const char *)h->name, h->name_len);
		else
			rep_s(r, "name", name);
		rep_u(r, "id", h->heap_id);
		rep_u(r, "infos", h->infos);
		rep_u(r, "objects", h->objects);
		rep_u(r, "classes", h->classes);
		rep_u(r, "instances", h->instances);
		rep_u(r, "object_arrays", h->obj_arrays);
		rep_u(r, "primitive_arrays", h->prim_arrays);
		rep_close(r);
	}
	rep_close(r);
	rep_close(r);
	putchar('\n');
}

/* --records: one line per top-level record (offset, tag, time, body length), nothing else. */
static int info_list_records(struct hprof_reader *r, struct err *e)
{
	struct hprof_record rec;
	char name[16];
	int rc;

	while ((rc = hprof_next(r, &rec, e)) == 1) {
		const char *nm = hprof_tag_name(rec.tag);
		if (!nm) {
			snprintf(name, sizeof(name), "0x%02x", rec.tag);
			nm = name;
		}
		printf("%llu %s %u %zu\n", (unsigned long long)rec.offset, nm, rec.time, rec.body.len);
	}
	return rc;
}

struct hprof_info_opts {
	bool json, records;
};

static const struct opt hprof_info_opts[] = {
	OPT_ROW_FLAG("--json", NULL, struct hprof_info_opts, json),
	OPT_ROW_FLAG("--records", NULL, struct hprof_info_opts, records),
	OPT_ROW_END,
};
static const char *const hprof_info_pos[] = { "FILE", NULL };
const struct opt_spec cmd_hprof_info_spec = { hprof_info_opts, hprof_info_pos, 1, 1 };

int cmd_hprof_info(int argc, char **argv)
{
	struct hprof_info_opts o = { false, false };
	const char *path;
	struct mapfile m;
	struct hprof_reader r;
	struct info *in;
	size_t npos;
	struct err e;
	int rc;

	if ((rc = cli_parse(argc, argv, &cmd_hprof_info_spec, &o, &npos)) != CLI_GO_ON)
		return rc;
	path = argv[1];
	err_init(&e);
	if ((rc = mapfile_open(&m, path, &e)))
		return cli_report(argv[0], &e);
	in = xcalloc(1, sizeof(*in));
	if (!in) {
		mapfile_close(&m);
		ERR_SET(&e, ERR_NOMEM, ERR_NO_VA, "out of memory");
		return cli_report(argv[0], &e);
	}
	rc = hprof_reader_init(&r, m.data, m.len, path, &e);
	r.drop_behind = true;   /* m is our own read-only mapping */
	if (rc == 0 && o.records) {
		rc = info_list_records(&r, &e);
		if (rc == 0 && fflush(stdout) != 0)
			rc = ERR_SET(&e, ERR_IO, ERR_NO_VA, "cannot write to standard output");
		if (rc)
			err_prefix(&e, "%s", path);
		xfree(in);
		mapfile_close(&m);
		return rc ? cli_report(argv[0], &e) : CLI_OK;
	}
	if (rc == 0)
		rc = info_scan(in, &r, &e);
	if (rc == 0 && in->heap_count > 1)   /* only HEAP_DUMP_INFO names heaps */
		rc = info_resolve_heap_names(in, &r, &e);
	if (rc == 0) {
		if (o.json)
			info_print_json(in, &r, path);
		else
			info_print_text(in, &r, path);
		if (fflush(stdout) != 0)
			rc = ERR_SET(&e, ERR_IO, ERR_NO_VA, "cannot write to standard output");
	} else {
		err_prefix(&e, "%s", path);
	}
	xfree(in);
	mapfile_close(&m);
	return rc ? cli_report(argv[0], &e) : CLI_OK;
}
