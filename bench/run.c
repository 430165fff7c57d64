/* bench/run.c - emitting rows and the summary table. */
#include "run.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int run_emit(void *ctx, const result_row *row)
{
    bench_run *r = (bench_run *)ctx;
    int rc = csv_write_row(r->csv, row);
    if (rc) { /* not written: not in the summary either */
        r->io_error = 1;
        return -1;
    }
    if (strcmp(row->check, "fail") == 0) r->failed++;
    if (r->nrows == r->cap) {
        int cap = r->cap ? r->cap * 2 : 64;
        result_row *p = realloc(r->rows, (size_t)cap * sizeof *p);
        if (!p) return -1;
        r->rows = p;
        r->cap = cap;
    }
    r->rows[r->nrows] = *row;
    r->rows[r->nrows].samples = NULL;
    r->rows[r->nrows].nsamples = 0;
    r->nrows++;
    return rc;
}

static void fmt_num(char *buf, size_t cap, double v, const char *fmt)
{
    if (isnan(v)) snprintf(buf, cap, "-");
    else snprintf(buf, cap, fmt, v);
}

void run_print_summary(const bench_run *r, FILE *f)
{
    fprintf(f, "%-9s %-16s %-15s %-12s %-5s %-18s %10s %12s %9s %-5s\n", "suite", "case",
            "shape", "backend", "dtype", "mode", "median_ms", "throughput", "speedup", "check");
    for (int i = 0; i < r->nrows; i++) {
        const result_row *w = &r->rows[i];
        char med[24], gf[32], sp[24];
        /* emulated rows: no timing, no throughput (the emulator's time is
         * not a GPU's); throughput in the unit the row counts its work in */
        fmt_num(med, sizeof med, w->emulated ? NAN : w->median_ms, "%.4g");
        if (w->emulated) fmt_num(gf, sizeof gf, NAN, "");
        else if (!isnan(w->gflops)) fmt_num(gf, sizeof gf, w->gflops, "%.4g GFLOP/s");
        else fmt_num(gf, sizeof gf, w->gbps, "%.4g GB/s");
        fmt_num(sp, sizeof sp, w->speedup, "%.3gx");
        fprintf(f, "%-9s %-16s %-15s %-12s %-5s %-18s %10s %12s %9s %-5s%s\n", w->suite,
                w->case_name, w->shape, w->backend, w->dtype, w->mode, med, gf, sp, w->check,
                w->emulated ? " (emulated)" : "");
    }
    int skipped = 0;
    for (int i = 0; i < r->nrows; i++) skipped += strcmp(r->rows[i].check, "skip") == 0;
    fprintf(f, "%d rows: %d passed, %d failed, %d skipped\n", r->nrows,
            r->nrows - r->failed - skipped, r->failed, skipped);
}

void run_free(bench_run *r)
{
    free(r->rows);
    r->rows = NULL;
    r->nrows = r->cap = 0;
}
