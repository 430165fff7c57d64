/* cpu/gemm_naive.c - the readable reference GEMM (see gemm_cpu.h). */
#include "gemm_cpu.h"
#include "errmsg.h"
#include "../ops/gemm_ref.h"

#include <stdlib.h>

double gemm_ref_element(int i, int j, int K, double alpha, const float *A, int lda,
                        const float *B, int ldb, double beta, float c_old)
{
    double c = alpha * gemm_ref_dot(K, A + (long)i * lda, 1, B + j, ldb);
    if (beta != 0.0) c += beta * (double)c_old;
    return c;
}

int gemm_cpu_naive(int M, int N, int K, float alpha, const float *A, int lda,
                   const float *B, int ldb, float beta, float *C, int ldc)
{
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            float *c = &C[(long)i * ldc + j];
            *c = (float)gemm_ref_element(i, j, K, alpha, A, lda, B, ldb, beta, *c);
        }
    return 0;
}

/* The reference at dt: each product from the dtype's values (tf32: the
 * floats rounded to tf32), summed in double, the element rounded once. The
 * operands are widened to floats first (exact), so the loop is fp32's. */
int gemm_cpu_naive_dt(dtype_t dt, int M, int N, int K, const void *A, int lda, const void *B,
                      int ldb, void *C, int ldc)
{
    if (dt != DTYPE_TF32 && !dtype_is_16bit(dt)) {
        err_set("cpu-naive: no %s GEMM entry point (fp32 has its own)", dtype_name(dt));
        return -1;
    }
    float *a = malloc((size_t)M * K * sizeof *a), *b = malloc((size_t)K * N * sizeof *b);
    if (!a || !b) {
        free(a);
        free(b);
        err_set("cpu-naive: out of memory widening %dx%dx%d %s operands", M, N, K, dtype_name(dt));
        return -1;
    }
    for (int i = 0; i < M; i++)
        for (int k = 0; k < K; k++)
            a[(size_t)i * K + k] = dtype_round(dt, dtype_get(dt, A, (size_t)i * lda + k));
    for (int k = 0; k < K; k++)
        for (int j = 0; j < N; j++)
            b[(size_t)k * N + j] = dtype_round(dt, dtype_get(dt, B, (size_t)k * ldb + j));
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++)
            dtype_set_d(dt, C, (size_t)i * ldc + j, gemm_ref_element(i, j, K, 1.0, a, K, b, N, 0.0, 0.0f));
    free(a);
    free(b);
    return 0;
}
