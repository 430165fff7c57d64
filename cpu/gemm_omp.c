/* cpu/gemm_omp.c - hand-written OpenMP + SIMD single-precision GEMM (cpu-omp).
 *
 * C = alpha*A*B + beta*C, row-major fp32, contract in gemm_cpu.h.  The
 * BLIS/GotoBLAS structure:
 *   jc loop over N in NC columns  -> the K x NC panel of B is packed once
 *                                    (all K blocks), shared by all threads, L3,
 *   work items (ic rows x sliver group), handed out dynamically:
 *     pc loop over K in KC        -> beta folded into the first K block,
 *       A block (<= MC x KC) packed per thread (that core's private L2),
 *       jr loop over NR columns   -> one B micro-panel (KC x NR), L1/L2,
 *       ir loop over MR rows      -> A micro-panels, reused from L1/L2,
 *   micro-kernel: MR x NR tile of C held in vector registers, rank-1 updates.
 * Packed panels are zero-padded to whole MR/NR tiles, so the micro-kernel
 * always runs on full tiles; partial tiles of C go through a small aligned
 * buffer and a scalar write-back.  alpha is applied at write-back.
 *
 * Micro-kernels, chosen once at run time with __builtin_cpu_supports (the
 * file is built without -march, so each one carries its own target attribute):
 *   AVX-512F  MR=12 NR=32: 24 zmm accumulators + 2 B vectors + 1 broadcast of
 *             A; per k: 2 vector loads + 12 broadcasts feed 24 FMAs.
 *   AVX2+FMA  MR=6  NR=16: 12 ymm accumulators, the classic Haswell shape.
 *   plain C   MR=4  NR=16: portable fallback (any architecture).
 * Blocking, for the target Xeon (Sapphire Rapids class; per core 48 KiB L1d,
 * 2 MiB L2; 105 MiB shared L3), chosen by a sweep of KC x MC at n=1024/2048
 * with 1 and 2 threads (a broad plateau: KC 384-512, MC 72-96, within ~1%):
 *   KC=384: B micro-panel KC*NR*4 = 48 KiB (about L1; the L1/L2 prefetchers
 *           keep it fed), long enough to amortise the C tile load/store.
 *           K is cut into equal blocks (a multiple of 8) so no tiny tail block.
 *   MC=96:  A block MC*KC*4 = 144 KiB, well inside L2, so the A micro-panels
 *           (18 KiB each) and the B panel stream without evicting each other;
 *           small MC measured 2-5% faster than MC=240..960.
 *   NC<=4096, and K*NC*4 <= 16 MiB: the packed panel lives in L3 (105 MiB);
 *           n <= 2048 needs a single panel, so only 2 barriers per call.
 * Packing is vectorised (B: constant-size row copies with k outer so B rows
 * stream; A: 4x4 SSE transposes) - it was ~9% of a 1-thread n=1024 run.
 * Threads: omp_get_max_threads().  Work items are row chunks (whole MR panels,
 * at most MC rows, a multiple of tm of them so that equal threads get equal
 * shares) times tn groups of NR slivers (tn > 1 only when M is too short to
 * split); tm x tn = threads, the factorisation with the smallest per-thread
 * share.  Items and B packing use schedule(dynamic): on this shared 2-vCPU
 * machine a thread preempted by another process would otherwise stall the
 * whole call (measured: median 19 -> 141 GFLOP/s at n=512 under load).
 * Buffers: aligned_alloc(64) per call (packed B panel + one A block/thread).
 */
#include "gemm_cpu.h"
#include "errmsg.h"

#include <omp.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

typedef void (*ukernel_fn)(long kc, const float *A, const float *B, float *C,
                           long ldc, float alpha, float beta);

typedef struct {
    int mr, nr, mc, kc, nc;
    ukernel_fn fn;
} kern_cfg;

#define MAX_TILE (16 * 32) /* largest MR*NR of any kernel */

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

/* mr, nr, mc, kc, nc, kernel */
static const kern_cfg cfg_c = {GMR, GNR, 96, 384, 4096, ukernel_c};
#if defined(__x86_64__)
static const kern_cfg cfg_avx512 = {ZMR, ZNR, 96, 384, 4096, ukernel_avx512};
static const kern_cfg cfg_avx2 = {YMR, YNR, 96, 384, 4096, ukernel_avx2};
#endif

