/* report/crossover.h - where a backend overtakes another along a size axis:
 * a pure function over a run's rows (the sweep, sweep_x, device_kind, role
 * and median_ms columns), and the sentence the report and stdout print.
 *
 * Two kinds of pairs, per curve (suite, sweep, dtype, direction, replicas):
 *  - each GPU backend x mode against the best CPU backend at each size
 *    (the fastest CPU row measured at that sweep_x, any CPU backend);
 *  - each of our kernels (role `ours`) x mode against the best library
 *    (role `library`) of the same device kind at each size, in the same mode.
 * Only timings count (rd_is_timing: real hardware, check passed): emulated
 * rows never give a crossover. A pair needs two sizes measured by both; a
 * single size claims nothing.
 */
#ifndef REPORT_CROSSOVER_H
#define REPORT_CROSSOVER_H

#include <stddef.h>
#include "rundata.h"

typedef enum {
    XO_EVERY,   /* faster at every size measured */
    XO_NEVER,   /* faster at none */
    XO_FROM,    /* slower below x, faster at every measured size above it */
    XO_BELOW,   /* faster somewhere below x, slower at every measured size above it */
} xo_kind;

typedef struct crossover {
    char suite[32], sweep[32], dtype[16], direction[16];
    char who[32], mode[32];   /* the challenger: a GPU backend, or our kernel; its mode */
    char against[32];         /* the incumbent's backend at the largest common size */
    int vs_library;           /* 0: GPU against the best CPU; 1: ours against the library */
    xo_kind kind;
    double x;                 /* XO_FROM, XO_BELOW: the crossing, interpolated on log axes */
    double x_lo, x_hi;        /* XO_FROM, XO_BELOW: the measured sizes around it;
                               * else the smallest and largest size measured */
    int npoints;              /* sizes both measured */
} crossover;

/* The crossover where ratio (incumbent time / challenger time, > 1: the
 * challenger is faster) goes through 1, between (x0, r0) and (x1, r1),
 * linear in log x and log ratio. x0 < x1, all > 0. */
double xo_interpolate(double x0, double r0, double x1, double r1);

/* Every pair of the run with at least two common sizes, in the order of the
 * rows' first appearance; writes at most cap, returns how many there are. */
int crossovers_find(const rundata *rd, crossover *out, int cap);

/* One sentence for c ("matmul square fp32: cuda-tiled resident overtakes the
 * best CPU (cpu-blas) at square ≈ 724 (between 512 and 1024)"). */
void crossover_sentence(const crossover *c, char *buf, size_t cap);

#endif
