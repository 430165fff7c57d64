/* tests/test_gemm_cpu.c - every CPU GEMM backend against the double reference
 * at awkward shapes, leading dimensions larger than the rows, non-trivial
 * alpha and beta, beta = 0 over a NaN-filled C, 1 and 2 threads; cpu-omp
 * reports running out of memory. */
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

int main(void)
{
    int ran = 0, nb = 0;
    for (int b = 0; BACKENDS[b].name; b++) {
        if (strcmp(BACKENDS[b].op, "gemm") != 0 || BACKENDS[b].dev != DEV_CPU) continue;
        nb++;
        for (size_t c = 0; c < sizeof CASES / sizeof CASES[0]; c++)
            for (int t = 1; t <= 2; t++) {
                run_case(&BACKENDS[b], &CASES[c], t);
                ran++;
            }
    }
#ifndef __SANITIZE_ADDRESS__ /* ASan reserves address space of its own */
    oom_is_reported();
#endif
    /* every CPU GEMM backend of the registry ran every case in both thread counts */
    EXPECT(nb >= 3 && ran == nb * (int)(sizeof CASES / sizeof CASES[0]) * 2, "ran %d of %d backends", ran, nb);
    TEST_END();
}
