/* suites/train/model.h - the models of the training-step suite, described
 * once in host C, and the one step every backend runs.
 *
 * A model is a small graph of named tensors: parameters (PyTorch's state_dict
 * names, shapes and order, each with its init kind), activations and their
 * gradients in one scratch area, and the edges the model's forward and
 * backward functions walk through the op table (ops/train_ops.h). Residual
 * edges and parameters used at every position of a sequence get their
 * gradients accumulated (gemm's beta, the add op); nothing limits the
 * parameter count (the plan allocates its list).
 *   cnn        3x28x28: conv1 3->16, relu, pool, conv2 16->32, relu, pool,
 *              fc1 1568->128, relu, fc2 128->10                (model_chain.c)
 *   mlp        784: fc1 784->1024, relu, fc2 1024->1024, relu, fc3 1024->10
 *   mlp-small  64: fc1 64->32, relu, fc2 32->10
 *   rnn        the PyTorch tutorial's RNN (i2h, i2o on cat(x, h)), input 64,
 *              hidden 128, output 64, sequence 32              (model_rnn.c)
 *   lstm       nn.LSTM(64, 256, 2, batch_first) + fc 256->64, sequence 32
 *                                                              (model_lstm.c)
 *   gpt        GPT-2 blocks (pre-LayerNorm, causal attention, GELU tanh),
 *              vocab 256, sequence 64, embd 128, 4 heads, 2 layers
 *                                                              (model_gpt.c)
 * Parameters are contiguous in one buffer in state_dict order; gradients
 * have the same layout, and so do each of the optimizer's state buffers.
 * The plan (model_plan) places every activation and gradient of a batch in
 * one scratch area of 4-byte slots (floats, and int argmax indices); sizes,
 * offsets and FLOPs are computed here, once, never in a kernel.
 *
 * model_step runs forward, loss, backward and the optimizer (SGD, SGD with
 * momentum, AdamW) through a train_ops table: CPU and GPU backends run the
 * very same calls. Phases are marked for the phase_ms column (harness/phase.h).
 */
#ifndef SUITES_TRAIN_MODEL_H
#define SUITES_TRAIN_MODEL_H

#include <stddef.h>
#include "../../ops/train_ops.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MODEL_MAX_LAYERS 12   /* a chain model's layers */
#define MODEL_MAX_DEPTH 4     /* lstm layers, gpt blocks */

typedef enum { MODEL_CHAIN, MODEL_RNN, MODEL_LSTM, MODEL_GPT } model_kind;
typedef enum { LAYER_CONV, LAYER_RELU, LAYER_POOL, LAYER_FC } layer_kind;

typedef struct model_layer {
    layer_kind kind;
    int cin, cout;           /* conv: channels; fc: features */
    const char *name;        /* conv / fc: the module name (conv1, fc2) */
} model_layer;

typedef struct model_def {
    const char *name;        /* cnn, mlp, mlp-small, rnn, lstm, gpt */
    model_kind kind;
    int classes;             /* output classes (sequence models: per position) */
    /* chain models */
    int C, H, W;             /* one sample's input (C x H x W; an MLP's H = W = 1) */
    int nlayers;
    model_layer layer[MODEL_MAX_LAYERS];
    /* sequence models */
    int seq;                 /* T */
    int input;               /* rnn, lstm: one-hot input width */
    int hidden;              /* rnn, lstm: hidden size */
    int depth;               /* lstm: layers; gpt: blocks */
    int embd, heads;         /* gpt (vocab = classes) */
} model_def;

extern const model_def MODELS[];   /* terminated by name NULL */
const model_def *model_find(const char *name);

/* How a parameter starts, as PyTorch initialises its module (the suite draws
 * the numbers from its seeded generator). */
typedef enum {
    INIT_UNIFORM,            /* U(-bound, bound): Linear, Conv2d (1/sqrt(fan_in)), LSTM (1/sqrt(H)) */
    INIT_NORMAL,             /* N(0, 1): Embedding */
    INIT_ONES,               /* LayerNorm weight */
    INIT_ZEROS               /* LayerNorm bias */
} init_kind;

/* One parameter tensor. */
typedef struct model_param {
    char name[48];           /* conv1.weight, h.1.attn.c_attn.bias */
    long long off, n;        /* in the parameter buffer (floats) */
    int ndim, shape[4];      /* PyTorch's shape */
    init_kind init;
    double bound;            /* INIT_UNIFORM's bound */
    long reduction;          /* the reduction length of its gradient (for the check) */
} model_param;

