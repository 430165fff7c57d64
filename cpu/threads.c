/* cpu/threads.c - one thread count for OpenMP and OpenBLAS. */
#include "gemm_cpu.h"

#include <cblas.h>
#include <omp.h>

static int g_threads = 0;

void cpu_threads_set(int n)
{
    if (n < 1) n = 1;
    g_threads = n;
    omp_set_num_threads(n);
    openblas_set_num_threads(n);
}

int cpu_threads_get(void) { return g_threads ? g_threads : omp_get_max_threads(); }

int cpu_threads_blas(void) { return openblas_get_num_threads(); }
