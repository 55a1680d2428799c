/* hprofw.c - placeholder until the HPROF writer lands. */
#include "tests/synth/synth.h"

int hprofw_write(struct model *m, const char *path, struct err *e);
int hprofw_write(struct model *m, const char *path, struct err *e)
{
	(void)m; (void)path; (void)e;
	return 0;
}
