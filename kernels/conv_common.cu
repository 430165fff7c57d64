/* kernels/conv_common.cu - the bias kernels of the conv backends (declared in
 * conv_launch.h), for every element type a conv buffer holds (fp32; tf32 in
 * fp32 storage; bf16, fp16), each kernel written once as a template over the
 * storage type T:
 *   bias_fill   y[n,k,p,q] = b[k], grid-stride over y (a copy, exact in any
 *               type; im2col's GEMM, or cuDNN's convolution at beta = 1,
 *               then accumulates onto it);
 *   bias_grad   db[k] = sum over n, p, q of dy[n,k,p,q]: one block per k
 *               (grid-stride over k), each thread a strided share of the
 *               N*P*Q terms in fp32, then a block-wide fp32 sum, rounded
 *               once to T.
 * Users: cuda-direct, cuda-im2col, cuda-implicit (fp32), and cudnn where
 * cuDNN refuses the bias calls for a type (kernels/conv_cudnn.cu).
 */
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "conv_launch.h"
#include "cuda_check.h"

/* An element of T widened to fp32 (exact), and an fp32 value rounded once
 * (nearest even) to T. */
static __device__ __forceinline__ float elem_f32(float v) { return v; }
static __device__ __forceinline__ float elem_f32(__half v) { return __half2float(v); }
static __device__ __forceinline__ float elem_f32(__nv_bfloat16 v) { return __bfloat162float(v); }
template <typename T> struct elem_round;
template <> struct elem_round<float> {
    static __device__ __forceinline__ float of(float v) { return v; }
};
template <> struct elem_round<__half> {
    static __device__ __forceinline__ __half of(float v) { return __float2half_rn(v); }
};
template <> struct elem_round<__nv_bfloat16> {
    static __device__ __forceinline__ __nv_bfloat16 of(float v) { return __float2bfloat16_rn(v); }
};

template <typename T>
static __global__ void conv_bias_fill_kernel(int K, int PQ, long long total,
                                             const T *__restrict__ b, T *__restrict__ y)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < total;
         i += (long long)gridDim.x * blockDim.x)
        y[i] = b[(i / PQ) % K];
}

template <typename T>
static __global__ void __launch_bounds__(CONV_THREADS)
conv_bias_grad_kernel(int N, int K, int PQ, const T *__restrict__ dy, T *__restrict__ db)
{
    __shared__ float red[32];
    const long long per_k = (long long)N * PQ;
    for (int k = blockIdx.x; k < K; k += gridDim.x) {
        float acc = 0.0f;
        for (long long t = threadIdx.x; t < per_k; t += blockDim.x) {
            const long long n = t / PQ, pq = t - n * PQ;
            acc += elem_f32(dy[(n * K + k) * PQ + pq]);
        }
        acc = conv_block_sum(acc, red);
        if (threadIdx.x == 0) db[k] = elem_round<T>::of(acc);
        __syncthreads(); /* red is reused by the next k */
    }
}

template <typename T>
static int bias_fill(const conv_dims *d, const void *b, void *y, cudaStream_t stream)
{
    const long long total = conv_y_elems(d);
    conv_bias_fill_kernel<T><<<conv_grid_1d(total), CONV_THREADS, 0, stream>>>(
        d->K, d->P * d->Q, total, (const T *)b, (T *)y);
    LAUNCH_CHECK();
    return 0;
fail:
    return -1;
}

template <typename T>
static int bias_grad(const conv_dims *d, const void *dy, void *db, cudaStream_t stream)
{
    const unsigned grid = d->K < (int)CONV_GRID_MAX ? (unsigned)d->K : CONV_GRID_MAX;
    conv_bias_grad_kernel<T><<<grid, CONV_THREADS, 0, stream>>>(d->N, d->K, d->P * d->Q,
                                                                (const T *)dy, (T *)db);
    LAUNCH_CHECK();
    return 0;
fail:
    return -1;
}

/* The storage type of dt; -1 (err_set) for one no conv buffer holds. */
#define CONV_BIAS_DISPATCH(who, dt, fn, ...)                                                 \
    switch (dt) {                                                                            \
    case DTYPE_FP32:                                                                         \
    case DTYPE_TF32: return fn<float>(__VA_ARGS__);                                          \
    case DTYPE_BF16: return fn<__nv_bfloat16>(__VA_ARGS__);                                  \
    case DTYPE_FP16: return fn<__half>(__VA_ARGS__);                                         \
    default:                                                                                 \
        err_set("%s: dtype %s not supported (fp32, tf32, bf16, fp16)", who, dtype_name(dt)); \
        return -1;                                                                           \
    }

int conv_cuda_bias_fill(dtype_t dt, const conv_dims *d, const void *b, void *y,
                        cudaStream_t stream)
{
    CONV_BIAS_DISPATCH("conv_cuda_bias_fill", dt, bias_fill, d, b, y, stream)
}

int conv_cuda_bias_grad(dtype_t dt, const conv_dims *d, const void *dy, void *db,
                        cudaStream_t stream)
{
    CONV_BIAS_DISPATCH("conv_cuda_bias_grad", dt, bias_grad, d, dy, db, stream)
}
