/* cpu/conv_omp_pw32.c - cpu-omp's fp32 convolution (strides 1 and 2) of
 * images of 256 pixels or more as an implicit GEMM whose columns are read
 * in place (conv_omp_pw.h): fwd and, at stride 1 through the flipped
 * filters, bwd-data.
 *
 * The im2col route wrote each image's column matrix (C*R*S x P*Q, 9x x at
 * 3x3) and the GEMM packed it again: ResNet-50 stage 2 3x3 fwd spent 16 %
 * of its time in im2col, and ran 0.73-0.83 of oneDNN, lower when the
 * host's memory was busy.  Here x is copied once, zero-padded (the only
 * pass over it), the filters are packed once into the AVX-512 kernel's
 * 12-row (or 8-row) panels in their own (c, r, s) order, and the register
 * tile (mr filters x 32 virtual columns) reads row k = (c, r, s) of its B
 * as 32 consecutive floats of the copy at a per-k offset.  The tile's rows
 * go to y run by run of valid pixels (masked stores), bias added.  Work
 * items are groups of slivers of one image, every filter panel each. */
#include "conv_omp_pw.h"
#include "errmsg.h"
#include "gemm_omp_impl.h"

#include <omp.h>
#include <stdint.h>
#include <string.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#define SLOT_X SCRATCH_CONV_COPY /* gemm_scratch: the offsets and the padded copy (calling thread) */
#define SLOT_A SCRATCH_CONV_PACK32 /* the packed filters (calling thread) */
#define SLOT_I SCRATCH_CONV_THREAD /* per image: each thread's copy of its image */
#define ITEM 4    /* slivers a work item */

int conv_pw32_ok(dtype_t dt, const conv_dims *d)
{
    if (dt != DTYPE_FP32 || d->sh > 2 || d->sw > 2 || (long)d->P * d->Q < 256 ||
        gemm_kernel_select()->simd != 2)
        return 0;
    const pw_geom g = pw_geom_of(d, d->C);
    return 8L * (g.wp - d->Q) <= g.wp && (double)d->N * g.img < INT32_MAX && (double)d->C * d->R * d->S < INT32_MAX;
}

/* Whether each work item is a whole image, copied by the thread that takes
 * it into its own buffer (enough images for the team), or a group of
 * slivers of a copy of every image made first. */
static int per_image(const conv_dims *d) { return d->N >= 2 * omp_get_max_threads(); }

/* Rows a filter panel: 12 unless 8 wastes fewer padded rows. */
static int mr_of(const conv_dims *d)
{
    const long r12 = (d->K + 11) / 12 * 12, r8 = (d->K + 7) / 8 * 8;
    return r8 < r12 ? 8 : 12;
}

static void sizes(const conv_dims *d, size_t *ab, size_t *xb)
{
    const pw_geom g = pw_geom_of(d, d->C);
    const long crs = (long)d->C * d->R * d->S, mr = mr_of(d);
    *ab = sizeof(float) * (size_t)((d->K + mr - 1) / mr * mr * crs);
    *xb = sizeof(int) * (size_t)((crs + 15) / 16 * 16) +
          (per_image(d) ? 0 : sizeof(float) * (size_t)(d->N * g.img));
}

double conv_pw32_scratch_bytes(const conv_dims *d)
{
    size_t ab, xb;
    sizes(d, &ab, &xb);
    const double mine = per_image(d) ? 4.0 * pw_geom_of(d, d->C).img * omp_get_max_threads() : 0;
    return (double)ab + (double)xb + mine;
}

#if defined(__x86_64__)
#define PTGT __attribute__((target("avx512f")))

/* Phase plane pl of x's copy (image pl / planes; channel, then phase (a, b)
 * of it) into o, zero-padded: every row written whole, 16 floats at a time
 * from masked loads of the image row (stride 2: two, and the phase's lanes
 * picked), the padding lanes loaded as zeros; rows in the padding and the
 * slack zeroed. */
