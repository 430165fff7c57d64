/* tests/cpu/gemm_test.c - every CPU GEMM backend against the double reference
 * at awkward shapes, leading dimensions larger than the rows, non-trivial
 * alpha and beta, beta = 0 over a NaN-filled C, 1 and 2 threads; cpu-omp
 * reports running out of memory; gemm_cpu_omp_t in all four transpose
 * combinations, and a planted wrong element fails its comparison. */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "gemm_cpu.h"
#include "registry.h"
#include "errmsg.h"
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <cblas.h>

typedef struct { int M, N, K, pad; float alpha, beta; } tcase;

static const tcase CASES[] = {
    {1, 1, 1, 0, 1.0f, 0.0f},     {7, 13, 5, 0, 1.5f, -0.5f},  {63, 63, 63, 0, 1.0f, 0.0f},
    {64, 64, 64, 3, -2.0f, 0.25f}, {65, 65, 65, 0, 0.5f, 1.0f},  {1, 1000, 3, 0, 1.0f, 0.0f},
    {1000, 1, 7, 5, 1.0f, 2.0f},  {17, 300, 1, 0, 1.0f, 0.0f},  {129, 67, 513, 7, 1.25f, -1.0f},
    {3, 5, 2000, 1, 1.0f, 0.0f},  {200, 190, 33, 2, 0.75f, 0.5f},
};

/* Runs one backend on one case; returns 1 when it agrees with the reference. */
static int run_case(const backend_def *impl, const tcase *c, int threads)
{
    int lda = c->K + c->pad, ldb = c->N + c->pad, ldc = c->N + 2 * c->pad;
    float *A = malloc(sizeof(float) * c->M * lda), *B = malloc(sizeof(float) * c->K * ldb);
    float *C = malloc(sizeof(float) * c->M * ldc), *C0 = malloc(sizeof(float) * c->M * ldc);
    double *ref = malloc(sizeof(double) * c->M * c->N);
    float *got = malloc(sizeof(float) * c->M * c->N);
    rng_fill_uniform(A, (size_t)c->M * lda, 11);
    rng_fill_uniform(B, (size_t)c->K * ldb, 12);
    rng_fill_uniform(C0, (size_t)c->M * ldc, 13);
    if (c->beta == 0.0f) check_poison(C0, (size_t)c->M * ldc); /* must be ignored */
    memcpy(C, C0, sizeof(float) * c->M * ldc);
    cpu_threads_set(threads);
    int rc = ((gemm_fn)impl->fn)(c->M, c->N, c->K, c->alpha, A, lda, B, ldb, c->beta, C, ldc);
    int untouched = 1;
    for (int i = 0; i < c->M; i++) {
        for (int j = 0; j < c->N; j++) {
            ref[i * c->N + j] = gemm_ref_element(i, j, c->K, c->alpha, A, lda, B, ldb, c->beta,
                                                 C0[(long)i * ldc + j]);
            got[i * c->N + j] = C[(long)i * ldc + j];
        }
        for (int j = c->N; j < ldc; j++) /* padding between rows is not ours to write */
            untouched &= memcmp(&C[(long)i * ldc + j], &C0[(long)i * ldc + j], sizeof(float)) == 0;
    }
    check_result r = check_compare(got, ref, (size_t)c->M * c->N, check_tolerance(DTYPE_FP32, c->K));
    EXPECT(rc == 0, "%s returned %d", impl->name, rc);
    EXPECT(r.pass, "%s %dx%dx%d pad %d alpha %g beta %g threads %d: rel %g max %g nonfinite %ld",
           impl->name, c->M, c->N, c->K, c->pad, c->alpha, c->beta, threads, r.rel_err,
           r.max_abs_err, r.nonfinite);
    EXPECT(untouched, "%s wrote outside C's rows (ldc padding) at %dx%dx%d", impl->name, c->M,
           c->N, c->K);
    free(A); free(B); free(C); free(C0); free(ref); free(got);
    return r.pass && rc == 0 && untouched;
}

/* ---- gemm_cpu_omp_t: op(A) * op(B) -------------------------------------- */
static const tcase TCASES[] = {
    {1, 1, 1, 0, 1.0f, 0.0f},       {7, 5, 3, 2, 1.5f, -0.5f},     {67, 45, 129, 3, 1.0f, 0.0f},
    {130, 17, 300, 5, 0.75f, 0.5f}, {1, 50, 7, 1, 1.0f, 1.0f},     {50, 1, 7, 4, 2.0f, 0.0f},
    {10, 256, 64, 0, 1.0f, 0.0f},   {64, 10, 128, 6, -1.0f, 0.25f}, {256, 10, 1030, 1, 1.0f, 0.0f},
    {13, 70, 9, 2, 1.0f, 0.0f},     {300, 200, 150, 3, 1.0f, 0.5f}, {40, 520, 700, 1, 0.5f, 0.0f},
    {500, 12, 900, 0, 1.0f, 0.0f},  {200, 40, 1000, 2, 1.0f, 0.5f},
};

