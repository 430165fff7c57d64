/* cpu/conv_omp_direct.c - cpu-omp's direct path: stride-1 convolutions with
 * a short reduction per output (C*R*S), e.g. the cnn model's 3->16 and
 * 16->32 3x3 layers (contract in conv_omp_direct.h; measured figures in
 * conv_omp.c's header).
 *
 * No columns are built. Each image is copied once into a zero-padded
 * buffer xp [C][Hp][Wp] (Hp = H + 2ph, Wp = W + 2pw) in the thread's kept
 * scratch; at stride 1 the im2col row (c, r, s) of output row p is then just
 * xp + tab[crs] + p*Wp, tab[(c*R + r)*S + s] = c*Hp*Wp + r*Wp + s: an
 * unaligned vector load, no edge tests.
 *  fwd         output "vectors" are 16 consecutive pixels of one output row
 *              (q0 = 0, 16, ...; the last of a row masked to Q). A tile is
 *              h <= 12 output channels x nv <= 4 vectors (h*nv <= 24 zmm
 *              accumulators, bias preloaded); per (c, r, s) it loads nv
 *              input vectors and broadcasts h filter taps from the filters
 *              rearranged as wT[crs][K] (contiguous per tap). Work items
 *              are images.
 *  bwd-data    stride 1: the fwd kernel on dy with the flipped, transposed
 *              filters (conv_omp.c's header), rearranged straight into wT.
 *  bwd-filter  dw^T[crs][k] = sum over images and pixels of
 *              xp[tab[crs] + pix] * dy^T[pix][k]: vectorised over output
 *              channels (K = 16 or 32 is one or two zmm). Per image, dy is
 *              transposed once (AVX-512 16x16 register transposes; lanes
 *              past K zero), then tiles of h <= 12 taps x 2 vectors of k
 *              (24 accumulators) broadcast x and load dy^T rows over every
 *              pixel (only real pixels: no junk lanes), and add into the
 *              thread's partial dw^T (+ db); the partials are summed (and
 *              transposed) at the end. Work items are images.
 *              (Vectorising over pixels instead, with tiles reduced
 *              horizontally once per chunk of images, re-read the chunk
 *              from L2 for every tile: 2x slower on conv2.)
 * Threads: dynamic items, phases ending in gemm_yield_barrier (not a
 * spinning OpenMP barrier; omp_team.h). Buffers: gemm_scratch slots 2
 * (per thread) and 3 (the calling thread's filters), kept between calls.
 */
#include "conv_omp_direct.h"
#include "conv_im2col.h"
#include "errmsg.h"
#include "gemm_omp_impl.h"

#include <omp.h>
#include <stddef.h>
#include <string.h>

/* Limits of the direct path, from 1-thread timings against im2col + GEMM
 * (direct / im2col time): fwd C*R*S = 576 at 14x14 0.59, 1152 at 7x7 1.06;
 * 1x1 stride 1 (im2col reads the image in place) at 8x8 1.8-2.1. bwd-filter
 * gains more (1152 at 7x7 0.58). The padded image stays within L2 with room
 * to spare; ResNet/VGG layers (padded images of 0.2-3 MiB, or C*R*S >= 2304)
 * keep im2col. */
#define DIRECT_MAX_CRS 576
#define DIRECT_MAX_CRS_BWD_FILTER 1152
#define DIRECT_MAX_IMAGE_BYTES (128 << 10)

static int direct_fits(const conv_dims *d, long max_crs)
{
    if (!gemm_omp_small_ok() || d->sh != 1 || d->sw != 1) return 0;
    const long crs = (long)d->C * d->R * d->S;
    const long image = 4L * d->C * (d->H + 2L * d->ph) * (d->W + 2L * d->pw);
    return crs <= max_crs && image <= DIRECT_MAX_IMAGE_BYTES;
}

