/* referrers.h - who references each object of the model: the reverse of model_each_ref.
 *
 * referrers_build (after model_finish) walks the references of every allocated object once
 * with model_each_ref and keeps, for each object, the objects that name it and where:
 *   from  the index (model_obj) of the referring object;
 *   off   the byte offset of the reference inside it: an instance field (of the class or a
 *         super class), an object array element (data offset + 4 * index), or, in a Class
 *         object, one of that class's static fields.
 * Left out: null references, references to no object of the model (memory the image did
 * not capture, empty free places), every object's class word (each object names its class;
 * the per-class counts of model.h say that), and the references held by free objects (a
 * freed object's fields are stale: they name what it named while alive, not what holds the
 * target now).  An object that names the same target in two fields gives two edges.
 *
 * Layout: compressed sparse rows.  The edges into object i are first[i] .. first[i+1] - 1
 * of from[] and off[], ordered by the referring object's address, then by offset.  Memory:
 * 4 bytes per object plus 8 bytes per edge, nothing else; building reads every reference
 * twice (a count, then a fill) rather than holding an edge list twice.
 *
 * referrers_field_at names a reference offset with the runtime model's fields
 * (art/runtime/runtime.h rt_class.fields, art/runtime/statics.h for statics). */
#ifndef ARTCARVE_REFERRERS_H
#define ARTCARVE_REFERRERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "carver/base/err.h"
#include "rosalloc/model/model.h"

struct referrers {
	uint32_t *first;        /* count + 1 entries */
	uint32_t *from;         /* edges entries: referring object index */
	uint32_t *off;          /* edges entries: byte offset of the reference in it */
	size_t count;           /* objects of the model it was built for */
	uint32_t edges;
};

/* Builds the index of a finished model (model_finish).  Returns 0, -ERR_NOMEM, -ERR_UNSUP
 * when the edges exceed 2^32 - 1, or a read error of model_each_ref; r is empty (and
 * referrers_release safe) on failure. */
int referrers_build(struct referrers *r, const struct model *m, struct err *e);
void referrers_release(struct referrers *r);
/* Number of references to object i; *from and *off point at them (valid until release). */
uint32_t referrers_of(const struct referrers *r, size_t i, const uint32_t **from, const uint32_t **off);

/* What a reference offset of an object is. */
struct referrers_field {
	const struct rt_field *field;   /* the instance or static field; NULL for an element */
	size_t declaring;               /* class index (rt->classes) that declares the field */
	bool is_static;                 /* a static of the Class object itself */
	bool is_element;                /* an object array element */
	uint32_t index;                 /* the element's index */
};

/* Names the reference at byte offset off of object o: an element of an object array, a
 * static of a Class object's own class, or an instance field of o's class or a super class
 * (searched from o's class up, so a field hiding a super class's field wins).  Returns false
 * (f cleared) when nothing the model knows lies at off. */
bool referrers_field_at(const struct model *m, const struct model_obj *o, uint32_t off, struct referrers_field *f);

#endif
