#define _POSIX_C_SOURCE 200809L
/* suites/train/train.c - the training-step suite, host half (train.h).
 *
 * Data. Parameters start as PyTorch initialises each module (model.h's init
 * kinds: nn.Conv2d and nn.Linear U(+-1/sqrt(fan_in)) for weight and bias,
 * nn.LSTM U(+-1/sqrt(hidden)), nn.Embedding N(0, 1), nn.LayerNorm ones and
 * zeros), drawn from our seeded generator. The chain models' input sets are
 * one batch each with class structure: label y uniform over the classes,
 * x = 0.6 * prototype[y] + 0.4 * noise (prototypes fixed per model, noise
 * per set), both uniform in [-1, 1). The sequence models read symbol
 * sequences of a fixed random Markov chain (each symbol has four likely
 * successors): the input is the symbol (one-hot for rnn and lstm, a token id
 * for gpt), the target the next one. Either way the loss falls over steps.
 *
 * Reference and check. The reference runs TRAIN_CHECK_STEPS steps of the
 * cpu-naive table (double accumulation) from the initial parameters, step s
 * on input set s, and keeps the loss, every gradient and every updated
 * parameter of each step. After step s of a backend, each of those tensors is
 * compared with the one checker (harness/check.h), with
 *     tol = check_tolerance(dtype, R) * (s + 1)
 * R being the length of the step's longest chain of reductions (forward,
 * loss, backward, through every time step of a recurrence:
 * model_plan.longest_reduction), because a rounding error made in any op
 * flows through all the ops after it, and (s + 1) because step s starts from
 * the parameters steps 0..s-1 computed. The row fails naming the first
 * tensor that disagrees (loss, then gradients, then updated parameters).
 * AdamW's update is checked against the reference optimizer applied to the
 * backend's own gradients, parameters and moments: its first steps turn a
 * gradient of pure rounding noise (attention's key bias has a true gradient
 * of 0) into a full-size update lr * sign(g), so the reference's own update
 * is no yardstick for it. The gradients are checked against the reference's.
 * Max-pool argmax: values within rounding of each other in a window may pick
 * different winners on different backends; see train_check for how a
 * gradient that only differs by such a tie is told from a wrong one.
 */
#include "test_hooks.h"
#include "train.h"
#include "check.h"
#include "conv_cpu.h"
#include "errmsg.h"
#include "npy.h"
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

/* ---- problems ------------------------------------------------------------- */

static const char *const OPT_SUFFIX[] = {"", "-mom", "-adamw"};

int train_plan(const problem *p, model_plan *pl)
{
    return model_plan_make(&MODELS[p->dim[TRAIN_DIM_MODEL]], (int)p->dim[TRAIN_DIM_B], pl);
}

step_cfg train_step_cfg(const backend_def *b, const problem *p)
{
    /* Test hook: BENCH_PLANT_SKIP_BIAS=<backend> drops that backend's update
     * of the last parameter tensor (a planted fault the check must catch). */
    const char *plant = getenv(HOOK_PLANT_SKIP_BIAS);
    const opt_kind o = (opt_kind)p->dim[TRAIN_DIM_OPT];
    step_cfg c = {.opt = o,
                  .lr = o == OPT_ADAMW ? TRAIN_ADAMW_LR : TRAIN_LR,
                  .momentum = o == OPT_MOMENTUM ? TRAIN_MOMENTUM : 0.0f,
                  .beta1 = 0.9f,
                  .beta2 = 0.999f,
                  .eps = 1e-8f,
                  .weight_decay = 0.01f};
    c.skip_bias_update = b && plant && strcmp(plant, b->name) == 0;
    return c;
}

