/* tests/cpu/gemm_omp_lowp_test.c - cpu-omp's bf16/fp16 GEMM (gemm_cpu_omp_dt) on
 * every path this CPU runs (the AVX512-BF16 one, F16C, the portable one;
 * AMX where Linux grants it), each against a double reference over the same
 * 16-bit inputs: every element within half an ulp of the dtype (its one
 * rounding) plus the fp32 accumulation bound K * 2^-24 * sum |a*b|, at edge
 * shapes, odd K, leading dimensions wider than the rows, 1 and 2 threads,
 * over a NaN-filled C whose row padding must stay untouched; and the
 * convolution's output modes (gemm_lowp_ex: a per-row bias before the one
 * rounding, fp32 C stored or added to).  Also:
 * BENCH_CPU_LOWP_PATH=portable, the unsupported dtypes' error, the path
 * decision (gemm_lowp_choose) for CPUs this one is not, AMX included, and
 * the two vdpbf16ps tiles (12 and 16 rows) driven one at a time as the
 * convolution's implicit GEMMs drive them: A packed whole, C's columns in
 * segments with gaps left untouched, every output mode. */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "cpu_features.h"
#include "errmsg.h"
#include "gemm_cpu.h"
#include "gemm_omp_lowp.h"
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct { int M, N, K, pad; } tcase;

static const tcase CASES[] = {
    {1, 1, 1, 0},     {17, 33, 65, 3},  {127, 129, 131, 5}, {33, 70, 7, 1},
    {5, 3, 2, 0},     {12, 32, 64, 0},  {200, 190, 161, 2}, {1, 300, 40, 0},
    {250, 1, 33, 4},  {13, 40, 1500, 1}, {3, 2100, 4100, 1}, /* K past LOWP_A_BYTES; 2 B panels */
    /* several K blocks (bf16 and fp32 kernels' KC), an odd last block, edge
     * tiles in both directions: the fp32 partials between blocks */
    {40, 70, 1001, 2}, {100, 65, 771, 0},
};

/* Half an ulp of dt at magnitude x (at least half the smallest subnormal's). */
static double half_ulp(dtype_t dt, double x)
{
    const int man = dt == DTYPE_BF16 ? 7 : 10, emin = dt == DTYPE_BF16 ? -126 : -14;
    int e;
    frexp(x, &e); /* x = f * 2^e, 0.5 <= f < 1: x's binade is 2^(e-1) */
    if (x == 0.0 || e - 1 < emin) e = emin + 1;
    return ldexp(1.0, e - 1 - man - 1);
}

static const char *path_name(gemm_lowp_path p)
{
    static const char *const N[] = {"portable", "f16c", "avx512-bf16", "amx"};
    return N[p];
}

/* One path, dtype, shape and output mode (bias: rows start at a bias; cm's
 * fp32 modes: C in floats, LOWP_C_F32_ADD over old values); returns 1 when
 * every element is within bounds. */
