/* runtime_origin.c - where each class comes from: its DEX file's location and its class
 * loader, classified as boot class path, framework, app or unknown. */
#include "art/runtime/runtime.h"

#include <string.h>

#include "art/runtime/runtime_int.h"

enum { ORIGIN_MAX_SUPERS = 64 };   /* class hierarchies are shallow; bounds a corrupt chain */

static const char *const origin_names[] = {
	[RT_ORIGIN_UNKNOWN] = "unknown",
	[RT_ORIGIN_BOOT] = "boot",
	[RT_ORIGIN_FRAMEWORK] = "framework",
	[RT_ORIGIN_APP] = "app",
};

const char *runtime_origin_name(enum rt_origin o)
{
	return (unsigned)o < sizeof(origin_names) / sizeof(origin_names[0]) ? origin_names[o] : "unknown";
}

/* An array class has no DexCache: its element class's DEX (array classes take their
 * component's class loader too: ClassLinker::CreateArrayClass, runtime/class_linker.cc @14). */
static const struct rt_class *element_class(const struct art_runtime *rt, size_t cls)
{
	const struct rt_class *k = &rt->classes[cls];
	for (unsigned depth = 0; k->component != RT_NONE && depth < RT_MAX_ARRAY_DEPTH; depth++)
		k = &rt->classes[k->component];
	return k;
}

const char *runtime_class_dex_location(const struct art_runtime *rt, size_t cls)
{
	if (cls >= rt->class_count)
		return NULL;
	const struct rt_class *k = element_class(rt, cls);
	if (k->dex == RT_NONE || k->dex >= rt->dex_count || !*rt->dexes[k->dex].location)
		return NULL;
	return rt->dexes[k->dex].location;
}

/* Files of the system partitions and APEX modules (not the app's: those are under /data). */
static bool system_location(const char *loc)
{
	static const char *const prefixes[] = { "/system/", "/system_ext/", "/apex/", "/product/", "/vendor/", "/odm/" };
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(loc, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

/* The class of the object at loader when it is java.lang.ClassLoader or a subclass of it,
 * NULL otherwise. */
static const struct rt_class *loader_class(const struct art_runtime *rt, uint32_t loader)
{
	uint32_t klass;

	/* a loader whose bytes are not captured is no known ClassLoader, not an error */
	if (!mirror_peek_u32(&rt->m, (uint64_t)loader + rt->layout->object.klass, &klass))
		return NULL;
	const struct rt_class *lk = runtime_class_at(rt, klass), *k = lk;
	for (unsigned n = 0; k && n < ORIGIN_MAX_SUPERS; n++) {
		if (k->name && !strcmp(k->name, "java.lang.ClassLoader"))
			return lk;
		k = k->super == RT_NONE ? NULL : &rt->classes[k->super];
	}
	return NULL;
}

/* A class with a class loader: its DEX's place decides (system partitions: framework; else
 * the app's), and without a location the loader (ART's boot class loader is null,
 * ClassLinker::IsBootClassLoader, runtime/class_linker.h @14: any other ClassLoader, a
 * PathClassLoader or DexClassLoader, is the app's). */
static enum rt_origin loaded_origin(struct art_runtime *rt, size_t cls, const char *loc, const char **why)
{
	uint32_t loader = rt->classes[cls].raw.class_loader;
	const struct rt_class *lk = loader_class(rt, loader);

	if (lk && lk->name && !strcmp(lk->name, "java.lang.BootClassLoader"))
		return RT_ORIGIN_BOOT;
	if (loc)
		return system_location(loc) ? RT_ORIGIN_FRAMEWORK : RT_ORIGIN_APP;
	if (lk)
		return RT_ORIGIN_APP;
	*why = rt_printf(rt, "class_loader_ 0x%x is no captured ClassLoader and the DEX is unknown", loader);
	return RT_ORIGIN_UNKNOWN;
}

/* A DEX in the folders Android installs and keeps apps in (the APK under /data/app, DEX files
 * an app loads from its own data) is the app's whatever the loader word says: the boot class
 * path is never there.  Else a null class loader is the boot class path. */
static bool app_location(const char *loc)
{
	static const char *const prefixes[] = { "/data/app/", "/data/data/", "/data/user/", "/data/user_de/" };
	for (size_t i = 0; loc && i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(loc, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

static enum rt_origin class_origin(struct art_runtime *rt, size_t cls, const char **why)
{
	const char *loc = runtime_class_dex_location(rt, cls);

	if (app_location(loc))
		return RT_ORIGIN_APP;
	return rt->classes[cls].raw.class_loader ? loaded_origin(rt, cls, loc, why) : RT_ORIGIN_BOOT;
}

int rt_classify_origins(struct art_runtime *rt, struct err *e)
{
	for (size_t i = 0; i < rt->class_count; i++) {
		struct rt_class *k = &rt->classes[i];
		const char *why = NULL;
		k->origin = class_origin(rt, i, &why);
		if (k->origin == RT_ORIGIN_UNKNOWN && !(k->origin_why = why))
			return rt_nomem(e);
	}
	return 0;
}

enum rt_origin runtime_class_origin(const struct art_runtime *rt, size_t cls)
{
	return cls < rt->class_count ? rt->classes[cls].origin : RT_ORIGIN_UNKNOWN;
}

const char *runtime_class_origin_why(const struct art_runtime *rt, size_t cls)
{
	if (cls >= rt->class_count)
		return "no such class";
	return rt->classes[cls].origin == RT_ORIGIN_UNKNOWN ? rt->classes[cls].origin_why : NULL;
}
