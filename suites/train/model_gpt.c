/* suites/train/model_gpt.c - a GPT-2 style decoder (model.h): token and
 * position embeddings, `depth` pre-LayerNorm blocks
 *     x = x + attn(ln_1(x));  x = x + mlp(ln_2(x))
 * (causal multi-head self-attention with c_attn = Linear(E, 3E) split into
 * q | k | v and c_proj = Linear(E, E); mlp = c_fc Linear(E, 4E), GELU tanh,
 * c_proj Linear(4E, E)), ln_f and lm_head = Linear(E, V, bias=False); no
 * dropout, no weight tying; loss cross-entropy of the next token over B*T.
 * Parameters in state_dict order: wte.weight, wpe.weight, h.<i>.ln_1.weight,
 * .ln_1.bias, .attn.c_attn.weight, .bias, .attn.c_proj.weight, .bias,
 * .ln_2.weight, .bias, .mlp.c_fc.weight, .bias, .mlp.c_proj.weight, .bias,
 * ln_f.weight, ln_f.bias, lm_head.weight (2 + 12 * depth + 3 tensors).
 *
 * Rows are [B][T] (R = B*T of them). Attention: qkv [R][3E] is permuted to
 * q, k, v [R][E] each, and each to heads [B][NH][T][D]; scores Q K^T and
 * P V are gemm_batched over the B*NH heads, the causal softmax (scale
 * 1/sqrt(D)) is attn_softmax, in place over the scores. Gradients of the
 * residual stream accumulate with add: dx holds dL/dx of the stream while
 * the blocks are walked backwards, each LayerNorm's input gradient added in. */
#include "model_impl.h"

#include <math.h>
#include <stdio.h>

/* a block's parameters, from its first (ln_1.weight) */
enum { P_LN1W, P_LN1B, P_CAW, P_CAB, P_CPW, P_CPB, P_LN2W, P_LN2B, P_FCW, P_FCB, P_MPW, P_MPB,
       P_BLOCK };

static int block_params(model_plan *pl, int i, int E)
{
    char pre[3][32];
    snprintf(pre[0], sizeof pre[0], "h.%d", i);
    snprintf(pre[1], sizeof pre[1], "h.%d.attn", i);
    snprintf(pre[2], sizeof pre[2], "h.%d.mlp", i);
    const double bE = 1.0 / sqrt((double)E), b4E = 1.0 / sqrt(4.0 * E);
    const long R = (long)pl->B * pl->m->seq;
    int vE[1] = {E}, ca[2] = {3 * E, E}, ca1[1] = {3 * E}, cp[2] = {E, E}, fc[2] = {4 * E, E},
        fc1[1] = {4 * E}, mp[2] = {E, 4 * E};
    int first = plan_param(pl, pre[0], "ln_1.weight", 1, vE, INIT_ONES, 0, R);
    if (first < 0 || plan_param(pl, pre[0], "ln_1.bias", 1, vE, INIT_ZEROS, 0, R) < 0 ||
        plan_param(pl, pre[1], "c_attn.weight", 2, ca, INIT_UNIFORM, bE, R) < 0 ||
        plan_param(pl, pre[1], "c_attn.bias", 1, ca1, INIT_UNIFORM, bE, R) < 0 ||
        plan_param(pl, pre[1], "c_proj.weight", 2, cp, INIT_UNIFORM, bE, R) < 0 ||
        plan_param(pl, pre[1], "c_proj.bias", 1, vE, INIT_UNIFORM, bE, R) < 0 ||
        plan_param(pl, pre[0], "ln_2.weight", 1, vE, INIT_ONES, 0, R) < 0 ||
        plan_param(pl, pre[0], "ln_2.bias", 1, vE, INIT_ZEROS, 0, R) < 0 ||
        plan_param(pl, pre[2], "c_fc.weight", 2, fc, INIT_UNIFORM, bE, R) < 0 ||
        plan_param(pl, pre[2], "c_fc.bias", 1, fc1, INIT_UNIFORM, bE, R) < 0 ||
        plan_param(pl, pre[2], "c_proj.weight", 2, mp, INIT_UNIFORM, b4E, R) < 0 ||
        plan_param(pl, pre[2], "c_proj.bias", 1, vE, INIT_UNIFORM, b4E, R) < 0)
        return -1;
    return first;
}