static const kern_cfg *select_kernel(void)
{
    static _Atomic(const kern_cfg *) chosen = NULL;
    const kern_cfg *k = atomic_load_explicit(&chosen, memory_order_acquire);
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

/* Pack B[0:kc, 0:nc] (row stride ldb) as NR-wide slivers s0 <= s < s1, each
 * kc x NR contiguous, columns past nc zero-filled.  k is the outer loop so
 * rows of B are read as long contiguous streams (hardware prefetch friendly). */
static void pack_b(int kc, int nc, int nr, const float *B, long ldb, float *Bp,
                   int s0, int s1)
{
    const int sf = nc / nr < s1 ? nc / nr : s1; /* full slivers end here */
    for (int k = 0; k < kc; ++k) {
        const float *src = B + k * ldb;
        float *dst = Bp + (size_t)k * nr;
        int s = s0;
        if (nr == 32)
            for (; s < sf; ++s) memcpy(dst + (size_t)s * kc * 32, src + s * 32, 128);
        else if (nr == 16)
            for (; s < sf; ++s) memcpy(dst + (size_t)s * kc * 16, src + s * 16, 64);
        for (; s < s1; ++s) {
            const int j0 = s * nr, w = nc - j0 < nr ? nc - j0 : nr;
            for (int j = 0; j < nr; ++j)
                dst[(size_t)s * kc * nr + j] = j < w ? src[j0 + j] : 0.0f;
        }
    }
}

/* Pack A[0:mc, 0:kc] (row stride lda) as MR-row micro-panels, each stored
 * k-major (MR consecutive floats per k), rows past mc zero-filled.  Full
 * panels with MR % 4 == 0 use 4x4 SSE transposes (SSE is baseline x86-64). */
static void pack_a(int mc, int kc, int mr, const float *A, long lda, float *Ap)
{
    for (int i0 = 0; i0 < mc; i0 += mr) {
        const int h = mc - i0 < mr ? mc - i0 : mr;
        float *dst = Ap + (size_t)i0 * kc;
        int i = 0;
#if defined(__x86_64__)
        if (h == mr && (mr & 3) == 0) {
            const int k4 = kc & ~3;
            for (; i < h; i += 4) {
                const float *r0 = A + (size_t)(i0 + i) * lda, *r1 = r0 + lda,
                            *r2 = r1 + lda, *r3 = r2 + lda;
                for (int k = 0; k < k4; k += 4) {
                    __m128 a = _mm_loadu_ps(r0 + k), b = _mm_loadu_ps(r1 + k);
                    __m128 c = _mm_loadu_ps(r2 + k), d = _mm_loadu_ps(r3 + k);
                    _MM_TRANSPOSE4_PS(a, b, c, d);
                    float *o = dst + (size_t)k * mr + i;
                    _mm_storeu_ps(o, a);
                    _mm_storeu_ps(o + mr, b);
                    _mm_storeu_ps(o + 2 * mr, c);
                    _mm_storeu_ps(o + 3 * mr, d);
                }
                for (int k = k4; k < kc; ++k) {
                    float *o = dst + (size_t)k * mr + i;
                    o[0] = r0[k]; o[1] = r1[k]; o[2] = r2[k]; o[3] = r3[k];
                }
            }
        }
#endif
        for (; i < h; ++i) {
            const float *src = A + (size_t)(i0 + i) * lda;
            for (int k = 0; k < kc; ++k) dst[(size_t)k * mr + i] = src[k];
        }
        for (i = h; i < mr; ++i)
            for (int k = 0; k < kc; ++k) dst[(size_t)k * mr + i] = 0.0f;
    }
}

static size_t round64(size_t bytes) { return (bytes + 63) & ~(size_t)63; }

static int gemm_omp_cfg(const kern_cfg *cf, int M, int N, int K, float alpha,
                        const float *A, int lda, const float *B, int ldb,
                        float beta, float *C, int ldc)
{
    if (M <= 0 || N <= 0) return 0;
    if (K <= 0 || alpha == 0.0f) { /* C = beta*C only */
        for (int i = 0; i < M; ++i)
            for (int j = 0; j < N; ++j)
                C[(size_t)i * ldc + j] = beta == 0.0f ? 0.0f : beta * C[(size_t)i * ldc + j];
        return 0;
    }
    const int MR = cf->mr, NR = cf->nr;
    /* K blocks of equal size (a multiple of 8), e.g. K=513 -> 2 x 264, not 384+129 */
    const int nkb = (K + cf->kc - 1) / cf->kc;
    int KC = ((K + nkb - 1) / nkb + 7) & ~7;
    if (KC > K) KC = K;
    /* B panel = all of K x NC, packed once (<= 16 MiB, so it stays in L3) */
    int NC = (int)((4L << 20) / K) / NR * NR;
    if (NC > cf->nc) NC = cf->nc;
    if (NC < NR) NC = NR;
    if (NC > N) NC = N;
    const int mp = (M + MR - 1) / MR, np = (NC + NR - 1) / NR; /* panel counts */

    /* Threads: none beyond the work available; tiny problems run serially. */
    int nt = omp_get_max_threads();
    if ((double)M * N * K < 48.0 * 48 * 48) nt = 1;
    if ((long)nt > (long)mp * np) nt = mp * np;
    if (nt < 1) nt = 1;
    /* Factor nt = tm * tn minimising the largest per-thread tile share; ties
     * prefer splitting M (threads then share the B micro-panels). */
    int tm = nt, tn = 1;
    {
        double best = -1.0;
        for (int a = nt; a >= 1; --a) {
            if (nt % a) continue;
            int b = nt / a;
            double cost = (double)((mp + a - 1) / a) * ((np + b - 1) / b);
            if (best < 0 || cost < best) { best = cost; tm = a; tn = b; }
        }
    }
    const int MC = cf->mc < mp * MR ? cf->mc : mp * MR;

    const size_t bsz = round64(sizeof(float) * (size_t)K * np * NR);
    const size_t asz = round64(sizeof(float) * (size_t)KC * MC);
    float *Bp = aligned_alloc(64, bsz);
    float *Ap = aligned_alloc(64, asz * (size_t)nt);
    if (!Bp || !Ap) {
        free(Bp);
        free(Ap);
        err_set("gemm_cpu_omp: out of memory for the packed panels (%zu + %zu bytes)", bsz,
                asz * (size_t)nt);
        return 1;
    }

    /* Work items: nim row chunks (<= MC rows, whole MR panels, a multiple of
     * tm of them so equal threads get equal shares) x tn sliver groups. */
    const int mcp = MC / MR, nim = tm * ((mp + tm * mcp - 1) / (tm * mcp));
    const int nkk = (K + KC - 1) / KC; /* K blocks actually used */

#pragma omp parallel num_threads(nt)
    {
        float *myA = (float *)((char *)Ap + asz * (size_t)omp_get_thread_num());
        _Alignas(64) float tile[MAX_TILE];

        for (int jc = 0; jc < N; jc += NC) {
            const int nc = N - jc < NC ? N - jc : NC;
            const int ns = (nc + NR - 1) / NR, nsg = (ns + 7) / 8;
            /* Pack the whole K x nc panel; dynamic scheduling everywhere, so a
             * thread the OS preempts does not hold back the others. */
#pragma omp for schedule(dynamic, 1)
            for (int u = 0; u < nkk * nsg; ++u) {
                const int pc = u / nsg * KC, g = u % nsg;
                const int kc = K - pc < KC ? K - pc : KC;
                const int e = 8 * g + 8 < ns ? 8 * g + 8 : ns;
                pack_b(kc, nc, NR, B + (size_t)pc * ldb + jc, ldb,
                       Bp + (size_t)pc * ns * NR, 8 * g, e);
            } /* implicit barrier: the panel is complete */
#pragma omp for schedule(dynamic, 1)
            for (int it = 0; it < nim * tn; ++it) {
                const int im = it / tn, in = it % tn;
                const int ic = (int)((long)mp * im / nim) * MR;
                const int ie = (int)((long)mp * (im + 1) / nim) * MR;
                const int mc = (ie < M ? ie : M) - ic;
                const int s0 = (int)((long)ns * in / tn), s1 = (int)((long)ns * (in + 1) / tn);
                for (int pc = 0; pc < K; pc += KC) {
                    const int kc = K - pc < KC ? K - pc : KC;
                    const float b = pc == 0 ? beta : 1.0f;
                    const float *Bk = Bp + (size_t)pc * ns * NR;
                    if (mc <= 0) break;
                    pack_a(mc, kc, MR, A + (size_t)ic * lda + pc, lda, myA);
                    for (int s = s0; s < s1; ++s) {
                        const int j = s * NR, w = nc - j < NR ? nc - j : NR;
                        const float *bp = Bk + (size_t)s * kc * NR;
                        for (int ir = 0; ir < mc; ir += MR) {
                            const int h = mc - ir < MR ? mc - ir : MR;
                            const float *ap = myA + (size_t)ir * kc;
                            float *c = C + (size_t)(ic + ir) * ldc + jc + j;
                            if (h == MR && w == NR) {
                                cf->fn(kc, ap, bp, c, ldc, alpha, b);
                            } else { /* edge tile: compute, then write back */
                                cf->fn(kc, ap, bp, tile, NR, 1.0f, 0.0f);
                                for (int y = 0; y < h; ++y)
                                    for (int x = 0; x < w; ++x) {
                                        float *cy = c + (size_t)y * ldc + x;
                                        float v = alpha * tile[y * NR + x];
                                        *cy = b == 0.0f ? v : v + b * *cy;
                                    }
                            }
                        }
                    }
                }
            } /* implicit barrier before the next panel is packed */
        }
    }
    free(Bp);
    free(Ap);
    return 0;
}

int gemm_cpu_omp(int M, int N, int K, float alpha, const float *A, int lda,
                 const float *B, int ldb, float beta, float *C, int ldc)
{
    return gemm_omp_cfg(select_kernel(), M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}
