/* suites/train/model.h - the models of the training-step suite, described
 * once in host C, and the one step every backend runs.
 *
 * A model is a sequence of layers (conv 3x3 pad 1, ReLU, 2x2 max-pool, linear)
 * ending in softmax cross-entropy:
 *   cnn        3x28x28: conv1 3->16, relu, pool, conv2 16->32, relu, pool,
 *              fc1 1568->128, relu, fc2 128->10
 *   mlp        784: fc1 784->1024, relu, fc2 1024->1024, relu, fc3 1024->10
 *   mlp-small  64: fc1 64->32, relu, fc2 32->10
 * Parameters are PyTorch's tensors in state_dict order (conv1.weight,
 * conv1.bias, ...), with PyTorch's shapes (conv [K][C][R][S], linear
 * [out][in]), contiguous in one buffer in that order; gradients and the
 * momentum buffer have the same layout. The plan (model_plan) places every
 * activation, activation gradient and argmax buffer of a batch in one scratch
 * area; sizes, offsets and FLOPs are computed here, once, never in a kernel.
 *
 * model_step runs forward, loss, backward and the SGD update through a
 * train_ops table (ops/train_ops.h): CPU and GPU backends run the very same
 * calls. Phases are marked for the phase_ms column (harness/phase.h).
 */
#ifndef SUITES_TRAIN_MODEL_H
#define SUITES_TRAIN_MODEL_H

#include <stddef.h>
#include "../../ops/train_ops.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MODEL_MAX_LAYERS 12
#define MODEL_MAX_PARAMS 8

typedef enum { LAYER_CONV, LAYER_RELU, LAYER_POOL, LAYER_FC } layer_kind;

typedef struct model_layer {
    layer_kind kind;
    int cin, cout;           /* conv: channels; fc: features */
    const char *name;        /* conv / fc: the module name (conv1, fc2) */
} model_layer;

typedef struct model_def {
    const char *name;        /* cnn, mlp, mlp-small */
    int C, H, W;             /* one sample's input (C x H x W; an MLP's H = W = 1) */
    int classes;
    int nlayers;
    model_layer layer[MODEL_MAX_LAYERS];
} model_def;

extern const model_def MODELS[];   /* terminated by name NULL */
const model_def *model_find(const char *name);

/* One parameter tensor. */
typedef struct model_param {
    char name[32];           /* conv1.weight */
    long long off, n;        /* in the parameter buffer (floats) */
    int ndim, shape[4];      /* PyTorch's shape */
    long reduction;          /* the reduction length of its gradient (for the check) */
} model_param;

/* Where layer l's tensors live for batch B. */
typedef struct plan_layer {
    long long in, out;       /* activation offsets (floats) in the scratch area */
    long long din, dout;     /* their gradients; din < 0: not needed (first layer) */
    long long arg;           /* pool: argmax offset (ints, same 4-byte slots) */
    int C, H, W;             /* input shape of one sample */
    int oC, oH, oW;          /* output shape */
    int wparam;              /* conv / fc: index of its weight (bias = wparam + 1); -1 */
    conv_dims conv;          /* conv: its dims */
} plan_layer;

typedef struct model_plan {
    const model_def *m;
    int B;
    int nparams;
    model_param param[MODEL_MAX_PARAMS];
    long long nparam_floats;
    plan_layer layer[MODEL_MAX_LAYERS];
    long long logits, dlogits;   /* offsets of the last layer's output and its gradient */
    long long scratch_floats;    /* the whole scratch area (4-byte slots) */
    long long in_floats;         /* one batch's input: B * C * H * W */
    double flops;                /* one step: forward + backward + update */
    long longest_reduction;      /* the sum of the step's reduction lengths (tolerance) */
} model_plan;

/* Plans model m at batch B. 0, or -1 when B is out of range. */
int model_plan_make(const model_def *m, int B, model_plan *pl);

/* Device (or host) workspace the conv calls of ops need for the plan (bytes). */
unsigned long long model_workspace(const model_plan *pl, const train_ops *ops);

/* What one step reads and writes (all in the ops' memory: host or device). */
typedef struct step_bufs {
    const float *x;          /* [B][C][H][W] */
    const int *labels;       /* [B] */
    float *params, *grads, *mom;   /* mom NULL: plain SGD */
    float *loss;             /* [1] */
    float *scratch;          /* plan.scratch_floats */
    void *ws;                /* model_workspace bytes (NULL on the CPU) */
} step_bufs;

typedef struct step_cfg {
    float lr, momentum;
    int skip_bias_update;    /* test hook: the last bias is not updated (a planted fault) */
} step_cfg;

/* One training step: forward, softmax cross-entropy, backward (every
 * parameter's gradient into grads), SGD update of params. 0, or -1 (err_set). */
int model_step(const model_plan *pl, const train_ops *ops, const step_cfg *cfg,
               const step_bufs *b, void *stream);

/* The step on the host with ops (the reference table), deciding every ReLU
 * and max-pool as the run whose activations are `theirs` (its scratch area,
 * same plan) did wherever the two differ by no more than rounding
 * (3 * tol * the tensor's rms): two correct runs may break a near-tie
 * differently, and their gradients then differ by far more than rounding.
 * *flips counts the decisions taken from them. 0; -1 with err_set naming a
 * decision that differs beyond a tie (a wrong result, not a tie). */
int model_replay(const model_plan *pl, const train_ops *ops, const step_cfg *cfg,
                 const step_bufs *b, const float *theirs, double tol, int *flips);

#ifdef __cplusplus
}
#endif
#endif
