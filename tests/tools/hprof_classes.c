/* hprof_classes.c - test tool: prints every CLASS_DUMP of an HPROF file as
 *   NAME: field type, field type, ...
 * (instance fields in the order the dump lists them; type = HPROF basic type name), one
 * line per class, in file order.  Used by tests/shell/test_realart_runtime.sh to compare
 * `artcarve classes` with the runtime's own HPROF.  Reads through output/hprof/hprof_reader.h.
 * usage: hprof_classes [--loaders] FILE.hprof    exit 0 ok, 1 bad input, 2 usage
 * --loaders: "NAME loader=0xID" per class (the class loader's id, 0 for the boot loader) */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "carver/base/mapfile.h"
#include "carver/base/xalloc.h"
#include "output/hprof/hprof_reader.h"

struct str { uint64_t id; const uint8_t *text; size_t len; };
struct cls { uint64_t class_id, name_id; };

struct tables {
	struct str *s;
	size_t ns, cs;
	struct cls *c;
	size_t nc, cc;
};

static int by_str_id(const void *a, const void *b)
{
	const struct str *x = a, *y = b;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int by_class_id(const void *a, const void *b)
{
	const struct cls *x = a, *y = b;
	return x->class_id < y->class_id ? -1 : x->class_id > y->class_id;
}

static const struct str *find_str(const struct tables *t, uint64_t id)
{
	struct str key = { id, NULL, 0 };
	return bsearch(&key, t->s, t->ns, sizeof(key), by_str_id);
}

static void print_str(const struct tables *t, uint64_t id)
{
	const struct str *s = find_str(t, id);
	if (s)
		fwrite(s->text, 1, s->len, stdout);
	else
		printf("?%llx", (unsigned long long)id);
}

static const char *type_name(uint8_t type)
{
	static const char *const names[] = { [2] = "object", [4] = "boolean", [5] = "char", [6] = "float",
					     [7] = "double", [8] = "byte", [9] = "short", [10] = "int",
					     [11] = "long" };
	return type < sizeof(names) / sizeof(names[0]) && names[type] ? names[type] : "?";
}

/* Pass 1: strings and LOAD_CLASS records. */
static int collect(struct hprof_reader *r, struct tables *t, struct err *e)
{
	struct hprof_record rec;
	int rc;
	while ((rc = hprof_next(r, &rec, e)) == 1) {
		if (rec.tag == HPROF_STRING) {
			struct hprof_string s;
			if ((rc = hprof_string_parse(&rec, r->id_size, &s, e)) || XALLOC_GROW(t->s, t->cs, t->ns + 1, 1024))
				return rc ? rc : -1;
			t->s[t->ns++] = (struct str){ s.id, s.text, s.len };
		} else if (rec.tag == HPROF_LOAD_CLASS) {
			struct hprof_load_class lc;
			if ((rc = hprof_load_class_parse(&rec, r->id_size, &lc, e)) || XALLOC_GROW(t->c, t->cc, t->nc + 1, 1024))
				return rc ? rc : -1;
			t->c[t->nc++] = (struct cls){ lc.class_id, lc.name_id };
		}
	}
	qsort(t->s, t->ns, sizeof(*t->s), by_str_id);
	qsort(t->c, t->nc, sizeof(*t->c), by_class_id);
	return rc;
}

/* --loaders: "NAME loader=0xID" per class instead of its fields (0: the boot class loader). */
static bool print_loaders;

static int print_class(const struct tables *t, const struct hprof_sub *sub, unsigned id_size, struct err *e)
{
	struct hprof_class_dump cd;
	struct hprof_class_entry f;
	struct cls key;
	const struct cls *c;
	int rc = hprof_class_dump_parse(sub, id_size, &cd, e);
	if (rc)
		return rc;
	key.class_id = cd.class_id;
	c = bsearch(&key, t->c, t->nc, sizeof(key), by_class_id);
	if (c)
		print_str(t, c->name_id);
	else
		printf("?class%llx", (unsigned long long)cd.class_id);
	if (print_loaders) {
		printf(" loader=0x%llx\n", (unsigned long long)cd.loader_id);
		return 0;
	}
	fputc(':', stdout);
	for (unsigned n = 0; (rc = hprof_class_next_field(&cd, &f, e)) == 1; n++) {
		fputs(n ? ", " : " ", stdout);
		print_str(t, f.key);
		printf(" %s", type_name(f.type));
	}
	fputc('\n', stdout);
	return rc;
}

/* Pass 2: CLASS_DUMPs of every heap dump (segment). */
static int dump(struct hprof_reader *r, const struct tables *t, struct err *e)
{
	struct hprof_record rec;
	int rc;
	while ((rc = hprof_next(r, &rec, e)) == 1) {
		struct hprof_sub sub;
		if (rec.tag != HPROF_HEAP_DUMP && rec.tag != HPROF_HEAP_DUMP_SEGMENT)
			continue;
		while ((rc = hprof_next_sub(&rec.body, r->id_size, &sub, e)) == 1)
			if (sub.tag == HPROF_CLASS_DUMP && (rc = print_class(t, &sub, r->id_size, e)))
				return rc;
		if (rc)
			return rc;
	}
	return rc;
}

int main(int argc, char **argv)
{
	struct mapfile m;
	struct hprof_reader r;
	struct tables t = { 0 };
	struct err e;
	int rc;

	print_loaders = argc == 3 && !strcmp(argv[1], "--loaders");
	argv += print_loaders;
	argc -= print_loaders;
	if (argc != 2) {
		fprintf(stderr, "usage: hprof_classes [--loaders] FILE.hprof\n");
		return 2;
	}
	err_init(&e);
	if (mapfile_open(&m, argv[1], &e))
		goto fail;
	rc = hprof_reader_init(&r, m.data, m.len, argv[1], &e);
	if (rc == 0)
		rc = collect(&r, &t, &e);
	if (rc == 0)
		rc = hprof_reader_init(&r, m.data, m.len, argv[1], &e);
	if (rc == 0)
		rc = dump(&r, &t, &e);
	xfree(t.s);
	xfree(t.c);
	mapfile_close(&m);
	if (rc == 0)
		return fflush(stdout) == 0 ? 0 : 1;
fail:
	fprintf(stderr, "hprof_classes: %s\n", e.msg[0] ? e.msg : "out of memory");
	return 1;
}
