/* kernels/gemm_launch.h - helpers shared by the GEMM kernel files: argument
 * checks against the contract of gemm_cuda.h, grid sizing, and UNROLL.
 * Included by kernels/gemm_*.cu only. */
#ifndef KERNELS_GEMM_LAUNCH_H
#define KERNELS_GEMM_LAUNCH_H

#include <stdint.h>
#include "../harness/errmsg.h"

/* `#pragma unroll` for nvcc; nothing under the emulator (g++), whose own
 * heuristics decide: a forced unroll of the register-tile loops made the
 * emulated kernels no faster (gpu.gemm_kernels 2.8 s both ways, conv_kernels
 * 4.1 s forced, 3.0 s not) and their compile 2-5x slower (gemm_wmma.cu 14 s
 * against 3 s at -O1, gemm_regtile.cu 12 s against 6 s). */
#if defined(__CUDACC__) && !defined(__CUDAEMU__)
#define UNROLL _Pragma("unroll")
#else
#define UNROLL
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

/* Whether the batch's C matrices (M x N, ldc >= N, matrix i at i*sC, sC >= 0)
 * share an element: matrices d apart do when d*sC = q*ldc + e with |q| < M
 * and |e| < N. O(1) for the usual layouts (one after the other, or side by
 * side within the rows), else O(batch). */
static inline int gemm_cuda_c_overlap(int M, int N, int ldc, long long sC, int batch)
{
    if (batch < 2) return 0;
    if (sC >= (long long)(M - 1) * ldc + N) return 0; /* one after the other */
    if (sC >= N && (long long)(batch - 1) * sC + N <= ldc) return 0; /* side by side */
    for (long long d = 1; d < batch; d++) {
        const long long delta = d * sC, q = delta / ldc, e = delta - q * ldc;
        if ((q < M && e < N) || (q + 1 < M && ldc - e < N)) return 1;
    }
    return 0;
}

/* A strided batch (ops/train_ops.h's gemm_batched): batch >= 1, strides >= 0,
 * and no element shared by two C matrices (A's and B's may be: stride 0
 * reuses one operand). The shape checks are gemm_cuda_args_ok_t's, made
 * first. Returns 1 when fine, else records why with err_set and returns 0. */
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
    if (gemm_cuda_c_overlap(M, N, ldc, sC, batch)) {
        err_set("%s: bad stride sC=%lld: the %d C matrices of %dx%d (ldc %d) would overlap",
                who, sC, batch, M, N, ldc);
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

/* Block b of a 1-D grid over tiles_m x tiles_n output tiles -> its tile
 * (tm, tn), in groups of GEMM_GROUP_M row tiles: consecutive blocks walk down
 * a column of tiles of the group, so blocks running together share rows of A
 * and columns of B in L2 (Triton's grouped ordering). Every tile once. */
#define GEMM_GROUP_M 8u
static __device__ __forceinline__ void gemm_block_tile(unsigned b, unsigned tiles_m,
                                                       unsigned tiles_n, unsigned *tm,
                                                       unsigned *tn)
{
    const unsigned group = b / (GEMM_GROUP_M * tiles_n);
    const unsigned in_group = b % (GEMM_GROUP_M * tiles_n);
    const unsigned first_m = group * GEMM_GROUP_M;
    const unsigned group_m = min(tiles_m - first_m, GEMM_GROUP_M);
    *tm = first_m + in_group % group_m;
    *tn = in_group / group_m;
}

/* Blocks along y: one per tile of `tile` rows, at most GEMM_GRID_Y_MAX. */
static inline unsigned gemm_grid_y(int M, unsigned tile)
{
    unsigned t = gemm_div_up(M, tile);
    return t < GEMM_GRID_Y_MAX ? t : GEMM_GRID_Y_MAX;
}

#endif
