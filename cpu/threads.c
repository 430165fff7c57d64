/* cpu/threads.c - one thread count for OpenMP and OpenBLAS (when built with it). */
#include "gemm_cpu.h"

#if BENCH_HAVE_BLAS
#include <cblas.h>
#endif
#include <omp.h>

static int g_threads = 0;

void cpu_threads_set(int n)
{
    if (n < 1) n = 1;
    g_threads = n;
    omp_set_num_threads(n);
#if BENCH_HAVE_BLAS
    openblas_set_num_threads(n);
#endif
}

int cpu_threads_get(void) { return g_threads ? g_threads : omp_get_max_threads(); }

#if BENCH_HAVE_BLAS
int cpu_threads_blas(void) { return openblas_get_num_threads(); }
#else
int cpu_threads_blas(void) { return cpu_threads_get(); } /* no OpenBLAS: no cap of its own */
#endif
