/* fam.c - per-version layout families of the generator (its own table, independent of art/).
 *
 * Sources (labels as in doc/sources.md): mirror layouts
 * from runtime/mirror/{object,class,string,dex_cache,reference,class_loader}.h, image header
 * from runtime/image.h, class roots from runtime/class_linker.h (5.0-9) and
 * runtime/class_root.h (10, 11), RosAlloc from runtime/gc/allocator/rosalloc.{h,cc}, LOS flags
 * from runtime/gc/space/large_object_space.cc, mapping names from runtime/gc/heap.cc, each at
 * the family's release commit.  Field names are the Java names of libcore's declarations
 * (camelCase of the C++ member); offsets are the C++ layout, which ART asserts equal to the
 * Java layout (klass_selftest re-derives them with LinkFields). */
#include <string.h>

#include "tests/synth/synth.h"

/* ---- java.lang.Object (all versions: object.h) ---- */
static const struct fam_field f_object[] = {
	{"shadow$_klass_", "Ljava/lang/Class;", 0}, {"shadow$_monitor_", "I", 4}, {0, 0, 0}};

/* ---- java.lang.Class ---- */
static const struct fam_field f_class_50[] = {
	{"classLoader", "Ljava/lang/ClassLoader;", 8}, {"componentType", "Ljava/lang/Class;", 12},
	{"dexCache", "Ljava/lang/DexCache;", 16}, {"directMethods", "[Ljava/lang/reflect/ArtMethod;", 20},
	{"iFields", "[Ljava/lang/reflect/ArtField;", 24}, {"ifTable", "[Ljava/lang/Object;", 28},
	{"imTable", "[Ljava/lang/reflect/ArtMethod;", 32}, {"name", "Ljava/lang/String;", 36},
	{"sFields", "[Ljava/lang/reflect/ArtField;", 40}, {"superClass", "Ljava/lang/Class;", 44},
	{"verifyErrorClass", "Ljava/lang/Class;", 48}, {"virtualMethods", "[Ljava/lang/reflect/ArtMethod;", 52},
	{"vtable", "[Ljava/lang/reflect/ArtMethod;", 56}, {"accessFlags", "I", 60}, {"classSize", "I", 64},
	{"clinitThreadId", "I", 68}, {"dexClassDefIndex", "I", 72}, {"dexTypeIndex", "I", 76},
	{"numReferenceInstanceFields", "I", 80}, {"numReferenceStaticFields", "I", 84},
	{"objectSize", "I", 88}, {"primitiveType", "I", 92}, {"referenceInstanceOffsets", "I", 96},
	{"referenceStaticOffsets", "I", 100}, {"status", "I", 104}, {0, 0, 0}};
static const struct fam_field f_class_51[] = {
	{"classLoader", "Ljava/lang/ClassLoader;", 8}, {"componentType", "Ljava/lang/Class;", 12},
	{"dexCache", "Ljava/lang/DexCache;", 16}, {"dexCacheStrings", "[Ljava/lang/String;", 20},
	{"directMethods", "[Ljava/lang/reflect/ArtMethod;", 24}, {"iFields", "[Ljava/lang/reflect/ArtField;", 28},
	{"ifTable", "[Ljava/lang/Object;", 32}, {"name", "Ljava/lang/String;", 36},
	{"sFields", "[Ljava/lang/reflect/ArtField;", 40}, {"superClass", "Ljava/lang/Class;", 44},
	{"verifyErrorClass", "Ljava/lang/Class;", 48}, {"virtualMethods", "[Ljava/lang/reflect/ArtMethod;", 52},
	{"vtable", "[Ljava/lang/reflect/ArtMethod;", 56}, {"accessFlags", "I", 60}, {"classSize", "I", 64},
	{"clinitThreadId", "I", 68}, {"dexClassDefIndex", "I", 72}, {"dexTypeIndex", "I", 76},
	{"numReferenceInstanceFields", "I", 80}, {"numReferenceStaticFields", "I", 84},
	{"objectSize", "I", 88}, {"primitiveType", "I", 92}, {"referenceInstanceOffsets", "I", 96},
	{"referenceStaticOffsets", "I", 100}, {"status", "I", 104}, {0, 0, 0}};
