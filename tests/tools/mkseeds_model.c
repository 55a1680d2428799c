/* mkseeds_model.c - writes the seed corpus of tests/fuzz/fuzz_model.c: the objects area of the
 * hand-made heap of tests/fuzz/model_fixture.h (a live Msg chain, a dropped one, a thread, an
 * int[], a JNI table entry at its start) under several flag bytes.
 * usage: mkseeds_model DIR    (exit 0 ok, 1 error) */
#include <stdio.h>

#include "tests/fuzz/model_fixture.h"

static int write_seed(const char *dir, uint8_t flags, const uint8_t *p, size_t n)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/seed-%02x", dir, flags);
	FILE *fp = fopen(path, "wb");
	if (!fp)
		return -1;
	int bad = fwrite(&flags, 1, 1, fp) != 1 || fwrite(p, 1, n, fp) != n;
	return fclose(fp) != 0 || bad ? -1 : 0;
}

int main(int argc, char **argv)
{
	static struct mf f;
	static const uint8_t flags[] = { 0x00, 0x01, 0x03, 0x09, 0x14, 0x27, 0x41 };
	size_t n = 0x1000;   /* 0x12c01000 - 0x12c02000: the sample objects */
	int rc = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: mkseeds_model DIR\n");
		return 1;
	}
	mf_build(&f);
	/* an IrtEntry {serial 0, the Object[]} at the start of the area (flags bit 0 maps it) */
	mf_put32(f.heap + (MF_OBJECTS - MF_HEAP) + 0x4, 0x12c01500);
	for (size_t i = 0; i < sizeof(flags) && rc == 0; i++)
		rc = write_seed(argv[1], flags[i], f.heap + (MF_OBJECTS - MF_HEAP), n);
	/* flags bit 7 reads Msg as an ArrayList: B's elementData the Object[], its size 8 (> 2) */
	mf_put32(f.heap + (0x12c01208 - MF_HEAP), 0x12c01500);
	if (rc == 0)
		rc = write_seed(argv[1], 0x80, f.heap + (MF_OBJECTS - MF_HEAP), n);
	if (rc)
		perror(argv[1]);
	return rc ? 1 : 0;
}
