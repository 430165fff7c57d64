/* suites/train/model_rnn.c - the PyTorch tutorial's RNN (model.h), unrolled
 * over the sequence from a zero hidden state:
 *     comb = cat(x_t, h);  out_t = log_softmax(i2o(comb));  h = i2h(comb)
 * (no nonlinearity on h, as in the tutorial; out_t uses the old h), loss
 * nll_loss over all B*T positions = softmax cross-entropy of i2o's output.
 * Parameters: i2h.weight [H][I+H], i2h.bias, i2o.weight [O][I+H], i2o.bias.
 *
 * Time-major inside ([T][B][...]): x is permuted once, and every product
 * with the input (and i2o's with the previous h) is one GEMM over all T*B
 * rows; only h_{t-1} W_hh^T stays in the sequential loop, forward and back
 * (h_t = x_t W_x^T + b + h_{t-1} W_h^T, W_x and W_h being i2h.weight's
 * column blocks, read in place with leading dimension I+H). h_{T-1} feeds
 * nothing, so its gradient is zero and the backward runs over t <= T-2.
 * The weight gradients of the recurrence are single GEMMs over the stored
 * states too (sum over t of dh_t^T h_{t-1}). */
#include "model_impl.h"

#include <math.h>

int rnn_plan(model_plan *pl)
{
    const model_def *m = pl->m;
    const int B = pl->B, T = m->seq, I = m->input, H = m->hidden, O = m->classes;
    const double bound = 1.0 / sqrt((double)(I + H));
    const long TB = (long)T * B;
    if (T < 3) return -1;   /* the backward's GEMMs over T-2 steps */
    int wi[2] = {H, I + H}, bi[1] = {H}, wo[2] = {O, I + H}, bo[1] = {O};
    seq_layer *L = &pl->seq[0];
    L->w_ih = plan_param(pl, "i2h", "weight", 2, wi, INIT_UNIFORM, bound, TB);
    if (L->w_ih < 0 || plan_param(pl, "i2h", "bias", 1, bi, INIT_UNIFORM, bound, TB) < 0)
        return -1;
    L->w_hh = plan_param(pl, "i2o", "weight", 2, wo, INIT_UNIFORM, bound, TB);
    if (L->w_hh < 0 || plan_param(pl, "i2o", "bias", 1, bo, INIT_UNIFORM, bound, TB) < 0)
        return -1;
    pl->in_slots = TB * I;
    pl->nlabels = TB;
    pl->xt = plan_take(pl, TB * I);
    L->pre = plan_take(pl, TB * H);     /* h_t */
    L->dh = plan_take(pl, TB * H);
    pl->ot = plan_take(pl, TB * O);
    pl->dot = plan_take(pl, TB * O);
    pl->logits = plan_take(pl, TB * O);
    pl->dlogits = plan_take(pl, TB * O);
    const double b = B;
    double f = 2.0 * T * b * H * I + 2.0 * (T - 1) * b * H * H + 2.0 * T * b * O * I +
               2.0 * (T - 1) * b * O * H + (double)TB * (H + O);               /* forward */
    f += 2.0 * O * I * TB + 2.0 * O * H * (T - 1) * b + (double)TB * O;          /* i2o grads */
    f += 2.0 * (T - 1) * b * H * O + 2.0 * (T - 2) * b * H * H;                 /* dh */
    f += 2.0 * H * I * (T - 1) * b + 2.0 * H * H * (T - 2) * b + (T - 1) * b * H; /* i2h grads */
    pl->flops = f + 2.0 * (double)pl->nparam_floats;
    /* the longest chain: h through every step, the output, the loss, dh back
     * through every step, then a weight gradient's sum over the positions */
    pl->longest_reduction = (I + 1) + (long)(T - 1) * H + (I + H + 1) + O + O +
                            (long)(T - 2) * H + TB;
    return 0;
}

