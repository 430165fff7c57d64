/* harness/runner_iter.h - the one walk of a run's cases.
 *
 * A case is (problem, dtype, backend, mode, replicas). The iterator yields
 * every case of a suite in the order the run takes them: problems, then the
 * dtypes of the suite's dtype axis (fp32 first), then the selected backends
 * (the baseline first), then each backend's modes: a CPU backend's host mode
 * and then its data-parallel modes; a GPU backend's GPU execution modes (or
 * the suite's own), each under every selected device allocator (a step
 * suite; the others: the default alone), and then its data-parallel modes. The case count and ETA
 * (runner_count), the "this selection runs nothing" check built on it, and
 * the run itself (runner_run) all walk it; nothing else decides which cases
 * a run has.
 */
#ifndef HARNESS_RUNNER_ITER_H
#define HARNESS_RUNNER_ITER_H

#include "dp_mode.h"
#include "gpu_alloc.h"
#include "gpu_mode.h"
#include "runner.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CASE_MAX_BACKENDS 64
#define CASE_MAX_MODES 32   /* a backend's modes: GPU_MODES or a suite's own, and DP_MODES */

typedef enum {
    CASE_HOST,   /* a CPU backend in one process (mode "host") */
    CASE_GPU,    /* a GPU execution mode (GPU_MODES) */
    CASE_OWN,    /* one of the suite's own GPU modes (suite_def.modes) */
    CASE_DP      /* a data-parallel mode (DP_MODES): MPI for a CPU backend, NCCL for a GPU one */
} case_kind;

/* What a case begins (case_ref.first): the run builds the case data, checks
 * a backend, or writes a group's one row there. */
enum {
    CASE_FIRST_PROBLEM = 1,   /* the first case of its problem */
    CASE_FIRST_DATA = 2,      /* the first of its (problem, dtype): the case data changes */
    CASE_FIRST_BACKEND = 4,   /* the first of its backend at this problem and dtype */
    CASE_FIRST_GROUP = 8      /* the first of the backend's one-process modes (host, GPU,
                               * own) or of its data-parallel ones */
};

typedef struct case_ref {
    int pi;                    /* the problem's index */
    int di;                    /* the dtype pass's index, and its dtype */
    dtype_t dtype;
    int bi;                    /* the backend's index in the run's order (0: the baseline
                                * when it runs), and the backend */
    const backend_def *b;
    case_kind kind;
    const char *mode;          /* the CSV mode column */
    const gpu_mode *gpu;       /* CASE_GPU: its row */
    const gpu_alloc *alloc;    /* CASE_GPU: its device allocator (NULL: the default) */
    int own;                   /* CASE_OWN: its index in suite_def.modes */
    const dp_mode *dp;         /* CASE_DP: its row */
    int replicas;              /* the replicas the case runs on */
    int nsingle;               /* how many of the backend's modes are one-process ones */
    unsigned first;            /* CASE_FIRST_* */
} case_ref;

typedef struct case_iter {
    const runner *r;
    const suite_entry *e;
    int nprobs;
    const backend_def *order[CASE_MAX_BACKENDS];   /* the selected backends, baseline first */
    int nb;
    const char *baseline;      /* the baseline's name when it runs (NULL: none) */
    dtype_t dts[DTYPE_COUNT];  /* the dtype passes (a suite without the axis: fp32 alone) */
    int ndt;
    case_ref modes[2][CASE_MAX_MODES];   /* [0] a CPU backend's modes, [1] a GPU backend's */
    char mode_names[CASE_MAX_MODES][48]; /* the mode columns that name an allocator */
    int nmodes[2];
    int nsingle[2];            /* how many of them are one-process modes (the first ones) */
    int pi, di, bi, mi;        /* the next case */
    case_ref prev;             /* the case before it (prev.pi -1: none) */
} case_iter;

/* Starts the walk of suite e's cases over nprobs problems under r's selection. */
void case_iter_start(case_iter *it, const runner *r, const suite_entry *e, int nprobs);

/* The next case into *c: 1, or 0 past the last. */
int case_iter_next(case_iter *it, case_ref *c);

#ifdef __cplusplus
}
#endif
#endif
