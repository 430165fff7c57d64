/* suites/train/model.c - the model table, the plan's bookkeeping and the one
 * training step (see model.h): forward, loss, backward and the optimizer,
 * the same calls for every backend. Each kind's graph is in its own file
 * (model_chain.c, model_rnn.c, model_lstm.c, model_gpt.c). Plain C: the GPU
 * backends call model_step from the host with a table of device entry
 * points and a stream. */
#include "model_impl.h"
#include "model_amp.h"
#include "errmsg.h"
#include "interrupt.h"
#include "phase.h"
#include "../../ops/loss_scale.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CONV3(a, b, n) {LAYER_CONV, a, b, n}
#define RELU {LAYER_RELU, 0, 0, NULL}
#define POOL {LAYER_POOL, 0, 0, NULL}
#define FC(a, b, n) {LAYER_FC, a, b, n}

const model_def MODELS[] = {
    {.name = "cnn", .kind = MODEL_CHAIN, .classes = 10, .C = 3, .H = 28, .W = 28, .nlayers = 9,
     .layer = {CONV3(3, 16, "conv1"), RELU, POOL, CONV3(16, 32, "conv2"), RELU, POOL,
               FC(32 * 7 * 7, 128, "fc1"), RELU, FC(128, 10, "fc2")}},
    {.name = "mlp", .kind = MODEL_CHAIN, .classes = 10, .C = 784, .H = 1, .W = 1, .nlayers = 5,
     .layer = {FC(784, 1024, "fc1"), RELU, FC(1024, 1024, "fc2"), RELU, FC(1024, 10, "fc3")}},
    {.name = "mlp-small", .kind = MODEL_CHAIN, .classes = 10, .C = 64, .H = 1, .W = 1,
     .nlayers = 3, .layer = {FC(64, 32, "fc1"), RELU, FC(32, 10, "fc2")}},
    {.name = "rnn", .kind = MODEL_RNN, .classes = 64, .seq = 32, .input = 64, .hidden = 128},
    {.name = "lstm", .kind = MODEL_LSTM, .classes = 64, .seq = 32, .input = 64, .hidden = 256,
     .depth = 2},
    {.name = "gpt", .kind = MODEL_GPT, .classes = 256, .seq = 64, .embd = 128, .heads = 4,
     .depth = 2},
    {.name = NULL},
};

const model_def *model_find(const char *name)
{
    for (int i = 0; MODELS[i].name; i++)
        if (strcmp(MODELS[i].name, name) == 0) return &MODELS[i];
    return NULL;
}

long long plan_take(model_plan *pl, long long n)
{
    long long at = pl->scratch_floats;
    pl->scratch_floats += (n + 63) / 64 * 64;
    return at;
}

int plan_param(model_plan *pl, const char *prefix, const char *what, int ndim, const int *shape,
               init_kind init, double bound, long reduction)
{
    if (pl->nparams == pl->param_cap) {
        int cap = pl->param_cap ? 2 * pl->param_cap : 16;
        model_param *q = (model_param *)realloc(pl->param, (size_t)cap * sizeof *q);
        if (!q) return -1;
        pl->param = q;
        pl->param_cap = cap;
    }
    model_param *p = &pl->param[pl->nparams];
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "%s.%s", prefix, what);
    p->ndim = ndim;
    p->n = 1;
    for (int i = 0; i < ndim; i++) {
        p->shape[i] = shape[i];
        p->n *= shape[i];
    }
    p->off = pl->nparam_floats;   /* contiguous, state_dict order: one update for all */
    p->init = init;
    p->bound = bound;
    p->reduction = reduction;
    pl->nparam_floats += p->n;
    return pl->nparams++;
}

void model_plan_free(model_plan *pl)
{
    free(pl->param);
    pl->param = NULL;
    pl->nparams = pl->param_cap = 0;
}

int model_plan_make(const model_def *m, int B, model_plan *pl)
{
    memset(pl, 0, sizeof *pl);
    if (B < 1) return -1;
    pl->m = m;
    pl->B = B;
    pl->amp_ws = -1;
    int rc = -1;
    switch (m->kind) {
    case MODEL_CHAIN: rc = chain_plan(pl); break;
    case MODEL_RNN: rc = rnn_plan(pl); break;
    case MODEL_LSTM: rc = lstm_plan(pl); break;
    case MODEL_GPT: rc = gpt_plan(pl); break;
    }
    if (rc) model_plan_free(pl);
    return rc;
}

