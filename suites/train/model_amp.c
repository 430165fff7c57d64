/* suites/train/model_amp.c - autocast for the training step: the one list of
 * which ops run in 16 bits and which in fp32 (AMP_RULES), and the op table
 * that applies it over any backend's table (model_amp.h).
 *
 * Like torch.autocast, the state is per thread: model_grads installs it for
 * the step (its thread), the wrappers below read it. A 16-bit op's floating
 * inputs are rounded to the autocast dtype (bf16 or fp16) by the table's own
 * round op into the plan's amp region (in the table's memory: host or
 * device), a log of every operand and output of the step, each at its own
 * place (the step's calls in order; the plan sizes it by a pass of the step
 * over a table of no-ops), then the table's fp32 op runs on them: a product
 * of two 16-bit values is exact in fp32, so this is a 16-bit GEMM with fp32
 * accumulation, the same on every backend and in the reference (which sums
 * in double). Its output is a 16-bit tensor, as PyTorch's: rounded once, in
 * place, where PyTorch rounds it. It is left pending after the op, because
 * our split of one PyTorch op may go on writing it (gemm then bias_add is
 * one addmm; a gemm accumulating into it, one addmm over a concatenation),
 * and rounded before any other op runs (every op of the table is wrapped).
 * So a gradient flowing into a bf16 tensor is bf16 too (PyTorch rounds it at
 * the cast's backward; the 16-bit op that reads it rounds it here). Master
 * weights, gradient and optimizer arrays are fp32. tools/amp_replay.py
 * replays a dumped step under torch.autocast and says how close it is.
 */
#include "model_amp.h"
#include "model_impl.h"
#include "errmsg.h"
#include "test_hooks.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* PyTorch's autocast op lists (torch.amp docs, "Autocast Op Reference":
 * "CPU Ops that can autocast to bfloat16" / "to float32", and the CUDA
 * lists), for the ops our table has, and what PyTorch 1.13's CPU autocast
 * does with our models' other ops: an op on no list runs in its input's
 * dtype, so softmax and gelu of a 16-bit op's output run in bf16 (output
 * rounded; out), layer_norm of the fp32 residual stream in fp32. Every
 * other op (relu, max-pool, permute: exact on bf16 values; the LSTM cell,
 * embedding, add, SGD, AdamW) runs in fp32; bias_add is gemm's (addmm). */
const amp_rule AMP_RULES[AMP_OP_COUNT] = {
    [AMP_OP_GEMM] = {"gemm", "linear, matmul, mm, addmm (its bias too)", 1, 1},
    [AMP_OP_GEMM_BATCHED] = {"gemm_batched", "bmm, baddbmm", 1, 1},
    [AMP_OP_CONV_FWD] = {"conv_fwd", "conv2d", 1, 1},
    [AMP_OP_CONV_BWD_DATA] = {"conv_bwd_data", "conv2d (its backward)", 1, 1},
    [AMP_OP_CONV_BWD_FILTER] = {"conv_bwd_filter", "conv2d (its backward)", 1, 1},
    [AMP_OP_SOFTMAX_XENT] = {"softmax_xent", "cross_entropy, log_softmax, nll_loss", 0, 0},
    [AMP_OP_ATTN_SOFTMAX] = {"attn_softmax", "softmax (of bmm's bf16 output: in bf16)", 0, 1},
    [AMP_OP_LAYERNORM] = {"layernorm", "layer_norm", 0, 0},
    [AMP_OP_BIAS_GRAD] = {"bias_grad", "addmm's bias gradient (a bf16 sum)", 1, 1},
    [AMP_OP_ATTN_SOFTMAX_BWD] = {"attn_softmax_bwd", "softmax's backward (in bf16)", 0, 1},
    [AMP_OP_GELU] = {"gelu", "gelu (of addmm's bf16 output: in bf16)", 0, 1},
    [AMP_OP_GELU_BWD] = {"gelu_bwd", "gelu's backward (in bf16)", 0, 1},
};

