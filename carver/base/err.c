/* err.c - error value helpers (see err.h). */
#include "carver/base/err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Cheap enough for once per object: the message is only read after err_set wrote it. */
void err_init(struct err *e)
{
	e->code = ERR_OK;
	e->va = ERR_NO_VA;
	e->file = NULL;
	e->line = 0;
	e->msg[0] = '\0';
}

int err_set(struct err *e, enum err_code code, uint64_t va, const char *file, int line,
	    const char *fmt, ...)
{
	if (e) {
		va_list ap;
		e->code = code;
		e->va = va;
		e->file = file;
		e->line = line;
		va_start(ap, fmt);
		vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
		va_end(ap);
	}
	return -(int)code;
}

int err_prefix(struct err *e, const char *fmt, ...)
{
	char head[256], old[sizeof(e->msg)];
	va_list ap;

	if (!e)
		return -(int)ERR_INTERNAL;
	va_start(ap, fmt);
	vsnprintf(head, sizeof(head), fmt, ap);
	va_end(ap);
	size_t hl;

	memcpy(old, e->msg, sizeof(old));
	hl = strlen(head);
	if (hl > sizeof(e->msg) - 3)
		hl = sizeof(e->msg) - 3;
	memcpy(e->msg, head, hl);
	memcpy(e->msg + hl, ": ", 2);
	hl += 2;
	{
		size_t ol = strnlen(old, sizeof(old));
		if (ol > sizeof(e->msg) - 1 - hl)
			ol = sizeof(e->msg) - 1 - hl;
		memcpy(e->msg + hl, old, ol);
		e->msg[hl + ol] = '\0';
	}
	return err_rc(e);
}

const char *err_code_name(enum err_code code)
{
	static const char *const names[] = {
		"ok", "truncated", "corrupt", "unsupported", "unmapped",
		"out of memory", "i/o error", "database error", "usage", "internal error",
	};
	if ((unsigned)code < sizeof(names) / sizeof(names[0]))
		return names[code];
	return "unknown error";
}

int err_exit_status(const struct err *e)
{
	switch (e->code) {
	case ERR_TRUNC: case ERR_CORRUPT: case ERR_UNSUP: case ERR_UNMAPPED:
		return 1;
	case ERR_USAGE:
		return 2;
	default:
		return 3;
	}
}
