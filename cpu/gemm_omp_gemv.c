/* cpu/gemm_omp_gemv.c - cpu-omp's matrix-vector path: GEMMs with M == 1 or
 * N == 1 (contract in gemm_omp_impl.h).  A GEMM would pad the single row or
 * column to a whole 12 x 32 tile and pack the matrix it streams once; here
 * the matrix is read once, straight from the caller's memory, which is all
 * such a problem costs (it is bound by memory bandwidth, not FLOPs).
 *   dot form  (x(i,k) = X[i*ldx + k]): 4 rows at a time, 2 vectors each.
 *   axpy form (x(i,k) = X[k*ldx + i]): 64 columns held in 4 vectors while k
 *             walks down the rows.
 * A strided vector v is first copied to a contiguous per-thread buffer (K
 * floats).  Threads take contiguous ranges of the m outputs, dynamically.
 */
#include "gemm_omp_impl.h"
#include "errmsg.h"

#include <omp.h>
#include <stddef.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

static inline float finish(float acc, float alpha, float beta, const float *y)
{
    return beta == 0.0f ? alpha * acc : alpha * acc + beta * *y;
}

/* ---- portable versions ---------------------------------------------------- */
static void dot_c(int i0, int i1, int K, float alpha, const float *X, long ldx,
                  const float *v, float beta, float *y, long incy)
{
    for (int i = i0; i < i1; ++i) {
        const float *x = X + (size_t)i * ldx;
        float s[4] = {0, 0, 0, 0};
        int k = 0;
        for (; k + 4 <= K; k += 4)
            for (int u = 0; u < 4; ++u) s[u] += x[k + u] * v[k + u];
        for (; k < K; ++k) s[0] += x[k] * v[k];
        float *yi = y + (size_t)i * incy;
        *yi = finish((s[0] + s[1]) + (s[2] + s[3]), alpha, beta, yi);
    }
}

static void axpy_c(int i0, int i1, int K, float alpha, const float *X, long ldx,
                   const float *v, float beta, float *y, long incy)
{
    for (int b = i0; b < i1; b += 64) {
        const int w = i1 - b < 64 ? i1 - b : 64;
        float acc[64] = {0};
        for (int k = 0; k < K; ++k) {
            const float *x = X + (size_t)k * ldx + b;
            for (int j = 0; j < w; ++j) acc[j] += x[j] * v[k];
        }
        for (int j = 0; j < w; ++j) {
            float *yj = y + (size_t)(b + j) * incy;
            *yj = finish(acc[j], alpha, beta, yj);
        }
    }
}

#if defined(__x86_64__)
/* ---- AVX-512F versions: masked loads take the K (or column) tail ---------- */
__attribute__((target("avx512f")))
static void dot_avx512(int i0, int i1, int K, float alpha, const float *X, long ldx,
                       const float *v, float beta, float *y, long incy)
{
    int i = i0;
    for (; i + 4 <= i1; i += 4) {
        const float *x0 = X + (size_t)i * ldx, *x1 = x0 + ldx, *x2 = x1 + ldx, *x3 = x2 + ldx;
        __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
        __m512 b0 = a0, b1 = a0, b2 = a0, b3 = a0;
        int k = 0;
        for (; k + 32 <= K; k += 32) {
            __m512 u = _mm512_loadu_ps(v + k), w = _mm512_loadu_ps(v + k + 16);
            a0 = _mm512_fmadd_ps(_mm512_loadu_ps(x0 + k), u, a0);
            a1 = _mm512_fmadd_ps(_mm512_loadu_ps(x1 + k), u, a1);
            a2 = _mm512_fmadd_ps(_mm512_loadu_ps(x2 + k), u, a2);
            a3 = _mm512_fmadd_ps(_mm512_loadu_ps(x3 + k), u, a3);
            b0 = _mm512_fmadd_ps(_mm512_loadu_ps(x0 + k + 16), w, b0);
            b1 = _mm512_fmadd_ps(_mm512_loadu_ps(x1 + k + 16), w, b1);
            b2 = _mm512_fmadd_ps(_mm512_loadu_ps(x2 + k + 16), w, b2);
            b3 = _mm512_fmadd_ps(_mm512_loadu_ps(x3 + k + 16), w, b3);
        }
        for (; k < K; k += 16) {
            const __mmask16 m = K - k >= 16 ? 0xffff : (__mmask16)((1u << (K - k)) - 1);
            __m512 u = _mm512_maskz_loadu_ps(m, v + k);
            a0 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, x0 + k), u, a0);
            a1 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, x1 + k), u, a1);
            a2 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, x2 + k), u, a2);
            a3 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, x3 + k), u, a3);
        }
        const float s[4] = {_mm512_reduce_add_ps(_mm512_add_ps(a0, b0)),
                            _mm512_reduce_add_ps(_mm512_add_ps(a1, b1)),
                            _mm512_reduce_add_ps(_mm512_add_ps(a2, b2)),
                            _mm512_reduce_add_ps(_mm512_add_ps(a3, b3))};
        for (int u = 0; u < 4; ++u) {
            float *yi = y + (size_t)(i + u) * incy;
            *yi = finish(s[u], alpha, beta, yi);
        }
    }
    for (; i < i1; ++i) { /* the last rows, one at a time */
        const float *x = X + (size_t)i * ldx;
        __m512 a = _mm512_setzero_ps();
        for (int k = 0; k < K; k += 16) {
            const __mmask16 m = K - k >= 16 ? 0xffff : (__mmask16)((1u << (K - k)) - 1);
            a = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, x + k), _mm512_maskz_loadu_ps(m, v + k),
                                a);
        }
        float *yi = y + (size_t)i * incy;
        *yi = finish(_mm512_reduce_add_ps(a), alpha, beta, yi);
    }
}