int conv_direct_fwd_ok(const conv_dims *d)
{
    const int point = d->R == 1 && d->S == 1 && d->ph == 0 && d->pw == 0;
    return !point && direct_fits(d, DIRECT_MAX_CRS);
}

int conv_direct_bwd_data_ok(const conv_dims *d)
{
    if (!conv_bwd_data_is_fwd(d)) return 0;
    const conv_dims t = conv_bwd_data_flipped(d);
    return conv_direct_fwd_ok(&t);
}

int conv_direct_bwd_filter_ok(const conv_dims *d)
{
    return direct_fits(d, DIRECT_MAX_CRS_BWD_FILTER);
}

/* One call's geometry (the forward convolution's). */
typedef struct {
    int C, K, P, Q, crs, Hp, Wp, vpr; /* vpr: 16-pixel vectors per output row */
    long pq, img;                     /* floats per padded image, with slack */
} geo;

static geo geo_of(const conv_dims *d)
{
    geo g;
    g.C = d->C, g.K = d->K, g.P = d->P, g.Q = d->Q;
    g.crs = d->C * d->R * d->S;
    g.Hp = d->H + 2 * d->ph, g.Wp = d->W + 2 * d->pw;
    g.vpr = (d->Q + 15) / 16;
    g.pq = (long)d->P * d->Q;
    /* loads run up to 16*vpr + S floats past the last plane: slack, zeroed */
    g.img = ((long)d->C * g.Hp * g.Wp + 16L * g.vpr + d->S + 16 + 15) & ~15L;
    return g;
}

/* tab[(c*R + r)*S + s] = offset of tap (c, r, s) in a padded image. */
static void tap_offsets(const conv_dims *d, const geo *g, int *tab)
{
    for (int c = 0; c < d->C; c++)
        for (int r = 0; r < d->R; r++)
            for (int s = 0; s < d->S; s++)
                tab[(c * d->R + r) * d->S + s] = (c * g->Hp + r) * g->Wp + s;
}

/* filters_buf's bytes (the calling thread's) for geometry g. */
static double filters_bytes(const geo *g)
{
    const size_t nw = ((size_t)g->crs * g->K + 15) & ~(size_t)15;
    return (double)(sizeof(float) * nw + sizeof(int) * (size_t)g->crs);
}

double conv_direct_scratch_bytes(const conv_dims *d, conv_dir dir)
{
    const double nt = omp_get_max_threads();
    if (dir == CONV_BWD_FILTER) {
        const geo g = geo_of(d);
        const long kp = (g.K + 15) & ~15L;
        const long psz = (long)(g.crs + 1) * kp, tsz = (g.pq * kp + 15) & ~15L;
        return filters_bytes(&g) + nt * sizeof(float) * (double)(psz + tsz + g.img);
    }
    const conv_dims t = dir == CONV_BWD_DATA ? conv_bwd_data_flipped(d) : *d;
    const geo g = geo_of(&t);
    return filters_bytes(&g) + nt * sizeof(float) * (double)g.img;
}

#if defined(__x86_64__)
#include <immintrin.h>

static __mmask16 mask_of(int n) { return n >= 16 ? 0xffff : n <= 0 ? 0 : (__mmask16)((1u << n) - 1); }

/* xp = image xn zero-padded (geometry g), slack zeroed: the whole buffer
 * zeroed by aligned stores, then the rows copied in by masked moves (the
 * per-row memset/memcpy calls had cost ~10% of a conv2 forward call). */
__attribute__((target("avx512f")))
static void pad_image(const conv_dims *d, const geo *g, const float *xn, float *xp)
{
    const int H = d->H, W = d->W;
    const __m512 z = _mm512_setzero_ps();
    for (long i = 0; i < g->img; i += 16) _mm512_store_ps(xp + i, z);
    for (int c = 0; c < d->C; c++)
        for (int h = 0; h < H; h++) {
            const float *src = xn + ((long)c * H + h) * W;
            float *dst = xp + ((long)c * g->Hp + h + d->ph) * g->Wp + d->pw;
            for (int w0 = 0; w0 < W; w0 += 16) {
                const __mmask16 m = mask_of(W - w0);
                _mm512_mask_storeu_ps(dst + w0, m, _mm512_maskz_loadu_ps(m, src + w0));
            }
        }
}

