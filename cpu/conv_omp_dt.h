/* cpu/conv_omp_dt.h - the dtype plumbing of cpu-omp's convolution
 * (internal to cpu/): one set of routes (conv_omp.c, conv_omp_group.c) runs
 * fp32 and, at bf16 / fp16, the same loops on 16-bit columns and cpu-omp's
 * bf16/fp16 GEMM (gemm_lowp_ex: fp32 sums, every output rounded once).
 *
 * Buffers of a dtype are void pointers; element e of one sits at byte
 * e * conv_es(dt). fp32 sums that must survive past one GEMM call (col2im's
 * columns, bwd-filter's partials) stay fp32 and are rounded once, at the
 * end, by conv_store. */
#ifndef CONV_OMP_DT_H
#define CONV_OMP_DT_H

#include "../ops/conv_dims.h"

#include <stddef.h>

/* Bytes of an element of dt as stored (fp32 4, bf16 / fp16 2). */
static inline size_t conv_es(dtype_t dt) { return dtype_size(dt); }

/* C (M x N, row stride ldc, dt) = A (M x K, dt) . B (K x N, dt), plus
 * bias[i] on row i when bias is not NULL (fp32): fp32 on gemm_cpu_omp then
 * the bias; bf16 / fp16 on gemm_lowp_ex, the bias inside the one rounding. */
int conv_gemm_bias(dtype_t dt, int M, int N, int K, const void *A, int lda, const void *B,
                   int ldb, const float *bias, void *C, int ldc);

/* C (fp32, M x N, ldc) = (add: C +) A . B, A and B in dt (not rounded). */
int conv_gemm_f32(dtype_t dt, int add, int M, int N, int K, const void *A, int lda,
                  const void *B, int ldb, float *C, int ldc);

/* dst[off .. off+n) of a dt buffer = src[0 .. n) (fp32: copied; bf16 / fp16:
 * rounded once, nearest even). */
void conv_store(dtype_t dt, const float *src, void *dst, long off, long n);

/* dw[k][i] (K x crs, dt) = the sum over the np fp32 partials part[t] (NULL:
 * none) of their element k*sk + i*si, db[k] that of element crs*K + k, each
 * rounded once to dt. On the team. */
void conv_sum_partials(dtype_t dt, float *const *part, int np, long K, long crs, long sk,
                       long si, void *dw, void *db);

/* n elements of a dt buffer as floats (exact). */
void conv_widen(dtype_t dt, const void *src, float *dst, long n);

/* dtype_set's value of 1.0 in dt's storage (the ones row that makes a
 * GEMM sum db next to dw). */
static inline uint16_t conv_one16(dtype_t dt) { return dtype_info_of(dt)->one16; }

/* The small stride-1 layers' route at bf16 / fp16 (conv_omp_direct.c is
 * fp32 only): the inputs widened to fp32 (exact), the direct fp32 kernels,
 * each output rounded once from its fp32 sum; the same semantics as the
 * GEMM routes. The fp32 copies live in gemm_scratch slot 5 (calling thread);
 * conv_widen_bytes says how many bytes for d and dir. 0, or non-zero after
 * err_set. */
int conv_widen_fwd(dtype_t dt, const conv_dims *d, const void *x, const void *w, const void *b,
                   void *y);
int conv_widen_bwd_data(dtype_t dt, const conv_dims *d, const void *dy, const void *w, void *dx);
int conv_widen_bwd_filter(dtype_t dt, const conv_dims *d, const void *x, const void *dy,
                          void *dw, void *db);
double conv_widen_bytes(const conv_dims *d, conv_dir dir);

/* The calling thread's slot-5 scratch of at least bytes, or NULL (err_set,
 * naming what). */
float *conv_dt_scratch(size_t bytes, const char *what);

#endif