static int run_case(gemm_lowp_path path, dtype_t dt, const tcase *c, int threads, int bias,
                    gemm_lowp_cmode cm)
{
    const int M = c->M, N = c->N, K = c->K;
    const int lda = K + c->pad, ldb = N + 2 * c->pad, ldc = N + 3 * c->pad;
    const size_t nf = (size_t)M * lda + (size_t)K * ldb + (size_t)M * ldc + (size_t)M;
    float *f = malloc(sizeof(float) * nf);
    uint16_t *A = malloc(2 * (size_t)M * lda), *B = malloc(2 * (size_t)K * ldb);
    void *C = malloc(4 * (size_t)M * ldc); /* words (LOWP_C_DT) or floats */
    uint16_t *Cw = C;
    float *Cf = C, *old = f + (size_t)M * lda + (size_t)K * ldb, *bv = old + (size_t)M * ldc;
    const float MARK = -1234.5f; /* untouched fp32 padding */
    rng_fill_uniform(f, nf, 100u + (unsigned)(M + N + K));
    for (size_t i = 0; i < (size_t)M * lda; i++) dtype_set(dt, A, i, f[i]);
    for (size_t i = 0; i < (size_t)K * ldb; i++) dtype_set(dt, B, i, f[(size_t)M * lda + i]);
    for (size_t i = 0; i < (size_t)M * ldc; i++) {
        if (cm == LOWP_C_DT) Cw[i] = 0x7FFF; /* NaN in both formats */
        else Cf[i] = (size_t)(i % ldc) >= (size_t)N ? MARK : cm == LOWP_C_F32_ADD ? old[i] : NAN;
    }
    /* the reference's operands: the 16-bit values, B transposed so k is contiguous */
    float *a = malloc(sizeof(float) * (size_t)M * K), *bt = malloc(sizeof(float) * (size_t)K * N);
    for (int i = 0; i < M; i++)
        for (int k = 0; k < K; k++) a[(size_t)i * K + k] = dtype_get(dt, A, (size_t)i * lda + k);
    for (int k = 0; k < K; k++)
        for (int j = 0; j < N; j++) bt[(size_t)j * K + k] = dtype_get(dt, B, (size_t)k * ldb + j);
    cpu_threads_set(threads);
    const int rc = gemm_lowp_run(path, dt, M, N, K, A, lda, B, ldb, bias ? bv : NULL, cm, C, ldc);
    long bad = 0, first = -1, pad_written = 0;
    double worst = 0.0;
    for (int i = 0; i < M; i++) {
        for (int j = 0; j < N; j++) {
            double ref = 0.0, mag = 0.0;
            for (int k = 0; k < K; k++) {
                const double p = (double)a[(size_t)i * K + k] * bt[(size_t)j * K + k];
                ref += p;
                mag += fabs(p);
            }
            const double init = (bias ? bv[i] : 0.0) +
                                (cm == LOWP_C_F32_ADD ? old[(size_t)i * ldc + j] : 0.0);
            ref += init;
            mag += fabs(init) * 2;
            const double acc = 1.01 * (K + 2) * ldexp(mag, -24); /* fp32 sums, any order */
            const double bound = cm == LOWP_C_DT ? half_ulp(dt, fabs(ref) + acc) + acc : acc;
            const double got = cm == LOWP_C_DT ? dtype_get(dt, C, (size_t)i * ldc + j)
                                               : Cf[(size_t)i * ldc + j];
            const double err = fabs(got - ref);
            if (!(err <= bound)) {
                if (first < 0) first = (long)i * N + j;
                bad++;
            }
            if (err / bound > worst) worst = err / bound;
        }
        for (int j = N; j < ldc; j++)
            pad_written += cm == LOWP_C_DT ? Cw[(size_t)i * ldc + j] != 0x7FFF
                                           : Cf[(size_t)i * ldc + j] != MARK;
    }
    EXPECT(rc == 0, "%s %s returned %d (%s)", path_name(path), dtype_name(dt), rc, err_get());
    EXPECT(bad == 0,
           "%s %s %dx%dx%d pad %d threads %d bias %d mode %d: %ld elements out of bounds, "
           "first (%ld, %ld), worst err/bound %g",
           path_name(path), dtype_name(dt), M, N, K, c->pad, threads, bias, (int)cm, bad,
           first < 0 ? -1 : first / N, first < 0 ? -1 : first % N, worst);
    EXPECT(pad_written == 0, "%s %s %dx%dx%d mode %d wrote %ld elements of C's row padding",
           path_name(path), dtype_name(dt), M, N, K, (int)cm, pad_written);
    free(f); free(A); free(B); free(C); free(a); free(bt);
    return rc == 0 && bad == 0 && pad_written == 0;
}

/* ---- kernels driven one tile at a time (cpu-omp's bf16 implicit GEMMs) ------ */
/* k's tiles over an M x N x K product, A packed whole (gemm_lowp_pack_a), B
 * by k->pack_b, stored through gemm_lowp_tile_seg into C's columns in
 * segments of seg (seg_stride apart: the gaps must stay untouched), in mode
 * cm with a bias; every element against the double reference. */