static long long opt_floats(const model_plan *pl, opt_kind opt)
{
    return opt == OPT_SGD ? 0 : opt == OPT_MOMENTUM ? pl->nparam_floats
                                                    : 2 * pl->nparam_floats + 1;
}

long long model_state_floats(const model_plan *pl, opt_kind opt)
{
    return opt_floats(pl, opt) + (pl->loss_scaled ? LS_FLOATS : 0);
}

float *model_scaler(const model_plan *pl, opt_kind opt, float *state)
{
    return pl->loss_scaled ? state + opt_floats(pl, opt) : NULL;
}

void model_state_init(const model_plan *pl, opt_kind opt, float *state)
{
    memset(state, 0, (size_t)model_state_floats(pl, opt) * sizeof(float));
    if (pl->loss_scaled) ls_init(model_scaler(pl, opt, state));
}

/* Replicas whose steps are open (model_hold): threads of one process too. */
static volatile int held;

void model_hold(int on) { __sync_fetch_and_add(&held, on ? 1 : -1); }

int model_interrupted(void)
{
    if (!interrupt_signal() || __sync_fetch_and_add(&held, 0) > 0) return 0;
    err_set("interrupted");
    return 1;
}

int linear_fwd(const train_ops *ops, int rows, int in, int out, const float *x, int ldx,
               const float *W, int ldw, const float *b, float *y, void *s)
{
    TRY(ops->gemm(0, 1, rows, out, in, x, ldx, W, ldw, 0.0f, y, out, s));
    if (b) TRY(ops->bias_add(rows, out, y, b, s));
    return 0;
}

int linear_bwd(const train_ops *ops, int rows, int in, int out, const float *x, int ldx,
               const float *W, int ldw, const float *dy, float *dW, float *db, float *dx,
               float beta_dx, void *s)
{
    TRY(ops->gemm(1, 0, out, in, rows, dy, out, x, ldx, 0.0f, dW, ldw, s));
    if (db) TRY(ops->bias_grad(rows, out, dy, db, s));
    if (dx) TRY(ops->gemm(0, 0, rows, in, out, dy, out, W, ldw, beta_dx, dx, ldx, s));
    return 0;
}

unsigned long long model_workspace(const model_plan *pl, const train_ops *ops)
{
    unsigned long long need = 0;
    if (pl->m->kind != MODEL_CHAIN || !ops->conv || !ops->conv->workspace) return 0;
    for (int l = 0; l < pl->m->nlayers; l++) {
        if (pl->m->layer[l].kind != LAYER_CONV) continue;
        for (int dir = 0; dir < CONV_NDIRS; dir++) {
            unsigned long long w = ops->conv->workspace(&pl->layer[l].conv, (conv_dir)dir);
            if (w > need) need = w;
        }
    }
    return need;
}

static int forward(const model_plan *pl, const train_ops *ops, const step_bufs *b, void *s)
{
    switch (pl->m->kind) {
    case MODEL_CHAIN: return chain_forward(pl, ops, b, s, NULL);
    case MODEL_RNN: return rnn_forward(pl, ops, b, s);
    case MODEL_LSTM: return lstm_forward(pl, ops, b, s);
    case MODEL_GPT: return gpt_forward(pl, ops, b, s);
    }
    return -1;
}

static int backward(const model_plan *pl, const train_ops *ops, const step_bufs *b, void *s)
{
    switch (pl->m->kind) {
    case MODEL_CHAIN: return chain_backward(pl, ops, b, s);
    case MODEL_RNN: return rnn_backward(pl, ops, b, s);
    case MODEL_LSTM: return lstm_backward(pl, ops, b, s);
    case MODEL_GPT: return gpt_backward(pl, ops, b, s);
    }
    return -1;
}

static int loss(const model_plan *pl, const train_ops *ops, const step_bufs *b, void *s)
{
    return ops->softmax_xent((int)pl->nlabels, pl->m->classes, b->scratch + pl->logits,
                             b->labels, b->loss, b->scratch + pl->dlogits, s);
}

int model_update(const model_plan *pl, const train_ops *ops, const step_cfg *cfg,
                 const step_bufs *b, void *stream)
{
    long long n = pl->nparam_floats;
    if (cfg->skip_bias_update) n -= pl->param[pl->nparams - 1].n;   /* a planted fault */
    if (cfg->opt == OPT_ADAMW) {
        if (!ops->adamw) {
            err_set("this table has no AdamW");
            return -1;
        }
        long long np = pl->nparam_floats;
        return ops->adamw((long)n, b->params, b->grads, b->state, b->state + np,
                          b->state + 2 * np, cfg->lr, cfg->beta1, cfg->beta2, cfg->eps,
                          cfg->weight_decay, stream);
    }
    return ops->sgd((long)n, b->params, b->grads, cfg->opt == OPT_MOMENTUM ? b->state : NULL,
                    cfg->lr, cfg->momentum, stream);
}