int gpt_plan(model_plan *pl)
{
    const model_def *m = pl->m;
    const int B = pl->B, T = m->seq, E = m->embd, NH = m->heads, V = m->classes;
    const long R = (long)B * T;
    if (NH < 1 || E % NH || m->depth < 1 || m->depth > MODEL_MAX_DEPTH) return -1;
    const int D = E / NH;
    int wte[2] = {V, E}, wpe[2] = {T, E}, vE[1] = {E}, head[2] = {V, E};
    if (plan_param(pl, "wte", "weight", 2, wte, INIT_NORMAL, 0, R) < 0 ||
        plan_param(pl, "wpe", "weight", 2, wpe, INIT_NORMAL, 0, B) < 0)
        return -1;
    const long long RE = R * E, att = (long long)B * NH * T * T;
    pl->x0 = plan_take(pl, RE);
    for (int i = 0; i < m->depth; i++) {
        seq_layer *L = &pl->seq[i];
        if ((L->p0 = block_params(pl, i, E)) < 0) return -1;
        L->ln1 = plan_take(pl, RE);
        L->mean1 = plan_take(pl, R);
        L->rstd1 = plan_take(pl, R);
        L->qkv = plan_take(pl, 3 * RE);
        L->qkvp = plan_take(pl, 3 * RE);
        L->qh = plan_take(pl, 3 * RE);
        L->att = plan_take(pl, att);
        L->yh = plan_take(pl, RE);
        L->y = plan_take(pl, RE);
        L->xm = plan_take(pl, RE);
        L->ln2 = plan_take(pl, RE);
        L->mean2 = plan_take(pl, R);
        L->rstd2 = plan_take(pl, R);
        L->fc = plan_take(pl, 4 * RE);
        L->gelu = plan_take(pl, 4 * RE);
        L->xout = plan_take(pl, RE);
    }
    int lnf = plan_param(pl, "ln_f", "weight", 1, vE, INIT_ONES, 0, R);
    if (lnf < 0 || plan_param(pl, "ln_f", "bias", 1, vE, INIT_ZEROS, 0, R) < 0) return -1;
    pl->p_head = plan_param(pl, "lm_head", "weight", 2, head, INIT_UNIFORM, 1.0 / sqrt((double)E), R);
    if (pl->p_head < 0) return -1;
    pl->x_ids = 1;
    pl->in_slots = R;
    pl->nlabels = R;
    pl->lnf = plan_take(pl, RE);
    pl->meanf = plan_take(pl, R);
    pl->rstdf = plan_take(pl, R);
    pl->logits = plan_take(pl, R * V);
    pl->dlogits = plan_take(pl, R * V);
    pl->dx = plan_take(pl, RE);
    pl->dtmp = plan_take(pl, RE);
    pl->dln = plan_take(pl, RE);
    pl->dbig = plan_take(pl, 4 * RE);
    pl->dqkv = plan_take(pl, 3 * RE);
    pl->dqkvp = plan_take(pl, 3 * RE);
    pl->dqh = plan_take(pl, 3 * RE);
    pl->datt = plan_take(pl, att);
    pl->dyh = plan_take(pl, RE);
    const double r = (double)R, e = E;
    const double gemm = 24.0 * r * e * e + 4.0 * B * (double)T * T * e;   /* a block, forward */
    pl->flops = 3.0 * (m->depth * gemm + 2.0 * r * e * V) + 2.0 * (double)pl->nparam_floats;
    pl->longest_reduction = 2L * m->depth * (8L * E + D + T) + 2L * (E + V) + R;
    return 0;
}

static const float *stream_in(const model_plan *pl, const step_bufs *b, int i)
{
    return b->scratch + (i ? pl->seq[i - 1].xout : pl->x0);
}