typedef struct amp_ctx {
    const train_ops *base;
    dtype_t dt;              /* bf16 or fp16 */
    float *ws;               /* the plan's amp region (table memory): the log */
    long long cap, used;     /* its floats; the log so far */
    int counting;            /* the plan's sizing pass: nothing rounded or run */
    int low[AMP_OP_COUNT];   /* AMP_RULES, with a planted flip */
    int out[AMP_OP_COUNT];
    /* a 16-bit op's output not yet rounded (a bias_add, or a gemm that
     * accumulates into it, may follow): its floats and its place in the log */
    float *pend;
    long long pend_n, pend_at;
    /* the check's replay (host): the amp log of the run checked, whose
     * roundings near a tie are taken (see follow_ties) */
    const float *theirs;
    double tol;
    int *flips;
} amp_ctx;

static _Thread_local amp_ctx *cur;

/* The check's replay of a step (host memory): x (n floats at place `at` of
 * the log) rounded as the run being checked rounded its copy (the same
 * place of its log, theirs + at), wherever x lies within 3 * tol * rms(x)
 * of the boundary between the two roundings (the rule of model_replay's
 * ReLU ties): a correct run's fp32 value differs from the reference's by
 * rounding, and where a 16-bit rounding boundary falls between the two,
 * the two roundings differ by a whole 16-bit ulp, far more than the check's
 * fp32 tolerance. Elsewhere its own rounding (a wrong value is never
 * followed). Counts the roundings taken in *flips. */
static void follow_ties(const amp_ctx *c, const float *x, long long at, long long n, float *y)
{
    double ss = 0;
    for (long long i = 0; i < n; i++) ss += isfinite(x[i]) ? (double)x[i] * x[i] : 0.0;
    const double near = 3.0 * c->tol * sqrt(ss / (double)n);
    const float *t = c->theirs + at;
    for (long long i = 0; i < n; i++) {
        y[i] = dtype_round(c->dt, x[i]);
        if (t[i] != y[i] && isfinite(t[i]) && isfinite(y[i]) &&
            fabs((double)x[i] - 0.5 * ((double)t[i] + y[i])) <= near) {
            y[i] = t[i];
            ++*c->flips;
        }
    }
}

/* A place of n floats in the log: every operand and every output has its
 * own, taken whether it is rounded or not, so the plan's sizing pass and
 * every run take the same places. */
static long long take(long long n)
{
    const long long at = cur->used;
    cur->used += (n + 63) / 64 * 64;   /* float4-aligned */
    return at;
}

/* x's first n floats rounded into place `at` of the log (x itself when `on`
 * is 0, or in the sizing pass). NULL after err_set when the log is full
 * (the step's calls are not the plan's). */
static const float *round_at(int on, const char *op, const float *x, long long n, long long at,
                             void *s)
{
    amp_ctx *c = cur;
    if (!x || n <= 0 || c->counting || !on) return x;
    if (at + n > c->cap) {
        err_set("autocast: %s's operand at %lld of the amp log overruns its %lld floats", op, at,
                c->cap);
        return NULL;
    }
    float *y = c->ws + at;
    if (c->theirs) follow_ties(c, x, at, n, y);
    else if (c->base->round((long)n, c->dt, x, y, s)) return NULL;
    return y;
}

/* An input of op: rounded when op runs in 16 bits. */
static const float *lowered(int op, const float *x, long long n, void *s)
{
    if (!x || n <= 0) return x;
    return round_at(cur->low[op], AMP_RULES[op].op, x, n, take(n), s);
}

/* The pending output rounded in place (its copy in the log, copied back). */
static int flush(void *s)
{
    amp_ctx *c = cur;
    float *y = c->pend;
    if (!y) return 0;
    c->pend = NULL;
    const float *r = round_at(1, "an output", y, c->pend_n, c->pend_at, s);
    if (!r) return -1;
    return r == y ? 0 : c->base->round((long)c->pend_n, c->dt, r, y, s);
}