static const struct fam_field f_class_60[] = {
	{"classLoader", "Ljava/lang/ClassLoader;", 8}, {"componentType", "Ljava/lang/Class;", 12},
	{"dexCache", "Ljava/lang/DexCache;", 16}, {"dexCacheStrings", "[Ljava/lang/String;", 20},
	{"ifTable", "[Ljava/lang/Object;", 24}, {"name", "Ljava/lang/String;", 28},
	{"superClass", "Ljava/lang/Class;", 32}, {"verifyErrorClass", "Ljava/lang/Class;", 36},
	{"vtable", "Ljava/lang/Object;", 40}, {"accessFlags", "I", 44}, {"directMethods", "J", 48},
	{"iFields", "J", 56}, {"sFields", "J", 64}, {"virtualMethods", "J", 72}, {"classSize", "I", 80},
	{"clinitThreadId", "I", 84}, {"dexClassDefIndex", "I", 88}, {"dexTypeIndex", "I", 92},
	{"numDirectMethods", "I", 96}, {"numInstanceFields", "I", 100},
	{"numReferenceInstanceFields", "I", 104}, {"numReferenceStaticFields", "I", 108},
	{"numStaticFields", "I", 112}, {"numVirtualMethods", "I", 116}, {"objectSize", "I", 120},
	{"primitiveType", "I", 124}, {"referenceInstanceOffsets", "I", 128}, {"status", "I", 132},
	{0, 0, 0}};
static const struct fam_field f_class_70[] = {
	{"annotationType", "Ljava/lang/Class;", 8}, {"classLoader", "Ljava/lang/ClassLoader;", 12},
	{"componentType", "Ljava/lang/Class;", 16}, {"dexCache", "Ljava/lang/DexCache;", 20},
	{"ifTable", "[Ljava/lang/Object;", 24}, {"name", "Ljava/lang/String;", 28},
	{"superClass", "Ljava/lang/Class;", 32}, {"verifyError", "Ljava/lang/Object;", 36},
	{"vtable", "Ljava/lang/Object;", 40}, {"accessFlags", "I", 44}, {"dexCacheStrings", "J", 48},
	{"iFields", "J", 56}, {"methods", "J", 64}, {"sFields", "J", 72}, {"classFlags", "I", 80},
	{"classSize", "I", 84}, {"clinitThreadId", "I", 88}, {"dexClassDefIndex", "I", 92},
	{"dexTypeIndex", "I", 96}, {"numReferenceInstanceFields", "I", 100},
	{"numReferenceStaticFields", "I", 104}, {"objectSize", "I", 108}, {"primitiveType", "I", 112},
	{"referenceInstanceOffsets", "I", 116}, {"status", "I", 120}, {"copiedMethodsOffset", "S", 124},
	{"virtualMethodsOffset", "S", 126}, {0, 0, 0}};
static const struct fam_field f_class_80[] = {
	{"classLoader", "Ljava/lang/ClassLoader;", 8}, {"componentType", "Ljava/lang/Class;", 12},
	{"dexCache", "Ljava/lang/DexCache;", 16}, {"extData", "Ldalvik/system/ClassExt;", 20},
	{"ifTable", "[Ljava/lang/Object;", 24}, {"name", "Ljava/lang/String;", 28},
	{"superClass", "Ljava/lang/Class;", 32}, {"vtable", "Ljava/lang/Object;", 36},
	{"iFields", "J", 40}, {"methods", "J", 48}, {"sFields", "J", 56}, {"accessFlags", "I", 64},
	{"classFlags", "I", 68}, {"classSize", "I", 72}, {"clinitThreadId", "I", 76},
	{"dexClassDefIndex", "I", 80}, {"dexTypeIndex", "I", 84},
	{"numReferenceInstanceFields", "I", 88}, {"numReferenceStaticFields", "I", 92},
	{"objectSize", "I", 96}, {"objectSizeAllocFastPath", "I", 100}, {"primitiveType", "I", 104},
	{"referenceInstanceOffsets", "I", 108}, {"status", "I", 112}, {"copiedMethodsOffset", "S", 116},
	{"virtualMethodsOffset", "S", 118}, {0, 0, 0}};

/* 16 (class.h @R16): sfields_ merged into fields_ (kept here under the iFields name it
 * replaces), every later member 8 bytes lower; 112 bytes */
static const struct fam_field f_class_16[] = {
	{"classLoader", "Ljava/lang/ClassLoader;", 8}, {"componentType", "Ljava/lang/Class;", 12},
	{"dexCache", "Ljava/lang/DexCache;", 16}, {"extData", "Ldalvik/system/ClassExt;", 20},
	{"ifTable", "[Ljava/lang/Object;", 24}, {"name", "Ljava/lang/String;", 28},
	{"superClass", "Ljava/lang/Class;", 32}, {"vtable", "Ljava/lang/Object;", 36},
	{"iFields", "J", 40}, {"methods", "J", 48}, {"accessFlags", "I", 56},
	{"classFlags", "I", 60}, {"classSize", "I", 64}, {"clinitThreadId", "I", 68},
	{"dexClassDefIndex", "I", 72}, {"dexTypeIndex", "I", 76},
	{"numReferenceInstanceFields", "I", 80}, {"numReferenceStaticFields", "I", 84},
	{"objectSize", "I", 88}, {"objectSizeAllocFastPath", "I", 92}, {"primitiveType", "I", 96},
	{"referenceInstanceOffsets", "I", 100}, {"status", "I", 104}, {"copiedMethodsOffset", "S", 108},
	{"virtualMethodsOffset", "S", 110}, {0, 0, 0}};

