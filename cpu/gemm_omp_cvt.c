/* cpu/gemm_omp_cvt.c - cpu-omp's portable bf16/fp16 GEMM: the 16-bit
 * operands are converted to fp32 while they are packed, into exactly the
 * panels the fp32 micro-kernel reads (gemm_kernel_select: AVX-512F, AVX2 or
 * plain C), which then runs over all of K; its fp32 tile is rounded once to
 * the dtype (contracts in gemm_omp_lowp.h, driver in gemm_omp_lowp.c).
 *
 * Conversions: bf16 -> fp32 is exact and is a 16-bit shift (plain C, which
 * the compiler vectorises); fp16 -> fp32 (exact) and fp32 -> fp16 (nearest
 * even, subnormals kept) by F16C's vcvtph2ps / vcvtps2ph, 8 at a time, on
 * the F16C path; otherwise, and fp32 -> bf16 always, by ops/dtype.h's scalar
 * converters.  Converting while packing adds no pass: packing copies every
 * element once anyway.
 */
#include "gemm_omp_lowp.h"
#include "gemm_omp_impl.h"
#include "cpu_features.h"

#include <pthread.h>
#include <string.h>

#if defined(__x86_64__)
#include <immintrin.h>

/* Whole groups of 8 of n; returns how many were converted. */
__attribute__((target("avx,f16c")))
static long f16c_to_f32(const uint16_t *s, float *d, long n)
{
    long j = 0;
    for (; j + 8 <= n; j += 8)
        _mm256_storeu_ps(d + j, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(s + j))));
    return j;
}

