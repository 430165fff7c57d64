/* kernels/reduce_sum.cu - dst = the sum of n arrays (contract: reduce_sum.h).
 * One thread per element, grid-stride, the n terms added in order 0..n-1 so
 * the result does not depend on the launch. */
#include "reduce_sum.h"
#include "cuda_check.h"

#define REDUCE_THREADS 256
#define REDUCE_GRID_MAX 65535LL

static __global__ void reduce_sum_kernel(float *__restrict__ dst, const float *__restrict__ src,
                                         int n, long long count)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < count;
         i += (long long)gridDim.x * blockDim.x) {
        float acc = src[i];
        for (int j = 1; j < n; ++j) acc += src[(long long)j * count + i];
        dst[i] = acc;
    }
}

extern "C" int reduce_sum_cuda(float *dst, const float *src, int n, long long count,
                               void *stream)
{
    if (n < 1 || count < 0 || (count > 0 && (!dst || !src))) {
        err_set("reduce_sum_cuda: bad arguments n=%d count=%lld dst=%p src=%p", n, count,
                (void *)dst, (const void *)src);
        return -1;
    }
    if (count == 0) return 0;
    long long blocks = (count + REDUCE_THREADS - 1) / REDUCE_THREADS;
    if (blocks > REDUCE_GRID_MAX) blocks = REDUCE_GRID_MAX;
    reduce_sum_kernel<<<(unsigned)blocks, REDUCE_THREADS, 0, (cudaStream_t)stream>>>(dst, src, n,
                                                                                    count);
    LAUNCH_CHECK();
    return 0;
fail:
    return -1;
}
