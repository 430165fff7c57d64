/* TEMPORARY: replaced by the native version in gemm_omp.c at merge
 * cpu/gemm_omp_t_tmp.c - gemm_cpu_omp_t (gemm_cpu.h) until then: op(A) and
 * op(B) are transposed into temporary row-major buffers (32x32 blocks,
 * OpenMP over row blocks when large), then gemm_cpu_omp runs on them. Only
 * this function lives here: the file is deleted at merge. */
#include "gemm_cpu.h"
#include "errmsg.h"

#include <stdlib.h>

/* dst[c][r] = src[r][c] for an rows x cols src (leading dimension ld). */
static void transpose(int rows, int cols, const float *src, int ld, float *dst)
{
    const int T = 32;
#pragma omp parallel for schedule(static) if ((long)rows * cols >= (1L << 16))
    for (int c0 = 0; c0 < cols; c0 += T)
        for (int r0 = 0; r0 < rows; r0 += T)
            for (int c = c0; c < cols && c < c0 + T; c++)
                for (int r = r0; r < rows && r < r0 + T; r++)
                    dst[(long)c * rows + r] = src[(long)r * ld + c];
}

int gemm_cpu_omp_t(int ta, int tb, int M, int N, int K, float alpha, const float *A, int lda,
                   const float *B, int ldb, float beta, float *C, int ldc)
{
    if (M <= 0 || N <= 0 || K <= 0 || (!ta && !tb))
        return gemm_cpu_omp(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
    float *At = ta ? malloc(sizeof(float) * (size_t)M * K) : NULL;
    float *Bt = tb ? malloc(sizeof(float) * (size_t)K * N) : NULL;
    if ((ta && !At) || (tb && !Bt)) {
        err_set("gemm_cpu_omp_t: out of memory for the transposed operands (%zu bytes)",
                sizeof(float) * ((ta ? (size_t)M * K : 0) + (tb ? (size_t)K * N : 0)));
        free(At);
        free(Bt);
        return 1;
    }
    if (ta) transpose(K, M, A, lda, At);   /* A is K x M: At is M x K */
    if (tb) transpose(N, K, B, ldb, Bt);   /* B is N x K: Bt is K x N */
    int rc = gemm_cpu_omp(M, N, K, alpha, ta ? At : A, ta ? K : lda, tb ? Bt : B, tb ? N : ldb,
                          beta, C, ldc);
    free(At);
    free(Bt);
    return rc;
}
