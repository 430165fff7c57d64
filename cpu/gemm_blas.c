/* cpu/gemm_blas.c - OpenBLAS cblas_sgemm behind the common GEMM signature. */
#include "gemm_cpu.h"

#include <cblas.h>

int gemm_cpu_blas(int M, int N, int K, float alpha, const float *A, int lda,
                  const float *B, int ldb, float beta, float *C, int ldc)
{
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, alpha, A, lda, B, ldb,
                beta, C, ldc);
    return 0;
}
