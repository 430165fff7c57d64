/* kernels/train_seq_attn.cu - causal attention's softmax and its backward on the GPU (kernels/train_cuda.h; the
 * CPU's is cpu/train_seq_attn.c; the launch shapes and contract notes:
 * kernels/train_seq_impl.h). */
#include "train_seq_impl.h"

/* ---- causal attention softmax ---- */

/* Merges a running (max m, sum s of exp(v - m)) with another's; an empty
 * side (m = -inf, s = 0) adds nothing (and never computes inf - inf). */
static __device__ __forceinline__ void softmax_merge(float &m, float &s, float mo, float so)
{
    const float mn = fmaxf(m, mo);
    s = (m == -INFINITY ? 0.0f : s * expf(m - mn)) + (mo == -INFINITY ? 0.0f : so * expf(mo - mn));
    m = mn;
}

/* No __restrict__: p may be z. */
static __global__ void __launch_bounds__(ELEM_THREADS)
attn_softmax_kernel(size_t rows, int T, float scale, const float *z, float *p)
{
    const int lane = threadIdx.x % 32;
    const size_t step = (size_t)gridDim.x * ROW_WARPS;
    for (size_t r = (size_t)blockIdx.x * ROW_WARPS + threadIdx.x / 32; r < rows; r += step) {
        const int t = (int)(r % (unsigned)T);
        const float *zr = z + r * T;
        float *pr = p + r * T;
        float m = -INFINITY, s = 0.0f;
        for (int u = lane; u <= t; u += 32) {
            const float v = scale * zr[u];
            if (v > m) { /* a new maximum: rescale the sum so far */
                s = s * expf(m - v) + 1.0f;
                m = v;
            } else {
                s += expf(v - m); /* a NaN v makes s NaN, and the row */
            }
        }
UNROLL
        for (int o = 16; o > 0; o /= 2) {
            const float mo = __shfl_xor_sync(0xffffffffu, m, o);
            const float so = __shfl_xor_sync(0xffffffffu, s, o);
            softmax_merge(m, s, mo, so);
        }
        const float inv = 1.0f / s;
        for (int u = lane; u < T; u += 32) pr[u] = u <= t ? expf(scale * zr[u] - m) * inv : 0.0f;
    }
}

extern "C" int train_cuda_attn_softmax(long rows, int T, float scale, const float *z, float *p,
                                       void *stream)
{
    const char *who = "train_cuda attn_softmax";
    if (!size_ok(who, rows, "rows", 0) || !size_ok(who, T, "T", 1) || !ptrs_ok(who, z, p, p))
        return -1;
    if (rows == 0) return 0;
    attn_softmax_kernel<<<row_grid((size_t)rows), ELEM_THREADS, 0, (cudaStream_t)stream>>>(
        (size_t)rows, T, scale, z, p);
    LAUNCH_CHECK();
    return 0;
fail:
    return -1;
}

/* No __restrict__: dz may be dp. */
static __global__ void __launch_bounds__(ELEM_THREADS)
attn_softmax_bwd_kernel(size_t rows, int T, float scale, const float *__restrict__ p,
                        const float *dp, float *dz)
{
    const int lane = threadIdx.x % 32;
    const size_t step = (size_t)gridDim.x * ROW_WARPS;
    for (size_t r = (size_t)blockIdx.x * ROW_WARPS + threadIdx.x / 32; r < rows; r += step) {
        const int t = (int)(r % (unsigned)T);
        const float *pr = p + r * T, *dpr = dp + r * T;
        float *dzr = dz + r * T;
        float dot = 0.0f;
        for (int u = lane; u <= t; u += 32) dot += pr[u] * dpr[u];
        dot = warp_sum(dot);
        for (int u = lane; u < T; u += 32)
            dzr[u] = u <= t ? scale * pr[u] * (dpr[u] - dot) : 0.0f;
    }
}

extern "C" int train_cuda_attn_softmax_bwd(long rows, int T, float scale, const float *p,
                                           const float *dp, float *dz, void *stream)
{
    const char *who = "train_cuda attn_softmax_bwd";
    if (!size_ok(who, rows, "rows", 0) || !size_ok(who, T, "T", 1) || !ptrs_ok(who, p, dp, dz))
        return -1;
    if (rows == 0) return 0;
    attn_softmax_bwd_kernel<<<row_grid((size_t)rows), ELEM_THREADS, 0, (cudaStream_t)stream>>>(
        (size_t)rows, T, scale, p, dp, dz);
    LAUNCH_CHECK();
    return 0;
fail:
    return -1;
}
