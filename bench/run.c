/* bench/run.c - emitting rows, filling timing columns, the summary table. */
#include "run.h"
#include "gpu_cases.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int run_emit(bench_run *r, const result_row *row)
{
    int rc = csv_write_row(r->csv, row);
    if (rc) r->io_error = 1;
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

void run_gpu_recover(bench_run *r)
{
    if (gpu_cases_recover(&r->gpu) == 0) return;
    r->gpu_lost = 1;
    fprintf(stderr, "bench: GPU lost, remaining GPU cases skipped: %s\n", r->gpu.why);
}

const measure_cfg *run_gpu_cfg(const bench_run *r)
{
    return r->gpu.emulated ? &r->emu_cfg : &r->mcfg;
}

void run_row_start(const bench_run *r, result_row *row, const char *suite, const char *case_name,
                   const char *backend, const char *mode, const char *dtype, const char *shape)
{
    result_row_init(row);
    snprintf(row->suite, sizeof row->suite, "%s", suite);
    snprintf(row->case_name, sizeof row->case_name, "%s", case_name);
    snprintf(row->backend, sizeof row->backend, "%s", backend);
    snprintf(row->mode, sizeof row->mode, "%s", mode);
    snprintf(row->dtype, sizeof row->dtype, "%s", dtype);
    snprintf(row->shape, sizeof row->shape, "%s", shape);
    if (strcmp(mode, "host") == 0) {
        snprintf(row->device, sizeof row->device, "%s", r->env.cpu);
    } else {
        snprintf(row->device, sizeof row->device, "%s", r->gpu.usable ? r->gpu.name : "-");
        row->emulated = r->gpu.emulated;
    }
}

static void fmt_num(char *buf, size_t cap, double v, const char *fmt)
{
    if (isnan(v)) snprintf(buf, cap, "-");
    else snprintf(buf, cap, fmt, v);
}

void run_print_summary(const bench_run *r, FILE *f)
{
    fprintf(f, "%-9s %-16s %-15s %-11s %-15s %10s %10s %9s %-5s\n", "suite", "case", "shape",
            "backend", "mode", "median_ms", "GFLOP/s", "speedup", "check");
    for (int i = 0; i < r->nrows; i++) {
        const result_row *w = &r->rows[i];
        char med[24], gf[24], sp[24];
        fmt_num(med, sizeof med, w->median_ms, "%.4g");
        fmt_num(gf, sizeof gf, isnan(w->gflops) ? w->gbps : w->gflops, "%.4g");
        fmt_num(sp, sizeof sp, w->speedup, "%.3gx");
        fprintf(f, "%-9s %-16s %-15s %-11s %-15s %10s %10s %9s %-5s%s\n", w->suite,
                w->case_name, w->shape, w->backend, w->mode, med, gf, sp, w->check,
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
