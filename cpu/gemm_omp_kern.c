/* cpu/gemm_omp_kern.c - cpu-omp's micro-kernels and packing routines (see
 * gemm_omp.c for how the driver uses them, gemm_omp_impl.h for contracts).
 *
 * Micro-kernels, chosen once at run time with __builtin_cpu_supports (the
 * file is built without -march, so each one carries its own target attribute):
 *   AVX-512F  MR=12 NR=32: 24 zmm accumulators + 2 B vectors + 1 broadcast of
 *             A; per k: 2 vector loads + 12 broadcasts feed 24 FMAs, and
 *             software prefetches 8 k ahead in both panels.
 *   AVX2+FMA  MR=6  NR=16: 12 ymm accumulators, the classic Haswell shape.
 *   plain C   MR=4  NR=16: portable fallback (any architecture).
 * Packing is vectorised: rows are copied in constant-size chunks with k
 * outer (the source rows stream), columns go through 4x4 SSE transposes.
 * Both serve A and B: which one a block needs depends only on which of its
 * dimensions is contiguous in memory (A or B^T: columns; B or A^T: rows).
 */
#include "gemm_omp_impl.h"

#include <stdatomic.h>
#include <string.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

/* ---- portable micro-kernel: MR=4, NR=16 --------------------------------- */
#define GMR 4
#define GNR 16
static void ukernel_c(long kc, const float *A, const float *B, float *C,
                      long ldc, float alpha, float beta)
{
    float acc[GMR][GNR];
    memset(acc, 0, sizeof acc);
    for (long k = 0; k < kc; ++k) {
        const float *b = B + k * GNR, *a = A + k * GMR;
        for (int i = 0; i < GMR; ++i)
            for (int j = 0; j < GNR; ++j)
                acc[i][j] += a[i] * b[j];
    }
    for (int i = 0; i < GMR; ++i) {
        float *c = C + i * ldc;
        if (beta == 0.0f)
            for (int j = 0; j < GNR; ++j) c[j] = alpha * acc[i][j];
        else
            for (int j = 0; j < GNR; ++j) c[j] = alpha * acc[i][j] + beta * c[j];
    }
}

#if defined(__x86_64__)
/* ---- AVX-512F micro-kernel: MR=12, NR=32 ------------------------------- */
#define ZMR 12
#define ZNR 32
#define Z_ROWS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11)
#define Z_DECL(i) __m512 c##i##a = _mm512_setzero_ps(), c##i##b = _mm512_setzero_ps();
#define Z_FMA(i)                                                        \
    {                                                                   \
        __m512 av = _mm512_set1_ps(A[i]);                               \
        c##i##a = _mm512_fmadd_ps(av, b0, c##i##a);                     \
        c##i##b = _mm512_fmadd_ps(av, b1, c##i##b);                     \
    }
#define Z_PF(i) _mm_prefetch((const char *)(C + (i) * ldc), _MM_HINT_T0); \
    _mm_prefetch((const char *)(C + (i) * ldc + 31), _MM_HINT_T0);
