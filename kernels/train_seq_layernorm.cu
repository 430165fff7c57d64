/* kernels/train_seq_layernorm.cu - layernorm and its backward on the GPU (kernels/train_cuda.h; the
 * CPU's is cpu/train_seq_layernorm.c; the launch shapes and contract notes:
 * kernels/train_seq_impl.h). */
#include "train_seq_impl.h"

/* ---- layernorm ---- */

static __device__ __forceinline__ float sum4(float4 v) { return (v.x + v.y) + (v.z + v.w); }

/* One warp per row. V > 0: the row as float4, at most V per lane, kept in
 * registers (dim % 4 == 0, dim <= 128 V, all pointers aligned); V == 0: any
 * dim, scalar, x read three times. */
template <int V>
static __global__ void __launch_bounds__(ELEM_THREADS)
layernorm_kernel(int rows, int dim, const float *__restrict__ x, const float *__restrict__ w,
                 const float *__restrict__ b, float *__restrict__ y, float *__restrict__ mean,
                 float *__restrict__ rstd)
{
    const int lane = threadIdx.x % 32;
    const unsigned step = gridDim.x * ROW_WARPS; /* r + step < 2^31 + 2^19: no wrap */
    const float inv_dim = 1.0f / (float)dim;
    for (unsigned r = blockIdx.x * ROW_WARPS + threadIdx.x / 32; r < (unsigned)rows; r += step) {
        const float *xr = x + (size_t)r * dim;
        float *yr = y + (size_t)r * dim;
        float mu, rs;
        if (V > 0) {
            const int d4 = dim / 4;
            const float4 *x4 = reinterpret_cast<const float4 *>(xr);
            float4 v[V > 0 ? V : 1];
            float s = 0.0f;
UNROLL
            for (int k = 0; k < V; ++k) {
                const int c = lane + 32 * k;
                v[k] = c < d4 ? x4[c] : f4(0.0f);
                s += sum4(v[k]);
            }
            mu = warp_sum(s) * inv_dim;
            float q = 0.0f;
UNROLL
            for (int k = 0; k < V; ++k)
                if (lane + 32 * k < d4) {
                    const float4 e = make_float4(v[k].x - mu, v[k].y - mu, v[k].z - mu, v[k].w - mu);
                    q += (e.x * e.x + e.y * e.y) + (e.z * e.z + e.w * e.w);
                }
            rs = 1.0f / sqrtf(warp_sum(q) * inv_dim + 1e-5f);
            const float4 *w4 = reinterpret_cast<const float4 *>(w);
            const float4 *b4 = reinterpret_cast<const float4 *>(b);
            float4 *y4 = reinterpret_cast<float4 *>(yr);
UNROLL
            for (int k = 0; k < V; ++k) {
                const int c = lane + 32 * k;
                if (c < d4) {
                    const float4 ww = w4[c], bb = b4[c];
                    y4[c] = make_float4((v[k].x - mu) * rs * ww.x + bb.x,
                                        (v[k].y - mu) * rs * ww.y + bb.y,
                                        (v[k].z - mu) * rs * ww.z + bb.z,
                                        (v[k].w - mu) * rs * ww.w + bb.w);
                }
            }
        } else {
            float s = 0.0f;
            for (int c = lane; c < dim; c += 32) s += xr[c];
            mu = warp_sum(s) * inv_dim;
            float q = 0.0f;
            for (int c = lane; c < dim; c += 32) {
                const float e = xr[c] - mu;
                q += e * e;
            }
            rs = 1.0f / sqrtf(warp_sum(q) * inv_dim + 1e-5f);
            for (int c = lane; c < dim; c += 32) yr[c] = (xr[c] - mu) * rs * w[c] + b[c];
        }
        if (lane == 0) {
            mean[r] = mu;
            rstd[r] = rs;
        }
    }
}

/* The V of a row kernel: the smallest of 1, 2, 4 (LN_V) float4 per lane that
 * holds dim, when dim % 4 == 0 and the pointers are aligned; else 0. */
static int ln_v(int dim, int aligned)
{
    if (dim % 4 != 0 || !aligned) return 0;
    for (int v = 1; v <= LN_V; v *= 2)
        if (dim <= 128 * v) return v;
    return 0;
}

