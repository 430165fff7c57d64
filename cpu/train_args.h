/* cpu/train_args.h - the size checks every CPU train_ops table makes on entry
 * (ops/train_ops.h), written once. Each returns 0, or 1 after err_set naming
 * the table (`who`, e.g. "cpu-omp"), the operation and the bad value.
 * Internal to cpu/: the tables' files include it, nothing else. */
#ifndef CPU_TRAIN_ARGS_H
#define CPU_TRAIN_ARGS_H

#include "errmsg.h"
#include "../ops/dtype.h"

/* M, N, K >= 1; lda >= (ta ? M : K), ldb >= (tb ? K : N), ldc >= N; `op`
 * names the operation in the message (gemm, gemm_batched). */
static inline int train_gemm_op_args(const char *who, const char *op, int ta, int tb, int M,
                                     int N, int K, int lda, int ldb, int ldc)
{
    if (M < 1 || N < 1 || K < 1) {
        err_set("%s %s: M %d, N %d, K %d must all be >= 1", who, op, M, N, K);
        return 1;
    }
    int alda = ta ? M : K, aldb = tb ? K : N;
    if (lda < alda || ldb < aldb || ldc < N) {
        err_set("%s %s (ta %d tb %d, %dx%dx%d): lda %d (>= %d), ldb %d (>= %d), ldc %d (>= %d)",
                who, op, ta != 0, tb != 0, M, N, K, lda, alda, ldb, aldb, ldc, N);
        return 1;
    }
    return 0;
}

static inline int train_gemm_args(const char *who, int ta, int tb, int M, int N, int K, int lda,
                                  int ldb, int ldc)
{
    return train_gemm_op_args(who, "gemm", ta, tb, M, N, K, lda, ldb, ldc);
}

/* gemm_batched: the gemm checks, batch >= 1, strides >= 0, and no two C
 * matrices (M x N, ldc) sharing an element. C_i and C_{i+k} overlap iff
 * d = k*sC = dr*ldc + dc with |dr| < M, |dc| < N, i.e. (q, e) = (d / ldc,
 * d % ldc) has q < M and e < N, or q + 1 < M and ldc - e < N; once d passes
 * (M-1)*ldc + N - 1 no larger k can (stacked, and interleaved ones such as
 * heads side by side in a row with sC = N, ldc = heads*N, both pass). */
static inline int train_batched_args(const char *who, int ta, int tb, int M, int N, int K,
                                     int lda, long long sA, int ldb, long long sB, int ldc,
                                     long long sC, int batch)
{
    if (train_gemm_op_args(who, "gemm_batched", ta, tb, M, N, K, lda, ldb, ldc)) return 1;
    if (batch < 1 || sA < 0 || sB < 0 || sC < 0) {
        err_set("%s gemm_batched: batch %d must be >= 1 and strides sA %lld, sB %lld, sC %lld "
                ">= 0", who, batch, sA, sB, sC);
        return 1;
    }
    const long long last = (long long)(M - 1) * ldc + N - 1;
    for (int k = 1; k < batch && (long long)k * sC <= last; k++) {
        const long long d = (long long)k * sC, q = d / ldc, e = d % ldc;
        if ((q < M && e < N) || (q + 1 < M && ldc - e < N)) {
            err_set("%s gemm_batched: C matrices 0 and %d overlap (sC %lld, %dx%d, ldc %d)", who,
                    k, sC, M, N, ldc);
            return 1;
        }
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

/* n >= 0 (relu, relu_bwd, sgd, add, gelu, gelu_bwd). */
static inline int train_count_args(const char *who, const char *op, long n)
{
    if (n < 0) {
        err_set("%s %s: n %ld must be >= 0", who, op, n);
        return 1;
    }
    return 0;
}

/* round's dtype: bf16 or fp16 (then as train_count_args). */
static inline int train_round_args(const char *who, long n, dtype_t dt)
{
    if (dt != DTYPE_BF16 && dt != DTYPE_FP16) {
        err_set("%s round: dtype %s is not bf16 or fp16", who, dtype_name(dt));
        return 1;
    }
    return train_count_args(who, "round", n);
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

/* permute: A, B, C, D >= 0. */
static inline int train_permute_args(const char *who, int A, int B, int C, int D)
{
    if (A < 0 || B < 0 || C < 0 || D < 0) {
        err_set("%s permute: A %d, B %d, C %d, D %d must be >= 0", who, A, B, C, D);
        return 1;
    }
    return 0;
}

/* attn_softmax(_bwd): rows >= 0, T >= 1. */
static inline int train_attn_args(const char *who, const char *op, long rows, int T)
{
    if (rows < 0 || T < 1) {
        err_set("%s %s: rows %ld must be >= 0 and T %d >= 1", who, op, rows, T);
        return 1;
    }
    return 0;
}

/* embedding(_bwd): rows, dim >= 0, vocab >= 1, every ids[r] in [0, vocab)
 * (ids NULL: r % vocab, always in range). */
static inline int train_embedding_args(const char *who, const char *op, int rows, int dim,
                                       const int *ids, int vocab)
{
    if (rows < 0 || dim < 0 || vocab < 1) {
        err_set("%s %s: rows %d and dim %d must be >= 0, vocab %d >= 1", who, op, rows, dim,
                vocab);
        return 1;
    }
    if (ids)
        for (int r = 0; r < rows; r++)
            if (ids[r] < 0 || ids[r] >= vocab) {
                err_set("%s %s: ids[%d] = %d is outside [0, %d)", who, op, r, ids[r], vocab);
                return 1;
            }
    return 0;
}

/* layernorm(_bwd): rows >= 0, dim >= 1. */
static inline int train_layernorm_args(const char *who, const char *op, int rows, int dim)
{
    if (rows < 0 || dim < 1) {
        err_set("%s %s: rows %d must be >= 0 and dim %d >= 1", who, op, rows, dim);
        return 1;
    }
    return 0;
}

/* lstm_cell(_bwd): rows, H >= 0. */
static inline int train_lstm_args(const char *who, const char *op, int rows, int H)
{
    if (rows < 0 || H < 0) {
        err_set("%s %s: rows %d and H %d must be >= 0", who, op, rows, H);
        return 1;
    }
    return 0;
}

/* adamw: n >= 0, the step count t a whole number in [0, 2^24) (t + 1 stays
 * exact in fp32), b1 and b2 in [0, 1) (NaN refused everywhere). */
static inline int train_adamw_args(const char *who, long n, float t, float b1, float b2)
{
    if (n < 0) {
        err_set("%s adamw: n %ld must be >= 0", who, n);
        return 1;
    }
    if (!(t >= 0.0f && t < 16777216.0f) || t != (float)(long)t) {
        err_set("%s adamw: step count t %g is not a whole number in [0, 2^24)", who, t);
        return 1;
    }
    if (!(b1 >= 0.0f && b1 < 1.0f) || !(b2 >= 0.0f && b2 < 1.0f)) {
        err_set("%s adamw: betas b1 %g and b2 %g must be in [0, 1)", who, b1, b2);
        return 1;
    }
    return 0;
}

#endif
