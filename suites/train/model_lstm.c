/* suites/train/model_lstm.c - nn.LSTM(I, H, depth, batch_first=True) from
 * zero h0 and c0, then fc = nn.Linear(H, O) at every position, loss
 * cross-entropy over all B*T positions (model.h). Parameters in state_dict
 * order: lstm.weight_ih_l<k> [4H][in], lstm.weight_hh_l<k> [4H][H],
 * lstm.bias_ih_l<k>, lstm.bias_hh_l<k> for each layer, fc.weight, fc.bias;
 * gate order i, f, g, o.
 *
 * Time-major inside ([T][B][...]). Each layer's input projection (and both
 * biases) is one GEMM over all T*B rows into the pre-activations; only
 * h_{t-1} W_hh^T and the cell's pointwise part stay in the sequential loop.
 * The cell writes its gates over the pre-activations. Backward: fc's and the
 * top layer's dh in whole-sequence GEMMs, then per layer the loop from T-1
 * down (cell backward, dh_{t-1} += dpre_t W_hh), then the layer's weight
 * gradients and the gradient of its input as whole-sequence GEMMs. */
#include "model_impl.h"

#include <math.h>
#include <stdio.h>

int lstm_plan(model_plan *pl)
{
    const model_def *m = pl->m;
    const int B = pl->B, T = m->seq, I = m->input, H = m->hidden, O = m->classes;
    const long TB = (long)T * B;
    const double bound = 1.0 / sqrt((double)H), b = B;
    double f = 0;
    long red = I + 2;
    if (T < 2 || m->depth < 1 || m->depth > MODEL_MAX_DEPTH) return -1;
    long long dpre = -1;
    for (int l = 0; l < m->depth; l++) {
        seq_layer *L = &pl->seq[l];
        const int in = l ? H : I;
        char w[2][24], bs[2][24];
        snprintf(w[0], sizeof w[0], "weight_ih_l%d", l);
        snprintf(w[1], sizeof w[1], "weight_hh_l%d", l);
        snprintf(bs[0], sizeof bs[0], "bias_ih_l%d", l);
        snprintf(bs[1], sizeof bs[1], "bias_hh_l%d", l);
        int wih[2] = {4 * H, in}, whh[2] = {4 * H, H}, bias[1] = {4 * H};
        L->w_ih = plan_param(pl, "lstm", w[0], 2, wih, INIT_UNIFORM, bound, TB);
        L->w_hh = plan_param(pl, "lstm", w[1], 2, whh, INIT_UNIFORM, bound, TB);
        if (L->w_ih < 0 || L->w_hh < 0 ||
            plan_param(pl, "lstm", bs[0], 1, bias, INIT_UNIFORM, bound, TB) < 0 ||
            plan_param(pl, "lstm", bs[1], 1, bias, INIT_UNIFORM, bound, TB) < 0)
            return -1;
        L->pre = plan_take(pl, TB * 4 * H);
        L->c = plan_take(pl, TB * H);
        L->h = plan_take(pl, TB * H);
        L->dh = plan_take(pl, TB * H);
        if (dpre < 0) dpre = plan_take(pl, TB * 4 * H);   /* one for every layer */
        L->dpre = dpre;
        f += 2.0 * T * b * 4 * H * in + 2.0 * (T - 1) * b * 4 * H * H + 2.0 * T * b * 4 * H +
             10.0 * T * b * H;                                                  /* forward */
        f += 2.0 * 4 * H * in * T * b + 2.0 * 4 * H * H * (T - 1) * b + 2.0 * T * b * 4 * H +
             2.0 * (T - 1) * b * H * 4 * H + 16.0 * T * b * H;                  /* backward */
        if (l) f += 2.0 * T * b * in * 4 * H;                                  /* dx */
        red += (long)(T - 1) * (H + 2) + in;     /* the recurrence, forward and back */
    }
    int fw[2] = {O, H}, fb[1] = {O};
    pl->p_head = plan_param(pl, "fc", "weight", 2, fw, INIT_UNIFORM, bound, TB);
    if (pl->p_head < 0 || plan_param(pl, "fc", "bias", 1, fb, INIT_UNIFORM, bound, TB) < 0)
        return -1;
    pl->in_slots = TB * I;
    pl->nlabels = TB;
    pl->xt = plan_take(pl, TB * I);
    pl->ot = plan_take(pl, TB * O);
    pl->dot = plan_take(pl, TB * O);
    pl->dc = plan_take(pl, (long long)B * H);
    pl->logits = plan_take(pl, TB * O);
    pl->dlogits = plan_take(pl, TB * O);
    f += 2.0 * T * b * O * H * 3 + 2.0 * T * b * O;                             /* fc */
    pl->flops = f + 2.0 * (double)pl->nparam_floats;
    pl->longest_reduction = 2 * red + 2 * (H + 1) + 2 * O + TB;
    return 0;
}

