/* mirror_strings.c - test tool: decodes java.lang.String objects of a process image with the
 * runtime model's mirror decoder (art/mirror/mirror.h: the layout row and pointer size the
 * runtime found), one address per input line, and prints
 *   0xADDR<TAB>ok<TAB>HEX        HEX = the UTF-8 bytes of the value
 *   0xADDR<TAB>error<TAB>MESSAGE
 * Used by tests/shell/test_synth_mirror.sh to compare with the generator's truth.
 * usage: mirror_strings [--maps MAPS] IMAGE < ADDRESSES    exit 0 ok, 1 bad input, 2 usage */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "art/mirror/mirror.h"
#include "art/runtime/runtime.h"
#include "carver/base/wbuf.h"
#include "carver/image/image.h"
#include "rosalloc/probe/probe.h"

enum { MAX_CHARS = 1 << 20 };

static void print_one(const struct mirror *m, uint64_t addr)
{
	struct wbuf b;
	struct err e;

	err_init(&e);
	wbuf_init(&b);
	if (mirror_string(m, addr, MAX_CHARS, &b, &e) == 0) {
		printf("0x%llx\tok\t", (unsigned long long)addr);
		for (size_t i = 0; i < b.len; i++)
			printf("%02x", b.data[i]);
		printf("\n");
	} else {
		printf("0x%llx\terror\t%s\n", (unsigned long long)addr, e.msg);
	}
	wbuf_release(&b);
}

int main(int argc, char **argv)
{
	struct img_open_opts io = { NULL };
	const struct runtime_opts ro = { .probes = &probe_spaces };
	struct image img;
	struct art_runtime rt;
	struct err e;
	char line[128];
	int i = 1;

	if (argc == 4 && !strcmp(argv[1], "--maps")) {
		io.maps_path = argv[2];
		i = 3;
	}
	if (i != argc - 1) {
		fprintf(stderr, "usage: mirror_strings [--maps MAPS] IMAGE < ADDRESSES\n");
		return 2;
	}
	err_init(&e);
	if (img_open(&img, argv[i], &io, &e)) {
		fprintf(stderr, "mirror_strings: %s\n", e.msg);
		return 1;
	}
	if (runtime_open(&rt, &img, &ro, &e)) {
		fprintf(stderr, "mirror_strings: %s\n", e.msg);
		img_close(&img);
		return 1;
	}
	printf("layout\t%s\tpointer\t%u\n", rt.layout->family, rt.m.pointer_size);
	while (fgets(line, sizeof(line), stdin)) {
		char *end;
		unsigned long long a = strtoull(line, &end, 0);
		if (end != line)
			print_one(&rt.m, a);
	}
	runtime_close(&rt);
	img_close(&img);
	return 0;
}
