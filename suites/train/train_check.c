/* suites/train/train_check.c - the reference steps and the check of a training step (the train suite: train.c). */
#include "test_hooks.h"
#include "train.h"
#include "check.h"
#include "conv_cpu.h"
#include "errmsg.h"
#include "npy.h"
#include "../../ops/loss_scale.h"
#include "../../cpu/train_cpu.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SEED_PARAMS 0x7a11c0deULL
#define SEED_PROTO 0x5eed0001ULL
#define SEED_BATCH 0xba7c4000ULL
#define SEED_CHAIN 0xc4a1a000ULL

#include "train_impl.h"

/* ---- the reference -------------------------------------------------------- */

typedef struct train_ref {
    int steps;
    double loss[TRAIN_CHECK_STEPS];
    double *grads[TRAIN_CHECK_STEPS], *params[TRAIN_CHECK_STEPS];
    /* the state each step starts from, for replays (train_check) */
    float *pre_params[TRAIN_CHECK_STEPS], *pre_state[TRAIN_CHECK_STEPS];
    /* AdamW: the backend's parameters and state after the last step checked
     * (the next step's update is checked from them) */
    float *seen_params, *seen_state;
    int seen_step;
    /* mixed precision: the fp32 reference's loss of each step (accuracy_lost) */
    double fp32_loss[TRAIN_CHECK_STEPS];
    int fp32_steps;
} train_ref;

void train_ref_free(void *r)
{
    train_ref *ref = (train_ref *)r;
    if (!ref) return;
    for (int s = 0; s < TRAIN_CHECK_STEPS; s++) {
        free(ref->grads[s]);
        free(ref->params[s]);
        free(ref->pre_params[s]);
        free(ref->pre_state[s]);
    }
    free(ref->seen_params);
    free(ref->seen_state);
    free(ref);
}

static float *copy_floats(const float *x, size_t n)
{
    float *c = (float *)malloc((n ? n : 1) * sizeof(float));
    if (c) memcpy(c, x, n * sizeof(float));
    return c;
}

static double *to_double(const float *x, long long n)
{
    double *d = (double *)malloc((size_t)(n ? n : 1) * sizeof(double));
    if (d)
        for (long long i = 0; i < n; i++) d[i] = x[i];
    return d;
}

/* A step's state on the host, for the reference and its replays: parameters
 * and optimizer state (copied from params0 / state0, zero when NULL),
 * gradients, one batch, the scratch area, the loss, and the step_bufs over
 * them. */
typedef struct host_step {
    float *params, *grads, *state, *x, *scratch, loss;
    int *labels;
    long long nstate;
    step_bufs b;
} host_step;

static void host_step_free(host_step *h)
{
    free(h->params);
    free(h->grads);
    free(h->state);
    free(h->x);
    free(h->labels);
    free(h->scratch);
}

/* 0, or -1 out of memory (h freed). */
static int host_step_alloc(const model_plan *pl, opt_kind opt, const float *params0,
                           const float *state0, host_step *h)
{
    size_t np = (size_t)pl->nparam_floats;
    memset(h, 0, sizeof *h);
    h->nstate = model_state_floats(pl, opt);
    h->params = (float *)malloc((np ? np : 1) * sizeof(float));
    h->grads = (float *)malloc((np ? np : 1) * sizeof(float));
    h->state = (float *)calloc(h->nstate ? (size_t)h->nstate : 1, sizeof(float));
    h->x = (float *)malloc((size_t)pl->in_slots * 4);
    h->labels = (int *)malloc((size_t)pl->nlabels * sizeof(int));
    h->scratch = (float *)malloc((size_t)(pl->scratch_floats ? pl->scratch_floats : 1) * 4);
    if (!h->params || !h->grads || !h->state || !h->x || !h->labels || !h->scratch) {
        host_step_free(h);
        return -1;
    }
    memcpy(h->params, params0, np * sizeof(float));
    if (state0) memcpy(h->state, state0, (size_t)h->nstate * sizeof(float));
    else model_state_init(pl, opt, h->state);
    step_bufs b = {h->x, h->labels, h->params, h->grads, h->state, &h->loss, h->scratch, NULL, NULL, NULL, 0};
    h->b = b;
    return 0;
}

/* Mixed precision: the losses of cpu-naive's fp32 steps from the same
 * initial parameters, into ref->fp32_loss. 0, or -1 (out of memory, a
 * failed step). */
