/* walk_fixture.h - a hand-made runtime model for walker unit tests: an image of memory
 * regions, a layout row, a pointer size and a list of spaces, with a collector of the
 * candidates and units a walk yields. */
#ifndef ARTCARVE_WALK_FIXTURE_H
#define ARTCARVE_WALK_FIXTURE_H

#include <stdlib.h>
#include <string.h>

#include "art/format/art_layout.h"
#include "art/runtime/runtime.h"
#include "carver/base/anomaly.h"
#include "carver/image/image.h"
#include "rosalloc/walk/walk.h"

#define WF_MAX_SPACES 16
#define WF_MAX_CANDS 8192
#define WF_MAX_UNITS 1024

struct wf {
	struct image img;
	struct art_runtime rt;
	struct art_space spaces[WF_MAX_SPACES];
	struct anomaly_sink sink;
	struct walk_candidate c[WF_MAX_CANDS];
	size_t nc;
	struct rt_class classes[16];       /* sorted by address */
	struct walk_unit u[WF_MAX_UNITS];
	size_t nu;
	struct err e;
};

static inline int wf_emit(void *arg, const struct walk_candidate *c, struct err *e)
{
	struct wf *f = arg;
	(void)e;
	if (f->nc < WF_MAX_CANDS)
		f->c[f->nc++] = *c;
	return 0;
}

static inline int wf_unit(void *arg, const struct walk_unit *u, struct err *e)
{
	struct wf *f = arg;
	(void)e;
	if (f->nu < WF_MAX_UNITS)
		f->u[f->nu++] = *u;
	return 0;
}

static inline void wf_init(struct wf *f, const char *family, unsigned ps)
{
	memset(f, 0, sizeof(*f));
	img_init_empty(&f->img, "walk-fixture");
	f->rt.img = &f->img;
	f->rt.layout = art_layout_by_family(family);
	f->rt.pointer_size = ps;
	f->rt.spaces.v = f->spaces;
	anomaly_init(&f->sink, 0);
	err_init(&f->e);
}

/* Adds a class at addr (call in ascending address order). */
static inline struct rt_class *wf_class(struct wf *f, uint64_t addr)
{
	struct rt_class *k = &f->classes[f->rt.class_count++];
	memset(k, 0, sizeof(*k));
	k->addr = addr;
	k->raw.addr = addr;
	k->super = k->component = k->dex = RT_NONE;
	f->rt.classes = f->classes;
	return k;
}

static inline struct art_space *wf_space(struct wf *f, enum space_kind k, uint64_t begin, uint64_t end, uint64_t limit,
				  const char *name)
{
	struct art_space *s = &f->spaces[f->rt.spaces.count++];
	memset(s, 0, sizeof(*s));
	s->kind = k;
	s->begin = begin;
	s->end = end;
	s->limit = limit;
	s->name = name;
	s->how = "name";
	s->detail = "";
	return s;
}

static inline int wf_walk(struct wf *f, const struct art_space *s)
{
	struct walk_ctx ctx = { .rt = &f->rt, .sink = &f->sink, .emit = wf_emit, .arg = f, .unit = wf_unit,
				.unit_arg = f };
	f->nc = f->nu = 0;
	anomaly_release(&f->sink);
	anomaly_init(&f->sink, 0);
	return walk_space(&ctx, s, &f->e);
}

static inline size_t wf_count(const struct wf *f, enum walk_alloc a)
{
	size_t n = 0;
	for (size_t i = 0; i < f->nc; i++)
		n += f->c[i].alloc == a;
	return n;
}

static inline const struct walk_candidate *wf_at(const struct wf *f, uint64_t addr)
{
	for (size_t i = 0; i < f->nc; i++)
		if (f->c[i].addr == addr)
			return &f->c[i];
	return NULL;
}

static inline void wf_release(struct wf *f)
{
	anomaly_release(&f->sink);
	img_close(&f->img);
}

static inline void wf_w32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static inline void wf_w64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

#endif
