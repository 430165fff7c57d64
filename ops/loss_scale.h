/* ops/loss_scale.h - dynamic loss scaling for amp-fp16 training steps, the
 * one rule (PyTorch's torch.amp.GradScaler with its defaults), used by every
 * train_ops table (cpu/train_naive_seq.c, kernels/train_seq_map.cu: the
 * `amp_scale` and `amp_unscale` entries, ops/train_ops.h) and so by the
 * reference step too: the check models the same scale and the same skips.
 *
 * The scaler's state is LS_FLOATS floats in the table's memory (host for CPU
 * tables, device for GPU tables), after the optimizer's state
 * (suites/train/model.c), as GradScaler keeps _scale and _growth_tracker on
 * the device:
 *   LS_SCALE    the loss scale, LS_INIT_SCALE (2^16) at first
 *   LS_GOOD     consecutive steps without an inf/NaN gradient (growth tracker)
 *   LS_SKIPPED  steps skipped so far (an inf/NaN gradient)
 *   LS_STEPS    steps taken so far, skipped or not (ours: the planted overflow)
 *   LS_FOUND    this step's flag while its gradients are unscaled (0 between steps)
 *   LS_LAST     whether the last step found an inf/NaN gradient (1) or not (0)
 * A step: the loss gradient times LS_SCALE (GradScaler.scale(loss)); the
 * backward pass; every gradient checked for inf/NaN and multiplied by
 * 1/LS_SCALE (unscale_, _amp_foreach_non_finite_check_and_unscale_); the
 * optimizer skipped when one was found (GradScaler.step); ls_update
 * (_amp_update_scale_): on a found inf/NaN the scale times LS_BACKOFF and the
 * tracker reset, otherwise the tracker counts, and at LS_INTERVAL the scale
 * times LS_GROWTH (kept only if finite) and the tracker reset.
 * amp-bf16 uses no scaler (bf16 has fp32's exponent range; PyTorch's bf16
 * autocast uses none either).
 * Includable from C, C++ and CUDA (ls_update runs in a GPU table's kernel).
 */
#ifndef OPS_LOSS_SCALE_H
#define OPS_LOSS_SCALE_H

#include <math.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__CUDACC__)
#define LS_HD __host__ __device__
#else
#define LS_HD
#endif

enum { LS_SCALE, LS_GOOD, LS_SKIPPED, LS_STEPS, LS_FOUND, LS_LAST, LS_FLOATS };

/* GradScaler's defaults: init_scale, growth_factor, backoff_factor,
 * growth_interval. */
#define LS_INIT_SCALE 65536.0f
#define LS_GROWTH 2.0f
#define LS_BACKOFF 0.5f
#define LS_INTERVAL 2000

/* A fresh scaler (GradScaler()). */
static inline void ls_init(float *ls)
{
    for (int i = 0; i < LS_FLOATS; i++) ls[i] = 0.0f;
    ls[LS_SCALE] = LS_INIT_SCALE;
}

/* 1/scale in fp32, as GradScaler's inv_scale (scale.double().reciprocal().float()). */
LS_HD static inline float ls_inv_scale(const float *ls) { return (float)(1.0 / (double)ls[LS_SCALE]); }

/* The test hook's planted overflow (BENCH_PLANT_OVERFLOW=plant): 1 when the
 * step being unscaled is step number `plant` (1-based) of the scaler, whose
 * first gradient element is then taken as inf; plant 0: never. */
LS_HD static inline int ls_planted(const float *ls, int plant)
{
    return plant > 0 && ls[LS_STEPS] + 1.0f == (float)plant;
}

/* Element i of the gradient (g, scaled), unscaled: inf/NaN raise *found
 * (GradScaler checks the scaled value), then g * inv; planted: element 0
 * is inf. */
LS_HD static inline float ls_unscale_elem(float g, float inv, long i, int planted, float *found)
{
    if (planted && i == 0) g = INFINITY;
    if (!isfinite(g)) *found = 1.0f;
    return g * inv;
}

/* After every gradient was unscaled: the scale's update (_amp_update_scale_),
 * the counts, LS_LAST = this step's flag, LS_FOUND cleared for the next. */
LS_HD static inline void ls_update(float *ls)
{
    const int found = ls[LS_FOUND] != 0.0f;
    ls[LS_STEPS] += 1.0f;
    ls[LS_LAST] = found ? 1.0f : 0.0f;
    ls[LS_FOUND] = 0.0f;
    if (found) {
        ls[LS_SCALE] *= LS_BACKOFF;
        ls[LS_GOOD] = 0.0f;
        ls[LS_SKIPPED] += 1.0f;
    } else if (ls[LS_GOOD] + 1.0f >= (float)LS_INTERVAL) {
        const float grown = ls[LS_SCALE] * LS_GROWTH;
        if (isfinite(grown)) ls[LS_SCALE] = grown;
        ls[LS_GOOD] = 0.0f;
    } else {
        ls[LS_GOOD] += 1.0f;
    }
}

#ifdef __cplusplus
}
#endif
#endif
