/* cpu/conv_omp_igemm_pw_bwf.c - cpu-omp's bf16 bwd-filter for few filters
 * (at most 32; stride 1, even output width): x and dy read in place.
 *
 *   dw^T[c,r,s][k] = sum over images n and pixels (p, q) of
 *                    x[n][c][p + r - ph][q + s - pw] * dy[n][k][p][q]
 *
 * vdpbf16ps sums products in pairs along the reduction: here pairs of
 * pixels (p, q), (p, q + 1), q even (Q even: a pair never leaves its
 * output row).  Per image, the thread that takes it copies x's planes
 * zero-padded (H + 2ph rows of W + 2pw words, in its L2), where the pair's
 * two words of row (c, r, s) are adjacent: one dword at c*plane +
 * (p + r)*Wp + q + s, broadcast straight from the copy; and dy's pairs,
 * which are dwords of dy as it is, transposed once into 16 filters a pair
 * (16 x 16 dword transposes).  A register tile of rows (c, r, s) x filters
 * (24 x 16, or 12 x 32) then runs over every pixel pair of the image and
 * adds into the thread's fp32 partial of dw^T; db from the same dy pairs
 * against ones.  The partials are summed and rounded once at the end
 * (conv_sum_partials).  No column matrix is packed: the implicit GEMM of
 * conv_omp_igemm_bwf.c spent a third of cnn-conv2's time packing it (perf:
 * kernel 53 %, col 31 %, dy 6.5 %, loads 5 %). */
#include "conv_omp_igemm.h"
#include "conv_omp_cols.h"
#include "conv_omp_dt.h"
#include "errmsg.h"
#include "gemm_omp_impl.h"
#include "gemm_omp_lowp.h"

#include <omp.h>
#include <stdint.h>
#include <string.h>

#define SLOT SCRATCH_CONV_THREAD /* gemm_scratch: each thread's partial, x copy and dy pairs */

typedef struct {
    long wp, plane; /* padded row; words a padded plane */
    int q2, np;     /* pixel pairs an output row, an image */
    int nh;         /* halves of 16 filters: 1 or 2 */
    int mr;         /* rows (c, r, s) a panel: 24, or 12 with two halves */
    int crs;
    size_t part, xw, b, bytes; /* a thread's bytes: partial, x copy, dy pairs; sum */
} pbf_plan;

static size_t up64(size_t n) { return (n + 63) & ~(size_t)63; }

static void plan_of(const conv_dims *d, pbf_plan *p)
{
    p->wp = d->W + 2L * d->pw;
    p->plane = (d->H + 2L * d->ph) * p->wp;
    p->q2 = d->Q / 2;
    p->np = d->P * p->q2;
    p->nh = d->K > 16 ? 2 : 1;
    p->mr = p->nh == 2 ? 12 : 24;
    p->crs = d->C * d->R * d->S;
    p->part = up64(sizeof(float) * (size_t)(p->crs + 1) * d->K);
    p->xw = up64(2 * (size_t)d->C * p->plane);
    p->b = up64(sizeof(uint32_t) * (size_t)p->np * 16 * p->nh);
    p->bytes = p->part + p->xw + p->b;
}

int conv_igemm_pwbf_pays(dtype_t dt, const conv_dims *d)
{
    return d->sh == 1 && d->sw == 1 && d->K <= 32 && d->Q % 2 == 0 &&
           conv_igemm_bwf_ok(dt, d) &&
           (double)d->C * (d->H + 2.0 * d->ph) * (d->W + 2.0 * d->pw) < INT32_MAX;
}

double conv_igemm_pwbf_scratch_bytes(dtype_t dt, const conv_dims *d)
{
    pbf_plan p;
    (void)dt;
    plan_of(d, &p);
    return (double)p.bytes * omp_get_max_threads();
}

#if defined(__x86_64__)
/* Image xn's C planes zero-padded into xw (plane words apart). */
TGT static void pad_planes(const conv_dims *d, const pbf_plan *p, const uint16_t *xn, uint16_t *xw)
{
    const long top = d->ph * p->wp, body = d->H * p->wp;
    for (int c = 0; c < d->C; ++c) {
        uint16_t *o = xw + c * p->plane;
        memset(o, 0, 2 * (size_t)top);
        memset(o + top + body, 0, 2 * (size_t)(p->plane - top - body));
        for (int h = 0; h < d->H; ++h)
            for (long k = 0; k < p->wp; k += 32) {
                const __m512i v = cols_padded_row32(xn + ((long)c * d->H + h) * d->W, d->W, d->pw, k);
                const long nw = p->wp - k < 32 ? p->wp - k : 32;
                _mm512_mask_storeu_epi16(o + top + h * p->wp + k,
                                         (__mmask32)(nw == 32 ? ~0u : (1u << nw) - 1), v);
            }
    }
}

