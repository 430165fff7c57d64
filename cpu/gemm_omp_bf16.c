/* cpu/gemm_omp_bf16.c - cpu-omp's bf16 GEMM on AVX512-BF16: the vdpbf16ps
 * micro-kernel and the pair packing it reads (gemm_omp_lowp.h for the
 * contracts, gemm_omp_lowp.c for the driver).
 *
 * vdpbf16ps multiplies 16 pairs of bf16 by 16 pairs and adds each pair's two
 * products into one fp32 lane (exact products, fp32 sums: the contract's
 * accumulation).  So K is packed in pairs, zero-padded to even:
 *   A panel (MR = 12 rows): for each K pair kk, 12 words (A[i][2kk],
 *     A[i][2kk+1]) - one 32-bit broadcast per row;
 *   B sliver (NR = 32 columns): for each kk, 32 words (B[2kk][j],
 *     B[2kk+1][j]) - two zmm loads.
 * The micro-kernel is the fp32 one's shape (gemm_omp_kern.c) with a K pair
 * for a k: 24 zmm accumulators (12 rows x 32 columns), per pair 2 loads of
 * B, 12 broadcasts of A, 24 vdpbf16ps (64 MACs each, twice an fp32 FMA's),
 * prefetching 8 pairs ahead.  The tile is rounded once to bf16 by
 * vcvtne2ps2bf16 (nearest even; like all AVX512-BF16 conversions it flushes
 * fp32 subnormals, below 2^-126, to zero) and stored with a mask at the
 * right and bottom edges, so edge tiles need no buffer.  The fp32 modes
 * (gemm_lowp_cmode) start the accumulators at C's old values (LOWP_C_F32_ADD)
 * and at the row's bias, and store them unrounded, all in registers.
 * Compiled with target attributes: the rest of the binary runs on any x86-64.
 */
#include "gemm_omp_lowp.h"

#include <stddef.h>

#if defined(__x86_64__)
#include <immintrin.h>
#include <string.h>

#define TGT __attribute__((target("avx512f,avx512bf16,avx512bw,avx512vl")))
#define BMR 12
#define BNR 32

/* Rows [0, n) of A into mr-row panels of K pairs (odd K: the last pair's
 * second half is 0; rows >= n: 0).  Each word is 4 bytes of a row of A. */
static void pack_a_rows(int mr, int K, int Kp, int n, const uint16_t *A, long lda, void *dst)
{
    uint32_t *d = dst;
    const int kp = Kp / 2, kf = K / 2; /* all pairs; whole pairs within K */
    for (int p = 0; p * mr < n; ++p, d += (size_t)kp * mr) {
        const int h = n - p * mr < mr ? n - p * mr : mr;
        for (int i = 0; i < mr; ++i) {
            const uint16_t *a = A + (size_t)(p * mr + i) * lda;
            if (i >= h) {
                for (int kk = 0; kk < kp; ++kk) d[(size_t)kk * mr + i] = 0;
                continue;
            }
            for (int kk = 0; kk < kf; ++kk) memcpy(&d[(size_t)kk * mr + i], a + 2 * kk, 4);
            for (int kk = kf; kk < kp; ++kk) /* odd K's last element, then zeros */
                d[(size_t)kk * mr + i] = 2 * kk < K ? a[2 * kk] : 0;
        }
    }
}

static void pack_a(dtype_t dt, int K, int Kp, int n, const uint16_t *A, long lda, void *dst)
{
    (void)dt;
    pack_a_rows(BMR, K, Kp, n, A, lda, dst);
}

/* n (<= 32) bf16 of row r, zero past n; a zero row when r is NULL. */
TGT static inline __m512i row32(const uint16_t *r, int n)
{
    if (!r) return _mm512_setzero_si512();
    if (n >= 32) return _mm512_loadu_si512(r);
    return _mm512_maskz_loadu_epi16((__mmask32)((1u << n) - 1), r);
}

