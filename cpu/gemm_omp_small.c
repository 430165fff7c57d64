/* cpu/gemm_omp_small.c - cpu-omp's path for small products (contract in
 * gemm_omp_impl.h): one thread, no packing of A, and of B only when it is
 * stored transposed.  For a 64^3 product the blocked path spent about as long
 * packing both operands and padding edge tiles through a buffer as it did
 * multiplying; here the micro-kernel reads the caller's matrices directly:
 *   A: one broadcast per (row, k) from wherever op(A)'s element lives (a
 *      broadcast costs one load whatever its address), rows at a stride;
 *   B: op(B)'s row k, 32 (or 16) columns, by masked vector loads, so the
 *      N edge needs no padding and no scalar write-back;
 *   C: masked stores; the M edge runs a kernel compiled for that row count.
 * Tiles are up to 12 x 32 (24 zmm accumulators, as the packed kernel); j
 * panels outer, so a K x 32 panel of B stays in L1/L2 while A streams.
 * B^T (rows of B contiguous in k) is packed into K x 32 panels first: that is
 * what lets the kernel load rows of op(B).
 * AVX-512F only; other CPUs take the blocked path.
 */
#include "gemm_omp_impl.h"
#include "errmsg.h"

#include <stddef.h>

#if defined(__x86_64__)
#include <immintrin.h>

/* C[h x w] = alpha * op(A)[h x K] * op(B)[K x w] + beta * C for h <= 12,
 * w <= 32 (nv = 1 vector when w <= 16, else 2; masks m0, m1 cover w).
 * op(A)(i, k) = a[i*ars + k*acs]; op(B)(k, j) = b[k*bs + j]. */
__attribute__((target("avx512f"), always_inline))
static inline void tile(const int h, const int nv, int K, const float *a, long ars, long acs,
                        const float *b, long bs, __mmask16 m0, __mmask16 m1, float *c,
                        long ldc, float alpha, float beta)
{
    __m512 acc[12][2];
#pragma GCC unroll 12
    for (int i = 0; i < h; ++i) acc[i][0] = acc[i][1] = _mm512_setzero_ps();
    for (int k = 0; k < K; ++k) {
        const __m512 b0 = _mm512_maskz_loadu_ps(m0, b);
        const __m512 b1 = nv == 2 ? _mm512_maskz_loadu_ps(m1, b + 16) : b0;
#pragma GCC unroll 12
        for (int i = 0; i < h; ++i) {
            const __m512 av = _mm512_set1_ps(a[i * ars]);
            acc[i][0] = _mm512_fmadd_ps(av, b0, acc[i][0]);
            if (nv == 2) acc[i][1] = _mm512_fmadd_ps(av, b1, acc[i][1]);
        }
        a += acs;
        b += bs;
    }
    const __m512 va = _mm512_set1_ps(alpha), vb = _mm512_set1_ps(beta);
#pragma GCC unroll 12
    for (int i = 0; i < h; ++i) {
        float *ci = c + i * ldc;
        __m512 r0 = _mm512_mul_ps(va, acc[i][0]), r1 = _mm512_mul_ps(va, acc[i][1]);
        if (beta != 0.0f) {
            r0 = _mm512_fmadd_ps(vb, _mm512_maskz_loadu_ps(m0, ci), r0);
            if (nv == 2) r1 = _mm512_fmadd_ps(vb, _mm512_maskz_loadu_ps(m1, ci + 16), r1);
        }
        _mm512_mask_storeu_ps(ci, m0, r0);
        if (nv == 2) _mm512_mask_storeu_ps(ci + 16, m1, r1);
    }
}

/* Every row count 1..12 gets its own fully unrolled kernel. */
#define SMALL_CASE(H)                                                                  \
    case H:                                                                            \
        if (nv == 2) tile(H, 2, K, a, ars, acs, b, bs, m0, m1, c, ldc, alpha, beta);   \
        else tile(H, 1, K, a, ars, acs, b, bs, m0, m1, c, ldc, alpha, beta);           \
        break;

