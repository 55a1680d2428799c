/* cli_anomalies.c - anomaly counts and records in reports (see cli_anomalies.h). */
#include "carver/cli/cli_anomalies.h"

static void cli_anomalies_text(FILE *fp, const struct anomaly_sink *s)
{
	size_t shown = s->count < CLI_ANOMALIES_TEXT_RECORDS ? s->count : CLI_ANOMALIES_TEXT_RECORDS;
	const char *sep = "";

	if (s->total == 0) {
		fputs("anomalies: none\n", fp);
		return;
	}
	fprintf(fp, "anomalies: %llu (", (unsigned long long)s->total);
	for (unsigned c = 0; c < ANOM_CODE_COUNT; c++) {
		if (!s->per_code[c])
			continue;
		fprintf(fp, "%s%s %llu", sep, anomaly_code_name((enum anomaly_code)c), (unsigned long long)s->per_code[c]);
		sep = ", ";
	}
	fprintf(fp, "); %zu kept, first %zu:\n", s->count, shown);
	for (size_t i = 0; i < shown; i++) {
		const struct anomaly *a = &s->v[i];
		fprintf(fp, "  anomaly %s", anomaly_code_name(a->code));
		if (a->va != ERR_NO_VA)
			fprintf(fp, " 0x%llx", (unsigned long long)a->va);
		fprintf(fp, " [%s] %s: %s\n", a->space, err_code_name(a->cause), a->msg);
	}
}

static void cli_anomalies_json(struct rep *r, const char *key, const struct anomaly_sink *s)
{
	rep_open(r, key, false);
	rep_u(r, "total", s->total);
	rep_u(r, "kept", s->count);
	rep_open(r, "by_code", false);
	for (unsigned c = 0; c < ANOM_CODE_COUNT; c++)
		rep_u(r, anomaly_code_name((enum anomaly_code)c), s->per_code[c]);
	rep_close(r);
	rep_open(r, "records", true);
	for (size_t i = 0; i < s->count; i++) {
		const struct anomaly *a = &s->v[i];
		rep_open(r, NULL, false);
		rep_s(r, "code", anomaly_code_name(a->code));
		rep_s(r, "cause", err_code_name(a->cause));
		if (a->va == ERR_NO_VA)
			rep_null(r, "address");
		else
			rep_hex(r, "address", a->va);
		rep_s(r, "space", a->space);
		rep_s(r, "message", a->msg);
		rep_close(r);
	}
	rep_close(r);
	rep_close(r);
}

void cli_anomalies(struct rep *r, const char *key, const struct anomaly_sink *s)
{
	if (r->json)
		cli_anomalies_json(r, key, s);
	else
		cli_anomalies_text(r->fp, s);
}