int gpt_forward(const model_plan *pl, const train_ops *ops, const step_bufs *b, void *s)
{
    const model_def *m = pl->m;
    const int B = pl->B, T = m->seq, E = m->embd, NH = m->heads, V = m->classes, D = E / NH;
    const int R = B * T;
    const long long RE = (long long)R * E, TD = (long long)T * D, TT = (long long)T * T;
    const float scale = (float)(1.0 / sqrt((double)D));
    float *sc = b->scratch;
    const float *P = b->params;
    TRY(ops->embedding(R, E, (const int *)b->x, V, P + pl->param[0].off, sc + pl->x0, 0, s));
    TRY(ops->embedding(R, E, NULL, T, P + pl->param[1].off, sc + pl->x0, 1, s));
    for (int i = 0; i < m->depth; i++) {
        const seq_layer *L = &pl->seq[i];
        const model_param *q = &pl->param[L->p0];
#define W(k) (P + q[k].off)
        const float *x = stream_in(pl, b, i);
        float *qh = sc + L->qh, *att = sc + L->att;
        if (model_interrupted()) return -1;
        TRY(ops->layernorm(R, E, x, W(P_LN1W), W(P_LN1B), sc + L->ln1, sc + L->mean1,
                           sc + L->rstd1, s));
        TRY(linear_fwd(ops, R, E, 3 * E, sc + L->ln1, E, W(P_CAW), E, W(P_CAB), sc + L->qkv, s));
        TRY(ops->permute(1, R, 3, E, sc + L->qkv, sc + L->qkvp, s));
        for (int k = 0; k < 3; k++)
            TRY(ops->permute(B, T, NH, D, sc + L->qkvp + k * RE, qh + k * RE, s));
        TRY(ops->gemm_batched(0, 1, T, T, D, qh, D, TD, qh + RE, D, TD, 0.0f, att, T, TT, B * NH, s));
        TRY(ops->attn_softmax((long)B * NH * T, T, scale, att, att, s));
        TRY(ops->gemm_batched(0, 0, T, D, T, att, T, TT, qh + 2 * RE, D, TD, 0.0f, sc + L->yh, D, TD,
                              B * NH, s));
        TRY(ops->permute(B, NH, T, D, sc + L->yh, sc + L->y, s));
        TRY(linear_fwd(ops, R, E, E, sc + L->y, E, W(P_CPW), E, W(P_CPB), sc + L->xm, s));
        TRY(ops->add(RE, sc + L->xm, x, sc + L->xm, s));
        TRY(ops->layernorm(R, E, sc + L->xm, W(P_LN2W), W(P_LN2B), sc + L->ln2, sc + L->mean2,
                           sc + L->rstd2, s));
        TRY(linear_fwd(ops, R, E, 4 * E, sc + L->ln2, E, W(P_FCW), E, W(P_FCB), sc + L->fc, s));
        TRY(ops->gelu(4 * RE, sc + L->fc, sc + L->gelu, s));
        TRY(linear_fwd(ops, R, 4 * E, E, sc + L->gelu, 4 * E, W(P_MPW), 4 * E, W(P_MPB),
                       sc + L->xout, s));
        TRY(ops->add(RE, sc + L->xout, sc + L->xm, sc + L->xout, s));
#undef W
    }
    const model_param *lnf = &pl->param[pl->p_head - 2];
    TRY(ops->layernorm(R, E, stream_in(pl, b, m->depth), P + lnf[0].off, P + lnf[1].off,
                       sc + pl->lnf, sc + pl->meanf, sc + pl->rstdf, s));
    return linear_fwd(ops, R, E, V, sc + pl->lnf, E, P + pl->param[pl->p_head].off, E, NULL,
                      sc + pl->logits, s);
}

