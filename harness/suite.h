/* harness/suite.h - what a suite gives the runner: data and callbacks.
 *
 * A suite owns its problems (their syntax, defaults, reference, tolerance and
 * work count) and the adapters from a registry entry point to its buffers.
 * It never allocates, times, checks, plants, emits or orders anything: the
 * runner (runner.h) does that for every suite alike. Adding a suite is a
 * suite_def (host half, plain C) and, when it has GPU backends, a suite_gpu
 * (GPU half, compiled only into builds with a GPU layer), both listed in
 * SUITES[] (suites/registry.c).
 */
#ifndef HARNESS_SUITE_H
#define HARNESS_SUITE_H

#include <math.h>
#include <stddef.h>
#include "backend.h"
#include "check.h"
#include "exec.h"
#include "layout.h"
#include "dp_mode.h"
#include "roofs.h"
#include "../ops/comm_ops.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PROBLEM_MAX_DIMS 16

/* One problem, as its suite parsed it. */
typedef struct problem {
    char name[64];      /* the case column: square-1024, triad-16M */
    char desc[64];      /* the shape column: the suite's descriptor; parse(desc) gives it back */
    long long dim[PROBLEM_MAX_DIMS];   /* the suite's numbers (M, N, K; elements; ...) */
    int variant;        /* the suite's sub-kind (stream: copy/scale/add/triad) */
    char direction[16]; /* the direction column: conv fwd, bwd-data, bwd-filter ("": none) */
    double flops;       /* per repetition (0: none) */
    double bytes;       /* moved per repetition (0: none) */
    double items;       /* samples per repetition (a training step's batch; 0: none) */
    double io_elems;    /* the compulsory traffic per repetition, in elements of the
                         * case's dtype: inputs read once, outputs written once (the
                         * io_bytes column = this x the dtype's storage size; 0: none,
                         * io_bytes is `bytes`, the bandwidth suites' own count) */
    dtype_t dtype;      /* the case's dtype (set by the runner: suites with a dtype
                         * axis type their buffers with it); fp32 otherwise */
    /* The ordered size axis the problem is on (the sweep and sweep_x
     * columns): its name ("square", a STREAM kernel, "copy", a model) and the
     * problem's position on it (N, elements, bytes, batch); "" and 0: none.
     * The suite states it; the report never derives it from names. */
    char sweep[32];
    double sweep_x;
} problem;

/* Where a data-parallel case runs (dp_open_fn). */
typedef struct BENCH_DESIGNATED dp_cfg {
    /* The ranks of this job (comm.h: mpi, or none for one process). A CPU
     * replica is rank comm->rank of comm->size (never NULL there: without
     * it the runner skips the case). On GPUs, comm->size > 1 is one replica
     * per rank (comm nccl-mpi, the NCCL id sent over comm); otherwise (or
     * NULL) `devices` replicas in this process (comm nccl). */
    const comm_ops *comm;
    int devices;          /* GPU replicas in this process, on GPUs 0..devices-1 (>= 1) */
    double bucket_mb;     /* ddp-overlap's bucket size */
    /* A workers mode (dp_mode.workers: hogwild): the processes it forks
     * (harness/workers.h; comm is NULL then) and the CPU threads of the run,
     * which they share: threads / workers each, at least 1. */
    int workers;
    int threads;
} dp_cfg;

/* The data-parallel modes (dp_mode.h) for backend b, CPU or GPU alike (one
 * signature: suite_def.dp_open for the CPU backends, suite_gpu.dp_open for
 * the GPU ones). sets[k] holds input set k's whole global batch in host
 * memory (every replica fills them alike) and sets[0] the INOUT and OUT
 * buffers. Fills ex: run = one global step (each replica's shard, the mode's
 * collectives, the update), outputs = the state as after the full-batch
 * step, agree = whether every replica holds the same parameters, finish =
 * the comm columns. 0, 1 skip (skip says why), -1 error (err_set). */
typedef int dp_open_fn(const backend_def *b, const dp_mode *m, const problem *p,
                       const dp_cfg *cfg, void *const *const *sets, int nsets, case_exec *ex,
                       char *skip, size_t skipcap);

