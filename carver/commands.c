/* commands.c - the subcommand table.  One row per command; implementations live in
 * carver/cmd_*.c (the top layer, which may include every other tree). */
#include "cli.h"

int cmd_version(int argc, char **argv);
int cmd_hprof_info(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_classes(int argc, char **argv);

const struct cli_command cli_commands[] = {
	{ "version", cmd_version, "print the version",
	  "usage: artcarve version\n\nPrints the artcarve version.\n" },
	{ "hprof-info", cmd_hprof_info, "summarise an HPROF heap dump (records, objects, roots, heaps)",
	  "usage: artcarve hprof-info FILE [--json]\n\n"
	  "Reads an HPROF heap dump (JAVA PROFILE 1.0, 1.0.1, 1.0.2 or Android's 1.0.3; 4- or 8-byte\n"
	  "identifiers), decodes every record and heap sub-record, and prints: the header, record\n"
	  "counts by tag, sub-record counts by tag, classes (CLASS_DUMP), instances, object arrays,\n"
	  "primitive arrays, roots by kind, strings, heap dump segments, and the Android heaps\n"
	  "(HEAP_DUMP_INFO names) with their object counts.  Objects in a segment before its first\n"
	  "HEAP_DUMP_INFO count in the \"default\" heap (a new segment resets the heap, as ART and\n"
	  "Dalvik write them).  Memory use does not grow with the file.\n\n"
	  "options:\n"
	  "  --json    one JSON object on stdout instead of text\n\n"
	  "examples:\n"
	  "  artcarve hprof-info dialer.android-hprof\n"
	  "  artcarve hprof-info --json heap.hprof | jq .instances\n\n"
	  "exit status: 0 ok, 1 not a valid HPROF file (the message names the offset), 2 usage,\n"
	  "3 I/O or out of memory.\n" },
	{ "info", cmd_info, "describe a process memory image (container, regions, ART runtime)",
	  "usage: artcarve info IMAGE [--maps FILE] [--json] [--hash] [--art-version V]\n\n"
	  "Opens a process memory image and prints its container and its regions (start, end,\n"
	  "protection, captured bytes, mapping name) with totals.  IMAGE is one of (detected\n"
	  "automatically; an ambiguous or unknown input is refused):\n"
	  "  an ELF core file (gdb gcore, kernel core dump): one region per PT_LOAD, file names\n"
	  "    from the NT_FILE note\n"
	  "  a directory with `maps` (/proc/PID/maps) and one file per region named\n"
	  "    START-END.bin or 0xSTART-0xEND.bin (hex)\n"
	  "  a memfetch directory (mfetch.lst + mem-NNN.bin / map-NNN.bin)\n"
	  "  a Volatility 2 linux_dump_map directory (task.PID.0xSTART.vma)\n"
	  "  a Volatility 3 linux.proc.Maps --dump directory (pid.PID.vma.0xS-0xE.dmp)\n"
	  "A LiME physical image is refused with a hint to extract the process first.  Regions of\n"
	  "the maps listing that nothing captured are listed with 0 captured bytes.\n"
	  "Then the ART runtime model (see `artcarve classes --help`): layout family and pointer\n"
	  "size with how each was found; ART's spaces and heap mappings, each with its kind (ART's\n"
	  "space class: RosAllocSpace, RegionSpace, DlMallocSpace, ZygoteSpace, ImageSpace,\n"
	  "LargeObjectMapSpace, FreeListSpace, ...), begin, end (end of the usable part, as ART's\n"
	  "Space::End), limit, and how it was identified: how=name from the mapping name\n"
	  "(/dev/ashmem/dalvik-NAME or [anon:dalvik-NAME]) or how=content from its bytes (image\n"
	  "header, RosAlloc page map, dlmalloc header, region layout, LOS allocation-info map);\n"
	  "boot/app images; OAT/VDEX/DEX files; the class count.\n\n"
	  "options:\n"
	  "  --maps FILE   join mapping names (and protections where the container has none)\n"
	  "                from this /proc/PID/maps listing, by address; a directory's own\n"
	  "                `maps` or `maps.txt` is used when --maps is not given\n"
	  "  --json        one JSON object: \"container\", \"path\", \"regions\" [{start, end,\n"
	  "                prot, captured, name}], \"totals\"\n"
	  "  --hash        add an FNV-1a 64 hash of each region's captured bytes\n"
	  "  --art-version V  use ART layout family V (e.g. 11) instead of detecting it\n"
	  "                JSON adds \"art\", \"spaces\", \"boot_images\", \"files\", \"classes\"\n\n"
	  "examples:\n"
	  "  artcarve info core --maps maps.txt\n"
	  "  artcarve info --json --hash memfetch-dir/\n\n"
	  "exit status: 0 ok, 1 input rejected (unknown, ambiguous or damaged image; the message\n"
	  "names the file and offset), 2 usage, 3 I/O or out of memory.\n" },
	{ "convert", cmd_convert, "convert an Android HPROF (1.0.3) to standard HPROF 1.0.2 (like hprof-conv)",
	  "usage: artcarve convert [--app-only] [-v] IN.hprof OUT.hprof\n\n"
	  "Converts an Android heap dump (JAVA PROFILE 1.0.3) into a standard 1.0.2 file that Eclipse\n"
	  "MAT, jhat and VisualVM load, exactly as Android's hprof-conv does: the header says 1.0.2,\n"
	  "HEAP_DUMP_INFO records are dropped, the Android roots (interned string, finalizing,\n"
	  "debugger, reference cleanup, VM internal, JNI monitor, unreachable) become ROOT_UNKNOWN,\n"
	  "PRIMITIVE_ARRAY_NODATA becomes an empty PRIMITIVE_ARRAY_DUMP, heap dump record lengths\n"
	  "are recomputed, and everything else is copied byte for byte.\n"
	  "Differences from hprof-conv: 1.0.1/1.0.2 input is accepted and copied with its header\n"
	  "unchanged (hprof-conv refuses it); a NODATA array keeps element count 0 so the record is\n"
	  "well-formed; a heap dump record that would become empty is left out, never written with\n"
	  "length 0.  Memory use does not grow with the file; OUT appears only when complete.\n\n"
	  "options:\n"
	  "  --app-only, -z  also drop instance and array dumps that HEAP_DUMP_INFO puts in a heap\n"
	  "                  other than \"app\" (zygote, image); class dumps and roots stay\n"
	  "  -v, --verbose   print record and sub-record counts on stderr\n\n"
	  "examples:\n"
	  "  artcarve convert dialer.android-hprof dialer.hprof\n"
	  "  artcarve convert --app-only dialer.android-hprof dialer-app.hprof\n\n"
	  "exit status: 0 ok, 1 input is not a valid HPROF file (the message names the offset),\n"
	  "2 usage, 3 I/O or out of memory.\n" },
	{ "classes", cmd_classes, "list every java.lang.Class of a process image with its field layout",
	  "usage: artcarve classes IMAGE [--maps FILE] [--json] [--art-version V]\n\n"
	  "Builds the ART runtime model of a process memory image (any container `info` accepts) and\n"
	  "prints every java.lang.Class found in its image and heap spaces: address, name, super\n"
	  "class, object size, component type (arrays), and the declared instance fields (offset,\n"
	  "type, name) in declaration order.  Retired class placeholders are not listed (ART's own\n"
	  "HPROF leaves them out too).\n"
	  "The layout family is taken from --art-version, else from an image header in the image,\n"
	  "else from content (java.lang.Class is the object whose class is itself; every table\n"
	  "row is tried on it).  Names come from Class.name_, the primitive type, the component\n"
	  "type, or the class's DEX (through its DexCache; when DexFile memory is not captured the\n"
	  "DEX whose class_defs agree with the classes is used).  Fields come from Class.ifields_\n"
	  "when captured (fields_from=ifields_), else from the DEX class_data with offsets derived by\n"
	  "ART's field-linking rules (fields_from=dex) and checked against object_size_ and the\n"
	  "reference-field count (\"unchecked\" marks a class where they disagree).\n\n"
	  "text output, one line per class then one per field:\n"
	  "  class 0xADDR NAME super=NAME object_size=N component=NAME name_from=HOW fields_from=HOW\n"
	  "    field +OFFSET TYPE NAME\n\n"
	  "options:\n"
	  "  --maps FILE        mapping names from this /proc/PID/maps listing (see `info`)\n"
	  "  --json             one JSON object: layout, pointer_size, count, retired, classes [...]\n"
	  "  --art-version V    use layout family V (e.g. 11) instead of detecting it\n\n"
	  "examples:\n"
	  "  artcarve classes core --maps maps.txt\n"
	  "  artcarve classes --json --art-version 11 core | jq '.classes[0]'\n\n"
	  "exit status: 0 ok, 1 input rejected (not an ART process image, damaged container), 2 usage\n"
	  "(also an unknown --art-version), 3 I/O or out of memory.\n" },
};

const unsigned cli_command_count = sizeof(cli_commands) / sizeof(cli_commands[0]);