__attribute__((target("avx,f16c")))
static long f16c_from_f32(const float *s, uint16_t *d, long n)
{
    long j = 0;
    for (; j + 8 <= n; j += 8)
        _mm_storeu_si128((__m128i *)(d + j),
                         _mm256_cvtps_ph(_mm256_loadu_ps(s + j),
                                         _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    return j;
}
#endif

/* d[0..n) = s[0..n) (bf16 or fp16) as floats. */
static void to_f32(dtype_t dt, int f16c, const uint16_t *s, float *d, long n)
{
    long j = 0;
    if (dt == DTYPE_BF16) {
        for (; j < n; ++j) {
            const uint32_t u = (uint32_t)s[j] << 16; /* bf16 is fp32's top half */
            memcpy(&d[j], &u, 4);
        }
        return;
    }
#if defined(__x86_64__)
    if (f16c) j = f16c_to_f32(s, d, n);
#endif
    for (; j < n; ++j) d[j] = dtype_fp16_to_f32(s[j]);
}

/* d[0..n) = s[0..n) rounded once to dt (nearest even).  bf16 in integer
 * arithmetic (vectorised): adding 0x7FFF plus the kept part's last bit to
 * the fp32 pattern rounds its top 16 bits to nearest even, overflowing to
 * infinity and keeping subnormals as dtype_bf16_from_f32 does; NaN becomes
 * the canonical 0x7FFF as there. */
static void from_f32(dtype_t dt, int f16c, const float *s, uint16_t *d, long n)
{
    long j = 0;
    if (dt == DTYPE_BF16) {
        for (; j < n; ++j) {
            uint32_t u;
            memcpy(&u, &s[j], 4);
            const uint16_t r = (uint16_t)((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
            d[j] = (u & 0x7FFFFFFFu) > 0x7F800000u ? 0x7FFF : r;
        }
        return;
    }
#if defined(__x86_64__)
    if (f16c) j = f16c_from_f32(s, d, n);
#endif
    for (; j < n; ++j) d[j] = dtype_fp16_from_f32(s[j]);
}

#define CHUNK 256 /* a row of A is converted this many elements at a time */

/* Rows [0, n) of A into mr-row panels of K floats per row (mr per k). */
static void pack_a(int f16c, dtype_t dt, int K, int n, const uint16_t *A, long lda, float *d)
{
    const int mr = gemm_kernel_select()->mr;
    float buf[CHUNK];
    for (int p = 0; p * mr < n; ++p, d += (size_t)mr * K)
        for (int i = 0; i < mr; ++i) {
            const int row = p * mr + i;
            if (row >= n) {
                for (int k = 0; k < K; ++k) d[(size_t)k * mr + i] = 0.0f;
                continue;
            }
            for (int k0 = 0; k0 < K; k0 += CHUNK) {
                const int len = K - k0 < CHUNK ? K - k0 : CHUNK;
                to_f32(dt, f16c, A + (size_t)row * lda + k0, buf, len);
                for (int t = 0; t < len; ++t) d[(size_t)(k0 + t) * mr + i] = buf[t];
            }
        }
}

/* nr-wide slivers [s0, s1) of the K x n block of B, each K rows of nr floats. */
static void pack_b(int f16c, dtype_t dt, int K, int n, const uint16_t *B, long ldb, float *d,
                   int s0, int s1)
{
    const int nr = gemm_kernel_select()->nr;
    for (int k = 0; k < K; ++k) /* k outer: B's rows stream once */
        for (int s = s0; s < s1; ++s) {
            const int j0 = s * nr, w = n - j0 < nr ? n - j0 : nr;
            float *o = d + ((size_t)s * K + k) * nr;
            to_f32(dt, f16c, B + (size_t)k * ldb + j0, o, w);
            for (int j = w; j < nr; ++j) o[j] = 0.0f;
        }
}

/* The fp32 kernel's tile over all of K, then h rows of w finished into C
 * (gemm_lowp_tile_f32; LOWP_C_DT: rounded). */
static void tile(int f16c, dtype_t dt, int K, const float *Ap, const float *Bp,
                 const float *bias, gemm_lowp_cmode cm, void *C, long ldc, int h, int w)
{
    const gemm_kern_cfg *cf = gemm_kernel_select();
    _Alignas(64) float t[GEMM_MAX_TILE];
    cf->fn(K, Ap, Bp, t, cf->nr, 1.0f, 0.0f);
    if (gemm_lowp_tile_f32(t, cf->nr, bias, cm, C, ldc, h, w)) return;
    for (int y = 0; y < h; ++y)
        from_f32(dt, f16c, t + y * cf->nr, (uint16_t *)C + (size_t)y * ldc, w);
}

/* The two flavours' entries (gemm_lowp_kern's signatures; Kp == K: kq = 1). */
#define FLAVOUR(name, f16c)                                                                 \
    static void pack_a_##name(dtype_t dt, int K, int Kp, int n, const uint16_t *A, long lda, \
                              void *dst)                                                    \
    {                                                                                       \
        (void)Kp;                                                                           \
        pack_a(f16c, dt, K, n, A, lda, dst);                                                \
    }                                                                                       \
    static void pack_b_##name(dtype_t dt, int K, int Kp, int n, const uint16_t *B, long ldb, \
                              void *dst, int s0, int s1)                                    \
    {                                                                                       \
        (void)Kp;                                                                           \
        pack_b(f16c, dt, K, n, B, ldb, dst, s0, s1);                                        \
    }                                                                                       \
    static void tile_##name(dtype_t dt, int Kp, const void *Ap, const void *Bp,            \
                            const float *bias, gemm_lowp_cmode cm, void *C, long ldc, int h, \
                            int w)                                                          \
    {                                                                                       \
        tile(f16c, dt, Kp, Ap, Bp, bias, cm, C, ldc, h, w);                                 \
    }
FLAVOUR(plain, 0)
FLAVOUR(f16c, 1)

static gemm_lowp_kern kern_plain = {"convert in packing + fp32 fma", 0, 0, 0, 1, 4,
                                    pack_a_plain, pack_b_plain, tile_plain};
static gemm_lowp_kern kern_f16c = {"f16c convert in packing + fp32 fma", 0, 0, 0, 1, 4,
                                   pack_a_f16c, pack_b_f16c, tile_f16c};
static pthread_once_t kern_once = PTHREAD_ONCE_INIT;

/* The tile and A block of the fp32 kernel this CPU runs. */
static void kern_init(void)
{
    const gemm_kern_cfg *cf = gemm_kernel_select();
    gemm_lowp_kern *k[2] = {&kern_plain, &kern_f16c};
    for (int i = 0; i < 2; ++i) {
        k[i]->mr = cf->mr;
        k[i]->nr = cf->nr;
        k[i]->mc = cf->mc;
    }
}

const gemm_lowp_kern *gemm_lowp_kern_cvt(int f16c)
{
    pthread_once(&kern_once, kern_init);
    return f16c ? &kern_f16c : &kern_plain;
}

void gemm_lowp_widen(dtype_t dt, const uint16_t *s, float *d, long n)
{
    to_f32(dt, (cpu_features() & CPU_F_F16C) != 0, s, d, n);
}

#if defined(__x86_64__)
/* from_f32's bf16 rounding, 16 at a time (the same integer formula, so the
 * same bits, NaN and subnormals included); returns how many were done. */
__attribute__((target("avx512f,avx512bw"))) static long bf16_from_f32_avx512(const float *s,
                                                                            uint16_t *d, long n)
{
    const __m512i half = _mm512_set1_epi32(0x7FFF), one = _mm512_set1_epi32(1);
    const __m512i abs = _mm512_set1_epi32(0x7FFFFFFF), inf = _mm512_set1_epi32(0x7F800000);
    long j = 0;
    for (; j + 16 <= n; j += 16) {
        const __m512i u = _mm512_loadu_si512(s + j);
        const __m512i odd = _mm512_and_si512(_mm512_srli_epi32(u, 16), one);
        __m512i r = _mm512_srli_epi32(_mm512_add_epi32(_mm512_add_epi32(u, half), odd), 16);
        const __mmask16 nan = _mm512_cmpgt_epu32_mask(_mm512_and_si512(u, abs), inf);
        r = _mm512_mask_mov_epi32(r, nan, half);
        _mm256_storeu_si256((__m256i *)(d + j), _mm512_cvtepi32_epi16(r));
    }
    return j;
}
#endif

void gemm_lowp_narrow(dtype_t dt, const float *s, uint16_t *d, long n)
{
#if defined(__x86_64__)
    if (dt == DTYPE_BF16 && __builtin_cpu_supports("avx512bw")) {
        const long j = bf16_from_f32_avx512(s, d, n);
        from_f32(dt, 0, s + j, d + j, n - j);
        return;
    }
#endif
    from_f32(dt, (cpu_features() & CPU_F_F16C) != 0, s, d, n);
}
