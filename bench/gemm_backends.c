/* bench/gemm_backends.c - CPU GEMM backends: reference, hand-written, library. */
#include "gemm_backends.h"

#include <stddef.h>

const gemm_impl GEMM_CPU_IMPLS[] = {
    /* the reference: 2*512^3 FLOP already take seconds, so default sweeps stop there */
    {"cpu-naive", gemm_cpu_naive, 1, 2.0 * 512 * 512 * 512},
    {"cpu-omp", gemm_cpu_omp, 0, 0},
    {"cpu-blas", gemm_cpu_blas, 0, 0},
    {NULL, NULL, 0, 0},
};
