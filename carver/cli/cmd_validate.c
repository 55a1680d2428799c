/* cmd_validate.c - `artcarve validate RESULT TRUTH [--json] [--per-class N] [--examples N]`:
 * compares a carved heap with the truth of the same moment (output/compare/validate.h).
 * Both files are mapped read-only; a zstd-compressed one is first decompressed to an unlinked
 * temporary file (carver/wrap/zstdw.h), so memory stays proportional to the object count. */
#include <stdio.h>
#include <string.h>

#include "carver/base/mapfile.h"
#include "carver/cli/cli.h"
#include "carver/wrap/zstdw.h"
#include "output/compare/validate.h"

#define VALIDATE_ZSTD_MAX ((uint64_t)1 << 40)   /* refuse to decompress more than 1 TiB */

/* Maps path; a zstd file is replaced by its decompressed contents. */
static int validate_open(struct mapfile *m, const char *path, struct err *e)
{
	struct mapfile z;
	int rc = mapfile_open(m, path, e);

	if (rc || !zstdw_probe(m->data, m->len))
		return rc;
	rc = zstdw_map(m->data, m->len, path, VALIDATE_ZSTD_MAX, &z, e);
	mapfile_close(m);
	if (!rc)
		*m = z;
	return rc;
}

struct validate_opts {
	bool json;
	uint64_t per_class, examples;
};

static const struct opt validate_opts[] = {
	OPT_ROW_FLAG("--json", NULL, struct validate_opts, json),
	OPT_ROW_UINT("--per-class", struct validate_opts, per_class, "a count", 0, 1000000),
	OPT_ROW_UINT("--examples", struct validate_opts, examples, "a count", 0, 1000000),
	OPT_ROW_END,
};
static const char *const validate_pos[] = { "RESULT", "TRUTH", NULL };
const struct opt_spec cmd_validate_spec = { validate_opts, validate_pos, 2, 2 };

int cmd_validate(int argc, char **argv)
{
	struct validate_opts o = { .per_class = 20, .examples = 10 };
	struct vd_options opt;
	struct mapfile res, tru;
	struct vd_report *r = NULL;
	struct err e;
	size_t npos;
	int rc;

	if ((rc = cli_parse(argc, argv, &cmd_validate_spec, &o, &npos)) != CLI_GO_ON)
		return rc;
	opt.per_class = (unsigned)o.per_class;
	opt.examples = (unsigned)o.examples;
	err_init(&e);
	memset(&res, 0, sizeof(res));
	memset(&tru, 0, sizeof(tru));
	if ((rc = validate_open(&res, argv[1], &e)) || (rc = validate_open(&tru, argv[2], &e))) {
		mapfile_close(&res);
		return cli_report(argv[0], &e);
	}
	/* both buffers are our own private read-only mappings */
	struct vd_input ri = { res.data, res.len, argv[1], true }, ti = { tru.data, tru.len, argv[2], true };
	rc = vd_compare(&ri, &ti, &opt, &r, &e);
	if (!rc)
		rc = o.json ? vd_report_json(r, stdout, &e) : vd_report_text(r, stdout, &e);
	vd_report_free(r);
	mapfile_close(&res);
	mapfile_close(&tru);
	return rc ? cli_report(argv[0], &e) : CLI_OK;
}
