/* kernels/conv_direct.cu - cuda-direct: direct convolution, the readable GPU
 * convolution (contract: kernels/conv_cuda.h).
 *
 * fwd        a block of 16x16 threads computes a 16x16 tile of output pixels
 *            (p, q) of one image for 8 output channels (8 accumulators per
 *            thread). For each input channel c it stages in shared memory the
 *            input patch the tile reads, (15*sh + R) x (15*sw + S) floats with
 *            the zero padding written in, and the 8 filters' R x S taps of c;
 *            then every thread does its R*S*8 multiply-adds from shared memory.
 * bwd-data   the transposed convolution, the same way round: a 16x16 tile of
 *            input pixels (h, w) for 8 input channels; per output channel k the
 *            block stages the dy patch that reaches the tile and w[k][c0..c0+7];
 *            a thread gathers the taps with h + ph - r divisible by sh (and
 *            w + pw - s by sw): dx[n,c,h,w] = sum dy[n,k,(h+ph-r)/sh,(w+pw-s)/sw]
 *            * w[k,c,r,s], no atomics, every dx element written once.
 * bwd-filter the simplest correct scheme: one block per filter plane (k, c)
 *            and, per tap (r, s), the block's 256 threads reduce the N*P*Q
 *            products dy * x (strided, fp32 partials, then a block-wide sum);
 *            db by conv_cuda_bias_grad. No workspace in any direction.
 * The staged patches need (15*s + R)(15*s + S) floats: above 48 KiB (large
 * strides or filters) the kernel asks for the opt-in limit of the device, and
 * beyond that the call fails saying so.
 * Grid: x = tiles of the plane, y = channel groups, z = images (grid-stride
 * over images past 65535).
 */
#include "conv_launch.h"
#include "cuda_check.h"
#include "smem_optin.h"

#define DIR_T 16   /* tile side (threads per side) */
#define DIR_KB 8   /* output (fwd) / input (bwd-data) channels per thread */
#define DIR_SMEM_HINT " (stride or filter too large for the direct kernel)"

static __global__ void __launch_bounds__(DIR_T * DIR_T)
conv_direct_fwd_kernel(conv_dims d, const float *__restrict__ x, const float *__restrict__ w,
                       const float *__restrict__ b, float *__restrict__ y, int tiles_q)
{
    DYNAMIC_SHARED(float, sm);
    const int IH = (DIR_T - 1) * d.sh + d.R, IW = (DIR_T - 1) * d.sw + d.S;
    const int RS = d.R * d.S;
    float *in = sm, *ws = sm + IH * IW; /* ws: [DIR_KB][R*S] */
    const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * DIR_T + tx;
    const int p0 = (blockIdx.x / tiles_q) * DIR_T, q0 = (blockIdx.x % tiles_q) * DIR_T;
    const int k0 = blockIdx.y * DIR_KB;
    const int h0 = p0 * d.sh - d.ph, w0 = q0 * d.sw - d.pw; /* patch origin in x */
    const int p = p0 + ty, q = q0 + tx;
    for (int n = blockIdx.z; n < d.N; n += gridDim.z) {
        float acc[DIR_KB];
UNROLL
        for (int kk = 0; kk < DIR_KB; ++kk) acc[kk] = 0.0f;
        for (int c = 0; c < d.C; ++c) {
            const float *xc = x + ((size_t)n * d.C + c) * d.H * d.W;
            __syncthreads(); /* the previous channel's reads are done */
            for (int i = tid; i < IH * IW; i += DIR_T * DIR_T) {
                const int h = h0 + i / IW, ww = w0 + i % IW;
                in[i] = h >= 0 && h < d.H && ww >= 0 && ww < d.W ? xc[h * d.W + ww] : 0.0f;
            }
            for (int i = tid; i < DIR_KB * RS; i += DIR_T * DIR_T) {
                const int k = k0 + i / RS;
                ws[i] = k < d.K ? w[((size_t)k * d.C + c) * RS + i % RS] : 0.0f;
            }
            __syncthreads();
            for (int r = 0; r < d.R; ++r)
                for (int s = 0; s < d.S; ++s) {
                    const float v = in[(ty * d.sh + r) * IW + tx * d.sw + s];
UNROLL
                    for (int kk = 0; kk < DIR_KB; ++kk) acc[kk] += v * ws[kk * RS + r * d.S + s];
                }
        }
        if (p < d.P && q < d.Q)
UNROLL
            for (int kk = 0; kk < DIR_KB; ++kk)
                if (k0 + kk < d.K)
                    y[(((size_t)n * d.K + k0 + kk) * d.P + p) * d.Q + q] = acc[kk] + b[k0 + kk];
    }
}