static void set_problem(problem *p, int model, long B, int opt)
{
    model_plan pl;
    memset(p, 0, sizeof *p);
    p->dim[TRAIN_DIM_MODEL] = model;
    p->dim[TRAIN_DIM_B] = B;
    p->dim[TRAIN_DIM_OPT] = opt;
    snprintf(p->desc, sizeof p->desc, "%s-b%ld%s", MODELS[model].name, B, OPT_SUFFIX[opt]);
    /* the case is the model (as a conv case is its layer): its rows at every
     * batch share it, so the report draws one line per model and backend over
     * the batch sizes; the shape column (desc) names the problem */
    snprintf(p->name, sizeof p->name, "%s%s", MODELS[model].name, OPT_SUFFIX[opt]);
    if (train_plan(p, &pl) == 0) {
        /* the plan counts SGD's 2 FLOPs per parameter; AdamW's ~12 */
        p->flops = pl.flops + (opt == OPT_ADAMW ? 10.0 * (double)pl.nparam_floats : 0.0);
        model_plan_free(&pl);
    }
    p->items = (double)B;
}

static int train_parse(const char *s, problem *p, char *err, size_t errcap)
{
    int model = -1;
    size_t best = 0;
    for (int i = 0; MODELS[i].name; i++) { /* the longest name that prefixes s: mlp-small */
        size_t n = strlen(MODELS[i].name);
        if (strncmp(s, MODELS[i].name, n) == 0 && strncmp(s + n, "-b", 2) == 0 && n > best) {
            model = i;
            best = n;
        }
    }
    if (model < 0) return -1;
    const char *q = s + best + 2;
    char *end;
    if (!isdigit((unsigned char)*q)) { /* a sign, a space: named, with the range */
        snprintf(err, errcap, "bench: train problem '%s': the batch after -b must be a number from "
                 "1 to %d (got '%.24s')", s, TRAIN_MAX_BATCH, q);
        return 2;
    }
    errno = 0;
    long B = strtol(q, &end, 10);
    if (errno || B < 1 || B > TRAIN_MAX_BATCH) {
        snprintf(err, errcap, "bench: train problem '%s': batch %.*s out of range 1..%d", s,
                 (int)(end - q < 24 ? end - q : 24), q, TRAIN_MAX_BATCH);
        return 2;
    }
    int opt = -1;
    for (int o = 0; o < (int)(sizeof OPT_SUFFIX / sizeof OPT_SUFFIX[0]); o++)
        if (strcmp(end, OPT_SUFFIX[o]) == 0) opt = o;
    if (opt < 0) {
        snprintf(err, errcap, "bench: train problem '%s': unexpected '%.32s' (form: %s)", s, end,
                 "<model>-b<batch>[-mom|-adamw]");
        return 2;
    }
    set_problem(p, model, B, opt);
    return 0;
}

/* Default batches: the chain models' sweep, the sequence models' named
 * problems (rnn-b32, lstm-b32, gpt-b8, the last also with AdamW); --quick
 * keeps each model once, small. */
static int train_defaults(int quick, int big, problem *out, int cap)
{
    static const int DEFAULT_B[] = {64, 256}, BIG_B[] = {16, 64, 256, 1024}, QUICK_B[] = {16};
    int n = 0;
    for (int m = 0; MODELS[m].name; m++) {
        const model_def *d = &MODELS[m];
        if (d->kind == MODEL_CHAIN) {
            const int *bs = quick ? QUICK_B : big ? BIG_B : DEFAULT_B;
            int nb = quick ? 1 : big ? 4 : 2;
            for (int i = 0; i < nb && n < cap; i++) set_problem(&out[n++], m, bs[i], OPT_SGD);
            continue;
        }
        const int named = d->kind == MODEL_GPT ? 8 : 32;
        const int small = d->kind == MODEL_RNN ? 8 : d->kind == MODEL_LSTM ? 2 : 2;
        const int B = quick ? small : named;
        if (n < cap) set_problem(&out[n++], m, B, d->kind == MODEL_GPT && quick ? OPT_ADAMW : OPT_SGD);
        if (!quick && d->kind == MODEL_GPT && n < cap) set_problem(&out[n++], m, B, OPT_ADAMW);
        if (big && n < cap) set_problem(&out[n++], m, 4 * B, OPT_SGD);
    }
    return n;
}

/* ---- buffers and data ----------------------------------------------------- */

