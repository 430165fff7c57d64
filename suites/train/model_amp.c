/* suites/train/model_amp.c - autocast for the training step: the one list of
 * which ops run in 16 bits and which in fp32 (AMP_RULES), and the op table
 * that applies it over any backend's table (model_amp.h).
 *
 * Like torch.autocast, the state is per thread: model_grads installs it for
 * the step (its thread), the wrappers below read it. A 16-bit op's floating
 * inputs are rounded to the autocast dtype (bf16 or fp16) by the table's own
 * round op into the plan's amp region (in the table's memory: host or
 * device), a log of every operand of the step, each at its own place (the
 * step's calls in order; the plan sizes it by a pass of the step over a
 * table of no-ops), then the table's fp32 op runs on them: a product of two 16-bit
 * values is exact in fp32, so this is a 16-bit GEMM with fp32 accumulation,
 * the same on every backend and in the reference (which sums in double).
 * Outputs stay fp32: PyTorch's autocast rounds a 16-bit op's output to 16
 * bits as well; we keep every stored tensor fp32 (tools/amp_replay.py
 * measures what that changes). Master weights, gradients and optimizer
 * state are fp32.
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
 * lists), for the ops our table has. Every other op (bias_add, relu,
 * max-pool, gelu, the LSTM cell, embedding, add, SGD, AdamW) runs in fp32:
 * in PyTorch they run in their input's dtype, and our inputs are fp32. */
const amp_rule AMP_RULES[AMP_OP_COUNT] = {
    [AMP_OP_GEMM] = {"gemm", "linear, matmul, mm, addmm", 1},
    [AMP_OP_GEMM_BATCHED] = {"gemm_batched", "bmm, baddbmm", 1},
    [AMP_OP_CONV_FWD] = {"conv_fwd", "conv2d", 1},
    [AMP_OP_CONV_BWD_DATA] = {"conv_bwd_data", "conv2d (its backward)", 1},
    [AMP_OP_CONV_BWD_FILTER] = {"conv_bwd_filter", "conv2d (its backward)", 1},
    [AMP_OP_SOFTMAX_XENT] = {"softmax_xent", "cross_entropy, log_softmax, nll_loss", 0},
    [AMP_OP_ATTN_SOFTMAX] = {"attn_softmax", "softmax", 0},
    [AMP_OP_LAYERNORM] = {"layernorm", "layer_norm", 0},
    [AMP_OP_BIAS_GRAD] = {"bias_grad", "sum", 0},
};

