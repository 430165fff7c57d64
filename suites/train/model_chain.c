/* suites/train/model_chain.c - the layer-chain models (cnn, mlp, mlp-small;
 * model.h): conv 3x3 pad 1, ReLU, 2x2 max-pool and linear layers one after
 * another, ending in the logits. Also the replay of another run's ReLU and
 * max-pool decisions (model_replay), the only models that take any. */
#include "model_impl.h"
#include "errmsg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int chain_plan(model_plan *pl)
{
    const model_def *m = pl->m;
    const int B = pl->B;
    long long act = -1, dact = -1;
    int C = m->C, H = m->H, W = m->W;
    double flops = 0;
    long red = 0;
    pl->in_slots = (long long)B * C * H * W;
    pl->nlabels = B;
    for (int l = 0; l < m->nlayers; l++) {
        const model_layer *ly = &m->layer[l];
        plan_layer *L = &pl->layer[l];
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
            double bound = 1.0 / sqrt((double)C * 9);   /* 1/sqrt(fan_in), weight and bias */
            if (plan_param(pl, ly->name, "weight", 4, ws, INIT_UNIFORM, bound, (long)B * d.P * d.Q) < 0 ||
                plan_param(pl, ly->name, "bias", 1, bs, INIT_UNIFORM, bound, (long)B * d.P * d.Q) < 0)
                return -1;
            L->out = plan_take(pl, conv_y_elems(&d));
            L->dout = plan_take(pl, conv_y_elems(&d));
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
            L->out = plan_take(pl, (long long)B * C * (H / 2) * (W / 2));
            L->dout = plan_take(pl, (long long)B * C * (H / 2) * (W / 2));
            L->arg = plan_take(pl, (long long)B * C * (H / 2) * (W / 2));
            break;
        case LAYER_FC: {
            int in = C * H * W, out = ly->cout;
            if (in != ly->cin) return -1;   /* a model table error */
            L->oC = out, L->oH = 1, L->oW = 1;
            L->wparam = pl->nparams;
            int ws[2] = {out, in}, bs[1] = {out};
            double bound = 1.0 / sqrt((double)in);
            if (plan_param(pl, ly->name, "weight", 2, ws, INIT_UNIFORM, bound, B) < 0 ||
                plan_param(pl, ly->name, "bias", 1, bs, INIT_UNIFORM, bound, B) < 0)
                return -1;
            L->out = plan_take(pl, (long long)B * out);
            L->dout = plan_take(pl, (long long)B * out);
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
        act = L->out;
        dact = L->dout;
        C = L->oC, H = L->oH, W = L->oW;
    }
    if (C * H * W != m->classes) return -1;
    pl->logits = act;
    pl->dlogits = dact;
    flops += 2.0 * (double)pl->nparam_floats;   /* SGD: p -= lr * g */
    red += m->classes;                          /* the loss sums over classes */
    pl->flops = flops;
    pl->longest_reduction = red;
    return 0;
}


static const float *act_in(const plan_layer *L, const step_bufs *b)
{
    return L->in < 0 ? (const float *)b->x : b->scratch + L->in;
}

/* Replaying another run's decisions (model_replay): its activations, the
 * bound within which a decision may go either way, what was found. */
struct decide_ctx {
    const float *theirs;     /* their scratch area (same plan) */
    double tol;              /* the step's tolerance: a tie is within 3 * tol * rms */
    int flips;
    char *why;
    size_t whycap;
};

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

/* The workspace layer L's conv call in direction dir needs with ops (its own
 * plan: a data-parallel shard's dims, not the full batch's) fits the step's:
 * 0, or -1 with err_set naming both sizes. */
static int conv_ws_fits(const train_ops *ops, const plan_layer *L, conv_dir dir,
                        const step_bufs *b)
{
    const unsigned long long need = ops->conv->workspace ? ops->conv->workspace(&L->conv, dir) : 0;
    if (need <= b->ws_bytes) return 0;
    err_set("conv N=%d C=%d %dx%d K=%d %s: needs a workspace of %llu bytes, the step has %llu",
            L->conv.N, L->conv.C, L->conv.H, L->conv.W, L->conv.K,
            dir == CONV_FWD ? "fwd" : dir == CONV_BWD_DATA ? "bwd-data" : "bwd-filter", need,
            b->ws_bytes);
    return -1;
}

int chain_forward(const model_plan *pl, const train_ops *ops, const step_bufs *b, void *s,
                  decide_ctx *dc)
{
    for (int l = 0; l < pl->m->nlayers; l++) {
        const plan_layer *L = &pl->layer[l];
        const model_layer *ly = &pl->m->layer[l];
        const float *in = act_in(L, b);
        float *out = b->scratch + L->out;
        int B = pl->B;
        if (model_interrupted()) return -1;
        switch (ly->kind) {
        case LAYER_CONV: {
            const model_param *w = &pl->param[L->wparam];
            TRY(conv_ws_fits(ops, L, CONV_FWD, b));
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

int chain_backward(const model_plan *pl, const train_ops *ops, const step_bufs *b, void *s)
{
    for (int l = pl->m->nlayers - 1; l >= 0; l--) {
        const plan_layer *L = &pl->layer[l];
        const model_layer *ly = &pl->m->layer[l];
        const float *in = act_in(L, b);
        const float *dout = b->scratch + L->dout;
        float *din = L->din >= 0 ? b->scratch + L->din : NULL;
        int B = pl->B;
        if (model_interrupted()) return -1;
        switch (ly->kind) {
        case LAYER_CONV: {
            const model_param *w = &pl->param[L->wparam];
            TRY(conv_ws_fits(ops, L, CONV_BWD_FILTER, b));
            TRY(ops->conv->bwd_filter(&L->conv, in, dout, b->grads + w->off, b->grads + w[1].off,
                                      b->ws, s));
            TRY(model_grads_ready(b, L->wparam, s));
            if (din) {
                TRY(conv_ws_fits(ops, L, CONV_BWD_DATA, b));
                TRY(ops->conv->bwd_data(&L->conv, dout, b->params + w->off, din, b->ws, s));
            }
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
            TRY(model_grads_ready(b, L->wparam, s));
            if (din)
                TRY(ops->gemm(0, 0, B, cin, cout, dout, cout, b->params + w->off, cin, 0.0f, din,
                              cin, s));
            break;
        }
        }
    }
    return 0;
}


int chain_replay_forward(const model_plan *pl, const train_ops *ops, const step_bufs *b,
                         const float *theirs, double tol, int *flips)
{
    char why[256] = "";
    decide_ctx dc = {theirs, tol, 0, why, sizeof why};
    int rc = chain_forward(pl, ops, b, NULL, &dc);
    *flips = dc.flips;
    return rc;
}
