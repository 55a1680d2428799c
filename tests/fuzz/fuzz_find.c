/* fuzz_find.c - the indicator matchers (output/find/find_match.c) over arbitrary text, and
 * the secret field-name test over it as a NUL-terminated name: every match lies inside the
 * text and after the previous one (a bearer token that is a JWT is reported twice, at the
 * same place), spans at most FIND_MATCH_MAX characters, an e-mail holds one '@', a card's
 * digits pass the Luhn check. */
#include <stdlib.h>
#include <string.h>

#include "output/find/find_match.h"

struct fz {
	const uint8_t *text;
	size_t n, end, last_off, last_len;
};

static int check(void *arg, enum find_kind kind, size_t off, size_t len, struct err *e)
{
	struct fz *f = arg;
	uint8_t digits[32];
	size_t nd = 0;
	(void)e;
	if (off > f->n || len > f->n - off || len == 0 || len > FIND_MATCH_MAX)
		abort();
	if (off < f->end && !(kind == FIND_JWT && off == f->last_off && len == f->last_len))
		abort();
	if (kind == FIND_EMAIL && !memchr(f->text + off, '@', len))
		abort();
	if (kind == FIND_CARD) {
		for (size_t i = off; i < off + len; i++)
			if (f->text[i] >= '0' && f->text[i] <= '9' && nd < sizeof(digits))
				digits[nd++] = f->text[i];
		if (nd < 13 || nd > 19 || !find_luhn(digits, nd))
			abort();
	}
	f->last_off = off;
	f->last_len = len;
	f->end = off + len;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz f = { data, size, 0, 0, 0 };
	struct err e;
	char *name = malloc(size + 1);
	err_init(&e);
	if (find_match_text(data, size, check, &f, &e))
		abort();
	if (name) {
		memcpy(name, data, size);
		name[size] = 0;
		(void)find_secret_name(name);
		free(name);
	}
	return 0;
}