/* ---- forward ------------------------------------------------------------------ */
/* y rows k0..k0+h (yb[v] + i*pq) at nv output vectors = bias + sum over taps
 * t of wT[t*K + i] * xb[v][tab[t]]; wT, bias already offset by k0. */
#define FWD_ARGS                                                                           \
    int crs, const int *tab, const float *wT, int K, const float *bias, const float *const *xb, \
        float *const *yb, const __mmask16 *m, long pq
__attribute__((target("avx512f"), always_inline))
static inline void fwd_tile(const int h, const int nv, FWD_ARGS)
{
    __m512 acc[12][4];
#pragma GCC unroll 12
    for (int i = 0; i < h; ++i) {
        const __m512 b0 = bias ? _mm512_set1_ps(bias[i]) : _mm512_setzero_ps();
#pragma GCC unroll 4
        for (int v = 0; v < nv; ++v) acc[i][v] = b0;
    }
    const float *x0 = xb[0], *x1 = xb[nv > 1], *x2 = xb[nv > 2 ? 2 : 0], *x3 = xb[nv > 3 ? 3 : 0];
    for (int t = 0; t < crs; ++t) {
        const long o = tab[t];
        __m512 xv[4];
        xv[0] = _mm512_loadu_ps(x0 + o);
        if (nv > 1) xv[1] = _mm512_loadu_ps(x1 + o);
        if (nv > 2) xv[2] = _mm512_loadu_ps(x2 + o);
        if (nv > 3) xv[3] = _mm512_loadu_ps(x3 + o);
        const float *wt = wT + (long)t * K;
#pragma GCC unroll 12
        for (int i = 0; i < h; ++i) {
            const __m512 a = _mm512_set1_ps(wt[i]);
#pragma GCC unroll 4
            for (int v = 0; v < nv; ++v) acc[i][v] = _mm512_fmadd_ps(a, xv[v], acc[i][v]);
        }
    }
#pragma GCC unroll 12
    for (int i = 0; i < h; ++i)
#pragma GCC unroll 4
        for (int v = 0; v < nv; ++v) _mm512_mask_storeu_ps(yb[v] + i * pq, m[v], acc[i][v]);
}

typedef void (*fwd_fn)(FWD_ARGS);
#define FWD_FN(H, NV)                                                                     \
    __attribute__((target("avx512f"))) static void fwd_##H##x##NV(FWD_ARGS)               \
    {                                                                                     \
        fwd_tile(H, NV, crs, tab, wT, K, bias, xb, yb, m, pq);                            \
    }
#define FWD_ROW(H) FWD_FN(H, 1) FWD_FN(H, 2)
FWD_ROW(1) FWD_ROW(2) FWD_ROW(3) FWD_ROW(4) FWD_ROW(5) FWD_ROW(6)
FWD_ROW(7) FWD_ROW(8) FWD_ROW(9) FWD_ROW(10) FWD_ROW(11) FWD_ROW(12)
FWD_FN(1, 3) FWD_FN(2, 3) FWD_FN(3, 3) FWD_FN(4, 3) FWD_FN(5, 3) FWD_FN(6, 3) FWD_FN(7, 3) FWD_FN(8, 3)
FWD_FN(1, 4) FWD_FN(2, 4) FWD_FN(3, 4) FWD_FN(4, 4) FWD_FN(5, 4) FWD_FN(6, 4)