PTGT static void pad_plane(const conv_dims *d, const pw_geom *g, const float *x, long pl, float *o)
{
    const long ph = pl % (g->sh * g->sw), a = ph / g->sw, b = ph % g->sw;
    const float *src = x + pl / (g->sh * g->sw) * d->H * d->W; /* (n, c) */
    const __m512i pick = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
    for (long r = 0; r < g->rows; ++r) {
        const long h = r * g->sh + a - d->ph; /* the image row */
        float *orow = o + r * g->wp;
        if (h < 0 || h >= d->H) {
            memset(orow, 0, sizeof(float) * (size_t)g->wp);
            continue;
        }
        for (long k = 0; k < g->wp; k += 16) {
            /* lane L: image column (k + L)*sw + b - pw; window [a0, a0 + 16*sw) */
            const long a0 = k * g->sw + b - d->pw, span = 16L * g->sw;
            const long lo = a0 < 0 ? -a0 : 0, hi = d->W - a0 < span ? d->W - a0 : span;
            const uint32_t m = hi > lo ? (uint32_t)(((uint64_t)1 << (hi - lo)) - 1) << lo : 0;
            const uintptr_t at = (uintptr_t)src + 4 * (uintptr_t)(h * d->W + a0);
            __m512 v = _mm512_maskz_loadu_ps((__mmask16)m, (const void *)at);
            if (g->sw == 2)
                v = _mm512_permutex2var_ps(
                    v, pick, _mm512_maskz_loadu_ps((__mmask16)(m >> 16), (const void *)(at + 64)));
            const long nw = g->wp - k < 16 ? g->wp - k : 16;
            _mm512_mask_storeu_ps(orow + k, (__mmask16)((1u << nw) - 1), v);
        }
    }
    memset(o + g->rows * g->wp, 0, sizeof(float) * (size_t)(g->plane - g->rows * g->wp));
}

#define F_ROWS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11)
#define F_DECL(i)                                                                  \
    __m512 c##i##a = _mm512_setzero_ps(), c##i##b = _mm512_setzero_ps();           \
    if (i < mr && i < h && bias) c##i##a = c##i##b = _mm512_set1_ps(bias[i]);
#define F_FMA(i)                                                                   \
    if (i < mr) {                                                                  \
        const __m512 av = _mm512_set1_ps(a[i]);                                    \
        c##i##a = _mm512_fmadd_ps(av, b0, c##i##a);                                \
        c##i##b = _mm512_fmadd_ps(av, b1, c##i##b);                                \
    }
