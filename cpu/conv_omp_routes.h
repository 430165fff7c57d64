/* cpu/conv_omp_routes.h - which cpu-omp convolution route runs: one ordered
 * table per direction (internal to cpu/ and its tests).
 *
 * In the manner of oneDNN's implementation lists: each direction has an
 * ordered table of routes {name, dtypes, applies, scratch, run}; the first
 * row whose dtypes hold the case's dtype and whose applies() takes the
 * problem runs, and its name and text are the row's note. Running
 * (conv_omp.c's entry points), the note and the memory estimate
 * (conv_cpu_omp_scratch_bytes) all walk the same table, so a moved
 * threshold moves all three.
 *
 * BENCH_CPU_CONV_ROUTE=name forces route `name` in every direction that has
 * it (a test hook: README "Test hooks"); a problem it does not apply to
 * fails the call naming the route and why, and a direction without a route
 * of that name runs its own first route. conv_cpu_omp_check_env()
 * (conv_cpu.h) refuses an unknown name before any work.
 *
 * Adding a route: its entry points in their own file, and one row in the
 * table of its direction (conv_omp_routes.c), placed where it should win.
 * tests/cpu/conv_routes_test.c forces every row on a problem of its case list
 * (tests/cases/conv_routes.txt) and fails for a row none of them reaches. */
#ifndef CONV_OMP_ROUTES_H
#define CONV_OMP_ROUTES_H

#include "../ops/conv_dims.h"

#include <stddef.h>

/* The buffers of one call, as the direction has them (NULL where not). */
typedef struct conv_args {
    const void *x, *w, *dy; /* inputs in the case's dtype */
    const void *b;          /* fwd: the bias in the case's dtype (NULL: none) */
    const float *bf;        /* fwd: the bias in fp32 (the walker widens it) */
    void *y, *dx, *dw, *db; /* outputs in the case's dtype */
} conv_args;

typedef struct conv_route conv_route;
struct conv_route {
    const char *name;  /* the forcing value and the note's first word */
    unsigned dtypes;   /* DTYPE_BIT set of the dtypes it runs */
    const char *about; /* what it does, for the note */
    /* Whether it runs problem d at dt here (CPU features included); NULL:
     * always. A bwd-data row with `via` is asked about the flipped problem. */
    int (*applies)(dtype_t dt, const conv_dims *d);
    /* The bytes of kept scratch (gemm_scratch, every slot but the GEMM's
     * panels and vector) it takes for d at dt. */
    double (*scratch)(dtype_t dt, const conv_dims *d);
    /* Runs it. 0, or non-zero after err_set. */
    int (*run)(dtype_t dt, const conv_dims *d, const conv_args *a);
    /* bwd-data only: the forward route run on the flipped problem
     * (conv_bwd_data_flipped: dy convolved with the filters flipped and
     * transposed into SCRATCH_CONV_FILTERS); applies, scratch and run above
     * are then unused. */
    const conv_route *via;
    /* Why this CPU (or a forced GEMM path) lacks what it needs, or NULL. */
    const char *(*lacks)(void);
    unsigned flags;
};

enum {
    ROUTE_TYPED_BIAS = 1u << 0, /* fwd: takes a->b in the case's dtype, not a->bf */
    ROUTE_GEMM_PATH = 1u << 1,  /* the note names the bf16/fp16 GEMM path it runs on */
};

/* The table of direction dir (its rows in order) and its length. */
const conv_route *const *conv_routes(conv_dir dir, int *n);

/* The route that runs d at dt (the forced one when BENCH_CPU_CONV_ROUTE
 * names a route of dir), or NULL after err_set naming why (a forced route
 * that does not apply, a dtype no route runs). */
const conv_route *conv_route_pick(dtype_t dt, const conv_dims *d, conv_dir dir);

/* Whether route r runs d at dt here (dtypes, CPU and applies; `via` taken
 * care of). */
int conv_route_applies(const conv_route *r, dtype_t dt, const conv_dims *d, conv_dir dir);

/* Route r's scratch bytes for d at dt (the fp32 bias and flipped filters
 * included). */
double conv_route_scratch(const conv_route *r, dtype_t dt, const conv_dims *d, conv_dir dir);

/* Runs route r (sets the case note first). */
int conv_route_run(const conv_route *r, dtype_t dt, const conv_dims *d, conv_dir dir,
                   const conv_args *a);

/* The note of route r at dt: "<dtype> <name>: <about>[ + <GEMM path>]". */
void conv_route_note(const conv_route *r, dtype_t dt, char *out, size_t cap);

#endif