typedef struct amp_ctx {
    const train_ops *base;
    dtype_t dt;              /* bf16 or fp16 */
    float *ws;               /* the plan's amp region (table memory): the log */
    long long cap, used;     /* its floats; the log so far */
    int counting;            /* the plan's sizing pass: nothing rounded or run */
    int low[AMP_OP_COUNT];   /* AMP_RULES, with a planted flip */
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

/* x's first n floats rounded into their place of the log (x itself when op
 * runs in fp32, or in the sizing pass). NULL after err_set when the log is
 * full (the step's calls are not the plan's). */
static const float *lowered(int op, const float *x, long long n, void *s)
{
    amp_ctx *c = cur;
    if (!x || n <= 0) return x;
    const long long at = c->used;
    c->used += (n + 63) / 64 * 64;   /* every operand has its place; float4-aligned */
    if (c->counting || !c->low[op]) return x;
    if (c->used > c->cap) {
        err_set("autocast: %s's operand at %lld of the amp log overruns its %lld floats",
                AMP_RULES[op].op, at, c->cap);
        return NULL;
    }
    float *y = c->ws + at;
    if (c->theirs) follow_ties(c, x, at, n, y);
    else if (c->base->round((long)n, c->dt, x, y, s)) return NULL;
    return y;
}

/* Floats an operand spans: rows of ld, the last one cols long. */
static long long span(int rows, int cols, int ld) { return (long long)(rows - 1) * ld + cols; }

#define LOWER(var, op, x, n)                   \
    const float *var = lowered(op, x, n, s); \
    if ((x) && !var) return -1

static int amp_gemm(int ta, int tb, int M, int N, int K, const float *A, int lda, const float *B,
                    int ldb, float beta, float *C, int ldc, void *s)
{
    LOWER(a, AMP_OP_GEMM, A, ta ? span(K, M, lda) : span(M, K, lda));
    LOWER(b, AMP_OP_GEMM, B, tb ? span(N, K, ldb) : span(K, N, ldb));
    return cur->base->gemm(ta, tb, M, N, K, a, lda, b, ldb, beta, C, ldc, s);
}

static int amp_gemm_batched(int ta, int tb, int M, int N, int K, const float *A, int lda,
                            long long sA, const float *B, int ldb, long long sB, float beta,
                            float *C, int ldc, long long sC, int batch, void *s)
{
    LOWER(a, AMP_OP_GEMM_BATCHED, A,
          (batch - 1) * sA + (ta ? span(K, M, lda) : span(M, K, lda)));
    LOWER(b, AMP_OP_GEMM_BATCHED, B,
          (batch - 1) * sB + (tb ? span(N, K, ldb) : span(K, N, ldb)));
    return cur->base->gemm_batched(ta, tb, M, N, K, a, lda, sA, b, ldb, sB, beta, C, ldc, sC,
                                   batch, s);
}

static long long conv_x(const conv_dims *d) { return (long long)d->N * d->C * d->H * d->W; }
static long long conv_w(const conv_dims *d) { return (long long)d->K * d->C * d->R * d->S; }
static long long conv_y(const conv_dims *d) { return (long long)d->N * d->K * d->P * d->Q; }

static int amp_conv_fwd(const conv_dims *d, const float *x, const float *w, const float *b,
                        float *y, void *ws, void *s)
{
    LOWER(xl, AMP_OP_CONV_FWD, x, conv_x(d));
    LOWER(wl, AMP_OP_CONV_FWD, w, conv_w(d));
    return cur->base->conv->fwd(d, xl, wl, b, y, ws, s);   /* the bias added in fp32 */
}

static int amp_conv_bwd_data(const conv_dims *d, const float *dy, const float *w, float *dx,
                             void *ws, void *s)
{
    LOWER(dyl, AMP_OP_CONV_BWD_DATA, dy, conv_y(d));
    LOWER(wl, AMP_OP_CONV_BWD_DATA, w, conv_w(d));
    return cur->base->conv->bwd_data(d, dyl, wl, dx, ws, s);
}

static int amp_conv_bwd_filter(const conv_dims *d, const float *x, const float *dy, float *dw,
                               float *db, void *ws, void *s)
{
    LOWER(xl, AMP_OP_CONV_BWD_FILTER, x, conv_x(d));
    LOWER(dyl, AMP_OP_CONV_BWD_FILTER, dy, conv_y(d));
    return cur->base->conv->bwd_filter(d, xl, dyl, dw, db, ws, s);
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
    LOWER(zl, AMP_OP_SOFTMAX_XENT, z, (long long)rows * classes);
    return cur->base->softmax_xent(rows, classes, zl, labels, loss, dz, s);
}

static int amp_attn_softmax(long rows, int T, float scale, const float *z, float *p, void *s)
{
    LOWER(zl, AMP_OP_ATTN_SOFTMAX, z, (long long)rows * T);
    return cur->base->attn_softmax(rows, T, scale, zl, p, s);
}

static int amp_layernorm(int rows, int dim, const float *x, const float *w, const float *b,
                         float *y, float *mean, float *rstd, void *s)
{
    LOWER(xl, AMP_OP_LAYERNORM, x, (long long)rows * dim);
    return cur->base->layernorm(rows, dim, xl, w, b, y, mean, rstd, s);
}

static int amp_bias_grad(int rows, int cols, const float *dy, float *db, void *s)
{
    LOWER(dyl, AMP_OP_BIAS_GRAD, dy, (long long)rows * cols);
    return cur->base->bias_grad(rows, cols, dyl, db, s);
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
    for (int i = 0; i < AMP_OP_COUNT; i++)
        c->low[i] = AMP_RULES[i].low ^ (cfg->amp_flip == i + 1);   /* a planted wrong precision */
    *out = *ops;
    out->gemm = amp_gemm;
    if (ops->gemm_batched) out->gemm_batched = amp_gemm_batched;
    if (ops->conv) out->conv = &AMP_CONV;
    out->softmax_xent = amp_softmax_xent;
    if (ops->attn_softmax) out->attn_softmax = amp_attn_softmax;
    if (ops->layernorm) out->layernorm = amp_layernorm;
    out->bias_grad = amp_bias_grad;
    cur = c;
    return 1;
}

void model_amp_end(amp_ctx *saved)
{
    free(cur);
    cur = saved;
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
    *out = NULL_OPS;
    out->gemm = amp_gemm;
    out->gemm_batched = amp_gemm_batched;
    out->conv = &AMP_CONV;
    out->softmax_xent = amp_softmax_xent;
    out->attn_softmax = amp_attn_softmax;
    out->layernorm = amp_layernorm;
    out->bias_grad = amp_bias_grad;
    cur = c;
    return 0;
}

long long model_amp_count_end(amp_ctx *saved)
{
    const long long n = cur->used;
    model_amp_end(saved);
    return n;
}

int amp_rule_find(const char *op)
{
    for (int i = 0; i < AMP_OP_COUNT; i++)
        if (strcmp(op, AMP_RULES[i].op) == 0) return i;
    return -1;
}
