/* hprof.c - the HPROF format's types and tags by name (see hprof.h). */
#include "output/hprof/hprof.h"

#include <stddef.h>

unsigned hprof_type_size(unsigned type, unsigned id_size)
{
	switch (type) {
	case HPROF_T_OBJECT: return id_size;
	case HPROF_T_BOOLEAN: case HPROF_T_BYTE: return 1;
	case HPROF_T_CHAR: case HPROF_T_SHORT: return 2;
	case HPROF_T_FLOAT: case HPROF_T_INT: return 4;
	case HPROF_T_DOUBLE: case HPROF_T_LONG: return 8;
	default: return 0;
	}
}

const char *hprof_type_name(unsigned type)
{
	static const char *const names[] = {
		[HPROF_T_OBJECT] = "object", [HPROF_T_BOOLEAN] = "boolean", [HPROF_T_CHAR] = "char",
		[HPROF_T_FLOAT] = "float", [HPROF_T_DOUBLE] = "double", [HPROF_T_BYTE] = "byte",
		[HPROF_T_SHORT] = "short", [HPROF_T_INT] = "int", [HPROF_T_LONG] = "long",
	};
	return type < sizeof(names) / sizeof(names[0]) ? names[type] : NULL;
}

const char *hprof_tag_name(unsigned tag)
{
	switch (tag) {
	case HPROF_STRING: return "STRING";
	case HPROF_LOAD_CLASS: return "LOAD_CLASS";
	case HPROF_UNLOAD_CLASS: return "UNLOAD_CLASS";
	case HPROF_STACK_FRAME: return "STACK_FRAME";
	case HPROF_STACK_TRACE: return "STACK_TRACE";
	case HPROF_ALLOC_SITES: return "ALLOC_SITES";
	case HPROF_HEAP_SUMMARY: return "HEAP_SUMMARY";
	case HPROF_START_THREAD: return "START_THREAD";
	case HPROF_END_THREAD: return "END_THREAD";
	case HPROF_HEAP_DUMP: return "HEAP_DUMP";
	case HPROF_CPU_SAMPLES: return "CPU_SAMPLES";
	case HPROF_CONTROL_SETTINGS: return "CONTROL_SETTINGS";
	case HPROF_HEAP_DUMP_SEGMENT: return "HEAP_DUMP_SEGMENT";
	case HPROF_HEAP_DUMP_END: return "HEAP_DUMP_END";
	default: return NULL;
	}
}

const char *hprof_sub_name(unsigned tag)
{
	switch (tag) {
	case HPROF_ROOT_UNKNOWN: return "ROOT_UNKNOWN";
	case HPROF_ROOT_JNI_GLOBAL: return "ROOT_JNI_GLOBAL";
	case HPROF_ROOT_JNI_LOCAL: return "ROOT_JNI_LOCAL";
	case HPROF_ROOT_JAVA_FRAME: return "ROOT_JAVA_FRAME";
	case HPROF_ROOT_NATIVE_STACK: return "ROOT_NATIVE_STACK";
	case HPROF_ROOT_STICKY_CLASS: return "ROOT_STICKY_CLASS";
	case HPROF_ROOT_THREAD_BLOCK: return "ROOT_THREAD_BLOCK";
	case HPROF_ROOT_MONITOR_USED: return "ROOT_MONITOR_USED";
	case HPROF_ROOT_THREAD_OBJECT: return "ROOT_THREAD_OBJECT";
	case HPROF_CLASS_DUMP: return "CLASS_DUMP";
	case HPROF_INSTANCE_DUMP: return "INSTANCE_DUMP";
	case HPROF_OBJ_ARRAY_DUMP: return "OBJECT_ARRAY_DUMP";
	case HPROF_PRIM_ARRAY_DUMP: return "PRIMITIVE_ARRAY_DUMP";
	case HPROF_HEAP_DUMP_INFO: return "HEAP_DUMP_INFO";
	case HPROF_ROOT_INTERNED_STRING: return "ROOT_INTERNED_STRING";
	case HPROF_ROOT_FINALIZING: return "ROOT_FINALIZING";
	case HPROF_ROOT_DEBUGGER: return "ROOT_DEBUGGER";
	case HPROF_ROOT_REFERENCE_CLEANUP: return "ROOT_REFERENCE_CLEANUP";
	case HPROF_ROOT_VM_INTERNAL: return "ROOT_VM_INTERNAL";
	case HPROF_ROOT_JNI_MONITOR: return "ROOT_JNI_MONITOR";
	case HPROF_ROOT_UNREACHABLE: return "ROOT_UNREACHABLE";
	case HPROF_PRIM_ARRAY_NODATA: return "PRIMITIVE_ARRAY_NODATA";
	default: return NULL;
	}
}

bool hprof_sub_is_root(unsigned tag)
{
	switch (tag) {
	case HPROF_ROOT_UNKNOWN: case HPROF_ROOT_JNI_GLOBAL: case HPROF_ROOT_JNI_LOCAL:
	case HPROF_ROOT_JAVA_FRAME: case HPROF_ROOT_NATIVE_STACK: case HPROF_ROOT_STICKY_CLASS:
	case HPROF_ROOT_THREAD_BLOCK: case HPROF_ROOT_MONITOR_USED: case HPROF_ROOT_THREAD_OBJECT:
	case HPROF_ROOT_INTERNED_STRING: case HPROF_ROOT_FINALIZING: case HPROF_ROOT_DEBUGGER:
	case HPROF_ROOT_REFERENCE_CLEANUP: case HPROF_ROOT_VM_INTERNAL: case HPROF_ROOT_JNI_MONITOR:
	case HPROF_ROOT_UNREACHABLE:
		return true;
	default:
		return false;
	}
}