/* [nv-1][h-1]; NULL where h*nv > 24 (never chosen). */
static const fwd_fn FWD_FNS[4][12] = {
    {fwd_1x1, fwd_2x1, fwd_3x1, fwd_4x1, fwd_5x1, fwd_6x1, fwd_7x1, fwd_8x1, fwd_9x1, fwd_10x1,
     fwd_11x1, fwd_12x1},
    {fwd_1x2, fwd_2x2, fwd_3x2, fwd_4x2, fwd_5x2, fwd_6x2, fwd_7x2, fwd_8x2, fwd_9x2, fwd_10x2,
     fwd_11x2, fwd_12x2},
    {fwd_1x3, fwd_2x3, fwd_3x3, fwd_4x3, fwd_5x3, fwd_6x3, fwd_7x3, fwd_8x3},
    {fwd_1x4, fwd_2x4, fwd_3x4, fwd_4x4, fwd_5x4, fwd_6x4},
};

/* y = conv(x) with the filters as wT [crs][K] (the geometry of d). */
static int fwd_core(const conv_dims *d, const float *x, const float *wT, const int *tab,
                    const float *b, float *y)
{
    const geo g = geo_of(d);
    const int K = g.K, nkt = (K + 11) / 12, hk = (K + nkt - 1) / nkt;
    const int nvec = g.P * g.vpr;
    int nv = 24 / hk;
    if (nv > 4) nv = 4;
    if (nv > nvec) nv = nvec;
    int failed = 0;
    atomic_int arrived = 0;
#pragma omp parallel
    {
        const int team = omp_get_num_threads();
        float *xp = gemm_scratch(SCRATCH_CONV_THREAD, sizeof(float) * (size_t)g.img);
        if (!xp) {
#pragma omp atomic write
            failed = 1;
        }
#pragma omp for schedule(dynamic, 1) nowait
        for (int n = 0; n < d->N; n++) {
            if (!xp) continue;
            pad_image(d, &g, x + (long)n * d->C * d->H * d->W, xp);
            float *yn = y + (long)n * K * g.pq;
            for (int v0 = 0; v0 < nvec; v0 += nv) {
                const int nvg = nvec - v0 < nv ? nvec - v0 : nv;
                const float *xb[4];
                float *yb[4];
                __mmask16 m[4];
                for (int v = 0; v < nvg; v++) {
                    const int p = (v0 + v) / g.vpr, q0 = (v0 + v) % g.vpr * 16;
                    xb[v] = xp + (long)p * g.Wp + q0;
                    yb[v] = yn + (long)p * g.Q + q0;
                    m[v] = mask_of(g.Q - q0);
                }
                for (int k0 = 0; k0 < K; k0 += hk) {
                    const int h = K - k0 < hk ? K - k0 : hk;
                    float *ybk[4];
                    for (int v = 0; v < nvg; v++) ybk[v] = yb[v] + k0 * g.pq;
                    FWD_FNS[nvg - 1][h - 1](g.crs, tab, wT + k0, K, b ? b + k0 : NULL, xb, ybk,
                                            m, g.pq);
                }
            }
        }
        gemm_yield_barrier(&arrived, team);
    }
    if (failed) err_set("cpu-omp conv: out of memory for the padded images");
    return failed;
}

/* The calling thread's buffer for wT (crs x K floats) and tab (crs ints). */
static float *filters_buf(const geo *g, int **tab)
{
    const size_t nw = ((size_t)g->crs * g->K + 15) & ~(size_t)15;
    float *buf = gemm_scratch(SCRATCH_CONV_FILTERS, (size_t)filters_bytes(g));
    if (!buf) {
        err_set("cpu-omp conv: out of memory for the rearranged filters");
        return NULL;
    }
    *tab = (int *)(buf + nw);
    return buf;
}

