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
 *  bwd-filter  dw[k][crs] = sum over images and pixels of dy[k][pix] *
 *              xp[tab[crs] + pix]: vectorised over the pixels (the
 *              reduction), a tile of 4 output channels x 6 taps keeps 24
 *              accumulators across a chunk of images and reduces them
 *              horizontally once, into the thread's partial dw (K x CRS,
 *              no transposes); the thread partials are summed at the end.
 *              Masked lanes (pixels past Q) use masked loads and FMAs, so
 *              no junk ever reaches an accumulator.
 * Threads: dynamic items, phases ending in gemm_yield_barrier (not a
 * spinning OpenMP barrier; gemm_omp_impl.h). Buffers: gemm_scratch slots 2
 * (per thread) and 3 (the calling thread's filters), kept between calls.
 */
#include "conv_omp_direct.h"
#include "errmsg.h"
#include "gemm_omp_impl.h"

#include <omp.h>
#include <stddef.h>
#include <string.h>

/* Limits of the direct path: beyond them (ResNet/VGG layers: C*R*S >= 576,
 * padded images of 0.2-0.9 MiB) im2col + the blocked GEMM is the better
 * route; the limits keep a padded image and the filters in L1/L2. */
#define DIRECT_MAX_CRS 320
#define DIRECT_MAX_IMAGE_BYTES (128 << 10)

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

int conv_direct_ok(const conv_dims *d)
{
    if (!gemm_omp_small_ok() || d->sh != 1 || d->sw != 1) return 0;
    const long crs = (long)d->C * d->R * d->S;
    const long image = 4L * d->C * (d->H + 2L * d->ph) * (d->W + 2L * d->pw);
    return crs <= DIRECT_MAX_CRS && image <= DIRECT_MAX_IMAGE_BYTES;
}

/* xp = image xn zero-padded (geometry g), slack zeroed. */
static void pad_image(const conv_dims *d, const geo *g, const float *xn, float *xp)
{
    const int H = d->H, W = d->W, ph = d->ph, pw = d->pw, Wp = g->Wp;
    for (int c = 0; c < d->C; c++)
        for (int hh = 0; hh < g->Hp; hh++) {
            float *row = xp + ((long)c * g->Hp + hh) * Wp;
            const int h = hh - ph;
            if (h < 0 || h >= H) {
                memset(row, 0, sizeof(float) * (size_t)Wp);
                continue;
            }
            memset(row, 0, sizeof(float) * (size_t)pw);
            memcpy(row + pw, xn + ((long)c * H + h) * W, sizeof(float) * (size_t)W);
            memset(row + pw + W, 0, sizeof(float) * (size_t)(Wp - pw - W));
        }
    const long used = (long)d->C * g->Hp * Wp;
    memset(xp + used, 0, sizeof(float) * (size_t)(g->img - used));
}

/* tab[(c*R + r)*S + s] = offset of tap (c, r, s) in a padded image. */
static void tap_offsets(const conv_dims *d, const geo *g, int *tab)
{
    for (int c = 0; c < d->C; c++)
        for (int r = 0; r < d->R; r++)
            for (int s = 0; s < d->S; s++)
                tab[(c * d->R + r) * d->S + s] = (c * g->Hp + r) * g->Wp + s;
}

#if defined(__x86_64__)
#include <immintrin.h>

static __mmask16 mask_of(int n) { return n >= 16 ? 0xffff : n <= 0 ? 0 : (__mmask16)((1u << n) - 1); }

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
        float *xp = gemm_scratch(2, sizeof(float) * (size_t)g.img);
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
    float *buf = gemm_scratch(3, sizeof(float) * nw + sizeof(int) * (size_t)g->crs);
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
    conv_dims t = {d->N, d->K, d->P, d->Q, d->C, d->R, d->S, 1, 1, d->R - 1 - d->ph,
                   d->S - 1 - d->pw, 0, 0};
    conv_dims_finish(&t); /* t.P = H, t.Q = W */
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
/* part[i*crs + j] += sum over nimg images (padded at xp + n*img, dy at
 * dy + n*kpq) and pixels of dy[i][pix] * xp[tab[j] + pix], i < h, j < m. */
typedef struct {
    const geo *g;
    int nimg;
    const float *xp, *dy; /* first image; dy already offset to channel k0 */
    long kpq;
} bwf_job;

__attribute__((target("avx512f"), always_inline))
static inline void bwf_tile(const int h, const int m, const bwf_job *jb, const int *tab,
                            float *part)
{
    const geo *g = jb->g;
    const long pq = g->pq, img = g->img;
    __m512 acc[4][6];
#pragma GCC unroll 4
    for (int i = 0; i < h; ++i)
#pragma GCC unroll 6
        for (int j = 0; j < m; ++j) acc[i][j] = _mm512_setzero_ps();
    long off[6];
#pragma GCC unroll 6
    for (int j = 0; j < m; ++j) off[j] = tab[j];
    for (int n = 0; n < jb->nimg; ++n) {
        const float *xn = jb->xp + n * img, *dyn = jb->dy + n * jb->kpq;
        for (int p = 0; p < g->P; ++p)
            for (int q0 = 0; q0 < g->Q; q0 += 16) {
                const __mmask16 mk = mask_of(g->Q - q0);
                const float *xr = xn + (long)p * g->Wp + q0, *dr = dyn + (long)p * g->Q + q0;
                __m512 dv[4];
#pragma GCC unroll 4
                for (int i = 0; i < h; ++i) dv[i] = _mm512_maskz_loadu_ps(mk, dr + i * pq);
#pragma GCC unroll 6
                for (int j = 0; j < m; ++j) {
                    const __m512 xv = _mm512_loadu_ps(xr + off[j]);
#pragma GCC unroll 4
                    for (int i = 0; i < h; ++i)
                        acc[i][j] = _mm512_mask3_fmadd_ps(dv[i], xv, acc[i][j], mk);
                }
            }
    }
#pragma GCC unroll 4
    for (int i = 0; i < h; ++i)
#pragma GCC unroll 6
        for (int j = 0; j < m; ++j) part[(long)i * g->crs + j] += _mm512_reduce_add_ps(acc[i][j]);
}

typedef void (*bwf_fn)(const bwf_job *jb, const int *tab, float *part);
#define BWF_FN(H, M)                                                                      \
    __attribute__((target("avx512f"))) static void bwf_##H##x##M(const bwf_job *jb,       \
                                                                 const int *tab, float *part) \
    {                                                                                     \
        bwf_tile(H, M, jb, tab, part);                                                    \
    }