/* ---- java.lang.String ---- */
static const struct fam_field f_string_50[] = {
	{"value", "[C", 8}, {"count", "I", 12}, {"hashCode", "I", 16}, {"offset", "I", 20}, {0, 0, 0}};
static const struct fam_field f_string_60[] = {{"count", "I", 8}, {"hashCode", "I", 12}, {0, 0, 0}};

/* ---- java.lang.DexCache ---- */
static const struct fam_field f_dexcache_50[] = {
	{"dex", "Lcom/android/dex/Dex;", 8}, {"location", "Ljava/lang/String;", 12},
	{"resolvedFields", "[Ljava/lang/reflect/ArtField;", 16},
	{"resolvedMethods", "[Ljava/lang/reflect/ArtMethod;", 20}, {"resolvedTypes", "[Ljava/lang/Class;", 24},
	{"strings", "[Ljava/lang/String;", 28}, {"dexFile", "J", 32}, {0, 0, 0}};
static const struct fam_field f_dexcache_60[] = {
	{"dex", "Lcom/android/dex/Dex;", 8}, {"location", "Ljava/lang/String;", 12},
	{"resolvedFields", "[J", 16}, {"resolvedMethods", "[J", 20}, {"resolvedTypes", "[Ljava/lang/Class;", 24},
	{"strings", "[Ljava/lang/String;", 28}, {"dexFile", "J", 32}, {0, 0, 0}};
static const struct fam_field f_dexcache_70[] = {
	{"dex", "Lcom/android/dex/Dex;", 8}, {"location", "Ljava/lang/String;", 12}, {"dexFile", "J", 16},
	{"resolvedFields", "J", 24}, {"resolvedMethods", "J", 32}, {"resolvedTypes", "J", 40},
	{"strings", "J", 48}, {"numResolvedFields", "I", 56}, {"numResolvedMethods", "I", 60},
	{"numResolvedTypes", "I", 64}, {"numStrings", "I", 68}, {0, 0, 0}};
static const struct fam_field f_dexcache_80[] = {
	{"location", "Ljava/lang/String;", 8}, {"numResolvedCallSites", "I", 12}, {"dexFile", "J", 16},
	{"resolvedCallSites", "J", 24}, {"resolvedFields", "J", 32}, {"resolvedMethodTypes", "J", 40},
	{"resolvedMethods", "J", 48}, {"resolvedTypes", "J", 56}, {"strings", "J", 64},
	{"numResolvedFields", "I", 72}, {"numResolvedMethodTypes", "I", 76},
	{"numResolvedMethods", "I", 80}, {"numResolvedTypes", "I", 84}, {"numStrings", "I", 88}, {0, 0, 0}};
static const struct fam_field f_dexcache_10[] = {
	{"location", "Ljava/lang/String;", 8}, {"numPreResolvedStrings", "I", 12}, {"dexFile", "J", 16},
	{"preResolvedStrings", "J", 24}, {"resolvedCallSites", "J", 32}, {"resolvedFields", "J", 40},
	{"resolvedMethodTypes", "J", 48}, {"resolvedMethods", "J", 56}, {"resolvedTypes", "J", 64},
	{"strings", "J", 72}, {"numResolvedCallSites", "I", 80}, {"numResolvedFields", "I", 84},
	{"numResolvedMethodTypes", "I", 88}, {"numResolvedMethods", "I", 92},
	{"numResolvedTypes", "I", 96}, {"numStrings", "I", 100}, {0, 0, 0}};
static const struct fam_field f_dexcache_11[] = {
	{"classLoader", "Ljava/lang/ClassLoader;", 8}, {"location", "Ljava/lang/String;", 12},
	{"dexFile", "J", 16}, {"preResolvedStrings", "J", 24}, {"resolvedCallSites", "J", 32},
	{"resolvedFields", "J", 40}, {"resolvedMethodTypes", "J", 48}, {"resolvedMethods", "J", 56},
	{"resolvedTypes", "J", 64}, {"strings", "J", 72}, {"numPreResolvedStrings", "I", 80},
	{"numResolvedCallSites", "I", 84}, {"numResolvedFields", "I", 88},
	{"numResolvedMethodTypes", "I", 92}, {"numResolvedMethods", "I", 96},
	{"numResolvedTypes", "I", 100}, {"numStrings", "I", 104}, {0, 0, 0}};