static int tiles_case(const gemm_lowp_kern *k, int M, int N, int K, long seg, long sst,
                      gemm_lowp_cmode cm)
{
    const dtype_t dt = DTYPE_BF16;
    const int Kp = (K + k->kq - 1) / k->kq * k->kq, ns = (N + k->nr - 1) / k->nr;
    const long nseg = (N + seg - 1) / seg, ldc = nseg * sst; /* row i at i*ldc */
    float *f = malloc(sizeof(float) * ((size_t)M * K + (size_t)K * N + M + (size_t)M * ldc));
    float *bias = f + (size_t)M * K + (size_t)K * N, *old = bias + M;
    rng_fill_uniform(f, (size_t)M * K + (size_t)K * N + M + (size_t)M * ldc, 7u + M + N + K);
    uint16_t *A = malloc(2 * (size_t)M * K), *B = malloc(2 * (size_t)K * N);
    for (size_t i = 0; i < (size_t)M * K; i++) dtype_set(dt, A, i, f[i]);
    for (size_t i = 0; i < (size_t)K * N; i++) dtype_set(dt, B, i, f[(size_t)M * K + i]);
    void *Ap = malloc(gemm_lowp_packed_a_bytes(k, M, K));
    void *Bp = aligned_alloc(64, ((size_t)ns * k->nr * Kp * k->esize + 63) & ~(size_t)63);
    void *C = malloc(4 * (size_t)M * ldc);
    const float MARK = -1234.5f;
    for (long e = 0; e < M * ldc; e++) {
        const int in = e % ldc % sst < seg && e % ldc / sst * seg + e % ldc % sst < N;
        if (cm == LOWP_C_DT) ((uint16_t *)C)[e] = 0x7FFF;
        else ((float *)C)[e] = !in ? MARK : cm == LOWP_C_F32_ADD ? old[e] : NAN;
    }
    gemm_lowp_pack_a(k, dt, M, K, A, K, Ap);
    k->pack_b(dt, K, Kp, N, B, N, Bp, 0, ns);
    for (int ir = 0; ir < M; ir += k->mr)
        for (int s = 0; s < ns; ++s)
            gemm_lowp_tile_seg(k, dt, Kp, (char *)Ap + (size_t)(ir / k->mr) * k->mr * Kp * k->esize,
                               (char *)Bp + (size_t)s * k->nr * Kp * k->esize, bias + ir, cm, C,
                               ldc, seg, sst, ir, (long)s * k->nr, M - ir < k->mr ? M - ir : k->mr,
                               N - s * k->nr < k->nr ? N - s * k->nr : k->nr);
    long bad = 0, gap = 0;
    for (int i = 0; i < M; i++)
        for (long e = 0; e < ldc; e++) {
            const long j = e / sst * seg + e % sst;
            const size_t at = (size_t)i * ldc + e;
            if (e % sst >= seg || j >= N) { /* a gap: untouched */
                gap += cm == LOWP_C_DT ? ((uint16_t *)C)[at] != 0x7FFF : ((float *)C)[at] != MARK;
                continue;
            }
            double ref = bias[i] + (cm == LOWP_C_F32_ADD ? old[at] : 0.0), mag = fabs(ref) * 2;
            for (int q = 0; q < K; q++) {
                const double p = (double)dtype_get(dt, A, (size_t)i * K + q) *
                                 dtype_get(dt, B, (size_t)q * N + j);
                ref += p;
                mag += fabs(p);
            }
            const double acc = 1.01 * (K + 2) * ldexp(mag, -24);
            const double bound = cm == LOWP_C_DT ? half_ulp(dt, fabs(ref) + acc) + acc : acc;
            const double got = cm == LOWP_C_DT ? dtype_get(dt, C, at) : ((float *)C)[at];
            bad += !(fabs(got - ref) <= bound);
        }
    EXPECT(bad == 0 && gap == 0, "%d-row kernel %dx%dx%d segments of %ld (stride %ld) mode %d: "
           "%ld elements out of bounds, %ld gap elements written", k->mr, M, N, K, seg, sst,
           (int)cm, bad, gap);
    free(f); free(A); free(B); free(Ap); free(Bp); free(C);
    return bad == 0 && gap == 0;
}