#define F_ST(i)                                                                    \
    if (i < mr && i < h)                                                           \
        for (int u = 0; u < ru->n; ++u) {                                          \
            const uintptr_t at = (uintptr_t)y + 4 * (uintptr_t)(ru->e[u] + (long)(i) * ldy); \
            const uint32_t m = ru->mask[u];                                        \
            if (m & 0xFFFF) _mm512_mask_storeu_ps((void *)at, (__mmask16)m, c##i##a); \
            if (m >> 16) _mm512_mask_storeu_ps((void *)(at + 64), (__mmask16)(m >> 16), c##i##b); \
        }

/* Rows [0, h) of a panel (mr filters, the packed filters' k-th mr floats
 * at a + k*mr) times 32 virtual columns whose row k is at xb + offs[k],
 * over kc rows, plus bias; stored into y run by run (row stride ldy). */
PTGT static inline __attribute__((always_inline)) void
ftile(const int mr, long kc, const float *a, const float *xb, const int *offs, const float *bias,
      const gemm_runs *ru, float *y, long ldy, int h)
{
    F_ROWS(F_DECL)
    for (long k = 0; k < kc; ++k, a += mr) {
        const float *bk = xb + offs[k];
        const __m512 b0 = _mm512_loadu_ps(bk), b1 = _mm512_loadu_ps(bk + 16);
        _mm_prefetch((const char *)(a + 8 * mr), _MM_HINT_T0);
        F_ROWS(F_FMA)
    }
    F_ROWS(F_ST)
}

PTGT static void ftile_any(int mr, long kc, const float *a, const float *xb, const int *offs,
                           const float *bias, const gemm_runs *ru, float *y, long ldy, int h)
{
    if (mr == 12) ftile(12, kc, a, xb, offs, bias, ru, y, ldy, h);
    else ftile(8, kc, a, xb, offs, bias, ru, y, ldy, h);
}

int conv_pw32_fwd(const conv_dims *d, const float *x, const float *w, const float *b, float *y)
{
    const pw_geom g = pw_geom_of(d, d->C);
    const int mr = mr_of(d), M = d->K;
    const long crs = (long)d->C * d->R * d->S, rs = (long)d->R * d->S, pq = (long)d->P * d->Q;
    const long np = (M + mr - 1) / mr;
    size_t ab, xb;
    sizes(d, &ab, &xb);
    float *Ap = gemm_scratch(SLOT_A, ab);
    int *offs = (int *)gemm_scratch(SLOT_X, xb);
    if (!Ap || !offs) {
        err_set("cpu-omp conv: out of memory for the packed filters and the padded copy of x "
                "(%zu bytes)", ab + xb);
        return 1;
    }
    float *xp = (float *)(offs + (crs + 15) / 16 * 16);
    for (long k = 0; k < crs; ++k) /* row k = (c, r, s) of B */
        offs[k] = (int)pw_tap(&g, k / rs, (int)(k % rs / d->S), (int)(k % d->S));
    const long per = (g.ns + ITEM - 1) / ITEM, items = d->N * per;
    const int img_items = per_image(d);
    int failed = 0;
    atomic_int arrived = 0;
#pragma omp parallel
    {
        const int team = omp_get_num_threads();
        float *mine = img_items ? gemm_scratch(SLOT_I, sizeof(float) * (size_t)g.img) : NULL;
        if (img_items && !mine) {
#pragma omp atomic write
            failed = 1;
        }
#pragma omp for schedule(static) nowait
        for (long p = 0; p < np; ++p) /* panel p: rows p*mr .. of w (M x crs), zero past M */
            gemm_pack_cols((int)crs, M - p * mr < mr ? (int)(M - p * mr) : mr, mr,
                           w + p * mr * crs, crs, Ap + p * mr * crs, 0, 1);
        if (!img_items) {
#pragma omp for schedule(static) nowait
            for (long pl = 0; pl < d->N * g.planes; ++pl)
                pad_plane(d, &g, x, pl, xp + pl * g.plane);
        }
        gemm_yield_barrier(&arrived, team); /* the panels (and the padded planes) are ready */
#pragma omp for schedule(dynamic, 1) nowait
        for (long it = 0; it < (img_items ? d->N : items); ++it) {
            if (failed) continue;
            const long n = img_items ? it : it / per;
            const long s0 = img_items ? 0 : it % per * ITEM;
            const long s1 = img_items ? g.ns : s0 + ITEM < g.ns ? s0 + ITEM : g.ns;
            const float *xi = xp + n * g.img;
            if (img_items) { /* the image's planes into this thread's buffer */
                for (long q = 0; q < g.planes; ++q)
                    pad_plane(d, &g, x, n * g.planes + q, mine + q * g.plane);
                xi = mine;
            }
            for (long t0 = s0; t0 < s1; t0 += ITEM) {
                const long t1 = t0 + ITEM < s1 ? t0 + ITEM : s1;
                gemm_runs ru[ITEM];
                for (long s = t0; s < t1; ++s) {
                    const long j0 = s * 32;
                    pw_runs(d, &g, n, j0, (int)(g.cols - j0 < 32 ? g.cols - j0 : 32), &ru[s - t0]);
                }
                for (long p = 0; p < np; ++p)
                    for (long s = t0; s < t1; ++s)
                        ftile_any(mr, crs, Ap + p * mr * crs, xi + s * 32, offs,
                                  b ? b + p * mr : NULL, &ru[s - t0], y + p * mr * pq, pq,
                                  M - p * mr < mr ? (int)(M - p * mr) : mr);
            }
        }
        gemm_yield_barrier(&arrived, 2 * team);
    }
    if (failed) err_set("cpu-omp conv: out of memory for an image's padded copy (%zu bytes)",
                        sizeof(float) * (size_t)g.img);
    return failed;
}
#else
int conv_pw32_fwd(const conv_dims *d, const float *x, const float *w, const float *b, float *y)
{
    (void)d, (void)x, (void)w, (void)b, (void)y;
    err_set("cpu-omp conv: the in-place fp32 route needs x86-64");
    return 1;
}
#endif
