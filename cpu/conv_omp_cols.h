/* cpu/conv_omp_cols.h - reading the column matrix of a convolution in
 * place, 32 columns at a time, as 16-bit words (internal to cpu/: the bf16
 * implicit GEMMs, conv_omp_igemm*.c).
 *
 * col[(c*R + r)*S + s][j] = x[n][c][p*sh - ph + r][q*sw - pw + s] for column
 * j = (n*P + p)*Q + q (0 in the padding), as conv_im2col.h, over all N
 * images.  32 columns j0 .. j0 + 31 are a few runs of consecutive pixels of
 * one output row (runs_of); for tap (r, s) each run's words are
 * consecutive in x (stride 1) or every other word (stride 2), inside the
 * image for a sub-range of the run: one masked load per run, two and a
 * compaction at stride 2 (loads_of, worked out once per tap: the same for
 * every channel but for c*H*W).  row_of then gives a row of col as 32
 * words (lane L = column j0 + L; 0 past the end).  Masked-off words are
 * never read: no fault, nothing read outside x.  Strides 1 and 2 only.
 *
 * The same reads dy (N x K x P*Q) as the columns of a 1x1 convolution
 * over a K-channel P x Q image (cols_dy_dims): row k is dy's channel k. */
#ifndef CONV_OMP_COLS_H
#define CONV_OMP_COLS_H

#include "../ops/conv_dims.h"
#include "gemm_omp_impl.h"

#include <stdint.h>
#include <string.h>

/* row_load entries of a sliver on the stack: R*S taps x at most 32 runs */
#define MAX_LOADS 2048

/* A matrix of columns read in place: col of d over x (16-bit words). */
typedef struct {
    const conv_dims *d;
    const uint16_t *x;
} col_src;

#if defined(__x86_64__)
#include <immintrin.h>

#define TGT __attribute__((target("avx512f,avx512bw,avx512vl,bmi2")))

/* A sliver's columns that are consecutive pixels of one output row: lanes
 * [lane0, lane0 + len) are q0 .. q0 + len - 1 of row p of image n. */
typedef struct {
    int lane0, len, hb, wb; /* hb = p*sh - ph, wb = q0*sw - pw */
    long xoff;              /* n*C*H*W */
} run;

/* The runs of the 32 columns [j0, min(j0 + 32, jend)); returns how many. */
static inline int runs_of(const conv_dims *d, long j0, long jend, run *ru)
{
    const long pq = (long)d->P * d->Q, chw = (long)d->C * d->H * d->W;
    const long je = j0 + 32 < jend ? j0 + 32 : jend;
    int nr = 0;
    for (long j = j0; j < je; ++nr) {
        const long n = j / pq, pix = j % pq;
        const int p = (int)(pix / d->Q), q = (int)(pix % d->Q);
        const int len = (int)(d->Q - q < je - j ? d->Q - q : je - j);
        ru[nr] = (run){(int)(j - j0), len, p * d->sh - d->ph, q * d->sw - d->pw, n * chw};
        j += len;
    }
    return nr;
}

/* ceil(a / sw) for sw 1 or 2 and any sign of a (no division: this runs
 * R*S times a run per sliver). */
static inline int cdiv12(int a, int sw) { return sw == 1 ? a : (a + 1) >> 1; }

/* One masked load of a row of col: the words of lanes m (stride 2: read as
 * words m0 of the 32 at x + off + c*H*W and m1 of the next 32, then
 * compacted), lane L's word at element off + c*H*W + L*sw. */
typedef struct {
    __mmask32 m, m0, m1;
    long off;
} row_load;

/* The loads of tap (r, s) for a sliver's runs (the same for every channel
 * c): appended at tab; returns how many. */