/* Image n's dy (dyn: K x P*Q) as pixel pairs: pair j's 16*nh dwords at
 * B + j*16*nh, lane k the words dy[k][2j], dy[k][2j + 1] (0 past K). */
TGT static void pack_dy_pairs(const conv_dims *d, const pbf_plan *p, const uint16_t *dyn,
                              uint32_t *B)
{
    const long pq = (long)d->P * d->Q;
    const int bs = 16 * p->nh;
    for (long j0 = 0; j0 < p->np; j0 += 16) {
        const int nj = p->np - j0 < 16 ? (int)(p->np - j0) : 16;
        const __mmask16 m = (__mmask16)(nj == 16 ? 0xFFFF : (1u << nj) - 1);
        for (int h = 0; h < p->nh; ++h) {
            __m512i r[16];
            for (int k = 0; k < 16; ++k)
                r[k] = 16 * h + k < d->K
                           ? _mm512_maskz_loadu_epi32(m, dyn + (16L * h + k) * pq + 2 * j0)
                           : _mm512_setzero_si512();
            cols_tr16(r);
            for (int j = 0; j < nj; ++j) _mm512_storeu_si512(B + (j0 + j) * bs + 16 * h, r[j]);
        }
    }
}

#define WTGT __attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16")))
#define W_ROWS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) \
                  X(12) X(13) X(14) X(15) X(16) X(17) X(18) X(19) X(20) X(21) X(22) X(23)
#define W_DECL(i) __m512 a##i##0 = _mm512_setzero_ps(), a##i##1 = _mm512_setzero_ps();
#define W_LOAD(i)                                                                  \
    if (i < mr && i < h) {                                                         \
        a##i##0 = _mm512_maskz_loadu_ps(m0, part + (long)(i) * ld);                \
        if (nh == 2) a##i##1 = _mm512_maskz_loadu_ps(m1, part + (long)(i) * ld + 16); \
    }
#define W_DP(i)                                                                    \
    if (i < mr) {                                                                  \
        uint32_t v;                                                                \
        memcpy(&v, t + off[i], 4);                                                 \
        const __m512bh av = (__m512bh)_mm512_set1_epi32((int)v);                   \
        a##i##0 = _mm512_dpbf16_ps(a##i##0, av, b0);                               \
        if (nh == 2) a##i##1 = _mm512_dpbf16_ps(a##i##1, av, b1);                  \
    }