extern "C" int train_cuda_layernorm(int rows, int dim, const float *x, const float *w,
                                    const float *b, float *y, float *mean, float *rstd,
                                    void *stream)
{
    const char *who = "train_cuda layernorm";
    if (!size_ok(who, rows, "rows", 0) || !size_ok(who, dim, "dim", 1) ||
        !ptrs_ok(who, x, w, b) || !ptrs_ok(who, y, mean, rstd) ||
        !distinct_ok(who, x, "x", y, "y"))
        return -1;
    if (rows == 0) return 0;
    {
        const unsigned grid = row_grid((size_t)rows);
        cudaStream_t s = (cudaStream_t)stream;
        switch (ln_v(dim, aligned16(x, w, b, y))) {
        case 1:
            layernorm_kernel<1><<<grid, ELEM_THREADS, 0, s>>>(rows, dim, x, w, b, y, mean, rstd);
            break;
        case 2:
            layernorm_kernel<2><<<grid, ELEM_THREADS, 0, s>>>(rows, dim, x, w, b, y, mean, rstd);
            break;
        case 4:
            layernorm_kernel<4><<<grid, ELEM_THREADS, 0, s>>>(rows, dim, x, w, b, y, mean, rstd);
            break;
        default:
            layernorm_kernel<0><<<grid, ELEM_THREADS, 0, s>>>(rows, dim, x, w, b, y, mean, rstd);
        }
    }
    LAUNCH_CHECK();
    return 0;
fail:
    return -1;
}

/* dx of one row, one warp per row: with xh = (x - mean) rstd, g = dy w,
 * dx = rstd (g - mean(g) - xh mean(g xh)). V as layernorm_kernel (dy and x
 * in registers). x may be dx (each element read before its lane writes it). */
template <int V>
static __global__ void __launch_bounds__(ELEM_THREADS)
layernorm_bwd_dx_kernel(int rows, int dim, const float *__restrict__ dy, const float *x,
                        const float *__restrict__ w, const float *__restrict__ mean,
                        const float *__restrict__ rstd, float *dx)
{
    const int lane = threadIdx.x % 32;
    const unsigned step = gridDim.x * ROW_WARPS; /* r + step < 2^31 + 2^19: no wrap */
    const float inv_dim = 1.0f / (float)dim;
    for (unsigned r = blockIdx.x * ROW_WARPS + threadIdx.x / 32; r < (unsigned)rows; r += step) {
        const size_t off = (size_t)r * dim;
        const float mu = mean[r], rs = rstd[r];
        float sg = 0.0f, sgx = 0.0f;
        if (V > 0) {
            const int d4 = dim / 4;
            const float4 *dy4 = reinterpret_cast<const float4 *>(dy + off);
            const float4 *x4 = reinterpret_cast<const float4 *>(x + off);
            const float4 *w4 = reinterpret_cast<const float4 *>(w);
            float4 g[V > 0 ? V : 1], xh[V > 0 ? V : 1];
UNROLL
            for (int k = 0; k < V; ++k) {
                const int c = lane + 32 * k;
                if (c < d4) {
                    const float4 d = dy4[c], xv = x4[c], ww = w4[c];
                    g[k] = make_float4(d.x * ww.x, d.y * ww.y, d.z * ww.z, d.w * ww.w);
                    xh[k] = make_float4((xv.x - mu) * rs, (xv.y - mu) * rs, (xv.z - mu) * rs,
                                        (xv.w - mu) * rs);
                } else {
                    g[k] = f4(0.0f);
                    xh[k] = f4(0.0f);
                }
                sg += sum4(g[k]);
                sgx += (g[k].x * xh[k].x + g[k].y * xh[k].y) + (g[k].z * xh[k].z + g[k].w * xh[k].w);
            }
            const float mg = warp_sum(sg) * inv_dim, mgx = warp_sum(sgx) * inv_dim;
            float4 *dx4 = reinterpret_cast<float4 *>(dx + off);
UNROLL
            for (int k = 0; k < V; ++k) {
                const int c = lane + 32 * k;
                if (c < d4)
                    dx4[c] = make_float4(rs * (g[k].x - mg - xh[k].x * mgx),
                                         rs * (g[k].y - mg - xh[k].y * mgx),
                                         rs * (g[k].z - mg - xh[k].z * mgx),
                                         rs * (g[k].w - mg - xh[k].w * mgx));
            }
        } else {
            for (int c = lane; c < dim; c += 32) {
                const float g = dy[off + c] * w[c], xh = (x[off + c] - mu) * rs;
                sg += g;
                sgx += g * xh;
            }
            const float mg = warp_sum(sg) * inv_dim, mgx = warp_sum(sgx) * inv_dim;
            for (int c = lane; c < dim; c += 32) {
                const float g = dy[off + c] * w[c], xh = (x[off + c] - mu) * rs;
                dx[off + c] = rs * (g - mg - xh * mgx);
            }
        }
    }
}

