/* kernels/gemm_launch.h - helpers shared by the GEMM kernel files: argument
 * checks against the contract of gemm_cuda.h, grid sizing, and UNROLL.
 * Included by kernels/gemm_*.cu only. */
#ifndef KERNELS_GEMM_LAUNCH_H
#define KERNELS_GEMM_LAUNCH_H

#include <stdint.h>
#include "../harness/errmsg.h"

/* `#pragma unroll` for nvcc; under the emulator (g++) the GCC spelling, which
 * g++ understands (it warns on the CUDA one) and which unrolls there too. */
#if defined(__CUDACC__)
#define UNROLL _Pragma("unroll")
#else
#define UNROLL _Pragma("GCC unroll 16")
#endif

/* Grid y is at most 65535 blocks; kernels loop over the row tiles beyond it
 * (grid-stride in y), so any M fits. */
#define GEMM_GRID_Y_MAX 65535u

/* Shapes and leading dimensions as the contract demands; non-null pointers.
 * ta / tb: op(A) = A^T (A is K x M, lda >= M) / op(B) = B^T (B is N x K,
 * ldb >= K), as ops/train_ops.h; 0, 0 is gemm_cuda.h's contract.
 * Returns 1 when fine, else records why with err_set and returns 0. */
static inline int gemm_cuda_args_ok_t(const char *who, int ta, int tb, int M, int N, int K,
                                      const float *A, int lda, const float *B, int ldb,
                                      const float *C, int ldc)
{
    if (M < 1 || N < 1 || K < 1) {
        err_set("%s: bad shape M=%d N=%d K=%d (each must be >= 1)", who, M, N, K);
        return 0;
    }
    if (lda < (ta ? M : K) || ldb < (tb ? K : N) || ldc < N) {
        err_set("%s: bad leading dimension lda=%d ldb=%d ldc=%d for M=%d N=%d K=%d%s%s "
                "(need lda>=%s, ldb>=%s, ldc>=N)", who, lda, ldb, ldc, M, N, K,
                ta ? " A^T" : "", tb ? " B^T" : "", ta ? "M" : "K", tb ? "K" : "N");
        return 0;
    }
    if (!A || !B || !C) {
        err_set("%s: null device pointer (A=%p B=%p C=%p)", who, (const void *)A,
                (const void *)B, (const void *)C);
        return 0;
    }
    return 1;
}

/* A strided batch (ops/train_ops.h's gemm_batched): batch >= 1, strides >= 0,
 * and the C matrices distinct (sC != 0 when batch > 1; interleaved layouts
 * whose spans overlap but whose elements do not stay allowed). Returns 1
 * when fine, else records why with err_set and returns 0. */
static inline int gemm_cuda_batch_ok(const char *who, int M, int N, int ldc, long long sA,
                                     long long sB, long long sC, int batch)
{
    if (batch < 1) {
        err_set("%s: bad batch=%d (must be >= 1)", who, batch);
        return 0;
    }
    if (sA < 0 || sB < 0 || sC < 0) {
        err_set("%s: bad stride sA=%lld sB=%lld sC=%lld (each must be >= 0)", who, sA, sB, sC);
        return 0;
    }
    if (batch > 1 && sC == 0) {
        err_set("%s: bad stride sC=0 for batch=%d: the %dx%d C matrices (ldc %d) would overlap",
                who, batch, M, N, ldc);
        return 0;
    }
    return 1;
}

static inline int gemm_cuda_args_ok(const char *who, int M, int N, int K,
                                    const float *A, int lda, const float *B, int ldb,
                                    const float *C, int ldc)
{
    return gemm_cuda_args_ok_t(who, 0, 0, M, N, K, A, lda, B, ldb, C, ldc);
}

/* ceil(n / d) for n >= 1, in unsigned arithmetic (no int overflow). */
static inline unsigned gemm_div_up(int n, unsigned d)
{
    return (unsigned)(((uint64_t)(unsigned)n + d - 1u) / d);
}

/* Blocks along y: one per tile of `tile` rows, at most GEMM_GRID_Y_MAX. */
static inline unsigned gemm_grid_y(int M, unsigned tile)
{
    unsigned t = gemm_div_up(M, tile);
    return t < GEMM_GRID_Y_MAX ? t : GEMM_GRID_Y_MAX;
}

#endif