/* Where chain layer l's tensors live for batch B. */
typedef struct plan_layer {
    long long in, out;       /* activation offsets (floats) in the scratch area */
    long long din, dout;     /* their gradients; din < 0: not needed (first layer) */
    long long arg;           /* pool: argmax offset (ints, same 4-byte slots) */
    int C, H, W;             /* input shape of one sample */
    int oC, oH, oW;          /* output shape */
    int wparam;              /* conv / fc: index of its weight (bias = wparam + 1); -1 */
    conv_dims conv;          /* conv: its dims */
} plan_layer;

/* A sequence model's tensors (offsets in the scratch area; -1: none).
 * Time-major [T][B][...] inside the recurrent models, [B][T][...] in gpt. */
typedef struct seq_layer {
    long long pre;           /* rnn: h; lstm: pre-activations, then gates [T][B][4H] */
    long long c, h;          /* lstm: cell and hidden states [T][B][H] */
    long long dpre, dh;      /* their gradients */
    int w_ih, w_hh;          /* parameter indices (lstm: biases follow); rnn: i2h, i2o */
    /* gpt block */
    long long ln1, mean1, rstd1, qkv, qkvp, qh, att, yh, y, xm, ln2, mean2, rstd2, fc, gelu;
    long long xout;          /* the residual stream after the block */
    int p0;                  /* index of the block's first parameter (ln_1.weight) */
} seq_layer;

typedef struct model_plan {
    const model_def *m;
    int B;
    int nparams, param_cap;
    model_param *param;      /* allocated: model_plan_free */
    long long nparam_floats;
    long long scratch_floats;    /* the whole scratch area (4-byte slots) */
    long long in_slots;          /* one batch's input: floats, or token ids (x_ids) */
    int x_ids;                   /* the input is int token ids (gpt) */
    long long nlabels;           /* B, or B * T for the sequence models */
    long long logits, dlogits;   /* [nlabels][classes], batch-major */
    double flops;                /* one step: forward + backward + SGD update */
    long longest_reduction;      /* the longest chain of reductions of a step (tolerance) */
    long long amp_ws;            /* mixed precision: the log of the autocast ops' rounded
                                  * inputs (model_plan_amp), amp_floats long; -1: none */
    long long amp_floats;
    int loss_scaled;             /* amp-fp16: the optimizer state ends with the loss
                                  * scaler's (ops/loss_scale.h; model_state_floats) */
    /* chain models */
    plan_layer layer[MODEL_MAX_LAYERS];
    /* sequence models */
    long long xt;                /* rnn, lstm: the input time-major [T][B][I] */
    long long ot, dot;           /* rnn, lstm: outputs time-major [T][B][classes], gradient */
    long long dc;                /* lstm: the carried cell gradient [B][H] */
    long long x0, lnf, meanf, rstdf;   /* gpt: embeddings, final layernorm */
    long long dx, dtmp, dln, dbig, dqkv, dqkvp, dqh, datt, dyh; /* gpt: gradient scratch */
    int p_head;                  /* index of the output layer's first parameter */
    seq_layer seq[MODEL_MAX_DEPTH];
} model_plan;

/* Plans model m at batch B (allocates pl->param). 0, or -1 when B is out of
 * range or out of memory (nothing to free then). */
int model_plan_make(const model_def *m, int B, model_plan *pl);
void model_plan_free(model_plan *pl);

/* Adds the amp region a mixed-precision step needs to pl's scratch area
 * (model_amp.c: the rounded copies of the autocast ops' inputs). 0, or -1
 * out of memory. */
int model_plan_amp(model_plan *pl);

/* Device (or host) workspace the conv calls of ops need for the plan (bytes). */
unsigned long long model_workspace(const model_plan *pl, const train_ops *ops);

typedef enum { OPT_SGD, OPT_MOMENTUM, OPT_ADAMW } opt_kind;

/* Floats of optimizer state for a plan: 0 (SGD), the momentum buffer, or
 * AdamW's m and v and its step count (2 * nparam_floats + 1); then, when
 * pl->loss_scaled, the loss scaler's LS_FLOATS (ops/loss_scale.h). */
long long model_state_floats(const model_plan *pl, opt_kind opt);

/* The loss scaler's state in state (model_state_floats' layout), or NULL
 * when the plan has none. */
float *model_scaler(const model_plan *pl, opt_kind opt, float *state);