/* op has written n floats at y: a 16-bit output is left pending (after any
 * earlier one was rounded: see flush's callers). */
static int output(int op, float *y, long long n)
{
    const long long at = take(n);
    if (cur->counting || !cur->out[op]) return 0;
    cur->pend = y;
    cur->pend_n = n;
    cur->pend_at = at;
    return 0;
}

/* Floats an operand spans: rows of ld, the last one cols long. */
static long long span(int rows, int cols, int ld) { return (long long)(rows - 1) * ld + cols; }

#define LOWER(var, op, x, n)                   \
    const float *var = lowered(op, x, n, s); \
    if ((x) && !var) return -1

/* C (n floats) continues the pending output: a gemm accumulating into it
 * (beta != 0), as our split of one addmm over a concatenation does. */
static int continues(const float *C, float beta)
{
    const amp_ctx *c = cur;
    return beta != 0.0f && c->pend && C >= c->pend && C < c->pend + c->pend_n;
}

static int amp_gemm(int ta, int tb, int M, int N, int K, const float *A, int lda, const float *B,
                    int ldb, float beta, float *C, int ldc, void *s)
{
    const int cont = continues(C, beta);
    if (!cont && flush(s)) return -1;
    LOWER(a, AMP_OP_GEMM, A, ta ? span(K, M, lda) : span(M, K, lda));
    LOWER(b, AMP_OP_GEMM, B, tb ? span(N, K, ldb) : span(K, N, ldb));
    if (cur->base->gemm(ta, tb, M, N, K, a, lda, b, ldb, beta, C, ldc, s)) return -1;
    if (cont) {
        take(span(M, N, ldc));   /* its place, as the sizing pass took it */
        return 0;
    }
    return output(AMP_OP_GEMM, C, span(M, N, ldc));
}

static int amp_gemm_batched(int ta, int tb, int M, int N, int K, const float *A, int lda,
                            long long sA, const float *B, int ldb, long long sB, float beta,
                            float *C, int ldc, long long sC, int batch, void *s)
{
    if (flush(s)) return -1;
    LOWER(a, AMP_OP_GEMM_BATCHED, A,
          (batch - 1) * sA + (ta ? span(K, M, lda) : span(M, K, lda)));
    LOWER(b, AMP_OP_GEMM_BATCHED, B,
          (batch - 1) * sB + (tb ? span(N, K, ldb) : span(K, N, ldb)));
    if (cur->base->gemm_batched(ta, tb, M, N, K, a, lda, sA, b, ldb, sB, beta, C, ldc, sC, batch,
                                s))
        return -1;
    return output(AMP_OP_GEMM_BATCHED, C, (batch - 1) * sC + span(M, N, ldc));
}

/* After a 16-bit gemm into y: addmm's bias (F.linear's, on 2-D and 3-D
 * inputs alike), rounded to 16 bits and added before the output is rounded
 * (once). Otherwise an fp32 op. */
static int amp_bias_add(int rows, int cols, float *y, const float *b, void *s)
{
    amp_ctx *c = cur;
    const int fused = c->pend == y;
    if (!fused && flush(s)) return -1;
    const float *bl = round_at(fused && c->low[AMP_OP_GEMM], "bias_add", b, cols, take(cols), s);
    if (!bl) return -1;
    return c->base->bias_add(rows, cols, y, bl, s);
}

static long long conv_x(const conv_dims *d) { return (long long)d->N * d->C * d->H * d->W; }
static long long conv_w(const conv_dims *d) { return (long long)d->K * d->C * d->R * d->S; }
static long long conv_y(const conv_dims *d) { return (long long)d->N * d->K * d->P * d->Q; }

