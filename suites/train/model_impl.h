/* suites/train/model_impl.h - what the model files share (model.c, the
 * chain, rnn, lstm and gpt files): planning helpers, the per-kind entry
 * points and the linear layer written once. Internal to suites/train/. */
#ifndef SUITES_TRAIN_MODEL_IMPL_H
#define SUITES_TRAIN_MODEL_IMPL_H

#include "model.h"

#define TRY(call)                   \
    do {                            \
        if ((call) != 0) return -1; \
    } while (0)

/* A scratch slot of n floats (64-float aligned, so every tensor suits float4
 * loads on the device); returns its offset. */
long long plan_take(model_plan *pl, long long n);

/* Appends a parameter "<prefix>.<what>" (state_dict order is the order of the
 * calls); returns its index, or -1 out of memory. */
int plan_param(model_plan *pl, const char *prefix, const char *what, int ndim, const int *shape,
               init_kind init, double bound, long reduction);

/* Between layers and time steps: a Ctrl-C abandons the step (a reference
 * step at batch 4096 takes a minute). 1 after err_set("interrupted"). */
int model_interrupted(void);
/* on 1: a replicated step opened (the step goes on to the ranks' agreement,
 * never left by one replica alone); 0: it closed. Counted: threads of one
 * process hold it together. */
void model_hold(int on);

/* A linear layer over `rows` rows: y = x W^T + b (b may be NULL), x [rows][in]
 * with leading dimension ldx, W [out][in] with leading dimension ldw. */
int linear_fwd(const train_ops *ops, int rows, int in, int out, const float *x, int ldx,
               const float *W, int ldw, const float *b, float *y, void *s);
/* Its backward: dW (= or += with accumulate) = dy^T x, db = bias_grad(dy)
 * (db NULL: none), dx = dy W (dx NULL: none; beta_dx 1 accumulates). */
int linear_bwd(const train_ops *ops, int rows, int in, int out, const float *x, int ldx,
               const float *W, int ldw, const float *dy, float *dW, float *db, float *dx,
               float beta_dx, void *s);

/* The backward pass has finished the gradients of parameters first.. (the
 * step's grads_ready hook, when it has one). */
static inline int model_grads_ready(const step_bufs *b, int first, void *s)
{
    return b->grads_ready ? b->grads_ready(b->ready_ctx, first, s) : 0;
}

/* ReLU / max-pool decisions taken from another run (model_replay; chain). */
typedef struct decide_ctx decide_ctx;

/* Per kind: plan (params in state_dict order, scratch, flops, reductions),
 * forward up to the logits, backward from the logits' gradient. */
int chain_plan(model_plan *pl);
int chain_forward(const model_plan *pl, const train_ops *ops, const step_bufs *b, void *s,
                  decide_ctx *dc);
int chain_backward(const model_plan *pl, const train_ops *ops, const step_bufs *b, void *s);
int chain_replay_forward(const model_plan *pl, const train_ops *ops, const step_bufs *b,
                         const float *theirs, double tol, int *flips);

int rnn_plan(model_plan *pl);
int rnn_forward(const model_plan *pl, const train_ops *ops, const step_bufs *b, void *s);
int rnn_backward(const model_plan *pl, const train_ops *ops, const step_bufs *b, void *s);

int lstm_plan(model_plan *pl);
int lstm_forward(const model_plan *pl, const train_ops *ops, const step_bufs *b, void *s);
int lstm_backward(const model_plan *pl, const train_ops *ops, const step_bufs *b, void *s);

int gpt_plan(model_plan *pl);
int gpt_forward(const model_plan *pl, const train_ops *ops, const step_bufs *b, void *s);
int gpt_backward(const model_plan *pl, const train_ops *ops, const step_bufs *b, void *s);

#endif