int conv_direct_fwd(const conv_dims *d, const float *x, const float *w, const float *b, float *y)
{
    const geo g = geo_of(d);
    int *tab;
    float *wT = filters_buf(&g, &tab);
    if (!wT) return 1;
    for (int k = 0; k < g.K; k++)
        for (int t = 0; t < g.crs; t++) wT[(long)t * g.K + k] = w[(long)k * g.crs + t];
    tap_offsets(d, &g, tab);
    return fwd_core(d, x, wT, tab, b, y);
}

int conv_direct_bwd_data(const conv_dims *d, const float *dy, const float *w, float *dx)
{
    const conv_dims t = conv_bwd_data_flipped(d);
    const geo g = geo_of(&t);
    int *tab;
    float *wT = filters_buf(&g, &tab);
    if (!wT) return 1;
    /* flipped filter w'[c][k][R-1-r][S-1-s] = w[k][c][r][s], stored as
     * wT[((k*R + R-1-r)*S + S-1-s)*C + c] */
    const int R = d->R, S = d->S, C = d->C;
    for (int k = 0; k < d->K; k++)
        for (int c = 0; c < C; c++)
            for (int r = 0; r < R; r++)
                for (int s = 0; s < S; s++)
                    wT[(((long)k * R + R - 1 - r) * S + S - 1 - s) * C + c] =
                        w[(((long)k * C + c) * R + r) * S + s];
    tap_offsets(&t, &g, tab);
    return fwd_core(&t, dy, wT, tab, NULL, dx);
}

/* ---- backward filter ------------------------------------------------------------ */
/* One image's share of a tile: partT rows t (h taps, at part + i*kp) and
 * nv vectors of k (16 each) += sum over the pixels (p, q) of
 * xp[tab[t] + p*Wp + q] * dyT[p*Q + q][k]. dyT and part already offset to
 * the tile's first k; kp is their row length (K rounded up to 16). */
typedef struct {
    const geo *g;
    const float *xp, *dyT;
    long kp;
} bwf_job;

__attribute__((target("avx512f"), always_inline))
static inline void bwf_tile(const int h, const int nv, const bwf_job *jb, const int *tab,
                            const float *dyT, float *part)
{
    const geo *g = jb->g;
    const long kp = jb->kp;
    __m512 acc[12][2];
    const float *xb[12];
#pragma GCC unroll 12
    for (int i = 0; i < h; ++i) {
        acc[i][0] = acc[i][1] = _mm512_setzero_ps();
        xb[i] = jb->xp + tab[i];
    }
    for (int p = 0; p < g->P; ++p) {
        const float *dr = dyT + (long)p * g->Q * kp;
        const long xo = (long)p * g->Wp;
        for (int q = 0; q < g->Q; ++q) {
            const __m512 b0 = _mm512_load_ps(dr + q * kp);
            const __m512 b1 = nv > 1 ? _mm512_load_ps(dr + q * kp + 16) : b0;
#pragma GCC unroll 12
            for (int i = 0; i < h; ++i) {
                const __m512 a = _mm512_set1_ps(xb[i][xo + q]);
                acc[i][0] = _mm512_fmadd_ps(a, b0, acc[i][0]);
                if (nv > 1) acc[i][1] = _mm512_fmadd_ps(a, b1, acc[i][1]);
            }
        }
    }
#pragma GCC unroll 12
    for (int i = 0; i < h; ++i) {
        float *pr = part + i * kp;
        _mm512_store_ps(pr, _mm512_add_ps(_mm512_load_ps(pr), acc[i][0]));
        if (nv > 1) _mm512_store_ps(pr + 16, _mm512_add_ps(_mm512_load_ps(pr + 16), acc[i][1]));
    }
}

typedef void (*bwf_fn)(const bwf_job *jb, const int *tab, const float *dyT, float *part);
#define BWF_FN(H, NV)                                                                     \
    __attribute__((target("avx512f"))) static void bwf_##H##x##NV(                        \
        const bwf_job *jb, const int *tab, const float *dyT, float *part)                 \
    {                                                                                     \
        bwf_tile(H, NV, jb, tab, dyT, part);                                              \
    }