/* The reference of C = alpha*op(A)*op(B) + beta*C0 from plain (untransposed)
 * copies of op(A) and op(B), so gemm_ref_element needs no transpose of its own. */
static void ref_t(int ta, int tb, const tcase *c, const float *A, int lda, const float *B,
                  int ldb, const float *C0, int ldc, double *ref)
{
    float *An = malloc(sizeof(float) * c->M * c->K), *Bn = malloc(sizeof(float) * c->K * c->N);
    for (int i = 0; i < c->M; i++)
        for (int k = 0; k < c->K; k++)
            An[(long)i * c->K + k] = ta ? A[(long)k * lda + i] : A[(long)i * lda + k];
    for (int k = 0; k < c->K; k++)
        for (int j = 0; j < c->N; j++)
            Bn[(long)k * c->N + j] = tb ? B[(long)j * ldb + k] : B[(long)k * ldb + j];
    for (int i = 0; i < c->M; i++)
        for (int j = 0; j < c->N; j++)
            ref[(long)i * c->N + j] = gemm_ref_element(i, j, c->K, c->alpha, An, c->K, Bn, c->N,
                                                       c->beta, C0[(long)i * ldc + j]);
    free(An);
    free(Bn);
}

/* Runs gemm_cpu_omp_t(ta, tb) on one case; with plant, one element of the
 * result is made wrong before the comparison, which must then fail.
 * Returns the comparison's verdict. */
static int run_case_t(int ta, int tb, const tcase *c, int threads, int plant)
{
    /* stored shapes: A is K x M when ta, B is N x K when tb; each row padded */
    int ar = ta ? c->K : c->M, lda = (ta ? c->M : c->K) + c->pad;
    int br = tb ? c->N : c->K, ldb = (tb ? c->K : c->N) + c->pad;
    int ldc = c->N + 2 * c->pad;
    float *A = malloc(sizeof(float) * ar * lda), *B = malloc(sizeof(float) * br * ldb);
    float *C = malloc(sizeof(float) * c->M * ldc), *C0 = malloc(sizeof(float) * c->M * ldc);
    double *ref = malloc(sizeof(double) * c->M * c->N);
    float *got = malloc(sizeof(float) * c->M * c->N);
    rng_fill_uniform(A, (size_t)ar * lda, 21);
    rng_fill_uniform(B, (size_t)br * ldb, 22);
    rng_fill_uniform(C0, (size_t)c->M * ldc, 23);
    if (c->beta == 0.0f) check_poison(C0, (size_t)c->M * ldc); /* must be ignored */
    memcpy(C, C0, sizeof(float) * c->M * ldc);
    cpu_threads_set(threads);
    int rc = gemm_cpu_omp_t(ta, tb, c->M, c->N, c->K, c->alpha, A, lda, B, ldb, c->beta, C, ldc);
    ref_t(ta, tb, c, A, lda, B, ldb, C0, ldc, ref);
    int untouched = 1;
    for (int i = 0; i < c->M; i++) {
        for (int j = 0; j < c->N; j++) got[i * c->N + j] = C[(long)i * ldc + j];
        for (int j = c->N; j < ldc; j++)
            untouched &= memcmp(&C[(long)i * ldc + j], &C0[(long)i * ldc + j], sizeof(float)) == 0;
    }
    size_t n = (size_t)c->M * c->N, bad = n / 2;
    if (plant) got[bad] += 0.01f * (float)(fabs(ref[bad]) + 1.0);
    check_result r = check_compare(got, ref, n, check_tolerance(DTYPE_FP32, c->K));
    if (!plant) {
        EXPECT(rc == 0, "gemm_cpu_omp_t returned %d", rc);
        EXPECT(r.pass, "gemm_cpu_omp_t ta %d tb %d %dx%dx%d pad %d alpha %g beta %g threads %d: "
               "rel %g max %g nonfinite %ld", ta, tb, c->M, c->N, c->K, c->pad, c->alpha,
               c->beta, threads, r.rel_err, r.max_abs_err, r.nonfinite);
        EXPECT(untouched, "gemm_cpu_omp_t ta %d tb %d wrote outside C's rows at %dx%dx%d", ta,
               tb, c->M, c->N, c->K);
    }
    free(A); free(B); free(C); free(C0); free(ref); free(got);
    return r.pass;
}

