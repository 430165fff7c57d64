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

#include <omp.h>
#include <stddef.h>

#if defined(__x86_64__)
#include <immintrin.h>

/* C[h x w] = alpha * op(A)[h x K] * op(B)[K x w] + beta * C for h <= 12,
 * w <= 32 (nv = 1 vector when w <= 16, else 2; masks m0, m1 cover w).
 * op(A)(i, k) = a[i*ars + k*acs]; op(B)(k, j) = b[k*bs + j].
 * full: w == 32, so B is read with plain loads (a zero-masking load costs an
 * extra uop on the FMA ports). */
__attribute__((target("avx512f"), always_inline))
static inline void tile(const int h, const int nv, const int full, int K, const float *a,
                        long ars, long acs, const float *b, long bs, __mmask16 m0,
                        __mmask16 m1, float *c, long ldc, float alpha, float beta)
{
    __m512 acc[12][2];
#pragma GCC unroll 12
    for (int i = 0; i < h; ++i) acc[i][0] = acc[i][1] = _mm512_setzero_ps();
    for (int k = 0; k < K; ++k) {
        const __m512 b0 = full ? _mm512_loadu_ps(b) : _mm512_maskz_loadu_ps(m0, b);
        const __m512 b1 = nv != 2 ? b0 : full ? _mm512_loadu_ps(b + 16)
                                              : _mm512_maskz_loadu_ps(m1, b + 16);
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
        if (nv == 2) tile(H, 2, 0, K, a, ars, acs, b, bs, m0, m1, c, ldc, alpha, beta); \
        else tile(H, 1, 0, K, a, ars, acs, b, bs, m0, m1, c, ldc, alpha, beta);         \
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
    if (h == 12 && m1 == 0xffff) tile(12, 2, 1, K, a, 1, lda, b, bs, m0, m1, c, ldc, alpha, beta);
    else tile_any(h, nv, K, a, 1, lda, b, bs, m0, m1, c, ldc, alpha, beta);
}

/* A as stored: 12 rows at a stride of lda, one float of each per k. */
__attribute__((target("avx512f")))
static void tile_a(int h, int nv, int K, const float *a, long lda, const float *b, long bs,
                   __mmask16 m0, __mmask16 m1, float *c, long ldc, float alpha, float beta)
{
    if (h == 12 && m1 == 0xffff) tile(12, 2, 1, K, a, lda, 1, b, bs, m0, m1, c, ldc, alpha, beta);
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

#if defined(__x86_64__)
/* Row tiles [t0, t1) of panel p: C[rows, p*32 : p*32+32] from op(A)'s rows
 * and op(B)'s panel b (row stride bs). */
static void run_panel(int ta, int M, int N, int K, int p, int t0, int t1, float alpha,
                      const float *A, long lda, const float *b, long bs, float beta, float *C,
                      long ldc)
{
    const int j0 = p * 32, w = N - j0 < 32 ? N - j0 : 32, nv = w > 16 ? 2 : 1;
    const __mmask16 m0 = mask_of(w), m1 = mask_of(w - 16);
    for (int t = t0; t < t1; ++t) {
        const int i0 = t * 12, h = M - i0 < 12 ? M - i0 : 12;
        float *c = C + (size_t)i0 * ldc + j0;
        if (ta) tile_at(h, nv, K, A + i0, lda, b, bs, m0, m1, c, ldc, alpha, beta);
        else tile_a(h, nv, K, A + (size_t)i0 * lda, lda, b, bs, m0, m1, c, ldc, alpha, beta);
    }
}
#endif

int gemm_omp_small(int ta, int tb, int M, int N, int K, float alpha, const float *A, long lda,
                   const float *B, long ldb, float beta, float *C, long ldc, int nt)
{
#if defined(__x86_64__)
    const int np = (N + 31) / 32, nmt = (M + 11) / 12; /* 32-column panels, 12-row tiles */
    float *Bp = NULL; /* B^T packed: panel p, K x 32, at Bp + p*K*32 */
    if (tb) {
        Bp = gemm_scratch(SCRATCH_PANELS, sizeof(float) * (size_t)np * K * 32);
        if (!Bp) {
            err_set("gemm_cpu_omp: out of memory packing a %d x %d B^T", K, N);
            return 1;
        }
    }
    /* Units: a panel and a run of row tiles; rows are split only when there
     * are too few panels to go round (N = 10 has one).  Work items are runs
     * of consecutive units, so each thread writes its own stretch of C's
     * rows (interleaved 32-column panels measured slower with 2 threads). */
    int mb = 1;
    if (nt > 1 && np < 4 * nt) mb = (4 * nt + np - 1) / np < nmt ? (4 * nt + np - 1) / np : nmt;
    const int nu = np * mb, nit = nu < 4 * nt ? nu : 4 * nt;
    if (nt > nit) nt = nit;
#define ITEM(it)                                                                          \
    for (int u = (int)((long)nu * (it) / nit); u < (int)((long)nu * ((it) + 1) / nit); ++u) { \
        const int p_ = u / mb, r_ = u % mb;                                               \
        const float *b_ = tb ? Bp + (size_t)p_ * K * 32 : B + (size_t)p_ * 32;             \
        run_panel(ta, M, N, K, p_, (int)((long)nmt * r_ / mb), (int)((long)nmt * (r_ + 1) / mb), \
                  alpha, A, lda, b_, tb ? 32 : ldb, beta, C, ldc);                        \
    }
    if (nt <= 1) {
        if (tb) gemm_pack_cols(K, N, 32, B, ldb, Bp, 0, np);
        for (int it = 0; it < nit; ++it) ITEM(it)
        return 0;
    }
    atomic_int arrived = 0; /* phases end in gemm_yield_barrier (omp_team.h) */
#pragma omp parallel num_threads(nt)
    {
        const int team = omp_get_num_threads();
        if (tb) { /* B^T's panels first, shared by every item */
#pragma omp for schedule(dynamic, 1) nowait
            for (int p = 0; p < np; ++p) gemm_pack_cols(K, N, 32, B, ldb, Bp, p, p + 1);
            gemm_yield_barrier(&arrived, team);
        }
#pragma omp for schedule(dynamic, 1) nowait
        for (int it = 0; it < nit; ++it) ITEM(it)
        gemm_yield_barrier(&arrived, team * (tb ? 2 : 1));
    }
#undef ITEM
    return 0;
#else
    (void)ta; (void)tb; (void)M; (void)N; (void)K; (void)alpha; (void)A; (void)lda;
    (void)B; (void)ldb; (void)beta; (void)C; (void)ldc; (void)nt;
    err_set("gemm_cpu_omp: the small path needs AVX-512F");
    return 1;
#endif
}