TGT static void pack_b_avx512(int K, int Kp, int n, const uint16_t *B, long ldb, uint16_t *dst,
                              int s0, int s1)
{
    /* word 2j of the result pair row: row 0's element j; 2j + 1: row 1's */
    _Alignas(64) static const uint16_t LO[32] = {
        0, 32, 1, 33, 2, 34, 3, 35, 4, 36, 5, 37, 6, 38, 7, 39,
        8, 40, 9, 41, 10, 42, 11, 43, 12, 44, 13, 45, 14, 46, 15, 47};
    const __m512i lo = _mm512_load_si512(LO), hi = _mm512_add_epi16(lo, _mm512_set1_epi16(16));
    for (int kk = 0; kk < Kp / 2; ++kk) { /* pair rows outer: B's rows stream once */
        const uint16_t *r0 = 2 * kk < K ? B + (size_t)2 * kk * ldb : NULL;
        const uint16_t *r1 = 2 * kk + 1 < K ? B + (size_t)(2 * kk + 1) * ldb : NULL;
        for (int s = s0; s < s1; ++s) {
            const int j0 = s * BNR;
            const __m512i x = row32(r0 ? r0 + j0 : NULL, n - j0);
            const __m512i y = row32(r1 ? r1 + j0 : NULL, n - j0);
            uint16_t *o = dst + ((size_t)s * (Kp / 2) + kk) * 2 * BNR;
            _mm512_store_si512(o, _mm512_permutex2var_epi16(x, lo, y));
            _mm512_store_si512(o + 32, _mm512_permutex2var_epi16(x, hi, y));
        }
    }
}

void gemm_bf16_pack_b32(dtype_t dt, int K, int Kp, int n, const uint16_t *B, long ldb,
                        void *dst, int s0, int s1)
{
    (void)dt;
    pack_b_avx512(K, Kp, n, B, ldb, dst, s0, s1);
}

#define B_ROWS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11)
#define B_DECL(i) __m512 c##i##a = _mm512_setzero_ps(), c##i##b = _mm512_setzero_ps();
#define B_INIT(i)                                                                   \
    if (i < h) {                                                                    \
        if (cm == LOWP_C_F32_ADD) {                                                 \
            c##i##a = _mm512_maskz_loadu_ps(ma, cf + (size_t)(i) * ldc);            \
            c##i##b = _mm512_maskz_loadu_ps(mb, cf + (size_t)(i) * ldc + 16);       \
        }                                                                           \
        if (bias) {                                                                 \
            c##i##a = _mm512_add_ps(c##i##a, _mm512_set1_ps(bias[i]));              \
            c##i##b = _mm512_add_ps(c##i##b, _mm512_set1_ps(bias[i]));              \
        }                                                                           \
    }
#define B_DP(i)                                                                     \
    {                                                                               \
        const __m512bh av = (__m512bh)_mm512_set1_epi32((int)a[i]);                 \
        c##i##a = _mm512_dpbf16_ps(c##i##a, av, b0);                                \
        c##i##b = _mm512_dpbf16_ps(c##i##b, av, b1);                                \
    }
