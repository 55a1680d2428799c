/* native_rep.h - the report of `artcarve native` (text or JSON through carver/base/rep.h). */
#ifndef ARTCARVE_NATIVE_REP_H
#define ARTCARVE_NATIVE_REP_H

#include "carver/base/rep.h"
#include "carver/image/image.h"
#include "carver/image/symbolize.h"
#include "carver/native/mdebug.h"

/* Writes the whole report of res (frames named through sz) to r. */
int native_report(struct rep *r, const struct image *img, const struct mdebug_result *res, struct symz *sz,
		  struct err *e);
/* "lib+0x.. (symbol+0x..)" of one frame into buf (for text, the database and the report). */
void native_frame_text(const struct symz_frame *f, char *buf, size_t n);

#endif
