/* tests/suites/train/model_amp_test.c - autocast (suites/train/model_amp.c):
 *   - AMP_RULES: every op named once and found by name; gemm runs in 16 bits,
 *     softmax_xent in fp32 (PyTorch's lists);
 *   - every model's amp-bf16 step runs on the reference table within the amp
 *     log its plan sized (a pass over no-ops), and its gradients differ from
 *     the fp32 step's by bf16 rounding (rel > 1e-4), not fp32 rounding;
 *   - a 16-bit op's output is a bf16 value (rounded where PyTorch rounds):
 *     in the chain models every gradient (gemm's, bias_grad's, the conv
 *     backward's) and the logits (the last gemm plus its bias);
 *   - mlp-small's only 16-bit op is gemm (addmm, its bias gradient with it):
 *     with gemm flipped to fp32 (the planted fault's hook) its amp step is
 *     the fp32 step, bit for bit.
 * Runs under ASan with the unit tests.
 */
#include "testutil.h"
#include "train_run.h"
#include "train/model_amp.h"
#include "train_cpu.h"
#include "check.h"
#include "errmsg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double rel_l2(const float *a, const float *b, long long n)
{
    double d = 0, s = 0;
    for (long long i = 0; i < n; i++) {
        d += ((double)a[i] - b[i]) * ((double)a[i] - b[i]);
        s += (double)b[i] * b[i];
    }
    return sqrt(d / (s > 0 ? s : 1));
}

/* How many of x's n floats are not bf16 values. */
static long long not_bf16(const float *x, long long n)
{
    long long k = 0;
    for (long long i = 0; i < n; i++) k += dtype_round(DTYPE_BF16, x[i]) != x[i];
    return k;
}

/* One step of model `name` at batch B on the reference table, fp32 and
 * amp-bf16 (flip: a planted rule), from the same parameters and batch; the
 * relative L2 distance of their gradients, or -1 when a step fails. In a
 * chain model without a flip, the amp step's gradients and logits are bf16
 * values (its only ops that compute are 16-bit ones). */
static double amp_vs_fp32(const char *name, int B, int flip)
{
    model_plan pl;
    run f, a;
    double d = -1;
    EXPECT(model_plan_make(model_find(name), B, &pl) == 0, "%s: plan", name);
    EXPECT(model_plan_amp(&pl) == 0 && pl.amp_ws >= 0 && pl.amp_floats > 0, "%s: amp log", name);
    run_init(&pl, &f);
    run_init(&pl, &a);
    step_cfg c32 = {.opt = OPT_SGD, .lr = 0.05f};
    step_cfg c16 = c32;
    c16.amp = DTYPE_AMP_BF16;
    c16.amp_flip = flip;
    int rf = model_step(&pl, &TRAIN_OPS_CPU_NAIVE, &c32, &f.b, NULL);
    int ra = model_step(&pl, &TRAIN_OPS_CPU_NAIVE, &c16, &a.b, NULL);
    EXPECT(rf == 0 && ra == 0, "%s: steps %d %d: %s", name, rf, ra, err_get());
    if (rf == 0 && ra == 0) d = rel_l2(a.grads, f.grads, pl.nparam_floats);
    if (rf == 0 && ra == 0 && !flip && pl.m->kind == MODEL_CHAIN) {
        const long long nl = pl.nlabels * pl.m->classes;
        const long long g = not_bf16(a.grads, pl.nparam_floats), l = not_bf16(a.scratch + pl.logits, nl);
        EXPECT(g == 0 && l == 0, "%s: %lld of %lld gradients, %lld of %lld logits not bf16 values",
               name, g, pl.nparam_floats, l, nl);
        EXPECT(not_bf16(f.grads, pl.nparam_floats) > 0, "%s: the fp32 step's gradients are bf16", name);
    }
    run_free(&f);
    run_free(&a);
    model_plan_free(&pl);
    return d;
}

int main(void)
{
    for (int i = 0; i < AMP_OP_COUNT; i++) {
        EXPECT(AMP_RULES[i].op && AMP_RULES[i].torch, "rule %d unnamed", i);
        EXPECT(amp_rule_find(AMP_RULES[i].op) == i, "%s not found as itself", AMP_RULES[i].op);
    }
    EXPECT(amp_rule_find("relu") < 0, "relu is on no list");
    EXPECT(AMP_RULES[AMP_OP_GEMM].low && !AMP_RULES[AMP_OP_SOFTMAX_XENT].low, "gemm 16-bit, xent fp32");

    static const struct { const char *m; int B; } MODELS_AT[] = {
        {"mlp-small", 2}, {"cnn", 1}, {"rnn", 1}, {"lstm", 1}, {"gpt", 1}};
    for (size_t k = 0; k < sizeof MODELS_AT / sizeof MODELS_AT[0]; k++) {
        double d = amp_vs_fp32(MODELS_AT[k].m, MODELS_AT[k].B, 0);
        EXPECT(d > 1e-4 && d < 0.1, "%s: amp-bf16 gradients rel %.3g from fp32's, want bf16 rounding",
               MODELS_AT[k].m, d);
    }
    double same = amp_vs_fp32("mlp-small", 2, AMP_OP_GEMM + 1);
    EXPECT(same == 0.0, "mlp-small, gemm flipped to fp32: rel %.3g from the fp32 step, want 0", same);
    TEST_END();
}
