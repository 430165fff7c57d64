/* cpu/conv_im2col.c - im2col, col2im, row sums and a blocked transpose
 * (conv_im2col.h).  im2col and the transpose move elements of 4 bytes (fp32)
 * or 2 (bf16, fp16: a gather of words, no conversion). */
#include "conv_im2col.h"

#include <stdint.h>
#include <string.h>

#if defined(__x86_64__)
#include <immintrin.h>

/* Whether this CPU runs AVX-512F (libgcc's CPU model, read once at start). */
static int has_avx512(void) { return __builtin_cpu_supports("avx512f") != 0; }

/* o[t] = src[2t] for 0 <= t < n, 16 at a time: two loads and one permute
 * in place of 16 scalar moves (stride-2 layers, e.g. ResNet-50 conv1:
 * the scalar gather took a third as long as the GEMM). Reads no element
 * past src[2n - 2]. */
__attribute__((target("avx512f")))
static void gather2(float *o, const float *src, int n)
{
    const __m512i even = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
    int t = 0;
    for (; t + 16 <= n; t += 16) {
        const __m512 lo = _mm512_loadu_ps(src + 2 * t);
        const __m512 hi = _mm512_maskz_loadu_ps(0x7fff, src + 2 * t + 16);
        _mm512_storeu_ps(o + t, _mm512_permutex2var_ps(lo, even, hi));
    }
    if (t < n) {
        const int m = 2 * (n - t) - 1; /* floats read */
        const __mmask16 ml = (__mmask16)(m >= 16 ? 0xffff : (1u << m) - 1);
        const __mmask16 mh = (__mmask16)(m > 16 ? (1u << (m - 16)) - 1 : 0);
        const __m512 lo = _mm512_maskz_loadu_ps(ml, src + 2 * t);
        const __m512 hi = _mm512_maskz_loadu_ps(mh, src + 2 * t + 16);
        _mm512_mask_storeu_ps(o + t, (__mmask16)((1u << (n - t)) - 1),
                              _mm512_permutex2var_ps(lo, even, hi));
    }
}

/* The same for 16-bit elements: o[t] = src[2t], 32 at a time. */
__attribute__((target("avx512f,avx512bw")))
static void gather2_16(uint16_t *o, const uint16_t *src, int n)
{
    const __m512i even = _mm512_set_epi16(62, 60, 58, 56, 54, 52, 50, 48, 46, 44, 42, 40, 38,
                                          36, 34, 32, 30, 28, 26, 24, 22, 20, 18, 16, 14, 12,
                                          10, 8, 6, 4, 2, 0);
    int t = 0;
    for (; t < n; t += 32) {
        const int m = 2 * (n - t) - 1 < 64 ? 2 * (n - t) - 1 : 64; /* words read */
        const __mmask32 ml = (__mmask32)(m >= 32 ? ~0u : (1u << m) - 1);
        const __mmask32 mh = (__mmask32)(m >= 64 ? ~0u : m > 32 ? (1u << (m - 32)) - 1 : 0);
        const __m512i lo = _mm512_maskz_loadu_epi16(ml, src + 2 * t);
        const __m512i hi = _mm512_maskz_loadu_epi16(mh, src + 2 * t + 32);
        const __mmask32 mo = (__mmask32)(n - t >= 32 ? ~0u : (1u << (n - t)) - 1);
        _mm512_mask_storeu_epi16(o + t, mo, _mm512_permutex2var_epi16(lo, even, hi));
    }
}
static int has_avx512bw(void) { return __builtin_cpu_supports("avx512bw") != 0; }

/* dst[2t] += src[t] for 0 <= t < n, 16 at a time; only those elements are
 * read and written (masked: the odd ones between, and anything past
 * dst[2n - 2], may belong to another thread's channels). */
