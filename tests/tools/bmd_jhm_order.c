/* bmd_jhm_order.c - prints bmd_java_hashmap_order for key sets read from stdin, in the format
 * of tests/tools/JHashMapOrder.java: one line of decimal keys in, one line "i,j,...," out. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "carver/base/xalloc.h"
#include "output/bmd/bmd_codec.h"

static int order_line(char *line)
{
	uint32_t *keys = NULL;
	size_t *order = NULL, n = 0, cap = 0;
	struct err e;
	int rc = 0;

	err_init(&e);
	for (char *tok = strtok(line, " \t\r\n"); tok; tok = strtok(NULL, " \t\r\n")) {
		char *end;
		unsigned long long v;
		errno = 0;
		v = strtoull(tok, &end, 10);
		if (errno || *end || v > UINT32_MAX) {
			fprintf(stderr, "bad key '%s'\n", tok);
			rc = -1;
			goto out;
		}
		if (XALLOC_GROW(keys, cap, n + 1, 64)) {
			rc = -1;
			goto out;
		}
		keys[n++] = (uint32_t)v;
	}
	order = xcalloc(n ? n : 1, sizeof(*order));
	if (!order || bmd_java_hashmap_order(keys, n, order, &e) != 0) {
		fprintf(stderr, "%s\n", order ? e.msg : "out of memory");
		rc = -1;
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		printf("%zu,", order[i]);
	printf("\n");
out:
	xfree(keys);
	xfree(order);
	return rc;
}

int main(void)
{
	static char line[1 << 20];

	while (fgets(line, sizeof(line), stdin)) {
		if (!strchr(line, '\n') && !feof(stdin)) {
			fprintf(stderr, "line longer than %zu bytes\n", sizeof(line) - 1);
			return 1;
		}
		if (order_line(line))
			return 1;
	}
	return 0;
}
