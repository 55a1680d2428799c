/* damage_sweep.c - test tool: one damaged word must never cost the rest of the heap (issue 23).
 *   usage: damage_sweep CORE [MAPS] [--runs-per-field N] [--seed S] [--all-outputs] [--out DIR]
 *                       [--floor FIELD=RECALL]... [--roots N]
 * CORE is an ELF core the tool may write (a copy): it is carved once as it is (the baseline),
 * then, one run at a time, one aligned 4-byte word of it is overwritten in place, carved again
 * in-process (carve_run: every output but those --all-outputs adds is heap.hprof and case.db,
 * written to DIR) and restored.  The words damaged, per field:
 *   Class.<field>   every field of mirror::Class (art/format/art_layout.h klass rows) of the
 *                   class with most instances, of java.lang.String's class and of one more;
 *   instance, array.length, String.count_, Class-word of an instance;
 *   rosalloc.page_map, rosalloc.run_header, rosalloc.free_list (RosAlloc::Run's header and
 *   SlotFreeList, runtime/gc/allocator/rosalloc.h @R11), region.top (the word after a
 *   region's last object: the walk's top), dlmalloc.chunk_head (the size word before an
 *   object of a dlmalloc space), los.table (the free-list LOS allocation info map).
 * Values: 0, 0xffffffff, 0x7fffffff, 0x80000000, a near-miss heap address (an object's
 * address + 4) and random words (fixed seed); each target of a field takes the next value of
 * that list, so N runs per field cover every value.
 * A run passes when carve_run returns 0, every output it wants exists, and it keeps >= 99% of
 * the baseline's objects the damage did not touch (same address, size and class): objects
 * whose bytes, or whose Class's bytes, do not include the damaged word (a damaged Class may
 * cost its own instances, never other classes' objects).  A field named by --floor (damage
 * the carver does not yet survive) is held to that recall instead, and its row says OPEN.
 * --roots N damages instead every word of the objects java.lang.Class is recognised by
 * (issue 23): java.lang.Class, its DexCache, its name String, the Classes of java.lang.Object
 * and java.lang.String, with N values per word (the list above, starting at the word's index
 * mod 6); the row of each object is root.<what>.
 * Prints one row per field (runs, failed carves, worst recall, its bound, the worst run's
 * word and value) and exits 1 when any run fails, 2 on a usage or setup error. */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "carver/base/xalloc.h"
#include "carver/pipeline/carve.h"
#include "tests/tools/damage_lib.h"

#define MIN_RECALL 0.99
#define MAX_FIELDS 64

struct field_row {
	char name[48];
	unsigned runs, failed;
	double worst;
	uint64_t worst_va;
	uint32_t worst_value;
	char worst_why[160];
};

/* A field whose known worst recall is below the bound (issue 23 left open): the sweep holds it
 * to its measured floor, so that it gets no worse, and prints it as open. */
struct floor_row {
	char name[48];
	double floor;
};

struct sweep {
	struct dmg_core core;
	struct dmg_objects base;
	const char *maps, *out;
	unsigned per_field, skip, roots;   /* roots: values per word of the root objects (--roots) */
	uint64_t rng;
	struct field_row rows[MAX_FIELDS];
	unsigned row_count;
	uint32_t near_miss;
	struct floor_row floors[MAX_FIELDS];
	unsigned floor_count;
};

static struct field_row *row(struct sweep *s, const char *name)
{
	for (unsigned i = 0; i < s->row_count; i++)
		if (!strcmp(s->rows[i].name, name))
			return &s->rows[i];
	if (s->row_count == MAX_FIELDS)
		return NULL;
	struct field_row *r = &s->rows[s->row_count++];
	memset(r, 0, sizeof(*r));
	snprintf(r->name, sizeof(r->name), "%s", name);
	r->worst = 2;
	return r;
}

/* The value of the k-th run of a field: the extremes, the near miss, then random words. */
static uint32_t damage_value(struct sweep *s, unsigned k)
{
	static const uint32_t extreme[] = { 0, 0xffffffffu, 0x7fffffffu, 0x80000000u };
	if (k < 4)
		return extreme[k];
	if (k == 4)
		return s->near_miss;
	return (uint32_t)dmg_rand(&s->rng);
}

