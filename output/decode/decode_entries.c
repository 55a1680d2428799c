/* decode_entries.c - the entries of containers and arrays (see decode.h).
 *
 * Each container is read through the fields of its JDK / Android class by name, with the
 * names of every libcore since Android 5.0: ArrayList.elementData (5.x-6.0: array),
 * LinkedList.first / Node.item (5.x-6.0: voidLink / Link.data, a ring with a sentinel),
 * HashMap.table / Node.key, value, next (5.x-6.0 HashMapEntry, plus entryForNullKey),
 * Hashtable.count (5.x-6.0: size), ConcurrentHashMap Node.val (TreeBin.first for a bin made a
 * tree), TreeMap.root / TreeMapEntry.left, right, HashSet.map, TreeSet.m; android.util's
 * ArrayMap.mArray (key, value pairs), ArraySet.mArray, SparseArray.mKeys / mValues and mSize
 * (frameworks/base core/java/android/util).  A HashMap's entries come in table order (a
 * LinkedHashMap's too, not its insertion order). */
#include "output/decode/decode_int.h"

#include <string.h>

#include "carver/base/cursor.h"
#include "carver/base/xalloc.h"

enum { DEC_TREE_DEPTH = 128 };   /* a red-black tree of DEC_MAX_ENTRIES is at most 28 deep */

struct walk {
	struct dec *d;
	dec_entry_fn fn;
	void *arg;
	struct dec_entries *info;
	struct err *e;
	uint64_t steps;
	bool stop;                  /* fn asked to stop, an error, or the entry bound */
	int rc;
};

/* Records why the entries given are not all (the first reason); the caller stops or goes on
 * with what still reads. */
static void incomplete(struct walk *w, const char *why)
{
	if (!w->info->incomplete)
		w->info->incomplete = why;
}

/* One more node visited; false (and incomplete) past DEC_MAX_STEPS. */
static bool step(struct walk *w)
{
	if (++w->steps <= DEC_MAX_STEPS)
		return true;
	incomplete(w, "the walk visited more nodes than the decoder's bound");
	return false;
}

static void emit(struct walk *w, const struct dec_value *key, const struct dec_value *value)
{
	struct dec_entry en = { .index = w->info->given, .has_key = key != NULL, .value = *value };
	if (w->stop)
		return;
	if (w->info->given >= DEC_MAX_ENTRIES) {
		incomplete(w, "more entries than the decoder shows");
		w->stop = true;
		return;
	}
	if (key)
		en.key = *key;
	w->info->given++;
	if ((w->rc = w->fn(w->arg, &en, w->e)) != 0)
		w->stop = true;
}

/* The object a reference names, MODEL_NONE (and incomplete, unless null) when none. */
static size_t node_of(struct walk *w, uint32_t ref)
{
	size_t i = ref ? model_find(w->d->m, ref) : MODEL_NONE;
	if (ref && i == MODEL_NONE)
		incomplete(w, "a reference leaves the model (memory not captured, or damage)");
	return i;
}

/* The bytes of element i (size bytes) of array arr into b; false when they do not read. */
static bool element_bytes(struct walk *w, size_t arr, uint64_t i, unsigned size, uint8_t *b)
{
	const struct model *m = w->d->m;
	const struct model_obj *o = model_obj(m, arr);
	return i < model_length(m, o) && img_peek(model_image(m), model_data_addr(m, o) + i * size, b, size);
}

/* Element i of array obj as a value in slot. */
static int element(struct walk *w, size_t arr, uint64_t i, unsigned slot, struct dec_value *v, struct err *e)
{
	const struct model *m = w->d->m;
	const struct model_obj *o = model_obj(m, arr);
	const struct model_class *mc = model_class(m, o->cls);
	unsigned size = o->kind == MODEL_OBJ_ARRAY ? 4 : mc->elem_size;
	uint8_t t = o->kind == MODEL_OBJ_ARRAY ? 'L' : mc->elem;
	uint8_t b[8];

	memset(v, 0, sizeof(*v));
	v->obj = MODEL_NONE;
	if (size > sizeof(b) || !element_bytes(w, arr, i, size, b)) {
		v->kind = DEC_UNREAD;
		v->why = "the element does not read";
		return 0;
	}
	return dec_value_at(w->d, t, b, DEC_TIME_NONE, slot, v, e);
}