/* Whether the step runs under the loss scaler (amp-fp16). */
static int scaled(const model_plan *pl, const step_cfg *cfg)
{
    return pl->loss_scaled && dtype_info_of(cfg->amp)->loss_scale;
}

/* Whether ops has every entry the model and optimizer call (a table of an
 * older build, or one still being filled, fails with the entry named). */
static int ops_complete(const model_plan *pl, const train_ops *ops, const step_cfg *cfg)
{
#define NEED(e)                                                                     \
    do {                                                                            \
        if (!ops->e) {                                                              \
            err_set("the op table has no %s, which model %s needs", #e, pl->m->name); \
            return 0;                                                               \
        }                                                                           \
    } while (0)
    NEED(gemm);
    NEED(bias_add);
    NEED(bias_grad);
    NEED(softmax_xent);
    NEED(sgd);
    if (cfg->opt == OPT_ADAMW) NEED(adamw);
    if (cfg->shard_weight > 0 && cfg->shard_weight != 1.0f) NEED(scale);
    if (dtype_autocast(cfg->amp) != DTYPE_FP32) NEED(round);
    if (dtype_info_of(cfg->amp)->loss_scale && !pl->loss_scaled) {
        err_set("%s: the plan has no loss scaler state", dtype_name(cfg->amp));
        return 0;
    }
    if (scaled(pl, cfg)) {
        NEED(amp_scale);
        NEED(amp_unscale);
    }
    switch (pl->m->kind) {
    case MODEL_CHAIN:
        NEED(relu);
        NEED(relu_bwd);
        NEED(maxpool);
        NEED(maxpool_bwd);
        if (pl->m->C > 1 || pl->m->H > 1) NEED(conv);
        break;
    case MODEL_LSTM:
        NEED(lstm_cell);
        NEED(lstm_cell_bwd);
        NEED(permute);
        break;
    case MODEL_RNN: NEED(permute); break;
    case MODEL_GPT:
        NEED(permute);
        NEED(gemm_batched);
        NEED(add);
        NEED(attn_softmax);
        NEED(attn_softmax_bwd);
        NEED(embedding);
        NEED(embedding_bwd);
        NEED(layernorm);
        NEED(layernorm_bwd);
        NEED(gelu);
        NEED(gelu_bwd);
        break;
    }
#undef NEED
    return 1;
}

/* Under the loss scaler, GradScaler.scale(loss): the loss gradient times
 * the scale (the loss itself is reported unscaled). */
static int scale_loss(const model_plan *pl, const train_ops *ops, const step_cfg *cfg,
                      const step_bufs *b, void *stream)
{
    if (!scaled(pl, cfg)) return 0;
    return ops->amp_scale(pl->nlabels * pl->m->classes, model_scaler(pl, cfg->opt, b->state),
                          b->scratch + pl->dlogits, stream);
}

static int grads_body(const model_plan *pl, const train_ops *ops, const step_cfg *cfg,
                      const step_bufs *b, void *stream, void *ctx)
{
    (void)ctx;
    phase_mark("forward", stream);
    TRY(forward(pl, ops, b, stream));
    TRY(loss(pl, ops, b, stream));
    if (cfg->shard_weight > 0 && cfg->shard_weight != 1.0f) {
        TRY(ops->scale(pl->nlabels * pl->m->classes, cfg->shard_weight, b->scratch + pl->dlogits,
                       stream));
        TRY(ops->scale(1, cfg->shard_weight, b->loss, stream));
    }
    TRY(scale_loss(pl, ops, cfg, b, stream));
    phase_mark("backward", stream);
    TRY(backward(pl, ops, b, stream));
    return model_grads_ready(b, 0, stream);
}

static int loss_body(const model_plan *pl, const train_ops *ops, const step_cfg *cfg,
                     const step_bufs *b, void *stream, void *ctx)
{
    (void)cfg;
    (void)ctx;
    TRY(forward(pl, ops, b, stream));
    return loss(pl, ops, b, stream);
}

typedef struct replay_args {
    const float *theirs;
    double tol;
    int *flips;
} replay_args;

static int replay_body(const model_plan *pl, const train_ops *ops, const step_cfg *cfg,
                       const step_bufs *b, void *stream, void *ctx)
{
    (void)stream;
    const replay_args *r = (const replay_args *)ctx;
    if (pl->m->kind == MODEL_CHAIN) TRY(chain_replay_forward(pl, ops, b, r->theirs, r->tol, r->flips));
    else TRY(forward(pl, ops, b, NULL));
    TRY(loss(pl, ops, b, NULL));
    TRY(scale_loss(pl, ops, cfg, b, NULL));
    TRY(backward(pl, ops, b, NULL));
    return 0;
}

/* body under cfg's precision: the autocast table over ops for a
 * mixed-precision step (model_amp.h), ops itself otherwise. */
static int run_amp(int (*body)(const model_plan *, const train_ops *, const step_cfg *,
                               const step_bufs *, void *, void *),
                   const model_plan *pl, const train_ops *ops, const step_cfg *cfg,
                   const step_bufs *b, void *stream, void *ctx)
{
    train_ops w;
    amp_ctx *saved;
    if (!ops_complete(pl, ops, cfg)) return -1;
    const replay_args *r = body == replay_body ? (const replay_args *)ctx : NULL;
    const amp_follow follow = {r ? r->theirs : NULL, r ? r->tol : 0.0, r ? r->flips : NULL};
    const int on = model_amp_begin(pl, ops, cfg, b, &follow, &w, &saved);
    if (on < 0) return -1;
    int rc = body(pl, on ? &w : ops, cfg, b, stream, ctx);
    if (on && model_amp_end(saved, stream) && !rc) rc = -1;
    return rc;
}

int model_plan_amp(model_plan *pl)
{
    train_ops w;
    amp_ctx *saved;
    if (pl->amp_ws >= 0) return 0;
    /* the step's calls over a table of no-ops: pointers into buffers at an
     * arbitrary address, never read */
    float *at = (float *)(uintptr_t)4096;
    int *iat = (int *)(uintptr_t)4096;
    step_bufs b = {at, iat, at, at, at, at, at, NULL, NULL, NULL, ~0ull};
    if (model_amp_count_begin(&w, &saved)) return -1;
    const int rc = forward(pl, &w, &b, NULL) || loss(pl, &w, &b, NULL) || backward(pl, &w, &b, NULL);
    const long long n = model_amp_count_end(saved);
    if (rc) return -1;
    pl->amp_floats = n;
    pl->amp_ws = plan_take(pl, n);
    return 0;
}

int model_grads(const model_plan *pl, const train_ops *ops, const step_cfg *cfg,
                const step_bufs *b, void *stream)
{
    return run_amp(grads_body, pl, ops, cfg, b, stream, NULL);
}

int model_loss(const model_plan *pl, const train_ops *ops, const step_cfg *cfg,
               const step_bufs *b, void *stream)
{
    return run_amp(loss_body, pl, ops, cfg, b, stream, NULL);
}

/* The optimizer's update after the gradients; under the loss scaler, the
 * gradients unscaled first and the update skipped (parameters and optimizer
 * state untouched) when one was inf or NaN (GradScaler.unscale_, .step,
 * .update). */
static int scaled_update(const model_plan *pl, const train_ops *ops, const step_cfg *cfg,
                         const step_bufs *b, void *stream)
{
    int found = 0;
    if (scaled(pl, cfg))
        TRY(ops->amp_unscale((long)pl->nparam_floats, b->grads,
                             model_scaler(pl, cfg->opt, b->state), cfg->ls_plant, &found, stream));
    if (found && !cfg->ls_no_skip) return 0;
    return model_update(pl, ops, cfg, b, stream);
}

int model_step(const model_plan *pl, const train_ops *ops, const step_cfg *cfg,
               const step_bufs *b, void *stream)
{
    TRY(model_grads(pl, ops, cfg, b, stream));
    phase_mark("update", stream);
    return scaled_update(pl, ops, cfg, b, stream);
}

int model_replay(const model_plan *pl, const train_ops *ops, const step_cfg *cfg,
                 const step_bufs *b, const float *theirs, double tol, int *flips)
{
    *flips = 0;
    replay_args r = {theirs, tol, flips};
    TRY(run_amp(replay_body, pl, ops, cfg, b, NULL, &r));
    step_cfg c = *cfg;
    c.skip_bias_update = 0;
    c.ls_no_skip = 0;
    return scaled_update(pl, ops, &c, b, NULL);
}
