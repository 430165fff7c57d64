/* bench/gemm_backends.h - the table of GEMM implementations, reference first.
 * Adding a variant is one function and one row. */
#ifndef BENCH_GEMM_BACKENDS_H
#define BENCH_GEMM_BACKENDS_H

#include "gemm_cpu.h"

typedef struct gemm_impl {
    const char *name;       /* device-variant, as on the command line and in the CSV */
    gemm_fn fn;
    int serial;             /* ignores the thread count */
    double default_max_flops; /* default sweeps skip larger cases (0: no limit) */
} gemm_impl;

extern const gemm_impl GEMM_CPU_IMPLS[];   /* terminated by a row with name NULL */

#endif
