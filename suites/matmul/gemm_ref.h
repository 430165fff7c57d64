/* suites/matmul/gemm_ref.h - the double-precision reference a GEMM result is checked against.
 *
 * Affordable at any size: when M*N*K <= GEMM_REF_FULL_LIMIT every element is
 * computed; above it, two checks together:
 *  - every element of 16 rows (first, last, evenly spaced) and of 10 columns
 *    (likewise): every row and column position, edge tiles included, is
 *    compared element by element, at (16N + 10M)K multiply-adds instead of MNK;
 *  - Freivalds' product check over ALL elements: with x a seeded random +-1
 *    vector, C.x must equal alpha*A.(B.x) + beta*C0.x (in double), at
 *    MK + KN + MN multiply-adds; a grossly wrong element anywhere (a lost
 *    accumulator, a skipped tile) moves its entry of C.x.
 * Each sampled element comes from gemm_ref_element (cpu/gemm_naive.c),
 * accumulated in double.
 */
#ifndef BENCH_GEMM_REF_H
#define BENCH_GEMM_REF_H

#include <stddef.h>
#include "check.h"

#define GEMM_REF_FULL_LIMIT (512.0 * 512.0 * 512.0)

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gemm_ref {
    int M, N, K;
    size_t n;       /* checked elements */
    long *idx;      /* i*N + j of each */
    double *val;    /* reference values */
    float *gather;  /* scratch for the result's checked elements */
    double *fx;     /* Freivalds: N random +-1 (NULL when every element is checked) */
    double *fz;     /* M entries of alpha*A.(B.x) + beta*C0.x */
    double *fy;     /* scratch: C.x */
} gemm_ref;

/* Builds the reference of alpha*A*B + beta*C0 (C0 ignored when beta == 0),
 * A MxK, B KxN, C MxN, contiguous row-major. Returns 0, -1 out of memory. */
int gemm_ref_build(gemm_ref *r, int M, int N, int K, float alpha, const float *A,
                   const float *B, float beta, const float *C0);

/* Checks C (MxN contiguous, stored in `storage`: fp32 words or 16-bit ones)
 * against the reference with the dtype's tolerance.
 * On failure writes one line of where it went wrong into why. */
check_result gemm_ref_check(const gemm_ref *r, const void *C, dtype_t storage, dtype_t dtype,
                            char *why, size_t whycap);

void gemm_ref_free(gemm_ref *r);

/* Host bytes gemm_ref_build allocates for an MxNxK problem (the runner's
 * memory estimate before any work). */
double gemm_ref_bytes(int M, int N, int K);

#ifdef __cplusplus
}
#endif

#endif
