/* suites/matmul/matmul.h - the matmul suite's two halves (see matmul.c). */
#ifndef SUITES_MATMUL_H
#define SUITES_MATMUL_H

#include "suite.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const suite_def SUITE_MATMUL;
extern const suite_gpu SUITE_MATMUL_GPU;   /* builds with a GPU layer only */

/* Rows [r0, r1) of A and C in chunk c of n. */
void matmul_chunk_rows(const problem *p, int c, int n, int *r0, int *r1);

#ifdef __cplusplus
}
#endif
#endif
