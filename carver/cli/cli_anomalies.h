/* cli_anomalies.h - the anomaly sink (carver/base/anomaly.h) in a command's report: per-code
 * counts and the first records.  Commands that walk an image (info, classes) print it after
 * their own output so existing lines and keys stay. */
#ifndef ARTCARVE_CLI_ANOMALIES_H
#define ARTCARVE_CLI_ANOMALIES_H

#include "carver/base/anomaly.h"
#include "carver/base/rep.h"

#define CLI_ANOMALIES_TEXT_RECORDS 10u  /* records listed in text (JSON lists every kept one) */

/* JSON: key -> {"total": N, "kept": K, "by_code": {every code: n}, "records": [{"code",
 * "cause", "address" (null if none), "space", "message"}, ...]}.
 * Text: "anomalies: none", or "anomalies: N (code n, ...); K kept, first F:" and one line
 * "  anomaly CODE 0xADDR [SPACE] CAUSE: MESSAGE" per record shown. */
void cli_anomalies(struct rep *r, const char *key, const struct anomaly_sink *s);

#endif
