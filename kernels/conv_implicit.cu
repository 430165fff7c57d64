/* kernels/conv_implicit.cu - cuda-implicit: implicit GEMM on the register
 * tiles of cuda-regtile (kernels/regtile_core.h), the im2col matrix never
 * materialised: each K step gathers its 8 rows straight from the tensors
 * (contract: kernels/conv_cuda.h).
 *
 * Every direction is one GEMM  out[m][col] = sum_t A(m, t) * B(t, col):
 *
 *   dir         m    col            t              A(m, t)               B(t, col)
 *   fwd         k    (n, p, q)      (c, r, s)      w[k][c r s]           x[n, c, p*sh-ph+r, q*sw-pw+s]
 *   bwd-data    c    (n, h, w)      (k, r, s)      w[k][c][r s]          dy[n, k, (h+ph-r)/sh, (w+pw-s)/sw]
 *   bwd-filter  k    (c, r, s)      (n, p, q)      dy[n][k][p q]         x[n, c, p*sh-ph+r, q*sw-pw+s]
 *
 * (B is 0 in the padding, and in bwd-data where h+ph-r or w+pw-s is not a
 * multiple of the stride.) So t and col each split into three indices
 * (t0, t1, t2) with t1 < D1, t2 < D2, by division; divisions by runtime
 * constants use precomputed multipliers (fastdiv, as CUTLASS's FastDivmod: a
 * multiply-high and a shift), never an integer divide in the main loop.
 *
 * Tiles: a block of 256 threads computes 128 x 128 outputs (m x col), 8 x 8
 * per thread in registers, warp-tiled as cuda-regtile (regtile_core.h), K
 * steps of 8 double-buffered in shared memory (As transposed). The gathers
 * go through registers (cp.async copies contiguous 16-byte chunks; these
 * are index-computed elements), so the two buffers suffice. Loads per step: A as 4 consecutive t of
 * one row per thread (tid/2, 4*(tid%2)); B as one column and 4 rows per
 * thread (column tid%128, rows tid/128 + {0,2,4,6}): a warp's 32 threads read
 * 32 consecutive columns, i.e. neighbouring pixels, so the gathers coalesce
 * where the stride is 1. Each thread's B column is fixed for the whole
 * kernel: its decomposition (base offset, h and w origins) is computed once.
 * Rows of A past M and columns past the end are clamped inside the tensors
 * (they feed outputs never stored); t past the end reads 0.
 * bwd-filter has a short, wide GEMM (K x CRS outputs, N*P*Q long): split-K
 * over grid z, each split writing its partial K x CRS to the workspace, then
 * reduce_sum_cuda adds the splits in order (deterministic). db by
 * conv_cuda_bias_grad; the fwd epilogue adds the bias.
 * __launch_bounds__(256, 2): at most 128 registers, two blocks per SM.
 * The direction is a template parameter (one instantiation each) like a tile
 * size: the three share the main loop and differ in their gathers.
 */
#include <string.h>

#include "conv_launch.h"
#include "reduce_sum.h"
#include "regtile_core.h"
#include "cuda_check.h"

/* n / d and n % d for 0 <= n < 2^31 by a multiply-high (d >= 1):
 * with l = ceil(log2 d), mul = ceil(2^(31+l) / d), n / d = umulhi(n, mul) >> (l-1). */
typedef struct fastdiv {
    unsigned mul;
    int shift; /* -1: d == 1 */
    int d;
} fastdiv;

static fastdiv fastdiv_make(int d)
{
    fastdiv f;
    f.d = d;
    if (d == 1) {
        f.mul = 0;
        f.shift = -1;
        return f;
    }
    int l = 0;
    while ((1LL << l) < d) ++l;
    f.mul = (unsigned)(((1ULL << (31 + l)) + (unsigned long long)d - 1) / (unsigned long long)d);
    f.shift = l - 1;
    return f;
}

static __device__ __forceinline__ int fastdiv_q(int n, const fastdiv &f)
{
    return f.shift < 0 ? n : (int)(__umulhi((unsigned)n, f.mul) >> f.shift);
}

