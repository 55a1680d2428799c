/* runtime_link.c - field linking: the instance field offsets ART's class linker gives
 * (runtime_link_fields). */
#include "art/runtime/runtime.h"

#include <stdlib.h>
#include <string.h>

#include "art/runtime/runtime_int.h"
#include "carver/base/xalloc.h"

/* ---- field linking (runtime/class_linker.cc LinkFields) ----
 *
 * Three rules, one per art_field_link value of the layout row, read from LinkFields and
 * LinkFieldsComparator at each release:
 *   android-5.0.0_r5 (73b774ed): references, then long/double, then every other primitive,
 *     each group sorted by field name (strcmp); references and every non-64-bit primitive
 *     take 4 bytes (a byte or boolean field too); if the offset after the references is not
 *     8-aligned, the first non-64-bit primitive of the sorted list fills that word, else it
 *     is padding.
 *   android-5.1.0_r1 (170ecf55; LinkFields unchanged on the 5.1.1 branch): as 5.0, but sorted
 *     by size (larger first), then Primitive::Type, then dex field index.
 *   android-6.0.1_r22 (8d5c5f43) and later (@R11 identical): same order as 5.1; references
 *     are 4-aligned, each primitive takes its own size at its own alignment
 *     (ShuffleForward<8,4,2,1>), and alignment padding becomes gaps (AddFieldGap) that the
 *     later, smaller fields fill, largest gap first.
 *   12 and later (platform/art c7993d55b2 "Rewrite ClassLinker::LinkFields()", 2021-01-27,
 *     oat 190; LinkFieldsHelper @R12S..R16): same order and alignment, but at most one gap of
 *     each size 1, 2 and 4 is kept (FieldGaps), only one 4-byte field may take the 4-byte
 *     gap, and a 2- or 1-byte field takes the smallest gap that holds it: "prefer small gaps
 *     over big ones".  Two booleans after a 4-byte gap at 28 lie at 28 and 29 (6.0-11: 28
 *     and 30, the 2-byte rest of the gap being larger than the 1-byte one).
 * The generator in tests/synth follows the same source; test_synth_classes.sh compares the
 * two on every family.  In both 5.x rules equal sort keys cannot happen within one class
 * except for same-named fields of different types (obfuscated bytecode): the dex field
 * index (name, then type) breaks the tie. */

struct gap { uint32_t start, size; };
struct gaps { struct gap v[32]; unsigned n; };

static void gap_push(struct gaps *g, uint32_t start, uint32_t size)
{
	if (g->n < sizeof(g->v) / sizeof(g->v[0]))
		g->v[g->n++] = (struct gap){ start, size };
}

/* AddFieldGap: split [start, end) into the largest aligned 4/2/1-byte pieces. */
static void gap_add(struct gaps *g, uint32_t start, uint32_t end)
{
	while (start < end) {
		uint32_t left = end - start, piece = left >= 4 && start % 4 == 0 ? 4 : left >= 2 && start % 2 == 0 ? 2 : 1;
		gap_push(g, start, piece);
		start += piece;
	}
}

/* The priority queue's top: the largest gap, the lowest offset among equals. */
static int gap_top(const struct gaps *g)
{
	int best = -1;
	for (unsigned i = 0; i < g->n; i++)
		if (best < 0 || g->v[i].size > g->v[best].size ||
		    (g->v[i].size == g->v[best].size && g->v[i].start < g->v[best].start))
			best = (int)i;
	return best;
}

/* LinkFieldsComparator groups, 5.1+: references, then J D, I F, C S, Z B (larger first;
 * within a size by Primitive::Type order).  5.0: references, then J and D together, then
 * all the others together. */
static unsigned link_group(enum art_field_link rule, uint8_t t)
{
	static const char order[] = "JDIFCSZB";
	const char *p = t ? strchr(order, t) : NULL;
	if (!p)
		return 0; /* 'L', '[' (and anything else: a reference-sized slot) */
	if (rule == ART_LINK_5_0)
		return p - order < 2 ? 1 : 2;
	return 1 + (unsigned)(p - order);
}

struct link_item { unsigned group; uint32_t dex_idx, i; };