#define BWF_ROW(H) BWF_FN(H, 1) BWF_FN(H, 2)
BWF_ROW(1) BWF_ROW(2) BWF_ROW(3) BWF_ROW(4) BWF_ROW(5) BWF_ROW(6)
BWF_ROW(7) BWF_ROW(8) BWF_ROW(9) BWF_ROW(10) BWF_ROW(11) BWF_ROW(12)
static const bwf_fn BWF_FNS[2][12] = {
    {bwf_1x1, bwf_2x1, bwf_3x1, bwf_4x1, bwf_5x1, bwf_6x1, bwf_7x1, bwf_8x1, bwf_9x1, bwf_10x1,
     bwf_11x1, bwf_12x1},
    {bwf_1x2, bwf_2x2, bwf_3x2, bwf_4x2, bwf_5x2, bwf_6x2, bwf_7x2, bwf_8x2, bwf_9x2, bwf_10x2,
     bwf_11x2, bwf_12x2},
};

/* r[0..15] (16 rows of 16) -> its transpose, in place. */
__attribute__((target("avx512f"), always_inline))
static inline void transpose16(__m512 r[16])
{
    __m512 t[16], u[16];
    for (int i = 0; i < 8; i++) {
        t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
    }
    for (int i = 0; i < 4; i++) { /* u[4i + c], lane l: rows 4i..4i+3, column 4l + c */
        u[4 * i] = _mm512_shuffle_ps(t[4 * i], t[4 * i + 2], 0x44);
        u[4 * i + 1] = _mm512_shuffle_ps(t[4 * i], t[4 * i + 2], 0xEE);
        u[4 * i + 2] = _mm512_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0x44);
        u[4 * i + 3] = _mm512_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0xEE);
    }
    for (int c = 0; c < 4; c++) {
        const __m512 x0 = _mm512_shuffle_f32x4(u[c], u[4 + c], 0x88);
        const __m512 x1 = _mm512_shuffle_f32x4(u[c], u[4 + c], 0xDD);
        const __m512 y0 = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], 0x88);
        const __m512 y1 = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], 0xDD);
        r[c] = _mm512_shuffle_f32x4(x0, y0, 0x88);
        r[8 + c] = _mm512_shuffle_f32x4(x0, y0, 0xDD);
        r[4 + c] = _mm512_shuffle_f32x4(x1, y1, 0x88);
        r[12 + c] = _mm512_shuffle_f32x4(x1, y1, 0xDD);
    }
}

/* dyT[j][k] = dyn[k][j] (pq x kp, lanes k >= K zero); db[k] += sum of row k. */
__attribute__((target("avx512f")))
static void transpose_dy(const float *dyn, int K, long pq, long kp, float *dyT, float *db)
{
    for (long j0 = 0; j0 < pq; j0 += 16) {
        const int w = pq - j0 < 16 ? (int)(pq - j0) : 16;
        const __mmask16 m = mask_of(w);
        for (int k0 = 0; k0 < kp; k0 += 16) {
            __m512 r[16];
            for (int i = 0; i < 16; i++)
                r[i] = k0 + i < K ? _mm512_maskz_loadu_ps(m, dyn + (k0 + i) * pq + j0)
                                  : _mm512_setzero_ps();
            transpose16(r);
            for (int j = 0; j < w; j++) _mm512_store_ps(dyT + (j0 + j) * kp + k0, r[j]);
        }
    }
    for (int k = 0; k < K; k++) {
        const float *r = dyn + k * pq;
        __m512 s = _mm512_setzero_ps();
        long j = 0;
        for (; j + 16 <= pq; j += 16) s = _mm512_add_ps(s, _mm512_loadu_ps(r + j));
        s = _mm512_add_ps(s, _mm512_maskz_loadu_ps(mask_of((int)(pq - j)), r + j));
        db[k] += _mm512_reduce_add_ps(s);
    }
}

