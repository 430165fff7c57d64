/* kernels/conv_common.cu - the bias kernels of the hand-written conv backends
 * (cuda-direct, cuda-im2col, cuda-implicit; declared in conv_launch.h):
 *   bias_fill   y[n,k,p,q] = b[k], grid-stride over y (im2col's GEMM then
 *               accumulates onto it with beta = 1);
 *   bias_grad   db[k] = sum over n, p, q of dy[n,k,p,q]: one block per k
 *               (grid-stride over k), each thread a strided share of the
 *               N*P*Q terms in fp32, then a block-wide sum.
 */
#include "conv_launch.h"
#include "cuda_check.h"

static __global__ void conv_bias_fill_kernel(int K, int PQ, long long total,
                                             const float *__restrict__ b, float *__restrict__ y)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < total;
         i += (long long)gridDim.x * blockDim.x)
        y[i] = b[(i / PQ) % K];
}

static __global__ void __launch_bounds__(CONV_THREADS)
conv_bias_grad_kernel(int N, int K, int PQ, const float *__restrict__ dy, float *__restrict__ db)
{
    __shared__ float red[32];
    const long long per_k = (long long)N * PQ;
    for (int k = blockIdx.x; k < K; k += gridDim.x) {
        float acc = 0.0f;
        for (long long t = threadIdx.x; t < per_k; t += blockDim.x) {
            const long long n = t / PQ, pq = t - n * PQ;
            acc += dy[(n * K + k) * PQ + pq];
        }
        acc = conv_block_sum(acc, red);
        if (threadIdx.x == 0) db[k] = acc;
        __syncthreads(); /* red is reused by the next k */
    }
}

int conv_cuda_bias_fill(const conv_dims *d, const float *b, float *y, cudaStream_t stream)
{
    const long long total = conv_y_elems(d);
    conv_bias_fill_kernel<<<conv_grid_1d(total), CONV_THREADS, 0, stream>>>(d->K, d->P * d->Q,
                                                                            total, b, y);
    LAUNCH_CHECK();
    return 0;
fail:
    return -1;
}

int conv_cuda_bias_grad(const conv_dims *d, const float *dy, float *db, cudaStream_t stream)
{
    const unsigned grid = d->K < (int)CONV_GRID_MAX ? (unsigned)d->K : CONV_GRID_MAX;
    conv_bias_grad_kernel<<<grid, CONV_THREADS, 0, stream>>>(d->N, d->K, d->P * d->Q, dy, db);
    LAUNCH_CHECK();
    return 0;
fail:
    return -1;
}