static int by_link_order(const void *a, const void *b)
{
	const struct link_item *x = a, *y = b;
	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	if (x->dex_idx != y->dex_idx)
		return x->dex_idx < y->dex_idx ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* 5.x: it[k..n) are the primitives in sorted order; 4-byte slots, one of them moved
 * forward to 8-align the 64-bit fields.  Returns the end offset. */
static uint32_t link_slots_5x(const struct link_item *it, uint32_t k, uint32_t n, const uint8_t *type0,
			      uint32_t off, uint32_t *offsets)
{
	uint32_t filler = n;
	if (k < n && off % 8) {
		for (uint32_t j = k; j < n && filler == n; j++)
			if (mirror_field_size(type0[it[j].i]) != 8)
				filler = j;
		if (filler < n)
			offsets[it[filler].i] = off;
		off += 4;
	}
	for (; k < n; k++) {
		if (k == filler)
			continue;
		offsets[it[k].i] = off;
		off += mirror_field_size(type0[it[k].i]) == 8 ? 8 : 4;
	}
	return off;
}

/* 6.0+: ShuffleForward<8>, <4>, <2>, <1> over it[k..n).  Returns the end offset. */
static uint32_t link_shuffle(const struct link_item *it, uint32_t k, uint32_t n, const uint8_t *type0,
			     uint32_t off, struct gaps *g, uint32_t *offsets)
{
	for (uint32_t width = 8; width >= 1; width /= 2) {
		for (; k < n && mirror_field_size(type0[it[k].i]) >= width; k++) {
			if (off % width) {
				uint32_t up = (off + width - 1) & ~(width - 1);
				gap_add(g, off, up);
				off = up;
			}
			int t = gap_top(g);
			if (t >= 0 && g->v[t].size >= width) {
				struct gap gp = g->v[t];
				g->v[t] = g->v[--g->n];
				offsets[it[k].i] = gp.start;
				if (gp.size > width)
					gap_add(g, gp.start + width, gp.start + gp.size);
			} else {
				offsets[it[k].i] = off;
				off += width;
			}
		}
	}
	return off;
}

/* 12+: FieldGaps keeps one gap of each size 1, 2, 4 (at[0..2]), each aligned to its size. */
struct size_gaps { uint32_t at[3]; };
#define NO_GAP UINT32_MAX

/* AddGaps: [start, end) with end aligned to the next field's size, cut at start's low bits. */
static void size_gaps_add(struct size_gaps *g, uint32_t start, uint32_t end)
{
	for (unsigned k = 0; k < 3 && start < end; k++)
		if (start & (1u << k)) {
			g->at[k] = start;
			start += 1u << k;
		}
}

/* HasGap<width>: a gap of width or more (only the 4-byte gap for a 4-byte field). */
static int size_gaps_find(const struct size_gaps *g, uint32_t width)
{
	for (unsigned k = width == 4 ? 2 : width == 2 ? 1 : 0; k < 3; k++)
		if (g->at[k] != NO_GAP)
			return (int)k;
	return -1;
}

/* ReleaseGap<width>: the smallest gap that holds it; the rest of a larger gap is kept. */
static uint32_t size_gaps_take(struct size_gaps *g, unsigned k, uint32_t width)
{
	uint32_t at = g->at[k];
	g->at[k] = NO_GAP;
	size_gaps_add(g, at + width, at + (1u << k));
	return at;
}

static uint32_t size_gaps_align(struct size_gaps *g, uint32_t off, uint32_t width)
{
	uint32_t up = (off + width - 1) & ~(width - 1);
	if (up != off)
		size_gaps_add(g, off, up);
	return up;
}

/* 12+: it[k..n) are the primitives in sorted order, off is past the references.  8-byte
 * fields never take a gap, the first 4-byte field takes the 4-byte gap if there is one, the
 * 2- and 1-byte fields fill gaps while any holds them.  Returns the end offset. */
static uint32_t link_size_gaps(const struct link_item *it, uint32_t k, uint32_t n, const uint8_t *type0,
			       uint32_t off, struct size_gaps *g, uint32_t *offsets)
{
	for (uint32_t width = 8; width >= 1; width /= 2) {
		if (k == n || mirror_field_size(type0[it[k].i]) != width)
			continue;
		if (width > 1)
			off = size_gaps_align(g, off, width);
		for (int first = 1; k < n && mirror_field_size(type0[it[k].i]) == width; k++, first = 0) {
			int gk = width == 8 || (width == 4 && !first) ? -1 : size_gaps_find(g, width);
			if (gk >= 0) {
				offsets[it[k].i] = size_gaps_take(g, (unsigned)gk, width);
			} else {
				offsets[it[k].i] = off;
				off += width;
			}
		}
	}
	return off;
}

int runtime_link_fields(enum art_field_link rule, const uint8_t *type0, const uint32_t *dex_idx, uint32_t n,
			uint32_t start, uint32_t *offsets, uint32_t *size, uint32_t *refs, struct err *e)
{
	struct link_item *it = xcalloc(n ? n : 1, sizeof(*it));
	struct gaps g = { .n = 0 };
	uint32_t off = start, k = 0;

	if (!it)
		return rt_nomem(e);
	for (uint32_t i = 0; i < n; i++)
		it[i] = (struct link_item){ link_group(rule, type0[i]), dex_idx[i], i };
	qsort(it, n, sizeof(*it), by_link_order);
	*refs = 0;
	struct size_gaps sg = { { NO_GAP, NO_GAP, NO_GAP } };
	for (; k < n && it[k].group == 0; k++) {
		if (rule == ART_LINK_GAPS && off % 4) {
			off = size_gaps_align(&sg, off, 4);
		} else if (rule == ART_LINK_SHUFFLE && off % 4) {
			gap_add(&g, off, (off + 3) & ~3u);
			off = (off + 3) & ~3u;
		}
		offsets[it[k].i] = off;
		off += 4;
		++*refs;
	}
	if (rule == ART_LINK_GAPS)
		*size = link_size_gaps(it, k, n, type0, off, &sg, offsets);
	else if (rule == ART_LINK_SHUFFLE)
		*size = link_shuffle(it, k, n, type0, off, &g, offsets);
	else
		*size = link_slots_5x(it, k, n, type0, off, offsets);
	xfree(it);
	return 0;
}
