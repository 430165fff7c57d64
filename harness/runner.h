/* harness/runner.h - the one case runner.
 *
 * For every problem of a suite and every selected backend of the suite's op
 * (and, for GPU backends, every selected GPU mode), the runner:
 *   allocates the problem's buffers (layout.h), input sets to rotate where one
 *   set would sit in the last-level cache, fills them (seeded), builds the
 *   reference once, then per case: poisons outputs, runs once, plants a fault
 *   when BENCH_PLANT_FAULT names the backend (tests), checks, times with the
 *   one measure loop, fills the row (work from the problem's flops/bytes,
 *   device kind from the registry, a repro command), computes the speedup
 *   against the baseline row of the same problem (the baseline runs first,
 *   whatever order --backend names), emits it and reports progress.
 * A step suite (suite_def.steps: a suite_steps, a training step) runs its checked steps one
 * after another from the initial state, step s on input set s, each checked;
 * records the trace buffer (the loss) after every step up to trace_steps;
 * dumps step 1 when asked; times the steps that follow; then profiles one more
 * step by phase (phase.h) and counts samples per second.
 * Suites only supply data and callbacks (suite.h).
 */
#ifndef HARNESS_RUNNER_H
#define HARNESS_RUNNER_H

#include <stddef.h>
#include "backend.h"
#include "gpu.h"
#include "gpu_exec.h"
#include "measure.h"
#include "progress.h"
#include "result.h"
#include "suite.h"
#include "comm.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct runner {
    const backend_def *registry;   /* BACKENDS[], terminated by name NULL */
    const char *const *backends;   /* selection; nbackends == 0: every backend */
    int nbackends;
    const char *const *modes;      /* selection of modes (host, resident, ...); 0: all */
    int nmodes;
    const char *baseline;          /* NULL: each suite's default */
    unsigned dtypes;               /* DTYPE_BIT set (--dtype) among a suite's dtype axis; 0: all */
    unsigned allocs;               /* the step suites' device allocators (--alloc): bit i
                                    * for GPU_ALLOCS[i]; 0: the default alone */
    int named_problems;            /* problems were named: no default-sweep limits */
    measure_cfg mcfg;              /* CPU and GPU timing */
    int rounds;                    /* --rounds: a problem's host CPU rows measured together
                                    * in this many alternating rounds (measure_group;
                                    * < 2: one after another) */
    measure_cfg emu_cfg;           /* emulated GPU cases: one run */
    gpu_status *gpu;               /* probed by the caller */
    /* The GPU layer of this binary (harness/gpu_exec.h, harness/gpu.h): passed
     * in, so the runner links into every build, with or without one. */
    int (*gpu_open)(const gpu_mode *m, const gpu_work *w, case_exec *ex, char *skip,
                    size_t skipcap);
    int (*gpu_recover)(gpu_status *st);
    int (*gpu_sync)(void *stream);  /* the GPU layer's stream synchronization (phase.h) */
    int (*gpu_props)(int device, gpu_props *g, char *why, size_t cap);   /* the roof probe's */
    int (*gpu_launch_us)(int n, double *us, char *why, size_t cap);     /* (gpu.h) */
    int gpu_lost;                  /* the GPU became unusable during the run */
    double llc_bytes;              /* for input rotation */
    const char *cpu_name;          /* device column of CPU rows */
    int threads;                   /* CPU threads */
    int blas_threads;              /* what OpenBLAS runs of them (its build's cap); 0: threads */
    const char *machine;           /* the machine column: --name, or host/class (NULL: empty) */
    const char *repro_env;         /* put before every repro command ("CUDAEMU_DEVICES=2"; NULL: none) */
    const char *repro_extra;       /* appended to every repro command (--emulate ...) */
    int trace_steps;               /* step suites: steps the trace column records (0: the
                                    * checked steps); the timed steps follow them */
    const char *dump_dir;          /* step suites: step 1 of every case goes to
                                    * dump_dir/<shape>-<backend>[-<mode>]/ (NULL: none) */
    char dump_error[512];          /* set when a dump could not be written: the run stops
                                    * after that case's row (runner_run returns -1) */
    char dump_pending[4096];       /* the case's dump, complete in <this>.tmp/: renamed to
                                    * this when its row is written, removed when the case
                                    * is abandoned ("": none) */
    /* Replicas (comm.h): the MPI collectives of this job when the run has
     * data-parallel modes or replicated suites (NULL: none; their cases skip
     * saying why, in comm_why). With comm->size > 1 a one-process case runs
     * on rank 0 alone while the others wait; data-parallel and replicated
     * cases run on every rank, every decision agreed, and the row (rank 0's)
     * fails when any rank's check does. */
    const comm_ops *comm;
    char comm_why[200];
    double bucket_mb;              /* ddp-overlap's buckets (DP_BUCKET_MB_DEFAULT) */
    int devices;                   /* --devices: GPU replicas in this process (0: 1) */
    int workers;                   /* --workers: the workers modes' processes (hogwild;
                                    * 0: those modes do not run) */
    const struct roofs *roofs;     /* the run's roofs (harness/roofs.h; NULL: none):
                                    * every row's verdict against them */
    progress *prog;
    int (*emit)(void *ctx, const result_row *row);   /* 0, or -1 on an I/O error */
    void *emit_ctx;
} runner;