static int ref_fp32_losses(const problem *p, const model_plan *pl, const float *params0,
                           train_ref *ref)
{
    step_cfg cfg = train_step_cfg(NULL, p);
    host_step h;
    int rc = 0;
    cfg.amp = DTYPE_FP32;
    if (host_step_alloc(pl, cfg.opt, params0, NULL, &h)) return -1;
    for (int s = 0; rc == 0 && s < TRAIN_CHECK_STEPS; s++) {
        train_fill_batch(pl, s, h.x, h.labels);
        if ((rc = model_step(pl, &TRAIN_OPS_CPU_NAIVE, &cfg, &h.b, NULL)) == 0) {
            ref->fp32_loss[s] = h.loss;
            ref->fp32_steps = s + 1;
        }
    }
    host_step_free(&h);
    return rc;
}

double train_accuracy(const problem *p, const void *r, int step, void *const *host)
{
    const train_ref *ref = (const train_ref *)r;
    if (dtype_autocast(p->dtype) == DTYPE_FP32 || !ref || step >= ref->fp32_steps) return NAN;
    const double f = ref->fp32_loss[step];
    return fabs((double)*(const float *)host[TB_LOSS] - f) / fabs(f);
}

/* cpu-naive's steps 0..TRAIN_CHECK_STEPS-1 from the initial parameters
 * (mixed precision: and its fp32 steps' losses). */
void *train_ref_build(const problem *p, void *const *host)
{
    model_plan pl;
    if (train_plan(p, &pl)) return NULL;
    size_t np = (size_t)pl.nparam_floats;
    train_ref *ref = (train_ref *)calloc(1, sizeof *ref);
    host_step h;
    step_cfg cfg = train_step_cfg(NULL, p);
    if (!ref || host_step_alloc(&pl, cfg.opt, (const float *)host[TB_PARAMS], NULL, &h)) {
        free(ref);
        model_plan_free(&pl);
        return NULL;
    }
    ref->seen_step = -1;
    int ok = 1;
    for (int s = 0; ok && s < TRAIN_CHECK_STEPS; s++) {
        train_fill_batch(&pl, s, h.x, h.labels);
        ref->pre_params[s] = copy_floats(h.params, np);
        ref->pre_state[s] = copy_floats(h.state, (size_t)h.nstate);
        ok = ref->pre_params[s] && ref->pre_state[s] &&
             model_step(&pl, &TRAIN_OPS_CPU_NAIVE, &cfg, &h.b, NULL) == 0;
        if (!ok) break;
        ref->loss[s] = h.loss;
        ref->grads[s] = to_double(h.grads, (long long)np);
        ref->params[s] = to_double(h.params, (long long)np);
        ok = ref->grads[s] && ref->params[s];
        ref->steps = s + 1;
    }
    host_step_free(&h);
    if (ok && dtype_autocast(p->dtype) != DTYPE_FP32)
        ok = ref_fp32_losses(p, &pl, (const float *)host[TB_PARAMS], ref) == 0;
    model_plan_free(&pl);
    if (!ok) {
        train_ref_free(ref);
        return NULL;
    }
    return ref;
}

/* ---- the check ------------------------------------------------------------ */

/* Keeps the comparison closest to (or furthest past) its tolerance. */
static void keep_worst(check_result *worst, const check_result *c)
{
    if (worst->tolerance < 0 || check_closeness(c) > check_closeness(worst)) *worst = *c;
}

/* Compares every tensor of got (laid out as the parameter buffer; `what`
 * names it: "grad", "updated") with want; the first that disagrees is named
 * in why. Keeps the closest call in *worst. 1 when all pass. */
static int compare_tensors(const model_plan *pl, const char *what, const float *got,
                           const double *want, double tol, check_result *worst, char *why,
                           size_t whycap)
{
    for (int i = 0; i < pl->nparams; i++) {
        const model_param *q = &pl->param[i];
        check_result c = check_compare(got + q->off, want + q->off, (size_t)q->n, tol);
        if (!c.pass) {
            snprintf(why, whycap, "%s %s: rel %.3g max %.3g at [%ld]%s (tol %.3g)", what, q->name,
                     c.rel_err, c.max_abs_err, c.worst_index, c.nonfinite ? ", NaN/Inf" : "", tol);
            *worst = c;
            return 0;
        }
        keep_worst(worst, &c);
    }
    return 1;
}

