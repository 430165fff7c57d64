/* kernels/train_seq_lstm.cu - the LSTM cell's pointwise part and its backward on the GPU (kernels/train_cuda.h; the
 * CPU's is cpu/train_seq_lstm.c; the launch shapes and contract notes:
 * kernels/train_seq_impl.h). */
#include "train_seq_impl.h"

/* ---- LSTM cell (pointwise part) ---- */

static __device__ __forceinline__ float sigmoidf(float x) { return 1.0f / (1.0f + expf(-x)); }

/* One element: gates (i, f, g, o) from the pre-activations and c_prev, then
 * c and h. */
static __device__ __forceinline__ void lstm_fwd1(float pi, float pf, float pg, float po, float cp,
                                                 float &i, float &f, float &g, float &o, float &c,
                                                 float &h)
{
    i = sigmoidf(pi);
    f = sigmoidf(pf);
    g = tanhf(pg);
    o = sigmoidf(po);
    c = f * cp + i * g;
    h = o * tanhf(c);
}

/* One element of the backward: dh, dc (0 at the last step), the gates, c_prev
 * (0 at the first step) and c give dpre (4) and dc_prev. */
static __device__ __forceinline__ void lstm_bwd1(float dh, float dc, float i, float f, float g,
                                                 float o, float cp, float c, float &di, float &df,
                                                 float &dg, float &dout, float &dcp)
{
    const float tc = tanhf(c);
    const float dct = dc + dh * o * (1.0f - tc * tc);
    di = dct * g * i * (1.0f - i);
    df = dct * cp * f * (1.0f - f);
    dg = dct * i * (1.0f - g * g);
    dout = dh * tc * o * (1.0f - o);
    dcp = dct * f;
}

static __device__ __forceinline__ void lstm_fwd(float pi, float pf, float pg, float po, float cp,
                                                float &i, float &f, float &g, float &o, float &c,
                                                float &h)
{
    lstm_fwd1(pi, pf, pg, po, cp, i, f, g, o, c, h);
}

static __device__ __forceinline__ void lstm_fwd(float4 pi, float4 pf, float4 pg, float4 po,
                                                float4 cp, float4 &i, float4 &f, float4 &g,
                                                float4 &o, float4 &c, float4 &h)
{
    lstm_fwd1(pi.x, pf.x, pg.x, po.x, cp.x, i.x, f.x, g.x, o.x, c.x, h.x);
    lstm_fwd1(pi.y, pf.y, pg.y, po.y, cp.y, i.y, f.y, g.y, o.y, c.y, h.y);
    lstm_fwd1(pi.z, pf.z, pg.z, po.z, cp.z, i.z, f.z, g.z, o.z, c.z, h.z);
    lstm_fwd1(pi.w, pf.w, pg.w, po.w, cp.w, i.w, f.w, g.w, o.w, c.w, h.w);
}

static __device__ __forceinline__ void lstm_bwd(float dh, float dc, float i, float f, float g,
                                                float o, float cp, float c, float &di, float &df,
                                                float &dg, float &dout, float &dcp)
{
    lstm_bwd1(dh, dc, i, f, g, o, cp, c, di, df, dg, dout, dcp);
}

static __device__ __forceinline__ void lstm_bwd(float4 dh, float4 dc, float4 i, float4 f,
                                                float4 g, float4 o, float4 cp, float4 c,
                                                float4 &di, float4 &df, float4 &dg, float4 &dout,
                                                float4 &dcp)
{
    lstm_bwd1(dh.x, dc.x, i.x, f.x, g.x, o.x, cp.x, c.x, di.x, df.x, dg.x, dout.x, dcp.x);
    lstm_bwd1(dh.y, dc.y, i.y, f.y, g.y, o.y, cp.y, c.y, di.y, df.y, dg.y, dout.y, dcp.y);
    lstm_bwd1(dh.z, dc.z, i.z, f.z, g.z, o.z, cp.z, c.z, di.z, df.z, dg.z, dout.z, dcp.z);
    lstm_bwd1(dh.w, dc.w, i.w, f.w, g.w, o.w, cp.w, c.w, di.w, df.w, dg.w, dout.w, dcp.w);
}

/* No __restrict__ on pre and gates (gates may be pre: a thread reads its 4
 * pre-activations before writing its 4 gates). T: float or float4 (H then
 * counts float4); one thread per (row, j). */
template <typename T>
static __global__ void lstm_cell_kernel(size_t n, unsigned H, const T *pre,
                                        const T *__restrict__ c_prev, T *gates,
                                        T *__restrict__ c, T *__restrict__ h)
{
    for (size_t e = (size_t)blockIdx.x * blockDim.x + threadIdx.x; e < n;
         e += (size_t)gridDim.x * blockDim.x) {
        const size_t r = e / H, j = e % H, base = r * 4 * H + j;
        const T pi = pre[base], pf = pre[base + H], pg = pre[base + 2 * H], po = pre[base + 3 * H];
        T cp;
        if (c_prev)
            cp = c_prev[e];
        else
            fill(cp, 0.0f);
        T i, f, g, o, cn, hn;
        lstm_fwd(pi, pf, pg, po, cp, i, f, g, o, cn, hn);
        gates[base] = i;
        gates[base + H] = f;
        gates[base + 2 * H] = g;
        gates[base + 3 * H] = o;
        c[e] = cn;
        h[e] = hn;
    }
}

