/* tests/ops/loss_scale_test.c - the test of ops/loss_scale.h, the dynamic
 * loss scaler's rule, through the CPU tables' amp_scale and amp_unscale
 * (cpu/train_naive_seq.c): PyTorch GradScaler's defaults, unscaling, the
 * backoff and skip on inf and NaN, growth after LS_INTERVAL good steps (a
 * count no CLI run of a few steps reaches), growth kept only if finite, and
 * the planted overflow of BENCH_PLANT_OVERFLOW. */
#include "../../ops/loss_scale.h"
#include "../../cpu/train_cpu.h"
#include "testutil.h"

#include <float.h>
#include <math.h>

#define N 5

/* One step of the scaler over g (N floats); returns the step's found flag. */
static int step(float *ls, float *g, int plant)
{
    int found = -1;
    EXPECT(TRAIN_OPS_CPU_NAIVE.amp_unscale(N, g, ls, plant, &found, NULL) == 0, "amp_unscale runs");
    EXPECT(found == (ls[LS_LAST] != 0.0f), "found %d is LS_LAST %g", found, ls[LS_LAST]);
    EXPECT(ls[LS_FOUND] == 0.0f, "LS_FOUND cleared after the step");
    return found;
}

int main(void)
{
    float ls[LS_FLOATS], g[N], x[N];
    /* GradScaler's defaults (torch.amp.GradScaler) */
    EXPECT(LS_INIT_SCALE == 65536.0f && LS_GROWTH == 2.0f && LS_BACKOFF == 0.5f &&
           LS_INTERVAL == 2000, "GradScaler's defaults");
    ls_init(ls);
    EXPECT(ls[LS_SCALE] == LS_INIT_SCALE && ls[LS_GOOD] == 0 && ls[LS_SKIPPED] == 0 &&
           ls[LS_STEPS] == 0, "a fresh scaler");

    /* amp_scale multiplies by the scale; amp_unscale divides it out again */
    for (int i = 0; i < N; i++) x[i] = 0.25f * (float)(i + 1);
    EXPECT(TRAIN_OPS_CPU_NAIVE.amp_scale(N, ls, x, NULL) == 0, "amp_scale runs");
    for (int i = 0; i < N; i++)
        EXPECT(x[i] == 0.25f * (float)(i + 1) * LS_INIT_SCALE, "scaled x[%d] = %g", i, x[i]);
    EXPECT(step(ls, x, 0) == 0, "finite gradients: not skipped");
    for (int i = 0; i < N; i++) EXPECT(x[i] == 0.25f * (float)(i + 1), "unscaled x[%d] = %g", i, x[i]);
    EXPECT(ls[LS_GOOD] == 1 && ls[LS_STEPS] == 1 && ls[LS_SCALE] == LS_INIT_SCALE, "one good step");

    /* an inf, then a NaN: skipped, the scale backs off, the tracker resets */
    const float bad[2] = {INFINITY, NAN};
    for (int k = 0; k < 2; k++) {
        const float before = ls[LS_SCALE], skipped = ls[LS_SKIPPED];
        for (int i = 0; i < N; i++) g[i] = 1.0f;
        g[N - 1 - k] = bad[k];
        EXPECT(step(ls, g, 0) == 1, "%s gradient: skipped", k ? "NaN" : "inf");
        EXPECT(ls[LS_SCALE] == before * LS_BACKOFF, "scale %g after %g", ls[LS_SCALE], before);
        EXPECT(ls[LS_GOOD] == 0 && ls[LS_SKIPPED] == skipped + 1, "tracker reset, skip counted");
    }

    /* LS_INTERVAL consecutive good steps double the scale, one fewer does not */
    const float s0 = ls[LS_SCALE];
    for (int k = 1; k <= LS_INTERVAL; k++) {
        for (int i = 0; i < N; i++) g[i] = 1.0f;
        EXPECT(step(ls, g, 0) == 0, "good step %d", k);
        const float want = k < LS_INTERVAL ? s0 : s0 * LS_GROWTH;
        if (ls[LS_SCALE] != want || ls[LS_GOOD] != (float)(k % LS_INTERVAL)) {
            EXPECT(0, "after %d good steps: scale %g (want %g), tracker %g", k, ls[LS_SCALE], want,
                   ls[LS_GOOD]);
            break;
        }
    }

    /* growth that would overflow keeps the scale */
    ls[LS_SCALE] = FLT_MAX;
    ls[LS_GOOD] = (float)(LS_INTERVAL - 1);
    for (int i = 0; i < N; i++) g[i] = 1.0f;
    EXPECT(step(ls, g, 0) == 0 && ls[LS_SCALE] == FLT_MAX && ls[LS_GOOD] == 0,
           "growth to inf not taken: scale %g", ls[LS_SCALE]);

    /* the planted overflow: only at the scaler's step `plant`, element 0 */
    ls_init(ls);
    for (int i = 0; i < N; i++) g[i] = 2.0f;
    EXPECT(step(ls, g, 2) == 0, "plant 2 spares step 1");
    for (int i = 0; i < N; i++) g[i] = 2.0f;
    EXPECT(step(ls, g, 2) == 1 && isinf(g[0]) && g[1] == 2.0f / LS_INIT_SCALE,
           "plant 2 makes step 2's g[0] inf (%g)", g[0]);
    EXPECT(ls[LS_SKIPPED] == 1 && ls[LS_SCALE] == LS_INIT_SCALE * LS_BACKOFF, "planted: skipped");
    TEST_END();
}