#define BWF_ROW(H) BWF_FN(H, 1) BWF_FN(H, 2) BWF_FN(H, 3) BWF_FN(H, 4) BWF_FN(H, 5) BWF_FN(H, 6)
BWF_ROW(1) BWF_ROW(2) BWF_ROW(3) BWF_ROW(4)
static const bwf_fn BWF_FNS[4][6] = {
    {bwf_1x1, bwf_1x2, bwf_1x3, bwf_1x4, bwf_1x5, bwf_1x6},
    {bwf_2x1, bwf_2x2, bwf_2x3, bwf_2x4, bwf_2x5, bwf_2x6},
    {bwf_3x1, bwf_3x2, bwf_3x3, bwf_3x4, bwf_3x5, bwf_3x6},
    {bwf_4x1, bwf_4x2, bwf_4x3, bwf_4x4, bwf_4x5, bwf_4x6},
};

/* db[k] += sum of dy_n's row k (pq floats). */
__attribute__((target("avx512f")))
static void bias_sums(const float *dyn, int K, long pq, float *db)
{
    for (int k = 0; k < K; k++) {
        const float *r = dyn + k * pq;
        __m512 s = _mm512_setzero_ps();
        long j = 0;
        for (; j + 16 <= pq; j += 16) s = _mm512_add_ps(s, _mm512_loadu_ps(r + j));
        s = _mm512_add_ps(s, _mm512_maskz_loadu_ps(mask_of((int)(pq - j)), r + j));
        db[k] += _mm512_reduce_add_ps(s);
    }
}