/* Whether H % 4 == 0 and every (non-null) pointer is 16-byte aligned. */
static int lstm_vec(int H, const void *a, const void *b, const void *c, const void *d,
                    const void *e, const void *f)
{
    return H % 4 == 0 && aligned16(a, b, c, d) && aligned16(e, f);
}

extern "C" int train_cuda_lstm_cell(int rows, int H, const float *pre, const float *c_prev,
                                    float *gates, float *c, float *h, void *stream)
{
    const char *who = "train_cuda lstm_cell";
    if (!size_ok(who, rows, "rows", 0) || !size_ok(who, H, "H", 0) ||
        !ptrs_ok(who, pre, gates, gates) || !ptrs_ok(who, c, h, h))
        return -1;
    {
        const size_t n = (size_t)rows * H;
        cudaStream_t s = (cudaStream_t)stream;
        if (n == 0) return 0;
        if (lstm_vec(H, pre, c_prev, gates, c, h, NULL))
            lstm_cell_kernel<float4><<<elem_grid(n / 4), ELEM_THREADS, 0, s>>>(
                n / 4, (unsigned)H / 4, reinterpret_cast<const float4 *>(pre),
                reinterpret_cast<const float4 *>(c_prev), reinterpret_cast<float4 *>(gates),
                reinterpret_cast<float4 *>(c), reinterpret_cast<float4 *>(h));
        else
            lstm_cell_kernel<float><<<elem_grid(n), ELEM_THREADS, 0, s>>>(
                n, (unsigned)H, pre, c_prev, gates, c, h);
    }
    LAUNCH_CHECK();
    return 0;
fail:
    return -1;
}

/* No __restrict__ on dc and dc_prev (dc_prev may be dc: a thread reads its dc
 * before writing its dc_prev). dc NULL: 0; c_prev NULL: 0, dc_prev unwritten. */
template <typename T>
static __global__ void lstm_cell_bwd_kernel(size_t n, unsigned H, const T *__restrict__ dh,
                                            const T *dc, const T *__restrict__ gates,
                                            const T *__restrict__ c_prev, const T *__restrict__ c,
                                            T *__restrict__ dpre, T *dc_prev)
{
    for (size_t e = (size_t)blockIdx.x * blockDim.x + threadIdx.x; e < n;
         e += (size_t)gridDim.x * blockDim.x) {
        const size_t r = e / H, j = e % H, base = r * 4 * H + j;
        T dcn, cp;
        if (dc)
            dcn = dc[e];
        else
            fill(dcn, 0.0f);
        if (c_prev)
            cp = c_prev[e];
        else
            fill(cp, 0.0f);
        T di, df, dg, dout, dcp;
        lstm_bwd(dh[e], dcn, gates[base], gates[base + H], gates[base + 2 * H],
                 gates[base + 3 * H], cp, c[e], di, df, dg, dout, dcp);
        dpre[base] = di;
        dpre[base + H] = df;
        dpre[base + 2 * H] = dg;
        dpre[base + 3 * H] = dout;
        if (c_prev) dc_prev[e] = dcp;
    }
}

extern "C" int train_cuda_lstm_cell_bwd(int rows, int H, const float *dh, const float *dc,
                                        const float *gates, const float *c_prev, const float *c,
                                        float *dpre, float *dc_prev, void *stream)
{
    const char *who = "train_cuda lstm_cell_bwd";
    if (!size_ok(who, rows, "rows", 0) || !size_ok(who, H, "H", 0) ||
        !ptrs_ok(who, dh, gates, c) || !ptrs_ok(who, dpre, dpre, dpre))
        return -1;
    if (c_prev && !dc_prev) {
        err_set("%s: null device pointer dc_prev with c_prev %p (not the first step)", who,
                (const void *)c_prev);
        return -1;
    }
    {
        const size_t n = (size_t)rows * H;
        cudaStream_t s = (cudaStream_t)stream;
        if (n == 0) return 0;
        if (lstm_vec(H, dh, dc, gates, c_prev, c, dpre) && aligned16(dc_prev))
            lstm_cell_bwd_kernel<float4><<<elem_grid(n / 4), ELEM_THREADS, 0, s>>>(
                n / 4, (unsigned)H / 4, reinterpret_cast<const float4 *>(dh),
                reinterpret_cast<const float4 *>(dc), reinterpret_cast<const float4 *>(gates),
                reinterpret_cast<const float4 *>(c_prev), reinterpret_cast<const float4 *>(c),
                reinterpret_cast<float4 *>(dpre), reinterpret_cast<float4 *>(dc_prev));
        else
            lstm_cell_bwd_kernel<float><<<elem_grid(n), ELEM_THREADS, 0, s>>>(
                n, (unsigned)H, dh, dc, gates, c_prev, c, dpre, dc_prev);
    }
    LAUNCH_CHECK();
    return 0;
fail:
    return -1;
}
