/* tests/suites/matmul/gemm_ref_test.c - the GEMM reference at large shapes: sampled rows and
 * columns plus the Freivalds product check. A correct product passes; one
 * wrong element or a NaN outside the sampled rows and columns fails through
 * the product check; in full mode the element check names the element. */
#define _POSIX_C_SOURCE 200809L
#include "gemm_cpu.h"
#include "matmul/gemm_ref.h"
#include "testutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int sampled(const gemm_ref *r, long idx)
{
    for (size_t e = 0; e < r->n; e++)
        if (r->idx[e] == idx) return 1;
    return 0;
}

int main(void)
{
    enum { M = 700, N = 650, K = 600 }; /* MNK > GEMM_REF_FULL_LIMIT: sampled */
    float *A = malloc(sizeof(float) * M * K), *B = malloc(sizeof(float) * K * N);
    float *C = malloc(sizeof(float) * M * N);
    char why[256] = "";
    rng_fill_uniform(A, (size_t)M * K, 1);
    rng_fill_uniform(B, (size_t)K * N, 2);
    cpu_threads_set(2);
    gemm_cpu_blas(M, N, K, 1.0f, A, K, B, N, 0.0f, C, N);

    gemm_ref r;
    EXPECT(gemm_ref_build(&r, M, N, K, 1.0f, A, B, 0.0f, NULL) == 0, "build");
    EXPECT(r.fx != NULL && r.n < (size_t)M * N / 10, "sampled mode: %zu of %d checked", r.n, M * N);
    check_result cr = gemm_ref_check(&r, C, DTYPE_FP32, DTYPE_FP32, why, sizeof why);
    EXPECT(cr.pass, "correct product passes: rel %g (%s)", cr.rel_err, why);

    long hidden = 5L * N + 3; /* row 5, column 3: in no sampled row or column */
    EXPECT(!sampled(&r, hidden), "test element is outside the samples");
    float keep = C[hidden];
    C[hidden] += 3.0f; /* about half of rms(C) = sqrt(K/9) */
    cr = gemm_ref_check(&r, C, DTYPE_FP32, DTYPE_FP32, why, sizeof why);
    EXPECT(!cr.pass && strstr(why, "product check") && strstr(why, "row 5"),
           "wrong hidden element caught by the product check: %s", why);
    C[hidden] = nanf("");
    cr = gemm_ref_check(&r, C, DTYPE_FP32, DTYPE_FP32, why, sizeof why);
    EXPECT(!cr.pass, "hidden NaN caught: %s", why);
    C[hidden] = keep;
    cr = gemm_ref_check(&r, C, DTYPE_FP32, DTYPE_FP32, why, sizeof why);
    EXPECT(cr.pass, "restored passes");
    gemm_ref_free(&r);

    /* full mode names the element */
    enum { S = 64 };
    gemm_cpu_blas(S, S, S, 1.0f, A, S, B, S, 0.0f, C, S);
    EXPECT(gemm_ref_build(&r, S, S, S, 1.0f, A, B, 0.0f, NULL) == 0 && r.fx == NULL, "full mode");
    C[10 * S + 20] += 0.01f;
    cr = gemm_ref_check(&r, C, DTYPE_FP32, DTYPE_FP32, why, sizeof why);
    EXPECT(!cr.pass && strstr(why, "C[10,20]"), "element named: %s", why);
    gemm_ref_free(&r);

    free(A);
    free(B);
    free(C);
    TEST_END();
}
