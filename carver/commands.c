/* commands.c - the subcommand table.  One row per command; implementations live in
 * carver/cmd_*.c (the top layer, which may include every other tree). */
#include "cli.h"

int cmd_version(int argc, char **argv);
int cmd_hprof_info(int argc, char **argv);

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
};

const unsigned cli_command_count = sizeof(cli_commands) / sizeof(cli_commands[0]);