static void train_layout(const problem *p, case_layout *l)
{
    model_plan pl;
    if (train_plan(p, &pl)) return;
    size_t np = (size_t)pl.nparam_floats * sizeof(float);
    long long st = model_state_floats(&pl, (opt_kind)p->dim[TRAIN_DIM_OPT]);
    int g = layout_add(l, "grads", ROLE_OUT, SPLIT_WHOLE, np);
    l->buf[g].keep = 1;
    l->trace = 1 + layout_add(l, "loss", ROLE_OUT, SPLIT_WHOLE, sizeof(float));
    layout_add(l, "x", ROLE_IN, SPLIT_WHOLE, (size_t)pl.in_slots * 4);
    layout_add(l, "labels", ROLE_IN, SPLIT_WHOLE, (size_t)pl.nlabels * sizeof(int));
    layout_add(l, "params", ROLE_INOUT, SPLIT_WHOLE, np);
    layout_add(l, "opt_state", ROLE_INOUT, SPLIT_WHOLE, (size_t)st * sizeof(float));
    /* activations: read by the check (ReLU and max-pool decisions) */
    int a = layout_add(l, "activations", ROLE_OUT, SPLIT_WHOLE,
                       (size_t)pl.scratch_floats * sizeof(float));
    l->buf[a].keep = 1;
    l->stateful = 1;
    l->streams = STREAMS_PIPELINE;
    l->max_chunks = 1;
    l->sets = TRAIN_CHECK_STEPS + 1;
    /* per step: loss, grads, params in double; the state each step starts from */
    l->ref_bytes = TRAIN_CHECK_STEPS * (8.0 + 20.0 * (double)pl.nparam_floats + 4.0 * (double)st) +
                   8.0 * (double)pl.nparam_floats + 4.0 * (double)st;
    model_plan_free(&pl);
}

/* One standard normal per element (Box-Muller on our uniform generator). */
static void fill_normal(float *x, long long n, unsigned long long seed)
{
    float u[2];
    for (long long i = 0; i < n; i++) {
        rng_fill_uniform(u, 2, seed * 0x9e3779b97f4a7c15ULL + (unsigned long long)i);
        double u1 = 1.0 - 0.5 * (u[0] + 1.0), u2 = 0.5 * (u[1] + 1.0);   /* (0, 1], [0, 1) */
        x[i] = (float)(sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2));
    }
}

/* The initial parameters, as PyTorch draws them (see the top of the file). */
static void init_params(const model_plan *pl, float *params)
{
    for (int i = 0; i < pl->nparams; i++) {
        const model_param *q = &pl->param[i];
        float *p = params + q->off;
        switch (q->init) {
        case INIT_UNIFORM:
            rng_fill_uniform(p, (size_t)q->n, SEED_PARAMS + (unsigned long long)i);
            for (long long k = 0; k < q->n; k++) p[k] *= (float)q->bound;
            break;
        case INIT_NORMAL: fill_normal(p, q->n, SEED_PARAMS + (unsigned long long)i); break;
        case INIT_ONES:
            for (long long k = 0; k < q->n; k++) p[k] = 1.0f;
            break;
        case INIT_ZEROS: memset(p, 0, (size_t)q->n * sizeof(float)); break;
        }
    }
}

/* Chain models: batch `set`, labels and class-structured inputs. */
static void fill_classes(const model_plan *pl, int set, float *x, int *labels)
{
    const model_def *m = pl->m;
    long long per = (long long)m->C * m->H * m->W;
    float *proto = (float *)malloc((size_t)per * sizeof(float));
    float *u = (float *)malloc((size_t)pl->B * sizeof(float));
    if (!proto || !u) { /* fill cannot fail: fall back to noise alone */
        free(proto);
        free(u);
        rng_fill_uniform(x, (size_t)pl->in_slots, SEED_BATCH + (unsigned long long)set);
        for (int n = 0; n < pl->B; n++) labels[n] = (n * 7 + set) % m->classes;
        return;
    }
    rng_fill_uniform(u, (size_t)pl->B, SEED_BATCH * 3 + (unsigned long long)set);
    for (int n = 0; n < pl->B; n++) {
        int y = (int)((u[n] + 1.0f) * 0.5f * (float)m->classes);
        labels[n] = y < 0 ? 0 : y >= m->classes ? m->classes - 1 : y;
    }
    rng_fill_uniform(x, (size_t)pl->in_slots, SEED_BATCH + (unsigned long long)set);
    for (int c = 0; c < m->classes; c++) {
        rng_fill_uniform(proto, (size_t)per, SEED_PROTO + (unsigned long long)c);
        for (int n = 0; n < pl->B; n++)
            if (labels[n] == c)
                for (long long k = 0; k < per; k++)
                    x[n * per + k] = 0.6f * proto[k] + 0.4f * x[n * per + k];
    }
    free(proto);
    free(u);
}