/* AdamW: the reference optimizer applied to the backend's own gradients,
 * from the backend's parameters and moments before this step (its outputs
 * of the step checked before, or the initial state at step 0); the result
 * must match the backend's updated parameters and moments. */
static int check_adamw(const problem *p, const model_plan *pl, train_ref *ref, int step,
                       void *const *host, double tol, check_result *worst, char *why,
                       size_t whycap)
{
    step_cfg cfg = train_step_cfg(NULL, p);
    size_t np = (size_t)pl->nparam_floats;
    const int own = ref->seen_step == step - 1 && step > 0;
    host_step h;
    double *want = NULL;
    int ok = 0;
    if (host_step_alloc(pl, cfg.opt, own ? ref->seen_params : ref->pre_params[step],
                        own ? ref->seen_state : ref->pre_state[step], &h)) {
        snprintf(why, whycap, "out of memory checking step %d", step + 1);
        return 0;
    }
    memcpy(h.grads, host[TB_GRADS], np * sizeof(float));
    if (model_update(pl, &TRAIN_OPS_CPU_NAIVE, &cfg, &h.b, NULL)) {
        snprintf(why, whycap, "%s", err_get());
        goto out;
    }
    if (!(want = to_double(h.params, (long long)np))) {
        snprintf(why, whycap, "out of memory checking step %d", step + 1);
        goto out;
    }
    ok = compare_tensors(pl, "updated", (const float *)host[TB_PARAMS], want, tol, worst, why,
                         whycap);
    for (int k = 0; ok && k < 2; k++) {   /* the moments m and v */
        for (size_t i = 0; i < np; i++) want[i] = h.state[k * np + i];
        ok = compare_tensors(pl, k ? "AdamW v of" : "AdamW m of",
                             (const float *)host[TB_STATE] + k * np, want, tol, worst, why, whycap);
    }
    if (ok && ((const float *)host[TB_STATE])[2 * np] != h.state[2 * np]) {
        snprintf(why, whycap, "AdamW step count %.9g, expected %.9g",
                 ((const float *)host[TB_STATE])[2 * np], h.state[2 * np]);
        ok = 0;
    }
    if (ok) { /* the next step is checked from this one's outputs */
        if (!ref->seen_params) ref->seen_params = (float *)malloc(np * sizeof(float));
        if (!ref->seen_state) ref->seen_state = (float *)malloc((size_t)h.nstate * sizeof(float));
        if (ref->seen_params && ref->seen_state) {
            memcpy(ref->seen_params, host[TB_PARAMS], np * sizeof(float));
            memcpy(ref->seen_state, host[TB_STATE], (size_t)h.nstate * sizeof(float));
            ref->seen_step = step;
        }
    }
out:
    free(want);
    host_step_free(&h);
    return ok;
}

/* Gradients, then (SGD) updated parameters against the reference's. */
static int compare_step(const model_plan *pl, opt_kind opt, void *const *host,
                        const double *grads, const double *params, double tol,
                        check_result *worst, char *why, size_t whycap)
{
    return compare_tensors(pl, "grad", (const float *)host[TB_GRADS], grads, tol, worst, why,
                           whycap) &&
           (opt == OPT_ADAMW || compare_tensors(pl, "updated", (const float *)host[TB_PARAMS],
                                                params, tol, worst, why, whycap));
}

/* Step s again on the host from the reference's state, deciding ReLU and
 * max-pool near-ties as the backend did (model_replay), then compares. 1
 * when the backend agrees with that replay. */