__attribute__((target("avx512f")))
static void tile_any(int h, int nv, int K, const float *a, long ars, long acs, const float *b,
                     long bs, __mmask16 m0, __mmask16 m1, float *c, long ldc, float alpha,
                     float beta)
{
    switch (h) {
        SMALL_CASE(12) SMALL_CASE(11) SMALL_CASE(10) SMALL_CASE(9) SMALL_CASE(8)
        SMALL_CASE(7) SMALL_CASE(6) SMALL_CASE(5) SMALL_CASE(4) SMALL_CASE(3)
        SMALL_CASE(2) SMALL_CASE(1)
    default: break;
    }
}

/* A stored transposed: the 12 rows of a tile are 12 consecutive floats per k. */
__attribute__((target("avx512f")))
static void tile_at(int h, int nv, int K, const float *a, long lda, const float *b, long bs,
                    __mmask16 m0, __mmask16 m1, float *c, long ldc, float alpha, float beta)
{
    if (h == 12 && nv == 2) tile(12, 2, K, a, 1, lda, b, bs, m0, m1, c, ldc, alpha, beta);
    else tile_any(h, nv, K, a, 1, lda, b, bs, m0, m1, c, ldc, alpha, beta);
}

/* A as stored: 12 rows at a stride of lda, one float of each per k. */
__attribute__((target("avx512f")))
static void tile_a(int h, int nv, int K, const float *a, long lda, const float *b, long bs,
                   __mmask16 m0, __mmask16 m1, float *c, long ldc, float alpha, float beta)
{
    if (h == 12 && nv == 2) tile(12, 2, K, a, lda, 1, b, bs, m0, m1, c, ldc, alpha, beta);
    else tile_any(h, nv, K, a, lda, 1, b, bs, m0, m1, c, ldc, alpha, beta);
}

static __mmask16 mask_of(int n) { return n >= 16 ? 0xffff : n <= 0 ? 0 : (__mmask16)((1u << n) - 1); }
#endif /* __x86_64__ */

int gemm_omp_small_ok(void)
{
#if defined(__x86_64__)
    return gemm_kernel_select()->simd >= 2;
#else
    return 0;
#endif
}

int gemm_omp_small(int ta, int tb, int M, int N, int K, float alpha, const float *A, long lda,
                   const float *B, long ldb, float beta, float *C, long ldc)
{
#if defined(__x86_64__)
    const float *Bp = B;
    long bpanel = 0, bs = ldb; /* op(B)'s panel j0/32 starts at Bp + (j0/32)*bpanel */
    if (tb) {
        const int np = (N + 31) / 32;
        float *buf = gemm_scratch(0, sizeof(float) * (size_t)np * K * 32);
        if (!buf) {
            err_set("gemm_cpu_omp: out of memory packing a %d x %d B^T", K, N);
            return 1;
        }
        gemm_pack_cols(K, N, 32, B, ldb, buf, 0, np);
        Bp = buf;
        bpanel = (long)K * 32;
        bs = 32;
    }
    for (int j0 = 0; j0 < N; j0 += 32) {
        const int w = N - j0 < 32 ? N - j0 : 32, nv = w > 16 ? 2 : 1;
        const __mmask16 m0 = mask_of(w), m1 = mask_of(w - 16);
        const float *b = tb ? Bp + (size_t)(j0 / 32) * bpanel : Bp + j0;
        for (int i0 = 0; i0 < M; i0 += 12) {
            const int h = M - i0 < 12 ? M - i0 : 12;
            float *c = C + (size_t)i0 * ldc + j0;
            if (ta) tile_at(h, nv, K, A + i0, lda, b, bs, m0, m1, c, ldc, alpha, beta);
            else tile_a(h, nv, K, A + (size_t)i0 * lda, lda, b, bs, m0, m1, c, ldc, alpha, beta);
        }
    }
    return 0;
#else
    (void)ta; (void)tb; (void)M; (void)N; (void)K; (void)alpha; (void)A; (void)lda;
    (void)B; (void)ldb; (void)beta; (void)C; (void)ldc;
    err_set("gemm_cpu_omp: the small path needs AVX-512F");
    return 1;
#endif
}
