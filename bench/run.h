/* bench/run.h - one bench run: options, environment, where rows go.
 * Suites hand each finished row to run_emit, which writes it to the CSV at
 * once (flushed), keeps a copy for the summary table, and counts failures. */
#ifndef BENCH_RUN_H
#define BENCH_RUN_H

#include "opts.h"
#include "csv.h"
#include "env.h"
#include "gpu.h"
#include "measure.h"
#include "progress.h"
#include "result.h"

typedef struct bench_run {
    const bench_opts *opt;
    env_info env;
    gpu_status gpu;     /* probed once; GPU cases skip with gpu.why when unusable */
    int gpu_lost;       /* the GPU became unusable during the run */
    measure_cfg mcfg;   /* CPU and GPU timing */
    measure_cfg emu_cfg; /* emulated GPU cases: one run, timings mean nothing */
    csv_writer *csv;
    progress prog;
    result_row *rows;   /* copies for the summary (samples not kept) */
    int nrows, cap;
    int failed;         /* rows with check == fail */
    int io_error;       /* a CSV write failed */
} bench_run;

/* Writes the row, keeps a summary copy. Returns 0, -1 on an I/O error. */
int run_emit(bench_run *r, const result_row *row);

/* The timing configuration for a GPU case of this run. */
const measure_cfg *run_gpu_cfg(const bench_run *r);

/* After a GPU case failed: if the device is left in an error state (a sticky
 * fault), reset it; if that fails, mark the GPU lost so the remaining GPU
 * cases skip with the reason instead of failing with unrelated errors. */
void run_gpu_recover(bench_run *r);

/* Fills the identity columns of a row. */
void run_row_start(const bench_run *r, result_row *row, const char *suite, const char *case_name,
                   const char *backend, const char *mode, const char *dtype, const char *shape);

/* Prints the summary table of every row to f. */
void run_print_summary(const bench_run *r, FILE *f);

void run_free(bench_run *r);

#endif