/* A fresh optimizer state (host memory): zeros, and a fresh loss scaler. */
void model_state_init(const model_plan *pl, opt_kind opt, float *state);

/* What one step reads and writes (all in the ops' memory: host or device). */
typedef struct step_bufs {
    const void *x;           /* float [B][C][H][W] / [B][T][I], or int token ids [B][T] */
    const int *labels;       /* [nlabels] */
    float *params, *grads;
    float *state;            /* model_state_floats: momentum, or AdamW's m | v | t;
                              * then amp-fp16's loss scaler (model_scaler) */
    float *loss;             /* [1] */
    float *scratch;          /* plan.scratch_floats */
    void *ws;                /* model_workspace bytes (NULL on the CPU) */
    /* Optional (ddp-overlap's buckets): called during the backward pass each
     * time the gradients of parameters first..nparams-1 have their final
     * values (queued on stream, for a GPU table); first only decreases.
     * 0, or -1 with err_set. NULL: none. */
    int (*grads_ready)(void *ctx, int first, void *stream);
    void *ready_ctx;
    /* ws's size: each conv call first checks what its own plan needs against
     * it (0: no workspace; a table whose convs need one then fails) */
    unsigned long long ws_bytes;
} step_bufs;

typedef struct step_cfg {
    opt_kind opt;
    float lr, momentum;      /* SGD */
    float beta1, beta2, eps, weight_decay;   /* AdamW */
    int skip_bias_update;    /* test hook: the last parameter tensor (the chain models'
                              * last bias) is not updated (a planted fault) */
    float shard_weight;      /* a data-parallel replica's share of the global batch: its
                              * loss and loss gradient are weighted by it, so the replicas'
                              * gradients sum to the full-batch step (0: 1, one process) */
    dtype_t amp;             /* amp-bf16 / amp-fp16: the step under autocast
                              * (model_amp.h); fp32 (0): none */
    int amp_flip;            /* test hook: AMP_RULES[amp_flip - 1] runs in the other
                              * precision (a planted fault); 0: none */
    int ls_plant;            /* test hook: the loss scaler's step with a planted inf
                              * gradient (ops/loss_scale.h's ls_planted); 0: none */
    int ls_no_skip;          /* test hook: a step with an inf/NaN gradient is not
                              * skipped (a planted fault); 0: none */
} step_cfg;

/* One training step: forward, softmax cross-entropy, backward (every
 * parameter's gradient into grads), the optimizer's update of params.
 * With a loss scaler (cfg->amp's dtype_info.loss_scale, pl->loss_scaled):
 * the loss gradient scaled, the gradients unscaled, and the update skipped
 * when one of them is inf or NaN (ops/loss_scale.h). 0, or -1 (err_set). */
int model_step(const model_plan *pl, const train_ops *ops, const step_cfg *cfg,
               const step_bufs *b, void *stream);

/* Forward, softmax cross-entropy and backward (model_step without the
 * update): what a data-parallel replica computes on its shard. */
int model_grads(const model_plan *pl, const train_ops *ops, const step_cfg *cfg,
                const step_bufs *b, void *stream);

/* Forward and softmax cross-entropy alone: the loss at b's parameters (the
 * hogwild check's; the logits' gradient is scratch). */
int model_loss(const model_plan *pl, const train_ops *ops, const step_cfg *cfg,
               const step_bufs *b, void *stream);

/* The optimizer's update alone (model_step's last phase): the check applies
 * the reference's to a backend's own gradients. */
int model_update(const model_plan *pl, const train_ops *ops, const step_cfg *cfg,
                 const step_bufs *b, void *stream);

/* The step on the host with ops (the reference table), deciding every ReLU
 * and max-pool as the run whose activations are `theirs` (its scratch area,
 * same plan) did wherever the two differ by no more than rounding
 * (3 * tol * the tensor's rms): two correct runs may break a near-tie
 * differently, and their gradients then differ by far more than rounding.
 * Under autocast (cfg->amp) the 16-bit roundings of the autocast ops' inputs
 * that lie in the scratch area are taken from `theirs` alike (model_amp.c).
 * *flips counts the decisions taken from them. 0; -1 with err_set naming a
 * decision that differs beyond a tie (a wrong result, not a tie). Models
 * without ReLU or max-pool take no decision. */
int model_replay(const model_plan *pl, const train_ops *ops, const step_cfg *cfg,
                 const step_bufs *b, const float *theirs, double tol, int *flips);

#ifdef __cplusplus
}
#endif
#endif
