/* fuzz_art_image.c - ImageHeader, LZ4 loading, the object walk and class naming over one
 * buffer (the image alone in its address space, at its image_begin; no DEX lookup). */
#include <stddef.h>
#include <stdint.h>

#include "art/format/art_image.h"
#include "art/format/art_layout.h"
#include "art/mirror/mirror_walk.h"
#include "carver/base/wbuf.h"
#include "carver/image/image.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct art_image img;
	struct mirror_walk w;
	struct err e;
	const struct art_layout *lay;

	err_init(&e);
	if (art_image_load(&img, data, size, &e))
		return 0;
	lay = art_layout_by_image_version(img.h.version);
	if (lay) {
		struct image view;
		struct mirror m = { &view, lay, img.h.pointer_size == 8 ? 8 : 4 };
		img_init_empty(&view, "fuzz");
		if (img_add_region_mem(&view, img.h.image_begin, img.data, img.len, IMG_PROT_R, "image", &e) == 0) {
			mirror_walk_image(&w, &m, &img, &e);
			for (size_t i = 0; i < w.class_count; i++) {
				struct wbuf b;
				wbuf_init(&b);
				mw_class_name(&m, w.classes[i], NULL, NULL, &b, &e);
				wbuf_release(&b);
			}
			mirror_walk_release(&w);
		}
		img_close(&view);
	}
	art_image_release(&img);
	return 0;
}
