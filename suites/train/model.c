/* suites/train/model.c - the models, their plan and the one training step
 * (see model.h). Plain C: the GPU backends call model_step from the host with
 * a table of device entry points and a stream. */
#include "model.h"
#include "errmsg.h"
#include "interrupt.h"
#include "phase.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CONV3(a, b, n) {LAYER_CONV, a, b, n}
#define RELU {LAYER_RELU, 0, 0, NULL}
#define POOL {LAYER_POOL, 0, 0, NULL}
#define FC(a, b, n) {LAYER_FC, a, b, n}

const model_def MODELS[] = {
    {"cnn", 3, 28, 28, 10, 9,
     {CONV3(3, 16, "conv1"), RELU, POOL, CONV3(16, 32, "conv2"), RELU, POOL,
      FC(32 * 7 * 7, 128, "fc1"), RELU, FC(128, 10, "fc2")}},
    {"mlp", 784, 1, 1, 10, 5, {FC(784, 1024, "fc1"), RELU, FC(1024, 1024, "fc2"), RELU,
                               FC(1024, 10, "fc3")}},
    {"mlp-small", 64, 1, 1, 10, 3, {FC(64, 32, "fc1"), RELU, FC(32, 10, "fc2")}},
    {NULL, 0, 0, 0, 0, 0, {{LAYER_RELU, 0, 0, NULL}}},
};

const model_def *model_find(const char *name)
{
    for (int i = 0; MODELS[i].name; i++)
        if (strcmp(MODELS[i].name, name) == 0) return &MODELS[i];
    return NULL;
}

/* 64-float (256-byte) aligned slots, so every tensor suits float4 and TMA-free
 * vector loads on the device. */
static long long take(long long *top, long long n)
{
    long long at = *top;
    *top += (n + 63) / 64 * 64;
    return at;
}

static void add_param(model_plan *pl, const char *layer, const char *what, int ndim,
                      const int *shape, long reduction)
{
    model_param *p = &pl->param[pl->nparams++];
    snprintf(p->name, sizeof p->name, "%s.%s", layer, what);
    p->ndim = ndim;
    p->n = 1;
    for (int i = 0; i < ndim; i++) {
        p->shape[i] = shape[i];
        p->n *= shape[i];
    }
    p->off = pl->nparam_floats;   /* contiguous, state_dict order: one SGD call for all */
    p->reduction = reduction;
    pl->nparam_floats += p->n;
}