#define W_ST(i)                                                                    \
    if (i < mr && i < h) {                                                         \
        _mm512_mask_storeu_ps(part + (long)(i) * ld, m0, a##i##0);                 \
        if (nh == 2) _mm512_mask_storeu_ps(part + (long)(i) * ld + 16, m1, a##i##1); \
    }

/* Rows [0, h) of a panel (h <= mr; row i's pair of pixel (p, q) at the
 * word xw + off[i] + p*wp + q, rows past h read row 0's and are dropped)
 * times every pixel pair of the image (B), added into part (row stride ld,
 * K filters; first: the rows start at 0, not at part). Specialised per
 * (mr, nh) by its callers. */
WTGT static inline __attribute__((always_inline)) void
wpanel(const int mr, const int nh, const pbf_plan *p, int P, const uint16_t *xw, const int *off,
       int h, const uint32_t *B, float *part, long ld, int K, int first)
{
    const __mmask16 m0 = (__mmask16)(K >= 16 ? 0xFFFF : (1u << K) - 1);
    const __mmask16 m1 = (__mmask16)(K >= 32 ? 0xFFFF : K > 16 ? (1u << (K - 16)) - 1 : 0);
    W_ROWS(W_DECL)
    if (!first) {
        W_ROWS(W_LOAD)
    }
    const int bs = 16 * nh;
    for (int pr = 0; pr < P; ++pr) {
        const uint16_t *xr = xw + pr * p->wp;
        const uint32_t *br = B + (size_t)pr * p->q2 * bs;
        for (int qq = 0; qq < p->q2; ++qq, br += bs) {
            const uint16_t *t = xr + 2 * qq;
            const __m512bh b0 = (__m512bh)_mm512_loadu_si512(br);
            const __m512bh b1 = nh == 2 ? (__m512bh)_mm512_loadu_si512(br + 16) : b0;
            W_ROWS(W_DP)
        }
    }
    W_ROWS(W_ST)
}

/* wpanel at the smallest instance (rows a multiple of 4) that holds h. */
WTGT static void wpanel_any(const pbf_plan *p, int P, const uint16_t *xw, const int *off, int h,
                            const uint32_t *B, float *part, long ld, int K, int first)
{
    if (p->nh == 2) {
        if (h > 8) wpanel(12, 2, p, P, xw, off, h, B, part, ld, K, first);
        else if (h > 4) wpanel(8, 2, p, P, xw, off, h, B, part, ld, K, first);
        else wpanel(4, 2, p, P, xw, off, h, B, part, ld, K, first);
        return;
    }
    if (h > 20) wpanel(24, 1, p, P, xw, off, h, B, part, ld, K, first);
    else if (h > 16) wpanel(20, 1, p, P, xw, off, h, B, part, ld, K, first);
    else if (h > 12) wpanel(16, 1, p, P, xw, off, h, B, part, ld, K, first);
    else if (h > 8) wpanel(12, 1, p, P, xw, off, h, B, part, ld, K, first);
    else if (h > 4) wpanel(8, 1, p, P, xw, off, h, B, part, ld, K, first);
    else wpanel(4, 1, p, P, xw, off, h, B, part, ld, K, first);
}

/* db's sums of image n: every pixel pair of B against ones, added into
 * row (K floats; first: started at 0). */
WTGT static void db_add(const pbf_plan *p, const uint32_t *B, float *row, int K, int first)
{
    const __m512bh one = (__m512bh)_mm512_set1_epi32(0x3F803F80); /* bf16 1.0, twice */
    const __mmask16 m0 = (__mmask16)(K >= 16 ? 0xFFFF : (1u << K) - 1);
    const __mmask16 m1 = (__mmask16)(K >= 32 ? 0xFFFF : K > 16 ? (1u << (K - 16)) - 1 : 0);
    __m512 s0 = first ? _mm512_setzero_ps() : _mm512_maskz_loadu_ps(m0, row);
    __m512 s1 = first || p->nh == 1 ? _mm512_setzero_ps() : _mm512_maskz_loadu_ps(m1, row + 16);
    const int bs = 16 * p->nh;
    for (int j = 0; j < p->np; ++j) {
        s0 = _mm512_dpbf16_ps(s0, one, (__m512bh)_mm512_loadu_si512(B + (size_t)j * bs));
        if (p->nh == 2)
            s1 = _mm512_dpbf16_ps(s1, one, (__m512bh)_mm512_loadu_si512(B + (size_t)j * bs + 16));
    }
    _mm512_mask_storeu_ps(row, m0, s0);
    if (p->nh == 2) _mm512_mask_storeu_ps(row + 16, m1, s1);
}

int conv_igemm_pwbf(dtype_t dt, const conv_dims *d, const void *x, const void *dy, void *dw,
                    void *db)
{
    pbf_plan p;
    plan_of(d, &p);
    const int nt = omp_get_max_threads(), rs = d->R * d->S, K = d->K;
    const long chw = (long)d->C * d->H * d->W, kpq = (long)K * d->P * d->Q;
    float *part[nt]; /* each thread's partial ([crs + 1][K]); NULL: it took no image */
    for (int t = 0; t < nt; ++t) part[t] = NULL;
    int failed = 0;
    atomic_int arrived = 0;
#pragma omp parallel num_threads(nt)
    {
        const int me = omp_get_thread_num();
        char *buf = (char *)gemm_scratch(SLOT, p.bytes);
        if (!buf) {
#pragma omp atomic write
            failed = 1;
        }
        float *mine = (float *)buf;
        uint16_t *xw = (uint16_t *)(buf + p.part);
        uint32_t *B = (uint32_t *)(buf + p.part + p.xw);
#pragma omp for schedule(dynamic, 1) nowait
        for (long n = 0; n < d->N; ++n) {
            if (failed) continue;
            const int first = part[me] == NULL;
            pad_planes(d, &p, (const uint16_t *)x + n * chw, xw);
            pack_dy_pairs(d, &p, (const uint16_t *)dy + n * kpq, B);
            db_add(&p, B, mine + (size_t)p.crs * K, K, first);
            for (int i0 = 0; i0 < p.crs; i0 += p.mr) {
                const int h = p.crs - i0 < p.mr ? p.crs - i0 : p.mr;
                int off[24];
                for (int i = 0; i < 24; ++i) {
                    const int row = i < h ? i0 + i : i0, c = row / rs, t = row % rs;
                    off[i] = (int)(c * p.plane + t / d->S * p.wp + t % d->S);
                }
                wpanel_any(&p, d->P, xw, off, h, B, mine + (size_t)i0 * K, K, K, first);
            }
            part[me] = mine;
        }
        omp_team_end(&arrived);
    }
    if (failed) {
        err_set("cpu-omp conv: out of memory for the bf16 bwd-filter's buffers (%zu bytes a thread)",
                p.bytes);
        return 1;
    }
    conv_sum_partials(dt, part, nt, K, p.crs, 1, K, dw, db);
    return 0;
}
#else
int conv_igemm_pwbf(dtype_t dt, const conv_dims *d, const void *x, const void *dy, void *dw,
                    void *db)
{
    (void)dt, (void)d, (void)x, (void)dy, (void)dw, (void)db;
    err_set("cpu-omp conv: the in-place bf16 bwd-filter needs x86-64");
    return 1;
}
#endif
