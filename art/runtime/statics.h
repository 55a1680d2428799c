/* statics.h - the static fields of a class: name, type and offset inside its Class object.
 *
 * A class's static fields live at the end of its Class object, after the fixed part and the
 * embedded vtable/IMT (mirror::Class::ComputeClassSize, runtime/mirror/class-inl.h @R11):
 * reference statics first, then the primitives in LinkFields order, ending exactly at
 * class_size_.  Two sources, tried in this order:
 *   "sfields_"  Class.sfields_ (LengthPrefixedArray<ArtField>, 7.0+; 16+: "fields_", the
 *               static entries first in Class.fields_) when that native memory is captured:
 *               offsets as ART set them;
 *   "dex"       the DEX class_data static fields, laid out with ART's field-linking rules
 *               (runtime_link_fields) from a start offset S such that the last static ends at
 *               class_size_; S is 4-aligned and its parity modulo 8 decides where 8-byte
 *               fields go, so both parities are tried and a layout is kept only when it
 *               also gives num_reference_static_fields_ reference fields. */
#ifndef ARTCARVE_STATICS_H
#define ARTCARVE_STATICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "art/runtime/runtime.h"
#include "carver/base/arena.h"
#include "carver/base/err.h"

struct rt_statics {
	struct rt_field *v;       /* in declaration order; offset from the Class object's start */
	uint32_t count;
	const char *how;          /* "sfields_" (16+: "fields_"), "dex", "none" (no static fields), "" unknown */
};

/* Static fields of rt->classes[i].  Strings and the array come from a (caller's arena).
 * Returns 0 with *out filled (count 0 and how "none" for arrays, primitives and classes
 * without statics); -ERR_CORRUPT or -ERR_UNMAPPED with a message when the statics exist
 * but no source gives a layout that fits the Class (out->how = ""); -ERR_NOMEM. */
int statics_of_class(const struct art_runtime *rt, size_t i, struct arena *a, struct rt_statics *out,
		     struct err *e);

#endif