static void test_tiles(void)
{
    if (!(cpu_features() & CPU_F_AVX512BF16)) {
        printf("skipped: the vdpbf16ps tiles (this CPU lacks AVX512-BF16)\n");
        return;
    }
    const gemm_lowp_kern *ks[2] = {gemm_lowp_kern_avx512bf16(), gemm_lowp_kern_bf16_rows(32)};
    EXPECT(ks[0]->mr == 12 && ks[1]->mr == 16 && gemm_lowp_kern_bf16_rows(48) == ks[0] &&
               gemm_lowp_kern_bf16_rows(16) == ks[1] && gemm_lowp_kern_bf16_rows(64) == ks[1],
           "the vdpbf16ps kernel for M rows");
    static const int SH[][5] = {/* M, N, K, seg, seg stride */
                                {32, 70, 9, 70, 70},  {17, 45, 33, 7, 10}, {16, 64, 144, 49, 53},
                                {40, 33, 2, 5, 5},    {5, 17, 1, 3, 4}};
    for (int kk = 0; kk < 2; kk++)
        for (size_t c = 0; c < sizeof SH / sizeof SH[0]; c++)
            for (int cm = LOWP_C_DT; cm <= LOWP_C_F32_ADD; cm++)
                tiles_case(ks[kk], SH[c][0], SH[c][1], SH[c][2], SH[c][3], SH[c][4],
                           (gemm_lowp_cmode)cm);
}

/* ---- gemm_lowp_choose: the decision, for CPUs this one is not ---------------- */
static int permit_calls;
static int permit_yes(void) { permit_calls++; return 1; }
static int permit_no(void) { permit_calls++; return 0; }

static void check_choice(dtype_t dt, unsigned f, int (*permit)(void), int force, int want,
                         int want_calls, const char *what)
{
    permit_calls = 0;
    const int got = gemm_lowp_choose(dt, f, permit, force);
    EXPECT(got == want && permit_calls == want_calls,
           "%s: %s features %#x force %d -> path %d (want %d), permission asked %d times (want %d)",
           what, dtype_name(dt), f, force, got, want, permit_calls, want_calls);
}

static void test_choose(void)
{
    const unsigned amx = CPU_F_AMX_BF16 | CPU_F_AVX512BF16 | CPU_F_AVX512F | CPU_F_F16C;
    const unsigned zen4 = CPU_F_AVX512BF16 | CPU_F_AVX512F | CPU_F_F16C;
    check_choice(DTYPE_BF16, amx, permit_yes, 0, LOWP_AMX, 1, "AMX granted");
    check_choice(DTYPE_BF16, amx, permit_no, 0, LOWP_AVX512BF16, 1, "AMX refused falls back");
    check_choice(DTYPE_BF16, CPU_F_AMX_BF16, permit_yes, 0, LOWP_PORTABLE, 0,
                 "AMX without AVX512-BF16 is not used");
    check_choice(DTYPE_BF16, CPU_F_AMX_BF16, permit_no, 0, LOWP_PORTABLE, 0, "AMX only, refused");
    check_choice(DTYPE_BF16, zen4, permit_yes, 0, LOWP_AVX512BF16, 0, "no AMX: not AMX");
    check_choice(DTYPE_BF16, CPU_F_AVX512F | CPU_F_F16C, permit_yes, 0, LOWP_PORTABLE, 0,
                 "no AVX512-BF16");
    check_choice(DTYPE_BF16, amx, permit_yes, 1, LOWP_PORTABLE, 0, "forced portable");
    check_choice(DTYPE_FP16, amx, permit_yes, 0, LOWP_F16C, 0, "fp16 never AMX");
    check_choice(DTYPE_FP16, 0, permit_yes, 0, LOWP_PORTABLE, 0, "fp16 without F16C");
    check_choice(DTYPE_FP16, amx, permit_yes, 1, LOWP_PORTABLE, 0, "fp16 forced portable");
    check_choice(DTYPE_FP32, amx, permit_yes, 0, -1, 0, "fp32 is not low precision");
    check_choice(DTYPE_TF32, amx, permit_yes, 0, -1, 0, "tf32");
    check_choice(DTYPE_U8, amx, permit_yes, 0, -1, 0, "u8");
    /* this process: no permission without the feature (asking must be harmless) */
    if (!(cpu_features() & CPU_F_AMX_BF16))
        EXPECT(cpu_amx_permit() == 0, "AMX permission granted on a CPU without AMX");
}