static void transposed_cases(void)
{
    int ran = 0;
    for (int ta = 0; ta <= 1; ta++)
        for (int tb = 0; tb <= 1; tb++)
            for (size_t c = 0; c < sizeof TCASES / sizeof TCASES[0]; c++)
                for (int t = 1; t <= 2; t++) {
                    run_case_t(ta, tb, &TCASES[c], t, 0);
                    ran++;
                }
    EXPECT(ran == 4 * 2 * (int)(sizeof TCASES / sizeof TCASES[0]), "ran %d transposed cases", ran);
    /* the comparison can fail: one wrong element, in every combination */
    for (int ta = 0; ta <= 1; ta++)
        for (int tb = 0; tb <= 1; tb++)
            EXPECT(!run_case_t(ta, tb, &TCASES[2], 2, 1),
                   "a planted wrong element passed (ta %d tb %d)", ta, tb);
}

#ifndef __SANITIZE_ADDRESS__ /* ASan reserves address space of its own */
/* Out of memory for the packed panels: an error with a message, never a
 * silent non-zero return. The address space is capped just above what the
 * process holds, so the 16 MiB B panel of a 2048^3 problem cannot be had. */
static void oom_is_reported(void)
{
    size_t n = (size_t)2048 * 2048;
    float *A = calloc(n, sizeof *A), *B = calloc(n, sizeof *B), *C = calloc(n, sizeof *C);
    long pages = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (!A || !B || !C || !f || fscanf(f, "%ld", &pages) != 1) {
        EXPECT(0, "setting up the out-of-memory case");
    } else {
        struct rlimit old, lim;
        getrlimit(RLIMIT_AS, &old);
        lim = old;
        lim.rlim_cur = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + (4u << 20);
        setrlimit(RLIMIT_AS, &lim);
        err_clear();
        int rc = gemm_cpu_omp(2048, 2048, 2048, 1.0f, A, 2048, B, 2048, 0.0f, C, 2048);
        setrlimit(RLIMIT_AS, &old);
        EXPECT(rc != 0 && strstr(err_get(), "out of memory"),
               "gemm_cpu_omp out of memory: rc %d, message '%s'", rc, err_get());
    }
    if (f) fclose(f);
    free(A);
    free(B);
    free(C);
}
#endif

/* cpu-blas's caveat: a core of a narrower SIMD tier than the CPU's is named
 * with the OPENBLAS_CORETYPE that fixes it; an equal or wider one, or a name
 * not in the table, says nothing. */
static void blas_caveat_cases(void)
{
    const char *w = gemm_blas_caveat_for("Prescott", 3, 1);
    EXPECT(w && strstr(w, "OpenBLAS runs its Prescott kernels (SSE) on a CPU with AVX-512") &&
               strstr(w, "OPENBLAS_CORETYPE=Cooperlake"), "Prescott on AVX-512 BF16: '%s'", w ? w : "(null)");
    w = gemm_blas_caveat_for("haswell", 3, 0);
    EXPECT(w && strstr(w, "its haswell kernels (AVX2)") && strstr(w, "OPENBLAS_CORETYPE=SkylakeX"),
           "Haswell on AVX-512: '%s'", w ? w : "(null)");
    w = gemm_blas_caveat_for("Sandybridge", 2, 0);
    EXPECT(w && strstr(w, "OPENBLAS_CORETYPE=Haswell selects its AVX2 kernels"), "'%s'", w ? w : "(null)");
    EXPECT(!gemm_blas_caveat_for("SkylakeX", 3, 0), "a matching tier says nothing");
    EXPECT(!gemm_blas_caveat_for("Haswell", 2, 0), "a matching tier says nothing");
    EXPECT(!gemm_blas_caveat_for("Cooperlake", 2, 0), "a wider core says nothing");
    EXPECT(!gemm_blas_caveat_for("NoSuchCore", 3, 0), "an unknown name says nothing");
    EXPECT(!gemm_blas_caveat_for(NULL, 3, 0), "no name says nothing");
    /* this machine's: silent, or about the core the library reports */
    w = gemm_blas_caveat();
    EXPECT(!w || strstr(w, openblas_get_corename()), "this machine: '%s'", w ? w : "(null)");
}

int main(void)
{
    int ran = 0, nb = 0;
    blas_caveat_cases();
    for (int b = 0; BACKENDS[b].name; b++) {
        if (strcmp(BACKENDS[b].op, "gemm") != 0 || BACKENDS[b].dev != DEV_CPU) continue;
        nb++;
        for (size_t c = 0; c < sizeof CASES / sizeof CASES[0]; c++)
            for (int t = 1; t <= 2; t++) {
                run_case(&BACKENDS[b], &CASES[c], t);
                ran++;
            }
    }
    transposed_cases();
#ifndef __SANITIZE_ADDRESS__ /* ASan reserves address space of its own */
    oom_is_reported();
#endif
    /* every CPU GEMM backend of the registry ran every case in both thread counts */
    EXPECT(nb >= 3 && ran == nb * (int)(sizeof CASES / sizeof CASES[0]) * 2, "ran %d of %d backends", ran, nb);
    TEST_END();
}
