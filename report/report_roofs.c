/* report/report_roofs.c - report.md's roofs section: the run's roofs, read
 * back from its `roof-...` context lines (harness/roofs.h), as a small table,
 * and how many rows got each verdict against them. */
#include "report_roofs.h"
#include "md_table.h"
#include "roofs.h"
#include "rundata.h"
#include "schema.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* One table row: device, roof, value with unit, how. */
static void roof_row(FILE *f, int d, const char *what, const roof_num *v, const char *unit)
{
    char val[48];
    if (!isfinite(v->v)) return;
    snprintf(val, sizeof val, "%.4g %s", v->v, unit);
    md_cell(f, roof_dev_name(d));
    md_cell(f, what);
    md_cell(f, val);
    md_cell(f, v->how);
    fprintf(f, "|\n");
}

void report_roofs_write(const rundata *rd, FILE *f)
{
    roofs rf;
    int any = 0;
    roofs_init(&rf);
    for (int i = 0; i < rd->t->ncontext; i++) any |= roofs_parse_line(&rf, rd->t->context[i]);
    if (!any) return;   /* a run from before the roofs */
    fprintf(f, "## Roofs\n\n");
    if (!rf.measured) {
        fprintf(f, "Roofs were not measured (%s): no row has `pct_roof` or a verdict.\n\n",
                rf.why[0] ? rf.why : "none");
        return;
    }
    fprintf(f, "Measured before the cases in %.2f s with the suites' own kernels; each row's "
               "`pct_roof` is its throughput against the lower of the compute roof of its "
               "dtype and `intensity` × the bandwidth roof (thresholds in `harness/roofs.h`).\n\n",
            rf.probe_s);
    fprintf(f, "| device | roof | value | how |\n|---|---|---|---|\n");
    char what[48];
    for (int d = 0; d < ROOF_NDEV; d++) {
        const roof_device *v = &rf.dev[d];
        if (!v->present) continue;
        roof_row(f, d, "bandwidth", &v->bw, "GB/s");
        for (int t = 0; t < DTYPE_COUNT; t++) {
            snprintf(what, sizeof what, "compute %s", dtype_name((dtype_t)t));
            roof_row(f, d, what, &v->compute[t], "GFLOP/s");
        }
        roof_row(f, d, "host to device", &v->h2d, "GB/s");
        roof_row(f, d, "device to host", &v->d2h, "GB/s");
        roof_row(f, d, "launch latency", &v->launch, "us");
        roof_row(f, d, "paper bandwidth", &v->peak_bw, "GB/s");
        for (int t = 0; t < DTYPE_COUNT; t++) {
            snprintf(what, sizeof what, "paper %s", dtype_name((dtype_t)t));
            roof_row(f, d, what, &v->peak[t], "GFLOP/s");
        }
    }
    static const char *const VERDICTS[] = {"at-roof", "ok", "low", "above-roof"};
    int n[4] = {0}, total = 0;
    for (int i = 0; i < rd_nrows(rd); i++)
        for (int k = 0; k < 4; k++)
            if (rd_is(rd, i, COL_VERDICT, VERDICTS[k])) n[k]++, total++;
    fprintf(f, "\nVerdicts: %d rows", total);
    for (int k = 0; k < 4; k++) fprintf(f, "%s %d %s", k ? "," : ":", n[k], VERDICTS[k]);
    fprintf(f, " (a low or above-roof row says why in its note).\n\n");
}
