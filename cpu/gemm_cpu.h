/* cpu/gemm_cpu.h - CPU single-precision GEMM backends.
 *
 * Contract (shared with kernels/gemm_cuda.h):
 *   C[M x N] = alpha * A[M x K] * B[K x N] + beta * C[M x N]
 *   row-major fp32; lda >= K, ldb >= N, ldc >= N (elements, not bytes);
 *   any M, N, K >= 1 (no multiple-of-tile requirement); all pointers host memory.
 *   beta == 0 means C is write-only: its old contents (even NaN) are ignored,
 *   as in BLAS.
 * Each function returns 0 on success, non-zero on a failure it can report
 * (e.g. an allocation for packing buffers that failed).
 * Threads: cpu-omp and cpu-blas use cpu_threads_set()'s count; cpu-naive is serial.
 */
#ifndef GEMM_CPU_H
#define GEMM_CPU_H

#include "../ops/dtype.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef int (*gemm_fn)(int M, int N, int K, float alpha,
                       const float *A, int lda, const float *B, int ldb,
                       float beta, float *C, int ldc);

/* Reduced precision: C[M x N] = A[M x K] * B[K x N] with A, B and C in dtype
 * dt (bf16 or fp16: 16-bit words; tf32: floats rounded to tf32 in the
 * product), products accumulated in fp32, each element of C rounded once to
 * dt (nearest even). Row-major, leading dimensions in elements, as above;
 * alpha = 1, beta = 0 (C write-only). A backend lists the dtypes it takes in
 * its registry row; any other dt fails (err_set) without touching C. */
typedef int (*gemm_dt_fn)(dtype_t dt, int M, int N, int K, const void *A, int lda,
                          const void *B, int ldb, void *C, int ldc);

/* One element of the reference, in double:
 *   alpha * sum_k A[i,k] * B[k,j] + beta * c_old   (beta == 0: c_old ignored).
 * The checker's reference and cpu-naive are both built from this. */
double gemm_ref_element(int i, int j, int K, double alpha, const float *A, int lda,
                        const float *B, int ldb, double beta, float c_old);

/* The reference backend: the plain triple loop, accumulating in double. */
int gemm_cpu_naive(int M, int N, int K, float alpha, const float *A, int lda,
                   const float *B, int ldb, float beta, float *C, int ldc);
/* Hand-written OpenMP + SIMD: blocking, packing, register-blocked micro-kernel. */
int gemm_cpu_omp(int M, int N, int K, float alpha, const float *A, int lda,
                 const float *B, int ldb, float beta, float *C, int ldc);
/* op(A) [M x K] * op(B) [K x N]: ta != 0 means A is stored K x M (lda >= M) and A^T is used;
 * tb != 0 means B is stored N x K (ldb >= K) and B^T is used. Otherwise as gemm_cpu_omp
 * (which is gemm_cpu_omp_t(0, 0, ...)). The transposes are read natively by the packing
 * routines: no transposed copy of either operand is ever made. */
int gemm_cpu_omp_t(int ta, int tb, int M, int N, int K, float alpha, const float *A, int lda,
                   const float *B, int ldb, float beta, float *C, int ldc);
/* The reference at dt: the triple loop in double over the dtype's values
 * (dtype_get), each element rounded once to dt. */
int gemm_cpu_naive_dt(dtype_t dt, int M, int N, int K, const void *A, int lda, const void *B,
                      int ldb, void *C, int ldc);
/* cpu-omp at bf16 and fp16 (gemm_dt_fn; any other dt: err_set, -1, C
 * untouched): packed, blocked micro-kernels chosen at run time by CPU
 * features (gemm_cpu_omp_dt_path names the one taken; gemm_omp_lowp.c):
 *   bf16: "amx-bf16 tdpbf16ps" (AMX-BF16, once Linux grants the tiles),
 *         "avx512-bf16 vdpbf16ps" (AVX512-BF16), else the portable path;
 *   fp16: "f16c convert in packing + fp32 fma" (F16C), else the portable
 *         path, "convert in packing + fp32 fma".
 * The environment variable BENCH_CPU_LOWP_PATH=portable (read at each call)
 * forces the portable path for both, so that tests cover it on any CPU.
 * Threads: cpu_threads_set()'s count (one for small products). */
int gemm_cpu_omp_dt(dtype_t dt, int M, int N, int K, const void *A, int lda, const void *B,
                    int ldb, void *C, int ldc);
/* The path gemm_cpu_omp_dt takes for dt on this CPU now (one of the names
 * above), for the row's note; "unsupported dtype" for other dtypes. */
const char *gemm_cpu_omp_dt_path(dtype_t dt);
/* oneDNN's matmul primitive (cpu-onednn; only in builds that found oneDNN):
 * fp32 (alpha 1, beta 0: what the suite asks), bf16 and fp16. */
int gemm_cpu_onednn(int M, int N, int K, float alpha, const float *A, int lda, const float *B,
                    int ldb, float beta, float *C, int ldc);
int gemm_cpu_onednn_dt(dtype_t dt, int M, int N, int K, const void *A, int lda, const void *B,
                       int ldb, void *C, int ldc);
/* Why oneDNN cannot run dt's matmul / convolution on this CPU (a primitive of
 * that type could not be created), or NULL. */
const char *gemm_onednn_dt_skip(dtype_t dt);
const char *conv_onednn_dt_skip(dtype_t dt);
/* OpenBLAS cblas_sbgemm at bf16, where the installed library exports it
 * (looked up at run time; gemm_blas_dt_skip says why not). */
int gemm_cpu_blas_dt(dtype_t dt, int M, int N, int K, const void *A, int lda, const void *B,
                     int ldb, void *C, int ldc);
const char *gemm_blas_dt_skip(dtype_t dt);
/* Why OpenBLAS runs below what this CPU could (backend_def.caveat): the core
 * it chose has a narrower SIMD tier than the CPU's (a model it does not
 * recognise falls back to Prescott's SSE kernels); NULL when it does not.
 * gemm_blas_caveat_for: the same for a core name, the CPU's tier (0 SSE,
 * 1 AVX, 2 AVX2, 3 AVX-512) and whether it has AVX512-BF16. */
const char *gemm_blas_caveat(void);
const char *gemm_blas_caveat_for(const char *core, int tier, int bf16);
/* OpenBLAS cblas_sgemm. */
int gemm_cpu_blas(int M, int N, int K, float alpha, const float *A, int lda,
                  const float *B, int ldb, float beta, float *C, int ldc);

/* Sets the thread count of both OpenMP (cpu-omp) and OpenBLAS (cpu-blas).
 * They never run at once, so each gets all n threads without oversubscribing. */
void cpu_threads_set(int n);
int cpu_threads_get(void);
/* The threads OpenBLAS really runs: its build may cap the count (MAX_THREADS). */
int cpu_threads_blas(void);

#ifdef __cplusplus
}
#endif
#endif