__attribute__((target("avx512f")))
static void add2(float *dst, const float *src, int n)
{
    const __m512i i0 = _mm512_set_epi32(7, 7, 6, 6, 5, 5, 4, 4, 3, 3, 2, 2, 1, 1, 0, 0);
    const __m512i i1 = _mm512_add_epi32(i0, _mm512_set1_epi32(8));
    for (int t = 0; t < n; t += 16) {
        const int m = n - t < 16 ? n - t : 16; /* sources this round */
        const __m512 s = _mm512_maskz_loadu_ps((__mmask16)((1u << m) - 1), src + t);
        const __mmask16 m0 = (__mmask16)(0x5555u & ((1u << (2 * (m < 8 ? m : 8))) - 1));
        const __mmask16 m1 = (__mmask16)(m > 8 ? 0x5555u & ((1u << (2 * (m - 8))) - 1) : 0);
        float *d0 = dst + 2 * t, *d1 = d0 + 16;
        _mm512_mask_storeu_ps(d0, m0, _mm512_add_ps(_mm512_maskz_loadu_ps(m0, d0), _mm512_permutexvar_ps(i0, s)));
        if (m1)
            _mm512_mask_storeu_ps(d1, m1, _mm512_add_ps(_mm512_maskz_loadu_ps(m1, d1), _mm512_permutexvar_ps(i1, s)));
    }
}
#endif

/* o[t] = 0 for q <= t < a and b <= t < qe, src[t*sw] for a <= t < b:
 * one output row of a tap, elements of type T. Short rows (ResNet stage 5's
 * 7 pixels) are plain loops: memset / memcpy calls per 7-element piece had
 * cost the 16-bit columns a third of their GEMM's time. */
#define ROW_OF(T, NAME, GATHER2)                                                   \
    static inline void NAME(T *o, const T *src, int q, int a, int b, int qe, int sw) \
    {                                                                              \
        for (int t = q; t < a; t++) o[t] = 0;                                      \
        if (sw == 1 && b - a >= 64)                                                \
            memcpy(o + a, src + a, sizeof(T) * (size_t)(b - a));                  \
        else if (sw == 1)                                                          \
            for (int t = a; t < b; t++) o[t] = src[t];                             \
        else if (!(sw == 2 && b > a && GATHER2(o + a, src + 2L * a, b - a)))       \
            for (int t = a; t < b; t++) o[t] = src[(long)t * sw];                  \
        for (int t = b; t < qe; t++) o[t] = 0;                                     \
    }

#if defined(__x86_64__)
static inline int g2_32(float *o, const float *s, int n)
{
    if (!has_avx512()) return 0;
    gather2(o, s, n);
    return 1;
}
static inline int g2_16(uint16_t *o, const uint16_t *s, int n)
{
    if (!has_avx512bw()) return 0;
    gather2_16(o, s, n);
    return 1;
}
#else
static inline int g2_32(float *o, const float *s, int n) { (void)o, (void)s, (void)n; return 0; }
static inline int g2_16(uint16_t *o, const uint16_t *s, int n) { (void)o, (void)s, (void)n; return 0; }
#endif
ROW_OF(float, row32, g2_32)
ROW_OF(uint16_t, row16, g2_16)

/* Output columns q in [*qa, *qb) read input column q*sw - pw + s inside [0, W). */
static void valid_q(const conv_dims *d, int s, int *qa, int *qb)
{
    int lo = d->pw - s, hi = d->W + d->pw - s - 1;   /* q*sw in [lo, hi] */
    int a = lo <= 0 ? 0 : (lo + d->sw - 1) / d->sw;
    int b = hi < 0 ? 0 : hi / d->sw + 1;
    *qa = a < d->Q ? a : d->Q;
    *qb = b < d->Q ? b : d->Q;
    if (*qb < *qa) *qb = *qa;
}