int rnn_forward(const model_plan *pl, const train_ops *ops, const step_bufs *b, void *s)
{
    const model_def *m = pl->m;
    const int B = pl->B, T = m->seq, I = m->input, H = m->hidden, O = m->classes, ld = I + H;
    const seq_layer *L = &pl->seq[0];
    const float *Wi = b->params + pl->param[L->w_ih].off, *bi = Wi + (long)H * ld;
    const float *Wo = b->params + pl->param[L->w_hh].off, *bo = Wo + (long)O * ld;
    float *xt = b->scratch + pl->xt, *h = b->scratch + L->pre, *ot = b->scratch + pl->ot;
    const long BH = (long)B * H;
    TRY(ops->permute(1, B, T, I, (const float *)b->x, xt, s));
    TRY(linear_fwd(ops, T * B, I, H, xt, I, Wi, ld, bi, h, s));   /* x_t W_x^T + b, all t */
    for (int t = 1; t < T; t++) {
        if (model_interrupted()) return -1;
        TRY(ops->gemm(0, 1, B, H, H, h + (t - 1) * BH, H, Wi + I, ld, 1.0f, h + t * BH, H, s));
    }
    TRY(linear_fwd(ops, T * B, I, O, xt, I, Wo, ld, bo, ot, s));  /* x_t W_ox^T + b */
    TRY(ops->gemm(0, 1, (T - 1) * B, O, H, h, H, Wo + I, ld, 1.0f, ot + (long)B * O, O, s));
    return ops->permute(1, T, B, O, ot, b->scratch + pl->logits, s);
}

int rnn_backward(const model_plan *pl, const train_ops *ops, const step_bufs *b, void *s)
{
    const model_def *m = pl->m;
    const int B = pl->B, T = m->seq, I = m->input, H = m->hidden, O = m->classes, ld = I + H;
    const seq_layer *L = &pl->seq[0];
    const model_param *pi = &pl->param[L->w_ih], *po = &pl->param[L->w_hh];
    const float *Wi = b->params + pi->off, *Wo = b->params + po->off;
    float *dWi = b->grads + pi->off, *dbi = dWi + (long)H * ld;
    float *dWo = b->grads + po->off, *dbo = dWo + (long)O * ld;
    const float *xt = b->scratch + pl->xt, *h = b->scratch + L->pre;
    float *dot = b->scratch + pl->dot, *dh = b->scratch + L->dh;
    const long BH = (long)B * H, BO = (long)B * O;
    TRY(ops->permute(1, B, T, O, b->scratch + pl->dlogits, dot, s));
    /* i2o: W_ox against every x_t, W_oh against h_{t-1} (t >= 1) */
    TRY(ops->gemm(1, 0, O, I, T * B, dot, O, xt, I, 0.0f, dWo, ld, s));
    TRY(ops->gemm(1, 0, O, H, (T - 1) * B, dot + BO, O, h, H, 0.0f, dWo + I, ld, s));
    TRY(ops->bias_grad(T * B, O, dot, dbo, s));
    /* dh_t = dout_{t+1} W_oh for t <= T-2, then back through the recurrence */
    TRY(ops->gemm(0, 0, (T - 1) * B, H, O, dot + BO, O, Wo + I, ld, 0.0f, dh, H, s));
    for (int t = T - 2; t >= 1; t--) {
        if (model_interrupted()) return -1;
        TRY(ops->gemm(0, 0, B, H, H, dh + t * BH, H, Wi + I, ld, 1.0f, dh + (t - 1) * BH, H, s));
    }
    /* i2h: dpre_t = dh_t (linear); W_x against x_t, W_h against h_{t-1} */
    TRY(ops->gemm(1, 0, H, I, (T - 1) * B, dh, H, xt, I, 0.0f, dWi, ld, s));
    TRY(ops->gemm(1, 0, H, H, (T - 2) * B, dh + BH, H, h, H, 0.0f, dWi + I, ld, s));
    return ops->bias_grad((T - 1) * B, H, dh, dbi, s);
}