static int amp_conv_fwd(const conv_dims *d, const float *x, const float *w, const float *b,
                        float *y, void *ws, void *s)
{
    if (flush(s)) return -1;
    LOWER(xl, AMP_OP_CONV_FWD, x, conv_x(d));
    LOWER(wl, AMP_OP_CONV_FWD, w, conv_w(d));
    LOWER(bl, AMP_OP_CONV_FWD, b, d->K);
    if (cur->base->conv->fwd(d, xl, wl, bl, y, ws, s)) return -1;   /* the bias added in fp32 */
    return output(AMP_OP_CONV_FWD, y, conv_y(d));
}

static int amp_conv_bwd_data(const conv_dims *d, const float *dy, const float *w, float *dx,
                             void *ws, void *s)
{
    if (flush(s)) return -1;
    LOWER(dyl, AMP_OP_CONV_BWD_DATA, dy, conv_y(d));
    LOWER(wl, AMP_OP_CONV_BWD_DATA, w, conv_w(d));
    if (cur->base->conv->bwd_data(d, dyl, wl, dx, ws, s)) return -1;
    return output(AMP_OP_CONV_BWD_DATA, dx, conv_x(d));
}

static int amp_conv_bwd_filter(const conv_dims *d, const float *x, const float *dy, float *dw,
                               float *db, void *ws, void *s)
{
    if (flush(s)) return -1;
    LOWER(xl, AMP_OP_CONV_BWD_FILTER, x, conv_x(d));
    LOWER(dyl, AMP_OP_CONV_BWD_FILTER, dy, conv_y(d));
    if (cur->base->conv->bwd_filter(d, xl, dyl, dw, db, ws, s)) return -1;
    if (output(AMP_OP_CONV_BWD_FILTER, dw, conv_w(d)) || flush(s)) return -1;
    return db ? output(AMP_OP_CONV_BWD_FILTER, db, d->K) : 0;
}

static unsigned long long amp_conv_workspace(const conv_dims *d, conv_dir dir)
{
    return cur->base->conv->workspace ? cur->base->conv->workspace(d, dir) : 0;
}

static const conv_ops AMP_CONV = {
    .fwd = amp_conv_fwd,
    .bwd_data = amp_conv_bwd_data,
    .bwd_filter = amp_conv_bwd_filter,
    .workspace = amp_conv_workspace,
};

static int amp_softmax_xent(int rows, int classes, const float *z, const int *labels, float *loss,
                            float *dz, void *s)
{
    if (flush(s)) return -1;
    LOWER(zl, AMP_OP_SOFTMAX_XENT, z, (long long)rows * classes);
    return cur->base->softmax_xent(rows, classes, zl, labels, loss, dz, s);
}

/* In 16 bits (its input a bmm's bf16 output) PyTorch scales the logits
 * (att / sqrt(D)) as an op of its own, rounding them, before the softmax;
 * our op scales inside: the scaled copy is made and rounded here. */
static int amp_attn_softmax(long rows, int T, float scale, const float *z, float *p, void *s)
{
    const amp_ctx *c = cur;
    const long long n = (long long)rows * T;
    if (flush(s)) return -1;
    LOWER(zl, AMP_OP_ATTN_SOFTMAX, z, n);
    const int in16 = c->out[AMP_OP_ATTN_SOFTMAX] && c->base->scale;
    float *zs = (float *)round_at(in16, "attn_softmax", zl, n, take(n), s);
    if (!zs) return -1;
    if (in16 && !c->counting && c->base->scale(n, scale, zs, s)) return -1;
    const float *zr = round_at(in16, "attn_softmax", zs, n, take(n), s);
    if (!zr) return -1;
    if (c->base->attn_softmax(rows, T, in16 ? 1.0f : scale, zr, p, s)) return -1;
    return output(AMP_OP_ATTN_SOFTMAX, p, n);
}

