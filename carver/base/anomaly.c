/* anomaly.c - the anomaly sink (see anomaly.h). */
#include "carver/base/anomaly.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "carver/base/xalloc.h"

static const char *const anomaly_names[ANOM_CODE_COUNT] = {
	[ANOM_IMAGE_HEADER] = "image_header",
	[ANOM_DEX] = "dex",
	[ANOM_CLASS] = "class",
	[ANOM_CLASS_NAME] = "class_name",
	[ANOM_FIELDS] = "fields",
	[ANOM_DEX_CACHE] = "dex_cache",
	[ANOM_OAT_FILE] = "oat_file",
	[ANOM_OAT_CLASS] = "oat_class",
	[ANOM_OAT_METHOD] = "oat_method",
	[ANOM_PAGE_MAP] = "page_map",
	[ANOM_RUN_HEADER] = "run_header",
	[ANOM_FREE_LIST] = "free_list",
	[ANOM_SLOT] = "slot",
	[ANOM_REGION] = "region",
	[ANOM_CHUNK] = "chunk",
	[ANOM_LOS] = "los",
	[ANOM_CONTIGUOUS] = "contiguous",
	[ANOM_EVIDENCE] = "evidence",
	[ANOM_CANDIDATE] = "candidate",
	[ANOM_OBJ_CLASS] = "object_class",
	[ANOM_OBJ_SIZE] = "object_size",
	[ANOM_OBJ_LENGTH] = "object_length",
	[ANOM_OBJ_REFERENCE] = "object_reference",
	[ANOM_OBJ_UNMAPPED] = "object_unmapped",
	[ANOM_STATICS] = "statics",
	[ANOM_ROOTS] = "roots",
	[ANOM_CAPTURE] = "capture",
};

void anomaly_init(struct anomaly_sink *s, size_t keep)
{
	memset(s, 0, sizeof(*s));
	s->keep = keep ? keep : ANOMALY_KEEP_DEFAULT;
}

void anomaly_release(struct anomaly_sink *s)
{
	xfree(s->v);
	s->v = NULL;
	s->count = s->cap = 0;
}

/* A slot for the next record, NULL when it is only to be counted. */
static struct anomaly *anomaly_slot(struct anomaly_sink *s)
{
	/* after a failed allocation nothing more is kept: the kept records stay a prefix */
	if (s->count == s->keep || s->nomem)
		return NULL;
	if (s->count == s->cap) {
		/* doubling from 16, never past keep: memory stays bounded by keep records */
		size_t cap = s->cap ? s->cap * 2 : 16;
		struct anomaly *v;
		if (cap > s->keep || cap < s->cap)
			cap = s->keep;
		v = xreallocarray(s->v, cap, sizeof(*v));
		if (!v) {
			s->nomem = true;
			return NULL;
		}
		s->v = v;
		s->cap = cap;
	}
	return &s->v[s->count++];
}

static void anomaly_copy(char *dst, size_t size, const char *src)
{
	size_t n = src ? strnlen(src, size - 1) : 0;
	if (n)
		memcpy(dst, src, n);
	dst[n] = '\0';
}

static struct anomaly *anomaly_begin(struct anomaly_sink *s, enum anomaly_code code, enum err_code cause,
				     uint64_t va, const char *space)
{
	struct anomaly *a;

	s->total++;
	if ((unsigned)code < ANOM_CODE_COUNT)
		s->per_code[code]++;
	if (!(a = anomaly_slot(s))) {
		s->unstored++;
		return NULL;
	}
	memset(a, 0, sizeof(*a));   /* no stale bytes after the strings: records compare and dump whole */
	a->code = code;
	a->cause = cause;
	a->va = va;
	anomaly_copy(a->space, sizeof(a->space), space);
	return a;
}

void anomaly_add(struct anomaly_sink *s, enum anomaly_code code, enum err_code cause, uint64_t va,
		 const char *space, const char *fmt, ...)
{
	struct anomaly *a = anomaly_begin(s, code, cause, va, space);
	va_list ap;

	if (!a)
		return;
	va_start(ap, fmt);
	vsnprintf(a->msg, sizeof(a->msg), fmt, ap);
	va_end(ap);
}

void anomaly_add_err(struct anomaly_sink *s, enum anomaly_code code, const char *space, const struct err *why)
{
	struct anomaly *a = anomaly_begin(s, code, why->code, why->va, space);

	if (a)
		anomaly_copy(a->msg, sizeof(a->msg), why->msg);
}

int anomaly_status(const struct anomaly_sink *s, struct err *e)
{
	if (!s->nomem)
		return 0;
	return ERR_SET(e, ERR_NOMEM, ERR_NO_VA, "out of memory recording anomalies (%llu recorded, %zu kept)",
		       (unsigned long long)s->total, s->count);
}

const char *anomaly_code_name(enum anomaly_code code)
{
	if ((unsigned)code < ANOM_CODE_COUNT && anomaly_names[code])
		return anomaly_names[code];
	return "unknown";
}