int lstm_forward(const model_plan *pl, const train_ops *ops, const step_bufs *b, void *s)
{
    const model_def *m = pl->m;
    const int B = pl->B, T = m->seq, I = m->input, H = m->hidden, O = m->classes;
    const long BH = (long)B * H, B4H = 4 * BH;
    float *xt = b->scratch + pl->xt;
    TRY(ops->permute(1, B, T, I, (const float *)b->x, xt, s));
    const float *X = xt;
    int in = I;
    for (int l = 0; l < m->depth; l++) {
        const seq_layer *L = &pl->seq[l];
        const model_param *pih = &pl->param[L->w_ih];
        const float *Wih = b->params + pih->off, *Whh = b->params + pl->param[L->w_hh].off;
        const float *bih = Whh + 4L * H * H, *bhh = bih + 4 * H;
        float *pre = b->scratch + L->pre, *c = b->scratch + L->c, *h = b->scratch + L->h;
        TRY(linear_fwd(ops, T * B, in, 4 * H, X, in, Wih, in, bih, pre, s));
        TRY(ops->bias_add(T * B, 4 * H, pre, bhh, s));
        for (int t = 0; t < T; t++) {
            if (model_interrupted()) return -1;
            float *pt = pre + t * B4H;
            if (t) TRY(ops->gemm(0, 1, B, 4 * H, H, h + (t - 1) * BH, H, Whh, H, 1.0f, pt, 4 * H, s));
            TRY(ops->lstm_cell(B, H, pt, t ? c + (t - 1) * BH : NULL, pt, c + t * BH,
                               h + t * BH, s));
        }
        X = h;
        in = H;
    }
    const float *fw = b->params + pl->param[pl->p_head].off, *fb = fw + (long)O * H;
    float *ot = b->scratch + pl->ot;
    TRY(linear_fwd(ops, T * B, H, O, X, H, fw, H, fb, ot, s));
    return ops->permute(1, T, B, O, ot, b->scratch + pl->logits, s);
}

int lstm_backward(const model_plan *pl, const train_ops *ops, const step_bufs *b, void *s)
{
    const model_def *m = pl->m;
    const int B = pl->B, T = m->seq, I = m->input, H = m->hidden, O = m->classes;
    const int top = m->depth - 1;
    const long BH = (long)B * H, B4H = 4 * BH;
    const model_param *pf = &pl->param[pl->p_head];
    float *dot = b->scratch + pl->dot, *dc = b->scratch + pl->dc;
    float *dfw = b->grads + pf->off, *dfb = dfw + (long)O * H;
    TRY(ops->permute(1, B, T, O, b->scratch + pl->dlogits, dot, s));
    /* fc, and the top layer's dh, over the whole sequence */
    TRY(linear_bwd(ops, T * B, H, O, b->scratch + pl->seq[top].h, H, b->params + pf->off, H, dot,
                   dfw, dfb, b->scratch + pl->seq[top].dh, 0.0f, s));
    TRY(model_grads_ready(b, pl->p_head, s));
    for (int l = top; l >= 0; l--) {
        const seq_layer *L = &pl->seq[l];
        const model_param *pih = &pl->param[L->w_ih], *phh = &pl->param[L->w_hh];
        const int in = l ? H : I;
        const float *Wih = b->params + pih->off, *Whh = b->params + phh->off;
        const float *X = l ? b->scratch + pl->seq[l - 1].h : b->scratch + pl->xt;
        const float *gates = b->scratch + L->pre, *c = b->scratch + L->c, *h = b->scratch + L->h;
        float *dh = b->scratch + L->dh, *dpre = b->scratch + L->dpre;
        float *dWih = b->grads + pih->off, *dWhh = b->grads + phh->off;
        float *dbih = dWhh + 4L * H * H, *dbhh = dbih + 4 * H;
        for (int t = T - 1; t >= 0; t--) {
            if (model_interrupted()) return -1;
            float *dpt = dpre + t * B4H;
            TRY(ops->lstm_cell_bwd(B, H, dh + t * BH, t == T - 1 ? NULL : dc, gates + t * B4H,
                                   t ? c + (t - 1) * BH : NULL, c + t * BH, dpt, dc, s));
            if (t) TRY(ops->gemm(0, 0, B, H, 4 * H, dpt, 4 * H, Whh, H, 1.0f, dh + (t - 1) * BH, H, s));
        }
        TRY(ops->gemm(1, 0, 4 * H, in, T * B, dpre, 4 * H, X, in, 0.0f, dWih, in, s));
        TRY(ops->gemm(1, 0, 4 * H, H, (T - 1) * B, dpre + B4H, 4 * H, h, H, 0.0f, dWhh, H, s));
        TRY(ops->bias_grad(T * B, 4 * H, dpre, dbih, s));
        TRY(ops->bias_grad(T * B, 4 * H, dpre, dbhh, s));
        TRY(model_grads_ready(b, L->w_ih, s));
        if (l) TRY(ops->gemm(0, 0, T * B, in, 4 * H, dpre, 4 * H, Wih, in, 0.0f,
                             b->scratch + pl->seq[l - 1].dh, H, s));
    }
    return 0;
}