static int amp_attn_softmax_bwd(long rows, int T, float scale, const float *p, const float *dp,
                                float *dz, void *s)
{
    if (flush(s)) return -1;
    LOWER(pl, AMP_OP_ATTN_SOFTMAX_BWD, p, (long long)rows * T);
    LOWER(dpl, AMP_OP_ATTN_SOFTMAX_BWD, dp, (long long)rows * T);
    /* the softmax's backward rounded, then the scale's (as amp_attn_softmax) */
    const amp_ctx *c = cur;
    const long long n = (long long)rows * T;
    const int in16 = c->out[AMP_OP_ATTN_SOFTMAX_BWD] && c->base->scale;
    if (c->base->attn_softmax_bwd(rows, T, in16 ? 1.0f : scale, pl, dpl, dz, s)) return -1;
    if (output(AMP_OP_ATTN_SOFTMAX_BWD, dz, n) || flush(s)) return -1;
    if (in16 && !c->counting && c->base->scale(n, scale, dz, s)) return -1;
    return output(AMP_OP_ATTN_SOFTMAX_BWD, dz, n);
}

static int amp_gelu(long n, const float *x, float *y, void *s)
{
    if (flush(s)) return -1;
    LOWER(xl, AMP_OP_GELU, x, n);
    if (cur->base->gelu(n, xl, y, s)) return -1;
    return output(AMP_OP_GELU, y, n);
}

static int amp_gelu_bwd(long n, const float *x, const float *dy, float *dx, void *s)
{
    if (flush(s)) return -1;
    LOWER(xl, AMP_OP_GELU_BWD, x, n);
    LOWER(dyl, AMP_OP_GELU_BWD, dy, n);
    if (cur->base->gelu_bwd(n, xl, dyl, dx, s)) return -1;
    return output(AMP_OP_GELU_BWD, dx, n);
}

static int amp_layernorm(int rows, int dim, const float *x, const float *w, const float *b,
                         float *y, float *mean, float *rstd, void *s)
{
    if (flush(s)) return -1;
    LOWER(xl, AMP_OP_LAYERNORM, x, (long long)rows * dim);
    return cur->base->layernorm(rows, dim, xl, w, b, y, mean, rstd, s);
}

static int amp_bias_grad(int rows, int cols, const float *dy, float *db, void *s)
{
    if (flush(s)) return -1;
    LOWER(dyl, AMP_OP_BIAS_GRAD, dy, (long long)rows * cols);
    if (cur->base->bias_grad(rows, cols, dyl, db, s)) return -1;
    return output(AMP_OP_BIAS_GRAD, db, cols) || flush(s) ? -1 : 0;
}

/* The ops autocast leaves alone: a pending output is rounded first. */
static int f_relu(long n, const float *x, float *y, void *s)
{
    return flush(s) ? -1 : cur->base->relu(n, x, y, s);
}
static int f_relu_bwd(long n, const float *y, const float *dy, float *dx, void *s)
{
    return flush(s) ? -1 : cur->base->relu_bwd(n, y, dy, dx, s);
}
static int f_maxpool(int planes, int H, int W, const float *x, float *y, int *arg, void *s)
{
    return flush(s) ? -1 : cur->base->maxpool(planes, H, W, x, y, arg, s);
}
static int f_maxpool_bwd(int planes, int H, int W, const float *dy, const int *arg, float *dx,
                         void *s)
{
    return flush(s) ? -1 : cur->base->maxpool_bwd(planes, H, W, dy, arg, dx, s);
}
static int f_add(long n, const float *a, const float *b, float *y, void *s)
{
    return flush(s) ? -1 : cur->base->add(n, a, b, y, s);
}
static int f_permute(int A, int B, int C, int D, const float *x, float *y, void *s)
{
    return flush(s) ? -1 : cur->base->permute(A, B, C, D, x, y, s);
}
static int f_embedding(int rows, int dim, const int *ids, int vocab, const float *table, float *y,
                       int accumulate, void *s)
{
    return flush(s) ? -1 : cur->base->embedding(rows, dim, ids, vocab, table, y, accumulate, s);
}
static int f_embedding_bwd(int rows, int dim, const int *ids, int vocab, const float *dy,
                           float *dtable, void *s)
{
    return flush(s) ? -1 : cur->base->embedding_bwd(rows, dim, ids, vocab, dy, dtable, s);
}
static int f_layernorm_bwd(int rows, int dim, const float *dy, const float *x, const float *w,
                           const float *mean, const float *rstd, float *dx, float *dw, float *db,
                           void *s)
{
    return flush(s) ? -1 : cur->base->layernorm_bwd(rows, dim, dy, x, w, mean, rstd, dx, dw, db, s);
}
static int f_lstm_cell(int rows, int H, const float *pre, const float *c_prev, float *gates,
                       float *c, float *h, void *s)
{
    return flush(s) ? -1 : cur->base->lstm_cell(rows, H, pre, c_prev, gates, c, h, s);
}
static int f_lstm_cell_bwd(int rows, int H, const float *dh, const float *dc, const float *gates,
                           const float *c_prev, const float *c, float *dpre, float *dc_prev,
                           void *s)
{
    return flush(s) ? -1
                    : cur->base->lstm_cell_bwd(rows, H, dh, dc, gates, c_prev, c, dpre, dc_prev, s);
}