#define Z_ST0(i)                                                        \
    _mm512_storeu_ps(C + (i) * ldc, _mm512_mul_ps(va, c##i##a));        \
    _mm512_storeu_ps(C + (i) * ldc + 16, _mm512_mul_ps(va, c##i##b));
#define Z_ST1(i)                                                        \
    _mm512_storeu_ps(C + (i) * ldc, _mm512_fmadd_ps(va, c##i##a,        \
        _mm512_mul_ps(vb, _mm512_loadu_ps(C + (i) * ldc))));            \
    _mm512_storeu_ps(C + (i) * ldc + 16, _mm512_fmadd_ps(va, c##i##b,   \
        _mm512_mul_ps(vb, _mm512_loadu_ps(C + (i) * ldc + 16))));

__attribute__((target("avx512f")))
static void ukernel_avx512(long kc, const float *A, const float *B, float *C,
                           long ldc, float alpha, float beta)
{
    Z_ROWS(Z_DECL)
    Z_ROWS(Z_PF)
    for (long k = 0; k < kc; ++k) {
        __m512 b0 = _mm512_load_ps(B), b1 = _mm512_load_ps(B + 16);
        /* 8 k ahead: measured 1.05x at 1024^3 and 2048^3 on 1 thread (the
         * hardware prefetchers alone left the kernel waiting; 4 or 16 ahead
         * measured the same as 8) */
        _mm_prefetch((const char *)(B + ZNR * 8), _MM_HINT_T0);
        _mm_prefetch((const char *)(B + ZNR * 8 + 16), _MM_HINT_T0);
        _mm_prefetch((const char *)(A + ZMR * 8), _MM_HINT_T0);
        Z_ROWS(Z_FMA)
        A += ZMR;
        B += ZNR;
    }
    __m512 va = _mm512_set1_ps(alpha), vb = _mm512_set1_ps(beta);
    if (beta == 0.0f) {
        Z_ROWS(Z_ST0)
    } else {
        Z_ROWS(Z_ST1)
    }
}

/* ---- AVX2+FMA micro-kernel: MR=6, NR=16 -------------------------------- */
#define YMR 6
#define YNR 16
#define Y_ROWS(X) X(0) X(1) X(2) X(3) X(4) X(5)
#define Y_DECL(i) __m256 c##i##a = _mm256_setzero_ps(), c##i##b = _mm256_setzero_ps();
#define Y_FMA(i)                                                        \
    {                                                                   \
        __m256 av = _mm256_broadcast_ss(A + (i));                       \
        c##i##a = _mm256_fmadd_ps(av, b0, c##i##a);                     \
        c##i##b = _mm256_fmadd_ps(av, b1, c##i##b);                     \
    }
#define Y_ST0(i)                                                        \
    _mm256_storeu_ps(C + (i) * ldc, _mm256_mul_ps(va, c##i##a));        \
    _mm256_storeu_ps(C + (i) * ldc + 8, _mm256_mul_ps(va, c##i##b));
#define Y_ST1(i)                                                        \
    _mm256_storeu_ps(C + (i) * ldc, _mm256_fmadd_ps(va, c##i##a,        \
        _mm256_mul_ps(vb, _mm256_loadu_ps(C + (i) * ldc))));            \
    _mm256_storeu_ps(C + (i) * ldc + 8, _mm256_fmadd_ps(va, c##i##b,    \
        _mm256_mul_ps(vb, _mm256_loadu_ps(C + (i) * ldc + 8))));

__attribute__((target("avx2,fma")))
static void ukernel_avx2(long kc, const float *A, const float *B, float *C,
                         long ldc, float alpha, float beta)
{
    Y_ROWS(Y_DECL)
    for (long k = 0; k < kc; ++k) {
        __m256 b0 = _mm256_load_ps(B), b1 = _mm256_load_ps(B + 8);
        Y_ROWS(Y_FMA)
        A += YMR;
        B += YNR;
    }
    __m256 va = _mm256_set1_ps(alpha), vb = _mm256_set1_ps(beta);
    if (beta == 0.0f) {
        Y_ROWS(Y_ST0)
    } else {
        Y_ROWS(Y_ST1)
    }
}
#endif /* __x86_64__ */

/* mr, nr, mc, kc, nc, kernel, simd */
static const gemm_kern_cfg cfg_c = {GMR, GNR, 96, 384, 4096, ukernel_c, 0};
#if defined(__x86_64__)
static const gemm_kern_cfg cfg_avx512 = {ZMR, ZNR, 96, 384, 4096, ukernel_avx512, 2};
static const gemm_kern_cfg cfg_avx2 = {YMR, YNR, 96, 384, 4096, ukernel_avx2, 1};
#endif

const gemm_kern_cfg *gemm_kernel_select(void)
{
    static _Atomic(const gemm_kern_cfg *) chosen = NULL;
    const gemm_kern_cfg *k = atomic_load_explicit(&chosen, memory_order_acquire);
    if (k) return k;
    k = &cfg_c;
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f"))
        k = &cfg_avx512;
    else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        k = &cfg_avx2;
#endif
    atomic_store_explicit(&chosen, k, memory_order_release);
    return k;
}

/* One panel row: r floats of which the first w come from src, the rest 0.
 * The common full widths are constant-size copies (inlined moves). */
static inline void copy_row(float *dst, const float *src, int r, int w)
{
    if (w == r) {
        switch (r) {
        case 32: memcpy(dst, src, 128); return;
        case 16: memcpy(dst, src, 64); return;
        case 12: memcpy(dst, src, 48); return;
        case 6: memcpy(dst, src, 24); return;
        case 4: memcpy(dst, src, 16); return;
        default: break;
        }
    }
    for (int j = 0; j < r; ++j) dst[j] = j < w ? src[j] : 0.0f;
}

void gemm_pack_rows(int kc, int n, int r, const float *X, long ld, float *dst, int p0,
                    int p1)
{
    for (int k = 0; k < kc; ++k) { /* k outer: each source row streams once */
        const float *src = X + k * ld;
        for (int p = p0; p < p1; ++p) {
            const int j0 = p * r, w = n - j0 < r ? n - j0 : r;
            copy_row(dst + ((size_t)p * kc + k) * r, src + j0, r, w);
        }
    }
}

void gemm_pack_cols(int kc, int n, int r, const float *X, long ld, float *dst, int p0,
                    int p1)
{
    for (int p = p0; p < p1; ++p) {
        const int j0 = p * r, h = n - j0 < r ? n - j0 : r;
        float *d = dst + (size_t)p * kc * r;
        const float *x = X + (size_t)j0 * ld;
        int j = 0;
#if defined(__x86_64__)
        if ((r & 3) == 0) { /* whole groups of 4 columns: 4x4 SSE transposes */
            const int k4 = kc & ~3;
            for (; j + 4 <= h; j += 4) {
                const float *r0 = x + (size_t)j * ld, *r1 = r0 + ld, *r2 = r1 + ld,
                            *r3 = r2 + ld;
                for (int k = 0; k < k4; k += 4) {
                    __m128 a = _mm_loadu_ps(r0 + k), b = _mm_loadu_ps(r1 + k);
                    __m128 c = _mm_loadu_ps(r2 + k), e = _mm_loadu_ps(r3 + k);
                    _MM_TRANSPOSE4_PS(a, b, c, e);
                    float *o = d + (size_t)k * r + j;
                    _mm_storeu_ps(o, a);
                    _mm_storeu_ps(o + r, b);
                    _mm_storeu_ps(o + 2 * r, c);
                    _mm_storeu_ps(o + 3 * r, e);
                }
                for (int k = k4; k < kc; ++k) {
                    float *o = d + (size_t)k * r + j;
                    o[0] = r0[k]; o[1] = r1[k]; o[2] = r2[k]; o[3] = r3[k];
                }
            }
        }
#endif
        for (; j < h; ++j) {
            const float *s = x + (size_t)j * ld;
            for (int k = 0; k < kc; ++k) d[(size_t)k * r + j] = s[k];
        }
        for (j = h; j < r; ++j)
            for (int k = 0; k < kc; ++k) d[(size_t)k * r + j] = 0.0f;
    }
}
