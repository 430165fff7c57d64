/* report/report.c - the two entry points: load the run's CSV once, then
 * charts, report.md and JSON (see report.h). */
#define _POSIX_C_SOURCE 200809L
#include "report.h"
#include "interrupt.h"
#include "json.h"
#include "plots.h"
#include "report_md.h"
#include "rundata.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>


/* 0 done, 1 an output failed, 2 the CSV could not be read or is invalid,
 * or (refuse_empty: an earlier run re-rendered) has no rows: nothing to
 * report is not a pass; 128 + N stopped by signal N. A run just finished
 * with no rows still gets its report.md, saying so. A run's own report
 * goes on past the signal that interrupted the run (interrupt_report_begin); an earlier run
 * re-rendered stops at any. */
static int report_run(const char *dir, const char *json_path, int plots, int refuse_empty,
                      report_outcome *out)
{
    rundata rd;
    char err[1024];
    int rc = 0, dirfd = -1;
    int own = !refuse_empty; /* a run's own report: never lost to a signal */
    interrupt_report_begin(own);
    plots_outcome po;
    memset(out, 0, sizeof *out);
    memset(&po, 0, sizeof po);
    if (rd_load(&rd, dir, err, sizeof err)) {
        fprintf(stderr, "bench: %s\n", err);
        /* a read stopped by a signal is an interruption, not bad input */
        if ((out->signal = interrupt_stops_report())) return 128 + out->signal;
        return 2;
    }
    out->rows = rd_nrows(&rd);
    out->ended = rd_recorded_end(&rd);
    if (refuse_empty && rd_nrows(&rd) == 0) {
        fprintf(stderr, "bench: %s: no rows: the run measured nothing (not a pass)\n", rd.csv_path);
        rc = 2;
        goto done;
    }
    /* every file goes in through this descriptor: never through a link in the folder */
    dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dirfd < 0) {
        fprintf(stderr, "bench: cannot open the run folder '%s': %s\n", dir, strerror(errno));
        rc = 1;
        goto done;
    }
    if (own) { /* report.md and JSON first, then the charts (a signal stops only those) */
        if (report_md_write(&rd, dirfd, dir)) rc = 1;
        else out->md_written = 1;
        if (json_path && json_write(&rd, json_path)) rc = 1;
        else out->json_written = json_path != NULL;
    }
    if (plots && plots_render(&rd, dirfd, dir, &po)) rc = 1; /* report.md still written */
    out->charts_planned = po.planned;
    out->charts_drawn = po.drawn;
    if ((out->signal = interrupt_stops_report())) goto done; /* --plot: report.md as it was */
    if (own && !out->md_written) goto done; /* it failed once (a full disk): said once */
    if (report_md_write(&rd, dirfd, dir)) rc = 1; /* with the charts drawn */
    else out->md_written = 1;
    if (own) goto done;
    if ((out->signal = interrupt_stops_report())) goto done;
    if (json_path && json_write(&rd, json_path)) rc = 1;
    else out->json_written = json_path != NULL;
done:
    if (dirfd >= 0) close(dirfd);
    rd_free(&rd);
    return out->signal ? 128 + out->signal : rc;
}

int report_finish(const char *run_dir, const char *json_path, int plots)
{
    report_outcome out;
    return report_run(run_dir, json_path, plots, 0, &out) ? -1 : 0;
}

int report_rerender(const char *run_dir, const char *json_path, int plots, report_outcome *out)
{
    report_outcome none;
    return report_run(run_dir, json_path, plots, 1, out ? out : &none);
}