/* *out: ops with every entry the step calls under autocast (those ops has). */
static void wrap(const train_ops *ops, train_ops *out)
{
    *out = *ops;
#define WRAP(f, w) \
    if (ops->f) out->f = w
    WRAP(gemm, amp_gemm);
    WRAP(gemm_batched, amp_gemm_batched);
    WRAP(conv, &AMP_CONV);
    WRAP(bias_add, amp_bias_add);
    WRAP(bias_grad, amp_bias_grad);
    WRAP(softmax_xent, amp_softmax_xent);
    WRAP(attn_softmax, amp_attn_softmax);
    WRAP(attn_softmax_bwd, amp_attn_softmax_bwd);
    WRAP(gelu, amp_gelu);
    WRAP(gelu_bwd, amp_gelu_bwd);
    WRAP(layernorm, amp_layernorm);
    WRAP(relu, f_relu);
    WRAP(relu_bwd, f_relu_bwd);
    WRAP(maxpool, f_maxpool);
    WRAP(maxpool_bwd, f_maxpool_bwd);
    WRAP(add, f_add);
    WRAP(permute, f_permute);
    WRAP(embedding, f_embedding);
    WRAP(embedding_bwd, f_embedding_bwd);
    WRAP(layernorm_bwd, f_layernorm_bwd);
    WRAP(lstm_cell, f_lstm_cell);
    WRAP(lstm_cell_bwd, f_lstm_cell_bwd);
#undef WRAP
}

int model_amp_begin(const model_plan *pl, const train_ops *ops, const step_cfg *cfg,
                    const step_bufs *b, const amp_follow *follow, train_ops *out,
                    amp_ctx **saved)
{
    const dtype_t dt = dtype_autocast(cfg->amp);
    *saved = cur;
    if (dt == DTYPE_FP32) return 0;
    if (!ops->round) {
        err_set("the op table has no round, which %s needs", dtype_name(cfg->amp));
        return -1;
    }
    if (pl->amp_ws < 0) {
        err_set("%s: the plan has no amp region", dtype_name(cfg->amp));
        return -1;
    }
    amp_ctx *c = (amp_ctx *)calloc(1, sizeof *c);
    if (!c) {
        err_set("autocast: out of memory");
        return -1;
    }
    c->base = ops;
    c->dt = dt;
    c->ws = b->scratch + pl->amp_ws;
    c->cap = pl->amp_floats;
    if (follow && follow->theirs) {
        c->theirs = follow->theirs + pl->amp_ws;
        c->tol = follow->tol;
        c->flips = follow->flips;
    }
    for (int i = 0; i < AMP_OP_COUNT; i++) {
        /* a planted wrong precision; bias_grad is gemm's (addmm's) bias
         * gradient and goes with it */
        const int flip = cfg->amp_flip == i + 1 ||
                         (i == AMP_OP_BIAS_GRAD && cfg->amp_flip == AMP_OP_GEMM + 1);
        c->low[i] = AMP_RULES[i].low ^ flip;
        c->out[i] = AMP_RULES[i].out && !flip;
    }
    wrap(ops, out);
    cur = c;
    return 1;
}

