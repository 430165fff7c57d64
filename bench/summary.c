/* bench/summary.c - the run's summary on stdout (see summary.h). */
#include "summary.h"
#ifdef BENCH_HAVE_REPORT
#include "findings.h"
#include "rundata.h"
#endif

#include <string.h>

/* Every failed row and the command that re-runs it. */
static void failed_checks(const bench_run *r, FILE *f)
{
    if (!r->failed) return;
    fprintf(f, "failed checks (%d):\n", r->failed);
    for (int i = 0; i < r->nrows; i++) {
        const result_row *w = &r->rows[i];
        if (strcmp(w->check, "fail") != 0) continue;
        fprintf(f, "  FAIL %s %s %s %s %s: %s\n", w->suite, w->shape, w->backend, w->mode, w->dtype,
                w->note[0] ? w->note : "check failed");
        if (w->repro[0]) fprintf(f, "       re-run: %s\n", w->repro);
    }
}

void summary_print(const bench_run *r, const char *outdir, FILE *f)
{
    if (r->opt->verbose) run_print_summary(r, f);
#ifdef BENCH_HAVE_REPORT
    rundata rd;
    char err[512];
    if (rd_load(&rd, outdir, err, sizeof err) == 0) {
        fprintf(f, "summary (report.md has it all; every row on stdout: --verbose):\n");
        findings_write(&rd, f, FINDINGS_TEXT);
        rd_free(&rd);
    } else {
        fprintf(f, "summary: not available (%s)\n", err);
    }
#else
    (void)outdir;
#endif
    failed_checks(r, f);
    if (!r->opt->verbose) {
        int skipped = 0;
        for (int i = 0; i < r->nrows; i++) skipped += strcmp(r->rows[i].check, "skip") == 0;
        fprintf(f, "%d rows: %d passed, %d failed, %d skipped\n", r->nrows,
                r->nrows - r->failed - skipped, r->failed, skipped);
    }
}