/* floor(a / b) for b > 0 and any a. */
static __device__ __forceinline__ int floor_div(int a, int b)
{
    return a >= 0 ? a / b : -((-a + b - 1) / b);
}

static __global__ void __launch_bounds__(DIR_T * DIR_T)
conv_direct_bwd_data_kernel(conv_dims d, const float *__restrict__ dy,
                            const float *__restrict__ w, float *__restrict__ dx, int tiles_w,
                            int DP, int DQ)
{
    DYNAMIC_SHARED(float, sm);
    const int RS = d.R * d.S;
    float *g = sm, *ws = sm + DP * DQ; /* g: the dy patch; ws: [DIR_KB][R*S] */
    const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * DIR_T + tx;
    const int h0 = (blockIdx.x / tiles_w) * DIR_T, w0 = (blockIdx.x % tiles_w) * DIR_T;
    const int c0 = blockIdx.y * DIR_KB;
    /* the lowest output row / column that reaches the tile */
    const int pbase = floor_div(h0 + d.ph - d.R + 1 + d.sh - 1, d.sh);
    const int qbase = floor_div(w0 + d.pw - d.S + 1 + d.sw - 1, d.sw);
    const int h = h0 + ty, ww = w0 + tx;
    for (int n = blockIdx.z; n < d.N; n += gridDim.z) {
        float acc[DIR_KB];
UNROLL
        for (int cc = 0; cc < DIR_KB; ++cc) acc[cc] = 0.0f;
        for (int k = 0; k < d.K; ++k) {
            const float *gk = dy + ((size_t)n * d.K + k) * d.P * d.Q;
            __syncthreads();
            for (int i = tid; i < DP * DQ; i += DIR_T * DIR_T) {
                const int p = pbase + i / DQ, q = qbase + i % DQ;
                g[i] = p >= 0 && p < d.P && q >= 0 && q < d.Q ? gk[p * d.Q + q] : 0.0f;
            }
            for (int i = tid; i < DIR_KB * RS; i += DIR_T * DIR_T) {
                const int c = c0 + i / RS;
                ws[i] = c < d.C ? w[((size_t)k * d.C + c) * RS + i % RS] : 0.0f;
            }
            __syncthreads();
            for (int r = 0; r < d.R; ++r) {
                const int hp = h + d.ph - r;
                if (hp < 0 || hp % d.sh) continue;
                const int pi = hp / d.sh - pbase;
                for (int s = 0; s < d.S; ++s) {
                    const int wq = ww + d.pw - s;
                    if (wq < 0 || wq % d.sw) continue;
                    const float v = g[pi * DQ + wq / d.sw - qbase];
UNROLL
                    for (int cc = 0; cc < DIR_KB; ++cc) acc[cc] += v * ws[cc * RS + r * d.S + s];
                }
            }
        }
        if (h < d.H && ww < d.W)
UNROLL
            for (int cc = 0; cc < DIR_KB; ++cc)
                if (c0 + cc < d.C)
                    dx[(((size_t)n * d.C + c0 + cc) * d.H + h) * d.W + ww] = acc[cc];
    }
}

static __global__ void __launch_bounds__(CONV_THREADS)
conv_direct_bwd_filter_kernel(conv_dims d, const float *__restrict__ x,
                              const float *__restrict__ dy, float *__restrict__ dw)
{
    __shared__ float red[32];
    const int PQ = d.P * d.Q;
    const long long terms = (long long)d.N * PQ;
    for (long long kc = blockIdx.x; kc < (long long)d.K * d.C; kc += gridDim.x) {
        const int k = (int)(kc / d.C), c = (int)(kc % d.C);
        for (int r = 0; r < d.R; ++r)
            for (int s = 0; s < d.S; ++s) {
                float acc = 0.0f;
                for (long long t = threadIdx.x; t < terms; t += blockDim.x) {
                    const int n = (int)(t / PQ), pq = (int)(t % PQ);
                    const int p = pq / d.Q, q = pq % d.Q;
                    const int h = p * d.sh - d.ph + r, ww = q * d.sw - d.pw + s;
                    if (h >= 0 && h < d.H && ww >= 0 && ww < d.W)
                        acc += dy[((size_t)n * d.K + k) * PQ + pq] *
                               x[(((size_t)n * d.C + c) * d.H + h) * d.W + ww];
                }
                acc = conv_block_sum(acc, red);
                if (threadIdx.x == 0) dw[kc * d.R * d.S + r * d.S + s] = acc;
                __syncthreads(); /* red is reused */
            }
    }
}