/* The optional capability blocks of a suite_def: a suite that has the
 * capability points at one (designated initialisers, like the core); one
 * that has not leaves the pointer NULL. The data-parallel hooks (dp_open)
 * stay in the core: one dp_open_fn in each half. */

/* A step suite (a training step): each repetition is the next step of
 * stateful work. */
typedef struct BENCH_DESIGNATED suite_steps {
    /* The checked run is `steps` repetitions, step s on input set s, each
     * checked (check's step s); the prefetch GPU modes apply and the
     * streams-N modes do not. > 0. */
    int steps;
    /* Optional: writes step 1 of a case into the folder dir (exists, empty)
     * for external checking: in holds the inputs of set 0 and the initial
     * INOUT state, out the outputs after step 1. 0, or -1 with err_set. */
    int (*dump)(const problem *p, void *const *in, void *const *out, const char *dir);
    /* Optional: the accuracy the case's dtype gives up after checked step
     * `step` (host holds that step's outputs; ref is ref_build's), for the
     * accuracy_lost column; the last checked step's stands. NaN: the
     * default (the check's rel_err, or against the unrounded inputs). */
    double (*accuracy)(const problem *p, const void *ref, int step, void *const *host);
    /* Optional: a dynamic loss scaler's state after the step host holds (its
     * scale and the steps it skipped, for the loss_scale and skipped_steps
     * columns; the last step's stands). 1 with both set; 0: no scaler. */
    int (*scaler)(const problem *p, void *const *host, double *scale, double *skipped);
} suite_steps;

/* A collectives suite: its CPU backends' cases run on every rank, with
 * collectives inside (without this block: one process's work, run by rank 0
 * alone while the other ranks wait). */
typedef struct BENCH_DESIGNATED suite_collective {
    int all_ranks;   /* 1: every rank runs every case */
    /* Optional: the bus bandwidth factor of p over n replicas (the
     * busbw_gbps column = gbps x this; nccl-tests' definitions). */
    double (*bus_factor)(const problem *p, int n);
} suite_collective;

typedef struct BENCH_DESIGNATED suite_def {
    const char *name;
    const char *about;
    const char *op;                /* the registry op of its backends */
    const char *default_baseline;  /* a CPU backend of op */
    const char *problem_help;      /* the syntax --sizes takes for it, for --help/--list */
    /* The version of its work, in every row's workload key (harness/machine.h):
     * bump it when the work of a problem changes (a default size, a fill, a
     * FLOP or byte count), never otherwise; 0 reads 1. */
    int version;
    /* Parses one problem string. 0, or 2 with one line naming the bad value
     * (-1 when the string is simply not of this suite's form). */
    int (*parse)(const char *s, problem *p, char *err, size_t errcap);
    /* The default sweep (quick: a smoke sweep; big: a real GPU takes part).
     * Writes at most cap problems; returns how many. */
    int (*defaults)(int quick, int big, problem *out, int cap);
    /* The buffers of p. */
    void (*layout)(const problem *p, case_layout *l);
    /* Fills the IN and INOUT buffers of input set `set` (seeded). A typed
     * buffer of a 16-bit dtype is handed over as floats: the runner rounds
     * and converts what fill wrote. */
    void (*fill)(const problem *p, int set, void *const *host);
    /* The reference for set 0's inputs (NULL out of memory); freed by ref_free.
     * Typed buffers arrive as floats, rounded to the case's dtype (a second
     * reference, from the unrounded inputs, gives the accuracy_lost column). */
    void *(*ref_build)(const problem *p, void *const *host);
    void (*ref_free)(void *ref);
    /* Checks the outputs in host (typed buffers in p->dtype: check_compare_dt)
     * against the reference (of step `step`, 0 but in step suites), with
     * dtype's tolerance. */
    check_result (*check)(const problem *p, const void *ref, int step, dtype_t dt,
                          void *const *host, char *why, size_t whycap);
    /* Runs CPU backend b on host buffers. 0, or -1 with err_set. */
    int (*cpu_run)(const backend_def *b, const problem *p, void *const *host);
    /* The byte range of buffer `buf` for chunk c of n (SPLIT_CHUNK buffers;
     * NULL for a suite that has none). */
    void (*chunk)(const problem *p, int buf, int c, int n, size_t *off, size_t *len);
    /* Emulated GPU cases in default sweeps stop above this many FLOPs + bytes. */
    double emu_max_work;
    /* GPU modes of its own (transfer's copy directions), NULL-terminated;
     * their cases come from suite_gpu.open_mode. NULL: the GPU execution modes. */
    const char *const *modes;
    /* Optional, with modes: which way a row of own mode `mode` copies its
     * io_bytes (its roof: roofs.h). NULL: ROOF_COPY_NONE for every mode. */
    roof_copy (*mode_copy)(const char *mode);
    /* Optional: the problems one parsed --sizes entry stands for, when more
     * than one (conv: a descriptor without a direction is all three). Writes
     * at most cap; returns how many. NULL: the parsed problem itself. */
    int (*expand)(const problem *p, problem *out, int cap);
    /* Optional capability: a step suite (suite_steps below). NULL: repetitions
     * are independent. */
    const struct suite_steps *steps;
    /* Optional: the data-parallel modes for the CPU backends (dp_open_fn
     * above). */
    dp_open_fn *dp_open;
    /* Optional capability: collectives across ranks (suite_collective below).
     * NULL: one process's work. */
    const struct suite_collective *coll;
    /* The dtype axis: the DTYPE_BIT set its problems run in (--dtype selects
     * among them; each backend row lists its own). 0: none, each backend runs
     * its one dtype (stream fp32, transfer u8). */
    unsigned dtypes;
} suite_def;