/* The array a reference names, with its length; MODEL_NONE (incomplete) when none. */
static size_t array_of(struct walk *w, uint32_t ref, bool objects, uint32_t *len)
{
	size_t a = node_of(w, ref);
	if (a == MODEL_NONE)
		return a;
	const struct model_obj *o = model_obj(w->d->m, a);
	if (o->kind != (objects ? MODEL_OBJ_ARRAY : MODEL_PRIM_ARRAY)) {
		incomplete(w, "the backing array is not an array");
		return MODEL_NONE;
	}
	*len = model_length(w->d->m, o);
	return a;
}

/* Elements [0, n) of array arr, n clipped to its length (incomplete when size says more). */
static void array_items(struct walk *w, size_t arr, uint32_t len, int64_t size, struct err *e)
{
	struct dec_value v;
	if (size < 0) {
		incomplete(w, "the size field is negative");
		return;
	}
	if ((uint64_t)size > len)
		incomplete(w, "the size field is larger than the backing array");
	for (uint64_t i = 0; i < (uint64_t)size && i < len && !w->stop; i++)
		if ((w->rc = element(w, arr, i, 0, &v, e)) == 0)
			emit(w, NULL, &v);
		else
			w->stop = true;
}

/* The reference field name of obj (in the model), 0 when absent. */
static uint32_t ref_field(struct walk *w, size_t obj, const char *name, struct err *e)
{
	uint32_t r = 0;
	if (!dec_obj_ref(w->d, obj, name, &r, e))
		return 0;
	return r;
}

/* The first of the int fields named (any of names) of obj; false when none reads. */
static bool int_field(struct walk *w, size_t obj, const char *a, const char *b, int64_t *v, struct err *e)
{
	return dec_obj_int(w->d, obj, a, v, e) || (b && dec_obj_int(w->d, obj, b, v, e));
}

static void set_size(struct walk *w, int64_t size)
{
	w->info->size = size > 0 ? (uint64_t)size : 0;
}

/* ArrayList, Vector, ArraySet: an Object[] and a count. */
static void list_array(struct walk *w, size_t obj, const char *arr_a, const char *arr_b, const char *size_a,
		       const char *size_b, struct err *e)
{
	int64_t size = 0;
	uint32_t len = 0, ref = ref_field(w, obj, arr_a, e);
	if (!ref && arr_b)
		ref = ref_field(w, obj, arr_b, e);
	if (!int_field(w, obj, size_a, size_b, &size, e)) {
		incomplete(w, "the size field does not read");
		return;
	}
	set_size(w, size);
	if (!ref) {
		if (size)
			incomplete(w, "the backing array is null");
		return;
	}
	size_t arr = array_of(w, ref, true, &len);
	if (arr != MODEL_NONE)
		array_items(w, arr, len, size, e);
}

/* A chain of nodes from ref through next, at most limit nodes. */
static void chain(struct walk *w, uint32_t ref, const char *item, const char *key, const char *next, uint64_t limit,
		  struct err *e)
{
	uint64_t n = 0;
	for (size_t node = node_of(w, ref); node != MODEL_NONE && !w->stop; node = node_of(w, ref)) {
		struct dec_value k = { .obj = MODEL_NONE }, v = { .obj = MODEL_NONE };
		if (!step(w))
			return;
		if (++n > limit) {
			incomplete(w, "more nodes than the size field says (a cycle, or damage)");
			return;
		}
		uint32_t kr = 0, vr = 0;
		bool has_v = dec_obj_ref(w->d, node, item, &vr, e);
		if (!has_v) {
			incomplete(w, "a node has no value field");
			return;
		}
		if (key && (!dec_obj_ref(w->d, node, key, &kr, e) ||
			    (w->rc = dec_ref_value(w->d, kr, 1, &k, e)))) {
			incomplete(w, "a node's key does not read");
			return;
		}
		if ((w->rc = dec_ref_value(w->d, vr, 0, &v, e))) {
			w->stop = true;
			return;
		}
		emit(w, key ? &k : NULL, &v);
		if (!dec_obj_ref(w->d, node, next, &ref, e))
			ref = 0;
	}
}