__attribute__((target("avx512f")))
static void axpy_avx512(int i0, int i1, int K, float alpha, const float *X, long ldx,
                        const float *v, float beta, float *y, long incy)
{
    for (int b = i0; b < i1; b += 64) {
        const int w = i1 - b < 64 ? i1 - b : 64;
        __mmask16 m[4];
        for (int q = 0; q < 4; ++q) {
            const int n = w - 16 * q;
            m[q] = n >= 16 ? 0xffff : n <= 0 ? 0 : (__mmask16)((1u << n) - 1);
        }
        __m512 c0 = _mm512_setzero_ps(), c1 = c0, c2 = c0, c3 = c0;
        for (int k = 0; k < K; ++k) {
            const float *x = X + (size_t)k * ldx + b;
            const __m512 vk = _mm512_set1_ps(v[k]);
            c0 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m[0], x), vk, c0);
            c1 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m[1], x + 16), vk, c1);
            c2 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m[2], x + 32), vk, c2);
            c3 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m[3], x + 48), vk, c3);
        }
        _Alignas(64) float acc[64];
        _mm512_store_ps(acc, c0);
        _mm512_store_ps(acc + 16, c1);
        _mm512_store_ps(acc + 32, c2);
        _mm512_store_ps(acc + 48, c3);
        for (int j = 0; j < w; ++j) {
            float *yj = y + (size_t)(b + j) * incy;
            *yj = finish(acc[j], alpha, beta, yj);
        }
    }
}
#endif /* __x86_64__ */

typedef void (*gemv_fn)(int i0, int i1, int K, float alpha, const float *X, long ldx,
                        const float *v, float beta, float *y, long incy);

int gemm_omp_gemv(int xt, int m, int K, float alpha, const float *X, long ldx,
                  const float *v, long incv, float beta, float *y, long incy, int nt)
{
    gemv_fn fn = xt ? axpy_c : dot_c;
#if defined(__x86_64__)
    if (gemm_kernel_select()->simd >= 2) fn = xt ? axpy_avx512 : dot_avx512;
#endif
    if (incv != 1) { /* gather the strided vector once */
        float *vc = gemm_scratch(SCRATCH_GEMV, sizeof(float) * (size_t)K);
        if (!vc) {
            err_set("gemm_cpu_omp: out of memory for a %d-float vector", K);
            return 1;
        }
        for (int k = 0; k < K; ++k) vc[k] = v[(size_t)k * incv];
        v = vc;
    }
    /* whole 64-column blocks per thread in the axpy form, 4 rows in the dot form */
    const int g = xt ? 64 : 4, ng = (m + g - 1) / g;
    if (nt > ng) nt = ng;
    if (nt <= 1) {
        fn(0, m, K, alpha, X, ldx, v, beta, y, incy);
        return 0;
    }
    /* dynamic chunks: a thread the OS preempts does not hold back the rest */
    const int nch = ng < 8 * nt ? ng : 8 * nt;
    atomic_int arrived = 0; /* the end is a gemm_yield_barrier (omp_team.h) */
#pragma omp parallel num_threads(nt)
    {
#pragma omp for schedule(dynamic, 1) nowait
        for (int c = 0; c < nch; ++c) {
            const int i0 = (int)((long)ng * c / nch) * g;
            const int i1 = (int)((long)ng * (c + 1) / nch) * g;
            fn(i0, i1 < m ? i1 : m, K, alpha, X, ldx, v, beta, y, incy);
        }
        gemm_yield_barrier(&arrived, omp_get_num_threads());
    }
    return 0;
}
