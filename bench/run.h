/* bench/run.h - one bench run: options, environment, where rows go.
 * Suites hand each finished row to run_emit, which writes it to the CSV at
 * once (flushed), keeps a copy for the summary table, and counts failures. */
#ifndef BENCH_RUN_H
#define BENCH_RUN_H

#include "opts.h"
#include "csv.h"
#include "env.h"
#include "measure.h"
#include "progress.h"
#include "result.h"

typedef struct bench_run {
    const bench_opts *opt;
    env_info env;
    measure_cfg mcfg;
    csv_writer *csv;
    progress prog;
    result_row *rows;   /* copies for the summary (samples not kept) */
    int nrows, cap;
    int failed;         /* rows with check == fail */
    int io_error;       /* a CSV write failed */
} bench_run;

/* Writes the row, keeps a summary copy. Returns 0, -1 on an I/O error. */
int run_emit(bench_run *r, const result_row *row);

/* Fills the timing columns of row from a measurement (median... samples,
 * spread warning in note) and throughput from flops / bytes per repetition
 * (either may be 0). */
void run_fill_timing(result_row *row, const measure_result *m, double flops, double bytes);

/* Prints the summary table of every row to f. */
void run_print_summary(const bench_run *r, FILE *f);

void run_free(bench_run *r);

#endif
