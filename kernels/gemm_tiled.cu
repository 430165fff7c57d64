/* kernels/gemm_tiled.cu - cuda-tiled: the classic shared-memory tiling.
 * (contract: kernels/gemm_cuda.h)
 *
 * A block of TxT threads (T = 32: 1024 threads) computes a TxT tile of C, one
 * element per thread.  For each step of T along K it stages a TxT tile of A
 * and of B in shared memory (each thread loads one element of each, coalesced
 * along rows), synchronizes, and accumulates T products from shared memory:
 * every global element is read once per tile instead of once per product.
 * Bank conflicts: a warp is one row ty of the tile, so As[ty][k] is a
 * broadcast and Bs[k][tx] 32 consecutive words.
 * Edges: elements outside A or B load as 0 and outside C are not stored, so
 * any M, N, K work.  Grid: x = ceil(N/T), y = min(ceil(M/T), 65535), the
 * block strides over the row tiles beyond it.  Shared memory: 2*T*T*4 = 8 KiB.
 */
#include "gemm_cuda.h"
#include "gemm_launch.h"
#include "cuda_check.h"

#define TILED_T 32

template <int T>
static __global__ void __launch_bounds__(T * T)
gemm_tiled_kernel(int M, int N, int K, float alpha, const float *__restrict__ A, int lda,
                  const float *__restrict__ B, int ldb, float beta,
                  float *__restrict__ C, int ldc)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const unsigned tx = threadIdx.x, ty = threadIdx.y;
    const unsigned uM = (unsigned)M, uN = (unsigned)N, uK = (unsigned)K;
    const unsigned col = blockIdx.x * T + tx;
    const unsigned tiles_m = (uM + T - 1) / T;

    for (unsigned tm = blockIdx.y; tm < tiles_m; tm += gridDim.y) { /* uniform per block */
        const unsigned row = tm * T + ty;
        const float *a = A + (size_t)row * lda;
        float acc = 0.0f;
        for (unsigned k0 = 0; k0 < uK; k0 += T) {
            As[ty][tx] = (row < uM && k0 + tx < uK) ? a[k0 + tx] : 0.0f;
            Bs[ty][tx] = (k0 + ty < uK && col < uN) ? B[(size_t)(k0 + ty) * ldb + col] : 0.0f;
            __syncthreads();
UNROLL
            for (int k = 0; k < T; ++k)
                acc += As[ty][k] * Bs[k][tx];
            __syncthreads();
        }
        if (row < uM && col < uN) {
            float *c = C + (size_t)row * ldc + col;
            *c = beta == 0.0f ? alpha * acc : alpha * acc + beta * *c;
        }
    }
}

extern "C" int gemm_cuda_tiled(int M, int N, int K, float alpha, const float *dA, int lda,
                               const float *dB, int ldb, float beta, float *dC, int ldc,
                               cudaStream_t stream)
{
    if (!gemm_cuda_args_ok("gemm_cuda_tiled", M, N, K, dA, lda, dB, ldb, dC, ldc))
        return -1;
    const dim3 grid(gemm_div_up(N, TILED_T), gemm_grid_y(M, TILED_T));
    const dim3 block(TILED_T, TILED_T);
    gemm_tiled_kernel<TILED_T><<<grid, block, 0, stream>>>(M, N, K, alpha, dA, lda, dB, ldb,
                                                           beta, dC, ldc);
    LAUNCH_CHECK();
    return 0;
fail:
    return -1;
}
