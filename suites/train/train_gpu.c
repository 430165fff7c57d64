/* suites/train/train_gpu.c - the GPU half of train: model_step (model.h)
 * with a backend's device train_ops table (kernels/train_cuda.h), queued on
 * the case's stream. Compiled against the CUDA toolkit and against emu/ (C
 * that is also C++). A step is never split (the layout allows one chunk).
 *
 * Buffers arrive as device pointers in the layout's order (train.h); the
 * workspace is the largest any conv call of the model needs with that table
 * (model_workspace), since the step's calls run one after another on one
 * stream.
 */
#include "train.h"
#include "errmsg.h"

static int train_gpu_compute(const backend_def *b, const problem *p, int c, int n,
                             void *const *dev, void *ws, void *stream)
{
    model_plan pl;
    const train_ops *ops = (const train_ops *)b->ops;
    step_cfg cfg = train_step_cfg(b, p);
    (void)c;
    if (n != 1) {
        err_set("a training step is not split into chunks (%d asked)", n);
        return -1;
    }
    if (!ops || train_plan(p, &pl)) {
        err_set("%s: no training ops or no plan for %s", b->name, p->desc);
        return -1;
    }
    step_bufs sb = {dev[TB_X], (const int *)dev[TB_LABELS], (float *)dev[TB_PARAMS],
                    (float *)dev[TB_GRADS], (float *)dev[TB_STATE], (float *)dev[TB_LOSS],
                    (float *)dev[TB_SCRATCH], ws, NULL, NULL,
                    /* what the runner allocated: train_gpu_workspace's, for this plan */
                    ws ? model_workspace(&pl, ops) : 0};
    int rc = model_step(&pl, ops, &cfg, &sb, stream);
    model_plan_free(&pl);
    return rc;
}

static unsigned long long train_gpu_workspace(const backend_def *b, const problem *p, int n)
{
    model_plan pl;
    (void)n;
    if (!b->ops || train_plan(p, &pl)) return 0;
    unsigned long long w = model_workspace(&pl, (const train_ops *)b->ops);
    model_plan_free(&pl);
    return w;
}

const suite_gpu SUITE_TRAIN_GPU = {
    .compute = train_gpu_compute,
    .reduce = NULL,
    .setup = NULL,
    .teardown = NULL,
    .open_mode = NULL,
    .workspace = train_gpu_workspace,
    .dp_open = train_dp_gpu_open,
};
