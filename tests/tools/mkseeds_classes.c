/* mkseeds_classes.c - writes the seed corpus of tests/fuzz/fuzz_classes.c: generated ART 11
 * heaps (heapgen.h) in the fuzz input format
 * [u8 flags][u32le heap_len][u32le linear_len][heap][linear][DEX].
 * usage: mkseeds_classes DIR    (exit 0 ok, 1 error) */
#include <stdio.h>

#include "tests/tools/heapgen.h"

static void le32(uint8_t *p, size_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static int write_seed(const char *dir, const char *name, uint8_t flags, const struct hg *h, size_t heap_len)
{
	char path[512];
	const struct wbuf *dex = &h->dex;
	const uint8_t *heap = h->heap;
	uint8_t hdr[9] = { flags };
	le32(hdr + 1, heap_len);
	le32(hdr + 5, sizeof(h->linear));
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *fp = fopen(path, "wb");
	if (!fp)
		return -1;
	int bad = fwrite(hdr, 1, 9, fp) != 9 || fwrite(heap, 1, heap_len, fp) != heap_len ||
		  fwrite(h->linear, 1, sizeof(h->linear), fp) != sizeof(h->linear) ||
		  fwrite(dex->data, 1, dex->len, fp) != dex->len;
	return fclose(fp) != 0 || bad ? -1 : 0;
}

int main(int argc, char **argv)
{
	static struct hg h;
	const struct art_layout *l = art_layout_by_family("11");
	int rc = 0;

	if (argc != 2 || hg_build(&h)) {
		fprintf(stderr, "usage: mkseeds_classes DIR\n");
		return 1;
	}
	rc |= write_seed(argv[1], "heap-named", 1, &h, sizeof(h.heap));
	rc |= write_seed(argv[1], "heap-content", 0, &h, sizeof(h.heap));
	rc |= write_seed(argv[1], "heap-forced-11", 3, &h, sizeof(h.heap));
	rc |= write_seed(argv[1], "heap-cut", 1, &h, 1024);
	/* cycles: a class that is its own super and its own component */
	hg_put32(&h, hg_class_addr(HG_NODE) + l->klass.super_class, (uint32_t)hg_class_addr(HG_NODE));
	hg_put32(&h, hg_class_addr(HG_NODE_ARRAY) + l->klass.component_type, (uint32_t)hg_class_addr(HG_NODE_ARRAY));
	rc |= write_seed(argv[1], "heap-cycles", 1, &h, sizeof(h.heap));
	/* bogus counts: huge dex indexes and sizes */
	hg_put32(&h, hg_class_addr(HG_NODE) + l->klass.dex_class_def_idx, 0x7fffffff);
	hg_put32(&h, hg_class_addr(HG_STRING) + l->klass.object_size, 0xfffffff0);
	hg_put32(&h, HG_HEAP + 2304 + l->string.count, 0xfffffffe);
	rc |= write_seed(argv[1], "heap-bogus", 1, &h, sizeof(h.heap));
	hg_release(&h);
	return rc ? 1 : 0;
}