static int check_replay(const problem *p, const model_plan *pl, const train_ref *ref, int step,
                        void *const *host, double tol, check_result *worst, char *why,
                        size_t whycap)
{
    size_t np = (size_t)pl->nparam_floats;
    step_cfg cfg = train_step_cfg(NULL, p);
    host_step h;
    double *gd = NULL, *pd = NULL;
    int flips = 0, ok = 0;
    const int seen = cfg.opt == OPT_ADAMW && step > 0 && ref->seen_step == step - 1;
    if (host_step_alloc(pl, cfg.opt, seen ? ref->seen_params : ref->pre_params[step],
                        seen ? ref->seen_state : ref->pre_state[step], &h)) {
        snprintf(why, whycap, "out of memory replaying step %d", step + 1);
        return 0;
    }
    train_fill_batch(pl, step, h.x, h.labels);
    if (model_replay(pl, &TRAIN_OPS_CPU_NAIVE, &cfg, &h.b, (const float *)host[TB_SCRATCH], tol,
                     &flips)) {
        snprintf(why, whycap, "%s", err_get());
        goto out;
    }
    gd = to_double(h.grads, (long long)np);
    pd = to_double(h.params, (long long)np);
    if (!gd || !pd) {
        snprintf(why, whycap, "out of memory replaying step %d", step + 1);
        goto out;
    }
    ok = compare_step(pl, cfg.opt, host, gd, pd, tol, worst, why, whycap);
    if (ok && flips)
        case_note_set("step %d: %d ReLU/max-pool near-ties decided otherwise than cpu-naive; "
                      "checked against cpu-naive deciding them alike", step + 1, flips);
    else if (!ok && flips) {
        size_t u = strlen(why);
        snprintf(why + u, whycap - u, " (after %d near-ties replayed)", flips);
    }
out:
    host_step_free(&h);
    free(gd);
    free(pd);
    return ok;
}

/* AdamW after step 1: the reference's step s from the backend's own
 * parameters and moments after step s-1 (those were checked), so that the
 * loss and gradients compared are of the same parameters: AdamW moves every
 * parameter whose gradient was rounding noise by a full lr * sign(noise),
 * and from then on two correct runs differ by far more than rounding. The
 * loss into *loss, the gradients into *grads (allocated). 0, or -1 with why. */
static int ref_from_seen(const problem *p, const model_plan *pl, const train_ref *ref, int step,
                         double *loss, double **grads, char *why, size_t whycap)
{
    step_cfg cfg = train_step_cfg(NULL, p);
    host_step h;
    *grads = NULL;
    if (ref->seen_step != step - 1) {
        snprintf(why, whycap, "step %d was not checked, so step %d has no AdamW state to check from",
                 step, step + 1);
        return -1;
    }
    if (host_step_alloc(pl, cfg.opt, ref->seen_params, ref->seen_state, &h)) {
        snprintf(why, whycap, "out of memory checking step %d", step + 1);
        return -1;
    }
    train_fill_batch(pl, step, h.x, h.labels);
    int rc = model_step(pl, &TRAIN_OPS_CPU_NAIVE, &cfg, &h.b, NULL);
    if (rc) snprintf(why, whycap, "%s", err_get());
    else if (!(*grads = to_double(h.grads, pl->nparam_floats))) {
        snprintf(why, whycap, "out of memory checking step %d", step + 1);
        rc = -1;
    }
    *loss = h.loss;
    host_step_free(&h);
    return rc;
}

/* The backend's parameters and optimizer state after `step`, the state the
 * next step is checked from (AdamW: check_adamw records them). */
static void keep_seen(const model_plan *pl, train_ref *ref, int step, void *const *host,
                      long long nstate)
{
    size_t np = (size_t)pl->nparam_floats;
    if (!ref->seen_params) ref->seen_params = (float *)malloc(np * sizeof(float));
    if (!ref->seen_state) ref->seen_state = (float *)malloc((size_t)(nstate ? nstate : 1) * 4);
    if (!ref->seen_params || !ref->seen_state) return;
    memcpy(ref->seen_params, host[TB_PARAMS], np * sizeof(float));
    memcpy(ref->seen_state, host[TB_STATE], (size_t)nstate * sizeof(float));
    ref->seen_step = step;
}

/* amp-fp16's loss scaler: the backend's scaler state after the step (scale,
 * growth tracker, skipped and step counts, the step's flag) must equal the
 * replay's h, exactly (both run ops/loss_scale.h's rule on the same finding).
 * When the replay found an inf/NaN gradient, the backend's parameters and
 * optimizer state, and the replay's, must be those the step started from
 * (params0, state0), bit for bit; its gradients hold the inf and are not
 * compared: *worst passes and the note says so. 1 when all agree
 * (worst->pass 1: the step was skipped, 0: go on to compare it); 0 with why. */
