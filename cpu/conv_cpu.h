/* cpu/conv_cpu.h - CPU 2-D convolution backends (compute only).
 *
 * Contract: ops/conv_dims.h, shared with kernels/conv_cuda.h.
 *   x [N][C][H][W], w [K][C][R][S], b [K], y [N][K][P][Q]; fp32, contiguous,
 *   NCHW / KCRS; any stride >= 1, padding >= 0, dilation 1, groups 1;
 *   d->P and d->Q already filled by conv_dims_finish.
 *   fwd writes every y; bwd-data every dx; bwd-filter every dw and db
 *   (overwritten, never accumulated into: outputs may hold NaN on entry).
 *   All pointers are host memory. `ws` and `stream` are ignored on the CPU
 *   (the entry points take them so that one conv_ops table type serves CPU
 *   and GPU backends).
 * Each entry point returns 0, or non-zero after err_set naming what failed
 * (an allocation for columns, a oneDNN call).
 * Threads: cpu-omp, cpu-blas and cpu-onednn use cpu_threads_set()'s count
 * (OpenMP's, OpenBLAS's; Debian's oneDNN runs on the same libgomp);
 * cpu-naive is serial.
 */
#ifndef CONV_CPU_H
#define CONV_CPU_H

#include <stddef.h>
#include "../ops/conv_dims.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One element of the reference, accumulated in double (the checker's
 * reference and cpu-naive are both built from these):
 *   y[n,k,p,q], dx[n,c,h,w], dw[k,c,r,s], db[k]. */
double conv_ref_fwd_elem(const conv_dims *d, const float *x, const float *w, const float *b,
                         int n, int k, int p, int q);
double conv_ref_bwd_data_elem(const conv_dims *d, const float *dy, const float *w, int n, int c,
                              int h, int wi);
double conv_ref_bwd_filter_elem(const conv_dims *d, const float *x, const float *dy, int k, int c,
                                int r, int s);
double conv_ref_bias_elem(const conv_dims *d, const float *dy, int k);

/* The tables of the registry rows (entry points per direction). */
extern const conv_ops CONV_OPS_CPU_NAIVE;   /* direct loops, double accumulation */
extern const conv_ops CONV_OPS_CPU_OMP;     /* OpenMP + SIMD on gemm_cpu_omp */
extern const conv_ops CONV_OPS_CPU_BLAS;    /* im2col + OpenBLAS sgemm (Caffe) */
/* oneDNN primitives; absent (NULL ops in the registry) when the build did
 * not find oneDNN. */
extern const conv_ops CONV_OPS_CPU_ONEDNN;

/* Host bytes cpu-omp keeps in its scratch for direction dir of d at dtype
 * dt beyond the column blocks and partials of the fp32 im2col route: the
 * image-group path's (conv_omp_group.c), and at bf16 / fp16 the fp32 copies
 * and buffers of conv_omp_dt.h's routes; 0 where none. The suite counts
 * them in a case's memory estimate. */
double conv_cpu_omp_scratch_bytes(dtype_t dt, const conv_dims *d, conv_dir dir);

/* 0, or 2 with one line in err (cap bytes) when BENCH_CPU_CONV_ROUTE (the
 * test hook that forces a cpu-omp convolution route, conv_omp_routes.h)
 * names no route: bench checks it before any work. */
int conv_cpu_omp_check_env(char *err, size_t cap);

#ifdef __cplusplus
}
#endif
#endif
