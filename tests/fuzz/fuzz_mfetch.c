/* fuzz_mfetch.c - memfetch's mfetch.lst index through its parser; every entry it accepts
 * must have a sane range and a plain file name. */
#include <stdlib.h>
#include <string.h>

#include "carver/image/image_int.h"

static int check_entry(void *ctx, const struct img_mfetch_entry *ent, struct err *e)
{
	(void)ctx;
	(void)e;
	if (ent->end <= ent->start || strchr(ent->file, '/') || ent->file[0] == '\0' || !ent->name)
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct arena names;
	struct err e;

	arena_init(&names);
	img_mfetch_parse(data, size, &names, check_entry, NULL, &e);
	arena_release(&names);
	return 0;
}
