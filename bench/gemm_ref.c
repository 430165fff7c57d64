/* bench/gemm_ref.c - full or sampled double reference for GEMM checks. */
#include "gemm_ref.h"
#include "gemm_cpu.h"

#include <stdlib.h>
#include <string.h>

static void mark_spread(char *sel, int n, int count)
{
    for (int t = 0; t < count; t++)
        sel[count > 1 ? (long)(n - 1) * t / (count - 1) : 0] = 1;
}

int gemm_ref_build(gemm_ref *r, int M, int N, int K, float alpha, const float *A,
                   const float *B, float beta, const float *C0)
{
    memset(r, 0, sizeof *r);
    r->M = M;
    r->N = N;
    r->K = K;
    int full = (double)M * N * K <= GEMM_REF_FULL_LIMIT;
    char *rows = calloc((size_t)M, 1), *cols = calloc((size_t)N, 1);
    if (!rows || !cols) goto oom;
    if (full) {
        memset(rows, 1, (size_t)M);
    } else {
        mark_spread(rows, M, 16);
        mark_spread(cols, N, 10);
    }
    size_t n = 0;
    for (int i = 0; i < M; i++) n += rows[i] ? (size_t)N : 0;
    for (int j = 0; j < N; j++)
        if (cols[j])
            for (int i = 0; i < M; i++) n += !rows[i];
    r->idx = malloc(n * sizeof *r->idx);
    r->val = malloc(n * sizeof *r->val);
    r->gather = malloc(n * sizeof *r->gather);
    if (!r->idx || !r->val || !r->gather) goto oom;
    size_t k = 0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++)
            if (rows[i] || cols[j]) r->idx[k++] = (long)i * N + j;
    r->n = k;
#pragma omp parallel for schedule(dynamic, 64)
    for (long e = 0; e < (long)r->n; e++) {
        int i = (int)(r->idx[e] / N), j = (int)(r->idx[e] % N);
        float c0 = beta != 0.0f ? C0[r->idx[e]] : 0.0f;
        r->val[e] = gemm_ref_element(i, j, K, alpha, A, K, B, N, beta, c0);
    }
    free(rows);
    free(cols);
    return 0;
oom:
    free(rows);
    free(cols);
    gemm_ref_free(r);
    return -1;
}

check_result gemm_ref_check(const gemm_ref *r, const float *C, dtype_t dtype)
{
    for (size_t e = 0; e < r->n; e++) r->gather[e] = C[r->idx[e]];
    return check_compare(r->gather, r->val, r->n, check_tolerance(dtype, r->K));
}

void gemm_ref_free(gemm_ref *r)
{
    free(r->idx);
    free(r->val);
    free(r->gather);
    memset(r, 0, sizeof *r);
}