static int check_scaler(const model_plan *pl, opt_kind opt, void *const *host, const host_step *h,
                        const float *params0, const float *state0, int step, double tol,
                        check_result *worst, char *why, size_t whycap)
{
    const float *want = model_scaler(pl, opt, h->state);
    const float *got = model_scaler(pl, opt, (float *)host[TB_STATE]);
    const size_t np = (size_t)pl->nparam_floats, nopt = (size_t)(h->nstate - (want ? LS_FLOATS : 0));
    worst->pass = 0;
    if (!want) return 1;
    for (int i = 0; i < LS_FLOATS; i++)
        if (got[i] != want[i]) {
            snprintf(why, whycap, "loss scaler: scale %.9g, skipped %.9g, last step %s; cpu-naive "
                     "%.9g, %.9g, %s (state [%d] %.9g vs %.9g)", got[LS_SCALE], got[LS_SKIPPED],
                     got[LS_LAST] != 0.0f ? "skipped" : "taken", want[LS_SCALE], want[LS_SKIPPED],
                     want[LS_LAST] != 0.0f ? "skipped" : "taken", i, got[i], want[i]);
            return 0;
        }
    if (want[LS_LAST] == 0.0f) return 1;
    if (memcmp(host[TB_PARAMS], params0, np * sizeof(float)) != 0 ||
        memcmp(host[TB_STATE], state0, nopt * sizeof(float)) != 0 ||
        memcmp(h->params, params0, np * sizeof(float)) != 0 ||
        memcmp(h->state, state0, nopt * sizeof(float)) != 0) {
        snprintf(why, whycap, "step %d had an inf/NaN gradient, to be skipped, but the %s's "
                 "parameters or optimizer state changed", step + 1,
                 memcmp(h->params, params0, np * sizeof(float)) ||
                 memcmp(h->state, state0, nopt * sizeof(float)) ? "reference" : "backend");
        return 0;
    }
    worst->pass = 1;
    if (worst->tolerance < 0) worst->tolerance = tol;
    case_note_set("step %d skipped (an inf/NaN gradient): loss scale %.9g, as cpu-naive's; "
                  "parameters unchanged", step + 1, want[LS_SCALE]);
    return 1;
}

/* A mixed-precision step (amp-bf16, amp-fp16): the reference's step from the
 * state the backend started it from (the initial state, then the backend's
 * own outputs of the step before, which were checked), taking the backend's
 * 16-bit roundings near a tie and its ReLU / max-pool near-ties
 * (model_replay): a correct backend then differs from it by fp32 rounding
 * alone, and one step's fp32 tolerance applies. Without that, a value that
 * two correct runs hold one fp32 rounding apart, rounded to 16 bits on either
 * side of a boundary, differs by a 16-bit ulp, and such differences grow
 * through the step to the size of a planted fault. */
static check_result check_amp(const problem *p, const model_plan *pl, train_ref *ref, int step,
                              void *const *host, double tol, char *why, size_t whycap)
{
    const step_cfg cfg = train_step_cfg(NULL, p);
    const size_t np = (size_t)pl->nparam_floats;
    check_result worst = {0, 0, -1, 0, -1, 1}, c;
    host_step h;
    double *gd = NULL, *pd = NULL, want_loss;
    int flips = 0;
    worst.pass = 0;
    if (step > 0 && ref->seen_step != step - 1) {
        snprintf(why, whycap, "step %d was not checked, so step %d has no state to check from",
                 step, step + 1);
        return worst;
    }
    if (host_step_alloc(pl, cfg.opt, step ? ref->seen_params : ref->pre_params[0],
                        step ? ref->seen_state : ref->pre_state[0], &h)) {
        snprintf(why, whycap, "out of memory checking step %d", step + 1);
        return worst;
    }
    train_fill_batch(pl, step, h.x, h.labels);
    if (model_replay(pl, &TRAIN_OPS_CPU_NAIVE, &cfg, &h.b, (const float *)host[TB_SCRATCH], tol,
                     &flips)) {
        snprintf(why, whycap, "%s", err_get());
        goto out;
    }
    want_loss = h.loss;
    c = check_compare((const float *)host[TB_LOSS], &want_loss, 1, tol);
    if (!c.pass) {
        snprintf(why, whycap, "loss %.7g, cpu-naive %.7g (rel %.3g > tol %.3g)",
                 *(const float *)host[TB_LOSS], want_loss, c.rel_err, tol);
        worst = c;
        goto out;
    }
    worst = c;
    if (!check_scaler(pl, cfg.opt, host, &h, step ? ref->seen_params : ref->pre_params[0],
                      step ? ref->seen_state : ref->pre_state[0], step, tol, &worst, why, whycap))
        goto out;
    if (worst.pass) { /* a skipped step: nothing updated, as in the replay */
        keep_seen(pl, ref, step, host, h.nstate);   /* the next step starts from it */
        goto out;
    }
    gd = to_double(h.grads, (long long)np);
    pd = to_double(h.params, (long long)np);
    if (!gd || !pd) {
        snprintf(why, whycap, "out of memory checking step %d", step + 1);
        worst.pass = 0;
        goto out;
    }
    if (!compare_step(pl, cfg.opt, host, gd, pd, tol, &worst, why, whycap) ||
        (cfg.opt == OPT_ADAMW && !check_adamw(p, pl, ref, step, host, tol, &worst, why, whycap))) {
        worst.pass = 0;
        if (flips) {
            size_t u = strlen(why);
            snprintf(why + u, whycap - u, " (after %d roundings or near-ties replayed)", flips);
        }
        goto out;
    }
    worst.pass = 1;
    if (cfg.opt != OPT_ADAMW) keep_seen(pl, ref, step, host, h.nstate);
    if (flips)
        case_note_set("step %d: %d 16-bit roundings or ReLU/max-pool near-ties taken otherwise than "
                      "cpu-naive; checked against cpu-naive taking them alike", step + 1, flips);
out:
    if (worst.tolerance < 0) worst.tolerance = tol;
    host_step_free(&h);
    free(gd);
    free(pd);
    return worst;
}

