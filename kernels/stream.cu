/* kernels/stream.cu - cuda-stream: McCalpin's copy, scale, add and triad on
 * the GPU (contract: kernels/stream_cuda.h).
 *
 * Memory-bound: each element is loaded and stored once, so what matters is
 * that every warp moves whole 128-byte lines and that enough loads are in
 * flight. A grid-stride loop over float4 (16-byte LDG/STG: a warp moves 512
 * contiguous bytes per access) with one wave of blocks (8 x 256 threads per
 * SM, full occupancy at <= 32 registers) keeps every SM busy at any n without
 * launching more blocks than can run. When x, y or out is not 16-byte aligned
 * (a chunk boundary in the middle of a line) the same loop runs on scalars.
 * The kernel is picked by an int at run time: a uniform branch, free beside
 * the memory traffic.
 */
#include "stream_cuda.h"
#include "cuda_check.h"

#include <stdint.h>

#define STREAM_BLOCK 256
#define STREAM_BLOCKS_PER_SM 8

/* One element, rounded as the contract says (never an FMA). */
static __device__ __forceinline__ float stream_op(int k, float s, float x, float y)
{
    switch (k) {
    case STREAM_SCALE: return __fmul_rn(s, x);
    case STREAM_ADD: return __fadd_rn(x, y);
    case STREAM_TRIAD: return __fadd_rn(x, __fmul_rn(s, y));
    default: return x;
    }
}

/* Scalar grid-stride loop over [0, n): any alignment. */
static __global__ void __launch_bounds__(STREAM_BLOCK)
stream_scalar_kernel(int k, size_t n, float s, const float *__restrict__ x,
                     const float *__restrict__ y, float *__restrict__ out)
{
    const int two_in = k == STREAM_ADD || k == STREAM_TRIAD;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        out[i] = stream_op(k, s, x[i], two_in ? y[i] : 0.0f);
}

/* float4 grid-stride loop over the n / 4 whole vectors; the first n % 4
 * threads of the grid then do the scalar tail. */
static __global__ void __launch_bounds__(STREAM_BLOCK)
stream_vec4_kernel(int k, size_t n, float s, const float *__restrict__ x,
                   const float *__restrict__ y, float *__restrict__ out)
{
    const int two_in = k == STREAM_ADD || k == STREAM_TRIAD;
    const size_t n4 = n / 4, first = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    const float4 *x4 = (const float4 *)x, *y4 = (const float4 *)y;
    float4 *o4 = (float4 *)out;
    for (size_t i = first; i < n4; i += (size_t)gridDim.x * blockDim.x) {
        const float4 a = x4[i], b = two_in ? y4[i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        o4[i] = make_float4(stream_op(k, s, a.x, b.x), stream_op(k, s, a.y, b.y),
                            stream_op(k, s, a.z, b.z), stream_op(k, s, a.w, b.w));
    }
    const size_t t = 4 * n4 + first;
    if (t < n) out[t] = stream_op(k, s, x[t], two_in ? y[t] : 0.0f);
}

extern "C" int stream_cuda(stream_kernel k, size_t n, float s, const float *dx, const float *dy,
                           float *dout, cudaStream_t stream)
{
    const int two_in = k == STREAM_ADD || k == STREAM_TRIAD;
    int dev = 0, sms = 0;
    if (k != STREAM_COPY && k != STREAM_SCALE && !two_in) {
        err_set("stream_cuda: unknown kernel %d", (int)k);
        return -1;
    }
    if (n == 0) return 0;
    if (!dx || !dout || (two_in && !dy)) {
        err_set("stream_cuda: null device pointer (x=%p y=%p out=%p)", (const void *)dx,
                (const void *)dy, (const void *)dout);
        return -1;
    }
    CUDA_TRY(cudaGetDevice(&dev));
    CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    {
        const uintptr_t addr = (uintptr_t)dx | (uintptr_t)dout | (two_in ? (uintptr_t)dy : 0);
        const int vec = addr % 16 == 0;
        const size_t items = vec ? (n / 4 > 0 ? n / 4 : 1) : n;
        const size_t wave = (size_t)sms * STREAM_BLOCKS_PER_SM;
        const size_t need = (items + STREAM_BLOCK - 1) / STREAM_BLOCK;
        /* grid, block, dynamic shared memory, stream, no attributes */
        const cudaLaunchConfig_t cfg = {dim3((unsigned)(need < wave ? need : wave), 1, 1),
                                        dim3(STREAM_BLOCK, 1, 1), 0, stream, NULL, 0};
        if (vec)
            LAUNCH_TRY(cudaLaunchKernelEx(&cfg, stream_vec4_kernel, (int)k, n, s, dx, dy, dout));
        else
            LAUNCH_TRY(cudaLaunchKernelEx(&cfg, stream_scalar_kernel, (int)k, n, s, dx, dy, dout));
    }
    return 0;
fail:
    return -1;
}
