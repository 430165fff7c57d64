/* cpu/gemm_naive.c - the readable reference GEMM (see gemm_cpu.h). */
#include "gemm_cpu.h"

double gemm_ref_element(int i, int j, int K, double alpha, const float *A, int lda,
                        const float *B, int ldb, double beta, float c_old)
{
    double acc = 0.0;
    for (int k = 0; k < K; k++)
        acc += (double)A[(long)i * lda + k] * (double)B[(long)k * ldb + j];
    double c = alpha * acc;
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