/* dw[c] = sum_r dy[r][c] xh[r][c], db[c] = sum_r dy[r][c]: a 32 x 16 block
 * per 32 columns, row lanes in order, then a tree over them (deterministic).
 * Reads x: launched before the dx kernel, which may overwrite it. */
static __global__ void __launch_bounds__(LG_X * LG_Y)
layernorm_bwd_wb_kernel(int rows, int dim, const float *__restrict__ dy,
                        const float *__restrict__ x, const float *__restrict__ mean,
                        const float *__restrict__ rstd, float *__restrict__ dw,
                        float *__restrict__ db)
{
    __shared__ float pw[LG_Y][LG_X + 1], pb[LG_Y][LG_X + 1];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int c = blockIdx.x * LG_X + tx;
    float sw = 0.0f, sb = 0.0f;
    if (c < dim)
        for (unsigned r = ty; r < (unsigned)rows; r += LG_Y) {
            const size_t i = (size_t)r * dim + c;
            const float d = dy[i];
            sw += d * ((x[i] - mean[r]) * rstd[r]);
            sb += d;
        }
    pw[ty][tx] = sw;
    pb[ty][tx] = sb;
    __syncthreads();
    for (int h = LG_Y / 2; h > 0; h /= 2) {
        if (ty < h) {
            pw[ty][tx] += pw[ty + h][tx];
            pb[ty][tx] += pb[ty + h][tx];
        }
        __syncthreads();
    }
    if (ty == 0 && c < dim) {
        dw[c] = pw[0][tx];
        db[c] = pb[0][tx];
    }
}

extern "C" int train_cuda_layernorm_bwd(int rows, int dim, const float *dy, const float *x,
                                        const float *w, const float *mean, const float *rstd,
                                        float *dx, float *dw, float *db, void *stream)
{
    const char *who = "train_cuda layernorm_bwd";
    if (!size_ok(who, rows, "rows", 0) || !size_ok(who, dim, "dim", 1) ||
        !ptrs_ok(who, dy, x, w) || !ptrs_ok(who, mean, rstd, dx) || !ptrs_ok(who, dw, db, db) ||
        !distinct_ok(who, dy, "dy", dx, "dx"))
        return -1;
    {
        cudaStream_t s = (cudaStream_t)stream;
        const dim3 block(LG_X, LG_Y);
        layernorm_bwd_wb_kernel<<<(unsigned)((dim + LG_X - 1) / LG_X), block, 0, s>>>(
            rows, dim, dy, x, mean, rstd, dw, db);
        LAUNCH_CHECK();
        if (rows == 0) return 0;
        const unsigned grid = row_grid((size_t)rows);
        switch (ln_v(dim, aligned16(dy, x, w, dx))) {
        case 1:
            layernorm_bwd_dx_kernel<1><<<grid, ELEM_THREADS, 0, s>>>(rows, dim, dy, x, w, mean,
                                                                     rstd, dx);
            break;
        case 2:
            layernorm_bwd_dx_kernel<2><<<grid, ELEM_THREADS, 0, s>>>(rows, dim, dy, x, w, mean,
                                                                     rstd, dx);
            break;
        case 4:
            layernorm_bwd_dx_kernel<4><<<grid, ELEM_THREADS, 0, s>>>(rows, dim, dy, x, w, mean,
                                                                     rstd, dx);
            break;
        default:
            layernorm_bwd_dx_kernel<0><<<grid, ELEM_THREADS, 0, s>>>(rows, dim, dy, x, w, mean,
                                                                     rstd, dx);
        }
        LAUNCH_CHECK();
    }
    return 0;
fail:
    return -1;
}