int model_plan_make(const model_def *m, int B, model_plan *pl)
{
    long long top = 0, act = -1, dact = -1;
    int C = m->C, H = m->H, W = m->W;
    double flops = 0;
    long red = 0;
    memset(pl, 0, sizeof *pl);
    if (B < 1) return -1;
    pl->m = m;
    pl->B = B;
    pl->in_floats = (long long)B * C * H * W;
    for (int l = 0; l < m->nlayers; l++) {
        const model_layer *ly = &m->layer[l];
        plan_layer *L = &pl->layer[l];
        long long n_in = (long long)B * C * H * W;
        L->in = act;
        L->din = l == 0 ? -1 : dact;
        L->C = C, L->H = H, L->W = W;
        L->wparam = -1;
        L->arg = -1;
        switch (ly->kind) {
        case LAYER_CONV: {
            conv_dims d = {B, C, H, W, ly->cout, 3, 3, 1, 1, 1, 1, 0, 0};
            conv_dims_finish(&d);
            L->conv = d;
            L->oC = ly->cout, L->oH = d.P, L->oW = d.Q;
            L->wparam = pl->nparams;
            int ws[4] = {ly->cout, C, 3, 3}, bs[1] = {ly->cout};
            add_param(pl, ly->name, "weight", 4, ws, (long)B * d.P * d.Q);
            add_param(pl, ly->name, "bias", 1, bs, (long)B * d.P * d.Q);
            L->out = take(&top, conv_y_elems(&d));
            L->dout = take(&top, conv_y_elems(&d));
            flops += conv_flops(&d, CONV_FWD) + conv_flops(&d, CONV_BWD_FILTER);
            red += conv_reduction(&d, CONV_FWD) + conv_reduction(&d, CONV_BWD_FILTER);
            if (L->din >= 0) {
                flops += conv_flops(&d, CONV_BWD_DATA);
                red += conv_reduction(&d, CONV_BWD_DATA);
            }
            break;
        }
        case LAYER_RELU: /* in place: its output and gradient are its input's */
            L->oC = C, L->oH = H, L->oW = W;
            L->out = act;
            L->dout = dact;
            break;
        case LAYER_POOL:
            L->oC = C, L->oH = H / 2, L->oW = W / 2;
            L->out = take(&top, (long long)B * C * (H / 2) * (W / 2));
            L->dout = take(&top, (long long)B * C * (H / 2) * (W / 2));
            L->arg = take(&top, (long long)B * C * (H / 2) * (W / 2));
            break;
        case LAYER_FC: {
            int in = C * H * W, out = ly->cout;
            if (in != ly->cin) return -1;   /* a model table error */
            L->oC = out, L->oH = 1, L->oW = 1;
            L->wparam = pl->nparams;
            int ws[2] = {out, in}, bs[1] = {out};
            add_param(pl, ly->name, "weight", 2, ws, B);
            add_param(pl, ly->name, "bias", 1, bs, B);
            L->out = take(&top, (long long)B * out);
            L->dout = take(&top, (long long)B * out);
            /* forward x W^T + b; dW = dY^T x, db; dX = dY W (not for the first layer) */
            flops += 2.0 * B * out * in + (double)B * out;
            flops += 2.0 * B * out * in + (double)B * out;
            red += in + B;
            if (L->din >= 0) {
                flops += 2.0 * B * out * in;
                red += out;
            }
            break;
        }
        }
        (void)n_in;
        act = L->out;
        dact = L->dout;
        C = L->oC, H = L->oH, W = L->oW;
    }
    if (C * H * W != m->classes) return -1;
    pl->logits = act;
    pl->dlogits = dact;
    pl->scratch_floats = top;
    flops += 2.0 * (double)pl->nparam_floats;   /* SGD: p -= lr * g */
    red += m->classes;                          /* the loss sums over classes */
    pl->flops = flops;
    pl->longest_reduction = red;
    return 0;
}

unsigned long long model_workspace(const model_plan *pl, const train_ops *ops)
{
    unsigned long long need = 0;
    if (!ops->conv || !ops->conv->workspace) return 0;
    for (int l = 0; l < pl->m->nlayers; l++) {
        if (pl->m->layer[l].kind != LAYER_CONV) continue;
        for (int dir = 0; dir < CONV_NDIRS; dir++) {
            unsigned long long w = ops->conv->workspace(&pl->layer[l].conv, (conv_dir)dir);
            if (w > need) need = w;
        }
    }
    return need;
}

#define TRY(call)                  \
    do {                           \
        if ((call) != 0) return -1; \
    } while (0)

/* Between layers: a Ctrl-C abandons the step (a reference step at batch
 * 4096 takes a minute). */
static int interrupted(void)
{
    if (!interrupt_signal()) return 0;
    err_set("interrupted");
    return 1;
}

static const float *act_in(const plan_layer *L, const step_bufs *b)
{
    return L->in < 0 ? b->x : b->scratch + L->in;
}

/* Replaying another run's decisions (model_replay): its activations, the
 * bound within which a decision may go either way, what was found. */
typedef struct decide_ctx {
    const float *theirs;     /* their scratch area (same plan) */
    double tol;              /* the step's tolerance: a tie is within 3 * tol * rms */
    int flips;
    char *why;
    size_t whycap;
} decide_ctx;

static double rms_of(const float *x, long long n)
{
    double s = 0;
    for (long long i = 0; i < n; i++) s += (double)x[i] * x[i];
    return n ? sqrt(s / (double)n) : 0;
}

/* Before ReLU layer l: where their ReLU decided otherwise than ours, the
 * pre-activation must be within rounding of 0; ours then takes their output
 * (after the ReLU, see relu_adopt). Returns 0, or -1 naming a real mismatch. */
