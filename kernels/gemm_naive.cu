/* kernels/gemm_naive.cu - cuda-naive: one thread per element of C, the k loop
 * reading A and B straight from global memory.  The readable GPU reference
 * (contract: kernels/gemm_cuda.h).
 *
 * Launch: 32x8 threads per block; x runs along N (a warp reads 32 consecutive
 * elements of a row of B and writes 32 of C: coalesced), y along M.  Grid x is
 * ceil(N/32) (< 2^31 for any int N), grid y min(ceil(M/8), 65535) and the
 * kernel strides over the rows beyond it.
 */
#include "gemm_cuda.h"
#include "gemm_launch.h"
#include "cuda_check.h"

#define NAIVE_BX 32
#define NAIVE_BY 8

static __global__ void __launch_bounds__(NAIVE_BX * NAIVE_BY)
gemm_naive_kernel(int M, int N, int K, float alpha, const float *__restrict__ A, int lda,
                  const float *__restrict__ B, int ldb, float beta,
                  float *__restrict__ C, int ldc)
{
    const unsigned col = blockIdx.x * blockDim.x + threadIdx.x;
    if (col >= (unsigned)N)
        return;
    for (unsigned row = blockIdx.y * blockDim.y + threadIdx.y; row < (unsigned)M;
         row += gridDim.y * blockDim.y) {
        const float *a = A + (size_t)row * lda;
        const float *b = B + col;
        float acc = 0.0f;
        for (int k = 0; k < K; ++k, b += ldb)
            acc += a[k] * *b;
        float *c = C + (size_t)row * ldc + col;
        *c = beta == 0.0f ? alpha * acc : alpha * acc + beta * *c;
    }
}

extern "C" int gemm_cuda_naive(int M, int N, int K, float alpha, const float *dA, int lda,
                               const float *dB, int ldb, float beta, float *dC, int ldc,
                               cudaStream_t stream)
{
    if (!gemm_cuda_args_ok("gemm_cuda_naive", M, N, K, dA, lda, dB, ldb, dC, ldc))
        return -1;
    const dim3 grid(gemm_div_up(N, NAIVE_BX), gemm_grid_y(M, NAIVE_BY));
    const dim3 block(NAIVE_BX, NAIVE_BY);
    gemm_naive_kernel<<<grid, block, 0, stream>>>(M, N, K, alpha, dA, lda, dB, ldb, beta, dC,
                                                  ldc);
    LAUNCH_CHECK();
    return 0;
fail:
    return -1;
}