/* Everything a launch needs; passed by value (kernel parameter space). */
typedef struct igemm_params {
    int M, NC, T;          /* out rows, out columns, reduction length */
    int tb_step;           /* t per split (grid z), a multiple of RT_BK */
    fastdiv t12, t2;          /* t -> (t0, t1, t2): t / (D1*D2), then rem / D2 */
    fastdiv c12, c2;          /* col -> (c0, c1, c2) likewise */
    /* B column origin: base = c0*cbase, hb = c1*cm_h + cadd_h, wb = c2*cm_w + cadd_w */
    int cbase, cm_h, cadd_h, cm_w, cadd_w;
    int bstride0;          /* B offset per t0 */
    int H, W, P, Q, sh, sw;
    fastdiv fsh, fsw;         /* bwd-data: by the strides */
    const float *A;        /* row m at A + m*arow; element t at [(t/adiv)*astride + t%adiv] */
    int arow, astride;
    fastdiv adiv;
    const float *B;
    float *out;            /* element (m, col) at out + z*ozstride + (col/odiv)*ostride + m*ocols + col%odiv */
    fastdiv odiv;
    int ostride, ocols;
    long long ozstride;
    const float *bias;     /* fwd: b, added to every output of row m; else NULL */
} igemm_params;

/* B(t, col) for one thread's column (bbase, hb, wb); t < T checked by the caller. */
template <int DIR>
static __device__ __forceinline__ float load_b(const igemm_params &g, int t, int bbase, int hb,
                                               int wb)
{
    const int t0 = fastdiv_q(t, g.t12), rem = t - t0 * g.t12.d;
    const int t1 = fastdiv_q(rem, g.t2), t2 = rem - t1 * g.t2.d;
    if (DIR == CONV_BWD_DATA) {
        const int hp = hb - t1, wq = wb - t2;
        if (hp < 0 || wq < 0) return 0.0f;
        const int p = fastdiv_q(hp, g.fsh), q = fastdiv_q(wq, g.fsw);
        if (p * g.sh != hp || q * g.sw != wq || p >= g.P || q >= g.Q) return 0.0f;
        return g.B[bbase + t0 * g.bstride0 + p * g.Q + q];
    }
    /* fwd: (c, r, s) with origin (p*sh-ph, q*sw-pw); bwd-filter: (n, p, q)
     * with origin (r-ph, s-pw), the row steps multiplied by the stride */
    const int h = hb + (DIR == CONV_FWD ? t1 : t1 * g.sh);
    const int w = wb + (DIR == CONV_FWD ? t2 : t2 * g.sw);
    if ((unsigned)h >= (unsigned)g.H || (unsigned)w >= (unsigned)g.W) return 0.0f;
    return g.B[bbase + t0 * g.bstride0 + h * g.W + w];
}

/* One K step's loads of one thread: pa = A(m, t..t+3) from a_row; pb = B(t + 2j, col). */
template <int DIR, bool CHECK>
static __device__ __forceinline__ void igemm_load(const igemm_params &g, const float *a_row,
                                                  int ta, int tbrow, int te, int bbase, int hb,
                                                  int wb, float4 &pa, float4 &pb)
{
    float va[4], vb[4];
    int q = fastdiv_q(ta, g.adiv), r = ta - q * g.adiv.d;
UNROLL
    for (int i = 0; i < 4; ++i) {
        va[i] = !CHECK || ta + i < te ? a_row[q * g.astride + r] : 0.0f;
        if (++r == g.adiv.d) {
            r = 0;
            ++q;
        }
    }
UNROLL
    for (int j = 0; j < 4; ++j)
        vb[j] = !CHECK || tbrow + 2 * j < te ? load_b<DIR>(g, tbrow + 2 * j, bbase, hb, wb) : 0.0f;
    pa = make_float4(va[0], va[1], va[2], va[3]);
    pb = make_float4(vb[0], vb[1], vb[2], vb[3]);
}

