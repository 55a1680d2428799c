/* native_rep.c - see native_rep.h.  Damaged bytes are printed the way malloc_debug logs
 * them (bionic libc/malloc_debug/GuardData.cpp, FreeTrackData.cpp @ android-7.0.0_r1:
 * "allocation[%d] = 0x%02x (expected 0x%02x)", the index counted from the pointer). */
#include "carver/cli/native_rep.h"

#include <stdio.h>
#include <string.h>

#include "carver/base/wbuf.h"
#include "carver/native/mdebug_totals.h"

void native_frame_text(const struct symz_frame *f, char *buf, size_t n)
{
	if (!f->placed)
		snprintf(buf, n, "0x%llx (in no mapped file)", (unsigned long long)f->pc);
	else if (f->symbol)
		snprintf(buf, n, "%s+0x%llx (%s+0x%llx)", f->lib, (unsigned long long)f->lib_offset, f->symbol,
			 (unsigned long long)f->symbol_offset);
	else
		snprintf(buf, n, "%s+0x%llx", f->lib, (unsigned long long)f->lib_offset);
}

static void native_first_bytes(struct rep *r, const struct mdebug_alloc *a)
{
	char hex[MDEBUG_FIRST_BYTES * 2 + 1], text[MDEBUG_FIRST_BYTES + 1];

	hex_encode(hex, a->first, a->first_len);
	hex[2 * a->first_len] = '\0';
	for (uint32_t i = 0; i < a->first_len; i++)
		text[i] = a->first[i] >= 0x20 && a->first[i] < 0x7f ? (char)a->first[i] : '.';
	text[a->first_len] = '\0';
	rep_s(r, "first_bytes_hex", hex);
	rep_s(r, "first_bytes_text", text);
}

static void native_damage(struct rep *r, const struct mdebug_result *res, const struct mdebug_alloc *a)
{
	if (!a->damage_count)
		return;
	if (r->json) {
		rep_open_lines(r, "damage", true);
		for (size_t i = 0; i < a->damage_count; i++) {
			const struct mdebug_damage *d = &res->damage[a->damage_first + i];
			char b[8];
			rep_open(r, NULL, false);
			rep_s(r, "kind", mdebug_damage_name(d->kind));
			rep_i(r, "offset", d->offset);
			snprintf(b, sizeof(b), "0x%02x", d->found);
			rep_s(r, "found", b);
			snprintf(b, sizeof(b), "0x%02x", d->expected);
			rep_s(r, "expected", b);
			rep_close(r);
		}
		rep_close(r);
		return;
	}
	for (size_t i = 0; i < a->damage_count; i++) {
		const struct mdebug_damage *d = &res->damage[a->damage_first + i];
		rep_line(r, "%s: allocation[%lld] = 0x%02x (expected 0x%02x)", mdebug_damage_name(d->kind),
			 (long long)d->offset, d->found, d->expected);
	}
}

static int native_frames(struct rep *r, const struct mdebug_result *res, const struct mdebug_alloc *a,
			 struct symz *sz, uint64_t *named, struct err *e)
{
	if (!a->frame_count)
		return 0;
	rep_open_lines(r, "backtrace", true);
	for (size_t i = 0; i < a->frame_count; i++) {
		struct symz_frame f;
		char line[768];
		int rc = symz_lookup(sz, res->frames[a->frame_first + i], &f, e);
		if (rc)
			return rc;
		*named += f.symbol != NULL;
		if (!r->json) {
			native_frame_text(&f, line, sizeof(line));
			rep_line(r, "#%02zu pc 0x%llx %s%s%s", i, (unsigned long long)f.pc, line, f.problem ? " -- " : "",
				 f.problem ? f.problem : "");
			continue;
		}
		rep_open(r, NULL, false);
		rep_hex(r, "pc", f.pc);
		rep_s(r, "lib", f.lib);
		if (f.placed)
			rep_hex(r, "lib_offset", f.lib_offset);
		rep_s(r, "symbol", f.symbol);
		if (f.symbol)
			rep_hex(r, "symbol_offset", f.symbol_offset);
		if (f.problem)
			rep_s(r, "problem", f.problem);
		rep_close(r);
	}
	rep_close(r);
	return 0;
}

static int native_alloc(struct rep *r, const struct mdebug_result *res, const struct mdebug_alloc *a,
			struct symz *sz, uint64_t *named, struct err *e)
{
	char tag[16];

	rep_open(r, NULL, false);
	rep_hex(r, "pointer", a->pointer);
	rep_s(r, "state", mdebug_state_name(a->state));
	rep_u(r, "size", a->size);
	rep_u(r, "usable_size", a->usable_size);
	rep_hex(r, "header", a->header);
	rep_hex(r, "orig_pointer", a->orig_pointer);
	snprintf(tag, sizeof(tag), "0x%08x", a->tag);
	rep_s(r, "tag", tag);
	rep_bool(r, "zygote", a->zygote);
	rep_bool(r, "cut", a->cut);
	rep_s(r, "region", a->region);
	rep_u(r, "front_guard_damaged", a->front_damaged);
	rep_u(r, "rear_guard_damaged", a->rear_damaged);
	rep_u(r, "use_after_free_bytes", a->uaf_bytes);
	rep_u(r, "fill_alloc_bytes", a->fill_alloc_left);
	rep_u(r, "fill_free_bytes", a->fill_free_left);
	native_first_bytes(r, a);
	native_damage(r, res, a);
	if (native_frames(r, res, a, sz, named, e))
		return err_rc(e);
	rep_close(r);
	return 0;
}