void conv_im2col_es(const conv_dims *d, const void *xn, size_t es, int c0, int c1, long j0,
                    long j1, void *col, long ldcol)
{
    const int R = d->R, S = d->S, Q = d->Q, sw = d->sw;
    for (int c = c0; c < c1; c++)
        for (int r = 0; r < R; r++)
            for (int s = 0; s < S; s++) {
                char *out = (char *)col + ((long)((c - c0) * R + r) * S + s) * ldcol * es;
                int qa, qb;
                valid_q(d, s, &qa, &qb);
                for (long j = j0; j < j1;) {
                    int p = (int)(j / Q), q = (int)(j % Q);
                    int qe = (long)Q - q < j1 - j ? Q : q + (int)(j1 - j);
                    char *o = out + ((j - j0) - q) * (long)es; /* o[q'] for q' in [q, qe) */
                    int h = p * d->sh - d->ph + r;
                    if (h < 0 || h >= d->H) { /* a padding row: zeros */
                        if (es == 4) row32((float *)o, NULL, q, qe, qe, qe, sw);
                        else row16((uint16_t *)o, NULL, q, qe, qe, qe, sw);
                    } else {
                        const char *src =
                            (const char *)xn + (((long)c * d->H + h) * d->W - d->pw + s) * (long)es;
                        int a = qa > q ? qa : q, b = qb < qe ? qb : qe;
                        if (a > qe) a = qe;
                        if (b < a) b = a;
                        if (es == 4)
                            row32((float *)o, (const float *)src, q, a, b, qe, sw);
                        else
                            row16((uint16_t *)o, (const uint16_t *)src, q, a, b, qe, sw);
                    }
                    j += qe - q;
                }
            }
}

void conv_col2im(const conv_dims *d, const float *col, long ldcol, int c0, int c1, float *dxn)
{
    const int R = d->R, S = d->S, P = d->P, Q = d->Q, sw = d->sw;
    memset(dxn + (long)c0 * d->H * d->W, 0, sizeof(float) * (size_t)(c1 - c0) * d->H * d->W);
    for (int c = c0; c < c1; c++)
        for (int r = 0; r < R; r++)
            for (int s = 0; s < S; s++) {
                const float *in = col + ((long)((c - c0) * R + r) * S + s) * ldcol;
                int qa, qb;
                valid_q(d, s, &qa, &qb);
                for (int p = 0; p < P; p++) {
                    int h = p * d->sh - d->ph + r;
                    if (h < 0 || h >= d->H) continue;
                    float *dst = dxn + ((long)c * d->H + h) * d->W - d->pw + s;
                    const float *src = in + (long)p * Q;
                    if (sw == 1)
                        for (int q = qa; q < qb; q++) dst[q] += src[q];
#if defined(__x86_64__)
                    else if (sw == 2 && qb > qa && has_avx512())
                        add2(dst + 2L * qa, src + qa, qb - qa);
#endif
                    else
                        for (int q = qa; q < qb; q++) dst[(long)q * sw] += src[q];
                }
            }
}

void conv_transpose_es(const void *src, long lds, int rows, int cols, void *dst, long ldd,
                       size_t es)
{
    enum { B = 32 };
    for (int i0 = 0; i0 < rows; i0 += B)
        for (int j0 = 0; j0 < cols; j0 += B) {
            int i1 = i0 + B < rows ? i0 + B : rows, j1 = j0 + B < cols ? j0 + B : cols;
            if (es == 4)
                for (int i = i0; i < i1; i++)
                    for (int j = j0; j < j1; j++)
                        ((float *)dst)[(long)j * ldd + i] = ((const float *)src)[(long)i * lds + j];
            else
                for (int i = i0; i < i1; i++)
                    for (int j = j0; j < j1; j++)
                        ((uint16_t *)dst)[(long)j * ldd + i] =
                            ((const uint16_t *)src)[(long)i * lds + j];
        }
}

void conv_row_sums(const float *src, long ld, int rows, long cols, float *acc)
{
    for (int k = 0; k < rows; k++) {
        const float *r = src + k * ld;
        float lane[16] = {0};
        long j = 0;
        for (; j + 16 <= cols; j += 16)
            for (int l = 0; l < 16; l++) lane[l] += r[j + l];
        for (int l = 0; j + l < cols; l++) lane[l] += r[j + l];
        float s = 0.0f;
        for (int l = 0; l < 16; l++) s += lane[l];
        acc[k] += s;
    }
}
