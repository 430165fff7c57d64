/* suites/train/train.h - the training-step suite: one full step (forward,
 * softmax cross-entropy, backward, SGD update) of a small CNN and two MLPs
 * (model.h) on every backend, step after step from the same initial
 * parameters, each step checked against cpu-naive's.
 *
 * Problems: `<model>-b<batch>[-mom]`, e.g. `cnn-b64`, `mlp-b256-mom`
 * (momentum 0.9; plain SGD otherwise); lr 0.05.
 * problem.dim: [TRAIN_DIM_MODEL] index into MODELS, [TRAIN_DIM_B] batch,
 * [TRAIN_DIM_MOM] 1 with momentum.
 *
 * Buffers (layout.h), in this order: grads (OUT, kept on the device), loss
 * (OUT, the trace), x and labels (IN, one batch per input set), params and
 * momentum (INOUT, stateful: the model's state persists from step to step),
 * scratch (activations, their gradients, argmax indices).
 */
#ifndef SUITES_TRAIN_TRAIN_H
#define SUITES_TRAIN_TRAIN_H

#include "suite.h"
#include "model.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { TRAIN_DIM_MODEL, TRAIN_DIM_B, TRAIN_DIM_OPT };
enum { TB_GRADS, TB_LOSS, TB_X, TB_LABELS, TB_PARAMS, TB_STATE, TB_SCRATCH, TB_COUNT };

#define TRAIN_LR 0.05f          /* SGD, with and without momentum */
#define TRAIN_ADAMW_LR 1e-3f    /* AdamW (torch's default) */
#define TRAIN_MOMENTUM 0.9f
#define TRAIN_CHECK_STEPS 3
#define TRAIN_MAX_BATCH 4096

/* The plan and step settings of p (shared by the host and GPU halves). */
int train_plan(const problem *p, model_plan *pl);
step_cfg train_step_cfg(const backend_def *b, const problem *p);

/* The data-parallel modes (suite.h's dp_open_fn), train_dp_step.c's one
 * step: on the CPU backends over MPI ranks (train_dp.c; suite_def.dp_open),
 * on the GPU backends over NCCL (train_dp_gpu.c, in the GPU layer;
 * suite_gpu.dp_open). */
dp_open_fn train_dp_open;
dp_open_fn train_dp_gpu_open;

/* 1 with skip saying why when replicated mode m does not run problem p's
 * dtype (a mixed-precision step: its replicas' plans have no amp log yet);
 * 0 when it does. Both dp_open halves ask it first. */
int train_dp_dtype_skip(const problem *p, const dp_mode *m, char *skip, size_t skipcap);

/* The chain models' ReLU and max-pool decisions of the whole batch, as the
 * shards of n replicas hold them: fn(ctx, r, full_off, shard_off, count) for
 * each region of replica r's shard plan (floats at shard_off in its scratch)
 * and where it goes in the full plan's scratch (full_off). No calls for the
 * other models. 0, or -1 when fn fails (or out of memory, err_set). */
int dp_decision_regions(const model_plan *full, int n,
                        int (*fn)(void *ctx, int r, long long full_off, long long shard_off,
                                  long long count),
                        void *ctx);

extern const suite_def SUITE_TRAIN;
extern const suite_gpu SUITE_TRAIN_GPU;

#ifdef __cplusplus
}
#endif
#endif
