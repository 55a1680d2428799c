/* err.h - the error value every fallible function in artcarve fills.
 *
 * Functions return 0 on success or -code on failure and describe the failure in a
 * caller-owned struct err (no global state).  ERR_SET records __FILE__:__LINE__ the way
 * SQLite's CORRUPT_BKPT does, so a report names the check that fired. */
#ifndef ARTCARVE_ERR_H
#define ARTCARVE_ERR_H

#include <stdint.h>

enum err_code {
	ERR_OK = 0,
	ERR_TRUNC = 1,   /* input ends before a structure does */
	ERR_CORRUPT,     /* a field holds a value the format forbids */
	ERR_UNSUP,       /* valid but not handled (version, feature) */
	ERR_UNMAPPED,    /* virtual address not captured in the image */
	ERR_NOMEM,
	ERR_IO,
	ERR_DB,
	ERR_USAGE,       /* bad command line */
	ERR_INTERNAL
};

#define ERR_NO_VA UINT64_MAX

struct err {
	enum err_code code;
	uint64_t va;            /* offset or address the error is about, ERR_NO_VA if none */
	const char *file;       /* source location of the check that failed */
	int line;
	char msg[512];
};

void err_init(struct err *e);
/* Fills *e (if non-NULL) and returns -code, so `return ERR_SET(...)` works. */
int err_set(struct err *e, enum err_code code, uint64_t va, const char *file, int line,
	    const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* Prepends "context: " to the message as the call stack unwinds; returns -e->code.  Like
 * err_set it accepts a NULL e; it then returns -ERR_INTERNAL (the code went with the error
 * object, the failure must not). */
int err_prefix(struct err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The return value of a function that fails with the error e holds: -e->code. */
static inline int err_rc(const struct err *e) { return -(int)e->code; }
const char *err_code_name(enum err_code code);
/* Process exit status for an error: 1 input rejected, 2 usage, 3 internal/io/nomem. */
int err_exit_status(const struct err *e);

#define ERR_SET(e, code, va, ...) err_set((e), (code), (va), __FILE__, __LINE__, __VA_ARGS__)

#endif