check_result train_check(const problem *p, const void *r, int step, dtype_t dt,
                                void *const *host, char *why, size_t whycap)
{
    train_ref *ref = (train_ref *)r;   /* AdamW keeps the backend's last state in it */
    model_plan pl;
    check_result worst = {0, 0, -1, 0, -1, 1}, c;
    const opt_kind opt = (opt_kind)p->dim[TRAIN_DIM_OPT];
    if (train_plan(p, &pl)) {
        snprintf(why, whycap, "no plan for %s", p->desc);
        worst.pass = 0;
        return worst;
    }
    double tol = check_tolerance(dt, pl.longest_reduction) * (step + 1);
    double want_loss = 0, *seen_grads = NULL;
    if (dtype_autocast(dt) != DTYPE_FP32) {   /* one step's tolerance, from the same state */
        worst = check_amp(p, &pl, ref, step, host, check_tolerance(dt, pl.longest_reduction),
                          why, whycap);
        goto out;
    }
    if (step >= ref->steps) {
        snprintf(why, whycap, "no reference for step %d", step + 1);
        worst.pass = 0;
        goto out;
    }
    want_loss = ref->loss[step];
    const double *want_grads = ref->grads[step];
    if (opt == OPT_ADAMW && step > 0) {
        if (ref_from_seen(p, &pl, ref, step, &want_loss, &seen_grads, why, whycap)) {
            worst.pass = 0;
            goto out;
        }
        want_grads = seen_grads;
        tol = check_tolerance(dt, pl.longest_reduction);   /* one step from the same state */
    }
    c = check_compare((const float *)host[TB_LOSS], &want_loss, 1, tol);
    if (!c.pass) {
        snprintf(why, whycap, "loss %.7g, cpu-naive %.7g (rel %.3g > tol %.3g)",
                 *(const float *)host[TB_LOSS], want_loss, c.rel_err, tol);
        worst = c;
        goto out;
    }
    keep_worst(&worst, &c);
    /* a ReLU or max-pool near-tie broken the other way moves gradients far
     * more than rounding: then the backend must agree with the reference
     * breaking those ties (and only those) as it did */
    check_result strict = worst;
    if (compare_step(&pl, opt, host, want_grads, ref->params[step], tol, &strict, why, whycap))
        worst = strict;
    else if (pl.m->kind == MODEL_CHAIN &&
             check_replay(p, &pl, ref, step, host, tol, &worst, why, whycap))
        worst.pass = 1;
    else {
        if (pl.m->kind != MODEL_CHAIN) worst = strict;
        worst.pass = 0;
        if (worst.tolerance < 0) worst.tolerance = tol;
        goto out;
    }
    if (opt == OPT_ADAMW && !check_adamw(p, &pl, ref, step, host, tol, &worst, why, whycap)) {
        worst.pass = 0;
        if (worst.tolerance < 0) worst.tolerance = tol;
    }
out:
    free(seen_grads);
    model_plan_free(&pl);
    return worst;
}