static void linked_list(struct walk *w, size_t obj, struct err *e)
{
	int64_t size = 0;
	uint32_t first = ref_field(w, obj, "first", e), sentinel;

	if (!int_field(w, obj, "size", NULL, &size, e)) {
		incomplete(w, "the size field does not read");
		return;
	}
	set_size(w, size);
	if (first || !(sentinel = ref_field(w, obj, "voidLink", e))) {
		chain(w, first, "item", NULL, "next", (uint64_t)(size > 0 ? size : 0), e);
		return;
	}
	/* 5.x-6.0: a ring through the sentinel Link voidLink (its data is null) */
	size_t s = node_of(w, sentinel);
	uint32_t ref = 0;
	if (s == MODEL_NONE || !dec_obj_ref(w->d, s, "next", &ref, e))
		return;
	uint64_t n = 0;
	for (size_t node = node_of(w, ref); node != MODEL_NONE && node != s && !w->stop; node = node_of(w, ref)) {
		struct dec_value v = { .obj = MODEL_NONE };
		uint32_t vr = 0;
		if (!step(w) || ++n > (uint64_t)(size > 0 ? size : 0)) {
			incomplete(w, "more nodes than the size field says (a cycle, or damage)");
			return;
		}
		if (!dec_obj_ref(w->d, node, "data", &vr, e) || (w->rc = dec_ref_value(w->d, vr, 0, &v, e)))
			return;
		emit(w, NULL, &v);
		if (!dec_obj_ref(w->d, node, "next", &ref, e))
			return;
	}
}

static void array_deque(struct walk *w, size_t obj, struct err *e)
{
	int64_t head = 0, tail = 0;
	uint32_t len = 0, ref = ref_field(w, obj, "elements", e);
	size_t arr = ref ? array_of(w, ref, true, &len) : MODEL_NONE;
	struct dec_value v;

	if (arr == MODEL_NONE || !len)
		return;
	if (!int_field(w, obj, "head", NULL, &head, e) || !int_field(w, obj, "tail", NULL, &tail, e) || head < 0 ||
	    tail < 0 || head >= len || tail >= len) {
		incomplete(w, "head or tail lies outside the backing array");
		return;
	}
	set_size(w, (tail - head + len) % len);
	for (int64_t i = head; i != tail && !w->stop; i = (i + 1) % len) {
		if ((w->rc = element(w, arr, (uint64_t)i, 0, &v, e))) {
			w->stop = true;
			return;
		}
		emit(w, NULL, &v);
	}
}

/* A hash table's buckets: chains of nodes (key, value fields), at most limit nodes in all. */
static void buckets(struct walk *w, size_t obj, bool concurrent, uint64_t limit, struct err *e)
{
	uint32_t len = 0, ref = ref_field(w, obj, "table", e);
	size_t table = ref ? array_of(w, ref, true, &len) : MODEL_NONE;

	for (uint32_t b = 0; table != MODEL_NONE && b < len && !w->stop; b++) {
		uint8_t word[4];
		if (!element_bytes(w, table, b, 4, word)) {
			incomplete(w, "a bucket does not read");
			return;
		}
		uint32_t node = ld_u32le(word);
		size_t n = node ? node_of(w, node) : MODEL_NONE;
		int64_t hash = 0;
		/* ConcurrentHashMap: a TreeBin (hash TREEBIN -2) holds its nodes from first, a
		 * ForwardingNode (MOVED -1: a resize under way) holds none here */
		if (concurrent && n != MODEL_NONE && dec_obj_int(w->d, n, "hash", &hash, e) && hash < 0 &&
		    !dec_obj_ref(w->d, n, "first", &node, e)) {
			incomplete(w, "a bucket was being moved (a resize under way)");
			continue;
		}
		uint64_t before = w->info->given;
		chain(w, node, concurrent ? "val" : "value", "key", "next", limit, e);
		limit -= w->info->given - before < limit ? w->info->given - before : limit;
	}
}

/* HashMap, Hashtable, ConcurrentHashMap (concurrent: its count is baseCount plus counter
 * cells, so no node bound comes from it). */
static void hash_map(struct walk *w, size_t obj, bool concurrent, struct err *e)
{
	int64_t size = 0;
	uint32_t null_key = 0;

	if (!int_field(w, obj, concurrent ? "baseCount" : "size", concurrent ? NULL : "count", &size, e)) {
		incomplete(w, "the size field does not read");
		return;
	}
	set_size(w, size);
	uint64_t limit = concurrent ? DEC_MAX_STEPS : size > 0 ? (uint64_t)size : 0;
	if (dec_obj_ref(w->d, obj, "entryForNullKey", &null_key, e) && null_key) {
		chain(w, null_key, "value", "key", "next", 1, e);   /* 5.x-6.0: the null key's entry */
		limit = limit ? limit - 1 : 0;
	}
	buckets(w, obj, concurrent, limit, e);
	if (concurrent)
		w->info->size = w->info->given > w->info->size ? w->info->given : w->info->size;
}