/* Grid over tiles of a th x tw plane, channel groups, images. */
static dim3 direct_grid(int th, int tw, int channels, int N)
{
    const unsigned tiles = gemm_div_up(th, DIR_T) * gemm_div_up(tw, DIR_T);
    return dim3(tiles, gemm_div_up(channels, DIR_KB), N < 65535 ? (unsigned)N : 65535u);
}

static int direct_fwd(const conv_dims *d, const float *x, const float *w, const float *b,
                      float *y, void *ws, void *stream)
{
    (void)ws;
    if (!conv_cuda_args_ok("conv_cuda_direct fwd", d, x, w, y) ||
        !conv_cuda_args_ok("conv_cuda_direct fwd", d, b, b, b))
        return -1;
    const size_t smem = sizeof(float) * ((size_t)((DIR_T - 1) * d->sh + d->R) *
                                             ((DIR_T - 1) * d->sw + d->S) +
                                         (size_t)DIR_KB * d->R * d->S);
    if (kernel_smem_optin("conv_cuda_direct fwd", (const void *)conv_direct_fwd_kernel, smem,
                          DIR_SMEM_HINT))
        return -1;
    if (gemm_div_up(d->P, DIR_T) * (unsigned long long)gemm_div_up(d->Q, DIR_T) > 0x7fffffffu ||
        gemm_div_up(d->K, DIR_KB) > 65535u) {
        err_set("conv_cuda_direct fwd: output %dx%d with %d channels exceeds the grid", d->P,
                d->Q, d->K);
        return -1;
    }
    conv_direct_fwd_kernel<<<direct_grid(d->P, d->Q, d->K, d->N), dim3(DIR_T, DIR_T), smem,
                             (cudaStream_t)stream>>>(*d, x, w, b, y,
                                                     (int)gemm_div_up(d->Q, DIR_T));
    LAUNCH_CHECK();
    return 0;
fail:
    return -1;
}

static int direct_bwd_data(const conv_dims *d, const float *dy, const float *w, float *dx,
                           void *ws, void *stream)
{
    (void)ws;
    if (!conv_cuda_args_ok("conv_cuda_direct bwd-data", d, dy, w, dx)) return -1;
    /* output rows reaching a tile of DIR_T input rows: DIR_T + R - 1 candidates, step sh */
    const int DP = (DIR_T + d->R - 2) / d->sh + 1, DQ = (DIR_T + d->S - 2) / d->sw + 1;
    const size_t smem = sizeof(float) * ((size_t)DP * DQ + (size_t)DIR_KB * d->R * d->S);
    if (kernel_smem_optin("conv_cuda_direct bwd-data", (const void *)conv_direct_bwd_data_kernel,
                          smem, DIR_SMEM_HINT))
        return -1;
    if (gemm_div_up(d->H, DIR_T) * (unsigned long long)gemm_div_up(d->W, DIR_T) > 0x7fffffffu ||
        gemm_div_up(d->C, DIR_KB) > 65535u) {
        err_set("conv_cuda_direct bwd-data: input %dx%d with %d channels exceeds the grid",
                d->H, d->W, d->C);
        return -1;
    }
    conv_direct_bwd_data_kernel<<<direct_grid(d->H, d->W, d->C, d->N), dim3(DIR_T, DIR_T),
                                  smem, (cudaStream_t)stream>>>(
        *d, dy, w, dx, (int)gemm_div_up(d->W, DIR_T), DP, DQ);
    LAUNCH_CHECK();
    return 0;
fail:
    return -1;
}

static int direct_bwd_filter(const conv_dims *d, const float *x, const float *dy, float *dw,
                             float *db, void *ws, void *stream)
{
    (void)ws;
    if (!conv_cuda_args_ok("conv_cuda_direct bwd-filter", d, x, dy, dw) ||
        !conv_cuda_args_ok("conv_cuda_direct bwd-filter", d, db, db, db))
        return -1;
    const long long planes = (long long)d->K * d->C;
    conv_direct_bwd_filter_kernel<<<planes < 65535 ? (unsigned)planes : 65535u, CONV_THREADS, 0,
                                    (cudaStream_t)stream>>>(*d, x, dy, dw);
    LAUNCH_CHECK();
    return conv_cuda_bias_grad(DTYPE_FP32, d, dy, db, (cudaStream_t)stream);
fail:
    return -1;
}

extern "C" const conv_ops CONV_CUDA_DIRECT = {direct_fwd, direct_bwd_data, direct_bwd_filter,
                                              NULL,
    NULL, NULL, NULL, NULL}; /* fp32 only */