/* Images per work item: the item's padded images and dy stay in L2 while
 * every tile walks them; about 4 items per thread. */
static int images_per_item(const conv_dims *d, const geo *g, int nt)
{
    const long bytes = 4 * (g->img + (long)g->K * g->pq);
    long ch = (d->N + 4L * nt - 1) / (4L * nt);
    if (ch * bytes > (768L << 10)) ch = (768L << 10) / bytes;
    if (ch > 16) ch = 16;
    return ch < 1 ? 1 : (int)ch;
}

int conv_direct_bwd_filter(const conv_dims *d, const float *x, const float *dy, float *dw,
                           float *db)
{
    const geo g = geo_of(d);
    const int K = g.K, crs = g.crs, nt = omp_get_max_threads();
    const int ch = images_per_item(d, &g, nt), nit = (d->N + ch - 1) / ch;
    const long psz = ((long)K * crs + K + 15) & ~15L; /* dw (K x crs), then db */
    int *tab;
    {
        float *unused = filters_buf(&g, &tab);
        if (!unused) return 1;
    }
    tap_offsets(d, &g, tab);
    float *part[nt];
    for (int t = 0; t < nt; t++) part[t] = NULL;
    int failed = 0;
    atomic_int arrived = 0;
#pragma omp parallel num_threads(nt)
    {
        const int team = omp_get_num_threads(), tid = omp_get_thread_num();
        float *buf = gemm_scratch(2, sizeof(float) * (size_t)(psz + ch * g.img));
        if (!buf) {
#pragma omp atomic write
            failed = 1;
        } else {
            memset(buf, 0, sizeof(float) * (size_t)psz);
            part[tid] = buf;
        }
        float *xps = buf ? buf + psz : NULL;
#pragma omp for schedule(dynamic, 1) nowait
        for (int it = 0; it < nit; it++) {
            if (!buf) continue;
            const int n0 = it * ch, n1 = n0 + ch < d->N ? n0 + ch : d->N;
            for (int n = n0; n < n1; n++) {
                pad_image(d, &g, x + (long)n * d->C * d->H * d->W, xps + (n - n0) * g.img);
                bias_sums(dy + (long)n * K * g.pq, K, g.pq, buf + (long)K * crs);
            }
            for (int k0 = 0; k0 < K; k0 += 4) {
                const int h = K - k0 < 4 ? K - k0 : 4;
                const bwf_job jb = {&g, n1 - n0, xps, dy + ((long)n0 * K + k0) * g.pq,
                                    (long)K * g.pq};
                for (int t0 = 0; t0 < crs; t0 += 6) {
                    const int m = crs - t0 < 6 ? crs - t0 : 6;
                    BWF_FNS[h - 1][m - 1](&jb, tab + t0, buf + (long)k0 * crs + t0);
                }
            }
        }
        gemm_yield_barrier(&arrived, team); /* every partial is complete */
        if (tid == 0 && !failed) {
            for (long i = 0; i < (long)K * crs + K; i++) {
                float s = 0.0f;
                for (int t = 0; t < team; t++) s += part[t][i];
                if (i < (long)K * crs) dw[i] = s;
                else db[i - (long)K * crs] = s;
            }
        }
    }
    if (failed) err_set("cpu-omp conv bwd-filter: out of memory for the per-thread partials");
    return failed;
}

#else /* not x86-64: conv_direct_ok() is 0, so these are never called */
int conv_direct_fwd(const conv_dims *d, const float *x, const float *w, const float *b, float *y)
{
    (void)d, (void)x, (void)w, (void)b, (void)y, (void)pad_image, (void)tap_offsets;
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
