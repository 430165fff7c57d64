/* bench/run.h - one bench run: options, environment, the runner, where rows go.
 * The runner (harness/runner.h) hands each finished row to run_emit, which
 * writes it to the CSV at once, keeps a copy for the summary table, and counts
 * failures. A run is set up (run_setup, run_plan, run_prepare), opens its CSV
 * (run_open), runs, and ends (run_finish); a rank other than 0 of a job
 * follows (run_follow). */
#ifndef BENCH_RUN_H
#define BENCH_RUN_H

#include "opts.h"
#include "plan.h"
#include "select.h"
#include "csv.h"
#include "env.h"
#include "gpu.h"
#include "progress.h"
#include "result.h"
#include "runner.h"
#include "roofs.h"

typedef struct bench_run {
    const bench_opts *opt;
    env_info env;
    gpu_status gpu;     /* probed once; GPU cases skip with gpu.why when unusable */
    int use_gpu;        /* the selection has GPU cases (run_probe) */
    runner run;
    roofs roofs;        /* measured before the cases (roof_probe.c); run.roofs points here */
    char machine[200];  /* the machine column: --name, or host/class (run_open) */
    csv_writer *csv;
    progress prog;
    result_row *rows;   /* copies for the summary (samples not kept) */
    int nrows, cap;
    int failed;         /* rows with check == fail */
    int io_error;       /* a CSV write failed */
} bench_run;

/* The runner's emit: writes the row, keeps a summary copy. 0, -1 on an I/O error. */
int run_emit(void *bench_run_ptr, const result_row *row);

/* Prints the table of every row to f, and the count of rows (--verbose;
 * bench/summary.c prints the rest). */
void run_print_summary(const bench_run *r, FILE *f);

/* Whether the machine was quiet over the rows so far (disturb_quiet_line). */
void run_quiet_line(const bench_run *r, char *buf, size_t cap);

void run_free(bench_run *r);

/* The runner from the options (r->opt), the environment (r->env) and the
 * selection: what to run, the GPU layer, threads (warnings about them go to
 * cli_notice), where rows go (rank 0 only), the collectives. */
void run_setup(bench_run *r, const selection *s);

/* The problems of each selected suite (harness/plan.c), after the GPU
 * probe. 0, or 2 with err. */
int run_plan(bench_run *r, const selection *s, problem (*probs)[PLAN_MAX_PROBLEMS], int *nprobs,
             char *err, size_t errcap);

/* How each case is measured (--quick, --reps, --min-time) and what its repro
 * needs beyond the case (emu_progress_set: CUDAEMU_PROGRESS_MS was the user's). */
void run_prepare(bench_run *r, int emu_progress_set);

/* Whether the run has GPU cases (use_gpu), and the GPU they run on: a
 * --device that is not there among GPUs that are is a usage error (2); a run
 * that asked for a GPU (--require-gpu, --device, a GPU backend in --backend)
 * where none is usable is 1, with the runtime's reason. 0, or 1 or 2 with err. */
int run_probe(bench_run *r, const selection *s, char *err, size_t errcap);

/* Opens csvpath in the claimed outdir with the run's context lines, points
 * results/latest at outdir, tells the other ranks to go (job_verdict) and
 * says where the GPU cases run. 0, or 1 saying why on stderr. */
int run_open(bench_run *r, const char *outdir, const char *csvpath);

/* A rank other than 0: the same cases (the runner keeps the ranks in step),
 * nothing written. 0 (job_end then gives rank 0's exit status). */
int run_follow(bench_run *r, problem (*probs)[PLAN_MAX_PROBLEMS], const int *nprobs);

/* After the cases (stop: runner_run's last status): the CSV's closing lines,
 * the report, the summary, the closing line on stderr. The exit status. */
int run_finish(bench_run *r, const char *outdir, const char *csvpath, int stop);

#endif
