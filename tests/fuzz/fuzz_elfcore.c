/* fuzz_elfcore.c - an ELF core from raw bytes through elfw and the image loader, then
 * reads at every region's edges; also elfw's section and symbol lookups on the same bytes.
 * Aborts if the loader ever writes to its input or breaks the region invariants. */
#include <stdlib.h>
#include <string.h>

#include "carver/wrap/elfw.h"
#include "carver/image/image.h"
#include "carver/image/image_int.h"

static void poke_regions(const struct image *img)
{
	uint8_t buf[32];
	struct cursor c;
	struct err e;

	for (size_t i = 0; i < img->region_count; i++) {
		const struct img_region *r = &img->regions[i];
		if (r->end <= r->start || r->data_len > r->end - r->start ||
		    (i > 0 && img->regions[i - 1].end > r->start))
			abort();
		img_read(img, r->start, buf, sizeof(buf), &e);
		img_read(img, r->end - 16, buf, sizeof(buf), &e);
		img_view(img, r->start + r->data_len / 2, 8, &c, &e);
		if (img_find(img, r->start) != r)
			abort();
	}
}

static void poke_elfw(const uint8_t *data, size_t size)
{
	struct elfw *w;
	struct elfw_section s;
	struct cursor c;
	struct err e;
	uint64_t v, n;

	if (elfw_open(&w, data, size, "fuzz", &e))
		return;
	if (elfw_section_by_name(w, ".rodata", &s, &e) == 0)
		elfw_section_bytes(w, &s, &c, &e);
	elfw_symbol(w, "oatdata", &v, &n, &e);
	elfw_va_to_offset(w, 0x1000, &v, &e);
	elfw_close(w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy = malloc(size ? size : 1);
	struct image img;
	struct err e;
	int rc;

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	rc = img_begin(&img, "elf-core", "fuzz", &e);
	if (rc == 0)
		rc = img_load_core_bytes(&img, copy, size, "fuzz", &e);
	if (rc == 0)
		rc = img_finish(&img, NULL, &e);
	if (rc == 0)
		poke_regions(&img);
	img_close(&img);
	poke_elfw(copy, size);
	if (memcmp(copy, data, size) != 0)
		abort(); /* the input must never be written */
	free(copy);
	return 0;
}
