/* bmd_records.c - lists the records of a BMD file, one per line: "OFFSET TAG NAME LENGTH"
 * (decimal offset and byte length), for the sweep test's truncation points and for reading
 * a BMD by eye.  Exit 0, or 1 with the reader's error after the records read so far. */
#include <stdio.h>

#include "carver/base/mapfile.h"
#include "output/bmd/bmd.h"

int main(int argc, char **argv)
{
	struct mapfile m;
	struct bmd_reader r;
	struct bmd_record rec;
	struct err e;
	int rc;

	if (argc != 2) {
		fprintf(stderr, "usage: bmd_records FILE.bmd\n");
		return 2;
	}
	err_init(&e);
	if (mapfile_open(&m, argv[1], &e)) {
		fprintf(stderr, "bmd_records: %s\n", e.msg);
		return 2;
	}
	if ((rc = bmd_reader_init(&r, m.data, m.len, argv[1], &e)) == 0) {
		printf("0 0 HEADER %zu\n", r.c.pos);
		while ((rc = bmd_next(&r, &rec, &e)) == 1)
			printf("%llu %u %s %llu\n", (unsigned long long)rec.offset, rec.tag, bmd_tag_name(rec.tag),
			       (unsigned long long)(r.c.pos - rec.offset));
	}
	if (rc < 0)
		fprintf(stderr, "bmd_records: %s\n", e.msg);
	bmd_reader_release(&r);
	mapfile_close(&m);
	return rc < 0;
}
