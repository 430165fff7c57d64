/* kernels/conv_im2col.cu - cuda-im2col: the classic Caffe path on the GPU,
 * im2col + our cuda-regtile GEMM (kernels/gemm_regtile.cu), image by image
 * (contract: kernels/conv_cuda.h). With CRS = C*R*S and PQ = P*Q:
 *
 * fwd        col[crs][pq] = x[n, c, p*sh-ph+r, q*sw-pw+s] (0 in the padding);
 *            y[n] (K x PQ) = w (K x CRS) * col (CRS x PQ) + b, the bias written
 *            into y first (bias_fill) and the GEMM run with beta = 1.
 * bwd-data   wT (CRS x K) = w transposed, once per call; per image
 *            col (CRS x PQ) = wT * dy[n] (K x PQ), then col2im gathers
 *            dx[n,c,h,w] = sum of col[c,r,s][p,q] over the taps with
 *            h = p*sh-ph+r, w = q*sw-pw+s (one thread per dx element: no atomics).
 * bwd-filter colT[pq][crs] (im2col transposed, written coalesced);
 *            dw (K x CRS) += dy[n] (K x PQ) * colT (PQ x CRS), beta = 0 for the
 *            first image and 1 after; db by conv_cuda_bias_grad.
 * Workspace (ops.workspace): the one image's columns, CRS*PQ floats, plus
 * for bwd-data wT (K*CRS floats) after the columns rounded up to 16 bytes so
 * the GEMM keeps its float4 path. Everything is queued on the caller's stream,
 * so images reuse the columns in order.
 */
#include "conv_launch.h"
#include "gemm_cuda.h"
#include "cuda_check.h"

/* col (TRANS: colT) of image x (one image's [C][H][W]). */
template <bool TRANS>
static __global__ void conv_im2col_kernel(conv_dims d, const float *__restrict__ x,
                                          float *__restrict__ col)
{
    const int RS = d.R * d.S, PQ = d.P * d.Q, CRS = d.C * RS;
    const long long total = (long long)CRS * PQ;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < total;
         i += (long long)gridDim.x * blockDim.x) {
        /* the writes run along the fastest index of the destination */
        const int crs = TRANS ? (int)(i % CRS) : (int)(i / PQ);
        const int pq = TRANS ? (int)(i / CRS) : (int)(i % PQ);
        const int c = crs / RS, r = crs % RS / d.S, s = crs % d.S;
        const int h = pq / d.Q * d.sh - d.ph + r, w = pq % d.Q * d.sw - d.pw + s;
        col[i] = h >= 0 && h < d.H && w >= 0 && w < d.W ? x[((size_t)c * d.H + h) * d.W + w]
                                                        : 0.0f;
    }
}

/* dx of one image from its columns: one thread per dx element. */
static __global__ void conv_col2im_kernel(conv_dims d, const float *__restrict__ col,
                                          float *__restrict__ dx)
{
    const int PQ = d.P * d.Q, HW = d.H * d.W;
    const long long total = (long long)d.C * HW;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < total;
         i += (long long)gridDim.x * blockDim.x) {
        const int c = (int)(i / HW), h = (int)(i % HW) / d.W, w = (int)(i % d.W);
        float acc = 0.0f;
        for (int r = 0; r < d.R; ++r) {
            const int hp = h + d.ph - r;
            if (hp < 0 || hp % d.sh || hp / d.sh >= d.P) continue;
            for (int s = 0; s < d.S; ++s) {
                const int wq = w + d.pw - s;
                if (wq < 0 || wq % d.sw || wq / d.sw >= d.Q) continue;
                acc += col[((size_t)(c * d.R + r) * d.S + s) * PQ + hp / d.sh * d.Q + wq / d.sw];
            }
        }
        dx[i] = acc;
    }
}

/* wT[j][k] = w[k][j], w being K x CRS. */
static __global__ void conv_transpose_kernel(int K, int CRS, const float *__restrict__ w,
                                             float *__restrict__ wT)
{
    const long long total = (long long)K * CRS;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < total;
         i += (long long)gridDim.x * blockDim.x)
        wT[i] = w[(i % K) * CRS + i / K];
}

/* Floats of one image's columns, rounded up to 4 (16 bytes). */
static long long cols_floats(const conv_dims *d)
{
    const long long n = (long long)d->C * d->R * d->S * d->P * d->Q;
    return (n + 3) / 4 * 4;
}

static unsigned long long im2col_workspace(const conv_dims *d, conv_dir dir)
{
    const long long wT = dir == CONV_BWD_DATA ? (long long)d->K * d->C * d->R * d->S : 0;
    return (unsigned long long)(cols_floats(d) + wT) * sizeof(float);
}