#define B_ST(i)                                                                     \
    if (i < h)                                                                      \
        _mm512_mask_storeu_epi16((uint16_t *)C + (size_t)(i) * ldc, m,              \
                                 (__m512i)_mm512_cvtne2ps_pbh(c##i##b, c##i##a));
#define B_STF(i)                                                                    \
    if (i < h) {                                                                    \
        _mm512_mask_storeu_ps(cf + (size_t)(i) * ldc, ma, c##i##a);                 \
        _mm512_mask_storeu_ps(cf + (size_t)(i) * ldc + 16, mb, c##i##b);            \
    }

TGT static void tile(dtype_t dt, int Kp, const void *Ap, const void *Bp, const float *bias,
                     gemm_lowp_cmode cm, void *C, long ldc, int h, int w)
{
    const uint32_t *a = Ap;
    const __m512i *b = Bp;
    float *cf = C;
    const __mmask32 m = w >= 32 ? ~(__mmask32)0 : (__mmask32)((1u << w) - 1);
    const __mmask16 ma = (__mmask16)m, mb = (__mmask16)(m >> 16);
    (void)dt;
    B_ROWS(B_DECL)
    if (bias || cm == LOWP_C_F32_ADD) {
        B_ROWS(B_INIT)
    }
    for (int kk = Kp / 2; kk > 0; --kk, a += BMR, b += 2) {
        const __m512bh b0 = (__m512bh)_mm512_load_si512(b), b1 = (__m512bh)_mm512_load_si512(b + 1);
        _mm_prefetch((const char *)(b + 16), _MM_HINT_T0); /* 8 pairs ahead */
        _mm_prefetch((const char *)(b + 17), _MM_HINT_T0);
        _mm_prefetch((const char *)(a + 8 * BMR), _MM_HINT_T0);
        B_ROWS(B_DP)
    }
    if (cm == LOWP_C_DT) {
        B_ROWS(B_ST)
    } else {
        B_ROWS(B_STF)
    }
}

/* The 16-row tile: 16 rows x 16 columns in 16 accumulators (per K pair one
 * load of B, 16 broadcasts of A), run on each 16-column half of the
 * 32-column sliver.  Measured against the 12 x 32 tile on one core (useful
 * GFLOP/s, 16 slivers x 288 pairs): 3-4 % slower where M fills 12-row
 * panels exactly (M = 48, 96), faster where it does not (M = 16: 96.5 vs
 * 67.3, 32: 96.0 vs 88.8, 64: 101.3 vs 92.3): the convolution's narrow
 * products (16, 32, 64 filters) take it (gemm_lowp_kern_bf16_rows). */
#define H_ROWS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15)
#define H_DECL(i) __m512 c##i = _mm512_setzero_ps();
#define H_INIT(i)                                                                   \
    if (i < h) {                                                                    \
        if (cm == LOWP_C_F32_ADD) c##i = _mm512_maskz_loadu_ps(ma, cf + (size_t)(i) * ldc); \
        if (bias) c##i = _mm512_add_ps(c##i, _mm512_set1_ps(bias[i]));              \
    }
#define H_DP(i) c##i = _mm512_dpbf16_ps(c##i, (__m512bh)_mm512_set1_epi32((int)a[i]), b0);
#define H_ST(i)                                                                     \
    if (i < h)                                                                      \
        _mm256_mask_storeu_epi16((uint16_t *)C + (size_t)(i) * ldc, ma,             \
                                 (__m256i)_mm512_cvtneps_pbh(c##i));
#define H_STF(i)                                                                    \
    if (i < h) _mm512_mask_storeu_ps(cf + (size_t)(i) * ldc, ma, c##i);
#define H_STR(i)                                                                    \
    if (i < h) {                                                                    \
        const __m256i v = (__m256i)_mm512_cvtneps_pbh(c##i);                        \
        for (int u = 0; u < runs->n; ++u) {                                         \
            const __mmask16 m = (__mmask16)(runs->mask[u] >> lane0);                 \
            if (m)                                                                  \
                _mm256_mask_storeu_epi16(                                           \
                    (void *)((uintptr_t)C +                                         \
                             2 * (uintptr_t)(runs->e[u] + lane0 + (long)(i) * ldc)), \
                    m, v);                                                          \
        }                                                                           \
    }

/* b: the sliver's K pairs one after another (offs NULL: the packed layout,
 * aligned), or pair kk's 16 columns at (const uint32_t *)b + offs[kk] (B read
 * in place, any alignment: gemm_bf16_tile16_at).  runs (not NULL): C is bf16
 * and the half's columns (the sliver's lanes lane0 ..) go out run by run
 * (gemm_runs), rounded once.  Inlined into both callers, so each loop
 * is specialised. */
TGT static inline __attribute__((always_inline)) void
half16(int Kp, const uint32_t *a, const void *b, const int *offs, const float *bias,
       gemm_lowp_cmode cm, void *C, long ldc, int h, int w, const gemm_runs *runs, int lane0)
{
    float *cf = C;
    const __mmask16 ma = w >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << w) - 1);
    H_ROWS(H_DECL)
    if (bias || cm == LOWP_C_F32_ADD) {
        H_ROWS(H_INIT)
    }
    for (int kk = 0; kk < Kp / 2; ++kk, a += 16) {
        const __m512i *bk = (const __m512i *)b + 2 * kk;
        __m512bh b0;
        if (offs) {
            b0 = (__m512bh)_mm512_loadu_si512((const uint32_t *)b + offs[kk]);
        } else {
            b0 = (__m512bh)_mm512_load_si512(bk);
            _mm_prefetch((const char *)(bk + 16), _MM_HINT_T0); /* 8 pairs ahead */
        }
        _mm_prefetch((const char *)(a + 8 * 16), _MM_HINT_T0);
        H_ROWS(H_DP)
    }
    if (runs) {
        H_ROWS(H_STR)
    } else if (cm == LOWP_C_DT) {
        H_ROWS(H_ST)
    } else {
        H_ROWS(H_STF)
    }
}

TGT static void tile16(dtype_t dt, int Kp, const void *Ap, const void *Bp, const float *bias,
                       gemm_lowp_cmode cm, void *C, long ldc, int h, int w)
{
    const size_t cs = cm == LOWP_C_DT ? 2 : 4;
    (void)dt;
    half16(Kp, Ap, Bp, NULL, bias, cm, C, ldc, h, w < 16 ? w : 16, NULL, 0);
    if (w > 16)
        half16(Kp, Ap, (const __m512i *)Bp + 1, NULL, bias, cm, (char *)C + 16 * cs, ldc, h,
               w - 16, NULL, 0);
}

TGT void gemm_bf16_tile16_at(int Kp, const void *Ap, const uint32_t *b, const int *offs,
                             const float *bias, const gemm_runs *runs, uint16_t *y,
                             long ldy, int h, int w)
{
    half16(Kp, Ap, b, offs, bias, LOWP_C_DT, y, ldy, h, w < 16 ? w : 16, runs, 0);
    if (w > 16) half16(Kp, Ap, b + 16, offs, bias, LOWP_C_DT, y, ldy, h, w - 16, runs, 16);
}

static void pack_a16(dtype_t dt, int K, int Kp, int n, const uint16_t *A, long lda, void *dst)
{
    (void)dt;
    pack_a_rows(16, K, Kp, n, A, lda, dst);
}

static const gemm_lowp_kern KERN = {"avx512-bf16 vdpbf16ps", BMR, BNR, 96, 2, 2,
                                    pack_a, gemm_bf16_pack_b32, tile};
static const gemm_lowp_kern KERN16 = {"avx512-bf16 vdpbf16ps", 16, BNR, 96, 2, 2,
                                      pack_a16, gemm_bf16_pack_b32, tile16};

const gemm_lowp_kern *gemm_lowp_kern_avx512bf16(void) { return &KERN; }

const gemm_lowp_kern *gemm_lowp_kern_bf16_rows(int M)
{
    const int r12 = (M + BMR - 1) / BMR * BMR, r16 = (M + 15) / 16 * 16;
    return r16 * 1.04 < r12 ? &KERN16 : &KERN;
}

#else /* not x86-64: gemm_lowp_choose never picks this path (no feature bits) */
const gemm_lowp_kern *gemm_lowp_kern_avx512bf16(void) { return NULL; }
const gemm_lowp_kern *gemm_lowp_kern_bf16_rows(int M) { (void)M; return NULL; }
#endif