/* The io_bytes column of p at dtype dt: io_elems x dt's storage size, else
 * the suite's bytes; NAN when the problem counts neither. */
static inline double problem_io_bytes(const problem *p, dtype_t dt)
{
    if (p->io_elems > 0) return p->io_elems * (double)dtype_size(dt);
    return p->bytes > 0 ? p->bytes : NAN;
}

/* The capability blocks read through these: 0 / NULL when a suite lacks one. */
static inline int suite_step_count(const suite_def *s) { return s->steps ? s->steps->steps : 0; }
static inline int suite_all_ranks(const suite_def *s) { return s->coll && s->coll->all_ranks; }

/* The GPU half: compiled only into the GPU layer (CUDA or emu/). `stream`
 * is a cudaStream_t. Device pointers dev[i] follow the layout: for CHUNK
 * buffers the whole buffer's base (compute offsets itself, as chunk() says),
 * for REDUCE buffers chunk c's own partial. */
typedef struct BENCH_DESIGNATED suite_gpu {
    /* Enqueues chunk c of n of backend b's work. 0, or -1 with err_set. */
    int (*compute)(const backend_def *b, const problem *p, int c, int n, void *const *dev,
                   void *ws, void *stream);
    /* Sums n partials (n x bytes, contiguous) of REDUCE buffer `buf` into dst. */
    int (*reduce)(const problem *p, int buf, void *dst, const void *partials, int n,
                  void *stream);
    /* Optional: once per case before the checked run / after the last. */
    int (*setup)(const backend_def *b, const problem *p, void *const *dev, void *stream);
    void (*teardown)(const backend_def *b, const problem *p);
    /* A suite with modes of its own (suite_def.modes): the case for one. */
    int (*open_mode)(const backend_def *b, const char *mode, const problem *p, case_exec *ex,
                     char *skip, size_t skipcap);
    /* Optional: device workspace backend b needs for p split into nchunks
     * chunks that run at once (each chunk's region at an offset the suite
     * chooses). The runner allocates the larger of this and the layout's
     * workspace, hands it to compute, and counts it in peak_dev_mb. */
    unsigned long long (*workspace)(const backend_def *b, const problem *p, int nchunks);
    /* Optional: the data-parallel modes for the GPU backends over NCCL
     * (dp_open_fn above). */
    dp_open_fn *dp_open;
} suite_gpu;

/* A suite: its host half and (in builds with a GPU layer) its GPU half. */
typedef struct suite_entry {
    const suite_def *def;
    const suite_gpu *gpu;   /* NULL without a GPU layer */
} suite_entry;

#ifdef __cplusplus
}
#endif
#endif