int conv_direct_bwd_filter(const conv_dims *d, const float *x, const float *dy, float *dw,
                           float *db)
{
    const geo g = geo_of(d);
    const int K = g.K, crs = g.crs, nt = omp_get_max_threads();
    const long kp = (K + 15) & ~15L;
    const long psz = (long)(crs + 1) * kp;  /* dw^T (crs x kp), then db (row crs) */
    const long tsz = (g.pq * kp + 15) & ~15L; /* dyT */
    const int ntt = (crs + 11) / 12, ht = (crs + ntt - 1) / ntt; /* tap tiles */
    int *tab;
    if (!filters_buf(&g, &tab)) return 1;
    tap_offsets(d, &g, tab);
    float *part[nt];
    for (int t = 0; t < nt; t++) part[t] = NULL;
    int failed = 0;
    atomic_int arrived = 0;
#pragma omp parallel num_threads(nt)
    {
        const int team = omp_get_num_threads(), tid = omp_get_thread_num();
        float *buf = gemm_scratch(SCRATCH_CONV_THREAD, sizeof(float) * (size_t)(psz + tsz + g.img));
        if (!buf) {
#pragma omp atomic write
            failed = 1;
        } else {
            memset(buf, 0, sizeof(float) * (size_t)psz);
            part[tid] = buf;
        }
        float *dyT = buf ? buf + psz : NULL, *xp = buf ? buf + psz + tsz : NULL;
#pragma omp for schedule(dynamic, 1) nowait
        for (int n = 0; n < d->N; n++) {
            if (!buf) continue;
            pad_image(d, &g, x + (long)n * d->C * d->H * d->W, xp);
            transpose_dy(dy + (long)n * K * g.pq, K, g.pq, kp, dyT, buf + crs * kp);
            const bwf_job jb = {&g, xp, dyT, kp};
            for (int k0 = 0; k0 < K; k0 += 32) {
                const int nv = K - k0 > 16 ? 2 : 1;
                for (int t0 = 0; t0 < crs; t0 += ht) {
                    const int h = crs - t0 < ht ? crs - t0 : ht;
                    BWF_FNS[nv - 1][h - 1](&jb, tab + t0, dyT + k0, buf + t0 * kp + k0);
                }
            }
        }
        gemm_yield_barrier(&arrived, team); /* every partial is complete */
        int bad;
#pragma omp atomic read
        bad = failed;
        if (tid == 0 && !bad) {
            for (int k = 0; k < K; k++) {
                for (int t = 0; t < crs; t++) {
                    float s = 0.0f;
                    for (int u = 0; u < team; u++) s += part[u][t * kp + k];
                    dw[(long)k * crs + t] = s;
                }
                float s = 0.0f;
                for (int u = 0; u < team; u++) s += part[u][crs * kp + k];
                db[k] = s;
            }
        }
    }
    if (failed) err_set("cpu-omp conv bwd-filter: out of memory for the per-thread partials");
    return failed;
}

#else /* not x86-64: the conv_direct_*_ok() are 0, so these are never called */
int conv_direct_fwd(const conv_dims *d, const float *x, const float *w, const float *b, float *y)
{
    (void)d, (void)x, (void)w, (void)b, (void)y, (void)tap_offsets;
    err_set("cpu-omp conv: the direct path needs AVX-512F");
    return 1;
}
int conv_direct_bwd_data(const conv_dims *d, const float *dy, const float *w, float *dx)
{
    (void)d, (void)dy, (void)w, (void)dx;
    err_set("cpu-omp conv: the direct path needs AVX-512F");
    return 1;
}
int conv_direct_bwd_filter(const conv_dims *d, const float *x, const float *dy, float *dw,
                           float *db)
{
    (void)d, (void)x, (void)dy, (void)dw, (void)db;
    err_set("cpu-omp conv: the direct path needs AVX-512F");
    return 1;
}
#endif