/* A uniform draw in [0, 1) from (seed, i). */
static double uniform01(unsigned long long seed, unsigned long long i)
{
    float u;
    rng_fill_uniform(&u, 1, seed * 0x9e3779b97f4a7c15ULL + i);
    return 0.5 * ((double)u + 1.0);
}

/* Sequence models: B sequences of T + 1 symbols of the model's Markov chain
 * (symbol a is followed by one of four successors fixed per model, with
 * probabilities .55 .25 .12 .08; the first symbol uniform); the input is
 * symbols 0..T-1 (one-hot floats, or ids), the labels symbols 1..T. */
static void fill_sequences(const model_plan *pl, int set, void *x, int *labels)
{
    const model_def *m = pl->m;
    const int V = m->classes, T = m->seq;
    static const double CUM[4] = {0.55, 0.80, 0.92, 1.0};
    if (!pl->x_ids) memset(x, 0, (size_t)pl->in_slots * sizeof(float));
    for (int b = 0; b < pl->B; b++) {
        unsigned long long row = ((unsigned long long)set << 32) | (unsigned)b;
        int a = (int)(uniform01(SEED_BATCH, row) * V) % V;
        for (int t = 0; t <= T; t++) {
            if (t) {
                double u = uniform01(SEED_BATCH + 1 + (unsigned long long)t, row);
                int k = 0;
                while (k < 3 && u >= CUM[k]) k++;
                /* successor k of a: fixed per (a, k) */
                a = (int)(uniform01(SEED_CHAIN, (unsigned long long)a * 4 + (unsigned)k) * V) % V;
                labels[(long)b * T + t - 1] = a;
            }
            if (t == T) break;
            if (pl->x_ids) ((int *)x)[(long)b * T + t] = a;
            else ((float *)x)[((long)b * T + t) * m->input + a] = 1.0f;
        }
    }
}

static void fill_batch(const model_plan *pl, int set, void *x, int *labels)
{
    if (pl->m->kind == MODEL_CHAIN) fill_classes(pl, set, (float *)x, labels);
    else fill_sequences(pl, set, x, labels);
}

static void train_fill(const problem *p, int set, void *const *host)
{
    model_plan pl;
    if (train_plan(p, &pl)) return;
    fill_batch(&pl, set, host[TB_X], (int *)host[TB_LABELS]);
    init_params(&pl, (float *)host[TB_PARAMS]);
    long long st = model_state_floats(&pl, (opt_kind)p->dim[TRAIN_DIM_OPT]);
    if (st) memset(host[TB_STATE], 0, (size_t)st * sizeof(float));
    model_plan_free(&pl);
}

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
} train_ref;

static void train_ref_free(void *r)
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
    step_bufs b = {h->x, h->labels, h->params, h->grads, h->state, &h->loss, h->scratch, NULL, NULL, NULL};
    h->b = b;
    return 0;
}

/* cpu-naive's steps 0..TRAIN_CHECK_STEPS-1 from the initial parameters. */
static void *train_ref_build(const problem *p, void *const *host)
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
        fill_batch(&pl, s, h.x, h.labels);
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
    fill_batch(pl, step, h.x, h.labels);
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
    fill_batch(pl, step, h.x, h.labels);
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