/* One run: va damaged with value, carved, compared, restored. */
static int damage_run(struct sweep *s, struct field_row *r, uint64_t va, uint32_t value)
{
	struct carve_opts o = { .image = s->core.path, .maps = s->maps, .out_dir = s->out, .skip = s->skip,
				.force = true };
	struct carve c;
	struct err e;
	uint32_t old;
	double recall = 0;
	char why[160] = "";
	int rc;

	err_init(&e);
	if (dmg_core_patch(&s->core, va, value, &old))
		return -1;
	rc = carve_run(&c, &o, &e);
	if (rc)
		snprintf(why, sizeof(why), "carve failed: %.120s", e.msg);
	else if (!dmg_outputs_written(&c, &o, why, sizeof(why)))
		rc = -1;
	else
		recall = dmg_recall(&s->base, &c.m, &va, 1, why, sizeof(why));
	carve_release(&c);
	if (dmg_core_patch(&s->core, va, old, &value))
		return -1;
	r->runs++;
	if (rc)
		r->failed++;
	if ((rc || recall < MIN_RECALL) && getenv("DAMAGE_SWEEP_VERBOSE"))
		fprintf(stderr, "%s 0x%" PRIx64 " = 0x%08" PRIx32 ": recall %.4f %s\n", r->name, va, value, recall, why);
	if (rc || recall < r->worst) {
		r->worst = rc ? 0 : recall;
		r->worst_va = va;
		r->worst_value = value;
		snprintf(r->worst_why, sizeof(r->worst_why), "%s", why);
	}
	return 0;
}

/* n runs on field name, at the words targets[0..count) in turn. */
static int damage_field(struct sweep *s, const char *name, const uint64_t *targets, size_t count, unsigned n)
{
	struct field_row *r = row(s, name);
	if (!r)
		return -1;
	for (unsigned k = 0; count && k < n; k++) {
		size_t at = count <= 8 ? k % count : (size_t)(dmg_rand(&s->rng) % count);
		if (damage_run(s, r, targets[at] & ~(uint64_t)3, damage_value(s, k % 6)))
			return -1;
	}
	return 0;
}

static int sweep_targets(struct sweep *s, const struct dmg_targets *t)
{
	for (size_t i = 0; i < t->count; i++) {
		const struct dmg_target *g = &t->v[i];
		unsigned n = g->runs ? g->runs : s->per_field;
		if (damage_field(s, g->field, g->va, g->va_count, n))
			return -1;
	}
	return 0;
}

/* ---- --roots: every word of the objects that recognise java.lang.Class ---- */

struct root_obj {
	const char *field;
	uint64_t va;
};

/* The baseline object at va, NULL if it is none. */
static const struct dmg_obj *base_at(const struct dmg_objects *b, uint64_t va)
{
	for (size_t i = 0; i < b->count; i++)
		if (b->v[i].va == va)
			return &b->v[i];
	return NULL;
}

/* java.lang.Class, its DexCache and name String, the Classes of java.lang.Object and
 * java.lang.String (from the undamaged carve); 0 or -1. */
static int root_objects(const struct sweep *s, const char *core, struct root_obj *r, size_t *n)
{
	struct carve_opts o = { .image = core, .maps = s->maps, .out_dir = s->out, .skip = ~0u, .force = true };
	struct carve c;
	struct err e;
	struct mirror_class jlc;

	err_init(&e);
	int rc = carve_run(&c, &o, &e);
	if (rc == 0) {
		struct mirror m = { c.rt.img, c.rt.layout, 8 };
		rc = mirror_class_read(&m, c.rt.java_lang_class, &jlc, &e);
		*n = 0;
		r[(*n)++] = (struct root_obj){ "root.java.lang.Class", c.rt.java_lang_class };
		struct mirror_class jlo;
		if (rc == 0 && (rc = mirror_class_read(&m, jlc.super_class, &jlo, &e)) == 0) {
			/* the DexCache the recognition reads: java.lang.Class's, else Object's; a
			 * name_ not yet set (null) is no object to damage */
			r[(*n)++] = (struct root_obj){ "root.DexCache", jlc.dex_cache ? jlc.dex_cache : jlo.dex_cache };
			if (jlc.name)
				r[(*n)++] = (struct root_obj){ "root.Class.name_", jlc.name };
			r[(*n)++] = (struct root_obj){ "root.Object's Class", jlc.super_class };
		}
		if (c.m.jls != MODEL_NONE)
			r[(*n)++] = (struct root_obj){ "root.String's Class", c.rt.classes[c.m.jls].addr };
	}
	if (rc)
		fprintf(stderr, "%s: roots: %s\n", core, e.msg);
	carve_release(&c);
	return rc ? -1 : 0;
}

/* Every word of every root object, s->roots values each (the list of damage_value in turn). */
static int sweep_roots(struct sweep *s, const char *core)
{
	struct root_obj r[5];
	size_t n;
	if (root_objects(s, core, r, &n))
		return -1;
	for (size_t i = 0; i < n; i++) {
		const struct dmg_obj *b = base_at(&s->base, r[i].va);
		struct field_row *f = row(s, r[i].field);
		if (!b || !f) {
			fprintf(stderr, "damage_sweep: %s at 0x%" PRIx64 " is not a carved object\n", r[i].field, r[i].va);
			return -1;
		}
		for (uint32_t w = 0; w < b->size / 4; w++)
			for (unsigned k = 0; k < s->roots; k++)
				if (damage_run(s, f, b->va + 4 * (uint64_t)w, damage_value(s, (w + k) % 6)))
					return -1;
	}
	return 0;
}