/* 14-15 (dex_cache.h @R14U, @R15): no counts; (hash cache, full array) u64 pairs */
static const struct fam_field f_dexcache_14[] = {
	{"classLoader", "Ljava/lang/ClassLoader;", 8}, {"location", "Ljava/lang/String;", 12},
	{"dexFile", "J", 16}, {"resolvedCallSites", "J", 24}, {"resolvedFields", "J", 32},
	{"resolvedFieldsArray", "J", 40}, {"resolvedMethodTypes", "J", 48},
	{"resolvedMethodTypesArray", "J", 56}, {"resolvedMethods", "J", 64},
	{"resolvedMethodsArray", "J", 72}, {"resolvedTypes", "J", 80}, {"resolvedTypesArray", "J", 88},
	{"strings", "J", 96}, {"stringsArray", "J", 104}, {0, 0, 0}};

/* ---- java.lang.ref.Reference (all versions) ---- */
static const struct fam_field f_reference[] = {
	{"pendingNext", "Ljava/lang/ref/Reference;", 8}, {"queue", "Ljava/lang/ref/ReferenceQueue;", 12},
	{"queueNext", "Ljava/lang/ref/Reference;", 16}, {"referent", "Ljava/lang/Object;", 20}, {0, 0, 0}};

/* ---- java.lang.ClassLoader ---- */
static const struct fam_field f_loader_50[] = {
	{"packages", "Ljava/util/HashMap;", 8}, {"parent", "Ljava/lang/ClassLoader;", 12},
	{"proxyCache", "Ljava/util/Map;", 16}, {0, 0, 0}};
static const struct fam_field f_loader_70[] = {
	{"packages", "Ljava/util/HashMap;", 8}, {"parent", "Ljava/lang/ClassLoader;", 12},
	{"proxyCache", "Ljava/util/Map;", 16}, {"allocator", "J", 24}, {"classTable", "J", 32}, {0, 0, 0}};

/* 14-15 (class_loader.h @R14U, @R15): + name_ first, no padding_ */
static const struct fam_field f_loader_14[] = {
	{"name", "Ljava/lang/String;", 8}, {"packages", "Ljava/util/HashMap;", 12},
	{"parent", "Ljava/lang/ClassLoader;", 16}, {"proxyCache", "Ljava/util/Map;", 20},
	{"allocator", "J", 24}, {"classTable", "J", 32}, {0, 0, 0}};

/* ---- 5.x mirror ArtField / ArtMethod (mirror/art_field.h, art_method.h @5.0) ---- */
static const struct fam_field f_artfield_5[] = {
	{"declaringClass", "Ljava/lang/Class;", 8}, {"accessFlags", "I", 12},
	{"fieldDexIndex", "I", 16}, {"offset", "I", 20}, {0, 0, 0}};
static const struct fam_field f_artmethod_50[] = {
	{"declaringClass", "Ljava/lang/Class;", 8},
	{"dexCacheResolvedMethods", "[Ljava/lang/reflect/ArtMethod;", 12},
	{"dexCacheResolvedTypes", "[Ljava/lang/Class;", 16}, {"dexCacheStrings", "[Ljava/lang/String;", 20},
	{"entryPointFromInterpreter", "J", 24}, {"entryPointFromJni", "J", 32},
	{"entryPointFromQuickCompiledCode", "J", 40}, {"gcMap", "J", 48}, {"accessFlags", "I", 56},
	{"dexCodeItemOffset", "I", 60}, {"dexMethodIndex", "I", 64}, {"methodIndex", "I", 68}, {0, 0, 0}};
static const struct fam_field f_none[] = {{0, 0, 0}};

/* ---- class roots (descriptors, in enum order) ---- */
#define ROOTS_HEAD "Ljava/lang/Class;", "Ljava/lang/Object;", "[Ljava/lang/Class;", \
	"[Ljava/lang/Object;", "Ljava/lang/String;", "Ljava/lang/DexCache;", "Ljava/lang/ref/Reference;"
#define ROOTS_PRIMS "Z", "B", "C", "D", "F", "I", "J", "S", "V", \
	"[Z", "[B", "[C", "[D", "[F", "[I", "[J", "[S", "[Ljava/lang/StackTraceElement;"
static const char *const roots_5[] = {ROOTS_HEAD, "Ljava/lang/reflect/ArtField;",
	"Ljava/lang/reflect/ArtMethod;", "Ljava/lang/reflect/Proxy;", "[Ljava/lang/String;",
	"[Ljava/lang/reflect/ArtField;", "[Ljava/lang/reflect/ArtMethod;", "Ljava/lang/ClassLoader;",
	"Ljava/lang/Throwable;", "Ljava/lang/ClassNotFoundException;", "Ljava/lang/StackTraceElement;",
	ROOTS_PRIMS};
#define ROOTS_REFLECT "Ljava/lang/reflect/Constructor;", "Ljava/lang/reflect/Field;", \
	"Ljava/lang/reflect/Method;", "Ljava/lang/reflect/Proxy;", "[Ljava/lang/String;", \
	"[Ljava/lang/reflect/Constructor;", "[Ljava/lang/reflect/Field;", "[Ljava/lang/reflect/Method;"
