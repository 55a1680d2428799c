/* fuzz_maps.c - a /proc/PID/maps listing through the parser and then through the join
 * with captured regions (img_finish): whatever the listing says (overlaps, duplicates,
 * huge ranges), the image must come out sorted and without overlaps. */
#include <stdlib.h>

#include "carver/image/image.h"
#include "carver/image/image_int.h"
#include "carver/image/maps.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t bytes[0x3000];
	struct maps m;
	struct image img;
	struct err e;
	int rc;

	maps_init(&m);
	if (maps_parse(&m, data, size, &e) == 0 && m.count <= 4096) {
		rc = img_begin(&img, "maps-dir", "fuzz", &e);
		if (rc == 0)
			rc = img_push(&img, 0x1000, 0x3000, IMG_PROT_UNKNOWN, "", 0, bytes, 0x1800, &e);
		if (rc == 0)
			rc = img_push(&img, 0x12c00000, 0x12c01000, IMG_PROT_R, "x", 0, bytes, 0x1000, &e);
		if (rc == 0 && img_finish(&img, &m, &e) != 0 && e.code != ERR_NOMEM)
			abort(); /* the join must never produce overlapping regions */
		for (size_t i = 1; rc == 0 && i < img.region_count; i++)
			if (img.regions[i - 1].end > img.regions[i].start)
				abort();
		img_close(&img);
	}
	maps_release(&m);
	return 0;
}