static __device__ __forceinline__ void igemm_store(float (*as)[RT_BM + RT_APAD], float (*bs)[RT_BN],
                                                   unsigned ar, unsigned ak, unsigned bn,
                                                   unsigned bk, float4 pa, float4 pb)
{
    as[ak + 0][ar] = pa.x; as[ak + 1][ar] = pa.y;
    as[ak + 2][ar] = pa.z; as[ak + 3][ar] = pa.w;
    bs[bk + 0][bn] = pb.x; bs[bk + 2][bn] = pb.y;
    bs[bk + 4][bn] = pb.z; bs[bk + 6][bn] = pb.w;
}

template <int DIR>
static __global__ void __launch_bounds__(RT_THREADS, 2) conv_implicit_kernel(igemm_params g)
{
    __shared__ __align__(16) float As[2][RT_BK][RT_BM + RT_APAD];
    __shared__ __align__(16) float Bs[2][RT_BK][RT_BN];

    const unsigned tid = threadIdx.x;
    unsigned rm, cn; /* compute: this thread's outputs (regtile_core.h) */
    rt_origin(tid, rm, cn);
    const unsigned ar = tid / 2, ak = (tid % 2) * 4;               /* A: 128 rows x 2 x 4 t */
    const unsigned bn = tid % RT_BN, bk = tid / RT_BN;             /* B: 128 cols x 4 rows */
    const int row0 = blockIdx.y * RT_BM, col0 = blockIdx.x * RT_BN;
    const int tb = blockIdx.z * g.tb_step;
    const int te = min(g.T, tb + g.tb_step);

    /* this thread's A row and B column, clamped inside the tensors */
    const float *a_row = g.A + (size_t)min(row0 + (int)ar, g.M - 1) * g.arow;
    const int col = min(col0 + (int)bn, g.NC - 1);
    const int c0 = fastdiv_q(col, g.c12), crem = col - c0 * g.c12.d;
    const int c1 = fastdiv_q(crem, g.c2), c2 = crem - c1 * g.c2.d;
    const int bbase = c0 * g.cbase;
    const int hb = c1 * g.cm_h + g.cadd_h, wb = c2 * g.cm_w + g.cadd_w;

    float acc[8][8];
UNROLL
    for (int i = 0; i < 8; ++i)
UNROLL
        for (int j = 0; j < 8; ++j)
            acc[i][j] = 0.0f;

    const int nfull = (te - tb) / RT_BK, nk = (te - tb + RT_BK - 1) / RT_BK;
    float4 pa, pb;
    int t = tb;
    if (nfull > 0) {
        igemm_load<DIR, false>(g, a_row, t + ak, t + bk, te, bbase, hb, wb, pa, pb);
        igemm_store(As[0], Bs[0], ar, ak, bn, bk, pa, pb);
        __syncthreads();
        for (int kt = 0; kt < nfull; ++kt) {
            const bool more = kt + 1 < nfull;
            if (more) /* step kt+1's gathers fly during step kt's FMAs */
                igemm_load<DIR, false>(g, a_row, t + RT_BK + ak, t + RT_BK + bk, te, bbase, hb,
                                       wb, pa, pb);
            compute_step(acc, As[kt % 2], Bs[kt % 2], rm, cn);
            if (more) igemm_store(As[(kt + 1) % 2], Bs[(kt + 1) % 2], ar, ak, bn, bk, pa, pb);
            __syncthreads();
            t += RT_BK;
        }
    }
    if (nfull < nk) { /* the partial last step, t checked against te */
        igemm_load<DIR, true>(g, a_row, t + ak, t + bk, te, bbase, hb, wb, pa, pb);
        igemm_store(As[0], Bs[0], ar, ak, bn, bk, pa, pb);
        __syncthreads();
        compute_step(acc, As[0], Bs[0], rm, cn);
    }

    /* epilogue: acc[i][j] is (row0 + rt_row(rm, i), col0 + rt_col(cn, j)) */
    float *out = g.out + blockIdx.z * g.ozstride;
UNROLL
    for (int j = 0; j < 8; ++j) {
        const int cj = col0 + (int)rt_col(cn, j);
        if (cj >= g.NC) continue;
        const int oq = fastdiv_q(cj, g.odiv);
        float *o = out + (size_t)oq * g.ostride + (cj - oq * g.odiv.d);
UNROLL
        for (int i = 0; i < 8; ++i) {
            const int m = row0 + (int)rt_row(rm, i);
            if (m < g.M) o[(size_t)m * g.ocols] = acc[i][j] + (g.bias ? g.bias[m] : 0.0f);
        }
    }
}