#define ROOTS_TAIL "Ljava/lang/ClassLoader;", "Ljava/lang/Throwable;", \
	"Ljava/lang/ClassNotFoundException;", "Ljava/lang/StackTraceElement;"
static const char *const roots_6[] = {ROOTS_HEAD, ROOTS_REFLECT, ROOTS_TAIL, ROOTS_PRIMS};
static const char *const roots_8[] = {ROOTS_HEAD, ROOTS_REFLECT, "Ljava/lang/invoke/CallSite;",
	"Ljava/lang/invoke/MethodHandleImpl;", "Ljava/lang/invoke/MethodHandles$Lookup;",
	"Ljava/lang/invoke/MethodType;", ROOTS_TAIL, "Ldalvik/system/EmulatedStackFrame;", ROOTS_PRIMS,
	"Ldalvik/system/ClassExt;"};
#define ROOTS_VARHANDLES "Ljava/lang/invoke/VarHandle;", "Ljava/lang/invoke/FieldVarHandle;", \
	"Ljava/lang/invoke/ArrayElementVarHandle;", "Ljava/lang/invoke/ByteArrayViewVarHandle;", \
	"Ljava/lang/invoke/ByteBufferViewVarHandle;"
static const char *const roots_9[] = {ROOTS_HEAD, ROOTS_REFLECT, "Ljava/lang/invoke/CallSite;",
	"Ljava/lang/invoke/MethodHandleImpl;", "Ljava/lang/invoke/MethodHandles$Lookup;",
	"Ljava/lang/invoke/MethodType;", ROOTS_VARHANDLES, ROOTS_TAIL,
	"Ldalvik/system/EmulatedStackFrame;", ROOTS_PRIMS, "Ldalvik/system/ClassExt;"};
static const char *const roots_10[] = {ROOTS_HEAD, ROOTS_REFLECT, "Ljava/lang/invoke/CallSite;",
	"Ljava/lang/invoke/MethodHandle;", "Ljava/lang/invoke/MethodHandleImpl;",
	"Ljava/lang/invoke/MethodHandles$Lookup;", "Ljava/lang/invoke/MethodType;", ROOTS_VARHANDLES,
	ROOTS_TAIL, "Ldalvik/system/EmulatedStackFrame;", ROOTS_PRIMS, "[Ljava/lang/ClassLoader;",
	"Ldalvik/system/ClassExt;"};
/* 12 (class_root.h @R12S): ClassNotFoundException and the primitive classes moved to the end,
 * after [ClassLoader and ClassExt; 13+ (@R13T, @R14U, @R15): + StaticFieldVarHandle */
#define ROOTS_12_TAIL "Ljava/lang/ClassLoader;", "Ljava/lang/Throwable;", "Ljava/lang/StackTraceElement;", \
	"Ldalvik/system/EmulatedStackFrame;", "[Z", "[B", "[C", "[D", "[F", "[I", "[J", "[S", \
	"[Ljava/lang/StackTraceElement;", "[Ljava/lang/ClassLoader;", "Ldalvik/system/ClassExt;", \
	"Ljava/lang/ClassNotFoundException;", "Z", "B", "C", "D", "F", "I", "J", "S", "V"
#define ROOTS_12_INVOKE "Ljava/lang/invoke/CallSite;", "Ljava/lang/invoke/MethodHandle;", \
	"Ljava/lang/invoke/MethodHandleImpl;", "Ljava/lang/invoke/MethodHandles$Lookup;", \
	"Ljava/lang/invoke/MethodType;", "Ljava/lang/invoke/VarHandle;", "Ljava/lang/invoke/FieldVarHandle;"
static const char *const roots_12[] = {ROOTS_HEAD, ROOTS_REFLECT, ROOTS_12_INVOKE,
	"Ljava/lang/invoke/ArrayElementVarHandle;", "Ljava/lang/invoke/ByteArrayViewVarHandle;",
	"Ljava/lang/invoke/ByteBufferViewVarHandle;", ROOTS_12_TAIL};
static const char *const roots_13[] = {ROOTS_HEAD, ROOTS_REFLECT, ROOTS_12_INVOKE,
	"Ljava/lang/invoke/StaticFieldVarHandle;", "Ljava/lang/invoke/ArrayElementVarHandle;",
	"Ljava/lang/invoke/ByteArrayViewVarHandle;", "Ljava/lang/invoke/ByteBufferViewVarHandle;",
	ROOTS_12_TAIL};
#define N(a) (unsigned)(sizeof(a) / sizeof((a)[0]))

#define M(arr, sz) {arr, sz}
#define COMMON_50 .m_object = M(f_object, 8), .m_reference = M(f_reference, 24), \
	.m_artfield = M(f_artfield_5, 24), .m_artmethod = M(f_artmethod_50, 72)
