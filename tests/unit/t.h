/* t.h - minimal test macros.  Every check prints what it compared when it fails, and
 * T_DONE() prints "RESULT <passed> <failed>" for tests/run.sh to add up. */
#ifndef ARTCARVE_T_H
#define ARTCARVE_T_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static unsigned t_passed, t_failed;

#define T_CHECK(cond, ...)                                                          \
	do {                                                                        \
		if (cond) {                                                         \
			t_passed++;                                                 \
		} else {                                                            \
			t_failed++;                                                 \
			printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);      \
			printf(__VA_ARGS__);                                        \
			printf("\n");                                               \
		}                                                                   \
	} while (0)

#define T_EQ_U(got, want)                                                           \
	do {                                                                        \
		unsigned long long t_g_ = (unsigned long long)(got);                \
		unsigned long long t_w_ = (unsigned long long)(want);               \
		T_CHECK(t_g_ == t_w_, "%s = %llu (0x%llx), expected %llu (0x%llx)", \
			#got, t_g_, t_g_, t_w_, t_w_);                              \
	} while (0)

#define T_EQ_I(got, want)                                                           \
	do {                                                                        \
		long long t_g_ = (long long)(got), t_w_ = (long long)(want);        \
		T_CHECK(t_g_ == t_w_, "%s = %lld, expected %lld", #got, t_g_, t_w_); \
	} while (0)

#define T_EQ_S(got, want)                                                           \
	do {                                                                        \
		const char *t_g_ = (got), *t_w_ = (want);                           \
		T_CHECK(t_g_ && !strcmp(t_g_, t_w_), "%s = \"%s\", expected \"%s\"", \
			#got, t_g_ ? t_g_ : "(null)", t_w_);                        \
	} while (0)

#define T_SECTION(name) printf("-- %s\n", name)

#define T_DONE()                                                                    \
	do {                                                                        \
		printf("RESULT %u %u\n", t_passed, t_failed);                       \
		return t_failed ? 1 : 0;                                            \
	} while (0)

#endif
