/* test_model_stats.c - the summary figures of an object model (rosalloc/model/model_stats.c)
 * on a hand-made model: counts per state, confidence bins, strings, dropped per class and the
 * two class orders (ties by class index). */
#include "rosalloc/model/model_stats.h"
#include "tests/unit/t.h"

static struct model_obj obj(uint32_t addr, uint32_t cls, uint8_t alloc, uint8_t content, uint8_t reach,
			    uint8_t confidence)
{
	struct model_obj o = { 0 };
	o.addr = addr;
	o.size = 16;
	o.cls = cls;
	o.kind = MODEL_INSTANCE;
	o.alloc = alloc;
	o.content = content;
	o.reach = reach;
	o.confidence = confidence;
	return o;
}

int main(void)
{
	struct art_runtime rt = { 0 };
	struct model_class classes[4] = { { 0 } };
	struct model_obj objs[8];
	struct model m = { 0 };
	struct model_stats s;
	struct err e;

	/* class 2 is java.lang.String; class 3 has no objects */
	objs[0] = obj(0x1000, 0, MODEL_ALLOCATED, MODEL_INTACT, MODEL_REACHABLE, 100);
	objs[1] = obj(0x1010, 1, MODEL_ALLOCATED, MODEL_INTACT, MODEL_UNREACHABLE, 95);
	objs[2] = obj(0x1020, 1, MODEL_ALLOCATED, MODEL_INTACT, MODEL_UNREACHABLE, 90);
	objs[3] = obj(0x1030, 2, MODEL_ALLOCATED, MODEL_INTACT, MODEL_UNREACHABLE, 80);
	objs[4] = obj(0x1040, 2, MODEL_FREE, MODEL_RESIDUE, MODEL_UNREACHABLE, 70);
	objs[5] = obj(0x1050, 2, MODEL_FREE, MODEL_PARTIAL, MODEL_REACH_UNKNOWN, 50);
	objs[6] = obj(0x1060, 0, MODEL_ALLOCATED, MODEL_INTACT, MODEL_REACHABLE, 100);
	objs[7] = obj(0x1070, 2, MODEL_ALLOCATED, MODEL_INTACT, MODEL_REACHABLE, 89);
	classes[0].objects = 2;
	classes[1].objects = 2;
	classes[2].objects = 4;
	rt.class_count = 4;
	m.rt = &rt;
	m.classes = classes;
	m.objs = objs;
	m.count = 8;
	m.jls = 2;
	err_init(&e);

	T_SECTION("counts");
	T_EQ_I(model_stats_make(&s, &m, &e), 0);
	T_EQ_U(s.alloc[MODEL_ALLOCATED], 6);
	T_EQ_U(s.alloc[MODEL_FREE], 2);
	T_EQ_U(s.content[MODEL_INTACT], 6);
	T_EQ_U(s.content[MODEL_PARTIAL], 1);
	T_EQ_U(s.content[MODEL_RESIDUE], 1);
	T_EQ_U(s.reach[MODEL_REACHABLE], 3);
	T_EQ_U(s.reach[MODEL_UNREACHABLE], 4);
	T_EQ_U(s.reach[MODEL_REACH_UNKNOWN], 1);
	T_EQ_U(s.dropped, 3);                    /* a free unreachable object is not dropped */
	T_EQ_U(s.strings, 4);
	T_EQ_U(s.strings_dropped, 1);
	T_EQ_U(s.confidence[MODEL_STATS_CONF_100], 2);
	T_EQ_U(s.confidence[MODEL_STATS_CONF_90], 2);
	T_EQ_U(s.confidence[MODEL_STATS_CONF_70], 3);
	T_EQ_U(s.confidence[MODEL_STATS_CONF_LOW], 1);

	T_SECTION("per class and orders");
	T_EQ_U(s.class_count, 4);
	T_EQ_U(s.per_class_dropped[0], 0);
	T_EQ_U(s.per_class_dropped[1], 2);
	T_EQ_U(s.per_class_dropped[2], 1);
	T_EQ_U(s.order[0], 2);                   /* 4 objects */
	T_EQ_U(s.order[1], 0);                   /* 2 objects, lower index than class 1 */
	T_EQ_U(s.order[2], 1);
	T_EQ_U(s.order[3], 3);
	T_EQ_U(s.dropped_order[0], 1);
	T_EQ_U(s.dropped_order[1], 2);
	T_EQ_U(s.dropped_order[2], 0);
	T_EQ_U(s.dropped_order[3], 3);
	model_stats_release(&s);
	T_CHECK(s.order == NULL && s.per_class_dropped == NULL, "release clears the tables");

	T_SECTION("empty model");
	rt.class_count = 0;
	m.count = 0;
	T_EQ_I(model_stats_make(&s, &m, &e), 0);
	T_EQ_U(s.dropped, 0);
	T_EQ_U(s.alloc[MODEL_ALLOCATED], 0);
	model_stats_release(&s);

	T_SECTION("helpers");
	T_EQ_U(model_stats_conf_bin(100), MODEL_STATS_CONF_100);
	T_EQ_U(model_stats_conf_bin(99), MODEL_STATS_CONF_90);
	T_EQ_U(model_stats_conf_bin(70), MODEL_STATS_CONF_70);
	T_EQ_U(model_stats_conf_bin(69), MODEL_STATS_CONF_LOW);
	T_CHECK(model_stats_is_dropped(&objs[1]) && !model_stats_is_dropped(&objs[4]), "dropped = allocated and unreachable");
	T_DONE();
}