#define COMMON_60 .m_object = M(f_object, 8), .m_reference = M(f_reference, 24), \
	.m_artfield = M(f_none, 0), .m_artmethod = M(f_none, 0)

static const struct fam fams[] = {
	{.version = "5.0", .api = 21, .link_rule = 2, .image_version = "009", .oat_version = "039",
	 .ros = FAM_ROS_BITMAP, .ashmem = true, .str = FAM_STR_ARRAY, .fields = FAM_FIELDS_MIRROR,
	 .hdr = FAM_HDR_A, .hdr_size = 52, .ros_brackets = 34, .ros_tl_brackets = 11,
	 .ros_5_0_pages = true, .los_free_flag = 0x08000000, .los_zygote_flag = 0,
	 .zygote_name = "non moving space", .nonmoving_name = "alloc space",
	 .los_freelist_name = "large object space", .main_name = "main space", .main1_name = "main space",
	 .n_image_roots = 8, .root_dex_caches = 6, .root_class_roots = 7,
	 .class_roots = roots_5, .n_class_roots = N(roots_5), .status_initialized = 10,
	 .m_class = M(f_class_50, 108), .m_string = M(f_string_50, 24),
	 .m_dexcache = M(f_dexcache_50, 40), .m_classloader = M(f_loader_50, 20), COMMON_50},
	{.version = "5.1", .api = 22, .link_rule = 1, .image_version = "012", .oat_version = "045",
	 .ros = FAM_ROS_BITMAP, .ashmem = true, .str = FAM_STR_ARRAY, .fields = FAM_FIELDS_MIRROR,
	 .hdr = FAM_HDR_A, .hdr_size = 56, .ros_brackets = 34, .ros_tl_brackets = 8,
	 .los_free_flag = 0x08000000, .los_zygote_flag = 0,
	 .zygote_name = "zygote space", .nonmoving_name = "non moving space",
	 .los_freelist_name = "large object space", .main_name = "main space", .main1_name = "main space",
	 .n_image_roots = 9, .root_dex_caches = 7, .root_class_roots = 8,
	 .class_roots = roots_5, .n_class_roots = N(roots_5), .status_initialized = 10,
	 .m_class = M(f_class_51, 108), .m_string = M(f_string_50, 24),
	 .m_dexcache = M(f_dexcache_50, 40), .m_classloader = M(f_loader_50, 20), COMMON_50},
	{.version = "6.0", .api = 23, .image_version = "017", .oat_version = "064",
	 .ros = FAM_ROS_BITMAP, .ashmem = true, .str = FAM_STR_INLINE16, .fields = FAM_FIELDS_RAW,
	 .hdr = FAM_HDR_B, .hdr_size = 140, .n_sections = 5, .n_methods = 6,
	 .ros_brackets = 34, .ros_tl_brackets = 8, .los_free_flag = 0x80000000,
	 .los_zygote_flag = 0x40000000, .zygote_name = "zygote space", .nonmoving_name = "non moving space",
	 .los_freelist_name = "free list large object space", .main_name = "main space",
	 .main1_name = "main space 1", .n_image_roots = 2, .root_dex_caches = 0, .root_class_roots = 1,
	 .class_roots = roots_6, .n_class_roots = N(roots_6), .status_initialized = 10,
	 .prim_type_shift = 16, .ref_offsets_lsb = true,
	 .artmethod_size32 = 40, .artmethod_size64 = 56, .artmethod_quick32 = 36, .artmethod_quick64 = 48,
	 .m_class = M(f_class_60, 136), .m_string = M(f_string_60, 16),
	 .m_dexcache = M(f_dexcache_60, 40), .m_classloader = M(f_loader_50, 20), COMMON_60},
#define FAM_7(v, api_, img, n_sec, size) \
	{.version = v, .api = api_, .image_version = img, .oat_version = "088", \
	 .ros = FAM_ROS_FREELIST, .ashmem = true, .str = FAM_STR_INLINE16, .fields = FAM_FIELDS_LPA, \
	 .hdr = FAM_HDR_C, .hdr_size = size, .n_sections = n_sec, .n_methods = 6, \
	 .ros_brackets = 42, .ros_tl_brackets = 16, .los_free_flag = 0x80000000, \
	 .los_zygote_flag = 0x40000000, .zygote_name = "zygote space", .nonmoving_name = "non moving space", \
	 .los_freelist_name = "free list large object space", .main_name = "main space", \
	 .main1_name = "main space 1", .n_image_roots = 2, .root_dex_caches = 0, .root_class_roots = 1, \
	 .class_roots = roots_6, .n_class_roots = N(roots_6), .status_initialized = 10, .class_flags = 1, \
	 .prim_type_shift = 16, .ref_offsets_lsb = true, \
	 .artmethod_size32 = 36, .artmethod_size64 = 56, .artmethod_quick32 = 32, .artmethod_quick64 = 48, \
	 .m_class = M(f_class_70, 128), .m_string = M(f_string_60, 16), \
	 .m_dexcache = M(f_dexcache_70, 72), .m_classloader = M(f_loader_70, 40), COMMON_60}
	FAM_7("7.0", 24, "029", 9, 200),
	FAM_7("7.1", 25, "030", 10, 208),
#define FAM_CC(v, api_, img, oat, ashmem_, hdr_, hsize, nsec, nmeth, nroots, roots, status, dc, dcsz, am32, am64, q32, q64, poison) \
	{.version = v, .api = api_, .image_version = img, .oat_version = oat, \
	 .ros = FAM_ROS_NONE, .region = true, .ashmem = ashmem_, .str = FAM_STR_COMPRESSED, \
	 .fields = FAM_FIELDS_LPA, .hdr = hdr_, .hdr_size = hsize, .n_sections = nsec, .n_methods = nmeth, \
	 .ros_brackets = 42, .ros_tl_brackets = 16, .los_free_flag = 0x80000000, \
	 .los_zygote_flag = 0x40000000, .zygote_name = "zygote space", .nonmoving_name = "non moving space", \
	 .los_freelist_name = "free list large object space", .main_name = "main space (region space)", \
	 .main1_name = NULL, .n_image_roots = nroots, .root_dex_caches = 0, .root_class_roots = 1, \
	 .class_roots = roots, .n_class_roots = N(roots), .status_initialized = status, .class_flags = 1, \
	 .prim_type_shift = 16, .ref_offsets_lsb = true, .artmethod_size32 = am32, .artmethod_size64 = am64, \
	 .artmethod_quick32 = q32, .artmethod_quick64 = q64, .region_size = 256 * 1024, \
	 .poison_unevac = poison, .m_class = M(f_class_80, 120), .m_string = M(f_string_60, 16), \
	 .m_dexcache = M(dc, dcsz), .m_classloader = M(f_loader_70, 40), COMMON_60}
	/* status: 8.0 Initialized = 10, 8.1 = 11, 9+ = 14 << 28 (class_status.h) */
	FAM_CC("8.0", 26, "043", "124", true, FAM_HDR_C, 216, 10, 7, 2, roots_8, 10, f_dexcache_80, 92, 32, 48, 28, 40, false),
	FAM_CC("8.1", 27, "046", "131", true, FAM_HDR_C, 216, 10, 7, 2, roots_8, 11, f_dexcache_80, 92, 32, 48, 28, 40, false),
	FAM_CC("9", 28, "056", "138", true, FAM_HDR_C, 232, 10, 9, 2, roots_9, (int)(14u << 28), f_dexcache_80, 92, 28, 40, 24, 32, false),
	FAM_CC("10", 29, "074", "170", false, FAM_HDR_D, 248, 12, 9, 7, roots_10, (int)(14u << 28), f_dexcache_10, 104, 28, 40, 24, 32, true),
	FAM_CC("11", 30, "085", "183", false, FAM_HDR_E, 256, 12, 9, 3, roots_10, (int)(14u << 28), f_dexcache_11, 108, 28, 40, 24, 32, true),
/* 12-15: the ART module (doc/android12-16.md).  LinkFields places small fields in the
 * smallest gap (link_rule 3: class_linker.cc LinkFieldsHelper @R12S, from oat 190).  Header E
 * with 11 (12, 13), 12 (14) or 13 (15) sections (runtime/image.h @R12S..R14U, runtime/oat/image.h @R15); ArtMethod without
 * dex_code_item_offset_ (art_method.h @R12S): 24/32 bytes, quick entry at 20/24; dead objects
 * in unevacuated regions poisoned in 12-13 only (kPoisonDeadObjectsInUnevacuatedRegions in
 * runtime/gc/space/region_space.cc: true @R12S, R13T; kIsDebugBuild @R14U, R15).  cmc: the
 * 14+ module can run the userfaultfd mark-compact collector instead (runtime/gc/heap.cc,
 * collector/mark_compact.cc @R14U; absent @R13T): build/synth --heap cmc.  p16: gPageSize is a
 * runtime value of 4 or 16 KiB from 15 on (libartbase/base/globals.h @R15): --page 16k */
#define FAM_MOD(v, api_, img, oat, hsize, nsec, roots, dc, dcsz, loader, poison, cmc, p16) \
	{.version = v, .api = api_, .link_rule = 3, .image_version = img, .oat_version = oat, \
	 .ros = FAM_ROS_NONE, .region = true, .ashmem = false, .str = FAM_STR_COMPRESSED, \
	 .fields = FAM_FIELDS_LPA, .hdr = FAM_HDR_E, .hdr_size = hsize, .n_sections = nsec, .n_methods = 9, \
	 .ros_brackets = 42, .ros_tl_brackets = 16, .los_free_flag = 0x80000000, \
	 .los_zygote_flag = 0x40000000, .zygote_name = "zygote space", .nonmoving_name = "non moving space", \
	 .los_freelist_name = "free list large object space", .main_name = "main space (region space)", \
	 .main1_name = NULL, .n_image_roots = 3, .root_dex_caches = 0, .root_class_roots = 1, \
	 .class_roots = roots, .n_class_roots = N(roots), .status_initialized = (int)(14u << 28), .class_flags = 1, \
	 .prim_type_shift = 16, .ref_offsets_lsb = true, .artmethod_size32 = 24, .artmethod_size64 = 32, \
	 .artmethod_quick32 = 20, .artmethod_quick64 = 24, .artmethod_no_code_item = true, .cmc_ok = cmc, \
	 .page16_ok = p16, \
	 .region_size = 256 * 1024, .poison_unevac = poison, .m_class = M(f_class_80, 120), \
	 .m_string = M(f_string_60, 16), .m_dexcache = M(dc, dcsz), .m_classloader = M(loader, 40), COMMON_60}
	FAM_MOD("12", 31, "099", "195", 248, 11, roots_12, f_dexcache_11, 108, f_loader_70, true, false, false),
	FAM_MOD("13", 33, "106", "225", 248, 11, roots_13, f_dexcache_11, 108, f_loader_70, true, false, false),
	/* 14 as first released (UP1A, image 108 with oat 230: GrapheneOS tag 2023100800): the
	 * 7.0-13 ClassLoader; name_ came on 2023-06-08 (class_loader.h), oat 231 on 2023-07-03 */
	FAM_MOD("14-oat230", 34, "108", "230", 256, 12, roots_13, f_dexcache_14, 112, f_loader_70, false, true, false),
	FAM_MOD("14", 34, "108", "239", 256, 12, roots_13, f_dexcache_14, 112, f_loader_14, false, true, false),
	FAM_MOD("15", 35, "111", "244", 264, 13, roots_13, f_dexcache_14, 112, f_loader_14, false, true, true),
	/* 16 (android16-security-release, image 118, oat 259: runtime/oat/image.cc, oat.h @R16):
	 * header, sections, roots, DexCache, ClassLoader, ArtMethod as 15; Class with one fields_
	 * array (class.h, class_linker.cc LoadClassHelper @R16) and array class flags with the
	 * component size shift (class_flags.h, class_linker.cc @R16); the region space as 15
	 * (region_space.h @R16), CMC and 16 KiB pages as 15 (heap.cc, globals.h @R16) */
	{.version = "16", .api = 36, .link_rule = 3, .image_version = "118", .oat_version = "259",
	 .ros = FAM_ROS_NONE, .region = true, .ashmem = false, .str = FAM_STR_COMPRESSED,
	 .fields = FAM_FIELDS_LPA, .hdr = FAM_HDR_E, .hdr_size = 264, .n_sections = 13, .n_methods = 9,
	 .ros_brackets = 42, .ros_tl_brackets = 16, .los_free_flag = 0x80000000,
	 .los_zygote_flag = 0x40000000, .zygote_name = "zygote space", .nonmoving_name = "non moving space",
	 .los_freelist_name = "free list large object space", .main_name = "main space (region space)",
	 .main1_name = NULL, .n_image_roots = 3, .root_dex_caches = 0, .root_class_roots = 1,
	 .class_roots = roots_13, .n_class_roots = N(roots_13), .status_initialized = (int)(14u << 28),
	 .class_flags = 1, .prim_type_shift = 16, .ref_offsets_lsb = true, .artmethod_size32 = 24,
	 .artmethod_size64 = 32, .artmethod_quick32 = 20, .artmethod_quick64 = 24,
	 .artmethod_no_code_item = true, .cmc_ok = true, .page16_ok = true, .fields_merged = true,
	 .array_shift_flags = true, .region_size = 256 * 1024, .poison_unevac = false,
	 .m_class = M(f_class_16, 112), .m_string = M(f_string_60, 16), .m_dexcache = M(f_dexcache_14, 112),
	 .m_classloader = M(f_loader_14, 40), COMMON_60},
};

const struct fam *fam_find(const char *version)
{
	for (unsigned i = 0; i < N(fams); i++)
		if (strcmp(fams[i].version, version) == 0)
			return &fams[i];
	return NULL;
}

const struct fam *fam_at(unsigned i) { return i < N(fams) ? &fams[i] : NULL; }
unsigned fam_count(void) { return N(fams); }

uint32_t fam_off(const struct fam_mirror *m, const char *name)
{
	for (const struct fam_field *f = m->fields; f && f->name; f++)
		if (strcmp(f->name, name) == 0)
			return f->offset;
	return UINT32_MAX;
}