/* The live / freed figures of one total: members in JSON, one line in text after `label` */
static void native_total(struct rep *r, const char *label, const struct mdebug_total *t)
{
	if (!r->json) {
		rep_line(r, "%s live %llu (%llu bytes, %llu usable) freed %llu (%llu bytes, %llu usable) tag-corrupted %llu",
			 label, (unsigned long long)t->live, (unsigned long long)t->live_bytes,
			 (unsigned long long)t->live_usable, (unsigned long long)t->freed,
			 (unsigned long long)t->freed_bytes, (unsigned long long)t->freed_usable,
			 (unsigned long long)t->corrupt);
		return;
	}
	rep_u(r, "live", t->live);
	rep_u(r, "live_bytes", t->live_bytes);
	rep_u(r, "live_usable_bytes", t->live_usable);
	rep_u(r, "freed", t->freed);
	rep_u(r, "freed_bytes", t->freed_bytes);
	rep_u(r, "freed_usable_bytes", t->freed_usable);
	rep_u(r, "tag_corrupted", t->corrupt);
}

static void native_by_size(struct rep *r, const struct mdebug_totals *t)
{
	char label[48];
	rep_open_lines(r, "by_size_class", true);
	for (size_t i = 0; i < t->class_count; i++) {
		const struct mdebug_class_total *c = &t->classes[i];
		if (!r->json) {
			snprintf(label, sizeof(label), "usable_size %llu:", (unsigned long long)c->usable_size);
			native_total(r, label, &c->t);
			continue;
		}
		rep_open(r, NULL, false);
		rep_u(r, "usable_size", c->usable_size);
		native_total(r, NULL, &c->t);
		rep_close(r);
	}
	rep_close(r);
}

/* Each backtrace's totals with its innermost frame named (the full list: the allocation at
 * first_pointer in "list") */
static int native_by_backtrace(struct rep *r, const struct mdebug_result *res, const struct mdebug_totals *t,
			       struct symz *sz, struct err *e)
{
	rep_open_lines(r, "by_backtrace", true);
	for (size_t i = 0; i < t->backtrace_count; i++) {
		const struct mdebug_bt_total *b = &t->backtraces[i];
		const struct mdebug_alloc *a = &res->allocs[b->first];
		char frame0[768] = "(no backtrace)", label[1024];
		struct symz_frame f;
		if (b->frame_count) {
			if (symz_lookup(sz, res->frames[a->frame_first], &f, e))
				return err_rc(e);
			native_frame_text(&f, frame0, sizeof(frame0));
		}
		if (!r->json) {
			snprintf(label, sizeof(label), "%zu frames from %s, first 0x%llx:", b->frame_count, frame0,
				 (unsigned long long)a->pointer);
			native_total(r, label, &b->t);
			continue;
		}
		rep_open(r, NULL, false);
		rep_u(r, "frames", b->frame_count);
		rep_s(r, "frame0", b->frame_count ? frame0 : NULL);
		rep_hex(r, "first_pointer", a->pointer);
		native_total(r, NULL, &b->t);
		rep_close(r);
	}
	rep_close(r);
	return 0;
}

/* The totals an investigator compares with the app's own accounting (mdebug_totals.h) */
static int native_totals(struct rep *r, const struct mdebug_result *res, struct symz *sz, struct err *e)
{
	struct mdebug_totals t;
	int rc = mdebug_totals_make(res, &t, e);
	if (rc)
		return rc;
	rep_open_lines(r, "totals", false);
	if (r->json)
		native_total(r, NULL, &t.all);
	else
		native_total(r, "all:", &t.all);
	native_by_size(r, &t);
	rc = native_by_backtrace(r, res, &t, sz, e);
	rep_close(r);
	mdebug_totals_release(&t);
	return rc;
}

int native_report(struct rep *r, const struct image *img, const struct mdebug_result *res, struct symz *sz,
		  struct err *e)
{
	char opts[160];
	uint64_t named = 0, damaged = 0;
	int rc;

	for (size_t i = 0; i < res->count; i++)
		damaged += res->allocs[i].front_damaged || res->allocs[i].rear_damaged || res->allocs[i].uaf_bytes;
	mdebug_options_text(&res->options, opts, sizeof(opts));
	if (r->json)   /* text: the keys at the left margin, as carve's summary */
		rep_open_lines(r, NULL, false);
	rep_s(r, "image", img->path);
	rep_u(r, "bits", res->bits);
	rep_s(r, "options", opts);
	rep_s(r, "options_from", res->options_given ? "--options" : "inferred");
	rep_s(r, "regions_by", res->names_used ? "name" : "writable anonymous");
	rep_u(r, "regions_scanned", res->regions_scanned);
	rep_u(r, "bytes_scanned", res->bytes_scanned);
	rep_u(r, "allocations", res->count);
	rep_u(r, "live", res->live);
	rep_u(r, "freed", res->freed);
	rep_u(r, "tag_corrupted", res->corrupt);
	rep_u(r, "damaged", damaged);
	if ((rc = native_totals(r, res, sz, e)))
		return rc;
	rep_open_lines(r, "list", true);
	for (size_t i = 0; i < res->count; i++)
		if ((rc = native_alloc(r, res, &res->allocs[i], sz, &named, e)))
			return rc;
	rep_close(r);
	rep_u(r, "frames_named", named);
	if (r->json) {
		rep_close(r);
		fputc('\n', r->fp);
	}
	return 0;
}
