/* report/report.c - the two entry points: load the run's CSV once, then
 * charts, report.md and JSON (see report.h). */
#include "report.h"
#include "json.h"
#include "plots.h"
#include "report_md.h"
#include "rundata.h"

#include <stdio.h>

/* 0 done, 1 an output failed, 2 the CSV could not be read or is invalid,
 * or (refuse_empty: an earlier run re-rendered) has no rows: nothing to
 * report is not a pass. A run just finished with no rows still gets its
 * report.md, saying so. */
static int report_run(const char *dir, const char *json_path, int plots, int refuse_empty)
{
    rundata rd;
    char err[1024];
    if (rd_load(&rd, dir, err, sizeof err)) {
        fprintf(stderr, "bench: %s\n", err);
        return 2;
    }
    if (refuse_empty && rd_nrows(&rd) == 0) {
        fprintf(stderr, "bench: %s: no rows: the run measured nothing (not a pass)\n", rd.csv_path);
        rd_free(&rd);
        return 2;
    }
    int rc = 0;
    if (plots && plots_render(&rd, dir)) rc = 1; /* report.md still written */
    if (report_md_write(&rd, dir)) rc = 1;
    if (json_path && json_write(&rd, json_path)) rc = 1;
    rd_free(&rd);
    return rc;
}

int report_finish(const char *run_dir, const char *json_path, int plots)
{
    return report_run(run_dir, json_path, plots, 0) ? -1 : 0;
}

int report_rerender(const char *run_dir, const char *json_path, int plots)
{
    return report_run(run_dir, json_path, plots, 1);
}
