/* cpu/train_args.h - the size checks every CPU train_ops table makes on entry
 * (ops/train_ops.h), written once. Each returns 0, or 1 after err_set naming
 * the table (`who`, e.g. "cpu-omp"), the operation and the bad value.
 * Internal to cpu/: the tables' files include it, nothing else. */
#ifndef CPU_TRAIN_ARGS_H
#define CPU_TRAIN_ARGS_H

#include "errmsg.h"

/* M, N, K >= 1; lda >= (ta ? M : K), ldb >= (tb ? K : N), ldc >= N. */
static inline int train_gemm_args(const char *who, int ta, int tb, int M, int N, int K, int lda,
                                  int ldb, int ldc)
{
    if (M < 1 || N < 1 || K < 1) {
        err_set("%s gemm: M %d, N %d, K %d must all be >= 1", who, M, N, K);
        return 1;
    }
    int alda = ta ? M : K, aldb = tb ? K : N;
    if (lda < alda || ldb < aldb || ldc < N) {
        err_set("%s gemm (ta %d tb %d, %dx%dx%d): lda %d (>= %d), ldb %d (>= %d), ldc %d (>= %d)",
                who, ta != 0, tb != 0, M, N, K, lda, alda, ldb, aldb, ldc, N);
        return 1;
    }
    return 0;
}

/* rows, cols >= 0 (bias_add, bias_grad). */
static inline int train_matrix_args(const char *who, const char *op, int rows, int cols)
{
    if (rows < 0 || cols < 0) {
        err_set("%s %s: rows %d and cols %d must be >= 0", who, op, rows, cols);
        return 1;
    }
    return 0;
}

/* n >= 0 (relu, relu_bwd, sgd). */
static inline int train_count_args(const char *who, const char *op, long n)
{
    if (n < 0) {
        err_set("%s %s: n %ld must be >= 0", who, op, n);
        return 1;
    }
    return 0;
}

/* planes, H, W >= 0 (maxpool, maxpool_bwd; H or W < 2 gives empty output planes). */
static inline int train_pool_args(const char *who, const char *op, int planes, int H, int W)
{
    if (planes < 0 || H < 0 || W < 0) {
        err_set("%s %s: planes %d, H %d, W %d must be >= 0", who, op, planes, H, W);
        return 1;
    }
    return 0;
}

/* Whether a = arg[o] (maxpool) lies in output o's 2x2 window of an H x W
 * plane, as maxpool_bwd requires (o indexes the (H/2) x (W/2) output plane). */
static inline int train_arg_in_window(int a, long o, int H, int W)
{
    int Wo = W / 2;
    return a >= 0 && a < (long)H * W && (a / W) / 2 == o / Wo && (a % W) / 2 == o % Wo;
}

/* rows, classes >= 1 and every label in [0, classes). */
static inline int train_xent_args(const char *who, int rows, int classes, const int *labels)
{
    if (rows < 1 || classes < 1) {
        err_set("%s softmax_xent: rows %d and classes %d must be >= 1", who, rows, classes);
        return 1;
    }
    for (int r = 0; r < rows; r++)
        if (labels[r] < 0 || labels[r] >= classes) {
            err_set("%s softmax_xent: label[%d] = %d is outside [0, %d)", who, r, labels[r],
                    classes);
            return 1;
        }
    return 0;
}

#endif
