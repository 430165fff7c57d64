/* suites/matmul/gemm_ref.c - full or sampled double reference for GEMM checks. */
#include "gemm_ref.h"
#include "gemm_cpu.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

static void mark_spread(char *sel, int n, int count)
{
    for (int t = 0; t < count; t++)
        sel[count > 1 ? (long)(n - 1) * t / (count - 1) : 0] = 1;
}

/* x = +-1, z = alpha*A.(B.x) + beta*C0.x, all in double. */
static int freivalds_build(gemm_ref *r, float alpha, const float *A, const float *B, float beta,
                           const float *C0)
{
    int M = r->M, N = r->N, K = r->K;
    float *u = malloc((size_t)N * sizeof *u);
    double *bx = malloc((size_t)K * sizeof *bx);
    r->fx = malloc((size_t)N * sizeof *r->fx);
    r->fz = malloc((size_t)M * sizeof *r->fz);
    r->fy = malloc((size_t)M * sizeof *r->fy);
    if (!u || !bx || !r->fx || !r->fz || !r->fy) {
        free(u);
        free(bx);
        return -1;
    }
    rng_fill_uniform(u, (size_t)N, 0xF00DULL + (unsigned long long)M * 31 + N);
    for (int j = 0; j < N; j++) r->fx[j] = u[j] < 0 ? -1.0 : 1.0;
#pragma omp parallel for
    for (int k = 0; k < K; k++) {
        double acc = 0;
        for (int j = 0; j < N; j++) acc += (double)B[(size_t)k * N + j] * r->fx[j];
        bx[k] = acc;
    }
#pragma omp parallel for
    for (int i = 0; i < M; i++) {
        double acc = 0, c = 0;
        for (int k = 0; k < K; k++) acc += (double)A[(size_t)i * K + k] * bx[k];
        if (beta != 0.0f)
            for (int j = 0; j < N; j++) c += (double)C0[(size_t)i * N + j] * r->fx[j];
        r->fz[i] = (double)alpha * acc + (double)beta * c;
    }
    free(u);
    free(bx);
    return 0;
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
    if (!full && freivalds_build(r, alpha, A, B, beta, C0)) goto oom;
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

check_result gemm_ref_check(const gemm_ref *r, const void *C, dtype_t storage, dtype_t dtype,
                            char *why, size_t whycap)
{
    double tol = check_tolerance(dtype, r->K);
    check_result res = check_compare_at(C, storage, r->idx, r->gather, r->val, r->n, tol);
    if (!res.pass && res.worst_index >= 0) {
        long w = r->idx[res.worst_index];
        snprintf(why, whycap, "worst C[%ld,%ld] = %.7g, reference %.7g", w / r->N, w % r->N,
                 (double)dtype_get(storage, C, (size_t)w), r->val[res.worst_index]);
    } else if (!res.pass) {
        snprintf(why, whycap, "%ld non-finite elements", res.nonfinite);
    }
    if (!r->fx || !res.pass) return res;
#pragma omp parallel for
    for (int i = 0; i < r->M; i++) {
        double acc = 0;
        for (int j = 0; j < r->N; j++) acc += (double)dtype_get(storage, C, (size_t)i * r->N + j) * r->fx[j];
        r->fy[i] = acc;
    }
    check_result product = check_compare_d(r->fy, r->fz, (size_t)r->M, tol);
    if (!product.pass) {
        if (product.nonfinite)
            snprintf(why, whycap, "product check C.x: non-finite rows (NaN/Inf in C)");
        else
            snprintf(why, whycap, "product check C.x = A.(B.x) fails at row %ld (rel err %.3g): "
                     "an element outside the sampled rows/columns is wrong",
                     product.worst_index, product.rel_err);
    }
    /* the element check's errors are the ones reported; the verdict needs both */
    res.pass = product.pass;
    return res;
}

double gemm_ref_bytes(int M, int N, int K)
{
    double m = M, n = N, k = K;
    double checked = m * n * k <= GEMM_REF_FULL_LIMIT ? m * n : fmin(m * n, 16 * n + 10 * m);
    double freivalds = m * n * k <= GEMM_REF_FULL_LIMIT ? 0 : 4 * n + 8 * k + 8 * n + 16 * m;
    /* idx (8) + val (8) + gather (4) per checked element, the row/column marks */
    return 20 * checked + m + n + freivalds;
}

void gemm_ref_free(gemm_ref *r)
{
    free(r->idx);
    free(r->val);
    free(r->gather);
    free(r->fx);
    free(r->fz);
    free(r->fy);
    memset(r, 0, sizeof *r);
}