/* The bound a field's worst recall must meet: MIN_RECALL, or its floor when it is open. */
static double bound_of(const struct sweep *s, const char *name, bool *open)
{
	*open = false;
	for (unsigned i = 0; i < s->floor_count; i++)
		if (!strcmp(s->floors[i].name, name)) {
			*open = true;
			return s->floors[i].floor;
		}
	return MIN_RECALL;
}

static void print_table(const struct sweep *s, const char *label, unsigned *bad)
{
	printf("%-36s %5s %6s %12s %6s  %s\n", "damaged field", "runs", "failed", "worst recall", "bound", "worst case");
	for (unsigned i = 0; i < s->row_count; i++) {
		const struct field_row *r = &s->rows[i];
		bool open;
		double bound = bound_of(s, r->name, &open);
		if (!r->runs)
			continue;
		printf("%-36s %5u %6u %12.4f %6.4f  0x%" PRIx64 " = 0x%08" PRIx32 "%s%s%s%s\n", r->name, r->runs,
		       r->failed, r->worst, bound, r->worst_va, r->worst_value, r->worst_why[0] ? " (" : "",
		       r->worst_why, r->worst_why[0] ? ")" : "", open ? " OPEN: below 0.99, held to its floor" : "");
		if (r->failed || r->worst < bound) {
			printf("FAIL %s %s: worst recall %.4f below %.4f, %u failed carves\n", label, r->name, r->worst,
			       bound, r->failed);
			(*bad)++;
		}
	}
}

/* --floor FIELD=RECALL */
static bool add_floor(struct sweep *s, const char *arg)
{
	const char *eq = strchr(arg, '=');
	if (!eq || s->floor_count == MAX_FIELDS || (size_t)(eq - arg) >= sizeof(s->floors[0].name))
		return false;
	struct floor_row *f = &s->floors[s->floor_count++];
	snprintf(f->name, sizeof(f->name), "%.*s", (int)(eq - arg), arg);
	f->floor = strtod(eq + 1, NULL);
	return true;
}

int main(int argc, char **argv)
{
	struct sweep s = { .per_field = 6, .rng = 23, .skip = ~((1u << CARVE_OUT_HPROF) | (1u << CARVE_OUT_DB)) };
	struct dmg_targets t = { 0 };
	const char *core = NULL;
	unsigned bad = 0;
	char tmpl[] = "/tmp/damage-sweep.XXXXXX";

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--runs-per-field") && i + 1 < argc)
			s.per_field = (unsigned)strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			s.rng = strtoull(argv[++i], NULL, 0) | 1;
		else if (!strcmp(argv[i], "--floor") && i + 1 < argc) {
			if (!add_floor(&s, argv[++i])) {
				fprintf(stderr, "damage_sweep: --floor FIELD=RECALL, not %s\n", argv[i]);
				return 2;
			}
		} else if (!strcmp(argv[i], "--roots") && i + 1 < argc)
			s.roots = (unsigned)strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--all-outputs"))
			s.skip = 0;
		else if (!strcmp(argv[i], "--out") && i + 1 < argc)
			s.out = argv[++i];
		else if (!core)
			core = argv[i];
		else if (!s.maps)
			s.maps = argv[i];
		else {
			fprintf(stderr, "usage: damage_sweep CORE [MAPS] [--runs-per-field N] [--seed S] [--all-outputs] [--out DIR] [--floor FIELD=RECALL]... [--roots N]\n");
			return 2;
		}
	}
	if (!core) {
		fprintf(stderr, "usage: damage_sweep CORE [MAPS] [--runs-per-field N] [--seed S] [--all-outputs] [--out DIR] [--floor FIELD=RECALL]... [--roots N]\n");
		return 2;
	}
	if (!s.out && !(s.out = mkdtemp(tmpl))) {
		perror("mkdtemp");
		return 2;
	}
	if (dmg_core_open(&s.core, core) || dmg_baseline(&s.base, &t, core, s.maps, s.out, &s.near_miss)) {
		fprintf(stderr, "damage_sweep: %s: no baseline carve\n", core);
		return 2;
	}
	if (s.roots)
		printf("%s: baseline %zu objects, every word of the java.lang.Class roots, %u values per word\n", core,
		       s.base.count, s.roots);
	else
		printf("%s: baseline %zu objects, %zu damage fields, %u runs per field\n", core, s.base.count, t.count,
		       s.per_field);
	if (s.roots ? sweep_roots(&s, core) : sweep_targets(&s, &t)) {
		fprintf(stderr, "damage_sweep: %s: a run could not be set up\n", core);
		return 2;
	}
	print_table(&s, core, &bad);
	dmg_targets_free(&t);
	dmg_objects_free(&s.base);
	dmg_core_close(&s.core);
	return bad ? 1 : 0;
}