static int relu_decide(decide_ctx *dc, const model_plan *pl, int l, const float *v, long long n,
                       unsigned char *flip)
{
    const float *t = dc->theirs + pl->layer[l].out;
    double delta = 3.0 * dc->tol * rms_of(v, n);
    for (long long i = 0; i < n; i++) {
        flip[i] = (v[i] > 0) != (t[i] > 0);
        if (!flip[i]) continue;
        if (fabs((double)v[i]) > delta) {
            snprintf(dc->why, dc->whycap,
                     "ReLU (layer %d) element %lld: pre-activation %.7g but output %.7g, "
                     "beyond a tie (%.3g)", l + 1, i, v[i], t[i], delta);
            return -1;
        }
        dc->flips++;
    }
    return 0;
}

/* After max-pool layer l: where their argmax differs from ours, the two
 * values must be within rounding of each other; ours then takes theirs. */
static int pool_decide(decide_ctx *dc, const model_plan *pl, int l, const float *x, float *y,
                       int *arg)
{
    const plan_layer *L = &pl->layer[l];
    const int *ta = (const int *)(dc->theirs + L->arg);
    long long planes = (long long)pl->B * L->C, per_in = (long long)L->H * L->W;
    long long per_out = (long long)L->oH * L->oW;
    double delta = 3.0 * dc->tol * rms_of(x, planes * per_in);
    for (long long pi = 0; pi < planes; pi++)
        for (long long o = 0; o < per_out; o++) {
            long long k = pi * per_out + o;
            int a = arg[k], b = ta[k];
            if (a == b) continue;
            /* their pick must lie in this output's window and tie with the max */
            int oh = (int)(o / L->oW), ow = (int)(o % L->oW), bh = b / L->W, bw = b % L->W;
            if (b < 0 || b >= per_in || bh / 2 != oh || bw / 2 != ow ||
                (double)x[pi * per_in + a] - x[pi * per_in + b] > delta) {
                snprintf(dc->why, dc->whycap,
                         "max-pool (layer %d) output %lld: argmax %d, cpu-naive %d: not a tie",
                         l + 1, k, b, a);
                return -1;
            }
            arg[k] = b;
            y[k] = x[pi * per_in + b];
            dc->flips++;
        }
    return 0;
}

static int forward(const model_plan *pl, const train_ops *ops, const step_bufs *b, void *s,
                   decide_ctx *dc)
{
    for (int l = 0; l < pl->m->nlayers; l++) {
        const plan_layer *L = &pl->layer[l];
        const model_layer *ly = &pl->m->layer[l];
        const float *in = act_in(L, b);
        float *out = b->scratch + L->out;
        int B = pl->B;
        if (interrupted()) return -1;
        switch (ly->kind) {
        case LAYER_CONV: {
            const model_param *w = &pl->param[L->wparam];
            TRY(ops->conv->fwd(&L->conv, in, b->params + w->off, b->params + w[1].off, out, b->ws,
                               s));
            break;
        }
        case LAYER_RELU: {
            long long n = (long long)B * L->C * L->H * L->W;
            unsigned char *flip = NULL;
            if (dc) {
                if (!(flip = (unsigned char *)malloc((size_t)n))) {
                    err_set("out of memory replaying a step");
                    return -1;
                }
                if (relu_decide(dc, pl, l, out, n, flip)) {
                    free(flip);
                    err_set("%s", dc->why);
                    return -1;
                }
            }
            int rc = ops->relu((long)n, out, out, s);
            if (dc) {
                for (long long i = 0; i < n; i++)
                    if (flip[i]) out[i] = dc->theirs[L->out + i] > 0 ? dc->theirs[L->out + i] : 0;
                free(flip);
            }
            TRY(rc);
            break;
        }
        case LAYER_POOL:
            TRY(ops->maxpool(B * L->C, L->H, L->W, in, out, (int *)(b->scratch + L->arg), s));
            if (dc && pool_decide(dc, pl, l, in, out, (int *)(b->scratch + L->arg))) {
                err_set("%s", dc->why);
                return -1;
            }
            break;
        case LAYER_FC: {
            const model_param *w = &pl->param[L->wparam];
            int cin = ly->cin, cout = ly->cout;
            TRY(ops->gemm(0, 1, B, cout, cin, in, cin, b->params + w->off, cin, 0.0f, out, cout, s));
            TRY(ops->bias_add(B, cout, out, b->params + w[1].off, s));
            break;
        }
        }
    }
    return 0;
}