/* Whether the run selected backend b / mode name. */
int runner_backend_selected(const runner *r, const backend_def *b);
int runner_mode_selected(const runner *r, const char *mode);

/* The registry rows of op, in registry order. */
int runner_backends_of(const backend_def *registry, const char *op, const backend_def **out,
                       int cap);

/* Host bytes a case of p takes at the most (every input set, outputs, the
 * reference, the runner's copies, and with gpu the host buffers of the GPU
 * modes): the one memory estimate. */
double runner_case_bytes(const suite_def *s, const problem *p, double llc_bytes, int gpu);

/* Device bytes GPU backend b's case of p holds in resident mode under the
 * default allocator (its reserve: every buffer, a step suite's every input
 * set, the workspace, each rounded as gpu_alloc.h's cached pool rounds):
 * the one device memory estimate (--max-batch searches over it). */
double runner_case_dev_bytes(const suite_entry *e, const backend_def *b, const problem *p,
                             double llc_bytes);

/* Times CPU backend b on p (at p->dtype) through a case's own buffers, input
 * sets, fill and measure loop, unchecked and without a row: the roof probe's
 * measurement of a suite's kernel. The fastest repetition in ms (what the
 * machine can do, as STREAM reports its best time); NAN when it failed or
 * ran out of memory. kept (NULL: not wanted): the judgment of the kept
 * measurement (cfg->judge: whether something else ran meanwhile); median_ms
 * (NULL: not wanted): the median repetition of the same measurement. */
double runner_time_cpu(const runner *r, const suite_def *s, const problem *p,
                       const backend_def *b, const measure_cfg *cfg, disturb_finding *kept,
                       double *median_ms);

/* Times GPU backend b on p (at p->dtype) in mode `mode` (a GPU execution
 * mode's name, or one of the suite's own) through the runner's GPU case path,
 * unchecked and without a row: the roof probe's measurement on a real GPU.
 * The fastest repetition in ms; NAN when the GPU is not usable, the mode
 * does not apply, or a call failed (err_get says which). */
double runner_time_gpu(const runner *r, const suite_entry *e, const problem *p,
                       const backend_def *b, const char *mode, const measure_cfg *cfg);

/* Number of cases (for the ETA). */
int runner_count(const runner *r, const suite_entry *s, int nproblems);

/* Runs every case of the problems. 0; -1 when emitting a row or writing a
 * dump failed (the run stops there: dump_error says which); 1 when the run was interrupted (interrupt.h: the case in
 * progress is abandoned, no other runs). */
int runner_run(runner *r, const suite_entry *s, const problem *probs, int nprobs);

#ifdef __cplusplus
}
#endif
#endif
