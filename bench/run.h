/* bench/run.h - one bench run: options, environment, the runner, where rows go.
 * The runner (harness/runner.h) hands each finished row to run_emit, which
 * writes it to the CSV at once, keeps a copy for the summary table, and counts
 * failures. */
#ifndef BENCH_RUN_H
#define BENCH_RUN_H

#include "opts.h"
#include "csv.h"
#include "env.h"
#include "gpu.h"
#include "progress.h"
#include "result.h"
#include "runner.h"

typedef struct bench_run {
    const bench_opts *opt;
    env_info env;
    gpu_status gpu;     /* probed once; GPU cases skip with gpu.why when unusable */
    runner run;
    csv_writer *csv;
    progress prog;
    result_row *rows;   /* copies for the summary (samples not kept) */
    int nrows, cap;
    int failed;         /* rows with check == fail */
    int io_error;       /* a CSV write failed */
} bench_run;

/* The runner's emit: writes the row, keeps a summary copy. 0, -1 on an I/O error. */
int run_emit(void *bench_run_ptr, const result_row *row);

/* Prints the summary table of every row to f. */
void run_print_summary(const bench_run *r, FILE *f);

void run_free(bench_run *r);

#endif