TGT static inline int loads_of(const conv_dims *d, const run *ru, int nr, int r, int s, row_load *tab)
{
    const int sw = d->sw;
    int n = 0;
    for (int i = 0; i < nr; ++i) {
        const run *u = &ru[i];
        const int h = u->hb + r;
        if ((unsigned)h >= (unsigned)d->H) continue;
        const int w0 = u->wb + s; /* input column of the run's first pixel */
        int lo = cdiv12(-w0, sw), hi = cdiv12(d->W - w0, sw);
        if (lo < 0) lo = 0;
        if (hi > u->len) hi = u->len;
        if (hi <= lo) continue;
        const uint32_t m = (hi - lo == 32 ? ~0u : (1u << (hi - lo)) - 1) << (u->lane0 + lo);
        tab[n].m = (__mmask32)m;
        if (sw == 2) { /* the words of the two loads compacted */
            tab[n].m0 = (__mmask32)_pdep_u32(m & 0xFFFF, 0x55555555u);
            tab[n].m1 = (__mmask32)_pdep_u32(m >> 16, 0x55555555u);
        }
        tab[n].off = u->xoff + (long)h * d->W + w0 - (long)u->lane0 * sw;
        ++n;
    }
    return n;
}

/* Row (c, tap) of col for the sliver whose loads are l[0 .. n), 32 words. */
TGT static inline __m512i row_of(const col_src *f, const row_load *l, int n, long coff)
{
    __m512i v = _mm512_setzero_si512();
    if (f->d->sw == 1) {
        for (int i = 0; i < n; ++i)
            v = _mm512_mask_loadu_epi16(v, l[i].m, (const void *)((uintptr_t)f->x + 2 * (uintptr_t)(l[i].off + coff)));
        return v;
    }
    const __m512i even = _mm512_set_epi16(62, 60, 58, 56, 54, 52, 50, 48, 46, 44, 42, 40, 38,
                                          36, 34, 32, 30, 28, 26, 24, 22, 20, 18, 16, 14, 12,
                                          10, 8, 6, 4, 2, 0);
    for (int i = 0; i < n; ++i) {
        const uintptr_t b = (uintptr_t)f->x + 2 * (uintptr_t)(l[i].off + coff);
        const __m512i a0 = _mm512_maskz_loadu_epi16(l[i].m0, (const void *)b);
        const __m512i a1 = _mm512_maskz_loadu_epi16(l[i].m1, (const void *)(b + 64));
        v = _mm512_mask_mov_epi16(v, l[i].m, _mm512_permutex2var_epi16(a0, even, a1));
    }
    return v;
}


/* Rows a (2kk) and b (2kk + 1) of col, 32 words each, as the kernels' K
 * pair kk of a sliver: o[0], o[1] hold, column by column, a's word then
 * b's (gemm_bf16_pack_b32's layout). */
TGT static inline void cols_pair_store(__m512i *o, __m512i a, __m512i b)
{
    static const uint16_t LO[32] = {0, 32, 1, 33, 2, 34, 3, 35, 4, 36, 5, 37, 6, 38, 7, 39,
                                    8, 40, 9, 41, 10, 42, 11, 43, 12, 44, 13, 45, 14, 46, 15, 47};
    const __m512i lo = _mm512_loadu_si512(LO), hi = _mm512_add_epi16(lo, _mm512_set1_epi16(16));
    o[0] = _mm512_permutex2var_epi16(a, lo, b);
    o[1] = _mm512_permutex2var_epi16(a, hi, b);
}


/* Rows [0, h) of an fp32 tile t (32 floats a row: a sliver's columns)
 * rounded once to bf16 (nearest even, vcvtne2ps2bf16 as the kernels' own
 * stores) into y (row stride ldy) run by run of the sliver's columns
 * (gemm_runs, as the 16-row tile's in-register stores).  Masked stores: no
 * other word of y is written. */
__attribute__((target("avx512f,avx512bw,avx512bf16"))) static inline void
cols_store_tile(const float *t, int h, const gemm_runs *ru, uint16_t *y, long ldy)
{
    for (int i = 0; i < h; ++i) {
        const __m512i v = (__m512i)_mm512_cvtne2ps_pbh(_mm512_loadu_ps(t + i * 32 + 16),
                                                       _mm512_loadu_ps(t + i * 32));
        for (int u = 0; u < ru->n; ++u)
            _mm512_mask_storeu_epi16(
                (void *)((uintptr_t)y + 2 * (uintptr_t)(ru->e[u] + (long)i * ldy)),
                (__mmask32)ru->mask[u], v);
    }
}


