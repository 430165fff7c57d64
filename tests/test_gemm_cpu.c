/* tests/test_gemm_cpu.c - every CPU GEMM backend against the double reference
 * at awkward shapes, leading dimensions larger than the rows, non-trivial
 * alpha and beta, beta = 0 over a NaN-filled C, 1 and 2 threads. */
#include "check.h"
#include "gemm_cpu.h"
#include "registry.h"
#include "testutil.h"

#include <math.h>
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
    /* every CPU GEMM backend of the registry ran every case in both thread counts */
    EXPECT(nb >= 3 && ran == nb * (int)(sizeof CASES / sizeof CASES[0]) * 2, "ran %d of %d backends", ran, nb);
    TEST_END();
}
