/* kernels/train_seq_adamw.cu - the AdamW update on the GPU (kernels/train_cuda.h; the
 * CPU's is cpu/train_seq_adamw.c; the launch shapes and contract notes:
 * kernels/train_seq_impl.h). */
#include "train_seq_impl.h"

/* ---- AdamW ---- */

/* The factors of a step that do not depend on t, from the host (double,
 * rounded to float once), and those that do, in double for the kernel. */
typedef struct adamw_args {
    float decay;         /* 1 - lr wd */
    float b1, omb1;      /* b1, 1 - b1 */
    float b2, omb2;      /* b2, 1 - b2 */
    float eps;
    double lr, b1d, b2d; /* for lr / (1 - b1^t), sqrt(1 - b2^t) */
} adamw_args;

/* One element: decay, the moments, the update (PyTorch 1.13's single-tensor
 * order: p *= decay; m = b1 m + (1-b1) g; v = b2 v + (1-b2) g g;
 * p -= step * m / (sqrt(v) / bc2s + eps)). */
static __device__ __forceinline__ void adamw1(float &p, float g, float &m, float &v,
                                              const adamw_args &a, float step, float bc2s)
{
    p *= a.decay;
    m = a.b1 * m + a.omb1 * g;
    v = a.b2 * v + a.omb2 * g * g;
    p -= step * (m / (sqrtf(v) / bc2s + a.eps));
}

template <bool VEC>
static __global__ void adamw_kernel(size_t n, float *__restrict__ p, const float *__restrict__ g,
                                    float *__restrict__ m, float *__restrict__ v,
                                    const float *__restrict__ t, adamw_args a)
{
    /* this step's t = *t + 1 and its two factors, once per block, in double */
    __shared__ float sh_step, sh_bc2s;
    if (threadIdx.x == 0) {
        const float t0 = *t;
        const double tt = (double)t0 + 1.0;
        const bool ok = t0 >= 0.0f && t0 < 16777216.0f && t0 == floorf(t0);
        sh_step = ok ? (float)(a.lr / (1.0 - pow(a.b1d, tt))) : NAN;
        sh_bc2s = (float)sqrt(1.0 - pow(a.b2d, tt));
    }
    __syncthreads();
    const float step = sh_step, bc2s = sh_bc2s;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    const size_t i1 = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t i0 = 0;
    if (VEC) {
        const size_t n4 = n / 4;
        float4 *p4 = reinterpret_cast<float4 *>(p), *m4 = reinterpret_cast<float4 *>(m);
        float4 *v4 = reinterpret_cast<float4 *>(v);
        const float4 *g4 = reinterpret_cast<const float4 *>(g);
        for (size_t i = i1; i < n4; i += stride) {
            float4 pp = p4[i], mm = m4[i], vv = v4[i];
            const float4 gg = g4[i];
            adamw1(pp.x, gg.x, mm.x, vv.x, a, step, bc2s);
            adamw1(pp.y, gg.y, mm.y, vv.y, a, step, bc2s);
            adamw1(pp.z, gg.z, mm.z, vv.z, a, step, bc2s);
            adamw1(pp.w, gg.w, mm.w, vv.w, a, step, bc2s);
            p4[i] = pp;
            m4[i] = mm;
            v4[i] = vv;
        }
        i0 = n4 * 4;
    }
    for (size_t i = i0 + i1; i < n; i += stride) {
        float pp = p[i], mm = m[i], vv = v[i];
        adamw1(pp, g[i], mm, vv, a, step, bc2s);
        p[i] = pp;
        m[i] = mm;
        v[i] = vv;
    }
}

/* *t = *t + 1, after every block of the step has read it. */
static __global__ void adamw_count_kernel(float *t) { t[0] += 1.0f; }

extern "C" int train_cuda_adamw(long n, float *p, const float *g, float *m, float *v, float *t,
                                float lr, float b1, float b2, float eps, float wd, void *stream)
{
    const char *who = "train_cuda adamw";
    if (!size_ok(who, n, "n", 0) || !ptrs_ok(who, p, g, m) || !ptrs_ok(who, v, t, t)) return -1;
    if (!(b1 >= 0.0f && b1 < 1.0f && b2 >= 0.0f && b2 < 1.0f)) { /* NaN fails too */
        err_set("%s: bad beta b1=%g b2=%g (each must be in [0, 1))", who, (double)b1, (double)b2);
        return -1;
    }
    {
        cudaStream_t s = (cudaStream_t)stream;
        adamw_args a;
        a.decay = (float)(1.0 - (double)lr * (double)wd);
        a.b1 = b1;
        a.omb1 = (float)(1.0 - (double)b1);
        a.b2 = b2;
        a.omb2 = (float)(1.0 - (double)b2);
        a.eps = eps;
        a.lr = lr;
        a.b1d = b1;
        a.b2d = b2;
        if (n > 0) {
            const size_t un = (size_t)n;
            const int vec = aligned16(p, g, m, v);
            const unsigned grid = elem_grid(vec ? (un + 3) / 4 : un);
            if (vec)
                adamw_kernel<true><<<grid, ELEM_THREADS, 0, s>>>(un, p, g, m, v, t, a);
            else
                adamw_kernel<false><<<grid, ELEM_THREADS, 0, s>>>(un, p, g, m, v, t, a);
            LAUNCH_CHECK();
        }
        adamw_count_kernel<<<1, 1, 0, s>>>(t);
        LAUNCH_CHECK();
    }
    return 0;
fail:
    return -1;
}