/* Splits of bwd-filter's reduction: enough blocks to fill a large GPU
 * (about 2 x 132 SMs x 2 blocks), each split at least 64 K steps. A function
 * of the dims only, so ops.workspace and the launch agree. */
#define IMPLICIT_TARGET_BLOCKS 528
#define IMPLICIT_MIN_SPLIT (64 * RT_BK)
#define IMPLICIT_MAX_SPLITS 64

static int filter_splits(const conv_dims *d, int *tb_step)
{
    const long long T = (long long)d->N * d->P * d->Q;
    const long long tiles = (long long)gemm_div_up(d->K, RT_BM) *
                            gemm_div_up(d->C * d->R * d->S, RT_BN);
    long long splits = (IMPLICIT_TARGET_BLOCKS + tiles - 1) / tiles;
    const long long most = (T + IMPLICIT_MIN_SPLIT - 1) / IMPLICIT_MIN_SPLIT;
    if (splits > most) splits = most;
    if (splits > IMPLICIT_MAX_SPLITS) splits = IMPLICIT_MAX_SPLITS;
    if (splits < 1) splits = 1;
    long long step = (T + splits - 1) / splits;
    step = (step + RT_BK - 1) / RT_BK * RT_BK;
    splits = (T + step - 1) / step;
    *tb_step = (int)step;
    return (int)splits;
}

static unsigned long long implicit_workspace(const conv_dims *d, conv_dir dir)
{
    int step;
    if (dir != CONV_BWD_FILTER) return 0;
    const int splits = filter_splits(d, &step);
    return splits > 1 ? (unsigned long long)splits * conv_w_elems(d) * sizeof(float) : 0;
}

template <int DIR>
static int implicit_launch(const char *who, const igemm_params &g, int splits, void *stream)
{
    const dim3 grid(gemm_div_up(g.NC, RT_BN), gemm_div_up(g.M, RT_BM), (unsigned)splits);
    if (grid.y > 65535u || grid.z > 65535u) {
        err_set("%s: %d output rows need %u row tiles, more than a grid holds", who, g.M, grid.y);
        return -1;
    }
    conv_implicit_kernel<DIR><<<grid, RT_THREADS, 0, (cudaStream_t)stream>>>(g);
    LAUNCH_CHECK();
    return 0;
fail:
    return -1;
}

/* The fields every direction sets alike. */
static igemm_params implicit_base(const conv_dims *d)
{
    igemm_params g;
    memset(&g, 0, sizeof g);
    g.H = d->H; g.W = d->W; g.P = d->P; g.Q = d->Q; g.sh = d->sh; g.sw = d->sw;
    g.fsh = fastdiv_make(d->sh); g.fsw = fastdiv_make(d->sw);
    return g;
}

static int implicit_fwd(const conv_dims *d, const float *x, const float *w, const float *b,
                        float *y, void *ws, void *stream)
{
    const char *who = "conv_cuda_implicit fwd";
    (void)ws;
    if (!conv_cuda_args_ok(who, d, x, w, y) || !conv_cuda_args_ok(who, d, b, b, b)) return -1;
    igemm_params g = implicit_base(d);
    const int RS = d->R * d->S, PQ = d->P * d->Q, CRS = d->C * RS;
    g.M = d->K; g.NC = d->N * PQ; g.T = CRS; g.tb_step = CRS;
    g.t12 = fastdiv_make(RS); g.t2 = fastdiv_make(d->S);
    g.c12 = fastdiv_make(PQ); g.c2 = fastdiv_make(d->Q);
    g.cbase = d->C * d->H * d->W;
    g.cm_h = d->sh; g.cadd_h = -d->ph; g.cm_w = d->sw; g.cadd_w = -d->pw;
    g.bstride0 = d->H * d->W;
    g.A = w; g.arow = CRS; g.astride = 0; g.adiv = fastdiv_make(CRS);
    g.B = x;
    g.out = y; g.odiv = fastdiv_make(PQ); g.ostride = d->K * PQ; g.ocols = PQ;
    g.bias = b;
    return implicit_launch<CONV_FWD>(who, g, 1, stream);
}