static int backward(const model_plan *pl, const train_ops *ops, const step_bufs *b, void *s)
{
    for (int l = pl->m->nlayers - 1; l >= 0; l--) {
        const plan_layer *L = &pl->layer[l];
        const model_layer *ly = &pl->m->layer[l];
        const float *in = act_in(L, b);
        const float *dout = b->scratch + L->dout;
        float *din = L->din >= 0 ? b->scratch + L->din : NULL;
        int B = pl->B;
        if (interrupted()) return -1;
        switch (ly->kind) {
        case LAYER_CONV: {
            const model_param *w = &pl->param[L->wparam];
            TRY(ops->conv->bwd_filter(&L->conv, in, dout, b->grads + w->off, b->grads + w[1].off,
                                      b->ws, s));
            if (din) TRY(ops->conv->bwd_data(&L->conv, dout, b->params + w->off, din, b->ws, s));
            break;
        }
        case LAYER_RELU:
            if (din)
                TRY(ops->relu_bwd((long)B * L->C * L->H * L->W, b->scratch + L->out, dout, din, s));
            break;
        case LAYER_POOL:
            if (din)
                TRY(ops->maxpool_bwd(B * L->C, L->H, L->W, dout, (const int *)(b->scratch + L->arg),
                                     din, s));
            break;
        case LAYER_FC: {
            const model_param *w = &pl->param[L->wparam];
            int cin = ly->cin, cout = ly->cout;
            TRY(ops->gemm(1, 0, cout, cin, B, dout, cout, in, cin, 0.0f, b->grads + w->off, cin, s));
            TRY(ops->bias_grad(B, cout, dout, b->grads + w[1].off, s));
            if (din)
                TRY(ops->gemm(0, 0, B, cin, cout, dout, cout, b->params + w->off, cin, 0.0f, din,
                              cin, s));
            break;
        }
        }
    }
    return 0;
}

int model_step(const model_plan *pl, const train_ops *ops, const step_cfg *cfg,
               const step_bufs *b, void *stream)
{
    long long n = pl->nparam_floats;
    if (cfg->skip_bias_update) n -= pl->param[pl->nparams - 1].n;   /* the last bias */
    phase_mark("forward", stream);
    TRY(forward(pl, ops, b, stream, NULL));
    TRY(ops->softmax_xent(pl->B, pl->m->classes, b->scratch + pl->logits, b->labels, b->loss,
                          b->scratch + pl->dlogits, stream));
    phase_mark("backward", stream);
    TRY(backward(pl, ops, b, stream));
    phase_mark("update", stream);
    TRY(ops->sgd((long)n, b->params, b->grads, cfg->momentum > 0 ? b->mom : NULL, cfg->lr,
                 cfg->momentum, stream));
    return 0;
}

int model_replay(const model_plan *pl, const train_ops *ops, const step_cfg *cfg,
                 const step_bufs *b, const float *theirs, double tol, int *flips)
{
    char why[256] = "";
    decide_ctx dc = {theirs, tol, 0, why, sizeof why};
    *flips = 0;
    TRY(forward(pl, ops, b, NULL, &dc));
    *flips = dc.flips;
    TRY(ops->softmax_xent(pl->B, pl->m->classes, b->scratch + pl->logits, b->labels, b->loss,
                          b->scratch + pl->dlogits, NULL));
    TRY(backward(pl, ops, b, NULL));
    TRY(ops->sgd((long)pl->nparam_floats, b->params, b->grads, cfg->momentum > 0 ? b->mom : NULL,
                 cfg->lr, cfg->momentum, NULL));
    return 0;
}