int model_amp_end(amp_ctx *saved, void *stream)
{
    const int rc = flush(stream);
    free(cur);
    cur = saved;
    return rc;
}

/* ---- the plan's sizing pass: a table whose every op does nothing ---- */

static int n_gemm(int ta, int tb, int M, int N, int K, const float *A, int lda, const float *B,
                  int ldb, float beta, float *C, int ldc, void *s)
{
    (void)ta, (void)tb, (void)M, (void)N, (void)K, (void)A, (void)lda, (void)B, (void)ldb;
    (void)beta, (void)C, (void)ldc, (void)s;
    return 0;
}
static int n_conv_fwd(const conv_dims *d, const float *x, const float *w, const float *b,
                      float *y, void *ws, void *s)
{
    (void)d, (void)x, (void)w, (void)b, (void)y, (void)ws, (void)s;
    return 0;
}
static int n_conv_bwd_data(const conv_dims *d, const float *dy, const float *w, float *dx,
                           void *ws, void *s)
{
    (void)d, (void)dy, (void)w, (void)dx, (void)ws, (void)s;
    return 0;
}
static int n_conv_bwd_filter(const conv_dims *d, const float *x, const float *dy, float *dw,
                             float *db, void *ws, void *s)
{
    (void)d, (void)x, (void)dy, (void)dw, (void)db, (void)ws, (void)s;
    return 0;
}
static const conv_ops NULL_CONV = {n_conv_fwd, n_conv_bwd_data, n_conv_bwd_filter, NULL,
                                   NULL, NULL, NULL, NULL};