/* r[0 .. 16) = its transpose (16 x 16 dwords). */
TGT static inline void cols_tr16(__m512i *r)
{
    __m512i t[16];
    for (int i = 0; i < 16; i += 2) {
        t[i] = _mm512_unpacklo_epi32(r[i], r[i + 1]);
        t[i + 1] = _mm512_unpackhi_epi32(r[i], r[i + 1]);
    }
    for (int i = 0; i < 16; i += 4) {
        r[i] = _mm512_unpacklo_epi64(t[i], t[i + 2]);
        r[i + 1] = _mm512_unpackhi_epi64(t[i], t[i + 2]);
        r[i + 2] = _mm512_unpacklo_epi64(t[i + 1], t[i + 3]);
        r[i + 3] = _mm512_unpackhi_epi64(t[i + 1], t[i + 3]);
    }
    for (int i = 0; i < 4; ++i) {
        t[i] = _mm512_shuffle_i32x4(r[i], r[i + 4], 0x88);
        t[i + 4] = _mm512_shuffle_i32x4(r[i], r[i + 4], 0xdd);
        t[i + 8] = _mm512_shuffle_i32x4(r[i + 8], r[i + 12], 0x88);
        t[i + 12] = _mm512_shuffle_i32x4(r[i + 8], r[i + 12], 0xdd);
    }
    for (int i = 0; i < 8; ++i) {
        r[i] = _mm512_shuffle_i32x4(t[i], t[i + 8], 0x88);
        r[i + 8] = _mm512_shuffle_i32x4(t[i], t[i + 8], 0xdd);
    }
}

/* Words [k, k + 32) of a row of W words padded by pw zeros on the left (and
 * any number on the right): lane L is row[k + L - pw], or 0 outside the
 * row; only the row's words are read. */
TGT static inline __m512i cols_padded_row32(const uint16_t *row, long W, long pw, long k)
{
    const long a0 = k - pw; /* the row element of lane 0 (may be < 0) */
    const long lo = a0 < 0 ? -a0 : 0, hi = W - a0 < 32 ? W - a0 : 32;
    if (hi <= lo) return _mm512_setzero_si512();
    const __mmask32 m = (__mmask32)((hi - lo == 32 ? ~0u : (1u << (hi - lo)) - 1) << lo);
    return _mm512_maskz_loadu_epi16(m, (const void *)((uintptr_t)row + 2 * (uintptr_t)a0));
}


/* Two channels x0 and x1 (x1 NULL: zeros), H x W words each, as one plane
 * of word pairs (x0's the low word), zero-padded: top rows and left columns
 * of zeros before them, rows of wp dwords, plane dwords in all (the rest
 * zero).  Each row written whole, 32 dwords at a time. */
TGT static inline void cols_pair_plane(const uint16_t *x0, const uint16_t *x1, long H, long W,
                                       long top, long left, long wp, long plane, uint32_t *o)
{
    memset(o, 0, sizeof(uint32_t) * (size_t)(top * wp));
    memset(o + (top + H) * wp, 0, sizeof(uint32_t) * (size_t)(plane - (top + H) * wp));
    for (long h = 0; h < H; ++h)
        for (long k = 0; k < wp; k += 32) { /* padded columns [k, k + 32) */
            const __m512i va = cols_padded_row32(x0 + h * W, W, left, k);
            const __m512i vb = x1 ? cols_padded_row32(x1 + h * W, W, left, k) : _mm512_setzero_si512();
            __m512i v[2];
            cols_pair_store(v, va, vb);
            const long nw = wp - k < 32 ? wp - k : 32;
            uint32_t *dst = o + (top + h) * wp + k;
            _mm512_mask_storeu_epi32(dst, (__mmask16)(nw >= 16 ? 0xFFFF : (1u << nw) - 1), v[0]);
            if (nw > 16) _mm512_mask_storeu_epi32(dst + 16, (__mmask16)((1u << (nw - 16)) - 1), v[1]);
        }
}


/* d's output gradient dy as the columns of a 1x1 convolution (stride 1, no
 * padding) over K-channel P x Q images: row k of its col is dy's channel k. */
static inline conv_dims cols_dy_dims(const conv_dims *d)
{
    conv_dims t = {d->N, d->K, d->P, d->Q, 1, 1, 1, 1, 1, 0, 0, d->P, d->Q};
    return t;
}

#endif /* __x86_64__ */
#endif