/* ---- the public entry: the override, the path's name, the errors ------------- */
static void test_entry(void)
{
    const unsigned f = cpu_features();
    const int hw_bf16 = gemm_lowp_choose(DTYPE_BF16, f, cpu_amx_permit, 0);
    const int hw_fp16 = gemm_lowp_choose(DTYPE_FP16, f, cpu_amx_permit, 0);
    unsetenv("BENCH_CPU_LOWP_PATH");
    EXPECT(strcmp(gemm_cpu_omp_dt_path(DTYPE_BF16), gemm_lowp_kern_cvt(0)->name) != 0 ||
               hw_bf16 == LOWP_PORTABLE,
           "bf16 path on this CPU: %s", gemm_cpu_omp_dt_path(DTYPE_BF16));
    printf("this CPU: bf16 \"%s\", fp16 \"%s\" (paths %d, %d)\n",
           gemm_cpu_omp_dt_path(DTYPE_BF16), gemm_cpu_omp_dt_path(DTYPE_FP16), hw_bf16, hw_fp16);
    setenv("BENCH_CPU_LOWP_PATH", "portable", 1);
    EXPECT(strcmp(gemm_cpu_omp_dt_path(DTYPE_BF16), "convert in packing + fp32 fma") == 0 &&
               strcmp(gemm_cpu_omp_dt_path(DTYPE_FP16), "convert in packing + fp32 fma") == 0,
           "BENCH_CPU_LOWP_PATH=portable: bf16 \"%s\", fp16 \"%s\"",
           gemm_cpu_omp_dt_path(DTYPE_BF16), gemm_cpu_omp_dt_path(DTYPE_FP16));
    unsetenv("BENCH_CPU_LOWP_PATH");

    /* through the public entry (both modes of the override): a correct product */
    for (int force = 0; force < 2; force++) {
        enum { M = 9, N = 11, K = 5 };
        uint16_t A[M * K], B[K * N], C[M * N];
        for (int i = 0; i < M * K; i++) A[i] = dtype_bf16_from_f32((float)(i % 7) - 3.0f);
        for (int i = 0; i < K * N; i++) B[i] = dtype_bf16_from_f32((float)(i % 5) - 2.0f);
        if (force) setenv("BENCH_CPU_LOWP_PATH", "portable", 1);
        int rc = gemm_cpu_omp_dt(DTYPE_BF16, M, N, K, A, K, B, N, C, N);
        unsetenv("BENCH_CPU_LOWP_PATH");
        int wrong = 0; /* small integers: exact */
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++) {
                float s = 0.0f;
                for (int k = 0; k < K; k++)
                    s += dtype_bf16_to_f32(A[i * K + k]) * dtype_bf16_to_f32(B[k * N + j]);
                wrong += dtype_bf16_to_f32(C[i * N + j]) != s;
            }
        EXPECT(rc == 0 && wrong == 0, "gemm_cpu_omp_dt (forced portable %d): rc %d, %d wrong",
               force, rc, wrong);
    }

    const dtype_t bad[] = {DTYPE_FP32, DTYPE_TF32, DTYPE_U8};
    for (size_t t = 0; t < sizeof bad / sizeof bad[0]; t++) {
        uint16_t A[4] = {0}, B[4] = {0}, C[4] = {1, 2, 3, 4};
        err_clear();
        int rc = gemm_cpu_omp_dt(bad[t], 2, 2, 2, A, 2, B, 2, C, 2);
        EXPECT(rc == -1 && err_get()[0] != '\0', "%s: rc %d, message '%s'", dtype_name(bad[t]),
               rc, err_get());
        EXPECT(C[0] == 1 && C[1] == 2 && C[2] == 3 && C[3] == 4, "%s touched C",
               dtype_name(bad[t]));
    }
    /* the internal entry refuses a path that does not take the dtype */
    {
        uint16_t A[4] = {0}, B[4] = {0}, C[4] = {1, 2, 3, 4};
        EXPECT(gemm_lowp_run(LOWP_F16C, DTYPE_BF16, 2, 2, 2, A, 2, B, 2, NULL, LOWP_C_DT, C, 2) == -1 &&
                   gemm_lowp_run(LOWP_AVX512BF16, DTYPE_FP16, 2, 2, 2, A, 2, B, 2, NULL, LOWP_C_DT, C, 2) == -1 &&
                   gemm_lowp_run(LOWP_AMX, DTYPE_FP16, 2, 2, 2, A, 2, B, 2, NULL, LOWP_C_DT, C, 2) == -1 &&
                   C[0] == 1 && C[3] == 4,
               "a path given a dtype it does not take");
    }
}

/* gemm_lowp_narrow (the convolution's one rounding of fp32 sums) against
 * dtype_set, bit for bit (a NaN: any NaN), at both dtypes: every tie, both signs, NaN,
 * infinities, the largest finite values (overflow to infinity), subnormals
 * and zeros, in runs long enough for the vector loops and a tail. */