/* An in-order walk of a TreeMap's red-black tree from ref. */
static void tree(struct walk *w, uint32_t ref, uint64_t limit, struct err *e)
{
	size_t stack[DEC_TREE_DEPTH];
	unsigned depth = 0;
	uint64_t n = 0;
	size_t node = node_of(w, ref);

	while ((node != MODEL_NONE || depth) && !w->stop) {
		uint32_t r = 0;
		if (!step(w))
			return;
		if (node != MODEL_NONE) {
			if (depth == DEC_TREE_DEPTH) {
				incomplete(w, "the tree is deeper than a sound red-black tree (a cycle, or damage)");
				return;
			}
			stack[depth++] = node;
			node = dec_obj_ref(w->d, node, "left", &r, e) ? node_of(w, r) : MODEL_NONE;
			continue;
		}
		node = stack[--depth];
		if (++n > limit) {
			incomplete(w, "more nodes than the size field says (a cycle, or damage)");
			return;
		}
		uint32_t kr = 0, vr = 0;
		struct dec_value k = { .obj = MODEL_NONE }, v = { .obj = MODEL_NONE };
		if (!dec_obj_ref(w->d, node, "key", &kr, e) || !dec_obj_ref(w->d, node, "value", &vr, e)) {
			incomplete(w, "a tree node has no key or value field");
			return;
		}
		if ((w->rc = dec_ref_value(w->d, kr, 1, &k, e)) || (w->rc = dec_ref_value(w->d, vr, 0, &v, e))) {
			w->stop = true;
			return;
		}
		emit(w, &k, &v);
		node = dec_obj_ref(w->d, node, "right", &r, e) ? node_of(w, r) : MODEL_NONE;
	}
}

static void tree_map(struct walk *w, size_t obj, struct err *e)
{
	int64_t size = 0;
	if (!int_field(w, obj, "size", NULL, &size, e)) {
		incomplete(w, "the size field does not read");
		return;
	}
	set_size(w, size);
	tree(w, ref_field(w, obj, "root", e), size > 0 ? (uint64_t)size : 0, e);
}

/* ArrayMap: key, value pairs in mArray. */
static void array_map(struct walk *w, size_t obj, struct err *e)
{
	int64_t size = 0;
	uint32_t len = 0, ref = ref_field(w, obj, "mArray", e);
	size_t arr = ref ? array_of(w, ref, true, &len) : MODEL_NONE;
	struct dec_value k, v;

	if (!int_field(w, obj, "mSize", NULL, &size, e) || size < 0) {
		incomplete(w, "the size field does not read");
		return;
	}
	set_size(w, size);
	if (arr == MODEL_NONE)
		return;
	if ((uint64_t)size * 2 > len)
		incomplete(w, "the size field is larger than the backing array");
	w->stop = false;
	for (uint64_t i = 0; i < (uint64_t)size && 2 * i + 1 < len && !w->stop; i++) {
		if ((w->rc = element(w, arr, 2 * i, 1, &k, e)) || (w->rc = element(w, arr, 2 * i + 1, 0, &v, e)))
			return;
		emit(w, &k, &v);
	}
}

/* SparseArray, SparseIntArray, LongSparseArray: mKeys[i] -> mValues[i], i < mSize. */
static void sparse(struct walk *w, size_t obj, struct err *e)
{
	int64_t size = 0;
	uint32_t klen = 0, vlen = 0;
	size_t keys = node_of(w, ref_field(w, obj, "mKeys", e));
	size_t values = node_of(w, ref_field(w, obj, "mValues", e));
	struct dec_value k, v;

	if (!int_field(w, obj, "mSize", NULL, &size, e) || size < 0) {
		incomplete(w, "the size field does not read");
		return;
	}
	set_size(w, size);
	if (keys == MODEL_NONE || values == MODEL_NONE)
		return;
	klen = model_length(w->d->m, model_obj(w->d->m, keys));
	vlen = model_length(w->d->m, model_obj(w->d->m, values));
	if ((uint64_t)size > klen || (uint64_t)size > vlen)
		incomplete(w, "the size field is larger than the backing arrays");
	w->stop = false;
	for (uint64_t i = 0; i < (uint64_t)size && i < klen && i < vlen && !w->stop; i++) {
		if ((w->rc = element(w, keys, i, 1, &k, e)) || (w->rc = element(w, values, i, 0, &v, e)))
			return;
		emit(w, &k, &v);
	}
}

