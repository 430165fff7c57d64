/* kernels/train_seq_map.cu - elementwise maps: add, scale, round, gelu and its backward, and the
 * loss scaler's amp_scale and amp_unscale (ops/loss_scale.h) on the GPU (kernels/train_cuda.h; the
 * CPU's is cpu/train_seq_map.c; the launch shapes and contract notes:
 * kernels/train_seq_impl.h). */
#include "train_seq_impl.h"
#include "../ops/loss_scale.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

/* ---- elementwise maps: y[i] = F(a[i], b[i]) (add, scale, gelu, gelu_bwd) ---- */

struct AddOp {
    __device__ float operator()(float a, float b) const { return a + b; }
};

/* a * x; the second operand unused */
struct ScaleOp {
    float a;
    __device__ float operator()(float x, float) const { return a * x; }
};

/* x rounded to bf16 / fp16 (nearest even), back in a float; the second
 * operand unused */
struct RoundBf16Op {
    __device__ float operator()(float x, float) const
    {
        return __bfloat162float(__float2bfloat16_rn(x));
    }
};
struct RoundFp16Op {
    __device__ float operator()(float x, float) const { return __half2float(__float2half_rn(x)); }
};

#define GELU_K0 0.7978845608028654f /* sqrt(2/pi) */
#define GELU_K1 0.044715f

/* gelu(x); the second operand unused */
struct GeluOp {
    __device__ float operator()(float x, float) const
    {
        return 0.5f * x * (1.0f + tanhf(GELU_K0 * (x + GELU_K1 * x * x * x)));
    }
};

/* dy * gelu'(x), with u = k0 (x + k1 x^3):
 * gelu' = 0.5 (1 + tanh u) + 0.5 x (1 - tanh^2 u) k0 (1 + 3 k1 x^2) */
struct GeluBwdOp {
    __device__ float operator()(float x, float dy) const
    {
        const float th = tanhf(GELU_K0 * (x + GELU_K1 * x * x * x));
        const float d = 0.5f * (1.0f + th) +
                        0.5f * x * (1.0f - th * th) * GELU_K0 * (1.0f + 3.0f * GELU_K1 * x * x);
        return dy * d;
    }
};

/* No __restrict__: y may be a or b (each element is read, then written, by
 * one thread). VEC: the first n/4*4 elements as float4 (all aligned). */
template <class F, bool VEC>
static __global__ void map2_kernel(size_t n, const float *a, const float *b, float *y, F f)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t i0 = 0;
    if (VEC) {
        const size_t n4 = n / 4;
        const float4 *a4 = reinterpret_cast<const float4 *>(a);
        const float4 *b4 = reinterpret_cast<const float4 *>(b);
        float4 *y4 = reinterpret_cast<float4 *>(y);
        for (size_t i = t; i < n4; i += stride) {
            const float4 u = a4[i], v = b4[i];
            y4[i] = make_float4(f(u.x, v.x), f(u.y, v.y), f(u.z, v.z), f(u.w, v.w));
        }
        i0 = n4 * 4;
    }
    for (size_t i = i0 + t; i < n; i += stride) y[i] = f(a[i], b[i]);
}

template <class F>
static int map2(const char *who, long n, const float *a, const float *b, float *y, void *stream,
                F f = F())
{
    if (!size_ok(who, n, "n", 0) || !ptrs_ok(who, a, b, y)) return -1;
    if (n == 0) return 0;
    {
        const size_t un = (size_t)n;
        const int vec = aligned16(a, b, y);
        const unsigned grid = elem_grid(vec ? (un + 3) / 4 : un);
        if (vec)
            map2_kernel<F, true><<<grid, ELEM_THREADS, 0, (cudaStream_t)stream>>>(un, a, b, y, f);
        else
            map2_kernel<F, false><<<grid, ELEM_THREADS, 0, (cudaStream_t)stream>>>(un, a, b, y, f);
    }
    LAUNCH_CHECK();
    return 0;
fail:
    return -1;
}

extern "C" int train_cuda_add(long n, const float *a, const float *b, float *y, void *stream)
{
    return map2<AddOp>("train_cuda add", n, a, b, y, stream);
}

extern "C" int train_cuda_scale(long n, float a, float *x, void *stream)
{
    return map2<ScaleOp>("train_cuda scale", n, x, x, x, stream, ScaleOp{a});
}

extern "C" int train_cuda_round(long n, dtype_t dt, const float *x, float *y, void *stream)
{
    if (dt == DTYPE_BF16) return map2<RoundBf16Op>("train_cuda round", n, x, x, y, stream);
    if (dt == DTYPE_FP16) return map2<RoundFp16Op>("train_cuda round", n, x, x, y, stream);
    err_set("train_cuda round: dtype %s is not bf16 or fp16", dtype_name(dt));
    return -1;
}

extern "C" int train_cuda_gelu(long n, const float *x, float *y, void *stream)
{
    return map2<GeluOp>("train_cuda gelu", n, x, x, y, stream);
}

extern "C" int train_cuda_gelu_bwd(long n, const float *x, const float *dy, float *dx,
                                   void *stream)
{
    return map2<GeluBwdOp>("train_cuda gelu_bwd", n, x, dy, dx, stream);
}

/* ---- dynamic loss scaling (ops/loss_scale.h: the rule, written once) ---- */

static __global__ void amp_scale_kernel(size_t n, const float *ls, float *x)
{
    const float a = ls[LS_SCALE];
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) x[i] *= a;
}

/* Every thread that meets an inf/NaN stores 1 to ls[LS_FOUND] (the same
 * value: a benign race, as PyTorch's found_inf). */
static __global__ void amp_unscale_kernel(size_t n, float *g, float *ls, int plant)
{
    const float inv = ls_inv_scale(ls);
    const int planted = ls_planted(ls, plant);
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        g[i] = ls_unscale_elem(g[i], inv, (long)i, planted, &ls[LS_FOUND]);
}

static __global__ void amp_update_kernel(float *ls) { ls_update(ls); }

extern "C" int train_cuda_amp_scale(long n, const float *ls, float *x, void *stream)
{
    const char *who = "train_cuda amp_scale";
    if (!size_ok(who, n, "n", 0) || !ptrs_ok(who, ls, x, x)) return -1;
    if (n == 0) return 0;
    amp_scale_kernel<<<elem_grid((size_t)n), ELEM_THREADS, 0, (cudaStream_t)stream>>>((size_t)n,
                                                                                       ls, x);
    LAUNCH_CHECK();
    return 0;
fail:
    return -1;
}

/* Unscales on the stream, updates the state in one thread, then waits for
 * the step's flag (GradScaler.step's found_inf.item()). */
extern "C" int train_cuda_amp_unscale(long n, float *g, float *ls, int plant, int *found,
                                      void *stream)
{
    const char *who = "train_cuda amp_unscale";
    const cudaStream_t s = (cudaStream_t)stream;
    float last = 0.0f;
    if (!size_ok(who, n, "n", 0) || !ptrs_ok(who, g, ls, found)) return -1;
    if (n > 0) {
        amp_unscale_kernel<<<elem_grid((size_t)n), ELEM_THREADS, 0, s>>>((size_t)n, g, ls, plant);
        LAUNCH_CHECK();
    }
    amp_update_kernel<<<1, 1, 0, s>>>(ls);
    LAUNCH_CHECK();
    CUDA_TRY(cudaMemcpyAsync(&last, ls + LS_LAST, sizeof last, cudaMemcpyDeviceToHost, s));
    CUDA_TRY(cudaStreamSynchronize(s));
    *found = last != 0.0f;
    return 0;
fail:
    return -1;
}
