/* suites/train/model_amp.h - autocast (mixed-precision training steps,
 * dtypes amp-bf16 and amp-fp16, ops/dtype.h): which ops of the step's table
 * read their inputs in 16 bits (AMP_RULES, the one list) and the table that
 * applies the list over a backend's own (model_amp.c). Internal to
 * suites/train/. */
#ifndef SUITES_TRAIN_MODEL_AMP_H
#define SUITES_TRAIN_MODEL_AMP_H

#include "model.h"

/* The ops autocast decides for (the others run in fp32). */
typedef enum {
    AMP_OP_GEMM, AMP_OP_GEMM_BATCHED, AMP_OP_CONV_FWD, AMP_OP_CONV_BWD_DATA,
    AMP_OP_CONV_BWD_FILTER, AMP_OP_SOFTMAX_XENT, AMP_OP_ATTN_SOFTMAX, AMP_OP_LAYERNORM,
    AMP_OP_BIAS_GRAD, AMP_OP_ATTN_SOFTMAX_BWD, AMP_OP_GELU, AMP_OP_GELU_BWD, AMP_OP_COUNT
} amp_op;

typedef struct amp_rule {
    const char *op;      /* the train_ops entry */
    const char *torch;   /* PyTorch's ops it stands for */
    int low;             /* 1: inputs rounded to the autocast dtype; 0: fp32 */
    int out;             /* 1: its output is a 16-bit tensor, rounded where PyTorch
                          * rounds it (after the bias a following bias_add adds:
                          * addmm; before any other op reads it) */
} amp_rule;

extern const amp_rule AMP_RULES[AMP_OP_COUNT];

/* The rule of op name (AMP_RULES[i].op), or -1. */
int amp_rule_find(const char *op);

typedef struct amp_ctx amp_ctx;

/* The check's replay (model_replay): roundings near a tie taken from the
 * scratch area `theirs` of the run checked (host memory), within
 * 3 * tol * rms; *flips counts them. theirs NULL: none. */
typedef struct amp_follow {
    const float *theirs;
    double tol;
    int *flips;
} amp_follow;

/* When cfg->amp is a mixed-precision dtype: fills *out with ops under
 * autocast (installed for this thread until model_amp_end(*saved)) and
 * returns 1; 0 when it is not (nothing installed); -1 with err_set.
 * follow: NULL, or the check's (host tables only). */
int model_amp_begin(const model_plan *pl, const train_ops *ops, const step_cfg *cfg,
                    const step_bufs *b, const amp_follow *follow, train_ops *out,
                    amp_ctx **saved);
/* Ends it: rounds an output still pending (0), -1 with err_set. */
int model_amp_end(amp_ctx *saved, void *stream);

/* The plan's sizing pass (model_plan_amp): *out is a table of no-ops under
 * autocast that only counts the floats its operands take in the log; run
 * the step's calls with it, then model_amp_count_end returns the count.
 * 0, or -1 out of memory. */
int model_amp_count_begin(train_ops *out, amp_ctx **saved);
long long model_amp_count_end(amp_ctx *saved);

#endif