/* HashSet.map / TreeSet.m: the backing map's keys. */
static int set_keys(void *arg, const struct dec_entry *en, struct err *e)
{
	struct walk *outer = arg;
	(void)e;
	emit(outer, NULL, &en->key);
	return outer->stop ? (outer->rc ? outer->rc : 1) : 0;
}

static void backed_set(struct walk *w, size_t obj, const char *field, struct err *e)
{
	struct dec_entries inner;
	size_t map = node_of(w, ref_field(w, obj, field, e));
	if (map == MODEL_NONE)
		return;
	int rc = dec_each_entry(w->d, map, set_keys, w, &inner, e);
	if (rc < 0)
		w->rc = rc;
	w->info->size = inner.size;
	if (inner.incomplete && !w->info->incomplete)
		w->info->incomplete = inner.incomplete;
}

static void arrays(struct walk *w, size_t obj, struct err *e)
{
	const struct model_obj *o = model_obj(w->d->m, obj);
	uint32_t len = model_length(w->d->m, o);
	struct dec_value v;

	w->info->kind = "array";
	w->info->size = len;
	for (uint64_t i = 0; i < len && !w->stop; i++) {
		if ((w->rc = element(w, obj, i, 0, &v, e)))
			return;
		emit(w, NULL, &v);
	}
}

static const char *box_kind(uint8_t box, bool *keyed)
{
	switch (box) {
	case DEC_C_ARRAY_LIST: case DEC_C_VECTOR: case DEC_C_LINKED_LIST: case DEC_C_ARRAY_DEQUE:
		*keyed = false;
		return "list";
	case DEC_C_HASH_SET: case DEC_C_TREE_SET: case DEC_C_ARRAY_SET:
		*keyed = false;
		return "set";
	case DEC_C_SPARSE_ARRAY: case DEC_C_SPARSE_INT: case DEC_C_SPARSE_LONG:
		*keyed = true;
		return "sparse";
	default:
		*keyed = true;
		return "map";
	}
}

int dec_each_entry(struct dec *d, size_t obj, dec_entry_fn fn, void *arg, struct dec_entries *info,
		   struct err *e)
{
	struct dec_entries own;
	struct walk w = { .d = d, .fn = fn, .arg = arg, .info = info ? info : &own, .e = e };
	const struct model_obj *o = model_obj(d->m, obj);
	const struct dec_plan *p;
	int rc;

	memset(w.info, 0, sizeof(*w.info));
	if (o->kind == MODEL_OBJ_ARRAY || o->kind == MODEL_PRIM_ARRAY) {
		arrays(&w, obj, e);
		return w.rc;
	}
	if ((rc = dec_plan_of(d, o->cls, &p, e)))
		return rc;
	if (p->special != DEC_S_CONTAINER)
		return 0;
	w.info->kind = box_kind(p->container, &w.info->keyed);
	switch (p->container) {
	case DEC_C_ARRAY_LIST: list_array(&w, obj, "elementData", "array", "size", NULL, e); break;
	case DEC_C_VECTOR: list_array(&w, obj, "elementData", NULL, "elementCount", NULL, e); break;
	case DEC_C_ARRAY_SET: list_array(&w, obj, "mArray", NULL, "mSize", NULL, e); break;
	case DEC_C_LINKED_LIST: linked_list(&w, obj, e); break;
	case DEC_C_ARRAY_DEQUE: array_deque(&w, obj, e); break;
	case DEC_C_HASH_MAP: case DEC_C_HASHTABLE: hash_map(&w, obj, false, e); break;
	case DEC_C_CONCURRENT_MAP: hash_map(&w, obj, true, e); break;
	case DEC_C_TREE_MAP: tree_map(&w, obj, e); break;
	case DEC_C_HASH_SET: backed_set(&w, obj, "map", e); break;
	case DEC_C_TREE_SET: backed_set(&w, obj, "m", e); break;
	case DEC_C_ARRAY_MAP: array_map(&w, obj, e); break;
	default: sparse(&w, obj, e); break;
	}
	return w.rc;
}