static void test_narrow(void)
{
    enum { N = 4099 };
    float *s = malloc(sizeof(float) * N);
    uint16_t *got = malloc(2 * N), *want = malloc(2 * N);
    const uint32_t special[] = {0x00000000u, 0x80000000u, 0x00000001u, 0x807FFFFFu, 0x00008000u,
                                0x7F7FFFFFu, 0xFF7FFFFFu, 0x7F800000u, 0xFF800000u, 0x7FC00000u,
                                0xFFC00001u, 0x7F800001u, 0x3F808000u, 0x3F818000u, 0x477FF000u,
                                0x477FE000u, 0x33800000u, 0x38800000u};
    const int ns = (int)(sizeof special / sizeof special[0]);
    uint32_t r = 12345u;
    for (int i = 0; i < N; ++i) {
        uint32_t u;
        if (i < ns) u = special[i];
        else {
            r = r * 1664525u + 1013904223u;
            u = i % 3 ? r : (r & 0xFFFF0000u) | 0x8000u; /* every third a bf16 tie */
        }
        memcpy(&s[i], &u, 4);
    }
    static const dtype_t DTS[] = {DTYPE_BF16, DTYPE_FP16};
    for (int t = 0; t < 2; ++t)
        for (long n = N; n >= N - 17; n -= 17) { /* tails of every length mod 16 */
            gemm_lowp_narrow(DTS[t], s, got, n);
            int bad = 0, first = -1;
            for (long i = 0; i < n; ++i) {
                dtype_set(DTS[t], want, i, s[i]);
                /* a NaN in gives a NaN out; its payload is the path's (F16C's
                 * vcvtps2ph keeps a quiet one, dtype_set makes 0x7FFF) */
                const int same = isnan(s[i]) ? isnan(dtype_get(DTS[t], got, i))
                                             : got[i] == want[i];
                if (!same && bad++ == 0) first = (int)i;
            }
            EXPECT(bad == 0, "gemm_lowp_narrow %s n %ld: %d differ from dtype_set, first [%d] "
                   "0x%04x vs 0x%04x", dtype_name(DTS[t]), n, bad, first,
                   first < 0 ? 0 : got[first], first < 0 ? 0 : want[first]);
        }
    free(s), free(got), free(want);
}

int main(void)
{
    test_narrow();
    test_choose();
    test_entry();
    test_tiles();

    /* every path this CPU has, for each dtype it serves */
    const unsigned f = cpu_features();
    struct { gemm_lowp_path path; dtype_t dt; int runs; } P[] = {
        {LOWP_PORTABLE, DTYPE_BF16, 1},
        {LOWP_PORTABLE, DTYPE_FP16, 1},
        {LOWP_AVX512BF16, DTYPE_BF16, !!(f & CPU_F_AVX512BF16)},
        {LOWP_F16C, DTYPE_FP16, !!(f & CPU_F_F16C)},
        {LOWP_AMX, DTYPE_BF16, gemm_lowp_choose(DTYPE_BF16, f, cpu_amx_permit, 0) == LOWP_AMX},
    };
    for (size_t p = 0; p < sizeof P / sizeof P[0]; p++) {
        if (!P[p].runs) {
            printf("skipped: %s %s (this CPU lacks it)\n", path_name(P[p].path), dtype_name(P[p].dt));
            continue;
        }
        int ok = 1;
        for (size_t c = 0; c < sizeof CASES / sizeof CASES[0]; c++) {
            for (int threads = CASES[c].K > 2048 ? 2 : 1; threads <= 2; threads++) /* (time) */
                ok &= run_case(P[p].path, P[p].dt, &CASES[c], threads, 0, LOWP_C_DT);
            /* the convolution's modes: a bias before the rounding, fp32 C */
            ok &= run_case(P[p].path, P[p].dt, &CASES[c], 2, 1, LOWP_C_DT);
            ok &= run_case(P[p].path, P[p].dt, &CASES[c], 2, c % 2, LOWP_C_F32);
            ok &= run_case(P[p].path, P[p].dt, &CASES[c], 2, c % 3 == 0, LOWP_C_F32_ADD);
        }
        printf("%s %s: %s\n", path_name(P[p].path), dtype_name(P[p].dt), ok ? "ok" : "FAILED");
    }
    TEST_END();
}