/* GEMM sizes must fit an int. */
static int im2col_sizes_ok(const char *who, const conv_dims *d)
{
    const long long crs = (long long)d->C * d->R * d->S, pq = (long long)d->P * d->Q;
    if (crs * pq >= (1LL << 31)) {
        err_set("%s: one image's columns (%lld x %lld) reach 2^31 elements", who, crs, pq);
        return 0;
    }
    return 1;
}

static int im2col_fwd(const conv_dims *d, const float *x, const float *w, const float *b,
                      float *y, void *ws, void *stream)
{
    const char *who = "conv_cuda_im2col fwd";
    cudaStream_t s = (cudaStream_t)stream;
    if (!conv_cuda_args_ok(who, d, x, w, y) || !conv_cuda_args_ok(who, d, b, b, b) ||
        !im2col_sizes_ok(who, d) || !conv_cuda_ws_ok(who, ws, im2col_workspace(d, CONV_FWD)))
        return -1;
    const int CRS = d->C * d->R * d->S, PQ = d->P * d->Q;
    float *col = (float *)ws;
    if (conv_cuda_bias_fill(DTYPE_FP32, d, b, y, s)) return -1;
    for (int n = 0; n < d->N; ++n) {
        conv_im2col_kernel<false><<<conv_grid_1d((long long)CRS * PQ), CONV_THREADS, 0, s>>>(
            *d, x + (size_t)n * d->C * d->H * d->W, col);
        LAUNCH_CHECK();
        if (gemm_cuda_regtile(d->K, PQ, CRS, 1.0f, w, CRS, col, PQ, 1.0f,
                              y + (size_t)n * d->K * PQ, PQ, s))
            return -1;
    }
    return 0;
fail:
    return -1;
}

static int im2col_bwd_data(const conv_dims *d, const float *dy, const float *w, float *dx,
                           void *ws, void *stream)
{
    const char *who = "conv_cuda_im2col bwd-data";
    cudaStream_t s = (cudaStream_t)stream;
    if (!conv_cuda_args_ok(who, d, dy, w, dx) || !im2col_sizes_ok(who, d) ||
        !conv_cuda_ws_ok(who, ws, im2col_workspace(d, CONV_BWD_DATA)))
        return -1;
    const int CRS = d->C * d->R * d->S, PQ = d->P * d->Q;
    float *col = (float *)ws, *wT = col + cols_floats(d);
    conv_transpose_kernel<<<conv_grid_1d((long long)d->K * CRS), CONV_THREADS, 0, s>>>(d->K, CRS,
                                                                                      w, wT);
    LAUNCH_CHECK();
    for (int n = 0; n < d->N; ++n) {
        if (gemm_cuda_regtile(CRS, PQ, d->K, 1.0f, wT, d->K, dy + (size_t)n * d->K * PQ, PQ, 0.0f,
                              col, PQ, s))
            return -1;
        conv_col2im_kernel<<<conv_grid_1d((long long)d->C * d->H * d->W), CONV_THREADS, 0, s>>>(
            *d, col, dx + (size_t)n * d->C * d->H * d->W);
        LAUNCH_CHECK();
    }
    return 0;
fail:
    return -1;
}

static int im2col_bwd_filter(const conv_dims *d, const float *x, const float *dy, float *dw,
                             float *db, void *ws, void *stream)
{
    const char *who = "conv_cuda_im2col bwd-filter";
    cudaStream_t s = (cudaStream_t)stream;
    if (!conv_cuda_args_ok(who, d, x, dy, dw) || !conv_cuda_args_ok(who, d, db, db, db) ||
        !im2col_sizes_ok(who, d) ||
        !conv_cuda_ws_ok(who, ws, im2col_workspace(d, CONV_BWD_FILTER)))
        return -1;
    const int CRS = d->C * d->R * d->S, PQ = d->P * d->Q;
    float *colT = (float *)ws;
    for (int n = 0; n < d->N; ++n) {
        conv_im2col_kernel<true><<<conv_grid_1d((long long)CRS * PQ), CONV_THREADS, 0, s>>>(
            *d, x + (size_t)n * d->C * d->H * d->W, colT);
        LAUNCH_CHECK();
        if (gemm_cuda_regtile(d->K, CRS, PQ, 1.0f, dy + (size_t)n * d->K * PQ, PQ, colT, CRS,
                              n ? 1.0f : 0.0f, dw, CRS, s))
            return -1;
    }
    return conv_cuda_bias_grad(DTYPE_FP32, d, dy, db, s);
fail:
    return -1;
}

extern "C" const conv_ops CONV_CUDA_IM2COL = {im2col_fwd, im2col_bwd_data, im2col_bwd_filter,
                                              im2col_workspace,
    NULL, NULL, NULL, NULL}; /* fp32 only */
