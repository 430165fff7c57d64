/* harness/plan.h - the planner: turns the run's --sizes (or each suite's
 * defaults) into its problems, one expansion and duplicate check, and admits
 * them by memory. Knows suites only through suite_def. */
#ifndef BENCH_PLAN_H
#define BENCH_PLAN_H

#include "suite.h"

#include <stddef.h>

#define PLAN_MAX_PROBLEMS 64

/* One selected suite and whether it runs a GPU backend (then the host
 * copies of the GPU modes count in its memory). */
typedef struct plan_suite {
    const suite_def *def;
    int gpu_in;
} plan_suite;

/* What the planner needs of the run's options and machine. */
typedef struct plan_request {
    const plan_suite *suites;
    int nsuites;
    const char *const *sizes;    /* --sizes entries; none: each suite's defaults */
    int nsizes;
    int quick;                   /* --quick: the short default sweeps */
    int big;                     /* a real GPU runs: the GPU-sized defaults */
    double mem;                  /* memory this process may use (bytes); 0: unknown */
    double llc_bytes;            /* last-level cache (bytes), for the case estimate */
    void (*notice)(const char *line); /* a line for the user that is no error */
} plan_request;

/* Fills probs[s][0..nprobs[s]) for each suite of q: the --sizes entries it
 * accepts (expanded, no repeats) or its defaults. An entry no suite accepts, a
 * repeated case, or a problem needing over 75% of q->mem is a usage error.
 * Returns 0, or 2 with err. */
int plan_problems(const plan_request *q, problem (*probs)[PLAN_MAX_PROBLEMS], int *nprobs,
                  char *err, size_t errcap);

#endif