static int n_rows(int rows, int cols, float *y, const float *b, void *s)
{
    (void)rows, (void)cols, (void)y, (void)b, (void)s;
    return 0;
}
static int n_rows_c(int rows, int cols, const float *dy, float *db, void *s)
{
    (void)rows, (void)cols, (void)dy, (void)db, (void)s;
    return 0;
}
static int n_map(long n, const float *x, float *y, void *s)
{
    (void)n, (void)x, (void)y, (void)s;
    return 0;
}
static int n_map2(long n, const float *a, const float *b, float *y, void *s)
{
    (void)n, (void)a, (void)b, (void)y, (void)s;
    return 0;
}
static int n_pool(int planes, int H, int W, const float *x, float *y, int *arg, void *s)
{
    (void)planes, (void)H, (void)W, (void)x, (void)y, (void)arg, (void)s;
    return 0;
}
static int n_pool_bwd(int planes, int H, int W, const float *dy, const int *arg, float *dx,
                      void *s)
{
    (void)planes, (void)H, (void)W, (void)dy, (void)arg, (void)dx, (void)s;
    return 0;
}
static int n_xent(int rows, int classes, const float *z, const int *labels, float *loss,
                  float *dz, void *s)
{
    (void)rows, (void)classes, (void)z, (void)labels, (void)loss, (void)dz, (void)s;
    return 0;
}
static int n_gemm_batched(int ta, int tb, int M, int N, int K, const float *A, int lda,
                          long long sA, const float *B, int ldb, long long sB, float beta,
                          float *C, int ldc, long long sC, int batch, void *s)
{
    (void)sA, (void)sB, (void)sC, (void)batch;
    return n_gemm(ta, tb, M, N, K, A, lda, B, ldb, beta, C, ldc, s);
}
static int n_permute(int A, int B, int C, int D, const float *x, float *y, void *s)
{
    (void)A, (void)B, (void)C, (void)D, (void)x, (void)y, (void)s;
    return 0;
}
static int n_attn(long rows, int T, float scale, const float *z, float *p, void *s)
{
    (void)rows, (void)T, (void)scale, (void)z, (void)p, (void)s;
    return 0;
}
static int n_attn_bwd(long rows, int T, float scale, const float *p, const float *dp, float *dz,
                      void *s)
{
    (void)rows, (void)T, (void)scale, (void)p, (void)dp, (void)dz, (void)s;
    return 0;
}
static int n_embedding(int rows, int dim, const int *ids, int vocab, const float *table, float *y,
                       int accumulate, void *s)
{
    (void)rows, (void)dim, (void)ids, (void)vocab, (void)table, (void)y, (void)accumulate, (void)s;
    return 0;
}
static int n_embedding_bwd(int rows, int dim, const int *ids, int vocab, const float *dy,
                           float *dtable, void *s)
{
    (void)rows, (void)dim, (void)ids, (void)vocab, (void)dy, (void)dtable, (void)s;
    return 0;
}
static int n_ln(int rows, int dim, const float *x, const float *w, const float *b, float *y,
                float *mean, float *rstd, void *s)
{
    (void)rows, (void)dim, (void)x, (void)w, (void)b, (void)y, (void)mean, (void)rstd, (void)s;
    return 0;
}
static int n_ln_bwd(int rows, int dim, const float *dy, const float *x, const float *w,
                    const float *mean, const float *rstd, float *dx, float *dw, float *db,
                    void *s)
{
    (void)rows, (void)dim, (void)dy, (void)x, (void)w, (void)mean, (void)rstd, (void)dx;
    (void)dw, (void)db, (void)s;
    return 0;
}
static int n_cell(int rows, int H, const float *pre, const float *c_prev, float *gates, float *c,
                  float *h, void *s)
{
    (void)rows, (void)H, (void)pre, (void)c_prev, (void)gates, (void)c, (void)h, (void)s;
    return 0;
}
static int n_cell_bwd(int rows, int H, const float *dh, const float *dc, const float *gates,
                      const float *c_prev, const float *c, float *dpre, float *dc_prev, void *s)
{
    (void)rows, (void)H, (void)dh, (void)dc, (void)gates, (void)c_prev, (void)c, (void)dpre;
    (void)dc_prev, (void)s;
    return 0;
}

static const train_ops NULL_OPS = {
    .gemm = n_gemm, .conv = &NULL_CONV, .bias_add = n_rows, .bias_grad = n_rows_c,
    .relu = n_map, .relu_bwd = n_map2, .maxpool = n_pool, .maxpool_bwd = n_pool_bwd,
    .softmax_xent = n_xent, .gemm_batched = n_gemm_batched, .add = n_map2,
    .permute = n_permute, .attn_softmax = n_attn, .attn_softmax_bwd = n_attn_bwd,
    .embedding = n_embedding, .embedding_bwd = n_embedding_bwd, .layernorm = n_ln,
    .layernorm_bwd = n_ln_bwd, .gelu = n_map, .gelu_bwd = n_map2, .lstm_cell = n_cell,
    .lstm_cell_bwd = n_cell_bwd,
};

int model_amp_count_begin(train_ops *out, amp_ctx **saved)
{
    amp_ctx *c = (amp_ctx *)calloc(1, sizeof *c);
    *saved = cur;
    if (!c) return -1;
    c->base = &NULL_OPS;
    c->counting = 1;
    wrap(&NULL_OPS, out);
    cur = c;
    return 0;
}

long long model_amp_count_end(amp_ctx *saved)
{
    const long long n = cur->used;
    model_amp_end(saved, NULL);
    return n;
}

int amp_rule_find(const char *op)
{
    for (int i = 0; i < AMP_OP_COUNT; i++)
        if (strcmp(op, AMP_RULES[i].op) == 0) return i;
    return -1;
}