int gpt_backward(const model_plan *pl, const train_ops *ops, const step_bufs *b, void *s)
{
    const model_def *m = pl->m;
    const int B = pl->B, T = m->seq, E = m->embd, NH = m->heads, V = m->classes, D = E / NH;
    const int R = B * T;
    const long long RE = (long long)R * E, TD = (long long)T * D, TT = (long long)T * T;
    const float scale = (float)(1.0 / sqrt((double)D));
    float *sc = b->scratch, *G = b->grads;
    const float *P = b->params;
    float *dx = sc + pl->dx, *dtmp = sc + pl->dtmp, *dln = sc + pl->dln, *dbig = sc + pl->dbig;
    float *dqh = sc + pl->dqh, *datt = sc + pl->datt, *dyh = sc + pl->dyh;
    const model_param *lnf = &pl->param[pl->p_head - 2], *head = &pl->param[pl->p_head];
    TRY(linear_bwd(ops, R, E, V, sc + pl->lnf, E, P + head->off, E, sc + pl->dlogits,
                   G + head->off, NULL, dln, 0.0f, s));
    TRY(model_grads_ready(b, pl->p_head, s));
    TRY(ops->layernorm_bwd(R, E, dln, stream_in(pl, b, m->depth), P + lnf[0].off, sc + pl->meanf,
                           sc + pl->rstdf, dx, G + lnf[0].off, G + lnf[1].off, s));
    TRY(model_grads_ready(b, pl->p_head - 2, s));
    for (int i = m->depth - 1; i >= 0; i--) {
        const seq_layer *L = &pl->seq[i];
        const model_param *q = &pl->param[L->p0];
#define W(k) (P + q[k].off)
#define DW(k) (G + q[k].off)
        const float *qh = sc + L->qh, *att = sc + L->att;
        if (model_interrupted()) return -1;
        /* mlp: dx is dL/d(the block's output) */
        TRY(linear_bwd(ops, R, 4 * E, E, sc + L->gelu, 4 * E, W(P_MPW), 4 * E, dx, DW(P_MPW),
                       DW(P_MPB), dbig, 0.0f, s));
        TRY(ops->gelu_bwd(4 * RE, sc + L->fc, dbig, dbig, s));
        TRY(linear_bwd(ops, R, E, 4 * E, sc + L->ln2, E, W(P_FCW), E, dbig, DW(P_FCW), DW(P_FCB),
                       dln, 0.0f, s));
        TRY(ops->layernorm_bwd(R, E, dln, sc + L->xm, W(P_LN2W), sc + L->mean2, sc + L->rstd2,
                               dtmp, DW(P_LN2W), DW(P_LN2B), s));
        TRY(ops->add(RE, dx, dtmp, dx, s));   /* the residual edge: dL/dxm */
        /* attention */
        TRY(linear_bwd(ops, R, E, E, sc + L->y, E, W(P_CPW), E, dx, DW(P_CPW), DW(P_CPB), dln,
                       0.0f, s));
        TRY(ops->permute(B, T, NH, D, dln, dyh, s));
        TRY(ops->gemm_batched(0, 1, T, T, D, dyh, D, TD, qh + 2 * RE, D, TD, 0.0f, datt, T, TT,
                              B * NH, s));                                     /* dP = dY V^T */
        TRY(ops->gemm_batched(1, 0, T, D, T, att, T, TT, dyh, D, TD, 0.0f, dqh + 2 * RE, D, TD,
                              B * NH, s));                                     /* dV = P^T dY */
        TRY(ops->attn_softmax_bwd((long)B * NH * T, T, scale, att, datt, datt, s));
        TRY(ops->gemm_batched(0, 0, T, D, T, datt, T, TT, qh + RE, D, TD, 0.0f, dqh, D, TD,
                              B * NH, s));                                     /* dQ = dS K */
        TRY(ops->gemm_batched(1, 0, T, D, T, datt, T, TT, qh, D, TD, 0.0f, dqh + RE, D, TD,
                              B * NH, s));                                     /* dK = dS^T Q */
        for (int k = 0; k < 3; k++)
            TRY(ops->permute(B, NH, T, D, dqh + k * RE, sc + pl->dqkvp + k * RE, s));
        TRY(ops->permute(1, 3, R, E, sc + pl->dqkvp, sc + pl->dqkv, s));
        TRY(linear_bwd(ops, R, E, 3 * E, sc + L->ln1, E, W(P_CAW), E, sc + pl->dqkv, DW(P_CAW),
                       DW(P_CAB), dln, 0.0f, s));
        TRY(ops->layernorm_bwd(R, E, dln, stream_in(pl, b, i), W(P_LN1W), sc + L->mean1,
                               sc + L->rstd1, dtmp, DW(P_LN1W), DW(P_LN1B), s));
        TRY(ops->add(RE, dx, dtmp, dx, s));   /* dL/d(the block's input) */
        TRY(model_grads_ready(b, L->p0, s));
#undef W
#undef DW
    }
    TRY(ops->embedding_bwd(R, E, (const int *)b->x, V, dx, G + pl->param[0].off, s));
    return ops->embedding_bwd(R, E, NULL, T, dx, G + pl->param[1].off, s);
}