static check_result train_check(const problem *p, const void *r, int step, dtype_t dt,
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

/* ---- CPU backends --------------------------------------------------------- */

static int train_cpu_run(const backend_def *b, const problem *p, void *const *host)
{
    model_plan pl;
    const train_ops *ops = (const train_ops *)b->ops;
    step_cfg cfg = train_step_cfg(b, p);
    if (!ops) {
        err_set("%s has no training ops in this build", b->name);
        return -1;
    }
    if (train_plan(p, &pl)) {
        err_set("no plan for %s", p->desc);
        return -1;
    }
    step_bufs sb = {host[TB_X], (const int *)host[TB_LABELS], (float *)host[TB_PARAMS],
                    (float *)host[TB_GRADS], (float *)host[TB_STATE], (float *)host[TB_LOSS],
                    (float *)host[TB_SCRATCH], NULL, NULL, NULL};
    int rc = model_step(&pl, ops, &cfg, &sb, NULL);
    model_plan_free(&pl);
    case_note_clear(); /* a conv route's note speaks of one layer, not of the step */
    return rc;
}

/* ---- --dump --------------------------------------------------------------- */

static int write_text(const char *dir, const char *name, const char *text)
{
    char path[4200], tmp[4300];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "wx");
    if (!f) {
        err_set("cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    errno = 0;
    int bad = fputs(text, f) < 0;
    int e = errno;
    if (fclose(f) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    if (!bad && rename(tmp, path) != 0) {
        bad = 1;
        e = errno;
    }
    if (bad) {
        err_set("cannot write %s: %s", path, strerror(e ? e : EIO));
        unlink(tmp);
        return -1;
    }
    return 0;
}

static int dump_tensors(const model_plan *pl, const char *dir, const char *sub, const float *all)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, sub);
    if (mkdir(path, 0755) != 0) {
        err_set("cannot create %s: %s", path, strerror(errno));
        return -1;
    }
    for (int i = 0; i < pl->nparams; i++) {
        const model_param *q = &pl->param[i];
        long long shape[4];
        for (int k = 0; k < q->ndim; k++) shape[k] = q->shape[k];
        snprintf(path, sizeof path, "%s/%s/%s.npy", dir, sub, q->name);
        if (npy_write(path, "<f4", q->ndim, shape, all + q->off, (size_t)q->n * sizeof(float)))
            return -1;
    }
    return 0;
}

/* config.txt: the model's sizes and the optimizer's settings, key=value. */
static int write_config(const model_plan *pl, const step_cfg *c, const char *dir)
{
    static const char *const OPT_NAME[] = {"sgd", "sgd", "adamw"};
    const model_def *m = pl->m;
    char text[1024];
    int n = snprintf(text, sizeof text, "model=%s\nbatch=%d\nclasses=%d\n", m->name, pl->B,
                     m->classes);
    if (m->kind == MODEL_CHAIN)
        n += snprintf(text + n, sizeof text - (size_t)n, "channels=%d\nheight=%d\nwidth=%d\n", m->C,
                      m->H, m->W);
    else
        n += snprintf(text + n, sizeof text - (size_t)n,
                      "seq=%d\ninput=%d\nhidden=%d\nlayers=%d\nvocab=%d\nembd=%d\nheads=%d\n", m->seq,
                      m->input, m->hidden, m->depth, m->classes, m->embd, m->heads);
    snprintf(text + n, sizeof text - (size_t)n,
             "optimizer=%s\nlr=%.9g\nmomentum=%.9g\nbeta1=%.9g\nbeta2=%.9g\neps=%.9g\n"
             "weight_decay=%.9g\n",
             OPT_NAME[c->opt], (double)c->lr, (double)c->momentum,
             (double)(c->opt == OPT_ADAMW ? c->beta1 : 0), (double)(c->opt == OPT_ADAMW ? c->beta2 : 0),
             (double)(c->opt == OPT_ADAMW ? c->eps : 0),
             (double)(c->opt == OPT_ADAMW ? c->weight_decay : 0));
    return write_text(dir, "config.txt", text);
}

static int train_dump(const problem *p, void *const *in, void *const *out, const char *dir)
{
    model_plan pl;
    char path[4200], text[64];
    if (train_plan(p, &pl)) {
        err_set("no plan for %s", p->desc);
        return -1;
    }
    const model_def *m = pl.m;
    step_cfg cfg = train_step_cfg(NULL, p);
    long long xshape[4] = {pl.B, m->C, m->H, m->W}, lshape[2] = {pl.B, m->seq};
    int xdims = m->H == 1 && m->W == 1 ? 2 : 4;   /* an MLP's input is [B][features] */
    int ldims = m->kind == MODEL_CHAIN ? 1 : 2;
    if (m->kind != MODEL_CHAIN) {
        xshape[1] = m->seq;
        xshape[2] = m->input;
        xdims = pl.x_ids ? 2 : 3;
    }
    long long nx = pl.x_ids ? pl.in_slots : 0, *ids = NULL;
    long long *lab = (long long *)malloc((size_t)pl.nlabels * sizeof(long long));
    if (nx) ids = (long long *)malloc((size_t)nx * sizeof(long long));
    int rc = -1;
    if (!lab || (nx && !ids)) {
        err_set("out of memory for labels");
        goto out;
    }
    for (long long n = 0; n < pl.nlabels; n++) lab[n] = ((const int *)in[TB_LABELS])[n];
    for (long long n = 0; n < nx; n++) ids[n] = ((const int *)in[TB_X])[n];
    snprintf(text, sizeof text, "%s\n", m->name);
    if (write_text(dir, "model.txt", text)) goto out;
    snprintf(text, sizeof text, "%.9g\n", (double)cfg.lr);
    if (write_text(dir, "lr.txt", text)) goto out;
    if (write_config(&pl, &cfg, dir)) goto out;
    snprintf(path, sizeof path, "%s/input.npy", dir);
    if (ids ? npy_write(path, "<i8", xdims, xshape, ids, (size_t)nx * sizeof(long long))
            : npy_write(path, "<f4", xdims, xshape, in[TB_X], (size_t)pl.in_slots * sizeof(float)))
        goto out;
    snprintf(path, sizeof path, "%s/labels.npy", dir);
    if (npy_write(path, "<i8", ldims, lshape, lab, (size_t)pl.nlabels * sizeof(long long)))
        goto out;
    snprintf(path, sizeof path, "%s/loss.npy", dir);
    if (npy_write(path, "<f4", 0, NULL, out[TB_LOSS], sizeof(float))) goto out;
    if (dump_tensors(&pl, dir, "param", (const float *)in[TB_PARAMS]) ||
        dump_tensors(&pl, dir, "grad", (const float *)out[TB_GRADS]) ||
        dump_tensors(&pl, dir, "updated", (const float *)out[TB_PARAMS]))
        goto out;
    rc = 0;
out:
    free(lab);
    free(ids);
    model_plan_free(&pl);
    return rc;
}

/* Each repetition is the next training step; --dump writes step 1. */
static const suite_steps TRAIN_STEPS = {
    .steps = TRAIN_CHECK_STEPS,
    .dump = train_dump,
};

const suite_def SUITE_TRAIN = {
    .name = "train",
    .about = "one training step (forward, loss, backward, optimizer) of a CNN, two MLPs, an RNN, an LSTM "
        "and a GPT, step by step checked",
    .op = "train",
    .default_baseline = "cpu-blas",
    .problem_help = "<model>-b<batch>[-mom|-adamw]: cnn, mlp, mlp-small, rnn, lstm or gpt; batch 1..4096 "
        "(cnn-b64, mlp-b256-mom, gpt-b8-adamw)",
    .parse = train_parse,
    .defaults = train_defaults,
    .layout = train_layout,
    .fill = train_fill,
    .ref_build = train_ref_build,
    .ref_free = train_ref_free,
    .check = train_check,
    .cpu_run = train_cpu_run,
    .emu_max_work = 4e8, /* emulated default sweeps: the small steps */
    .steps = &TRAIN_STEPS, /* a step suite */
    .dp_open = train_dp_open, /* the data-parallel modes (train_dp.c) */
};
