/* tests/suites/train/model_replay_test.c - model_replay (suites/train/model.h), the check's
 * answer to ReLU / max-pool near-ties: replaying another run's decisions.
 *   - the reference's own activations replay with no decision taken over;
 *   - cpu-omp's activations replay to the same loss, within rounding;
 *   - an argmax moved to a non-maximal window element is refused as "not a tie";
 *   - a ReLU output forced positive where the pre-activation is clearly
 *     negative is refused as "beyond a tie".
 */
#include "testutil.h"
#include "train/model.h"
#include "train_run.h"
#include "train_cpu.h"
#include "check.h"
#include "errmsg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Replays `theirs` from fresh initial state; returns model_replay's status. */
static int replay(const model_plan *pl, const float *theirs, int *flips, float *loss)
{
    run r;
    step_cfg cfg = {.opt = OPT_SGD, .lr = 0.05f};
    run_init(pl, &r);
    int rc = model_replay(pl, &TRAIN_OPS_CPU_NAIVE, &cfg, &r.b, theirs, 1e-5, flips);
    *loss = r.loss;
    run_free(&r);
    return rc;
}

int main(void)
{
    model_plan pl;
    step_cfg cfg = {.opt = OPT_SGD, .lr = 0.05f};
    EXPECT(model_plan_make(model_find("cnn"), 4, &pl) == 0, "plan");
    run ref, omp;
    run_init(&pl, &ref);
    run_init(&pl, &omp);
    EXPECT(model_step(&pl, &TRAIN_OPS_CPU_NAIVE, &cfg, &ref.b, NULL) == 0, "naive step");
    EXPECT(model_step(&pl, &TRAIN_OPS_CPU_OMP, &cfg, &omp.b, NULL) == 0, "omp step");

    int flips = -1;
    float loss = 0;
    EXPECT(replay(&pl, ref.scratch, &flips, &loss) == 0 && flips == 0 && loss == ref.loss,
           "its own decisions: %d taken over, loss %g vs %g (%s)", flips, loss, ref.loss, err_get());
    EXPECT(replay(&pl, omp.scratch, &flips, &loss) == 0 && fabsf(loss - omp.loss) < 1e-5f,
           "cpu-omp's decisions: loss %g vs %g (%s)", loss, omp.loss, err_get());

    /* the first max-pool: move one argmax to the smallest element of its window */
    int pool = -1, relu = -1;
    for (int l = 0; l < pl.m->nlayers && (pool < 0 || relu < 0); l++) {
        if (pl.m->layer[l].kind == LAYER_POOL && pool < 0) pool = l;
        if (pl.m->layer[l].kind == LAYER_RELU && relu < 0) relu = l;
    }
    const plan_layer *P = &pl.layer[pool];
    float *bad = malloc((size_t)pl.scratch_floats * sizeof(float));
    memcpy(bad, ref.scratch, (size_t)pl.scratch_floats * sizeof(float));
    const float *in = ref.scratch + P->in;   /* the plane-0 values before the pool */
    int *arg = (int *)(bad + P->arg);
    int best = arg[0], worst = 0;
    float wv = INFINITY;
    for (int k = 0; k < 4; k++) {
        int at = (k / 2) * P->W + k % 2;
        if (in[at] < wv) wv = in[at], worst = at;
    }
    EXPECT(in[best] - wv > 1e-3f, "the window has a clear maximum (%g vs %g)", in[best], wv);
    arg[0] = worst;
    EXPECT(replay(&pl, bad, &flips, &loss) != 0 && strstr(err_get(), "not a tie"),
           "a moved argmax must be refused: %s", err_get());

    /* the first ReLU: an output positive where the pre-activation is clearly negative */
    memcpy(bad, ref.scratch, (size_t)pl.scratch_floats * sizeof(float));
    const plan_layer *R = &pl.layer[relu];
    float *out = bad + R->out;
    long long i = 0;
    while (out[i] != 0) i++;   /* a zero output: its pre-activation was negative */
    out[i] = 0.5f;
    EXPECT(replay(&pl, bad, &flips, &loss) != 0 && strstr(err_get(), "beyond a tie"),
           "a forced ReLU must be refused: %s", err_get());
    free(bad);
    run_free(&ref);
    run_free(&omp);
    model_plan_free(&pl);
    TEST_END();
}