static int implicit_bwd_data(const conv_dims *d, const float *dy, const float *w, float *dx,
                             void *ws, void *stream)
{
    const char *who = "conv_cuda_implicit bwd-data";
    (void)ws;
    if (!conv_cuda_args_ok(who, d, dy, w, dx)) return -1;
    igemm_params g = implicit_base(d);
    const int RS = d->R * d->S, HW = d->H * d->W, CRS = d->C * RS;
    g.M = d->C; g.NC = d->N * HW; g.T = d->K * RS; g.tb_step = g.T;
    g.t12 = fastdiv_make(RS); g.t2 = fastdiv_make(d->S);
    g.c12 = fastdiv_make(HW); g.c2 = fastdiv_make(d->W);
    g.cbase = d->K * d->P * d->Q;
    g.cm_h = 1; g.cadd_h = d->ph; g.cm_w = 1; g.cadd_w = d->pw;
    g.bstride0 = d->P * d->Q;
    g.A = w; g.arow = RS; g.astride = CRS; g.adiv = fastdiv_make(RS);
    g.B = dy;
    g.out = dx; g.odiv = fastdiv_make(HW); g.ostride = d->C * HW; g.ocols = HW;
    return implicit_launch<CONV_BWD_DATA>(who, g, 1, stream);
}

static int implicit_bwd_filter(const conv_dims *d, const float *x, const float *dy, float *dw,
                               float *db, void *ws, void *stream)
{
    const char *who = "conv_cuda_implicit bwd-filter";
    if (!conv_cuda_args_ok(who, d, x, dy, dw) || !conv_cuda_args_ok(who, d, db, db, db) ||
        !conv_cuda_ws_ok(who, ws, implicit_workspace(d, CONV_BWD_FILTER)))
        return -1;
    if ((long long)d->N * d->P * d->Q >= (1LL << 31) - RT_BK) {
        err_set("%s: N*P*Q = %lld reaches 2^31", who, (long long)d->N * d->P * d->Q);
        return -1;
    }
    igemm_params g = implicit_base(d);
    const int RS = d->R * d->S, PQ = d->P * d->Q, CRS = d->C * RS;
    const int splits = filter_splits(d, &g.tb_step);
    g.M = d->K; g.NC = CRS; g.T = d->N * PQ;
    g.t12 = fastdiv_make(PQ); g.t2 = fastdiv_make(d->Q);
    g.c12 = fastdiv_make(RS); g.c2 = fastdiv_make(d->S);
    g.cbase = d->H * d->W;
    g.cm_h = 1; g.cadd_h = -d->ph; g.cm_w = 1; g.cadd_w = -d->pw;
    g.bstride0 = d->C * d->H * d->W;
    g.A = dy; g.arow = PQ; g.astride = d->K * PQ; g.adiv = fastdiv_make(PQ);
    g.B = x;
    g.out = splits > 1 ? (float *)ws : dw;
    g.odiv = fastdiv_make(CRS); g.ostride = 0; g.ocols = CRS;
    g.ozstride = (long long)d->K * CRS;
    if (implicit_launch<CONV_BWD_FILTER>(who, g, splits, stream)) return -1;
    if (splits > 1 && reduce_sum_cuda(dw, (const float *)ws, splits, conv_w_elems(d), stream))
        return -1;
    return conv_cuda_bias_grad(DTYPE_FP32, d, dy, db, (cudaStream_t)stream);
}

extern "C" const conv_ops CONV_CUDA_IMPLICIT = {implicit_fwd, implicit_bwd_data,
                                                implicit_bwd_filter, implicit_workspace,
    NULL, NULL, NULL, NULL}; /* fp32 only */
