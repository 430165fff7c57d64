/* kernels/gemm_cuda.h - CUDA single-precision GEMM backends.
 *
 * Contract (shared with cpu/gemm_cpu.h):
 *   C[M x N] = alpha * A[M x K] * B[K x N] + beta * C[M x N]
 *   row-major fp32; lda >= K, ldb >= N, ldc >= N (elements, not bytes);
 *   any M, N, K >= 1 (no multiple-of-tile requirement); all pointers DEVICE
 *   memory.  beta == 0 means C is write-only: its old contents (even NaN) are
 *   ignored, as in BLAS.
 * Asynchronous: the work is queued on `stream` and the function returns once
 * it is enqueued; it never synchronizes (except under bench_cuda_sync_launches,
 * the debug switch of harness/cuda_check.h).  A caller synchronizes the stream
 * (or records an event) before reading C.
 * Each function returns 0 on success, -1 on failure (bad arguments, a failed
 * launch or cuBLAS call) with the reason recorded by err_set (harness/errmsg.h).
 * Includable from C and C++; needs neither CUDA header from C.
 */
#ifndef KERNELS_GEMM_CUDA_H
#define KERNELS_GEMM_CUDA_H

#if defined(__CUDACC__) || (defined(__CUDAEMU__) && defined(__cplusplus))
#include <cuda_runtime_api.h> /* cudaStream_t (real or emulated runtime) */
#else
/* The same typedef as CUDA's driver_types.h (a repeat of it is allowed). */
typedef struct CUstream_st *cudaStream_t;
#endif

#include "../ops/dtype.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef int (*gemm_cuda_fn)(int M, int N, int K, float alpha,
                            const float *dA, int lda, const float *dB, int ldb,
                            float beta, float *dC, int ldc, cudaStream_t stream);

/* One thread per element of C, the k loop straight from global memory
 * (kernels/gemm_naive.cu): the readable GPU reference. */
int gemm_cuda_naive(int M, int N, int K, float alpha, const float *dA, int lda,
                    const float *dB, int ldb, float beta, float *dC, int ldc,
                    cudaStream_t stream);

/* 32x32 shared-memory tiles, one thread per element (kernels/gemm_tiled.cu). */
int gemm_cuda_tiled(int M, int N, int K, float alpha, const float *dA, int lda,
                    const float *dB, int ldb, float beta, float *dC, int ldc,
                    cudaStream_t stream);

/* 128x128x8 block tiles of 32x64 warp tiles, 8x8 outputs per thread in
 * registers, transposed A tile, a 4-stage shared-memory pipeline (B by
 * cp.async), 16-byte loads and stores when lda, ldb, ldc are multiples of 4
 * and the pointers 16-byte aligned (kernels/gemm_regtile.cu). */
int gemm_cuda_regtile(int M, int N, int K, float alpha, const float *dA, int lda,
                      const float *dB, int ldb, float beta, float *dC, int ldc,
                      cudaStream_t stream);
/* The same with transposed operands: C = alpha op(A) op(B) + beta C, where
 * ta != 0 makes op(A) = A^T (A is K x M, lda >= M) and tb != 0 op(B) = B^T
 * (B is N x K, ldb >= K), as ops/train_ops.h's gemm.  ta = tb = 0 is
 * gemm_cuda_regtile.  The A^T and B tiles are loaded as float4 along the
 * tile, the A and B^T tiles along k (vector path: the same conditions). */
int gemm_cuda_regtile_t(int ta, int tb, int M, int N, int K, float alpha, const float *dA,
                        int lda, const float *dB, int ldb, float beta, float *dC, int ldc,
                        cudaStream_t stream);

/* gemm_cuda_regtile_t over a strided batch (ops/train_ops.h's gemm_batched):
 * C_i = alpha op(A_i) op(B_i) + beta C_i for i < batch, matrix i at dA + i*sA,
 * dB + i*sB, dC + i*sC (strides in floats, >= 0; sC != 0 when batch > 1).
 * The same kernel, the batch in grid z; the float4 path also needs the
 * strides to be multiples of 4. */
int gemm_cuda_regtile_batched(int ta, int tb, int M, int N, int K, float alpha, const float *dA,
                              int lda, long long sA, const float *dB, int ldb, long long sB,
                              float beta, float *dC, int ldc, long long sC, int batch,
                              cudaStream_t stream);

/* cublasSgemm, fp32 math (CUBLAS_DEFAULT_MATH: no TF32 tensor cores unless
 * NVIDIA_TF32_OVERRIDE=1 is set in the environment). */
int gemm_cublas(int M, int N, int K, float alpha, const float *dA, int lda,
                const float *dB, int ldb, float beta, float *dC, int ldc,
                cudaStream_t stream);

/* gemm_cublas with transposed operands, as gemm_cuda_regtile_t (ta: A is
 * K x M, lda >= M; tb: B is N x K, ldb >= K); the same handle and math. */
int gemm_cublas_t(int ta, int tb, int M, int N, int K, float alpha, const float *dA, int lda,
                  const float *dB, int ldb, float beta, float *dC, int ldc,
                  cudaStream_t stream);

/* The strided batch through cublasSgemmStridedBatched, arguments and checks as
 * gemm_cuda_regtile_batched; the same handle and math as gemm_cublas_t. */
int gemm_cublas_batched(int ta, int tb, int M, int N, int K, float alpha, const float *dA,
                        int lda, long long sA, const float *dB, int ldb, long long sB, float beta,
                        float *dC, int ldc, long long sC, int batch, cudaStream_t stream);

/* cublasGemmEx with CUBLAS_COMPUTE_32F_FAST_TF32: inputs rounded to TF32
 * (10-bit mantissa), fp32 accumulation, tensor cores.  Check with DTYPE_TF32. */
int gemm_cublas_tf32(int M, int N, int K, float alpha, const float *dA, int lda,
                     const float *dB, int ldb, float beta, float *dC, int ldc,
                     cudaStream_t stream);

/* Reduced precision, as cpu/gemm_cpu.h's gemm_dt_fn, on DEVICE memory, queued
 * on stream: C = A*B with A, B, C in dtype dt (tf32: floats; bf16, fp16: 16-bit
 * words), fp32 accumulation, C rounded once to dt; alpha = 1, beta = 0. */
typedef int (*gemm_cuda_dt_fn)(dtype_t dt, int M, int N, int K, const void *dA, int lda,
                               const void *dB, int ldb, void *dC, int ldc, cudaStream_t stream);

/* cublasGemmEx at dt: CUDA_R_32F with CUBLAS_COMPUTE_32F_FAST_TF32 (tf32),
 * CUDA_R_16BF / CUDA_R_16F with CUBLAS_COMPUTE_32F (bf16 / fp16). */
int gemm_cublas_dt(dtype_t dt, int M, int N, int K, const void *dA, int lda, const void *dB,
                   int ldb, void *dC, int ldc, cudaStream_t stream);

/* Our tensor-core GEMM on nvcuda::wmma fragments (kernels/gemm_wmma.cu):
 * m16n16k16 for bf16 and fp16, m16n16k8 for tf32, block tiles staged through
 * shared memory as cuda-regtile's; any M, N, K (edge tiles padded with zeros). */
int gemm_cuda_wmma(dtype_t dt, int M, int N, int K, const void *dA, int lda, const void *dB,
                   int ldb, void *dC, int ldc, cudaStream_t stream);

/* Destroys the cuBLAS handles gemm_cublas* created (one per device, lazily on
 * first use).  Call once all their work is done, e.g. before cudaDeviceReset. */
void gemm_cublas_release(void);

#ifdef __cplusplus
}
#endif
#endif
